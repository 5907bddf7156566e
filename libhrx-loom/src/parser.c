/* Recursive-descent parser: Loom text -> typed SSA IR. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/loom/module.h"
#include "parser_internal.h"
#include "vector_access.h"
#include "vector_layout.h"
#include "vector_shape.h"

/*===------------------------------------------------------------------===*/
/* Token helpers                                                           */
/*===------------------------------------------------------------------===*/

void loom_parser_oom(loom_parser_t* p, hrx_status_t status) {
  if (p->status == HRX_OK) {
    p->status = status;
  } else {
    hrx_status_free(status);
  }
}

static bool loom_stopped(const loom_parser_t* p) {
  return p->status != HRX_OK;
}

void loom_advance(loom_parser_t* p) {
  p->token = loom_lexer_next(&p->lexer);
}

const char* loom_text(const loom_parser_t* p, loom_token_t token) {
  return p->source->text + token.offset;
}

loom_span_t loom_token_span(loom_token_t token) {
  return (loom_span_t){token.offset, token.length ? token.length : 1};
}

bool loom_is(const loom_parser_t* p, loom_token_kind_t kind) {
  return p->token.kind == kind;
}

bool loom_is_word(const loom_parser_t* p, const char* word) {
  size_t n = strlen(word);
  return p->token.kind == LOOM_TOKEN_IDENT && p->token.length == n &&
         memcmp(loom_text(p, p->token), word, n) == 0;
}

/* Reports an error at the current token. */
bool loom_error_here(loom_parser_t* p, hrx_loom_diag_code_t code,
                            const hrx_loom_diag_param_t* params,
                            size_t param_count, const char* message) {
  if (p->token.kind != LOOM_TOKEN_ERROR) {
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(p->token),
                   HRX_LOOM_SEVERITY_ERROR, code, params, param_count, "%s",
                   message);
  }
  return false;
}

bool loom_expected(loom_parser_t* p, const char* what) {
  if (p->token.kind == LOOM_TOKEN_ERROR) return false;
  char found[64];
  if (p->token.kind == LOOM_TOKEN_EOF) {
    snprintf(found, sizeof(found), "end of file");
  } else {
    snprintf(found, sizeof(found), "'%.*s'",
             (int)(p->token.length > 40 ? 40 : p->token.length),
             loom_text(p, p->token));
  }
  hrx_loom_diag_param_t params[] = {{"expected", what}, {"actual", found}};
  loom_diag_emit(p->diagnostics, p->source, loom_token_span(p->token),
                 HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_EXPECTED_TOKEN, params,
                 2, "expected %s, found %s", what, found);
  return false;
}

bool loom_accept(loom_parser_t* p, loom_token_kind_t kind) {
  if (p->token.kind != kind) return false;
  loom_advance(p);
  return true;
}

bool loom_expect(loom_parser_t* p, loom_token_kind_t kind) {
  if (loom_accept(p, kind)) return true;
  return loom_expected(p, loom_token_kind_name(kind));
}

bool loom_expect_word(loom_parser_t* p, const char* word) {
  if (loom_is_word(p, word)) {
    loom_advance(p);
    return true;
  }
  char quoted[48];
  snprintf(quoted, sizeof(quoted), "'%s'", word);
  return loom_expected(p, quoted);
}

/* Skips to the start of the next line outside any brace block opened on
 * the skipped lines, or to a '}' that closes the current region. */
static void loom_recover(loom_parser_t* p) {
  uint32_t depth = 0;
  bool moved = false;
  while (p->token.kind != LOOM_TOKEN_EOF) {
    if (moved && depth == 0 && p->token.line_start) return;
    if (p->token.kind == LOOM_TOKEN_LBRACE) {
      depth++;
    } else if (p->token.kind == LOOM_TOKEN_RBRACE) {
      if (depth == 0) return;
      depth--;
    }
    loom_advance(p);
    moved = true;
  }
}

/*===------------------------------------------------------------------===*/
/* Scopes                                                                  */
/*===------------------------------------------------------------------===*/

/* The slot holding |name|, or the empty slot where it would go. */
static uint32_t loom_scope_slot(const loom_parser_t* p, const char* name,
                                uint32_t length) {
  uint32_t mask = p->slot_capacity - 1;
  uint32_t slot = loom_hash_bytes(name, length, LOOM_HASH_SEED) & mask;
  for (;;) {
    const loom_scope_entry_t* e = &p->slots[slot];
    if (e->name_length == 0) return slot;
    if (e->name_length == length &&
        memcmp(p->source->text + e->name_offset, name, length) == 0) {
      return slot;
    }
    slot = (slot + 1) & mask;
  }
}

static hrx_status_t loom_scope_grow(loom_parser_t* p) {
  uint32_t capacity = p->slot_capacity ? p->slot_capacity * 2 : 256;
  loom_scope_entry_t* old = p->slots;
  uint32_t old_capacity = p->slot_capacity;
  loom_scope_entry_t* slots = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      p->module->allocator, capacity, sizeof(*slots), (void**)&slots));
  p->slots = slots;
  p->slot_capacity = capacity;
  /* Re-slot every name; undo entries refer to slots, so remap them. */
  uint32_t* remap = NULL;
  hrx_status_t status = hrx_allocator_malloc_array(
      p->module->allocator, old_capacity ? old_capacity : 1,
      sizeof(uint32_t), (void**)&remap);
  if (status != HRX_OK) {
    hrx_allocator_free(p->module->allocator, slots);
    p->slots = old;
    p->slot_capacity = old_capacity;
    return status;
  }
  for (uint32_t i = 0; i < old_capacity; ++i) {
    if (old[i].name_length == 0) continue;
    uint32_t slot = loom_scope_slot(p, p->source->text + old[i].name_offset,
                                    old[i].name_length);
    p->slots[slot] = old[i];
    remap[i] = slot;
  }
  for (uint32_t i = 0; i < p->undo.count; ++i) {
    loom_scope_undo_t* u = &LOOM_AT(p->undo, loom_scope_undo_t, i);
    u->slot = remap[u->slot];
  }
  hrx_allocator_free(p->module->allocator, remap);
  hrx_allocator_free(p->module->allocator, old);
  return HRX_OK;
}

/* Name text of a %value token, without the '%'. */
static void loom_value_name(loom_token_t token, uint32_t* out_offset,
                            uint32_t* out_length) {
  *out_offset = token.offset + 1;
  *out_length = token.length - 1;
}

static uint32_t loom_scope_lookup(const loom_parser_t* p, loom_token_t token) {
  if (!p->slot_capacity) return LOOM_NONE;
  uint32_t offset, length;
  loom_value_name(token, &offset, &length);
  uint32_t slot = loom_scope_slot(p, p->source->text + offset, length);
  return p->slots[slot].name_length ? p->slots[slot].value : LOOM_NONE;
}

static bool loom_scope_define(loom_parser_t* p, loom_token_t token,
                              uint32_t value) {
  if ((p->slot_used + 1) * 2 > p->slot_capacity) {
    LOOM_TRY(p, loom_scope_grow(p));
  }
  uint32_t offset, length;
  loom_value_name(token, &offset, &length);
  uint32_t slot = loom_scope_slot(p, p->source->text + offset, length);
  loom_scope_entry_t* e = &p->slots[slot];
  if (e->name_length == 0) {
    e->name_offset = offset;
    e->name_length = length;
    e->value = LOOM_NONE;
    p->slot_used++;
  }
  uint32_t undo = 0;
  LOOM_TRY(p, loom_array_grow(&p->undo, p->module->allocator,
                              sizeof(loom_scope_undo_t), 1, &undo));
  LOOM_AT(p->undo, loom_scope_undo_t, undo) =
      (loom_scope_undo_t){slot, e->value};
  e->value = value;
  return true;
}

static void loom_scope_restore(loom_parser_t* p, uint32_t mark) {
  while (p->undo.count > mark) {
    loom_scope_undo_t u = LOOM_AT(p->undo, loom_scope_undo_t, --p->undo.count);
    p->slots[u.slot].value = u.previous;
  }
}

/*===------------------------------------------------------------------===*/
/* Values, operands, literals                                              */
/*===------------------------------------------------------------------===*/

/* Creates a value named by |token| (may be EOF-kind for anonymous) and
 * makes it visible. Redefinition of a visible name is an error. */
static bool loom_define_value(loom_parser_t* p, loom_token_t token,
                              loom_type_id_t type, uint32_t def_op,
                              uint32_t *out_value) {
  loom_module_t* m = p->module;
  /* A nested region may shadow an outer name; only a second definition in
   * the same region is an error. */
  uint32_t existing = loom_scope_lookup(p, token);
  if (existing != LOOM_NONE &&
      LOOM_VALUE(m, existing).def_region != p->region) {
    existing = LOOM_NONE;
  }
  if (existing != LOOM_NONE) {
    char name[64];
    snprintf(name, sizeof(name), "%.*s", (int)(token.length > 60 ? 60 : token.length),
             loom_text(p, token));
    hrx_loom_diag_param_t params[] = {{"symbol", name}};
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_REDEFINED_VALUE,
                   params, 1, "redefinition of %s", name);
  }
  uint32_t id = 0;
  LOOM_TRY(p, loom_array_grow(&m->values, m->allocator, sizeof(loom_value_t),
                              1, &id));
  uint32_t offset, length;
  loom_value_name(token, &offset, &length);
  uint32_t name = 0;
  LOOM_TRY(p, loom_module_intern(m, p->source->text + offset, length, &name));
  LOOM_VALUE(m, id) = (loom_value_t){
      .type = type, .name = name, .def_op = def_op,
      .def_region = p->region, .span = loom_token_span(token)};
  if (existing == LOOM_NONE && !loom_scope_define(p, token, id)) return false;
  if (out_value) *out_value = id;
  return true;
}

bool loom_parse_value_use(loom_parser_t* p, uint32_t* out_value) {
  if (!loom_is(p, LOOM_TOKEN_VALUE_ID)) return loom_expected(p, "a %value");
  uint32_t value = loom_scope_lookup(p, p->token);
  if (value == LOOM_NONE) {
    char name[64];
    snprintf(name, sizeof(name), "%.*s",
             (int)(p->token.length > 60 ? 60 : p->token.length),
             loom_text(p, p->token));
    hrx_loom_diag_param_t params[] = {{"symbol", name}};
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(p->token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_UNDEFINED_VALUE,
                   params, 1, "use of undefined value %s", name);
    return false;
  }
  *out_value = value;
  loom_advance(p);
  return true;
}

bool loom_parse_int(loom_parser_t* p, int64_t* out_value) {
  if (!loom_is(p, LOOM_TOKEN_INTEGER)) return loom_expected(p, "an integer");
  /* The module's copy of the source is NUL-terminated and the token ends
   * where the number does, so strtoll reads the literal in place: a copy
   * into a fixed buffer would cut long spellings ("000...1") short. */
  const char* text = loom_text(p, p->token);
  uint32_t length = p->token.length;
  errno = 0;
  char* end = NULL;
  bool negative = text[0] == '-';
  bool hex = length > 2 && (text[negative] == '0') &&
             (text[negative + 1] == 'x' || text[negative + 1] == 'X');
  int64_t value;
  if (negative) {
    value = strtoll(text, &end, hex ? 16 : 10);
  } else {
    /* Unsigned spellings up to 2^64-1 keep their bit pattern. */
    value = (int64_t)strtoull(text, &end, hex ? 16 : 10);
  }
  if (errno == ERANGE || end != text + length) {
    return loom_error_here(p, HRX_LOOM_DIAG_LITERAL_RANGE, NULL, 0,
                           "integer literal out of 64-bit range");
  }
  *out_value = value;
  loom_advance(p);
  return true;
}

bool loom_parse_literal(loom_parser_t* p, loom_literal_t* out) {
  *out = (loom_literal_t){0};
  if (loom_is_word(p, "true") || loom_is_word(p, "false")) {
    out->kind = LOOM_LITERAL_BOOL;
    out->i = loom_is_word(p, "true");
    loom_advance(p);
    return true;
  }
  if (loom_is(p, LOOM_TOKEN_INTEGER)) {
    out->kind = LOOM_LITERAL_INT;
    return loom_parse_int(p, &out->i);
  }
  bool special = loom_is_word(p, "inf") || loom_is_word(p, "nan");
  if (loom_is(p, LOOM_TOKEN_FLOAT) || special) {
    /* Read in place, as loom_parse_int does. Whether the value fits the
     * constant's type is the verifier's question; here it must at least
     * be a finite double unless spelled inf or nan (1e999 must not
     * quietly become inf). */
    const char* text = loom_text(p, p->token);
    out->kind = LOOM_LITERAL_FLOAT;
    if (text[0] == 'n') {
      out->f = NAN;
    } else if (special || text[1] == 'i') {
      out->f = text[0] == '-' ? -INFINITY : INFINITY;
    } else {
      out->f = strtod(text, NULL);
    }
    if (!isfinite(out->f) && !special && text[1] != 'i') {
      return loom_error_here(p, HRX_LOOM_DIAG_LITERAL_RANGE, NULL, 0,
                             "float literal out of 64-bit float range");
    }
    LOOM_TRY(p, loom_module_intern(p->module, text, p->token.length,
                                   &out->text));
    loom_advance(p);
    return true;
  }
  return loom_expected(p, "a literal");
}

/* An index slot: a %value or a literal integer. */
static bool loom_parse_index_operand(loom_parser_t* p, uint32_t* out) {
  if (loom_is(p, LOOM_TOKEN_INTEGER)) {
    int64_t value = 0;
    if (!loom_parse_int(p, &value)) return false;
    uint32_t at = 0;
    LOOM_TRY(p, loom_array_grow(&p->module->statics, p->module->allocator,
                                sizeof(int64_t), 1, &at));
    LOOM_AT(p->module->statics, int64_t, at) = value;
    *out = at | LOOM_STATIC_OPERAND;
    return true;
  }
  return loom_parse_value_use(p, out);
}

/*===------------------------------------------------------------------===*/
/* Types                                                                   */
/*===------------------------------------------------------------------===*/

static loom_type_kind_t loom_scalar_kind(const char* text, uint32_t length) {
  for (int k = LOOM_TYPE_INDEX; k <= LOOM_TYPE_F8E5M2; ++k) {
    const char* name = loom_type_kind_name((loom_type_kind_t)k);
    if (strlen(name) == length && memcmp(name, text, length) == 0) {
      return (loom_type_kind_t)k;
    }
  }
  return LOOM_TYPE_INVALID;
}

bool loom_parse_type(loom_parser_t* p, loom_type_id_t* out_type);

/* True when the attribute |token| is #dense or an alias that resolves to
 * it; aliases are defined before use, so the chain is finite. */
static bool loom_alias_is_dense(const loom_parser_t* p, loom_token_t token) {
  const loom_module_t* m = p->module;
  char name[128];
  snprintf(name, sizeof(name), "%.*s",
           (int)(token.length > 120 ? 120 : token.length),
           loom_text(p, token));
  for (uint32_t hops = 0; hops <= m->records.count; ++hops) {
    if (strcmp(name, "#dense") == 0) return true;
    uint32_t at = loom_module_find_record(m, name);
    if (at == LOOM_NONE || LOOM_RECORD(m, at).kind != LOOM_RECORD_ALIAS) {
      return false;
    }
    snprintf(name, sizeof(name), "%s",
             loom_module_string(m, LOOM_RECORD(m, at).text));
  }
  return false;
}

/* The layout of a view type: #dense (the default, also when nothing is
 * written) or an encoding<layout> value. */
static bool loom_parse_view_layout(loom_parser_t* p, uint32_t* out_layout) {
  if (loom_is(p, LOOM_TOKEN_ATTR)) {
    if (!loom_alias_is_dense(p, p->token)) {
      return loom_error_here(p, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                             "unknown view layout (expected #dense or an "
                             "encoding<layout> value)");
    }
    loom_advance(p);
    *out_layout = LOOM_NONE;
    return true;
  }
  loom_token_t at = p->token;
  if (!loom_parse_value_use(p, out_layout)) return false;
  if (LOOM_VALUE(p->module, *out_layout).type != LOOM_TYPE_LAYOUT) {
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(at),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL,
                   0, "a view layout must be an encoding<layout> value");
    return false;
  }
  return true;
}

/* Vector extents are nonzero, or [%n] with %n an index; the static lanes
 * stay within LOOM_VECTOR_MAX_LANES. */
static bool loom_check_vector_dims(loom_parser_t* p, loom_token_t start,
                                   const loom_dim_t* dims, uint32_t rank) {
  uint64_t lanes = 1;
  const char* problem = NULL;
  for (uint32_t d = 0; d < rank && !problem; ++d) {
    if (dims[d].size < 0) {
      if (LOOM_VALUE(p->module, dims[d].value).type != LOOM_TYPE_INDEX) {
        problem = "a dynamic vector extent must be an index value";
      }
      continue;
    }
    lanes *= (uint64_t)dims[d].size;
    if (dims[d].size == 0) {
      problem = "vector extents must not be zero";
    } else if (lanes > LOOM_VECTOR_MAX_LANES) {
      problem = "a vector has at most 65536 lanes";
    }
  }
  if (!problem) return true;
  loom_diag_emit(p->diagnostics, p->source, loom_token_span(start),
                 HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                 "%s", problem);
  return false;
}

/* vector<4xbf16>, view<[%n]x2xi32>: the shape lexes in shape mode. */
static bool loom_parse_shaped(loom_parser_t* p, loom_type_kind_t kind,
                              loom_type_id_t* out_type) {
  loom_token_t start = p->token;
  loom_advance(p); /* the keyword */
  if (!loom_is(p, LOOM_TOKEN_LANGLE)) return loom_expected(p, "'<'");
  p->lexer.shape_mode = true;
  loom_advance(p);
  loom_dim_t dims[8];
  uint32_t rank = 0;
  bool ok = true;
  loom_type_kind_t element = LOOM_TYPE_INVALID;
  while (ok) {
    loom_dim_t dim = {0};
    if (loom_is(p, LOOM_TOKEN_INTEGER)) {
      ok = loom_parse_int(p, &dim.size);
      if (ok && dim.size < 0) {
        ok = loom_error_here(p, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                             "dimension must not be negative");
      }
    } else if (loom_accept(p, LOOM_TOKEN_LBRACKET)) {
      dim.size = -1;
      ok = loom_parse_value_use(p, &dim.value) &&
           loom_expect(p, LOOM_TOKEN_RBRACKET);
    } else {
      break;
    }
    if (!ok) break;
    if (rank == sizeof(dims) / sizeof(dims[0])) {
      ok = loom_error_here(p, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                           "more than 8 dimensions");
      break;
    }
    dims[rank++] = dim;
    ok = loom_expect(p, LOOM_TOKEN_X);
  }
  p->lexer.shape_mode = false;
  if (!ok) return false;
  if (rank == 0) return loom_expected(p, "a dimension");
  if (!loom_is(p, LOOM_TOKEN_IDENT)) return loom_expected(p, "an element type");
  element = loom_scalar_kind(loom_text(p, p->token), p->token.length);
  /* Vectors may hold index lanes (lane coordinates); memory holds only
   * numbers. */
  bool index_ok = kind == LOOM_TYPE_VECTOR && element == LOOM_TYPE_INDEX;
  if (element == LOOM_TYPE_INVALID || element == LOOM_TYPE_BUFFER ||
      (element == LOOM_TYPE_INDEX && !index_ok) ||
      element == LOOM_TYPE_OFFSET) {
    return loom_error_here(p, HRX_LOOM_DIAG_UNKNOWN_TYPE, NULL, 0,
                           "element type must be an integer or float type");
  }
  loom_advance(p);
  uint32_t layout = LOOM_NONE;
  if (kind == LOOM_TYPE_VIEW && loom_accept(p, LOOM_TOKEN_COMMA) &&
      !loom_parse_view_layout(p, &layout)) {
    return false;
  }
  if (!loom_expect(p, LOOM_TOKEN_RANGLE)) return false;
  if (kind == LOOM_TYPE_VECTOR &&
      !loom_check_vector_dims(p, start, dims, rank)) {
    return false;
  }
  LOOM_TRY(p, loom_module_type(p->module, kind, element, dims, rank, layout,
                               out_type));
  return true;
}

bool loom_parse_type(loom_parser_t* p, loom_type_id_t* out_type) {
  if (!loom_is(p, LOOM_TOKEN_IDENT)) return loom_expected(p, "a type");
  if (loom_is_word(p, "vector")) {
    return loom_parse_shaped(p, LOOM_TYPE_VECTOR, out_type);
  }
  if (loom_is_word(p, "view")) {
    return loom_parse_shaped(p, LOOM_TYPE_VIEW, out_type);
  }
  if (loom_is_word(p, "tensor")) {
    return loom_parse_shaped(p, LOOM_TYPE_TENSOR, out_type);
  }
  if (loom_is_word(p, "encoding")) {
    loom_advance(p);
    if (!loom_expect(p, LOOM_TOKEN_LANGLE)) return false;
    bool schema = loom_is_word(p, "schema");
    if (!loom_expect_word(p, schema ? "schema" : "layout") ||
        !loom_expect(p, LOOM_TOKEN_RANGLE)) {
      return false;
    }
    *out_type = schema ? LOOM_TYPE_SCHEMA : LOOM_TYPE_LAYOUT;
    return true;
  }
  loom_type_kind_t kind =
      loom_scalar_kind(loom_text(p, p->token), p->token.length);
  if (kind == LOOM_TYPE_INVALID) {
    char name[64];
    snprintf(name, sizeof(name), "%.*s",
             (int)(p->token.length > 60 ? 60 : p->token.length),
             loom_text(p, p->token));
    hrx_loom_diag_param_t params[] = {{"type", name}};
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(p->token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_UNKNOWN_TYPE,
                   params, 1, "unknown type '%s'", name);
    return false;
  }
  *out_type = kind;
  loom_advance(p);
  return true;
}

/* T (',' T)* into module->type_lists. */
static bool loom_parse_type_list(loom_parser_t* p, uint32_t* out_start,
                                 uint32_t* out_count) {
  *out_start = p->module->type_lists.count;
  *out_count = 0;
  do {
    loom_type_id_t type = 0;
    if (!loom_parse_type(p, &type)) return false;
    uint32_t at = 0;
    LOOM_TRY(p, loom_array_grow(&p->module->type_lists, p->module->allocator,
                                sizeof(loom_type_id_t), 1, &at));
    LOOM_AT(p->module->type_lists, loom_type_id_t, at) = type;
    ++*out_count;
  } while (loom_accept(p, LOOM_TOKEN_COMMA));
  return true;
}

/* '(' [T (',' T)*] ')' */
static bool loom_parse_paren_types(loom_parser_t* p, uint32_t* out_start,
                                   uint32_t* out_count) {
  if (!loom_expect(p, LOOM_TOKEN_LPAREN)) return false;
  *out_start = p->module->type_lists.count;
  *out_count = 0;
  if (loom_accept(p, LOOM_TOKEN_RPAREN)) return true;
  return loom_parse_type_list(p, out_start, out_count) &&
         loom_expect(p, LOOM_TOKEN_RPAREN);
}

/*===------------------------------------------------------------------===*/
/* Ops                                                                     */
/*===------------------------------------------------------------------===*/

static bool loom_add_operand(loom_parser_t* p, uint32_t op_id,
                             uint32_t value) {
  loom_module_t* m = p->module;
  loom_op_t* op = &LOOM_OP(m, op_id);
  if (op->operand_count == 0) op->operands_start = m->operands.count;
  /* Operands of one op are contiguous: ops never interleave operand
   * parsing (regions are parsed after the operand list). */
  uint32_t at = 0;
  LOOM_TRY(p, loom_array_grow(&m->operands, m->allocator, sizeof(uint32_t), 1,
                              &at));
  LOOM_AT(m->operands, uint32_t, at) = value;
  LOOM_OP(m, op_id).operand_count++;
  return true;
}

bool loom_parse_operand_into(loom_parser_t* p, uint32_t op_id) {
  uint32_t value = 0;
  return loom_parse_value_use(p, &value) && loom_add_operand(p, op_id, value);
}

static bool loom_parse_index_into(loom_parser_t* p, uint32_t op_id) {
  uint32_t value = 0;
  return loom_parse_index_operand(p, &value) &&
         loom_add_operand(p, op_id, value);
}

/* %a (',' %b)* */
static bool loom_parse_operand_list(loom_parser_t* p, uint32_t op_id) {
  do {
    if (!loom_parse_operand_into(p, op_id)) return false;
  } while (loom_accept(p, LOOM_TOKEN_COMMA));
  return true;
}

/* '[' index (',' index)* ']' */
static bool loom_parse_indices(loom_parser_t* p, uint32_t op_id) {
  if (!loom_expect(p, LOOM_TOKEN_LBRACKET)) return false;
  do {
    if (!loom_parse_index_into(p, op_id)) return false;
  } while (loom_accept(p, LOOM_TOKEN_COMMA));
  return loom_expect(p, LOOM_TOKEN_RBRACKET);
}

static bool loom_parse_enum_word(loom_parser_t* p, loom_enum_set_t set,
                                 uint8_t* out) {
  if (!loom_is(p, LOOM_TOKEN_IDENT)) {
    return loom_expected(p, loom_enum_choices(set));
  }
  uint32_t index = loom_enum_lookup(set, loom_text(p, p->token),
                                    p->token.length);
  if (index == LOOM_ENUM_ABSENT) {
    char word[48];
    snprintf(word, sizeof(word), "%.*s",
             (int)(p->token.length > 40 ? 40 : p->token.length),
             loom_text(p, p->token));
    hrx_loom_diag_param_t params[] = {{"actual", word},
                                      {"expected", loom_enum_choices(set)}};
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(p->token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_UNKNOWN_ENUM, params,
                   2, "unknown keyword '%s' (expected one of: %s)", word,
                   loom_enum_choices(set));
    return false;
  }
  *out = (uint8_t)index;
  loom_advance(p);
  return true;
}

/* word ('|' word)* of |set| into |*out| (bits). */
static bool loom_parse_flags(loom_parser_t* p, loom_flag_set_t set,
                             uint16_t* out) {
  do {
    uint32_t bit = loom_is(p, LOOM_TOKEN_IDENT)
                       ? loom_flag_lookup(set, loom_text(p, p->token),
                                          p->token.length)
                       : 0;
    if (!bit) {
      char word[48];
      snprintf(word, sizeof(word), "%.*s",
               (int)(p->token.length > 40 ? 40 : p->token.length),
               loom_text(p, p->token));
      hrx_loom_diag_param_t params[] = {{"actual", word},
                                        {"expected", loom_flag_choices(set)}};
      loom_diag_emit(p->diagnostics, p->source, loom_token_span(p->token),
                     HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_UNKNOWN_ENUM,
                     params, 2, "unknown flag '%s' (expected one of: %s)",
                     word, loom_flag_choices(set));
      return false;
    }
    *out |= (uint16_t)bit;
    loom_advance(p);
  } while (loom_accept(p, LOOM_TOKEN_PIPE));
  return true;
}

/* <keyword>, <keyword, flags> or <flags>, as the op's table entry says. */
static bool loom_parse_enum_param(loom_parser_t* p, const loom_op_def_t* def,
                                  loom_op_t* op) {
  op->enum_value = LOOM_ENUM_ABSENT;
  if (def->shape == LOOM_SHAPE_BITS && !def->attrs) return true;
  if (def->shape == LOOM_SHAPE_LAYOUT) return true;
  /* An application's <@family> / <contract.key> is its callee. */
  if (def->call_kind >= LOOM_CALL_FAMILY) return true;
  bool has_enum =
      def->enum_set != LOOM_ENUM_NONE && def->shape != LOOM_SHAPE_COMPARE;
  if (!loom_is(p, LOOM_TOKEN_LANGLE)) {
    if (def->enum_required && has_enum) {
      return loom_expected(p, "'<' with a keyword");
    }
    return true;
  }
  if (!has_enum && def->flag_set == LOOM_FLAGS_NONE) {
    return loom_error_here(p, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                           "this op takes no <parameter>");
  }
  loom_advance(p);
  if (has_enum) {
    uint8_t value = 0;
    if (!loom_parse_enum_word(p, (loom_enum_set_t)def->enum_set, &value)) {
      return false;
    }
    op->enum_value = value;
    if (def->flag_set != LOOM_FLAGS_NONE && loom_accept(p, LOOM_TOKEN_COMMA) &&
        !loom_parse_flags(p, (loom_flag_set_t)def->flag_set, &op->flags)) {
      return false;
    }
  } else if (!loom_parse_flags(p, (loom_flag_set_t)def->flag_set,
                               &op->flags)) {
    return false;
  }
  return loom_expect(p, LOOM_TOKEN_RANGLE);
}

static const char* const loom_attr_keys[LOOM_ATTR_KEY_COUNT] = {
    [LOOM_ATTR_SCOPE] = "scope", [LOOM_ATTR_ORDERING] = "ordering",
    [LOOM_ATTR_ALIGN] = "align", [LOOM_ATTR_CLUSTER_SIZE] = "cluster_size",
    [LOOM_ATTR_MIN_ALIGN] = "minimum_alignment",
    [LOOM_ATTR_OFFSET] = "offset", [LOOM_ATTR_WIDTH] = "width"};

static int loom_attr_key(const loom_parser_t* p) {
  for (int k = 0; k < LOOM_ATTR_KEY_COUNT; ++k) {
    if (loom_is_word(p, loom_attr_keys[k])) return k;
  }
  return -1;
}

/* Parses the value of attribute |key|, which the current token follows; a
 * key given twice is an error (the op has one slot per key). */
static bool loom_parse_attr_value(loom_parser_t* p, int key, loom_op_t* op) {
  if (op->attrs[key] >= 0) {
    hrx_loom_diag_param_t params[] = {{"attribute", loom_attr_keys[key]}};
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(p->token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_ATTRIBUTE,
                   params, 1, "attribute '%s' is given twice",
                   loom_attr_keys[key]);
    return false;
  }
  uint8_t word = 0;
  int64_t number = 0;
  switch (key) {
    case LOOM_ATTR_SCOPE:
      if (!loom_parse_enum_word(p, LOOM_ENUM_SCOPE, &word)) return false;
      op->attrs[key] = word;
      return true;
    case LOOM_ATTR_ORDERING:
      if (!loom_parse_enum_word(p, LOOM_ENUM_ORDERING, &word)) return false;
      op->attrs[key] = word;
      return true;
    case LOOM_ATTR_OFFSET:
    case LOOM_ATTR_WIDTH: {
      /* Bit positions and counts; the verifier checks them against the
       * types. */
      loom_token_t at = p->token;
      if (!loom_parse_int(p, &number)) return false;
      if (number < (key == LOOM_ATTR_WIDTH) || number > 64) {
        loom_diag_emit(p->diagnostics, p->source, loom_token_span(at),
                       HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_ATTRIBUTE,
                       NULL, 0, "%s must be in [%d, 64]", loom_attr_keys[key],
                       key == LOOM_ATTR_WIDTH);
        return false;
      }
      op->attrs[key] = number;
      return true;
    }
    default: {
      loom_token_t at = p->token;
      if (!loom_parse_int(p, &number)) return false;
      if (number <= 0 || (number & (number - 1)) != 0 || number > (1 << 16)) {
        loom_diag_emit(p->diagnostics, p->source, loom_token_span(at),
                       HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_ATTRIBUTE,
                       NULL, 0, "attribute must be a power of two <= 65536");
      }
      op->attrs[key] = number;
      return true;
    }
  }
}

/* keyword(value) forms and {key = value, ...} dictionaries, in any order.
 * |allowed| is a mask of loom_attr_key_t bits. */
static bool loom_parse_attrs(loom_parser_t* p, uint32_t op_id,
                             uint32_t allowed) {
  for (;;) {
    loom_op_t* op = &LOOM_OP(p->module, op_id);
    int key = loom_attr_key(p);
    if (key >= 0 && (allowed & (1u << key))) {
      loom_advance(p);
      if (!loom_expect(p, LOOM_TOKEN_LPAREN) ||
          !loom_parse_attr_value(p, key, op) ||
          !loom_expect(p, LOOM_TOKEN_RPAREN)) {
        return false;
      }
      continue;
    }
    if (loom_is(p, LOOM_TOKEN_LBRACE) && allowed) {
      loom_advance(p);
      if (loom_accept(p, LOOM_TOKEN_RBRACE)) continue;
      do {
        key = loom_attr_key(p);
        if (key < 0 || !(allowed & (1u << key))) {
          return loom_error_here(p, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                                 "unknown attribute for this op");
        }
        loom_advance(p);
        if (!loom_expect(p, LOOM_TOKEN_EQUAL) ||
            !loom_parse_attr_value(p, key, &LOOM_OP(p->module, op_id))) {
          return false;
        }
      } while (loom_accept(p, LOOM_TOKEN_COMMA));
      if (!loom_expect(p, LOOM_TOKEN_RBRACE)) return false;
      continue;
    }
    return true;
  }
}

/* A predicate operand: %value or integer. */
static bool loom_parse_ref(loom_parser_t* p, loom_ref_t* out) {
  *out = (loom_ref_t){0};
  if (loom_is(p, LOOM_TOKEN_INTEGER)) {
    out->is_static = true;
    return loom_parse_int(p, &out->constant);
  }
  return loom_parse_value_use(p, &out->value);
}

/* '[' pred (',' pred)* ']' into module->preds. */
static bool loom_parse_preds(loom_parser_t* p, uint32_t* out_start,
                             uint32_t* out_count) {
  static const struct {
    const char* name;
    loom_pred_kind_t kind;
    uint32_t arity;
  } forms[] = {{"range", LOOM_PRED_RANGE, 3}, {"lt", LOOM_PRED_LT, 2},
               {"le", LOOM_PRED_LE, 2},       {"eq", LOOM_PRED_EQ, 2},
               {"ne", LOOM_PRED_NE, 2},       {"mul", LOOM_PRED_MUL, 2}};
  loom_module_t* m = p->module;
  *out_start = m->preds.count;
  *out_count = 0;
  if (!loom_expect(p, LOOM_TOKEN_LBRACKET)) return false;
  do {
    int form = -1;
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); ++i) {
      if (loom_is_word(p, forms[i].name)) form = (int)i;
    }
    if (form < 0) {
      hrx_loom_diag_param_t params[] = {
          {"expected", "range, lt, le, eq, ne, mul"}};
      return loom_error_here(p, HRX_LOOM_DIAG_UNKNOWN_PREDICATE, params, 1,
                             "unknown predicate (expected range, lt, le, "
                             "eq, ne or mul)");
    }
    loom_pred_t pred = {.kind = forms[form].kind,
                        .arg_count = forms[form].arity,
                        .span = loom_token_span(p->token)};
    loom_advance(p);
    if (!loom_expect(p, LOOM_TOKEN_LPAREN)) return false;
    for (uint32_t a = 0; a < pred.arg_count; ++a) {
      if (a && !loom_expect(p, LOOM_TOKEN_COMMA)) return false;
      if (!loom_parse_ref(p, &pred.args[a])) return false;
    }
    pred.span.length = p->token.offset + 1 - pred.span.offset;
    if (!loom_expect(p, LOOM_TOKEN_RPAREN)) return false;
    uint32_t at = 0;
    LOOM_TRY(p, loom_array_grow(&m->preds, m->allocator, sizeof(loom_pred_t),
                                1, &at));
    LOOM_PRED(m, at) = pred;
    ++*out_count;
  } while (loom_accept(p, LOOM_TOKEN_COMMA));
  return loom_expect(p, LOOM_TOKEN_RBRACKET);
}

/*===------------------------------------------------------------------===*/
/* Regions                                                                 */
/*===------------------------------------------------------------------===*/

static bool loom_parse_op(loom_parser_t* p);

static bool loom_region_begin(loom_parser_t* p, uint32_t parent_op,
                              const loom_region_arg_t* args,
                              uint32_t arg_count, uint32_t* out_region,
                              uint32_t* out_scope_mark,
                              uint32_t* out_pending_mark) {
  loom_module_t* m = p->module;
  uint32_t region = 0;
  LOOM_TRY(p, loom_array_grow(&m->regions, m->allocator,
                              sizeof(loom_region_t), 1, &region));
  LOOM_REGION(m, region).parent_op = parent_op;
  LOOM_REGION(m, region).parent_region = p->region;
  LOOM_REGION(m, region).span = loom_token_span(p->token);
  *out_scope_mark = p->undo.count;
  *out_pending_mark = p->pending.count;
  uint32_t outer = p->region;
  p->region = region;
  LOOM_REGION(m, region).args_start = m->values.count;
  for (uint32_t i = 0; i < arg_count; ++i) {
    if (!loom_define_value(p, args[i].name, args[i].type, LOOM_NONE, NULL)) {
      p->region = outer;
      return false;
    }
  }
  LOOM_REGION(m, region).arg_count = arg_count;
  p->region = outer;
  *out_region = region;
  return true;
}

/* Regions nest by recursion (op -> region -> op), so the depth is
 * bounded here, before the stack is: the region's '{' is left for the
 * caller's recovery to skip, which it does without recursing. */
static bool loom_nesting_allowed(loom_parser_t* p) {
  if (p->depth <= HRX_LOOM_MAX_NESTING) return true;
  if (p->token.kind == LOOM_TOKEN_ERROR) return false;
  char limit[16];
  snprintf(limit, sizeof(limit), "%d", HRX_LOOM_MAX_NESTING);
  hrx_loom_diag_param_t params[] = {{"limit", limit}};
  loom_diag_emit(p->diagnostics, p->source, loom_token_span(p->token),
                 HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_NESTING_TOO_DEEP,
                 params, 1, "nesting deeper than %s levels", limit);
  return false;
}

/* '{' op* '}' for a region already begun. */
static bool loom_region_body(loom_parser_t* p, uint32_t region,
                             uint32_t scope_mark, uint32_t pending_mark) {
  loom_module_t* m = p->module;
  uint32_t outer = p->region;
  p->region = region;
  p->depth++;
  bool ok = loom_nesting_allowed(p) && loom_expect(p, LOOM_TOKEN_LBRACE);
  while (ok && !loom_is(p, LOOM_TOKEN_RBRACE) && !loom_is(p, LOOM_TOKEN_EOF) &&
         !loom_stopped(p)) {
    if (!loom_parse_op(p)) {
      if (loom_stopped(p)) break;
      loom_recover(p);
    }
  }
  if (ok && !loom_stopped(p)) {
    LOOM_REGION(m, region).span.length =
        p->token.offset + 1 - LOOM_REGION(m, region).span.offset;
    ok = loom_expect(p, LOOM_TOKEN_RBRACE);
  }
  /* Move this region's op ids from the pending stack into region_ops. */
  uint32_t count = p->pending.count - pending_mark;
  uint32_t start = 0;
  hrx_status_t status = loom_array_grow(&m->region_ops, m->allocator,
                                        sizeof(uint32_t), count, &start);
  if (status == HRX_OK) {
    if (count) {
      memcpy(&LOOM_AT(m->region_ops, uint32_t, start),
             &LOOM_AT(p->pending, uint32_t, pending_mark),
             count * sizeof(uint32_t));
    }
    LOOM_REGION(m, region).ops_start = start;
    LOOM_REGION(m, region).op_count = count;
  } else {
    loom_parser_oom(p, status);
    ok = false;
  }
  p->pending.count = pending_mark;
  loom_scope_restore(p, scope_mark);
  p->region = outer;
  p->depth--;
  return ok;
}

static bool loom_parse_region(loom_parser_t* p, uint32_t parent_op,
                              const loom_region_arg_t* args,
                              uint32_t arg_count, uint32_t* out_region) {
  uint32_t region = 0, scope_mark = 0, pending_mark = 0;
  if (!loom_region_begin(p, parent_op, args, arg_count, &region, &scope_mark,
                         &pending_mark)) {
    return false;
  }
  *out_region = region;
  return loom_region_body(p, region, scope_mark, pending_mark);
}

/* Attaches consecutive regions to an op. */
static void loom_op_add_region(loom_parser_t* p, uint32_t op_id,
                               uint32_t region) {
  loom_op_t* op = &LOOM_OP(p->module, op_id);
  op->regions[op->region_count++] = region;
}

/* '(' [%a ':' T (',' ...)*] ')' */
static bool loom_parse_arg_decls(loom_parser_t* p, loom_region_arg_t* args,
                                 uint32_t capacity, uint32_t* out_count) {
  *out_count = 0;
  if (!loom_expect(p, LOOM_TOKEN_LPAREN)) return false;
  if (loom_accept(p, LOOM_TOKEN_RPAREN)) return true;
  do {
    if (*out_count == capacity) {
      return loom_error_here(p, HRX_LOOM_DIAG_BAD_SHAPE, NULL, 0,
                             "too many arguments (limit 64)");
    }
    if (!loom_is(p, LOOM_TOKEN_VALUE_ID)) return loom_expected(p, "a %name");
    loom_region_arg_t* arg = &args[(*out_count)++];
    arg->name = p->token;
    loom_advance(p);
    if (!loom_expect(p, LOOM_TOKEN_COLON) ||
        !loom_parse_type(p, &arg->type)) {
      return false;
    }
  } while (loom_accept(p, LOOM_TOKEN_COMMA));
  return loom_expect(p, LOOM_TOKEN_RPAREN);
}

/*===------------------------------------------------------------------===*/
/* Op shapes                                                               */
/*===------------------------------------------------------------------===*/

bool loom_set_results(loom_op_ctx_t* c, uint32_t count,
                             loom_type_id_t type) {
  c->result_type_count = count;
  for (uint32_t i = 0; i < count && i < LOOM_MAX_RESULTS; ++i) {
    c->result_types[i] = type;
  }
  return true;
}

static bool loom_results_from_list(loom_parser_t* p, loom_op_ctx_t* c,
                                   uint32_t start, uint32_t count) {
  if (count > LOOM_MAX_RESULTS) {
    return loom_error_here(p, HRX_LOOM_DIAG_RESULT_COUNT, NULL, 0,
                           "too many results (limit 64)");
  }
  c->result_type_count = count;
  for (uint32_t i = 0; i < count; ++i) {
    c->result_types[i] =
        LOOM_AT(p->module->type_lists, loom_type_id_t, start + i);
  }
  return true;
}

static bool loom_colon_type(loom_parser_t* p, loom_type_id_t* out) {
  return loom_expect(p, LOOM_TOKEN_COLON) && loom_parse_type(p, out);
}

/* %r = op LITERAL : T, or %p = vector.poison : VEC, whose lanes are
 * zero (op_table.c says why): the literal is implied. */
static bool loom_shape_constant(loom_parser_t* p, loom_op_ctx_t* c) {
  bool poison = strcmp(c->def->name, "vector.poison") == 0;
  loom_literal_t literal = {.kind = LOOM_LITERAL_INT};
  if (!poison && !loom_parse_literal(p, &literal)) return false;
  loom_type_id_t type = 0;
  if (!loom_colon_type(p, &type)) return false;
  const loom_type_t* t = &LOOM_TYPE(p->module, type);
  if (poison && t->kind == LOOM_TYPE_VECTOR &&
      loom_type_is_float(t->element)) {
    literal.kind = LOOM_LITERAL_FLOAT;
  }
  LOOM_OP(p->module, c->op).literal = literal;
  LOOM_OP(p->module, c->op).type = type;
  return loom_set_results(c, 1, type);
}

static bool loom_shape_nary(loom_parser_t* p, loom_op_ctx_t* c) {
  if (!loom_parse_operand_list(p, c->op)) return false;
  loom_type_id_t type = 0;
  if (!loom_colon_type(p, &type)) return false;
  LOOM_OP(p->module, c->op).type = type;
  return loom_set_results(c, 1, type);
}

/* cmpi / cmpf name a predicate first; the class tests (isnanf, ...) have
 * none. */
static bool loom_shape_compare(loom_parser_t* p, loom_op_ctx_t* c) {
  if (c->def->enum_set != LOOM_ENUM_NONE) {
    uint8_t predicate = 0;
    if (!loom_parse_enum_word(p, (loom_enum_set_t)c->def->enum_set,
                              &predicate)) {
      return false;
    }
    LOOM_OP(p->module, c->op).enum_value = predicate;
    if (!loom_expect(p, LOOM_TOKEN_COMMA)) return false;
  }
  if (!loom_parse_operand_list(p, c->op)) return false;
  loom_type_id_t type = 0;
  if (!loom_colon_type(p, &type)) return false;
  LOOM_OP(p->module, c->op).type = type;
  if (!(c->def->types & LOOM_MASK_VECTOR)) {
    return loom_set_results(c, 1, LOOM_TYPE_I1);
  }
  /* Lanewise compares write their mask type. */
  loom_type_id_t mask = 0;
  if (!loom_expect(p, LOOM_TOKEN_ARROW) || !loom_parse_type(p, &mask)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type2 = mask;
  return loom_set_results(c, 1, mask);
}

/* %r = op[<kind>] %a, %b, %acc : VEC, VEC, T (vector.dot4f8 writes
 * VEC, T and vector.dot8i4 only VEC): both sources have one type (kept
 * in .type), the accumulator's is the result's (.type2). */
static bool loom_shape_dot(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t lhs = 0, rhs = 0, acc = 0;
  uint32_t types = loom_dot_type_count(c->def);
  if (!loom_parse_operand_list(p, c->op) || !loom_colon_type(p, &lhs)) {
    return false;
  }
  rhs = acc = lhs;
  if (types >= 2 && !loom_expect(p, LOOM_TOKEN_COMMA)) return false;
  loom_token_t at = p->token;
  if (types == 3 &&
      (!loom_parse_type(p, &rhs) || !loom_expect(p, LOOM_TOKEN_COMMA))) {
    return false;
  }
  if (types >= 2 && !loom_parse_type(p, &acc)) return false;
  if (rhs != lhs) {
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(at),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL,
                   0, "%s takes two sources of one type", c->def->name);
    return false;
  }
  LOOM_OP(p->module, c->op).type = lhs;
  LOOM_OP(p->module, c->op).type2 = acc;
  return loom_set_results(c, 1, acc);
}

/* vector.bitunpack{s,u}<W> / vector.bitpack<W> %v : VEC -> VEC (W in
 * enum_value), vector.bitfield.extract{s,u} %v {offset = O, width = W} :
 * VEC -> VEC, or vector.bitfield.insert %f into %b {..} : VEC, VEC */
static bool loom_shape_bits(loom_parser_t* p, loom_op_ctx_t* c) {
  if (!c->def->attrs) {
    int64_t width = 0;
    if (!loom_expect(p, LOOM_TOKEN_LANGLE)) return false;
    loom_token_t at = p->token;
    if (!loom_parse_int(p, &width) || !loom_expect(p, LOOM_TOKEN_RANGLE)) {
      return false;
    }
    if (width < 1 || width > 64) {
      loom_diag_emit(p->diagnostics, p->source, loom_token_span(at),
                     HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_ATTRIBUTE,
                     NULL, 0, "field width must be in [1, 64]");
      return false;
    }
    LOOM_OP(p->module, c->op).enum_value = (uint8_t)width;
  }
  /* vector.bitfield.insert %field into %base {..} : FIELD, RESULT */
  bool insert = strcmp(c->def->name, "vector.bitfield.insert") == 0;
  loom_type_id_t from = 0, to = 0;
  if (!loom_parse_operand_into(p, c->op) ||
      (insert && (!loom_expect_word(p, "into") ||
                  !loom_parse_operand_into(p, c->op))) ||
      !loom_parse_attrs(p, c->op, c->def->attrs) ||
      !loom_colon_type(p, &from) ||
      !loom_expect(p, insert ? LOOM_TOKEN_COMMA : LOOM_TOKEN_ARROW) ||
      !loom_parse_type(p, &to)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = from;
  LOOM_OP(p->module, c->op).type2 = to;
  return loom_set_results(c, 1, to);
}

/* Literal integers up to |close| appended to the module's literal
 * operands from *|out_first| on: a shuffle's lanes, a transpose's axes, a
 * slice's offsets (|what| names one in diagnostics). */
static bool loom_parse_static_list(loom_parser_t* p, loom_token_kind_t close,
                                   const char* what, uint32_t* out_first,
                                   uint32_t* out_count) {
  *out_first = p->module->statics.count;
  *out_count = 0;
  if (!loom_expect(p, LOOM_TOKEN_LBRACKET)) return false;
  do {
    if (!loom_is(p, LOOM_TOKEN_INTEGER)) return loom_expected(p, what);
    uint32_t operand = 0;
    if (!loom_parse_index_operand(p, &operand)) return false;
    ++*out_count;
  } while (loom_accept(p, LOOM_TOKEN_COMMA));
  return loom_expect(p, close);
}

/* The type after ", " that must equal |want|: the second and later
 * source types of vector.interleave and vector.concat, the second result
 * type of vector.deinterleave (|what| says which in the diagnostic). */
static bool loom_parse_same_type(loom_parser_t* p, const loom_op_ctx_t* c,
                                 loom_type_id_t want, const char* what) {
  if (!loom_expect(p, LOOM_TOKEN_COMMA)) return false;
  loom_token_t at = p->token;
  loom_type_id_t type = 0;
  if (!loom_parse_type(p, &type)) return false;
  if (type != want) {
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(at),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL,
                   0, "%s %s", c->def->name, what);
    return false;
  }
  return true;
}

/* The vector sources of a layout op: one, two for vector.interleave, up
 * to LOOM_LAYOUT_MAX_SOURCES for vector.concat. */
static bool loom_parse_layout_sources(loom_parser_t* p, loom_op_ctx_t* c,
                                      loom_layout_kind_t kind,
                                      uint32_t* out_count) {
  *out_count = 1;
  if (!loom_parse_operand_into(p, c->op)) return false;
  if (kind == LOOM_LAYOUT_INTERLEAVE) {
    *out_count = 2;
    return loom_expect(p, LOOM_TOKEN_COMMA) &&
           loom_parse_operand_into(p, c->op);
  }
  while (kind == LOOM_LAYOUT_CONCAT && loom_accept(p, LOOM_TOKEN_COMMA)) {
    if (*out_count == LOOM_LAYOUT_MAX_SOURCES) {
      loom_diag_emit(p->diagnostics, p->source, loom_token_span(p->token),
                     HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_SHAPE, NULL,
                     0, "%s takes at most %d inputs", c->def->name,
                     LOOM_LAYOUT_MAX_SOURCES);
      return false;
    }
    if (!loom_parse_operand_into(p, c->op)) return false;
    ++*out_count;
  }
  return true;
}

/* The register layout ops of vector_layout.h: the source operands, then
 * the static list as literal operands; the source type in .type, the
 * result's in .type2 (a shuffle keeps its type). */
static bool loom_shape_layout(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_layout_kind_t kind = loom_layout_kind(&LOOM_OP(p->module, c->op));
  uint32_t first = 0, count = 0;
  bool listed = kind == LOOM_LAYOUT_SHUFFLE || kind == LOOM_LAYOUT_TRANSPOSE;
  if (listed &&
      (!loom_expect(p, LOOM_TOKEN_LANGLE) ||
       !loom_parse_static_list(p, LOOM_TOKEN_RBRACKET,
                               kind == LOOM_LAYOUT_SHUFFLE ? "a lane"
                                                           : "an axis",
                               &first, &count) ||
       !loom_expect(p, LOOM_TOKEN_RANGLE))) {
    return false;
  }
  bool axis = kind == LOOM_LAYOUT_INTERLEAVE || kind == LOOM_LAYOUT_CONCAT ||
              kind == LOOM_LAYOUT_DEINTERLEAVE;
  if (axis) { /* <axis> */
    first = p->module->statics.count;
    count = 1;
    uint32_t operand = 0;
    if (!loom_expect(p, LOOM_TOKEN_LANGLE)) return false;
    if (!loom_is(p, LOOM_TOKEN_INTEGER)) return loom_expected(p, "an axis");
    if (!loom_parse_index_operand(p, &operand) ||
        !loom_expect(p, LOOM_TOKEN_RANGLE)) {
      return false;
    }
  }
  uint32_t sources = 0;
  if (!loom_parse_layout_sources(p, c, kind, &sources)) return false;
  if (kind == LOOM_LAYOUT_SLICE &&
      !loom_parse_static_list(p, LOOM_TOKEN_RBRACKET, "a static offset",
                              &first, &count)) {
    return false;
  }
  for (uint32_t i = 0; i < count; ++i) {
    if (!loom_add_operand(p, c->op, (first + i) | LOOM_STATIC_OPERAND)) {
      return false;
    }
  }
  loom_type_id_t from = 0, to = 0;
  if (!loom_colon_type(p, &from)) return false;
  /* All sources have one type. */
  for (uint32_t i = 1; i < sources; ++i) {
    if (!loom_parse_same_type(p, c, from,
                              kind == LOOM_LAYOUT_INTERLEAVE
                                  ? "takes two sources of one type"
                                  : "takes inputs of one type")) {
      return false;
    }
  }
  to = from;
  if (kind != LOOM_LAYOUT_SHUFFLE &&
      (!loom_expect(p, LOOM_TOKEN_ARROW) || !loom_parse_type(p, &to))) {
    return false;
  }
  if (kind == LOOM_LAYOUT_DEINTERLEAVE &&
      !loom_parse_same_type(p, c, to, "gives two results of one type")) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = from;
  LOOM_OP(p->module, c->op).type2 = to;
  return loom_set_results(c, kind == LOOM_LAYOUT_DEINTERLEAVE ? 2 : 1, to);
}

/* %r = vector.iota %base step %step : VEC */
static bool loom_shape_iota(loom_parser_t* p, loom_op_ctx_t* c) {
  if (!loom_parse_operand_into(p, c->op) || !loom_expect_word(p, "step") ||
      !loom_parse_operand_into(p, c->op)) {
    return false;
  }
  loom_type_id_t type = 0;
  if (!loom_colon_type(p, &type)) return false;
  LOOM_OP(p->module, c->op).type = type;
  return loom_set_results(c, 1, type);
}

static bool loom_shape_cast(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t from = 0, to = 0;
  if (!loom_parse_operand_into(p, c->op) || !loom_colon_type(p, &from) ||
      !loom_expect_word(p, "to") || !loom_parse_type(p, &to)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = from;
  LOOM_OP(p->module, c->op).type2 = to;
  return loom_set_results(c, 1, to);
}

static bool loom_shape_nullary(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t type = 0;
  if (!loom_colon_type(p, &type)) return false;
  LOOM_OP(p->module, c->op).type = type;
  return loom_set_results(c, 1, type);
}

static bool loom_shape_config_get(loom_parser_t* p, loom_op_ctx_t* c) {
  if (!loom_is(p, LOOM_TOKEN_SYMBOL)) return loom_expected(p, "an @symbol");
  uint32_t symbol = 0;
  LOOM_TRY(p, loom_module_intern(p->module, loom_text(p, p->token) + 1,
                                 p->token.length - 1, &symbol));
  LOOM_OP(p->module, c->op).symbol = symbol;
  loom_advance(p);
  return loom_shape_nullary(p, c);
}

/* %a[, %b ...] = index.assume %x[, %y ...] [preds] : T[, U ...] */
static bool loom_shape_assume(loom_parser_t* p, loom_op_ctx_t* c) {
  uint32_t start = 0, count = 0;
  if (!loom_parse_operand_list(p, c->op) ||
      !loom_parse_preds(p, &start, &count)) {
    return false;
  }
  LOOM_OP(p->module, c->op).preds_start = start;
  LOOM_OP(p->module, c->op).pred_count = count;
  uint32_t types_start = 0, type_count = 0;
  if (!loom_expect(p, LOOM_TOKEN_COLON) ||
      !loom_parse_type_list(p, &types_start, &type_count) ||
      !loom_results_from_list(p, c, types_start, type_count)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = c->result_types[0];
  return true;
}

static bool loom_shape_noalias(loom_parser_t* p, loom_op_ctx_t* c) {
  uint32_t start = 0, count = 0;
  if (!loom_parse_operand_list(p, c->op) ||
      !loom_parse_attrs(p, c->op, c->def->attrs) ||
      !loom_expect(p, LOOM_TOKEN_COLON) ||
      !loom_parse_type_list(p, &start, &count)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = LOOM_TYPE_BUFFER;
  if (count != LOOM_OP(p->module, c->op).operand_count) {
    return loom_error_here(p, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                           "one type per operand expected");
  }
  return loom_results_from_list(p, c, start, count);
}

static bool loom_shape_buffer_view(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t from = 0, to = 0;
  if (!loom_parse_operand_into(p, c->op) || !loom_parse_indices(p, c->op) ||
      !loom_colon_type(p, &from) || !loom_expect(p, LOOM_TOKEN_ARROW) ||
      !loom_parse_type(p, &to)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = from;
  LOOM_OP(p->module, c->op).type2 = to;
  return loom_set_results(c, 1, to);
}

static const uint32_t loom_atomic_attrs =
    (1u << LOOM_ATTR_SCOPE) | (1u << LOOM_ATTR_ORDERING);

static bool loom_is_atomic(const loom_op_def_t* def) {
  return strncmp(def->name, "view.atomic.", 12) == 0;
}

static bool loom_shape_load(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t view = 0, result = 0;
  if (!loom_parse_operand_into(p, c->op) || !loom_parse_indices(p, c->op) ||
      !loom_parse_attrs(p, c->op,
                        loom_is_atomic(c->def) ? loom_atomic_attrs : 0) ||
      !loom_colon_type(p, &view) || !loom_expect(p, LOOM_TOKEN_ARROW) ||
      !loom_parse_type(p, &result)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = view;
  LOOM_OP(p->module, c->op).type2 = result;
  return loom_set_results(c, 1, result);
}

/* op %x, %v[i] {attrs} : T, VIEW  (store and rmw) */
static bool loom_shape_store(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t value = 0, view = 0;
  if (!loom_parse_operand_into(p, c->op) ||
      !loom_expect(p, LOOM_TOKEN_COMMA) ||
      !loom_parse_operand_into(p, c->op) || !loom_parse_indices(p, c->op) ||
      !loom_parse_attrs(p, c->op,
                        loom_is_atomic(c->def) ? loom_atomic_attrs : 0) ||
      !loom_colon_type(p, &value) || !loom_expect(p, LOOM_TOKEN_COMMA) ||
      !loom_parse_type(p, &view)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = value;
  LOOM_OP(p->module, c->op).type2 = view;
  if (c->def->shape == LOOM_SHAPE_RMW) return loom_set_results(c, 1, value);
  return loom_set_results(c, 0, 0);
}

/* Moves the last |count| operands of |op_id| (parsed after the view and
 * its indices) to the front, where vector_access.h keeps them. */
static void loom_operands_to_front(loom_parser_t* p, uint32_t op_id,
                                   uint32_t count) {
  loom_op_t* op = &LOOM_OP(p->module, op_id);
  for (uint32_t n = 0; n < count; ++n) {
    uint32_t last = LOOM_OPERAND(p->module, op, op->operand_count - 1);
    for (uint32_t i = op->operand_count - 1; i > 0; --i) {
      LOOM_OPERAND(p->module, op, i) = LOOM_OPERAND(p->module, op, i - 1);
    }
    LOOM_OPERAND(p->module, op, 0) = last;
  }
}

/* The lane-by-lane memory ops of vector_access.h:
 *   %r = vector.load.mask %v[i, ..], %mask, %pass : VIEW, MASK, VEC
 *   %r = vector.gather %v[i, ..][%offsets] : VIEW, OFFSETS -> VEC
 *   vector.store.mask %x, %v[i, ..], %mask : VEC, VIEW, MASK
 *   vector.scatter %x, %v[i, ..][%offsets] : VEC, VIEW, OFFSETS */
static bool loom_shape_lane_access(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_lane_access_t a = loom_lane_access(&LOOM_OP(p->module, c->op));
  if ((!a.load && (!loom_parse_operand_into(p, c->op) ||
                   !loom_expect(p, LOOM_TOKEN_COMMA))) ||
      !loom_parse_operand_into(p, c->op) || !loom_parse_indices(p, c->op) ||
      !loom_expect(p, a.masked ? LOOM_TOKEN_COMMA : LOOM_TOKEN_LBRACKET) ||
      !loom_parse_operand_into(p, c->op) ||
      (!a.masked && !loom_expect(p, LOOM_TOKEN_RBRACKET)) ||
      (a.load && a.masked && (!loom_expect(p, LOOM_TOKEN_COMMA) ||
                              !loom_parse_operand_into(p, c->op)))) {
    return false;
  }
  loom_type_id_t view = 0, lanes = 0, vector = 0;
  if (!loom_expect(p, LOOM_TOKEN_COLON) ||
      (!a.load && (!loom_parse_type(p, &vector) ||
                   !loom_expect(p, LOOM_TOKEN_COMMA))) ||
      !loom_parse_type(p, &view) || !loom_expect(p, LOOM_TOKEN_COMMA) ||
      !loom_parse_type(p, &lanes) ||
      (a.load && (!loom_expect(p, a.masked ? LOOM_TOKEN_COMMA
                                            : LOOM_TOKEN_ARROW) ||
                  !loom_parse_type(p, &vector)))) {
    return false;
  }
  loom_operands_to_front(p, c->op, a.load && a.masked ? 2 : 1);
  LOOM_OP(p->module, c->op).type = view;
  LOOM_OP(p->module, c->op).type2 = vector;
  LOOM_OP(p->module, c->op).ref = lanes;
  return loom_set_results(c, a.load ? 1 : 0, vector);
}

/* shape [%rows, %columns], appended as the op's last two operands.
 * Encoded fragments (using {...}) and local facts (where [...]) follow it
 * upstream; HRX has no layout for them and says so here. */
static bool loom_parse_fragment_shape(loom_parser_t* p, loom_op_ctx_t* c) {
  if (!loom_expect_word(p, "shape") || !loom_expect(p, LOOM_TOKEN_LBRACKET) ||
      !loom_parse_operand_into(p, c->op) ||
      !loom_expect(p, LOOM_TOKEN_COMMA) ||
      !loom_parse_operand_into(p, c->op) ||
      !loom_expect(p, LOOM_TOKEN_RBRACKET)) {
    return false;
  }
  /* using {schema = %s}: how the fragment's elements are stored; the
   * verifier accepts the schemas that store them as the type says. */
  if (loom_is_word(p, "using")) {
    loom_advance(p);
    uint32_t schema = 0;
    if (!loom_expect(p, LOOM_TOKEN_LBRACE) || !loom_expect_word(p, "schema") ||
        !loom_expect(p, LOOM_TOKEN_EQUAL) ||
        !loom_parse_value_use(p, &schema) ||
        !loom_expect(p, LOOM_TOKEN_RBRACE)) {
      return false;
    }
    LOOM_OP(p->module, c->op).ref = schema;
  }
  if (loom_is_word(p, "where")) {
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(p->token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL,
                   0, "%s: fragment facts ('where') are not supported",
                   c->def->name);
    return false;
  }
  return true;
}

/* %f = vector.fragment<role> %v shape [%r, %c] : VEC */
static bool loom_shape_fragment(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t type = 0;
  if (!loom_parse_operand_into(p, c->op) || !loom_parse_fragment_shape(p, c) ||
      !loom_colon_type(p, &type)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = type;
  return loom_set_results(c, 1, type);
}

/* %f = vector.fragment.load<role> %v[i, j] shape [%r, %c] : VIEW -> VEC */
static bool loom_shape_fragment_load(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t view = 0, result = 0;
  if (!loom_parse_operand_into(p, c->op) || !loom_parse_indices(p, c->op) ||
      !loom_parse_fragment_shape(p, c) || !loom_colon_type(p, &view) || !loom_expect(p, LOOM_TOKEN_ARROW) ||
      !loom_parse_type(p, &result)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = view;
  LOOM_OP(p->module, c->op).type2 = result;
  return loom_set_results(c, 1, result);
}

/* vector.fragment.store<role> %f, %v[i, j] shape [%r, %c] : VEC, VIEW */
static bool loom_shape_fragment_store(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t value = 0, view = 0;
  if (!loom_parse_operand_into(p, c->op) ||
      !loom_expect(p, LOOM_TOKEN_COMMA) ||
      !loom_parse_operand_into(p, c->op) || !loom_parse_indices(p, c->op) ||
      !loom_parse_fragment_shape(p, c) || !loom_colon_type(p, &value) || !loom_expect(p, LOOM_TOKEN_COMMA) ||
      !loom_parse_type(p, &view)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = value;
  LOOM_OP(p->module, c->op).type2 = view;
  return loom_set_results(c, 0, 0);
}

static bool loom_shape_extract(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t vector = 0, element = 0;
  if (!loom_parse_operand_into(p, c->op) || !loom_parse_indices(p, c->op) ||
      !loom_colon_type(p, &vector) || !loom_expect(p, LOOM_TOKEN_ARROW) ||
      !loom_parse_type(p, &element)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = vector;
  LOOM_OP(p->module, c->op).type2 = element;
  return loom_set_results(c, 1, element);
}

static bool loom_shape_insert(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t element = 0, vector = 0;
  if (!loom_parse_operand_into(p, c->op) || !loom_expect_word(p, "into") ||
      !loom_parse_operand_into(p, c->op) || !loom_parse_indices(p, c->op) ||
      !loom_colon_type(p, &element) || !loom_expect(p, LOOM_TOKEN_COMMA) ||
      !loom_parse_type(p, &vector)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = element;
  LOOM_OP(p->module, c->op).type2 = vector;
  return loom_set_results(c, 1, vector);
}

static bool loom_shape_vector_reduce(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t vector = 0, element = 0;
  if (!loom_parse_operand_list(p, c->op) || !loom_colon_type(p, &vector) ||
      !loom_expect(p, LOOM_TOKEN_COMMA) || !loom_parse_type(p, &element)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = vector;
  LOOM_OP(p->module, c->op).type2 = element;
  return loom_set_results(c, 1, element);
}

/* %r = vector.reduce.axes<k> %v, %init axes [a, ..] : VEC, INIT: the
 * axes follow as literal operands (vector_reduce.h). */
static bool loom_shape_reduce_axes(loom_parser_t* p, loom_op_ctx_t* c) {
  uint32_t first = 0, count = 0;
  loom_type_id_t vector = 0, init = 0;
  if (!loom_parse_operand_into(p, c->op) ||
      !loom_expect(p, LOOM_TOKEN_COMMA) ||
      !loom_parse_operand_into(p, c->op) || !loom_expect_word(p, "axes") ||
      !loom_parse_static_list(p, LOOM_TOKEN_RBRACKET, "an axis", &first,
                              &count)) {
    return false;
  }
  for (uint32_t i = 0; i < count; ++i) {
    if (!loom_add_operand(p, c->op, (first + i) | LOOM_STATIC_OPERAND)) {
      return false;
    }
  }
  if (!loom_colon_type(p, &vector) || !loom_expect(p, LOOM_TOKEN_COMMA) ||
      !loom_parse_type(p, &init)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = vector;
  LOOM_OP(p->module, c->op).type2 = init;
  return loom_set_results(c, 1, init);
}

static bool loom_shape_scale(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_type_id_t a = 0, b = 0, result = 0;
  if (!loom_parse_operand_list(p, c->op) || !loom_colon_type(p, &a) ||
      !loom_expect(p, LOOM_TOKEN_COMMA) || !loom_parse_type(p, &b) ||
      !loom_expect(p, LOOM_TOKEN_ARROW) || !loom_parse_type(p, &result)) {
    return false;
  }
  LOOM_OP(p->module, c->op).type = a;
  LOOM_OP(p->module, c->op).type2 = b;
  if (result != b) {
    return loom_error_here(p, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                           "index.scale yields the stride's type");
  }
  return loom_set_results(c, 1, result);
}

static bool loom_shape_shuffle(loom_parser_t* p, loom_op_ctx_t* c) {
  uint32_t start = 0, count = 0;
  if (!loom_parse_operand_list(p, c->op) ||
      !loom_expect(p, LOOM_TOKEN_COLON) ||
      !loom_parse_type_list(p, &start, &count)) {
    return false;
  }
  if (count != 3) {
    return loom_error_here(p, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                           "shuffle is typed 'T, i32, i32'");
  }
  loom_type_id_t type = LOOM_AT(p->module->type_lists, loom_type_id_t, start);
  LOOM_OP(p->module, c->op).type = type;
  LOOM_OP(p->module, c->op).type2 =
      LOOM_AT(p->module->type_lists, loom_type_id_t, start + 1);
  c->result_type_count = 2;
  c->result_types[0] = type;
  c->result_types[1] = LOOM_TYPE_I1;
  return true;
}

static bool loom_shape_unary(loom_parser_t* p, loom_op_ctx_t* c) {
  return loom_parse_operand_into(p, c->op) && loom_shape_nullary(p, c);
}

static bool loom_shape_reduce(loom_parser_t* p, loom_op_ctx_t* c) {
  return loom_parse_operand_into(p, c->op) &&
         loom_parse_attrs(p, c->op, 1u << LOOM_ATTR_CLUSTER_SIZE) &&
         loom_shape_nullary(p, c);
}

static bool loom_shape_sync(loom_parser_t* p, loom_op_ctx_t* c) {
  if (!loom_parse_attrs(p, c->op, loom_atomic_attrs)) return false;
  return loom_set_results(c, 0, 0);
}

static bool loom_shape_alloca(loom_parser_t* p, loom_op_ctx_t* c) {
  return loom_parse_attrs(p, c->op, 1u << LOOM_ATTR_ALIGN) &&
         loom_parse_operand_into(p, c->op) && loom_shape_nullary(p, c);
}

static bool loom_parse_triple(loom_parser_t* p, uint32_t op_id,
                              const char* keyword) {
  if (!loom_expect_word(p, keyword) || !loom_expect(p, LOOM_TOKEN_LPAREN)) {
    return false;
  }
  for (int i = 0; i < 3; ++i) {
    if (i && !loom_expect(p, LOOM_TOKEN_COMMA)) return false;
    if (!loom_parse_operand_into(p, op_id)) return false;
  }
  return loom_expect(p, LOOM_TOKEN_RPAREN);
}

static bool loom_shape_launch_config(loom_parser_t* p, loom_op_ctx_t* c) {
  if (!loom_parse_triple(p, c->op, "workgroups") ||
      !loom_parse_triple(p, c->op, "workgroup_size")) {
    return false;
  }
  if (loom_is_word(p, "cluster_size") &&
      !loom_parse_triple(p, c->op, "cluster_size")) {
    return false;
  }
  loom_type_id_t type = 0;
  if (!loom_colon_type(p, &type)) return false;
  LOOM_OP(p->module, c->op).type = type;
  return loom_set_results(c, 0, 0);
}

static bool loom_shape_terminator(loom_parser_t* p, loom_op_ctx_t* c) {
  /* kernel.return carries nothing; other terminators' values start on the
   * terminator's own line, so an empty yield never swallows the next op. */
  if (c->def->terminator == LOOM_TERM_KERNEL_RETURN ||
      !loom_is(p, LOOM_TOKEN_VALUE_ID) || p->token.line_start) {
    return loom_set_results(c, 0, 0);
  }
  uint32_t start = 0, count = 0;
  if (!loom_parse_operand_list(p, c->op) ||
      !loom_expect(p, LOOM_TOKEN_COLON) ||
      !loom_parse_type_list(p, &start, &count)) {
    return false;
  }
  loom_op_t* op = &LOOM_OP(p->module, c->op);
  if (count != op->operand_count) {
    return loom_error_here(p, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                           "one type per operand expected");
  }
  /* Written types are checked against the operands' types here, since the
   * IR keeps only the operands. */
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t value = LOOM_OPERAND(p->module, op, i);
    loom_type_id_t written =
        LOOM_AT(p->module->type_lists, loom_type_id_t, start + i);
    if (LOOM_VALUE(p->module, value).type != written) {
      loom_diag_emit(p->diagnostics, p->source, op->span,
                     HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_TYPE_MISMATCH,
                     NULL, 0, "operand %u is written with a type other than "
                     "its own", i);
      return false;
    }
  }
  p->module->type_lists.count = start;
  return loom_set_results(c, 0, 0);
}

static bool loom_shape_select(loom_parser_t* p, loom_op_ctx_t* c) {
  return loom_shape_nary(p, c);
}

/* An optional "-> (T, ...)" result list. */
static bool loom_parse_result_arrow(loom_parser_t* p, loom_op_ctx_t* c) {
  if (!loom_accept(p, LOOM_TOKEN_ARROW)) return true;
  uint32_t start = 0, count = 0;
  return loom_parse_paren_types(p, &start, &count) &&
         loom_results_from_list(p, c, start, count);
}

static bool loom_shape_if(loom_parser_t* p, loom_op_ctx_t* c) {
  if (!loom_parse_operand_into(p, c->op) || !loom_parse_result_arrow(p, c)) {
    return false;
  }
  uint32_t region = 0;
  if (!loom_parse_region(p, c->op, NULL, 0, &region)) return false;
  loom_op_add_region(p, c->op, region);
  if (loom_is_word(p, "else")) {
    loom_advance(p);
    if (!loom_parse_region(p, c->op, NULL, 0, &region)) return false;
    loom_op_add_region(p, c->op, region);
    LOOM_OP(p->module, c->op).has_else = 1;
  }
  return true;
}

/* The rest of "(%a = %init : T, ...)" after its '(' (which may close at
 * once): loop-carried region arguments and their init operands, then the
 * optional result list. */
static bool loom_parse_carried(loom_parser_t* p, loom_op_ctx_t* c,
                               loom_region_arg_t* args, uint32_t capacity,
                               uint32_t* inout_count) {
  if (!loom_accept(p, LOOM_TOKEN_RPAREN)) {
    do {
      if (*inout_count == capacity) {
        return loom_error_here(p, HRX_LOOM_DIAG_RESULT_COUNT, NULL, 0,
                               "too many loop-carried values (limit 64)");
      }
      if (!loom_is(p, LOOM_TOKEN_VALUE_ID)) return loom_expected(p, "%name");
      loom_region_arg_t* arg = &args[(*inout_count)++];
      arg->name = p->token;
      loom_advance(p);
      if (!loom_expect(p, LOOM_TOKEN_EQUAL) ||
          !loom_parse_operand_into(p, c->op) ||
          !loom_expect(p, LOOM_TOKEN_COLON) ||
          !loom_parse_type(p, &arg->type)) {
        return false;
      }
    } while (loom_accept(p, LOOM_TOKEN_COMMA));
    if (!loom_expect(p, LOOM_TOKEN_RPAREN)) return false;
  }
  return loom_parse_result_arrow(p, c);
}

/* 'unroll' or 'unroll(N)' after a loop's bounds: a hint, kept in the
 * op's literal (kind NONE: absent; INT: the factor, 0 when unstated). */
static bool loom_parse_unroll(loom_parser_t* p, loom_op_ctx_t* c) {
  if (!loom_is_word(p, "unroll")) return true;
  loom_advance(p);
  loom_literal_t unroll = {.kind = LOOM_LITERAL_INT};
  if (loom_accept(p, LOOM_TOKEN_LPAREN)) {
    loom_token_t at = p->token;
    if (!loom_parse_int(p, &unroll.i)) return false;
    if (unroll.i < 1) {
      loom_diag_emit(p->diagnostics, p->source, loom_token_span(at),
                     HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_ATTRIBUTE,
                     NULL, 0, "unroll factor must be positive");
      return false;
    }
    if (!loom_expect(p, LOOM_TOKEN_RPAREN)) return false;
  }
  LOOM_OP(p->module, c->op).literal = unroll;
  return true;
}

static bool loom_shape_for(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_region_arg_t args[LOOM_MAX_RESULTS + 1];
  uint32_t arg_count = 1;
  if (!loom_is(p, LOOM_TOKEN_VALUE_ID)) return loom_expected(p, "%induction");
  args[0].name = p->token;
  args[0].type = LOOM_TYPE_INDEX;
  loom_advance(p);
  if (!loom_expect(p, LOOM_TOKEN_EQUAL) ||
      !loom_expect(p, LOOM_TOKEN_LBRACKET) ||
      !loom_parse_operand_into(p, c->op) || !loom_expect_word(p, "to") ||
      !loom_parse_operand_into(p, c->op) || !loom_expect_word(p, "step") ||
      !loom_parse_operand_into(p, c->op) ||
      !loom_expect(p, LOOM_TOKEN_RBRACKET) || !loom_parse_unroll(p, c)) {
    return false;
  }
  if (loom_accept(p, LOOM_TOKEN_LPAREN)
          ? !loom_parse_carried(p, c, args, LOOM_MAX_RESULTS + 1, &arg_count)
          : !loom_parse_result_arrow(p, c)) {
    return false;
  }
  uint32_t region = 0;
  if (!loom_parse_region(p, c->op, args, arg_count, &region)) return false;
  loom_op_add_region(p, c->op, region);
  return true;
}

static bool loom_shape_while(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_region_arg_t args[LOOM_MAX_RESULTS];
  uint32_t arg_count = 0;
  if (!loom_expect(p, LOOM_TOKEN_LPAREN) ||
      !loom_parse_carried(p, c, args, LOOM_MAX_RESULTS, &arg_count)) {
    return false;
  }
  uint32_t region = 0;
  if (!loom_parse_region(p, c->op, args, arg_count, &region)) return false;
  loom_op_add_region(p, c->op, region);
  if (!loom_expect_word(p, "do")) return false;
  loom_region_arg_t after[LOOM_MAX_RESULTS];
  uint32_t after_count = 0;
  if (!loom_parse_arg_decls(p, after, LOOM_MAX_RESULTS, &after_count) ||
      !loom_parse_region(p, c->op, after, after_count, &region)) {
    return false;
  }
  loom_op_add_region(p, c->op, region);
  return true;
}

/* template.apply<@family> / func.apply<contract.key>: the name in <...>;
 * the implementation is chosen once the whole module is parsed. */
static bool loom_parse_applied(loom_parser_t* p, loom_op_ctx_t* c) {
  bool family = c->def->call_kind == LOOM_CALL_FAMILY;
  if (!loom_expect(p, LOOM_TOKEN_LANGLE)) return false;
  if (!loom_is(p, family ? LOOM_TOKEN_SYMBOL : LOOM_TOKEN_IDENT)) {
    return loom_expected(p, family ? "an @family" : "a contract key");
  }
  uint32_t skip = family ? 1 : 0, name = 0;
  LOOM_TRY(p, loom_module_intern(p->module, loom_text(p, p->token) + skip,
                                 p->token.length - skip, &name));
  LOOM_OP(p->module, c->op).ref = name;
  loom_advance(p);
  return loom_expect(p, LOOM_TOKEN_RANGLE);
}

/* pure / hot / cold after an application's operands. */
static void loom_parse_call_words(loom_parser_t* p, loom_op_ctx_t* c) {
  static const struct {
    const char* word;
    uint16_t flag;
  } words[] = {{"pure", LOOM_CALL_PURE},
               {"hot", LOOM_CALL_HOT},
               {"cold", LOOM_CALL_COLD}};
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); ++i) {
    if (loom_is_word(p, words[i].word)) {
      LOOM_OP(p->module, c->op).flags |= words[i].flag;
      loom_advance(p);
    }
  }
}

static bool loom_shape_call(loom_parser_t* p, loom_op_ctx_t* c) {
  bool applied = c->def->call_kind >= LOOM_CALL_FAMILY;
  if (applied) {
    if (!loom_parse_applied(p, c)) return false;
  } else {
    if (!loom_is(p, LOOM_TOKEN_SYMBOL)) {
      return loom_expected(p, "an @function");
    }
    uint32_t symbol = 0;
    LOOM_TRY(p, loom_module_intern(p->module, loom_text(p, p->token) + 1,
                                   p->token.length - 1, &symbol));
    LOOM_OP(p->module, c->op).symbol = symbol;
    loom_advance(p);
  }
  if (!loom_expect(p, LOOM_TOKEN_LPAREN)) return false;
  if (!loom_accept(p, LOOM_TOKEN_RPAREN)) {
    if (!loom_parse_operand_list(p, c->op) ||
        !loom_expect(p, LOOM_TOKEN_RPAREN)) {
      return false;
    }
  }
  if (applied) loom_parse_call_words(p, c);
  uint32_t arg_start = 0, arg_count = 0, start = 0, count = 0;
  if (!loom_expect(p, LOOM_TOKEN_COLON) ||
      !loom_parse_paren_types(p, &arg_start, &arg_count)) {
    return false;
  }
  loom_op_t* op = &LOOM_OP(p->module, c->op);
  if (arg_count != op->operand_count) {
    return loom_error_here(p, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                           "one argument type per operand expected");
  }
  for (uint32_t i = 0; i < arg_count; ++i) {
    if (LOOM_VALUE(p->module, LOOM_OPERAND(p->module, op, i)).type !=
        LOOM_AT(p->module->type_lists, loom_type_id_t, arg_start + i)) {
      return loom_error_here(p, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                             "argument written with a type other than its "
                             "operand's");
    }
  }
  /* Upstream writes an application without results with no arrow. */
  if (applied && !loom_is(p, LOOM_TOKEN_ARROW)) {
    return loom_results_from_list(p, c, 0, 0);
  }
  if (!loom_expect(p, LOOM_TOKEN_ARROW) ||
      !loom_parse_paren_types(p, &start, &count)) {
    return false;
  }
  return loom_results_from_list(p, c, start, count);
}

static bool loom_is_attr(const loom_parser_t* p, const char* text) {
  size_t n = strlen(text);
  return p->token.kind == LOOM_TOKEN_ATTR && p->token.length == n &&
         memcmp(loom_text(p, p->token), text, n) == 0;
}

/* ': encoding<layout>' or ': encoding<schema>', as the spec made. */
static bool loom_define_result(loom_parser_t* p, loom_op_ctx_t* c,
                               loom_type_kind_t kind) {
  loom_token_t colon = p->token;
  if (!loom_shape_nullary(p, c)) return false;
  if (LOOM_OP(p->module, c->op).type == kind) return true;
  loom_diag_emit(p->diagnostics, p->source, loom_token_span(colon),
                 HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                 "this encoding is an %s", loom_type_kind_name(kind));
  return false;
}

/* A schema spec, #family or #family<params>, kept as written in the op's
 * |symbol|: backends read it only where a fragment uses the schema
 * (encoding_schema.c). The result must be an encoding<schema>. */
static bool loom_parse_schema_spec(loom_parser_t* p, loom_op_ctx_t* c) {
  uint32_t begin = p->token.offset, end = begin + p->token.length;
  loom_advance(p);
  if (loom_is(p, LOOM_TOKEN_LANGLE) && p->token.offset == end) {
    uint32_t depth = 0;
    do {
      if (loom_is(p, LOOM_TOKEN_EOF) || loom_is(p, LOOM_TOKEN_ERROR) ||
          p->token.line_start) {
        return loom_expected(p, "'>'");
      }
      if (loom_is(p, LOOM_TOKEN_LANGLE)) depth++;
      if (loom_is(p, LOOM_TOKEN_RANGLE)) depth--;
      end = p->token.offset + p->token.length;
      loom_advance(p);
    } while (depth);
  }
  if (loom_is(p, LOOM_TOKEN_LBRACE)) {
    return loom_error_here(p, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                           "dynamic encoding parameters {name = %v : T} are "
                           "not supported");
  }
  loom_op_t* op = &LOOM_OP(p->module, c->op);
  op->enum_value = LOOM_ENCODING_SCHEMA;
  LOOM_TRY(p, loom_module_intern(p->module, p->source->text + begin,
                                 end - begin, &op->symbol));
  return loom_define_result(p, c, LOOM_TYPE_SCHEMA);
}

/* encoding.define #encoding.layout.dense : encoding<layout>
 * encoding.define #encoding.layout.strided<strides = [s, ...]> : ...
 * The value is the same layout encoding.layout.dense / .strided [s, ...]
 * makes, so views address through it alike. */
static bool loom_shape_encoding_define(loom_parser_t* p, loom_op_ctx_t* c) {
  loom_op_t* op = &LOOM_OP(p->module, c->op);
  if (loom_is_attr(p, "#encoding.layout.dense")) {
    op->enum_value = LOOM_ENCODING_DENSE;
    loom_advance(p);
    return loom_define_result(p, c, LOOM_TYPE_LAYOUT);
  }
  if (loom_is(p, LOOM_TOKEN_ATTR) &&
      !loom_is_attr(p, "#encoding.layout.strided")) {
    return loom_parse_schema_spec(p, c);
  }
  if (!loom_is(p, LOOM_TOKEN_ATTR)) return loom_expected(p, "an #encoding");
  op->enum_value = LOOM_ENCODING_STRIDED;
  loom_advance(p);
  if (!loom_expect(p, LOOM_TOKEN_LANGLE) || !loom_expect_word(p, "strides") ||
      !loom_expect(p, LOOM_TOKEN_EQUAL) ||
      !loom_expect(p, LOOM_TOKEN_LBRACKET)) {
    return false;
  }
  do {
    /* Static parameters are literals; upstream passes SSA values in a
     * separate {name = %v : T} dictionary. */
    if (!loom_is(p, LOOM_TOKEN_INTEGER)) return loom_expected(p, "a stride");
    if (!loom_parse_index_into(p, c->op)) return false;
  } while (loom_accept(p, LOOM_TOKEN_COMMA));
  return loom_expect(p, LOOM_TOKEN_RBRACKET) &&
         loom_expect(p, LOOM_TOKEN_RANGLE) &&
         loom_define_result(p, c, LOOM_TYPE_LAYOUT);
}

static bool loom_shape_layout_strided(loom_parser_t* p, loom_op_ctx_t* c) {
  if (strcmp(c->def->name, "encoding.define") == 0) {
    return loom_shape_encoding_define(p, c);
  }
  return loom_parse_indices(p, c->op) && loom_shape_nullary(p, c);
}

typedef bool (*loom_shape_fn)(loom_parser_t* p, loom_op_ctx_t* c);

static const loom_shape_fn loom_shape_parsers[] = {
    [LOOM_SHAPE_CONSTANT] = loom_shape_constant,
    [LOOM_SHAPE_NARY] = loom_shape_nary,
    [LOOM_SHAPE_COMPARE] = loom_shape_compare,
    [LOOM_SHAPE_CAST] = loom_shape_cast,
    [LOOM_SHAPE_NULLARY] = loom_shape_nullary,
    [LOOM_SHAPE_CONFIG_GET] = loom_shape_config_get,
    [LOOM_SHAPE_ASSUME] = loom_shape_assume,
    [LOOM_SHAPE_MEMORY_SPACE] = loom_shape_unary,
    [LOOM_SHAPE_NOALIAS] = loom_shape_noalias,
    [LOOM_SHAPE_BUFFER_VIEW] = loom_shape_buffer_view,
    [LOOM_SHAPE_LOAD] = loom_shape_load,
    [LOOM_SHAPE_STORE] = loom_shape_store,
    [LOOM_SHAPE_RMW] = loom_shape_store,
    [LOOM_SHAPE_EXTRACT] = loom_shape_extract,
    [LOOM_SHAPE_INSERT] = loom_shape_insert,
    [LOOM_SHAPE_SPLAT] = loom_shape_nary,
    [LOOM_SHAPE_VECTOR_REDUCE] = loom_shape_vector_reduce,
    [LOOM_SHAPE_SCALE] = loom_shape_scale,
    [LOOM_SHAPE_SHUFFLE] = loom_shape_shuffle,
    [LOOM_SHAPE_REDUCE] = loom_shape_reduce,
    [LOOM_SHAPE_SYNC] = loom_shape_sync,
    [LOOM_SHAPE_ALLOCA] = loom_shape_alloca,
    [LOOM_SHAPE_LAUNCH_CONFIG] = loom_shape_launch_config,
    [LOOM_SHAPE_TERMINATOR] = loom_shape_terminator,
    [LOOM_SHAPE_SELECT] = loom_shape_select,
    [LOOM_SHAPE_IF] = loom_shape_if,
    [LOOM_SHAPE_FOR] = loom_shape_for,
    [LOOM_SHAPE_WHILE] = loom_shape_while,
    [LOOM_SHAPE_CALL] = loom_shape_call,
    [LOOM_SHAPE_LAYOUT_STRIDED] = loom_shape_layout_strided,
    [LOOM_SHAPE_KERNEL_LAUNCH] = loom_shape_kernel_launch,
    [LOOM_SHAPE_CHECK_EXPECT] = loom_shape_check_expect,
    [LOOM_SHAPE_CHECK_SOURCE] = loom_shape_check_source,
    [LOOM_SHAPE_IOTA] = loom_shape_iota,
    [LOOM_SHAPE_DOT] = loom_shape_dot,
    [LOOM_SHAPE_BITS] = loom_shape_bits,
    [LOOM_SHAPE_FRAGMENT] = loom_shape_fragment,
    [LOOM_SHAPE_FRAGMENT_LOAD] = loom_shape_fragment_load,
    [LOOM_SHAPE_FRAGMENT_STORE] = loom_shape_fragment_store,
    [LOOM_SHAPE_LAYOUT] = loom_shape_layout,
    [LOOM_SHAPE_LANE_LOAD] = loom_shape_lane_access,
    [LOOM_SHAPE_LANE_STORE] = loom_shape_lane_access,
    [LOOM_SHAPE_REDUCE_AXES] = loom_shape_reduce_axes,
};

static bool loom_parse_op(loom_parser_t* p) {
  loom_module_t* m = p->module;
  loom_op_ctx_t c = {0};
  loom_token_t first = p->token;
  /* %a, %b = */
  if (loom_is(p, LOOM_TOKEN_VALUE_ID)) {
    do {
      if (!loom_is(p, LOOM_TOKEN_VALUE_ID)) return loom_expected(p, "%result");
      if (c.result_count == LOOM_MAX_RESULTS) {
        return loom_error_here(p, HRX_LOOM_DIAG_RESULT_COUNT, NULL, 0,
                               "too many results (limit 64)");
      }
      c.results[c.result_count++] = p->token;
      loom_advance(p);
    } while (loom_accept(p, LOOM_TOKEN_COMMA));
    if (!loom_expect(p, LOOM_TOKEN_EQUAL)) return false;
  }
  if (!loom_is(p, LOOM_TOKEN_IDENT)) return loom_expected(p, "an op name");
  loom_token_t name = p->token;
  uint32_t opcode = loom_op_lookup(loom_text(p, name), name.length);
  if (opcode == LOOM_NONE) {
    char text[64];
    snprintf(text, sizeof(text), "%.*s",
             (int)(name.length > 60 ? 60 : name.length), loom_text(p, name));
    hrx_loom_diag_param_t params[] = {{"op", text}};
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(name),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_UNKNOWN_OP, params,
                   1, "unknown op '%s'", text);
    return false;
  }
  c.def = &loom_op_defs[opcode];
  loom_advance(p);
  LOOM_TRY(p, loom_array_grow(&m->ops, m->allocator, sizeof(loom_op_t), 1,
                              &c.op));
  loom_op_t* op = &LOOM_OP(m, c.op);
  op->opcode = (uint16_t)opcode;
  op->region = p->region;
  op->symbol = LOOM_NONE;
  op->ref = LOOM_NONE;
  for (int k = 0; k < LOOM_ATTR_KEY_COUNT; ++k) op->attrs[k] = -1;
  op->span = (loom_span_t){first.offset, name.offset + name.length -
                                             first.offset};
  uint32_t pending = 0;
  LOOM_TRY(p, loom_array_grow(&p->pending, m->allocator, sizeof(uint32_t), 1,
                              &pending));
  LOOM_AT(p->pending, uint32_t, pending) = c.op;

  if (!loom_parse_enum_param(p, c.def, &LOOM_OP(m, c.op))) return false;
  if (!loom_shape_parsers[c.def->shape](p, &c)) return false;

  op = &LOOM_OP(m, c.op);
  if (c.result_count != c.result_type_count) {
    char expected[16], actual[16];
    snprintf(expected, sizeof(expected), "%u", c.result_type_count);
    snprintf(actual, sizeof(actual), "%u", c.result_count);
    hrx_loom_diag_param_t params[] = {{"expected", expected},
                                      {"actual", actual}};
    loom_diag_emit(p->diagnostics, p->source, op->span,
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_RESULT_COUNT, params,
                   2, "%s produces %u result%s, %u named", c.def->name,
                   c.result_type_count, c.result_type_count == 1 ? "" : "s",
                   c.result_count);
    return false;
  }
  op->results_start = m->values.count;
  op->result_count = c.result_count;
  for (uint32_t i = 0; i < c.result_count; ++i) {
    if (!loom_define_value(p, c.results[i], c.result_types[i], c.op, NULL)) {
      return false;
    }
  }
  return true;
}

/*===------------------------------------------------------------------===*/
/* Top level                                                               */
/*===------------------------------------------------------------------===*/

bool loom_symbol_taken(loom_parser_t* p, loom_token_t token,
                              const char* symbol) {
  loom_module_t* m = p->module;
  bool taken = loom_module_find_target(m, symbol) != LOOM_NONE ||
               loom_module_find_func(m, symbol) != LOOM_NONE ||
               loom_module_find_kernel(m, symbol) != LOOM_NONE ||
               loom_module_find_record(m, symbol) != LOOM_NONE;
  if (taken) {
    hrx_loom_diag_param_t params[] = {{"symbol", symbol}};
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_REDEFINED_SYMBOL,
                   params, 1, "redefinition of @%s", symbol);
  }
  return taken;
}

/* A kernel's code-object name (export name, else symbol) must be unique
 * and fit the code object; |token| is where the name is written. */
static bool loom_code_name_free(loom_parser_t* p, const loom_kernel_t* kernel,
                                loom_token_t token) {
  loom_module_t* m = p->module;
  const char* name = loom_kernel_code_name(m, kernel);
  hrx_loom_diag_param_t params[] = {{"symbol", name}};
  uint32_t other = loom_module_find_code_name(m, name);
  if (other != LOOM_NONE) {
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_DUPLICATE_EXPORT,
                   params, 1, "export \"%s\" is already used by @%s", name,
                   loom_module_string(m, LOOM_KERNEL(m, other).symbol));
    return false;
  }
  if (strlen(name) > HRX_LOOM_MAX_KERNEL_NAME) {
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_MODULE_LIMIT,
                   params, 1,
                   "kernel name of %zu bytes exceeds the code object's "
                   "limit of %d", strlen(name), HRX_LOOM_MAX_KERNEL_NAME);
    return false;
  }
  return true;
}

bool loom_parse_symbol(loom_parser_t* p, uint32_t* out_symbol,
                              loom_token_t* out_token) {
  if (!loom_is(p, LOOM_TOKEN_SYMBOL)) return loom_expected(p, "an @symbol");
  if (out_token) *out_token = p->token;
  LOOM_TRY(p, loom_module_intern(p->module, loom_text(p, p->token) + 1,
                                 p->token.length - 1, out_symbol));
  loom_advance(p);
  return true;
}

/* |open| ... |close| (nested pairs balanced) kept as written, starting at
 * the current |open| token. */
static bool loom_parse_balanced(loom_parser_t* p, loom_token_kind_t open,
                                loom_token_kind_t close,
                                const char* expected_close,
                                uint32_t* out_text) {
  uint32_t begin = p->token.offset, depth = 0;
  do {
    if (loom_is(p, LOOM_TOKEN_EOF) || loom_is(p, LOOM_TOKEN_ERROR)) {
      return loom_expected(p, expected_close);
    }
    if (loom_is(p, open)) depth++;
    if (loom_is(p, close)) depth--;
    if (depth == 0) break;
    loom_advance(p);
  } while (true);
  uint32_t end = p->token.offset + p->token.length;
  loom_advance(p);
  LOOM_TRY(p, loom_module_intern(p->module, p->source->text + begin,
                                 end - begin, out_text));
  return true;
}

/* '{' ... '}' kept as written: attributes of records HRX prints back but
 * does not interpret. */
bool loom_parse_balanced_text(loom_parser_t* p, uint32_t* out_text) {
  return loom_parse_balanced(p, LOOM_TOKEN_LBRACE, LOOM_TOKEN_RBRACE, "'}'",
                             out_text);
}

/* A top-level word naming some other target family: spirv.target. */
static bool loom_is_other_target(const loom_parser_t* p) {
  static const char suffix[] = ".target";
  size_t n = sizeof(suffix) - 1;
  return p->token.kind == LOOM_TOKEN_IDENT && p->token.length > n &&
         memcmp(loom_text(p, p->token) + p->token.length - n, suffix, n) == 0;
}

/* amdgpu.target<gfx11-generic> @t {subgroup_size = 32}
 * host.target<cpu> @t {subgroup_size = 32} */
static bool loom_parse_target(loom_parser_t* p, loom_target_family_t family) {
  loom_module_t* m = p->module;
  loom_target_t target = {.family = family, .family_name = LOOM_NONE,
                          .attrs_text = LOOM_NONE,
                          .span = loom_token_span(p->token)};
  if (family == LOOM_TARGET_OTHER) {
    LOOM_TRY(p, loom_module_intern(m, loom_text(p, p->token),
                                   p->token.length - strlen(".target"),
                                   &target.family_name));
  }
  loom_advance(p);
  if (!loom_expect(p, LOOM_TOKEN_LANGLE)) return false;
  if (!loom_is(p, LOOM_TOKEN_IDENT)) return loom_expected(p, "a target kind");
  loom_token_t kind = p->token;
  LOOM_TRY(p, loom_module_intern(m, loom_text(p, kind), kind.length,
                                 &target.kind));
  loom_advance(p);
  if (!loom_expect(p, LOOM_TOKEN_RANGLE)) return false;
  loom_token_t symbol_token = {0};
  if (!loom_parse_symbol(p, &target.symbol, &symbol_token)) return false;
  if (loom_symbol_taken(p, symbol_token,
                        loom_module_string(m, target.symbol))) {
    return false;
  }
  if (family == LOOM_TARGET_OTHER) {
    if (loom_is(p, LOOM_TOKEN_LBRACE) &&
        !loom_parse_balanced_text(p, &target.attrs_text)) {
      return false;
    }
    LOOM_TRY(p, loom_module_add_target(m, &target));
    return true;
  }
  if (loom_accept(p, LOOM_TOKEN_LBRACE)) {
    if (!loom_accept(p, LOOM_TOKEN_RBRACE)) {
      do {
        if (!loom_is_word(p, "subgroup_size")) {
          return loom_error_here(p, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                                 "unknown target attribute (expected "
                                 "subgroup_size)");
        }
        if (target.subgroup_size) {
          return loom_error_here(p, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                                 "attribute 'subgroup_size' is given twice");
        }
        loom_advance(p);
        if (!loom_expect(p, LOOM_TOKEN_EQUAL)) return false;
        loom_token_t at = p->token;
        if (!loom_parse_int(p, &target.subgroup_size)) return false;
        if (target.subgroup_size != 32 && target.subgroup_size != 64) {
          loom_diag_emit(p->diagnostics, p->source, loom_token_span(at),
                         HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_TARGET,
                         NULL, 0, "subgroup_size must be 32 or 64");
        }
      } while (loom_accept(p, LOOM_TOKEN_COMMA));
      if (!loom_expect(p, LOOM_TOKEN_RBRACE)) return false;
    }
  }
  LOOM_TRY(p, loom_module_add_target(m, &target));
  return true;
}

/* config.decl @sym : T
 * config.decl @sym : %v: T where [preds] */
static bool loom_parse_config_decl(loom_parser_t* p) {
  loom_module_t* m = p->module;
  loom_config_decl_t decl = {.value_name = LOOM_NONE,
                             .span = loom_token_span(p->token)};
  loom_advance(p);
  loom_token_t symbol_token = {0};
  if (!loom_parse_symbol(p, &decl.symbol, &symbol_token) ||
      !loom_expect(p, LOOM_TOKEN_COLON)) {
    return false;
  }
  if (loom_module_find_config(m, loom_module_string(m, decl.symbol)) !=
      LOOM_NONE) {
    hrx_loom_diag_param_t params[] = {
        {"symbol", loom_module_string(m, decl.symbol)}};
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(symbol_token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_REDEFINED_SYMBOL,
                   params, 1, "config @%s declared twice",
                   loom_module_string(m, decl.symbol));
    return false;
  }
  if (loom_is(p, LOOM_TOKEN_VALUE_ID)) {
    /* The bound value lives in its own tiny scope for the predicates. */
    loom_token_t name = p->token;
    loom_advance(p);
    if (!loom_expect(p, LOOM_TOKEN_COLON) ||
        !loom_parse_type(p, &decl.type)) {
      return false;
    }
    uint32_t mark = p->undo.count;
    uint32_t value = 0;
    bool ok = loom_define_value(p, name, decl.type, LOOM_NONE, &value);
    decl.value_name = value;
    if (ok) ok = loom_expect_word(p, "where");
    if (ok) ok = loom_parse_preds(p, &decl.preds_start, &decl.pred_count);
    loom_scope_restore(p, mark);
    if (!ok) return false;
  } else if (!loom_parse_type(p, &decl.type)) {
    return false;
  }
  LOOM_TRY(p, loom_module_add_config(m, &decl, NULL));
  return true;
}

/* config.def @sym = literal : T  (a default for a declared config) */
static bool loom_parse_config_def(loom_parser_t* p) {
  loom_module_t* m = p->module;
  loom_span_t span = loom_token_span(p->token);
  loom_advance(p);
  uint32_t symbol = 0;
  loom_token_t symbol_token = {0};
  loom_literal_t literal;
  loom_type_id_t type = 0;
  if (!loom_parse_symbol(p, &symbol, &symbol_token) ||
      !loom_expect(p, LOOM_TOKEN_EQUAL) || !loom_parse_literal(p, &literal) ||
      !loom_colon_type(p, &type)) {
    return false;
  }
  uint32_t index = loom_module_find_config(m, loom_module_string(m, symbol));
  if (index == LOOM_NONE) {
    loom_config_decl_t decl = {.symbol = symbol, .type = type,
                               .value_name = LOOM_NONE, .span = span};
    LOOM_TRY(p, loom_module_add_config(m, &decl, &index));
  }
  loom_config_decl_t* decl = &LOOM_CONFIG(m, index);
  if (decl->has_default) {
    hrx_loom_diag_param_t params[] = {{"symbol", loom_module_string(m, symbol)}};
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(symbol_token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_REDEFINED_SYMBOL,
                   params, 1, "config @%s defined twice",
                   loom_module_string(m, symbol));
    return false;
  }
  if (decl->type != type) {
    loom_diag_emit(p->diagnostics, p->source, span, HRX_LOOM_SEVERITY_ERROR,
                   HRX_LOOM_DIAG_TYPE_MISMATCH, NULL, 0,
                   "config.def type differs from the declaration");
    return false;
  }
  decl->has_default = true;
  decl->default_value = literal;
  decl->default_span = span;
  return true;
}

static bool loom_parse_target_ref(loom_parser_t* p, uint32_t* out_target) {
  if (!loom_expect(p, LOOM_TOKEN_LPAREN)) return false;
  if (!loom_is(p, LOOM_TOKEN_SYMBOL)) return loom_expected(p, "@target");
  loom_token_t token = p->token;
  char name[128];
  snprintf(name, sizeof(name), "%.*s",
           (int)(token.length - 1 > 120 ? 120 : token.length - 1),
           loom_text(p, token) + 1);
  uint32_t target = loom_module_find_target(p->module, name);
  if (target == LOOM_NONE) {
    hrx_loom_diag_param_t params[] = {{"symbol", name}};
    loom_diag_emit(p->diagnostics, p->source, loom_token_span(token),
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_UNDEFINED_SYMBOL,
                   params, 1, "unknown target @%s", name);
    return false;
  }
  *out_target = target;
  loom_advance(p);
  return loom_expect(p, LOOM_TOKEN_RPAREN);
}

/* Parses a top-level region whose arguments are declared in parentheses. */
bool loom_parse_top_region(loom_parser_t* p,
                                  const loom_region_arg_t* args,
                                  uint32_t arg_count, uint32_t* out_region) {
  p->region = LOOM_NONE;
  bool ok = loom_parse_region(p, LOOM_NONE, args, arg_count, out_region);
  p->region = LOOM_NONE;
  return ok;
}

/* The words before a kernel's symbol: [retain] [target(@t)]
 * [export("name")], shared by kernel.def and kernel.decl. */
static bool loom_parse_kernel_head(loom_parser_t* p, loom_kernel_t* kernel,
                                   loom_token_t* out_export_token) {
  for (;;) {
    if (loom_is_word(p, "retain")) {
      loom_advance(p);
      kernel->retain = true;
    } else if (loom_is_word(p, "target")) {
      loom_advance(p);
      if (!loom_parse_target_ref(p, &kernel->target)) return false;
    } else if (loom_is_word(p, "export")) {
      loom_advance(p);
      if (!loom_expect(p, LOOM_TOKEN_LPAREN)) return false;
      if (!loom_is(p, LOOM_TOKEN_STRING)) return loom_expected(p, "a string");
      *out_export_token = p->token;
      if (p->token.length < 3) {
        return loom_error_here(p, HRX_LOOM_DIAG_BAD_ATTRIBUTE, NULL, 0,
                               "export name must not be empty");
      }
      LOOM_TRY(p, loom_module_intern(p->module, loom_text(p, p->token) + 1,
                                     p->token.length - 2,
                                     &kernel->export_name));
      loom_advance(p);
      if (!loom_expect(p, LOOM_TOKEN_RPAREN)) return false;
    } else {
      return true;
    }
  }
}

/* launch(%a: T, ...) [where [preds]]: the launch arguments become a new
 * region's arguments, in scope for the predicates; on success the region
 * is left open for the caller (its scope mark and pending mark out). */
static bool loom_parse_launch_sig(loom_parser_t* p, loom_kernel_t* kernel,
                                  uint32_t* out_scope_mark,
                                  uint32_t* out_pending_mark) {
  loom_region_arg_t args[64];
  uint32_t arg_count = 0;
  if (!loom_expect_word(p, "launch") ||
      !loom_parse_arg_decls(p, args, 64, &arg_count)) {
    return false;
  }
  p->region = LOOM_NONE;
  if (!loom_region_begin(p, LOOM_NONE, args, arg_count, &kernel->body_region,
                         out_scope_mark, out_pending_mark)) {
    return false;
  }
  kernel->preds_start = p->module->preds.count;
  if (loom_is_word(p, "where")) {
    loom_advance(p);
    if (!loom_parse_preds(p, &kernel->preds_start, &kernel->pred_count)) {
      loom_scope_restore(p, *out_scope_mark);
      return false;
    }
  }
  return true;
}

static bool loom_parse_kernel(loom_parser_t* p) {
  loom_module_t* m = p->module;
  loom_kernel_t kernel = {.export_name = LOOM_NONE, .target = LOOM_NONE,
                          .config_region = LOOM_NONE,
                          .body_region = LOOM_NONE,
                          .span = loom_token_span(p->token)};
  loom_token_t export_token = {0};
  loom_advance(p);
  if (!loom_parse_kernel_head(p, &kernel, &export_token)) return false;
  loom_token_t symbol_token = {0};
  if (!loom_parse_symbol(p, &kernel.symbol, &symbol_token)) return false;
  if (loom_symbol_taken(p, symbol_token,
                        loom_module_string(m, kernel.symbol)) ||
      !loom_code_name_free(p, &kernel,
                           kernel.export_name != LOOM_NONE ? export_token
                                                           : symbol_token)) {
    return false;
  }
  loom_region_arg_t args[64];
  uint32_t arg_count = 0, scope_mark = 0, pending_mark = 0;
  if (!loom_parse_arg_decls(p, args, 64, &arg_count) ||
      !loom_parse_top_region(p, args, arg_count, &kernel.config_region) ||
      !loom_parse_launch_sig(p, &kernel, &scope_mark, &pending_mark)) {
    return false;
  }
  bool ok = loom_region_body(p, kernel.body_region, scope_mark, pending_mark);
  p->region = LOOM_NONE;
  if (!ok) return false;
  LOOM_TRY(p, loom_module_add_kernel(m, &kernel));
  return true;
}

/* kernel.decl [retain] [target(@t)] [export("name")] @k(workload)
 * launch(args) [where [preds]]: a kernel defined elsewhere. */
static bool loom_parse_kernel_decl(loom_parser_t* p) {
  loom_module_t* m = p->module;
  loom_kernel_t kernel = {.export_name = LOOM_NONE, .target = LOOM_NONE,
                          .span = loom_token_span(p->token)};
  loom_token_t export_token = {0}, symbol_token = {0};
  loom_advance(p);
  if (!loom_parse_kernel_head(p, &kernel, &export_token) ||
      !loom_parse_symbol(p, &kernel.symbol, &symbol_token) ||
      loom_symbol_taken(p, symbol_token,
                        loom_module_string(m, kernel.symbol))) {
    return false;
  }
  loom_region_arg_t args[64];
  uint32_t arg_count = 0, scope_mark = 0, pending_mark = 0;
  p->region = LOOM_NONE;
  if (!loom_parse_arg_decls(p, args, 64, &arg_count) ||
      !loom_region_begin(p, LOOM_NONE, args, arg_count, &kernel.config_region,
                         &scope_mark, &pending_mark)) {
    return false;
  }
  loom_scope_restore(p, scope_mark);
  if (!loom_parse_launch_sig(p, &kernel, &scope_mark, &pending_mark)) {
    return false;
  }
  loom_scope_restore(p, scope_mark);
  loom_record_t record = {
      .kind = LOOM_RECORD_KERNEL_DECL, .symbol = kernel.symbol,
      .retain = kernel.retain, .target = kernel.target,
      .export_name = kernel.export_name,
      .regions = {kernel.config_region, kernel.body_region},
      .preds_start = kernel.preds_start, .pred_count = kernel.pred_count,
      .ref = LOOM_NONE, .text = LOOM_NONE, .span = kernel.span};
  LOOM_TRY(p, loom_module_add_record(m, &record));
  return true;
}

/* #name = attribute: the rest of the line, kept as written; a layout
 * position resolves it (see loom_alias_is_dense). */
static bool loom_parse_alias(loom_parser_t* p) {
  loom_module_t* m = p->module;
  loom_token_t name = p->token;
  loom_record_t record = {.kind = LOOM_RECORD_ALIAS, .target = LOOM_NONE,
                          .export_name = LOOM_NONE,
                          .regions = {LOOM_NONE, LOOM_NONE},
                          .ref = LOOM_NONE, .span = loom_token_span(name)};
  LOOM_TRY(p, loom_module_intern(m, loom_text(p, name), name.length,
                                 &record.symbol));
  if (loom_module_find_record(m, loom_module_string(m, record.symbol)) !=
      LOOM_NONE) {
    hrx_loom_diag_param_t params[] = {
        {"symbol", loom_module_string(m, record.symbol)}};
    return loom_error_here(p, HRX_LOOM_DIAG_REDEFINED_SYMBOL, params, 1,
                           "attribute alias defined twice");
  }
  loom_advance(p);
  if (!loom_expect(p, LOOM_TOKEN_EQUAL)) return false;
  if (loom_is(p, LOOM_TOKEN_EOF) || p->token.line_start) {
    return loom_expected(p, "an attribute value");
  }
  uint32_t begin = p->token.offset, end = begin;
  while (!loom_is(p, LOOM_TOKEN_EOF) && !loom_is(p, LOOM_TOKEN_ERROR) &&
         (p->token.offset == begin || !p->token.line_start)) {
    end = p->token.offset + p->token.length;
    loom_advance(p);
  }
  if (loom_is(p, LOOM_TOKEN_ERROR)) return false;
  LOOM_TRY(p, loom_module_intern(m, p->source->text + begin, end - begin,
                                 &record.text));
  LOOM_TRY(p, loom_module_add_record(m, &record));
  return true;
}

/* abi(KIND): the calling contract a function is exported under. */
static bool loom_parse_abi(loom_parser_t* p, uint32_t* out_abi) {
  if (!loom_expect(p, LOOM_TOKEN_LPAREN)) return false;
  if (!loom_is(p, LOOM_TOKEN_IDENT)) return loom_expected(p, "an ABI kind");
  LOOM_TRY(p, loom_module_intern(p->module, loom_text(p, p->token),
                                 p->token.length, out_abi));
  loom_advance(p);
  return loom_expect(p, LOOM_TOKEN_RPAREN);
}

/* requires [...]: kept as written; template_resolve.c reads it. */
static bool loom_parse_requires(loom_parser_t* p, uint32_t* out_text) {
  if (!loom_is(p, LOOM_TOKEN_LBRACKET)) return loom_expected(p, "'['");
  return loom_parse_balanced(p, LOOM_TOKEN_LBRACKET, LOOM_TOKEN_RBRACKET,
                             "']'", out_text);
}

/* template.def<@family> / func.template<contract.key>: what an
 * implementation implements. */
static bool loom_parse_implements(loom_parser_t* p, loom_func_t* func) {
  bool family = func->flags & LOOM_FUNC_TEMPLATE_DEF;
  if (!loom_expect(p, LOOM_TOKEN_LANGLE)) return false;
  if (!loom_is(p, family ? LOOM_TOKEN_SYMBOL : LOOM_TOKEN_IDENT)) {
    return loom_expected(p, family ? "an @family" : "a contract key");
  }
  uint32_t skip = family ? 1 : 0;
  LOOM_TRY(p, loom_module_intern(p->module, loom_text(p, p->token) + skip,
                                 p->token.length - skip, &func->family));
  loom_advance(p);
  return loom_expect(p, LOOM_TOKEN_RANGLE);
}

/* priority(N) */
static bool loom_parse_priority(loom_parser_t* p, loom_func_t* func) {
  func->has_priority = true;
  return loom_expect(p, LOOM_TOKEN_LPAREN) &&
         loom_parse_int(p, &func->priority) &&
         loom_expect(p, LOOM_TOKEN_RPAREN);
}

/* func.def|func.decl|template.decl [modifier]* [target(@t)] [abi(KIND)]
 * [requires [...]] @f(%a: T) [-> (T)], then for func.def { ... func.return
 * ... }; template.def<@family> and func.template<key> also take
 * priority(N) and a body ending in template.return / func.return. */
static bool loom_parse_func(loom_parser_t* p) {
  loom_module_t* m = p->module;
  loom_func_t func = {.target = LOOM_NONE, .abi = LOOM_NONE,
                      .family = LOOM_NONE, .requires = LOOM_NONE,
                      .span = loom_token_span(p->token)};
  if (loom_is_word(p, "func.decl")) func.flags |= LOOM_FUNC_DECL;
  if (loom_is_word(p, "template.decl")) {
    func.flags |= LOOM_FUNC_DECL | LOOM_FUNC_TEMPLATE_DECL;
  }
  if (loom_is_word(p, "template.def")) func.flags |= LOOM_FUNC_TEMPLATE_DEF;
  if (loom_is_word(p, "func.template")) func.flags |= LOOM_FUNC_PROVIDER;
  loom_advance(p);
  if ((func.flags & (LOOM_FUNC_TEMPLATE_DEF | LOOM_FUNC_PROVIDER)) &&
      !loom_parse_implements(p, &func)) {
    return false;
  }
  bool templated = func.flags & (LOOM_FUNC_TEMPLATE_DECL |
                                 LOOM_FUNC_TEMPLATE_DEF | LOOM_FUNC_PROVIDER);
  for (bool more = true; more;) {
    more = false;
    for (uint32_t i = 0; i < loom_func_modifier_count; ++i) {
      if (loom_is_word(p, loom_func_modifiers[i].word)) {
        func.flags |= loom_func_modifiers[i].flag;
        loom_advance(p);
        more = true;
      }
    }
    if (loom_is_word(p, "target")) {
      loom_advance(p);
      if (!loom_parse_target_ref(p, &func.target)) return false;
      more = true;
    } else if (loom_is_word(p, "abi")) {
      loom_advance(p);
      if (!loom_parse_abi(p, &func.abi)) return false;
      more = true;
    } else if (templated && loom_is_word(p, "requires") &&
               func.requires == LOOM_NONE) {
      loom_advance(p);
      if (!loom_parse_requires(p, &func.requires)) return false;
      more = true;
    } else if (templated && !(func.flags & LOOM_FUNC_TEMPLATE_DECL) &&
               loom_is_word(p, "priority") && !func.has_priority) {
      loom_advance(p);
      if (!loom_parse_priority(p, &func)) return false;
      more = true;
    }
  }
  loom_token_t symbol_token = {0};
  if (!loom_parse_symbol(p, &func.symbol, &symbol_token)) return false;
  if (loom_symbol_taken(p, symbol_token, loom_module_string(m, func.symbol))) {
    return false;
  }
  /* Parameters are defined one by one, so a later parameter's type may
   * name an earlier one: @f(%n: index, %v: view<[%n]xf32>). */
  uint32_t body = 0, scope_mark = 0, pending_mark = 0;
  if (!loom_region_begin(p, LOOM_NONE, NULL, 0, &body, &scope_mark,
                         &pending_mark)) {
    return false;
  }
  p->region = body;
  bool ok = loom_expect(p, LOOM_TOKEN_LPAREN);
  uint32_t arg_count = 0;
  if (ok && !loom_accept(p, LOOM_TOKEN_RPAREN)) {
    do {
      loom_token_t name = p->token;
      loom_type_id_t type = 0;
      ok = loom_is(p, LOOM_TOKEN_VALUE_ID) ? (loom_advance(p), true)
                                           : loom_expected(p, "a %name");
      ok = ok && loom_expect(p, LOOM_TOKEN_COLON) &&
           loom_parse_type(p, &type) &&
           loom_define_value(p, name, type, LOOM_NONE, NULL);
      arg_count += ok;
    } while (ok && loom_accept(p, LOOM_TOKEN_COMMA));
    ok = ok && loom_expect(p, LOOM_TOKEN_RPAREN);
  }
  LOOM_REGION(m, body).arg_count = arg_count;
  p->region = LOOM_NONE;
  func.results_start = m->type_lists.count;
  if (ok && loom_accept(p, LOOM_TOKEN_ARROW)) {
    ok = loom_parse_paren_types(p, &func.results_start, &func.result_count);
  }
  if (!ok) {
    loom_scope_restore(p, scope_mark);
    return false;
  }
  /* Register before the body so the body may name itself (the verifier
   * then reports the recursion). */
  func.body_region = body;
  LOOM_TRY(p, loom_module_add_func(m, &func));
  if (func.flags & LOOM_FUNC_DECL) {
    loom_scope_restore(p, scope_mark);
    return true;
  }
  return loom_region_body(p, body, scope_mark, pending_mark);
}

/* The words that start a function-like top-level entity. */
static bool loom_is_func_word(const loom_parser_t* p) {
  return loom_is_word(p, "func.def") || loom_is_word(p, "func.decl") ||
         loom_is_word(p, "func.template") ||
         loom_is_word(p, "template.decl") || loom_is_word(p, "template.def");
}

static bool loom_parse_top(loom_parser_t* p) {
  if (loom_is_word(p, "amdgpu.target")) {
    return loom_parse_target(p, LOOM_TARGET_AMDGPU);
  }
  if (loom_is_word(p, "host.target")) {
    return loom_parse_target(p, LOOM_TARGET_HOST);
  }
  if (loom_is_other_target(p)) return loom_parse_target(p, LOOM_TARGET_OTHER);
  if (loom_is_word(p, "config.decl")) return loom_parse_config_decl(p);
  if (loom_is_word(p, "config.def")) return loom_parse_config_def(p);
  if (loom_is_word(p, "kernel.def")) return loom_parse_kernel(p);
  if (loom_is_word(p, "kernel.decl")) return loom_parse_kernel_decl(p);
  if (loom_is(p, LOOM_TOKEN_ATTR)) return loom_parse_alias(p);
  if (loom_is_check_record(p)) return loom_parse_check_record(p);
  if (loom_is_func_word(p)) return loom_parse_func(p);
  if (p->token.kind == LOOM_TOKEN_ERROR) return false;
  hrx_loom_diag_param_t params[] = {
      {"expected", "a target, config.decl, config.def, kernel.def, "
                   "kernel.decl, func.*, template.*, #alias or check.*"}};
  return loom_error_here(p, HRX_LOOM_DIAG_UNKNOWN_TOP_LEVEL, params, 1,
                         "expected a top-level declaration (a target, "
                         "config.decl, config.def, kernel.def, kernel.decl, "
                         "func.def, func.decl, func.template, "
                         "template.decl, template.def, #alias or check.*)");
}

hrx_status_t loom_parse_module(loom_module_t* module,
                               hrx_loom_diagnostics_t* diagnostics);

hrx_status_t loom_parse_module(loom_module_t* module,
                               hrx_loom_diagnostics_t* diagnostics) {
  loom_parser_t p = {.module = module,
                     .source = &module->source,
                     .diagnostics = diagnostics,
                     .region = LOOM_NONE};
  size_t errors_before = hrx_loom_diagnostics_error_count(diagnostics);
  loom_lexer_init(&p.lexer, p.source, diagnostics);
  loom_advance(&p);
  while (!loom_is(&p, LOOM_TOKEN_EOF) && !loom_stopped(&p) &&
         !loom_diag_full(diagnostics)) {
    if (!loom_parse_top(&p)) {
      if (loom_stopped(&p)) break;
      /* Skip to the next top-level keyword at a line start. */
      loom_advance(&p);
      uint32_t depth = 0;
      while (!loom_is(&p, LOOM_TOKEN_EOF)) {
        if (loom_is(&p, LOOM_TOKEN_LBRACE)) depth++;
        if (loom_is(&p, LOOM_TOKEN_RBRACE) && depth) depth--;
        if (depth == 0 && p.token.line_start &&
            (loom_is_word(&p, "kernel.def") || loom_is_func_word(&p) ||
             loom_is_word(&p, "kernel.decl") ||
             loom_is_word(&p, "config.decl") ||
             loom_is_word(&p, "config.def") || loom_is_other_target(&p) ||
             loom_is_word(&p, "amdgpu.target") ||
             loom_is_word(&p, "host.target") || loom_is_check_record(&p) ||
             loom_is(&p, LOOM_TOKEN_ATTR))) {
          break;
        }
        loom_advance(&p);
      }
    }
  }
  hrx_allocator_free(module->allocator, p.slots);
  loom_array_free(&p.undo, module->allocator);
  loom_array_free(&p.pending, module->allocator);
  /* Applications name implementations anywhere in the module, so they are
   * resolved once it is complete (and only when it parsed cleanly: a
   * failed op may be half built). */
  if (p.status == HRX_OK &&
      hrx_loom_diagnostics_error_count(diagnostics) == errors_before) {
    p.status = loom_templates_resolve(module, diagnostics);
  }
  return p.status;
}
