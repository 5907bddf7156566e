/* Parser state shared by the module parser's source files. */
#ifndef HRX_LOOM_PARSER_INTERNAL_H_
#define HRX_LOOM_PARSER_INTERNAL_H_

#include "ir.h"
#include "lexer.h"
#include "op_table.h"

/* Visible SSA names: an open-addressing map from name to value id with an
 * undo log, so leaving a region restores what was visible before it. */
typedef struct loom_scope_entry_t {
  uint32_t name_offset; /* into the module source, without '%' */
  uint32_t name_length;
  uint32_t value;       /* LOOM_NONE when the slot is empty or hidden */
} loom_scope_entry_t;

typedef struct loom_scope_undo_t {
  uint32_t slot;
  uint32_t previous;
} loom_scope_undo_t;

typedef struct loom_parser_t {
  loom_module_t* module;
  const loom_source_t* source;
  hrx_loom_diagnostics_t* diagnostics;
  loom_lexer_t lexer;
  loom_token_t token;
  hrx_status_t status; /* first allocation failure; parsing stops */

  loom_scope_entry_t* slots;
  uint32_t slot_capacity; /* power of two */
  uint32_t slot_used;
  loom_array_t undo;      /* loom_scope_undo_t */
  loom_array_t pending;   /* uint32_t op ids of regions being built */

  uint32_t region;        /* region receiving ops, or LOOM_NONE */
  uint32_t depth;         /* regions open around the current op */
} loom_parser_t;


/* Records an allocation failure; parsing stops at the next check. */
#define LOOM_TRY(p, expr)                        \
  do {                                           \
    hrx_status_t loom_try_status_ = (expr);      \
    if (loom_try_status_ != HRX_OK) {            \
      loom_parser_oom((p), loom_try_status_);    \
      return false;                              \
    }                                            \
  } while (0)

/* A region argument written as %name : T (type may be given separately). */
typedef struct loom_region_arg_t {
  loom_token_t name;
  loom_type_id_t type;
} loom_region_arg_t;

#define LOOM_MAX_RESULTS 64

typedef struct loom_op_ctx_t {
  uint32_t op;
  const loom_op_def_t* def;
  loom_token_t results[LOOM_MAX_RESULTS];
  uint32_t result_count;
  /* Result types, filled by the shape parser. */
  loom_type_id_t result_types[LOOM_MAX_RESULTS];
  uint32_t result_type_count;
} loom_op_ctx_t;

/* Token helpers and pieces of the grammar (parser.c) that the other
 * parser files (parser_check.c) build on. */
void loom_parser_oom(loom_parser_t* p, hrx_status_t status);
void loom_advance(loom_parser_t* p);
const char* loom_text(const loom_parser_t* p, loom_token_t token);
loom_span_t loom_token_span(loom_token_t token);
bool loom_is(const loom_parser_t* p, loom_token_kind_t kind);
bool loom_is_word(const loom_parser_t* p, const char* word);
bool loom_error_here(loom_parser_t* p, hrx_loom_diag_code_t code,
                     const hrx_loom_diag_param_t* params, size_t param_count,
                     const char* message);
bool loom_expected(loom_parser_t* p, const char* what);
bool loom_accept(loom_parser_t* p, loom_token_kind_t kind);
bool loom_expect(loom_parser_t* p, loom_token_kind_t kind);
bool loom_expect_word(loom_parser_t* p, const char* word);
bool loom_parse_int(loom_parser_t* p, int64_t* out_value);
bool loom_parse_literal(loom_parser_t* p, loom_literal_t* out);
bool loom_parse_type(loom_parser_t* p, loom_type_id_t* out_type);
bool loom_parse_symbol(loom_parser_t* p, uint32_t* out_symbol,
                       loom_token_t* out_token);
bool loom_symbol_taken(loom_parser_t* p, loom_token_t token,
                       const char* symbol);
bool loom_parse_top_region(loom_parser_t* p, const loom_region_arg_t* args,
                           uint32_t arg_count, uint32_t* out_region);
bool loom_parse_operand_into(loom_parser_t* p, uint32_t op_id);
bool loom_parse_value_use(loom_parser_t* p, uint32_t* out_value);
bool loom_set_results(loom_op_ctx_t* c, uint32_t count, loom_type_id_t type);
bool loom_parse_balanced_text(loom_parser_t* p, uint32_t* out_text);

/* The executable test forms (parser_check.c). */
bool loom_is_check_record(const loom_parser_t* p);
bool loom_parse_check_record(loom_parser_t* p);
bool loom_shape_kernel_launch(loom_parser_t* p, loom_op_ctx_t* c);
bool loom_shape_check_expect(loom_parser_t* p, loom_op_ctx_t* c);
bool loom_shape_check_source(loom_parser_t* p, loom_op_ctx_t* c);

/* Chooses the implementation of every template.apply / func.apply and
 * checks the template declarations and calls of a parsed module
 * (template_resolve.c); errors go to |diagnostics|. */
hrx_status_t loom_templates_resolve(loom_module_t* module,
                                    hrx_loom_diagnostics_t* diagnostics);

#endif /* HRX_LOOM_PARSER_INTERNAL_H_ */
