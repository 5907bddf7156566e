/* The VALU's integer bit-manipulation ops of the gfx11 model (3-input
 * logic, byte permutes, bit-field extract and insert, funnel shifts, bit
 * counts and 24-bit multiplies), one lane at a time. Semantics follow the
 * RDNA3 ISA guide's pseudocode; S0..S2 are |a|, |b|, |c|. */
#include "gfx11_internal.h"

uint32_t gfx11_reverse_bits(uint32_t value) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= (value >> i & 1) << (31 - i);
  return r;
}

/* One byte of v_perm_b32 from the 64-bit {S0, S1} (S0 the high word):
 * selectors 0-7 pick a byte, 8-11 replicate the sign bit of bytes 1, 3,
 * 5 and 7, 12 gives 0x00 and 13 and above 0xff. */
static uint32_t permute_byte(uint64_t data, uint32_t selector) {
  if (selector >= 13) return 0xFF;
  if (selector == 12) return 0x00;
  if (selector >= 8) return (data >> (16 * (selector - 8) + 15) & 1) ? 0xFF : 0;
  return (uint32_t)(data >> (8 * selector)) & 0xFF;
}

/* Sign-extends the low |bits| (1..32) of |value|. */
static uint32_t sign_extend(uint32_t value, uint32_t bits) {
  uint32_t sign = 1u << (bits - 1);
  uint32_t low = bits == 32 ? value : value & ((sign << 1) - 1);
  return (low ^ sign) - sign;
}

bool gfx11_bit_op(uint32_t op, uint32_t a, uint32_t b, uint32_t c,
                  uint32_t* out) {
  switch (op) {
    case GFX11_V_NOT_B32: *out = ~a; return true;
    case GFX11_V_BFREV_B32: *out = gfx11_reverse_bits(a); return true;
    /* The counts answer -1 when no bit is set. */
    case GFX11_V_CLZ_I32_U32:
      *out = a ? (uint32_t)__builtin_clz(a) : UINT32_MAX; return true;
    case GFX11_V_CTZ_I32_B32:
      *out = a ? (uint32_t)__builtin_ctz(a) : UINT32_MAX; return true;
    case GFX11_V_BCNT_U32_B32:
      *out = (uint32_t)__builtin_popcount(a) + b; return true;
    case GFX11_V_XOR3_B32: *out = a ^ b ^ c; return true;
    case GFX11_V_OR3_B32: *out = a | b | c; return true;
    case GFX11_V_AND_OR_B32: *out = (a & b) | c; return true;
    case GFX11_V_LSHL_OR_B32: *out = (a << (b & 31)) | c; return true;
    case GFX11_V_XAD_U32: *out = (a ^ b) + c; return true;
    case GFX11_V_BFI_B32: *out = (a & b) | (~a & c); return true;
    case GFX11_V_ALIGNBIT_B32:
      *out = (uint32_t)((((uint64_t)a << 32) | b) >> (c & 31));
      return true;
    case GFX11_V_BFE_I32: {  /* offset S1[4:0], width S2[4:0] */
      uint32_t width = c & 31;
      *out = width ? sign_extend(a >> (b & 31), width) : 0;
      return true;
    }
    case GFX11_V_PERM_B32: {
      uint64_t data = (uint64_t)a << 32 | b;
      uint32_t r = 0;
      for (int i = 0; i < 4; ++i) {
        r |= permute_byte(data, c >> (8 * i) & 0xFF) << (8 * i);
      }
      *out = r;
      return true;
    }
    case GFX11_V_MUL_U32_U24:
      *out = (a & 0xFFFFFF) * (b & 0xFFFFFF);
      return true;
    case GFX11_V_MUL_I32_I24:
      *out = (uint32_t)((int64_t)(int32_t)sign_extend(a, 24) *
                        (int32_t)sign_extend(b, 24));
      return true;
    case GFX11_V_MUL_HI_I32:
      *out = (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32);
      return true;
    default: return false;
  }
}
