/* Code providers: precompiled code objects for libhrx-model's own kernels.
 *
 * TensorOps and ImageOps run kernels embedded in the library
 * (libhrx-model/kernels). None of them needs a shape config, so one code
 * object per kernel file and device target serves every call, and the
 * native bundle carries them for the host target (tools/meson.build,
 * scripts/build-bundle) under
 *
 *   model-kernels/<profile target>/<file>-<SHA-256 of its source, hex>.hxco
 *
 * The digest in the name means a bundle built from other sources simply
 * has no entry for these, rather than a wrong one.
 *
 * libhrx-model does not link the bundle library (that would bring its
 * archive, download and JSON stacks into every inference program), so the
 * application hands it a provider: typically a few lines over
 * hrx/fabric/bundle.h that provision the pinned bundle on first use
 * (hrx_fabric_bundle_provision) and return a file's bytes with the SHA-256
 * the bundle's manifest pins for it. A context with a provider (the
 * code_provider session option) asks it for each kernel file before
 * compiling:
 * - found: the bytes are hashed and must equal the pinned digest, else
 *   the kernel is refused with DATA_LOSS naming the file and both digests
 *   (the installed bundle is damaged: reinstall it, e.g. hrx prepare);
 *   nothing falls back then, so damage is never hidden. A code object
 *   that verifies is loaded instead of compiling.
 * - NOT_FOUND: the kernel is compiled in process, as without a provider.
 * - any other status fails the call that needed the kernel, annotated.
 * A context whose compiler options ask for sanitizers never asks (bundle
 * code objects carry none), and neither do sessions compiling their own
 * sources (hrx_model_session_compile). hrx_model_context_kernel_stats
 * counts both paths.
 *
 * Threads. The provider's callbacks may run on several threads at once.
 */
#ifndef HRX_MODEL_CODE_PROVIDER_H_
#define HRX_MODEL_CODE_PROVIDER_H_

#include <stddef.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_model_code_object_t {
  const void* code; /* borrowed until the provider's release */
  size_t length;
  hrx_sha256_digest_t sha256; /* what the bundle's manifest pins */
  void* handle;               /* the provider's own, for release */
} hrx_model_code_object_t;

typedef struct hrx_model_code_provider_t {
  /* Fills |out_object| with the bundle file |name| (the path above), or
   * returns NOT_FOUND when the bundle has none. Required. */
  hrx_status_t (*find)(void* user, const char* name,
                       hrx_model_code_object_t* out_object);
  /* Frees what find handed out (NULL: nothing to free). */
  void (*release)(void* user, hrx_model_code_object_t* object);
  void* user;
} hrx_model_code_provider_t;

#ifdef __cplusplus
}
#endif

#endif /* HRX_MODEL_CODE_PROVIDER_H_ */
