/* Clocks and deadlines. All values are nanoseconds. */
#ifndef HRX_CORE_CLOCK_H_
#define HRX_CORE_CLOCK_H_

#include <stdint.h>

#include "hrx/core/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A timeout that never expires. */
#define HRX_TIMEOUT_INFINITE UINT64_MAX
#define HRX_DEADLINE_INFINITE UINT64_MAX

/* CLOCK_MONOTONIC: never jumps, starts at an arbitrary point. */
HRX_API uint64_t hrx_clock_monotonic_ns(void);

/* Absolute monotonic deadline |timeout_ns| from now, saturating at
 * HRX_DEADLINE_INFINITE. */
HRX_API uint64_t hrx_deadline_after(uint64_t timeout_ns);

/* Nanoseconds left until |deadline_ns| (0 once it has passed). */
HRX_API uint64_t hrx_deadline_remaining(uint64_t deadline_ns);

/* Sleeps for |duration_ns|, resuming after signals until it has passed. */
HRX_API void hrx_sleep_ns(uint64_t duration_ns);

/* The pause before retry |attempt| (1 = the first retry) of a network
 * operation: 0.5 s, 1 s, 2 s, ... doubling up to 30 s. 0 for attempt 0. */
HRX_API uint64_t hrx_retry_backoff_ns(uint32_t attempt);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_CLOCK_H_ */
