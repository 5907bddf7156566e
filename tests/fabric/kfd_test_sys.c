#include "kfd_test_sys.h"

/* Counts a call of kind |op| and returns the errno it must fail with, or 0
 * to forward it. */
static int count_call(kfd_test_sys_t* s, kfd_test_op_t op) {
  size_t n = ++s->calls[op];
  ++s->calls[KFD_TEST_ANY];
  if (s->fail_op == KFD_TEST_ANY) n = s->calls[KFD_TEST_ANY];
  if (s->fail_at == 0 || (s->fail_op != op && s->fail_op != KFD_TEST_ANY)) {
    return 0;
  }
  size_t times = s->fail_times == 0 ? 1 : s->fail_times;
  return n >= s->fail_at && n < s->fail_at + times ? s->fail_errno : 0;
}

static int test_openat(void* context, int dir_fd, const char* path,
                       int flags) {
  kfd_test_sys_t* s = context;
  int error = count_call(s, KFD_TEST_OPENAT);
  if (error) return -error;
  int fd = s->base.openat(s->base.context, dir_fd, path, flags);
  if (fd >= 0) ++s->open_fds;
  return fd;
}

static int test_close(void* context, int fd) {
  kfd_test_sys_t* s = context;
  int error = count_call(s, KFD_TEST_CLOSE);
  /* A failed close still releases the fd, as close(2) does on Linux. */
  int rc = s->base.close(s->base.context, fd);
  if (rc == 0) --s->open_fds;
  return error ? -error : rc;
}

static ssize_t test_read(void* context, int fd, void* buffer, size_t size) {
  kfd_test_sys_t* s = context;
  int error = count_call(s, KFD_TEST_READ);
  if (error) return -error;
  return s->base.read(s->base.context, fd, buffer, size);
}

static int test_ioctl(void* context, int fd, unsigned long request,
                      void* args) {
  kfd_test_sys_t* s = context;
  int error = count_call(s, KFD_TEST_IOCTL);
  if (error) return -error;
  return s->base.ioctl(s->base.context, fd, request, args);
}

static int test_mmap(void* context, void* address, size_t length,
                     int protection, int flags, int fd, off_t offset,
                     void** out_address) {
  kfd_test_sys_t* s = context;
  int error = count_call(s, KFD_TEST_MMAP);
  if (error) return -error;
  return s->base.mmap(s->base.context, address, length, protection, flags, fd,
                      offset, out_address);
}

static int test_munmap(void* context, void* address, size_t length) {
  kfd_test_sys_t* s = context;
  int error = count_call(s, KFD_TEST_MUNMAP);
  if (error) return -error;
  return s->base.munmap(s->base.context, address, length);
}

hrx_kfd_sys_t kfd_test_sys(kfd_test_sys_t* state) {
  return (hrx_kfd_sys_t){
      .context = state,
      .openat = test_openat,
      .close = test_close,
      .read = test_read,
      .ioctl = test_ioctl,
      .mmap = test_mmap,
      .munmap = test_munmap,
  };
}
