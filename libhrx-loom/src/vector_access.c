#include "vector_access.h"

#include <string.h>

#include "op_table.h"

bool loom_is_lane_access(const loom_op_t* op) {
  loom_shape_t shape = loom_op_defs[op->opcode].shape;
  return shape == LOOM_SHAPE_LANE_LOAD || shape == LOOM_SHAPE_LANE_STORE;
}

loom_lane_access_t loom_lane_access(const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  loom_lane_access_t a = {
      .load = def->shape == LOOM_SHAPE_LANE_LOAD,
      .dense = strcmp(def->name, "vector.load.expand") == 0 ||
               strcmp(def->name, "vector.store.compress") == 0,
  };
  a.masked = a.dense || strcmp(def->name, "vector.load.mask") == 0 ||
             strcmp(def->name, "vector.store.mask") == 0;
  /* A gather has no data operand; the others have one after operand 0. */
  bool data = !a.load || a.masked;
  a.data = data ? 1 : LOOM_NONE;
  a.view = data ? 2 : 1;
  return a;
}
