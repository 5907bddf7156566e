/* Fault injection through the storage system-call table: every call the
 * session makes fails once, and the session reports it clearly, leaks
 * nothing and never hangs. */
#include <errno.h>

#include "storage_fault_sys.h"
#include "storage_test_util.h"

#define TIMEOUT_NS 10000000000ull

/* One injected fault and what the session must answer. */
typedef struct fault_case_t {
  storage_call_t call;
  int error;
  hrx_status_code_t code;
  const char* text;
  hrx_storage_progress_t progress; /* WAIT unless named */
} fault_case_t;

typedef struct fault_fixture_t {
  char* path;
} fault_fixture_t;

static int setup(void** state) {
  fault_fixture_t* fixture = test_malloc(sizeof(*fixture));
  fixture->path = storage_test_file_create("/dev/shm", "faults", 1 << 20);
  *state = fixture;
  return 0;
}

static int teardown(void** state) {
  fault_fixture_t* fixture = *state;
  storage_test_file_remove(fixture->path);
  test_free(fixture);
  return 0;
}

static hrx_status_t create(storage_fault_t* fault, storage_call_t call,
                           int error, hrx_storage_progress_t progress,
                           test_allocator_t* counts,
                           hrx_storage_session_t** out_session) {
  hrx_storage_sys_t sys = storage_fault_sys(fault, call, 1, error);
  hrx_storage_options_t options = storage_test_options(2, 1 << 20);
  options.progress = progress;
  return hrx_storage_session_create_with_sys(&options, &sys,
                                             test_allocator(counts),
                                             out_session);
}

/* A one-slot session in |mode| whose |call| fails once with |error|. */
static hrx_storage_session_t* one_slot_session(storage_fault_t* fault,
                                               storage_call_t call, int error,
                                               hrx_storage_io_mode_t mode) {
  hrx_storage_sys_t sys = storage_fault_sys(fault, call, 1, error);
  hrx_storage_options_t options = storage_test_options(1, 1 << 20);
  options.io_mode = mode;
  hrx_storage_session_t* session = NULL;
  assert_ok(hrx_storage_session_create_with_sys(
      &options, &sys, hrx_allocator_system(), &session));
  return session;
}

/* Each call that creation makes, failing, fails creation with that call's
 * errno, and nothing stays allocated or mapped. */
static void test_create_faults(void** state) {
  (void)state;
  const fault_case_t cases[] = {
      {STORAGE_CALL_MAP_PAGES, ENOMEM,
       HRX_STATUS_RESOURCE_EXHAUSTED, "mapping 2 slots"},
      {STORAGE_CALL_QUEUE_INIT, ENOMEM,
       HRX_STATUS_RESOURCE_EXHAUSTED, "io_uring_queue_init_params"},
      {STORAGE_CALL_QUEUE_INIT, EPERM,
       HRX_STATUS_UNAVAILABLE, "HRX_STORAGE_PROGRESS_WAIT instead",
       HRX_STORAGE_PROGRESS_SQPOLL},
      {STORAGE_CALL_REGISTER_FILES_SPARSE, EMFILE,
       HRX_STATUS_RESOURCE_EXHAUSTED, "table of 8 files"},
      {STORAGE_CALL_REGISTER_BUFFERS, ENOMEM,
       HRX_STATUS_RESOURCE_EXHAUSTED, "RLIMIT_MEMLOCK"},
      {STORAGE_CALL_EVENTFD, EMFILE, HRX_STATUS_RESOURCE_EXHAUSTED, "eventfd"},
      {STORAGE_CALL_REGISTER_EVENTFD, EBUSY,
       HRX_STATUS_BUSY, "completion eventfd"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    storage_fault_t fault;
    test_allocator_t counts = {0};
    hrx_storage_session_t* session = NULL;
    hrx_status_t status = create(&fault, cases[i].call, cases[i].error,
                                 cases[i].progress, &counts, &session);
    print_message("fault in %s\n", storage_call_name(cases[i].call));
    assert_status(status, cases[i].code, cases[i].text);
    assert_null(session);
    assert_int_equal(counts.live, 0);
  }
}

/* What a session with one armed fault must do. */
typedef void (*fault_check_fn)(const fault_case_t* fault_case,
                               hrx_storage_session_t* session,
                               const char* path);

/* Runs |check| on a fresh WAIT session per case; nothing may stay
 * allocated once the session is destroyed. */
static void run_cases(const fault_case_t* cases, size_t count,
                      const char* path, fault_check_fn check) {
  for (size_t i = 0; i < count; ++i) {
    storage_fault_t fault;
    test_allocator_t counts = {0};
    hrx_storage_session_t* session = NULL;
    assert_ok(create(&fault, cases[i].call, cases[i].error,
                     HRX_STORAGE_PROGRESS_WAIT, &counts, &session));
    print_message("fault in %s\n", storage_call_name(cases[i].call));
    check(&cases[i], session, path);
    hrx_storage_session_destroy(session);
    assert_int_equal(counts.live, 0);
  }
}

/* Registration fails alone: the next registration and its reads work. */
static void check_registration(const fault_case_t* fault_case,
                               hrx_storage_session_t* session,
                               const char* path) {
  uint32_t file = 0;
  assert_status(hrx_storage_session_open_file(session, path, &file),
                fault_case->code, fault_case->text);
  assert_ok(hrx_storage_session_open_file(session, path, &file));
  hrx_storage_ticket_t* ticket = NULL;
  const void* data = NULL;
  storage_test_read_wait(session, file, 10, 100, &ticket, &data);
  storage_test_assert_matches_pread(path, 10, data, 100);
  hrx_storage_ticket_release(ticket);
}

static void test_registration_faults(void** state) {
  fault_fixture_t* fixture = *state;
  const fault_case_t cases[] = {
      {STORAGE_CALL_OPEN, EACCES, HRX_STATUS_PERMISSION_DENIED, "opening"},
      {STORAGE_CALL_GET_FLAGS, EIO, HRX_STATUS_DATA_LOSS, "F_GETFL"},
      {STORAGE_CALL_REGISTER_FILES_UPDATE, ENOMEM,
       HRX_STATUS_RESOURCE_EXHAUSTED, "as file 0"},
  };
  run_cases(cases, sizeof(cases) / sizeof(cases[0]), fixture->path,
            check_registration);
}

/* statx failing in a DIRECT session fails the registration. */
static void test_statx_fault(void** state) {
  fault_fixture_t* fixture = *state;
  storage_fault_t fault;
  hrx_storage_session_t* session = one_slot_session(
      &fault, STORAGE_CALL_STATX, EIO, HRX_STORAGE_IO_DIRECT);
  uint32_t file = 0;
  assert_status(hrx_storage_session_open_file(session, fixture->path, &file),
                HRX_STATUS_DATA_LOSS, "statx(STATX_DIOALIGN)");
  assert_int_equal(atomic_load(&fault.calls[STORAGE_CALL_STATX]), 1);
  hrx_storage_session_destroy(session);
}

/* The wake-up write failing refuses the read and queues nothing; the next
 * read works. A reader wakes the service thread only while it sleeps, so
 * reads go on until one meets the fault; only accepted reads count. */
static void check_wake(const fault_case_t* fault_case,
                       hrx_storage_session_t* session, const char* path) {
  uint32_t file = 0;
  assert_ok(hrx_storage_session_open_file(session, path, &file));
  uint64_t accepted = 0;
  hrx_status_t status = HRX_OK;
  for (int i = 0; i < 1000 && status == HRX_OK; ++i) {
    hrx_storage_ticket_t* ticket = NULL;
    status = hrx_storage_session_read(session, file, 0, 100, &ticket);
    if (status == HRX_OK) {
      const void* data = NULL;
      uint64_t length = 0;
      assert_ok(hrx_storage_ticket_wait(ticket, TIMEOUT_NS, &data, &length));
      hrx_storage_ticket_release(ticket);
      accepted++;
      hrx_sleep_ns(100000); /* let the service thread fall asleep */
    }
  }
  assert_status(status, fault_case->code, fault_case->text);
  hrx_storage_ticket_t* ticket = NULL;
  const void* data = NULL;
  storage_test_read_wait(session, file, 0, 100, &ticket, &data);
  storage_test_assert_matches_pread(path, 0, data, 100);
  hrx_storage_ticket_release(ticket);
  hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
  assert_ok(hrx_storage_session_statistics(session, &stats));
  assert_int_equal(stats.physical_reads, accepted + 1);
  assert_int_equal(stats.logical_reads, accepted + 1);
}

static void test_wake_fault(void** state) {
  fault_fixture_t* fixture = *state;
  const fault_case_t cases[] = {
      {STORAGE_CALL_WRITE, EAGAIN, HRX_STATUS_BUSY,
       "waking the storage service thread"},
  };
  run_cases(cases, 1, fixture->path, check_wake);
}

/* A failure on the service thread's side stops the session: the read in
 * flight settles with it, and every later call reports it. */
static void check_service(const fault_case_t* fault_case,
                          hrx_storage_session_t* session, const char* path) {
  uint32_t file = 0;
  hrx_storage_ticket_t* ticket = NULL;
  hrx_status_t status = hrx_storage_session_open_file(session, path, &file);
  /* Reads go on until the fault strikes: the eventfd wait may come only
   * after the first read has settled. */
  for (int i = 0; i < 1000 && status == HRX_OK; ++i) {
    status = hrx_storage_session_read(session, file, 0, 100, &ticket);
    if (status == HRX_OK) {
      const void* data = NULL;
      uint64_t length = 0;
      status = hrx_storage_ticket_wait(ticket, TIMEOUT_NS, &data, &length);
      hrx_storage_ticket_release(ticket);
      hrx_sleep_ns(100000);
    }
  }
  assert_status(status, fault_case->code, fault_case->text);
  assert_status(hrx_storage_session_read(session, file, 0, 100, &ticket),
                fault_case->code, fault_case->text);
  assert_null(ticket);
  assert_status(hrx_storage_session_open_file(session, path, &file),
                fault_case->code, fault_case->text);
}

static void test_service_faults(void** state) {
  fault_fixture_t* fixture = *state;
  const fault_case_t cases[] = {
      {STORAGE_CALL_SUBMIT, EIO, HRX_STATUS_DATA_LOSS, "submitting 1 requests"},
      {STORAGE_CALL_PEEK_CQE, ENOMEM, HRX_STATUS_RESOURCE_EXHAUSTED,
       "reaping io_uring completions"},
      {STORAGE_CALL_CQE, EIO, HRX_STATUS_DATA_LOSS,
       "reading 100 bytes at offset 0 of file 0"},
      {STORAGE_CALL_READ, EIO, HRX_STATUS_DATA_LOSS,
       "waiting on the storage eventfd"},
  };
  run_cases(cases, sizeof(cases) / sizeof(cases[0]), fixture->path,
            check_service);
}

/* A read the kernel has not taken yet: waiting times out, copying is
 * refused until it completes, and releasing the ticket leaves the slot
 * held by the read itself, so the one-slot pool stays BUSY until the read
 * completes. */
static void test_timed_out_read_keeps_its_slot(void** state) {
  fault_fixture_t* fixture = *state;
  storage_fault_t fault;
  hrx_storage_session_t* session = one_slot_session(
      &fault, STORAGE_CALL_SUBMIT, EAGAIN, HRX_STORAGE_IO_BUFFERED);
  storage_fault_make_sticky(&fault);
  uint32_t file = 0;
  assert_ok(hrx_storage_session_open_file(session, fixture->path, &file));
  hrx_storage_ticket_t* ticket = NULL;
  assert_ok(hrx_storage_session_read(session, file, 0, 4096, &ticket));
  const void* data = NULL;
  uint64_t length = 0;
  assert_status(hrx_storage_ticket_wait(ticket, 20000000, &data, &length),
                HRX_STATUS_DEADLINE_EXCEEDED, "has not completed");
  hrx_gpu_view_t nowhere = {NULL, 0, 4096};
  assert_status(hrx_storage_ticket_copy_to(ticket, NULL, nowhere),
                HRX_STATUS_FAILED_PRECONDITION, "wait on the ticket");
  hrx_storage_ticket_release(ticket);
  hrx_storage_ticket_t* other = NULL;
  assert_status(hrx_storage_session_read(session, file, 8192, 4096, &other),
                HRX_STATUS_BUSY, "retained");
  hrx_storage_statistics_t stats = HRX_STRUCT_INIT(hrx_storage_statistics_t);
  assert_ok(hrx_storage_session_statistics(session, &stats));
  assert_int_equal(stats.retained_slots, 1);

  storage_fault_disarm(&fault);
  hrx_status_t status =
      hrx_storage_session_read(session, file, 8192, 4096, &other);
  for (int i = 0; i < 1000 && hrx_status_is(status, HRX_STATUS_BUSY); ++i) {
    hrx_status_free(status);
    hrx_sleep_ns(1000000);
    status = hrx_storage_session_read(session, file, 8192, 4096, &other);
  }
  assert_ok(status);
  assert_ok(hrx_storage_ticket_wait(other, 10000000000ull, &data, &length));
  storage_test_assert_matches_pread(fixture->path, 8192, data, 4096);
  hrx_storage_ticket_release(other);
  hrx_storage_session_destroy(session);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_faults),
      cmocka_unit_test(test_registration_faults),
      cmocka_unit_test(test_statx_fault),
      cmocka_unit_test(test_wake_fault),
      cmocka_unit_test(test_service_faults),
      cmocka_unit_test(test_timed_out_read_keeps_its_slot),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
