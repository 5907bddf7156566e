/* A one-line text progress bar for long transfers.
 *
 * The bar is redrawn only when the whole percentage changes, so a transfer
 * of any size writes at most 101 short lines to the stream; a transfer of
 * unknown size draws nothing. One bar belongs to one transfer (one thread).
 */
#ifndef HRX_CORE_PROGRESS_H_
#define HRX_CORE_PROGRESS_H_

#include <stdint.h>
#include <stdio.h>

#include "hrx/core/api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_progress_bar_t {
  FILE* stream;
  const char* label; /* borrowed; outlives the bar */
  int last_percent;
} hrx_progress_bar_t;

HRX_API void hrx_progress_bar_init(hrx_progress_bar_t* bar, FILE* stream,
                                   const char* label);

/* Draws "\r<label> [#####     ]  40%" when the percentage moved; the line
 * ends with a newline at 100%. */
HRX_API void hrx_progress_bar_update(hrx_progress_bar_t* bar, uint64_t done,
                                     uint64_t total);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_PROGRESS_H_ */
