/* Register layout ops (private to libhrx-loom): ops that only move lanes
 * (vector.broadcast, vector.shuffle, vector.transpose, vector.slice,
 * vector.interleave). Each is a static map from result lanes to lanes of
 * its sources laid end to end, so the backends share one description of
 * it: the host interpreter copies registers and LLVM gets one
 * shufflevector. Their static lists (shuffle lanes, transpose axes, slice
 * offsets, the interleaved axis) follow the sources as literal operands. */
#ifndef HRX_LOOM_VECTOR_LAYOUT_H_
#define HRX_LOOM_VECTOR_LAYOUT_H_

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

typedef enum loom_layout_kind_e {
  LOOM_LAYOUT_BROADCAST, /* %r = vector.broadcast %v : VEC -> VEC */
  LOOM_LAYOUT_SHUFFLE,   /* %r = vector.shuffle<[3, 0, ..]> %v : VEC */
  LOOM_LAYOUT_TRANSPOSE, /* %r = vector.transpose<[1, 0]> %v : VEC -> VEC */
  LOOM_LAYOUT_SLICE,     /* %r = vector.slice %v[0, 4] : VEC -> VEC */
  /* %r = vector.interleave<axis> %even, %odd : VEC, VEC -> VEC */
  LOOM_LAYOUT_INTERLEAVE,
  /* %r = vector.concat<axis> %a, %b, .. : VEC, VEC, .. -> VEC (the inputs
   * of one type, at most LOOM_LAYOUT_MAX_SOURCES) */
  LOOM_LAYOUT_CONCAT,
  /* %even, %odd = vector.deinterleave<axis> %v : VEC -> VEC, VEC */
  LOOM_LAYOUT_DEINTERLEAVE,
} loom_layout_kind_t;

/* The most vector sources one layout op takes (vector.concat's inputs). */
#define LOOM_LAYOUT_MAX_SOURCES 8

/* Whether |op| is a register layout op. */
bool loom_is_layout_op(const loom_op_t* op);

/* Which one layout op |op| is. */
loom_layout_kind_t loom_layout_kind(const loom_op_t* op);

/* How many vector sources |op| has (its first operands): 2 for
 * vector.interleave, every operand but the axis for vector.concat, else
 * 1. */
uint32_t loom_layout_sources(const loom_op_t* op);

/* How many results |op| has, all of the type .type2: 2 for
 * vector.deinterleave (even coordinates, then odd), else 1. */
uint32_t loom_layout_results(const loom_op_t* op);

/* The source lane that lane |lane| of result |result| of layout op |op|
 * copies, counting the sources' lanes end to end (all have the type
 * .type). The verifier has checked the op's shapes and lists, which are
 * static. */
uint32_t loom_layout_source_lane(const loom_module_t* module,
                                 const loom_op_t* op, uint32_t result,
                                 uint32_t lane);

#endif /* HRX_LOOM_VECTOR_LAYOUT_H_ */
