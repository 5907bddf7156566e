#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/core/file.h"

static hrx_status_t hrx_fsync_parent(const char* path) {
  char* copy = strdup(path);
  if (!copy) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "no memory to sync the parent of '%s'", path);
  }
  const char* parent = dirname(copy);
  hrx_status_t status = HRX_OK;
  int fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    status = hrx_status_from_errno(errno, "cannot open directory '%s'",
                                   parent);
  } else {
    if (fsync(fd) != 0 && errno != EINVAL) {
      status = hrx_status_from_errno(errno, "cannot sync directory '%s'",
                                     parent);
    }
    close(fd);
  }
  free(copy);
  return status;
}

hrx_status_t hrx_file_write_atomic(const char* path, const void* data,
                                   size_t length, mode_t mode) {
  if (!path || !path[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "file path is empty");
  }
  size_t path_length = strlen(path);
  /* The temporary lives beside the target so rename() stays on one file
   * system; mkstemp's random suffix keeps concurrent writers apart. */
  char* temp = malloc(path_length + sizeof(".tmp.XXXXXX"));
  if (!temp) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "no memory to write '%s'", path);
  }
  memcpy(temp, path, path_length);
  memcpy(temp + path_length, ".tmp.XXXXXX", sizeof(".tmp.XXXXXX"));
  int fd = mkostemp(temp, O_CLOEXEC);
  if (fd < 0) {
    hrx_status_t status =
        hrx_status_from_errno(errno, "cannot create a temporary for '%s'",
                              path);
    free(temp);
    return status;
  }
  hrx_status_t status = HRX_OK;
  if (fchmod(fd, mode) != 0) {
    status = hrx_status_from_errno(errno, "cannot set mode of '%s'", temp);
  }
  if (status == HRX_OK) status = hrx_fd_write_all(fd, data, length, temp);
  if (status == HRX_OK && fsync(fd) != 0) {
    status = hrx_status_from_errno(errno, "cannot sync '%s'", temp);
  }
  if (close(fd) != 0 && status == HRX_OK) {
    status = hrx_status_from_errno(errno, "cannot close '%s'", temp);
  }
  if (status == HRX_OK && rename(temp, path) != 0) {
    status = hrx_status_from_errno(errno, "cannot rename '%s' to '%s'", temp,
                                   path);
  }
  if (status != HRX_OK) {
    unlink(temp);
  } else {
    status = hrx_fsync_parent(path);
  }
  free(temp);
  return status;
}
