/* 8-bit float storage formats and their conversions to and from f32, on raw
 * bit patterns. Shared by the host executor and the tests of every backend,
 * which must convert identically.
 *
 *   f8E4M3 (OCP FP8 E4M3FN): bias 7, 3 mantissa bits, no infinities; the
 *     only NaNs are 0x7f and 0xff; the largest finite value is 448.
 *   f8E5M2: bias 15, 2 mantissa bits, IEEE-like (0x7c is inf, 0x7d..0x7f
 *     NaN); the largest finite value is 57344.
 *
 * Widening is exact. A NaN widens to the canonical quiet f32 NaN with its
 * sign (0x7fc00000 | sign), which hrx/core/half.h and the GPU both narrow
 * to f16 0x7e00 and bf16 0x7fc0 (with the sign), so every backend agrees
 * bit for bit whatever the NaN's payload was.
 *
 * Narrowing rounds to nearest, ties to even, as if the exponent range were
 * unbounded, and does not saturate (the OCP 8-bit float specification's
 * non-saturating conversion): a result beyond the largest finite value
 * becomes NaN (0x7f | sign) for E4M3, infinity (0x7c | sign) for E5M2. So
 * for E4M3, 448 < |x| <= 464 rounds to 448 (the tie at 464 goes to the
 * even 448) and |x| > 464 is NaN; for E5M2, |x| >= 61440 is infinity. A
 * NaN narrows to 0x7f | sign (E4M3) or the quiet 0x7e | sign (E5M2). */
#ifndef HRX_CORE_F8_H_
#define HRX_CORE_F8_H_

#include <stdint.h>

/* An f32 |magnitude| in the subnormal range of a format (below 2^-6 for
 * E4M3, 2^-14 for E5M2) as the nearest (ties to even) count of the
 * format's smallest unit, whose f32 exponent field is |unit_exponent|
 * (118 for 2^-9, 111 for 2^-16). A count equal to the first normal's
 * mantissa step is that normal's encoding. */
static inline uint32_t hrx_f8_subnormal_units(uint32_t magnitude,
                                              uint32_t unit_exponent) {
  uint32_t exponent = magnitude >> 23;
  if (exponent == 0) return 0; /* zero and f32 subnormals: far below */
  uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  /* mantissa * 2^(exponent - 150) in units of 2^(unit_exponent - 127):
   * a right shift by unit_exponent + 23 - exponent. */
  uint32_t shift = unit_exponent + 23u - exponent;
  if (shift > 25) return 0; /* below half a unit */
  uint32_t units = mantissa >> shift;
  uint32_t rest = mantissa & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1u);
  if (rest > half || (rest == half && (units & 1u))) ++units;
  return units;
}

/* |mantissa| (nonzero when not zero) units of the format's smallest
 * subnormal, whose f32 exponent field is |unit_exponent|, as f32 bits. */
static inline uint32_t hrx_f8_subnormal_to_f32_bits(uint32_t sign,
                                                    uint32_t mantissa,
                                                    uint32_t unit_exponent) {
  if (mantissa == 0) return sign;
  uint32_t top = mantissa >= 4u ? 2u : mantissa >= 2u ? 1u : 0u;
  return sign | ((unit_exponent + top) << 23) |
         ((mantissa << (23u - top)) & 0x7fffffu);
}

static inline uint8_t hrx_f32_bits_to_f8e4m3(uint32_t bits) {
  uint8_t sign = (uint8_t)((bits >> 24) & 0x80u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return (uint8_t)(sign | 0x7fu);
  if (magnitude < 0x3c800000u) { /* below 2^-6: subnormal units of 2^-9 */
    return (uint8_t)(sign | hrx_f8_subnormal_units(magnitude, 118u));
  }
  uint32_t rounded = magnitude + 0x7ffffu + ((magnitude >> 20) & 1u);
  uint32_t code = (rounded >> 20) - (120u << 3); /* rebias 127 -> 7 */
  return (uint8_t)(sign | (code > 0x7eu ? 0x7fu : code));
}

static inline uint8_t hrx_f32_bits_to_f8e5m2(uint32_t bits) {
  uint8_t sign = (uint8_t)((bits >> 24) & 0x80u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return (uint8_t)(sign | 0x7eu);
  if (magnitude < 0x38800000u) { /* below 2^-14: subnormal units of 2^-16 */
    return (uint8_t)(sign | hrx_f8_subnormal_units(magnitude, 111u));
  }
  uint32_t rounded = magnitude + 0xfffffu + ((magnitude >> 21) & 1u);
  uint32_t code = (rounded >> 21) - (112u << 2); /* rebias 127 -> 15 */
  return (uint8_t)(sign | (code > 0x7cu ? 0x7cu : code));
}

static inline uint32_t hrx_f8e4m3_to_f32_bits(uint8_t f) {
  uint32_t sign = (uint32_t)(f & 0x80u) << 24;
  uint32_t exponent = (f >> 3) & 0xfu;
  uint32_t mantissa = f & 0x7u;
  if (exponent == 0xf && mantissa == 0x7) return sign | 0x7fc00000u;
  if (exponent != 0) {
    return sign | ((exponent + 120u) << 23) | (mantissa << 20);
  }
  return hrx_f8_subnormal_to_f32_bits(sign, mantissa, 118u);
}

static inline uint32_t hrx_f8e5m2_to_f32_bits(uint8_t f) {
  uint32_t sign = (uint32_t)(f & 0x80u) << 24;
  uint32_t exponent = (f >> 2) & 0x1fu;
  uint32_t mantissa = f & 0x3u;
  if (exponent == 0x1f) {
    return sign | (mantissa ? 0x7fc00000u : 0x7f800000u);
  }
  if (exponent != 0) {
    return sign | ((exponent + 112u) << 23) | (mantissa << 21);
  }
  return hrx_f8_subnormal_to_f32_bits(sign, mantissa, 111u);
}

#endif /* HRX_CORE_F8_H_ */
