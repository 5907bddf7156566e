/* Private helpers shared by the tensor ops' source files. */
#ifndef HRX_MODEL_SRC_TENSOR_OPS_INTERNAL_H_
#define HRX_MODEL_SRC_TENSOR_OPS_INTERNAL_H_

#include <stdbool.h>

#include "hrx/model.h"
#include "ops_common.h"

/*===------------------------------------------------------------------===*/
/* Shapes (tensor_ops_shapes.c)                                           */
/*===------------------------------------------------------------------===*/

/* A linear's checked shape. */
typedef struct hrx_model_linear_shape_t {
  uint64_t k;
  size_t count;
  uint64_t n[HRX_MODEL_LINEAR_MAX_PROJECTIONS];
  uint64_t rows; /* n[0] + ... + n[count - 1] */
  hrx_model_dtype_t output;
} hrx_model_linear_shape_t;

/* Checks a linear's input descriptor, |count| weights (their descs) and
 * output dtype against the contract, naming the rule a shape breaks. */
hrx_status_t hrx_model_linear_check(const hrx_model_tensor_desc_t* input,
                                    const hrx_model_io_t* weights, size_t count,
                                    hrx_model_dtype_t output,
                                    hrx_model_linear_shape_t* out_shape);

/* A gather table's checked shape. */
typedef struct hrx_model_gather_shape_t {
  uint64_t rows;
  uint64_t row_bytes;
  hrx_model_dtype_t dtype;
  uint64_t elements; /* per row */
} hrx_model_gather_shape_t;

hrx_status_t hrx_model_gather_check(const hrx_model_tensor_desc_t* table,
                                    hrx_model_gather_shape_t* out_shape);
/* Checks |capacity| rows of |shape| against the gather limits. */
hrx_status_t hrx_model_gather_check_capacity(
    const hrx_model_gather_shape_t* shape, uint64_t capacity);

/* Whether |desc| is contiguous: strides all zero, or row-major. */
bool hrx_model_tensor_contiguous(const hrx_model_tensor_desc_t* desc);
/* "F32", "BF16", ... for messages. */
const char* hrx_model_tensor_dtype_name(hrx_model_dtype_t dtype);

/*===------------------------------------------------------------------===*/
/* Kernels (tensor_ops_record.c)                                          */
/*===------------------------------------------------------------------===*/

/* The kernels one device uses: its linear, and the gather. */
#define HRX_MODEL_TENSOR_DEVICE_KERNELS 2

/* Compiles the tensor kernels |session|'s device uses into it in one
 * batch (already compiled ones are found by digest). */
hrx_status_t hrx_model_tensor_compile_all(hrx_model_session_t* session);

/*===------------------------------------------------------------------===*/
/* TensorOps internals                                                     */
/*===------------------------------------------------------------------===*/

typedef enum hrx_model_tensor_op_e {
  HRX_MODEL_TENSOR_OP_LINEAR = 1,
  HRX_MODEL_TENSOR_OP_GATHER,
} hrx_model_tensor_op_t;

/* Everything a plan is built for. Zeroed before it is filled, field by
 * field: plan keys hash its bytes, padding included. */
typedef struct hrx_model_tensor_spec_t {
  hrx_model_tensor_op_t op;
  hrx_model_dtype_t output; /* linear: the output dtype */
  uint64_t count;           /* linear: projections */
  uint64_t capacity;        /* gather: the row bucket */
  /* Linear: the weights; gather: the table (operands[0]). Regions of the
   * ops' session, bound in place. */
  hrx_model_io_t operands[HRX_MODEL_LINEAR_MAX_PROJECTIONS];
} hrx_model_tensor_spec_t;

struct hrx_model_tensor_ops_s {
  hrx_model_ops_t base;         /* first: the ops are ops of this kind */
  hrx_model_session_t* session; /* borrowed: the operands' regions */
};

/* The tensor ops' kind: their kernels, spec and plans (tensor_ops_plan.c).
 * Requests are bare specs. */
extern const hrx_model_ops_kind_t hrx_model_tensor_ops_kind;

#endif /* HRX_MODEL_SRC_TENSOR_OPS_INTERNAL_H_ */
