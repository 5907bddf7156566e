/* Transaction streams: encoders byte for byte against the documented
 * record layouts, the checker's accepted/rejected table, and the composer
 * behind wrap_transaction, including op-count and size overflow. */
#include <stdlib.h>
#include <string.h>

#include "hrx/npu.h"
#include "npu_test_util.h"

static hrx_npu_txn_builder_t builder(uint8_t columns) {
  hrx_npu_txn_builder_t b;
  assert_ok(hrx_npu_txn_builder_init(hrx_allocator_system(), columns, &b));
  return b;
}

static void test_noop_matches_reference(void** state) {
  (void)state;
  hrx_npu_txn_builder_t b = builder(8);
  assert_ok(hrx_npu_txn_noop(&b));
  assert_int_equal(b.length, sizeof(npu_noop_txn));
  assert_memory_equal(b.data, npu_noop_txn, sizeof(npu_noop_txn));
  hrx_npu_txn_info_t info = HRX_STRUCT_INIT(hrx_npu_txn_info_t);
  assert_ok(hrx_npu_txn_check(b.data, b.length, &info));
  assert_int_equal(info.columns, 8);
  assert_int_equal(info.op_count, 1);
  assert_int_equal(info.size, 20);
  /* A newer caller's larger struct: the member this library lacks reads
   * zero; a size below the first release is refused naming the type. */
  struct {
    hrx_npu_txn_info_t known;
    uint64_t future;
  } newer;
  memset(&newer, 0x5A, sizeof(newer));
  newer.known.struct_size = sizeof(newer);
  assert_ok(hrx_npu_txn_check(b.data, b.length, &newer.known));
  assert_int_equal(newer.known.op_count, 1);
  assert_int_equal(newer.future, 0);
  newer.known.struct_size = 4;
  assert_status(hrx_npu_txn_check(b.data, b.length, &newer.known),
                HRX_STATUS_INVALID_ARGUMENT, "hrx_npu_txn_info_t");
  hrx_npu_txn_builder_deinit(&b);
}

static void test_record_layouts(void** state) {
  (void)state;
  hrx_npu_txn_builder_t b = builder(4);
  assert_ok(hrx_npu_txn_write(&b, 0x0000000100032000ull, 0xdeadbeef));
  const uint32_t words[3] = {0x11111111, 0x22222222, 0x33333333};
  assert_ok(hrx_npu_txn_blockwrite(&b, 0x00040000, words, 3));
  assert_ok(hrx_npu_txn_maskwrite(&b, 0x1234, 0x5, 0xf));
  assert_ok(hrx_npu_txn_maskpoll(&b, 0x5678, 0x1, 0x3));
  static const uint8_t kExpected[] = {
      /* header: 4 columns, 4 ops, 16 + 24 + 28 + 32 + 32 = 132 bytes */
      0x00, 0x01, 0x04, 0x06, 0x04, 0x01, 0x00, 0x00, 0x04, 0x00, 0x00,
      0x00, 0x84, 0x00, 0x00, 0x00,
      /* write: op 0, address @8, value @16, size @20 */
      0x00, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x20, 0x03, 0x00, 0x01, 0x00, 0x00,
      0x00, 0xef, 0xbe, 0xad, 0xde, 0x18, 0x00, 0x00, 0x00,
      /* blockwrite: op 1, address @8, size @12, data @16 */
      0x01, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x04, 0x00, 0x1c, 0x00, 0x00,
      0x00, 0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22, 0x33, 0x33,
      0x33, 0x33,
      /* maskwrite: op 3, address @8, value @16, mask @20, size @24 */
      0x03, 0, 0, 0, 0, 0, 0, 0, 0x34, 0x12, 0, 0, 0, 0, 0, 0, 0x05, 0, 0,
      0, 0x0f, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0,
      /* maskpoll: op 4, same layout */
      0x04, 0, 0, 0, 0, 0, 0, 0, 0x78, 0x56, 0, 0, 0, 0, 0, 0, 0x01, 0, 0,
      0, 0x03, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0};
  assert_int_equal(b.length, sizeof(kExpected));
  assert_memory_equal(b.data, kExpected, sizeof(kExpected));
  assert_ok(hrx_npu_txn_check(b.data, b.length, NULL));
  hrx_npu_txn_builder_deinit(&b);
}

static void test_builder_limits(void** state) {
  (void)state;
  hrx_npu_txn_builder_t b;
  assert_status(hrx_npu_txn_builder_init(hrx_allocator_system(), 0, &b),
                HRX_STATUS_INVALID_ARGUMENT, "columns 0");
  assert_status(hrx_npu_txn_builder_init(hrx_allocator_system(), 9, &b),
                HRX_STATUS_INVALID_ARGUMENT, "columns 9");
  b = builder(1);
  assert_status(hrx_npu_txn_blockwrite(&b, 0, NULL, 0),
                HRX_STATUS_OUT_OF_RANGE, "blockwrite of 0 words");
  /* A stream already at 2^32 - 1 ops takes no more. */
  b.op_count = UINT32_MAX;
  assert_status(hrx_npu_txn_noop(&b), HRX_STATUS_OUT_OF_RANGE, "op count");
  assert_int_equal(b.length, HRX_NPU_TXN_HEADER_SIZE);
  b.op_count = 0;
  b.length = UINT32_MAX - 2;
  assert_status(hrx_npu_txn_noop(&b), HRX_STATUS_OUT_OF_RANGE, "size");
  b.length = HRX_NPU_TXN_HEADER_SIZE;
  hrx_npu_txn_builder_deinit(&b);
  /* Every allocation failure while building leaves nothing behind. */
  test_allocator_t counted = {.fail_at = 1};
  assert_status_code(
      hrx_npu_txn_builder_init(test_allocator(&counted), 8, &b),
      HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_int_equal(counted.live, 0);
}

typedef struct check_case_t {
  const char* name;
  size_t offset; /* byte to change, or SIZE_MAX to truncate */
  uint8_t value;
  size_t size_delta; /* bytes cut from the end */
  const char* text;
} check_case_t;

static void test_checker_table(void** state) {
  (void)state;
  hrx_npu_txn_builder_t b = builder(8);
  assert_ok(hrx_npu_txn_write(&b, 0x10, 1));
  const uint32_t word = 7;
  assert_ok(hrx_npu_txn_blockwrite(&b, 0x20, &word, 1));
  assert_ok(hrx_npu_txn_maskpoll(&b, 0x30, 1, 1));
  assert_ok(hrx_npu_txn_noop(&b));
  /* header 16, write 16..40, blockwrite 40..60, maskpoll 60..92, noop. */
  static const check_case_t kCases[] = {
      {"major", 0, 1, 0, "format 0.1"},
      {"minor", 1, 2, 0, "format 0.1"},
      {"generation", 2, 3, 0, "format 0.1"},
      {"rows", 3, 5, 0, "format 0.1"},
      {"zero columns", 4, 0, 0, "columns 0"},
      {"nine columns", 4, 9, 0, "columns 9"},
      {"mem rows", 5, 2, 0, "format 0.1"},
      {"padding", 6, 1, 0, "format 0.1"},
      {"op count high", 8, 5, 0, "op 4"},
      {"op count low", 8, 3, 0, "after its 3 ops"},
      {"txn size", 12, 0x61, 0, "TxnSize 97"},
      {"unknown op", 16, 2, 0, "op 0 at offset 16"},
      {"write size", 36, 25, 0, "op 0 at offset 16"},
      {"block size unaligned", 52, 21, 0, "op 1 at offset 40"},
      {"block size empty", 52, 16, 0, "op 1 at offset 40"},
      {"block size past end", 52, 0xff, 0, "op 1 at offset 40"},
      {"maskpoll size", 84, 24, 0, "op 2 at offset 60"},
      {"op six", 92, 6, 0, "op 3 at offset 92"},
  };
  for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
    uint8_t copy[256];
    memcpy(copy, b.data, b.length);
    copy[kCases[i].offset] = kCases[i].value;
    print_message("case %s\n", kCases[i].name);
    assert_status(hrx_npu_txn_check(copy, b.length, NULL),
                  HRX_STATUS_DATA_LOSS, kCases[i].text);
  }
  /* Truncated anywhere (with TxnSize following the cut) and too short. */
  for (size_t size = 0; size < b.length; ++size) {
    uint8_t copy[256];
    memcpy(copy, b.data, b.length);
    if (size >= 16) {
      copy[12] = (uint8_t)size;
    }
    hrx_status_t status = hrx_npu_txn_check(copy, size, NULL);
    assert_status_code(status, HRX_STATUS_DATA_LOSS);
  }
  /* Trailing bytes after the last op. */
  uint8_t longer[256] = {0};
  memcpy(longer, b.data, b.length);
  longer[12] = (uint8_t)(b.length + 4);
  assert_status(hrx_npu_txn_check(longer, b.length + 4, NULL),
                HRX_STATUS_DATA_LOSS, "4 bytes after its 4 ops");
  hrx_npu_txn_builder_deinit(&b);
}

static void test_compose_accepted(void** state) {
  (void)state;
  hrx_npu_txn_builder_t prefix = builder(8);
  assert_ok(hrx_npu_txn_maskpoll(&prefix, 0xA0, 1, 3));
  hrx_npu_txn_builder_t suffix = builder(2);
  assert_ok(hrx_npu_txn_write(&suffix, 0xB0, 2));
  uint8_t* out = NULL;
  size_t size = 0;
  hrx_allocator_t system = hrx_allocator_system();
  /* Prefix and suffix around the NOOP body. */
  assert_ok(hrx_npu_txn_compose(npu_noop_txn, sizeof(npu_noop_txn), &prefix,
                                &suffix, system, &out, &size));
  assert_int_equal(size, 16 + 32 + 4 + 24);
  hrx_npu_txn_info_t info = HRX_STRUCT_INIT(hrx_npu_txn_info_t);
  assert_ok(hrx_npu_txn_check(out, size, &info));
  assert_int_equal(info.op_count, 3);
  assert_int_equal(out[16], HRX_NPU_TXN_OP_MASKPOLL);
  assert_int_equal(out[48], HRX_NPU_TXN_OP_NOOP);
  assert_int_equal(out[52], HRX_NPU_TXN_OP_WRITE);
  hrx_allocator_free(system, out);
  /* Either part alone, and neither. */
  assert_ok(hrx_npu_txn_compose(npu_noop_txn, sizeof(npu_noop_txn), &prefix,
                                NULL, system, &out, &size));
  assert_int_equal(size, 16 + 32 + 4);
  hrx_allocator_free(system, out);
  assert_ok(hrx_npu_txn_compose(npu_noop_txn, sizeof(npu_noop_txn), NULL,
                                &suffix, system, &out, &size));
  assert_int_equal(size, 16 + 4 + 24);
  assert_ok(hrx_npu_txn_check(out, size, NULL));
  hrx_allocator_free(system, out);
  assert_ok(hrx_npu_txn_compose(npu_noop_txn, sizeof(npu_noop_txn), NULL,
                                NULL, system, &out, &size));
  assert_memory_equal(out, npu_noop_txn, sizeof(npu_noop_txn));
  hrx_allocator_free(system, out);
  hrx_npu_txn_builder_deinit(&prefix);
  hrx_npu_txn_builder_deinit(&suffix);
}

static void test_compose_rejected(void** state) {
  (void)state;
  hrx_allocator_t system = hrx_allocator_system();
  uint8_t* out = (uint8_t*)1;
  size_t size = 1;
  uint8_t broken[sizeof(npu_noop_txn)];
  memcpy(broken, npu_noop_txn, sizeof(broken));
  broken[16] = 9;
  assert_status(hrx_npu_txn_compose(broken, sizeof(broken), NULL, NULL,
                                    system, &out, &size),
                HRX_STATUS_DATA_LOSS, "composing");
  assert_null(out);
  assert_int_equal(size, 0);
  /* A narrower body than its prefix. */
  uint8_t narrow[sizeof(npu_noop_txn)];
  memcpy(narrow, npu_noop_txn, sizeof(narrow));
  narrow[4] = 2;
  hrx_npu_txn_builder_t wide = builder(4);
  assert_status(hrx_npu_txn_compose(narrow, sizeof(narrow), &wide, NULL,
                                    system, &out, &size),
                HRX_STATUS_INVALID_ARGUMENT, "prefix addresses 4 columns");
  assert_status(hrx_npu_txn_compose(narrow, sizeof(narrow), NULL, &wide,
                                    system, &out, &size),
                HRX_STATUS_INVALID_ARGUMENT, "suffix addresses 4 columns");
  /* Op-count overflow: the parts' NumOps sum past 2^32 - 1. */
  hrx_npu_txn_builder_t many = builder(8);
  many.op_count = UINT32_MAX;
  assert_status(hrx_npu_txn_compose(npu_noop_txn, sizeof(npu_noop_txn),
                                    &many, NULL, system, &out, &size),
                HRX_STATUS_OUT_OF_RANGE, "4294967296 ops");
  many.op_count = UINT32_MAX / 2 + 1;
  assert_status(hrx_npu_txn_compose(npu_noop_txn, sizeof(npu_noop_txn),
                                    &many, &many, system, &out, &size),
                HRX_STATUS_OUT_OF_RANGE, "ops, over 32 bits");
  /* Size overflow. */
  many.op_count = 0;
  size_t real_length = many.length;
  many.length = UINT32_MAX;
  assert_status(hrx_npu_txn_compose(npu_noop_txn, sizeof(npu_noop_txn),
                                    &many, NULL, system, &out, &size),
                HRX_STATUS_OUT_OF_RANGE, "bytes, over 32 bits");
  many.length = real_length;
  assert_null(out);
  hrx_npu_txn_builder_deinit(&many);
  hrx_npu_txn_builder_deinit(&wide);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_noop_matches_reference),
      cmocka_unit_test(test_record_layouts),
      cmocka_unit_test(test_builder_limits),
      cmocka_unit_test(test_checker_table),
      cmocka_unit_test(test_compose_accepted),
      cmocka_unit_test(test_compose_rejected),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
