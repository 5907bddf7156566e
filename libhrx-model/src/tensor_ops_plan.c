/* TensorOps plans: per shape, an ops plan (ops_common.h) binding the
 * operands' regions in place, whose private slots each own an input and an
 * output region. */
#include <stddef.h>

#include "model_internal.h"
#include "tensor_ops_internal.h"

typedef struct hrx_model_tensor_plan_t {
  hrx_model_ops_plan_t base;
  hrx_model_tensor_spec_t spec;
  /* The operands' regions, as the plan's session names them. */
  hrx_model_region_t operands[HRX_MODEL_LINEAR_MAX_PROJECTIONS];
} hrx_model_tensor_plan_t;

/* Names the spec's operands, regions of the ops' session, in the plan's
 * session. */
static hrx_status_t hrx_model_tensor_plan_bind(hrx_model_ops_plan_t* base,
                                               const void* request) {
  (void)request; /* the spec is all of it */
  hrx_model_tensor_plan_t* plan = (hrx_model_tensor_plan_t*)base;
  hrx_model_tensor_ops_t* ops = (hrx_model_tensor_ops_t*)base->ops;
  const hrx_model_tensor_spec_t* spec = &plan->spec;
  size_t count = spec->op == HRX_MODEL_TENSOR_OP_LINEAR ? spec->count : 1;
  for (size_t i = 0; i < count; ++i) {
    hrx_status_t status =
        hrx_model_session_alias(base->session, ops->session,
                                spec->operands[i].binding.region,
                                &plan->operands[i]);
    if (status != HRX_OK) return hrx_status_annotate(status, "operand %zu", i);
  }
  return HRX_OK;
}

/* |spec|'s operand |i| as the plan's session names it. */
static hrx_model_io_t hrx_model_tensor_plan_operand(
    const hrx_model_tensor_plan_t* plan, size_t i) {
  hrx_model_io_t io = plan->spec.operands[i];
  io.binding.region = plan->operands[i];
  return io;
}

/* Slot |slot| of a linear plan: x in, the projections' rows out of one
 * region, one output tensor per projection. */
static hrx_status_t hrx_model_tensor_linear_slot(hrx_model_tensor_plan_t* plan,
                                                 hrx_model_session_t* session,
                                                 uint32_t slot,
                                                 hrx_model_slot_graph_t* out) {
  const hrx_model_tensor_spec_t* spec = &plan->spec;
  uint64_t k = spec->operands[0].desc.shape[1];
  uint64_t rows = 0;
  for (size_t p = 0; p < spec->count; ++p) {
    rows += spec->operands[p].desc.shape[0];
  }
  uint64_t size = hrx_model_dtype_size(spec->output);
  hrx_model_region_t x = {0}, y = {0};
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, k * 2, HRX_MODEL_PLACEMENT_DEVICE, &x));
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, rows * size, HRX_MODEL_PLACEMENT_COHERENT, &y));
  hrx_model_linear_fragment_t f = {
      .input = {{x, 0, 0, HRX_GPU_ACCESS_READ},
                {HRX_MODEL_DTYPE_BF16, 2, {1, k}, {0}}},
      .count = spec->count,
      .output = {{y, 0, 0, HRX_GPU_ACCESS_WRITE},
                 {spec->output, 2, {1, rows}, {0}}},
  };
  for (size_t p = 0; p < spec->count; ++p) {
    f.weights[p] = hrx_model_tensor_plan_operand(plan, p);
  }
  HRX_RETURN_IF_ERROR(hrx_model_tensor_record_linear(session, slot, &f));
  *out = (hrx_model_slot_graph_t){
      .graph = slot, .input_count = 1, .output_count = spec->count};
  out->inputs[0] =
      (hrx_model_io_t){{x, 0, 0, HRX_GPU_ACCESS_WRITE}, f.input.desc};
  uint64_t first = 0;
  for (size_t p = 0; p < spec->count; ++p) {
    uint64_t n = spec->operands[p].desc.shape[0];
    out->outputs[p] =
        (hrx_model_io_t){{y, first * size, n * size, HRX_GPU_ACCESS_READ},
                         {spec->output, 2, {1, n}, {0}}};
    first += n;
  }
  return HRX_OK;
}

/* Slot |slot| of a gather plan: the count and indices in, the bucket's
 * rows out. */
static hrx_status_t hrx_model_tensor_gather_slot(hrx_model_tensor_plan_t* plan,
                                                 hrx_model_session_t* session,
                                                 uint32_t slot,
                                                 hrx_model_slot_graph_t* out) {
  const hrx_model_tensor_spec_t* spec = &plan->spec;
  const hrx_model_tensor_desc_t* table = &spec->operands[0].desc;
  uint64_t capacity = spec->capacity;
  uint64_t row_bytes = table->shape[1] * hrx_model_dtype_size(table->dtype);
  hrx_model_region_t indices = {0}, rows = {0};
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, (capacity + 1) * 4, HRX_MODEL_PLACEMENT_DEVICE, &indices));
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, capacity * row_bytes, HRX_MODEL_PLACEMENT_COHERENT, &rows));
  hrx_model_gather_fragment_t f = {
      .table = hrx_model_tensor_plan_operand(plan, 0),
      .capacity = capacity,
      .indices = {{indices, 0, 0, HRX_GPU_ACCESS_READ},
                  {HRX_MODEL_DTYPE_I32, 1, {capacity + 1}, {0}}},
      .output = {{rows, 0, 0, HRX_GPU_ACCESS_WRITE},
                 {table->dtype, 2, {capacity, table->shape[1]}, {0}}},
  };
  HRX_RETURN_IF_ERROR(hrx_model_tensor_record_gather(session, slot, &f));
  *out = (hrx_model_slot_graph_t){
      .graph = slot, .input_count = 1, .output_count = 1};
  out->inputs[0] =
      (hrx_model_io_t){{indices, 0, 0, HRX_GPU_ACCESS_WRITE}, f.indices.desc};
  out->outputs[0] =
      (hrx_model_io_t){{rows, 0, 0, HRX_GPU_ACCESS_READ}, f.output.desc};
  return HRX_OK;
}

static hrx_status_t hrx_model_tensor_slot_factory(void* user,
                                                  hrx_model_session_t* session,
                                                  uint32_t slot,
                                                  hrx_model_slot_graph_t* out) {
  hrx_model_tensor_plan_t* plan = user;
  return plan->spec.op == HRX_MODEL_TENSOR_OP_LINEAR
             ? hrx_model_tensor_linear_slot(plan, session, slot, out)
             : hrx_model_tensor_gather_slot(plan, session, slot, out);
}

const hrx_model_ops_kind_t hrx_model_tensor_ops_kind = {
    .name = "tensor",
    .ops_size = sizeof(hrx_model_tensor_ops_t),
    .plan_size = sizeof(hrx_model_tensor_plan_t),
    .default_plans = 16,
    .spec_size = sizeof(hrx_model_tensor_spec_t),
    .spec_offset = offsetof(hrx_model_tensor_plan_t, spec),
    .compile = hrx_model_tensor_compile_all,
    .bind = hrx_model_tensor_plan_bind,
    .factory = hrx_model_tensor_slot_factory,
};
