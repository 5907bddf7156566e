/* Installing and locating bundles under <cache root>/bundles/. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle_internal.h"

hrx_status_t hrx_fabric_bundle_store_dir(const char* cache_root,
                                         hrx_allocator_t allocator,
                                         char** out_dir) {
  *out_dir = NULL;
  char* root = NULL;
  if (cache_root) {
    HRX_RETURN_IF_ERROR(hrx_allocator_strdup(allocator, cache_root, &root));
  } else {
    HRX_RETURN_IF_ERROR(hrx_path_cache_root(allocator, &root, NULL));
  }
  hrx_status_t status = hrx_path_join(allocator, root, "bundles", out_dir);
  hrx_allocator_free(allocator, root);
  return status;
}

/* |a|/|b| into |out|; OUT_OF_RANGE when it does not fit. */
static hrx_status_t hrx_bundle_path(char* out, size_t size, const char* a,
                                    const char* b) {
  int n = snprintf(out, size, "%s/%s", a, b);
  if (n < 0 || (size_t)n >= size) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE, "path '%s/%s' is too long",
                           a, b);
  }
  return HRX_OK;
}

/* Hashes the regular file at |path| inside the store: a link, FIFO or
 * device planted there is refused instead of followed or read forever. */
static hrx_status_t hrx_bundle_hash_installed(const char* path,
                                              hrx_sha256_digest_t* out) {
  int fd = -1;
  HRX_RETURN_IF_ERROR(hrx_file_open_regular(path, false, &fd, NULL));
  hrx_status_t status = hrx_sha256_fd(fd, out);
  close(fd);
  return hrx_status_annotate(status, "hashing '%s'", path);
}

hrx_status_t hrx_bundle_verify_dir(
    const hrx_fabric_bundle_manifest_t* m, const char* dir) {
  for (size_t i = 0; i < m->file_count; ++i) {
    char path[4096];
    HRX_RETURN_IF_ERROR(
        hrx_bundle_path(path, sizeof(path), dir, m->files[i].name));
    const char* name = m->files[i].name;
    char shown[HRX_ESCAPED_NAME_CAPACITY];
    hrx_escape_text(name, strlen(name), shown, sizeof(shown));
    hrx_sha256_digest_t digest;
    hrx_status_t status = hrx_bundle_hash_installed(path, &digest);
    if (status != HRX_OK) {
      hrx_status_t named = hrx_make_status(
          HRX_STATUS_DATA_LOSS, "installed bundle file '%s' is unreadable: %s",
          shown, hrx_status_message(status));
      hrx_status_free(status);
      return named;
    }
    if (memcmp(&digest, &m->files[i].sha256, sizeof(digest)) != 0) {
      char got[HRX_SHA256_HEX_SIZE], want[HRX_SHA256_HEX_SIZE];
      hrx_sha256_digest_format(&digest, got);
      hrx_sha256_digest_format(&m->files[i].sha256, want);
      return hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "installed bundle file '%s' has SHA-256 %s; "
                             "bundle.json pins %s",
                             shown, got, want);
    }
  }
  return HRX_OK;
}

static hrx_status_t hrx_bundle_entry_dir(const hrx_fabric_bundle_manifest_t* m,
                                         const char* cache_root,
                                         hrx_allocator_t allocator,
                                         char** out_store, char** out_dir) {
  HRX_RETURN_IF_ERROR(
      hrx_fabric_bundle_store_dir(cache_root, allocator, out_store));
  char hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&m->archive_sha256, hex);
  return hrx_path_join(allocator, *out_store, hex, out_dir);
}

hrx_status_t hrx_fabric_bundle_locate(const hrx_fabric_bundle_manifest_t* m,
                                      const char* cache_root,
                                      hrx_allocator_t allocator,
                                      char** out_dir) {
  *out_dir = NULL;
  char *store = NULL, *dir = NULL;
  hrx_status_t status =
      hrx_bundle_entry_dir(m, cache_root, allocator, &store, &dir);
  struct stat info;
  if (status == HRX_OK && stat(dir, &info) != 0) {
    status = hrx_make_status(HRX_STATUS_NOT_FOUND,
                             "bundle %s is not installed (run 'hrx prepare')",
                             dir);
  }
  if (status == HRX_OK) status = hrx_bundle_verify_dir(m, dir);
  hrx_allocator_free(allocator, store);
  if (status != HRX_OK) {
    hrx_allocator_free(allocator, dir);
    return status;
  }
  *out_dir = dir;
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Extraction                                                              */
/*===------------------------------------------------------------------===*/

static const char* hrx_bundle_kind(mode_t type) {
  switch (type) {
    case AE_IFLNK: return "a symbolic link";
    case AE_IFCHR: return "a character device";
    case AE_IFBLK: return "a block device";
    case AE_IFIFO: return "a fifo";
    case AE_IFSOCK: return "a socket";
    default: return "not a regular file";
  }
}

/* Creates the parent directories of |name| under |root|. */
static hrx_status_t hrx_bundle_parents(const char* root, const char* name) {
  char path[4096];
  HRX_RETURN_IF_ERROR(hrx_bundle_path(path, sizeof(path), root, name));
  char* slash = strrchr(path, '/');
  *slash = '\0';
  return hrx_dir_create_all(path, 0755);
}

/* Writes the current entry's data to |root|/|name| while hashing it. The
 * blocks must follow each other: what is written is exactly the stream
 * that is hashed (a sparse entry, refused before this, would put its
 * blocks at offsets with holes between them). */
static hrx_status_t hrx_bundle_write_entry(struct archive* reader,
                                           struct archive_entry* entry,
                                           const char* root, const char* name,
                                           mode_t mode,
                                           hrx_sha256_digest_t* out) {
  HRX_RETURN_IF_ERROR(hrx_bundle_parents(root, name));
  char path[4096];
  HRX_RETURN_IF_ERROR(hrx_bundle_path(path, sizeof(path), root, name));
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  hrx_escape_text(name, strlen(name), shown, sizeof(shown));
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                mode);
  if (fd < 0) return hrx_status_from_errno(errno, "cannot create '%s'", path);
  hrx_sha256_t hash;
  hrx_sha256_init(&hash);
  hrx_status_t status = HRX_OK;
  uint64_t written = 0;
  for (;;) {
    const void* block = NULL;
    size_t size = 0;
    la_int64_t offset = 0;
    int r = archive_read_data_block(reader, &block, &size, &offset);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK) {
      char error[HRX_ESCAPED_NAME_CAPACITY];
      const char* text = archive_error_string(reader);
      status = hrx_make_status(
          HRX_STATUS_DATA_LOSS, "archive entry '%s' is damaged: %s", shown,
          text ? hrx_escape_text(text, strlen(text), error, sizeof(error))
               : "unknown error");
      break;
    }
    if (offset < 0 || (uint64_t)offset != written) {
      status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "archive entry '%s' has a hole at byte %llu; "
                               "bundles hold no sparse files",
                               shown, (unsigned long long)written);
      break;
    }
    /* hrx_fd_write_all goes on after a short write, so a full disk is
     * reported as ENOSPC, never as whatever errno said before. */
    status = hrx_fd_write_all(fd, block, size, path);
    if (status != HRX_OK) break;
    hrx_sha256_update(&hash, block, size);
    written += size;
  }
  if (status == HRX_OK && archive_entry_size_is_set(entry) &&
      written != (uint64_t)archive_entry_size(entry)) {
    status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "archive entry '%s' holds %llu of its %lld "
                             "bytes; bundles hold no sparse files",
                             shown, (unsigned long long)written,
                             (long long)archive_entry_size(entry));
  }
  if (status == HRX_OK && fsync(fd) != 0) {
    status = hrx_status_from_errno(errno, "cannot sync '%s'", path);
  }
  if (close(fd) != 0 && status == HRX_OK) {
    status = hrx_status_from_errno(errno, "cannot close '%s'", path);
  }
  hrx_sha256_final(&hash, out);
  return status;
}

/* Checks one entry and extracts it when it is a listed file; |seen| marks
 * the listed files found so far. */
static hrx_status_t hrx_bundle_extract_entry(
    const hrx_fabric_bundle_manifest_t* m, struct archive* reader,
    struct archive_entry* entry, const char* root, bool* seen) {
  const char* name = archive_entry_pathname(entry);
  if (!name) name = "";
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  hrx_escape_text(name, strlen(name), shown, sizeof(shown));
  mode_t type = archive_entry_filetype(entry);
  char trimmed[4096];
  snprintf(trimmed, sizeof(trimmed), "%s", name);
  size_t length = strlen(trimmed);
  if (type == AE_IFDIR && length && trimmed[length - 1] == '/') {
    trimmed[length - 1] = '\0';
  }
  const hrx_fabric_bundle_file_t* listed =
      m->file_count ? bsearch(trimmed, m->files, m->file_count,
                              sizeof(*m->files), hrx_bundle_find_file)
                    : NULL;
  if (archive_entry_hardlink(entry)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "archive entry '%s' is a hard link; bundles hold "
                           "only files and directories",
                           shown);
  }
  if (type == AE_IFDIR) {
    /* Directories are made as files need them; a listed name must be a
     * file. */
    if (!listed) return HRX_OK;
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "archive entry '%s' is a directory; bundle.json "
                           "lists it as a file",
                           shown);
  }
  if (type != AE_IFREG) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "archive entry '%s' is %s; bundles hold only "
                           "files and directories",
                           shown, hrx_bundle_kind(type));
  }
  if (archive_entry_sparse_count(entry) > 0) {
    /* Its data blocks (what is hashed) are not the file's bytes. */
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "archive entry '%s' is a sparse file; bundles "
                           "hold only plain files and directories",
                           shown);
  }
  if (!listed) {
    /* Unlisted covers absolute paths and ".." too: listed names are plain
     * relative paths. */
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "archive entry '%s' is not listed in bundle.json",
                           shown);
  }
  if (seen[listed - m->files]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "archive entry '%s' appears twice", shown);
  }
  seen[listed - m->files] = true;
  mode_t mode = (archive_entry_perm(entry) & 0111) ? 0755 : 0644;
  hrx_sha256_digest_t digest;
  HRX_RETURN_IF_ERROR(
      hrx_bundle_write_entry(reader, entry, root, listed->name, mode, &digest));
  if (memcmp(&digest, &listed->sha256, sizeof(digest)) == 0) return HRX_OK;
  char got[HRX_SHA256_HEX_SIZE], want[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&digest, got);
  hrx_sha256_digest_format(&listed->sha256, want);
  return hrx_make_status(HRX_STATUS_DATA_LOSS,
                         "bundle file '%s' has SHA-256 %s; bundle.json pins "
                         "%s",
                         shown, got, want);
}

/* "archive '<path>' is damaged: <libarchive's reason>". */
static hrx_status_t hrx_bundle_damaged(struct archive* reader,
                                       const char* archive_path) {
  const char* text = archive_error_string(reader);
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  return hrx_make_status(
      HRX_STATUS_DATA_LOSS, "archive '%s' is damaged: %s", archive_path,
      text ? hrx_escape_text(text, strlen(text), shown, sizeof(shown))
           : "unknown error");
}

/* Extracts the archive open at |fd| (its digest already matched, so what
 * fails now is its content) into |root|. */
static hrx_status_t hrx_bundle_extract(const hrx_fabric_bundle_manifest_t* m,
                                       int fd, const char* archive_path,
                                       const char* root, bool* seen) {
  struct archive* reader = archive_read_new();
  if (!reader) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED, "no memory");
  }
  archive_read_support_filter_zstd(reader);
  archive_read_support_filter_gzip(reader);
  archive_read_support_format_tar(reader);
  hrx_status_t status = HRX_OK;
  if (archive_read_open_fd(reader, fd, 1 << 16) != ARCHIVE_OK) {
    status = hrx_bundle_damaged(reader, archive_path);
  }
  while (status == HRX_OK) {
    struct archive_entry* entry = NULL;
    int r = archive_read_next_header(reader, &entry);
    if (r == ARCHIVE_EOF) break;
    status = r == ARCHIVE_OK
                 ? hrx_bundle_extract_entry(m, reader, entry, root, seen)
                 : hrx_bundle_damaged(reader, archive_path);
  }
  archive_read_free(reader);
  for (size_t i = 0; i < m->file_count && status == HRX_OK; ++i) {
    if (!seen[i]) {
      char shown[HRX_ESCAPED_NAME_CAPACITY];
      const char* name = m->files[i].name;
      status = hrx_make_status(
          HRX_STATUS_DATA_LOSS, "archive '%s' lacks '%s' that bundle.json lists",
          archive_path, hrx_escape_text(name, strlen(name), shown,
                                        sizeof(shown)));
    }
  }
  return status;
}

/* Opens |archive_path| (a regular file only: a FIFO or /dev/zero would be
 * read forever) and checks its size and, unless |digest_checked|, its
 * SHA-256 against |m|. The same descriptor is then extracted, so the bytes
 * installed are the bytes checked even if the path is replaced meanwhile. */
static hrx_status_t hrx_bundle_open_archive(
    const hrx_fabric_bundle_manifest_t* m, const char* archive_path,
    bool digest_checked, int* out_fd) {
  struct stat info;
  int fd = -1;
  HRX_RETURN_IF_ERROR(hrx_file_open_regular(archive_path, true, &fd, &info));
  hrx_status_t status = HRX_OK;
  if (m->size && (uint64_t)info.st_size != m->size) {
    status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "archive '%s' is %llu bytes; bundle.json pins "
                             "%llu",
                             archive_path, (unsigned long long)info.st_size,
                             (unsigned long long)m->size);
  }
  hrx_sha256_digest_t digest = m->archive_sha256;
  if (status == HRX_OK && !digest_checked) {
    status = hrx_status_annotate(hrx_sha256_fd(fd, &digest), "hashing '%s'",
                                 archive_path);
  }
  if (status == HRX_OK &&
      memcmp(&digest, &m->archive_sha256, sizeof(digest)) != 0) {
    char got[HRX_SHA256_HEX_SIZE], want[HRX_SHA256_HEX_SIZE];
    hrx_sha256_digest_format(&digest, got);
    hrx_sha256_digest_format(&m->archive_sha256, want);
    status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "archive '%s' has SHA-256 %s; bundle.json pins "
                             "%s",
                             archive_path, got, want);
  }
  if (status == HRX_OK && lseek(fd, 0, SEEK_SET) != 0) {
    status = hrx_status_from_errno(errno, "cannot rewind '%s'", archive_path);
  }
  if (status != HRX_OK) {
    close(fd);
    return status;
  }
  *out_fd = fd;
  return HRX_OK;
}

/* Extracts the checked archive at |fd| into a private temporary directory
 * of |store| and renames it to |dir|. */
static hrx_status_t hrx_bundle_extract_into(
    const hrx_fabric_bundle_manifest_t* m, int fd, const char* archive_path,
    const char* store, const char* dir, hrx_allocator_t allocator) {
  char temp[4096];
  char hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&m->archive_sha256, hex);
  char leaf[96];
  snprintf(leaf, sizeof(leaf), ".tmp-%s-XXXXXX", hex);
  HRX_RETURN_IF_ERROR(hrx_bundle_path(temp, sizeof(temp), store, leaf));
  if (!mkdtemp(temp)) {
    return hrx_status_from_errno(errno, "cannot create a directory in '%s'",
                                 store);
  }
  bool* seen = NULL;
  hrx_status_t status = hrx_allocator_malloc(
      allocator, m->file_count + 1, (void**)&seen);
  if (status == HRX_OK) {
    status = hrx_bundle_extract(m, fd, archive_path, temp, seen);
  }
  hrx_allocator_free(allocator, seen);
  if (status == HRX_OK && chmod(temp, 0755) != 0) {
    status = hrx_status_from_errno(errno, "cannot chmod '%s'", temp);
  }
  if (status == HRX_OK && rename(temp, dir) != 0) {
    status = hrx_status_from_errno(errno, "cannot install bundle as '%s'",
                                   dir);
  }
  if (status != HRX_OK) hrx_status_free(hrx_dir_remove_all(temp, NULL));
  return status;
}

hrx_status_t hrx_bundle_install_locked(const hrx_fabric_bundle_manifest_t* m,
                                       const char* archive_path,
                                       bool digest_checked, const char* store,
                                       const char* dir,
                                       hrx_allocator_t allocator) {
  /* The archive is checked even when the bundle is installed already: a
   * wrong archive is an error the caller should hear about. */
  int fd = -1;
  HRX_RETURN_IF_ERROR(
      hrx_bundle_open_archive(m, archive_path, digest_checked, &fd));
  hrx_status_t status = HRX_OK;
  struct stat info;
  if (stat(dir, &info) == 0) {
    hrx_status_t intact = hrx_bundle_verify_dir(m, dir);
    if (intact == HRX_OK) {
      close(fd);
      return HRX_OK;
    }
    /* Damaged since it was installed: replace it. */
    hrx_status_free(intact);
    status = hrx_dir_remove_all(dir, NULL);
  }
  if (status == HRX_OK) {
    status =
        hrx_bundle_extract_into(m, fd, archive_path, store, dir, allocator);
  }
  close(fd);
  return status;
}

hrx_status_t hrx_bundle_with_lock(const hrx_fabric_bundle_manifest_t* m,
                                  const char* cache_root,
                                  hrx_allocator_t allocator,
                                  hrx_bundle_locked_fn fn, void* context,
                                  char** out_dir) {
  if (out_dir) *out_dir = NULL;
  char *store = NULL, *dir = NULL;
  hrx_status_t status =
      hrx_bundle_entry_dir(m, cache_root, allocator, &store, &dir);
  if (status == HRX_OK) status = hrx_dir_create_all(store, 0755);
  hrx_file_lock_t lock = {.fd = -1};
  if (status == HRX_OK) {
    char path[4096];
    int n = snprintf(path, sizeof(path), "%s.lock", dir);
    status = n > 0 && (size_t)n < sizeof(path)
                 ? hrx_file_lock_acquire(path, HRX_LOCK_EXCLUSIVE, &lock)
                 : hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                                   "bundle path '%s' is too long", dir);
  }
  if (status == HRX_OK) status = fn(context, m, store, dir, allocator);
  hrx_file_lock_release(&lock);
  hrx_allocator_free(allocator, store);
  if (status != HRX_OK || !out_dir) {
    hrx_allocator_free(allocator, dir);
    return status;
  }
  *out_dir = dir;
  return HRX_OK;
}

static hrx_status_t hrx_bundle_install_file(
    void* context, const hrx_fabric_bundle_manifest_t* m, const char* store,
    const char* dir, hrx_allocator_t allocator) {
  return hrx_bundle_install_locked(m, (const char*)context, false, store, dir,
                                   allocator);
}

hrx_status_t hrx_fabric_bundle_install(const hrx_fabric_bundle_manifest_t* m,
                                       const char* archive_path,
                                       const char* cache_root,
                                       hrx_allocator_t allocator,
                                       char** out_dir) {
  return hrx_bundle_with_lock(m, cache_root, allocator,
                              hrx_bundle_install_file, (void*)archive_path,
                              out_dir);
}
