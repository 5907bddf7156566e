#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/core/escape.h"
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
  /* Paths may come from archives, caches and model files: shown escaped. */
  char shown[HRX_ESCAPED_NAME_CAPACITY * 2];
  hrx_escape_text(path, strlen(path), shown, sizeof(shown));
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  if (!follow_links) flags |= O_NOFOLLOW;
  int fd = open(path, flags);
  if (fd < 0) {
    if (errno == ELOOP && !follow_links) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "'%s' is a symbolic link, not a regular file",
                             shown);
    }
    return hrx_status_from_errno(errno, "cannot open '%s'", shown);
  }
  struct stat info;
  hrx_status_t status = HRX_OK;
  if (fstat(fd, &info) != 0) {
    status = hrx_status_from_errno(errno, "cannot stat '%s'", shown);
  } else if (!S_ISREG(info.st_mode)) {
    status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "'%s' is a %s, not a regular file", shown,
                             hrx_file_kind_name(info.st_mode));
  } else {
    /* Reads of a regular file never block anyway; clearing the flag keeps
     * callers that hand the descriptor on (libarchive, mmap users) on the
     * ordinary blocking semantics. */
    int current = fcntl(fd, F_GETFL);
    if (current < 0 || fcntl(fd, F_SETFL, current & ~O_NONBLOCK) != 0) {
      status = hrx_status_from_errno(errno, "cannot set flags of '%s'",
                                     shown);
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

/* Where symbolic link |path| points, relative targets taken from the
 * link's own directory. */
static hrx_status_t hrx_link_target(const char* path, char** out_target) {
  *out_target = NULL;
  char buffer[4096];
  ssize_t n = readlink(path, buffer, sizeof(buffer) - 1);
  if (n < 0) return hrx_status_from_errno(errno, "cannot read link '%s'", path);
  if ((size_t)n >= sizeof(buffer) - 1) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "link '%s' points to a path too long", path);
  }
  buffer[n] = '\0';
  const char* slash = strrchr(path, '/');
  size_t prefix = buffer[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1;
  char* target = malloc(prefix + (size_t)n + 1);
  if (!target) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "no memory to follow '%s'", path);
  }
  memcpy(target, path, prefix);
  memcpy(target + prefix, buffer, (size_t)n + 1);
  *out_target = target;
  return HRX_OK;
}

/* The kernel's limit on links followed in one lookup (SYMLOOP_MAX). */
#define HRX_MAX_LINKS_FOLLOWED 40

static hrx_status_t hrx_write_output_at(const char* path, const void* data,
                                        size_t length, mode_t mode,
                                        int links_left) {
  struct stat info;
  if (lstat(path, &info) != 0) {
    if (errno == ENOENT) {
      return hrx_file_write_atomic(path, data, length, mode);
    }
    return hrx_status_from_errno(errno, "cannot stat '%s'", path);
  }
  if (S_ISLNK(info.st_mode)) {
    if (links_left == 0) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "'%s': too many levels of symbolic links", path);
    }
    char* target = NULL;
    hrx_status_t status = hrx_link_target(path, &target);
    if (status == HRX_OK) {
      status = hrx_write_output_at(target, data, length, mode,
                                   links_left - 1);
    }
    free(target);
    return hrx_status_annotate(status, "following symbolic link '%s'", path);
  }
  if (S_ISREG(info.st_mode)) {
    return hrx_file_write_atomic(path, data, length, mode);
  }
  if (S_ISFIFO(info.st_mode) || S_ISCHR(info.st_mode)) {
    return hrx_write_in_place(path, data, length);
  }
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "'%s' is a %s; refusing to write over it", path,
                         hrx_file_kind_name(info.st_mode));
}

hrx_status_t hrx_file_write_output(const char* path, const void* data,
                                   size_t length, mode_t mode) {
  if (!path || !path[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "file path is empty");
  }
  return hrx_write_output_at(path, data, length, mode,
                             HRX_MAX_LINKS_FOLLOWED);
}
