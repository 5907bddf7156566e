#include "hrx/core/string_builder.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void hrx_string_builder_init(hrx_allocator_t allocator,
                             hrx_string_builder_t* out_builder) {
  *out_builder = (hrx_string_builder_t){.allocator = allocator};
}

void hrx_string_builder_deinit(hrx_string_builder_t* builder) {
  hrx_allocator_free(builder->allocator, builder->data);
  builder->data = NULL;
  builder->length = 0;
  builder->capacity = 0;
}

hrx_status_t hrx_string_builder_reserve(hrx_string_builder_t* builder,
                                        size_t additional) {
  size_t needed;
  if (__builtin_add_overflow(builder->length, additional, &needed) ||
      __builtin_add_overflow(needed, 1, &needed)) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "string of %zu + %zu bytes overflows",
                           builder->length, additional);
  }
  if (needed <= builder->capacity) return HRX_OK;
  size_t capacity = builder->capacity ? builder->capacity : 64;
  while (capacity < needed) {
    capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
  }
  void* data = builder->data;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_realloc(builder->allocator, capacity, &data));
  builder->data = data;
  builder->capacity = capacity;
  return HRX_OK;
}

hrx_status_t hrx_string_builder_append(hrx_string_builder_t* builder,
                                       const void* bytes, size_t length) {
  HRX_RETURN_IF_ERROR(hrx_string_builder_reserve(builder, length));
  if (length) memcpy(builder->data + builder->length, bytes, length);
  builder->length += length;
  builder->data[builder->length] = '\0';
  return HRX_OK;
}

hrx_status_t hrx_string_builder_append_cstr(hrx_string_builder_t* builder,
                                            const char* text) {
  return hrx_string_builder_append(builder, text, strlen(text));
}

hrx_status_t hrx_string_builder_appendf_v(hrx_string_builder_t* builder,
                                          const char* format, va_list args) {
  va_list measure;
  va_copy(measure, args);
  int length = vsnprintf(NULL, 0, format, measure);
  va_end(measure);
  if (length < 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unusable format string '%s'", format);
  }
  HRX_RETURN_IF_ERROR(hrx_string_builder_reserve(builder, (size_t)length));
  vsnprintf(builder->data + builder->length, (size_t)length + 1, format,
            args);
  builder->length += (size_t)length;
  return HRX_OK;
}

hrx_status_t hrx_string_builder_appendf(hrx_string_builder_t* builder,
                                        const char* format, ...) {
  va_list args;
  va_start(args, format);
  hrx_status_t status = hrx_string_builder_appendf_v(builder, format, args);
  va_end(args);
  return status;
}

hrx_status_t hrx_string_builder_append_json_string(
    hrx_string_builder_t* builder, const char* text, size_t length) {
  size_t start = builder->length;
  hrx_status_t status = hrx_string_builder_append(builder, "\"", 1);
  size_t run = 0; /* bytes at text[i - run, i) that need no escape */
  for (size_t i = 0; i < length && status == HRX_OK; ++i) {
    unsigned char c = (unsigned char)text[i];
    const char* escape = NULL;
    char hex[8];
    switch (c) {
      case '"': escape = "\\\""; break;
      case '\\': escape = "\\\\"; break;
      case '\n': escape = "\\n"; break;
      case '\r': escape = "\\r"; break;
      case '\t': escape = "\\t"; break;
      case '\b': escape = "\\b"; break;
      case '\f': escape = "\\f"; break;
      default:
        if (c < 0x20) {
          snprintf(hex, sizeof(hex), "\\u%04x", c);
          escape = hex;
        }
    }
    if (!escape) {
      ++run;
      continue;
    }
    status = hrx_string_builder_append(builder, text + i - run, run);
    run = 0;
    if (status == HRX_OK) status = hrx_string_builder_append_cstr(builder,
                                                                  escape);
  }
  if (status == HRX_OK) {
    status = hrx_string_builder_append(builder, text + length - run, run);
  }
  if (status == HRX_OK) status = hrx_string_builder_append(builder, "\"", 1);
  if (status != HRX_OK) hrx_string_builder_truncate(builder, start);
  return status;
}

void hrx_string_builder_truncate(hrx_string_builder_t* builder,
                                 size_t length) {
  if (length >= builder->length) return;
  builder->length = length;
  builder->data[length] = '\0';
}

const char* hrx_string_builder_cstr(const hrx_string_builder_t* builder) {
  return builder->data ? builder->data : "";
}

hrx_status_t hrx_string_builder_take(hrx_string_builder_t* builder,
                                     char** out_text, size_t* out_length) {
  *out_text = NULL;
  if (out_length) *out_length = 0;
  HRX_RETURN_IF_ERROR(hrx_string_builder_reserve(builder, 0));
  builder->data[builder->length] = '\0';
  *out_text = builder->data;
  if (out_length) *out_length = builder->length;
  builder->data = NULL;
  builder->length = 0;
  builder->capacity = 0;
  return HRX_OK;
}
