/* Devices, buffers, views, streams, events, budgets, timeouts, faults. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "corpus_kernels.h"
#include "gpu_test_util.h"

static uint32_t f32_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  return bits;
}

/* Allocates |x| and |y| of |n| floats on |f|'s stream and queues fills of
 * |x_value| and |y_value|. */
static void filled_pair(gpu_fixture_t* f, uint64_t n, float x_value,
                        float y_value, hrx_gpu_buffer_t** x,
                        hrx_gpu_buffer_t** y) {
  assert_ok(hrx_gpu_stream_allocate(f->stream, n * 4, x));
  assert_ok(hrx_gpu_stream_allocate(f->stream, n * 4, y));
  assert_ok(hrx_gpu_stream_fill(f->stream, hrx_gpu_buffer_binding(*x),
                                f32_bits(x_value)));
  assert_ok(hrx_gpu_stream_fill(f->stream, hrx_gpu_buffer_binding(*y),
                                f32_bits(y_value)));
}

static hrx_status_t saxpy(gpu_fixture_t* f, hrx_gpu_stream_t* stream,
                          uint64_t n, float a, hrx_gpu_view_t x,
                          hrx_gpu_view_t y) {
  hrx_gpu_arg_t args[] = {
      hrx_gpu_arg_scalar(n), hrx_gpu_arg_scalar(f32_bits(a)),
      hrx_gpu_arg_binding(x, HRX_GPU_ACCESS_READ),
      hrx_gpu_arg_binding(y, HRX_GPU_ACCESS_READ_WRITE)};
  hrx_gpu_launch_t launch = {&n, 1, args, 4};
  return hrx_gpu_stream_dispatch(stream, f->saxpy, &launch);
}

/* saxpy compiled for |device| with its code object claiming |bytes|
 * (< 128) of private memory per work-item: the metadata's
 * .private_segment_fixed_size (a msgpack fixint) and the kernel
 * descriptor's private_segment_fixed_size, which must agree: a kernel
 * claiming exactly |bytes| (saxpy itself never touches scratch) tests the
 * boundary of the queues' private bytes; test_private_memory runs one
 * that uses scratch. */
static hrx_gpu_kernel_t* saxpy_claiming_private(hrx_gpu_device_t* device,
                                                uint8_t bytes) {
  char* path = test_strdup_printf("%s/saxpy.loom", getenv("HRX_LOOM_KERNELS"));
  char* text = test_read_text(path);
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.disable_cache = true;
  hrx_loom_compiler_t* compiler = NULL;
  assert_ok(hrx_loom_compiler_create(
      hrx_gpu_device_properties(device)->profile_target, &options,
      hrx_allocator_system(), &compiler));
  hrx_loom_compile_request_t request = {
      .source = text, .length = strlen(text), .source_name = "saxpy.loom"};
  hrx_loom_artifact_t* artifact = NULL;
  assert_ok(hrx_loom_compile(compiler, &request, NULL, &artifact));
  size_t length = 0;
  const uint8_t* code = hrx_loom_artifact_code(artifact, &length);
  uint8_t* patched = malloc(length);
  assert_non_null(patched);
  memcpy(patched, code, length);
  static const char key[] = ".private_segment_fixed_size";
  uint8_t* at = memmem(patched, length, key, sizeof(key) - 1);
  assert_non_null(at);
  assert_int_equal(at[sizeof(key) - 1], 0); /* fixint 0 */
  at[sizeof(key) - 1] = bytes;
  /* The descriptor: 64-byte aligned, group and private segments 0, then
   * the kernarg size, with WAVEFRONT_SIZE32 and KERNARG_SEGMENT_PTR. */
  hrx_gpu_kernel_t* plain = NULL;
  assert_ok(hrx_gpu_kernel_load(device, code, length, "saxpy", &plain));
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_gpu_kernel_info(plain, &info));
  hrx_gpu_kernel_release(plain);
  size_t found = 0;
  for (size_t o = 0; o + 64 <= length; o += 64) {
    uint32_t words[3];
    memcpy(words, patched + o, sizeof(words));
    uint16_t properties;
    memcpy(&properties, patched + o + 56, 2);
    if (words[0] == info.group_segment_size && words[1] == 0 &&
        words[2] == info.kernarg_size && (properties & 0x408u) == 0x408u) {
      patched[o + 4] = bytes;
      found++;
    }
  }
  assert_int_equal(found, 1);
  hrx_gpu_kernel_t* kernel = NULL;
  assert_ok(hrx_gpu_kernel_load(device, patched, length, "saxpy", &kernel));
  assert_ok(hrx_gpu_kernel_info(kernel, &info));
  assert_int_equal(info.private_segment_size, bytes);
  free(patched);
  hrx_loom_artifact_destroy(artifact);
  hrx_loom_compiler_destroy(compiler);
  free(text);
  free(path);
  return kernel;
}

/* Private memory of the stream queues (aql_queue(maximum_private_bytes)):
 * set before the first stream, the queues are created with that scratch;
 * a kernel needing no more runs (and, prepared, keeps the device and its
 * queues alive), one needing more is refused naming both sizes; later the
 * setting is fixed. The host device serves any amount. */
static void test_device_private_bytes(void** state) {
  (void)state;
  hrx_gpu_device_t* device = gpu_test_device_open();
  bool host = gpu_test_is_host(device);
  assert_int_equal(hrx_gpu_device_maximum_private_bytes(device),
                   host ? HRX_FABRIC_PRIVATE_UNLIMITED : 0);
  assert_status_code(hrx_gpu_device_set_maximum_private_bytes(
                         device, HRX_FABRIC_MAX_PRIVATE_BYTES + 1),
                     HRX_STATUS_OUT_OF_RANGE);
  assert_ok(hrx_gpu_device_set_maximum_private_bytes(device, 32));
  assert_int_equal(hrx_gpu_device_maximum_private_bytes(device),
                   host ? HRX_FABRIC_PRIVATE_UNLIMITED : 32);
  hrx_gpu_stream_t* s = NULL;
  assert_ok(hrx_gpu_stream_create(device, &s));
  hrx_gpu_buffer_t* b = NULL;
  assert_ok(hrx_gpu_stream_allocate(s, 64, &b));
  assert_ok(hrx_gpu_stream_fill(s, hrx_gpu_buffer_binding(b), 9));
  assert_ok(hrx_gpu_stream_synchronize(s, 10 * SECOND));
  assert_int_equal(((uint32_t*)hrx_gpu_buffer_host_pointer(b))[15], 9);
  assert_status(hrx_gpu_device_set_maximum_private_bytes(device, 512),
                HRX_STATUS_FAILED_PRECONDITION, "fixed");
  if (!host) {
    uint64_t n = 16;
    float one = 1.0f;
    uint32_t bits;
    memcpy(&bits, &one, 4);
    hrx_gpu_arg_t args[] = {
        hrx_gpu_arg_scalar(n), hrx_gpu_arg_scalar(bits),
        hrx_gpu_arg_binding(hrx_gpu_buffer_binding(b), HRX_GPU_ACCESS_READ),
        hrx_gpu_arg_binding(hrx_gpu_buffer_binding(b),
                            HRX_GPU_ACCESS_READ_WRITE)};
    hrx_gpu_launch_t launch = {&n, 1, args, 4};
    hrx_gpu_kernel_t* fits = saxpy_claiming_private(device, 32);
    hrx_gpu_prepared_t* prepared = NULL;
    assert_ok(hrx_gpu_prepare_dispatch(device, fits, &launch, &prepared));
    const hrx_gpu_prepared_t* const list[] = {prepared};
    assert_ok(hrx_gpu_stream_enqueue_all(s, list, 1));
    assert_ok(hrx_gpu_stream_synchronize(s, 10 * SECOND));
    hrx_gpu_prepared_destroy(prepared);
    hrx_gpu_kernel_t* over = saxpy_claiming_private(device, 33);
    assert_status(hrx_gpu_stream_dispatch(s, over, &launch),
                  HRX_STATUS_FAILED_PRECONDITION,
                  "kernel 'saxpy' needs 33 private bytes per work-item; the "
                  "device's queues provide 32");
    hrx_gpu_kernel_release(over);
    hrx_gpu_kernel_release(fits);
  }
  hrx_gpu_buffer_release(b);
  hrx_gpu_stream_destroy(s);
  hrx_gpu_device_release(device);
}

/* C reference of corpus_private_kernel for the work-item with seed |s|:
 * the arrays filled in the same permuted order, then reduced. */
static void private_permute_reference(uint32_t s, uint32_t out[4]) {
  uint32_t a[48];
  uint16_t b[40];
  uint8_t c[40];
  for (uint32_t k = 0; k < 48; ++k) a[(7 * k + s) % 48] = s * k + k;
  for (uint32_t k = 0; k < 40; ++k) {
    b[(3 * k + s) % 40] = (uint16_t)(s * k);
    c[(11 * k + s) % 40] = (uint8_t)(s + 5 * k);
  }
  out[0] = out[1] = out[2] = 0;
  for (uint32_t k = 0; k < 48; ++k) out[0] += a[k] * (k + 1);
  for (uint32_t k = 0; k < 40; ++k) {
    out[1] += (uint32_t)(int32_t)(int16_t)b[k] * (k + 1);
    out[2] += c[k] ^ k;
  }
  out[3] = a[3 * s % 48];
}

/* Private memory end to end (buffer.alloca<private>, scratch on
 * gfx1151): with queues of 512 private bytes per work-item the kernel's
 * per-work-item arrays give the C reference's results; on a device whose
 * queues provide one byte less than the kernel needs, the dispatch is
 * refused naming both sizes. */
static void test_private_memory(void** state) {
  (void)state;
  enum { GROUPS = 5, CELLS = GROUPS * 40 };
  hrx_gpu_device_t* device = gpu_test_device_open();
  bool host = gpu_test_is_host(device);
  assert_ok(hrx_gpu_device_set_maximum_private_bytes(device, 512));
  hrx_gpu_kernel_t* kernel = gpu_test_kernel(
      device, NULL, corpus_private_kernel, "private_permute");
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_gpu_kernel_info(kernel, &info));
  /* 312 bytes of arrays, and on gfx1151 what LLVM adds to its frame. */
  assert_in_range(info.private_segment_size, 312, 512);
  hrx_gpu_stream_t* s = NULL;
  assert_ok(hrx_gpu_stream_create(device, &s));
  hrx_gpu_buffer_t *in = NULL, *out = NULL;
  assert_ok(hrx_gpu_stream_allocate(s, CELLS * 4, &in));
  assert_ok(hrx_gpu_stream_allocate(s, CELLS * 16, &out));
  uint32_t* seeds = hrx_gpu_buffer_host_pointer(in);
  for (uint32_t i = 0; i < CELLS; ++i) {
    seeds[i] = (i * 2654435761u >> 7) & 0xFFFFu;
  }
  assert_ok(hrx_gpu_stream_fill(s, hrx_gpu_buffer_binding(out), 0));
  uint64_t groups = GROUPS;
  hrx_gpu_arg_t args[] = {
      hrx_gpu_arg_scalar(groups),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(in), HRX_GPU_ACCESS_READ),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(out), HRX_GPU_ACCESS_WRITE)};
  hrx_gpu_launch_t launch = {&groups, 1, args, 3};
  assert_ok(hrx_gpu_stream_dispatch(s, kernel, &launch));
  assert_ok(hrx_gpu_stream_synchronize(s, 60 * SECOND));
  const uint32_t* y = hrx_gpu_buffer_host_pointer(out);
  for (uint32_t i = 0; i < CELLS; ++i) {
    uint32_t want[4];
    private_permute_reference(seeds[i], want);
    for (int j = 0; j < 4; ++j) {
      if (y[4 * i + j] != want[j]) {
        fail_msg("work-item %u, result %d: 0x%x, want 0x%x", i, j,
                 y[4 * i + j], want[j]);
      }
    }
  }
  hrx_gpu_buffer_release(in);
  hrx_gpu_buffer_release(out);
  hrx_gpu_stream_destroy(s);
  hrx_gpu_kernel_release(kernel);
  hrx_gpu_device_release(device);
  if (host) return;
  device = gpu_test_device_open();
  uint64_t short_by_one = info.private_segment_size - 1;
  assert_ok(hrx_gpu_device_set_maximum_private_bytes(device, short_by_one));
  kernel = gpu_test_kernel(device, NULL, corpus_private_kernel,
                           "private_permute");
  assert_ok(hrx_gpu_stream_create(device, &s));
  assert_ok(hrx_gpu_stream_allocate(s, CELLS * 4, &in));
  assert_ok(hrx_gpu_stream_allocate(s, CELLS * 16, &out));
  args[1] = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(in),
                                HRX_GPU_ACCESS_READ);
  args[2] = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(out),
                                HRX_GPU_ACCESS_WRITE);
  char* expected = test_strdup_printf(
      "kernel 'private_permute' needs %u private bytes per work-item; the "
      "device's queues provide %llu", info.private_segment_size,
      (unsigned long long)short_by_one);
  assert_status(hrx_gpu_stream_dispatch(s, kernel, &launch),
                HRX_STATUS_FAILED_PRECONDITION, expected);
  free(expected);
  hrx_gpu_buffer_release(in);
  hrx_gpu_buffer_release(out);
  hrx_gpu_stream_destroy(s);
  hrx_gpu_kernel_release(kernel);
  hrx_gpu_device_release(device);
}

static void test_device_queue_count(void** state) {
  (void)state;
  hrx_gpu_device_t* device = NULL;
  assert_status_code(hrx_gpu_device_open(7, hrx_allocator_system(), &device),
                     HRX_STATUS_NOT_FOUND);
  assert_ok(hrx_gpu_device_open(0, hrx_allocator_system(), &device));
  assert_int_equal(hrx_gpu_device_stream_queue_count(device), 8);
  assert_status_code(hrx_gpu_device_set_stream_queue_count(device, 0),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_ok(hrx_gpu_device_set_stream_queue_count(device, 2));
  /* Opening the index again shares the live device and its setting. */
  hrx_gpu_device_t* again = NULL;
  assert_ok(hrx_gpu_device_open(0, hrx_allocator_system(), &again));
  assert_ptr_equal(again, device);
  assert_int_equal(hrx_gpu_device_stream_queue_count(again), 2);
  hrx_gpu_stream_t* s = NULL;
  assert_ok(hrx_gpu_stream_create(device, &s));
  assert_status_code(hrx_gpu_device_set_stream_queue_count(again, 4),
                     HRX_STATUS_FAILED_PRECONDITION);
  assert_int_equal(hrx_gpu_device_stream_queue_count(device), 2);
  /* A buffer of one handle serves a stream of the other. */
  hrx_gpu_stream_t* other = NULL;
  assert_ok(hrx_gpu_stream_create(again, &other));
  hrx_gpu_buffer_t* b = NULL;
  assert_ok(hrx_gpu_stream_allocate(s, 64, &b));
  assert_ok(hrx_gpu_stream_fill(other, hrx_gpu_buffer_binding(b), 7));
  assert_ok(hrx_gpu_stream_synchronize(other, 10 * SECOND));
  assert_int_equal(((uint32_t*)hrx_gpu_buffer_host_pointer(b))[15], 7);
  hrx_gpu_buffer_release(b);
  hrx_gpu_stream_destroy(other);
  hrx_gpu_stream_destroy(s);
  hrx_gpu_device_release(again);
  hrx_gpu_device_release(device);
  /* Once the last reference is gone, the next open starts afresh. */
  assert_ok(hrx_gpu_device_open(0, hrx_allocator_system(), &device));
  assert_int_equal(hrx_gpu_device_stream_queue_count(device), 8);
  hrx_gpu_device_release(device);
}

typedef struct opener_t {
  bool keep;                 /* hold the first device to the end */
  hrx_gpu_device_t* device;  /* that device */
  int opened;
} opener_t;

static void* open_and_release(void* arg) {
  opener_t* o = arg;
  for (int i = 0; i < 100; ++i) {
    hrx_gpu_device_t* d = NULL;
    if (hrx_gpu_device_open(0, hrx_allocator_system(), &d) != HRX_OK) break;
    o->opened++;
    if (o->keep && !o->device) {
      o->device = d;
    } else {
      hrx_gpu_device_release(d);
    }
  }
  return NULL;
}

/* Opens racing the release of the last reference: every open yields a
 * live device, and threads holding one at the same time hold the same. */
static void test_concurrent_opens_share_one_device(void** state) {
  (void)state;
  opener_t openers[3] = {{false, NULL, 0}, {true, NULL, 0}, {true, NULL, 0}};
  pthread_t threads[3];
  for (int t = 0; t < 3; ++t) {
    assert_int_equal(pthread_create(&threads[t], NULL, open_and_release,
                                    &openers[t]), 0);
  }
  for (int t = 0; t < 3; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < 3; ++t) assert_int_equal(openers[t].opened, 100);
  assert_ptr_equal(openers[1].device, openers[2].device);
  hrx_gpu_device_t* now = NULL;
  assert_ok(hrx_gpu_device_open(0, hrx_allocator_system(), &now));
  assert_ptr_equal(now, openers[1].device);
  hrx_gpu_device_release(now);
  hrx_gpu_device_release(openers[1].device);
  hrx_gpu_device_release(openers[2].device);
}

static void test_buffers_and_views(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_buffer_t* b = NULL;
  assert_status_code(hrx_gpu_stream_allocate(f->stream, 0, &b),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_gpu_stream_allocate_from(f->stream, "x", 0, &b),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_ok(hrx_gpu_stream_allocate_from(f->stream, "hello", 6, &b));
  assert_string_equal(hrx_gpu_buffer_host_pointer(b), "hello");
  hrx_gpu_view_t whole = hrx_gpu_buffer_binding(b);
  assert_int_equal(whole.length, 6);
  hrx_gpu_view_t part;
  assert_ok(hrx_gpu_view_slice(whole, 1, 4, &part));
  assert_int_equal(part.offset, 1);
  hrx_gpu_view_t inner;
  assert_ok(hrx_gpu_view_slice(part, 1, 3, &inner));
  assert_int_equal(inner.offset, 2);
  assert_status_code(hrx_gpu_view_slice(part, 2, 3, &inner),
                     HRX_STATUS_OUT_OF_RANGE);
  assert_status_code(hrx_gpu_view_slice(whole, UINT64_MAX, 2, &inner),
                     HRX_STATUS_OUT_OF_RANGE);
  assert_status_code(hrx_gpu_view_slice((hrx_gpu_view_t){0}, 0, 0, &inner),
                     HRX_STATUS_INVALID_ARGUMENT);
  /* A GPU exports a dma-buf for another device; host memory is no
   * dma-buf, which no other driver could import. */
  int fd = 0;
  if (gpu_test_is_host(f->device)) {
    assert_status(hrx_gpu_buffer_export_dmabuf(b, &fd),
                  HRX_STATUS_UNAVAILABLE, "cannot export");
    assert_int_equal(fd, -1);
  } else {
    assert_ok(hrx_gpu_buffer_export_dmabuf(b, &fd));
    assert_true(fd >= 0);
    close(fd);
  }
  hrx_gpu_buffer_release(b);
}

static void test_ordering_within_a_stream(void** state) {
  gpu_fixture_t* f = *state;
  const uint64_t n = 1000;
  hrx_gpu_buffer_t *x = NULL, *y = NULL;
  /* fill -> fill -> saxpy -> copy -> saxpy -> read, all queued. */
  filled_pair(f, n, 1.0f, 3.0f, &x, &y);
  hrx_gpu_view_t xv = hrx_gpu_buffer_binding(x), yv = hrx_gpu_buffer_binding(y);
  assert_ok(saxpy(f, f->stream, n, 2.0f, xv, yv)); /* y = 5 */
  assert_ok(hrx_gpu_stream_copy(f->stream, yv, xv)); /* x = 5 */
  assert_ok(saxpy(f, f->stream, n, 2.0f, xv, yv)); /* y = 15 */
  /* Release wrappers while the work is queued: it retains them. */
  hrx_gpu_readback_t* read = NULL;
  assert_ok(hrx_gpu_stream_read(f->stream, yv, &read));
  hrx_gpu_buffer_release(x);
  hrx_gpu_buffer_release(y);
  const void* data = NULL;
  uint64_t length = 0;
  assert_ok(hrx_gpu_readback_wait(read, 10 * SECOND, &data, &length));
  assert_int_equal(length, n * 4);
  for (uint64_t i = 0; i < n; ++i) assert_true(((const float*)data)[i] == 15.0f);
  hrx_gpu_readback_release(read);
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
}

/* saxpy over n elements with a grid sized for |workload| elements (the
 * launch's workload and the kernel's bound are separate inputs). */
static hrx_status_t saxpy_grid(gpu_fixture_t* f, uint64_t n, uint64_t workload,
                               hrx_gpu_view_t x, hrx_gpu_view_t y) {
  hrx_gpu_arg_t args[] = {
      hrx_gpu_arg_scalar(n), hrx_gpu_arg_scalar(f32_bits(2.0f)),
      hrx_gpu_arg_binding(x, HRX_GPU_ACCESS_READ),
      hrx_gpu_arg_binding(y, HRX_GPU_ACCESS_READ_WRITE)};
  hrx_gpu_launch_t launch = {&workload, 1, args, 4};
  return hrx_gpu_stream_dispatch(f->stream, f->saxpy, &launch);
}

/* One stream, one kernel, a workload that changes between dispatches:
 * each dispatch gets the grid of its own workload (the stream remembers
 * the last launch it evaluated and must notice the change). */
static void test_workload_changes_between_dispatches(void** state) {
  gpu_fixture_t* f = *state;
  const uint64_t n = 1000, one_group = 256; /* saxpy's workgroup size */
  hrx_gpu_buffer_t *x = NULL, *y = NULL;
  filled_pair(f, n, 1.0f, 0.0f, &x, &y);
  hrx_gpu_view_t xv = hrx_gpu_buffer_binding(x), yv = hrx_gpu_buffer_binding(y);
  assert_ok(saxpy_grid(f, n, n, xv, yv));  /* y = 2 */
  assert_ok(saxpy_grid(f, n, 10, xv, yv)); /* one group: y[:256] = 4 */
  assert_ok(saxpy_grid(f, n, n, xv, yv));  /* y[:256] = 6, else 4 */
  float got[1000];
  assert_ok(hrx_gpu_stream_download_blocking(f->stream, yv, got, sizeof(got)));
  for (uint64_t i = 0; i < n; ++i) {
    assert_true(got[i] == (i < one_group ? 6.0f : 4.0f));
  }
  hrx_gpu_buffer_release(x);
  hrx_gpu_buffer_release(y);
}

static void test_upload_and_read(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_buffer_t* b = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 64, &b));
  hrx_gpu_view_t v = hrx_gpu_buffer_binding(b), half;
  assert_ok(hrx_gpu_view_slice(v, 32, 32, &half));
  char data[32];
  for (int i = 0; i < 32; ++i) data[i] = (char)(i + 1);
  assert_ok(hrx_gpu_stream_upload(f->stream, half, data, 32));
  memset(data, 0, sizeof(data)); /* staging owns its copy */
  assert_status_code(hrx_gpu_stream_upload(f->stream, half, data, 31),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_gpu_readback_t* r = NULL;
  assert_ok(hrx_gpu_stream_read(f->stream, v, &r));
  const uint8_t* got = NULL;
  uint64_t length = 0;
  assert_ok(hrx_gpu_readback_wait(r, 10 * SECOND, (const void**)&got, &length));
  for (int i = 0; i < 32; ++i) {
    assert_int_equal(got[i], 0);
    assert_int_equal(got[32 + i], i + 1);
  }
  hrx_gpu_readback_release(r);
  assert_ok(hrx_gpu_stream_upload_blocking(f->stream, half, "0123456789abcdef"
                                           "0123456789abcdef", 32));
  assert_int_equal(((char*)hrx_gpu_buffer_host_pointer(b))[33], '1');
  hrx_gpu_buffer_release(b);
}

static void test_command_errors(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_buffer_t *a = NULL, *b = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 16, &a));
  assert_ok(hrx_gpu_stream_allocate(f->stream, 12, &b));
  hrx_gpu_view_t av = hrx_gpu_buffer_binding(a), bv = hrx_gpu_buffer_binding(b);
  assert_status_code(hrx_gpu_stream_copy(f->stream, av, bv),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_gpu_view_t odd;
  assert_ok(hrx_gpu_view_slice(av, 0, 6, &odd));
  assert_status_code(hrx_gpu_stream_fill(f->stream, odd, 0),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_gpu_view_t bogus = {a, 8, 16};
  assert_status_code(hrx_gpu_stream_fill(f->stream, bogus, 0),
                     HRX_STATUS_OUT_OF_RANGE);
  /* Wrong argument count and kinds. */
  uint64_t n = 4;
  hrx_gpu_arg_t args[] = {hrx_gpu_arg_scalar(4), hrx_gpu_arg_scalar(0),
                          hrx_gpu_arg_binding(av, HRX_GPU_ACCESS_READ),
                          hrx_gpu_arg_scalar(0)};
  hrx_gpu_launch_t launch = {&n, 1, args, 3};
  assert_status_code(hrx_gpu_stream_dispatch(f->stream, f->saxpy, &launch),
                     HRX_STATUS_INVALID_ARGUMENT);
  launch.arg_count = 4;
  assert_status_code(hrx_gpu_stream_dispatch(f->stream, f->saxpy, &launch),
                     HRX_STATUS_INVALID_ARGUMENT);
  /* A zero-size launch is rejected before anything is queued. */
  args[3] = hrx_gpu_arg_binding(bv, HRX_GPU_ACCESS_READ_WRITE);
  uint64_t zero = 0;
  launch.workload = &zero;
  assert_status_code(hrx_gpu_stream_dispatch(f->stream, f->saxpy, &launch),
                     HRX_STATUS_INVALID_ARGUMENT);
  /* An access mode that is none of the three. */
  launch.workload = &n;
  args[2].access = (hrx_gpu_access_t)7;
  assert_status(hrx_gpu_stream_dispatch(f->stream, f->saxpy, &launch),
                HRX_STATUS_INVALID_ARGUMENT, "declares access 7");
  /* A view of another device's buffer (where there are two devices). */
  hrx_gpu_device_t* other = gpu_test_other_device_open();
  if (other) {
    hrx_gpu_stream_t* other_stream = NULL;
    assert_ok(hrx_gpu_stream_create(other, &other_stream));
    assert_status_code(hrx_gpu_stream_fill(other_stream, av, 0),
                       HRX_STATUS_INVALID_ARGUMENT);
    hrx_gpu_stream_destroy(other_stream);
    hrx_gpu_device_release(other);
  }
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
  hrx_gpu_buffer_release(a);
  hrx_gpu_buffer_release(b);
}

/* A prepared dispatch and copy queued many times, alone and in lists, on
 * two streams, after the caller dropped its buffers; prepared commands
 * check at preparation and refuse another device's stream. */
static void test_prepared_commands(void** state) {
  gpu_fixture_t* f = *state;
  const uint64_t n = 256;
  hrx_gpu_buffer_t *x = NULL, *y = NULL;
  filled_pair(f, n, 1.0f, 0.0f, &x, &y);
  hrx_gpu_view_t xv = hrx_gpu_buffer_binding(x), yv = hrx_gpu_buffer_binding(y);
  hrx_gpu_arg_t args[] = {
      hrx_gpu_arg_scalar(n), hrx_gpu_arg_scalar(f32_bits(2.0f)),
      hrx_gpu_arg_binding(xv, HRX_GPU_ACCESS_READ),
      hrx_gpu_arg_binding(yv, HRX_GPU_ACCESS_READ_WRITE)};
  hrx_gpu_launch_t launch = {&n, 1, args, 4};
  hrx_gpu_prepared_t *step = NULL, *copy = NULL;
  assert_ok(hrx_gpu_prepare_dispatch(f->device, f->saxpy, &launch, &step));
  assert_ok(hrx_gpu_prepare_copy(f->device, yv, xv, &copy));
  hrx_gpu_view_t y_head = {y, 0, 4};
  hrx_gpu_buffer_release(x); /* the prepared commands retain them */
  hrx_gpu_buffer_release(y);
  /* y = 2x + y three times with x = 1: y = 6; then x = y on another
   * stream ordered by an event. */
  /* A list with a bad entry queues nothing. */
  const hrx_gpu_prepared_t* bad_list[] = {step, NULL};
  assert_status_code(hrx_gpu_stream_enqueue_all(f->stream, bad_list, 2),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_ok(hrx_gpu_stream_enqueue(f->stream, step));
  const hrx_gpu_prepared_t* twice[] = {step, step};
  assert_ok(hrx_gpu_stream_enqueue_all(f->stream, twice, 2));
  hrx_gpu_event_t* done = NULL;
  assert_ok(hrx_gpu_stream_record_event(f->stream, &done));
  hrx_gpu_stream_t* second = NULL;
  assert_ok(hrx_gpu_stream_create(f->device, &second));
  assert_ok(hrx_gpu_stream_wait_event(second, done));
  assert_ok(hrx_gpu_stream_enqueue(second, copy));
  assert_ok(hrx_gpu_stream_enqueue(second, step)); /* y = 2*6 + 6 */
  hrx_gpu_readback_t* read = NULL;
  assert_ok(hrx_gpu_stream_read(second, y_head, &read));
  const void* data = NULL;
  uint64_t length = 0;
  assert_ok(hrx_gpu_readback_wait(read, 10 * SECOND, &data, &length));
  assert_true(*(const float*)data == 18.0f);
  hrx_gpu_readback_release(read);
  hrx_gpu_event_release(done);
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
  assert_ok(hrx_gpu_stream_synchronize(second, 10 * SECOND));
  hrx_gpu_stream_destroy(second);

  /* More commands than a queue holds go out in chunks: 2000 copies. */
  enum { MANY = 2000 };
  const hrx_gpu_prepared_t** many = calloc(MANY, sizeof(*many));
  assert_non_null(many);
  for (int i = 0; i < MANY; ++i) many[i] = copy;
  assert_ok(hrx_gpu_stream_enqueue_all(f->stream, many, MANY));
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
  free(many);

  hrx_gpu_device_t* other = gpu_test_other_device_open();
  if (other) {
    hrx_gpu_stream_t* other_stream = NULL;
    assert_ok(hrx_gpu_stream_create(other, &other_stream));
    assert_status_code(hrx_gpu_stream_enqueue(other_stream, step),
                       HRX_STATUS_INVALID_ARGUMENT);
    hrx_gpu_stream_destroy(other_stream);
    hrx_gpu_device_release(other);
  }
  hrx_gpu_prepared_destroy(step);
  hrx_gpu_prepared_destroy(copy);
  launch.arg_count = 3;
  hrx_gpu_prepared_t* bad = NULL;
  assert_status_code(hrx_gpu_prepare_dispatch(f->device, f->saxpy, &launch,
                                              &bad),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_null(bad);
}

/* The host device copies overlapping ranges of one buffer as memmove
 * does; a GPU refuses them before anything is queued. */
static void test_overlapping_copy(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_buffer_t* b = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 64, &b));
  uint8_t bytes[64];
  for (int i = 0; i < 64; ++i) bytes[i] = (uint8_t)i;
  assert_ok(hrx_gpu_stream_upload(f->stream, hrx_gpu_buffer_binding(b), bytes,
                                  64));
  hrx_gpu_view_t low = {b, 0, 48}, high = {b, 16, 48};
  hrx_status_t status = hrx_gpu_stream_copy(f->stream, low, high);
  if (!gpu_test_is_host(f->device)) {
    assert_non_null(strstr(hrx_status_message(status), "overlapping"));
    assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  } else {
    assert_ok(status);
    hrx_gpu_readback_t* read = NULL;
    assert_ok(hrx_gpu_stream_read(f->stream, hrx_gpu_buffer_binding(b), &read));
    const void* data = NULL;
    uint64_t length = 0;
    assert_ok(hrx_gpu_readback_wait(read, 10 * SECOND, &data, &length));
    uint8_t want[64];
    memcpy(want, bytes, 64);
    memmove(want + 16, want, 48);
    assert_memory_equal(data, want, 64);
    hrx_gpu_readback_release(read);
  }
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
  hrx_gpu_buffer_release(b);
}

static void test_events_order_streams(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_stream_t* consumer = NULL;
  assert_ok(hrx_gpu_stream_create(f->device, &consumer));
  /* The KFD model interprets gfx1151 code: a smaller grid keeps it within
   * the wait below under valgrind. */
  const uint64_t n = gpu_test_is_host(f->device) ? 1 << 16 : 1 << 12;
  hrx_gpu_buffer_t *x = NULL, *y = NULL, *out = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, n * 4, &x));
  assert_ok(hrx_gpu_stream_allocate(f->stream, n * 4, &y));
  assert_ok(hrx_gpu_stream_allocate(f->stream, n * 4, &out));
  hrx_gpu_view_t xv = hrx_gpu_buffer_binding(x), yv = hrx_gpu_buffer_binding(y);
  float two = 2.0f;
  uint32_t bits;
  memcpy(&bits, &two, 4);
  assert_ok(hrx_gpu_stream_fill(f->stream, xv, bits));
  for (int i = 0; i < 4; ++i) assert_ok(saxpy(f, f->stream, n, 1.0f, xv, yv));
  hrx_gpu_event_t* done = NULL;
  assert_ok(hrx_gpu_stream_record_event(f->stream, &done));
  assert_ok(hrx_gpu_stream_wait_event(consumer, done));
  assert_ok(hrx_gpu_stream_copy(consumer, yv, hrx_gpu_buffer_binding(out)));
  assert_ok(hrx_gpu_stream_synchronize(consumer, 10 * SECOND));
  assert_true(hrx_gpu_event_is_complete(done));
  assert_ok(hrx_gpu_event_wait(done, 0));
  const float* o = hrx_gpu_buffer_host_pointer(out);
  for (uint64_t i = 0; i < n; i += 97) assert_true(o[i] == 8.0f);
  hrx_gpu_event_release(done);
  hrx_gpu_buffer_release(x);
  hrx_gpu_buffer_release(y);
  hrx_gpu_buffer_release(out);
  assert_status_code(hrx_gpu_stream_wait_event(consumer, NULL),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_gpu_stream_destroy(consumer);
}

/* Queues a kernel that spins until the returned flag word is set to 1,
 * so that work queued after it waits: the stream is busy. */
typedef struct blocker_t {
  hrx_gpu_kernel_t* kernel;
  hrx_gpu_buffer_t *flag, *payload, *out;
} blocker_t;

static void block_stream(gpu_fixture_t* f, blocker_t* b) {
  b->kernel = gpu_test_kernel(f->device, "ring_drain.loom", NULL, "ring_drain");
  assert_ok(hrx_gpu_stream_allocate(f->stream, 4, &b->flag));
  assert_ok(hrx_gpu_stream_allocate(f->stream, 8 * 4, &b->payload));
  assert_ok(hrx_gpu_stream_allocate(f->stream, 8 * 4, &b->out));
  hrx_gpu_arg_t args[] = {
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(b->flag),
                          HRX_GPU_ACCESS_READ_WRITE),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(b->payload),
                          HRX_GPU_ACCESS_READ),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(b->out),
                          HRX_GPU_ACCESS_WRITE),
      hrx_gpu_arg_scalar(1), hrx_gpu_arg_scalar(4)};
  hrx_gpu_launch_t launch = {NULL, 0, args, 5};
  assert_ok(hrx_gpu_stream_dispatch(f->stream, b->kernel, &launch));
}

static void unblock_stream(gpu_fixture_t* f, blocker_t* b) {
  __atomic_store_n((int32_t*)hrx_gpu_buffer_host_pointer(b->flag), 1,
                   __ATOMIC_RELEASE);
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
  hrx_gpu_buffer_release(b->flag);
  hrx_gpu_buffer_release(b->payload);
  hrx_gpu_buffer_release(b->out);
  hrx_gpu_kernel_release(b->kernel);
}

static void test_budget(void** state) {
  gpu_fixture_t* f = *state;
  hrx_budget_t* budget = NULL;
  assert_ok(hrx_budget_create(1000, hrx_allocator_system(), &budget));
  hrx_gpu_stream_set_memory_budget(f->stream, budget);
  hrx_gpu_buffer_t *a = NULL, *b = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 600, &a));
  assert_int_equal(hrx_budget_live_bytes(budget), 600);
  assert_status_code(hrx_gpu_stream_allocate(f->stream, 600, &b),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_null(b);
  assert_ok(hrx_gpu_stream_allocate(f->stream, 300, &b));
  char data[300] = {0};
  /* Nothing queued: the upload goes straight into the buffer. */
  assert_ok(hrx_gpu_stream_upload(f->stream, hrx_gpu_buffer_binding(b), data,
                                  300));
  assert_int_equal(hrx_budget_live_bytes(budget), 900);
  /* Behind queued work it needs 300 bytes of staging, which count too. */
  hrx_gpu_stream_set_memory_budget(f->stream, NULL);
  blocker_t blocker;
  block_stream(f, &blocker);
  hrx_gpu_stream_set_memory_budget(f->stream, budget);
  assert_status_code(hrx_gpu_stream_upload(f->stream,
                                           hrx_gpu_buffer_binding(b), data,
                                           300),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  hrx_gpu_buffer_release(a);
  assert_ok(hrx_gpu_stream_upload(f->stream, hrx_gpu_buffer_binding(b), data,
                                  300));
  assert_int_equal(hrx_budget_live_bytes(budget), 600);
  unblock_stream(f, &blocker);
  assert_int_equal(hrx_budget_live_bytes(budget), 300);
  hrx_gpu_buffer_release(b);
  assert_int_equal(hrx_budget_live_bytes(budget), 0);
  assert_int_equal(hrx_budget_peak_bytes(budget), 900);
  hrx_gpu_stream_set_memory_budget(f->stream, NULL);
  hrx_budget_release(budget);
}

/* Uploads and reads in stream order whether they go through staging
 * (work is queued) or straight to the buffer (none is). */
static void test_direct_and_staged_transfers(void** state) {
  gpu_fixture_t* f = *state;
  enum { N = 4096 };
  hrx_gpu_buffer_t* b = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, N, &b));
  hrx_gpu_view_t v = hrx_gpu_buffer_binding(b);
  uint8_t* memory = hrx_gpu_buffer_host_pointer(b);
  uint8_t ones[N], twos[N], got[N];
  memset(ones, 1, N);
  memset(twos, 2, N);
  /* Idle: the bytes are in the buffer on return. */
  assert_ok(hrx_gpu_stream_upload(f->stream, v, ones, N));
  assert_memory_equal(memory, ones, N);
  /* Busy: the write waits its turn, and a read queued before it sees the
   * old bytes, one queued after it the new. */
  blocker_t blocker;
  block_stream(f, &blocker);
  hrx_gpu_readback_t *before = NULL, *after = NULL;
  assert_ok(hrx_gpu_stream_read(f->stream, v, &before));
  assert_ok(hrx_gpu_stream_upload(f->stream, v, twos, N));
  memset(twos, 9, N); /* staging owns its copy */
  assert_memory_equal(memory, ones, N);
  assert_ok(hrx_gpu_stream_read(f->stream, v, &after));
  unblock_stream(f, &blocker);
  const void* data = NULL;
  uint64_t length = 0;
  assert_ok(hrx_gpu_readback_wait(before, 10 * SECOND, &data, &length));
  assert_int_equal(length, N);
  assert_memory_equal(data, ones, N);
  memset(twos, 2, N);
  assert_ok(hrx_gpu_readback_wait(after, 10 * SECOND, &data, &length));
  assert_int_equal(length, N);
  assert_memory_equal(data, twos, N);
  /* An idle read is a snapshot: later writes do not show through. */
  hrx_gpu_readback_t* snapshot = NULL;
  assert_ok(hrx_gpu_stream_read(f->stream, v, &snapshot));
  assert_ok(hrx_gpu_stream_upload(f->stream, v, ones, N));
  assert_ok(hrx_gpu_readback_wait(snapshot, 10 * SECOND, &data, &length));
  assert_memory_equal(data, twos, N);
  hrx_gpu_readback_release(snapshot);
  hrx_gpu_readback_release(before);
  hrx_gpu_readback_release(after);
  /* A blocking download waits for queued work and copies once. */
  assert_ok(hrx_gpu_stream_fill(f->stream, v, 0x05050505u));
  assert_ok(hrx_gpu_stream_download_blocking(f->stream, v, got, N));
  for (int i = 0; i < N; ++i) assert_int_equal(got[i], 5);
  hrx_gpu_view_t tail;
  assert_ok(hrx_gpu_view_slice(v, N - 16, 16, &tail));
  assert_ok(hrx_gpu_stream_download_blocking(f->stream, tail, got, 16));
  assert_status(hrx_gpu_stream_download_blocking(f->stream, tail, got, 15),
                HRX_STATUS_INVALID_ARGUMENT, "lengths must match");
  assert_status(hrx_gpu_stream_download_blocking(f->stream, tail, NULL, 16),
                HRX_STATUS_INVALID_ARGUMENT, "lengths must match");
  hrx_gpu_buffer_release(b);
}

static void test_timeout_keeps_work_alive(void** state) {
  gpu_fixture_t* f = *state;
  /* ring_drain spins until the flag holds the expected value. */
  hrx_gpu_kernel_t* drain =
      gpu_test_kernel(f->device, "ring_drain.loom", NULL, "ring_drain");
  hrx_gpu_buffer_t *flag = NULL, *payload = NULL, *out = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 4, &flag));
  assert_ok(hrx_gpu_stream_allocate(f->stream, 8 * 4, &payload));
  assert_ok(hrx_gpu_stream_allocate(f->stream, 8 * 4, &out));
  ((int64_t*)hrx_gpu_buffer_host_pointer(payload))[3] = 77;
  hrx_gpu_arg_t args[] = {
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(flag), HRX_GPU_ACCESS_READ_WRITE),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(payload), HRX_GPU_ACCESS_READ),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(out), HRX_GPU_ACCESS_WRITE),
      hrx_gpu_arg_scalar(1), hrx_gpu_arg_scalar(4)};
  hrx_gpu_launch_t launch = {NULL, 0, args, 5};
  assert_ok(hrx_gpu_stream_dispatch(f->stream, drain, &launch));
  int32_t* flag_word = hrx_gpu_buffer_host_pointer(flag);
  /* The work cannot finish yet: the wait times out and keeps it alive. */
  hrx_gpu_buffer_release(out);
  out = NULL;
  assert_status_code(hrx_gpu_stream_synchronize(f->stream, 20000000),
                     HRX_STATUS_DEADLINE_EXCEEDED);
  __atomic_store_n(flag_word, 1, __ATOMIC_RELEASE);
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
  assert_int_equal(*flag_word, 0); /* the kernel released the flag */
  hrx_gpu_buffer_release(flag);
  hrx_gpu_buffer_release(payload);
  hrx_gpu_kernel_release(drain);
}

/* A GPU maps memory by the page, so a store just past a small buffer is
 * not a fault there: this one lands a gigabyte past it, in address space
 * the device reserved but never mapped. */
static const char* const overflow_far =
    "kernel.def export(\"overflow\") @overflow() {\n"
    "  %one = index.constant 1 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%one, %one, %one) : index\n"
    "} launch(%out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %v = buffer.view %out[%o] : buffer -> view<268435457xi32>\n"
    "  %x = scalar.constant 1 : i32\n"
    "  view.store %x, %v[268435456] : i32, view<268435457xi32>\n"
    "  kernel.return\n"
    "}\n";

/* The kernel "overflow", which stores past its 16-byte buffer: just past
 * it on the host device, which checks every access; overflow_far on a
 * GPU. */
static hrx_gpu_kernel_t* overflow_kernel(hrx_gpu_device_t* device) {
  return gpu_test_kernel(device, NULL,
                         gpu_test_is_host(device) ? corpus_store_at_7_kernel
                                                  : overflow_far,
                         "overflow");
}

/* Queues |overflow| on |stream| with |small| (16 bytes) as its buffer. */
static hrx_status_t dispatch_overflow(hrx_gpu_stream_t* stream,
                                      hrx_gpu_kernel_t* overflow,
                                      hrx_gpu_buffer_t* small) {
  hrx_gpu_arg_t arg = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(small),
                                          HRX_GPU_ACCESS_WRITE);
  hrx_gpu_launch_t launch = {NULL, 0, &arg, 1};
  return hrx_gpu_stream_dispatch(stream, overflow, &launch);
}

static void test_fault_fails_only_its_stream(void** state) {
  gpu_fixture_t* f = *state;
  bool host = gpu_test_is_host(f->device);
  hrx_gpu_kernel_t* bad = overflow_kernel(f->device);
  hrx_gpu_stream_t* broken = NULL;
  assert_ok(hrx_gpu_stream_create(f->device, &broken));
  hrx_gpu_buffer_t* small = NULL;
  assert_ok(hrx_gpu_stream_allocate(broken, 16, &small));
  assert_ok(dispatch_overflow(broken, bad, small));
  hrx_status_t status = hrx_gpu_stream_synchronize(broken, 10 * SECOND);
  assert_non_null(strstr(hrx_status_message(status), "out-of-bounds"));
  if (host) {
    assert_non_null(strstr(hrx_status_message(status), "offset 28"));
  }
  assert_status_code(status, HRX_STATUS_ABORTED);
  assert_status_code(hrx_gpu_stream_fill(broken, hrx_gpu_buffer_binding(small),
                                         0),
                     HRX_STATUS_ABORTED);
  /* The device and other streams carry on. */
  hrx_gpu_buffer_t *x = NULL, *y = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 16, &x));
  assert_ok(hrx_gpu_stream_allocate(f->stream, 16, &y));
  assert_ok(saxpy(f, f->stream, 4, 1.0f, hrx_gpu_buffer_binding(x),
                  hrx_gpu_buffer_binding(y)));
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
  hrx_gpu_buffer_release(x);
  hrx_gpu_buffer_release(y);
  hrx_gpu_buffer_release(small);
  hrx_gpu_stream_destroy(broken);
  hrx_gpu_kernel_release(bad);
}

/* A stream that only queues, never waiting on itself, still notices its
 * fault within 16 commands (it reads its timeline every 16, not on every
 * call), and refuses from then on. */
static void test_fault_seen_while_queuing(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_kernel_t* bad = overflow_kernel(f->device);
  hrx_gpu_stream_t* s = NULL;
  assert_ok(hrx_gpu_stream_create(f->device, &s));
  hrx_gpu_buffer_t* small = NULL;
  assert_ok(hrx_gpu_stream_allocate(s, 16, &small));
  assert_ok(dispatch_overflow(s, bad, small));
  hrx_gpu_event_t* after = NULL;
  assert_ok(hrx_gpu_stream_record_event(s, &after));
  /* The event's wait is not the stream's: the stream has not looked. */
  assert_status_code(hrx_gpu_event_wait(after, 10 * SECOND),
                     HRX_STATUS_ABORTED);
  int accepted = 0;
  hrx_status_t status = HRX_OK;
  while (status == HRX_OK && accepted <= 16) {
    status = hrx_gpu_stream_fill(s, hrx_gpu_buffer_binding(small), 0);
    if (status == HRX_OK) accepted++;
  }
  assert_status(status, HRX_STATUS_ABORTED, "stream failed");
  assert_true(accepted <= 16);
  assert_status_code(hrx_gpu_stream_fill(s, hrx_gpu_buffer_binding(small), 0),
                     HRX_STATUS_ABORTED);
  assert_status_code(hrx_gpu_stream_synchronize(s, 10 * SECOND),
                     HRX_STATUS_ABORTED);
  hrx_gpu_event_release(after);
  hrx_gpu_buffer_release(small);
  hrx_gpu_stream_destroy(s);
  hrx_gpu_kernel_release(bad);
}

/* A faulted stream recovers: the work queued behind the fault never ran
 * (its fill left the buffer as it was), an event recorded behind it
 * still completes, so another stream waiting on it goes on, and reports
 * the fault; the recovered stream then runs new work correctly. On a GPU
 * the fault stopped the stream's queue, which recovery restarts. */
static void test_recover_after_fault(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_kernel_t* bad = overflow_kernel(f->device);
  hrx_gpu_stream_t* s = NULL;
  assert_ok(hrx_gpu_stream_create(f->device, &s));
  hrx_gpu_buffer_t *small = NULL, *x = NULL, *y = NULL;
  assert_ok(hrx_gpu_stream_allocate(s, 16, &small));
  assert_ok(hrx_gpu_stream_allocate(s, 64, &x));
  assert_ok(hrx_gpu_stream_allocate(s, 64, &y));
  /* A gate holds the stream's work until all of it is queued: ring_drain
   * on another stream spins until the host sets its flag. */
  hrx_gpu_kernel_t* drain =
      gpu_test_kernel(f->device, "ring_drain.loom", NULL, "ring_drain");
  hrx_gpu_stream_t* gate = NULL;
  assert_ok(hrx_gpu_stream_create(f->device, &gate));
  hrx_gpu_buffer_t *flag = NULL, *payload = NULL, *copied = NULL;
  assert_ok(hrx_gpu_stream_allocate(gate, 4, &flag));
  assert_ok(hrx_gpu_stream_allocate(gate, 8, &payload));
  assert_ok(hrx_gpu_stream_allocate(gate, 8, &copied));
  hrx_gpu_arg_t drain_args[] = {
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(flag),
                          HRX_GPU_ACCESS_READ_WRITE),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(payload),
                          HRX_GPU_ACCESS_READ),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(copied),
                          HRX_GPU_ACCESS_WRITE),
      hrx_gpu_arg_scalar(1), hrx_gpu_arg_scalar(1)};
  hrx_gpu_launch_t drain_launch = {NULL, 0, drain_args, 5};
  int32_t* flag_word = hrx_gpu_buffer_host_pointer(flag);
  for (int round = 0; round < 2; ++round) {
    assert_ok(hrx_gpu_stream_dispatch(gate, drain, &drain_launch));
    hrx_gpu_event_t* open = NULL;
    assert_ok(hrx_gpu_stream_record_event(gate, &open));
    assert_ok(hrx_gpu_stream_wait_event(s, open));
    hrx_gpu_event_release(open);
    assert_ok(hrx_gpu_stream_fill(s, hrx_gpu_buffer_binding(x), 0x11111111u));
    assert_ok(dispatch_overflow(s, bad, small));
    /* Behind the fault: must never run. */
    assert_ok(hrx_gpu_stream_fill(s, hrx_gpu_buffer_binding(x), 0x22222222u));
    hrx_gpu_event_t* behind = NULL;
    assert_ok(hrx_gpu_stream_record_event(s, &behind));
    __atomic_store_n(flag_word, 1, __ATOMIC_RELEASE);
    assert_ok(hrx_gpu_stream_synchronize(gate, 10 * SECOND));
    /* Another stream waiting on that event is not held up forever. */
    assert_ok(hrx_gpu_stream_wait_event(f->stream, behind));
    assert_ok(hrx_gpu_stream_fill(f->stream, hrx_gpu_buffer_binding(y),
                                  0x33333333u));
    assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
    assert_status_code(hrx_gpu_stream_synchronize(s, 10 * SECOND),
                       HRX_STATUS_ABORTED);
    hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
    assert_ok(hrx_gpu_stream_recover(s, &fault));
    assert_int_equal(fault.kind, HRX_FABRIC_FAULT_OUT_OF_BOUNDS);
    assert_string_equal(fault.kernel, "overflow");
    assert_status(hrx_gpu_event_wait(behind, 10 * SECOND),
                  HRX_STATUS_ABORTED, "in kernel 'overflow'");
    hrx_fabric_fault_t reported = HRX_STRUCT_INIT(hrx_fabric_fault_t);
    assert_ok(hrx_gpu_event_fault(behind, &reported));
    assert_int_equal(reported.kind, HRX_FABRIC_FAULT_OUT_OF_BOUNDS);
    assert_string_equal(reported.kernel, "overflow");
    hrx_gpu_event_release(behind);
    const uint32_t* xs = hrx_gpu_buffer_host_pointer(x);
    const uint32_t* ys = hrx_gpu_buffer_host_pointer(y);
    for (int i = 0; i < 16; ++i) {
      assert_int_equal(xs[i], 0x11111111u);
      assert_int_equal(ys[i], 0x33333333u);
    }
    /* New work runs, with correct bytes: y = 2 * x + y over 16 floats. */
    float ones[16], threes[16], got[16];
    for (int i = 0; i < 16; ++i) {
      ones[i] = 1.0f + (float)i;
      threes[i] = 3.0f;
    }
    assert_ok(hrx_gpu_stream_upload(s, hrx_gpu_buffer_binding(x), ones, 64));
    assert_ok(hrx_gpu_stream_upload(s, hrx_gpu_buffer_binding(y), threes, 64));
    assert_ok(saxpy(f, s, 16, 2.0f, hrx_gpu_buffer_binding(x),
                    hrx_gpu_buffer_binding(y)));
    hrx_gpu_event_t* after = NULL;
    assert_ok(hrx_gpu_stream_record_event(s, &after));
    assert_ok(hrx_gpu_stream_download_blocking(s, hrx_gpu_buffer_binding(y),
                                               got, 64));
    for (int i = 0; i < 16; ++i) assert_true(got[i] == 2.0f * ones[i] + 3.0f);
    assert_ok(hrx_gpu_event_wait(after, 10 * SECOND));
    assert_ok(hrx_gpu_event_fault(after, &reported));
    assert_int_equal(reported.kind, HRX_FABRIC_FAULT_NONE);
    hrx_gpu_event_release(after);
    /* A healthy stream has nothing to recover from. */
    assert_ok(hrx_gpu_stream_recover(s, &fault));
    assert_int_equal(fault.kind, HRX_FABRIC_FAULT_NONE);
  }
  assert_ok(hrx_gpu_stream_recover(s, NULL));
  assert_status_code(hrx_gpu_stream_recover(NULL, NULL),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_gpu_buffer_release(flag);
  hrx_gpu_buffer_release(payload);
  hrx_gpu_buffer_release(copied);
  hrx_gpu_stream_destroy(gate);
  hrx_gpu_kernel_release(drain);
  hrx_gpu_buffer_release(small);
  hrx_gpu_buffer_release(x);
  hrx_gpu_buffer_release(y);
  hrx_gpu_stream_destroy(s);
  hrx_gpu_kernel_release(bad);
}

static uint64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Queues an endless dispatch, a copy and a readback after it. */
static void queue_endless(gpu_fixture_t* f, hrx_gpu_stream_t* stream,
                          hrx_gpu_kernel_t* kernel, hrx_gpu_buffer_t* data,
                          hrx_gpu_readback_t** out_read) {
  hrx_gpu_arg_t arg = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(data),
                                          HRX_GPU_ACCESS_READ_WRITE);
  hrx_gpu_launch_t launch = {NULL, 0, &arg, 1};
  (void)f;
  assert_ok(hrx_gpu_stream_dispatch(stream, kernel, &launch));
  hrx_gpu_view_t head = {data, 0, 4}, tail = {data, 4, 4};
  assert_ok(hrx_gpu_stream_copy(stream, head, tail));
  assert_ok(hrx_gpu_stream_read(stream, head, out_read));
}

/* A kernel that never ends: a timed-out synchronize leaves it running;
 * cancel stops it at a loop back-edge, skips the work after it and fails
 * the stream with a report saying where; the stream's buffers are left
 * as they were and the device carries on. */
static void test_cancel_ends_endless_kernel(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_kernel_t* kernel = gpu_test_spin_kernel(f->device);
  hrx_gpu_buffer_t* data = NULL;
  int32_t values[2] = {0, 1};
  assert_ok(hrx_gpu_stream_allocate_from(f->stream, values, 8, &data));
  hrx_gpu_readback_t* read = NULL;
  queue_endless(f, f->stream, kernel, data, &read);
  hrx_gpu_event_t* after = NULL;
  assert_ok(hrx_gpu_stream_record_event(f->stream, &after));
  assert_status_code(hrx_gpu_stream_synchronize(f->stream, 20000000),
                     HRX_STATUS_DEADLINE_EXCEEDED);
  uint64_t start = now_ms();
  hrx_gpu_stream_cancel(f->stream);
  assert_true(now_ms() - start < 5000);
  hrx_status_t status = hrx_gpu_stream_synchronize(f->stream, 10 * SECOND);
  assert_status(status, HRX_STATUS_ABORTED, "cancelled in kernel 'spin'");
  assert_status_code(hrx_gpu_stream_fill(f->stream,
                                         hrx_gpu_buffer_binding(data), 0),
                     HRX_STATUS_ABORTED);
  const void* bytes = NULL;
  uint64_t length = 0;
  assert_status_code(hrx_gpu_readback_wait(read, 10 * SECOND, &bytes,
                                           &length),
                     HRX_STATUS_ABORTED);
  assert_status_code(hrx_gpu_event_wait(after, 10 * SECOND),
                     HRX_STATUS_ABORTED);
  /* The copy after the kernel was skipped. */
  const int32_t* now = hrx_gpu_buffer_host_pointer(data);
  assert_int_equal(now[0], 0);
  assert_int_equal(now[1], 1);
  hrx_gpu_readback_release(read);
  hrx_gpu_event_release(after);
  /* Other streams still run, the same kernel included. */
  hrx_gpu_stream_t* other = NULL;
  assert_ok(hrx_gpu_stream_create(f->device, &other));
  int32_t ends[2] = {5, 5};
  hrx_gpu_buffer_t* finite = NULL;
  assert_ok(hrx_gpu_stream_allocate_from(other, ends, 8, &finite));
  hrx_gpu_arg_t arg = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(finite),
                                          HRX_GPU_ACCESS_READ_WRITE);
  hrx_gpu_launch_t launch = {NULL, 0, &arg, 1};
  assert_ok(hrx_gpu_stream_dispatch(other, kernel, &launch));
  assert_ok(hrx_gpu_stream_synchronize(other, 10 * SECOND));
  hrx_gpu_stream_cancel(other); /* nothing left: no effect */
  assert_ok(hrx_gpu_stream_synchronize(other, 10 * SECOND));
  hrx_gpu_buffer_release(finite);
  hrx_gpu_stream_destroy(other);
  hrx_gpu_buffer_release(data);
  hrx_gpu_kernel_release(kernel);
}

/* Destroying a stream after a synchronize timed out on endless work
 * cancels it instead of blocking forever; waits that merely polled
 * presume nothing stuck. */
static void test_destroy_after_timeout_does_not_hang(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_kernel_t* kernel = gpu_test_spin_kernel(f->device);
  hrx_gpu_stream_t* stuck = NULL;
  assert_ok(hrx_gpu_stream_create(f->device, &stuck));
  hrx_gpu_buffer_t* data = NULL;
  int32_t values[2] = {0, 1};
  assert_ok(hrx_gpu_stream_allocate_from(stuck, values, 8, &data));
  hrx_gpu_readback_t* read = NULL;
  queue_endless(f, stuck, kernel, data, &read);
  assert_status_code(hrx_gpu_stream_synchronize(stuck, 0),
                     HRX_STATUS_DEADLINE_EXCEEDED);
  assert_status_code(hrx_gpu_stream_synchronize(stuck, 20000000),
                     HRX_STATUS_DEADLINE_EXCEEDED);
  /* Everything is released before the stream: the queued work holds it. */
  hrx_gpu_buffer_release(data);
  hrx_gpu_kernel_release(kernel);
  uint64_t start = now_ms();
  hrx_gpu_stream_destroy(stuck);
  hrx_gpu_readback_release(read);
  assert_true(now_ms() - start < 5000);
}

static void test_many_submissions_wrap_the_ring(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_buffer_t* b = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 64, &b));
  for (uint32_t i = 0; i < 5000; ++i) {
    assert_ok(hrx_gpu_stream_fill(f->stream, hrx_gpu_buffer_binding(b), i));
  }
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 30 * SECOND));
  assert_int_equal(((uint32_t*)hrx_gpu_buffer_host_pointer(b))[15], 4999);
  hrx_gpu_buffer_release(b);
}

/* Batched commands run, in order, once announced; a batch longer than the
 * ring and waits inside a batch do not deadlock. */
static void test_batches(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_buffer_t* b = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 64, &b));
  hrx_gpu_stream_begin_batch(f->stream);
  hrx_gpu_stream_begin_batch(f->stream); /* nested */
  for (uint32_t i = 0; i < 5000; ++i) {
    assert_ok(hrx_gpu_stream_fill(f->stream, hrx_gpu_buffer_binding(b), i));
  }
  hrx_gpu_stream_end_batch(f->stream);
  hrx_gpu_event_t* event = NULL;
  assert_ok(hrx_gpu_stream_record_event(f->stream, &event));
  /* Still inside the outer batch: a stream wait announces the work. */
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 30 * SECOND));
  assert_ok(hrx_gpu_event_wait(event, 30 * SECOND));
  assert_int_equal(((uint32_t*)hrx_gpu_buffer_host_pointer(b))[0], 4999);
  assert_ok(hrx_gpu_stream_fill(f->stream, hrx_gpu_buffer_binding(b), 7));
  hrx_gpu_event_release(event);
  assert_ok(hrx_gpu_stream_record_event(f->stream, &event));
  hrx_gpu_stream_end_batch(f->stream);
  hrx_gpu_stream_end_batch(f->stream); /* unmatched: ignored */
  assert_ok(hrx_gpu_event_wait(event, 30 * SECOND));
  assert_int_equal(((uint32_t*)hrx_gpu_buffer_host_pointer(b))[15], 7);
  hrx_gpu_event_release(event);
  hrx_gpu_buffer_release(b);
}

/* The KFD model's watchdog (HRX_KFD_MODEL_WATCHDOG_MS, read when the
 * device opens) ends an endless kernel with a fault naming it; a bad
 * value fails the open naming the variable. Model only. */
/* Runs without the fixture: the model reads its settings when the device
 * is created, and opens share a live device. */
static void test_model_watchdog(void** state) {
  (void)state;
  if (gpu_test_device_index() == 0) skip();
  hrx_gpu_device_t* device = NULL;
  setenv("HRX_KFD_MODEL_WATCHDOG_MS", "soon", 1);
  hrx_status_t status = hrx_gpu_device_open(gpu_test_device_index(),
                                            hrx_allocator_system(), &device);
  assert_non_null(strstr(hrx_status_message(status),
                         "HRX_KFD_MODEL_WATCHDOG_MS"));
  assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  setenv("HRX_KFD_MODEL_WATCHDOG_MS", "200", 1);
  device = gpu_test_device_open();
  unsetenv("HRX_KFD_MODEL_WATCHDOG_MS");
  hrx_gpu_kernel_t* kernel = gpu_test_spin_kernel(device);
  hrx_gpu_stream_t* stream = NULL;
  assert_ok(hrx_gpu_stream_create(device, &stream));
  hrx_gpu_buffer_t* data = NULL;
  int32_t values[2] = {0, 1};
  assert_ok(hrx_gpu_stream_allocate_from(stream, values, 8, &data));
  hrx_gpu_arg_t arg = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(data),
                                          HRX_GPU_ACCESS_READ_WRITE);
  hrx_gpu_launch_t launch = {NULL, 0, &arg, 1};
  assert_ok(hrx_gpu_stream_dispatch(stream, kernel, &launch));
  status = hrx_gpu_stream_synchronize(stream, 60 * SECOND);
  assert_non_null(strstr(hrx_status_message(status), "watchdog"));
  assert_non_null(strstr(hrx_status_message(status), "'spin'"));
  assert_status_code(status, HRX_STATUS_ABORTED);
  hrx_gpu_buffer_release(data);
  hrx_gpu_stream_destroy(stream);
  hrx_gpu_kernel_release(kernel);
  hrx_gpu_device_release(device);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_private_bytes),
      cmocka_unit_test(test_private_memory),
      cmocka_unit_test(test_device_queue_count),
      cmocka_unit_test(test_concurrent_opens_share_one_device),
      GPU_SAXPY_TEST(test_buffers_and_views),
      GPU_SAXPY_TEST(test_ordering_within_a_stream),
      GPU_SAXPY_TEST(test_upload_and_read),
      GPU_SAXPY_TEST(test_workload_changes_between_dispatches),
      GPU_SAXPY_TEST(test_command_errors),
      GPU_SAXPY_TEST(test_overlapping_copy),
      cmocka_unit_test(test_model_watchdog),
      GPU_SAXPY_TEST(test_events_order_streams),
      GPU_SAXPY_TEST(test_budget),
      GPU_SAXPY_TEST(test_direct_and_staged_transfers),
      GPU_SAXPY_TEST(test_timeout_keeps_work_alive),
      GPU_SAXPY_TEST(test_fault_fails_only_its_stream),
      GPU_SAXPY_TEST(test_fault_seen_while_queuing),
      GPU_SAXPY_TEST(test_recover_after_fault),
      GPU_SAXPY_TEST(test_batches),
      GPU_SAXPY_TEST(test_prepared_commands),
      GPU_SAXPY_TEST(test_many_submissions_wrap_the_ring),
      GPU_SAXPY_TEST(test_cancel_ends_endless_kernel),
      GPU_SAXPY_TEST(test_destroy_after_timeout_does_not_hang),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
