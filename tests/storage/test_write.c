/* Writes through a storage session: buffered at any offset, direct only
 * when aligned, optional fsync/fdatasync, stale shared reads prevented,
 * and every failure (refusals, faults in the ring, short writes) reported
 * clearly. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "storage_fault_sys.h"
#include "storage_test_util.h"

#define KIB 1024ull
#define FILE_BYTES (256 * KIB)
#define SLOT_BYTES (64 * KIB)
#define TIMEOUT_NS 10000000000ull

/* |length| bytes derived from |seed|, unlike the file's pattern. */
static uint8_t* fresh_bytes(uint64_t length, uint8_t seed) {
  uint8_t* bytes = malloc(length);
  assert_non_null(bytes);
  for (uint64_t i = 0; i < length; ++i) {
    bytes[i] = (uint8_t)(seed + i * 7 + (i >> 9));
  }
  return bytes;
}

/* Writes and waits; the ticket yields exactly the bytes written. */
static void write_wait(hrx_storage_session_t* session, uint32_t file,
                       uint64_t offset, const uint8_t* bytes, uint64_t length,
                       hrx_storage_write_flags_t flags) {
  hrx_storage_ticket_t* ticket = NULL;
  assert_ok(hrx_storage_session_write(session, file, offset, bytes, length,
                                      flags, &ticket));
  const void* data = NULL;
  uint64_t got = 0;
  assert_ok(hrx_storage_ticket_wait(ticket, TIMEOUT_NS, &data, &got));
  assert_int_equal(got, length);
  assert_memory_equal(data, bytes, length);
  hrx_storage_ticket_release(ticket);
}

static hrx_storage_session_t* writer(hrx_storage_io_mode_t mode,
                                     test_allocator_t* counts,
                                     const char* path, uint32_t* out_file) {
  hrx_storage_options_t options = storage_test_options(2, SLOT_BYTES);
  options.io_mode = mode;
  hrx_storage_session_t* session = NULL;
  assert_ok(hrx_storage_session_create(&options, test_allocator(counts),
                                       &session));
  assert_ok(hrx_storage_session_open_file_for_writing(session, path, out_file));
  return session;
}

/* Buffered writes at odd offsets and lengths, past the end of the file,
 * and with each sync flag, on tmpfs and on a real filesystem; the file
 * then holds exactly what was written (checked with pread). */
static void test_buffered_writes(void** state) {
  (void)state;
  for (int d = 0; d < STORAGE_TEST_DIR_COUNT; ++d) {
    char* path = storage_test_file_create(storage_test_dir(d), "write",
                                          FILE_BYTES);
    test_allocator_t counts = {0};
    uint32_t file = 0;
    hrx_storage_session_t* session =
        writer(HRX_STORAGE_IO_BUFFERED, &counts, path, &file);
    const struct {
      uint64_t offset, length;
      hrx_storage_write_flags_t flags;
    } cases[] = {
        {0, 1, HRX_STORAGE_WRITE_NONE},
        {4095, 4097, HRX_STORAGE_WRITE_NONE},
        {100 * KIB + 3, SLOT_BYTES, HRX_STORAGE_WRITE_DATASYNC},
        {FILE_BYTES - 10, 1000, HRX_STORAGE_WRITE_FSYNC}, /* extends it */
        {7, 33, HRX_STORAGE_WRITE_DATASYNC | HRX_STORAGE_WRITE_FSYNC},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
      uint8_t* bytes = fresh_bytes(cases[i].length, (uint8_t)(i + 1));
      write_wait(session, file, cases[i].offset, bytes, cases[i].length,
                 cases[i].flags);
      storage_test_assert_matches_pread(path, cases[i].offset, bytes,
                                        cases[i].length);
      free(bytes);
    }
    /* The session reads back what it wrote, including the extension. */
    hrx_storage_ticket_t* ticket = NULL;
    const void* data = NULL;
    storage_test_read_wait(session, file, FILE_BYTES - 100, 1090, &ticket,
                           &data);
    storage_test_assert_matches_pread(path, FILE_BYTES - 100, data, 1090);
    hrx_storage_ticket_release(ticket);
    hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
    assert_ok(hrx_storage_session_statistics(session, &stats));
    assert_int_equal(stats.writes, 5);
    assert_int_equal(stats.syncs, 3);
    assert_int_equal(stats.retained_slots, 0);
    hrx_storage_session_destroy(session);
    assert_int_equal(counts.live, 0);
    storage_test_file_remove(path);
  }
}

/* A write makes retained reads of the range it touches unshareable: the
 * next read goes to the file and sees the new bytes, while the ticket
 * held from before keeps the old ones. */
static void test_write_stops_stale_sharing(void** state) {
  (void)state;
  char* path = storage_test_file_create("/dev/shm", "stale", FILE_BYTES);
  test_allocator_t counts = {0};
  uint32_t file = 0;
  hrx_storage_options_t options = storage_test_options(3, SLOT_BYTES);
  hrx_storage_session_t* session = NULL;
  assert_ok(hrx_storage_session_create(&options, test_allocator(&counts),
                                       &session));
  assert_ok(hrx_storage_session_open_file_for_writing(session, path, &file));
  hrx_storage_ticket_t* before = NULL;
  const void* old_data = NULL;
  storage_test_read_wait(session, file, 1000, 500, &before, &old_data);
  uint8_t* old_bytes = malloc(500);
  memcpy(old_bytes, old_data, 500);
  uint8_t* bytes = fresh_bytes(10, 99);
  write_wait(session, file, 1200, bytes, 10, HRX_STORAGE_WRITE_NONE);
  hrx_storage_ticket_t* after = NULL;
  const void* new_data = NULL;
  storage_test_read_wait(session, file, 1000, 500, &after, &new_data);
  storage_test_assert_matches_pread(path, 1000, new_data, 500);
  assert_memory_equal((const uint8_t*)new_data + 200, bytes, 10);
  assert_memory_equal(old_data, old_bytes, 500);
  hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
  assert_ok(hrx_storage_session_statistics(session, &stats));
  assert_int_equal(stats.shared_reads, 0);
  assert_int_equal(stats.physical_reads, 2);
  hrx_storage_ticket_release(before);
  hrx_storage_ticket_release(after);
  free(bytes);
  free(old_bytes);
  hrx_storage_session_destroy(session);
  assert_int_equal(counts.live, 0);
  storage_test_file_remove(path);
}

/* Bad writes are refused by name and take no slot; a full pool is BUSY. */
static void test_write_refusals(void** state) {
  (void)state;
  char* path = storage_test_file_create("/dev/shm", "refuse", FILE_BYTES);
  test_allocator_t counts = {0};
  uint32_t file = 0;
  hrx_storage_session_t* session =
      writer(HRX_STORAGE_IO_BUFFERED, &counts, path, &file);
  uint32_t read_only = 0;
  assert_ok(hrx_storage_session_open_file(session, path, &read_only));
  uint8_t* bytes = fresh_bytes(SLOT_BYTES + 1, 5);
  hrx_storage_ticket_t* ticket = NULL;
  assert_status(hrx_storage_session_write(session, read_only, 0, bytes, 10, 0,
                                          &ticket),
                HRX_STATUS_INVALID_ARGUMENT, "file 1 is not open for writing");
  assert_status(
      hrx_storage_session_write(session, file, 0, bytes, 0, 0, &ticket),
      HRX_STATUS_INVALID_ARGUMENT, "is empty");
  assert_status(
      hrx_storage_session_write(session, file, 0, NULL, 10, 0, &ticket),
      HRX_STATUS_INVALID_ARGUMENT, "has no data");
  assert_status(
      hrx_storage_session_write(session, file, 0, bytes, 10, 1u << 7, &ticket),
      HRX_STATUS_INVALID_ARGUMENT, "unknown write flags 0x80");
  assert_status(hrx_storage_session_write(session, file, 0, bytes,
                                          SLOT_BYTES + 1, 0, &ticket),
                HRX_STATUS_INVALID_ARGUMENT, "more than a slot holds");
  assert_status(
      hrx_storage_session_write(session, 9, 0, bytes, 10, 0, &ticket),
      HRX_STATUS_INVALID_ARGUMENT, "not registered");
  assert_null(ticket);
  /* Two slots held by reads: the write is BUSY and queues nothing. */
  hrx_storage_ticket_t* held[2] = {NULL, NULL};
  const void* data = NULL;
  storage_test_read_wait(session, file, 0, 10, &held[0], &data);
  storage_test_read_wait(session, file, 4096, 10, &held[1], &data);
  assert_status(
      hrx_storage_session_write(session, file, 0, bytes, 10, 0, &ticket),
      HRX_STATUS_BUSY, "retained");
  hrx_storage_ticket_release(held[0]);
  write_wait(session, file, 0, bytes, 10, HRX_STORAGE_WRITE_NONE);
  hrx_storage_ticket_release(held[1]);
  hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
  assert_ok(hrx_storage_session_statistics(session, &stats));
  assert_int_equal(stats.writes, 1);
  assert_int_equal(stats.busy_reads, 1);
  free(bytes);
  hrx_storage_session_destroy(session);
  assert_int_equal(counts.live, 0);
  storage_test_file_remove(path);
}

/* DIRECT writes: aligned ones land (checked with pread), unaligned offsets
 * or lengths are refused, never widened. Only where the filesystem
 * reports a direct-I/O alignment; tmpfs refuses DIRECT files at open. */
static void test_direct_writes(void** state) {
  (void)state;
  const char* dir = storage_test_dir(1);
  if (!storage_test_dir_supports_direct(dir)) {
    print_message("no STATX_DIOALIGN under %s: direct writes not run\n", dir);
    return;
  }
  char* path = storage_test_file_create(dir, "direct-write", FILE_BYTES);
  test_allocator_t counts = {0};
  uint32_t file = 0;
  hrx_storage_session_t* session =
      writer(HRX_STORAGE_IO_DIRECT, &counts, path, &file);
  uint8_t* bytes = fresh_bytes(16 * KIB, 42);
  write_wait(session, file, 32 * KIB, bytes, 16 * KIB,
             HRX_STORAGE_WRITE_DATASYNC);
  storage_test_assert_matches_pread(path, 32 * KIB, bytes, 16 * KIB);
  hrx_storage_ticket_t* ticket = NULL;
  assert_status(hrx_storage_session_write(session, file, 32 * KIB + 1, bytes,
                                          4096, 0, &ticket),
                HRX_STATUS_INVALID_ARGUMENT, "must be multiples of");
  assert_status(hrx_storage_session_write(session, file, 32 * KIB, bytes,
                                          4095, 0, &ticket),
                HRX_STATUS_INVALID_ARGUMENT, "must be multiples of");
  free(bytes);
  hrx_storage_session_destroy(session);
  assert_int_equal(counts.live, 0);
  storage_test_file_remove(path);
}

/* Faults on the write path: a failed wake-up refuses the write and gives
 * its slot back; an I/O error in the write's or the sync's completion, a
 * failed submission, or a short write stop the session by name. */
static void test_write_faults(void** state) {
  (void)state;
  char* path = storage_test_file_create("/dev/shm", "write-faults",
                                        FILE_BYTES);
  const struct {
    storage_call_t call;
    unsigned fail_at;
    int error; /* a negative one makes a CQE report that many bytes */
    hrx_storage_write_flags_t flags;
    hrx_status_code_t code;
    const char* text;
  } cases[] = {
      {STORAGE_CALL_CQE, 1, EIO, 0, HRX_STATUS_DATA_LOSS,
       "writing 100 bytes at offset 300 of file 0"},
      {STORAGE_CALL_CQE, 2, EIO, HRX_STORAGE_WRITE_FSYNC, HRX_STATUS_DATA_LOSS,
       "syncing after writing 100 bytes at offset 300"},
      {STORAGE_CALL_CQE, 1, ENOSPC, 0, HRX_STATUS_RESOURCE_EXHAUSTED,
       "writing 100 bytes"},
      {STORAGE_CALL_CQE, 1, -40, 0, HRX_STATUS_DATA_LOSS,
       "short write: 40 of 100 bytes"},
      {STORAGE_CALL_SUBMIT, 1, EIO, 0, HRX_STATUS_DATA_LOSS,
       "submitting 1 requests"},
  };
  uint8_t* bytes = fresh_bytes(100, 3);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    print_message("fault in %s #%u\n", storage_call_name(cases[i].call),
                  cases[i].fail_at);
    storage_fault_t fault;
    hrx_storage_sys_t sys = storage_fault_sys(&fault, cases[i].call,
                                              cases[i].fail_at,
                                              cases[i].error);
    hrx_storage_options_t options = storage_test_options(2, SLOT_BYTES);
    test_allocator_t counts = {0};
    hrx_storage_session_t* session = NULL;
    assert_ok(hrx_storage_session_create_with_sys(
        &options, &sys, test_allocator(&counts), &session));
    uint32_t file = 0;
    assert_ok(hrx_storage_session_open_file_for_writing(session, path, &file));
    hrx_storage_ticket_t* ticket = NULL;
    assert_ok(hrx_storage_session_write(session, file, 300, bytes, 100,
                                        cases[i].flags, &ticket));
    const void* data = NULL;
    uint64_t length = 0;
    assert_status(hrx_storage_ticket_wait(ticket, TIMEOUT_NS, &data, &length),
                  cases[i].code, cases[i].text);
    hrx_storage_ticket_release(ticket);
    assert_status(hrx_storage_session_write(session, file, 0, bytes, 100, 0,
                                            &ticket),
                  cases[i].code, "first I/O failure");
    assert_null(ticket);
    hrx_storage_session_destroy(session);
    assert_int_equal(counts.live, 0);
  }

  /* The wake-up failing: writes go on until one meets it (only a sleeping
   * service thread is woken), that one is refused and takes no slot. */
  storage_fault_t fault;
  hrx_storage_sys_t sys = storage_fault_sys(&fault, STORAGE_CALL_WRITE, 1,
                                            EAGAIN);
  hrx_storage_options_t options = storage_test_options(1, SLOT_BYTES);
  hrx_storage_session_t* session = NULL;
  assert_ok(hrx_storage_session_create_with_sys(
      &options, &sys, hrx_allocator_system(), &session));
  uint32_t file = 0;
  assert_ok(hrx_storage_session_open_file_for_writing(session, path, &file));
  hrx_status_t status = HRX_OK;
  uint64_t accepted = 0;
  for (int i = 0; i < 1000 && status == HRX_OK; ++i) {
    hrx_storage_ticket_t* ticket = NULL;
    status = hrx_storage_session_write(session, file, 0, bytes, 100, 0,
                                       &ticket);
    if (status == HRX_OK) {
      const void* data = NULL;
      uint64_t length = 0;
      assert_ok(hrx_storage_ticket_wait(ticket, TIMEOUT_NS, &data, &length));
      hrx_storage_ticket_release(ticket);
      accepted++;
      hrx_sleep_ns(100000); /* let the service thread fall asleep */
    }
  }
  assert_status(status, HRX_STATUS_BUSY, "waking the storage service thread");
  write_wait(session, file, 0, bytes, 100, HRX_STORAGE_WRITE_NONE);
  hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
  assert_ok(hrx_storage_session_statistics(session, &stats));
  assert_int_equal(stats.writes, accepted + 1);
  assert_int_equal(stats.retained_slots, 0);
  hrx_storage_session_destroy(session);
  free(bytes);
  storage_test_file_remove(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_buffered_writes),
      cmocka_unit_test(test_write_stops_stale_sharing),
      cmocka_unit_test(test_write_refusals),
      cmocka_unit_test(test_direct_writes),
      cmocka_unit_test(test_write_faults),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
