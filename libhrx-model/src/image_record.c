/* Image fragments: each op's kernel compiled into the caller's session
 * and recorded over the caller's regions. */
#include <math.h>
#include <string.h>

#include "image_internal.h"

static const hrx_model_ops_kernel_t
    hrx_model_image_kernels[HRX_MODEL_IMAGE_KERNEL_COUNT] = {
    [HRX_MODEL_IMAGE_KERNEL_AFFINE] = {"image_affine", "image_affine"},
    [HRX_MODEL_IMAGE_KERNEL_NORMALIZE] = {"image_normalize", "image_normalize"},
    [HRX_MODEL_IMAGE_KERNEL_RESIZE] = {"image_resize", "image_resize"},
    [HRX_MODEL_IMAGE_KERNEL_COMPOSITE] = {"image_composite", "image_composite"},
    [HRX_MODEL_IMAGE_KERNEL_FINITE_CLEAR] = {"image_finite",
                                             "image_finite_clear"},
    [HRX_MODEL_IMAGE_KERNEL_FINITE] = {"image_finite", "image_finite"},
};

hrx_status_t hrx_model_image_compile_all(hrx_model_session_t* session) {
  hrx_model_kernel_t kernels[HRX_MODEL_IMAGE_KERNEL_COUNT];
  return hrx_model_ops_compile(session, hrx_model_image_kernels,
                               HRX_MODEL_IMAGE_KERNEL_COUNT, kernels);
}

/* The session's id for kernel |which|: compiled on first use, found by
 * digest afterwards. */
static hrx_status_t hrx_model_image_kernel(hrx_model_session_t* session,
                                           hrx_model_image_kernel_t which,
                                           hrx_model_kernel_t* out_kernel) {
  return hrx_model_ops_compile(session, &hrx_model_image_kernels[which], 1,
                               out_kernel);
}

static uint64_t hrx_model_f32_bits(float value) {
  uint32_t bits = 0;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

static uint64_t hrx_model_image_bytes_of(uint32_t width, uint32_t height) {
  return (uint64_t)width * height * 3;
}

/* Compiles |which| and records one dispatch of it as graph |key|. */
static hrx_status_t hrx_model_image_record_one(
    hrx_model_session_t* session, uint64_t key, hrx_model_image_kernel_t which,
    uint64_t work, const hrx_model_arg_t* args, size_t arg_count) {
  hrx_model_kernel_t kernel;
  HRX_RETURN_IF_ERROR(hrx_model_image_kernel(session, which, &kernel));
  hrx_model_dispatch_t dispatch = {kernel, &work, 1, args, arg_count};
  return hrx_model_session_record(session, key, &dispatch, 1);
}

hrx_status_t hrx_model_image_record_affine(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_image_affine_desc_t* caller_desc, hrx_model_binding_t image,
    hrx_model_binding_t inverse, hrx_model_binding_t output) {
  hrx_model_image_affine_desc_t local_desc;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_model_image_affine_desc_t, height,
                                      caller_desc, &local_desc));
  const hrx_model_image_affine_desc_t* desc = &local_desc;
  hrx_model_tensor_desc_t out;
  HRX_RETURN_IF_ERROR(hrx_model_image_affine_output(desc, &out));
  uint64_t pixels = (uint64_t)desc->width * desc->height;
  uint64_t count = pixels * desc->crops;
  hrx_model_arg_t args[8] = {
      hrx_model_arg_scalar(count),
      hrx_model_arg_scalar(desc->width),
      hrx_model_arg_scalar(pixels),
      hrx_model_arg_scalar(desc->src_width),
      hrx_model_arg_scalar(desc->src_height),
  };
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(
      inverse, (uint64_t)desc->crops * 6 * sizeof(float), HRX_GPU_ACCESS_READ,
      "the inverse matrices", &args[5]));
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(
      image, hrx_model_image_bytes_of(desc->src_width, desc->src_height),
      HRX_GPU_ACCESS_READ, "the image", &args[6]));
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(
      output, count * 3, HRX_GPU_ACCESS_WRITE, "the output", &args[7]));
  return hrx_model_image_record_one(session, key, HRX_MODEL_IMAGE_KERNEL_AFFINE,
                                    count, args, 8);
}

hrx_status_t hrx_model_image_normalize_params(const float mean[3],
                                              const float std[3],
                                              float out_params[7]) {
  if (!mean || !std || !out_params) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "normalize needs a mean, a std and room for the "
                           "params");
  }
  out_params[0] = 1.0f / 255.0f;
  for (int c = 0; c < 3; ++c) {
    if (!isfinite(mean[c]) || !isfinite(std[c]) || std[c] == 0.0f) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "channel %d: mean %g and std %g must be finite, "
                             "the std nonzero",
                             c, (double)mean[c], (double)std[c]);
    }
    out_params[1 + c] = mean[c];
    out_params[4 + c] = 1.0f / std[c];
    if (!isfinite(out_params[4 + c])) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "channel %d: 1 / std %g overflows f32", c,
                             (double)std[c]);
    }
  }
  return HRX_OK;
}

hrx_status_t hrx_model_image_record_normalize(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_image_normalize_desc_t* caller_desc,
    hrx_model_binding_t image,
    hrx_model_binding_t params, hrx_model_binding_t output) {
  hrx_model_image_normalize_desc_t local_desc;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_model_image_normalize_desc_t, patch,
                                      caller_desc, &local_desc));
  const hrx_model_image_normalize_desc_t* desc = &local_desc;
  hrx_model_tensor_desc_t out;
  HRX_RETURN_IF_ERROR(hrx_model_image_normalize_output(desc, &out));
  hrx_model_image_rect_t v;
  HRX_RETURN_IF_ERROR(hrx_model_image_rect_resolve(&desc->view, desc->src_width,
                                                   desc->src_height, &v));
  uint64_t count = (uint64_t)v.width * v.height * 3;
  hrx_model_arg_t args[10] = {
      hrx_model_arg_scalar(count),
      hrx_model_arg_scalar(v.width),
      hrx_model_arg_scalar(desc->patch),
      hrx_model_arg_scalar(desc->src_width),
      hrx_model_arg_scalar(desc->src_height),
      hrx_model_arg_scalar(v.x),
      hrx_model_arg_scalar(v.y),
  };
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(
      params, 7 * sizeof(float), HRX_GPU_ACCESS_READ, "the params", &args[7]));
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(
      image, hrx_model_image_bytes_of(desc->src_width, desc->src_height),
      HRX_GPU_ACCESS_READ, "the image", &args[8]));
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(output, count * sizeof(float),
                                            HRX_GPU_ACCESS_WRITE, "the output",
                                            &args[9]));
  return hrx_model_image_record_one(
      session, key, HRX_MODEL_IMAGE_KERNEL_NORMALIZE, count, args, 10);
}

hrx_status_t hrx_model_image_record_resize(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_image_resize_desc_t* caller_desc, hrx_model_binding_t image,
    hrx_model_binding_t output) {
  hrx_model_image_resize_desc_t local_desc;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_model_image_resize_desc_t, height,
                                      caller_desc, &local_desc));
  const hrx_model_image_resize_desc_t* desc = &local_desc;
  hrx_model_tensor_desc_t out;
  HRX_RETURN_IF_ERROR(hrx_model_image_resize_output(desc, &out));
  hrx_model_image_rect_t v;
  HRX_RETURN_IF_ERROR(hrx_model_image_rect_resolve(&desc->view, desc->src_width,
                                                   desc->src_height, &v));
  uint64_t count = (uint64_t)desc->width * desc->height;
  float scale_x = (float)v.width / (float)desc->width;
  float scale_y = (float)v.height / (float)desc->height;
  hrx_model_arg_t args[12] = {
      hrx_model_arg_scalar(count),
      hrx_model_arg_scalar(desc->width),
      hrx_model_arg_scalar(v.width),
      hrx_model_arg_scalar(v.height),
      hrx_model_arg_scalar(desc->src_width),
      hrx_model_arg_scalar(desc->src_height),
      hrx_model_arg_scalar(v.x),
      hrx_model_arg_scalar(v.y),
      hrx_model_arg_scalar(hrx_model_f32_bits(scale_x)),
      hrx_model_arg_scalar(hrx_model_f32_bits(scale_y)),
  };
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(
      image, hrx_model_image_bytes_of(desc->src_width, desc->src_height),
      HRX_GPU_ACCESS_READ, "the image", &args[10]));
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(
      output, count * 3, HRX_GPU_ACCESS_WRITE, "the output", &args[11]));
  return hrx_model_image_record_one(session, key, HRX_MODEL_IMAGE_KERNEL_RESIZE,
                                    count, args, 12);
}

/* The base pixels [lo, hi) an overlay at |at| of |size| covers along an
 * axis of |axis| pixels, and the overlay pixel at lo. */
static void hrx_model_image_cover(int32_t at, uint32_t size, uint32_t axis,
                                  uint32_t* lo, uint32_t* hi, uint32_t* first) {
  int64_t start = at, end = (int64_t)at + size;
  int64_t a = start < 0 ? 0 : start > (int64_t)axis ? (int64_t)axis : start;
  int64_t b = end < a ? a : end > (int64_t)axis ? (int64_t)axis : end;
  *lo = (uint32_t)a;
  *hi = (uint32_t)b;
  /* Used only when the cover is not empty; then it is below |size|. */
  *first = (uint32_t)(a - start);
}

hrx_status_t hrx_model_image_record_composite(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_image_composite_desc_t* caller_desc,
    hrx_model_binding_t base,
    hrx_model_binding_t overlay, hrx_model_binding_t output) {
  hrx_model_image_composite_desc_t local_desc;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_model_image_composite_desc_t, alpha,
                                      caller_desc, &local_desc));
  const hrx_model_image_composite_desc_t* desc = &local_desc;
  hrx_model_tensor_desc_t out;
  HRX_RETURN_IF_ERROR(hrx_model_image_composite_output(desc, &out));
  uint32_t cx0, cx1, ux0, cy0, cy1, uy0;
  hrx_model_image_cover(desc->x, desc->over_width, desc->width, &cx0, &cx1,
                        &ux0);
  hrx_model_image_cover(desc->y, desc->over_height, desc->height, &cy0, &cy1,
                        &uy0);
  uint64_t count = (uint64_t)desc->width * desc->height;
  float keep = 1.0f - desc->alpha;
  hrx_model_arg_t args[15] = {
      hrx_model_arg_scalar(count),
      hrx_model_arg_scalar(desc->width),
      hrx_model_arg_scalar(desc->over_width),
      hrx_model_arg_scalar(desc->over_height),
      hrx_model_arg_scalar(cx0),
      hrx_model_arg_scalar(cy0),
      hrx_model_arg_scalar(cx1),
      hrx_model_arg_scalar(cy1),
      hrx_model_arg_scalar(ux0),
      hrx_model_arg_scalar(uy0),
      hrx_model_arg_scalar(hrx_model_f32_bits(desc->alpha)),
      hrx_model_arg_scalar(hrx_model_f32_bits(keep)),
  };
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(
      base, count * 3, HRX_GPU_ACCESS_READ, "the base", &args[12]));
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(
      overlay, hrx_model_image_bytes_of(desc->over_width, desc->over_height),
      HRX_GPU_ACCESS_READ, "the overlay", &args[13]));
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(
      output, count * 3, HRX_GPU_ACCESS_WRITE, "the output", &args[14]));
  return hrx_model_image_record_one(
      session, key, HRX_MODEL_IMAGE_KERNEL_COMPOSITE, count, args, 15);
}

hrx_status_t hrx_model_image_record_finite(hrx_model_session_t* session,
                                           uint64_t key,
                                           const hrx_model_tensor_desc_t* desc,
                                           hrx_model_binding_t values,
                                           hrx_model_binding_t counter) {
  uint64_t bytes = 0;
  HRX_RETURN_IF_ERROR(hrx_model_tensor_desc_extent(desc, &bytes));
  if (desc->dtype != HRX_MODEL_DTYPE_F32 || desc->strides[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "finite checks contiguous F32 tensors, not %s "
                           "dtype %d",
                           desc->strides[0] ? "strided" : "contiguous",
                           (int)desc->dtype);
  }
  if (bytes > HRX_MODEL_IMAGE_MAX_BYTES) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "finite check of %llu bytes: at most %llu are "
                           "allowed",
                           (unsigned long long)bytes,
                           (unsigned long long)HRX_MODEL_IMAGE_MAX_BYTES);
  }
  uint64_t count = bytes / sizeof(float);
  hrx_model_kernel_t clear, check;
  HRX_RETURN_IF_ERROR(hrx_model_image_kernel(
      session, HRX_MODEL_IMAGE_KERNEL_FINITE_CLEAR, &clear));
  HRX_RETURN_IF_ERROR(
      hrx_model_image_kernel(session, HRX_MODEL_IMAGE_KERNEL_FINITE, &check));
  hrx_model_arg_t clear_args[1], check_args[3] = {hrx_model_arg_scalar(count)};
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(counter, sizeof(uint32_t),
                                            HRX_GPU_ACCESS_WRITE, "the counter",
                                            &clear_args[0]));
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(values, count * sizeof(float),
                                            HRX_GPU_ACCESS_READ, "the values",
                                            &check_args[1]));
  HRX_RETURN_IF_ERROR(hrx_model_ops_operand(counter, sizeof(uint32_t),
                                            HRX_GPU_ACCESS_READ_WRITE,
                                            "the counter", &check_args[2]));
  uint64_t one = 1;
  hrx_model_dispatch_t dispatches[2] = {
      {clear, &one, 1, clear_args, 1},
      {check, &count, 1, check_args, 3},
  };
  return hrx_model_session_record(session, key, dispatches, 2);
}
