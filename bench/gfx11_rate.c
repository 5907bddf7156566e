/* bench/gfx11_rate: how fast the gfx11 model runs gfx1151 machine code.
 * saxpy (libhrx-loom/kernels/saxpy.loom) over 1M elements is compiled for
 * gfx1151 and run on the model, on one thread and spread over several;
 * the same kernel compiled for the host runs on the HRX host device in
 * the same process. Reported: emulated wave instructions per second,
 * lane-ops per second (one lane-op is one work-item's whole kernel, the
 * unit both devices share) and the host device's lead. Times are medians
 * of five runs; the model's results are checked against the host's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "gfx11.h"
#include "gfx11_test_util.h"
#include "hrx/core/bytes.h"
#include "host_harness.h"

enum { N = 1 << 20, GROUP = 256, REPEATS = 5 };

static const float kAlpha = 0.5f;

typedef struct model_run_t {
  hrx_gfx11_dispatch_t dispatch;
  float* y;
  const float* y0;
  uint64_t executed;
} model_run_t;

/* Resets y, so every run computes the same thing, and dispatches. */
static void model_run(void* context) {
  model_run_t* r = context;
  memcpy(r->y, r->y0, sizeof(float) * N);
  hrx_gfx11_fault_t fault;
  bench_check(hrx_gfx11_dispatch(&r->dispatch, hrx_allocator_system(),
                                 &fault),
              "gfx11 saxpy");
}

static void put(uint8_t* kernarg, size_t offset, uint64_t value, int bytes) {
  uint8_t* p = kernarg + offset;
  hrx_put_le(&p, value, bytes);
}

/* The kernarg of saxpy(n, a, x, y) and its code object v5 hidden
 * arguments, at the offsets of the kernel's metadata. */
static uint8_t* saxpy_kernarg(uint64_t kd, const float* x, float* y,
                              uint32_t* out_size) {
  const uint8_t* p = (const uint8_t*)(uintptr_t)(kd + 8);
  *out_size = (uint32_t)hrx_get_le(&p, 4);
  uint8_t* kernarg = calloc(1, *out_size);
  if (!kernarg || *out_size < 56) {
    fprintf(stderr, "gfx11 saxpy: unexpected kernarg size %u\n", *out_size);
    exit(1);
  }
  uint32_t alpha_bits;
  memcpy(&alpha_bits, &kAlpha, 4);
  put(kernarg, 0, N, 8);
  put(kernarg, 8, alpha_bits, 4);
  put(kernarg, 16, (uint64_t)(uintptr_t)x, 8);
  put(kernarg, 24, (uint64_t)(uintptr_t)y, 8);
  put(kernarg, 32, N / GROUP, 4);
  put(kernarg, 36, 1, 4);
  put(kernarg, 40, 1, 4);
  put(kernarg, 44, GROUP, 2);
  put(kernarg, 46, 1, 2);
  put(kernarg, 48, 1, 2);
  return kernarg;
}

typedef struct host_run_t {
  harness_t* h;
  const harness_arg_t* args;
  hrx_fabric_memory_t y;
  const float* y0;
} host_run_t;

static void host_run(void* context) {
  host_run_t* r = context;
  memcpy(r->y.host_pointer, r->y0, sizeof(float) * N);
  uint64_t workload[] = {N};
  bench_check(harness_run(r->h, "saxpy", workload, 1, r->args, 4),
              "host saxpy");
}

/* Runs saxpy on the host device; returns its median time and leaves its
 * result in |out_y|. */
static uint64_t time_host(const float* x, const float* y0, float* out_y) {
  harness_t h;
  harness_open(&h);
  harness_load(&h, "saxpy.loom", NULL);
  hrx_fabric_memory_t bx = harness_buffer(&h, sizeof(float) * N);
  hrx_fabric_memory_t by = harness_buffer(&h, sizeof(float) * N);
  memcpy(bx.host_pointer, x, sizeof(float) * N);
  harness_arg_t args[] = {ARG_U64(N), arg_f32(kAlpha), ARG_BUF(bx),
                          ARG_BUF(by)};
  host_run_t r = {&h, args, by, y0};
  uint64_t ns = bench_median_ns(host_run, &r, REPEATS);
  memcpy(out_y, by.host_pointer, sizeof(float) * N);
  hrx_fabric_memory_free(h.device, &bx);
  hrx_fabric_memory_free(h.device, &by);
  harness_close(&h);
  return ns;
}

static void report_model(uint32_t threads, uint64_t ns, uint64_t executed,
                         uint64_t host_ns) {
  double seconds = (double)ns / 1e9;
  printf("gfx11 model, %2u thread%s  %9.2f ms  %8.2f M wave-instr/s  "
         "%8.2f M lane-ops/s  host device is %6.1fx faster\n",
         threads, threads == 1 ? " " : "s", (double)ns / 1e6,
         (double)executed / seconds / 1e6, N / seconds / 1e6,
         (double)ns / (double)host_ns);
}

int main(void) {
  float* x = malloc(sizeof(float) * N);
  float* y0 = malloc(sizeof(float) * N);
  float* y = malloc(sizeof(float) * N);
  float* host_y = malloc(sizeof(float) * N);
  if (!x || !y0 || !y || !host_y) return 1;
  for (uint32_t i = 0; i < N; ++i) {
    x[i] = (float)(i & 1023);
    y0[i] = (float)(i % 77) * 0.25f;
  }
  uint64_t host_ns = time_host(x, y0, host_y);
  printf("host device             %9.2f ms  %8.2f M lane-ops/s\n",
         (double)host_ns / 1e6, N / ((double)host_ns / 1e9) / 1e6);

  hrx_gfx11_image_t* image = gfx11_test_load("saxpy.loom");
  uint64_t kd = 0;
  bench_check(hrx_gfx11_image_kernel(image, "saxpy", &kd), "saxpy.kd");
  uint32_t kernarg_size = 0;
  uint8_t* kernarg = saxpy_kernarg(kd, x, y, &kernarg_size);
  hrx_gfx11_range_t ranges[] = {
      hrx_gfx11_image_range(image),
      {(uint64_t)(uintptr_t)kernarg, kernarg_size},
      {(uint64_t)(uintptr_t)x, sizeof(float) * N},
      {(uint64_t)(uintptr_t)y, sizeof(float) * N},
  };
  static const uint32_t thread_counts[] = {1, 4, 8};
  for (size_t t = 0; t < sizeof(thread_counts) / sizeof(*thread_counts);
       ++t) {
    model_run_t r = {.y = y, .y0 = y0};
    r.dispatch = (hrx_gfx11_dispatch_t){
        .kernel_descriptor = kd,
        .kernarg = (uint64_t)(uintptr_t)kernarg,
        .grid = {N, 1, 1},
        .workgroup = {GROUP, 1, 1},
        .ranges = ranges,
        .range_count = 4,
        .wave_instruction_budget = 1000,
        .threads = thread_counts[t],
        .executed_instructions = &r.executed,
    };
    uint64_t ns = bench_median_ns(model_run, &r, REPEATS);
    if (memcmp(y, host_y, sizeof(float) * N) != 0) {
      fprintf(stderr, "gfx11 saxpy differs from the host device's\n");
      return 1;
    }
    report_model(thread_counts[t], ns, r.executed, host_ns);
  }
  free(kernarg);
  hrx_gfx11_image_destroy(image);
  free(host_y);
  free(y);
  free(y0);
  free(x);
  return 0;
}
