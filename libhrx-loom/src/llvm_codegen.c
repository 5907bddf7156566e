/* LLVM's verification, optimisation and object emission, shared by the
 * LLVM backends (llvm_codegen.h). */
#include "llvm_codegen.h"

#include <llvm-c/Analysis.h>
#include <stdio.h>

void llvm_keep_first_error(LLVMDiagnosticInfoRef info, void* context) {
  llvm_first_error_t* errors = context;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError || errors->text[0]) {
    return;
  }
  char* text = LLVMGetDiagInfoDescription(info);
  snprintf(errors->text, sizeof(errors->text), "%s", text ? text : "?");
  LLVMDisposeMessage(text);
}

hrx_status_t llvm_verify_and_optimize(LLVMModuleRef module,
                                      LLVMTargetMachineRef machine,
                                      LLVMPassBuilderOptionsRef options,
                                      const char* lowering) {
  char* message = NULL;
  if (LLVMVerifyModule(module, LLVMReturnStatusAction, &message)) {
    hrx_status_t status = hrx_make_status(
        HRX_STATUS_INTERNAL, "%s lowering produced invalid LLVM IR: %s",
        lowering, message ? message : "?");
    LLVMDisposeMessage(message);
    return status;
  }
  LLVMDisposeMessage(message);
  LLVMErrorRef error = LLVMRunPasses(module, "default<O3>", machine, options);
  if (error) {
    char* text = LLVMGetErrorMessage(error);
    hrx_status_t status = hrx_make_status(
        HRX_STATUS_INTERNAL, "LLVM optimisation failed: %s", text);
    LLVMDisposeErrorMessage(text);
    return status;
  }
  return HRX_OK;
}

bool llvm_emit_object(LLVMTargetMachineRef machine, LLVMModuleRef module,
                      llvm_first_error_t* errors,
                      LLVMMemoryBufferRef* out_buffer) {
  char* message = NULL;
  LLVMMemoryBufferRef buffer = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(machine, module, LLVMObjectFile,
                                          &message, &buffer) ||
      errors->text[0]) {
    if (message && !errors->text[0]) {
      snprintf(errors->text, sizeof(errors->text), "%s", message);
    }
    LLVMDisposeMessage(message);
    if (buffer) LLVMDisposeMemoryBuffer(buffer);
    *out_buffer = NULL;
    return false;
  }
  *out_buffer = buffer;
  return true;
}
