/* The tensor ops' shape contracts, shared by the fragments and the ops:
 * each broken rule is INVALID_ARGUMENT naming it. */
#include "tensor_ops_internal.h"

const char* hrx_model_tensor_dtype_name(hrx_model_dtype_t dtype) {
  switch (dtype) {
    case HRX_MODEL_DTYPE_F32:
      return "F32";
    case HRX_MODEL_DTYPE_F16:
      return "F16";
    case HRX_MODEL_DTYPE_BF16:
      return "BF16";
    case HRX_MODEL_DTYPE_I32:
      return "I32";
    case HRX_MODEL_DTYPE_U32:
      return "U32";
    case HRX_MODEL_DTYPE_I8:
      return "I8";
    case HRX_MODEL_DTYPE_U8:
      return "U8";
    default:
      return "an unknown dtype";
  }
}

bool hrx_model_tensor_contiguous(const hrx_model_tensor_desc_t* desc) {
  uint32_t rank = desc->rank;
  if (rank == 0 || rank > HRX_MODEL_MAX_RANK) return false;
  bool strided = false;
  for (uint32_t d = 0; d < rank; ++d) strided |= desc->strides[d] != 0;
  if (!strided) return true;
  uint64_t expect = 1;
  for (uint32_t d = rank; d-- > 0;) {
    if (desc->strides[d] != expect) return false;
    expect *= desc->shape[d];
  }
  return true;
}

/* Checks that |desc| is a valid, contiguous tensor; |what| names it. */
static hrx_status_t hrx_model_operand_check(const hrx_model_tensor_desc_t* desc,
                                            const char* what) {
  uint64_t bytes = 0;
  hrx_status_t status = hrx_model_tensor_desc_extent(desc, &bytes);
  if (status != HRX_OK) return hrx_status_annotate(status, "%s", what);
  if (!hrx_model_tensor_contiguous(desc)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s must be contiguous (zero or row-major "
                           "strides)",
                           what);
  }
  return HRX_OK;
}

/* The width of a row vector: [K] or [1, K]. */
static hrx_status_t hrx_model_row_width(const hrx_model_tensor_desc_t* desc,
                                        const char* what, uint64_t* out_width) {
  if (desc->rank == 1) {
    *out_width = desc->shape[0];
  } else if (desc->rank == 2 && desc->shape[0] == 1) {
    *out_width = desc->shape[1];
  } else {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s must be one row, [1, K] or [K] (rank %u)", what,
                           desc->rank);
  }
  return HRX_OK;
}

static hrx_status_t hrx_model_linear_weights_check(
    const hrx_model_tensor_desc_t* w, size_t p, uint64_t k, uint64_t* out_n) {
  if (w->dtype != HRX_MODEL_DTYPE_BF16) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "weights %zu are %s: linear takes BF16 weights", p,
                           hrx_model_tensor_dtype_name(w->dtype));
  }
  if (w->rank != 2) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "weights %zu have rank %u: linear takes [N, K] "
                           "weights",
                           p, w->rank);
  }
  if (w->shape[0] == 0 || w->shape[0] > HRX_MODEL_LINEAR_MAX_ROWS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "weights %zu have N = %llu rows: N must be in "
                           "1..%u",
                           p, (unsigned long long)w->shape[0],
                           HRX_MODEL_LINEAR_MAX_ROWS);
  }
  if (w->shape[1] != k) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "weights %zu are [%llu, %llu] for an input of "
                           "K = %llu: their columns must equal K",
                           p, (unsigned long long)w->shape[0],
                           (unsigned long long)w->shape[1],
                           (unsigned long long)k);
  }
  HRX_RETURN_IF_ERROR(hrx_model_operand_check(w, "the weights"));
  *out_n = w->shape[0];
  return HRX_OK;
}

hrx_status_t hrx_model_linear_check(const hrx_model_tensor_desc_t* input,
                                    const hrx_model_io_t* weights, size_t count,
                                    hrx_model_dtype_t output,
                                    hrx_model_linear_shape_t* out_shape) {
  *out_shape = (hrx_model_linear_shape_t){.count = count, .output = output};
  if (!input || !weights || count == 0 ||
      count > HRX_MODEL_LINEAR_MAX_PROJECTIONS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "linear takes an input and 1..%u projections "
                           "(got %zu)",
                           HRX_MODEL_LINEAR_MAX_PROJECTIONS, count);
  }
  if (input->dtype != HRX_MODEL_DTYPE_BF16) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the input is %s: linear takes a BF16 input",
                           hrx_model_tensor_dtype_name(input->dtype));
  }
  uint64_t k = 0;
  HRX_RETURN_IF_ERROR(hrx_model_row_width(input, "the input", &k));
  if (k == 0 || k % HRX_MODEL_LINEAR_K_MULTIPLE != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "K = %llu: K must be a positive multiple of %u",
                           (unsigned long long)k, HRX_MODEL_LINEAR_K_MULTIPLE);
  }
  if (k > HRX_MODEL_LINEAR_MAX_K) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "K = %llu is above the limit of %u",
                           (unsigned long long)k, HRX_MODEL_LINEAR_MAX_K);
  }
  HRX_RETURN_IF_ERROR(hrx_model_operand_check(input, "the input"));
  if (output != HRX_MODEL_DTYPE_F32 && output != HRX_MODEL_DTYPE_BF16) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "an output of %s: linear writes F32 or BF16",
                           hrx_model_tensor_dtype_name(output));
  }
  out_shape->k = k;
  for (size_t p = 0; p < count; ++p) {
    HRX_RETURN_IF_ERROR(hrx_model_linear_weights_check(&weights[p].desc, p, k,
                                                       &out_shape->n[p]));
    out_shape->rows += out_shape->n[p];
  }
  if (out_shape->rows > HRX_MODEL_LINEAR_MAX_ROWS) {
    return hrx_make_status(
        HRX_STATUS_INVALID_ARGUMENT, "%llu output rows in all: at most %u",
        (unsigned long long)out_shape->rows, HRX_MODEL_LINEAR_MAX_ROWS);
  }
  return HRX_OK;
}

hrx_status_t hrx_model_gather_check(const hrx_model_tensor_desc_t* table,
                                    hrx_model_gather_shape_t* out_shape) {
  *out_shape = (hrx_model_gather_shape_t){0};
  if (!table) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no table");
  }
  if (table->rank != 2) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the table has rank %u: gathers take a [rows, E] "
                           "table",
                           table->rank);
  }
  HRX_RETURN_IF_ERROR(hrx_model_operand_check(table, "the table"));
  if (table->shape[0] > HRX_MODEL_GATHER_MAX_TABLE_ROWS) {
    return hrx_make_status(
        HRX_STATUS_INVALID_ARGUMENT, "the table has %llu rows: at most %u",
        (unsigned long long)table->shape[0], HRX_MODEL_GATHER_MAX_TABLE_ROWS);
  }
  uint64_t size = hrx_model_dtype_size(table->dtype);
  if (table->shape[1] > HRX_MODEL_GATHER_MAX_BYTES / size) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a table row of %llu elements is above the %llu "
                           "byte limit",
                           (unsigned long long)table->shape[1],
                           (unsigned long long)HRX_MODEL_GATHER_MAX_BYTES);
  }
  *out_shape = (hrx_model_gather_shape_t){.rows = table->shape[0],
                                          .row_bytes = table->shape[1] * size,
                                          .dtype = table->dtype,
                                          .elements = table->shape[1]};
  return HRX_OK;
}

hrx_status_t hrx_model_gather_check_capacity(
    const hrx_model_gather_shape_t* shape, uint64_t capacity) {
  if (capacity == 0 || capacity > HRX_MODEL_GATHER_MAX_COUNT) {
    return hrx_make_status(
        HRX_STATUS_INVALID_ARGUMENT, "%llu rows: a gather takes 1..%u rows",
        (unsigned long long)capacity, HRX_MODEL_GATHER_MAX_COUNT);
  }
  if (shape->row_bytes > HRX_MODEL_GATHER_MAX_BYTES / capacity) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%llu rows of %llu bytes are above the %llu byte "
                           "limit of a gather's output",
                           (unsigned long long)capacity,
                           (unsigned long long)shape->row_bytes,
                           (unsigned long long)HRX_MODEL_GATHER_MAX_BYTES);
  }
  return HRX_OK;
}
