/* Canonical text of a module. Targets, then configs, functions and
 * kernels; one op per line, two spaces per nesting level. */
#include <inttypes.h>
#include <string.h>

#include "hrx/loom/module.h"
#include "op_table.h"
#include "vector_access.h"
#include "vector_layout.h"

typedef struct loom_printer_t {
  const loom_module_t* module;
  hrx_string_builder_t* out;
} loom_printer_t;

#define P_TRY(expr) HRX_RETURN_IF_ERROR(expr)

static hrx_status_t loom_p(loom_printer_t* p, const char* text) {
  return hrx_string_builder_append_cstr(p->out, text);
}

static hrx_status_t loom_pf(loom_printer_t* p, const char* format, ...)
    HRX_PRINTF(2, 3);
static hrx_status_t loom_pf(loom_printer_t* p, const char* format, ...) {
  va_list args;
  va_start(args, format);
  hrx_status_t status = hrx_string_builder_appendf_v(p->out, format, args);
  va_end(args);
  return status;
}

static hrx_status_t loom_p_type(loom_printer_t* p, loom_type_id_t type) {
  return loom_type_print(p->module, type, p->out);
}

static hrx_status_t loom_p_value(loom_printer_t* p, uint32_t value) {
  return loom_pf(p, "%%%s", loom_module_string(
                                p->module, LOOM_VALUE(p->module, value).name));
}

static hrx_status_t loom_p_operand(loom_printer_t* p, uint32_t operand) {
  if (loom_operand_is_static(operand)) {
    return loom_pf(p, "%" PRId64, LOOM_STATIC(p->module, operand));
  }
  return loom_p_value(p, operand);
}

/* Operands [first, end) separated by ", ". */
static hrx_status_t loom_p_operands(loom_printer_t* p, const loom_op_t* op,
                                    uint32_t first, uint32_t end) {
  for (uint32_t i = first; i < end; ++i) {
    if (i > first) P_TRY(loom_p(p, ", "));
    P_TRY(loom_p_operand(p, LOOM_OPERAND(p->module, op, i)));
  }
  return HRX_OK;
}

/* " : <type>", how most forms end. */
static hrx_status_t loom_p_colon_type(loom_printer_t* p, loom_type_id_t type) {
  P_TRY(loom_p(p, " : "));
  return loom_p_type(p, type);
}

/* " <operands [first, end)> : <the op's type>", the body most
 * value-producing forms share. */
static hrx_status_t loom_p_operands_typed(loom_printer_t* p,
                                          const loom_op_t* op, uint32_t first,
                                          uint32_t end) {
  P_TRY(loom_p(p, " "));
  P_TRY(loom_p_operands(p, op, first, end));
  return loom_p_colon_type(p, op->type);
}

static hrx_status_t loom_p_operand_types(loom_printer_t* p,
                                         const loom_op_t* op, uint32_t first,
                                         uint32_t end) {
  for (uint32_t i = first; i < end; ++i) {
    if (i > first) P_TRY(loom_p(p, ", "));
    P_TRY(loom_p_type(p, LOOM_VALUE(p->module,
                                    LOOM_OPERAND(p->module, op, i)).type));
  }
  return HRX_OK;
}

static hrx_status_t loom_p_result_types(loom_printer_t* p,
                                        const loom_op_t* op) {
  P_TRY(loom_p(p, "("));
  for (uint32_t i = 0; i < op->result_count; ++i) {
    if (i) P_TRY(loom_p(p, ", "));
    P_TRY(loom_p_type(p, LOOM_VALUE(p->module, op->results_start + i).type));
  }
  return loom_p(p, ")");
}

/* " -> type, ..." when |op| (structured control flow) has results. */
static hrx_status_t loom_p_result_arrow(loom_printer_t* p,
                                        const loom_op_t* op) {
  if (!op->result_count) return HRX_OK;
  P_TRY(loom_p(p, " -> "));
  return loom_p_result_types(p, op);
}

/* "%arg = init : type, ..." for the loop-carried arguments of |region|
 * from |first_arg| on, whose initial values are |op|'s operands from
 * |first_operand| on (scf.for and scf.while). */
static hrx_status_t loom_p_carried(loom_printer_t* p, const loom_op_t* op,
                                   const loom_region_t* region,
                                   uint32_t first_arg, uint32_t first_operand) {
  for (uint32_t i = first_arg; i < region->arg_count; ++i) {
    if (i > first_arg) P_TRY(loom_p(p, ", "));
    P_TRY(loom_p_value(p, region->args_start + i));
    P_TRY(loom_p(p, " = "));
    P_TRY(loom_p_operand(
        p, LOOM_OPERAND(p->module, op, first_operand + (i - first_arg))));
    P_TRY(loom_p_colon_type(
        p, LOOM_VALUE(p->module, region->args_start + i).type));
  }
  return HRX_OK;
}

static hrx_status_t loom_p_indices(loom_printer_t* p, const loom_op_t* op,
                                   uint32_t first) {
  P_TRY(loom_p(p, "["));
  P_TRY(loom_p_operands(p, op, first, op->operand_count));
  return loom_p(p, "]");
}

static hrx_status_t loom_p_literal(loom_printer_t* p,
                                   const loom_literal_t* literal) {
  switch (literal->kind) {
    case LOOM_LITERAL_BOOL: return loom_p(p, literal->i ? "true" : "false");
    case LOOM_LITERAL_FLOAT:
      return loom_p(p, loom_module_string(p->module, literal->text));
    default: return loom_pf(p, "%" PRId64, literal->i);
  }
}

static hrx_status_t loom_p_ref(loom_printer_t* p, const loom_ref_t* ref) {
  if (ref->is_static) return loom_pf(p, "%" PRId64, ref->constant);
  return loom_p_value(p, ref->value);
}

static hrx_status_t loom_p_preds(loom_printer_t* p, uint32_t start,
                                 uint32_t count) {
  static const char* const names[LOOM_PRED_COUNT] = {
      [LOOM_PRED_RANGE] = "range", [LOOM_PRED_LT] = "lt",
      [LOOM_PRED_LE] = "le",       [LOOM_PRED_EQ] = "eq",
      [LOOM_PRED_NE] = "ne",       [LOOM_PRED_MUL] = "mul"};
  P_TRY(loom_p(p, "["));
  for (uint32_t i = 0; i < count; ++i) {
    const loom_pred_t* pred = &LOOM_PRED(p->module, start + i);
    P_TRY(loom_pf(p, "%s%s(", i ? ", " : "", names[pred->kind]));
    for (uint32_t a = 0; a < pred->arg_count; ++a) {
      if (a) P_TRY(loom_p(p, ", "));
      P_TRY(loom_p_ref(p, &pred->args[a]));
    }
    P_TRY(loom_p(p, ")"));
  }
  return loom_p(p, "]");
}

/* {key = value, ...} in alphabetical key order, or nothing. */
static hrx_status_t loom_p_attr_dict(loom_printer_t* p, const loom_op_t* op) {
  static const struct {
    loom_attr_key_t key;
    const char* name;
    loom_enum_set_t set;
  } order[] = {{LOOM_ATTR_ALIGN, "align", LOOM_ENUM_NONE},
               {LOOM_ATTR_CLUSTER_SIZE, "cluster_size", LOOM_ENUM_NONE},
               {LOOM_ATTR_MIN_ALIGN, "minimum_alignment", LOOM_ENUM_NONE},
               {LOOM_ATTR_OFFSET, "offset", LOOM_ENUM_NONE},
               {LOOM_ATTR_WIDTH, "width", LOOM_ENUM_NONE},
               {LOOM_ATTR_ORDERING, "ordering", LOOM_ENUM_ORDERING},
               {LOOM_ATTR_SCOPE, "scope", LOOM_ENUM_SCOPE}};
  bool any = false;
  for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); ++i) {
    int64_t value = op->attrs[order[i].key];
    if (value < 0) continue;
    P_TRY(loom_p(p, any ? ", " : " {"));
    any = true;
    if (order[i].set != LOOM_ENUM_NONE) {
      P_TRY(loom_pf(p, "%s = %s", order[i].name,
                    loom_enum_keyword(order[i].set, (uint32_t)value)));
    } else {
      P_TRY(loom_pf(p, "%s = %" PRId64, order[i].name, value));
    }
  }
  return any ? loom_p(p, "}") : HRX_OK;
}

/* " %base..., [%i, ...] {attrs} : T <between> T2": the shape shared by
 * loads, stores, views and read-modify-writes; |direct| operands precede
 * the indices. */
static hrx_status_t loom_p_access(loom_printer_t* p, const loom_op_t* op,
                                  uint32_t direct, const char* between) {
  P_TRY(loom_p(p, " "));
  P_TRY(loom_p_operands(p, op, 0, direct));
  P_TRY(loom_p_indices(p, op, direct));
  P_TRY(loom_p_attr_dict(p, op));
  P_TRY(loom_p_colon_type(p, op->type));
  P_TRY(loom_p(p, between));
  return loom_p_type(p, op->type2);
}

/* "<keyword>", "<keyword, a|b>", "<a|b>" or nothing. */
static hrx_status_t loom_p_param(loom_printer_t* p, const loom_op_t* op,
                                 const loom_op_def_t* def) {
  bool has_enum = def->shape != LOOM_SHAPE_COMPARE &&
                  op->enum_value != LOOM_ENUM_ABSENT &&
                  def->enum_set != LOOM_ENUM_NONE;
  /* Flags without a vocabulary are an application's words (see
   * loom_p_call_words), not <...>. */
  if (!has_enum && (!op->flags || def->flag_set == LOOM_FLAGS_NONE)) {
    return HRX_OK;
  }
  P_TRY(loom_p(p, "<"));
  if (has_enum) {
    P_TRY(loom_p(p, loom_enum_keyword((loom_enum_set_t)def->enum_set,
                                      op->enum_value)));
    if (op->flags) P_TRY(loom_p(p, ", "));
  }
  const char* separator = "";
  for (uint32_t bit = 1; bit <= op->flags; bit <<= 1) {
    if (!(op->flags & bit)) continue;
    P_TRY(loom_pf(p, "%s%s", separator,
                  loom_flag_keyword((loom_flag_set_t)def->flag_set, bit)));
    separator = "|";
  }
  return loom_p(p, ">");
}

/* ' word(literal)' for each present clause of a check op, named by
 * |words| in the order the literals were parsed. */
static hrx_status_t loom_p_check_clauses(loom_printer_t* p,
                                         const loom_op_t* op,
                                         const char* const* words) {
  for (uint32_t i = 0; i < op->pred_count; ++i) {
    const loom_literal_t* literal =
        &LOOM_AT(p->module->literals, loom_literal_t, op->preds_start + i);
    if (literal->kind == LOOM_LITERAL_NONE) continue;
    P_TRY(loom_pf(p, " %s(", words[i]));
    P_TRY(loom_p_literal(p, literal));
    P_TRY(loom_p(p, ")"));
  }
  return HRX_OK;
}

static hrx_status_t loom_p_indent(loom_printer_t* p, uint32_t depth) {
  for (uint32_t i = 0; i < depth; ++i) P_TRY(loom_p(p, "  "));
  return HRX_OK;
}

static hrx_status_t loom_p_region(loom_printer_t* p, uint32_t region,
                                  uint32_t depth);

/* " @f(" of a call, "<@family>(" / "<contract.key>(" of an application
 * (which prints what was applied, not the implementation chosen). */
static hrx_status_t loom_p_callee(loom_printer_t* p, const loom_op_t* op) {
  const loom_module_t* m = p->module;
  switch (loom_op_defs[op->opcode].call_kind) {
    case LOOM_CALL_FAMILY:
      return loom_pf(p, "<@%s>(", loom_module_string(m, op->ref));
    case LOOM_CALL_CONTRACT:
      return loom_pf(p, "<%s>(", loom_module_string(m, op->ref));
    default:
      return loom_pf(p, " @%s(", loom_module_string(m, op->symbol));
  }
}

static hrx_status_t loom_p_call_words(loom_printer_t* p, const loom_op_t* op) {
  if (op->flags & LOOM_CALL_PURE) P_TRY(loom_p(p, " pure"));
  if (op->flags & LOOM_CALL_HOT) P_TRY(loom_p(p, " hot"));
  if (op->flags & LOOM_CALL_COLD) P_TRY(loom_p(p, " cold"));
  return HRX_OK;
}

/* " [s, ...]" of encoding.layout.strided, the spec of encoding.define. */
static hrx_status_t loom_p_layout_spec(loom_printer_t* p,
                                       const loom_op_t* op) {
  if (strcmp(loom_op_defs[op->opcode].name, "encoding.define") != 0) {
    P_TRY(loom_p(p, " "));
    return loom_p_indices(p, op, 0);
  }
  if (op->enum_value == LOOM_ENCODING_DENSE) {
    return loom_p(p, " #encoding.layout.dense");
  }
  if (op->enum_value == LOOM_ENCODING_SCHEMA) {
    return loom_pf(p, " %s", loom_module_string(p->module, op->symbol));
  }
  P_TRY(loom_p(p, " #encoding.layout.strided<strides = "));
  P_TRY(loom_p_indices(p, op, 0));
  return loom_p(p, ">");
}

static hrx_status_t loom_p_op(loom_printer_t* p, uint32_t op_id,
                              uint32_t depth) {
  const loom_module_t* m = p->module;
  const loom_op_t* op = &LOOM_OP(m, op_id);
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  P_TRY(loom_p_indent(p, depth));
  for (uint32_t i = 0; i < op->result_count; ++i) {
    if (i) P_TRY(loom_p(p, ", "));
    P_TRY(loom_p_value(p, op->results_start + i));
  }
  if (op->result_count) P_TRY(loom_p(p, " = "));
  P_TRY(loom_p(p, def->name));
  P_TRY(loom_p_param(p, op, def));
  switch (def->shape) {
    case LOOM_SHAPE_CONSTANT:
      if (strcmp(def->name, "vector.poison") != 0) {
        P_TRY(loom_p(p, " "));
        P_TRY(loom_p_literal(p, &op->literal));
      }
      P_TRY(loom_p_colon_type(p, op->type));
      break;
    case LOOM_SHAPE_NARY:
    case LOOM_SHAPE_SELECT:
    case LOOM_SHAPE_SPLAT:
    case LOOM_SHAPE_MEMORY_SPACE:
      P_TRY(loom_p_operands_typed(p, op, 0, op->operand_count));
      break;
    case LOOM_SHAPE_COMPARE:
      if (def->enum_set == LOOM_ENUM_NONE) {
        P_TRY(loom_p(p, " "));
      } else {
        P_TRY(loom_pf(p, " %s, ",
                      loom_enum_keyword((loom_enum_set_t)def->enum_set,
                                        op->enum_value)));
      }
      P_TRY(loom_p_operands(p, op, 0, op->operand_count));
      P_TRY(loom_p_colon_type(p, op->type));
      if (def->types & LOOM_MASK_VECTOR) {
        P_TRY(loom_p(p, " -> "));
        P_TRY(loom_p_type(p, op->type2));
      }
      break;
    case LOOM_SHAPE_BITS: {
      bool insert = op->operand_count == 2; /* vector.bitfield.insert */
      if (!def->attrs) P_TRY(loom_pf(p, "<%u>", (unsigned)op->enum_value));
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_operands(p, op, 0, 1));
      if (insert) {
        P_TRY(loom_p(p, " into "));
        P_TRY(loom_p_operands(p, op, 1, 2));
      }
      P_TRY(loom_p_attr_dict(p, op));
      P_TRY(loom_p_colon_type(p, op->type));
      P_TRY(loom_p(p, insert ? ", " : " -> "));
      P_TRY(loom_p_type(p, op->type2));
      break;
    }
    case LOOM_SHAPE_DOT:
      P_TRY(loom_p_operands_typed(p, op, 0, op->operand_count));
      if (loom_dot_type_count(def) == 3) {
        P_TRY(loom_p(p, ", "));
        P_TRY(loom_p_type(p, op->type));
      }
      if (loom_dot_type_count(def) >= 2) {
        P_TRY(loom_p(p, ", "));
        P_TRY(loom_p_type(p, op->type2));
      }
      break;
    case LOOM_SHAPE_LAYOUT: {
      loom_layout_kind_t kind = loom_layout_kind(op);
      if (kind == LOOM_LAYOUT_SHUFFLE || kind == LOOM_LAYOUT_TRANSPOSE) {
        P_TRY(loom_p(p, "<["));
        P_TRY(loom_p_operands(p, op, 1, op->operand_count));
        P_TRY(loom_p(p, "]>"));
      }
      uint32_t sources = loom_layout_sources(op);
      if (kind == LOOM_LAYOUT_INTERLEAVE || kind == LOOM_LAYOUT_CONCAT ||
          kind == LOOM_LAYOUT_DEINTERLEAVE) {
        P_TRY(loom_p(p, "<"));
        P_TRY(loom_p_operands(p, op, sources, sources + 1));
        P_TRY(loom_p(p, ">"));
      }
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_operands(p, op, 0, sources));
      if (kind == LOOM_LAYOUT_SLICE) {
        P_TRY(loom_p(p, "["));
        P_TRY(loom_p_operands(p, op, 1, op->operand_count));
        P_TRY(loom_p(p, "]"));
      }
      P_TRY(loom_p(p, " : "));
      for (uint32_t i = 0; i < sources; ++i) {
        if (i) P_TRY(loom_p(p, ", "));
        P_TRY(loom_p_type(p, op->type));
      }
      if (kind != LOOM_LAYOUT_SHUFFLE) {
        P_TRY(loom_p(p, " -> "));
        P_TRY(loom_p_type(p, op->type2));
      }
      if (kind == LOOM_LAYOUT_DEINTERLEAVE) {
        P_TRY(loom_p(p, ", "));
        P_TRY(loom_p_type(p, op->type2));
      }
      break;
    }
    case LOOM_SHAPE_IOTA:
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_operands(p, op, 0, 1));
      P_TRY(loom_p(p, " step "));
      P_TRY(loom_p_operands(p, op, 1, 2));
      P_TRY(loom_p_colon_type(p, op->type));
      break;
    case LOOM_SHAPE_CAST:
      P_TRY(loom_p_operands_typed(p, op, 0, 1));
      P_TRY(loom_p(p, " to "));
      P_TRY(loom_p_type(p, op->type2));
      break;
    case LOOM_SHAPE_NULLARY:
      P_TRY(loom_p_colon_type(p, op->type));
      break;
    case LOOM_SHAPE_CONFIG_GET:
      P_TRY(loom_pf(p, " @%s : ", loom_module_string(m, op->symbol)));
      P_TRY(loom_p_type(p, op->type));
      break;
    case LOOM_SHAPE_ASSUME:
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_operands(p, op, 0, op->operand_count));
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_preds(p, op->preds_start, op->pred_count));
      P_TRY(loom_p(p, " : "));
      for (uint32_t i = 0; i < op->result_count; ++i) {
        if (i) P_TRY(loom_p(p, ", "));
        P_TRY(loom_p_type(p, LOOM_VALUE(m, op->results_start + i).type));
      }
      break;
    case LOOM_SHAPE_NOALIAS:
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_operands(p, op, 0, op->operand_count));
      P_TRY(loom_p_attr_dict(p, op));
      P_TRY(loom_p(p, " : "));
      P_TRY(loom_p_operand_types(p, op, 0, op->operand_count));
      break;
    case LOOM_SHAPE_BUFFER_VIEW:
    case LOOM_SHAPE_LOAD:
    case LOOM_SHAPE_EXTRACT:
      P_TRY(loom_p_access(p, op, 1, " -> "));
      break;
    case LOOM_SHAPE_STORE:
    case LOOM_SHAPE_RMW:
      P_TRY(loom_p_access(p, op, 2, ", "));
      break;
    case LOOM_SHAPE_LANE_LOAD:
    case LOOM_SHAPE_LANE_STORE: {
      /* Stored as mask or offsets, passthrough or value, view, indices
       * (vector_access.h). */
      loom_lane_access_t a = loom_lane_access(op);
      P_TRY(loom_p(p, " "));
      if (!a.load) {
        P_TRY(loom_p_operands(p, op, a.data, a.data + 1));
        P_TRY(loom_p(p, ", "));
      }
      P_TRY(loom_p_operands(p, op, a.view, a.view + 1));
      P_TRY(loom_p_indices(p, op, a.view + 1));
      P_TRY(loom_p(p, a.masked ? ", " : "["));
      P_TRY(loom_p_operands(p, op, 0, 1));
      if (!a.masked) P_TRY(loom_p(p, "]"));
      if (a.load && a.masked) {
        P_TRY(loom_p(p, ", "));
        P_TRY(loom_p_operands(p, op, a.data, a.data + 1));
      }
      P_TRY(loom_p(p, " : "));
      if (!a.load) {
        P_TRY(loom_p_type(p, op->type2));
        P_TRY(loom_p(p, ", "));
      }
      P_TRY(loom_p_type(p, op->type));
      P_TRY(loom_p(p, ", "));
      P_TRY(loom_p_type(p, op->ref));
      if (a.load) {
        P_TRY(loom_p(p, a.masked ? ", " : " -> "));
        P_TRY(loom_p_type(p, op->type2));
      }
      break;
    }
    case LOOM_SHAPE_FRAGMENT:
    case LOOM_SHAPE_FRAGMENT_LOAD:
    case LOOM_SHAPE_FRAGMENT_STORE: {
      /* value and/or view, [origin], then shape [rows, columns] */
      uint32_t direct = def->shape == LOOM_SHAPE_FRAGMENT_STORE ? 2 : 1;
      uint32_t shape = op->operand_count - 2;
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_operands(p, op, 0, direct));
      if (def->shape != LOOM_SHAPE_FRAGMENT) {
        P_TRY(loom_p(p, "["));
        P_TRY(loom_p_operands(p, op, direct, shape));
        P_TRY(loom_p(p, "]"));
      }
      P_TRY(loom_p(p, " shape ["));
      P_TRY(loom_p_operands(p, op, shape, op->operand_count));
      P_TRY(loom_p(p, "]"));
      if (op->ref != LOOM_NONE) {
        P_TRY(loom_p(p, " using {schema = "));
        P_TRY(loom_p_value(p, op->ref));
        P_TRY(loom_p(p, "}"));
      }
      P_TRY(loom_p_colon_type(p, op->type));
      if (def->shape != LOOM_SHAPE_FRAGMENT) {
        P_TRY(loom_p(p, def->shape == LOOM_SHAPE_FRAGMENT_LOAD ? " -> "
                                                              : ", "));
        P_TRY(loom_p_type(p, op->type2));
      }
      break;
    }
    case LOOM_SHAPE_INSERT:
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_operands(p, op, 0, 1));
      P_TRY(loom_p(p, " into "));
      P_TRY(loom_p_operands(p, op, 1, 2));
      P_TRY(loom_p_indices(p, op, 2));
      P_TRY(loom_p_colon_type(p, op->type));
      P_TRY(loom_p(p, ", "));
      P_TRY(loom_p_type(p, op->type2));
      break;
    case LOOM_SHAPE_REDUCE_AXES:
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_operands(p, op, 0, 2));
      P_TRY(loom_p(p, " axes ["));
      P_TRY(loom_p_operands(p, op, 2, op->operand_count));
      P_TRY(loom_p(p, "] : "));
      P_TRY(loom_p_type(p, op->type));
      P_TRY(loom_p(p, ", "));
      P_TRY(loom_p_type(p, op->type2));
      break;
    case LOOM_SHAPE_VECTOR_REDUCE:
    case LOOM_SHAPE_SCALE:
      P_TRY(loom_p_operands_typed(p, op, 0, op->operand_count));
      P_TRY(loom_p(p, ", "));
      P_TRY(loom_p_type(p, op->type2));
      if (def->shape == LOOM_SHAPE_SCALE) {
        P_TRY(loom_p(p, " -> "));
        P_TRY(loom_p_type(p, op->type2));
      }
      break;
    case LOOM_SHAPE_SHUFFLE:
      P_TRY(loom_p_operands_typed(p, op, 0, op->operand_count));
      P_TRY(loom_p(p, ", i32, i32"));
      break;
    case LOOM_SHAPE_REDUCE:
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_operands(p, op, 0, 1));
      P_TRY(loom_p_attr_dict(p, op));
      P_TRY(loom_p_colon_type(p, op->type));
      break;
    case LOOM_SHAPE_SYNC:
      if (op->attrs[LOOM_ATTR_SCOPE] >= 0) {
        P_TRY(loom_pf(p, " scope(%s)",
                      loom_enum_keyword(LOOM_ENUM_SCOPE,
                                        (uint32_t)op->attrs[LOOM_ATTR_SCOPE])));
      }
      if (op->attrs[LOOM_ATTR_ORDERING] >= 0) {
        P_TRY(loom_pf(p, " ordering(%s)",
                      loom_enum_keyword(
                          LOOM_ENUM_ORDERING,
                          (uint32_t)op->attrs[LOOM_ATTR_ORDERING])));
      }
      break;
    case LOOM_SHAPE_ALLOCA:
      if (op->attrs[LOOM_ATTR_ALIGN] >= 0) {
        P_TRY(loom_pf(p, " align(%" PRId64 ")", op->attrs[LOOM_ATTR_ALIGN]));
      }
      P_TRY(loom_p_operands_typed(p, op, 0, 1));
      break;
    case LOOM_SHAPE_LAUNCH_CONFIG:
      P_TRY(loom_p(p, " workgroups("));
      P_TRY(loom_p_operands(p, op, 0, 3));
      P_TRY(loom_p(p, ") workgroup_size("));
      P_TRY(loom_p_operands(p, op, 3, 6));
      P_TRY(loom_p(p, ")"));
      if (op->operand_count == 9) {
        P_TRY(loom_p(p, " cluster_size("));
        P_TRY(loom_p_operands(p, op, 6, 9));
        P_TRY(loom_p(p, ")"));
      }
      P_TRY(loom_p_colon_type(p, op->type));
      break;
    case LOOM_SHAPE_TERMINATOR:
      if (op->operand_count) {
        P_TRY(loom_p(p, " "));
        P_TRY(loom_p_operands(p, op, 0, op->operand_count));
        P_TRY(loom_p(p, " : "));
        P_TRY(loom_p_operand_types(p, op, 0, op->operand_count));
      }
      break;
    case LOOM_SHAPE_IF:
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_operands(p, op, 0, 1));
      P_TRY(loom_p_result_arrow(p, op));
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_region(p, op->regions[0], depth));
      if (op->has_else) {
        P_TRY(loom_p(p, " else "));
        P_TRY(loom_p_region(p, op->regions[1], depth));
      }
      break;
    case LOOM_SHAPE_FOR: {
      const loom_region_t* body = &LOOM_REGION(m, op->regions[0]);
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_value(p, body->args_start));
      P_TRY(loom_p(p, " = ["));
      P_TRY(loom_p_operand(p, LOOM_OPERAND(m, op, 0)));
      P_TRY(loom_p(p, " to "));
      P_TRY(loom_p_operand(p, LOOM_OPERAND(m, op, 1)));
      P_TRY(loom_p(p, " step "));
      P_TRY(loom_p_operand(p, LOOM_OPERAND(m, op, 2)));
      P_TRY(loom_p(p, "]"));
      if (op->literal.kind == LOOM_LITERAL_INT) {
        P_TRY(loom_p(p, " unroll"));
        if (op->literal.i) P_TRY(loom_pf(p, "(%" PRId64 ")", op->literal.i));
      }
      if (body->arg_count > 1) {
        P_TRY(loom_p(p, "("));
        P_TRY(loom_p_carried(p, op, body, 1, 3));
        P_TRY(loom_p(p, ")"));
      }
      P_TRY(loom_p_result_arrow(p, op));
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_region(p, op->regions[0], depth));
      break;
    }
    case LOOM_SHAPE_WHILE: {
      const loom_region_t* before = &LOOM_REGION(m, op->regions[0]);
      const loom_region_t* after = &LOOM_REGION(m, op->regions[1]);
      P_TRY(loom_p(p, "("));
      P_TRY(loom_p_carried(p, op, before, 0, 0));
      P_TRY(loom_p(p, ")"));
      P_TRY(loom_p_result_arrow(p, op));
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_region(p, op->regions[0], depth));
      P_TRY(loom_p(p, " do("));
      for (uint32_t i = 0; i < after->arg_count; ++i) {
        if (i) P_TRY(loom_p(p, ", "));
        P_TRY(loom_p_value(p, after->args_start + i));
        P_TRY(loom_p(p, ": "));
        P_TRY(loom_p_type(p, LOOM_VALUE(m, after->args_start + i).type));
      }
      P_TRY(loom_p(p, ") "));
      P_TRY(loom_p_region(p, op->regions[1], depth));
      break;
    }
    case LOOM_SHAPE_LAYOUT_STRIDED:
      P_TRY(loom_p_layout_spec(p, op));
      P_TRY(loom_p_colon_type(p, op->type));
      break;
    case LOOM_SHAPE_CALL:
      P_TRY(loom_p_callee(p, op));
      P_TRY(loom_p_operands(p, op, 0, op->operand_count));
      P_TRY(loom_p(p, ")"));
      P_TRY(loom_p_call_words(p, op));
      P_TRY(loom_p(p, " : ("));
      P_TRY(loom_p_operand_types(p, op, 0, op->operand_count));
      P_TRY(loom_p(p, ")"));
      /* Upstream writes an application without results with no arrow. */
      if (op->result_count ||
          loom_op_defs[op->opcode].call_kind < LOOM_CALL_FAMILY) {
        P_TRY(loom_p(p, " -> "));
        P_TRY(loom_p_result_types(p, op));
      }
      break;
    case LOOM_SHAPE_KERNEL_LAUNCH:
      P_TRY(loom_pf(p, " @%s[", loom_module_string(m, op->symbol)));
      P_TRY(loom_p_operands(p, op, 0, op->enum_value));
      P_TRY(loom_p(p, "]("));
      P_TRY(loom_p_operands(p, op, op->enum_value, op->operand_count));
      P_TRY(loom_p(p, ") : ["));
      P_TRY(loom_p_operand_types(p, op, 0, op->enum_value));
      P_TRY(loom_p(p, "]("));
      P_TRY(loom_p_operand_types(p, op, op->enum_value, op->operand_count));
      P_TRY(loom_p(p, ")"));
      break;
    case LOOM_SHAPE_CHECK_EXPECT:
      P_TRY(loom_p(p, " actual("));
      P_TRY(loom_p_operand(p, LOOM_OPERAND(m, op, 0)));
      P_TRY(loom_p(p, ") expected("));
      P_TRY(loom_p_operand(p, LOOM_OPERAND(m, op, 1)));
      P_TRY(loom_p(p, ")"));
      if (op->pred_count) {
        P_TRY(loom_p_check_clauses(p, op, (const char* const[]){"atol",
                                                                "rtol"}));
        P_TRY(loom_pf(p, " nan(%s)", op->enum_value ? "different" : "same"));
      }
      P_TRY(loom_p_colon_type(p, op->type));
      break;
    case LOOM_SHAPE_CHECK_SOURCE:
      P_TRY(loom_p_check_clauses(
          p, op,
          op->pred_count == 3
              ? (const char* const[]){"offset", "step", "period"}
              : (const char* const[]){"value", NULL, NULL}));
      P_TRY(loom_p_colon_type(p, op->type));
      break;
  }
  return loom_p(p, "\n");
}

/* '{' newline ops '}' with the closing brace at |depth|. */
static hrx_status_t loom_p_region(loom_printer_t* p, uint32_t region_id,
                                  uint32_t depth) {
  const loom_region_t* region = &LOOM_REGION(p->module, region_id);
  P_TRY(loom_p(p, "{\n"));
  for (uint32_t i = 0; i < region->op_count; ++i) {
    P_TRY(loom_p_op(p, LOOM_REGION_OP(p->module, region, i), depth + 1));
  }
  P_TRY(loom_p_indent(p, depth));
  return loom_p(p, "}");
}

static hrx_status_t loom_p_args(loom_printer_t* p, uint32_t region_id) {
  const loom_region_t* region = &LOOM_REGION(p->module, region_id);
  P_TRY(loom_p(p, "("));
  for (uint32_t i = 0; i < region->arg_count; ++i) {
    if (i) P_TRY(loom_p(p, ", "));
    P_TRY(loom_p_value(p, region->args_start + i));
    P_TRY(loom_p(p, ": "));
    P_TRY(loom_p_type(p, LOOM_VALUE(p->module, region->args_start + i).type));
  }
  return loom_p(p, ")");
}

/* [retain] [target(@t)] [export("name")] @symbol of kernel.def/decl. */
static hrx_status_t loom_p_kernel_head(loom_printer_t* p, bool retain,
                                       uint32_t target, uint32_t export_name,
                                       uint32_t symbol) {
  const loom_module_t* m = p->module;
  if (retain) P_TRY(loom_p(p, " retain"));
  if (target != LOOM_NONE) {
    P_TRY(loom_pf(p, " target(@%s)",
                  loom_module_string(m, LOOM_TARGET(m, target).symbol)));
  }
  if (export_name != LOOM_NONE) {
    P_TRY(loom_pf(p, " export(\"%s\")", loom_module_string(m, export_name)));
  }
  return loom_pf(p, " @%s", loom_module_string(m, symbol));
}

/* ' launch(%a: T, ...) [where [preds]]' */
static hrx_status_t loom_p_launch_sig(loom_printer_t* p, uint32_t region,
                                      uint32_t preds_start,
                                      uint32_t pred_count) {
  P_TRY(loom_p(p, " launch"));
  P_TRY(loom_p_args(p, region));
  if (!pred_count) return HRX_OK;
  P_TRY(loom_p(p, " where "));
  return loom_p_preds(p, preds_start, pred_count);
}

/* kernel.decl and the check.* records; aliases print before everything
 * that may use them. */
static hrx_status_t loom_p_record(loom_printer_t* p,
                                  const loom_record_t* record) {
  const loom_module_t* m = p->module;
  const char* symbol = loom_module_string(m, record->symbol);
  switch (record->kind) {
    case LOOM_RECORD_ALIAS: return HRX_OK;
    case LOOM_RECORD_KERNEL_DECL:
      P_TRY(loom_p(p, "\nkernel.decl"));
      P_TRY(loom_p_kernel_head(p, record->retain, record->target,
                               record->export_name, record->symbol));
      P_TRY(loom_p_args(p, record->regions[0]));
      P_TRY(loom_p_launch_sig(p, record->regions[1], record->preds_start,
                              record->pred_count));
      return loom_p(p, "\n");
    case LOOM_RECORD_BENCHMARK:
      P_TRY(loom_pf(p, "\ncheck.benchmark<@%s>",
                    loom_module_string(m, record->ref)));
      if (record->symbol != record->ref) P_TRY(loom_pf(p, " @%s", symbol));
      if (record->text != LOOM_NONE) {
        P_TRY(loom_pf(p, " %s", loom_module_string(m, record->text)));
      }
      return loom_p(p, "\n");
    case LOOM_RECORD_CASE:
    case LOOM_RECORD_SCENARIO:
      P_TRY(loom_pf(p, "\n%s%s @%s ",
                    record->kind == LOOM_RECORD_CASE ? "check.case"
                                                     : "check.scenario",
                    record->is_public ? " public" : "", symbol));
      P_TRY(loom_p_region(p, record->regions[0], 0));
      return loom_p(p, "\n");
  }
  return HRX_OK;
}

/* func.def, func.decl, template.decl, template.def<@family> or
 * func.template<contract.key>. */
static hrx_status_t loom_p_func_keyword(loom_printer_t* p,
                                        const loom_func_t* func) {
  const loom_module_t* m = p->module;
  if (func->flags & LOOM_FUNC_TEMPLATE_DECL) {
    return loom_p(p, "\ntemplate.decl");
  }
  if (func->flags & LOOM_FUNC_TEMPLATE_DEF) {
    return loom_pf(p, "\ntemplate.def<@%s>",
                   loom_module_string(m, func->family));
  }
  if (func->flags & LOOM_FUNC_PROVIDER) {
    return loom_pf(p, "\nfunc.template<%s>",
                   loom_module_string(m, func->family));
  }
  return loom_p(p, func->flags & LOOM_FUNC_DECL ? "\nfunc.decl"
                                                : "\nfunc.def");
}

static hrx_status_t loom_p_module(loom_printer_t* p) {
  const loom_module_t* m = p->module;
  for (uint32_t t = 0; t < m->targets.count; ++t) {
    const loom_target_t* target = &LOOM_TARGET(m, t);
    const char* family = target->family == LOOM_TARGET_HOST ? "host"
                         : target->family == LOOM_TARGET_AMDGPU
                             ? "amdgpu"
                             : loom_module_string(m, target->family_name);
    P_TRY(loom_pf(p, "%s.target<%s> @%s", family,
                  loom_module_string(m, target->kind),
                  loom_module_string(m, target->symbol)));
    if (target->attrs_text != LOOM_NONE) {
      P_TRY(loom_pf(p, " %s", loom_module_string(m, target->attrs_text)));
    }
    if (target->subgroup_size) {
      P_TRY(loom_pf(p, " {subgroup_size = %" PRId64 "}",
                    target->subgroup_size));
    }
    P_TRY(loom_p(p, "\n"));
  }
  for (uint32_t r = 0; r < m->records.count; ++r) {
    const loom_record_t* record = &LOOM_RECORD(m, r);
    if (record->kind != LOOM_RECORD_ALIAS) continue;
    P_TRY(loom_pf(p, "%s = %s\n", loom_module_string(m, record->symbol),
                  loom_module_string(m, record->text)));
  }
  for (uint32_t c = 0; c < m->configs.count; ++c) {
    const loom_config_decl_t* decl = &LOOM_CONFIG(m, c);
    P_TRY(loom_pf(p, "config.decl @%s : ",
                  loom_module_string(m, decl->symbol)));
    if (decl->value_name != LOOM_NONE) {
      P_TRY(loom_p_value(p, decl->value_name));
      P_TRY(loom_p(p, ": "));
      P_TRY(loom_p_type(p, decl->type));
      P_TRY(loom_p(p, " where "));
      P_TRY(loom_p_preds(p, decl->preds_start, decl->pred_count));
    } else {
      P_TRY(loom_p_type(p, decl->type));
    }
    P_TRY(loom_p(p, "\n"));
    if (decl->has_default) {
      P_TRY(loom_pf(p, "config.def @%s = ",
                    loom_module_string(m, decl->symbol)));
      P_TRY(loom_p_literal(p, &decl->default_value));
      P_TRY(loom_p_colon_type(p, decl->type));
      P_TRY(loom_p(p, "\n"));
    }
  }
  for (uint32_t f = 0; f < m->funcs.count; ++f) {
    const loom_func_t* func = &LOOM_FUNC(m, f);
    bool decl = func->flags & LOOM_FUNC_DECL;
    P_TRY(loom_p_func_keyword(p, func));
    for (uint32_t i = 0; i < loom_func_modifier_count; ++i) {
      if (func->flags & loom_func_modifiers[i].flag) {
        P_TRY(loom_pf(p, " %s", loom_func_modifiers[i].word));
      }
    }
    if (func->target != LOOM_NONE) {
      P_TRY(loom_pf(p, " target(@%s)",
                    loom_module_string(m, LOOM_TARGET(m, func->target).symbol)));
    }
    if (func->abi != LOOM_NONE) {
      P_TRY(loom_pf(p, " abi(%s)", loom_module_string(m, func->abi)));
    }
    if (func->requires != LOOM_NONE) {
      P_TRY(loom_pf(p, " requires %s", loom_module_string(m, func->requires)));
    }
    if (func->has_priority) {
      P_TRY(loom_pf(p, " priority(%" PRId64 ")", func->priority));
    }
    P_TRY(loom_pf(p, " @%s", loom_module_string(m, func->symbol)));
    P_TRY(loom_p_args(p, func->body_region));
    if (func->result_count) {
      P_TRY(loom_p(p, " -> ("));
      for (uint32_t i = 0; i < func->result_count; ++i) {
        if (i) P_TRY(loom_p(p, ", "));
        P_TRY(loom_p_type(p, LOOM_AT(m->type_lists, loom_type_id_t,
                                     func->results_start + i)));
      }
      P_TRY(loom_p(p, ")"));
    }
    if (!decl) {
      P_TRY(loom_p(p, " "));
      P_TRY(loom_p_region(p, func->body_region, 0));
    }
    P_TRY(loom_p(p, "\n"));
  }
  for (uint32_t k = 0; k < m->kernels.count; ++k) {
    const loom_kernel_t* kernel = &LOOM_KERNEL(m, k);
    P_TRY(loom_p(p, "\nkernel.def"));
    P_TRY(loom_p_kernel_head(p, kernel->retain, kernel->target,
                             kernel->export_name, kernel->symbol));
    P_TRY(loom_p_args(p, kernel->config_region));
    P_TRY(loom_p(p, " "));
    P_TRY(loom_p_region(p, kernel->config_region, 0));
    P_TRY(loom_p_launch_sig(p, kernel->body_region, kernel->preds_start,
                            kernel->pred_count));
    P_TRY(loom_p(p, " "));
    P_TRY(loom_p_region(p, kernel->body_region, 0));
    P_TRY(loom_p(p, "\n"));
  }
  for (uint32_t r = 0; r < m->records.count; ++r) {
    P_TRY(loom_p_record(p, &LOOM_RECORD(m, r)));
  }
  return HRX_OK;
}

hrx_status_t hrx_loom_module_print(const hrx_loom_module_t* module,
                                   hrx_string_builder_t* out) {
  loom_printer_t p = {.module = module, .out = out};
  size_t start = out->length;
  hrx_status_t status = loom_p_module(&p);
  if (status != HRX_OK) hrx_string_builder_truncate(out, start);
  return status;
}
