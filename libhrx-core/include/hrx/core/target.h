#ifndef HRX_CORE_TARGET_H_
#define HRX_CORE_TARGET_H_

/* Targets: what code is generated for and what a device runs.
 *
 * A profile target names one processor a device is: "host" (the CPU as a
 * virtual GPU) or a bare gfx architecture ("gfx1151"). Device feature
 * suffixes after ':' ("gfx1151:xnack-") describe a device's mode, not a
 * different processor, and are dropped. Generic names ("gfx11-generic")
 * are source targets: a kernel source may declare one, but code is always
 * generated for, cached under and loaded by a profile target, so the
 * constructor refuses them. */

#include <stdbool.h>

#include "hrx/core/api.h"
#include "hrx/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hrx_target_kind_t {
  HRX_TARGET_HOST = 0,
  HRX_TARGET_AMDGPU = 1,
} hrx_target_kind_t;

/* Room for "gfx" and the longest architecture number, with the NUL. */
#define HRX_TARGET_NAME_CAPACITY 16

/* A value type: copy it freely. */
typedef struct hrx_target_t {
  hrx_target_kind_t kind;
  char name[HRX_TARGET_NAME_CAPACITY]; /* "host", "gfx1151" */
} hrx_target_t;

/* Parses a profile target. INVALID_ARGUMENT (naming the text) for NULL,
 * empty or malformed names, generic source targets and names too long to
 * be an architecture; on failure |out_target| is zeroed. */
HRX_API HRX_MUST_USE hrx_status_t hrx_target_parse(const char* text,
                                                   hrx_target_t* out_target);

/* Whether |text| names a generic source target ("gfx11-generic"). */
HRX_API bool hrx_target_is_generic(const char* text);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_TARGET_H_ */
