/* Untrusted text in messages: names from model files and values from
 * servers are shown escaped, so they cannot write escape sequences to the
 * user's terminal or forge lines of output. */
#ifndef HRX_ARTIFACTS_SRC_SHOW_H_
#define HRX_ARTIFACTS_SRC_SHOW_H_

#include <string.h>

#include "hrx/core/escape.h"

/* |text| escaped into |out|, returned for use in a printf argument list;
 * long text is cut with "...". */
static inline const char* hrx_artifacts_show(
    const char* text, char out[HRX_ESCAPED_NAME_CAPACITY]) {
  return hrx_escape_text(text, strlen(text), out, HRX_ESCAPED_NAME_CAPACITY);
}

#endif /* HRX_ARTIFACTS_SRC_SHOW_H_ */
