#include "vector_layout.h"

#include <string.h>

#include "op_table.h"
#include "vector_shape.h"

bool loom_is_layout_op(const loom_op_t* op) {
  return loom_op_defs[op->opcode].shape == LOOM_SHAPE_LAYOUT;
}

loom_layout_kind_t loom_layout_kind(const loom_op_t* op) {
  const char* name = loom_op_defs[op->opcode].name;
  if (strcmp(name, "vector.shuffle") == 0) return LOOM_LAYOUT_SHUFFLE;
  if (strcmp(name, "vector.transpose") == 0) return LOOM_LAYOUT_TRANSPOSE;
  if (strcmp(name, "vector.slice") == 0) return LOOM_LAYOUT_SLICE;
  if (strcmp(name, "vector.interleave") == 0) return LOOM_LAYOUT_INTERLEAVE;
  if (strcmp(name, "vector.concat") == 0) return LOOM_LAYOUT_CONCAT;
  if (strcmp(name, "vector.deinterleave") == 0) {
    return LOOM_LAYOUT_DEINTERLEAVE;
  }
  return LOOM_LAYOUT_BROADCAST;
}

uint32_t loom_layout_sources(const loom_op_t* op) {
  switch (loom_layout_kind(op)) {
    case LOOM_LAYOUT_INTERLEAVE:
      return 2;
    case LOOM_LAYOUT_CONCAT:
      return op->operand_count - 1;
    default:
      return 1;
  }
}

uint32_t loom_layout_results(const loom_op_t* op) {
  return loom_layout_kind(op) == LOOM_LAYOUT_DEINTERLEAVE ? 2 : 1;
}

/* Entry |i| of the op's static list. */
static int64_t loom_layout_item(const loom_module_t* module,
                                const loom_op_t* op, uint32_t i) {
  return LOOM_STATIC(module,
                     LOOM_OPERAND(module, op, loom_layout_sources(op) + i));
}

/* Result lane |lane| walked through the result axes from the last, each
 * coordinate placed on the source axis the op maps it to. */
uint32_t loom_layout_source_lane(const loom_module_t* module,
                                 const loom_op_t* op, uint32_t result,
                                 uint32_t lane) {
  loom_layout_kind_t kind = loom_layout_kind(op);
  if (kind == LOOM_LAYOUT_SHUFFLE) {
    return (uint32_t)loom_layout_item(module, op, lane);
  }
  const loom_type_t* from = &LOOM_TYPE(module, op->type);
  const loom_type_t* to = &LOOM_TYPE(module, op->type2);
  /* A broadcast's source axes align with the trailing result axes. */
  uint32_t lead = kind == LOOM_LAYOUT_BROADCAST ? to->rank - from->rank : 0;
  uint32_t source = 0, rest = lane;
  for (uint32_t d = to->rank; d-- > lead;) {
    uint32_t extent = (uint32_t)LOOM_DIM(module, to->dims_start + d).size;
    uint32_t coord = rest % extent;
    rest /= extent;
    uint32_t axis = d - lead;
    bool split = (kind == LOOM_LAYOUT_INTERLEAVE ||
                  kind == LOOM_LAYOUT_CONCAT ||
                  kind == LOOM_LAYOUT_DEINTERLEAVE) &&
                 d == (uint32_t)loom_layout_item(module, op, 0);
    if (split && kind == LOOM_LAYOUT_INTERLEAVE) {
      /* Odd coordinates come from the second source. */
      source += (coord & 1) * loom_vector_lanes(module, op->type);
      coord >>= 1;
    } else if (split && kind == LOOM_LAYOUT_CONCAT) {
      /* Each input covers one run of the axis, in operand order. */
      uint32_t run = (uint32_t)LOOM_DIM(module, from->dims_start + d).size;
      source += coord / run * loom_vector_lanes(module, op->type);
      coord %= run;
    } else if (split) {
      /* The first result keeps even coordinates, the second odd ones. */
      coord = 2 * coord + result;
    }
    if (kind == LOOM_LAYOUT_TRANSPOSE) {
      axis = (uint32_t)loom_layout_item(module, op, d);
    } else if (kind == LOOM_LAYOUT_SLICE) {
      coord += (uint32_t)loom_layout_item(module, op, d);
    } else if (LOOM_DIM(module, from->dims_start + axis).size == 1) {
      continue; /* a broadcast repeats an extent of 1 */
    }
    source += coord * loom_vector_stride(module, op->type, axis);
  }
  return source;
}
