/* ModelSession: one model's resident state on one device.
 *
 * A session runs on its context's execution runtime (hrx/exec.h) and
 * budget (hrx/model/context.h: a session from hrx_model_session_create has
 * a private context) and owns the model's memory regions (weights and
 * activations), the kernels compiled for it and graphs recorded under keys
 * the caller chooses. Regions and
 * kernels are named by session-scoped ids: an id from another session, or
 * a zeroed one, is INVALID_ARGUMENT wherever it is used.
 *
 * Graphs are recorded from dispatches whose buffer arguments each declare
 * their access (read, write or read-write); the runtime infers the edges
 * from those byte ranges, so a graph states no dependencies. A recorded
 * graph replays as one submission, records into another exec graph as a
 * fragment (that is how PreparedModel slots embed it), or runs its
 * dispatches directly on a stream for comparison.
 *
 * Memory. Every region, and the host storage of reads, is charged to the
 * session's budget before it is allocated; a request that does not fit is
 * RESOURCE_EXHAUSTED naming the ceiling and the request, and allocates
 * nothing. The runtime charges its transfer staging to the same budget.
 * Regions live as long as the session; frozen weights as long as their
 * frozen state (hrx/model/context.h).
 *
 * Placement. The gpu layer maps every buffer host-coherent (an APU's
 * unified memory, and the host device's); HRX_MODEL_PLACEMENT_DEVICE asks
 * for device-local memory and gets that same mapping until the gpu layer
 * offers a choice. Reads go through the runtime either way.
 *
 * Threads. Every function may be called from any thread; the session
 * serialises recording and allocation internally. The runtime starts no
 * threads (it does not observe); the device owns the queue threads.
 */
#ifndef HRX_MODEL_SESSION_H_
#define HRX_MODEL_SESSION_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/exec.h"
#include "hrx/gpu.h"
#include "hrx/loom.h"
#include "hrx/model/code_provider.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_model_session_s hrx_model_session_t;

/* Session-scoped ids (zero is never valid). */
typedef struct hrx_model_region_t {
  uint64_t bits;
} hrx_model_region_t;
typedef struct hrx_model_kernel_t {
  uint64_t bits;
} hrx_model_kernel_t;

/* Where a region lives (hrx_gpu_stream_allocate_placed). DEVICE is the
 * memory kernels work in fastest (GTT the GPU caches on gfx1151); the
 * session's reads and uploads do the host cache maintenance it needs.
 * COHERENT memory the host and every queue see without any (uncached for
 * the GPU on gfx1151): for words the host polls while kernels run. On
 * the host device both are ordinary host memory. Weights and private
 * scratch are always DEVICE. */
typedef enum hrx_model_placement_e {
  HRX_MODEL_PLACEMENT_DEVICE = 0,
  HRX_MODEL_PLACEMENT_COHERENT = 1,
} hrx_model_placement_t;

typedef struct hrx_model_session_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  /* Charged with everything the session allocates (retained). NULL: an
   * unlimited budget of the session's own. */
  hrx_budget_t* memory_budget;
  /* For the session's compiler (copied; the strings it points to must
   * outlive the session). NULL: defaults (shared XDG kernel cache). */
  const hrx_loom_compiler_options_t* compiler;
  /* The runtime's max_submissions (0: its default). */
  uint32_t max_submissions;
  /* Precompiled code objects for the layer's own kernels (copied; its
   * user must outlive the context): see hrx/model/code_provider.h. NULL:
   * they are compiled in process. */
  const hrx_model_code_provider_t* code_provider;
} hrx_model_session_options_t;

/* A session in a private context made from |device| (retained) and
 * |options| (may be NULL). */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_create(
    hrx_gpu_device_t* device, const hrx_model_session_options_t* options,
    hrx_allocator_t allocator, hrx_model_session_t** out_session);
/* Frees every region, kernel and graph (work in flight keeps what it uses
 * until it ends) and drops the session's references to its frozen states
 * and its context; the context's last release waits for all its work.
 * Prepared models built on the session must be destroyed first. */
HRX_API void hrx_model_session_destroy(hrx_model_session_t* session);

/* Borrowed; live as long as the session. */
HRX_API hrx_gpu_device_t* hrx_model_session_device(
    const hrx_model_session_t* session);
HRX_API hrx_exec_runtime_t* hrx_model_session_runtime(
    const hrx_model_session_t* session);
HRX_API hrx_budget_t* hrx_model_session_budget(
    const hrx_model_session_t* session);

/*===------------------------------------------------------------------===*/
/* Regions                                                                 */
/*===------------------------------------------------------------------===*/

/* A zeroed region of |bytes| (> 0). An unknown placement is
 * INVALID_ARGUMENT. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_allocate(
    hrx_model_session_t* session, uint64_t bytes,
    hrx_model_placement_t placement, hrx_model_region_t* out_region);

/* A region holding a copy of |length| (> 0) bytes of |data|, written once
 * (never zero-filled first). */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_weight(
    hrx_model_session_t* session, const void* data, uint64_t length,
    hrx_model_region_t* out_region);

typedef struct hrx_model_weight_t {
  const void* data;
  uint64_t length;
} hrx_model_weight_t;

/* Loads |count| weights as one charge: either all of them fit the budget
 * and out_regions[i] names weights[i], or nothing is allocated. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_load(
    hrx_model_session_t* session, const hrx_model_weight_t* weights,
    size_t count, hrx_model_region_t* out_regions);

/* Private scratch (reuse_private_scratch): activation storage that stages
 * reuse. Every scratch region of a session starts at the first byte of
 * one arena, charged once for the largest region; a region larger than
 * the arena starts a new one (earlier regions keep theirs), so allocate
 * the largest first. Recording audits each graph: a dispatch reads a
 * scratch region only after a dispatch of the same graph wrote it, with
 * no other scratch written in between, and binds at most one scratch
 * region; anything else is INVALID_ARGUMENT. So no value lives in scratch
 * across graphs or past the next scratch write, and graphs recorded as
 * fragments into one exec graph reuse the same bytes stage after stage:
 * the runtime orders each stage's first write after the earlier stages'
 * reads (write-after-read on the shared range), and submissions of graphs
 * sharing the arena run in turn. Scratch is never an input, output, read
 * or view: those uses are INVALID_ARGUMENT. Weights and ordinary regions
 * never alias it. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_scratch(
    hrx_model_session_t* session, uint64_t bytes,
    hrx_model_region_t* out_region);

/* The whole region as a view (borrowed from the session). */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_region_view(
    hrx_model_session_t* session, hrx_model_region_t region,
    hrx_gpu_view_t* out_view);

/*===------------------------------------------------------------------===*/
/* Kernels                                                                 */
/*===------------------------------------------------------------------===*/

typedef struct hrx_model_source_t {
  const char* source;
  size_t length;
  const char* source_name; /* for diagnostics; NULL = "<input>" */
  const char* export_name; /* the kernel to load (required) */
} hrx_model_source_t;

/* Compiles a trusted batch of sources for the session's device in one
 * compile_all and loads each export: out_kernels[i] names sources[i]. A
 * source and export the session compiled before (same SHA-256) returns the
 * same id without compiling. The first failing source fails the batch,
 * named in the status; ids of the sources before it stay valid. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_compile(
    hrx_model_session_t* session, const hrx_model_source_t* sources,
    size_t count, hrx_model_kernel_t* out_kernels);

/* The loaded kernel |kernel| names (borrowed from the session), for work
 * recorded on the session's runtime outside its graphs. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_kernel(
    hrx_model_session_t* session, hrx_model_kernel_t kernel,
    hrx_gpu_kernel_t** out_kernel);

/*===------------------------------------------------------------------===*/
/* Graphs                                                                  */
/*===------------------------------------------------------------------===*/

/* |length| bytes of |region| from |offset|; a length of 0 means the rest
 * of the region. */
typedef struct hrx_model_binding_t {
  hrx_model_region_t region;
  uint64_t offset;
  uint64_t length;
  hrx_gpu_access_t access;
} hrx_model_binding_t;

typedef struct hrx_model_arg_t {
  hrx_gpu_arg_kind_t kind;
  uint64_t bits; /* scalars: raw little-endian value */
  hrx_model_binding_t binding;
} hrx_model_arg_t;

static inline hrx_model_arg_t hrx_model_arg_scalar(uint64_t bits) {
  hrx_model_arg_t arg = {HRX_GPU_ARG_SCALAR, bits,
                         {{0}, 0, 0, HRX_GPU_ACCESS_READ_WRITE}};
  return arg;
}
static inline hrx_model_arg_t hrx_model_arg_region(hrx_model_region_t region,
                                                   hrx_gpu_access_t access) {
  hrx_model_arg_t arg = {HRX_GPU_ARG_BINDING, 0, {region, 0, 0, access}};
  return arg;
}

/* One kernel dispatch, its arguments in the kernel's argument order. */
typedef struct hrx_model_dispatch_t {
  hrx_model_kernel_t kernel;
  const uint64_t* workload;
  size_t workload_count;
  const hrx_model_arg_t* args;
  size_t arg_count;
} hrx_model_dispatch_t;

/* Records |count| dispatches, in order, as graph |key|. Edges come from
 * the declared accesses. ALREADY_EXISTS when |key| is taken; a binding
 * outside its region is OUT_OF_RANGE; a write to a weight, an unknown
 * access or a foreign id is INVALID_ARGUMENT. Nothing is kept on failure. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_record(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_dispatch_t* dispatches, size_t count);

/* Submits graph |key| once and waits up to |timeout_ns| for it. NOT_FOUND
 * for an unknown key. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_replay(
    hrx_model_session_t* session, uint64_t key, uint64_t timeout_ns);

/* Records graph |key|'s dispatches into |graph|, which must be a graph of
 * the session's runtime: a fragment, whose edges to the nodes already
 * there are inferred too. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_record_into(
    hrx_model_session_t* session, uint64_t key, hrx_exec_graph_t* graph);

/* Writes |length| bytes of |data| into |binding| (|length| must equal the
 * binding's length; a weight or private scratch is INVALID_ARGUMENT),
 * after the work submitted before that touches those bytes, and returns
 * once they are in place. The way to fill DEVICE regions, which have no
 * host pointer on gfx1151. Thread-safe. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_write(
    hrx_model_session_t* session, const hrx_model_binding_t* binding,
    const void* data, uint64_t length);

/* Copies |count| bindings into the session's readback storage (one host
 * allocation for all of them, kept and grown as needed) after the work
 * submitted before; out_data[i] points at binding i's bytes. The pointers
 * stay valid until the next read on this session: callers sharing a
 * session serialise their reads. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_read(
    hrx_model_session_t* session, const hrx_model_binding_t* bindings,
    size_t count, const void** out_data);

typedef struct hrx_model_timing_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint32_t iterations;
  uint64_t replay_ns; /* per iteration: submit the graph, wait */
  uint64_t direct_ns; /* per iteration: each dispatch on a stream, sync */
} hrx_model_timing_t;

/* Runs graph |key| |iterations| (> 0) times as a replay and as direct
 * dispatches on the session's stream, and reports the mean of each. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_session_time(
    hrx_model_session_t* session, uint64_t key, uint32_t iterations,
    hrx_model_timing_t* out_timing);

#ifdef __cplusplus
}
#endif

#endif /* HRX_MODEL_SESSION_H_ */
