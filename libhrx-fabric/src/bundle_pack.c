/* Packing a directory into a reproducible bundle archive. */
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle_internal.h"

typedef struct hrx_bundle_walk_t {
  hrx_allocator_t allocator;
  const char* root;
  /* The outputs, by identity: an archive written into DIR by an earlier
   * pack must not be packed into the next one. */
  struct stat excluded[2];
  size_t excluded_count;
  char** names;
  size_t count, capacity;
} hrx_bundle_walk_t;

/* Leaves the file at |path| (through links; may be NULL or missing) out
 * of the walk. */
static void hrx_bundle_exclude(hrx_bundle_walk_t* w, const char* path) {
  struct stat info;
  if (path && stat(path, &info) == 0 && !S_ISDIR(info.st_mode)) {
    w->excluded[w->excluded_count++] = info;
  }
}

static bool hrx_bundle_excluded(const hrx_bundle_walk_t* w,
                                const struct stat* info) {
  for (size_t i = 0; i < w->excluded_count; ++i) {
    if (w->excluded[i].st_dev == info->st_dev &&
        w->excluded[i].st_ino == info->st_ino) {
      return true;
    }
  }
  return false;
}

/* Collects the regular files below |relative| ("" for the root). */
static hrx_status_t hrx_bundle_walk(hrx_bundle_walk_t* w,
                                    const char* relative, int depth) {
  if (depth > 16) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "'%s' is nested too deeply", relative);
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s%s%s", w->root, relative[0] ? "/" : "",
           relative);
  DIR* dir = opendir(path);
  if (!dir) return hrx_status_from_errno(errno, "cannot read '%s'", path);
  hrx_status_t status = HRX_OK;
  for (struct dirent* e; status == HRX_OK && (e = readdir(dir));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char name[4096];
    snprintf(name, sizeof(name), "%s%s%s", relative, relative[0] ? "/" : "",
             e->d_name);
    char full[8192];
    snprintf(full, sizeof(full), "%s/%s", w->root, name);
    struct stat info;
    if (lstat(full, &info) != 0) {
      status = hrx_status_from_errno(errno, "cannot stat '%s'", full);
    } else if (S_ISDIR(info.st_mode)) {
      status = hrx_bundle_walk(w, name, depth + 1);
    } else if (hrx_bundle_excluded(w, &info)) {
      continue;
    } else if (!S_ISREG(info.st_mode)) {
      status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "'%s' is not a regular file or directory; "
                               "bundles hold only those",
                               full);
    } else {
      status = hrx_allocator_grow_array(w->allocator, sizeof(char*),
                                        w->count + 1, &w->capacity,
                                        (void**)&w->names);
      if (status == HRX_OK) {
        status = hrx_allocator_strdup(w->allocator, name,
                                      &w->names[w->count]);
      }
      if (status == HRX_OK) w->count++;
    }
  }
  closedir(dir);
  return status;
}

static int hrx_bundle_compare_names(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

/* Streams |path| into the archive as entry |name|, hashing it. */
static hrx_status_t hrx_bundle_add_file(struct archive* writer,
                                        const char* path, const char* name,
                                        hrx_sha256_digest_t* out) {
  /* The walk saw a regular file; whatever replaced it since (a link, a
   * FIFO) is refused, never followed or waited on. */
  int fd = -1;
  struct stat info;
  HRX_RETURN_IF_ERROR(hrx_file_open_regular(path, false, &fd, &info));
  struct archive_entry* entry = archive_entry_new();
  archive_entry_set_pathname(entry, name);
  archive_entry_set_filetype(entry, AE_IFREG);
  archive_entry_set_perm(entry, (info.st_mode & 0111) ? 0755 : 0644);
  archive_entry_set_size(entry, info.st_size);
  archive_entry_set_mtime(entry, 0, 0);
  archive_entry_set_uid(entry, 0);
  archive_entry_set_gid(entry, 0);
  hrx_status_t status = HRX_OK;
  if (archive_write_header(writer, entry) != ARCHIVE_OK) {
    status = hrx_make_status(HRX_STATUS_INTERNAL, "cannot add '%s': %s", name,
                             archive_error_string(writer));
  }
  archive_entry_free(entry);
  hrx_sha256_t hash;
  hrx_sha256_init(&hash);
  uint8_t buffer[1 << 16];
  off_t remaining = info.st_size;
  while (status == HRX_OK && remaining > 0) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      status = n == 0 ? hrx_make_status(HRX_STATUS_DATA_LOSS,
                                        "'%s' shrank while being packed",
                                        path)
                      : hrx_status_from_errno(errno, "cannot read '%s'", path);
      break;
    }
    if (n > remaining) n = (ssize_t)remaining; /* grew meanwhile */
    hrx_sha256_update(&hash, buffer, (size_t)n);
    if (archive_write_data(writer, buffer, (size_t)n) != n) {
      status = hrx_make_status(HRX_STATUS_INTERNAL, "cannot write '%s': %s",
                               name, archive_error_string(writer));
    }
    remaining -= n;
  }
  close(fd);
  hrx_sha256_final(&hash, out);
  return status;
}

/* libarchive's output: the archive grows in memory and is hashed as it
 * does. */
typedef struct hrx_bundle_output_t {
  hrx_string_builder_t bytes;
  hrx_sha256_t hash;
} hrx_bundle_output_t;

static la_ssize_t hrx_bundle_output_write(struct archive* writer,
                                          void* context, const void* data,
                                          size_t length) {
  hrx_bundle_output_t* out = context;
  hrx_status_t status = hrx_string_builder_append(&out->bytes, data, length);
  if (status != HRX_OK) {
    archive_set_error(writer, ENOMEM, "%s", hrx_status_message(status));
    hrx_status_free(status);
    return -1;
  }
  hrx_sha256_update(&out->hash, data, length);
  return (la_ssize_t)length;
}

static hrx_status_t hrx_bundle_write_archive(hrx_bundle_walk_t* w,
                                             hrx_bundle_output_t* out,
                                             hrx_fabric_bundle_file_t* files) {
  struct archive* writer = archive_write_new();
  if (!writer) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED, "no memory");
  }
  hrx_status_t status = HRX_OK;
  /* No padding after the last block: the archive ends where its data
   * does, as archive_write_open_filename writes a regular file. */
  if (archive_write_set_format_ustar(writer) != ARCHIVE_OK ||
      archive_write_add_filter_zstd(writer) != ARCHIVE_OK ||
      archive_write_set_bytes_in_last_block(writer, 1) != ARCHIVE_OK ||
      archive_write_open2(writer, out, NULL, hrx_bundle_output_write, NULL,
                          NULL) != ARCHIVE_OK) {
    status = hrx_make_status(HRX_STATUS_INTERNAL, "cannot start an archive: %s",
                             archive_error_string(writer));
  }
  for (size_t i = 0; i < w->count && status == HRX_OK; ++i) {
    char path[8192];
    snprintf(path, sizeof(path), "%s/%s", w->root, w->names[i]);
    status = hrx_bundle_add_file(writer, path, w->names[i], &files[i].sha256);
  }
  if (archive_write_close(writer) != ARCHIVE_OK && status == HRX_OK) {
    status = hrx_make_status(HRX_STATUS_INTERNAL, "cannot finish the archive: %s",
                             archive_error_string(writer));
  }
  archive_write_free(writer);
  return status;
}

/* What we write must read back: names and fields go through the manifest
 * parser's checks. */
static hrx_status_t hrx_bundle_check_manifest(
    const hrx_fabric_bundle_manifest_t* m, const char* dir,
    hrx_allocator_t allocator) {
  hrx_string_builder_t text;
  hrx_string_builder_init(allocator, &text);
  hrx_status_t status = hrx_fabric_bundle_manifest_format(m, &text);
  hrx_fabric_bundle_manifest_t* check = NULL;
  if (status == HRX_OK) {
    status = hrx_fabric_bundle_manifest_parse(hrx_string_builder_cstr(&text),
                                              text.length, dir, allocator,
                                              &check);
  }
  hrx_fabric_bundle_manifest_destroy(check);
  hrx_string_builder_deinit(&text);
  return status;
}

/* The manifest of the archive in |out|, taking the walk's names. */
static hrx_status_t hrx_bundle_fill_manifest(
    const hrx_fabric_bundle_pack_options_t* options, hrx_bundle_walk_t* w,
    hrx_bundle_output_t* out, hrx_fabric_bundle_manifest_t* m) {
  for (size_t i = 0; i < w->count; ++i) {
    m->files[i].name = w->names[i];
    w->names[i] = NULL;
  }
  m->file_count = w->count;
  m->size = out->bytes.length;
  hrx_sha256_final(&out->hash, &m->archive_sha256);
  HRX_RETURN_IF_ERROR(
      hrx_allocator_strdup(m->allocator, options->target, &m->target));
  HRX_RETURN_IF_ERROR(hrx_allocator_strdup(m->allocator, options->url, &m->url));
  return hrx_allocator_strdup(
      m->allocator, options->revision ? options->revision : "unversioned",
      &m->revision);
}

hrx_status_t hrx_fabric_bundle_pack(
    const char* dir, const hrx_fabric_bundle_pack_options_t* caller_options,
    const char* archive_path, hrx_allocator_t allocator,
    hrx_fabric_bundle_manifest_t** out_manifest) {
  *out_manifest = NULL;
  hrx_fabric_bundle_pack_options_t local_options;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_fabric_bundle_pack_options_t,
                                      manifest_path, caller_options,
                                      &local_options));
  const hrx_fabric_bundle_pack_options_t* options = &local_options;
  if (!dir || !archive_path || !options->target ||
      !options->target[0] || !options->url || !options->url[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "packing needs a directory, an output, a target "
                           "and a url");
  }
  HRX_RETURN_IF_ERROR(hrx_bundle_check_url(options->url, "packing"));
  hrx_bundle_walk_t walk = {.allocator = allocator, .root = dir};
  hrx_bundle_exclude(&walk, archive_path);
  hrx_bundle_exclude(&walk, options->manifest_path);
  hrx_status_t status = hrx_bundle_walk(&walk, "", 0);
  if (status == HRX_OK && walk.count) {
    qsort(walk.names, walk.count, sizeof(char*), hrx_bundle_compare_names);
  }
  hrx_fabric_bundle_manifest_t* m = NULL;
  if (status == HRX_OK) {
    status = hrx_allocator_malloc(allocator, sizeof(*m), (void**)&m);
  }
  if (status == HRX_OK) {
    m->allocator = allocator;
    m->schema = HRX_FABRIC_BUNDLE_SCHEMA;
    status = hrx_allocator_malloc_array(allocator, walk.count + 1,
                                        sizeof(*m->files), (void**)&m->files);
  }
  hrx_bundle_output_t out;
  hrx_string_builder_init(allocator, &out.bytes);
  hrx_sha256_init(&out.hash);
  if (status == HRX_OK) status = hrx_bundle_write_archive(&walk, &out, m->files);
  if (status == HRX_OK) {
    status = hrx_bundle_fill_manifest(options, &walk, &out, m);
  }
  if (status == HRX_OK) status = hrx_bundle_check_manifest(m, dir, allocator);
  /* Only a whole archive reaches the output, which is replaced atomically
   * (or written in place when it is a device or FIFO). */
  if (status == HRX_OK) {
    status = hrx_file_write_output(
        archive_path, hrx_string_builder_cstr(&out.bytes), out.bytes.length,
        0644);
  }
  hrx_string_builder_deinit(&out.bytes);
  for (size_t i = 0; i < walk.count; ++i) {
    hrx_allocator_free(allocator, walk.names[i]);
  }
  hrx_allocator_free(allocator, walk.names);
  if (status != HRX_OK) {
    hrx_fabric_bundle_manifest_destroy(m);
    return status;
  }
  *out_manifest = m;
  return HRX_OK;
}
