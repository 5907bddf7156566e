/* Sanitizer reporting on streams: report mode collects findings in the
 * stream's bounded channel while kernels run on; trap mode stops at the
 * first. Only the host device reports; elsewhere REPORT is refused. */
#include <stdlib.h>
#include <string.h>

#include "corpus_kernels.h"
#include "gpu_test_util.h"

/* Two workgroups of 8x4 work-items; work-item (x, y) of group g stores
 * i + 1 at element i = 32 g + 8 y + x of a view of 64 i32s. */
static const char fill_kernel[] =
    "host.target<cpu> @h {subgroup_size = 32}\n"
    "kernel.def target(@h) export(\"fill\") @fill() {\n"
    "  %one = index.constant 1 : index\n"
    "  %two = index.constant 2 : index\n"
    "  %four = index.constant 4 : index\n"
    "  %eight = index.constant 8 : index\n"
    "  kernel.launch.config workgroups(%two, %one, %one) "
    "workgroup_size(%eight, %four, %one) : index\n"
    "} launch(%out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %g = kernel.workgroup.id<x> : index\n"
    "  %x = kernel.workitem.id<x> : index\n"
    "  %y = kernel.workitem.id<y> : index\n"
    "  %c1 = index.constant 1 : index\n"
    "  %c8 = index.constant 8 : index\n"
    "  %c32 = index.constant 32 : index\n"
    "  %local = index.madd %y, %c8, %x : index\n"
    "  %i = index.madd %g, %c32, %local : index\n"
    "  %next = index.add %i, %c1 : index\n"
    "  %v = index.cast %next : index to i32\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<64xi32>\n"
    "  view.store %v, %ov[%i] : i32, view<64xi32>\n"
    "  kernel.return\n"
    "}\n";

/* 16x4 work-items in one workgroup, no barrier: work-item 0 writes 7 to
 * the first 4 bytes of local memory, then work-item 33, (1, 2, 0) in the
 * second wave, reads the first 2 of them (an i16) into out[0]. */
static const char race_kernel[] =
    "host.target<cpu> @h {subgroup_size = 32}\n"
    "kernel.def target(@h) export(\"race\") @race() {\n"
    "  %one = index.constant 1 : index\n"
    "  %four = index.constant 4 : index\n"
    "  %sixteen = index.constant 16 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%sixteen, %four, %one) : index\n"
    "} launch(%out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %x = kernel.workitem.id<x> : index\n"
    "  %y = kernel.workitem.id<y> : index\n"
    "  %c0 = index.constant 0 : index\n"
    "  %c16 = index.constant 16 : index\n"
    "  %c33 = index.constant 33 : index\n"
    "  %id = index.madd %y, %c16, %x : index\n"
    "  %bytes = index.constant 256 : offset\n"
    "  %scratch = buffer.alloca<workgroup> align(16) %bytes : buffer\n"
    "  %words = buffer.view %scratch[%o] : buffer -> view<64xi32>\n"
    "  %halves = buffer.view %scratch[%o] : buffer -> view<128xi16>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<2xi16>\n"
    "  %first = index.cmp eq, %id, %c0 : index\n"
    "  scf.if %first {\n"
    "    %seven = scalar.constant 7 : i32\n"
    "    view.store %seven, %words[%c0] : i32, view<64xi32>\n"
    "  }\n"
    "  %reader = index.cmp eq, %id, %c33 : index\n"
    "  scf.if %reader {\n"
    "    %h = view.load %halves[%c0] : view<128xi16> -> i16\n"
    "    view.store %h, %ov[%c0] : i16, view<2xi16>\n"
    "  }\n"
    "  kernel.return\n"
    "}\n";

static hrx_gpu_sanitizer_options_t report_options(uint32_t capacity) {
  return (hrx_gpu_sanitizer_options_t){
      .struct_size = sizeof(hrx_gpu_sanitizer_options_t),
      .reporting = HRX_GPU_SANITIZER_REPORT,
      .report_capacity = capacity};
}

/* Runs |kernel| (no workload, one buffer argument) on |f|'s stream and
 * waits for it. */
static hrx_status_t run_one(gpu_fixture_t* f, hrx_gpu_kernel_t* kernel,
                            hrx_gpu_buffer_t* buffer) {
  hrx_gpu_arg_t arg = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(buffer),
                                          HRX_GPU_ACCESS_READ_WRITE);
  hrx_gpu_launch_t launch = {NULL, 0, &arg, 1};
  HRX_RETURN_IF_ERROR(hrx_gpu_stream_dispatch(f->stream, kernel, &launch));
  return hrx_gpu_stream_synchronize(f->stream, 60 * SECOND);
}

/* The reporting tests' start: |state|'s fixture, its stream reporting
 * into a channel of |capacity|; skipped off the host device. */
static gpu_fixture_t* reporting_fixture(void** state, uint32_t capacity) {
  gpu_fixture_t* f = *state;
  if (!gpu_test_is_host(f->device)) skip();
  hrx_gpu_sanitizer_options_t options = report_options(capacity);
  assert_ok(hrx_gpu_stream_set_sanitizer(f->stream, &options));
  return f;
}

/* fill_kernel on |f|'s device, and in |out| the 40 i32s it overruns. */
static hrx_gpu_kernel_t* fill_and_out(gpu_fixture_t* f,
                                      hrx_gpu_buffer_t** out) {
  hrx_gpu_kernel_t* fill = gpu_test_kernel(f->device, NULL, fill_kernel,
                                           "fill");
  assert_ok(hrx_gpu_stream_allocate(f->stream, 40 * 4, out));
  return fill;
}

static hrx_gpu_sanitizer_reports_t* drain(gpu_fixture_t* f) {
  hrx_gpu_sanitizer_reports_t* reports = NULL;
  assert_ok(hrx_gpu_stream_sanitizer_reports(f->stream, &reports));
  assert_non_null(reports);
  return reports;
}

/* Options are checked; REPORT is the host device's alone. */
static void test_options(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_sanitizer_options_t options = report_options(4);
  options.struct_size = 0;
  assert_status_code(hrx_gpu_stream_set_sanitizer(f->stream, &options),
                     HRX_STATUS_INVALID_ARGUMENT);
  options = report_options(4);
  options.reporting = (hrx_gpu_sanitizer_reporting_t)7;
  assert_status_code(hrx_gpu_stream_set_sanitizer(f->stream, &options),
                     HRX_STATUS_INVALID_ARGUMENT);
  options = report_options(HRX_FABRIC_SANITIZER_MAX_CAPACITY + 1);
  assert_status_code(hrx_gpu_stream_set_sanitizer(f->stream, &options),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_gpu_sanitizer_reports_t* reports = NULL;
  assert_status_code(hrx_gpu_stream_sanitizer_reports(f->stream, &reports),
                     HRX_STATUS_FAILED_PRECONDITION);
  assert_null(reports);
  options = report_options(4);
  hrx_status_t status = hrx_gpu_stream_set_sanitizer(f->stream, &options);
  if (!gpu_test_is_host(f->device)) {
    assert_status(status, HRX_STATUS_UNAVAILABLE, "host device");
    return;
  }
  assert_ok(status);
  assert_ok(hrx_gpu_stream_set_sanitizer(f->stream, NULL));
}

/* Report mode: the out-of-bounds stores are reported, one per work-item
 * with its coordinates and address, and the kernel completes every
 * in-bounds store; a second drain is empty. */
static void test_out_of_bounds_reports(void** state) {
  gpu_fixture_t* f = reporting_fixture(state, 0);
  hrx_gpu_buffer_t* out = NULL;
  hrx_gpu_kernel_t* fill = fill_and_out(f, &out);
  assert_ok(run_one(f, fill, out));
  const int32_t* values = hrx_gpu_buffer_host_pointer(out);
  for (int i = 0; i < 40; ++i) assert_int_equal(values[i], i + 1);

  hrx_gpu_sanitizer_reports_t* reports = drain(f);
  assert_int_equal(hrx_gpu_sanitizer_reports_count(reports), 24);
  assert_int_equal(hrx_gpu_sanitizer_reports_dropped(reports), 0);
  bool seen[64] = {false};
  uint64_t base = hrx_gpu_buffer_device_address(out);
  for (size_t k = 0; k < 24; ++k) {
    const hrx_fabric_sanitizer_report_t* r =
        hrx_gpu_sanitizer_reports_get(reports, k);
    assert_int_equal(r->struct_size, sizeof(*r));
    assert_int_equal(r->kind, HRX_FABRIC_FAULT_OUT_OF_BOUNDS);
    assert_string_equal(r->kernel, "fill");
    assert_int_equal(r->slot, 0);
    assert_int_equal(r->allocation_size, 160);
    assert_int_equal(r->offset % 4, 0);
    uint32_t i = (uint32_t)(r->offset / 4);
    assert_true(i >= 40 && i < 64 && !seen[i]);
    seen[i] = true;
    assert_int_equal(r->address, base + r->offset);
    uint32_t local = i - 32;
    assert_int_equal(r->workgroup[0], 1);
    assert_int_equal(r->workgroup[1], 0);
    assert_int_equal(r->access.work_item, local);
    assert_int_equal(r->access.work_item_id[0], local % 8);
    assert_int_equal(r->access.work_item_id[1], local / 8);
    assert_int_equal(r->access.work_item_id[2], 0);
    assert_int_equal(r->access.lane, local);
    assert_int_equal(r->access.bytes, 4);
    assert_true(r->access.write);
    char text[512];
    hrx_fabric_sanitizer_report_format(r, text, sizeof(text));
    assert_non_null(strstr(text, "out-of-bounds access in kernel 'fill'"));
    assert_non_null(strstr(text, "4-byte write at offset"));
  }
  assert_null(hrx_gpu_sanitizer_reports_get(reports, 24));
  hrx_gpu_sanitizer_reports_destroy(reports);

  reports = drain(f);
  assert_int_equal(hrx_gpu_sanitizer_reports_count(reports), 0);
  assert_int_equal(hrx_gpu_sanitizer_reports_dropped(reports), 0);
  hrx_gpu_sanitizer_reports_destroy(reports);
  hrx_gpu_buffer_release(out);
  hrx_gpu_kernel_release(fill);
}

/* Findings past the capacity are counted, not kept. */
static void test_capacity_drops(void** state) {
  gpu_fixture_t* f = reporting_fixture(state, 10);
  hrx_gpu_buffer_t* out = NULL;
  hrx_gpu_kernel_t* fill = fill_and_out(f, &out);
  assert_ok(run_one(f, fill, out));
  assert_ok(run_one(f, fill, out));
  hrx_gpu_sanitizer_reports_t* reports = drain(f);
  assert_int_equal(hrx_gpu_sanitizer_reports_count(reports), 10);
  assert_int_equal(hrx_gpu_sanitizer_reports_dropped(reports), 48 - 10);
  hrx_gpu_sanitizer_reports_destroy(reports);
  /* Emptied: the next run fills it afresh. */
  assert_ok(run_one(f, fill, out));
  reports = drain(f);
  assert_int_equal(hrx_gpu_sanitizer_reports_count(reports), 10);
  assert_int_equal(hrx_gpu_sanitizer_reports_dropped(reports), 14);
  hrx_gpu_sanitizer_reports_destroy(reports);
  hrx_gpu_buffer_release(out);
  hrx_gpu_kernel_release(fill);
}

/* Prepared commands queued on a reporting stream report into its
 * channel too: the channel goes with the stream, not the command. */
static void test_prepared_dispatch_reports(void** state) {
  gpu_fixture_t* f = reporting_fixture(state, 64);
  hrx_gpu_buffer_t* out = NULL;
  hrx_gpu_kernel_t* fill = fill_and_out(f, &out);
  hrx_gpu_arg_t arg = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(out),
                                          HRX_GPU_ACCESS_WRITE);
  hrx_gpu_launch_t launch = {NULL, 0, &arg, 1};
  hrx_gpu_prepared_t* prepared = NULL;
  assert_ok(hrx_gpu_prepare_dispatch(f->device, fill, &launch, &prepared));
  assert_ok(hrx_gpu_stream_enqueue(f->stream, prepared));
  assert_ok(hrx_gpu_stream_enqueue(f->stream, prepared));
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 60 * SECOND));
  hrx_gpu_sanitizer_reports_t* reports = drain(f);
  assert_int_equal(hrx_gpu_sanitizer_reports_count(reports), 48);
  hrx_gpu_sanitizer_reports_destroy(reports);
  hrx_gpu_prepared_destroy(prepared);
  hrx_gpu_buffer_release(out);
  hrx_gpu_kernel_release(fill);
}

/* While work is pending a drain answers BUSY, and so does changing the
 * reporting; once the work has ended (here: cancelled) it drains. */
static void test_busy_while_pending(void** state) {
  gpu_fixture_t* f = reporting_fixture(state, 4);
  hrx_gpu_kernel_t* spin = gpu_test_spin_kernel(f->device);
  const int32_t never[2] = {0, 1};
  hrx_gpu_buffer_t* data = NULL;
  assert_ok(hrx_gpu_stream_allocate_from(f->stream, never, sizeof(never),
                                         &data));
  hrx_gpu_arg_t arg = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(data),
                                          HRX_GPU_ACCESS_READ_WRITE);
  hrx_gpu_launch_t launch = {NULL, 0, &arg, 1};
  assert_ok(hrx_gpu_stream_dispatch(f->stream, spin, &launch));
  hrx_gpu_sanitizer_reports_t* reports = NULL;
  hrx_status_t status = hrx_gpu_stream_sanitizer_reports(f->stream, &reports);
  assert_status_code(status, HRX_STATUS_BUSY);
  assert_null(reports);
  assert_status_code(hrx_gpu_stream_set_sanitizer(f->stream, NULL),
                     HRX_STATUS_BUSY);
  hrx_gpu_stream_cancel(f->stream);
  reports = drain(f);
  assert_int_equal(hrx_gpu_sanitizer_reports_count(reports), 0);
  hrx_gpu_sanitizer_reports_destroy(reports);
  hrx_gpu_buffer_release(data);
  hrx_gpu_kernel_release(spin);
}

/* A race between two work-items is one report naming both accesses:
 * sites, widths, work-items and the local-memory offset. */
static void test_race_report(void** state) {
  gpu_fixture_t* f = reporting_fixture(state, 8);
  hrx_gpu_kernel_t* race = gpu_test_kernel_sanitized(
      f->device, NULL, race_kernel, "race", HRX_LOOM_SANITIZE_RACE);
  hrx_gpu_buffer_t* out = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 4, &out));
  assert_ok(run_one(f, race, out));
  /* The kernel ran on: the read saw the write's low half. */
  assert_int_equal(((const int16_t*)hrx_gpu_buffer_host_pointer(out))[0], 7);
  hrx_gpu_sanitizer_reports_t* reports = drain(f);
  assert_int_equal(hrx_gpu_sanitizer_reports_count(reports), 1);
  const hrx_fabric_sanitizer_report_t* r =
      hrx_gpu_sanitizer_reports_get(reports, 0);
  assert_int_equal(r->kind, HRX_FABRIC_FAULT_DATA_RACE);
  assert_string_equal(r->kernel, "race");
  assert_int_equal(r->slot, HRX_FABRIC_SANITIZER_SLOT_LOCAL);
  assert_int_equal(r->offset, 0);
  assert_int_equal(r->address, 0);
  /* The later access: work-item 33's 2-byte read. */
  assert_int_equal(r->access.work_item, 33);
  assert_int_equal(r->access.work_item_id[0], 1);
  assert_int_equal(r->access.work_item_id[1], 2);
  assert_int_equal(r->access.work_item_id[2], 0);
  assert_int_equal(r->access.lane, 1);
  assert_int_equal(r->access.bytes, 2);
  assert_false(r->access.write);
  /* The earlier: work-item 0's 4-byte write, at another instruction. */
  assert_int_equal(r->other.work_item, 0);
  assert_int_equal(r->other.work_item_id[0], 0);
  assert_int_equal(r->other.work_item_id[1], 0);
  assert_int_equal(r->other.lane, 0);
  assert_int_equal(r->other.bytes, 4);
  assert_true(r->other.write);
  assert_true(r->other.pc < r->access.pc);
  char text[512];
  hrx_fabric_sanitizer_report_format(r, text, sizeof(text));
  assert_non_null(strstr(text, "work-item 33 (1, 2, 0)"));
  assert_non_null(strstr(text, "2-byte read of local memory at offset 0 "
                               "races with a 4-byte write by work-item 0"));
  hrx_gpu_sanitizer_reports_destroy(reports);
  hrx_gpu_buffer_release(out);
  hrx_gpu_kernel_release(race);
}

/* The value and operation sanitizers report every failing lane and the
 * kernel completes with the unchecked results. */
static void test_value_and_operation_reports(void** state) {
  gpu_fixture_t* f = reporting_fixture(state, 0);
  hrx_gpu_buffer_t* out = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 64 * 4, &out));

  char* text = corpus_assume_kernel("range(%id, 0, 40)");
  hrx_gpu_kernel_t* assume = gpu_test_kernel_sanitized(
      f->device, NULL, text, "assume", HRX_LOOM_SANITIZE_VALUE);
  free(text);
  uint64_t n = 64;
  hrx_gpu_arg_t args[] = {hrx_gpu_arg_scalar(n),
                          hrx_gpu_arg_binding(hrx_gpu_buffer_binding(out),
                                              HRX_GPU_ACCESS_WRITE)};
  hrx_gpu_launch_t launch = {&n, 1, args, 2};
  assert_ok(hrx_gpu_stream_dispatch(f->stream, assume, &launch));
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 60 * SECOND));
  const int32_t* values = hrx_gpu_buffer_host_pointer(out);
  for (int i = 0; i < 64; ++i) assert_int_equal(values[i], i);
  hrx_gpu_sanitizer_reports_t* reports = drain(f);
  assert_int_equal(hrx_gpu_sanitizer_reports_count(reports), 23);
  for (size_t k = 0; k < 23; ++k) {
    const hrx_fabric_sanitizer_report_t* r =
        hrx_gpu_sanitizer_reports_get(reports, k);
    assert_int_equal(r->kind, HRX_FABRIC_FAULT_ASSERTION);
    assert_int_equal(r->value, r->access.work_item);
    assert_true(r->access.work_item > 40);
  }
  hrx_gpu_sanitizer_reports_destroy(reports);
  hrx_gpu_kernel_release(assume);

  text = corpus_operation_kernel(corpus_operation_bodies[0]);
  hrx_gpu_kernel_t* op = gpu_test_kernel_sanitized(
      f->device, NULL, text, "op", HRX_LOOM_SANITIZE_OPERATION);
  free(text);
  assert_ok(run_one(f, op, out));
  reports = drain(f);
  /* id * 2^62 overflows for every id from 2. */
  assert_int_equal(hrx_gpu_sanitizer_reports_count(reports), 62);
  const hrx_fabric_sanitizer_report_t* first =
      hrx_gpu_sanitizer_reports_get(reports, 0);
  assert_int_equal(first->kind, HRX_FABRIC_FAULT_INTEGER_OVERFLOW);
  assert_int_equal(first->access.work_item, 2);
  hrx_gpu_sanitizer_reports_destroy(reports);
  hrx_gpu_kernel_release(op);
  hrx_gpu_buffer_release(out);
}

/* Trap (the default, and again after report): the first finding fails
 * the stream, and there is nothing to drain. */
static void test_trap_stops_at_first(void** state) {
  gpu_fixture_t* f = reporting_fixture(state, 4);
  hrx_gpu_sanitizer_options_t options = report_options(4);
  options.reporting = HRX_GPU_SANITIZER_TRAP;
  assert_ok(hrx_gpu_stream_set_sanitizer(f->stream, &options));
  hrx_gpu_buffer_t* out = NULL;
  hrx_gpu_kernel_t* fill = fill_and_out(f, &out);
  assert_status(run_one(f, fill, out), HRX_STATUS_ABORTED,
                "out-of-bounds access in kernel 'fill'");
  hrx_gpu_sanitizer_reports_t* reports = NULL;
  assert_status_code(hrx_gpu_stream_sanitizer_reports(f->stream, &reports),
                     HRX_STATUS_FAILED_PRECONDITION);
  hrx_gpu_buffer_release(out);
  hrx_gpu_kernel_release(fill);
}

/* The channel is charged to the stream's budget while it exists; one
 * that does not fit is refused. */
static void test_budget(void** state) {
  gpu_fixture_t* f = *state;
  if (!gpu_test_is_host(f->device)) skip();
  hrx_budget_t* budget = NULL;
  uint64_t small = hrx_fabric_report_channel_footprint(2);
  assert_ok(hrx_budget_create(small + 100, hrx_allocator_system(), &budget));
  hrx_gpu_stream_set_memory_budget(f->stream, budget);
  hrx_gpu_sanitizer_options_t options = report_options(256);
  assert_status(hrx_gpu_stream_set_sanitizer(f->stream, &options),
                HRX_STATUS_RESOURCE_EXHAUSTED,
                "a sanitizer report channel of 256 reports");
  assert_int_equal(hrx_budget_live_bytes(budget), 0);
  options = report_options(2);
  assert_ok(hrx_gpu_stream_set_sanitizer(f->stream, &options));
  assert_int_equal(hrx_budget_live_bytes(budget), small);
  /* A replacement that does not fit keeps the old channel. */
  options = report_options(3);
  assert_status_code(hrx_gpu_stream_set_sanitizer(f->stream, &options),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_int_equal(hrx_budget_live_bytes(budget), small);
  hrx_gpu_sanitizer_reports_t* reports = drain(f);
  hrx_gpu_sanitizer_reports_destroy(reports);
  assert_ok(hrx_gpu_stream_set_sanitizer(f->stream, NULL));
  assert_int_equal(hrx_budget_live_bytes(budget), 0);
  /* Destroying a reporting stream returns the charge too. */
  hrx_gpu_stream_t* other = NULL;
  assert_ok(hrx_gpu_stream_create(f->device, &other));
  hrx_gpu_stream_set_memory_budget(other, budget);
  options = report_options(2);
  assert_ok(hrx_gpu_stream_set_sanitizer(other, &options));
  assert_int_equal(hrx_budget_live_bytes(budget), small);
  hrx_gpu_stream_destroy(other);
  assert_int_equal(hrx_budget_live_bytes(budget), 0);
  hrx_gpu_stream_set_memory_budget(f->stream, NULL);
  hrx_budget_release(budget);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      GPU_FIXTURE_TEST(test_options),
      GPU_FIXTURE_TEST(test_out_of_bounds_reports),
      GPU_FIXTURE_TEST(test_capacity_drops),
      GPU_FIXTURE_TEST(test_prepared_dispatch_reports),
      GPU_FIXTURE_TEST(test_busy_while_pending),
      GPU_FIXTURE_TEST(test_race_report),
      GPU_FIXTURE_TEST(test_value_and_operation_reports),
      GPU_FIXTURE_TEST(test_trap_stops_at_first),
      GPU_FIXTURE_TEST(test_budget),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
