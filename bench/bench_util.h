/* Timing helpers shared by the benchmarks. */
#ifndef HRX_BENCH_BENCH_UTIL_H_
#define HRX_BENCH_BENCH_UTIL_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

/* Runs |fn| |repeats| times and returns the median wall time in ns. */
typedef void (*bench_fn)(void* context);
uint64_t bench_median_ns(bench_fn fn, void* context, int repeats);

/* Runs |a| and |b| alternately |repeats| times each and stores their
 * median wall times in ns: on a loaded machine both then see the same
 * load, so their ratio holds where separate medians drift apart. */
void bench_median_pair_ns(bench_fn a, void* a_context, bench_fn b,
                          void* b_context, int repeats, uint64_t* out_a_ns,
                          uint64_t* out_b_ns);

/* Exits with "<what>: <status>" when |status| is a failure. */
void bench_check(hrx_status_t status, const char* what);

#endif /* HRX_BENCH_BENCH_UTIL_H_ */
