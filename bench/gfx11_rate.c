/* bench/gfx11_rate: how fast the gfx11 model runs gfx1151 machine code.
 * Two repository kernels, saxpy (1M elements) and linear_bf16 (a 2048 x
 * 512 bf16 matrix-vector product, one wave per output row), are compiled
 * for gfx1151 and run on the model, on one thread and spread over
 * several; the same kernels compiled for the host run on the HRX host
 * device in the same process. Reported: emulated wave instructions per
 * second, lane-ops per second (one lane-op is one work-item's whole
 * kernel, the unit both devices share) and the host device's lead. Times
 * are medians of five runs; the model's results are checked bit for bit
 * against the host's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "gfx11.h"
#include "gfx11_test_util.h"
#include "hrx/core/bytes.h"
#include "host_harness.h"

enum { REPEATS = 5, MAX_BUFFERS = 3 };

/* One kernel run the same way on both devices: its buffers (the last is
 * the output, reset before every run), the scalar arguments before them
 * and the kernarg layout the gfx1151 code object expects. */
typedef struct workload_t {
  const char* name;
  const char* file;
  const char* const* config;
  uint64_t host_workload[1];
  size_t host_workload_count;
  harness_arg_t scalars[2];
  size_t scalar_count;
  uint32_t scalar_offsets[2]; /* in the kernarg; 4- or 8-byte values */
  uint32_t scalar_bytes[2];
  size_t buffer_count;
  size_t buffer_bytes[MAX_BUFFERS];
  uint8_t* init[MAX_BUFFERS];
  uint32_t buffer_offsets[MAX_BUFFERS];
  uint32_t hidden_offset; /* the v5 hidden arguments */
  uint32_t grid, group;   /* work-items along x */
  uint64_t lane_ops;      /* work-items that do the kernel's work */
} workload_t;

static void put(uint8_t* kernarg, size_t offset, uint64_t value, int bytes) {
  uint8_t* p = kernarg + offset;
  hrx_put_le(&p, value, bytes);
}

typedef struct model_run_t {
  hrx_gfx11_dispatch_t dispatch;
  uint8_t* out;
  const workload_t* w;
  uint64_t executed;
} model_run_t;

/* Resets the output, so every run computes the same thing, and
 * dispatches. */
static void model_run(void* context) {
  model_run_t* r = context;
  size_t last = r->w->buffer_count - 1;
  memcpy(r->out, r->w->init[last], r->w->buffer_bytes[last]);
  hrx_gfx11_fault_t fault;
  bench_check(hrx_gfx11_dispatch(&r->dispatch, hrx_allocator_system(),
                                 &fault),
              r->w->name);
}

/* The kernarg of |w| with |buffers| and its code object v5 hidden
 * arguments. */
static uint8_t* model_kernarg(const workload_t* w, uint64_t kd,
                              uint8_t* const* buffers, uint32_t* out_size) {
  const uint8_t* p = (const uint8_t*)(uintptr_t)(kd + 8);
  *out_size = (uint32_t)hrx_get_le(&p, 4);
  uint8_t* kernarg = calloc(1, *out_size);
  if (!kernarg || *out_size < w->hidden_offset + 18) {
    fprintf(stderr, "gfx11 %s: unexpected kernarg size %u\n", w->name,
            *out_size);
    exit(1);
  }
  for (size_t i = 0; i < w->scalar_count; ++i) {
    put(kernarg, w->scalar_offsets[i], w->scalars[i].bits,
        (int)w->scalar_bytes[i]);
  }
  for (size_t i = 0; i < w->buffer_count; ++i) {
    put(kernarg, w->buffer_offsets[i], (uint64_t)(uintptr_t)buffers[i], 8);
  }
  put(kernarg, w->hidden_offset, w->grid / w->group, 4);
  put(kernarg, w->hidden_offset + 4, 1, 4);
  put(kernarg, w->hidden_offset + 8, 1, 4);
  put(kernarg, w->hidden_offset + 12, w->group, 2);
  put(kernarg, w->hidden_offset + 14, 1, 2);
  put(kernarg, w->hidden_offset + 16, 1, 2);
  return kernarg;
}

typedef struct host_run_t {
  harness_t* h;
  const workload_t* w;
  const harness_arg_t* args;
  hrx_fabric_memory_t out;
} host_run_t;

static void host_run(void* context) {
  host_run_t* r = context;
  size_t last = r->w->buffer_count - 1;
  memcpy(r->out.host_pointer, r->w->init[last], r->w->buffer_bytes[last]);
  bench_check(harness_run(r->h, r->w->name, r->w->host_workload,
                          r->w->host_workload_count, r->args,
                          r->w->scalar_count + r->w->buffer_count),
              r->w->name);
}

/* Runs |w| on the host device; returns its median time and leaves its
 * output in |out|. */
static uint64_t time_host(const workload_t* w, uint8_t* out) {
  harness_t h;
  harness_open(&h);
  harness_load(&h, w->file, w->config);
  harness_arg_t args[2 + MAX_BUFFERS];
  hrx_fabric_memory_t memory[MAX_BUFFERS];
  for (size_t i = 0; i < w->scalar_count; ++i) args[i] = w->scalars[i];
  for (size_t i = 0; i < w->buffer_count; ++i) {
    memory[i] = harness_buffer(&h, w->buffer_bytes[i]);
    memcpy(memory[i].host_pointer, w->init[i], w->buffer_bytes[i]);
    args[w->scalar_count + i] = ARG_BUF(memory[i]);
  }
  host_run_t r = {&h, w, args, memory[w->buffer_count - 1]};
  uint64_t ns = bench_median_ns(host_run, &r, REPEATS);
  memcpy(out, r.out.host_pointer, w->buffer_bytes[w->buffer_count - 1]);
  for (size_t i = 0; i < w->buffer_count; ++i) {
    hrx_fabric_memory_free(h.device, &memory[i]);
  }
  harness_close(&h);
  return ns;
}

static void report_model(const workload_t* w, uint32_t threads, uint64_t ns,
                         uint64_t executed, uint64_t host_ns) {
  double seconds = (double)ns / 1e9;
  printf("%-12s gfx11 model, %2u thread%s  %9.2f ms  %8.2f M wave-instr/s  "
         "%8.2f M lane-ops/s  host device is %6.1fx faster\n",
         w->name, threads, threads == 1 ? " " : "s", (double)ns / 1e6,
         (double)executed / seconds / 1e6, (double)w->lane_ops / seconds / 1e6,
         (double)ns / (double)host_ns);
}

/* Times |w| on the host device, then on the model at 1, 4 and 8 worker
 * threads; false when the model's output differs from the host's. */
static bool bench_workload(const workload_t* w) {
  size_t last = w->buffer_count - 1;
  uint8_t* host_out = malloc(w->buffer_bytes[last]);
  uint8_t* buffers[MAX_BUFFERS];
  for (size_t i = 0; i < w->buffer_count; ++i) {
    buffers[i] = malloc(w->buffer_bytes[i]);
    if (!buffers[i] || !host_out) exit(1);
    memcpy(buffers[i], w->init[i], w->buffer_bytes[i]);
  }
  uint64_t host_ns = time_host(w, host_out);
  printf("%-12s host device              %9.2f ms  %8.2f M lane-ops/s\n",
         w->name, (double)host_ns / 1e6,
         (double)w->lane_ops / ((double)host_ns / 1e9) / 1e6);

  hrx_gfx11_image_t* image = gfx11_test_load_config(w->file, w->config);
  uint64_t kd = 0;
  bench_check(hrx_gfx11_image_kernel(image, w->name, &kd), w->name);
  uint32_t kernarg_size = 0;
  uint8_t* kernarg = model_kernarg(w, kd, buffers, &kernarg_size);
  hrx_gfx11_range_t ranges[2 + MAX_BUFFERS] = {
      hrx_gfx11_image_range(image),
      {(uint64_t)(uintptr_t)kernarg, kernarg_size},
  };
  for (size_t i = 0; i < w->buffer_count; ++i) {
    ranges[2 + i] = (hrx_gfx11_range_t){(uint64_t)(uintptr_t)buffers[i],
                                        w->buffer_bytes[i]};
  }
  static const uint32_t thread_counts[] = {1, 4, 8};
  bool same = true;
  for (size_t t = 0; t < sizeof(thread_counts) / sizeof(*thread_counts);
       ++t) {
    model_run_t r = {.out = buffers[last], .w = w};
    r.dispatch = (hrx_gfx11_dispatch_t){
        .kernel_descriptor = kd,
        .kernarg = (uint64_t)(uintptr_t)kernarg,
        .grid = {w->grid, 1, 1},
        .workgroup = {w->group, 1, 1},
        .ranges = ranges,
        .range_count = 2 + w->buffer_count,
        .wave_instruction_budget = 1u << 20,
        .threads = thread_counts[t],
        .executed_instructions = &r.executed,
    };
    uint64_t ns = bench_median_ns(model_run, &r, REPEATS);
    if (memcmp(buffers[last], host_out, w->buffer_bytes[last]) != 0) {
      fprintf(stderr, "gfx11 %s differs from the host device's\n", w->name);
      same = false;
      break;
    }
    report_model(w, thread_counts[t], ns, r.executed, host_ns);
  }
  free(kernarg);
  hrx_gfx11_image_destroy(image);
  for (size_t i = 0; i < w->buffer_count; ++i) free(buffers[i]);
  free(host_out);
  return same;
}

enum { SAXPY_N = 1 << 20, LINEAR_K = 2048, LINEAR_N = 512 };

/* saxpy(n, a, x, y): y = a * x + y. */
static workload_t saxpy_workload(void) {
  static const float alpha = 0.5f;
  workload_t w = {
      .name = "saxpy", .file = "saxpy.loom",
      .host_workload = {SAXPY_N}, .host_workload_count = 1,
      .scalars = {ARG_U64(SAXPY_N), arg_f32(alpha)}, .scalar_count = 2,
      .scalar_offsets = {0, 8}, .scalar_bytes = {8, 4},
      .buffer_count = 2,
      .buffer_bytes = {sizeof(float) * SAXPY_N, sizeof(float) * SAXPY_N},
      .buffer_offsets = {16, 24}, .hidden_offset = 32,
      .grid = SAXPY_N, .group = 256, .lane_ops = SAXPY_N};
  float* x = malloc(w.buffer_bytes[0]);
  float* y = malloc(w.buffer_bytes[1]);
  if (!x || !y) exit(1);
  for (uint32_t i = 0; i < SAXPY_N; ++i) {
    x[i] = (float)(i & 1023);
    y[i] = (float)(i % 77) * 0.25f;
  }
  w.init[0] = (uint8_t*)x;
  w.init[1] = (uint8_t*)y;
  return w;
}

/* linear_bf16(x, w, out): out[row] = dot(x, w[row, :]), bf16 inputs, f32
 * accumulation, eight rows (waves) per workgroup. */
static workload_t linear_workload(void) {
  static const char* const config[] = {"linear.k=2048", "linear.n=512",
                                       NULL};
  workload_t w = {
      .name = "linear_bf16", .file = "linear_bf16.loom", .config = config,
      .host_workload = {0}, .host_workload_count = 1,
      .buffer_count = 3,
      .buffer_bytes = {2 * LINEAR_K, 2 * LINEAR_K * LINEAR_N, 4 * LINEAR_N},
      .buffer_offsets = {0, 8, 16}, .hidden_offset = 24,
      .grid = 32 * LINEAR_N, .group = 256, .lane_ops = 32 * LINEAR_N};
  for (size_t b = 0; b < 3; ++b) {
    w.init[b] = calloc(1, w.buffer_bytes[b]);
    if (!w.init[b]) exit(1);
  }
  /* bf16 values spread over a few binades, both signs. */
  for (size_t i = 0; i < LINEAR_K + (size_t)LINEAR_K * LINEAR_N; ++i) {
    float v = (float)((i * 2654435761u >> 7) % 2001) / 500.0f - 2.0f;
    uint32_t bits;
    memcpy(&bits, &v, 4);
    uint16_t half = (uint16_t)(bits >> 16);
    memcpy(i < LINEAR_K ? w.init[0] + 2 * i
                        : w.init[1] + 2 * (i - LINEAR_K),
           &half, 2);
  }
  return w;
}

int main(void) {
  workload_t workloads[] = {saxpy_workload(), linear_workload()};
  int status = 0;
  for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); ++i) {
    if (!bench_workload(&workloads[i])) status = 1;
    for (size_t b = 0; b < workloads[i].buffer_count; ++b) {
      free(workloads[i].init[b]);
    }
  }
  return status;
}
