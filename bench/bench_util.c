#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>

#include "hrx/core.h"

static int bench_compare(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return (x > y) - (x < y);
}

uint64_t bench_median_ns(bench_fn fn, void* context, int repeats) {
  uint64_t* samples = malloc(sizeof(uint64_t) * (size_t)repeats);
  if (!samples) return 0;
  for (int i = 0; i < repeats; ++i) {
    uint64_t start = hrx_clock_monotonic_ns();
    fn(context);
    samples[i] = hrx_clock_monotonic_ns() - start;
  }
  qsort(samples, (size_t)repeats, sizeof(uint64_t), bench_compare);
  uint64_t median = samples[repeats / 2];
  free(samples);
  return median;
}

void bench_check(hrx_status_t status, const char* what) {
  if (status == HRX_OK) return;
  char text[1024];
  hrx_status_format(status, text, sizeof(text));
  fprintf(stderr, "%s: %s\n", what, text);
  exit(1);
}
