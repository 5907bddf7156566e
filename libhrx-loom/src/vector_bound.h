/* Room for dynamic vectors (private to libhrx-loom).
 *
 * The backends hold a vector<[%n]xT> in as many lanes as its extent can
 * ever reach: a bound the kernel states on %n, at compile time. Lanes at
 * and past the run-time length hold values no op may observe: loads and
 * stores touch only the live lanes, reductions combine only those, and
 * extract/insert check their position against the length. */
#ifndef HRX_LOOM_VECTOR_BOUND_H_
#define HRX_LOOM_VECTOR_BOUND_H_

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

/* The most lanes a dynamic vector may reserve: its extent's bound. Bigger
 * bounds would spill the host device's register file and the private
 * segment of a GPU work-item. */
#define LOOM_VECTOR_MAX_DYNAMIC_LANES 256

/* The largest value dynamic vector |type|'s extent can take, from a fact
 * on it: an index.constant, or an index.assume stating range(%x, lo, hi),
 * le(%x, K) or lt(%x, K) with a literal bound. On failure (false) |why|
 * says what is missing, for a diagnostic. Only rank-1 dynamic vectors
 * have a bound. */
bool loom_vector_bound(const loom_module_t* module, loom_type_id_t type,
                       uint32_t* out_lanes, const char** why);

/* The lanes the backends reserve for vector |type|: a static vector's
 * lanes, a bounded dynamic vector's bound; 1 for a scalar; 0 for a
 * dynamic vector without a bound. */
uint32_t loom_vector_capacity(const loom_module_t* module,
                              loom_type_id_t type);

/* The SSA value naming dynamic vector |type|'s extent. */
uint32_t loom_vector_extent_value(const loom_module_t* module,
                                  loom_type_id_t type);

/* Whether every dynamic vector of |op| has a bound; if not, |*out_extent|
 * is the extent value of the first without one and |*why| says why. */
bool loom_op_vector_bounds(const loom_module_t* module, const loom_op_t* op,
                           uint32_t* out_extent, const char** why);

/* Whether |op| runs differently for the run-time length of its dynamic
 * vectors (memory, reduce, extract, insert) rather than on every
 * reserved lane alike (lanewise ops, splat, iota, select). */
bool loom_op_reads_vector_length(const loom_op_t* op);

#endif /* HRX_LOOM_VECTOR_BOUND_H_ */
