#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/core/file.h"

hrx_status_t hrx_file_read_all(hrx_allocator_t allocator, const char* path,
                               size_t max_bytes, void** out_data,
                               size_t* out_length) {
  *out_data = NULL;
  *out_length = 0;
  int fd;
  struct stat info;
  HRX_RETURN_IF_ERROR(hrx_file_open_regular(path, true, &fd, &info));
  hrx_status_t status = HRX_OK;
  if ((uint64_t)info.st_size > max_bytes) {
    status = hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                             "'%s' is %lld bytes, more than the %zu allowed",
                             path, (long long)info.st_size, max_bytes);
  }
  char* data = NULL;
  size_t size = status == HRX_OK ? (size_t)info.st_size : 0;
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_uninitialized(allocator, size + 1,
                                                (void**)&data);
  }
  size_t filled = 0;
  while (status == HRX_OK && filled < size) {
    ssize_t n = read(fd, data + filled, size - filled);
    if (n < 0) {
      if (errno == EINTR) continue;
      status = hrx_status_from_errno(errno, "cannot read '%s'", path);
    } else if (n == 0) {
      status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                               "'%s' shrank while being read (%zu of %zu "
                               "bytes)", path, filled, size);
    } else {
      filled += (size_t)n;
    }
  }
  close(fd);
  if (status != HRX_OK) {
    hrx_allocator_free(allocator, data);
    return status;
  }
  data[size] = '\0';
  *out_data = data;
  *out_length = size;
  return HRX_OK;
}
