/* Helpers for loom tests that run kernels on the host device. */
#ifndef HRX_TESTS_LOOM_TEST_HOST_H_
#define HRX_TESTS_LOOM_TEST_HOST_H_

#include <stdbool.h>
#include <stddef.h>

#include "host_harness.h"

/* Reads tests/kernels/|file| (checking that it round-trips) and loads it
 * into |h| with native host code on or off, then asserts that each of the
 * NULL-terminated |kernels| runs as native code exactly when |native| was
 * asked for and the host has native code (HRX_TEST_NATIVE).
 * HRX_HOST_NATIVE=0 in the test's own environment (meson test --setup
 * interpreter) keeps native code off for every load. */
void loom_test_load_path(harness_t* h, const char* file,
                         const char* const* kernels, bool native);

#endif /* HRX_TESTS_LOOM_TEST_HOST_H_ */
