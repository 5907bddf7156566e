#include "hrx/fabric/signal.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fabric_internal.h"

/* How long a wait spins before it sleeps: completion often lands within
 * microseconds, and a sleeping waiter costs the completing side a futex
 * wake and itself a wake-up (tens of microseconds on a VM, whose idle
 * CPU must be woken by the host). The spin yields the core between
 * checks, so a completing thread on the same core still runs. */
#define HRX_SIGNAL_SPIN_NS 50000u

hrx_status_t hrx_fabric_signal_create(int64_t initial_value,
                                      hrx_allocator_t allocator,
                                      hrx_fabric_signal_t** out_signal) {
  *out_signal = NULL;
  hrx_fabric_signal_t* signal = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*signal), (void**)&signal));
  memset(signal, 0, sizeof(*signal));
  signal->kind = HRX_AMD_SIGNAL_KIND_USER;
  atomic_init(&signal->value, initial_value);
  atomic_init(&signal->epoch, 0);
  atomic_init(&signal->waiters, 0);
  atomic_init(&signal->ref_count, 1);
  atomic_init(&signal->cancelled, false);
  signal->allocator = allocator;
  *out_signal = signal;
  return HRX_OK;
}

void hrx_fabric_signal_init_device(hrx_fabric_signal_t* signal,
                                   int64_t initial_value,
                                   const hrx_fabric_signal_waker_t* waker,
                                   void* waker_context, uint64_t mailbox,
                                   uint32_t event_id) {
  memset(signal, 0, sizeof(*signal));
  signal->kind = HRX_AMD_SIGNAL_KIND_USER;
  atomic_init(&signal->value, initial_value);
  signal->event_mailbox = mailbox;
  signal->event_id = event_id;
  atomic_init(&signal->ref_count, 1);
  signal->waker = waker;
  signal->waker_context = waker_context;
}

void hrx_fabric_signal_retain(hrx_fabric_signal_t* signal) {
  if (signal) atomic_fetch_add_explicit(&signal->ref_count, 1,
                                        memory_order_relaxed);
}

void hrx_fabric_signal_release(hrx_fabric_signal_t* signal) {
  if (signal && atomic_fetch_sub_explicit(&signal->ref_count, 1,
                                          memory_order_acq_rel) == 1) {
    hrx_fabric_report_channel_release(atomic_load(&signal->reports));
    if (signal->waker) {
      signal->waker->release(signal->waker_context, signal);
    } else {
      hrx_allocator_free(signal->allocator, signal);
    }
  }
}

uint64_t hrx_fabric_signal_handle(const hrx_fabric_signal_t* signal) {
  return (uint64_t)(uintptr_t)signal;
}

hrx_fabric_signal_t* hrx_fabric_signal_from_handle(uint64_t handle) {
  return (hrx_fabric_signal_t*)(uintptr_t)handle;
}

void hrx_fabric_signal_cancel(hrx_fabric_signal_t* signal) {
  atomic_store_explicit(&signal->cancelled, true, memory_order_release);
  if (signal->waker) signal->waker->cancel(signal->waker_context, signal);
}

bool hrx_fabric_signal_is_cancelled(const hrx_fabric_signal_t* signal) {
  return atomic_load_explicit(&signal->cancelled, memory_order_acquire);
}

void hrx_fabric_futex_wait(_Atomic uint32_t* word, _Atomic uint32_t* sleepers,
                           uint32_t observed, uint64_t timeout_ns) {
  struct timespec ts;
  struct timespec* timeout = NULL;
  if (timeout_ns != HRX_TIMEOUT_INFINITE) {
    ts.tv_sec = (time_t)(timeout_ns / 1000000000u);
    ts.tv_nsec = (long)(timeout_ns % 1000000000u);
    timeout = &ts;
  }
  atomic_fetch_add_explicit(sleepers, 1, memory_order_seq_cst);
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, observed, timeout, NULL, 0);
  atomic_fetch_sub_explicit(sleepers, 1, memory_order_seq_cst);
}

void hrx_fabric_futex_bump(_Atomic uint32_t* word,
                           _Atomic uint32_t* sleepers) {
  atomic_fetch_add_explicit(word, 1, memory_order_release);
  if (atomic_load_explicit(sleepers, memory_order_seq_cst)) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
  }
}

static void hrx_signal_notify(hrx_fabric_signal_t* signal) {
  if (signal->waker) {
    signal->waker->notify(signal->waker_context);
    return;
  }
  hrx_fabric_futex_bump(&signal->epoch, &signal->waiters);
}

int64_t hrx_fabric_signal_load(const hrx_fabric_signal_t* signal) {
  return atomic_load_explicit(&((hrx_fabric_signal_t*)signal)->value,
                              memory_order_acquire);
}

void hrx_fabric_signal_store(hrx_fabric_signal_t* signal, int64_t value) {
  atomic_store_explicit(&signal->value, value, memory_order_release);
  hrx_signal_notify(signal);
}

int64_t hrx_fabric_signal_add(hrx_fabric_signal_t* signal, int64_t value) {
  int64_t old = atomic_fetch_add_explicit(&signal->value, value,
                                          memory_order_acq_rel);
  hrx_signal_notify(signal);
  return old;
}

int64_t hrx_fabric_signal_subtract(hrx_fabric_signal_t* signal,
                                   int64_t value) {
  int64_t old = atomic_fetch_sub_explicit(&signal->value, value,
                                          memory_order_acq_rel);
  hrx_signal_notify(signal);
  return old;
}

int64_t hrx_fabric_signal_exchange(hrx_fabric_signal_t* signal,
                                   int64_t value) {
  int64_t old = atomic_exchange_explicit(&signal->value, value,
                                         memory_order_acq_rel);
  hrx_signal_notify(signal);
  return old;
}

int64_t hrx_fabric_signal_compare_exchange(hrx_fabric_signal_t* signal,
                                           int64_t expected,
                                           int64_t desired) {
  int64_t seen = expected;
  if (atomic_compare_exchange_strong_explicit(&signal->value, &seen, desired,
                                              memory_order_acq_rel,
                                              memory_order_acquire)) {
    hrx_signal_notify(signal);
  }
  return seen;
}

static int hrx_signal_holds(hrx_fabric_signal_condition_t condition,
                            int64_t value, int64_t compare) {
  switch (condition) {
    case HRX_FABRIC_SIGNAL_EQ: return value == compare;
    case HRX_FABRIC_SIGNAL_NE: return value != compare;
    case HRX_FABRIC_SIGNAL_LT: return value < compare;
    case HRX_FABRIC_SIGNAL_GTE: return value >= compare;
  }
  return 0;
}

hrx_status_t hrx_fabric_signal_wait(const hrx_fabric_signal_t* const_signal,
                                    hrx_fabric_signal_condition_t condition,
                                    int64_t compare, uint64_t timeout_ns,
                                    int64_t* out_value) {
  if ((unsigned)condition > HRX_FABRIC_SIGNAL_GTE) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown signal condition %d", (int)condition);
  }
  hrx_fabric_signal_t* signal = (hrx_fabric_signal_t*)const_signal;
  uint64_t deadline = hrx_deadline_after(timeout_ns);
  uint64_t spin_until = hrx_clock_monotonic_ns() + HRX_SIGNAL_SPIN_NS;
  for (;;) {
    uint32_t epoch =
        signal->waker
            ? signal->waker->observe(signal->waker_context)
            : atomic_load_explicit(&signal->epoch, memory_order_acquire);
    int64_t value = atomic_load_explicit(&signal->value, memory_order_acquire);
    if (hrx_signal_holds(condition, value, compare)) {
      if (out_value) *out_value = value;
      return HRX_OK;
    }
    uint64_t remaining = hrx_deadline_remaining(deadline);
    if (remaining == 0) {
      return hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                             "signal still %lld after the timeout",
                             (long long)value);
    }
    if (hrx_clock_monotonic_ns() < spin_until) {
      sched_yield();
      continue;
    }
    if (signal->waker) {
      signal->waker->sleep(signal->waker_context, epoch, remaining);
      continue;
    }
    /* Sleeps only if no change happened since |epoch| was read. */
    hrx_fabric_futex_wait(&signal->epoch, &signal->waiters, epoch, remaining);
  }
}
