/* Bounded trace recorder: Chrome JSON and JSON Lines, caps, threads. */
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

static hrx_trace_t* make_trace(hrx_trace_format_t format, size_t max_bytes) {
  hrx_trace_options_t options = HRX_STRUCT_INIT(hrx_trace_options_t);
  options.format = format;
  options.max_bytes = max_bytes;
  options.pid = 42;
  hrx_trace_t* trace = NULL;
  assert_ok(hrx_trace_create(&options, hrx_allocator_system(), &trace));
  return trace;
}

static json_t* serialize_json(hrx_trace_t* trace) {
  char* text = NULL;
  size_t length = 0;
  assert_ok(hrx_trace_serialize(trace, hrx_allocator_system(), &text,
                                &length));
  json_error_t error;
  json_t* root = json_loadb(text, length, 0, &error);
  if (!root) fail_msg("invalid JSON: %s in %s", error.text, text);
  free(text);
  return root;
}

static void test_chrome_json_fields(void** state) {
  (void)state;
  hrx_trace_t* trace = make_trace(HRX_TRACE_FORMAT_CHROME_JSON, 0);
  uint64_t origin = hrx_clock_monotonic_ns();
  hrx_trace_arg_t args[] = {
      {.key = "bytes", .type = HRX_TRACE_ARG_UINT, .value.u = 4096},
      {.key = "delta", .type = HRX_TRACE_ARG_INT, .value.i = -3},
      {.key = "ratio", .type = HRX_TRACE_ARG_DOUBLE, .value.d = 0.5},
      {.key = "lane", .type = HRX_TRACE_ARG_STRING, .value.s = "up\"load\n"},
  };
  hrx_trace_event_t event = {
      .name = "copy \"4K\"",
      .category = "gpu",
      .start_ns = origin + 1500,
      .duration_ns = 2250,
      .tid = 7,
      .args = args,
      .arg_count = 4,
  };
  assert_ok(hrx_trace_record(trace, &event));
  event.name = "second";
  event.arg_count = 0;
  assert_ok(hrx_trace_record(trace, &event));

  json_t* root = serialize_json(trace);
  json_t* events = json_object_get(root, "traceEvents");
  assert_int_equal(json_array_size(events), 2);
  json_t* first = json_array_get(events, 0);
  assert_string_equal(json_string_value(json_object_get(first, "name")),
                      "copy \"4K\"");
  assert_string_equal(json_string_value(json_object_get(first, "ph")), "X");
  assert_string_equal(json_string_value(json_object_get(first, "cat")),
                      "gpu");
  assert_int_equal(json_integer_value(json_object_get(first, "pid")), 42);
  assert_int_equal(json_integer_value(json_object_get(first, "tid")), 7);
  double ts = json_number_value(json_object_get(first, "ts"));
  assert_true(ts >= 1.5 - 1e-9); /* microseconds since creation */
  assert_true(json_number_value(json_object_get(first, "dur")) == 2.25);
  json_t* a = json_object_get(first, "args");
  assert_int_equal(json_integer_value(json_object_get(a, "bytes")), 4096);
  assert_int_equal(json_integer_value(json_object_get(a, "delta")), -3);
  assert_true(json_real_value(json_object_get(a, "ratio")) == 0.5);
  assert_string_equal(json_string_value(json_object_get(a, "lane")),
                      "up\"load\n");
  json_t* other = json_object_get(root, "otherData");
  assert_int_equal(json_integer_value(json_object_get(other,
                                                      "dropped_events")), 0);
  assert_true(json_is_false(json_object_get(other, "truncated")));
  json_decref(root);
  hrx_trace_release(trace);
}

static void test_cap_stops_cleanly(void** state) {
  (void)state;
  hrx_trace_t* trace = make_trace(HRX_TRACE_FORMAT_CHROME_JSON, 600);
  hrx_trace_event_t event = {.name = "tick", .tid = 1};
  for (int i = 0; i < 50; ++i) {
    event.start_ns = hrx_clock_monotonic_ns();
    assert_ok(hrx_trace_record(trace, &event));
  }
  hrx_trace_stats_t stats = HRX_STRUCT_INIT(hrx_trace_stats_t);
  assert_ok(hrx_trace_stats(trace, &stats));
  assert_true(stats.recorded_events > 0);
  assert_true(stats.recorded_bytes <= 600);
  assert_int_equal(stats.recorded_events + stats.dropped_events, 50);
  assert_true(stats.dropped_bytes > 0);
  /* A tiny event after the cap is still dropped: the output is a prefix. */
  hrx_trace_event_t tiny = {.name = "", .tid = 1};
  assert_ok(hrx_trace_record(trace, &tiny));
  hrx_trace_stats_t after = HRX_STRUCT_INIT(hrx_trace_stats_t);
  assert_ok(hrx_trace_stats(trace, &after));
  assert_int_equal(after.dropped_events, stats.dropped_events + 1);
  json_t* root = serialize_json(trace);
  assert_int_equal(json_array_size(json_object_get(root, "traceEvents")),
                   stats.recorded_events);
  json_t* other = json_object_get(root, "otherData");
  assert_int_equal(json_integer_value(json_object_get(other,
                                                      "dropped_events")),
                   stats.dropped_events + 1);
  assert_true(json_is_true(json_object_get(other, "truncated")));
  json_decref(root);
  hrx_trace_release(trace);
}

static void test_jsonl_lines(void** state) {
  (void)state;
  hrx_trace_t* trace = make_trace(HRX_TRACE_FORMAT_JSONL, 0);
  hrx_trace_event_t event = {.name = "pass", .tid = 3};
  for (int i = 0; i < 3; ++i) assert_ok(hrx_trace_record(trace, &event));
  char* text = NULL;
  size_t length = 0;
  assert_ok(hrx_trace_serialize(trace, hrx_allocator_system(), &text,
                                &length));
  int lines = 0;
  for (char* line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    json_error_t error;
    json_t* object = json_loads(line, 0, &error);
    assert_non_null(object);
    ++lines;
    if (lines == 4) {
      assert_string_equal(
          json_string_value(json_object_get(object, "name")),
          "hrx.trace.summary");
    }
    json_decref(object);
  }
  assert_int_equal(lines, 4);
  free(text);
  hrx_trace_release(trace);
}

static void test_bad_events(void** state) {
  (void)state;
  hrx_trace_t* trace = make_trace(HRX_TRACE_FORMAT_JSONL, 0);
  hrx_trace_event_t nameless = {0};
  assert_status_code(hrx_trace_record(trace, &nameless),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_trace_record(trace, NULL),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_trace_event_t no_array = {.name = "x", .arg_count = 1};
  assert_status_code(hrx_trace_record(trace, &no_array),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_trace_arg_t keyless = {.type = HRX_TRACE_ARG_INT};
  hrx_trace_event_t bad_arg = {.name = "x", .args = &keyless, .arg_count = 1};
  assert_status_code(hrx_trace_record(trace, &bad_arg),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_trace_arg_t bad_type = {.key = "k", .type = (hrx_trace_arg_type_t)9};
  hrx_trace_event_t typed = {.name = "x", .args = &bad_type, .arg_count = 1};
  assert_status_code(hrx_trace_record(trace, &typed),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_trace_options_t options = HRX_STRUCT_INIT(hrx_trace_options_t);
  options.format = (hrx_trace_format_t)5;
  hrx_trace_t* other = NULL;
  assert_status_code(
      hrx_trace_create(&options, hrx_allocator_system(), &other),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_null(other);
  hrx_trace_release(trace);
}

#define THREADS 4
#define EVENTS 500

static void* record_many(void* arg) {
  hrx_trace_t* trace = arg;
  hrx_trace_event_t event = {.name = "worker"};
  for (int i = 0; i < EVENTS; ++i) {
    hrx_status_free(hrx_trace_record(trace, &event));
  }
  return NULL;
}

static void test_threads(void** state) {
  (void)state;
  hrx_trace_t* trace = make_trace(HRX_TRACE_FORMAT_CHROME_JSON, 0);
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; ++i) {
    pthread_create(&threads[i], NULL, record_many, trace);
  }
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  json_t* root = serialize_json(trace);
  assert_int_equal(json_array_size(json_object_get(root, "traceEvents")),
                   THREADS * EVENTS);
  json_decref(root);
  hrx_trace_release(trace);
}

typedef struct record_ctx_t {
  hrx_trace_t* trace;
  char* text;
} record_ctx_t;

static hrx_status_t record_and_serialize(hrx_allocator_t allocator,
                                         void* context) {
  record_ctx_t* ctx = context;
  hrx_trace_options_t options = HRX_STRUCT_INIT(hrx_trace_options_t);
  options.format = HRX_TRACE_FORMAT_CHROME_JSON;
  HRX_RETURN_IF_ERROR(hrx_trace_create(&options, allocator, &ctx->trace));
  hrx_trace_event_t event = {.name = "e"};
  hrx_status_t status = hrx_trace_record(ctx->trace, &event);
  if (status == HRX_OK) {
    status = hrx_trace_serialize(ctx->trace, allocator, &ctx->text, NULL);
  }
  if (status != HRX_OK) {
    hrx_trace_release(ctx->trace);
    ctx->trace = NULL;
  }
  return status;
}

static void release_trace(hrx_allocator_t allocator, void* context) {
  record_ctx_t* ctx = context;
  hrx_allocator_free(allocator, ctx->text);
  hrx_trace_release(ctx->trace);
}

static void test_allocation_failures(void** state) {
  (void)state;
  record_ctx_t ctx = {0};
  assert_true(test_exhaust_allocations(record_and_serialize, release_trace,
                                       &ctx) >= 3);
}

static void test_trace_to_file(void** state) {
  (void)state;
  char* dir = test_temp_dir_create();
  char* path = test_strdup_printf("%s/trace.json", dir);
  hrx_trace_t* trace = make_trace(HRX_TRACE_FORMAT_CHROME_JSON, 0);
  hrx_trace_event_t event = {.name = "e"};
  assert_ok(hrx_trace_record(trace, &event));
  assert_ok(hrx_trace_write_file(trace, path));
  json_error_t error;
  json_t* root = json_load_file(path, 0, &error);
  assert_non_null(root);
  json_decref(root);
  char* bad = test_strdup_printf("%s/missing/trace.json", dir);
  assert_status_code(hrx_trace_write_file(trace, bad), HRX_STATUS_NOT_FOUND);
  free(bad);
  hrx_trace_release(trace);
  free(path);
  test_temp_dir_remove(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chrome_json_fields),
      cmocka_unit_test(test_cap_stops_cleanly),
      cmocka_unit_test(test_jsonl_lines),
      cmocka_unit_test(test_bad_events),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_allocation_failures),
      cmocka_unit_test(test_trace_to_file),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
