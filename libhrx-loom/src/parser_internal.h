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

#endif /* HRX_LOOM_PARSER_INTERNAL_H_ */
