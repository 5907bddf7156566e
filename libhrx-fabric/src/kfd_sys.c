#include "kfd_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfd_ioctl.h"

/* libhsakmt retries EAGAIN without bound; a driver stuck returning it would
 * then hang the process, so HRX gives up after this many tries. */
#define HRX_KFD_EAGAIN_RETRY_LIMIT 64

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

hrx_kfd_sys_t hrx_kfd_sys_native(void) {
  return (hrx_kfd_sys_t){
      .context = NULL,
      .openat = native_openat,
      .close = native_close,
      .read = native_read,
      .ioctl = native_ioctl,
      .mmap = native_mmap,
      .munmap = native_munmap,
  };
}

hrx_status_t hrx_kfd_ioctl(const hrx_kfd_sys_t* sys, int fd,
                           unsigned long request, const char* name,
                           void* args) {
  int eagain_count = 0;
  for (;;) {
    int rc = sys->ioctl(sys->context, fd, request, args);
    if (rc == 0) return HRX_OK;
    if (rc == -EINTR) continue;
    if (rc == -EAGAIN && ++eagain_count < HRX_KFD_EAGAIN_RETRY_LIMIT) {
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

hrx_status_t hrx_kfd_get_version(const hrx_kfd_sys_t* sys, int kfd_fd,
                                 uint32_t* out_major, uint32_t* out_minor) {
  hrx_kfd_get_version_args_t args;
  memset(&args, 0, sizeof(args));
  HRX_RETURN_IF_ERROR(hrx_kfd_ioctl(sys, kfd_fd, HRX_KFD_IOC_GET_VERSION,
                                    "AMDKFD_IOC_GET_VERSION", &args));
  *out_major = args.major_version;
  *out_minor = args.minor_version;
  return HRX_OK;
}

hrx_status_t hrx_kfd_acquire_vm(const hrx_kfd_sys_t* sys, int kfd_fd,
                                int drm_fd, uint32_t gpu_id) {
  hrx_kfd_acquire_vm_args_t args;
  memset(&args, 0, sizeof(args));
  args.drm_fd = (uint32_t)drm_fd;
  args.gpu_id = gpu_id;
  return hrx_kfd_ioctl(sys, kfd_fd, HRX_KFD_IOC_ACQUIRE_VM,
                       "AMDKFD_IOC_ACQUIRE_VM", &args);
}
