/* Loom's amdgpu backend: verified IR -> AMDGPU code objects, in process,
 * through the LLVM 19 C API (builds configured with -Dllvm only).
 *
 * Lowers every kernel of a module with the target-neutral lowering
 * (llvm_lower.h) and the amdgpu hooks (amdgcn-amd-amdhsa, wave32, kernels
 * with the AMDGPU_KERNEL calling convention, code-object-v5 hidden
 * arguments, LDS in address space 3), runs default<O3>, emits a
 * relocatable object with the launch programs in its HRX launch table
 * (hrx/loom/compiler.h), and checks the object's ELF header before
 * returning it. Each compilation owns its LLVM context, so compilations
 * run in parallel.
 */
#ifndef HRX_LOOM_AMDGPU_BACKEND_H_
#define HRX_LOOM_AMDGPU_BACKEND_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config_internal.h"
#include "hrx/loom/launch_program.h"
#include "ir.h"

typedef struct loom_amdgpu_arg_t {
  uint32_t offset, size;
  bool buffer; /* global_buffer, else by_value */
} loom_amdgpu_arg_t;

/* A kernel as the object's metadata note describes it. */
typedef struct loom_amdgpu_kernel_t {
  uint32_t kernarg_size;
  uint32_t group_segment_size;
  uint32_t wavefront_size;
  uint32_t max_flat_workgroup_size;
  uint32_t arg_count;
  loom_amdgpu_arg_t* args;
} loom_amdgpu_kernel_t;

typedef struct loom_amdgpu_output_t {
  uint8_t* code;
  size_t code_length;
  loom_amdgpu_kernel_t* kernels; /* one per module kernel, in order */
  uint32_t kernel_count;
} loom_amdgpu_output_t;

/* "LLVM 19.1.7": the code generator, part of every artifact's key. */
const char* loom_amdgpu_codegen_version(void);

/* Compiles |module| for |profile| (a gfx profile on the ISA allowlist).
 * Source targets must be generic, this profile's processor or host, with
 * 32-lane subgroups. Diagnostics name the op and the target. */
hrx_status_t loom_amdgpu_compile(const loom_module_t* module,
                                 const hrx_loom_specialization_t* spec,
                                 const hrx_loom_profile_t* profile,
                                 hrx_loom_diagnostics_t* diagnostics,
                                 hrx_allocator_t allocator,
                                 loom_amdgpu_output_t* out);

/* Frees the kernels of |out| and the code unless taken (set to NULL). */
void loom_amdgpu_output_free(loom_amdgpu_output_t* out,
                             hrx_allocator_t allocator);

#endif /* HRX_LOOM_AMDGPU_BACKEND_H_ */
