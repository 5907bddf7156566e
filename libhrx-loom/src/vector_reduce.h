/* vector.reduce.axes (private to libhrx-loom): reduces the listed axes of
 * a static vector, keeping the others in order.
 *   %r = vector.reduce.axes<k> %v, %init axes [a, ..] : VEC, INIT
 * INIT (and the result) is the element type when every axis is reduced,
 * else a vector of the kept axes' extents. Operands: the vector, the
 * init, then the axes as literal operands (increasing). Each result lane
 * starts from its init lane and combines its source lanes in row-major
 * order of the reduced coordinates, so every backend rounds alike. */
#ifndef HRX_LOOM_VECTOR_REDUCE_H_
#define HRX_LOOM_VECTOR_REDUCE_H_

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

/* How many source lanes each result lane combines. */
uint32_t loom_reduce_axes_count(const loom_module_t* module,
                                const loom_op_t* op);

/* Source lane |step| (of loom_reduce_axes_count) of result lane |lane|.
 * The verifier has checked the axes and shapes, which are static. */
uint32_t loom_reduce_axes_lane(const loom_module_t* module,
                               const loom_op_t* op, uint32_t lane,
                               uint32_t step);

#endif /* HRX_LOOM_VECTOR_REDUCE_H_ */
