/* A bounded recorder of timed host activity.
 *
 * Events are "complete" events (a name, a start and a duration) written as
 * Chrome trace-event JSON, which chrome://tracing and Perfetto load, or as
 * JSON Lines for scripts. The recorder keeps serialised events in memory up
 * to |max_bytes|; the first event that does not fit stops recording, and
 * that event and every later one are counted as dropped (events and bytes)
 * so the output is always a clean prefix of the run that says how much is
 * missing. The summary is written even when the cap is reached.
 *
 * A recorder is thread-safe: any thread may record while others do.
 */
#ifndef HRX_CORE_TRACE_H_
#define HRX_CORE_TRACE_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core/allocator.h"
#include "hrx/core/api.h"
#include "hrx/core/status.h"
#include "hrx/core/struct.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hrx_trace_format_e {
  /* {"traceEvents":[...],"otherData":{...}} */
  HRX_TRACE_FORMAT_CHROME_JSON = 0,
  /* One event object a line, then one summary line. */
  HRX_TRACE_FORMAT_JSONL = 1,
} hrx_trace_format_t;

typedef struct hrx_trace_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  hrx_trace_format_t format;
  /* Ceiling for recorded event bytes; 0 selects 64 MiB. */
  size_t max_bytes;
  /* Process id written into events; 0 selects getpid(). */
  uint32_t pid;
} hrx_trace_options_t;

typedef enum hrx_trace_arg_type_e {
  HRX_TRACE_ARG_INT = 0,
  HRX_TRACE_ARG_UINT,
  HRX_TRACE_ARG_DOUBLE,
  HRX_TRACE_ARG_STRING,
} hrx_trace_arg_type_t;

typedef struct hrx_trace_arg_t {
  const char* key;
  hrx_trace_arg_type_t type;
  union {
    int64_t i;
    uint64_t u;
    double d;
    const char* s;
  } value;
} hrx_trace_arg_t;

typedef struct hrx_trace_event_t {
  const char* name;     /* required */
  const char* category; /* optional ("hrx" when NULL) */
  uint64_t start_ns;    /* hrx_clock_monotonic_ns() time base */
  uint64_t duration_ns;
  uint32_t tid;         /* track id; 0 selects the calling thread's id */
  const hrx_trace_arg_t* args;
  size_t arg_count;
} hrx_trace_event_t;

typedef struct hrx_trace_stats_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint64_t recorded_events;
  uint64_t recorded_bytes;
  uint64_t dropped_events;
  uint64_t dropped_bytes;
} hrx_trace_stats_t;

typedef struct hrx_trace_s hrx_trace_t;

/* Timestamps in the output are relative to the creation time. |options|
 * NULL selects the defaults. The recorder is reference counted: whoever
 * keeps it beyond a call (an exec runtime) retains it. */
HRX_API HRX_MUST_USE hrx_status_t hrx_trace_create(
    const hrx_trace_options_t* options, hrx_allocator_t allocator,
    hrx_trace_t** out_trace);
HRX_API void hrx_trace_retain(hrx_trace_t* trace);
HRX_API void hrx_trace_release(hrx_trace_t* trace);

/* Records one complete event. A dropped event is not an error: it is
 * counted. INVALID_ARGUMENT for a missing name or an arg without key;
 * RESOURCE_EXHAUSTED when host memory runs out (the event is dropped). */
HRX_API HRX_MUST_USE hrx_status_t hrx_trace_record(
    hrx_trace_t* trace, const hrx_trace_event_t* event);

HRX_API HRX_MUST_USE hrx_status_t hrx_trace_stats(hrx_trace_t* trace,
                                                  hrx_trace_stats_t* out_stats);

/* The whole document in the recorder's format, owned by the caller (free
 * with |allocator|). */
HRX_API HRX_MUST_USE hrx_status_t hrx_trace_serialize(
    hrx_trace_t* trace, hrx_allocator_t allocator, char** out_text,
    size_t* out_length);

/* Serialises and writes to |path|, a user-chosen output: a device or FIFO
 * is written in place, a link followed, a file replaced atomically
 * (hrx_file_write_output). */
HRX_API HRX_MUST_USE hrx_status_t hrx_trace_write_file(hrx_trace_t* trace,
                                                       const char* path);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_TRACE_H_ */
