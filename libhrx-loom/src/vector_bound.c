#include "vector_bound.h"

#include <string.h>

#include "op_table.h"
#include "vector_shape.h"

#define LOOM_STRINGIFY_(x) #x
#define LOOM_STRINGIFY(x) LOOM_STRINGIFY_(x)

uint32_t loom_vector_extent_value(const loom_module_t* module,
                                  loom_type_id_t type) {
  const loom_type_t* t = &LOOM_TYPE(module, type);
  return LOOM_DIM(module, t->dims_start).value;
}

/* The literal bound a fact of |assume| puts on its operand |operand|, or
 * -1. */
static int64_t loom_fact_bound(const loom_module_t* module,
                               const loom_op_t* assume, uint32_t operand) {
  int64_t bound = -1;
  for (uint32_t p = 0; p < assume->pred_count; ++p) {
    const loom_pred_t* pred = &LOOM_PRED(module, assume->preds_start + p);
    if (pred->args[0].is_static || pred->args[0].value != operand) continue;
    int64_t at = -1;
    if (pred->kind == LOOM_PRED_RANGE && pred->args[2].is_static) {
      at = pred->args[2].constant;
    } else if (pred->kind == LOOM_PRED_LE && pred->args[1].is_static) {
      at = pred->args[1].constant;
    } else if (pred->kind == LOOM_PRED_LT && pred->args[1].is_static) {
      at = pred->args[1].constant - 1;
    }
    if (at >= 0 && (bound < 0 || at < bound)) bound = at;
  }
  return bound;
}

bool loom_vector_bound(const loom_module_t* module, loom_type_id_t type,
                       uint32_t* out_lanes, const char** why) {
  const loom_type_t* t = &LOOM_TYPE(module, type);
  if (t->rank != 1) {
    *why = "only rank-1 dynamic vectors run";
    return false;
  }
  uint32_t value = loom_vector_extent_value(module, type);
  uint32_t def = LOOM_VALUE(module, value).def_op;
  int64_t bound = -1;
  if (def != LOOM_NONE) {
    const loom_op_t* op = &LOOM_OP(module, def);
    const char* name = loom_op_defs[op->opcode].name;
    if (strcmp(name, "index.constant") == 0) {
      bound = op->literal.i;
    } else if (strcmp(name, "index.assume") == 0) {
      uint32_t k = value - op->results_start;
      bound = loom_fact_bound(module, op, LOOM_OPERAND(module, op, k));
    }
  }
  if (bound < 0) {
    *why = "its extent needs a bound: take it from index.assume with "
           "range(%x, lo, HI), le(%x, HI) or lt(%x, HI) and a literal HI";
    return false;
  }
  if (bound > (int64_t)LOOM_VECTOR_MAX_DYNAMIC_LANES) {
    *why = "its extent's bound exceeds the " LOOM_STRINGIFY(
        LOOM_VECTOR_MAX_DYNAMIC_LANES) " lanes a dynamic vector may reserve";
    return false;
  }
  *out_lanes = bound ? (uint32_t)bound : 1u;
  return true;
}

bool loom_op_reads_vector_length(const loom_op_t* op) {
  switch (loom_op_defs[op->opcode].shape) {
    case LOOM_SHAPE_LOAD: case LOOM_SHAPE_STORE: case LOOM_SHAPE_EXTRACT:
    case LOOM_SHAPE_INSERT: case LOOM_SHAPE_VECTOR_REDUCE:
      return true;
    default:
      return false;
  }
}

uint32_t loom_vector_capacity(const loom_module_t* module,
                              loom_type_id_t type) {
  uint32_t lanes = loom_vector_lanes(module, type);
  const char* why = NULL;
  if (lanes == 0 && !loom_vector_bound(module, type, &lanes, &why)) return 0;
  return lanes;
}

bool loom_op_vector_bounds(const loom_module_t* module, const loom_op_t* op,
                           uint32_t* out_extent, const char** why) {
  for (uint32_t i = 0; i < op->operand_count + op->result_count; ++i) {
    loom_type_id_t type;
    if (i < op->operand_count) {
      uint32_t operand = LOOM_OPERAND(module, op, i);
      if (loom_operand_is_static(operand)) continue;
      type = LOOM_VALUE(module, operand).type;
    } else {
      type = LOOM_VALUE(module, op->results_start + i - op->operand_count)
                 .type;
    }
    uint32_t lanes = 0;
    if (loom_vector_is_dynamic(module, type) &&
        !loom_vector_bound(module, type, &lanes, why)) {
      *out_extent = loom_vector_extent_value(module, type);
      return false;
    }
  }
  return true;
}
