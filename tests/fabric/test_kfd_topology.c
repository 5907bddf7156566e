/* KFD discovery over checked-in sysfs trees (tests/fabric/kfd_topology/),
 * generated malformed ones, and fault injection through the table. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/fabric/kfd.h"
#include "kfd_probe.h"
#include "kfd_test_sys.h"
#include "kfd_topology.h"
#include "test_support.h"

static int open_dir(const char* path) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_true(fd >= 0);
  return fd;
}

static int open_fixture(const char* name) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", HRX_KFD_FIXTURES, name);
  return open_dir(path);
}

/* Scans fixture |name| with the native table and checks no fd is left. */
static hrx_status_t scan_fixture(const char* name, hrx_kfd_topology_t* out) {
  kfd_test_sys_t counter = {.base = hrx_kfd_sys_native()};
  hrx_kfd_sys_t sys = kfd_test_sys(&counter);
  int fd = open_fixture(name);
  hrx_status_t status = hrx_kfd_topology_scan(&sys, fd, out);
  close(fd);
  assert_int_equal(counter.open_fds, 0);
  return status;
}

static void test_gfx1151_apu(void** state) {
  (void)state;
  hrx_kfd_topology_t* topology = malloc(sizeof(*topology));
  assert_ok(scan_fixture("gfx1151", topology));
  assert_int_equal(topology->generation_id, 1);
  assert_int_equal(topology->node_count, 2);

  const hrx_kfd_node_t* cpu = &topology->nodes[0];
  assert_false(cpu->is_gpu);
  assert_int_equal(cpu->gpu_id, 0);
  assert_int_equal(cpu->cpu_cores_count, 32);
  assert_null(cpu->target);

  const hrx_kfd_node_t* gpu = &topology->nodes[1];
  assert_true(gpu->is_gpu);
  assert_int_equal(gpu->index, 1);
  assert_int_equal(gpu->gpu_id, 45831);
  assert_int_equal(gpu->gfx_target_version, 110501);
  assert_string_equal(gpu->arch, "gfx1151");
  assert_non_null(gpu->target);
  assert_string_equal(gpu->target, "gfx1151");
  assert_int_equal(gpu->simd_count, 80);
  assert_int_equal(gpu->simd_per_cu, 2);
  assert_int_equal(gpu->cu_count, 40);
  assert_int_equal(gpu->array_count, 4);
  assert_int_equal(gpu->simd_arrays_per_engine, 2);
  assert_int_equal(gpu->cu_per_simd_array, 10);
  assert_int_equal(gpu->max_waves_per_simd, 16);
  assert_int_equal(gpu->wave_front_size, 32);
  assert_int_equal(gpu->lds_size_in_kb, 64);
  assert_int_equal(gpu->num_xcc, 1);
  assert_int_equal(gpu->num_cp_queues, 8);
  assert_int_equal(gpu->num_sdma_engines, 2);
  assert_int_equal(gpu->num_sdma_queues_per_engine, 6);
  assert_int_equal(gpu->drm_render_minor, 128);
  assert_int_equal(gpu->vendor_id, 4098);
  assert_int_equal(gpu->device_id, 5510);
  free(topology);
}

static void test_no_gpu(void** state) {
  (void)state;
  hrx_kfd_topology_t* topology = malloc(sizeof(*topology));
  assert_ok(scan_fixture("no_gpu", topology));
  assert_int_equal(topology->node_count, 1);
  assert_false(topology->nodes[0].is_gpu);
  free(topology);
}

static void test_gfx1100_unsupported(void** state) {
  (void)state;
  hrx_kfd_topology_t* topology = malloc(sizeof(*topology));
  assert_ok(scan_fixture("gfx1100", topology));
  assert_int_equal(topology->generation_id, 3);
  assert_int_equal(topology->node_count, 2);
  const hrx_kfd_node_t* gpu = &topology->nodes[1];
  assert_true(gpu->is_gpu);
  assert_int_equal(gpu->gfx_target_version, 110000);
  assert_string_equal(gpu->arch, "gfx1100");
  assert_null(gpu->target);
  assert_int_equal(gpu->cu_count, 96);
  free(topology);
}

/* A table whose generation_id opens go to other roots: opens from
 * |switch_at| on read |other_fd|'s tree, and with |alternate| every other
 * open does, so the value never settles. */
typedef struct moving_generation_t {
  hrx_kfd_sys_t native;
  int other_fd;
  int opens;
  int switch_at;
  bool alternate;
} moving_generation_t;

static int moving_openat(void* context, int dir_fd, const char* path,
                         int flags) {
  moving_generation_t* m = context;
  if (strcmp(path, "class/kfd/kfd/topology/generation_id") == 0) {
    int n = m->opens++;
    bool other = m->alternate ? (n % 2 == 1) : n >= m->switch_at;
    if (other) dir_fd = m->other_fd;
  }
  return m->native.openat(m->native.context, dir_fd, path, flags);
}

static void test_generation_changes_mid_scan(void** state) {
  (void)state;
  hrx_kfd_topology_t* topology = malloc(sizeof(*topology));
  moving_generation_t moving = {.native = hrx_kfd_sys_native(),
                                .other_fd = open_fixture("gfx1100"),
                                .switch_at = 1};
  hrx_kfd_sys_t sys = hrx_kfd_sys_native();
  sys.context = &moving;
  sys.openat = moving_openat;
  int fd = open_fixture("gfx1151");

  /* 1 before, 3 after: scanned again, and 3 both times then. */
  assert_ok(hrx_kfd_topology_scan(&sys, fd, topology));
  assert_int_equal(moving.opens, 4);
  assert_int_equal(topology->generation_id, 3);
  assert_string_equal(topology->nodes[1].arch, "gfx1151");

  moving.opens = 0;
  moving.alternate = true;
  assert_status(hrx_kfd_topology_scan(&sys, fd, topology), HRX_STATUS_BUSY,
                "changed during each of 8 scans (generation_id 1 -> 3)");
  assert_int_equal(moving.opens, 16);

  close(fd);
  close(moving.other_fd);
  free(topology);
}

/* A sysfs tree in a temporary directory with one node whose files are
 * given; NULL leaves a file out. */
typedef struct temp_tree_t {
  char* root;
  int fd;
} temp_tree_t;

static void make_dirs(const char* root, const char* relative) {
  char path[512];
  snprintf(path, sizeof(path), "%s/%s", root, relative);
  for (char* p = path + strlen(root) + 1; *p != '\0'; ++p) {
    if (*p == '/') {
      *p = '\0';
      mkdir(path, 0755);
      *p = '/';
    }
  }
  mkdir(path, 0755);
}

static void write_tree_file(const char* root, const char* relative,
                            const char* text, size_t length) {
  char* path = test_strdup_printf("%s/%s", root, relative);
  test_write_file(path, text, length);
  free(path);
}

static temp_tree_t make_tree(const char* generation, const char* gpu_id,
                             const char* properties, size_t length) {
  temp_tree_t tree = {.root = test_temp_dir_create()};
  make_dirs(tree.root, "class/kfd/kfd/topology/nodes/0");
  if (generation != NULL) {
    write_tree_file(tree.root, "class/kfd/kfd/topology/generation_id",
                    generation, strlen(generation));
  }
  if (gpu_id != NULL) {
    write_tree_file(tree.root, "class/kfd/kfd/topology/nodes/0/gpu_id", gpu_id,
                    strlen(gpu_id));
  }
  if (properties != NULL) {
    write_tree_file(tree.root, "class/kfd/kfd/topology/nodes/0/properties",
                    properties, length);
  }
  tree.fd = open_dir(tree.root);
  return tree;
}

static void free_tree(temp_tree_t* tree) {
  close(tree->fd);
  test_temp_dir_remove(tree->root);
}

/* The GPU properties every GPU node needs, before |extra| lines. */
static char* gpu_properties(const char* leave_out, const char* extra) {
  static const char* kLines[] = {
      "simd_count 80",         "gfx_target_version 110501",
      "simd_per_cu 2",         "array_count 4",
      "simd_arrays_per_engine 2", "cu_per_simd_array 10",
      "max_waves_per_simd 16", "wave_front_size 32",
      "lds_size_in_kb 64",     "num_cp_queues 8",
      "num_sdma_engines 2",    "num_sdma_queues_per_engine 6",
      "drm_render_minor 128",  "vendor_id 4098",
      "device_id 5510",
  };
  char* text = test_strdup_printf("%s", "");
  for (size_t i = 0; i < sizeof(kLines) / sizeof(kLines[0]); ++i) {
    if (leave_out != NULL && strncmp(kLines[i], leave_out,
                                     strlen(leave_out)) == 0) {
      continue;
    }
    char* longer = test_strdup_printf("%s%s\n", text, kLines[i]);
    free(text);
    text = longer;
  }
  char* result = test_strdup_printf("%s%s", text, extra);
  free(text);
  return result;
}

/* Scans a one-node tree made of |properties| and expects |code| with
 * |text| in the message. */
static void expect_refused(const char* properties, size_t length,
                           hrx_status_code_t code, const char* text) {
  temp_tree_t tree = make_tree("1\n", "7\n", properties, length);
  hrx_kfd_topology_t* topology = malloc(sizeof(*topology));
  kfd_test_sys_t counter = {.base = hrx_kfd_sys_native()};
  hrx_kfd_sys_t sys = kfd_test_sys(&counter);
  assert_status(hrx_kfd_topology_scan(&sys, tree.fd, topology), code, text);
  assert_int_equal(counter.open_fds, 0);
  free(topology);
  free_tree(&tree);
}

static void test_valid_generated_gpu(void** state) {
  (void)state;
  char* text = gpu_properties(NULL, "some_new_key 5\n");
  temp_tree_t tree = make_tree("9\n", "7\n", text, strlen(text));
  hrx_kfd_topology_t* topology = malloc(sizeof(*topology));
  hrx_kfd_sys_t sys = hrx_kfd_sys_native();
  assert_ok(hrx_kfd_topology_scan(&sys, tree.fd, topology));
  assert_int_equal(topology->generation_id, 9);
  assert_int_equal(topology->nodes[0].gpu_id, 7);
  assert_string_equal(topology->nodes[0].target, "gfx1151");
  free(topology);
  free_tree(&tree);
  free(text);
}

static void test_malformed_properties(void** state) {
  (void)state;
  const char* path = "class/kfd/kfd/topology/nodes/0/properties";
  char* expected;
  char* text;

  text = gpu_properties("drm_render_minor", "");
  expected = test_strdup_printf("%s: GPU node without 'drm_render_minor'",
                                path);
  expect_refused(text, strlen(text), HRX_STATUS_DATA_LOSS, expected);
  free(expected);
  free(text);

  expect_refused("cpu_cores_count 4\n", 18, HRX_STATUS_DATA_LOSS,
                 "properties: no 'simd_count'");

  text = "cpu_cores_count 4\nsimd_count 8x\n";
  expected = test_strdup_printf("%s:2: simd_count", path);
  expect_refused(text, strlen(text), HRX_STATUS_DATA_LOSS, expected);
  free(expected);

  text = "simd_count 0\nlocal_mem_size 99999999999999999999999\n";
  expected = test_strdup_printf("%s:2: local_mem_size", path);
  expect_refused(text, strlen(text), HRX_STATUS_DATA_LOSS, expected);
  free(expected);

  text = "simd_count 4294967296\n";
  expected = test_strdup_printf("%s:1: simd_count", path);
  expect_refused(text, strlen(text), HRX_STATUS_DATA_LOSS, expected);
  free(expected);

  text = "simd_count -1\n";
  expect_refused(text, strlen(text), HRX_STATUS_DATA_LOSS, "properties:1:");

  text = "simd_count 0\n\x1b[31mred\n";
  expected = test_strdup_printf(
      "%s:2: expected 'key value', got '\\x1b[31mred'", path);
  expect_refused(text, strlen(text), HRX_STATUS_DATA_LOSS, expected);
  free(expected);

  expect_refused("simd_count 0\n value\n", 20, HRX_STATUS_DATA_LOSS,
                 "properties:2: expected 'key value'");
  expect_refused("simd_count 0\nsimd_count 0\n", 26, HRX_STATUS_DATA_LOSS,
                 "properties:2: 'simd_count' repeated");
  expect_refused("simd_count 0\nname\0x 1\n", 22, HRX_STATUS_DATA_LOSS,
                 "properties: contains a NUL byte");
  expect_refused("simd_count \n", 12, HRX_STATUS_DATA_LOSS,
                 "properties:1: simd_count");

  text = gpu_properties("simd_per_cu", "simd_per_cu 0\n");
  expect_refused(text, strlen(text), HRX_STATUS_DATA_LOSS,
                 "GPU node with simd_per_cu 0");
  free(text);
  text = gpu_properties("wave_front_size", "wave_front_size 48\n");
  expect_refused(text, strlen(text), HRX_STATUS_DATA_LOSS,
                 "wave_front_size 48 (expected 32 or 64)");
  free(text);

  /* The largest file accepted, then one byte more. */
  char* edge = malloc(8192);
  memset(edge, 'x', 8192);
  memcpy(edge, "simd_count 0\nlocal_mem_size ", 28);
  expect_refused(edge, 8191, HRX_STATUS_DATA_LOSS,
                 "properties:2: local_mem_size");
  expect_refused(edge, 8192, HRX_STATUS_DATA_LOSS, "larger than 8191 bytes");
  free(edge);

  /* Far larger than any real properties file. */
  size_t big = 20000;
  char* huge = malloc(big);
  memset(huge, 'x', big);
  memcpy(huge, "simd_count 0\nx ", 15);
  expect_refused(huge, big, HRX_STATUS_DATA_LOSS, "larger than 8191 bytes");
  free(huge);
}

static void test_malformed_numbers_files(void** state) {
  (void)state;
  temp_tree_t tree = make_tree("1\n", "seven\n", "simd_count 0\n", 13);
  hrx_kfd_topology_t* topology = malloc(sizeof(*topology));
  hrx_kfd_sys_t sys = hrx_kfd_sys_native();
  assert_status(hrx_kfd_topology_scan(&sys, tree.fd, topology),
                HRX_STATUS_DATA_LOSS, "nodes/0/gpu_id:1:");
  free_tree(&tree);

  tree = make_tree("1\n", "4294967296\n", "simd_count 0\n", 13);
  assert_status(hrx_kfd_topology_scan(&sys, tree.fd, topology),
                HRX_STATUS_DATA_LOSS, "nodes/0/gpu_id:1:");
  free_tree(&tree);

  tree = make_tree("", "0\n", "simd_count 0\n", 13);
  assert_status(hrx_kfd_topology_scan(&sys, tree.fd, topology),
                HRX_STATUS_DATA_LOSS, "generation_id:1:");
  free_tree(&tree);

  /* A node directory without its properties file. */
  tree = make_tree("1\n", "0\n", NULL, 0);
  assert_status(hrx_kfd_topology_scan(&sys, tree.fd, topology),
                HRX_STATUS_NOT_FOUND, "open class/kfd/kfd/topology/nodes/0/"
                                      "properties");
  free_tree(&tree);
  free(topology);
}

static void test_missing_topology(void** state) {
  (void)state;
  hrx_kfd_topology_t* topology = malloc(sizeof(*topology));
  hrx_kfd_sys_t sys = hrx_kfd_sys_native();

  /* No kfd class at all: the driver is not loaded. */
  char* empty = test_temp_dir_create();
  int fd = open_dir(empty);
  assert_status(hrx_kfd_topology_scan(&sys, fd, topology),
                HRX_STATUS_UNAVAILABLE,
                "no AMD GPU: sysfs has no class/kfd/kfd/topology");
  close(fd);
  test_temp_dir_remove(empty);

  /* A topology with no nodes. */
  temp_tree_t tree = make_tree("1\n", NULL, NULL, 0);
  assert_status(hrx_kfd_topology_scan(&sys, tree.fd, topology),
                HRX_STATUS_UNAVAILABLE, "no AMD GPU: class/kfd/kfd/topology "
                                        "lists no nodes");
  free_tree(&tree);
  free(topology);
}

/* Every open and read of a scan failing in turn: a clear status, no fd
 * left open; EINTR on a read is retried. */
static void test_read_faults(void** state) {
  (void)state;
  hrx_kfd_topology_t* topology = malloc(sizeof(*topology));
  int fd = open_fixture("gfx1151");
  kfd_test_sys_t faults = {.base = hrx_kfd_sys_native()};
  hrx_kfd_sys_t sys = kfd_test_sys(&faults);
  assert_ok(hrx_kfd_topology_scan(&sys, fd, topology));
  size_t total = faults.calls[KFD_TEST_ANY];
  size_t failures = 0;
  for (size_t n = 1; n <= total; ++n) {
    memset(&faults, 0, sizeof(faults));
    faults.base = hrx_kfd_sys_native();
    faults.fail_op = KFD_TEST_ANY;
    faults.fail_at = n;
    faults.fail_errno = EIO;
    hrx_status_t status = hrx_kfd_topology_scan(&sys, fd, topology);
    /* A failed close is not the scan's failure. */
    if (status != HRX_OK) {
      ++failures;
      assert_status(status, HRX_STATUS_DATA_LOSS, "class/kfd/kfd/topology/");
    }
    assert_int_equal(faults.open_fds, 0);
  }
  assert_true(failures > 0);

  memset(&faults, 0, sizeof(faults));
  faults.base = hrx_kfd_sys_native();
  faults.fail_op = KFD_TEST_READ;
  faults.fail_at = 2;
  faults.fail_times = 3;
  faults.fail_errno = EINTR;
  assert_ok(hrx_kfd_topology_scan(&sys, fd, topology));
  assert_string_equal(topology->nodes[1].target, "gfx1151");

  close(fd);
  free(topology);
}

static void test_open_device(void** state) {
  (void)state;
  char* dir = test_temp_dir_create();
  int dev_fd = open_dir(dir);
  hrx_kfd_sys_t native = hrx_kfd_sys_native();
  int kfd_fd = -1;
  assert_status(hrx_kfd_open_device(&native, dev_fd, &kfd_fd),
                HRX_STATUS_UNAVAILABLE, "no AMD GPU: /dev/kfd is absent");

  char* path = test_strdup_printf("%s/kfd", dir);
  test_write_file(path, "", 0);
  assert_ok(hrx_kfd_open_device(&native, dev_fd, &kfd_fd));
  assert_true(kfd_fd >= 0);
  close(kfd_fd);

  kfd_test_sys_t faults = {.base = native,
                           .fail_op = KFD_TEST_OPENAT,
                           .fail_at = 1,
                           .fail_errno = EACCES};
  hrx_kfd_sys_t sys = kfd_test_sys(&faults);
  assert_status(hrx_kfd_open_device(&sys, dev_fd, &kfd_fd),
                HRX_STATUS_PERMISSION_DENIED, "'render' group");
  faults = (kfd_test_sys_t){.base = native,
                            .fail_op = KFD_TEST_OPENAT,
                            .fail_at = 1,
                            .fail_errno = EMFILE};
  assert_status(hrx_kfd_open_device(&sys, dev_fd, &kfd_fd),
                HRX_STATUS_RESOURCE_EXHAUSTED, "open /dev/kfd");

  free(path);
  close(dev_fd);
  test_temp_dir_remove(dir);
}

/* A /dev with a "kfd" in it (a regular file: the probe only opens it). */
static char* make_dev_dir(int* out_fd) {
  char* dir = test_temp_dir_create();
  char* path = test_strdup_printf("%s/kfd", dir);
  test_write_file(path, "", 0);
  free(path);
  *out_fd = open_dir(dir);
  return dir;
}

static void test_probe_fixtures(void** state) {
  (void)state;
  int dev_fd = -1;
  char* dev = make_dev_dir(&dev_fd);
  kfd_test_sys_t counter = {.base = hrx_kfd_sys_native()};
  hrx_kfd_sys_t sys = kfd_test_sys(&counter);
  hrx_fabric_kfd_gpu_t gpus[2];
  size_t count = 99;

  int fd = open_fixture("gfx1151");
  assert_ok(hrx_kfd_probe(&sys, fd, dev_fd, 2, gpus, &count));
  assert_int_equal(count, 1);
  assert_int_equal(gpus[0].node, 1);
  assert_int_equal(gpus[0].gpu_id, 45831);
  assert_string_equal(gpus[0].arch, "gfx1151");
  assert_string_equal(gpus[0].profile_target, "gfx1151");
  assert_int_equal(gpus[0].compute_units, 40);
  assert_int_equal(gpus[0].simds_per_cu, 2);
  assert_int_equal(gpus[0].wavefront_size, 32);
  assert_int_equal(gpus[0].max_waves_per_simd, 16);
  assert_int_equal(gpus[0].lds_bytes, 65536);
  assert_int_equal(gpus[0].compute_queues, 8);
  assert_int_equal(gpus[0].sdma_engines, 2);
  assert_int_equal(gpus[0].render_minor, 128);
  assert_int_equal(gpus[0].vendor_id, 4098);
  assert_int_equal(gpus[0].device_id, 5510);
  /* Counting only. */
  count = 0;
  assert_ok(hrx_kfd_probe(&sys, fd, dev_fd, 0, NULL, &count));
  assert_int_equal(count, 1);
  close(fd);

  fd = open_fixture("gfx1100");
  assert_ok(hrx_kfd_probe(&sys, fd, dev_fd, 2, gpus, &count));
  assert_int_equal(count, 1);
  assert_string_equal(gpus[0].arch, "gfx1100");
  assert_null(gpus[0].profile_target);
  close(fd);

  fd = open_fixture("no_gpu");
  assert_ok(hrx_kfd_probe(&sys, fd, dev_fd, 2, gpus, &count));
  assert_int_equal(count, 0);
  assert_int_equal(counter.open_fds, 0);

  /* /dev/kfd is checked first: absent, or not the user's to open. */
  char* empty = test_temp_dir_create();
  int empty_fd = open_dir(empty);
  assert_status(hrx_kfd_probe(&sys, fd, empty_fd, 2, gpus, &count),
                HRX_STATUS_UNAVAILABLE, "no AMD GPU: /dev/kfd is absent");
  counter.fail_op = KFD_TEST_OPENAT;
  counter.fail_at = counter.calls[KFD_TEST_OPENAT] + 1;
  counter.fail_errno = EPERM;
  assert_status(hrx_kfd_probe(&sys, fd, dev_fd, 2, gpus, &count),
                HRX_STATUS_PERMISSION_DENIED,
                "add the user to the 'render' group");
  assert_int_equal(counter.open_fds, 0);

  close(empty_fd);
  test_temp_dir_remove(empty);
  close(fd);
  close(dev_fd);
  test_temp_dir_remove(dev);
}

/* The real machine: whatever it has, the answer is a list or one clear
 * line. */
static void test_probe_this_machine(void** state) {
  (void)state;
  hrx_fabric_kfd_gpu_t gpus[4];
  size_t count = 0;
  hrx_status_t status = hrx_fabric_kfd_probe(4, gpus, &count);
  if (status == HRX_OK) {
    for (size_t i = 0; i < count && i < 4; ++i) {
      assert_int_equal(strncmp(gpus[i].arch, "gfx", 3), 0);
    }
  } else if (hrx_status_is(status, HRX_STATUS_UNAVAILABLE)) {
    assert_status(status, HRX_STATUS_UNAVAILABLE, "no AMD GPU: ");
  } else {
    assert_status(status, HRX_STATUS_PERMISSION_DENIED, "'render' group");
  }
  assert_status(hrx_fabric_kfd_probe(4, NULL, &count),
                HRX_STATUS_INVALID_ARGUMENT, "NULL output");
  assert_status(hrx_fabric_kfd_probe(0, NULL, NULL),
                HRX_STATUS_INVALID_ARGUMENT, "NULL output");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gfx1151_apu),
      cmocka_unit_test(test_no_gpu),
      cmocka_unit_test(test_gfx1100_unsupported),
      cmocka_unit_test(test_generation_changes_mid_scan),
      cmocka_unit_test(test_valid_generated_gpu),
      cmocka_unit_test(test_malformed_properties),
      cmocka_unit_test(test_malformed_numbers_files),
      cmocka_unit_test(test_missing_topology),
      cmocka_unit_test(test_read_faults),
      cmocka_unit_test(test_open_device),
      cmocka_unit_test(test_probe_fixtures),
      cmocka_unit_test(test_probe_this_machine),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
