/* PM4 user queues of the kfd provider on the modelled gfx1151: packets
 * appended and published with a RELEASE_MEM fence reach memory; hundreds
 * of publications wrap the ring (packets that would straddle the end move
 * to its start after a NOP) with every fence arriving in order; a
 * WAIT_REG_MEM on a word nobody wrote times out naming the queue, keeps
 * the queue from being destroyed (BUSY), and completes once the host
 * writes the word. */
#include <stdlib.h>
#include <string.h>

#include "hrx/fabric.h"
#include "kfd_user_queue.h"
#include "pm4_packets.h"
#include "test_support.h"

#define GFX1151 HRX_KFD_FIXTURES "/gfx1151"
#define WAIT_NS (UINT64_C(20) * 1000000000u)
#define SHORT_NS (UINT64_C(50) * 1000000u)
#define RING_BYTES 4096u

typedef struct env_t {
  hrx_fabric_device_t* device;
  hrx_kfd_user_queue_t* queue;
  hrx_fabric_memory_t target;
} env_t;

static int setup(void** state) {
  env_t* e = calloc(1, sizeof(*e));
  assert_non_null(e);
  assert_int_equal(setenv("HRX_KFD_MODEL", GFX1151, 1), 0);
  assert_ok(hrx_fabric_kfd_device_create(0, hrx_allocator_system(),
                                         &e->device));
  assert_ok(hrx_kfd_user_queue_create(hrx_kfd_device_cast(e->device),
                                      HRX_KFD_USER_PM4, RING_BYTES,
                                      &e->queue));
  assert_ok(hrx_fabric_memory_allocate(e->device, 4096,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                       &e->target));
  memset(e->target.host_pointer, 0, 4096);
  *state = e;
  return 0;
}

static int teardown(void** state) {
  env_t* e = *state;
  if (e->queue) assert_ok(hrx_kfd_user_queue_destroy(e->queue));
  hrx_fabric_memory_free(e->device, &e->target);
  hrx_fabric_device_release(e->device);
  free(e);
  return 0;
}

/* Appends a WRITE_DATA of |count| dwords of |values| at |offset| bytes into
 * the target. */
static void append_write(env_t* e, uint64_t offset, const uint32_t* values,
                         uint32_t count) {
  uint32_t dwords[16];
  size_t length = 0;
  assert_ok(hrx_pm4_write_data(e->target.device_address + offset, values,
                               count, dwords, 16, &length));
  assert_ok(hrx_kfd_user_queue_append(e->queue, dwords, (uint32_t)length));
}

static void test_write_data_and_fence(void** state) {
  env_t* e = *state;
  const uint32_t values[] = {0x12345678u, 0x9abcdef0u};
  append_write(e, 8, values, 2);
  uint64_t fence = 0;
  assert_ok(hrx_kfd_user_queue_submit(e->queue, &fence));
  assert_ok(hrx_kfd_user_queue_wait(e->queue, fence, WAIT_NS));
  assert_true(hrx_kfd_user_queue_completed(e->queue) >= fence);
  const uint32_t* words = e->target.host_pointer;
  assert_int_equal(words[2], values[0]);
  assert_int_equal(words[3], values[1]);
  assert_int_equal(words[1], 0);
  assert_int_equal(words[4], 0);
}

/* 400 publications of one to three dwords each, several times around a
 * 1024-dword ring; each fence arrives and each word ends up written. */
static void test_ring_wraps(void** state) {
  env_t* e = *state;
  uint64_t last = 0;
  for (uint32_t i = 0; i < 400; ++i) {
    uint32_t values[3] = {i, i + 1, i + 2};
    append_write(e, 4 * (uint64_t)(i % 64) * 3, values, 1 + i % 3);
    uint64_t fence = 0;
    assert_ok(hrx_kfd_user_queue_submit(e->queue, &fence));
    assert_true(fence > last);
    last = fence;
    assert_ok(hrx_kfd_user_queue_wait(e->queue, fence, WAIT_NS));
  }
  const uint32_t* words = e->target.host_pointer;
  /* Slot s was last written by the largest i < 400 with i % 64 == s. */
  for (uint32_t s = 0; s < 64; ++s) {
    assert_int_equal(words[3 * s], 399 - (399 - s) % 64);
  }
}

static void test_wait_that_never_arrives(void** state) {
  env_t* e = *state;
  hrx_pm4_wait_t wait = {.address = e->target.device_address,
                         .reference = 1,
                         .mask = 0xFFFFFFFFu,
                         .compare = HRX_PM4_COMPARE_EQUAL,
                         .poll_interval = 16};
  uint32_t dwords[16];
  size_t length = 0;
  assert_ok(hrx_pm4_wait_reg_mem(&wait, dwords, 16, &length));
  assert_ok(hrx_kfd_user_queue_append(e->queue, dwords, (uint32_t)length));
  const uint32_t after = 7;
  append_write(e, 4, &after, 1);
  uint64_t fence = 0;
  assert_ok(hrx_kfd_user_queue_submit(e->queue, &fence));
  assert_status(hrx_kfd_user_queue_wait(e->queue, fence, SHORT_NS),
                HRX_STATUS_DEADLINE_EXCEEDED,
                hrx_kfd_user_queue_name(e->queue));
  assert_ok(hrx_kfd_user_queue_check(e->queue));
  assert_status_code(hrx_kfd_user_queue_destroy(e->queue), HRX_STATUS_BUSY);
  uint32_t* words = e->target.host_pointer;
  assert_int_equal(words[1], 0);
  __atomic_store_n(&words[0], 1, __ATOMIC_RELEASE);
  assert_ok(hrx_kfd_user_queue_wait(e->queue, fence, WAIT_NS));
  assert_int_equal(__atomic_load_n(&words[1], __ATOMIC_ACQUIRE), after);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_write_data_and_fence, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_ring_wraps, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wait_that_never_arrives, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
