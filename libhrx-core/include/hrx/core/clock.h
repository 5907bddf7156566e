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

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_CLOCK_H_ */
