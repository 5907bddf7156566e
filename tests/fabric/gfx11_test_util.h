/* Repository kernels compiled for gfx1151, for the gfx11 model's tests. */
#ifndef HRX_TESTS_GFX11_TEST_UTIL_H_
#define HRX_TESTS_GFX11_TEST_UTIL_H_

#include "gfx11.h"
#include "hrx/loom.h"

/* Compiles $HRX_LOOM_KERNELS/|file| for gfx1151 without the kernel cache,
 * with the config assignments of NULL-terminated |config| (may be NULL). */
hrx_loom_artifact_t* gfx11_test_compile(const char* file,
                                        const char* const* config);

/* Compiles |file| as above and places its code object in memory. */
hrx_gfx11_image_t* gfx11_test_load(const char* file);
hrx_gfx11_image_t* gfx11_test_load_config(const char* file,
                                          const char* const* config);

#endif /* HRX_TESTS_GFX11_TEST_UTIL_H_ */
