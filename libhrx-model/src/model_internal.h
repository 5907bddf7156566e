/* Private structures shared by libhrx-model's source files. */
#ifndef HRX_MODEL_SRC_MODEL_INTERNAL_H_
#define HRX_MODEL_SRC_MODEL_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "hrx/model.h"

typedef struct hrx_model_region_rec_t {
  hrx_gpu_buffer_t* buffer; /* owned reference */
  bool weight;              /* immutable once loaded: never bound writable */
  /* A weight whose charge belongs to a frozen state, not the session. */
  bool frozen;
  /* Private activation storage: the first |bytes| of a scratch arena
   * (scratch.c), charged with the arena. */
  bool scratch;
  uint64_t bytes;
} hrx_model_region_rec_t;

typedef struct hrx_model_kernel_rec_t {
  hrx_sha256_digest_t digest; /* of export name, NUL, source bytes */
  hrx_gpu_kernel_t* kernel;   /* owned reference */
} hrx_model_kernel_rec_t;

/* One recorded dispatch, resolved to views and bound to a contract whose
 * accesses are the ones the caller declared. */
typedef struct hrx_model_op_t {
  const hrx_gpu_kernel_t* kernel; /* borrowed from the kernel table */
  hrx_exec_kernel_t* contract;
  uint64_t* workload;
  size_t workload_count;
  hrx_gpu_arg_t* args;
  size_t arg_count;
} hrx_model_op_t;

typedef struct hrx_model_graph_rec_t {
  uint64_t key;
  hrx_model_op_t* ops;
  size_t op_count;
  hrx_exec_graph_t* graph; /* the ops, for replay */
} hrx_model_graph_rec_t;

struct hrx_model_context_s {
  hrx_allocator_t allocator;
  atomic_uint_fast32_t references;
  hrx_gpu_device_t* device; /* retained */
  hrx_budget_t* budget;     /* retained */
  hrx_exec_runtime_t* runtime;
  hrx_loom_compiler_options_t compiler_options;
  pthread_mutex_t mutex;         /* guards the compiler's creation */
  hrx_loom_compiler_t* compiler; /* created on first compile */
  bool has_code_provider;
  hrx_model_code_provider_t code_provider;
  atomic_uint_fast64_t compiled, precompiled; /* hrx_model_kernel_stats_t */
};

/* The context's compiler, created on first use (context.c). */
hrx_status_t hrx_model_context_compiler(hrx_model_context_t* context,
                                        hrx_loom_compiler_t** out_compiler);

struct hrx_model_frozen_s {
  hrx_allocator_t allocator;
  atomic_uint_fast32_t references;
  hrx_model_context_t* context; /* retained: its budget holds the charge */
  hrx_gpu_buffer_t** weights;   /* owned references */
  size_t weight_count;
  uint64_t bytes;
  hrx_model_kernel_rec_t* kernels; /* owned references */
  size_t kernel_count;
};

struct hrx_model_session_s {
  hrx_allocator_t allocator;
  hrx_model_context_t* context; /* retained */
  /* The context's, borrowed for brevity. */
  hrx_gpu_device_t* device;
  hrx_budget_t* budget;
  hrx_exec_runtime_t* runtime;
  /* Allocations (charged by the session itself, so a batch is charged
   * once) and the direct dispatches of hrx_model_session_time. */
  hrx_gpu_stream_t* stream;
  uint32_t tag; /* the high half of every id */
  /* Guards everything below and the stream. */
  pthread_mutex_t mutex;
  hrx_model_region_rec_t* regions;
  size_t region_count, region_capacity;
  hrx_model_kernel_rec_t* kernels;
  size_t kernel_count, kernel_capacity;
  hrx_model_graph_rec_t* graphs;
  size_t graph_count, graph_capacity;
  void* readback; /* combined readback storage (charged) */
  uint64_t readback_bytes;
  hrx_model_frozen_t** frozen; /* frozen or adopted here: references */
  size_t frozen_count, frozen_capacity;
  hrx_gpu_buffer_t* arena;  /* the newest scratch arena (a reference) */
  uint64_t scratch_charged; /* every arena's bytes */
};

/* Ids: the session's tag above the 1-based table index. */
uint64_t hrx_model_id_make(const hrx_model_session_t* session, size_t index);
/* The table index |bits| names in |session|, or INVALID_ARGUMENT naming
 * |what| for a zero, foreign or out-of-range id. */
hrx_status_t hrx_model_id_index(const hrx_model_session_t* session,
                                uint64_t bits, size_t count, const char* what,
                                size_t* out_index);

/* The digest naming |source|'s export in a session's kernel table. */
void hrx_model_source_digest(const hrx_model_source_t* source,
                             hrx_sha256_digest_t* out_digest);

/* The index of the kernel compiled from |digest| in |session|'s table, or
 * -1; mutex held (compile.c). */
ptrdiff_t hrx_model_kernel_find(const hrx_model_session_t* session,
                                const hrx_sha256_digest_t* digest);

/* Loads the precompiled code object of embedded kernel file |file|
 * (source |source|) from the context's code provider into |session| as
 * |source|'s kernel: *out_found says whether it did. A kernel the
 * session holds already is found without asking; NOT_FOUND from the
 * provider, no provider or a sanitizing compiler leave it false with OK
 * (precompiled.c). */
hrx_status_t hrx_model_precompiled_load(hrx_model_session_t* session,
                                        const char* file,
                                        const hrx_model_source_t* source,
                                        hrx_model_kernel_t* out_kernel,
                                        bool* out_found);

/* Adds |kernel| (taking the reference) to the session's table, or
 * releases it and answers the id of the kernel already compiled from
 * |digest|; mutex held (compile.c). */
hrx_status_t hrx_model_kernel_add(hrx_model_session_t* session,
                                  const hrx_sha256_digest_t* digest,
                                  hrx_gpu_kernel_t* kernel,
                                  hrx_model_kernel_t* out_kernel);

/* Names |owner|'s region |region| in |session| (another session of the
 * same context) as a read-only region over the same buffer, whose memory
 * and charge stay |owner|'s: it is marked as frozen weights, the kind of
 * region a session holds without having charged it and never writes. The
 * buffer is retained; |owner| must keep the region while |session| uses
 * it. Takes each session's mutex in turn. */
hrx_status_t hrx_model_session_alias(hrx_model_session_t* session,
                                     hrx_model_session_t* owner,
                                     hrx_model_region_t region,
                                     hrx_model_region_t* out_region);

/* Resolves |binding| to a view of its region; mutex held. |writes| says
 * whether the use writes it (weights refuse); |dispatch| whether it is a
 * recorded dispatch, the only use scratch allows. */
hrx_status_t hrx_model_session_resolve(hrx_model_session_t* session,
                                       const hrx_model_binding_t* binding,
                                       bool writes, bool dispatch,
                                       hrx_gpu_view_t* out_view);
/* Checks that |count| dispatches (already resolved) keep every scratch
 * region private to them: read only after they wrote it, with no other
 * scratch written in between, and never bound beside another scratch
 * region that either writes; mutex held (scratch.c). */
hrx_status_t hrx_model_scratch_audit(hrx_model_session_t* session,
                                     const hrx_model_dispatch_t* dispatches,
                                     size_t count);
/* The graph recorded under |key|, or NULL; mutex held. */
hrx_model_graph_rec_t* hrx_model_session_graph(hrx_model_session_t* session,
                                               uint64_t key);
/* Records |rec|'s ops into |graph|; mutex held. */
hrx_status_t hrx_model_graph_record_ops(const hrx_model_graph_rec_t* rec,
                                        hrx_exec_graph_t* graph);
void hrx_model_graph_rec_free(hrx_model_session_t* session,
                              hrx_model_graph_rec_t* rec);

/* Charges |bytes| for |what| to |budget|; when the ceiling is passed the
 * RESOURCE_EXHAUSTED status names the ceiling and the request. */
hrx_status_t hrx_model_budget_charge(hrx_budget_t* budget, uint64_t bytes,
                                     const char* what);
void hrx_model_budget_uncharge(hrx_budget_t* budget, uint64_t bytes);
/* Host memory charged to |budget| (uninitialised); freed with
 * hrx_model_host_free and the same size. */
hrx_status_t hrx_model_host_alloc(hrx_allocator_t allocator,
                                  hrx_budget_t* budget, uint64_t bytes,
                                  const char* what, void** out_ptr);
void hrx_model_host_free(hrx_allocator_t allocator, hrx_budget_t* budget,
                         void* ptr, uint64_t bytes);

struct hrx_model_slot_s {
  hrx_model_prepared_t* prepared;
  uint32_t index;
  hrx_model_slot_graph_t io; /* as the factory returned it */
  hrx_gpu_view_t inputs[HRX_MODEL_MAX_IO];  /* exactly each extent */
  hrx_gpu_view_t outputs[HRX_MODEL_MAX_IO];
  /* Set up on the slot's first request (slot.c), then reused. */
  hrx_exec_graph_t* graph;
  void* staging;  /* packed inputs (charged) */
  void* readback; /* packed outputs (charged) */
  /* The current request; waits on it go through the mutex. */
  pthread_mutex_t mutex;
  hrx_exec_completion_t* completion;
  bool failed; /* the device failed the request: disable on release */
  /* Guarded by the prepared model's mutex. */
  bool held;       /* acquired, or leased to tensors */
  bool disabled;
  uint32_t leases; /* the acquirer's, then one per output tensor */
};

struct hrx_model_prepared_s {
  hrx_model_session_t* session; /* borrowed */
  hrx_allocator_t allocator;
  hrx_model_slot_t* slots;
  uint32_t slot_count;
  uint64_t input_bytes, output_bytes; /* packed, per request */
  pthread_mutex_t mutex;
  pthread_cond_t freed; /* CLOCK_MONOTONIC */
  uint32_t free_count, disabled_count;
  /* Semaphore-mode eventfd whose count is free_count. */
  int fd;
};

/* Returns |slot| to its model, or disables it after a device failure,
 * once its last lease is gone (prepared.c). */
void hrx_model_prepared_recycle(hrx_model_slot_t* slot);
/* Whether every slot is back (free or disabled): no tensor leases one. */
bool hrx_model_prepared_idle(hrx_model_prepared_t* prepared);

/* A slot's lease, shared by its output tensors (slot.c). */
void hrx_model_slot_lease_retain(hrx_model_slot_t* slot);
void hrx_model_slot_lease_release(hrx_model_slot_t* slot);
/* Waits for the slot's current request and delivers its downloads. */
hrx_status_t hrx_model_slot_wait(hrx_model_slot_t* slot, uint64_t timeout_ns);
/* The slot's host readback storage. */
const uint8_t* hrx_model_slot_readback(const hrx_model_slot_t* slot);

/* A tensor over output |output| of |slot|'s current request; takes one
 * lease (tensor.c). */
hrx_status_t hrx_model_tensor_create(hrx_allocator_t allocator,
                                     hrx_model_slot_t* slot,
                                     const hrx_model_tensor_desc_t* desc,
                                     hrx_gpu_view_t view,
                                     uint64_t readback_offset,
                                     hrx_model_tensor_t** out_tensor);

#endif /* HRX_MODEL_SRC_MODEL_INTERNAL_H_ */
