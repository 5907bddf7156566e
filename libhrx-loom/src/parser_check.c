/* Parsing the executable test forms: check.case / check.scenario /
 * check.benchmark records, and the ops of a case body (value sources,
 * expectations and kernel.launch). */
#include <stdio.h>
#include <string.h>

#include "parser_internal.h"

bool loom_is_check_record(const loom_parser_t* p) {
  return loom_is_word(p, "check.case") || loom_is_word(p, "check.scenario") ||
         loom_is_word(p, "check.benchmark");
}

/* Appends |literal| to the module's check literals. */
static bool loom_add_check_literal(loom_parser_t* p, const loom_literal_t* l) {
  loom_module_t* m = p->module;
  uint32_t at = 0;
  LOOM_TRY(p, loom_array_grow(&m->literals, m->allocator,
                              sizeof(loom_literal_t), 1, &at));
  LOOM_AT(m->literals, loom_literal_t, at) = *l;
  return true;
}

/* word '(' literal ')' appended to the check literals; an absent optional
 * clause appends a NONE literal so clause positions stay fixed. */
static bool loom_literal_clause(loom_parser_t* p, const char* word,
                                bool optional) {
  loom_literal_t literal = {0};
  if (optional && !loom_is_word(p, word)) {
    return loom_add_check_literal(p, &literal);
  }
  return loom_expect_word(p, word) && loom_expect(p, LOOM_TOKEN_LPAREN) &&
         loom_parse_literal(p, &literal) &&
         loom_expect(p, LOOM_TOKEN_RPAREN) &&
         loom_add_check_literal(p, &literal);
}

/* word '(' %value ')' as the op's next operand. */
static bool loom_value_clause(loom_parser_t* p, const char* word,
                              uint32_t op_id) {
  return loom_expect_word(p, word) && loom_expect(p, LOOM_TOKEN_LPAREN) &&
         loom_parse_operand_into(p, op_id) &&
         loom_expect(p, LOOM_TOKEN_RPAREN);
}

/* %t = check.generate.iota offset(L) step(L) [period(N)] : T
 * %t = check.generate.fill value(L) : T
 * %x = check.literal value(L) : T */
bool loom_shape_check_source(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_module_t* m = p->module;
  uint32_t start = m->literals.count;
  bool ok = loom_is_word(p, "offset")
                ? loom_literal_clause(p, "offset", false) &&
                      loom_literal_clause(p, "step", false) &&
                      loom_literal_clause(p, "period", true)
                : loom_literal_clause(p, "value", false);
  loom_type_id_t type = 0;
  if (!ok || !loom_expect(p, LOOM_TOKEN_COLON) || !loom_parse_type(p, &type)) {
    return false;
  }
  loom_op_t* op = &LOOM_OP(m, c->op);
  op->preds_start = start;
  op->pred_count = m->literals.count - start;
  op->type = type;
  return loom_set_results(c, 1, type);
}

/* check.expect.{equal,bitwise} actual(%a) expected(%b) : T
 * check.expect.close ... atol(F) rtol(F) nan(same|different) : T */
bool loom_shape_check_expect(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_module_t* m = p->module;
  if (!loom_value_clause(p, "actual", c->op) ||
      !loom_value_clause(p, "expected", c->op)) {
    return false;
  }
  uint32_t start = m->literals.count;
  if (loom_is_word(p, "atol")) {
    if (!loom_literal_clause(p, "atol", false) ||
        !loom_literal_clause(p, "rtol", false) ||
        !loom_expect_word(p, "nan") || !loom_expect(p, LOOM_TOKEN_LPAREN)) {
      return false;
    }
    bool same = loom_is_word(p, "same");
    if (!same && !loom_is_word(p, "different")) {
      hrx_loom_diag_param_t params[] = {{"expected", "same, different"}};
      return loom_error_here(p, HRX_LOOM_DIAG_UNKNOWN_ENUM, params, 1,
                             "unknown NaN policy (expected same or "
                             "different)");
    }
    loom_advance(p);
    if (!loom_expect(p, LOOM_TOKEN_RPAREN)) return false;
    LOOM_OP(m, c->op).enum_value = same ? 0 : 1;
  }
  loom_type_id_t type = 0;
  if (!loom_expect(p, LOOM_TOKEN_COLON) || !loom_parse_type(p, &type)) {
    return false;
  }
  loom_op_t* op = &LOOM_OP(m, c->op);
  op->preds_start = start;
  op->pred_count = m->literals.count - start;
  op->type = type;
  return true;
}

/* '[' T, ... ']' or '(' T, ... ')' checked against operands
 * [first, first + count) of |op_id|, which must have these types. */
static bool loom_launch_types(loom_parser_t* p, uint32_t op_id,
                              loom_token_kind_t open, loom_token_kind_t close,
                              uint32_t first, uint32_t count) {
  loom_module_t* m = p->module;
  if (!loom_expect(p, open)) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (i && !loom_expect(p, LOOM_TOKEN_COMMA)) return false;
    loom_token_t at = p->token;
    loom_type_id_t type = 0;
    if (!loom_parse_type(p, &type)) return false;
    const loom_op_t* op = &LOOM_OP(m, op_id);
    uint32_t value = LOOM_OPERAND(m, op, first + i);
    if (LOOM_VALUE(m, value).type != type) {
      loom_diag_emit(p->diagnostics, p->source, loom_token_span(at),
                     HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_TYPE_MISMATCH,
                     NULL, 0, "type differs from the type of operand %%%s",
                     loom_module_string(m, LOOM_VALUE(m, value).name));
      return false;
    }
  }
  if (loom_is(p, close)) {
    loom_advance(p);
    return true;
  }
  return loom_error_here(p, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                         "kernel.launch lists more types than operands");
}

/* kernel.launch @k[%w, ...](%a, ...) : [T, ...](U, ...); the workload
 * count is kept in enum_value (the operands are workloads then args). */
bool loom_shape_kernel_launch(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_module_t* m = p->module;
  if (!loom_parse_symbol(p, &LOOM_OP(m, c->op).symbol, NULL) ||
      !loom_expect(p, LOOM_TOKEN_LBRACKET)) {
    return false;
  }
  uint32_t workloads = 0;
  if (!loom_accept(p, LOOM_TOKEN_RBRACKET)) {
    do {
      if (workloads == 64) {
        return loom_error_here(p, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                               "too many workload values (limit 64)");
      }
      if (!loom_parse_operand_into(p, c->op)) return false;
      workloads++;
    } while (loom_accept(p, LOOM_TOKEN_COMMA));
    if (!loom_expect(p, LOOM_TOKEN_RBRACKET)) return false;
  }
  LOOM_OP(m, c->op).enum_value = (uint8_t)workloads;
  if (!loom_expect(p, LOOM_TOKEN_LPAREN)) return false;
  if (!loom_accept(p, LOOM_TOKEN_RPAREN)) {
    do {
      if (!loom_parse_operand_into(p, c->op)) return false;
    } while (loom_accept(p, LOOM_TOKEN_COMMA));
    if (!loom_expect(p, LOOM_TOKEN_RPAREN)) return false;
  }
  uint32_t args = LOOM_OP(m, c->op).operand_count - workloads;
  return loom_expect(p, LOOM_TOKEN_COLON) &&
         loom_launch_types(p, c->op, LOOM_TOKEN_LBRACKET,
                           LOOM_TOKEN_RBRACKET, 0, workloads) &&
         loom_launch_types(p, c->op, LOOM_TOKEN_LPAREN, LOOM_TOKEN_RPAREN,
                           workloads, args);
}

/* check.case [public] @name { ... }, check.scenario likewise, and
 * check.benchmark<@case> [@name] [{attrs}]. */
bool loom_parse_check_record(loom_parser_t* p) {
  loom_module_t* m = p->module;
  loom_record_t record = {.kind = LOOM_RECORD_CASE, .target = LOOM_NONE,
                          .export_name = LOOM_NONE,
                          .regions = {LOOM_NONE, LOOM_NONE},
                          .ref = LOOM_NONE, .text = LOOM_NONE,
                          .span = loom_token_span(p->token)};
  if (loom_is_word(p, "check.scenario")) record.kind = LOOM_RECORD_SCENARIO;
  if (loom_is_word(p, "check.benchmark")) {
    record.kind = LOOM_RECORD_BENCHMARK;
  }
  loom_advance(p);
  loom_token_t symbol_token = p->token;
  if (record.kind == LOOM_RECORD_BENCHMARK) {
    if (!loom_expect(p, LOOM_TOKEN_LANGLE) ||
        !loom_parse_symbol(p, &record.ref, NULL) ||
        !loom_expect(p, LOOM_TOKEN_RANGLE)) {
      return false;
    }
    symbol_token = p->token;
    if (loom_is(p, LOOM_TOKEN_SYMBOL)) {
      if (!loom_parse_symbol(p, &record.symbol, NULL)) return false;
    } else {
      record.symbol = record.ref;
      symbol_token.kind = LOOM_TOKEN_EOF; /* unnamed: not indexed */
    }
    if (loom_is(p, LOOM_TOKEN_LBRACE) &&
        !loom_parse_balanced_text(p, &record.text)) {
      return false;
    }
  } else {
    if (loom_is_word(p, "public")) {
      record.is_public = true;
      loom_advance(p);
    }
    symbol_token = p->token;
    if (!loom_parse_symbol(p, &record.symbol, NULL)) return false;
  }
  if (symbol_token.kind == LOOM_TOKEN_SYMBOL &&
      loom_symbol_taken(p, symbol_token,
                        loom_module_string(m, record.symbol))) {
    return false;
  }
  if (record.kind != LOOM_RECORD_BENCHMARK &&
      !loom_parse_top_region(p, NULL, 0, &record.regions[0])) {
    return false;
  }
  if (symbol_token.kind == LOOM_TOKEN_SYMBOL) {
    LOOM_TRY(p, loom_module_add_record(m, &record));
  } else {
    uint32_t at = 0;
    LOOM_TRY(p, loom_array_grow(&m->records, m->allocator,
                                sizeof(loom_record_t), 1, &at));
    LOOM_RECORD(m, at) = record;
  }
  return true;
}
