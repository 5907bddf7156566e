/* What TensorOps and ImageOps share (ops_common.c): their kernels compiled
 * from the embedded sources, and the ops object itself. An ops object
 * compiles its kind's kernels once and freezes them, and keeps a PlanCache
 * of per-shape plans: each plan is a session of the ops' context adopting
 * those kernels, with a PreparedModel of the ops' private slots. A call
 * pins the plan of its request, runs it on a free slot and unpins it; a
 * plan evicted while tensors still lease its slots is retired by the cache
 * until they are released.
 *
 * Each kind describes itself with an hrx_model_ops_kind_t. Its ops struct
 * starts with an hrx_model_ops_t and its plan struct with an
 * hrx_model_ops_plan_t, so either converts to the other by a cast.
 *
 * Threads. Calls and stats may run on any threads at once (the PlanCache
 * and the prepared models lock for themselves); create and destroy must
 * not overlap any other use of the ops. */
#ifndef HRX_MODEL_SRC_OPS_COMMON_H_
#define HRX_MODEL_SRC_OPS_COMMON_H_

#include "hrx/model.h"

/* An embedded kernel (libhrx-model/kernels): its file and export. */
typedef struct hrx_model_ops_kernel_t {
  const char* file;
  const char* export_name;
} hrx_model_ops_kernel_t;

/* Compiles |count| embedded kernels into |session| in one batch (already
 * compiled ones are found by digest); out_kernels[i] names kernels[i]. */
hrx_status_t hrx_model_ops_compile(hrx_model_session_t* session,
                                   const hrx_model_ops_kernel_t* kernels,
                                   size_t count,
                                   hrx_model_kernel_t* out_kernels);

/* |binding| as a dispatch argument with |access|, for an operand of
 * |bytes| bytes: a zero length becomes exactly |bytes|, a shorter one is
 * INVALID_ARGUMENT naming |what|. */
hrx_status_t hrx_model_ops_operand(hrx_model_binding_t binding, uint64_t bytes,
                                   hrx_gpu_access_t access, const char* what,
                                   hrx_model_arg_t* out_arg);

typedef struct hrx_model_ops_t hrx_model_ops_t;
typedef struct hrx_model_ops_plan_t hrx_model_ops_plan_t;

typedef struct hrx_model_ops_kind_t {
  const char* name;     /* "tensor", "image": in messages */
  size_t ops_size;      /* of the kind's ops struct */
  size_t plan_size;     /* of the kind's plan struct */
  size_t default_plans; /* plans kept when the options say 0 */
  /* Requests begin with the spec a plan is keyed by and built for; the
   * plan keeps a copy at |spec_offset|. Specs are zeroed before they are
   * filled: keys hash their bytes, padding included. */
  size_t spec_size, spec_offset;
  /* Compiles the kind's kernels into |session|. */
  hrx_status_t (*compile)(hrx_model_session_t* session);
  /* Sets up a new plan (its spec copied, its session holding the kernels)
   * from the rest of |request|, binding what it reads in the session. */
  hrx_status_t (*bind)(hrx_model_ops_plan_t* plan, const void* request);
  /* Each slot's graph and io; user: the plan. */
  hrx_model_slot_factory_fn factory;
} hrx_model_ops_kind_t;

struct hrx_model_ops_t {
  const hrx_model_ops_kind_t* kind;
  hrx_allocator_t allocator;
  hrx_model_context_t* context; /* retained */
  hrx_model_frozen_t* kernels;  /* compiled once: every plan adopts them */
  hrx_model_plan_cache_t* plans;
  uint32_t slots; /* private slots per plan */
};

struct hrx_model_ops_plan_t {
  hrx_model_ops_t* ops;
  hrx_model_session_t* session; /* the plan's own */
  hrx_model_prepared_t* prepared;
};

/* Creates ops of |kind| (a zeroed struct of kind->ops_size) in |session|'s
 * context with the public |options| (NULL: defaults); the session is only
 * read. */
hrx_status_t hrx_model_ops_create(const hrx_model_ops_kind_t* kind,
                                  hrx_model_session_t* session,
                                  const hrx_model_plan_ops_options_t* options,
                                  hrx_model_ops_t** out_ops);
/* Frees every plan, retired ones included: every tensor of the ops must
 * have been released. NULL is accepted. */
void hrx_model_ops_destroy(hrx_model_ops_t* ops);
/* The plan cache's counters, retired plans found idle destroyed first. */
hrx_status_t hrx_model_ops_stats(hrx_model_ops_t* ops,
                                 hrx_model_plan_ops_stats_t* out_stats);

/* Pins the plan of |request| (preparing it if needed), takes a free slot
 * of it (BUSY when every slot holds unreleased tensors), submits it with
 * |write| filling its packed input, answers the slot's output tensors and,
 * when |out_slot| is not NULL, the slot they lease; then unpins. */
hrx_status_t hrx_model_ops_call(hrx_model_ops_t* ops, const void* request,
                                hrx_model_write_fn write, void* user,
                                hrx_model_tensor_t** out_tensors,
                                hrx_model_slot_t** out_slot);

/* A |write| for input given whole: |bytes| at |data| (NULL when 0), which
 * must be exactly the plan's packed input. */
typedef struct hrx_model_ops_input_t {
  const void* data;
  uint64_t bytes;
} hrx_model_ops_input_t;
hrx_status_t hrx_model_ops_write_input(void* user, void* staging,
                                       uint64_t length);

#endif /* HRX_MODEL_SRC_OPS_COMMON_H_ */
