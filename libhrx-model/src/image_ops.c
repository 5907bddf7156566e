/* ImageOps: resident images and the calls that run image ops on them
 * through per-shape plans. */
#include <math.h>
#include <string.h>

#include "image_internal.h"
#include "model_internal.h"

hrx_status_t hrx_model_image_ops_create(
    hrx_model_session_t* session, const hrx_model_image_ops_options_t* options,
    hrx_model_image_ops_t** out_ops) {
  if (!out_ops) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no out_ops");
  }
  *out_ops = NULL;
  hrx_model_ops_t* base = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_model_ops_create(&hrx_model_image_ops_kind, session, options, &base));
  *out_ops = (hrx_model_image_ops_t*)base;
  return HRX_OK;
}

void hrx_model_image_ops_destroy(hrx_model_image_ops_t* ops) {
  hrx_model_ops_destroy(ops ? &ops->base : NULL);
}

hrx_status_t hrx_model_image_ops_stats(hrx_model_image_ops_t* ops,
                               hrx_model_image_ops_stats_t* out_stats) {
  return hrx_model_ops_stats(&ops->base, out_stats);
}

/*===------------------------------------------------------------------===*/
/* Images                                                                  */
/*===------------------------------------------------------------------===*/

static atomic_uint_fast64_t hrx_model_image_serials = 0;

hrx_status_t hrx_model_image_upload(hrx_model_image_ops_t* ops,
                                    const uint8_t* rgb, uint32_t width,
                                    uint32_t height,
                                    hrx_model_image_t** out_image) {
  if (!out_image) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no out_image");
  }
  *out_image = NULL;
  if (!ops || !rgb) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "upload needs image ops and pixels");
  }
  HRX_RETURN_IF_ERROR(hrx_model_image_check_size(width, height, "image"));
  hrx_model_image_t* image = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(ops->base.allocator,
                                           sizeof(*image), (void**)&image));
  image->allocator = ops->base.allocator;
  atomic_init(&image->references, 1);
  image->width = width;
  image->height = height;
  image->serial = atomic_fetch_add(&hrx_model_image_serials, 1) + 1;
  /* The pixels become a frozen weight of a transient session: plans adopt
   * them, and they are freed with the last reference. */
  hrx_model_session_t* session = NULL;
  hrx_status_t status =
      hrx_model_session_create_in(ops->base.context, &session);
  hrx_model_region_t region;
  if (status == HRX_OK) {
    status = hrx_model_session_weight(session, rgb,
                                      (uint64_t)width * height * 3, &region);
  }
  if (status == HRX_OK) {
    status = hrx_model_session_freeze(session, &image->frozen);
  }
  hrx_model_session_destroy(session);
  if (status != HRX_OK) {
    hrx_allocator_free(image->allocator, image);
    return hrx_status_annotate(status, "uploading a %ux%u image", width,
                               height);
  }
  *out_image = image;
  return HRX_OK;
}

void hrx_model_image_release(hrx_model_image_t* image) {
  if (!image) return;
  if (atomic_fetch_sub(&image->references, 1) != 1) return;
  hrx_model_frozen_release(image->frozen);
  hrx_allocator_free(image->allocator, image);
}

uint32_t hrx_model_image_width(const hrx_model_image_t* image) {
  return image->width;
}

uint32_t hrx_model_image_height(const hrx_model_image_t* image) {
  return image->height;
}

/*===------------------------------------------------------------------===*/
/* Calls                                                                   */
/*===------------------------------------------------------------------===*/

static hrx_status_t hrx_model_image_call_check(hrx_model_image_ops_t* ops,
                                               hrx_model_image_t* image,
                                               hrx_model_tensor_t** out) {
  if (!out) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no out_tensor");
  }
  *out = NULL;
  if (!ops || !image) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the call needs image ops and an image");
  }
  if (image->frozen->context != ops->base.context) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the image belongs to another context");
  }
  return HRX_OK;
}

/* Runs |r|'s plan (prepared if needed) with |input|. */
static hrx_status_t hrx_model_image_call(hrx_model_image_ops_t* ops,
                                         const hrx_model_image_request_t* r,
                                         const void* input,
                                         hrx_model_tensor_t** out_tensor) {
  hrx_model_ops_input_t data = {input, r->input_bytes};
  return hrx_model_ops_call(&ops->base, r, hrx_model_ops_write_input, &data,
                            out_tensor, NULL);
}

static void hrx_model_image_request_init(hrx_model_image_request_t* r,
                                         hrx_model_image_op_t op,
                                         hrx_model_image_t* image) {
  memset(r, 0, sizeof(*r));
  r->spec.op = op;
  r->spec.serials[0] = image->serial;
  r->images[0] = image;
  r->image_count = 1;
}

hrx_status_t hrx_model_image_affine(hrx_model_image_ops_t* ops,
                                    hrx_model_image_t* image,
                                    const float* inverse, uint32_t crops,
                                    uint32_t width, uint32_t height,
                                    hrx_model_tensor_t** out_tensor) {
  HRX_RETURN_IF_ERROR(hrx_model_image_call_check(ops, image, out_tensor));
  if (!inverse) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "affine needs inverse matrices");
  }
  hrx_model_image_request_t r;
  hrx_model_image_request_init(&r, HRX_MODEL_IMAGE_OP_AFFINE, image);
  r.spec.affine = (hrx_model_image_affine_desc_t){
      sizeof(hrx_model_image_affine_desc_t), image->width, image->height,
      crops, width, height};
  HRX_RETURN_IF_ERROR(hrx_model_image_affine_output(&r.spec.affine, &r.output));
  for (uint32_t i = 0; i < crops * 6; ++i) {
    if (!isfinite(inverse[i])) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "crop %u: inverse matrix element %u is not "
                             "finite",
                             i / 6, i % 6);
    }
  }
  r.input_bytes = (uint64_t)crops * 6 * sizeof(float);
  return hrx_model_image_call(ops, &r, inverse, out_tensor);
}

hrx_status_t hrx_model_image_normalize(hrx_model_image_ops_t* ops,
                                       hrx_model_image_t* image,
                                       const hrx_model_image_rect_t* rect,
                                       const float mean[3], const float std[3],
                                       uint32_t patch,
                                       hrx_model_tensor_t** out_tensor) {
  HRX_RETURN_IF_ERROR(hrx_model_image_call_check(ops, image, out_tensor));
  float params[7];
  HRX_RETURN_IF_ERROR(hrx_model_image_normalize_params(mean, std, params));
  hrx_model_image_request_t r;
  hrx_model_image_request_init(&r, HRX_MODEL_IMAGE_OP_NORMALIZE, image);
  r.spec.normalize.struct_size = sizeof(r.spec.normalize);
  r.spec.normalize.src_width = image->width;
  r.spec.normalize.src_height = image->height;
  HRX_RETURN_IF_ERROR(hrx_model_image_rect_resolve(
      rect, image->width, image->height, &r.spec.normalize.view));
  r.spec.normalize.patch = patch;
  HRX_RETURN_IF_ERROR(
      hrx_model_image_normalize_output(&r.spec.normalize, &r.output));
  r.input_bytes = sizeof(params);
  return hrx_model_image_call(ops, &r, params, out_tensor);
}

hrx_status_t hrx_model_image_resize(hrx_model_image_ops_t* ops,
                                    hrx_model_image_t* image,
                                    const hrx_model_image_rect_t* rect,
                                    uint32_t width, uint32_t height,
                                    hrx_model_tensor_t** out_tensor) {
  HRX_RETURN_IF_ERROR(hrx_model_image_call_check(ops, image, out_tensor));
  hrx_model_image_request_t r;
  hrx_model_image_request_init(&r, HRX_MODEL_IMAGE_OP_RESIZE, image);
  r.spec.resize.struct_size = sizeof(r.spec.resize);
  r.spec.resize.src_width = image->width;
  r.spec.resize.src_height = image->height;
  HRX_RETURN_IF_ERROR(hrx_model_image_rect_resolve(
      rect, image->width, image->height, &r.spec.resize.view));
  r.spec.resize.width = width;
  r.spec.resize.height = height;
  HRX_RETURN_IF_ERROR(hrx_model_image_resize_output(&r.spec.resize, &r.output));
  return hrx_model_image_call(ops, &r, NULL, out_tensor);
}

hrx_status_t hrx_model_image_composite(hrx_model_image_ops_t* ops,
                                       hrx_model_image_t* base,
                                       hrx_model_image_t* overlay, int32_t x,
                                       int32_t y, float alpha,
                                       hrx_model_tensor_t** out_tensor) {
  HRX_RETURN_IF_ERROR(hrx_model_image_call_check(ops, base, out_tensor));
  HRX_RETURN_IF_ERROR(hrx_model_image_call_check(ops, overlay, out_tensor));
  hrx_model_image_request_t r;
  hrx_model_image_request_init(&r, HRX_MODEL_IMAGE_OP_COMPOSITE, base);
  r.spec.serials[1] = overlay->serial;
  r.images[1] = overlay;
  r.image_count = 2;
  r.spec.composite = (hrx_model_image_composite_desc_t){
      sizeof(hrx_model_image_composite_desc_t), base->width, base->height,
      overlay->width, overlay->height, x, y, alpha};
  HRX_RETURN_IF_ERROR(
      hrx_model_image_composite_output(&r.spec.composite, &r.output));
  return hrx_model_image_call(ops, &r, NULL, out_tensor);
}
