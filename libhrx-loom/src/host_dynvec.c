/* Dynamic vectors (vector<[%n]xT>) on the host device.
 *
 * A dynamic vector takes the registers of its bound (vector_bound.h), so
 * the lanewise ops, splat, iota, casts and select lower as for a static
 * vector of that many lanes. What follows are the ops that read the run-
 * time length: each first checks it against the bound (an ASSERT that
 * faults, never a silent truncation), then touches only the live lanes. */
#include <inttypes.h>

#include "host_backend_internal.h"
#include "op_table.h"
#include "vector_bound.h"
#include "vector_shape.h"

/* A diagnostic naming the first dynamic vector of |op| without a bound;
 * true when all have one. */
static bool hb_dynamic_bounded(hb_t* b, const loom_op_t* op) {
  uint32_t extent = 0;
  const char* why = NULL;
  if (loom_op_vector_bounds(b->m, op, &extent, &why)) return true;
  return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                  "%s: vector<[%%%s]x...> cannot run: %s", hb_op_name(op),
                  loom_module_string(b->m, LOOM_VALUE(b->m, extent).name),
                  why);
}

/* The register of |vector|'s run-time length, checked (a fault) to be at
 * most its bound. */
static bool hb_live_length(hb_t* b, const loom_op_t* op, loom_type_id_t vector,
                           uint32_t* out) {
  uint32_t extent = loom_vector_extent_value(b->m, vector);
  if (b->vreg[extent] == LOOM_NONE) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "%s: the vector's extent is not available here",
                    hb_op_name(op));
  }
  uint32_t n = b->vreg[extent], bound = 0, fits = 0;
  if (!hb_constant(b, true, hb_width(b, vector), &bound) ||
      !hb_binary(b, HRX_HOST_OP_ICMP, HRX_HOST_TYPE_I64, HRX_HOST_ICMP_SLE, n,
                 bound, &fits) ||
      !hb_emit(b, HRX_HOST_OP_ASSERT, HRX_HOST_TYPE_I64, HRX_HOST_ASSERT_LE,
               LOOM_NONE, fits, n, LOOM_NONE, 0)) {
    return false;
  }
  *out = n;
  return true;
}

/* A register that is set where lane |lane| is live (lane < |n|). */
static bool hb_lane_live(hb_t* b, uint32_t n, uint32_t lane, uint32_t* out) {
  uint32_t at = 0;
  return hb_constant(b, true, lane, &at) &&
         hb_binary(b, HRX_HOST_OP_ICMP, HRX_HOST_TYPE_I64, HRX_HOST_ICMP_SLT,
                   at, n, out);
}

/* Opens a region that runs where |live| is set: a branch over it when
 * |live| is uniform, else a divergent IF. Returns the position to patch. */
static bool hb_open_lane(hb_t* b, const loom_op_t* op, uint32_t live,
                         bool uniform, uint32_t* at) {
  if (!uniform && !hb_enter_divergent(b, op)) return false;
  *at = hb_pos(b);
  return hb_emit(b, uniform ? HRX_HOST_OP_BRZ : HRX_HOST_OP_IF,
                 HRX_HOST_TYPE_I1, 0, LOOM_NONE, live, LOOM_NONE, LOOM_NONE,
                 0);
}

static bool hb_close_lane(hb_t* b, bool uniform, uint32_t at) {
  hb_patch(b, at, hb_pos(b));
  if (uniform) return true;
  b->mask_depth--;
  return hb_emit(b, HRX_HOST_OP_ENDIF, 0, 0, LOOM_NONE, LOOM_NONE, LOOM_NONE,
                 LOOM_NONE, 0);
}

/* vector.load / vector.store of a rank-1 dynamic vector: lane k at the
 * op's indices with k added to the last, only where k is live. Dead lanes
 * of a loaded vector read as zero. */
static bool hb_dynamic_access(hb_t* b, const loom_op_t* op, bool load) {
  loom_type_id_t view_type = load ? op->type : op->type2;
  loom_type_id_t vector = load ? op->type2 : op->type;
  uint32_t view_operand = load ? 0 : 1;
  const loom_type_t* view = &LOOM_TYPE(b->m, view_type);
  uint8_t type = hb_host_type(view->element);
  uint32_t width = hb_width(b, vector), n = 0, value = 0, zero = 0;
  uint32_t indices[8]; /* ranks are at most 8 (the parser's) */
  if (!hb_live_length(b, op, vector, &n) ||
      (!load && !hb_operand(b, op, 0, &value))) {
    return false;
  }
  uint32_t regs[10] = {n};
  for (uint32_t d = 0; d <= view->rank; ++d) {
    if (!hb_operand(b, op, view_operand + d, &regs[1 + d])) return false;
  }
  for (uint32_t d = 0; d < view->rank; ++d) indices[d] = regs[2 + d];
  bool uniform = hb_all_scalar(b, regs, (int)view->rank + 2);
  uint32_t result = load ? op->results_start : LOOM_NONE;
  if (load) {
    uniform = uniform && b->uniform[result];
    if (!hb_new_vreg(b, uniform, width, &b->vreg[result]) ||
        !hb_constant(b, true, 0, &zero)) {
      return false;
    }
  }
  uint32_t last = view->rank - 1, origin = indices[last];
  for (uint32_t k = 0; k < width; ++k) {
    uint32_t live = 0, at = 0, step = 0, ptr = 0;
    if ((load && !hb_emit(b, HRX_HOST_OP_MOV, HRX_HOST_TYPE_I64, 0,
                          b->vreg[result] + k, zero, LOOM_NONE, LOOM_NONE,
                          0)) ||
        !hb_lane_live(b, n, k, &live) ||
        !hb_open_lane(b, op, live, uniform, &at) ||
        !hb_constant(b, true, k, &step) ||
        !hb_binary(b, HRX_HOST_OP_IADD, HRX_HOST_TYPE_I64, 0, origin, step,
                   &indices[last]) ||
        !hb_element_address(b, op, view_operand, view_type, indices, &ptr)) {
      return false;
    }
    bool ok = load ? hb_emit(b, HRX_HOST_OP_LOAD, type, 0,
                             b->vreg[result] + k, ptr, LOOM_NONE, LOOM_NONE, 0)
                   : hb_emit(b, HRX_HOST_OP_STORE, type, 0, LOOM_NONE, ptr,
                             value + k, LOOM_NONE, 0);
    if (!ok || !hb_close_lane(b, uniform, at)) return false;
  }
  return true;
}

/* vector.reduce: init <k> each live lane in order; a dead lane keeps the
 * accumulator (a SELECT, so no lane needs an identity). */
static bool hb_dynamic_reduce(hb_t* b, const loom_op_t* op) {
  uint32_t vector = 0, acc = 0, n = 0;
  if (!hb_operand(b, op, 0, &vector) || !hb_operand(b, op, 1, &acc) ||
      !hb_live_length(b, op, op->type, &n)) {
    return false;
  }
  uint8_t type = hb_host_type(hb_kind(b, op->type2));
  uint32_t width = hb_width(b, op->type);
  for (uint32_t e = 0; e < width; ++e) {
    uint32_t live = 0, next = 0, kept = 0;
    if (!hb_lane_live(b, n, e, &live) ||
        !hb_binary(b, HRX_HOST_OP_COMBINE, type, (uint8_t)op->enum_value, acc,
                   vector + e, &next)) {
      return false;
    }
    uint32_t regs[] = {live, next, acc};
    if (!hb_new_vreg(b, hb_all_scalar(b, regs, 3), 1, &kept) ||
        !hb_emit(b, HRX_HOST_OP_SELECT, type, 0, kept, live, next, acc, 0)) {
      return false;
    }
    acc = kept;
  }
  b->vreg[op->results_start] = acc;
  return true;
}

/* vector.extract / vector.insert at constant position |lane|: within the
 * bound at compile time, and checked live at run time. */
static bool hb_dynamic_position(hb_t* b, const loom_op_t* op,
                                loom_type_id_t vector, uint32_t operand,
                                uint32_t* out_lane) {
  uint32_t index = LOOM_OPERAND(b->m, op, operand);
  int64_t lane = -1;
  if (loom_operand_is_static(index)) {
    lane = LOOM_STATIC(b->m, index);
  } else if (b->known[index]) {
    lane = b->const_value[index];
  } else {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "%s needs constant positions on the host backend",
                    hb_op_name(op));
  }
  if (lane < 0 || lane >= (int64_t)hb_width(b, vector)) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_CONSTANT_RANGE,
                    "%s: position %" PRId64 " is past the vector's bound of "
                    "%u lanes",
                    hb_op_name(op), lane, hb_width(b, vector));
  }
  uint32_t n = 0, live = 0;
  if (!hb_live_length(b, op, vector, &n) ||
      !hb_lane_live(b, n, (uint32_t)lane, &live) ||
      !hb_emit(b, HRX_HOST_OP_ASSERT, HRX_HOST_TYPE_I64, HRX_HOST_ASSERT_LT,
               LOOM_NONE, live, n, LOOM_NONE, 0)) {
    return false;
  }
  *out_lane = (uint32_t)lane;
  return true;
}

static bool hb_dynamic_extract_insert(hb_t* b, const loom_op_t* op) {
  bool extract = loom_op_defs[op->opcode].shape == LOOM_SHAPE_EXTRACT;
  loom_type_id_t vector_type = extract ? op->type : op->type2;
  uint32_t lane = 0, vector = 0, value = 0;
  if (!hb_dynamic_position(b, op, vector_type, extract ? 1 : 2, &lane) ||
      !hb_operand(b, op, extract ? 0 : 1, &vector)) {
    return false;
  }
  uint32_t result = op->results_start;
  if (extract) {
    b->vreg[result] = vector + lane;
    return true;
  }
  uint32_t width = hb_width(b, vector_type);
  uint32_t regs[2] = {vector};
  if (!hb_operand(b, op, 0, &regs[1])) return false;
  value = regs[1];
  return hb_new_vreg(b, b->uniform[result] && hb_all_scalar(b, regs, 2),
                     width, &b->vreg[result]) &&
         hb_mov(b, b->vreg[result], vector, width) &&
         hb_mov(b, b->vreg[result] + lane, value, 1);
}

bool hb_lower_dynamic(hb_t* b, const loom_op_t* op, bool* done) {
  *done = false;
  if (!hb_dynamic_bounded(b, op)) return false;
  if (!loom_op_reads_vector_length(op)) return true;
  *done = true;
  switch (loom_op_defs[op->opcode].shape) {
    case LOOM_SHAPE_LOAD: return hb_dynamic_access(b, op, true);
    case LOOM_SHAPE_STORE: return hb_dynamic_access(b, op, false);
    case LOOM_SHAPE_VECTOR_REDUCE: return hb_dynamic_reduce(b, op);
    default: return hb_dynamic_extract_insert(b, op);
  }
}
