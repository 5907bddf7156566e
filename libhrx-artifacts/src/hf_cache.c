/* The huggingface_hub cache layout: names, lookups and publication. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hf_internal.h"
#include "hrx/core/file.h"
#include "show.h"

hrx_status_t hrx_hf_format_path(char* out, const char* format, ...) {
  va_list args;
  va_start(args, format);
  int n = vsnprintf(out, PATH_MAX, format, args);
  va_end(args);
  if (n < 0 || n >= PATH_MAX) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "cache path longer than %d bytes", PATH_MAX - 1);
  }
  return HRX_OK;
}

static bool hrx_hf_is_hex(const char* text, size_t length) {
  if (strlen(text) != length) return false;
  for (size_t i = 0; i < length; ++i) {
    char c = text[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool hrx_hf_is_commit(const char* text) {
  return hrx_hf_is_hex(text, HRX_HF_COMMIT_LENGTH);
}

bool hrx_hf_is_sha256_hex(const char* text) { return hrx_hf_is_hex(text, 64); }

static bool hrx_hf_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

/* One part of a repo id, per the hub's rules: [A-Za-z0-9._-], not starting
 * or ending with '-' or '.', no "--" or "..". */
static bool hrx_hf_repo_part_ok(const char* part, size_t length) {
  if (length == 0 || length > 96) return false;
  if (part[0] == '-' || part[0] == '.' || part[length - 1] == '-' ||
      part[length - 1] == '.') {
    return false;
  }
  for (size_t i = 0; i < length; ++i) {
    if (!hrx_hf_name_char(part[i])) return false;
    if (i && (part[i] == '-' || part[i] == '.') && part[i - 1] == part[i]) {
      return false;
    }
  }
  return true;
}

static hrx_status_t hrx_hf_check_repo_id(const char* repo_id) {
  const char* slash = repo_id ? strchr(repo_id, '/') : NULL;
  bool ok = repo_id != NULL;
  if (ok && slash) {
    ok = hrx_hf_repo_part_ok(repo_id, (size_t)(slash - repo_id)) &&
         hrx_hf_repo_part_ok(slash + 1, strlen(slash + 1));
  } else if (ok) {
    ok = hrx_hf_repo_part_ok(repo_id, strlen(repo_id));
  }
  if (ok) return HRX_OK;
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "repo id '%s' is not 'name' or 'org/name' made of "
                         "letters, digits, '-', '_' and '.'",
                         hrx_artifacts_show(repo_id ? repo_id : "(null)",
                                            shown));
}

/* Valid UTF-8 without C1 controls (U+0080..U+009F, which some terminals
 * obey like escape sequences): names that appear in printed paths. */
static bool hrx_hf_plain_utf8(const char* text, size_t length) {
  if (!hrx_utf8_valid(text, length)) return false;
  for (size_t i = 0; i + 1 < length; ++i) {
    unsigned char c = (unsigned char)text[i];
    unsigned char next = (unsigned char)text[i + 1];
    if (c == 0xc2 && next >= 0x80 && next <= 0x9f) return false;
  }
  return true;
}

/* A relative path that stays inside its directory: no leading '/', no
 * empty, '.' or '..' components, no backslashes or control characters,
 * valid UTF-8 (as every name on the hub is). */
static hrx_status_t hrx_hf_check_relative(const char* what, const char* path,
                                          size_t max_length) {
  const char* problem = NULL;
  size_t length = path ? strlen(path) : 0;
  if (!path || length == 0) {
    problem = "is empty";
  } else if (length > max_length) {
    problem = "is too long";
  } else if (!hrx_hf_plain_utf8(path, length)) {
    problem = "is not valid UTF-8 or has a control character";
  } else {
    for (const char* part = path; !problem;) {
      const char* end = strchr(part, '/');
      size_t n = end ? (size_t)(end - part) : strlen(part);
      if (n == 0 || (n == 1 && part[0] == '.') ||
          (n == 2 && part[0] == '.' && part[1] == '.')) {
        problem = "has an empty, '.' or '..' component";
      }
      for (size_t i = 0; i < n && !problem; ++i) {
        unsigned char c = (unsigned char)part[i];
        if (c < 0x20 || c == 0x7f || c == '\\') {
          problem = "has a backslash or control character";
        }
      }
      if (!end) break;
      part = end + 1;
    }
  }
  if (!problem) return HRX_OK;
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "%s '%s' %s", what,
                         hrx_artifacts_show(path ? path : "(null)", shown),
                         problem);
}

bool hrx_hf_etag_normalize(const char* raw, char out[HRX_HF_ETAG_MAX + 1]) {
  while (*raw == ' ') ++raw;
  if (strncmp(raw, "W/", 2) == 0) raw += 2;
  size_t length = strlen(raw);
  while (length && (raw[length - 1] == ' ' || raw[length - 1] == '\r' ||
                    raw[length - 1] == '\n')) {
    --length;
  }
  if (length >= 2 && raw[0] == '"' && raw[length - 1] == '"') {
    ++raw;
    length -= 2;
  }
  if (length == 0 || length > HRX_HF_ETAG_MAX) return false;
  for (size_t i = 0; i < length; ++i) {
    if (!hrx_hf_name_char(raw[i])) return false;
  }
  if (raw[0] == '.') return false; /* ".", ".." and hidden names */
  memcpy(out, raw, length);
  out[length] = '\0';
  return true;
}

hrx_status_t hrx_hf_repo_folder(hrx_hf_repo_type_t repo_type,
                                const char* repo_id, hrx_allocator_t allocator,
                                char** out_folder) {
  *out_folder = NULL;
  HRX_RETURN_IF_ERROR(hrx_hf_check_repo_id(repo_id));
  static const char* const kinds[] = {"models", "datasets", "spaces"};
  if ((unsigned)repo_type > HRX_HF_REPO_SPACE) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown repository type %d", (int)repo_type);
  }
  size_t length = strlen(kinds[repo_type]) + 2 + strlen(repo_id) + 1 + 1;
  char* folder = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, length, (void**)&folder));
  char* at = folder + sprintf(folder, "%s--", kinds[repo_type]);
  for (const char* c = repo_id; *c; ++c) {
    if (*c == '/') {
      *at++ = '-';
      *at++ = '-';
    } else {
      *at++ = *c;
    }
  }
  *at = '\0';
  *out_folder = folder;
  return HRX_OK;
}

hrx_status_t hrx_hf_target_init(const hrx_hf_resolver_t* r,
                                const hrx_hf_file_t* file,
                                hrx_hf_target_t* out_target) {
  hrx_hf_target_t* t = out_target;
  memset(t, 0, sizeof(*t));
  t->file = file;
  t->revision = file->revision ? file->revision : "main";
  HRX_RETURN_IF_ERROR(hrx_hf_check_relative("revision", t->revision, 255));
  HRX_RETURN_IF_ERROR(hrx_hf_check_relative("filename", file->filename, 1024));
  char* folder = NULL;
  HRX_RETURN_IF_ERROR(hrx_hf_repo_folder(file->repo_type, file->repo_id,
                                         r->allocator, &folder));
  hrx_status_t status = hrx_hf_format_path(t->folder, "%s", folder);
  hrx_allocator_free(r->allocator, folder);
  HRX_RETURN_IF_ERROR(status);
  if (r->deadline_ms) {
    /* Saturating: a deadline past 2^64 ns is no deadline at all. */
    uint64_t span = 0;
    if (__builtin_mul_overflow(r->deadline_ms, (uint64_t)1000000, &span) ||
        __builtin_add_overflow(hrx_clock_monotonic_ns(), span,
                               &t->deadline_ns)) {
      t->deadline_ns = 0;
    }
  }
  return hrx_hf_format_path(t->repo_dir, "%s/%s", r->cache_dir, t->folder);
}

hrx_status_t hrx_hf_cache_commit(const hrx_hf_target_t* t,
                                 char out_commit[HRX_HF_COMMIT_LENGTH + 1]) {
  if (hrx_hf_is_commit(t->revision)) {
    memcpy(out_commit, t->revision, HRX_HF_COMMIT_LENGTH + 1);
    return HRX_OK;
  }
  char path[PATH_MAX];
  HRX_RETURN_IF_ERROR(
      hrx_hf_format_path(path, "%s/refs/%s", t->repo_dir, t->revision));
  char text[HRX_HF_COMMIT_LENGTH + 3] = "";
  int fd = -1;
  /* Not a plain open: a FIFO planted under refs/ would block it. */
  hrx_status_t status = hrx_file_open_regular(path, true, &fd, NULL);
  if (hrx_status_is(status, HRX_STATUS_NOT_FOUND)) {
    hrx_status_free(status);
    return hrx_make_status(HRX_STATUS_NOT_FOUND, "no ref '%s' in %s",
                           t->revision, t->repo_dir);
  }
  HRX_RETURN_IF_ERROR(status);
  ssize_t got = read(fd, text, sizeof(text) - 1);
  close(fd);
  size_t n = got > 0 ? (size_t)got : 0;
  text[n] = '\0';
  /* huggingface_hub writes the bare hash; tolerate a trailing newline. */
  if (n && text[n - 1] == '\n') text[--n] = '\0';
  if (!hrx_hf_is_commit(text)) {
    return hrx_make_status(HRX_STATUS_NOT_FOUND,
                           "ref '%s' in %s does not hold a commit hash",
                           t->revision, t->repo_dir);
  }
  memcpy(out_commit, text, HRX_HF_COMMIT_LENGTH + 1);
  return HRX_OK;
}

hrx_status_t hrx_hf_cache_snapshot(const hrx_hf_target_t* t,
                                   const char* commit, char* out_path) {
  HRX_RETURN_IF_ERROR(hrx_hf_format_path(out_path, "%s/snapshots/%s/%s",
                                         t->repo_dir, commit,
                                         t->file->filename));
  struct stat info;
  if (stat(out_path, &info) == 0 && S_ISREG(info.st_mode)) return HRX_OK;
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "%s is not in the cache",
                         out_path);
}

hrx_status_t hrx_hf_cache_verify(const hrx_hf_target_t* t, const char* path) {
  if (!t->file->sha256) return HRX_OK;
  hrx_sha256_digest_t digest;
  int fd = -1;
  HRX_RETURN_IF_ERROR(hrx_file_open_regular(path, true, &fd, NULL));
  hrx_status_t status = hrx_sha256_fd(fd, &digest);
  close(fd);
  HRX_RETURN_IF_ERROR(hrx_status_annotate(status, "hashing '%s'", path));
  if (memcmp(&digest, t->file->sha256, sizeof(digest)) == 0) return HRX_OK;
  char got[HRX_SHA256_HEX_SIZE], want[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&digest, got);
  hrx_sha256_digest_format(t->file->sha256, want);
  return hrx_make_status(HRX_STATUS_DATA_LOSS,
                         "%s has SHA-256 %s, expected %s; remove it to "
                         "download it again",
                         path, got, want);
}

static hrx_status_t hrx_hf_make_parent(const char* path) {
  char parent[PATH_MAX];
  HRX_RETURN_IF_ERROR(hrx_hf_format_path(parent, "%s", path));
  char* slash = strrchr(parent, '/');
  if (slash) *slash = '\0';
  return hrx_dir_create_all(parent, 0755);
}

hrx_status_t hrx_hf_cache_write_ref(const hrx_hf_target_t* t,
                                    const char* commit) {
  if (hrx_hf_is_commit(t->revision)) return HRX_OK;
  char path[PATH_MAX];
  HRX_RETURN_IF_ERROR(
      hrx_hf_format_path(path, "%s/refs/%s", t->repo_dir, t->revision));
  HRX_RETURN_IF_ERROR(hrx_hf_make_parent(path));
  return hrx_file_write_atomic(path, commit, HRX_HF_COMMIT_LENGTH, 0644);
}

hrx_status_t hrx_hf_cache_publish(const hrx_hf_target_t* t,
                                  const hrx_hf_metadata_t* m, char* out_path) {
  HRX_RETURN_IF_ERROR(hrx_hf_format_path(out_path, "%s/snapshots/%s/%s",
                                         t->repo_dir, m->commit,
                                         t->file->filename));
  HRX_RETURN_IF_ERROR(hrx_hf_make_parent(out_path));
  /* Relative, like huggingface_hub: the cache can be moved as a whole. */
  char target[PATH_MAX] = "";
  size_t used = 0;
  for (const char* c = t->file->filename; *c; ++c) used += *c == '/';
  size_t at = 0;
  for (size_t up = 0; up < used + 2; ++up) at += (size_t)sprintf(target + at, "../");
  HRX_RETURN_IF_ERROR(
      hrx_hf_format_path(target + at, "blobs/%s", m->etag));
  /* A link under a temporary name, renamed over the final one: readers see
   * the old entry or the new, never none. */
  char temporary[PATH_MAX];
  for (int attempt = 0;; ++attempt) {
    /* The pid keeps processes apart, the clock keeps threads apart. */
    HRX_RETURN_IF_ERROR(hrx_hf_format_path(
        temporary, "%s.tmp-%ld-%llx", out_path, (long)getpid(),
        (unsigned long long)hrx_clock_monotonic_ns()));
    if (symlink(target, temporary) == 0) break;
    if (errno != EEXIST || attempt == 16) {
      return hrx_status_from_errno(errno, "cannot create link '%s'",
                                   temporary);
    }
  }
  if (rename(temporary, out_path) != 0) {
    hrx_status_t status =
        hrx_status_from_errno(errno, "cannot publish '%s'", out_path);
    unlink(temporary);
    return status;
  }
  return hrx_hf_cache_write_ref(t, m->commit);
}

/* .no_exist/<commit>/<filename>: huggingface_hub's record that the hub
 * said the file is not in that commit. */
static hrx_status_t hrx_hf_no_exist_path(const hrx_hf_target_t* t,
                                         const char* commit, char* out) {
  return hrx_hf_format_path(out, "%s/.no_exist/%s/%s", t->repo_dir, commit,
                            t->file->filename);
}

bool hrx_hf_cache_no_exist(const hrx_hf_target_t* t, const char* commit) {
  char path[PATH_MAX];
  hrx_status_t status = hrx_hf_no_exist_path(t, commit, path);
  if (status != HRX_OK) {
    hrx_status_free(status);
    return false;
  }
  return access(path, F_OK) == 0;
}

hrx_status_t hrx_hf_cache_mark_missing(const hrx_hf_target_t* t,
                                       const char* commit) {
  char path[PATH_MAX];
  HRX_RETURN_IF_ERROR(hrx_hf_no_exist_path(t, commit, path));
  HRX_RETURN_IF_ERROR(hrx_hf_make_parent(path));
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return hrx_status_from_errno(errno, "cannot create '%s'", path);
  close(fd);
  return hrx_hf_cache_write_ref(t, commit);
}
