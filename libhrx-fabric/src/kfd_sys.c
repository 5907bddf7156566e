#include "kfd_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfd_ioctl.h"

hrx_sys_t hrx_kfd_sys_view(const hrx_kfd_sys_t* sys) {
  return (hrx_sys_t){
      .context = sys->context,
      .openat = sys->openat,
      .close = sys->close,
      .read = sys->read,
      .ioctl = sys->ioctl,
      .mmap = sys->mmap,
      .munmap = sys->munmap,
  };
}

hrx_kfd_sys_t hrx_kfd_sys_native(void) {
  hrx_sys_t native = hrx_sys_native();
  return (hrx_kfd_sys_t){
      .context = native.context,
      .openat = native.openat,
      .close = native.close,
      .read = native.read,
      .ioctl = native.ioctl,
      .mmap = native.mmap,
      .munmap = native.munmap,
  };
}

hrx_status_t hrx_kfd_ioctl(const hrx_kfd_sys_t* sys, int fd,
                           unsigned long request, const char* name,
                           void* args) {
  hrx_sys_t view = hrx_kfd_sys_view(sys);
  return hrx_sys_ioctl(&view, fd, request, name, args);
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
