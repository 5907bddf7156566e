/* Launch programs: lowering a launch-config region and serialising it in
 * the format of hrx/fabric/launch_program.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "config_internal.h"
#include "hrx/core/bytes.h"
#include "hrx/fabric/launch_program.h"
#include "hrx/loom/launch_program.h"
#include "op_table.h"
#include "vector_shape.h"

_Static_assert(LOOM_PRED_RANGE == (int)HRX_LAUNCH_FACT_RANGE &&
                   LOOM_PRED_LT == (int)HRX_LAUNCH_FACT_LT &&
                   LOOM_PRED_LE == (int)HRX_LAUNCH_FACT_LE &&
                   LOOM_PRED_EQ == (int)HRX_LAUNCH_FACT_EQ &&
                   LOOM_PRED_NE == (int)HRX_LAUNCH_FACT_NE &&
                   LOOM_PRED_MUL == (int)HRX_LAUNCH_FACT_MUL,
               "facts are encoded by their Loom predicate kind");

typedef struct loom_lp_insn_t {
  uint8_t op;
  uint16_t dst, a, b, c;
  int64_t imm;
} loom_lp_insn_t;


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
  loom_span_t span; /* of the op being lowered, for limit diagnostics */
  hrx_status_t status;
} loom_lp_builder_t;

static void loom_lp_unsupported(loom_lp_builder_t* b, loom_span_t span,
                                hrx_loom_diag_code_t code, const char* what) {
  loom_diag_emit(b->diagnostics, &b->module->source, span,
                 HRX_LOOM_SEVERITY_ERROR, code, NULL, 0, "%s", what);
}

static bool loom_lp_new_reg(loom_lp_builder_t* b, uint16_t* out) {
  if (b->program->register_count >= HRX_LAUNCH_PROGRAM_MAX_REGISTERS) {
    loom_lp_unsupported(b, b->span, HRX_LOOM_DIAG_LAUNCH_UNSUPPORTED,
                        "launch-config region needs more than 1024 values");
    return false;
  }
  *out = (uint16_t)b->program->register_count++;
  return true;
}

static bool loom_lp_emit(loom_lp_builder_t* b, loom_lp_insn_t insn) {
  hrx_loom_launch_program_t* p = b->program;
  if (p->insn_count == HRX_LAUNCH_PROGRAM_MAX_INSNS) {
    loom_lp_unsupported(b, b->span, HRX_LOOM_DIAG_LAUNCH_UNSUPPORTED,
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
         loom_lp_emit(b, (loom_lp_insn_t){.op = HRX_LAUNCH_OP_CONST, .dst = *out,
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
         loom_lp_emit(b, (loom_lp_insn_t){.op = HRX_LAUNCH_OP_SEXT, .dst = *out,
                                          .a = reg, .imm = bits});
}

/* An ASSERT per fact; every value the facts name must have a register. */
static bool loom_lp_facts(loom_lp_builder_t* b, uint32_t start,
                          uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    const loom_pred_t* pred = &LOOM_PRED(b->module, start + i);
    uint16_t subject = 0, x = 0, y = 0;
    if (!loom_lp_ref(b, &pred->args[0], pred->span, &subject) ||
        !loom_lp_ref(b, &pred->args[1], pred->span, &x)) {
      return false;
    }
    if (pred->arg_count > 2 &&
        !loom_lp_ref(b, &pred->args[2], pred->span, &y)) {
      return false;
    }
    if (!loom_lp_emit(b, (loom_lp_insn_t){.op = HRX_LAUNCH_OP_ASSERT,
                                          .a = subject, .b = x, .c = y,
                                          .imm = pred->kind})) {
      return false;
    }
  }
  return true;
}

/* True when every value |pred| names has a register. */
static bool loom_lp_pred_computable(const loom_lp_builder_t* b,
                                    const loom_pred_t* pred) {
  for (uint32_t a = 0; a < pred->arg_count; ++a) {
    if (!pred->args[a].is_static &&
        b->reg_of[pred->args[a].value] == LOOM_NONE) {
      return false;
    }
  }
  return true;
}

/* launch(...) where [preds] constrains launch arguments; one that the
 * workload also carries (the same name in both lists, the upstream way to
 * pass a value to both) is checked when the launch program runs. Facts
 * about arguments only the device sees stay with the kernel. */
static bool loom_lp_where(loom_lp_builder_t* b, const loom_kernel_t* k) {
  const loom_module_t* m = b->module;
  const loom_region_t* config = &LOOM_REGION(m, k->config_region);
  const loom_region_t* body = &LOOM_REGION(m, k->body_region);
  for (uint32_t i = 0; i < body->arg_count; ++i) {
    const loom_value_t* arg = &LOOM_VALUE(m, body->args_start + i);
    for (uint32_t w = 0; w < config->arg_count; ++w) {
      const loom_value_t* work = &LOOM_VALUE(m, config->args_start + w);
      if (work->type == arg->type &&
          strcmp(loom_module_string(m, work->name),
                 loom_module_string(m, arg->name)) == 0) {
        b->reg_of[body->args_start + i] = b->reg_of[config->args_start + w];
      }
    }
  }
  for (uint32_t i = 0; i < k->pred_count; ++i) {
    if (loom_lp_pred_computable(b, &LOOM_PRED(m, k->preds_start + i)) &&
        !loom_lp_facts(b, k->preds_start + i, 1)) {
      return false;
    }
  }
  return true;
}

static bool loom_lp_lower_op(loom_lp_builder_t* b, const loom_op_t* op) {
  static const struct {
    const char* name;
    hrx_launch_op_t code;
  } binary[] = {
      {"index.add", HRX_LAUNCH_OP_ADD},   {"index.sub", HRX_LAUNCH_OP_SUB},
      {"index.mul", HRX_LAUNCH_OP_MUL},   {"index.div", HRX_LAUNCH_OP_DIV},
      {"index.rem", HRX_LAUNCH_OP_REM},   {"index.min", HRX_LAUNCH_OP_MIN},
      {"index.max", HRX_LAUNCH_OP_MAX},   {"index.andi", HRX_LAUNCH_OP_AND},
      {"index.ori", HRX_LAUNCH_OP_OR},    {"index.xori", HRX_LAUNCH_OP_XOR},
      {"index.shli", HRX_LAUNCH_OP_SHL},  {"index.shrui", HRX_LAUNCH_OP_SHRU},
      {"index.scale", HRX_LAUNCH_OP_MUL}, {"index.madd", HRX_LAUNCH_OP_MADD},
      {"index.cmp", HRX_LAUNCH_OP_CMP},   {"scf.select", HRX_LAUNCH_OP_SELECT},
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
                               .op = HRX_LAUNCH_OP_ZEXT, .dst = dst, .a = r[0],
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
    for (uint32_t i = 0; i < op->result_count; ++i) {
      uint16_t reg = 0;
      if (!loom_lp_operand(b, op, i, &reg)) return false;
      b->reg_of[op->results_start + i] = reg;
    }
    return loom_lp_facts(b, op->preds_start, op->pred_count);
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

/* Adds |bytes| at |align| to the |workgroup| or private storage total. */
static bool loom_lp_reserve(loom_lp_builder_t* b, const loom_op_t* op,
                            bool workgroup, uint64_t bytes, uint64_t align) {
  uint64_t* total = workgroup ? &b->program->workgroup_storage
                              : &b->program->private_storage;
  uint64_t aligned = (*total + align - 1) & ~(align - 1);
  if (aligned < *total || aligned + bytes < aligned) {
    loom_lp_unsupported(b, op->span, HRX_LOOM_DIAG_LAUNCH_NOT_CONSTANT,
                        "local storage size overflows");
    return false;
  }
  *total = aligned + bytes;
  return true;
}

static bool loom_lp_storage(loom_lp_builder_t* b, uint32_t region_id) {
  const loom_module_t* m = b->module;
  const loom_region_t* region = &LOOM_REGION(m, region_id);
  uint32_t alloca = loom_opcode("buffer.alloca");
  uint32_t reduce = loom_opcode("kernel.workgroup.reduce");
  for (uint32_t i = 0; i < region->op_count; ++i) {
    const loom_op_t* op = &LOOM_OP(m, LOOM_REGION_OP(m, region, i));
    for (uint32_t r = 0; r < op->region_count; ++r) {
      if (!loom_lp_storage(b, op->regions[r])) return false;
    }
    if (op->opcode == reduce) {
      /* The slots the backends pass partial results through. */
      uint64_t width = loom_vector_lanes(m, op->type);
      if (!loom_lp_reserve(b, op, true,
                           width * LOOM_WORKGROUP_REDUCE_SLOTS *
                               LOOM_WORKGROUP_REDUCE_SLOT_BYTES,
                           LOOM_WORKGROUP_REDUCE_SLOT_BYTES)) {
        return false;
      }
      continue;
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
    if (!loom_lp_reserve(b, op, workgroup, (uint64_t)bytes, align)) {
      return false;
    }
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
  size_t errors_before = 0;
  HRX_RETURN_IF_ERROR(
      loom_diag_begin(&diagnostics, allocator, &own, &errors_before));
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
  const loom_region_t* config = &LOOM_REGION(module, k->config_region);
  loom_lp_builder_t b = {.module = module, .spec = specialization,
                         .diagnostics = diagnostics, .program = program,
                         .reg_of = reg_of, .span = config->span};
  program->workload_count = config->arg_count;
  bool ok = true;
  for (uint32_t i = 0; i < config->arg_count && ok; ++i) {
    uint16_t raw = 0, reg = 0;
    const loom_value_t* arg = &LOOM_VALUE(module, config->args_start + i);
    ok = loom_lp_new_reg(&b, &raw) &&
         loom_lp_emit(&b, (loom_lp_insn_t){.op = HRX_LAUNCH_OP_ARG, .dst = raw,
                                           .imm = i}) &&
         loom_lp_narrow(&b, loom_type_kind(module, arg->type), raw, &reg);
    if (ok) reg_of[config->args_start + i] = reg;
  }
  if (ok) ok = loom_lp_where(&b, k);
  bool terminated = false;
  for (uint32_t i = 0; i < config->op_count && ok; ++i) {
    const loom_op_t* op = &LOOM_OP(module, LOOM_REGION_OP(module, config, i));
    b.span = op->span;
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
/* Serialisation                                                           */
/*===------------------------------------------------------------------===*/

/* The format is specified in hrx/fabric/launch_program.h. */
hrx_status_t hrx_loom_launch_program_serialize(
    const hrx_loom_launch_program_t* p, hrx_allocator_t allocator,
    uint8_t** out_bytes, size_t* out_length) {
  *out_bytes = NULL;
  *out_length = 0;
  size_t symbol_length = strlen(p->symbol);
  size_t length = HRX_LAUNCH_PROGRAM_HEADER_SIZE + symbol_length +
                  (size_t)p->insn_count * HRX_LAUNCH_PROGRAM_INSN_SIZE +
                  HRX_SHA256_DIGEST_SIZE;
  uint8_t* bytes = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc_uninitialized(allocator, length, (void**)&bytes));
  uint8_t* c = bytes;
  memcpy(c, HRX_LAUNCH_PROGRAM_MAGIC, 4);
  c += 4;
  hrx_put_le(&c, HRX_LAUNCH_PROGRAM_VERSION, 4);
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

