/* Native code for the host device: the ABI between libhrx-loom, which
 * compiles Loom kernels to x86-64 through LLVM, and libhrx-fabric, which
 * loads that code and runs it instead of interpreting host-ISA bytecode.
 *
 * Header-only, like host_isa.h: the compiler includes it without linking
 * the device layer, and libhrx-fabric never links LLVM.
 *
 * The native section of a host code object (host_isa.h, version 4)
 *   An optional trailer of the kernel table, after the last kernel and
 *   before the SHA-256 trailer (little-endian):
 *     "HXNT"  u32 abi (HRX_HOST_NATIVE_ABI)
 *             u32 cpu_length, cpu bytes          LLVM's host CPU name
 *             u32 features_length, feature bytes "+avx2,-avx512f,..."
 *             u32 kernel_count (the code object's)
 *             kernel_count x {u32 has_code, u32 note_length, note bytes}
 *             u32 object_length, object bytes
 *   has_code is 1 when the object defines "hrx_native_<k>" for kernel k
 *   (decimal index), else 0 with a note saying why the compiler declined
 *   the kernel (those run on the interpreter). The object is an ELF64
 *   x86-64 relocatable file (ET_REL) for the CPU and features recorded;
 *   object_length is 0 when no kernel has code. A loader refuses a
 *   section it cannot frame (lengths past the end, limits below exceeded)
 *   as a malformed code object; it runs a kernel on the interpreter when
 *   the object itself is unusable (bad ELF, unknown relocation or symbol)
 *   or was compiled for features the running CPU lacks.
 *
 * The entry point
 *   int32_t hrx_native_<k>(hrx_host_native_args_t* args) runs every
 *   work-item of one workgroup, in work-item order, and returns 0, or a
 *   hrx_fabric_fault_kind_t after filling args->fault. Every load, store
 *   and atomic is checked as the interpreter checks it (host_isa.h,
 *   Address arithmetic): the code never touches memory outside a binding
 *   or the workgroup's local memory. Loops of the kernel poll *cancel at
 *   each back-edge. The code follows the interpreter's semantics bit for
 *   bit (integer wrap, division faults, shifts, f16/bf16 through f32, the
 *   host's math formulas); a fault's report is the interpreter's, which
 *   the device obtains by replaying the faulting workgroup.
 *
 * Code is position-independent or absolute (small code model); the
 * relocations a loader must handle are HRX_HOST_NATIVE_RELOCATIONS and
 * the only external symbols it may resolve are those named by
 * hrx_host_native_symbol_names (libm, memcpy/memset and the f16/bf16
 * conversions below, which round exactly as the interpreter does).
 */
#ifndef HRX_FABRIC_HOST_NATIVE_H_
#define HRX_FABRIC_HOST_NATIVE_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hrx/core/api.h"

#define HRX_HOST_NATIVE_MAGIC "HXNT"
#define HRX_HOST_NATIVE_ABI 1u

/* Section limits. */
#define HRX_HOST_NATIVE_MAX_CPU 128u
#define HRX_HOST_NATIVE_MAX_FEATURES 16384u
#define HRX_HOST_NATIVE_MAX_NOTE 1024u
#define HRX_HOST_NATIVE_MAX_OBJECT (64u << 20)

/* The entry symbol of kernel k is this prefix followed by k in decimal. */
#define HRX_HOST_NATIVE_SYMBOL_PREFIX "hrx_native_"

/* One buffer binding: the same layout as the executor's slots. */
typedef struct hrx_host_native_binding_t {
  uint8_t* base;
  uint64_t size;
} hrx_host_native_binding_t;

/* What native code reports with a nonzero return. */
typedef struct hrx_host_native_fault_t {
  uint32_t kind;      /* hrx_fabric_fault_kind_t */
  uint32_t work_item; /* flat work-item id within the workgroup */
  uint32_t slot;      /* binding, or HRX_HOST_SLOT_LOCAL */
  uint32_t access_bytes;
  uint64_t offset;    /* byte offset of the access (2^48 - 1: poisoned) */
} hrx_host_native_fault_t;

typedef struct hrx_host_native_args_t {
  const uint8_t* kernarg;                      /* 0 */
  const hrx_host_native_binding_t* bindings;   /* 8: in argument order */
  uint8_t* local;                              /* 16: zeroed */
  uint64_t local_size;                         /* 24 */
  const volatile uint8_t* cancel;              /* 32: nonzero: stop */
  uint32_t workgroup_id[3];                    /* 40 */
  uint32_t workgroup_size[3];                  /* 52 */
  uint32_t workgroup_count[3];                 /* 64 */
  uint32_t reserved;                           /* 76 */
  hrx_host_native_fault_t fault;               /* 80 */
} hrx_host_native_args_t;

HRX_STATIC_ASSERT(offsetof(hrx_host_native_args_t, cancel) == 32,
                  "native args layout");
HRX_STATIC_ASSERT(offsetof(hrx_host_native_args_t, workgroup_id) == 40,
                  "native args layout");
HRX_STATIC_ASSERT(offsetof(hrx_host_native_args_t, workgroup_size) == 52,
                  "native args layout");
HRX_STATIC_ASSERT(offsetof(hrx_host_native_args_t, workgroup_count) == 64,
                  "native args layout");
HRX_STATIC_ASSERT(offsetof(hrx_host_native_args_t, fault) == 80,
                  "native args layout");
HRX_STATIC_ASSERT(sizeof(hrx_host_native_fault_t) == 24, "native fault");
HRX_STATIC_ASSERT(sizeof(hrx_host_native_binding_t) == 16,
                  "native binding");

/* Byte offsets the compiler addresses (they match the struct above). */
#define HRX_HOST_NATIVE_ARGS_KERNARG 0u
#define HRX_HOST_NATIVE_ARGS_BINDINGS 8u
#define HRX_HOST_NATIVE_ARGS_LOCAL 16u
#define HRX_HOST_NATIVE_ARGS_LOCAL_SIZE 24u
#define HRX_HOST_NATIVE_ARGS_CANCEL 32u
#define HRX_HOST_NATIVE_ARGS_WORKGROUP_ID 40u
#define HRX_HOST_NATIVE_ARGS_WORKGROUP_SIZE 52u
#define HRX_HOST_NATIVE_ARGS_WORKGROUP_COUNT 64u
#define HRX_HOST_NATIVE_ARGS_FAULT 80u

typedef int32_t (*hrx_host_native_entry_t)(hrx_host_native_args_t* args);

/* The x86-64 relocation types (ELF R_X86_64_*) native objects may use. */
#define HRX_HOST_NATIVE_R_64 1u
#define HRX_HOST_NATIVE_R_PC32 2u
#define HRX_HOST_NATIVE_R_PLT32 4u
#define HRX_HOST_NATIVE_R_GOTPCREL 9u
#define HRX_HOST_NATIVE_R_32 10u
#define HRX_HOST_NATIVE_R_32S 11u
#define HRX_HOST_NATIVE_R_GOTPCRELX 41u
#define HRX_HOST_NATIVE_R_REX_GOTPCRELX 42u

/* The external functions native code may call, by name. The loader maps
 * each to its own implementation; any other undefined symbol refuses the
 * object. The __*hf2/__*bf2 conversions are the interpreter's roundings
 * (hrx/core/half.h; f64 narrows through f32, as the interpreter does). */
static const char* const hrx_host_native_symbol_names[] = {
    "memcpy",  "memmove", "memset", "expf",   "exp",    "exp2f",
    "exp2",    "logf",    "log",    "log2f",  "log2",   "log10f",
    "log10",   "sinf",    "sin",    "cosf",   "cos",    "sincosf",
    "sincos",  "tanhf",   "tanh",   "powf",   "pow",    "fmaf",
    "fma",     "floorf",  "floor",  "ceilf",  "ceil",   "truncf",
    "trunc",   "roundevenf", "roundeven", "nearbyintf", "nearbyint",
    "rintf",   "rint",    "roundf", "round",  "sqrtf",  "sqrt",
    "fminf",   "fmin",    "fmaxf",  "fmax",   "fmodf",  "fmod",
    "ldexpf",  "ldexp",   "__truncsfhf2", "__extendhfsf2",
    "__gnu_f2h_ieee", "__gnu_h2f_ieee", "__truncdfhf2", "__truncsfbf2",
    "__truncdfbf2",
};

#define HRX_HOST_NATIVE_SYMBOL_COUNT \
  (sizeof(hrx_host_native_symbol_names) / \
   sizeof(hrx_host_native_symbol_names[0]))

/* Whether |name| (|length| bytes) is on the list above. */
static inline int hrx_host_native_symbol_allowed(const char* name,
                                                 size_t length) {
  for (size_t i = 0; i < HRX_HOST_NATIVE_SYMBOL_COUNT; ++i) {
    const char* allowed = hrx_host_native_symbol_names[i];
    if (strlen(allowed) == length && memcmp(allowed, name, length) == 0) {
      return 1;
    }
  }
  return 0;
}

#endif /* HRX_FABRIC_HOST_NATIVE_H_ */
