/* Module verifier: types, dominance, terminators, facts, placement. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "encoding_schema.h"
#include "fragment.h"
#include "hrx/loom/module.h"
#include "op_table.h"
#include "vector_access.h"
#include "vector_layout.h"
#include "vector_shape.h"

typedef struct loom_verifier_t {
  const loom_module_t* module;
  hrx_loom_diagnostics_t* diagnostics;
  uint8_t* visible; /* per value: defined and in scope at the current op */
  uint8_t* used;    /* per value: has at least one use */
  uint8_t place;    /* LOOM_PLACE_* of the top-level region being walked */
  uint32_t func;    /* enclosing func.def, or LOOM_NONE */
} loom_verifier_t;

static void loom_verror(loom_verifier_t* v, loom_span_t span,
                        hrx_loom_diag_code_t code,
                        const hrx_loom_diag_param_t* params, size_t count,
                        const char* format, ...) HRX_PRINTF(6, 7);

static void loom_verror(loom_verifier_t* v, loom_span_t span,
                        hrx_loom_diag_code_t code,
                        const hrx_loom_diag_param_t* params, size_t count,
                        const char* format, ...) {
  va_list args;
  va_start(args, format);
  loom_diag_emitv(v->diagnostics, &v->module->source, span,
                  HRX_LOOM_SEVERITY_ERROR, code, params, count, format, args);
  va_end(args);
}

static const char* loom_vname(const loom_verifier_t* v, uint32_t value) {
  return loom_module_string(v->module, LOOM_VALUE(v->module, value).name);
}

/* Formats a type for a diagnostic into |buffer|. */
static const char* loom_type_text(const loom_verifier_t* v,
                                  loom_type_id_t type, char* buffer,
                                  size_t capacity) {
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  hrx_status_t status = loom_type_print(v->module, type, &b);
  snprintf(buffer, capacity, "%s",
           status == HRX_OK ? hrx_string_builder_cstr(&b) : "?");
  hrx_status_free(status);
  hrx_string_builder_deinit(&b);
  return buffer;
}

static void loom_type_mismatch(loom_verifier_t* v, const loom_op_t* op,
                               const char* what, loom_type_id_t expected,
                               loom_type_id_t actual) {
  char e[96], a[96];
  loom_type_text(v, expected, e, sizeof(e));
  loom_type_text(v, actual, a, sizeof(a));
  hrx_loom_diag_param_t params[] = {{"expected", e}, {"actual", a}};
  loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, params, 2,
              "%s: %s type mismatch: expected %s, got %s",
              loom_op_defs[op->opcode].name, what, e, a);
}

static void loom_type_not_allowed(loom_verifier_t* v, const loom_op_t* op,
                                  const char* what, loom_type_id_t actual) {
  char a[96];
  loom_type_text(v, actual, a, sizeof(a));
  hrx_loom_diag_param_t params[] = {{"actual", a}};
  const loom_type_t* t = &LOOM_TYPE(v->module, actual);
  bool f8 = loom_type_is_f8(t->kind) ||
            ((t->kind == LOOM_TYPE_VECTOR || t->kind == LOOM_TYPE_VIEW) &&
             loom_type_is_f8(t->element));
  loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, params, 1,
              "%s: %s of type %s is not allowed here%s",
              loom_op_defs[op->opcode].name, what, a,
              f8 ? " (f8E4M3 and f8E5M2 are storage types: only loads, "
                   "stores, moves and conversions take them; widen with "
                   "scalar.extf or vector.extf to compute)"
                 : "");
}

static loom_type_id_t loom_operand_type(const loom_verifier_t* v,
                                        const loom_op_t* op, uint32_t i) {
  uint32_t operand = LOOM_OPERAND(v->module, op, i);
  if (loom_operand_is_static(operand)) return LOOM_TYPE_INDEX;
  return LOOM_VALUE(v->module, operand).type;
}

static bool loom_kind_in(const loom_verifier_t* v, loom_type_id_t type,
                         uint32_t mask) {
  return (mask & LOOM_KIND_BIT(loom_type_kind(v->module, type))) != 0;
}

/* Types equal, or views of one element and rank whose dynamic extents
 * are named by different values (a call passes its own extents). */
static bool loom_types_compatible(const loom_module_t* m, loom_type_id_t a,
                                  loom_type_id_t b) {
  if (a == b) return true;
  const loom_type_t* x = &LOOM_TYPE(m, a);
  const loom_type_t* y = &LOOM_TYPE(m, b);
  if (x->kind != LOOM_TYPE_VIEW || y->kind != LOOM_TYPE_VIEW ||
      x->element != y->element || x->rank != y->rank ||
      (x->layout == LOOM_NONE) != (y->layout == LOOM_NONE)) {
    return false;
  }
  for (uint32_t d = 0; d < x->rank; ++d) {
    int64_t sx = LOOM_DIM(m, x->dims_start + d).size;
    int64_t sy = LOOM_DIM(m, y->dims_start + d).size;
    if (sx != sy && (sx >= 0 || sy >= 0)) return false;
  }
  return true;
}

/* Operand i must have type |expected|. */
static bool loom_expect_operand(loom_verifier_t* v, const loom_op_t* op,
                                uint32_t i, loom_type_id_t expected) {
  loom_type_id_t actual = loom_operand_type(v, op, i);
  if (actual == expected) return true;
  char what[32];
  snprintf(what, sizeof(what), "operand %u", i);
  loom_type_mismatch(v, op, what, expected, actual);
  return false;
}

static bool loom_expect_mask(loom_verifier_t* v, const loom_op_t* op,
                             const char* what, loom_type_id_t type,
                             uint32_t mask) {
  if (loom_kind_in(v, type, mask)) return true;
  loom_type_not_allowed(v, op, what, type);
  return false;
}

static bool loom_expect_operand_count(loom_verifier_t* v, const loom_op_t* op,
                                      uint32_t count) {
  if (op->operand_count == count) return true;
  loom_verror(v, op->span, HRX_LOOM_DIAG_EXPECTED_TOKEN, NULL, 0,
              "%s takes %u operand%s, got %u", loom_op_defs[op->opcode].name,
              count, count == 1 ? "" : "s", op->operand_count);
  return false;
}

/*===------------------------------------------------------------------===*/
/* Per-shape checks                                                        */
/*===------------------------------------------------------------------===*/

static void loom_check_constant(loom_verifier_t* v, const loom_op_t* op) {
  loom_type_kind_t kind = loom_type_kind(v->module, op->type);
  /* vector.constant: the literal is every lane's value. */
  if (kind == LOOM_TYPE_VECTOR) kind = LOOM_TYPE(v->module, op->type).element;
  const loom_literal_t* l = &op->literal;
  if (loom_type_is_f8(kind)) {
    /* Storage types have no literals here: a constant is an f32 one
     * narrowed with fptrunc, which says how it rounds. */
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, NULL, 0,
                "%s constants are not supported; narrow an f32 constant "
                "with fptrunc", loom_type_kind_name(kind));
    return;
  }
  if (loom_type_is_float(kind)) {
    if (l->kind != LOOM_LITERAL_FLOAT) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                  "float constant of type %s needs a float literal "
                  "(1.0, not 1)", loom_type_kind_name(kind));
      return;
    }
    /* Rounding to the type must not overflow to infinity; inf and nan say
     * what they are. */
    double value = l->f;
    if (isfinite(value) && !loom_float_fits(value, kind)) {
      char text[32];
      snprintf(text, sizeof(text), "%g", value);
      hrx_loom_diag_param_t params[] = {{"value", text},
                                        {"type", loom_type_kind_name(kind)}};
      loom_verror(v, op->span, HRX_LOOM_DIAG_CONSTANT_RANGE, params, 2,
                  "constant %s is out of the finite range of %s", text,
                  loom_type_kind_name(kind));
    }
    return;
  }
  if (l->kind == LOOM_LITERAL_FLOAT) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "integer constant of type %s written as a float",
                loom_type_kind_name(kind));
    return;
  }
  if (l->kind == LOOM_LITERAL_BOOL && kind != LOOM_TYPE_I1) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "true/false are i1 constants, not %s",
                loom_type_kind_name(kind));
    return;
  }
  uint32_t bits = loom_type_bit_width(kind);
  if (bits >= 64) {
    if (kind == LOOM_TYPE_OFFSET && l->i < 0) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_CONSTANT_RANGE, NULL, 0,
                  "offset constants are unsigned; %" PRId64 " is negative",
                  l->i);
    }
    return;
  }
  /* Either the signed or the unsigned interpretation must fit. */
  int64_t min = -((int64_t)1 << (bits - 1));
  int64_t max = (int64_t)(((uint64_t)1 << bits) - 1);
  if (bits == 1) min = -1;
  if (l->i < min || l->i > max) {
    char value[32];
    snprintf(value, sizeof(value), "%" PRId64, l->i);
    hrx_loom_diag_param_t params[] = {{"value", value},
                                      {"type", loom_type_kind_name(kind)}};
    loom_verror(v, op->span, HRX_LOOM_DIAG_CONSTANT_RANGE, params, 2,
                "constant %s does not fit in %s", value,
                loom_type_kind_name(kind));
  }
}

/* vector.bitcast: static vectors of data elements (not i1, index or
 * offset, whose register form is not their bits) with the same total
 * bits; the shapes may differ. */
static void loom_check_vector_bitcast(loom_verifier_t* v,
                                      const loom_op_t* op) {
  const char* name = loom_op_defs[op->opcode].name;
  if (loom_vector_is_dynamic(v->module, op->type) ||
      loom_vector_is_dynamic(v->module, op->type2)) {
    /* Casts otherwise take dynamic vectors (lane by lane). */
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s needs vectors of static shape, not vector<[%%n]x...>",
                name);
    return;
  }
  loom_type_id_t types[] = {op->type, op->type2};
  uint64_t bits[2];
  for (int i = 0; i < 2; ++i) {
    loom_type_kind_t element = LOOM_TYPE(v->module, types[i]).element;
    if (element == LOOM_TYPE_I1 || loom_type_is_address(element)) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_CAST, NULL, 0,
                  "%s cannot reinterpret %s lanes", name,
                  loom_type_kind_name(element));
      return;
    }
    bits[i] = (uint64_t)loom_vector_lanes(v->module, types[i]) *
              loom_type_bit_width(element);
  }
  if (bits[0] != bits[1]) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_CAST, NULL, 0,
                "%s keeps the total bits (%" PRIu64 " to %" PRIu64 ")",
                name, bits[0], bits[1]);
  }
}

static void loom_check_cast(loom_verifier_t* v, const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  loom_type_kind_t from = loom_type_kind(v->module, op->type);
  loom_type_kind_t to = loom_type_kind(v->module, op->type2);
  if (strcmp(def->name, "vector.bitcast") == 0 && from == LOOM_TYPE_VECTOR &&
      to == LOOM_TYPE_VECTOR) {
    loom_check_vector_bitcast(v, op);
    return;
  }
  if (from == LOOM_TYPE_VECTOR && to == LOOM_TYPE_VECTOR) {
    /* Vector casts convert element by element. */
    const loom_type_t* a = &LOOM_TYPE(v->module, op->type);
    const loom_type_t* b = &LOOM_TYPE(v->module, op->type2);
    if (!loom_vector_same_shape(v->module, op->type, op->type2)) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_CAST, NULL, 0,
                  "%s cannot change the vector shape", def->name);
      return;
    }
    from = a->element;
    to = b->element;
  }
  uint32_t wf = loom_type_bit_width(from), wt = loom_type_bit_width(to);
  bool ok = true;
  switch ((loom_cast_t)def->cast) {
    case LOOM_CAST_EXTF:
      /* f8 widens to f16, bf16 and f32 (exactly, hrx/core/f8.h). */
      ok = wt > wf && loom_type_is_float(to) &&
           (loom_type_is_float(from) ||
            (loom_type_is_f8(from) && to != LOOM_TYPE_F64));
      break;
    case LOOM_CAST_EXTI: ok = wt > wf; break;
    case LOOM_CAST_TRUNCF:
      /* f64 -> f8 would round twice on the way through f32, which is
       * the only way the backends narrow to f8 (hrx/core/f8.h). */
      ok = wt < wf && loom_type_is_float(from) &&
           (loom_type_is_float(to) ||
            (loom_type_is_f8(to) && from != LOOM_TYPE_F64));
      break;
    case LOOM_CAST_TRUNCI: ok = wt < wf; break;
    case LOOM_CAST_INDEX:
      ok = loom_type_is_address(from) != loom_type_is_address(to) ||
           (loom_type_is_address(from) && loom_type_is_address(to) &&
            from != to);
      break;
    case LOOM_CAST_BITCAST: ok = wt == wf && from != to; break;
    default: break;
  }
  if (!ok) {
    hrx_loom_diag_param_t params[] = {{"from", loom_type_kind_name(from)},
                                      {"to", loom_type_kind_name(to)}};
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_CAST, params, 2,
                "%s cannot convert %s to %s", def->name,
                loom_type_kind_name(from), loom_type_kind_name(to));
  }
}

/* Index operands of view/vector accesses: index type or literals. */
static void loom_check_indices(loom_verifier_t* v, const loom_op_t* op,
                               uint32_t first, loom_type_id_t view) {
  const loom_type_t* type = &LOOM_TYPE(v->module, view);
  uint32_t count = op->operand_count - first;
  if (type->kind == LOOM_TYPE_VIEW && count != type->rank) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s: %u indices for a rank-%u view",
                loom_op_defs[op->opcode].name, count, type->rank);
    return;
  }
  /* Vector indices consume leading axes: at least one, at most all. */
  if (type->kind == LOOM_TYPE_VECTOR && (count == 0 || count > type->rank)) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s: %u indices for a rank-%u vector",
                loom_op_defs[op->opcode].name, count, type->rank);
    return;
  }
  for (uint32_t i = first; i < op->operand_count; ++i) {
    uint32_t operand = LOOM_OPERAND(v->module, op, i);
    if (loom_operand_is_static(operand)) {
      int64_t value = LOOM_STATIC(v->module, operand);
      const loom_dim_t* dim =
          type->kind == LOOM_TYPE_VIEW || type->kind == LOOM_TYPE_VECTOR
              ? &LOOM_DIM(v->module, type->dims_start + (i - first))
              : NULL;
      if (value < 0 || (dim && dim->size >= 0 && value >= dim->size)) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_CONSTANT_RANGE, NULL, 0,
                    "static index %" PRId64 " is out of bounds", value);
      }
      continue;
    }
    loom_expect_operand(v, op, i, LOOM_TYPE_INDEX);
  }
}

static loom_type_kind_t loom_element(const loom_verifier_t* v,
                                     loom_type_id_t type) {
  return LOOM_TYPE(v->module, type).element;
}

static void loom_check_access(loom_verifier_t* v, const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  bool is_load = def->shape == LOOM_SHAPE_LOAD;
  loom_type_id_t view = is_load ? op->type : op->type2;
  loom_type_id_t value = is_load ? op->type2 : op->type;
  uint32_t view_operand = is_load ? 0 : 1;
  if (!loom_expect_mask(v, op, "view", view, LOOM_MASK_VIEW) ||
      !loom_expect_mask(v, op, "value", value, def->types2 | def->types)) {
    return;
  }
  if (!is_load) loom_expect_operand(v, op, 0, value);
  loom_expect_operand(v, op, view_operand, view);
  loom_check_indices(v, op, view_operand + 1, view);
  loom_type_kind_t element = loom_element(v, view);
  loom_type_kind_t value_element =
      loom_type_kind(v->module, value) == LOOM_TYPE_VECTOR
          ? loom_element(v, value)
          : loom_type_kind(v->module, value);
  if (value_element != element) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "%s: value element %s differs from view element %s",
                def->name, loom_type_kind_name(value_element),
                loom_type_kind_name(element));
  }
  /* Vector axes map onto the trailing view axes. */
  if (loom_type_kind(v->module, value) == LOOM_TYPE_VECTOR &&
      LOOM_TYPE(v->module, value).rank > LOOM_TYPE(v->module, view).rank) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s: a rank-%u vector does not fit a rank-%u view", def->name,
                LOOM_TYPE(v->module, value).rank,
                LOOM_TYPE(v->module, view).rank);
  }
  if (def->shape == LOOM_SHAPE_RMW && op->enum_value != LOOM_ENUM_ABSENT) {
    const char* kind = loom_enum_keyword(LOOM_ENUM_COMBINE, op->enum_value);
    bool float_kind = kind[strlen(kind) - 1] == 'f';
    if (float_kind != loom_type_is_float(loom_type_kind(v->module, value)) &&
        strcmp(kind, "xchg") != 0) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                  "atomic %s does not apply to %s", kind,
                  loom_type_kind_name(loom_type_kind(v->module, value)));
    }
  }
}

/* The lane-by-lane memory ops of vector_access.h: element accesses as
 * vector.load / vector.store make, with an i1 mask of the vector's shape
 * whose vector axes map onto the trailing view axes, or integer offsets
 * of the vector's shape along the last view axis. */
static void loom_check_lane_access(loom_verifier_t* v, const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  loom_lane_access_t a = loom_lane_access(op);
  loom_type_id_t view = op->type, vector = op->type2, lanes = op->ref;
  if (!loom_expect_mask(v, op, "view", view, LOOM_MASK_VIEW) ||
      !loom_expect_mask(v, op, "value", vector, LOOM_MASK_VECTOR) ||
      !loom_expect_mask(v, op, a.masked ? "mask" : "offsets", lanes,
                        LOOM_MASK_VECTOR)) {
    return;
  }
  loom_expect_operand(v, op, 0, lanes);
  if (a.data != LOOM_NONE) loom_expect_operand(v, op, a.data, vector);
  loom_expect_operand(v, op, a.view, view);
  loom_check_indices(v, op, a.view + 1, view);
  if (loom_element(v, vector) != loom_element(v, view)) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "%s: value element %s differs from view element %s",
                def->name, loom_type_kind_name(loom_element(v, vector)),
                loom_type_kind_name(loom_element(v, view)));
    return;
  }
  loom_type_kind_t element = loom_element(v, lanes);
  bool fits = a.masked ? element == LOOM_TYPE_I1
                       : element == LOOM_TYPE_INDEX ||
                             (loom_type_is_integer(element) &&
                              element != LOOM_TYPE_I1);
  if (!fits || !loom_vector_same_shape(v->module, lanes, vector)) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                a.masked ? "%s: the mask must be an i1 vector of the value's "
                           "shape"
                         : "%s: the offsets must be an integer or index "
                           "vector of the value's shape",
                def->name);
    return;
  }
  if (a.dense && LOOM_TYPE(v->module, vector).rank != 1) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s takes a rank-1 vector, not %u axes", def->name,
                LOOM_TYPE(v->module, vector).rank);
    return;
  }
  if (a.masked &&
      LOOM_TYPE(v->module, vector).rank > LOOM_TYPE(v->module, view).rank) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s: a rank-%u vector does not fit a rank-%u view", def->name,
                LOOM_TYPE(v->module, vector).rank,
                LOOM_TYPE(v->module, view).rank);
  }
}

static void loom_check_pred_ref(loom_verifier_t* v, const loom_pred_t* pred,
                                const loom_ref_t* ref) {
  if (ref->is_static) return;
  if (!v->visible[ref->value]) {
    hrx_loom_diag_param_t params[] = {{"symbol", loom_vname(v, ref->value)}};
    loom_verror(v, pred->span, HRX_LOOM_DIAG_VALUE_NOT_VISIBLE, params, 1,
                "fact refers to %%%s, which does not dominate it",
                loom_vname(v, ref->value));
  }
  if (!loom_type_is_address(
          loom_type_kind(v->module, LOOM_VALUE(v->module, ref->value).type))) {
    loom_verror(v, pred->span, HRX_LOOM_DIAG_BAD_FACT, NULL, 0,
                "fact operands must be index or offset values");
  }
}

/* True when |value| is one of |op|'s operands. */
static bool loom_is_operand_of(const loom_module_t* m, const loom_op_t* op,
                               uint32_t value) {
  for (uint32_t i = 0; i < op->operand_count; ++i) {
    if (LOOM_OPERAND(m, op, i) == value) return true;
  }
  return false;
}

/* Facts about the operands of |assume| (index.assume), or with NULL about
 * |subject| (a config declaration's bound value; LOOM_NONE: any value). */
static void loom_check_facts(loom_verifier_t* v, const loom_op_t* assume,
                             uint32_t subject, uint32_t start,
                             uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    const loom_pred_t* pred = &LOOM_PRED(v->module, start + i);
    const loom_ref_t* first = &pred->args[0];
    if (first->is_static ||
        (assume && !loom_is_operand_of(v->module, assume, first->value)) ||
        (!assume && subject != LOOM_NONE && first->value != subject)) {
      loom_verror(v, pred->span, HRX_LOOM_DIAG_BAD_FACT, NULL, 0,
                  "a fact's first operand must be the value it describes");
      continue;
    }
    for (uint32_t a = 1; a < pred->arg_count; ++a) {
      loom_check_pred_ref(v, pred, &pred->args[a]);
    }
    if (pred->kind == LOOM_PRED_RANGE && pred->args[1].is_static &&
        pred->args[2].is_static &&
        pred->args[1].constant > pred->args[2].constant) {
      loom_verror(v, pred->span, HRX_LOOM_DIAG_BAD_FACT, NULL, 0,
                  "empty range: %" PRId64 " > %" PRId64,
                  pred->args[1].constant, pred->args[2].constant);
    }
    if (pred->kind == LOOM_PRED_MUL &&
        (!pred->args[1].is_static || pred->args[1].constant <= 0)) {
      loom_verror(v, pred->span, HRX_LOOM_DIAG_BAD_FACT, NULL, 0,
                  "mul(v, k) needs a positive literal k");
    }
  }
}

static const char* loom_combine_kind(const loom_op_t* op) {
  return loom_enum_keyword(LOOM_ENUM_COMBINE, op->enum_value);
}

/* Float combines (addf, maxnumf, ...) need float values, the others
 * integers. */
static void loom_check_combine_kind(loom_verifier_t* v, const loom_op_t* op,
                                    loom_type_id_t type) {
  const char* kind = loom_combine_kind(op);
  bool float_kind = kind && kind[strlen(kind) - 1] == 'f';
  loom_type_kind_t actual = loom_type_kind(v->module, type);
  if (actual == LOOM_TYPE_VECTOR) actual = LOOM_TYPE(v->module, type).element;
  if (kind && float_kind != loom_type_is_float(actual)) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "reduction %s does not apply to %s", kind,
                loom_type_kind_name(actual));
  }
}

/* vector.reduce.axes (vector_reduce.h): increasing axes of a static
 * vector; the init is the element type when every axis goes, else the
 * vector of the kept axes in order. */
static void loom_check_reduce_axes(loom_verifier_t* v, const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  const loom_module_t* m = v->module;
  if (!loom_expect_mask(v, op, "vector", op->type, def->types) ||
      !loom_expect_mask(v, op, "init", op->type2, def->types2)) {
    return;
  }
  loom_expect_operand(v, op, 0, op->type);
  loom_expect_operand(v, op, 1, op->type2);
  if (loom_vector_is_dynamic(m, op->type) ||
      loom_vector_is_dynamic(m, op->type2)) {
    return; /* diagnosed as needing a static shape */
  }
  const loom_type_t* from = &LOOM_TYPE(m, op->type);
  const loom_type_t* to = &LOOM_TYPE(m, op->type2);
  int64_t last = -1;
  for (uint32_t i = 2; i < op->operand_count; ++i) {
    int64_t axis = LOOM_STATIC(m, LOOM_OPERAND(m, op, i));
    if (axis <= last || axis >= (int64_t)from->rank) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                  "%s axes must increase within the %u axes of the vector "
                  "(%" PRId64 ")",
                  def->name, from->rank, axis);
      return;
    }
    last = axis;
  }
  uint32_t kept = from->rank - (op->operand_count - 2);
  bool fits = kept ? to->kind == LOOM_TYPE_VECTOR && to->rank == kept &&
                         to->element == from->element
                   : to->kind == from->element;
  for (uint32_t d = 0, k = 0; fits && d < from->rank; ++d) {
    bool reduced = false;
    for (uint32_t i = 2; i < op->operand_count; ++i) {
      reduced |= LOOM_STATIC(m, LOOM_OPERAND(m, op, i)) == (int64_t)d;
    }
    if (reduced) continue;
    fits = LOOM_DIM(m, to->dims_start + k++).size ==
           LOOM_DIM(m, from->dims_start + d).size;
  }
  if (!fits) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "%s init must be %s", def->name,
                kept ? "a vector of the kept axes and the element type"
                     : "the element type (every axis is reduced)");
    return;
  }
  loom_check_combine_kind(v, op, op->type2);
}

/* What upstream's kernel.workgroup.reduce takes beyond a subgroup
 * reduction's checks: no cluster, a combine that is a reduction (not
 * xchg), and only vectors of integers or floats. */
static void loom_check_workgroup_reduce(loom_verifier_t* v,
                                        const loom_op_t* op) {
  if (op->attrs[LOOM_ATTR_CLUSTER_SIZE] >= 0) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                "kernel.workgroup.reduce takes no cluster_size: it reduces "
                "the whole workgroup");
  }
  const char* kind = loom_combine_kind(op);
  if (kind && strcmp(kind, "xchg") == 0) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_UNKNOWN_ENUM, NULL, 0,
                "xchg is not a reduction");
  }
  const loom_type_t* t = &LOOM_TYPE(v->module, op->type);
  if (t->kind == LOOM_TYPE_VECTOR &&
      !((LOOM_MASK_INT | LOOM_MASK_FLOAT) & LOOM_KIND_BIT(t->element))) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "kernel.workgroup.reduce of vectors of %s",
                loom_type_kind_name(t->element));
  }
}

/* A strided layout names one stride per dimension of the views it lays
 * out. */
static void loom_check_layout_rank(loom_verifier_t* v, const loom_op_t* op,
                                   loom_type_id_t view) {
  const loom_module_t* m = v->module;
  const loom_type_t* t = &LOOM_TYPE(m, view);
  if (t->kind != LOOM_TYPE_VIEW) return;
  bool unresolved = false;
  const loom_op_t* layout = loom_view_strides(m, t, &unresolved);
  if (layout && layout->operand_count != t->rank) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "layout %%%s has %u strides for a rank-%u view",
                loom_vname(v, t->layout), layout->operand_count, t->rank);
  }
}

/* A literal clause of a check op must suit |element|: integers for
 * integer and index elements, floats for float ones. */
static void loom_check_literal_for(loom_verifier_t* v, const loom_op_t* op,
                                   const loom_literal_t* literal,
                                   loom_type_kind_t element) {
  if (literal->kind == LOOM_LITERAL_NONE) return;
  bool is_float = loom_type_is_float(element);
  bool ok = is_float ? literal->kind == LOOM_LITERAL_FLOAT
                     : literal->kind == LOOM_LITERAL_INT ||
                           (element == LOOM_TYPE_I1 &&
                            literal->kind == LOOM_LITERAL_BOOL);
  if (!ok) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "%s literal does not suit element type %s",
                literal->kind == LOOM_LITERAL_FLOAT ? "a float" : "an integer",
                loom_type_kind_name(element));
  }
}

static const loom_literal_t* loom_check_clause(const loom_module_t* m,
                                               const loom_op_t* op,
                                               uint32_t i) {
  return &LOOM_AT(m->literals, loom_literal_t, op->preds_start + i);
}

/* The element kind of a tensor, or the kind of a scalar type. */
static loom_type_kind_t loom_value_element(const loom_module_t* m,
                                          loom_type_id_t type) {
  const loom_type_t* t = &LOOM_TYPE(m, type);
  return t->kind == LOOM_TYPE_TENSOR ? t->element : t->kind;
}

static void loom_check_source(loom_verifier_t* v, const loom_op_t* op,
                              const loom_op_def_t* def) {
  const loom_module_t* m = v->module;
  if (!loom_expect_mask(v, op, "result", op->type, def->types)) return;
  loom_type_kind_t element = loom_value_element(m, op->type);
  for (uint32_t i = 0; i < op->pred_count && i < 2; ++i) {
    loom_check_literal_for(v, op, loom_check_clause(m, op, i), element);
  }
  if (op->pred_count == 3) {
    const loom_literal_t* period = loom_check_clause(m, op, 2);
    if (period->kind != LOOM_LITERAL_NONE &&
        (period->kind != LOOM_LITERAL_INT || period->i <= 0)) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                  "period must be a positive integer");
    }
  }
}

static void loom_check_expect(loom_verifier_t* v, const loom_op_t* op,
                              const loom_op_def_t* def) {
  const loom_module_t* m = v->module;
  if (!loom_expect_mask(v, op, "value", op->type, def->types)) return;
  loom_expect_operand(v, op, 0, op->type);
  loom_expect_operand(v, op, 1, op->type);
  if (!def->types2) return;
  if (!(LOOM_KIND_BIT(loom_value_element(m, op->type)) & def->types2)) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, NULL, 0,
                "check.expect.close compares float values");
  }
  for (uint32_t i = 0; i < op->pred_count; ++i) {
    const loom_literal_t* tolerance = loom_check_clause(m, op, i);
    if (tolerance->kind != LOOM_LITERAL_FLOAT || !(tolerance->f >= 0)) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                  "tolerances are non-negative float literals");
    }
  }
}

/* kernel.launch names a kernel (defined or declared) and passes its
 * workload values and arguments: tensors bind buffer parameters. */
static void loom_check_launch(loom_verifier_t* v, const loom_op_t* op) {
  const loom_module_t* m = v->module;
  const char* name = loom_module_string(m, op->symbol);
  uint32_t regions[2] = {LOOM_NONE, LOOM_NONE};
  uint32_t k = loom_module_find_kernel(m, name);
  if (k != LOOM_NONE) {
    regions[0] = LOOM_KERNEL(m, k).config_region;
    regions[1] = LOOM_KERNEL(m, k).body_region;
  } else {
    uint32_t r = loom_module_find_record(m, name);
    if (r != LOOM_NONE && LOOM_RECORD(m, r).kind == LOOM_RECORD_KERNEL_DECL) {
      regions[0] = LOOM_RECORD(m, r).regions[0];
      regions[1] = LOOM_RECORD(m, r).regions[1];
    }
  }
  if (regions[0] == LOOM_NONE) {
    hrx_loom_diag_param_t params[] = {{"symbol", name}};
    loom_verror(v, op->span, HRX_LOOM_DIAG_UNDEFINED_SYMBOL, params, 1,
                "kernel.launch of unknown kernel @%s", name);
    return;
  }
  const loom_region_t* workload = &LOOM_REGION(m, regions[0]);
  const loom_region_t* launch = &LOOM_REGION(m, regions[1]);
  if (op->enum_value != workload->arg_count ||
      op->operand_count - op->enum_value != launch->arg_count) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "@%s takes %u workload values and %u arguments, given %u "
                "and %u", name, workload->arg_count, launch->arg_count,
                op->enum_value, op->operand_count - op->enum_value);
    return;
  }
  for (uint32_t i = 0; i < op->operand_count; ++i) {
    const loom_region_t* r = i < op->enum_value ? workload : launch;
    uint32_t at = i < op->enum_value ? i : i - op->enum_value;
    loom_type_id_t want = LOOM_VALUE(m, r->args_start + at).type;
    loom_type_id_t have = loom_operand_type(v, op, i);
    bool ok = have == want ||
              (want == LOOM_TYPE_BUFFER &&
               loom_type_kind(m, have) == LOOM_TYPE_TENSOR);
    if (!ok) loom_type_mismatch(v, op, "operand", want, have);
  }
}

static uint32_t loom_lanes(const loom_verifier_t* v, loom_type_id_t type) {
  return loom_vector_lanes(v->module, type);
}

/* An i1 vector mask of the shape of vector |of|. */
static bool loom_expect_mask_of(loom_verifier_t* v, const loom_op_t* op,
                                loom_type_id_t mask, loom_type_id_t of) {
  if (loom_type_kind(v->module, mask) == LOOM_TYPE_VECTOR &&
      loom_element(v, mask) == LOOM_TYPE_I1 &&
      loom_vector_same_shape(v->module, mask, of)) {
    return true;
  }
  char text[96];
  loom_type_text(v, of, text, sizeof(text));
  loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
              "%s needs an i1 mask of the shape of %s",
              loom_op_defs[op->opcode].name, text);
  return false;
}

/*===------------------------------------------------------------------===*/
/* Matrix fragments                                                        */
/*===------------------------------------------------------------------===*/

static const char* loom_role_name(uint32_t role) {
  return loom_enum_keyword(LOOM_ENUM_FRAGMENT, role);
}

/* A |role| fragment is the vector fragment.h lays out: 16 x f16, bf16 or
 * i8 for the sources, 8 x f32, f16, bf16 or i32 for accumulators. */
static bool loom_check_fragment_type(loom_verifier_t* v, const loom_op_t* op,
                                     uint32_t role, loom_type_id_t type) {
  const loom_type_t* t = &LOOM_TYPE(v->module, type);
  loom_fragment_layout_t layout = loom_fragment_layout(role);
  bool source = loom_fragment_repeats(role);
  bool ok = t->kind == LOOM_TYPE_VECTOR && t->rank == 1 &&
            LOOM_DIM(v->module, t->dims_start).size == layout.elements &&
            (source ? loom_fragment_source_element(t->element)
                    : loom_fragment_accumulator_element(t->element));
  if (ok) return true;
  char text[96];
  loom_type_text(v, type, text, sizeof(text));
  hrx_loom_diag_param_t params[] = {{"actual", text}};
  loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, params, 1,
              "%s: %s %s fragment is %s (one lane's share of a 16x16 tile "
              "over 32 lanes), not %s", loom_op_defs[op->opcode].name,
              role == LOOM_FRAGMENT_INIT ? "an" : "a", loom_role_name(role),
              source ? "vector<16xf16>, vector<16xbf16> or vector<16xi8>"
                     : "vector<8xf32>, vector<8xf16>, vector<8xbf16> or "
                       "vector<8xi32>",
              text);
  return false;
}

/* The constant value of |value| when an index.constant defines it. */
static bool loom_index_constant(const loom_module_t* m, uint32_t value,
                                int64_t* out) {
  uint32_t def = LOOM_VALUE(m, value).def_op;
  if (def == LOOM_NONE) return false;
  const loom_op_t* op = &LOOM_OP(m, def);
  if (strcmp(loom_op_defs[op->opcode].name, "index.constant") != 0) {
    return false;
  }
  *out = op->literal.i;
  return true;
}

/* shape [%rows, %columns]: index values, 16 x 16 where they are known
 * here (the backends check the others once specialised). */
static void loom_check_fragment_shape(loom_verifier_t* v,
                                      const loom_op_t* op) {
  static const char* const names[] = {"rows", "columns"};
  for (uint32_t i = 0; i < 2; ++i) {
    uint32_t at = op->operand_count - 2 + i;
    if (!loom_expect_operand(v, op, at, LOOM_TYPE_INDEX)) continue;
    int64_t extent = 0;
    if (loom_index_constant(v->module, LOOM_OPERAND(v->module, op, at),
                            &extent) &&
        extent != LOOM_FRAGMENT_DIM) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                  "%s: fragment %s is %" PRId64 ": the only fragment shape "
                  "is 16 x 16 (16x16x16 products)",
                  loom_op_defs[op->opcode].name, names[i], extent);
    }
  }
}

/* vector.fragment, .fragment.load, .fragment.store: a fragment type of
 * the role, the shape, and for the memory forms a rank-2 view of the
 * fragment's element addressed by two origin indices. */
static void loom_check_fragment(loom_verifier_t* v, const loom_op_t* op,
                                const loom_op_def_t* def) {
  const loom_module_t* m = v->module;
  bool load = def->shape == LOOM_SHAPE_FRAGMENT_LOAD;
  bool store = def->shape == LOOM_SHAPE_FRAGMENT_STORE;
  loom_type_id_t fragment = load ? op->type2 : op->type;
  uint32_t direct = store ? 2 : 1;
  uint32_t minimum = def->shape == LOOM_SHAPE_FRAGMENT ? 3 : direct + 2;
  if (op->operand_count < minimum) {
    loom_expect_operand_count(v, op, minimum);
    return;
  }
  if (!loom_check_fragment_type(v, op, op->enum_value, fragment)) return;
  loom_check_fragment_shape(v, op);
  if (op->ref != LOOM_NONE) {
    char why[160];
    if (!loom_schema_stores_as_typed(m, op->ref, fragment, why,
                                     sizeof(why))) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                  "%s: schema %%%s: %s", def->name, loom_vname(v, op->ref),
                  why);
    }
  }
  if (def->shape == LOOM_SHAPE_FRAGMENT) {
    loom_expect_operand_count(v, op, 3);
    loom_expect_operand(v, op, 0, fragment);
    return;
  }
  loom_type_id_t view = load ? op->type : op->type2;
  if (!loom_expect_mask(v, op, "view", view, LOOM_MASK_VIEW)) return;
  if (store) loom_expect_operand(v, op, 0, fragment);
  loom_expect_operand(v, op, direct - 1, view);
  const loom_type_t* t = &LOOM_TYPE(m, view);
  uint32_t indices = op->operand_count - 2 - direct;
  if (t->rank != 2 || indices != 2) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s: a fragment is a 2-D tile: it needs a rank-2 view and "
                "a [row, column] origin, got a rank-%u view and %u indices",
                def->name, t->rank, indices);
    return;
  }
  for (uint32_t i = direct; i < direct + 2; ++i) {
    if (!loom_operand_is_static(LOOM_OPERAND(m, op, i))) {
      loom_expect_operand(v, op, i, LOOM_TYPE_INDEX);
    }
  }
  if (t->element != loom_element(v, fragment)) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "%s: fragment element %s differs from view element %s",
                def->name, loom_type_kind_name(loom_element(v, fragment)),
                loom_type_kind_name(t->element));
  }
}

/* The role a fragment value was given where that is visible: by
 * vector.fragment or .fragment.load, or result for vector.mma. */
static bool loom_fragment_role_of(const loom_module_t* m, uint32_t value,
                                  uint32_t* out_role) {
  if (loom_operand_is_static(value)) return false;
  uint32_t def = LOOM_VALUE(m, value).def_op;
  if (def == LOOM_NONE) return false;
  const loom_op_t* op = &LOOM_OP(m, def);
  const loom_op_def_t* d = &loom_op_defs[op->opcode];
  if (d->shape == LOOM_SHAPE_FRAGMENT || d->shape == LOOM_SHAPE_FRAGMENT_LOAD) {
    *out_role = op->enum_value;
    return true;
  }
  if (strcmp(d->name, "vector.mma") == 0) {
    *out_role = LOOM_FRAGMENT_RESULT;
    return true;
  }
  return false;
}

/* vector.mma %lhs, %rhs, %init: fragments of the roles in that order
 * (an accumulator may be an init or a result fragment), sources of one
 * element type, an accumulator that type multiplies into; saturate only
 * for integers. */
static void loom_check_mma(loom_verifier_t* v, const loom_op_t* op) {
  if (!loom_expect_operand_count(v, op, 3) ||
      !loom_check_fragment_type(v, op, LOOM_FRAGMENT_LHS, op->type) ||
      !loom_check_fragment_type(v, op, LOOM_FRAGMENT_INIT, op->type2)) {
    return;
  }
  loom_type_kind_t source = loom_element(v, op->type);
  loom_type_kind_t accumulator = loom_element(v, op->type2);
  if (!loom_fragment_mma_pair(source, accumulator)) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "vector.mma: %s sources do not accumulate into %s (f16 and "
                "bf16 go into f32 or their own type, i8 into i32)",
                loom_type_kind_name(source),
                loom_type_kind_name(accumulator));
    return;
  }
  if (op->flags && accumulator != LOOM_TYPE_I32) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                "vector.mma<saturate> needs an integer accumulator, not %s",
                loom_type_kind_name(accumulator));
    return;
  }
  loom_expect_operand(v, op, 0, op->type);
  loom_expect_operand(v, op, 1, op->type);
  loom_expect_operand(v, op, 2, op->type2);
  static const uint32_t wanted[] = {LOOM_FRAGMENT_LHS, LOOM_FRAGMENT_RHS,
                                    LOOM_FRAGMENT_INIT};
  for (uint32_t i = 0; i < 3; ++i) {
    uint32_t role = 0;
    if (!loom_fragment_role_of(v->module, LOOM_OPERAND(v->module, op, i),
                               &role) ||
        role == wanted[i] || (i == 2 && role == LOOM_FRAGMENT_RESULT)) {
      continue;
    }
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "vector.mma: operand %u is a %s fragment, expected %s", i,
                loom_role_name(role),
                i == 2 ? "an init or result fragment"
                       : loom_role_name(wanted[i]));
  }
}

/* vector.dot2f: f16 or bf16 sources, an f32 accumulator lane per two of
 * theirs; vector.dot8i4: i32 lanes throughout; vector.dot4f8: i32
 * sources and an f32 accumulator of their lane count. */
static void loom_check_packed_dot(loom_verifier_t* v, const loom_op_t* op,
                                  const loom_op_def_t* def) {
  if (!loom_expect_operand_count(v, op, 3) ||
      !loom_expect_mask(v, op, "source", op->type, LOOM_MASK_VECTOR) ||
      !loom_expect_mask(v, op, "accumulator", op->type2, LOOM_MASK_VECTOR)) {
    return;
  }
  loom_expect_operand(v, op, 0, op->type);
  loom_expect_operand(v, op, 1, op->type);
  loom_expect_operand(v, op, 2, op->type2);
  loom_type_kind_t from = loom_element(v, op->type);
  loom_type_kind_t to = loom_element(v, op->type2);
  uint32_t group = 1;
  bool ok;
  const char* rule;
  if (def->enum_set == LOOM_ENUM_DOT8) {
    ok = from == LOOM_TYPE_I32;
    rule = "adds the eight 4-bit products of each i32 lane to it";
  } else if (def->enum_set == LOOM_ENUM_DOT4F8) {
    ok = from == LOOM_TYPE_I32 && to == LOOM_TYPE_F32;
    rule = "adds the four f8 products of each i32 lane to an f32 lane";
  } else {
    group = 2;
    ok = (from == LOOM_TYPE_F16 || from == LOOM_TYPE_BF16) &&
         to == LOOM_TYPE_F32;
    rule = "adds each two f16 or bf16 products to one f32 lane";
  }
  if (!ok || LOOM_TYPE(v->module, op->type).rank != 1 ||
      loom_lanes(v, op->type) != group * loom_lanes(v, op->type2)) {
    char a[96], b[96];
    loom_type_text(v, op->type, a, sizeof(a));
    loom_type_text(v, op->type2, b, sizeof(b));
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "%s %s: %s does not match %s", def->name, rule, a, b);
  }
}

/* vector.dotf: float sources, accumulator of their element type.
 * vector.dot4i: i8 sources, an i32 accumulator lane per four of theirs. */
static void loom_check_dot(loom_verifier_t* v, const loom_op_t* op,
                           const loom_op_def_t* def) {
  if (strcmp(def->name, "vector.mma") == 0) {
    loom_check_mma(v, op);
    return;
  }
  if (def->types2 == LOOM_MASK_VECTOR && strcmp(def->name, "vector.dot4i")) {
    loom_check_packed_dot(v, op, def);
    return;
  }
  if (!loom_expect_operand_count(v, op, 3) ||
      !loom_expect_mask(v, op, "source", op->type, LOOM_MASK_VECTOR) ||
      !loom_expect_mask(v, op, "accumulator", op->type2,
                        def->types2 == LOOM_MASK_VECTOR
                            ? LOOM_MASK_VECTOR : LOOM_MASK_FLOAT)) {
    return;
  }
  loom_expect_operand(v, op, 0, op->type);
  loom_expect_operand(v, op, 1, op->type);
  loom_expect_operand(v, op, 2, op->type2);
  if (def->types2 != LOOM_MASK_VECTOR) {
    if (loom_element(v, op->type) != loom_type_kind(v->module, op->type2)) {
      loom_type_mismatch(v, op, "accumulator", loom_element(v, op->type),
                         op->type2);
    }
    return;
  }
  if (loom_element(v, op->type) != LOOM_TYPE_I8 ||
      loom_element(v, op->type2) != LOOM_TYPE_I32 ||
      loom_lanes(v, op->type) != 4 * loom_lanes(v, op->type2)) {
    char from[96], to[96];
    loom_type_text(v, op->type, from, sizeof(from));
    loom_type_text(v, op->type2, to, sizeof(to));
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "%s sums four i8 lanes into each i32 lane: %s does not "
                "match %s", def->name, from, to);
  }
}

/* Integer vectors on both sides; a bitfield lies inside its lane and
 * fits its result lane (inserting: inside the base lane, and the field
 * lane holds it); unpacked fields fill the result exactly with the
 * source's bits, and packed fields fill the result exactly. */
/* vector.shuffle<[lanes]>: a static rank-1 vector and one source lane in
 * range per result lane. */
static void loom_check_shuffle(loom_verifier_t* v, const loom_op_t* op,
                               const loom_op_def_t* def) {
  const loom_type_t* t = &LOOM_TYPE(v->module, op->type);
  if (t->rank != 1) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s takes a rank-1 vector, not %u axes", def->name, t->rank);
    return;
  }
  uint32_t lanes = loom_lanes(v, op->type);
  if (op->operand_count - 1 != lanes) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s names %u lanes for a vector of %u", def->name,
                op->operand_count - 1, lanes);
    return;
  }
  for (uint32_t i = 1; i < op->operand_count; ++i) {
    int64_t lane = LOOM_STATIC(v->module, LOOM_OPERAND(v->module, op, i));
    if (lane < 0 || lane >= (int64_t)lanes) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                  "%s lane %" PRId64 " is outside the vector's %u lanes",
                  def->name, lane, lanes);
      return;
    }
  }
}

/* vector.broadcast: source axes align with the trailing result axes,
 * each of extent 1 or the result's. */
static void loom_check_broadcast(loom_verifier_t* v, const loom_op_t* op,
                                 const loom_op_def_t* def) {
  const loom_type_t* from = &LOOM_TYPE(v->module, op->type);
  const loom_type_t* to = &LOOM_TYPE(v->module, op->type2);
  if (from->rank > to->rank) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s cannot lower the rank (%u axes to %u)", def->name,
                from->rank, to->rank);
    return;
  }
  uint32_t lead = to->rank - from->rank;
  for (uint32_t d = 0; d < from->rank; ++d) {
    int64_t have = LOOM_DIM(v->module, from->dims_start + d).size;
    int64_t want = LOOM_DIM(v->module, to->dims_start + lead + d).size;
    if (have != 1 && have != want) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                  "%s source axis %u has extent %" PRId64
                  ", not 1 or the result's %" PRId64,
                  def->name, d, have, want);
      return;
    }
  }
}

/* vector.transpose<[p0, ..]>: result axis d is source axis p_d, each
 * source axis named once; vector.slice %v[o0, ..]: result axis d keeps
 * source coordinates [o_d, o_d + extent). Both keep the rank and list one
 * entry per axis. */
static void loom_check_permute(loom_verifier_t* v, const loom_op_t* op,
                               const loom_op_def_t* def, bool transpose) {
  const loom_type_t* from = &LOOM_TYPE(v->module, op->type);
  const loom_type_t* to = &LOOM_TYPE(v->module, op->type2);
  if (from->rank != to->rank || op->operand_count - 1 != from->rank) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s keeps the rank and lists one %s per axis (%u axes to "
                "%u, %u listed)",
                def->name, transpose ? "axis" : "offset", from->rank,
                to->rank, op->operand_count - 1);
    return;
  }
  for (uint32_t d = 0; d < to->rank; ++d) {
    int64_t item = LOOM_STATIC(v->module, LOOM_OPERAND(v->module, op, 1 + d));
    int64_t extent = LOOM_DIM(v->module, to->dims_start + d).size;
    if (transpose) {
      bool repeated = false;
      for (uint32_t e = 0; e < d; ++e) {
        repeated |= LOOM_STATIC(v->module,
                                LOOM_OPERAND(v->module, op, 1 + e)) == item;
      }
      if (item < 0 || item >= (int64_t)from->rank || repeated) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                    "%s axes must name each of the %u source axes once "
                    "(%" PRId64 " at %u)",
                    def->name, from->rank, item, d);
        return;
      }
      int64_t have = LOOM_DIM(v->module, from->dims_start + item).size;
      if (have != extent) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                    "%s result axis %u has extent %" PRId64
                    ", not source axis %" PRId64 "'s %" PRId64,
                    def->name, d, extent, item, have);
        return;
      }
    } else {
      int64_t have = LOOM_DIM(v->module, from->dims_start + d).size;
      if (item < 0 || item > have - extent) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                    "%s axis %u keeps %" PRId64 " from offset %" PRId64
                    ", outside a source extent of %" PRId64,
                    def->name, d, extent, item, have);
        return;
      }
    }
  }
}

/* vector.interleave<axis> doubles the source extent along |axis|,
 * vector.concat<axis> multiplies it by the number of inputs and
 * vector.deinterleave<axis> halves it in each result; all keep the other
 * extents. */
static void loom_check_axis_resize(loom_verifier_t* v, const loom_op_t* op,
                                   const loom_op_def_t* def) {
  const loom_type_t* from = &LOOM_TYPE(v->module, op->type);
  const loom_type_t* to = &LOOM_TYPE(v->module, op->type2);
  loom_layout_kind_t kind = loom_layout_kind(op);
  uint32_t sources = loom_layout_sources(op);
  int64_t axis =
      LOOM_STATIC(v->module, LOOM_OPERAND(v->module, op, sources));
  if (axis < 0 || axis >= (int64_t)from->rank) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s axis %" PRId64 " is not one of the %u source axes",
                def->name, axis, from->rank);
    return;
  }
  bool fits = from->rank == to->rank;
  for (uint32_t d = 0; fits && d < from->rank; ++d) {
    int64_t have = LOOM_DIM(v->module, from->dims_start + d).size;
    int64_t want = LOOM_DIM(v->module, to->dims_start + d).size;
    if (d != (uint32_t)axis) {
      fits = want == have;
    } else if (kind == LOOM_LAYOUT_DEINTERLEAVE) {
      fits = have == 2 * want;
    } else {
      fits = want == (int64_t)sources * have;
    }
  }
  if (fits) return;
  if (kind == LOOM_LAYOUT_INTERLEAVE) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s result must be the source with axis %" PRId64
                " doubled",
                def->name, axis);
  } else if (kind == LOOM_LAYOUT_CONCAT) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s result must be the %u inputs joined along axis %" PRId64,
                def->name, sources, axis);
  } else {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s results must be the source with axis %" PRId64
                " halved (an even extent)",
                def->name, axis);
  }
}

/* The register layout ops of vector_layout.h: static vectors of one
 * element type, checked per op above. */
static void loom_check_layout(loom_verifier_t* v, const loom_op_t* op,
                              const loom_op_def_t* def) {
  if (!loom_expect_mask(v, op, "source", op->type, LOOM_MASK_VECTOR) ||
      !loom_expect_mask(v, op, "result", op->type2, LOOM_MASK_VECTOR)) {
    return;
  }
  for (uint32_t i = 0; i < loom_layout_sources(op); ++i) {
    loom_expect_operand(v, op, i, op->type);
  }
  if (loom_vector_is_dynamic(v->module, op->type) ||
      loom_vector_is_dynamic(v->module, op->type2)) {
    return; /* diagnosed as needing a static shape */
  }
  if (loom_element(v, op->type) != loom_element(v, op->type2)) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                "%s keeps the element type", def->name);
    return;
  }
  switch (loom_layout_kind(op)) {
    case LOOM_LAYOUT_SHUFFLE:
      loom_check_shuffle(v, op, def);
      break;
    case LOOM_LAYOUT_BROADCAST:
      loom_check_broadcast(v, op, def);
      break;
    case LOOM_LAYOUT_TRANSPOSE:
      loom_check_permute(v, op, def, true);
      break;
    case LOOM_LAYOUT_SLICE:
      loom_check_permute(v, op, def, false);
      break;
    case LOOM_LAYOUT_INTERLEAVE:
    case LOOM_LAYOUT_CONCAT:
    case LOOM_LAYOUT_DEINTERLEAVE:
      loom_check_axis_resize(v, op, def);
      break;
  }
}

static void loom_check_bits(loom_verifier_t* v, const loom_op_t* op,
                            const loom_op_def_t* def) {
  bool insert = strcmp(def->name, "vector.bitfield.insert") == 0;
  bool pack = strcmp(def->name, "vector.bitpack") == 0;
  if (!loom_expect_mask(v, op, "source", op->type, LOOM_MASK_VECTOR) ||
      !loom_expect_mask(v, op, "result", op->type2, LOOM_MASK_VECTOR) ||
      !loom_expect_operand_count(v, op, insert ? 2 : 1)) {
    return;
  }
  loom_expect_operand(v, op, 0, op->type);
  if (insert) loom_expect_operand(v, op, 1, op->type2);
  loom_type_kind_t from = loom_element(v, op->type);
  loom_type_kind_t to = loom_element(v, op->type2);
  if (!loom_type_is_integer(from) || from == LOOM_TYPE_I1) {
    loom_type_not_allowed(v, op, "source", op->type);
    return;
  }
  if (!loom_type_is_integer(to) || to == LOOM_TYPE_I1) {
    loom_type_not_allowed(v, op, "result", op->type2);
    return;
  }
  uint32_t from_bits = loom_type_bit_width(from);
  uint32_t to_bits = loom_type_bit_width(to);
  uint32_t lanes = loom_lanes(v, op->type), out = loom_lanes(v, op->type2);
  if (def->attrs) {
    int64_t offset = op->attrs[LOOM_ATTR_OFFSET];
    int64_t width = op->attrs[LOOM_ATTR_WIDTH];
    /* The field lives in the source lane, or (inserting) the base lane. */
    uint32_t lane_bits = insert ? to_bits : from_bits;
    uint32_t holder_bits = insert ? from_bits : to_bits;
    if (offset < 0 || width < 0) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                  "%s needs {offset = N, width = M}", def->name);
    } else if (!loom_vector_same_shape(v->module, op->type, op->type2)) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                  "%s keeps the shape (%u lanes to %u)", def->name, lanes,
                  out);
    } else if ((uint64_t)(offset + width) > lane_bits ||
               (uint64_t)width > holder_bits) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                  "bits [%" PRId64 ", %" PRId64 ") do not fit i%u lanes "
                  "into i%u lanes", offset, offset + width, from_bits,
                  to_bits);
    }
    return;
  }
  uint32_t width = op->enum_value;
  if (pack) {
    if (width > from_bits ||
        (uint64_t)lanes * width != (uint64_t)out * to_bits) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                  "%s<%u> packs %u-bit fields of %u x i%u lanes (%u bits): "
                  "the result needs exactly that many bits, not %u x i%u",
                  def->name, width, width, lanes, from_bits, lanes * width,
                  out, to_bits);
    }
    return;
  }
  if (width > to_bits || (uint64_t)lanes * from_bits != (uint64_t)out * width) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s<%u> reads %u source bits as %u-bit fields: the result "
                "needs lanes of at least %u bits whose count times %u is %u, "
                "not %u x i%u", def->name, width, lanes * from_bits, width,
                width, width, lanes * from_bits, out, to_bits);
  }
}

/* Lanewise compares, vector.select, vector.iota, vector.from_elements. */
static void loom_check_vector_op(loom_verifier_t* v, const loom_op_t* op,
                                 const loom_op_def_t* def) {
  if (!loom_expect_mask(v, op, "vector", op->type, LOOM_MASK_VECTOR)) return;
  loom_type_kind_t element = loom_element(v, op->type);
  if (def->types2 && !(def->types2 & LOOM_KIND_BIT(element))) {
    loom_type_not_allowed(v, op, "vector", op->type);
    return;
  }
  switch (def->shape) {
    case LOOM_SHAPE_COMPARE:
      if (!loom_expect_operand_count(v, op, def->arity)) return;
      for (uint32_t i = 0; i < def->arity; ++i) {
        loom_expect_operand(v, op, i, op->type);
      }
      loom_expect_mask_of(v, op, op->type2, op->type);
      break;
    case LOOM_SHAPE_SELECT:
      if (!loom_expect_operand_count(v, op, 3)) return;
      loom_expect_mask_of(v, op, loom_operand_type(v, op, 0), op->type);
      loom_expect_operand(v, op, 1, op->type);
      loom_expect_operand(v, op, 2, op->type);
      break;
    case LOOM_SHAPE_IOTA:
      if (!loom_expect_operand_count(v, op, 2)) return;
      loom_expect_operand(v, op, 0, element);
      loom_expect_operand(v, op, 1, element);
      break;
    default: /* vector.from_elements: one scalar per lane */
      /* (A dynamic vector is diagnosed once, as needing a static shape.) */
      if (loom_vector_is_dynamic(v->module, op->type) ||
          !loom_expect_operand_count(v, op, loom_lanes(v, op->type))) {
        return;
      }
      for (uint32_t i = 0; i < op->operand_count; ++i) {
        loom_expect_operand(v, op, i, element);
      }
      break;
  }
}

/* Dynamic vectors (vector<[%n]xT>) flow through the lanewise ops, the
 * constructions that fill every lane alike, memory, extract, insert and
 * reduce; ops whose meaning depends on a lane count (from_elements, bit
 * packing, dots, fragments) need a static shape. */
static bool loom_allows_dynamic_vectors(const loom_op_def_t* def) {
  switch (def->shape) {
    case LOOM_SHAPE_NARY: case LOOM_SHAPE_COMPARE: case LOOM_SHAPE_CAST:
    case LOOM_SHAPE_SELECT: case LOOM_SHAPE_CONSTANT: case LOOM_SHAPE_IOTA:
    case LOOM_SHAPE_LOAD: case LOOM_SHAPE_STORE: case LOOM_SHAPE_EXTRACT:
    case LOOM_SHAPE_INSERT: case LOOM_SHAPE_VECTOR_REDUCE:
    case LOOM_SHAPE_IF: case LOOM_SHAPE_FOR: case LOOM_SHAPE_WHILE:
    case LOOM_SHAPE_TERMINATOR: case LOOM_SHAPE_CALL:
      return true;
    case LOOM_SHAPE_SPLAT:
      return strcmp(def->name, "vector.from_elements") != 0;
    default:
      return false;
  }
}

static void loom_check_dynamic_vectors(loom_verifier_t* v,
                                       const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  if (loom_allows_dynamic_vectors(def)) return;
  if (loom_op_has_dynamic_vector(v->module, op)) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                "%s needs vectors of static shape, not vector<[%%n]x...>",
                def->name);
  }
}

static void loom_check_op_types(loom_verifier_t* v, const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  const loom_module_t* m = v->module;
  loom_check_dynamic_vectors(v, op);
  switch (def->shape) {
    case LOOM_SHAPE_CONSTANT:
      if (loom_expect_mask(v, op, "result", op->type, def->types)) {
        loom_check_constant(v, op);
      }
      break;
    case LOOM_SHAPE_NARY:
      if (!loom_expect_operand_count(v, op, def->arity)) break;
      if (!loom_expect_mask(v, op, "operand", op->type, def->types)) break;
      if (def->types2 &&
          !(def->types2 &
            LOOM_KIND_BIT(LOOM_TYPE(v->module, op->type).element))) {
        loom_type_not_allowed(v, op, "vector", op->type);
        break;
      }
      for (uint32_t i = 0; i < op->operand_count; ++i) {
        loom_expect_operand(v, op, i, op->type);
      }
      break;
    case LOOM_SHAPE_COMPARE:
      if (def->types & LOOM_MASK_VECTOR) {
        loom_check_vector_op(v, op, def);
        break;
      }
      if (!loom_expect_operand_count(v, op, def->arity)) break;
      if (!loom_expect_mask(v, op, "operand", op->type, def->types)) break;
      for (uint32_t i = 0; i < def->arity; ++i) {
        loom_expect_operand(v, op, i, op->type);
      }
      break;
    case LOOM_SHAPE_CAST:
      if (!loom_expect_mask(v, op, "source", op->type, def->types) ||
          !loom_expect_mask(v, op, "result", op->type2, def->types2)) {
        break;
      }
      loom_expect_operand(v, op, 0, op->type);
      loom_check_cast(v, op);
      break;
    case LOOM_SHAPE_NULLARY:
    case LOOM_SHAPE_CONFIG_GET:
      if (def->shape == LOOM_SHAPE_NULLARY) {
        loom_expect_mask(v, op, "result", op->type, def->types);
        break;
      } else {
        const char* symbol = loom_module_string(m, op->symbol);
        uint32_t decl = loom_module_find_config(m, symbol);
        if (decl == LOOM_NONE) {
          hrx_loom_diag_param_t params[] = {{"symbol", symbol}};
          loom_verror(v, op->span, HRX_LOOM_DIAG_UNDEFINED_SYMBOL, params, 1,
                      "config @%s is not declared", symbol);
        } else if (LOOM_CONFIG(m, decl).type != op->type) {
          loom_type_mismatch(v, op, "config", LOOM_CONFIG(m, decl).type,
                             op->type);
        }
      }
      break;
    case LOOM_SHAPE_ASSUME:
      /* Each result is its operand with the facts attached; a fact
       * describes any one of the operands. */
      if (!loom_expect_operand_count(v, op, op->result_count)) break;
      for (uint32_t i = 0; i < op->result_count; ++i) {
        loom_type_id_t type = LOOM_VALUE(m, op->results_start + i).type;
        if (loom_expect_mask(v, op, "value", type, def->types)) {
          loom_expect_operand(v, op, i, type);
        }
      }
      loom_check_facts(v, op, LOOM_NONE, op->preds_start, op->pred_count);
      break;
    case LOOM_SHAPE_KERNEL_LAUNCH:
      loom_check_launch(v, op);
      break;
    case LOOM_SHAPE_CHECK_EXPECT:
      loom_check_expect(v, op, def);
      break;
    case LOOM_SHAPE_CHECK_SOURCE:
      loom_check_source(v, op, def);
      break;
    case LOOM_SHAPE_MEMORY_SPACE:
      loom_expect_mask(v, op, "result", op->type, LOOM_MASK_BUFFER);
      loom_expect_operand(v, op, 0, LOOM_TYPE_BUFFER);
      /* 'unknown' is what a buffer is before an assumption, never one. */
      if (op->enum_value == 0) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                    "buffer.assume.memory_space needs a known memory space, "
                    "not unknown");
      }
      break;
    case LOOM_SHAPE_NOALIAS:
      for (uint32_t i = 0; i < op->operand_count; ++i) {
        loom_expect_operand(v, op, i, LOOM_TYPE_BUFFER);
      }
      if ((def->attrs & (1u << LOOM_ATTR_MIN_ALIGN)) &&
          op->attrs[LOOM_ATTR_MIN_ALIGN] < 0) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                    "%s needs {minimum_alignment = N}", def->name);
      }
      break;
    case LOOM_SHAPE_BUFFER_VIEW:
      if (!loom_expect_mask(v, op, "source", op->type, LOOM_MASK_BUFFER) ||
          !loom_expect_mask(v, op, "result", op->type2, LOOM_MASK_VIEW) ||
          !loom_expect_operand_count(v, op, 2)) {
        break;
      }
      loom_expect_operand(v, op, 0, LOOM_TYPE_BUFFER);
      if (!loom_operand_is_static(LOOM_OPERAND(m, op, 1))) {
        loom_expect_operand(v, op, 1, LOOM_TYPE_OFFSET);
      }
      loom_check_layout_rank(v, op, op->type2);
      break;
    case LOOM_SHAPE_LAYOUT_STRIDED:
      if (!loom_expect_mask(v, op, "result", op->type, def->types)) break;
      for (uint32_t i = 0; i < op->operand_count; ++i) {
        if (!loom_operand_is_static(LOOM_OPERAND(m, op, i))) {
          loom_expect_operand(v, op, i, LOOM_TYPE_INDEX);
        } else if (LOOM_STATIC(m, LOOM_OPERAND(m, op, i)) < 0) {
          loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                      "strides must not be negative");
        }
      }
      break;
    case LOOM_SHAPE_LOAD:
    case LOOM_SHAPE_STORE:
    case LOOM_SHAPE_RMW:
      loom_check_access(v, op);
      break;
    case LOOM_SHAPE_EXTRACT:
    case LOOM_SHAPE_INSERT: {
      bool extract = def->shape == LOOM_SHAPE_EXTRACT;
      loom_type_id_t vector = extract ? op->type : op->type2;
      loom_type_id_t element = extract ? op->type2 : op->type;
      if (!loom_expect_mask(v, op, "vector", vector, LOOM_MASK_VECTOR)) break;
      /* k indices leave the element (all axes) or the trailing axes. */
      uint32_t count = op->operand_count - (extract ? 1 : 2);
      if (count <= LOOM_TYPE(m, vector).rank &&
          !loom_vector_is_tail(m, vector, count, element)) {
        char want[96], have[96];
        loom_type_text(v, vector, want, sizeof(want));
        loom_type_text(v, element, have, sizeof(have));
        loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                    "%s: %u indices into %s leave %s, not %s", def->name,
                    count, want,
                    count == LOOM_TYPE(m, vector).rank
                        ? loom_type_kind_name(loom_element(v, vector))
                        : "its trailing axes",
                    have);
      }
      if (extract) {
        loom_expect_operand(v, op, 0, vector);
        loom_check_indices(v, op, 1, vector);
      } else {
        loom_expect_operand(v, op, 0, element);
        loom_expect_operand(v, op, 1, vector);
        loom_check_indices(v, op, 2, vector);
      }
      break;
    }
    case LOOM_SHAPE_IOTA:
      loom_check_vector_op(v, op, def);
      break;
    case LOOM_SHAPE_DOT:
      loom_check_dot(v, op, def);
      break;
    case LOOM_SHAPE_BITS:
      loom_check_bits(v, op, def);
      break;
    case LOOM_SHAPE_LAYOUT:
      loom_check_layout(v, op, def);
      break;
    case LOOM_SHAPE_LANE_LOAD:
    case LOOM_SHAPE_LANE_STORE:
      loom_check_lane_access(v, op);
      break;
    case LOOM_SHAPE_REDUCE_AXES:
      loom_check_reduce_axes(v, op);
      break;
    case LOOM_SHAPE_FRAGMENT:
    case LOOM_SHAPE_FRAGMENT_LOAD:
    case LOOM_SHAPE_FRAGMENT_STORE:
      loom_check_fragment(v, op, def);
      break;
    case LOOM_SHAPE_SPLAT:
      if (strcmp(def->name, "vector.from_elements") == 0) {
        loom_check_vector_op(v, op, def);
        break;
      }
      if (!loom_expect_mask(v, op, "result", op->type, LOOM_MASK_VECTOR) ||
          !loom_expect_operand_count(v, op, 1)) {
        break;
      }
      loom_expect_operand(v, op, 0, loom_element(v, op->type));
      break;
    case LOOM_SHAPE_SCALE:
      if (!loom_expect_operand_count(v, op, 2)) break;
      loom_expect_mask(v, op, "index", op->type, LOOM_MASK_ADDR);
      loom_expect_mask(v, op, "stride", op->type2, LOOM_MASK_ADDR);
      loom_expect_operand(v, op, 0, op->type);
      loom_expect_operand(v, op, 1, op->type2);
      break;
    case LOOM_SHAPE_SHUFFLE:
      if (!loom_expect_operand_count(v, op, 3)) break;
      loom_expect_mask(v, op, "value", op->type, def->types);
      loom_expect_operand(v, op, 0, op->type);
      loom_expect_operand(v, op, 1, LOOM_TYPE_I32);
      loom_expect_operand(v, op, 2, LOOM_TYPE_I32);
      break;
    case LOOM_SHAPE_VECTOR_REDUCE:
      if (!loom_expect_operand_count(v, op, 2) ||
          !loom_expect_mask(v, op, "vector", op->type, def->types) ||
          !loom_expect_mask(v, op, "result", op->type2, def->types2)) {
        break;
      }
      if (LOOM_TYPE(m, op->type).element != loom_type_kind(m, op->type2)) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                    "vector.reduce of %s elements cannot give %s",
                    loom_type_kind_name(LOOM_TYPE(m, op->type).element),
                    loom_type_kind_name(loom_type_kind(m, op->type2)));
        break;
      }
      loom_expect_operand(v, op, 0, op->type);
      loom_expect_operand(v, op, 1, op->type2);
      loom_check_combine_kind(v, op, op->type2);
      break;
    case LOOM_SHAPE_REDUCE: {
      if (!loom_expect_mask(v, op, "value", op->type, def->types)) break;
      loom_expect_operand(v, op, 0, op->type);
      loom_check_combine_kind(v, op, op->type);
      if (strcmp(def->name, "kernel.workgroup.reduce") == 0) {
        loom_check_workgroup_reduce(v, op);
      }
      break;
    }
    case LOOM_SHAPE_SYNC:
      if (strcmp(def->name, "buffer.fence") == 0 &&
          (op->attrs[LOOM_ATTR_SCOPE] < 0 ||
           op->attrs[LOOM_ATTR_ORDERING] < 0)) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                    "buffer.fence needs scope(...) and ordering(...)");
      }
      break;
    case LOOM_SHAPE_ALLOCA: {
      loom_expect_mask(v, op, "result", op->type, LOOM_MASK_BUFFER);
      loom_expect_mask(v, op, "size", loom_operand_type(v, op, 0),
                       LOOM_MASK_ADDR);
      const char* space =
          loom_enum_keyword(LOOM_ENUM_MEMORY_SPACE, op->enum_value);
      if (space && strcmp(space, "workgroup") && strcmp(space, "private")) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                    "buffer.alloca allocates workgroup or private memory, "
                    "not %s", space);
      }
      break;
    }
    case LOOM_SHAPE_LAUNCH_CONFIG:
      if (op->operand_count != 6 && op->operand_count != 9) {
        loom_expect_operand_count(v, op, 6);
        break;
      }
      loom_expect_mask(v, op, "operand", op->type, LOOM_MASK_INDEX);
      for (uint32_t i = 0; i < op->operand_count; ++i) {
        loom_expect_operand(v, op, i, LOOM_TYPE_INDEX);
      }
      break;
    case LOOM_SHAPE_SELECT:
      if (strcmp(def->name, "vector.select") == 0) {
        loom_check_vector_op(v, op, def);
        break;
      }
      if (!loom_expect_operand_count(v, op, 3)) break;
      loom_expect_operand(v, op, 0, LOOM_TYPE_I1);
      loom_expect_operand(v, op, 1, op->type);
      loom_expect_operand(v, op, 2, op->type);
      break;
    case LOOM_SHAPE_IF:
      loom_expect_operand(v, op, 0, LOOM_TYPE_I1);
      if (op->result_count && !op->has_else) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_YIELD_ARITY, NULL, 0,
                    "scf.if with results needs an else region");
      }
      break;
    case LOOM_SHAPE_FOR: {
      for (uint32_t i = 0; i < 3; ++i) {
        loom_expect_operand(v, op, i, LOOM_TYPE_INDEX);
      }
      const loom_region_t* body = &LOOM_REGION(m, op->regions[0]);
      uint32_t iters = body->arg_count - 1;
      if (op->result_count != iters) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_YIELD_ARITY, NULL, 0,
                    "scf.for carries %u values but has %u results", iters,
                    op->result_count);
      }
      for (uint32_t i = 0; i < iters; ++i) {
        loom_type_id_t t = LOOM_VALUE(m, body->args_start + 1 + i).type;
        loom_expect_operand(v, op, 3 + i, t);
        if (i < op->result_count &&
            LOOM_VALUE(m, op->results_start + i).type != t) {
          loom_type_mismatch(v, op, "result",
                             t, LOOM_VALUE(m, op->results_start + i).type);
        }
      }
      break;
    }
    case LOOM_SHAPE_WHILE: {
      const loom_region_t* before = &LOOM_REGION(m, op->regions[0]);
      const loom_region_t* after = &LOOM_REGION(m, op->regions[1]);
      for (uint32_t i = 0; i < before->arg_count; ++i) {
        loom_expect_operand(v, op, i, LOOM_VALUE(m, before->args_start + i).type);
      }
      if (after->arg_count != op->result_count) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_YIELD_ARITY, NULL, 0,
                    "scf.while 'do' takes %u values but the loop has %u "
                    "results", after->arg_count, op->result_count);
      }
      for (uint32_t i = 0; i < after->arg_count && i < op->result_count; ++i) {
        if (LOOM_VALUE(m, after->args_start + i).type !=
            LOOM_VALUE(m, op->results_start + i).type) {
          loom_type_mismatch(v, op, "do-argument",
                             LOOM_VALUE(m, op->results_start + i).type,
                             LOOM_VALUE(m, after->args_start + i).type);
        }
      }
      break;
    }
    case LOOM_SHAPE_CALL: {
      const char* symbol = loom_module_string(m, op->symbol);
      uint32_t callee = loom_module_find_func(m, symbol);
      if (callee == LOOM_NONE) {
        hrx_loom_diag_param_t params[] = {{"symbol", symbol}};
        loom_verror(v, op->span, HRX_LOOM_DIAG_UNDEFINED_SYMBOL, params, 1,
                    "call to undefined function @%s", symbol);
        break;
      }
      const loom_func_t* f = &LOOM_FUNC(m, callee);
      if (f->body_region == LOOM_NONE) break;
      const loom_region_t* body = &LOOM_REGION(m, f->body_region);
      if (!loom_expect_operand_count(v, op, body->arg_count)) break;
      for (uint32_t i = 0; i < body->arg_count; ++i) {
        loom_type_id_t param = LOOM_VALUE(m, body->args_start + i).type;
        if (!loom_types_compatible(m, param, loom_operand_type(v, op, i))) {
          char what[32];
          snprintf(what, sizeof(what), "argument %u", i);
          loom_type_mismatch(v, op, what, param, loom_operand_type(v, op, i));
        }
      }
      if (op->result_count != f->result_count) {
        loom_verror(v, op->span, HRX_LOOM_DIAG_RESULT_COUNT, NULL, 0,
                    "@%s returns %u values, call expects %u", symbol,
                    f->result_count, op->result_count);
        break;
      }
      for (uint32_t i = 0; i < f->result_count; ++i) {
        loom_type_id_t t =
            LOOM_AT(m->type_lists, loom_type_id_t, f->results_start + i);
        if (LOOM_VALUE(m, op->results_start + i).type != t) {
          loom_type_mismatch(v, op, "result", t,
                             LOOM_VALUE(m, op->results_start + i).type);
        }
      }
      break;
    }
    case LOOM_SHAPE_TERMINATOR:
      break; /* checked against the enclosing op */
  }
}

/*===------------------------------------------------------------------===*/
/* Regions and terminators                                                 */
/*===------------------------------------------------------------------===*/

/* What must end a region, and the values it must carry. */
typedef struct loom_region_rule_t {
  loom_term_t terminator;
  bool optional;           /* may be omitted when it would carry nothing */
  uint32_t value_count;
  const loom_type_id_t* value_types; /* NULL: use |value_source| */
  uint32_t value_source;   /* first value id whose types to match */
  bool leading_i1;         /* scf.condition: first operand is the i1 */
} loom_region_rule_t;

static void loom_verify_region(loom_verifier_t* v, uint32_t region,
                               const loom_region_rule_t* rule);

static const char* loom_term_name(loom_term_t term) {
  switch (term) {
    case LOOM_TERM_KERNEL_RETURN: return "kernel.return";
    case LOOM_TERM_LAUNCH_CONFIG: return "kernel.launch.config";
    case LOOM_TERM_YIELD: return "scf.yield";
    case LOOM_TERM_CONDITION: return "scf.condition";
    case LOOM_TERM_FUNC_RETURN: return "func.return";
    default: return "a terminator";
  }
}

static void loom_check_terminator(loom_verifier_t* v, const loom_op_t* op,
                                  const loom_region_rule_t* rule) {
  const loom_module_t* m = v->module;
  uint32_t first = rule->leading_i1 ? 1 : 0;
  if (rule->leading_i1) {
    if (op->operand_count == 0) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_YIELD_ARITY, NULL, 0,
                  "scf.condition needs an i1 condition");
      return;
    }
    loom_expect_operand(v, op, 0, LOOM_TYPE_I1);
  }
  if (op->operand_count - first != rule->value_count &&
      rule->terminator != LOOM_TERM_LAUNCH_CONFIG &&
      rule->terminator != LOOM_TERM_KERNEL_RETURN) {
    char expected[16], actual[16];
    snprintf(expected, sizeof(expected), "%u", rule->value_count);
    snprintf(actual, sizeof(actual), "%u", op->operand_count - first);
    hrx_loom_diag_param_t params[] = {{"expected", expected},
                                      {"actual", actual}};
    loom_verror(v, op->span, HRX_LOOM_DIAG_YIELD_ARITY, params, 2,
                "%s carries %s value%s, expected %s",
                loom_term_name(rule->terminator), actual,
                op->operand_count - first == 1 ? "" : "s", expected);
    return;
  }
  if (rule->terminator == LOOM_TERM_KERNEL_RETURN && op->operand_count) {
    loom_verror(v, op->span, HRX_LOOM_DIAG_YIELD_ARITY, NULL, 0,
                "kernel.return takes no values");
    return;
  }
  for (uint32_t i = 0; i < rule->value_count; ++i) {
    loom_type_id_t expected =
        rule->value_types ? rule->value_types[i]
                          : LOOM_VALUE(m, rule->value_source + i).type;
    loom_expect_operand(v, op, first + i, expected);
  }
}

static void loom_check_uses(loom_verifier_t* v, const loom_op_t* op) {
  for (uint32_t i = 0; i < op->operand_count; ++i) {
    uint32_t operand = LOOM_OPERAND(v->module, op, i);
    if (loom_operand_is_static(operand)) continue;
    v->used[operand] = 1;
    if (!v->visible[operand]) {
      hrx_loom_diag_param_t params[] = {{"symbol", loom_vname(v, operand)}};
      loom_verror(v, op->span, HRX_LOOM_DIAG_VALUE_NOT_VISIBLE, params, 1,
                  "%%%s does not dominate this use",
                  loom_vname(v, operand));
    }
  }
}

static void loom_mark_dims_used(loom_verifier_t* v, loom_type_id_t type) {
  const loom_type_t* t = &LOOM_TYPE(v->module, type);
  if (t->kind != LOOM_TYPE_VIEW) return;
  for (uint32_t d = 0; d < t->rank; ++d) {
    const loom_dim_t* dim = &LOOM_DIM(v->module, t->dims_start + d);
    if (dim->size < 0) v->used[dim->value] = 1;
  }
  if (t->layout != LOOM_NONE) v->used[t->layout] = 1;
}

static void loom_verify_op(loom_verifier_t* v, uint32_t op_id) {
  const loom_module_t* m = v->module;
  const loom_op_t* op = &LOOM_OP(m, op_id);
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  if (!(def->places & v->place)) {
    const char* where = v->place == LOOM_PLACE_CONFIG ? "a launch-config region"
                        : v->place == LOOM_PLACE_FUNC ? "a function body"
                                                      : "a kernel body";
    hrx_loom_diag_param_t params[] = {{"op", def->name}};
    loom_verror(v, op->span, HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE, params, 1,
                "%s is not allowed in %s", def->name, where);
  }
  loom_check_uses(v, op);
  loom_mark_dims_used(v, op->type);
  loom_mark_dims_used(v, op->type2);
  loom_check_op_types(v, op);

  /* Nested regions. */
  loom_region_rule_t rule = {.terminator = LOOM_TERM_YIELD, .optional = true};
  switch (def->shape) {
    case LOOM_SHAPE_IF:
      rule.value_count = op->result_count;
      rule.value_source = op->results_start;
      rule.optional = op->result_count == 0;
      for (uint32_t r = 0; r < op->region_count; ++r) {
        loom_verify_region(v, op->regions[r], &rule);
      }
      break;
    case LOOM_SHAPE_FOR: {
      const loom_region_t* body = &LOOM_REGION(m, op->regions[0]);
      rule.value_count = body->arg_count - 1;
      rule.value_source = body->args_start + 1;
      rule.optional = rule.value_count == 0;
      loom_verify_region(v, op->regions[0], &rule);
      break;
    }
    case LOOM_SHAPE_WHILE: {
      const loom_region_t* before = &LOOM_REGION(m, op->regions[0]);
      const loom_region_t* after = &LOOM_REGION(m, op->regions[1]);
      loom_region_rule_t cond = {.terminator = LOOM_TERM_CONDITION,
                                 .value_count = after->arg_count,
                                 .value_source = after->args_start,
                                 .leading_i1 = true};
      loom_verify_region(v, op->regions[0], &cond);
      rule.value_count = before->arg_count;
      rule.value_source = before->args_start;
      rule.optional = before->arg_count == 0;
      loom_verify_region(v, op->regions[1], &rule);
      break;
    }
    default:
      break;
  }
  for (uint32_t i = 0; i < op->result_count; ++i) {
    v->visible[op->results_start + i] = 1;
  }
}

static void loom_verify_region(loom_verifier_t* v, uint32_t region_id,
                               const loom_region_rule_t* rule) {
  const loom_module_t* m = v->module;
  const loom_region_t* region = &LOOM_REGION(m, region_id);
  for (uint32_t i = 0; i < region->arg_count; ++i) {
    v->visible[region->args_start + i] = 1;
  }
  uint32_t last_term = LOOM_NONE;
  for (uint32_t i = 0; i < region->op_count; ++i) {
    uint32_t op_id = LOOM_REGION_OP(m, region, i);
    const loom_op_t* op = &LOOM_OP(m, op_id);
    const loom_op_def_t* def = &loom_op_defs[op->opcode];
    loom_verify_op(v, op_id);
    if (def->terminator == LOOM_TERM_NONE) continue;
    if (i + 1 != region->op_count) {
      loom_verror(v, op->span, HRX_LOOM_DIAG_TERMINATOR_NOT_LAST, NULL, 0,
                  "%s must be the last op of its region", def->name);
    }
    if (def->terminator != rule->terminator) {
      hrx_loom_diag_param_t params[] = {
          {"expected", loom_term_name(rule->terminator)},
          {"actual", def->name}};
      loom_verror(v, op->span, HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE, params, 2,
                  "%s cannot end this region (expected %s)", def->name,
                  loom_term_name(rule->terminator));
    } else {
      loom_check_terminator(v, op, rule);
    }
    last_term = op_id;
  }
  if (last_term == LOOM_NONE && !rule->optional) {
    hrx_loom_diag_param_t params[] = {
        {"expected", loom_term_name(rule->terminator)}};
    loom_span_t end = region->span;
    if (end.offset != UINT32_MAX && end.length) {
      end.offset += end.length - 1;
      end.length = 1;
    }
    loom_verror(v, end, HRX_LOOM_DIAG_MISSING_TERMINATOR, params, 1,
                "region must end with %s", loom_term_name(rule->terminator));
  }
  /* Leaving the region hides what it defined. */
  for (uint32_t i = 0; i < region->arg_count; ++i) {
    v->visible[region->args_start + i] = 0;
  }
  for (uint32_t i = 0; i < region->op_count; ++i) {
    const loom_op_t* op = &LOOM_OP(m, LOOM_REGION_OP(m, region, i));
    for (uint32_t r = 0; r < op->result_count; ++r) {
      v->visible[op->results_start + r] = 0;
    }
  }
}

/*===------------------------------------------------------------------===*/
/* Top level                                                               */
/*===------------------------------------------------------------------===*/

static bool loom_is_amdgpu_kind(const char* kind) {
  if (strncmp(kind, "gfx", 3) != 0 || !kind[3]) return false;
  const char* generic = strstr(kind, "-generic");
  size_t digits = generic ? (size_t)(generic - kind) - 3 : strlen(kind) - 3;
  if (generic && generic[8] != '\0') return false;
  for (size_t i = 0; i < digits; ++i) {
    char c = kind[3 + i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return digits > 0;
}

static void loom_verify_targets(loom_verifier_t* v) {
  const loom_module_t* m = v->module;
  for (uint32_t t = 0; t < m->targets.count; ++t) {
    const loom_target_t* target = &LOOM_TARGET(m, t);
    /* Other families' kinds are theirs to define. */
    if (target->family == LOOM_TARGET_OTHER) continue;
    const char* kind = loom_module_string(m, target->kind);
    bool ok = target->family == LOOM_TARGET_HOST ? strcmp(kind, "cpu") == 0
                                                 : loom_is_amdgpu_kind(kind);
    if (!ok) {
      hrx_loom_diag_param_t params[] = {{"target", kind}};
      loom_verror(v, target->span, HRX_LOOM_DIAG_BAD_TARGET, params, 1,
                  "unknown %s target kind '%s'",
                  target->family == LOOM_TARGET_HOST ? "host" : "amdgpu",
                  kind);
    }
  }
}

static void loom_verify_configs(loom_verifier_t* v) {
  const loom_module_t* m = v->module;
  for (uint32_t c = 0; c < m->configs.count; ++c) {
    const loom_config_decl_t* decl = &LOOM_CONFIG(m, c);
    loom_type_kind_t kind = loom_type_kind(m, decl->type);
    if (!(LOOM_MASK_SCALAR & LOOM_KIND_BIT(kind))) {
      loom_verror(v, decl->span, HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, NULL, 0,
                  "config values are scalars, not %s",
                  loom_type_kind_name(kind));
    }
    if (decl->value_name != LOOM_NONE) {
      v->visible[decl->value_name] = 1;
      loom_check_facts(v, NULL, decl->value_name, decl->preds_start,
                       decl->pred_count);
      v->visible[decl->value_name] = 0;
    }
  }
}

/* launch(...) where [preds]: facts about the launch arguments of
 * |region|, which alone are in their scope. */
static void loom_check_launch_facts(loom_verifier_t* v, uint32_t region,
                                    uint32_t start, uint32_t count) {
  const loom_region_t* r = &LOOM_REGION(v->module, region);
  for (uint32_t i = 0; i < r->arg_count; ++i) {
    v->visible[r->args_start + i] = 1;
  }
  loom_check_facts(v, NULL, LOOM_NONE, start, count);
  for (uint32_t i = 0; i < r->arg_count; ++i) {
    v->visible[r->args_start + i] = 0;
  }
}

/* kernel.decl, and the bodies of check.case / check.scenario. */
static void loom_verify_records(loom_verifier_t* v) {
  const loom_module_t* m = v->module;
  loom_region_rule_t rule = {.terminator = LOOM_TERM_CHECK_RETURN};
  for (uint32_t r = 0; r < m->records.count; ++r) {
    const loom_record_t* record = &LOOM_RECORD(m, r);
    if (record->kind == LOOM_RECORD_KERNEL_DECL) {
      loom_check_launch_facts(v, record->regions[1], record->preds_start,
                              record->pred_count);
    } else if (record->kind == LOOM_RECORD_CASE ||
               record->kind == LOOM_RECORD_SCENARIO) {
      v->place = LOOM_PLACE_CHECK;
      loom_verify_region(v, record->regions[0], &rule);
    } else if (record->kind == LOOM_RECORD_BENCHMARK) {
      const char* ref = loom_module_string(m, record->ref);
      uint32_t at = loom_module_find_record(m, ref);
      if (at == LOOM_NONE || LOOM_RECORD(m, at).kind != LOOM_RECORD_CASE) {
        hrx_loom_diag_param_t params[] = {{"symbol", ref}};
        loom_verror(v, record->span, HRX_LOOM_DIAG_UNDEFINED_SYMBOL, params,
                    1, "check.benchmark names @%s, which is no check.case",
                    ref);
      }
    }
  }
}

static void loom_verify_kernel(loom_verifier_t* v, const loom_kernel_t* k) {
  const loom_module_t* m = v->module;
  const loom_region_t* config = &LOOM_REGION(m, k->config_region);
  for (uint32_t i = 0; i < config->arg_count; ++i) {
    const loom_value_t* arg = &LOOM_VALUE(m, config->args_start + i);
    loom_type_kind_t kind = loom_type_kind(m, arg->type);
    if (!(LOOM_KIND_BIT(kind) & (LOOM_MASK_ADDR | LOOM_MASK_INT |
                                 LOOM_MASK_FLOAT))) {
      loom_verror(v, arg->span, HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, NULL, 0,
                  "workload arguments are scalars, not %s",
                  loom_type_kind_name(kind));
    }
  }
  const loom_region_t* body = &LOOM_REGION(m, k->body_region);
  for (uint32_t i = 0; i < body->arg_count; ++i) {
    const loom_value_t* arg = &LOOM_VALUE(m, body->args_start + i);
    loom_type_kind_t kind = loom_type_kind(m, arg->type);
    if (kind == LOOM_TYPE_VIEW || kind == LOOM_TYPE_VECTOR ||
        loom_type_is_encoding(kind)) {
      loom_verror(v, arg->span, HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, NULL, 0,
                  "launch arguments are scalars or buffers, not %s",
                  loom_type_kind_name(kind));
    } else if (loom_type_is_f8(kind)) {
      /* The kernel-argument ABI (hrx_loom_arg_type_t) has no f8: pass
       * the bits as an i8 and scalar.bitcast them. */
      loom_verror(v, arg->span, HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, NULL, 0,
                  "launch arguments of type %s are not supported; pass an "
                  "i8 and scalar.bitcast it", loom_type_kind_name(kind));
    }
  }
  loom_region_rule_t config_rule = {.terminator = LOOM_TERM_LAUNCH_CONFIG};
  loom_region_rule_t body_rule = {.terminator = LOOM_TERM_KERNEL_RETURN};
  v->place = LOOM_PLACE_CONFIG;
  loom_verify_region(v, k->config_region, &config_rule);
  v->place = LOOM_PLACE_BODY;
  loom_verify_region(v, k->body_region, &body_rule);
  loom_check_launch_facts(v, k->body_region, k->preds_start, k->pred_count);
  for (uint32_t i = 0; i < body->arg_count; ++i) {
    uint32_t arg = body->args_start + i;
    if (!v->used[arg]) {
      hrx_loom_diag_param_t params[] = {{"symbol", loom_vname(v, arg)}};
      loom_diag_emit(v->diagnostics, &m->source, LOOM_VALUE(m, arg).span,
                     HRX_LOOM_SEVERITY_WARNING,
                     HRX_LOOM_DIAG_UNUSED_LAUNCH_ARGUMENT, params, 1,
                     "launch argument %%%s is never used", loom_vname(v, arg));
    }
  }
}

/*===------------------------------------------------------------------===*/
/* Calls, nesting through calls, divergent barriers                        */
/*===------------------------------------------------------------------===*/

/* How far a value, or the control around an op, varies within one
 * workgroup. Ordered: a barrier of some scope is divergent when control
 * varies at least as much as its scope spans. */
enum {
  LOOM_UNIFORM = 0,
  LOOM_VARIES_BY_SUBGROUP = 1, /* same in a subgroup, not across them */
  LOOM_VARIES_BY_LANE = 2,
  LOOM_NO_BARRIER = 3,         /* a barrier need: nothing makes it diverge */
};

/* A conservative uniformity analysis: a value varies as much as the most
 * varying of its operands, and work-item and lane ids, shuffles, atomic
 * read-modify-writes and private memory vary by lane; a call's results as
 * much as its arguments and what its callee returns. Function parameters
 * count as uniform, so a barrier whose divergence only a caller's
 * argument shows is left to the race sanitizer's run-time check. */
typedef struct loom_flow_t {
  loom_verifier_t* v;
  uint8_t* level;       /* per value */
  uint32_t* height;     /* per func: nesting of its body with its calls */
  uint8_t* need;        /* per func: least control level its barriers
                         * cannot take (LOOM_NO_BARRIER when none) */
  uint8_t* returns;     /* per func: level of what it returns */
  uint8_t* color;       /* per func: 0 new, 1 on the DFS stack, 2 done */
  bool changed;         /* a pass raised some value's level */
  bool report;          /* the final pass emits diagnostics */
  uint32_t max_depth;   /* of the body being walked, calls included */
  uint8_t body_need;
  uint8_t body_returns;
} loom_flow_t;

static uint8_t loom_operand_level(const loom_flow_t* f, const loom_op_t* op,
                                  uint32_t first, uint32_t end) {
  uint8_t level = LOOM_UNIFORM;
  for (uint32_t i = first; i < end && i < op->operand_count; ++i) {
    uint32_t operand = LOOM_OPERAND(f->v->module, op, i);
    if (!loom_operand_is_static(operand) && f->level[operand] > level) {
      level = f->level[operand];
    }
  }
  return level;
}

static void loom_raise(loom_flow_t* f, uint32_t value, uint8_t level) {
  if (f->level[value] < level) {
    f->level[value] = level;
    f->changed = true;
  }
}

/* What an op's results vary by whatever its operands are. */
static uint8_t loom_source_level(const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  static const char* const by_lane[] = {
      "kernel.workitem.id", "kernel.subgroup.lane.id",
      "kernel.subgroup.shuffle", "view.atomic.rmw"};
  for (size_t i = 0; i < sizeof(by_lane) / sizeof(by_lane[0]); ++i) {
    if (strcmp(def->name, by_lane[i]) == 0) return LOOM_VARIES_BY_LANE;
  }
  if (strcmp(def->name, "buffer.alloca") == 0) {
    const char* space = loom_enum_keyword(LOOM_ENUM_MEMORY_SPACE,
                                          op->enum_value);
    return space && strcmp(space, "private") == 0 ? LOOM_VARIES_BY_LANE
                                                  : LOOM_UNIFORM;
  }
  if (strcmp(def->name, "kernel.subgroup.reduce") == 0) {
    return op->attrs[LOOM_ATTR_CLUSTER_SIZE] > 0 ? LOOM_VARIES_BY_LANE
                                                 : LOOM_VARIES_BY_SUBGROUP;
  }
  if (strcmp(def->name, "kernel.subgroup.id") == 0) {
    return LOOM_VARIES_BY_SUBGROUP;
  }
  return LOOM_UNIFORM;
}

/* The control level at which a barrier of this op's scope diverges. */
static uint8_t loom_barrier_need(const loom_op_t* op) {
  const char* scope = loom_enum_keyword(LOOM_ENUM_SCOPE, op->enum_value);
  if (!scope || strcmp(scope, "thread") == 0) return LOOM_NO_BARRIER;
  return strcmp(scope, "subgroup") == 0 ? LOOM_VARIES_BY_LANE
                                        : LOOM_VARIES_BY_SUBGROUP;
}

static const char* loom_level_name(uint8_t level) {
  return level == LOOM_VARIES_BY_LANE ? "work-item" : "subgroup";
}

static void loom_flow_region(loom_flow_t* f, uint32_t region, uint8_t control,
                             uint32_t depth);

static const loom_op_t* loom_flow_terminator(const loom_flow_t* f,
                                             uint32_t region_id) {
  const loom_module_t* m = f->v->module;
  const loom_region_t* region = &LOOM_REGION(m, region_id);
  if (!region->op_count) return NULL;
  const loom_op_t* last =
      &LOOM_OP(m, LOOM_REGION_OP(m, region, region->op_count - 1));
  return loom_op_defs[last->opcode].terminator != LOOM_TERM_NONE ? last
                                                                 : NULL;
}

/* Raises values [first, first + count) to the levels of the terminator's
 * operands from |operand| on, and at least to |floor|. */
static void loom_flow_carry(loom_flow_t* f, const loom_op_t* term,
                            uint32_t operand, uint32_t first, uint32_t count,
                            uint8_t floor) {
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t level = floor;
    if (term) {
      uint8_t from = loom_operand_level(f, term, operand + i, operand + i + 1);
      if (from > level) level = from;
    }
    loom_raise(f, first + i, level);
  }
}

static void loom_flow_barrier(loom_flow_t* f, const loom_op_t* op,
                              uint8_t need, uint8_t control,
                              const char* callee) {
  if (need < f->body_need) f->body_need = need;
  if (control < need || !f->report) return;
  hrx_loom_diag_param_t params[] = {{"varies_by", loom_level_name(control)}};
  const char* name = loom_op_defs[op->opcode].name;
  if (callee) {
    loom_verror(f->v, op->span, HRX_LOOM_DIAG_DIVERGENT_BARRIER, params, 1,
                "call to @%s reaches a barrier under control flow that "
                "varies by %s", callee, loom_level_name(control));
  } else if (strcmp(name, "kernel.barrier") != 0) {
    loom_verror(f->v, op->span, HRX_LOOM_DIAG_DIVERGENT_BARRIER, params, 1,
                "%s under control flow that varies by %s: every work-item "
                "of the workgroup must reach it", name,
                loom_level_name(control));
  } else {
    loom_verror(f->v, op->span, HRX_LOOM_DIAG_DIVERGENT_BARRIER, params, 1,
                "barrier under control flow that varies by %s: not every "
                "work-item of its scope reaches it", loom_level_name(control));
  }
}

/* Checks a call; returns the level of the callee's results. */
static uint8_t loom_flow_call(loom_flow_t* f, const loom_op_t* op,
                              uint8_t control, uint32_t depth) {
  const loom_module_t* m = f->v->module;
  const char* symbol = loom_module_string(m, op->symbol);
  uint32_t callee = loom_module_find_func(m, symbol);
  /* A callee still being walked is a recursive call, reported already. */
  if (callee == LOOM_NONE || f->color[callee] != 2) return LOOM_UNIFORM;
  uint32_t total = depth + f->height[callee];
  if (total > f->max_depth) f->max_depth = total;
  if (total > HRX_LOOM_MAX_NESTING &&
      f->height[callee] <= HRX_LOOM_MAX_NESTING && f->report) {
    char limit[16];
    snprintf(limit, sizeof(limit), "%d", HRX_LOOM_MAX_NESTING);
    hrx_loom_diag_param_t params[] = {{"limit", limit}, {"symbol", symbol}};
    loom_verror(f->v, op->span, HRX_LOOM_DIAG_NESTING_TOO_DEEP, params, 2,
                "nesting deeper than %s levels through the call to @%s",
                limit, symbol);
  }
  loom_flow_barrier(f, op, f->need[callee], control, symbol);
  return f->returns[callee];
}

static void loom_flow_op(loom_flow_t* f, const loom_op_t* op,
                         uint8_t control, uint32_t depth) {
  const loom_module_t* m = f->v->module;
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  uint8_t source = loom_source_level(op);
  switch (def->shape) {
    case LOOM_SHAPE_IF: {
      uint8_t cond = loom_operand_level(f, op, 0, 1);
      uint8_t inner = cond > control ? cond : control;
      for (uint32_t r = 0; r < op->region_count; ++r) {
        loom_flow_region(f, op->regions[r], inner, depth + 1);
        loom_flow_carry(f, loom_flow_terminator(f, op->regions[r]), 0,
                        op->results_start, op->result_count, cond);
      }
      return;
    }
    case LOOM_SHAPE_FOR: {
      const loom_region_t* body = &LOOM_REGION(m, op->regions[0]);
      uint8_t bounds = loom_operand_level(f, op, 0, 3);
      uint8_t inner = bounds > control ? bounds : control;
      loom_raise(f, body->args_start, bounds);
      for (uint32_t k = 1; k < body->arg_count; ++k) {
        loom_raise(f, body->args_start + k,
                   loom_operand_level(f, op, 2 + k, 3 + k));
      }
      loom_flow_region(f, op->regions[0], inner, depth + 1);
      /* Yields feed the next iteration; later passes see the raise. */
      loom_flow_carry(f, loom_flow_terminator(f, op->regions[0]), 0,
                      body->args_start + 1, body->arg_count - 1, bounds);
      for (uint32_t r = 0; r < op->result_count && r + 1 < body->arg_count;
           ++r) {
        loom_raise(f, op->results_start + r,
                   f->level[body->args_start + 1 + r]);
      }
      return;
    }
    case LOOM_SHAPE_WHILE: {
      const loom_region_t* before = &LOOM_REGION(m, op->regions[0]);
      const loom_region_t* after = &LOOM_REGION(m, op->regions[1]);
      const loom_op_t* cond_op = loom_flow_terminator(f, op->regions[0]);
      /* The exit condition's level from the previous pass decides how the
       * iterations after the first diverge. */
      uint8_t cond = cond_op ? loom_operand_level(f, cond_op, 0, 1) : 0;
      uint8_t inner = cond > control ? cond : control;
      for (uint32_t k = 0; k < before->arg_count; ++k) {
        loom_raise(f, before->args_start + k,
                   loom_operand_level(f, op, k, k + 1));
      }
      loom_flow_region(f, op->regions[0], inner, depth + 1);
      cond = cond_op ? loom_operand_level(f, cond_op, 0, 1) : 0;
      loom_flow_carry(f, cond_op, 1, after->args_start, after->arg_count,
                      cond);
      loom_flow_region(f, op->regions[1], inner, depth + 1);
      loom_flow_carry(f, loom_flow_terminator(f, op->regions[1]), 0,
                      before->args_start, before->arg_count, cond);
      for (uint32_t r = 0; r < op->result_count && r < after->arg_count;
           ++r) {
        loom_raise(f, op->results_start + r, f->level[after->args_start + r]);
      }
      return;
    }
    case LOOM_SHAPE_CALL:
      source = loom_flow_call(f, op, control, depth);
      break;
    case LOOM_SHAPE_TERMINATOR:
      if (def->terminator == LOOM_TERM_FUNC_RETURN) {
        uint8_t level = loom_operand_level(f, op, 0, op->operand_count);
        if (level > f->body_returns) f->body_returns = level;
      }
      break;
    case LOOM_SHAPE_SYNC:
      if (strcmp(def->name, "kernel.barrier") == 0) {
        loom_flow_barrier(f, op, loom_barrier_need(op), control, NULL);
      }
      break;
    case LOOM_SHAPE_REDUCE:
      /* A workgroup barrier inside; its result, the same in every
       * work-item, stays uniform whatever its operand varies by. */
      if (strcmp(def->name, "kernel.workgroup.reduce") == 0) {
        loom_flow_barrier(f, op, LOOM_VARIES_BY_SUBGROUP, control, NULL);
        return;
      }
      break;
    default:
      break;
  }
  uint8_t level = loom_operand_level(f, op, 0, op->operand_count);
  if (source > level) level = source;
  for (uint32_t r = 0; r < op->result_count; ++r) {
    loom_raise(f, op->results_start + r, level);
  }
}

/* Walks a region |depth| levels deep; recursion here follows the region
 * nesting the parser bounded, never calls. */
static void loom_flow_region(loom_flow_t* f, uint32_t region_id,
                             uint8_t control, uint32_t depth) {
  const loom_module_t* m = f->v->module;
  const loom_region_t* region = &LOOM_REGION(m, region_id);
  if (depth > f->max_depth) f->max_depth = depth;
  for (uint32_t i = 0; i < region->op_count; ++i) {
    loom_flow_op(f, &LOOM_OP(m, LOOM_REGION_OP(m, region, i)), control,
                 depth);
  }
}

/* Analyses one body to a fixed point (levels only rise, so this ends),
 * then once more to report; returns its nesting height. */
static uint32_t loom_flow_body(loom_flow_t* f, uint32_t region) {
  do {
    f->changed = false;
    f->max_depth = 0;
    f->body_need = LOOM_NO_BARRIER;
    f->body_returns = LOOM_UNIFORM;
    loom_flow_region(f, region, LOOM_UNIFORM, 1);
  } while (f->changed);
  f->report = true;
  loom_flow_region(f, region, LOOM_UNIFORM, 1);
  f->report = false;
  return f->max_depth;
}

/* Call edges: for each func, the call ops in its body, grouped by func. */
typedef struct loom_call_graph_t {
  uint32_t* first; /* per func + 1: start of its edges */
  uint32_t* calls; /* op ids */
} loom_call_graph_t;

static hrx_status_t loom_call_graph_build(const loom_module_t* m,
                                          loom_call_graph_t* g) {
  hrx_allocator_t a = m->allocator;
  uint32_t regions = m->regions.count ? m->regions.count : 1;
  uint32_t* owner = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(a, regions, sizeof(uint32_t),
                                                 (void**)&owner));
  hrx_status_t status = hrx_allocator_malloc_array(
      a, (size_t)m->funcs.count + 1, sizeof(uint32_t), (void**)&g->first);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(a, m->ops.count ? m->ops.count : 1,
                                        sizeof(uint32_t), (void**)&g->calls);
  }
  if (status != HRX_OK) {
    hrx_allocator_free(a, owner);
    return status;
  }
  /* A region is created after the region around it, so one forward pass
   * finds each region's func (LOOM_NONE inside kernels). */
  for (uint32_t r = 0; r < m->regions.count; ++r) owner[r] = LOOM_NONE;
  for (uint32_t fn = 0; fn < m->funcs.count; ++fn) {
    owner[LOOM_FUNC(m, fn).body_region] = fn;
  }
  for (uint32_t r = 0; r < m->regions.count; ++r) {
    uint32_t parent = LOOM_REGION(m, r).parent_region;
    if (parent != LOOM_NONE) owner[r] = owner[parent];
  }
  memset(g->first, 0, ((size_t)m->funcs.count + 1) * sizeof(uint32_t));
  for (uint32_t o = 0; o < m->ops.count; ++o) {
    const loom_op_t* op = &LOOM_OP(m, o);
    if (loom_op_defs[op->opcode].shape == LOOM_SHAPE_CALL &&
        owner[op->region] != LOOM_NONE) {
      g->first[owner[op->region] + 1]++;
    }
  }
  for (uint32_t fn = 0; fn < m->funcs.count; ++fn) {
    g->first[fn + 1] += g->first[fn];
  }
  /* first[fn] is now where fn's edges start; filling moves it to where
   * they end, i.e. to first[fn + 1], so shifting back restores it. */
  for (uint32_t o = 0; o < m->ops.count; ++o) {
    const loom_op_t* op = &LOOM_OP(m, o);
    if (loom_op_defs[op->opcode].shape == LOOM_SHAPE_CALL &&
        owner[op->region] != LOOM_NONE) {
      g->calls[g->first[owner[op->region]]++] = o;
    }
  }
  for (uint32_t fn = m->funcs.count; fn > 0; --fn) {
    g->first[fn] = g->first[fn - 1];
  }
  g->first[0] = 0;
  hrx_allocator_free(a, owner);
  return HRX_OK;
}
static void loom_call_graph_free(const loom_module_t* m,
                                 loom_call_graph_t* g) {
  hrx_allocator_free(m->allocator, g->first);
  hrx_allocator_free(m->allocator, g->calls);
}

/* Walks the call graph depth-first without recursion (a chain of calls
 * may be as long as the module), so each func is analysed after every
 * func it calls; a call back into a func still on the path is recursion,
 * which inlining backends cannot compile. */
static void loom_flow_funcs(loom_flow_t* f, const loom_call_graph_t* g,
                            uint32_t* stack, uint32_t* next) {
  const loom_module_t* m = f->v->module;
  for (uint32_t root = 0; root < m->funcs.count; ++root) {
    if (f->color[root]) continue;
    uint32_t depth = 0;
    stack[depth++] = root;
    f->color[root] = 1;
    next[root] = g->first[root];
    while (depth) {
      uint32_t fn = stack[depth - 1];
      if (next[fn] == g->first[fn + 1]) {
        --depth;
        f->height[fn] = loom_flow_body(f, LOOM_FUNC(m, fn).body_region);
        f->need[fn] = f->body_need;
        f->returns[fn] = f->body_returns;
        f->color[fn] = 2;
        continue;
      }
      const loom_op_t* op = &LOOM_OP(m, g->calls[next[fn]++]);
      const char* symbol = loom_module_string(m, op->symbol);
      uint32_t callee = loom_module_find_func(m, symbol);
      if (callee == LOOM_NONE || f->color[callee] == 2) continue;
      if (f->color[callee] == 1) {
        hrx_loom_diag_param_t params[] = {{"symbol", symbol}};
        loom_verror(f->v, op->span, HRX_LOOM_DIAG_RECURSIVE_CALL, params, 1,
                    "recursive call to @%s: calls are inlined, so no "
                    "function may reach itself", symbol);
        continue;
      }
      f->color[callee] = 1;
      next[callee] = g->first[callee];
      stack[depth++] = callee;
    }
  }
}

static hrx_status_t loom_verify_flow(loom_verifier_t* v) {
  const loom_module_t* m = v->module;
  hrx_allocator_t a = m->allocator;
  size_t funcs = m->funcs.count ? m->funcs.count : 1;
  loom_call_graph_t g = {0};
  loom_flow_t f = {.v = v};
  uint32_t* stack = NULL;
  uint32_t* next = NULL;
  hrx_status_t status = loom_call_graph_build(m, &g);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc(a, m->values.count ? m->values.count : 1,
                                  (void**)&f.level);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(a, funcs, sizeof(uint32_t),
                                        (void**)&f.height);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc(a, funcs, (void**)&f.need);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc(a, funcs, (void**)&f.returns);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc(a, funcs, (void**)&f.color);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(a, funcs, sizeof(uint32_t),
                                        (void**)&stack);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(a, funcs, sizeof(uint32_t),
                                        (void**)&next);
  }
  if (status == HRX_OK) {
    loom_flow_funcs(&f, &g, stack, next);
    for (uint32_t k = 0; k < m->kernels.count; ++k) {
      loom_flow_body(&f, LOOM_KERNEL(m, k).body_region);
    }
  }
  hrx_allocator_free(a, next);
  hrx_allocator_free(a, stack);
  hrx_allocator_free(a, f.color);
  hrx_allocator_free(a, f.returns);
  hrx_allocator_free(a, f.need);
  hrx_allocator_free(a, f.height);
  hrx_allocator_free(a, f.level);
  loom_call_graph_free(m, &g);
  return status;
}

/* The host code object holds at most HRX_LOOM_MAX_KERNELS kernels; say so
 * at the first kernel past it rather than after lowering. */
static void loom_verify_module_limits(loom_verifier_t* v) {
  const loom_module_t* m = v->module;
  if (m->kernels.count <= HRX_LOOM_MAX_KERNELS) return;
  char limit[16];
  snprintf(limit, sizeof(limit), "%d", HRX_LOOM_MAX_KERNELS);
  hrx_loom_diag_param_t params[] = {{"limit", limit}};
  loom_verror(v, LOOM_KERNEL(m, HRX_LOOM_MAX_KERNELS).span,
              HRX_LOOM_DIAG_MODULE_LIMIT, params, 1,
              "module has %u kernels; a code object holds at most %s",
              m->kernels.count, limit);
}

hrx_status_t hrx_loom_module_verify(const hrx_loom_module_t* module,
                                    hrx_loom_diagnostics_t* diagnostics) {
  size_t errors_before =
      diagnostics ? hrx_loom_diagnostics_error_count(diagnostics) : 0;
  uint32_t count = module->values.count ? module->values.count : 1;
  uint8_t* flags = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(module->allocator, 2 * (size_t)count,
                                           (void**)&flags));
  /* Without a caller's list, collect into a private one to count errors. */
  hrx_loom_diagnostics_t* own = NULL;
  if (!diagnostics) {
    hrx_status_t status =
        hrx_loom_diagnostics_create(1, module->allocator, &own);
    if (status != HRX_OK) {
      hrx_allocator_free(module->allocator, flags);
      return status;
    }
  }
  loom_verifier_t v = {.module = module,
                       .diagnostics = diagnostics ? diagnostics : own,
                       .visible = flags,
                       .used = flags + count,
                       .func = LOOM_NONE};
  loom_verify_targets(&v);
  loom_verify_configs(&v);
  for (uint32_t k = 0; k < module->kernels.count; ++k) {
    loom_verify_kernel(&v, &LOOM_KERNEL(module, k));
  }
  for (uint32_t f = 0; f < module->funcs.count; ++f) {
    const loom_func_t* func = &LOOM_FUNC(module, f);
    if (func->body_region == LOOM_NONE || (func->flags & LOOM_FUNC_DECL)) {
      continue;
    }
    loom_region_rule_t rule = {
        .terminator = LOOM_TERM_FUNC_RETURN,
        .value_count = func->result_count,
        .value_types = func->result_count
                           ? &LOOM_AT(module->type_lists, loom_type_id_t,
                                      func->results_start)
                           : NULL};
    v.place = LOOM_PLACE_FUNC;
    v.func = f;
    loom_verify_region(&v, func->body_region, &rule);
  }
  loom_verify_records(&v);
  loom_verify_module_limits(&v);
  /* The flow analysis trusts types and terminators, so it runs only on a
   * module that passed everything else. */
  hrx_status_t status = HRX_OK;
  if (hrx_loom_diagnostics_error_count(v.diagnostics) ==
      (own ? 0 : errors_before)) {
    status = loom_verify_flow(&v);
  }
  if (status == HRX_OK) {
    status = loom_diag_result(v.diagnostics, own ? 0 : errors_before,
                              "verification");
  }
  hrx_loom_diagnostics_destroy(own);
  hrx_allocator_free(module->allocator, flags);
  return status;
}
