/* libhrx-exec's NPU lane (built with -Dnpu): XDNA programs as graph nodes
 * beside the GPU lanes, and resident sessions (a GPU invocation and an NPU
 * invocation started together on one word).
 *
 * Programs. An NPU program of the runtime is an entry of a `.xdna` image
 * bound, once and for good, to views of the runtime's buffers: each
 * binding declares the access the image gives it (read, write or both),
 * and graph nodes invoking the program take part in the runtime's hazard
 * inference with those ranges, exactly as dispatches do with their
 * contracts. Where the GPU can export its memory (a kfd device) the NPU
 * works on the buffers themselves, imported as dma-bufs (one import per
 * buffer and NPU device, shared by every binding of it); on the host
 * device, whose memory no driver can import, each binding is staged
 * through an NPU buffer of its own: bytes the NPU reads are copied in
 * before each invocation, bytes it writes copied out after it.
 *
 * The NPU lane. An NPU node runs as a host-ordered region, one at a time
 * for the whole runtime: submit rings what the GPU lanes batched so far,
 * waits on the host for the node's dependencies and for conflicting
 * submissions still in flight (GPU work the node does not touch runs on
 * beside it), stages in, dispatches the invocation, waits for it to
 * retire, stages out, and only then queues what follows. So the
 * submitting thread blocks for the NPU's work, and a GPU node after an
 * NPU node it depends on sees the NPU's bytes. A failed invocation (the
 * driver refused it, or the command ended in a state other than
 * COMPLETED) fails the submit with that
 * status, as a failed copy region does; the part queued before it runs
 * on, and the runtime and the program stay usable.
 *
 * Memory. Staging buffers are charged to the runtime's memory budget for
 * the program's life (RESOURCE_EXHAUSTED before anything is allocated);
 * imported buffers stay charged to their owner, the runtime buffer, alone.
 * The program's own storage (transaction stream, command slots) is
 * charged to the budget the NPU device was opened with.
 *
 * Observation. Statistics count the regions (npu_regions) and their host-
 * observed time (npu_busy_ns: staging, dispatch and retirement); a
 * runtime with a trace records one event "npu" per region on track
 * HRX_EXEC_LANE_NPU + 1.
 */
#ifndef HRX_EXEC_NPU_H_
#define HRX_EXEC_NPU_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/exec.h"
#include "hrx/npu.h"

#ifdef __cplusplus
extern "C" {
#endif

/*===------------------------------------------------------------------===*/
/* Programs and NPU nodes                                                  */
/*===------------------------------------------------------------------===*/

typedef struct hrx_exec_npu_program_s hrx_exec_npu_program_t;

/* Prepares entry |entry_name| of |image| (which may be destroyed after)
 * on |device| with one view per entry binding, in entry order; each
 * view's buffer must come from |runtime|'s device and is retained.
 * INVALID_ARGUMENT for a missing or bad view and for a count that
 * differs from the entry's; the image's own checks (sizes, alignment)
 * otherwise. |device| must outlive the program. Returned with one
 * reference. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_npu_program_prepare(
    hrx_exec_runtime_t* runtime, hrx_npu_device_t* device,
    const hrx_npu_image_t* image, const char* entry_name,
    const hrx_gpu_view_t* views, size_t view_count,
    hrx_exec_npu_program_t** out_program);

/* Graphs recording the program hold a reference; the last release
 * destroys the NPU program (hrx_npu_program_destroy: it waits for pending
 * invocations) and drops the buffers. NULL is accepted. */
HRX_API void hrx_exec_npu_program_retain(hrx_exec_npu_program_t* program);
HRX_API void hrx_exec_npu_program_release(hrx_exec_npu_program_t* program);

/* The NPU buffer binding |index| is bound to (borrowed): the imported
 * runtime buffer, or the binding's staging buffer. NULL past the last. */
HRX_API hrx_npu_buffer_t* hrx_exec_npu_program_buffer(
    const hrx_exec_npu_program_t* program, size_t index);

/* NPU lane: one invocation of |program| per submission, ordered by the
 * hazards its bindings' declared access implies. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_npu_graph_invoke(
    hrx_exec_graph_t* graph, hrx_exec_npu_program_t* program,
    hrx_exec_node_t* out_node);

/*===------------------------------------------------------------------===*/
/* Resident sessions                                                       */
/*===------------------------------------------------------------------===*/

/* The GPU half of a resident session (the NPU half and the protocol:
 * hrx/npu/resident.h). The session allocates the ResidentStartup
 * allocation: a 64-byte runtime buffer (charged to the runtime's budget),
 * which the NPU reaches as an import where the GPU exports its memory;
 * on the host device the NPU half has a 64-byte buffer of its own and
 * every decision is published into both, GPU copy last.
 *
 * Submit hands the GPU participant (a dispatch whose kernel waits on the
 * word, typically spinning on an acquire load of word 0 of its startup
 * binding) to the runtime's compute lane, reports it, then dispatches the
 * NPU participant (a program bound to the startup allocation, prepared
 * with hrx_npu_program_prepare: the NPU invocation is immutable). RUN
 * needs both accepted (BUSY before); ABORT may come any time before RUN
 * and never after; a rejected submit, and destroying the session before
 * deciding, publish ABORT, so neither participant waits for ever.
 *
 * Threads: one session is used by one thread at a time. */
typedef struct hrx_exec_npu_resident_s hrx_exec_npu_resident_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_exec_npu_resident_create(
    hrx_exec_runtime_t* runtime, hrx_npu_device_t* device,
    hrx_exec_npu_resident_t** out_session);

/* The ResidentStartup allocation as the GPU participant binds it (the
 * runtime buffer, borrowed: 64 bytes). */
HRX_API hrx_gpu_view_t hrx_exec_npu_resident_gpu_startup(
    const hrx_exec_npu_resident_t* session);
/* ... and as the NPU program binds it (borrowed). */
HRX_API hrx_npu_buffer_t* hrx_exec_npu_resident_npu_startup(
    const hrx_exec_npu_resident_t* session);

/* Submits the GPU participant (|kernel| with |launch|, checked against
 * the kernel's contract), then dispatches the NPU participant |program|.
 * Once per session, before the decision (FAILED_PRECONDITION otherwise,
 * submitting nothing). A participant its queue rejects publishes ABORT
 * and fails the call with that queue's error; a GPU participant already
 * accepted then sees ABORT and ends. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_npu_resident_submit(
    hrx_exec_npu_resident_t* session, const hrx_exec_kernel_t* kernel,
    const hrx_gpu_launch_t* launch, hrx_npu_program_t* program);

/* Publishes RUN: BUSY until both participants are accepted,
 * FAILED_PRECONDITION once decided. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_npu_resident_run(
    hrx_exec_npu_resident_t* session);
/* Publishes ABORT before RUN (again: nothing); FAILED_PRECONDITION after
 * RUN. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_npu_resident_abort(
    hrx_exec_npu_resident_t* session);
HRX_API hrx_npu_resident_word_t hrx_exec_npu_resident_word(
    const hrx_exec_npu_resident_t* session);

/* Waits up to |timeout_ns| for both participants submitted (after RUN or
 * ABORT): the GPU completion, then the NPU invocation, whose failure is
 * returned. FAILED_PRECONDITION before the decision, which would wait for
 * ever. */
HRX_API HRX_MUST_USE hrx_status_t hrx_exec_npu_resident_wait(
    hrx_exec_npu_resident_t* session, uint64_t timeout_ns);

/* Publishes ABORT if undecided, then releases the session; the GPU
 * participant's work keeps what it uses until it ends (see
 * hrx_exec_completion_release). Wait for the NPU participant, or destroy
 * its program, only after this. NULL is accepted. */
HRX_API void hrx_exec_npu_resident_destroy(hrx_exec_npu_resident_t* session);

#ifdef __cplusplus
}
#endif

#endif /* HRX_EXEC_NPU_H_ */
