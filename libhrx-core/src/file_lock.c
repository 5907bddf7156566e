#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/core/file.h"

static hrx_status_t hrx_file_lock_take(const char* path, hrx_lock_mode_t mode,
                                       bool blocking,
                                       hrx_file_lock_t* out_lock) {
  out_lock->fd = -1;
  if (mode != HRX_LOCK_SHARED && mode != HRX_LOCK_EXCLUSIVE) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown lock mode %d", (int)mode);
  }
  int operation = (mode == HRX_LOCK_EXCLUSIVE ? LOCK_EX : LOCK_SH) |
                  (blocking ? 0 : LOCK_NB);
  /* A holder may unlink the lock file (hrx gc removes the locks of
   * entries it evicts). Whoever opened the old file before that and
   * locks it afterwards holds a lock nobody else can see, so a lock only
   * counts once the path still names the locked file; otherwise open the
   * new one and try again. */
  for (;;) {
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
      return hrx_status_from_errno(errno, errno == ELOOP
                                              ? "lock file '%s' is a symbolic "
                                                "link"
                                              : "cannot open lock file '%s'",
                                   path);
    }
    while (flock(fd, operation) != 0) {
      int error = errno;
      if (error == EINTR) continue;
      close(fd);
      if (error == EWOULDBLOCK) {
        return hrx_make_status(HRX_STATUS_BUSY, "'%s' is locked by another "
                               "holder", path);
      }
      return hrx_status_from_errno(error, "cannot lock '%s'", path);
    }
    struct stat held, named;
    if (fstat(fd, &held) != 0) {
      int error = errno;
      close(fd);
      return hrx_status_from_errno(error, "cannot stat lock file '%s'", path);
    }
    if (stat(path, &named) == 0 && named.st_ino == held.st_ino &&
        named.st_dev == held.st_dev) {
      out_lock->fd = fd;
      return HRX_OK;
    }
    close(fd);
  }
}

hrx_status_t hrx_file_lock_acquire(const char* path, hrx_lock_mode_t mode,
                                   hrx_file_lock_t* out_lock) {
  return hrx_file_lock_take(path, mode, true, out_lock);
}

hrx_status_t hrx_file_lock_try_acquire(const char* path, hrx_lock_mode_t mode,
                                       hrx_file_lock_t* out_lock) {
  return hrx_file_lock_take(path, mode, false, out_lock);
}

void hrx_file_lock_release(hrx_file_lock_t* lock) {
  if (!lock || lock->fd < 0) return;
  /* Closing the last descriptor of the description drops the lock. */
  close(lock->fd);
  lock->fd = -1;
}
