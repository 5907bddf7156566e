/* The KFD system-call table and its ioctl wrappers: the native table against
 * real files, and the wrappers' retries and error mapping through fault
 * injection. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfd_ioctl.h"
#include "kfd_sys.h"
#include "kfd_test_sys.h"
#include "test_support.h"

/* A driver that answers GET_VERSION and ACQUIRE_VM and checks that the
 * wrappers passed zeroed argument structs. */
typedef struct fake_driver_t {
  unsigned long last_request;
  hrx_kfd_acquire_vm_args_t acquired;
} fake_driver_t;

static int fake_ioctl(void* context, int fd, unsigned long request,
                      void* args) {
  fake_driver_t* driver = context;
  assert_int_equal(fd, 7);
  driver->last_request = request;
  if (request == HRX_KFD_IOC_GET_VERSION) {
    hrx_kfd_get_version_args_t* version = args;
    assert_int_equal(version->major_version, 0);
    assert_int_equal(version->minor_version, 0);
    version->major_version = 1;
    version->minor_version = 17;
    return 0;
  }
  if (request == HRX_KFD_IOC_ACQUIRE_VM) {
    memcpy(&driver->acquired, args, sizeof(driver->acquired));
    return 0;
  }
  return -ENOTTY;
}

static hrx_kfd_sys_t fake_sys(fake_driver_t* driver) {
  hrx_kfd_sys_t sys = hrx_kfd_sys_native();
  sys.context = driver;
  sys.ioctl = fake_ioctl;
  return sys;
}

static void test_native_table(void** state) {
  (void)state;
  hrx_kfd_sys_t sys = hrx_kfd_sys_native();
  char* dir = test_temp_dir_create();
  char* path = test_strdup_printf("%s/data", dir);
  test_write_file(path, "kfd!", 4);
  int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_true(dir_fd >= 0);

  assert_int_equal(sys.openat(sys.context, dir_fd, "missing", O_RDONLY),
                   -ENOENT);
  int fd = sys.openat(sys.context, dir_fd, "data", O_RDONLY);
  assert_true(fd >= 0);
  char text[8] = {0};
  assert_int_equal(sys.read(sys.context, fd, text, sizeof(text)), 4);
  assert_string_equal(text, "kfd!");
  void* mapping = NULL;
  assert_int_equal(sys.mmap(sys.context, NULL, 4, PROT_READ, MAP_PRIVATE, fd,
                            0, &mapping),
                   0);
  assert_memory_equal(mapping, "kfd!", 4);
  assert_int_equal(sys.munmap(sys.context, mapping, 4), 0);
  assert_int_equal(sys.mmap(sys.context, NULL, 4, PROT_READ, MAP_PRIVATE, -1,
                            0, &mapping),
                   -EBADF);
  assert_int_equal(sys.munmap(sys.context, (char*)mapping + 1, 4), -EINVAL);

  /* A regular file is no KFD: the ioctl fails, named. */
  hrx_kfd_get_version_args_t args;
  memset(&args, 0, sizeof(args));
  assert_status(hrx_kfd_ioctl(&sys, fd, HRX_KFD_IOC_GET_VERSION,
                              "AMDKFD_IOC_GET_VERSION", &args),
                HRX_STATUS_INTERNAL, "AMDKFD_IOC_GET_VERSION (errno 25");
  assert_int_equal(sys.close(sys.context, fd), 0);
  assert_int_equal(sys.close(sys.context, fd), -EBADF);
  assert_int_equal(sys.read(sys.context, fd, text, 1), -EBADF);

  close(dir_fd);
  free(path);
  test_temp_dir_remove(dir);
}

static void test_wrappers(void** state) {
  (void)state;
  fake_driver_t driver = {0};
  hrx_kfd_sys_t sys = fake_sys(&driver);
  uint32_t major = 0;
  uint32_t minor = 0;
  assert_ok(hrx_kfd_get_version(&sys, 7, &major, &minor));
  assert_int_equal(major, 1);
  assert_int_equal(minor, 17);
  assert_ok(hrx_kfd_acquire_vm(&sys, 7, 9, 45831));
  assert_int_equal(driver.last_request, HRX_KFD_IOC_ACQUIRE_VM);
  assert_int_equal(driver.acquired.drm_fd, 9);
  assert_int_equal(driver.acquired.gpu_id, 45831);
}

static void test_eintr_retried(void** state) {
  (void)state;
  fake_driver_t driver = {0};
  kfd_test_sys_t faults = {.base = fake_sys(&driver),
                           .fail_op = KFD_TEST_IOCTL,
                           .fail_at = 1,
                           .fail_times = 5,
                           .fail_errno = EINTR};
  hrx_kfd_sys_t sys = kfd_test_sys(&faults);
  uint32_t major = 0;
  uint32_t minor = 0;
  assert_ok(hrx_kfd_get_version(&sys, 7, &major, &minor));
  assert_int_equal(minor, 17);
  assert_int_equal(faults.calls[KFD_TEST_IOCTL], 6);
}

static void test_eagain_retried_then_busy(void** state) {
  (void)state;
  fake_driver_t driver = {0};
  kfd_test_sys_t faults = {.base = fake_sys(&driver),
                           .fail_op = KFD_TEST_IOCTL,
                           .fail_at = 1,
                           .fail_times = 3,
                           .fail_errno = EAGAIN};
  hrx_kfd_sys_t sys = kfd_test_sys(&faults);
  assert_ok(hrx_kfd_acquire_vm(&sys, 7, 9, 1));
  assert_int_equal(faults.calls[KFD_TEST_IOCTL], 4);

  /* A driver that never stops saying EAGAIN does not hang the caller. */
  memset(faults.calls, 0, sizeof(faults.calls));
  faults.fail_times = 1000;
  assert_status(hrx_kfd_acquire_vm(&sys, 7, 9, 1), HRX_STATUS_BUSY,
                "AMDKFD_IOC_ACQUIRE_VM: the driver answered EAGAIN 64 times");
  assert_int_equal(faults.calls[KFD_TEST_IOCTL], 64);
}

static void test_errno_mapped_and_named(void** state) {
  (void)state;
  static const struct {
    int error;
    hrx_status_code_t code;
  } kCases[] = {
      {EACCES, HRX_STATUS_PERMISSION_DENIED},
      {ENOMEM, HRX_STATUS_RESOURCE_EXHAUSTED},
      {EINVAL, HRX_STATUS_INVALID_ARGUMENT},
      {EBUSY, HRX_STATUS_BUSY},
      {ENODEV, HRX_STATUS_UNAVAILABLE},
      {EFAULT, HRX_STATUS_INTERNAL},
  };
  for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
    fake_driver_t driver = {0};
    kfd_test_sys_t faults = {.base = fake_sys(&driver),
                             .fail_op = KFD_TEST_IOCTL,
                             .fail_at = 1,
                             .fail_errno = kCases[i].error};
    hrx_kfd_sys_t sys = kfd_test_sys(&faults);
    char expected[64];
    snprintf(expected, sizeof(expected), "AMDKFD_IOC_ACQUIRE_VM (errno %d",
             kCases[i].error);
    assert_status(hrx_kfd_acquire_vm(&sys, 7, 9, 1), kCases[i].code,
                  expected);
    assert_int_equal(faults.calls[KFD_TEST_IOCTL], 1);
  }
}

/* Only the Nth call of a sequence fails, and the failure names its ioctl. */
static void test_nth_call_fails(void** state) {
  (void)state;
  for (size_t n = 1; n <= 3; ++n) {
    fake_driver_t driver = {0};
    kfd_test_sys_t faults = {.base = fake_sys(&driver),
                             .fail_op = KFD_TEST_ANY,
                             .fail_at = n,
                             .fail_errno = EIO};
    hrx_kfd_sys_t sys = kfd_test_sys(&faults);
    uint32_t major = 0;
    uint32_t minor = 0;
    hrx_status_t first = hrx_kfd_get_version(&sys, 7, &major, &minor);
    hrx_status_t second = hrx_kfd_acquire_vm(&sys, 7, 9, 1);
    hrx_status_t third = hrx_kfd_get_version(&sys, 7, &major, &minor);
    if (n == 1) {
      assert_status(first, HRX_STATUS_DATA_LOSS, "AMDKFD_IOC_GET_VERSION");
    } else {
      assert_ok(first);
    }
    if (n == 2) {
      assert_status(second, HRX_STATUS_DATA_LOSS, "AMDKFD_IOC_ACQUIRE_VM");
    } else {
      assert_ok(second);
    }
    if (n == 3) {
      assert_status(third, HRX_STATUS_DATA_LOSS, "AMDKFD_IOC_GET_VERSION");
    } else {
      assert_ok(third);
    }
    assert_int_equal(faults.calls[KFD_TEST_ANY], 3);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_native_table),
      cmocka_unit_test(test_wrappers),
      cmocka_unit_test(test_eintr_retried),
      cmocka_unit_test(test_eagain_retried_then_busy),
      cmocka_unit_test(test_errno_mapped_and_named),
      cmocka_unit_test(test_nth_call_fails),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
