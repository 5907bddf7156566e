/* PM4 encoders against the layouts nvd.h and the gfx11 register headers
 * document, dword for dword; short buffers and out-of-field values are
 * refused without writing. */
#include <string.h>

#include "pm4_packets.h"
#include "test_support.h"

#define CAPACITY 32u
#define GUARD 0xA5A5A5A5u

typedef struct out_t {
  uint32_t dwords[CAPACITY];
  size_t count;
} out_t;

static void reset(out_t* out) {
  for (size_t i = 0; i < CAPACITY; ++i) out->dwords[i] = GUARD;
  out->count = 0;
}

static void expect(const out_t* out, const uint32_t* want, size_t count) {
  assert_int_equal(out->count, count);
  for (size_t i = 0; i < count; ++i) {
    if (out->dwords[i] != want[i]) {
      fail_msg("dword %zu: 0x%08x, want 0x%08x", i, out->dwords[i], want[i]);
    }
  }
  assert_int_equal(out->dwords[count], GUARD);
}

static void test_nop(void** state) {
  (void)state;
  out_t out;
  reset(&out);
  assert_ok(hrx_pm4_nop(1, out.dwords, CAPACITY, &out.count));
  expect(&out, (const uint32_t[]){0xFFFF1000u}, 1);
  reset(&out);
  assert_ok(hrx_pm4_nop(3, out.dwords, CAPACITY, &out.count));
  expect(&out, (const uint32_t[]){0xC0011000u, 0, 0}, 3);
  assert_status_code(hrx_pm4_nop(0, out.dwords, CAPACITY, &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
}

static void test_set_sh_reg(void** state) {
  (void)state;
  out_t out;
  reset(&out);
  const uint32_t values[] = {0x12345678u, 0x9Au};
  assert_ok(hrx_pm4_set_sh_reg(HRX_PM4_COMPUTE_PGM_LO, values, 2, out.dwords,
                               CAPACITY, &out.count));
  expect(&out, (const uint32_t[]){0xC0027600u, 0x20Cu, 0x12345678u, 0x9Au},
         4);
  reset(&out);
  assert_ok(hrx_pm4_set_sh_reg(HRX_PM4_COMPUTE_USER_DATA_0, values, 1,
                               out.dwords, CAPACITY, &out.count));
  expect(&out, (const uint32_t[]){0xC0017600u, 0x240u, 0x12345678u}, 3);
  assert_status_code(hrx_pm4_set_sh_reg(0x2BFF, values, 1, out.dwords,
                                        CAPACITY, &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_pm4_set_sh_reg(0x2FFF, values, 2, out.dwords,
                                        CAPACITY, &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
}

static void test_dispatch_direct(void** state) {
  (void)state;
  out_t out;
  reset(&out);
  const uint32_t initiator = HRX_PM4_INITIATOR_COMPUTE_SHADER_EN |
                             HRX_PM4_INITIATOR_FORCE_START_AT_000 |
                             HRX_PM4_INITIATOR_CS_W32_EN;
  assert_int_equal(initiator, 0x8005u);
  assert_ok(hrx_pm4_dispatch_direct((const uint32_t[]){7, 2, 1}, initiator,
                                    out.dwords, CAPACITY, &out.count));
  expect(&out, (const uint32_t[]){0xC0031500u, 7, 2, 1, 0x8005u}, 5);
}

static void test_write_data(void** state) {
  (void)state;
  out_t out;
  reset(&out);
  const uint32_t values[] = {0xDEADBEEFu, 0x01020304u};
  assert_ok(hrx_pm4_write_data(0x123456780ull, values, 2, out.dwords,
                               CAPACITY, &out.count));
  expect(&out,
         (const uint32_t[]){0xC0043700u, 0x00100500u, 0x23456780u, 0x1u,
                            0xDEADBEEFu, 0x01020304u},
         6);
  assert_status_code(hrx_pm4_write_data(0x1002, values, 1, out.dwords,
                                        CAPACITY, &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
}

static void test_waits(void** state) {
  (void)state;
  out_t out;
  reset(&out);
  hrx_pm4_wait_t wait = {.address = 0x7F0000001000ull,
                         .reference = 5,
                         .mask = 0xFFFFFFFFu,
                         .compare = HRX_PM4_COMPARE_GREATER_EQUAL,
                         .poll_interval = 4};
  assert_ok(hrx_pm4_wait_reg_mem(&wait, out.dwords, CAPACITY, &out.count));
  expect(&out,
         (const uint32_t[]){0xC0053C00u, 0x15u, 0x00001000u, 0x7F00u, 5,
                            0xFFFFFFFFu, 4},
         7);
  reset(&out);
  wait.reference = 0x100000002ull;
  wait.mask = UINT64_MAX;
  wait.compare = HRX_PM4_COMPARE_EQUAL;
  assert_ok(hrx_pm4_wait_reg_mem64(&wait, out.dwords, CAPACITY, &out.count));
  expect(&out,
         (const uint32_t[]){0xC0079300u, 0x13u, 0x00001000u, 0x7F00u, 2, 1,
                            0xFFFFFFFFu, 0xFFFFFFFFu, 4},
         9);
  /* 32-bit waits take 32-bit operands; 64-bit ones 8-byte alignment. */
  assert_status_code(
      hrx_pm4_wait_reg_mem(&wait, out.dwords, CAPACITY, &out.count),
      HRX_STATUS_INVALID_ARGUMENT);
  wait.address += 4;
  assert_status_code(
      hrx_pm4_wait_reg_mem64(&wait, out.dwords, CAPACITY, &out.count),
      HRX_STATUS_INVALID_ARGUMENT);
}

static void test_release_mem(void** state) {
  (void)state;
  out_t out;
  reset(&out);
  hrx_pm4_release_t release = {
      .event_type = HRX_PM4_EVENT_CACHE_FLUSH_AND_INV_TS,
      .gcr = (1u << 21) | (1u << 12), /* GL2_WB, GLM_WB */
      .data = HRX_PM4_DATA_64,
      .interrupt = HRX_PM4_INT_AFTER_WRITE_CONFIRM,
      .address = 0x7F0000002008ull,
      .value = 0x1122334455667788ull,
      .event_id = 9};
  assert_ok(hrx_pm4_release_mem(&release, out.dwords, CAPACITY, &out.count));
  expect(&out,
         (const uint32_t[]){0xC0064900u, 0x00201514u, 0x42000000u,
                            0x00002008u, 0x7F00u, 0x55667788u, 0x11223344u,
                            9},
         8);
  release.address += 4; /* 64-bit data needs 8-byte alignment */
  assert_status_code(
      hrx_pm4_release_mem(&release, out.dwords, CAPACITY, &out.count),
      HRX_STATUS_INVALID_ARGUMENT);
  release.data = HRX_PM4_DATA_32;
  assert_ok(hrx_pm4_release_mem(&release, out.dwords, CAPACITY, &out.count));
  release.gcr = 1; /* below the GCR bits: the event index's */
  assert_status_code(
      hrx_pm4_release_mem(&release, out.dwords, CAPACITY, &out.count),
      HRX_STATUS_INVALID_ARGUMENT);
}

static void test_acquire_and_event(void** state) {
  (void)state;
  out_t out;
  reset(&out);
  const uint32_t gcr = HRX_PM4_GCR_GLI_INV_ALL | HRX_PM4_GCR_GLK_INV |
                       HRX_PM4_GCR_GLV_INV | HRX_PM4_GCR_GL1_INV |
                       HRX_PM4_GCR_GL2_INV;
  assert_ok(hrx_pm4_acquire_mem(gcr, out.dwords, CAPACITY, &out.count));
  expect(&out,
         (const uint32_t[]){0xC0065800u, 0, 0xFFFFFFFFu, 0xFFu, 0, 0, 0,
                            0x4381u},
         8);
  assert_status_code(
      hrx_pm4_acquire_mem(1u << 19, out.dwords, CAPACITY, &out.count),
      HRX_STATUS_INVALID_ARGUMENT);
  reset(&out);
  assert_ok(hrx_pm4_event_write(HRX_PM4_EVENT_CS_PARTIAL_FLUSH,
                                HRX_PM4_EVENT_INDEX_PARTIAL_FLUSH, out.dwords,
                                CAPACITY, &out.count));
  expect(&out, (const uint32_t[]){0xC0004600u, 0x407u}, 2);
}

static void test_indirect_buffer(void** state) {
  (void)state;
  out_t out;
  reset(&out);
  assert_ok(hrx_pm4_indirect_buffer(0x7F0000003000ull, 40, out.dwords,
                                    CAPACITY, &out.count));
  expect(&out,
         (const uint32_t[]){0xC0023F00u, 0x00003000u, 0x7F00u, 0x00800028u},
         4);
  assert_status_code(hrx_pm4_indirect_buffer(0x1000, 1u << 20, out.dwords,
                                             CAPACITY, &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_pm4_indirect_buffer(0x1001, 4, out.dwords, CAPACITY,
                                             &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
}

static void test_dma_data(void** state) {
  (void)state;
  out_t out;
  reset(&out);
  hrx_pm4_dma_t copy = {.source = 0x7F0000004001ull,
                        .destination = 0x7F0000005003ull,
                        .byte_count = 77};
  assert_ok(hrx_pm4_dma_data(&copy, out.dwords, CAPACITY, &out.count));
  expect(&out,
         (const uint32_t[]){0xC0055000u, 0xE0300000u, 0x00004001u, 0x7F00u,
                            0x00005003u, 0x7F00u, 77},
         7);
  reset(&out);
  hrx_pm4_dma_t fill = {.destination = 0x7F0000005000ull,
                        .byte_count = 64,
                        .fill = true,
                        .fill_value = 0xCAFEF00Du};
  assert_ok(hrx_pm4_dma_data(&fill, out.dwords, CAPACITY, &out.count));
  expect(&out,
         (const uint32_t[]){0xC0055000u, 0xC0300000u, 0xCAFEF00Du, 0,
                            0x00005000u, 0x7F00u, 64},
         7);
  fill.byte_count = 6;
  assert_status_code(hrx_pm4_dma_data(&fill, out.dwords, CAPACITY, &out.count),
                     HRX_STATUS_INVALID_ARGUMENT);
}

/* A buffer one dword short is left as it was. */
static void test_short_buffer(void** state) {
  (void)state;
  out_t out;
  reset(&out);
  hrx_pm4_release_t release = {.event_type =
                                   HRX_PM4_EVENT_BOTTOM_OF_PIPE_TS,
                               .data = HRX_PM4_DATA_32,
                               .address = 0x1000};
  assert_status_code(hrx_pm4_release_mem(&release, out.dwords,
                                         HRX_PM4_RELEASE_MEM_DWORDS - 1,
                                         &out.count),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  const uint32_t values[3] = {0};
  assert_status_code(
      hrx_pm4_write_data(0x1000, values, 3, out.dwords, 6, &out.count),
      HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_status_code(hrx_pm4_nop(5, out.dwords, 4, &out.count),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  for (size_t i = 0; i < CAPACITY; ++i) assert_int_equal(out.dwords[i], GUARD);
  assert_int_equal(out.count, 0);
}

/* Padding keeps a packet from straddling the wrap. */
static void test_wrap_padding(void** state) {
  (void)state;
  uint32_t pad = 99;
  assert_ok(hrx_pm4_wrap_padding(1020, 1024, 4, &pad));
  assert_int_equal(pad, 0);
  assert_ok(hrx_pm4_wrap_padding(1021, 1024, 4, &pad));
  assert_int_equal(pad, 3);
  assert_ok(hrx_pm4_wrap_padding(3 * 1024 + 1023, 1024, 8, &pad));
  assert_int_equal(pad, 1);
  assert_ok(hrx_pm4_wrap_padding(2048, 1024, 1024, &pad));
  assert_int_equal(pad, 0);
  assert_status_code(hrx_pm4_wrap_padding(0, 1000, 4, &pad),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_pm4_wrap_padding(0, 1024, 1025, &pad),
                     HRX_STATUS_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nop),
      cmocka_unit_test(test_set_sh_reg),
      cmocka_unit_test(test_dispatch_direct),
      cmocka_unit_test(test_write_data),
      cmocka_unit_test(test_waits),
      cmocka_unit_test(test_release_mem),
      cmocka_unit_test(test_acquire_and_event),
      cmocka_unit_test(test_indirect_buffer),
      cmocka_unit_test(test_dma_data),
      cmocka_unit_test(test_short_buffer),
      cmocka_unit_test(test_wrap_padding),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
