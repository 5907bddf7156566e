/* bench/hazard_inference: the cost of inferring dependencies from declared
 * byte ranges, per node, for graphs of 10, 1k and 100k nodes. Inference
 * must grow no worse than n log n, so the per-node figure may grow at most
 * like log n; the bench prints it next to log2(n) and the growth against
 * the smallest graph. Two consumers are measured: the hazard tracker alone
 * and an access-inferring libhrx-gpu graph (tracker plus transitive
 * reduction), each node a copy between random slices of random buffers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "hrx/gpu.h"

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
  hrx_gpu_buffer_t** buffers;
} workload_t;

static uint64_t next_random(uint64_t* state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

static void make_workload(workload_t* w, size_t count) {
  uint64_t random = 0x853c49e6748fea9bull ^ count;
  w->count = count;
  w->buffer_count = count * BUFFERS_PER_1K / 1000 + 4;
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

int main(void) {
  static const size_t sizes[] = {10, 1000, 10000, 100000};
  hrx_gpu_device_t* device = NULL;
  bench_check(hrx_gpu_device_open(0, hrx_allocator_system(), &device),
              "device");
  hrx_gpu_stream_t* stream = NULL;
  bench_check(hrx_gpu_stream_create(device, &stream), "stream");
  printf("hazard_inference: 2 accesses per node (copy of 256..4351 bytes "
         "between random slices), %d buffers per 1k nodes\n",
         BUFFERS_PER_1K);
  printf("%8s %14s %14s %8s %12s %12s\n", "nodes", "tracker ns/n",
         "graph ns/n", "log2 n", "tracker x10", "graph x10");
  double base_tracker = 0, base_graph = 0;
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
    workload_t w = {.device = device};
    make_workload(&w, sizes[s]);
    w.buffers = calloc(w.buffer_count, sizeof(*w.buffers));
    if (!w.buffers) return 1;
    for (size_t b = 0; b < w.buffer_count; ++b) {
      bench_check(hrx_gpu_stream_allocate(stream, BUFFER_BYTES, &w.buffers[b]),
                  "allocate");
    }
    int repeats = sizes[s] >= 100000 ? 3 : sizes[s] >= 1000 ? 21 : 201;
    double tracker =
        (double)bench_median_ns(run_tracker, &w, repeats) / (double)w.count;
    double graph =
        (double)bench_median_ns(run_graph, &w, repeats) / (double)w.count;
    if (s == 0) {
      base_tracker = tracker;
      base_graph = graph;
    }
    printf("%8zu %14.1f %14.1f %8.1f %11.2fx %11.2fx\n", w.count, tracker,
           graph, log2((double)w.count), tracker / base_tracker,
           graph / base_graph);
    for (size_t b = 0; b < w.buffer_count; ++b) {
      hrx_gpu_buffer_release(w.buffers[b]);
    }
    free(w.buffers);
    free(w.nodes);
  }
  hrx_gpu_stream_destroy(stream);
  hrx_gpu_device_release(device);
  return 0;
}
