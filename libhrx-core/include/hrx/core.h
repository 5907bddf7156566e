/* libhrx-core: the foundation every HRX layer builds on.
 *
 * Status values, explicit allocators, memory budgets, SHA-256, XDG paths,
 * files and locks, clocks, logging and bounded traces. Include this
 * umbrella or the individual headers under hrx/core/.
 */
#ifndef HRX_CORE_H_
#define HRX_CORE_H_

#include "hrx/core/allocator.h"  // IWYU pragma: export
#include "hrx/core/api.h"        // IWYU pragma: export
#include "hrx/core/budget.h"     // IWYU pragma: export
#include "hrx/core/bytes.h"      // IWYU pragma: export
#include "hrx/core/clock.h"      // IWYU pragma: export
#include "hrx/core/escape.h"     // IWYU pragma: export
#include "hrx/core/file.h"       // IWYU pragma: export
#include "hrx/core/half.h"       // IWYU pragma: export
#include "hrx/core/log.h"        // IWYU pragma: export
#include "hrx/core/parse.h"      // IWYU pragma: export
#include "hrx/core/paths.h"      // IWYU pragma: export
#include "hrx/core/progress.h"   // IWYU pragma: export
#include "hrx/core/sha256.h"     // IWYU pragma: export
#include "hrx/core/status.h"     // IWYU pragma: export
#include "hrx/core/string_builder.h"  // IWYU pragma: export
#include "hrx/core/struct.h"     // IWYU pragma: export
#include "hrx/core/sys.h"        // IWYU pragma: export
#include "hrx/core/target.h"     // IWYU pragma: export
#include "hrx/core/trace.h"      // IWYU pragma: export
#include "hrx/core/version.h"    // IWYU pragma: export

#endif /* HRX_CORE_H_ */
