/* KFD events: CREATE, DESTROY, SET, RESET and WAIT_EVENTS. Only signal
 * events can be set from userspace (as in the driver). A wave's
 * out-of-bounds access sets every MEMORY event, whose WAIT_EVENTS entry
 * then reports the address; the model never raises HW_EXCEPTION events
 * (nothing resets). The event page a first CREATE_EVENT may name is not
 * modelled: mailboxes live in amd_signal_t memory. */
#include <errno.h>
#include <time.h>

#include "kfd_model_internal.h"

/* WAIT_EVENTS' "forever" (KFD_EVENT_TIMEOUT_INFINITE). */
#define KFD_MODEL_WAIT_INFINITE 0xFFFFFFFFu

static kfd_model_event_t* by_id(hrx_kfd_model_t* m, uint32_t id) {
  if (id == 0 || id > KFD_MODEL_MAX_EVENTS) return NULL;
  kfd_model_event_t* e = &m->events[id - 1];
  return e->used ? e : NULL;
}

int kfd_model_create_event(hrx_kfd_model_t* m,
                           hrx_kfd_create_event_args_t* args) {
  if (args->event_type != HRX_KFD_EVENT_SIGNAL &&
      args->event_type != HRX_KFD_EVENT_MEMORY &&
      args->event_type != HRX_KFD_EVENT_HW_EXCEPTION) {
    return -EINVAL;
  }
  for (uint32_t i = 0; i < KFD_MODEL_MAX_EVENTS; ++i) {
    kfd_model_event_t* e = &m->events[i];
    if (e->used) continue;
    *e = (kfd_model_event_t){.used = true,
                             .auto_reset = args->auto_reset != 0,
                             .type = args->event_type};
    args->event_id = i + 1;
    args->event_trigger_data = i + 1;
    args->event_slot_index = i;
    return 0;
  }
  return -ENOMEM;
}

void kfd_model_signal_event(hrx_kfd_model_t* m, uint32_t id) {
  kfd_model_event_t* e = by_id(m, id);
  if (e == NULL) return;
  e->signaled = true;
  pthread_cond_broadcast(&m->changed);
}

void kfd_model_signal_memory_fault(hrx_kfd_model_t* m, uint64_t va) {
  for (uint32_t i = 0; i < KFD_MODEL_MAX_EVENTS; ++i) {
    kfd_model_event_t* e = &m->events[i];
    if (e->used && e->type == HRX_KFD_EVENT_MEMORY) {
      e->fault_va = va;
      kfd_model_signal_event(m, i + 1);
    }
  }
}

int kfd_model_event_op(hrx_kfd_model_t* m, unsigned long request,
                       const hrx_kfd_event_id_args_t* args) {
  kfd_model_event_t* e = by_id(m, args->event_id);
  if (e == NULL) return -EINVAL;
  if (request == HRX_KFD_IOC_DESTROY_EVENT) {
    *e = (kfd_model_event_t){0};
  } else if (e->type != HRX_KFD_EVENT_SIGNAL) {
    return -EINVAL;
  } else if (request == HRX_KFD_IOC_SET_EVENT) {
    kfd_model_signal_event(m, args->event_id);
  } else {
    e->signaled = false;
  }
  return 0;
}

/* Whether the wait is satisfied; -EINVAL for an unknown id. */
static int satisfied(hrx_kfd_model_t* m, const hrx_kfd_event_data_t* data,
                     uint32_t count, bool all) {
  uint32_t ready = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const kfd_model_event_t* e = by_id(m, data[i].event_id);
    if (e == NULL) return -EINVAL;
    if (e->signaled) ++ready;
  }
  return all ? ready == count : ready > 0;
}

/* Fills the answer of a signaled MEMORY event, then consumes it if it
 * auto-resets. */
static void report(hrx_kfd_model_t* m, hrx_kfd_event_data_t* data) {
  kfd_model_event_t* e = by_id(m, data->event_id);
  if (!e->signaled) return;
  if (e->type == HRX_KFD_EVENT_MEMORY) {
    data->u.memory_exception = (hrx_kfd_memory_exception_t){
        .not_present = 1, .va = e->fault_va, .gpu_id = m->gpu_id};
  }
  if (e->auto_reset) e->signaled = false;
}

int kfd_model_wait_events(hrx_kfd_model_t* m,
                          hrx_kfd_wait_events_args_t* args) {
  if (args->num_events == 0 || args->events_ptr == 0) return -EINVAL;
  hrx_kfd_event_data_t* data =
      (hrx_kfd_event_data_t*)(uintptr_t)args->events_ptr;
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += args->timeout / 1000;
  deadline.tv_nsec += (long)(args->timeout % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&m->mutex);
  int rc = 0;
  args->wait_result = HRX_KFD_WAIT_TIMEOUT;
  for (;;) {
    int done = satisfied(m, data, args->num_events, args->wait_for_all != 0);
    if (done < 0) {
      rc = done;
      break;
    }
    if (done) {
      /* Waking consumes auto-reset events, as the driver does. */
      for (uint32_t i = 0; i < args->num_events; ++i) report(m, &data[i]);
      args->wait_result = HRX_KFD_WAIT_COMPLETE;
      break;
    }
    if (m->stopping) {
      args->wait_result = HRX_KFD_WAIT_FAIL;
      break;
    }
    if (args->timeout == KFD_MODEL_WAIT_INFINITE) {
      pthread_cond_wait(&m->changed, &m->mutex);
    } else if (pthread_cond_timedwait(&m->changed, &m->mutex, &deadline) ==
               ETIMEDOUT) {
      break;
    }
  }
  pthread_mutex_unlock(&m->mutex);
  return rc;
}
