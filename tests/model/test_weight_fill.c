/* Weights are written once from the caller's bytes: their memory is
 * allocated uninitialised (never zero-filled first), while plain regions
 * are zeroed. The fabric allocation is intercepted with --wrap to see
 * which kind each region asked for. */
#include <string.h>

#include "model_test_util.h"

hrx_status_t __real_hrx_fabric_memory_allocate_flags(
    hrx_fabric_device_t* device, uint64_t size,
    hrx_fabric_visibility_t visibility, uint32_t flags,
    hrx_fabric_memory_t* out_memory);
hrx_status_t __wrap_hrx_fabric_memory_allocate_flags(
    hrx_fabric_device_t* device, uint64_t size,
    hrx_fabric_visibility_t visibility, uint32_t flags,
    hrx_fabric_memory_t* out_memory);

/* Sizes no other allocation of the test has. */
#define WEIGHT_BYTES 12345u
#define REGION_BYTES 12347u

static int weight_allocations, region_allocations;
static uint32_t weight_flags, region_flags;

hrx_status_t __wrap_hrx_fabric_memory_allocate_flags(
    hrx_fabric_device_t* device, uint64_t size,
    hrx_fabric_visibility_t visibility, uint32_t flags,
    hrx_fabric_memory_t* out_memory) {
  if (size == WEIGHT_BYTES) {
    ++weight_allocations;
    weight_flags = flags;
  } else if (size == REGION_BYTES) {
    ++region_allocations;
    region_flags = flags;
  }
  return __real_hrx_fabric_memory_allocate_flags(device, size, visibility,
                                                 flags, out_memory);
}

static void test_weights_are_not_zero_filled(void** state) {
  (void)state;
  hrx_gpu_device_t* device = gpu_test_device_open();
  hrx_model_session_t* s = NULL;
  assert_ok(hrx_model_session_create(device, NULL, hrx_allocator_system(),
                                     &s));
  static uint8_t bytes[WEIGHT_BYTES];
  for (size_t i = 0; i < sizeof(bytes); ++i) bytes[i] = (uint8_t)(i * 7 + 1);
  hrx_model_region_t weight, region;
  assert_ok(hrx_model_session_weight(s, bytes, sizeof(bytes), &weight));
  assert_ok(hrx_model_session_allocate(s, REGION_BYTES,
                                       HRX_MODEL_PLACEMENT_DEVICE, &region));
  assert_int_equal(weight_allocations, 1);
  assert_int_equal(weight_flags, HRX_FABRIC_MEMORY_UNINITIALIZED);
  assert_int_equal(region_allocations, 1);
  assert_int_equal(region_flags, HRX_FABRIC_MEMORY_ZEROED);
  /* The weight holds the caller's bytes, the region zeros. */
  hrx_model_binding_t reads[] = {{weight, 0, 0, HRX_GPU_ACCESS_READ},
                                  {region, 0, 0, HRX_GPU_ACCESS_READ}};
  const void* data[2] = {NULL, NULL};
  assert_ok(hrx_model_session_read(s, reads, 2, data));
  assert_memory_equal(data[0], bytes, sizeof(bytes));
  const uint8_t* zeros = data[1];
  for (size_t i = 0; i < REGION_BYTES; ++i) assert_int_equal(zeros[i], 0);
  hrx_model_session_destroy(s);
  hrx_gpu_device_release(device);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_weights_are_not_zero_filled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
