/* Programs on the scripted driver: the whole documented sequence
 * (context, heap-carved COMMAND storage, DMA addresses with the shim
 * offset, ERT packet, EXEC_CMD, first-fence capture, completion with
 * ETIME/EINTR retries and command-state checks, 128 pending invocations,
 * teardown order) and every call failing once. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "device_internal.h"
#include "hrx/npu.h"
#include "npu_test_util.h"
#include "xdna_rig.h"

typedef struct rig_t {
  xdna_rig_t hw;
  hrx_npu_device_t* device;
  hrx_npu_image_t* image;
  hrx_npu_buffer_t* buffer;
  hrx_npu_program_t* program;
} rig_t;

static int rig_setup(void** state) {
  rig_t* rig = calloc(1, sizeof(*rig));
  xdna_rig_init(&rig->hw);
  rig->image = xdna_rig_default_image();
  *state = rig;
  return 0;
}

static int rig_teardown(void** state) {
  rig_t* rig = *state;
  hrx_npu_program_destroy(rig->program);
  hrx_npu_buffer_release(rig->buffer);
  hrx_npu_device_destroy(rig->device);
  xdna_rig_deinit(&rig->hw);
  hrx_npu_image_destroy(rig->image);
  free(rig);
  return 0;
}

/* Opens the device, allocates a 4 KiB buffer and prepares "main" with
 * 128 bytes of it from offset 64. */
static hrx_status_t rig_prepare(rig_t* rig) {
  HRX_RETURN_IF_ERROR(xdna_rig_open(&rig->hw, NULL, &rig->device));
  HRX_RETURN_IF_ERROR(
      hrx_npu_buffer_allocate(rig->device, 4096, &rig->buffer));
  hrx_npu_binding_t binding = {.buffer = rig->buffer, .offset = 64,
                               .size = 128};
  return hrx_npu_program_prepare(rig->device, rig->image, "main", &binding,
                                 1, &rig->program);
}

static const xdna_fake_bo_t* find_bo(const xdna_fake_t* fake, uint32_t type,
                                     size_t nth) {
  for (uint32_t i = 1; i <= fake->bo_count; ++i) {
    if (fake->bos[i].live && fake->bos[i].type == type && nth-- == 0) {
      return &fake->bos[i];
    }
  }
  return NULL;
}

static uint32_t word_at(const uint8_t* p) {
  uint32_t w = 0;
  memcpy(&w, p, sizeof(w));
  return w;
}

static void test_ert_reference(void** state) {
  (void)state;
  static const uint32_t kReference[HRX_NPU_ERT_WORDS] = {
      0x3B00B001, 1, 0x87650000, 0x12345678, 0, 0, 0, 0, 260, 0, 0, 0};
  uint32_t words[HRX_NPU_ERT_WORDS];
  hrx_npu_ert_encode(0x1234567887650000ull, 260, words);
  assert_memory_equal(words, kReference, sizeof(kReference));
  assert_string_equal(hrx_npu_ert_state_name(4), "COMPLETED");
  assert_string_equal(hrx_npu_ert_state_name(5), "ERROR");
  assert_string_equal(hrx_npu_ert_state_name(0), "UNKNOWN");
  assert_string_equal(hrx_npu_ert_state_name(15), "UNKNOWN");
}

static void test_noop_end_to_end(void** state) {
  rig_t* rig = *state;
  xdna_fake_t* fake = &rig->hw.fake;
  assert_ok(rig_prepare(rig));
  /* The context: normal priority, 8 columns x 4 core rows. */
  assert_int_equal(fake->num_tiles, 32);
  assert_int_equal(fake->qos_priority, 0x200);
  /* COMMAND storage carved from the heap, 32 KiB aligned. */
  const xdna_fake_bo_t* heap = find_bo(fake, HRX_XDNA_BO_DEV_HEAP, 0);
  const xdna_fake_bo_t* command = find_bo(fake, HRX_XDNA_BO_DEV, 0);
  assert_non_null(heap);
  assert_int_equal(heap->size, 64u << 20);
  assert_non_null(command);
  assert_true(command->xdna_addr >= heap->xdna_addr);
  assert_true(command->xdna_addr + command->size <=
              heap->xdna_addr + heap->size);
  assert_int_equal(command->xdna_addr % (32 << 10), 0);
  /* The image is loaded and relocated with shim DMA addresses. */
  const xdna_fake_bo_t* dma = find_bo(fake, HRX_XDNA_BO_SHARE, 1);
  assert_non_null(dma);
  assert_memory_equal(command->memory, npu_noop_txn, sizeof(npu_noop_txn));
  uint64_t dma_address = dma->xdna_addr + 0x80000000ull + 16;
  assert_int_equal(word_at(command->memory + 2048), (uint32_t)dma_address);
  assert_int_equal(word_at(command->memory + 2052),
                   (uint32_t)(dma_address >> 32));
  uint64_t bound = hrx_npu_buffer_dma_address(rig->buffer) + 64;
  assert_int_equal(hrx_npu_buffer_dma_address(rig->buffer),
                   find_bo(fake, HRX_XDNA_BO_SHARE, 0)->xdna_addr +
                       0x80000000ull);
  assert_int_equal(word_at(dma->memory + 8), (uint32_t)bound);
  assert_int_equal(word_at(dma->memory + 12), (uint32_t)(bound >> 32));
  /* 128 one-page command slots. */
  assert_non_null(find_bo(fake, HRX_XDNA_BO_CMD, 127));
  assert_null(find_bo(fake, HRX_XDNA_BO_CMD, 128));

  hrx_npu_invocation_t first;
  assert_ok(hrx_npu_program_dispatch(rig->program, &first));
  assert_int_equal(first.point, 1);
  const uint32_t expected[HRX_NPU_ERT_WORDS] = {
      0x3B00B001, 1, (uint32_t)command->xdna_addr,
      (uint32_t)(command->xdna_addr >> 32), 0, 0, 0, 0, 20, 0, 0, 0};
  assert_memory_equal(fake->last_ert, expected, sizeof(expected));
  assert_int_equal(fake->last_cmd_count, 1);
  assert_int_equal(fake->last_arg_count, 0);
  /* The first fence went into the spare syncobj. */
  uint32_t spare = 0;
  for (uint32_t i = 1; i <= fake->syncobj_count; ++i) {
    if (!fake->syncobjs[i].timeline) spare = i;
  }
  assert_int_equal(fake->syncobjs[spare].captured_point, 1);
  assert_int_equal(hrx_npu_program_pending(rig->program), 1);
  assert_ok(hrx_npu_program_wait(rig->program, first, 1000000000ull));
  assert_int_equal(hrx_npu_program_pending(rig->program), 0);

  hrx_npu_invocation_t second;
  assert_ok(hrx_npu_program_dispatch(rig->program, &second));
  assert_int_equal(second.point, 2);
  assert_int_equal(fake->syncobjs[spare].captured_point, 1);
  bool complete = false;
  assert_ok(hrx_npu_program_is_complete(rig->program, second, &complete));
  assert_true(complete);
  /* Retired invocations stay complete; unknown ones are refused. */
  assert_ok(hrx_npu_program_is_complete(rig->program, first, &complete));
  assert_true(complete);
  hrx_npu_invocation_t none = {0};
  assert_status(hrx_npu_program_is_complete(rig->program, none, &complete),
                HRX_STATUS_INVALID_ARGUMENT, "invocation 0 was not");
  hrx_npu_invocation_t future = {.point = 3};
  assert_status(hrx_npu_program_wait(rig->program, future, 0),
                HRX_STATUS_INVALID_ARGUMENT, "invocation 3 was not");

  /* Teardown order: queue, storage, context; then heap, node. */
  hrx_npu_buffer_release(rig->buffer); /* the program still holds it */
  rig->buffer = NULL;
  size_t mark = fake->event_count;
  hrx_npu_program_destroy(rig->program);
  rig->program = NULL;
  const xdna_fake_event_t* e = fake->events + mark;
  for (size_t i = 0; i < 128; ++i) assert_int_equal(e[i], XDNA_FAKE_CLOSE_CMD);
  assert_int_equal(e[128], XDNA_FAKE_CLOSE_DEV);
  assert_int_equal(e[129], XDNA_FAKE_CLOSE_SHARE);
  assert_int_equal(e[130], XDNA_FAKE_CLOSE_SHARE); /* the bound buffer */
  assert_int_equal(e[131], XDNA_FAKE_DESTROY_SYNCOBJ);
  assert_int_equal(e[132], XDNA_FAKE_DESTROY_HWCTX);
  assert_int_equal(fake->event_count, mark + 133);
  hrx_npu_device_destroy(rig->device);
  rig->device = NULL;
  assert_int_equal(fake->events[mark + 133], XDNA_FAKE_CLOSE_HEAP);
  assert_int_equal(fake->events[mark + 134], XDNA_FAKE_CLOSE_NODE);
}

static void test_wait_retries(void** state) {
  rig_t* rig = *state;
  xdna_fake_t* fake = &rig->hw.fake;
  assert_ok(rig_prepare(rig));
  hrx_npu_invocation_t inv;
  /* Signals and early ETIMEs before the answer are retried. */
  fake->wait_eintr = 2;
  fake->wait_early_etime = 2;
  assert_ok(hrx_npu_program_dispatch(rig->program, &inv));
  size_t waits = fake->waits;
  assert_ok(hrx_npu_program_wait(rig->program, inv, 10ull * 1000000000));
  assert_int_equal(fake->waits - waits, 5);
  /* A command still running: the deadline passes, then it completes. */
  fake->hold = true;
  assert_ok(hrx_npu_program_dispatch(rig->program, &inv));
  assert_status(hrx_npu_program_wait(rig->program, inv, 2000000),
                HRX_STATUS_DEADLINE_EXCEEDED, "still runs");
  bool complete = true;
  assert_ok(hrx_npu_program_is_complete(rig->program, inv, &complete));
  assert_false(complete);
  xdna_fake_complete(fake, 1);
  assert_ok(hrx_npu_program_is_complete(rig->program, inv, &complete));
  assert_true(complete);
  /* Waiting for a later invocation retires the earlier ones too. */
  hrx_npu_invocation_t a, b;
  assert_ok(hrx_npu_program_dispatch(rig->program, &a));
  assert_ok(hrx_npu_program_dispatch(rig->program, &b));
  xdna_fake_complete(fake, 2);
  assert_ok(hrx_npu_program_wait(rig->program, b, HRX_TIMEOUT_INFINITE));
  assert_int_equal(hrx_npu_program_pending(rig->program), 0);
}

/* The first invocation's eventfd hangs on the spare syncobj, later ones
 * on their timeline points; kernels before 6.6 say UNIMPLEMENTED. */
static void test_eventfd(void** state) {
  rig_t* rig = *state;
  xdna_fake_t* fake = &rig->hw.fake;
  assert_ok(rig_prepare(rig));
  fake->hold = true;
  hrx_npu_invocation_t first, second;
  assert_ok(hrx_npu_program_dispatch(rig->program, &first));
  assert_ok(hrx_npu_program_dispatch(rig->program, &second));
  assert_ok(hrx_npu_program_eventfd(rig->program, first, 42));
  assert_false(fake->syncobjs[fake->eventfd_handle].timeline);
  assert_int_equal(fake->eventfd_point, 0);
  assert_int_equal(fake->eventfd_fd, 42);
  assert_ok(hrx_npu_program_eventfd(rig->program, second, 43));
  assert_int_equal(fake->eventfd_handle, fake->context_syncobj);
  assert_int_equal(fake->eventfd_point, 2);
  hrx_npu_invocation_t future = {.point = 9};
  assert_status(hrx_npu_program_eventfd(rig->program, future, 44),
                HRX_STATUS_INVALID_ARGUMENT, "invocation 9 was not");
  fake->eventfd_unsupported = true;
  assert_status(hrx_npu_program_eventfd(rig->program, second, 43),
                HRX_STATUS_UNIMPLEMENTED, "Linux 6.6");
  xdna_fake_complete(fake, 2);
  assert_ok(hrx_npu_program_wait(rig->program, second, 1000000000ull));
}

static void test_command_state_checked(void** state) {
  rig_t* rig = *state;
  xdna_fake_t* fake = &rig->hw.fake;
  assert_ok(rig_prepare(rig));
  hrx_npu_invocation_t inv;
  fake->completion_state = HRX_NPU_ERT_STATE_ERROR;
  assert_ok(hrx_npu_program_dispatch(rig->program, &inv));
  assert_status(hrx_npu_program_wait(rig->program, inv, 1000000000ull),
                HRX_STATUS_INTERNAL,
                "invocation 1 ended in command state ERROR (5)");
  fake->completion_state = HRX_NPU_ERT_STATE_ABORT;
  assert_ok(hrx_npu_program_dispatch(rig->program, &inv));
  bool complete = false;
  assert_status(hrx_npu_program_is_complete(rig->program, inv, &complete),
                HRX_STATUS_INTERNAL, "command state ABORT (6)");
  assert_true(complete);
  /* Reported once: the invocation has retired. */
  assert_ok(hrx_npu_program_wait(rig->program, inv, 0));
  fake->completion_state = HRX_NPU_ERT_STATE_COMPLETED;
  assert_ok(hrx_npu_program_dispatch(rig->program, &inv));
  assert_ok(hrx_npu_program_wait(rig->program, inv, 1000000000ull));
}

static void test_129th_dispatch_busy(void** state) {
  rig_t* rig = *state;
  xdna_fake_t* fake = &rig->hw.fake;
  assert_ok(rig_prepare(rig));
  fake->hold = true;
  hrx_npu_invocation_t inv;
  for (int i = 0; i < HRX_NPU_PROGRAM_SLOTS; ++i) {
    assert_ok(hrx_npu_program_dispatch(rig->program, &inv));
  }
  assert_int_equal(hrx_npu_program_pending(rig->program), 128);
  assert_status(hrx_npu_program_dispatch(rig->program, &inv),
                HRX_STATUS_BUSY, "128 NPU invocations are pending");
  assert_int_equal(fake->submitted, 128);
  /* Once the oldest finishes, its slot is reclaimed. */
  xdna_fake_complete(fake, 1);
  assert_ok(hrx_npu_program_dispatch(rig->program, &inv));
  assert_int_equal(inv.point, 129);
  assert_int_equal(hrx_npu_program_pending(rig->program), 128);
  xdna_fake_complete(fake, 128);
  assert_ok(hrx_npu_program_wait(rig->program, inv, 1000000000ull));
  assert_int_equal(hrx_npu_program_pending(rig->program), 0);
}

static void test_misplaced_dev_bo(void** state) {
  rig_t* rig = *state;
  rig->hw.fake.dev_misplace = 64ull << 20; /* past the heap */
  assert_status(rig_prepare(rig), HRX_STATUS_INTERNAL, "inside the heap");
  assert_null(rig->program);
  rig->hw.fake.dev_misplace = 4096; /* inside, misaligned */
  assert_status(hrx_npu_program_prepare(rig->device, rig->image, "main",
                                        &(hrx_npu_binding_t){rig->buffer, 64,
                                                             128},
                                        1, &rig->program),
                HRX_STATUS_INTERNAL, "not 32768-aligned");
  assert_false(rig->hw.fake.context_live);
}

static void test_binding_errors(void** state) {
  rig_t* rig = *state;
  assert_ok(rig_prepare(rig));
  hrx_npu_program_t* program = NULL;
  hrx_npu_binding_t binding = {.buffer = rig->buffer, .offset = 4000,
                               .size = 128};
  assert_status(hrx_npu_program_prepare(rig->device, rig->image, "main",
                                        &binding, 1, &program),
                HRX_STATUS_INVALID_ARGUMENT, "do not fit its 4096-byte");
  assert_status(hrx_npu_program_prepare(rig->device, rig->image, "main",
                                        &binding, 0, &program),
                HRX_STATUS_INVALID_ARGUMENT, "takes 1 bindings, got 0");
  /* The fake driver holds one context at a time. */
  hrx_npu_program_destroy(rig->program);
  rig->program = NULL;
  binding.offset = 0;
  binding.size = 32;
  assert_status(hrx_npu_program_prepare(rig->device, rig->image, "main",
                                        &binding, 1, &program),
                HRX_STATUS_INVALID_ARGUMENT, "32 bytes, the entry takes");
  assert_status(hrx_npu_program_prepare(rig->device, rig->image, "none",
                                        &binding, 1, &program),
                HRX_STATUS_NOT_FOUND, "no entry 'none'");
  assert_null(program);
  hrx_npu_buffer_t* empty = NULL;
  assert_status(hrx_npu_buffer_allocate(rig->device, 0, &empty),
                HRX_STATUS_INVALID_ARGUMENT, "at least one byte");
  assert_null(empty);
}

/* The whole sequence with call N failing with EIO, for every N: a status
 * naming the errno unless the call was a release, and nothing leaked. */
static void test_every_call_fails_once(void** state) {
  rig_t* rig = *state;
  size_t failures = 0;
  for (size_t n = 1;; ++n) {
    xdna_fake_init(&rig->hw.fake);
    rig->hw.fake.fail_at = n;
    rig->hw.counted = (test_allocator_t){0};
    hrx_status_t status = rig_prepare(rig);
    hrx_npu_invocation_t inv;
    for (int i = 0; i < 2 && status == HRX_OK; ++i) {
      status = hrx_npu_program_dispatch(rig->program, &inv);
      if (status == HRX_OK) {
        status = hrx_npu_program_eventfd(rig->program, inv, 42);
      }
      if (status == HRX_OK) {
        status = hrx_npu_program_wait(rig->program, inv, 1000000000ull);
      }
    }
    hrx_npu_program_destroy(rig->program);
    hrx_npu_buffer_release(rig->buffer);
    hrx_npu_device_destroy(rig->device);
    rig->program = NULL;
    rig->buffer = NULL;
    rig->device = NULL;
    xdna_fake_t* fake = &rig->hw.fake;
    if (fake->open_nodes || fake->mappings || fake->leaked_at_close ||
        rig->hw.counted.live) {
      fail_msg("call %zu (%s): %d nodes, %d mappings, %zu objects, %zu "
               "allocations left",
               n, fake->failed_call, fake->open_nodes, fake->mappings,
               fake->leaked_at_close, rig->hw.counted.live);
    }
    bool failed = xdna_rig_sweep_check(fake, n, status, &failures);
    xdna_fake_deinit(fake);
    if (!failed) break;
  }
  print_message("%zu calls failed one at a time\n", failures);
  assert_true(failures > 128 * 3);
  xdna_fake_init(&rig->hw.fake);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ert_reference),
      cmocka_unit_test_setup_teardown(test_noop_end_to_end, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_wait_retries, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_eventfd, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_command_state_checked, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_129th_dispatch_busy, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_misplaced_dev_bo, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_binding_errors, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_every_call_fails_once, rig_setup,
                                      rig_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
