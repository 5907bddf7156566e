/* Writing a whole buffer to a file descriptor. */
#include <errno.h>
#include <unistd.h>

#include "hrx/core/file.h"

hrx_status_t hrx_fd_write_all(int fd, const void* data, size_t length,
                              const char* name) {
  const char* cursor = data;
  while (length > 0) {
    ssize_t n = write(fd, cursor, length);
    if (n < 0) {
      if (errno == EINTR) continue;
      return hrx_status_from_errno(errno, "cannot write '%s'", name);
    }
    cursor += n;
    length -= (size_t)n;
  }
  return HRX_OK;
}
