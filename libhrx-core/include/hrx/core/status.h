/* Status values returned by every fallible HRX call.
 *
 * Success is HRX_OK, which is NULL. A failure is an owned object holding a
 * code, a message and context lines added as the status travels up the call
 * stack; whoever receives a failure either returns it (optionally annotated)
 * or frees it with hrx_status_free().
 *
 * Building a status never fails: when memory is short the constructors fall
 * back to a static status that carries the code alone, and freeing such a
 * status is a no-op. Status objects are immutable once returned and may be
 * read from any thread; annotate/free must be called by its single owner.
 */
#ifndef HRX_CORE_STATUS_H_
#define HRX_CORE_STATUS_H_

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "hrx/core/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hrx_status_code_e {
  HRX_STATUS_OK = 0,
  HRX_STATUS_CANCELLED,
  HRX_STATUS_UNKNOWN,
  HRX_STATUS_INVALID_ARGUMENT,
  HRX_STATUS_DEADLINE_EXCEEDED,
  HRX_STATUS_NOT_FOUND,
  HRX_STATUS_ALREADY_EXISTS,
  HRX_STATUS_PERMISSION_DENIED,
  HRX_STATUS_RESOURCE_EXHAUSTED,
  HRX_STATUS_FAILED_PRECONDITION,
  HRX_STATUS_ABORTED,
  HRX_STATUS_OUT_OF_RANGE,
  HRX_STATUS_UNIMPLEMENTED,
  HRX_STATUS_INTERNAL,
  HRX_STATUS_UNAVAILABLE,
  HRX_STATUS_DATA_LOSS,
  HRX_STATUS_BUSY,
  HRX_STATUS_CODE_COUNT, /* not a code */
} hrx_status_code_t;

typedef struct hrx_status_s* hrx_status_t;

#define HRX_OK ((hrx_status_t)NULL)

/* Returns from the calling function when |expr| fails. */
#define HRX_RETURN_IF_ERROR(expr)            \
  do {                                       \
    hrx_status_t hrx_status_tmp_ = (expr);   \
    if (hrx_status_tmp_ != HRX_OK) {         \
      return hrx_status_tmp_;                \
    }                                        \
  } while (0)

/* Creates a failure with |code| (which must not be HRX_STATUS_OK; an OK or
 * out-of-range code becomes HRX_STATUS_INTERNAL) and a printf message. */
HRX_API HRX_MUST_USE hrx_status_t hrx_make_status(hrx_status_code_t code,
                                                  const char* format, ...)
    HRX_PRINTF(2, 3);
HRX_API HRX_MUST_USE hrx_status_t hrx_make_status_v(hrx_status_code_t code,
                                                    const char* format,
                                                    va_list args)
    HRX_PRINTF(2, 0);

/* A failure with |code| and no message that never allocates, for answers
 * on hot paths ("not done yet" from a poll); freeing it does nothing. An
 * OK or out-of-range code becomes HRX_STATUS_INTERNAL. */
HRX_API HRX_MUST_USE hrx_status_t hrx_status_from_code(
    hrx_status_code_t code);

/* Creates a failure from an errno value: ENOENT -> NOT_FOUND, EACCES/EPERM
 * -> PERMISSION_DENIED, EEXIST -> ALREADY_EXISTS, ENOMEM/ENOSPC/EMFILE ->
 * RESOURCE_EXHAUSTED, EAGAIN/EBUSY/EWOULDBLOCK -> BUSY, ETIMEDOUT ->
 * DEADLINE_EXCEEDED, EINVAL -> INVALID_ARGUMENT, EIO -> DATA_LOSS, ENODEV/
 * ENXIO -> UNAVAILABLE, others -> INTERNAL. The message ends with
 * "(errno N: strerror text)". */
HRX_API HRX_MUST_USE hrx_status_t hrx_status_from_errno(int error_number,
                                                        const char* format,
                                                        ...)
    HRX_PRINTF(2, 3);

/* Adds a context line to |status| and returns it (possibly moved). OK stays
 * OK. When memory is short the context is dropped, never the status. */
HRX_API HRX_MUST_USE hrx_status_t hrx_status_annotate(hrx_status_t status,
                                                      const char* format, ...)
    HRX_PRINTF(2, 3);

/* Keeps |first| when it failed, otherwise returns |second|; the status that
 * is not returned is freed. Lets cleanup paths report their own failures. */
HRX_API HRX_MUST_USE hrx_status_t hrx_status_join(hrx_status_t first,
                                                  hrx_status_t second);

HRX_API hrx_status_code_t hrx_status_code(hrx_status_t status);
static inline bool hrx_status_is_ok(hrx_status_t status) {
  return status == HRX_OK;
}
static inline bool hrx_status_is(hrx_status_t status,
                                 hrx_status_code_t code) {
  return hrx_status_code(status) == code;
}

/* "OK", "INVALID_ARGUMENT", ...; "UNKNOWN_CODE" for values out of range. */
HRX_API const char* hrx_status_code_string(hrx_status_code_t code);

/* The primary message, borrowed from |status| ("" for OK or when memory was
 * short when the status was built). */
HRX_API const char* hrx_status_message(hrx_status_t status);

/* Number of context lines, and the line at |index| (innermost first). */
HRX_API size_t hrx_status_context_count(hrx_status_t status);
HRX_API const char* hrx_status_context_at(hrx_status_t status, size_t index);

/* Formats "CODE: message; context 1; context 2" into |buffer| the way
 * snprintf does: returns the length of the whole text (excluding the NUL)
 * and writes at most |capacity| bytes, always NUL-terminated when capacity
 * is nonzero. */
HRX_API size_t hrx_status_format(hrx_status_t status, char* buffer,
                                 size_t capacity);

/* Frees |status|; NULL and static fallbacks are accepted. */
HRX_API void hrx_status_free(hrx_status_t status);

/* Frees |status| deliberately, for errors that are expected and handled. */
static inline void hrx_status_ignore(hrx_status_t status) {
  hrx_status_free(status);
}

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_STATUS_H_ */
