/* Queues: rings of AQL packets drained in order by a packet processor.
 *
 * Producers reserve slots (BUSY when the ring is full, never blocking),
 * fill packet bodies, then publish each header; publishing rings the
 * doorbell. A host queue owns one packet-processor thread, started at
 * creation and joined at destruction; it processes packets in order, one at
 * a time (so the barrier bit always holds), splitting dispatches into
 * workgroups over the device's worker pool. Reservation and publication are
 * thread-safe for any number of producers.
 *
 * Skipped packets. A packet whose completion signal reads negative when the
 * processor reaches it (earlier work completing that signal faulted), or
 * whose completion signal was cancelled (hrx_fabric_signal_cancel), is not
 * run: it completes as faulted at once, touching no memory. So once a
 * producer sees its signal faulted, none of its later packets on that
 * signal will run, and a cancelled producer's work ends promptly.
 *
 * Stopped queues. A GPU queue stops on a fault: the packet at fault and
 * every packet published after it complete as faulted without running
 * (their fault reports repeat the first), except dependency-free barrier
 * packets (event markers), which complete as if they had run, so waiters
 * on other queues never hang on them; whoever waits on such a marker
 * learns of the fault from the work it follows. hrx_fabric_queue_restart
 * starts a stopped queue again. A host queue never stops: a fault fails
 * only the packets completing that signal (see Skipped packets).
 *
 * Threads. The packet processor owns the ring's read side, the executor
 * scratch and the dispatch in progress; the device's pool workers run that
 * dispatch's workgroups; producers own the slots they reserved until they
 * publish them. The fault list is shared under its own lock.
 */
#ifndef HRX_FABRIC_QUEUE_H_
#define HRX_FABRIC_QUEUE_H_

#include <stdint.h>

#include "hrx/core.h"
#include "hrx/fabric/aql.h"
#include "hrx/fabric/device.h"
#include "hrx/fabric/fault.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Waits for every published packet to finish, stops the processor and
 * frees the queue. A packet that never ends (an endless kernel) keeps it
 * waiting: cancel its completion signal first. */
HRX_API void hrx_fabric_queue_destroy(hrx_fabric_queue_t* queue);

HRX_API uint32_t hrx_fabric_queue_size(const hrx_fabric_queue_t* queue);
/* Private memory per work-item a dispatch on |queue| may use: its
 * maximum_private_bytes on a GPU (0 without scratch),
 * HRX_FABRIC_PRIVATE_UNLIMITED on the host device. A dispatch needing
 * more faults on a GPU queue; check before publishing. */
HRX_API uint64_t hrx_fabric_queue_private_bytes(
    const hrx_fabric_queue_t* queue);
HRX_API uint64_t hrx_fabric_queue_read_index(const hrx_fabric_queue_t* queue);
HRX_API uint64_t hrx_fabric_queue_write_index(
    const hrx_fabric_queue_t* queue);

/* Reserves |count| consecutive packet slots and returns the first index.
 * BUSY (a status without message, which allocates nothing: producers
 * retry) when fewer than |count| slots are free. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_queue_reserve(
    hrx_fabric_queue_t* queue, uint32_t count, uint64_t* out_index);

/* The slot for a reserved |index|; its header reads INVALID until
 * published. */
HRX_API hrx_aql_packet_t* hrx_fabric_queue_slot(hrx_fabric_queue_t* queue,
                                                uint64_t index);

/* Publishes a filled slot: stores header and setup with release semantics
 * and rings the doorbell. */
HRX_API void hrx_fabric_queue_publish(hrx_fabric_queue_t* queue,
                                      uint64_t index, uint16_t header,
                                      uint16_t setup);

/* As publish, without ringing the doorbell: a processor that is awake
 * sees the packet, a sleeping one only after hrx_fabric_queue_ring. For
 * publishing many packets at the cost of one wake-up. */
HRX_API void hrx_fabric_queue_publish_quiet(hrx_fabric_queue_t* queue,
                                            uint64_t index, uint16_t header,
                                            uint16_t setup);
/* Rings the doorbell once for everything published quietly. */
HRX_API void hrx_fabric_queue_ring(hrx_fabric_queue_t* queue);

/* Starts a queue that stopped on a fault again, over the same ring: the
 * packets published before this call all completed as faulted (none ever
 * runs later); packets published from here on run. A slot reserved
 * before the restart and published after it completes as faulted too, so
 * producers restart only once their work on the queue has drained. OK at
 * once when the queue runs (always on the host device, whose queue
 * processor never stops). When the device cannot start the queue again
 * it stays stopped and the status says why. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_queue_restart(
    hrx_fabric_queue_t* queue);

/* Takes the oldest fault report of a dispatch that failed on this queue;
 * NOT_FOUND when there is none. Later dispatches keep running. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_queue_take_fault(
    hrx_fabric_queue_t* queue, hrx_fabric_fault_t* out_fault);

/* Takes the oldest fault of a packet whose completion signal was |signal|
 * (several producers may share a queue); NOT_FOUND when there is none. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_queue_take_fault_for(
    hrx_fabric_queue_t* queue, uint64_t signal, hrx_fabric_fault_t* out_fault);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_QUEUE_H_ */
