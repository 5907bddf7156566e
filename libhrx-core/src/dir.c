#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
