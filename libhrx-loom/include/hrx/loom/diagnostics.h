/* Compiler diagnostics: positioned, coded, walkable messages.
 *
 * A diagnostics list is owned by the caller, filled by the parser, verifier
 * and specialiser, and may be walked or printed like a C compiler's output:
 *
 *   kernel.loom:3:17: error[L0204]: operand type mismatch: expected f32, got i32
 *     %y = scalar.addf %a, %b : f32
 *                    ^~~~~~~~~~
 *
 * Codes are stable: a code's meaning never changes once released. A list
 * stops accepting errors after |max_errors| (then holds one final note saying
 * how many were left out). Not thread-safe; one list per compilation.
 *
 * Source text, names and caller-supplied values are untrusted: messages
 * are stored with control characters and invalid UTF-8 escaped (as
 * hrx_escape_text does), and hrx_loom_diagnostics_format escapes the file
 * name and source line too. |file|, |source_line| and param values keep
 * the raw bytes, for programs that match on them.
 */
#ifndef HRX_LOOM_DIAGNOSTICS_H_
#define HRX_LOOM_DIAGNOSTICS_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hrx_loom_severity_e {
  HRX_LOOM_SEVERITY_NOTE = 0,
  HRX_LOOM_SEVERITY_WARNING = 1,
  HRX_LOOM_SEVERITY_ERROR = 2,
} hrx_loom_severity_t;

/* Stable diagnostic codes, printed as L<number>. Groups: 01xx lexical,
 * 02xx syntax, 03xx names and symbols, 04xx types, 05xx structure, 06xx
 * config specialisation, 07xx launch programs, 08xx backends. */
typedef enum hrx_loom_diag_code_e {
  HRX_LOOM_DIAG_NONE = 0,
  /* lexical */
  HRX_LOOM_DIAG_UNEXPECTED_CHARACTER = 101,
  HRX_LOOM_DIAG_UNTERMINATED_STRING = 102,
  HRX_LOOM_DIAG_BAD_NUMBER = 103,
  HRX_LOOM_DIAG_EMPTY_NAME = 104,
  HRX_LOOM_DIAG_BAD_STRING = 105,
  /* syntax */
  HRX_LOOM_DIAG_EXPECTED_TOKEN = 201,
  HRX_LOOM_DIAG_UNKNOWN_OP = 202,
  HRX_LOOM_DIAG_UNKNOWN_TOP_LEVEL = 203,
  HRX_LOOM_DIAG_UNKNOWN_TYPE = 204,
  HRX_LOOM_DIAG_UNKNOWN_ENUM = 205,
  HRX_LOOM_DIAG_RESULT_COUNT = 206,
  HRX_LOOM_DIAG_BAD_ATTRIBUTE = 207,
  HRX_LOOM_DIAG_UNKNOWN_PREDICATE = 208,
  HRX_LOOM_DIAG_LITERAL_RANGE = 209,
  HRX_LOOM_DIAG_NESTING_TOO_DEEP = 210,
  /* names and symbols */
  HRX_LOOM_DIAG_UNDEFINED_VALUE = 301,
  HRX_LOOM_DIAG_REDEFINED_VALUE = 302,
  HRX_LOOM_DIAG_UNDEFINED_SYMBOL = 303,
  HRX_LOOM_DIAG_REDEFINED_SYMBOL = 304,
  HRX_LOOM_DIAG_DUPLICATE_EXPORT = 305,
  HRX_LOOM_DIAG_VALUE_NOT_VISIBLE = 306,
  /* types */
  HRX_LOOM_DIAG_TYPE_MISMATCH = 401,
  HRX_LOOM_DIAG_TYPE_NOT_ALLOWED = 402,
  HRX_LOOM_DIAG_BAD_SHAPE = 403,
  HRX_LOOM_DIAG_BAD_CAST = 404,
  /* structure */
  HRX_LOOM_DIAG_MISSING_TERMINATOR = 501,
  HRX_LOOM_DIAG_TERMINATOR_NOT_LAST = 502,
  HRX_LOOM_DIAG_YIELD_ARITY = 503,
  HRX_LOOM_DIAG_OP_NOT_ALLOWED_HERE = 504,
  HRX_LOOM_DIAG_BAD_FACT = 505,
  HRX_LOOM_DIAG_UNUSED_LAUNCH_ARGUMENT = 506,
  HRX_LOOM_DIAG_CONSTANT_RANGE = 507,
  HRX_LOOM_DIAG_BAD_TARGET = 508,
  HRX_LOOM_DIAG_MODULE_LIMIT = 509,
  HRX_LOOM_DIAG_DIVERGENT_BARRIER = 510,
  HRX_LOOM_DIAG_RECURSIVE_CALL = 511,
  /* config specialisation */
  HRX_LOOM_DIAG_CONFIG_MISSING = 601,
  HRX_LOOM_DIAG_CONFIG_UNKNOWN = 602,
  HRX_LOOM_DIAG_CONFIG_MISTYPED = 603,
  HRX_LOOM_DIAG_CONFIG_OUT_OF_RANGE = 604,
  /* launch programs */
  HRX_LOOM_DIAG_LAUNCH_NOT_CONSTANT = 701,
  HRX_LOOM_DIAG_LAUNCH_UNSUPPORTED = 702,
  /* backends */
  HRX_LOOM_DIAG_BACKEND_UNSUPPORTED = 801,
  HRX_LOOM_DIAG_BACKEND_LIMIT = 802,
  /* more errors (or warnings) than the cap */
  HRX_LOOM_DIAG_TOO_MANY_ERRORS = 901,
  HRX_LOOM_DIAG_TOO_MANY_WARNINGS = 902,
} hrx_loom_diag_code_t;

/* "L0204". */
HRX_API const char* hrx_loom_diag_code_string(hrx_loom_diag_code_t code);

typedef struct hrx_loom_diag_param_t {
  const char* name;  /* e.g. "expected", "actual", "symbol" */
  const char* value;
} hrx_loom_diag_param_t;

typedef struct hrx_loom_diagnostic_t {
  hrx_loom_severity_t severity;
  hrx_loom_diag_code_t code;
  const char* file;     /* source name given to the parser */
  uint32_t line;        /* 1-based; 0 when not tied to a position */
  uint32_t column;      /* 1-based, in bytes */
  uint32_t length;      /* bytes of the offending span (>= 1 when placed) */
  const char* message;
  const char* source_line; /* the whole line, without newline ("" if none) */
  size_t param_count;
  const hrx_loom_diag_param_t* params;
} hrx_loom_diagnostic_t;

typedef struct hrx_loom_diagnostics_s hrx_loom_diagnostics_t;

/* |max_errors| 0 selects 20. Warnings are kept up to
 * HRX_LOOM_MAX_WARNINGS; later ones are dropped with one note, so a source
 * with a warning on every line costs no more than one with a hundred. */
#define HRX_LOOM_MAX_WARNINGS 100
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_diagnostics_create(
    size_t max_errors, hrx_allocator_t allocator,
    hrx_loom_diagnostics_t** out_diagnostics);
HRX_API void hrx_loom_diagnostics_destroy(hrx_loom_diagnostics_t* diagnostics);

HRX_API size_t hrx_loom_diagnostics_count(
    const hrx_loom_diagnostics_t* diagnostics);
HRX_API size_t hrx_loom_diagnostics_error_count(
    const hrx_loom_diagnostics_t* diagnostics);
/* Borrowed; valid until the list is destroyed or cleared. */
HRX_API const hrx_loom_diagnostic_t* hrx_loom_diagnostics_at(
    const hrx_loom_diagnostics_t* diagnostics, size_t index);
/* Finds the named parameter of a diagnostic, or NULL. */
HRX_API const char* hrx_loom_diagnostic_param(
    const hrx_loom_diagnostic_t* diagnostic, const char* name);

HRX_API void hrx_loom_diagnostics_clear(hrx_loom_diagnostics_t* diagnostics);

/* Appends every diagnostic, C-compiler style, to |builder|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_diagnostics_format(
    const hrx_loom_diagnostics_t* diagnostics, hrx_string_builder_t* builder);

#ifdef __cplusplus
}
#endif

#endif /* HRX_LOOM_DIAGNOSTICS_H_ */
