/* Files: directories with parents, recursive removal, atomic replacement, whole-file reads and
 * advisory locks.
 *
 * Locks are flock(2) locks on an open file description: they exclude other
 * processes and other hrx_file_lock_t objects in the same process, and they
 * vanish when the holder exits, so a crashed process never leaves a stale
 * lock. A holder may unlink the lock file before releasing it (to clean up
 * after the thing it guards): a lock is only granted on the file the path
 * names at that moment, so nobody ends up holding a lock on an unlinked
 * file. Lock files are never symbolic links. Every function is
 * thread-safe; a single hrx_file_lock_t is owned by one thread at a time.
 */
#ifndef HRX_CORE_FILE_H_
#define HRX_CORE_FILE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
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

/* Opens |path| read-only for reading its bytes, refusing anything that is
 * not a regular file with INVALID_ARGUMENT naming the kind found (FIFO,
 * character device, directory, ...). The open itself never blocks: a FIFO
 * with no writer would otherwise hang the caller forever. With
 * |follow_links| false a symbolic link at |path| is refused too (for paths
 * inside HRX's own stores, where nobody should have planted one). The
 * descriptor is close-on-exec, in blocking mode, and |*out_info| (may be
 * NULL) receives its fstat. */
HRX_API HRX_MUST_USE hrx_status_t hrx_file_open_regular(const char* path,
                                                        bool follow_links,
                                                        int* out_fd,
                                                        struct stat* out_info);

/* Names a file type for messages: "regular file", "FIFO", "directory"... */
HRX_API const char* hrx_file_kind_name(mode_t mode);

/* Writes |data| to a path a user chose for output (hrx -o and friends).
 * - missing or a regular file: replaced atomically, as
 *   hrx_file_write_atomic;
 * - a symbolic link: followed (to its final target, which the same rules
 *   then apply to); the link itself stays. A link to a missing file
 *   creates that file, as a shell's redirection would;
 * - a character device or a FIFO (/dev/null, /dev/stdout, a pipe): written
 *   in place, never replaced. A FIFO with no reader fails at once rather
 *   than blocking;
 * - a directory, socket or block device: refused with INVALID_ARGUMENT.
 * On failure whatever was at |path| before is left as it was (except a
 * device or FIFO, which may have received part of the data). */
HRX_API HRX_MUST_USE hrx_status_t hrx_file_write_output(const char* path,
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
