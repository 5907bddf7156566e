/* A whole safetensors file into one device arena: the artifacts view says
 * where each tensor is (file_range, never mapping the data), the storage
 * session reads them through its slots, and every arena byte is checked
 * against the file. Files that lie or shrank fail before anything is
 * allocated. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hrx/artifacts/safetensors.h"
#include "storage_fault_sys.h"
#include "storage_test_util.h"

#define TIMEOUT_NS 10000000000ull
#define SLOT_BYTES 8192u

typedef struct arena_fixture_t {
  hrx_gpu_device_t* device;
  hrx_gpu_stream_t* stream;
  hrx_budget_t* budget; /* charged by every stream allocation */
} arena_fixture_t;

static int setup(void** state) {
  arena_fixture_t* fixture = test_malloc(sizeof(*fixture));
  assert_ok(hrx_gpu_device_open(0, hrx_allocator_system(), &fixture->device));
  assert_ok(hrx_gpu_stream_create(fixture->device, &fixture->stream));
  assert_ok(hrx_budget_create(HRX_BUDGET_UNLIMITED, hrx_allocator_system(),
                              &fixture->budget));
  hrx_gpu_stream_set_memory_budget(fixture->stream, fixture->budget);
  *state = fixture;
  return 0;
}

static int teardown(void** state) {
  arena_fixture_t* fixture = *state;
  hrx_gpu_stream_destroy(fixture->stream);
  hrx_budget_release(fixture->budget);
  hrx_gpu_device_release(fixture->device);
  test_free(fixture);
  return 0;
}

/* Several dtypes, odd sizes, one empty tensor and one longer than a slot;
 * listed out of data order, as headers often are. */
typedef struct tensor_spec_t {
  const char* name;
  const char* dtype;
  const char* shape;
  uint64_t bytes;
  uint64_t alignment;
} tensor_spec_t;

static const tensor_spec_t kTensors[] = {
    {"embed.weight", "BF16", "[7,13]", 7 * 13 * 2, 256},
    {"norm.bias", "F32", "[5]", 5 * 4, 16},
    {"flags", "BOOL", "[3]", 3, 1},
    {"empty", "F16", "[0,4]", 0, 64},
    {"layers.0.w", "F16", "[3,2047]", 3 * 2047 * 2, 4096},
    {"ids", "I64", "[9]", 9 * 8, 8},
    {"scales", "F64", "[1,1,11]", 11 * 8, 256},
    {"q", "I8", "[33]", 33, 1},
};
#define TENSOR_COUNT (sizeof(kTensors) / sizeof(kTensors[0]))

/* Data order: the header lists tensors in kTensors order, but their bytes
 * lie in this order in the data section. */
static const size_t kDataOrder[TENSOR_COUNT] = {4, 0, 7, 2, 3, 5, 1, 6};

/* Writes a safetensors file of kTensors with pattern data; a |lie| of N
 * bytes moves the last tensor's data_offsets N bytes past the data. */
static char* write_safetensors(const char* name, uint64_t lie) {
  uint64_t begin[TENSOR_COUNT];
  uint64_t data_bytes = 0;
  for (size_t k = 0; k < TENSOR_COUNT; ++k) {
    begin[kDataOrder[k]] = data_bytes;
    data_bytes += kTensors[kDataOrder[k]].bytes;
  }
  char header[4096];
  size_t used = (size_t)snprintf(header, sizeof(header),
                                 "{\"__metadata__\":{\"format\":\"pt\"}");
  for (size_t i = 0; i < TENSOR_COUNT; ++i) {
    uint64_t shift = i == kDataOrder[TENSOR_COUNT - 1] ? lie : 0;
    used += (size_t)snprintf(
        header + used, sizeof(header) - used,
        ",\"%s\":{\"dtype\":\"%s\",\"shape\":%s,\"data_offsets\":[%llu,%llu]}",
        kTensors[i].name, kTensors[i].dtype, kTensors[i].shape,
        (unsigned long long)(begin[i] + shift),
        (unsigned long long)(begin[i] + shift + kTensors[i].bytes));
  }
  used += (size_t)snprintf(header + used, sizeof(header) - used, "}");
  assert_true(used < sizeof(header));
  /* Pad the header to an odd length so no tensor is aligned in the file. */
  while ((8 + used) % 8 != 3) header[used++] = ' ';
  size_t total = 8 + used + data_bytes;
  uint8_t* bytes = malloc(total);
  assert_non_null(bytes);
  for (int i = 0; i < 8; ++i) bytes[i] = (uint8_t)((uint64_t)used >> (8 * i));
  memcpy(bytes + 8, header, used);
  for (uint64_t i = 0; i < data_bytes; ++i) {
    bytes[8 + used + i] = (uint8_t)(i * 131 + (i >> 8) + 7);
  }
  char* path = test_strdup_printf("/dev/shm/hrx-arena-%d-%s.safetensors",
                                  (int)getpid(), name);
  test_write_file(path, bytes, total);
  free(bytes);
  return path;
}

static hrx_safetensors_t* open_view(const char* path) {
  hrx_safetensors_options_t options =
      HRX_STRUCT_INIT(hrx_safetensors_options_t);
  options.mode = HRX_SAFETENSORS_READ;
  hrx_safetensors_t* view = NULL;
  assert_ok(
      hrx_safetensors_open(path, &options, hrx_allocator_system(), &view));
  return view;
}

/* Registers the view's file with |session| through file_range. */
static uint32_t register_view(hrx_storage_session_t* session,
                              const hrx_safetensors_t* view) {
  int fd = -1;
  uint64_t offset = 0, length = 0;
  assert_ok(hrx_safetensors_file_range(view, hrx_safetensors_at(view, 0)->name,
                                       &fd, &offset, &length));
  uint32_t file = 0;
  assert_ok(hrx_storage_session_add_fd(session, fd, &file));
  close(fd); /* the session keeps its own */
  return file;
}

/* One entry per tensor, in data order, with the spec's alignment. */
static void entries_of(const hrx_safetensors_t* view,
                       hrx_storage_arena_entry_t* entries) {
  assert_int_equal(hrx_safetensors_count(view), TENSOR_COUNT);
  for (size_t i = 0; i < TENSOR_COUNT; ++i) {
    const hrx_safetensors_tensor_t* t = hrx_safetensors_at(view, i);
    uint64_t alignment = 0;
    for (size_t s = 0; s < TENSOR_COUNT; ++s) {
      if (strcmp(kTensors[s].name, t->name) == 0) {
        alignment = kTensors[s].alignment;
      }
    }
    entries[i] = (hrx_storage_arena_entry_t){
        .file_offset = t->file_offset, .length = t->length,
        .alignment = alignment};
  }
}

static hrx_storage_session_t* small_session(test_allocator_t* counts) {
  hrx_storage_options_t options = storage_test_options(2, SLOT_BYTES);
  hrx_storage_session_t* session = NULL;
  assert_ok(hrx_storage_session_create(&options, test_allocator(counts),
                                       &session));
  return session;
}

/* Every tensor lands aligned, without overlap, byte for byte as the view
 * reads it, through a two-slot pool (the largest tensor spans slots). */
static void test_safetensors_into_one_arena(void** state) {
  arena_fixture_t* fixture = *state;
  char* path = write_safetensors("good", 0);
  hrx_safetensors_t* view = open_view(path);
  test_allocator_t counts = {0};
  hrx_storage_session_t* session = small_session(&counts);
  uint32_t file = register_view(session, view);
  hrx_storage_arena_entry_t entries[TENSOR_COUNT];
  entries_of(view, entries);
  hrx_gpu_buffer_t* arena = NULL;
  assert_ok(hrx_storage_session_load_arena(session, file, entries,
                                           TENSOR_COUNT, fixture->stream,
                                           &arena));
  assert_int_equal(hrx_budget_peak_bytes(fixture->budget),
                   hrx_gpu_buffer_size(arena));
  hrx_gpu_readback_t* readback = NULL;
  assert_ok(hrx_gpu_stream_read(fixture->stream,
                                hrx_gpu_buffer_binding(arena), &readback));
  const void* bytes = NULL;
  uint64_t length = 0;
  assert_ok(hrx_gpu_readback_wait(readback, TIMEOUT_NS, &bytes, &length));
  uint64_t end = 0;
  for (size_t i = 0; i < TENSOR_COUNT; ++i) {
    const hrx_safetensors_tensor_t* t = hrx_safetensors_at(view, i);
    assert_int_equal(entries[i].arena_offset % entries[i].alignment, 0);
    assert_true(entries[i].arena_offset >= end);
    end = entries[i].arena_offset + entries[i].length;
    if (t->length == 0) continue;
    uint8_t* expected = malloc(t->length);
    assert_ok(hrx_safetensors_read(view, t, expected, t->length));
    assert_memory_equal((const uint8_t*)bytes + entries[i].arena_offset,
                        expected, t->length);
    free(expected);
    storage_test_assert_matches_pread(
        path, t->file_offset, (const uint8_t*)bytes + entries[i].arena_offset,
        t->length);
  }
  assert_int_equal(length, end);
  hrx_gpu_readback_release(readback);
  hrx_gpu_buffer_release(arena);
  hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
  assert_ok(hrx_storage_session_statistics(session, &stats));
  assert_true(stats.logical_reads > TENSOR_COUNT - 1); /* the long one split */
  assert_true(stats.peak_retained_slots <= 2);
  assert_int_equal(stats.retained_slots, 0);
  hrx_storage_session_destroy(session);
  assert_int_equal(counts.live, 0);
  hrx_safetensors_destroy(view);
  unlink(path);
  free(path);
}

/* Asserts that loading |entries| fails with |code| and |text| and that
 * neither the stream nor the session allocated anything for it. */
static void assert_load_fails(arena_fixture_t* fixture,
                              hrx_storage_session_t* session,
                              test_allocator_t* counts, uint32_t file,
                              hrx_storage_arena_entry_t* entries,
                              hrx_status_code_t code, const char* text) {
  uint64_t peak = hrx_budget_peak_bytes(fixture->budget);
  size_t live = counts->live;
  size_t allocations = counts->allocations;
  hrx_gpu_buffer_t* arena = NULL;
  assert_status(hrx_storage_session_load_arena(session, file, entries,
                                               TENSOR_COUNT, fixture->stream,
                                               &arena),
                code, text);
  assert_null(arena);
  assert_int_equal(hrx_budget_peak_bytes(fixture->budget), peak);
  assert_int_equal(hrx_budget_live_bytes(fixture->budget), 0);
  assert_int_equal(counts->live, live);
  assert_int_equal(counts->allocations, allocations);
}

/* A file truncated after its header was parsed, a header whose offsets
 * pass the end of the data, and a bad alignment: each fails by name
 * before any allocation. */
static void test_lies_and_truncation_allocate_nothing(void** state) {
  arena_fixture_t* fixture = *state;
  char* path = write_safetensors("truncated", 0);
  hrx_safetensors_t* view = open_view(path);
  test_allocator_t counts = {0};
  hrx_storage_session_t* session = small_session(&counts);
  uint32_t file = register_view(session, view);
  hrx_storage_arena_entry_t entries[TENSOR_COUNT];
  entries_of(view, entries);

  entries[3].alignment = 48;
  assert_load_fails(fixture, session, &counts, file, entries,
                    HRX_STATUS_INVALID_ARGUMENT,
                    "entry 3 asks for alignment 48");
  entries_of(view, entries);

  const hrx_safetensors_tensor_t* last =
      hrx_safetensors_at(view, TENSOR_COUNT - 1);
  assert_int_equal(truncate(path, (off_t)(last->file_offset + 1)), 0);
  assert_load_fails(fixture, session, &counts, file, entries,
                    HRX_STATUS_DATA_LOSS, "was truncated or its header lies");
  /* Nothing was read, so the session has not failed. */
  hrx_storage_ticket_t* ticket = NULL;
  const void* data = NULL;
  storage_test_read_wait(session, file, 0, 8, &ticket, &data);
  hrx_storage_ticket_release(ticket);
  hrx_storage_session_destroy(session);
  assert_int_equal(counts.live, 0);
  hrx_safetensors_destroy(view);
  unlink(path);
  free(path);

  /* The view refuses a header whose offsets pass the data section; the
   * loader refuses the same lie when the offsets reach it another way. */
  char* liar = write_safetensors("liar", 100);
  hrx_safetensors_t* refused = NULL;
  hrx_safetensors_options_t options =
      HRX_STRUCT_INIT(hrx_safetensors_options_t);
  options.mode = HRX_SAFETENSORS_READ;
  hrx_status_t status =
      hrx_safetensors_open(liar, &options, hrx_allocator_system(), &refused);
  assert_null(refused);
  assert_int_not_equal(hrx_status_code(status), HRX_STATUS_OK);
  hrx_status_free(status);
  char* honest = write_safetensors("honest", 0);
  test_allocator_t liar_counts = {0};
  session = small_session(&liar_counts);
  assert_ok(hrx_storage_session_open_file(session, honest, &file));
  view = open_view(honest);
  entries_of(view, entries);
  entries[TENSOR_COUNT - 1].file_offset += 100;
  assert_load_fails(fixture, session, &liar_counts, file, entries,
                    HRX_STATUS_DATA_LOSS, "ends past the end of file 0");
  hrx_storage_session_destroy(session);
  assert_int_equal(liar_counts.live, 0);
  hrx_safetensors_destroy(view);
  unlink(honest);
  free(honest);
  unlink(liar);
  free(liar);
}

/* statx failing while the file's size is checked fails the load by name,
 * with nothing allocated. */
static void test_size_check_fault(void** state) {
  arena_fixture_t* fixture = *state;
  char* path = write_safetensors("fault", 0);
  hrx_safetensors_t* view = open_view(path);
  storage_fault_t fault;
  hrx_storage_sys_t sys = storage_fault_sys(&fault, STORAGE_CALL_STATX, 1, EIO);
  hrx_storage_options_t options = storage_test_options(2, SLOT_BYTES);
  test_allocator_t counts = {0};
  hrx_storage_session_t* session = NULL;
  assert_ok(hrx_storage_session_create_with_sys(
      &options, &sys, test_allocator(&counts), &session));
  uint32_t file = register_view(session, view);
  hrx_storage_arena_entry_t entries[TENSOR_COUNT];
  entries_of(view, entries);
  assert_load_fails(fixture, session, &counts, file, entries,
                    HRX_STATUS_DATA_LOSS, "statx(STATX_SIZE) on file 0");
  hrx_gpu_buffer_t* arena = NULL;
  assert_ok(hrx_storage_session_load_arena(session, file, entries,
                                           TENSOR_COUNT, fixture->stream,
                                           &arena));
  hrx_gpu_buffer_release(arena);
  hrx_storage_session_destroy(session);
  assert_int_equal(counts.live, 0);
  hrx_safetensors_destroy(view);
  unlink(path);
  free(path);
}

/* add_fd duplicating the caller's descriptor can fail; the table entry
 * stays free. */
static void test_duplicate_fault(void** state) {
  (void)state;
  char* path = write_safetensors("dup", 0);
  storage_fault_t fault;
  hrx_storage_sys_t sys =
      storage_fault_sys(&fault, STORAGE_CALL_DUPLICATE, 1, EMFILE);
  hrx_storage_options_t options = storage_test_options(1, SLOT_BYTES);
  hrx_storage_session_t* session = NULL;
  assert_ok(hrx_storage_session_create_with_sys(
      &options, &sys, hrx_allocator_system(), &session));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  uint32_t file = 0;
  assert_status(hrx_storage_session_add_fd(session, fd, &file),
                HRX_STATUS_RESOURCE_EXHAUSTED, "duplicating fd");
  assert_ok(hrx_storage_session_add_fd(session, fd, &file));
  assert_int_equal(file, 0);
  close(fd);
  hrx_storage_session_destroy(session);
  unlink(path);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_safetensors_into_one_arena),
      cmocka_unit_test(test_lies_and_truncation_allocate_nothing),
      cmocka_unit_test(test_size_check_fault),
      cmocka_unit_test(test_duplicate_fault),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
