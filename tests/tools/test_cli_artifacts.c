/* hrx inspect and hrx fetch on model artifacts, run as a user would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"

static void test_inspect(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  const char header[] =
      "{\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
      "\"__metadata__\":{\"format\":\"pt\"}}";
  uint8_t file[256] = {0};
  size_t n = sizeof(header) - 1;
  file[0] = (uint8_t)n;
  memcpy(file + 8, header, n);
  char* good = test_strdup_printf("%s/w.safetensors", root);
  test_write_file(good, file, 8 + n + 8);
  run_result_t r;
  char* args = test_strdup_printf("inspect %s", good);
  run_hrx(NULL, args, &r);
  if (r.exit_code != 0) fail_msg("inspect: %s", r.output);
  assert_non_null(strstr(r.output, "1 tensor, 8 bytes of data"));
  assert_non_null(strstr(r.output, "metadata format = pt"));
  assert_non_null(strstr(r.output, "F32     [2] 8 bytes"));
  /* One data byte short: the range leaves the file. */
  test_write_file(good, file, 8 + n + 7);
  run_hrx(NULL, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "not inside the 7-byte data section"));
  run_hrx(NULL, "inspect", &r);
  assert_int_equal(r.exit_code, 2);
  run_hrx(NULL, "inspect a b", &r);
  assert_int_equal(r.exit_code, 2);
  free(args);
  free(good);
  test_temp_dir_remove(root);
}

/* A cache as huggingface_hub writes it, read without the network. */
static void test_fetch_offline(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  const char* commit = "0123456789abcdef0123456789abcdef01234567";
  char* repo = test_strdup_printf("%s/hub/models--org--tiny", root);
  char* dir = test_strdup_printf("%s/snapshots/%s/sub", repo, commit);
  assert_ok(hrx_dir_create_all(dir, 0755));
  char* refs = test_strdup_printf("%s/refs", repo);
  assert_ok(hrx_dir_create_all(refs, 0755));
  char* ref = test_strdup_printf("%s/main", refs);
  test_write_file(ref, commit, 40);
  char* blobs = test_strdup_printf("%s/blobs", repo);
  assert_ok(hrx_dir_create_all(blobs, 0755));
  /* Named like an LFS blob; a hit is not re-hashed unless asked to. */
  const char* sha =
      "1c3ae2fa6aa02ee6ed4a7a1a1a5e0e6b52b2b1cb8bdb3d6b6dcb7f9e2e0b8f5c";
  char* blob = test_strdup_printf("%s/%s", blobs, sha);
  test_write_file(blob, "tiny\n", 5);
  char* link = test_strdup_printf("%s/w.bin", dir);
  char* target = test_strdup_printf("../../../blobs/%s", sha);
  assert_int_equal(symlink(target, link), 0);

  char* env = test_strdup_printf("HF_HUB_CACHE=%s/hub HF_HUB_OFFLINE=1", root);
  run_result_t r;
  run_hrx(env, "fetch org/tiny sub/w.bin", &r);
  if (r.exit_code != 0) fail_msg("fetch: %s", r.output);
  assert_non_null(strstr(r.output, link));
  run_hrx(env, "fetch org/tiny --revision=0123456789abcdef0123456789abcdef01234567 sub/w.bin", &r);
  assert_int_equal(r.exit_code, 0);
  /* A miss names the cache and says why nothing was downloaded. */
  run_hrx(env, "fetch org/tiny config.json", &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "HF_HUB_OFFLINE"));
  assert_non_null(strstr(r.output, "/hub"));
  /* The caller's digest is checked on a hit. */
  run_hrx(env, "fetch org/tiny sub/w.bin --sha256=0000000000000000000000000000000000000000000000000000000000000000", &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "expected"));
  run_hrx(env, "fetch org/tiny", &r);
  assert_int_equal(r.exit_code, 2);
  run_hrx(env, "fetch org/tiny a --type=model-ish", &r);
  assert_int_equal(r.exit_code, 2);
  run_hrx(env, "fetch ../x a", &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "repo id"));
  free(env);
  free(link);
  free(target);
  free(blob);
  free(blobs);
  free(ref);
  free(refs);
  free(dir);
  free(repo);
  test_temp_dir_remove(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_inspect),
      cmocka_unit_test(test_fetch_offline),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
