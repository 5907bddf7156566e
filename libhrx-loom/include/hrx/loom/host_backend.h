/* Loom's host backend: verified IR to host-ISA code objects.
 *
 * Compiles every kernel of a module for the host device (the CPU as a
 * virtual GPU, see hrx/fabric/host_isa.h): uniformity analysis keeps
 * wave-invariant work in scalar registers, specialised config values are
 * folded, structured control flow becomes uniform branches or execution
 * masks, function calls are inlined, and a linear-scan allocator assigns
 * registers. The result is one code object holding each kernel's
 * instructions, argument layout and serialised launch program.
 */
#ifndef HRX_LOOM_HOST_BACKEND_H_
#define HRX_LOOM_HOST_BACKEND_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/loom/config.h"
#include "hrx/loom/diagnostics.h"
#include "hrx/loom/launch_program.h"
#include "hrx/loom/module.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_loom_host_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  /* HRX_LOOM_SANITIZE_* (hrx/loom/compiler.h). RACE flags every kernel
   * for race checking of workgroup-local memory by the executor; VALUE
   * emits an ASSERT per index.assume fact; OPERATION marks index
   * arithmetic and shifts HRX_HOST_FLAG_CHECKED; ACCESS is what the host
   * device always does. */
  uint32_t sanitizers;
} hrx_loom_host_options_t;

/* Compiles |module| (already verified) for |profile| (normally
 * hrx_loom_profile_host()); |options| may be NULL. Kernels are named by
 * their export name, or their symbol when not exported. Constructs the
 * host backend cannot lower yet are diagnostics (L08xx), never crashes. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_compile_host(
    const hrx_loom_module_t* module,
    const hrx_loom_specialization_t* specialization,
    const hrx_loom_profile_t* profile, const hrx_loom_host_options_t* options,
    hrx_loom_diagnostics_t* diagnostics, hrx_allocator_t allocator,
    uint8_t** out_code_object, size_t* out_length);

#ifdef __cplusplus
}
#endif

#endif /* HRX_LOOM_HOST_BACKEND_H_ */
