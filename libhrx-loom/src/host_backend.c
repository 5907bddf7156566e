/* Host backend: Loom IR -> host ISA (see hrx/fabric/host_isa.h).
 *
 * Pipeline per kernel: uniformity analysis over the body; lowering to
 * instructions on virtual registers (scalar file for uniform values, vector
 * file otherwise; a vector<N x T> value takes N consecutive registers);
 * linear-scan allocation of both files; encoding into the code object. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"
#include "hrx/core/bytes.h"
#include "hrx/fabric/host_isa.h"
#include "hrx/loom/compiler.h"
#include "hrx/loom/host_backend.h"
#include "le_append.h"
#include "host_backend_internal.h"
#include "op_table.h"
#include "vector_access.h"
#include "vector_bound.h"
#include "vector_layout.h"
#include "vector_reduce.h"
#include "vector_shape.h"

#define HB_MAX_INLINE_DEPTH 16
#if defined(__GNUC__)
#define HB_OUT_OF_LINE __attribute__((noinline))
#else
#define HB_OUT_OF_LINE
#endif
#define HB_MAX_VECTOR 64

bool hb_error(hb_t* b, loom_span_t span, hrx_loom_diag_code_t code,
                     const char* format, ...) {
  va_list args;
  va_start(args, format);
  loom_diag_emitv(b->diagnostics, &b->m->source, span,
                  HRX_LOOM_SEVERITY_ERROR, code, NULL, 0, format, args);
  va_end(args);
  b->failed = true;
  return false;
}

const char* hb_op_name(const loom_op_t* op) {
  return loom_op_defs[op->opcode].name;
}

bool hb_is(const loom_op_t* op, const char* name) {
  return strcmp(hb_op_name(op), name) == 0;
}

/*===------------------------------------------------------------------===*/
/* Types                                                                   */
/*===------------------------------------------------------------------===*/

/* Host type of a scalar Loom kind (index/offset are i64). */
uint8_t hb_host_type(loom_type_kind_t kind) {
  switch (kind) {
    case LOOM_TYPE_I1: return HRX_HOST_TYPE_I1;
    case LOOM_TYPE_I8: return HRX_HOST_TYPE_I8;
    case LOOM_TYPE_I16: return HRX_HOST_TYPE_I16;
    case LOOM_TYPE_I32: return HRX_HOST_TYPE_I32;
    case LOOM_TYPE_F16: return HRX_HOST_TYPE_F16;
    case LOOM_TYPE_BF16: return HRX_HOST_TYPE_BF16;
    case LOOM_TYPE_F32: return HRX_HOST_TYPE_F32;
    case LOOM_TYPE_F64: return HRX_HOST_TYPE_F64;
    case LOOM_TYPE_F8E4M3: return HRX_HOST_TYPE_F8E4M3;
    case LOOM_TYPE_F8E5M2: return HRX_HOST_TYPE_F8E5M2;
    default: return HRX_HOST_TYPE_I64;
  }
}

static uint32_t hb_kind_bytes(loom_type_kind_t kind) {
  uint32_t bits = loom_type_bit_width(kind);
  return bits <= 8 ? 1 : bits / 8;
}

loom_type_kind_t hb_kind(const hb_t* b, loom_type_id_t type) {
  return loom_type_kind(b->m, type);
}

/* Number of registers a value of |type| takes. */
uint32_t hb_width(const hb_t* b, loom_type_id_t type) {
  return loom_vector_capacity(b->m, type);
}

/* Register bits of a literal as a value of |kind|. */
uint64_t hb_literal_bits(const loom_literal_t* l,
                                loom_type_kind_t kind) {
  if (loom_type_is_float(kind)) {
    return loom_float_bits(l->kind == LOOM_LITERAL_FLOAT ? l->f : (double)l->i,
                           kind);
  }
  uint64_t v = (uint64_t)l->i;
  switch (kind) {
    case LOOM_TYPE_I1: return v & 1;
    case LOOM_TYPE_I8: return (uint64_t)(int64_t)(int8_t)v;
    case LOOM_TYPE_I16: return (uint64_t)(int64_t)(int16_t)v;
    case LOOM_TYPE_I32: return (uint64_t)(int64_t)(int32_t)v;
    default: return v;
  }
}

/*===------------------------------------------------------------------===*/
/* Uniformity                                                              */
/*===------------------------------------------------------------------===*/

static bool hb_operands_uniform(const hb_t* b, const loom_op_t* op,
                                uint32_t first, uint32_t end) {
  for (uint32_t i = first; i < end && i < op->operand_count; ++i) {
    uint32_t operand = LOOM_OPERAND(b->m, op, i);
    if (!loom_operand_is_static(operand) && !b->uniform[operand]) return false;
  }
  return true;
}

static void hb_analyze_region(hb_t* b, uint32_t region);

static void hb_set_results(hb_t* b, const loom_op_t* op, bool uniform) {
  for (uint32_t r = 0; r < op->result_count; ++r) {
    b->uniform[op->results_start + r] = uniform;
  }
}

/* The terminator's operands of |region| (NULL when it has none). */
static const loom_op_t* hb_terminator(const hb_t* b, uint32_t region_id) {
  const loom_region_t* region = &LOOM_REGION(b->m, region_id);
  if (!region->op_count) return NULL;
  const loom_op_t* last =
      &LOOM_OP(b->m, LOOM_REGION_OP(b->m, region, region->op_count - 1));
  return loom_op_defs[last->opcode].terminator != LOOM_TERM_NONE ? last : NULL;
}

static bool hb_term_uniform(const hb_t* b, const loom_op_t* term,
                            uint32_t index) {
  if (!term || index >= term->operand_count) return true;
  uint32_t operand = LOOM_OPERAND(b->m, term, index);
  return loom_operand_is_static(operand) || b->uniform[operand];
}

/* Values whose lanes can differ however uniform their inputs are. */
static bool hb_lane_varying(const loom_op_t* op) {
  static const char* const names[] = {
      "kernel.workitem.id",      "kernel.subgroup.lane.id",
      "kernel.subgroup.shuffle", "kernel.subgroup.reduce",
      "kernel.workgroup.reduce",
      "view.atomic.load",        "view.atomic.rmw", "func.call",
      "vector.fragment.load",    "vector.mma"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    if (hb_is(op, names[i])) return true;
  }
  /* Each work-item has its own private memory. */
  return hb_is(op, "buffer.alloca") &&
         strcmp(loom_enum_keyword(LOOM_ENUM_MEMORY_SPACE, op->enum_value),
                "private") == 0;
}

/* A loop-carried value starts uniform when its initial value is, and only
 * ever loses uniformity: an enclosing loop that analyses its body again
 * resumes from what an earlier pass found rather than from the optimistic
 * start, so nested loops take passes in proportion to the values that
 * change, not exponential in the nesting depth. */
static void hb_carry_uniform(hb_t* b, uint32_t value, bool init_uniform) {
  bool before = !b->analyzed[value] || b->uniform[value];
  b->analyzed[value] = 1;
  b->uniform[value] = before && init_uniform;
}

static void hb_analyze_op(hb_t* b, const loom_op_t* op) {
  const loom_module_t* m = b->m;
  switch (loom_op_defs[op->opcode].shape) {
    case LOOM_SHAPE_IF: {
      bool cond = hb_operands_uniform(b, op, 0, 1);
      for (uint32_t r = 0; r < op->region_count; ++r) {
        hb_analyze_region(b, op->regions[r]);
      }
      for (uint32_t r = 0; r < op->result_count; ++r) {
        bool uniform = cond;
        for (uint32_t g = 0; g < op->region_count; ++g) {
          uniform = uniform &&
                    hb_term_uniform(b, hb_terminator(b, op->regions[g]), r);
        }
        b->uniform[op->results_start + r] = uniform;
      }
      return;
    }
    case LOOM_SHAPE_FOR: {
      const loom_region_t* body = &LOOM_REGION(m, op->regions[0]);
      bool bounds = hb_operands_uniform(b, op, 0, 3);
      hb_carry_uniform(b, body->args_start, bounds);
      for (uint32_t k = 1; k < body->arg_count; ++k) {
        hb_carry_uniform(b, body->args_start + k,
                         bounds && hb_operands_uniform(b, op, 2 + k, 3 + k));
      }
      for (bool changed = true; changed;) {
        changed = false;
        hb_analyze_region(b, op->regions[0]);
        const loom_op_t* yield = hb_terminator(b, op->regions[0]);
        for (uint32_t k = 1; k < body->arg_count; ++k) {
          if (b->uniform[body->args_start + k] &&
              !hb_term_uniform(b, yield, k - 1)) {
            b->uniform[body->args_start + k] = 0;
            changed = true;
          }
        }
      }
      for (uint32_t r = 0; r < op->result_count; ++r) {
        b->uniform[op->results_start + r] = b->uniform[body->args_start + 1 + r];
      }
      return;
    }
    case LOOM_SHAPE_WHILE: {
      const loom_region_t* before = &LOOM_REGION(m, op->regions[0]);
      const loom_region_t* after = &LOOM_REGION(m, op->regions[1]);
      for (uint32_t k = 0; k < before->arg_count; ++k) {
        hb_carry_uniform(b, before->args_start + k,
                         hb_operands_uniform(b, op, k, k + 1));
      }
      for (bool changed = true; changed;) {
        changed = false;
        hb_analyze_region(b, op->regions[0]);
        const loom_op_t* cond = hb_terminator(b, op->regions[0]);
        bool uniform_exit = hb_term_uniform(b, cond, 0);
        for (uint32_t k = 0; k < after->arg_count; ++k) {
          b->uniform[after->args_start + k] =
              uniform_exit && hb_term_uniform(b, cond, k + 1);
        }
        hb_analyze_region(b, op->regions[1]);
        const loom_op_t* yield = hb_terminator(b, op->regions[1]);
        for (uint32_t k = 0; k < before->arg_count; ++k) {
          bool uniform = uniform_exit && hb_term_uniform(b, yield, k);
          if (b->uniform[before->args_start + k] && !uniform) {
            b->uniform[before->args_start + k] = 0;
            changed = true;
          }
        }
      }
      for (uint32_t r = 0; r < op->result_count; ++r) {
        b->uniform[op->results_start + r] = b->uniform[after->args_start + r];
      }
      return;
    }
    default:
      hb_set_results(b, op,
                     !hb_lane_varying(op) &&
                         hb_operands_uniform(b, op, 0, op->operand_count));
  }
}

static void hb_analyze_region(hb_t* b, uint32_t region_id) {
  const loom_region_t* region = &LOOM_REGION(b->m, region_id);
  for (uint32_t i = 0; i < region->op_count; ++i) {
    hb_analyze_op(b, &LOOM_OP(b->m, LOOM_REGION_OP(b->m, region, i)));
  }
}

/*===------------------------------------------------------------------===*/
/* Virtual registers and emission                                          */
/*===------------------------------------------------------------------===*/

bool hb_new_vreg(hb_t* b, bool scalar, uint32_t width,
                        uint32_t* out) {
  uint32_t first = 0;
  HB_TRY(b, loom_array_grow(&b->vregs, b->allocator, sizeof(hb_vreg_t),
                            width, &first));
  for (uint32_t k = 0; k < width; ++k) {
    hb_vreg_t* v = &LOOM_AT(b->vregs, hb_vreg_t, first + k);
    v->scalar = scalar;
    v->group = first;
    v->width = k == 0 ? width : 0;
    v->first = LOOM_NONE;
    v->last = 0;
  }
  *out = first;
  return true;
}

static bool hb_scalar(const hb_t* b, uint32_t vreg) {
  return vreg != LOOM_NONE && LOOM_AT(b->vregs, hb_vreg_t, vreg).scalar;
}

uint32_t hb_pos(const hb_t* b) { return b->insns.count; }

bool hb_emit(hb_t* b, uint8_t op, uint8_t type, uint8_t aux,
                    uint32_t dst, uint32_t a, uint32_t bb, uint32_t c,
                    uint32_t imm) {
  uint32_t at = 0;
  HB_TRY(b, loom_array_grow(&b->insns, b->allocator, sizeof(hb_insn_t), 1,
                            &at));
  hb_insn_t* x = &LOOM_AT(b->insns, hb_insn_t, at);
  x->insn = (hrx_host_insn_t){.op = op, .type = type, .aux = aux, .imm = imm};
  x->dst = dst;
  x->a = a;
  x->b = bb;
  x->c = c;
  uint8_t flags = 0;
  if (hb_scalar(b, a)) flags |= HRX_HOST_FLAG_A_SCALAR;
  if (hb_scalar(b, bb)) flags |= HRX_HOST_FLAG_B_SCALAR;
  if (hb_scalar(b, c)) flags |= HRX_HOST_FLAG_C_SCALAR;
  if (hb_scalar(b, dst)) flags |= HRX_HOST_FLAG_DST_SCALAR;
  x->insn.flags = flags;
  return true;
}

bool hb_const(hb_t* b, uint64_t bits, uint32_t dst) {
  uint32_t index = 0;
  HB_TRY(b, loom_array_grow(&b->consts, b->allocator, sizeof(uint64_t), 1,
                            &index));
  LOOM_AT(b->consts, uint64_t, index) = bits;
  return hb_emit(b, HRX_HOST_OP_CONST, HRX_HOST_TYPE_I64, 0, dst, LOOM_NONE,
                 LOOM_NONE, LOOM_NONE, index);
}

/* A scalar register holding |value| (index constants). */
static bool hb_const_reg(hb_t* b, int64_t value, uint32_t* out) {
  return hb_new_vreg(b, true, 1, out) && hb_const(b, (uint64_t)value, *out);
}

/* The register of an operand; static literals become constants. */
bool hb_operand(hb_t* b, const loom_op_t* op, uint32_t i,
                       uint32_t* out) {
  uint32_t operand = LOOM_OPERAND(b->m, op, i);
  if (loom_operand_is_static(operand)) {
    return hb_const_reg(b, LOOM_STATIC(b->m, operand), out);
  }
  if (b->vreg[operand] == LOOM_NONE) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "operand %u of %s has no lowering", i, hb_op_name(op));
  }
  *out = b->vreg[operand];
  return true;
}

/* Whether operand i is a compile-time constant, and its value. */
static bool hb_known(const hb_t* b, const loom_op_t* op, uint32_t i,
                     int64_t* out) {
  uint32_t operand = LOOM_OPERAND(b->m, op, i);
  if (loom_operand_is_static(operand)) {
    *out = LOOM_STATIC(b->m, operand);
    return true;
  }
  if (!b->known[operand]) return false;
  *out = b->const_value[operand];
  return true;
}

/* Allocates the result register(s) of |value| in the file its uniformity
 * (and, for safety, the operands' files) allows. */
static bool hb_define(hb_t* b, uint32_t value, bool operands_scalar) {
  bool scalar = b->uniform[value] && operands_scalar;
  return hb_new_vreg(b, scalar, hb_width(b, LOOM_VALUE(b->m, value).type),
                     &b->vreg[value]);
}

bool hb_all_scalar(const hb_t* b, const uint32_t* regs, int count) {
  for (int i = 0; i < count; ++i) {
    if (regs[i] != LOOM_NONE && !hb_scalar(b, regs[i])) return false;
  }
  return true;
}

bool hb_lower_lanewise(hb_t* b, const loom_op_t* op, hb_lane_fn lane) {
  uint32_t v[3] = {LOOM_NONE, LOOM_NONE, LOOM_NONE};
  for (uint32_t i = 0; i < op->operand_count && i < 3; ++i) {
    if (!hb_operand(b, op, i, &v[i])) return false;
  }
  const loom_type_t* t = &LOOM_TYPE(b->m, op->type);
  uint8_t type =
      hb_host_type(t->kind == LOOM_TYPE_VECTOR ? t->element : t->kind);
  uint32_t width = hb_width(b, op->type);
  uint32_t result = op->results_start;
  if (width == 1) return lane(b, op, type, v, &b->vreg[result]);
  if (!hb_new_vreg(b, b->uniform[result] && hb_all_scalar(b, v, 3), width,
                   &b->vreg[result])) {
    return false;
  }
  for (uint32_t e = 0; e < width; ++e) {
    uint32_t at[3], r = LOOM_NONE;
    for (int i = 0; i < 3; ++i) at[i] = v[i] == LOOM_NONE ? v[i] : v[i] + e;
    if (!lane(b, op, type, at, &r) ||
        !hb_emit(b, HRX_HOST_OP_MOV, HRX_HOST_TYPE_I64, 0,
                 b->vreg[result] + e, r, LOOM_NONE, LOOM_NONE, 0)) {
      return false;
    }
  }
  return true;
}

bool hb_emit_value(hb_t* b, uint8_t op, uint8_t type, uint8_t aux,
                   uint32_t x, uint32_t y, uint32_t z, uint32_t imm,
                   uint32_t* out) {
  uint32_t regs[] = {x, y, z};
  return hb_new_vreg(b, hb_all_scalar(b, regs, 3), 1, out) &&
         hb_emit(b, op, type, aux, *out, x, y, z, imm);
}

/* A new register holding |x| <op> |y|, in the file the operands allow. */
bool hb_binary(hb_t* b, uint8_t op, uint8_t type, uint8_t aux,
                      uint32_t x, uint32_t y, uint32_t* out) {
  return hb_emit_value(b, op, type, aux, x, y, LOOM_NONE, 0, out);
}

/* A new register holding |base| + |index| * |scale| bytes (checked). */
static bool hb_pointer(hb_t* b, uint32_t base, uint32_t index, uint32_t scale,
                       uint32_t* out) {
  return hb_emit_value(b, HRX_HOST_OP_PTR_ADD, HRX_HOST_TYPE_I64, 0, base,
                       index, LOOM_NONE, scale, out);
}

void hb_patch(hb_t* b, uint32_t at, uint32_t target) {
  LOOM_AT(b->insns, hb_insn_t, at).insn.imm = target;
}

bool hb_mov(hb_t* b, uint32_t dst, uint32_t src, uint32_t width) {
  for (uint32_t k = 0; k < width; ++k) {
    if (dst + k == src + k) continue;
    if (!hb_emit(b, HRX_HOST_OP_MOV, HRX_HOST_TYPE_I64, 0, dst + k, src + k,
                 LOOM_NONE, LOOM_NONE, 0)) {
      return false;
    }
  }
  return true;
}

/*===------------------------------------------------------------------===*/
/* Memory addressing                                                       */
/*===------------------------------------------------------------------===*/

/* One step of view-index linearisation, acc * x + y, as an IMADD that
 * poisons instead of wrapping (see host_isa.h, Address arithmetic). */
static bool hb_index_step(hb_t* b, uint32_t acc, uint32_t x, uint32_t y,
                          uint32_t* out) {
  if (!hb_emit_value(b, HRX_HOST_OP_IMADD, HRX_HOST_TYPE_I64, 0, acc, x, y,
                     0, out)) {
    return false;
  }
  LOOM_AT(b->insns, hb_insn_t, b->insns.count - 1).insn.flags |=
      HRX_HOST_FLAG_ADDRESS;
  return true;
}

/* ptr + (sum of index * stride + extra_elements * innermost stride) *
 * element bytes, for a view with an explicit strided layout. */
static bool hb_strided_address(hb_t* b, const loom_op_t* op,
                               uint32_t view_operand, const loom_type_t* view,
                               const loom_op_t* layout,
                               uint32_t extra_elements, uint32_t* out_ptr) {
  uint32_t base = 0, index = 0;
  if (!hb_operand(b, op, view_operand, &base)) return false;
  int64_t linear = 0;
  bool folded = true;
  for (uint32_t d = 0; d < view->rank && folded; ++d) {
    int64_t at = 0, stride = 0;
    folded = hb_known(b, op, view_operand + 1 + d, &at) &&
             hb_known(b, layout, d, &stride);
    if (folded) linear = hrx_host_index_madd(at, stride, linear);
  }
  if (folded) {
    int64_t inner = 0;
    hb_known(b, layout, view->rank - 1, &inner);
    linear = hrx_host_index_madd(extra_elements, inner, linear);
    if (!hb_const_reg(b, linear, &index)) return false;
  } else {
    if (!hb_const_reg(b, 0, &index)) return false;
    for (uint32_t d = 0; d < view->rank; ++d) {
      uint32_t at = 0, stride = 0;
      if (!hb_operand(b, op, view_operand + 1 + d, &at) ||
          !hb_operand(b, layout, d, &stride) ||
          !hb_index_step(b, at, stride, index, &index)) {
        return false;
      }
      if (d + 1 == view->rank && extra_elements) {
        uint32_t extra = 0;
        if (!hb_const_reg(b, extra_elements, &extra) ||
            !hb_index_step(b, extra, stride, index, &index)) {
          return false;
        }
      }
    }
  }
  return hb_pointer(b, base, index, hb_kind_bytes(view->element), out_ptr);
}

/* The strided layout of |view|, NULL when it is dense; false, after a
 * diagnostic, when the layout is not an op the lowering can see. */
static bool hb_view_layout(hb_t* b, const loom_op_t* op,
                           const loom_type_t* view,
                           const loom_op_t** out_layout) {
  bool unresolved = false;
  *out_layout = loom_view_strides(b->m, view, &unresolved);
  if (unresolved) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "a view layout must come from an encoding.layout op in "
                    "the same body");
  }
  return true;
}

/* A register holding extent |d| of |view|: a constant for a static
 * extent, else the register of its dynamic size. */
static bool hb_view_extent(hb_t* b, const loom_op_t* op,
                           const loom_type_t* view, uint32_t d,
                           uint32_t* out) {
  const loom_dim_t* dim = &LOOM_DIM(b->m, view->dims_start + d);
  if (dim->size >= 0) return hb_const_reg(b, dim->size, out);
  if (b->vreg[dim->value] == LOOM_NONE) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "view extent is not available here");
  }
  *out = b->vreg[dim->value];
  return true;
}

/* ptr + (linearised indices of |op| + extra_elements) * element bytes.
 * Every step is checked, at compile time as at run time, so an index that
 * overflows yields a poisoned pointer whose access faults out of bounds
 * rather than a wrapped one that lands inside the buffer. */
static bool hb_address(hb_t* b, const loom_op_t* op, uint32_t view_operand,
                       loom_type_id_t view_type, uint32_t extra_elements,
                       uint32_t* out_ptr) {
  const loom_module_t* m = b->m;
  const loom_type_t* view = &LOOM_TYPE(m, view_type);
  const loom_op_t* layout = NULL;
  if (!hb_view_layout(b, op, view, &layout)) return false;
  if (layout) {
    return hb_strided_address(b, op, view_operand, view, layout,
                              extra_elements, out_ptr);
  }
  uint32_t base = 0;
  if (!hb_operand(b, op, view_operand, &base)) return false;
  uint32_t first = view_operand + 1;
  uint32_t elem = hb_kind_bytes(view->element);
  /* Fully static indices fold to one constant index. */
  bool folded = true;
  int64_t linear = 0;
  for (uint32_t d = 0; d < view->rank && folded; ++d) {
    int64_t index = 0, extent = LOOM_DIM(m, view->dims_start + d).size;
    folded = hb_known(b, op, first + d, &index) && (d == 0 || extent >= 0);
    if (folded) linear = hrx_host_index_madd(linear, d ? extent : 1, index);
  }
  uint32_t index = LOOM_NONE;
  if (folded) {
    linear = hrx_host_index_madd(linear, 1, extra_elements);
    if (linear == 0) {
      *out_ptr = base;
      return true;
    }
    if (!hb_const_reg(b, linear, &index)) return false;
  } else {
    for (uint32_t d = 0; d < view->rank; ++d) {
      uint32_t next = 0;
      if (!hb_operand(b, op, first + d, &next)) return false;
      if (index == LOOM_NONE) {
        index = next;
        continue;
      }
      uint32_t extent = 0;
      if (!hb_view_extent(b, op, view, d, &extent) ||
          !hb_index_step(b, index, extent, next, &index)) {
        return false;
      }
    }
    uint32_t one = 0, bias = 0;
    if (extra_elements &&
        (!hb_const_reg(b, 1, &one) ||
         !hb_const_reg(b, extra_elements, &bias) ||
         !hb_index_step(b, index, one, bias, &index))) {
      return false;
    }
  }
  return hb_pointer(b, base, index, elem, out_ptr);
}

bool hb_element_address(hb_t* b, const loom_op_t* op, uint32_t view_operand,
                        loom_type_id_t view_type, const uint32_t* indices,
                        uint32_t* out_ptr) {
  const loom_module_t* m = b->m;
  const loom_type_t* view = &LOOM_TYPE(m, view_type);
  const loom_op_t* layout = NULL;
  if (!hb_view_layout(b, op, view, &layout)) return false;
  uint32_t base = 0, index = LOOM_NONE;
  if (!hb_operand(b, op, view_operand, &base)) return false;
  for (uint32_t d = 0; d < view->rank; ++d) {
    uint32_t scale = 0;
    if (layout) {
      if (!hb_operand(b, layout, d, &scale)) return false;
      if (index == LOOM_NONE && !hb_const_reg(b, 0, &index)) return false;
      if (!hb_index_step(b, indices[d], scale, index, &index)) return false;
      continue;
    }
    if (index == LOOM_NONE) {
      index = indices[d];
      continue;
    }
    if (!hb_view_extent(b, op, view, d, &scale) ||
        !hb_index_step(b, index, scale, indices[d], &index)) {
      return false;
    }
  }
  return hb_pointer(b, base, index, hb_kind_bytes(view->element), out_ptr);
}

/* Address of lane |lane| of vector |vector| accessed at the indices of
 * |op| after |view_operand|: a rank-1 vector runs along the view's
 * elements; a vector of rank r > 1 maps its axes onto the last r view
 * axes, so each lane adds its coordinates to those indices. */
static bool hb_lane_address(hb_t* b, const loom_op_t* op,
                            uint32_t view_operand, loom_type_id_t view_type,
                            loom_type_id_t vector, uint32_t lane,
                            uint32_t* out_ptr) {
  const loom_type_t* v = &LOOM_TYPE(b->m, vector);
  if (v->kind != LOOM_TYPE_VECTOR || v->rank <= 1) {
    return hb_address(b, op, view_operand, view_type, lane, out_ptr);
  }
  uint32_t rank = LOOM_TYPE(b->m, view_type).rank;
  uint32_t indices[8];
  uint32_t skip = rank - v->rank;
  for (uint32_t d = 0; d < rank; ++d) {
    if (!hb_operand(b, op, view_operand + 1 + d, &indices[d])) return false;
    if (d < skip) continue;
    uint32_t axis = d - skip;
    uint32_t stride = loom_vector_stride(b->m, vector, axis);
    uint32_t extent = (uint32_t)LOOM_DIM(b->m, v->dims_start + axis).size;
    uint32_t at = lane / stride % extent, one = 0, step = 0;
    if (at && (!hb_const_reg(b, 1, &one) || !hb_const_reg(b, at, &step) ||
               !hb_index_step(b, indices[d], one, step, &indices[d]))) {
      return false;
    }
  }
  return hb_element_address(b, op, view_operand, view_type, indices, out_ptr);
}

static uint32_t hb_ordering(const loom_op_t* op) {
  return op->attrs[LOOM_ATTR_ORDERING] >= 0
             ? (uint32_t)op->attrs[LOOM_ATTR_ORDERING]
             : HRX_HOST_ORDER_RELAXED;
}

/*===------------------------------------------------------------------===*/
/* Op lowering                                                             */
/*===------------------------------------------------------------------===*/

static bool hb_lower_region(hb_t* b, uint32_t region);

typedef struct hb_map_t {
  const char* name;
  uint8_t op;
} hb_map_t;

static const hb_map_t hb_arith[] = {
    {"index.add", HRX_HOST_OP_IADD},
    {"index.sub", HRX_HOST_OP_ISUB},
    {"index.mul", HRX_HOST_OP_IMUL},
    {"index.div", HRX_HOST_OP_IDIVS},
    {"index.rem", HRX_HOST_OP_IREMS},
    {"index.min", HRX_HOST_OP_IMINS},
    {"index.max", HRX_HOST_OP_IMAXS},
    {"index.madd", HRX_HOST_OP_IMADD},
    {"index.andi", HRX_HOST_OP_IAND},
    {"index.ori", HRX_HOST_OP_IOR},
    {"index.xori", HRX_HOST_OP_IXOR},
    {"index.shli", HRX_HOST_OP_ISHL},
    {"index.shrui", HRX_HOST_OP_ISHRU},
    {"index.scale", HRX_HOST_OP_IMUL},
    {"scalar.addi", HRX_HOST_OP_IADD},
    {"scalar.subi", HRX_HOST_OP_ISUB},
    {"scalar.muli", HRX_HOST_OP_IMUL},
    {"scalar.divsi", HRX_HOST_OP_IDIVS},
    {"scalar.divui", HRX_HOST_OP_IDIVU},
    {"scalar.remsi", HRX_HOST_OP_IREMS},
    {"scalar.remui", HRX_HOST_OP_IREMU},
    {"scalar.minsi", HRX_HOST_OP_IMINS},
    {"scalar.maxsi", HRX_HOST_OP_IMAXS},
    {"scalar.minui", HRX_HOST_OP_IMINU},
    {"scalar.maxui", HRX_HOST_OP_IMAXU},
    {"scalar.andi", HRX_HOST_OP_IAND},
    {"scalar.ori", HRX_HOST_OP_IOR},
    {"scalar.xori", HRX_HOST_OP_IXOR},
    {"scalar.shli", HRX_HOST_OP_ISHL},
    {"scalar.shrui", HRX_HOST_OP_ISHRU},
    {"scalar.shrsi", HRX_HOST_OP_ISHRS},
    {"scalar.addf", HRX_HOST_OP_FADD},
    {"scalar.subf", HRX_HOST_OP_FSUB},
    {"scalar.mulf", HRX_HOST_OP_FMUL},
    {"scalar.divf", HRX_HOST_OP_FDIV},
    {"scalar.minnumf", HRX_HOST_OP_FMIN},
    {"scalar.maxnumf", HRX_HOST_OP_FMAX},
    {"scalar.fmaf", HRX_HOST_OP_FFMA},
    {"scalar.negf", HRX_HOST_OP_FNEG},
    {"scalar.absf", HRX_HOST_OP_FABS},
    {"scalar.floorf", HRX_HOST_OP_FFLOOR},
    {"scalar.ceilf", HRX_HOST_OP_FCEIL},
    {"scalar.truncf", HRX_HOST_OP_FTRUNC},
    {"scalar.roundevenf", HRX_HOST_OP_FROUNDEVEN},
    {"scalar.sqrtf", HRX_HOST_OP_FSQRT},
    {"scalar.rsqrtf", HRX_HOST_OP_FRSQRT},
    {"scalar.expf", HRX_HOST_OP_FEXP},
    {"scalar.logf", HRX_HOST_OP_FLOG},
    {"scalar.tanhf", HRX_HOST_OP_FTANH},
    {"vector.addf", HRX_HOST_OP_FADD},
    {"vector.subf", HRX_HOST_OP_FSUB},
    {"vector.mulf", HRX_HOST_OP_FMUL},
    {"vector.divf", HRX_HOST_OP_FDIV},
    {"vector.minnumf", HRX_HOST_OP_FMIN},
    {"vector.maxnumf", HRX_HOST_OP_FMAX},
    {"vector.fmaf", HRX_HOST_OP_FFMA},
    {"vector.negf", HRX_HOST_OP_FNEG},
    {"vector.absf", HRX_HOST_OP_FABS},
    {"vector.floorf", HRX_HOST_OP_FFLOOR},
    {"vector.ceilf", HRX_HOST_OP_FCEIL},
    {"vector.truncf", HRX_HOST_OP_FTRUNC},
    {"vector.roundevenf", HRX_HOST_OP_FROUNDEVEN},
    {"vector.sqrtf", HRX_HOST_OP_FSQRT},
    {"vector.expf", HRX_HOST_OP_FEXP},
    {"vector.logf", HRX_HOST_OP_FLOG},
    {"vector.rsqrtf", HRX_HOST_OP_FRSQRT},
    {"vector.tanhf", HRX_HOST_OP_FTANH},
    {"vector.addi", HRX_HOST_OP_IADD},
    {"vector.subi", HRX_HOST_OP_ISUB},
    {"vector.muli", HRX_HOST_OP_IMUL},
    {"vector.divsi", HRX_HOST_OP_IDIVS},
    {"vector.divui", HRX_HOST_OP_IDIVU},
    {"vector.remsi", HRX_HOST_OP_IREMS},
    {"vector.remui", HRX_HOST_OP_IREMU},
    {"vector.minsi", HRX_HOST_OP_IMINS},
    {"vector.maxsi", HRX_HOST_OP_IMAXS},
    {"vector.minui", HRX_HOST_OP_IMINU},
    {"vector.maxui", HRX_HOST_OP_IMAXU},
    {"vector.andi", HRX_HOST_OP_IAND},
    {"vector.ori", HRX_HOST_OP_IOR},
    {"vector.xori", HRX_HOST_OP_IXOR},
    {"vector.shli", HRX_HOST_OP_ISHL},
    {"vector.shrui", HRX_HOST_OP_ISHRU},
    {"vector.shrsi", HRX_HOST_OP_ISHRS},
    {"index.cmp", HRX_HOST_OP_ICMP},
    {"scalar.cmpi", HRX_HOST_OP_ICMP},
    {"scalar.cmpf", HRX_HOST_OP_FCMP},
    {"scf.select", HRX_HOST_OP_SELECT},
};

static const struct {
  const char* name;
  uint8_t kind;
} hb_casts[] = {
    {"scalar.extf", HRX_HOST_CVT_FEXT},     {"scalar.fptrunc", HRX_HOST_CVT_FTRUNC},
    {"scalar.extui", HRX_HOST_CVT_ZEXT},    {"scalar.extsi", HRX_HOST_CVT_SEXT},
    {"scalar.trunci", HRX_HOST_CVT_SEXT},   {"scalar.uitofp", HRX_HOST_CVT_UITOF},
    {"scalar.sitofp", HRX_HOST_CVT_SITOF},  {"scalar.fptoui", HRX_HOST_CVT_FTOUI},
    {"scalar.fptosi", HRX_HOST_CVT_FTOSI},  {"scalar.bitcast", HRX_HOST_CVT_BITCAST},
    {"vector.extf", HRX_HOST_CVT_FEXT},     {"vector.fptrunc", HRX_HOST_CVT_FTRUNC},
    {"vector.extui", HRX_HOST_CVT_ZEXT},    {"vector.extsi", HRX_HOST_CVT_SEXT},
    {"vector.trunci", HRX_HOST_CVT_SEXT},   {"vector.uitofp", HRX_HOST_CVT_UITOF},
    {"vector.sitofp", HRX_HOST_CVT_SITOF},  {"vector.fptoui", HRX_HOST_CVT_FTOUI},
    {"vector.fptosi", HRX_HOST_CVT_FTOSI},
};

/* Folds integer index arithmetic on known operands. */
static bool hb_fold(const hb_t* b, const loom_op_t* op, int64_t* out) {
  int64_t x = 0, y = 0, z = 0;
  if (op->operand_count < 2 || !hb_known(b, op, 0, &x) ||
      !hb_known(b, op, 1, &y)) {
    return false;
  }
  const char* name = hb_op_name(op);
  if (!strcmp(name, "index.add")) return !__builtin_add_overflow(x, y, out);
  if (!strcmp(name, "index.sub")) return !__builtin_sub_overflow(x, y, out);
  if (!strcmp(name, "index.mul") || !strcmp(name, "index.scale")) {
    return !__builtin_mul_overflow(x, y, out);
  }
  if (!strcmp(name, "index.div") && x >= 0 && y > 0) {
    *out = x / y;
    return true;
  }
  if (!strcmp(name, "index.rem") && x >= 0 && y > 0) {
    *out = x % y;
    return true;
  }
  if (!strcmp(name, "index.madd") && hb_known(b, op, 2, &z)) {
    return !__builtin_mul_overflow(x, y, out) &&
           !__builtin_add_overflow(*out, z, out);
  }
  return false;
}

static bool hb_alias(hb_t* b, const loom_op_t* op, uint32_t operand_index);

/* The register of a fact argument; literals become constants. */
static bool hb_ref(hb_t* b, const loom_ref_t* ref, loom_span_t span,
                   uint32_t* out) {
  if (ref->is_static) return hb_const_reg(b, ref->constant, out);
  if (b->vreg[ref->value] == LOOM_NONE) {
    return hb_error(b, span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "a fact argument has no lowering");
  }
  *out = b->vreg[ref->value];
  return true;
}

_Static_assert((int)HRX_HOST_ASSERT_RANGE == (int)LOOM_PRED_RANGE &&
                   (int)HRX_HOST_ASSERT_MUL == (int)LOOM_PRED_MUL &&
                   (int)HRX_HOST_ASSERT_COUNT == (int)LOOM_PRED_COUNT,
               "ASSERT kinds are Loom's predicate kinds");

/* index.assume copies each operand to its result; the value sanitizer
 * also checks each of its facts at run time (an ASSERT per fact). */
static bool hb_lower_assume(hb_t* b, const loom_op_t* op) {
  for (uint32_t i = 0; i < op->result_count; ++i) {
    if (!hb_alias(b, op, i)) return false;
  }
  if (!(b->sanitizers & HRX_LOOM_SANITIZE_VALUE)) return true;
  for (uint32_t p = 0; p < op->pred_count; ++p) {
    const loom_pred_t* pred = &LOOM_PRED(b->m, op->preds_start + p);
    uint32_t args[3] = {LOOM_NONE, LOOM_NONE, LOOM_NONE};
    for (uint32_t a = 0; a < pred->arg_count; ++a) {
      if (!hb_ref(b, &pred->args[a], pred->span, &args[a])) return false;
    }
    static const uint8_t compare[] = {
        [LOOM_PRED_LT] = HRX_HOST_ICMP_SLT, [LOOM_PRED_LE] = HRX_HOST_ICMP_SLE,
        [LOOM_PRED_EQ] = HRX_HOST_ICMP_EQ, [LOOM_PRED_NE] = HRX_HOST_ICMP_NE};
    const uint8_t i64 = HRX_HOST_TYPE_I64;
    uint32_t cond = LOOM_NONE, low = LOOM_NONE, high = LOOM_NONE;
    bool ok = true;
    switch (pred->kind) {
      case LOOM_PRED_RANGE: /* inclusive bounds */
        ok = hb_binary(b, HRX_HOST_OP_ICMP, i64, HRX_HOST_ICMP_SGE, args[0],
                       args[1], &low) &&
             hb_binary(b, HRX_HOST_OP_ICMP, i64, HRX_HOST_ICMP_SLE, args[0],
                       args[2], &high) &&
             hb_binary(b, HRX_HOST_OP_IAND, HRX_HOST_TYPE_I1, 0, low, high,
                       &cond);
        break;
      case LOOM_PRED_MUL: {
        /* A multiple of k; of 0 only 0 is. */
        uint32_t rem = LOOM_NONE, zero = LOOM_NONE;
        ok = hb_const_reg(b, 0, &zero);
        if (ok && pred->args[1].is_static && pred->args[1].constant == 0) {
          rem = args[0];
        } else if (ok) {
          ok = hb_binary(b, HRX_HOST_OP_IREMS, i64, 0, args[0], args[1], &rem);
        }
        ok = ok && hb_binary(b, HRX_HOST_OP_ICMP, i64, HRX_HOST_ICMP_EQ, rem,
                             zero, &cond);
        break;
      }
      default:
        ok = hb_binary(b, HRX_HOST_OP_ICMP, i64, compare[pred->kind], args[0],
                       args[1], &cond);
        break;
    }
    if (!ok || !hb_emit(b, HRX_HOST_OP_ASSERT, i64, (uint8_t)pred->kind,
                        LOOM_NONE, cond, args[0], LOOM_NONE, 0)) {
      return false;
    }
  }
  return true;
}

static bool hb_alias(hb_t* b, const loom_op_t* op, uint32_t operand_index) {
  uint32_t src = 0;
  if (!hb_operand(b, op, operand_index, &src)) return false;
  uint32_t result = op->results_start + operand_index;
  b->vreg[result] = src;
  uint32_t operand = LOOM_OPERAND(b->m, op, operand_index);
  if (!loom_operand_is_static(operand) && b->known[operand]) {
    b->known[result] = 1;
    b->const_value[result] = b->const_value[operand];
  }
  return true;
}

static bool hb_lower_arith(hb_t* b, const loom_op_t* op, const hb_map_t* map) {
  uint32_t result = op->results_start;
  int64_t folded = 0;
  if (hb_fold(b, op, &folded)) {
    b->known[result] = 1;
    b->const_value[result] = folded;
    return hb_new_vreg(b, true, 1, &b->vreg[result]) &&
           hb_const(b, (uint64_t)folded, b->vreg[result]);
  }
  uint32_t regs[3] = {LOOM_NONE, LOOM_NONE, LOOM_NONE};
  for (uint32_t i = 0; i < op->operand_count && i < 3; ++i) {
    if (!hb_operand(b, op, i, &regs[i])) return false;
  }
  uint32_t width = hb_width(b, op->type);
  if (width != 1 && strncmp(map->name, "vector.", 7) != 0) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "%s on vectors is not supported by the host backend",
                    hb_op_name(op));
  }
  if (width != 1) {
    /* Element by element: a vector is |width| consecutive registers. */
    uint8_t type = hb_host_type(LOOM_TYPE(b->m, op->type).element);
    if (!hb_define(b, result, hb_all_scalar(b, regs, 3))) return false;
    for (uint32_t e = 0; e < width; ++e) {
      if (!hb_emit(b, map->op, type, 0, b->vreg[result] + e, regs[0] + e,
                   regs[1] + e, regs[2] == LOOM_NONE ? LOOM_NONE : regs[2] + e,
                   0)) {
        return false;
      }
    }
    return true;
  }
  loom_type_kind_t kind = hb_kind(b, op->type);
  uint8_t code = map->op;
  uint8_t aux = 0;
  if (code == HRX_HOST_OP_ICMP || code == HRX_HOST_OP_FCMP) {
    aux = op->enum_value;
  }
  uint8_t type = hb_host_type(kind);
  if (!strcmp(map->name, "index.scale")) type = HRX_HOST_TYPE_I64;
  if (!hb_define(b, result, hb_all_scalar(b, regs, 3)) ||
      !hb_emit(b, code, type, aux, b->vreg[result], regs[0], regs[1],
               regs[2], 0)) {
    return false;
  }
  /* The operation sanitizer checks index arithmetic for overflow (scalar
   * integers may wrap on purpose: hashes, checksums) and every shift. */
  bool shift = code == HRX_HOST_OP_ISHL || code == HRX_HOST_OP_ISHRU ||
               code == HRX_HOST_OP_ISHRS;
  if ((b->sanitizers & HRX_LOOM_SANITIZE_OPERATION) &&
      hrx_host_op_checkable(code) && (shift || kind == LOOM_TYPE_INDEX)) {
    LOOM_AT(b->insns, hb_insn_t, b->insns.count - 1).insn.flags |=
        HRX_HOST_FLAG_CHECKED;
  }
  return true;
}

static bool hb_lower_cast(hb_t* b, const loom_op_t* op, uint8_t kind) {
  uint32_t src = 0;
  if (!hb_operand(b, op, 0, &src)) return false;
  uint32_t result = op->results_start;
  loom_type_kind_t from = hb_kind(b, op->type), to = hb_kind(b, op->type2);
  uint32_t width = hb_width(b, op->type);
  if (from == LOOM_TYPE_VECTOR) { /* element by element */
    from = LOOM_TYPE(b->m, op->type).element;
    to = LOOM_TYPE(b->m, op->type2).element;
  }
  uint32_t regs[] = {src};
  if (!hb_define(b, result, hb_all_scalar(b, regs, 1))) return false;
  for (uint32_t e = 0; e < width; ++e) {
    if (!hb_emit(b, HRX_HOST_OP_CVT, hb_host_type(to), hb_host_type(from),
                 b->vreg[result] + e, src + e, LOOM_NONE, LOOM_NONE, kind)) {
      return false;
    }
  }
  return true;
}

static bool hb_lower_index_cast(hb_t* b, const loom_op_t* op) {
  loom_type_kind_t from = hb_kind(b, op->type), to = hb_kind(b, op->type2);
  /* Entering index sign-extends (registers already are); entering offset
   * zero-extends; leaving truncates. */
  if (loom_type_is_address(to) && loom_type_is_address(from)) {
    return hb_alias(b, op, 0);
  }
  if (to == LOOM_TYPE_INDEX) return hb_alias(b, op, 0);
  return hb_lower_cast(b, op,
                       to == LOOM_TYPE_OFFSET ? HRX_HOST_CVT_ZEXT
                                              : HRX_HOST_CVT_SEXT);
}

static bool hb_lower_geometry(hb_t* b, const loom_op_t* op) {
  static const struct {
    const char* name;
    uint8_t op;
  } table[] = {{"kernel.workgroup.id", HRX_HOST_OP_WORKGROUP_ID},
               {"kernel.workgroup.size", HRX_HOST_OP_WORKGROUP_SIZE},
               {"kernel.workgroup.count", HRX_HOST_OP_WORKGROUP_COUNT},
               {"kernel.workitem.id", HRX_HOST_OP_WORKITEM_ID},
               {"kernel.subgroup.id", HRX_HOST_OP_SUBGROUP_ID},
               {"kernel.subgroup.lane.id", HRX_HOST_OP_LANE_ID},
               {"kernel.subgroup.size", HRX_HOST_OP_SUBGROUP_SIZE},
               {"target.subgroup.size", HRX_HOST_OP_SUBGROUP_SIZE}};
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); ++i) {
    if (!hb_is(op, table[i].name)) continue;
    uint32_t result = op->results_start;
    uint8_t aux = op->enum_value == LOOM_ENUM_ABSENT ? 0 : op->enum_value;
    return hb_define(b, result, true) &&
           hb_emit(b, table[i].op, HRX_HOST_TYPE_I64, aux, b->vreg[result],
                   LOOM_NONE, LOOM_NONE, LOOM_NONE, 0);
  }
  return false;
}

static bool hb_lower_load(hb_t* b, const loom_op_t* op) {
  uint32_t result = op->results_start;
  const loom_type_t* view = &LOOM_TYPE(b->m, op->type);
  uint8_t type = hb_host_type(view->element);
  uint32_t width = hb_width(b, op->type2);
  bool atomic = hb_is(op, "view.atomic.load");
  uint32_t ptrs[HB_MAX_VECTOR];
  if (width > HB_MAX_VECTOR) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                    "the host backend loads vectors of at most %d elements",
                    HB_MAX_VECTOR);
  }
  for (uint32_t k = 0; k < width; ++k) {
    if (!hb_lane_address(b, op, 0, op->type, op->type2, k, &ptrs[k])) {
      return false;
    }
  }
  if (!hb_define(b, result, hb_all_scalar(b, ptrs, (int)width) && !atomic)) {
    return false;
  }
  for (uint32_t k = 0; k < width; ++k) {
    if (!hb_emit(b, atomic ? HRX_HOST_OP_ATOMIC_LOAD : HRX_HOST_OP_LOAD, type,
                 0, b->vreg[result] + k, ptrs[k], LOOM_NONE, LOOM_NONE,
                 atomic ? hb_ordering(op) : 0)) {
      return false;
    }
  }
  return true;
}

static bool hb_lower_store(hb_t* b, const loom_op_t* op) {
  const loom_type_t* view = &LOOM_TYPE(b->m, op->type2);
  uint8_t type = hb_host_type(view->element);
  uint32_t width = hb_width(b, op->type);
  uint32_t value = 0;
  if (!hb_operand(b, op, 0, &value)) return false;
  bool atomic = hb_is(op, "view.atomic.store");
  bool rmw = hb_is(op, "view.atomic.rmw");
  for (uint32_t k = 0; k < width; ++k) {
    uint32_t ptr = 0;
    if (!hb_lane_address(b, op, 1, op->type2, op->type, k, &ptr)) {
      return false;
    }
    if (rmw) {
      uint32_t result = op->results_start;
      if (!hb_define(b, result, false)) return false;
      return hb_emit(b, HRX_HOST_OP_ATOMIC_RMW, type, op->enum_value,
                     b->vreg[result], ptr, value, LOOM_NONE, hb_ordering(op));
    }
    if (!hb_emit(b, atomic ? HRX_HOST_OP_ATOMIC_STORE : HRX_HOST_OP_STORE,
                 type, 0, LOOM_NONE, ptr, value + k, LOOM_NONE,
                 atomic ? hb_ordering(op) : 0)) {
      return false;
    }
  }
  return true;
}

/* The pointer of lane |lane| of a lane-by-lane access (vector_access.h):
 * the vector's own lane coordinates, or the origin moved along the last
 * view axis by the offsets lane or (expand, compress) by register |count|
 * of active lanes before it; checked as any element access. */
static bool hb_lane_access_address(hb_t* b, const loom_op_t* op,
                                   const loom_lane_access_t* a, uint32_t lane,
                                   uint32_t count, uint32_t* out_ptr) {
  if (a->masked && !a->dense) {
    return hb_lane_address(b, op, a->view, op->type, op->type2, lane,
                           out_ptr);
  }
  uint32_t rank = LOOM_TYPE(b->m, op->type).rank;
  uint32_t indices[8], offsets = 0; /* ranks are at most 8 (the parser's) */
  for (uint32_t d = 0; d < rank; ++d) {
    if (!hb_operand(b, op, a->view + 1 + d, &indices[d])) return false;
  }
  /* Integer registers hold their values sign-extended. */
  if (!a->dense && !hb_operand(b, op, 0, &offsets)) return false;
  return hb_binary(b, HRX_HOST_OP_IADD, HRX_HOST_TYPE_I64, 0,
                   indices[rank - 1], a->dense ? count : offsets + lane,
                   &indices[rank - 1]) &&
         hb_element_address(b, op, a->view, op->type, indices, out_ptr);
}

/* Lane |lane| of a lane-by-lane access; under its mask lane, if any.
 * Expand and compress count the lane in register |count| once done. */
static bool hb_lower_access_lane(hb_t* b, const loom_op_t* op,
                                 const loom_lane_access_t* a, uint32_t lane,
                                 uint32_t count) {
  uint32_t cond = 0;
  if (a->masked && !hb_operand(b, op, 0, &cond)) return false;
  cond += lane;
  bool uniform = !a->masked || hb_scalar(b, cond);
  if (!uniform && !hb_enter_divergent(b, op)) return false;
  uint32_t branch = hb_pos(b);
  uint32_t ptr = 0, data = 0;
  uint8_t type = hb_host_type(LOOM_TYPE(b->m, op->type).element);
  if ((a->masked &&
       !hb_emit(b, uniform ? HRX_HOST_OP_BRZ : HRX_HOST_OP_IF,
                HRX_HOST_TYPE_I1, 0, LOOM_NONE, cond, LOOM_NONE, LOOM_NONE,
                0)) ||
      !hb_lane_access_address(b, op, a, lane, count, &ptr) ||
      (a->data != LOOM_NONE && !hb_operand(b, op, a->data, &data))) {
    return false;
  }
  bool emitted =
      a->load ? hb_emit(b, HRX_HOST_OP_LOAD, type, 0,
                        b->vreg[op->results_start] + lane, ptr, LOOM_NONE,
                        LOOM_NONE, 0)
              : hb_emit(b, HRX_HOST_OP_STORE, type, 0, LOOM_NONE, ptr,
                        data + lane, LOOM_NONE, 0);
  if (!emitted) return false;
  if (a->dense) {
    uint32_t one = 0;
    if (!hb_constant(b, true, 1, &one) ||
        !hb_emit(b, HRX_HOST_OP_IADD, HRX_HOST_TYPE_I64, 0, count, count, one,
                 LOOM_NONE, 0)) {
      return false;
    }
  }
  if (!a->masked) return true;
  hb_patch(b, branch, hb_pos(b));
  if (uniform) return true;
  b->mask_depth--;
  return hb_emit(b, HRX_HOST_OP_ENDIF, 0, 0, LOOM_NONE, LOOM_NONE, LOOM_NONE,
                 LOOM_NONE, 0);
}

/* The lane-by-lane memory ops of vector_access.h, one element access per
 * lane: a lane whose mask lane is off computes no address and touches no
 * memory, and a masked load starts from the passthrough. */
static bool hb_lower_lane_access(hb_t* b, const loom_op_t* op) {
  loom_lane_access_t a = loom_lane_access(op);
  uint32_t width = hb_width(b, op->type2);
  if (width > HB_MAX_VECTOR) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                    "the host backend accesses vectors of at most %d "
                    "elements",
                    HB_MAX_VECTOR);
  }
  if (a.load) {
    uint32_t result = op->results_start, pass = 0;
    if (!hb_define(b, result, false)) return false;
    if (a.masked && !hb_operand(b, op, a.data, &pass)) return false;
    for (uint32_t k = 0; a.masked && k < width; ++k) {
      if (!hb_emit(b, HRX_HOST_OP_MOV, HRX_HOST_TYPE_I64, 0,
                   b->vreg[result] + k, pass + k, LOOM_NONE, LOOM_NONE, 0)) {
        return false;
      }
    }
  }
  /* Expand and compress: the active lanes so far, per lane unless the
   * whole mask is uniform. */
  uint32_t count = LOOM_NONE, mask = 0;
  if (a.dense) {
    if (!hb_operand(b, op, 0, &mask)) return false;
    bool scalar = true;
    for (uint32_t k = 0; k < width; ++k) scalar &= hb_scalar(b, mask + k);
    if (!hb_constant(b, scalar, 0, &count)) return false;
  }
  for (uint32_t k = 0; k < width; ++k) {
    if (!hb_lower_access_lane(b, op, &a, k, count)) return false;
  }
  return true;
}

/* Divergent control saves the execution mask on the wave's mask stack,
 * which holds HRX_HOST_MAX_MASK_DEPTH entries: deeper nesting is a compile
 * error here, never a fault at run time. */
bool hb_enter_divergent(hb_t* b, const loom_op_t* op) {
  if (b->mask_depth == HRX_HOST_MAX_MASK_DEPTH) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                    "%s nests more than %u divergent ifs and loops (the "
                    "host device's mask stack)",
                    hb_op_name(op), HRX_HOST_MAX_MASK_DEPTH);
  }
  b->mask_depth++;
  return true;
}

static bool hb_lower_if(hb_t* b, const loom_op_t* op) {
  uint32_t cond = 0;
  if (!hb_operand(b, op, 0, &cond)) return false;
  /* Result registers are written by each branch's yield. */
  bool uniform = hb_scalar(b, cond);
  for (uint32_t r = 0; r < op->result_count; ++r) {
    if (!hb_define(b, op->results_start + r, uniform)) return false;
  }
  if (!uniform && !hb_enter_divergent(b, op)) return false;
  uint32_t branch = hb_pos(b);
  if (!hb_emit(b, uniform ? HRX_HOST_OP_BRZ : HRX_HOST_OP_IF,
               HRX_HOST_TYPE_I1, 0, LOOM_NONE, cond, LOOM_NONE, LOOM_NONE,
               0) ||
      !hb_lower_region(b, op->regions[0])) {
    return false;
  }
  if (uniform) {
    uint32_t jump = hb_pos(b);
    if (op->has_else &&
        !hb_emit(b, HRX_HOST_OP_JMP, 0, 0, LOOM_NONE, LOOM_NONE, LOOM_NONE,
                 LOOM_NONE, 0)) {
      return false;
    }
    hb_patch(b, branch, hb_pos(b));
    if (op->has_else) {
      if (!hb_lower_region(b, op->regions[1])) return false;
      hb_patch(b, jump, hb_pos(b));
    }
    return true;
  }
  if (op->has_else) {
    uint32_t other = hb_pos(b);
    hb_patch(b, branch, other);
    if (!hb_emit(b, HRX_HOST_OP_ELSE, HRX_HOST_TYPE_I1, 0, LOOM_NONE, cond,
                 LOOM_NONE, LOOM_NONE, 0) ||
        !hb_lower_region(b, op->regions[1])) {
      return false;
    }
    hb_patch(b, other, hb_pos(b));
  } else {
    hb_patch(b, branch, hb_pos(b));
  }
  b->mask_depth--;
  return hb_emit(b, HRX_HOST_OP_ENDIF, 0, 0, LOOM_NONE, LOOM_NONE, LOOM_NONE,
                 LOOM_NONE, 0);
}

/* Copies a terminator's operands into |targets| (parallel copy). */
HB_OUT_OF_LINE static bool hb_copy_values(hb_t* b, const loom_op_t* term, uint32_t first,
                           const uint32_t* targets, uint32_t count) {
  uint32_t sources[64];
  bool overlap = false;
  for (uint32_t k = 0; k < count; ++k) {
    if (!hb_operand(b, term, first + k, &sources[k])) return false;
    for (uint32_t j = 0; j < count; ++j) {
      if (j != k && sources[k] == targets[j]) overlap = true;
    }
  }
  for (uint32_t k = 0; k < count && overlap; ++k) {
    uint32_t temp = 0;
    uint32_t width = hb_width(b, LOOM_VALUE(b->m, LOOM_OPERAND(b->m, term,
                                                                first + k))
                                    .type);
    if (!hb_new_vreg(b, hb_scalar(b, sources[k]), width, &temp) ||
        !hb_mov(b, temp, sources[k], width)) {
      return false;
    }
    sources[k] = temp;
  }
  for (uint32_t k = 0; k < count; ++k) {
    if (hb_scalar(b, targets[k]) && !hb_scalar(b, sources[k])) {
      return hb_error(b, term->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                      "internal: per-lane value flows into a uniform one");
    }
    uint32_t operand = LOOM_OPERAND(b->m, term, first + k);
    uint32_t width = loom_operand_is_static(operand)
                         ? 1 : hb_width(b, LOOM_VALUE(b->m, operand).type);
    if (!hb_mov(b, targets[k], sources[k], width)) return false;
  }
  return true;
}

static bool hb_record_loop(hb_t* b, uint32_t start, uint32_t end) {
  uint32_t at = 0;
  HB_TRY(b, loom_array_grow(&b->loops, b->allocator, sizeof(hb_loop_t), 1,
                            &at));
  LOOM_AT(b->loops, hb_loop_t, at) = (hb_loop_t){start, end};
  return true;
}

/* Starts a loop (scf.for and scf.while alike) and gives the position its
 * back jump returns to: a divergent loop first enters divergence and
 * opens a lane-masked loop (LOOP_BEGIN). */
static bool hb_open_loop(hb_t* b, const loom_op_t* op, bool uniform,
                         uint32_t* head) {
  if (!uniform && (!hb_enter_divergent(b, op) ||
                   !hb_emit(b, HRX_HOST_OP_LOOP_BEGIN, 0, 0, LOOM_NONE,
                            LOOM_NONE, LOOM_NONE, LOOM_NONE, 0))) {
    return false;
  }
  *head = hb_pos(b);
  return true;
}

/* The loop's exit test on |cond| (a branch when the loop is uniform, a
 * lane-mask test when it is divergent), then |region|, the body. */
static bool hb_exit_test_then(hb_t* b, bool uniform, uint32_t cond,
                              uint32_t region, uint32_t* exit_branch) {
  *exit_branch = hb_pos(b);
  return hb_emit(b, uniform ? HRX_HOST_OP_BRZ : HRX_HOST_OP_LOOP_TEST,
                 HRX_HOST_TYPE_I1, 0, LOOM_NONE, cond, LOOM_NONE, LOOM_NONE,
                 0) &&
         hb_lower_region(b, region);
}

/* Ends a loop body: leaves the divergence hb_open_loop entered, jumps
 * back to |head| and points the loop's exit branch past the jump. */
static bool hb_close_loop(hb_t* b, bool uniform, uint32_t head,
                          uint32_t exit_branch) {
  if (!uniform) b->mask_depth--;
  uint32_t back = hb_pos(b);
  if (!hb_emit(b, HRX_HOST_OP_JMP, 0, 0, LOOM_NONE, LOOM_NONE, LOOM_NONE,
               LOOM_NONE, head)) {
    return false;
  }
  hb_patch(b, exit_branch, hb_pos(b));
  return hb_record_loop(b, head, back);
}

/* Gives loop-carried argument |arg| a register (scalar only when the loop
 * and its init are uniform) and copies operand |init_operand| into it. */
static bool hb_carry(hb_t* b, const loom_op_t* op, uint32_t init_operand,
                     uint32_t arg, bool uniform_loop) {
  uint32_t init = 0;
  if (!hb_operand(b, op, init_operand, &init)) return false;
  b->uniform[arg] = b->uniform[arg] && uniform_loop && hb_scalar(b, init);
  uint32_t width = hb_width(b, LOOM_VALUE(b->m, arg).type);
  return hb_new_vreg(b, b->uniform[arg], width, &b->vreg[arg]) &&
         hb_mov(b, b->vreg[arg], init, width);
}

static bool hb_lower_for(hb_t* b, const loom_op_t* op) {
  const loom_module_t* m = b->m;
  const loom_region_t* body = &LOOM_REGION(m, op->regions[0]);
  uint32_t lo = 0, hi = 0, step = 0;
  if (!hb_operand(b, op, 0, &lo) || !hb_operand(b, op, 1, &hi) ||
      !hb_operand(b, op, 2, &step)) {
    return false;
  }
  uint32_t iv_value = body->args_start;
  bool uniform = b->uniform[iv_value] && hb_scalar(b, lo) &&
                 hb_scalar(b, hi) && hb_scalar(b, step);
  b->uniform[iv_value] = uniform;
  if (!hb_new_vreg(b, uniform, 1, &b->vreg[iv_value]) ||
      !hb_mov(b, b->vreg[iv_value], lo, 1)) {
    return false;
  }
  uint32_t iters = body->arg_count - 1;
  for (uint32_t k = 0; k < iters; ++k) {
    uint32_t arg = body->args_start + 1 + k;
    if (!hb_carry(b, op, 3 + k, arg, uniform)) return false;
    if (k < op->result_count) b->vreg[op->results_start + k] = b->vreg[arg];
  }
  uint32_t head = 0;
  if (!hb_open_loop(b, op, uniform, &head)) return false;
  uint32_t test = 0;
  if (!hb_binary(b, HRX_HOST_OP_ICMP, HRX_HOST_TYPE_I64, HRX_HOST_ICMP_SLT,
                 b->vreg[iv_value], hi, &test)) {
    return false;
  }
  uint32_t exit_branch = 0;
  if (!hb_exit_test_then(b, uniform, test, op->regions[0], &exit_branch)) {
    return false;
  }
  const loom_op_t* yield = hb_terminator(b, op->regions[0]);
  if (iters && yield &&
      !hb_copy_values(b, yield, 0, &b->vreg[body->args_start + 1], iters)) {
    return false;
  }
  if (!hb_emit(b, HRX_HOST_OP_IADD, HRX_HOST_TYPE_I64, 0, b->vreg[iv_value],
               b->vreg[iv_value], step, LOOM_NONE, 0)) {
    return false;
  }
  return hb_close_loop(b, uniform, head, exit_branch);
}

static bool hb_lower_while(hb_t* b, const loom_op_t* op) {
  const loom_module_t* m = b->m;
  const loom_region_t* before = &LOOM_REGION(m, op->regions[0]);
  const loom_region_t* after = &LOOM_REGION(m, op->regions[1]);
  const loom_op_t* cond_term = hb_terminator(b, op->regions[0]);
  bool uniform = cond_term && b->uniform[LOOM_OPERAND(m, cond_term, 0)];
  for (uint32_t k = 0; k < before->arg_count; ++k) {
    if (!hb_carry(b, op, k, before->args_start + k, uniform)) return false;
  }
  for (uint32_t k = 0; k < after->arg_count; ++k) {
    uint32_t arg = after->args_start + k;
    b->uniform[arg] = b->uniform[arg] && uniform;
    if (!hb_new_vreg(b, b->uniform[arg], hb_width(b, LOOM_VALUE(m, arg).type),
                     &b->vreg[arg])) {
      return false;
    }
    if (k < op->result_count) b->vreg[op->results_start + k] = b->vreg[arg];
  }
  uint32_t head = 0;
  if (!hb_open_loop(b, op, uniform, &head)) return false;
  if (!hb_lower_region(b, op->regions[0])) return false;
  if (!cond_term) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "scf.while without scf.condition");
  }
  uint32_t cond = 0;
  if (!hb_operand(b, cond_term, 0, &cond) ||
      !hb_copy_values(b, cond_term, 1, &b->vreg[after->args_start],
                      after->arg_count)) {
    return false;
  }
  uint32_t exit_branch = 0;
  if (!hb_exit_test_then(b, uniform, cond, op->regions[1], &exit_branch)) {
    return false;
  }
  const loom_op_t* yield = hb_terminator(b, op->regions[1]);
  if (before->arg_count && yield &&
      !hb_copy_values(b, yield, 0, &b->vreg[before->args_start],
                      before->arg_count)) {
    return false;
  }
  return hb_close_loop(b, uniform, head, exit_branch);
}

/* Inlines a function: parameters alias the arguments; func.return copies
 * into the call's result registers and jumps to the end. */
static bool hb_lower_call(hb_t* b, const loom_op_t* op) {
  const loom_module_t* m = b->m;
  uint32_t index = loom_module_find_func(m, loom_module_string(m, op->symbol));
  const loom_func_t* func = &LOOM_FUNC(m, index);
  if (func->flags & LOOM_FUNC_DECL) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                    "@%s is only declared (func.decl); the host backend "
                    "needs its definition in the module",
                    loom_module_string(m, op->symbol));
  }
  if (b->inline_depth >= HB_MAX_INLINE_DEPTH) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                    "calls nest deeper than %d (recursion?) at @%s",
                    HB_MAX_INLINE_DEPTH, loom_module_string(m, op->symbol));
  }
  const loom_region_t* body = &LOOM_REGION(m, func->body_region);
  for (uint32_t k = 0; k < body->arg_count; ++k) {
    uint32_t arg = 0;
    if (!hb_operand(b, op, k, &arg)) return false;
    b->vreg[body->args_start + k] = arg;
    uint32_t operand = LOOM_OPERAND(m, op, k);
    b->known[body->args_start + k] =
        !loom_operand_is_static(operand) && b->known[operand];
    if (b->known[body->args_start + k]) {
      b->const_value[body->args_start + k] = b->const_value[operand];
    }
  }
  for (uint32_t r = 0; r < op->result_count; ++r) {
    if (!hb_define(b, op->results_start + r, false)) return false;
  }
  uint32_t* saved_returns = b->return_vregs;
  uint32_t saved_jumps = b->return_jumps.count;
  b->return_vregs = &b->vreg[op->results_start];
  b->inline_depth++;
  bool ok = hb_lower_region(b, func->body_region);
  b->inline_depth--;
  b->return_vregs = saved_returns;
  for (uint32_t j = saved_jumps; ok && j < b->return_jumps.count; ++j) {
    hb_patch(b, LOOM_AT(b->return_jumps, uint32_t, j), hb_pos(b));
  }
  b->return_jumps.count = saved_jumps;
  return ok;
}

/* The first lane that the constant indices of |op| from operand |first|
 * select in |vector|: the sum of each index times its axis stride. */
static bool hb_vector_position(hb_t* b, const loom_op_t* op, uint32_t first,
                               loom_type_id_t vector, int64_t* out_lane) {
  int64_t lane = 0;
  for (uint32_t i = first; i < op->operand_count; ++i) {
    int64_t at = 0;
    if (!hb_known(b, op, i, &at)) {
      return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                      "%s needs constant positions on the host backend",
                      hb_op_name(op));
    }
    const loom_type_t* t = &LOOM_TYPE(b->m, vector);
    if (at < 0 || at >= LOOM_DIM(b->m, t->dims_start + i - first).size) {
      return hb_error(b, op->span, HRX_LOOM_DIAG_CONSTANT_RANGE,
                      "%s: position %" PRId64 " is out of bounds",
                      hb_op_name(op), at);
    }
    lane += at * loom_vector_stride(b->m, vector, i - first);
  }
  *out_lane = lane;
  return true;
}

/* Ops without regions (everything but if, for, while and calls). */
HB_OUT_OF_LINE static bool hb_lower_flat_op(hb_t* b, const loom_op_t* op) {
  const loom_module_t* m = b->m;
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  const char* name = def->name;
  uint32_t result = op->result_count ? op->results_start : LOOM_NONE;

  for (size_t i = 0; i < sizeof(hb_arith) / sizeof(hb_arith[0]); ++i) {
    if (!strcmp(name, hb_arith[i].name)) return hb_lower_arith(b, op, &hb_arith[i]);
  }
  if (hb_is_math(op)) return hb_lower_math(b, op);
  if (hb_is_vector_build(op)) return hb_lower_vector_build(b, op);
  if (hb_is_bits(op)) return hb_lower_bits(b, op);
  if (hb_is_extra(op)) return hb_lower_extra(b, op);
  if (loom_is_layout_op(op)) return hb_lower_layout(b, op);
  if (hb_is(op, "vector.bitcast")) return hb_lower_vector_bitcast(b, op);
  if (hb_is_fragment(op)) return hb_lower_fragment(b, op);
  for (size_t i = 0; i < sizeof(hb_casts) / sizeof(hb_casts[0]); ++i) {
    if (!strcmp(name, hb_casts[i].name)) {
      return hb_lower_cast(b, op, hb_casts[i].kind);
    }
  }
  /* Layouts and schemas are compile-time descriptions read by the
   * accesses using them. */
  if (result != LOOM_NONE && loom_type_is_encoding(hb_kind(b, op->type))) {
    return true;
  }
  if (def->shape == LOOM_SHAPE_NULLARY) {
    if (hb_lower_geometry(b, op)) return true;
    if (b->failed || b->status) return false;
  }
  switch (def->shape) {
    case LOOM_SHAPE_CONSTANT: {
      loom_type_kind_t kind = hb_kind(b, op->type);
      if (!loom_type_is_float(kind)) {
        b->known[result] = 1;
        b->const_value[result] = (int64_t)hb_literal_bits(&op->literal, kind);
      }
      return hb_new_vreg(b, true, 1, &b->vreg[result]) &&
             hb_const(b, hb_literal_bits(&op->literal, kind), b->vreg[result]);
    }
    case LOOM_SHAPE_CONFIG_GET: {
      const loom_config_value_t* value =
          loom_specialization_find(b->spec, loom_module_string(m, op->symbol));
      if (!value) {
        return hb_error(b, op->span, HRX_LOOM_DIAG_CONFIG_MISSING,
                        "config @%s has no value",
                        loom_module_string(m, op->symbol));
      }
      if (!loom_type_is_float(value->kind)) {
        b->known[result] = 1;
        b->const_value[result] = (int64_t)value->bits;
      }
      return hb_new_vreg(b, true, 1, &b->vreg[result]) &&
             hb_const(b, value->bits, b->vreg[result]);
    }
    case LOOM_SHAPE_ASSUME:
      return hb_lower_assume(b, op);
    case LOOM_SHAPE_MEMORY_SPACE:
      return hb_alias(b, op, 0);
    case LOOM_SHAPE_NOALIAS:
      for (uint32_t k = 0; k < op->result_count; ++k) {
        uint32_t src = 0;
        if (!hb_operand(b, op, k, &src)) return false;
        b->vreg[op->results_start + k] = src;
      }
      return true;
    case LOOM_SHAPE_CAST:
      return hb_lower_index_cast(b, op);
    case LOOM_SHAPE_BUFFER_VIEW: {
      int64_t offset = 0;
      if (hb_known(b, op, 1, &offset) && offset == 0) return hb_alias(b, op, 0);
      uint32_t base = 0, bytes = 0;
      if (!hb_operand(b, op, 0, &base) || !hb_operand(b, op, 1, &bytes)) {
        return false;
      }
      uint32_t regs[] = {base, bytes};
      return hb_define(b, result, hb_all_scalar(b, regs, 2)) &&
             hb_emit(b, HRX_HOST_OP_PTR_ADD, HRX_HOST_TYPE_I64, 0,
                     b->vreg[result], base, bytes, LOOM_NONE, 1);
    }
    case LOOM_SHAPE_ALLOCA: {
      int64_t bytes = 0;
      const char* space =
          loom_enum_keyword(LOOM_ENUM_MEMORY_SPACE, op->enum_value);
      bool private_space = strcmp(space, "private") == 0;
      if (strcmp(space, "workgroup") != 0 && !private_space) {
        return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                        "the host backend does not support %s allocations "
                        "yet", space);
      }
      if (!hb_known(b, op, 0, &bytes) || bytes < 0) {
        return hb_error(b, op->span, HRX_LOOM_DIAG_LAUNCH_NOT_CONSTANT,
                        "buffer.alloca size must be constant");
      }
      if (private_space) {
        return hb_lower_private_alloca(b, op, (uint64_t)bytes);
      }
      uint64_t align = op->attrs[LOOM_ATTR_ALIGN] > 0
                           ? (uint64_t)op->attrs[LOOM_ATTR_ALIGN] : 16;
      uint64_t start = ((uint64_t)b->local_size + align - 1) & ~(align - 1);
      if (start + (uint64_t)bytes > (64u << 20)) {
        return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                        "workgroup memory exceeds 64 MiB");
      }
      b->local_size = (uint32_t)(start + (uint64_t)bytes);
      return hb_new_vreg(b, true, 1, &b->vreg[result]) &&
             hb_const(b, ((uint64_t)HRX_HOST_SLOT_LOCAL << HRX_HOST_PTR_SHIFT) |
                             start,
                      b->vreg[result]);
    }
    case LOOM_SHAPE_LOAD:
      return hb_lower_load(b, op);
    case LOOM_SHAPE_STORE:
    case LOOM_SHAPE_RMW:
      return hb_lower_store(b, op);
    case LOOM_SHAPE_LANE_LOAD:
    case LOOM_SHAPE_LANE_STORE:
      return hb_lower_lane_access(b, op);
    case LOOM_SHAPE_EXTRACT: {
      /* The lanes left by the leading indices are consecutive
       * registers: the result names them in place. */
      int64_t lane = 0;
      if (!hb_vector_position(b, op, 1, op->type, &lane)) return false;
      uint32_t vector = 0;
      if (!hb_operand(b, op, 0, &vector)) return false;
      b->vreg[result] = vector + (uint32_t)lane;
      return true;
    }
    case LOOM_SHAPE_INSERT: {
      int64_t lane = 0;
      uint32_t value = 0, vector = 0;
      if (!hb_vector_position(b, op, 2, op->type2, &lane) ||
          !hb_operand(b, op, 0, &value) || !hb_operand(b, op, 1, &vector)) {
        return false;
      }
      uint32_t width = hb_width(b, op->type2);
      uint32_t regs[] = {value, vector};
      return hb_define(b, result, hb_all_scalar(b, regs, 2)) &&
             hb_mov(b, b->vreg[result], vector, width) &&
             hb_mov(b, b->vreg[result] + (uint32_t)lane, value,
                    hb_width(b, op->type));
    }
    case LOOM_SHAPE_SPLAT: {
      uint32_t scalar = 0;
      if (!hb_operand(b, op, 0, &scalar)) return false;
      uint32_t width = hb_width(b, op->type);
      uint32_t regs[] = {scalar};
      if (!hb_define(b, result, hb_all_scalar(b, regs, 1))) return false;
      for (uint32_t k = 0; k < width; ++k) {
        if (!hb_emit(b, HRX_HOST_OP_MOV, HRX_HOST_TYPE_I64, 0,
                     b->vreg[result] + k, scalar, LOOM_NONE, LOOM_NONE, 0)) {
          return false;
        }
      }
      return true;
    }
    case LOOM_SHAPE_SHUFFLE: {
      if (hb_width(b, op->type) != 1) {
        return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                        "vector shuffles are not supported yet");
      }
      uint32_t regs[3];
      for (uint32_t i = 0; i < 3; ++i) {
        if (!hb_operand(b, op, i, &regs[i])) return false;
      }
      return hb_define(b, result, false) &&
             hb_define(b, result + 1, false) &&
             hb_emit(b, HRX_HOST_OP_SHUFFLE, hb_host_type(hb_kind(b, op->type)),
                     op->enum_value, b->vreg[result], regs[0], regs[1],
                     regs[2], 0) &&
             hb_emit(b, HRX_HOST_OP_SHUFFLE_OK, HRX_HOST_TYPE_I1,
                     op->enum_value, b->vreg[result + 1], regs[0], regs[1],
                     regs[2], 0);
    }
    case LOOM_SHAPE_VECTOR_REDUCE: {
      /* init <k> v[0] <k> v[1] ..., one COMBINE per element. */
      uint32_t vector = 0, acc = 0;
      if (!hb_operand(b, op, 0, &vector) || !hb_operand(b, op, 1, &acc)) {
        return false;
      }
      uint8_t type = hb_host_type(hb_kind(b, op->type2));
      uint32_t width = hb_width(b, op->type);
      for (uint32_t e = 0; e < width; ++e) {
        uint32_t regs[] = {acc, vector + e};
        uint32_t next = LOOM_NONE;
        if (e + 1 == width) {
          if (!hb_define(b, result, hb_all_scalar(b, regs, 2))) return false;
          next = b->vreg[result];
        } else if (!hb_new_vreg(b, hb_all_scalar(b, regs, 2), 1, &next)) {
          return false;
        }
        if (!hb_emit(b, HRX_HOST_OP_COMBINE, type, op->enum_value, next, acc,
                     vector + e, LOOM_NONE, 0)) {
          return false;
        }
        acc = next;
      }
      return true;
    }
    case LOOM_SHAPE_REDUCE_AXES: {
      /* Each result lane: its init lane <k> its source lanes in order. */
      uint32_t vector = 0, init = 0;
      if (!hb_operand(b, op, 0, &vector) || !hb_operand(b, op, 1, &init)) {
        return false;
      }
      uint32_t regs[] = {vector, init};
      if (!hb_define(b, result, hb_all_scalar(b, regs, 2))) return false;
      bool lanes = LOOM_TYPE(m, op->type2).kind == LOOM_TYPE_VECTOR;
      uint8_t type = hb_host_type(LOOM_TYPE(m, op->type).element);
      uint32_t count = loom_reduce_axes_count(m, op);
      for (uint32_t r = 0; r < hb_width(b, op->type2); ++r) {
        uint32_t acc = init + (lanes ? r : 0);
        for (uint32_t j = 0; j < count; ++j) {
          uint32_t from = vector + loom_reduce_axes_lane(m, op, r, j);
          uint32_t pair[] = {acc, from};
          uint32_t next = b->vreg[result] + r;
          if (j + 1 < count &&
              !hb_new_vreg(b, hb_all_scalar(b, pair, 2), 1, &next)) {
            return false;
          }
          if (!hb_emit(b, HRX_HOST_OP_COMBINE, type, op->enum_value, next,
                       acc, from, LOOM_NONE, 0)) {
            return false;
          }
          acc = next;
        }
      }
      return true;
    }
    case LOOM_SHAPE_REDUCE: {
      if (hb_is(op, "kernel.workgroup.reduce")) {
        return hb_lower_workgroup_reduce(b, op);
      }
      uint32_t src = 0;
      if (!hb_operand(b, op, 0, &src)) return false;
      uint32_t cluster = op->attrs[LOOM_ATTR_CLUSTER_SIZE] > 0
                             ? (uint32_t)op->attrs[LOOM_ATTR_CLUSTER_SIZE] : 0;
      return hb_define(b, result, false) &&
             hb_emit(b, HRX_HOST_OP_REDUCE, hb_host_type(hb_kind(b, op->type)),
                     op->enum_value, b->vreg[result], src, LOOM_NONE,
                     LOOM_NONE, cluster);
    }
    case LOOM_SHAPE_SYNC:
      if (hb_is(op, "kernel.barrier")) {
        return hb_emit(b, HRX_HOST_OP_BARRIER, 0, 0, LOOM_NONE, LOOM_NONE,
                       LOOM_NONE, LOOM_NONE, 0);
      }
      return hb_emit(b, HRX_HOST_OP_FENCE, 0, 0, LOOM_NONE, LOOM_NONE,
                     LOOM_NONE, LOOM_NONE, hb_ordering(op));
    case LOOM_SHAPE_TERMINATOR: {
      loom_term_t term = (loom_term_t)def->terminator;
      if (term == LOOM_TERM_KERNEL_RETURN) {
        return hb_emit(b, HRX_HOST_OP_RET, 0, 0, LOOM_NONE, LOOM_NONE,
                       LOOM_NONE, LOOM_NONE, 0);
      }
      if (term == LOOM_TERM_FUNC_RETURN) {
        if (op->operand_count &&
            !hb_copy_values(b, op, 0, b->return_vregs, op->operand_count)) {
          return false;
        }
        /* A return that is not the body's last op jumps to the end. */
        uint32_t at = 0;
        HB_TRY(b, loom_array_grow(&b->return_jumps, b->allocator,
                                  sizeof(uint32_t), 1, &at));
        LOOM_AT(b->return_jumps, uint32_t, at) = hb_pos(b);
        return hb_emit(b, HRX_HOST_OP_JMP, 0, 0, LOOM_NONE, LOOM_NONE,
                       LOOM_NONE, LOOM_NONE, 0);
      }
      /* scf.yield / scf.condition are copied by their parent op. */
      return true;
    }
    default:
      break;
  }
  return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_UNSUPPORTED,
                  "%s is not supported by the host backend yet", name);
}

/* Lowering recurses once per nesting level, through here and the region
 * ops; everything else runs out of line, so a level costs a few hundred
 * bytes of stack and the deepest nesting the parser accepts compiles on an
 * ordinary thread stack. */
static bool hb_lower_op(hb_t* b, uint32_t op_id) {
  const loom_op_t* op = &LOOM_OP(b->m, op_id);
  if (loom_op_has_dynamic_vector(b->m, op)) {
    bool done = false;
    if (!hb_lower_dynamic(b, op, &done)) return false;
    if (done) return true;
  }
  switch (loom_op_defs[op->opcode].shape) {
    case LOOM_SHAPE_IF: return hb_lower_if(b, op);
    case LOOM_SHAPE_FOR: return hb_lower_for(b, op);
    case LOOM_SHAPE_WHILE: return hb_lower_while(b, op);
    case LOOM_SHAPE_CALL: return hb_lower_call(b, op);
    default: return hb_lower_flat_op(b, op);
  }
}

/* Lowers a region; yields of scf.if copy into the parent's results. */
static bool hb_lower_region(hb_t* b, uint32_t region_id) {
  const loom_module_t* m = b->m;
  const loom_region_t* region = &LOOM_REGION(m, region_id);
  for (uint32_t i = 0; i < region->op_count; ++i) {
    if (!hb_lower_op(b, LOOM_REGION_OP(m, region, i))) return false;
  }
  if (region->parent_op != LOOM_NONE) {
    const loom_op_t* parent = &LOOM_OP(m, region->parent_op);
    const loom_op_t* yield = hb_terminator(b, region_id);
    if (loom_op_defs[parent->opcode].shape == LOOM_SHAPE_IF && yield &&
        parent->result_count) {
      return hb_copy_values(b, yield, 0, &b->vreg[parent->results_start],
                            parent->result_count);
    }
  }
  return true;
}

/*===------------------------------------------------------------------===*/
/* Register allocation                                                     */
/*===------------------------------------------------------------------===*/

static void hb_touch(hb_t* b, uint32_t vreg, uint32_t pos) {
  if (vreg == LOOM_NONE) return;
  hb_vreg_t* group = &LOOM_AT(b->vregs, hb_vreg_t,
                              LOOM_AT(b->vregs, hb_vreg_t, vreg).group);
  if (group->first == LOOM_NONE || pos < group->first) group->first = pos;
  if (pos > group->last) group->last = pos;
}

static int hb_compare_start(const void* x, const void* y, void* context) {
  const hb_t* b = context;
  const hb_vreg_t* a = &LOOM_AT(b->vregs, hb_vreg_t, *(const uint32_t*)x);
  const hb_vreg_t* c = &LOOM_AT(b->vregs, hb_vreg_t, *(const uint32_t*)y);
  return (a->first > c->first) - (a->first < c->first);
}

/* Linear scan over register groups of one file; |out_count| is the number
 * of physical registers used. */
static bool hb_allocate_file(hb_t* b, bool scalar, uint32_t* out_count) {
  uint32_t* order = NULL;
  uint32_t n = 0;
  HB_TRY(b, hrx_allocator_malloc_array(b->allocator,
                                       b->vregs.count ? b->vregs.count : 1,
                                       sizeof(uint32_t), (void**)&order));
  for (uint32_t v = 0; v < b->vregs.count; ++v) {
    const hb_vreg_t* r = &LOOM_AT(b->vregs, hb_vreg_t, v);
    if (r->group == v && r->scalar == scalar && r->first != LOOM_NONE) {
      order[n++] = v;
    }
  }
  qsort_r(order, n, sizeof(uint32_t), hb_compare_start, b);
  /* busy_until[p]: position after which physical register p is free. */
  uint32_t busy_until[HRX_HOST_MAX_REGISTERS];
  uint8_t used[HRX_HOST_MAX_REGISTERS];
  memset(used, 0, sizeof(used));
  uint32_t count = 0;
  bool ok = true;
  for (uint32_t i = 0; i < n && ok; ++i) {
    hb_vreg_t* r = &LOOM_AT(b->vregs, hb_vreg_t, order[i]);
    uint32_t width = r->width;
    uint32_t found = LOOM_NONE;
    for (uint32_t p = 0; p + width <= HRX_HOST_MAX_REGISTERS; ++p) {
      bool free_run = true;
      for (uint32_t k = 0; k < width && free_run; ++k) {
        free_run = !used[p + k] || busy_until[p + k] < r->first;
      }
      if (free_run) {
        found = p;
        break;
      }
    }
    if (found == LOOM_NONE) {
      ok = hb_error(b, b->kernel_span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                    "kernel needs more than %u %s registers",
                    HRX_HOST_MAX_REGISTERS, scalar ? "scalar" : "vector");
      break;
    }
    for (uint32_t k = 0; k < width; ++k) {
      used[found + k] = 1;
      busy_until[found + k] = r->last;
      LOOM_AT(b->vregs, hb_vreg_t, order[i] + k).phys = found + k;
    }
    if (found + width > count) count = found + width;
  }
  hrx_allocator_free(b->allocator, order);
  *out_count = count;
  return ok;
}

static bool hb_allocate(hb_t* b, uint32_t* out_sregs, uint32_t* out_vregs) {
  for (uint32_t pos = 0; pos < b->insns.count; ++pos) {
    const hb_insn_t* x = &LOOM_AT(b->insns, hb_insn_t, pos);
    hb_touch(b, x->dst, pos);
    hb_touch(b, x->a, pos);
    hb_touch(b, x->b, pos);
    hb_touch(b, x->c, pos);
  }
  /* A value live into a loop stays live until the loop's back edge, since
   * the next iteration reads it again. Inner loops first, then outer. */
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t l = 0; l < b->loops.count; ++l) {
      const hb_loop_t* loop = &LOOM_AT(b->loops, hb_loop_t, l);
      for (uint32_t v = 0; v < b->vregs.count; ++v) {
        hb_vreg_t* r = &LOOM_AT(b->vregs, hb_vreg_t, v);
        if (r->group != v || r->first == LOOM_NONE) continue;
        if (r->first < loop->start && r->last >= loop->start &&
            r->last < loop->end) {
          r->last = loop->end;
          changed = true;
        }
      }
    }
  }
  return hb_allocate_file(b, true, out_sregs) &&
         hb_allocate_file(b, false, out_vregs);
}

/*===------------------------------------------------------------------===*/
/* Code object                                                             */
/*===------------------------------------------------------------------===*/

static uint16_t hb_phys(const hb_t* b, uint32_t vreg) {
  return vreg == LOOM_NONE ? 0
                           : (uint16_t)LOOM_AT(b->vregs, hb_vreg_t, vreg).phys;
}

/* Lowers and appends one kernel to the code object. */
static bool hb_kernel(hb_t* b, uint32_t kernel_index,
                      const hrx_loom_profile_t* profile,
                      hrx_string_builder_t* out) {
  const loom_module_t* m = b->m;
  const loom_kernel_t* kernel = &LOOM_KERNEL(m, kernel_index);
  const loom_region_t* body = &LOOM_REGION(m, kernel->body_region);
  size_t values = m->values.count ? m->values.count : 1;
  memset(b->uniform, 0, values);
  memset(b->analyzed, 0, values);
  memset(b->known, 0, values);
  for (size_t v = 0; v < values; ++v) b->vreg[v] = LOOM_NONE;
  b->vregs.count = 0;
  b->insns.count = 0;
  b->consts.count = 0;
  b->loops.count = 0;
  b->local_size = 0;
  b->private_size = 0;
  b->mask_depth = 0;
  b->kernel_span = kernel->span;
  b->subgroup_size =
      kernel->target != LOOM_NONE && LOOM_TARGET(m, kernel->target).subgroup_size
          ? (uint32_t)LOOM_TARGET(m, kernel->target).subgroup_size
          : profile->subgroup_size;

  /* Launch arguments: scalars and buffer bindings, uniform by nature. */
  uint32_t kernarg = 0, buffers = 0;
  uint32_t arg_offsets[256];
  if (body->arg_count > 256) {
    return hb_error(b, kernel->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                    "more than 256 launch arguments");
  }
  for (uint32_t a = 0; a < body->arg_count; ++a) {
    uint32_t value = body->args_start + a;
    loom_type_kind_t kind = hb_kind(b, LOOM_VALUE(m, value).type);
    uint32_t size = kind == LOOM_TYPE_BUFFER ? 8 : hb_kind_bytes(kind);
    kernarg = (kernarg + size - 1) & ~(size - 1);
    arg_offsets[a] = kernarg;
    kernarg += size;
    b->uniform[value] = 1;
    if (!hb_new_vreg(b, true, 1, &b->vreg[value])) return false;
    if (kind == LOOM_TYPE_BUFFER) {
      if (!hb_emit(b, HRX_HOST_OP_BINDING, HRX_HOST_TYPE_I64, 0,
                   b->vreg[value], LOOM_NONE, LOOM_NONE, LOOM_NONE,
                   buffers++)) {
        return false;
      }
    } else if (!hb_emit(b, HRX_HOST_OP_ARG, hb_host_type(kind), 0,
                        b->vreg[value], LOOM_NONE, LOOM_NONE, LOOM_NONE,
                        arg_offsets[a])) {
      return false;
    }
  }
  /* Function bodies are analysed as per-lane; kernel bodies precisely. */
  hb_analyze_region(b, kernel->body_region);
  if (!hb_lower_region(b, kernel->body_region)) return false;
  if (b->insns.count == 0 ||
      LOOM_AT(b->insns, hb_insn_t, b->insns.count - 1).insn.op !=
          HRX_HOST_OP_RET) {
    if (!hb_emit(b, HRX_HOST_OP_RET, 0, 0, LOOM_NONE, LOOM_NONE, LOOM_NONE,
                 LOOM_NONE, 0)) {
      return false;
    }
  }
  uint32_t sregs = 0, vregs = 0;
  if (!hb_allocate(b, &sregs, &vregs)) return false;

  /* The launch program travels with the kernel. */
  hrx_loom_launch_program_t* program = NULL;
  hrx_status_t status = hrx_loom_launch_program_build(
      m, kernel_index, b->spec, profile, b->diagnostics, b->allocator,
      &program);
  uint8_t* launch = NULL;
  size_t launch_length = 0;
  if (status == HRX_OK) {
    status = hrx_loom_launch_program_serialize(program, b->allocator, &launch,
                                               &launch_length);
  }
  hrx_loom_launch_program_destroy(program);
  if (status != HRX_OK) {
    if (hrx_status_is(status, HRX_STATUS_INVALID_ARGUMENT)) {
      hrx_status_free(status);
      b->failed = true;
      return false;
    }
    HB_TRY(b, status);
  }

  const char* name = loom_module_string(
      m, kernel->export_name != LOOM_NONE ? kernel->export_name
                                          : kernel->symbol);
  uint32_t subgroup = b->subgroup_size;
  hrx_status_t w = loom_append_le(out, strlen(name), 4);
  if (w == HRX_OK) w = hrx_string_builder_append(out, name, strlen(name));
  uint32_t header[HRX_HOST_KERNEL_HEADER_WORDS] = {
      subgroup, sregs, vregs, b->local_size, b->private_size, b->kernel_flags,
      kernarg, body->arg_count};
  for (size_t i = 0; i < HRX_HOST_KERNEL_HEADER_WORDS && w == HRX_OK; ++i) {
    w = loom_append_le(out, header[i], 4);
  }
  for (uint32_t a = 0; a < body->arg_count && w == HRX_OK; ++a) {
    loom_type_kind_t kind =
        hb_kind(b, LOOM_VALUE(m, body->args_start + a).type);
    w = loom_append_le(out,
                       kind == LOOM_TYPE_BUFFER ? HRX_HOST_ARG_BUFFER
                                                : HRX_HOST_ARG_SCALAR,
                       1);
    if (w == HRX_OK) w = loom_append_le(out, hb_host_type(kind), 1);
    if (w == HRX_OK) w = loom_append_le(out, 0, 2);
    if (w == HRX_OK) w = loom_append_le(out, arg_offsets[a], 4);
  }
  if (w == HRX_OK) w = loom_append_le(out, b->consts.count, 4);
  for (uint32_t i = 0; i < b->consts.count && w == HRX_OK; ++i) {
    w = loom_append_le(out, LOOM_AT(b->consts, uint64_t, i), 8);
  }
  if (w == HRX_OK) w = loom_append_le(out, b->insns.count, 4);
  for (uint32_t pos = 0; pos < b->insns.count && w == HRX_OK; ++pos) {
    const hb_insn_t* x = &LOOM_AT(b->insns, hb_insn_t, pos);
    uint8_t bytes[16];
    uint8_t* c = bytes;
    hrx_put_le(&c, x->insn.op, 1);
    hrx_put_le(&c, x->insn.type, 1);
    hrx_put_le(&c, x->insn.flags, 1);
    hrx_put_le(&c, x->insn.aux, 1);
    hrx_put_le(&c, hb_phys(b, x->dst), 2);
    hrx_put_le(&c, hb_phys(b, x->a), 2);
    hrx_put_le(&c, hb_phys(b, x->b), 2);
    hrx_put_le(&c, hb_phys(b, x->c), 2);
    hrx_put_le(&c, x->insn.imm, 4);
    w = hrx_string_builder_append(out, bytes, sizeof(bytes));
  }
  if (w == HRX_OK) w = loom_append_le(out, launch_length, 4);
  if (w == HRX_OK) w = hrx_string_builder_append(out, launch, launch_length);
  hrx_allocator_free(b->allocator, launch);
  HB_TRY(b, w);
  return true;
}

hrx_status_t hrx_loom_compile_host(
    const hrx_loom_module_t* module,
    const hrx_loom_specialization_t* specialization,
    const hrx_loom_profile_t* profile,
    const hrx_loom_host_options_t* caller_options,
    hrx_loom_diagnostics_t* diagnostics, hrx_allocator_t allocator,
    uint8_t** out_code_object, size_t* out_length) {
  *out_code_object = NULL;
  *out_length = 0;
  hrx_loom_host_options_t local_options;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_loom_host_options_t, sanitizers,
                                      caller_options, &local_options));
  const hrx_loom_host_options_t* options = &local_options;
  if (!profile) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "host compilation needs a profile");
  }
  if (module->kernels.count == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "module has no kernels to compile");
  }
  hrx_loom_diagnostics_t* own = NULL;
  size_t errors_before = 0;
  HRX_RETURN_IF_ERROR(
      loom_diag_begin(&diagnostics, allocator, &own, &errors_before));
  if (!loom_module_targets_compile(module, profile->name, diagnostics)) {
    hrx_status_t refused =
        loom_diag_result(diagnostics, errors_before, "host compilation");
    hrx_loom_diagnostics_destroy(own);
    return refused;
  }
  hb_t b = {.m = module, .spec = specialization, .diagnostics = diagnostics,
            .allocator = allocator,
            .sanitizers = options ? options->sanitizers : 0};
  if (b.sanitizers & HRX_LOOM_SANITIZE_RACE) {
    b.kernel_flags |= HRX_HOST_KERNEL_RACE_CHECK;
  }
  size_t values = module->values.count ? module->values.count : 1;
  hrx_status_t status =
      hrx_allocator_malloc(allocator, values, (void**)&b.uniform);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc(allocator, values, (void**)&b.analyzed);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc(allocator, values, (void**)&b.known);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(allocator, values, sizeof(uint32_t),
                                        (void**)&b.vreg);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(allocator, values, sizeof(int64_t),
                                        (void**)&b.const_value);
  }
  hrx_string_builder_t out;
  hrx_string_builder_init(allocator, &out);
  if (status == HRX_OK) {
    status = hrx_string_builder_append(&out, HRX_HOST_CODE_MAGIC, 4);
  }
  if (status == HRX_OK) {
    status = loom_append_le(&out, HRX_HOST_CODE_VERSION, 4);
  }
  if (status == HRX_OK) {
    status = loom_append_le(&out, module->kernels.count, 4);
  }
  for (uint32_t k = 0; k < module->kernels.count && status == HRX_OK; ++k) {
    if (!hb_kernel(&b, k, profile, &out)) {
      status = b.status;
      b.status = HRX_OK;
      if (status == HRX_OK) {
        status = loom_diag_result(diagnostics, errors_before,
                                  "host compilation");
        if (status == HRX_OK) {
          status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                                   "host compilation failed");
        }
      }
    }
  }
  if (status == HRX_OK) {
    /* Native code beside the bytecode (host_native.c); nothing without
     * LLVM. */
    extern hrx_status_t loom_host_native_append(
        const loom_module_t*, const hrx_loom_specialization_t*,
        const hrx_loom_profile_t*, const hrx_loom_host_options_t*,
        hrx_allocator_t, hrx_string_builder_t*);
    status = loom_host_native_append(module, specialization, profile, options,
                                     allocator, &out);
  }
  if (status == HRX_OK) {
    hrx_sha256_digest_t digest;
    hrx_sha256(out.data, out.length, &digest);
    status = hrx_string_builder_append(&out, digest.bytes,
                                       sizeof(digest.bytes));
  }
  if (status == HRX_OK) {
    size_t length = 0;
    status = hrx_string_builder_take(&out, (char**)out_code_object, &length);
    *out_length = length;
  }
  hrx_string_builder_deinit(&out);
  hrx_allocator_free(allocator, b.uniform);
  hrx_allocator_free(allocator, b.analyzed);
  hrx_allocator_free(allocator, b.known);
  hrx_allocator_free(allocator, b.vreg);
  hrx_allocator_free(allocator, b.const_value);
  loom_array_free(&b.vregs, allocator);
  loom_array_free(&b.insns, allocator);
  loom_array_free(&b.consts, allocator);
  loom_array_free(&b.loops, allocator);
  loom_array_free(&b.return_jumps, allocator);
  hrx_loom_diagnostics_destroy(own);
  return status;
}
