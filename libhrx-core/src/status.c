#include "hrx/core/status.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hrx_status_s {
  hrx_status_code_t code;
  bool is_static;
  const char* message;  /* points into the same allocation */
  size_t context_count;
  char** contexts;      /* owned strings, innermost first */
};

/* One immutable fallback per code, returned when a status cannot be
 * allocated. hrx_status_free() recognises them and does nothing. */
#define HRX_STATUS_FALLBACK(c) \
  [c] = {.code = (c), .is_static = true, .message = ""}
static const struct hrx_status_s hrx_status_fallbacks[HRX_STATUS_CODE_COUNT] = {
    HRX_STATUS_FALLBACK(HRX_STATUS_OK),
    HRX_STATUS_FALLBACK(HRX_STATUS_CANCELLED),
    HRX_STATUS_FALLBACK(HRX_STATUS_UNKNOWN),
    HRX_STATUS_FALLBACK(HRX_STATUS_INVALID_ARGUMENT),
    HRX_STATUS_FALLBACK(HRX_STATUS_DEADLINE_EXCEEDED),
    HRX_STATUS_FALLBACK(HRX_STATUS_NOT_FOUND),
    HRX_STATUS_FALLBACK(HRX_STATUS_ALREADY_EXISTS),
    HRX_STATUS_FALLBACK(HRX_STATUS_PERMISSION_DENIED),
    HRX_STATUS_FALLBACK(HRX_STATUS_RESOURCE_EXHAUSTED),
    HRX_STATUS_FALLBACK(HRX_STATUS_FAILED_PRECONDITION),
    HRX_STATUS_FALLBACK(HRX_STATUS_ABORTED),
    HRX_STATUS_FALLBACK(HRX_STATUS_OUT_OF_RANGE),
    HRX_STATUS_FALLBACK(HRX_STATUS_UNIMPLEMENTED),
    HRX_STATUS_FALLBACK(HRX_STATUS_INTERNAL),
    HRX_STATUS_FALLBACK(HRX_STATUS_UNAVAILABLE),
    HRX_STATUS_FALLBACK(HRX_STATUS_DATA_LOSS),
    HRX_STATUS_FALLBACK(HRX_STATUS_BUSY),
};

static const char* const hrx_status_code_names[HRX_STATUS_CODE_COUNT] = {
    [HRX_STATUS_OK] = "OK",
    [HRX_STATUS_CANCELLED] = "CANCELLED",
    [HRX_STATUS_UNKNOWN] = "UNKNOWN",
    [HRX_STATUS_INVALID_ARGUMENT] = "INVALID_ARGUMENT",
    [HRX_STATUS_DEADLINE_EXCEEDED] = "DEADLINE_EXCEEDED",
    [HRX_STATUS_NOT_FOUND] = "NOT_FOUND",
    [HRX_STATUS_ALREADY_EXISTS] = "ALREADY_EXISTS",
    [HRX_STATUS_PERMISSION_DENIED] = "PERMISSION_DENIED",
    [HRX_STATUS_RESOURCE_EXHAUSTED] = "RESOURCE_EXHAUSTED",
    [HRX_STATUS_FAILED_PRECONDITION] = "FAILED_PRECONDITION",
    [HRX_STATUS_ABORTED] = "ABORTED",
    [HRX_STATUS_OUT_OF_RANGE] = "OUT_OF_RANGE",
    [HRX_STATUS_UNIMPLEMENTED] = "UNIMPLEMENTED",
    [HRX_STATUS_INTERNAL] = "INTERNAL",
    [HRX_STATUS_UNAVAILABLE] = "UNAVAILABLE",
    [HRX_STATUS_DATA_LOSS] = "DATA_LOSS",
    [HRX_STATUS_BUSY] = "BUSY",
};

static hrx_status_t hrx_status_fallback(hrx_status_code_t code) {
  /* Fallbacks are never written through; the cast only satisfies the
   * public pointer type. */
  return (hrx_status_t)&hrx_status_fallbacks[code];
}

const char* hrx_status_code_string(hrx_status_code_t code) {
  if ((unsigned)code >= HRX_STATUS_CODE_COUNT) return "UNKNOWN_CODE";
  return hrx_status_code_names[code];
}

/* vsnprintf into a fresh heap string; NULL when memory is short or the
 * format is unusable. */
static char* hrx_vformat_alloc(size_t prefix, const char* format,
                               va_list args, char** out_text)
    HRX_PRINTF(2, 0);
static char* hrx_vformat_alloc(size_t prefix, const char* format,
                               va_list args, char** out_text) {
  va_list measure;
  va_copy(measure, args);
  int length = vsnprintf(NULL, 0, format, measure);
  va_end(measure);
  if (length < 0) length = 0;
  char* block = malloc(prefix + (size_t)length + 1);
  if (!block) return NULL;
  char* text = block + prefix;
  if (length > 0) {
    vsnprintf(text, (size_t)length + 1, format, args);
  } else {
    text[0] = '\0';
  }
  *out_text = text;
  return block;
}

static hrx_status_code_t hrx_failure_code(hrx_status_code_t code) {
  if (code == HRX_STATUS_OK || (unsigned)code >= HRX_STATUS_CODE_COUNT) {
    return HRX_STATUS_INTERNAL;
  }
  return code;
}

hrx_status_t hrx_status_from_code(hrx_status_code_t code) {
  return hrx_status_fallback(hrx_failure_code(code));
}

hrx_status_t hrx_make_status_v(hrx_status_code_t code, const char* format,
                               va_list args) {
  code = hrx_failure_code(code);
  char* text = NULL;
  char* block = NULL;
  if (format) {
    block = hrx_vformat_alloc(sizeof(struct hrx_status_s), format, args,
                              &text);
  } else {
    block = malloc(sizeof(struct hrx_status_s) + 1);
    if (block) {
      text = block + sizeof(struct hrx_status_s);
      text[0] = '\0';
    }
  }
  if (!block) return hrx_status_fallback(code);
  struct hrx_status_s* status = (struct hrx_status_s*)block;
  status->code = code;
  status->is_static = false;
  status->message = text;
  status->context_count = 0;
  status->contexts = NULL;
  return status;
}

hrx_status_t hrx_make_status(hrx_status_code_t code, const char* format,
                             ...) {
  va_list args;
  va_start(args, format);
  hrx_status_t status = hrx_make_status_v(code, format, args);
  va_end(args);
  return status;
}

static hrx_status_code_t hrx_status_code_from_errno(int error_number) {
  switch (error_number) {
    case ENOENT: return HRX_STATUS_NOT_FOUND;
    case EACCES:
    case EPERM: return HRX_STATUS_PERMISSION_DENIED;
    case EEXIST: return HRX_STATUS_ALREADY_EXISTS;
    case ENOMEM:
    case ENOSPC:
    case EMFILE:
    case ENFILE:
    case EDQUOT: return HRX_STATUS_RESOURCE_EXHAUSTED;
    case EAGAIN:
#if EWOULDBLOCK != EAGAIN
    case EWOULDBLOCK:
#endif
    case EBUSY: return HRX_STATUS_BUSY;
    case ETIMEDOUT: return HRX_STATUS_DEADLINE_EXCEEDED;
    case EINVAL:
    case ENAMETOOLONG:
    case ENOTDIR:
    case ELOOP:
    case EISDIR: return HRX_STATUS_INVALID_ARGUMENT;
    case EIO: return HRX_STATUS_DATA_LOSS;
    case ENODEV:
    case ENXIO: return HRX_STATUS_UNAVAILABLE;
    case ECANCELED: return HRX_STATUS_CANCELLED;
    case ENOSYS:
    case EOPNOTSUPP: return HRX_STATUS_UNIMPLEMENTED;
    default: return HRX_STATUS_INTERNAL;
  }
}

hrx_status_t hrx_status_from_errno(int error_number, const char* format,
                                   ...) {
  char prefix[512] = "";
  if (format) {
    va_list args;
    va_start(args, format);
    vsnprintf(prefix, sizeof(prefix), format, args);
    va_end(args);
  }
  char reason[128];
  /* GNU strerror_r may return a static string instead of filling reason. */
  const char* text = strerror_r(error_number, reason, sizeof(reason));
  return hrx_make_status(hrx_status_code_from_errno(error_number),
                         "%s (errno %d: %s)", prefix, error_number, text);
}

hrx_status_t hrx_status_annotate(hrx_status_t status, const char* format,
                                 ...) {
  if (status == HRX_OK) return HRX_OK;
  if (status->is_static) {
    hrx_status_t copy = hrx_make_status(status->code, NULL);
    if (copy->is_static) return status;
    status = copy;
  }
  char** grown = realloc(status->contexts,
                         (status->context_count + 1) * sizeof(char*));
  if (!grown) return status;
  status->contexts = grown;
  if (!format) return status;
  char* text = NULL;
  va_list args;
  va_start(args, format);
  char* block = hrx_vformat_alloc(0, format, args, &text);
  va_end(args);
  if (!block) return status;
  status->contexts[status->context_count++] = text;
  return status;
}

hrx_status_t hrx_status_join(hrx_status_t first, hrx_status_t second) {
  if (first != HRX_OK) {
    hrx_status_free(second);
    return first;
  }
  return second;
}

hrx_status_code_t hrx_status_code(hrx_status_t status) {
  return status ? status->code : HRX_STATUS_OK;
}

const char* hrx_status_message(hrx_status_t status) {
  return status ? status->message : "";
}

size_t hrx_status_context_count(hrx_status_t status) {
  return status ? status->context_count : 0;
}

const char* hrx_status_context_at(hrx_status_t status, size_t index) {
  if (!status || index >= status->context_count) return NULL;
  return status->contexts[index];
}

/* Appends |text| to a snprintf-style output, counting what does not fit. */
static void hrx_append(char* buffer, size_t capacity, size_t* length,
                       const char* text) {
  size_t n = strlen(text);
  if (*length < capacity) {
    size_t room = capacity - *length - 1;
    size_t copy = n < room ? n : room;
    memcpy(buffer + *length, text, copy);
    buffer[*length + copy] = '\0';
  }
  *length += n;
}

size_t hrx_status_format(hrx_status_t status, char* buffer,
                         size_t capacity) {
  size_t length = 0;
  if (capacity > 0) buffer[0] = '\0';
  hrx_append(buffer, capacity, &length,
             hrx_status_code_string(hrx_status_code(status)));
  if (status && status->message[0]) {
    hrx_append(buffer, capacity, &length, ": ");
    hrx_append(buffer, capacity, &length, status->message);
  }
  for (size_t i = 0; i < hrx_status_context_count(status); ++i) {
    hrx_append(buffer, capacity, &length, "; ");
    hrx_append(buffer, capacity, &length, status->contexts[i]);
  }
  return length;
}

void hrx_status_free(hrx_status_t status) {
  if (!status || status->is_static) return;
  for (size_t i = 0; i < status->context_count; ++i) {
    free(status->contexts[i]);
  }
  free(status->contexts);
  free(status);
}
