/* Status objects: codes, messages, context, formatting, and the fallback
 * when memory runs out while building a status. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

/* Linked with -Wl,--wrap=malloc,--wrap=realloc: the static libhrx-core's
 * allocations come here, so a test can make them fail. */
static int fail_mallocs = 0;
void* __real_malloc(size_t size);
void* __real_realloc(void* ptr, size_t size);
void* __wrap_malloc(size_t size);
void* __wrap_realloc(void* ptr, size_t size);
void* __wrap_malloc(size_t size) {
  return fail_mallocs ? NULL : __real_malloc(size);
}
void* __wrap_realloc(void* ptr, size_t size) {
  return fail_mallocs ? NULL : __real_realloc(ptr, size);
}

static void test_ok_is_null(void** state) {
  (void)state;
  assert_null(HRX_OK);
  assert_int_equal(hrx_status_code(HRX_OK), HRX_STATUS_OK);
  assert_string_equal(hrx_status_message(HRX_OK), "");
  assert_int_equal(hrx_status_context_count(HRX_OK), 0);
  assert_null(hrx_status_annotate(HRX_OK, "ignored"));
  hrx_status_free(HRX_OK);
}

static void test_make_and_format(void** state) {
  (void)state;
  hrx_status_t status =
      hrx_make_status(HRX_STATUS_NOT_FOUND, "kernel '%s' missing", "saxpy");
  assert_int_equal(hrx_status_code(status), HRX_STATUS_NOT_FOUND);
  assert_true(hrx_status_is(status, HRX_STATUS_NOT_FOUND));
  assert_string_equal(hrx_status_message(status), "kernel 'saxpy' missing");
  status = hrx_status_annotate(status, "loading %d", 7);
  status = hrx_status_annotate(status, "in session");
  assert_int_equal(hrx_status_context_count(status), 2);
  assert_string_equal(hrx_status_context_at(status, 0), "loading 7");
  assert_null(hrx_status_context_at(status, 2));
  char text[128];
  size_t n = hrx_status_format(status, text, sizeof(text));
  assert_string_equal(text,
                      "NOT_FOUND: kernel 'saxpy' missing; loading 7; in "
                      "session");
  assert_int_equal(n, strlen(text));
  /* Truncation behaves like snprintf. */
  char small[10];
  assert_int_equal(hrx_status_format(status, small, sizeof(small)), n);
  assert_string_equal(small, "NOT_FOUND");
  assert_int_equal(hrx_status_format(status, NULL, 0), n);
  hrx_status_free(status);
}

static void test_every_code_has_a_name(void** state) {
  (void)state;
  static const char* const names[] = {
      "INVALID_ARGUMENT", "NOT_FOUND", "ALREADY_EXISTS", "BUSY",
      "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED", "UNAVAILABLE", "DATA_LOSS",
      "PERMISSION_DENIED", "FAILED_PRECONDITION", "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL"};
  size_t found = 0;
  for (int code = 1; code < HRX_STATUS_CODE_COUNT; ++code) {
    const char* name = hrx_status_code_string((hrx_status_code_t)code);
    assert_string_not_equal(name, "UNKNOWN_CODE");
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
      if (strcmp(names[i], name) == 0) found++;
    }
  }
  assert_int_equal(found, sizeof(names) / sizeof(names[0]));
  assert_string_equal(hrx_status_code_string(HRX_STATUS_CODE_COUNT),
                      "UNKNOWN_CODE");
  assert_string_equal(hrx_status_code_string((hrx_status_code_t)-1),
                      "UNKNOWN_CODE");
}

static void test_bad_code_becomes_internal(void** state) {
  (void)state;
  hrx_status_t status = hrx_make_status(HRX_STATUS_OK, "not a failure");
  assert_non_null(status);
  assert_int_equal(hrx_status_code(status), HRX_STATUS_INTERNAL);
  hrx_status_free(status);
  status = hrx_make_status((hrx_status_code_t)999, "bogus");
  assert_int_equal(hrx_status_code(status), HRX_STATUS_INTERNAL);
  hrx_status_free(status);
}

static void test_from_errno(void** state) {
  (void)state;
  struct {
    int error;
    hrx_status_code_t code;
  } cases[] = {
      {ENOENT, HRX_STATUS_NOT_FOUND},
      {EACCES, HRX_STATUS_PERMISSION_DENIED},
      {EEXIST, HRX_STATUS_ALREADY_EXISTS},
      {ENOMEM, HRX_STATUS_RESOURCE_EXHAUSTED},
      {EAGAIN, HRX_STATUS_BUSY},
      {ETIMEDOUT, HRX_STATUS_DEADLINE_EXCEEDED},
      {EIO, HRX_STATUS_DATA_LOSS},
      {ENODEV, HRX_STATUS_UNAVAILABLE},
      {E2BIG, HRX_STATUS_INTERNAL},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    hrx_status_t status =
        hrx_status_from_errno(cases[i].error, "opening %s", "x");
    assert_int_equal(hrx_status_code(status), cases[i].code);
    assert_non_null(strstr(hrx_status_message(status), "opening x (errno"));
    hrx_status_free(status);
  }
}

static void test_join(void** state) {
  (void)state;
  hrx_status_t first = hrx_make_status(HRX_STATUS_BUSY, "first");
  hrx_status_t second = hrx_make_status(HRX_STATUS_INTERNAL, "second");
  hrx_status_t joined = hrx_status_join(first, second);
  assert_ptr_equal(joined, first);
  hrx_status_free(joined);
  second = hrx_make_status(HRX_STATUS_INTERNAL, "second");
  joined = hrx_status_join(HRX_OK, second);
  assert_ptr_equal(joined, second);
  hrx_status_free(joined);
  assert_null(hrx_status_join(HRX_OK, HRX_OK));
}

static void test_allocation_failure_yields_valid_status(void** state) {
  (void)state;
  fail_mallocs = 1;
  hrx_status_t status =
      hrx_make_status(HRX_STATUS_DATA_LOSS, "checksum %d mismatch", 3);
  hrx_status_t annotated = hrx_status_annotate(status, "while loading");
  fail_mallocs = 0;
  assert_non_null(status);
  assert_ptr_equal(annotated, status);
  assert_int_equal(hrx_status_code(status), HRX_STATUS_DATA_LOSS);
  assert_string_equal(hrx_status_message(status), "");
  char text[64];
  hrx_status_format(status, text, sizeof(text));
  assert_string_equal(text, "DATA_LOSS");
  /* Annotating a fallback once memory is back gives a real status. */
  status = hrx_status_annotate(status, "retried");
  assert_int_equal(hrx_status_context_count(status), 1);
  assert_int_equal(hrx_status_code(status), HRX_STATUS_DATA_LOSS);
  hrx_status_free(status);
  /* Freeing a fallback is harmless, twice. */
  fail_mallocs = 1;
  status = hrx_make_status(HRX_STATUS_BUSY, "x");
  fail_mallocs = 0;
  hrx_status_free(status);
  hrx_status_free(status);
}

static void test_status_from_code_allocates_nothing(void** state) {
  (void)state;
  fail_mallocs = 1; /* any allocation would fail: none is tried */
  hrx_status_t busy = hrx_status_from_code(HRX_STATUS_BUSY);
  hrx_status_t internal = hrx_status_from_code(HRX_STATUS_OK);
  hrx_status_t out_of_range = hrx_status_from_code(HRX_STATUS_CODE_COUNT);
  fail_mallocs = 0;
  assert_int_equal(hrx_status_code(busy), HRX_STATUS_BUSY);
  assert_int_equal(hrx_status_code(internal), HRX_STATUS_INTERNAL);
  assert_int_equal(hrx_status_code(out_of_range), HRX_STATUS_INTERNAL);
  char text[64];
  hrx_status_format(busy, text, sizeof(text));
  assert_string_equal(text, "BUSY");
  hrx_status_free(busy);
  hrx_status_free(busy);
  hrx_status_free(internal);
  hrx_status_free(out_of_range);
}

static void test_annotate_keeps_status_when_context_fails(void** state) {
  (void)state;
  hrx_status_t status = hrx_make_status(HRX_STATUS_UNAVAILABLE, "no device");
  status = hrx_status_annotate(status, "first");
  fail_mallocs = 1;
  status = hrx_status_annotate(status, "dropped");
  fail_mallocs = 0;
  assert_int_equal(hrx_status_context_count(status), 1);
  assert_string_equal(hrx_status_message(status), "no device");
  hrx_status_free(status);
}

static hrx_status_t fails_then_returns(int* calls) {
  ++*calls;
  HRX_RETURN_IF_ERROR(hrx_make_status(HRX_STATUS_ABORTED, "stop"));
  ++*calls;
  return HRX_OK;
}

static void test_return_if_error(void** state) {
  (void)state;
  int calls = 0;
  assert_status_code(fails_then_returns(&calls), HRX_STATUS_ABORTED);
  assert_int_equal(calls, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ok_is_null),
      cmocka_unit_test(test_make_and_format),
      cmocka_unit_test(test_every_code_has_a_name),
      cmocka_unit_test(test_bad_code_becomes_internal),
      cmocka_unit_test(test_from_errno),
      cmocka_unit_test(test_join),
      cmocka_unit_test(test_allocation_failure_yields_valid_status),
      cmocka_unit_test(test_status_from_code_allocates_nothing),
      cmocka_unit_test(test_annotate_keeps_status_when_context_fails),
      cmocka_unit_test(test_return_if_error),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
