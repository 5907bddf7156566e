/* Launch programs: lowering, evaluation and the serialised form. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "hrx/core/bytes.h"
#include "hrx/loom/launch_program.h"
#include "op_table.h"

/* Register-machine opcodes. Values are int64 (index semantics). */
typedef enum loom_lp_opcode_e {
  LOOM_LP_CONST = 0, /* dst = imm */
  LOOM_LP_ARG,       /* dst = workload[imm] */
  LOOM_LP_ADD,
  LOOM_LP_SUB,
  LOOM_LP_MUL,
  LOOM_LP_DIV,
  LOOM_LP_REM,
  LOOM_LP_MIN,
  LOOM_LP_MAX,
  LOOM_LP_MADD,      /* dst = a * b + c */
  LOOM_LP_AND,
  LOOM_LP_OR,
  LOOM_LP_XOR,
  LOOM_LP_SHL,
  LOOM_LP_SHRU,
  LOOM_LP_CMP,       /* dst = a <pred imm> b */
  LOOM_LP_SELECT,    /* dst = a ? b : c */
  LOOM_LP_SEXT,      /* dst = sign-extend low imm bits of a */
  LOOM_LP_ZEXT,      /* dst = zero-extend low imm bits of a */
  LOOM_LP_ASSERT,    /* fact imm (loom_pred_kind_t) over a, b, c */
  LOOM_LP_OPCODE_COUNT,
} loom_lp_opcode_t;

typedef struct loom_lp_insn_t {
  uint8_t op;
  uint16_t dst, a, b, c;
  int64_t imm;
} loom_lp_insn_t;

#define LOOM_LP_MAX_REGISTERS 1024u
#define LOOM_LP_MAX_INSNS 65536u
#define LOOM_LP_MAGIC "HXLP"
#define LOOM_LP_VERSION 1u

struct hrx_loom_launch_program_s {
  hrx_allocator_t allocator;
  char* symbol;
  uint32_t workload_count;
  uint32_t register_count;
  uint32_t insn_count;
  uint32_t insn_capacity;
  loom_lp_insn_t* insns;
  uint16_t launch_regs[9]; /* workgroups xyz, sizes xyz, cluster xyz */
  uint32_t subgroup_size;
  uint64_t workgroup_storage;
  uint64_t private_storage;
  uint32_t max_workgroup_size;
  uint32_t max_workgroup_count;
  uint64_t max_workgroup_storage;
};

hrx_loom_profile_t hrx_loom_profile_host(void) {
  return (hrx_loom_profile_t){.name = "host",
                              .subgroup_size = 32,
                              .max_workgroup_size = 1024,
                              .max_workgroup_count = UINT32_MAX,
                              .max_workgroup_storage = 64u << 10};
}

hrx_loom_profile_t hrx_loom_profile_gfx1151(void) {
  return (hrx_loom_profile_t){.name = "gfx1151",
                              .subgroup_size = 32,
                              .max_workgroup_size = 1024,
                              .max_workgroup_count = UINT32_MAX,
                              .max_workgroup_storage = 64u << 10};
}

void hrx_loom_launch_program_destroy(hrx_loom_launch_program_t* program) {
  if (!program) return;
  hrx_allocator_free(program->allocator, program->insns);
  hrx_allocator_free(program->allocator, program->symbol);
  hrx_allocator_free(program->allocator, program);
}

const char* hrx_loom_launch_program_symbol(
    const hrx_loom_launch_program_t* program) {
  return program->symbol;
}

size_t hrx_loom_launch_program_workload_count(
    const hrx_loom_launch_program_t* program) {
  return program->workload_count;
}

/*===------------------------------------------------------------------===*/
/* Lowering                                                                */
/*===------------------------------------------------------------------===*/

typedef struct loom_lp_builder_t {
  const loom_module_t* module;
  const hrx_loom_specialization_t* spec;
  hrx_loom_diagnostics_t* diagnostics;
  hrx_loom_launch_program_t* program;
  uint32_t* reg_of; /* value id -> register, LOOM_NONE */
  hrx_status_t status;
} loom_lp_builder_t;

static void loom_lp_unsupported(loom_lp_builder_t* b, loom_span_t span,
                                hrx_loom_diag_code_t code, const char* what) {
  loom_diag_emit(b->diagnostics, &b->module->source, span,
                 HRX_LOOM_SEVERITY_ERROR, code, NULL, 0, "%s", what);
}

static bool loom_lp_new_reg(loom_lp_builder_t* b, uint16_t* out) {
  if (b->program->register_count >= LOOM_LP_MAX_REGISTERS) {
    loom_lp_unsupported(b, LOOM_NO_SPAN, HRX_LOOM_DIAG_LAUNCH_UNSUPPORTED,
                        "launch-config region needs more than 1024 values");
    return false;
  }
  *out = (uint16_t)b->program->register_count++;
  return true;
}

static bool loom_lp_emit(loom_lp_builder_t* b, loom_lp_insn_t insn) {
  hrx_loom_launch_program_t* p = b->program;
  if (p->insn_count == LOOM_LP_MAX_INSNS) {
    loom_lp_unsupported(b, LOOM_NO_SPAN, HRX_LOOM_DIAG_LAUNCH_UNSUPPORTED,
                        "launch-config region is too large");
    return false;
  }
  if (p->insn_count == p->insn_capacity) {
    uint32_t capacity = p->insn_capacity ? p->insn_capacity * 2 : 32;
    void* insns = p->insns;
    hrx_status_t status = hrx_allocator_realloc(
        p->allocator, capacity * sizeof(loom_lp_insn_t), &insns);
    if (status != HRX_OK) {
      b->status = status;
      return false;
    }
    p->insns = insns;
    p->insn_capacity = capacity;
  }
  p->insns[p->insn_count++] = insn;
  return true;
}

static bool loom_lp_const(loom_lp_builder_t* b, int64_t value, uint16_t* out) {
  return loom_lp_new_reg(b, out) &&
         loom_lp_emit(b, (loom_lp_insn_t){.op = LOOM_LP_CONST, .dst = *out,
                                          .imm = value});
}

static bool loom_lp_operand(loom_lp_builder_t* b, const loom_op_t* op,
                            uint32_t i, uint16_t* out) {
  uint32_t operand = LOOM_OPERAND(b->module, op, i);
  if (loom_operand_is_static(operand)) {
    return loom_lp_const(b, LOOM_STATIC(b->module, operand), out);
  }
  uint32_t reg = b->reg_of[operand];
  if (reg == LOOM_NONE) {
    loom_lp_unsupported(b, op->span, HRX_LOOM_DIAG_LAUNCH_UNSUPPORTED,
                        "operand is not computable in a launch program");
    return false;
  }
  *out = (uint16_t)reg;
  return true;
}

static bool loom_lp_ref(loom_lp_builder_t* b, const loom_ref_t* ref,
                        loom_span_t span, uint16_t* out) {
  if (ref->is_static) return loom_lp_const(b, ref->constant, out);
  uint32_t reg = b->reg_of[ref->value];
  if (reg == LOOM_NONE) {
    loom_lp_unsupported(b, span, HRX_LOOM_DIAG_LAUNCH_UNSUPPORTED,
                        "fact operand is not computable in a launch program");
    return false;
  }
  *out = (uint16_t)reg;
  return true;
}

/* Integers narrower than 64 bits are kept sign-extended in registers. */
static bool loom_lp_narrow(loom_lp_builder_t* b, loom_type_kind_t kind,
                           uint16_t reg, uint16_t* out) {
  uint32_t bits = loom_type_bit_width(kind);
  if (bits >= 64) {
    *out = reg;
    return true;
  }
  return loom_lp_new_reg(b, out) &&
         loom_lp_emit(b, (loom_lp_insn_t){.op = LOOM_LP_SEXT, .dst = *out,
                                          .a = reg, .imm = bits});
}

static bool loom_lp_lower_op(loom_lp_builder_t* b, const loom_op_t* op) {
  static const struct {
    const char* name;
    loom_lp_opcode_t code;
  } binary[] = {
      {"index.add", LOOM_LP_ADD},   {"index.sub", LOOM_LP_SUB},
      {"index.mul", LOOM_LP_MUL},   {"index.div", LOOM_LP_DIV},
      {"index.rem", LOOM_LP_REM},   {"index.min", LOOM_LP_MIN},
      {"index.max", LOOM_LP_MAX},   {"index.andi", LOOM_LP_AND},
      {"index.ori", LOOM_LP_OR},    {"index.xori", LOOM_LP_XOR},
      {"index.shli", LOOM_LP_SHL},  {"index.shrui", LOOM_LP_SHRU},
      {"index.scale", LOOM_LP_MUL}, {"index.madd", LOOM_LP_MADD},
      {"index.cmp", LOOM_LP_CMP},   {"scf.select", LOOM_LP_SELECT},
  };
  const loom_module_t* m = b->module;
  const loom_op_def_t* def = &loom_op_defs[op->opcode];
  uint32_t result = op->result_count ? op->results_start : LOOM_NONE;
  uint16_t dst = 0, r[3] = {0};
  for (size_t i = 0; i < sizeof(binary) / sizeof(binary[0]); ++i) {
    if (strcmp(def->name, binary[i].name) != 0) continue;
    for (uint32_t o = 0; o < op->operand_count && o < 3; ++o) {
      if (!loom_lp_operand(b, op, o, &r[o])) return false;
    }
    if (!loom_lp_new_reg(b, &dst)) return false;
    b->reg_of[result] = dst;
    return loom_lp_emit(b, (loom_lp_insn_t){
                               .op = (uint8_t)binary[i].code, .dst = dst,
                               .a = r[0], .b = r[1], .c = r[2],
                               .imm = op->enum_value});
  }
  if (!strcmp(def->name, "index.constant")) {
    if (!loom_lp_const(b, op->literal.i, &dst)) return false;
    b->reg_of[result] = dst;
    return true;
  }
  if (!strcmp(def->name, "config.get")) {
    const char* name = loom_module_string(m, op->symbol);
    const loom_config_value_t* value = loom_specialization_find(b->spec, name);
    if (!value) {
      hrx_loom_diag_param_t params[] = {{"symbol", name}};
      loom_diag_emit(b->diagnostics, &m->source, op->span,
                     HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_CONFIG_MISSING,
                     params, 1, "config @%s has no value", name);
      return false;
    }
    if (!loom_lp_const(b, (int64_t)value->bits, &dst)) return false;
    b->reg_of[result] = dst;
    return true;
  }
  if (!strcmp(def->name, "target.subgroup.size")) {
    if (!loom_lp_const(b, b->program->subgroup_size, &dst)) return false;
    b->reg_of[result] = dst;
    return true;
  }
  if (!strcmp(def->name, "index.cast")) {
    if (!loom_lp_operand(b, op, 0, &r[0])) return false;
    loom_type_kind_t to = loom_type_kind(m, op->type2);
    loom_type_kind_t from = loom_type_kind(m, op->type);
    if (to == LOOM_TYPE_OFFSET && loom_type_is_integer(from) &&
        loom_type_bit_width(from) < 64) {
      if (!loom_lp_new_reg(b, &dst) ||
          !loom_lp_emit(b, (loom_lp_insn_t){
                               .op = LOOM_LP_ZEXT, .dst = dst, .a = r[0],
                               .imm = loom_type_bit_width(from)})) {
        return false;
      }
    } else if (!loom_lp_narrow(b, to, r[0], &dst)) {
      return false;
    }
    b->reg_of[result] = dst;
    return true;
  }
  if (!strcmp(def->name, "index.assume")) {
    if (!loom_lp_operand(b, op, 0, &r[0])) return false;
    for (uint32_t i = 0; i < op->pred_count; ++i) {
      const loom_pred_t* pred = &LOOM_PRED(m, op->preds_start + i);
      uint16_t x = 0, y = 0;
      if (!loom_lp_ref(b, &pred->args[1], pred->span, &x)) return false;
      if (pred->arg_count > 2 &&
          !loom_lp_ref(b, &pred->args[2], pred->span, &y)) {
        return false;
      }
      if (!loom_lp_emit(b, (loom_lp_insn_t){.op = LOOM_LP_ASSERT,
                                            .a = r[0], .b = x, .c = y,
                                            .imm = pred->kind})) {
        return false;
      }
    }
    b->reg_of[result] = r[0];
    return true;
  }
  if (!strcmp(def->name, "kernel.launch.config")) {
    for (uint32_t i = 0; i < op->operand_count; ++i) {
      if (!loom_lp_operand(b, op, i, &b->program->launch_regs[i])) {
        return false;
      }
    }
    if (op->operand_count == 6) {
      uint16_t one = 0;
      if (!loom_lp_const(b, 1, &one)) return false;
      for (int i = 6; i < 9; ++i) b->program->launch_regs[i] = one;
    }
    return true;
  }
  hrx_loom_diag_param_t params[] = {{"op", def->name}};
  loom_diag_emit(b->diagnostics, &m->source, op->span,
                 HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_LAUNCH_UNSUPPORTED,
                 params, 1, "%s cannot run in a launch program", def->name);
  return false;
}

/* The constant value of |value| in the body: index.constant or config. */
static bool loom_lp_body_constant(loom_lp_builder_t* b, uint32_t operand,
                                  int64_t* out) {
  const loom_module_t* m = b->module;
  if (loom_operand_is_static(operand)) {
    *out = LOOM_STATIC(m, operand);
    return true;
  }
  const loom_value_t* value = &LOOM_VALUE(m, operand);
  if (value->def_op == LOOM_NONE) return false;
  const loom_op_t* def = &LOOM_OP(m, value->def_op);
  const char* name = loom_op_defs[def->opcode].name;
  if (!strcmp(name, "index.constant")) {
    *out = def->literal.i;
    return true;
  }
  if (!strcmp(name, "config.get")) {
    const loom_config_value_t* v =
        loom_specialization_find(b->spec, loom_module_string(m, def->symbol));
    if (!v) return false;
    *out = (int64_t)v->bits;
    return true;
  }
  return false;
}

static bool loom_lp_storage(loom_lp_builder_t* b, uint32_t region_id) {
  const loom_module_t* m = b->module;
  const loom_region_t* region = &LOOM_REGION(m, region_id);
  uint32_t alloca = loom_opcode("buffer.alloca");
  for (uint32_t i = 0; i < region->op_count; ++i) {
    const loom_op_t* op = &LOOM_OP(m, LOOM_REGION_OP(m, region, i));
    for (uint32_t r = 0; r < op->region_count; ++r) {
      if (!loom_lp_storage(b, op->regions[r])) return false;
    }
    if (op->opcode != alloca) continue;
    int64_t bytes = 0;
    if (!loom_lp_body_constant(b, LOOM_OPERAND(m, op, 0), &bytes) ||
        bytes < 0) {
      loom_lp_unsupported(b, op->span, HRX_LOOM_DIAG_LAUNCH_NOT_CONSTANT,
                          "buffer.alloca size must be a nonnegative "
                          "index.constant or config value");
      return false;
    }
    uint64_t align = op->attrs[LOOM_ATTR_ALIGN] > 0
                         ? (uint64_t)op->attrs[LOOM_ATTR_ALIGN] : 16;
    bool workgroup = strcmp(loom_enum_keyword(LOOM_ENUM_MEMORY_SPACE,
                                              op->enum_value),
                            "workgroup") == 0;
    uint64_t* total = workgroup ? &b->program->workgroup_storage
                                : &b->program->private_storage;
    uint64_t aligned = (*total + align - 1) & ~(align - 1);
    if (aligned < *total || aligned + (uint64_t)bytes < aligned) {
      loom_lp_unsupported(b, op->span, HRX_LOOM_DIAG_LAUNCH_NOT_CONSTANT,
                          "local storage size overflows");
      return false;
    }
    *total = aligned + (uint64_t)bytes;
  }
  return true;
}

hrx_status_t hrx_loom_launch_program_build(
    const hrx_loom_module_t* module, size_t kernel,
    const hrx_loom_specialization_t* specialization,
    const hrx_loom_profile_t* profile, hrx_loom_diagnostics_t* diagnostics,
    hrx_allocator_t allocator, hrx_loom_launch_program_t** out_program) {
  *out_program = NULL;
  if (kernel >= module->kernels.count) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "kernel %zu of a module with %u kernels", kernel,
                           module->kernels.count);
  }
  if (!profile || !profile->subgroup_size || !profile->max_workgroup_size) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "launch programs need a profile with limits");
  }
  const loom_kernel_t* k = &LOOM_KERNEL(module, kernel);
  hrx_loom_diagnostics_t* own = NULL;
  if (!diagnostics) {
    HRX_RETURN_IF_ERROR(hrx_loom_diagnostics_create(0, allocator, &own));
    diagnostics = own;
  }
  size_t errors_before = hrx_loom_diagnostics_error_count(diagnostics);
  hrx_loom_launch_program_t* program = NULL;
  uint32_t* reg_of = NULL;
  hrx_status_t status =
      hrx_allocator_malloc(allocator, sizeof(*program), (void**)&program);
  if (status == HRX_OK) {
    program->allocator = allocator;
    status = hrx_allocator_strdup(
        allocator, loom_module_string(module, k->symbol), &program->symbol);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(
        allocator, module->values.count ? module->values.count : 1,
        sizeof(uint32_t), (void**)&reg_of);
  }
  if (status != HRX_OK) {
    hrx_loom_launch_program_destroy(program);
    hrx_loom_diagnostics_destroy(own);
    return status;
  }
  memset(reg_of, 0xff, (module->values.count ? module->values.count : 1) *
                           sizeof(uint32_t));
  uint32_t target_subgroup =
      k->target != LOOM_NONE
          ? (uint32_t)LOOM_TARGET(module, k->target).subgroup_size : 0;
  program->subgroup_size = target_subgroup ? target_subgroup
                                           : profile->subgroup_size;
  program->max_workgroup_size = profile->max_workgroup_size;
  program->max_workgroup_count = profile->max_workgroup_count;
  program->max_workgroup_storage = profile->max_workgroup_storage;
  loom_lp_builder_t b = {.module = module, .spec = specialization,
                         .diagnostics = diagnostics, .program = program,
                         .reg_of = reg_of};
  const loom_region_t* config = &LOOM_REGION(module, k->config_region);
  program->workload_count = config->arg_count;
  bool ok = true;
  for (uint32_t i = 0; i < config->arg_count && ok; ++i) {
    uint16_t raw = 0, reg = 0;
    const loom_value_t* arg = &LOOM_VALUE(module, config->args_start + i);
    ok = loom_lp_new_reg(&b, &raw) &&
         loom_lp_emit(&b, (loom_lp_insn_t){.op = LOOM_LP_ARG, .dst = raw,
                                           .imm = i}) &&
         loom_lp_narrow(&b, loom_type_kind(module, arg->type), raw, &reg);
    if (ok) reg_of[config->args_start + i] = reg;
  }
  bool terminated = false;
  for (uint32_t i = 0; i < config->op_count && ok; ++i) {
    const loom_op_t* op = &LOOM_OP(module, LOOM_REGION_OP(module, config, i));
    ok = loom_lp_lower_op(&b, op);
    terminated = terminated ||
                 loom_op_defs[op->opcode].terminator == LOOM_TERM_LAUNCH_CONFIG;
  }
  if (ok && !terminated) {
    loom_lp_unsupported(&b, config->span, HRX_LOOM_DIAG_MISSING_TERMINATOR,
                        "launch-config region has no kernel.launch.config");
    ok = false;
  }
  if (ok) ok = loom_lp_storage(&b, k->body_region);
  hrx_allocator_free(allocator, reg_of);
  status = b.status;
  if (status == HRX_OK) {
    status = loom_diag_result(diagnostics, errors_before,
                              "launch program lowering");
  }
  if (status == HRX_OK && !ok) {
    status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "launch program lowering failed");
  }
  hrx_loom_diagnostics_destroy(own);
  if (status != HRX_OK) {
    hrx_loom_launch_program_destroy(program);
    return status;
  }
  *out_program = program;
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Evaluation                                                              */
/*===------------------------------------------------------------------===*/

static const char* const loom_lp_fact_names[LOOM_PRED_COUNT] = {
    [LOOM_PRED_RANGE] = "range", [LOOM_PRED_LT] = "lt",
    [LOOM_PRED_LE] = "le",       [LOOM_PRED_EQ] = "eq",
    [LOOM_PRED_NE] = "ne",       [LOOM_PRED_MUL] = "mul"};

static bool loom_lp_compare(int64_t a, int64_t b, int64_t predicate) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  switch (predicate) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    case 5: return a >= b;
    case 6: return ua < ub;
    case 7: return ua <= ub;
    case 8: return ua > ub;
    default: return ua >= ub;
  }
}

static hrx_status_t loom_lp_overflow(const hrx_loom_launch_program_t* p,
                                     uint32_t pc) {
  return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                         "launch program for @%s: arithmetic overflow at "
                         "instruction %u", p->symbol, pc);
}

hrx_status_t hrx_loom_launch_program_evaluate(
    const hrx_loom_launch_program_t* p, const uint64_t* workload,
    size_t workload_count, hrx_loom_launch_config_t* out) {
  memset(out, 0, sizeof(*out));
  if (workload_count != p->workload_count) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "@%s takes %u workload values, got %zu", p->symbol,
                           p->workload_count, workload_count);
  }
  if (workload_count && !workload) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "workload array is NULL");
  }
  int64_t r[LOOM_LP_MAX_REGISTERS];
  for (uint32_t pc = 0; pc < p->insn_count; ++pc) {
    const loom_lp_insn_t* i = &p->insns[pc];
    int64_t a = r[i->a], b = r[i->b], c = r[i->c], v = 0;
    switch ((loom_lp_opcode_t)i->op) {
      case LOOM_LP_CONST: v = i->imm; break;
      case LOOM_LP_ARG: v = (int64_t)workload[i->imm]; break;
      case LOOM_LP_ADD:
        if (__builtin_add_overflow(a, b, &v)) return loom_lp_overflow(p, pc);
        break;
      case LOOM_LP_SUB:
        if (__builtin_sub_overflow(a, b, &v)) return loom_lp_overflow(p, pc);
        break;
      case LOOM_LP_MUL:
        if (__builtin_mul_overflow(a, b, &v)) return loom_lp_overflow(p, pc);
        break;
      case LOOM_LP_MADD:
        if (__builtin_mul_overflow(a, b, &v) ||
            __builtin_add_overflow(v, c, &v)) {
          return loom_lp_overflow(p, pc);
        }
        break;
      case LOOM_LP_DIV:
      case LOOM_LP_REM:
        if (b <= 0 || a < 0) {
          return hrx_make_status(
              HRX_STATUS_INVALID_ARGUMENT,
              "launch program for @%s: index.%s needs a nonnegative "
              "dividend and a positive divisor (got %" PRId64 " and %" PRId64
              ")", p->symbol, i->op == LOOM_LP_DIV ? "div" : "rem", a, b);
        }
        v = i->op == LOOM_LP_DIV ? a / b : a % b;
        break;
      case LOOM_LP_MIN: v = a < b ? a : b; break;
      case LOOM_LP_MAX: v = a > b ? a : b; break;
      case LOOM_LP_AND: v = a & b; break;
      case LOOM_LP_OR: v = a | b; break;
      case LOOM_LP_XOR: v = a ^ b; break;
      case LOOM_LP_SHL:
      case LOOM_LP_SHRU:
        if (b < 0 || b > 63) {
          return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                                 "launch program for @%s: shift by %" PRId64,
                                 p->symbol, b);
        }
        v = i->op == LOOM_LP_SHL ? (int64_t)((uint64_t)a << b)
                                 : (int64_t)((uint64_t)a >> b);
        break;
      case LOOM_LP_CMP: v = loom_lp_compare(a, b, i->imm); break;
      case LOOM_LP_SELECT: v = a ? b : c; break;
      case LOOM_LP_SEXT: {
        uint32_t shift = 64u - (uint32_t)i->imm;
        v = (int64_t)((uint64_t)a << shift) >> shift;
        break;
      }
      case LOOM_LP_ZEXT:
        v = (int64_t)((uint64_t)a & ((1ull << i->imm) - 1));
        break;
      case LOOM_LP_ASSERT: {
        bool ok = true;
        switch ((loom_pred_kind_t)i->imm) {
          case LOOM_PRED_RANGE: ok = a >= b && a <= c; break;
          case LOOM_PRED_LT: ok = a < b; break;
          case LOOM_PRED_LE: ok = a <= b; break;
          case LOOM_PRED_EQ: ok = a == b; break;
          case LOOM_PRED_NE: ok = a != b; break;
          case LOOM_PRED_MUL: ok = b > 0 && a % b == 0; break;
          default: break;
        }
        if (!ok) {
          return hrx_make_status(
              HRX_STATUS_INVALID_ARGUMENT,
              "workload for @%s violates fact %s: value %" PRId64
              ", bounds %" PRId64 "%s%.0" PRId64,
              p->symbol, loom_lp_fact_names[i->imm], a, b,
              i->imm == LOOM_PRED_RANGE ? ".." : "",
              i->imm == LOOM_PRED_RANGE ? c : 0);
        }
        continue;
      }
      default:
        return hrx_make_status(HRX_STATUS_INTERNAL, "bad launch opcode %u",
                               i->op);
    }
    r[i->dst] = v;
  }
  static const char* const names[9] = {
      "workgroups.x",     "workgroups.y",     "workgroups.z",
      "workgroup_size.x", "workgroup_size.y", "workgroup_size.z",
      "cluster_size.x",   "cluster_size.y",   "cluster_size.z"};
  uint64_t threads = 1;
  for (int d = 0; d < 9; ++d) {
    int64_t value = r[p->launch_regs[d]];
    uint64_t limit = d < 3 ? p->max_workgroup_count : p->max_workgroup_size;
    if (value <= 0) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "@%s: %s is %" PRId64 "; sizes must be positive",
                             p->symbol, names[d], value);
    }
    if ((uint64_t)value > limit) {
      return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                             "@%s: %s is %" PRId64 ", above the limit %" PRIu64,
                             p->symbol, names[d], value, limit);
    }
    uint32_t* slot = d < 3 ? &out->workgroup_count[d]
                     : d < 6 ? &out->workgroup_size[d - 3]
                             : &out->cluster_size[d - 6];
    *slot = (uint32_t)value;
    if (d >= 3 && d < 6) threads *= (uint64_t)value;
  }
  if (threads > p->max_workgroup_size) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "@%s: workgroup of %" PRIu64 " threads exceeds %u",
                           p->symbol, threads, p->max_workgroup_size);
  }
  if (p->workgroup_storage > p->max_workgroup_storage) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "@%s: %" PRIu64 " bytes of workgroup memory exceed "
                           "%" PRIu64, p->symbol, p->workgroup_storage,
                           p->max_workgroup_storage);
  }
  out->subgroup_size = p->subgroup_size;
  out->workgroup_storage_bytes = p->workgroup_storage;
  out->private_storage_bytes = p->private_storage;
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Serialisation                                                           */
/*===------------------------------------------------------------------===*/

/* Layout (little-endian):
 *   "HXLP" u32 version
 *   u32 workload_count, register_count, insn_count, subgroup_size
 *   u32 max_workgroup_size, max_workgroup_count
 *   u64 max_workgroup_storage, workgroup_storage, private_storage
 *   u16 launch_regs[9]
 *   u32 symbol_length, symbol bytes
 *   insn_count x { u8 op, u16 dst, a, b, c, i64 imm }   (17 bytes each)
 *   32-byte SHA-256 of all preceding bytes */
#define LOOM_LP_HEADER_SIZE (8 + 6 * 4 + 3 * 8 + 9 * 2 + 4)
#define LOOM_LP_INSN_SIZE 17

hrx_status_t hrx_loom_launch_program_serialize(
    const hrx_loom_launch_program_t* p, hrx_allocator_t allocator,
    uint8_t** out_bytes, size_t* out_length) {
  *out_bytes = NULL;
  *out_length = 0;
  size_t symbol_length = strlen(p->symbol);
  size_t length = LOOM_LP_HEADER_SIZE + symbol_length +
                  (size_t)p->insn_count * LOOM_LP_INSN_SIZE +
                  HRX_SHA256_DIGEST_SIZE;
  uint8_t* bytes = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc_uninitialized(allocator, length, (void**)&bytes));
  uint8_t* c = bytes;
  memcpy(c, LOOM_LP_MAGIC, 4);
  c += 4;
  hrx_put_le(&c, LOOM_LP_VERSION, 4);
  hrx_put_le(&c, p->workload_count, 4);
  hrx_put_le(&c, p->register_count, 4);
  hrx_put_le(&c, p->insn_count, 4);
  hrx_put_le(&c, p->subgroup_size, 4);
  hrx_put_le(&c, p->max_workgroup_size, 4);
  hrx_put_le(&c, p->max_workgroup_count, 4);
  hrx_put_le(&c, p->max_workgroup_storage, 8);
  hrx_put_le(&c, p->workgroup_storage, 8);
  hrx_put_le(&c, p->private_storage, 8);
  for (int i = 0; i < 9; ++i) hrx_put_le(&c, p->launch_regs[i], 2);
  hrx_put_le(&c, symbol_length, 4);
  memcpy(c, p->symbol, symbol_length);
  c += symbol_length;
  for (uint32_t i = 0; i < p->insn_count; ++i) {
    const loom_lp_insn_t* insn = &p->insns[i];
    hrx_put_le(&c, insn->op, 1);
    hrx_put_le(&c, insn->dst, 2);
    hrx_put_le(&c, insn->a, 2);
    hrx_put_le(&c, insn->b, 2);
    hrx_put_le(&c, insn->c, 2);
    hrx_put_le(&c, (uint64_t)insn->imm, 8);
  }
  hrx_sha256_digest_t digest;
  hrx_sha256(bytes, (size_t)(c - bytes), &digest);
  memcpy(c, digest.bytes, HRX_SHA256_DIGEST_SIZE);
  *out_bytes = bytes;
  *out_length = length;
  return HRX_OK;
}

static hrx_status_t loom_lp_invalid(const char* what) {
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "launch program blob is invalid: %s", what);
}

/* Checks one instruction's fields against the program's bounds. */
static hrx_status_t loom_lp_check_insn(const hrx_loom_launch_program_t* p,
                                       const loom_lp_insn_t* i) {
  if (i->op >= LOOM_LP_OPCODE_COUNT) return loom_lp_invalid("bad opcode");
  if (i->dst >= p->register_count || i->a >= p->register_count ||
      i->b >= p->register_count || i->c >= p->register_count) {
    return loom_lp_invalid("register out of range");
  }
  switch ((loom_lp_opcode_t)i->op) {
    case LOOM_LP_ARG:
      if (i->imm < 0 || (uint64_t)i->imm >= p->workload_count) {
        return loom_lp_invalid("workload index out of range");
      }
      break;
    case LOOM_LP_CMP:
      if (i->imm < 0 || i->imm > 9) return loom_lp_invalid("bad predicate");
      break;
    case LOOM_LP_SEXT:
    case LOOM_LP_ZEXT:
      if (i->imm < 1 || i->imm > 63) return loom_lp_invalid("bad width");
      break;
    case LOOM_LP_ASSERT:
      if (i->imm < 0 || i->imm >= LOOM_PRED_COUNT) {
        return loom_lp_invalid("bad fact");
      }
      break;
    default:
      break;
  }
  return HRX_OK;
}

hrx_status_t hrx_loom_launch_program_load(const uint8_t* bytes, size_t length,
                                          hrx_allocator_t allocator,
                                          hrx_loom_launch_program_t** out) {
  *out = NULL;
  if (!bytes || length < LOOM_LP_HEADER_SIZE + HRX_SHA256_DIGEST_SIZE) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "launch program blob is truncated (%zu bytes)",
                           length);
  }
  if (memcmp(bytes, LOOM_LP_MAGIC, 4) != 0) {
    return loom_lp_invalid("not a launch program (bad magic)");
  }
  hrx_sha256_digest_t digest;
  size_t body = length - HRX_SHA256_DIGEST_SIZE;
  hrx_sha256(bytes, body, &digest);
  if (memcmp(digest.bytes, bytes + body, HRX_SHA256_DIGEST_SIZE) != 0) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "launch program blob fails its checksum "
                           "(truncated or tampered)");
  }
  const uint8_t* c = bytes + 4;
  uint32_t version = (uint32_t)hrx_get_le(&c, 4);
  if (version != LOOM_LP_VERSION) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "launch program version %u; this build reads %u",
                           version, LOOM_LP_VERSION);
  }
  hrx_loom_launch_program_t header = {0};
  header.workload_count = (uint32_t)hrx_get_le(&c, 4);
  header.register_count = (uint32_t)hrx_get_le(&c, 4);
  header.insn_count = (uint32_t)hrx_get_le(&c, 4);
  header.subgroup_size = (uint32_t)hrx_get_le(&c, 4);
  header.max_workgroup_size = (uint32_t)hrx_get_le(&c, 4);
  header.max_workgroup_count = (uint32_t)hrx_get_le(&c, 4);
  header.max_workgroup_storage = hrx_get_le(&c, 8);
  header.workgroup_storage = hrx_get_le(&c, 8);
  header.private_storage = hrx_get_le(&c, 8);
  for (int i = 0; i < 9; ++i) header.launch_regs[i] = (uint16_t)hrx_get_le(&c, 2);
  uint64_t symbol_length = hrx_get_le(&c, 4);
  if (header.register_count == 0 ||
      header.register_count > LOOM_LP_MAX_REGISTERS ||
      header.insn_count > LOOM_LP_MAX_INSNS ||
      header.workload_count > LOOM_LP_MAX_REGISTERS) {
    return loom_lp_invalid("counts out of range");
  }
  if (symbol_length == 0 || symbol_length > 4096 ||
      LOOM_LP_HEADER_SIZE + symbol_length +
              (uint64_t)header.insn_count * LOOM_LP_INSN_SIZE != body) {
    return loom_lp_invalid("sizes do not add up");
  }
  for (int i = 0; i < 9; ++i) {
    if (header.launch_regs[i] >= header.register_count) {
      return loom_lp_invalid("launch register out of range");
    }
  }
  hrx_loom_launch_program_t* p = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*p), (void**)&p));
  *p = header;
  p->allocator = allocator;
  hrx_status_t status = hrx_allocator_malloc_uninitialized(
      allocator, symbol_length + 1, (void**)&p->symbol);
  if (status == HRX_OK) {
    memcpy(p->symbol, c, symbol_length);
    p->symbol[symbol_length] = '\0';
    c += symbol_length;
    if (memchr(p->symbol, '\0', symbol_length)) {
      status = loom_lp_invalid("symbol contains NUL");
    }
  }
  if (status == HRX_OK) {
    p->insn_capacity = header.insn_count;
    status = hrx_allocator_malloc_array(
        allocator, header.insn_count ? header.insn_count : 1,
        sizeof(loom_lp_insn_t), (void**)&p->insns);
  }
  for (uint32_t i = 0; i < header.insn_count && status == HRX_OK; ++i) {
    loom_lp_insn_t* insn = &p->insns[i];
    insn->op = (uint8_t)hrx_get_le(&c, 1);
    insn->dst = (uint16_t)hrx_get_le(&c, 2);
    insn->a = (uint16_t)hrx_get_le(&c, 2);
    insn->b = (uint16_t)hrx_get_le(&c, 2);
    insn->c = (uint16_t)hrx_get_le(&c, 2);
    insn->imm = (int64_t)hrx_get_le(&c, 8);
    status = loom_lp_check_insn(p, insn);
  }
  if (status != HRX_OK) {
    hrx_loom_launch_program_destroy(p);
    return status;
  }
  *out = p;
  return HRX_OK;
}
