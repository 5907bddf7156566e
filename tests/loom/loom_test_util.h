/* Helpers for the loom suite: parse text or corpus files, expect codes. */
#ifndef HRX_TESTS_LOOM_TEST_UTIL_H_
#define HRX_TESTS_LOOM_TEST_UTIL_H_

#include "hrx/loom.h"
#include "test_support.h"

/* Reads libhrx-loom/kernels/<name> (directory from $HRX_LOOM_KERNELS). */
char* loom_test_read_kernel(const char* name, size_t* out_length);

/* Reads <directory named by $dir_variable>/<name>. */
char* loom_test_read_file(const char* dir_variable, const char* name,
                          size_t* out_length);

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

/* Asserts that |head| + |op| + "\n" + |tail| fails to parse or verify
 * with an error |code| on |op|'s last line (|head| holds |head_lines|
 * lines) at |column| (0: any) whose message contains |words|. */
void loom_test_expect_rejected(const char* head, uint32_t head_lines,
                               const char* tail, const char* op,
                               hrx_loom_diag_code_t code, uint32_t column,
                               const char* words);

/* Canonical text of a module (malloc'ed). */
char* loom_test_print(const hrx_loom_module_t* module);

/* Asserts print(parse(print(parse(text)))) == print(parse(text)). */
void loom_test_expect_round_trip(const char* text);

/* Asserts that the printed form of |text| contains |needle|. */
void loom_test_expect_printed(const char* text, const char* needle);

/* Asserts that each of |forms|, written on its own line between |head|
 * and |tail|, parses, prints as written and round-trips. */
void loom_test_expect_forms(const char* head, const char* tail,
                            const char* const* forms, size_t count);

/* The next value of a fixed linear congruential sequence seeded by *|x|
 * (24 bits): test inputs that are the same on every run. */
uint32_t loom_test_next(uint32_t* x);

/* The f32 whose bits are |bits|, and the bits of |value|. */
float loom_test_f32(uint32_t bits);
uint32_t loom_test_bits(float value);

/* The error of |got| from the exact |expected| in ULPs of the f32 result
 * (an f32 result is at best 0.5 away). Non-finite and zero results must
 * match exactly, sign included; INFINITY marks a mismatch. */
double loom_test_ulp_error(float got, double expected);

/* Reads tests/kernels/<name> ($HRX_TEST_KERNELS) and checks that it
 * round-trips through the printer. */
char* loom_test_read_test_kernel(const char* name, size_t* out_length);

#endif /* HRX_TESTS_LOOM_TEST_UTIL_H_ */
