/* Where HRX keeps its files, per the XDG Base Directory specification.
 *
 * Cache root: $XDG_CACHE_HOME/hrx when XDG_CACHE_HOME is set to an absolute
 * path; otherwise $HOME/.cache/hrx (a relative XDG_CACHE_HOME is ignored, as
 * the specification requires); when HOME is unset or relative too, the
 * password database's home directory.
 *
 * Runtime directory (per-user runtime files; HRX itself keeps none there
 * today: bundle installs lock inside the cache): $XDG_RUNTIME_DIR/hrx when
 * XDG_RUNTIME_DIR is absolute; otherwise the documented fallback
 * $TMPDIR/hrx-runtime-<uid> (TMPDIR only when absolute, else /tmp), which
 * hrx_path_ensure_private_dir() creates with mode 0700 and refuses to use
 * when another user owns it or others can write to it.
 *
 * These read the environment at each call and keep no state; they are
 * thread-safe as long as no thread modifies the environment concurrently.
 */
#ifndef HRX_CORE_PATHS_H_
#define HRX_CORE_PATHS_H_

#include "hrx/core/allocator.h"
#include "hrx/core/api.h"
#include "hrx/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a path came from, for diagnostics such as `hrx doctor`. */
typedef enum hrx_path_source_e {
  HRX_PATH_SOURCE_XDG = 0,      /* $XDG_CACHE_HOME / $XDG_RUNTIME_DIR */
  HRX_PATH_SOURCE_HOME,         /* $HOME/.cache */
  HRX_PATH_SOURCE_PASSWD,       /* home directory from the user database */
  HRX_PATH_SOURCE_TMP_FALLBACK, /* $TMPDIR or /tmp, per user */
} hrx_path_source_t;

HRX_API const char* hrx_path_source_string(hrx_path_source_t source);

/* The cache root as an owned string; NOT_FOUND when no home can be found.
 * |out_source| may be NULL. Nothing is created. */
HRX_API HRX_MUST_USE hrx_status_t hrx_path_cache_root(
    hrx_allocator_t allocator, char** out_path, hrx_path_source_t* out_source);

/* The runtime directory as an owned string. Nothing is created. */
HRX_API HRX_MUST_USE hrx_status_t hrx_path_runtime_dir(
    hrx_allocator_t allocator, char** out_path, hrx_path_source_t* out_source);

/* Joins |base| and |leaf| with exactly one '/' between them. */
HRX_API HRX_MUST_USE hrx_status_t hrx_path_join(hrx_allocator_t allocator,
                                                const char* base,
                                                const char* leaf,
                                                char** out_path);

/* The directory holding |path|: everything before its last '/', "/" for
 * a file in the root, "." for a bare name. */
HRX_API HRX_MUST_USE hrx_status_t hrx_path_parent(hrx_allocator_t allocator,
                                                  const char* path,
                                                  char** out_parent);

/* Creates |path| (and parents) with mode 0700 if missing, then checks that
 * it is a directory owned by the calling user and not writable by group or
 * others; PERMISSION_DENIED otherwise. Used for runtime directories. */
HRX_API HRX_MUST_USE hrx_status_t hrx_path_ensure_private_dir(
    const char* path);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_PATHS_H_ */
