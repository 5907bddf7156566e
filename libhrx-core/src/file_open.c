#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/core/file.h"

const char* hrx_file_kind_name(mode_t mode) {
  if (S_ISREG(mode)) return "regular file";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISSOCK(mode)) return "socket";
  if (S_ISLNK(mode)) return "symbolic link";
  return "special file";
}

hrx_status_t hrx_file_open_regular(const char* path, bool follow_links,
                                   int* out_fd, struct stat* out_info) {
  *out_fd = -1;
  if (!path || !path[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "file path is empty");
  }
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  if (!follow_links) flags |= O_NOFOLLOW;
  int fd = open(path, flags);
  if (fd < 0) {
    if (errno == ELOOP && !follow_links) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "'%s' is a symbolic link, not a regular file",
                             path);
    }
    return hrx_status_from_errno(errno, "cannot open '%s'", path);
  }
  struct stat info;
  hrx_status_t status = HRX_OK;
  if (fstat(fd, &info) != 0) {
    status = hrx_status_from_errno(errno, "cannot stat '%s'", path);
  } else if (!S_ISREG(info.st_mode)) {
    status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "'%s' is a %s, not a regular file", path,
                             hrx_file_kind_name(info.st_mode));
  } else {
    /* Reads of a regular file never block anyway; clearing the flag keeps
     * callers that hand the descriptor on (libarchive, mmap users) on the
     * ordinary blocking semantics. */
    int current = fcntl(fd, F_GETFL);
    if (current < 0 || fcntl(fd, F_SETFL, current & ~O_NONBLOCK) != 0) {
      status = hrx_status_from_errno(errno, "cannot set flags of '%s'", path);
    }
  }
  if (status != HRX_OK) {
    close(fd);
    return status;
  }
  if (out_info) *out_info = info;
  *out_fd = fd;
  return HRX_OK;
}

/* Writes into an existing FIFO or character device without replacing it. */
static hrx_status_t hrx_write_in_place(const char* path, const void* data,
                                       size_t length) {
  /* O_NONBLOCK makes a FIFO without a reader fail with ENXIO instead of
   * waiting; the descriptor is switched back so that the writes themselves
   * wait for a slow reader instead of failing with EAGAIN. */
  int fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENXIO) {
      return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                             "'%s' is a FIFO with no reader", path);
    }
    return hrx_status_from_errno(errno, "cannot open '%s' for writing",
                                 path);
  }
  hrx_status_t status = HRX_OK;
  struct stat info;
  int current = fcntl(fd, F_GETFL);
  if (fstat(fd, &info) != 0) {
    status = hrx_status_from_errno(errno, "cannot stat '%s'", path);
  } else if (!S_ISFIFO(info.st_mode) && !S_ISCHR(info.st_mode)) {
    /* Replaced between the caller's lstat and this open. */
    status = hrx_make_status(HRX_STATUS_ABORTED,
                             "'%s' changed while being opened", path);
  } else if (current < 0 || fcntl(fd, F_SETFL, current & ~O_NONBLOCK) != 0) {
    status = hrx_status_from_errno(errno, "cannot set flags of '%s'", path);
  }
  if (status == HRX_OK) status = hrx_fd_write_all(fd, data, length, path);
  if (close(fd) != 0 && status == HRX_OK) {
    status = hrx_status_from_errno(errno, "cannot close '%s'", path);
  }
  return status;
}

hrx_status_t hrx_file_write_output(const char* path, const void* data,
                                   size_t length, mode_t mode) {
  if (!path || !path[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "file path is empty");
  }
  struct stat link_info;
  if (lstat(path, &link_info) != 0) {
    if (errno == ENOENT) {
      return hrx_file_write_atomic(path, data, length, mode);
    }
    return hrx_status_from_errno(errno, "cannot stat '%s'", path);
  }
  if (S_ISLNK(link_info.st_mode)) {
    char* target = realpath(path, NULL);
    if (!target) {
      return hrx_status_from_errno(
          errno, "'%s' is a symbolic link whose target cannot be resolved",
          path);
    }
    struct stat info;
    hrx_status_t status = HRX_OK;
    if (lstat(target, &info) != 0) {
      status = hrx_status_from_errno(errno, "cannot stat '%s'", target);
    } else if (S_ISLNK(info.st_mode)) {
      status = hrx_make_status(HRX_STATUS_ABORTED,
                               "'%s' changed while being resolved", path);
    } else {
      status = hrx_file_write_output(target, data, length, mode);
    }
    free(target);
    return hrx_status_annotate(status, "following symbolic link '%s'", path);
  }
  if (S_ISREG(link_info.st_mode)) {
    return hrx_file_write_atomic(path, data, length, mode);
  }
  if (S_ISFIFO(link_info.st_mode) || S_ISCHR(link_info.st_mode)) {
    return hrx_write_in_place(path, data, length);
  }
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "'%s' is a %s; refusing to write over it", path,
                         hrx_file_kind_name(link_info.st_mode));
}
