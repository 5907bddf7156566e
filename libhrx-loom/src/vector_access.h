/* Lane-by-lane vector memory ops (private to libhrx-loom):
 * vector.load.mask, vector.store.mask, vector.load.expand,
 * vector.store.compress, vector.gather and vector.scatter. Each lane is
 * its own element access, checked as a scalar one is; a mask lane that is
 * false skips its lane's access entirely. Expand and compress (rank 1)
 * give the active lanes consecutive elements from the origin in lane
 * order; gather and scatter add their offsets lane to the last coordinate
 * of the view origin. Operands are stored as: the mask or the offsets, then the
 * passthrough (masked load) or the value (stores), then the view and its
 * origin indices. .type is the view, .type2 the vector, .ref the mask's
 * or the offsets' written type. */
#ifndef HRX_LOOM_VECTOR_ACCESS_H_
#define HRX_LOOM_VECTOR_ACCESS_H_

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

typedef struct loom_lane_access_t {
  bool load;
  bool masked;   /* operand 0 is an i1 mask, else lane offsets */
  bool dense;    /* expand / compress: active lanes take consecutive
                  * elements along the last view axis */
  uint32_t data; /* passthrough or value operand, or LOOM_NONE */
  uint32_t view; /* the view operand; the origin indices follow it */
} loom_lane_access_t;

/* Whether |op| is a lane-by-lane memory op. */
bool loom_is_lane_access(const loom_op_t* op);

/* Where |op|'s operands are (loom_is_lane_access(op) holds). */
loom_lane_access_t loom_lane_access(const loom_op_t* op);

#endif /* HRX_LOOM_VECTOR_ACCESS_H_ */
