/* Transfer queues: copies and fills of device memory, in order, completed
 * by fences.
 *
 * Commands (copy, fill, wait_memory) are recorded in order; submit ends
 * the batch with a fence and hands it to the engine, returning the
 * fence's value (1, 2, ... per queue); wait blocks until that fence has
 * passed, so every command submitted before it is done. Every address
 * must lie inside memory allocated on the queue's device, a command's
 * whole range inside one allocation: anything else is INVALID_ARGUMENT
 * naming the address, and nothing is recorded. Byte counts of 0 record
 * nothing.
 *
 * Per device:
 * - kfd (gfx1151): an SDMA user queue. Commands go to the ring at once
 *   and run once submitted; copies are COPY_LINEAR, fills CONST_FILL of
 *   whole aligned dwords with byte fills for unaligned heads and tails,
 *   fences SDMA FENCE packets. A ring holds a bounded amount of unfinished
 *   work: a command that does not fit answers RESOURCE_EXHAUSTED (nothing
 *   recorded); wait on a fence and retry.
 * - host: host memory operations, run on the caller's thread during
 *   submit and wait, in order. A wait_memory whose condition does not hold
 *   parks the queue there; later submits and waits retry it.
 *
 * Threads. A transfer queue is used by one thread at a time; different
 * queues are independent. Its engine (the SDMA engine) needs no host
 * thread. Queues retain their device.
 */
#ifndef HRX_FABRIC_TRANSFER_H_
#define HRX_FABRIC_TRANSFER_H_

#include <stdint.h>

#include "hrx/core.h"
#include "hrx/fabric/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_fabric_transfer_queue_s hrx_fabric_transfer_queue_t;

/* Creates a transfer queue on |device|. RESOURCE_EXHAUSTED when the
 * device has no transfer engine queue free (hrx_fabric_queue_families
 * says how many it offers). */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_transfer_queue_create(
    hrx_fabric_device_t* device, hrx_fabric_transfer_queue_t** out_queue);

/* Destroys an idle queue. BUSY, and the queue stays usable, while
 * submitted work has not completed (a stopped queue has nothing left to
 * wait for). Commands recorded but never submitted are dropped. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_transfer_queue_destroy(
    hrx_fabric_transfer_queue_t* queue);

/* Destroys the queue whatever it holds: the engine is stopped first and
 * never touches the queue or the memory its commands named again; work in
 * flight may be partly done. For owners tearing down (a device going away
 * with a queue parked on a condition that will never hold). */
HRX_API void hrx_fabric_transfer_queue_abort(
    hrx_fabric_transfer_queue_t* queue);

/* "SDMA queue 2", "host transfer queue": how statuses name the queue. */
HRX_API const char* hrx_fabric_transfer_queue_name(
    const hrx_fabric_transfer_queue_t* queue);

/* Records a copy of |bytes| from |source| to |destination|, any alignment;
 * the ranges must not overlap. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_transfer_copy(
    hrx_fabric_transfer_queue_t* queue, uint64_t destination,
    uint64_t source, uint64_t bytes);

/* Records a fill of |bytes| at |destination|, any alignment, with the
 * 32-bit |pattern| repeated from the destination on: byte i gets byte
 * (i % 4) of |pattern| in little-endian order. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_transfer_fill(
    hrx_fabric_transfer_queue_t* queue, uint64_t destination,
    uint32_t pattern, uint64_t bytes);

/* Records a wait: later commands run once (the 32-bit word at |address|,
 * 4-byte aligned, & |mask|) == |value|. Another agent (the host, another
 * queue) is expected to write it. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_transfer_wait_memory(
    hrx_fabric_transfer_queue_t* queue, uint64_t address, uint32_t value,
    uint32_t mask);

/* Ends the recorded commands with a fence and starts them; |*out_fence|
 * is the fence to wait on. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_transfer_submit(
    hrx_fabric_transfer_queue_t* queue, uint64_t* out_fence);

/* The highest fence passed so far (0: none). */
HRX_API uint64_t hrx_fabric_transfer_completed(
    hrx_fabric_transfer_queue_t* queue);

/* Blocks until fence |fence| has passed, for at most |timeout_ns|
 * (HRX_TIMEOUT_INFINITE: forever). DEADLINE_EXCEEDED naming the queue and
 * the fence when it has not; the queue stays usable (its work continues
 * once the condition it waits on holds). ABORTED at once, with the
 * engine's account, when the queue stopped on a fault. INVALID_ARGUMENT
 * for a fence never submitted. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_transfer_wait(
    hrx_fabric_transfer_queue_t* queue, uint64_t fence, uint64_t timeout_ns);

/* OK while the queue runs; ABORTED with the engine's account once it
 * stopped on a fault (it then runs nothing more: destroy it). */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_transfer_queue_check(
    hrx_fabric_transfer_queue_t* queue);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_TRANSFER_H_ */
