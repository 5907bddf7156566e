/* Helpers shared by every HRX test suite. */
#ifndef HRX_TESTS_TEST_SUPPORT_H_
#define HRX_TESTS_TEST_SUPPORT_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hrx/core.h"

/* An allocator that counts what it hands out and can be told to fail:
 * with fail_at = N the Nth allocation (1-based) and every later one fail.
 * fail_at = 0 never fails. */
typedef struct test_allocator_t {
  size_t allocations;
  size_t frees;
  size_t live;
  size_t fail_at;
} test_allocator_t;

hrx_allocator_t test_allocator(test_allocator_t* state);

/* Runs |operation| with the Nth allocation failing, for N = 1, 2, ... until
 * it succeeds. Every failing run must return RESOURCE_EXHAUSTED and leave
 * no allocation live; |cleanup| (may be NULL) undoes a successful run. The
 * return value is the number of allocations the successful run made. */
typedef hrx_status_t (*test_alloc_operation_fn)(hrx_allocator_t allocator,
                                                void* context);
typedef void (*test_alloc_cleanup_fn)(hrx_allocator_t allocator,
                                      void* context);
size_t test_exhaust_allocations(test_alloc_operation_fn operation,
                                test_alloc_cleanup_fn cleanup, void* context);

/* Asserts that |status| has |code| and frees it. */
#define assert_status_code(status, code) \
  test_assert_status_code((status), (code), __FILE__, __LINE__)
/* The code, and |text| somewhere in the formatted status (message and
 * context); frees the status. */
#define assert_status(status, code, text) \
  test_assert_status((status), (code), (text), __FILE__, __LINE__)
#define assert_ok(status) \
  test_assert_status_code((status), HRX_STATUS_OK, __FILE__, __LINE__)
void test_assert_status(hrx_status_t status, hrx_status_code_t code,
                        const char* text, const char* file, int line);
void test_assert_status_code(hrx_status_t status, hrx_status_code_t code,
                             const char* file, int line);

/* A fresh directory under $TMPDIR (or /tmp), removed with its contents by
 * test_temp_dir_remove. Returns a malloc'ed path. */
char* test_temp_dir_create(void);
void test_temp_dir_remove(char* path);

/* Entries of directory |dir| other than "." and "..", leaving out names
 * that end in |skip_suffix| (may be NULL); a missing directory has none. */
size_t test_dir_count(const char* dir, const char* skip_suffix);

/* Writes |length| bytes to |path| (test setup; aborts the test on error). */
void test_write_file(const char* path, const void* data, size_t length);

/* The whole of file |path| (at most 1 MiB), NUL-terminated; free() it. */
char* test_read_text(const char* path);

/* snprintf into a malloc'ed string. */
char* test_strdup_printf(const char* format, ...) HRX_PRINTF(1, 2);

/* Whether the test runs under valgrind (the valgrind test setup sets
 * HRX_TEST_VALGRIND): timing checks mean nothing there, and long sweeps
 * shrink to the inputs that exercise every code path once. */
bool test_under_valgrind(void);

#endif /* HRX_TESTS_TEST_SUPPORT_H_ */
