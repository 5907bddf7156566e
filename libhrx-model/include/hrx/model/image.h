/* Image ops: resident RGB8 images and the device operations on them.
 *
 * Images are packed RGB8, row-major: pixel (x, y) channel c is byte
 * (y * width + x) * 3 + c. Every operation exists in two forms:
 *
 * - A fragment: hrx_model_image_record_* records the operation as graph
 *   |key| of a caller's session over the caller's regions (compiling its
 *   embedded Loom kernel into that session once), so it composes with
 *   model kernels through hrx_model_session_replay/record_into and
 *   PreparedModel slots like any recorded graph.
 * - An op on an ImageOps object: the image stays resident on the device
 *   (uploaded once) and each call returns the result as a DeviceTensor
 *   (hrx/model/tensor.h) holding a slot lease. Only the call's small
 *   runtime data (inverse matrices, mean and std) is uploaded per call.
 *   Each distinct shape (op, image, output size, view, ...) gets one plan:
 *   a session of the ops' context holding a PreparedModel whose private
 *   slots (each with its own input and output regions) serve every later
 *   call of that shape. Plans live in a bounded PlanCache
 *   (hrx/model/plan_cache.h); an evicted plan whose tensors are still
 *   alive is freed once the last of them is released and another call
 *   (or the ops' destruction) notices.
 *
 * Arithmetic contracts (all f32, every product and sum rounded in the
 * order written, no fused multiply-add; the results are byte- or
 * bit-exact, and tests/model/ref_image_ops.py restates them in numpy):
 *
 * - Affine: crop c's output pixel (x, y) samples the source at
 *   sx = (m0*x + m1*y) + m2, sy = (m3*x + m4*y) + m5 with the inverse map
 *   m = inverse[c] (row-major 2x3; maps integer output pixel coordinates to
 *   source pixel coordinates). A coordinate outside (-1, W) x (-1, H), NaN
 *   or infinite gives black. Otherwise fx = floor(sx), tx = sx - fx and
 *   the weights are (1 - tx, tx) (likewise y); the four taps (fx, fy),
 *   (fx+1, fy), (fx, fy+1), (fx+1, fy+1) are summed in that order from
 *   0.0 as (value * wx) * wy, taps outside the source being black; the sum
 *   is rounded half to even and clamped to 0..255.
 * - Resize (bilinear, half-pixel centres, replicated border): scale =
 *   (float)view / (float)output per axis; s = max((d + 0.5) * scale - 0.5,
 *   0); taps floor(s) and floor(s) + 1 clamped to the view; value =
 *   (v00*wx0 + v01*wx1) * wy0 + (v10*wx0 + v11*wx1) * wy1, rounded half to
 *   even.
 * - Normalize: (v * scale - mean[c]) * inv_std[c], with scale = 1/255 and
 *   inv_std[c] = 1 / std[c] rounded to f32 on the host
 *   (hrx_model_image_normalize_params). Output planar f32 [3, h, w], or
 *   patchified [(h/p)*(w/p), 3*p*p]: patches row-major, each patch's values
 *   in (channel, row, column) order, as a [d, 3, p, p] convolution weight
 *   flattens.
 * - Composite: base * (1 - alpha) + overlay * alpha (1 - alpha rounded to
 *   f32 first), rounded half to even, where the overlay covers the base;
 *   elsewhere the base is copied.
 * - Finite: counts the f32 values whose exponent bits are all set (NaN and
 *   infinities), by bit pattern.
 *
 * Views: normalize and resize read a rectangle of their image (an RGB
 * view, hrx_model_image_rect_t) in place; affine crops are views under
 * any map.
 *
 * Limits: image and output axes 1..HRX_MODEL_IMAGE_MAX_AXIS (so pixel
 * coordinates are exact in f32), at most HRX_MODEL_IMAGE_MAX_CROPS crops,
 * and every image or output at most HRX_MODEL_IMAGE_MAX_BYTES bytes (so
 * kernel indices fit 32 bits). A request past a limit is INVALID_ARGUMENT
 * naming it.
 *
 * Threads. Fragment recording and similarity fitting may be called from
 * any thread (the session serialises recording). An ImageOps object and
 * its images may be used from any thread at once: plans are shared
 * through the PlanCache, and each call takes a slot of its own; when every
 * slot of a plan holds unreleased tensors the call is BUSY. Nothing here
 * starts threads.
 */
#ifndef HRX_MODEL_IMAGE_H_
#define HRX_MODEL_IMAGE_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core/struct.h"
#include "hrx/model/plan_cache.h"
#include "hrx/model/session.h"
#include "hrx/model/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_MODEL_IMAGE_MAX_AXIS 32767u
#define HRX_MODEL_IMAGE_MAX_CROPS 4096u
#define HRX_MODEL_IMAGE_MAX_BYTES 0x7fffffffull

/* A rectangle of an image: pixels [x, x + width) x [y, y + height). A
 * width or height of zero means the whole image (x and y must be 0). */
typedef struct hrx_model_image_rect_t {
  uint32_t x, y, width, height;
} hrx_model_image_rect_t;

/*===------------------------------------------------------------------===*/
/* Fragments: recorded into a caller's session                            */
/*===------------------------------------------------------------------===*/

/* Each record function validates its shapes, compiles its kernel into
 * |session| (once per session), and records graph |key| (errors as
 * hrx_model_session_record: ALREADY_EXISTS for a taken key, OUT_OF_RANGE
 * for a binding outside its region). Bindings name where each operand
 * lives; their access is set by the op. A binding length of 0 means
 * exactly the operand's bytes; a nonzero length shorter than them is
 * INVALID_ARGUMENT. */

typedef struct hrx_model_image_affine_desc_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint32_t src_width, src_height; /* the source image */
  uint32_t crops, width, height;  /* output: u8 [crops, height, width, 3] */
} hrx_model_image_affine_desc_t;

/* Operands: |image| (u8, src_width * src_height * 3), |inverse| (f32
 * [crops, 2, 3], read at run time), |output|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_image_record_affine(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_image_affine_desc_t* desc, hrx_model_binding_t image,
    hrx_model_binding_t inverse, hrx_model_binding_t output);

typedef struct hrx_model_image_normalize_desc_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint32_t src_width, src_height;
  hrx_model_image_rect_t view;
  /* 0: planar f32 [3, h, w]; p > 0: patchified f32 [(h/p)*(w/p), 3*p*p],
   * where p must divide the view's width and height. */
  uint32_t patch;
} hrx_model_image_normalize_desc_t;

/* The 7 f32 a normalize fragment reads: {1/255, mean[3], 1/std[3]}.
 * INVALID_ARGUMENT when a mean or std is not finite or a std is zero. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_image_normalize_params(
    const float mean[3], const float std[3], float out_params[7]);

/* Operands: |image| (u8), |params| (7 f32, read at run time), |output|
 * (f32, 3 * w * h values). */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_image_record_normalize(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_image_normalize_desc_t* desc, hrx_model_binding_t image,
    hrx_model_binding_t params, hrx_model_binding_t output);

typedef struct hrx_model_image_resize_desc_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint32_t src_width, src_height;
  hrx_model_image_rect_t view;
  uint32_t width, height; /* output: u8 [height, width, 3] */
} hrx_model_image_resize_desc_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_model_image_record_resize(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_image_resize_desc_t* desc, hrx_model_binding_t image,
    hrx_model_binding_t output);

typedef struct hrx_model_image_composite_desc_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint32_t width, height;           /* the base, and the output */
  uint32_t over_width, over_height; /* the overlay */
  /* The overlay's top-left pixel in base coordinates; it may lie partly
   * (or wholly) outside the base. */
  int32_t x, y;
  float alpha; /* 0..1 */
} hrx_model_image_composite_desc_t;

/* Operands: |base| and |overlay| (u8), |output| (u8, like the base). */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_image_record_composite(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_image_composite_desc_t* desc, hrx_model_binding_t base,
    hrx_model_binding_t overlay, hrx_model_binding_t output);

/* Counts the NaN and infinite values of the tensor |desc| describes
 * (contiguous F32; another dtype or strides are INVALID_ARGUMENT), stored
 * at |values|, into the u32 at |counter| (cleared by the graph itself
 * first), so a model graph can check its activations on the device. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_image_record_finite(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_tensor_desc_t* desc, hrx_model_binding_t values,
    hrx_model_binding_t counter);

/*===------------------------------------------------------------------===*/
/* Similarity fitting (host)                                               */
/*===------------------------------------------------------------------===*/

/* The similarity transform (rotation, uniform scale, translation; no
 * reflection) that maps |count| 2-D points |src| (x, y pairs) onto |dst|
 * best in least squares (Umeyama's closed form, accumulated in double),
 * as a row-major 2x3 |out_matrix| and its inverse |out_inverse| (the form
 * hrx_model_image_affine takes: output -> source when |src| are the
 * output-side points). INVALID_ARGUMENT for missing arrays, fewer than two
 * points or a non-finite coordinate; FAILED_PRECONDITION for degenerate
 * input (all source points, or all destination points, coincide, or the
 * result is not finite). It runs on the host: the fit is a few dozen
 * operations whose result is runtime data for the affine op. */
HRX_API HRX_MUST_USE hrx_status_t
hrx_model_image_fit_similarity(const float* src, const float* dst, size_t count,
                               float out_matrix[6], float out_inverse[6]);

/*===------------------------------------------------------------------===*/
/* ImageOps                                                                */
/*===------------------------------------------------------------------===*/

typedef struct hrx_model_image_ops_s hrx_model_image_ops_t;
typedef struct hrx_model_image_s hrx_model_image_t;

/* plan_capacity 0: 8 plans. */
typedef hrx_model_plan_ops_options_t hrx_model_image_ops_options_t;

/* Image ops in |session|'s context (its runtime, budget and compiler);
 * compiles the image kernels once. |options| may be NULL. The session
 * itself is only borrowed during the call. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_image_ops_create(
    hrx_model_session_t* session, const hrx_model_image_ops_options_t* options,
    hrx_model_image_ops_t** out_ops);
/* Frees every plan. Every tensor the ops returned must have been released
 * (images may outlive the ops). NULL is accepted. */
HRX_API void hrx_model_image_ops_destroy(hrx_model_image_ops_t* ops);

typedef hrx_model_plan_ops_stats_t hrx_model_image_ops_stats_t;
HRX_API HRX_MUST_USE hrx_status_t hrx_model_image_ops_stats(
    hrx_model_image_ops_t* ops, hrx_model_image_ops_stats_t* out_stats);

/* Uploads |width| x |height| packed RGB8 pixels once; the image is
 * immutable and resident until its last user is gone. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_image_upload(
    hrx_model_image_ops_t* ops, const uint8_t* rgb, uint32_t width,
    uint32_t height, hrx_model_image_t** out_image);
/* Drops the caller's reference; plans sampling the image keep its pixels
 * until they are evicted. NULL is accepted. */
HRX_API void hrx_model_image_release(hrx_model_image_t* image);
HRX_API uint32_t hrx_model_image_width(const hrx_model_image_t* image);
HRX_API uint32_t hrx_model_image_height(const hrx_model_image_t* image);

/* |crops| affine crops of |image|: |inverse| holds crops * 6 f32 (the
 * maps, runtime data: every call with the same shapes reuses one plan).
 * A non-finite element is INVALID_ARGUMENT naming it (the fragment, whose
 * matrices are device data, samples black instead). Output u8
 * [crops, height, width, 3]. */
HRX_API HRX_MUST_USE hrx_status_t
hrx_model_image_affine(hrx_model_image_ops_t* ops, hrx_model_image_t* image,
                       const float* inverse, uint32_t crops, uint32_t width,
                       uint32_t height, hrx_model_tensor_t** out_tensor);

/* Normalizes view |rect| (NULL: the whole image) with per-channel |mean|
 * and |std| (runtime data); |patch| as in the normalize fragment. Output
 * f32 [3, h, w] or [patches, 3*p*p]. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_image_normalize(
    hrx_model_image_ops_t* ops, hrx_model_image_t* image,
    const hrx_model_image_rect_t* rect, const float mean[3], const float std[3],
    uint32_t patch, hrx_model_tensor_t** out_tensor);

/* Resizes view |rect| (NULL: the whole image) to u8 [height, width, 3]. */
HRX_API HRX_MUST_USE hrx_status_t
hrx_model_image_resize(hrx_model_image_ops_t* ops, hrx_model_image_t* image,
                       const hrx_model_image_rect_t* rect, uint32_t width,
                       uint32_t height, hrx_model_tensor_t** out_tensor);

/* Blends |overlay| into |base| at (x, y) with |alpha| (both resident;
 * the placement and alpha are part of the plan). Output u8 like |base|. */
HRX_API HRX_MUST_USE hrx_status_t
hrx_model_image_composite(hrx_model_image_ops_t* ops, hrx_model_image_t* base,
                          hrx_model_image_t* overlay, int32_t x, int32_t y,
                          float alpha, hrx_model_tensor_t** out_tensor);

#ifdef __cplusplus
}
#endif

#endif /* HRX_MODEL_IMAGE_H_ */
