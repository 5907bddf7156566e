/* Private helpers shared by the image ops' source files. */
#ifndef HRX_MODEL_SRC_IMAGE_INTERNAL_H_
#define HRX_MODEL_SRC_IMAGE_INTERNAL_H_

#include <stdatomic.h>

#include "hrx/model.h"
#include "ops_common.h"

/* The image kernels: embedded file and export of each (image_record.c). */
typedef enum hrx_model_image_kernel_e {
  HRX_MODEL_IMAGE_KERNEL_AFFINE = 0,
  HRX_MODEL_IMAGE_KERNEL_NORMALIZE,
  HRX_MODEL_IMAGE_KERNEL_RESIZE,
  HRX_MODEL_IMAGE_KERNEL_COMPOSITE,
  HRX_MODEL_IMAGE_KERNEL_FINITE_CLEAR,
  HRX_MODEL_IMAGE_KERNEL_FINITE,
  HRX_MODEL_IMAGE_KERNEL_COUNT,
} hrx_model_image_kernel_t;

/* Compiles every image kernel into |session| in one batch (already
 * compiled ones are found by digest). */
hrx_status_t hrx_model_image_compile_all(hrx_model_session_t* session);

/* Checks that an image of |width| x |height| RGB8 pixels is within the
 * limits; |what| names it in the message. */
hrx_status_t hrx_model_image_check_size(uint32_t width, uint32_t height,
                                        const char* what);
/* Resolves |rect| (NULL or zero-sized: the whole image) against an image of
 * |width| x |height| into |out_rect|, or INVALID_ARGUMENT. */
hrx_status_t hrx_model_image_rect_resolve(const hrx_model_image_rect_t* rect,
                                          uint32_t width, uint32_t height,
                                          hrx_model_image_rect_t* out_rect);

/* Validates an op's shapes and answers its output's descriptor (the record
 * functions and the ops share them). */
hrx_status_t hrx_model_image_affine_output(
    const hrx_model_image_affine_desc_t* desc,
    hrx_model_tensor_desc_t* out_desc);
hrx_status_t hrx_model_image_normalize_output(
    const hrx_model_image_normalize_desc_t* desc,
    hrx_model_tensor_desc_t* out_desc);
hrx_status_t hrx_model_image_resize_output(
    const hrx_model_image_resize_desc_t* desc,
    hrx_model_tensor_desc_t* out_desc);
hrx_status_t hrx_model_image_composite_output(
    const hrx_model_image_composite_desc_t* desc,
    hrx_model_tensor_desc_t* out_desc);

/*===------------------------------------------------------------------===*/
/* ImageOps internals                                                      */
/*===------------------------------------------------------------------===*/

struct hrx_model_image_s {
  hrx_allocator_t allocator;
  atomic_uint_fast32_t references;
  hrx_model_frozen_t* frozen; /* the pixels, as one frozen weight */
  uint32_t width, height;
  uint64_t serial; /* process-unique: names the image in plan keys */
};

typedef enum hrx_model_image_op_e {
  HRX_MODEL_IMAGE_OP_AFFINE = 1,
  HRX_MODEL_IMAGE_OP_NORMALIZE,
  HRX_MODEL_IMAGE_OP_RESIZE,
  HRX_MODEL_IMAGE_OP_COMPOSITE,
} hrx_model_image_op_t;

/* Everything a plan is built for. Zeroed before it is filled: plan keys
 * hash its bytes, padding included. */
typedef struct hrx_model_image_spec_t {
  hrx_model_image_op_t op;
  uint64_t serials[2]; /* the images the plan binds */
  hrx_model_image_affine_desc_t affine;
  hrx_model_image_normalize_desc_t normalize;
  hrx_model_image_resize_desc_t resize;
  hrx_model_image_composite_desc_t composite;
} hrx_model_image_spec_t;

/* One call's plan request: the spec (first: requests begin with it), its
 * images and per-call input. */
typedef struct hrx_model_image_request_t {
  hrx_model_image_spec_t spec;
  hrx_model_image_t* images[2];
  size_t image_count;
  uint64_t input_bytes; /* f32 runtime data uploaded per call */
  hrx_model_tensor_desc_t output;
} hrx_model_image_request_t;

struct hrx_model_image_ops_s {
  hrx_model_ops_t base; /* first: the ops are ops of this kind */
};

/* The image ops' kind: their kernels, spec and plans (image_plan.c). */
extern const hrx_model_ops_kind_t hrx_model_image_ops_kind;

#endif /* HRX_MODEL_SRC_IMAGE_INTERNAL_H_ */
