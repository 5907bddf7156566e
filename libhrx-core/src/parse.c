#include <stdlib.h>
#include <string.h>

#include "hrx/core/escape.h"

#include "hrx/core/parse.h"

hrx_status_t hrx_parse_u64(const char* text, uint64_t min, uint64_t max,
                           const char* what, uint64_t* out_value) {
  if (!what) what = "number";
  if (!text || !text[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "%s is empty", what);
  }
  /* The text is shown escaped and cut: it may come from anywhere. */
  char shown[64];
  uint64_t value = 0;
  for (const char* c = text; *c; ++c) {
    if (*c < '0' || *c > '9') {
      return hrx_make_status(
          HRX_STATUS_INVALID_ARGUMENT,
          "%s '%s' is not a non-negative decimal integer", what,
          hrx_escape_text(text, strlen(text), shown, sizeof(shown)));
    }
    uint64_t digit = (uint64_t)(*c - '0');
    if (value > (UINT64_MAX - digit) / 10) {
      return hrx_make_status(
          HRX_STATUS_INVALID_ARGUMENT, "%s '%s' is too large", what,
          hrx_escape_text(text, strlen(text), shown, sizeof(shown)));
    }
    value = value * 10 + digit;
  }
  if (value < min || value > max) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "%s %llu is outside [%llu, %llu]", what,
                           (unsigned long long)value,
                           (unsigned long long)min, (unsigned long long)max);
  }
  *out_value = value;
  return HRX_OK;
}

hrx_status_t hrx_env_u64(const char* name, uint64_t min, uint64_t max,
                         uint64_t* out_value, bool* out_present) {
  if (out_present) *out_present = false;
  const char* text = getenv(name);
  if (!text || !text[0]) return HRX_OK;
  HRX_RETURN_IF_ERROR(hrx_parse_u64(text, min, max, name, out_value));
  if (out_present) *out_present = true;
  return HRX_OK;
}
