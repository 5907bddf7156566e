/* The one seam between a storage session and the kernel: every io_uring
 * call that enters the kernel, and every other system call the session
 * makes, goes through an hrx_storage_sys_t, so tests can fail any single
 * call (see tests/storage/storage_fault_sys.c).
 *
 * Entries return 0 (or a count / fd) on success and -errno on failure,
 * never touching the thread's errno. liburing's inline helpers that only
 * touch shared ring memory (get_sqe, prep_*, cqe_seen) are not entries:
 * they cannot fail.
 */
#ifndef HRX_STORAGE_RING_SYS_H_
#define HRX_STORAGE_RING_SYS_H_

#include <liburing.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "hrx/storage/fabric_ring.h"
#include "hrx/storage/session.h"

typedef struct hrx_storage_sys_t {
  void* context; /* passed first to every entry */
  int (*queue_init)(void* context, unsigned entries, struct io_uring* ring,
                    struct io_uring_params* params);
  void (*queue_exit)(void* context, struct io_uring* ring);
  int (*register_files_sparse)(void* context, struct io_uring* ring,
                               unsigned count);
  int (*register_files_update)(void* context, struct io_uring* ring,
                               unsigned offset, const int* fds,
                               unsigned count);
  int (*register_buffers)(void* context, struct io_uring* ring,
                          const struct iovec* iovecs, unsigned count);
  int (*register_eventfd)(void* context, struct io_uring* ring, int fd);
  /* io_uring_submit; returns the number of entries submitted. */
  int (*submit)(void* context, struct io_uring* ring);
  /* io_uring_peek_cqe; -EAGAIN when no completion is ready. */
  int (*peek_cqe)(void* context, struct io_uring* ring,
                  struct io_uring_cqe** out_cqe);
  int (*eventfd)(void* context, unsigned initial, int flags);
  ssize_t (*read)(void* context, int fd, void* buffer, size_t size);
  ssize_t (*write)(void* context, int fd, const void* buffer, size_t size);
  int (*open)(void* context, const char* path, int flags);
  int (*close)(void* context, int fd);
  /* fcntl(fd, F_DUPFD_CLOEXEC, 0); returns the new descriptor. */
  int (*duplicate)(void* context, int fd);
  /* fcntl(fd, F_GETFL); returns the flags. */
  int (*get_flags)(void* context, int fd);
  int (*statx)(void* context, int fd, unsigned mask, struct statx* out);
  /* Raw io_uring system calls for the fabric ring, whose caller-owned
   * queues liburing 2.3 cannot set up. |params| is struct io_uring_params
   * as the fabric ring declares it. */
  int (*uring_setup)(void* context, unsigned entries, void* params);
  int (*uring_register)(void* context, int fd, unsigned opcode,
                        const void* argument, unsigned count);
  int (*uring_enter)(void* context, int fd, unsigned flags);
  /* Anonymous private read-write mapping of |length| bytes. */
  int (*map_pages)(void* context, size_t length, void** out_address);
  int (*unmap_pages)(void* context, void* address, size_t length);
} hrx_storage_sys_t;

/* The table that makes the real calls. */
hrx_storage_sys_t hrx_storage_sys_native(void);

/* hrx_storage_session_create with |sys| (copied) in place of the native
 * table. */
hrx_status_t hrx_storage_session_create_with_sys(
    const hrx_storage_options_t* options, const hrx_storage_sys_t* sys,
    hrx_allocator_t allocator, hrx_storage_session_t** out_session);

/* hrx_storage_fabric_ring_create with |sys| (copied) in place of the
 * native table. */
hrx_status_t hrx_storage_fabric_ring_create_with_sys(
    hrx_gpu_stream_t* stream, const int* fds, uint32_t file_count,
    hrx_gpu_buffer_t* payload,
    const hrx_storage_fabric_ring_options_t* options,
    const hrx_storage_sys_t* sys, hrx_allocator_t allocator,
    hrx_storage_fabric_ring_t** out_ring);

#endif /* HRX_STORAGE_RING_SYS_H_ */
