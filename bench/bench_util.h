/* Timing helpers shared by the benchmarks. */
#ifndef HRX_BENCH_BENCH_UTIL_H_
#define HRX_BENCH_BENCH_UTIL_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

/* Runs |fn| |repeats| times and returns the median wall time in ns. */
typedef void (*bench_fn)(void* context);
uint64_t bench_median_ns(bench_fn fn, void* context, int repeats);

/* Exits with "<what>: <status>" when |status| is a failure. */
void bench_check(hrx_status_t status, const char* what);

#endif /* HRX_BENCH_BENCH_UTIL_H_ */
