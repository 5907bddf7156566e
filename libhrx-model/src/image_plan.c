/* ImageOps plans: per shape, an ops plan (ops_common.h) adopting the
 * images it samples, whose private slots each own an input and an output
 * region. */
#include <stddef.h>

#include "image_internal.h"

typedef struct hrx_model_image_plan_t {
  hrx_model_ops_plan_t base;
  hrx_model_image_spec_t spec;
  uint64_t input_bytes; /* f32 runtime data uploaded per call */
  hrx_model_tensor_desc_t output;
  hrx_model_region_t images[2]; /* adopted */
} hrx_model_image_plan_t;

/* Adopts the request's images into the plan's session, which holds them
 * (not the caller's references) from then on. */
static hrx_status_t hrx_model_image_plan_bind(hrx_model_ops_plan_t* base,
                                              const void* opaque) {
  hrx_model_image_plan_t* plan = (hrx_model_image_plan_t*)base;
  const hrx_model_image_request_t* request = opaque;
  plan->input_bytes = request->input_bytes;
  plan->output = request->output;
  for (size_t i = 0; i < request->image_count; ++i) {
    HRX_RETURN_IF_ERROR(hrx_model_session_adopt(
        base->session, request->images[i]->frozen, &plan->images[i], NULL));
  }
  return HRX_OK;
}

/* Records slot |slot|'s graph (key |slot|) over its regions. */
static hrx_status_t hrx_model_image_plan_record(hrx_model_image_plan_t* plan,
                                                uint32_t slot,
                                                hrx_model_region_t input,
                                                hrx_model_region_t output) {
  const hrx_model_image_spec_t* spec = &plan->spec;
  hrx_model_session_t* s = plan->base.session;
  hrx_model_binding_t in = {input, 0, 0, HRX_GPU_ACCESS_READ};
  hrx_model_binding_t out = {output, 0, 0, HRX_GPU_ACCESS_WRITE};
  hrx_model_binding_t first = {plan->images[0], 0, 0, HRX_GPU_ACCESS_READ};
  hrx_model_binding_t second = {plan->images[1], 0, 0, HRX_GPU_ACCESS_READ};
  switch (spec->op) {
    case HRX_MODEL_IMAGE_OP_AFFINE:
      return hrx_model_image_record_affine(s, slot, &spec->affine, first, in,
                                           out);
    case HRX_MODEL_IMAGE_OP_NORMALIZE:
      return hrx_model_image_record_normalize(s, slot, &spec->normalize, first,
                                              in, out);
    case HRX_MODEL_IMAGE_OP_RESIZE:
      return hrx_model_image_record_resize(s, slot, &spec->resize, first, out);
    case HRX_MODEL_IMAGE_OP_COMPOSITE:
      return hrx_model_image_record_composite(s, slot, &spec->composite, first,
                                              second, out);
  }
  return hrx_make_status(HRX_STATUS_INTERNAL, "unknown image op %d",
                         (int)spec->op);
}

static hrx_status_t hrx_model_image_slot_factory(void* user,
                                                 hrx_model_session_t* session,
                                                 uint32_t slot,
                                                 hrx_model_slot_graph_t* out) {
  hrx_model_image_plan_t* plan = user;
  uint64_t output_bytes = 0;
  HRX_RETURN_IF_ERROR(
      hrx_model_tensor_desc_extent(&plan->output, &output_bytes));
  hrx_model_region_t input = {0}, output = {0};
  if (plan->input_bytes) {
    HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
        session, plan->input_bytes, HRX_MODEL_PLACEMENT_DEVICE, &input));
  }
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, output_bytes, HRX_MODEL_PLACEMENT_COHERENT, &output));
  HRX_RETURN_IF_ERROR(hrx_model_image_plan_record(plan, slot, input, output));
  *out = (hrx_model_slot_graph_t){.graph = slot, .output_count = 1};
  if (plan->input_bytes) {
    out->input_count = 1;
    out->inputs[0] = (hrx_model_io_t){
        {input, 0, 0, HRX_GPU_ACCESS_WRITE},
        {HRX_MODEL_DTYPE_F32, 1, {plan->input_bytes / sizeof(float)}, {0}}};
  }
  out->outputs[0] =
      (hrx_model_io_t){{output, 0, 0, HRX_GPU_ACCESS_READ}, plan->output};
  return HRX_OK;
}

const hrx_model_ops_kind_t hrx_model_image_ops_kind = {
    .name = "image",
    .ops_size = sizeof(hrx_model_image_ops_t),
    .plan_size = sizeof(hrx_model_image_plan_t),
    .default_plans = 8,
    .spec_size = sizeof(hrx_model_image_spec_t),
    .spec_offset = offsetof(hrx_model_image_plan_t, spec),
    .compile = hrx_model_image_compile_all,
    .bind = hrx_model_image_plan_bind,
    .factory = hrx_model_image_slot_factory,
};
