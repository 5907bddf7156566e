/* Writes: the caller's bytes are copied into a claimed slot outside the
 * lock, then the slot is queued like a read. */
#include <string.h>

#include "session_internal.h"
#include "ticket.h"

#define HRX_STORAGE_WRITE_KNOWN \
  (HRX_STORAGE_WRITE_DATASYNC | HRX_STORAGE_WRITE_FSYNC)

static hrx_status_t check_arguments(const void* data, uint64_t offset,
                                    uint64_t length,
                                    hrx_storage_write_flags_t flags) {
  if (length == 0 || !data || offset + length < offset) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "write of %llu bytes at offset %llu is empty, has "
                           "no data or overflows",
                           (unsigned long long)length,
                           (unsigned long long)offset);
  }
  if (flags & ~(hrx_storage_write_flags_t)HRX_STORAGE_WRITE_KNOWN) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown write flags 0x%x",
                           flags & ~(hrx_storage_write_flags_t)
                                       HRX_STORAGE_WRITE_KNOWN);
  }
  return HRX_OK;
}

/* What the file and the pool allow for this write (lock held). */
static hrx_status_t check_write(hrx_storage_session_t* session, uint32_t file,
                                uint64_t offset, uint64_t length) {
  HRX_RETURN_IF_ERROR(hrx_storage_session_check_file(session, file));
  const hrx_storage_file_t* entry = &session->files[file];
  if (!entry->writable) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "file %u is not open for writing (use "
                           "hrx_storage_session_open_file_for_writing or an "
                           "O_RDWR descriptor)",
                           file);
  }
  if (length > session->pool.slot_bytes) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "write of %llu bytes is more than a slot holds "
                           "(%llu)",
                           (unsigned long long)length,
                           (unsigned long long)session->pool.slot_bytes);
  }
  if (offset % entry->alignment != 0 || length % entry->alignment != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "direct write of %llu bytes at offset %llu: "
                           "offset and length must be multiples of %u",
                           (unsigned long long)length,
                           (unsigned long long)offset, entry->alignment);
  }
  return HRX_OK;
}

hrx_status_t hrx_storage_session_write(hrx_storage_session_t* session,
                                       uint32_t file, uint64_t offset,
                                       const void* data, uint64_t length,
                                       hrx_storage_write_flags_t flags,
                                       hrx_storage_ticket_t** out_ticket) {
  *out_ticket = NULL;
  HRX_RETURN_IF_ERROR(check_arguments(data, offset, length, flags));
  hrx_storage_ticket_t* ticket = NULL;
  HRX_RETURN_IF_ERROR(hrx_storage_ticket_allocate(session, &ticket));

  pthread_mutex_lock(&session->mutex);
  uint32_t slot = HRX_STORAGE_NO_SLOT;
  hrx_status_t status = check_write(session, file, offset, length);
  if (status == HRX_OK) {
    status = hrx_storage_session_claim(session, file, offset, length, length,
                                       HRX_STORAGE_OP_WRITE, &slot);
  }
  pthread_mutex_unlock(&session->mutex);
  if (status != HRX_OK) {
    hrx_storage_ticket_free(ticket);
    return status;
  }
  /* The claim keeps the slot from every other caller and from the service
   * thread (it is not queued yet), so the copy needs no lock. */
  memcpy(session->pool.slots[slot].memory, data, length);

  pthread_mutex_lock(&session->mutex);
  status = hrx_storage_session_check_file(session, file);
  if (status == HRX_OK) {
    session->pool.slots[slot].write_flags = flags;
    hrx_storage_pool_unshare(&session->pool, file, offset, length);
    status = hrx_storage_session_enqueue(session, slot);
  } else {
    session->pool.slots[slot].state = HRX_STORAGE_SLOT_EMPTY;
    hrx_storage_pool_drop(&session->pool, slot);
  }
  if (status == HRX_OK) {
    hrx_storage_pool_hold(&session->pool, slot); /* the ticket's hold */
    session->references++;
    if (session->pool.retained > session->stats.peak_retained_slots) {
      session->stats.peak_retained_slots = session->pool.retained;
    }
    hrx_storage_ticket_bind(ticket, slot, 0, length);
  }
  pthread_mutex_unlock(&session->mutex);
  if (status != HRX_OK) {
    hrx_storage_ticket_free(ticket);
    return status;
  }
  *out_ticket = ticket;
  return HRX_OK;
}
