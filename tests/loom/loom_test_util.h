/* Helpers for the loom suite: parse text or corpus files, expect codes. */
#ifndef HRX_TESTS_LOOM_TEST_UTIL_H_
#define HRX_TESTS_LOOM_TEST_UTIL_H_

#include "hrx/loom.h"
#include "test_support.h"

/* Reads libhrx-loom/kernels/<name> (directory from $HRX_LOOM_KERNELS). */
char* loom_test_read_kernel(const char* name, size_t* out_length);

/* Parses |text|; on failure prints the diagnostics and fails the test. */
hrx_loom_module_t* loom_test_parse_ok(const char* text);

/* Parses |text| expecting failure; returns the diagnostics (caller
 * destroys). */
hrx_loom_diagnostics_t* loom_test_parse_fail(const char* text);

/* Asserts that |diagnostics| holds an error with |code| at line:column
 * (column 0 = any). */
void loom_test_expect_diag(const hrx_loom_diagnostics_t* diagnostics,
                           hrx_loom_diag_code_t code, uint32_t line,
                           uint32_t column);

/* Canonical text of a module (malloc'ed). */
char* loom_test_print(const hrx_loom_module_t* module);

#endif /* HRX_TESTS_LOOM_TEST_UTIL_H_ */
