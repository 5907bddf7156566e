/* examples/gpu_pipeline: a libhrx-exec pipeline on a device.
 *
 *   upload x, upload y -> y = 2x + y -> y = 0.5x + y -> y = -x + y -> download y
 *   upload z            -> z = 3x + z                             -> download z
 *
 * The graph is recorded once; HRX infers every edge from the declared
 * accesses (the z branch only shares the read of x) and replays it N times.
 * Each replay is checked against a CPU reference. The same work is then
 * run "sequentially" (one node per submission, waiting for each) to show
 * what overlapping lanes and skipping host round trips saves.
 *
 * With TRACE, the lanes' host-observed activity is written there as Chrome
 * trace JSON (load it in Perfetto or chrome://tracing).
 *
 * The device is the host device unless --device=N (or the environment
 * variable HRX_DEVICE=N) names another: the kernel is compiled for the
 * device's own profile target, so with HRX_KFD_MODEL set, device 1 is the
 * modelled gfx1151 and the run prints the same checksums as on the host.
 *
 * usage: gpu_pipeline [--device=N] [SAXPY.loom [N [TRACE.json]]]
 *        (defaults: device 0, examples/saxpy.loom, 20, no trace)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/exec.h"
#include "hrx/loom.h"

#define ELEMENTS (1 << 12)

static int fail(const char* what, hrx_status_t status) {
  char text[1024];
  hrx_status_format(status, text, sizeof(text));
  fprintf(stderr, "gpu_pipeline: %s: %s\n", what, text);
  hrx_status_free(status);
  return 1;
}

#define TRY(what, expr)                              \
  do {                                               \
    hrx_status_t try_status_ = (expr);               \
    if (try_status_ != HRX_OK) return fail(what, try_status_); \
  } while (0)

typedef struct saxpy_t {
  uint64_t n;
  hrx_gpu_arg_t args[4];
  hrx_gpu_launch_t launch;
} saxpy_t;

static void saxpy_args(saxpy_t* s, float a, hrx_gpu_buffer_t* x,
                       hrx_gpu_buffer_t* y) {
  uint32_t bits;
  memcpy(&bits, &a, sizeof(bits));
  s->n = ELEMENTS;
  s->args[0] = hrx_gpu_arg_scalar(ELEMENTS);
  s->args[1] = hrx_gpu_arg_scalar(bits);
  s->args[2] = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(x),
                                   HRX_GPU_ACCESS_READ);
  s->args[3] = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(y),
                                   HRX_GPU_ACCESS_READ_WRITE);
  s->launch = (hrx_gpu_launch_t){&s->n, 1, s->args, 4};
}

/* FNV-1a of |length| bytes: the checksums a run prints, equal on every
 * device that computes the same values. */
static uint64_t checksum(const void* data, size_t length) {
  const uint8_t* p = data;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < length; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* Loads the saxpy export of |path| through the compiler service, compiled
 * for |device|'s profile target ("host", or "gfx1151" for an AMD GPU). */
static int load_saxpy(hrx_gpu_device_t* device, const char* path,
                      hrx_gpu_kernel_t** out_kernel) {
  void* source = NULL;
  size_t length = 0;
  TRY("read", hrx_file_read_all(hrx_allocator_system(), path, 1 << 20,
                                &source, &length));
  hrx_loom_compiler_t* compiler = NULL;
  hrx_status_t status = hrx_loom_compiler_create(
      hrx_gpu_device_properties(device)->profile_target, NULL,
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
    status = hrx_gpu_kernel_load(device, code, code_length, "saxpy",
                                 out_kernel);
  }
  hrx_loom_artifact_destroy(artifact);
  hrx_loom_compiler_destroy(compiler);
  free(source);
  return status == HRX_OK ? 0 : fail("compile saxpy", status);
}

/* A device index: decimal, no junk. */
static int parse_device(const char* text, size_t* out) {
  char* end = NULL;
  unsigned long long value = strtoull(text, &end, 10);
  if (!*text || *end || text[0] == '-' || value > 1024) {
    fprintf(stderr, "gpu_pipeline: bad device index '%s'\n", text);
    return 1;
  }
  *out = (size_t)value;
  return 0;
}

int main(int argc, char** argv) {
  size_t device_index = 0;
  const char* env_device = getenv("HRX_DEVICE");
  if (env_device && *env_device && parse_device(env_device, &device_index)) {
    return 2;
  }
  /* --device=N, then the positional arguments. */
  const char* positional[3] = {NULL, NULL, NULL};
  int positional_count = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strncmp(argv[i], "--device=", 9)) {
      if (parse_device(argv[i] + 9, &device_index)) return 2;
    } else if (positional_count < 3) {
      positional[positional_count++] = argv[i];
    } else {
      fprintf(stderr, "usage: gpu_pipeline [--device=N] [SAXPY.loom [N "
              "[TRACE.json]]]\n");
      return 2;
    }
  }
  const char* path = positional[0] ? positional[0] : "examples/saxpy.loom";
  int replays = positional[1] ? atoi(positional[1]) : 20;
  if (replays < 1) replays = 1;
  const char* trace_path = positional[2];
  size_t device_count = hrx_gpu_device_count();
  if (device_index >= device_count) {
    fprintf(stderr, "gpu_pipeline: no device %zu: there %s %zu (0 is the "
            "host device; AMD GPUs follow, or a model of one with "
            "HRX_KFD_MODEL)\n", device_index,
            device_count == 1 ? "is" : "are", device_count);
    return 2;
  }
  hrx_trace_t* trace = NULL;
  if (trace_path) {
    hrx_trace_options_t trace_options = HRX_STRUCT_INIT(hrx_trace_options_t);
    trace_options.format = HRX_TRACE_FORMAT_CHROME_JSON;
    TRY("trace", hrx_trace_create(&trace_options, hrx_allocator_system(),
                                  &trace));
  }

  hrx_gpu_device_t* device = NULL;
  TRY("open device", hrx_gpu_device_open(device_index, hrx_allocator_system(),
                                         &device));
  printf("device %zu: %s, profile %s\n", device_index,
         hrx_gpu_device_properties(device)->name,
         hrx_gpu_device_properties(device)->profile_target);
  hrx_gpu_kernel_t* kernel = NULL;
  if (load_saxpy(device, path, &kernel)) return 1;
  hrx_exec_runtime_t* runtime = NULL;
  hrx_exec_runtime_options_t options =
      HRX_STRUCT_INIT(hrx_exec_runtime_options_t);
  options.observe = true;
  options.trace = trace;
  TRY("runtime", hrx_exec_runtime_create(device, &options,
                                         hrx_allocator_system(), &runtime));
  static const hrx_exec_binding_contract_t bindings[] = {
      {HRX_GPU_ACCESS_READ, ELEMENTS * 4, 4},
      {HRX_GPU_ACCESS_READ_WRITE, ELEMENTS * 4, 4}};
  hrx_exec_kernel_contract_t contract = {bindings, 2, 2};
  hrx_exec_kernel_t* saxpy = NULL;
  TRY("contract", hrx_exec_kernel_create(runtime, kernel, &contract, &saxpy));

  hrx_gpu_buffer_t *x = NULL, *y = NULL, *z = NULL;
  TRY("allocate", hrx_exec_buffer_allocate(runtime, ELEMENTS * 4, &x));
  TRY("allocate", hrx_exec_buffer_allocate(runtime, ELEMENTS * 4, &y));
  TRY("allocate", hrx_exec_buffer_allocate(runtime, ELEMENTS * 4, &z));
  static float xs[ELEMENTS], ys[ELEMENTS], zs[ELEMENTS];
  static float y_out[ELEMENTS], z_out[ELEMENTS];

  /* Record the pipeline once. */
  saxpy_t s1, s2, s3, s4;
  saxpy_args(&s1, 2.0f, x, y);
  saxpy_args(&s2, 0.5f, x, y);
  saxpy_args(&s3, -1.0f, x, y);
  saxpy_args(&s4, 3.0f, x, z);
  hrx_exec_graph_t* graph = NULL;
  TRY("graph", hrx_exec_graph_create(runtime, &graph));
  TRY("record", hrx_exec_graph_upload(graph, hrx_gpu_buffer_binding(x), xs,
                                      NULL));
  TRY("record", hrx_exec_graph_upload(graph, hrx_gpu_buffer_binding(y), ys,
                                      NULL));
  TRY("record", hrx_exec_graph_upload(graph, hrx_gpu_buffer_binding(z), zs,
                                      NULL));
  TRY("record", hrx_exec_graph_dispatch(graph, saxpy, &s1.launch, NULL));
  TRY("record", hrx_exec_graph_dispatch(graph, saxpy, &s2.launch, NULL));
  TRY("record", hrx_exec_graph_dispatch(graph, saxpy, &s3.launch, NULL));
  TRY("record", hrx_exec_graph_dispatch(graph, saxpy, &s4.launch, NULL));
  TRY("record", hrx_exec_graph_download(graph, hrx_gpu_buffer_binding(y),
                                        y_out, NULL));
  TRY("record", hrx_exec_graph_download(graph, hrx_gpu_buffer_binding(z),
                                        z_out, NULL));
  for (hrx_exec_node_t n = 0; n < hrx_exec_graph_node_count(graph); ++n) {
    size_t count = 0;
    const hrx_exec_node_t* deps = hrx_exec_graph_node_deps(graph, n, &count);
    printf("node %u (lane %d) after:", n, hrx_exec_graph_node_lane(graph, n));
    for (size_t d = 0; d < count; ++d) printf(" %u", deps[d]);
    printf("\n");
  }

  uint64_t overlapped = 0;
  uint64_t sum_y = 0, sum_z = 0;
  for (int r = 0; r < replays; ++r) {
    for (int i = 0; i < ELEMENTS; ++i) {
      xs[i] = (float)(i % 97) + (float)r;
      ys[i] = 1.0f;
      zs[i] = (float)(i % 13);
    }
    uint64_t start = hrx_clock_monotonic_ns();
    hrx_exec_completion_t* done = NULL;
    TRY("submit", hrx_exec_graph_submit(graph, &done));
    hrx_status_t waited = hrx_exec_completion_wait(done, HRX_TIMEOUT_INFINITE);
    hrx_exec_completion_release(done);
    TRY("wait", waited);
    overlapped += hrx_clock_monotonic_ns() - start;
    for (int i = 0; i < ELEMENTS; ++i) {
      float want_y = -xs[i] + (0.5f * xs[i] + (2.0f * xs[i] + 1.0f));
      float want_z = 3.0f * xs[i] + zs[i];
      if (y_out[i] != want_y || z_out[i] != want_z) {
        fprintf(stderr, "gpu_pipeline: replay %d element %d: y %g (want %g), "
                "z %g (want %g)\n", r, i, y_out[i], want_y, z_out[i], want_z);
        return 1;
      }
    }
    /* Folded over the replays, so every replay's output counts. */
    sum_y = checksum(y_out, sizeof(y_out)) ^ (sum_y * 31);
    sum_z = checksum(z_out, sizeof(z_out)) ^ (sum_z * 31);
  }

  /* The same nodes, one submission each, waiting in between. */
  hrx_exec_graph_t* steps[9] = {NULL};
  for (int k = 0; k < 9; ++k) {
    TRY("graph", hrx_exec_graph_create(runtime, &steps[k]));
  }
  TRY("record", hrx_exec_graph_upload(steps[0], hrx_gpu_buffer_binding(x), xs,
                                      NULL));
  TRY("record", hrx_exec_graph_upload(steps[1], hrx_gpu_buffer_binding(y), ys,
                                      NULL));
  TRY("record", hrx_exec_graph_upload(steps[2], hrx_gpu_buffer_binding(z), zs,
                                      NULL));
  TRY("record", hrx_exec_graph_dispatch(steps[3], saxpy, &s1.launch, NULL));
  TRY("record", hrx_exec_graph_dispatch(steps[4], saxpy, &s2.launch, NULL));
  TRY("record", hrx_exec_graph_dispatch(steps[5], saxpy, &s3.launch, NULL));
  TRY("record", hrx_exec_graph_dispatch(steps[6], saxpy, &s4.launch, NULL));
  TRY("record", hrx_exec_graph_download(steps[7], hrx_gpu_buffer_binding(y),
                                        y_out, NULL));
  TRY("record", hrx_exec_graph_download(steps[8], hrx_gpu_buffer_binding(z),
                                        z_out, NULL));
  uint64_t sequential = 0;
  for (int r = 0; r < replays; ++r) {
    uint64_t start = hrx_clock_monotonic_ns();
    for (int k = 0; k < 9; ++k) {
      hrx_exec_completion_t* done = NULL;
      TRY("submit", hrx_exec_graph_submit(steps[k], &done));
      hrx_status_t waited =
          hrx_exec_completion_wait(done, HRX_TIMEOUT_INFINITE);
      hrx_exec_completion_release(done);
      TRY("wait", waited);
    }
    sequential += hrx_clock_monotonic_ns() - start;
  }

  hrx_exec_statistics_t stats = HRX_STRUCT_INIT(hrx_exec_statistics_t);
  TRY("statistics", hrx_exec_runtime_statistics(runtime, &stats));
  printf("%d replays checked against the CPU reference\n", replays);
  printf("checksums: y %016llx z %016llx\n", (unsigned long long)sum_y,
         (unsigned long long)sum_z);
  printf("per replay: overlapped graph %.1f us, sequential submissions "
         "%.1f us (%.2fx)\n",
         overlapped / 1e3 / replays, sequential / 1e3 / replays,
         (double)sequential / (double)overlapped);
  printf("lanes busy (host-observed): upload %.1f ms, compute %.1f ms, "
         "download %.1f ms\n",
         stats.lane_busy_ns[HRX_EXEC_LANE_UPLOAD] / 1e6,
         stats.lane_busy_ns[HRX_EXEC_LANE_COMPUTE] / 1e6,
         stats.lane_busy_ns[HRX_EXEC_LANE_DOWNLOAD] / 1e6);
  printf("uploaded %llu bytes, downloaded %llu, %llu submissions, "
         "%llu cross-lane waits, peak memory %llu bytes\n",
         (unsigned long long)stats.upload_bytes,
         (unsigned long long)stats.download_bytes,
         (unsigned long long)stats.submissions,
         (unsigned long long)stats.cross_lane_waits,
         (unsigned long long)stats.peak_bytes);

  for (int k = 0; k < 9; ++k) hrx_exec_graph_destroy(steps[k]);
  hrx_exec_graph_destroy(graph);
  hrx_gpu_buffer_release(x);
  hrx_gpu_buffer_release(y);
  hrx_gpu_buffer_release(z);
  hrx_exec_kernel_destroy(saxpy);
  hrx_exec_runtime_destroy(runtime);
  hrx_gpu_kernel_release(kernel);
  hrx_gpu_device_release(device);
  if (trace) {
    /* After the runtime: its watchers have recorded every lane end. */
    TRY("write trace", hrx_trace_write_file(trace, trace_path));
    hrx_trace_stats_t trace_stats = HRX_STRUCT_INIT(hrx_trace_stats_t);
    TRY("trace statistics", hrx_trace_stats(trace, &trace_stats));
    printf("trace: %s (%llu events)\n", trace_path,
           (unsigned long long)trace_stats.recorded_events);
    hrx_trace_release(trace);
  }
  return 0;
}
