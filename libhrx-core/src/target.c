/* Profile targets: "host" or a bare gfx architecture. */
#include "hrx/core/target.h"

#include <string.h>

static bool hrx_target_is_lower_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
}

bool hrx_target_is_generic(const char* text) {
  static const char suffix[] = "-generic";
  if (!text) return false;
  size_t length = strcspn(text, ":");
  return length > sizeof(suffix) - 1 &&
         !strncmp(text + length - (sizeof(suffix) - 1), suffix,
                  sizeof(suffix) - 1);
}

hrx_status_t hrx_target_parse(const char* text, hrx_target_t* out) {
  memset(out, 0, sizeof(*out));
  if (!text || !text[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "no target given (a profile target is 'host' or "
                           "a gfx architecture such as 'gfx1151')");
  }
  if (hrx_target_is_generic(text)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "'%s' is a source target, not a profile: code is "
                           "generated for a device's own architecture "
                           "(such as gfx1151), which sources declaring it "
                           "compile for", text);
  }
  /* Device feature suffixes ("gfx1151:xnack-") name a mode, not a
   * processor. */
  const size_t length = strcspn(text, ":");
  if (length == 4 && !strncmp(text, "host", 4) && !text[4]) {
    out->kind = HRX_TARGET_HOST;
    memcpy(out->name, "host", 5);
    return HRX_OK;
  }
  bool gfx = length > 3 && !strncmp(text, "gfx", 3);
  for (size_t i = 3; gfx && i < length; ++i) {
    gfx = hrx_target_is_lower_alnum(text[i]);
  }
  if (!gfx || length >= HRX_TARGET_NAME_CAPACITY) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "'%s' is not a profile target ('host' or a gfx "
                           "architecture such as 'gfx1151', optionally "
                           "followed by ':feature' suffixes)", text);
  }
  out->kind = HRX_TARGET_AMDGPU;
  memcpy(out->name, text, length);
  out->name[length] = '\0';
  return HRX_OK;
}
