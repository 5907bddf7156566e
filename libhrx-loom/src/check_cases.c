/* Describing check.case bodies as plain data (hrx/loom/check.h). */
#include <string.h>

#include "config_internal.h"
#include "hrx/loom/check.h"
#include "ir.h"
#include "op_table.h"

/* The public description followed by the allocator that frees it; the
 * values, steps and operand lists live in one allocation after it. */
typedef struct loom_check_case_storage_t {
  hrx_loom_check_case_t public_case;
  hrx_allocator_t allocator;
} loom_check_case_storage_t;

size_t hrx_loom_module_check_count(const hrx_loom_module_t* module) {
  size_t count = 0;
  for (uint32_t r = 0; r < module->records.count; ++r) {
    loom_record_kind_t kind = LOOM_RECORD(module, r).kind;
    count += kind == LOOM_RECORD_CASE || kind == LOOM_RECORD_SCENARIO ||
             kind == LOOM_RECORD_BENCHMARK;
  }
  return count;
}

/* The record of check |index|, or NULL. */
static const loom_record_t* loom_check_record(const loom_module_t* module,
                                              size_t index) {
  for (uint32_t r = 0; r < module->records.count; ++r) {
    const loom_record_t* record = &LOOM_RECORD(module, r);
    if (record->kind != LOOM_RECORD_CASE &&
        record->kind != LOOM_RECORD_SCENARIO &&
        record->kind != LOOM_RECORD_BENCHMARK) {
      continue;
    }
    if (index-- == 0) return record;
  }
  return NULL;
}

static hrx_status_t loom_check_lookup(const loom_module_t* module,
                                      size_t index,
                                      const loom_record_t** out_record) {
  *out_record = loom_check_record(module, index);
  if (!*out_record) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "check %zu of a module with %zu", index,
                           hrx_loom_module_check_count(module));
  }
  return HRX_OK;
}

hrx_status_t hrx_loom_module_check_info(const hrx_loom_module_t* module,
                                        size_t index,
                                        hrx_loom_check_info_t* caller_info) {
  hrx_loom_check_info_t local;
  memset(&local, 0, sizeof(local));
  hrx_loom_check_info_t* out_info = &local;
  const loom_record_t* record = NULL;
  HRX_RETURN_IF_ERROR(loom_check_lookup(module, index, &record));
  out_info->kind = record->kind == LOOM_RECORD_CASE ? HRX_LOOM_CHECK_CASE
                   : record->kind == LOOM_RECORD_SCENARIO
                       ? HRX_LOOM_CHECK_SCENARIO
                       : HRX_LOOM_CHECK_BENCHMARK;
  out_info->name = loom_module_string(module, record->symbol);
  if (record->kind == LOOM_RECORD_BENCHMARK) {
    out_info->subject = loom_module_string(module, record->ref);
  }
  out_info->is_public = record->is_public;
  return HRX_STRUCT_WRITE(hrx_loom_check_info_t, is_public, &local,
                          caller_info);
}

/* What describing one case needs as it walks the body. */
typedef struct loom_describer_t {
  const loom_module_t* module;
  const char* case_name;
  /* value id -> index into |values| + 1; 0 when not a case value */
  uint32_t* slots;
  hrx_loom_check_value_t* values;
  size_t value_count;
  hrx_loom_check_step_t* steps;
  size_t step_count;
  uint32_t* operands;
  size_t operand_count;
} loom_describer_t;

static hrx_status_t loom_unsupported(const loom_describer_t* d,
                                     const loom_op_t* op, const char* why) {
  return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                         "check case @%s: %s is not supported (%s)",
                         d->case_name, loom_op_defs[op->opcode].name, why);
}

static hrx_loom_check_number_t loom_check_number(const loom_literal_t* l) {
  hrx_loom_check_number_t n = {.is_float = l->kind == LOOM_LITERAL_FLOAT,
                               .i = l->i, .f = l->f};
  return n;
}

static const loom_literal_t* loom_clause(const loom_module_t* m,
                                         const loom_op_t* op, uint32_t i) {
  return &LOOM_AT(m->literals, loom_literal_t, op->preds_start + i);
}

/* Fills the element type, rank, shape and count of |value| from |type|. */
static hrx_status_t loom_describe_type(const loom_describer_t* d,
                                       const loom_op_t* op,
                                       loom_type_id_t type,
                                       hrx_loom_check_value_t* value) {
  const loom_type_t* t = &LOOM_TYPE(d->module, type);
  loom_type_kind_t element = t->kind == LOOM_TYPE_TENSOR ? t->element : t->kind;
  if (loom_type_is_f8(element)) {
    /* hrx_loom_arg_type_t has no f8: an i8 tensor holds the same bytes. */
    return loom_unsupported(d, op, "f8 elements; use i8 for their bits");
  }
  if (element < LOOM_TYPE_INDEX || element >= LOOM_TYPE_BUFFER) {
    return loom_unsupported(d, op, "not a scalar or a tensor of scalars");
  }
  value->element = (hrx_loom_arg_type_t)(element - LOOM_TYPE_INDEX);
  value->element_count = 1;
  if (t->kind != LOOM_TYPE_TENSOR) return HRX_OK;
  if (t->rank > HRX_LOOM_CHECK_MAX_RANK) {
    return loom_unsupported(d, op, "tensor rank above 8");
  }
  value->rank = t->rank;
  for (uint32_t i = 0; i < t->rank; ++i) {
    int64_t size = LOOM_DIM(d->module, t->dims_start + i).size;
    /* A runner allocates the elements; 2^32 is far above any test. */
    if (size < 0 ||
        (size && value->element_count > (UINT64_C(1) << 32) / (uint64_t)size)) {
      return loom_unsupported(d, op, "dynamic or oversized tensor shape");
    }
    value->shape[i] = size;
    value->element_count *= (uint64_t)size;
  }
  return HRX_OK;
}

/* Adds the value |op| defines. */
static hrx_status_t loom_describe_value(loom_describer_t* d,
                                        const loom_op_t* op) {
  const loom_module_t* m = d->module;
  if (op->result_count != 1) return loom_unsupported(d, op, "results");
  hrx_loom_check_value_t* value = &d->values[d->value_count];
  const loom_value_t* result = &LOOM_VALUE(m, op->results_start);
  value->name = loom_module_string(m, result->name);
  HRX_RETURN_IF_ERROR(loom_describe_type(d, op, result->type, value));
  const char* name = loom_op_defs[op->opcode].name;
  if (loom_op_defs[op->opcode].shape == LOOM_SHAPE_CONSTANT) {
    if (value->rank) return loom_unsupported(d, op, "not a scalar");
    value->kind = HRX_LOOM_CHECK_VALUE_SCALAR;
    value->value = loom_check_number(&op->literal);
  } else if (!strcmp(name, "check.generate.iota")) {
    value->kind = HRX_LOOM_CHECK_VALUE_IOTA;
    value->value = loom_check_number(loom_clause(m, op, 0));
    value->step = loom_check_number(loom_clause(m, op, 1));
    const loom_literal_t* period = loom_clause(m, op, 2);
    value->period = period->kind == LOOM_LITERAL_INT ? (uint64_t)period->i : 0;
  } else {
    /* check.generate.fill, check.literal: one value(L) clause */
    value->kind = !strcmp(name, "check.literal") ? HRX_LOOM_CHECK_VALUE_SCALAR
                                                  : HRX_LOOM_CHECK_VALUE_FILL;
    value->value = loom_check_number(loom_clause(m, op, 0));
  }
  d->slots[op->results_start] = (uint32_t)++d->value_count;
  return HRX_OK;
}

/* The case value index of operand |i| of |op|. */
static hrx_status_t loom_operand_value(const loom_describer_t* d,
                                       const loom_op_t* op, uint32_t i,
                                       uint32_t* out_index) {
  uint32_t operand = LOOM_OPERAND(d->module, op, i);
  uint32_t slot = operand < d->module->values.count ? d->slots[operand] : 0;
  if (slot == 0) {
    return loom_unsupported(d, op, "an operand that is no case value");
  }
  *out_index = slot - 1;
  return HRX_OK;
}

static hrx_status_t loom_describe_launch(loom_describer_t* d,
                                         const loom_op_t* op) {
  const loom_module_t* m = d->module;
  hrx_loom_check_step_t* step = &d->steps[d->step_count++];
  step->kind = HRX_LOOM_CHECK_STEP_LAUNCH;
  const char* symbol = loom_module_string(m, op->symbol);
  uint32_t kernel = loom_module_find_kernel(m, symbol);
  step->kernel = kernel == LOOM_NONE
                     ? symbol
                     : loom_kernel_code_name(m, &LOOM_KERNEL(m, kernel));
  uint32_t* operands = &d->operands[d->operand_count];
  for (uint32_t i = 0; i < op->operand_count; ++i) {
    HRX_RETURN_IF_ERROR(loom_operand_value(d, op, i, &operands[i]));
  }
  d->operand_count += op->operand_count;
  step->workload = operands;
  step->workload_count = op->enum_value;
  step->args = operands + op->enum_value;
  step->arg_count = op->operand_count - op->enum_value;
  return HRX_OK;
}

static hrx_status_t loom_describe_expect(loom_describer_t* d,
                                         const loom_op_t* op) {
  hrx_loom_check_step_t* step = &d->steps[d->step_count++];
  step->kind = HRX_LOOM_CHECK_STEP_EXPECT;
  const char* name = loom_op_defs[op->opcode].name;
  step->expect = !strcmp(name, "check.expect.bitwise")
                     ? HRX_LOOM_CHECK_EXPECT_BITWISE
                 : !strcmp(name, "check.expect.close")
                     ? HRX_LOOM_CHECK_EXPECT_CLOSE
                     : HRX_LOOM_CHECK_EXPECT_EQUAL;
  if (step->expect == HRX_LOOM_CHECK_EXPECT_CLOSE) {
    if (op->pred_count != 2) {
      return loom_unsupported(d, op, "without atol and rtol");
    }
    step->atol = loom_clause(d->module, op, 0)->f;
    step->rtol = loom_clause(d->module, op, 1)->f;
    step->nan_same = op->enum_value == 0;
  }
  HRX_RETURN_IF_ERROR(loom_operand_value(d, op, 0, &step->actual));
  return loom_operand_value(d, op, 1, &step->expected);
}

static hrx_status_t loom_describe_op(loom_describer_t* d,
                                     const loom_op_t* op) {
  switch (loom_op_defs[op->opcode].shape) {
    case LOOM_SHAPE_CONSTANT:
    case LOOM_SHAPE_CHECK_SOURCE:
      return loom_describe_value(d, op);
    case LOOM_SHAPE_KERNEL_LAUNCH:
      return loom_describe_launch(d, op);
    case LOOM_SHAPE_CHECK_EXPECT:
      return loom_describe_expect(d, op);
    case LOOM_SHAPE_TERMINATOR:
      return HRX_OK;
    default:
      return loom_unsupported(d, op, "only constants, check sources, "
                              "kernel.launch and check.expect run");
  }
}

uint64_t hrx_loom_check_value_bits(const hrx_loom_check_value_t* value,
                                   uint64_t k) {
  hrx_loom_check_number_t n = value->value;
  if (value->kind == HRX_LOOM_CHECK_VALUE_IOTA) {
    uint64_t at = value->period ? k % value->period : k;
    /* Integers wrap as the element type would rather than overflow. */
    n.i = (int64_t)((uint64_t)n.i + (uint64_t)value->step.i * at);
    n.f += value->step.f * (double)at;
  }
  loom_type_kind_t kind = (loom_type_kind_t)(value->element + LOOM_TYPE_INDEX);
  if (!loom_type_is_float(kind)) return (uint64_t)n.i;
  return loom_float_bits(n.is_float ? n.f : (double)n.i, kind);
}

void hrx_loom_check_case_destroy(hrx_loom_check_case_t* check_case) {
  if (!check_case) return;
  loom_check_case_storage_t* storage = (loom_check_case_storage_t*)check_case;
  hrx_allocator_free(storage->allocator, storage);
}

hrx_status_t hrx_loom_check_case_describe(const hrx_loom_module_t* module,
                                          size_t index,
                                          hrx_allocator_t allocator,
                                          hrx_loom_check_case_t** out_case) {
  *out_case = NULL;
  const loom_record_t* record = NULL;
  HRX_RETURN_IF_ERROR(loom_check_lookup(module, index, &record));
  const char* name = loom_module_string(module, record->symbol);
  if (record->regions[0] == LOOM_NONE) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "@%s is a check.benchmark, which has no body",
                           name);
  }
  const loom_region_t* body = &LOOM_REGION(module, record->regions[0]);
  /* Each op adds at most one value or step; operands bound the lists. */
  size_t operand_total = 0;
  for (uint32_t i = 0; i < body->op_count; ++i) {
    operand_total += LOOM_OP(module, LOOM_REGION_OP(module, body, i))
                         .operand_count;
  }
  size_t header = sizeof(loom_check_case_storage_t);
  size_t values_size = body->op_count * sizeof(hrx_loom_check_value_t);
  size_t steps_size = body->op_count * sizeof(hrx_loom_check_step_t);
  void* block = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(
      allocator, header + values_size + steps_size +
                     operand_total * sizeof(uint32_t),
      &block));
  uint32_t* slots = NULL;
  hrx_status_t status = hrx_allocator_malloc_array(
      allocator, module->values.count, sizeof(uint32_t), (void**)&slots);
  if (status != HRX_OK) {
    hrx_allocator_free(allocator, block);
    return status;
  }
  loom_check_case_storage_t* storage = block;
  storage->allocator = allocator;
  uint8_t* bytes = block;
  loom_describer_t d = {
      .module = module,
      .case_name = name,
      .slots = slots,
      .values = (hrx_loom_check_value_t*)(bytes + header),
      .steps = (hrx_loom_check_step_t*)(bytes + header + values_size),
      .operands = (uint32_t*)(bytes + header + values_size + steps_size)};
  for (uint32_t i = 0; status == HRX_OK && i < body->op_count; ++i) {
    status = loom_describe_op(&d, &LOOM_OP(module,
                                           LOOM_REGION_OP(module, body, i)));
  }
  hrx_allocator_free(allocator, slots);
  if (status != HRX_OK) {
    hrx_allocator_free(allocator, block);
    return status;
  }
  storage->public_case = (hrx_loom_check_case_t){
      .name = name, .values = d.values, .value_count = d.value_count,
      .steps = d.steps, .step_count = d.step_count};
  *out_case = &storage->public_case;
  return HRX_OK;
}
