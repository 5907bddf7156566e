/* Loom IR -> LLVM IR, target-neutral.
 *
 * Lowers the kernels of a verified module into one LLVM module: structured
 * control flow becomes basic blocks and phis, function calls are inlined,
 * views become pointer arithmetic on their buffer's address space, and
 * everything a GPU provides differently (ids, address spaces, cross-lane
 * reads, barriers, memory scopes, kernel attributes) goes through a small
 * table of target hooks, so a native CPU target can reuse the lowering.
 *
 * Atomics and fences carry a memory scope, which the LLVM 19 C API cannot
 * set; they are emitted as calls to tiny always-inline helpers written in
 * textual IR (one per operation, type, ordering, scope and address space)
 * and linked into the module, where inlining leaves the plain scoped
 * instruction.
 *
 * Constructs the lowering cannot handle are diagnostics (L08xx) naming the
 * op and the target, never LLVM aborts: the module is verified before any
 * pass runs.
 */
#ifndef HRX_LOOM_LLVM_LOWER_H_
#define HRX_LOOM_LLVM_LOWER_H_

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <stdbool.h>
#include <stdint.h>

#include "config_internal.h"
#include "ir.h"

typedef struct llvm_lower_s llvm_lower_t;

/* What a target supplies. Geometry hooks return i32 values. */
typedef struct llvm_target_hooks_t {
  const char* name;          /* in diagnostics: "... for amdgpu" */
  unsigned global_space;     /* address space of buffer arguments */
  unsigned workgroup_space;  /* of workgroup-local memory */
  unsigned kernel_call_conv;
  uint32_t subgroup_size;
  uint64_t workgroup_memory_limit; /* bytes per workgroup */
  bool f64_exp_log;          /* exp and log of f64 (no GPU library) */
  LLVMValueRef (*workgroup_id)(llvm_lower_t* l, unsigned dim);
  LLVMValueRef (*workitem_id)(llvm_lower_t* l, unsigned dim);
  LLVMValueRef (*workgroup_size)(llvm_lower_t* l, unsigned dim);
  LLVMValueRef (*workgroup_count)(llvm_lower_t* l, unsigned dim);
  LLVMValueRef (*lane_id)(llvm_lower_t* l);
  /* i32 |value| as seen in lane |lane| (may differ per lane). */
  LLVMValueRef (*read_lane)(llvm_lower_t* l, LLVMValueRef value,
                            LLVMValueRef lane);
  /* i32 |value| of lane |lane|, which is the same in every lane. */
  LLVMValueRef (*read_uniform_lane)(llvm_lower_t* l, LLVMValueRef value,
                                    LLVMValueRef lane);
  /* The active lanes, as an i64 mask. */
  LLVMValueRef (*active_lanes)(llvm_lower_t* l);
  /* Execution barrier of a workgroup or (subgroup) of a wave; memory
   * ordering is the fences around it. */
  void (*barrier)(llvm_lower_t* l, bool workgroup);
  /* syncscope of a Loom scope (LOOM_ENUM_SCOPE index); "" is system. */
  const char* (*sync_scope)(uint32_t scope);
  /* Attributes of a kernel whose workgroups hold at most |max_threads|. */
  void (*kernel_attributes)(llvm_lower_t* l, LLVMValueRef function,
                            uint32_t max_threads);
} llvm_target_hooks_t;

/* One kernel argument as laid out in the kernarg segment. */
typedef struct llvm_kernel_arg_t {
  uint32_t offset, size;
  bool buffer;
} llvm_kernel_arg_t;

/* What the lowering decided about one kernel. */
typedef struct llvm_kernel_info_t {
  LLVMValueRef function;
  uint32_t explicit_kernarg_size; /* end of the last explicit argument */
  uint32_t group_segment_size;    /* bytes of workgroup memory */
  uint32_t arg_count;
  llvm_kernel_arg_t* args;        /* owned by the lowering's allocator */
} llvm_kernel_info_t;

struct llvm_lower_s {
  const loom_module_t* m;
  const hrx_loom_specialization_t* spec;
  hrx_loom_diagnostics_t* diagnostics;
  hrx_allocator_t allocator;
  const llvm_target_hooks_t* hooks;
  LLVMContextRef context;
  LLVMModuleRef module;
  LLVMBuilderRef builder;
  LLVMTargetDataRef layout;
  hrx_status_t status; /* first allocation failure */
  bool failed;         /* a diagnostic was emitted */

  /* Per module value: its LLVM value, NULL until lowered. */
  LLVMValueRef* values;
  /* Textual IR of the scoped helpers declared so far. */
  hrx_string_builder_t helpers;

  /* Per kernel */
  LLVMValueRef function;
  LLVMValueRef lds;            /* placeholder for workgroup memory */
  uint64_t lds_size;
  uint64_t lds_align;
  uint32_t inline_depth;
  /* Where func.return of the function being inlined goes. */
  LLVMBasicBlockRef return_block;
  LLVMValueRef* return_phis;
};

/* Prepares |l| to lower |m| into |module| (which it does not own). */
hrx_status_t llvm_lower_init(llvm_lower_t* l, const loom_module_t* m,
                             const hrx_loom_specialization_t* spec,
                             const llvm_target_hooks_t* hooks,
                             LLVMModuleRef module,
                             hrx_loom_diagnostics_t* diagnostics,
                             hrx_allocator_t allocator);
void llvm_lower_deinit(llvm_lower_t* l);

/* Lowers kernel |kernel| into a function named by its code name, whose
 * workgroups hold at most |max_threads|. Returns false after a diagnostic
 * (l->failed) or an allocation failure (l->status); |out_info->args| is
 * the caller's to free with the lowering's allocator. */
bool llvm_lower_kernel(llvm_lower_t* l, uint32_t kernel, uint32_t max_threads,
                       llvm_kernel_info_t* out_info);

/* Calls intrinsic |name| on |args|; |overloads| are its overloaded types
 * (ignored when it has none). */
LLVMValueRef llvm_lower_intrinsic(llvm_lower_t* l, const char* name,
                                  LLVMTypeRef* overloads,
                                  size_t overload_count, LLVMValueRef* args,
                                  unsigned arg_count);

/* Links the scoped helpers into the module; call once after the last
 * kernel. */
hrx_status_t llvm_lower_finish(llvm_lower_t* l);

#endif /* HRX_LOOM_LLVM_LOWER_H_ */
