/* The native system-call table and the ioctl retry rule shared by the
 * kernel-driver providers. */
#include "hrx/core/sys.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define HRX_SYS_EAGAIN_RETRY_LIMIT 64

static int native_openat(void* context, int dir_fd, const char* path,
                         int flags) {
  (void)context;
  int fd = openat(dir_fd, path, flags);
  return fd < 0 ? -errno : fd;
}

static int native_close(void* context, int fd) {
  (void)context;
  return close(fd) < 0 ? -errno : 0;
}

static ssize_t native_read(void* context, int fd, void* buffer, size_t size) {
  (void)context;
  ssize_t n = read(fd, buffer, size);
  return n < 0 ? -errno : n;
}

static int native_ioctl(void* context, int fd, unsigned long request,
                        void* args) {
  (void)context;
  return ioctl(fd, request, args) < 0 ? -errno : 0;
}

static int native_mmap(void* context, void* address, size_t length,
                       int protection, int flags, int fd, off_t offset,
                       void** out_address) {
  (void)context;
  void* p = mmap(address, length, protection, flags, fd, offset);
  if (p == MAP_FAILED) return -errno;
  *out_address = p;
  return 0;
}

static int native_munmap(void* context, void* address, size_t length) {
  (void)context;
  return munmap(address, length) < 0 ? -errno : 0;
}

hrx_sys_t hrx_sys_native(void) {
  return (hrx_sys_t){
      .context = NULL,
      .openat = native_openat,
      .close = native_close,
      .read = native_read,
      .ioctl = native_ioctl,
      .mmap = native_mmap,
      .munmap = native_munmap,
  };
}

hrx_status_t hrx_sys_ioctl(const hrx_sys_t* sys, int fd,
                           unsigned long request, const char* name,
                           void* args) {
  int eagain_count = 0;
  for (;;) {
    int rc = sys->ioctl(sys->context, fd, request, args);
    if (rc == 0) return HRX_OK;
    if (rc == -EINTR) continue;
    if (rc == -EAGAIN && ++eagain_count < HRX_SYS_EAGAIN_RETRY_LIMIT) {
      continue;
    }
    if (rc == -EAGAIN) {
      return hrx_make_status(HRX_STATUS_BUSY,
                             "%s: the driver answered EAGAIN %d times", name,
                             eagain_count);
    }
    return hrx_status_from_errno(-rc, "%s", name);
  }
}

hrx_status_t hrx_sys_read_text(const hrx_sys_t* sys, int dir_fd,
                               const char* path, char* buffer,
                               size_t capacity, int* out_open_error,
                               size_t* out_length) {
  *out_open_error = 0;
  int fd = sys->openat(sys->context, dir_fd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *out_open_error = fd;
    return hrx_status_from_errno(-fd, "open %s", path);
  }
  size_t length = 0;
  hrx_status_t status = HRX_OK;
  /* Reads may fill the byte kept for the NUL: only a file that does fill
   * it is too large, one of exactly capacity - 1 bytes is not. */
  for (;;) {
    if (length == capacity) {
      status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                               "%s: larger than %zu bytes", path,
                               capacity - 1);
      break;
    }
    ssize_t n = sys->read(sys->context, fd, buffer + length,
                          capacity - length);
    if (n == -EINTR) continue;
    if (n < 0) {
      status = hrx_status_from_errno((int)-n, "read %s", path);
      break;
    }
    if (n == 0) break;
    length += (size_t)n;
  }
  /* A failed close of a file only read loses nothing. */
  (void)sys->close(sys->context, fd);
  if (status != HRX_OK) return status;
  buffer[length] = '\0';
  if (memchr(buffer, '\0', length) != NULL) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS, "%s: contains a NUL byte",
                           path);
  }
  *out_length = length;
  return HRX_OK;
}
