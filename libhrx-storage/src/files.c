/* Registered files: the session's fixed-file table. */
#include <errno.h>
#include <fcntl.h>

#include "session_internal.h"

/* The direct-I/O alignment of |fd| from statx; UNIMPLEMENTED when the
 * filesystem does not report one, because guessing would turn into EINVAL
 * on the first read. */
static hrx_status_t direct_alignment(hrx_storage_session_t* session, int fd,
                                     uint32_t* out_alignment) {
  struct statx info = {0};
  int rc = session->sys.statx(session->sys.context, fd, STATX_DIOALIGN,
                              &info);
  if (rc < 0) {
    return hrx_status_from_errno(-rc, "statx(STATX_DIOALIGN) on fd %d", fd);
  }
  if (!(info.stx_mask & STATX_DIOALIGN) || info.stx_dio_offset_align == 0 ||
      info.stx_dio_mem_align == 0) {
    return hrx_make_status(
        HRX_STATUS_UNIMPLEMENTED,
        "direct I/O is not supported for fd %d: statx reports no "
        "STATX_DIOALIGN alignment (tmpfs and some filesystems have none); "
        "use HRX_STORAGE_IO_BUFFERED",
        fd);
  }
  if (info.stx_dio_mem_align > HRX_STORAGE_PAGE_BYTES ||
      info.stx_dio_offset_align > session->pool.slot_bytes) {
    return hrx_make_status(
        HRX_STATUS_UNIMPLEMENTED,
        "direct I/O on fd %d needs memory alignment %u and offset alignment "
        "%u, beyond page-aligned slots of %llu bytes",
        fd, info.stx_dio_mem_align, info.stx_dio_offset_align,
        (unsigned long long)session->pool.slot_bytes);
  }
  *out_alignment = info.stx_dio_offset_align;
  return HRX_OK;
}

/* Checks |fd| and puts it in the next table entry (lock held). A
 * |borrowed| descriptor is duplicated first: the session needs one of its
 * own for as long as the file is registered (statx at load time), whatever
 * the caller does with theirs. */
static hrx_status_t register_fd(hrx_storage_session_t* session, int fd,
                                bool borrowed, uint32_t* out_file) {
  if (session->failure) {
    return hrx_storage_session_failure_copy(session);
  }
  if (session->file_count == session->options.file_capacity) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "all %u registered file entries are in use",
                           session->options.file_capacity);
  }
  int flags = session->sys.get_flags(session->sys.context, fd);
  if (flags == -EBADF) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "fd %d is not an open file descriptor", fd);
  }
  if (flags < 0) {
    return hrx_status_from_errno(-flags, "fcntl(F_GETFL) on fd %d", fd);
  }
  if ((flags & O_ACCMODE) == O_WRONLY) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "fd %d is open for writing only", fd);
  }
  uint32_t alignment = 1;
  if (session->options.io_mode == HRX_STORAGE_IO_DIRECT) {
    if (!(flags & O_DIRECT)) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "a DIRECT session needs fd %d opened with "
                             "O_DIRECT",
                             fd);
    }
    HRX_RETURN_IF_ERROR(direct_alignment(session, fd, &alignment));
  }
  int own = fd;
  if (borrowed) {
    own = session->sys.duplicate(session->sys.context, fd);
    if (own < 0) {
      return hrx_status_from_errno(-own, "duplicating fd %d", fd);
    }
  }
  int rc = session->sys.register_files_update(
      session->sys.context, &session->ring, session->file_count, &own, 1);
  if (rc < 0) {
    if (borrowed) {
      (void)session->sys.close(session->sys.context, own);
    }
    return hrx_status_from_errno(-rc, "registering fd %d as file %u", fd,
                                 session->file_count);
  }
  session->files[session->file_count] = (hrx_storage_file_t){
      .fd = own,
      .alignment = alignment,
      .writable = (flags & O_ACCMODE) == O_RDWR};
  *out_file = session->file_count++;
  return HRX_OK;
}

hrx_status_t hrx_storage_session_add_fd(hrx_storage_session_t* session,
                                        int fd, uint32_t* out_file) {
  *out_file = 0;
  pthread_mutex_lock(&session->mutex);
  hrx_status_t status = register_fd(session, fd, true, out_file);
  pthread_mutex_unlock(&session->mutex);
  return status;
}

/* Opens |path| with |access| (O_RDONLY or O_RDWR) and registers it. */
static hrx_status_t open_path(hrx_storage_session_t* session, const char* path,
                              int access, uint32_t* out_file) {
  *out_file = 0;
  bool direct = session->options.io_mode == HRX_STORAGE_IO_DIRECT;
  int fd = session->sys.open(session->sys.context, path,
                             access | O_CLOEXEC | (direct ? O_DIRECT : 0));
  if (fd == -EINVAL && direct) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "%s: the filesystem refuses O_DIRECT; use "
                           "HRX_STORAGE_IO_BUFFERED",
                           path);
  }
  if (fd < 0) {
    return hrx_status_from_errno(-fd, "opening %s", path);
  }
  pthread_mutex_lock(&session->mutex);
  hrx_status_t status = register_fd(session, fd, false, out_file);
  pthread_mutex_unlock(&session->mutex);
  if (status != HRX_OK) {
    (void)session->sys.close(session->sys.context, fd);
    return hrx_status_annotate(status, "registering %s", path);
  }
  return HRX_OK;
}

hrx_status_t hrx_storage_session_open_file(hrx_storage_session_t* session,
                                           const char* path,
                                           uint32_t* out_file) {
  return open_path(session, path, O_RDONLY, out_file);
}

hrx_status_t hrx_storage_session_open_file_for_writing(
    hrx_storage_session_t* session, const char* path, uint32_t* out_file) {
  return open_path(session, path, O_RDWR, out_file);
}
