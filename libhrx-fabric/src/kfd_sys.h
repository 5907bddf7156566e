/* The one seam between the kfd provider and the kernel: every open, read,
 * ioctl and mmap the provider makes goes through an hrx_kfd_sys_t, so tests
 * (and the KFD model) can stand in for /dev/kfd, the render node and sysfs,
 * and inject a failure into any single call.
 *
 * Every entry returns 0 (or a count / fd) on success and -errno on failure,
 * never touching the thread's errno, so a fake needs no global state.
 */
#ifndef HRX_FABRIC_KFD_SYS_H_
#define HRX_FABRIC_KFD_SYS_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hrx/core/status.h"
#include "hrx/core/sys.h"

typedef struct hrx_kfd_sys_t {
  void* context; /* passed first to every entry */
  /* openat(2); returns the fd. */
  int (*openat)(void* context, int dir_fd, const char* path, int flags);
  int (*close)(void* context, int fd);
  /* read(2); returns the byte count. */
  ssize_t (*read)(void* context, int fd, void* buffer, size_t size);
  int (*ioctl)(void* context, int fd, unsigned long request, void* args);
  /* mmap(2); the mapping goes to |*out_address|. */
  int (*mmap)(void* context, void* address, size_t length, int protection,
              int flags, int fd, off_t offset, void** out_address);
  int (*munmap)(void* context, void* address, size_t length);
  /* Optional (NULL for the real driver, which says no more than the
   * queue's error code): a model's account of why queue |queue_id|
   * stopped, as text, and the faulting address if any. Returns 0, or
   * -ENOENT when the queue did not stop. */
  int (*describe_queue_fault)(void* context, uint32_t queue_id, char* text,
                              size_t capacity, uint64_t* out_address);
} hrx_kfd_sys_t;

/* What a packet processor stores in a stopped queue's
 * amd_queue_t.queue_inactive_signal: HSA status codes, as ROCr reads
 * them. */
#define HRX_KFD_QUEUE_ERROR_MEMORY 0x29      /* memory aperture violation */
#define HRX_KFD_QUEUE_ERROR_ILLEGAL 0x2A     /* illegal instruction */
#define HRX_KFD_QUEUE_ERROR_PACKET 0x1009    /* invalid packet format */
#define HRX_KFD_QUEUE_ERROR_EXCEPTION 0x1016 /* any other wave exception */

/* The table that makes the real system calls (core's, hrx/core/sys.h). */
hrx_kfd_sys_t hrx_kfd_sys_native(void);
/* |sys| without the model's hook, as core's table, for the helpers core
 * shares with every kernel-driver provider. */
hrx_sys_t hrx_kfd_sys_view(const hrx_kfd_sys_t* sys);

/* Issues ioctl |request| (named |name| in messages, e.g.
 * "AMDKFD_IOC_ACQUIRE_VM") on |fd| with |args|. EINTR is retried; EAGAIN is
 * retried a bounded number of times (the driver's "busy, try again") and
 * then reported as BUSY. Any other failure becomes a status from the errno
 * whose message starts with |name|. */
hrx_status_t hrx_kfd_ioctl(const hrx_kfd_sys_t* sys, int fd,
                           unsigned long request, const char* name,
                           void* args);

/* GET_VERSION into |*out_major| and |*out_minor|. */
hrx_status_t hrx_kfd_get_version(const hrx_kfd_sys_t* sys, int kfd_fd,
                                 uint32_t* out_major, uint32_t* out_minor);

/* ACQUIRE_VM: binds the process's GPU VM on |gpu_id| to |drm_fd|, the
 * GPU's open render node. */
hrx_status_t hrx_kfd_acquire_vm(const hrx_kfd_sys_t* sys, int kfd_fd,
                                int drm_fd, uint32_t gpu_id);

#endif /* HRX_FABRIC_KFD_SYS_H_ */
