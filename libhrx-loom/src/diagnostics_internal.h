/* Emitting diagnostics from inside the compiler. */
#ifndef HRX_LOOM_DIAGNOSTICS_INTERNAL_H_
#define HRX_LOOM_DIAGNOSTICS_INTERNAL_H_

#include <stdarg.h>
#include <stdbool.h>

#include "hrx/loom/diagnostics.h"

/* The text being compiled, for positions and source lines. */
typedef struct loom_source_t {
  const char* name;
  const char* text;
  size_t length;
} loom_source_t;

/* A byte span in a source; offset == UINT32_MAX means no position. */
typedef struct loom_span_t {
  uint32_t offset;
  uint32_t length;
} loom_span_t;

#define LOOM_NO_SPAN ((loom_span_t){UINT32_MAX, 0})

/* Records one diagnostic. |params| holds |param_count| name/value pairs.
 * Returns false once the error cap is reached (callers may stop early);
 * memory exhaustion is remembered and reported by loom_diag_status(). */
bool loom_diag_emit(hrx_loom_diagnostics_t* diagnostics,
                    const loom_source_t* source, loom_span_t span,
                    hrx_loom_severity_t severity, hrx_loom_diag_code_t code,
                    const hrx_loom_diag_param_t* params, size_t param_count,
                    const char* format, ...) HRX_PRINTF(8, 9);
/* As loom_diag_emit, for callers that take their own format arguments. */
bool loom_diag_emitv(hrx_loom_diagnostics_t* diagnostics,
                     const loom_source_t* source, loom_span_t span,
                     hrx_loom_severity_t severity, hrx_loom_diag_code_t code,
                     const hrx_loom_diag_param_t* params, size_t param_count,
                     const char* format, va_list args) HRX_PRINTF(8, 0);

/* True once the list will accept no more errors. */
bool loom_diag_full(const hrx_loom_diagnostics_t* diagnostics);

/* RESOURCE_EXHAUSTED if a diagnostic could not be stored for lack of
 * memory, else OK. */
hrx_status_t loom_diag_status(const hrx_loom_diagnostics_t* diagnostics);

/* INVALID_ARGUMENT "N errors (first: ...)" when the list holds errors added
 * since |errors_before|, else OK. */
hrx_status_t loom_diag_result(const hrx_loom_diagnostics_t* diagnostics,
                              size_t errors_before, const char* what);

/* Starts a compile step that reports into |*diagnostics|: where the caller
 * gave no list, a private one is created, stored in *own (the step
 * destroys it; otherwise *own is NULL) and put in |*diagnostics|.
 * *errors_before is the list's error count now, for loom_diag_result. */
hrx_status_t loom_diag_begin(hrx_loom_diagnostics_t** diagnostics,
                             hrx_allocator_t allocator,
                             hrx_loom_diagnostics_t** own,
                             size_t* errors_before);

#endif /* HRX_LOOM_DIAGNOSTICS_INTERNAL_H_ */
