/* The matrix fragment layout of Loom's vector.fragment* and vector.mma
 * (private to libhrx-loom).
 *
 * A fragment is one lane's share of a 16x16 matrix tile spread over a
 * subgroup of 32 lanes, as RDNA3's WMMA instructions hold it, so that the
 * host device and gfx11 agree lane for lane and a kernel that builds or
 * reads fragments with ordinary vector ops means the same on both:
 *
 *   lhs  (A, rows M x columns K): lane l holds row l % 16, element e is
 *        column e (16 elements; lanes 16..31 repeat lanes 0..15, which
 *        gfx11 requires of its A and B operands)
 *   rhs  (B, rows K x columns N): lane l holds column l % 16, element e
 *        is row e (16 elements, repeated likewise)
 *   init / result (C and D, M x N): lane l holds column l % 16,
 *        element e is row 2e + l / 16 (8 elements, no repetition)
 *
 * vector.mma computes D = A x B + C for the element types gfx11's WMMA
 * has (loom_fragment_mma_pair); every other shape or subgroup size has no
 * layout here and is rejected where it is lowered. Float sums are exact
 * products added in k order with one rounding each, in f32, and a 16-bit
 * accumulator is that sum rounded once to nearest even. i8 sources are
 * signed (upstream Loom would say otherwise with fragment encodings, which
 * HRX does not take); integer sums wrap to 32 bits, or saturate with
 * vector.mma<saturate>.
 */
#ifndef HRX_LOOM_FRAGMENT_H_
#define HRX_LOOM_FRAGMENT_H_

#include <stdint.h>

#include "op_table.h"

#define LOOM_FRAGMENT_DIM 16u   /* M = N = K */
#define LOOM_FRAGMENT_LANES 32u /* subgroup size the layout is defined for */

/* What a lane contributes to a coordinate. */
enum {
  LOOM_FRAGMENT_LANE_NONE = 0,
  LOOM_FRAGMENT_LANE_LOW,  /* lane % 16 */
  LOOM_FRAGMENT_LANE_HIGH, /* lane / 16 */
};

/* Coordinate of element e in lane l: row = lane term + row_step * e,
 * column = lane term + column_step * e. */
typedef struct loom_fragment_layout_t {
  uint8_t elements; /* per lane */
  uint8_t row_lane, row_step;
  uint8_t column_lane, column_step;
} loom_fragment_layout_t;

static inline loom_fragment_layout_t loom_fragment_layout(uint32_t role) {
  switch (role) {
    case LOOM_FRAGMENT_LHS:
      return (loom_fragment_layout_t){16, LOOM_FRAGMENT_LANE_LOW, 0,
                                      LOOM_FRAGMENT_LANE_NONE, 1};
    case LOOM_FRAGMENT_RHS:
      return (loom_fragment_layout_t){16, LOOM_FRAGMENT_LANE_NONE, 1,
                                      LOOM_FRAGMENT_LANE_LOW, 0};
    default:
      return (loom_fragment_layout_t){8, LOOM_FRAGMENT_LANE_HIGH, 2,
                                      LOOM_FRAGMENT_LANE_LOW, 0};
  }
}

static inline bool loom_fragment_source_element(loom_type_kind_t kind) {
  return kind == LOOM_TYPE_F16 || kind == LOOM_TYPE_BF16 ||
         kind == LOOM_TYPE_I8;
}

static inline bool loom_fragment_accumulator_element(loom_type_kind_t kind) {
  return kind == LOOM_TYPE_F32 || kind == LOOM_TYPE_F16 ||
         kind == LOOM_TYPE_BF16 || kind == LOOM_TYPE_I32;
}

/* Whether vector.mma multiplies |source| elements into |accumulator|
 * ones: f16 or bf16 into f32 or their own type, i8 into i32. */
static inline bool loom_fragment_mma_pair(loom_type_kind_t source,
                                          loom_type_kind_t accumulator) {
  if (source == LOOM_TYPE_I8) return accumulator == LOOM_TYPE_I32;
  return accumulator == LOOM_TYPE_F32 || accumulator == source;
}

/* Whether lanes 16..31 repeat lanes 0..15 (the source roles). */
static inline int loom_fragment_repeats(uint32_t role) {
  return role == LOOM_FRAGMENT_LHS || role == LOOM_FRAGMENT_RHS;
}

#endif /* HRX_LOOM_FRAGMENT_H_ */
