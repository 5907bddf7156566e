/* SHA-256 against FIPS 180-2 vectors, streaming, files, and hex. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_support.h"

static void assert_digest_hex(const hrx_sha256_digest_t* digest,
                              const char* expected) {
  char hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(digest, hex);
  assert_string_equal(hex, expected);
}

static void test_known_vectors(void** state) {
  (void)state;
  hrx_sha256_digest_t digest;
  hrx_sha256("", 0, &digest);
  assert_digest_hex(&digest,
                    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b"
                    "7852b855");
  hrx_sha256("abc", 3, &digest);
  assert_digest_hex(&digest,
                    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61"
                    "f20015ad");
  const char* two_blocks =
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  hrx_sha256(two_blocks, strlen(two_blocks), &digest);
  assert_digest_hex(&digest,
                    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd4"
                    "19db06c1");
}

static void test_streaming_matches_one_shot(void** state) {
  (void)state;
  /* One million 'a': the FIPS long-message vector, fed in odd pieces. */
  size_t total = 1000000;
  char* data = malloc(total);
  memset(data, 'a', total);
  hrx_sha256_t context;
  hrx_sha256_init(&context);
  size_t at = 0;
  for (size_t piece = 1; at < total; piece = piece * 3 + 1) {
    size_t n = piece < total - at ? piece : total - at;
    hrx_sha256_update(&context, data + at, n);
    at += n;
  }
  hrx_sha256_digest_t digest;
  hrx_sha256_final(&context, &digest);
  assert_digest_hex(&digest,
                    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39cc"
                    "c7112cd0");
  free(data);
}

static void test_file_larger_than_a_chunk(void** state) {
  (void)state;
  char* dir = test_temp_dir_create();
  char* path = test_strdup_printf("%s/big", dir);
  size_t total = (3u << 20) + 123; /* crosses several 1 MiB reads */
  unsigned char* data = malloc(total);
  for (size_t i = 0; i < total; ++i) data[i] = (unsigned char)(i * 31 + 7);
  test_write_file(path, data, total);
  hrx_sha256_digest_t from_file;
  hrx_sha256_digest_t from_memory;
  assert_ok(hrx_sha256_file(path, &from_file));
  hrx_sha256(data, total, &from_memory);
  assert_memory_equal(from_file.bytes, from_memory.bytes, 32);
  free(data);
  free(path);
  test_temp_dir_remove(dir);
}

/* A running hash fed from a file's current position, then continued:
 * what a resumed download does with the bytes an earlier try kept. */
static void test_update_from_fd(void** state) {
  (void)state;
  char* dir = test_temp_dir_create();
  char* path = test_strdup_printf("%s/part", dir);
  test_write_file(path, "hello ", 6);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  hrx_sha256_t context;
  hrx_sha256_init(&context);
  uint64_t bytes = 99;
  assert_ok(hrx_sha256_update_fd(&context, fd, &bytes));
  assert_int_equal(bytes, 6);
  hrx_sha256_update(&context, "world", 5);
  hrx_sha256_digest_t resumed, whole;
  hrx_sha256_final(&context, &resumed);
  hrx_sha256("hello world", 11, &whole);
  assert_memory_equal(resumed.bytes, whole.bytes, 32);
  close(fd);
  /* A directory cannot be read; the count says nothing was. */
  fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  hrx_sha256_init(&context);
  assert_status_code(hrx_sha256_update_fd(&context, fd, &bytes),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_int_equal(bytes, 0);
  close(fd);
  free(path);
  test_temp_dir_remove(dir);
}

static void test_file_errors(void** state) {
  (void)state;
  hrx_sha256_digest_t digest;
  assert_status_code(hrx_sha256_file("/nonexistent/hrx/file", &digest),
                     HRX_STATUS_NOT_FOUND);
  char* dir = test_temp_dir_create();
  /* A directory opens but cannot be read. */
  assert_status_code(hrx_sha256_file(dir, &digest),
                     HRX_STATUS_INVALID_ARGUMENT);
  test_temp_dir_remove(dir);
}

static void test_hex_round_trip(void** state) {
  (void)state;
  const unsigned char bytes[] = {0x00, 0x01, 0x7f, 0x80, 0xab, 0xff};
  char hex[13];
  hrx_hex_encode(bytes, sizeof(bytes), hex);
  assert_string_equal(hex, "00017f80abff");
  unsigned char decoded[6];
  size_t length = 0;
  assert_ok(hrx_hex_decode("00017F80aBfF", 12, decoded, sizeof(decoded),
                           &length));
  assert_int_equal(length, 6);
  assert_memory_equal(decoded, bytes, 6);
}

static void test_hex_rejects_bad_input(void** state) {
  (void)state;
  unsigned char out[4];
  size_t length = 99;
  assert_status_code(hrx_hex_decode("abc", 3, out, sizeof(out), &length),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_int_equal(length, 0);
  hrx_status_t status = hrx_hex_decode("a0zz", 4, out, sizeof(out), &length);
  assert_non_null(strstr(hrx_status_message(status), "position 2"));
  assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_hex_decode("0011223344", 10, out, sizeof(out),
                                    &length),
                     HRX_STATUS_OUT_OF_RANGE);
  hrx_sha256_digest_t digest;
  assert_status_code(hrx_sha256_digest_parse("abcd", &digest),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(
      hrx_sha256_digest_parse("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b93"
                              "4ca495991b7852b855ff",
                              &digest),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(
      hrx_sha256_digest_parse("g3b0c44298fc1c149afbf4c8996fb92427ae41e4649b93"
                              "4ca495991b7852b855",
                              &digest),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_ok(hrx_sha256_digest_parse(
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      &digest));
  assert_int_equal(digest.bytes[0], 0xe3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_known_vectors),
      cmocka_unit_test(test_streaming_matches_one_shot),
      cmocka_unit_test(test_file_larger_than_a_chunk),
      cmocka_unit_test(test_update_from_fd),
      cmocka_unit_test(test_file_errors),
      cmocka_unit_test(test_hex_round_trip),
      cmocka_unit_test(test_hex_rejects_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
