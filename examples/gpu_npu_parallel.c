/* examples/gpu_npu_parallel: the GPU and the NPU working at once, in one
 * prepared libhrx-exec graph.
 *
 *   GPU lanes: upload y -> y = a*x + y, ROUNDS times -> download y
 *   NPU lane:  upload each binding -> BATCH invocations of an entry of a
 *              prebuilt .xdna image -> download each binding
 *
 * The two halves share no buffer, so the runtime infers no edge between
 * them: submitted as one graph, the NPU regions run while the GPU lanes
 * work. The example times the halves submitted one after the other (two
 * graphs, each awaited) against the one graph, and checks each half
 * against a CPU reference: the vector against fmaf on the CPU; the NPU's
 * bound buffers against what the CPU expects the entry to leave there.
 * For the NOOP program (one transaction record that does nothing) that is
 * what was uploaded: the NPU must not touch them.
 *
 * Without an NPU (no /dev/accel node, or none HRX admits) or without an
 * image, it says so and runs the GPU half alone. With --trace=PATH the
 * lanes' host-observed activity of the whole run, the NPU lane's regions
 * included, is written there as Chrome trace JSON (load it in Perfetto).
 *
 * usage: gpu_npu_parallel [--device=N] [--trace=PATH]
 *                         [SAXPY.loom [IMAGE.xdna [BATCH]]]
 *        (defaults: device 0, examples/saxpy.loom, no image, 64)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/exec.h"
#include "hrx/exec/npu.h"
#include "hrx/loom.h"

#define ELEMENTS (1 << 14)
#define ROUNDS 8
#define ALPHA 0.75f
#define MAX_BINDINGS 16

static int fail(const char* what, hrx_status_t status) {
  char text[1024];
  hrx_status_format(status, text, sizeof(text));
  fprintf(stderr, "gpu_npu_parallel: %s: %s\n", what, text);
  hrx_status_free(status);
  return 1;
}

#define TRY(what, expr)                                        \
  do {                                                         \
    hrx_status_t try_status_ = (expr);                         \
    if (try_status_ != HRX_OK) return fail(what, try_status_); \
  } while (0)

typedef struct gpu_half_t {
  hrx_gpu_kernel_t* kernel;
  hrx_exec_kernel_t* saxpy;
  hrx_gpu_buffer_t* x;
  hrx_gpu_buffer_t* y;
  uint64_t n;
  hrx_gpu_arg_t args[4];
  hrx_gpu_launch_t launch;
  float xs[ELEMENTS];
  float ys[ELEMENTS];
  float out[ELEMENTS];
} gpu_half_t;

typedef struct npu_half_t {
  hrx_npu_device_t* device;
  hrx_npu_image_t* image;
  hrx_exec_npu_program_t* program;
  hrx_gpu_buffer_t* bound[MAX_BINDINGS];
  uint8_t* pattern[MAX_BINDINGS];
  uint8_t* readback[MAX_BINDINGS];
  uint64_t size[MAX_BINDINGS];
  size_t binding_count;
  uint64_t batch;
} npu_half_t;

typedef struct demo_t {
  hrx_gpu_device_t* device;
  hrx_trace_t* trace;
  hrx_exec_runtime_t* runtime;
  gpu_half_t gpu;
  npu_half_t npu;
} demo_t;

/* The saxpy export of |path|, compiled for the device's profile. */
static int gpu_load(demo_t* d, const char* path) {
  void* source = NULL;
  size_t length = 0;
  TRY("read", hrx_file_read_all(hrx_allocator_system(), path, 1 << 20,
                                &source, &length));
  hrx_loom_compiler_t* compiler = NULL;
  hrx_status_t status = hrx_loom_compiler_create(
      hrx_gpu_device_properties(d->device)->profile_target, NULL,
      hrx_allocator_system(), &compiler);
  hrx_loom_artifact_t* artifact = NULL;
  if (status == HRX_OK) {
    hrx_loom_compile_request_t request = {.source = source,
                                          .length = length,
                                          .source_name = path,
                                          .export_name = "saxpy"};
    status = hrx_loom_compile(compiler, &request, NULL, &artifact);
  }
  if (status == HRX_OK) {
    size_t code_length = 0;
    const uint8_t* code = hrx_loom_artifact_code(artifact, &code_length);
    status = hrx_gpu_kernel_load(d->device, code, code_length, "saxpy",
                                 &d->gpu.kernel);
  }
  hrx_loom_artifact_destroy(artifact);
  hrx_loom_compiler_destroy(compiler);
  free(source);
  return status == HRX_OK ? 0 : fail("compile saxpy", status);
}

static int gpu_open(demo_t* d, size_t index, const char* path) {
  gpu_half_t* g = &d->gpu;
  TRY("open GPU", hrx_gpu_device_open(index, hrx_allocator_system(),
                                      &d->device));
  printf("gpu: device %zu, %s (profile %s)\n", index,
         hrx_gpu_device_properties(d->device)->name,
         hrx_gpu_device_properties(d->device)->profile_target);
  hrx_trace_options_t trace_options = HRX_STRUCT_INIT(hrx_trace_options_t);
  TRY("trace", hrx_trace_create(&trace_options, hrx_allocator_system(),
                                &d->trace));
  hrx_exec_runtime_options_t options =
      HRX_STRUCT_INIT(hrx_exec_runtime_options_t);
  options.trace = d->trace;
  TRY("runtime", hrx_exec_runtime_create(d->device, &options,
                                         hrx_allocator_system(),
                                         &d->runtime));
  if (gpu_load(d, path)) return 1;
  static const hrx_exec_binding_contract_t bindings[] = {
      {HRX_GPU_ACCESS_READ, 4 * ELEMENTS, 4},
      {HRX_GPU_ACCESS_READ_WRITE, 4 * ELEMENTS, 4}};
  hrx_exec_kernel_contract_t contract = {bindings, 2, 2};
  TRY("contract", hrx_exec_kernel_create(d->runtime, g->kernel, &contract,
                                         &g->saxpy));
  for (size_t i = 0; i < ELEMENTS; ++i) {
    g->xs[i] = (float)(i % 97) * 0.25f;
    g->ys[i] = 1.0f - (float)(i % 13);
  }
  TRY("allocate", hrx_exec_buffer_allocate(d->runtime, sizeof(g->xs), &g->x));
  TRY("allocate", hrx_exec_buffer_allocate(d->runtime, sizeof(g->ys), &g->y));
  uint32_t alpha_bits;
  float alpha = ALPHA;
  memcpy(&alpha_bits, &alpha, sizeof(alpha_bits));
  g->n = ELEMENTS;
  g->args[0] = hrx_gpu_arg_scalar(ELEMENTS);
  g->args[1] = hrx_gpu_arg_scalar(alpha_bits);
  g->args[2] = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(g->x),
                                   HRX_GPU_ACCESS_READ);
  g->args[3] = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(g->y),
                                   HRX_GPU_ACCESS_READ_WRITE);
  g->launch = (hrx_gpu_launch_t){&g->n, 1, g->args, 4};
  return 0;
}

/* upload x, upload y -> ROUNDS saxpy dispatches -> download y. */
static int gpu_record(demo_t* d, hrx_exec_graph_t* graph) {
  gpu_half_t* g = &d->gpu;
  TRY("record", hrx_exec_graph_upload(graph, hrx_gpu_buffer_binding(g->x),
                                      g->xs, NULL));
  TRY("record", hrx_exec_graph_upload(graph, hrx_gpu_buffer_binding(g->y),
                                      g->ys, NULL));
  for (int r = 0; r < ROUNDS; ++r) {
    TRY("record", hrx_exec_graph_dispatch(graph, g->saxpy, &g->launch,
                                          NULL));
  }
  TRY("record", hrx_exec_graph_download(graph, hrx_gpu_buffer_binding(g->y),
                                        g->out, NULL));
  return 0;
}

/* Compares y with fmaf on the CPU, bit for bit. */
static int gpu_check(const gpu_half_t* g) {
  for (size_t i = 0; i < ELEMENTS; ++i) {
    float want = g->ys[i];
    for (int r = 0; r < ROUNDS; ++r) want = fmaf(ALPHA, g->xs[i], want);
    if (g->out[i] != want) {
      fprintf(stderr, "gpu_npu_parallel: y[%zu] = %g, the CPU says %g\n", i,
              (double)g->out[i], (double)want);
      return 1;
    }
  }
  return 0;
}

static void gpu_close(demo_t* d) {
  gpu_half_t* g = &d->gpu;
  hrx_gpu_buffer_release(g->x);
  hrx_gpu_buffer_release(g->y);
  hrx_exec_kernel_destroy(g->saxpy);
  hrx_gpu_kernel_release(g->kernel);
}

/* Whether this machine has an NPU HRX admits; says why not otherwise. */
static bool npu_present(void) {
  hrx_npu_candidates_t candidates;
  hrx_npu_enumerate(&candidates);
  for (size_t i = 0; i < candidates.count; ++i) {
    if (candidates.items[i].accepted) return true;
  }
  if (candidates.count == 0) {
    printf("npu: no NPU: no /dev/accel node (the amdxdna driver is not "
           "loaded, or this machine has no NPU); running the GPU half "
           "alone\n");
  }
  for (size_t i = 0; i < candidates.count; ++i) {
    printf("npu: %s refused: %s\n", candidates.items[i].node,
           candidates.items[i].reason);
  }
  if (candidates.count) printf("npu: running the GPU half alone\n");
  return false;
}

/* Opens the NPU and prepares the image's first entry on runtime buffers
 * of each binding's smallest size, which the graph fills with a pattern. */
static int npu_open(demo_t* d, const char* path) {
  npu_half_t* h = &d->npu;
  void* bytes = NULL;
  size_t length = 0;
  TRY("read image", hrx_file_read_all(hrx_allocator_system(), path,
                                      256u << 20, &bytes, &length));
  hrx_status_t status =
      hrx_npu_image_parse(bytes, length, hrx_allocator_system(), &h->image);
  free(bytes);
  TRY(path, status);
  hrx_npu_image_entry_t entry;
  hrx_npu_image_entry(h->image, 0, &entry);
  if (entry.binding_count > MAX_BINDINGS) {
    fprintf(stderr, "gpu_npu_parallel: entry '%s' has %zu bindings\n",
            entry.name, entry.binding_count);
    return 1;
  }
  TRY("open NPU", hrx_npu_device_open(hrx_allocator_system(), NULL,
                                      &h->device));
  hrx_gpu_view_t views[MAX_BINDINGS];
  for (size_t i = 0; i < entry.binding_count; ++i) {
    hrx_npu_image_binding_t b;
    hrx_npu_image_binding(h->image, 0, i, &b);
    uint64_t size = b.size_min ? b.size_min : 1;
    TRY("NPU binding", hrx_exec_buffer_allocate(d->runtime, size,
                                                &h->bound[i]));
    h->size[i] = size;
    ++h->binding_count;
    h->pattern[i] = malloc(size);
    h->readback[i] = calloc(1, size);
    if (!h->pattern[i] || !h->readback[i]) {
      fprintf(stderr, "gpu_npu_parallel: out of memory\n");
      return 1;
    }
    for (uint64_t k = 0; k < size; ++k) h->pattern[i][k] = (uint8_t)(k * 7 + i);
    views[i] = hrx_gpu_buffer_binding(h->bound[i]);
  }
  TRY("prepare", hrx_exec_npu_program_prepare(d->runtime, h->device,
                                              h->image, entry.name, views,
                                              h->binding_count,
                                              &h->program));
  printf("npu: %s, entry '%s' of %s, batches of %llu\n",
         hrx_npu_device_candidate(h->device)->node, entry.name, path,
         (unsigned long long)h->batch);
  return 0;
}

/* upload each binding -> BATCH invocations -> download each binding. */
static int npu_record(demo_t* d, hrx_exec_graph_t* graph) {
  npu_half_t* h = &d->npu;
  for (size_t i = 0; i < h->binding_count; ++i) {
    TRY("record", hrx_exec_graph_upload(
                      graph, hrx_gpu_buffer_binding(h->bound[i]),
                      h->pattern[i], NULL));
  }
  for (uint64_t i = 0; i < h->batch; ++i) {
    TRY("record", hrx_exec_npu_graph_invoke(graph, h->program, NULL));
  }
  for (size_t i = 0; i < h->binding_count; ++i) {
    TRY("record", hrx_exec_graph_download(
                      graph, hrx_gpu_buffer_binding(h->bound[i]),
                      h->readback[i], NULL));
  }
  return 0;
}

/* The NOOP reference: the bound buffers still hold what was uploaded. */
static int npu_check(const npu_half_t* h) {
  for (size_t i = 0; i < h->binding_count; ++i) {
    if (memcmp(h->readback[i], h->pattern[i], h->size[i])) {
      fprintf(stderr, "gpu_npu_parallel: NPU binding %zu changed\n", i);
      return 1;
    }
  }
  return 0;
}

static void npu_close(npu_half_t* h) {
  hrx_exec_npu_program_release(h->program);
  for (size_t i = 0; i < h->binding_count; ++i) {
    hrx_gpu_buffer_release(h->bound[i]);
    free(h->pattern[i]);
    free(h->readback[i]);
  }
  hrx_npu_device_destroy(h->device);
  hrx_npu_image_destroy(h->image);
}

static int submit_and_wait(hrx_exec_graph_t* graph) {
  hrx_exec_completion_t* done = NULL;
  TRY("submit", hrx_exec_graph_submit(graph, &done));
  hrx_status_t status = hrx_exec_completion_wait(done, HRX_TIMEOUT_INFINITE);
  hrx_exec_completion_release(done);
  TRY("wait", status);
  return 0;
}

/* The halves as two graphs, one after the other, then as one graph; the
 * times in ns. */
static int run(demo_t* d, hrx_exec_graph_t* const* graphs,
               uint64_t* out_sequential_ns, uint64_t* out_concurrent_ns) {
  uint64_t start = hrx_clock_monotonic_ns();
  if (submit_and_wait(graphs[0])) return 1;
  if (d->npu.program && submit_and_wait(graphs[1])) return 1;
  uint64_t middle = hrx_clock_monotonic_ns();
  if (gpu_check(&d->gpu) || (d->npu.program && npu_check(&d->npu))) return 1;
  memset(d->gpu.out, 0, sizeof(d->gpu.out));
  for (size_t i = 0; i < d->npu.binding_count; ++i) {
    memset(d->npu.readback[i], 0, d->npu.size[i]);
  }
  uint64_t again = hrx_clock_monotonic_ns();
  if (submit_and_wait(graphs[2])) return 1;
  *out_concurrent_ns = hrx_clock_monotonic_ns() - again;
  *out_sequential_ns = middle - start;
  if (gpu_check(&d->gpu) || (d->npu.program && npu_check(&d->npu))) return 1;
  return 0;
}

static int demo(demo_t* d, const char* trace_path) {
  /* 0: the GPU half, 1: the NPU half, 2: both in one graph. */
  hrx_exec_graph_t* graphs[3] = {NULL, NULL, NULL};
  int rc = 0;
  for (int i = 0; i < 3 && rc == 0; ++i) {
    hrx_status_t status = hrx_exec_graph_create(d->runtime, &graphs[i]);
    if (status != HRX_OK) rc = fail("graph", status);
  }
  if (rc == 0) rc = gpu_record(d, graphs[0]) || gpu_record(d, graphs[2]);
  if (rc == 0 && d->npu.program) {
    rc = npu_record(d, graphs[1]) || npu_record(d, graphs[2]);
  }
  /* The first run prepares each graph's plan; the second is timed. */
  uint64_t sequential_ns = 0, concurrent_ns = 0;
  if (rc == 0) rc = run(d, graphs, &sequential_ns, &concurrent_ns);
  if (rc == 0) rc = run(d, graphs, &sequential_ns, &concurrent_ns);
  for (int i = 0; i < 3; ++i) hrx_exec_graph_destroy(graphs[i]);
  if (rc) return rc;
  hrx_exec_statistics_t stats = HRX_STRUCT_INIT(hrx_exec_statistics_t);
  TRY("statistics", hrx_exec_runtime_statistics(d->runtime, &stats));
  printf("checked against the CPU: gpu %d rounds over %d floats%s\n", ROUNDS,
         ELEMENTS, d->npu.program ? ", npu bindings intact" : "");
  printf("npu lane: %llu regions, %.3f ms busy\n",
         (unsigned long long)stats.npu_regions,
         (double)stats.npu_busy_ns / 1e6);
  printf("two graphs one after the other %.3f ms, one graph %.3f ms "
         "(%.2fx)\n",
         (double)sequential_ns / 1e6, (double)concurrent_ns / 1e6,
         (double)sequential_ns / (double)(concurrent_ns ? concurrent_ns : 1));
  if (trace_path) {
    TRY(trace_path, hrx_trace_write_file(d->trace, trace_path));
    printf("trace: %s\n", trace_path);
  }
  return 0;
}

int main(int argc, char** argv) {
  size_t device_index = 0;
  const char* trace_path = NULL;
  const char* positional[3] = {NULL, NULL, NULL};
  int positional_count = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strncmp(argv[i], "--device=", 9)) {
      device_index = (size_t)strtoul(argv[i] + 9, NULL, 10);
    } else if (!strncmp(argv[i], "--trace=", 8)) {
      trace_path = argv[i] + 8;
    } else if (positional_count < 3) {
      positional[positional_count++] = argv[i];
    } else {
      fprintf(stderr, "usage: gpu_npu_parallel [--device=N] [--trace=PATH] "
                      "[SAXPY.loom [IMAGE.xdna [BATCH]]]\n");
      return 2;
    }
  }
  const char* saxpy = positional[0] ? positional[0] : "examples/saxpy.loom";
  const char* image = positional[1];
  static demo_t d;
  d.npu.batch = positional[2] ? strtoull(positional[2], NULL, 10) : 64;
  if (d.npu.batch == 0) d.npu.batch = 1;

  int rc = gpu_open(&d, device_index, saxpy);
  if (rc == 0 && npu_present()) {
    if (image) {
      rc = npu_open(&d, image);
    } else {
      printf("npu: present, but no IMAGE.xdna was given; running the GPU "
             "half alone\n");
    }
  }
  if (rc == 0) rc = demo(&d, trace_path);
  npu_close(&d.npu);
  gpu_close(&d);
  hrx_exec_runtime_destroy(d.runtime);
  hrx_trace_release(d.trace);
  hrx_gpu_device_release(d.device);
  return rc;
}
