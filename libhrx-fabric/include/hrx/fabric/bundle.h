/* Native bundles: one pinned archive of artifacts a build cannot produce on
 * every machine (precompiled code objects, NPU programs).
 *
 * A manifest (bundle.json) pins the archive by SHA-256 and lists every
 * file in it with its own SHA-256:
 *
 *   {"schema": 1, "target": "gfx1151", "revision": "r1",
 *    "url": "https://...", "archive_sha256": "<64 hex>", "size": 123456,
 *    "files": {"kernels/a.hsaco": "<64 hex>", ...}}
 *
 * "size" is the archive's length in bytes. hrx pack always writes it; it
 * is optional so that manifests written before it existed still load. A
 * download stops as soon as it brings more bytes than the size pins (and
 * a local archive of another size is refused before it is read); without
 * it a download is capped by hrx_fabric_bundle_fetch_options_t.max_bytes.
 *
 * The url says where the archive comes from: an https:// (or http://) URL
 * that provisioning downloads, or a local archive, as a file:///absolute
 * path or a path relative to the directory of the bundle.json naming it
 * (a package installs the archive beside its bundle.json). A local archive
 * is installed without the network, also offline and in builds without
 * download support.
 *
 * Installing verifies the archive while reading it, extracts it (tar with
 * zstd or gzip compression) into a private temporary directory under
 * <cache root>/bundles/, verifies every file, and renames the directory to
 * bundles/<archive_sha256>/: a bundle is either fully there or absent.
 * Entries other than regular files and directories (links, devices,
 * fifos), sparse files (whose written bytes would not be the hashed
 * stream), absolute paths, "..", duplicates and files the manifest does
 * not list are refused. Archives, and the files of installed bundles, are
 * opened only when they are regular files: a FIFO or a device (/dev/zero)
 * is refused rather than read forever. Names from archives and manifests
 * appear in messages with control characters escaped. A per-archive lock
 * makes concurrent installs do the work once. Every function is
 * thread-safe.
 */
#ifndef HRX_FABRIC_BUNDLE_H_
#define HRX_FABRIC_BUNDLE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_FABRIC_BUNDLE_SCHEMA 1

typedef struct hrx_fabric_bundle_file_t {
  char* name; /* relative path inside the archive */
  hrx_sha256_digest_t sha256;
} hrx_fabric_bundle_file_t;

typedef struct hrx_fabric_bundle_manifest_t {
  hrx_allocator_t allocator;
  uint32_t schema;
  char* target;
  char* revision;
  char* url;
  hrx_sha256_digest_t archive_sha256;
  uint64_t size; /* the archive's bytes; 0 when bundle.json does not say */
  hrx_fabric_bundle_file_t* files; /* sorted by name */
  size_t file_count;
  /* The directory of the file it was loaded from, which a relative url is
   * relative to; NULL for a manifest parsed from memory or packed. */
  char* source_dir;
} hrx_fabric_bundle_manifest_t;

/* Parses a manifest. INVALID_ARGUMENT names the problem: bad JSON (with
 * line and column), an unknown schema, a missing or mistyped field, a url
 * of another scheme, bad hex, a size that is not a positive integer, a
 * duplicate or unsafe file name, a name that is both a file and a
 * directory.
 * |source_name| labels messages. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_manifest_parse(
    const char* json, size_t length, const char* source_name,
    hrx_allocator_t allocator, hrx_fabric_bundle_manifest_t** out_manifest);

/* Reads and parses the manifest at |path|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_manifest_load(
    const char* path, hrx_allocator_t allocator,
    hrx_fabric_bundle_manifest_t** out_manifest);

/* The path of the pinned manifest: $HRX_BUNDLE_JSON when set, else the one
 * installed with the library: beside the loaded shared library (datadir
 * relative to libdir, so a moved install finds its own), else under the
 * configured prefix. Owned by the caller. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_manifest_path(
    hrx_allocator_t allocator, char** out_path);

/* Loads the pinned manifest. When none was chosen and the installed one
 * is missing (HRX run from a build tree), NOT_FOUND says how to name one
 * with HRX_BUNDLE_JSON. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_manifest_load_pinned(
    hrx_allocator_t allocator, hrx_fabric_bundle_manifest_t** out_manifest);

HRX_API void hrx_fabric_bundle_manifest_destroy(
    hrx_fabric_bundle_manifest_t* manifest);

/* Canonical JSON (sorted files, two-space indent, trailing newline; "size"
 * only when known). */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_manifest_format(
    const hrx_fabric_bundle_manifest_t* manifest, hrx_string_builder_t* out);

/* <cache root>/bundles, or under |cache_root| when not NULL. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_store_dir(
    const char* cache_root, hrx_allocator_t allocator, char** out_dir);

/* Installs |archive_path| as the bundle |manifest| pins, unless it is
 * already installed and intact. |out_dir| (may be NULL) receives the
 * bundle's directory. The archive is opened once, checked (size, SHA-256)
 * and extracted from the same open file. DATA_LOSS for an archive or file
 * whose size or SHA-256 differs; INVALID_ARGUMENT for an archive that is
 * not a regular file or a refused entry (named). A failed write names its
 * real cause (ENOSPC, EFBIG, ...). */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_install(
    const hrx_fabric_bundle_manifest_t* manifest, const char* archive_path,
    const char* cache_root, hrx_allocator_t allocator, char** out_dir);

/* The installed bundle's directory after re-verifying every file.
 * NOT_FOUND when not installed, DATA_LOSS when a file changed. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_locate(
    const hrx_fabric_bundle_manifest_t* manifest, const char* cache_root,
    hrx_allocator_t allocator, char** out_dir);

typedef enum hrx_fabric_bundle_progress_e {
  HRX_FABRIC_BUNDLE_PROGRESS_AUTO = 0, /* a bar when stderr is a terminal */
  HRX_FABRIC_BUNDLE_PROGRESS_QUIET,
  HRX_FABRIC_BUNDLE_PROGRESS_BAR,
} hrx_fabric_bundle_progress_t;

typedef struct hrx_fabric_bundle_fetch_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  /* Never touch the network (also when HRX_OFFLINE is set). */
  bool offline;
  hrx_fabric_bundle_progress_t progress;
  /* The throughput window: a try that moves fewer than min_bytes_per_second
   * on average over any window this long has stalled and fails (and is
   * retried); a server trickling a byte a second cannot hold a download.
   * 0 selects 30 s. Connecting has the same limit. */
  uint32_t stall_timeout_ms;
  /* 0 selects 1024 (1 KiB/s). */
  uint32_t min_bytes_per_second;
  /* The whole download, all tries and the pauses between them, fails with
   * DEADLINE_EXCEEDED after this long; 0 means no deadline beyond the
   * throughput window. */
  uint64_t deadline_ms;
  /* The most bytes a download of an archive whose bundle.json has no
   * "size" may bring; 0 selects 4 GiB. */
  uint64_t max_bytes;
  /* Tries per download, with 0.5 s, 1 s, 2 s ... between them; 0 = 3. */
  uint32_t attempts;
} hrx_fabric_bundle_fetch_options_t;

/* The installed bundle's directory, installing it first from a local
 * archive (see url above), or downloading |manifest|'s url when it is
 * missing or damaged and downloads are allowed. The download is verified against archive_sha256 as it streams
 * (TLS peers are verified, at most 5 redirects are followed, HTTP errors
 * fail) into a private file under the store, then installed as by
 * hrx_fabric_bundle_install. Concurrent callers, in any process, download
 * once. A broken transfer is kept as bundles/<archive_sha256>.partial and
 * the next try, in this call or a later one, asks only for the rest (an
 * HTTP Range request); a server that ignores, misplaces or refuses the
 * range gets the whole archive again, and a resumed download whose digest
 * differs is downloaded whole once more before DATA_LOSS. UNAVAILABLE
 * when offline (the message says how to install from a file) or when this
 * build has no download support; DATA_LOSS for a download whose digest
 * differs or that brings more bytes than "size" pins; RESOURCE_EXHAUSTED
 * for one past max_bytes (neither is retried); DEADLINE_EXCEEDED for a
 * stalled transfer or a passed deadline, UNAVAILABLE for a transfer that
 * kept failing. |options| may be NULL. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_provision(
    const hrx_fabric_bundle_manifest_t* manifest, const char* cache_root,
    const hrx_fabric_bundle_fetch_options_t* options,
    hrx_allocator_t allocator, char** out_dir);

typedef struct hrx_fabric_bundle_pack_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  const char* target;
  const char* url;
  const char* revision; /* NULL: "unversioned" */
  /* Where the caller will write the manifest (may be NULL): never packed,
   * like |archive_path|, even when it lies inside |dir|. */
  const char* manifest_path;
} hrx_fabric_bundle_pack_options_t;

/* Packs the regular files under |dir| into a reproducible tar.zst at
 * |archive_path| (entries sorted by name, mtime 0, owner 0:0, mode 0644 or
 * 0755 when executable) and returns the manifest pinning it, with its
 * size. Links and special files are refused; the files at |archive_path|
 * and options->manifest_path (the same files through any link) are left
 * out, so packing into DIR never packs an earlier output.
 *
 * |archive_path| is a path the user chose, written by the rules of
 * hrx_file_write_output: a regular file (or nothing) there is replaced
 * atomically once the whole archive is built, so a failed pack leaves it
 * as it was; a symbolic link is followed and stays; a FIFO or character
 * device (/dev/null) is written in place; a directory is refused. The
 * archive is built in memory for that. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_pack(
    const char* dir, const hrx_fabric_bundle_pack_options_t* options,
    const char* archive_path, hrx_allocator_t allocator,
    hrx_fabric_bundle_manifest_t** out_manifest);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_BUNDLE_H_ */
