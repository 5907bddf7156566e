/* The one seam between libhrx-npu and the kernel: every open, read, ioctl,
 * mmap, munmap and close the library makes goes through an hrx_npu_sys_t,
 * so tests can stand in for sysfs, /dev/accel and the amdxdna driver and
 * inject a failure into any single call.
 *
 * Paths are always relative to a root directory fd ("/" for the real
 * system, a fixture tree in tests): sysfs is read as
 * "sys/class/accel/accelN/...", the node opened as "dev/accel/accelN".
 *
 * Every entry returns 0 (or a count / fd) on success and -errno on
 * failure, never touching the thread's errno, so a fake needs no global
 * state.
 */
#ifndef HRX_NPU_NPU_SYS_H_
#define HRX_NPU_NPU_SYS_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hrx/core/status.h"

typedef struct hrx_npu_sys_t {
  void* context; /* passed first to every entry */
  int (*openat)(void* context, int dir_fd, const char* path, int flags);
  int (*close)(void* context, int fd);
  ssize_t (*read)(void* context, int fd, void* buffer, size_t size);
  int (*ioctl)(void* context, int fd, unsigned long request, void* args);
  /* The mapping goes to |*out_address|. */
  int (*mmap)(void* context, size_t length, int protection, int flags,
              int fd, off_t offset, void** out_address);
  int (*munmap)(void* context, void* address, size_t length);
} hrx_npu_sys_t;

/* The table that makes the real system calls. */
hrx_npu_sys_t hrx_npu_sys_native(void);

/* Issues ioctl |request| (named |name| in messages, e.g. "CREATE_BO") on
 * |fd|. EINTR is retried; EAGAIN a bounded number of times, then BUSY.
 * Other failures become a status from the errno, message starting with
 * |name|. */
hrx_status_t hrx_npu_ioctl(const hrx_npu_sys_t* sys, int fd,
                           unsigned long request, const char* name,
                           void* args);

/* Reads the small text file |path| under |root_fd| into |buffer| (NUL-
 * terminated, trailing newline removed); at most |capacity| - 1 bytes. */
hrx_status_t hrx_npu_read_text(const hrx_npu_sys_t* sys, int root_fd,
                               const char* path, char* buffer,
                               size_t capacity);

#endif /* HRX_NPU_NPU_SYS_H_ */
