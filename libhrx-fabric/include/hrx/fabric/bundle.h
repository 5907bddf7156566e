/* Native bundles: one pinned archive of artifacts a build cannot produce on
 * every machine (precompiled code objects, NPU programs).
 *
 * A manifest (bundle.json) pins the archive by SHA-256 and lists every
 * file in it with its own SHA-256:
 *
 *   {"schema": 1, "target": "gfx1151", "revision": "r1",
 *    "url": "https://...", "archive_sha256": "<64 hex>",
 *    "files": {"kernels/a.hsaco": "<64 hex>", ...}}
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
 * fifos), absolute paths, "..", duplicates and files the manifest does not
 * list are refused. A per-archive lock makes concurrent installs do the
 * work once. Every function is thread-safe.
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
  hrx_fabric_bundle_file_t* files; /* sorted by name */
  size_t file_count;
  /* The directory of the file it was loaded from, which a relative url is
   * relative to; NULL for a manifest parsed from memory or packed. */
  char* source_dir;
} hrx_fabric_bundle_manifest_t;

/* Parses a manifest. INVALID_ARGUMENT names the problem: bad JSON (with
 * line and column), an unknown schema, a missing or mistyped field, a url
 * of another scheme, bad hex, a duplicate or unsafe file name.
 * |source_name| labels messages. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_manifest_parse(
    const char* json, size_t length, const char* source_name,
    hrx_allocator_t allocator, hrx_fabric_bundle_manifest_t** out_manifest);

/* Reads and parses the manifest at |path|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_manifest_load(
    const char* path, hrx_allocator_t allocator,
    hrx_fabric_bundle_manifest_t** out_manifest);

/* The path of the pinned manifest: $HRX_BUNDLE_JSON when set, else the one
 * installed with the library. Owned by the caller. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_manifest_path(
    hrx_allocator_t allocator, char** out_path);

/* Loads the pinned manifest. When none was chosen and the installed one
 * is missing (HRX run from a build tree), NOT_FOUND says how to name one
 * with HRX_BUNDLE_JSON. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_manifest_load_pinned(
    hrx_allocator_t allocator, hrx_fabric_bundle_manifest_t** out_manifest);

HRX_API void hrx_fabric_bundle_manifest_destroy(
    hrx_fabric_bundle_manifest_t* manifest);

/* Canonical JSON (sorted files, two-space indent, trailing newline). */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_manifest_format(
    const hrx_fabric_bundle_manifest_t* manifest, hrx_string_builder_t* out);

/* <cache root>/bundles, or under |cache_root| when not NULL. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_store_dir(
    const char* cache_root, hrx_allocator_t allocator, char** out_dir);

/* Installs |archive_path| as the bundle |manifest| pins, unless it is
 * already installed and intact. |out_dir| (may be NULL) receives the
 * bundle's directory. DATA_LOSS for an archive or file whose SHA-256
 * differs; INVALID_ARGUMENT for a refused entry (named). */
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
  /* Never touch the network (also when HRX_OFFLINE is set). */
  bool offline;
  hrx_fabric_bundle_progress_t progress;
  /* A transfer that moves no byte for this long fails (and is retried);
   * 0 selects 30 s. Connecting has the same limit. */
  uint32_t stall_timeout_ms;
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
 * differs is downloaded whole once more before DATA_LOSS. UNAVAILABLE when offline (the message says how to install from a
 * file) or when this build has no download support; DATA_LOSS for a
 * download whose digest differs; DEADLINE_EXCEEDED or UNAVAILABLE for a
 * transfer that kept failing. |options| may be NULL. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_provision(
    const hrx_fabric_bundle_manifest_t* manifest, const char* cache_root,
    const hrx_fabric_bundle_fetch_options_t* options,
    hrx_allocator_t allocator, char** out_dir);

typedef struct hrx_fabric_bundle_pack_options_t {
  const char* target;
  const char* url;
  const char* revision; /* NULL: "unversioned" */
} hrx_fabric_bundle_pack_options_t;

/* Packs the regular files under |dir| into a reproducible tar.zst at
 * |archive_path| (entries sorted by name, mtime 0, owner 0:0, mode 0644 or
 * 0755 when executable) and returns the manifest pinning it. Links and
 * special files are refused. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_bundle_pack(
    const char* dir, const hrx_fabric_bundle_pack_options_t* options,
    const char* archive_path, hrx_allocator_t allocator,
    hrx_fabric_bundle_manifest_t** out_manifest);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_BUNDLE_H_ */
