/* TensorOps: decode-step projections and row gathers over a session's
 * resident tensors.
 *
 * Operations:
 *
 * - Linear: a BF16 row x [1, K] through BF16 weights W [N, K] (row-major)
 *   gives y [1, N] with y[n] = sum_k W[n, k] * x[k], accumulated in f32 and
 *   stored as F32 or BF16 (rounded to nearest even once). K is a multiple
 *   of HRX_MODEL_LINEAR_K_MULTIPLE. Linear-many runs up to
 *   HRX_MODEL_LINEAR_MAX_PROJECTIONS projections sharing x (Q/K/V,
 *   gate/up) in one dispatch. The f32 summation order is fixed, so results
 *   are reproducible bit for bit: lane l of 32 keeps four sums, one per
 *   j = 0..3, over columns c*128 + 4l + j for ascending c (each step one
 *   fused multiply-add, which equals a multiply then an add because a
 *   product of two bf16 values is exact in f32 unless it underflows);
 *   each lane adds (s0 + s1) + (s2 + s3); then for m = 16, 8, 4, 2, 1
 *   every lane adds the sum of lane l xor m. GPUs run
 *   libhrx-model/kernels/tensor_linear.loom (a subgroup per row); the
 *   host device runs tensor_linear_rows.loom (a work-item per row, which
 *   it executes as native code), which sums in the same order: their
 *   results are identical.
 * - Gather rows: out[i, :] = table[indices[i], :] for a table of any
 *   element type (the bytes are copied), duplicates and order preserved.
 *   Indices are host data checked against the table's rows: one out of
 *   range is INVALID_ARGUMENT naming it, never clamped.
 *
 * Every operation exists in two forms:
 *
 * - A fragment: hrx_model_tensor_record_* validates the shapes, compiles
 *   the op's embedded Loom kernel into |session| (once per session; later
 *   calls find it by digest) and records graph |key| with its one
 *   dispatch over the caller's regions, so it composes with model kernels
 *   through hrx_model_session_replay/record_into and PreparedModel slots
 *   like any recorded graph (errors as hrx_model_session_record:
 *   ALREADY_EXISTS for a taken key, OUT_OF_RANGE for a binding outside its
 *   region). An operand is an hrx_model_io_t: where it lives and what it
 *   holds; the op sets the access. Operands must be contiguous (strides
 *   zero or row-major).
 * - An op on a TensorOps object: the weights or table stay where they are
 *   (regions of the ops' session, bound in place) and only the small host
 *   input (x, or the indices) is uploaded per call; each call returns
 *   DeviceTensors (hrx/model/tensor.h) holding a slot lease. Each distinct
 *   shape (op, K, row counts, output type, the weights' or table's region
 *   and offset, and for gathers the row bucket) gets one plan: a session
 *   of the ops' context holding a PreparedModel whose private slots (each
 *   with its own input and output regions) serve every later call of that
 *   shape. Gathers of `count` rows use the plan of the smallest power of
 *   two >= count (its bucket), so a few plans serve every count; the
 *   tensor is [count, E] all the same. Plans live in a bounded PlanCache
 *   (hrx/model/plan_cache.h); an evicted plan whose tensors are still
 *   alive is freed once the last of them is released and another call
 *   (or the ops' destruction) notices.
 *
 * Limits (INVALID_ARGUMENT naming the rule): linear K in
 * 128..HRX_MODEL_LINEAR_MAX_K, each N in 1..HRX_MODEL_LINEAR_MAX_ROWS and
 * their sum too, 1..3 projections, input and weights BF16, output F32 or
 * BF16, input and weights offsets a multiple of 8 bytes; gathers of
 * 1..HRX_MODEL_GATHER_MAX_COUNT rows from a table of at most
 * HRX_MODEL_GATHER_MAX_TABLE_ROWS rows, the bucket's output at most
 * HRX_MODEL_GATHER_MAX_BYTES bytes.
 *
 * Threads. Fragment recording may be called from any thread (the session
 * serialises recording). A TensorOps object may be used from any thread
 * at once: plans are shared through the PlanCache, and each call takes a
 * slot of its own; when every slot of a plan holds unreleased tensors the
 * call is BUSY (it never blocks). Nothing here starts threads.
 */
#ifndef HRX_MODEL_TENSOR_OPS_H_
#define HRX_MODEL_TENSOR_OPS_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/model/plan_cache.h"
#include "hrx/model/prepared.h"
#include "hrx/model/session.h"
#include "hrx/model/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_MODEL_LINEAR_K_MULTIPLE 128u
#define HRX_MODEL_LINEAR_MAX_K (1u << 20)
#define HRX_MODEL_LINEAR_MAX_ROWS (1u << 24)
#define HRX_MODEL_LINEAR_MAX_PROJECTIONS 3u
#define HRX_MODEL_GATHER_MAX_COUNT 65536u
#define HRX_MODEL_GATHER_MAX_TABLE_ROWS 0x7fffffffu
#define HRX_MODEL_GATHER_MAX_BYTES (1ull << 30)

/*===------------------------------------------------------------------===*/
/* Fragments: recorded into a caller's session                            */
/*===------------------------------------------------------------------===*/

/* One linear dispatch: |input| BF16 [1, K] (or [K]); |weights[p]| BF16
 * [n_p, K] for p < |count| (1..3); |output| F32 or BF16 [1, R] (or [R])
 * with R = n_0 + ... + n_{count-1}: the projections' rows one after
 * another. */
typedef struct hrx_model_linear_fragment_t {
  hrx_model_io_t input;
  hrx_model_io_t weights[HRX_MODEL_LINEAR_MAX_PROJECTIONS];
  size_t count;
  hrx_model_io_t output;
} hrx_model_linear_fragment_t;

HRX_API HRX_MUST_USE hrx_status_t
hrx_model_tensor_record_linear(hrx_model_session_t* session, uint64_t key,
                               const hrx_model_linear_fragment_t* fragment);

/* One gather dispatch: |table| [rows, E] of any dtype; |indices| I32
 * [capacity + 1], read at run time: the row count (0..capacity), then
 * that many row indices, each below the table's rows (the device does not
 * check them: a graph's producer of indices must); |output| [capacity, E]
 * of the table's dtype, whose first count rows are written. */
typedef struct hrx_model_gather_fragment_t {
  hrx_model_io_t table;
  uint64_t capacity;
  hrx_model_io_t indices;
  hrx_model_io_t output;
} hrx_model_gather_fragment_t;

HRX_API HRX_MUST_USE hrx_status_t
hrx_model_tensor_record_gather(hrx_model_session_t* session, uint64_t key,
                               const hrx_model_gather_fragment_t* fragment);

/*===------------------------------------------------------------------===*/
/* TensorOps                                                               */
/*===------------------------------------------------------------------===*/

typedef struct hrx_model_tensor_ops_s hrx_model_tensor_ops_t;

/* plan_capacity 0: 16 plans. */
typedef hrx_model_plan_ops_options_t hrx_model_tensor_ops_options_t;

/* Tensor ops over |session|'s regions, in its context (runtime, budget,
 * compiler); compiles the tensor kernels once. |options| may be NULL.
 * The session must outlive the ops. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_tensor_ops_create(
    hrx_model_session_t* session, const hrx_model_tensor_ops_options_t* options,
    hrx_model_tensor_ops_t** out_ops);
/* Frees every plan. Every tensor the ops returned must have been
 * released. NULL is accepted. */
HRX_API void hrx_model_tensor_ops_destroy(hrx_model_tensor_ops_t* ops);

typedef hrx_model_plan_ops_stats_t hrx_model_tensor_ops_stats_t;
HRX_API HRX_MUST_USE hrx_status_t hrx_model_tensor_ops_stats(
    hrx_model_tensor_ops_t* ops, hrx_model_tensor_ops_stats_t* out_stats);

/* y = W x for |input| (|input_desc|: BF16 [1, K] or [K], host data) and
 * |weights| (a region of the ops' session holding BF16 [N, K]); |output|
 * is HRX_MODEL_DTYPE_F32 or HRX_MODEL_DTYPE_BF16. Out: [1, N]. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_tensor_ops_linear(
    hrx_model_tensor_ops_t* ops, const hrx_model_tensor_desc_t* input_desc,
    const void* input, const hrx_model_io_t* weights, hrx_model_dtype_t output,
    hrx_model_tensor_t** out_tensor);

/* |count| (1..3) projections of one input in one dispatch:
 * out_tensors[p] = weights[p] x, [1, n_p]. On failure every out_tensors[p]
 * is NULL. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_tensor_ops_linear_many(
    hrx_model_tensor_ops_t* ops, const hrx_model_tensor_desc_t* input_desc,
    const void* input, const hrx_model_io_t* weights, size_t count,
    hrx_model_dtype_t output, hrx_model_tensor_t** out_tensors);

/* Rows |indices[0..count)| of |table| (a region of the ops' session
 * holding [rows, E] of any dtype) as a [count, E] tensor of that dtype. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_tensor_ops_gather_rows(
    hrx_model_tensor_ops_t* ops, const hrx_model_io_t* table,
    const uint32_t* indices, size_t count, hrx_model_tensor_t** out_tensor);

#ifdef __cplusplus
}
#endif

#endif /* HRX_MODEL_TENSOR_OPS_H_ */
