/* bench/gpu_stream: libhrx-gpu submission rates and latencies on the host
 * device, with PoCL's CPU device measured in the same run as the peer
 * (empty-kernel enqueue + finish, 4 KiB clEnqueueCopyBuffer + clFinish)
 * and memcpy as the physical limit for uploads and downloads.
 *
 * When there is a GPU device (hrx_gpu_device_count() > 1: an AMD GPU, or
 * the KFD model of one under HRX_KFD_MODEL), device 1's submission rate and
 * empty dispatch-to-completion latency are measured too and shown beside
 * the host device's. On the model that is HRX's own path (streams, AQL
 * packets, signals) into a CPU model of the GPU, not hardware, so it runs
 * with fewer iterations. Then the same 4 KiB copy through each of its
 * queue families (AQL, PM4, SDMA) side by side (gpu_families.h).
 *
 * usage: gpu_stream [SAMPLES]   (default 2000) */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_gpu.h"
#include "bench_util.h"
#include "gpu_families.h"
#include "ocl_peer.h"
#include "hrx/gpu.h"

#define CHECK(expr) bench_check((expr), #expr)

static int compare_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return (x > y) - (x < y);
}

static void percentiles(uint64_t* samples, int n, double out[3]) {
  qsort(samples, (size_t)n, sizeof(uint64_t), compare_u64);
  out[0] = samples[n / 2] / 1e3;
  out[1] = samples[n * 95 / 100] / 1e3;
  out[2] = samples[n * 99 / 100] / 1e3;
}

/*===------------------------------------------------------------------===*/

typedef struct submit_ctx_t {
  hrx_gpu_device_t* device;
  const hrx_gpu_kernel_t* kernel;
  int count;
  uint64_t ns;
} submit_ctx_t;

static void* submit_thread(void* arg) {
  submit_ctx_t* c = arg;
  hrx_gpu_stream_t* s = NULL;
  CHECK(hrx_gpu_stream_create(c->device, &s));
  hrx_gpu_launch_t launch = {NULL, 0, NULL, 0};
  uint64_t start = hrx_clock_monotonic_ns();
  for (int i = 0; i < c->count; ++i) {
    CHECK(hrx_gpu_stream_dispatch(s, c->kernel, &launch));
  }
  c->ns = hrx_clock_monotonic_ns() - start;
  CHECK(hrx_gpu_stream_synchronize(s, HRX_TIMEOUT_INFINITE));
  hrx_gpu_stream_destroy(s);
  return NULL;
}

static double submissions(hrx_gpu_device_t* device,
                          const hrx_gpu_kernel_t* kernel, int threads,
                          int per_thread) {
  pthread_t ids[64];
  submit_ctx_t ctx[64];
  uint64_t start = hrx_clock_monotonic_ns();
  for (int t = 0; t < threads; ++t) {
    ctx[t] = (submit_ctx_t){device, kernel, per_thread, 0};
    pthread_create(&ids[t], NULL, submit_thread, &ctx[t]);
  }
  for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  uint64_t total = hrx_clock_monotonic_ns() - start;
  return (double)threads * per_thread / (total / 1e9);
}

/* What one dispatch call costs the caller: 512 dispatches (half a queue,
 * so no call waits for room) queued inside a batch (no doorbell), timed
 * per call; the median of |rounds| rounds. |prepared| queues a prepared
 * dispatch instead of evaluating the launch each time. */
static double record_ns(hrx_gpu_device_t* device, hrx_gpu_stream_t* stream,
                        const hrx_gpu_kernel_t* kernel, bool prepared,
                        int rounds) {
  enum { PER_ROUND = 512 };
  hrx_gpu_launch_t launch = {NULL, 0, NULL, 0};
  hrx_gpu_prepared_t* command = NULL;
  if (prepared) {
    CHECK(hrx_gpu_prepare_dispatch(device, kernel, &launch, &command));
  }
  uint64_t* per_round = malloc(sizeof(uint64_t) * (size_t)rounds);
  for (int r = 0; r < rounds; ++r) {
    hrx_gpu_stream_begin_batch(stream);
    uint64_t t0 = hrx_clock_monotonic_ns();
    for (int i = 0; i < PER_ROUND; ++i) {
      if (prepared) {
        CHECK(hrx_gpu_stream_enqueue(stream, command));
      } else {
        CHECK(hrx_gpu_stream_dispatch(stream, kernel, &launch));
      }
    }
    per_round[r] = hrx_clock_monotonic_ns() - t0;
    hrx_gpu_stream_end_batch(stream);
    CHECK(hrx_gpu_stream_synchronize(stream, HRX_TIMEOUT_INFINITE));
  }
  qsort(per_round, (size_t)rounds, sizeof(uint64_t), compare_u64);
  double ns = (double)per_round[rounds / 2] / PER_ROUND;
  free(per_round);
  hrx_gpu_prepared_destroy(command);
  return ns;
}

/* Submission rate from 1 and |threads| threads, and empty dispatch + wait
 * latency percentiles over |samples|. */
typedef struct dispatch_figures_t {
  int threads;
  double one, all;
  double empty_p[3];
} dispatch_figures_t;

static void empty_latency(hrx_gpu_stream_t* stream,
                          const hrx_gpu_kernel_t* empty, int samples,
                          uint64_t* lat, double out[3]) {
  hrx_gpu_launch_t launch = {NULL, 0, NULL, 0};
  for (int i = 0; i < samples; ++i) {
    uint64_t t0 = hrx_clock_monotonic_ns();
    CHECK(hrx_gpu_stream_dispatch(stream, empty, &launch));
    CHECK(hrx_gpu_stream_synchronize(stream, HRX_TIMEOUT_INFINITE));
    lat[i] = hrx_clock_monotonic_ns() - t0;
  }
  percentiles(lat, samples, out);
}

/* Device |index| (a GPU): the rate and latency figures only, or false with
 * the reason printed when it cannot be measured. */
static bool measure_gpu(size_t index, int threads, int samples,
                        int per_thread, dispatch_figures_t* out) {
  hrx_gpu_device_t* device = NULL;
  hrx_status_t status =
      hrx_gpu_device_open(index, hrx_allocator_system(), &device);
  if (status == HRX_OK) {
    status = hrx_gpu_device_set_stream_queue_count(device, 8);
  }
  hrx_gpu_kernel_t* empty = NULL;
  if (status == HRX_OK) {
    status = bench_try_compile(device, bench_empty_kernel, "empty", &empty);
  }
  if (status != HRX_OK) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    hrx_status_free(status);
    printf("device %zu: not measured: %s\n", index, text);
    hrx_gpu_device_release(device);
    return false;
  }
  hrx_gpu_stream_t* stream = NULL;
  CHECK(hrx_gpu_stream_create(device, &stream));
  out->threads = threads;
  out->one = submissions(device, empty, 1, per_thread);
  out->all = submissions(device, empty, threads, per_thread);
  uint64_t* lat = malloc(sizeof(uint64_t) * (size_t)samples);
  empty_latency(stream, empty, samples, lat, out->empty_p);
  free(lat);
  hrx_gpu_stream_destroy(stream);
  hrx_gpu_kernel_release(empty);
  hrx_gpu_device_release(device);
  return true;
}

/* Device 1 beside the host device's figures. */
static void report_gpu(const dispatch_figures_t* host, int host_threads) {
  if (hrx_gpu_device_count() < 2) return;
  hrx_gpu_device_t* device = NULL;
  hrx_status_t status = hrx_gpu_device_open(1, hrx_allocator_system(),
                                            &device);
  if (status != HRX_OK) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    hrx_status_free(status);
    printf("device 1: not measured: %s\n", text);
    return;
  }
  char name[256];
  snprintf(name, sizeof(name), "%s",
           hrx_gpu_device_properties(device)->name);
  hrx_gpu_device_release(device);
  bool model = strstr(name, ", model)") != NULL;
  /* The model executes every packet on the CPU, far slower than hardware
   * and the host device: a few hundred samples say enough. */
  int samples = model ? 200 : 2000;
  int per_thread = model ? 500 : 50000;
  int threads = host_threads < 8 ? host_threads : 8;
  printf("\ndevice 1: %s, 8 queues, %d samples, %d submissions/thread\n",
         name, samples, per_thread);
  if (model) {
    printf("  (the KFD model of HRX_KFD_MODEL: these figures measure HRX's "
           "path into the model on the CPU, not GPU hardware)\n");
  }
  dispatch_figures_t gpu;
  if (!measure_gpu(1, threads, samples, per_thread, &gpu)) return;
  printf("                      %-28s %s\n", "device 0 (host)",
         model ? "device 1 (gfx1151 model)" : "device 1 (GPU)");
  printf("submissions/s 1 thr   %-28.0f %.0f\n", host->one, gpu.one);
  char host_all[64], gpu_all[64];
  snprintf(host_all, sizeof(host_all), "%.0f (%d threads)", host->all,
           host->threads);
  snprintf(gpu_all, sizeof(gpu_all), "%.0f (%d threads)", gpu.all,
           gpu.threads);
  printf("submissions/s N thr   %-28s %s\n", host_all, gpu_all);
  char host_p[64], gpu_p[64];
  snprintf(host_p, sizeof(host_p), "%.1f / %.1f / %.1f", host->empty_p[0],
           host->empty_p[1], host->empty_p[2]);
  snprintf(gpu_p, sizeof(gpu_p), "%.1f / %.1f / %.1f", gpu.empty_p[0],
           gpu.empty_p[1], gpu.empty_p[2]);
  printf("dispatch->completion  %-28s %s   (empty dispatch + wait, us "
         "p50/p95/p99)\n", host_p, gpu_p);
  bench_report_families(samples, per_thread);
}

/*===------------------------------------------------------------------===*/

typedef struct copy_ctx_t {
  hrx_gpu_stream_t* stream;
  hrx_gpu_view_t src, dst;
  void* host;
  size_t bytes;
} copy_ctx_t;

static void upload_once(void* context) {
  copy_ctx_t* c = context;
  CHECK(hrx_gpu_stream_upload(c->stream, c->dst, c->host, c->bytes));
  CHECK(hrx_gpu_stream_synchronize(c->stream, HRX_TIMEOUT_INFINITE));
}

static void download_once(void* context) {
  copy_ctx_t* c = context;
  CHECK(hrx_gpu_stream_download_blocking(c->stream, c->src, c->host,
                                         c->bytes));
}

/* A readback: a snapshot in staging, then copied out by the caller. */
static void readback_once(void* context) {
  copy_ctx_t* c = context;
  hrx_gpu_readback_t* r = NULL;
  CHECK(hrx_gpu_stream_read(c->stream, c->src, &r));
  const void* data = NULL;
  uint64_t length = 0;
  CHECK(hrx_gpu_readback_wait(r, HRX_TIMEOUT_INFINITE, &data, &length));
  memcpy(c->host, data, length);
  hrx_gpu_readback_release(r);
}

static void memcpy_once(void* context) {
  copy_ctx_t* c = context;
  memcpy(hrx_gpu_buffer_host_pointer(c->dst.buffer), c->host, c->bytes);
}

/*===------------------------------------------------------------------===*/

int main(int argc, char** argv) {
  int samples = argc > 1 ? atoi(argv[1]) : 2000;
  hrx_gpu_device_t* device = NULL;
  CHECK(hrx_gpu_device_open(0, hrx_allocator_system(), &device));
  CHECK(hrx_gpu_device_set_stream_queue_count(device, 8));
  hrx_gpu_kernel_t* empty = bench_compile(device, bench_empty_kernel, "empty");
  hrx_gpu_stream_t* stream = NULL;
  CHECK(hrx_gpu_stream_create(device, &stream));
  long cpus = (long)hrx_gpu_device_properties(device)->compute_units;
  printf("gpu_stream: host device, %ld threads, 8 queues, %d samples\n", cpus,
         samples);

  /* Submission rate. */
  double one = submissions(device, empty, 1, 50000);
  double all = submissions(device, empty, (int)cpus, 50000);
  printf("submissions/s       1 thread %9.0f   %ld threads %9.0f   (anchor: "
         "gfx1151 1.0M and 1.9M)\n", one, cpus, all);

  double record_direct = record_ns(device, stream, empty, false, 21);
  double record_prepared = record_ns(device, stream, empty, true, 21);
  printf("dispatch recording  %.0f ns/dispatch, %.0f ns/prepared enqueue "
         "(512 in a batch, median of 21; target 131 ns)\n", record_direct,
         record_prepared);

  /* 4 KiB copy + wait, empty dispatch + wait. */
  hrx_gpu_buffer_t *a = NULL, *b = NULL;
  CHECK(hrx_gpu_stream_allocate(stream, 4096, &a));
  CHECK(hrx_gpu_stream_allocate(stream, 4096, &b));
  uint64_t* lat = malloc(sizeof(uint64_t) * (size_t)samples);
  for (int i = 0; i < samples; ++i) {
    uint64_t t0 = hrx_clock_monotonic_ns();
    CHECK(hrx_gpu_stream_copy(stream, hrx_gpu_buffer_binding(a),
                              hrx_gpu_buffer_binding(b)));
    CHECK(hrx_gpu_stream_synchronize(stream, HRX_TIMEOUT_INFINITE));
    lat[i] = hrx_clock_monotonic_ns() - t0;
  }
  double copy_p[3];
  percentiles(lat, samples, copy_p);
  double empty_p[3];
  empty_latency(stream, empty, samples, lat, empty_p);
  hrx_gpu_launch_t launch = {NULL, 0, NULL, 0};

  /* Graph replay per node vs direct dispatch of the same 32 kernels. */
  hrx_gpu_graph_t* graph = NULL;
  CHECK(hrx_gpu_graph_create(device, HRX_GPU_GRAPH_DEFAULT, &graph));
  hrx_gpu_node_t prev = 0;
  for (int i = 0; i < 32; ++i) {
    CHECK(hrx_gpu_graph_dispatch(graph, empty, &launch, i ? &prev : NULL,
                                 i ? 1 : 0, &prev));
  }
  int rounds = samples / 10 + 1;
  uint64_t t0 = hrx_clock_monotonic_ns();
  for (int r = 0; r < rounds; ++r) CHECK(hrx_gpu_graph_replay(graph, stream));
  uint64_t replay_submit = hrx_clock_monotonic_ns() - t0;
  CHECK(hrx_gpu_stream_synchronize(stream, HRX_TIMEOUT_INFINITE));
  t0 = hrx_clock_monotonic_ns();
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < 32; ++i) CHECK(hrx_gpu_stream_dispatch(stream, empty,
                                                               &launch));
  }
  uint64_t direct_submit = hrx_clock_monotonic_ns() - t0;
  CHECK(hrx_gpu_stream_synchronize(stream, HRX_TIMEOUT_INFINITE));
  double replay_node = replay_submit / 1e3 / (rounds * 32.0);
  double direct_node = direct_submit / 1e3 / (rounds * 32.0);

  /* Upload / download vs memcpy. */
  size_t big = 64u << 20;
  hrx_gpu_buffer_t* large = NULL;
  CHECK(hrx_gpu_stream_allocate(stream, big, &large));
  void* host = malloc(big);
  memset(host, 1, big);
  copy_ctx_t cc = {stream, hrx_gpu_buffer_binding(large),
                   hrx_gpu_buffer_binding(large), host, big};
  /* Each transfer alternates with memcpy, so both see the same machine:
   * separate medians drift apart by 10-20% on a busy VM. */
  uint64_t up = 0, down = 0, readback = 0, mem_up = 0, mem_down = 0;
  uint64_t mem_readback = 0;
  bench_median_pair_ns(upload_once, &cc, memcpy_once, &cc, 9, &up, &mem_up);
  bench_median_pair_ns(download_once, &cc, memcpy_once, &cc, 9, &down,
                       &mem_down);
  bench_median_pair_ns(readback_once, &cc, memcpy_once, &cc, 9, &readback,
                       &mem_readback);

  /* PoCL peer. */
  ocl_t o = ocl_open();
  double pocl_empty[3] = {0}, pocl_copy[3] = {0};
  if (o.ok) {
    cl_kernel k = ocl_kernel(&o, "__kernel void empty(void) {}", "empty");
    cl_int error = 0;
    cl_mem ca = clCreateBuffer(o.context, CL_MEM_READ_WRITE, 4096, NULL, &error);
    cl_mem cb = clCreateBuffer(o.context, CL_MEM_READ_WRITE, 4096, NULL, &error);
    size_t global = 1;
    for (int i = 0; i < samples; ++i) {
      uint64_t s0 = hrx_clock_monotonic_ns();
      clEnqueueNDRangeKernel(o.queue, k, 1, NULL, &global, &global, 0, NULL,
                             NULL);
      clFinish(o.queue);
      lat[i] = hrx_clock_monotonic_ns() - s0;
    }
    percentiles(lat, samples, pocl_empty);
    for (int i = 0; i < samples; ++i) {
      uint64_t s0 = hrx_clock_monotonic_ns();
      clEnqueueCopyBuffer(o.queue, ca, cb, 0, 0, 4096, 0, NULL, NULL);
      clFinish(o.queue);
      lat[i] = hrx_clock_monotonic_ns() - s0;
    }
    percentiles(lat, samples, pocl_copy);
    clReleaseMemObject(ca);
    clReleaseMemObject(cb);
    clReleaseKernel(k);
  }
  ocl_close(&o);
  printf("4 KiB copy + wait    p50 %6.1f us  p95 %6.1f  p99 %6.1f   PoCL p50 "
         "%6.1f p95 %6.1f   hrx/PoCL p95 %.2fx  (anchor 3.7 us p95)\n",
         copy_p[0], copy_p[1], copy_p[2], pocl_copy[0], pocl_copy[1],
         pocl_copy[1] ? copy_p[1] / pocl_copy[1] : 0);
  printf("empty dispatch+wait  p50 %6.1f us  p95 %6.1f  p99 %6.1f   PoCL p50 "
         "%6.1f p95 %6.1f   hrx/PoCL p95 %.2fx\n",
         empty_p[0], empty_p[1], empty_p[2], pocl_empty[0], pocl_empty[1],
         pocl_empty[1] ? empty_p[1] / pocl_empty[1] : 0);
  printf("graph replay         %.3f us/node vs direct dispatch %.3f us/node "
         "(ratio %.2f)\n", replay_node, direct_node, replay_node / direct_node);
  printf("64 MiB upload %.2f GB/s, download %.2f GB/s, readback %.2f GB/s, "
         "memcpy %.2f GB/s (upload/memcpy %.2f, download/memcpy %.2f, "
         "readback/memcpy %.2f)\n",
         big / (up / 1e9) / 1e9, big / (down / 1e9) / 1e9,
         big / (readback / 1e9) / 1e9, big / (mem_up / 1e9) / 1e9,
         (double)mem_up / up, (double)mem_down / down,
         (double)mem_readback / readback);
  dispatch_figures_t host_figures = {(int)cpus, one, all,
                                      {empty_p[0], empty_p[1], empty_p[2]}};
  report_gpu(&host_figures, (int)cpus);
  free(host);
  free(lat);
  hrx_gpu_buffer_release(large);
  hrx_gpu_buffer_release(a);
  hrx_gpu_buffer_release(b);
  hrx_gpu_graph_destroy(graph);
  hrx_gpu_stream_destroy(stream);
  hrx_gpu_kernel_release(empty);
  hrx_gpu_device_release(device);
  return 0;
}
