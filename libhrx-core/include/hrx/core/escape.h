/* Showing untrusted text: names from archives, model files, kernel sources
 * and caches end up in messages and listings, where a raw escape sequence
 * could rewrite the user's terminal or forge a line of output.
 *
 * The escaped form keeps printable ASCII and valid UTF-8 (other than C1
 * controls) as they are, writes \n, \r, \t and \\ as such, and every other
 * byte (controls, DEL, bytes of invalid UTF-8) as \xNN. Thread-safe.
 */
#ifndef HRX_CORE_ESCAPE_H_
#define HRX_CORE_ESCAPE_H_

#include <stdbool.h>
#include <stddef.h>

#include "hrx/core/api.h"
#include "hrx/core/status.h"
#include "hrx/core/string_builder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A buffer size that fits a name of a few dozen characters escaped. */
#define HRX_ESCAPED_NAME_CAPACITY 256

/* Writes the escaped form of |length| bytes of |text| into |out| (always
 * NUL-terminated when |capacity| > 0) and returns |out|, so it can sit in a
 * printf argument list. Text whose escaped form does not fit ends in
 * "..." and never splits an escape. */
HRX_API const char* hrx_escape_text(const char* text, size_t length,
                                    char* out, size_t capacity);

/* Appends the escaped form of |length| bytes of |text|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_string_builder_append_escaped(
    hrx_string_builder_t* builder, const char* text, size_t length);

/* True when |length| bytes of |text| are valid UTF-8 (no overlong forms,
 * no surrogates, nothing past U+10FFFF). */
HRX_API bool hrx_utf8_valid(const char* text, size_t length);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_ESCAPE_H_ */
