/* Little-endian byte encoding for HRX's binary formats (code objects,
 * launch programs). Cursor-based: each call advances |*cursor|; callers
 * check lengths before reading. */
#ifndef HRX_CORE_BYTES_H_
#define HRX_CORE_BYTES_H_

#include <stdint.h>

static inline void hrx_put_le(uint8_t** cursor, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) *(*cursor)++ = (uint8_t)(value >> (8 * i));
}

static inline uint64_t hrx_get_le(const uint8_t** cursor, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) {
    value |= (uint64_t)(*(*cursor)++) << (8 * i);
  }
  return value;
}

#endif /* HRX_CORE_BYTES_H_ */
