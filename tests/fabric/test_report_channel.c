/* Sanitizer report channels and report text (the host executor filling
 * them is covered through streams: tests/gpu/test_sanitizer.c). */
#include <string.h>

#include "fabric_internal.h"
#include "hrx/fabric.h"
#include "test_support.h"

/* Capacities are bounded, the footprint is what create allocates, and an
 * empty channel drains to nothing. */
static void test_channel_create_and_drain(void** state) {
  (void)state;
  hrx_allocator_t allocator = hrx_allocator_system();
  hrx_fabric_report_channel_t* channel = NULL;
  assert_status(hrx_fabric_report_channel_create(0, allocator, &channel),
                HRX_STATUS_INVALID_ARGUMENT, "holds 1 to");
  assert_null(channel);
  assert_status_code(hrx_fabric_report_channel_create(
                         HRX_FABRIC_SANITIZER_MAX_CAPACITY + 1, allocator,
                         &channel),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_true(hrx_fabric_report_channel_footprint(3) -
                  hrx_fabric_report_channel_footprint(2) ==
              sizeof(hrx_fabric_sanitizer_report_t));
  assert_ok(hrx_fabric_report_channel_create(3, allocator, &channel));
  assert_int_equal(hrx_fabric_report_channel_capacity(channel), 3);
  assert_int_equal(hrx_fabric_report_channel_count(channel), 0);
  hrx_fabric_sanitizer_report_t reports[3];
  uint64_t dropped = 99;
  size_t count = 99;
  assert_ok(hrx_fabric_report_channel_drain(channel, sizeof(reports[0]),
                                            reports, &count, &dropped));
  assert_int_equal(count, 0);
  assert_int_equal(dropped, 0);
  hrx_fabric_report_channel_release(channel);
}

/* Reports beyond the capacity are counted, not kept; a drain takes the
 * oldest in order and empties the channel. */
static void test_channel_drops_past_capacity(void** state) {
  (void)state;
  hrx_fabric_report_channel_t* channel = NULL;
  assert_ok(hrx_fabric_report_channel_create(2, hrx_allocator_system(),
                                             &channel));
  for (uint32_t i = 0; i < 5; ++i) {
    hrx_fabric_sanitizer_report_t r = {.struct_size = sizeof(r),
                                       .kind = HRX_FABRIC_FAULT_OUT_OF_BOUNDS,
                                       .offset = i};
    hrx_fabric_report_channel_push(channel, &r);
  }
  assert_int_equal(hrx_fabric_report_channel_count(channel), 2);
  hrx_fabric_sanitizer_report_t reports[2];
  uint64_t dropped = 0;
  size_t count = 0;
  /* A size no release had is refused before anything leaves. */
  assert_status_code(hrx_fabric_report_channel_drain(channel, 8, reports,
                                                     &count, &dropped),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_int_equal(hrx_fabric_report_channel_count(channel), 2);
  /* A newer caller's larger reports: the stride is theirs, the members
   * this library lacks read zero. */
  struct {
    hrx_fabric_sanitizer_report_t report;
    uint64_t later;
  } wide[2];
  memset(wide, 0xab, sizeof(wide));
  assert_ok(hrx_fabric_report_channel_drain(channel, sizeof(wide[0]),
                                            &wide[0].report, &count,
                                            &dropped));
  assert_int_equal(count, 2);
  assert_int_equal(dropped, 3);
  assert_int_equal(wide[0].report.offset, 0);
  assert_int_equal(wide[1].report.offset, 1);
  assert_int_equal(wide[1].report.struct_size, sizeof(wide[0]));
  assert_int_equal(wide[1].later, 0);
  assert_ok(hrx_fabric_report_channel_drain(channel, sizeof(reports[0]),
                                            reports, &count, &dropped));
  assert_int_equal(count, 0);
  assert_int_equal(dropped, 0);
  hrx_fabric_report_channel_release(channel);
}

/* A signal holds its channel: replacing or clearing it, and releasing
 * the signal, release it (ASan reports a leak or a double free). */
static void test_signal_holds_channel(void** state) {
  (void)state;
  hrx_allocator_t allocator = hrx_allocator_system();
  hrx_fabric_signal_t* signal = NULL;
  assert_ok(hrx_fabric_signal_create(1, allocator, &signal));
  hrx_fabric_report_channel_t *a = NULL, *b = NULL;
  assert_ok(hrx_fabric_report_channel_create(1, allocator, &a));
  assert_ok(hrx_fabric_report_channel_create(1, allocator, &b));
  hrx_fabric_signal_set_report_channel(signal, a);
  hrx_fabric_report_channel_release(a); /* the signal keeps it */
  hrx_fabric_signal_set_report_channel(signal, b);
  hrx_fabric_signal_set_report_channel(signal, NULL);
  hrx_fabric_signal_set_report_channel(signal, b);
  hrx_fabric_report_channel_release(b);
  hrx_fabric_signal_release(signal);
}

static hrx_fabric_sanitizer_access_t access_of(uint32_t pc, uint32_t bytes,
                                               uint32_t item, bool write) {
  return (hrx_fabric_sanitizer_access_t){
      .pc = pc, .bytes = bytes, .lane = item % 32, .work_item = item,
      .work_item_id = {item % 16, item / 16, 0}, .write = write};
}

/* One line per report, naming what the kind reports. */
static void test_format(void** state) {
  (void)state;
  char text[512];
  hrx_fabric_sanitizer_report_t r = {
      .struct_size = sizeof(r), .kind = HRX_FABRIC_FAULT_OUT_OF_BOUNDS,
      .kernel = "k", .workgroup = {1, 2, 3}, .slot = 1, .offset = 40,
      .address = 0x1028, .allocation_size = 32,
      .access = access_of(7, 4, 17, true)};
  hrx_fabric_sanitizer_report_format(&r, text, sizeof(text));
  assert_string_equal(text,
                      "out-of-bounds access in kernel 'k', workgroup (1, 2, "
                      "3), work-item 17 (1, 1, 0) at instruction 7: 4-byte "
                      "write at offset 40 of binding 1 (address 0x1028, 32 "
                      "bytes long)");
  r = (hrx_fabric_sanitizer_report_t){
      .struct_size = sizeof(r), .kind = HRX_FABRIC_FAULT_DATA_RACE,
      .kernel = "k", .slot = HRX_FABRIC_SANITIZER_SLOT_LOCAL, .offset = 8,
      .access = access_of(9, 2, 33, false),
      .other = access_of(3, 4, 0, true)};
  hrx_fabric_sanitizer_report_format(&r, text, sizeof(text));
  assert_string_equal(text,
                      "data race in kernel 'k', workgroup (0, 0, 0), "
                      "work-item 33 (1, 2, 0) at instruction 9: 2-byte read "
                      "of local memory at offset 8 races with a 4-byte write "
                      "by work-item 0 (0, 0, 0) at instruction 3 with no "
                      "barrier between");
  r.access.write = true;
  r.other = (hrx_fabric_sanitizer_access_t){
      .pc = 4, .bytes = 4, .lane = HRX_FABRIC_SANITIZER_SEVERAL,
      .work_item = HRX_FABRIC_SANITIZER_SEVERAL};
  hrx_fabric_sanitizer_report_format(&r, text, sizeof(text));
  assert_non_null(strstr(text, "a 4-byte read by several work-items"));
  r = (hrx_fabric_sanitizer_report_t){
      .struct_size = sizeof(r), .kind = HRX_FABRIC_FAULT_ASSERTION,
      .kernel = "k", .access = access_of(2, 0, 41, false), .value = 41};
  hrx_fabric_sanitizer_report_format(&r, text, sizeof(text));
  assert_non_null(strstr(text, ": index.assume fact 'range' does not hold "
                               "for 41"));
  /* Truncation keeps snprintf's contract: the full length is returned. */
  size_t full = hrx_fabric_sanitizer_report_format(&r, NULL, 0);
  assert_int_equal(full, strlen(text));
  assert_int_equal(hrx_fabric_sanitizer_report_format(&r, text, 10), full);
  assert_int_equal(strlen(text), 9);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_channel_create_and_drain),
      cmocka_unit_test(test_channel_drops_past_capacity),
      cmocka_unit_test(test_signal_holds_channel),
      cmocka_unit_test(test_format),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
