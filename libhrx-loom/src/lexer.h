/* Tokens of Loom source text. */
#ifndef HRX_LOOM_LEXER_H_
#define HRX_LOOM_LEXER_H_

#include <stdbool.h>
#include <stdint.h>

#include "diagnostics_internal.h"

typedef enum loom_token_kind_e {
  LOOM_TOKEN_EOF = 0,
  LOOM_TOKEN_ERROR,       /* already diagnosed */
  LOOM_TOKEN_VALUE_ID,    /* %name */
  LOOM_TOKEN_SYMBOL,      /* @name.with.dots */
  LOOM_TOKEN_ATTR,        /* #name: an attribute or attribute alias */
  LOOM_TOKEN_IDENT,       /* bare word: index.add, gfx11-generic, x */
  LOOM_TOKEN_INTEGER,     /* 42, -7, 0x1f */
  LOOM_TOKEN_FLOAT,       /* 1.0, -2.5e-3, -inf (inf and nan lex as words) */
  LOOM_TOKEN_STRING,      /* "text" (span includes the quotes) */
  LOOM_TOKEN_LPAREN,
  LOOM_TOKEN_RPAREN,
  LOOM_TOKEN_LBRACE,
  LOOM_TOKEN_RBRACE,
  LOOM_TOKEN_LBRACKET,
  LOOM_TOKEN_RBRACKET,
  LOOM_TOKEN_LANGLE,
  LOOM_TOKEN_RANGLE,
  LOOM_TOKEN_COMMA,
  LOOM_TOKEN_COLON,
  LOOM_TOKEN_EQUAL,
  LOOM_TOKEN_ARROW,       /* -> */
  LOOM_TOKEN_X,           /* the 'x' between shape dimensions */
  LOOM_TOKEN_PIPE,        /* '|' between flags: <nnan|nsz> */
} loom_token_kind_t;

typedef struct loom_token_t {
  loom_token_kind_t kind;
  uint32_t offset;
  uint32_t length;
  bool line_start; /* first token on its line */
} loom_token_t;

typedef struct loom_lexer_t {
  const loom_source_t* source;
  hrx_loom_diagnostics_t* diagnostics;
  uint32_t position;
  /* Inside vector<...> / view<...>: digits stop at 'x', which is its own
   * token, so 128x72xf16 reads as 128 x 72 x f16. */
  bool shape_mode;
  bool line_start; /* a newline preceded the token being lexed */
} loom_lexer_t;

void loom_lexer_init(loom_lexer_t* lexer, const loom_source_t* source,
                     hrx_loom_diagnostics_t* diagnostics);
loom_token_t loom_lexer_next(loom_lexer_t* lexer);

const char* loom_token_kind_name(loom_token_kind_t kind);

#endif /* HRX_LOOM_LEXER_H_ */
