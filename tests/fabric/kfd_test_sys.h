/* A KFD system-call table for tests: it forwards to a base table and fails
 * the Nth call of a chosen kind with a chosen errno. */
#ifndef HRX_TESTS_FABRIC_KFD_TEST_SYS_H_
#define HRX_TESTS_FABRIC_KFD_TEST_SYS_H_

#include <stddef.h>

#include "kfd_sys.h"

typedef enum kfd_test_op_t {
  KFD_TEST_ANY = 0, /* counts every call */
  KFD_TEST_OPENAT,
  KFD_TEST_CLOSE,
  KFD_TEST_READ,
  KFD_TEST_IOCTL,
  KFD_TEST_MMAP,
  KFD_TEST_MUNMAP,
  KFD_TEST_OP_COUNT,
} kfd_test_op_t;

typedef struct kfd_test_sys_t {
  hrx_kfd_sys_t base;    /* what the calls that do not fail do */
  kfd_test_op_t fail_op; /* which calls fail_at counts */
  size_t fail_at;        /* 1-based; 0 never fails */
  size_t fail_times;     /* failures in a row from fail_at (0 means 1) */
  int fail_errno;
  size_t calls[KFD_TEST_OP_COUNT]; /* by kind; [KFD_TEST_ANY] all */
  size_t open_fds;                 /* opened and not yet closed */
} kfd_test_sys_t;

/* The table for |state| (which must outlive it). */
hrx_kfd_sys_t kfd_test_sys(kfd_test_sys_t* state);

#endif /* HRX_TESTS_FABRIC_KFD_TEST_SYS_H_ */
