/* TensorOps: linear projections and row gathers over a session's regions
 * through per-shape plans. */
#include <string.h>

#include "model_internal.h"
#include "tensor_ops_internal.h"

hrx_status_t hrx_model_tensor_ops_create(
    hrx_model_session_t* session, const hrx_model_tensor_ops_options_t* options,
    hrx_model_tensor_ops_t** out_ops) {
  if (!out_ops) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no out_ops");
  }
  *out_ops = NULL;
  hrx_model_ops_t* base = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_model_ops_create(&hrx_model_tensor_ops_kind, session, options, &base));
  hrx_model_tensor_ops_t* ops = (hrx_model_tensor_ops_t*)base;
  ops->session = session;
  *out_ops = ops;
  return HRX_OK;
}

void hrx_model_tensor_ops_destroy(hrx_model_tensor_ops_t* ops) {
  hrx_model_ops_destroy(ops ? &ops->base : NULL);
}

hrx_status_t hrx_model_tensor_ops_stats(hrx_model_tensor_ops_t* ops,
                                hrx_model_tensor_ops_stats_t* out_stats) {
  return hrx_model_ops_stats(&ops->base, out_stats);
}

/* Copies |io| into a spec operand field by field (the spec's padding
 * stays zero), with zero strides for the contiguous layout it has been
 * checked to have and an exact binding length. */
static void hrx_model_tensor_spec_operand(const hrx_model_io_t* io,
                                          hrx_model_io_t* out) {
  uint64_t bytes = 0;
  hrx_status_free(hrx_model_tensor_desc_extent(&io->desc, &bytes));
  out->binding.region = io->binding.region;
  out->binding.offset = io->binding.offset;
  out->binding.length = io->binding.length ? io->binding.length : bytes;
  out->binding.access = HRX_GPU_ACCESS_READ;
  out->desc.dtype = io->desc.dtype;
  out->desc.rank = io->desc.rank;
  for (uint32_t d = 0; d < io->desc.rank; ++d) {
    out->desc.shape[d] = io->desc.shape[d];
  }
}

/*===------------------------------------------------------------------===*/
/* Linear                                                                  */
/*===------------------------------------------------------------------===*/

hrx_status_t hrx_model_tensor_ops_linear_many(
    hrx_model_tensor_ops_t* ops, const hrx_model_tensor_desc_t* input_desc,
    const void* input, const hrx_model_io_t* weights, size_t count,
    hrx_model_dtype_t output, hrx_model_tensor_t** out_tensors) {
  if (!out_tensors) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no out_tensors");
  }
  if (weights && count && count <= HRX_MODEL_LINEAR_MAX_PROJECTIONS) {
    memset(out_tensors, 0, count * sizeof(*out_tensors));
  }
  if (!ops || !input) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "linear needs tensor ops and input data");
  }
  hrx_model_linear_shape_t shape;
  HRX_RETURN_IF_ERROR(
      hrx_model_linear_check(input_desc, weights, count, output, &shape));
  hrx_model_tensor_spec_t spec;
  memset(&spec, 0, sizeof(spec));
  spec.op = HRX_MODEL_TENSOR_OP_LINEAR;
  spec.output = output;
  spec.count = count;
  for (size_t p = 0; p < count; ++p) {
    hrx_model_tensor_spec_operand(&weights[p], &spec.operands[p]);
  }
  hrx_model_ops_input_t data = {input, shape.k * 2};
  return hrx_model_ops_call(&ops->base, &spec, hrx_model_ops_write_input,
                            &data, out_tensors, NULL);
}

hrx_status_t hrx_model_tensor_ops_linear(
    hrx_model_tensor_ops_t* ops, const hrx_model_tensor_desc_t* input_desc,
    const void* input, const hrx_model_io_t* weights, hrx_model_dtype_t output,
    hrx_model_tensor_t** out_tensor) {
  return hrx_model_tensor_ops_linear_many(ops, input_desc, input, weights, 1,
                                          output, out_tensor);
}

/*===------------------------------------------------------------------===*/
/* Gather rows                                                             */
/*===------------------------------------------------------------------===*/

/* The smallest power of two >= |count| (count >= 1). */
static uint64_t hrx_model_tensor_bucket(uint64_t count) {
  uint64_t bucket = 1;
  while (bucket < count) bucket <<= 1;
  return bucket;
}

typedef struct hrx_model_tensor_indices_t {
  const uint32_t* indices;
  uint64_t count;
} hrx_model_tensor_indices_t;

/* The gather kernel's input: the count, the indices, zeros after them. */
static hrx_status_t hrx_model_tensor_write_indices(void* user, void* staging,
                                                   uint64_t length) {
  const hrx_model_tensor_indices_t* in = user;
  uint64_t used = (in->count + 1) * 4;
  if (length < used) {
    return hrx_make_status(
        HRX_STATUS_INTERNAL, "the plan takes %llu index bytes, not %llu",
        (unsigned long long)length, (unsigned long long)used);
  }
  uint32_t count = (uint32_t)in->count;
  memcpy(staging, &count, 4);
  memcpy((uint8_t*)staging + 4, in->indices, in->count * 4);
  memset((uint8_t*)staging + used, 0, length - used);
  return HRX_OK;
}

/* Checks every index against the table: never clamped. */
static hrx_status_t hrx_model_tensor_indices_check(const uint32_t* indices,
                                                   size_t count,
                                                   uint64_t rows) {
  for (size_t i = 0; i < count; ++i) {
    if (indices[i] >= rows) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "index %zu is %u: the table has %llu rows", i,
                             indices[i], (unsigned long long)rows);
    }
  }
  return HRX_OK;
}

/* The first |count| rows of |bucket| (a [capacity, E] tensor leasing
 * |slot|) as a tensor of their own; |bucket| is released. */
static hrx_status_t hrx_model_tensor_narrow(hrx_model_tensor_ops_t* ops,
                                            hrx_model_slot_t* slot,
                                            hrx_model_tensor_t* bucket,
                                            uint64_t count,
                                            hrx_model_tensor_t** out_tensor) {
  hrx_model_tensor_desc_t desc = *hrx_model_tensor_desc(bucket);
  uint64_t row_bytes = desc.shape[1] * hrx_model_dtype_size(desc.dtype);
  desc.shape[0] = count;
  hrx_gpu_view_t view = hrx_model_tensor_view(bucket);
  view.length = count * row_bytes;
  hrx_status_t status =
      hrx_model_tensor_create(ops->base.allocator, slot, &desc, view, 0,
                              out_tensor);
  hrx_model_tensor_release(bucket);
  return status;
}

hrx_status_t hrx_model_tensor_ops_gather_rows(hrx_model_tensor_ops_t* ops,
                                              const hrx_model_io_t* table,
                                              const uint32_t* indices,
                                              size_t count,
                                              hrx_model_tensor_t** out_tensor) {
  if (!out_tensor) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no out_tensor");
  }
  *out_tensor = NULL;
  if (!ops || !table || (!indices && count)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "gather_rows needs tensor ops, a table and "
                           "indices");
  }
  hrx_model_gather_shape_t shape;
  HRX_RETURN_IF_ERROR(hrx_model_gather_check(&table->desc, &shape));
  HRX_RETURN_IF_ERROR(hrx_model_gather_check_capacity(&shape, count));
  uint64_t bucket = hrx_model_tensor_bucket(count);
  HRX_RETURN_IF_ERROR(hrx_model_gather_check_capacity(&shape, bucket));
  HRX_RETURN_IF_ERROR(
      hrx_model_tensor_indices_check(indices, count, shape.rows));
  hrx_model_tensor_spec_t spec;
  memset(&spec, 0, sizeof(spec));
  spec.op = HRX_MODEL_TENSOR_OP_GATHER;
  spec.capacity = bucket;
  hrx_model_tensor_spec_operand(table, &spec.operands[0]);
  hrx_model_tensor_indices_t data = {indices, count};
  hrx_model_tensor_t* rows = NULL;
  hrx_model_slot_t* slot = NULL;
  HRX_RETURN_IF_ERROR(hrx_model_ops_call(&ops->base, &spec,
                                         hrx_model_tensor_write_indices, &data,
                                         &rows, &slot));
  if (count == bucket) {
    *out_tensor = rows;
    return HRX_OK;
  }
  return hrx_model_tensor_narrow(ops, slot, rows, count, out_tensor);
}
