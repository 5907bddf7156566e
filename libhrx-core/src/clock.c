#include "hrx/core/clock.h"

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
