/* Running the hrx tool as a user would, for the CLI suites. */
#ifndef HRX_TESTS_CLI_UTIL_H_
#define HRX_TESTS_CLI_UTIL_H_

#include "test_support.h"

typedef struct run_result_t {
  int exit_code;
  char output[8192]; /* stdout and stderr together */
} run_result_t;

/* Runs "$HRX_TOOL <args>" through the shell with |env| (may be NULL)
 * prefixed; the output is cut at the buffer's size. */
void run_hrx(const char* env, const char* args, run_result_t* out);

/* Fails, showing the output, unless |r|'s output contains each string of
 * the NULL-terminated |needles|; EXPECT_OUTPUT lists them inline. */
void expect_output(const run_result_t* r, const char* const* needles);
#define EXPECT_OUTPUT(r, ...) \
  expect_output(r, (const char* const[]){__VA_ARGS__, NULL})

/* The KFD topology fixture |name| ("gfx1151", "gfx1100", "no_gpu") that
 * HRX_KFD_MODEL may name: <repo>/tests/fabric/kfd_topology/NAME, found
 * from HRX_LOOM_KERNELS (<repo>/libhrx-loom/kernels). Free it. */
char* kfd_model_fixture(const char* name);

#endif /* HRX_TESTS_CLI_UTIL_H_ */
