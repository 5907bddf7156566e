/* The NPU's use of core's system-call seam: sysfs text as admission reads
 * it. */
#include "npu_sys.h"

hrx_status_t hrx_npu_read_text(const hrx_npu_sys_t* sys, int root_fd,
                               const char* path, char* buffer,
                               size_t capacity) {
  int open_error = 0;
  size_t length = 0;
  HRX_RETURN_IF_ERROR(hrx_sys_read_text(sys, root_fd, path, buffer, capacity,
                                        &open_error, &length));
  while (length > 0 && buffer[length - 1] == '\n') buffer[--length] = '\0';
  return HRX_OK;
}
