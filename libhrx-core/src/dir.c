#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/core/file.h"

static hrx_status_t hrx_mkdir_one(const char* path, mode_t mode) {
  if (mkdir(path, mode) == 0) return HRX_OK;
  int error = errno;
  struct stat info;
  if (error == EEXIST) {
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode)) return HRX_OK;
    return hrx_make_status(HRX_STATUS_ALREADY_EXISTS,
                           "'%s' exists and is not a directory", path);
  }
  return hrx_status_from_errno(error, "cannot create directory '%s'", path);
}

hrx_status_t hrx_dir_create_all(const char* path, mode_t mode) {
  if (!path || !path[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "directory path is empty");
  }
  size_t length = strlen(path);
  char* scratch = malloc(length + 1);
  if (!scratch) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "no memory to create '%s'", path);
  }
  memcpy(scratch, path, length + 1);
  hrx_status_t status = HRX_OK;
  /* Create each prefix that ends before a '/', then the whole path. */
  for (size_t i = 1; i < length && status == HRX_OK; ++i) {
    if (scratch[i] != '/' || scratch[i - 1] == '/') continue;
    scratch[i] = '\0';
    status = hrx_mkdir_one(scratch, mode);
    scratch[i] = '/';
  }
  if (status == HRX_OK) status = hrx_mkdir_one(scratch, mode);
  free(scratch);
  return status;
}

/* Symbolic links are removed, never followed, so a link planted inside a
 * cache entry cannot make removal reach outside it. */
#define HRX_REMOVE_MAX_DEPTH 64

static hrx_status_t hrx_remove_below(int dir_fd, const char* path, int depth,
                                     uint64_t* bytes) {
  if (depth > HRX_REMOVE_MAX_DEPTH) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "'%s' is nested deeper than %d directories", path,
                           HRX_REMOVE_MAX_DEPTH);
  }
  DIR* dir = fdopendir(dir_fd);
  if (!dir) {
    int error = errno;
    close(dir_fd);
    return hrx_status_from_errno(error, "cannot read directory '%s'", path);
  }
  hrx_status_t status = HRX_OK;
  for (struct dirent* e; status == HRX_OK && (e = readdir(dir));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    struct stat info;
    if (fstatat(dir_fd, e->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue; /* removed concurrently */
      status = hrx_status_from_errno(errno, "cannot stat '%s/%s'", path,
                                     e->d_name);
      break;
    }
    if (S_ISDIR(info.st_mode)) {
      int child = openat(dir_fd, e->d_name,
                         O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child < 0) {
        status = hrx_status_from_errno(errno, "cannot open '%s/%s'", path,
                                       e->d_name);
        break;
      }
      status = hrx_remove_below(child, e->d_name, depth + 1, bytes);
      if (status == HRX_OK && unlinkat(dir_fd, e->d_name, AT_REMOVEDIR) != 0 &&
          errno != ENOENT) {
        status = hrx_status_from_errno(errno, "cannot remove '%s/%s'", path,
                                       e->d_name);
      }
    } else if (unlinkat(dir_fd, e->d_name, 0) == 0) {
      if (S_ISREG(info.st_mode) && bytes) *bytes += (uint64_t)info.st_size;
    } else if (errno != ENOENT) {
      status = hrx_status_from_errno(errno, "cannot remove '%s/%s'", path,
                                     e->d_name);
    }
  }
  closedir(dir); /* closes dir_fd */
  return status;
}

hrx_status_t hrx_dir_remove_all(const char* path, uint64_t* out_bytes) {
  if (out_bytes) *out_bytes = 0;
  if (!path || !path[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "directory path is empty");
  }
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return HRX_OK;
    return hrx_status_from_errno(errno, "cannot open directory '%s'", path);
  }
  hrx_status_t status = hrx_remove_below(fd, path, 0, out_bytes);
  if (status == HRX_OK && rmdir(path) != 0 && errno != ENOENT) {
    status = hrx_status_from_errno(errno, "cannot remove '%s'", path);
  }
  return status;
}
