/* PM4 and SDMA user queues of the kfd provider: a ring of dwords in GPU
 * memory that a compute pipe (PM4, CREATE_QUEUE type COMPUTE) or an SDMA
 * engine (type SDMA) drains, a control page holding the read pointer the
 * engine writes, the write pointer and the fence word, and the doorbell.
 * Private to the fabric.
 *
 * Publication (libamdf.md §2). Producers append whole packets; submit()
 * adds a fence packet and publishes: PM4 counts dwords, pads every
 * publication with NOPs to a multiple of 8 dwords, and puts a packet that
 * would straddle the wrap at the ring's start after a NOP; SDMA counts
 * bytes and reads packets across the wrap. The write index grows
 * monotonically; the engine writes back a wrapped read offset, so the
 * consumed frontier is W - ((W - R) & (capacity - 1)), which needs at
 * least one dword always free.
 *
 * Fences. Every submission ends with a fence writing its sequence number
 * (1, 2, ...) to the control page: RELEASE_MEM with 64-bit data on PM4,
 * FENCE (32 bits, widened against the last submitted value) on SDMA. A
 * wait polls the word briefly, then sleeps with a growing backoff until
 * its deadline.
 *
 * Threads. A user queue is not thread-safe: one thread at a time, its
 * owner's. The engine runs on the GPU (or the model's processor thread).
 * The caller keeps the device alive for the queue's lifetime. */
#ifndef HRX_FABRIC_KFD_USER_QUEUE_H_
#define HRX_FABRIC_KFD_USER_QUEUE_H_

#include "kfd_device.h"

typedef enum hrx_kfd_user_family_t {
  HRX_KFD_USER_PM4 = 0,
  HRX_KFD_USER_SDMA = 1,
} hrx_kfd_user_family_t;

typedef struct hrx_kfd_user_queue_t hrx_kfd_user_queue_t;

/* Creates a queue of |family| with a ring of |ring_bytes| (a power of two,
 * 4 KiB..16 MiB). RESOURCE_EXHAUSTED when the device has no engine queue
 * of that family free. */
hrx_status_t hrx_kfd_user_queue_create(hrx_kfd_device_t* device,
                                       hrx_kfd_user_family_t family,
                                       uint32_t ring_bytes,
                                       hrx_kfd_user_queue_t** out_queue);

/* "SDMA queue 3": how statuses name the queue. */
const char* hrx_kfd_user_queue_name(const hrx_kfd_user_queue_t* queue);

/* Appends |count| dwords holding whole packets; the engine sees them at
 * the next submit. RESOURCE_EXHAUSTED (nothing appended) when the ring
 * lacks room: wait on a fence first. */
hrx_status_t hrx_kfd_user_queue_append(hrx_kfd_user_queue_t* queue,
                                       const uint32_t* dwords,
                                       uint32_t count);

/* The dwords of packets append() takes now (PM4 wrap padding aside). */
uint64_t hrx_kfd_user_queue_room(const hrx_kfd_user_queue_t* queue);

/* Appends the fence and publishes everything appended; |*out_fence| is
 * the value the fence writes. */
hrx_status_t hrx_kfd_user_queue_submit(hrx_kfd_user_queue_t* queue,
                                       uint64_t* out_fence);

/* The last fence submit() handed out (0: none yet). */
uint64_t hrx_kfd_user_queue_submitted(const hrx_kfd_user_queue_t* queue);

/* The highest fence the engine has written. */
uint64_t hrx_kfd_user_queue_completed(const hrx_kfd_user_queue_t* queue);

/* OK while the engine runs the queue; ABORTED with the engine's account
 * once it stopped on a fault (it then never runs another packet). */
hrx_status_t hrx_kfd_user_queue_check(const hrx_kfd_user_queue_t* queue);

/* Waits until fence |fence| completed, for at most |timeout_ns|
 * (HRX_TIMEOUT_INFINITE: forever): DEADLINE_EXCEEDED naming the queue and
 * the fence; ABORTED at once when the queue stopped on a fault;
 * INVALID_ARGUMENT for a fence never submitted. */
hrx_status_t hrx_kfd_user_queue_wait(hrx_kfd_user_queue_t* queue,
                                     uint64_t fence, uint64_t timeout_ns);

/* Destroys an idle queue: BUSY (the queue stays) while submitted work has
 * not completed on a running engine. */
hrx_status_t hrx_kfd_user_queue_destroy(hrx_kfd_user_queue_t* queue);

/* Destroys the queue whatever it holds: DESTROY_QUEUE preempts the
 * engine first, so it never touches the ring or the memory its packets
 * named again; work in flight may be partly done. */
void hrx_kfd_user_queue_teardown(hrx_kfd_user_queue_t* queue);

#endif /* HRX_FABRIC_KFD_USER_QUEUE_H_ */
