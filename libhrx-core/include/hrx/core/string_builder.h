/* A growable byte string for building text (messages, JSON, listings).
 *
 * A builder is a plain struct the caller owns. Appends that cannot grow the
 * buffer fail with RESOURCE_EXHAUSTED and leave the content as it was. The
 * content is always NUL-terminated once anything was appended.
 */
#ifndef HRX_CORE_STRING_BUILDER_H_
#define HRX_CORE_STRING_BUILDER_H_

#include <stdarg.h>
#include <stddef.h>

#include "hrx/core/allocator.h"
#include "hrx/core/api.h"
#include "hrx/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_string_builder_t {
  hrx_allocator_t allocator;
  char* data;
  size_t length;
  size_t capacity;
} hrx_string_builder_t;

HRX_API void hrx_string_builder_init(hrx_allocator_t allocator,
                                     hrx_string_builder_t* out_builder);
HRX_API void hrx_string_builder_deinit(hrx_string_builder_t* builder);

/* Makes room for |additional| more bytes (plus the NUL). */
HRX_API HRX_MUST_USE hrx_status_t hrx_string_builder_reserve(
    hrx_string_builder_t* builder, size_t additional);

HRX_API HRX_MUST_USE hrx_status_t hrx_string_builder_append(
    hrx_string_builder_t* builder, const void* bytes, size_t length);
HRX_API HRX_MUST_USE hrx_status_t hrx_string_builder_append_cstr(
    hrx_string_builder_t* builder, const char* text);
HRX_API HRX_MUST_USE hrx_status_t hrx_string_builder_appendf(
    hrx_string_builder_t* builder, const char* format, ...) HRX_PRINTF(2, 3);
HRX_API HRX_MUST_USE hrx_status_t hrx_string_builder_appendf_v(
    hrx_string_builder_t* builder, const char* format, va_list args)
    HRX_PRINTF(2, 0);

/* Appends |length| bytes of |text| as a quoted JSON string, escaping quotes,
 * backslashes and control characters; bytes >= 0x80 pass through, so valid
 * UTF-8 stays valid. */
HRX_API HRX_MUST_USE hrx_status_t hrx_string_builder_append_json_string(
    hrx_string_builder_t* builder, const char* text, size_t length);

/* Shortens the content to |length| bytes (no-op if already shorter). */
HRX_API void hrx_string_builder_truncate(hrx_string_builder_t* builder,
                                         size_t length);

/* The content ("" when empty), borrowed until the next append. */
HRX_API const char* hrx_string_builder_cstr(
    const hrx_string_builder_t* builder);

/* Hands the buffer to the caller (free with the builder's allocator) and
 * leaves the builder empty. Never NULL on success. */
HRX_API HRX_MUST_USE hrx_status_t hrx_string_builder_take(
    hrx_string_builder_t* builder, char** out_text, size_t* out_length);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_STRING_BUILDER_H_ */
