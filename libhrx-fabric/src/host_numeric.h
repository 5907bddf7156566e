/* Numeric helpers of the host executor: integer widths and the f16 / bf16
 * / f8 encodings (round to nearest even). */
#ifndef HRX_FABRIC_HOST_NUMERIC_H_
#define HRX_FABRIC_HOST_NUMERIC_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hrx/core/f8.h"
#include "hrx/core/half.h"
#include "hrx/fabric/host_isa.h"

static inline uint32_t hrx_type_bits(uint8_t type) {
  static const uint8_t bits[HRX_HOST_TYPE_COUNT] = {1, 8, 16, 32, 64, 16,
                                                    16, 32, 64, 8, 8};
  return bits[type];
}

static inline uint32_t hrx_type_bytes(uint8_t type) {
  return type == HRX_HOST_TYPE_I1 ? 1 : hrx_type_bits(type) / 8;
}

/* Sign-extends an integer to 64 bits from its type's width. */
static inline uint64_t hrx_norm(uint64_t v, uint8_t type) {
  switch (type) {
    case HRX_HOST_TYPE_I1: return v & 1;
    case HRX_HOST_TYPE_I8: return (uint64_t)(int64_t)(int8_t)v;
    case HRX_HOST_TYPE_I16: return (uint64_t)(int64_t)(int16_t)v;
    case HRX_HOST_TYPE_I32: return (uint64_t)(int64_t)(int32_t)v;
    default: return v;
  }
}

/* The value's bits as an unsigned number of its width. */
static inline uint64_t hrx_unsigned(uint64_t v, uint8_t type) {
  uint32_t bits = hrx_type_bits(type);
  return bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}

static inline float hrx_f32(uint64_t v) {
  uint32_t u = (uint32_t)v;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static inline uint32_t hrx_f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static inline uint64_t hrx_from_f32(float f) { return hrx_f32_bits(f); }

static inline double hrx_f64(uint64_t v) {
  double d;
  memcpy(&d, &v, 8);
  return d;
}

static inline uint64_t hrx_from_f64(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

static inline float hrx_bf16_to_f32(uint16_t h) {
  return hrx_f32(hrx_bf16_to_f32_bits(h));
}

static inline uint16_t hrx_f32_to_bf16(float f) {
  return hrx_f32_bits_to_bf16((uint32_t)hrx_from_f32(f));
}

static inline float hrx_f16_to_f32(uint16_t h) {
  return hrx_f32(hrx_f16_to_f32_bits(h));
}

static inline uint16_t hrx_f32_to_f16(float f) {
  return hrx_f32_bits_to_f16((uint32_t)hrx_from_f32(f));
}

/* Reads / writes a non-f64 float register value as f32. */
static inline float hrx_load_f(uint8_t type, uint64_t v) {
  switch (type) {
    case HRX_HOST_TYPE_F16: return hrx_f16_to_f32((uint16_t)v);
    case HRX_HOST_TYPE_BF16: return hrx_bf16_to_f32((uint16_t)v);
    case HRX_HOST_TYPE_F8E4M3:
      return hrx_f32(hrx_f8e4m3_to_f32_bits((uint8_t)v));
    case HRX_HOST_TYPE_F8E5M2:
      return hrx_f32(hrx_f8e5m2_to_f32_bits((uint8_t)v));
    default: return hrx_f32(v);
  }
}

static inline uint64_t hrx_store_f(uint8_t type, float f) {
  switch (type) {
    case HRX_HOST_TYPE_F16: return hrx_f32_to_f16(f);
    case HRX_HOST_TYPE_BF16: return hrx_f32_to_bf16(f);
    case HRX_HOST_TYPE_F8E4M3:
      return hrx_f32_bits_to_f8e4m3(hrx_f32_bits(f));
    case HRX_HOST_TYPE_F8E5M2:
      return hrx_f32_bits_to_f8e5m2(hrx_f32_bits(f));
    default: return hrx_from_f32(f);
  }
}

#endif /* HRX_FABRIC_HOST_NUMERIC_H_ */
