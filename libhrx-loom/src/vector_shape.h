/* Shapes of vector types (private to libhrx-loom).
 *
 * A vector<4x8xf16> is 32 lanes in row-major order: every backend holds
 * it flat, so only the front end and the ops that index it by axis (load,
 * store, extract, insert) look at its extents. A vector<[%n]xT> has a
 * length known only when the kernel runs. */
#ifndef HRX_LOOM_VECTOR_SHAPE_H_
#define HRX_LOOM_VECTOR_SHAPE_H_

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

/* The most lanes a static vector may have (keeps lane arithmetic in
 * 32 bits with room to spare). */
#define LOOM_VECTOR_MAX_LANES 65536u

/* Whether |type| is a vector with a dynamic ([%n]) extent. */
bool loom_vector_is_dynamic(const loom_module_t* module, loom_type_id_t type);

/* The lanes of a static vector |type| (the product of its extents); 1 for
 * a scalar; 0 for a dynamic vector. */
uint32_t loom_vector_lanes(const loom_module_t* module, loom_type_id_t type);

/* The lanes of one step along axis |axis| of vector |type|: the product
 * of the extents after it (all static). */
uint32_t loom_vector_stride(const loom_module_t* module, loom_type_id_t type,
                            uint32_t axis);

/* Whether vectors |a| and |b| have the same extents (dynamic ones named
 * by the same value); their elements may differ. */
bool loom_vector_same_shape(const loom_module_t* module, loom_type_id_t a,
                            loom_type_id_t b);

/* Whether |part| is what |count| leading indices leave of vector |whole|:
 * its element when they consume every axis, else a vector of the
 * remaining extents and the same element. */
bool loom_vector_is_tail(const loom_module_t* module, loom_type_id_t whole,
                         uint32_t count, loom_type_id_t part);

/* Whether an operand or result of |op| is a dynamic vector. The backends
 * keep a vector in registers whose number they fix when compiling, so
 * such ops take the lanes of a bound (vector_bound.h). */
bool loom_op_has_dynamic_vector(const loom_module_t* module,
                                const loom_op_t* op);

#endif /* HRX_LOOM_VECTOR_SHAPE_H_ */
