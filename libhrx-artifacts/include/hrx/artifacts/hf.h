/* Hugging Face Hub files through the cache layout huggingface_hub uses, so
 * HRX and Python tools share one cache.
 *
 * Layout under the cache directory:
 *   models--{org}--{name}/                (datasets--, spaces-- likewise)
 *     blobs/{etag}                        file contents, named by ETag
 *                                         (the SHA-256 of LFS files)
 *     blobs/{etag}.incomplete             a partial download, resumed later
 *     snapshots/{commit}/{filename}       relative symlink to ../../blobs/
 *     refs/{revision}                     the commit a branch or tag named
 *     .no_exist/{commit}/{filename}       empty: the hub has no such file
 *   .locks/models--{org}--{name}/{etag}.lock
 *
 * Cache directory: the option, else $HF_HUB_CACHE, else $HF_HOME/hub, else
 * $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
 *
 * Resolution checks the cache before any network use: a pinned commit, or
 * a ref whose commit is already in refs/, is answered from disk when the
 * snapshot holds the file. Otherwise, unless offline (the option, or
 * HF_HUB_OFFLINE set to 1/ON/YES/TRUE), the resolver asks the hub for the
 * file's commit and ETag, downloads the blob (resuming a partial one),
 * verifies it and publishes it atomically: blob first, then the snapshot
 * link, then the ref. A reader never sees a partial file under blobs/ or
 * snapshots/. The hub's "no such file" for a commit is recorded under
 * .no_exist/ and answers later lookups of that commit as NOT_FOUND with
 * no request, offline too. Concurrent resolvers, threads or processes, download a blob
 * once (a flock lock per blob).
 *
 * Verification: a blob whose ETag is a SHA-256 (every LFS file) must hash
 * to it; when the caller passes the expected SHA-256 the blob must match
 * that too, and a cache hit is re-hashed (a cost proportional to the file,
 * measured in bench/verify). Non-LFS files are named by their git SHA-1 and
 * are checked only against the caller's digest.
 *
 * The token (option, else $HF_TOKEN, else the file $HF_TOKEN_PATH or
 * $HF_HOME/token) is sent only to the endpoint's own host, never to the
 * storage host a download is redirected to.
 *
 * A resolver is immutable after creation: it may be shared by threads.
 */
#ifndef HRX_ARTIFACTS_HF_H_
#define HRX_ARTIFACTS_HF_H_

#include <stdbool.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hrx_hf_repo_type_e {
  HRX_HF_REPO_MODEL = 0,
  HRX_HF_REPO_DATASET,
  HRX_HF_REPO_SPACE,
} hrx_hf_repo_type_t;

typedef enum hrx_hf_progress_e {
  HRX_HF_PROGRESS_AUTO = 0, /* a bar when stderr is a terminal */
  HRX_HF_PROGRESS_BAR,      /* a bar on stderr */
  HRX_HF_PROGRESS_SILENT,
  HRX_HF_PROGRESS_CALLBACK, /* options.progress_fn */
} hrx_hf_progress_t;

/* Bytes of |filename| present so far (a resumed download starts above 0)
 * out of |total| (0 when unknown). Called on the resolving thread. */
typedef void (*hrx_hf_progress_fn_t)(void* user_data, const char* filename,
                                     uint64_t done, uint64_t total);

typedef struct hrx_hf_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  const char* cache_dir; /* NULL: the environment, see above */
  const char* endpoint;  /* NULL: $HF_ENDPOINT, else https://huggingface.co */
  const char* token;     /* NULL: the environment, see above */
  bool offline;          /* never use the network (HF_HUB_OFFLINE too) */
  /* Ask the hub where a branch or tag points now even when refs/ knows a
   * commit (a commit hash revision never needs to ask). */
  bool refresh_refs;
  hrx_hf_progress_t progress;
  hrx_hf_progress_fn_t progress_fn;
  void* progress_user_data;
  /* A try fails when fewer than min_bytes_per_second arrive, on average,
   * over a window of stall_timeout_ms (which also bounds connecting), so a
   * server trickling bytes cannot hold a download for ever. */
  uint32_t stall_timeout_ms;     /* 0: 30 s */
  uint32_t attempts;             /* 0: 3 tries, backing off 0.5 s, 1 s */
  uint32_t min_bytes_per_second; /* 0: 1 KiB/s */
  /* One hrx_hf_resolve, every request, retry and pause together, fails
   * with DEADLINE_EXCEEDED after this long; 0: no deadline. */
  uint64_t deadline_ms;
  /* The most bytes a file may bring when the hub announces no size; a
   * file whose size is announced (X-Linked-Size, Content-Length) stops as
   * soon as it passes that size. 0: 64 GiB. */
  uint64_t max_bytes;
} hrx_hf_options_t;

typedef struct hrx_hf_resolver_t hrx_hf_resolver_t;

/* |options| may be NULL. Reads the environment once, here. Nothing is
 * created on disk until a download. */
HRX_API HRX_MUST_USE hrx_status_t hrx_hf_resolver_create(
    const hrx_hf_options_t* options, hrx_allocator_t allocator,
    hrx_hf_resolver_t** out_resolver);
HRX_API void hrx_hf_resolver_destroy(hrx_hf_resolver_t* resolver);

/* The cache directory in use. */
HRX_API const char* hrx_hf_resolver_cache_dir(
    const hrx_hf_resolver_t* resolver);
/* Whether the resolver will refuse network use. */
HRX_API bool hrx_hf_resolver_offline(const hrx_hf_resolver_t* resolver);

typedef struct hrx_hf_file_t {
  hrx_hf_repo_type_t repo_type;
  const char* repo_id;  /* "org/name" or "name" */
  const char* revision; /* branch, tag or 40-hex commit; NULL: "main" */
  const char* filename; /* relative path inside the repository */
  /* Expected contents, or NULL. */
  const hrx_sha256_digest_t* sha256;
} hrx_hf_file_t;

/* A commit id: 40 lowercase hex digits and a NUL. */
typedef struct hrx_hf_commit_t {
  char hex[41];
} hrx_hf_commit_t;

/* The path of |file| in the cache (snapshots/{commit}/{filename}), owned
 * by the caller; |out_commit| (may be NULL) receives the commit.
 * Errors: INVALID_ARGUMENT for a malformed repo id, revision or filename;
 * UNAVAILABLE when offline (or built without downloads) and the cache
 * misses, naming the cache directory; NOT_FOUND when the hub has no such
 * repository, revision or file (or the cache recorded that it has no such
 * file); PERMISSION_DENIED when it wants a token;
 * DATA_LOSS when the bytes do not match their digest or exceed the
 * announced size (the partial file is discarded, not resumed); OUT_OF_RANGE
 * when a file of unannounced size passes max_bytes (discarded too);
 * DEADLINE_EXCEEDED when the transfer is too slow or the deadline passes. */
HRX_API HRX_MUST_USE hrx_status_t hrx_hf_resolve(
    const hrx_hf_resolver_t* resolver, const hrx_hf_file_t* file,
    hrx_allocator_t allocator, char** out_path, hrx_hf_commit_t* out_commit);

/* The folder name of a repository in the cache, e.g.
 * "models--org--name"; INVALID_ARGUMENT for a malformed repo id. */
HRX_API HRX_MUST_USE hrx_status_t hrx_hf_repo_folder(
    hrx_hf_repo_type_t repo_type, const char* repo_id,
    hrx_allocator_t allocator, char** out_folder);

#ifdef __cplusplus
}
#endif

#endif /* HRX_ARTIFACTS_HF_H_ */
