/* The fast host interpreter: a kernel's 16-byte host-ISA instructions are
 * translated once into instructions specialised by operation, type and
 * operand files (hx_insn_t), each naming its handler: a small function
 * whose lane loops are simple enough for the compiler to vectorise; no
 * lane looks at a type, a flag or an operand file. Address checks are
 * hoisted: a load or store checks the wave's slot and extent once (and
 * copies whole arrays when the lanes' addresses are consecutive), PTR_ADD
 * and address IMADD check bounds on their operands once, and then every
 * lane runs unchecked. Whatever a fast path does not cover (sanitized
 * arithmetic, atomics, subgroup operations, anything that would fault)
 * goes to the reference step (hrx_host_step) for that one instruction, so
 * results, faults and their reports are the reference's own.
 *
 * Translations are cached per thread, keyed by the instructions' bytes
 * (and the kernel's register shape), so any number of dispatches of a
 * kernel translate it once per worker. HRX_HOST_INTERPRETER=reference
 * runs the reference interpreter instead; =portable runs this one without
 * the instruction-set extensions chosen at run time (AVX2 and FMA on
 * x86-64). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "host_exec_internal.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define HX_HAVE_AVX2 1
#else
#define HX_HAVE_AVX2 0
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HX_LITTLE_ENDIAN 1
#else
#define HX_LITTLE_ENDIAN 0
#endif

/*===------------------------------------------------------------------===*/
/* Translated instructions                                                 */
/*===------------------------------------------------------------------===*/

/* Operand forms of binary operations with a V destination: VS has an S
 * register b, SV an S register a. A scalar destination (all operands S)
 * runs the VV form on one lane. */
enum { HX_VV = 0, HX_VS = 1, HX_SV = 2 };

/* Binary operations, each with its expression HX_E_<name>(x, y). */
#define HX_BINARY_OPS(X)                                                     \
  X(ADD64) X(ADD32) X(SUB64) X(SUB32) X(MUL64) X(MUL32) X(AND) X(OR)        \
  X(XOR64) X(XOR32) X(XOR1) X(MINS) X(MAXS) X(MINU) X(MAXU) X(EQ) X(NE)     \
  X(SLT) X(SLE) X(ULT) X(ULE) X(FSUB) X(FDIV)

/* f32 add and multiply: binary, with NaN operands handled (HX_NAN_BITS). */
#define HX_FLOAT_OPS(X) X(FADD, +, hx_scalar_fadd) X(FMUL, *, hx_scalar_fmul)

#define HX_FORMS(NAME, ...) HX_##NAME##_VV, HX_##NAME##_VS, HX_##NAME##_SV,

/* Ternary operations have one form per set of S operands: the op plus
 * (a S ? 1 : 0) + (b S ? 2 : 0) + (c S ? 4 : 0). Each has a form macro
 * HX_<name>_FORM in host_exec_loop.h. */
#define HX_TERNARY_OPS(X) X(MADD64) X(MADD32) X(MADD_ADDRESS) X(FMA32) X(SELECT)

#define HX_FORMS8(NAME)                                                      \
  HX_##NAME, HX_##NAME##_1, HX_##NAME##_2, HX_##NAME##_3, HX_##NAME##_4,     \
      HX_##NAME##_5, HX_##NAME##_6, HX_##NAME##_7,

/* Loads: X(name, bytes, C type, value of the bytes as an integer). */
#define HX_LOAD_OPS(X)                                                       \
  X(LOAD_I1, 1, uint8_t, HX_READ_I1)                                         \
  X(LOAD_S8, 1, uint8_t, HX_READ_S8)                                         \
  X(LOAD_S16, 2, uint16_t, HX_READ_S16)                                      \
  X(LOAD_S32, 4, uint32_t, HX_READ_S32)                                      \
  X(LOAD_U16, 2, uint16_t, HX_READ_U)                                        \
  X(LOAD_U32, 4, uint32_t, HX_READ_U)                                        \
  X(LOAD_U64, 8, uint64_t, HX_READ_U)

#define HX_STORE_OPS(X)                                                      \
  X(STORE1, 1, uint8_t) X(STORE2, 2, uint16_t) X(STORE4, 4, uint32_t)         \
  X(STORE8, 8, uint64_t)

/* Lane-wise unary operations: X(name, expression of the lane's value v). */
#define HX_UNARY_OPS(X)                                                      \
  X(MOV, v)                                                                  \
  X(SEXT32, HX_SEXT32(v))                                                    \
  X(MASK, v & K)                                                             \
  X(MASK_SEXT32, HX_SEXT32(v & K))                                           \
  X(BF16_TO_F32, (uint64_t)hrx_bf16_to_f32_bits((uint16_t)v))                \
  X(F32_TO_BF16, (uint64_t)hrx_f32_bits_to_bf16((uint32_t)v))                \
  X(F16_TO_F32, (uint64_t)hrx_f16_to_f32_bits((uint16_t)v))                  \
  X(F32_TO_F16, (uint64_t)hrx_f32_bits_to_f16((uint32_t)v))                  \
  X(F32_TO_F64, hrx_from_f64((double)hrx_f32(v)))                            \
  X(F64_TO_F32, hrx_from_f32((float)hrx_f64(v)))                             \
  X(SITOF32, hrx_from_f32((float)(int64_t)v))                                \
  X(SITOF64, hrx_from_f64((double)(int64_t)v))                               \
  X(UITOF32, hrx_from_f32((float)(v & K)))                                   \
  X(UITOF64, hrx_from_f64((double)(v & K)))                                  \
  X(FNEG32, (uint64_t)((uint32_t)v ^ UINT32_C(0x80000000)))                  \
  X(FABS32, (uint64_t)((uint32_t)v & UINT32_C(0x7FFFFFFF)))

#define HX_ENUM(NAME, ...) HX_##NAME,
#define HX_ENUM_PTR(NAME, ...) HX_PTR_##NAME,

typedef enum hx_op_e {
  HX_SLOW = 0, /* the reference step */
  HX_END,      /* past the last instruction */
  HX_NOP,
  HX_BROADCAST,
  HX_CONST,
  HX_CONST_V,
  HX_ARG,
  HX_BINDING,
  HX_WORKGROUP_ID,
  HX_WORKGROUP_SIZE,
  HX_WORKGROUP_COUNT,
  HX_SUBGROUP_ID,
  HX_SUBGROUP_SIZE,
  HX_WORKITEM_ID,
  HX_LANE_ID,
  HX_UNARY_OPS(HX_ENUM)
  HX_BINARY_OPS(HX_FORMS)
  HX_FLOAT_OPS(HX_FORMS)
  HX_IDIV_VV,
  HX_IDIV_VS,
  HX_IREM_VV,
  HX_IREM_VS,
  HX_TERNARY_OPS(HX_FORMS8)
  HX_PTR_ADD_VV,
  HX_PTR_ADD_VS,
  HX_PTR_ADD_SV,
  HX_PTR_ADD_SV_SHIFT,
  HX_LOAD_OPS(HX_ENUM)
  HX_STORE_OPS(HX_ENUM)
  /* Fused pairs (host_exec_loop.h, "Fused pairs"). */
  HX_LOAD_OPS(HX_ENUM_PTR)
  HX_STORE_OPS(HX_ENUM_PTR)
  HX_ADDRESS_PTR,
  HX_SHUFFLE,
  HX_JMP,
  HX_BRZ,
  HX_BRNZ,
  HX_IF,
  HX_ELSE,
  HX_ENDIF,
  HX_LOOP_BEGIN,
  HX_LOOP_TEST,
  HX_RET,
  HX_OP_COUNT,
} hx_op_t;

typedef struct hx_state_t hx_state_t;
typedef struct hx_insn_t hx_insn_t;

/* Runs instruction |x| at |pc|; returns the next pc, or HX_EXIT once the
 * wave stops (state in s->state, w->pc set). */
typedef uint32_t (*hx_handler_t)(hx_state_t* s, const hx_insn_t* x,
                                 uint32_t pc);
#define HX_EXIT UINT32_MAX

/* One translated instruction, at the index of its source instruction
 * (jump targets and fault reports keep their meaning). Register operands
 * are offsets in the wave's register block (hrx_wave_t). */
struct hx_insn_t {
  hx_handler_t run;
  uint16_t op;       /* hx_op_t */
  uint8_t scalar;    /* S destination: one lane, every operand an S register */
  uint8_t files;     /* S register operands: a 1, b 2, c 4 */
  uint32_t imm;
  uint32_t d, a, b, c;
  uint64_t k; /* per op: a type's value mask, a shift, a dimension */
};

/* A wave being run. */
struct hx_state_t {
  hrx_group_t* g;
  hrx_wave_t* w;
  uint64_t* registers; /* w->v: V registers, then S registers */
  uint64_t all;        /* g->full */
  uint32_t lanes;
  uint32_t wave_index;
  uint32_t state;      /* when a handler returns HX_EXIT */
  uint64_t temp[HRX_HOST_MAX_LANES];
};

struct hrx_host_program_t {
  /* What the translation depends on: compared before reuse. */
  uint32_t insn_count;
  uint32_t lanes;
  uint32_t vreg_count;
  uint32_t sreg_count;
  uint32_t flags;
  hrx_host_insn_t* source;
  hx_insn_t* code; /* insn_count + 1 (HX_END) */
};

/*===------------------------------------------------------------------===*/
/* Lane helpers shared by every variant of the handlers                    */
/*===------------------------------------------------------------------===*/

#define HX_SEXT32(v) ((uint64_t)(int64_t)(int32_t)(uint32_t)(v))

/* NaN operands of commutative float ops. Which NaN a + b, a * b or
 * fma(a, b, c) returns when several operands are NaN depends on operand
 * order, which a vectorised loop may commute; lanes with a NaN operand
 * therefore run the reference's own scalar operation, out of line so it is
 * never vectorised (NaNs from invalid operations on other operands are the
 * default NaN either way). Bit 31 of HX_NAN_BITS(v) is set when the f32 in
 * v is a NaN (an integer form that vectorises as an OR-reduction). */
#define HX_NAN_BITS(v) \
  (((uint32_t)(v) & UINT32_C(0x7FFFFFFF)) + UINT32_C(0x007FFFFF))

__attribute__((noinline)) static uint64_t hx_scalar_fadd(uint64_t a,
                                                         uint64_t b) {
  return hrx_from_f32(hrx_f32(a) + hrx_f32(b));
}

__attribute__((noinline)) static uint64_t hx_scalar_fmul(uint64_t a,
                                                         uint64_t b) {
  return hrx_from_f32(hrx_f32(a) * hrx_f32(b));
}

__attribute__((noinline)) static uint64_t hx_scalar_fma(uint64_t a, uint64_t b,
                                                        uint64_t c) {
  return hrx_from_f32(fmaf(hrx_f32(a), hrx_f32(b), hrx_f32(c)));
}

/* The instruction at |pc| by the reference step. */
static uint32_t hx_slow(hx_state_t* s, const hx_insn_t* x, uint32_t pc) {
  (void)x;
  s->w->pc = pc;
  const uint32_t state = hrx_host_step(s->g, s->w, s->wave_index);
  if (state != WAVE_RUN) {
    s->state = state;
    return HX_EXIT;
  }
  return s->w->pc;
}

static uint32_t hx_stop(hx_state_t* s, uint32_t next_pc, uint32_t state) {
  s->w->pc = next_pc;
  s->state = state;
  return HX_EXIT;
}

/* The base of the slot every active lane's pointer in |a| addresses when
 * each of them can access |bytes| there; NULL when any lane's access is
 * not plainly in bounds (the reference step then runs and reports). One
 * slot: the lanes' AND and OR agree above the offset bits; in bounds: the
 * OR of the offsets bounds the highest, which is found exactly only when
 * that bound is too loose. */
static inline uint8_t* hx_span(const hrx_group_t* g, const uint64_t* a,
                               bool one, bool full, uint64_t exec,
                               uint32_t lanes, uint32_t bytes) {
  uint64_t any = 0, all = ~UINT64_C(0);
  if (one) {
    any = all = a[0];
  } else if (full) {
    for (uint32_t l = 0; l < lanes; ++l) {
      any |= a[l];
      all &= a[l];
    }
  } else {
    if (!exec) return NULL;
    for (uint64_t m = exec; m; m &= m - 1) {
      any |= a[__builtin_ctzll(m)];
      all &= a[__builtin_ctzll(m)];
    }
  }
  uint8_t* base;
  uint64_t size;
  if ((any >> HRX_HOST_PTR_SHIFT) != (all >> HRX_HOST_PTR_SHIFT) ||
      !hrx_slot_extent(g, any >> HRX_HOST_PTR_SHIFT, &base, &size) ||
      size < bytes) {
    return NULL;
  }
  if ((any & HRX_HOST_OFFSET_MASK) <= size - bytes) return base;
  uint64_t high = 0;
  if (full && !one) {
    for (uint32_t l = 0; l < lanes; ++l) high = a[l] > high ? a[l] : high;
  } else {
    for (uint64_t m = one ? 1 : exec; m; m &= m - 1) {
      const uint64_t p = a[__builtin_ctzll(m)];
      high = p > high ? p : high;
    }
  }
  return (high & HRX_HOST_OFFSET_MASK) <= size - bytes ? base : NULL;
}

/* A full wave's pointers that step by a constant stride of at most 8
 * bytes from lane 0's: lane l at at + l * stride, with |room| bytes from
 * |at| to the end of the slot. */
typedef struct hx_affine_t {
  uint8_t* at;
  uint64_t room;
  uint64_t stride;
} hx_affine_t;

static inline bool hx_affine(const hrx_group_t* g, const uint64_t* a,
                             uint32_t lanes, hx_affine_t* out) {
  const uint64_t first = a[0], stride = a[1] - a[0];
  if (stride > 8) return false;
  /* Consecutive differences (a multiply by the lane would not vectorise). */
  uint64_t diff = 0;
  for (uint32_t l = 1; l < lanes; ++l) diff |= (a[l] - a[l - 1]) ^ stride;
  uint8_t* base;
  uint64_t size;
  const uint64_t offset = first & HRX_HOST_OFFSET_MASK;
  if (diff || !hrx_slot_extent(g, first >> HRX_HOST_PTR_SHIFT, &base, &size) ||
      offset > size) {
    return false;
  }
  *out = (hx_affine_t){.at = base + offset, .room = size - offset,
                       .stride = stride};
  return true;
}

/* Whether the |lanes| accesses of |bytes| at stride |stride| from an
 * hx_affine_t's start stay in its slot. */
static inline bool hx_affine_fits(const hx_affine_t* f, uint32_t lanes,
                                  uint64_t stride, uint64_t bytes) {
  return f->room >= (uint64_t)(lanes - 1) * stride + bytes;
}

/* Operations on register values; K is the instruction's k (a type's
 * value mask). */
#define HX_E_ADD64(x, y) ((x) + (y))
#define HX_E_ADD32(x, y) HX_SEXT32((x) + (y))
#define HX_E_SUB64(x, y) ((x) - (y))
#define HX_E_SUB32(x, y) HX_SEXT32((x) - (y))
#define HX_E_MUL64(x, y) ((x) * (y))
#define HX_E_MUL32(x, y) HX_SEXT32((x) * (y))
#define HX_E_AND(x, y) ((x) & (y))
#define HX_E_OR(x, y) ((x) | (y))
#define HX_E_XOR64(x, y) ((x) ^ (y))
#define HX_E_XOR32(x, y) HX_SEXT32((x) ^ (y))
#define HX_E_XOR1(x, y) (((x) ^ (y)) & 1)
#define HX_E_MINS(x, y) ((int64_t)(x) < (int64_t)(y) ? (x) : (y))
#define HX_E_MAXS(x, y) ((int64_t)(x) > (int64_t)(y) ? (x) : (y))
#define HX_E_MINU(x, y) (((x) & K) < ((y) & K) ? (x) : (y))
#define HX_E_MAXU(x, y) (((x) & K) > ((y) & K) ? (x) : (y))
#define HX_E_EQ(x, y) (uint64_t)(((x) & K) == ((y) & K))
#define HX_E_NE(x, y) (uint64_t)(((x) & K) != ((y) & K))
#define HX_E_SLT(x, y) (uint64_t)((int64_t)(x) < (int64_t)(y))
#define HX_E_SLE(x, y) (uint64_t)((int64_t)(x) <= (int64_t)(y))
#define HX_E_ULT(x, y) (uint64_t)(((x) & K) < ((y) & K))
#define HX_E_ULE(x, y) (uint64_t)(((x) & K) <= ((y) & K))
#define HX_E_FSUB(x, y) hrx_from_f32(hrx_f32(x) - hrx_f32(y))
#define HX_E_FDIV(x, y) hrx_from_f32(hrx_f32(x) / hrx_f32(y))

#define HX_READ_I1(v) ((uint64_t)((v) & 1))
#define HX_READ_S8(v) ((uint64_t)(int64_t)(int8_t)(v))
#define HX_READ_S16(v) ((uint64_t)(int64_t)(int16_t)(v))
#define HX_READ_S32(v) HX_SEXT32(v)
#define HX_READ_U(v) ((uint64_t)(v))

/* The handlers, once portable and, on x86-64 with GCC, once built for
 * AVX2 and FMA (on 128-bit vectors, which every such CPU runs at full
 * speed), chosen at run time. Float expressions are never contracted (ISO
 * C mode), and FMA32 uses the exact fused operation in both (the
 * instruction, or libm's fmaf). */
#define HX_VARIANT portable
#define HX_FMAF(x, y, z) fmaf((x), (y), (z))
#include "host_exec_loop.h"
#undef HX_VARIANT
#undef HX_FMAF

#if HX_HAVE_AVX2
#pragma GCC push_options
#pragma GCC target("avx2,fma,prefer-vector-width=128")
#define HX_VARIANT avx2
#define HX_AVX2 1
#define HX_FMAF(x, y, z) __builtin_fmaf((x), (y), (z))
#include "host_exec_loop.h"
#undef HX_VARIANT
#undef HX_AVX2
#undef HX_FMAF
#pragma GCC pop_options
#endif

/*===------------------------------------------------------------------===*/
/* Translation                                                             */
/*===------------------------------------------------------------------===*/

/* The bits of |type|'s values (hrx_unsigned's mask). */
static uint64_t hx_type_mask(uint8_t type) {
  uint32_t bits = hrx_type_bits(type);
  return bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
}

static uint32_t hx_reg(const hrx_host_program_t* p, uint16_t reg,
                       bool scalar) {
  /* Fields an op does not use are not validated: point them anywhere
   * inside the block. */
  if (scalar) {
    return p->vreg_count * p->lanes + (reg < p->sreg_count ? reg : 0);
  }
  return (reg < p->vreg_count ? reg : 0) * p->lanes;
}

static void hx_binary(hx_insn_t* x, uint32_t first, bool sd, bool sa,
                      bool sb) {
  if (sd || (!sa && !sb)) {
    x->op = (uint16_t)(first + HX_VV);
  } else if (!sa) {
    x->op = (uint16_t)(first + HX_VS);
  } else if (!sb) {
    x->op = (uint16_t)(first + HX_SV);
  }
}

/* The form of a ternary op (HX_FORMS8). */
static void hx_ternary(hx_insn_t* x) {
  if (x->op != HX_SLOW) x->op = (uint16_t)(x->op + x->files);
}

static uint16_t hx_int_op(uint8_t type, uint16_t op64, uint16_t op32) {
  return type == HRX_HOST_TYPE_I64 ? op64
         : type == HRX_HOST_TYPE_I32 ? op32 : (uint16_t)HX_SLOW;
}

static void hx_translate(const hrx_host_program_t* p, const hrx_host_insn_t* i,
                         hx_insn_t* x) {
  bool sd = (i->flags & HRX_HOST_FLAG_DST_SCALAR) != 0;
  bool sa = (i->flags & HRX_HOST_FLAG_A_SCALAR) != 0;
  bool sb = (i->flags & HRX_HOST_FLAG_B_SCALAR) != 0;
  bool sc = (i->flags & HRX_HOST_FLAG_C_SCALAR) != 0;
  const uint8_t type = i->type;
  const bool plain =
      (i->flags & (HRX_HOST_FLAG_CHECKED | HRX_HOST_FLAG_ADDRESS)) == 0;
  const bool race = (p->flags & HRX_HOST_KERNEL_RACE_CHECK) != 0;
  *x = (hx_insn_t){.op = HX_SLOW, .scalar = sd,
                   .files = (uint8_t)(i->flags & 7), .imm = i->imm,
                   .d = hx_reg(p, i->dst, sd), .a = hx_reg(p, i->a, sa),
                   .b = hx_reg(p, i->b, sb), .c = hx_reg(p, i->c, sc)};
  uint16_t first = HX_SLOW;
  switch ((hrx_host_op_t)i->op) {
    case HRX_HOST_OP_NOP: x->op = HX_NOP; return;
    case HRX_HOST_OP_MOV:
      x->op = sd || !sa ? HX_MOV : HX_BROADCAST;
      return;
    case HRX_HOST_OP_CONST: x->op = sd ? HX_CONST : HX_CONST_V; return;
    case HRX_HOST_OP_ARG:
      if (sd) x->op = HX_ARG;
      x->k = type;
      return;
    case HRX_HOST_OP_BINDING:
      if (sd) x->op = HX_BINDING;
      return;
    case HRX_HOST_OP_WORKGROUP_ID:
      if (sd) x->op = HX_WORKGROUP_ID;
      x->k = i->aux;
      return;
    case HRX_HOST_OP_WORKGROUP_SIZE:
      if (sd) x->op = HX_WORKGROUP_SIZE;
      x->k = i->aux;
      return;
    case HRX_HOST_OP_WORKGROUP_COUNT:
      if (sd) x->op = HX_WORKGROUP_COUNT;
      x->k = i->aux;
      return;
    case HRX_HOST_OP_SUBGROUP_ID:
      if (sd) x->op = HX_SUBGROUP_ID;
      return;
    case HRX_HOST_OP_SUBGROUP_SIZE:
      if (sd) x->op = HX_SUBGROUP_SIZE;
      return;
    case HRX_HOST_OP_WORKITEM_ID:
      x->op = HX_WORKITEM_ID;
      x->k = i->aux;
      return;
    case HRX_HOST_OP_LANE_ID: x->op = HX_LANE_ID; return;
    case HRX_HOST_OP_IADD:
      if (plain) first = hx_int_op(type, HX_ADD64_VV, HX_ADD32_VV);
      break;
    case HRX_HOST_OP_ISUB:
      if (plain) first = hx_int_op(type, HX_SUB64_VV, HX_SUB32_VV);
      break;
    case HRX_HOST_OP_IMUL:
      if (plain) first = hx_int_op(type, HX_MUL64_VV, HX_MUL32_VV);
      break;
    case HRX_HOST_OP_IAND: first = HX_AND_VV; break;
    case HRX_HOST_OP_IOR: first = HX_OR_VV; break;
    case HRX_HOST_OP_IXOR:
      first = type == HRX_HOST_TYPE_I1 ? (uint16_t)HX_XOR1_VV
                                       : hx_int_op(type, HX_XOR64_VV,
                                                   HX_XOR32_VV);
      break;
    case HRX_HOST_OP_IMINS: first = HX_MINS_VV; break;
    case HRX_HOST_OP_IMAXS: first = HX_MAXS_VV; break;
    case HRX_HOST_OP_IMINU: first = HX_MINU_VV; break;
    case HRX_HOST_OP_IMAXU: first = HX_MAXU_VV; break;
    case HRX_HOST_OP_ICMP: {
      /* Greater-than forms are less-than forms with swapped operands. */
      static const struct {
        uint16_t first;
        bool swap;
      } forms[HRX_HOST_ICMP_COUNT] = {
          [HRX_HOST_ICMP_EQ] = {HX_EQ_VV, false},
          [HRX_HOST_ICMP_NE] = {HX_NE_VV, false},
          [HRX_HOST_ICMP_SLT] = {HX_SLT_VV, false},
          [HRX_HOST_ICMP_SLE] = {HX_SLE_VV, false},
          [HRX_HOST_ICMP_SGT] = {HX_SLT_VV, true},
          [HRX_HOST_ICMP_SGE] = {HX_SLE_VV, true},
          [HRX_HOST_ICMP_ULT] = {HX_ULT_VV, false},
          [HRX_HOST_ICMP_ULE] = {HX_ULE_VV, false},
          [HRX_HOST_ICMP_UGT] = {HX_ULT_VV, true},
          [HRX_HOST_ICMP_UGE] = {HX_ULE_VV, true},
      };
      if (i->aux >= HRX_HOST_ICMP_COUNT) return;
      first = forms[i->aux].first;
      if (forms[i->aux].swap) {
        uint32_t t = x->a;
        x->a = x->b;
        x->b = t;
        bool s = sa;
        sa = sb;
        sb = s;
      }
      break;
    }
    case HRX_HOST_OP_FADD:
    case HRX_HOST_OP_FSUB:
    case HRX_HOST_OP_FMUL:
    case HRX_HOST_OP_FDIV:
      if (type == HRX_HOST_TYPE_F32) {
        first = i->op == HRX_HOST_OP_FADD   ? HX_FADD_VV
                : i->op == HRX_HOST_OP_FSUB ? HX_FSUB_VV
                : i->op == HRX_HOST_OP_FMUL ? HX_FMUL_VV
                                            : HX_FDIV_VV;
      }
      break;
    case HRX_HOST_OP_IDIVS:
    case HRX_HOST_OP_IDIVU:
    case HRX_HOST_OP_IREMS:
    case HRX_HOST_OP_IREMU: {
      bool div = i->op == HRX_HOST_OP_IDIVS || i->op == HRX_HOST_OP_IDIVU;
      if (type != HRX_HOST_TYPE_I32 && type != HRX_HOST_TYPE_I64) return;
      if (sd || (!sa && !sb)) {
        x->op = div ? HX_IDIV_VV : HX_IREM_VV;
      } else if (!sa) {
        x->op = div ? HX_IDIV_VS : HX_IREM_VS;
      }
      return;
    }
    case HRX_HOST_OP_IMADD:
      if (i->flags & HRX_HOST_FLAG_ADDRESS) {
        x->op = HX_MADD_ADDRESS;
      } else if (plain) {
        x->op = hx_int_op(type, HX_MADD64, HX_MADD32);
      }
      hx_ternary(x);
      return;
    case HRX_HOST_OP_FFMA:
      if (type == HRX_HOST_TYPE_F32) x->op = HX_FMA32;
      hx_ternary(x);
      return;
    case HRX_HOST_OP_SELECT:
      x->op = HX_SELECT;
      hx_ternary(x);
      return;
    case HRX_HOST_OP_FNEG:
    case HRX_HOST_OP_FABS:
      if (type == HRX_HOST_TYPE_F32 && (sd || !sa)) {
        x->op = i->op == HRX_HOST_OP_FNEG ? HX_FNEG32 : HX_FABS32;
      }
      return;
    case HRX_HOST_OP_CVT: {
      if (!sd && sa) return;
      const uint8_t from = i->aux, to = type;
      if (from >= HRX_HOST_TYPE_COUNT) return;
      x->k = hx_type_mask(from);
      switch ((hrx_host_cvt_t)i->imm) {
        case HRX_HOST_CVT_SEXT:
          x->op = to == HRX_HOST_TYPE_I64   ? HX_MOV
                  : to == HRX_HOST_TYPE_I32 ? HX_SEXT32 : HX_SLOW;
          return;
        case HRX_HOST_CVT_ZEXT:
          x->op = to == HRX_HOST_TYPE_I64   ? HX_MASK
                  : to == HRX_HOST_TYPE_I32 ? HX_MASK_SEXT32 : HX_SLOW;
          return;
        case HRX_HOST_CVT_FEXT:
        case HRX_HOST_CVT_FTRUNC:
          if (from == HRX_HOST_TYPE_BF16 && to == HRX_HOST_TYPE_F32) {
            x->op = HX_BF16_TO_F32;
          } else if (from == HRX_HOST_TYPE_F32 && to == HRX_HOST_TYPE_BF16) {
            x->op = HX_F32_TO_BF16;
          } else if (from == HRX_HOST_TYPE_F16 && to == HRX_HOST_TYPE_F32) {
            x->op = HX_F16_TO_F32;
          } else if (from == HRX_HOST_TYPE_F32 && to == HRX_HOST_TYPE_F16) {
            x->op = HX_F32_TO_F16;
          } else if (from == HRX_HOST_TYPE_F32 && to == HRX_HOST_TYPE_F64) {
            x->op = HX_F32_TO_F64;
          } else if (from == HRX_HOST_TYPE_F64 && to == HRX_HOST_TYPE_F32) {
            x->op = HX_F64_TO_F32;
          }
          return;
        case HRX_HOST_CVT_SITOF:
          x->op = to == HRX_HOST_TYPE_F32   ? HX_SITOF32
                  : to == HRX_HOST_TYPE_F64 ? HX_SITOF64 : HX_SLOW;
          return;
        case HRX_HOST_CVT_UITOF:
          x->op = to == HRX_HOST_TYPE_F32   ? HX_UITOF32
                  : to == HRX_HOST_TYPE_F64 ? HX_UITOF64 : HX_SLOW;
          return;
        case HRX_HOST_CVT_BITCAST:
          x->op = to == HRX_HOST_TYPE_I32 ? HX_MASK_SEXT32
                  : to == HRX_HOST_TYPE_I64 || to > HRX_HOST_TYPE_I64
                      ? HX_MASK
                      : HX_SLOW;
          return;
        default: return;
      }
    }
    case HRX_HOST_OP_PTR_ADD:
      if (sd || (!sa && !sb)) {
        x->op = HX_PTR_ADD_VV;
      } else if (!sa) {
        x->op = HX_PTR_ADD_VS;
      } else if (!sb) {
        x->op = HX_PTR_ADD_SV;
        if (i->imm && (i->imm & (i->imm - 1)) == 0) {
          x->op = HX_PTR_ADD_SV_SHIFT;
          x->k = (uint64_t)__builtin_ctz(i->imm);
        }
      }
      return;
    case HRX_HOST_OP_LOAD:
      /* Race checking and S addresses of V results stay exact per lane. */
      if (race || (!sd && sa)) return;
      switch ((hrx_host_type_t)type) {
        case HRX_HOST_TYPE_I1: x->op = HX_LOAD_I1; return;
        case HRX_HOST_TYPE_I8: x->op = HX_LOAD_S8; return;
        case HRX_HOST_TYPE_I16: x->op = HX_LOAD_S16; return;
        case HRX_HOST_TYPE_I32: x->op = HX_LOAD_S32; return;
        case HRX_HOST_TYPE_F16:
        case HRX_HOST_TYPE_BF16: x->op = HX_LOAD_U16; return;
        case HRX_HOST_TYPE_F32: x->op = HX_LOAD_U32; return;
        case HRX_HOST_TYPE_F8E4M3:
        case HRX_HOST_TYPE_F8E5M2: return; /* the reference executor's */
        default: x->op = HX_LOAD_U64; return;
      }
    case HRX_HOST_OP_STORE:
      /* Stores through an S address are one per wave or ordered by
       * lane; both stay with the reference. */
      if (race || sa) return;
      x->scalar = 0;
      switch (hrx_type_bytes(type)) {
        case 1: x->op = HX_STORE1; return;
        case 2: x->op = HX_STORE2; return;
        case 4: x->op = HX_STORE4; return;
        default: x->op = HX_STORE8; return;
      }
    case HRX_HOST_OP_SHUFFLE:
    case HRX_HOST_OP_SHUFFLE_OK:
      /* Uniform offset and width (as subgroup operations pass them). */
      if (sb && sc && !sd && i->aux < HRX_HOST_SHUFFLE_COUNT) {
        x->op = HX_SHUFFLE;
        x->k = i->aux | (i->op == HRX_HOST_OP_SHUFFLE_OK ? 0x100u : 0);
      }
      return;
    case HRX_HOST_OP_JMP: x->op = HX_JMP; return;
    case HRX_HOST_OP_BRZ: x->op = HX_BRZ; return;
    case HRX_HOST_OP_BRNZ: x->op = HX_BRNZ; return;
    case HRX_HOST_OP_IF: x->op = HX_IF; return;
    case HRX_HOST_OP_ELSE: x->op = HX_ELSE; return;
    case HRX_HOST_OP_ENDIF: x->op = HX_ENDIF; return;
    case HRX_HOST_OP_LOOP_BEGIN: x->op = HX_LOOP_BEGIN; return;
    case HRX_HOST_OP_LOOP_TEST: x->op = HX_LOOP_TEST; return;
    case HRX_HOST_OP_RET: x->op = HX_RET; return;
    default: return;
  }
  if (first == HX_SLOW) return;
  x->k = hx_type_mask(type);
  hx_binary(x, first, sd, sa, sb);
}

/*===------------------------------------------------------------------===*/
/* Fusion                                                                  */
/*===------------------------------------------------------------------===*/

/* Whether V register |reg|, written at or before |pc|, is dead after
 * |pc|: on the path that falls through from there, it is written before
 * anything reads it, or the wave returns. The scan gives up (live) at any
 * branch. Passing ENDIF and LOOP_BEGIN is safe: the mask is a subset of
 * every mask on the stack, so a later write covers every lane the earlier
 * one did. */
static bool hx_dead_after(const hrx_fabric_kernel_t* k, uint32_t pc,
                          uint16_t reg) {
  for (uint32_t at = pc + 1; at < k->insn_count && at <= pc + 64; ++at) {
    const hrx_host_insn_t* i = &k->insns[at];
    const uint32_t use = hrx_host_op_usage(i->op);
    if (((use & HRX_HOST_USE_A) && !(i->flags & HRX_HOST_FLAG_A_SCALAR) &&
         i->a == reg) ||
        ((use & HRX_HOST_USE_B) && !(i->flags & HRX_HOST_FLAG_B_SCALAR) &&
         i->b == reg) ||
        ((use & HRX_HOST_USE_C) && !(i->flags & HRX_HOST_FLAG_C_SCALAR) &&
         i->c == reg)) {
      return false;
    }
    switch ((hrx_host_op_t)i->op) {
      case HRX_HOST_OP_RET: return true;
      case HRX_HOST_OP_JMP:
      case HRX_HOST_OP_BRZ:
      case HRX_HOST_OP_BRNZ:
      case HRX_HOST_OP_IF:
      case HRX_HOST_OP_ELSE:
      case HRX_HOST_OP_LOOP_TEST: return false;
      default: break;
    }
    if ((use & HRX_HOST_USE_DST) && !(i->flags & HRX_HOST_FLAG_DST_SCALAR) &&
        i->dst == reg) {
      return true;
    }
  }
  return false;
}

static bool hx_is_ptr_add(const hx_insn_t* x) {
  return x->op == HX_PTR_ADD_SV || x->op == HX_PTR_ADD_SV_SHIFT;
}

/* Fuses pairs whose intermediate V register is dead afterwards:
 *   PTR_ADD (S base, V index) + LOAD or STORE through it: the access
 *     reads or writes consecutive elements (or one) straight from the
 *     index, without the pointers;
 *   address IMADD (V a, S b, S c) + PTR_ADD of its result: one op.
 * The fused op runs at the first instruction and skips the second; when
 * its fast path does not apply it runs the first instruction alone. A jump
 * to the second instruction runs it alone, as translated. */
static void hx_fuse(const hrx_fabric_kernel_t* k, hx_insn_t* code) {
  for (uint32_t pc = 0; pc + 1 < k->insn_count; ++pc) {
    hx_insn_t* x = &code[pc];
    const hx_insn_t* y = &code[pc + 1];
    const hrx_host_insn_t* i = &k->insns[pc];
    const hrx_host_insn_t* j = &k->insns[pc + 1];
    if (hx_is_ptr_add(x) && !(j->flags & HRX_HOST_FLAG_A_SCALAR) &&
        j->a == i->dst) {
      if (y->op >= HX_LOAD_I1 && y->op <= HX_LOAD_U64 && !y->scalar &&
          (j->dst == i->dst || hx_dead_after(k, pc + 1, i->dst))) {
        x->op = (uint16_t)(HX_PTR_LOAD_I1 + (y->op - HX_LOAD_I1));
      } else if (y->op >= HX_STORE1 && y->op <= HX_STORE8 &&
                 ((j->flags & HRX_HOST_FLAG_B_SCALAR) || j->b != i->dst) &&
                 hx_dead_after(k, pc + 1, i->dst)) {
        x->op = (uint16_t)(HX_PTR_STORE1 + (y->op - HX_STORE1));
      }
    } else if (x->op == HX_MADD_ADDRESS_6 && !x->scalar && hx_is_ptr_add(y) &&
               !(j->flags & HRX_HOST_FLAG_B_SCALAR) && j->b == i->dst &&
               (j->dst == i->dst || hx_dead_after(k, pc + 1, i->dst))) {
      x->op = HX_ADDRESS_PTR;
    }
  }
}

/*===------------------------------------------------------------------===*/
/* Per-thread cache                                                        */
/*===------------------------------------------------------------------===*/

enum { HX_MODE_UNSET = -1, HX_MODE_REFERENCE = 0, HX_MODE_PORTABLE = 1,
       HX_MODE_BEST = 2 };

static int hx_mode(void) {
  static _Atomic int mode = HX_MODE_UNSET;
  int m = atomic_load_explicit(&mode, memory_order_relaxed);
  if (m != HX_MODE_UNSET) return m;
  const char* env = getenv("HRX_HOST_INTERPRETER");
  m = env && strcmp(env, "reference") == 0  ? HX_MODE_REFERENCE
      : env && strcmp(env, "portable") == 0 ? HX_MODE_PORTABLE
                                            : HX_MODE_BEST;
  atomic_store_explicit(&mode, m, memory_order_relaxed);
  return m;
}

/* The handlers for this CPU. */
static const hx_handler_t* hx_choose_handlers(void) {
#if HX_HAVE_AVX2
  if (hx_mode() == HX_MODE_BEST && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma")) {
    return hx_handlers_avx2;
  }
#endif
  return hx_handlers_portable;
}

#define HX_CACHE_WAYS 4

typedef struct hx_cache_t {
  uint64_t serial;              /* the dispatch |current| serves */
  hrx_host_program_t* current;
  hrx_host_program_t* ways[HX_CACHE_WAYS];
  uint32_t next;                /* the way to replace */
} hx_cache_t;

static void hx_program_free(hrx_host_program_t* p) {
  if (!p) return;
  free(p->source);
  free(p->code);
  free(p);
}

static void hx_cache_free(void* data) {
  hx_cache_t* cache = data;
  for (uint32_t i = 0; i < HX_CACHE_WAYS; ++i) hx_program_free(cache->ways[i]);
  free(cache);
}

static pthread_key_t hx_key;
static bool hx_key_ok;
static pthread_once_t hx_key_once = PTHREAD_ONCE_INIT;
static _Thread_local hx_cache_t* hx_thread_cache;

static void hx_key_create(void) {
  hx_key_ok = pthread_key_create(&hx_key, hx_cache_free) == 0;
}

/* The calling thread's cache (freed when the thread exits). */
static hx_cache_t* hx_cache(void) {
  if (hx_thread_cache) return hx_thread_cache;
  pthread_once(&hx_key_once, hx_key_create);
  if (!hx_key_ok) return NULL;
  hx_cache_t* cache = calloc(1, sizeof(*cache));
  if (!cache) return NULL;
  if (pthread_setspecific(hx_key, cache) != 0) {
    free(cache);
    return NULL;
  }
  hx_thread_cache = cache;
  return cache;
}

static bool hx_program_matches(const hrx_host_program_t* p,
                               const hrx_fabric_kernel_t* k) {
  return p && p->insn_count == k->insn_count &&
         p->lanes == k->subgroup_size && p->vreg_count == k->vreg_count &&
         p->sreg_count == k->sreg_count && p->flags == k->flags &&
         memcmp(p->source, k->insns,
                (size_t)k->insn_count * sizeof(hrx_host_insn_t)) == 0;
}

static hrx_host_program_t* hx_program_create(const hrx_fabric_kernel_t* k) {
  hrx_host_program_t* p = calloc(1, sizeof(*p));
  if (!p) return NULL;
  *p = (hrx_host_program_t){.insn_count = k->insn_count,
                            .lanes = k->subgroup_size,
                            .vreg_count = k->vreg_count,
                            .sreg_count = k->sreg_count,
                            .flags = k->flags};
  p->source = malloc((size_t)k->insn_count * sizeof(hrx_host_insn_t));
  p->code = malloc(((size_t)k->insn_count + 1) * sizeof(hx_insn_t));
  if (!p->source || !p->code) {
    hx_program_free(p);
    return NULL;
  }
  memcpy(p->source, k->insns, (size_t)k->insn_count * sizeof(hrx_host_insn_t));
  const hx_handler_t* handlers = hx_choose_handlers();
  for (uint32_t pc = 0; pc < k->insn_count; ++pc) {
    hx_translate(p, &k->insns[pc], &p->code[pc]);
  }
  p->code[k->insn_count] = (hx_insn_t){.op = HX_END};
  hx_fuse(k, p->code);
  for (uint32_t pc = 0; pc <= k->insn_count; ++pc) {
    p->code[pc].run = handlers[p->code[pc].op];
  }
  return p;
}

const hrx_host_program_t* hrx_host_program_for(const hrx_host_dispatch_t* d) {
  if (hx_mode() == HX_MODE_REFERENCE) return NULL;
  hx_cache_t* cache = hx_cache();
  if (!cache) return NULL;
  if (cache->current && cache->serial == d->serial) return cache->current;
  const hrx_fabric_kernel_t* k = d->kernel;
  hrx_host_program_t* program = NULL;
  for (uint32_t i = 0; i < HX_CACHE_WAYS && !program; ++i) {
    if (hx_program_matches(cache->ways[i], k)) program = cache->ways[i];
  }
  if (!program) {
    program = hx_program_create(k);
    if (!program) return NULL;
    uint32_t way = cache->next;
    cache->next = (way + 1) % HX_CACHE_WAYS;
    if (cache->ways[way] == cache->current) cache->current = NULL;
    hx_program_free(cache->ways[way]);
    cache->ways[way] = program;
  }
  cache->current = program;
  cache->serial = d->serial;
  return program;
}

uint32_t hrx_host_run_wave_fast(hrx_group_t* g, hrx_wave_t* w,
                                uint32_t wave_index,
                                const hrx_host_program_t* program) {
  hx_state_t s; /* not zeroed: temp is scratch */
  s.g = g;
  s.w = w;
  s.registers = w->v;
  s.all = g->full;
  s.lanes = g->lanes;
  s.wave_index = wave_index;
  s.state = WAVE_RUN;
  const hx_insn_t* const code = program->code;
  uint32_t pc = w->pc;
  do {
    const hx_insn_t* x = &code[pc];
    pc = x->run(&s, x, pc);
  } while (pc != HX_EXIT);
  return s.state;
}
