#include "hrx/core/paths.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/core/file.h"

const char* hrx_path_source_string(hrx_path_source_t source) {
  switch (source) {
    case HRX_PATH_SOURCE_XDG: return "xdg";
    case HRX_PATH_SOURCE_HOME: return "home";
    case HRX_PATH_SOURCE_PASSWD: return "passwd";
    case HRX_PATH_SOURCE_TMP_FALLBACK: return "tmp-fallback";
  }
  return "unknown";
}

/* The XDG specification says relative values must be ignored. */
static const char* hrx_absolute_env(const char* name) {
  const char* value = getenv(name);
  return (value && value[0] == '/') ? value : NULL;
}

static hrx_status_t hrx_format_path(hrx_allocator_t allocator, char** out_path,
                                    const char* a, const char* b) {
  size_t a_len = strlen(a);
  while (a_len > 1 && a[a_len - 1] == '/') --a_len;
  while (*b == '/') ++b;
  size_t b_len = strlen(b);
  size_t total = a_len + 1 + b_len + 1;
  char* path = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc_uninitialized(allocator, total, (void**)&path));
  memcpy(path, a, a_len);
  size_t at = a_len;
  if (b_len > 0 && !(a_len == 1 && a[0] == '/')) path[at++] = '/';
  memcpy(path + at, b, b_len);
  path[at + b_len] = '\0';
  *out_path = path;
  return HRX_OK;
}

hrx_status_t hrx_path_join(hrx_allocator_t allocator, const char* base,
                           const char* leaf, char** out_path) {
  *out_path = NULL;
  return hrx_format_path(allocator, out_path, base, leaf);
}

hrx_status_t hrx_path_parent(hrx_allocator_t allocator, const char* path,
                             char** out_parent) {
  *out_parent = NULL;
  const char* slash = strrchr(path, '/');
  if (!slash) return hrx_allocator_strdup(allocator, ".", out_parent);
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, n + 1, (void**)out_parent));
  memcpy(*out_parent, path, n);
  (*out_parent)[n] = '\0';
  return HRX_OK;
}

hrx_status_t hrx_path_cache_root(hrx_allocator_t allocator, char** out_path,
                                 hrx_path_source_t* out_source) {
  *out_path = NULL;
  hrx_path_source_t source = HRX_PATH_SOURCE_XDG;
  const char* xdg = hrx_absolute_env("XDG_CACHE_HOME");
  hrx_status_t status;
  if (xdg) {
    status = hrx_format_path(allocator, out_path, xdg, "hrx");
  } else {
    const char* home = hrx_absolute_env("HOME");
    source = HRX_PATH_SOURCE_HOME;
    char buffer[4096];
    struct passwd entry;
    struct passwd* found = NULL;
    if (!home) {
      source = HRX_PATH_SOURCE_PASSWD;
      if (getpwuid_r(getuid(), &entry, buffer, sizeof(buffer), &found) == 0 &&
          found && found->pw_dir && found->pw_dir[0] == '/') {
        home = found->pw_dir;
      }
    }
    if (!home) {
      return hrx_make_status(HRX_STATUS_NOT_FOUND,
                             "no cache root: XDG_CACHE_HOME and HOME are unset "
                             "or relative and the user database has no home "
                             "directory");
    }
    status = hrx_format_path(allocator, out_path, home, ".cache/hrx");
  }
  if (status == HRX_OK && out_source) *out_source = source;
  return status;
}

hrx_status_t hrx_path_runtime_dir(hrx_allocator_t allocator, char** out_path,
                                  hrx_path_source_t* out_source) {
  *out_path = NULL;
  const char* xdg = hrx_absolute_env("XDG_RUNTIME_DIR");
  if (xdg) {
    if (out_source) *out_source = HRX_PATH_SOURCE_XDG;
    return hrx_format_path(allocator, out_path, xdg, "hrx");
  }
  const char* tmp = hrx_absolute_env("TMPDIR");
  char leaf[64];
  snprintf(leaf, sizeof(leaf), "hrx-runtime-%lu", (unsigned long)getuid());
  if (out_source) *out_source = HRX_PATH_SOURCE_TMP_FALLBACK;
  return hrx_format_path(allocator, out_path, tmp ? tmp : "/tmp", leaf);
}

hrx_status_t hrx_path_ensure_private_dir(const char* path) {
  HRX_RETURN_IF_ERROR(hrx_dir_create_all(path, 0700));
  struct stat info;
  if (lstat(path, &info) != 0) {
    return hrx_status_from_errno(errno, "cannot stat '%s'", path);
  }
  if (!S_ISDIR(info.st_mode)) {
    return hrx_make_status(HRX_STATUS_PERMISSION_DENIED,
                           "'%s' is not a directory (a symlink?)", path);
  }
  if (info.st_uid != getuid()) {
    return hrx_make_status(HRX_STATUS_PERMISSION_DENIED,
                           "'%s' is owned by uid %lu, not by this user (%lu)",
                           path, (unsigned long)info.st_uid,
                           (unsigned long)getuid());
  }
  if (info.st_mode & (S_IWGRP | S_IWOTH)) {
    return hrx_make_status(HRX_STATUS_PERMISSION_DENIED,
                           "'%s' is writable by group or others (mode %03o)",
                           path, (unsigned)(info.st_mode & 0777));
  }
  return HRX_OK;
}
