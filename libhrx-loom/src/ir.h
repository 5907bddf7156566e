/* The typed SSA IR of a parsed Loom module (private to libhrx-loom).
 *
 * A module owns flat arrays: types, values, ops, regions and the lists they
 * index into. Everything refers to everything else by 32-bit index, so the
 * module is one set of allocations freed at once and cheap to walk.
 * Structured control flow is regions nested in ops; a region's ops are a
 * contiguous slice of |region_ops|.
 */
#ifndef HRX_LOOM_IR_H_
#define HRX_LOOM_IR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "diagnostics_internal.h"

#define LOOM_NONE UINT32_MAX

/*===------------------------------------------------------------------===*/
/* Growable arrays                                                         */
/*===------------------------------------------------------------------===*/

typedef struct loom_array_t {
  void* data;
  uint32_t count;
  uint32_t capacity;
} loom_array_t;

/* Appends |count| zeroed elements and returns the index of the first in
 * |*out_index|. */
hrx_status_t loom_array_grow(loom_array_t* array, hrx_allocator_t allocator,
                             size_t element_size, uint32_t count,
                             uint32_t* out_index);
void loom_array_free(loom_array_t* array, hrx_allocator_t allocator);

#define LOOM_AT(array, type, index) (((type*)(array).data)[index])

/*===------------------------------------------------------------------===*/
/* Hash indexes                                                            */
/*===------------------------------------------------------------------===*/

/* FNV-1a of |length| bytes. */
uint32_t loom_hash_bytes(const void* data, size_t length, uint32_t seed);
#define LOOM_HASH_SEED 2166136261u

/* An open-addressing set of 32-bit values (indexes into some array) found
 * by a hash the caller computes and a match function the caller supplies,
 * so one index type serves symbols, exports, shaped types and config names
 * and every duplicate check or lookup is O(1) expected, never a scan. */
typedef struct loom_index_slot_t {
  uint32_t hash;
  uint32_t value; /* LOOM_NONE when empty */
} loom_index_slot_t;

typedef struct loom_index_t {
  loom_index_slot_t* slots;
  uint32_t capacity; /* power of two, or 0 before the first insert */
  uint32_t count;
} loom_index_t;

/* True when |value| is the entry |key| looks for. */
typedef bool (*loom_index_match_fn)(const void* context, uint32_t value,
                                    const void* key);

/* The value matching |key|, or LOOM_NONE. */
uint32_t loom_index_find(const loom_index_t* index, uint32_t hash,
                         loom_index_match_fn match, const void* context,
                         const void* key);
/* Adds |value| (which must not be present yet). */
hrx_status_t loom_index_insert(loom_index_t* index, hrx_allocator_t allocator,
                               uint32_t hash, uint32_t value);
void loom_index_free(loom_index_t* index, hrx_allocator_t allocator);

/*===------------------------------------------------------------------===*/
/* Types                                                                   */
/*===------------------------------------------------------------------===*/

typedef enum loom_type_kind_e {
  LOOM_TYPE_INVALID = 0,
  LOOM_TYPE_INDEX,
  LOOM_TYPE_OFFSET,
  LOOM_TYPE_I1,
  LOOM_TYPE_I8,
  LOOM_TYPE_I16,
  LOOM_TYPE_I32,
  LOOM_TYPE_I64,
  LOOM_TYPE_F16,
  LOOM_TYPE_BF16,
  LOOM_TYPE_F32,
  LOOM_TYPE_F64,
  LOOM_TYPE_BUFFER,
  /* 8-bit float storage types (hrx/core/f8.h): loaded, stored, moved and
   * converted with extf / fptrunc, never computed on. After buffer, so the
   * public hrx_loom_arg_type_t (index .. buffer) does not grow: they are
   * not kernel-argument or check-value types. */
  LOOM_TYPE_F8E4M3,
  LOOM_TYPE_F8E5M2,
  LOOM_TYPE_LAYOUT, /* encoding<layout>: the address layout of views */
  LOOM_TYPE_SCHEMA, /* encoding<schema>: how values are stored (encoding.define) */
  LOOM_TYPE_VECTOR,
  LOOM_TYPE_VIEW,
  LOOM_TYPE_TENSOR, /* check.case values: host-side arrays of elements */
  LOOM_TYPE_KIND_COUNT,
} loom_type_kind_t;

/* Type ids below LOOM_TYPE_VECTOR are the scalar kinds themselves. */
typedef uint32_t loom_type_id_t;

/* A dimension: static size, or dynamic (size < 0) naming an SSA value. */
typedef struct loom_dim_t {
  int64_t size;
  uint32_t value;
} loom_dim_t;

typedef struct loom_type_t {
  loom_type_kind_t kind;
  loom_type_kind_t element; /* vector / view element kind */
  uint32_t rank;            /* number of dims (vector_shape.h) */
  uint32_t dims_start;      /* into module->dims */
  /* view: the encoding<layout> value giving its strides, or LOOM_NONE for
   * the dense row-major layout (written as nothing or #dense). */
  uint32_t layout;
} loom_type_t;

bool loom_type_is_integer(loom_type_kind_t kind);  /* i1..i64 */
bool loom_type_is_float(loom_type_kind_t kind);    /* f16 bf16 f32 f64 */
bool loom_type_is_f8(loom_type_kind_t kind);       /* f8E4M3 f8E5M2 */
bool loom_type_is_address(loom_type_kind_t kind); /* index offset */
/* encoding<layout> / encoding<schema>: compile-time descriptions that
 * backends read where they are used and never materialise. */
bool loom_type_is_encoding(loom_type_kind_t kind);
uint32_t loom_type_bit_width(loom_type_kind_t kind);
const char* loom_type_kind_name(loom_type_kind_t kind);

/*===------------------------------------------------------------------===*/
/* Literals, predicates, attributes                                        */
/*===------------------------------------------------------------------===*/

typedef enum loom_literal_kind_e {
  LOOM_LITERAL_NONE = 0,
  LOOM_LITERAL_INT,
  LOOM_LITERAL_FLOAT,
  LOOM_LITERAL_BOOL,
} loom_literal_kind_t;

typedef struct loom_literal_t {
  loom_literal_kind_t kind;
  int64_t i;       /* INT, BOOL (0/1) */
  double f;        /* FLOAT */
  uint32_t text;   /* FLOAT: spelling as written (string id), for printing */
} loom_literal_t;

/* An operand of a predicate or an index slot: an SSA value or a literal
 * integer. */
typedef struct loom_ref_t {
  bool is_static;
  uint32_t value;  /* when !is_static */
  int64_t constant;
} loom_ref_t;

typedef enum loom_pred_kind_e {
  LOOM_PRED_RANGE = 0, /* range(v, lo, hi), inclusive */
  LOOM_PRED_LT,        /* lt(v, w) */
  LOOM_PRED_LE,        /* le(v, w) */
  LOOM_PRED_EQ,        /* eq(v, w) */
  LOOM_PRED_NE,        /* ne(v, w) */
  LOOM_PRED_MUL,       /* mul(v, k): v is a multiple of k */
  LOOM_PRED_COUNT,
} loom_pred_kind_t;

typedef struct loom_pred_t {
  loom_pred_kind_t kind;
  uint32_t arg_count;
  loom_ref_t args[3];
  loom_span_t span;
} loom_pred_t;

/* Named attributes written as keyword(value) or {key = value}. */
typedef enum loom_attr_key_e {
  LOOM_ATTR_SCOPE = 0,
  LOOM_ATTR_ORDERING,
  LOOM_ATTR_ALIGN,
  LOOM_ATTR_CLUSTER_SIZE,
  LOOM_ATTR_MIN_ALIGN, /* {minimum_alignment = N}: buffer.assume.alignment */
  LOOM_ATTR_OFFSET,    /* {offset = N, width = M}: vector.bitfield.* */
  LOOM_ATTR_WIDTH,
  LOOM_ATTR_KEY_COUNT,
} loom_attr_key_t;

/*===------------------------------------------------------------------===*/
/* Values, ops, regions                                                    */
/*===------------------------------------------------------------------===*/

typedef struct loom_value_t {
  loom_type_id_t type;
  uint32_t name;       /* string id of the name without '%' */
  uint32_t def_op;     /* defining op, or LOOM_NONE for region arguments */
  uint32_t def_region; /* region that defines it (argument or op result) */
  loom_span_t span;
} loom_value_t;

typedef struct loom_op_t {
  uint16_t opcode;     /* index into the op table */
  uint8_t enum_value;  /* <param> or predicate keyword, per op shape */
  uint8_t has_else;    /* scf.if */
  uint16_t flags;      /* LOOM_OP_FLAG_*: fast-math / overflow hints */
  uint32_t operands_start, operand_count; /* into module->operands */
  uint32_t results_start, result_count;   /* values [start, start+count) */
  uint32_t regions[2];                    /* then/else, before/after */
  uint32_t region_count;
  /* into module->preds; for check.generate.*, check.literal and
   * check.expect.close into module->literals (their clause values) */
  uint32_t preds_start, pred_count;
  int64_t attrs[LOOM_ATTR_KEY_COUNT];     /* -1 when absent */
  loom_literal_t literal;  /* constants */
  uint32_t symbol;         /* string id: config.get @sym, func.call @f;
                            * encoding.define of a schema: its spec */
  loom_type_id_t type;     /* the op's written type (see the op table) */
  loom_type_id_t type2;    /* second written type: cast target, view, ... */
  uint32_t region;         /* region containing this op */
  loom_span_t span;
  /* template.apply / func.apply: the family or contract key as written
   * (string id; |symbol| is the implementation chosen for it). Fragment
   * ops: the value of using {schema = %s}, or LOOM_NONE. Lane-by-lane
   * memory ops (vector_access.h): the mask's or offsets' written type. */
  uint32_t ref;
} loom_op_t;

typedef struct loom_region_t {
  uint32_t ops_start, op_count;   /* into module->region_ops */
  uint32_t args_start, arg_count; /* values [start, start+count) */
  uint32_t parent_op;     /* LOOM_NONE for top-level regions */
  uint32_t parent_region; /* enclosing region, LOOM_NONE at top level */
  loom_span_t span;
} loom_region_t;

/*===------------------------------------------------------------------===*/
/* Top-level entities                                                      */
/*===------------------------------------------------------------------===*/

typedef enum loom_target_family_e {
  LOOM_TARGET_AMDGPU = 0,
  LOOM_TARGET_HOST = 1,
  /* spirv.target, test.target, ...: kept and printed, never compiled */
  LOOM_TARGET_OTHER = 2,
} loom_target_family_t;

typedef struct loom_target_t {
  uint32_t symbol;   /* string id without '@' */
  loom_target_family_t family;
  uint32_t family_name; /* string id: "spirv" of spirv.target (OTHER) */
  uint32_t attrs_text;  /* OTHER: its {attributes} as written, or LOOM_NONE */
  uint32_t kind;     /* string id: gfx11-generic, gfx1151, cpu */
  int64_t subgroup_size; /* 0 when unspecified */
  loom_span_t span;
} loom_target_t;

typedef struct loom_config_decl_t {
  uint32_t symbol;
  loom_type_id_t type;
  uint32_t value_name;  /* %v of the where-clause form, or LOOM_NONE */
  uint32_t preds_start, pred_count; /* args refer to value LOOM_NONE slot */
  bool has_default;     /* a config.def supplied one */
  loom_literal_t default_value;
  loom_span_t span;
  loom_span_t default_span;
} loom_config_decl_t;

typedef struct loom_kernel_t {
  uint32_t symbol;
  uint32_t export_name;   /* string id, or LOOM_NONE */
  uint32_t target;        /* index into targets, or LOOM_NONE */
  bool retain;
  uint32_t config_region; /* workload args + launch-config program */
  uint32_t body_region;   /* launch args + body */
  /* launch(...) where [preds]: constraints on the launch arguments */
  uint32_t preds_start, pred_count;
  loom_span_t span;
} loom_kernel_t;

/* Modifier words of func.def / func.decl (loom_func_modifiers spells
 * them), and DECL for a declaration, whose body region holds only the
 * parameters. */
typedef enum loom_func_flag_e {
  LOOM_FUNC_PUBLIC = 1u << 0,
  LOOM_FUNC_PURE = 1u << 1,
  LOOM_FUNC_INLINE = 1u << 2,
  LOOM_FUNC_NOINLINE = 1u << 3,
  LOOM_FUNC_RETAIN = 1u << 4,
  LOOM_FUNC_HOST = 1u << 5,
  LOOM_FUNC_DEVICE = 1u << 6,
  LOOM_FUNC_INITIALIZER = 1u << 7,
  LOOM_FUNC_DEINITIALIZER = 1u << 8,
  LOOM_FUNC_HOT = 1u << 9,
  LOOM_FUNC_COLD = 1u << 10,
  LOOM_FUNC_DECL = 1u << 11,
  /* The compile-time callables (template_resolve.c): template.decl (with
   * DECL: a family's signature), template.def (an implementation of a
   * family) and func.template (an implementation of a contract key). */
  LOOM_FUNC_TEMPLATE_DECL = 1u << 12,
  LOOM_FUNC_TEMPLATE_DEF = 1u << 13,
  LOOM_FUNC_PROVIDER = 1u << 14,
} loom_func_flag_t;

typedef struct loom_func_t {
  uint32_t symbol;
  uint32_t flags;
  uint32_t target;        /* LOOM_NONE when untargeted */
  uint32_t abi;           /* string id of abi(KIND), or LOOM_NONE */
  uint32_t body_region;
  uint32_t results_start, result_count; /* into module->type_lists */
  loom_span_t span;
  /* template.def: its family's symbol; func.template: its contract key
   * (string ids); LOOM_NONE otherwise. */
  uint32_t family;
  uint32_t requires;    /* requires [...] as written, or LOOM_NONE */
  bool has_priority;
  int64_t priority;     /* priority(N): higher wins; absent ranks as 0 */
} loom_func_t;

/* Top-level records HRX keeps, verifies and prints but does not compile:
 * declarations and the executable test forms. */
typedef enum loom_record_kind_e {
  LOOM_RECORD_KERNEL_DECL = 0, /* regions: workload args, launch args */
  LOOM_RECORD_CASE,            /* check.case: regions[0] is the body */
  LOOM_RECORD_SCENARIO,        /* check.scenario: as a case, never run */
  LOOM_RECORD_BENCHMARK,       /* check.benchmark<@case> @name {attrs} */
  LOOM_RECORD_ALIAS,           /* #name = attribute */
} loom_record_kind_t;

typedef struct loom_record_t {
  loom_record_kind_t kind;
  uint32_t symbol;      /* string id; an alias keeps its leading '#' */
  bool is_public;       /* check.case public */
  bool retain;          /* kernel.decl retain */
  uint32_t target;      /* kernel.decl target(@t), or LOOM_NONE */
  uint32_t export_name; /* kernel.decl export("..."), or LOOM_NONE */
  uint32_t regions[2];  /* LOOM_NONE when absent */
  uint32_t preds_start, pred_count; /* kernel.decl where [...] */
  uint32_t ref;         /* benchmark: the case's symbol string id */
  uint32_t text;        /* alias value / benchmark attributes, as written */
  loom_span_t span;
} loom_record_t;

/*===------------------------------------------------------------------===*/
/* The module                                                              */
/*===------------------------------------------------------------------===*/

struct hrx_loom_module_s {
  hrx_allocator_t allocator;
  loom_source_t source;   /* copies of name and text, owned */
  char* source_storage;

  loom_array_t strings;   /* char: NUL-separated string storage */
  loom_array_t types;     /* loom_type_t */
  loom_array_t dims;      /* loom_dim_t */
  loom_array_t values;    /* loom_value_t */
  loom_array_t ops;       /* loom_op_t */
  loom_array_t operands;  /* uint32_t value ids or LOOM_STATIC_OPERAND */
  loom_array_t statics;   /* int64_t literal operands (static indices) */
  loom_array_t regions;   /* loom_region_t */
  loom_array_t region_ops;/* uint32_t op ids */
  loom_array_t preds;     /* loom_pred_t */
  loom_array_t type_lists;/* loom_type_id_t */
  loom_array_t targets;   /* loom_target_t */
  loom_array_t configs;   /* loom_config_decl_t */
  loom_array_t kernels;   /* loom_kernel_t */
  loom_array_t funcs;     /* loom_func_t */
  loom_array_t records;   /* loom_record_t, in source order */
  loom_array_t literals;  /* loom_literal_t: check ops' clause values */

  /* Lookups by name or structure (see loom_module_add_*). */
  loom_index_t type_index;    /* shaped type ids */
  loom_index_t target_index;  /* by symbol */
  loom_index_t config_index;  /* by symbol */
  loom_index_t func_index;    /* by symbol */
  loom_index_t kernel_index;  /* by symbol */
  loom_index_t export_index;  /* kernels by code-object name */
  loom_index_t record_index;  /* by symbol (aliases with their '#') */
};

typedef struct hrx_loom_module_s loom_module_t;

#define LOOM_VALUE(m, id) LOOM_AT((m)->values, loom_value_t, id)
#define LOOM_OP(m, id) LOOM_AT((m)->ops, loom_op_t, id)
#define LOOM_REGION(m, id) LOOM_AT((m)->regions, loom_region_t, id)
#define LOOM_TYPE(m, id) LOOM_AT((m)->types, loom_type_t, id)
#define LOOM_DIM(m, id) LOOM_AT((m)->dims, loom_dim_t, id)
#define LOOM_OPERAND(m, op, i) \
  LOOM_AT((m)->operands, uint32_t, (op)->operands_start + (i))
/* An operand slot holding a literal integer (e.g. %v[0]) instead of a
 * value: the low bits index module->statics. */
#define LOOM_STATIC_OPERAND 0x80000000u
static inline bool loom_operand_is_static(uint32_t operand) {
  return operand != LOOM_NONE && (operand & LOOM_STATIC_OPERAND) != 0;
}
#define LOOM_STATIC(m, operand) \
  LOOM_AT((m)->statics, int64_t, (operand) & ~LOOM_STATIC_OPERAND)
#define LOOM_REGION_OP(m, region, i) \
  LOOM_AT((m)->region_ops, uint32_t, (region)->ops_start + (i))
#define LOOM_PRED(m, id) LOOM_AT((m)->preds, loom_pred_t, id)
#define LOOM_TARGET(m, id) LOOM_AT((m)->targets, loom_target_t, id)
#define LOOM_CONFIG(m, id) LOOM_AT((m)->configs, loom_config_decl_t, id)
#define LOOM_KERNEL(m, id) LOOM_AT((m)->kernels, loom_kernel_t, id)
#define LOOM_FUNC(m, id) LOOM_AT((m)->funcs, loom_func_t, id)
#define LOOM_RECORD(m, id) LOOM_AT((m)->records, loom_record_t, id)

/* Stores |length| bytes as a NUL-terminated string; returns its id. */
hrx_status_t loom_module_intern(loom_module_t* module, const char* text,
                                size_t length, uint32_t* out_id);
const char* loom_module_string(const loom_module_t* module, uint32_t id);

/* Interns a scalar, vector or view type (structural equality); |layout|
 * is a view's layout value or LOOM_NONE. */
hrx_status_t loom_module_type(loom_module_t* module, loom_type_kind_t kind,
                              loom_type_kind_t element,
                              const loom_dim_t* dims, uint32_t rank,
                              uint32_t layout, loom_type_id_t* out_type);
static inline loom_type_kind_t loom_type_kind(const loom_module_t* module,
                                              loom_type_id_t type) {
  return LOOM_TYPE(module, type).kind;
}

/* Appends the canonical spelling of |type|. */
hrx_status_t loom_type_print(const loom_module_t* module, loom_type_id_t type,
                             hrx_string_builder_t* out);

/* Finds a config declaration by symbol text, or LOOM_NONE. */
uint32_t loom_module_find_config(const loom_module_t* module,
                                 const char* symbol);
uint32_t loom_module_find_target(const loom_module_t* module,
                                 const char* symbol);
uint32_t loom_module_find_func(const loom_module_t* module,
                               const char* symbol);
uint32_t loom_module_find_kernel(const loom_module_t* module,
                                 const char* symbol);
uint32_t loom_module_find_record(const loom_module_t* module,
                                 const char* symbol);
/* The kernel whose code-object name (export name, else symbol) is |name|,
 * or LOOM_NONE. */
uint32_t loom_module_find_code_name(const loom_module_t* module,
                                    const char* name);
/* The name a kernel has in a code object: its export name, else its
 * symbol. */
const char* loom_kernel_code_name(const loom_module_t* module,
                                  const loom_kernel_t* kernel);

/* Append a top-level entity and index it; the caller checks first that its
 * name is free. */
hrx_status_t loom_module_add_target(loom_module_t* module,
                                    const loom_target_t* target);
hrx_status_t loom_module_add_config(loom_module_t* module,
                                    const loom_config_decl_t* decl,
                                    uint32_t* out_index);
hrx_status_t loom_module_add_func(loom_module_t* module,
                                  const loom_func_t* func);
hrx_status_t loom_module_add_record(loom_module_t* module,
                                    const loom_record_t* record);
/* Also indexes the code-object name, which must be free too. */
hrx_status_t loom_module_add_kernel(loom_module_t* module,
                                    const loom_kernel_t* kernel);

/* False, with an error at the target, when a kernel is for a family
 * (spirv.target, ...) that the backends for |profile| cannot compile. */
bool loom_module_targets_compile(const loom_module_t* module,
                                 const char* profile,
                                 hrx_loom_diagnostics_t* diagnostics);

hrx_status_t loom_module_create(hrx_allocator_t allocator,
                                const char* name, const char* text,
                                size_t length, loom_module_t** out_module);

#endif /* HRX_LOOM_IR_H_ */
