/* Shape rules of the image ops: limits, views and output descriptors,
 * shared by the fragments and the ImageOps calls. */
#include <math.h>

#include "image_internal.h"

static hrx_status_t hrx_model_image_axis(uint32_t value, const char* what) {
  if (value == 0 || value > HRX_MODEL_IMAGE_MAX_AXIS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s %u is outside 1..%u", what, value,
                           HRX_MODEL_IMAGE_MAX_AXIS);
  }
  return HRX_OK;
}

/* |count| items of |bytes| each must fit HRX_MODEL_IMAGE_MAX_BYTES. */
static hrx_status_t hrx_model_image_bytes(uint64_t count, uint64_t bytes,
                                          const char* what) {
  if (count > HRX_MODEL_IMAGE_MAX_BYTES / bytes) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s needs %llu bytes, past the limit of %llu", what,
                           (unsigned long long)count * bytes,
                           (unsigned long long)HRX_MODEL_IMAGE_MAX_BYTES);
  }
  return HRX_OK;
}

hrx_status_t hrx_model_image_check_size(uint32_t width, uint32_t height,
                                        const char* what) {
  hrx_status_t status = hrx_model_image_axis(width, "width");
  if (status == HRX_OK) status = hrx_model_image_axis(height, "height");
  if (status == HRX_OK) {
    status = hrx_model_image_bytes((uint64_t)width * height, 3, "the image");
  }
  return status == HRX_OK ? HRX_OK : hrx_status_annotate(status, "%s", what);
}

hrx_status_t hrx_model_image_rect_resolve(const hrx_model_image_rect_t* rect,
                                          uint32_t width, uint32_t height,
                                          hrx_model_image_rect_t* out_rect) {
  if (!rect || rect->width == 0 || rect->height == 0) {
    if (rect && (rect->x || rect->y || rect->width || rect->height)) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "view %ux%u at (%u, %u) is empty", rect->width,
                             rect->height, rect->x, rect->y);
    }
    *out_rect = (hrx_model_image_rect_t){0, 0, width, height};
    return HRX_OK;
  }
  if (rect->x >= width || rect->width > width - rect->x || rect->y >= height ||
      rect->height > height - rect->y) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "view %ux%u at (%u, %u) is not inside the %ux%u "
                           "image",
                           rect->width, rect->height, rect->x, rect->y, width,
                           height);
  }
  *out_rect = *rect;
  return HRX_OK;
}

/* The part |view| selects of a source image, whose own size is checked
 * first: the ops that read a view of their source (normalize, resize)
 * accept the same sources and views. */
static hrx_status_t hrx_model_image_source_view(
    uint32_t src_width, uint32_t src_height,
    const hrx_model_image_rect_t* view, hrx_model_image_rect_t* out_view) {
  HRX_RETURN_IF_ERROR(
      hrx_model_image_check_size(src_width, src_height, "source"));
  return hrx_model_image_rect_resolve(view, src_width, src_height, out_view);
}

static hrx_model_tensor_desc_t hrx_model_image_desc(hrx_model_dtype_t dtype,
                                                    uint32_t rank, uint64_t d0,
                                                    uint64_t d1, uint64_t d2,
                                                    uint64_t d3) {
  return (hrx_model_tensor_desc_t){dtype, rank, {d0, d1, d2, d3}, {0}};
}

hrx_status_t hrx_model_image_affine_output(
    const hrx_model_image_affine_desc_t* d, hrx_model_tensor_desc_t* out) {
  if (!d) return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no shapes");
  HRX_RETURN_IF_ERROR(
      hrx_model_image_check_size(d->src_width, d->src_height, "source"));
  if (d->crops == 0 || d->crops > HRX_MODEL_IMAGE_MAX_CROPS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%u crops: 1..%u are allowed", d->crops,
                           HRX_MODEL_IMAGE_MAX_CROPS);
  }
  HRX_RETURN_IF_ERROR(
      hrx_model_image_check_size(d->width, d->height, "each crop"));
  HRX_RETURN_IF_ERROR(hrx_model_image_bytes(
      (uint64_t)d->crops * d->width * d->height, 3, "the crops"));
  *out = hrx_model_image_desc(HRX_MODEL_DTYPE_U8, 4, d->crops, d->height,
                              d->width, 3);
  return HRX_OK;
}

hrx_status_t hrx_model_image_normalize_output(
    const hrx_model_image_normalize_desc_t* d, hrx_model_tensor_desc_t* out) {
  if (!d) return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no shapes");
  hrx_model_image_rect_t v;
  HRX_RETURN_IF_ERROR(hrx_model_image_source_view(d->src_width, d->src_height,
                                                  &d->view, &v));
  uint64_t pixels = (uint64_t)v.width * v.height;
  HRX_RETURN_IF_ERROR(hrx_model_image_bytes(pixels * 3, 4, "the output"));
  uint32_t p = d->patch;
  if (p == 0) {
    *out =
        hrx_model_image_desc(HRX_MODEL_DTYPE_F32, 3, 3, v.height, v.width, 0);
    return HRX_OK;
  }
  if (v.width % p || v.height % p) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "patch %u does not divide the %ux%u view", p,
                           v.width, v.height);
  }
  *out = hrx_model_image_desc(HRX_MODEL_DTYPE_F32, 2,
                              (uint64_t)(v.width / p) * (v.height / p),
                              (uint64_t)3 * p * p, 0, 0);
  return HRX_OK;
}

hrx_status_t hrx_model_image_resize_output(
    const hrx_model_image_resize_desc_t* d, hrx_model_tensor_desc_t* out) {
  if (!d) return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no shapes");
  hrx_model_image_rect_t v;
  HRX_RETURN_IF_ERROR(hrx_model_image_source_view(d->src_width, d->src_height,
                                                  &d->view, &v));
  HRX_RETURN_IF_ERROR(
      hrx_model_image_check_size(d->width, d->height, "the output"));
  *out = hrx_model_image_desc(HRX_MODEL_DTYPE_U8, 3, d->height, d->width, 3, 0);
  return HRX_OK;
}

hrx_status_t hrx_model_image_composite_output(
    const hrx_model_image_composite_desc_t* d, hrx_model_tensor_desc_t* out) {
  if (!d) return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no shapes");
  HRX_RETURN_IF_ERROR(hrx_model_image_check_size(d->width, d->height, "base"));
  HRX_RETURN_IF_ERROR(
      hrx_model_image_check_size(d->over_width, d->over_height, "overlay"));
  if (!isfinite(d->alpha) || d->alpha < 0.0f || d->alpha > 1.0f) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "alpha %g is outside 0..1", (double)d->alpha);
  }
  *out = hrx_model_image_desc(HRX_MODEL_DTYPE_U8, 3, d->height, d->width, 3, 0);
  return HRX_OK;
}
