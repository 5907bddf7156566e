/* Float functions composed from a few primitive operations, written once
 * and emitted by each backend through its own primitives: the host
 * backend's ISA (host_math.c) and the host's native code (host_native.c)
 * evaluate them in f64 for f32, f16 and bf16 operands, step for step
 * alike, so the interpreter and native code agree bit for bit; the amdgpu
 * lowering (llvm_lower.c) evaluates them in f32 on the GPU's exp, log,
 * sqrt, sin and cos. The accuracy each reaches is stated in
 * math_formulas.c and measured by tests/loom/test_language_math2.c (host)
 * and tests/fabric/test_gfx11_diff.c (gfx1151 against the host). */
#ifndef HRX_LOOM_MATH_FORMULAS_H_
#define HRX_LOOM_MATH_FORMULAS_H_

#include <stdbool.h>
#include <stdint.h>

/* A backend's value handle (a host register number or an LLVMValueRef). */
typedef uintptr_t lm_value_t;

typedef enum lm_unary_e {
  LM_NEG, LM_ABS, LM_SQRT, LM_EXP, LM_LOG, LM_SIN, LM_COS,
} lm_unary_t;

typedef enum lm_binary_e { LM_ADD, LM_SUB, LM_MUL, LM_DIV } lm_binary_t;

/* Ordered compares (false when either side is NaN). */
typedef enum lm_compare_e { LM_EQ, LM_LT, LM_GT } lm_compare_t;

typedef struct lm_emit_t {
  void* self;
  lm_value_t (*constant)(void* self, double value);
  lm_value_t (*unary)(void* self, lm_unary_t op, lm_value_t x);
  lm_value_t (*binary)(void* self, lm_binary_t op, lm_value_t x,
                       lm_value_t y);
  lm_value_t (*fma)(void* self, lm_value_t x, lm_value_t y, lm_value_t z);
  lm_value_t (*compare)(void* self, lm_compare_t op, lm_value_t x,
                        lm_value_t y);
  lm_value_t (*unordered)(void* self, lm_value_t x, lm_value_t y);
  lm_value_t (*both)(void* self, lm_value_t c, lm_value_t d); /* c and d */
  lm_value_t (*select)(void* self, lm_value_t c, lm_value_t x,
                       lm_value_t y);
  /* whether x's sign bit is set (-0 and negative NaNs too) */
  lm_value_t (*sign_bit)(void* self, lm_value_t x);
} lm_emit_t;

typedef enum lm_function_e {
  LM_EXPM1, LM_LOG1P, LM_SINH, LM_COSH, LM_TAN, LM_ATAN, LM_ATAN2, LM_ASIN,
  LM_ACOS, LM_CBRT, LM_LOGISTIC, LM_SOFTPLUS, LM_FUNCTION_COUNT,
} lm_function_t;

/* The function named |name| ("expm1f", without the dialect), if any. */
bool lm_function_named(const char* name, lm_function_t* out);

/* |fn| of |x| (atan2: of y = |x| and x = |y|), through |e|. */
lm_value_t lm_emit_function(const lm_emit_t* e, lm_function_t fn,
                            lm_value_t x, lm_value_t y);

#endif /* HRX_LOOM_MATH_FORMULAS_H_ */
