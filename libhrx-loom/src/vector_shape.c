#include "vector_shape.h"

bool loom_vector_is_dynamic(const loom_module_t* module, loom_type_id_t type) {
  const loom_type_t* t = &LOOM_TYPE(module, type);
  if (t->kind != LOOM_TYPE_VECTOR) return false;
  for (uint32_t d = 0; d < t->rank; ++d) {
    if (LOOM_DIM(module, t->dims_start + d).size < 0) return true;
  }
  return false;
}

uint32_t loom_vector_lanes(const loom_module_t* module, loom_type_id_t type) {
  const loom_type_t* t = &LOOM_TYPE(module, type);
  if (t->kind != LOOM_TYPE_VECTOR) return 1;
  return loom_vector_stride(module, type, 0) *
         (uint32_t)(LOOM_DIM(module, t->dims_start).size < 0
                        ? 0
                        : LOOM_DIM(module, t->dims_start).size);
}

uint32_t loom_vector_stride(const loom_module_t* module, loom_type_id_t type,
                            uint32_t axis) {
  const loom_type_t* t = &LOOM_TYPE(module, type);
  uint32_t stride = 1;
  for (uint32_t d = axis + 1; d < t->rank; ++d) {
    int64_t size = LOOM_DIM(module, t->dims_start + d).size;
    /* The parser keeps static products within LOOM_VECTOR_MAX_LANES. */
    stride *= size < 0 ? 0 : (uint32_t)size;
  }
  return stride;
}

static bool loom_dims_equal(const loom_module_t* module, const loom_type_t* a,
                            uint32_t a_first, const loom_type_t* b) {
  if (a->rank - a_first != b->rank) return false;
  for (uint32_t d = 0; d < b->rank; ++d) {
    const loom_dim_t* x = &LOOM_DIM(module, a->dims_start + a_first + d);
    const loom_dim_t* y = &LOOM_DIM(module, b->dims_start + d);
    if (x->size != y->size || (x->size < 0 && x->value != y->value)) {
      return false;
    }
  }
  return true;
}

bool loom_vector_same_shape(const loom_module_t* module, loom_type_id_t a,
                            loom_type_id_t b) {
  const loom_type_t* x = &LOOM_TYPE(module, a);
  const loom_type_t* y = &LOOM_TYPE(module, b);
  return x->kind == LOOM_TYPE_VECTOR && y->kind == LOOM_TYPE_VECTOR &&
         loom_dims_equal(module, x, 0, y);
}

bool loom_vector_is_tail(const loom_module_t* module, loom_type_id_t whole,
                         uint32_t count, loom_type_id_t part) {
  const loom_type_t* w = &LOOM_TYPE(module, whole);
  const loom_type_t* p = &LOOM_TYPE(module, part);
  if (w->kind != LOOM_TYPE_VECTOR || count > w->rank) return false;
  if (count == w->rank) return p->kind == w->element;
  return p->kind == LOOM_TYPE_VECTOR && p->element == w->element &&
         loom_dims_equal(module, w, count, p);
}

bool loom_op_has_dynamic_vector(const loom_module_t* module,
                                const loom_op_t* op) {
  for (uint32_t i = 0; i < op->operand_count; ++i) {
    uint32_t operand = LOOM_OPERAND(module, op, i);
    if (!loom_operand_is_static(operand) &&
        loom_vector_is_dynamic(module, LOOM_VALUE(module, operand).type)) {
      return true;
    }
  }
  for (uint32_t r = 0; r < op->result_count; ++r) {
    loom_type_id_t type = LOOM_VALUE(module, op->results_start + r).type;
    if (loom_vector_is_dynamic(module, type)) return true;
  }
  return false;
}
