/* Loom IR -> LLVM IR (see llvm_lower.h).
 *
 * Values map one to one: a Loom value becomes one LLVM value (vectors are
 * LLVM vectors, buffers and views pointers into their address space).
 * Regions lower in place; a branch that already ended in a return is left
 * out of its join. f16 and bf16 arithmetic computes in f32 and rounds back
 * (nearest-even), as the host device does, so both agree bit for bit. */
#include "llvm_lower.h"

#include "math_formulas.h"

#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fragment.h"
#include "llvm_f8.h"
#include "op_table.h"
#include "vector_access.h"
#include "vector_bound.h"
#include "vector_layout.h"
#include "vector_reduce.h"
#include "vector_shape.h"

#define LL_MAX_INLINE_DEPTH 16

static bool ll_error(llvm_lower_t* l, loom_span_t span,
                     hrx_loom_diag_code_t code, const char* format, ...)
    HRX_PRINTF(4, 5);
static bool ll_error(llvm_lower_t* l, loom_span_t span,
                     hrx_loom_diag_code_t code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  loom_diag_emitv(l->diagnostics, &l->m->source, span,
                  HRX_LOOM_SEVERITY_ERROR, code, NULL, 0, format, args);
  va_end(args);
  l->failed = true;
  return false;
}

static bool ll_try(llvm_lower_t* l, hrx_status_t status) {
  if (status == HRX_OK) return true;
  if (l->status == HRX_OK) {
    l->status = status;
  } else {
    hrx_status_free(status);
  }
  return false;
}

static const char* ll_op_name(const loom_op_t* op) {
  return loom_op_defs[op->opcode].name;
}

static bool ll_is(const loom_op_t* op, const char* name) {
  return strcmp(ll_op_name(op), name) == 0;
}

static bool ll_unsupported(llvm_lower_t* l, const loom_op_t* op,
                           const char* what) {
  return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                  "%s%s is not supported by the %s backend yet",
                  ll_op_name(op), what, l->hooks->name);
}

/*===------------------------------------------------------------------===*/
/* Types and constants                                                     */
/*===------------------------------------------------------------------===*/

static LLVMTypeRef ll_i(llvm_lower_t* l, unsigned bits) {
  return LLVMIntTypeInContext(l->context, bits);
}

static LLVMTypeRef ll_scalar_type(llvm_lower_t* l, loom_type_kind_t kind) {
  switch (kind) {
    case LOOM_TYPE_I1: return ll_i(l, 1);
    case LOOM_TYPE_I8:
    case LOOM_TYPE_F8E4M3: /* f8 values are their bits (llvm_f8.h) */
    case LOOM_TYPE_F8E5M2: return ll_i(l, 8);
    case LOOM_TYPE_I16: return ll_i(l, 16);
    case LOOM_TYPE_I32: return ll_i(l, 32);
    case LOOM_TYPE_F16: return LLVMHalfTypeInContext(l->context);
    case LOOM_TYPE_BF16: return LLVMBFloatTypeInContext(l->context);
    case LOOM_TYPE_F32: return LLVMFloatTypeInContext(l->context);
    case LOOM_TYPE_F64: return LLVMDoubleTypeInContext(l->context);
    case LOOM_TYPE_BUFFER:
    case LOOM_TYPE_VIEW:
      return LLVMPointerTypeInContext(l->context, l->hooks->global_space);
    default: return ll_i(l, 64); /* index, offset, i64 */
  }
}

static LLVMTypeRef ll_type(llvm_lower_t* l, loom_type_id_t type) {
  const loom_type_t* t = &LOOM_TYPE(l->m, type);
  if (t->kind == LOOM_TYPE_VECTOR) { /* flat, lanes in row-major order */
    return LLVMVectorType(ll_scalar_type(l, t->element),
                          loom_vector_capacity(l->m, type));
  }
  return ll_scalar_type(l, t->kind);
}

/* The scalar kind of |type|, or of its elements. */
static loom_type_kind_t ll_element_kind(const llvm_lower_t* l,
                                       loom_type_id_t type) {
  const loom_type_t* t = &LOOM_TYPE(l->m, type);
  return t->kind == LOOM_TYPE_VECTOR || t->kind == LOOM_TYPE_VIEW
             ? t->element : t->kind;
}

static LLVMValueRef ll_i64(llvm_lower_t* l, int64_t value) {
  return LLVMConstInt(ll_i(l, 64), (unsigned long long)value, 1);
}

static LLVMValueRef ll_i32(llvm_lower_t* l, int64_t value) {
  return LLVMConstInt(ll_i(l, 32), (unsigned long long)value, 1);
}

/* A constant of scalar kind |kind| from its register bits (floats at their
 * own width, rounded by the front end exactly as the host backend does). */
static LLVMValueRef ll_const_bits(llvm_lower_t* l, loom_type_kind_t kind,
                                  uint64_t bits) {
  LLVMTypeRef type = ll_scalar_type(l, kind);
  if (!loom_type_is_float(kind)) return LLVMConstInt(type, bits, 0);
  LLVMValueRef raw = LLVMConstInt(ll_i(l, loom_type_bit_width(kind)), bits, 0);
  return LLVMBuildBitCast(l->builder, raw, type, "");
}

static uint64_t ll_literal_bits(const loom_literal_t* lit,
                                loom_type_kind_t kind) {
  if (loom_type_is_float(kind)) {
    return loom_float_bits(
        lit->kind == LOOM_LITERAL_FLOAT ? lit->f : (double)lit->i, kind);
  }
  return (uint64_t)lit->i;
}

LLVMValueRef llvm_lower_intrinsic(llvm_lower_t* l, const char* name,
                                  LLVMTypeRef* overloads,
                                  size_t overload_count, LLVMValueRef* args,
                                  unsigned arg_count) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!LLVMIntrinsicIsOverloaded(id)) overload_count = 0;
  LLVMValueRef fn =
      LLVMGetIntrinsicDeclaration(l->module, id, overloads, overload_count);
  LLVMTypeRef type =
      LLVMIntrinsicGetType(l->context, id, overloads, overload_count);
  return LLVMBuildCall2(l->builder, type, fn, args, arg_count, "");
}

static bool ll_terminated(const llvm_lower_t* l) {
  return LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(l->builder)) != NULL;
}

static LLVMBasicBlockRef ll_block(llvm_lower_t* l, const char* name) {
  return LLVMAppendBasicBlockInContext(l->context, l->function, name);
}

/*===------------------------------------------------------------------===*/
/* Operands                                                                */
/*===------------------------------------------------------------------===*/

static LLVMValueRef ll_value(llvm_lower_t* l, const loom_op_t* op,
                             uint32_t operand) {
  if (loom_operand_is_static(operand)) {
    return ll_i64(l, LOOM_STATIC(l->m, operand));
  }
  if (!l->values[operand]) {
    ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
             "a value used by %s has no lowering for %s", ll_op_name(op),
             l->hooks->name);
  }
  return l->values[operand];
}

static LLVMValueRef ll_operand(llvm_lower_t* l, const loom_op_t* op,
                               uint32_t i) {
  return ll_value(l, op, LOOM_OPERAND(l->m, op, i));
}

static void ll_set(llvm_lower_t* l, const loom_op_t* op, uint32_t r,
                   LLVMValueRef value) {
  l->values[op->results_start + r] = value;
}

/* The terminator of |region| (scf.yield / scf.condition), or NULL. */
static const loom_op_t* ll_terminator(const llvm_lower_t* l,
                                      uint32_t region_id) {
  const loom_region_t* region = &LOOM_REGION(l->m, region_id);
  if (!region->op_count) return NULL;
  const loom_op_t* last =
      &LOOM_OP(l->m, LOOM_REGION_OP(l->m, region, region->op_count - 1));
  return loom_op_defs[last->opcode].terminator != LOOM_TERM_NONE ? last : NULL;
}

/*===------------------------------------------------------------------===*/
/* Arithmetic                                                              */
/*===------------------------------------------------------------------===*/

typedef struct ll_arith_map_t {
  const char* name;
  ll_arith_t code;
} ll_arith_map_t;

static const ll_arith_map_t ll_arith[] = {
    {"index.add", LL_ADD},       {"index.sub", LL_SUB},
    {"index.mul", LL_MUL},       {"index.div", LL_SDIV},
    {"index.rem", LL_SREM},     {"index.min", LL_SMIN},
    {"index.max", LL_SMAX},     {"index.madd", LL_MADD},
    {"index.andi", LL_AND},      {"index.ori", LL_OR},
    {"index.xori", LL_XOR},      {"index.shli", LL_SHL},
    {"index.shrui", LL_LSHR},   {"index.scale", LL_MUL},
    {"scalar.addi", LL_ADD},     {"scalar.subi", LL_SUB},
    {"scalar.muli", LL_MUL},     {"scalar.divsi", LL_SDIV},
    {"scalar.divui", LL_UDIV},  {"scalar.remsi", LL_SREM},
    {"scalar.remui", LL_UREM},  {"scalar.minsi", LL_SMIN},
    {"scalar.maxsi", LL_SMAX},  {"scalar.minui", LL_UMIN},
    {"scalar.maxui", LL_UMAX},  {"scalar.andi", LL_AND},
    {"scalar.ori", LL_OR},        {"scalar.xori", LL_XOR},
    {"scalar.shli", LL_SHL},     {"scalar.shrui", LL_LSHR},
    {"scalar.shrsi", LL_ASHR},  {"scalar.addf", LL_FADD},
    {"scalar.subf", LL_FSUB},   {"scalar.mulf", LL_FMUL},
    {"scalar.divf", LL_FDIV},   {"scalar.minnumf", LL_FMIN},
    {"scalar.maxnumf", LL_FMAX}, {"scalar.fmaf", LL_FMA},
    {"scalar.negf", LL_FNEG},   {"scalar.absf", LL_FABS},
    {"scalar.floorf", LL_FLOOR}, {"scalar.ceilf", LL_CEIL},
    {"scalar.truncf", LL_FTRUNC},
    {"scalar.roundevenf", LL_ROUNDEVEN},
    {"scalar.sqrtf", LL_SQRT},  {"scalar.rsqrtf", LL_RSQRT},
    {"scalar.expf", LL_EXP},     {"scalar.logf", LL_LOG},
    {"scalar.tanhf", LL_TANH},  {"vector.addf", LL_FADD},
    {"vector.subf", LL_FSUB},   {"vector.mulf", LL_FMUL},
    {"vector.divf", LL_FDIV},   {"vector.minnumf", LL_FMIN},
    {"vector.maxnumf", LL_FMAX}, {"vector.fmaf", LL_FMA},
    {"scalar.exp2f", LL_EXP2},   {"scalar.siluf", LL_SILU},
    {"scalar.sinf", LL_SIN},     {"scalar.cosf", LL_COS},
    {"scalar.powf", LL_POW},
    {"scalar.clampf", LL_CLAMP_ORDERED},
    {"vector.negf", LL_FNEG},    {"vector.absf", LL_FABS},
    {"vector.floorf", LL_FLOOR}, {"vector.ceilf", LL_CEIL},
    {"vector.truncf", LL_FTRUNC},
    {"vector.roundevenf", LL_ROUNDEVEN},
    {"vector.sqrtf", LL_SQRT},   {"vector.expf", LL_EXP},
    {"vector.logf", LL_LOG},     {"vector.rsqrtf", LL_RSQRT},
    {"vector.tanhf", LL_TANH},   {"vector.exp2f", LL_EXP2},
    {"vector.siluf", LL_SILU},   {"vector.sinf", LL_SIN},
    {"vector.cosf", LL_COS},     {"vector.powf", LL_POW},
    {"vector.addi", LL_ADD},     {"vector.subi", LL_SUB},
    {"vector.muli", LL_MUL},     {"vector.minsi", LL_SMIN},
    {"vector.divsi", LL_SDIV},   {"vector.divui", LL_UDIV},
    {"vector.remsi", LL_SREM},   {"vector.remui", LL_UREM},
    {"vector.clampf", LL_CLAMP_ORDERED}, {"vector.roundf", LL_ROUND},
    {"vector.maxsi", LL_SMAX},   {"vector.minui", LL_UMIN},
    {"vector.maxui", LL_UMAX},   {"vector.andi", LL_AND},
    {"vector.ori", LL_OR},       {"vector.xori", LL_XOR},
    {"vector.shli", LL_SHL},     {"vector.shrui", LL_LSHR},
    {"vector.shrsi", LL_ASHR},
    {"scalar.negi", LL_NEG},     {"scalar.absi", LL_ABS},
    {"scalar.fmai", LL_MADD},    {"vector.negi", LL_NEG},
    {"vector.absi", LL_ABS},     {"vector.fmai", LL_MADD},
    {"scalar.ceildivsi", LL_CEILDIVS}, {"scalar.ceildivui", LL_CEILDIVU},
    {"scalar.floordivsi", LL_FLOORDIVS}, {"vector.ceildivsi", LL_CEILDIVS},
    {"vector.ceildivui", LL_CEILDIVU}, {"vector.floordivsi", LL_FLOORDIVS},
    {"scalar.ctpopi", LL_CTPOP}, {"scalar.ctlzi", LL_CTLZ},
    {"scalar.cttzi", LL_CTTZ},   {"scalar.rotli", LL_ROTL},
    {"scalar.rotri", LL_ROTR},   {"vector.ctpopi", LL_CTPOP},
    {"vector.ctlzi", LL_CTLZ},   {"vector.cttzi", LL_CTTZ},
    {"vector.rotli", LL_ROTL},   {"vector.rotri", LL_ROTR},
    {"scalar.copysignf", LL_COPYSIGN}, {"scalar.minimumf", LL_MINIMUM},
    {"scalar.maximumf", LL_MAXIMUM}, {"vector.copysignf", LL_COPYSIGN},
    {"vector.minimumf", LL_MINIMUM}, {"vector.maximumf", LL_MAXIMUM},
    {"scalar.remf", LL_FREM},    {"vector.remf", LL_FREM},
    {"scalar.signf", LL_SIGNF},  {"vector.signf", LL_SIGNF},
    {"scalar.signi", LL_SIGNI},  {"vector.signi", LL_SIGNI},
    {"scalar.log2f", LL_LOG2},   {"vector.log2f", LL_LOG2},
    {"scalar.log10f", LL_LOG10}, {"vector.log10f", LL_LOG10},
    {"scalar.expm1f", LL_EXPM1}, {"vector.expm1f", LL_EXPM1},
    {"scalar.log1pf", LL_LOG1P}, {"vector.log1pf", LL_LOG1P},
    {"scalar.sinhf", LL_SINH},   {"vector.sinhf", LL_SINH},
    {"scalar.coshf", LL_COSH},   {"vector.coshf", LL_COSH},
    {"scalar.tanf", LL_TAN},     {"vector.tanf", LL_TAN},
    {"scalar.atanf", LL_ATAN},   {"vector.atanf", LL_ATAN},
    {"scalar.atan2f", LL_ATAN2}, {"vector.atan2f", LL_ATAN2},
    {"scalar.asinf", LL_ASIN},   {"vector.asinf", LL_ASIN},
    {"scalar.acosf", LL_ACOS},   {"vector.acosf", LL_ACOS},
    {"scalar.cbrtf", LL_CBRT},   {"vector.cbrtf", LL_CBRT},
    {"scalar.logisticf", LL_LOGISTIC}, {"vector.logisticf", LL_LOGISTIC},
    {"scalar.softplusf", LL_SOFTPLUS}, {"vector.softplusf", LL_SOFTPLUS},
};

static LLVMValueRef ll_float_intrinsic(llvm_lower_t* l, const char* name,
                                       LLVMValueRef* args, unsigned count) {
  LLVMTypeRef type = LLVMTypeOf(args[0]);
  return llvm_lower_intrinsic(l, name, &type, 1, args, count);
}

static LLVMValueRef ll_select_cmp(llvm_lower_t* l, LLVMIntPredicate pred,
                                  LLVMValueRef x, LLVMValueRef y) {
  LLVMValueRef keep = LLVMBuildICmp(l->builder, pred, x, y, "");
  return LLVMBuildSelect(l->builder, keep, x, y, "");
}

/* x^y = 2^(y log2 |x|) with the C99 special cases, as the host backend
 * computes it: x^0 = 1^y = 1, the sign of a negative (or -0) base raised
 * to an odd integer, NaN for a finite negative base and a non-integer
 * exponent. The GPU has no wider type to evaluate it in, so its error
 * grows with |y log2 x|. */
static LLVMValueRef ll_pow(llvm_lower_t* l, LLVMValueRef x, LLVMValueRef y) {
  LLVMBuilderRef b = l->builder;
  LLVMTypeRef type = LLVMTypeOf(x);
  LLVMValueRef one = LLVMConstReal(type, 1.0), zero = LLVMConstReal(type, 0);
  LLVMValueRef magnitude = ll_float_intrinsic(l, "llvm.fabs", &x, 1);
  LLVMValueRef log = ll_float_intrinsic(l, "llvm.log2", &magnitude, 1);
  LLVMValueRef scaled = LLVMBuildFMul(b, y, log, "");
  LLVMValueRef r = ll_float_intrinsic(l, "llvm.exp2", &scaled, 1);
  r = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, magnitude, one, ""),
                      one, r, "");
  LLVMValueRef y_floor = ll_float_intrinsic(l, "llvm.floor", &y, 1);
  LLVMValueRef half = LLVMBuildFMul(b, y, LLVMConstReal(type, 0.5), "");
  LLVMValueRef half_floor = ll_float_intrinsic(l, "llvm.floor", &half, 1);
  LLVMValueRef odd =
      LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOEQ, y_floor, y, ""),
                   LLVMBuildFCmp(b, LLVMRealUNE, half_floor, half, ""), "");
  LLVMTypeRef bits_type =
      LLVMIntTypeInContext(l->context, LLVMGetTypeKind(type) ==
                                               LLVMDoubleTypeKind ? 64 : 32);
  LLVMValueRef sign =
      LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildBitCast(b, x, bits_type, ""),
                    LLVMConstInt(bits_type, 0, 0), "");
  r = LLVMBuildSelect(b, LLVMBuildAnd(b, sign, odd, ""),
                      LLVMBuildFNeg(b, r, ""), r, "");
  LLVMValueRef invalid = LLVMBuildAnd(
      b,
      LLVMBuildAnd(b, LLVMBuildFCmp(b, LLVMRealOLT, x, zero, ""),
                   LLVMBuildFCmp(b, LLVMRealOGT, x,
                                 LLVMConstReal(type, -INFINITY), ""), ""),
      LLVMBuildFCmp(b, LLVMRealUNE, y_floor, y, ""), "");
  r = LLVMBuildSelect(b, invalid, LLVMConstReal(type, NAN), r, "");
  LLVMValueRef unit =
      LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealOEQ, y, zero, ""),
                  LLVMBuildFCmp(b, LLVMRealOEQ, x, one, ""), "");
  return LLVMBuildSelect(b, unit, one, r, "");
}

static LLVMValueRef ll_apply(llvm_lower_t* l, const loom_op_t* op,
                             ll_arith_t code, LLVMValueRef* v);

/* math_formulas.c's primitives as LLVM IR on the operands' own type (f32
 * or a vector of f32 on the GPU). */
typedef struct ll_formula_t {
  llvm_lower_t* l;
  LLVMTypeRef type;
} ll_formula_t;

#define LL_V(x) ((LLVMValueRef)(x))
#define LM_V(x) ((lm_value_t)(x))

static lm_value_t ll_f_constant(void* self, double value) {
  return LM_V(LLVMConstReal(((ll_formula_t*)self)->type, value));
}

static lm_value_t ll_f_unary(void* self, lm_unary_t op, lm_value_t x) {
  static const char* const names[] = {
      [LM_ABS] = "llvm.fabs", [LM_SQRT] = "llvm.sqrt", [LM_EXP] = "llvm.exp",
      [LM_LOG] = "llvm.log",  [LM_SIN] = "llvm.sin",   [LM_COS] = "llvm.cos"};
  llvm_lower_t* l = ((ll_formula_t*)self)->l;
  LLVMValueRef v = LL_V(x);
  if (op == LM_NEG) return LM_V(LLVMBuildFNeg(l->builder, v, ""));
  return LM_V(ll_float_intrinsic(l, names[op], &v, 1));
}

static lm_value_t ll_f_binary(void* self, lm_binary_t op, lm_value_t x,
                              lm_value_t y) {
  LLVMBuilderRef b = ((ll_formula_t*)self)->l->builder;
  switch (op) {
    case LM_ADD: return LM_V(LLVMBuildFAdd(b, LL_V(x), LL_V(y), ""));
    case LM_SUB: return LM_V(LLVMBuildFSub(b, LL_V(x), LL_V(y), ""));
    case LM_MUL: return LM_V(LLVMBuildFMul(b, LL_V(x), LL_V(y), ""));
    default: return LM_V(LLVMBuildFDiv(b, LL_V(x), LL_V(y), ""));
  }
}

static lm_value_t ll_f_fma(void* self, lm_value_t x, lm_value_t y,
                           lm_value_t z) {
  LLVMValueRef args[] = {LL_V(x), LL_V(y), LL_V(z)};
  return LM_V(ll_float_intrinsic(((ll_formula_t*)self)->l, "llvm.fma", args,
                                 3));
}

static lm_value_t ll_f_compare(void* self, lm_compare_t op, lm_value_t x,
                               lm_value_t y) {
  static const LLVMRealPredicate preds[] = {
      [LM_EQ] = LLVMRealOEQ, [LM_LT] = LLVMRealOLT, [LM_GT] = LLVMRealOGT};
  return LM_V(LLVMBuildFCmp(((ll_formula_t*)self)->l->builder, preds[op],
                            LL_V(x), LL_V(y), ""));
}

static lm_value_t ll_f_unordered(void* self, lm_value_t x, lm_value_t y) {
  return LM_V(LLVMBuildFCmp(((ll_formula_t*)self)->l->builder, LLVMRealUNO,
                            LL_V(x), LL_V(y), ""));
}

static lm_value_t ll_f_both(void* self, lm_value_t c, lm_value_t d) {
  return LM_V(
      LLVMBuildAnd(((ll_formula_t*)self)->l->builder, LL_V(c), LL_V(d), ""));
}

static lm_value_t ll_f_select(void* self, lm_value_t c, lm_value_t x,
                              lm_value_t y) {
  return LM_V(LLVMBuildSelect(((ll_formula_t*)self)->l->builder, LL_V(c),
                              LL_V(x), LL_V(y), ""));
}

static lm_value_t ll_f_sign_bit(void* self, lm_value_t x) {
  ll_formula_t* f = self;
  LLVMBuilderRef b = f->l->builder;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(f->l->context);
  LLVMTypeRef bits = LLVMGetTypeKind(f->type) == LLVMVectorTypeKind
                         ? LLVMVectorType(i32, LLVMGetVectorSize(f->type))
                         : i32;
  return LM_V(LLVMBuildICmp(b, LLVMIntSLT,
                            LLVMBuildBitCast(b, LL_V(x), bits, ""),
                            LLVMConstNull(bits), ""));
}

/* tan x on f32: x less the nearest multiple n of pi/2 (Cody-Waite, pi/2
 * in three f32 parts, each step one fma), so the GPU's sin and cos see
 * |r| <= pi/4 where cos r >= 0.7 divides without cancellation; odd n
 * gives -cos r / sin r. The reduction is good to |x| of about 2^12;
 * beyond, its error grows with n. */
static LLVMValueRef ll_tan(llvm_lower_t* l, LLVMValueRef x) {
  LLVMBuilderRef b = l->builder;
  LLVMTypeRef type = LLVMTypeOf(x);
  static const double parts[] = {0x1.921fb6p+0, -0x1.777a5cp-25,
                                 -0x1.ee59dap-50};
  LLVMValueRef scaled =
      LLVMBuildFMul(b, x, LLVMConstReal(type, 0.63661977236758134308), "");
  LLVMValueRef n = ll_float_intrinsic(l, "llvm.roundeven", &scaled, 1);
  LLVMValueRef minus_n = LLVMBuildFNeg(b, n, "");
  LLVMValueRef r = x;
  for (int i = 0; i < 3; ++i) {
    LLVMValueRef args[] = {minus_n, LLVMConstReal(type, parts[i]), r};
    r = ll_float_intrinsic(l, "llvm.fma", args, 3);
  }
  LLVMValueRef sine = ll_float_intrinsic(l, "llvm.sin", &r, 1);
  LLVMValueRef cosine = ll_float_intrinsic(l, "llvm.cos", &r, 1);
  LLVMValueRef half = LLVMBuildFMul(b, n, LLVMConstReal(type, 0.5), "");
  LLVMValueRef odd = LLVMBuildFCmp(
      b, LLVMRealUNE, ll_float_intrinsic(l, "llvm.roundeven", &half, 1), half,
      "");
  return LLVMBuildSelect(
      b, odd, LLVMBuildFDiv(b, LLVMBuildFNeg(b, cosine, ""), sine, ""),
      LLVMBuildFDiv(b, sine, cosine, ""), "");
}

/* math_formulas.c's function |code| of v (f32 scalars or vectors; tan
 * reduces its argument first, see ll_tan). */
static LLVMValueRef ll_formula(llvm_lower_t* l, ll_arith_t code,
                               LLVMValueRef* v) {
  if (code == LL_TAN) return ll_tan(l, v[0]);
  ll_formula_t f = {l, LLVMTypeOf(v[0])};
  const lm_emit_t emit = {
      .self = &f,
      .constant = ll_f_constant,
      .unary = ll_f_unary,
      .binary = ll_f_binary,
      .fma = ll_f_fma,
      .compare = ll_f_compare,
      .unordered = ll_f_unordered,
      .both = ll_f_both,
      .select = ll_f_select,
      .sign_bit = ll_f_sign_bit,
  };
  return LL_V(lm_emit_function(&emit, (lm_function_t)(code - LL_EXPM1),
                               LM_V(v[0]), LM_V(v[1])));
}

/* C fmod of f32 x and y, exactly, from integer arithmetic (LLVM's own
 * frem for the GPU is x - trunc(x / y) y, which rounds). With |x| = mx
 * 2^ex and |y| = my 2^ey (24-bit significands, subnormals at the least
 * exponent), fmod = ((mx 2^(ex - ey)) mod my) 2^ey: the remainder of mx
 * by my is shifted left 8 bits at a time (it stays below 2^32) and
 * reduced again, 32 times to cover the widest exponent gap (253), then
 * scaled back by ey, which is exact as the result is representable (f32
 * only: f16 and bf16 widen first, f64 is refused; vectors go lane by
 * lane). NaN
 * for y = 0, x = +-inf or a NaN; x when |x| < |y| (y = +-inf included);
 * the result has x's sign. */
static LLVMValueRef ll_fmod(llvm_lower_t* l, LLVMValueRef x, LLVMValueRef y) {
  LLVMBuilderRef b = l->builder;
  LLVMTypeRef type = LLVMTypeOf(x);
  LLVMTypeRef int_type = LLVMInt32TypeInContext(l->context);
  LLVMValueRef magnitude_mask = LLVMConstInt(int_type, 0x7FFFFFFF, 0);
  LLVMValueRef ax = LLVMBuildAnd(b, LLVMBuildBitCast(b, x, int_type, ""),
                                 magnitude_mask, "");
  LLVMValueRef ay = LLVMBuildAnd(b, LLVMBuildBitCast(b, y, int_type, ""),
                                 magnitude_mask, "");
  LLVMValueRef zero = LLVMConstNull(int_type);
  LLVMValueRef one = LLVMConstInt(int_type, 1, 0);
  LLVMValueRef parts[2][2]; /* significand, exponent of |x| and |y| */
  LLVMValueRef from[2] = {ax, ay};
  for (int k = 0; k < 2; ++k) {
    LLVMValueRef e =
        LLVMBuildLShr(b, from[k], LLVMConstInt(int_type, 23, 0), "");
    LLVMValueRef m =
        LLVMBuildAnd(b, from[k], LLVMConstInt(int_type, 0x7FFFFF, 0), "");
    LLVMValueRef normal = LLVMBuildICmp(b, LLVMIntNE, e, zero, "");
    parts[k][0] = LLVMBuildSelect(
        b, normal, LLVMBuildOr(b, m, LLVMConstInt(int_type, 0x800000, 0), ""),
        m, "");
    parts[k][1] = LLVMBuildSelect(b, normal, e, one, "");
  }
  /* a zero divisor's NaN is chosen below; urem must not see it */
  LLVMValueRef my = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntEQ, parts[1][0], zero, ""), one,
      parts[1][0], "");
  LLVMValueRef gap = LLVMBuildSub(b, parts[0][1], parts[1][1], "");
  LLVMValueRef r = LLVMBuildURem(b, parts[0][0], my, "");
  LLVMValueRef eight = LLVMConstInt(int_type, 8, 0);
  for (int step = 0; step < 32; ++step) {
    LLVMValueRef k = LLVMBuildSelect(
        b, LLVMBuildICmp(b, LLVMIntSLT, gap, eight, ""), gap, eight, "");
    k = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, k, zero, ""), zero,
                        k, "");
    r = LLVMBuildURem(b, LLVMBuildShl(b, r, k, ""), my, "");
    gap = LLVMBuildSub(b, gap, k, "");
  }
  LLVMValueRef scale =
      LLVMBuildSub(b, parts[1][1], LLVMConstInt(int_type, 150, 0), "");
  LLVMTypeRef ldexp_types[2] = {type, int_type};
  LLVMValueRef ldexp_args[2] = {LLVMBuildUIToFP(b, r, type, ""), scale};
  LLVMValueRef result = llvm_lower_intrinsic(l, "llvm.ldexp", ldexp_types, 2,
                                             ldexp_args, 2);
  LLVMValueRef signs[2] = {result, x};
  result = ll_float_intrinsic(l, "llvm.copysign", signs, 2);
  /* |x| < |y|: x itself (also when y is infinite) */
  result = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, ax, ay, ""), x,
                           result, "");
  LLVMValueRef invalid = LLVMBuildOr(
      b,
      LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealUNO, x, y, ""),
                  LLVMBuildICmp(b, LLVMIntUGE, ax,
                                LLVMConstInt(int_type, 0x7F800000, 0), ""), ""),
      LLVMBuildICmp(b, LLVMIntEQ, ay, zero, ""), "");
  return LLVMBuildSelect(b, invalid, LLVMConstReal(type, NAN), result, "");
}

/* x / y rounded up (ceil) or down (floor): the truncating quotient moved
 * one step when the remainder is non-zero and the exact quotient lies on
 * that side (signed: remainder and divisor of the same sign for up, of
 * opposite signs for down; unsigned: always up). The divisions go through
 * ll_apply so a target's own division (the host's faults on zero) serves
 * them. */
static LLVMValueRef ll_rounded_divide(llvm_lower_t* l, ll_arith_t code,
                                      LLVMValueRef* v) {
  LLVMBuilderRef b = l->builder;
  bool is_signed = code != LL_CEILDIVU;
  LLVMValueRef q = ll_apply(l, NULL, is_signed ? LL_SDIV : LL_UDIV, v);
  LLVMValueRef r = ll_apply(l, NULL, is_signed ? LL_SREM : LL_UREM, v);
  if (!q || !r) return NULL;
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(v[0]));
  LLVMValueRef step = LLVMBuildICmp(b, LLVMIntNE, r, zero, "");
  if (is_signed) {
    LLVMValueRef sign = LLVMBuildXor(b, r, v[1], "");
    step = LLVMBuildAnd(
        b, step,
        LLVMBuildICmp(b, code == LL_FLOORDIVS ? LLVMIntSLT : LLVMIntSGE, sign,
                      zero, ""),
        "");
  }
  LLVMValueRef one = LLVMConstAllOnes(LLVMTypeOf(v[0]));
  /* q - (-1) steps up, q + (-1) down */
  LLVMValueRef moved = code == LL_FLOORDIVS ? LLVMBuildAdd(b, q, one, "")
                                            : LLVMBuildSub(b, q, one, "");
  return LLVMBuildSelect(b, step, moved, q, "");
}

/* x <code> y [<code> z]: operands of one type (f32 for narrow floats). */
static LLVMValueRef ll_arith_apply(llvm_lower_t* l, ll_arith_t code,
                                   LLVMValueRef* v) {
  LLVMBuilderRef b = l->builder;
  switch (code) {
    case LL_ADD: return LLVMBuildAdd(b, v[0], v[1], "");
    case LL_SUB: return LLVMBuildSub(b, v[0], v[1], "");
    case LL_MUL: return LLVMBuildMul(b, v[0], v[1], "");
    case LL_SDIV: return LLVMBuildSDiv(b, v[0], v[1], "");
    case LL_UDIV: return LLVMBuildUDiv(b, v[0], v[1], "");
    case LL_SREM: return LLVMBuildSRem(b, v[0], v[1], "");
    case LL_UREM: return LLVMBuildURem(b, v[0], v[1], "");
    case LL_SMIN: return ll_select_cmp(l, LLVMIntSLT, v[0], v[1]);
    case LL_SMAX: return ll_select_cmp(l, LLVMIntSGT, v[0], v[1]);
    case LL_UMIN: return ll_select_cmp(l, LLVMIntULT, v[0], v[1]);
    case LL_UMAX: return ll_select_cmp(l, LLVMIntUGT, v[0], v[1]);
    case LL_MADD:
      return LLVMBuildAdd(b, LLVMBuildMul(b, v[0], v[1], ""), v[2], "");
    case LL_AND: return LLVMBuildAnd(b, v[0], v[1], "");
    case LL_OR: return LLVMBuildOr(b, v[0], v[1], "");
    case LL_XOR: return LLVMBuildXor(b, v[0], v[1], "");
    case LL_SHL: return LLVMBuildShl(b, v[0], v[1], "");
    case LL_LSHR: return LLVMBuildLShr(b, v[0], v[1], "");
    case LL_ASHR: return LLVMBuildAShr(b, v[0], v[1], "");
    case LL_NEG: return LLVMBuildNeg(b, v[0], "");
    case LL_CEILDIVS: case LL_CEILDIVU: case LL_FLOORDIVS:
      return ll_rounded_divide(l, code, v);
    case LL_CTPOP: return ll_float_intrinsic(l, "llvm.ctpop", v, 1);
    case LL_COPYSIGN: return ll_float_intrinsic(l, "llvm.copysign", v, 2);
    case LL_MINIMUM: return ll_float_intrinsic(l, "llvm.minimum", v, 2);
    case LL_MAXIMUM: return ll_float_intrinsic(l, "llvm.maximum", v, 2);
    /* zero is defined: the count is the width */
    case LL_CTLZ: case LL_CTTZ: {
      LLVMValueRef args[2] = {v[0], LLVMConstInt(LLVMInt1TypeInContext(
                                                     l->context), 0, 0)};
      return ll_float_intrinsic(l, code == LL_CTLZ ? "llvm.ctlz" : "llvm.cttz",
                                args, 2);
    }
    /* funnel shifts of x with itself: the amount is taken modulo the width */
    case LL_ROTL: case LL_ROTR: {
      LLVMValueRef args[3] = {v[0], v[0], v[1]};
      return ll_float_intrinsic(l, code == LL_ROTL ? "llvm.fshl" : "llvm.fshr",
                                args, 3);
    }
    /* max(x, -x) as maxsi lowers it: the minimum integer stays itself */
    case LL_ABS:
      return ll_select_cmp(l, LLVMIntSGT, v[0], LLVMBuildNeg(b, v[0], ""));
    case LL_FADD: return LLVMBuildFAdd(b, v[0], v[1], "");
    case LL_FSUB: return LLVMBuildFSub(b, v[0], v[1], "");
    case LL_FMUL: return LLVMBuildFMul(b, v[0], v[1], "");
    case LL_FDIV: return LLVMBuildFDiv(b, v[0], v[1], "");
    case LL_FMIN: return ll_float_intrinsic(l, "llvm.minnum", v, 2);
    case LL_FMAX: return ll_float_intrinsic(l, "llvm.maxnum", v, 2);
    case LL_FMA: return ll_float_intrinsic(l, "llvm.fma", v, 3);
    case LL_FNEG: return LLVMBuildFNeg(b, v[0], "");
    case LL_FABS: return ll_float_intrinsic(l, "llvm.fabs", v, 1);
    case LL_FLOOR: return ll_float_intrinsic(l, "llvm.floor", v, 1);
    case LL_CEIL: return ll_float_intrinsic(l, "llvm.ceil", v, 1);
    case LL_FTRUNC: return ll_float_intrinsic(l, "llvm.trunc", v, 1);
    case LL_ROUNDEVEN: return ll_float_intrinsic(l, "llvm.roundeven", v, 1);
    case LL_SQRT: return ll_float_intrinsic(l, "llvm.sqrt", v, 1);
    case LL_RSQRT: {
      LLVMValueRef root = ll_float_intrinsic(l, "llvm.sqrt", v, 1);
      return LLVMBuildFDiv(b, LLVMConstReal(LLVMTypeOf(root), 1.0), root, "");
    }
    case LL_EXP: return ll_float_intrinsic(l, "llvm.exp", v, 1);
    case LL_LOG: return ll_float_intrinsic(l, "llvm.log", v, 1);
    case LL_TANH: {
      /* 1 - 2 / (exp(2x) + 1): saturates to +-1 as exp overflows or
       * underflows, with no intrinsic the GPU may lack. */
      LLVMTypeRef type = LLVMTypeOf(v[0]);
      LLVMValueRef one = LLVMConstReal(type, 1.0);
      LLVMValueRef twice = LLVMBuildFAdd(b, v[0], v[0], "");
      LLVMValueRef e = ll_float_intrinsic(l, "llvm.exp", &twice, 1);
      LLVMValueRef q = LLVMBuildFDiv(b, LLVMConstReal(type, 2.0),
                                     LLVMBuildFAdd(b, e, one, ""), "");
      return LLVMBuildFSub(b, one, q, "");
    }
    case LL_EXP2: return ll_float_intrinsic(l, "llvm.exp2", v, 1);
    case LL_LOG2: return ll_float_intrinsic(l, "llvm.log2", v, 1);
    case LL_LOG10: return ll_float_intrinsic(l, "llvm.log10", v, 1);
    case LL_FREM: return ll_fmod(l, v[0], v[1]);
    case LL_EXPM1: case LL_LOG1P: case LL_SINH: case LL_COSH: case LL_TAN:
    case LL_ATAN: case LL_ATAN2: case LL_ASIN: case LL_ACOS: case LL_CBRT:
    case LL_LOGISTIC: case LL_SOFTPLUS:
      return ll_formula(l, code, v);
    /* -1 / +1 by sign; zeros and NaN stay themselves, as host_math.c */
    case LL_SIGNF: {
      LLVMTypeRef type = LLVMTypeOf(v[0]);
      LLVMValueRef zero = LLVMConstNull(type);
      LLVMValueRef r = LLVMBuildSelect(
          b, LLVMBuildFCmp(b, LLVMRealOLT, v[0], zero, ""),
          LLVMConstReal(type, -1.0), v[0], "");
      return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGT, v[0], zero, ""),
                             LLVMConstReal(type, 1.0), r, "");
    }
    case LL_SIGNI: {
      LLVMTypeRef type = LLVMTypeOf(v[0]);
      LLVMValueRef zero = LLVMConstNull(type);
      LLVMValueRef r = LLVMBuildSelect(
          b, LLVMBuildICmp(b, LLVMIntSLT, v[0], zero, ""),
          LLVMConstAllOnes(type), v[0], "");
      return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, v[0], zero, ""),
                             LLVMBuildNeg(b, LLVMConstAllOnes(type), ""), r,
                             "");
    }
    case LL_SILU: {
      /* x / (1 + exp(-x)) */
      LLVMTypeRef type = LLVMTypeOf(v[0]);
      LLVMValueRef negated = LLVMBuildFNeg(b, v[0], "");
      LLVMValueRef e = ll_float_intrinsic(l, "llvm.exp", &negated, 1);
      return LLVMBuildFDiv(
          b, v[0], LLVMBuildFAdd(b, e, LLVMConstReal(type, 1.0), ""), "");
    }
    case LL_SIN: return ll_float_intrinsic(l, "llvm.sin", v, 1);
    case LL_COS: return ll_float_intrinsic(l, "llvm.cos", v, 1);
    case LL_POW: return ll_pow(l, v[0], v[1]);
    case LL_CLAMP_NUMBER: {
      LLVMValueRef low[2] = {v[0], v[1]};
      LLVMValueRef high[2] = {ll_float_intrinsic(l, "llvm.maxnum", low, 2),
                              v[2]};
      return ll_float_intrinsic(l, "llvm.minnum", high, 2);
    }
    case LL_ROUND: {
      /* Half away from zero, as host_math.c composes it (no libcall on
       * the host's native path): trunc(x), one step further from zero
       * when the exact dropped fraction is at least one half. */
      LLVMTypeRef type = LLVMTypeOf(v[0]);
      LLVMValueRef t = ll_float_intrinsic(l, "llvm.trunc", v, 1);
      LLVMValueRef d[1] = {LLVMBuildFSub(b, v[0], t, "")};
      LLVMValueRef fraction = ll_float_intrinsic(l, "llvm.fabs", d, 1);
      LLVMValueRef step = LLVMBuildSelect(
          b, LLVMBuildFCmp(b, LLVMRealOLT, v[0], LLVMConstReal(type, 0.0), ""),
          LLVMConstReal(type, -1.0), LLVMConstReal(type, 1.0), "");
      LLVMValueRef half =
          LLVMBuildFCmp(b, LLVMRealOGE, fraction, LLVMConstReal(type, 0.5), "");
      return LLVMBuildSelect(b, half, LLVMBuildFAdd(b, t, step, ""), t, "");
    }
    case LL_CLAMP_ORDERED: {
      /* Strict compares: a NaN value passes through unchanged. */
      LLVMValueRef below = LLVMBuildFCmp(b, LLVMRealOLT, v[0], v[1], "");
      LLVMValueRef raised = LLVMBuildSelect(b, below, v[1], v[0], "");
      LLVMValueRef above = LLVMBuildFCmp(b, LLVMRealOGT, raised, v[2], "");
      return LLVMBuildSelect(b, above, v[2], raised, "");
    }
  }
  return NULL;
}

/* |code| on |v|, by the target when it computes it itself. */
static LLVMValueRef ll_apply(llvm_lower_t* l, const loom_op_t* op,
                             ll_arith_t code, LLVMValueRef* v) {
  LLVMValueRef r = l->hooks->arith ? l->hooks->arith(l, op, code, v) : NULL;
  return r ? r : ll_arith_apply(l, code, v);
}

/* A float extension or truncation of |x| to |type|. */
static LLVMValueRef ll_convert(llvm_lower_t* l, LLVMValueRef x,
                               LLVMTypeRef type) {
  if (l->hooks->convert) return l->hooks->convert(l, x, type);
  unsigned from = (unsigned)LLVMSizeOfTypeInBits(l->layout, LLVMTypeOf(x));
  unsigned to = (unsigned)LLVMSizeOfTypeInBits(l->layout, type);
  return to > from ? LLVMBuildFPExt(l->builder, x, type, "")
                   : LLVMBuildFPTrunc(l->builder, x, type, "");
}

/* ll_arith_apply on vectors too: the formulas built from scalar
 * constants (rsqrt, tanh, silu, pow) run lane by lane. */
static LLVMValueRef ll_arith_lanes(llvm_lower_t* l, const loom_op_t* op,
                                   ll_arith_t code, LLVMValueRef* v,
                                   uint32_t count) {
  LLVMTypeRef type = LLVMTypeOf(v[0]);
  bool formula = code == LL_RSQRT || code == LL_TANH || code == LL_SILU ||
                 code == LL_POW || code == LL_ROUND || code == LL_FREM;
  if (!formula || LLVMGetTypeKind(type) != LLVMVectorTypeKind) {
    return ll_apply(l, op, code, v);
  }
  LLVMValueRef result = LLVMGetPoison(type);
  for (unsigned e = 0; e < LLVMGetVectorSize(type); ++e) {
    LLVMValueRef lane[3] = {NULL, NULL, NULL};
    for (uint32_t i = 0; i < count && i < 3; ++i) {
      lane[i] = LLVMBuildExtractElement(l->builder, v[i], ll_i32(l, e), "");
    }
    result = LLVMBuildInsertElement(
        l->builder, result, ll_apply(l, op, code, lane), ll_i32(l, e), "");
  }
  return result;
}

/* Loom's fast-math words as LLVM's flags, so afn may pick a faster
 * approximation and reassoc may reorder. */
static LLVMFastMathFlags ll_fast_math(uint32_t flags) {
  if (flags & LOOM_FLAG_FAST) return LLVMFastMathAll;
  LLVMFastMathFlags out = LLVMFastMathNone;
  if (flags & LOOM_FLAG_NNAN) out |= LLVMFastMathNoNaNs;
  if (flags & LOOM_FLAG_NINF) out |= LLVMFastMathNoInfs;
  if (flags & LOOM_FLAG_NSZ) out |= LLVMFastMathNoSignedZeros;
  if (flags & LOOM_FLAG_ARCP) out |= LLVMFastMathAllowReciprocal;
  if (flags & LOOM_FLAG_CONTRACT) out |= LLVMFastMathAllowContract;
  if (flags & LOOM_FLAG_AFN) out |= LLVMFastMathApproxFunc;
  if (flags & LOOM_FLAG_REASSOC) out |= LLVMFastMathAllowReassoc;
  return out;
}

/* f16 and bf16 compute in f32 (scalars or vectors of them). */
static bool ll_narrow_float(loom_type_kind_t kind) {
  return kind == LOOM_TYPE_F16 || kind == LOOM_TYPE_BF16;
}

static LLVMTypeRef ll_widened(llvm_lower_t* l, LLVMTypeRef type) {
  LLVMTypeRef f32 = LLVMFloatTypeInContext(l->context);
  return LLVMGetTypeKind(type) == LLVMVectorTypeKind
             ? LLVMVectorType(f32, LLVMGetVectorSize(type)) : f32;
}

static bool ll_lower_arith(llvm_lower_t* l, const loom_op_t* op,
                           const ll_arith_map_t* map) {
  LLVMValueRef v[3] = {NULL, NULL, NULL};
  for (uint32_t i = 0; i < op->operand_count && i < 3; ++i) {
    if (!(v[i] = ll_operand(l, op, i))) return false;
  }
  loom_type_kind_t kind = ll_element_kind(l, op->type);
  ll_arith_t code = map->code;
  if (code == LL_CLAMP_ORDERED && op->enum_value == LOOM_CLAMP_NUMBER) {
    code = LL_CLAMP_NUMBER;
  }
  if (kind == LOOM_TYPE_F64 && !l->hooks->f64_exp_log &&
      (code == LL_EXP || code == LL_LOG || code == LL_TANH ||
       code == LL_EXP2 || code == LL_SILU || code == LL_SIN ||
       code == LL_COS || code == LL_POW || code == LL_FREM ||
       code == LL_LOG2 || code == LL_LOG10 || LL_IS_FORMULA(code))) {
    return ll_unsupported(l, op, " on f64");
  }
  bool narrow = ll_narrow_float(kind) && code != LL_FNEG && code != LL_FABS;
  LLVMTypeRef type = ll_type(l, op->type);
  if (narrow) {
    for (uint32_t i = 0; i < op->operand_count && i < 3; ++i) {
      v[i] = ll_convert(l, v[i], ll_widened(l, type));
    }
  }
  LLVMValueRef result = ll_arith_lanes(l, op, code, v, op->operand_count);
  if (op->flags && loom_op_defs[op->opcode].flag_set == LOOM_FLAGS_FASTMATH &&
      !l->hooks->host_semantics && LLVMCanValueUseFastMathFlags(result)) {
    LLVMSetFastMathFlags(result, ll_fast_math(op->flags));
  }
  if (narrow) result = ll_convert(l, result, type);
  ll_set(l, op, 0, result);
  return true;
}

/* isnanf (x unordered with itself), isinff (|x| = inf) and isfinitef
 * (|x| < inf, false for NaN); f16 and bf16 widen first, which changes
 * no class. */
static bool ll_lower_class(llvm_lower_t* l, const loom_op_t* op) {
  LLVMValueRef x = ll_operand(l, op, 0);
  if (!x) return false;
  if (ll_narrow_float(ll_element_kind(l, op->type))) {
    x = ll_convert(l, x, ll_widened(l, LLVMTypeOf(x)));
  }
  LLVMBuilderRef b = l->builder;
  LLVMValueRef r = NULL;
  if (ll_is(op, "scalar.isnanf") || ll_is(op, "vector.isnanf")) {
    r = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
  } else {
    LLVMValueRef magnitude = ll_float_intrinsic(l, "llvm.fabs", &x, 1);
    LLVMValueRef infinity = LLVMConstReal(LLVMTypeOf(x), INFINITY);
    bool inf = ll_is(op, "scalar.isinff") || ll_is(op, "vector.isinff");
    r = LLVMBuildFCmp(b, inf ? LLVMRealOEQ : LLVMRealOLT, magnitude,
                      infinity, "");
  }
  ll_set(l, op, 0, r);
  return true;
}

static bool ll_lower_compare(llvm_lower_t* l, const loom_op_t* op) {
  static const LLVMIntPredicate icmp[] = {
      LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT,
      LLVMIntSGE, LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
  static const LLVMRealPredicate fcmp[] = {
      LLVMRealOEQ, LLVMRealOGT, LLVMRealOGE, LLVMRealOLT, LLVMRealOLE,
      LLVMRealONE, LLVMRealORD, LLVMRealUEQ, LLVMRealUGT, LLVMRealUGE,
      LLVMRealULT, LLVMRealULE, LLVMRealUNE, LLVMRealUNO};
  if (loom_op_defs[op->opcode].arity == 1) return ll_lower_class(l, op);
  LLVMValueRef x = ll_operand(l, op, 0), y = ll_operand(l, op, 1);
  if (!x || !y) return false;
  if (ll_is(op, "scalar.cmpf") || ll_is(op, "vector.cmpf")) {
    if (op->enum_value >= sizeof(fcmp) / sizeof(fcmp[0])) {
      return ll_unsupported(l, op, " with this predicate");
    }
    if (ll_narrow_float(ll_element_kind(l, op->type))) {
      LLVMTypeRef wide = ll_widened(l, LLVMTypeOf(x));
      x = ll_convert(l, x, wide);
      y = ll_convert(l, y, wide);
    }
    ll_set(l, op, 0, LLVMBuildFCmp(l->builder, fcmp[op->enum_value], x, y,
                                   ""));
    return true;
  }
  if (op->enum_value >= sizeof(icmp) / sizeof(icmp[0])) {
    return ll_unsupported(l, op, " with this predicate");
  }
  ll_set(l, op, 0, LLVMBuildICmp(l->builder, icmp[op->enum_value], x, y, ""));
  return true;
}

/* Pointers of two address spaces meet in the generic one. */
static void ll_unify_pointers(llvm_lower_t* l, LLVMValueRef* x,
                              LLVMValueRef* y) {
  LLVMTypeRef tx = LLVMTypeOf(*x), ty = LLVMTypeOf(*y);
  if (tx == ty || LLVMGetTypeKind(tx) != LLVMPointerTypeKind) return;
  LLVMTypeRef generic = LLVMPointerTypeInContext(l->context, 0);
  *x = LLVMBuildAddrSpaceCast(l->builder, *x, generic, "");
  *y = LLVMBuildAddrSpaceCast(l->builder, *y, generic, "");
}

static bool ll_lower_select(llvm_lower_t* l, const loom_op_t* op) {
  LLVMValueRef c = ll_operand(l, op, 0), x = ll_operand(l, op, 1),
               y = ll_operand(l, op, 2);
  if (!c || !x || !y) return false;
  ll_unify_pointers(l, &x, &y);
  ll_set(l, op, 0, LLVMBuildSelect(l->builder, c, x, y, ""));
  return true;
}

/*===------------------------------------------------------------------===*/
/* Casts                                                                   */
/*===------------------------------------------------------------------===*/

static bool ll_lower_cast(llvm_lower_t* l, const loom_op_t* op) {
  LLVMValueRef x = ll_operand(l, op, 0);
  if (!x) return false;
  LLVMBuilderRef b = l->builder;
  LLVMTypeRef to = ll_type(l, op->type2);
  loom_type_kind_t from_kind = ll_element_kind(l, op->type);
  loom_type_kind_t to_kind = ll_element_kind(l, op->type2);
  const char* name = ll_op_name(op);
  /* A vector cast converts element by element, as its scalar form does. */
  char scalar_name[32];
  if (!strncmp(name, "vector.", 7)) {
    snprintf(scalar_name, sizeof(scalar_name), "scalar.%s", name + 7);
    name = scalar_name;
  }
  LLVMValueRef r = NULL;
  if (!strcmp(name, "index.cast")) {
    /* Entering index sign-extends (i1 is 0 or 1), entering offset
     * zero-extends, leaving truncates: the host backend's rules. */
    unsigned from_bits = LLVMGetIntTypeWidth(LLVMTypeOf(x));
    unsigned to_bits = LLVMGetIntTypeWidth(to);
    if (from_bits == to_bits) {
      r = x;
    } else if (from_bits > to_bits) {
      r = LLVMBuildTrunc(b, x, to, "");
    } else if (to_kind == LOOM_TYPE_INDEX && from_kind != LOOM_TYPE_I1) {
      r = LLVMBuildSExt(b, x, to, "");
    } else {
      r = LLVMBuildZExt(b, x, to, "");
    }
  } else if (!strcmp(name, "scalar.extf") && loom_type_is_f8(from_kind)) {
    /* Through f32, exact; the canonical NaN it gives narrows the same on
     * every target. */
    r = llvm_f8_widen(l, x, from_kind);
    if (to_kind != LOOM_TYPE_F32) r = ll_convert(l, r, to);
  } else if (!strcmp(name, "scalar.fptrunc") && loom_type_is_f8(to_kind)) {
    if (from_kind != LOOM_TYPE_F32) {
      x = ll_convert(l, x, ll_widened(l, LLVMTypeOf(x)));
    }
    r = llvm_f8_narrow(l, x, to_kind);
  } else if (!strcmp(name, "scalar.extf") || !strcmp(name, "scalar.fptrunc")) {
    r = ll_convert(l, x, to);
  } else if (!strcmp(name, "scalar.extui")) {
    r = LLVMBuildZExt(b, x, to, "");
  } else if (!strcmp(name, "scalar.extsi")) {
    r = LLVMBuildSExt(b, x, to, "");
  } else if (!strcmp(name, "scalar.trunci")) {
    r = LLVMBuildTrunc(b, x, to, "");
  } else if (!strcmp(name, "scalar.uitofp") || !strcmp(name, "scalar.sitofp")) {
    /* Narrow floats round through f32, as on the host. */
    bool is_signed = name[7] == 's';
    LLVMTypeRef via = ll_narrow_float(to_kind) ? ll_widened(l, to) : to;
    r = is_signed ? LLVMBuildSIToFP(b, x, via, "")
                  : LLVMBuildUIToFP(b, x, via, "");
    if (via != to) r = ll_convert(l, r, to);
  } else if (!strcmp(name, "scalar.fptoui") || !strcmp(name, "scalar.fptosi")) {
    /* Saturating, NaN to 0: the host's conversion. */
    if (ll_narrow_float(from_kind)) {
      x = ll_convert(l, x, ll_widened(l, LLVMTypeOf(x)));
    }
    LLVMTypeRef types[] = {to, LLVMTypeOf(x)};
    r = llvm_lower_intrinsic(l, name[11] == 's' ? "llvm.fptosi.sat" : "llvm.fptoui.sat",
                     types, 2, &x, 1);
  } else if (!strcmp(name, "scalar.bitcast")) {
    r = LLVMBuildBitCast(b, x, to, "");
  } else {
    return ll_unsupported(l, op, "");
  }
  ll_set(l, op, 0, r);
  return true;
}

/*===------------------------------------------------------------------===*/
/* Geometry                                                                */
/*===------------------------------------------------------------------===*/

/* The work-item's flat id in its workgroup: waves take consecutive ones. */
static LLVMValueRef ll_flat_workitem_id(llvm_lower_t* l) {
  const llvm_target_hooks_t* h = l->hooks;
  LLVMBuilderRef b = l->builder;
  LLVMValueRef flat = h->workitem_id(l, 2);
  for (int d = 1; d >= 0; --d) {
    flat = LLVMBuildAdd(b, LLVMBuildMul(b, flat, h->workgroup_size(l, d), ""),
                        h->workitem_id(l, (unsigned)d), "");
  }
  return flat;
}

static bool ll_lower_geometry(llvm_lower_t* l, const loom_op_t* op) {
  const llvm_target_hooks_t* h = l->hooks;
  unsigned dim = op->enum_value == LOOM_ENUM_ABSENT ? 0 : op->enum_value;
  LLVMValueRef v = NULL;
  const char* name = ll_op_name(op);
  if (!strcmp(name, "kernel.workgroup.id")) {
    v = h->workgroup_id(l, dim);
  } else if (!strcmp(name, "kernel.workitem.id")) {
    v = h->workitem_id(l, dim);
  } else if (!strcmp(name, "kernel.workgroup.size")) {
    v = h->workgroup_size(l, dim);
  } else if (!strcmp(name, "kernel.workgroup.count")) {
    v = h->workgroup_count(l, dim);
  } else if (!strcmp(name, "kernel.subgroup.lane.id")) {
    v = h->lane_id(l);
  } else if (!strcmp(name, "kernel.subgroup.size") ||
             !strcmp(name, "target.subgroup.size")) {
    v = ll_i32(l, h->subgroup_size);
  } else if (!strcmp(name, "kernel.subgroup.id") && h->subgroup_id) {
    v = h->subgroup_id(l);
  } else if (!strcmp(name, "kernel.subgroup.id")) {
    v = LLVMBuildUDiv(l->builder, ll_flat_workitem_id(l),
                      ll_i32(l, h->subgroup_size), "");
  } else {
    return ll_unsupported(l, op, "");
  }
  ll_set(l, op, 0, LLVMBuildZExt(l->builder, v, ll_i(l, 64), ""));
  return true;
}

/*===------------------------------------------------------------------===*/
/* Memory                                                                  */
/*===------------------------------------------------------------------===*/

static unsigned ll_bytes(loom_type_kind_t kind) {
  unsigned bits = loom_type_bit_width(kind);
  return bits <= 8 ? 1 : bits / 8;
}

/* The encoding.layout.strided op giving |view|'s strides, or NULL for a
 * dense view; false (diagnosed) when the layout cannot be read here or a
 * whole-vector access would need a stride other than 1. */
static bool ll_layout(llvm_lower_t* l, const loom_op_t* op,
                      const loom_type_t* view, const loom_op_t** out) {
  bool unresolved = false;
  *out = loom_view_strides(l->m, view, &unresolved);
  if (unresolved) {
    return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "a view layout must come from an encoding.layout op in "
                    "the same body");
  }
  if (!*out) return true;
  uint32_t inner = LOOM_OPERAND(l->m, *out, (*out)->operand_count - 1);
  bool unit = loom_operand_is_static(inner) && LOOM_STATIC(l->m, inner) == 1;
  if (!unit && (ll_is(op, "vector.load") || ll_is(op, "vector.store"))) {
    return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "vector access to a view whose innermost stride is not "
                    "the constant 1");
  }
  return true;
}

/* The target's address of the element of |op| (the view in operand
 * |view_operand|) for an access of |access_bytes|: the steps the host
 * device linearises indices by (host backend: hb_address). */
static LLVMValueRef ll_target_address(llvm_lower_t* l, const loom_op_t* op,
                                      uint32_t view_operand,
                                      const loom_type_t* view,
                                      const loom_op_t* layout,
                                      LLVMValueRef base, llvm_access_t access,
                                      uint32_t access_bytes,
                                      const LLVMValueRef* indices) {
  llvm_address_t a = {.base = base,
                      .element = ll_scalar_type(l, view->element),
                      .element_bytes = ll_bytes(view->element),
                      .access_bytes = access_bytes,
                      .access = access};
  if (view->rank + 1 > LLVM_MAX_INDEX_STEPS) {
    ll_unsupported(l, op, " of a view of this rank");
    return NULL;
  }
  for (uint32_t d = 0; d < view->rank; ++d) {
    LLVMValueRef at =
        indices ? indices[d] : ll_operand(l, op, view_operand + 1 + d);
    if (!at) return NULL;
    if (layout) {
      /* index = at * stride + index, from 0 */
      LLVMValueRef stride = ll_operand(l, layout, d);
      if (!stride) return NULL;
      if (!a.first) a.first = ll_i64(l, 0);
      a.steps[a.step_count++] = (llvm_index_step_t){at, stride, NULL};
    } else if (!a.first) {
      a.first = at;
    } else {
      const loom_dim_t* dim = &LOOM_DIM(l->m, view->dims_start + d);
      LLVMValueRef extent =
          dim->size >= 0 ? ll_i64(l, dim->size) : l->values[dim->value];
      if (!extent) {
        ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                 "view extent is not available here");
        return NULL;
      }
      a.steps[a.step_count++] = (llvm_index_step_t){NULL, extent, at};
    }
  }
  return l->hooks->address(l, op, &a);
}

/* Pointer to element (|indices|, or with NULL the indices of |op| after
 * |view_operand|) + |extra| of the view in operand |view_operand|,
 * row-major over the view's extents, for an access of |access_bytes|
 * bytes. */
static LLVMValueRef ll_address(llvm_lower_t* l, const loom_op_t* op,
                               uint32_t view_operand, loom_type_id_t view_type,
                               uint32_t extra, llvm_access_t access,
                               uint32_t access_bytes,
                               const LLVMValueRef* indices) {
  const loom_type_t* view = &LOOM_TYPE(l->m, view_type);
  LLVMValueRef base = ll_operand(l, op, view_operand);
  if (!base) return NULL;
  LLVMBuilderRef b = l->builder;
  LLVMValueRef index = NULL;
  const loom_op_t* layout = NULL;
  if (!ll_layout(l, op, view, &layout)) return NULL;
  if (l->hooks->address && !extra) {
    return ll_target_address(l, op, view_operand, view, layout, base, access,
                             access_bytes, indices);
  }
  for (uint32_t d = 0; layout && d < view->rank; ++d) {
    /* Strided: the sum of index * stride. */
    LLVMValueRef at =
        indices ? indices[d] : ll_operand(l, op, view_operand + 1 + d);
    LLVMValueRef stride = ll_operand(l, layout, d);
    if (!at || !stride) return NULL;
    LLVMValueRef term = LLVMBuildMul(b, at, stride, "");
    index = index ? LLVMBuildAdd(b, index, term, "") : term;
  }
  for (uint32_t d = 0; !layout && d < view->rank; ++d) {
    LLVMValueRef next =
        indices ? indices[d] : ll_operand(l, op, view_operand + 1 + d);
    if (!next) return NULL;
    if (!index) {
      index = next;
      continue;
    }
    const loom_dim_t* dim = &LOOM_DIM(l->m, view->dims_start + d);
    LLVMValueRef extent =
        dim->size >= 0 ? ll_i64(l, dim->size) : l->values[dim->value];
    if (!extent) {
      ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
               "view extent is not available here");
      return NULL;
    }
    index = LLVMBuildAdd(b, LLVMBuildMul(b, index, extent, ""), next, "");
  }
  if (!index) index = ll_i64(l, 0);
  if (extra) index = LLVMBuildAdd(b, index, ll_i64(l, extra), "");
  LLVMTypeRef element = ll_scalar_type(l, view->element);
  return LLVMBuildInBoundsGEP2(b, element, base, &index, 1, "");
}

static bool ll_lower_view(llvm_lower_t* l, const loom_op_t* op) {
  LLVMValueRef base = ll_operand(l, op, 0), offset = ll_operand(l, op, 1);
  if (!base || !offset) return false;
  if (l->hooks->view) {
    LLVMValueRef view = l->hooks->view(l, op, base, offset);
    ll_set(l, op, 0, view);
    return view != NULL;
  }
  ll_set(l, op, 0, LLVMBuildInBoundsGEP2(l->builder, ll_i(l, 8), base,
                                         &offset, 1, ""));
  return true;
}

/* Reserves |bytes| at |align| of the kernel's workgroup memory for |op|;
 * NULL (diagnosed) past the target's limit. */
static LLVMValueRef ll_workgroup_memory(llvm_lower_t* l, const loom_op_t* op,
                                        uint64_t bytes, uint64_t align) {
  uint64_t start = (l->lds_size + align - 1) & ~(align - 1);
  if (start + bytes > l->hooks->workgroup_memory_limit) {
    ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
             "workgroup memory exceeds %" PRIu64 " bytes on %s",
             l->hooks->workgroup_memory_limit, l->hooks->name);
    return NULL;
  }
  if (align > l->lds_align) l->lds_align = align;
  l->lds_size = start + bytes;
  LLVMValueRef offset = ll_i64(l, (int64_t)start);
  if (l->hooks->workgroup_memory) {
    LLVMValueRef base = l->hooks->workgroup_memory(l);
    return l->hooks->view ? l->hooks->view(l, op, base, offset)
                          : LLVMBuildGEP2(l->builder, ll_i(l, 8), base,
                                          &offset, 1, "");
  }
  if (!l->lds) {
    l->lds = LLVMAddGlobalInAddressSpace(l->module, ll_i(l, 8),
                                         "hrx.lds.placeholder",
                                         l->hooks->workgroup_space);
  }
  return LLVMBuildInBoundsGEP2(l->builder, ll_i(l, 8), l->lds, &offset, 1,
                               "");
}

/* Private memory: an LLVM alloca of the target's private address space
 * (the data layout's alloca space), placed at the top of the entry block
 * wherever the op sits, so LLVM sees a static object of fixed size and
 * puts it in the kernel's fixed private segment rather than a dynamic
 * stack. */
static LLVMValueRef ll_private_memory(llvm_lower_t* l, uint64_t bytes,
                                      uint64_t align) {
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(l->function);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(l->context);
  LLVMValueRef first = LLVMGetFirstInstruction(entry);
  if (first) {
    LLVMPositionBuilderBefore(b, first);
  } else {
    LLVMPositionBuilderAtEnd(b, entry);
  }
  LLVMValueRef memory = LLVMBuildAlloca(
      b, LLVMArrayType2(ll_i(l, 8), bytes ? bytes : 1), "private");
  LLVMSetAlignment(memory, (unsigned)align);
  LLVMDisposeBuilder(b);
  return memory;
}

/* Workgroup memory is laid out as the host backend lays it out, in one
 * array per kernel, so the group segment is the size HRX reports; private
 * memory, where the target has it, is one alloca per op. */
static bool ll_lower_alloca(llvm_lower_t* l, const loom_op_t* op) {
  const char* space = loom_enum_keyword(LOOM_ENUM_MEMORY_SPACE,
                                        op->enum_value);
  bool is_private = strcmp(space, "private") == 0;
  if (strcmp(space, "workgroup") != 0 &&
      !(is_private && l->hooks->private_memory_limit)) {
    return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "buffer.alloca<%s> is not supported by the %s backend "
                    "yet", space, l->hooks->name);
  }
  LLVMValueRef size = ll_operand(l, op, 0);
  if (!size) return false;
  if (!LLVMIsAConstantInt(size) || LLVMConstIntGetSExtValue(size) < 0) {
    return ll_error(l, op->span, HRX_LOOM_DIAG_LAUNCH_NOT_CONSTANT,
                    "buffer.alloca size must be constant");
  }
  uint64_t bytes = (uint64_t)LLVMConstIntGetSExtValue(size);
  uint64_t align = op->attrs[LOOM_ATTR_ALIGN] > 0
                       ? (uint64_t)op->attrs[LOOM_ATTR_ALIGN] : 16;
  if (is_private) {
    l->private_size += (bytes + align - 1) & ~(align - 1);
    if (bytes > l->hooks->private_memory_limit ||
        l->private_size > l->hooks->private_memory_limit) {
      return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                      "private memory exceeds %" PRIu64 " bytes per "
                      "work-item on %s", l->hooks->private_memory_limit,
                      l->hooks->name);
    }
    ll_set(l, op, 0, ll_private_memory(l, bytes, align));
    return true;
  }
  LLVMValueRef memory = ll_workgroup_memory(l, op, bytes, align);
  ll_set(l, op, 0, memory);
  return memory != NULL;
}

/*===------------------------------------------------------------------===*/
/* Scoped atomics and fences                                               */
/*===------------------------------------------------------------------===*/

static const char* ll_type_text(loom_type_kind_t kind) {
  switch (kind) {
    case LOOM_TYPE_I1: return "i1";
    case LOOM_TYPE_I8: return "i8";
    case LOOM_TYPE_I16: return "i16";
    case LOOM_TYPE_I32: return "i32";
    case LOOM_TYPE_F16: return "half";
    case LOOM_TYPE_BF16: return "bfloat";
    case LOOM_TYPE_F32: return "float";
    case LOOM_TYPE_F64: return "double";
    default: return "i64";
  }
}

/* LLVM's orderings by Loom ordering (relaxed acquire release acq_rel
 * seq_cst). */
static const char* const ll_orderings[] = {"monotonic", "acquire", "release",
                                           "acq_rel", "seq_cst"};

typedef enum ll_atomic_e {
  LL_ATOMIC_LOAD,
  LL_ATOMIC_STORE,
  LL_ATOMIC_RMW,
  LL_ATOMIC_FENCE,
} ll_atomic_t;

/* A scoped memory operation: its ordering and scope, and for
 * read-modify-write its combine kind (LOOM_ENUM_COMBINE). */
typedef struct ll_scoped_t {
  ll_atomic_t what;
  uint32_t combine;
  uint32_t ordering;
  uint32_t scope;
} ll_scoped_t;

static ll_scoped_t ll_scoped(const loom_op_t* op, ll_atomic_t what) {
  ll_scoped_t s = {.what = what, .combine = op->enum_value, .ordering = 0,
                   .scope = 4 /* system */};
  if (op->attrs[LOOM_ATTR_ORDERING] >= 0 &&
      op->attrs[LOOM_ATTR_ORDERING] < 5) {
    s.ordering = (uint32_t)op->attrs[LOOM_ATTR_ORDERING];
  }
  if (op->attrs[LOOM_ATTR_SCOPE] >= 0) {
    s.scope = (uint32_t)op->attrs[LOOM_ATTR_SCOPE];
  }
  /* A load cannot release nor a store acquire: keep the half that
   * applies. */
  if (what == LL_ATOMIC_LOAD && (s.ordering == 2 || s.ordering == 3)) {
    s.ordering = s.ordering == 2 ? 0 : 1;
  }
  if (what == LL_ATOMIC_STORE && (s.ordering == 1 || s.ordering == 3)) {
    s.ordering = s.ordering == 1 ? 0 : 2;
  }
  return s;
}

/* The read-modify-write instruction of a combine kind; NULL where the
 * helper loops on cmpxchg instead. */
static const char* ll_rmw_op(uint32_t combine) {
  static const char* const ops[] = {"add", "fadd", NULL, NULL, "fmax",
                                    "fmin", "max", "min", "umax", "umin",
                                    "and", "or", "xor", "xchg"};
  return combine < sizeof(ops) / sizeof(ops[0]) ? ops[combine] : NULL;
}

/* Appends the textual definition of helper |name|. */
static hrx_status_t ll_helper_text(llvm_lower_t* l, const char* name,
                                   const ll_scoped_t* s,
                                   loom_type_kind_t kind, unsigned space) {
  hrx_string_builder_t* t = &l->helpers;
  const char* scope = l->hooks->sync_scope(s->scope);
  char sync[48] = "";
  if (scope[0]) snprintf(sync, sizeof(sync), " syncscope(\"%s\")", scope);
  const char* order = ll_orderings[s->ordering];
  const char* type = ll_type_text(kind);
  unsigned align = ll_bytes(kind);
  char ptr[40];
  snprintf(ptr, sizeof(ptr), "ptr addrspace(%u)", space);
  switch (s->what) {
    case LL_ATOMIC_FENCE:
      return hrx_string_builder_appendf(
          t, "define linkonce_odr hidden void @%s() alwaysinline {\n"
             "  fence%s %s\n  ret void\n}\n", name, sync, order);
    case LL_ATOMIC_LOAD:
      return hrx_string_builder_appendf(
          t, "define linkonce_odr hidden %s @%s(%s %%p) alwaysinline {\n"
             "  %%r = load atomic %s, %s %%p%s %s, align %u\n"
             "  ret %s %%r\n}\n",
          type, name, ptr, type, ptr, sync, order, align, type);
    case LL_ATOMIC_STORE:
      return hrx_string_builder_appendf(
          t, "define linkonce_odr hidden void @%s(%s %%p, %s %%v) "
             "alwaysinline {\n"
             "  store atomic %s %%v, %s %%p%s %s, align %u\n"
             "  ret void\n}\n",
          name, ptr, type, type, ptr, sync, order, align);
    case LL_ATOMIC_RMW:
      break;
  }
  const char* rmw = ll_rmw_op(s->combine);
  if (rmw) {
    return hrx_string_builder_appendf(
        t, "define linkonce_odr hidden %s @%s(%s %%p, %s %%v) "
           "alwaysinline {\n"
           "  %%r = atomicrmw %s %s %%p, %s %%v%s %s, align %u\n"
           "  ret %s %%r\n}\n",
        type, name, ptr, type, rmw, ptr, type, sync, order, align, type);
  }
  /* Products loop on compare-and-swap of the bits. */
  static const char* const failure[] = {"monotonic", "acquire", "monotonic",
                                        "acquire", "seq_cst"};
  char bits[16];
  snprintf(bits, sizeof(bits), "i%u", align * 8);
  bool is_float = loom_type_is_float(kind);
  return hrx_string_builder_appendf(
      t, "define linkonce_odr hidden %s @%s(%s %%p, %s %%v) alwaysinline {\n"
         "entry:\n"
         "  %%first = load atomic %s, %s %%p%s monotonic, align %u\n"
         "  br label %%loop\n"
         "loop:\n"
         "  %%old = phi %s [ %%first, %%entry ], [ %%seen, %%loop ]\n"
         "  %%oldv = bitcast %s %%old to %s\n"
         "  %%newv = %s %s %%oldv, %%v\n"
         "  %%new = bitcast %s %%newv to %s\n"
         "  %%pair = cmpxchg %s %%p, %s %%old, %s %%new%s %s %s, align %u\n"
         "  %%seen = extractvalue { %s, i1 } %%pair, 0\n"
         "  %%ok = extractvalue { %s, i1 } %%pair, 1\n"
         "  br i1 %%ok, label %%done, label %%loop\n"
         "done:\n"
         "  ret %s %%oldv\n}\n",
      type, name, ptr, type, bits, ptr, sync, align, bits, bits, type,
      is_float ? "fmul" : "mul", type, type, bits, ptr, bits, bits, sync,
      order, failure[s->ordering], align, bits, bits, type);
}

/* Calls the helper performing |s| on |ptr| (and |value|), declaring and
 * defining it on first use. */
static LLVMValueRef ll_atomic(llvm_lower_t* l, const loom_op_t* op,
                              const ll_scoped_t* s, loom_type_kind_t kind,
                              LLVMValueRef ptr, LLVMValueRef value) {
  static const char* const what[] = {"load", "store", "rmw", "fence"};
  if (kind == LOOM_TYPE_I1) {
    ll_unsupported(l, op, " on i1");
    return NULL;
  }
  unsigned space = ptr ? LLVMGetPointerAddressSpace(LLVMTypeOf(ptr)) : 0;
  const char* scope = l->hooks->sync_scope(s->scope);
  char name[128];
  snprintf(name, sizeof(name), "hrx.%s%s%s.%s.%s.%s.as%u", what[s->what],
           s->what == LL_ATOMIC_RMW ? "." : "",
           s->what == LL_ATOMIC_RMW
               ? loom_enum_keyword(LOOM_ENUM_COMBINE, s->combine) : "",
           s->what == LL_ATOMIC_FENCE ? "void" : ll_type_text(kind),
           ll_orderings[s->ordering], scope[0] ? scope : "system", space);
  LLVMTypeRef type = ll_scalar_type(l, kind);
  LLVMTypeRef params[2] = {ptr ? LLVMTypeOf(ptr) : NULL, type};
  unsigned param_count = s->what == LL_ATOMIC_FENCE ? 0
                         : s->what == LL_ATOMIC_LOAD ? 1 : 2;
  LLVMTypeRef result = s->what == LL_ATOMIC_LOAD || s->what == LL_ATOMIC_RMW
                           ? type : LLVMVoidTypeInContext(l->context);
  LLVMTypeRef fn_type = LLVMFunctionType(result, params, param_count, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(l->module, name);
  if (!fn) {
    if (!ll_try(l, ll_helper_text(l, name, s, kind, space))) return NULL;
    fn = LLVMAddFunction(l->module, name, fn_type);
  }
  LLVMValueRef args[2] = {ptr, value};
  return LLVMBuildCall2(l->builder, fn_type, fn, args, param_count, "");
}

/* A fence of |op|'s scope at |ordering|; none when relaxed. */
static bool ll_fence(llvm_lower_t* l, const loom_op_t* op, uint32_t ordering) {
  ll_scoped_t s = ll_scoped(op, LL_ATOMIC_FENCE);
  s.ordering = ordering;
  return ordering == 0 || ll_atomic(l, op, &s, LOOM_TYPE_I32, NULL, NULL);
}

static bool ll_lower_sync(llvm_lower_t* l, const loom_op_t* op) {
  uint32_t ordering = ll_scoped(op, LL_ATOMIC_FENCE).ordering;
  if (!ll_is(op, "kernel.barrier")) return ll_fence(l, op, ordering);
  const char* level = loom_enum_keyword(LOOM_ENUM_SCOPE, op->enum_value);
  bool workgroup = !strcmp(level, "workgroup");
  if (!workgroup && strcmp(level, "subgroup") != 0) {
    return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "kernel.barrier<%s> is not supported by the %s backend "
                    "yet", level, l->hooks->name);
  }
  /* Release what this work-item wrote before the barrier, acquire what
   * the others wrote after it. */
  static const uint32_t before[] = {0, 0, 2, 2, 4};
  static const uint32_t after[] = {0, 1, 0, 1, 4};
  if (!ll_fence(l, op, before[ordering])) return false;
  l->hooks->barrier(l, workgroup);
  return ll_fence(l, op, after[ordering]);
}

static uint32_t ll_width(const llvm_lower_t* l, loom_type_id_t type) {
  return loom_vector_capacity(l->m, type);
}

/* A vector of rank r > 1 maps its axes onto the last r view axes: one
 * contiguous run along the last view axis per row of the vector, at the
 * indices of |op| plus the row's coordinates. */
static bool ll_lower_shaped_access(llvm_lower_t* l, const loom_op_t* op,
                                   bool load) {
  LLVMBuilderRef b = l->builder;
  loom_type_id_t view_type = load ? op->type : op->type2;
  loom_type_id_t vector = load ? op->type2 : op->type;
  uint32_t view_operand = load ? 0 : 1;
  const loom_type_t* view = &LOOM_TYPE(l->m, view_type);
  const loom_type_t* v = &LOOM_TYPE(l->m, vector);
  loom_type_kind_t kind = view->element;
  uint32_t row =
      (uint32_t)LOOM_DIM(l->m, v->dims_start + v->rank - 1).size;
  uint32_t lanes = loom_vector_lanes(l->m, vector);
  LLVMTypeRef row_type = LLVMVectorType(ll_scalar_type(l, kind), row);
  LLVMValueRef value =
      load ? LLVMGetPoison(ll_type(l, vector)) : ll_operand(l, op, 0);
  LLVMValueRef origin[8], at[8]; /* ranks are at most 8 (the parser's) */
  if (!value) return false;
  for (uint32_t d = 0; d < view->rank; ++d) {
    if (!(origin[d] = ll_operand(l, op, view_operand + 1 + d))) return false;
  }
  uint32_t skip = view->rank - v->rank;
  for (uint32_t first = 0; first < lanes; first += row) {
    for (uint32_t d = 0; d < view->rank; ++d) {
      at[d] = origin[d];
      if (d < skip || d + 1 == view->rank) continue;
      uint32_t axis = d - skip;
      uint64_t c = first / loom_vector_stride(l->m, vector, axis) %
                   (uint64_t)LOOM_DIM(l->m, v->dims_start + axis).size;
      if (c) at[d] = LLVMBuildAdd(b, origin[d], ll_i64(l, (int64_t)c), "");
    }
    LLVMValueRef ptr = ll_address(l, op, view_operand, view_type, 0,
                                  load ? LLVM_ACCESS_LOAD : LLVM_ACCESS_STORE,
                                  ll_bytes(kind) * row, at);
    if (!ptr) return false;
    LLVMValueRef part = load ? LLVMBuildLoad2(b, row_type, ptr, "")
                             : LLVMGetPoison(row_type);
    for (uint32_t k = 0; k < row; ++k) {
      LLVMValueRef lane = ll_i32(l, first + k), to = ll_i32(l, k);
      if (load) {
        value = LLVMBuildInsertElement(
            b, value, LLVMBuildExtractElement(b, part, to, ""), lane, "");
      } else {
        part = LLVMBuildInsertElement(
            b, part, LLVMBuildExtractElement(b, value, lane, ""), to, "");
      }
    }
    LLVMValueRef access = load ? part : LLVMBuildStore(b, part, ptr);
    /* The host device allows any alignment for plain accesses. */
    LLVMSetAlignment(access, l->hooks->host_semantics ? 1 : ll_bytes(kind));
  }
  if (load) ll_set(l, op, 0, value);
  return true;
}

static bool ll_lower_load(llvm_lower_t* l, const loom_op_t* op) {
  loom_type_kind_t kind = LOOM_TYPE(l->m, op->type).element;
  if (kind == LOOM_TYPE_I1 && ll_width(l, op->type2) > 1) {
    return ll_unsupported(l, op, " of i1 vectors");
  }
  if (LOOM_TYPE(l->m, op->type2).rank > 1) {
    return ll_lower_shaped_access(l, op, true);
  }
  bool atomic = ll_is(op, "view.atomic.load");
  LLVMValueRef ptr = ll_address(
      l, op, 0, op->type, 0,
      atomic ? LLVM_ACCESS_ATOMIC_LOAD : LLVM_ACCESS_LOAD,
      ll_bytes(kind) * ll_width(l, op->type2), NULL);
  if (!ptr) return false;
  LLVMValueRef value = NULL;
  if (atomic) {
    ll_scoped_t s = ll_scoped(op, LL_ATOMIC_LOAD);
    if (!(value = ll_atomic(l, op, &s, kind, ptr, NULL))) return false;
  } else {
    value = LLVMBuildLoad2(l->builder, ll_type(l, op->type2), ptr, "");
    /* The host device allows any alignment for plain accesses. */
    LLVMSetAlignment(value, l->hooks->host_semantics ? 1 : ll_bytes(kind));
  }
  ll_set(l, op, 0, value);
  return true;
}

static bool ll_lower_store(llvm_lower_t* l, const loom_op_t* op) {
  loom_type_kind_t kind = LOOM_TYPE(l->m, op->type2).element;
  if (kind == LOOM_TYPE_I1 && ll_width(l, op->type) > 1) {
    return ll_unsupported(l, op, " of i1 vectors");
  }
  if (LOOM_TYPE(l->m, op->type).rank > 1) {
    return ll_lower_shaped_access(l, op, false);
  }
  LLVMValueRef value = ll_operand(l, op, 0);
  llvm_access_t access = ll_is(op, "view.atomic.rmw") ? LLVM_ACCESS_ATOMIC_RMW
                         : ll_is(op, "view.atomic.store")
                             ? LLVM_ACCESS_ATOMIC_STORE
                             : LLVM_ACCESS_STORE;
  LLVMValueRef ptr = value ? ll_address(l, op, 1, op->type2, 0, access,
                                        ll_bytes(kind) * ll_width(l, op->type),
                                        NULL)
                           : NULL;
  if (!ptr) return false;
  if (ll_is(op, "view.atomic.rmw")) {
    ll_scoped_t s = ll_scoped(op, LL_ATOMIC_RMW);
    LLVMValueRef old = ll_atomic(l, op, &s, kind, ptr, value);
    ll_set(l, op, 0, old);
    return old != NULL;
  }
  if (ll_is(op, "view.atomic.store")) {
    ll_scoped_t s = ll_scoped(op, LL_ATOMIC_STORE);
    return ll_atomic(l, op, &s, kind, ptr, value) != NULL;
  }
  LLVMSetAlignment(LLVMBuildStore(l->builder, value, ptr),
                   l->hooks->host_semantics ? 1 : ll_bytes(kind));
  return true;
}

/* The lane-by-lane memory ops of vector_access.h, one element access per
 * lane at the vector's own lane coordinates or at the origin moved along
 * the last view axis by the offsets lane or the count of active lanes
 * before it (expand, compress). A masked lane's address, check
 * and access sit in a block entered only when its mask bit is set, so a
 * lane that is off touches no memory. */
static bool ll_lower_lane_access(llvm_lower_t* l, const loom_op_t* op) {
  LLVMBuilderRef b = l->builder;
  loom_lane_access_t a = loom_lane_access(op);
  const loom_type_t* view = &LOOM_TYPE(l->m, op->type);
  const loom_type_t* v = &LOOM_TYPE(l->m, op->type2);
  loom_type_kind_t kind = view->element;
  if (kind == LOOM_TYPE_I1) return ll_unsupported(l, op, " of i1 vectors");
  LLVMValueRef lanes = ll_operand(l, op, 0);
  LLVMValueRef data = a.data != LOOM_NONE ? ll_operand(l, op, a.data)
                                          : LLVMGetPoison(ll_type(l, op->type2));
  LLVMValueRef origin[8], at[8]; /* ranks are at most 8 (the parser's) */
  if (!lanes || !data) return false;
  for (uint32_t d = 0; d < view->rank; ++d) {
    if (!(origin[d] = ll_operand(l, op, a.view + 1 + d))) return false;
  }
  uint32_t skip = view->rank - v->rank;
  /* Expand and compress: the active lanes so far. */
  LLVMValueRef count = ll_i64(l, 0);
  for (uint32_t k = 0; k < ll_width(l, op->type2); ++k) {
    LLVMValueRef lane = ll_i32(l, k);
    for (uint32_t d = 0; d < view->rank; ++d) {
      at[d] = origin[d];
      if (!a.masked || a.dense || d < skip) continue;
      uint32_t axis = d - skip;
      uint64_t c = k / loom_vector_stride(l->m, op->type2, axis) %
                   (uint64_t)LOOM_DIM(l->m, v->dims_start + axis).size;
      if (c) at[d] = LLVMBuildAdd(b, origin[d], ll_i64(l, (int64_t)c), "");
    }
    if (!a.masked) { /* offsets are signed */
      LLVMValueRef offset = LLVMBuildSExtOrBitCast(
          b, LLVMBuildExtractElement(b, lanes, lane, ""), ll_i(l, 64), "");
      at[view->rank - 1] = LLVMBuildAdd(b, at[view->rank - 1], offset, "");
    }
    if (a.dense) {
      at[view->rank - 1] = LLVMBuildAdd(b, at[view->rank - 1], count, "");
    }
    LLVMBasicBlockRef from = LLVMGetInsertBlock(b), next = NULL;
    if (a.masked) {
      LLVMBasicBlockRef on = ll_block(l, "lane.on");
      next = ll_block(l, "lane.next");
      LLVMBuildCondBr(b, LLVMBuildExtractElement(b, lanes, lane, ""), on,
                      next);
      LLVMPositionBuilderAtEnd(b, on);
    }
    LLVMValueRef ptr = ll_address(
        l, op, a.view, op->type, 0,
        a.load ? LLVM_ACCESS_LOAD : LLVM_ACCESS_STORE, ll_bytes(kind), at);
    if (!ptr) return false;
    LLVMValueRef access =
        a.load ? LLVMBuildLoad2(b, ll_scalar_type(l, kind), ptr, "")
               : LLVMBuildStore(b, LLVMBuildExtractElement(b, data, lane, ""),
                                ptr);
    LLVMSetAlignment(access, l->hooks->host_semantics ? 1 : ll_bytes(kind));
    LLVMValueRef loaded =
        a.load ? LLVMBuildInsertElement(b, data, access, lane, "") : NULL;
    if (!a.masked) {
      if (a.load) data = loaded;
      continue;
    }
    LLVMValueRef counted =
        a.dense ? LLVMBuildAdd(b, count, ll_i64(l, 1), "") : NULL;
    LLVMBasicBlockRef done = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, next);
    LLVMPositionBuilderAtEnd(b, next);
    LLVMBasicBlockRef blocks[] = {done, from};
    if (a.load) {
      LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(data), "");
      LLVMValueRef values[] = {loaded, data};
      LLVMAddIncoming(phi, values, blocks, 2);
      data = phi;
    }
    if (a.dense) {
      LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(count), "");
      LLVMValueRef values[] = {counted, count};
      LLVMAddIncoming(phi, values, blocks, 2);
      count = phi;
    }
  }
  if (a.load) ll_set(l, op, 0, data);
  return true;
}

/*===------------------------------------------------------------------===*/
/* Vectors and subgroups                                                   */
/*===------------------------------------------------------------------===*/

/* a <combine> b for a LOOM_ENUM_COMBINE kind, narrow floats through f32. */
static LLVMValueRef ll_combine(llvm_lower_t* l, uint32_t combine,
                               loom_type_kind_t kind, LLVMValueRef a,
                               LLVMValueRef b) {
  static const ll_arith_t codes[] = {LL_ADD, LL_FADD, LL_MUL, LL_FMUL,
                                     LL_FMAX, LL_FMIN, LL_SMAX, LL_SMIN,
                                     LL_UMAX, LL_UMIN, LL_AND, LL_OR, LL_XOR};
  if (combine >= sizeof(codes) / sizeof(codes[0])) return b; /* xchg */
  LLVMValueRef v[2] = {a, b};
  LLVMTypeRef type = LLVMTypeOf(a);
  bool narrow = ll_narrow_float(kind);
  if (narrow) {
    for (int i = 0; i < 2; ++i) v[i] = ll_convert(l, v[i], ll_widened(l, type));
  }
  LLVMValueRef r = ll_apply(l, NULL, codes[combine], v);
  return narrow ? ll_convert(l, r, type) : r;
}

static bool ll_lower_vector_reduce(llvm_lower_t* l, const loom_op_t* op) {
  LLVMValueRef vector = ll_operand(l, op, 0), acc = ll_operand(l, op, 1);
  if (!vector || !acc) return false;
  loom_type_kind_t kind = ll_element_kind(l, op->type2);
  for (uint32_t e = 0; e < ll_width(l, op->type); ++e) {
    LLVMValueRef x =
        LLVMBuildExtractElement(l->builder, vector, ll_i32(l, e), "");
    acc = ll_combine(l, op->enum_value, kind, acc, x);
  }
  ll_set(l, op, 0, acc);
  return true;
}

/* vector.reduce.axes: each result lane is its init lane combined with
 * its source lanes in order (vector_reduce.h). */
static bool ll_lower_reduce_axes(llvm_lower_t* l, const loom_op_t* op) {
  LLVMBuilderRef b = l->builder;
  LLVMValueRef vector = ll_operand(l, op, 0), init = ll_operand(l, op, 1);
  if (!vector || !init) return false;
  bool lanes = LOOM_TYPE(l->m, op->type2).kind == LOOM_TYPE_VECTOR;
  loom_type_kind_t kind = ll_element_kind(l, op->type);
  uint32_t count = loom_reduce_axes_count(l->m, op);
  LLVMValueRef result = init;
  for (uint32_t r = 0; r < ll_width(l, op->type2); ++r) {
    LLVMValueRef acc =
        lanes ? LLVMBuildExtractElement(b, init, ll_i32(l, r), "") : init;
    for (uint32_t j = 0; j < count; ++j) {
      uint32_t from = loom_reduce_axes_lane(l->m, op, r, j);
      acc = ll_combine(l, op->enum_value, kind, acc,
                       LLVMBuildExtractElement(b, vector, ll_i32(l, from), ""));
    }
    result = lanes ? LLVMBuildInsertElement(b, result, acc, ll_i32(l, r), "")
                   : acc;
  }
  ll_set(l, op, 0, result);
  return true;
}

/* vector.extract / vector.insert: the leading indices select lane
 * sum(index * axis stride); fewer indices than axes select the run of
 * lanes of the trailing axes from there. */
static bool ll_lower_extract_insert(llvm_lower_t* l, const loom_op_t* op) {
  LLVMBuilderRef b = l->builder;
  bool extract = loom_op_defs[op->opcode].shape == LOOM_SHAPE_EXTRACT;
  loom_type_id_t vector_type = extract ? op->type : op->type2;
  loom_type_id_t part_type = extract ? op->type2 : op->type;
  uint32_t first = extract ? 1 : 2;
  LLVMValueRef vector = ll_operand(l, op, extract ? 0 : 1);
  LLVMValueRef part = extract ? NULL : ll_operand(l, op, 0);
  if (!vector || (!extract && !part)) return false;
  LLVMValueRef at = NULL;
  for (uint32_t i = first; i < op->operand_count; ++i) {
    LLVMValueRef index = ll_operand(l, op, i);
    if (!index) return false;
    uint32_t stride = loom_vector_stride(l->m, vector_type, i - first);
    if (stride != 1) index = LLVMBuildMul(b, index, ll_i64(l, stride), "");
    at = at ? LLVMBuildAdd(b, at, index, "") : index;
  }
  bool scalar = LOOM_TYPE(l->m, part_type).kind != LOOM_TYPE_VECTOR;
  uint32_t count = ll_width(l, part_type);
  LLVMValueRef result = vector;
  if (extract) result = scalar ? NULL : LLVMGetPoison(ll_type(l, part_type));
  for (uint32_t k = 0; k < count; ++k) {
    LLVMValueRef lane = k ? LLVMBuildAdd(b, at, ll_i64(l, k), "") : at;
    if (extract) {
      LLVMValueRef x = LLVMBuildExtractElement(b, vector, lane, "");
      result = scalar ? x
                      : LLVMBuildInsertElement(b, result, x, ll_i32(l, k), "");
    } else {
      LLVMValueRef x =
          scalar ? part : LLVMBuildExtractElement(b, part, ll_i32(l, k), "");
      result = LLVMBuildInsertElement(b, result, x, lane, "");
    }
  }
  ll_set(l, op, 0, result);
  return true;
}

static bool ll_lower_splat(llvm_lower_t* l, const loom_op_t* op) {
  LLVMValueRef scalar = ll_operand(l, op, 0);
  if (!scalar) return false;
  LLVMTypeRef type = ll_type(l, op->type);
  LLVMValueRef one = LLVMBuildInsertElement(l->builder, LLVMGetPoison(type),
                                            scalar, ll_i32(l, 0), "");
  LLVMValueRef mask = LLVMConstNull(
      LLVMVectorType(ll_i(l, 32), LLVMGetVectorSize(type)));
  ll_set(l, op, 0, LLVMBuildShuffleVector(l->builder, one,
                                          LLVMGetPoison(type), mask, ""));
  return true;
}

/* Result |r| of a layout op with more sources than one shufflevector
 * takes (vector.concat of three or more): lane by lane, extracted from
 * the source the lane map names and inserted in place. */
static LLVMValueRef ll_layout_lanes(llvm_lower_t* l, const loom_op_t* op,
                                    uint32_t r) {
  uint32_t width = loom_vector_lanes(l->m, op->type);
  LLVMValueRef result = LLVMGetPoison(ll_type(l, op->type2));
  for (uint32_t k = 0; k < loom_vector_lanes(l->m, op->type2); ++k) {
    uint32_t lane = loom_layout_source_lane(l->m, op, r, k);
    LLVMValueRef source = ll_operand(l, op, lane / width);
    if (!source) return NULL;
    LLVMValueRef value = LLVMBuildExtractElement(
        l->builder, source, ll_i32(l, lane % width), "");
    result = LLVMBuildInsertElement(l->builder, result, value, ll_i32(l, k),
                                    "");
  }
  return result;
}

/* vector.broadcast and the other lane moves of vector_layout.h: one
 * shufflevector per result with the op's lane map. */
static bool ll_lower_layout(llvm_lower_t* l, const loom_op_t* op) {
  if (loom_layout_sources(op) > 2) {
    LLVMValueRef result = ll_layout_lanes(l, op, 0);
    if (!result) return false;
    ll_set(l, op, 0, result);
    return true;
  }
  LLVMValueRef source = ll_operand(l, op, 0);
  if (!source) return false;
  /* Lanes past the first source's pick from the second (interleave). */
  LLVMValueRef second = loom_layout_sources(op) > 1
                            ? ll_operand(l, op, 1)
                            : LLVMGetPoison(LLVMTypeOf(source));
  if (!second) return false;
  uint32_t lanes = loom_vector_lanes(l->m, op->type2);
  LLVMValueRef* map = NULL;
  if (!ll_try(l, hrx_allocator_malloc_array(l->allocator, lanes,
                                            sizeof(LLVMValueRef),
                                            (void**)&map))) {
    return false;
  }
  for (uint32_t r = 0; r < loom_layout_results(op); ++r) {
    for (uint32_t k = 0; k < lanes; ++k) {
      map[k] = ll_i32(l, loom_layout_source_lane(l->m, op, r, k));
    }
    LLVMValueRef mask = LLVMConstVector(map, lanes);
    ll_set(l, op, r,
           LLVMBuildShuffleVector(l->builder, source, second, mask, ""));
  }
  hrx_allocator_free(l->allocator, map);
  return true;
}

/* vector.constant, vector.iota and vector.from_elements, lane by lane
 * into a vector register. */
static bool ll_lower_vector_build(llvm_lower_t* l, const loom_op_t* op) {
  LLVMTypeRef type = ll_type(l, op->type);
  loom_type_kind_t element = ll_element_kind(l, op->type);
  unsigned lanes = LLVMGetVectorSize(type);
  bool iota = ll_is(op, "vector.iota");
  LLVMValueRef lane = NULL, step = NULL;
  /* vector.poison carries a zero literal (op_table.c). */
  if (ll_is(op, "vector.constant") || ll_is(op, "vector.poison")) {
    lane = ll_const_bits(l, element, ll_literal_bits(&op->literal, element));
  } else if (iota) {
    lane = ll_operand(l, op, 0);
    step = ll_operand(l, op, 1);
    if (!lane || !step) return false;
  }
  LLVMValueRef vector = LLVMGetPoison(type);
  for (unsigned k = 0; k < lanes; ++k) {
    if (ll_is(op, "vector.from_elements")) {
      lane = ll_operand(l, op, k);
      if (!lane) return false;
    } else if (iota && k) {
      lane = LLVMBuildAdd(l->builder, lane, step, "");
    }
    vector = LLVMBuildInsertElement(l->builder, vector, lane, ll_i32(l, k),
                                    "");
  }
  ll_set(l, op, 0, vector);
  return true;
}

/* Operand |side| (0 lhs, 1 rhs) of product |k| of result lane |r| of a
 * grouped dot, as i32 or f32: dot4i and dot2f take source lanes
 * group * r + k; dot8i4 and dot4f8 field k (low first) of source lane r.
 * Kind bit 0 says the lhs is unsigned (E5M2 for dot4f8), bit 1 the rhs
 * (dot4f8's kinds 0 and 3 have an E5M2 rhs). */
static LLVMValueRef ll_dot_operand(llvm_lower_t* l, const loom_op_t* op,
                                   LLVMValueRef source, unsigned side,
                                   unsigned r, unsigned k) {
  LLVMBuilderRef b = l->builder;
  LLVMTypeRef i32 = ll_i(l, 32);
  unsigned kind = op->enum_value;
  bool other = side == 0 ? (kind & 1) : (kind & 2) != 0;
  if (ll_is(op, "vector.dot4i") || ll_is(op, "vector.dot2f")) {
    unsigned group = ll_is(op, "vector.dot4i") ? 4 : 2;
    LLVMValueRef lane =
        LLVMBuildExtractElement(b, source, ll_i32(l, group * r + k), "");
    if (group == 2) {
      return LLVMBuildFPExt(b, lane, LLVMFloatTypeInContext(l->context), "");
    }
    return other ? LLVMBuildZExt(b, lane, i32, "")
                 : LLVMBuildSExt(b, lane, i32, "");
  }
  unsigned bits = ll_is(op, "vector.dot8i4") ? 4 : 8;
  LLVMValueRef lane = LLVMBuildExtractElement(b, source, ll_i32(l, r), "");
  LLVMValueRef top = LLVMBuildShl(
      b, lane, LLVMConstInt(i32, 32 - bits * (k + 1), false), "");
  LLVMValueRef right = LLVMConstInt(i32, 32 - bits, false);
  if (bits == 4) {
    return other ? LLVMBuildLShr(b, top, right, "")
                 : LLVMBuildAShr(b, top, right, "");
  }
  if (side == 1) other = kind == 0 || kind == 3;
  LLVMValueRef code = LLVMBuildTrunc(b, LLVMBuildLShr(b, top, right, ""),
                                     ll_i(l, 8), "");
  return llvm_f8_widen(l, code, other ? LOOM_TYPE_F8E5M2 : LOOM_TYPE_F8E4M3);
}

/* vector.dotf: fma lane by lane into the accumulator, narrow floats
 * through f32 as scalar.fmaf does. The grouped dots: each accumulator
 * lane adds its group's products, wrapping in i32 (dot4i, dot8i4) or as
 * f32 fmas in product order (dot2f, dot4f8). f16, bf16 and f8 products
 * are exact in f32, so a multiply and an add round as the fma does, and
 * keep gfx11 from v_fma_mix_f32, which its model lacks. A plain
 * expansion on every target, so each gives the reference rounding
 * (gfx11's dot instructions need not). */
static bool ll_lower_dot(llvm_lower_t* l, const loom_op_t* op) {
  LLVMValueRef x = ll_operand(l, op, 0), y = ll_operand(l, op, 1),
               acc = ll_operand(l, op, 2);
  if (!x || !y || !acc) return false;
  LLVMBuilderRef b = l->builder;
  unsigned lanes = ll_width(l, op->type);
  if (ll_is(op, "vector.dotf")) {
    loom_type_kind_t kind = ll_element_kind(l, op->type);
    LLVMTypeRef type = ll_type(l, op->type2);
    bool narrow = ll_narrow_float(kind);
    for (unsigned k = 0; k < lanes; ++k) {
      LLVMValueRef v[3] = {LLVMBuildExtractElement(b, x, ll_i32(l, k), ""),
                           LLVMBuildExtractElement(b, y, ll_i32(l, k), ""),
                           acc};
      for (int i = 0; narrow && i < 3; ++i) {
        v[i] = LLVMBuildFPExt(b, v[i], ll_widened(l, type), "");
      }
      acc = ll_arith_apply(l, LL_FMA, v);
      if (narrow) acc = LLVMBuildFPTrunc(b, acc, type, "");
    }
    ll_set(l, op, 0, acc);
    return true;
  }
  bool is_float = !ll_is(op, "vector.dot4i") && !ll_is(op, "vector.dot8i4");
  unsigned group = ll_is(op, "vector.dot2f") ? 2
                   : ll_is(op, "vector.dot8i4") ? 8 : 4;
  LLVMValueRef result = acc;
  for (unsigned r = 0; r < ll_width(l, op->type2); ++r) {
    LLVMValueRef sum = LLVMBuildExtractElement(b, acc, ll_i32(l, r), "");
    for (unsigned k = 0; k < group; ++k) {
      LLVMValueRef product =
          (is_float ? LLVMBuildFMul : LLVMBuildMul)(
              b, ll_dot_operand(l, op, x, 0, r, k),
              ll_dot_operand(l, op, y, 1, r, k), "");
      sum = (is_float ? LLVMBuildFAdd : LLVMBuildAdd)(b, sum, product, "");
    }
    result = LLVMBuildInsertElement(b, result, sum, ll_i32(l, r), "");
  }
  ll_set(l, op, 0, result);
  return true;
}

/*===------------------------------------------------------------------===*/
/* Matrix fragments (fragment.h has the layout)                            */
/*===------------------------------------------------------------------===*/

/* Fragments are the target's matrix registers: only targets that hold
 * them (hooks->wmma) lower them, with 16 x 16 shapes known by now. */
static bool ll_fragment_check(llvm_lower_t* l, const loom_op_t* op) {
  if (!l->hooks->wmma) {
    return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "%s needs the interpreter or a matrix-core target, not "
                    "%s", ll_op_name(op), l->hooks->name);
  }
  if (ll_is(op, "vector.mma")) return true;
  for (uint32_t i = op->operand_count - 2; i < op->operand_count; ++i) {
    LLVMValueRef extent = ll_operand(l, op, i);
    if (!extent) return false;
    if (!LLVMIsAConstantInt(extent) ||
        LLVMConstIntGetSExtValue(extent) != LOOM_FRAGMENT_DIM) {
      return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                      "%s: the fragment shape must be the constants 16 x 16 "
                      "when the kernel is compiled", ll_op_name(op));
    }
  }
  return true;
}

/* Pointer to element |e| of this lane's share of |role|'s tile, whose
 * origin is in the operands after |view_operand|. */
static LLVMValueRef ll_fragment_pointer(llvm_lower_t* l, const loom_op_t* op,
                                        uint32_t view_operand,
                                        loom_type_id_t view, uint32_t role,
                                        uint32_t e, llvm_access_t access) {
  LLVMBuilderRef b = l->builder;
  LLVMValueRef lane = LLVMBuildZExt(b, l->hooks->lane_id(l), ll_i(l, 64), "");
  LLVMValueRef terms[3] = {
      [LOOM_FRAGMENT_LANE_LOW] =
          LLVMBuildAnd(b, lane, ll_i64(l, LOOM_FRAGMENT_DIM - 1), ""),
      [LOOM_FRAGMENT_LANE_HIGH] = LLVMBuildLShr(b, lane, ll_i64(l, 4), "")};
  loom_fragment_layout_t layout = loom_fragment_layout(role);
  const uint8_t lanes[2] = {layout.row_lane, layout.column_lane};
  const uint8_t steps[2] = {layout.row_step, layout.column_step};
  LLVMValueRef at[2];
  for (uint32_t d = 0; d < 2; ++d) {
    at[d] = ll_operand(l, op, view_operand + 1 + d);
    if (!at[d]) return NULL;
    if (terms[lanes[d]]) at[d] = LLVMBuildAdd(b, at[d], terms[lanes[d]], "");
    if (steps[d] != 0 && e != 0) {
      at[d] = LLVMBuildAdd(b, at[d], ll_i64(l, steps[d] * e), "");
    }
  }
  loom_type_kind_t element = LOOM_TYPE(l->m, view).element;
  return ll_address(l, op, view_operand, view, 0, access, ll_bytes(element),
                    at);
}

/* vector.fragment.load: one element load per fragment element. */
static bool ll_lower_fragment_load(llvm_lower_t* l, const loom_op_t* op) {
  LLVMBuilderRef b = l->builder;
  loom_type_kind_t element = LOOM_TYPE(l->m, op->type).element;
  LLVMValueRef value = LLVMGetUndef(ll_type(l, op->type2));
  for (uint32_t e = 0; e < ll_width(l, op->type2); ++e) {
    LLVMValueRef ptr = ll_fragment_pointer(l, op, 0, op->type, op->enum_value,
                                           e, LLVM_ACCESS_LOAD);
    if (!ptr) return false;
    LLVMValueRef x = LLVMBuildLoad2(b, ll_scalar_type(l, element), ptr, "");
    LLVMSetAlignment(x, ll_bytes(element));
    value = LLVMBuildInsertElement(b, value, x, ll_i32(l, e), "");
  }
  ll_set(l, op, 0, value);
  return true;
}

/* vector.fragment.store: in lhs and rhs fragments lanes 16..31 repeat
 * lanes 0..15, so only lanes 0..15 store them and each element is written
 * once. */
static bool ll_lower_fragment_store(llvm_lower_t* l, const loom_op_t* op) {
  LLVMBuilderRef b = l->builder;
  loom_type_kind_t element = LOOM_TYPE(l->m, op->type2).element;
  LLVMValueRef value = ll_operand(l, op, 0);
  if (!value) return false;
  LLVMBasicBlockRef done = NULL;
  if (loom_fragment_repeats(op->enum_value)) {
    LLVMValueRef low =
        LLVMBuildICmp(b, LLVMIntULT, l->hooks->lane_id(l),
                      LLVMConstInt(ll_i(l, 32), LOOM_FRAGMENT_DIM, 0), "");
    LLVMBasicBlockRef store = ll_block(l, "fragment.store");
    done = ll_block(l, "fragment.stored");
    LLVMBuildCondBr(b, low, store, done);
    LLVMPositionBuilderAtEnd(b, store);
  }
  for (uint32_t e = 0; e < ll_width(l, op->type); ++e) {
    LLVMValueRef ptr = ll_fragment_pointer(l, op, 1, op->type2,
                                           op->enum_value, e,
                                           LLVM_ACCESS_STORE);
    if (!ptr) return false;
    LLVMValueRef x = LLVMBuildExtractElement(b, value, ll_i32(l, e), "");
    LLVMSetAlignment(LLVMBuildStore(b, x, ptr), ll_bytes(element));
  }
  if (done) {
    LLVMBuildBr(b, done);
    LLVMPositionBuilderAtEnd(b, done);
  }
  return true;
}

/* The 16-bit accumulator |acc| (8 lanes) as the 16 halves a WMMA with
 * op_sel[2] clear reads, each in the low half of its VGPR (every even
 * lane; the odd ones it keeps are left undefined), or (|widen| false)
 * the 8 even lanes of such a result. */
static LLVMValueRef ll_mma_halves(llvm_lower_t* l, LLVMValueRef acc,
                                  bool widen) {
  uint32_t count = widen ? LOOM_FRAGMENT_DIM : LOOM_FRAGMENT_DIM / 2;
  LLVMValueRef mask[LOOM_FRAGMENT_DIM];
  for (uint32_t i = 0; i < count; ++i) {
    mask[i] = !widen ? ll_i32(l, 2 * i)
              : i % 2 ? LLVMGetUndef(ll_i(l, 32))
                      : ll_i32(l, i / 2);
  }
  return LLVMBuildShuffleVector(l->builder, acc, LLVMGetUndef(LLVMTypeOf(acc)),
                                LLVMConstVector(mask, count), "");
}

/* vector.mma on i8 sources: llvm.amdgcn.wmma.i32.16x16x16.iu8 with both
 * sources signed, the sources as four i32 lanes, saturate as its clamp. */
static LLVMValueRef ll_lower_mma_iu8(llvm_lower_t* l, const loom_op_t* op,
                                     LLVMValueRef args[3]) {
  LLVMTypeRef i1 = ll_i(l, 1);
  LLVMTypeRef sources = LLVMVectorType(ll_i(l, 32), LOOM_FRAGMENT_DIM / 4);
  LLVMValueRef yes = LLVMConstInt(i1, 1, 0);
  LLVMValueRef call[] = {
      yes, LLVMBuildBitCast(l->builder, args[0], sources, ""),
      yes, LLVMBuildBitCast(l->builder, args[1], sources, ""),
      args[2], LLVMConstInt(i1, op->flags != 0, 0)};
  LLVMTypeRef overloads[] = {ll_type(l, op->type2), sources};
  return llvm_lower_intrinsic(l, "llvm.amdgcn.wmma.i32.16x16x16.iu8",
                              overloads, 2, call, 6);
}

/* vector.mma: one WMMA. Its bf16 forms take bf16 as i16 lanes; 16-bit
 * accumulators use the low half of each VGPR (op_sel[2] clear). */
static bool ll_lower_mma(llvm_lower_t* l, const loom_op_t* op) {
  LLVMBuilderRef b = l->builder;
  LLVMValueRef args[3];
  for (uint32_t i = 0; i < 3; ++i) {
    if (!(args[i] = ll_operand(l, op, i))) return false;
  }
  loom_type_kind_t source = ll_element_kind(l, op->type);
  loom_type_kind_t accumulator = ll_element_kind(l, op->type2);
  if (source == LOOM_TYPE_I8) {
    ll_set(l, op, 0, ll_lower_mma_iu8(l, op, args));
    return true;
  }
  bool bf16 = source == LOOM_TYPE_BF16;
  bool half = accumulator != LOOM_TYPE_F32;
  LLVMTypeRef sources = bf16 ? LLVMVectorType(ll_i(l, 16), LOOM_FRAGMENT_DIM)
                             : ll_type(l, op->type);
  if (bf16) {
    args[0] = LLVMBuildBitCast(b, args[0], sources, "");
    args[1] = LLVMBuildBitCast(b, args[1], sources, "");
  }
  if (bf16 && half) {
    args[2] = LLVMBuildBitCast(
        b, args[2], LLVMVectorType(ll_i(l, 16), LOOM_FRAGMENT_DIM / 2), "");
  }
  if (half) args[2] = ll_mma_halves(l, args[2], true);
  static const char* const names[2][2] = {
      {"llvm.amdgcn.wmma.f32.16x16x16.f16",
       "llvm.amdgcn.wmma.f32.16x16x16.bf16"},
      {"llvm.amdgcn.wmma.f16.16x16x16.f16",
       "llvm.amdgcn.wmma.bf16.16x16x16.bf16"}};
  LLVMValueRef call[] = {args[0], args[1], args[2],
                         LLVMConstInt(ll_i(l, 1), 0, 0)};
  LLVMTypeRef overloads[] = {half ? sources : ll_type(l, op->type2), sources};
  LLVMValueRef d = llvm_lower_intrinsic(l, names[half][bf16], overloads, 2,
                                        call, half ? 4 : 3);
  if (half) {
    d = ll_mma_halves(l, d, false);
    if (bf16) d = LLVMBuildBitCast(b, d, ll_type(l, op->type2), "");
  }
  ll_set(l, op, 0, d);
  return true;
}

static bool ll_lower_fragment(llvm_lower_t* l, const loom_op_t* op) {
  if (!ll_fragment_check(l, op)) return false;
  if (ll_is(op, "vector.fragment")) {
    /* Fragment facts change nothing in the registers. */
    LLVMValueRef value = ll_operand(l, op, 0);
    ll_set(l, op, 0, value);
    return value != NULL;
  }
  if (ll_is(op, "vector.fragment.load")) return ll_lower_fragment_load(l, op);
  if (ll_is(op, "vector.fragment.store")) {
    return ll_lower_fragment_store(l, op);
  }
  return ll_lower_mma(l, op);
}

static uint64_t ll_low_bits(uint64_t width) {
  return width < 64 ? (UINT64_C(1) << width) - 1 : ~UINT64_C(0);
}

/* Bits [start, start + width) of the little-endian stream of the |count|
 * lanes of |src|, each contributing its low |lane_bits| bits, in i64. */
static LLVMValueRef ll_bits_gather(llvm_lower_t* l, LLVMValueRef src,
                                   uint32_t count, uint64_t lane_bits,
                                   uint64_t start, uint64_t width) {
  LLVMBuilderRef b = l->builder;
  LLVMTypeRef i64 = ll_i(l, 64);
  unsigned src_bits = LLVMGetIntTypeWidth(LLVMGetElementType(LLVMTypeOf(src)));
  LLVMValueRef field = LLVMConstInt(i64, 0, 0);
  uint64_t last = (start + width - 1) / lane_bits;
  for (uint64_t k = start / lane_bits; k <= last && k < count; ++k) {
    LLVMValueRef part = LLVMBuildZExtOrBitCast(
        b, LLVMBuildExtractElement(b, src, ll_i32(l, (int64_t)k), ""), i64,
        "");
    if (lane_bits < src_bits) {
      part = LLVMBuildAnd(b, part, LLVMConstInt(i64, ll_low_bits(lane_bits), 0),
                          "");
    }
    uint64_t at = k * lane_bits;
    if (at > start) {
      part = LLVMBuildShl(b, part, LLVMConstInt(i64, at - start, 0), "");
    } else if (at < start) {
      part = LLVMBuildLShr(b, part, LLVMConstInt(i64, start - at, 0), "");
    }
    field = LLVMBuildOr(b, field, part, "");
  }
  return width < 64 ? LLVMBuildAnd(b, field,
                                   LLVMConstInt(i64, ll_low_bits(width), 0), "")
                    : field;
}

/* The bit-field ops as host_bits.c computes them: extract{u,s} and
 * bitunpack{u,s} gather each result lane's field from the source lanes
 * read as one bit stream, bitpack gathers result lane j from the stream
 * of the sources' low width bits, and bitfield.insert replaces a field of
 * each base lane; all in i64. */
static bool ll_lower_bits(llvm_lower_t* l, const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  bool pack = ll_is(op, "vector.bitpack");
  bool insert = ll_is(op, "vector.bitfield.insert");
  LLVMValueRef src = ll_operand(l, op, 0);
  LLVMValueRef base = insert ? ll_operand(l, op, 1) : NULL;
  if (!src || (insert && !base)) return false;
  LLVMBuilderRef b = l->builder;
  LLVMTypeRef i64 = ll_i(l, 64), type = ll_type(l, op->type2);
  uint64_t lane_bits = loom_type_bit_width(ll_element_kind(l, op->type));
  uint64_t to_bits = loom_type_bit_width(ll_element_kind(l, op->type2));
  uint32_t count = ll_width(l, op->type);
  bool is_signed = def->name[strlen(def->name) - 1] == 's';
  uint64_t width = def->attrs ? (uint64_t)op->attrs[LOOM_ATTR_WIDTH]
                              : op->enum_value;
  uint64_t offset = def->attrs ? (uint64_t)op->attrs[LOOM_ATTR_OFFSET] : 0;
  LLVMValueRef result = LLVMGetPoison(type);
  for (unsigned j = 0; j < ll_width(l, op->type2); ++j) {
    LLVMValueRef field = NULL;
    if (pack) {
      field = ll_bits_gather(l, src, count, width, j * to_bits, to_bits);
    } else if (insert) {
      uint64_t mask = ll_low_bits(width) << offset;
      LLVMValueRef bits = LLVMBuildShl(
          b,
          LLVMBuildAnd(b,
                       LLVMBuildZExtOrBitCast(
                           b, LLVMBuildExtractElement(b, src, ll_i32(l, j), ""),
                           i64, ""),
                       LLVMConstInt(i64, ll_low_bits(width), 0), ""),
          LLVMConstInt(i64, offset, 0), "");
      LLVMValueRef kept = LLVMBuildAnd(
          b,
          LLVMBuildZExtOrBitCast(
              b, LLVMBuildExtractElement(b, base, ll_i32(l, j), ""), i64, ""),
          LLVMConstInt(i64, ~mask, 0), "");
      field = LLVMBuildOr(b, kept, bits, "");
    } else {
      uint64_t start = def->attrs ? j * lane_bits + offset : j * width;
      field = ll_bits_gather(l, src, count, lane_bits, start, width);
      if (is_signed && width < 64) {
        LLVMValueRef spare = LLVMConstInt(i64, 64 - width, 0);
        field = LLVMBuildAShr(b, LLVMBuildShl(b, field, spare, ""), spare,
                              "");
      }
    }
    field = LLVMBuildTruncOrBitCast(b, field, LLVMGetElementType(type), "");
    result = LLVMBuildInsertElement(b, result, field, ll_i32(l, j), "");
  }
  ll_set(l, op, 0, result);
  return true;
}

typedef LLVMValueRef (*ll_lane_fn)(llvm_lower_t* l, LLVMValueRef value,
                                   LLVMValueRef lane);

/* |value| (any scalar of up to 64 bits) read from another lane through a
 * 32-bit lane primitive, a word at a time. */
static LLVMValueRef ll_lanes(llvm_lower_t* l, ll_lane_fn read,
                             LLVMValueRef value, LLVMValueRef lane) {
  LLVMBuilderRef b = l->builder;
  LLVMTypeRef type = LLVMTypeOf(value);
  unsigned bits = (unsigned)LLVMSizeOfTypeInBits(l->layout, type);
  LLVMTypeRef raw_type = ll_i(l, bits);
  LLVMValueRef raw = LLVMBuildBitCast(b, value, raw_type, "");
  LLVMTypeRef i32 = ll_i(l, 32);
  LLVMValueRef result = NULL;
  if (bits <= 32) {
    LLVMValueRef word = read(l, LLVMBuildZExtOrBitCast(b, raw, i32, ""), lane);
    result = LLVMBuildTruncOrBitCast(b, word, raw_type, "");
  } else {
    LLVMValueRef shift = LLVMConstInt(raw_type, 32, 0);
    LLVMValueRef lo = read(l, LLVMBuildTrunc(b, raw, i32, ""), lane);
    LLVMValueRef hi = read(
        l, LLVMBuildTrunc(b, LLVMBuildLShr(b, raw, shift, ""), i32, ""), lane);
    result = LLVMBuildOr(
        b, LLVMBuildZExt(b, lo, raw_type, ""),
        LLVMBuildShl(b, LLVMBuildZExt(b, hi, raw_type, ""), shift, ""), "");
  }
  return LLVMBuildBitCast(b, result, type, "");
}

LLVMValueRef llvm_lower_shuffle_source(LLVMBuilderRef b, int64_t mode,
                                       LLVMValueRef lane, LLVMValueRef offset,
                                       LLVMValueRef width, uint32_t size,
                                       LLVMValueRef* out_ok) {
  LLVMTypeRef type = LLVMTypeOf(lane);
  LLVMValueRef lanes = LLVMConstInt(type, size, 0);
  LLVMValueRef zero = LLVMConstInt(type, 0, 0);
  LLVMValueRef in_range =
      LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGT, width, zero, ""),
                   LLVMBuildICmp(b, LLVMIntSLE, width, lanes, ""), "");
  width = LLVMBuildSelect(b, in_range, width, lanes, "");
  LLVMValueRef local = LLVMBuildURem(b, lane, width, "");
  LLVMValueRef base = LLVMBuildSub(b, lane, local, "");
  LLVMValueRef source = NULL;
  switch (mode) {
    case 0: source = LLVMBuildXor(b, local, offset, ""); break;
    case 1: source = LLVMBuildSub(b, local, offset, ""); break;
    case 2: source = LLVMBuildAdd(b, local, offset, ""); break;
    default: source = offset; break;
  }
  *out_ok = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGE, source, zero, ""),
                         LLVMBuildICmp(b, LLVMIntSLT, source, width, ""), "");
  return LLVMBuildAdd(b, base, source, "");
}

/* Shuffles within segments of |width| lanes (the whole subgroup when
 * width is out of range): a source outside the segment leaves the lane's
 * own value and a false |ok|, as on the host device. */
static bool ll_lower_shuffle(llvm_lower_t* l, const loom_op_t* op) {
  if (ll_width(l, op->type) != 1) {
    return ll_unsupported(l, op, " of vectors");
  }
  LLVMValueRef value = ll_operand(l, op, 0), offset = ll_operand(l, op, 1),
               width = ll_operand(l, op, 2);
  if (!value || !offset || !width) return false;
  LLVMBuilderRef b = l->builder;
  LLVMValueRef lane = l->hooks->lane_id(l);
  LLVMValueRef ok = NULL;
  LLVMValueRef source = llvm_lower_shuffle_source(
      b, op->enum_value, lane, offset, width, l->hooks->subgroup_size, &ok);
  LLVMValueRef from = LLVMBuildSelect(b, ok, source, lane, "");
  LLVMValueRef read = ll_lanes(l, l->hooks->read_lane, value, from);
  ll_set(l, op, 0, LLVMBuildSelect(b, ok, read, value, ""));
  ll_set(l, op, 1, ok);
  return true;
}

/* Combines the active lanes of each cluster in lane order (the host
 * device's order, so float sums agree bit for bit): a uniform loop over
 * the active-lane mask reads each lane once; every lane folds in the
 * lanes of its own cluster. */
static bool ll_lower_reduce(llvm_lower_t* l, const loom_op_t* op) {
  LLVMValueRef x = ll_operand(l, op, 0);
  if (!x) return false;
  LLVMBuilderRef b = l->builder;
  uint32_t cluster = op->attrs[LOOM_ATTR_CLUSTER_SIZE] > 0 &&
                             op->attrs[LOOM_ATTR_CLUSTER_SIZE] <
                                 l->hooks->subgroup_size
                         ? (uint32_t)op->attrs[LOOM_ATTR_CLUSTER_SIZE]
                         : l->hooks->subgroup_size;
  LLVMTypeRef i64 = ll_i(l, 64), i1 = ll_i(l, 1);
  LLVMValueRef mask = l->hooks->active_lanes(l);
  LLVMValueRef mine = LLVMBuildUDiv(b, l->hooks->lane_id(l),
                                    ll_i32(l, cluster), "");
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = ll_block(l, "reduce.loop");
  LLVMBasicBlockRef done = ll_block(l, "reduce.done");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef left = LLVMBuildPhi(b, i64, "");
  LLVMValueRef acc = LLVMBuildPhi(b, LLVMTypeOf(x), "");
  LLVMValueRef any = LLVMBuildPhi(b, i1, "");
  LLVMValueRef zero_undef[] = {left, LLVMConstInt(i1, 1, 0)};
  LLVMValueRef next_lane = LLVMBuildTrunc(
      b, llvm_lower_intrinsic(l, "llvm.cttz", &i64, 1, zero_undef, 2), ll_i(l, 32),
      "");
  LLVMValueRef other = ll_lanes(l, l->hooks->read_uniform_lane, x, next_lane);
  LLVMValueRef same = LLVMBuildICmp(
      b, LLVMIntEQ, LLVMBuildUDiv(b, next_lane, ll_i32(l, cluster), ""), mine,
      "");
  LLVMValueRef folded = LLVMBuildSelect(
      b, any, ll_combine(l, op->enum_value, ll_element_kind(l, op->type), acc,
                         other),
      other, "");
  LLVMValueRef acc_next = LLVMBuildSelect(b, same, folded, acc, "");
  LLVMValueRef any_next = LLVMBuildOr(b, any, same, "");
  LLVMValueRef left_next =
      LLVMBuildAnd(b, left, LLVMBuildSub(b, left, LLVMConstInt(i64, 1, 0), ""),
                   "");
  LLVMBuildCondBr(
      b, LLVMBuildICmp(b, LLVMIntNE, left_next, LLVMConstInt(i64, 0, 0), ""),
      loop, done);
  LLVMBasicBlockRef body_end = LLVMGetInsertBlock(b);
  LLVMValueRef left_in[] = {mask, left_next};
  LLVMValueRef acc_in[] = {x, acc_next};
  LLVMValueRef any_in[] = {LLVMConstInt(i1, 0, 0), any_next};
  LLVMBasicBlockRef from[] = {entry, body_end};
  LLVMAddIncoming(left, left_in, from, 2);
  LLVMAddIncoming(acc, acc_in, from, 2);
  LLVMAddIncoming(any, any_in, from, 2);
  LLVMPositionBuilderAtEnd(b, done);
  ll_set(l, op, 0, acc_next);
  return true;
}

/* A workgroup execution barrier whose work-items see each other's
 * workgroup-memory writes from before it. */
static bool ll_workgroup_barrier(llvm_lower_t* l, const loom_op_t* op) {
  ll_scoped_t s = {.what = LL_ATOMIC_FENCE, .ordering = 2 /* release */,
                   .scope = 2 /* workgroup */};
  if (!ll_atomic(l, op, &s, LOOM_TYPE_I32, NULL, NULL)) return false;
  l->hooks->barrier(l, true);
  s.ordering = 1; /* acquire */
  return ll_atomic(l, op, &s, LOOM_TYPE_I32, NULL, NULL) != NULL;
}

/* kernel.workgroup.reduce: each wave reduces its lanes as a subgroup
 * reduction does, lane 0 of wave w stores that in slot w of workgroup
 * memory, and every work-item combines the slots in wave order. The
 * barrier before the stores keeps a loop's next round from overwriting
 * slots still being read. */
static bool ll_lower_workgroup_reduce(llvm_lower_t* l, const loom_op_t* op) {
  if (ll_width(l, op->type) != 1) return ll_unsupported(l, op, " of vectors");
  if (l->hooks->subgroup_size < LOOM_WORKGROUP_REDUCE_MIN_LANES) {
    return ll_unsupported(l, op, " with subgroups under 32 lanes");
  }
  if (!ll_lower_reduce(l, op)) return false;
  LLVMBuilderRef b = l->builder;
  const llvm_target_hooks_t* h = l->hooks;
  LLVMValueRef partial = l->values[op->results_start];
  LLVMTypeRef type = LLVMTypeOf(partial), i32 = ll_i(l, 32);
  uint32_t lanes = h->subgroup_size;
  LLVMValueRef slots = ll_workgroup_memory(
      l, op, LOOM_WORKGROUP_REDUCE_SLOTS * LOOM_WORKGROUP_REDUCE_SLOT_BYTES,
      LOOM_WORKGROUP_REDUCE_SLOT_BYTES);
  if (!slots || !ll_workgroup_barrier(l, op)) return false;
  LLVMValueRef items = LLVMBuildMul(
      b, LLVMBuildMul(b, h->workgroup_size(l, 0), h->workgroup_size(l, 1), ""),
      h->workgroup_size(l, 2), "");
  LLVMValueRef waves = LLVMBuildUDiv(
      b, LLVMBuildAdd(b, items, ll_i32(l, lanes - 1), ""), ll_i32(l, lanes),
      "");
  LLVMValueRef wave =
      LLVMBuildUDiv(b, ll_flat_workitem_id(l), ll_i32(l, lanes), "");
  LLVMBasicBlockRef store = ll_block(l, "wgreduce.store");
  LLVMBasicBlockRef stored = ll_block(l, "wgreduce.stored");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, h->lane_id(l),
                                   ll_i32(l, 0), ""),
                  store, stored);
  LLVMPositionBuilderAtEnd(b, store);
  LLVMValueRef at = LLVMBuildMul(b, LLVMBuildZExt(b, wave, ll_i(l, 64), ""),
                                 ll_i64(l, LOOM_WORKGROUP_REDUCE_SLOT_BYTES), "");
  LLVMSetAlignment(
      LLVMBuildStore(b, partial,
                     LLVMBuildInBoundsGEP2(b, ll_i(l, 8), slots, &at, 1, "")),
      LOOM_WORKGROUP_REDUCE_SLOT_BYTES);
  LLVMBuildBr(b, stored);
  LLVMPositionBuilderAtEnd(b, stored);
  if (!ll_workgroup_barrier(l, op)) return false;
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = ll_block(l, "wgreduce.loop");
  LLVMBasicBlockRef done = ll_block(l, "wgreduce.done");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef i = LLVMBuildPhi(b, i32, "");
  LLVMValueRef acc = LLVMBuildPhi(b, type, "");
  at = LLVMBuildMul(b, LLVMBuildZExt(b, i, ll_i(l, 64), ""), ll_i64(l, LOOM_WORKGROUP_REDUCE_SLOT_BYTES), "");
  LLVMValueRef x = LLVMBuildLoad2(
      b, type, LLVMBuildInBoundsGEP2(b, ll_i(l, 8), slots, &at, 1, ""), "");
  LLVMSetAlignment(x, LOOM_WORKGROUP_REDUCE_SLOT_BYTES);
  LLVMValueRef next = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntEQ, i, ll_i32(l, 0), ""), x,
      ll_combine(l, op->enum_value, ll_element_kind(l, op->type), acc, x),
      "");
  LLVMValueRef i_next = LLVMBuildAdd(b, i, ll_i32(l, 1), "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, i_next, waves, ""), loop,
                  done);
  LLVMBasicBlockRef from[] = {entry, LLVMGetInsertBlock(b)};
  LLVMValueRef i_in[] = {ll_i32(l, 0), i_next};
  LLVMValueRef acc_in[] = {LLVMGetPoison(type), next};
  LLVMAddIncoming(i, i_in, from, 2);
  LLVMAddIncoming(acc, acc_in, from, 2);
  LLVMPositionBuilderAtEnd(b, done);
  ll_set(l, op, 0, next);
  return true;
}

/*===------------------------------------------------------------------===*/
/* Control flow                                                            */
/*===------------------------------------------------------------------===*/

static bool ll_lower_region(llvm_lower_t* l, uint32_t region);

/* Where a branch of an scf.if ended and what it yielded (NULL when it
 * returned instead). */
typedef struct ll_arm_t {
  LLVMBasicBlockRef end;
  LLVMValueRef* values;
} ll_arm_t;

static bool ll_lower_arm(llvm_lower_t* l, const loom_op_t* op, uint32_t region,
                         LLVMBasicBlockRef block, LLVMValueRef* values,
                         ll_arm_t* out) {
  LLVMPositionBuilderAtEnd(l->builder, block);
  out->end = NULL;
  out->values = values;
  if (region != LOOM_NONE && !ll_lower_region(l, region)) return false;
  if (ll_terminated(l)) return true;
  out->end = LLVMGetInsertBlock(l->builder);
  const loom_op_t* yield =
      region != LOOM_NONE ? ll_terminator(l, region) : NULL;
  for (uint32_t r = 0; r < op->result_count; ++r) {
    if (!yield || r >= yield->operand_count ||
        !(values[r] = ll_operand(l, yield, r))) {
      return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                      "scf.if branch yields no value %u", r);
    }
  }
  return true;
}

static bool ll_lower_if(llvm_lower_t* l, const loom_op_t* op) {
  LLVMValueRef cond = ll_operand(l, op, 0);
  if (!cond) return false;
  LLVMBuilderRef b = l->builder;
  LLVMBasicBlockRef then_block = ll_block(l, "if.then");
  LLVMBasicBlockRef else_block = ll_block(l, "if.else");
  LLVMBasicBlockRef merge = ll_block(l, "if.end");
  if (l->hooks->condition) cond = l->hooks->condition(l, op, cond);
  LLVMBuildCondBr(b, cond, then_block, else_block);
  LLVMValueRef* values = NULL;
  if (!ll_try(l, hrx_allocator_malloc_array(
                     l->allocator, 2 * (op->result_count + 1),
                     sizeof(LLVMValueRef), (void**)&values))) {
    return false;
  }
  ll_arm_t arms[2];
  bool ok = ll_lower_arm(l, op, op->regions[0], then_block, values, &arms[0]) &&
            ll_lower_arm(l, op, op->has_else ? op->regions[1] : LOOM_NONE,
                         else_block, values + op->result_count + 1, &arms[1]);
  for (uint32_t r = 0; ok && r < op->result_count; ++r) {
    LLVMValueRef* x = &arms[0].values[r];
    LLVMValueRef* y = &arms[1].values[r];
    if (arms[0].end && arms[1].end &&
        LLVMTypeOf(*x) != LLVMTypeOf(*y)) {
      /* Buffers from two address spaces: cast each at its branch's end. */
      LLVMTypeRef generic = LLVMPointerTypeInContext(l->context, 0);
      LLVMPositionBuilderAtEnd(b, arms[0].end);
      *x = LLVMBuildAddrSpaceCast(b, *x, generic, "");
      LLVMPositionBuilderAtEnd(b, arms[1].end);
      *y = LLVMBuildAddrSpaceCast(b, *y, generic, "");
    }
  }
  for (int a = 0; ok && a < 2; ++a) {
    if (!arms[a].end) continue;
    LLVMPositionBuilderAtEnd(b, arms[a].end);
    LLVMBuildBr(b, merge);
  }
  LLVMPositionBuilderAtEnd(b, merge);
  for (uint32_t r = 0; ok && r < op->result_count; ++r) {
    LLVMValueRef phi = NULL;
    for (int a = 0; a < 2; ++a) {
      if (!arms[a].end) continue;
      if (!phi) phi = LLVMBuildPhi(b, LLVMTypeOf(arms[a].values[r]), "");
      LLVMAddIncoming(phi, &arms[a].values[r], &arms[a].end, 1);
    }
    /* Both branches returned: the join is unreachable. */
    ll_set(l, op, r, phi ? phi : LLVMGetPoison(ll_type(l, LOOM_VALUE(
                                        l->m, op->results_start + r).type)));
  }
  hrx_allocator_free(l->allocator, values);
  return ok;
}

/* Phis at |header| for the carried values |inits| (entering from
 * |entry|), which become the region arguments from |first_arg|. */
static bool ll_carry(llvm_lower_t* l, const loom_op_t* op, uint32_t first_init,
                     uint32_t first_arg, uint32_t count,
                     LLVMBasicBlockRef entry, LLVMValueRef* phis) {
  for (uint32_t k = 0; k < count; ++k) {
    LLVMValueRef init = ll_operand(l, op, first_init + k);
    if (!init) return false;
    phis[k] = LLVMBuildPhi(l->builder, LLVMTypeOf(init), "");
    LLVMAddIncoming(phis[k], &init, &entry, 1);
    l->values[first_arg + k] = phis[k];
  }
  return true;
}

/* Feeds a terminator's operands (from |first|) back into |phis|. */
static bool ll_back_edge(llvm_lower_t* l, const loom_op_t* op,
                         const loom_op_t* term, uint32_t first,
                         LLVMValueRef* phis, uint32_t count) {
  LLVMBasicBlockRef from = LLVMGetInsertBlock(l->builder);
  for (uint32_t k = 0; k < count; ++k) {
    LLVMValueRef v = term && first + k < term->operand_count
                         ? ll_operand(l, term, first + k) : NULL;
    if (!v || LLVMTypeOf(v) != LLVMTypeOf(phis[k])) {
      return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                      "%s carries value %u in a form the %s backend cannot "
                      "lower", ll_op_name(op), k, l->hooks->name);
    }
    LLVMAddIncoming(phis[k], &v, &from, 1);
  }
  return true;
}

static bool ll_lower_for(llvm_lower_t* l, const loom_op_t* op) {
  const loom_region_t* body = &LOOM_REGION(l->m, op->regions[0]);
  LLVMValueRef lo = ll_operand(l, op, 0), hi = ll_operand(l, op, 1),
               step = ll_operand(l, op, 2);
  if (!lo || !hi || !step) return false;
  LLVMBuilderRef b = l->builder;
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef head = ll_block(l, "for.head");
  LLVMBasicBlockRef loop = ll_block(l, "for.body");
  LLVMBasicBlockRef exit = ll_block(l, "for.end");
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  uint32_t count = body->arg_count; /* induction variable + carried */
  LLVMValueRef* phis = NULL;
  if (!ll_try(l, hrx_allocator_malloc_array(l->allocator, count,
                                            sizeof(LLVMValueRef),
                                            (void**)&phis))) {
    return false;
  }
  phis[0] = LLVMBuildPhi(b, LLVMTypeOf(lo), "");
  LLVMAddIncoming(phis[0], &lo, &entry, 1);
  l->values[body->args_start] = phis[0];
  if (l->hooks->loop_induction) {
    l->hooks->loop_induction(l, op, phis[0], lo, hi, step);
  }
  bool ok = ll_carry(l, op, 3, body->args_start + 1, count - 1, entry,
                     phis + 1);
  if (ok) {
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, phis[0], hi, ""), loop,
                    exit);
    LLVMPositionBuilderAtEnd(b, loop);
    ok = ll_lower_region(l, op->regions[0]);
  }
  if (ok && !ll_terminated(l)) {
    if (l->hooks->back_edge) l->hooks->back_edge(l, op);
    LLVMValueRef next = LLVMBuildAdd(b, phis[0], step, "");
    LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
    LLVMAddIncoming(phis[0], &next, &from, 1);
    ok = ll_back_edge(l, op, ll_terminator(l, op->regions[0]), 0, phis + 1,
                      count - 1);
    if (ok) LLVMBuildBr(b, head);
  }
  LLVMPositionBuilderAtEnd(b, exit);
  for (uint32_t r = 0; ok && r < op->result_count; ++r) {
    ll_set(l, op, r, phis[1 + r]);
  }
  hrx_allocator_free(l->allocator, phis);
  return ok;
}

static bool ll_lower_while(llvm_lower_t* l, const loom_op_t* op) {
  const loom_region_t* before = &LOOM_REGION(l->m, op->regions[0]);
  const loom_region_t* after = &LOOM_REGION(l->m, op->regions[1]);
  LLVMBuilderRef b = l->builder;
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef head = ll_block(l, "while.before");
  LLVMBasicBlockRef loop = ll_block(l, "while.after");
  LLVMBasicBlockRef exit = ll_block(l, "while.end");
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef* phis = NULL;
  if (!ll_try(l, hrx_allocator_malloc_array(
                     l->allocator, before->arg_count + 1,
                     sizeof(LLVMValueRef), (void**)&phis))) {
    return false;
  }
  bool ok = ll_carry(l, op, 0, before->args_start, before->arg_count, entry,
                     phis) &&
            ll_lower_region(l, op->regions[0]);
  const loom_op_t* cond = ll_terminator(l, op->regions[0]);
  if (ok && (!cond || ll_terminated(l))) {
    ok = ll_unsupported(l, op, " without a reachable scf.condition");
  }
  LLVMValueRef test = ok ? ll_operand(l, cond, 0) : NULL;
  ok = ok && test;
  /* The forwarded values are the after-region's arguments and, on exit,
   * the results. */
  for (uint32_t k = 0; ok && k < after->arg_count; ++k) {
    LLVMValueRef v = ll_operand(l, cond, 1 + k);
    ok = v != NULL;
    l->values[after->args_start + k] = v;
    if (ok && k < op->result_count) ll_set(l, op, k, v);
  }
  if (ok) {
    LLVMBuildCondBr(b, test, loop, exit);
    LLVMPositionBuilderAtEnd(b, loop);
    ok = ll_lower_region(l, op->regions[1]);
  }
  if (ok && !ll_terminated(l)) {
    if (l->hooks->back_edge) l->hooks->back_edge(l, op);
    ok = ll_back_edge(l, op, ll_terminator(l, op->regions[1]), 0, phis,
                      before->arg_count);
    if (ok) LLVMBuildBr(b, head);
  }
  LLVMPositionBuilderAtEnd(b, exit);
  hrx_allocator_free(l->allocator, phis);
  return ok;
}

/* Inlines a function: parameters alias the arguments; each func.return
 * branches to one block whose phis are the call's results. */
static bool ll_lower_call(llvm_lower_t* l, const loom_op_t* op) {
  const loom_module_t* m = l->m;
  uint32_t index = loom_module_find_func(m, loom_module_string(m, op->symbol));
  if (index == LOOM_NONE) return ll_unsupported(l, op, " of an unknown @");
  if (l->inline_depth >= LL_MAX_INLINE_DEPTH) {
    return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                    "calls nest deeper than %d (recursion?) at @%s",
                    LL_MAX_INLINE_DEPTH, loom_module_string(m, op->symbol));
  }
  const loom_func_t* func = &LOOM_FUNC(m, index);
  if (func->flags & LOOM_FUNC_DECL) {
    return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "@%s is only declared (func.decl); the amdgpu backend "
                    "needs its definition in the module",
                    loom_module_string(m, op->symbol));
  }
  const loom_region_t* body = &LOOM_REGION(m, func->body_region);
  for (uint32_t k = 0; k < body->arg_count; ++k) {
    if (!(l->values[body->args_start + k] = ll_operand(l, op, k))) {
      return false;
    }
  }
  LLVMValueRef* phis = NULL;
  if (!ll_try(l, hrx_allocator_malloc_array(l->allocator,
                                            op->result_count + 1,
                                            sizeof(LLVMValueRef),
                                            (void**)&phis))) {
    return false;
  }
  memset(phis, 0, (op->result_count + 1) * sizeof(LLVMValueRef));
  LLVMBasicBlockRef saved_block = l->return_block;
  LLVMValueRef* saved_phis = l->return_phis;
  l->return_block = ll_block(l, "call.end");
  l->return_phis = phis;
  l->inline_depth++;
  bool ok = ll_lower_region(l, func->body_region);
  l->inline_depth--;
  LLVMPositionBuilderAtEnd(l->builder, l->return_block);
  for (uint32_t r = 0; ok && r < op->result_count; ++r) {
    ll_set(l, op, r, phis[r] ? phis[r] : LLVMGetPoison(ll_type(
                                             l, LOOM_VALUE(m, op->results_start
                                                               + r).type)));
  }
  l->return_block = saved_block;
  l->return_phis = saved_phis;
  hrx_allocator_free(l->allocator, phis);
  return ok;
}

static bool ll_lower_return(llvm_lower_t* l, const loom_op_t* op) {
  if (loom_op_defs[op->opcode].terminator == LOOM_TERM_KERNEL_RETURN) {
    if (l->hooks->kernel_return) {
      l->hooks->kernel_return(l);
    } else {
      LLVMBuildRetVoid(l->builder);
    }
    return true;
  }
  if (loom_op_defs[op->opcode].terminator != LOOM_TERM_FUNC_RETURN) {
    return true; /* scf.yield / scf.condition: read by the parent op */
  }
  LLVMBuilderRef b = l->builder;
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  for (uint32_t k = 0; k < op->operand_count; ++k) {
    LLVMValueRef v = ll_operand(l, op, k);
    if (!v) return false;
    LLVMValueRef* phi = &l->return_phis[k];
    if (!*phi) {
      LLVMPositionBuilderAtEnd(b, l->return_block);
      *phi = LLVMBuildPhi(b, LLVMTypeOf(v), "");
      LLVMPositionBuilderAtEnd(b, from);
    } else if (LLVMTypeOf(*phi) != LLVMTypeOf(v)) {
      return ll_unsupported(l, op, " of buffers in two address spaces");
    }
    LLVMAddIncoming(*phi, &v, &from, 1);
  }
  LLVMBuildBr(b, l->return_block);
  return true;
}

/*===------------------------------------------------------------------===*/
/* Ops                                                                     */
/*===------------------------------------------------------------------===*/

/*===------------------------------------------------------------------===*/
/* Dynamic vectors                                                         */
/*===------------------------------------------------------------------===*/

/* A vector<[%n]xT> is an LLVM vector of its bound's lanes (vector_bound.h),
 * so everything but the ops reading the run-time length lowers as for a
 * static vector. Those take n clamped to the bound: a longer n breaks the
 * index.assume the bound comes from, which the host interpreter (and so
 * every sanitized run) reports as a fault; here it never reaches past the
 * reserved lanes, and each live lane's access is checked as any is. */

/* A diagnostic naming the first dynamic vector of |op| without a bound;
 * true when all have one. */
static bool ll_dynamic_bounded(llvm_lower_t* l, const loom_op_t* op) {
  uint32_t extent = 0;
  const char* why = NULL;
  if (loom_op_vector_bounds(l->m, op, &extent, &why)) return true;
  return ll_error(l, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                  "%s: vector<[%%%s]x...> cannot run: %s", ll_op_name(op),
                  loom_module_string(l->m, LOOM_VALUE(l->m, extent).name),
                  why);
}

/* min(n, bound) for dynamic vector |vector|. */
static LLVMValueRef ll_live_length(llvm_lower_t* l, const loom_op_t* op,
                                   loom_type_id_t vector) {
  LLVMValueRef n = ll_value(l, op, loom_vector_extent_value(l->m, vector));
  if (!n) return NULL;
  LLVMValueRef bound = ll_i64(l, ll_width(l, vector));
  LLVMValueRef fits = LLVMBuildICmp(l->builder, LLVMIntSLT, n, bound, "");
  return LLVMBuildSelect(l->builder, fits, n, bound, "");
}

static LLVMValueRef ll_lane_live(llvm_lower_t* l, LLVMValueRef n,
                                 uint32_t lane) {
  return LLVMBuildICmp(l->builder, LLVMIntSLT, ll_i64(l, lane), n, "");
}

/* vector.load / vector.store of a rank-1 dynamic vector: lane k at the
 * op's indices with k added to the last, in a block of its own that only
 * live lanes enter. Dead lanes of a loaded vector are zero. */
static bool ll_dynamic_access(llvm_lower_t* l, const loom_op_t* op,
                              bool load) {
  LLVMBuilderRef b = l->builder;
  loom_type_id_t view_type = load ? op->type : op->type2;
  loom_type_id_t vector = load ? op->type2 : op->type;
  uint32_t view_operand = load ? 0 : 1;
  const loom_type_t* view = &LOOM_TYPE(l->m, view_type);
  loom_type_kind_t kind = view->element;
  if (kind == LOOM_TYPE_I1) return ll_unsupported(l, op, " of i1 vectors");
  LLVMValueRef n = ll_live_length(l, op, vector);
  LLVMValueRef value = load ? LLVMConstNull(ll_type(l, vector))
                            : ll_operand(l, op, 0);
  LLVMValueRef at[8]; /* ranks are at most 8 (the parser's) */
  if (!n || !value) return false;
  for (uint32_t d = 0; d < view->rank; ++d) {
    if (!(at[d] = ll_operand(l, op, view_operand + 1 + d))) return false;
  }
  uint32_t last = view->rank - 1;
  LLVMValueRef origin = at[last];
  LLVMTypeRef element = ll_scalar_type(l, kind);
  for (uint32_t k = 0; k < ll_width(l, vector); ++k) {
    LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef lane =
        LLVMAppendBasicBlockInContext(l->context, l->function, "lane");
    LLVMBasicBlockRef next =
        LLVMAppendBasicBlockInContext(l->context, l->function, "next");
    LLVMBuildCondBr(b, ll_lane_live(l, n, k), lane, next);
    LLVMPositionBuilderAtEnd(b, lane);
    at[last] = k ? LLVMBuildAdd(b, origin, ll_i64(l, k), "") : origin;
    LLVMValueRef ptr = ll_address(
        l, op, view_operand, view_type, 0,
        load ? LLVM_ACCESS_LOAD : LLVM_ACCESS_STORE, ll_bytes(kind), at);
    if (!ptr) return false;
    LLVMValueRef access = NULL, updated = NULL;
    if (load) {
      access = LLVMBuildLoad2(b, element, ptr, "");
      updated = LLVMBuildInsertElement(b, value, access, ll_i32(l, k), "");
    } else {
      access = LLVMBuildStore(
          b, LLVMBuildExtractElement(b, value, ll_i32(l, k), ""), ptr);
    }
    /* The host device allows any alignment for plain accesses. */
    LLVMSetAlignment(access, l->hooks->host_semantics ? 1 : ll_bytes(kind));
    LLVMBasicBlockRef lane_end = LLVMGetInsertBlock(b);
    LLVMBuildBr(b, next);
    LLVMPositionBuilderAtEnd(b, next);
    if (load) {
      LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(value), "");
      LLVMValueRef values[] = {updated, value};
      LLVMBasicBlockRef blocks[] = {lane_end, from};
      LLVMAddIncoming(phi, values, blocks, 2);
      value = phi;
    }
  }
  if (load) ll_set(l, op, 0, value);
  return true;
}

/* vector.reduce: init <k> each live lane in order; a dead lane keeps the
 * accumulator. */
static bool ll_dynamic_reduce(llvm_lower_t* l, const loom_op_t* op) {
  LLVMValueRef vector = ll_operand(l, op, 0), acc = ll_operand(l, op, 1);
  LLVMValueRef n = ll_live_length(l, op, op->type);
  if (!vector || !acc || !n) return false;
  loom_type_kind_t kind = ll_element_kind(l, op->type2);
  for (uint32_t e = 0; e < ll_width(l, op->type); ++e) {
    LLVMValueRef x =
        LLVMBuildExtractElement(l->builder, vector, ll_i32(l, e), "");
    LLVMValueRef next = ll_combine(l, op->enum_value, kind, acc, x);
    acc = LLVMBuildSelect(l->builder, ll_lane_live(l, n, e), next, acc, "");
  }
  ll_set(l, op, 0, acc);
  return true;
}

/* vector.extract / vector.insert at a constant position past the bound
 * are diagnosed; others lower as for static vectors (a dead lane holds a
 * value no one asked for, never memory). */
static bool ll_dynamic_position(llvm_lower_t* l, const loom_op_t* op) {
  bool extract = loom_op_defs[op->opcode].shape == LOOM_SHAPE_EXTRACT;
  LLVMValueRef at = ll_operand(l, op, extract ? 1 : 2);
  if (!at) return false;
  uint32_t width = ll_width(l, extract ? op->type : op->type2);
  if (LLVMIsAConstantInt(at) &&
      (LLVMConstIntGetSExtValue(at) < 0 ||
       LLVMConstIntGetSExtValue(at) >= (int64_t)width)) {
    return ll_error(l, op->span, HRX_LOOM_DIAG_CONSTANT_RANGE,
                    "%s: position %" PRId64 " is past the vector's bound of "
                    "%u lanes",
                    ll_op_name(op), (int64_t)LLVMConstIntGetSExtValue(at),
                    width);
  }
  return true;
}

/* Lowers the ops of dynamic vectors that read their run-time length;
 * |*done| when |op| was lowered here. */
static bool ll_lower_dynamic(llvm_lower_t* l, const loom_op_t* op,
                             bool* done) {
  *done = false;
  if (!ll_dynamic_bounded(l, op)) return false;
  switch (loom_op_defs[op->opcode].shape) {
    case LOOM_SHAPE_LOAD:
      *done = true;
      return ll_dynamic_access(l, op, true);
    case LOOM_SHAPE_STORE:
      *done = true;
      return ll_dynamic_access(l, op, false);
    case LOOM_SHAPE_VECTOR_REDUCE:
      *done = true;
      return ll_dynamic_reduce(l, op);
    case LOOM_SHAPE_EXTRACT:
    case LOOM_SHAPE_INSERT:
      return ll_dynamic_position(l, op);
    default:
      return true;
  }
}

static bool ll_lower_op(llvm_lower_t* l, const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  if (loom_op_has_dynamic_vector(l->m, op)) {
    bool done = false;
    if (!ll_lower_dynamic(l, op, &done)) return false;
    if (done) return true;
  }
  /* Layouts and schemas are compile-time descriptions read by the
   * accesses using them. */
  if (op->result_count &&
      loom_type_is_encoding(LOOM_TYPE(l->m, op->type).kind)) {
    return true;
  }
  for (size_t i = 0; i < sizeof(ll_arith) / sizeof(ll_arith[0]); ++i) {
    if (!strcmp(def->name, ll_arith[i].name)) {
      return ll_lower_arith(l, op, &ll_arith[i]);
    }
  }
  if (ll_is(op, "vector.constant") || ll_is(op, "vector.poison") ||
      ll_is(op, "vector.iota") || ll_is(op, "vector.from_elements")) {
    return ll_lower_vector_build(l, op);
  }
  if (def->shape == LOOM_SHAPE_FRAGMENT ||
      def->shape == LOOM_SHAPE_FRAGMENT_LOAD ||
      def->shape == LOOM_SHAPE_FRAGMENT_STORE || ll_is(op, "vector.mma")) {
    return ll_lower_fragment(l, op);
  }
  switch (def->shape) {
    case LOOM_SHAPE_CONSTANT: {
      loom_type_kind_t kind = LOOM_TYPE(l->m, op->type).kind;
      ll_set(l, op, 0,
             ll_const_bits(l, kind, ll_literal_bits(&op->literal, kind)));
      return true;
    }
    case LOOM_SHAPE_CONFIG_GET: {
      const loom_config_value_t* value = loom_specialization_find(
          l->spec, loom_module_string(l->m, op->symbol));
      if (!value) {
        return ll_error(l, op->span, HRX_LOOM_DIAG_CONFIG_MISSING,
                        "config @%s has no value",
                        loom_module_string(l->m, op->symbol));
      }
      ll_set(l, op, 0, ll_const_bits(l, value->kind, value->bits));
      return true;
    }
    case LOOM_SHAPE_COMPARE:
      return ll_lower_compare(l, op);
    case LOOM_SHAPE_CAST:
      return ll_lower_cast(l, op);
    case LOOM_SHAPE_NULLARY:
      return ll_lower_geometry(l, op);
    case LOOM_SHAPE_ASSUME:
    case LOOM_SHAPE_MEMORY_SPACE:
    case LOOM_SHAPE_NOALIAS:
      /* Facts for the host's sanitizers; copies here. */
      for (uint32_t r = 0; r < op->result_count; ++r) {
        LLVMValueRef v = ll_operand(l, op, r);
        if (!v) return false;
        ll_set(l, op, r, v);
      }
      return true;
    case LOOM_SHAPE_BUFFER_VIEW:
      return ll_lower_view(l, op);
    case LOOM_SHAPE_ALLOCA:
      return ll_lower_alloca(l, op);
    case LOOM_SHAPE_LOAD:
      return ll_lower_load(l, op);
    case LOOM_SHAPE_STORE:
    case LOOM_SHAPE_RMW:
      return ll_lower_store(l, op);
    case LOOM_SHAPE_LANE_LOAD:
    case LOOM_SHAPE_LANE_STORE:
      return ll_lower_lane_access(l, op);
    case LOOM_SHAPE_REDUCE_AXES:
      return ll_lower_reduce_axes(l, op);
    case LOOM_SHAPE_EXTRACT:
    case LOOM_SHAPE_INSERT:
      return ll_lower_extract_insert(l, op);
    case LOOM_SHAPE_SPLAT:
      return ll_lower_splat(l, op);
    case LOOM_SHAPE_DOT:
      return ll_lower_dot(l, op);
    case LOOM_SHAPE_BITS:
      return ll_lower_bits(l, op);
    case LOOM_SHAPE_LAYOUT:
      return ll_lower_layout(l, op);
    case LOOM_SHAPE_VECTOR_REDUCE:
      return ll_lower_vector_reduce(l, op);
    case LOOM_SHAPE_SHUFFLE:
      return ll_lower_shuffle(l, op);
    case LOOM_SHAPE_REDUCE:
      if (ll_is(op, "kernel.workgroup.reduce")) {
        return ll_lower_workgroup_reduce(l, op);
      }
      return ll_lower_reduce(l, op);
    case LOOM_SHAPE_SYNC:
      return ll_lower_sync(l, op);
    case LOOM_SHAPE_SELECT:
      return ll_lower_select(l, op);
    case LOOM_SHAPE_IF:
      return ll_lower_if(l, op);
    case LOOM_SHAPE_FOR:
      return ll_lower_for(l, op);
    case LOOM_SHAPE_WHILE:
      return ll_lower_while(l, op);
    case LOOM_SHAPE_CALL:
      return ll_lower_call(l, op);
    case LOOM_SHAPE_TERMINATOR:
      return ll_lower_return(l, op);
    default:
      return ll_unsupported(l, op, "");
  }
}

static bool ll_lower_region(llvm_lower_t* l, uint32_t region_id) {
  const loom_region_t* region = &LOOM_REGION(l->m, region_id);
  for (uint32_t i = 0; i < region->op_count; ++i) {
    if (ll_terminated(l)) break; /* after a return: unreachable */
    if (!ll_lower_op(l, &LOOM_OP(l->m, LOOM_REGION_OP(l->m, region, i)))) {
      return false;
    }
  }
  return true;
}

bool llvm_lower_region(llvm_lower_t* l, uint32_t region) {
  return ll_lower_region(l, region);
}

bool llvm_lower_op(llvm_lower_t* l, const loom_op_t* op) {
  return ll_lower_op(l, op);
}

LLVMTypeRef llvm_lower_type(llvm_lower_t* l, loom_type_id_t type) {
  return ll_type(l, type);
}

LLVMValueRef llvm_lower_combine(llvm_lower_t* l, uint32_t combine,
                                loom_type_kind_t kind, LLVMValueRef a,
                                LLVMValueRef b) {
  return ll_combine(l, combine, kind, a, b);
}

/*===------------------------------------------------------------------===*/
/* Kernels                                                                 */
/*===------------------------------------------------------------------===*/

/* Gives the kernel's workgroup memory its final size: one array, replacing
 * the placeholder every alloca addressed. */
static void ll_finish_lds(llvm_lower_t* l, const char* kernel_name) {
  if (!l->lds) return;
  char name[HRX_LOOM_MAX_KERNEL_NAME + 16];
  snprintf(name, sizeof(name), "%s.lds", kernel_name);
  LLVMTypeRef type = LLVMArrayType2(ll_i(l, 8), l->lds_size);
  LLVMValueRef lds = LLVMAddGlobalInAddressSpace(l->module, type, name,
                                                 l->hooks->workgroup_space);
  LLVMSetInitializer(lds, LLVMGetUndef(type));
  LLVMSetLinkage(lds, LLVMInternalLinkage);
  LLVMSetAlignment(lds, (unsigned)l->lds_align);
  LLVMReplaceAllUsesWith(l->lds, lds);
  LLVMDeleteGlobal(l->lds);
  l->lds = NULL;
}

/* Each argument's Loom type name as "kernel_arg_type" metadata: the
 * amdgpu metadata note then carries it as the argument's .type_name, so
 * a loader tells an f32 scalar from an i32 one. */
static void ll_kernel_arg_types(llvm_lower_t* l, const loom_region_t* body) {
  const loom_module_t* m = l->m;
  LLVMMetadataRef* names = NULL;
  if (body->arg_count == 0 ||
      !ll_try(l, hrx_allocator_malloc_array(l->allocator, body->arg_count,
                                            sizeof(LLVMMetadataRef),
                                            (void**)&names))) {
    return;
  }
  for (uint32_t a = 0; a < body->arg_count; ++a) {
    const char* type = loom_type_kind_name(
        LOOM_TYPE(m, LOOM_VALUE(m, body->args_start + a).type).kind);
    names[a] = LLVMMDStringInContext2(l->context, type, strlen(type));
  }
  LLVMMetadataRef node =
      LLVMMDNodeInContext2(l->context, names, body->arg_count);
  const char kind[] = "kernel_arg_type";
  LLVMGlobalSetMetadata(
      l->function,
      LLVMGetMDKindIDInContext(l->context, kind, (unsigned)strlen(kind)),
      node);
  hrx_allocator_free(l->allocator, names);
}

bool llvm_lower_kernel(llvm_lower_t* l, uint32_t kernel_index,
                       uint32_t max_threads, llvm_kernel_info_t* out) {
  const loom_module_t* m = l->m;
  const loom_kernel_t* kernel = &LOOM_KERNEL(m, kernel_index);
  const loom_region_t* body = &LOOM_REGION(m, kernel->body_region);
  memset(out, 0, sizeof(*out));
  memset(l->values, 0, (m->values.count ? m->values.count : 1) *
                           sizeof(LLVMValueRef));
  l->lds = NULL;
  l->lds_size = 0;
  l->lds_align = 16;
  l->private_size = 0;
  LLVMTypeRef* params = NULL;
  if (!ll_try(l, hrx_allocator_malloc_array(
                     l->allocator, body->arg_count + 1, sizeof(LLVMTypeRef),
                     (void**)&params)) ||
      !ll_try(l, hrx_allocator_malloc_array(
                     l->allocator, body->arg_count + 1,
                     sizeof(llvm_kernel_arg_t), (void**)&out->args))) {
    hrx_allocator_free(l->allocator, params);
    return false;
  }
  /* Launch-signature order, each argument at its natural alignment. */
  uint64_t offset = 0;
  for (uint32_t a = 0; a < body->arg_count; ++a) {
    loom_type_kind_t kind =
        LOOM_TYPE(m, LOOM_VALUE(m, body->args_start + a).type).kind;
    params[a] = ll_scalar_type(l, kind);
    uint64_t align = LLVMABIAlignmentOfType(l->layout, params[a]);
    uint64_t size = LLVMABISizeOfType(l->layout, params[a]);
    offset = (offset + align - 1) & ~(align - 1);
    out->args[a] = (llvm_kernel_arg_t){.offset = (uint32_t)offset,
                                       .size = (uint32_t)size,
                                       .buffer = kind == LOOM_TYPE_BUFFER};
    offset += size;
  }
  out->arg_count = body->arg_count;
  out->explicit_kernarg_size = (uint32_t)offset;
  const char* name = loom_kernel_code_name(m, kernel);
  LLVMTypeRef fn_type = LLVMFunctionType(LLVMVoidTypeInContext(l->context),
                                         params, body->arg_count, 0);
  hrx_allocator_free(l->allocator, params);
  l->function = LLVMAddFunction(l->module, name, fn_type);
  LLVMSetFunctionCallConv(l->function, l->hooks->kernel_call_conv);
  l->hooks->kernel_attributes(l, l->function, max_threads);
  ll_kernel_arg_types(l, body);
  for (uint32_t a = 0; a < body->arg_count; ++a) {
    LLVMValueRef param = LLVMGetParam(l->function, a);
    const char* arg_name =
        loom_module_string(m, LOOM_VALUE(m, body->args_start + a).name);
    LLVMSetValueName2(param, arg_name, strlen(arg_name));
    l->values[body->args_start + a] = param;
  }
  LLVMPositionBuilderAtEnd(l->builder, ll_block(l, "entry"));
  bool ok = ll_lower_region(l, kernel->body_region);
  if (ok && !ll_terminated(l)) LLVMBuildRetVoid(l->builder);
  out->function = l->function;
  out->group_segment_size = (uint32_t)l->lds_size;
  ll_finish_lds(l, name);
  return ok;
}

/*===------------------------------------------------------------------===*/
/* Setup                                                                   */
/*===------------------------------------------------------------------===*/

hrx_status_t llvm_lower_init(llvm_lower_t* l, const loom_module_t* m,
                             const hrx_loom_specialization_t* spec,
                             const llvm_target_hooks_t* hooks,
                             LLVMModuleRef module,
                             hrx_loom_diagnostics_t* diagnostics,
                             hrx_allocator_t allocator) {
  memset(l, 0, sizeof(*l));
  l->m = m;
  l->spec = spec;
  l->hooks = hooks;
  l->diagnostics = diagnostics;
  l->allocator = allocator;
  l->module = module;
  l->context = LLVMGetModuleContext(module);
  hrx_string_builder_init(allocator, &l->helpers);
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      allocator, m->values.count ? m->values.count : 1, sizeof(LLVMValueRef),
      (void**)&l->values));
  l->builder = LLVMCreateBuilderInContext(l->context);
  l->layout = LLVMCreateTargetData(LLVMGetDataLayoutStr(module));
  return HRX_OK;
}

void llvm_lower_deinit(llvm_lower_t* l) {
  if (l->builder) LLVMDisposeBuilder(l->builder);
  if (l->layout) LLVMDisposeTargetData(l->layout);
  hrx_allocator_free(l->allocator, l->values);
  hrx_string_builder_deinit(&l->helpers);
  hrx_status_free(l->status);
  memset(l, 0, sizeof(*l));
}

hrx_status_t llvm_lower_finish(llvm_lower_t* l) {
  if (!l->helpers.length) return HRX_OK;
  LLVMMemoryBufferRef text = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      hrx_string_builder_cstr(&l->helpers), l->helpers.length, "hrx-helpers");
  LLVMModuleRef helpers = NULL;
  char* message = NULL;
  if (LLVMParseIRInContext(l->context, text, &helpers, &message)) {
    hrx_status_t status = hrx_make_status(
        HRX_STATUS_INTERNAL, "scoped atomic helpers do not parse: %s",
        message ? message : "?");
    LLVMDisposeMessage(message);
    return status;
  }
  LLVMSetDataLayout(helpers, LLVMGetDataLayoutStr(l->module));
  LLVMSetTarget(helpers, LLVMGetTarget(l->module));
  /* Destroys |helpers|. */
  if (LLVMLinkModules2(l->module, helpers)) {
    return hrx_make_status(HRX_STATUS_INTERNAL,
                           "scoped atomic helpers do not link");
  }
  return HRX_OK;
}
