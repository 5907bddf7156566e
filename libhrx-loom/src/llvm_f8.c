/* f8 conversions in LLVM IR (see llvm_f8.h and hrx/core/f8.h).
 *
 * Narrowing rounds normal results in integer arithmetic on the f32 bits
 * (add half an f8 ulp minus one plus the kept lsb, shift, rebias), which
 * also sends infinities and NaNs past the largest code. Subnormal results
 * let the float adder round: |x| + 2^k, where 2^k's ulp is the format's
 * smallest subnormal, is |x| rounded to nearest even in that unit, and
 * the f32 bits minus 2^k's bits count the units (a count one past the
 * largest subnormal is the first normal's code). An f32 subnormal input
 * rounds to zero whether or not the target flushes it.
 *
 * Widening places exponent and mantissa for normal codes; subnormal codes
 * are the mantissa times the smallest subnormal, one exact multiply. */
#include "llvm_f8.h"

typedef struct f8_params_t {
  unsigned mantissa_bits;  /* 3 or 2 */
  uint32_t rebias;         /* (127 - bias) << mantissa_bits */
  uint32_t first_normal;   /* magnitude code of the smallest normal */
  uint32_t max_code;       /* overflow and NaN clamp to it... */
  uint32_t overflow_code;  /* ...and become this */
  uint32_t subnormal_below; /* f32 bits of the smallest normal */
  float magic;             /* 2^k whose ulp is the smallest subnormal */
  float unit;              /* the smallest subnormal */
} f8_params_t;

static const f8_params_t f8_e4m3 = {3, 120u << 3, 0x08, 0x7e, 0x7f,
                                    0x3c800000u, 0x1p14f, 0x1p-9f};
static const f8_params_t f8_e5m2 = {2, 112u << 2, 0x04, 0x7c, 0x7c,
                                    0x38800000u, 0x1p7f, 0x1p-16f};

static const f8_params_t* f8_params(loom_type_kind_t kind) {
  return kind == LOOM_TYPE_F8E4M3 ? &f8_e4m3 : &f8_e5m2;
}

/* |element| in the shape of |like| (a scalar or a vector). */
static LLVMTypeRef f8_shaped(LLVMTypeRef like, LLVMTypeRef element) {
  return LLVMGetTypeKind(like) == LLVMVectorTypeKind
             ? LLVMVectorType(element, LLVMGetVectorSize(like))
             : element;
}

/* |value| splatted to |type| (the builder folds the constants). */
static LLVMValueRef f8_splat(LLVMBuilderRef b, LLVMTypeRef type,
                             LLVMValueRef value) {
  if (LLVMGetTypeKind(type) != LLVMVectorTypeKind) return value;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(type));
  LLVMValueRef one = LLVMBuildInsertElement(b, LLVMGetPoison(type), value,
                                            LLVMConstInt(i32, 0, false), "");
  LLVMValueRef zeros =
      LLVMConstNull(LLVMVectorType(i32, LLVMGetVectorSize(type)));
  return LLVMBuildShuffleVector(b, one, LLVMGetPoison(type), zeros, "");
}

static LLVMValueRef f8_int(LLVMBuilderRef b, LLVMTypeRef type,
                           uint32_t value) {
  LLVMTypeRef element = LLVMGetTypeKind(type) == LLVMVectorTypeKind
                            ? LLVMGetElementType(type)
                            : type;
  return f8_splat(b, type, LLVMConstInt(element, value, false));
}

static LLVMValueRef f8_float(LLVMBuilderRef b, LLVMTypeRef type,
                             float value) {
  LLVMTypeRef element = LLVMGetTypeKind(type) == LLVMVectorTypeKind
                            ? LLVMGetElementType(type)
                            : type;
  return f8_splat(b, type, LLVMConstReal(element, (double)value));
}

LLVMValueRef llvm_f8_widen(llvm_lower_t* l, LLVMValueRef x,
                           loom_type_kind_t kind) {
  const f8_params_t* p = f8_params(kind);
  LLVMBuilderRef b = l->builder;
  LLVMTypeRef like = LLVMTypeOf(x);
  LLVMTypeRef i32 = f8_shaped(like, LLVMInt32TypeInContext(l->context));
  LLVMTypeRef f32 = f8_shaped(like, LLVMFloatTypeInContext(l->context));
  LLVMValueRef w = LLVMBuildZExt(b, x, i32, "");
  LLVMValueRef sign = LLVMBuildShl(
      b, LLVMBuildAnd(b, w, f8_int(b, i32, 0x80), ""), f8_int(b, i32, 24), "");
  LLVMValueRef mag = LLVMBuildAnd(b, w, f8_int(b, i32, 0x7f), "");
  /* exponent and mantissa move up as one field; the exponent rebiases */
  LLVMValueRef normal = LLVMBuildAdd(
      b, LLVMBuildShl(b, mag, f8_int(b, i32, 23 - p->mantissa_bits), ""),
      f8_int(b, i32, p->rebias << (23 - p->mantissa_bits)), "");
  LLVMValueRef subnormal = LLVMBuildBitCast(
      b,
      LLVMBuildFMul(b, LLVMBuildUIToFP(b, mag, f32, ""),
                    f8_float(b, f32, p->unit), ""),
      i32, "");
  LLVMValueRef r = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntULT, mag, f8_int(b, i32, p->first_normal), ""),
      subnormal, normal, "");
  if (kind == LOOM_TYPE_F8E4M3) {
    r = LLVMBuildSelect(
        b, LLVMBuildICmp(b, LLVMIntEQ, mag, f8_int(b, i32, 0x7f), ""),
        f8_int(b, i32, 0x7fc00000u), r, "");
  } else {
    LLVMValueRef special = LLVMBuildSelect(
        b, LLVMBuildICmp(b, LLVMIntEQ, mag, f8_int(b, i32, 0x7c), ""),
        f8_int(b, i32, 0x7f800000u), f8_int(b, i32, 0x7fc00000u), "");
    r = LLVMBuildSelect(
        b, LLVMBuildICmp(b, LLVMIntUGE, mag, f8_int(b, i32, 0x7c), ""), special,
        r, "");
  }
  return LLVMBuildBitCast(b, LLVMBuildOr(b, r, sign, ""), f32, "");
}

LLVMValueRef llvm_f8_narrow(llvm_lower_t* l, LLVMValueRef x,
                            loom_type_kind_t kind) {
  const f8_params_t* p = f8_params(kind);
  LLVMBuilderRef b = l->builder;
  LLVMTypeRef like = LLVMTypeOf(x);
  LLVMTypeRef i32 = f8_shaped(like, LLVMInt32TypeInContext(l->context));
  LLVMTypeRef i8 = f8_shaped(like, LLVMInt8TypeInContext(l->context));
  LLVMValueRef u = LLVMBuildBitCast(b, x, i32, "");
  LLVMValueRef sign = LLVMBuildAnd(
      b, LLVMBuildLShr(b, u, f8_int(b, i32, 24), ""), f8_int(b, i32, 0x80), "");
  LLVMValueRef a = LLVMBuildAnd(b, u, f8_int(b, i32, 0x7fffffffu), "");
  unsigned drop = 23 - p->mantissa_bits;
  LLVMValueRef lsb = LLVMBuildAnd(b, LLVMBuildLShr(b, a, f8_int(b, i32, drop), ""),
                                  f8_int(b, i32, 1), "");
  LLVMValueRef rounded = LLVMBuildAdd(
      b, a, LLVMBuildAdd(b, lsb, f8_int(b, i32, (1u << (drop - 1)) - 1), ""),
      "");
  LLVMValueRef code = LLVMBuildSub(
      b, LLVMBuildLShr(b, rounded, f8_int(b, i32, drop), ""),
      f8_int(b, i32, p->rebias), "");
  LLVMValueRef normal = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntUGT, code, f8_int(b, i32, p->max_code), ""),
      f8_int(b, i32, p->overflow_code), code, "");
  if (kind == LOOM_TYPE_F8E5M2) { /* NaN stays NaN (E4M3's clamp is NaN) */
    normal = LLVMBuildSelect(
        b, LLVMBuildICmp(b, LLVMIntUGT, a, f8_int(b, i32, 0x7f800000u), ""),
        f8_int(b, i32, 0x7e), normal, "");
  }
  LLVMTypeRef f32 = f8_shaped(like, LLVMFloatTypeInContext(l->context));
  LLVMValueRef magic = f8_float(b, f32, p->magic);
  LLVMValueRef sum =
      LLVMBuildFAdd(b, LLVMBuildBitCast(b, a, f32, ""), magic, "");
  LLVMValueRef units =
      LLVMBuildSub(b, LLVMBuildBitCast(b, sum, i32, ""),
                   LLVMBuildBitCast(b, magic, i32, ""), "");
  LLVMValueRef mag = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntULT, a, f8_int(b, i32, p->subnormal_below), ""),
      units, normal, "");
  return LLVMBuildTrunc(b, LLVMBuildOr(b, mag, sign, ""), i8, "");
}
