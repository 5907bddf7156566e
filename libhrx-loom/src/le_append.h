/* Appends little-endian integers to a string builder: how every binary
 * format loom writes (host code objects, native objects, launch tables)
 * encodes its fields, in one place. */
#ifndef HRX_LOOM_LE_APPEND_H_
#define HRX_LOOM_LE_APPEND_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core/bytes.h"
#include "hrx/core/string_builder.h"

/* The low |bytes| (at most 8) bytes of |value|, least significant first. */
static inline hrx_status_t loom_append_le(hrx_string_builder_t* out,
                                          uint64_t value, int bytes) {
  uint8_t buffer[8];
  uint8_t* cursor = buffer;
  hrx_put_le(&cursor, value, bytes);
  return hrx_string_builder_append(out, buffer, (size_t)bytes);
}

#endif /* HRX_LOOM_LE_APPEND_H_ */
