/* libhrx-exec: the execution runtime. Record work once as a graph of
 * uploads, kernel dispatches, copies and downloads; HRX infers the
 * dependencies from the byte ranges each node declares and replays the
 * graph with only the synchronisation those hazards need.
 *
 * Lanes. A runtime owns one stream per lane (upload, compute, download),
 * each on its own device queue (built with -Dnpu, an NPU lane beside
 * them: hrx/exec/npu.h). A lane runs one operation at a time, in
 * submission order, across every graph of the runtime; different lanes
 * overlap. A dependency between nodes of different lanes becomes an event
 * the later lane waits for; within a lane, order is free.
 *
 * Hazards. Each node declares the byte ranges it reads and writes (uploads
 * write, downloads read, copies read their source and write their
 * destination, dispatches follow their kernel's contract). Edges are the
 * minimal frontier of read-after-write, write-after-read and
 * write-after-write hazards (hrx/gpu/hazard_tracker.h). Submissions are
 * ordered the same way against earlier submissions still in flight whose
 * accessed ranges conflict.
 *
 * Memory. Buffers come from the runtime and are charged, with transfer
 * staging, to its memory budget; exhaustion is RESOURCE_EXHAUSTED before
 * anything is allocated. Everything a submission uses is retained until
 * the device is done with it, whatever the caller releases or however a
 * wait times out.
 *
 * Observation (opt-in: RuntimeOptions.observe, or a trace). The runtime
 * then owns one watcher thread per lane ("hrx-upload", "hrx-compute",
 * "hrx-download"), started with it and joined when it is destroyed. A
 * watcher waits, in order, for the end of each submission's work on its
 * lane and records what the host saw: the lane's occupancy in the
 * statistics and as one trace event per lane and submission, and it makes
 * completion file descriptors readable. The occupancy starts at the later
 * of the submission and the lane's previous end; when the lane first waits
 * for other lanes (a cross-lane edge, or ordering after a conflicting
 * submission), it starts when the watcher sees that wait end, through one
 * more event on the lane. Without observation the runtime starts no threads and a
 * submission costs no thread wake-ups beyond the device's own.
 *
 * Threads. A runtime and its kernels may be used from any thread; a graph
 * is recorded by one thread at a time; a completion may be waited on from
 * one thread at a time. The runtime owns its watcher threads (when
 * observing); the device owns the queue threads that run the work.
 *
 * Regions. Under copy_engine = SDMA or compute_engine = PM4 the copies or
 * dispatches that engine runs are host-ordered regions: a maximal stretch
 * of consecutive such nodes of one lane, with no other lane waiting on a
 * node before its last one, runs on the engine's queue under one fence
 * the submitting thread waits for once (in order, each node after the one
 * before it has ended). A region larger than its queue holds is fenced in
 * as many parts as it needs.
 *
 * Hung regions. Submit waits for a region (and for the lanes to drain
 * before it) at most region_timeout_ns. A region that does not end in
 * time fails the submission with DEADLINE_EXCEEDED naming the queue and
 * the fence it waited for (or the lane that did not drain); the work
 * already queued stays queued, and the queue is reported dead: every
 * later region for it fails at once with ABORTED naming the queue and
 * that fence, and destroying the runtime stops the queue instead of
 * waiting for it. Only a new runtime gets a new queue.
 *
 * Faults. A submission whose work faults on the device fails its own
 * completion (ABORTED). Work it had queued behind the fault, on the lanes
 * the fault stopped, never runs; submit then recovers those lanes
 * (hrx_gpu_stream_recover, restarting a GPU queue the fault stopped)
 * before queuing the next submission, which runs as if nothing happened.
 * Under compute_engine = PM4 a dispatch region's fault fails the submit
 * itself (ABORTED, see Regions) and stops the PM4 queue for good; the
 * next submit replaces that queue with a new one.
 * A completion of an earlier submission still waited on after a later
 * one faulted on a lane they share reports the fault too.
 *
 * Timeouts. A completion wait that times out leaves the work running with
 * everything it uses; the runtime remembers that it did. Destroying the
 * runtime afterwards cancels whatever still runs (hrx_gpu_stream_cancel on
 * every lane) instead of waiting for it, so a process whose kernel never
 * ends can still tear down and exit.
 */
#ifndef HRX_EXEC_H_
#define HRX_EXEC_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

HRX_API const char* hrx_exec_version(void);

/*===------------------------------------------------------------------===*/
/* Runtime                                                                 */
/*===------------------------------------------------------------------===*/

typedef struct hrx_exec_runtime_s hrx_exec_runtime_t;

typedef enum hrx_exec_lane_e {
  HRX_EXEC_LANE_UPLOAD = 0,
  HRX_EXEC_LANE_COMPUTE = 1,
  HRX_EXEC_LANE_DOWNLOAD = 2,
  HRX_EXEC_LANE_COUNT = 3, /* the stream lanes above; also "no such node" */
  /* NPU programs (hrx/exec/npu.h, built with -Dnpu): host-ordered regions,
   * one at a time, on no stream of the runtime. */
  HRX_EXEC_LANE_NPU = 4,
} hrx_exec_lane_t;

/* What runs the upload and download lanes' copies. */
typedef enum hrx_exec_copy_engine_e {
  HRX_EXEC_COPY_ENGINE_AUTO = 0, /* the device's default (compute) */
  /* Copies are packets on compute queues of their own: on the host device
   * its queue processors, on a GPU blit kernels. */
  HRX_EXEC_COPY_ENGINE_COMPUTE,
  /* The device's transfer queue (hrx/fabric/transfer.h) runs the graphs'
   * device-to-device copy nodes: an SDMA queue on a kfd device, the host
   * transfer queue (host memory operations) on the host device.
   * Consecutive copies form one host-ordered region (see Regions): submit
   * drains every lane first, queues the copies under one fence and waits
   * for it once before queuing what follows, so it blocks the submitting
   * thread until work queued before the region has finished.
   * Uploads and downloads, and copies between overlapping ranges of one
   * buffer (which transfer queues refuse), stay on their lanes. */
  HRX_EXEC_COPY_ENGINE_SDMA,
} hrx_exec_copy_engine_t;

/* How the compute lane's work reaches the device. */
typedef enum hrx_exec_compute_engine_e {
  HRX_EXEC_COMPUTE_ENGINE_AUTO = 0, /* the device's default (AQL) */
  HRX_EXEC_COMPUTE_ENGINE_AQL,      /* AQL packets on a user-mode queue */
  /* A kfd device's PM4 queue (hrx/fabric/pm4.h) runs the graphs'
   * dispatches, consecutive ones as one host-ordered region as copies are
   * under copy_engine = SDMA (submit drains the lanes, queues the
   * dispatches under one fence and waits for it once). A kernel the command processor cannot set up (one
   * asking for the dispatch or queue pointer, or private memory) fails
   * the submission as UNIMPLEMENTED naming it. UNAVAILABLE on the host
   * device, whose compute queues take AQL packets only. */
  HRX_EXEC_COMPUTE_ENGINE_PM4,
} hrx_exec_compute_engine_t;

typedef struct hrx_exec_runtime_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  /* Submissions in flight at once (the queue capacity, nothing more); a
   * submit beyond it is BUSY. 0 selects 64. */
  uint32_t max_submissions;
  /* Charged with buffers and transfer staging (retained). NULL: an
   * unlimited budget of the runtime's own, for the statistics. */
  hrx_budget_t* memory_budget;
  /* Start the lane watchers (see Observation): lane statistics and
   * completion file descriptors need them. */
  bool observe;
  /* Host-observed lane activity is recorded here when set (retained
   * until the runtime is destroyed): one event per lane and submission,
   * named after the lane, on track (tid) lane + 1. Implies observe. */
  hrx_trace_t* trace;
  hrx_exec_copy_engine_t copy_engine;
  hrx_exec_compute_engine_t compute_engine;
  /* How long submit waits for one host-ordered region (see Regions),
   * lane draining included; 0 selects 60 s, HRX_TIMEOUT_INFINITE never
   * gives up. */
  uint64_t region_timeout_ns;
  /* Private memory per work-item the compute lane's AQL queues must give
   * a dispatch (hrx-rs ComputeEngine::Aql { maximum_private_bytes }): set
   * on the device (hrx_gpu_device_set_maximum_private_bytes) when it has
   * no stream yet; otherwise the device's setting must already cover it,
   * else creation fails with FAILED_PRECONDITION. 0 asks for nothing. */
  uint64_t maximum_private_bytes;
} hrx_exec_runtime_options_t;

/* |device| is retained. |options| may be NULL. An engine the runtime
 * cannot drive on |device| is UNAVAILABLE, naming the device; an unknown
 * one INVALID_ARGUMENT; RESOURCE_EXHAUSTED when the device has no
 * transfer queue (copy_engine = SDMA) or PM4 queue (compute_engine = PM4)
 * free. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_runtime_create(
    hrx_gpu_device_t* device, const hrx_exec_runtime_options_t* options,
    hrx_allocator_t allocator, hrx_exec_runtime_t** out_runtime);
/* Waits for every submission, then frees the runtime; after a completion
 * wait timed out, cancels the work still running first (see Timeouts).
 * Release completions before destroying their runtime. */
HRX_API void hrx_exec_runtime_destroy(hrx_exec_runtime_t* runtime);

/* A zeroed device buffer of |bytes|, charged to the runtime's budget until
 * its last reference is released (hrx_gpu_buffer_release). */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_buffer_allocate(
    hrx_exec_runtime_t* runtime, uint64_t bytes,
    hrx_gpu_buffer_t** out_buffer);

typedef struct hrx_exec_statistics_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint64_t upload_bytes;   /* host -> device, per submitted upload */
  uint64_t download_bytes; /* device -> host */
  uint64_t submissions;
  uint64_t nodes;          /* nodes submitted, over all submissions */
  uint64_t cross_lane_waits;
  uint64_t live_bytes, peak_bytes; /* tracked memory (the budget's) */
  /* Host-observed occupancy of each lane (see Observation), in ns, over
   * the submissions whose end the watchers have seen; zero when the
   * runtime does not observe. Its length is fixed once released: a lane
   * added later reports in a member appended at the end. */
  uint64_t lane_busy_ns[HRX_EXEC_LANE_COUNT];
  /* Bytes copied on the transfer queue (copy_engine = SDMA). */
  uint64_t sdma_copy_bytes;
  /* Dispatches run on the PM4 queue (compute_engine = PM4). */
  uint64_t pm4_dispatches;
  /* Fences the host waited on for host-ordered regions (one per region,
   * more only when a region outgrew its queue). */
  uint64_t region_fences;
  /* NPU regions run (hrx/exec/npu.h; failed ones included), their
   * host-observed time in ns (staging, dispatch and retirement, always
   * measured) and the bytes staged between runtime buffers and NPU
   * staging buffers. */
  uint64_t npu_regions;
  uint64_t npu_busy_ns;
  uint64_t npu_staged_bytes;
} hrx_exec_statistics_t;

/* Fills |out_stats| up to its struct_size (hrx/core/struct.h). */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_runtime_statistics(
    hrx_exec_runtime_t* runtime, hrx_exec_statistics_t* out_stats);

/*===------------------------------------------------------------------===*/
/* Kernel contracts                                                        */
/*===------------------------------------------------------------------===*/

typedef struct hrx_exec_kernel_s hrx_exec_kernel_t;

typedef struct hrx_exec_binding_contract_t {
  hrx_gpu_access_t access;
  uint64_t min_bytes;  /* the bound view must be at least this long */
  uint32_t alignment;  /* of the view's offset; a power of two, 0 = 1 */
} hrx_exec_binding_contract_t;

/* What a kernel's arguments must be: |binding_count| buffer bindings (in
 * argument order among the bindings) and |scalar_count| scalars. */
typedef struct hrx_exec_kernel_contract_t {
  const hrx_exec_binding_contract_t* bindings;
  size_t binding_count;
  size_t scalar_count;
} hrx_exec_kernel_contract_t;

/* Binds |kernel| (retained) to |contract| (copied). INVALID_ARGUMENT when
 * the contract is malformed or disagrees with the kernel's arguments. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_kernel_create(
    hrx_exec_runtime_t* runtime, hrx_gpu_kernel_t* kernel,
    const hrx_exec_kernel_contract_t* contract,
    hrx_exec_kernel_t** out_kernel);
HRX_API void hrx_exec_kernel_destroy(hrx_exec_kernel_t* kernel);

/*===------------------------------------------------------------------===*/
/* Graphs                                                                  */
/*===------------------------------------------------------------------===*/

typedef struct hrx_exec_graph_s hrx_exec_graph_t;
typedef uint32_t hrx_exec_node_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_exec_graph_create(
    hrx_exec_runtime_t* runtime, hrx_exec_graph_t** out_graph);
/* Frees the recording; submissions already made keep what they use. */
HRX_API void hrx_exec_graph_destroy(hrx_exec_graph_t* graph);

/* Upload lane: each submission copies |length| bytes from |data| (read at
 * submit time, so it may change between submissions) into |view|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_graph_upload(
    hrx_exec_graph_t* graph, hrx_gpu_view_t view, const void* data,
    hrx_exec_node_t* out_node);

/* Compute lane: a dispatch checked against the kernel's contract; a
 * breach is INVALID_ARGUMENT naming the argument. Each binding's declared
 * access is the contract's. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_graph_dispatch(
    hrx_exec_graph_t* graph, const hrx_exec_kernel_t* kernel,
    const hrx_gpu_launch_t* launch, hrx_exec_node_t* out_node);

/* Compute lane: copies |source| to |destination| (equal lengths). */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_graph_copy(
    hrx_exec_graph_t* graph, hrx_gpu_view_t source,
    hrx_gpu_view_t destination, hrx_exec_node_t* out_node);

/* Download lane: each submission's completion, once observed by
 * hrx_exec_completion_wait or _poll, has copied |view| into |data|
 * (view.length bytes, which must stay valid until then). */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_graph_download(
    hrx_exec_graph_t* graph, hrx_gpu_view_t view, void* data,
    hrx_exec_node_t* out_node);

HRX_API size_t hrx_exec_graph_node_count(const hrx_exec_graph_t* graph);
/* The inferred predecessors of |node| (borrowed, sorted ascending). */
HRX_API const hrx_exec_node_t* hrx_exec_graph_node_deps(
    const hrx_exec_graph_t* graph, hrx_exec_node_t node, size_t* out_count);
HRX_API hrx_exec_lane_t hrx_exec_graph_node_lane(const hrx_exec_graph_t* graph,
                                                 hrx_exec_node_t node);

/*===------------------------------------------------------------------===*/
/* Submission and completion                                               */
/*===------------------------------------------------------------------===*/

typedef struct hrx_exec_completion_s hrx_exec_completion_t;

/* Queues one replay of |graph|. BUSY when max_submissions are in flight
 * (nothing is queued then). The graph may be submitted again at once, and
 * recorded further or destroyed meanwhile. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_graph_submit(
    hrx_exec_graph_t* graph, hrx_exec_completion_t** out_completion);

/* Blocks until the submission is done (every lane's work ended) and its
 * downloads delivered. DEADLINE_EXCEEDED on timeout (the work goes on;
 * wait again, or destroy the runtime, which then cancels it); ABORTED,
 * with the fault report, when the device faulted running it or it was
 * cancelled (no download is delivered then). A timeout of 0 only
 * polls. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_completion_wait(
    hrx_exec_completion_t* completion, uint64_t timeout_ns);
/* Never blocks: OK when done (downloads delivered), BUSY while running
 * (a status that allocates nothing, so polling loops cost no memory). */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_completion_poll(
    hrx_exec_completion_t* completion);
/* A file descriptor that becomes readable once the submission's device
 * work has ended, for poll/epoll loops; then hrx_exec_completion_poll
 * delivers the downloads without blocking. Owned by the completion (do not
 * close it); the same fd on every call. FAILED_PRECONDITION when the
 * runtime does not observe (RuntimeOptions.observe). */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_completion_fd(
    hrx_exec_completion_t* completion, int* out_fd);
/* Once the submission's device work has ended (BUSY, no message, until
 * then), why it failed: the report of the fault (kernel, where, what;
 * hrx/fabric/fault.h) and the lane whose work faulted, or kind
 * HRX_FABRIC_FAULT_NONE and HRX_EXEC_LANE_COUNT when nothing did.
 * |out_fault|: HRX_STRUCT_INIT. As hrx_exec_completion_wait, a fault of a
 * later submission on a lane they share, before the lane recovered,
 * counts too. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_completion_fault(
    hrx_exec_completion_t* completion, hrx_exec_lane_t* out_lane,
    hrx_fabric_fault_t* out_fault);
/* Completions are reference counted: submit returns one reference, each
 * retain adds one, and holders release theirs in any order. When the last
 * is released while the work still runs, what it uses stays alive until it
 * ends; its downloads are then not delivered. */
HRX_API void hrx_exec_completion_retain(hrx_exec_completion_t* completion);
HRX_API void hrx_exec_completion_release(hrx_exec_completion_t* completion);

#ifdef __cplusplus
}
#endif

#endif /* HRX_EXEC_H_ */
