/* The host ISA: the instruction set of HRX's host device.
 *
 * The host device runs kernels the way a GPU does: a workgroup is split into
 * waves (subgroups) of 32 or 64 lanes; one instruction acts on every active
 * lane of a wave. This header is the ISA's specification and the layout of
 * host code objects, in the way hardware documents its ISA: it is header-
 * only, so a compiler (libhrx-loom's host backend) can target it without
 * linking the device layer, and the executor in libhrx-fabric implements it.
 *
 * Registers
 *   Two files per wave. S registers hold one 64-bit value for the whole wave
 *   (uniform values: arguments, workgroup ids, loop counters with uniform
 *   bounds); V registers hold one 64-bit value per lane. Every operand field
 *   names a register in the file its flag bit selects, so an instruction
 *   whose inputs and output are all scalar runs once per wave, not per lane.
 *
 * Values in registers
 *   Integers are sign-extended from their width to 64 bits (i1 is 0 or 1;
 *   index and offset are i64). f32 keeps its IEEE bits in the low 32 bits,
 *   f16 and bf16 in the low 16, f64 uses all 64. Arithmetic on f16/bf16 is
 *   done in f32 and rounded back to nearest-even. The 8-bit floats
 *   (f8E4M3, f8E5M2) keep their bits in the low 8 and are storage only:
 *   loaded, stored, moved, selected, bitcast, and converted by CVT FEXT /
 *   FTRUNC to and from f16, bf16 and f32 as hrx/core/f8.h does (through
 *   f32, which is exact); no arithmetic takes them.
 *   A pointer is (slot << 48) | byte_offset: slots 0..N-1 are the dispatch's
 *   buffer bindings in kernel-argument order, HRX_HOST_SLOT_LOCAL is the
 *   workgroup's local memory, HRX_HOST_SLOT_PRIVATE its work-items'
 *   private memory (private_segment_size bytes for each, zeroed; the code
 *   places each work-item's part). Every load, store and atomic is checked
 *   against its slot's extent; a violation ends the dispatch with a fault
 *   report and never touches memory outside the allocation (in report
 *   mode, hrx/fabric/sanitizer.h, the lane's access is skipped instead and
 *   the dispatch goes on).
 *
 * Address arithmetic
 *   Never wraps, so the bounds check sees the true offset. PTR_ADD scales
 *   its index by imm (the element size) and poisons a pointer whose offset
 *   would leave [0, 2^48); a poisoned pointer (offset HRX_HOST_OFFSET_MASK,
 *   beyond every allocation, which are smaller than 2^48 bytes) stays
 *   poisoned. IMADD with HRX_HOST_FLAG_ADDRESS linearises view indices: an
 *   overflow, or a HRX_HOST_INDEX_POISON operand, gives
 *   HRX_HOST_INDEX_POISON, which PTR_ADD turns into a poisoned pointer.
 *
 * Control flow
 *   Uniform branches (JMP, BRZ, BRNZ on S registers) move the wave's pc.
 *   Divergent control uses an execution mask and a mask stack: IF/ELSE/
 *   ENDIF and LOOP_BEGIN/LOOP_TEST. Instructions writing a V register only
 *   write active lanes, so lanes that left a loop keep their final values.
 *   BARRIER parks the wave until every wave of its workgroup arrives.
 *   A dispatch can be cancelled from outside (hrx_fabric_signal_cancel on
 *   its completion signal): waves poll for it at every backward jump (IF,
 *   ELSE and LOOP_TEST exits included) and at BARRIER, so no loop outlives
 *   a cancel.
 *
 * Race checking
 *   A kernel flagged HRX_HOST_KERNEL_RACE_CHECK (Loom's race sanitizer)
 *   has every plain load and store of workgroup-local memory checked: two
 *   work-items touching the same 4-byte granule between the same two
 *   barriers, at least one of them writing, end the dispatch with a data
 *   race report naming both accesses (in report mode: one report per
 *   conflicting access, and the dispatch goes on). Atomics synchronise and are not
 *   checked; global memory is not covered. A store whose address and value
 *   are uniform across the wave is one access, by its lowest active lane.
 *   Barriers are checked too: a BARRIER reached with part of the wave's
 *   lanes inactive, or while another wave of the workgroup has finished or
 *   waits at a different BARRIER, ends the dispatch with a divergent-
 *   barrier report (without race checking such a barrier only waits for
 *   the waves that reach one).
 *
 * Code object (little-endian)
 *   header   "HXCO" u32 version, u32 kernel_count
 *   kernel   u32 name_length, name bytes
 *            u32 subgroup_size, u32 sreg_count, u32 vreg_count
 *            u32 group_segment_size, u32 private_segment_size
 *            u32 flags (HRX_HOST_KERNEL_*; unknown bits are refused)
 *            u32 kernarg_size, u32 arg_count,
 *              arg_count x {u8 kind, u8 type, u16 reserved, u32 offset}
 *            u32 const_count, const_count x u64
 *            u32 insn_count,  insn_count x 16-byte instruction
 *            u32 launch_program_length, launch program bytes
 *   native   optional (version 4): native x86-64 code for the kernels,
 *            "HXNT" ..., laid out in hrx/fabric/host_native.h
 *   trailer  32-byte SHA-256 of everything before it
 *   Version 3 objects (no native section) still load.
 */
#ifndef HRX_FABRIC_HOST_ISA_H_
#define HRX_FABRIC_HOST_ISA_H_

#include <stdint.h>

#include "hrx/core/api.h"

#define HRX_HOST_CODE_MAGIC "HXCO"
#define HRX_HOST_CODE_VERSION 4u
/* The oldest version loaders still read. */
#define HRX_HOST_CODE_VERSION_MIN 3u
/* 3: the f8 element types. */
#define HRX_HOST_ISA_VERSION 3u

#define HRX_HOST_MAX_LANES 64u
#define HRX_HOST_MAX_REGISTERS 4096u
#define HRX_HOST_MAX_MASK_DEPTH 64u
#define HRX_HOST_MAX_BINDINGS 255u
/* Per code object: kernels, and bytes of a kernel name. */
#define HRX_HOST_MAX_KERNELS 1024u
#define HRX_HOST_MAX_KERNEL_NAME 256u
#define HRX_HOST_SLOT_LOCAL 0xFFFFu
#define HRX_HOST_SLOT_PRIVATE 0xFFFEu

/* The u32 words of a kernel's header after its name, subgroup_size to
 * arg_count. */
#define HRX_HOST_KERNEL_HEADER_WORDS 8u

/* Kernel flags in the code object. */
#define HRX_HOST_KERNEL_RACE_CHECK 0x1u
#define HRX_HOST_KERNEL_FLAGS_KNOWN HRX_HOST_KERNEL_RACE_CHECK
#define HRX_HOST_PTR_SHIFT 48
#define HRX_HOST_OFFSET_MASK ((UINT64_C(1) << HRX_HOST_PTR_SHIFT) - 1)
/* An address index that overflowed (see Address arithmetic). */
#define HRX_HOST_INDEX_POISON INT64_MIN

/* Element types (the |type| field). */
typedef enum hrx_host_type_e {
  HRX_HOST_TYPE_I1 = 0,
  HRX_HOST_TYPE_I8,
  HRX_HOST_TYPE_I16,
  HRX_HOST_TYPE_I32,
  HRX_HOST_TYPE_I64,
  HRX_HOST_TYPE_F16,
  HRX_HOST_TYPE_BF16,
  HRX_HOST_TYPE_F32,
  HRX_HOST_TYPE_F64,
  HRX_HOST_TYPE_F8E4M3, /* OCP E4M3FN, hrx/core/f8.h */
  HRX_HOST_TYPE_F8E5M2,
  HRX_HOST_TYPE_COUNT,
} hrx_host_type_t;

/* Instruction flags: operand files (set = S register) and checking. */
enum {
  HRX_HOST_FLAG_A_SCALAR = 1u << 0,
  HRX_HOST_FLAG_B_SCALAR = 1u << 1,
  HRX_HOST_FLAG_C_SCALAR = 1u << 2,
  HRX_HOST_FLAG_DST_SCALAR = 1u << 3,
  /* Loom's operation sanitizer, on IADD, ISUB, IMUL and IMADD: a result
   * outside the signed range of the type faults (INTEGER_OVERFLOW); on
   * ISHL, ISHRU and ISHRS: an amount of at least the width faults
   * (BAD_SHIFT) instead of giving 0 or the sign. */
  HRX_HOST_FLAG_CHECKED = 1u << 4,
  /* On IMADD (i64) only: address linearisation, see Address arithmetic. */
  HRX_HOST_FLAG_ADDRESS = 1u << 5,
};
#define HRX_HOST_FLAGS_KNOWN 0x3Fu

typedef enum hrx_host_op_e {
  HRX_HOST_OP_NOP = 0,
  HRX_HOST_OP_MOV,          /* dst = a */
  HRX_HOST_OP_CONST,        /* dst = constants[imm] */
  HRX_HOST_OP_ARG,          /* dst(S) = kernarg at byte imm, read as type */
  HRX_HOST_OP_BINDING,      /* dst(S) = pointer to buffer argument imm */
  /* integer arithmetic, wrapped to type's width */
  HRX_HOST_OP_IADD,
  HRX_HOST_OP_ISUB,
  HRX_HOST_OP_IMUL,
  HRX_HOST_OP_IDIVS,        /* faults on division by zero */
  HRX_HOST_OP_IDIVU,
  HRX_HOST_OP_IREMS,
  HRX_HOST_OP_IREMU,
  HRX_HOST_OP_IMINS,
  HRX_HOST_OP_IMAXS,
  HRX_HOST_OP_IMINU,
  HRX_HOST_OP_IMAXU,
  HRX_HOST_OP_IAND,
  HRX_HOST_OP_IOR,
  HRX_HOST_OP_IXOR,
  HRX_HOST_OP_ISHL,
  HRX_HOST_OP_ISHRU,
  HRX_HOST_OP_ISHRS,
  HRX_HOST_OP_IMADD,        /* dst = a * b + c */
  /* floating point */
  HRX_HOST_OP_FADD,
  HRX_HOST_OP_FSUB,
  HRX_HOST_OP_FMUL,
  HRX_HOST_OP_FDIV,
  HRX_HOST_OP_FMIN,         /* C99 fmin: a NaN operand yields the other */
  HRX_HOST_OP_FMAX,
  HRX_HOST_OP_FFMA,         /* dst = a * b + c, fused */
  HRX_HOST_OP_FNEG,
  HRX_HOST_OP_FABS,
  HRX_HOST_OP_FFLOOR,
  HRX_HOST_OP_FCEIL,
  HRX_HOST_OP_FTRUNC,
  HRX_HOST_OP_FROUNDEVEN,
  HRX_HOST_OP_FSQRT,
  HRX_HOST_OP_FRSQRT,
  HRX_HOST_OP_FEXP,
  HRX_HOST_OP_FLOG,
  HRX_HOST_OP_FTANH,
  /* comparisons and selection (results are i1) */
  HRX_HOST_OP_ICMP,         /* aux = predicate, hrx_host_icmp_t */
  HRX_HOST_OP_FCMP,         /* aux = predicate, hrx_host_fcmp_t */
  HRX_HOST_OP_SELECT,       /* dst = a ? b : c */
  HRX_HOST_OP_CVT,          /* type = to, aux = from, imm = hrx_host_cvt_t */
  /* dispatch geometry; aux = dimension for the *_ID/SIZE/COUNT forms */
  HRX_HOST_OP_WORKITEM_ID,  /* V */
  HRX_HOST_OP_WORKGROUP_ID, /* S */
  HRX_HOST_OP_WORKGROUP_SIZE,
  HRX_HOST_OP_WORKGROUP_COUNT,
  HRX_HOST_OP_SUBGROUP_ID,  /* S */
  HRX_HOST_OP_LANE_ID,      /* V */
  HRX_HOST_OP_SUBGROUP_SIZE,
  /* memory; a = pointer */
  HRX_HOST_OP_PTR_ADD,      /* dst = a + b * imm bytes, imm >= 1 (checked:
                               out of range -> poison) */
  HRX_HOST_OP_LOAD,         /* dst = *a */
  HRX_HOST_OP_STORE,        /* *a = b */
  HRX_HOST_OP_ATOMIC_LOAD,  /* imm = ordering */
  HRX_HOST_OP_ATOMIC_STORE,
  HRX_HOST_OP_ATOMIC_RMW,   /* dst = old *a; *a = old <aux> b */
  HRX_HOST_OP_FENCE,        /* imm = ordering */
  /* subgroup */
  HRX_HOST_OP_SHUFFLE,      /* aux = mode; dst = a from lane(b, c) */
  HRX_HOST_OP_SHUFFLE_OK,   /* dst = whether that source lane is valid */
  HRX_HOST_OP_REDUCE,       /* aux = combine, imm = cluster size (0 = all) */
  HRX_HOST_OP_BARRIER,
  /* control */
  HRX_HOST_OP_JMP,          /* pc = imm */
  HRX_HOST_OP_BRZ,          /* if S a == 0: pc = imm */
  HRX_HOST_OP_BRNZ,
  HRX_HOST_OP_IF,           /* push exec; exec &= a; if none: pc = imm */
  HRX_HOST_OP_ELSE,         /* exec = top & ~a; if none: pc = imm */
  HRX_HOST_OP_ENDIF,        /* exec = pop */
  HRX_HOST_OP_LOOP_BEGIN,   /* push exec */
  HRX_HOST_OP_LOOP_TEST,    /* exec &= a; if none: exec = pop, pc = imm */
  HRX_HOST_OP_RET,
  /* sanitizers: fault unless a != 0 on every active lane; b is the value
   * the assertion is about, aux a hrx_host_assert_t */
  HRX_HOST_OP_ASSERT,
  HRX_HOST_OP_COMBINE,      /* dst = a <aux> b, aux = hrx_host_combine_t */
  HRX_HOST_OP_COUNT,
} hrx_host_op_t;

typedef enum hrx_host_icmp_e {
  HRX_HOST_ICMP_EQ = 0, HRX_HOST_ICMP_NE, HRX_HOST_ICMP_SLT,
  HRX_HOST_ICMP_SLE, HRX_HOST_ICMP_SGT, HRX_HOST_ICMP_SGE,
  HRX_HOST_ICMP_ULT, HRX_HOST_ICMP_ULE, HRX_HOST_ICMP_UGT,
  HRX_HOST_ICMP_UGE, HRX_HOST_ICMP_COUNT,
} hrx_host_icmp_t;

typedef enum hrx_host_fcmp_e {
  HRX_HOST_FCMP_OEQ = 0, HRX_HOST_FCMP_OGT, HRX_HOST_FCMP_OGE,
  HRX_HOST_FCMP_OLT, HRX_HOST_FCMP_OLE, HRX_HOST_FCMP_ONE,
  HRX_HOST_FCMP_ORD, HRX_HOST_FCMP_UEQ, HRX_HOST_FCMP_UGT,
  HRX_HOST_FCMP_UGE, HRX_HOST_FCMP_ULT, HRX_HOST_FCMP_ULE,
  HRX_HOST_FCMP_UNE, HRX_HOST_FCMP_UNO, HRX_HOST_FCMP_COUNT,
} hrx_host_fcmp_t;

typedef enum hrx_host_cvt_e {
  HRX_HOST_CVT_SEXT = 0,  /* integer widen/narrow, sign-extending result */
  HRX_HOST_CVT_ZEXT,      /* integer widen from unsigned */
  HRX_HOST_CVT_FEXT,      /* float to wider float */
  HRX_HOST_CVT_FTRUNC,    /* float to narrower float, nearest-even */
  HRX_HOST_CVT_SITOF,
  HRX_HOST_CVT_UITOF,
  HRX_HOST_CVT_FTOSI,     /* toward zero, saturating, NaN -> 0 */
  HRX_HOST_CVT_FTOUI,
  HRX_HOST_CVT_BITCAST,
  HRX_HOST_CVT_COUNT,
} hrx_host_cvt_t;

typedef enum hrx_host_shuffle_e {
  HRX_HOST_SHUFFLE_XOR = 0, HRX_HOST_SHUFFLE_UP, HRX_HOST_SHUFFLE_DOWN,
  HRX_HOST_SHUFFLE_INDEX, HRX_HOST_SHUFFLE_COUNT,
} hrx_host_shuffle_t;

typedef enum hrx_host_combine_e {
  HRX_HOST_COMBINE_ADDI = 0, HRX_HOST_COMBINE_ADDF, HRX_HOST_COMBINE_MULI,
  HRX_HOST_COMBINE_MULF, HRX_HOST_COMBINE_MAXNUMF, HRX_HOST_COMBINE_MINNUMF,
  HRX_HOST_COMBINE_MAXSI, HRX_HOST_COMBINE_MINSI, HRX_HOST_COMBINE_MAXUI,
  HRX_HOST_COMBINE_MINUI, HRX_HOST_COMBINE_ANDI, HRX_HOST_COMBINE_ORI,
  HRX_HOST_COMBINE_XORI, HRX_HOST_COMBINE_XCHG, HRX_HOST_COMBINE_COUNT,
} hrx_host_combine_t;

typedef enum hrx_host_ordering_e {
  HRX_HOST_ORDER_RELAXED = 0, HRX_HOST_ORDER_ACQUIRE, HRX_HOST_ORDER_RELEASE,
  HRX_HOST_ORDER_ACQ_REL, HRX_HOST_ORDER_SEQ_CST, HRX_HOST_ORDER_COUNT,
} hrx_host_ordering_t;

/* What an ASSERT checks: the fact kinds of Loom's index.assume, which the
 * value sanitizer turns into run-time checks. */
typedef enum hrx_host_assert_e {
  HRX_HOST_ASSERT_RANGE = 0, HRX_HOST_ASSERT_LT, HRX_HOST_ASSERT_LE,
  HRX_HOST_ASSERT_EQ, HRX_HOST_ASSERT_NE, HRX_HOST_ASSERT_MUL,
  HRX_HOST_ASSERT_COUNT,
} hrx_host_assert_t;

/* The ops HRX_HOST_FLAG_CHECKED applies to. */
static inline int hrx_host_op_checkable(uint8_t op) {
  return op == HRX_HOST_OP_IADD || op == HRX_HOST_OP_ISUB ||
         op == HRX_HOST_OP_IMUL || op == HRX_HOST_OP_IMADD ||
         op == HRX_HOST_OP_ISHL || op == HRX_HOST_OP_ISHRU ||
         op == HRX_HOST_OP_ISHRS;
}

/* a * b + c on address indices, as IMADD with HRX_HOST_FLAG_ADDRESS
 * computes it (compilers fold constant indices with it too). */
static inline int64_t hrx_host_index_madd(int64_t a, int64_t b, int64_t c) {
  int64_t r;
  if (a == HRX_HOST_INDEX_POISON || b == HRX_HOST_INDEX_POISON ||
      c == HRX_HOST_INDEX_POISON || __builtin_mul_overflow(a, b, &r) ||
      __builtin_add_overflow(r, c, &r)) {
    return HRX_HOST_INDEX_POISON;
  }
  return r;
}

/* Kernel argument kinds in the code object. */
typedef enum hrx_host_arg_kind_e {
  HRX_HOST_ARG_SCALAR = 0,
  HRX_HOST_ARG_BUFFER = 1, /* 8-byte device address in the kernarg */
} hrx_host_arg_kind_t;

/* One instruction: 16 bytes in memory and in the code object. */
typedef struct hrx_host_insn_t {
  uint8_t op;
  uint8_t type;
  uint8_t flags;
  uint8_t aux;
  uint16_t dst;
  uint16_t a;
  uint16_t b;
  uint16_t c;
  uint32_t imm;
} hrx_host_insn_t;

HRX_STATIC_ASSERT(sizeof(hrx_host_insn_t) == 16, "host instructions are 16 bytes");

#endif /* HRX_FABRIC_HOST_ISA_H_ */
