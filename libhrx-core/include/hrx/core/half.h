/* IEEE binary16 (f16) and bfloat16 conversions with round-to-nearest-even,
 * on raw bit patterns. Shared by the compiler (constant folding) and the
 * host executor, which must round identically. */
#ifndef HRX_CORE_HALF_H_
#define HRX_CORE_HALF_H_

#include <stdint.h>

static inline uint16_t hrx_f32_bits_to_bf16(uint32_t bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    return (uint16_t)((bits >> 16) | 0x40u); /* quiet NaN */
  }
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

static inline uint32_t hrx_bf16_to_f32_bits(uint16_t h) {
  return (uint32_t)h << 16;
}

static inline uint16_t hrx_f32_bits_to_f16(uint32_t bits) {
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t exponent = (bits >> 23) & 0xffu;
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) {
    return (uint16_t)(sign | 0x7c00u | (mantissa ? 0x200u : 0));
  }
  int32_t e = (int32_t)exponent - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    mantissa |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rest > mid || (rest == mid && (half & 1u))) half++;
    return (uint16_t)(sign | half);
  }
  uint32_t half = sign | ((uint32_t)e << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) half++;
  return (uint16_t)half;
}

static inline uint32_t hrx_f16_to_f32_bits(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return sign | 0x7f800000u | (mantissa << 13);
  if (exponent != 0) return sign | ((exponent + 112u) << 23) | (mantissa << 13);
  if (mantissa == 0) return sign;
  int shift = 0;
  while (!(mantissa & 0x400u)) {
    mantissa <<= 1;
    ++shift;
  }
  return sign | ((uint32_t)(113 - shift) << 23) | ((mantissa & 0x3ffu) << 13);
}

#endif /* HRX_CORE_HALF_H_ */
