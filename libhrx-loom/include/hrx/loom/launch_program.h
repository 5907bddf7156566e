/* Launch programs: a kernel's launch-config region as a small host program.
 *
 * The region between a kernel's workload signature and `launch` computes
 * the grid from the workload, e.g. workgroups = ceil(n / 256). It is
 * lowered, with its config values and the target's subgroup size folded in,
 * to a compact register program that evaluates in nanoseconds per dispatch
 * and travels inside artifacts as a versioned, checksummed blob. The blob
 * format and its evaluator belong to the runtime (libhrx-fabric), so that
 * programs launch kernels without linking the compiler.
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

/* The serialised form (hrx/fabric/launch_program.h), which runtimes load
 * and evaluate with hrx_fabric_launch_program_load/evaluate. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_launch_program_serialize(
    const hrx_loom_launch_program_t* program, hrx_allocator_t allocator,
    uint8_t** out_bytes, size_t* out_length);

#ifdef __cplusplus
}
#endif

#endif /* HRX_LOOM_LAUNCH_PROGRAM_H_ */
