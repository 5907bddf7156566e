#include "storage_test_util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STORAGE_TEST_TIMEOUT_NS 10000000000ull

const char* storage_test_dir(int index) {
  return index == 0 ? "/dev/shm" : HRX_STORAGE_TEST_BUILD_DIR;
}

char* storage_test_file_create(const char* dir, const char* name,
                               uint64_t size) {
  char* path = test_strdup_printf("%s/hrx-storage-%d-%s", dir, (int)getpid(),
                                  name);
  uint8_t* bytes = malloc(size ? size : 1);
  assert_non_null(bytes);
  uint32_t state = 0x9e3779b9u;
  for (uint64_t i = 0; i < size; ++i) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    bytes[i] = (uint8_t)state;
  }
  test_write_file(path, bytes, size);
  free(bytes);
  return path;
}

bool storage_test_dir_supports_direct(const char* dir) {
  char* path = storage_test_file_create(dir, "probe", 16);
  struct statx info = {0};
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  bool supported = statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &info) == 0 &&
                   (info.stx_mask & STATX_DIOALIGN) &&
                   info.stx_dio_offset_align != 0;
  close(fd);
  storage_test_file_remove(path);
  return supported;
}

void storage_test_file_remove(char* path) {
  unlink(path);
  free(path);
}

void storage_test_assert_matches_pread(const char* path, uint64_t offset,
                                       const void* data, uint64_t length) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  uint8_t* expected = malloc(length);
  assert_non_null(expected);
  assert_int_equal(pread(fd, expected, length, (off_t)offset),
                   (ssize_t)length);
  close(fd);
  assert_memory_equal(data, expected, length);
  free(expected);
}

hrx_storage_options_t storage_test_options(uint32_t slots,
                                           uint64_t slot_bytes) {
  hrx_storage_options_t options = HRX_STRUCT_INIT(hrx_storage_options_t);
  assert_ok(hrx_storage_options_default(&options));
  options.slot_count = slots;
  options.slot_bytes = slot_bytes;
  options.file_capacity = 8;
  return options;
}

hrx_storage_session_t* storage_test_session(
    const hrx_storage_options_t* options, hrx_allocator_t allocator,
    const char* path, uint32_t* out_file) {
  hrx_storage_session_t* session = NULL;
  assert_ok(hrx_storage_session_create(options, allocator, &session));
  assert_ok(hrx_storage_session_open_file(session, path, out_file));
  return session;
}

storage_test_case_t storage_test_open(const char* dir, const char* name,
                                      uint64_t size, uint32_t slots,
                                      uint64_t slot_bytes) {
  storage_test_case_t test_case = {0};
  test_case.path = storage_test_file_create(dir, name, size);
  hrx_storage_options_t options = storage_test_options(slots, slot_bytes);
  test_case.session = storage_test_session(&options, hrx_allocator_system(),
                                           test_case.path, &test_case.file);
  return test_case;
}

void storage_test_close(storage_test_case_t* test_case) {
  hrx_storage_session_destroy(test_case->session);
  storage_test_file_remove(test_case->path);
}

void storage_test_read_wait(hrx_storage_session_t* session, uint32_t file,
                            uint64_t offset, uint64_t length,
                            hrx_storage_ticket_t** out_ticket,
                            const void** out_data) {
  assert_ok(hrx_storage_session_read(session, file, offset, length,
                                     out_ticket));
  uint64_t got = 0;
  assert_ok(hrx_storage_ticket_wait(*out_ticket, STORAGE_TEST_TIMEOUT_NS,
                                    out_data, &got));
  assert_int_equal(got, length);
}

void storage_test_read_fails(hrx_storage_session_t* session, uint32_t file,
                             uint64_t offset, uint64_t length,
                             hrx_status_code_t code, const char* text) {
  hrx_storage_ticket_t* ticket = NULL;
  assert_ok(hrx_storage_session_read(session, file, offset, length, &ticket));
  const void* data = NULL;
  uint64_t got = 0;
  assert_status(
      hrx_storage_ticket_wait(ticket, STORAGE_TEST_TIMEOUT_NS, &data, &got),
      code, text);
  assert_null(data);
  hrx_storage_ticket_release(ticket);
}
