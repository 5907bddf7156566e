/* Private pieces of the Hugging Face resolver: the cache layout
 * (hf_cache.c), the hub protocol (hf_fetch.c) and the glue (hf_resolver.c).
 */
#ifndef HRX_ARTIFACTS_HF_INTERNAL_H_
#define HRX_ARTIFACTS_HF_INTERNAL_H_

#include <limits.h>

#include "hrx/artifacts/hf.h"

#define HRX_HF_COMMIT_LENGTH 40
#define HRX_HF_ETAG_MAX 128

struct hrx_hf_resolver_t {
  hrx_allocator_t allocator;
  char* cache_dir;
  char* endpoint; /* no trailing '/' */
  char* token;    /* NULL: anonymous */
  bool offline;
  bool refresh_refs;
  hrx_hf_progress_t progress;
  hrx_hf_progress_fn_t progress_fn;
  void* progress_user_data;
  uint32_t stall_timeout_ms;     /* never 0 */
  uint32_t attempts;             /* never 0 */
  uint32_t min_bytes_per_second; /* never 0 */
  uint64_t deadline_ms;          /* 0: none */
  uint64_t max_bytes;    /* never 0 */
};

/* Where one requested file lives in the cache. */
typedef struct hrx_hf_target_t {
  const hrx_hf_file_t* file;
  const char* revision;        /* file->revision or "main" */
  char folder[PATH_MAX];       /* models--org--name */
  char repo_dir[PATH_MAX];     /* <cache>/models--org--name */
  uint64_t deadline_ns;        /* monotonic; 0: none */
} hrx_hf_target_t;

/* What the hub said about a file. */
typedef struct hrx_hf_metadata_t {
  char commit[HRX_HF_COMMIT_LENGTH + 1];
  char etag[HRX_HF_ETAG_MAX + 1]; /* normalised: no W/, no quotes */
  uint64_t size;                  /* valid when size_known */
  bool size_known;
  char download_url[4096];
  /* The hub answered EntryNotFound and named the commit it looked in
   * (commit is set): the file is not in that commit. */
  bool entry_missing;
} hrx_hf_metadata_t;

/* snprintf into a PATH_MAX buffer; OUT_OF_RANGE when it does not fit. */
hrx_status_t hrx_hf_format_path(char* out, const char* format, ...)
    HRX_PRINTF(2, 3);

bool hrx_hf_is_commit(const char* text);
bool hrx_hf_is_sha256_hex(const char* text);
/* Checks the pieces of a request; INVALID_ARGUMENT naming what is wrong. */
hrx_status_t hrx_hf_target_init(const hrx_hf_resolver_t* r,
                                const hrx_hf_file_t* file,
                                hrx_hf_target_t* out_target);
/* An ETag usable as a file name, normalised into |out|; false otherwise. */
bool hrx_hf_etag_normalize(const char* raw, char out[HRX_HF_ETAG_MAX + 1]);

/* The commit |t|'s revision names locally (the revision itself when it is a
 * commit, else refs/<revision>); NOT_FOUND when unknown. */
hrx_status_t hrx_hf_cache_commit(const hrx_hf_target_t* t,
                                 char out_commit[HRX_HF_COMMIT_LENGTH + 1]);
/* snapshots/<commit>/<filename> into |out_path| when it resolves to a
 * regular file; NOT_FOUND otherwise. */
hrx_status_t hrx_hf_cache_snapshot(const hrx_hf_target_t* t,
                                   const char* commit, char* out_path);
/* Checks |path| against the caller's digest, if any. */
hrx_status_t hrx_hf_cache_verify(const hrx_hf_target_t* t, const char* path);
/* Links snapshots/<commit>/<filename> to blobs/<etag> (atomically replacing
 * whatever was there) and records the revision in refs/ unless it is the
 * commit itself. */
hrx_status_t hrx_hf_cache_publish(const hrx_hf_target_t* t,
                                  const hrx_hf_metadata_t* m, char* out_path);
/* Records refs/<revision> = |commit| (skipped for commit revisions). */
hrx_status_t hrx_hf_cache_write_ref(const hrx_hf_target_t* t,
                                    const char* commit);

/* Whether .no_exist/<commit>/<filename> records that the hub has no such
 * file in |commit|. */
bool hrx_hf_cache_no_exist(const hrx_hf_target_t* t, const char* commit);
/* Records that record (an empty file, as huggingface_hub writes) and the
 * revision's commit in refs/. */
hrx_status_t hrx_hf_cache_mark_missing(const hrx_hf_target_t* t,
                                       const char* commit);

/* Asks the hub for the commit, ETag, size and download location of |t|. */
hrx_status_t hrx_hf_fetch_metadata(const hrx_hf_resolver_t* r,
                                   const hrx_hf_target_t* t,
                                   hrx_hf_metadata_t* out_metadata);
/* Makes blobs/<etag> exist, downloading it (resuming a partial download)
 * under the blob's lock when it is missing. |out_downloaded| tells whether
 * this call downloaded it, and so verified it while it streamed. */
hrx_status_t hrx_hf_fetch_blob(const hrx_hf_resolver_t* r,
                               const hrx_hf_target_t* t,
                               const hrx_hf_metadata_t* m,
                               bool* out_downloaded);

#endif /* HRX_ARTIFACTS_HF_INTERNAL_H_ */
