/* Extensible structs: struct_size checks on input and output. */
#include <string.h>

#include "hrx/core/struct.h"
#include "test_support.h"

/* Release 2 of an imaginary options struct; release 1 ended at |b|. */
typedef struct {
  uint32_t struct_size;
  uint32_t a;
  uint64_t b;
  uint64_t c; /* added in release 2: 0 is its default */
} demo_t;

typedef struct {
  uint32_t struct_size;
  uint32_t a;
  uint64_t b;
} demo_v1_t;

/* A newer caller's struct, with a member this library does not know. */
typedef struct {
  demo_t known;
  uint64_t future;
} demo_v3_t;

#define DEMO_FIRST HRX_STRUCT_SIZE_THROUGH(demo_t, b)

static hrx_status_t demo_read(const void* src, demo_t* dst) {
  return hrx_struct_read("demo_t", src, DEMO_FIRST, sizeof(demo_t), dst);
}

static void assert_invalid_naming(hrx_status_t status, const char* text) {
  assert_non_null(status);
  assert_int_equal(hrx_status_code(status), HRX_STATUS_INVALID_ARGUMENT);
  assert_non_null(strstr(hrx_status_message(status), "demo_t"));
  assert_non_null(strstr(hrx_status_message(status), text));
  hrx_status_free(status);
}

static void test_init_macro(void** state) {
  (void)state;
  demo_t demo = HRX_STRUCT_INIT(demo_t);
  assert_int_equal(demo.struct_size, sizeof(demo_t));
  assert_int_equal(demo.a, 0);
  assert_int_equal(demo.c, 0);
}

static void test_read_rejects_zero_and_too_small(void** state) {
  (void)state;
  demo_t src = {0};
  demo_t dst;
  assert_invalid_naming(demo_read(&src, &dst), "HRX_STRUCT_INIT(demo_t)");
  src.struct_size = DEMO_FIRST - 1;
  assert_invalid_naming(demo_read(&src, &dst), "smaller than any release");
}

static void test_read_null_is_defaults(void** state) {
  (void)state;
  demo_t dst;
  memset(&dst, 0xAB, sizeof(dst));
  assert_ok(demo_read(NULL, &dst));
  assert_int_equal(dst.struct_size, sizeof(demo_t));
  assert_int_equal(dst.a, 0);
  assert_int_equal(dst.c, 0);
}

static void test_read_older_size_defaults_new_members(void** state) {
  (void)state;
  /* An older caller's struct, followed by bytes that are not its own. */
  struct {
    demo_v1_t v1;
    uint64_t beyond;
  } src = {{.struct_size = sizeof(demo_v1_t), .a = 7, .b = 9}, UINT64_MAX};
  demo_t dst;
  memset(&dst, 0xAB, sizeof(dst));
  assert_ok(demo_read(&src.v1, &dst));
  assert_int_equal(dst.struct_size, sizeof(demo_t));
  assert_int_equal(dst.a, 7);
  assert_int_equal(dst.b, 9);
  assert_int_equal(dst.c, 0);
}

static void test_read_larger_size_needs_zero_tail(void** state) {
  (void)state;
  demo_v3_t src;
  memset(&src, 0, sizeof(src));
  src.known.struct_size = sizeof(demo_v3_t);
  src.known.a = 3;
  src.known.c = 4;
  demo_t dst;
  assert_ok(demo_read(&src, &dst));
  assert_int_equal(dst.struct_size, sizeof(demo_t));
  assert_int_equal(dst.a, 3);
  assert_int_equal(dst.c, 4);

  src.future = 1;
  hrx_status_t status = demo_read(&src, &dst);
  assert_non_null(strstr(hrx_status_message(status), "not zero"));
  char sizes[64];
  snprintf(sizes, sizeof(sizes), "is %zu bytes and this library knows %zu",
           sizeof(demo_v3_t), sizeof(demo_t));
  assert_invalid_naming(status, sizes);
}

static void test_write_stops_at_caller_size(void** state) {
  (void)state;
  demo_t report = HRX_STRUCT_INIT(demo_t);
  report.a = 1;
  report.b = 2;
  report.c = 3;
  /* An older caller: its struct, then guard bytes the library must keep. */
  struct {
    demo_v1_t v1;
    unsigned char guard[16];
  } out;
  memset(&out, 0x5A, sizeof(out));
  out.v1.struct_size = sizeof(demo_v1_t);
  assert_ok(hrx_struct_write("demo_t", &report, DEMO_FIRST, sizeof(demo_t),
                             &out.v1));
  assert_int_equal(out.v1.struct_size, sizeof(demo_v1_t));
  assert_int_equal(out.v1.a, 1);
  assert_int_equal(out.v1.b, 2);
  for (size_t i = 0; i < sizeof(out.guard); ++i) {
    assert_int_equal(out.guard[i], 0x5A);
  }
}

static void test_write_zeroes_members_library_lacks(void** state) {
  (void)state;
  demo_t report = HRX_STRUCT_INIT(demo_t);
  report.c = 3;
  demo_v3_t out;
  memset(&out, 0x5A, sizeof(out));
  out.known.struct_size = sizeof(demo_v3_t);
  assert_ok(hrx_struct_write("demo_t", &report, DEMO_FIRST, sizeof(demo_t),
                             &out));
  assert_int_equal(out.known.struct_size, sizeof(demo_v3_t));
  assert_int_equal(out.known.c, 3);
  assert_int_equal(out.future, 0);
}

static void test_write_rejects_bad_sizes(void** state) {
  (void)state;
  demo_t report = HRX_STRUCT_INIT(demo_t);
  demo_t out;
  memset(&out, 0x5A, sizeof(out));
  out.struct_size = 0;
  assert_invalid_naming(hrx_struct_write("demo_t", &report, DEMO_FIRST,
                                         sizeof(demo_t), &out),
                        "struct_size is 0");
  assert_int_equal(out.a, 0x5A5A5A5A);
  out.struct_size = 4;
  assert_invalid_naming(hrx_struct_write("demo_t", &report, DEMO_FIRST,
                                         sizeof(demo_t), &out),
                        "smaller than any release");
  assert_int_equal(out.a, 0x5A5A5A5A);
  assert_invalid_naming(
      hrx_struct_write("demo_t", &report, DEMO_FIRST, sizeof(demo_t), NULL),
      "NULL");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_macro),
      cmocka_unit_test(test_read_rejects_zero_and_too_small),
      cmocka_unit_test(test_read_null_is_defaults),
      cmocka_unit_test(test_read_older_size_defaults_new_members),
      cmocka_unit_test(test_read_larger_size_needs_zero_tail),
      cmocka_unit_test(test_write_stops_at_caller_size),
      cmocka_unit_test(test_write_zeroes_members_library_lacks),
      cmocka_unit_test(test_write_rejects_bad_sizes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
