/* Storage sessions on tmpfs and on the build tree's filesystem: reads
 * checked byte for byte against pread, shared slots, BUSY, direct I/O,
 * end of file, truncation, closed descriptors and copies into device
 * buffers on the host device. */
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "storage_test_util.h"

#define MIB (1ull << 20)
#define FILE_BYTES (3 * MIB + 123)
#define TIMEOUT_NS 10000000000ull

static void test_options_are_validated(void** state) {
  (void)state;
  hrx_storage_session_t* session = NULL;
  struct {
    hrx_storage_options_t options;
    const char* field;
  } cases[8];
  for (int i = 0; i < 8; ++i) {
    const hrx_storage_options_t init = HRX_STRUCT_INIT(hrx_storage_options_t);
    cases[i].options = init;
    assert_ok(hrx_storage_options_default(&cases[i].options));
  }
  cases[0].options.file_capacity = 0, cases[0].field = "file_capacity";
  cases[1].options.file_capacity = 1025, cases[1].field = "file_capacity";
  cases[2].options.slot_count = 0, cases[2].field = "slot_count";
  cases[3].options.slot_count = 65, cases[3].field = "slot_count";
  cases[4].options.slot_bytes = 4097, cases[4].field = "slot_bytes";
  cases[5].options.slot_bytes = 128 * MIB, cases[5].field = "slot_bytes";
  cases[6].options.sq_entries = 0, cases[6].field = "sq_entries";
  cases[7].options.io_mode = 7, cases[7].field = "io_mode";
  for (int i = 0; i < 8; ++i) {
    assert_status(hrx_storage_session_create(&cases[i].options,
                                             hrx_allocator_system(), &session),
                  HRX_STATUS_INVALID_ARGUMENT, cases[i].field);
    assert_null(session);
  }
  hrx_storage_options_t options = HRX_STRUCT_INIT(hrx_storage_options_t);
  assert_ok(hrx_storage_options_default(&options));
  assert_int_equal(options.slot_count, 4);
  /* Defaults into a newer caller's larger struct: what this library does
   * not know reads zero, and bytes past the struct stay. */
  struct newer_options {
    hrx_storage_options_t known;
    uint64_t future;
    uint8_t guard;
  } newer;
  memset(&newer, 0x5A, sizeof(newer));
  newer.known.struct_size = offsetof(struct newer_options, guard);
  assert_ok(hrx_storage_options_default(&newer.known));
  assert_int_equal(newer.known.slot_count, 4);
  assert_int_equal(newer.future, 0);
  assert_int_equal(newer.guard, 0x5A);
  newer.known.struct_size = 4;
  assert_status(hrx_storage_options_default(&newer.known),
                HRX_STATUS_INVALID_ARGUMENT, "hrx_storage_options_t");
  assert_int_equal(options.slot_bytes, 16 * MIB);
  assert_int_equal(options.sq_entries, 64);
}

/* Random reads of random lengths against pread, every byte, with a few
 * reads shared and all slots cycling. */
static void random_reads(hrx_storage_io_mode_t mode, const char* dir) {
  test_allocator_t counts = {0};
  char* path = storage_test_file_create(dir, "random", FILE_BYTES);
  hrx_storage_options_t options = storage_test_options(4, MIB);
  options.io_mode = mode;
  uint32_t file = 0;
  hrx_storage_session_t* session =
      storage_test_session(&options, test_allocator(&counts), path, &file);
  uint32_t seed = 12345;
  for (int i = 0; i < 200; ++i) {
    seed = seed * 1103515245u + 12345u;
    uint64_t length = 1 + seed % (MIB - 8192);
    seed = seed * 1103515245u + 12345u;
    uint64_t offset = seed % (FILE_BYTES - length + 1);
    hrx_storage_ticket_t* ticket = NULL;
    const void* data = NULL;
    storage_test_read_wait(session, file, offset, length, &ticket, &data);
    storage_test_assert_matches_pread(path, offset, data, length);
    hrx_storage_ticket_release(ticket);
  }
  hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
  assert_ok(hrx_storage_session_statistics(session, &stats));
  assert_int_equal(stats.logical_reads, 200);
  assert_int_equal(stats.physical_reads, 200);
  assert_int_equal(stats.completion.count, 200);
  assert_int_equal(stats.service.count, 200);
  assert_int_equal(stats.retained_slots, 0);
  assert_true(stats.service.max_ns >= stats.completion.max_ns);
  hrx_storage_session_destroy(session);
  assert_int_equal(counts.live, 0);
  storage_test_file_remove(path);
}

static void test_random_reads_buffered(void** state) {
  (void)state;
  for (int d = 0; d < STORAGE_TEST_DIR_COUNT; ++d) {
    random_reads(HRX_STORAGE_IO_BUFFERED, storage_test_dir(d));
  }
}

/* A DIRECT session on a filesystem without direct I/O refuses its files
 * clearly, and a descriptor without O_DIRECT is refused before that. */
static void assert_direct_refused(const char* dir) {
  char* path = storage_test_file_create(dir, "direct", 8192);
  hrx_storage_options_t options = storage_test_options(1, MIB);
  options.io_mode = HRX_STORAGE_IO_DIRECT;
  hrx_storage_session_t* session = NULL;
  assert_ok(
      hrx_storage_session_create(&options, hrx_allocator_system(), &session));
  uint32_t file = 0;
  assert_status(hrx_storage_session_open_file(session, path, &file),
                HRX_STATUS_UNIMPLEMENTED, "STATX_DIOALIGN");
  int fd = open(path, O_RDONLY);
  assert_true(fd >= 0);
  assert_status(hrx_storage_session_add_fd(session, fd, &file),
                HRX_STATUS_INVALID_ARGUMENT, "O_DIRECT");
  close(fd);
  hrx_storage_session_destroy(session);
  storage_test_file_remove(path);
}

/* Direct reads are widened to the aligned range and trimmed back; where the
 * filesystem has no direct I/O the session says so and reads nothing. */
static void test_direct_reads_or_clear_refusal(void** state) {
  (void)state;
  for (int d = 0; d < STORAGE_TEST_DIR_COUNT; ++d) {
    const char* dir = storage_test_dir(d);
    if (storage_test_dir_supports_direct(dir)) {
      random_reads(HRX_STORAGE_IO_DIRECT, dir);
    } else {
      assert_direct_refused(dir);
    }
  }
}

/* tmpfs has no direct I/O. */
static void test_direct_on_tmpfs_fails(void** state) {
  (void)state;
  assert_false(storage_test_dir_supports_direct("/dev/shm"));
  assert_direct_refused("/dev/shm");
}

/* Identical reads share one slot while it is retained; once released, the
 * same read is issued again. */
static void test_identical_reads_share_a_slot(void** state) {
  (void)state;
  for (int d = 0; d < STORAGE_TEST_DIR_COUNT; ++d) {
    storage_test_case_t t =
        storage_test_open(storage_test_dir(d), "shared", FILE_BYTES, 2, MIB);
    hrx_storage_ticket_t *a = NULL, *b = NULL, *c = NULL;
    const void *data_a = NULL, *data_b = NULL, *data_c = NULL;
    storage_test_read_wait(t.session, t.file, 1000, 5000, &a, &data_a);
    storage_test_read_wait(t.session, t.file, 1000, 5000, &b, &data_b);
    assert_ptr_equal(data_a, data_b);
    hrx_storage_ticket_release(a);
    storage_test_read_wait(t.session, t.file, 1000, 5000, &c, &data_c);
    assert_ptr_equal(data_b, data_c);
    storage_test_assert_matches_pread(t.path, 1000, data_c, 5000);
    hrx_storage_ticket_release(b);
    hrx_storage_ticket_release(c);
    hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
    assert_ok(hrx_storage_session_statistics(t.session, &stats));
    assert_int_equal(stats.logical_reads, 3);
    assert_int_equal(stats.shared_reads, 2);
    assert_int_equal(stats.physical_reads, 1);
    assert_int_equal(stats.peak_retained_slots, 1);
    hrx_storage_ticket_t* d2 = NULL;
    storage_test_read_wait(t.session, t.file, 1000, 5000, &d2, &data_a);
    hrx_storage_ticket_release(d2);
    assert_ok(hrx_storage_session_statistics(t.session, &stats));
    assert_int_equal(stats.physical_reads, 2);
    storage_test_close(&t);
  }
}

/* A full pool answers BUSY at once and never grows; a shared read of a
 * retained slot still succeeds, and releasing a ticket frees a slot. */
static void test_full_pool_is_busy(void** state) {
  (void)state;
  storage_test_case_t t =
      storage_test_open("/dev/shm", "busy", FILE_BYTES, 2, MIB);
  hrx_storage_ticket_t *a = NULL, *b = NULL, *c = NULL;
  assert_ok(hrx_storage_session_read(t.session, t.file, 0, 4096, &a));
  assert_ok(hrx_storage_session_read(t.session, t.file, 4096, 4096, &b));
  assert_status(hrx_storage_session_read(t.session, t.file, 8192, 4096, &c),
                HRX_STATUS_BUSY, "all 2 storage slots are retained");
  assert_null(c);
  assert_ok(hrx_storage_session_read(t.session, t.file, 0, 4096, &c));
  hrx_storage_ticket_release(c);
  /* A read in the kernel holds its slot even without tickets, so the slot
   * frees once the read has completed and its last ticket is gone. */
  const void* data = NULL;
  uint64_t length = 0;
  assert_ok(hrx_storage_ticket_wait(a, TIMEOUT_NS, &data, &length));
  hrx_storage_ticket_release(a);
  storage_test_read_wait(t.session, t.file, 8192, 4096, &c, &data);
  storage_test_assert_matches_pread(t.path, 8192, data, 4096);
  hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
  assert_ok(hrx_storage_session_statistics(t.session, &stats));
  assert_int_equal(stats.busy_reads, 1);
  assert_int_equal(stats.peak_retained_slots, 2);
  assert_int_equal(stats.retained_slots, 2);
  hrx_storage_ticket_release(b);
  hrx_storage_ticket_release(c);
  storage_test_close(&t);
}

/* A read past the end of the file is the session's first failure: it is
 * reported by the ticket and by every later call. */
static void test_short_read_at_eof_stops_the_session(void** state) {
  (void)state;
  for (int d = 0; d < STORAGE_TEST_DIR_COUNT; ++d) {
    storage_test_case_t t =
        storage_test_open(storage_test_dir(d), "eof", 10000, 2, MIB);
    storage_test_read_fails(t.session, t.file, 9000, 2000,
                            HRX_STATUS_OUT_OF_RANGE,
                            "short read: 1000 of 2000");
    hrx_storage_ticket_t* later = NULL;
    assert_status(hrx_storage_session_read(t.session, t.file, 0, 10, &later),
                  HRX_STATUS_OUT_OF_RANGE, "first I/O failure");
    assert_status(hrx_storage_session_open_file(t.session, t.path, &t.file),
                  HRX_STATUS_OUT_OF_RANGE, "short read");
    storage_test_close(&t);
  }
}

/* A file truncated under the session: reads inside the new size work,
 * reads beyond it fail as short reads. */
static void test_truncated_file(void** state) {
  (void)state;
  for (int d = 0; d < STORAGE_TEST_DIR_COUNT; ++d) {
    storage_test_case_t t =
        storage_test_open(storage_test_dir(d), "truncate", FILE_BYTES, 2, MIB);
    hrx_storage_ticket_t* ticket = NULL;
    const void* data = NULL;
    storage_test_read_wait(t.session, t.file, 2 * MIB, 4096, &ticket, &data);
    hrx_storage_ticket_release(ticket);
    assert_int_equal(truncate(t.path, MIB), 0);
    storage_test_read_wait(t.session, t.file, 0, 4096, &ticket, &data);
    storage_test_assert_matches_pread(t.path, 0, data, 4096);
    hrx_storage_ticket_release(ticket);
    storage_test_read_fails(t.session, t.file, 2 * MIB, 4096,
                            HRX_STATUS_OUT_OF_RANGE, "short read: 0 of 4096");
    storage_test_close(&t);
  }
}

/* A closed descriptor is refused by name; one closed after registration
 * still reads, because the ring holds its own reference. */
static void test_closed_fd(void** state) {
  (void)state;
  storage_test_case_t t =
      storage_test_open("/dev/shm", "closed", 8192, 1, MIB);
  int fd = open(t.path, O_RDONLY);
  assert_true(fd >= 0);
  close(fd);
  uint32_t file = 0;
  assert_status(hrx_storage_session_add_fd(t.session, fd, &file),
                HRX_STATUS_INVALID_ARGUMENT, "not an open file descriptor");
  fd = open(t.path, O_RDONLY);
  assert_ok(hrx_storage_session_add_fd(t.session, fd, &file));
  assert_int_equal(file, 1);
  close(fd);
  hrx_storage_ticket_t* ticket = NULL;
  const void* data = NULL;
  storage_test_read_wait(t.session, file, 100, 5000, &ticket, &data);
  storage_test_assert_matches_pread(t.path, 100, data, 5000);
  hrx_storage_ticket_release(ticket);
  assert_status(hrx_storage_session_read(t.session, 2, 0, 1, &ticket),
                HRX_STATUS_INVALID_ARGUMENT, "not registered");
  assert_status(
      hrx_storage_session_read(t.session, file, 0, 2 * MIB, &ticket),
      HRX_STATUS_INVALID_ARGUMENT, "more than a slot holds");
  storage_test_close(&t);
}

/* The registered file table is bounded: one more file than it holds is
 * RESOURCE_EXHAUSTED, and the files already in it keep working. */
static void test_file_table_is_bounded(void** state) {
  (void)state;
  storage_test_case_t t = {
      .path = storage_test_file_create("/dev/shm", "table", 8192)};
  hrx_storage_options_t options = storage_test_options(1, MIB);
  options.file_capacity = 1;
  t.session =
      storage_test_session(&options, hrx_allocator_system(), t.path, &t.file);
  uint32_t second = 0;
  assert_status(hrx_storage_session_open_file(t.session, t.path, &second),
                HRX_STATUS_RESOURCE_EXHAUSTED, "all 1 registered file");
  hrx_storage_ticket_t* ticket = NULL;
  const void* data = NULL;
  storage_test_read_wait(t.session, t.file, 0, 8192, &ticket, &data);
  storage_test_assert_matches_pread(t.path, 0, data, 8192);
  hrx_storage_ticket_release(ticket);
  storage_test_close(&t);
}

/* Destroy lets accepted reads finish; their tickets outlive the session. */
static void test_destroy_drains_accepted_reads(void** state) {
  (void)state;
  storage_test_case_t t =
      storage_test_open("/dev/shm", "drain", FILE_BYTES, 4, MIB);
  hrx_storage_ticket_t* tickets[4];
  for (int i = 0; i < 4; ++i) {
    assert_ok(hrx_storage_session_read(t.session, t.file, (uint64_t)i * 700000,
                                       700000, &tickets[i]));
  }
  hrx_storage_session_destroy(t.session);
  for (int i = 0; i < 4; ++i) {
    const void* data = NULL;
    uint64_t length = 0;
    assert_ok(hrx_storage_ticket_wait(tickets[i], 0, &data, &length));
    storage_test_assert_matches_pread(t.path, (uint64_t)i * 700000, data,
                                      length);
    hrx_storage_ticket_release(tickets[i]);
  }
  storage_test_file_remove(t.path);
}

typedef struct reader_t {
  storage_test_case_t* test_case;
  uint32_t seed;
  int accepted;
  int busy;
} reader_t;

/* Random 4 KiB-aligned reads from a small set of blocks, so that readers
 * share slots and meet BUSY; every accepted read is checked. */
static void* reader_main(void* argument) {
  reader_t* reader = argument;
  storage_test_case_t* t = reader->test_case;
  while (reader->accepted < 100) {
    reader->seed = reader->seed * 1103515245u + 12345u;
    uint64_t offset = (uint64_t)(reader->seed >> 8) % 16 * 65536;
    hrx_storage_ticket_t* ticket = NULL;
    hrx_status_t status =
        hrx_storage_session_read(t->session, t->file, offset, 65536, &ticket);
    if (hrx_status_is(status, HRX_STATUS_BUSY)) {
      hrx_status_free(status);
      reader->busy++;
      hrx_sleep_ns(50000);
      continue;
    }
    assert_ok(status);
    const void* data = NULL;
    uint64_t length = 0;
    assert_ok(hrx_storage_ticket_wait(ticket, TIMEOUT_NS, &data, &length));
    storage_test_assert_matches_pread(t->path, offset, data, length);
    hrx_storage_ticket_release(ticket);
    reader->accepted++;
  }
  return NULL;
}

/* Four threads read through one session of three slots; the statistics
 * add up afterwards. */
static void test_concurrent_readers(void** state) {
  (void)state;
  storage_test_case_t t =
      storage_test_open("/dev/shm", "threads", FILE_BYTES, 3, MIB);
  reader_t readers[4];
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i) {
    readers[i] = (reader_t){.test_case = &t, .seed = 77u + (uint32_t)i};
    assert_int_equal(
        pthread_create(&threads[i], NULL, reader_main, &readers[i]), 0);
  }
  uint64_t busy = 0;
  for (int i = 0; i < 4; ++i) {
    pthread_join(threads[i], NULL);
    busy += (uint64_t)readers[i].busy;
  }
  hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
  assert_ok(hrx_storage_session_statistics(t.session, &stats));
  assert_int_equal(stats.logical_reads, 400);
  assert_int_equal(stats.busy_reads, busy);
  assert_int_equal(stats.physical_reads + stats.shared_reads, 400);
  assert_int_equal(stats.completion.count, stats.physical_reads);
  assert_true(stats.peak_retained_slots <= 3);
  assert_int_equal(stats.retained_slots, 0);
  storage_test_close(&t);
}

/* A kernel poller session reads the same bytes, or is refused by name. */
static void test_sqpoll_progress(void** state) {
  (void)state;
  char* path = storage_test_file_create("/dev/shm", "sqpoll", FILE_BYTES);
  hrx_storage_options_t options = storage_test_options(2, MIB);
  options.progress = HRX_STORAGE_PROGRESS_SQPOLL;
  hrx_storage_session_t* session = NULL;
  hrx_status_t status =
      hrx_storage_session_create(&options, hrx_allocator_system(), &session);
  if (status != HRX_OK) {
    assert_status(status, HRX_STATUS_UNAVAILABLE, "SQPOLL");
    storage_test_file_remove(path);
    return;
  }
  uint32_t file = 0;
  assert_ok(hrx_storage_session_open_file(session, path, &file));
  for (int i = 0; i < 20; ++i) {
    hrx_storage_ticket_t* ticket = NULL;
    const void* data = NULL;
    uint64_t offset = (uint64_t)i * 150000;
    storage_test_read_wait(session, file, offset, 65536, &ticket, &data);
    storage_test_assert_matches_pread(path, offset, data, 65536);
    hrx_storage_ticket_release(ticket);
  }
  hrx_storage_session_destroy(session);
  storage_test_file_remove(path);
}

/* A completed read lands in a device buffer on the host device through a
 * stream copy; a view of the wrong length is refused. */
static void test_copy_to_device_buffer(void** state) {
  (void)state;
  storage_test_case_t t =
      storage_test_open("/dev/shm", "copy", FILE_BYTES, 2, MIB);
  hrx_gpu_device_t* device = NULL;
  assert_ok(hrx_gpu_device_open(0, hrx_allocator_system(), &device));
  hrx_gpu_stream_t* stream = NULL;
  assert_ok(hrx_gpu_stream_create(device, &stream));
  hrx_gpu_buffer_t* buffer = NULL;
  assert_ok(hrx_gpu_stream_allocate(stream, 2 * 300000, &buffer));
  hrx_gpu_view_t whole = hrx_gpu_buffer_binding(buffer);
  for (int i = 0; i < 2; ++i) {
    hrx_storage_ticket_t* ticket = NULL;
    const void* data = NULL;
    storage_test_read_wait(t.session, t.file, 1000 + (uint64_t)i * 1000000,
                           300000, &ticket, &data);
    hrx_gpu_view_t view;
    assert_ok(hrx_gpu_view_slice(whole, (uint64_t)i * 300000, 300000, &view));
    hrx_gpu_view_t short_view;
    assert_ok(hrx_gpu_view_slice(whole, 0, 1000, &short_view));
    assert_status(hrx_storage_ticket_copy_to(ticket, stream, short_view),
                  HRX_STATUS_INVALID_ARGUMENT, "the view holds 1000 bytes");
    assert_ok(hrx_storage_ticket_copy_to(ticket, stream, view));
    hrx_storage_ticket_release(ticket);
  }
  hrx_gpu_readback_t* readback = NULL;
  assert_ok(hrx_gpu_stream_read(stream, whole, &readback));
  const void* bytes = NULL;
  uint64_t length = 0;
  assert_ok(hrx_gpu_readback_wait(readback, TIMEOUT_NS, &bytes, &length));
  assert_int_equal(length, 600000);
  storage_test_assert_matches_pread(t.path, 1000, bytes, 300000);
  storage_test_assert_matches_pread(t.path, 1001000,
                                    (const uint8_t*)bytes + 300000, 300000);
  hrx_gpu_readback_release(readback);
  hrx_gpu_buffer_release(buffer);
  hrx_gpu_stream_destroy(stream);
  hrx_gpu_device_release(device);
  storage_test_close(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_options_are_validated),
      cmocka_unit_test(test_random_reads_buffered),
      cmocka_unit_test(test_direct_reads_or_clear_refusal),
      cmocka_unit_test(test_direct_on_tmpfs_fails),
      cmocka_unit_test(test_identical_reads_share_a_slot),
      cmocka_unit_test(test_full_pool_is_busy),
      cmocka_unit_test(test_short_read_at_eof_stops_the_session),
      cmocka_unit_test(test_truncated_file),
      cmocka_unit_test(test_closed_fd),
      cmocka_unit_test(test_file_table_is_bounded),
      cmocka_unit_test(test_destroy_drains_accepted_reads),
      cmocka_unit_test(test_concurrent_readers),
      cmocka_unit_test(test_sqpoll_progress),
      cmocka_unit_test(test_copy_to_device_buffer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
