/* Launch programs: a kernel's launch-config region as a small host program.
 *
 * The region between a kernel's workload signature and `launch` computes
 * the grid from the workload, e.g. workgroups = ceil(n / 256). It is
 * lowered, with its config values and the target's subgroup size folded in,
 * to a compact register program that evaluates in nanoseconds per dispatch
 * and travels inside artifacts as a versioned, checksummed blob.
 *
 * Programs are immutable once built or loaded; evaluation is thread-safe.
 */
#ifndef HRX_LOOM_LAUNCH_PROGRAM_H_
#define HRX_LOOM_LAUNCH_PROGRAM_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/loom/config.h"
#include "hrx/loom/diagnostics.h"
#include "hrx/loom/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the device the program is built for can launch. */
typedef struct hrx_loom_profile_t {
  const char* name;                 /* "host", "gfx1151" */
  uint32_t subgroup_size;           /* used when the source target is silent */
  uint32_t max_workgroup_size;      /* threads per workgroup (x*y*z) */
  uint32_t max_workgroup_count;     /* per dimension */
  uint64_t max_workgroup_storage;   /* bytes of workgroup-local memory */
} hrx_loom_profile_t;

/* The host device's profile (subgroup 32, 1024 threads, 64 KiB local). */
HRX_API hrx_loom_profile_t hrx_loom_profile_host(void);
/* gfx1151 (wave32, 1024 threads, 64 KiB LDS). */
HRX_API hrx_loom_profile_t hrx_loom_profile_gfx1151(void);

typedef struct hrx_loom_launch_config_t {
  uint32_t workgroup_count[3];
  uint32_t workgroup_size[3];
  uint32_t cluster_size[3];
  uint32_t subgroup_size;
  uint64_t workgroup_storage_bytes;
  uint64_t private_storage_bytes;   /* per work-item */
} hrx_loom_launch_config_t;

typedef struct hrx_loom_launch_program_s hrx_loom_launch_program_t;

/* Lowers the launch-config region of kernel |kernel| of |module|. Config
 * reads take their values from |specialization| (NULL when the module has
 * no configs). Fails with diagnostics when the region uses ops a launch
 * program cannot run, or body allocations are not constant. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_launch_program_build(
    const hrx_loom_module_t* module, size_t kernel,
    const hrx_loom_specialization_t* specialization,
    const hrx_loom_profile_t* profile, hrx_loom_diagnostics_t* diagnostics,
    hrx_allocator_t allocator, hrx_loom_launch_program_t** out_program);

HRX_API void hrx_loom_launch_program_destroy(
    hrx_loom_launch_program_t* program);

HRX_API const char* hrx_loom_launch_program_symbol(
    const hrx_loom_launch_program_t* program);
HRX_API size_t hrx_loom_launch_program_workload_count(
    const hrx_loom_launch_program_t* program);

/* Runs the program on |workload| (one raw 64-bit value per workload
 * argument: integers two's complement, floats as their bits).
 * INVALID_ARGUMENT for a wrong argument count, a violated index.assume
 * fact, division by zero or a zero size; OUT_OF_RANGE for arithmetic
 * overflow or sizes past the profile's limits. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_launch_program_evaluate(
    const hrx_loom_launch_program_t* program, const uint64_t* workload,
    size_t workload_count, hrx_loom_launch_config_t* out_config);

/* Versioned binary form, ending in a SHA-256 of everything before it. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_launch_program_serialize(
    const hrx_loom_launch_program_t* program, hrx_allocator_t allocator,
    uint8_t** out_bytes, size_t* out_length);

/* Loads a serialised program. A truncated, tampered, wrong-version or
 * internally inconsistent blob fails with DATA_LOSS or INVALID_ARGUMENT;
 * nothing in it is trusted before it is checked. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_launch_program_load(
    const uint8_t* bytes, size_t length, hrx_allocator_t allocator,
    hrx_loom_launch_program_t** out_program);

#ifdef __cplusplus
}
#endif

#endif /* HRX_LOOM_LAUNCH_PROGRAM_H_ */
