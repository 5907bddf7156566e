/* hrx pack, prepare and gc of bundles, run as a user would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"

static void test_pack_prepare_gc(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* src = test_strdup_printf("%s/src/k", root);
  assert_ok(hrx_dir_create_all(src, 0755));
  char* file = test_strdup_printf("%s/src/k/a.bin", root);
  test_write_file(file, "abc", 3);
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s/cache HRX_BUNDLE_JSON=%s/b.json",
                                 root, root);
  run_result_t r;
  char* args = test_strdup_printf(
      "pack %s/src --target=gfx1151 --url=https://example.invalid/b.tar.zst "
      "--revision=r1 --output=%s/b.tar.zst --bundle-json=%s/b.json",
      root, root, root);
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("pack: %s", r.output);
  assert_non_null(strstr(r.output, "1 file -> "));
  free(args);

  /* Not installed yet: prepare says how to provide the archive. */
  char* offline = test_strdup_printf("%s HRX_OFFLINE=1", env);
  run_hrx(offline, "prepare", &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "downloads are off (HRX_OFFLINE)"));
  assert_non_null(strstr(r.output, "hrx prepare ARCHIVE"));
  args = test_strdup_printf("prepare %s/b.tar.zst", root);
  run_hrx(offline, args, &r);
  if (r.exit_code != 0) fail_msg("prepare: %s", r.output);
  assert_non_null(strstr(r.output, "bundle r1 for gfx1151 ready"));
  run_hrx(env, "prepare", &r);
  assert_int_equal(r.exit_code, 0);
  run_hrx(env, "doctor", &r);
  assert_non_null(strstr(r.output, "installed and verified"));

  /* gc keeps the pinned bundle and removes another, with the partial
   * download of a third; the pinned bundle's partial download stays. */
  char* stale = test_strdup_printf(
      "%s/cache/hrx/bundles/%064d", root, 7);
  assert_ok(hrx_dir_create_all(stale, 0755));
  char* stale_partial = test_strdup_printf(
      "%s/cache/hrx/bundles/%064d.partial", root, 8);
  test_write_file(stale_partial, "half", 4);
  char* archive = test_strdup_printf("%s/b.tar.zst", root);
  hrx_sha256_digest_t digest;
  assert_ok(hrx_sha256_file(archive, &digest));
  char hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&digest, hex);
  char* pinned =
      test_strdup_printf("%s/cache/hrx/bundles/%s.partial", root, hex);
  test_write_file(pinned, "half", 4);
  run_hrx(env, "gc", &r);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.output, "removed 1 unpinned bundle"));
  assert_non_null(strstr(r.output, "kept 1"));
  struct stat info;
  assert_int_not_equal(stat(stale, &info), 0);
  assert_int_not_equal(stat(stale_partial, &info), 0);
  assert_int_equal(stat(pinned, &info), 0);
  free(archive);
  free(pinned);
  free(stale_partial);

  /* A different archive is refused by digest. */
  test_write_file(file, "abd", 3);
  char* other = test_strdup_printf(
      "pack %s/src --target=t --url=u --output=%s/other.tar.zst", root, root);
  run_hrx(env, other, &r);
  assert_int_equal(r.exit_code, 0);
  free(args);
  args = test_strdup_printf("prepare %s/other.tar.zst", root);
  run_hrx(env, args, &r);
  assert_int_equal(r.exit_code, 1);
  free(args);

  const char* usage[] = {"pack", "pack d --url=u --output=o",
                         "pack d --target=t --output=o",
                         "pack d --target=t --url=u", "pack a b",
                         "prepare a b", "prepare --x"};
  for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); ++i) {
    run_hrx(env, usage[i], &r);
    if (r.exit_code != 2) fail_msg("'hrx %s' exited %d", usage[i], r.exit_code);
  }
  free(other);
  free(stale);
  free(offline);
  free(env);
  free(file);
  free(src);
  test_temp_dir_remove(root);
}

/* prepare reads only regular files (a device or FIFO would hang it), and
 * shows the manifest's strings with control characters escaped. */
static void test_prepare_refuses_devices_and_escapes(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* src = test_strdup_printf("%s/src", root);
  assert_ok(hrx_dir_create_all(src, 0755));
  char* env = test_strdup_printf(
      "XDG_CACHE_HOME=%s/cache HRX_BUNDLE_JSON=%s/b.json", root, root);
  run_result_t r;
  char* args = test_strdup_printf(
      "pack %s --target=t --url=b.tar.zst --revision=\"$(printf 'r\\033[2J')\" "
      "--output=%s/b.tar.zst --bundle-json=%s/b.json",
      src, root, root);
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("pack: %s", r.output);
  free(args);
  run_hrx(env, "prepare /dev/zero", &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "is a character device"));
  char* fifo = test_strdup_printf("%s/fifo", root);
  assert_int_equal(mkfifo(fifo, 0644), 0);
  args = test_strdup_printf("prepare %s", fifo);
  run_hrx(env, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "is a FIFO"));
  free(args);
  run_hrx(env, "prepare", &r);
  if (r.exit_code != 0) fail_msg("prepare: %s", r.output);
  assert_non_null(strstr(r.output, "bundle r\\x1b[2J for t ready"));
  free(fifo);
  free(env);
  free(src);
  test_temp_dir_remove(root);
}

/* pack's outputs follow the rules of every user-chosen output path, and a
 * failed pack leaves them alone; prepare's download limits are checked
 * numbers. */
static void test_pack_outputs_and_prepare_limits(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* src = test_strdup_printf("%s/src", root);
  assert_ok(hrx_dir_create_all(src, 0755));
  char* output = test_strdup_printf("%s/out.tar.zst", root);
  test_write_file(output, "precious", 8);
  char* fifo = test_strdup_printf("%s/src/fifo", root);
  assert_int_equal(mkfifo(fifo, 0644), 0);
  run_result_t r;
  char* args = test_strdup_printf(
      "pack %s --target=t --url=u --output=%s", src, output);
  run_hrx(NULL, args, &r);
  assert_int_equal(r.exit_code, 1);
  void* data = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), output, 100, &data,
                              &length));
  assert_int_equal(length, 8);
  free(data);
  free(args);
  assert_int_equal(unlink(fifo), 0);
  args = test_strdup_printf(
      "pack %s --target=t --url=u --output=/dev/null --bundle-json=%s/b.json",
      src, root);
  run_hrx(NULL, args, &r);
  if (r.exit_code != 0) fail_msg("pack: %s", r.output);
  free(args);
  const char* usage[] = {
      "pack d --target=t --url=u --output=o --bundle-json=o",
      "prepare --timeout=abc", "prepare --stall-window=0",
      "prepare --min-rate=-1", "prepare --max-size=1x",
      "prepare --stall-window=99999"};
  for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); ++i) {
    run_hrx(NULL, usage[i], &r);
    if (r.exit_code != 2) fail_msg("'hrx %s' exited %d", usage[i], r.exit_code);
  }
  free(fifo);
  free(output);
  free(src);
  test_temp_dir_remove(root);
}

/* NPU images are pinned for the NPU profile: pack takes a valid image
 * under npu/amd.xdna.strix_halo.17f0_11/ and refuses other folders, other
 * files and images that do not validate, naming them. */
static void test_pack_checks_npu_images(void** state) {
  (void)state;
  if (strcmp(getenv("HRX_TEST_HAVE_NPU"), "1") != 0) skip();
  void* noop = NULL;
  size_t noop_length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(),
                              getenv("HRX_NPU_NOOP_IMAGE"), 1 << 20, &noop,
                              &noop_length));
  char* root = test_temp_dir_create();
  char* folder = test_strdup_printf("%s/src/npu/amd.xdna.strix_halo.17f0_11",
                                    root);
  assert_ok(hrx_dir_create_all(folder, 0755));
  char* image = test_strdup_printf("%s/noop.xdna", folder);
  test_write_file(image, noop, noop_length);
  run_result_t r;
  char* args = test_strdup_printf(
      "pack %s/src --target=host --url=u --output=%s/b.tar.zst "
      "--bundle-json=%s/b.json",
      root, root, root);
  run_hrx(NULL, args, &r);
  if (r.exit_code != 0) fail_msg("pack: %s", r.output);
  char* json_path = test_strdup_printf("%s/b.json", root);
  char* json = test_read_text(json_path);
  assert_non_null(
      strstr(json, "\"npu/amd.xdna.strix_halo.17f0_11/noop.xdna\""));
  free(json);

  /* An image that does not validate. */
  test_write_file(image, noop, noop_length / 2);
  run_hrx(NULL, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(
      strstr(r.output, "npu/amd.xdna.strix_halo.17f0_11/noop.xdna"));
  /* A file that is no image. */
  test_write_file(image, noop, noop_length);
  char* other = test_strdup_printf("%s/notes.txt", folder);
  test_write_file(other, "x", 1);
  run_hrx(NULL, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "notes.txt: only .xdna images"));
  assert_int_equal(unlink(other), 0);
  /* Another profile. */
  char* wrong = test_strdup_printf("%s/src/npu/amd.xdna.phoenix", root);
  assert_ok(hrx_dir_create_all(wrong, 0755));
  run_hrx(NULL, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "npu/amd.xdna.phoenix: NPU images are "
                                   "pinned for the qualified profile"));
  free(wrong);
  free(other);
  free(json_path);
  free(args);
  free(image);
  free(folder);
  free(noop);
  test_temp_dir_remove(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pack_prepare_gc),
      cmocka_unit_test(test_prepare_refuses_devices_and_escapes),
      cmocka_unit_test(test_pack_outputs_and_prepare_limits),
      cmocka_unit_test(test_pack_checks_npu_images),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
