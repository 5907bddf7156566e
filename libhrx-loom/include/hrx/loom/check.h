/* Loom's executable test forms as plain data for a runner.
 *
 * A module's check.case, check.scenario and check.benchmark records are
 * listed in source order. A case is described as the values it declares
 * (scalars and generated tensors) and the steps its body takes in order
 * (kernel launches and expectations), so that a runner needs nothing of the
 * IR: it materialises the values, runs the steps and compares.
 */
#ifndef HRX_LOOM_CHECK_H_
#define HRX_LOOM_CHECK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/loom/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tensors of higher rank are described as unsupported. */
#define HRX_LOOM_CHECK_MAX_RANK 8

typedef enum hrx_loom_check_kind_e {
  HRX_LOOM_CHECK_CASE = 0,
  HRX_LOOM_CHECK_SCENARIO,  /* described like a case; runners list it only */
  HRX_LOOM_CHECK_BENCHMARK, /* names a case; no body of its own */
} hrx_loom_check_kind_t;

typedef struct hrx_loom_check_info_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  hrx_loom_check_kind_t kind;
  const char* name;     /* without '@', borrowed from the module */
  const char* subject;  /* BENCHMARK: the case it measures; else NULL */
  bool is_public;
} hrx_loom_check_info_t;

HRX_API size_t hrx_loom_module_check_count(const hrx_loom_module_t* module);
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_module_check_info(
    const hrx_loom_module_t* module, size_t index,
    hrx_loom_check_info_t* out_info);

/* A literal as written: integers for integer and index elements, floats
 * for float ones. */
typedef struct hrx_loom_check_number_t {
  bool is_float;
  int64_t i;
  double f;
} hrx_loom_check_number_t;

typedef enum hrx_loom_check_value_kind_e {
  /* One element: index.constant, scalar.constant, check.literal. */
  HRX_LOOM_CHECK_VALUE_SCALAR = 0,
  /* element k = offset + step * (k mod period), period 0 meaning none. */
  HRX_LOOM_CHECK_VALUE_IOTA,
  /* Every element is |value|. */
  HRX_LOOM_CHECK_VALUE_FILL,
} hrx_loom_check_value_kind_t;

typedef struct hrx_loom_check_value_t {
  const char* name;  /* without '%', borrowed from the module */
  hrx_loom_check_value_kind_t kind;
  hrx_loom_arg_type_t element;  /* the scalar type or the tensor's element */
  uint32_t rank;                /* 0 for a scalar */
  int64_t shape[HRX_LOOM_CHECK_MAX_RANK];
  uint64_t element_count;       /* product of the shape; 1 for a scalar */
  hrx_loom_check_number_t value;  /* SCALAR, FILL; IOTA: the offset */
  hrx_loom_check_number_t step;   /* IOTA */
  uint64_t period;                /* IOTA; 0 when absent */
} hrx_loom_check_value_t;

/* The bits of element |k| of |value| as a runner stores it: a float
 * rounded to the element's width, an integer in two's complement; the low
 * bytes of the result, little-endian, are the element in memory. */
HRX_API uint64_t hrx_loom_check_value_bits(
    const hrx_loom_check_value_t* value, uint64_t k);

typedef enum hrx_loom_check_step_kind_e {
  HRX_LOOM_CHECK_STEP_LAUNCH = 0,
  HRX_LOOM_CHECK_STEP_EXPECT,
} hrx_loom_check_step_kind_t;

typedef enum hrx_loom_check_expect_e {
  HRX_LOOM_CHECK_EXPECT_EQUAL = 0, /* same numbers (+0 equals -0) */
  HRX_LOOM_CHECK_EXPECT_BITWISE,   /* same bits */
  HRX_LOOM_CHECK_EXPECT_CLOSE,     /* |a - e| <= atol + rtol * |e| */
} hrx_loom_check_expect_t;

typedef struct hrx_loom_check_step_t {
  hrx_loom_check_step_kind_t kind;
  /* LAUNCH: the kernel's code-object name (export name, else symbol);
   * workload values then arguments, as indexes into the case's values. A
   * tensor argument binds a buffer parameter. */
  const char* kernel;
  const uint32_t* workload;
  size_t workload_count;
  const uint32_t* args;
  size_t arg_count;
  /* EXPECT: value indexes of what the case holds and what it should. */
  hrx_loom_check_expect_t expect;
  uint32_t actual;
  uint32_t expected;
  double atol, rtol;   /* CLOSE */
  bool nan_same;       /* CLOSE: NaN matches NaN (nan(same)) */
} hrx_loom_check_step_t;

typedef struct hrx_loom_check_case_t {
  const char* name;
  const hrx_loom_check_value_t* values;
  size_t value_count;
  const hrx_loom_check_step_t* steps;
  size_t step_count;
} hrx_loom_check_case_t;

/* Describes the case or scenario |index| (of hrx_loom_module_check_count)
 * of a verified module. A form no runner can use (a dynamic tensor shape,
 * an op other than constants, sources, launches and expectations) is
 * UNIMPLEMENTED naming the case and the form; a benchmark is
 * INVALID_ARGUMENT.
 * The result borrows names from |module|, which must outlive it. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_check_case_describe(
    const hrx_loom_module_t* module, size_t index, hrx_allocator_t allocator,
    hrx_loom_check_case_t** out_case);
HRX_API void hrx_loom_check_case_destroy(hrx_loom_check_case_t* check_case);

#ifdef __cplusplus
}
#endif

#endif /* HRX_LOOM_CHECK_H_ */
