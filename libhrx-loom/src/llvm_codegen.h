/* The steps after lowering that every LLVM backend (amdgpu_backend.c,
 * host_native.c) takes alike: keeping LLVM's first error instead of
 * letting it print, verifying the lowered module before any pass runs,
 * the O3 pipeline, and emitting the object into memory. One copy, so the
 * backends cannot drift apart in how they report LLVM's failures. */
#ifndef HRX_LOOM_LLVM_CODEGEN_H_
#define HRX_LOOM_LLVM_CODEGEN_H_

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdbool.h>

#include "hrx/core/status.h"

/* LLVM's first error of a compilation; empty while there is none. */
typedef struct llvm_first_error_t {
  char text[512];
} llvm_first_error_t;

/* An LLVMDiagnosticHandler whose context is an llvm_first_error_t. Errors
 * LLVM reports instead of aborting (unsupported constructs in code
 * generation) become the compile's status; warnings and remarks are
 * dropped rather than printed. */
void llvm_keep_first_error(LLVMDiagnosticInfoRef info, void* context);

/* Verifies |module| (invalid IR is an internal error of |lowering|, the
 * lowering that produced it) and runs default<O3> with |options|, which
 * the caller owns. Errors LLVM reports through the diagnostic handler are
 * the caller's to check afterwards. */
hrx_status_t llvm_verify_and_optimize(LLVMModuleRef module,
                                      LLVMTargetMachineRef machine,
                                      LLVMPassBuilderOptionsRef options,
                                      const char* lowering);

/* Emits |module| as an object file into *out_buffer, which the caller
 * disposes. False when code generation failed or reported an error; then
 * *out_buffer is NULL and |errors| holds LLVM's reason where it gave one. */
bool llvm_emit_object(LLVMTargetMachineRef machine, LLVMModuleRef module,
                      llvm_first_error_t* errors,
                      LLVMMemoryBufferRef* out_buffer);

#endif /* HRX_LOOM_LLVM_CODEGEN_H_ */
