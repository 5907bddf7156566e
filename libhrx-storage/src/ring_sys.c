#include "ring_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int native_queue_init(void* context, unsigned entries,
                             struct io_uring* ring,
                             struct io_uring_params* params) {
  (void)context;
  return io_uring_queue_init_params(entries, ring, params);
}

static void native_queue_exit(void* context, struct io_uring* ring) {
  (void)context;
  io_uring_queue_exit(ring);
}

static int native_register_files_sparse(void* context, struct io_uring* ring,
                                        unsigned count) {
  (void)context;
  return io_uring_register_files_sparse(ring, count);
}

static int native_register_files_update(void* context, struct io_uring* ring,
                                        unsigned offset, const int* fds,
                                        unsigned count) {
  (void)context;
  return io_uring_register_files_update(ring, offset, fds, count);
}

static int native_register_buffers(void* context, struct io_uring* ring,
                                   const struct iovec* iovecs,
                                   unsigned count) {
  (void)context;
  return io_uring_register_buffers(ring, iovecs, count);
}

static int native_register_eventfd(void* context, struct io_uring* ring,
                                   int fd) {
  (void)context;
  return io_uring_register_eventfd(ring, fd);
}

static int native_submit(void* context, struct io_uring* ring) {
  (void)context;
  return io_uring_submit(ring);
}

static int native_peek_cqe(void* context, struct io_uring* ring,
                           struct io_uring_cqe** out_cqe) {
  (void)context;
  return io_uring_peek_cqe(ring, out_cqe);
}

static int native_eventfd(void* context, unsigned initial, int flags) {
  (void)context;
  int fd = eventfd(initial, flags);
  return fd < 0 ? -errno : fd;
}

static ssize_t native_read(void* context, int fd, void* buffer, size_t size) {
  (void)context;
  ssize_t n = read(fd, buffer, size);
  return n < 0 ? -errno : n;
}

static ssize_t native_write(void* context, int fd, const void* buffer,
                            size_t size) {
  (void)context;
  ssize_t n = write(fd, buffer, size);
  return n < 0 ? -errno : n;
}

static int native_open(void* context, const char* path, int flags) {
  (void)context;
  int fd = open(path, flags);
  return fd < 0 ? -errno : fd;
}

static int native_close(void* context, int fd) {
  (void)context;
  return close(fd) < 0 ? -errno : 0;
}

static int native_duplicate(void* context, int fd) {
  (void)context;
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  return copy < 0 ? -errno : copy;
}

static int native_get_flags(void* context, int fd) {
  (void)context;
  int flags = fcntl(fd, F_GETFL);
  return flags < 0 ? -errno : flags;
}

static int native_statx(void* context, int fd, unsigned mask,
                        struct statx* out) {
  (void)context;
  return statx(fd, "", AT_EMPTY_PATH, mask, out) < 0 ? -errno : 0;
}

static int native_uring_setup(void* context, unsigned entries,
                              void* params) {
  (void)context;
  long fd = syscall(__NR_io_uring_setup, entries, params);
  return fd < 0 ? -errno : (int)fd;
}

static int native_uring_register(void* context, int fd, unsigned opcode,
                                 const void* argument, unsigned count) {
  (void)context;
  long rc = syscall(__NR_io_uring_register, fd, opcode, argument, count);
  return rc < 0 ? -errno : (int)rc;
}

static int native_uring_enter(void* context, int fd, unsigned flags) {
  (void)context;
  long rc = syscall(__NR_io_uring_enter, fd, 0, 0, flags, NULL, 0);
  return rc < 0 ? -errno : (int)rc;
}

static int native_map_pages(void* context, size_t length,
                            void** out_address) {
  (void)context;
  void* address = mmap(NULL, length, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (address == MAP_FAILED) {
    return -errno;
  }
  *out_address = address;
  return 0;
}

static int native_unmap_pages(void* context, void* address, size_t length) {
  (void)context;
  return munmap(address, length) < 0 ? -errno : 0;
}

hrx_storage_sys_t hrx_storage_sys_native(void) {
  hrx_storage_sys_t sys = {
      .context = NULL,
      .queue_init = native_queue_init,
      .queue_exit = native_queue_exit,
      .register_files_sparse = native_register_files_sparse,
      .register_files_update = native_register_files_update,
      .register_buffers = native_register_buffers,
      .register_eventfd = native_register_eventfd,
      .submit = native_submit,
      .peek_cqe = native_peek_cqe,
      .eventfd = native_eventfd,
      .read = native_read,
      .write = native_write,
      .open = native_open,
      .close = native_close,
      .duplicate = native_duplicate,
      .get_flags = native_get_flags,
      .statx = native_statx,
      .uring_setup = native_uring_setup,
      .uring_register = native_uring_register,
      .uring_enter = native_uring_enter,
      .map_pages = native_map_pages,
      .unmap_pages = native_unmap_pages,
  };
  return sys;
}
