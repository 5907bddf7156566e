/* Mnemonics of decoded gfx11 instructions, for fault reports. The names
 * come from the opcode lists of gfx11_opcodes.h that also number the
 * executors' opcodes; compares are named from their opcode's fields the
 * way exec_compare reads them. */
#include <stdio.h>
#include <string.h>

#include "gfx11_internal.h"

typedef struct op_name_t {
  uint32_t op;
  const char* name;
} op_name_t;

#define NAME_ENTRY(id, number, name) {number, name},
static const op_name_t sop1_names[] = {GFX11_SOP1_OPS(NAME_ENTRY)};
static const op_name_t sop2_names[] = {GFX11_SOP2_OPS(NAME_ENTRY)};
static const op_name_t sopc_names[] = {GFX11_SOPC_OPS(NAME_ENTRY)};
static const op_name_t sopk_names[] = {GFX11_SOPK_OPS(NAME_ENTRY)};
static const op_name_t sopp_names[] = {GFX11_SOPP_OPS(NAME_ENTRY)};
static const op_name_t smem_names[] = {GFX11_SMEM_OPS(NAME_ENTRY)};
static const op_name_t vop_names[] = {GFX11_VOP_OPS(NAME_ENTRY)};
static const op_name_t vop3p_names[] = {GFX11_VOP3P_OPS(NAME_ENTRY)};
static const op_name_t global_names[] = {GFX11_GLOBAL_OPS(NAME_ENTRY)};
static const op_name_t scratch_names[] = {GFX11_SCRATCH_OPS(NAME_ENTRY)};
static const op_name_t ds_names[] = {GFX11_DS_OPS(NAME_ENTRY)};
static const op_name_t mubuf_names[] = {GFX11_MUBUF_OPS(NAME_ENTRY)};
#undef NAME_ENTRY

typedef struct name_table_t {
  const op_name_t* names;
  size_t count;
} name_table_t;

#define TABLE(names) {names, sizeof(names) / sizeof(names[0])}

static const char* lookup(name_table_t table, uint32_t op) {
  for (size_t i = 0; i < table.count; ++i) {
    if (table.names[i].op == op) return table.names[i].name;
  }
  return NULL;
}

/* v_cmp{x}_<condition>_<type> for the compare ranges the model executes
 * (f16 0-15, f32 16-31, i16 48-55, u16 56-63, i32 64-71, u32 72-79, i64
 * 80-87, u64 88-95, class f16 125 and f32 126; +128: cmpx). */
static bool compare_name(uint32_t op, char* out, size_t size) {
  static const char* const float_conditions[16] = {
      "f", "lt", "eq", "le", "gt", "lg", "ge", "o",
      "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "t"};
  static const char* const int_conditions[8] = {"f",  "lt", "eq", "le",
                                                "gt", "ne", "ge", "t"};
  static const char* const int_types[6] = {"i16", "u16", "i32",
                                           "u32", "i64", "u64"};
  const char* prefix = op & 0x80 ? "v_cmpx" : "v_cmp";
  uint32_t base = op & 0x7F;
  if (base <= 0x1F) {
    snprintf(out, size, "%s_%s_%s", prefix, float_conditions[base & 0xF],
             base < 0x10 ? "f16" : "f32");
    return true;
  }
  if (base == 0x7D || base == 0x7E) {
    snprintf(out, size, "%s_class_%s", prefix, base == 0x7D ? "f16" : "f32");
    return true;
  }
  if (base >= 0x30 && base <= 0x5F) {
    snprintf(out, size, "%s_%s_%s", prefix, int_conditions[base & 7],
             int_types[(base - 0x30) / 8]);
    return true;
  }
  return false;
}

/* A VOP-numbered op's name; |suffix| marks the VOP3 form of a VOP1, VOP2
 * or VOPC op, as LLVM prints it. */
static bool vop_name(uint32_t op, const char* suffix, char* out, size_t size) {
  if (op < 0x100) {
    if (!compare_name(op, out, size)) return false;
    strncat(out, suffix, size - strlen(out) - 1);
    return true;
  }
  const char* name = lookup((name_table_t)TABLE(vop_names), op);
  if (!name) return false;
  snprintf(out, size, "%s%s", name, suffix);
  return true;
}

/* "v_dual_<x>::<y>", the two halves without their "v_". */
static bool vopd_name(const gfx11_inst_t* inst, char* out, size_t size) {
  const char* x = lookup((name_table_t)TABLE(vop_names),
                         gfx11_vopd_op(inst->op, false));
  const char* y = lookup((name_table_t)TABLE(vop_names),
                         gfx11_vopd_op(inst->op_y, true));
  if (!x || !y) return false;
  snprintf(out, size, "v_dual_%s::%s", x + 2, y + 2);
  return true;
}

/* The encoding's name and its own opcode number (VOP1, VOP2 and VOPC
 * ops are stored renumbered into the VOP3 space). */
static const char* encoding_name(const gfx11_inst_t* inst, uint32_t* op) {
  static const char* const names[] = {
      [GFX11_SOP1] = "SOP1",   [GFX11_SOP2] = "SOP2",
      [GFX11_SOPC] = "SOPC",   [GFX11_SOPK] = "SOPK",
      [GFX11_SOPP] = "SOPP",   [GFX11_SMEM] = "SMEM",
      [GFX11_VOP1] = "VOP1",   [GFX11_VOP2] = "VOP2",
      [GFX11_VOPC] = "VOPC",   [GFX11_VOP3] = "VOP3",
      [GFX11_VOPD] = "VOPD",   [GFX11_GLOBAL] = "GLOBAL",
      [GFX11_DS] = "DS",       [GFX11_MUBUF] = "MUBUF",
      [GFX11_VOP3P] = "VOP3P", [GFX11_SCRATCH] = "SCRATCH"};
  *op = inst->op;
  if (inst->encoding == GFX11_VOP1) *op -= 0x180;
  if (inst->encoding == GFX11_VOP2) *op -= 0x100;
  return names[inst->encoding];
}

static name_table_t table_of(gfx11_encoding_t encoding) {
  switch (encoding) {
    case GFX11_SOP1: return (name_table_t)TABLE(sop1_names);
    case GFX11_SOP2: return (name_table_t)TABLE(sop2_names);
    case GFX11_SOPC: return (name_table_t)TABLE(sopc_names);
    case GFX11_SOPK: return (name_table_t)TABLE(sopk_names);
    case GFX11_SOPP: return (name_table_t)TABLE(sopp_names);
    case GFX11_SMEM: return (name_table_t)TABLE(smem_names);
    case GFX11_VOP3P: return (name_table_t)TABLE(vop3p_names);
    case GFX11_GLOBAL: return (name_table_t)TABLE(global_names);
    case GFX11_SCRATCH: return (name_table_t)TABLE(scratch_names);
    case GFX11_DS: return (name_table_t)TABLE(ds_names);
    case GFX11_MUBUF: return (name_table_t)TABLE(mubuf_names);
    default: return (name_table_t){NULL, 0};
  }
}

void gfx11_mnemonic(const gfx11_inst_t* inst, char* out, size_t size) {
  out[0] = '\0';
  bool named;
  switch (inst->encoding) {
    case GFX11_VOP1: case GFX11_VOP2: case GFX11_VOPC:
      named = vop_name(inst->op, "", out, size);
      break;
    case GFX11_VOP3:
      /* Ops below 0x200 also have a short form; LLVM names this one e64. */
      named = vop_name(inst->op, inst->op < 0x200 ? "_e64" : "", out, size);
      break;
    case GFX11_VOPD:
      named = vopd_name(inst, out, size);
      break;
    default: {
      const char* name = lookup(table_of(inst->encoding), inst->op);
      if (name) snprintf(out, size, "%s", name);
      named = name != NULL;
      break;
    }
  }
  if (named) return;
  uint32_t op = 0;
  const char* encoding = encoding_name(inst, &op);
  snprintf(out, size, "%s opcode %u", encoding, op);
}
