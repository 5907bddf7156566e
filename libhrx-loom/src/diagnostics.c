#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnostics_internal.h"
#include "hrx/core/escape.h"

typedef struct loom_diag_entry_t {
  hrx_loom_diagnostic_t public;
  /* One allocation holds every string of the entry and the param array. */
  void* storage;
} loom_diag_entry_t;

struct hrx_loom_diagnostics_s {
  hrx_allocator_t allocator;
  size_t max_errors;
  size_t error_count;
  size_t suppressed;  /* errors dropped past the cap */
  size_t warning_count;
  bool out_of_memory;
  loom_diag_entry_t* entries;
  size_t count;
  size_t capacity;
};

const char* hrx_loom_diag_code_string(hrx_loom_diag_code_t code) {
  switch (code) {
    case HRX_LOOM_DIAG_UNEXPECTED_CHARACTER: return "L0101";
    case HRX_LOOM_DIAG_UNTERMINATED_STRING: return "L0102";
    case HRX_LOOM_DIAG_BAD_NUMBER: return "L0103";
    case HRX_LOOM_DIAG_EMPTY_NAME: return "L0104";
    case HRX_LOOM_DIAG_BAD_STRING: return "L0105";
    case HRX_LOOM_DIAG_EXPECTED_TOKEN: return "L0201";
    case HRX_LOOM_DIAG_UNKNOWN_OP: return "L0202";
    case HRX_LOOM_DIAG_UNKNOWN_TOP_LEVEL: return "L0203";
    case HRX_LOOM_DIAG_UNKNOWN_TYPE: return "L0204";
    case HRX_LOOM_DIAG_UNKNOWN_ENUM: return "L0205";
    case HRX_LOOM_DIAG_RESULT_COUNT: return "L0206";
    case HRX_LOOM_DIAG_BAD_ATTRIBUTE: return "L0207";
    case HRX_LOOM_DIAG_UNKNOWN_PREDICATE: return "L0208";
    case HRX_LOOM_DIAG_LITERAL_RANGE: return "L0209";
    case HRX_LOOM_DIAG_NESTING_TOO_DEEP: return "L0210";
    case HRX_LOOM_DIAG_UNDEFINED_VALUE: return "L0301";
    case HRX_LOOM_DIAG_REDEFINED_VALUE: return "L0302";
    case HRX_LOOM_DIAG_UNDEFINED_SYMBOL: return "L0303";
    case HRX_LOOM_DIAG_REDEFINED_SYMBOL: return "L0304";
    case HRX_LOOM_DIAG_DUPLICATE_EXPORT: return "L0305";
    case HRX_LOOM_DIAG_VALUE_NOT_VISIBLE: return "L0306";
    case HRX_LOOM_DIAG_TYPE_MISMATCH: return "L0401";
    case HRX_LOOM_DIAG_TYPE_NOT_ALLOWED: return "L0402";
    case HRX_LOOM_DIAG_BAD_SHAPE: return "L0403";
    case HRX_LOOM_DIAG_BAD_CAST: return "L0404";
    case HRX_LOOM_DIAG_MISSING_TERMINATOR: return "L0501";
    case HRX_LOOM_DIAG_TERMINATOR_NOT_LAST: return "L0502";
    case HRX_LOOM_DIAG_YIELD_ARITY: return "L0503";
    case HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE: return "L0504";
    case HRX_LOOM_DIAG_BAD_FACT: return "L0505";
    case HRX_LOOM_DIAG_UNUSED_LAUNCH_ARGUMENT: return "L0506";
    case HRX_LOOM_DIAG_CONSTANT_RANGE: return "L0507";
    case HRX_LOOM_DIAG_BAD_TARGET: return "L0508";
    case HRX_LOOM_DIAG_MODULE_LIMIT: return "L0509";
    case HRX_LOOM_DIAG_DIVERGENT_BARRIER: return "L0510";
    case HRX_LOOM_DIAG_RECURSIVE_CALL: return "L0511";
    case HRX_LOOM_DIAG_CONFIG_MISSING: return "L0601";
    case HRX_LOOM_DIAG_CONFIG_UNKNOWN: return "L0602";
    case HRX_LOOM_DIAG_CONFIG_MISTYPED: return "L0603";
    case HRX_LOOM_DIAG_CONFIG_OUT_OF_RANGE: return "L0604";
    case HRX_LOOM_DIAG_LAUNCH_NOT_CONSTANT: return "L0701";
    case HRX_LOOM_DIAG_LAUNCH_UNSUPPORTED: return "L0702";
    case HRX_LOOM_DIAG_BACKEND_UNSUPPORTED: return "L0801";
    case HRX_LOOM_DIAG_BACKEND_LIMIT: return "L0802";
    case HRX_LOOM_DIAG_TOO_MANY_ERRORS: return "L0901";
    case HRX_LOOM_DIAG_TOO_MANY_WARNINGS: return "L0902";
    case HRX_LOOM_DIAG_NONE: break;
  }
  return "L0000";
}

hrx_status_t hrx_loom_diagnostics_create(size_t max_errors,
                                         hrx_allocator_t allocator,
                                         hrx_loom_diagnostics_t** out) {
  *out = NULL;
  hrx_loom_diagnostics_t* diagnostics = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*diagnostics),
                                           (void**)&diagnostics));
  diagnostics->allocator = allocator;
  diagnostics->max_errors = max_errors ? max_errors : 20;
  *out = diagnostics;
  return HRX_OK;
}

void hrx_loom_diagnostics_clear(hrx_loom_diagnostics_t* diagnostics) {
  for (size_t i = 0; i < diagnostics->count; ++i) {
    hrx_allocator_free(diagnostics->allocator, diagnostics->entries[i].storage);
  }
  diagnostics->count = 0;
  diagnostics->error_count = 0;
  diagnostics->warning_count = 0;
  diagnostics->suppressed = 0;
  diagnostics->out_of_memory = false;
}

void hrx_loom_diagnostics_destroy(hrx_loom_diagnostics_t* diagnostics) {
  if (!diagnostics) return;
  hrx_loom_diagnostics_clear(diagnostics);
  hrx_allocator_free(diagnostics->allocator, diagnostics->entries);
  hrx_allocator_free(diagnostics->allocator, diagnostics);
}

size_t hrx_loom_diagnostics_count(const hrx_loom_diagnostics_t* d) {
  return d->count;
}

size_t hrx_loom_diagnostics_error_count(const hrx_loom_diagnostics_t* d) {
  return d->error_count + d->suppressed;
}

const hrx_loom_diagnostic_t* hrx_loom_diagnostics_at(
    const hrx_loom_diagnostics_t* d, size_t index) {
  return index < d->count ? &d->entries[index].public : NULL;
}

const char* hrx_loom_diagnostic_param(const hrx_loom_diagnostic_t* diagnostic,
                                      const char* name) {
  for (size_t i = 0; i < diagnostic->param_count; ++i) {
    if (strcmp(diagnostic->params[i].name, name) == 0) {
      return diagnostic->params[i].value;
    }
  }
  return NULL;
}

bool loom_diag_full(const hrx_loom_diagnostics_t* d) {
  return d->error_count >= d->max_errors;
}

/* Line, column and the line's extent for a byte offset. */
static void loom_locate(const loom_source_t* source, uint32_t offset,
                        uint32_t* out_line, uint32_t* out_column,
                        size_t* out_line_start, size_t* out_line_length) {
  size_t limit = offset < source->length ? offset : source->length;
  uint32_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < limit; ++i) {
    if (source->text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  size_t end = line_start;
  while (end < source->length && source->text[end] != '\n' &&
         source->text[end] != '\r') {
    ++end;
  }
  *out_line = line;
  *out_column = (uint32_t)(limit - line_start) + 1;
  *out_line_start = line_start;
  *out_line_length = end - line_start;
}

static bool loom_diag_store(hrx_loom_diagnostics_t* d,
                            const loom_source_t* source, loom_span_t span,
                            hrx_loom_severity_t severity,
                            hrx_loom_diag_code_t code,
                            const hrx_loom_diag_param_t* params,
                            size_t param_count, const char* message) {
  hrx_status_t grown = hrx_allocator_grow_array(
      d->allocator, sizeof(loom_diag_entry_t), d->count + 1, &d->capacity,
      (void**)&d->entries);
  if (grown != HRX_OK) {
    hrx_status_free(grown);
    d->out_of_memory = true;
    return false;
  }
  uint32_t line = 0, column = 0;
  size_t line_start = 0, line_length = 0;
  bool placed = source && span.offset != UINT32_MAX;
  if (placed) {
    loom_locate(source, span.offset, &line, &column, &line_start,
                &line_length);
  }
  const char* file = source && source->name ? source->name : "";
  size_t sizes = strlen(file) + 1 + strlen(message) + 1 + line_length + 1;
  for (size_t i = 0; i < param_count; ++i) {
    sizes += strlen(params[i].name) + 1 + strlen(params[i].value) + 1;
  }
  size_t header = param_count * sizeof(hrx_loom_diag_param_t);
  char* storage = NULL;
  hrx_status_t status = hrx_allocator_malloc_uninitialized(
      d->allocator, header + sizes, (void**)&storage);
  if (status != HRX_OK) {
    hrx_status_free(status);
    d->out_of_memory = true;
    return false;
  }
  hrx_loom_diag_param_t* copied = (hrx_loom_diag_param_t*)storage;
  char* cursor = storage + header;
#define LOOM_COPY(dst, src, n)    \
  do {                            \
    memcpy(cursor, (src), (n));   \
    cursor[(n)] = '\0';           \
    (dst) = cursor;               \
    cursor += (n) + 1;            \
  } while (0)
  hrx_loom_diagnostic_t* out = &d->entries[d->count].public;
  LOOM_COPY(out->file, file, strlen(file));
  LOOM_COPY(out->message, message, strlen(message));
  LOOM_COPY(out->source_line, placed ? source->text + line_start : "",
            line_length);
  for (size_t i = 0; i < param_count; ++i) {
    LOOM_COPY(copied[i].name, params[i].name, strlen(params[i].name));
    LOOM_COPY(copied[i].value, params[i].value, strlen(params[i].value));
  }
#undef LOOM_COPY
  out->severity = severity;
  out->code = code;
  out->line = line;
  out->column = column;
  out->length = placed ? (span.length ? span.length : 1) : 0;
  out->param_count = param_count;
  out->params = param_count ? copied : NULL;
  d->entries[d->count].storage = storage;
  d->count++;
  return true;
}

bool loom_diag_emit(hrx_loom_diagnostics_t* d, const loom_source_t* source,
                    loom_span_t span, hrx_loom_severity_t severity,
                    hrx_loom_diag_code_t code,
                    const hrx_loom_diag_param_t* params, size_t param_count,
                    const char* format, ...) {
  va_list args;
  va_start(args, format);
  bool more = loom_diag_emitv(d, source, span, severity, code, params,
                              param_count, format, args);
  va_end(args);
  return more;
}

bool loom_diag_emitv(hrx_loom_diagnostics_t* d, const loom_source_t* source,
                     loom_span_t span, hrx_loom_severity_t severity,
                     hrx_loom_diag_code_t code,
                     const hrx_loom_diag_param_t* params, size_t param_count,
                     const char* format, va_list args) {
  if (!d) return true;
  if (severity == HRX_LOOM_SEVERITY_ERROR && loom_diag_full(d)) {
    /* Past the cap errors are only counted; one note says so. */
    if (d->suppressed++ == 0) {
      char note[128];
      snprintf(note, sizeof(note),
               "too many errors (limit %zu); later errors are counted but "
               "not shown", d->max_errors);
      loom_diag_store(d, NULL, LOOM_NO_SPAN, HRX_LOOM_SEVERITY_NOTE,
                      HRX_LOOM_DIAG_TOO_MANY_ERRORS, NULL, 0, note);
    }
    return false;
  }
  if (severity == HRX_LOOM_SEVERITY_WARNING &&
      d->warning_count++ >= HRX_LOOM_MAX_WARNINGS) {
    if (d->warning_count == HRX_LOOM_MAX_WARNINGS + 1) {
      char note[128];
      snprintf(note, sizeof(note),
               "too many warnings (limit %d); later warnings are not shown",
               HRX_LOOM_MAX_WARNINGS);
      loom_diag_store(d, NULL, LOOM_NO_SPAN, HRX_LOOM_SEVERITY_NOTE,
                      HRX_LOOM_DIAG_TOO_MANY_WARNINGS, NULL, 0, note);
    }
    return true;
  }
  /* Messages quote names and text from the source and from callers; they
   * are stored escaped, so no printed diagnostic carries a raw control
   * byte or invalid UTF-8 (every byte escapes to at most 4). */
  char message[512];
  char escaped[4 * sizeof(message)];
  vsnprintf(message, sizeof(message), format, args);
  hrx_escape_text(message, strlen(message), escaped, sizeof(escaped));
  if (loom_diag_store(d, source, span, severity, code, params, param_count,
                      escaped) &&
      severity == HRX_LOOM_SEVERITY_ERROR) {
    d->error_count++;
  } else if (severity == HRX_LOOM_SEVERITY_ERROR) {
    d->suppressed++;
  }
  return !loom_diag_full(d);
}

hrx_status_t loom_diag_status(const hrx_loom_diagnostics_t* d) {
  if (d && d->out_of_memory) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "no memory to record diagnostics");
  }
  return HRX_OK;
}

hrx_status_t loom_diag_begin(hrx_loom_diagnostics_t** diagnostics,
                             hrx_allocator_t allocator,
                             hrx_loom_diagnostics_t** own,
                             size_t* errors_before) {
  *own = NULL;
  if (!*diagnostics) {
    HRX_RETURN_IF_ERROR(hrx_loom_diagnostics_create(0, allocator, own));
    *diagnostics = *own;
  }
  *errors_before = hrx_loom_diagnostics_error_count(*diagnostics);
  return HRX_OK;
}

hrx_status_t loom_diag_result(const hrx_loom_diagnostics_t* d,
                              size_t errors_before, const char* what) {
  HRX_RETURN_IF_ERROR(loom_diag_status(d));
  size_t errors = hrx_loom_diagnostics_error_count(d) - errors_before;
  if (errors == 0) return HRX_OK;
  for (size_t i = 0; i < d->count; ++i) {
    const hrx_loom_diagnostic_t* first = &d->entries[i].public;
    if (first->severity != HRX_LOOM_SEVERITY_ERROR) continue;
    char file[1024];
    return hrx_make_status(
        HRX_STATUS_INVALID_ARGUMENT,
        "%s failed with %zu error%s (first: %s:%u:%u: %s)", what, errors,
        errors == 1 ? "" : "s",
        hrx_escape_text(first->file, strlen(first->file), file, sizeof(file)),
        first->line, first->column, first->message);
  }
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "%s failed with %zu "
                         "errors", what, errors);
}

static const char* loom_severity_string(hrx_loom_severity_t severity) {
  switch (severity) {
    case HRX_LOOM_SEVERITY_NOTE: return "note";
    case HRX_LOOM_SEVERITY_WARNING: return "warning";
    case HRX_LOOM_SEVERITY_ERROR: return "error";
  }
  return "error";
}

/* Appends |length| bytes of a source line escaped, but with tabs kept, so
 * the caret line below can align under them. */
static hrx_status_t loom_append_line(hrx_string_builder_t* b, const char* text,
                                     size_t length) {
  size_t start = 0;
  for (size_t i = 0; i <= length; ++i) {
    if (i < length && text[i] != '\t') continue;
    HRX_RETURN_IF_ERROR(
        hrx_string_builder_append_escaped(b, text + start, i - start));
    if (i < length) HRX_RETURN_IF_ERROR(hrx_string_builder_append(b, "\t", 1));
    start = i + 1;
  }
  return HRX_OK;
}

/* The source line, then a caret line marking the span: padded the width of
 * the escaped text before the span, as long as the escaped span. */
static hrx_status_t loom_append_excerpt(hrx_string_builder_t* b,
                                        const hrx_loom_diagnostic_t* x) {
  size_t line_length = strlen(x->source_line);
  size_t before = x->column - 1 < line_length ? x->column - 1 : line_length;
  size_t span = x->length < line_length - before ? x->length
                                                 : line_length - before;
  HRX_RETURN_IF_ERROR(hrx_string_builder_append(b, "  ", 2));
  HRX_RETURN_IF_ERROR(loom_append_line(b, x->source_line, line_length));
  HRX_RETURN_IF_ERROR(hrx_string_builder_append(b, "\n  ", 3));
  size_t mark = b->length;
  HRX_RETURN_IF_ERROR(loom_append_line(b, x->source_line, before));
  for (size_t i = mark; i < b->length; ++i) {
    if (b->data[i] != '\t') b->data[i] = ' ';
  }
  mark = b->length;
  HRX_RETURN_IF_ERROR(loom_append_line(b, x->source_line + before, span));
  size_t width = b->length - mark;
  hrx_string_builder_truncate(b, mark);
  HRX_RETURN_IF_ERROR(hrx_string_builder_append(b, "^", 1));
  for (size_t i = 1; i < width; ++i) {
    HRX_RETURN_IF_ERROR(hrx_string_builder_append(b, "~", 1));
  }
  return hrx_string_builder_append(b, "\n", 1);
}

hrx_status_t hrx_loom_diagnostics_format(const hrx_loom_diagnostics_t* d,
                                         hrx_string_builder_t* b) {
  for (size_t i = 0; i < d->count; ++i) {
    const hrx_loom_diagnostic_t* x = &d->entries[i].public;
    if (x->line || x->file[0]) {
      HRX_RETURN_IF_ERROR(
          hrx_string_builder_append_escaped(b, x->file, strlen(x->file)));
      if (x->line) {
        HRX_RETURN_IF_ERROR(
            hrx_string_builder_appendf(b, ":%u:%u", x->line, x->column));
      }
      HRX_RETURN_IF_ERROR(hrx_string_builder_append(b, ": ", 2));
    }
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
        b, "%s[%s]: %s\n", loom_severity_string(x->severity),
        hrx_loom_diag_code_string(x->code), x->message));
    if (x->line) HRX_RETURN_IF_ERROR(loom_append_excerpt(b, x));
  }
  return HRX_OK;
}
