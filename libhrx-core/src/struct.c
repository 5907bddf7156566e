#include "hrx/core/struct.h"

#include <string.h>

/* The caller's struct_size, checked against the first release's size. */
static hrx_status_t struct_caller_size(const char* type_name, const void* p,
                                       size_t first_size,
                                       uint32_t* out_size) {
  uint32_t caller_size = 0;
  memcpy(&caller_size, p, sizeof(caller_size));
  if (caller_size == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s.struct_size is 0: initialise it with "
                           "HRX_STRUCT_INIT(%s)",
                           type_name, type_name);
  }
  if (caller_size < first_size) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s.struct_size is %u bytes, smaller than any "
                           "release of %s (%zu bytes at least)",
                           type_name, caller_size, type_name, first_size);
  }
  *out_size = caller_size;
  return HRX_OK;
}

hrx_status_t hrx_struct_read(const char* type_name, const void* src,
                             size_t first_size, size_t size, void* dst) {
  memset(dst, 0, size);
  uint32_t own_size = (uint32_t)size;
  if (!src) {
    memcpy(dst, &own_size, sizeof(own_size));
    return HRX_OK;
  }
  uint32_t caller_size = 0;
  HRX_RETURN_IF_ERROR(
      struct_caller_size(type_name, src, first_size, &caller_size));
  const unsigned char* bytes = (const unsigned char*)src;
  for (size_t i = size; i < caller_size; ++i) {
    if (bytes[i] != 0) {
      return hrx_make_status(
          HRX_STATUS_INVALID_ARGUMENT,
          "%s is %u bytes and this library knows %zu: byte %zu of the "
          "unknown tail is not zero (a member this version does not "
          "support is set)",
          type_name, caller_size, size, i);
    }
  }
  memcpy(dst, src, caller_size < size ? caller_size : size);
  memcpy(dst, &own_size, sizeof(own_size));
  return HRX_OK;
}

hrx_status_t hrx_struct_write(const char* type_name, const void* src,
                              size_t first_size, size_t size, void* dst) {
  if (!dst) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: the output struct is NULL", type_name);
  }
  uint32_t caller_size = 0;
  HRX_RETURN_IF_ERROR(
      struct_caller_size(type_name, dst, first_size, &caller_size));
  unsigned char* bytes = (unsigned char*)dst;
  if (caller_size > size) memset(bytes + size, 0, caller_size - size);
  /* Everything after struct_size, which keeps the caller's value. */
  size_t written = caller_size < size ? caller_size : size;
  memcpy(bytes + sizeof(uint32_t), (const unsigned char*)src + sizeof(uint32_t),
         written - sizeof(uint32_t));
  return HRX_OK;
}
