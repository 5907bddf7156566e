/* PM4 compute on the kfd provider: kernel dispatches, copies and fills
 * written as PM4 packets into a PM4 user queue (kfd_user_queue.h), so the
 * command processor runs them without AQL. Private to the fabric.
 *
 * A dispatch is described by an AQL kernel-dispatch packet body (kernel
 * object, kernarg segment in host memory, grid and workgroup sizes, group
 * segment), the form every producer already builds. It becomes:
 * - EVENT_WRITE CS_PARTIAL_FLUSH: earlier dispatches end first, as an AQL
 *   packet's barrier bit orders them;
 * - ACQUIRE_MEM invalidating the shader caches (K$, I$, V$, GL1, GL2), the
 *   system-scope acquire of an AQL packet;
 * - SET_SH_REG of COMPUTE_START_* (0), COMPUTE_NUM_THREAD_* (the
 *   workgroup, with the last group's size when the grid is not a
 *   multiple of it), COMPUTE_PGM_LO/HI (the code entry >> 8),
 *   COMPUTE_PGM_RSRC1/2/3 from the kernel descriptor (RSRC2's LDS_SIZE
 *   raised to the packet's group segment), COMPUTE_TMPRING_SIZE and
 *   COMPUTE_RESOURCE_LIMITS (0: no scratch, no limit), and
 *   COMPUTE_USER_DATA_0/1 = the kernarg segment's GPU address;
 * - DISPATCH_DIRECT of workgroup counts (COMPUTE_SHADER_EN, CS_W32_EN for
 *   wave32 kernels), or of thread counts (USE_THREAD_DIMENSIONS) when a
 *   dimension ends in a partial workgroup.
 * The kernarg segment is copied into a slot of the queue's kernarg arena
 * in GPU memory, with the code object v5 hidden arguments filled as the
 * AQL path fills them. The user SGPR layouts supported are the ones the
 * gfx11 executor's AQL path loads: none, or the kernarg pointer alone;
 * a kernel asking for others (dispatch or queue pointer, dispatch id,
 * flat scratch, kernarg preload) or for scratch is UNIMPLEMENTED.
 *
 * Copies and fills are CP DMA (DMA_DATA through L2, CP_SYNC) after a
 * CS_PARTIAL_FLUSH. submit() ends the batch with CS_PARTIAL_FLUSH and an
 * ACQUIRE_MEM writing back L2, then the user queue's RELEASE_MEM fence.
 *
 * Threads. As a user queue: one thread at a time. The caller keeps the
 * device, the kernels' executables and the memory commands name alive
 * until their fence has passed. */
#ifndef HRX_FABRIC_KFD_PM4_COMPUTE_H_
#define HRX_FABRIC_KFD_PM4_COMPUTE_H_

#include "kfd_device.h"
#include "kfd_user_queue.h"

/* The longest dispatch encode_dispatch writes, in dwords. */
#define HRX_KFD_PM4_DISPATCH_MAX_DWORDS 64u

/* Encodes the register writes and DISPATCH_DIRECT (not the flush and
 * acquire before them) of |packet| for kernel |name| whose 64-byte
 * descriptor is |descriptor| (read at its GPU address |object|, which the
 * code entry is relative to), with the kernarg segment at GPU address
 * |kernarg|. An empty grid writes nothing (*out_count 0). */
hrx_status_t hrx_kfd_pm4_encode_dispatch(
    const uint8_t* descriptor, uint64_t object,
    const hrx_aql_dispatch_packet_t* packet, uint64_t kernarg,
    const char* name, uint32_t* dwords, size_t capacity, size_t* out_count);

typedef struct hrx_kfd_pm4_compute_t hrx_kfd_pm4_compute_t;

/* A PM4 queue with a ring of |ring_bytes| (as hrx_kfd_user_queue_create)
 * and a kernarg arena of |kernarg_slots| (>= 1) dispatches. */
hrx_status_t hrx_kfd_pm4_compute_create(hrx_kfd_device_t* device,
                                        uint32_t ring_bytes,
                                        uint32_t kernarg_slots,
                                        hrx_kfd_pm4_compute_t** out_compute);

/* The user queue under it: for waits, fences and its name. */
hrx_kfd_user_queue_t* hrx_kfd_pm4_compute_queue(
    hrx_kfd_pm4_compute_t* compute);

/* Appends a dispatch of |packet| (its kernel loaded on this device).
 * RESOURCE_EXHAUSTED (nothing appended) when the ring or the kernarg
 * arena is full: submit, wait on a fence and retry. */
hrx_status_t hrx_kfd_pm4_compute_dispatch(
    hrx_kfd_pm4_compute_t* compute, const hrx_aql_dispatch_packet_t* packet);

/* Appends a copy of |bytes| (> 0) from |source| to |destination|, each
 * range inside one allocation of the device, not overlapping. */
hrx_status_t hrx_kfd_pm4_compute_copy(hrx_kfd_pm4_compute_t* compute,
                                      uint64_t destination, uint64_t source,
                                      uint64_t bytes);

/* Appends a fill of |bytes| (a nonzero multiple of 4) at |destination|
 * (4-byte aligned) with the dword |pattern|. */
hrx_status_t hrx_kfd_pm4_compute_fill(hrx_kfd_pm4_compute_t* compute,
                                      uint64_t destination, uint32_t pattern,
                                      uint64_t bytes);

/* Ends the batch (caches written back) with a fence and publishes it. */
hrx_status_t hrx_kfd_pm4_compute_submit(hrx_kfd_pm4_compute_t* compute,
                                        uint64_t* out_fence);

/* BUSY (nothing freed) while submitted work runs; else frees it all. */
hrx_status_t hrx_kfd_pm4_compute_destroy(hrx_kfd_pm4_compute_t* compute);

/* Frees it all whatever runs: DESTROY_QUEUE preempts the engine first
 * (hrx_kfd_user_queue_teardown). */
void hrx_kfd_pm4_compute_teardown(hrx_kfd_pm4_compute_t* compute);

#endif /* HRX_FABRIC_KFD_PM4_COMPUTE_H_ */
