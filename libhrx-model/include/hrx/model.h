/* libhrx-model: the layer inference pipelines link.
 *
 * A ModelSession (hrx/model/session.h) holds a model's resident weights,
 * compiled kernels and recorded graphs on one device; a PreparedModel
 * (hrx/model/prepared.h) serves concurrent requests from a bounded set of
 * private slots; DeviceTensors (hrx/model/tensor.h) are a request's
 * outputs, which keep their slot's storage until released. A
 * ModelContext (hrx/model/context.h) is the runtime, budget and compiler
 * several sessions share, with the frozen weights and kernels they share;
 * a PlanCache (hrx/model/plan_cache.h) prepares each keyed plan once; a
 * ResidencyManager (hrx/model/residency.h) keeps keyed units under one
 * declared byte ceiling, evicting idle ones.
 *
 * The Loom sources in libhrx-model/kernels (installed under
 * <datadir>/hrx/model-kernels; rms_norm: an f32 row scaled
 * by per-element weights; linear_f32: y = W x + b) take their shapes as
 * run-time arguments, so one compile serves every shape. Sessions compile
 * them in process like any other source, through the shared kernel cache.
 * TensorOps' and ImageOps' kernels need no shape config either: the native
 * bundle carries them precompiled for the host target, and a context given
 * a code provider (hrx/model/code_provider.h) loads them from it, verified
 * against the bundle's pins, instead of compiling; without one, or for a
 * target the bundle lacks (gfx1151), they compile in process.
 */
#ifndef HRX_MODEL_H_
#define HRX_MODEL_H_

#include "hrx/model/code_provider.h" // IWYU pragma: export
#include "hrx/model/context.h"     // IWYU pragma: export
#include "hrx/model/image.h"       // IWYU pragma: export
#include "hrx/model/plan_cache.h"  // IWYU pragma: export
#include "hrx/model/prepared.h"    // IWYU pragma: export
#include "hrx/model/residency.h"   // IWYU pragma: export
#include "hrx/model/session.h"     // IWYU pragma: export
#include "hrx/model/tensor.h"      // IWYU pragma: export
#include "hrx/model/tensor_ops.h"  // IWYU pragma: export

#ifdef __cplusplus
extern "C" {
#endif

HRX_API const char* hrx_model_version(void);

#ifdef __cplusplus
}
#endif

#endif /* HRX_MODEL_H_ */
