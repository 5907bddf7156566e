#include "lexer.h"

#include <ctype.h>

#include "hrx/core/escape.h"

void loom_lexer_init(loom_lexer_t* lexer, const loom_source_t* source,
                     hrx_loom_diagnostics_t* diagnostics) {
  lexer->source = source;
  lexer->diagnostics = diagnostics;
  lexer->position = 0;
  lexer->shape_mode = false;
}

const char* loom_token_kind_name(loom_token_kind_t kind) {
  switch (kind) {
    case LOOM_TOKEN_EOF: return "end of file";
    case LOOM_TOKEN_ERROR: return "invalid token";
    case LOOM_TOKEN_VALUE_ID: return "%value";
    case LOOM_TOKEN_SYMBOL: return "@symbol";
    case LOOM_TOKEN_ATTR: return "#attribute";
    case LOOM_TOKEN_IDENT: return "identifier";
    case LOOM_TOKEN_INTEGER: return "integer";
    case LOOM_TOKEN_FLOAT: return "float";
    case LOOM_TOKEN_STRING: return "string";
    case LOOM_TOKEN_LPAREN: return "'('";
    case LOOM_TOKEN_RPAREN: return "')'";
    case LOOM_TOKEN_LBRACE: return "'{'";
    case LOOM_TOKEN_RBRACE: return "'}'";
    case LOOM_TOKEN_LBRACKET: return "'['";
    case LOOM_TOKEN_RBRACKET: return "']'";
    case LOOM_TOKEN_LANGLE: return "'<'";
    case LOOM_TOKEN_RANGLE: return "'>'";
    case LOOM_TOKEN_COMMA: return "','";
    case LOOM_TOKEN_COLON: return "':'";
    case LOOM_TOKEN_EQUAL: return "'='";
    case LOOM_TOKEN_ARROW: return "'->'";
    case LOOM_TOKEN_X: return "'x'";
    case LOOM_TOKEN_PIPE: return "'|'";
  }
  return "token";
}

static char loom_peek(const loom_lexer_t* lexer, uint32_t ahead) {
  uint32_t at = lexer->position + ahead;
  return at < lexer->source->length ? lexer->source->text[at] : '\0';
}

static bool loom_is_name_start(char c) {
  return isalpha((unsigned char)c) || c == '_';
}

static bool loom_is_name_char(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

static loom_token_t loom_make(loom_lexer_t* lexer, loom_token_kind_t kind,
                              uint32_t start) {
  return (loom_token_t){kind, start, lexer->position - start,
                        lexer->line_start};
}

static loom_token_t loom_error(loom_lexer_t* lexer, uint32_t start,
                               hrx_loom_diag_code_t code, const char* what) {
  if (lexer->position == start) lexer->position++;
  loom_diag_emit(lexer->diagnostics, lexer->source,
                 (loom_span_t){start, lexer->position - start},
                 HRX_LOOM_SEVERITY_ERROR, code, NULL, 0, "%s", what);
  return loom_make(lexer, LOOM_TOKEN_ERROR, start);
}

/* A string's bytes become names (exports) that reach C strings, code
 * objects, JSON manifests and terminals, so a string holds valid UTF-8
 * without control characters: a NUL would cut the name short, a control
 * byte could rewrite a terminal, invalid UTF-8 makes invalid JSON. */
static loom_token_t loom_string(loom_lexer_t* lexer, uint32_t start) {
  const uint8_t* text = (const uint8_t*)lexer->source->text;
  uint32_t end = lexer->position - 1; /* the closing quote */
  for (uint32_t i = start + 1; i < end; ++i) {
    /* C1 controls (U+0080..U+009F) are encoded C2 80..C2 9F. */
    bool c1 = text[i] == 0xc2 && i + 1 < end && text[i + 1] >= 0x80 &&
              text[i + 1] <= 0x9f;
    if (text[i] < 0x20 || text[i] == 0x7f || c1) {
      loom_diag_emit(lexer->diagnostics, lexer->source,
                     (loom_span_t){i, c1 ? 2 : 1}, HRX_LOOM_SEVERITY_ERROR,
                     HRX_LOOM_DIAG_BAD_STRING, NULL, 0,
                     "control character %s%02x in a string literal",
                     c1 ? "U+00" : "0x", c1 ? text[i + 1] : text[i]);
      return loom_make(lexer, LOOM_TOKEN_ERROR, start);
    }
  }
  if (!hrx_utf8_valid((const char*)text + start + 1, end - start - 1)) {
    loom_diag_emit(lexer->diagnostics, lexer->source,
                   (loom_span_t){start, lexer->position - start},
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_STRING, NULL,
                   0, "string literal is not valid UTF-8");
    return loom_make(lexer, LOOM_TOKEN_ERROR, start);
  }
  return loom_make(lexer, LOOM_TOKEN_STRING, start);
}

/* Names may contain '-' between alphanumerics (gfx11-generic) but never
 * swallow an arrow (buffer->view). */
static void loom_skip_name(loom_lexer_t* lexer) {
  for (;;) {
    char c = loom_peek(lexer, 0);
    if (loom_is_name_char(c)) {
      lexer->position++;
    } else if (c == '-' && isalnum((unsigned char)loom_peek(lexer, 1))) {
      lexer->position++;
    } else {
      return;
    }
  }
}

static loom_token_t loom_lex_number(loom_lexer_t* lexer, uint32_t start) {
  if (loom_peek(lexer, 0) == '-') lexer->position++;
  if (loom_peek(lexer, 0) == '0' &&
      (loom_peek(lexer, 1) == 'x' || loom_peek(lexer, 1) == 'X') &&
      !lexer->shape_mode) {
    lexer->position += 2;
    uint32_t digits = lexer->position;
    while (isxdigit((unsigned char)loom_peek(lexer, 0))) lexer->position++;
    if (lexer->position == digits) {
      return loom_error(lexer, start, HRX_LOOM_DIAG_BAD_NUMBER,
                        "hexadecimal literal has no digits");
    }
    return loom_make(lexer, LOOM_TOKEN_INTEGER, start);
  }
  while (isdigit((unsigned char)loom_peek(lexer, 0))) lexer->position++;
  if (lexer->shape_mode) return loom_make(lexer, LOOM_TOKEN_INTEGER, start);
  bool is_float = false;
  if (loom_peek(lexer, 0) == '.' && isdigit((unsigned char)loom_peek(lexer, 1))) {
    is_float = true;
    lexer->position++;
    while (isdigit((unsigned char)loom_peek(lexer, 0))) lexer->position++;
  }
  char e = loom_peek(lexer, 0);
  if (e == 'e' || e == 'E') {
    uint32_t at = 1;
    if (loom_peek(lexer, at) == '+' || loom_peek(lexer, at) == '-') ++at;
    if (!isdigit((unsigned char)loom_peek(lexer, at))) {
      lexer->position += at;
      return loom_error(lexer, start, HRX_LOOM_DIAG_BAD_NUMBER,
                        "exponent has no digits");
    }
    is_float = true;
    lexer->position += at;
    while (isdigit((unsigned char)loom_peek(lexer, 0))) lexer->position++;
  }
  if (loom_is_name_start(loom_peek(lexer, 0))) {
    loom_skip_name(lexer);
    return loom_error(lexer, start, HRX_LOOM_DIAG_BAD_NUMBER,
                      "malformed number");
  }
  return loom_make(lexer, is_float ? LOOM_TOKEN_FLOAT : LOOM_TOKEN_INTEGER,
                   start);
}

loom_token_t loom_lexer_next(loom_lexer_t* lexer) {
  const loom_source_t* source = lexer->source;
  lexer->line_start = lexer->position == 0;
  for (;;) {
    char c = loom_peek(lexer, 0);
    if (c == '\n') {
      lexer->line_start = true;
      lexer->position++;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
        c == '\v') {
      lexer->position++;
    } else if (c == '/' && loom_peek(lexer, 1) == '/') {
      while (lexer->position < source->length &&
             source->text[lexer->position] != '\n') {
        lexer->position++;
      }
    } else {
      break;
    }
  }
  uint32_t start = lexer->position;
  if (start >= source->length) return loom_make(lexer, LOOM_TOKEN_EOF, start);
  char c = source->text[start];
  switch (c) {
    case '(': lexer->position++; return loom_make(lexer, LOOM_TOKEN_LPAREN, start);
    case ')': lexer->position++; return loom_make(lexer, LOOM_TOKEN_RPAREN, start);
    case '{': lexer->position++; return loom_make(lexer, LOOM_TOKEN_LBRACE, start);
    case '}': lexer->position++; return loom_make(lexer, LOOM_TOKEN_RBRACE, start);
    case '[': lexer->position++; return loom_make(lexer, LOOM_TOKEN_LBRACKET, start);
    case ']': lexer->position++; return loom_make(lexer, LOOM_TOKEN_RBRACKET, start);
    case '<': lexer->position++; return loom_make(lexer, LOOM_TOKEN_LANGLE, start);
    case '>': lexer->position++; return loom_make(lexer, LOOM_TOKEN_RANGLE, start);
    case ',': lexer->position++; return loom_make(lexer, LOOM_TOKEN_COMMA, start);
    case ':': lexer->position++; return loom_make(lexer, LOOM_TOKEN_COLON, start);
    case '=': lexer->position++; return loom_make(lexer, LOOM_TOKEN_EQUAL, start);
    case '|': lexer->position++; return loom_make(lexer, LOOM_TOKEN_PIPE, start);
    default: break;
  }
  if (c == '-' && loom_peek(lexer, 1) == '>') {
    lexer->position += 2;
    return loom_make(lexer, LOOM_TOKEN_ARROW, start);
  }
  if (lexer->shape_mode && c == 'x') {
    lexer->position++;
    return loom_make(lexer, LOOM_TOKEN_X, start);
  }
  if (isdigit((unsigned char)c) ||
      (c == '-' && isdigit((unsigned char)loom_peek(lexer, 1)))) {
    return loom_lex_number(lexer, start);
  }
  /* Negative infinity is one token, as a negative number is; inf and nan
   * alone are words the literal parser knows. */
  if (c == '-' && loom_peek(lexer, 1) == 'i' && loom_peek(lexer, 2) == 'n' &&
      loom_peek(lexer, 3) == 'f' && !loom_is_name_char(loom_peek(lexer, 4))) {
    lexer->position += 4;
    return loom_make(lexer, LOOM_TOKEN_FLOAT, start);
  }
  if (c == '#' && loom_is_name_char(loom_peek(lexer, 1))) {
    lexer->position++;
    loom_skip_name(lexer);
    return loom_make(lexer, LOOM_TOKEN_ATTR, start);
  }
  if (c == '%' || c == '@') {
    lexer->position++;
    if (!loom_is_name_char(loom_peek(lexer, 0))) {
      return loom_error(lexer, start, HRX_LOOM_DIAG_EMPTY_NAME,
                        c == '%' ? "'%' must be followed by a value name"
                                 : "'@' must be followed by a symbol name");
    }
    loom_skip_name(lexer);
    return loom_make(lexer, c == '%' ? LOOM_TOKEN_VALUE_ID : LOOM_TOKEN_SYMBOL,
                     start);
  }
  if (loom_is_name_start(c)) {
    loom_skip_name(lexer);
    return loom_make(lexer, LOOM_TOKEN_IDENT, start);
  }
  if (c == '"') {
    lexer->position++;
    for (;;) {
      char s = loom_peek(lexer, 0);
      if (lexer->position >= source->length || s == '\n') {
        return loom_error(lexer, start, HRX_LOOM_DIAG_UNTERMINATED_STRING,
                          "unterminated string");
      }
      lexer->position++;
      if (s == '\\' && lexer->position < source->length) {
        lexer->position++;
      } else if (s == '"') {
        return loom_string(lexer, start);
      }
    }
  }
  lexer->position++;
  if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f) {
    loom_diag_emit(lexer->diagnostics, source, (loom_span_t){start, 1},
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_UNEXPECTED_CHARACTER,
                   NULL, 0, "unexpected character '%c'", c);
  } else {
    loom_diag_emit(lexer->diagnostics, source, (loom_span_t){start, 1},
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_UNEXPECTED_CHARACTER,
                   NULL, 0, "unexpected byte 0x%02x", (unsigned char)c);
  }
  return loom_make(lexer, LOOM_TOKEN_ERROR, start);
}
