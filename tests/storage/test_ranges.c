/* Loading byte ranges of one file into one device buffer, the way a
 * checkpoint's tensors go into an arena: ranges longer than a slot, more
 * ranges than slots, direct I/O where the filesystem has it, and failures
 * that leave nothing held. */

#include "storage_test_util.h"

#define KIB 1024ull
#define FILE_BYTES (900 * KIB + 77)
#define TIMEOUT_NS 10000000000ull

typedef struct ranges_fixture_t {
  hrx_gpu_device_t* device;
  hrx_gpu_stream_t* stream;
} ranges_fixture_t;

static int setup(void** state) {
  ranges_fixture_t* fixture = test_malloc(sizeof(*fixture));
  assert_ok(hrx_gpu_device_open(0, hrx_allocator_system(), &fixture->device));
  assert_ok(hrx_gpu_stream_create(fixture->device, &fixture->stream));
  *state = fixture;
  return 0;
}

static int teardown(void** state) {
  ranges_fixture_t* fixture = *state;
  hrx_gpu_stream_destroy(fixture->stream);
  hrx_gpu_device_release(fixture->device);
  test_free(fixture);
  return 0;
}

/* Ranges in shuffled order, one spanning several slots, packed into an
 * arena; every arena byte is checked against pread. */
static const hrx_storage_range_t kRanges[] = {
    {.file_offset = 500 * KIB + 3, .length = 300 * KIB + 5,
     .destination_offset = 0},
    {.file_offset = 0, .length = 1, .destination_offset = 300 * KIB + 5},
    {.file_offset = 17, .length = 4000, .destination_offset = 300 * KIB + 6},
    {.file_offset = 100 * KIB, .length = 64 * KIB,
     .destination_offset = 300 * KIB + 4006},
    {.file_offset = FILE_BYTES - 10, .length = 10,
     .destination_offset = 364 * KIB + 4006},
};
#define RANGE_COUNT (sizeof(kRanges) / sizeof(kRanges[0]))
#define ARENA_BYTES (364 * KIB + 4016)

static void load_and_check(ranges_fixture_t* fixture,
                           hrx_storage_io_mode_t mode, const char* dir) {
  test_allocator_t counts = {0};
  char* path = storage_test_file_create(dir, "ranges", FILE_BYTES);
  hrx_storage_options_t options = storage_test_options(2, 64 * KIB);
  options.io_mode = mode;
  uint32_t file = 0;
  hrx_storage_session_t* session =
      storage_test_session(&options, test_allocator(&counts), path, &file);
  hrx_gpu_buffer_t* arena = NULL;
  assert_ok(hrx_gpu_stream_allocate(fixture->stream, ARENA_BYTES, &arena));
  assert_ok(hrx_storage_session_load_ranges(session, file, kRanges,
                                            RANGE_COUNT, fixture->stream,
                                            hrx_gpu_buffer_binding(arena)));
  hrx_gpu_readback_t* readback = NULL;
  assert_ok(hrx_gpu_stream_read(fixture->stream,
                                hrx_gpu_buffer_binding(arena), &readback));
  const void* bytes = NULL;
  uint64_t length = 0;
  assert_ok(hrx_gpu_readback_wait(readback, TIMEOUT_NS, &bytes, &length));
  for (size_t i = 0; i < RANGE_COUNT; ++i) {
    storage_test_assert_matches_pread(
        path, kRanges[i].file_offset,
        (const uint8_t*)bytes + kRanges[i].destination_offset,
        kRanges[i].length);
  }
  hrx_gpu_readback_release(readback);
  hrx_gpu_buffer_release(arena);
  hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
  assert_ok(hrx_storage_session_statistics(session, &stats));
  assert_true(stats.logical_reads > RANGE_COUNT); /* the long range split */
  assert_int_equal(stats.retained_slots, 0);
  assert_true(stats.peak_retained_slots <= 2);
  hrx_storage_session_destroy(session);
  assert_int_equal(counts.live, 0);
  storage_test_file_remove(path);
}

static void test_ranges_buffered(void** state) {
  for (int d = 0; d < STORAGE_TEST_DIR_COUNT; ++d) {
    load_and_check(*state, HRX_STORAGE_IO_BUFFERED, storage_test_dir(d));
  }
}

static void test_ranges_direct_where_supported(void** state) {
  const char* dir = storage_test_dir(1);
  if (!storage_test_dir_supports_direct(dir)) {
    skip();
  }
  load_and_check(*state, HRX_STORAGE_IO_DIRECT, dir);
}

/* A bad range is named before anything is read; a range past the end of
 * the file fails the load and leaves no slot held; slots held by someone
 * else make the load BUSY. */
static void test_range_failures(void** state) {
  ranges_fixture_t* fixture = *state;
  test_allocator_t counts = {0};
  char* path = storage_test_file_create("/dev/shm", "rangefail", FILE_BYTES);
  hrx_storage_options_t options = storage_test_options(2, 64 * KIB);
  uint32_t file = 0;
  hrx_storage_session_t* session =
      storage_test_session(&options, test_allocator(&counts), path, &file);
  hrx_gpu_buffer_t* arena = NULL;
  assert_ok(hrx_gpu_stream_allocate(fixture->stream, 256 * KIB, &arena));
  hrx_gpu_view_t view = hrx_gpu_buffer_binding(arena);

  hrx_storage_range_t bad[] = {{.file_offset = 0, .length = 10,
                                .destination_offset = 256 * KIB - 5}};
  assert_status(hrx_storage_session_load_ranges(session, file, bad, 1,
                                                fixture->stream, view),
                HRX_STATUS_INVALID_ARGUMENT, "range 0");

  hrx_storage_ticket_t *a = NULL, *b = NULL;
  assert_ok(hrx_storage_session_read(session, file, 0, 10, &a));
  assert_ok(hrx_storage_session_read(session, file, 10, 10, &b));
  hrx_storage_range_t one[] = {{.file_offset = 4096, .length = 100,
                                .destination_offset = 0}};
  assert_status(hrx_storage_session_load_ranges(session, file, one, 1,
                                                fixture->stream, view),
                HRX_STATUS_BUSY, "retained");
  /* Waited for, so that no read in the kernel holds a slot afterwards. */
  const void* data = NULL;
  uint64_t length = 0;
  assert_ok(hrx_storage_ticket_wait(a, TIMEOUT_NS, &data, &length));
  assert_ok(hrx_storage_ticket_wait(b, TIMEOUT_NS, &data, &length));
  hrx_storage_ticket_release(a);
  hrx_storage_ticket_release(b);

  hrx_storage_range_t past_end[] = {
      {.file_offset = 0, .length = 200 * KIB, .destination_offset = 0},
      {.file_offset = FILE_BYTES - 5, .length = 50,
       .destination_offset = 200 * KIB},
  };
  assert_status(hrx_storage_session_load_ranges(session, file, past_end, 2,
                                                fixture->stream, view),
                HRX_STATUS_OUT_OF_RANGE, "short read");
  assert_ok(hrx_gpu_stream_synchronize(fixture->stream, TIMEOUT_NS));
  hrx_gpu_buffer_release(arena);
  hrx_storage_session_destroy(session);
  assert_int_equal(counts.live, 0);
  storage_test_file_remove(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ranges_buffered),
      cmocka_unit_test(test_ranges_direct_where_supported),
      cmocka_unit_test(test_range_failures),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
