/* Lane watchers: one thread per lane observes, in order, when each
 * submission's work on that lane starts and ends, for statistics, traces
 * and completion file descriptors. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "exec_internal.h"

static const char* const hrx_exec_lane_names[HRX_EXEC_LANE_COUNT] = {
    "upload", "compute", "download"};

hrx_status_t hrx_exec_notice_create(hrx_allocator_t allocator, int lanes,
                                    uint64_t submission,
                                    hrx_exec_notice_t** out_notice) {
  hrx_exec_notice_t* n = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*n), (void**)&n));
  atomic_init(&n->references, 1);
  pthread_mutex_init(&n->mutex, NULL);
  n->remaining = lanes;
  n->fd = -1;
  n->submit_ns = hrx_clock_monotonic_ns();
  n->submission = submission;
  *out_notice = n;
  return HRX_OK;
}

void hrx_exec_notice_retain(hrx_exec_notice_t* n) {
  atomic_fetch_add_explicit(&n->references, 1, memory_order_relaxed);
}

void hrx_exec_notice_release(hrx_allocator_t allocator,
                             hrx_exec_notice_t* n) {
  if (!n) return;
  if (atomic_fetch_sub_explicit(&n->references, 1, memory_order_acq_rel) != 1) {
    return;
  }
  if (n->fd >= 0) close(n->fd);
  pthread_mutex_destroy(&n->mutex);
  hrx_allocator_free(allocator, n);
}

void hrx_exec_notice_lane_done(hrx_exec_notice_t* n) {
  pthread_mutex_lock(&n->mutex);
  if (--n->remaining == 0 && n->fd >= 0) {
    uint64_t one = 1;
    /* Only EAGAIN (counter full) can fail here, and then it is readable. */
    (void)!write(n->fd, &one, sizeof(one));
  }
  pthread_mutex_unlock(&n->mutex);
}

hrx_status_t hrx_exec_completion_fd(hrx_exec_completion_t* c, int* out_fd) {
  *out_fd = -1;
  hrx_exec_notice_t* n = c->notice;
  if (!n) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "completion file descriptors need a runtime "
                           "created with observe = true");
  }
  hrx_status_t status = HRX_OK;
  pthread_mutex_lock(&n->mutex);
  if (n->fd < 0) {
    n->fd = eventfd(n->remaining == 0 ? 1 : 0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (n->fd < 0) {
      status = hrx_status_from_errno(errno, "cannot create an eventfd");
    }
  }
  *out_fd = n->fd;
  pthread_mutex_unlock(&n->mutex);
  return status;
}

static void hrx_exec_watch_observe(hrx_exec_watcher_t* w,
                                   hrx_exec_watch_item_t item) {
  /* The lane could start no earlier than the submission and its previous
   * end; if we see its start event complete while we watch, that moment
   * (after its waits on other lanes) is the better answer. */
  uint64_t start = item.notice->submit_ns > w->last_end_ns
                       ? item.notice->submit_ns
                       : w->last_end_ns;
  if (item.start && !hrx_gpu_event_is_complete(item.start)) {
    hrx_status_free(hrx_gpu_event_wait(item.start, HRX_TIMEOUT_INFINITE));
    uint64_t seen = hrx_clock_monotonic_ns();
    if (seen > start) start = seen;
  }
  /* A fault ends the work too; the completion reports it. */
  hrx_status_free(hrx_gpu_event_wait(item.end, HRX_TIMEOUT_INFINITE));
  uint64_t end = hrx_clock_monotonic_ns();
  pthread_mutex_lock(&w->mutex);
  if (start > end) start = end;
  w->busy_ns += end - start;
  w->last_end_ns = end;
  pthread_mutex_unlock(&w->mutex);
  hrx_trace_t* trace = w->runtime->trace;
  if (trace) {
    hrx_trace_arg_t args[] = {{"submission", HRX_TRACE_ARG_UINT,
                               {.u = item.notice->submission}}};
    hrx_trace_event_t event = {.name = hrx_exec_lane_names[w->lane],
                               .category = "hrx.exec",
                               .start_ns = start,
                               .duration_ns = end - start,
                               .tid = (uint32_t)w->lane + 1,
                               .args = args,
                               .arg_count = 1};
    hrx_status_free(hrx_trace_record(trace, &event));
  }
  hrx_exec_notice_lane_done(item.notice);
  hrx_exec_notice_release(w->runtime->allocator, item.notice);
  hrx_gpu_event_release(item.start);
  hrx_gpu_event_release(item.end);
}

static void* hrx_exec_watch_main(void* arg) {
  hrx_exec_watcher_t* w = arg;
  pthread_mutex_lock(&w->mutex);
  for (;;) {
    while (!w->count && !w->stopping) pthread_cond_wait(&w->wake, &w->mutex);
    if (!w->count) break;
    hrx_exec_watch_item_t item = w->items[w->head];
    w->head = (w->head + 1) % w->capacity;
    w->count--;
    pthread_mutex_unlock(&w->mutex);
    hrx_exec_watch_observe(w, item);
    pthread_mutex_lock(&w->mutex);
  }
  pthread_mutex_unlock(&w->mutex);
  return NULL;
}

hrx_status_t hrx_exec_watcher_start(hrx_exec_runtime_t* rt,
                                    hrx_exec_lane_t lane) {
  hrx_exec_watcher_t* w = &rt->watchers[lane];
  w->runtime = rt;
  w->lane = lane;
  pthread_mutex_init(&w->mutex, NULL);
  pthread_cond_init(&w->wake, NULL);
  int error = pthread_create(&w->thread, NULL, hrx_exec_watch_main, w);
  if (error) {
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->mutex);
    return hrx_status_from_errno(error, "cannot start the %s watcher",
                                 hrx_exec_lane_names[lane]);
  }
  char name[16];
  snprintf(name, sizeof(name), "hrx-%s", hrx_exec_lane_names[lane]);
  pthread_setname_np(w->thread, name);
  w->started = true;
  return HRX_OK;
}

void hrx_exec_watcher_stop(hrx_exec_watcher_t* w) {
  if (!w->started) return;
  pthread_mutex_lock(&w->mutex);
  w->stopping = true;
  pthread_cond_signal(&w->wake);
  pthread_mutex_unlock(&w->mutex);
  pthread_join(w->thread, NULL);
  pthread_cond_destroy(&w->wake);
  pthread_mutex_destroy(&w->mutex);
  hrx_allocator_free(w->runtime->allocator, w->items);
  w->started = false;
}

void hrx_exec_watcher_push(hrx_exec_watcher_t* w, hrx_gpu_event_t* start,
                           hrx_gpu_event_t* end, hrx_exec_notice_t* notice) {
  pthread_mutex_lock(&w->mutex);
  hrx_status_t status = HRX_OK;
  if (w->count == w->capacity) {
    /* Unroll the ring into a larger one. */
    size_t capacity = w->capacity ? w->capacity * 2 : 16;
    hrx_exec_watch_item_t* items = NULL;
    status = hrx_allocator_malloc_array(w->runtime->allocator, capacity,
                                        sizeof(*items), (void**)&items);
    if (status == HRX_OK) {
      for (size_t i = 0; i < w->count; ++i) {
        items[i] = w->items[(w->head + i) % w->capacity];
      }
      hrx_allocator_free(w->runtime->allocator, w->items);
      w->items = items;
      w->capacity = capacity;
      w->head = 0;
    }
  }
  if (status == HRX_OK) {
    hrx_gpu_event_retain(start);
    hrx_gpu_event_retain(end);
    hrx_exec_notice_retain(notice);
    w->items[(w->head + w->count) % w->capacity] =
        (hrx_exec_watch_item_t){start, end, notice};
    w->count++;
    pthread_cond_signal(&w->wake);
  }
  pthread_mutex_unlock(&w->mutex);
  if (status != HRX_OK) {
    /* No room to hand it over: observe it here rather than never. */
    hrx_status_free(status);
    hrx_status_free(hrx_gpu_event_wait(end, HRX_TIMEOUT_INFINITE));
    hrx_exec_notice_lane_done(notice);
  }
}

uint64_t hrx_exec_watcher_busy_ns(hrx_exec_watcher_t* w) {
  if (!w->started) return 0;
  pthread_mutex_lock(&w->mutex);
  uint64_t busy = w->busy_ns;
  pthread_mutex_unlock(&w->mutex);
  return busy;
}
