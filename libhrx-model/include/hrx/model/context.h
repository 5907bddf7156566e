/* ModelContext: one allocation, compiler and scheduling domain shared by
 * several models, and the frozen state they share.
 *
 * A context owns one execution runtime on its device, one memory budget
 * and one lazily created Loom compiler (with its module cache). Sessions
 * created in a context (hrx_model_session_create_in) use all three: their
 * submissions are ordered against each other's by the one runtime, their
 * allocations are charged to the one budget, and their compiles share the
 * compiler. A session made by hrx_model_session_create gets a private
 * context of its own.
 *
 * Frozen state. hrx_model_session_freeze turns a session's weights and
 * compiled kernels into an immutable, reference-counted object. Any
 * session of the same context adopts it (hrx_model_session_adopt) and
 * binds the same device buffers and kernels under ids of its own: nothing
 * is copied, loaded or compiled again. The weights' bytes are charged to
 * the budget once: the charge moves from the freezing session to the
 * frozen state, and adopting charges nothing. Frozen weights are read-only
 * everywhere: recording a write to one is INVALID_ARGUMENT. Every session
 * that froze or adopted the state holds a reference, so the state outlives
 * the session that froze it; the last release frees its buffers and
 * uncharges the budget.
 *
 * Threads. Every function may be called from any thread. A context and a
 * frozen state start no threads.
 */
#ifndef HRX_MODEL_CONTEXT_H_
#define HRX_MODEL_CONTEXT_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core/struct.h"
#include "hrx/model/session.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_model_context_s hrx_model_context_t;
typedef struct hrx_model_frozen_s hrx_model_frozen_t;

/* A context on |device| (retained), with a reference count of one. The
 * options mean what they mean for a session; |options| may be NULL. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_context_create(
    hrx_gpu_device_t* device, const hrx_model_session_options_t* options,
    hrx_allocator_t allocator, hrx_model_context_t** out_context);
HRX_API void hrx_model_context_retain(hrx_model_context_t* context);
/* Drops a reference (NULL is accepted). Sessions and frozen states hold
 * one each; the last release waits for the runtime's work and frees the
 * context. */
HRX_API void hrx_model_context_release(hrx_model_context_t* context);

/* Borrowed; live as long as the context. */
HRX_API hrx_gpu_device_t* hrx_model_context_device(
    const hrx_model_context_t* context);
HRX_API hrx_exec_runtime_t* hrx_model_context_runtime(
    const hrx_model_context_t* context);
HRX_API hrx_budget_t* hrx_model_context_budget(
    const hrx_model_context_t* context);

typedef struct hrx_model_kernel_stats_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  /* Sources handed to the compiler (whose kernel cache may serve them). */
  uint64_t compiled;
  /* The layer's own kernels loaded from the code provider instead. */
  uint64_t precompiled;
} hrx_model_kernel_stats_t;

/* How the kernels of the context's sessions were obtained so far. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_context_kernel_stats(
    const hrx_model_context_t* context, hrx_model_kernel_stats_t* out_stats);

/* A session in |context| (retained by the session), allocating its host
 * structures from the context's allocator. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_create_in(
    hrx_model_context_t* context, hrx_model_session_t** out_session);
/* The session's context (borrowed): the one it was created in, or its
 * private one. */
HRX_API hrx_model_context_t* hrx_model_session_context(
    const hrx_model_session_t* session);

/* Freezes the session's weights that are not frozen yet (in load order)
 * and every kernel it holds (in compile order) into a new frozen state,
 * returned with one reference for the caller; the session keeps one more.
 * The session's ids for them stay valid. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_freeze(
    hrx_model_session_t* session, hrx_model_frozen_t** out_frozen);
HRX_API void hrx_model_frozen_retain(hrx_model_frozen_t* frozen);
/* NULL is accepted. */
HRX_API void hrx_model_frozen_release(hrx_model_frozen_t* frozen);

HRX_API size_t hrx_model_frozen_weight_count(const hrx_model_frozen_t* frozen);
HRX_API size_t hrx_model_frozen_kernel_count(const hrx_model_frozen_t* frozen);
/* The weights' bytes, charged once to the context's budget. */
HRX_API uint64_t hrx_model_frozen_bytes(const hrx_model_frozen_t* frozen);

/* Makes |frozen| usable in |session|, which must belong to the same
 * context (INVALID_ARGUMENT otherwise): out_weights[i] names frozen weight
 * i and out_kernels[i] frozen kernel i in this session (either array may
 * be NULL when its count is zero). A kernel the session already holds
 * keeps its id. Charges nothing; the session holds a reference to
 * |frozen| until it is destroyed. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_adopt(
    hrx_model_session_t* session, hrx_model_frozen_t* frozen,
    hrx_model_region_t* out_weights, hrx_model_kernel_t* out_kernels);

#ifdef __cplusplus
}
#endif

#endif /* HRX_MODEL_CONTEXT_H_ */
