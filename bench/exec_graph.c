/* bench/exec_graph: what the execution runtime costs over raw streams.
 *
 * 1. Hazard inference per node for graphs of 10 to 100k nodes (each a copy
 *    between random slices of random buffers): the tracker alone, an
 *    access-inferring libhrx-gpu graph (tracker plus full transitive
 *    reduction) and a libhrx-exec graph. Inference must grow no worse than
 *    n log n, so the per-node figure may grow at most like log n; it is
 *    printed next to log2(n) and the growth over the smallest graph, with
 *    the segments the tracker holds at the end (its working set: past the
 *    CPU caches, each tree step is a cache miss). The last column runs the
 *    tracker on the same accesses spread over 64 buffers only, a working
 *    set that stays cached, to separate the algorithm from memory latency.
 * 2. Replay of 32 empty kernels through libhrx-exec against the same 32
 *    dispatches on a raw stream (the peer), submit to completion, and the
 *    host time of the submit call alone.
 * 3. The cost of a cross-lane dependency edge: 16 copy+download pairs with
 *    and without the edges between them.
 * 4. With a GPU (HRX_KFD_MODEL for the modelled gfx1151): the same 32
 *    empty kernels under compute_engine = PM4, one host-ordered region
 *    under one fence, against AQL.
 * Anchors (gfx1151, HRX's Rust predecessor): coordinated vs direct
 * 1.007-1.015x, 0.533 us per declared dependency edge, 815 ns host time to
 * replay 32 kernels. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "bench_gpu.h"
#include "bench_util.h"
#include "hrx/exec.h"

#define BUFFERS_PER_1K 64
#define BUFFER_BYTES 65536

typedef struct access_t {
  uint32_t source, destination;
  uint64_t source_offset, destination_offset, length;
} access_t;

typedef struct workload_t {
  access_t* nodes;
  size_t count;
  size_t buffer_count;
  hrx_gpu_device_t* device;
  hrx_exec_runtime_t* runtime;
  hrx_gpu_buffer_t** buffers;
} workload_t;

static uint64_t next_random(uint64_t* state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

/* |buffer_count| 0: BUFFERS_PER_1K per 1000 nodes, so the working set
 * grows with the graph. */
static void make_workload(workload_t* w, size_t count, size_t buffer_count) {
  uint64_t random = 0x853c49e6748fea9bull ^ count;
  w->count = count;
  w->buffer_count =
      buffer_count ? buffer_count : count * BUFFERS_PER_1K / 1000 + 4;
  w->nodes = calloc(count, sizeof(access_t));
  if (!w->nodes) exit(1);
  for (size_t n = 0; n < count; ++n) {
    access_t* a = &w->nodes[n];
    a->source = (uint32_t)(next_random(&random) % w->buffer_count);
    a->destination = (uint32_t)(next_random(&random) % w->buffer_count);
    a->length = 256 + next_random(&random) % 4096;
    a->source_offset = next_random(&random) % (BUFFER_BYTES - a->length);
    a->destination_offset = next_random(&random) % (BUFFER_BYTES - a->length);
  }
}

static size_t tracker_segments;

static void run_tracker(void* context) {
  const workload_t* w = context;
  hrx_gpu_hazard_tracker_t* t = NULL;
  bench_check(hrx_gpu_hazard_tracker_create(hrx_allocator_system(), &t),
              "tracker");
  for (size_t n = 0; n < w->count; ++n) {
    const access_t* a = &w->nodes[n];
    bench_check(hrx_gpu_hazard_tracker_access(
                    t, (uint32_t)n, a->source, a->source_offset,
                    a->source_offset + a->length, HRX_GPU_ACCESS_READ),
                "access");
    bench_check(hrx_gpu_hazard_tracker_access(
                    t, (uint32_t)n, a->destination, a->destination_offset,
                    a->destination_offset + a->length, HRX_GPU_ACCESS_WRITE),
                "access");
    size_t count = 0;
    (void)hrx_gpu_hazard_tracker_deps(t, &count);
  }
  tracker_segments = hrx_gpu_hazard_tracker_segment_count(t);
  hrx_gpu_hazard_tracker_destroy(t);
}

static void run_graph(void* context) {
  const workload_t* w = context;
  hrx_gpu_graph_t* graph = NULL;
  bench_check(hrx_gpu_graph_create(w->device, HRX_GPU_GRAPH_INFER_ACCESS,
                                   &graph),
              "graph");
  for (size_t n = 0; n < w->count; ++n) {
    const access_t* a = &w->nodes[n];
    hrx_gpu_view_t source, destination;
    bench_check(hrx_gpu_view_slice(hrx_gpu_buffer_binding(w->buffers[a->source]),
                                   a->source_offset, a->length, &source),
                "slice");
    bench_check(hrx_gpu_view_slice(
                    hrx_gpu_buffer_binding(w->buffers[a->destination]),
                    a->destination_offset, a->length, &destination),
                "slice");
    bench_check(hrx_gpu_graph_copy(graph, source, destination, NULL, 0, NULL),
                "copy");
  }
  hrx_gpu_graph_destroy(graph);
}

static void run_exec(void* context) {
  const workload_t* w = context;
  hrx_exec_graph_t* graph = NULL;
  bench_check(hrx_exec_graph_create(w->runtime, &graph), "graph");
  for (size_t n = 0; n < w->count; ++n) {
    const access_t* a = &w->nodes[n];
    hrx_gpu_view_t source = {w->buffers[a->source], a->source_offset,
                             a->length};
    hrx_gpu_view_t destination = {w->buffers[a->destination],
                                  a->destination_offset, a->length};
    bench_check(hrx_exec_graph_copy(graph, source, destination, NULL),
                "copy");
  }
  hrx_exec_graph_destroy(graph);
}

static void inference(hrx_gpu_device_t* device, hrx_exec_runtime_t* runtime) {
  static const size_t sizes[] = {10, 1000, 10000, 100000};
  printf("1. inference per node: 2 accesses per node (copies of 256..4351 "
         "bytes between random slices), %d buffers per 1k nodes\n",
         BUFFERS_PER_1K);
  printf("%8s %8s %10s %14s %14s %14s %10s %10s %12s %10s\n", "nodes", "log2 n",
         "segments", "tracker ns/n", "gpu graph", "exec graph", "tracker/10",
         "exec/10", "64 buffers", "segments");
  double base_tracker = 0, base_exec = 0;
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
    /* The same accesses over 64 buffers only: a working set that stays in
     * the caches, so what growth remains is the algorithm's. */
    workload_t cached = {.device = device, .runtime = runtime};
    make_workload(&cached, sizes[s], 64);
    int repeats = sizes[s] >= 100000 ? 3 : sizes[s] >= 1000 ? 21 : 201;
    double resident = (double)bench_median_ns(run_tracker, &cached, repeats) /
                      (double)cached.count;
    size_t resident_segments = tracker_segments;
    free(cached.nodes);
    workload_t w = {.device = device, .runtime = runtime};
    make_workload(&w, sizes[s], 0);
    w.buffers = calloc(w.buffer_count, sizeof(*w.buffers));
    if (!w.buffers) exit(1);
    for (size_t b = 0; b < w.buffer_count; ++b) {
      bench_check(hrx_exec_buffer_allocate(runtime, BUFFER_BYTES,
                                           &w.buffers[b]),
                  "allocate");
    }
    double tracker =
        (double)bench_median_ns(run_tracker, &w, repeats) / (double)w.count;
    double graph =
        (double)bench_median_ns(run_graph, &w, repeats) / (double)w.count;
    double exec =
        (double)bench_median_ns(run_exec, &w, repeats) / (double)w.count;
    if (s == 0) {
      base_tracker = tracker;
      base_exec = exec;
    }
    printf("%8zu %8.1f %10zu %14.1f %14.1f %14.1f %9.2fx %9.2fx %12.1f %10zu\n",
           w.count, log2((double)w.count), tracker_segments, tracker, graph,
           exec, tracker / base_tracker, exec / base_exec, resident,
           resident_segments);
    for (size_t b = 0; b < w.buffer_count; ++b) {
      hrx_gpu_buffer_release(w.buffers[b]);
    }
    free(w.buffers);
    free(w.nodes);
  }
}

/*===------------------------------------------------------------------===*/
/* Replay                                                                  */
/*===------------------------------------------------------------------===*/

#define REPLAY_KERNELS 32

typedef struct replay_ctx_t {
  hrx_gpu_stream_t* stream;
  hrx_gpu_kernel_t* kernel;
  hrx_exec_graph_t* graph;
  uint64_t submit_ns;
  uint64_t dispatch_ns; /* host time of the raw stream's 32 dispatches */
} replay_ctx_t;

static void run_direct(void* context) {
  replay_ctx_t* c = context;
  hrx_gpu_launch_t launch = {NULL, 0, NULL, 0};
  uint64_t start = hrx_clock_monotonic_ns();
  for (int k = 0; k < REPLAY_KERNELS; ++k) {
    bench_check(hrx_gpu_stream_dispatch(c->stream, c->kernel, &launch),
                "dispatch");
  }
  c->dispatch_ns = hrx_clock_monotonic_ns() - start;
  bench_check(hrx_gpu_stream_synchronize(c->stream, HRX_TIMEOUT_INFINITE),
              "synchronize");
}

static void run_replay(void* context) {
  replay_ctx_t* c = context;
  hrx_exec_completion_t* completion = NULL;
  uint64_t start = hrx_clock_monotonic_ns();
  bench_check(hrx_exec_graph_submit(c->graph, &completion), "submit");
  c->submit_ns = hrx_clock_monotonic_ns() - start;
  bench_check(hrx_exec_completion_wait(completion, HRX_TIMEOUT_INFINITE),
              "wait");
  hrx_exec_completion_release(completion);
}

static uint64_t submit_host_ns;

static void run_submit_only(void* context) {
  run_replay(context);
  submit_host_ns = ((replay_ctx_t*)context)->submit_ns;
}

static int compare_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return (x > y) - (x < y);
}

static void replay(hrx_gpu_device_t* device, hrx_exec_runtime_t* runtime) {
  hrx_gpu_kernel_t* empty = bench_compile(device, bench_empty_kernel, "empty");
  hrx_exec_kernel_contract_t contract = {NULL, 0, 0};
  hrx_exec_kernel_t* kernel = NULL;
  bench_check(hrx_exec_kernel_create(runtime, empty, &contract, &kernel),
              "contract");
  replay_ctx_t c = {.kernel = empty};
  replay_ctx_t one = {.kernel = empty};
  bench_check(hrx_gpu_stream_create(device, &c.stream), "stream");
  bench_check(hrx_exec_graph_create(runtime, &c.graph), "graph");
  bench_check(hrx_exec_graph_create(runtime, &one.graph), "graph");
  hrx_gpu_launch_t launch = {NULL, 0, NULL, 0};
  for (int k = 0; k < REPLAY_KERNELS; ++k) {
    bench_check(hrx_exec_graph_dispatch(c.graph, kernel, &launch, NULL),
                "record");
  }
  bench_check(hrx_exec_graph_dispatch(one.graph, kernel, &launch, NULL),
              "record");
  enum { SAMPLES = 301 };
  /* Interleave them so drift hits all alike. */
  uint64_t direct[SAMPLES], coordinated[SAMPLES], submit[SAMPLES];
  uint64_t submit_one[SAMPLES], dispatch[SAMPLES];
  for (int i = 0; i < SAMPLES; ++i) {
    direct[i] = bench_median_ns(run_direct, &c, 1);
    dispatch[i] = c.dispatch_ns;
    coordinated[i] = bench_median_ns(run_submit_only, &c, 1);
    submit[i] = submit_host_ns;
    run_submit_only(&one);
    submit_one[i] = submit_host_ns;
  }
  qsort(direct, SAMPLES, sizeof(uint64_t), compare_u64);
  qsort(coordinated, SAMPLES, sizeof(uint64_t), compare_u64);
  qsort(submit, SAMPLES, sizeof(uint64_t), compare_u64);
  qsort(submit_one, SAMPLES, sizeof(uint64_t), compare_u64);
  qsort(dispatch, SAMPLES, sizeof(uint64_t), compare_u64);
  double d = direct[SAMPLES / 2] / 1e3, x = coordinated[SAMPLES / 2] / 1e3;
  printf("2. %d empty kernels, submit to completion (median of %d): raw "
         "stream %.1f us, exec graph %.1f us, exec/stream %.3fx "
         "(anchor 1.007-1.015x); submit host time %.0f ns (anchor 815 ns)\n",
         REPLAY_KERNELS, SAMPLES, d, x, x / d, submit[SAMPLES / 2] / 1.0);
  /* The slope between 1 and 32 nodes leaves out the per-submission part
   * (lane events, the doorbell's futex wake when the queue sleeps). */
  double slope = ((double)submit[SAMPLES / 2] - (double)submit_one[SAMPLES / 2]) /
                 (REPLAY_KERNELS - 1);
  printf("   submit host time of 1 node %.0f ns; per further node %.0f ns, "
         "raw stream dispatch call %.0f ns per kernel\n",
         submit_one[SAMPLES / 2] / 1.0, slope,
         dispatch[SAMPLES / 2] / (double)REPLAY_KERNELS);
  hrx_exec_graph_destroy(one.graph);
  hrx_exec_graph_destroy(c.graph);
  hrx_gpu_stream_destroy(c.stream);
  hrx_exec_kernel_destroy(kernel);
  hrx_gpu_kernel_release(empty);
}

/* 16 copies into distinct slices, each downloaded: with the download
 * reading the copied slice (one cross-lane edge per pair) or another,
 * untouched slice (no edge). */
static void edges(hrx_exec_runtime_t* runtime) {
  enum { PAIRS = 16, SLICE = 256, SAMPLES = 301 };
  hrx_gpu_buffer_t* buffer = NULL;
  bench_check(hrx_exec_buffer_allocate(runtime, 3 * PAIRS * SLICE, &buffer),
              "allocate");
  static uint8_t host[PAIRS][SLICE];
  hrx_exec_graph_t* graphs[2];
  for (int linked = 0; linked < 2; ++linked) {
    bench_check(hrx_exec_graph_create(runtime, &graphs[linked]), "graph");
    for (int p = 0; p < PAIRS; ++p) {
      hrx_gpu_view_t from = {buffer, (uint64_t)p * SLICE, SLICE};
      hrx_gpu_view_t to = {buffer, (uint64_t)(PAIRS + p) * SLICE, SLICE};
      hrx_gpu_view_t other = {buffer, (uint64_t)(2 * PAIRS + p) * SLICE,
                              SLICE};
      bench_check(hrx_exec_graph_copy(graphs[linked], from, to, NULL), "copy");
      bench_check(hrx_exec_graph_download(graphs[linked], linked ? to : other,
                                          host[p], NULL),
                  "download");
    }
  }
  uint64_t samples[2][SAMPLES];
  for (int i = 0; i < SAMPLES; ++i) {
    for (int linked = 0; linked < 2; ++linked) {
      replay_ctx_t c = {.graph = graphs[linked]};
      samples[linked][i] = bench_median_ns(run_replay, &c, 1);
    }
  }
  for (int linked = 0; linked < 2; ++linked) {
    qsort(samples[linked], SAMPLES, sizeof(uint64_t), compare_u64);
    hrx_exec_graph_destroy(graphs[linked]);
  }
  double free_us = samples[0][SAMPLES / 2] / 1e3;
  double linked_us = samples[1][SAMPLES / 2] / 1e3;
  printf("3. %d copy+download pairs: no edges %.1f us, %d cross-lane edges "
         "%.1f us: %.3f us per edge (anchor 0.533 us)\n",
         PAIRS, free_us, PAIRS, linked_us, (linked_us - free_us) / PAIRS);
  hrx_gpu_buffer_release(buffer);
}

/* With arguments, only the named parts run: inference, replay, edges,
 * regions. */
/*===------------------------------------------------------------------===*/
/* Host-ordered regions (a GPU: the modelled gfx1151 under HRX_KFD_MODEL)  */
/*===------------------------------------------------------------------===*/

/* 32 empty kernels replayed under compute_engine = PM4, one region under
 * one fence, against the same graph under AQL (the peer), submit to
 * completion, interleaved. */
static void regions(void) {
  if (hrx_gpu_device_count() < 2) {
    printf("4. regions: skipped, no GPU device (set HRX_KFD_MODEL)\n");
    return;
  }
  hrx_gpu_device_t* gpu = NULL;
  bench_check(hrx_gpu_device_open(1, hrx_allocator_system(), &gpu), "gpu");
  hrx_gpu_kernel_t* empty = bench_compile(gpu, bench_empty_kernel, "empty");
  hrx_exec_compute_engine_t engines[2] = {HRX_EXEC_COMPUTE_ENGINE_AQL,
                                          HRX_EXEC_COMPUTE_ENGINE_PM4};
  hrx_exec_runtime_t* runtimes[2] = {NULL, NULL};
  hrx_exec_kernel_t* kernels[2] = {NULL, NULL};
  replay_ctx_t c[2] = {{.kernel = empty}, {.kernel = empty}};
  hrx_exec_kernel_contract_t contract = {NULL, 0, 0};
  hrx_gpu_launch_t launch = {NULL, 0, NULL, 0};
  for (int e = 0; e < 2; ++e) {
    hrx_exec_runtime_options_t o =
        HRX_STRUCT_INIT(hrx_exec_runtime_options_t);
    o.compute_engine = engines[e];
    bench_check(hrx_exec_runtime_create(gpu, &o, hrx_allocator_system(),
                                        &runtimes[e]),
                "runtime");
    bench_check(hrx_exec_kernel_create(runtimes[e], empty, &contract,
                                       &kernels[e]),
                "contract");
    bench_check(hrx_exec_graph_create(runtimes[e], &c[e].graph), "graph");
    for (int k = 0; k < REPLAY_KERNELS; ++k) {
      bench_check(hrx_exec_graph_dispatch(c[e].graph, kernels[e], &launch,
                                          NULL),
                  "record");
    }
  }
  enum { SAMPLES = 31 };
  uint64_t ns[2][SAMPLES];
  for (int i = 0; i < SAMPLES; ++i) {
    for (int e = 0; e < 2; ++e) {
      ns[e][i] = bench_median_ns(run_replay, &c[e], 1);
    }
  }
  for (int e = 0; e < 2; ++e) {
    qsort(ns[e], SAMPLES, sizeof(uint64_t), compare_u64);
  }
  hrx_exec_statistics_t stats = HRX_STRUCT_INIT(hrx_exec_statistics_t);
  bench_check(hrx_exec_runtime_statistics(runtimes[1], &stats), "statistics");
  double aql = ns[0][SAMPLES / 2] / 1e3, pm4 = ns[1][SAMPLES / 2] / 1e3;
  printf("4. %d empty kernels on %s, submit to completion (median of %d): "
         "AQL %.1f us, PM4 region %.1f us, PM4/AQL %.3fx; %.2f fences "
         "waited per PM4 replay\n",
         REPLAY_KERNELS, hrx_gpu_device_properties(gpu)->name, SAMPLES, aql,
         pm4, pm4 / aql,
         (double)stats.region_fences / (double)stats.submissions);
  for (int e = 0; e < 2; ++e) {
    hrx_exec_graph_destroy(c[e].graph);
    hrx_exec_kernel_destroy(kernels[e]);
    hrx_exec_runtime_destroy(runtimes[e]);
  }
  hrx_gpu_kernel_release(empty);
  hrx_gpu_device_release(gpu);
}

static bool wanted(int argc, char** argv, const char* part) {
  if (argc < 2) return true;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], part) == 0) return true;
  }
  return false;
}

int main(int argc, char** argv) {
  hrx_gpu_device_t* device = NULL;
  bench_check(hrx_gpu_device_open(0, hrx_allocator_system(), &device),
              "device");
  hrx_exec_runtime_t* runtime = NULL;
  bench_check(hrx_exec_runtime_create(device, NULL, hrx_allocator_system(),
                                      &runtime),
              "runtime");
  printf("exec_graph: host device, %u threads\n",
         hrx_gpu_device_properties(device)->compute_units);
  if (wanted(argc, argv, "inference")) inference(device, runtime);
  if (wanted(argc, argv, "replay")) replay(device, runtime);
  if (wanted(argc, argv, "edges")) edges(runtime);
  if (wanted(argc, argv, "regions")) regions();
  hrx_exec_runtime_destroy(runtime);
  hrx_gpu_device_release(device);
  return 0;
}
