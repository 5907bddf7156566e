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
  EXPECT_OUTPUT(&r, "1 tensor, 8 bytes of data", "metadata format = pt",
                "F32     [2] 8 bytes");
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

/* A safetensors image: the 8-byte length of |header| (or |length| when
 * not 0), the header and |data| zero bytes, written to |path|. */
static void write_safetensors(const char* path, const char* header,
                              uint64_t length, size_t data) {
  size_t n = strlen(header);
  uint8_t* bytes = calloc(1, 8 + n + data);
  assert_non_null(bytes);
  if (!length) length = n;
  for (int i = 0; i < 8; ++i) bytes[i] = (uint8_t)(length >> (8 * i));
  memcpy(bytes + 8, header, n);
  test_write_file(path, bytes, 8 + n + data);
  free(bytes);
}

static void assert_no_raw_controls(const char* output) {
  if (strchr(output, '\x1b')) fail_msg("raw escape in: %s", output);
}

/* Names from the file are listed escaped, and named escaped in errors. */
static void test_inspect_escapes_names(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* file = test_strdup_printf("%s/evil.safetensors", root);
  write_safetensors(file,
                    "{\"\\u001b[2J\\nforged\":{\"dtype\":\"U8\",\"shape\":[1],"
                    "\"data_offsets\":[0,1]},\"__metadata__\":"
                    "{\"k\\u001b\":\"v\\u001b]0;title\\u0007\"}}",
                    0, 1);
  char* args = test_strdup_printf("inspect %s", file);
  run_result_t r;
  run_hrx(NULL, args, &r);
  if (r.exit_code != 0) fail_msg("inspect: %s", r.output);
  assert_non_null(strstr(r.output, "  \\x1b[2J\\nforged "));
  assert_non_null(strstr(r.output, "metadata k\\x1b = v\\x1b]0;title\\x07"));
  assert_no_raw_controls(r.output);
  /* The same name in an error. */
  write_safetensors(file,
                    "{\"\\u001b[2J\\nforged\":{\"dtype\":\"X\",\"shape\":[1],"
                    "\"data_offsets\":[0,1]}}",
                    0, 1);
  run_hrx(NULL, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "tensor '\\x1b[2J\\nforged'"));
  assert_no_raw_controls(r.output);
  free(args);

  /* ModelProto { graph { name "\x1b[2J\nevil", node { op_type "\x1b" } } } */
  const uint8_t model[] = {0x3a, 0x10, 0x12, 0x09, 0x1b, '[', '2', 'J', '\n',
                           'e',  'v',  'i',  'l',  0x0a, 0x03, 0x22, 0x01,
                           0x1b};
  char* onnx = test_strdup_printf("%s/evil.onnx", root);
  test_write_file(onnx, model, sizeof(model));
  args = test_strdup_printf("inspect %s", onnx);
  run_hrx(NULL, args, &r);
  if (r.exit_code != 0) fail_msg("inspect: %s", r.output);
  assert_non_null(strstr(r.output, "graph '\\x1b[2J\\nevil'"));
  assert_non_null(strstr(r.output, "1 nodes: \\x1b x1"));
  assert_no_raw_controls(r.output);
  free(args);
  free(onnx);
  free(file);
  test_temp_dir_remove(root);
}

/* The extension says which format the user meant, and a broken file is
 * reported as one of that format; without a known extension the content
 * decides, and the message names what was tried. Before, a safetensors
 * file with a bad header length was reported as a protobuf error. */
static void test_inspect_reports_the_meant_format(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  const char header[] =
      "{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}";
  static const char* const names[] = {"bad.safetensors", "bad.bin",
                                      "bad"};
  run_result_t r;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    char* file = test_strdup_printf("%s/%s", root, names[i]);
    write_safetensors(file, header, (uint64_t)1 << 56, 1);
    char* args = test_strdup_printf("inspect %s", file);
    run_hrx(NULL, args, &r);
    assert_int_equal(r.exit_code, 1);
    if (!strstr(r.output, "exceeds the")) {
      fail_msg("%s: %s", names[i], r.output);
    }
    free(args);
    free(file);
  }
  /* Named .onnx: ONNX's verdict, whatever the bytes look like. */
  char* file = test_strdup_printf("%s/model.onnx", root);
  write_safetensors(file, header, 0, 1);
  char* args = test_strdup_printf("inspect %s", file);
  run_hrx(NULL, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "DATA_LOSS"));
  assert_null(strstr(r.output, "safetensors"));
  free(args);
  free(file);
  /* Nothing known: tried as ONNX, and said so. */
  file = test_strdup_printf("%s/notes.txt", root);
  test_write_file(file, "just some text\n", 15);
  args = test_strdup_printf("inspect %s", file);
  run_hrx(NULL, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "tried as ONNX"));
  assert_non_null(strstr(r.output, "no safetensors header"));
  free(args);
  free(file);
  test_temp_dir_remove(root);
}

/* A FIFO or a device is refused at once instead of blocking for ever. */
static void test_inspect_refuses_special_files(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* fifo = test_strdup_printf("%s/model.safetensors", root);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  char* args = test_strdup_printf("inspect %s", fifo);
  run_result_t r;
  run_hrx(NULL, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "is a FIFO"));
  run_hrx(NULL, "inspect /dev/zero", &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "is a character device"));
  free(args);
  free(fifo);
  test_temp_dir_remove(root);
}

/* Three external initializers of 2^63 - 1 bytes each: every size is
 * valid, their total is not a 64-bit number. Before, it wrapped. */
static void test_inspect_total_does_not_wrap(void** state) {
  (void)state;
  const uint8_t tensor[] = {
      0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, /* dims */
      0x10, 0x02,                                                 /* UINT8 */
      0x42, 0x01, 't',                                            /* name */
      0x6a, 0x11, 0x0a, 0x08, 'l', 'o', 'c', 'a', 't', 'i', 'o', 'n', 0x12,
      0x05, 'w', '.', 'b', 'i', 'n', /* external_data location = w.bin */
      0x70, 0x01,                    /* data_location = EXTERNAL */
  };
  uint8_t model[256];
  size_t graph = 3 * (2 + sizeof(tensor)) + 5;
  size_t at = 0;
  model[at++] = 0x3a;
  model[at++] = (uint8_t)graph;
  for (int i = 0; i < 3; ++i) {
    model[at++] = 0x2a;
    model[at++] = (uint8_t)sizeof(tensor);
    memcpy(model + at, tensor, sizeof(tensor));
    at += sizeof(tensor);
  }
  const uint8_t node[] = {0x0a, 0x03, 0x22, 0x01, 'A'};
  memcpy(model + at, node, sizeof(node));
  at += sizeof(node);
  char* root = test_temp_dir_create();
  char* file = test_strdup_printf("%s/huge.onnx", root);
  test_write_file(file, model, at);
  char* args = test_strdup_printf("inspect %s", file);
  run_result_t r;
  run_hrx(NULL, args, &r);
  if (r.exit_code != 0) fail_msg("inspect: %s", r.output);
  assert_non_null(strstr(r.output,
                         "3 initializers, more than 18446744073709551615 "
                         "bytes"));
  free(args);
  free(file);
  test_temp_dir_remove(root);
}

/* The download limits are numbers, checked like every other one. */
static void test_fetch_limits_are_checked(void** state) {
  (void)state;
  static const char* const bad[] = {
      "--timeout=0",       "--timeout=abc",
      "--timeout=4294967296",
      "--stall-window=-1", "--stall-window=4294968",
      "--min-rate=1e3",    "--max-size=0",
      "--max-size=18446744073709551616"};
  run_result_t r;
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    char* args = test_strdup_printf("fetch org/tiny a %s", bad[i]);
    run_hrx("HF_HUB_OFFLINE=1", args, &r);
    if (r.exit_code != 2) fail_msg("%s: %s", bad[i], r.output);
    free(args);
  }
  /* Good ones pass on to the resolver (offline: a plain miss). */
  run_hrx("HF_HUB_OFFLINE=1",
          "fetch org/tiny a --timeout=60 --stall-window=10 --min-rate=1 "
          "--max-size=1000000 --cache-dir=/nonexistent",
          &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "not in the cache"));
  /* An unprintable repo id is named escaped. */
  run_hrx("HF_HUB_OFFLINE=1", "fetch \"$(printf 'org/\\033[2J')\" a", &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "repo id 'org/\\x1b[2J'"));
  assert_no_raw_controls(r.output);
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
      cmocka_unit_test(test_inspect_escapes_names),
      cmocka_unit_test(test_inspect_reports_the_meant_format),
      cmocka_unit_test(test_inspect_refuses_special_files),
      cmocka_unit_test(test_inspect_total_does_not_wrap),
      cmocka_unit_test(test_fetch_limits_are_checked),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
