/* The Loom op table: one entry per op.
 *
 * Each op names a syntactic shape (how it is written), the type kinds its
 * written type may take, the keyword vocabulary of its <param>, where it may
 * appear, and an optional extra verifier. The parser, printer, verifier and
 * lowerings all dispatch on the shape, so adding an op of an existing shape
 * is one entry here.
 */
#ifndef HRX_LOOM_OP_TABLE_H_
#define HRX_LOOM_OP_TABLE_H_

#include <stdbool.h>
#include <stdint.h>

#include "ir.h"

typedef enum loom_shape_e {
  LOOM_SHAPE_CONSTANT,      /* %r = op LITERAL : T */
  LOOM_SHAPE_NARY,          /* %r = op %a[, %b[, %c]] : T */
  LOOM_SHAPE_COMPARE,       /* %r = op PRED, %a, %b : T      (-> i1);
                             * vectors: ... : VEC -> vector<N x i1>;
                             * class tests (arity 1, no enum_set):
                             * %r = op %a : T */
  LOOM_SHAPE_CAST,          /* %r = op %a : T to U */
  LOOM_SHAPE_NULLARY,       /* %r = op[<dim>] : T */
  LOOM_SHAPE_CONFIG_GET,    /* %r = config.get @sym : T */
  LOOM_SHAPE_ASSUME,        /* %r = index.assume %x [preds] : T */
  LOOM_SHAPE_MEMORY_SPACE,  /* %r = buffer.assume.memory_space<sp> %b : buffer */
  LOOM_SHAPE_NOALIAS,       /* %a, %b = buffer.assume.noalias %x, %y : buffer, buffer */
  LOOM_SHAPE_BUFFER_VIEW,   /* %v = buffer.view %b[%off] : buffer -> VIEW */
  LOOM_SHAPE_LOAD,          /* %x = op %v[i, ...] [{attrs}] : VIEW -> T */
  LOOM_SHAPE_STORE,         /* op %x, %v[i, ...] [{attrs}] : T, VIEW */
  LOOM_SHAPE_RMW,           /* %o = op<k> %x, %v[i, ...] {attrs} : T, VIEW */
  LOOM_SHAPE_EXTRACT,       /* %e = vector.extract %v[N] : VEC -> T */
  LOOM_SHAPE_INSERT,        /* %w = vector.insert %s into %v[N] : T, VEC */
  LOOM_SHAPE_SPLAT,         /* %w = vector.splat %s : VEC; also
                             * vector.from_elements %a, %b, ... : VEC */
  LOOM_SHAPE_VECTOR_REDUCE, /* %r = vector.reduce<k> %v, %init : VEC, T */
  LOOM_SHAPE_SCALE,         /* %r = index.scale %i, %s : index, offset -> offset */
  LOOM_SHAPE_SHUFFLE,       /* %r, %ok = op<mode> %v, %off, %w : T, i32, i32 */
  LOOM_SHAPE_REDUCE,        /* %r = op<kind> %x [{cluster_size = N}] : T */
  LOOM_SHAPE_SYNC,          /* op[<scope>] scope(..) ordering(..) */
  LOOM_SHAPE_ALLOCA,        /* %b = buffer.alloca<space> align(N) %bytes : buffer */
  LOOM_SHAPE_LAUNCH_CONFIG, /* kernel.launch.config workgroups(..) workgroup_size(..) : index */
  LOOM_SHAPE_TERMINATOR,    /* op [%a, ... : T, ...] */
  LOOM_SHAPE_SELECT,        /* %r = scf.select %c, %a, %b : T */
  LOOM_SHAPE_IF,
  LOOM_SHAPE_FOR,
  LOOM_SHAPE_WHILE,
  LOOM_SHAPE_CALL,          /* %r = func.call @f(%a, ...) : (T, ...) -> (U, ...) */
  LOOM_SHAPE_LAYOUT_STRIDED,/* %l = encoding.layout.strided [s, ...] : encoding<layout>
                             * %l = encoding.define #encoding.layout.* : ... */
  LOOM_SHAPE_KERNEL_LAUNCH, /* kernel.launch @k[%w, ...](%a, ...) : [T, ...](U, ...) */
  LOOM_SHAPE_CHECK_EXPECT,  /* check.expect.* actual(%a) expected(%b) [tolerances] : T */
  LOOM_SHAPE_CHECK_SOURCE,  /* %t = check.generate.* / check.literal clauses : T */
  LOOM_SHAPE_IOTA,          /* %r = vector.iota %base step %step : VEC */
  LOOM_SHAPE_DOT,           /* %r = op[<kind>] %a, %b, %acc : VEC, VEC, T */
  LOOM_SHAPE_BITS,          /* %r = vector.bitunpack{s,u}<W> %v : VEC -> VEC
                             * %r = vector.bitfield.extract{s,u} %v
                             *      {offset = O, width = W} : VEC -> VEC */
  LOOM_SHAPE_FRAGMENT,      /* %f = vector.fragment<role> %v shape [%r, %c] : VEC */
  LOOM_SHAPE_FRAGMENT_LOAD, /* %f = vector.fragment.load<role> %v[i, j]
                             *      shape [%r, %c] : VIEW -> VEC */
  LOOM_SHAPE_FRAGMENT_STORE,/* vector.fragment.store<role> %f, %v[i, j]
                             *      shape [%r, %c] : VEC, VIEW */
  LOOM_SHAPE_LAYOUT,        /* vector.broadcast, .shuffle, .transpose,
                             * .slice, .interleave, .concat,
                             * .deinterleave (vector_layout.h) */
  /* Lane-by-lane memory (vector_access.h):
   * %r = vector.load.mask %v[i, ..], %mask, %pass : VIEW, MASK, VEC
   *   (vector.load.expand alike)
   * %r = vector.gather %v[i, ..][%offsets] : VIEW, OFFSETS -> VEC */
  LOOM_SHAPE_LANE_LOAD,
  /* vector.store.mask %x, %v[i, ..], %mask : VEC, VIEW, MASK
   *   (vector.store.compress alike)
   * vector.scatter %x, %v[i, ..][%offsets] : VEC, VIEW, OFFSETS */
  LOOM_SHAPE_LANE_STORE,
  /* %r = vector.reduce.axes<k> %v, %init axes [a, ..] : VEC, INIT
   * (vector_reduce.h) */
  LOOM_SHAPE_REDUCE_AXES,
} loom_shape_t;

/* Keyword vocabularies for <param> and predicate positions. */
typedef enum loom_enum_set_e {
  LOOM_ENUM_NONE = 0,
  LOOM_ENUM_DIM,          /* x y z */
  LOOM_ENUM_ICMP,         /* eq ne slt sle sgt sge ult ule ugt uge */
  LOOM_ENUM_FCMP,         /* oeq ogt ... uno */
  LOOM_ENUM_MEMORY_SPACE, /* unknown global workgroup private constant ... */
  LOOM_ENUM_SHUFFLE,      /* xor up down index */
  LOOM_ENUM_COMBINE,      /* addf addi maxnumf minnumf maxsi ... */
  LOOM_ENUM_SCOPE,        /* thread subgroup workgroup device system */
  LOOM_ENUM_ORDERING,     /* relaxed acquire release acq_rel seq_cst */
  LOOM_ENUM_CLAMP,        /* ordered number ieee */
  LOOM_ENUM_DOT4,         /* s8s8 u8s8 s8u8 u8u8 (signedness of lhs, rhs) */
  LOOM_ENUM_FRAGMENT,     /* lhs rhs init result (matrix fragment roles) */
  LOOM_ENUM_DOT8,         /* s4s4 u4s4 s4u4 u4u4 (signedness of lhs, rhs) */
  LOOM_ENUM_DOT4F8,       /* fp8bf8 bf8fp8 fp8fp8 bf8bf8 (E4M3 / E5M2) */
  LOOM_ENUM_COUNT,
} loom_enum_set_t;

/* Flag vocabularies of an op's <...>, written after its keyword if it
 * has one: scalar.addf<nnan|nsz>, vector.reduce<addf, reassoc>. Each word
 * is one bit of loom_op_t.flags. */
typedef enum loom_flag_set_e {
  LOOM_FLAGS_NONE = 0,
  LOOM_FLAGS_FASTMATH, /* nnan ninf nsz arcp contract afn reassoc fast */
  LOOM_FLAGS_OVERFLOW, /* nsw nuw */
  LOOM_FLAGS_MMA,      /* saturate */
  LOOM_FLAGS_COUNT,
} loom_flag_set_t;

/* Fast-math bits the backends act on. */
enum {
  LOOM_FLAG_NNAN = 1u << 0,
  LOOM_FLAG_NINF = 1u << 1,
  LOOM_FLAG_NSZ = 1u << 2,
  LOOM_FLAG_ARCP = 1u << 3,
  LOOM_FLAG_CONTRACT = 1u << 4,
  LOOM_FLAG_AFN = 1u << 5,
  LOOM_FLAG_REASSOC = 1u << 6,
  LOOM_FLAG_FAST = 1u << 7,
};

/* Matrix fragment roles (LOOM_ENUM_FRAGMENT order). */
enum {
  LOOM_FRAGMENT_LHS = 0,
  LOOM_FRAGMENT_RHS,
  LOOM_FRAGMENT_INIT,
  LOOM_FRAGMENT_RESULT,
};

/* What an encoding.define makes, in its enum_value. */
enum { LOOM_ENCODING_DENSE = 0, LOOM_ENCODING_STRIDED, LOOM_ENCODING_SCHEMA };

/* scalar.clampf modes (LOOM_ENUM_CLAMP order). */
enum { LOOM_CLAMP_ORDERED = 0, LOOM_CLAMP_NUMBER, LOOM_CLAMP_IEEE };

/* kernel.workgroup.reduce passes partial results through workgroup
 * memory: per element, one 8-byte slot for each wave of a workgroup (at
 * most 1024 work-items in waves of at least 32 lanes), 8-byte aligned.
 * Backends and launch programs reserve it alike. */
#define LOOM_WORKGROUP_REDUCE_SLOTS 32u
#define LOOM_WORKGROUP_REDUCE_SLOT_BYTES 8u
#define LOOM_WORKGROUP_REDUCE_MIN_LANES 32u

/* Sentinel index values for enum-less entries. */
#define LOOM_ENUM_ABSENT 0xFF

/* Where an op may appear. */
enum {
  LOOM_PLACE_CONFIG = 1u << 0, /* kernel launch-config regions */
  LOOM_PLACE_BODY = 1u << 1,   /* kernel bodies and their nested regions */
  LOOM_PLACE_FUNC = 1u << 2,   /* func.def bodies */
  LOOM_PLACE_CHECK = 1u << 3,  /* check.case / check.scenario bodies */
  LOOM_PLACE_ANY = LOOM_PLACE_CONFIG | LOOM_PLACE_BODY | LOOM_PLACE_FUNC,
  LOOM_PLACE_DEVICE = LOOM_PLACE_BODY | LOOM_PLACE_FUNC,
};

/* Type-kind masks. */
#define LOOM_KIND_BIT(kind) (1u << (kind))
#define LOOM_MASK_ADDR \
  (LOOM_KIND_BIT(LOOM_TYPE_INDEX) | LOOM_KIND_BIT(LOOM_TYPE_OFFSET))
#define LOOM_MASK_INDEX LOOM_KIND_BIT(LOOM_TYPE_INDEX)
#define LOOM_MASK_INT                                                    \
  (LOOM_KIND_BIT(LOOM_TYPE_I1) | LOOM_KIND_BIT(LOOM_TYPE_I8) |          \
   LOOM_KIND_BIT(LOOM_TYPE_I16) | LOOM_KIND_BIT(LOOM_TYPE_I32) |        \
   LOOM_KIND_BIT(LOOM_TYPE_I64))
#define LOOM_MASK_FLOAT                                                  \
  (LOOM_KIND_BIT(LOOM_TYPE_F16) | LOOM_KIND_BIT(LOOM_TYPE_BF16) |       \
   LOOM_KIND_BIT(LOOM_TYPE_F32) | LOOM_KIND_BIT(LOOM_TYPE_F64))
#define LOOM_MASK_SCALAR (LOOM_MASK_ADDR | LOOM_MASK_INT | LOOM_MASK_FLOAT)
/* The 8-bit float storage types: memory, moves and conversions only. */
#define LOOM_MASK_F8 \
  (LOOM_KIND_BIT(LOOM_TYPE_F8E4M3) | LOOM_KIND_BIT(LOOM_TYPE_F8E5M2))
/* Scalars that loads, stores, lane moves and selects carry. */
#define LOOM_MASK_STORED (LOOM_MASK_SCALAR | LOOM_MASK_F8)
#define LOOM_MASK_VECTOR LOOM_KIND_BIT(LOOM_TYPE_VECTOR)
#define LOOM_MASK_VIEW LOOM_KIND_BIT(LOOM_TYPE_VIEW)
#define LOOM_MASK_BUFFER LOOM_KIND_BIT(LOOM_TYPE_BUFFER)
#define LOOM_MASK_TENSOR LOOM_KIND_BIT(LOOM_TYPE_TENSOR)
#define LOOM_MASK_VALUE (LOOM_MASK_STORED | LOOM_MASK_VECTOR)
#define LOOM_MASK_ANY \
  (LOOM_MASK_VALUE | LOOM_MASK_VIEW | LOOM_MASK_BUFFER)

/* Cast families, checked by the cast verifier. */
typedef enum loom_cast_e {
  LOOM_CAST_NONE = 0,
  LOOM_CAST_EXTF,    /* narrower float -> wider float */
  LOOM_CAST_TRUNCF,  /* wider float -> narrower float */
  LOOM_CAST_EXTI,    /* narrower int -> wider int */
  LOOM_CAST_TRUNCI,  /* wider int -> narrower int */
  LOOM_CAST_ITOF,    /* int -> float */
  LOOM_CAST_FTOI,    /* float -> int */
  LOOM_CAST_INDEX,   /* index/offset <-> integer */
  LOOM_CAST_BITCAST, /* same width */
} loom_cast_t;

/* Terminator roles. */
typedef enum loom_term_e {
  LOOM_TERM_NONE = 0,
  LOOM_TERM_KERNEL_RETURN,
  LOOM_TERM_LAUNCH_CONFIG,
  LOOM_TERM_YIELD,
  LOOM_TERM_CONDITION,
  LOOM_TERM_FUNC_RETURN,
  LOOM_TERM_CHECK_RETURN,
} loom_term_t;

/* What a LOOM_SHAPE_CALL op names. Applications are resolved to one
 * implementation after parsing (template_resolve.c), so everything past
 * the parser sees a call of an ordinary function body. */
typedef enum loom_call_kind_e {
  LOOM_CALL_FUNC = 0,  /* func.call @f */
  LOOM_CALL_TEMPLATE,  /* template.call @implementation */
  LOOM_CALL_FAMILY,    /* template.apply<@family> */
  LOOM_CALL_CONTRACT,  /* func.apply<contract.key> */
} loom_call_kind_t;

/* Purity / temperature words of an application, in loom_op_t.flags. */
enum {
  LOOM_CALL_PURE = 1u << 0,
  LOOM_CALL_HOT = 1u << 1,
  LOOM_CALL_COLD = 1u << 2,
};

typedef struct loom_op_def_t {
  const char* name;
  loom_shape_t shape;
  uint8_t arity;         /* NARY operand count; TERMINATOR: 0 = variadic */
  uint8_t enum_set;      /* loom_enum_set_t of the <param>/predicate */
  uint8_t places;        /* LOOM_PLACE_* */
  uint8_t cast;          /* loom_cast_t for CAST ops */
  uint8_t terminator;    /* loom_term_t */
  bool enum_required;    /* <param> must be present */
  uint8_t flag_set;      /* loom_flag_set_t of the flags in <...> */
  uint8_t attrs;         /* loom_attr_key_t bits of its {dict} (NOALIAS) */
  uint32_t types;        /* allowed kinds of the written type */
  uint32_t types2;       /* allowed kinds of the second written type;
                          * NARY on vectors: of the elements */
  uint8_t call_kind;     /* loom_call_kind_t of CALL ops */
} loom_op_def_t;

extern const loom_op_def_t loom_op_defs[];
extern const uint32_t loom_op_def_count;

/* Looks an op up by its full name (e.g. "index.add"); LOOM_NONE when
 * unknown. */
uint32_t loom_op_lookup(const char* name, size_t length);

/* The keyword at |index| of |set|, or NULL. */
const char* loom_enum_keyword(loom_enum_set_t set, uint32_t index);
/* Index of |text| in |set|, or LOOM_ENUM_ABSENT. */
uint32_t loom_enum_lookup(loom_enum_set_t set, const char* text,
                          size_t length);
/* "x, y, z" style list for diagnostics. */
const char* loom_enum_choices(loom_enum_set_t set);

/* How many types a LOOM_SHAPE_DOT op writes after its colon: three
 * (lhs, rhs, accumulator), two for vector.dot4f8 (packed sources, then
 * the f32 accumulator), one for vector.dot8i4 (all operands i32). */
uint32_t loom_dot_type_count(const loom_op_def_t* def);

/* The bit of flag word |text| in |set|, or 0 when unknown. */
uint32_t loom_flag_lookup(loom_flag_set_t set, const char* text,
                          size_t length);
/* The word of flag bit |bit| (a power of two) in |set|, or NULL. */
const char* loom_flag_keyword(loom_flag_set_t set, uint32_t bit);
/* "a, b, c" list of |set|'s words for diagnostics. */
const char* loom_flag_choices(loom_flag_set_t set);

/* The encoding.layout.strided op whose operands are the strides of view
 * |view|, or NULL for a dense view. |*out_unresolved| is set (and NULL
 * returned) when the layout is not an op's result in the same body, e.g.
 * a function parameter, which the backends cannot read. */
const loom_op_t* loom_view_strides(const loom_module_t* module,
                                   const loom_type_t* view,
                                   bool* out_unresolved);

/* A func.def / func.decl modifier word and its LOOM_FUNC_* bit. */
typedef struct loom_func_modifier_t {
  const char* word;
  uint32_t flag;
} loom_func_modifier_t;

/* In the order the printer writes them (upstream's: visibility, retain,
 * calling convention, purity, temperature, inlining). */
extern const loom_func_modifier_t loom_func_modifiers[];
extern const uint32_t loom_func_modifier_count;

/* Opcodes the rest of the compiler refers to by name. */
uint32_t loom_opcode(const char* name);

#endif /* HRX_LOOM_OP_TABLE_H_ */
