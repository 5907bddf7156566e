#include "hrx/core/clock.h"

#include <errno.h>
#include <time.h>

uint64_t hrx_clock_monotonic_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

uint64_t hrx_deadline_after(uint64_t timeout_ns) {
  if (timeout_ns == HRX_TIMEOUT_INFINITE) return HRX_DEADLINE_INFINITE;
  uint64_t deadline;
  if (__builtin_add_overflow(hrx_clock_monotonic_ns(), timeout_ns,
                             &deadline)) {
    return HRX_DEADLINE_INFINITE;
  }
  return deadline;
}

uint64_t hrx_deadline_remaining(uint64_t deadline_ns) {
  if (deadline_ns == HRX_DEADLINE_INFINITE) return HRX_TIMEOUT_INFINITE;
  uint64_t now = hrx_clock_monotonic_ns();
  return deadline_ns > now ? deadline_ns - now : 0;
}

void hrx_sleep_ns(uint64_t duration_ns) {
  struct timespec left = {.tv_sec = (time_t)(duration_ns / 1000000000ull),
                          .tv_nsec = (long)(duration_ns % 1000000000ull)};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

uint64_t hrx_retry_backoff_ns(uint32_t attempt) {
  const uint64_t cap = 30000000000ull;
  if (attempt == 0) return 0;
  if (attempt > 7) return cap; /* 0.5 s << 6 already exceeds the cap */
  uint64_t pause = 500000000ull << (attempt - 1);
  return pause < cap ? pause : cap;
}
