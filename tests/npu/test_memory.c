/* NPU memory on the scripted driver: dma-buf import (a memfd stands in for
 * a GPU allocation's PRIME export) charged only to its owner, and budgets
 * charged before the driver is asked. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "device_internal.h"
#include "hrx/npu.h"
#include "npu_test_util.h"
#include "xdna_rig.h"

#define IMPORT_BYTES 8192u
#define HEAP_BYTES (64ull << 20)

typedef struct rig_t {
  xdna_rig_t hw;
  hrx_budget_t* budget;
  hrx_npu_device_t* device;
  /* The exporter's side: its dma-buf, its mapping and its own budget. */
  int dmabuf;
  uint8_t* exporter_view;
  hrx_budget_t* owner_budget;
  int owner_releases;
} rig_t;

static int rig_setup(void** state) {
  rig_t* rig = calloc(1, sizeof(*rig));
  xdna_rig_init(&rig->hw);
  rig->dmabuf = memfd_create("gpu-allocation", MFD_CLOEXEC);
  assert_true(rig->dmabuf >= 0);
  assert_int_equal(ftruncate(rig->dmabuf, IMPORT_BYTES), 0);
  rig->exporter_view = mmap(NULL, IMPORT_BYTES, PROT_READ | PROT_WRITE,
                            MAP_SHARED, rig->dmabuf, 0);
  assert_true(rig->exporter_view != MAP_FAILED);
  assert_ok(hrx_budget_create(HRX_BUDGET_UNLIMITED, hrx_allocator_system(),
                              &rig->owner_budget));
  assert_ok(hrx_budget_charge(rig->owner_budget, IMPORT_BYTES));
  *state = rig;
  return 0;
}

static int rig_teardown(void** state) {
  rig_t* rig = *state;
  hrx_npu_device_destroy(rig->device);
  if (rig->budget) assert_int_equal(hrx_budget_live_bytes(rig->budget), 0);
  xdna_rig_deinit(&rig->hw);
  hrx_budget_release(rig->budget);
  hrx_budget_release(rig->owner_budget);
  munmap(rig->exporter_view, IMPORT_BYTES);
  close(rig->dmabuf);
  free(rig);
  return 0;
}

static hrx_status_t rig_open(rig_t* rig) {
  return xdna_rig_open(&rig->hw, rig->budget, &rig->device);
}

/* The owner's reference: the exporter's bytes stay charged to its budget
 * until the NPU lets go. */
static void owner_release(void* context) {
  rig_t* rig = context;
  ++rig->owner_releases;
  assert_ok(hrx_budget_uncharge(rig->owner_budget, IMPORT_BYTES));
}

static hrx_status_t rig_import(rig_t* rig, hrx_npu_buffer_t** out_buffer) {
  hrx_npu_buffer_owner_t owner = {.context = rig,
                                  .release = owner_release};
  return hrx_npu_buffer_import_dmabuf(rig->device, rig->dmabuf,
                                      IMPORT_BYTES, &owner, out_buffer);
}

static void test_import_shares_the_exporters_pages(void** state) {
  rig_t* rig = *state;
  assert_ok(hrx_budget_create(HEAP_BYTES + 4096, hrx_allocator_system(),
                              &rig->budget));
  assert_ok(rig_open(rig));
  hrx_npu_buffer_t* buffer = NULL;
  assert_ok(rig_import(rig, &buffer));
  assert_int_equal(rig->hw.fake.imports, 1);
  assert_int_equal(hrx_npu_buffer_size(buffer), IMPORT_BYTES);
  /* One set of pages: what either side writes, the other reads. */
  memcpy(rig->exporter_view, "from the GPU", 13);
  assert_string_equal((const char*)hrx_npu_buffer_host(buffer),
                      "from the GPU");
  memcpy((uint8_t*)hrx_npu_buffer_host(buffer) + 4096, "from the NPU", 13);
  hrx_npu_buffer_flush(buffer, 4096, 13);
  assert_string_equal((const char*)rig->exporter_view + 4096,
                      "from the NPU");
  /* The shim reaches it like any SHARE BO. */
  const xdna_fake_bo_t* bo = &rig->hw.fake.bos[rig->hw.fake.bo_count];
  assert_true(bo->imported);
  assert_int_equal(hrx_npu_buffer_dma_address(buffer),
                   bo->xdna_addr + 0x80000000ull);
  /* Charged to its owner only: the NPU budget holds the heap alone, and
   * has room for 4 KiB of its own, not for the import's 8 KiB. */
  assert_int_equal(hrx_budget_live_bytes(rig->budget), HEAP_BYTES);
  assert_int_equal(hrx_budget_live_bytes(rig->owner_budget), IMPORT_BYTES);
  /* The owner is held until the last reference goes. */
  hrx_npu_buffer_retain(buffer);
  hrx_npu_buffer_release(buffer);
  assert_int_equal(rig->owner_releases, 0);
  hrx_npu_buffer_release(buffer);
  assert_int_equal(rig->owner_releases, 1);
  assert_int_equal(hrx_budget_live_bytes(rig->owner_budget), 0);
  assert_false(rig->hw.fake.bos[rig->hw.fake.bo_count].live);
}

/* The driver hands the second import of one dma-buf the first one's
 * handle; sharing it would let either release close the other. */
static void test_second_import_refused(void** state) {
  rig_t* rig = *state;
  assert_ok(rig_open(rig));
  hrx_npu_buffer_t* first = NULL;
  hrx_npu_buffer_t* second = NULL;
  assert_ok(rig_import(rig, &first));
  assert_status(rig_import(rig, &second), HRX_STATUS_ALREADY_EXISTS,
                "already imported");
  assert_null(second);
  assert_int_equal(rig->owner_releases, 0);
  /* The first still holds its handle and pages. */
  uint32_t handle = rig->hw.fake.bo_count;
  assert_true(rig->hw.fake.bos[handle].live);
  memcpy(rig->exporter_view, "still here", 11);
  assert_string_equal((const char*)hrx_npu_buffer_host(first), "still here");
  hrx_npu_buffer_release(first);
  assert_false(rig->hw.fake.bos[handle].live);
  /* Once released, the dma-buf imports again (its owner charged anew). */
  assert_ok(hrx_budget_charge(rig->owner_budget, IMPORT_BYTES));
  assert_ok(rig_import(rig, &second));
  hrx_npu_buffer_release(second);
  assert_int_equal(rig->owner_releases, 2);
}

static void test_bad_fds_refused(void** state) {
  rig_t* rig = *state;
  assert_ok(rig_open(rig));
  hrx_npu_buffer_t* buffer = NULL;
  size_t calls = rig->hw.fake.calls;
  assert_status(hrx_npu_buffer_import_dmabuf(rig->device, -1, 64, NULL,
                                             &buffer),
                HRX_STATUS_INVALID_ARGUMENT, "not a file descriptor");
  assert_status(hrx_npu_buffer_import_dmabuf(rig->device, rig->dmabuf, 0,
                                             NULL, &buffer),
                HRX_STATUS_INVALID_ARGUMENT, "at least one byte");
  assert_int_equal(rig->hw.fake.calls, calls); /* refused before any ioctl */
  /* A closed fd: EBADF from the driver. */
  int closed = memfd_create("closed", MFD_CLOEXEC);
  close(closed);
  assert_status(hrx_npu_buffer_import_dmabuf(rig->device, closed, 64, NULL,
                                             &buffer),
                HRX_STATUS_INTERNAL, "Bad file descriptor");
  /* Not a dma-buf (a pipe): EINVAL. */
  int pipe_fds[2];
  assert_int_equal(pipe(pipe_fds), 0);
  assert_status(hrx_npu_buffer_import_dmabuf(rig->device, pipe_fds[0], 64,
                                             NULL, &buffer),
                HRX_STATUS_INVALID_ARGUMENT, "dma-buf fd");
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  /* Larger than the dma-buf: its mapping fails and the handle is closed. */
  assert_status_code(hrx_npu_buffer_import_dmabuf(rig->device, rig->dmabuf,
                                                  2 * IMPORT_BYTES, NULL,
                                                  &buffer),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_null(buffer);
  assert_false(rig->hw.fake.bos[rig->hw.fake.bo_count].live);
}

/* Open, allocate, import, release, with call N failing, for every N:
 * each failure is reported, nothing is leaked, the owner is released
 * exactly when an import succeeded, and both budgets return to zero. */
static void test_every_call_fails_once(void** state) {
  rig_t* rig = *state;
  assert_ok(hrx_budget_create(HRX_BUDGET_UNLIMITED, hrx_allocator_system(),
                              &rig->budget));
  size_t failures = 0;
  for (size_t n = 1;; ++n) {
    xdna_fake_init(&rig->hw.fake);
    rig->hw.fake.fail_at = n;
    rig->hw.counted = (test_allocator_t){0};
    rig->owner_releases = 0;
    hrx_npu_buffer_t* own = NULL;
    hrx_npu_buffer_t* imported = NULL;
    hrx_status_t status = rig_open(rig);
    if (status == HRX_OK) {
      status = hrx_npu_buffer_allocate(rig->device, 4096, &own);
    }
    if (status == HRX_OK) status = rig_import(rig, &imported);
    bool did_import = imported != NULL;
    hrx_npu_buffer_release(imported);
    hrx_npu_buffer_release(own);
    hrx_npu_device_destroy(rig->device);
    rig->device = NULL;
    xdna_fake_t* fake = &rig->hw.fake;
    if (fake->open_nodes || fake->mappings || fake->leaked_at_close ||
        rig->hw.counted.live || hrx_budget_live_bytes(rig->budget)) {
      fail_msg("call %zu (%s): %d nodes, %d mappings, %zu objects, %zu "
               "allocations, %llu budget bytes left",
               n, fake->failed_call, fake->open_nodes, fake->mappings,
               fake->leaked_at_close, rig->hw.counted.live,
               (unsigned long long)hrx_budget_live_bytes(rig->budget));
    }
    assert_int_equal(rig->owner_releases, did_import ? 1 : 0);
    if (did_import) {
      assert_ok(hrx_budget_charge(rig->owner_budget, IMPORT_BYTES));
    }
    bool failed = xdna_rig_sweep_check(fake, n, status, &failures);
    xdna_fake_deinit(fake);
    if (!failed) break;
  }
  print_message("%zu calls failed one at a time\n", failures);
  assert_true(failures >= 6);
  xdna_fake_init(&rig->hw.fake);
}

/* A budget without room for the heap: refused before CREATE_BO. */
static void test_budget_refuses_the_heap(void** state) {
  rig_t* rig = *state;
  assert_ok(hrx_budget_create(HEAP_BYTES - 1, hrx_allocator_system(),
                              &rig->budget));
  assert_status(rig_open(rig), HRX_STATUS_RESOURCE_EXHAUSTED,
                "device heap");
  assert_null(rig->device);
  assert_int_equal(rig->hw.fake.create_bo_calls, 0);
  hrx_budget_stats_t stats = HRX_STRUCT_INIT(hrx_budget_stats_t);
  assert_ok(hrx_budget_stats(rig->budget, &stats));
  assert_int_equal(stats.failed_charges, 1);
}

/* SHARE buffers and a program's storage and command slots are charged
 * as they are made, refused before the driver is asked once the budget
 * is spent, and given back on release, on failure as on success. */
static void test_budget_charges_buffers_and_programs(void** state) {
  rig_t* rig = *state;
  const uint64_t kQueue = HRX_NPU_PROGRAM_SLOTS * 4096ull;
  /* The default image's DMA allocation is 256 bytes; its COMMAND one is
   * carved from the heap, already charged. */
  const uint64_t kProgram = 256 + kQueue;
  assert_ok(hrx_budget_create(HEAP_BYTES + 4096 + kProgram - 1,
                              hrx_allocator_system(), &rig->budget));
  assert_ok(rig_open(rig));
  assert_int_equal(hrx_budget_live_bytes(rig->budget), HEAP_BYTES);
  hrx_npu_buffer_t* buffer = NULL;
  assert_ok(hrx_npu_buffer_allocate(rig->device, 4096, &buffer));
  assert_int_equal(hrx_budget_live_bytes(rig->budget), HEAP_BYTES + 4096);
  /* One byte short of a program: the last command slot is refused. */
  hrx_npu_image_t* image = xdna_rig_default_image();
  hrx_npu_binding_t binding = {.buffer = buffer, .offset = 0, .size = 128};
  hrx_npu_program_t* program = NULL;
  size_t create_calls = rig->hw.fake.create_bo_calls;
  assert_status(hrx_npu_program_prepare(rig->device, image, "main", &binding,
                                        1, &program),
                HRX_STATUS_RESOURCE_EXHAUSTED, "command slot 127");
  assert_null(program);
  /* DMA + COMMAND storage and 127 slots reached the driver; slot 128 did
   * not. */
  assert_int_equal(rig->hw.fake.create_bo_calls - create_calls, 2 + 127);
  assert_int_equal(hrx_budget_live_bytes(rig->budget), HEAP_BYTES + 4096);
  /* With the byte back it fits, exactly. */
  hrx_npu_buffer_t* spare = NULL;
  assert_status(hrx_npu_buffer_allocate(rig->device, kProgram, &spare),
                HRX_STATUS_RESOURCE_EXHAUSTED, "");
  hrx_npu_buffer_release(buffer);
  assert_int_equal(hrx_budget_live_bytes(rig->budget), HEAP_BYTES);
  assert_ok(hrx_npu_buffer_allocate(rig->device, 4095, &buffer));
  binding.buffer = buffer;
  assert_ok(hrx_npu_program_prepare(rig->device, image, "main", &binding, 1,
                                    &program));
  assert_int_equal(hrx_budget_live_bytes(rig->budget),
                   hrx_budget_limit_bytes(rig->budget));
  hrx_npu_invocation_t invocation;
  assert_ok(hrx_npu_program_dispatch(program, &invocation));
  assert_ok(hrx_npu_program_wait(program, invocation, HRX_TIMEOUT_INFINITE));
  hrx_npu_program_destroy(program);
  hrx_npu_buffer_release(buffer);
  assert_int_equal(hrx_budget_live_bytes(rig->budget), HEAP_BYTES);
  hrx_npu_image_destroy(image);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_import_shares_the_exporters_pages,
                                      rig_setup, rig_teardown),
      cmocka_unit_test_setup_teardown(test_second_import_refused, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_bad_fds_refused, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_every_call_fails_once, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(test_budget_refuses_the_heap, rig_setup,
                                      rig_teardown),
      cmocka_unit_test_setup_teardown(
          test_budget_charges_buffers_and_programs, rig_setup, rig_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
