/* The system calls HRX's kernel-driver providers make (the kfd GPU
 * provider, the amdxdna NPU), as a table of function pointers: the native
 * table makes the real calls; tests and models install their own to stand
 * in for the kernel (a scripted driver, fault injection, the KFD model).
 *
 * Every entry returns a negative errno on failure, as the kernel does,
 * and never sets errno. Thread-safe as the calls themselves are. */
#ifndef HRX_CORE_SYS_H_
#define HRX_CORE_SYS_H_

#include <stddef.h>
#include <sys/types.h>

#include "hrx/core/api.h"
#include "hrx/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_sys_t {
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
} hrx_sys_t;

/* The table that makes the real system calls. */
HRX_API hrx_sys_t hrx_sys_native(void);

/* Issues ioctl |request| (named |name| in messages, e.g.
 * "AMDKFD_IOC_CREATE_QUEUE") on |fd| through |sys|. EINTR is retried;
 * EAGAIN 64 times, then BUSY (a driver stuck answering it must not hang
 * the process, as an unbounded retry would). Other failures become a
 * status from the errno whose message starts with |name|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_sys_ioctl(const hrx_sys_t* sys, int fd,
                                                unsigned long request,
                                                const char* name, void* args);

/* Reads all of |path| under |dir_fd| into |buffer| (NUL-terminated) and
 * its length into |*out_length|: sysfs attributes and other small files.
 * A file that does not fit in |capacity| - 1 bytes, or holds a NUL byte,
 * is DATA_LOSS. The raw -errno of a failed open goes to |*out_open_error|
 * (0 otherwise), so callers can tell an absent file apart. */
HRX_API HRX_MUST_USE hrx_status_t hrx_sys_read_text(
    const hrx_sys_t* sys, int dir_fd, const char* path, char* buffer,
    size_t capacity, int* out_open_error, size_t* out_length);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_SYS_H_ */
