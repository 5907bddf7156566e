/* SDMA encoders against the layouts sdma_v6_0_0_pkt_open.h documents,
 * dword for dword; short buffers and out-of-field values are refused
 * without writing. */
#include <string.h>

#include "pm4_packets.h"
#include "sdma_packets.h"
#include "test_support.h"

#define CAPACITY 16u
#define GUARD 0x5A5A5A5Au

/* An encoder's output, with guard dwords after it. */
typedef struct out_t {
  uint32_t dwords[CAPACITY];
  size_t count;
} out_t;

static out_t guarded(void) {
  out_t out = {.count = 0};
  for (size_t i = 0; i < CAPACITY; ++i) out.dwords[i] = GUARD;
  return out;
}

/* |out| holds exactly the dwords listed, and the guard after them. */
#define EXPECT_DWORDS(out, ...)                                      \
  do {                                                               \
    const uint32_t want_[] = {__VA_ARGS__};                          \
    assert_int_equal((out).count, sizeof(want_) / sizeof(want_[0])); \
    assert_memory_equal((out).dwords, want_, sizeof(want_));         \
    assert_int_equal((out).dwords[(out).count], GUARD);              \
  } while (0)

static void test_nop(void** state) {
  (void)state;
  out_t out = guarded();
  assert_ok(hrx_sdma_nop(1, out.dwords, CAPACITY, &out.count));
  EXPECT_DWORDS(out, 0);
  out = guarded();
  assert_ok(hrx_sdma_nop(4, out.dwords, CAPACITY, &out.count));
  EXPECT_DWORDS(out, 0x00030000u, 0, 0, 0);
  assert_status_code(hrx_sdma_nop(0, out.dwords, CAPACITY, &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
}

static void test_copy_linear(void** state) {
  (void)state;
  out_t out = guarded();
  assert_ok(hrx_sdma_copy_linear(0x7F0000005003ull, 0x7F0000004001ull, 300,
                                 out.dwords, CAPACITY, &out.count));
  EXPECT_DWORDS(out, 0x00000001u, 299, 0, 0x00004001u, 0x7F00u, 0x00005003u,
                0x7F00u);
  assert_status_code(
      hrx_sdma_copy_linear(0x1000, 0x2000, 0, out.dwords, CAPACITY, &out.count),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_ok(hrx_sdma_copy_linear(0x1000, 0x2000, 1u << 30, out.dwords, CAPACITY,
                                 &out.count));
  assert_int_equal(out.dwords[1], 0x3FFFFFFFu);
  assert_status_code(hrx_sdma_copy_linear(0x1000, 0x2000, (1u << 30) + 1,
                                          out.dwords, CAPACITY, &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
}

static void test_const_fill(void** state) {
  (void)state;
  out_t out = guarded();
  assert_ok(hrx_sdma_const_fill(0x7F0000006000ull, 0xCAFEF00Du, 256, out.dwords,
                                CAPACITY, &out.count));
  EXPECT_DWORDS(out, 0x8000000Bu, 0x00006000u, 0x7F00u, 0xCAFEF00Du, 255);
  assert_status_code(
      hrx_sdma_const_fill(0x1002, 0, 8, out.dwords, CAPACITY, &out.count),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(
      hrx_sdma_const_fill(0x1000, 0, 6, out.dwords, CAPACITY, &out.count),
      HRX_STATUS_INVALID_ARGUMENT);
}

/* FILLSIZE 0 (header bits [31:30] clear) fills the data's low byte: any
 * alignment, any count up to 2^22. */
static void test_const_fill_bytes(void** state) {
  (void)state;
  out_t out = guarded();
  assert_ok(hrx_sdma_const_fill_bytes(0x7F0000006003ull, 0xA5, 3, out.dwords,
                                      CAPACITY, &out.count));
  EXPECT_DWORDS(out, 0x0000000Bu, 0x00006003u, 0x00007F00u, 0x000000A5u,
                0x00000002u);
  out = guarded();
  assert_ok(hrx_sdma_const_fill_bytes(0x1001, 0x00, 1u << 22, out.dwords,
                                      CAPACITY, &out.count));
  EXPECT_DWORDS(out, 0x0000000Bu, 0x00001001u, 0, 0, 0x003FFFFFu);
  assert_status_code(hrx_sdma_const_fill_bytes(0x1000, 1, 0, out.dwords,
                                               CAPACITY, &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_sdma_const_fill_bytes(0x1000, 1, (1u << 22) + 1,
                                               out.dwords, CAPACITY,
                                               &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
  out = guarded();
  assert_status_code(
      hrx_sdma_const_fill_bytes(0x1000, 1, 4, out.dwords, 4, &out.count),
      HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_int_equal(out.dwords[0], GUARD);
}

static void test_fence_and_poll(void** state) {
  (void)state;
  out_t out = guarded();
  assert_ok(
      hrx_sdma_fence(0x7F0000007004ull, 42, out.dwords, CAPACITY, &out.count));
  EXPECT_DWORDS(out, 0x00000005u, 0x00007004u, 0x7F00u, 42);
  out = guarded();
  assert_ok(hrx_sdma_poll_memory(0x7F0000007008ull, 3, 0xFFu,
                                 HRX_PM4_COMPARE_EQUAL, 10, out.dwords,
                                 CAPACITY, &out.count));
  EXPECT_DWORDS(out, 0xB0000008u, 0x00007008u, 0x7F00u, 3, 0xFFu, 0x0FFF000Au);
  assert_status_code(
      hrx_sdma_fence(0x1001, 0, out.dwords, CAPACITY, &out.count),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_sdma_poll_memory(0x1000, 0, 0, 7, 0, out.dwords,
                                          CAPACITY, &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
}

static void test_gcr(void** state) {
  (void)state;
  out_t out = guarded();
  assert_ok(hrx_sdma_gcr(0x123456780ull, 0x123456800ull, 0x5C3F1u, out.dwords,
                         CAPACITY, &out.count));
  EXPECT_DWORDS(out, 0x00000011u, 0x23456780u, 0xC3F10001u, 0x23456805u, 0x1u);
  assert_status_code(
      hrx_sdma_gcr(0x40, 0x80, 0, out.dwords, CAPACITY, &out.count),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(
      hrx_sdma_gcr(0, 0x80, 1u << 19, out.dwords, CAPACITY, &out.count),
      HRX_STATUS_INVALID_ARGUMENT);
}

static void test_short_buffer(void** state) {
  (void)state;
  out_t out = guarded();
  assert_status_code(
      hrx_sdma_copy_linear(0x1000, 0x2000, 4, out.dwords,
                           HRX_SDMA_COPY_LINEAR_DWORDS - 1, &out.count),
      HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_status_code(hrx_sdma_nop(3, out.dwords, 2, &out.count),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  for (size_t i = 0; i < CAPACITY; ++i) assert_int_equal(out.dwords[i], GUARD);
  assert_int_equal(out.count, 0);
}

/* Indices count bytes; the ring offset wraps them. */
static void test_ring_offset(void** state) {
  (void)state;
  uint64_t offset = 1;
  assert_ok(hrx_sdma_ring_offset(4096 * 3 + 28, 4096, &offset));
  assert_int_equal(offset, 28);
  assert_status_code(hrx_sdma_ring_offset(6, 4096, &offset),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_sdma_ring_offset(8, 3000, &offset),
                     HRX_STATUS_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nop),         cmocka_unit_test(test_copy_linear),
      cmocka_unit_test(test_const_fill),
      cmocka_unit_test(test_const_fill_bytes),
      cmocka_unit_test(test_fence_and_poll),
      cmocka_unit_test(test_gcr),         cmocka_unit_test(test_short_buffer),
      cmocka_unit_test(test_ring_offset),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
