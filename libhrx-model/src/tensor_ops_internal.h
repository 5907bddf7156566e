/* Private helpers shared by the tensor ops' source files. */
#ifndef HRX_MODEL_SRC_TENSOR_OPS_INTERNAL_H_
#define HRX_MODEL_SRC_TENSOR_OPS_INTERNAL_H_

#include <pthread.h>
#include <stdbool.h>

#include "hrx/model.h"

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

typedef struct hrx_model_tensor_plan_t hrx_model_tensor_plan_t;

struct hrx_model_tensor_ops_s {
  hrx_allocator_t allocator;
  hrx_model_session_t* session; /* borrowed: the operands' regions */
  hrx_model_context_t* context; /* retained */
  hrx_model_frozen_t* kernels;  /* every tensor kernel, compiled once */
  hrx_model_plan_cache_t* plans;
  uint32_t slots;
  pthread_mutex_t mutex;            /* guards |retired| */
  hrx_model_tensor_plan_t* retired; /* evicted while tensors were alive */
  size_t retired_count;
};

/* PlanCache callbacks (tensor_ops_plan.c); the spec being pinned is
 * passed through hrx_model_tensor_plan_pin. */
hrx_status_t hrx_model_tensor_plan_prepare(void* user, uint64_t key,
                                           void** out_plan);
void hrx_model_tensor_plan_evicted(void* user, void* plan);
/* Frees retired plans whose tensors are all released; |all|: every one
 * (the ops are being destroyed). */
void hrx_model_tensor_plan_reap(hrx_model_tensor_ops_t* ops, bool all);

/* Pins the plan of |spec| (preparing it if needed); unpin with |out_key|. */
hrx_status_t hrx_model_tensor_plan_pin(hrx_model_tensor_ops_t* ops,
                                       const hrx_model_tensor_spec_t* spec,
                                       hrx_model_tensor_plan_t** out_plan,
                                       uint64_t* out_key);
/* Runs one call on a pinned plan: a free slot, |write| filling its packed
 * input, and the slot's output tensors; |out_slot| (may be NULL) names
 * the slot the tensors lease. */
hrx_status_t hrx_model_tensor_plan_run(hrx_model_tensor_plan_t* plan,
                                       hrx_model_write_fn write, void* user,
                                       hrx_model_tensor_t** out_tensors,
                                       hrx_model_slot_t** out_slot);

#endif /* HRX_MODEL_SRC_TENSOR_OPS_INTERNAL_H_ */
