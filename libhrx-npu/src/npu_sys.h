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
#include "hrx/core/sys.h"

/* Core's table (hrx/core/sys.h), shared with the GPU's kfd provider. */
typedef hrx_sys_t hrx_npu_sys_t;

/* Reads the small text file |path| under |root_fd| into |buffer| (NUL-
 * terminated, trailing newlines removed); a file that does not fit in
 * |capacity| - 1 bytes is DATA_LOSS. */
hrx_status_t hrx_npu_read_text(const hrx_npu_sys_t* sys, int root_fd,
                               const char* path, char* buffer,
                               size_t capacity);

#endif /* HRX_NPU_NPU_SYS_H_ */
