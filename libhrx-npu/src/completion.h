/* DRM syncobjs: the completion timelines of hardware contexts, and the
 * spare binary syncobj a context's first fence is captured into. */
#ifndef HRX_NPU_COMPLETION_H_
#define HRX_NPU_COMPLETION_H_

#include <stdbool.h>
#include <stdint.h>

#include "npu_sys.h"

hrx_status_t hrx_npu_syncobj_create(const hrx_npu_sys_t* sys, int fd,
                                    uint32_t* out_handle);
void hrx_npu_syncobj_destroy(const hrx_npu_sys_t* sys, int fd,
                             uint32_t handle);

/* Moves the fence at |src_point| of timeline |src| into binary |dst|. */
hrx_status_t hrx_npu_syncobj_capture(const hrx_npu_sys_t* sys, int fd,
                                     uint32_t src, uint64_t src_point,
                                     uint32_t dst);

/* Has the kernel signal |eventfd| when |point| of |handle| signals. */
hrx_status_t hrx_npu_syncobj_eventfd(const hrx_npu_sys_t* sys, int fd,
                                     uint32_t handle, uint64_t point,
                                     int eventfd);

/* Waits until |point| of |handle| (0 for a binary syncobj) is signalled
 * or the absolute CLOCK_MONOTONIC |deadline_ns| passes (0 polls once,
 * HRX_DEADLINE_INFINITE never gives up). EINTR is retried, and so is an
 * ETIME that comes before the deadline. |*out_signaled| says which; a
 * status is returned only for a failed wait. */
hrx_status_t hrx_npu_syncobj_wait(const hrx_npu_sys_t* sys, int fd,
                                  uint32_t handle, uint64_t point,
                                  uint64_t deadline_ns, bool* out_signaled);

#endif /* HRX_NPU_COMPLETION_H_ */
