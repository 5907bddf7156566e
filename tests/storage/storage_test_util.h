/* Test files for the storage suite: a deterministic byte pattern written to
 * a directory, and the pread oracle reads are checked against. */
#ifndef HRX_TESTS_STORAGE_TEST_UTIL_H_
#define HRX_TESTS_STORAGE_TEST_UTIL_H_

#include <stdbool.h>
#include <stdint.h>

#include "hrx/storage.h"
#include "test_support.h"

/* tmpfs (/dev/shm) and a real filesystem (a directory in the build tree). */
#define STORAGE_TEST_DIR_COUNT 2
const char* storage_test_dir(int index);

/* Whether the filesystem under |dir| reports a direct-I/O alignment
 * through statx(STATX_DIOALIGN). */
bool storage_test_dir_supports_direct(const char* dir);

/* Writes |size| pattern bytes to a new file in |dir|; returns its
 * malloc'ed path. */
char* storage_test_file_create(const char* dir, const char* name,
                               uint64_t size);
/* Removes and frees |path|. */
void storage_test_file_remove(char* path);

/* Asserts that |data| equals |length| bytes at |offset| of |path|, read with
 * pread. */
void storage_test_assert_matches_pread(const char* path, uint64_t offset,
                                       const void* data, uint64_t length);

/* Small options for tests: |slots| x |slot_bytes|, the rest default. */
hrx_storage_options_t storage_test_options(uint32_t slots,
                                           uint64_t slot_bytes);

/* A session with |options| that has |path| open as *|out_file|. */
hrx_storage_session_t* storage_test_session(
    const hrx_storage_options_t* options, hrx_allocator_t allocator,
    const char* path, uint32_t* out_file);

/* A pattern file and a session that has it open. */
typedef struct storage_test_case_t {
  char* path;
  hrx_storage_session_t* session;
  uint32_t file;
} storage_test_case_t;

/* Creates file |name| of |size| bytes in |dir| and a buffered session of
 * |slots| x |slot_bytes| with it open. */
storage_test_case_t storage_test_open(const char* dir, const char* name,
                                      uint64_t size, uint32_t slots,
                                      uint64_t slot_bytes);
/* Destroys the session and removes the file. */
void storage_test_close(storage_test_case_t* test_case);

/* Reads and waits (10 s). */
void storage_test_read_wait(hrx_storage_session_t* session, uint32_t file,
                            uint64_t offset, uint64_t length,
                            hrx_storage_ticket_t** out_ticket,
                            const void** out_data);

/* Reads, which is accepted, and asserts that waiting fails with |code|
 * and |text|. */
void storage_test_read_fails(hrx_storage_session_t* session, uint32_t file,
                             uint64_t offset, uint64_t length,
                             hrx_status_code_t code, const char* text);

#endif /* HRX_TESTS_STORAGE_TEST_UTIL_H_ */
