/* The hrx tool's NPU half against the npu suite's sysfs fixtures and
 * scripted amdxdna driver: `hrx doctor` lists the NPU or says why there
 * is none, by reason; `hrx run IMAGE.xdna` submits an image and waits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device_internal.h"
#include "hrx_cli.h"
#include "npu_cli.h"
#include "npu_test_util.h"
#include "xdna_fake.h"

typedef struct rig_t {
  char* root;
  int root_fd;
  xdna_fake_t fake;
  hrx_npu_sys_t sys;
  char* out;
  char* err;
} rig_t;

static void fake_enumerate(void* context, hrx_npu_candidates_t* out) {
  rig_t* rig = context;
  hrx_npu_enumerate_with(&rig->sys, rig->root_fd, out);
}

static hrx_status_t fake_open(void* context, const char* node,
                              hrx_npu_device_t** out_device) {
  rig_t* rig = context;
  return hrx_npu_device_open_with(&rig->sys, rig->root_fd,
                                  hrx_allocator_system(), node, NULL,
                                  out_device);
}

static void rig_init(rig_t* rig, const npu_fixture_node_t* nodes,
                     size_t count) {
  memset(rig, 0, sizeof(*rig));
  rig->root = npu_fixture_create(nodes, count);
  rig->root_fd = npu_fixture_open(rig->root);
  xdna_fake_init(&rig->fake);
  rig->sys = xdna_fake_sys(&rig->fake);
}

static void rig_deinit(rig_t* rig) {
  assert_int_equal(rig->fake.open_nodes, 0);
  assert_int_equal(rig->fake.mappings, 0);
  assert_int_equal(rig->fake.leaked_at_close, 0);
  xdna_fake_deinit(&rig->fake);
  close(rig->root_fd);
  test_temp_dir_remove(rig->root);
  free(rig->out);
  free(rig->err);
}

static hrx_cli_npu_driver_t rig_driver(rig_t* rig) {
  return (hrx_cli_npu_driver_t){
      .context = rig, .enumerate = fake_enumerate, .open = fake_open};
}

static void rig_doctor(rig_t* rig) {
  free(rig->out);
  size_t size = 0;
  FILE* out = open_memstream(&rig->out, &size);
  hrx_cli_npu_driver_t driver = rig_driver(rig);
  hrx_cli_npu_doctor(&driver, out);
  fclose(out);
}

/* Runs `hrx run` with |args| (NULL-terminated, after "run"). */
static int rig_run(rig_t* rig, const char* const* args) {
  char* argv[16] = {"run"};
  int argc = 1;
  while (args[argc - 1]) {
    argv[argc] = (char*)args[argc - 1];
    ++argc;
  }
  free(rig->out);
  free(rig->err);
  size_t out_size = 0;
  size_t err_size = 0;
  FILE* out = open_memstream(&rig->out, &out_size);
  FILE* err = open_memstream(&rig->err, &err_size);
  hrx_cli_npu_driver_t driver = rig_driver(rig);
  int code = hrx_cli_npu_run(&driver, argc, argv, out, err);
  fclose(out);
  fclose(err);
  return code;
}

static void assert_contains(const char* text, const char* part) {
  if (!strstr(text, part)) fail_msg("'%s' is not in:\n%s", part, text);
}

static void test_doctor_lists_the_npu(void** state) {
  (void)state;
  static const npu_fixture_node_t kNode = {"1022:17F0", "amdxdna", "0x11"};
  rig_t rig;
  rig_init(&rig, &kNode, 1);
  rig_doctor(&rig);
  assert_contains(rig.out,
                  "npu          accel0: PCI 1022:17f0 rev 0x11, driver "
                  "amdxdna (DRM 0.8), AIE 8 columns x 6 rows: profile "
                  "amd.xdna.strix_halo.17f0_11\n");
  rig_deinit(&rig);
}

/* Every way there is no usable NPU has its own reason. */
static void test_doctor_says_why_not(void** state) {
  (void)state;
  static const npu_fixture_node_t kNodes[] = {
      {"1022:17F0", "amdxdna", "0x10"},
      {"1022:17F0", "amdxdna", "0x20"},
      {"8086:643E", "intel_vpu", "0x04"},
      {"1022:17F0", NULL, "0x11"},
  };
  rig_t rig;
  rig_init(&rig, kNodes, 4);
  rig_doctor(&rig);
  assert_contains(rig.out, "accel0: refused: PCI revision 0x10 is not the "
                           "qualified 0x11");
  assert_contains(rig.out, "accel1: refused: PCI revision 0x20");
  assert_contains(rig.out, "accel2: refused: PCI vendor 0x8086 is not AMD");
  assert_contains(rig.out, "accel3: refused: no driver is bound");
  rig_deinit(&rig);

  /* No accel node at all. */
  rig_init(&rig, NULL, 0);
  rig_doctor(&rig);
  assert_contains(rig.out, "npu          no NPU: no /dev/accel node (the "
                           "amdxdna driver is not loaded, or this machine "
                           "has no NPU)");
  rig_deinit(&rig);

  /* An old driver, and a node this user may not open. */
  static const npu_fixture_node_t kQualified = {"1022:17F0", "amdxdna",
                                                "0x11"};
  rig_init(&rig, &kQualified, 1);
  rig.fake.drm_minor = 7;
  rig_doctor(&rig);
  assert_contains(rig.out, "accel0: refused: DRM version 0.7 is older than "
                           "0.8");
  rig.fake.drm_minor = 8;
  rig.fake.fail_errno = EACCES;
  for (size_t n = 1; !strstr(rig.fake.failed_call, "dev/accel"); ++n) {
    assert_true(n < 64);
    rig.fake.calls = 0;
    rig.fake.fail_at = n;
    rig_doctor(&rig);
  }
  assert_contains(rig.out, "accel0: refused: opening the node");
  assert_contains(rig.out, "Permission denied");
  rig_deinit(&rig);
}

/* Writes the npu suite's default image (entry "main", the NOOP program,
 * one binding) into |dir|. */
static char* write_image(const char* dir) {
  npu_image_t d;
  npu_image_default(&d);
  size_t size = 0;
  uint8_t* bytes = npu_image_build(&d, &size);
  char* path = test_strdup_printf("%s/noop.xdna", dir);
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, size, f), size);
  fclose(f);
  free(bytes);
  return path;
}

static void test_run_submits_an_image(void** state) {
  (void)state;
  static const npu_fixture_node_t kNode = {"1022:17F0", "amdxdna", "0x11"};
  rig_t rig;
  rig_init(&rig, &kNode, 1);
  char* image = write_image(rig.root);
  const char* args[] = {image, "--entry=main", "--count=3", NULL};
  assert_int_equal(rig_run(&rig, args), HRX_EXIT_OK);
  assert_contains(rig.out, "hrx: ran entry 'main' of ");
  assert_contains(rig.out, "on accel0: 3 invocations completed (1 binding)");
  assert_int_equal(rig.fake.submitted, 3);
  assert_int_equal(rig.fake.num_tiles, 32);
  /* The default entry is the first. */
  const char* first[] = {image, NULL};
  assert_int_equal(rig_run(&rig, first), HRX_EXIT_OK);
  assert_contains(rig.out, "1 invocation completed");
  /* A firmware error is the run's failure. */
  rig.fake.completion_state = 5;
  assert_int_equal(rig_run(&rig, first), HRX_EXIT_FAILURE);
  assert_contains(rig.err, "command state ERROR");
  free(image);
  rig_deinit(&rig);
}

static void test_run_errors(void** state) {
  (void)state;
  rig_t rig;
  rig_init(&rig, NULL, 0);
  char* image = write_image(rig.root);
  const char* no_npu[] = {image, NULL};
  assert_int_equal(rig_run(&rig, no_npu), HRX_EXIT_FAILURE);
  assert_contains(rig.err, "no /dev/accel node");
  const char* entry[] = {image, "--entry=nope", NULL};
  assert_int_equal(rig_run(&rig, entry), HRX_EXIT_FAILURE);
  assert_contains(rig.err, "nope");
  const char* missing[] = {"/nonexistent/x.xdna", NULL};
  assert_int_equal(rig_run(&rig, missing), HRX_EXIT_FAILURE);
  assert_contains(rig.err, "/nonexistent/x.xdna");
  const char* count[] = {image, "--count=0", NULL};
  assert_int_equal(rig_run(&rig, count), HRX_EXIT_USAGE);
  assert_contains(rig.err, "--count");
  const char* extra[] = {image, image, NULL};
  assert_int_equal(rig_run(&rig, extra), HRX_EXIT_USAGE);
  const char* none[] = {NULL};
  assert_int_equal(rig_run(&rig, none), HRX_EXIT_USAGE);
  assert_contains(rig.err, "missing IMAGE.xdna");
  /* Not an image: the parser says why. */
  FILE* f = fopen(image, "wb");
  fputs("not an ELF", f);
  fclose(f);
  assert_int_equal(rig_run(&rig, no_npu), HRX_EXIT_FAILURE);
  assert_contains(rig.err, image);
  free(image);
  rig_deinit(&rig);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_doctor_lists_the_npu),
      cmocka_unit_test(test_doctor_says_why_not),
      cmocka_unit_test(test_run_submits_an_image),
      cmocka_unit_test(test_run_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
