/* Resident sessions, NPU half, on the scripted driver: the startup word
 * starts at WAIT; RUN before both participants are accepted is BUSY;
 * ABORT after RUN is an error; a pre-start ABORT, a rejected submit and a
 * drop before deciding all publish ABORT where the NPU reads it. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device_internal.h"
#include "hrx/npu.h"
#include "npu_test_util.h"
#include "xdna_rig.h"

typedef struct rig_t {
  xdna_rig_t hw;
  hrx_npu_device_t* device;
  hrx_npu_image_t* image;
  hrx_npu_resident_t* session;
  hrx_npu_program_t* program;
} rig_t;

/* Opens the device, creates a session and prepares the default image's
 * "main" with the startup word as its binding (the word the NPU program
 * polls). */
static int rig_setup(void** state) {
  rig_t* rig = calloc(1, sizeof(*rig));
  xdna_rig_init(&rig->hw);
  rig->image = xdna_rig_default_image();
  assert_ok(xdna_rig_open(&rig->hw, NULL, &rig->device));
  assert_ok(hrx_npu_resident_create(rig->device, NULL, &rig->session));
  hrx_npu_binding_t binding = {
      .buffer = hrx_npu_resident_startup(rig->session),
      .size = HRX_NPU_RESIDENT_STARTUP_BYTES};
  assert_ok(hrx_npu_program_prepare(rig->device, rig->image, "main",
                                    &binding, 1, &rig->program));
  *state = rig;
  return 0;
}

static int rig_teardown(void** state) {
  rig_t* rig = *state;
  hrx_npu_resident_destroy(rig->session);
  hrx_npu_program_destroy(rig->program);
  hrx_npu_device_destroy(rig->device);
  xdna_rig_deinit(&rig->hw);
  hrx_npu_image_destroy(rig->image);
  free(rig);
  return 0;
}

/* The word as the NPU sees it: the driver's copy of the startup BO. */
static uint32_t npu_word(const rig_t* rig) {
  hrx_npu_buffer_t* startup = hrx_npu_resident_startup(rig->session);
  uint64_t address = hrx_npu_buffer_dma_address(startup) - 0x80000000ull;
  for (uint32_t i = 1; i <= rig->hw.fake.bo_count; ++i) {
    const xdna_fake_bo_t* bo = &rig->hw.fake.bos[i];
    if (bo->live && bo->type == HRX_XDNA_BO_SHARE &&
        bo->xdna_addr == address) {
      uint32_t word = 0;
      memcpy(&word, bo->memory, sizeof(word));
      return word;
    }
  }
  fail_msg("no BO holds the startup word");
  return 0;
}

static void test_run_needs_both_participants(void** state) {
  rig_t* rig = *state;
  assert_int_equal(npu_word(rig), HRX_NPU_RESIDENT_WAIT);
  assert_status(hrx_npu_resident_run(rig->session), HRX_STATUS_BUSY,
                "waiting for the NPU GPU");
  hrx_npu_invocation_t invocation;
  assert_ok(hrx_npu_resident_dispatch(rig->session, rig->program,
                                      &invocation));
  assert_int_equal(invocation.point, 1);
  assert_status(hrx_npu_resident_run(rig->session), HRX_STATUS_BUSY,
                "waiting for the GPU");
  assert_int_equal(npu_word(rig), HRX_NPU_RESIDENT_WAIT);
  /* Each participant once. */
  hrx_npu_invocation_t again;
  assert_status(hrx_npu_resident_dispatch(rig->session, rig->program,
                                          &again),
                HRX_STATUS_FAILED_PRECONDITION, "already submitted");
  assert_ok(hrx_npu_resident_accept(rig->session, HRX_NPU_RESIDENT_GPU));
  assert_status(hrx_npu_resident_accept(rig->session, HRX_NPU_RESIDENT_GPU),
                HRX_STATUS_FAILED_PRECONDITION, "already submitted");
  assert_ok(hrx_npu_resident_run(rig->session));
  assert_int_equal(npu_word(rig), HRX_NPU_RESIDENT_RUN);
  assert_int_equal(hrx_npu_resident_word(rig->session),
                   HRX_NPU_RESIDENT_RUN);
  /* Decided: neither ABORT nor another RUN. */
  assert_status(hrx_npu_resident_abort(rig->session),
                HRX_STATUS_FAILED_PRECONDITION, "already published RUN");
  assert_status(hrx_npu_resident_run(rig->session),
                HRX_STATUS_FAILED_PRECONDITION, "already published RUN");
  assert_int_equal(npu_word(rig), HRX_NPU_RESIDENT_RUN);
  assert_ok(hrx_npu_program_wait(rig->program, invocation,
                                 HRX_TIMEOUT_INFINITE));
}

static void test_pre_start_abort(void** state) {
  rig_t* rig = *state;
  assert_ok(hrx_npu_resident_abort(rig->session));
  assert_int_equal(npu_word(rig), HRX_NPU_RESIDENT_ABORT);
  assert_ok(hrx_npu_resident_abort(rig->session)); /* again: nothing */
  hrx_npu_invocation_t invocation;
  assert_status(hrx_npu_resident_dispatch(rig->session, rig->program,
                                          &invocation),
                HRX_STATUS_FAILED_PRECONDITION, "already published ABORT");
  assert_int_equal(rig->hw.fake.submitted, 0);
  assert_status(hrx_npu_resident_accept(rig->session, HRX_NPU_RESIDENT_GPU),
                HRX_STATUS_FAILED_PRECONDITION, "ABORT");
  assert_status(hrx_npu_resident_run(rig->session),
                HRX_STATUS_FAILED_PRECONDITION, "already published ABORT");
  assert_int_equal(npu_word(rig), HRX_NPU_RESIDENT_ABORT);
}

/* A rejected submit, of either participant, publishes ABORT. */
static void test_rejected_submit_aborts(void** state) {
  rig_t* rig = *state;
  rig->hw.fake.calls = 0;
  rig->hw.fake.fail_at = 1; /* the EXEC_CMD */
  hrx_npu_invocation_t invocation;
  assert_status(hrx_npu_resident_dispatch(rig->session, rig->program,
                                          &invocation),
                HRX_STATUS_DATA_LOSS, "ABORT published");
  assert_int_equal(invocation.point, 0);
  assert_int_equal(npu_word(rig), HRX_NPU_RESIDENT_ABORT);

  hrx_npu_resident_t* other = NULL;
  assert_ok(hrx_npu_resident_create(rig->device, NULL, &other));
  hrx_npu_resident_t* first = rig->session;
  rig->session = other;
  assert_int_equal(npu_word(rig), HRX_NPU_RESIDENT_WAIT);
  hrx_npu_resident_reject(other, HRX_NPU_RESIDENT_GPU);
  assert_int_equal(npu_word(rig), HRX_NPU_RESIDENT_ABORT);
  assert_status(hrx_npu_resident_run(other),
                HRX_STATUS_FAILED_PRECONDITION, "ABORT");
  hrx_npu_resident_destroy(first);
}

/* Dropping the session before deciding publishes ABORT; the program,
 * which keeps its own reference to the word, still sees it. */
static void test_drop_before_deciding(void** state) {
  rig_t* rig = *state;
  hrx_npu_invocation_t invocation;
  assert_ok(hrx_npu_resident_dispatch(rig->session, rig->program,
                                      &invocation));
  hrx_npu_buffer_t* startup = hrx_npu_resident_startup(rig->session);
  hrx_npu_buffer_retain(startup);
  hrx_npu_resident_destroy(rig->session);
  rig->session = NULL;
  uint32_t word = 0;
  memcpy(&word, hrx_npu_buffer_host(startup), sizeof(word));
  assert_int_equal(word, HRX_NPU_RESIDENT_ABORT);
  hrx_npu_buffer_release(startup);
  assert_ok(hrx_npu_program_wait(rig->program, invocation,
                                 HRX_TIMEOUT_INFINITE));
}

static void test_startup_allocation(void** state) {
  rig_t* rig = *state;
  hrx_npu_buffer_t* small = NULL;
  assert_ok(hrx_npu_buffer_allocate(rig->device, 32, &small));
  hrx_npu_resident_t* session = NULL;
  assert_status(hrx_npu_resident_create(rig->device, small, &session),
                HRX_STATUS_INVALID_ARGUMENT, "needs 64 bytes, not 32");
  assert_null(session);
  hrx_npu_buffer_release(small);
  /* A caller's allocation (an imported GPU one, say) is retained and its
   * word reset to WAIT. */
  hrx_npu_buffer_t* own = NULL;
  assert_ok(hrx_npu_buffer_allocate(rig->device, 4096, &own));
  memset(hrx_npu_buffer_host(own), 0xff, 4);
  assert_ok(hrx_npu_resident_create(rig->device, own, &session));
  hrx_npu_buffer_release(own);
  assert_ptr_equal(hrx_npu_resident_startup(session), own);
  assert_int_equal(*(const uint32_t*)hrx_npu_buffer_host(own),
                   HRX_NPU_RESIDENT_WAIT);
  assert_status(hrx_npu_resident_accept(session, 4),
                HRX_STATUS_INVALID_ARGUMENT, "not a resident session");
  hrx_npu_resident_destroy(session);
  /* Allocation failures leave nothing behind. */
  for (size_t n = 1;; ++n) {
    rig->hw.fake.calls = 0;
    rig->hw.fake.fail_at = n;
    rig->hw.fake.failed = false;
    hrx_status_t status =
        hrx_npu_resident_create(rig->device, NULL, &session);
    if (!rig->hw.fake.failed) {
      assert_ok(status);
      break;
    }
    if (status == HRX_OK) {
      assert_true(rig->hw.fake.failed_release);
      hrx_npu_resident_destroy(session);
    } else {
      hrx_status_free(status);
      assert_null(session);
    }
  }
  rig->hw.fake.fail_at = 0;
  hrx_npu_resident_destroy(session);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_run_needs_both_participants,
                                      rig_setup, rig_teardown),
      cmocka_unit_test_setup_teardown(test_pre_start_abort, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_rejected_submit_aborts, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_drop_before_deciding, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_startup_allocation, rig_setup,
                                      rig_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
