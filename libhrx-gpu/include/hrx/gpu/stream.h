/* Streams: ordered work on one device.
 *
 * A stream is bound for life to one of its device's queues, chosen round-
 * robin at creation (no priority or load awareness). Work on one stream
 * runs in submission order. Work on different streams is unordered unless
 * an event orders it: a buffer written by one stream and read by another
 * without an event yields whichever bytes the device held at the time.
 *
 * A stream is not thread-safe: use it from one thread at a time (streams
 * are cheap; create one per thread). Queued work retains every buffer,
 * kernel and staging area it uses until it completes, so callers may
 * release them right after recording.
 *
 * A fault in the stream's work (an out-of-bounds access, say) makes the
 * stream failed: calls return the fault (ABORTED) once the stream has
 * seen it (every wait looks; queuing looks every 16 commands), and work
 * queued after the fault does not run; the device and other streams keep working,
 * except that on a GPU the fault stops the stream's device queue, which
 * fails the work other streams had queued there too. A failed stream
 * takes work again once recovered (hrx_gpu_stream_recover). On
 * the host device a stream may collect sanitizer findings as reports
 * instead, its kernels running on (hrx/gpu/sanitizer.h).
 *
 * Work that never ends (a kernel in an endless loop) is ended with
 * hrx_gpu_stream_cancel, and by destroying the stream after a synchronize
 * timed out on it. Until then it keeps every resource it uses: a timeout
 * frees nothing the device may still touch.
 *
 * Threads. The stream's owner thread submits and waits; the device queue's
 * packet-processor thread (and its worker pool) run the work and complete
 * the timeline signal; no thread belongs to the stream itself.
 */
#ifndef HRX_GPU_STREAM_H_
#define HRX_GPU_STREAM_H_

#include "hrx/gpu/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_gpu_stream_s hrx_gpu_stream_t;
typedef struct hrx_gpu_readback_s hrx_gpu_readback_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_create(
    hrx_gpu_device_t* device, hrx_gpu_stream_t** out_stream);
/* Waits for the stream's work, then frees it. If a synchronize on the
 * stream timed out and the work it waited for has still not finished,
 * the outstanding work is cancelled first (hrx_gpu_stream_cancel): a
 * stream whose work was presumed stuck never hangs its destruction. */
HRX_API void hrx_gpu_stream_destroy(hrx_gpu_stream_t* stream);

/* Cancels the stream's outstanding work and waits for it to end: a kernel
 * running now stops at its next loop back-edge or workgroup barrier, work
 * not started is skipped, a wait on an event gives up. The stream is then
 * failed (ABORTED with a "cancelled" fault report naming where a kernel
 * stopped) unless everything had completed already, when this does
 * nothing. Events recorded on the stream still complete (and report the
 * failure). Returns promptly unless the stream's queue is held up by
 * another stream's endless work. */
HRX_API void hrx_gpu_stream_cancel(hrx_gpu_stream_t* stream);

/* Makes a failed stream (a fault, or a cancel) take work again. It waits
 * until the device is done with everything queued on the stream (work
 * behind the fault completes as faulted at once: it never runs, on stale
 * state or otherwise), restarts the stream's device queue when the fault
 * stopped it (hrx_fabric_queue_restart; other streams that had work on
 * that queue are failed and recover the same way), and gives the stream a
 * fresh start: events, readbacks and graph replays recorded before keep
 * reporting the failure, work queued from now on runs. |out_fault| (may
 * be NULL; HRX_STRUCT_INIT) receives the report that failed the stream,
 * kind HRX_FABRIC_FAULT_NONE when it had not failed (nothing is done
 * then). When the queue cannot be restarted the stream stays failed and
 * the status says why. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_recover(
    hrx_gpu_stream_t* stream, hrx_fabric_fault_t* out_fault);

/* Charges this stream's allocations and staging to |budget| (retained);
 * exhaustion is RESOURCE_EXHAUSTED before anything is allocated. NULL
 * removes the budget for later allocations. */
HRX_API void hrx_gpu_stream_set_memory_budget(hrx_gpu_stream_t* stream,
                                              hrx_budget_t* budget);

/* A zeroed buffer of |bytes| (> 0), HOST_COHERENT: the host and every
 * queue see each other's writes without cache maintenance. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_allocate(
    hrx_gpu_stream_t* stream, uint64_t bytes, hrx_gpu_buffer_t** out_buffer);
/* A zeroed buffer of |bytes| (> 0) placed as |placement| says (see
 * hrx_fabric_device_allocation_profile for what each promises on the
 * stream's device). DEVICE memory is what kernels should work in: on
 * gfx1151 it is GTT the GPU caches (HOST_COHERENT is uncached for the
 * GPU), on the host device it is ordinary host memory. The stream's
 * transfers (upload, download, read) work on every placement and do the
 * host cache maintenance a non-coherent placement needs; such a buffer
 * has no hrx_gpu_buffer_host_pointer. An unknown placement is
 * INVALID_ARGUMENT. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_allocate_placed(
    hrx_gpu_stream_t* stream, uint64_t bytes,
    hrx_fabric_visibility_t placement, hrx_gpu_buffer_t** out_buffer);
/* A HOST_COHERENT buffer holding a copy of |data| (|length| > 0), written
 * in one pass. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_allocate_from(
    hrx_gpu_stream_t* stream, const void* data, uint64_t length,
    hrx_gpu_buffer_t** out_buffer);
/* As hrx_gpu_stream_allocate_from, placed as |placement| says (see
 * hrx_gpu_stream_allocate_placed); the bytes are visible to every queue
 * when this returns. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_allocate_from_placed(
    hrx_gpu_stream_t* stream, const void* data, uint64_t length,
    hrx_fabric_visibility_t placement, hrx_gpu_buffer_t** out_buffer);

/* Writes |data| into |view| (|length| == view length) in stream order.
 * |data| may be reused on return: when the stream has queued work, the
 * bytes are copied into staging now and the write is queued; when it has
 * none and the device's memory is host-visible (the host device, and
 * gfx1151's unified memory), they go straight into the buffer, one copy.
 * Staging comes from a small per-device cache and is charged to the
 * stream's budget while in use. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_upload(
    hrx_gpu_stream_t* stream, hrx_gpu_view_t view, const void* data,
    uint64_t length);
/* Waits for the stream, then writes |view| directly. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_upload_blocking(
    hrx_gpu_stream_t* stream, hrx_gpu_view_t view, const void* data,
    uint64_t length);

/* Waits for the stream, then copies |view| into |data| (|length| == view
 * length): one copy, no staging. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_download_blocking(
    hrx_gpu_stream_t* stream, hrx_gpu_view_t view, void* data,
    uint64_t length);

/* Queues a read of |view|; the readback's wait yields the bytes, a
 * snapshot in stream order (taken at once when nothing is queued). The
 * readback holds staging from the device's cache until released. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_read(
    hrx_gpu_stream_t* stream, hrx_gpu_view_t view,
    hrx_gpu_readback_t** out_readback);
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_readback_wait(
    hrx_gpu_readback_t* readback, uint64_t timeout_ns, const void** out_data,
    uint64_t* out_length);
HRX_API void hrx_gpu_readback_release(hrx_gpu_readback_t* readback);

/* Fills |view| (length a multiple of 4) with a 32-bit pattern. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_fill(
    hrx_gpu_stream_t* stream, hrx_gpu_view_t view, uint32_t pattern);
/* Copies between views of equal, nonzero length (overlap allowed). */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_copy(
    hrx_gpu_stream_t* stream, hrx_gpu_view_t source,
    hrx_gpu_view_t destination);

/* Evaluates the kernel's launch program on the workload, checks the
 * arguments against the kernel (count, kinds, device) and queues it. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_dispatch(
    hrx_gpu_stream_t* stream, const hrx_gpu_kernel_t* kernel,
    const hrx_gpu_launch_t* launch);

/* Prepared commands: a dispatch or copy checked, its launch geometry
 * evaluated and its arguments packed once, then queued any number of times
 * without allocating. A prepared command retains its kernel and buffers
 * and is immutable, so streams of its device may queue it concurrently.
 * Queuing neither copies nor retains it: the caller keeps it alive until
 * every stream it was queued on has passed it (an event recorded after it
 * completed, or the stream synchronized). */
typedef struct hrx_gpu_prepared_s hrx_gpu_prepared_t;

/* As hrx_gpu_stream_dispatch checks, at preparation. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_prepare_dispatch(
    hrx_gpu_device_t* device, const hrx_gpu_kernel_t* kernel,
    const hrx_gpu_launch_t* launch, hrx_gpu_prepared_t** out_prepared);
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_prepare_copy(
    hrx_gpu_device_t* device, hrx_gpu_view_t source,
    hrx_gpu_view_t destination, hrx_gpu_prepared_t** out_prepared);
HRX_API void hrx_gpu_prepared_destroy(hrx_gpu_prepared_t* prepared);
/* The kernel-dispatch packet body of a prepared dispatch (header zero,
 * setup and sizes set, kernarg_address pointing at its kernarg segment in
 * host memory, no completion signal), for another queue family that takes
 * such bodies (hrx/fabric/pm4.h), as libhrx-exec's PM4 compute engine
 * does. It stays valid while |prepared| lives. INVALID_ARGUMENT when
 * |prepared| is not a dispatch. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_prepared_dispatch_packet(
    const hrx_gpu_prepared_t* prepared,
    hrx_aql_dispatch_packet_t* out_packet);
/* INVALID_ARGUMENT when |prepared| belongs to another device. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_enqueue(
    hrx_gpu_stream_t* stream, const hrx_gpu_prepared_t* prepared);
/* Queues |count| prepared commands in order, reserving queue slots in
 * groups and ringing the doorbell once. Every command is checked before
 * any is queued; on a later failure (a full queue past its timeout, a
 * faulted stream) the ones before it stay queued. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_enqueue_all(
    hrx_gpu_stream_t* stream, const hrx_gpu_prepared_t* const* prepared,
    size_t count);

/* An event that completes when all work queued so far has. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_record_event(
    hrx_gpu_stream_t* stream, hrx_gpu_event_t** out_event);
/* Later work on |stream| starts after |event| completes. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_wait_event(
    hrx_gpu_stream_t* stream, hrx_gpu_event_t* event);

/* Batches: between begin and the matching end, commands are queued
 * without waking the device's queue processor, which then starts on them
 * all at the end (or earlier, if it is awake anyway): many commands for
 * one wake-up. Batches nest; a wait on the stream itself (synchronize,
 * blocking upload, destroy) ends the deferral early. Events and readbacks
 * recorded inside a batch complete only once it has ended: wait on them
 * after the end. */
HRX_API void hrx_gpu_stream_begin_batch(hrx_gpu_stream_t* stream);
HRX_API void hrx_gpu_stream_end_batch(hrx_gpu_stream_t* stream);

/* Waits for all queued work; DEADLINE_EXCEEDED on timeout (the work keeps
 * running and keeps its resources: wait again, cancel it, or destroy the
 * stream, which then cancels it), ABORTED with the fault report when the
 * work faulted. A timeout of 0 only polls and presumes nothing stuck. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_synchronize(
    hrx_gpu_stream_t* stream, uint64_t timeout_ns);

#ifdef __cplusplus
}
#endif

#endif /* HRX_GPU_STREAM_H_ */
