#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>

#include "hrx/core.h"

static int bench_compare(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return (x > y) - (x < y);
}

static uint64_t bench_time_ns(bench_fn fn, void* context) {
  uint64_t start = hrx_clock_monotonic_ns();
  fn(context);
  return hrx_clock_monotonic_ns() - start;
}

static uint64_t bench_median_of(uint64_t* samples, int count) {
  qsort(samples, (size_t)count, sizeof(uint64_t), bench_compare);
  return samples[count / 2];
}

uint64_t bench_median_ns(bench_fn fn, void* context, int repeats) {
  uint64_t* samples = malloc(sizeof(uint64_t) * (size_t)repeats);
  if (!samples) return 0;
  for (int i = 0; i < repeats; ++i) samples[i] = bench_time_ns(fn, context);
  uint64_t median = bench_median_of(samples, repeats);
  free(samples);
  return median;
}

void bench_median_pair_ns(bench_fn a, void* a_context, bench_fn b,
                          void* b_context, int repeats, uint64_t* out_a_ns,
                          uint64_t* out_b_ns) {
  uint64_t* samples = malloc(sizeof(uint64_t) * 2 * (size_t)repeats);
  *out_a_ns = *out_b_ns = 0;
  if (!samples) return;
  for (int i = 0; i < repeats; ++i) {
    samples[i] = bench_time_ns(a, a_context);
    samples[repeats + i] = bench_time_ns(b, b_context);
  }
  *out_a_ns = bench_median_of(samples, repeats);
  *out_b_ns = bench_median_of(samples + repeats, repeats);
  free(samples);
}

void bench_check(hrx_status_t status, const char* what) {
  if (status == HRX_OK) return;
  char text[1024];
  hrx_status_format(status, text, sizeof(text));
  fprintf(stderr, "%s: %s\n", what, text);
  exit(1);
}
