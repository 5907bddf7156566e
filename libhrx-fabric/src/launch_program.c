/* Launch programs: loading (with full validation) and evaluation. */
#include "hrx/fabric/launch_program.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hrx/core/bytes.h"

typedef struct hrx_launch_insn_t {
  uint8_t op;
  uint16_t dst, a, b, c;
  int64_t imm;
} hrx_launch_insn_t;

struct hrx_fabric_launch_program_s {
  hrx_allocator_t allocator;
  char* symbol;
  uint32_t workload_count;
  uint32_t register_count;
  uint32_t insn_count;
  hrx_launch_insn_t* insns;
  uint16_t launch_regs[9];
  uint32_t subgroup_size;
  uint64_t workgroup_storage;
  uint64_t private_storage;
  uint32_t max_workgroup_size;
  uint32_t max_workgroup_count;
  uint64_t max_workgroup_storage;
};

void hrx_fabric_launch_program_destroy(hrx_fabric_launch_program_t* program) {
  if (!program) return;
  hrx_allocator_free(program->allocator, program->insns);
  hrx_allocator_free(program->allocator, program->symbol);
  hrx_allocator_free(program->allocator, program);
}

const char* hrx_fabric_launch_program_symbol(
    const hrx_fabric_launch_program_t* program) {
  return program->symbol;
}

size_t hrx_fabric_launch_program_workload_count(
    const hrx_fabric_launch_program_t* program) {
  return program->workload_count;
}

/*===------------------------------------------------------------------===*/
/* Evaluation                                                              */
/*===------------------------------------------------------------------===*/

static const char* const hrx_launch_fact_names[HRX_LAUNCH_FACT_COUNT] = {
    [HRX_LAUNCH_FACT_RANGE] = "range", [HRX_LAUNCH_FACT_LT] = "lt",
    [HRX_LAUNCH_FACT_LE] = "le",       [HRX_LAUNCH_FACT_EQ] = "eq",
    [HRX_LAUNCH_FACT_NE] = "ne",       [HRX_LAUNCH_FACT_MUL] = "mul"};

static bool hrx_launch_compare(int64_t a, int64_t b, int64_t predicate) {
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

/* Names the expression that overflowed: its operation and operands. */
static hrx_status_t hrx_launch_overflow(const hrx_fabric_launch_program_t* p,
                                        uint32_t pc, int64_t a, int64_t b,
                                        int64_t c) {
  const hrx_launch_insn_t* i = &p->insns[pc];
  char expression[96];
  switch ((hrx_launch_op_t)i->op) {
    case HRX_LAUNCH_OP_MADD:
      snprintf(expression, sizeof(expression),
               "%" PRId64 " * %" PRId64 " + %" PRId64, a, b, c);
      break;
    default: {
      const char* symbol = i->op == HRX_LAUNCH_OP_ADD   ? "+"
                           : i->op == HRX_LAUNCH_OP_SUB ? "-"
                           : i->op == HRX_LAUNCH_OP_MUL ? "*"
                                                        : "<<";
      snprintf(expression, sizeof(expression), "%" PRId64 " %s %" PRId64, a,
               symbol, b);
      break;
    }
  }
  return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                         "launch program for @%s: %s overflows 64-bit index "
                         "arithmetic (instruction %u)",
                         p->symbol, expression, pc);
}

hrx_status_t hrx_fabric_launch_program_evaluate(
    const hrx_fabric_launch_program_t* p, const uint64_t* workload,
    size_t workload_count, hrx_fabric_launch_config_t* out_config) {
  /* Checks the caller's struct and zeroes it, as every failure leaves it. */
  hrx_fabric_launch_config_t config;
  memset(&config, 0, sizeof(config));
  HRX_RETURN_IF_ERROR(HRX_STRUCT_WRITE(hrx_fabric_launch_config_t,
                                       private_storage_bytes, &config,
                                       out_config));
  hrx_fabric_launch_config_t* out = &config;
  if (workload_count != p->workload_count) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "@%s takes %u workload values, got %zu", p->symbol,
                           p->workload_count, workload_count);
  }
  if (workload_count && !workload) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "workload array is NULL");
  }
  int64_t r[HRX_LAUNCH_PROGRAM_MAX_REGISTERS];
  for (uint32_t pc = 0; pc < p->insn_count; ++pc) {
    const hrx_launch_insn_t* i = &p->insns[pc];
    int64_t a = r[i->a], b = r[i->b], c = r[i->c], v = 0;
    switch ((hrx_launch_op_t)i->op) {
      case HRX_LAUNCH_OP_CONST: v = i->imm; break;
      case HRX_LAUNCH_OP_ARG:
        /* Registers are signed 64-bit indices: a larger workload value
         * would wrap to a negative one. */
        if (workload[i->imm] > (uint64_t)INT64_MAX) {
          return hrx_make_status(
              HRX_STATUS_OUT_OF_RANGE,
              "@%s: workload value %" PRId64 " is %" PRIu64
              ", more than an index holds (%" PRId64 ")",
              p->symbol, i->imm, workload[i->imm], INT64_MAX);
        }
        v = (int64_t)workload[i->imm];
        break;
      case HRX_LAUNCH_OP_ADD:
        if (__builtin_add_overflow(a, b, &v)) {
          return hrx_launch_overflow(p, pc, a, b, c);
        }
        break;
      case HRX_LAUNCH_OP_SUB:
        if (__builtin_sub_overflow(a, b, &v)) {
          return hrx_launch_overflow(p, pc, a, b, c);
        }
        break;
      case HRX_LAUNCH_OP_MUL:
        if (__builtin_mul_overflow(a, b, &v)) {
          return hrx_launch_overflow(p, pc, a, b, c);
        }
        break;
      case HRX_LAUNCH_OP_MADD:
        if (__builtin_mul_overflow(a, b, &v) ||
            __builtin_add_overflow(v, c, &v)) {
          return hrx_launch_overflow(p, pc, a, b, c);
        }
        break;
      case HRX_LAUNCH_OP_DIV:
      case HRX_LAUNCH_OP_REM:
        if (b <= 0 || a < 0) {
          return hrx_make_status(
              HRX_STATUS_INVALID_ARGUMENT,
              "launch program for @%s: index.%s needs a nonnegative "
              "dividend and a positive divisor (got %" PRId64 " and %" PRId64
              ")", p->symbol, i->op == HRX_LAUNCH_OP_DIV ? "div" : "rem", a, b);
        }
        v = i->op == HRX_LAUNCH_OP_DIV ? a / b : a % b;
        break;
      case HRX_LAUNCH_OP_MIN: v = a < b ? a : b; break;
      case HRX_LAUNCH_OP_MAX: v = a > b ? a : b; break;
      case HRX_LAUNCH_OP_AND: v = a & b; break;
      case HRX_LAUNCH_OP_OR: v = a | b; break;
      case HRX_LAUNCH_OP_XOR: v = a ^ b; break;
      case HRX_LAUNCH_OP_SHL:
      case HRX_LAUNCH_OP_SHRU:
        if (b < 0 || b > 63) {
          return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                                 "launch program for @%s: shift by %" PRId64,
                                 p->symbol, b);
        }
        v = i->op == HRX_LAUNCH_OP_SHL ? (int64_t)((uint64_t)a << b)
                                 : (int64_t)((uint64_t)a >> b);
        /* A left shift that loses bits overflows like a multiply. */
        if (i->op == HRX_LAUNCH_OP_SHL && v >> b != a) {
          return hrx_launch_overflow(p, pc, a, b, c);
        }
        break;
      case HRX_LAUNCH_OP_CMP: v = hrx_launch_compare(a, b, i->imm); break;
      case HRX_LAUNCH_OP_SELECT: v = a ? b : c; break;
      case HRX_LAUNCH_OP_SEXT: {
        uint32_t shift = 64u - (uint32_t)i->imm;
        v = (int64_t)((uint64_t)a << shift) >> shift;
        break;
      }
      case HRX_LAUNCH_OP_ZEXT:
        v = (int64_t)((uint64_t)a & ((1ull << i->imm) - 1));
        break;
      case HRX_LAUNCH_OP_ASSERT: {
        bool ok = true;
        switch ((hrx_launch_fact_t)i->imm) {
          case HRX_LAUNCH_FACT_RANGE: ok = a >= b && a <= c; break;
          case HRX_LAUNCH_FACT_LT: ok = a < b; break;
          case HRX_LAUNCH_FACT_LE: ok = a <= b; break;
          case HRX_LAUNCH_FACT_EQ: ok = a == b; break;
          case HRX_LAUNCH_FACT_NE: ok = a != b; break;
          case HRX_LAUNCH_FACT_MUL: ok = b > 0 && a % b == 0; break;
          default: break;
        }
        if (!ok) {
          return hrx_make_status(
              HRX_STATUS_INVALID_ARGUMENT,
              "workload for @%s violates fact %s: value %" PRId64
              ", bounds %" PRId64 "%s%.0" PRId64,
              p->symbol, hrx_launch_fact_names[i->imm], a, b,
              i->imm == HRX_LAUNCH_FACT_RANGE ? ".." : "",
              i->imm == HRX_LAUNCH_FACT_RANGE ? c : 0);
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
  return HRX_STRUCT_WRITE(hrx_fabric_launch_config_t, private_storage_bytes,
                          &config, out_config);
}

/*===------------------------------------------------------------------===*/
/* Loading                                                                 */
/*===------------------------------------------------------------------===*/

static hrx_status_t hrx_launch_invalid(const char* what) {
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "launch program blob is invalid: %s", what);
}

/* Checks one instruction's fields against the program's bounds. */
static hrx_status_t hrx_launch_check_insn(const hrx_fabric_launch_program_t* p,
                                       const hrx_launch_insn_t* i) {
  if (i->op >= HRX_LAUNCH_OP_COUNT) return hrx_launch_invalid("bad opcode");
  if (i->dst >= p->register_count || i->a >= p->register_count ||
      i->b >= p->register_count || i->c >= p->register_count) {
    return hrx_launch_invalid("register out of range");
  }
  switch ((hrx_launch_op_t)i->op) {
    case HRX_LAUNCH_OP_ARG:
      if (i->imm < 0 || (uint64_t)i->imm >= p->workload_count) {
        return hrx_launch_invalid("workload index out of range");
      }
      break;
    case HRX_LAUNCH_OP_CMP:
      if (i->imm < 0 || i->imm > 9) return hrx_launch_invalid("bad predicate");
      break;
    case HRX_LAUNCH_OP_SEXT:
    case HRX_LAUNCH_OP_ZEXT:
      if (i->imm < 1 || i->imm > 63) return hrx_launch_invalid("bad width");
      break;
    case HRX_LAUNCH_OP_ASSERT:
      if (i->imm < 0 || i->imm >= HRX_LAUNCH_FACT_COUNT) {
        return hrx_launch_invalid("bad fact");
      }
      break;
    default:
      break;
  }
  return HRX_OK;
}

hrx_status_t hrx_fabric_launch_program_load(const uint8_t* bytes, size_t length,
                                          hrx_allocator_t allocator,
                                          hrx_fabric_launch_program_t** out) {
  *out = NULL;
  if (!bytes || length < HRX_LAUNCH_PROGRAM_HEADER_SIZE + HRX_SHA256_DIGEST_SIZE) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "launch program blob is truncated (%zu bytes)",
                           length);
  }
  if (memcmp(bytes, HRX_LAUNCH_PROGRAM_MAGIC, 4) != 0) {
    return hrx_launch_invalid("not a launch program (bad magic)");
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
  if (version != HRX_LAUNCH_PROGRAM_VERSION) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "launch program version %u; this build reads %u",
                           version, HRX_LAUNCH_PROGRAM_VERSION);
  }
  hrx_fabric_launch_program_t header = {0};
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
      header.register_count > HRX_LAUNCH_PROGRAM_MAX_REGISTERS ||
      header.insn_count > HRX_LAUNCH_PROGRAM_MAX_INSNS ||
      header.workload_count > HRX_LAUNCH_PROGRAM_MAX_REGISTERS) {
    return hrx_launch_invalid("counts out of range");
  }
  if (symbol_length == 0 || symbol_length > 4096 ||
      HRX_LAUNCH_PROGRAM_HEADER_SIZE + symbol_length +
              (uint64_t)header.insn_count * HRX_LAUNCH_PROGRAM_INSN_SIZE != body) {
    return hrx_launch_invalid("sizes do not add up");
  }
  for (int i = 0; i < 9; ++i) {
    if (header.launch_regs[i] >= header.register_count) {
      return hrx_launch_invalid("launch register out of range");
    }
  }
  hrx_fabric_launch_program_t* p = NULL;
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
      status = hrx_launch_invalid("symbol contains NUL");
    }
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(
        allocator, header.insn_count ? header.insn_count : 1,
        sizeof(hrx_launch_insn_t), (void**)&p->insns);
  }
  for (uint32_t i = 0; i < header.insn_count && status == HRX_OK; ++i) {
    hrx_launch_insn_t* insn = &p->insns[i];
    insn->op = (uint8_t)hrx_get_le(&c, 1);
    insn->dst = (uint16_t)hrx_get_le(&c, 2);
    insn->a = (uint16_t)hrx_get_le(&c, 2);
    insn->b = (uint16_t)hrx_get_le(&c, 2);
    insn->c = (uint16_t)hrx_get_le(&c, 2);
    insn->imm = (int64_t)hrx_get_le(&c, 8);
    status = hrx_launch_check_insn(p, insn);
  }
  if (status != HRX_OK) {
    hrx_fabric_launch_program_destroy(p);
    return status;
  }
  *out = p;
  return HRX_OK;
}
