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

/* The arithmetic the lowering knows, for targets that compute some of it
 * themselves (llvm_target_hooks_t.arith). */
typedef enum llvm_arith_e {
  LL_ADD, LL_SUB, LL_MUL, LL_SDIV, LL_UDIV, LL_SREM, LL_UREM, LL_SMIN,
  LL_SMAX, LL_UMIN, LL_UMAX, LL_MADD, LL_AND, LL_OR, LL_XOR, LL_SHL, LL_LSHR,
  LL_ASHR, LL_FADD, LL_FSUB, LL_FMUL, LL_FDIV, LL_FMIN, LL_FMAX, LL_FMA,
  LL_FNEG, LL_FABS, LL_FLOOR, LL_CEIL, LL_FTRUNC, LL_ROUNDEVEN, LL_SQRT,
  LL_RSQRT, LL_EXP, LL_LOG, LL_TANH, LL_EXP2, LL_SILU, LL_SIN, LL_COS,
  LL_POW, LL_CLAMP_ORDERED, LL_CLAMP_NUMBER, LL_ROUND,
  LL_NEG, LL_ABS, LL_CEILDIVS, LL_CEILDIVU, LL_FLOORDIVS, LL_CTPOP,
  LL_CTLZ, LL_CTTZ, LL_ROTL, LL_ROTR, LL_COPYSIGN, LL_MINIMUM, LL_MAXIMUM,
  LL_FREM, LL_SIGNF, LL_SIGNI, LL_LOG2, LL_LOG10,
  /* math_formulas.c's functions, in lm_function_t's order */
  LL_EXPM1, LL_LOG1P, LL_SINH, LL_COSH, LL_TAN, LL_ATAN, LL_ATAN2, LL_ASIN,
  LL_ACOS, LL_CBRT, LL_LOGISTIC, LL_SOFTPLUS,
} ll_arith_t;

/* Whether |code| is one of math_formulas.c's functions. */
#define LL_IS_FORMULA(code) ((code) >= LL_EXPM1 && (code) <= LL_SOFTPLUS)

/* How an access uses its address (llvm_target_hooks_t.address). */
typedef enum llvm_access_e {
  LLVM_ACCESS_LOAD,
  LLVM_ACCESS_STORE,
  LLVM_ACCESS_ATOMIC_LOAD,
  LLVM_ACCESS_ATOMIC_STORE,
  LLVM_ACCESS_ATOMIC_RMW,
} llvm_access_t;

/* One step of view-index linearisation, index = a * b + c; a NULL
 * operand stands for the index so far. */
typedef struct llvm_index_step_t {
  LLVMValueRef a, b, c;
} llvm_index_step_t;

#define LLVM_MAX_INDEX_STEPS 20

/* The address of an access: element |first| (then |steps|) of |element|s
 * from the view pointer |base|. The steps are the host device's checked
 * linearisation (host_isa.h, Address arithmetic); |first| is NULL when the
 * index starts at 0. */
typedef struct llvm_address_t {
  LLVMValueRef base;
  LLVMValueRef first;
  llvm_index_step_t steps[LLVM_MAX_INDEX_STEPS];
  uint32_t step_count;
  LLVMTypeRef element;
  uint32_t element_bytes;
  uint32_t access_bytes; /* from the element's address */
  llvm_access_t access;
} llvm_address_t;

/* What a target supplies. Geometry hooks return i32 values. The hooks
 * after kernel_attributes are optional (NULL: the GPU lowering); the host's
 * native target uses them for its work-item loops and exact checks. */
typedef struct llvm_target_hooks_t {
  const char* name;          /* in diagnostics: "... for amdgpu" */
  unsigned global_space;     /* address space of buffer arguments */
  unsigned workgroup_space;  /* of workgroup-local memory */
  unsigned kernel_call_conv;
  uint32_t subgroup_size;
  uint64_t workgroup_memory_limit; /* bytes per workgroup */
  /* Bytes of buffer.alloca<private> per work-item, as allocas of the
   * data layout's alloca address space; 0: the target has none. */
  uint64_t private_memory_limit;
  bool f64_exp_log;          /* exp and log of f64 (no GPU library) */
  /* Matrix fragments and vector.mma as gfx11 WMMA (fragment.h); targets
   * without them reject those ops (the host's native path declines). */
  bool wmma;
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
  /* Compute as the host device's executor does where LLVM's defaults
   * differ: no fast-math flags (the executor ignores them). */
  bool host_semantics;
  /* The pointer of an access, after whatever checks the target makes. */
  LLVMValueRef (*address)(llvm_lower_t* l, const loom_op_t* op,
                          const llvm_address_t* address);
  /* buffer.view: |base| advanced by |offset| (i64) bytes. */
  LLVMValueRef (*view)(llvm_lower_t* l, const loom_op_t* op,
                       LLVMValueRef base, LLVMValueRef offset);
  /* The base of the workgroup's memory, instead of a module global. */
  LLVMValueRef (*workgroup_memory)(llvm_lower_t* l);
  /* |code| on |v| computed by the target, or NULL for the lowering's own
   * (|op| is NULL inside reductions). Narrow floats arrive widened. */
  LLVMValueRef (*arith)(llvm_lower_t* l, const loom_op_t* op,
                        ll_arith_t code, LLVMValueRef* v);
  /* A float conversion (extension or truncation) of |value| to |type|. */
  LLVMValueRef (*convert)(llvm_lower_t* l, LLVMValueRef value,
                          LLVMTypeRef type);
  /* kernel.subgroup.id (i32), when the target knows it better than the
   * flat work-item id over the subgroup size. */
  LLVMValueRef (*subgroup_id)(llvm_lower_t* l);
  /* The condition an scf.if branches on (may add what the target knows
   * about it). */
  LLVMValueRef (*condition)(llvm_lower_t* l, const loom_op_t* op,
                            LLVMValueRef cond);
  /* kernel.return ends the work-item (NULL: ret void). */
  void (*kernel_return)(llvm_lower_t* l);
  /* Before each loop back-edge; may leave the builder in a new block. */
  void (*back_edge)(llvm_lower_t* l, const loom_op_t* op);
  /* scf.for's induction variable |phi| starts at |lo| and steps by |step|
   * while below |hi| (signed). */
  void (*loop_induction)(llvm_lower_t* l, const loom_op_t* op,
                         LLVMValueRef phi, LLVMValueRef lo, LLVMValueRef hi,
                         LLVMValueRef step);
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
  uint64_t private_size;       /* private alloca bytes so far */
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

/* For targets that build the kernel function themselves (the host's
 * work-item loops): lowers |region| at the builder's position into
 * l->function, which the target has set, with the kernel's arguments in
 * l->values. Returns false as llvm_lower_kernel does. */
bool llvm_lower_region(llvm_lower_t* l, uint32_t region);

/* Pieces of the lowering for targets that drive it op by op (the host's
 * phases between subgroup operations): one op, the LLVM type of a Loom
 * type, and a <combine> b as reductions and atomics combine. */
bool llvm_lower_op(llvm_lower_t* l, const loom_op_t* op);
LLVMTypeRef llvm_lower_type(llvm_lower_t* l, loom_type_id_t type);
LLVMValueRef llvm_lower_combine(llvm_lower_t* l, uint32_t combine,
                                loom_type_kind_t kind, LLVMValueRef a,
                                LLVMValueRef b);

/* The lane kernel.subgroup.shuffle <mode> reads for |lane|: within
 * segments of |width| lanes (the whole subgroup of |size| when width is
 * out of range), base of the segment + source. |*out_ok| says whether the
 * source lies in the segment (when not, the lane keeps its own value).
 * |lane|, |offset| and |width| share one integer type. */
LLVMValueRef llvm_lower_shuffle_source(LLVMBuilderRef b, int64_t mode,
                                       LLVMValueRef lane, LLVMValueRef offset,
                                       LLVMValueRef width, uint32_t size,
                                       LLVMValueRef* out_ok);

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
