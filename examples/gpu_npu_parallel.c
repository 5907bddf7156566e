/* examples/gpu_npu_parallel: the GPU and the NPU working at once.
 *
 *   GPU: y = a*x + y over a vector, ROUNDS times (a Loom saxpy kernel)
 *   NPU: BATCH invocations of an entry of a prebuilt .xdna image
 *
 * Both halves run one after the other, then side by side (the NPU batch is
 * submitted, the GPU work queued, and both awaited), and the two times are
 * printed. Each half is checked against a CPU reference: the vector
 * against fmaf on the CPU; the NPU's bound buffers against what the CPU
 * expects the entry to leave there. For the NOOP program (one transaction
 * record that does nothing) that is what was written before: the NPU must
 * not touch them.
 *
 * Without an NPU (no /dev/accel node, or none HRX admits) or without an
 * image, it says so and runs the GPU half alone.
 *
 * usage: gpu_npu_parallel [--device=N] [SAXPY.loom [IMAGE.xdna [BATCH]]]
 *        (defaults: device 0, examples/saxpy.loom, no image, 64)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/gpu.h"
#include "hrx/loom.h"
#include "hrx/npu.h"

#define ELEMENTS (1 << 14)
#define ROUNDS 8
#define ALPHA 0.75f
#define WAIT_NS (60ull * 1000 * 1000 * 1000)
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
  hrx_gpu_device_t* device;
  hrx_gpu_kernel_t* kernel;
  hrx_gpu_stream_t* stream;
  hrx_gpu_buffer_t* x;
  hrx_gpu_buffer_t* y;
  float xs[ELEMENTS];
  float ys[ELEMENTS];
  float out[ELEMENTS];
} gpu_half_t;

typedef struct npu_half_t {
  hrx_npu_device_t* device;
  hrx_npu_image_t* image;
  hrx_npu_program_t* program;
  hrx_npu_binding_t bindings[MAX_BINDINGS];
  size_t binding_count;
  uint64_t batch;
} npu_half_t;

/* The saxpy export of |path|, compiled for the device's profile. */
static int gpu_load(gpu_half_t* g, const char* path) {
  void* source = NULL;
  size_t length = 0;
  TRY("read", hrx_file_read_all(hrx_allocator_system(), path, 1 << 20,
                                &source, &length));
  hrx_loom_compiler_t* compiler = NULL;
  hrx_status_t status = hrx_loom_compiler_create(
      hrx_gpu_device_properties(g->device)->profile_target, NULL,
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
    status = hrx_gpu_kernel_load(g->device, code, code_length, "saxpy",
                                 &g->kernel);
  }
  hrx_loom_artifact_destroy(artifact);
  hrx_loom_compiler_destroy(compiler);
  free(source);
  return status == HRX_OK ? 0 : fail("compile saxpy", status);
}

static int gpu_open(gpu_half_t* g, size_t index, const char* path) {
  TRY("open GPU", hrx_gpu_device_open(index, hrx_allocator_system(),
                                      &g->device));
  printf("gpu: device %zu, %s (profile %s)\n", index,
         hrx_gpu_device_properties(g->device)->name,
         hrx_gpu_device_properties(g->device)->profile_target);
  if (gpu_load(g, path)) return 1;
  TRY("stream", hrx_gpu_stream_create(g->device, &g->stream));
  for (size_t i = 0; i < ELEMENTS; ++i) {
    g->xs[i] = (float)(i % 97) * 0.25f;
    g->ys[i] = 1.0f - (float)(i % 13);
  }
  TRY("allocate", hrx_gpu_stream_allocate_from(g->stream, g->xs,
                                               sizeof(g->xs), &g->x));
  TRY("allocate", hrx_gpu_stream_allocate(g->stream, sizeof(g->ys), &g->y));
  return 0;
}

/* Queues y = ys, then ROUNDS saxpy dispatches; does not wait. */
static int gpu_queue(gpu_half_t* g) {
  TRY("upload", hrx_gpu_stream_upload(g->stream, hrx_gpu_buffer_binding(g->y),
                                      g->ys, sizeof(g->ys)));
  uint32_t alpha_bits;
  float alpha = ALPHA;
  memcpy(&alpha_bits, &alpha, sizeof(alpha_bits));
  uint64_t n = ELEMENTS;
  hrx_gpu_arg_t args[4] = {
      hrx_gpu_arg_scalar(ELEMENTS), hrx_gpu_arg_scalar(alpha_bits),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(g->x), HRX_GPU_ACCESS_READ),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(g->y),
                          HRX_GPU_ACCESS_READ_WRITE)};
  hrx_gpu_launch_t launch = {&n, 1, args, 4};
  for (int r = 0; r < ROUNDS; ++r) {
    TRY("dispatch", hrx_gpu_stream_dispatch(g->stream, g->kernel, &launch));
  }
  return 0;
}

/* Waits for the GPU and compares y with fmaf on the CPU, bit for bit. */
static int gpu_finish(gpu_half_t* g) {
  TRY("download", hrx_gpu_stream_download_blocking(
                      g->stream, hrx_gpu_buffer_binding(g->y), g->out,
                      sizeof(g->out)));
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

static void gpu_close(gpu_half_t* g) {
  hrx_gpu_buffer_release(g->x);
  hrx_gpu_buffer_release(g->y);
  hrx_gpu_stream_destroy(g->stream);
  hrx_gpu_kernel_release(g->kernel);
  hrx_gpu_device_release(g->device);
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

/* Opens the NPU and prepares the image's first entry with a patterned
 * buffer of each binding's smallest size. */
static int npu_open(npu_half_t* h, const char* path) {
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
  for (size_t i = 0; i < entry.binding_count; ++i) {
    hrx_npu_image_binding_t b;
    hrx_npu_image_binding(h->image, 0, i, &b);
    uint64_t size = b.size_min ? b.size_min : 1;
    TRY("NPU buffer", hrx_npu_buffer_allocate(h->device, size,
                                              &h->bindings[i].buffer));
    h->bindings[i].size = size;
    ++h->binding_count;
    uint8_t* host = hrx_npu_buffer_host(h->bindings[i].buffer);
    for (uint64_t k = 0; k < size; ++k) host[k] = (uint8_t)(k * 7 + i);
    hrx_npu_buffer_flush(h->bindings[i].buffer, 0, size);
  }
  TRY("prepare", hrx_npu_program_prepare(h->device, h->image, entry.name,
                                         h->bindings, h->binding_count,
                                         &h->program));
  printf("npu: %s, entry '%s' of %s, batches of %llu\n",
         hrx_npu_device_candidate(h->device)->node, entry.name, path,
         (unsigned long long)h->batch);
  return 0;
}

/* Submits the batch (at most HRX_NPU_PROGRAM_SLOTS pending at once). */
static int npu_submit(npu_half_t* h, hrx_npu_invocation_t* out_last) {
  for (uint64_t i = 0; i < h->batch; ++i) {
    if (hrx_npu_program_pending(h->program) == HRX_NPU_PROGRAM_SLOTS) {
      TRY("NPU wait", hrx_npu_program_wait(h->program, *out_last, WAIT_NS));
    }
    TRY("NPU dispatch", hrx_npu_program_dispatch(h->program, out_last));
  }
  return 0;
}

/* Waits for the batch and checks the NOOP reference: the bound buffers
 * still hold what the CPU wrote. */
static int npu_finish(npu_half_t* h, hrx_npu_invocation_t last) {
  TRY("NPU wait", hrx_npu_program_wait(h->program, last, WAIT_NS));
  for (size_t i = 0; i < h->binding_count; ++i) {
    hrx_npu_buffer_t* buffer = h->bindings[i].buffer;
    hrx_npu_buffer_invalidate(buffer, 0, h->bindings[i].size);
    const uint8_t* host = hrx_npu_buffer_host(buffer);
    for (uint64_t k = 0; k < h->bindings[i].size; ++k) {
      if (host[k] != (uint8_t)(k * 7 + i)) {
        fprintf(stderr, "gpu_npu_parallel: binding %zu byte %llu changed\n",
                i, (unsigned long long)k);
        return 1;
      }
    }
  }
  return 0;
}

static void npu_close(npu_half_t* h) {
  hrx_npu_program_destroy(h->program);
  for (size_t i = 0; i < h->binding_count; ++i) {
    hrx_npu_buffer_release(h->bindings[i].buffer);
  }
  hrx_npu_device_destroy(h->device);
  hrx_npu_image_destroy(h->image);
}

/* One run of the halves, in turn or side by side; its time in ns. */
static int run(gpu_half_t* g, npu_half_t* h, bool together,
               uint64_t* out_ns) {
  uint64_t start = hrx_clock_monotonic_ns();
  hrx_npu_invocation_t last = {0};
  if (together) {
    if (h->program && npu_submit(h, &last)) return 1;
    if (gpu_queue(g)) return 1;
    if (h->program && npu_finish(h, last)) return 1;
    if (gpu_finish(g)) return 1;
  } else {
    if (gpu_queue(g) || gpu_finish(g)) return 1;
    if (h->program && (npu_submit(h, &last) || npu_finish(h, last))) {
      return 1;
    }
  }
  *out_ns = hrx_clock_monotonic_ns() - start;
  return 0;
}

int main(int argc, char** argv) {
  size_t device_index = 0;
  const char* positional[3] = {NULL, NULL, NULL};
  int positional_count = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strncmp(argv[i], "--device=", 9)) {
      device_index = (size_t)strtoul(argv[i] + 9, NULL, 10);
    } else if (positional_count < 3) {
      positional[positional_count++] = argv[i];
    } else {
      fprintf(stderr, "usage: gpu_npu_parallel [--device=N] [SAXPY.loom "
                      "[IMAGE.xdna [BATCH]]]\n");
      return 2;
    }
  }
  const char* saxpy = positional[0] ? positional[0] : "examples/saxpy.loom";
  const char* image = positional[1];
  static npu_half_t npu;
  npu.batch = positional[2] ? strtoull(positional[2], NULL, 10) : 64;
  if (npu.batch == 0) npu.batch = 1;

  static gpu_half_t gpu;
  int rc = gpu_open(&gpu, device_index, saxpy);
  if (rc == 0 && npu_present()) {
    if (image) {
      rc = npu_open(&npu, image);
    } else {
      printf("npu: present, but no IMAGE.xdna was given; running the GPU "
             "half alone\n");
    }
  }
  uint64_t sequential_ns = 0, concurrent_ns = 0;
  if (rc == 0) rc = run(&gpu, &npu, false, &sequential_ns);
  if (rc == 0) rc = run(&gpu, &npu, true, &concurrent_ns);
  if (rc == 0) {
    printf("checked against the CPU: gpu %d rounds over %d floats%s\n",
           ROUNDS, ELEMENTS, npu.program ? ", npu bindings intact" : "");
    printf("one after the other %.3f ms, side by side %.3f ms (%.2fx)\n",
           (double)sequential_ns / 1e6, (double)concurrent_ns / 1e6,
           (double)sequential_ns / (double)(concurrent_ns ? concurrent_ns
                                                          : 1));
  }
  npu_close(&npu);
  gpu_close(&gpu);
  return rc;
}
