/* Files: directories with parents, recursive removal, atomic replacement, whole-file reads and
 * advisory locks.
 *
 * Locks are flock(2) locks on an open file description: they exclude other
 * processes and other hrx_file_lock_t objects in the same process, and they
 * vanish when the holder exits, so a crashed process never leaves a stale
 * lock. Every function is thread-safe; a single hrx_file_lock_t is owned by
 * one thread at a time.
 */
#ifndef HRX_CORE_FILE_H_
#define HRX_CORE_FILE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hrx/core/allocator.h"
#include "hrx/core/api.h"
#include "hrx/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Creates |path| and any missing parents with |mode|. An existing directory
 * is success; an existing non-directory is ALREADY_EXISTS. */
HRX_API HRX_MUST_USE hrx_status_t hrx_dir_create_all(const char* path,
                                                     mode_t mode);

/* Removes directory |path| and everything below it. Symbolic links are
 * removed, not followed; |path| itself must not be one. A missing |path| is
 * success, as are entries that vanish meanwhile (another process removing
 * the same tree). |out_bytes| (may be NULL) receives the size of the
 * regular files removed. Stops at the first entry it cannot remove. */
HRX_API HRX_MUST_USE hrx_status_t hrx_dir_remove_all(const char* path,
                                                     uint64_t* out_bytes);

/* Writes all |length| bytes of |data| to |fd|, going on after short writes
 * and EINTR; the error names |name| (the file behind |fd|). */
HRX_API HRX_MUST_USE hrx_status_t hrx_fd_write_all(int fd, const void* data,
                                                   size_t length,
                                                   const char* name);

/* Replaces |path| with |data| atomically: readers see the old contents or
 * the new, never a torn file. Writes a temporary file in the same
 * directory, fsyncs it, renames it over |path| and fsyncs the directory.
 * The temporary is removed on any failure. */
HRX_API HRX_MUST_USE hrx_status_t hrx_file_write_atomic(const char* path,
                                                        const void* data,
                                                        size_t length,
                                                        mode_t mode);

/* Reads a whole regular file into a new allocation (NUL-terminated for
 * convenience; the NUL is not counted in |out_length|). Files larger than
 * |max_bytes| fail with OUT_OF_RANGE before anything is read. */
HRX_API HRX_MUST_USE hrx_status_t hrx_file_read_all(hrx_allocator_t allocator,
                                                    const char* path,
                                                    size_t max_bytes,
                                                    void** out_data,
                                                    size_t* out_length);

typedef enum hrx_lock_mode_e {
  HRX_LOCK_SHARED = 0,
  HRX_LOCK_EXCLUSIVE = 1,
} hrx_lock_mode_t;

typedef struct hrx_file_lock_t {
  int fd; /* -1 when not held */
} hrx_file_lock_t;

/* Opens (creating, mode 0600) |path| and blocks until the lock is held. */
HRX_API HRX_MUST_USE hrx_status_t hrx_file_lock_acquire(
    const char* path, hrx_lock_mode_t mode, hrx_file_lock_t* out_lock);

/* As acquire, but fails with BUSY at once when another holder conflicts. */
HRX_API HRX_MUST_USE hrx_status_t hrx_file_lock_try_acquire(
    const char* path, hrx_lock_mode_t mode, hrx_file_lock_t* out_lock);

/* Releases a held lock; a lock that is not held is ignored. */
HRX_API void hrx_file_lock_release(hrx_file_lock_t* lock);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_FILE_H_ */
