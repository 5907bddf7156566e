/* Signals of the kfd provider and the event thread that serves their
 * waits.
 *
 * A signal is a 192-byte slot of GPU memory whose first 64 bytes are the
 * amd_signal_t the packet processor decrements; every signal names the
 * device's one signal event and its mailbox, so a completion sets that
 * event. Only the event thread waits on KFD events; host waiters sleep on
 * the device's |epoch| futex, which the thread bumps on every event and a
 * host-side store bumps directly. So a wait costs no ioctl and a thousand
 * waiters cost one KFD wait. */
#include <string.h>
#include <unistd.h>

#include "kfd_device.h"
#include "kfd_ioctl.h"

/* Signals per chunk of GPU memory (one page of 192-byte slots is 21). */
#define HRX_KFD_SIGNALS_PER_CHUNK 336u
/* How long the event thread waits before it looks at the queues anyway
 * (a fault whose event was lost still surfaces). */
#define HRX_KFD_EVENT_WAIT_MS 100u

void hrx_kfd_wake(hrx_kfd_device_t* d) {
  hrx_fabric_futex_bump(&d->epoch, &d->sleepers);
}

static void hrx_kfd_signal_notify(void* context) { hrx_kfd_wake(context); }

static uint32_t hrx_kfd_signal_observe(void* context) {
  hrx_kfd_device_t* d = context;
  return atomic_load_explicit(&d->epoch, memory_order_acquire);
}

static void hrx_kfd_signal_sleep(void* context, uint32_t observed,
                                 uint64_t timeout_ns) {
  hrx_kfd_device_t* d = context;
  hrx_fabric_futex_wait(&d->epoch, &d->sleepers, observed, timeout_ns);
}

static void hrx_kfd_signal_release(void* context, hrx_fabric_signal_t* s) {
  hrx_kfd_device_t* d = context;
  pthread_mutex_lock(&d->mutex);
  /* The free list was sized for every slot when its chunk was added. */
  d->free_signals[d->free_signal_count++] = s;
  pthread_mutex_unlock(&d->mutex);
  hrx_fabric_device_release(&d->base);
}

/* The GPU cannot drop one dispatch: every queue holding work for |s| is
 * reset (hrx_kfd_queue_cancel). */
static void hrx_kfd_signal_cancel(void* context, hrx_fabric_signal_t* s) {
  hrx_kfd_device_t* d = context;
  uint64_t handle = hrx_fabric_signal_handle(s);
  pthread_mutex_lock(&d->mutex);
  for (size_t i = 0; i < d->queue_count; ++i) {
    hrx_kfd_queue_cancel(d->queues[i], handle);
  }
  pthread_mutex_unlock(&d->mutex);
  hrx_kfd_wake(d);
}

static const hrx_fabric_signal_waker_t hrx_kfd_waker = {
    .notify = hrx_kfd_signal_notify,
    .observe = hrx_kfd_signal_observe,
    .sleep = hrx_kfd_signal_sleep,
    .release = hrx_kfd_signal_release,
    .cancel = hrx_kfd_signal_cancel,
};

/* Adds a chunk of |chunk|'s slots to the free list. With the mutex held. */
static hrx_status_t hrx_kfd_signal_add_chunk(hrx_kfd_device_t* d,
                                             const hrx_fabric_memory_t* chunk) {
  hrx_allocator_t a = d->base.allocator;
  size_t total = (d->signal_chunk_count + 1) * HRX_KFD_SIGNALS_PER_CHUNK;
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(a, sizeof(hrx_fabric_signal_t*),
                                               total, &d->free_signal_capacity,
                                               (void**)&d->free_signals));
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(
      a, sizeof(hrx_fabric_memory_t), d->signal_chunk_count + 1,
      &d->signal_chunk_capacity, (void**)&d->signal_chunks));
  d->signal_chunks[d->signal_chunk_count++] = *chunk;
  uint8_t* slots = chunk->host_pointer;
  for (size_t i = HRX_KFD_SIGNALS_PER_CHUNK; i-- > 0;) {
    d->free_signals[d->free_signal_count++] =
        (hrx_fabric_signal_t*)(slots + i * HRX_FABRIC_SIGNAL_BYTES);
  }
  return HRX_OK;
}

/* Takes a free slot, adding a chunk of GPU memory when there is none. */
static hrx_status_t hrx_kfd_signal_take(hrx_kfd_device_t* d,
                                        hrx_fabric_signal_t** out) {
  for (;;) {
    pthread_mutex_lock(&d->mutex);
    if (d->free_signal_count) {
      *out = d->free_signals[--d->free_signal_count];
      pthread_mutex_unlock(&d->mutex);
      return HRX_OK;
    }
    pthread_mutex_unlock(&d->mutex);
    /* Allocation takes the mutex itself. */
    hrx_fabric_memory_t chunk;
    HRX_RETURN_IF_ERROR(hrx_kfd_memory_allocate_flags(
        d, (uint64_t)HRX_KFD_SIGNALS_PER_CHUNK * HRX_FABRIC_SIGNAL_BYTES,
        HRX_KFD_ALLOC_COHERENT | HRX_KFD_ALLOC_UNCACHED, true, &chunk));
    pthread_mutex_lock(&d->mutex);
    hrx_status_t status = hrx_kfd_signal_add_chunk(d, &chunk);
    pthread_mutex_unlock(&d->mutex);
    if (status != HRX_OK) {
      hrx_kfd_memory_free(&d->base, &chunk);
      return status;
    }
  }
}

hrx_status_t hrx_kfd_signal_create(hrx_fabric_device_t* base,
                                   int64_t initial_value,
                                   hrx_fabric_signal_t** out_signal) {
  hrx_kfd_device_t* d = hrx_kfd_device_cast(base);
  *out_signal = NULL;
  hrx_fabric_signal_t* s = NULL;
  HRX_RETURN_IF_ERROR(hrx_kfd_signal_take(d, &s));
  hrx_fabric_signal_init_device(s, initial_value, &hrx_kfd_waker, d,
                                d->mailbox.device_address, d->signal_event);
  hrx_fabric_device_retain(base);
  *out_signal = s;
  return HRX_OK;
}

void hrx_kfd_signal_pool_free(hrx_kfd_device_t* d) {
  for (size_t i = 0; i < d->signal_chunk_count; ++i) {
    hrx_kfd_memory_free(&d->base, &d->signal_chunks[i]);
  }
  hrx_allocator_free(d->base.allocator, d->signal_chunks);
  hrx_allocator_free(d->base.allocator, d->free_signals);
  d->signal_chunks = NULL;
  d->free_signals = NULL;
  d->signal_chunk_count = d->free_signal_count = 0;
}

/*===------------------------------------------------------------------===*/
/* Events                                                                  */
/*===------------------------------------------------------------------===*/

static hrx_status_t hrx_kfd_create_event(hrx_kfd_device_t* d, uint32_t type,
                                         uint32_t* out_id) {
  hrx_kfd_create_event_args_t args = {.event_type = type, .auto_reset = 1,
                                      .node_id = d->node.index};
  HRX_RETURN_IF_ERROR(hrx_kfd_device_ioctl(d, HRX_KFD_IOC_CREATE_EVENT,
                                           "AMDKFD_IOC_CREATE_EVENT", &args));
  *out_id = args.event_id;
  return HRX_OK;
}

static void hrx_kfd_destroy_event(hrx_kfd_device_t* d, uint32_t* id) {
  if (*id == 0) return;
  hrx_kfd_event_id_args_t args = {.event_id = *id};
  hrx_status_free(hrx_kfd_device_ioctl(d, HRX_KFD_IOC_DESTROY_EVENT,
                                       "AMDKFD_IOC_DESTROY_EVENT", &args));
  *id = 0;
}

static void hrx_kfd_check_queues(hrx_kfd_device_t* d) {
  pthread_mutex_lock(&d->mutex);
  for (size_t i = 0; i < d->queue_count; ++i) hrx_kfd_queue_check(d->queues[i]);
  pthread_mutex_unlock(&d->mutex);
}

static void* hrx_kfd_event_main(void* context) {
  hrx_kfd_device_t* d = context;
  while (!atomic_load_explicit(&d->stopping, memory_order_acquire)) {
    hrx_kfd_event_data_t events[2] = {{.event_id = d->signal_event},
                                      {.event_id = d->memory_event}};
    hrx_kfd_wait_events_args_t args = {
        .events_ptr = (uint64_t)(uintptr_t)events, .num_events = 2,
        .wait_for_all = 0, .timeout = HRX_KFD_EVENT_WAIT_MS};
    hrx_status_t status = hrx_kfd_device_ioctl(
        d, HRX_KFD_IOC_WAIT_EVENTS, "AMDKFD_IOC_WAIT_EVENTS", &args);
    if (status != HRX_OK) {
      /* A failing wait must not spin: fall back to polling. */
      hrx_status_free(status);
      usleep(HRX_KFD_EVENT_WAIT_MS * 1000u);
    }
    hrx_kfd_check_queues(d);
    hrx_kfd_wake(d);
  }
  return NULL;
}

hrx_status_t hrx_kfd_events_start(hrx_kfd_device_t* d) {
  HRX_RETURN_IF_ERROR(hrx_kfd_memory_allocate_flags(
      d, 8, HRX_KFD_ALLOC_COHERENT | HRX_KFD_ALLOC_UNCACHED, true,
      &d->mailbox));
  hrx_status_t status =
      hrx_kfd_create_event(d, HRX_KFD_EVENT_SIGNAL, &d->signal_event);
  if (status == HRX_OK) {
    status = hrx_kfd_create_event(d, HRX_KFD_EVENT_MEMORY, &d->memory_event);
  }
  if (status == HRX_OK) {
    int error = pthread_create(&d->event_thread, NULL, hrx_kfd_event_main, d);
    if (error) {
      status = hrx_status_from_errno(error, "cannot start the KFD event "
                                     "thread");
    } else {
      d->event_thread_started = true;
    }
  }
  if (status != HRX_OK) hrx_kfd_events_stop(d);
  return status;
}

void hrx_kfd_events_stop(hrx_kfd_device_t* d) {
  if (d->event_thread_started) {
    atomic_store_explicit(&d->stopping, true, memory_order_release);
    hrx_kfd_event_id_args_t args = {.event_id = d->signal_event};
    hrx_status_free(hrx_kfd_device_ioctl(d, HRX_KFD_IOC_SET_EVENT,
                                         "AMDKFD_IOC_SET_EVENT", &args));
    pthread_join(d->event_thread, NULL);
    d->event_thread_started = false;
  }
  hrx_kfd_destroy_event(d, &d->memory_event);
  hrx_kfd_destroy_event(d, &d->signal_event);
  if (d->mailbox.device_address) hrx_kfd_memory_free(&d->base, &d->mailbox);
}
