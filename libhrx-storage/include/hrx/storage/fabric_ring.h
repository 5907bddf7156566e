/* The fabric storage ring: an io_uring whose queues live in device
 * buffers, so that a kernel running on the device authors read requests
 * and consumes their completions with no host thread in between.
 *
 * What the ring is made of:
 * - Caller-owned queue pages. The submission entries and the ring
 *   indices/completions are two device buffers allocated on the caller's
 *   stream and handed to io_uring_setup (IORING_SETUP_NO_MMAP, with
 *   IORING_SETUP_NO_SQARRAY so entry i of the SQ is slot i & mask). The
 *   kernel pins those pages; nothing is mmapped from the ring fd.
 * - A registered payload. One device buffer is registered as fixed buffer
 *   0: requests read file bytes straight into it (IORING_OP_READ_FIXED).
 * - SQPOLL. A kernel thread polls the SQ tail, so publishing a tail is the
 *   whole submission; no system call is made for a request.
 * - Restrictions. The ring is created disabled, given its files and the
 *   payload, then restricted before it is enabled: the only operation
 *   accepted is READ_FIXED, every entry must carry IOSQE_FIXED_FILE (only
 *   the files registered at creation can be named), and no further
 *   registration is possible. A device that writes a wrong entry gets a
 *   failed completion (-EACCES), never access to another file or memory.
 *
 * Protocol for the device (all fields little-endian, in the views below):
 * write entries at sqes[(tail + i) & mask] (64 bytes each: opcode 4 =
 * READ_FIXED, flags 1 = FIXED_FILE, fd = registered file index, off = file
 * offset, addr = payload_address + payload offset, len, user_data,
 * buf_index 0), then store the new sq_tail with release ordering at
 * system scope. Completions appear at cqes[cq_head & cq_mask] (16 bytes:
 * user_data, res, flags) once cq_tail (loaded with acquire) passes
 * cq_head; the device stores the new cq_head with release when done.
 *
 * The poller sleeps after sqpoll_idle_ms without work and then sets
 * IORING_SQ_NEED_WAKEUP in sq_flags; a device cannot make the system call
 * that wakes it, so a host thread calls hrx_storage_fabric_ring_wake while
 * device work is outstanding (or the idle time is made long).
 *
 * Devices. On the host device every buffer is host memory and system-scope
 * atomics are CPU atomics, so the protocol runs as is. The kfd device needs
 * the same three buffers in system memory that is both GPU-mapped and
 * pinnable by io_uring (userptr or host-visible GTT allocations, mapped
 * uncached or snooped so the poller and the GPU see each other's stores
 * without flushes), system-scope release/acquire on the tail and head
 * words, and a host wake-up path (a doorbell or signal the host watches)
 * for a sleeping poller. Those are not provided here: creation answers
 * UNIMPLEMENTED for a buffer without a host mapping.
 *
 * Kernel requirements: Linux 6.6 or later (NO_MMAP arrived in 6.5,
 * NO_SQARRAY in 6.6; kernels before 6.13 also need each queue region to
 * fit one page or one huge page). Older kernels fail creation with
 * UNIMPLEMENTED; a kernel refusing SQPOLL fails it with UNAVAILABLE.
 *
 * Threads: the ring object is immutable after creation; wake may be called
 * from any thread. Destroy only after device work using the ring is done.
 */
#ifndef HRX_STORAGE_FABRIC_RING_H_
#define HRX_STORAGE_FABRIC_RING_H_

#include <stdint.h>

#include "hrx/core.h"
#include "hrx/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_storage_fabric_ring_s hrx_storage_fabric_ring_t;

/* Limits on hrx_storage_fabric_ring_options_t. */
#define HRX_STORAGE_FABRIC_RING_MAX_ENTRIES 256u
#define HRX_STORAGE_FABRIC_RING_MAX_FILES 64u

typedef struct hrx_storage_fabric_ring_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint32_t entries;        /* SQ entries, a power of two, 1..256 */
  uint32_t sqpoll_idle_ms; /* poller idle time before it sleeps */
} hrx_storage_fabric_ring_options_t;

/* Where the device finds the ring. Views are into the ring's buffers;
 * counts are powers of two (mask = count - 1). */
typedef struct hrx_storage_fabric_ring_layout_t {
  hrx_gpu_view_t sqes;     /* sq_entries x 64 bytes */
  hrx_gpu_view_t sq_tail;  /* u32, advanced by the device */
  hrx_gpu_view_t sq_head;  /* u32, advanced by the poller */
  hrx_gpu_view_t sq_flags; /* u32, IORING_SQ_NEED_WAKEUP = 1 */
  hrx_gpu_view_t cqes;     /* cq_entries x 16 bytes */
  hrx_gpu_view_t cq_tail;  /* u32, advanced by the kernel */
  hrx_gpu_view_t cq_head;  /* u32, advanced by the device */
  uint32_t sq_entries;
  uint32_t cq_entries;
  /* The address a request names for byte 0 of the payload. */
  uint64_t payload_address;
} hrx_storage_fabric_ring_layout_t;

/* Creates a ring on |stream|'s device reading from the |file_count| open
 * descriptors |fds| (registered as files 0..file_count-1; the ring keeps
 * its own references) into |payload|. INVALID_ARGUMENT for bad options or
 * counts, UNIMPLEMENTED for a payload without a host mapping or a kernel
 * without caller-owned queues, UNAVAILABLE when SQPOLL is refused. */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_fabric_ring_create(
    hrx_gpu_stream_t* stream, const int* fds, uint32_t file_count,
    hrx_gpu_buffer_t* payload,
    const hrx_storage_fabric_ring_options_t* options,
    hrx_allocator_t allocator, hrx_storage_fabric_ring_t** out_ring);

/* Closes the ring and releases its buffers. NULL is accepted. */
HRX_API void hrx_storage_fabric_ring_destroy(hrx_storage_fabric_ring_t* ring);

HRX_API const hrx_storage_fabric_ring_layout_t* hrx_storage_fabric_ring_layout(
    const hrx_storage_fabric_ring_t* ring);

/* Wakes the poller if it has gone to sleep (no system call otherwise). */
HRX_API HRX_MUST_USE hrx_status_t
hrx_storage_fabric_ring_wake(hrx_storage_fabric_ring_t* ring);

#ifdef __cplusplus
}
#endif

#endif /* HRX_STORAGE_FABRIC_RING_H_ */
