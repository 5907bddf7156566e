/* The fabric storage ring on the host device: a Loom kernel authors
 * READ_FIXED entries in caller-owned SQ pages, the SQPOLL thread takes
 * them, and the kernel consumes the completions; the payload then holds
 * the file's bytes. The ring's restrictions refuse anything else. */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hrx/loom.h"
#include "storage_fault_sys.h"
#include "storage_test_util.h"

#define CHUNK 12288u
#define COUNT 6u
#define ENTRIES 8u
#define SECOND 1000000000ull

typedef struct ring_fixture_t {
  hrx_gpu_device_t* device;
  hrx_gpu_stream_t* stream;
  hrx_gpu_kernel_t* kernel;
  char* path;
  int fd;
} ring_fixture_t;

static hrx_gpu_kernel_t* compile_kernel(hrx_gpu_device_t* device) {
  void* text = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(),
                              HRX_STORAGE_TEST_SOURCE_DIR
                              "/fabric_ring_read.loom",
                              1 << 20, &text, &length));
  const char* target = hrx_gpu_device_properties(device)->profile_target;
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.disable_cache = true;
  hrx_loom_compiler_t* compiler = NULL;
  assert_ok(hrx_loom_compiler_create(target, &options, hrx_allocator_system(),
                                     &compiler));
  hrx_loom_compile_request_t request = {
      .source = text, .length = length, .source_name = "fabric_ring_read"};
  hrx_loom_artifact_t* artifact = NULL;
  assert_ok(hrx_loom_compile(compiler, &request, NULL, &artifact));
  size_t code_length = 0;
  const uint8_t* code = hrx_loom_artifact_code(artifact, &code_length);
  hrx_gpu_kernel_t* kernel = NULL;
  assert_ok(hrx_gpu_kernel_load(device, code, code_length, "fabric_ring_read",
                                &kernel));
  hrx_loom_artifact_destroy(artifact);
  hrx_loom_compiler_destroy(compiler);
  hrx_allocator_free(hrx_allocator_system(), text);
  return kernel;
}

static int setup(void** state) {
  ring_fixture_t* f = test_malloc(sizeof(*f));
  assert_ok(hrx_gpu_device_open(0, hrx_allocator_system(), &f->device));
  assert_ok(hrx_gpu_stream_create(f->device, &f->stream));
  f->kernel = compile_kernel(f->device);
  f->path = storage_test_file_create("/dev/shm", "fabric", 2 * COUNT * CHUNK);
  f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
  assert_true(f->fd >= 0);
  *state = f;
  return 0;
}

static int teardown(void** state) {
  ring_fixture_t* f = *state;
  close(f->fd);
  storage_test_file_remove(f->path);
  hrx_gpu_kernel_release(f->kernel);
  hrx_gpu_stream_destroy(f->stream);
  hrx_gpu_device_release(f->device);
  test_free(f);
  return 0;
}

/* Linux 6.6 has every setup flag the ring needs. */
static bool kernel_has_caller_queues(void) {
  struct utsname name;
  unsigned major = 0, minor = 0;
  return uname(&name) == 0 &&
         sscanf(name.release, "%u.%u", &major, &minor) == 2 &&
         (major > 6 || (major == 6 && minor >= 6));
}

static hrx_gpu_arg_t arg_view(hrx_gpu_view_t view, hrx_gpu_access_t access) {
  return hrx_gpu_arg_binding(view, access);
}

/* One batch: the kernel authors COUNT reads of file 0 from |file_offset|
 * into the payload, starting at ring position |first|; a host thread keeps
 * the poller awake until the kernel is done. */
static void run_batch(ring_fixture_t* f, hrx_storage_fabric_ring_t* ring,
                      hrx_gpu_buffer_t* results, uint32_t first,
                      uint64_t file_offset) {
  const hrx_storage_fabric_ring_layout_t* l =
      hrx_storage_fabric_ring_layout(ring);
  uint64_t head_word = (uint64_t)IORING_OP_READ_FIXED |
                       ((uint64_t)IOSQE_FIXED_FILE << 8) | (0ull << 32);
  hrx_gpu_arg_t args[] = {
      arg_view(l->sqes, HRX_GPU_ACCESS_WRITE),
      arg_view(l->sq_tail, HRX_GPU_ACCESS_WRITE),
      arg_view(l->cqes, HRX_GPU_ACCESS_READ),
      arg_view(l->cq_tail, HRX_GPU_ACCESS_READ),
      arg_view(l->cq_head, HRX_GPU_ACCESS_WRITE),
      arg_view(hrx_gpu_buffer_binding(results), HRX_GPU_ACCESS_WRITE),
      hrx_gpu_arg_scalar(COUNT),
      hrx_gpu_arg_scalar(first),
      hrx_gpu_arg_scalar(l->sq_entries - 1),
      hrx_gpu_arg_scalar(first),
      hrx_gpu_arg_scalar(l->cq_entries - 1),
      hrx_gpu_arg_scalar(head_word),
      hrx_gpu_arg_scalar(CHUNK),
      hrx_gpu_arg_scalar(file_offset),
      hrx_gpu_arg_scalar(l->payload_address),
  };
  hrx_gpu_launch_t launch = {NULL, 0, args, sizeof(args) / sizeof(args[0])};
  assert_ok(hrx_gpu_stream_dispatch(f->stream, f->kernel, &launch));
  hrx_status_t status = HRX_OK;
  for (int i = 0; i < 1000; ++i) {
    assert_ok(hrx_storage_fabric_ring_wake(ring));
    status = hrx_gpu_stream_synchronize(f->stream, SECOND / 100);
    if (!hrx_status_is(status, HRX_STATUS_DEADLINE_EXCEEDED)) break;
    hrx_status_free(status);
  }
  assert_ok(status);
}

/* Two batches (the second wraps the 8-entry SQ): every completion reports
 * a full chunk and the payload equals the file, byte for byte. */
static void test_device_authored_reads(void** state) {
  ring_fixture_t* f = *state;
  hrx_gpu_buffer_t* payload = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, COUNT * CHUNK, &payload));
  hrx_gpu_buffer_t* results = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, COUNT * 8, &results));
  hrx_storage_fabric_ring_options_t options =
      HRX_STRUCT_INIT(hrx_storage_fabric_ring_options_t);
  options.entries = ENTRIES;
  options.sqpoll_idle_ms = 1000;
  test_allocator_t counts = {0};
  hrx_storage_fabric_ring_t* ring = NULL;
  hrx_status_t status = hrx_storage_fabric_ring_create(
      f->stream, &f->fd, 1, payload, &options, test_allocator(&counts), &ring);
  if (!kernel_has_caller_queues() &&
      hrx_status_is(status, HRX_STATUS_UNIMPLEMENTED)) {
    print_message("kernel before 6.6: %s\n", hrx_status_message(status));
    hrx_status_free(status);
    hrx_gpu_buffer_release(payload);
    hrx_gpu_buffer_release(results);
    return;
  }
  assert_ok(status);
  const hrx_storage_fabric_ring_layout_t* l =
      hrx_storage_fabric_ring_layout(ring);
  assert_int_equal(l->sq_entries, ENTRIES);
  for (uint32_t batch = 0; batch < 2; ++batch) {
    memset(hrx_gpu_buffer_host_pointer(payload), 0, COUNT * CHUNK);
    uint64_t file_offset = batch * COUNT * CHUNK;
    run_batch(f, ring, results, batch * COUNT, file_offset);
    const int64_t* words = hrx_gpu_buffer_host_pointer(results);
    for (uint32_t i = 0; i < COUNT; ++i) {
      assert_int_equal((int32_t)words[i], CHUNK);
    }
    storage_test_assert_matches_pread(f->path, file_offset,
                                      hrx_gpu_buffer_host_pointer(payload),
                                      COUNT * CHUNK);
  }
  hrx_storage_fabric_ring_destroy(ring);
  assert_int_equal(counts.live, 0);
  hrx_gpu_buffer_release(payload);
  hrx_gpu_buffer_release(results);
}

/* A rogue entry (a plain READ naming a raw descriptor) published by hand
 * completes with -EACCES: the restrictions admit READ_FIXED on registered
 * files only. */
static void test_restrictions_refuse_other_requests(void** state) {
  ring_fixture_t* f = *state;
  if (!kernel_has_caller_queues()) return;
  hrx_gpu_buffer_t* payload = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, CHUNK, &payload));
  hrx_storage_fabric_ring_options_t options =
      HRX_STRUCT_INIT(hrx_storage_fabric_ring_options_t);
  options.entries = 4;
  options.sqpoll_idle_ms = 1000;
  hrx_storage_fabric_ring_t* ring = NULL;
  assert_ok(hrx_storage_fabric_ring_create(f->stream, &f->fd, 1, payload,
                                           &options, hrx_allocator_system(),
                                           &ring));
  const hrx_storage_fabric_ring_layout_t* l =
      hrx_storage_fabric_ring_layout(ring);
  uint8_t* base = hrx_gpu_buffer_host_pointer(l->sqes.buffer);
  struct io_uring_sqe* sqe = (struct io_uring_sqe*)(base + l->sqes.offset);
  memset(sqe, 0, sizeof(*sqe));
  sqe->opcode = IORING_OP_READ;
  sqe->fd = f->fd;
  sqe->addr = l->payload_address;
  sqe->len = 16;
  sqe->user_data = 77;
  uint32_t* sq_tail = (uint32_t*)((uint8_t*)hrx_gpu_buffer_host_pointer(
                                      l->sq_tail.buffer) +
                                  l->sq_tail.offset);
  const uint32_t* cq_tail = (const uint32_t*)(
      (uint8_t*)hrx_gpu_buffer_host_pointer(l->cq_tail.buffer) +
      l->cq_tail.offset);
  __atomic_store_n(sq_tail, 1, __ATOMIC_RELEASE);
  for (int i = 0; i < 10000 && __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == 0;
       ++i) {
    assert_ok(hrx_storage_fabric_ring_wake(ring));
    hrx_sleep_ns(1000000);
  }
  assert_int_equal(__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE), 1);
  const struct io_uring_cqe* cqe = (const struct io_uring_cqe*)(
      (uint8_t*)hrx_gpu_buffer_host_pointer(l->cqes.buffer) + l->cqes.offset);
  assert_int_equal(cqe->user_data, 77);
  assert_int_equal(cqe->res, -EACCES);
  hrx_storage_fabric_ring_destroy(ring);
  hrx_gpu_buffer_release(payload);
}

static void test_bad_arguments(void** state) {
  ring_fixture_t* f = *state;
  hrx_gpu_buffer_t* payload = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, CHUNK, &payload));
  hrx_storage_fabric_ring_options_t options =
      HRX_STRUCT_INIT(hrx_storage_fabric_ring_options_t);
  options.entries = 3;
  hrx_storage_fabric_ring_t* ring = NULL;
  assert_status(hrx_storage_fabric_ring_create(f->stream, &f->fd, 1, payload,
                                               &options,
                                               hrx_allocator_system(), &ring),
                HRX_STATUS_INVALID_ARGUMENT, "power of two");
  options.entries = 4;
  assert_status(hrx_storage_fabric_ring_create(f->stream, &f->fd, 0, payload,
                                               &options,
                                               hrx_allocator_system(), &ring),
                HRX_STATUS_INVALID_ARGUMENT, "file count 0");
  assert_status(hrx_storage_fabric_ring_create(f->stream, &f->fd, 1, NULL,
                                               &options,
                                               hrx_allocator_system(), &ring),
                HRX_STATUS_INVALID_ARGUMENT, "needs a payload");
  assert_status(hrx_storage_fabric_ring_create(f->stream, NULL, 1, payload,
                                               &options,
                                               hrx_allocator_system(), &ring),
                HRX_STATUS_INVALID_ARGUMENT, "no descriptors");
  if (kernel_has_caller_queues()) {
    int closed = dup(f->fd);
    close(closed);
    assert_status(hrx_storage_fabric_ring_create(f->stream, &closed, 1,
                                                 payload, &options,
                                                 hrx_allocator_system(),
                                                 &ring),
                  HRX_STATUS_INVALID_ARGUMENT, "registering 1 fabric ring");
  }
  assert_null(ring);
  hrx_gpu_buffer_release(payload);
}

/* Every system call of the ring failing once fails creation by name and
 * leaves nothing behind; a failed wake-up is reported and the next one
 * works. */
static void test_faults(void** state) {
  ring_fixture_t* f = *state;
  const struct {
    storage_call_t call;
    unsigned fail_at;
    int error;
    hrx_status_code_t code;
    const char* text;
  } cases[] = {
      {STORAGE_CALL_URING_SETUP, 1, EINVAL, HRX_STATUS_UNIMPLEMENTED,
       "need Linux 6.6"},
      {STORAGE_CALL_URING_SETUP, 1, EPERM, HRX_STATUS_UNAVAILABLE,
       "IORING_SETUP_SQPOLL"},
      {STORAGE_CALL_URING_SETUP, 1, ENOMEM, HRX_STATUS_RESOURCE_EXHAUSTED,
       "io_uring_setup for the fabric ring"},
      {STORAGE_CALL_URING_REGISTER, 1, EBADF, HRX_STATUS_INVALID_ARGUMENT,
       "a descriptor is not open"},
      {STORAGE_CALL_URING_REGISTER, 2, ENOMEM, HRX_STATUS_RESOURCE_EXHAUSTED,
       "RLIMIT_MEMLOCK"},
      {STORAGE_CALL_URING_REGISTER, 3, EINVAL, HRX_STATUS_INVALID_ARGUMENT,
       "restricting the fabric ring"},
      {STORAGE_CALL_URING_REGISTER, 4, EBUSY, HRX_STATUS_BUSY,
       "enabling the fabric ring"},
  };
  hrx_gpu_buffer_t* payload = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, CHUNK, &payload));
  hrx_storage_fabric_ring_options_t options =
      HRX_STRUCT_INIT(hrx_storage_fabric_ring_options_t);
  options.entries = 4;
  options.sqpoll_idle_ms = 1;
  bool real = kernel_has_caller_queues();
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    if (cases[i].call != STORAGE_CALL_URING_SETUP && !real) continue;
    print_message("fault in %s #%u\n", storage_call_name(cases[i].call),
                  cases[i].fail_at);
    storage_fault_t fault;
    hrx_storage_sys_t sys = storage_fault_sys(&fault, cases[i].call,
                                              cases[i].fail_at,
                                              cases[i].error);
    test_allocator_t counts = {0};
    hrx_storage_fabric_ring_t* ring = NULL;
    assert_status(hrx_storage_fabric_ring_create_with_sys(
                      f->stream, &f->fd, 1, payload, &options, &sys,
                      test_allocator(&counts), &ring),
                  cases[i].code, cases[i].text);
    assert_null(ring);
    assert_int_equal(counts.live, 0);
  }
  if (real) {
    /* A 1 ms idle poller is asleep (NEED_WAKEUP) after 100 ms. */
    storage_fault_t fault;
    hrx_storage_sys_t sys =
        storage_fault_sys(&fault, STORAGE_CALL_URING_ENTER, 1, EBUSY);
    hrx_storage_fabric_ring_t* ring = NULL;
    assert_ok(hrx_storage_fabric_ring_create_with_sys(
        f->stream, &f->fd, 1, payload, &options, &sys, hrx_allocator_system(),
        &ring));
    const hrx_storage_fabric_ring_layout_t* l =
        hrx_storage_fabric_ring_layout(ring);
    const uint32_t* flags = (const uint32_t*)(
        (uint8_t*)hrx_gpu_buffer_host_pointer(l->sq_flags.buffer) +
        l->sq_flags.offset);
    for (int i = 0; i < 1000 && !(__atomic_load_n(flags, __ATOMIC_ACQUIRE) &
                                  IORING_SQ_NEED_WAKEUP);
         ++i) {
      hrx_sleep_ns(1000000);
    }
    assert_true(__atomic_load_n(flags, __ATOMIC_ACQUIRE) &
                IORING_SQ_NEED_WAKEUP);
    assert_status(hrx_storage_fabric_ring_wake(ring), HRX_STATUS_BUSY,
                  "waking the fabric ring's poller");
    assert_ok(hrx_storage_fabric_ring_wake(ring));
    assert_int_equal(atomic_load(&fault.calls[STORAGE_CALL_URING_ENTER]), 2);
    hrx_storage_fabric_ring_destroy(ring);
  }
  hrx_gpu_buffer_release(payload);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_authored_reads),
      cmocka_unit_test(test_restrictions_refuse_other_requests),
      cmocka_unit_test(test_bad_arguments),
      cmocka_unit_test(test_faults),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
