/* PM4 compute queues: kernel dispatches, copies and fills run by a GPU's
 * command processor from PM4 packets, in order, completed by fences.
 *
 * Commands are recorded in order; submit ends the batch with a fence and
 * starts it, returning the fence's value (1, 2, ... per queue); wait
 * blocks until that fence has passed, so every command submitted before
 * it is done. Each command starts after the one before it has ended, as
 * on an AQL queue with every barrier bit set.
 *
 * A dispatch is described by an AQL kernel-dispatch packet body (the
 * header is not read): kernel_object of a kernel loaded on the queue's
 * device, kernarg_address pointing at the kernel's kernarg segment in host
 * memory (copied at recording, with the hidden arguments filled as an AQL
 * queue fills them), grid and workgroup sizes, group segment. The command
 * processor loads the kernarg pointer as the only user SGPRs and sets up
 * no scratch: a kernel asking for more (dispatch or queue pointer,
 * private memory) is UNIMPLEMENTED, naming what it asks for. Copies and
 * fills address memory allocated on the device.
 *
 * Devices: the kfd provider (gfx1151) runs a PM4 user queue (KFD queue
 * type COMPUTE). The host device has no command processor: create answers
 * UNAVAILABLE naming it (its compute queues take AQL packets,
 * hrx/fabric/queue.h).
 *
 * A queue holds a bounded amount of unfinished work: a command that does
 * not fit (ring space, or the kernarg slots of dispatches not yet passed)
 * is RESOURCE_EXHAUSTED with nothing recorded; submit, wait on a fence and
 * retry.
 *
 * Threads. A PM4 queue is used by one thread at a time; different queues
 * are independent. Queues retain their device; the caller keeps the
 * kernels' executables and the memory commands name alive until their
 * fence has passed.
 */
#ifndef HRX_FABRIC_PM4_H_
#define HRX_FABRIC_PM4_H_

#include <stdint.h>

#include "hrx/core.h"
#include "hrx/fabric/aql.h"
#include "hrx/fabric/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_fabric_pm4_queue_s hrx_fabric_pm4_queue_t;

/* Creates a PM4 queue on |device|. UNAVAILABLE on a device without a
 * command processor (the host device); RESOURCE_EXHAUSTED when none of the
 * GPU's compute queues is free. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_pm4_queue_create(
    hrx_fabric_device_t* device, hrx_fabric_pm4_queue_t** out_queue);

/* Destroys an idle queue. BUSY, and the queue stays usable, while
 * submitted work has not completed (a stopped queue has nothing left to
 * wait for). Commands recorded but never submitted are dropped. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_pm4_queue_destroy(
    hrx_fabric_pm4_queue_t* queue);

/* Destroys the queue whatever it holds: the command processor is stopped
 * first and never touches the queue or the memory its commands named
 * again; work in flight may be partly done. */
HRX_API void hrx_fabric_pm4_queue_abort(hrx_fabric_pm4_queue_t* queue);

/* "PM4 queue 3": how statuses name the queue. */
HRX_API const char* hrx_fabric_pm4_queue_name(
    const hrx_fabric_pm4_queue_t* queue);

/* Records a dispatch of |packet| (see above). An empty grid records
 * nothing. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_pm4_dispatch(
    hrx_fabric_pm4_queue_t* queue, const hrx_aql_dispatch_packet_t* packet);

/* Records a copy of |bytes| (> 0) from |source| to |destination|, any
 * alignment; each range inside one allocation, the two not overlapping. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_pm4_copy(
    hrx_fabric_pm4_queue_t* queue, uint64_t destination, uint64_t source,
    uint64_t bytes);

/* Records a fill of |bytes| (a nonzero multiple of 4) at |destination|
 * (4-byte aligned) with the dword |pattern|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_pm4_fill(
    hrx_fabric_pm4_queue_t* queue, uint64_t destination, uint32_t pattern,
    uint64_t bytes);

/* Ends the recorded commands with a fence and starts them; |*out_fence|
 * is the fence to wait on. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_pm4_submit(
    hrx_fabric_pm4_queue_t* queue, uint64_t* out_fence);

/* The highest fence passed so far (0: none). */
HRX_API uint64_t hrx_fabric_pm4_completed(hrx_fabric_pm4_queue_t* queue);

/* Blocks until fence |fence| has passed, for at most |timeout_ns|
 * (HRX_TIMEOUT_INFINITE: forever): DEADLINE_EXCEEDED naming the queue and
 * the fence when it has not (the work goes on); ABORTED at once, with the
 * command processor's account, when the queue stopped on a fault;
 * INVALID_ARGUMENT for a fence never submitted. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_pm4_wait(
    hrx_fabric_pm4_queue_t* queue, uint64_t fence, uint64_t timeout_ns);

/* OK while the queue runs; ABORTED with the command processor's account
 * once it stopped on a fault (it then runs nothing more: destroy it). */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_pm4_queue_check(
    hrx_fabric_pm4_queue_t* queue);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_PM4_H_ */
