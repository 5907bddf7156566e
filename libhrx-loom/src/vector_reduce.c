#include "vector_reduce.h"

#include "vector_shape.h"

/* Whether source axis |d| is one of |op|'s reduced axes. */
static bool loom_reduce_axes_has(const loom_module_t* module,
                                 const loom_op_t* op, uint32_t d) {
  for (uint32_t i = 2; i < op->operand_count; ++i) {
    if (LOOM_STATIC(module, LOOM_OPERAND(module, op, i)) == (int64_t)d) {
      return true;
    }
  }
  return false;
}

uint32_t loom_reduce_axes_count(const loom_module_t* module,
                                const loom_op_t* op) {
  const loom_type_t* t = &LOOM_TYPE(module, op->type);
  uint32_t count = 1;
  for (uint32_t d = 0; d < t->rank; ++d) {
    if (loom_reduce_axes_has(module, op, d)) {
      count *= (uint32_t)LOOM_DIM(module, t->dims_start + d).size;
    }
  }
  return count;
}

/* Both |lane| over the kept axes and |step| over the reduced ones are
 * row-major: walk the axes from the last, taking each coordinate from the
 * one that axis belongs to. */
uint32_t loom_reduce_axes_lane(const loom_module_t* module,
                               const loom_op_t* op, uint32_t lane,
                               uint32_t step) {
  const loom_type_t* t = &LOOM_TYPE(module, op->type);
  uint32_t source = 0;
  for (uint32_t d = t->rank; d-- > 0;) {
    uint32_t extent = (uint32_t)LOOM_DIM(module, t->dims_start + d).size;
    uint32_t* rest = loom_reduce_axes_has(module, op, d) ? &step : &lane;
    source += *rest % extent * loom_vector_stride(module, op->type, d);
    *rest /= extent;
  }
  return source;
}
