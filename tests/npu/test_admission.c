/* Device admission from sysfs fixtures and the fake driver: the qualified
 * Strix Halo NPU is accepted; other revisions, vendors, devices, drivers,
 * DRM versions and array shapes are listed and refused by reason. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device_internal.h"
#include "hrx/npu.h"
#include "npu_test_util.h"
#include "xdna_fake.h"

/* Enumerates |root_fd|'s fixture through a fresh fake driver. */
static hrx_npu_sys_t enumerate(int root_fd, xdna_fake_t* fake,
                               hrx_npu_candidates_t* out_candidates) {
  xdna_fake_init(fake);
  hrx_npu_sys_t sys = xdna_fake_sys(fake);
  hrx_npu_enumerate_with(&sys, root_fd, out_candidates);
  return sys;
}

typedef struct admission_case_t {
  npu_fixture_node_t node;
  const char* reason; /* NULL: accepted */
} admission_case_t;

static void test_sysfs_verdicts(void** state) {
  (void)state;
  static const admission_case_t kCases[] = {
      {{"1022:17F0", "amdxdna", "0x11"}, NULL},
      {{"1022:17F0", "amdxdna", "0x10"},
       "PCI revision 0x10 is not the qualified 0x11"},
      {{"1022:17F0", "amdxdna", "0x20"},
       "PCI revision 0x20 is not the qualified 0x11"},
      {{"8086:643E", "intel_vpu", "0x04"},
       "PCI vendor 0x8086 is not AMD (0x1022)"},
      {{"1022:1502", "amdxdna", "0x00"},
       "PCI device 0x1502 is not the Strix Halo NPU (0x17f0)"},
      {{"1022:17F0", NULL, "0x11"}, "no driver is bound"},
      {{"1022:17F0", "vfio-pci", "0x11"}, "driver vfio-pci is not amdxdna"},
      {{NULL, "amdxdna", "0x11"}, "not a PCI device"},
      {{"1022:17F0", "amdxdna", "eleven"}, "unreadable PCI revision"},
  };
  size_t count = sizeof(kCases) / sizeof(kCases[0]);
  npu_fixture_node_t nodes[sizeof(kCases) / sizeof(kCases[0])];
  for (size_t i = 0; i < count; ++i) nodes[i] = kCases[i].node;
  char* root = npu_fixture_create(nodes, count);
  int root_fd = npu_fixture_open(root);
  xdna_fake_t fake;
  hrx_npu_candidates_t candidates;
  hrx_npu_sys_t sys = enumerate(root_fd, &fake, &candidates);
  assert_int_equal(candidates.count, count);
  for (size_t i = 0; i < count; ++i) {
    const hrx_npu_candidate_t* c = &candidates.items[i];
    print_message("%s: %s\n", c->node, c->reason);
    if (!kCases[i].reason) {
      assert_true(c->accepted);
      assert_string_equal(c->reason, "");
      assert_int_equal(c->vendor, 0x1022);
      assert_int_equal(c->device, 0x17f0);
      assert_int_equal(c->revision, 0x11);
      assert_string_equal(c->driver, "amdxdna");
      assert_int_equal(c->drm_minor, 8);
      assert_int_equal(c->columns, 8);
      assert_int_equal(c->rows, 6);
    } else {
      assert_false(c->accepted);
      assert_non_null(strstr(c->reason, kCases[i].reason));
    }
  }
  /* Only the accepted node was opened, and it was closed again. */
  assert_int_equal(fake.open_nodes, 0);
  /* Opening picks it; naming a refused node says why. */
  hrx_npu_device_t* device = NULL;
  assert_ok(hrx_npu_device_open_with(&sys, root_fd, hrx_allocator_system(),
                                     NULL, NULL, &device));
  assert_string_equal(hrx_npu_device_candidate(device)->node, "accel0");
  hrx_npu_device_destroy(device);
  assert_status(hrx_npu_device_open_with(&sys, root_fd,
                                         hrx_allocator_system(), "accel1",
                                         NULL, &device),
                HRX_STATUS_NOT_FOUND,
                "accel1: PCI revision 0x10 is not the qualified 0x11");
  assert_null(device);
  assert_status(hrx_npu_device_open_with(&sys, root_fd,
                                         hrx_allocator_system(), "accel15",
                                         NULL, &device),
                HRX_STATUS_NOT_FOUND, "no accel node accel15");
  assert_int_equal(fake.open_nodes, 0);
  assert_int_equal(fake.mappings, 0);
  assert_int_equal(fake.leaked_at_close, 0);
  xdna_fake_deinit(&fake);
  close(root_fd);
  test_temp_dir_remove(root);
}

typedef struct driver_case_t {
  int32_t major;
  int32_t minor;
  uint16_t columns;
  uint16_t rows;
  const char* reason;
} driver_case_t;

static void test_driver_verdicts(void** state) {
  (void)state;
  static const driver_case_t kCases[] = {
      {0, 8, 8, 6, NULL},
      {1, 0, 8, 6, NULL},
      {0, 7, 8, 6, "DRM version 0.7 is older than 0.8"},
      {0, 8, 4, 6, "AIE array is 4 columns x 6 rows, not 8 x 6"},
      {0, 8, 8, 5, "AIE array is 8 columns x 5 rows, not 8 x 6"},
  };
  char* root = npu_fixture_strix_halo();
  int root_fd = npu_fixture_open(root);
  for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
    xdna_fake_t fake;
    xdna_fake_init(&fake);
    fake.drm_major = kCases[i].major;
    fake.drm_minor = kCases[i].minor;
    fake.columns = kCases[i].columns;
    fake.rows = kCases[i].rows;
    hrx_npu_sys_t sys = xdna_fake_sys(&fake);
    hrx_npu_candidates_t candidates;
    hrx_npu_enumerate_with(&sys, root_fd, &candidates);
    assert_int_equal(candidates.count, 1);
    hrx_npu_device_t* device = NULL;
    hrx_status_t status = hrx_npu_device_open_with(
        &sys, root_fd, hrx_allocator_system(), NULL, NULL, &device);
    if (!kCases[i].reason) {
      assert_true(candidates.items[0].accepted);
      assert_ok(status);
      hrx_npu_device_destroy(device);
    } else {
      assert_false(candidates.items[0].accepted);
      assert_non_null(strstr(candidates.items[0].reason, kCases[i].reason));
      assert_status(status, HRX_STATUS_NOT_FOUND, kCases[i].reason);
    }
    assert_int_equal(fake.open_nodes, 0);
    assert_int_equal(fake.leaked_at_close, 0);
    xdna_fake_deinit(&fake);
  }
  close(root_fd);
  test_temp_dir_remove(root);
}

static void test_no_nodes(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  int root_fd = npu_fixture_open(root);
  xdna_fake_t fake;
  hrx_npu_candidates_t candidates;
  hrx_npu_sys_t sys = enumerate(root_fd, &fake, &candidates);
  assert_int_equal(candidates.count, 0);
  hrx_npu_device_t* device = NULL;
  assert_status(hrx_npu_device_open_with(&sys, root_fd,
                                         hrx_allocator_system(), NULL,
                                         NULL, &device),
                HRX_STATUS_NOT_FOUND, "no /dev/accel node");
  xdna_fake_deinit(&fake);
  close(root_fd);
  test_temp_dir_remove(root);
}

/* This machine has no NPU: the real system table answers cleanly. */
static void test_real_system(void** state) {
  (void)state;
  hrx_npu_candidates_t candidates;
  hrx_npu_enumerate(&candidates);
  for (size_t i = 0; i < candidates.count; ++i) {
    print_message("%s: %s\n", candidates.items[i].node,
                  candidates.items[i].accepted ? "accepted"
                                               : candidates.items[i].reason);
  }
  hrx_npu_device_t* device = NULL;
  hrx_status_t status =
      hrx_npu_device_open(hrx_allocator_system(), NULL, &device);
  if (status == HRX_OK) {
    hrx_npu_device_destroy(device);
  } else {
    assert_status_code(status, HRX_STATUS_NOT_FOUND);
  }
}

static int always_eagain(void* context, int fd, unsigned long request,
                         void* args) {
  (void)context;
  (void)fd;
  (void)request;
  (void)args;
  return -EAGAIN;
}

/* The real table reads sysfs-like files whole, without the newline (one
 * too large for the buffer is DATA_LOSS, never cut short); a driver stuck
 * on EAGAIN is reported BUSY instead of spinning. */
static void test_native_table(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* path = test_strdup_printf("%s/value", root);
  test_write_file(path, "0x11\n\n", 6);
  int root_fd = npu_fixture_open(root);
  hrx_npu_sys_t sys = hrx_sys_native();
  char text[8];
  assert_ok(hrx_npu_read_text(&sys, root_fd, "value", text, sizeof(text)));
  assert_string_equal(text, "0x11");
  char small[3];
  assert_status(hrx_npu_read_text(&sys, root_fd, "value", small,
                                  sizeof(small)),
                HRX_STATUS_DATA_LOSS, "value: larger than 2 bytes");
  assert_status(hrx_npu_read_text(&sys, root_fd, "missing", text,
                                  sizeof(text)),
                HRX_STATUS_NOT_FOUND, "open missing");
  assert_status(hrx_npu_read_text(&sys, root_fd, ".", text, sizeof(text)),
                HRX_STATUS_INVALID_ARGUMENT, "read . (errno 21");
  sys.ioctl = always_eagain;
  uint32_t args = 0;
  assert_status(hrx_sys_ioctl(&sys, root_fd, 0, "CREATE_BO", &args),
                HRX_STATUS_BUSY, "CREATE_BO: the driver answered EAGAIN 64");
  close(root_fd);
  free(path);
  test_temp_dir_remove(root);
}

/* Every call of opening a device failing once, with EIO: a clear status
 * (the node refused with the errno, or the heap failing), nothing left
 * open or mapped. */
static void test_every_call_fails_once(void** state) {
  (void)state;
  char* root = npu_fixture_strix_halo();
  int root_fd = npu_fixture_open(root);
  size_t failures = 0;
  for (size_t n = 1;; ++n) {
    xdna_fake_t fake;
    xdna_fake_init(&fake);
    fake.fail_at = n;
    hrx_npu_sys_t sys = xdna_fake_sys(&fake);
    test_allocator_t counted = {0};
    hrx_npu_device_t* device = NULL;
    hrx_status_t status = hrx_npu_device_open_with(
        &sys, root_fd, test_allocator(&counted), NULL, NULL, &device);
    if (status == HRX_OK) hrx_npu_device_destroy(device);
    assert_int_equal(fake.open_nodes, 0);
    assert_int_equal(fake.mappings, 0);
    assert_int_equal(fake.leaked_at_close, 0);
    assert_int_equal(counted.live, 0);
    bool failed = fake.failed;
    if (failed && !fake.failed_release && status == HRX_OK) {
      fail_msg("call %zu (%s) failed but the open succeeded", n,
               fake.failed_call);
    }
    if (status != HRX_OK) {
      char text[512];
      hrx_status_format(status, text, sizeof(text));
      if (!strstr(text, "errno 5")) fail_msg("call %zu: %s", n, text);
      hrx_status_free(status);
      ++failures;
    }
    xdna_fake_deinit(&fake);
    if (!failed) break;
  }
  assert_true(failures >= 8);
  close(root_fd);
  test_temp_dir_remove(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sysfs_verdicts),
      cmocka_unit_test(test_driver_verdicts),
      cmocka_unit_test(test_no_nodes),
      cmocka_unit_test(test_real_system),
      cmocka_unit_test(test_native_table),
      cmocka_unit_test(test_every_call_fails_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
