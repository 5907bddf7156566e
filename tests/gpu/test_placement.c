/* Buffer placement: DEVICE buffers (GPU-cached on gfx1151, no host
 * pointer there) reach the host only through the stream's transfers, which
 * give the same bytes as on HOST_COHERENT buffers. */
#include <stdlib.h>
#include <string.h>

#include "gpu_test_util.h"

static void download(gpu_fixture_t* f, hrx_gpu_view_t view, void* out) {
  hrx_gpu_readback_t* r = NULL;
  assert_ok(hrx_gpu_stream_read(f->stream, view, &r));
  const void* data = NULL;
  uint64_t length = 0;
  assert_ok(hrx_gpu_readback_wait(r, 10 * SECOND, &data, &length));
  assert_int_equal(length, view.length);
  memcpy(out, data, length);
  hrx_gpu_readback_release(r);
}

static void test_placement_reports(void** state) {
  gpu_fixture_t* f = *state;
  bool host = gpu_test_is_host(f->device);
  hrx_gpu_buffer_t *device = NULL, *coherent = NULL;
  assert_ok(hrx_gpu_stream_allocate_placed(
      f->stream, 256, HRX_FABRIC_VISIBILITY_DEVICE, &device));
  assert_ok(hrx_gpu_stream_allocate(f->stream, 256, &coherent));
  assert_int_equal(hrx_gpu_buffer_placement(device),
                   HRX_FABRIC_VISIBILITY_DEVICE);
  assert_int_equal(hrx_gpu_buffer_placement(coherent),
                   HRX_FABRIC_VISIBILITY_HOST_COHERENT);
  hrx_fabric_allocation_profile_t profile =
      HRX_STRUCT_INIT(hrx_fabric_allocation_profile_t);
  assert_ok(hrx_gpu_buffer_visibility(device, &profile));
  assert_int_equal(profile.visibility, HRX_FABRIC_VISIBILITY_DEVICE);
  /* The host device's memory is coherent whatever its placement; on
   * gfx1151 DEVICE memory is GPU-cached and has no host pointer. */
  assert_int_equal(profile.coherent, host);
  assert_int_equal(hrx_gpu_buffer_host_pointer(device) != NULL, host);
  assert_non_null(hrx_gpu_buffer_host_pointer(coherent));
  hrx_gpu_buffer_t* bad = NULL;
  assert_status(hrx_gpu_stream_allocate_placed(
                    f->stream, 256, (hrx_fabric_visibility_t)7, &bad),
                HRX_STATUS_INVALID_ARGUMENT, "unknown visibility");
  assert_null(bad);
  hrx_gpu_buffer_release(device);
  hrx_gpu_buffer_release(coherent);
}

static void test_device_buffers_round_trip(void** state) {
  gpu_fixture_t* f = *state;
  enum { N = 1000 };
  float x[N], y[N], got[N];
  for (int i = 0; i < N; ++i) {
    x[i] = (float)i * 0.5f;
    y[i] = (float)(N - i);
  }
  hrx_gpu_buffer_t *bx = NULL, *by = NULL;
  assert_ok(hrx_gpu_stream_allocate_from_placed(
      f->stream, x, sizeof(x), HRX_FABRIC_VISIBILITY_DEVICE, &bx));
  assert_ok(hrx_gpu_stream_allocate_placed(
      f->stream, sizeof(y), HRX_FABRIC_VISIBILITY_DEVICE, &by));
  hrx_gpu_view_t vx = hrx_gpu_buffer_binding(bx);
  hrx_gpu_view_t vy = hrx_gpu_buffer_binding(by);
  /* Zeroed at allocation, as every placement is. */
  download(f, vy, got);
  for (int i = 0; i < N; ++i) assert_true(got[i] == 0.0f);
  assert_ok(hrx_gpu_stream_upload(f->stream, vy, y, sizeof(y)));
  uint64_t n = N;
  float a = 2.0f;
  uint32_t bits;
  memcpy(&bits, &a, 4);
  hrx_gpu_arg_t args[] = {
      hrx_gpu_arg_scalar(n), hrx_gpu_arg_scalar(bits),
      hrx_gpu_arg_binding(vx, HRX_GPU_ACCESS_READ),
      hrx_gpu_arg_binding(vy, HRX_GPU_ACCESS_READ_WRITE)};
  hrx_gpu_launch_t launch = {&n, 1, args, 4};
  assert_ok(hrx_gpu_stream_dispatch(f->stream, f->saxpy, &launch));
  /* The staged read waits for the kernel. */
  download(f, vy, got);
  for (int i = 0; i < N; ++i) assert_true(got[i] == a * x[i] + y[i]);
  /* Blocking transfers reach DEVICE memory too. */
  hrx_gpu_view_t tail;
  assert_ok(hrx_gpu_view_slice(vy, 40, 16, &tail));
  assert_ok(hrx_gpu_stream_upload_blocking(f->stream, tail,
                                           "0123456789abcdef", 16));
  char text[16];
  assert_ok(hrx_gpu_stream_download_blocking(f->stream, tail, text, 16));
  assert_memory_equal(text, "0123456789abcdef", 16);
  assert_ok(hrx_gpu_stream_download_blocking(f->stream, vx, got, sizeof(x)));
  assert_memory_equal(got, x, sizeof(x));
  /* Copies between placements keep the bytes. */
  hrx_gpu_buffer_t* bc = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, sizeof(x), &bc));
  assert_ok(hrx_gpu_stream_copy(f->stream, vx, hrx_gpu_buffer_binding(bc)));
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
  assert_memory_equal(hrx_gpu_buffer_host_pointer(bc), x, sizeof(x));
  hrx_gpu_buffer_release(bc);
  hrx_gpu_buffer_release(bx);
  hrx_gpu_buffer_release(by);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      GPU_SAXPY_TEST(test_placement_reports),
      GPU_SAXPY_TEST(test_device_buffers_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
