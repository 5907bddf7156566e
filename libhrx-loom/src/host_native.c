/* Native x86-64 code for the host device (see host_native.h and
 * hrx/fabric/host_native.h for the section and the ABI).
 *
 * One function per kernel, hrx_native_<k>(args), runs a workgroup:
 *
 *   prologue   kernel arguments, bindings, geometry from |args|
 *   precheck   the hoisted bounds checks of the fast copy, at the corners
 *              of the workgroup (filled while the fast copy is lowered)
 *   fast       loops z, y, x over the work-items around the kernel body;
 *              accesses whose offsets are affine in the work-item ids and
 *              loop counters go unchecked, the others are checked; when
 *              the bindings it stores to overlap no other, its accesses
 *              carry one alias scope per binding
 *   checked    the same loops with every access checked (only emitted
 *              when the fast copy hoisted something)
 *   fault      records the first fault of the workgroup and returns it
 *
 * Semantics follow the interpreter (libhrx-fabric/src/host_executor.c) bit
 * for bit: addresses are linearised as the host backend does (hb_address)
 * and poisoned instead of wrapped, integer division faults on zero and
 * wraps INT_MIN / -1, shift amounts of at least the width give 0 (or the
 * sign), f16 and bf16 round as hrx/core/half.h does (NaNs included),
 * fmin/fmax keep the first operand on ties as glibc's do, and the float
 * functions the host backend composes (host_math.c: exp2, silu, sin, cos,
 * pow, log2, log10) are composed here from the same f64 steps (fmod,
 * exact either way, is libm's). Fast-math flags are ignored, as the
 * interpreter ignores them.
 */
#include "host_native.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/core/bytes.h"
#include "hrx/fabric/fault.h"
#include "hrx/fabric/host_isa.h"
#include "hrx/fabric/host_native.h"

/*===------------------------------------------------------------------===*/
/* Section framing (every build)                                           */
/*===------------------------------------------------------------------===*/

static hrx_status_t hn_malformed(const char* what) {
  return hrx_make_status(HRX_STATUS_DATA_LOSS,
                         "code object native section is malformed: %s", what);
}

hrx_status_t loom_host_native_skip(const uint8_t* at, const uint8_t* end,
                                   uint32_t kernel_count,
                                   const uint8_t** out_next) {
#define HN_NEED(n, what)                                                     \
  do {                                                                       \
    if ((uint64_t)(end - at) < (uint64_t)(n)) return hn_malformed(what);     \
  } while (0)
  HN_NEED(8, "truncated header");
  if (memcmp(at, HRX_HOST_NATIVE_MAGIC, 4) != 0) {
    return hn_malformed("bad magic");
  }
  at += 4;
  if (hrx_get_le(&at, 4) != HRX_HOST_NATIVE_ABI) {
    return hn_malformed("unknown ABI");
  }
  static const uint32_t limits[] = {HRX_HOST_NATIVE_MAX_CPU,
                                    HRX_HOST_NATIVE_MAX_FEATURES};
  for (int i = 0; i < 2; ++i) {
    HN_NEED(4, "truncated target");
    uint32_t length = (uint32_t)hrx_get_le(&at, 4);
    if (length > limits[i]) return hn_malformed("target too long");
    HN_NEED(length, "truncated target");
    at += length;
  }
  HN_NEED(4, "truncated kernel count");
  if (hrx_get_le(&at, 4) != kernel_count) {
    return hn_malformed("kernel count differs from the code object's");
  }
  for (uint32_t k = 0; k < kernel_count; ++k) {
    HN_NEED(8, "truncated kernel entry");
    uint32_t has_code = (uint32_t)hrx_get_le(&at, 4);
    uint32_t note = (uint32_t)hrx_get_le(&at, 4);
    if (has_code > 1 || note > HRX_HOST_NATIVE_MAX_NOTE) {
      return hn_malformed("bad kernel entry");
    }
    HN_NEED(note, "truncated note");
    at += note;
  }
  HN_NEED(4, "truncated object length");
  uint32_t object = (uint32_t)hrx_get_le(&at, 4);
  if (object > HRX_HOST_NATIVE_MAX_OBJECT) {
    return hn_malformed("object too large");
  }
  HN_NEED(object, "truncated object");
  *out_next = at + object;
  return HRX_OK;
#undef HN_NEED
}

#if !HRX_LOOM_HAVE_LLVM

hrx_status_t loom_host_native_append(const loom_module_t* module,
                                     const hrx_loom_specialization_t* spec,
                                     const hrx_loom_profile_t* profile,
                                     const hrx_loom_host_options_t* options,
                                     hrx_allocator_t allocator,
                                     hrx_string_builder_t* out) {
  (void)module;
  (void)spec;
  (void)profile;
  (void)options;
  (void)allocator;
  (void)out;
  return HRX_OK;
}

const char* loom_host_native_target(void) { return NULL; }

#else /* HRX_LOOM_HAVE_LLVM */

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "le_append.h"
#include "llvm_codegen.h"
#include "llvm_lower.h"
#include "math_formulas.h"
#include "op_table.h"

#define HN_MAX_VARS 16
#define HN_ROOT_LOCAL (-2)
#define HN_ROOT_NONE (-3)    /* only undefined or cyclic inputs */
#define HN_ROOT_UNKNOWN (-1)
/* Bindings whose next footprint a workgroup prefetches, and the largest
 * footprint (bytes) worth it: beyond it the accesses are not a stream. */
#define HN_MAX_PREFETCH 8
#define HN_PREFETCH_MAX_SPAN 16384
#define HN_CLONE_DEPTH 48
#define HN_MAX_WORKGROUP 1024u /* work-items, as the executor allows */
#define HN_MAX_LANE_ARRAY_BYTES (4u << 20)

/*===------------------------------------------------------------------===*/
/* Target                                                                  */
/*===------------------------------------------------------------------===*/

static pthread_once_t hn_once = PTHREAD_ONCE_INIT;
static char* hn_triple;
static char* hn_cpu;
static char* hn_features;
static char* hn_identity;
static bool hn_usable; /* an x86-64 LLVM target for the running CPU */

static void hn_initialize(void) {
  LLVMInitializeX86TargetInfo();
  LLVMInitializeX86Target();
  LLVMInitializeX86TargetMC();
  LLVMInitializeX86AsmPrinter();
  hn_triple = LLVMGetDefaultTargetTriple();
  hn_cpu = LLVMGetHostCPUName();
  hn_features = LLVMGetHostCPUFeatures();
  unsigned major = 0, minor = 0, patch = 0;
  LLVMGetVersion(&major, &minor, &patch);
  size_t length =
      strlen(hn_triple) + strlen(hn_cpu) + strlen(hn_features) + 64;
  hn_identity = malloc(length);
  if (hn_identity) {
    snprintf(hn_identity, length, "LLVM %u.%u.%u %s %s %s", major, minor,
             patch, hn_triple, hn_cpu, hn_features);
  }
  LLVMTargetRef target = NULL;
  char* message = NULL;
  hn_usable = hn_identity && !strncmp(hn_triple, "x86_64", 6) &&
              strlen(hn_cpu) <= HRX_HOST_NATIVE_MAX_CPU &&
              strlen(hn_features) <= HRX_HOST_NATIVE_MAX_FEATURES &&
              !LLVMGetTargetFromTriple(hn_triple, &target, &message);
  LLVMDisposeMessage(message);
}

/* HRX_HOST_NATIVE=0 turns native code off: no section is compiled (a
 * portable code object, e.g. for a bundle) and none is run. */
static bool hn_disabled(void) {
  const char* value = getenv("HRX_HOST_NATIVE");
  return value && !strcmp(value, "0");
}

const char* loom_host_native_target(void) {
  pthread_once(&hn_once, hn_initialize);
  if (!hn_usable || hn_disabled()) return NULL;
  return hn_identity;
}

/*===------------------------------------------------------------------===*/
/* State                                                                   */
/*===------------------------------------------------------------------===*/

/* A variable of the affine analysis: a work-item id or a loop counter,
 * with its range over the workgroup (i128 values in the precheck). */
typedef struct hn_var_t {
  LLVMValueRef key;
  LLVMValueRef lo, hi;
  LLVMValueRef valid; /* i1: the range is sound, or NULL */
} hn_var_t;

/* An affine form c[0] + sum c[1 + v] * var[v]; NULL coefficients are 0.
 * Coefficients are i128 values in the precheck. */
typedef struct hn_form_t {
  LLVMValueRef c[HN_MAX_VARS + 1];
} hn_form_t;

typedef struct hn_iv_t {
  LLVMValueRef phi, lo, hi, step;
} hn_iv_t;

/* An access's pointer and the root it was checked against. */
typedef struct hn_claim_t {
  LLVMValueRef ptr;
  int root;
} hn_claim_t;

/* A pointer loaded from the lane array of value |value|. */
typedef struct hn_array_load_t {
  LLVMValueRef load;
  uint32_t value;
} hn_array_load_t;

/* A division the kernel makes, by its operands (its IR is a select over
 * a branch; ranges read it as what it computes). */
typedef struct hn_division_t {
  LLVMValueRef result, x, y;
  bool remainder;
} hn_division_t;

typedef struct hn_memo_t {
  LLVMValueRef key;
  LLVMValueRef value; /* the clone, or hn_not_invariant */
} hn_memo_t;

typedef struct hn_t {
  llvm_lower_t lower; /* first: the hooks find the rest from it */
  llvm_target_hooks_t hooks;
  const loom_module_t* m;
  const hrx_loom_specialization_t* spec;
  hrx_allocator_t allocator;
  hrx_status_t status; /* allocation failure */
  LLVMContextRef context;
  LLVMModuleRef module;
  LLVMTargetMachineRef machine;
  LLVMBuilderRef pre;
  llvm_first_error_t llvm_errors;
  LLVMTypeRef i1, i8, i16, i32, i64, i128, ptr;
  unsigned prof_kind;
  LLVMValueRef cold_weights;

  /* Per kernel */
  char note[HRX_HOST_NATIVE_MAX_NOTE];
  bool declined;
  LLVMValueRef fn, args;
  LLVMBasicBlockRef prologue, precheck, fault, latch;
  LLVMValueRef fault_phi[5]; /* kind, item, slot, bytes, offset */
  uint32_t binding_count;
  LLVMValueRef binding_base[HRX_HOST_MAX_BINDINGS];
  LLVMValueRef binding_size[HRX_HOST_MAX_BINDINGS];
  LLVMValueRef local_base, local_size, cancel;
  LLVMValueRef group_id[3], group_size[3], group_count[3];
  LLVMValueRef item[3], flat;
  bool fast;
  loom_array_t claims; /* hn_claim_t */
  loom_array_t ivs;    /* hn_iv_t */

  /* The fast copy's analysis */
  LLVMValueRef pre_ok;
  uint32_t hoisted;
  /* Per binding streamed by the fast copy: its byte range over the
   * workgroup (i128 values in the precheck). */
  struct {
    int root;
    LLVMValueRef least, most;
  } prefetch[HN_MAX_PREFETCH];
  uint32_t prefetch_count;
  hn_var_t vars[HN_MAX_VARS];
  uint32_t var_count;
  hn_memo_t* memo;
  uint32_t memo_capacity, memo_count;
  loom_array_t safe_divisors; /* LLVMValueRef */
  loom_array_t divisions;     /* hn_division_t */

  /* Phases (kernels with subgroup operations), per module value */
  uint8_t* uniform;     /* the same in every lane of a wave */
  uint8_t* imported;    /* loaded in the phase being lowered */
  LLVMValueRef* arrays; /* lane array, or NULL */
  int* array_roots;     /* the root of the pointers a lane array holds */
  loom_array_t array_loads; /* hn_array_load_t: pointers loaded from one */
  LLVMBuilderRef entry; /* where lane arrays are allocated */
  LLVMValueRef lane, wave_base, wave_lanes, one_dimensional, wave_index;
  /* Kernels with workgroup barriers run their phases over the whole
   * workgroup (loop fission): one "wave" of up to |lanes| work-items. */
  bool workgroup_phases;
  uint32_t lanes; /* the length of a lane array */
  uint64_t array_bytes; /* of the lane arrays so far, both copies */
  uint32_t kernel_region; /* the kernel's body */
  /* Loop phis standing for affine variables (per phase: work-item ids,
   * the lane; the wave): phi, variable. */
  LLVMValueRef phi_keys[256];
  uint32_t phi_vars[256];
  uint32_t phi_count;
} hn_t;

static hn_t* hn_of(llvm_lower_t* l) {
  return (hn_t*)((char*)l - offsetof(hn_t, lower));
}

/* Declines the kernel being lowered (the first reason sticks). */
static void hn_decline(hn_t* h, const char* format, ...) HRX_PRINTF(2, 3);
static void hn_decline(hn_t* h, const char* format, ...) {
  if (h->declined) return;
  h->declined = true;
  va_list args;
  va_start(args, format);
  vsnprintf(h->note, sizeof(h->note), format, args);
  va_end(args);
}

static bool hn_try(hn_t* h, hrx_status_t status) {
  if (status == HRX_OK) return true;
  if (h->status == HRX_OK) {
    h->status = status;
  } else {
    hrx_status_free(status);
  }
  hn_decline(h, "out of memory");
  return false;
}

/*===------------------------------------------------------------------===*/
/* IR helpers                                                              */
/*===------------------------------------------------------------------===*/

static LLVMBuilderRef hn_b(hn_t* h) { return h->lower.builder; }

static LLVMValueRef hn_int(LLVMTypeRef type, int64_t value) {
  return LLVMConstInt(type, (unsigned long long)value, 1);
}

/* |value| as a constant of |type|'s elements, splatted for vectors. */
static LLVMValueRef hn_splat(LLVMValueRef scalar, LLVMTypeRef type) {
  if (LLVMGetTypeKind(type) != LLVMVectorTypeKind) return scalar;
  unsigned n = LLVMGetVectorSize(type);
  LLVMValueRef elements[64];
  if (n > 64) n = 64;
  for (unsigned i = 0; i < n; ++i) elements[i] = scalar;
  return LLVMConstVector(elements, n);
}

static LLVMTypeRef hn_element(LLVMTypeRef type) {
  return LLVMGetTypeKind(type) == LLVMVectorTypeKind
             ? LLVMGetElementType(type) : type;
}

static LLVMValueRef hn_int_like(LLVMTypeRef type, int64_t value) {
  return hn_splat(hn_int(hn_element(type), value), type);
}

/* |type| with its elements (or itself) replaced by |element|. */
static LLVMTypeRef hn_with_element(LLVMTypeRef type, LLVMTypeRef element) {
  return LLVMGetTypeKind(type) == LLVMVectorTypeKind
             ? LLVMVectorType(element, LLVMGetVectorSize(type)) : element;
}

static LLVMValueRef hn_call_intrinsic(LLVMBuilderRef b, LLVMModuleRef module,
                                      const char* name, LLVMTypeRef* types,
                                      size_t type_count, LLVMValueRef* args,
                                      unsigned arg_count) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!LLVMIntrinsicIsOverloaded(id)) type_count = 0;
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(module, id, types, type_count);
  LLVMTypeRef fn_type = LLVMIntrinsicGetType(LLVMGetModuleContext(module), id,
                                             types, type_count);
  return LLVMBuildCall2(b, fn_type, fn, args, arg_count, "");
}

/* A one-type intrinsic on |args| (the type of the first) with |b|. */
static LLVMValueRef hn_intrinsic(hn_t* h, LLVMBuilderRef b, const char* name,
                                 LLVMValueRef* args, unsigned count) {
  LLVMTypeRef type = LLVMTypeOf(args[0]);
  return hn_call_intrinsic(b, h->module, name, &type, 1, args, count);
}

/* x <op>.with.overflow y: the result, and |*overflow| |= the flag. */
static LLVMValueRef hn_overflow(hn_t* h, LLVMBuilderRef b, const char* name,
                                LLVMValueRef x, LLVMValueRef y,
                                LLVMValueRef* overflow) {
  LLVMValueRef args[] = {x, y};
  LLVMValueRef pair = hn_intrinsic(h, b, name, args, 2);
  LLVMValueRef flag = LLVMBuildExtractValue(b, pair, 1, "");
  *overflow = *overflow ? LLVMBuildOr(b, *overflow, flag, "") : flag;
  return LLVMBuildExtractValue(b, pair, 0, "");
}

/* A call to an external function |name| of |type| (libm). */
static LLVMValueRef hn_call_external(hn_t* h, const char* name,
                                     LLVMTypeRef type, LLVMValueRef* args,
                                     unsigned count) {
  LLVMValueRef fn = LLVMGetNamedFunction(h->module, name);
  if (!fn) {
    fn = LLVMAddFunction(h->module, name, type);
    LLVMAddAttributeAtIndex(
        fn, LLVMAttributeFunctionIndex,
        LLVMCreateEnumAttribute(h->context,
                                LLVMGetEnumAttributeKindForName("nounwind", 8),
                                0));
  }
  return LLVMBuildCall2(hn_b(h), type, fn, args, count, "");
}

/*===------------------------------------------------------------------===*/
/* Faults                                                                  */
/*===------------------------------------------------------------------===*/

/* Branches to the fault block when |bad| holds (kind, slot, bytes, offset
 * recorded) and continues in a new block otherwise. */
static void hn_fault_if_slot(hn_t* h, LLVMValueRef bad,
                             hrx_fabric_fault_kind_t kind, LLVMValueRef slot,
                             uint32_t bytes, LLVMValueRef offset) {
  LLVMBuilderRef b = hn_b(h);
  LLVMBasicBlockRef here = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(h->context, h->fn,
                                                         "checked");
  LLVMValueRef br = LLVMBuildCondBr(b, bad, h->fault, next);
  LLVMSetMetadata(br, h->prof_kind, h->cold_weights);
  LLVMValueRef incoming[5] = {
      LLVMConstInt(h->i32, kind, 0), h->flat, slot,
      LLVMConstInt(h->i32, bytes, 0),
      offset ? offset : LLVMConstInt(h->i64, 0, 0)};
  for (int i = 0; i < 5; ++i) {
    LLVMAddIncoming(h->fault_phi[i], &incoming[i], &here, 1);
  }
  LLVMPositionBuilderAtEnd(b, next);
}

static void hn_fault_if(hn_t* h, LLVMValueRef bad, hrx_fabric_fault_kind_t kind,
                        uint32_t slot, uint32_t bytes, LLVMValueRef offset) {
  hn_fault_if_slot(h, bad, kind, LLVMConstInt(h->i32, slot, 0), bytes, offset);
}

/* The fault block: stores the record into args->fault and returns the
 * kind. */
static void hn_fault_block(hn_t* h) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(h->context);
  LLVMPositionBuilderAtEnd(b, h->fault);
  LLVMTypeRef types[5] = {h->i32, h->i32, h->i32, h->i32, h->i64};
  static const uint32_t offsets[5] = {0, 4, 8, 12, 16};
  for (int i = 0; i < 5; ++i) {
    h->fault_phi[i] = LLVMBuildPhi(b, types[i], "");
  }
  for (int i = 0; i < 5; ++i) {
    LLVMValueRef at = hn_int(h->i64, HRX_HOST_NATIVE_ARGS_FAULT + offsets[i]);
    LLVMValueRef field = LLVMBuildGEP2(b, h->i8, h->args, &at, 1, "");
    LLVMBuildStore(b, h->fault_phi[i], field);
  }
  LLVMBuildRet(b, h->fault_phi[0]);
  LLVMDisposeBuilder(b);
}

/*===------------------------------------------------------------------===*/
/* Provenance: which binding a pointer belongs to                          */
/*===------------------------------------------------------------------===*/

static int hn_merge_root(int a, int b) {
  if (a == HN_ROOT_NONE) return b;
  if (b == HN_ROOT_NONE) return a;
  return a == b ? a : HN_ROOT_UNKNOWN;
}

static int hn_root_walk(hn_t* h, LLVMValueRef p, LLVMValueRef* seen,
                        uint32_t* seen_count, int depth) {
  for (uint32_t i = 0; i < h->binding_count; ++i) {
    if (p == h->binding_base[i]) return (int)i;
  }
  if (p == h->local_base) return HN_ROOT_LOCAL;
  if (depth > 64) return HN_ROOT_UNKNOWN;
  if (LLVMIsALoadInst(p)) {
    /* A pointer a phase left in a lane array: the root of everything
     * stored there. */
    for (uint32_t i = 0; i < h->array_loads.count; ++i) {
      const hn_array_load_t* a = &LOOM_AT(h->array_loads, hn_array_load_t, i);
      if (a->load == p) return h->array_roots[a->value];
    }
    return HN_ROOT_UNKNOWN;
  }
  if (LLVMIsAUndefValue(p) || LLVMIsAPoisonValue(p)) return HN_ROOT_NONE;
  if (LLVMIsAGetElementPtrInst(p) || LLVMIsAAddrSpaceCastInst(p) ||
      LLVMIsABitCastInst(p)) {
    return hn_root_walk(h, LLVMGetOperand(p, 0), seen, seen_count, depth + 1);
  }
  if (LLVMIsASelectInst(p)) {
    return hn_merge_root(
        hn_root_walk(h, LLVMGetOperand(p, 1), seen, seen_count, depth + 1),
        hn_root_walk(h, LLVMGetOperand(p, 2), seen, seen_count, depth + 1));
  }
  if (LLVMIsAPHINode(p)) {
    for (uint32_t i = 0; i < *seen_count; ++i) {
      if (seen[i] == p) return HN_ROOT_NONE;
    }
    if (*seen_count == 64) return HN_ROOT_UNKNOWN;
    seen[(*seen_count)++] = p;
    int root = HN_ROOT_NONE;
    unsigned count = LLVMCountIncoming(p);
    for (unsigned i = 0; i < count && root != HN_ROOT_UNKNOWN; ++i) {
      root = hn_merge_root(root, hn_root_walk(h, LLVMGetIncomingValue(p, i),
                                              seen, seen_count, depth + 1));
    }
    return root;
  }
  return HN_ROOT_UNKNOWN;
}

/* The binding (or HN_ROOT_LOCAL) |p| points into, or HN_ROOT_UNKNOWN. */
static int hn_root(hn_t* h, LLVMValueRef p) {
  LLVMValueRef seen[64];
  uint32_t seen_count = 0;
  int root = hn_root_walk(h, p, seen, &seen_count, 0);
  return root == HN_ROOT_NONE ? HN_ROOT_UNKNOWN : root;
}

static LLVMValueRef hn_root_pointer(hn_t* h, int root) {
  return root == HN_ROOT_LOCAL ? h->local_base : h->binding_base[root];
}

static LLVMValueRef hn_root_size(hn_t* h, int root) {
  return root == HN_ROOT_LOCAL ? h->local_size : h->binding_size[root];
}

/* Finds and records |p|'s root, declining the kernel when there is none
 * (checked again once every loop has its back-edges). */
static int hn_claim(hn_t* h, LLVMValueRef p) {
  int root = hn_root(h, p);
  if (root == HN_ROOT_UNKNOWN) {
    hn_decline(h, "an access through a buffer chosen at run time");
    return root;
  }
  uint32_t at = 0;
  if (!hn_try(h, loom_array_grow(&h->claims, h->allocator,
                                 sizeof(hn_claim_t), 1, &at))) {
    return HN_ROOT_UNKNOWN;
  }
  LOOM_AT(h->claims, hn_claim_t, at) = (hn_claim_t){p, root};
  return root;
}

/* |p|'s byte offset from |base| (i64). */
static LLVMValueRef hn_offset_from(hn_t* h, LLVMValueRef p, LLVMValueRef base) {
  LLVMBuilderRef b = hn_b(h);
  return LLVMBuildSub(b, LLVMBuildPtrToInt(b, p, h->i64, ""),
                      LLVMBuildPtrToInt(b, base, h->i64, ""), "");
}

/* A buffer chosen at run time (scf.select between buffer arguments): the
 * chosen binding's base, size and slot, as selects on the same conditions
 * built where the builder is. False when |p| is not a tree of selects and
 * offsets over the bindings (a phi, a lane array, workgroup memory). */
typedef struct hn_dynamic_t {
  LLVMValueRef base, size, slot;
} hn_dynamic_t;

static bool hn_dynamic_root(hn_t* h, LLVMValueRef p, hn_dynamic_t* out,
                            int depth) {
  for (uint32_t i = 0; i < h->binding_count; ++i) {
    if (p == h->binding_base[i]) {
      *out = (hn_dynamic_t){p, h->binding_size[i],
                            LLVMConstInt(h->i32, i, 0)};
      return true;
    }
  }
  if (depth > 16) return false;
  if (LLVMIsAGetElementPtrInst(p) || LLVMIsAAddrSpaceCastInst(p) ||
      LLVMIsABitCastInst(p)) {
    return hn_dynamic_root(h, LLVMGetOperand(p, 0), out, depth + 1);
  }
  if (!LLVMIsASelectInst(p)) return false;
  LLVMValueRef cond = LLVMGetOperand(p, 0);
  hn_dynamic_t x, y;
  if (LLVMTypeOf(cond) != h->i1 ||
      !hn_dynamic_root(h, LLVMGetOperand(p, 1), &x, depth + 1) ||
      !hn_dynamic_root(h, LLVMGetOperand(p, 2), &y, depth + 1)) {
    return false;
  }
  LLVMBuilderRef b = hn_b(h);
  out->base = LLVMBuildSelect(b, cond, x.base, y.base, "");
  out->size = LLVMBuildSelect(b, cond, x.size, y.size, "");
  out->slot = LLVMBuildSelect(b, cond, x.slot, y.slot, "");
  return true;
}

/*===------------------------------------------------------------------===*/
/* Invariants: cloning work-item independent values into the precheck      */
/*===------------------------------------------------------------------===*/

/* A marker for "depends on the work-item or on memory". */
static LLVMValueRef hn_not_invariant(hn_t* h) {
  return LLVMGetUndef(h->i1);
}

static hn_memo_t* hn_memo_slot(hn_t* h, LLVMValueRef key) {
  uint32_t mask = h->memo_capacity - 1;
  uint32_t at = (uint32_t)(((uintptr_t)key >> 4) * 2654435761u) & mask;
  while (h->memo[at].key && h->memo[at].key != key) at = (at + 1) & mask;
  return &h->memo[at];
}

static bool hn_memo_put(hn_t* h, LLVMValueRef key, LLVMValueRef value) {
  if ((h->memo_count + 1) * 2 > h->memo_capacity) {
    uint32_t capacity = h->memo_capacity ? h->memo_capacity * 2 : 256;
    hn_memo_t* old = h->memo;
    uint32_t old_capacity = h->memo_capacity;
    if (!hn_try(h, hrx_allocator_malloc_array(h->allocator, capacity,
                                              sizeof(hn_memo_t),
                                              (void**)&h->memo))) {
      h->memo = old;
      return false;
    }
    memset(h->memo, 0, capacity * sizeof(hn_memo_t));
    h->memo_capacity = capacity;
    for (uint32_t i = 0; i < old_capacity; ++i) {
      if (old[i].key) *hn_memo_slot(h, old[i].key) = old[i];
    }
    hrx_allocator_free(h->allocator, old);
  }
  hn_memo_t* slot = hn_memo_slot(h, key);
  if (!slot->key) h->memo_count++;
  *slot = (hn_memo_t){key, value};
  return true;
}

static bool hn_is_safe_divisor(hn_t* h, LLVMValueRef v) {
  if (LLVMIsAConstantInt(v)) {
    int64_t d = LLVMConstIntGetSExtValue(v);
    return d != 0 && d != -1;
  }
  for (uint32_t i = 0; i < h->safe_divisors.count; ++i) {
    if (LOOM_AT(h->safe_divisors, LLVMValueRef, i) == v) return true;
  }
  return false;
}

/* Whether a call is to an intrinsic the precheck may repeat. */
static bool hn_pure_call(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (!callee || !LLVMIsAFunction(callee)) return false;
  size_t length = 0;
  const char* name = LLVMGetValueName2(callee, &length);
  static const char* const prefixes[] = {
      "llvm.sadd.with.overflow.", "llvm.ssub.with.overflow.",
      "llvm.smul.with.overflow.", "llvm.uadd.with.overflow.",
      "llvm.usub.with.overflow.", "llvm.umul.with.overflow.",
      "llvm.smin.", "llvm.smax.", "llvm.umin.", "llvm.umax.", "llvm.abs."};
  for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); ++i) {
    if (length > strlen(prefixes[i]) &&
        !strncmp(name, prefixes[i], strlen(prefixes[i]))) {
      return true;
    }
  }
  return false;
}

/* |v| computed in the precheck, or NULL when it depends on a work-item id,
 * a loop or memory. Values of the prologue and constants stand as they
 * are. */
static LLVMValueRef hn_clone(hn_t* h, LLVMValueRef v, int depth) {
  if (LLVMIsAConstant(v) || LLVMIsAArgument(v) || LLVMIsABasicBlock(v)) {
    return v;
  }
  if (!LLVMIsAInstruction(v)) return NULL;
  if (LLVMGetInstructionParent(v) == h->prologue) return v;
  if (h->memo_capacity) {
    hn_memo_t* slot = hn_memo_slot(h, v);
    if (slot->key == v) {
      return slot->value == hn_not_invariant(h) ? NULL : slot->value;
    }
  }
  LLVMValueRef clone = NULL;
  LLVMOpcode opcode = LLVMGetInstructionOpcode(v);
  bool pure = false;
  switch (opcode) {
    case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr:
    case LLVMAShr: case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMICmp:
    case LLVMSelect: case LLVMZExt: case LLVMSExt: case LLVMTrunc:
    case LLVMPtrToInt: case LLVMExtractValue: case LLVMGetElementPtr:
      pure = true;
      break;
    case LLVMSDiv: case LLVMUDiv: case LLVMSRem: case LLVMURem:
      pure = hn_is_safe_divisor(h, LLVMGetOperand(v, 1));
      break;
    case LLVMCall:
      pure = hn_pure_call(v);
      break;
    default:
      break;
  }
  if (pure && depth < HN_CLONE_DEPTH) {
    int count = LLVMGetNumOperands(v);
    LLVMValueRef operands[8];
    bool ok = count <= 8;
    for (int i = 0; ok && i < count; ++i) {
      LLVMValueRef operand = LLVMGetOperand(v, i);
      operands[i] = opcode == LLVMCall && i == count - 1
                        ? operand : hn_clone(h, operand, depth + 1);
      ok = operands[i] != NULL;
    }
    if (ok) {
      clone = LLVMInstructionClone(v);
      LLVMInsertIntoBuilder(h->pre, clone);
      for (int i = 0; i < count; ++i) LLVMSetOperand(clone, (unsigned)i, operands[i]);
      /* The precheck may evaluate what the kernel never does: no flag may
       * turn it into poison. */
      if (opcode == LLVMAdd || opcode == LLVMSub || opcode == LLVMMul ||
          opcode == LLVMShl) {
        LLVMSetNUW(clone, 0);
        LLVMSetNSW(clone, 0);
      } else if (opcode == LLVMSDiv || opcode == LLVMUDiv ||
                 opcode == LLVMLShr || opcode == LLVMAShr) {
        LLVMSetExact(clone, 0);
      } else if (opcode == LLVMGetElementPtr) {
        LLVMSetIsInBounds(clone, 0);
      }
    }
  }
  if (!hn_memo_put(h, v, clone ? clone : hn_not_invariant(h))) return NULL;
  return clone;
}

/*===------------------------------------------------------------------===*/
/* Affine forms over the workgroup                                         */
/*===------------------------------------------------------------------===*/

static LLVMValueRef hn_wide(hn_t* h, LLVMValueRef v) {
  LLVMTypeRef type = LLVMTypeOf(v);
  if (type == h->i128) return v;
  return LLVMBuildSExt(h->pre, v, h->i128, "");
}

/* |v| (i128) fits in i64. */
static LLVMValueRef hn_fits64(hn_t* h, LLVMValueRef v) {
  LLVMValueRef narrow = LLVMBuildTrunc(h->pre, v, h->i64, "");
  return LLVMBuildICmp(h->pre, LLVMIntEQ,
                       LLVMBuildSExt(h->pre, narrow, h->i128, ""), v, "");
}

static LLVMValueRef hn_and(hn_t* h, LLVMValueRef x, LLVMValueRef y) {
  if (!x) return y;
  if (!y) return x;
  return LLVMBuildAnd(h->pre, x, y, "");
}

/* x + y or x - y in i128; |*ok| loses overflow. */
static LLVMValueRef hn_add128(hn_t* h, LLVMValueRef x, LLVMValueRef y,
                              bool subtract, LLVMValueRef* ok) {
  LLVMValueRef overflow = NULL;
  LLVMValueRef r = hn_overflow(
      h, h->pre,
      subtract ? "llvm.ssub.with.overflow" : "llvm.sadd.with.overflow", x, y,
      &overflow);
  *ok = hn_and(h, *ok, LLVMBuildNot(h->pre, overflow, ""));
  return r;
}

/* x * y for x and y that must fit in i64 (|*ok| requires it): exact. */
static LLVMValueRef hn_mul128(hn_t* h, LLVMValueRef x, LLVMValueRef y,
                              LLVMValueRef* ok) {
  *ok = hn_and(h, *ok, hn_and(h, hn_fits64(h, x), hn_fits64(h, y)));
  return LLVMBuildMul(h->pre, x, y, "");
}

static bool hn_form_is_constant(const hn_form_t* f) {
  for (int i = 1; i <= HN_MAX_VARS; ++i) {
    if (f->c[i]) return false;
  }
  return true;
}

static void hn_form_add(hn_t* h, hn_form_t* out, const hn_form_t* x,
                        const hn_form_t* y, bool subtract, LLVMValueRef* ok) {
  for (int i = 0; i <= HN_MAX_VARS; ++i) {
    LLVMValueRef a = x->c[i], b = y->c[i];
    if (!b) {
      out->c[i] = a;
    } else if (!a) {
      out->c[i] = subtract ? hn_add128(h, LLVMConstInt(h->i128, 0, 0), b,
                                       true, ok)
                           : b;
    } else {
      out->c[i] = hn_add128(h, a, b, subtract, ok);
    }
  }
}

static void hn_form_scale(hn_t* h, hn_form_t* out, const hn_form_t* x,
                          LLVMValueRef factor, LLVMValueRef* ok) {
  for (int i = 0; i <= HN_MAX_VARS; ++i) {
    out->c[i] = x->c[i] ? hn_mul128(h, x->c[i], factor, ok) : NULL;
  }
}

/* The least (or greatest) value of |f| over the variables' ranges. */
static LLVMValueRef hn_form_bound(hn_t* h, const hn_form_t* f, bool upper,
                                  LLVMValueRef* ok) {
  LLVMValueRef sum = f->c[0] ? f->c[0] : LLVMConstInt(h->i128, 0, 0);
  for (uint32_t v = 0; v < h->var_count; ++v) {
    LLVMValueRef c = f->c[1 + v];
    if (!c) continue;
    LLVMValueRef at_lo = hn_mul128(h, c, h->vars[v].lo, ok);
    LLVMValueRef at_hi = hn_mul128(h, c, h->vars[v].hi, ok);
    LLVMValueRef lo_wins = LLVMBuildICmp(h->pre, upper ? LLVMIntSGT
                                                       : LLVMIntSLT,
                                         at_lo, at_hi, "");
    sum = hn_add128(h, sum, LLVMBuildSelect(h->pre, lo_wins, at_lo, at_hi, ""),
                    false, ok);
    if (h->vars[v].valid) *ok = hn_and(h, *ok, h->vars[v].valid);
  }
  return sum;
}

/* lo <= f <= hi over the workgroup. |out_range| (may be NULL) receives
 * f's least and greatest values. */
static void hn_form_within(hn_t* h, const hn_form_t* f, LLVMValueRef lo,
                           LLVMValueRef hi, LLVMValueRef* ok,
                           LLVMValueRef out_range[2]) {
  LLVMValueRef least = hn_form_bound(h, f, false, ok);
  LLVMValueRef most = hn_form_bound(h, f, true, ok);
  *ok = hn_and(h, *ok, LLVMBuildICmp(h->pre, LLVMIntSGE, least, lo, ""));
  *ok = hn_and(h, *ok, LLVMBuildICmp(h->pre, LLVMIntSLE, most, hi, ""));
  if (out_range) {
    out_range[0] = least;
    out_range[1] = most;
  }
}

/* Intermediate address values stay far from overflow: |f| <= 2^62. */
static void hn_form_tame(hn_t* h, const hn_form_t* f, LLVMValueRef* ok) {
  hn_form_within(h, f, hn_int(h->i128, -(INT64_C(1) << 62)),
                 hn_int(h->i128, INT64_C(1) << 62), ok, NULL);
}

static bool hn_affine(hn_t* h, LLVMValueRef v, hn_form_t* out, int depth);

/* The variable of loop counter |phi|, made on first use: its range runs
 * from the least start to the greatest end - 1 over the workgroup. */
static int hn_iv_var(hn_t* h, LLVMValueRef phi, int depth) {
  for (uint32_t v = 0; v < h->var_count; ++v) {
    if (h->vars[v].key == phi) return (int)v;
  }
  const hn_iv_t* iv = NULL;
  for (uint32_t i = 0; i < h->ivs.count; ++i) {
    if (LOOM_AT(h->ivs, hn_iv_t, i).phi == phi) iv = &LOOM_AT(h->ivs, hn_iv_t, i);
  }
  if (!iv || h->var_count == HN_MAX_VARS || !LLVMIsAConstantInt(iv->step) ||
      LLVMConstIntGetSExtValue(iv->step) <= 0 ||
      LLVMTypeOf(phi) != h->i64) {
    return -1;
  }
  int64_t step = LLVMConstIntGetSExtValue(iv->step);
  hn_form_t lo, hi;
  LLVMValueRef saved_ok = h->pre_ok;
  h->pre_ok = NULL; /* the forms' own conditions belong to the range */
  bool affine = hn_affine(h, iv->lo, &lo, depth + 1) &&
                hn_affine(h, iv->hi, &hi, depth + 1);
  LLVMValueRef ok = h->pre_ok;
  h->pre_ok = saved_ok;
  if (!affine) return -1;
  LLVMValueRef least = hn_form_bound(h, &lo, false, &ok);
  LLVMValueRef end = hn_form_bound(h, &hi, true, &ok);
  /* No counter passes INT64_MAX: end + step - 1 stays in range. */
  ok = hn_and(h, ok, LLVMBuildICmp(h->pre, LLVMIntSLE, end,
                                   hn_int(h->i128, INT64_MAX - step + 1), ""));
  LLVMValueRef last = hn_add128(h, end, hn_int(h->i128, 1), true, &ok);
  LLVMValueRef empty = LLVMBuildICmp(h->pre, LLVMIntSLT, last, least, "");
  last = LLVMBuildSelect(h->pre, empty, least, last, "");
  ok = hn_and(h, ok, hn_and(h, hn_fits64(h, least), hn_fits64(h, last)));
  h->vars[h->var_count] = (hn_var_t){phi, least, last, ok};
  return (int)h->var_count++;
}

/* Whether |v| (i64) is an affine form of the work-item ids and loop
 * counters with coefficients known before the loops; |out| gets it. */
static bool hn_affine(hn_t* h, LLVMValueRef v, hn_form_t* out, int depth) {
  memset(out, 0, sizeof(*out));
  if (depth > HN_CLONE_DEPTH || LLVMTypeOf(v) != h->i64) return false;
  LLVMValueRef invariant = hn_clone(h, v, 0);
  if (invariant) {
    out->c[0] = hn_wide(h, invariant);
    return true;
  }
  if (!LLVMIsAInstruction(v)) return false;
  LLVMOpcode opcode = LLVMGetInstructionOpcode(v);
  if (opcode == LLVMZExt) {
    LLVMValueRef x = LLVMGetOperand(v, 0);
    for (int d = 0; d < 3; ++d) {
      if (x == h->item[d]) {
        out->c[1 + d] = LLVMConstInt(h->i128, 1, 0);
        return true;
      }
    }
    for (uint32_t i = 0; i < h->phi_count; ++i) {
      if (x == h->phi_keys[i]) {
        out->c[1 + h->phi_vars[i]] = LLVMConstInt(h->i128, 1, 0);
        return true;
      }
    }
    return false;
  }
  if (opcode == LLVMPHI) {
    int var = hn_iv_var(h, v, depth);
    if (var < 0) return false;
    out->c[1 + var] = LLVMConstInt(h->i128, 1, 0);
    return true;
  }
  hn_form_t x, y;
  LLVMValueRef ok = NULL; /* coefficient arithmetic is checked at use */
  switch (opcode) {
    case LLVMAdd:
    case LLVMSub:
      if (!hn_affine(h, LLVMGetOperand(v, 0), &x, depth + 1) ||
          !hn_affine(h, LLVMGetOperand(v, 1), &y, depth + 1)) {
        return false;
      }
      hn_form_add(h, out, &x, &y, opcode == LLVMSub, &ok);
      break;
    case LLVMMul:
      if (!hn_affine(h, LLVMGetOperand(v, 0), &x, depth + 1) ||
          !hn_affine(h, LLVMGetOperand(v, 1), &y, depth + 1)) {
        return false;
      }
      if (hn_form_is_constant(&y)) {
        hn_form_scale(h, out, &x, y.c[0] ? y.c[0] : LLVMConstInt(h->i128, 0, 0),
                      &ok);
      } else if (hn_form_is_constant(&x)) {
        hn_form_scale(h, out, &y, x.c[0] ? x.c[0] : LLVMConstInt(h->i128, 0, 0),
                      &ok);
      } else {
        return false;
      }
      break;
    case LLVMShl: {
      LLVMValueRef amount = LLVMGetOperand(v, 1);
      if (!LLVMIsAConstantInt(amount) ||
          (uint64_t)LLVMConstIntGetZExtValue(amount) > 62 ||
          !hn_affine(h, LLVMGetOperand(v, 0), &x, depth + 1)) {
        return false;
      }
      hn_form_scale(h, out, &x,
                    hn_int(h->i128, INT64_C(1)
                                        << LLVMConstIntGetZExtValue(amount)),
                    &ok);
      break;
    }
    default:
      return false;
  }
  /* The wrapped i64 result equals the form wherever the form fits, which
   * the access's own range check ensures at the corners; coefficient
   * overflow in i128 fails the precheck. */
  if (ok) h->pre_ok = hn_and(h, h->pre_ok, ok);
  return true;
}

/*===------------------------------------------------------------------===*/
/* Ranges: bounds of values that are not affine                            */
/*===------------------------------------------------------------------===*/

/* [lo, hi] over the workgroup, i128 values in the precheck. */
typedef struct hn_interval_t {
  LLVMValueRef lo, hi;
} hn_interval_t;

static LLVMValueRef hn_min128(hn_t* h, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildSelect(h->pre, LLVMBuildICmp(h->pre, LLVMIntSLT, x, y, ""),
                         x, y, "");
}

static LLVMValueRef hn_max128(hn_t* h, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildSelect(h->pre, LLVMBuildICmp(h->pre, LLVMIntSGT, x, y, ""),
                         x, y, "");
}

static hn_interval_t hn_interval_const(hn_t* h, int64_t lo, int64_t hi) {
  return (hn_interval_t){hn_int(h->i128, lo), hn_int(h->i128, hi)};
}

static void hn_interval_mul(hn_t* h, const hn_interval_t* x,
                            const hn_interval_t* y, hn_interval_t* out,
                            LLVMValueRef* ok) {
  LLVMValueRef p[4] = {hn_mul128(h, x->lo, y->lo, ok),
                       hn_mul128(h, x->lo, y->hi, ok),
                       hn_mul128(h, x->hi, y->lo, ok),
                       hn_mul128(h, x->hi, y->hi, ok)};
  out->lo = hn_min128(h, hn_min128(h, p[0], p[1]), hn_min128(h, p[2], p[3]));
  out->hi = hn_max128(h, hn_max128(h, p[0], p[1]), hn_max128(h, p[2], p[3]));
}

static bool hn_range(hn_t* h, LLVMValueRef v, hn_interval_t* out, int depth);

/* |x| where the select choosing it between arms tested |cond|: a clamp
 * select(x <u bound, x, k) keeps x in [0, bound - 1]. */
static bool hn_range_guarded(hn_t* h, LLVMValueRef x, LLVMValueRef cond,
                             bool when, hn_interval_t* out, int depth) {
  if (LLVMIsAICmpInst(cond) && LLVMGetOperand(cond, 0) == x &&
      LLVMTypeOf(x) == h->i64) {
    LLVMIntPredicate pred = LLVMGetICmpPredicate(cond);
    if ((pred == LLVMIntULT && when) || (pred == LLVMIntUGE && !when)) {
      hn_interval_t bound;
      LLVMValueRef ok = NULL;
      if (!hn_range(h, LLVMGetOperand(cond, 1), &bound, depth + 1)) {
        return false;
      }
      /* x <u bound with bound >= 0: 0 <= x < bound's greatest. */
      ok = LLVMBuildICmp(h->pre, LLVMIntSGE, bound.lo,
                         LLVMConstInt(h->i128, 0, 0), "");
      h->pre_ok = hn_and(h, h->pre_ok, ok);
      out->lo = LLVMConstInt(h->i128, 0, 0);
      out->hi = hn_add128(h, bound.hi, LLVMConstInt(h->i128, 1, 0), true,
                          &h->pre_ok);
      return true;
    }
  }
  return hn_range(h, x, out, depth + 1);
}

/* Bounds of |v| (i64) over the workgroup: an affine form's at its
 * corners, else by interval arithmetic through divisions, remainders,
 * clamps, min and max, sums and products, masks and widened 32-bit
 * values. Conditions it relies on join h->pre_ok. */
static bool hn_range(hn_t* h, LLVMValueRef v, hn_interval_t* out, int depth) {
  if (depth > HN_CLONE_DEPTH) return false;
  LLVMTypeRef type = LLVMTypeOf(v);
  if (type == h->i32 || type == h->i16 || type == h->i8) {
    /* Only the type's range (a loaded value, say). */
    unsigned bits = LLVMGetIntTypeWidth(type);
    *out = hn_interval_const(h, -(INT64_C(1) << (bits - 1)),
                             (INT64_C(1) << (bits - 1)) - 1);
    return true;
  }
  if (type != h->i64) return false;
  hn_form_t form;
  if (hn_affine(h, v, &form, depth + 1)) {
    out->lo = hn_form_bound(h, &form, false, &h->pre_ok);
    out->hi = hn_form_bound(h, &form, true, &h->pre_ok);
    return true;
  }
  if (!LLVMIsAInstruction(v)) return false;
  for (uint32_t i = 0; i < h->divisions.count; ++i) {
    const hn_division_t* d = &LOOM_AT(h->divisions, hn_division_t, i);
    if (d->result != v) continue;
    /* x >= 0 and y >= 1: x / y within [x.lo / y.hi, x.hi / y.lo]; x % y
     * within [0, min(x.hi, y.hi - 1)]. */
    hn_interval_t x, y;
    if (!hn_range(h, d->x, &x, depth + 1) ||
        !hn_range(h, d->y, &y, depth + 1)) {
      return false;
    }
    LLVMValueRef zero = LLVMConstInt(h->i128, 0, 0);
    LLVMValueRef one = LLVMConstInt(h->i128, 1, 0);
    h->pre_ok = hn_and(h, h->pre_ok,
                       LLVMBuildICmp(h->pre, LLVMIntSGE, x.lo, zero, ""));
    h->pre_ok = hn_and(h, h->pre_ok,
                       LLVMBuildICmp(h->pre, LLVMIntSGE, y.lo, one, ""));
    h->pre_ok = hn_and(h, h->pre_ok, hn_fits64(h, x.hi));
    h->pre_ok = hn_and(h, h->pre_ok, hn_fits64(h, y.hi));
    if (d->remainder) {
      out->lo = zero;
      out->hi = hn_min128(h, x.hi, LLVMBuildSub(h->pre, y.hi, one, ""));
      return true;
    }
    /* Unsigned i64 divisions (no i128 division in the precheck); the
     * operands are non-negative here, or the precheck fails anyway. */
    LLVMValueRef safe = LLVMBuildSelect(
        h->pre, LLVMBuildICmp(h->pre, LLVMIntSGE, y.lo, one, ""), y.lo, one,
        "");
    LLVMValueRef safe_hi = hn_max128(h, y.hi, one);
    out->lo = LLVMBuildZExt(
        h->pre,
        LLVMBuildUDiv(h->pre, LLVMBuildTrunc(h->pre, x.lo, h->i64, ""),
                      LLVMBuildTrunc(h->pre, safe_hi, h->i64, ""), ""),
        h->i128, "");
    out->hi = LLVMBuildZExt(
        h->pre,
        LLVMBuildUDiv(h->pre, LLVMBuildTrunc(h->pre, x.hi, h->i64, ""),
                      LLVMBuildTrunc(h->pre, safe, h->i64, ""), ""),
        h->i128, "");
    return true;
  }
  LLVMOpcode opcode = LLVMGetInstructionOpcode(v);
  hn_interval_t x, y;
  switch (opcode) {
    case LLVMSExt:
    case LLVMZExt: {
      LLVMValueRef from = LLVMGetOperand(v, 0);
      unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(from));
      if (bits >= 64) return false;
      *out = opcode == LLVMZExt
                 ? hn_interval_const(h, 0, (INT64_C(1) << bits) - 1)
                 : hn_interval_const(h, -(INT64_C(1) << (bits - 1)),
                                     (INT64_C(1) << (bits - 1)) - 1);
      return true;
    }
    case LLVMAnd: {
      LLVMValueRef mask = LLVMGetOperand(v, 1);
      if (!LLVMIsAConstantInt(mask) || LLVMConstIntGetSExtValue(mask) < 0) {
        return false;
      }
      *out = hn_interval_const(h, 0, LLVMConstIntGetSExtValue(mask));
      return true;
    }
    case LLVMSelect: {
      LLVMValueRef cond = LLVMGetOperand(v, 0);
      LLVMValueRef a = LLVMGetOperand(v, 1), b = LLVMGetOperand(v, 2);
      if (!hn_range_guarded(h, a, cond, true, &x, depth) ||
          !hn_range_guarded(h, b, cond, false, &y, depth)) {
        return false;
      }
      /* min and max as selects keep the tighter bound. */
      if (LLVMIsAICmpInst(cond) && LLVMGetOperand(cond, 0) == a &&
          LLVMGetOperand(cond, 1) == b) {
        LLVMIntPredicate pred = LLVMGetICmpPredicate(cond);
        if (pred == LLVMIntSLT || pred == LLVMIntSLE) {
          out->lo = hn_min128(h, x.lo, y.lo);
          out->hi = hn_min128(h, x.hi, y.hi);
          return true;
        }
        if (pred == LLVMIntSGT || pred == LLVMIntSGE) {
          out->lo = hn_max128(h, x.lo, y.lo);
          out->hi = hn_max128(h, x.hi, y.hi);
          return true;
        }
      }
      out->lo = hn_min128(h, x.lo, y.lo);
      out->hi = hn_max128(h, x.hi, y.hi);
      return true;
    }
    case LLVMAdd:
    case LLVMSub:
    case LLVMMul:
      if (!hn_range(h, LLVMGetOperand(v, 0), &x, depth + 1) ||
          !hn_range(h, LLVMGetOperand(v, 1), &y, depth + 1)) {
        return false;
      }
      if (opcode == LLVMMul) {
        hn_interval_mul(h, &x, &y, out, &h->pre_ok);
      } else if (opcode == LLVMAdd) {
        out->lo = hn_add128(h, x.lo, y.lo, false, &h->pre_ok);
        out->hi = hn_add128(h, x.hi, y.hi, false, &h->pre_ok);
      } else {
        out->lo = hn_add128(h, x.lo, y.hi, true, &h->pre_ok);
        out->hi = hn_add128(h, x.hi, y.lo, true, &h->pre_ok);
      }
      /* The wrapped i64 value is the exact one only when it fits. */
      h->pre_ok = hn_and(h, h->pre_ok, hn_fits64(h, out->lo));
      h->pre_ok = hn_and(h, h->pre_ok, hn_fits64(h, out->hi));
      return true;
    default:
      return false;
  }
}

/* lo <= r.lo and r.hi <= hi. */
static void hn_interval_within(hn_t* h, const hn_interval_t* r,
                               LLVMValueRef lo, LLVMValueRef hi,
                               LLVMValueRef* ok) {
  *ok = hn_and(h, *ok, LLVMBuildICmp(h->pre, LLVMIntSGE, r->lo, lo, ""));
  *ok = hn_and(h, *ok, LLVMBuildICmp(h->pre, LLVMIntSLE, r->hi, hi, ""));
}

static void hn_interval_tame(hn_t* h, const hn_interval_t* r,
                             LLVMValueRef* ok) {
  hn_interval_within(h, r, hn_int(h->i128, -(INT64_C(1) << 62)),
                     hn_int(h->i128, INT64_C(1) << 62), ok);
}

/* The access's byte offsets within [0, room] by ranges, when not by
 * affine forms; false when some operand has no range. */
static bool hn_hoist_ranges(hn_t* h, const llvm_address_t* a,
                            LLVMValueRef base, LLVMValueRef room) {
  hn_interval_t index = hn_interval_const(h, 0, 0), operands[3], product;
  if (a->first && !hn_range(h, a->first, &index, 0)) return false;
  for (uint32_t s = 0; s < a->step_count; ++s) {
    LLVMValueRef values[3] = {a->steps[s].a, a->steps[s].b, a->steps[s].c};
    for (int i = 0; i < 3; ++i) {
      if (!values[i]) {
        operands[i] = index;
      } else if (!hn_range(h, values[i], &operands[i], 0)) {
        return false;
      }
      hn_interval_tame(h, &operands[i], &h->pre_ok);
    }
    hn_interval_mul(h, &operands[0], &operands[1], &product, &h->pre_ok);
    hn_interval_tame(h, &product, &h->pre_ok);
    index.lo = hn_add128(h, product.lo, operands[2].lo, false, &h->pre_ok);
    index.hi = hn_add128(h, product.hi, operands[2].hi, false, &h->pre_ok);
    hn_interval_tame(h, &index, &h->pre_ok);
  }
  hn_interval_t elem = hn_interval_const(h, a->element_bytes, a->element_bytes);
  hn_interval_t total;
  hn_interval_mul(h, &index, &elem, &total, &h->pre_ok);
  LLVMValueRef wide_base = hn_wide(h, base);
  total.lo = hn_add128(h, total.lo, wide_base, false, &h->pre_ok);
  total.hi = hn_add128(h, total.hi, wide_base, false, &h->pre_ok);
  hn_interval_within(h, &total, LLVMConstInt(h->i128, 0, 0),
                     LLVMBuildZExt(h->pre, room, h->i128, ""), &h->pre_ok);
  return true;
}

/*===------------------------------------------------------------------===*/
/* Addresses                                                               */
/*===------------------------------------------------------------------===*/

/* acc = a * b + c as the host's IMADD with HRX_HOST_FLAG_ADDRESS: any
 * poison operand (INT64_MIN) or overflow gives INT64_MIN. */
static LLVMValueRef hn_index_madd(hn_t* h, LLVMValueRef a, LLVMValueRef b,
                                  LLVMValueRef c) {
  LLVMBuilderRef bb = hn_b(h);
  LLVMValueRef poison = hn_int(h->i64, INT64_MIN);
  LLVMValueRef bad = LLVMBuildOr(
      bb, LLVMBuildICmp(bb, LLVMIntEQ, a, poison, ""),
      LLVMBuildOr(bb, LLVMBuildICmp(bb, LLVMIntEQ, b, poison, ""),
                  LLVMBuildICmp(bb, LLVMIntEQ, c, poison, ""), ""),
      "");
  LLVMValueRef product = hn_overflow(h, bb, "llvm.smul.with.overflow", a, b,
                                     &bad);
  LLVMValueRef sum = hn_overflow(h, bb, "llvm.sadd.with.overflow", product, c,
                                 &bad);
  return LLVMBuildSelect(bb, bad, poison, sum, "");
}

/* Records that the fast copy reaches bytes [least, most] of binding
 * |root| (once per binding). */
static void hn_prefetch_note(hn_t* h, int root, LLVMValueRef least,
                             LLVMValueRef most) {
  if (root < 0 || h->prefetch_count == HN_MAX_PREFETCH) return;
  for (uint32_t i = 0; i < h->prefetch_count; ++i) {
    if (h->prefetch[i].root == root) return;
  }
  h->prefetch[h->prefetch_count].root = root;
  h->prefetch[h->prefetch_count].least = least;
  h->prefetch[h->prefetch_count].most = most;
  h->prefetch_count++;
}

/* The access's checks, hoisted into the precheck when its offset is
 * affine; false (nothing recorded) when it is not. */
static bool hn_hoist(hn_t* h, const llvm_address_t* a, int root,
                     LLVMValueRef base_off, LLVMValueRef size) {
  LLVMValueRef saved_ok = h->pre_ok;
  h->pre_ok = NULL; /* collects this access's conditions */
  hn_form_t f, p, operands[3];
  bool hoistable = true;
  if (a->first) {
    hoistable = hn_affine(h, a->first, &f, 0);
  } else {
    memset(&f, 0, sizeof(f));
  }
  for (uint32_t s = 0; hoistable && s < a->step_count; ++s) {
    LLVMValueRef values[3] = {a->steps[s].a, a->steps[s].b, a->steps[s].c};
    for (int i = 0; i < 3 && hoistable; ++i) {
      if (!values[i]) {
        operands[i] = f;
      } else {
        hoistable = hn_affine(h, values[i], &operands[i], 0);
      }
    }
    if (!hoistable) break;
    /* Every operand and result of the step stays far from overflow. */
    for (int i = 0; i < 3; ++i) hn_form_tame(h, &operands[i], &h->pre_ok);
    LLVMValueRef zero = LLVMConstInt(h->i128, 0, 0);
    if (hn_form_is_constant(&operands[1])) {
      hn_form_scale(h, &p, &operands[0],
                    operands[1].c[0] ? operands[1].c[0] : zero, &h->pre_ok);
    } else if (hn_form_is_constant(&operands[0])) {
      hn_form_scale(h, &p, &operands[1],
                    operands[0].c[0] ? operands[0].c[0] : zero, &h->pre_ok);
    } else {
      hoistable = false;
      break;
    }
    hn_form_tame(h, &p, &h->pre_ok);
    hn_form_add(h, &f, &p, &operands[2], false, &h->pre_ok);
    hn_form_tame(h, &f, &h->pre_ok);
  }
  LLVMValueRef base = hn_clone(h, base_off, 0);
  LLVMValueRef size_now = hn_clone(h, size, 0);
  if (!base || !size_now) {
    h->pre_ok = saved_ok;
    return false;
  }
  LLVMValueRef bytes = LLVMConstInt(h->i64, a->access_bytes, 0);
  LLVMValueRef room = LLVMBuildSub(h->pre, size_now, bytes, "");
  if (hoistable) {
    /* base + index * element bytes within [0, size - bytes]. */
    hn_form_t total, base_form;
    hn_form_scale(h, &total, &f, hn_int(h->i128, a->element_bytes),
                  &h->pre_ok);
    memset(&base_form, 0, sizeof(base_form));
    base_form.c[0] = hn_wide(h, base);
    hn_form_add(h, &total, &total, &base_form, false, &h->pre_ok);
    LLVMValueRef range[2];
    hn_form_within(h, &total, LLVMConstInt(h->i128, 0, 0),
                   LLVMBuildZExt(h->pre, room, h->i128, ""), &h->pre_ok,
                   range);
    /* Within the binding when the precheck passes (the only time the
     * prefetches run), so the i64 truncations are exact. */
    hn_prefetch_note(h, root, range[0], range[1]);
  } else {
    h->pre_ok = NULL;
    if (!hn_hoist_ranges(h, a, base, room)) {
      h->pre_ok = saved_ok;
      return false;
    }
  }
  h->pre_ok = hn_and(h, h->pre_ok,
                     LLVMBuildICmp(h->pre, LLVMIntUGE, size_now, bytes, ""));
  h->pre_ok = hn_and(
      h, h->pre_ok,
      LLVMBuildICmp(h->pre, LLVMIntNE, base,
                    hn_int(h->i64, (int64_t)HRX_HOST_OFFSET_MASK), ""));
  h->pre_ok = hn_and(h, saved_ok, h->pre_ok);
  h->hoisted++;
  return true;
}

/* An scf.if on an integer comparison of affine forms (i < n guarding the
 * tail of a grid): when the precheck finds it true for every work-item
 * of the workgroup, the fast copy branches on that alone, and LLVM
 * unswitches the loop into a version without the test (and without the
 * masked loads and stores vectorising the test would take). */
static LLVMValueRef hn_condition(llvm_lower_t* l, const loom_op_t* op,
                                 LLVMValueRef cond) {
  (void)op;
  hn_t* h = hn_of(l);
  if (!h->fast || !LLVMIsAICmpInst(cond)) return cond;
  LLVMValueRef x = LLVMGetOperand(cond, 0), y = LLVMGetOperand(cond, 1);
  if (LLVMTypeOf(x) != h->i64) return cond;
  LLVMIntPredicate pred = LLVMGetICmpPredicate(cond);
  bool is_unsigned = pred == LLVMIntULT || pred == LLVMIntULE ||
                     pred == LLVMIntUGT || pred == LLVMIntUGE;
  bool is_signed = pred == LLVMIntSLT || pred == LLVMIntSLE ||
                   pred == LLVMIntSGT || pred == LLVMIntSGE;
  if (!is_signed && !is_unsigned) return cond;
  LLVMValueRef saved_ok = h->pre_ok;
  h->pre_ok = NULL;
  hn_form_t fx, fy, difference;
  if (!hn_affine(h, x, &fx, 0) || !hn_affine(h, y, &fy, 0)) {
    h->pre_ok = saved_ok;
    return cond;
  }
  /* Both sides are exact i64 values; unsigned compares need them
   * non-negative too. */
  LLVMValueRef lo = hn_int(h->i128, is_unsigned ? 0 : INT64_MIN);
  LLVMValueRef hi = hn_int(h->i128, INT64_MAX);
  hn_form_within(h, &fx, lo, hi, &h->pre_ok, NULL);
  hn_form_within(h, &fy, lo, hi, &h->pre_ok, NULL);
  /* x - y is below 0 (lt), at most 0 (le), above 0 (gt), at least 0. */
  hn_form_add(h, &difference, &fx, &fy, true, &h->pre_ok);
  bool less = pred == LLVMIntULT || pred == LLVMIntULE ||
              pred == LLVMIntSLT || pred == LLVMIntSLE;
  bool strict = pred == LLVMIntULT || pred == LLVMIntUGT ||
                pred == LLVMIntSLT || pred == LLVMIntSGT;
  LLVMValueRef bound = hn_form_bound(h, &difference, less, &h->pre_ok);
  LLVMIntPredicate test = less ? (strict ? LLVMIntSLT : LLVMIntSLE)
                               : (strict ? LLVMIntSGT : LLVMIntSGE);
  LLVMValueRef always = hn_and(
      h, h->pre_ok,
      LLVMBuildICmp(h->pre, test, bound, LLVMConstInt(h->i128, 0, 0), ""));
  h->pre_ok = saved_ok;
  return LLVMBuildOr(hn_b(h), always, cond, "");
}

static LLVMValueRef hn_address(llvm_lower_t* l, const loom_op_t* op,
                               const llvm_address_t* a) {
  (void)op;
  hn_t* h = hn_of(l);
  LLVMBuilderRef b = hn_b(h);
  /* A buffer chosen at run time is checked at every access against the
   * binding chosen; the others have their root. */
  hn_dynamic_t dynamic = {0};
  int root = hn_root(h, a->base);
  if (root != HN_ROOT_UNKNOWN) {
    root = hn_claim(h, a->base);
    if (root == HN_ROOT_UNKNOWN) return NULL;
    dynamic = (hn_dynamic_t){
        hn_root_pointer(h, root), hn_root_size(h, root),
        LLVMConstInt(h->i32,
                     root == HN_ROOT_LOCAL ? HRX_HOST_SLOT_LOCAL
                                           : (uint32_t)root,
                     0)};
  } else if (!hn_dynamic_root(h, a->base, &dynamic, 0)) {
    hn_decline(h, "an access through a buffer chosen at run time");
    return NULL;
  }
  LLVMValueRef base_off = hn_offset_from(h, a->base, dynamic.base);
  LLVMValueRef size = dynamic.size;
  LLVMValueRef slot = dynamic.slot;
  LLVMValueRef elem = LLVMConstInt(h->i64, a->element_bytes, 0);
  LLVMValueRef total = NULL;
  if (h->fast && root != HN_ROOT_UNKNOWN &&
      hn_hoist(h, a, root, base_off, size)) {
    LLVMValueRef index = a->first ? a->first : LLVMConstInt(h->i64, 0, 0);
    for (uint32_t s = 0; s < a->step_count; ++s) {
      LLVMValueRef x = a->steps[s].a ? a->steps[s].a : index;
      LLVMValueRef y = a->steps[s].b ? a->steps[s].b : index;
      LLVMValueRef z = a->steps[s].c ? a->steps[s].c : index;
      index = LLVMBuildAdd(b, LLVMBuildMul(b, x, y, ""), z, "");
    }
    total = LLVMBuildAdd(b, base_off, LLVMBuildMul(b, index, elem, ""), "");
  } else {
    LLVMValueRef index = a->first ? a->first : LLVMConstInt(h->i64, 0, 0);
    for (uint32_t s = 0; s < a->step_count; ++s) {
      LLVMValueRef x = a->steps[s].a ? a->steps[s].a : index;
      LLVMValueRef y = a->steps[s].b ? a->steps[s].b : index;
      LLVMValueRef z = a->steps[s].c ? a->steps[s].c : index;
      index = hn_index_madd(h, x, y, z);
    }
    /* PTR_ADD: a poisoned base stays poisoned; the offset must not
     * overflow; then the access must fit in the binding. */
    LLVMValueRef bad = LLVMBuildICmp(
        b, LLVMIntEQ, base_off,
        hn_int(h->i64, (int64_t)HRX_HOST_OFFSET_MASK), "");
    LLVMValueRef scaled = hn_overflow(h, b, "llvm.smul.with.overflow", index,
                                      elem, &bad);
    total = hn_overflow(h, b, "llvm.sadd.with.overflow", base_off, scaled,
                        &bad);
    LLVMValueRef bytes = LLVMConstInt(h->i64, a->access_bytes, 0);
    bad = LLVMBuildOr(b, bad, LLVMBuildICmp(b, LLVMIntULT, size, bytes, ""),
                      "");
    bad = LLVMBuildOr(
        b, bad,
        LLVMBuildICmp(b, LLVMIntUGT, total, LLVMBuildSub(b, size, bytes, ""),
                      ""),
        "");
    hn_fault_if_slot(h, bad, HRX_FABRIC_FAULT_OUT_OF_BOUNDS, slot,
                     a->access_bytes, total);
  }
  LLVMValueRef ptr =
      LLVMBuildInBoundsGEP2(b, h->i8, dynamic.base, &total, 1, "");
  if (a->access != LLVM_ACCESS_LOAD && a->access != LLVM_ACCESS_STORE) {
    /* Atomics: naturally aligned, and loads and read-modify-writes of 4 or
     * 8 bytes only, as the executor has them. */
    uint32_t bytes = a->access_bytes;
    LLVMValueRef misaligned = LLVMBuildICmp(
        b, LLVMIntNE,
        LLVMBuildAnd(b, LLVMBuildPtrToInt(b, ptr, h->i64, ""),
                     LLVMConstInt(h->i64, bytes ? bytes - 1 : 0, 0), ""),
        LLVMConstInt(h->i64, 0, 0), "");
    if (a->access != LLVM_ACCESS_ATOMIC_STORE && bytes != 4 && bytes != 8) {
      misaligned = LLVMConstInt(h->i1, 1, 0);
    }
    hn_fault_if_slot(h, misaligned, HRX_FABRIC_FAULT_MISALIGNED, slot, bytes,
                     total);
  }
  return ptr;
}

/* buffer.view and workgroup allocations: PTR_ADD by |offset| bytes. */
static LLVMValueRef hn_view(llvm_lower_t* l, const loom_op_t* op,
                            LLVMValueRef base, LLVMValueRef offset) {
  (void)op;
  hn_t* h = hn_of(l);
  LLVMBuilderRef b = hn_b(h);
  int root = hn_root(h, base);
  hn_dynamic_t dynamic = {0};
  if (root != HN_ROOT_UNKNOWN) {
    dynamic.base = hn_root_pointer(h, root);
  } else if (!hn_dynamic_root(h, base, &dynamic, 0)) {
    hn_decline(h, "a view of a buffer chosen at run time");
    return NULL;
  }
  LLVMValueRef from = hn_offset_from(h, base, dynamic.base);
  LLVMValueRef mask = hn_int(h->i64, (int64_t)HRX_HOST_OFFSET_MASK);
  LLVMValueRef bad = LLVMBuildICmp(b, LLVMIntEQ, from, mask, "");
  LLVMValueRef next = hn_overflow(h, b, "llvm.sadd.with.overflow", from, offset,
                                  &bad);
  bad = LLVMBuildOr(b, bad,
                    LLVMBuildICmp(b, LLVMIntUGT, next, mask, ""), "");
  next = LLVMBuildSelect(b, bad, mask, next, "");
  return LLVMBuildGEP2(b, h->i8, dynamic.base, &next, 1, "");
}

static LLVMValueRef hn_workgroup_memory(llvm_lower_t* l) {
  return hn_of(l)->local_base;
}

/*===------------------------------------------------------------------===*/
/* Arithmetic with the executor's semantics                                */
/*===------------------------------------------------------------------===*/

/* Any element of |v| (an i1 or a vector of them). */
static LLVMValueRef hn_any(hn_t* h, LLVMValueRef v) {
  if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMVectorTypeKind) return v;
  return hn_intrinsic(h, hn_b(h), "llvm.vector.reduce.or", &v, 1);
}

/* x <code> y for a divisor that is neither 0 nor (signed) -1. A divisor
 * the work-items share (cell / width) is replaced by a multiplication:
 * the precheck computes its reciprocal once per workgroup, and operands
 * of 31 bits (a grid's indices) divide as (x * m) >> (31 + l), with
 * l = ceil(log2 d) and m = 2^(31+l) / d + 1, which Granlund and
 * Montgomery show exact for every x below 2^31; others divide. */
static LLVMValueRef hn_quotient(hn_t* h, ll_arith_t code, LLVMValueRef x,
                                LLVMValueRef y) {
  LLVMBuilderRef b = hn_b(h);
  LLVMValueRef (*build)(LLVMBuilderRef, LLVMValueRef, LLVMValueRef,
                        const char*) =
      code == LL_SDIV ? LLVMBuildSDiv
      : code == LL_UDIV ? LLVMBuildUDiv
      : code == LL_SREM ? LLVMBuildSRem
                        : LLVMBuildURem;
  LLVMValueRef d = LLVMTypeOf(x) == h->i64 && !LLVMIsAConstantInt(y)
                       ? hn_clone(h, y, 0) : NULL;
  if (!d || hn_clone(h, x, 0)) return build(b, x, y, "");
  /* The reciprocal, in the precheck. */
  LLVMBuilderRef p = h->pre;
  LLVMValueRef one = LLVMConstInt(h->i64, 1, 0);
  LLVMValueRef small_d = LLVMBuildICmp(
      p, LLVMIntULT, LLVMBuildSub(p, d, one, ""),
      LLVMConstInt(h->i64, (UINT64_C(1) << 31) - 1, 0), "");
  LLVMValueRef safe_d = LLVMBuildSelect(p, small_d, d, one, "");
  LLVMValueRef below = LLVMBuildSub(p, safe_d, one, "");
  LLVMValueRef args[2] = {below, LLVMConstInt(h->i1, 0, 0)};
  LLVMValueRef zeros = hn_call_intrinsic(p, h->module, "llvm.ctlz", &h->i64, 1,
                                         args, 2);
  LLVMValueRef l_bits = LLVMBuildSub(p, LLVMConstInt(h->i64, 64, 0), zeros,
                                     "");
  LLVMValueRef shift = LLVMBuildAdd(p, l_bits, LLVMConstInt(h->i64, 31, 0),
                                    "");
  LLVMValueRef m = LLVMBuildAdd(
      p, LLVMBuildUDiv(p, LLVMBuildShl(p, one, shift, ""), safe_d, ""), one,
      "");
  /* Per work-item: the multiplication when x fits, the division else;
   * when the precheck finds x fits for the whole workgroup, the test
   * leaves the loop (unswitched on that). */
  LLVMValueRef fits = LLVMBuildICmp(
      b, LLVMIntULT, x, LLVMConstInt(h->i64, UINT64_C(1) << 31, 0), "");
  /* When every x of the workgroup has the same quotient (a row index
   * over a row's cells), it is the quotient of the lowest: the loop then
   * branches on a flag the precheck sets, and LLVM unswitches it into a
   * copy where the quotient is invariant and the remainder affine. */
  LLVMValueRef same = NULL, q_lo = NULL;
  if (h->fast) {
    LLVMValueRef saved_ok = h->pre_ok;
    h->pre_ok = NULL;
    hn_interval_t range;
    if (hn_range(h, x, &range, 0)) {
      LLVMValueRef all = hn_and(
          h, h->pre_ok,
          LLVMBuildAnd(
              p,
              LLVMBuildICmp(p, LLVMIntSGE, range.lo,
                            LLVMConstInt(h->i128, 0, 0), ""),
              LLVMBuildICmp(p, LLVMIntSLT, range.hi,
                            LLVMConstInt(h->i128, UINT64_C(1) << 31, 0), ""),
              ""));
      fits = LLVMBuildOr(b, all, fits, "");
      /* lo and hi below 2^31 when |all|: the reciprocal divides them. */
      q_lo = LLVMBuildLShr(
          p, LLVMBuildMul(p, LLVMBuildTrunc(p, range.lo, h->i64, ""), m, ""),
          shift, "");
      LLVMValueRef q_hi = LLVMBuildLShr(
          p, LLVMBuildMul(p, LLVMBuildTrunc(p, range.hi, h->i64, ""), m, ""),
          shift, "");
      same = LLVMBuildAnd(
          p, LLVMBuildAnd(p, all, small_d, ""),
          LLVMBuildICmp(p, LLVMIntEQ, q_lo, q_hi, ""), "");
    }
    h->pre_ok = saved_ok;
  }
  LLVMValueRef fast = LLVMBuildAnd(b, small_d, fits, "");
  LLVMBasicBlockRef invariant =
      same ? LLVMAppendBasicBlockInContext(h->context, h->fn, "same.quotient")
           : NULL;
  LLVMBasicBlockRef varying =
      same ? LLVMAppendBasicBlockInContext(h->context, h->fn, "quotients")
           : NULL;
  if (same) {
    LLVMBuildCondBr(b, same, invariant, varying);
    LLVMPositionBuilderAtEnd(b, varying);
  }
  LLVMBasicBlockRef multiply = LLVMAppendBasicBlockInContext(
      h->context, h->fn, "reciprocal");
  LLVMBasicBlockRef divide = LLVMAppendBasicBlockInContext(h->context, h->fn,
                                                           "divide");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(h->context, h->fn,
                                                         "quotient");
  LLVMBuildCondBr(b, fast, multiply, divide);
  LLVMPositionBuilderAtEnd(b, multiply);
  LLVMValueRef q = LLVMBuildLShr(b, LLVMBuildMul(b, x, m, ""), shift, "");
  if (code == LL_SREM || code == LL_UREM) {
    q = LLVMBuildSub(b, x, LLVMBuildMul(b, q, d, ""), "");
  }
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, divide);
  LLVMValueRef slow = build(b, x, y, "");
  LLVMBuildBr(b, join);
  LLVMValueRef shared = NULL;
  if (same) {
    LLVMPositionBuilderAtEnd(b, invariant);
    shared = q_lo;
    if (code == LL_SREM || code == LL_UREM) {
      shared = LLVMBuildSub(b, x, LLVMBuildMul(b, q_lo, d, ""), "");
    }
    LLVMBuildBr(b, join);
  }
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef phi = LLVMBuildPhi(b, h->i64, "");
  LLVMValueRef values[3] = {q, slow, shared};
  LLVMBasicBlockRef from[3] = {multiply, divide, invariant};
  LLVMAddIncoming(phi, values, from, same ? 3 : 2);
  return phi;
}

/* IDIVS/IDIVU/IREMS/IREMU: a zero divisor faults; INT_MIN / -1 wraps and
 * x % -1 is 0. */
static LLVMValueRef hn_divide(hn_t* h, ll_arith_t code, LLVMValueRef x,
                              LLVMValueRef y) {
  LLVMBuilderRef b = hn_b(h);
  LLVMTypeRef type = LLVMTypeOf(x);
  bool is_signed = code == LL_SDIV || code == LL_SREM;
  bool remainder = code == LL_SREM || code == LL_UREM;
  LLVMValueRef zero = hn_int_like(type, 0), one = hn_int_like(type, 1);
  LLVMValueRef minus = hn_int_like(type, -1);
  LLVMValueRef is_zero = LLVMBuildICmp(b, LLVMIntEQ, y, zero, "");
  if (!(LLVMIsAConstantInt(y) && LLVMConstIntGetZExtValue(y) != 0)) {
    hn_fault_if(h, hn_any(h, is_zero), HRX_FABRIC_FAULT_DIVIDE_BY_ZERO, 0, 0,
                NULL);
  }
  if (LLVMIsAConstantInt(y) && LLVMConstIntGetSExtValue(y) != 0 &&
      (!is_signed || LLVMConstIntGetSExtValue(y) != -1)) {
    uint32_t at = 0;
    if (!hn_try(h, loom_array_grow(&h->safe_divisors, h->allocator,
                                   sizeof(LLVMValueRef), 1, &at))) {
      return NULL;
    }
    LOOM_AT(h->safe_divisors, LLVMValueRef, at) = y;
  } else {
    LLVMValueRef unsafe = is_zero;
    if (is_signed) {
      unsafe = LLVMBuildOr(b, unsafe,
                           LLVMBuildICmp(b, LLVMIntEQ, y, minus, ""), "");
    }
    LLVMValueRef divisor = LLVMBuildSelect(b, unsafe, one, y, "");
    uint32_t at = 0;
    if (!hn_try(h, loom_array_grow(&h->safe_divisors, h->allocator,
                                   sizeof(LLVMValueRef), 1, &at))) {
      return NULL;
    }
    LOOM_AT(h->safe_divisors, LLVMValueRef, at) = divisor;
    LLVMValueRef q = hn_quotient(h, code, x, divisor);
    if (!is_signed) return q;
    LLVMValueRef by_minus = LLVMBuildICmp(b, LLVMIntEQ, y, minus, "");
    return LLVMBuildSelect(b, by_minus,
                           remainder ? zero : LLVMBuildSub(b, zero, x, ""), q,
                           "");
  }
  switch (code) {
    case LL_SDIV: return LLVMBuildSDiv(b, x, y, "");
    case LL_UDIV: return LLVMBuildUDiv(b, x, y, "");
    case LL_SREM: return LLVMBuildSRem(b, x, y, "");
    default: return LLVMBuildURem(b, x, y, "");
  }
}

/* Shifts by at least the width give 0, or the sign for ISHRS. */
static LLVMValueRef hn_shift(hn_t* h, ll_arith_t code, LLVMValueRef x,
                             LLVMValueRef y) {
  LLVMBuilderRef b = hn_b(h);
  LLVMTypeRef type = LLVMTypeOf(x);
  unsigned bits = LLVMGetIntTypeWidth(hn_element(type));
  LLVMValueRef limit = hn_int_like(type, bits - 1);
  LLVMValueRef wide = LLVMBuildICmp(b, LLVMIntUGT, y, limit, "");
  if (code == LL_ASHR) {
    LLVMValueRef amount = LLVMBuildSelect(b, wide, limit, y, "");
    return LLVMBuildAShr(b, x, amount, "");
  }
  LLVMValueRef amount = LLVMBuildSelect(b, wide, hn_int_like(type, 0), y, "");
  LLVMValueRef r = code == LL_SHL ? LLVMBuildShl(b, x, amount, "")
                                  : LLVMBuildLShr(b, x, amount, "");
  return LLVMBuildSelect(b, wide, hn_int_like(type, 0), r, "");
}

/* glibc's fminf/fmaxf (and fmin/fmax) on x86-64, which the interpreter
 * calls: ordered operands give x < y ? x : y (x > y for max; ties give
 * y); a quiet NaN yields the other operand (x when both are NaNs); a
 * signalling NaN gives the sum x + y, the quieted first NaN operand. */
static LLVMValueRef hn_minmax(hn_t* h, bool max, LLVMValueRef x,
                              LLVMValueRef y) {
  LLVMBuilderRef b = hn_b(h);
  LLVMTypeRef type = LLVMTypeOf(x);
  bool is_f64 = LLVMGetTypeKind(hn_element(type)) == LLVMDoubleTypeKind;
  LLVMTypeRef bits_type = hn_with_element(type, is_f64 ? h->i64 : h->i32);
  LLVMValueRef quiet_bit =
      hn_int_like(bits_type, is_f64 ? INT64_C(1) << 51 : INT64_C(1) << 22);
  LLVMValueRef zero = hn_int_like(bits_type, 0);
  LLVMValueRef xb = LLVMBuildBitCast(b, x, bits_type, "");
  LLVMValueRef yb = LLVMBuildBitCast(b, y, bits_type, "");
  LLVMValueRef x_nan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
  LLVMValueRef y_nan = LLVMBuildFCmp(b, LLVMRealUNO, y, y, "");
  LLVMValueRef x_quiet = LLVMBuildBitCast(
      b, LLVMBuildOr(b, xb, quiet_bit, ""), type, "");
  LLVMValueRef y_quiet = LLVMBuildBitCast(
      b, LLVMBuildOr(b, yb, quiet_bit, ""), type, "");
  LLVMValueRef x_signal = LLVMBuildAnd(
      b, x_nan,
      LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, xb, quiet_bit, ""), zero,
                    ""),
      "");
  LLVMValueRef y_signal = LLVMBuildAnd(
      b, y_nan,
      LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildAnd(b, yb, quiet_bit, ""), zero,
                    ""),
      "");
  LLVMValueRef sum = LLVMBuildSelect(b, x_nan, x_quiet, y_quiet, "");
  LLVMValueRef x_wins =
      LLVMBuildFCmp(b, max ? LLVMRealOGT : LLVMRealOLT, x, y, "");
  LLVMValueRef ordered = LLVMBuildSelect(b, x_wins, x, y, "");
  LLVMValueRef x_is_nan = LLVMBuildSelect(b, x_signal, x_quiet, y, "");
  LLVMValueRef y_is_nan = LLVMBuildSelect(b, y_signal, sum, x, "");
  LLVMValueRef r = LLVMBuildSelect(b, x_nan, x_is_nan, ordered, "");
  return LLVMBuildSelect(b, y_nan, y_is_nan, r, "");
}

/* The f64 formula helpers of host_math.c, on scalars. */
typedef struct hn_math_t {
  hn_t* h;
  LLVMBuilderRef b;
  LLVMTypeRef f64;
} hn_math_t;

static LLVMValueRef hm_k(hn_math_t* m, double value) {
  return LLVMConstReal(m->f64, value);
}
static LLVMValueRef hm_mul(hn_math_t* m, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildFMul(m->b, x, y, "");
}
static LLVMValueRef hm_add(hn_math_t* m, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildFAdd(m->b, x, y, "");
}
static LLVMValueRef hm_sub(hn_math_t* m, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildFSub(m->b, x, y, "");
}
static LLVMValueRef hm_1(hn_math_t* m, const char* name, LLVMValueRef x) {
  return hn_intrinsic(m->h, m->b, name, &x, 1);
}
static LLVMValueRef hm_fma(hn_math_t* m, LLVMValueRef x, LLVMValueRef y,
                           LLVMValueRef z) {
  LLVMValueRef args[] = {x, y, z};
  return hn_intrinsic(m->h, m->b, "llvm.fma", args, 3);
}
static LLVMValueRef hm_cmp(hn_math_t* m, LLVMRealPredicate pred,
                           LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildFCmp(m->b, pred, x, y, "");
}
static LLVMValueRef hm_select(hn_math_t* m, LLVMValueRef c, LLVMValueRef x,
                              LLVMValueRef y) {
  return LLVMBuildSelect(m->b, c, x, y, "");
}

/* Whether f64 |x|'s sign bit is set (-0 and negative NaNs too). */
static LLVMValueRef hm_sign_bit(hn_math_t* m, LLVMValueRef x) {
  LLVMValueRef bits = LLVMBuildBitCast(m->b, x, m->h->i64, "");
  return LLVMBuildICmp(m->b, LLVMIntSLT, bits, LLVMConstInt(m->h->i64, 0, 0),
                       "");
}

/* hm_trig of host_math.c, step for step. */
static LLVMValueRef hn_trig(hn_math_t* m, LLVMValueRef x, bool cosine) {
  static const double two_over_pi[] = {
      0xa2f9836p-28,  0xe4e4415p-56,  0x29fc275p-84,  0x7d1f534p-112,
      0xddc0db6p-140, 0x295993cp-168, 0x439041fp-196, 0xe5163abp-224};
  LLVMValueRef quarter = hm_k(m, 0.25), minus4 = hm_k(m, -4.0);
  LLVMValueRef up = hm_k(m, 0x1p20), down = hm_k(m, 0x1p-20);
  LLVMValueRef whole = hm_k(m, 0.0), fraction = whole;
  for (size_t i = 0; i < sizeof(two_over_pi) / sizeof(two_over_pi[0]); ++i) {
    LLVMValueRef p = hm_mul(m, x, hm_k(m, two_over_pi[i]));
    LLVMValueRef fours = hm_1(m, "llvm.roundeven", hm_mul(m, p, quarter));
    p = hm_fma(m, fours, minus4, p);
    LLVMValueRef high =
        hm_mul(m, hm_1(m, "llvm.roundeven", hm_mul(m, p, up)), down);
    whole = hm_add(m, whole, high);
    fraction = hm_add(m, fraction, hm_sub(m, p, high));
  }
  LLVMValueRef n = hm_1(m, "llvm.roundeven", whole);
  LLVMValueRef f = hm_add(m, hm_sub(m, whole, n), fraction);
  LLVMValueRef quadrant =
      hm_fma(m, hm_1(m, "llvm.floor", hm_mul(m, n, quarter)), minus4, n);
  LLVMValueRef r = hm_mul(m, f, hm_k(m, 0x1.921fb54442d18p0));
  LLVMValueRef r2 = hm_mul(m, r, r);
  static const double sine[] = {-1.0 / 39916800, 1.0 / 362880, -1.0 / 5040,
                                1.0 / 120, -1.0 / 6};
  LLVMValueRef s = hm_k(m, sine[0]);
  for (size_t i = 1; i < sizeof(sine) / sizeof(sine[0]); ++i) {
    s = hm_fma(m, r2, s, hm_k(m, sine[i]));
  }
  s = hm_fma(m, hm_mul(m, r, r2), s, r);
  static const double cosine_terms[] = {
      1.0 / 479001600, -1.0 / 3628800, 1.0 / 40320, -1.0 / 720, 1.0 / 24,
      -0.5, 1.0};
  LLVMValueRef c = hm_k(m, cosine_terms[0]);
  for (size_t i = 1; i < sizeof(cosine_terms) / sizeof(cosine_terms[0]);
       ++i) {
    c = hm_fma(m, r2, c, hm_k(m, cosine_terms[i]));
  }
  LLVMValueRef half = hm_mul(m, quadrant, hm_k(m, 0.5));
  LLVMValueRef odd =
      hm_cmp(m, LLVMRealUNE, hm_1(m, "llvm.floor", half), half);
  LLVMValueRef value, negate;
  if (cosine) {
    value = hm_select(m, odd, s, c);
    negate = hm_cmp(m, LLVMRealOLT,
                    hm_1(m, "llvm.fabs", hm_sub(m, quadrant, hm_k(m, 1.5))),
                    hm_k(m, 1.0));
  } else {
    value = hm_select(m, odd, c, s);
    negate = hm_cmp(m, LLVMRealOGE, quadrant, hm_k(m, 2.0));
  }
  value = hm_select(m, negate, LLVMBuildFNeg(m->b, value, ""), value);
  if (cosine) return value;
  return hm_select(m, hm_cmp(m, LLVMRealOEQ, x, hm_k(m, 0.0)), x, value);
}

/* hm_pow of host_math.c, step for step. */
static LLVMValueRef hn_pow(hn_math_t* m, LLVMValueRef x, LLVMValueRef y) {
  LLVMBuilderRef b = m->b;
  LLVMValueRef one = hm_k(m, 1.0), zero = hm_k(m, 0.0);
  LLVMValueRef magnitude = hm_1(m, "llvm.fabs", x);
  LLVMValueRef power =
      hm_1(m, "llvm.exp", hm_mul(m, y, hm_1(m, "llvm.log", magnitude)));
  LLVMValueRef r =
      hm_select(m, hm_cmp(m, LLVMRealOEQ, magnitude, one), one, power);
  LLVMValueRef y_floor = hm_1(m, "llvm.floor", y);
  LLVMValueRef not_integer = hm_cmp(m, LLVMRealUNE, y_floor, y);
  LLVMValueRef half = hm_mul(m, y, hm_k(m, 0.5));
  LLVMValueRef odd =
      LLVMBuildAnd(b, hm_cmp(m, LLVMRealOEQ, y_floor, y),
                   hm_cmp(m, LLVMRealUNE, hm_1(m, "llvm.floor", half), half),
                   "");
  LLVMValueRef sign = hm_sign_bit(m, x);
  r = hm_select(m, LLVMBuildAnd(b, sign, odd, ""), LLVMBuildFNeg(b, r, ""), r);
  LLVMValueRef finite_negative =
      LLVMBuildAnd(b, hm_cmp(m, LLVMRealOLT, x, zero),
                   hm_cmp(m, LLVMRealOGT, x, hm_k(m, -INFINITY)), "");
  r = hm_select(m, LLVMBuildAnd(b, finite_negative, not_integer, ""),
                hm_k(m, NAN), r);
  LLVMValueRef unit = LLVMBuildOr(b, hm_cmp(m, LLVMRealOEQ, y, zero),
                                  hm_cmp(m, LLVMRealOEQ, x, one), "");
  return hm_select(m, unit, one, r);
}

/* math_formulas.c's primitives as f64 IR, as host_math.c emits them. */
#define HN_V(x) ((LLVMValueRef)(x))
#define HN_LM(x) ((lm_value_t)(x))

static lm_value_t hn_f_constant(void* self, double value) {
  return HN_LM(hm_k(self, value));
}

static lm_value_t hn_f_unary(void* self, lm_unary_t op, lm_value_t x) {
  static const char* const names[] = {
      [LM_ABS] = "llvm.fabs", [LM_SQRT] = "llvm.sqrt", [LM_EXP] = "llvm.exp",
      [LM_LOG] = "llvm.log"};
  hn_math_t* m = self;
  if (op == LM_NEG) return HN_LM(LLVMBuildFNeg(m->b, HN_V(x), ""));
  if (op == LM_SIN || op == LM_COS) {
    return HN_LM(hn_trig(m, HN_V(x), op == LM_COS));
  }
  return HN_LM(hm_1(m, names[op], HN_V(x)));
}

static lm_value_t hn_f_binary(void* self, lm_binary_t op, lm_value_t x,
                              lm_value_t y) {
  hn_math_t* m = self;
  switch (op) {
    case LM_ADD: return HN_LM(hm_add(m, HN_V(x), HN_V(y)));
    case LM_SUB: return HN_LM(hm_sub(m, HN_V(x), HN_V(y)));
    case LM_MUL: return HN_LM(hm_mul(m, HN_V(x), HN_V(y)));
    default: return HN_LM(LLVMBuildFDiv(m->b, HN_V(x), HN_V(y), ""));
  }
}

static lm_value_t hn_f_fma(void* self, lm_value_t x, lm_value_t y,
                           lm_value_t z) {
  return HN_LM(hm_fma(self, HN_V(x), HN_V(y), HN_V(z)));
}

static lm_value_t hn_f_compare(void* self, lm_compare_t op, lm_value_t x,
                               lm_value_t y) {
  static const LLVMRealPredicate preds[] = {
      [LM_EQ] = LLVMRealOEQ, [LM_LT] = LLVMRealOLT, [LM_GT] = LLVMRealOGT};
  return HN_LM(hm_cmp(self, preds[op], HN_V(x), HN_V(y)));
}

static lm_value_t hn_f_unordered(void* self, lm_value_t x, lm_value_t y) {
  return HN_LM(hm_cmp(self, LLVMRealUNO, HN_V(x), HN_V(y)));
}

static lm_value_t hn_f_both(void* self, lm_value_t c, lm_value_t d) {
  return HN_LM(LLVMBuildAnd(((hn_math_t*)self)->b, HN_V(c), HN_V(d), ""));
}

static lm_value_t hn_f_select(void* self, lm_value_t c, lm_value_t x,
                              lm_value_t y) {
  return HN_LM(hm_select(self, HN_V(c), HN_V(x), HN_V(y)));
}

static lm_value_t hn_f_sign_bit(void* self, lm_value_t x) {
  return HN_LM(hm_sign_bit(self, HN_V(x)));
}

static LLVMValueRef hn_formula(hn_math_t* m, ll_arith_t code, LLVMValueRef x,
                               LLVMValueRef y) {
  const lm_emit_t emit = {
      .self = m,
      .constant = hn_f_constant,
      .unary = hn_f_unary,
      .binary = hn_f_binary,
      .fma = hn_f_fma,
      .compare = hn_f_compare,
      .unordered = hn_f_unordered,
      .both = hn_f_both,
      .select = hn_f_select,
      .sign_bit = hn_f_sign_bit,
  };
  return HN_V(lm_emit_function(&emit, (lm_function_t)(code - LL_EXPM1),
                               HN_LM(x), HN_LM(y)));
}

/* exp2, silu, sin, cos and pow as host_math.c composes them: in f64 for
 * narrower floats (rounded once at the end), in f64 itself for exp2 and
 * silu of f64. */
static LLVMValueRef hn_math(hn_t* h, ll_arith_t code, LLVMValueRef* v) {
  LLVMBuilderRef b = hn_b(h);
  LLVMTypeRef type = LLVMTypeOf(v[0]);
  if (LLVMGetTypeKind(type) == LLVMVectorTypeKind) {
    hn_decline(h, "vector float functions need the interpreter");
    return NULL;
  }
  hn_math_t m = {h, b, LLVMDoubleTypeInContext(h->context)};
  bool is_f64 = LLVMGetTypeKind(type) == LLVMDoubleTypeKind;
  LLVMValueRef x = is_f64 ? v[0] : LLVMBuildFPExt(b, v[0], m.f64, "");
  LLVMValueRef y = code == LL_POW || code == LL_ATAN2
                       ? (is_f64 ? v[1] : LLVMBuildFPExt(b, v[1], m.f64, ""))
                       : NULL;
  LLVMValueRef r = NULL;
  switch (code) {
    case LL_EXP2:
      r = hm_1(&m, "llvm.exp", hm_mul(&m, x, hm_k(&m, 0.69314718055994530942)));
      break;
    case LL_SILU: {
      LLVMValueRef e = hm_1(&m, "llvm.exp", LLVMBuildFNeg(b, x, ""));
      r = LLVMBuildFDiv(b, x, hm_add(&m, e, hm_k(&m, 1.0)), "");
      break;
    }
    case LL_LOG2: case LL_LOG10:
      r = hm_mul(&m, hm_1(&m, "llvm.log", x),
                 hm_k(&m, code == LL_LOG2 ? 1.4426950408889634074
                                          : 0.43429448190325182765));
      break;
    case LL_EXPM1: case LL_LOG1P: case LL_SINH: case LL_COSH: case LL_TAN:
    case LL_ATAN: case LL_ATAN2: case LL_ASIN: case LL_ACOS: case LL_CBRT:
    case LL_LOGISTIC: case LL_SOFTPLUS:
      r = hn_formula(&m, code, x, y);
      break;
    case LL_SIN: r = hn_trig(&m, x, false); break;
    case LL_COS: r = hn_trig(&m, x, true); break;
    default: r = hn_pow(&m, x, y); break;
  }
  return is_f64 ? r : LLVMBuildFPTrunc(b, r, type, "");
}

/* A unary hn_math function of a scalar, or of each lane of a vector
 * (lane by lane, as the interpreter computes it). */
static LLVMValueRef hn_math_lanes(hn_t* h, ll_arith_t code,
                                  LLVMValueRef* v) {
  LLVMTypeRef type = LLVMTypeOf(v[0]);
  if (LLVMGetTypeKind(type) != LLVMVectorTypeKind) return hn_math(h, code, v);
  LLVMBuilderRef b = hn_b(h);
  LLVMValueRef r = LLVMGetPoison(type);
  for (unsigned i = 0; i < LLVMGetVectorSize(type); ++i) {
    LLVMValueRef at = LLVMConstInt(h->i32, i, 0);
    LLVMValueRef e[2] = {LLVMBuildExtractElement(b, v[0], at, ""),
                         code == LL_ATAN2
                             ? LLVMBuildExtractElement(b, v[1], at, "")
                             : NULL};
    LLVMValueRef f = hn_math(h, code, e);
    if (!f) return NULL;
    r = LLVMBuildInsertElement(b, r, f, at, "");
  }
  return r;
}

/* C fmod through frem (libm's fmodf, exact as host_math.c's hm_fmod),
 * with the interpreter's NaN for y = 0, x = +-inf or a NaN operand. */
static LLVMValueRef hn_fmod(hn_t* h, LLVMValueRef x, LLVMValueRef y) {
  LLVMBuilderRef b = hn_b(h);
  LLVMTypeRef type = LLVMTypeOf(x);
  LLVMValueRef ax = hn_intrinsic(h, b, "llvm.fabs", &x, 1);
  LLVMValueRef infinity = LLVMConstReal(type, INFINITY);
  LLVMValueRef invalid = LLVMBuildOr(
      b,
      LLVMBuildOr(b, LLVMBuildFCmp(b, LLVMRealUNO, x, y, ""),
                  LLVMBuildFCmp(b, LLVMRealOEQ, ax, infinity, ""), ""),
      LLVMBuildFCmp(b, LLVMRealOEQ, y, LLVMConstNull(type), ""), "");
  return LLVMBuildSelect(b, invalid, LLVMConstReal(type, NAN),
                         LLVMBuildFRem(b, x, y, ""), "");
}

/* tanhf / tanh from libm, per element. */
static LLVMValueRef hn_tanh(hn_t* h, LLVMValueRef x) {
  LLVMBuilderRef b = hn_b(h);
  LLVMTypeRef type = LLVMTypeOf(x);
  LLVMTypeRef element = hn_element(type);
  bool is_f64 = LLVMGetTypeKind(element) == LLVMDoubleTypeKind;
  LLVMTypeRef fn_type = LLVMFunctionType(element, &element, 1, 0);
  const char* name = is_f64 ? "tanh" : "tanhf";
  if (LLVMGetTypeKind(type) != LLVMVectorTypeKind) {
    return hn_call_external(h, name, fn_type, &x, 1);
  }
  LLVMValueRef r = LLVMGetPoison(type);
  for (unsigned i = 0; i < LLVMGetVectorSize(type); ++i) {
    LLVMValueRef at = LLVMConstInt(h->i32, i, 0);
    LLVMValueRef e = LLVMBuildExtractElement(b, x, at, "");
    r = LLVMBuildInsertElement(b, r, hn_call_external(h, name, fn_type, &e, 1),
                               at, "");
  }
  return r;
}

static LLVMValueRef hn_arith(llvm_lower_t* l, const loom_op_t* op,
                             ll_arith_t code, LLVMValueRef* v) {
  (void)op;
  hn_t* h = hn_of(l);
  switch (code) {
    case LL_SDIV: case LL_UDIV: case LL_SREM: case LL_UREM: {
      LLVMValueRef r = hn_divide(h, code, v[0], v[1]);
      uint32_t at = 0;
      if (r && LLVMTypeOf(r) == h->i64 &&
          hn_try(h, loom_array_grow(&h->divisions, h->allocator,
                                    sizeof(hn_division_t), 1, &at))) {
        LOOM_AT(h->divisions, hn_division_t, at) = (hn_division_t){
            r, v[0], v[1], code == LL_SREM || code == LL_UREM};
      }
      return r;
    }
    case LL_SHL: case LL_LSHR: case LL_ASHR:
      return hn_shift(h, code, v[0], v[1]);
    case LL_FMIN: return hn_minmax(h, false, v[0], v[1]);
    case LL_FMAX: return hn_minmax(h, true, v[0], v[1]);
    case LL_CLAMP_NUMBER:
      return hn_minmax(h, false, hn_minmax(h, true, v[0], v[1]), v[2]);
    case LL_TANH: return hn_tanh(h, v[0]);
    case LL_EXP2: case LL_SILU: case LL_SIN: case LL_COS: case LL_POW:
      return hn_math(h, code, v);
    case LL_LOG2: case LL_LOG10: return hn_math_lanes(h, code, v);
    case LL_FREM: return hn_fmod(h, v[0], v[1]);
    default:
      return LL_IS_FORMULA(code) ? hn_math_lanes(h, code, v) : NULL;
  }
}

/* Float conversions, rounding as hrx/core/half.h does: f64 narrows to
 * f16 and bf16 through f32, f32 -> bf16 is nearest-even with NaNs made
 * quiet (payload kept), f32 -> f16 gives the canonical quiet NaN, and
 * f16 -> f32 keeps a NaN's payload (signalling or not). */
static LLVMValueRef hn_convert(llvm_lower_t* l, LLVMValueRef x,
                               LLVMTypeRef to) {
  hn_t* h = hn_of(l);
  LLVMBuilderRef b = hn_b(h);
  LLVMTypeRef from = LLVMTypeOf(x);
  LLVMTypeKind from_kind = LLVMGetTypeKind(hn_element(from));
  LLVMTypeKind to_kind = LLVMGetTypeKind(hn_element(to));
  LLVMTypeRef f32 = hn_with_element(from, LLVMFloatTypeInContext(h->context));
  LLVMTypeRef i32 = hn_with_element(from, h->i32);
  LLVMTypeRef i16 = hn_with_element(from, h->i16);
  bool narrow_to =
      to_kind == LLVMHalfTypeKind || to_kind == LLVMBFloatTypeKind;
  if (from_kind == LLVMDoubleTypeKind && narrow_to) {
    x = LLVMBuildFPTrunc(b, x, f32, "");
    from = f32;
    from_kind = LLVMFloatTypeKind;
  }
  if (from_kind == LLVMFloatTypeKind && to_kind == LLVMBFloatTypeKind) {
    LLVMValueRef bits = LLVMBuildBitCast(b, x, i32, "");
    LLVMValueRef nan = LLVMBuildICmp(
        b, LLVMIntUGT, LLVMBuildAnd(b, bits, hn_int_like(i32, 0x7fffffff), ""),
        hn_int_like(i32, 0x7f800000), "");
    LLVMValueRef quiet = LLVMBuildOr(
        b, LLVMBuildLShr(b, bits, hn_int_like(i32, 16), ""),
        hn_int_like(i32, 0x40), "");
    LLVMValueRef lsb = LLVMBuildAnd(
        b, LLVMBuildLShr(b, bits, hn_int_like(i32, 16), ""),
        hn_int_like(i32, 1), "");
    LLVMValueRef rounded = LLVMBuildLShr(
        b, LLVMBuildAdd(b, bits,
                        LLVMBuildAdd(b, hn_int_like(i32, 0x7fff), lsb, ""), ""),
        hn_int_like(i32, 16), "");
    LLVMValueRef r = LLVMBuildSelect(b, nan, quiet, rounded, "");
    return LLVMBuildBitCast(b, LLVMBuildTrunc(b, r, i16, ""), to, "");
  }
  if (from_kind == LLVMFloatTypeKind && to_kind == LLVMHalfTypeKind) {
    LLVMValueRef r = LLVMBuildFPTrunc(b, x, to, "");
    LLVMValueRef bits = LLVMBuildBitCast(b, x, i32, "");
    LLVMValueRef sign = LLVMBuildTrunc(
        b, LLVMBuildLShr(b, bits, hn_int_like(i32, 16), ""), i16, "");
    sign = LLVMBuildAnd(b, sign, hn_int_like(i16, 0x8000), "");
    LLVMValueRef canonical = LLVMBuildBitCast(
        b, LLVMBuildOr(b, sign, hn_int_like(i16, 0x7e00), ""), to, "");
    LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, x, x, "");
    return LLVMBuildSelect(b, nan, canonical, r, "");
  }
  if (from_kind == LLVMHalfTypeKind && to_kind == LLVMFloatTypeKind) {
    LLVMValueRef r = LLVMBuildFPExt(b, x, to, "");
    LLVMValueRef bits = LLVMBuildZExt(b, LLVMBuildBitCast(b, x, i16, ""), i32,
                                      "");
    LLVMValueRef magnitude =
        LLVMBuildAnd(b, bits, hn_int_like(i32, 0x7fff), "");
    LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntUGT, magnitude,
                                     hn_int_like(i32, 0x7c00), "");
    LLVMValueRef kept = LLVMBuildOr(
        b,
        LLVMBuildShl(b, LLVMBuildAnd(b, bits, hn_int_like(i32, 0x8000), ""),
                     hn_int_like(i32, 16), ""),
        LLVMBuildOr(b, hn_int_like(i32, 0x7f800000),
                    LLVMBuildShl(b,
                                 LLVMBuildAnd(b, bits, hn_int_like(i32, 0x3ff),
                                              ""),
                                 hn_int_like(i32, 13), ""),
                    ""),
        "");
    return LLVMBuildSelect(b, nan, LLVMBuildBitCast(b, kept, to, ""), r, "");
  }
  if (from_kind == LLVMBFloatTypeKind &&
      (to_kind == LLVMFloatTypeKind || to_kind == LLVMDoubleTypeKind)) {
    /* The bits, shifted: x86's code for bfloat vectors goes through
     * memory, integer code does not. */
    LLVMValueRef bits = LLVMBuildZExt(b, LLVMBuildBitCast(b, x, i16, ""), i32,
                                      "");
    LLVMValueRef wide = LLVMBuildBitCast(
        b, LLVMBuildShl(b, bits, hn_int_like(i32, 16), ""), f32, "");
    return to_kind == LLVMFloatTypeKind ? wide
                                        : LLVMBuildFPExt(b, wide, to, "");
  }
  if (from_kind == LLVMHalfTypeKind && to_kind == LLVMDoubleTypeKind) {
    /* Through f32, as the executor widens. */
    LLVMValueRef wide = hn_convert(l, x, hn_with_element(from, LLVMFloatTypeInContext(h->context)));
    return LLVMBuildFPExt(b, wide, to, "");
  }
  unsigned from_bits = (unsigned)LLVMSizeOfTypeInBits(h->lower.layout,
                                                      hn_element(from));
  unsigned to_bits = (unsigned)LLVMSizeOfTypeInBits(h->lower.layout,
                                                    hn_element(to));
  return to_bits > from_bits ? LLVMBuildFPExt(b, x, to, "")
                             : LLVMBuildFPTrunc(b, x, to, "");
}

/*===------------------------------------------------------------------===*/
/* Geometry, control and the rest of the hooks                             */
/*===------------------------------------------------------------------===*/

static LLVMValueRef hn_workgroup_id(llvm_lower_t* l, unsigned dim) {
  return hn_of(l)->group_id[dim % 3];
}

static LLVMValueRef hn_workitem_id(llvm_lower_t* l, unsigned dim) {
  return hn_of(l)->item[dim % 3];
}

static LLVMValueRef hn_workgroup_size(llvm_lower_t* l, unsigned dim) {
  return hn_of(l)->group_size[dim % 3];
}

static LLVMValueRef hn_workgroup_count(llvm_lower_t* l, unsigned dim) {
  return hn_of(l)->group_count[dim % 3];
}

/* Waves take consecutive flat work-item ids. */
static LLVMValueRef hn_lane_id(llvm_lower_t* l) {
  hn_t* h = hn_of(l);
  /* Phases run lane by lane (over a wave, or over the workgroup). */
  if (h->lane && !h->workgroup_phases) return h->lane;
  return LLVMBuildURem(hn_b(h), h->flat,
                       LLVMConstInt(h->i32, h->hooks.subgroup_size, 0), "");
}

/* In phases the wave being run; elsewhere the flat id over the size. */
static LLVMValueRef hn_subgroup_id(llvm_lower_t* l) {
  hn_t* h = hn_of(l);
  if (h->wave_index && !h->workgroup_phases) return h->wave_index;
  return LLVMBuildUDiv(hn_b(h), h->flat,
                       LLVMConstInt(h->i32, h->hooks.subgroup_size, 0), "");
}

static LLVMValueRef hn_no_lanes(llvm_lower_t* l, LLVMValueRef value,
                                LLVMValueRef lane) {
  (void)lane;
  hn_decline(hn_of(l), "cross-lane reads need the interpreter");
  return LLVMGetPoison(LLVMTypeOf(value));
}

static LLVMValueRef hn_no_mask(llvm_lower_t* l) {
  hn_t* h = hn_of(l);
  hn_decline(h, "subgroup operations need the interpreter");
  return LLVMGetPoison(h->i64);
}

static void hn_no_barrier(llvm_lower_t* l, bool workgroup) {
  (void)workgroup;
  hn_decline(hn_of(l), "barriers need the interpreter");
}

static const char* hn_sync_scope(uint32_t scope) {
  (void)scope;
  return ""; /* the CPU has one coherence domain */
}

static void hn_kernel_attributes(llvm_lower_t* l, LLVMValueRef fn,
                                 uint32_t max_threads) {
  (void)l;
  (void)fn;
  (void)max_threads;
}

static void hn_kernel_return(llvm_lower_t* l) {
  hn_t* h = hn_of(l);
  LLVMBuildBr(hn_b(h), h->latch);
}

/* Cancellation, as the executor polls it at backward jumps. */
static void hn_back_edge(llvm_lower_t* l, const loom_op_t* op) {
  (void)op;
  hn_t* h = hn_of(l);
  LLVMBuilderRef b = hn_b(h);
  LLVMValueRef flag = LLVMBuildLoad2(b, h->i8, h->cancel, "");
  LLVMSetVolatile(flag, 1);
  hn_fault_if(h,
              LLVMBuildICmp(b, LLVMIntNE, flag, LLVMConstInt(h->i8, 0, 0), ""),
              HRX_FABRIC_FAULT_CANCELLED, 0, 0, NULL);
}

static void hn_loop_induction(llvm_lower_t* l, const loom_op_t* op,
                              LLVMValueRef phi, LLVMValueRef lo,
                              LLVMValueRef hi, LLVMValueRef step) {
  (void)op;
  hn_t* h = hn_of(l);
  uint32_t at = 0;
  if (!hn_try(h, loom_array_grow(&h->ivs, h->allocator, sizeof(hn_iv_t), 1,
                                 &at))) {
    return;
  }
  LOOM_AT(h->ivs, hn_iv_t, at) = (hn_iv_t){phi, lo, hi, step};
}

static const llvm_target_hooks_t hn_hooks = {
    .name = "host-native",
    .global_space = 0,
    .workgroup_space = 0,
    .kernel_call_conv = LLVMCCallConv,
    .subgroup_size = 32,
    .workgroup_memory_limit = 64u << 20,
    .f64_exp_log = true,
    .workgroup_id = hn_workgroup_id,
    .workitem_id = hn_workitem_id,
    .workgroup_size = hn_workgroup_size,
    .workgroup_count = hn_workgroup_count,
    .lane_id = hn_lane_id,
    .read_lane = hn_no_lanes,
    .read_uniform_lane = hn_no_lanes,
    .active_lanes = hn_no_mask,
    .barrier = hn_no_barrier,
    .sync_scope = hn_sync_scope,
    .kernel_attributes = hn_kernel_attributes,
    .host_semantics = true,
    .address = hn_address,
    .view = hn_view,
    .workgroup_memory = hn_workgroup_memory,
    .arith = hn_arith,
    .convert = hn_convert,
    .subgroup_id = hn_subgroup_id,
    .condition = hn_condition,
    .kernel_return = hn_kernel_return,
    .back_edge = hn_back_edge,
    .loop_induction = hn_loop_induction,
};

/*===------------------------------------------------------------------===*/
/* Kernels                                                                 */
/*===------------------------------------------------------------------===*/

/* Regions nested deeper than this stay on the interpreter: LLVM's loop
 * passes grow with the depth of a loop nest, and no real kernel comes
 * near it. */
#define HN_MAX_NESTING 32

/* Why |region| (and the functions it calls) cannot be native: nesting
 * deeper than HN_MAX_NESTING; NULL when fine. */
static const char* hn_find_lockstep(const loom_module_t* m, uint32_t region,
                                    int depth) {
  if (depth > HN_MAX_NESTING) {
    return "control flow nested deeper than 32 levels stays on the "
           "interpreter";
  }
  const loom_region_t* r = &LOOM_REGION(m, region);
  for (uint32_t i = 0; i < r->op_count; ++i) {
    const loom_op_t* op = &LOOM_OP(m, LOOM_REGION_OP(m, r, i));
    const loom_op_def_t* def = &loom_op_defs[op->opcode];
    if (def->shape == LOOM_SHAPE_CALL) {
      uint32_t f = loom_module_find_func(m, loom_module_string(m, op->symbol));
      if (f != LOOM_NONE) {
        const char* found =
            hn_find_lockstep(m, LOOM_FUNC(m, f).body_region, depth + 1);
        if (found) return found;
      }
    }
    for (uint32_t k = 0; k < 2; ++k) {
      bool has = (k == 0 && (def->shape == LOOM_SHAPE_IF ||
                             def->shape == LOOM_SHAPE_FOR ||
                             def->shape == LOOM_SHAPE_WHILE)) ||
                 (k == 1 && (def->shape == LOOM_SHAPE_WHILE ||
                             (def->shape == LOOM_SHAPE_IF && op->has_else)));
      if (!has || op->regions[k] == LOOM_NONE) continue;
      const char* found = hn_find_lockstep(m, op->regions[k], depth + 1);
      if (found) return found;
    }
  }
  return NULL;
}

static LLVMTypeRef hn_kind_type(hn_t* h, loom_type_kind_t kind) {
  switch (kind) {
    case LOOM_TYPE_I1: return h->i1;
    case LOOM_TYPE_I8:
    case LOOM_TYPE_F8E4M3: /* f8 values are their bits (llvm_f8.h) */
    case LOOM_TYPE_F8E5M2: return h->i8;
    case LOOM_TYPE_I16: return h->i16;
    case LOOM_TYPE_I32: return h->i32;
    case LOOM_TYPE_F16: return LLVMHalfTypeInContext(h->context);
    case LOOM_TYPE_BF16: return LLVMBFloatTypeInContext(h->context);
    case LOOM_TYPE_F32: return LLVMFloatTypeInContext(h->context);
    case LOOM_TYPE_F64: return LLVMDoubleTypeInContext(h->context);
    case LOOM_TYPE_BUFFER: return h->ptr;
    default: return h->i64;
  }
}

static LLVMValueRef hn_load_field(hn_t* h, LLVMValueRef base, uint64_t offset,
                                  LLVMTypeRef type) {
  LLVMBuilderRef b = hn_b(h);
  LLVMValueRef at = LLVMConstInt(h->i64, offset, 0);
  LLVMValueRef field = LLVMBuildGEP2(b, h->i8, base, &at, 1, "");
  LLVMValueRef value = LLVMBuildLoad2(b, type, field, "");
  LLVMSetAlignment(value, 1);
  return value;
}

/* The prologue: what |args| holds, and the kernel's arguments. Returns
 * false when the kernel cannot be native. */
static bool hn_prologue(hn_t* h, const loom_kernel_t* kernel) {
  const loom_module_t* m = h->m;
  const loom_region_t* body = &LOOM_REGION(m, kernel->body_region);
  LLVMBuilderRef b = hn_b(h);
  LLVMValueRef kernarg =
      hn_load_field(h, h->args, HRX_HOST_NATIVE_ARGS_KERNARG, h->ptr);
  LLVMValueRef bindings =
      hn_load_field(h, h->args, HRX_HOST_NATIVE_ARGS_BINDINGS, h->ptr);
  h->local_base = hn_load_field(h, h->args, HRX_HOST_NATIVE_ARGS_LOCAL, h->ptr);
  h->local_size =
      hn_load_field(h, h->args, HRX_HOST_NATIVE_ARGS_LOCAL_SIZE, h->i64);
  h->cancel = hn_load_field(h, h->args, HRX_HOST_NATIVE_ARGS_CANCEL, h->ptr);
  for (unsigned d = 0; d < 3; ++d) {
    h->group_id[d] = hn_load_field(
        h, h->args, HRX_HOST_NATIVE_ARGS_WORKGROUP_ID + 4 * d, h->i32);
    h->group_size[d] = hn_load_field(
        h, h->args, HRX_HOST_NATIVE_ARGS_WORKGROUP_SIZE + 4 * d, h->i32);
    h->group_count[d] = hn_load_field(
        h, h->args, HRX_HOST_NATIVE_ARGS_WORKGROUP_COUNT + 4 * d, h->i32);
  }
  /* The host backend's kernarg layout: each argument at its size's
   * alignment, buffers 8 bytes. */
  uint32_t offset = 0;
  h->binding_count = 0;
  for (uint32_t a = 0; a < body->arg_count; ++a) {
    uint32_t value = body->args_start + a;
    loom_type_kind_t kind = LOOM_TYPE(m, LOOM_VALUE(m, value).type).kind;
    uint32_t bits = loom_type_bit_width(kind);
    uint32_t size = kind == LOOM_TYPE_BUFFER ? 8 : bits <= 8 ? 1 : bits / 8;
    offset = (offset + size - 1) & ~(size - 1);
    if (kind == LOOM_TYPE_BUFFER) {
      if (h->binding_count == HRX_HOST_MAX_BINDINGS) {
        hn_decline(h, "too many buffers");
        return false;
      }
      uint32_t slot = h->binding_count++;
      h->binding_base[slot] = hn_load_field(h, bindings, 16u * slot, h->ptr);
      h->binding_size[slot] =
          hn_load_field(h, bindings, 16u * slot + 8, h->i64);
      h->lower.values[value] = h->binding_base[slot];
    } else if (kind == LOOM_TYPE_I1) {
      h->lower.values[value] =
          LLVMBuildTrunc(b, hn_load_field(h, kernarg, offset, h->i8), h->i1,
                         "");
    } else {
      h->lower.values[value] =
          hn_load_field(h, kernarg, offset, hn_kind_type(h, kind));
    }
    offset += size;
  }
  return true;
}

static LLVMBasicBlockRef hn_block(hn_t* h, const char* name) {
  return LLVMAppendBasicBlockInContext(h->context, h->fn, name);
}

/* Before the fast copy runs: prefetches the range of the same size just
 * past each streamed binding's range, which the next workgroup of the
 * pool's run (consecutive workgroups) reads. Streaming kernels otherwise
 * stall where the hardware prefetchers stop, at page boundaries.
 * Prefetches never fault, so ranges past a binding's end are harmless.
 * Returns the block to enter instead of |fast|. */
static LLVMBasicBlockRef hn_prefetch_block(hn_t* h, LLVMBasicBlockRef fast) {
  if (h->prefetch_count == 0) return fast;
  LLVMBuilderRef b = hn_b(h);
  LLVMBasicBlockRef entry = hn_block(h, "prefetch");
  LLVMBasicBlockRef at = entry;
  LLVMValueRef line = LLVMConstInt(h->i64, 64, 0);
  for (uint32_t i = 0; i < h->prefetch_count; ++i) {
    LLVMBasicBlockRef loop = hn_block(h, "prefetch.line");
    LLVMBasicBlockRef next = hn_block(h, "prefetch.next");
    LLVMPositionBuilderAtEnd(b, at);
    LLVMValueRef least = LLVMBuildTrunc(b, h->prefetch[i].least, h->i64, "");
    LLVMValueRef most = LLVMBuildTrunc(b, h->prefetch[i].most, h->i64, "");
    LLVMValueRef span = LLVMBuildAdd(
        b, LLVMBuildSub(b, most, least, ""), LLVMConstInt(h->i64, 1, 0), "");
    LLVMValueRef start = LLVMBuildAdd(b, least, span, "");
    LLVMValueRef end = LLVMBuildAdd(b, start, span, "");
    LLVMValueRef worth = LLVMBuildICmp(
        b, LLVMIntULE, span, LLVMConstInt(h->i64, HN_PREFETCH_MAX_SPAN, 0),
        "");
    LLVMBuildCondBr(b, worth, loop, next);
    LLVMPositionBuilderAtEnd(b, loop);
    LLVMValueRef offset = LLVMBuildPhi(b, h->i64, "");
    LLVMValueRef address = LLVMBuildGEP2(
        b, h->i8, h->binding_base[h->prefetch[i].root], &offset, 1, "");
    LLVMValueRef args[] = {address, LLVMConstInt(h->i32, 0, 0),
                           LLVMConstInt(h->i32, 3, 0),
                           LLVMConstInt(h->i32, 1, 0)};
    LLVMTypeRef types[] = {h->ptr};
    hn_call_intrinsic(b, h->module, "llvm.prefetch", types, 1, args, 4);
    LLVMValueRef step = LLVMBuildAdd(b, offset, line, "");
    LLVMValueRef incoming[] = {start, step};
    LLVMBasicBlockRef from[] = {at, loop};
    LLVMAddIncoming(offset, incoming, from, 2);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, step, end, ""), loop,
                    next);
    at = next;
  }
  LLVMPositionBuilderAtEnd(b, at);
  LLVMBuildBr(b, fast);
  return entry;
}

/* One copy of the work-item loops around the kernel body; returns its
 * entry block, or NULL when the lowering failed. */
static LLVMBasicBlockRef hn_loops(hn_t* h, const loom_kernel_t* kernel,
                                  LLVMBasicBlockRef done) {
  LLVMBuilderRef b = hn_b(h);
  llvm_lower_t* l = &h->lower;
  /* Body values start over; arguments stay. */
  const loom_region_t* args = &LOOM_REGION(h->m, kernel->body_region);
  for (uint32_t v = 0; v < h->m->values.count; ++v) {
    if (v < args->args_start || v >= args->args_start + args->arg_count) {
      l->values[v] = NULL;
    }
  }
  l->lds_size = 0;
  l->lds_align = 16;
  l->inline_depth = 0;
  LLVMBasicBlockRef entry = hn_block(h, "items");
  LLVMBasicBlockRef z_body = hn_block(h, "z");
  LLVMBasicBlockRef y_body = hn_block(h, "y");
  LLVMBasicBlockRef x_body = hn_block(h, "x");
  LLVMBasicBlockRef x_latch = hn_block(h, "x.next");
  LLVMBasicBlockRef y_latch = hn_block(h, "y.next");
  LLVMBasicBlockRef z_latch = hn_block(h, "z.next");
  LLVMValueRef zero = LLVMConstInt(h->i32, 0, 0), one = LLVMConstInt(h->i32, 1, 0);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMBuildBr(b, z_body);
  LLVMPositionBuilderAtEnd(b, z_body);
  LLVMValueRef z = LLVMBuildPhi(b, h->i32, "z");
  LLVMBuildBr(b, y_body);
  LLVMPositionBuilderAtEnd(b, y_body);
  LLVMValueRef y = LLVMBuildPhi(b, h->i32, "y");
  LLVMValueRef row = LLVMBuildMul(
      b,
      LLVMBuildAdd(b, LLVMBuildMul(b, z, h->group_size[1], ""), y, ""),
      h->group_size[0], "");
  LLVMBuildBr(b, x_body);
  LLVMPositionBuilderAtEnd(b, x_body);
  LLVMValueRef x = LLVMBuildPhi(b, h->i32, "x");
  h->item[0] = x;
  h->item[1] = y;
  h->item[2] = z;
  h->flat = LLVMBuildAdd(b, row, x, "flat");
  h->latch = x_latch;
  bool ok = llvm_lower_region(l, kernel->body_region) && !h->declined;
  if (ok && !LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(b))) {
    LLVMBuildBr(b, x_latch);
  }
  /* Latches: do-while loops (every workgroup dimension is at least 1). */
  LLVMValueRef counters[3] = {x, y, z};
  LLVMBasicBlockRef latches[3] = {x_latch, y_latch, z_latch};
  LLVMBasicBlockRef bodies[3] = {x_body, y_body, z_body};
  LLVMBasicBlockRef outer[3] = {y_latch, z_latch, done};
  LLVMBasicBlockRef from[3] = {y_body, z_body, entry};
  for (int d = 0; d < 3; ++d) {
    LLVMPositionBuilderAtEnd(b, latches[d]);
    LLVMValueRef next = LLVMBuildAdd(b, counters[d], one, "");
    LLVMBuildCondBr(b,
                    LLVMBuildICmp(b, LLVMIntULT, next, h->group_size[d], ""),
                    bodies[d], outer[d]);
    LLVMValueRef in[2] = {zero, next};
    LLVMBasicBlockRef in_from[2] = {from[d], latches[d]};
    LLVMAddIncoming(counters[d], in, in_from, 2);
  }
  return ok ? entry : NULL;
}

/*===------------------------------------------------------------------===*/
/* Phases: kernels with subgroup operations                                */
/*===------------------------------------------------------------------===*/

/* A kernel whose work-items exchange values through subgroup shuffles and
 * reductions runs a wave at a time, in phases: the ops between two such
 * operations run for every lane of the wave (a loop over the lanes, as the
 * work-item loops elsewhere), the values a later phase reads wait in
 * per-lane arrays, and each shuffle or reduction runs between phases over
 * those arrays, in lane order as the interpreter runs it. Control flow
 * around subgroup operations must be uniform over the wave (its condition
 * or bounds derive from arguments, workgroup and subgroup ids, constants);
 * it then runs once per wave.
 *
 * A kernel with workgroup barriers runs the same way with the whole
 * workgroup as its one "wave" (loop fission, as PoCL does): the work-item
 * loop splits at each barrier, and control flow around barriers must be
 * uniform over the workgroup. Subgroup reductions then fold each wave's
 * slice of the lane arrays; shuffles there stay on the interpreter.
 * Barriers or subgroup operations inside functions or scf.while, early
 * returns, and shuffles of vectors stay on the interpreter too. */

enum {
  HN_SYNC_NONE = 0,
  HN_SYNC_WAVE = 1,      /* shuffles, reductions, subgroup barriers */
  HN_SYNC_BARRIER = 2,   /* workgroup barriers */
  HN_SYNC_CALL = 4,      /* a function holding any of these */
  HN_SYNC_WHILE = 8,     /* an scf.while holding any of these */
};

static bool hn_op_is_sync(const loom_op_t* op) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  return def->shape == LOOM_SHAPE_SHUFFLE || def->shape == LOOM_SHAPE_REDUCE ||
         !strcmp(def->name, "kernel.barrier");
}

static uint32_t hn_sync_in_region(const loom_module_t* m, uint32_t region,
                                  int depth);

/* What synchronisation |op| holds (itself or in its regions or callee). */
static uint32_t hn_sync_in_op(const loom_module_t* m, const loom_op_t* op,
                              int depth) {
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  if (depth > HN_MAX_NESTING) return HN_SYNC_CALL;
  if (hn_op_is_sync(op)) {
    /* A workgroup reduction is a barrier between its waves. */
    if (!strcmp(def->name, "kernel.workgroup.reduce") ||
        (!strcmp(def->name, "kernel.barrier") &&
         strcmp(loom_enum_keyword(LOOM_ENUM_SCOPE, op->enum_value),
                "subgroup") != 0)) {
      return HN_SYNC_BARRIER;
    }
    return HN_SYNC_WAVE;
  }
  uint32_t found = 0;
  if (def->shape == LOOM_SHAPE_CALL) {
    uint32_t f = loom_module_find_func(m, loom_module_string(m, op->symbol));
    if (f != LOOM_NONE &&
        hn_sync_in_region(m, LOOM_FUNC(m, f).body_region, depth + 1)) {
      found |= HN_SYNC_CALL;
    }
  }
  bool two = def->shape == LOOM_SHAPE_WHILE ||
             (def->shape == LOOM_SHAPE_IF && op->has_else);
  bool one = two || def->shape == LOOM_SHAPE_IF || def->shape == LOOM_SHAPE_FOR;
  for (uint32_t k = 0; k < 2; ++k) {
    if (!(k == 0 ? one : two) || op->regions[k] == LOOM_NONE) continue;
    found |= hn_sync_in_region(m, op->regions[k], depth + 1);
  }
  if (found && def->shape == LOOM_SHAPE_WHILE) found |= HN_SYNC_WHILE;
  return found;
}

static uint32_t hn_sync_in_region(const loom_module_t* m, uint32_t region,
                                  int depth) {
  const loom_region_t* r = &LOOM_REGION(m, region);
  uint32_t found = 0;
  for (uint32_t i = 0; i < r->op_count; ++i) {
    found |= hn_sync_in_op(m, &LOOM_OP(m, LOOM_REGION_OP(m, r, i)), depth);
  }
  return found;
}

/* Marks the values that are the same in every lane of a wave. */
static void hn_uniform_region(hn_t* h, uint32_t region);

static bool hn_operands_uniform(hn_t* h, const loom_op_t* op) {
  for (uint32_t i = 0; i < op->operand_count; ++i) {
    uint32_t v = LOOM_OPERAND(h->m, op, i);
    if (!loom_operand_is_static(v) && !h->uniform[v]) return false;
  }
  return true;
}

static void hn_uniform_op(hn_t* h, const loom_op_t* op) {
  const loom_module_t* m = h->m;
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  bool uniform = false;
  switch (def->shape) {
    case LOOM_SHAPE_CONSTANT:
    case LOOM_SHAPE_CONFIG_GET:
      uniform = true;
      break;
    case LOOM_SHAPE_NULLARY:
      uniform = strcmp(def->name, "kernel.workitem.id") != 0 &&
                strcmp(def->name, "kernel.subgroup.lane.id") != 0 &&
                (!h->workgroup_phases ||
                 strcmp(def->name, "kernel.subgroup.id") != 0);
      break;
    case LOOM_SHAPE_REDUCE:
      /* Over the workgroup only a workgroup reduction is uniform. */
      uniform = h->workgroup_phases
                    ? !strcmp(def->name, "kernel.workgroup.reduce")
                    : op->attrs[LOOM_ATTR_CLUSTER_SIZE] <= 0 ||
                          op->attrs[LOOM_ATTR_CLUSTER_SIZE] >=
                              (int64_t)h->hooks.subgroup_size;
      break;
    case LOOM_SHAPE_NARY: case LOOM_SHAPE_COMPARE: case LOOM_SHAPE_CAST:
    case LOOM_SHAPE_SELECT: case LOOM_SHAPE_SCALE: case LOOM_SHAPE_ASSUME:
    case LOOM_SHAPE_MEMORY_SPACE: case LOOM_SHAPE_NOALIAS:
    case LOOM_SHAPE_BUFFER_VIEW: case LOOM_SHAPE_EXTRACT:
    case LOOM_SHAPE_INSERT: case LOOM_SHAPE_SPLAT:
    case LOOM_SHAPE_VECTOR_REDUCE:
      uniform = hn_operands_uniform(h, op);
      break;
    default:
      break;
  }
  for (uint32_t k = 0; k < 2; ++k) {
    if (op->regions[k] != LOOM_NONE &&
        (def->shape == LOOM_SHAPE_IF || def->shape == LOOM_SHAPE_FOR ||
         def->shape == LOOM_SHAPE_WHILE)) {
      if (def->shape == LOOM_SHAPE_FOR && k == 0) {
        /* The counter is uniform when its start and step are. */
        const loom_region_t* body = &LOOM_REGION(m, op->regions[0]);
        uint32_t lo = LOOM_OPERAND(m, op, 0), st = LOOM_OPERAND(m, op, 2);
        h->uniform[body->args_start] =
            (loom_operand_is_static(lo) || h->uniform[lo]) &&
            (loom_operand_is_static(st) || h->uniform[st]);
      }
      if (k == 1 && def->shape == LOOM_SHAPE_IF && !op->has_else) continue;
      if (k == 1 && def->shape == LOOM_SHAPE_FOR) continue;
      hn_uniform_region(h, op->regions[k]);
    }
  }
  if (def->shape == LOOM_SHAPE_IF) {
    /* Results are uniform when the branch is and both arms yield uniform
     * values. */
    uint32_t c = LOOM_OPERAND(m, op, 0);
    uniform = loom_operand_is_static(c) || h->uniform[c];
    for (uint32_t k = 0; k < 2 && uniform; ++k) {
      if (k == 1 && !op->has_else) break;
      uint32_t region = op->regions[k];
      const loom_region_t* r = &LOOM_REGION(m, region);
      const loom_op_t* yield =
          r->op_count ? &LOOM_OP(m, LOOM_REGION_OP(m, r, r->op_count - 1))
                      : NULL;
      if (!yield) continue;
      uniform = hn_operands_uniform(h, yield);
    }
  }
  for (uint32_t r = 0; r < op->result_count; ++r) {
    h->uniform[op->results_start + r] = uniform;
  }
}

static void hn_uniform_region(hn_t* h, uint32_t region) {
  const loom_region_t* r = &LOOM_REGION(h->m, region);
  for (uint32_t i = 0; i < r->op_count; ++i) {
    hn_uniform_op(h, &LOOM_OP(h->m, LOOM_REGION_OP(h->m, r, i)));
  }
}

/* The per-lane array of value |v| (allocated in the prologue on first
 * use), or NULL when |v| cannot have one. */
static LLVMValueRef hn_array(hn_t* h, uint32_t v) {
  if (h->arrays[v]) return h->arrays[v];
  loom_type_id_t type = LOOM_VALUE(h->m, v).type;
  loom_type_kind_t kind = LOOM_TYPE(h->m, type).kind;
  if (loom_type_is_encoding(kind)) return NULL;
  LLVMTypeRef element = llvm_lower_type(&h->lower, type);
  LLVMTypeRef array = LLVMArrayType2(element, h->lanes);
  /* Lane arrays live on the calling worker's stack; LLVM drops those no
   * later phase reads, but bound what a kernel may ask for at all. */
  h->array_bytes += LLVMABISizeOfType(h->lower.layout, array);
  if (h->array_bytes > HN_MAX_LANE_ARRAY_BYTES) {
    hn_decline(h, "too many values for per-work-item arrays (interpreter)");
    return NULL;
  }
  LLVMValueRef slot = LLVMBuildAlloca(h->entry, array, "lanes");
  LLVMSetAlignment(slot, 64);
  h->arrays[v] = slot;
  return slot;
}

static LLVMValueRef hn_lane_slot(hn_t* h, LLVMBuilderRef b, uint32_t v,
                                 LLVMValueRef lane) {
  LLVMValueRef array = hn_array(h, v);
  /* Declined (the function is dropped): any pointer keeps the IR whole. */
  if (!array) array = LLVMGetPoison(h->ptr);
  LLVMValueRef at[2] = {LLVMConstInt(h->i32, 0, 0), lane};
  LLVMTypeRef type = LLVMArrayType2(
      llvm_lower_type(&h->lower, LOOM_VALUE(h->m, v).type), h->lanes);
  return LLVMBuildInBoundsGEP2(b, type, array, at, 2, "");
}

static LLVMValueRef hn_lane_load(hn_t* h, uint32_t v, LLVMValueRef lane) {
  LLVMBuilderRef b = hn_b(h);
  LLVMTypeRef type = llvm_lower_type(&h->lower, LOOM_VALUE(h->m, v).type);
  LLVMValueRef load = LLVMBuildLoad2(b, type, hn_lane_slot(h, b, v, lane), "");
  if (LLVMGetTypeKind(type) == LLVMPointerTypeKind) {
    uint32_t at = 0;
    if (hn_try(h, loom_array_grow(&h->array_loads, h->allocator,
                                  sizeof(hn_array_load_t), 1, &at))) {
      LOOM_AT(h->array_loads, hn_array_load_t, at) =
          (hn_array_load_t){load, v};
    }
  }
  return load;
}

static void hn_lane_store(hn_t* h, uint32_t v, LLVMValueRef lane,
                          LLVMValueRef value) {
  LLVMBuilderRef b = hn_b(h);
  if (LLVMGetTypeKind(LLVMTypeOf(value)) == LLVMPointerTypeKind) {
    LLVMValueRef seen[64];
    uint32_t seen_count = 0;
    h->array_roots[v] = hn_merge_root(
        h->array_roots[v], hn_root_walk(h, value, seen, &seen_count, 0));
  }
  LLVMBuildStore(b, value, hn_lane_slot(h, b, v, lane));
}

/* A loop over the live lanes of the wave; between begin and end, the
 * builder is in the body with h->item, h->flat and h->lane set. */
typedef struct hn_lanes_t {
  LLVMBasicBlockRef body, latch, exit;
  LLVMValueRef lane;
} hn_lanes_t;

static void hn_lanes_begin(hn_t* h, hn_lanes_t* it) {
  LLVMBuilderRef b = hn_b(h);
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  it->body = hn_block(h, "lane");
  it->latch = hn_block(h, "lane.next");
  it->exit = hn_block(h, "lanes.done");
  LLVMBuildBr(b, it->body);
  LLVMPositionBuilderAtEnd(b, it->body);
  it->lane = LLVMBuildPhi(b, h->i32, "lane");
  LLVMValueRef zero = LLVMConstInt(h->i32, 0, 0);
  LLVMAddIncoming(it->lane, &zero, &from, 1);
  h->lane = it->lane;
  h->flat = LLVMBuildAdd(b, h->wave_base, it->lane, "flat");
  /* x, y, z of the flat id; one-dimensional workgroups need no division. */
  LLVMBasicBlockRef one_d = hn_block(h, "ids.1d");
  LLVMBasicBlockRef n_d = hn_block(h, "ids.nd");
  LLVMBasicBlockRef join = hn_block(h, "ids");
  LLVMBuildCondBr(b, h->one_dimensional, one_d, n_d);
  LLVMPositionBuilderAtEnd(b, one_d);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, n_d);
  LLVMValueRef x = LLVMBuildURem(b, h->flat, h->group_size[0], "");
  LLVMValueRef rest = LLVMBuildUDiv(b, h->flat, h->group_size[0], "");
  LLVMValueRef y = LLVMBuildURem(b, rest, h->group_size[1], "");
  LLVMValueRef z = LLVMBuildUDiv(b, rest, h->group_size[1], "");
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef ids[3][2] = {{h->flat, x}, {LLVMConstInt(h->i32, 0, 0), y},
                            {LLVMConstInt(h->i32, 0, 0), z}};
  LLVMBasicBlockRef from_ids[2] = {one_d, n_d};
  for (int d = 0; d < 3; ++d) {
    h->item[d] = LLVMBuildPhi(b, h->i32, "");
    LLVMAddIncoming(h->item[d], ids[d], from_ids, 2);
  }
  h->latch = it->latch;
  /* x, y and z range over the workgroup's sizes on either path; the lane
   * over the subgroup. */
  if (h->fast && h->phi_count + 4 <= 256) {
    for (uint32_t d = 0; d < 3; ++d) {
      h->phi_keys[h->phi_count] = h->item[d];
      h->phi_vars[h->phi_count++] = d;
    }
    h->phi_keys[h->phi_count] = it->lane;
    h->phi_vars[h->phi_count++] = 3;
  }
}

static void hn_lanes_end(hn_t* h, hn_lanes_t* it) {
  LLVMBuilderRef b = hn_b(h);
  if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(b))) {
    LLVMBuildBr(b, it->latch);
  }
  LLVMPositionBuilderAtEnd(b, it->latch);
  LLVMValueRef next = LLVMBuildAdd(b, it->lane, LLVMConstInt(h->i32, 1, 0),
                                   "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, h->wave_lanes, ""),
                  it->body, it->exit);
  LLVMAddIncoming(it->lane, &next, &it->latch, 1);
  LLVMPositionBuilderAtEnd(b, it->exit);
  /* Back at wave level: faults name the wave's first work-item. */
  h->flat = h->wave_base;
  h->lane = NULL;
}

/* Loads, in the lane loop, every value with a lane array that the ops
 * [first, end) of |region| (and their regions) read. */
static void hn_import_ops(hn_t* h, const loom_region_t* region, uint32_t first,
                          uint32_t end);

static void hn_import_value(hn_t* h, uint32_t v);

/* Whether |op| is pure and cheap enough to compute again in a later phase
 * rather than load from its lane array: constants, geometry, buffer views
 * and index arithmetic without division. */
static bool hn_recomputable(const loom_op_t* op) {
  static const char* const names[] = {
      "index.add", "index.sub", "index.mul", "index.madd", "index.min",
      "index.max", "index.andi", "index.ori", "index.xori", "index.shli",
      "index.shrui"};
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  if (op->result_count != 1) return false;
  if (def->shape == LOOM_SHAPE_CONSTANT || def->shape == LOOM_SHAPE_CONFIG_GET ||
      def->shape == LOOM_SHAPE_NULLARY || def->shape == LOOM_SHAPE_BUFFER_VIEW) {
    return true;
  }
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    if (!strcmp(def->name, names[i])) return true;
  }
  return false;
}

/* Computes |v| again in the phase being lowered (its operands imported
 * first), so that offsets and views stay visible to the hoisting instead
 * of arriving from memory; false when its op is not recomputable or an
 * operand has no value here. */
static bool hn_recompute(hn_t* h, uint32_t v, int depth) {
  const loom_module_t* m = h->m;
  uint32_t def = LOOM_VALUE(m, v).def_op;
  if (def == LOOM_NONE || depth > 8) return false;
  const loom_op_t* op = &LOOM_OP(m, def);
  if (!hn_recomputable(op)) return false;
  const loom_region_t* body = &LOOM_REGION(m, h->kernel_region);
  for (uint32_t i = 0; i < op->operand_count; ++i) {
    uint32_t u = LOOM_OPERAND(m, op, i);
    if (loom_operand_is_static(u)) continue;
    bool argument = u >= body->args_start &&
                    u < body->args_start + body->arg_count;
    if (argument || h->imported[u]) continue;
    if (!h->arrays[u] && !hn_recompute(h, u, depth + 1)) return false;
    if (h->arrays[u] && !h->imported[u]) hn_import_value(h, u);
    if (!h->imported[u]) return false;
  }
  if (LOOM_TYPE(m, op->type).kind == LOOM_TYPE_VIEW) {
    /* A view's dynamic extents come along. */
    const loom_type_t* view = &LOOM_TYPE(m, op->type);
    for (uint32_t d = 0; d < view->rank; ++d) {
      const loom_dim_t* dim = &LOOM_DIM(m, view->dims_start + d);
      if (dim->size < 0 && dim->value != LOOM_NONE) {
        hn_import_value(h, dim->value);
      }
    }
  }
  if (!llvm_lower_op(&h->lower, op) || h->declined ||
      !h->lower.values[v]) {
    return false;
  }
  h->imported[v] = 1;
  return true;
}

static void hn_import_value(hn_t* h, uint32_t v) {
  if (loom_operand_is_static(v) || !h->arrays[v] || h->imported[v]) return;
  if (hn_recompute(h, v, 0)) return;
  h->lower.values[v] = hn_lane_load(h, v, h->lane);
  h->imported[v] = 1;
}

/* What an access reads besides its operands: its view's dynamic extents
 * and the strides of its layout. */
static void hn_import_view(hn_t* h, loom_type_id_t type) {
  const loom_module_t* m = h->m;
  const loom_type_t* view = &LOOM_TYPE(m, type);
  if (view->kind != LOOM_TYPE_VIEW) return;
  for (uint32_t d = 0; d < view->rank; ++d) {
    const loom_dim_t* dim = &LOOM_DIM(m, view->dims_start + d);
    if (dim->size < 0 && dim->value != LOOM_NONE) {
      hn_import_value(h, dim->value);
    }
  }
  bool unresolved = false;
  const loom_op_t* layout = loom_view_strides(m, view, &unresolved);
  for (uint32_t i = 0; layout && i < layout->operand_count; ++i) {
    hn_import_value(h, LOOM_OPERAND(m, layout, i));
  }
}

static void hn_import_op(hn_t* h, const loom_op_t* op) {
  const loom_module_t* m = h->m;
  for (uint32_t i = 0; i < op->operand_count; ++i) {
    hn_import_value(h, LOOM_OPERAND(m, op, i));
  }
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  if (def->shape == LOOM_SHAPE_LOAD || def->shape == LOOM_SHAPE_LANE_LOAD ||
      def->shape == LOOM_SHAPE_LANE_STORE) {
    hn_import_view(h, op->type);
  }
  if (def->shape == LOOM_SHAPE_STORE || def->shape == LOOM_SHAPE_RMW) {
    hn_import_view(h, op->type2);
  }
  if (def->shape == LOOM_SHAPE_IF || def->shape == LOOM_SHAPE_FOR ||
      def->shape == LOOM_SHAPE_WHILE) {
    for (uint32_t k = 0; k < 2; ++k) {
      if (op->regions[k] == LOOM_NONE) continue;
      if (k == 1 && def->shape == LOOM_SHAPE_FOR) continue;
      if (k == 1 && def->shape == LOOM_SHAPE_IF && !op->has_else) continue;
      const loom_region_t* r = &LOOM_REGION(m, op->regions[k]);
      hn_import_ops(h, r, 0, r->op_count);
    }
  }
}

static void hn_import_ops(hn_t* h, const loom_region_t* region, uint32_t first,
                          uint32_t end) {
  for (uint32_t i = first; i < end; ++i) {
    hn_import_op(h, &LOOM_OP(h->m, LOOM_REGION_OP(h->m, region, i)));
  }
}

/* The ops [first, end) of |region| for every lane: one phase. Results go
 * to their lane arrays for later phases. */
static bool hn_phase(hn_t* h, const loom_region_t* region, uint32_t first,
                     uint32_t end) {
  const loom_module_t* m = h->m;
  hn_lanes_t it;
  hn_lanes_begin(h, &it);
  hn_import_ops(h, region, first, end);
  bool ok = true;
  for (uint32_t i = first; ok && i < end; ++i) {
    if (LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(hn_b(h)))) break;
    const loom_op_t* op = &LOOM_OP(m, LOOM_REGION_OP(m, region, i));
    ok = llvm_lower_op(&h->lower, op) && !h->declined;
    if (!ok || LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(hn_b(h)))) {
      continue;
    }
    for (uint32_t r = 0; r < op->result_count; ++r) {
      uint32_t v = op->results_start + r;
      if (h->lower.values[v] && hn_array(h, v)) {
        hn_lane_store(h, v, h->lane, h->lower.values[v]);
      }
    }
  }
  /* A later phase loads afresh. */
  memset(h->imported, 0, h->m->values.count ? h->m->values.count : 1);
  hn_lanes_end(h, &it);
  return ok;
}

/* Value |v| at wave level: its SSA value, or lane 0's from its array (a
 * uniform value computed in a phase). */
static LLVMValueRef hn_wave_value(hn_t* h, uint32_t v) {
  if (loom_operand_is_static(v)) {
    return LLVMConstInt(h->i64, (unsigned long long)LOOM_STATIC(h->m, v), 1);
  }
  if (h->arrays[v]) return hn_lane_load(h, v, LLVMConstInt(h->i32, 0, 0));
  return h->lower.values[v];
}

/* Value |v| in a lane loop: its lane's, or its SSA value. */
static LLVMValueRef hn_lane_value(hn_t* h, uint32_t v) {
  if (loom_operand_is_static(v)) {
    return LLVMConstInt(h->i64, (unsigned long long)LOOM_STATIC(h->m, v), 1);
  }
  if (h->arrays[v]) return hn_lane_load(h, v, h->lane);
  return h->lower.values[v];
}

/* Gives |v| a lane array filled for every lane (a wave-level value
 * stored in each), and zeroes the lanes past the live ones, which a
 * shuffle may name. */
static void hn_materialize(hn_t* h, uint32_t v) {
  bool had = h->arrays[v] != NULL;
  LLVMValueRef value = had ? NULL : h->lower.values[v];
  hn_lanes_t it;
  if (!had) {
    hn_lanes_begin(h, &it);
    hn_lane_store(h, v, h->lane, value);
    hn_lanes_end(h, &it);
  }
  /* Lanes wave_lanes .. S - 1, for shuffles (which workgroup phases do
   * not take). */
  if (h->workgroup_phases) return;
  LLVMBuilderRef b = hn_b(h);
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef body = hn_block(h, "tail");
  LLVMBasicBlockRef exit = hn_block(h, "tail.done");
  LLVMValueRef size = LLVMConstInt(h->i32, h->lanes, 0);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, h->wave_lanes, size, ""),
                  body, exit);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef lane = LLVMBuildPhi(b, h->i32, "");
  LLVMAddIncoming(lane, &h->wave_lanes, &from, 1);
  LLVMTypeRef type = llvm_lower_type(&h->lower, LOOM_VALUE(h->m, v).type);
  LLVMBuildStore(b, LLVMConstNull(type), hn_lane_slot(h, b, v, lane));
  LLVMValueRef next = LLVMBuildAdd(b, lane, LLVMConstInt(h->i32, 1, 0), "");
  LLVMAddIncoming(lane, &next, &body, 1);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, size, ""), body, exit);
  LLVMPositionBuilderAtEnd(b, exit);
}

/* kernel.subgroup.shuffle over the lane array of its value, as the
 * interpreter's SHUFFLE and SHUFFLE_OK compute it. */
static bool hn_phase_shuffle(hn_t* h, const loom_op_t* op) {
  const loom_module_t* m = h->m;
  uint32_t value = LOOM_OPERAND(m, op, 0);
  if (loom_operand_is_static(value) ||
      LOOM_TYPE(m, LOOM_VALUE(m, value).type).kind == LOOM_TYPE_VECTOR) {
    hn_decline(h, "shuffles of vectors or literals need the interpreter");
    return false;
  }
  if (h->workgroup_phases) {
    hn_decline(h, "shuffles in kernels with workgroup barriers need the "
               "interpreter");
    return false;
  }
  hn_materialize(h, value);
  hn_lanes_t it;
  hn_lanes_begin(h, &it);
  LLVMBuilderRef b = hn_b(h);
  LLVMValueRef lane = h->lane;
  LLVMValueRef own = hn_lane_load(h, value, lane);
  LLVMValueRef offset = hn_lane_value(h, LOOM_OPERAND(m, op, 1));
  LLVMValueRef width = hn_lane_value(h, LOOM_OPERAND(m, op, 2));
  if (!offset || !width) {
    hn_decline(h, "a shuffle operand has no value here");
    hn_lanes_end(h, &it);
    return false;
  }
  offset = LLVMBuildSExtOrBitCast(b, offset, h->i64, "");
  width = LLVMBuildSExtOrBitCast(b, width, h->i64, "");
  LLVMValueRef size = LLVMConstInt(h->i64, h->hooks.subgroup_size, 0);
  LLVMValueRef l64 = LLVMBuildZExt(b, lane, h->i64, "");
  LLVMValueRef ok = NULL;
  LLVMValueRef from = llvm_lower_shuffle_source(
      b, op->enum_value, l64, offset, width, h->hooks.subgroup_size, &ok);
  /* A source past the wave's array (widths not dividing it) reads the
   * lane's own value: the interpreter reads past its registers there. */
  LLVMValueRef inside = LLVMBuildAnd(
      b, ok, LLVMBuildICmp(b, LLVMIntULT, from, size, ""), "");
  from = LLVMBuildSelect(b, inside, from, l64, "");
  LLVMValueRef read =
      hn_lane_load(h, value, LLVMBuildTrunc(b, from, h->i32, ""));
  LLVMValueRef result = LLVMBuildSelect(b, ok, read, own, "");
  hn_lane_store(h, op->results_start, lane, result);
  if (op->result_count > 1) hn_lane_store(h, op->results_start + 1, lane, ok);
  hn_lanes_end(h, &it);
  return true;
}

/* kernel.subgroup.reduce: each cluster of |cluster| live lanes folded in
 * lane order, every lane of the cluster getting the total. */
static bool hn_phase_reduce(hn_t* h, const loom_op_t* op, uint32_t cluster) {
  const loom_module_t* m = h->m;
  uint32_t value = LOOM_OPERAND(m, op, 0);
  if (loom_operand_is_static(value)) {
    hn_decline(h, "a reduction of a literal needs the interpreter");
    return false;
  }
  /* Over a workgroup, clusters must not straddle two waves. */
  if (h->workgroup_phases && h->hooks.subgroup_size % cluster) {
    hn_decline(h, "a reduction over clusters of %u lanes in a kernel with "
               "workgroup barriers needs the interpreter", cluster);
    return false;
  }
  hn_materialize(h, value);
  loom_type_kind_t kind = LOOM_TYPE(m, op->type).kind;
  LLVMBuilderRef b = hn_b(h);
  LLVMValueRef one = LLVMConstInt(h->i32, 1, 0);
  /* for start = 0; start < lanes; start += cluster */
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef head = hn_block(h, "cluster");
  LLVMBasicBlockRef fold = hn_block(h, "fold");
  LLVMBasicBlockRef spread_entry = hn_block(h, "spread.entry");
  LLVMBasicBlockRef spread = hn_block(h, "spread");
  LLVMBasicBlockRef next = hn_block(h, "cluster.next");
  LLVMBasicBlockRef done = hn_block(h, "clusters.done");
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef start = LLVMBuildPhi(b, h->i32, "");
  LLVMValueRef zero = LLVMConstInt(h->i32, 0, 0);
  LLVMAddIncoming(start, &zero, &from, 1);
  LLVMValueRef end = LLVMBuildAdd(b, start, LLVMConstInt(h->i32, cluster, 0),
                                  "");
  LLVMValueRef short_end = LLVMBuildICmp(b, LLVMIntULT, h->wave_lanes, end, "");
  end = LLVMBuildSelect(b, short_end, h->wave_lanes, end, "");
  LLVMValueRef first = hn_lane_load(h, value, start);
  LLVMValueRef j_first = LLVMBuildAdd(b, start, one, "");
  LLVMBuildBr(b, fold);
  LLVMPositionBuilderAtEnd(b, fold);
  LLVMValueRef j = LLVMBuildPhi(b, h->i32, "");
  LLVMValueRef acc = LLVMBuildPhi(b, LLVMTypeOf(first), "");
  LLVMAddIncoming(j, &j_first, &head, 1);
  LLVMAddIncoming(acc, &first, &head, 1);
  /* acc <combine> x[j] while j < end */
  LLVMBasicBlockRef step = hn_block(h, "fold.step");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, j, end, ""), step,
                  spread_entry);
  LLVMPositionBuilderAtEnd(b, step);
  LLVMValueRef folded = llvm_lower_combine(&h->lower, op->enum_value, kind,
                                           acc, hn_lane_load(h, value, j));
  LLVMValueRef j_next = LLVMBuildAdd(b, j, one, "");
  LLVMBasicBlockRef step_end = LLVMGetInsertBlock(b);
  LLVMAddIncoming(j, &j_next, &step_end, 1);
  LLVMAddIncoming(acc, &folded, &step_end, 1);
  LLVMBuildBr(b, fold);
  LLVMPositionBuilderAtEnd(b, spread_entry);
  LLVMBuildBr(b, spread);
  LLVMPositionBuilderAtEnd(b, spread);
  LLVMValueRef k = LLVMBuildPhi(b, h->i32, "");
  LLVMAddIncoming(k, &start, &spread_entry, 1);
  hn_lane_store(h, op->results_start, k, acc);
  LLVMValueRef k_next = LLVMBuildAdd(b, k, one, "");
  LLVMAddIncoming(k, &k_next, &spread, 1);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, k_next, end, ""), spread,
                  next);
  LLVMPositionBuilderAtEnd(b, next);
  LLVMAddIncoming(start, &end, &next, 1);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, end, h->wave_lanes, ""),
                  head, done);
  LLVMPositionBuilderAtEnd(b, done);
  return true;
}

/* The clusters of kernel.subgroup.reduce. */
static uint32_t hn_cluster(hn_t* h, const loom_op_t* op) {
  uint32_t size = h->hooks.subgroup_size;
  int64_t cluster = op->attrs[LOOM_ATTR_CLUSTER_SIZE];
  return cluster > 0 && cluster <= (int64_t)size ? (uint32_t)cluster : size;
}

/* kernel.workgroup.reduce over the workgroup's lane arrays, as the host
 * backend composes it (host_collective.c): every wave folds its lanes,
 * then the waves' partials are folded in wave order and every work-item
 * gets the total. Its slots of workgroup memory are reserved as there, so
 * later workgroup allocations lie where the interpreter puts them. */
static bool hn_phase_workgroup_reduce(hn_t* h, const loom_op_t* op) {
  const loom_module_t* m = h->m;
  loom_type_kind_t kind = LOOM_TYPE(m, op->type).kind;
  if (kind == LOOM_TYPE_VECTOR ||
      h->hooks.subgroup_size < LOOM_WORKGROUP_REDUCE_MIN_LANES) {
    hn_decline(h, "a workgroup reduction of vectors or in waves under %u "
               "lanes needs the interpreter", LOOM_WORKGROUP_REDUCE_MIN_LANES);
    return false;
  }
  llvm_lower_t* l = &h->lower;
  uint64_t align = LOOM_WORKGROUP_REDUCE_SLOT_BYTES;
  uint64_t start = (l->lds_size + align - 1) & ~(align - 1);
  uint64_t bytes =
      (uint64_t)LOOM_WORKGROUP_REDUCE_SLOTS * LOOM_WORKGROUP_REDUCE_SLOT_BYTES;
  if (start + bytes > h->hooks.workgroup_memory_limit) {
    hn_decline(h, "workgroup memory exceeds its limit");
    return false;
  }
  l->lds_size = start + bytes;
  if (align > l->lds_align) l->lds_align = align;
  if (!hn_phase_reduce(h, op, h->hooks.subgroup_size)) return false;
  /* acc = partial of wave 0; acc <combine>= partial of wave w, w = 1.. */
  uint32_t result = op->results_start;
  LLVMBuilderRef b = hn_b(h);
  LLVMValueRef size = LLVMConstInt(h->i32, h->hooks.subgroup_size, 0);
  LLVMValueRef first = hn_lane_load(h, result, LLVMConstInt(h->i32, 0, 0));
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef head = hn_block(h, "waves.fold");
  LLVMBasicBlockRef step = hn_block(h, "waves.fold.step");
  LLVMBasicBlockRef done = hn_block(h, "waves.folded");
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef at = LLVMBuildPhi(b, h->i32, "");
  LLVMValueRef acc = LLVMBuildPhi(b, LLVMTypeOf(first), "");
  LLVMAddIncoming(at, &size, &from, 1);
  LLVMAddIncoming(acc, &first, &from, 1);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, at, h->wave_lanes, ""),
                  step, done);
  LLVMPositionBuilderAtEnd(b, step);
  LLVMValueRef folded = llvm_lower_combine(l, op->enum_value, kind, acc,
                                           hn_lane_load(h, result, at));
  LLVMValueRef next = LLVMBuildAdd(b, at, size, "");
  LLVMBasicBlockRef step_end = LLVMGetInsertBlock(b);
  LLVMAddIncoming(at, &next, &step_end, 1);
  LLVMAddIncoming(acc, &folded, &step_end, 1);
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, done);
  hn_lanes_t it;
  hn_lanes_begin(h, &it);
  hn_lane_store(h, result, h->lane, acc);
  hn_lanes_end(h, &it);
  return true;
}

static bool hn_phase_region(hn_t* h, uint32_t region_id, bool top);

/* Copies, for every lane, the operands of terminator |term| (from operand
 * |first|) into the lane arrays of values |targets|.. (all loaded before
 * any is stored: a yield may swap carried values). */
static bool hn_phase_yield(hn_t* h, const loom_op_t* term, uint32_t first,
                           uint32_t target_start, uint32_t count) {
  if (!count) return true;
  if (!term || term->operand_count < first + count) {
    hn_decline(h, "a region around subgroup operations yields too little");
    return false;
  }
  LLVMValueRef values[64];
  if (count > 64) {
    hn_decline(h, "too many values carried around subgroup operations");
    return false;
  }
  hn_lanes_t it;
  hn_lanes_begin(h, &it);
  for (uint32_t r = 0; r < count; ++r) {
    values[r] = hn_lane_value(h, LOOM_OPERAND(h->m, term, first + r));
    if (!values[r]) {
      hn_decline(h, "a yielded value has no lowering here");
      hn_lanes_end(h, &it);
      return false;
    }
  }
  for (uint32_t r = 0; r < count; ++r) {
    if (!hn_array(h, target_start + r)) continue;
    hn_lane_store(h, target_start + r, h->lane, values[r]);
  }
  hn_lanes_end(h, &it);
  return true;
}

static const loom_op_t* hn_region_terminator(const loom_module_t* m,
                                             uint32_t region) {
  const loom_region_t* r = &LOOM_REGION(m, region);
  if (!r->op_count) return NULL;
  const loom_op_t* last = &LOOM_OP(m, LOOM_REGION_OP(m, r, r->op_count - 1));
  return loom_op_defs[last->opcode].terminator != LOOM_TERM_NONE ? last : NULL;
}

static bool hn_require_uniform(hn_t* h, const loom_op_t* op, uint32_t i,
                               const char* what) {
  uint32_t v = LOOM_OPERAND(h->m, op, i);
  if (loom_operand_is_static(v) || h->uniform[v]) return true;
  hn_decline(h, "the %s of %s around subgroup operations may differ between "
             "lanes (interpreter)", what, loom_op_defs[op->opcode].name);
  return false;
}

/* An scf.if or scf.for holding subgroup operations, once per wave. */
static bool hn_phase_control(hn_t* h, const loom_op_t* op) {
  const loom_module_t* m = h->m;
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  LLVMBuilderRef b = hn_b(h);
  if (def->shape == LOOM_SHAPE_IF) {
    if (!hn_require_uniform(h, op, 0, "condition")) return false;
    LLVMValueRef cond = hn_wave_value(h, LOOM_OPERAND(m, op, 0));
    if (!cond) return false;
    LLVMBasicBlockRef then_block = hn_block(h, "wave.then");
    LLVMBasicBlockRef else_block = hn_block(h, "wave.else");
    LLVMBasicBlockRef merge = hn_block(h, "wave.if.end");
    LLVMBuildCondBr(b, cond, then_block, else_block);
    for (uint32_t k = 0; k < 2; ++k) {
      LLVMPositionBuilderAtEnd(b, k == 0 ? then_block : else_block);
      if (k == 0 || op->has_else) {
        if (!hn_phase_region(h, op->regions[k], false)) return false;
        if (!hn_phase_yield(h, hn_region_terminator(m, op->regions[k]), 0,
                            op->results_start, op->result_count)) {
          return false;
        }
      }
      LLVMBuildBr(b, merge);
    }
    LLVMPositionBuilderAtEnd(b, merge);
    return true;
  }
  /* scf.for: the counter at wave level, carried values in lane arrays. */
  for (uint32_t i = 0; i < 3; ++i) {
    static const char* const what[] = {"start", "bound", "step"};
    if (!hn_require_uniform(h, op, i, what[i])) return false;
  }
  const loom_region_t* body = &LOOM_REGION(m, op->regions[0]);
  LLVMValueRef lo = hn_wave_value(h, LOOM_OPERAND(m, op, 0));
  LLVMValueRef hi = hn_wave_value(h, LOOM_OPERAND(m, op, 1));
  LLVMValueRef step = hn_wave_value(h, LOOM_OPERAND(m, op, 2));
  if (!lo || !hi || !step) return false;
  uint32_t carried = body->arg_count - 1;
  /* Carried values live in the arrays of the body's arguments; the
   * results share them. */
  hn_lanes_t it;
  if (carried) {
    hn_lanes_begin(h, &it);
    for (uint32_t c = 0; c < carried; ++c) {
      LLVMValueRef init = hn_lane_value(h, LOOM_OPERAND(m, op, 3 + c));
      if (!init || !hn_array(h, body->args_start + 1 + c)) {
        hn_lanes_end(h, &it);
        hn_decline(h, "a carried value has no lowering here");
        return false;
      }
      hn_lane_store(h, body->args_start + 1 + c, h->lane, init);
    }
    hn_lanes_end(h, &it);
  }
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef head = hn_block(h, "wave.for");
  LLVMBasicBlockRef loop = hn_block(h, "wave.for.body");
  LLVMBasicBlockRef exit = hn_block(h, "wave.for.end");
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef iv = LLVMBuildPhi(b, LLVMTypeOf(lo), "");
  LLVMAddIncoming(iv, &lo, &entry, 1);
  h->lower.values[body->args_start] = iv;
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, iv, hi, ""), loop, exit);
  LLVMPositionBuilderAtEnd(b, loop);
  if (!hn_phase_region(h, op->regions[0], false) ||
      !hn_phase_yield(h, hn_region_terminator(m, op->regions[0]), 0,
                      body->args_start + 1, carried)) {
    return false;
  }
  hn_back_edge(&h->lower, op);
  LLVMValueRef next = LLVMBuildAdd(b, iv, step, "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMAddIncoming(iv, &next, &latch, 1);
  LLVMBuildBr(b, head);
  LLVMPositionBuilderAtEnd(b, exit);
  for (uint32_t r = 0; r < op->result_count && r < carried; ++r) {
    h->arrays[op->results_start + r] = hn_array(h, body->args_start + 1 + r);
  }
  return true;
}

/* Lowers |region| at wave level: runs of ordinary ops become phases, the
 * subgroup operations and the control flow holding them run between. */
static bool hn_phase_region(hn_t* h, uint32_t region_id, bool top) {
  const loom_module_t* m = h->m;
  const loom_region_t* region = &LOOM_REGION(m, region_id);
  uint32_t count = region->op_count;
  const loom_op_t* term = hn_region_terminator(m, region_id);
  /* Nested regions keep their terminator for hn_phase_yield. */
  if (!top && term) --count;
  uint32_t i = 0;
  while (i < count) {
    uint32_t j = i;
    while (j < count &&
           !hn_sync_in_op(m, &LOOM_OP(m, LOOM_REGION_OP(m, region, j)), 0)) {
      ++j;
    }
    if (j > i && !hn_phase(h, region, i, j)) return false;
    if (j == count) break;
    const loom_op_t* op = &LOOM_OP(m, LOOM_REGION_OP(m, region, j));
    const loom_op_def_t* def = &loom_op_defs[op->opcode];
    bool ok = true;
    if (def->shape == LOOM_SHAPE_SHUFFLE) {
      ok = hn_phase_shuffle(h, op);
    } else if (def->shape == LOOM_SHAPE_REDUCE) {
      ok = strcmp(def->name, "kernel.workgroup.reduce")
               ? hn_phase_reduce(h, op, hn_cluster(h, op))
               : hn_phase_workgroup_reduce(h, op);
    } else if (def->shape == LOOM_SHAPE_SYNC) {
      ok = true; /* a subgroup barrier: the phase boundary itself */
    } else if (def->shape == LOOM_SHAPE_IF || def->shape == LOOM_SHAPE_FOR) {
      ok = hn_phase_control(h, op);
    } else {
      hn_decline(h, "%s around subgroup operations needs the interpreter",
                 def->name);
      ok = false;
    }
    if (!ok) return false;
    i = j + 1;
  }
  return true;
}

/* The waves of the workgroup, each through the kernel's phases. */
static LLVMBasicBlockRef hn_waves(hn_t* h, const loom_kernel_t* kernel,
                                  LLVMBasicBlockRef done) {
  const loom_module_t* m = h->m;
  LLVMBuilderRef b = hn_b(h);
  /* Early returns would leave lanes out of later phases. */
  const loom_region_t* body = &LOOM_REGION(m, kernel->body_region);
  for (uint32_t i = 0; i + 1 < body->op_count; ++i) {
    if (loom_op_defs[LOOM_OP(m, LOOM_REGION_OP(m, body, i)).opcode]
            .terminator == LOOM_TERM_KERNEL_RETURN) {
      hn_decline(h, "an early return with subgroup operations");
      return NULL;
    }
  }
  /* Each copy (fast and checked) has lane arrays of its own. */
  memset(h->arrays, 0, (m->values.count ? m->values.count : 1) *
                           sizeof(LLVMValueRef));
  memset(h->imported, 0, m->values.count ? m->values.count : 1);
  for (uint32_t v = 0; v < m->values.count; ++v) {
    if (h->lower.values[v] && (v < body->args_start ||
                               v >= body->args_start + body->arg_count)) {
      h->lower.values[v] = NULL;
    }
  }
  h->lower.lds_size = 0;
  h->lower.lds_align = 16;
  LLVMBasicBlockRef entry = hn_block(h, "waves");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef size = LLVMConstInt(h->i32, h->lanes, 0);
  LLVMValueRef threads = LLVMBuildMul(
      b, LLVMBuildMul(b, h->group_size[0], h->group_size[1], ""),
      h->group_size[2], "");
  h->one_dimensional = LLVMBuildICmp(
      b, LLVMIntEQ, threads, h->group_size[0], "");
  LLVMBasicBlockRef wave = hn_block(h, "wave");
  LLVMBuildBr(b, wave);
  LLVMPositionBuilderAtEnd(b, wave);
  LLVMValueRef index = LLVMBuildPhi(b, h->i32, "wave");
  LLVMValueRef zero = LLVMConstInt(h->i32, 0, 0);
  LLVMAddIncoming(index, &zero, &entry, 1);
  h->wave_index = index;
  if (h->fast && h->phi_count < 256) {
    h->phi_keys[h->phi_count] = index;
    h->phi_vars[h->phi_count++] = 4;
  }
  h->wave_base = LLVMBuildMul(b, index, size, "");
  LLVMValueRef left = LLVMBuildSub(b, threads, h->wave_base, "");
  h->wave_lanes = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntULT, left, size, ""), left, size, "");
  h->flat = h->wave_base;
  h->lane = NULL;
  /* Each lane of each wave starts over: no value survives a wave. */
  if (!hn_phase_region(h, kernel->body_region, true)) return NULL;
  if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(b))) {
    LLVMValueRef next = LLVMBuildAdd(b, index, LLVMConstInt(h->i32, 1, 0), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
    LLVMAddIncoming(index, &next, &latch, 1);
    LLVMBuildCondBr(
        b, LLVMBuildICmp(b, LLVMIntULT, LLVMBuildMul(b, next, size, ""),
                         threads, ""),
        wave, done);
  }
  return entry;
}

/* The diagnostics of a failed lowering as the kernel's note. */
static void hn_note_diagnostics(hn_t* h, hrx_loom_diagnostics_t* diagnostics) {
  if (h->declined) return;
  size_t count = hrx_loom_diagnostics_count(diagnostics);
  const hrx_loom_diagnostic_t* d =
      count ? hrx_loom_diagnostics_at(diagnostics, 0) : NULL;
  hn_decline(h, "%s", d && d->message ? d->message
                                      : "the LLVM lowering refused it");
}

/* The binding an access's pointer is an offset into (through GEPs), or
 * -1. */
static int hn_access_binding(hn_t* h, LLVMValueRef p) {
  for (int depth = 0; p && depth < 8; ++depth) {
    for (uint32_t slot = 0; slot < h->binding_count; ++slot) {
      if (p == h->binding_base[slot]) return (int)slot;
    }
    if (!LLVMIsAGetElementPtrInst(p)) return -1;
    p = LLVMGetOperand(p, 0);
  }
  return -1;
}

/* Buffers stay disjoint in the fast copy: its plain loads and stores get
 * one alias scope per binding (and noalias for every other), and the
 * precheck requires every binding the copy stores to not to overlap the
 * others it accesses, else the checked copy (no scopes) runs. Without
 * this LLVM must assume a store to one binding may change what another
 * holds: a row index loaded from one buffer is reloaded per work-item
 * and a gather's copy does not vectorise. True when scopes were set (the
 * kernel then needs its checked copy). */
static bool hn_scope_bindings(hn_t* h, uint32_t k) {
  uint32_t n = h->binding_count;
  if (n < 2) return false;
  bool accessed[HRX_HOST_MAX_BINDINGS] = {false};
  bool stored[HRX_HOST_MAX_BINDINGS] = {false};
  for (int pass = 0; pass < 2; ++pass) {
    LLVMMetadataRef scopes[HRX_HOST_MAX_BINDINGS];
    LLVMValueRef scope_lists[HRX_HOST_MAX_BINDINGS];
    LLVMValueRef noalias_lists[HRX_HOST_MAX_BINDINGS];
    unsigned scope_kind = LLVMGetMDKindIDInContext(h->context, "alias.scope",
                                                   11);
    unsigned noalias_kind = LLVMGetMDKindIDInContext(h->context, "noalias", 7);
    if (pass == 1) {
      /* Scopes and domains are told apart by a name of their own. */
      char name[96];
      snprintf(name, sizeof(name), "hrx.native.%u", k);
      LLVMMetadataRef text =
          LLVMMDStringInContext2(h->context, name, strlen(name));
      LLVMMetadataRef domain = LLVMMDNodeInContext2(h->context, &text, 1);
      for (uint32_t slot = 0; slot < n; ++slot) {
        snprintf(name, sizeof(name), "hrx.native.%u.binding.%u", k, slot);
        LLVMMetadataRef parts[2] = {
            LLVMMDStringInContext2(h->context, name, strlen(name)), domain};
        scopes[slot] = LLVMMDNodeInContext2(h->context, parts, 2);
      }
      for (uint32_t slot = 0; slot < n; ++slot) {
        LLVMMetadataRef others[HRX_HOST_MAX_BINDINGS];
        uint32_t count = 0;
        for (uint32_t o = 0; o < n; ++o) {
          if (o != slot && accessed[o]) others[count++] = scopes[o];
        }
        scope_lists[slot] = LLVMMetadataAsValue(
            h->context, LLVMMDNodeInContext2(h->context, &scopes[slot], 1));
        noalias_lists[slot] = LLVMMetadataAsValue(
            h->context, LLVMMDNodeInContext2(h->context, others, count));
      }
    }
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(h->fn); block;
         block = LLVMGetNextBasicBlock(block)) {
      for (LLVMValueRef i = LLVMGetFirstInstruction(block); i;
           i = LLVMGetNextInstruction(i)) {
        bool load = LLVMIsALoadInst(i) != NULL;
        bool store = LLVMIsAStoreInst(i) != NULL;
        if ((!load && !store) || LLVMGetVolatile(i) ||
            LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic) {
          continue;
        }
        int slot = hn_access_binding(h, LLVMGetOperand(i, load ? 0 : 1));
        if (slot < 0) continue;
        if (pass == 0) {
          accessed[slot] = true;
          stored[slot] |= store;
        } else {
          LLVMSetMetadata(i, scope_kind, scope_lists[slot]);
          LLVMSetMetadata(i, noalias_kind, noalias_lists[slot]);
        }
      }
    }
    if (pass == 1) break;
    /* Which pairs must be disjoint: a stored binding and any other. */
    LLVMValueRef disjoint = NULL;
    LLVMBuilderRef p = h->pre;
    for (uint32_t a = 0; a < n; ++a) {
      for (uint32_t b = a + 1; b < n; ++b) {
        if (!accessed[a] || !accessed[b] || !(stored[a] || stored[b])) {
          continue;
        }
        LLVMValueRef start[2], end[2];
        uint32_t pair[2] = {a, b};
        for (int e = 0; e < 2; ++e) {
          start[e] = LLVMBuildPtrToInt(p, h->binding_base[pair[e]], h->i64, "");
          end[e] = LLVMBuildAdd(p, start[e], h->binding_size[pair[e]], "");
        }
        LLVMValueRef apart = LLVMBuildOr(
            p, LLVMBuildICmp(p, LLVMIntULE, end[0], start[1], ""),
            LLVMBuildICmp(p, LLVMIntULE, end[1], start[0], ""), "");
        disjoint = hn_and(h, disjoint, apart);
      }
    }
    if (!disjoint) return false;
    h->pre_ok = hn_and(h, h->pre_ok, disjoint);
  }
  return true;
}

/* Lowers kernel |k| into hrx_native_<k>; false (with a note) when it
 * cannot be native. */
static bool hn_kernel(hn_t* h, uint32_t k, hrx_loom_diagnostics_t* diagnostics) {
  const loom_module_t* m = h->m;
  const loom_kernel_t* kernel = &LOOM_KERNEL(m, k);
  h->declined = false;
  h->note[0] = '\0';
  const char* lockstep = hn_find_lockstep(m, kernel->body_region, 0);
  if (lockstep) {
    hn_decline(h, "%s", lockstep);
    return false;
  }
  uint32_t sync = hn_sync_in_region(m, kernel->body_region, 0);
  if (sync & (HN_SYNC_CALL | HN_SYNC_WHILE)) {
    hn_decline(h, "subgroup operations or barriers inside %s need the "
               "interpreter", sync & HN_SYNC_CALL ? "a function" : "scf.while");
    return false;
  }
  bool phases = (sync & (HN_SYNC_WAVE | HN_SYNC_BARRIER)) != 0;
  h->hooks.subgroup_size =
      kernel->target != LOOM_NONE && LOOM_TARGET(m, kernel->target).subgroup_size
          ? (uint32_t)LOOM_TARGET(m, kernel->target).subgroup_size
          : 32;
  /* Workgroup barriers: phases over the whole workgroup, split at each
   * barrier (a workgroup holds at most HN_MAX_WORKGROUP work-items). */
  h->workgroup_phases = (sync & HN_SYNC_BARRIER) != 0;
  h->array_bytes = 0;
  h->kernel_region = kernel->body_region;
  h->lanes = h->workgroup_phases ? HN_MAX_WORKGROUP : h->hooks.subgroup_size;
  char name[64];
  snprintf(name, sizeof(name), HRX_HOST_NATIVE_SYMBOL_PREFIX "%u", k);
  LLVMTypeRef fn_type = LLVMFunctionType(h->i32, &h->ptr, 1, 0);
  h->fn = LLVMAddFunction(h->module, name, fn_type);
  LLVMSetLinkage(h->fn, LLVMExternalLinkage);
  LLVMAddAttributeAtIndex(
      h->fn, LLVMAttributeFunctionIndex,
      LLVMCreateEnumAttribute(h->context,
                              LLVMGetEnumAttributeKindForName("nounwind", 8),
                              0));
  LLVMAddAttributeAtIndex(
      h->fn, 1,
      LLVMCreateEnumAttribute(h->context,
                              LLVMGetEnumAttributeKindForName("noalias", 7),
                              0));
  h->args = LLVMGetParam(h->fn, 0);
  h->lower.function = h->fn;
  h->claims.count = 0;
  h->ivs.count = 0;
  h->safe_divisors.count = 0;
  h->divisions.count = 0;
  h->array_loads.count = 0;
  h->var_count = 0;
  h->hoisted = 0;
  h->prefetch_count = 0;
  h->pre_ok = NULL;
  if (h->memo) memset(h->memo, 0, h->memo_capacity * sizeof(hn_memo_t));
  h->memo_count = 0;

  LLVMBuilderRef b = hn_b(h);
  h->prologue = hn_block(h, "prologue");
  h->precheck = hn_block(h, "precheck");
  h->fault = hn_block(h, "fault");
  LLVMBasicBlockRef done = hn_block(h, "done");
  hn_fault_block(h);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRet(b, LLVMConstInt(h->i32, 0, 0));
  LLVMPositionBuilderAtEnd(b, h->prologue);
  memset(h->lower.values, 0, (m->values.count ? m->values.count : 1) *
                                 sizeof(LLVMValueRef));
  bool ok = hn_prologue(h, kernel);
  if (ok) {
    LLVMValueRef to_precheck = LLVMBuildBr(b, h->precheck);
    LLVMPositionBuilderBefore(h->entry, to_precheck);
    LLVMPositionBuilderAtEnd(h->pre, h->precheck);
    /* The work-item ids range over the workgroup. */
    for (int d = 0; d < 3; ++d) {
      h->vars[d] = (hn_var_t){
          .lo = LLVMConstInt(h->i128, 0, 0),
          .hi = LLVMBuildSub(h->pre,
                             LLVMBuildZExt(h->pre, h->group_size[d], h->i128,
                                           ""),
                             LLVMConstInt(h->i128, 1, 0), "")};
    }
    h->var_count = 3;
  }
  h->phi_count = 0;
  h->wave_index = NULL;
  h->lane = NULL;
  if (ok && phases) {
    /* Lanes run over the subgroup, waves over the workgroup. */
    const loom_region_t* body = &LOOM_REGION(m, kernel->body_region);
    uint32_t values = m->values.count ? m->values.count : 1;
    memset(h->uniform, 0, values);
    for (uint32_t v = 0; v < values; ++v) h->array_roots[v] = HN_ROOT_NONE;
    for (uint32_t a = 0; a < body->arg_count; ++a) {
      h->uniform[body->args_start + a] = 1;
    }
    hn_uniform_region(h, kernel->body_region);
    /* Workgroups hold at most 1024 work-items: i32 arithmetic. */
    LLVMValueRef threads = LLVMBuildMul(
        h->pre,
        LLVMBuildMul(h->pre, h->group_size[0], h->group_size[1], ""),
        h->group_size[2], "");
    LLVMValueRef last = LLVMBuildSub(h->pre, threads,
                                     LLVMConstInt(h->i32, 1, 0), "");
    LLVMValueRef last_wave = LLVMBuildUDiv(
        h->pre, last, LLVMConstInt(h->i32, h->lanes, 0), "");
    h->vars[3] = (hn_var_t){
        .lo = LLVMConstInt(h->i128, 0, 0),
        .hi = h->workgroup_phases
                  ? LLVMBuildZExt(h->pre, last, h->i128, "")
                  : LLVMConstInt(h->i128, h->lanes - 1, 0)};
    h->vars[4] = (hn_var_t){
        .lo = LLVMConstInt(h->i128, 0, 0),
        .hi = LLVMBuildZExt(h->pre, last_wave, h->i128, "")};
    h->var_count = 5;
  }
  size_t errors = hrx_loom_diagnostics_error_count(diagnostics);
  h->fast = true;
  LLVMBasicBlockRef fast =
      !ok ? NULL : phases ? hn_waves(h, kernel, done) : hn_loops(h, kernel, done);
  if (fast && !h->declined && hn_scope_bindings(h, k)) h->hoisted++;
  /* The item keys exist only now (the fast copy's loop phis). */
  LLVMBasicBlockRef checked = NULL;
  if (fast && h->hoisted) {
    h->fast = false;
    checked = phases ? hn_waves(h, kernel, done) : hn_loops(h, kernel, done);
  }
  ok = fast && (!h->hoisted || checked) && !h->declined &&
       hrx_loom_diagnostics_error_count(diagnostics) == errors &&
       h->lower.status == HRX_OK && h->status == HRX_OK;
  /* Loops now have their back-edges: every root must still hold. */
  for (uint32_t i = 0; ok && i < h->claims.count; ++i) {
    const hn_claim_t* c = &LOOM_AT(h->claims, hn_claim_t, i);
    if (hn_root(h, c->ptr) != c->root) {
      hn_decline(h, "an access through a buffer chosen at run time");
      ok = false;
    }
  }
  if (ok) {
    if (checked) {
      LLVMValueRef pass = h->pre_ok ? h->pre_ok : LLVMConstInt(h->i1, 1, 0);
      LLVMBuildCondBr(h->pre, pass, hn_prefetch_block(h, fast), checked);
    } else {
      LLVMBuildBr(h->pre, fast);
    }
    if (!LLVMGetFirstUse(LLVMBasicBlockAsValue(h->fault))) {
      LLVMDeleteBasicBlock(h->fault);
    }
    if (LLVMVerifyFunction(h->fn, LLVMReturnStatusAction)) {
      /* A bug of this file: say what LLVM found. */
      char* message = NULL;
      LLVMVerifyModule(h->module, LLVMReturnStatusAction, &message);
      hn_decline(h, "the native lowering produced invalid IR: %.300s",
                 message ? message : "?");
      LLVMDisposeMessage(message);
      ok = false;
    }
  }
  if (!ok) {
    LLVMClearInsertionPosition(hn_b(h));
    LLVMClearInsertionPosition(h->pre);
    LLVMClearInsertionPosition(h->entry);
    hn_note_diagnostics(h, diagnostics);
    if (h->lower.status != HRX_OK) {
      hrx_status_t status = h->lower.status;
      h->lower.status = HRX_OK;
      hn_try(h, status);
    }
    LLVMDeleteFunction(h->fn);
    h->fn = NULL;
  }
  return ok;
}

/*===------------------------------------------------------------------===*/
/* Compilation                                                             */
/*===------------------------------------------------------------------===*/

static hrx_status_t hn_put_text(hrx_string_builder_t* out, const char* text,
                                size_t limit) {
  size_t length = strlen(text);
  if (length > limit) length = limit;
  HRX_RETURN_IF_ERROR(loom_append_le(out, (uint32_t)length, 4));
  return hrx_string_builder_append(out, text, length);
}

/* Appends the section: notes per kernel and the object (may be empty). */
static hrx_status_t hn_write(hrx_string_builder_t* out, uint32_t count,
                             const bool* has_code, char (*notes)[HRX_HOST_NATIVE_MAX_NOTE],
                             const uint8_t* object, size_t object_length) {
  HRX_RETURN_IF_ERROR(
      hrx_string_builder_append(out, HRX_HOST_NATIVE_MAGIC, 4));
  HRX_RETURN_IF_ERROR(loom_append_le(out, HRX_HOST_NATIVE_ABI, 4));
  HRX_RETURN_IF_ERROR(hn_put_text(out, hn_cpu, HRX_HOST_NATIVE_MAX_CPU));
  HRX_RETURN_IF_ERROR(
      hn_put_text(out, hn_features, HRX_HOST_NATIVE_MAX_FEATURES));
  HRX_RETURN_IF_ERROR(loom_append_le(out, count, 4));
  for (uint32_t k = 0; k < count; ++k) {
    HRX_RETURN_IF_ERROR(loom_append_le(out, has_code[k] ? 1 : 0, 4));
    HRX_RETURN_IF_ERROR(hn_put_text(out, has_code[k] ? "" : notes[k],
                                    HRX_HOST_NATIVE_MAX_NOTE));
  }
  HRX_RETURN_IF_ERROR(loom_append_le(out, (uint32_t)object_length, 4));
  return object_length ? hrx_string_builder_append(out, object, object_length)
                       : HRX_OK;
}

static hrx_status_t hn_create(hn_t* h) {
  h->context = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(h->context, llvm_keep_first_error,
                                  &h->llvm_errors);
  LLVMTargetRef target = NULL;
  char* message = NULL;
  if (LLVMGetTargetFromTriple(hn_triple, &target, &message)) {
    LLVMDisposeMessage(message);
    return hrx_make_status(HRX_STATUS_UNAVAILABLE, "no x86 target");
  }
  h->machine = LLVMCreateTargetMachine(target, hn_triple, hn_cpu, hn_features,
                                       LLVMCodeGenLevelAggressive,
                                       LLVMRelocPIC, LLVMCodeModelSmall);
  if (!h->machine) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "cannot create an x86 target machine");
  }
  h->module = LLVMModuleCreateWithNameInContext("hrx-host-native", h->context);
  LLVMSetTarget(h->module, hn_triple);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(h->machine);
  LLVMSetModuleDataLayout(h->module, layout);
  LLVMDisposeTargetData(layout);
  h->i1 = LLVMInt1TypeInContext(h->context);
  h->i8 = LLVMInt8TypeInContext(h->context);
  h->i16 = LLVMInt16TypeInContext(h->context);
  h->i32 = LLVMInt32TypeInContext(h->context);
  h->i64 = LLVMInt64TypeInContext(h->context);
  h->i128 = LLVMIntTypeInContext(h->context, 128);
  h->ptr = LLVMPointerTypeInContext(h->context, 0);
  h->pre = LLVMCreateBuilderInContext(h->context);
  h->entry = LLVMCreateBuilderInContext(h->context);
  h->prof_kind = LLVMGetMDKindIDInContext(h->context, "prof", 4);
  LLVMMetadataRef weights[] = {
      LLVMMDStringInContext2(h->context, "branch_weights", 14),
      LLVMValueAsMetadata(LLVMConstInt(h->i32, 1, 0)),
      LLVMValueAsMetadata(LLVMConstInt(h->i32, 1u << 20, 0))};
  h->cold_weights = LLVMMetadataAsValue(
      h->context, LLVMMDNodeInContext2(h->context, weights, 3));
  h->hooks = hn_hooks;
  return HRX_OK;
}

static hrx_status_t hn_llvm_failure(hn_t* h, const char* what) {
  return hrx_make_status(HRX_STATUS_INTERNAL, "%s failed: %s", what,
                         h->llvm_errors.text[0] ? h->llvm_errors.text
                                                : "no reason given");
}

/* HRX_HOST_NATIVE_DUMP=<dir>: every native object also goes to
 * <dir>/hrx-native-<pid>-<n>.o (for objdump), with its optimised LLVM IR
 * beside it (.ll). */
static void hn_dump(LLVMModuleRef module, const char* bytes, size_t length) {
  static atomic_uint counter;
  const char* dir = getenv("HRX_HOST_NATIVE_DUMP");
  if (!dir || !dir[0]) return;
  char path[4096];
  unsigned n = atomic_fetch_add(&counter, 1);
  snprintf(path, sizeof(path), "%s/hrx-native-%ld-%u.ll", dir,
           (long)getpid(), n);
  char* message = NULL;
  LLVMPrintModuleToFile(module, path, &message);
  LLVMDisposeMessage(message);
  snprintf(path, sizeof(path), "%s/hrx-native-%ld-%u.o", dir, (long)getpid(),
           n);
  FILE* file = fopen(path, "wb");
  if (!file) return;
  fwrite(bytes, 1, length, file);
  fclose(file);
}

static hrx_status_t hn_optimize_and_emit(hn_t* h, uint8_t** out_object,
                                         size_t* out_length) {
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(options, 1);
  LLVMPassBuilderOptionsSetSLPVectorization(options, 1);
  LLVMPassBuilderOptionsSetLoopInterleaving(options, 1);
  LLVMPassBuilderOptionsSetLoopUnrolling(options, 1);
  hrx_status_t verified =
      llvm_verify_and_optimize(h->module, h->machine, options, "native");
  LLVMDisposePassBuilderOptions(options);
  HRX_RETURN_IF_ERROR(verified);
  if (h->llvm_errors.text[0]) return hn_llvm_failure(h, "optimisation");
  LLVMMemoryBufferRef buffer = NULL;
  if (!llvm_emit_object(h->machine, h->module, &h->llvm_errors, &buffer)) {
    return hn_llvm_failure(h, "code generation");
  }
  size_t length = LLVMGetBufferSize(buffer);
  hn_dump(h->module, LLVMGetBufferStart(buffer), length);
  hrx_status_t status = HRX_OK;
  if (length > HRX_HOST_NATIVE_MAX_OBJECT) {
    status = hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                             "native object of %zu bytes", length);
  } else {
    status = hrx_allocator_malloc_uninitialized(h->allocator,
                                                length ? length : 1,
                                                (void**)out_object);
  }
  if (status == HRX_OK) {
    memcpy(*out_object, LLVMGetBufferStart(buffer), length);
    *out_length = length;
  }
  LLVMDisposeMemoryBuffer(buffer);
  return status;
}

static void hn_free(hn_t* h) {
  if (h->lower.m) llvm_lower_deinit(&h->lower);
  if (h->pre) LLVMDisposeBuilder(h->pre);
  if (h->module) LLVMDisposeModule(h->module);
  if (h->machine) LLVMDisposeTargetMachine(h->machine);
  if (h->context) LLVMContextDispose(h->context);
  loom_array_free(&h->claims, h->allocator);
  loom_array_free(&h->ivs, h->allocator);
  loom_array_free(&h->safe_divisors, h->allocator);
  loom_array_free(&h->divisions, h->allocator);
  hrx_allocator_free(h->allocator, h->memo);
  hrx_allocator_free(h->allocator, h->uniform);
  hrx_allocator_free(h->allocator, h->imported);
  hrx_allocator_free(h->allocator, h->arrays);
  hrx_allocator_free(h->allocator, h->array_roots);
  loom_array_free(&h->array_loads, h->allocator);
  if (h->entry) LLVMDisposeBuilder(h->entry);
  hrx_status_free(h->status);
}

/* One compilation's native part; runs on a thread of its own, whose
 * stack LLVM may use freely whatever the caller's. */
typedef struct hn_job_t {
  const loom_module_t* module;
  const hrx_loom_specialization_t* spec;
  hrx_allocator_t allocator;
  uint32_t count;
  bool* has_code;
  char (*notes)[HRX_HOST_NATIVE_MAX_NOTE];
  uint8_t* object;
  size_t object_length;
  hrx_status_t status;
} hn_job_t;

static void hn_compile(hn_job_t* job) {
  const loom_module_t* module = job->module;
  const hrx_loom_specialization_t* spec = job->spec;
  hrx_allocator_t allocator = job->allocator;
  uint32_t count = job->count;
  bool* has_code = job->has_code;
  char (*notes)[HRX_HOST_NATIVE_MAX_NOTE] = job->notes;
  uint8_t* object = NULL;
  size_t object_length = 0;
  hrx_status_t status = HRX_OK;
  {
    hn_t* h = NULL;
    status = hrx_allocator_malloc(allocator, sizeof(*h), (void**)&h);
    hrx_loom_diagnostics_t* diagnostics = NULL;
    if (status == HRX_OK) {
      memset(h, 0, sizeof(*h));
      h->m = module;
      h->spec = spec;
      h->allocator = allocator;
      status = hrx_loom_diagnostics_create(0, allocator, &diagnostics);
    }
    if (status == HRX_OK) status = hn_create(h);
    if (status == HRX_OK) {
      status = llvm_lower_init(&h->lower, module, spec, &h->hooks, h->module,
                               diagnostics, allocator);
    }
    size_t values = module->values.count ? module->values.count : 1;
    if (status == HRX_OK) {
      status = hrx_allocator_malloc(allocator, values, (void**)&h->uniform);
    }
    if (status == HRX_OK) {
      status = hrx_allocator_malloc(allocator, values, (void**)&h->imported);
    }
    if (status == HRX_OK) {
      status = hrx_allocator_malloc_array(allocator, values,
                                          sizeof(LLVMValueRef),
                                          (void**)&h->arrays);
    }
    if (status == HRX_OK) {
      status = hrx_allocator_malloc_array(allocator, values, sizeof(int),
                                          (void**)&h->array_roots);
    }
    uint32_t native = 0;
    for (uint32_t k = 0; status == HRX_OK && k < count; ++k) {
      hrx_loom_diagnostics_clear(diagnostics);
      has_code[k] = hn_kernel(h, k, diagnostics);
      if (!has_code[k]) {
        snprintf(notes[k], sizeof(notes[k]), "%s", h->note);
      }
      native += has_code[k];
      if (h->status != HRX_OK) {
        status = h->status;
        h->status = HRX_OK;
      }
    }
    if (status == HRX_OK && native) {
      status = llvm_lower_finish(&h->lower);
      if (status == HRX_OK) {
        status = hn_optimize_and_emit(h, &object, &object_length);
      }
      if (status != HRX_OK) {
        /* Native code is an optimisation: a failure here declines every
         * kernel rather than the compilation. */
        char text[HRX_HOST_NATIVE_MAX_NOTE];
        hrx_status_format(status, text, sizeof(text));
        for (uint32_t k = 0; k < count; ++k) {
          if (has_code[k]) {
            has_code[k] = false;
            snprintf(notes[k], sizeof(notes[k]), "%s", text);
          }
        }
        hrx_allocator_free(allocator, object);
        object = NULL;
        object_length = 0;
        status = hrx_status_is(status, HRX_STATUS_RESOURCE_EXHAUSTED)
                     ? status : (hrx_status_free(status), HRX_OK);
      }
    } else if (status != HRX_OK &&
               !hrx_status_is(status, HRX_STATUS_RESOURCE_EXHAUSTED)) {
      char text[HRX_HOST_NATIVE_MAX_NOTE];
      hrx_status_format(status, text, sizeof(text));
      hrx_status_free(status);
      status = HRX_OK;
      for (uint32_t k = 0; k < count; ++k) {
        has_code[k] = false;
        snprintf(notes[k], sizeof(notes[k]), "%s", text);
      }
    }
    if (h) hn_free(h);
    hrx_allocator_free(allocator, h);
    hrx_loom_diagnostics_destroy(diagnostics);
  }
  job->object = object;
  job->object_length = object_length;
  job->status = status;
}

static void* hn_compile_thread(void* arg) {
  hn_compile((hn_job_t*)arg);
  return NULL;
}

#define HN_STACK_BYTES (16u << 20)

hrx_status_t loom_host_native_append(const loom_module_t* module,
                                     const hrx_loom_specialization_t* spec,
                                     const hrx_loom_profile_t* profile,
                                     const hrx_loom_host_options_t* options,
                                     hrx_allocator_t allocator,
                                     hrx_string_builder_t* out) {
  (void)profile;
  pthread_once(&hn_once, hn_initialize);
  /* No native code for this machine, or none wanted. */
  if (!hn_usable || hn_disabled()) return HRX_OK;
  uint32_t count = module->kernels.count;
  hn_job_t job = {.module = module, .spec = spec, .allocator = allocator,
                  .count = count};
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      allocator, count ? count : 1, sizeof(bool), (void**)&job.has_code));
  hrx_status_t status = hrx_allocator_malloc_array(
      allocator, count ? count : 1, sizeof(*job.notes), (void**)&job.notes);
  if (status != HRX_OK) {
    hrx_allocator_free(allocator, job.has_code);
    return status;
  }
  for (uint32_t k = 0; k < count; ++k) {
    job.has_code[k] = false;
    job.notes[k][0] = '\0';
  }
  if (options && options->sanitizers) {
    for (uint32_t k = 0; k < count; ++k) {
      snprintf(job.notes[k], sizeof(job.notes[k]),
               "sanitizers run on the interpreter");
    }
  } else {
    pthread_attr_t attr;
    pthread_t thread;
    bool threaded = pthread_attr_init(&attr) == 0;
    if (threaded) {
      threaded = pthread_attr_setstacksize(&attr, HN_STACK_BYTES) == 0 &&
                 pthread_create(&thread, &attr, hn_compile_thread, &job) == 0;
      pthread_attr_destroy(&attr);
    }
    if (threaded) {
      pthread_join(thread, NULL);
    } else {
      hn_compile(&job);
    }
    status = job.status;
  }
  if (status == HRX_OK) {
    status = hn_write(out, count, job.has_code, job.notes, job.object,
                      job.object_length);
  }
  hrx_allocator_free(allocator, job.object);
  hrx_allocator_free(allocator, job.has_code);
  hrx_allocator_free(allocator, job.notes);
  return status;
}

#endif /* HRX_LOOM_HAVE_LLVM */
