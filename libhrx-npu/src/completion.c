#include "completion.h"

#include <errno.h>
#include <string.h>

#include "hrx/core/clock.h"
#include "xdna_abi.h"

hrx_status_t hrx_npu_syncobj_create(const hrx_npu_sys_t* sys, int fd,
                                    uint32_t* out_handle) {
  hrx_drm_syncobj_create_t args = {0};
  HRX_RETURN_IF_ERROR(hrx_sys_ioctl(sys, fd, HRX_DRM_IOCTL_SYNCOBJ_CREATE,
                                    "DRM_IOCTL_SYNCOBJ_CREATE", &args));
  *out_handle = args.handle;
  return HRX_OK;
}

void hrx_npu_syncobj_destroy(const hrx_npu_sys_t* sys, int fd,
                             uint32_t handle) {
  hrx_drm_syncobj_destroy_t args = {.handle = handle};
  /* A syncobj the driver will not destroy goes with the node's close. */
  hrx_status_ignore(hrx_sys_ioctl(sys, fd, HRX_DRM_IOCTL_SYNCOBJ_DESTROY,
                                  "DRM_IOCTL_SYNCOBJ_DESTROY", &args));
}

hrx_status_t hrx_npu_syncobj_capture(const hrx_npu_sys_t* sys, int fd,
                                     uint32_t src, uint64_t src_point,
                                     uint32_t dst) {
  hrx_drm_syncobj_transfer_t args = {
      .src_handle = src,
      .dst_handle = dst,
      .src_point = src_point,
      .dst_point = 0,
      /* EXEC_CMD has returned, so the point exists; this only guards a
       * driver that attaches the fence a little later. */
      .flags = HRX_DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
  };
  return hrx_sys_ioctl(sys, fd, HRX_DRM_IOCTL_SYNCOBJ_TRANSFER,
                       "DRM_IOCTL_SYNCOBJ_TRANSFER", &args);
}

hrx_status_t hrx_npu_syncobj_eventfd(const hrx_npu_sys_t* sys, int fd,
                                     uint32_t handle, uint64_t point,
                                     int eventfd) {
  hrx_drm_syncobj_eventfd_t args = {
      .handle = handle, .point = point, .fd = eventfd};
  int rc;
  do {
    rc = sys->ioctl(sys->context, fd, HRX_DRM_IOCTL_SYNCOBJ_EVENTFD, &args);
  } while (rc == -EINTR);
  /* DRM answers an ioctl number it does not know with EINVAL. */
  if (rc == -EINVAL || rc == -ENOTTY) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "DRM_IOCTL_SYNCOBJ_EVENTFD refused (errno %d): "
                           "it needs Linux 6.6 or later",
                           -rc);
  }
  if (rc < 0) return hrx_status_from_errno(-rc, "DRM_IOCTL_SYNCOBJ_EVENTFD");
  return HRX_OK;
}

hrx_status_t hrx_npu_syncobj_wait(const hrx_npu_sys_t* sys, int fd,
                                  uint32_t handle, uint64_t point,
                                  uint64_t deadline_ns, bool* out_signaled) {
  *out_signaled = false;
  for (;;) {
    hrx_drm_syncobj_timeline_wait_t args = {
        .handles = (uint64_t)(uintptr_t)&handle,
        .points = (uint64_t)(uintptr_t)&point,
        .timeout_nsec = deadline_ns > INT64_MAX ? INT64_MAX
                                                : (int64_t)deadline_ns,
        .count_handles = 1,
        .flags = HRX_DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
                 HRX_DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
    };
    int rc = sys->ioctl(sys->context, fd, HRX_DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
                        &args);
    if (rc == 0) {
      *out_signaled = true;
      return HRX_OK;
    }
    if (rc == -EINTR) continue;
    if (rc == -ETIME) {
      if (deadline_ns != 0 && hrx_clock_monotonic_ns() < deadline_ns) {
        continue;
      }
      return HRX_OK;
    }
    return hrx_status_from_errno(-rc, "DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT");
  }
}
