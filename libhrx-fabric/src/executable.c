/* Host code objects: parsing, complete validation, and kernel lookup.
 * Nothing in a code object is trusted: every count, offset, register,
 * jump target and enumeration is checked before the executor sees it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_internal.h"
#include "hrx/core/bytes.h"
#include "hrx/fabric/host_native.h"

uint32_t hrx_host_op_usage(uint8_t op) {
  switch ((hrx_host_op_t)op) {
    case HRX_HOST_OP_NOP:
    case HRX_HOST_OP_FENCE:
    case HRX_HOST_OP_BARRIER:
    case HRX_HOST_OP_ENDIF:
    case HRX_HOST_OP_LOOP_BEGIN:
    case HRX_HOST_OP_RET: return 0;
    case HRX_HOST_OP_CONST:
    case HRX_HOST_OP_ARG:
    case HRX_HOST_OP_BINDING:
    case HRX_HOST_OP_WORKGROUP_ID:
    case HRX_HOST_OP_WORKGROUP_SIZE:
    case HRX_HOST_OP_WORKGROUP_COUNT:
    case HRX_HOST_OP_SUBGROUP_ID:
    case HRX_HOST_OP_SUBGROUP_SIZE: return HRX_HOST_USE_DST;
    case HRX_HOST_OP_WORKITEM_ID:
    case HRX_HOST_OP_LANE_ID: return HRX_HOST_USE_DST | HRX_HOST_USE_VECTOR_DST;
    case HRX_HOST_OP_MOV:
    case HRX_HOST_OP_FNEG:
    case HRX_HOST_OP_FABS:
    case HRX_HOST_OP_FFLOOR:
    case HRX_HOST_OP_FCEIL:
    case HRX_HOST_OP_FTRUNC:
    case HRX_HOST_OP_FROUNDEVEN:
    case HRX_HOST_OP_FSQRT:
    case HRX_HOST_OP_FRSQRT:
    case HRX_HOST_OP_FEXP:
    case HRX_HOST_OP_FLOG:
    case HRX_HOST_OP_FTANH:
    case HRX_HOST_OP_CVT:
    case HRX_HOST_OP_LOAD:
    case HRX_HOST_OP_ATOMIC_LOAD: return HRX_HOST_USE_DST | HRX_HOST_USE_A;
    case HRX_HOST_OP_REDUCE:
      return HRX_HOST_USE_DST | HRX_HOST_USE_A | HRX_HOST_USE_VECTOR_DST;
    case HRX_HOST_OP_IMADD:
    case HRX_HOST_OP_FFMA:
    case HRX_HOST_OP_SELECT:
      return HRX_HOST_USE_DST | HRX_HOST_USE_A | HRX_HOST_USE_B |
             HRX_HOST_USE_C;
    case HRX_HOST_OP_SHUFFLE:
    case HRX_HOST_OP_SHUFFLE_OK:
      return HRX_HOST_USE_DST | HRX_HOST_USE_A | HRX_HOST_USE_B |
             HRX_HOST_USE_C | HRX_HOST_USE_VECTOR_DST;
    case HRX_HOST_OP_STORE:
    case HRX_HOST_OP_ATOMIC_STORE:
    case HRX_HOST_OP_ASSERT: return HRX_HOST_USE_A | HRX_HOST_USE_B;
    case HRX_HOST_OP_ATOMIC_RMW:
      return HRX_HOST_USE_DST | HRX_HOST_USE_A | HRX_HOST_USE_B |
             HRX_HOST_USE_VECTOR_DST;
    case HRX_HOST_OP_JMP: return HRX_HOST_USE_JUMP;
    case HRX_HOST_OP_BRZ:
    case HRX_HOST_OP_BRNZ:
      return HRX_HOST_USE_A | HRX_HOST_USE_SCALAR_A | HRX_HOST_USE_JUMP;
    case HRX_HOST_OP_IF:
    case HRX_HOST_OP_ELSE:
    case HRX_HOST_OP_LOOP_TEST: return HRX_HOST_USE_A | HRX_HOST_USE_JUMP;
    default: /* binary arithmetic, compares */
      return HRX_HOST_USE_DST | HRX_HOST_USE_A | HRX_HOST_USE_B;
  }
}

static uint32_t hrx_host_type_bytes(uint8_t type) {
  static const uint8_t bytes[HRX_HOST_TYPE_COUNT] = {1, 1, 2, 4, 8, 2,
                                                     2, 4, 8, 1, 1};
  return type < HRX_HOST_TYPE_COUNT ? bytes[type] : 0;
}

static hrx_status_t hrx_bad_code(const char* kernel, uint32_t pc,
                                 const char* what) {
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "code object kernel '%s' instruction %u: %s",
                         kernel, pc, what);
}

static hrx_status_t hrx_check_insn(const hrx_fabric_kernel_t* k, uint32_t pc) {
  const hrx_host_insn_t* i = &k->insns[pc];
  if (i->op >= HRX_HOST_OP_COUNT) return hrx_bad_code(k->name, pc, "bad opcode");
  if (i->type >= HRX_HOST_TYPE_COUNT) return hrx_bad_code(k->name, pc, "bad type");
  if (i->flags & ~HRX_HOST_FLAGS_KNOWN) {
    return hrx_bad_code(k->name, pc, "bad flags");
  }
  if ((i->flags & HRX_HOST_FLAG_CHECKED) && !hrx_host_op_checkable(i->op)) {
    return hrx_bad_code(k->name, pc, "checked flag on an unchecked op");
  }
  if ((i->flags & HRX_HOST_FLAG_ADDRESS) &&
      (i->op != HRX_HOST_OP_IMADD || i->type != HRX_HOST_TYPE_I64 ||
       (i->flags & HRX_HOST_FLAG_CHECKED))) {
    return hrx_bad_code(k->name, pc, "address flag off an i64 IMADD");
  }
  uint32_t use = hrx_host_op_usage(i->op);
  struct {
    uint32_t bit;
    uint32_t flag;
    uint16_t reg;
  } fields[] = {{HRX_HOST_USE_DST, HRX_HOST_FLAG_DST_SCALAR, i->dst},
                {HRX_HOST_USE_A, HRX_HOST_FLAG_A_SCALAR, i->a},
                {HRX_HOST_USE_B, HRX_HOST_FLAG_B_SCALAR, i->b},
                {HRX_HOST_USE_C, HRX_HOST_FLAG_C_SCALAR, i->c}};
  bool reads_vector = false;
  for (int f = 0; f < 4; ++f) {
    if (!(use & fields[f].bit)) continue;
    bool scalar = (i->flags & fields[f].flag) != 0;
    uint32_t limit = scalar ? k->sreg_count : k->vreg_count;
    if (fields[f].reg >= limit) {
      return hrx_bad_code(k->name, pc, "register out of range");
    }
    if (f > 0 && !scalar) reads_vector = true;
  }
  bool dst_scalar = (i->flags & HRX_HOST_FLAG_DST_SCALAR) != 0;
  if ((use & HRX_HOST_USE_DST) && dst_scalar &&
      (reads_vector || (use & HRX_HOST_USE_VECTOR_DST))) {
    return hrx_bad_code(k->name, pc, "per-lane result in a scalar register");
  }
  if ((use & HRX_HOST_USE_SCALAR_A) && !(i->flags & HRX_HOST_FLAG_A_SCALAR)) {
    return hrx_bad_code(k->name, pc, "uniform branch on a vector register");
  }
  if ((use & HRX_HOST_USE_JUMP) && i->imm >= k->insn_count) {
    return hrx_bad_code(k->name, pc, "jump target out of range");
  }
  switch ((hrx_host_op_t)i->op) {
    case HRX_HOST_OP_CONST:
      if (i->imm >= k->const_count) {
        return hrx_bad_code(k->name, pc, "constant index out of range");
      }
      break;
    case HRX_HOST_OP_ARG:
      if ((uint64_t)i->imm + hrx_host_type_bytes(i->type) > k->kernarg_size) {
        return hrx_bad_code(k->name, pc, "argument read past the kernarg");
      }
      break;
    case HRX_HOST_OP_BINDING:
      if (i->imm >= k->buffer_count) {
        return hrx_bad_code(k->name, pc, "binding index out of range");
      }
      break;
    case HRX_HOST_OP_ICMP:
      if (i->aux >= HRX_HOST_ICMP_COUNT)
        return hrx_bad_code(k->name, pc, "bad predicate");
      break;
    case HRX_HOST_OP_FCMP:
      if (i->aux >= HRX_HOST_FCMP_COUNT)
        return hrx_bad_code(k->name, pc, "bad predicate");
      break;
    case HRX_HOST_OP_CVT:
      if (i->aux >= HRX_HOST_TYPE_COUNT || i->imm >= HRX_HOST_CVT_COUNT) {
        return hrx_bad_code(k->name, pc, "bad conversion");
      }
      break;
    case HRX_HOST_OP_WORKITEM_ID:
    case HRX_HOST_OP_WORKGROUP_ID:
    case HRX_HOST_OP_WORKGROUP_SIZE:
    case HRX_HOST_OP_WORKGROUP_COUNT:
      if (i->aux > 2) return hrx_bad_code(k->name, pc, "bad dimension");
      break;
    case HRX_HOST_OP_SHUFFLE:
    case HRX_HOST_OP_SHUFFLE_OK:
      if (i->aux >= HRX_HOST_SHUFFLE_COUNT) {
        return hrx_bad_code(k->name, pc, "bad shuffle mode");
      }
      break;
    case HRX_HOST_OP_REDUCE:
    case HRX_HOST_OP_ATOMIC_RMW:
    case HRX_HOST_OP_COMBINE:
      if (i->aux >= HRX_HOST_COMBINE_COUNT) {
        return hrx_bad_code(k->name, pc, "bad combine kind");
      }
      if (i->op == HRX_HOST_OP_REDUCE && i->imm > HRX_HOST_MAX_LANES) {
        return hrx_bad_code(k->name, pc, "bad cluster size");
      }
      if (i->op == HRX_HOST_OP_ATOMIC_RMW && i->imm >= HRX_HOST_ORDER_COUNT) {
        return hrx_bad_code(k->name, pc, "bad ordering");
      }
      break;
    case HRX_HOST_OP_ATOMIC_LOAD:
    case HRX_HOST_OP_ATOMIC_STORE:
    case HRX_HOST_OP_FENCE:
      if (i->imm >= HRX_HOST_ORDER_COUNT) {
        return hrx_bad_code(k->name, pc, "bad ordering");
      }
      break;
    case HRX_HOST_OP_PTR_ADD:
      if (i->imm == 0) return hrx_bad_code(k->name, pc, "pointer scale 0");
      break;
    case HRX_HOST_OP_ASSERT:
      if (i->aux >= HRX_HOST_ASSERT_COUNT) {
        return hrx_bad_code(k->name, pc, "bad assertion kind");
      }
      break;
    default:
      break;
  }
  return HRX_OK;
}

/* A bounds-checked reader over the code object. */
typedef struct hrx_reader_t {
  const uint8_t* cursor;
  const uint8_t* end;
  bool overrun;
} hrx_reader_t;

static uint64_t hrx_read(hrx_reader_t* r, int bytes) {
  if (r->overrun || r->end - r->cursor < bytes) {
    r->overrun = true;
    return 0;
  }
  return hrx_get_le(&r->cursor, bytes);
}

static const uint8_t* hrx_read_span(hrx_reader_t* r, uint64_t length) {
  if (r->overrun || (uint64_t)(r->end - r->cursor) < length) {
    r->overrun = true;
    return NULL;
  }
  const uint8_t* at = r->cursor;
  r->cursor += length;
  return at;
}

static hrx_status_t hrx_truncated(void) {
  return hrx_make_status(HRX_STATUS_DATA_LOSS, "code object is truncated");
}

static hrx_status_t hrx_parse_kernel(hrx_fabric_executable_t* exe,
                                     hrx_reader_t* r, hrx_fabric_kernel_t* k) {
  hrx_allocator_t a = exe->allocator;
  k->executable = exe;
  uint64_t name_length = hrx_read(r, 4);
  const uint8_t* name = hrx_read_span(r, name_length);
  if (r->overrun) return hrx_truncated();
  if (name_length == 0 || name_length > HRX_HOST_MAX_KERNEL_NAME ||
      memchr(name, 0, name_length)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "code object kernel name is empty, too long or "
                           "contains NUL");
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_uninitialized(
      a, name_length + 1, (void**)&k->name));
  memcpy(k->name, name, name_length);
  k->name[name_length] = '\0';
  k->subgroup_size = (uint32_t)hrx_read(r, 4);
  k->sreg_count = (uint32_t)hrx_read(r, 4);
  k->vreg_count = (uint32_t)hrx_read(r, 4);
  k->group_segment_size = (uint32_t)hrx_read(r, 4);
  k->private_segment_size = (uint32_t)hrx_read(r, 4);
  k->flags = (uint32_t)hrx_read(r, 4);
  k->kernarg_size = (uint32_t)hrx_read(r, 4);
  k->arg_count = (uint32_t)hrx_read(r, 4);
  if (r->overrun) return hrx_truncated();
  if ((k->subgroup_size != 32 && k->subgroup_size != 64) ||
      k->sreg_count > HRX_HOST_MAX_REGISTERS ||
      k->vreg_count > HRX_HOST_MAX_REGISTERS ||
      k->group_segment_size > (64u << 20) || k->kernarg_size > 65536 ||
      k->arg_count > 1024 || k->private_segment_size > (1u << 20)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "code object kernel '%s' has out-of-range limits",
                           k->name);
  }
  if (k->flags & ~HRX_HOST_KERNEL_FLAGS_KNOWN) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "code object kernel '%s' has flags 0x%x this "
                           "build does not know",
                           k->name, k->flags);
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      a, k->arg_count ? k->arg_count : 1, sizeof(*k->args),
      (void**)&k->args));
  for (uint32_t i = 0; i < k->arg_count; ++i) {
    uint8_t kind = (uint8_t)hrx_read(r, 1);
    uint8_t type = (uint8_t)hrx_read(r, 1);
    (void)hrx_read(r, 2);
    uint32_t offset = (uint32_t)hrx_read(r, 4);
    if (r->overrun) return hrx_truncated();
    uint32_t size = kind == HRX_HOST_ARG_BUFFER ? 8 : hrx_host_type_bytes(type);
    if (kind > HRX_HOST_ARG_BUFFER || size == 0 ||
        type >= HRX_HOST_TYPE_COUNT ||
        (uint64_t)offset + size > k->kernarg_size) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "code object kernel '%s' argument %u is "
                             "malformed", k->name, i);
    }
    k->args[i] = (hrx_fabric_kernel_arg_t){
        .kind = kind == HRX_HOST_ARG_BUFFER ? HRX_FABRIC_ARG_BUFFER
                                            : HRX_FABRIC_ARG_SCALAR,
        .type = type, .offset = offset, .size = size};
    if (kind == HRX_HOST_ARG_BUFFER) k->buffer_count++;
  }
  if (k->buffer_count > HRX_HOST_MAX_BINDINGS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "kernel '%s' has more than %u buffers", k->name,
                           HRX_HOST_MAX_BINDINGS);
  }
  k->const_count = (uint32_t)hrx_read(r, 4);
  if (r->overrun) return hrx_truncated();
  if (k->const_count > (1u << 20)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "kernel '%s' has too many constants", k->name);
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      a, k->const_count ? k->const_count : 1, sizeof(uint64_t),
      (void**)&k->constants));
  for (uint32_t i = 0; i < k->const_count; ++i) {
    k->constants[i] = hrx_read(r, 8);
  }
  k->insn_count = (uint32_t)hrx_read(r, 4);
  if (r->overrun) return hrx_truncated();
  if (k->insn_count == 0 || k->insn_count > (1u << 24)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "kernel '%s' has %u instructions", k->name,
                           k->insn_count);
  }
  if ((uint64_t)(r->end - r->cursor) < (uint64_t)k->insn_count * 16) {
    return hrx_truncated();
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      a, k->insn_count, sizeof(hrx_host_insn_t), (void**)&k->insns));
  for (uint32_t pc = 0; pc < k->insn_count; ++pc) {
    hrx_host_insn_t* i = &k->insns[pc];
    i->op = (uint8_t)hrx_read(r, 1);
    i->type = (uint8_t)hrx_read(r, 1);
    i->flags = (uint8_t)hrx_read(r, 1);
    i->aux = (uint8_t)hrx_read(r, 1);
    i->dst = (uint16_t)hrx_read(r, 2);
    i->a = (uint16_t)hrx_read(r, 2);
    i->b = (uint16_t)hrx_read(r, 2);
    i->c = (uint16_t)hrx_read(r, 2);
    i->imm = (uint32_t)hrx_read(r, 4);
  }
  for (uint32_t pc = 0; pc < k->insn_count; ++pc) {
    HRX_RETURN_IF_ERROR(hrx_check_insn(k, pc));
  }
  uint8_t last = k->insns[k->insn_count - 1].op;
  if (last != HRX_HOST_OP_RET && last != HRX_HOST_OP_JMP) {
    return hrx_bad_code(k->name, k->insn_count - 1,
                        "program does not end in RET or JMP");
  }
  uint64_t launch_length = hrx_read(r, 4);
  k->launch_program = hrx_read_span(r, launch_length);
  k->launch_program_length = (size_t)launch_length;
  if (r->overrun) return hrx_truncated();
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* The native section (hrx/fabric/host_native.h)                           */
/*===------------------------------------------------------------------===*/

static hrx_status_t hrx_native_note(hrx_fabric_executable_t* exe,
                                    hrx_fabric_kernel_t* k, const char* text,
                                    size_t length) {
  hrx_allocator_free(exe->allocator, k->native_note);
  k->native_note = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_uninitialized(
      exe->allocator, length + 1, (void**)&k->native_note));
  memcpy(k->native_note, text, length);
  k->native_note[length] = '\0';
  return HRX_OK;
}

static hrx_status_t hrx_native_note_all(hrx_fabric_executable_t* exe,
                                        const char* text) {
  for (uint32_t k = 0; k < exe->kernel_count; ++k) {
    if (exe->kernels[k].native_note) continue;
    HRX_RETURN_IF_ERROR(
        hrx_native_note(exe, &exe->kernels[k], text, strlen(text)));
  }
  return HRX_OK;
}

static hrx_status_t hrx_native_malformed(const char* what) {
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "code object native section: %s", what);
}

/* Reads the native section and loads its code when this device can run
 * it. A section that does not frame is an error; code the device cannot
 * run leaves its kernels to the interpreter, with a note saying why. */
static hrx_status_t hrx_native_parse(hrx_fabric_executable_t* exe,
                                     hrx_reader_t* r) {
  const uint8_t* magic = hrx_read_span(r, 4);
  uint32_t abi = (uint32_t)hrx_read(r, 4);
  if (r->overrun) return hrx_truncated();
  if (memcmp(magic, HRX_HOST_NATIVE_MAGIC, 4) != 0) {
    return hrx_native_malformed("bad magic");
  }
  if (abi != HRX_HOST_NATIVE_ABI) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "code object native section ABI %u; this build "
                           "reads %u", abi, HRX_HOST_NATIVE_ABI);
  }
  uint64_t cpu_length = hrx_read(r, 4);
  const uint8_t* cpu = hrx_read_span(r, cpu_length);
  uint64_t features_length = hrx_read(r, 4);
  const uint8_t* features = hrx_read_span(r, features_length);
  uint32_t count = (uint32_t)hrx_read(r, 4);
  if (r->overrun) return hrx_truncated();
  if (cpu_length > HRX_HOST_NATIVE_MAX_CPU ||
      features_length > HRX_HOST_NATIVE_MAX_FEATURES ||
      memchr(cpu, 0, cpu_length) || memchr(features, 0, features_length)) {
    return hrx_native_malformed("bad target");
  }
  if (count != exe->kernel_count) {
    return hrx_native_malformed("kernel count differs from the code "
                                "object's");
  }
  uint32_t with_code = 0;
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t has_code = (uint32_t)hrx_read(r, 4);
    uint64_t note_length = hrx_read(r, 4);
    const uint8_t* note = hrx_read_span(r, note_length);
    if (r->overrun) return hrx_truncated();
    if (has_code > 1 || note_length > HRX_HOST_NATIVE_MAX_NOTE ||
        memchr(note, 0, note_length)) {
      return hrx_native_malformed("bad kernel entry");
    }
    hrx_fabric_kernel_t* kernel = &exe->kernels[k];
    if (has_code) {
      ++with_code;
    } else {
      HRX_RETURN_IF_ERROR(hrx_native_note(
          exe, kernel, note_length ? (const char*)note : "declined",
          note_length ? note_length : 8));
    }
  }
  uint64_t object_length = hrx_read(r, 4);
  const uint8_t* object = hrx_read_span(r, object_length);
  if (r->overrun) return hrx_truncated();
  if (object_length > HRX_HOST_NATIVE_MAX_OBJECT ||
      (with_code && object_length == 0)) {
    return hrx_native_malformed("bad object length");
  }
  if (!with_code) return HRX_OK;
  const char* disabled = getenv("HRX_HOST_NATIVE");
  if (disabled && !strcmp(disabled, "0")) {
    return hrx_native_note_all(exe, "HRX_HOST_NATIVE=0: the interpreter "
                                    "runs every kernel");
  }
  char why[256];
  if (!hrx_host_native_cpu_supports((const char*)features, features_length,
                                    why, sizeof(why))) {
    char text[384];
    snprintf(text, sizeof(text), "native code for %.*s refused: %s",
             (int)cpu_length, (const char*)cpu, why);
    return hrx_native_note_all(exe, text);
  }
  size_t symbol_count = 0;
  const hrx_host_native_symbol_t* symbols =
      hrx_host_native_symbols(&symbol_count);
  hrx_status_t loaded = hrx_host_native_image_load(
      object, object_length, symbols, symbol_count, exe->allocator,
      &exe->native_image);
  if (loaded != HRX_OK) {
    char text[384];
    hrx_status_format(loaded, text, sizeof(text));
    hrx_status_free(loaded);
    return hrx_native_note_all(exe, text);
  }
  for (uint32_t k = 0; k < count; ++k) {
    hrx_fabric_kernel_t* kernel = &exe->kernels[k];
    if (kernel->native_note) continue;
    char name[64];
    snprintf(name, sizeof(name), HRX_HOST_NATIVE_SYMBOL_PREFIX "%u", k);
    void* entry = hrx_host_native_image_find(exe->native_image, name);
    if (!entry) {
      char text[96];
      snprintf(text, sizeof(text), "native object has no %s", name);
      HRX_RETURN_IF_ERROR(hrx_native_note(exe, kernel, text, strlen(text)));
      continue;
    }
    kernel->native = (int32_t (*)(struct hrx_host_native_args_t*))entry;
  }
  return HRX_OK;
}

hrx_status_t hrx_host_code_object_parse(hrx_fabric_executable_t* exe,
                                        const uint8_t* bytes, size_t length) {
  if (length < 12 + HRX_SHA256_DIGEST_SIZE) return hrx_truncated();
  if (memcmp(bytes, HRX_HOST_CODE_MAGIC, 4) != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "not a host code object (bad magic)");
  }
  hrx_sha256_digest_t digest;
  size_t body = length - HRX_SHA256_DIGEST_SIZE;
  hrx_sha256(bytes, body, &digest);
  if (memcmp(digest.bytes, bytes + body, HRX_SHA256_DIGEST_SIZE) != 0) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "code object fails its checksum (truncated or "
                           "tampered)");
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_uninitialized(
      exe->allocator, length, (void**)&exe->storage));
  memcpy(exe->storage, bytes, length);
  exe->storage_length = length;
  hrx_reader_t r = {exe->storage + 4, exe->storage + body, false};
  uint32_t version = (uint32_t)hrx_read(&r, 4);
  if (version < HRX_HOST_CODE_VERSION_MIN || version > HRX_HOST_CODE_VERSION) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "code object version %u; this build reads %u "
                           "to %u", version, HRX_HOST_CODE_VERSION_MIN,
                           HRX_HOST_CODE_VERSION);
  }
  uint32_t count = (uint32_t)hrx_read(&r, 4);
  if (count == 0 || count > HRX_HOST_MAX_KERNELS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "code object has %u kernels", count);
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      exe->allocator, count, sizeof(hrx_fabric_kernel_t),
      (void**)&exe->kernels));
  exe->kernel_count = count;
  for (uint32_t k = 0; k < count; ++k) {
    HRX_RETURN_IF_ERROR(hrx_parse_kernel(exe, &r, &exe->kernels[k]));
  }
  if (version >= 4 && r.end - r.cursor >= 4 &&
      !memcmp(r.cursor, HRX_HOST_NATIVE_MAGIC, 4)) {
    HRX_RETURN_IF_ERROR(hrx_native_parse(exe, &r));
  } else {
    HRX_RETURN_IF_ERROR(hrx_native_note_all(
        exe, "no native code in this code object (compiled without LLVM, "
             "or for another device)"));
  }
  if (r.cursor != r.end) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "code object has %zu trailing bytes",
                           (size_t)(r.end - r.cursor));
  }
  return HRX_OK;
}

void hrx_host_code_object_free(hrx_fabric_executable_t* exe) {
  for (uint32_t k = 0; exe->kernels && k < exe->kernel_count; ++k) {
    hrx_fabric_kernel_t* kernel = &exe->kernels[k];
    hrx_allocator_free(exe->allocator, kernel->name);
    hrx_allocator_free(exe->allocator, kernel->args);
    hrx_allocator_free(exe->allocator, kernel->constants);
    hrx_allocator_free(exe->allocator, kernel->insns);
    hrx_allocator_free(exe->allocator, kernel->native_note);
  }
  hrx_host_native_image_free(exe->native_image);
  exe->native_image = NULL;
  hrx_allocator_free(exe->allocator, exe->kernels);
  hrx_allocator_free(exe->allocator, exe->storage);
  exe->kernels = NULL;
  exe->storage = NULL;
}

void hrx_fabric_executable_retain(hrx_fabric_executable_t* exe) {
  if (exe) atomic_fetch_add_explicit(&exe->ref_count, 1, memory_order_relaxed);
}

void hrx_fabric_executable_release(hrx_fabric_executable_t* exe) {
  if (!exe) return;
  if (exe->destroy) {
    if (atomic_fetch_sub_explicit(&exe->ref_count, 1,
                                  memory_order_acq_rel) == 1) {
      exe->destroy(exe);
    }
    return;
  }
  hrx_host_device_t* device = hrx_host_device_cast(exe->device);
  /* Dispatch-time lookups retain under the device lock, so the last
   * release unregisters under it too: no lookup can revive a dying one. */
  pthread_mutex_lock(&device->mutex);
  bool last = atomic_fetch_sub_explicit(&exe->ref_count, 1,
                                        memory_order_acq_rel) == 1;
  pthread_mutex_unlock(&device->mutex);
  if (!last) return;
  hrx_host_device_forget_executable(device, exe);
  hrx_fabric_device_t* owner = exe->device;
  hrx_host_code_object_free(exe);
  hrx_allocator_free(exe->allocator, exe);
  hrx_fabric_device_release(owner);
}

size_t hrx_fabric_executable_kernel_count(const hrx_fabric_executable_t* exe) {
  return exe->kernel_count;
}

const hrx_fabric_kernel_t* hrx_fabric_executable_kernel_at(
    const hrx_fabric_executable_t* exe, size_t index) {
  return index < exe->kernel_count ? &exe->kernels[index] : NULL;
}

hrx_status_t hrx_fabric_executable_find_kernel(
    const hrx_fabric_executable_t* exe, const char* name,
    const hrx_fabric_kernel_t** out_kernel) {
  *out_kernel = NULL;
  for (uint32_t k = 0; k < exe->kernel_count; ++k) {
    if (strcmp(exe->kernels[k].name, name) == 0) {
      *out_kernel = &exe->kernels[k];
      return HRX_OK;
    }
  }
  return hrx_make_status(HRX_STATUS_NOT_FOUND,
                         "no kernel '%s' in this executable", name);
}

hrx_status_t hrx_fabric_kernel_info(const hrx_fabric_kernel_t* k,
                                    hrx_fabric_kernel_info_t* out) {
  hrx_fabric_kernel_info_t info = {
      .name = k->name,
      .kernarg_size = k->kernarg_size,
      .group_segment_size = k->group_segment_size,
      .private_segment_size = k->private_segment_size,
      .race_checked = (k->flags & HRX_HOST_KERNEL_RACE_CHECK) != 0,
      .subgroup_size = k->subgroup_size,
      .arg_count = k->arg_count,
      .args = k->args,
      .launch_program = k->launch_program,
      .launch_program_length = k->launch_program_length,
      .native = k->native != NULL,
      .native_note = k->native ? NULL : k->native_note,
  };
  return HRX_STRUCT_WRITE(hrx_fabric_kernel_info_t, native_note, &info, out);
}

uint64_t hrx_fabric_kernel_object(const hrx_fabric_kernel_t* kernel) {
  return kernel->object ? kernel->object : (uint64_t)(uintptr_t)kernel;
}
