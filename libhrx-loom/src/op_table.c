#include "op_table.h"

#include <string.h>

#define ANY LOOM_PLACE_ANY
#define DEVICE LOOM_PLACE_DEVICE

#define CONSTANT(n, t)                                                   \
  {.name = n, .shape = LOOM_SHAPE_CONSTANT,                               \
   .places = ANY | LOOM_PLACE_CHECK, .types = t}
/* Float arithmetic takes fast-math flags, integer arithmetic overflow
 * flags; index arithmetic neither. */
#define FLAGS_OF(t)                                  \
  ((t) == LOOM_MASK_FLOAT ? LOOM_FLAGS_FASTMATH      \
   : (t) == LOOM_MASK_INT ? LOOM_FLAGS_OVERFLOW      \
                          : LOOM_FLAGS_NONE)
#define NARY(n, a, t, p)                                                  \
  {.name = n, .shape = LOOM_SHAPE_NARY, .arity = a, .places = p, .types = t, \
   .flag_set = FLAGS_OF(t)}
#define VECTOR_NARY(n, a, elements)                                       \
  {.name = n, .shape = LOOM_SHAPE_NARY, .arity = a, .places = DEVICE,     \
   .types = LOOM_MASK_VECTOR, .types2 = elements,                         \
   .flag_set = FLAGS_OF(elements)}
#define COMPARE(n, e, t, p)                                               \
  {.name = n, .shape = LOOM_SHAPE_COMPARE, .arity = 2, .enum_set = e,     \
   .enum_required = true, .places = p, .types = t}
#define CAST(n, c, from, to, p)                                           \
  {.name = n, .shape = LOOM_SHAPE_CAST, .cast = c, .places = p,           \
   .types = from, .types2 = to}
#define NULLARY(n, e, p)                                                  \
  {.name = n, .shape = LOOM_SHAPE_NULLARY, .enum_set = e,                 \
   .enum_required = (e) != LOOM_ENUM_NONE, .places = p,                   \
   .types = LOOM_MASK_INDEX}

const loom_op_def_t loom_op_defs[] = {
    /* index: the signed logical (index) and unsigned byte (offset) domain;
     * byte offsets only add and subtract (index.scale makes them) */
    CONSTANT("index.constant", LOOM_MASK_ADDR),
    NARY("index.add", 2, LOOM_MASK_ADDR, ANY),
    NARY("index.sub", 2, LOOM_MASK_ADDR, ANY),
    NARY("index.mul", 2, LOOM_MASK_INDEX, ANY),
    NARY("index.div", 2, LOOM_MASK_INDEX, ANY),
    NARY("index.rem", 2, LOOM_MASK_INDEX, ANY),
    NARY("index.min", 2, LOOM_MASK_INDEX, ANY),
    NARY("index.max", 2, LOOM_MASK_INDEX, ANY),
    NARY("index.madd", 3, LOOM_MASK_INDEX, ANY),
    NARY("index.andi", 2, LOOM_MASK_INDEX, ANY),
    NARY("index.ori", 2, LOOM_MASK_INDEX, ANY),
    NARY("index.xori", 2, LOOM_MASK_INDEX, ANY),
    NARY("index.shli", 2, LOOM_MASK_INDEX, ANY),
    NARY("index.shrui", 2, LOOM_MASK_INDEX, ANY),
    COMPARE("index.cmp", LOOM_ENUM_ICMP, LOOM_MASK_ADDR, ANY),
    {.name = "index.assume", .shape = LOOM_SHAPE_ASSUME, .places = ANY,
     .types = LOOM_MASK_ADDR},
    CAST("index.cast", LOOM_CAST_INDEX, LOOM_MASK_ADDR | LOOM_MASK_INT,
         LOOM_MASK_ADDR | LOOM_MASK_INT, ANY),
    {.name = "index.scale", .shape = LOOM_SHAPE_SCALE, .places = ANY,
     .types = LOOM_MASK_ADDR, .types2 = LOOM_MASK_ADDR},

    /* scalar arithmetic */
    CONSTANT("scalar.constant", LOOM_MASK_INT | LOOM_MASK_FLOAT),
    NARY("scalar.addf", 2, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.subf", 2, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.mulf", 2, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.divf", 2, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.minnumf", 2, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.maxnumf", 2, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.fmaf", 3, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.negf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.absf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.floorf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.ceilf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.truncf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.roundevenf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.sqrtf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.rsqrtf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.expf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.logf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.tanhf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.exp2f", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.siluf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.sinf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.cosf", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.powf", 2, LOOM_MASK_FLOAT, DEVICE),
    {.name = "scalar.clampf", .shape = LOOM_SHAPE_NARY, .arity = 3,
     .enum_set = LOOM_ENUM_CLAMP, .enum_required = true,
     .flag_set = LOOM_FLAGS_FASTMATH, .places = DEVICE,
     .types = LOOM_MASK_FLOAT},
    NARY("scalar.addi", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.subi", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.muli", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.divsi", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.divui", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.remsi", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.remui", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.minsi", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.maxsi", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.minui", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.maxui", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.andi", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.ori", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.xori", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.shli", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.shrui", 2, LOOM_MASK_INT, DEVICE),
    NARY("scalar.shrsi", 2, LOOM_MASK_INT, DEVICE),
    COMPARE("scalar.cmpf", LOOM_ENUM_FCMP, LOOM_MASK_FLOAT, DEVICE),
    COMPARE("scalar.cmpi", LOOM_ENUM_ICMP, LOOM_MASK_INT, DEVICE),
    CAST("scalar.extf", LOOM_CAST_EXTF, LOOM_MASK_FLOAT | LOOM_MASK_F8,
         LOOM_MASK_FLOAT, DEVICE),
    CAST("scalar.fptrunc", LOOM_CAST_TRUNCF, LOOM_MASK_FLOAT,
         LOOM_MASK_FLOAT | LOOM_MASK_F8, DEVICE),
    CAST("scalar.extui", LOOM_CAST_EXTI, LOOM_MASK_INT, LOOM_MASK_INT,
         DEVICE),
    CAST("scalar.extsi", LOOM_CAST_EXTI, LOOM_MASK_INT, LOOM_MASK_INT,
         DEVICE),
    CAST("scalar.trunci", LOOM_CAST_TRUNCI, LOOM_MASK_INT, LOOM_MASK_INT,
         DEVICE),
    CAST("scalar.uitofp", LOOM_CAST_ITOF, LOOM_MASK_INT, LOOM_MASK_FLOAT,
         DEVICE),
    CAST("scalar.sitofp", LOOM_CAST_ITOF, LOOM_MASK_INT, LOOM_MASK_FLOAT,
         DEVICE),
    CAST("scalar.fptoui", LOOM_CAST_FTOI, LOOM_MASK_FLOAT, LOOM_MASK_INT,
         DEVICE),
    CAST("scalar.fptosi", LOOM_CAST_FTOI, LOOM_MASK_FLOAT, LOOM_MASK_INT,
         DEVICE),
    CAST("scalar.bitcast", LOOM_CAST_BITCAST,
         LOOM_MASK_INT | LOOM_MASK_FLOAT | LOOM_MASK_F8,
         LOOM_MASK_INT | LOOM_MASK_FLOAT | LOOM_MASK_F8, DEVICE),

    /* kernel: dispatch geometry, subgroups, synchronisation, launch */
    NULLARY("kernel.workgroup.id", LOOM_ENUM_DIM, DEVICE),
    NULLARY("kernel.workgroup.size", LOOM_ENUM_DIM, DEVICE),
    NULLARY("kernel.workgroup.count", LOOM_ENUM_DIM, DEVICE),
    NULLARY("kernel.workitem.id", LOOM_ENUM_DIM, DEVICE),
    NULLARY("kernel.subgroup.id", LOOM_ENUM_NONE, DEVICE),
    NULLARY("kernel.subgroup.lane.id", LOOM_ENUM_NONE, DEVICE),
    NULLARY("kernel.subgroup.size", LOOM_ENUM_NONE, DEVICE),
    NULLARY("target.subgroup.size", LOOM_ENUM_NONE, ANY),
    {.name = "kernel.subgroup.shuffle", .shape = LOOM_SHAPE_SHUFFLE,
     .enum_set = LOOM_ENUM_SHUFFLE, .enum_required = true, .places = DEVICE,
     .types = LOOM_MASK_SCALAR},
    {.name = "kernel.subgroup.reduce", .shape = LOOM_SHAPE_REDUCE,
     .enum_set = LOOM_ENUM_COMBINE, .enum_required = true, .places = DEVICE,
     .flag_set = LOOM_FLAGS_FASTMATH,
     .types = LOOM_MASK_INT | LOOM_MASK_FLOAT},
    /* Every work-item of the workgroup gets the combination of all their
     * values (scalars or rank-1 vectors, element by element). */
    {.name = "kernel.workgroup.reduce", .shape = LOOM_SHAPE_REDUCE,
     .enum_set = LOOM_ENUM_COMBINE, .enum_required = true, .places = DEVICE,
     .flag_set = LOOM_FLAGS_FASTMATH,
     .types = LOOM_MASK_INDEX | LOOM_MASK_INT | LOOM_MASK_FLOAT |
              LOOM_MASK_VECTOR},
    {.name = "kernel.barrier", .shape = LOOM_SHAPE_SYNC,
     .enum_set = LOOM_ENUM_SCOPE, .enum_required = true, .places = DEVICE},
    {.name = "kernel.launch.config", .shape = LOOM_SHAPE_LAUNCH_CONFIG,
     .places = LOOM_PLACE_CONFIG, .terminator = LOOM_TERM_LAUNCH_CONFIG,
     .types = LOOM_MASK_INDEX},
    {.name = "kernel.return", .shape = LOOM_SHAPE_TERMINATOR,
     .places = LOOM_PLACE_BODY, .terminator = LOOM_TERM_KERNEL_RETURN},

    /* config */
    {.name = "config.get", .shape = LOOM_SHAPE_CONFIG_GET, .places = ANY,
     .types = LOOM_MASK_SCALAR},

    /* buffers and views */
    {.name = "buffer.assume.memory_space", .shape = LOOM_SHAPE_MEMORY_SPACE,
     .enum_set = LOOM_ENUM_MEMORY_SPACE, .enum_required = true,
     .places = DEVICE, .types = LOOM_MASK_BUFFER},
    {.name = "buffer.assume.noalias", .shape = LOOM_SHAPE_NOALIAS,
     .places = DEVICE, .types = LOOM_MASK_BUFFER},
    /* A promise about the buffers' base addresses, kept in the IR; the
     * backends take the results as copies. */
    {.name = "buffer.assume.alignment", .shape = LOOM_SHAPE_NOALIAS,
     .places = DEVICE, .types = LOOM_MASK_BUFFER,
     .attrs = 1u << LOOM_ATTR_MIN_ALIGN},
    {.name = "encoding.layout.dense", .shape = LOOM_SHAPE_NULLARY,
     .places = ANY, .types = LOOM_KIND_BIT(LOOM_TYPE_LAYOUT)},
    {.name = "encoding.layout.strided", .shape = LOOM_SHAPE_LAYOUT_STRIDED,
     .places = ANY, .types = LOOM_KIND_BIT(LOOM_TYPE_LAYOUT)},
    {.name = "encoding.define", .shape = LOOM_SHAPE_LAYOUT_STRIDED,
     .places = ANY,
     .types = LOOM_KIND_BIT(LOOM_TYPE_LAYOUT) |
              LOOM_KIND_BIT(LOOM_TYPE_SCHEMA)},
    {.name = "buffer.view", .shape = LOOM_SHAPE_BUFFER_VIEW, .places = DEVICE,
     .types = LOOM_MASK_BUFFER, .types2 = LOOM_MASK_VIEW},
    {.name = "buffer.alloca", .shape = LOOM_SHAPE_ALLOCA,
     .enum_set = LOOM_ENUM_MEMORY_SPACE, .enum_required = true,
     .places = DEVICE, .types = LOOM_MASK_BUFFER},
    {.name = "buffer.fence", .shape = LOOM_SHAPE_SYNC, .places = DEVICE},
    {.name = "view.load", .shape = LOOM_SHAPE_LOAD, .places = DEVICE,
     .types = LOOM_MASK_VIEW, .types2 = LOOM_MASK_STORED},
    {.name = "view.store", .shape = LOOM_SHAPE_STORE, .places = DEVICE,
     .types = LOOM_MASK_STORED, .types2 = LOOM_MASK_VIEW},
    {.name = "view.atomic.load", .shape = LOOM_SHAPE_LOAD, .places = DEVICE,
     .types = LOOM_MASK_VIEW, .types2 = LOOM_MASK_INT | LOOM_MASK_FLOAT},
    {.name = "view.atomic.store", .shape = LOOM_SHAPE_STORE,
     .places = DEVICE, .types = LOOM_MASK_INT | LOOM_MASK_FLOAT,
     .types2 = LOOM_MASK_VIEW},
    {.name = "view.atomic.rmw", .shape = LOOM_SHAPE_RMW,
     .enum_set = LOOM_ENUM_COMBINE, .enum_required = true, .places = DEVICE,
     .types = LOOM_MASK_INT | LOOM_MASK_FLOAT, .types2 = LOOM_MASK_VIEW},

    /* vectors */
    {.name = "vector.load", .shape = LOOM_SHAPE_LOAD, .places = DEVICE,
     .types = LOOM_MASK_VIEW, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.store", .shape = LOOM_SHAPE_STORE, .places = DEVICE,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_VIEW},
    /* Lanes whose mask lane is false touch no memory (and are not bounds
     * checked); a masked load gives them the passthrough's lane. Expand
     * and compress pack the active lanes densely in memory. Gather
     * and scatter lanes access the origin moved along the last view axis
     * by their offsets lane (vector_access.h). */
    {.name = "vector.load.mask", .shape = LOOM_SHAPE_LANE_LOAD,
     .places = DEVICE, .types = LOOM_MASK_VIEW, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.store.mask", .shape = LOOM_SHAPE_LANE_STORE,
     .places = DEVICE, .types = LOOM_MASK_VIEW, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.load.expand", .shape = LOOM_SHAPE_LANE_LOAD,
     .places = DEVICE, .types = LOOM_MASK_VIEW, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.store.compress", .shape = LOOM_SHAPE_LANE_STORE,
     .places = DEVICE, .types = LOOM_MASK_VIEW, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.gather", .shape = LOOM_SHAPE_LANE_LOAD,
     .places = DEVICE, .types = LOOM_MASK_VIEW, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.scatter", .shape = LOOM_SHAPE_LANE_STORE,
     .places = DEVICE, .types = LOOM_MASK_VIEW, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.extract", .shape = LOOM_SHAPE_EXTRACT, .places = DEVICE,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_STORED},
    {.name = "vector.insert", .shape = LOOM_SHAPE_INSERT, .places = DEVICE,
     .types = LOOM_MASK_STORED, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.splat", .shape = LOOM_SHAPE_SPLAT, .places = DEVICE,
     .types = LOOM_MASK_VECTOR},
    /* elementwise: types2 is the allowed element kinds */
    VECTOR_NARY("vector.addf", 2, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.subf", 2, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.mulf", 2, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.divf", 2, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.minnumf", 2, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.maxnumf", 2, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.fmaf", 3, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.negf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.absf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.floorf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.ceilf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.truncf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.roundevenf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.roundf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.sqrtf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.expf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.logf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.rsqrtf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.tanhf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.exp2f", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.siluf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.sinf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.cosf", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.powf", 2, LOOM_MASK_FLOAT),
    {.name = "vector.clampf", .shape = LOOM_SHAPE_NARY, .arity = 3,
     .enum_set = LOOM_ENUM_CLAMP, .enum_required = true,
     .flag_set = LOOM_FLAGS_FASTMATH, .places = DEVICE,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_FLOAT},
    VECTOR_NARY("vector.addi", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.subi", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.muli", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.divsi", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.divui", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.remsi", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.remui", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.minsi", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.maxsi", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.minui", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.maxui", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.andi", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.ori", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.xori", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.shli", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.shrui", 2, LOOM_MASK_INT),
    VECTOR_NARY("vector.shrsi", 2, LOOM_MASK_INT),
    /* integer negation and absolute value (both wrap: the minimum integer
     * maps to itself), divisions rounding up or down, bit counts (of zero:
     * the width), rotates (by the amount modulo the width) and a * b + c
     * (wrapping); only fmai takes overflow flags */
#define INT_OP(n, a)                                                      \
  {.name = "scalar." n, .shape = LOOM_SHAPE_NARY, .arity = a,             \
   .places = DEVICE, .types = LOOM_MASK_INT},                             \
  {.name = "vector." n, .shape = LOOM_SHAPE_NARY, .arity = a,             \
   .places = DEVICE, .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_INT}
    INT_OP("negi", 1),
    INT_OP("absi", 1),
    INT_OP("ceildivsi", 2),
    INT_OP("ceildivui", 2),
    INT_OP("floordivsi", 2),
    INT_OP("ctpopi", 1),
    INT_OP("ctlzi", 1),
    INT_OP("cttzi", 1),
    INT_OP("rotli", 2),
    INT_OP("rotri", 2),
#undef INT_OP
    NARY("scalar.fmai", 3, LOOM_MASK_INT, DEVICE),
    VECTOR_NARY("vector.fmai", 3, LOOM_MASK_INT),
    /* copysignf (no flags) and IEEE 754-2019 minimum / maximum: a NaN
     * operand gives NaN, -0 < +0 */
    {.name = "scalar.copysignf", .shape = LOOM_SHAPE_NARY, .arity = 2,
     .places = DEVICE, .types = LOOM_MASK_FLOAT},
    {.name = "vector.copysignf", .shape = LOOM_SHAPE_NARY, .arity = 2,
     .places = DEVICE, .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_FLOAT},
    NARY("scalar.minimumf", 2, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.maximumf", 2, LOOM_MASK_FLOAT, DEVICE),
    VECTOR_NARY("vector.minimumf", 2, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.maximumf", 2, LOOM_MASK_FLOAT),
    /* Float class tests give i1 (a vector<N x i1> mask after "->" for
     * vectors; no predicate word, no flags). signf is -1, +1, or the
     * operand itself for zeros (sign kept) and NaN; signi is -1, 0 or 1
     * (neither takes flags). remf is C's fmod: exact, with x's sign. */
#define TEST_OP(n)                                                        \
  {.name = "scalar." n, .shape = LOOM_SHAPE_COMPARE, .arity = 1,          \
   .places = DEVICE, .types = LOOM_MASK_FLOAT},                           \
  {.name = "vector." n, .shape = LOOM_SHAPE_COMPARE, .arity = 1,          \
   .places = DEVICE, .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_FLOAT}
    TEST_OP("isnanf"),
    TEST_OP("isinff"),
    TEST_OP("isfinitef"),
#undef TEST_OP
    {.name = "scalar.signf", .shape = LOOM_SHAPE_NARY, .arity = 1,
     .places = DEVICE, .types = LOOM_MASK_FLOAT},
    {.name = "vector.signf", .shape = LOOM_SHAPE_NARY, .arity = 1,
     .places = DEVICE, .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_FLOAT},
    {.name = "scalar.signi", .shape = LOOM_SHAPE_NARY, .arity = 1,
     .places = DEVICE, .types = LOOM_MASK_INT},
    {.name = "vector.signi", .shape = LOOM_SHAPE_NARY, .arity = 1,
     .places = DEVICE, .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_INT},
    NARY("scalar.remf", 2, LOOM_MASK_FLOAT, DEVICE),
    VECTOR_NARY("vector.remf", 2, LOOM_MASK_FLOAT),
    /* base-2 and base-10 logarithms */
    NARY("scalar.log2f", 1, LOOM_MASK_FLOAT, DEVICE),
    NARY("scalar.log10f", 1, LOOM_MASK_FLOAT, DEVICE),
    VECTOR_NARY("vector.log2f", 1, LOOM_MASK_FLOAT),
    VECTOR_NARY("vector.log10f", 1, LOOM_MASK_FLOAT),
    /* composed functions (math_formulas.c); atan2f(y, x) */
#define FORMULA_OP(n, a)                                                  \
  NARY("scalar." n, a, LOOM_MASK_FLOAT, DEVICE),                          \
      VECTOR_NARY("vector." n, a, LOOM_MASK_FLOAT)
    FORMULA_OP("expm1f", 1),
    FORMULA_OP("log1pf", 1),
    FORMULA_OP("sinhf", 1),
    FORMULA_OP("coshf", 1),
    FORMULA_OP("tanf", 1),
    FORMULA_OP("atanf", 1),
    FORMULA_OP("atan2f", 2),
    FORMULA_OP("asinf", 1),
    FORMULA_OP("acosf", 1),
    FORMULA_OP("cbrtf", 1),
    FORMULA_OP("logisticf", 1),
    FORMULA_OP("softplusf", 1),
#undef FORMULA_OP
    CAST("vector.extf", LOOM_CAST_EXTF, LOOM_MASK_VECTOR, LOOM_MASK_VECTOR,
         DEVICE),
    CAST("vector.fptrunc", LOOM_CAST_TRUNCF, LOOM_MASK_VECTOR,
         LOOM_MASK_VECTOR, DEVICE),
    CAST("vector.extui", LOOM_CAST_EXTI, LOOM_MASK_VECTOR, LOOM_MASK_VECTOR,
         DEVICE),
    CAST("vector.extsi", LOOM_CAST_EXTI, LOOM_MASK_VECTOR, LOOM_MASK_VECTOR,
         DEVICE),
    CAST("vector.trunci", LOOM_CAST_TRUNCI, LOOM_MASK_VECTOR,
         LOOM_MASK_VECTOR, DEVICE),
    CAST("vector.uitofp", LOOM_CAST_ITOF, LOOM_MASK_VECTOR, LOOM_MASK_VECTOR,
         DEVICE),
    CAST("vector.sitofp", LOOM_CAST_ITOF, LOOM_MASK_VECTOR, LOOM_MASK_VECTOR,
         DEVICE),
    CAST("vector.fptoui", LOOM_CAST_FTOI, LOOM_MASK_VECTOR, LOOM_MASK_VECTOR,
         DEVICE),
    CAST("vector.fptosi", LOOM_CAST_FTOI, LOOM_MASK_VECTOR, LOOM_MASK_VECTOR,
         DEVICE),
    /* The whole register reinterpreted: lane counts may differ when the
     * total bits agree; lane 0 holds the lowest bits, as in memory. */
    CAST("vector.bitcast", LOOM_CAST_BITCAST, LOOM_MASK_VECTOR,
         LOOM_MASK_VECTOR, DEVICE),
    /* Vectors built in place: a splat constant, base + i * step in lane
     * i (index lanes too: lane coordinates), or one operand per lane. */
    {.name = "vector.constant", .shape = LOOM_SHAPE_CONSTANT,
     .places = DEVICE, .types = LOOM_MASK_VECTOR},
    /* An undefined vector: upstream leaves its lanes unspecified, here
     * they are all zero (a constant with an implied literal) so that a
     * kernel reading one behaves the same on every backend. */
    {.name = "vector.poison", .shape = LOOM_SHAPE_CONSTANT,
     .places = DEVICE, .types = LOOM_MASK_VECTOR},
    {.name = "vector.iota", .shape = LOOM_SHAPE_IOTA, .places = DEVICE,
     .types = LOOM_MASK_VECTOR,
     .types2 = (LOOM_MASK_INT & ~LOOM_KIND_BIT(LOOM_TYPE_I1)) |
               LOOM_MASK_INDEX},
    {.name = "vector.from_elements", .shape = LOOM_SHAPE_SPLAT,
     .places = DEVICE, .types = LOOM_MASK_VECTOR},
    /* Lanewise compares give vector<N x i1> masks (written after "->"),
     * which vector.select reads lane by lane. */
    {.name = "vector.cmpi", .shape = LOOM_SHAPE_COMPARE, .arity = 2,
     .enum_set = LOOM_ENUM_ICMP, .enum_required = true, .places = DEVICE,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_INT},
    {.name = "vector.cmpf", .shape = LOOM_SHAPE_COMPARE, .arity = 2,
     .enum_set = LOOM_ENUM_FCMP, .enum_required = true, .places = DEVICE,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_FLOAT},
    {.name = "vector.select", .shape = LOOM_SHAPE_SELECT, .places = DEVICE,
     .types = LOOM_MASK_VECTOR},
    /* Integer fields: a bitfield of each lane, or fixed-width fields of
     * the lanes read as one little-endian bit stream (the width in
     * enum_value), zero- or sign-extended into the result lanes. */
    {.name = "vector.bitfield.extractu", .shape = LOOM_SHAPE_BITS,
     .places = DEVICE, .types = LOOM_MASK_VECTOR,
     .attrs = (1u << LOOM_ATTR_OFFSET) | (1u << LOOM_ATTR_WIDTH)},
    {.name = "vector.bitfield.extracts", .shape = LOOM_SHAPE_BITS,
     .places = DEVICE, .types = LOOM_MASK_VECTOR,
     .attrs = (1u << LOOM_ATTR_OFFSET) | (1u << LOOM_ATTR_WIDTH)},
    {.name = "vector.bitunpacku", .shape = LOOM_SHAPE_BITS, .places = DEVICE,
     .types = LOOM_MASK_VECTOR},
    {.name = "vector.bitunpacks", .shape = LOOM_SHAPE_BITS, .places = DEVICE,
     .types = LOOM_MASK_VECTOR},
    /* The inverses: the low width bits of each source lane packed into
     * the result's bit stream, and a field of each base lane replaced by
     * the low bits of the matching field lane
     * (vector.bitfield.insert %field into %base {..} : FIELD, RESULT). */
    {.name = "vector.bitpack", .shape = LOOM_SHAPE_BITS, .places = DEVICE,
     .types = LOOM_MASK_VECTOR},
    {.name = "vector.bitfield.insert", .shape = LOOM_SHAPE_BITS,
     .places = DEVICE, .types = LOOM_MASK_VECTOR,
     .attrs = (1u << LOOM_ATTR_OFFSET) | (1u << LOOM_ATTR_WIDTH)},
    /* Register layout: lanes moved by a static map (vector_layout.c). */
    {.name = "vector.broadcast", .shape = LOOM_SHAPE_LAYOUT,
     .places = DEVICE, .types = LOOM_MASK_VECTOR},
    {.name = "vector.shuffle", .shape = LOOM_SHAPE_LAYOUT, .places = DEVICE,
     .types = LOOM_MASK_VECTOR},
    {.name = "vector.transpose", .shape = LOOM_SHAPE_LAYOUT,
     .places = DEVICE, .types = LOOM_MASK_VECTOR},
    {.name = "vector.slice", .shape = LOOM_SHAPE_LAYOUT, .places = DEVICE,
     .types = LOOM_MASK_VECTOR},
    {.name = "vector.interleave", .shape = LOOM_SHAPE_LAYOUT,
     .places = DEVICE, .types = LOOM_MASK_VECTOR},
    {.name = "vector.concat", .shape = LOOM_SHAPE_LAYOUT, .places = DEVICE,
     .types = LOOM_MASK_VECTOR},
    {.name = "vector.deinterleave", .shape = LOOM_SHAPE_LAYOUT,
     .places = DEVICE, .types = LOOM_MASK_VECTOR},
    /* Dot products: dotf fuses lane by lane in lane order into a scalar
     * accumulator; dot4i adds each group of four byte products to one
     * i32 accumulator lane, wrapping. */
    {.name = "vector.dotf", .shape = LOOM_SHAPE_DOT, .places = DEVICE,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_FLOAT},
    {.name = "vector.dot4i", .shape = LOOM_SHAPE_DOT,
     .enum_set = LOOM_ENUM_DOT4, .enum_required = true, .places = DEVICE,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_VECTOR},
    /* Packed dots (upstream's AMDGPU dot families), each result lane from
     * one accumulator lane: dot2f adds the two f16/bf16 products of lanes
     * 2r, 2r+1 as two f32 fmas in lane order; dot8i4 adds the eight
     * 4-bit products of its i32 lanes (low nibble first), wrapping;
     * dot4f8 adds the four f8 products of its i32 lanes (low byte first)
     * as four f32 fmas in byte order. */
    {.name = "vector.dot2f", .shape = LOOM_SHAPE_DOT, .places = DEVICE,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.dot8i4", .shape = LOOM_SHAPE_DOT,
     .enum_set = LOOM_ENUM_DOT8, .enum_required = true, .places = DEVICE,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.dot4f8", .shape = LOOM_SHAPE_DOT,
     .enum_set = LOOM_ENUM_DOT4F8, .enum_required = true, .places = DEVICE,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_VECTOR},
    /* Matrix fragments: a vector that is one lane's share of a matrix
     * tile spread over a subgroup (see fragment.h for the layouts), and
     * their product-accumulate, written as a dot of two sources and an
     * accumulator. Operands of the memory forms: view (or value, view),
     * the origin indices, then rows and columns. */
    {.name = "vector.fragment", .shape = LOOM_SHAPE_FRAGMENT,
     .enum_set = LOOM_ENUM_FRAGMENT, .enum_required = true, .places = DEVICE,
     .types = LOOM_MASK_VECTOR},
    {.name = "vector.fragment.load", .shape = LOOM_SHAPE_FRAGMENT_LOAD,
     .enum_set = LOOM_ENUM_FRAGMENT, .enum_required = true, .places = DEVICE,
     .types = LOOM_MASK_VIEW, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.fragment.store", .shape = LOOM_SHAPE_FRAGMENT_STORE,
     .enum_set = LOOM_ENUM_FRAGMENT, .enum_required = true, .places = DEVICE,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_VIEW},
    {.name = "vector.mma", .shape = LOOM_SHAPE_DOT, .places = DEVICE,
     .flag_set = LOOM_FLAGS_MMA,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_VECTOR},
    {.name = "vector.reduce", .shape = LOOM_SHAPE_VECTOR_REDUCE,
     .enum_set = LOOM_ENUM_COMBINE, .enum_required = true, .places = DEVICE,
     .flag_set = LOOM_FLAGS_FASTMATH,
     .types = LOOM_MASK_VECTOR, .types2 = LOOM_MASK_INT | LOOM_MASK_FLOAT},
    /* Some axes reduced, in a fixed order (vector_reduce.h). */
    {.name = "vector.reduce.axes", .shape = LOOM_SHAPE_REDUCE_AXES,
     .enum_set = LOOM_ENUM_COMBINE, .enum_required = true, .places = DEVICE,
     .types = LOOM_MASK_VECTOR,
     .types2 = LOOM_MASK_INT | LOOM_MASK_FLOAT | LOOM_MASK_VECTOR},

    /* structured control flow */
    {.name = "scf.if", .shape = LOOM_SHAPE_IF, .places = ANY},
    {.name = "scf.for", .shape = LOOM_SHAPE_FOR, .places = ANY},
    {.name = "scf.while", .shape = LOOM_SHAPE_WHILE, .places = ANY},
    {.name = "scf.select", .shape = LOOM_SHAPE_SELECT, .places = ANY,
     .types = LOOM_MASK_VALUE | LOOM_MASK_BUFFER},
    {.name = "scf.yield", .shape = LOOM_SHAPE_TERMINATOR, .places = ANY,
     .terminator = LOOM_TERM_YIELD, .types = LOOM_MASK_ANY},
    {.name = "scf.condition", .shape = LOOM_SHAPE_TERMINATOR, .places = ANY,
     .terminator = LOOM_TERM_CONDITION, .types = LOOM_MASK_ANY},

    /* functions */
    {.name = "func.call", .shape = LOOM_SHAPE_CALL, .places = DEVICE,
     .types = LOOM_MASK_ANY},
    {.name = "func.return", .shape = LOOM_SHAPE_TERMINATOR,
     .places = LOOM_PLACE_FUNC, .terminator = LOOM_TERM_FUNC_RETURN,
     .types = LOOM_MASK_ANY},
    /* compile-time callables: each becomes a call of the implementation
     * chosen for it; template.return ends a template.def body as
     * func.return ends a function's */
    {.name = "func.apply", .shape = LOOM_SHAPE_CALL, .places = DEVICE,
     .types = LOOM_MASK_ANY, .call_kind = LOOM_CALL_CONTRACT},
    {.name = "template.apply", .shape = LOOM_SHAPE_CALL, .places = DEVICE,
     .types = LOOM_MASK_ANY, .call_kind = LOOM_CALL_FAMILY},
    {.name = "template.call", .shape = LOOM_SHAPE_CALL, .places = DEVICE,
     .types = LOOM_MASK_ANY, .call_kind = LOOM_CALL_TEMPLATE},
    {.name = "template.return", .shape = LOOM_SHAPE_TERMINATOR,
     .places = LOOM_PLACE_FUNC, .terminator = LOOM_TERM_FUNC_RETURN,
     .types = LOOM_MASK_ANY},

    /* executable tests: the bodies of check.case / check.scenario */
    {.name = "kernel.launch", .shape = LOOM_SHAPE_KERNEL_LAUNCH,
     .places = LOOM_PLACE_CHECK},
    {.name = "check.generate.iota", .shape = LOOM_SHAPE_CHECK_SOURCE,
     .places = LOOM_PLACE_CHECK, .types = LOOM_MASK_TENSOR},
    {.name = "check.generate.fill", .shape = LOOM_SHAPE_CHECK_SOURCE,
     .places = LOOM_PLACE_CHECK, .types = LOOM_MASK_TENSOR},
    {.name = "check.literal", .shape = LOOM_SHAPE_CHECK_SOURCE,
     .places = LOOM_PLACE_CHECK, .types = LOOM_MASK_SCALAR},
    {.name = "check.expect.equal", .shape = LOOM_SHAPE_CHECK_EXPECT,
     .places = LOOM_PLACE_CHECK, .types = LOOM_MASK_TENSOR | LOOM_MASK_SCALAR},
    {.name = "check.expect.bitwise", .shape = LOOM_SHAPE_CHECK_EXPECT,
     .places = LOOM_PLACE_CHECK, .types = LOOM_MASK_TENSOR | LOOM_MASK_SCALAR},
    {.name = "check.expect.close", .shape = LOOM_SHAPE_CHECK_EXPECT,
     .places = LOOM_PLACE_CHECK, .types = LOOM_MASK_TENSOR | LOOM_MASK_SCALAR,
     .types2 = LOOM_MASK_FLOAT},
    {.name = "check.return", .shape = LOOM_SHAPE_TERMINATOR,
     .places = LOOM_PLACE_CHECK, .terminator = LOOM_TERM_CHECK_RETURN},
};

const uint32_t loom_op_def_count =
    sizeof(loom_op_defs) / sizeof(loom_op_defs[0]);

uint32_t loom_op_lookup(const char* name, size_t length) {
  /* ~100 entries; the parser caches nothing, and a linear scan over
   * first-character-filtered names costs little next to lexing. */
  for (uint32_t i = 0; i < loom_op_def_count; ++i) {
    const char* candidate = loom_op_defs[i].name;
    if (candidate[0] == name[0] && strlen(candidate) == length &&
        memcmp(candidate, name, length) == 0) {
      return i;
    }
  }
  return LOOM_NONE;
}

uint32_t loom_opcode(const char* name) {
  return loom_op_lookup(name, strlen(name));
}

static const char* const loom_enum_dim[] = {"x", "y", "z", NULL};
static const char* const loom_enum_icmp[] = {
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge", NULL};
static const char* const loom_enum_fcmp[] = {
    "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", NULL};
static const char* const loom_enum_memory_space[] = {
    "unknown", "global", "workgroup", "private", "constant", "host",
    "descriptor", "generic", NULL};
static const char* const loom_enum_shuffle[] = {"xor", "up", "down", "index",
                                                NULL};
static const char* const loom_enum_combine[] = {
    "addi", "addf", "muli", "mulf", "maxnumf", "minnumf", "maxsi", "minsi",
    "maxui", "minui", "andi", "ori", "xori", "xchg", NULL};
static const char* const loom_enum_scope[] = {
    "thread", "subgroup", "workgroup", "device", "system", NULL};
static const char* const loom_enum_ordering[] = {
    "relaxed", "acquire", "release", "acq_rel", "seq_cst", NULL};
static const char* const loom_enum_clamp[] = {"ordered", "number", "ieee",
                                              NULL};
static const char* const loom_enum_dot4[] = {"s8s8", "u8s8", "s8u8", "u8u8",
                                             NULL};
static const char* const loom_enum_fragment[] = {"lhs", "rhs", "init",
                                                 "result", NULL};
static const char* const loom_enum_dot8[] = {"s4s4", "u4s4", "s4u4", "u4u4",
                                             NULL};
static const char* const loom_enum_dot4f8[] = {"fp8bf8", "bf8fp8", "fp8fp8",
                                               "bf8bf8", NULL};

static const char* const* const loom_enum_sets[LOOM_ENUM_COUNT] = {
    [LOOM_ENUM_NONE] = NULL,
    [LOOM_ENUM_DIM] = loom_enum_dim,
    [LOOM_ENUM_ICMP] = loom_enum_icmp,
    [LOOM_ENUM_FCMP] = loom_enum_fcmp,
    [LOOM_ENUM_MEMORY_SPACE] = loom_enum_memory_space,
    [LOOM_ENUM_SHUFFLE] = loom_enum_shuffle,
    [LOOM_ENUM_COMBINE] = loom_enum_combine,
    [LOOM_ENUM_SCOPE] = loom_enum_scope,
    [LOOM_ENUM_ORDERING] = loom_enum_ordering,
    [LOOM_ENUM_CLAMP] = loom_enum_clamp,
    [LOOM_ENUM_DOT4] = loom_enum_dot4,
    [LOOM_ENUM_FRAGMENT] = loom_enum_fragment,
    [LOOM_ENUM_DOT8] = loom_enum_dot8,
    [LOOM_ENUM_DOT4F8] = loom_enum_dot4f8,
};

static const char* const loom_enum_choice_text[LOOM_ENUM_COUNT] = {
    [LOOM_ENUM_NONE] = "",
    [LOOM_ENUM_DIM] = "x, y, z",
    [LOOM_ENUM_ICMP] = "eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge",
    [LOOM_ENUM_FCMP] =
        "oeq, ogt, oge, olt, ole, one, ord, ueq, ugt, uge, ult, ule, une, uno",
    [LOOM_ENUM_MEMORY_SPACE] = "unknown, global, workgroup, private, "
                               "constant, host, descriptor, generic",
    [LOOM_ENUM_SHUFFLE] = "xor, up, down, index",
    [LOOM_ENUM_COMBINE] = "addi, addf, muli, mulf, maxnumf, minnumf, maxsi, "
                          "minsi, maxui, minui, andi, ori, xori, xchg",
    [LOOM_ENUM_SCOPE] = "thread, subgroup, workgroup, device, system",
    [LOOM_ENUM_ORDERING] = "relaxed, acquire, release, acq_rel, seq_cst",
    [LOOM_ENUM_CLAMP] = "ordered, number, ieee",
    [LOOM_ENUM_DOT4] = "s8s8, u8s8, s8u8, u8u8",
    [LOOM_ENUM_FRAGMENT] = "lhs, rhs, init, result",
    [LOOM_ENUM_DOT8] = "s4s4, u4s4, s4u4, u4u4",
    [LOOM_ENUM_DOT4F8] = "fp8bf8, bf8fp8, fp8fp8, bf8bf8",
};

uint32_t loom_dot_type_count(const loom_op_def_t* def) {
  switch (def->enum_set) {
    case LOOM_ENUM_DOT8: return 1;
    case LOOM_ENUM_DOT4F8: return 2;
    default: return 3;
  }
}

const char* loom_enum_keyword(loom_enum_set_t set, uint32_t index) {
  if ((unsigned)set >= LOOM_ENUM_COUNT || !loom_enum_sets[set]) return NULL;
  const char* const* words = loom_enum_sets[set];
  for (uint32_t i = 0; words[i]; ++i) {
    if (i == index) return words[i];
  }
  return NULL;
}

uint32_t loom_enum_lookup(loom_enum_set_t set, const char* text,
                          size_t length) {
  if ((unsigned)set >= LOOM_ENUM_COUNT || !loom_enum_sets[set]) {
    return LOOM_ENUM_ABSENT;
  }
  const char* const* words = loom_enum_sets[set];
  for (uint32_t i = 0; words[i]; ++i) {
    if (strlen(words[i]) == length && memcmp(words[i], text, length) == 0) {
      return i;
    }
  }
  return LOOM_ENUM_ABSENT;
}

const char* loom_enum_choices(loom_enum_set_t set) {
  return (unsigned)set < LOOM_ENUM_COUNT ? loom_enum_choice_text[set] : "";
}

/* Word i is bit 1 << i. */
static const char* const loom_flags_fastmath[] = {
    "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc", "fast",
    NULL};
static const char* const loom_flags_overflow[] = {"nsw", "nuw", NULL};
static const char* const loom_flags_mma[] = {"saturate", NULL};

static const char* const* const loom_flag_sets[LOOM_FLAGS_COUNT] = {
    [LOOM_FLAGS_NONE] = NULL,
    [LOOM_FLAGS_FASTMATH] = loom_flags_fastmath,
    [LOOM_FLAGS_OVERFLOW] = loom_flags_overflow,
    [LOOM_FLAGS_MMA] = loom_flags_mma,
};

uint32_t loom_flag_lookup(loom_flag_set_t set, const char* text,
                          size_t length) {
  if ((unsigned)set >= LOOM_FLAGS_COUNT || !loom_flag_sets[set]) return 0;
  const char* const* words = loom_flag_sets[set];
  for (uint32_t i = 0; words[i]; ++i) {
    if (strlen(words[i]) == length && memcmp(words[i], text, length) == 0) {
      return 1u << i;
    }
  }
  return 0;
}

const char* loom_flag_keyword(loom_flag_set_t set, uint32_t bit) {
  if ((unsigned)set >= LOOM_FLAGS_COUNT || !loom_flag_sets[set]) return NULL;
  const char* const* words = loom_flag_sets[set];
  for (uint32_t i = 0; words[i]; ++i) {
    if (bit == 1u << i) return words[i];
  }
  return NULL;
}

const char* loom_flag_choices(loom_flag_set_t set) {
  switch (set) {
    case LOOM_FLAGS_FASTMATH:
      return "nnan, ninf, nsz, arcp, contract, afn, reassoc, fast";
    case LOOM_FLAGS_OVERFLOW: return "nsw, nuw";
    case LOOM_FLAGS_MMA: return "saturate";
    default: return "";
  }
}

const loom_op_t* loom_view_strides(const loom_module_t* module,
                                   const loom_type_t* view,
                                   bool* out_unresolved) {
  *out_unresolved = false;
  if (view->layout == LOOM_NONE) return NULL;
  uint32_t def = LOOM_VALUE(module, view->layout).def_op;
  if (def == LOOM_NONE) {
    *out_unresolved = true;
    return NULL;
  }
  const loom_op_t* layout = &LOOM_OP(module, def);
  /* encoding.define #encoding.layout.dense is dense; the strided ops keep
   * their strides as operands either way. */
  bool strided = loom_op_defs[layout->opcode].shape ==
                     LOOM_SHAPE_LAYOUT_STRIDED &&
                 layout->enum_value != LOOM_ENCODING_DENSE &&
                 layout->enum_value != LOOM_ENCODING_SCHEMA;
  return strided ? layout : NULL;
}

const loom_func_modifier_t loom_func_modifiers[] = {
    {"public", LOOM_FUNC_PUBLIC},
    {"retain", LOOM_FUNC_RETAIN},
    {"host", LOOM_FUNC_HOST},
    {"device", LOOM_FUNC_DEVICE},
    {"initializer", LOOM_FUNC_INITIALIZER},
    {"deinitializer", LOOM_FUNC_DEINITIALIZER},
    {"pure", LOOM_FUNC_PURE},
    {"hot", LOOM_FUNC_HOT},
    {"cold", LOOM_FUNC_COLD},
    {"inline", LOOM_FUNC_INLINE},
    {"noinline", LOOM_FUNC_NOINLINE},
};
const uint32_t loom_func_modifier_count =
    sizeof(loom_func_modifiers) / sizeof(loom_func_modifiers[0]);
