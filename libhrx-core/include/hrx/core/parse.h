/* Checked parsing of numbers that come from people: command-line arguments
 * and environment variables.
 *
 * One rule everywhere: decimal digits only (no sign, no leading or trailing
 * space, no junk after the number), a value inside [min, max], and a message
 * that names what was being parsed. strtoul() and friends accept "-1" (as a
 * huge value), " 7", "7x" and silently saturate on overflow; callers that
 * passed their results on evicted every kernel for "hrx gc 1e30". Every
 * function is thread-safe.
 */
#ifndef HRX_CORE_PARSE_H_
#define HRX_CORE_PARSE_H_

#include <stdbool.h>
#include <stdint.h>

#include "hrx/core/api.h"
#include "hrx/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses |text| as an unsigned decimal integer in [min, max]. Fails with
 * INVALID_ARGUMENT naming |what| for empty text, a sign, a non-digit or
 * overflow past UINT64_MAX, and with OUT_OF_RANGE for a value outside the
 * bounds. |*out_value| is written only on success. */
HRX_API HRX_MUST_USE hrx_status_t hrx_parse_u64(const char* text,
                                                uint64_t min, uint64_t max,
                                                const char* what,
                                                uint64_t* out_value);

/* Reads environment variable |name| with hrx_parse_u64's rules. Unset or
 * empty leaves |*out_value| alone and sets |*out_present| (may be NULL) to
 * false; any other value that is not a number in [min, max] fails with a
 * message naming the variable, never silently falls back. */
HRX_API HRX_MUST_USE hrx_status_t hrx_env_u64(const char* name, uint64_t min,
                                              uint64_t max,
                                              uint64_t* out_value,
                                              bool* out_present);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_PARSE_H_ */
