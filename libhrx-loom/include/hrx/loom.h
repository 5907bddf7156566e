/* libhrx-loom: the Loom kernel language compiler.
 *
 * Front end (this release): lexer, parser, typed SSA IR, verifier, printer,
 * diagnostics, config specialisation and launch programs.
 */
#ifndef HRX_LOOM_H_
#define HRX_LOOM_H_

#include "hrx/loom/check.h"           // IWYU pragma: export
#include "hrx/loom/compiler.h"        // IWYU pragma: export
#include "hrx/loom/config.h"          // IWYU pragma: export
#include "hrx/loom/diagnostics.h"     // IWYU pragma: export
#include "hrx/loom/host_backend.h"    // IWYU pragma: export
#include "hrx/loom/launch_program.h"  // IWYU pragma: export
#include "hrx/loom/module.h"          // IWYU pragma: export

#ifdef __cplusplus
extern "C" {
#endif

HRX_API const char* hrx_loom_version(void);

#ifdef __cplusplus
}
#endif

#endif /* HRX_LOOM_H_ */
