#include "ticket.h"

#include <time.h>

hrx_status_t hrx_storage_ticket_allocate(hrx_storage_session_t* session,
                                         hrx_storage_ticket_t** out_ticket) {
  *out_ticket = NULL;
  hrx_storage_ticket_t* ticket = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(session->allocator,
                                           sizeof(*ticket), (void**)&ticket));
  ticket->session = session;
  ticket->slot = HRX_STORAGE_NO_SLOT;
  *out_ticket = ticket;
  return HRX_OK;
}

void hrx_storage_ticket_bind(hrx_storage_ticket_t* ticket, uint32_t slot,
                             uint64_t skip, uint64_t length) {
  ticket->slot = slot;
  ticket->skip = skip;
  ticket->length = length;
}

void hrx_storage_ticket_free(hrx_storage_ticket_t* ticket) {
  hrx_allocator_free(ticket->session->allocator, ticket);
}

/* The ticket's state as a status, or DEADLINE_EXCEEDED when the read is
 * still in flight (lock held). */
static hrx_status_t ticket_state(hrx_storage_ticket_t* ticket) {
  hrx_storage_session_t* session = ticket->session;
  if (session->failure) {
    return hrx_storage_session_failure_copy(session);
  }
  if (session->pool.slots[ticket->slot].state == HRX_STORAGE_SLOT_READY) {
    return HRX_OK;
  }
  return hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                         "the read of %llu bytes has not completed",
                         (unsigned long long)ticket->length);
}

static const void* ticket_data(const hrx_storage_ticket_t* ticket) {
  return ticket->session->pool.slots[ticket->slot].memory + ticket->skip;
}

hrx_status_t hrx_storage_ticket_wait(hrx_storage_ticket_t* ticket,
                                     uint64_t timeout_ns,
                                     const void** out_data,
                                     uint64_t* out_length) {
  *out_data = NULL;
  *out_length = 0;
  hrx_storage_session_t* session = ticket->session;
  uint64_t deadline = hrx_deadline_after(timeout_ns);
  pthread_mutex_lock(&session->mutex);
  hrx_status_t status = ticket_state(ticket);
  while (hrx_status_is(status, HRX_STATUS_DEADLINE_EXCEEDED) &&
         hrx_deadline_remaining(deadline) > 0) {
    hrx_status_free(status);
    struct timespec until = {
        .tv_sec = (time_t)(deadline / 1000000000u),
        .tv_nsec = (long)(deadline % 1000000000u),
    };
    pthread_cond_timedwait(&session->changed, &session->mutex, &until);
    status = ticket_state(ticket);
  }
  pthread_mutex_unlock(&session->mutex);
  if (status != HRX_OK) {
    return status;
  }
  *out_data = ticket_data(ticket);
  *out_length = ticket->length;
  return HRX_OK;
}

hrx_status_t hrx_storage_ticket_copy_to(hrx_storage_ticket_t* ticket,
                                        hrx_gpu_stream_t* stream,
                                        hrx_gpu_view_t view) {
  pthread_mutex_lock(&ticket->session->mutex);
  hrx_status_t status = ticket_state(ticket);
  pthread_mutex_unlock(&ticket->session->mutex);
  if (hrx_status_is(status, HRX_STATUS_DEADLINE_EXCEEDED)) {
    hrx_status_free(status);
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "the read of %llu bytes has not completed; wait "
                           "on the ticket before copying it",
                           (unsigned long long)ticket->length);
  }
  HRX_RETURN_IF_ERROR(status);
  if (view.length != ticket->length) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the view holds %llu bytes, the read %llu",
                           (unsigned long long)view.length,
                           (unsigned long long)ticket->length);
  }
  /* A READY slot held by this ticket is immutable, so it is read without
   * the lock; the stream stages the bytes before returning. */
  return hrx_gpu_stream_upload(stream, view, ticket_data(ticket),
                               ticket->length);
}

void hrx_storage_ticket_release(hrx_storage_ticket_t* ticket) {
  if (!ticket) {
    return;
  }
  hrx_storage_session_t* session = ticket->session;
  pthread_mutex_lock(&session->mutex);
  hrx_storage_pool_drop(&session->pool, ticket->slot);
  pthread_mutex_unlock(&session->mutex);
  hrx_storage_ticket_free(ticket);
  hrx_storage_session_release(session);
}
