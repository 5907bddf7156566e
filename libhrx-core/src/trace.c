#include "hrx/core/trace.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hrx/core/clock.h"
#include "hrx/core/file.h"
#include "hrx/core/string_builder.h"

#define HRX_TRACE_DEFAULT_MAX_BYTES (64u << 20)

struct hrx_trace_s {
  atomic_uint_fast32_t ref_count;
  hrx_allocator_t allocator;
  hrx_trace_format_t format;
  size_t max_bytes;
  uint32_t pid;
  uint64_t origin_ns;
  pthread_mutex_t mutex;
  /* Guarded by mutex. */
  hrx_string_builder_t events; /* serialised events, each ending in '\n' */
  bool full;
  hrx_trace_stats_t stats;
};

hrx_status_t hrx_trace_create(const hrx_trace_options_t* caller_options,
                              hrx_allocator_t allocator,
                              hrx_trace_t** out_trace) {
  *out_trace = NULL;
  hrx_trace_options_t local;
  HRX_RETURN_IF_ERROR(
      HRX_STRUCT_READ(hrx_trace_options_t, pid, caller_options, &local));
  const hrx_trace_options_t* options = &local;
  if (options->format != HRX_TRACE_FORMAT_CHROME_JSON &&
      options->format != HRX_TRACE_FORMAT_JSONL) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown trace format %d", (int)options->format);
  }
  hrx_trace_t* trace = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*trace), (void**)&trace));
  atomic_init(&trace->ref_count, 1);
  trace->allocator = allocator;
  trace->format = options->format;
  trace->max_bytes =
      options->max_bytes ? options->max_bytes : HRX_TRACE_DEFAULT_MAX_BYTES;
  trace->pid = options->pid ? options->pid : (uint32_t)getpid();
  trace->origin_ns = hrx_clock_monotonic_ns();
  pthread_mutex_init(&trace->mutex, NULL);
  hrx_string_builder_init(allocator, &trace->events);
  *out_trace = trace;
  return HRX_OK;
}

void hrx_trace_retain(hrx_trace_t* trace) {
  if (trace) atomic_fetch_add_explicit(&trace->ref_count, 1,
                                       memory_order_relaxed);
}

void hrx_trace_release(hrx_trace_t* trace) {
  if (!trace) return;
  if (atomic_fetch_sub_explicit(&trace->ref_count, 1,
                                memory_order_acq_rel) != 1) {
    return;
  }
  hrx_string_builder_deinit(&trace->events);
  pthread_mutex_destroy(&trace->mutex);
  hrx_allocator_free(trace->allocator, trace);
}

/* Microseconds with nanosecond precision, as Chrome's "ts"/"dur" expect. */
static hrx_status_t hrx_trace_append_us(hrx_string_builder_t* out,
                                        const char* key, int64_t ns) {
  const char* sign = ns < 0 ? "-" : "";
  uint64_t magnitude = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
  return hrx_string_builder_appendf(out, ",\"%s\":%s%" PRIu64 ".%03" PRIu64,
                                    key, sign, magnitude / 1000,
                                    magnitude % 1000);
}

static hrx_status_t hrx_trace_append_arg(hrx_string_builder_t* out,
                                         const hrx_trace_arg_t* arg) {
  HRX_RETURN_IF_ERROR(
      hrx_string_builder_append_json_string(out, arg->key, strlen(arg->key)));
  HRX_RETURN_IF_ERROR(hrx_string_builder_append(out, ":", 1));
  switch (arg->type) {
    case HRX_TRACE_ARG_INT:
      return hrx_string_builder_appendf(out, "%" PRId64, arg->value.i);
    case HRX_TRACE_ARG_UINT:
      return hrx_string_builder_appendf(out, "%" PRIu64, arg->value.u);
    case HRX_TRACE_ARG_DOUBLE:
      /* JSON has no NaN or infinity. */
      if (!isfinite(arg->value.d)) {
        return hrx_string_builder_append_cstr(out, "null");
      }
      return hrx_string_builder_appendf(out, "%.17g", arg->value.d);
    case HRX_TRACE_ARG_STRING: {
      const char* s = arg->value.s ? arg->value.s : "";
      return hrx_string_builder_append_json_string(out, s, strlen(s));
    }
  }
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "trace arg '%s' has unknown type %d", arg->key,
                         (int)arg->type);
}

static hrx_status_t hrx_trace_serialize_event(const hrx_trace_t* trace,
                                              const hrx_trace_event_t* event,
                                              uint32_t tid,
                                              hrx_string_builder_t* out) {
  const char* category = event->category ? event->category : "hrx";
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(out, "{\"name\":"));
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_json_string(
      out, event->name, strlen(event->name)));
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(out, ",\"cat\":"));
  HRX_RETURN_IF_ERROR(
      hrx_string_builder_append_json_string(out, category, strlen(category)));
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      out, ",\"ph\":\"X\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32, trace->pid,
      tid));
  HRX_RETURN_IF_ERROR(hrx_trace_append_us(
      out, "ts", (int64_t)(event->start_ns - trace->origin_ns)));
  HRX_RETURN_IF_ERROR(
      hrx_trace_append_us(out, "dur", (int64_t)event->duration_ns));
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(out, ",\"args\":{"));
  for (size_t i = 0; i < event->arg_count; ++i) {
    if (i) HRX_RETURN_IF_ERROR(hrx_string_builder_append(out, ",", 1));
    HRX_RETURN_IF_ERROR(hrx_trace_append_arg(out, &event->args[i]));
  }
  return hrx_string_builder_append_cstr(out, "}}\n");
}

static hrx_status_t hrx_trace_validate(const hrx_trace_event_t* event) {
  if (!event || !event->name) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "trace event needs a name");
  }
  if (event->arg_count && !event->args) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "trace event '%s' has %zu args but no array",
                           event->name, event->arg_count);
  }
  for (size_t i = 0; i < event->arg_count; ++i) {
    if (!event->args[i].key) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "trace event '%s' arg %zu has no key",
                             event->name, i);
    }
  }
  return HRX_OK;
}

hrx_status_t hrx_trace_record(hrx_trace_t* trace,
                              const hrx_trace_event_t* event) {
  HRX_RETURN_IF_ERROR(hrx_trace_validate(event));
  uint32_t tid = event->tid ? event->tid : (uint32_t)syscall(SYS_gettid);
  /* Serialise outside the lock; only the append is serialised. */
  hrx_string_builder_t text;
  hrx_string_builder_init(trace->allocator, &text);
  hrx_status_t status = hrx_trace_serialize_event(trace, event, tid, &text);
  pthread_mutex_lock(&trace->mutex);
  if (status == HRX_OK && !trace->full &&
      trace->events.length + text.length <= trace->max_bytes) {
    status = hrx_string_builder_append(&trace->events, text.data,
                                       text.length);
    if (status == HRX_OK) {
      trace->stats.recorded_events++;
      trace->stats.recorded_bytes += text.length;
    }
  } else if (status == HRX_OK) {
    trace->full = true;
  }
  if (status != HRX_OK || trace->full) {
    trace->stats.dropped_events++;
    trace->stats.dropped_bytes += text.length;
  }
  pthread_mutex_unlock(&trace->mutex);
  hrx_string_builder_deinit(&text);
  return status;
}

hrx_status_t hrx_trace_stats(hrx_trace_t* trace,
                             hrx_trace_stats_t* out_stats) {
  pthread_mutex_lock(&trace->mutex);
  hrx_trace_stats_t stats = trace->stats;
  pthread_mutex_unlock(&trace->mutex);
  return HRX_STRUCT_WRITE(hrx_trace_stats_t, dropped_bytes, &stats,
                          out_stats);
}

static hrx_status_t hrx_trace_serialize_locked(hrx_trace_t* trace,
                                               hrx_string_builder_t* out) {
  const hrx_trace_stats_t* s = &trace->stats;
  const char* body = hrx_string_builder_cstr(&trace->events);
  if (trace->format == HRX_TRACE_FORMAT_JSONL) {
    HRX_RETURN_IF_ERROR(
        hrx_string_builder_append(out, body, trace->events.length));
    return hrx_string_builder_appendf(
        out,
        "{\"name\":\"hrx.trace.summary\",\"ph\":\"M\",\"pid\":%" PRIu32
        ",\"args\":{\"recorded_events\":%" PRIu64 ",\"dropped_events\":%" PRIu64
        ",\"dropped_bytes\":%" PRIu64 ",\"truncated\":%s}}\n",
        trace->pid, s->recorded_events, s->dropped_events, s->dropped_bytes,
        trace->full ? "true" : "false");
  }
  HRX_RETURN_IF_ERROR(
      hrx_string_builder_reserve(out, trace->events.length + 256));
  HRX_RETURN_IF_ERROR(
      hrx_string_builder_append_cstr(out, "{\"traceEvents\":[\n"));
  /* Events are stored newline-terminated; join them with commas. */
  size_t start = 0;
  for (size_t i = 0; i < trace->events.length; ++i) {
    if (body[i] != '\n') continue;
    HRX_RETURN_IF_ERROR(
        hrx_string_builder_append(out, body + start, i - start));
    HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(
        out, i + 1 < trace->events.length ? ",\n" : "\n"));
    start = i + 1;
  }
  return hrx_string_builder_appendf(
      out,
      "],\"displayTimeUnit\":\"ns\",\"otherData\":{\"recorded_events\":%" PRIu64
      ",\"dropped_events\":%" PRIu64 ",\"dropped_bytes\":%" PRIu64
      ",\"truncated\":%s}}\n",
      s->recorded_events, s->dropped_events, s->dropped_bytes,
      trace->full ? "true" : "false");
}

hrx_status_t hrx_trace_serialize(hrx_trace_t* trace, hrx_allocator_t allocator,
                                 char** out_text, size_t* out_length) {
  *out_text = NULL;
  if (out_length) *out_length = 0;
  hrx_string_builder_t out;
  hrx_string_builder_init(allocator, &out);
  pthread_mutex_lock(&trace->mutex);
  hrx_status_t status = hrx_trace_serialize_locked(trace, &out);
  pthread_mutex_unlock(&trace->mutex);
  if (status == HRX_OK) status = hrx_string_builder_take(&out, out_text,
                                                         out_length);
  hrx_string_builder_deinit(&out);
  return status;
}

hrx_status_t hrx_trace_write_file(hrx_trace_t* trace, const char* path) {
  char* text = NULL;
  size_t length = 0;
  HRX_RETURN_IF_ERROR(
      hrx_trace_serialize(trace, trace->allocator, &text, &length));
  hrx_status_t status = hrx_file_write_output(path, text, length, 0644);
  hrx_allocator_free(trace->allocator, text);
  return hrx_status_annotate(status, "writing trace");
}
