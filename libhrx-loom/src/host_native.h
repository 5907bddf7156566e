/* Native x86-64 code for the host device (private to libhrx-loom).
 *
 * With LLVM, compiling for the host device produces, beside each kernel's
 * host-ISA bytecode, native code for the running CPU: the target-neutral
 * lowering (llvm_lower.h) with host hooks turns a kernel into one function
 * that runs every work-item of a workgroup in nested loops over the
 * work-item ids (z, y, x), so LLVM's loop vectoriser works across
 * work-items. Every access is checked exactly as the interpreter checks it;
 * where an access's byte offset is affine in the work-item ids (and in the
 * induction variables of the kernel's own loops) the checks move out of
 * the loops: the function evaluates them once, at the corners of the
 * workgroup, and runs an unchecked copy of the loops when they pass, the
 * checked copy when they do not. The object (ELF64 relocatable, -O3,
 * -march for the running CPU) travels in the code object's native section
 * (hrx/fabric/host_native.h), which libhrx-fabric loads without LLVM.
 *
 * Subgroup operations split the body into phases that run wave by wave
 * over lane arrays; workgroup barriers (and workgroup reductions) split it
 * into phases over the whole workgroup (loop fission), values live across
 * a barrier waiting in per-work-item arrays. A kernel the lowering cannot
 * take (a barrier or subgroup operation under control flow that may
 * differ between work-items or inside a function, a buffer chosen at run
 * time through anything but selects, a construct llvm_lower refuses) is
 * declined with a note in the section and runs on the interpreter; so
 * does every kernel of a compilation with a sanitizer on. Declining is
 * never an error.
 */
#ifndef HRX_LOOM_HOST_NATIVE_H_
#define HRX_LOOM_HOST_NATIVE_H_

#include <stdint.h>

#include "config_internal.h"
#include "hrx/loom/host_backend.h"
#include "ir.h"

/* Appends the native section of |module| to |out|, a host code object
 * whose kernels are all written and whose SHA-256 trailer is not yet;
 * nothing in builds without LLVM. Fails only when memory runs out. */
hrx_status_t loom_host_native_append(const loom_module_t* module,
                                     const hrx_loom_specialization_t* spec,
                                     const hrx_loom_profile_t* profile,
                                     const hrx_loom_host_options_t* options,
                                     hrx_allocator_t allocator,
                                     hrx_string_builder_t* out);

/* What native code is compiled for, for artifact keys: "LLVM <version>
 * <triple> <cpu> <features>", or NULL when none is (builds without LLVM, another CPU
 * than x86-64, or HRX_HOST_NATIVE=0, which also keeps code objects
 * portable: a bundle's are compiled so). */
const char* loom_host_native_target(void);

/* Checks the framing of a native section at [at, end) of a code object
 * with |kernel_count| kernels; |*out_next| is the first byte after it. */
hrx_status_t loom_host_native_skip(const uint8_t* at, const uint8_t* end,
                                   uint32_t kernel_count,
                                   const uint8_t** out_next);

#endif /* HRX_LOOM_HOST_NATIVE_H_ */
