/* Decodes gfx11 instruction words into gfx11_inst_t. Field positions are
 * those of the RDNA3 ISA guide's microcode formats (cross-checked against
 * llvm-mc-19 -mcpu=gfx1151 encodings in tests/fabric/test_gfx11.c). */
#include <string.h>

#include "gfx11_internal.h"

static uint32_t bits(uint32_t word, int high, int low) {
  return (word >> low) & ((1u << (high - low + 1)) - 1u);
}

static int32_t sign_extend(uint32_t value, int width) {
  uint32_t sign = 1u << (width - 1);
  return (int32_t)((value ^ sign) - sign);
}

static uint32_t word_at(const uint8_t* bytes, size_t index) {
  const uint8_t* p = bytes + 4 * index;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* Appends the 32-bit literal when any source asks for one (code 255);
 * false when it lies past the readable bytes. */
static bool take_literal(const uint8_t* bytes, size_t available,
                         const uint32_t* sources, int count,
                         gfx11_inst_t* inst) {
  for (int i = 0; i < count; ++i) {
    if (sources[i] != GFX11_LITERAL) continue;
    if (available < inst->size + 4) return false;
    inst->literal = word_at(bytes, inst->size / 4);
    inst->size += 4;
    return true;
  }
  return true;
}

static bool decode_scalar(uint32_t w, gfx11_inst_t* inst) {
  inst->size = 4;
  if (bits(w, 31, 23) == 0x17D) {
    inst->encoding = GFX11_SOP1;
    inst->dst = bits(w, 22, 16);
    inst->op = bits(w, 15, 8);
    inst->src[0] = bits(w, 7, 0);
  } else if (bits(w, 31, 23) == 0x17E) {
    inst->encoding = GFX11_SOPC;
    inst->op = bits(w, 22, 16);
    inst->src[1] = bits(w, 15, 8);
    inst->src[0] = bits(w, 7, 0);
  } else if (bits(w, 31, 23) == 0x17F) {
    inst->encoding = GFX11_SOPP;
    inst->op = bits(w, 22, 16);
    inst->imm = sign_extend(bits(w, 15, 0), 16);
  } else if (bits(w, 31, 28) == 0xB) {
    inst->encoding = GFX11_SOPK;
    inst->op = bits(w, 27, 23);
    inst->dst = bits(w, 22, 16);
    inst->imm = sign_extend(bits(w, 15, 0), 16);
  } else {
    inst->encoding = GFX11_SOP2;
    inst->op = bits(w, 29, 23);
    inst->dst = bits(w, 22, 16);
    inst->src[1] = bits(w, 15, 8);
    inst->src[0] = bits(w, 7, 0);
  }
  return true;
}

/* VOP1/VOP2/VOPC, renumbered into the VOP3 opcode space (VOPC 0-255,
 * VOP2 256+, VOP1 384+) so one executor covers both forms. */
static void decode_vop_short(uint32_t w, gfx11_inst_t* inst) {
  inst->size = 4;
  inst->src[0] = bits(w, 8, 0);
  if (bits(w, 31, 25) == 0x3F) {
    inst->encoding = GFX11_VOP1;
    inst->op = 0x180 + bits(w, 16, 9);
    inst->dst = GFX11_VGPR0 + bits(w, 24, 17);
  } else if (bits(w, 31, 25) == 0x3E) {
    inst->encoding = GFX11_VOPC;
    inst->op = bits(w, 24, 17);
    inst->src[1] = GFX11_VGPR0 + bits(w, 16, 9);
    inst->sdst = GFX11_VCC_LO;
  } else {
    inst->encoding = GFX11_VOP2;
    inst->op = 0x100 + bits(w, 30, 25);
    inst->dst = GFX11_VGPR0 + bits(w, 24, 17);
    inst->src[1] = GFX11_VGPR0 + bits(w, 16, 9);
    /* Carry-in and condition of the short form come from VCC. */
    inst->src[2] = GFX11_VCC_LO;
    inst->sdst = GFX11_VCC_LO;
  }
}

/* VOP3SD opcodes put a scalar carry destination where VOP3 keeps abs and
 * opsel. */
static bool is_vop3sd(uint32_t op) {
  return (op >= 0x120 && op <= 0x122) || (op >= 0x2FC && op <= 0x302);
}

static void decode_vop3(uint32_t w0, uint32_t w1, gfx11_inst_t* inst) {
  inst->encoding = GFX11_VOP3;
  inst->e64 = true;
  inst->size = 8;
  inst->op = bits(w0, 25, 16);
  inst->clamp = bits(w0, 15, 15);
  inst->src[0] = bits(w1, 8, 0);
  inst->src[1] = bits(w1, 17, 9);
  inst->src[2] = bits(w1, 26, 18);
  inst->omod = bits(w1, 28, 27);
  inst->neg = bits(w1, 31, 29);
  if (is_vop3sd(inst->op)) {
    inst->sdst = bits(w0, 14, 8);
    inst->dst = GFX11_VGPR0 + bits(w0, 7, 0);
  } else if (inst->op < 0x100) {
    /* A compare's destination is a scalar mask, not a VGPR. */
    inst->abs = bits(w0, 10, 8);
    inst->sdst = bits(w0, 7, 0);
  } else {
    inst->abs = bits(w0, 10, 8);
    inst->dst = GFX11_VGPR0 + bits(w0, 7, 0);
  }
  if (!is_vop3sd(inst->op)) inst->opsel = bits(w0, 14, 11);
}

/* VOP3P: packed 16-bit math. op_sel_hi's bit 2 and neg_hi sit in the
 * first word, its bits 0-1 and neg_lo in the second. */
static bool decode_vop3p(uint32_t w0, uint32_t w1, gfx11_inst_t* inst) {
  if (bits(w0, 31, 23) != 0x198) return false;
  inst->encoding = GFX11_VOP3P;
  inst->size = 8;
  inst->dst = GFX11_VGPR0 + bits(w0, 7, 0);
  inst->neg_hi = bits(w0, 10, 8);
  inst->opsel = bits(w0, 13, 11);
  inst->opsel_hi = bits(w1, 28, 27) | bits(w0, 14, 14) << 2;
  inst->clamp = bits(w0, 15, 15);
  inst->op = bits(w0, 22, 16);
  inst->src[0] = bits(w1, 8, 0);
  inst->src[1] = bits(w1, 17, 9);
  inst->src[2] = bits(w1, 26, 18);
  inst->neg = bits(w1, 31, 29);
  return true;
}

static void decode_vopd(uint32_t w0, uint32_t w1, gfx11_inst_t* inst) {
  inst->encoding = GFX11_VOPD;
  inst->size = 8;
  inst->src[0] = bits(w0, 8, 0);
  inst->src[1] = GFX11_VGPR0 + bits(w0, 16, 9);
  inst->op_y = bits(w0, 21, 17);
  inst->op = bits(w0, 25, 22);
  inst->src_y[0] = bits(w1, 8, 0);
  inst->src_y[1] = GFX11_VGPR0 + bits(w1, 16, 9);
  uint32_t dst_x = bits(w1, 31, 24);
  inst->dst = GFX11_VGPR0 + dst_x;
  /* The Y destination's low bit is implied: the opposite of X's, so the
   * two writes land in different VGPR banks. */
  inst->dst_y = GFX11_VGPR0 + ((bits(w1, 23, 17) << 1) | ((dst_x & 1) ^ 1));
}

static void decode_smem(uint32_t w0, uint32_t w1, gfx11_inst_t* inst) {
  inst->encoding = GFX11_SMEM;
  inst->size = 8;
  inst->op = bits(w0, 25, 18);
  inst->dst = bits(w0, 12, 6);
  inst->src[0] = bits(w0, 5, 0) * 2;  /* SGPR pair index */
  inst->src[1] = bits(w1, 31, 25);    /* soffset (NULL when unused) */
  inst->imm = sign_extend(bits(w1, 20, 0), 21);
}

static bool decode_flat(uint32_t w0, uint32_t w1, gfx11_inst_t* inst) {
  /* SEG 1 is SCRATCH, 2 GLOBAL; FLAT (0) needs apertures, not modelled. */
  uint32_t segment = bits(w0, 17, 16);
  if (segment != 1 && segment != 2) return false;
  inst->encoding = segment == 1 ? GFX11_SCRATCH : GFX11_GLOBAL;
  inst->size = 8;
  inst->op = bits(w0, 24, 18);
  inst->imm = sign_extend(bits(w0, 12, 0), 13);
  inst->glc = bits(w0, 14, 14);
  inst->src[0] = GFX11_VGPR0 + bits(w1, 7, 0);   /* address */
  inst->src[1] = GFX11_VGPR0 + bits(w1, 15, 8);  /* store data */
  inst->src[2] = bits(w1, 22, 16);               /* saddr or NULL */
  inst->dst = GFX11_VGPR0 + bits(w1, 31, 24);
  /* SCRATCH reads its VGPR address only with SVE (bit 23 of the second
   * dword); without it the address is the SGPR's and the offset's. */
  if (segment == 1 && !bits(w1, 23, 23)) inst->src[0] = GFX11_NULL;
  return true;
}

static void decode_ds(uint32_t w0, uint32_t w1, gfx11_inst_t* inst) {
  inst->encoding = GFX11_DS;
  inst->size = 8;
  inst->op = bits(w0, 25, 18);
  /* offset0 and offset1 form one 16-bit offset for the single-address
   * ops, the only ones modelled. */
  inst->imm = (int32_t)bits(w0, 15, 0);
  inst->src[0] = GFX11_VGPR0 + bits(w1, 7, 0);    /* address */
  inst->src[1] = GFX11_VGPR0 + bits(w1, 15, 8);   /* data0 */
  inst->src[2] = GFX11_VGPR0 + bits(w1, 23, 16);  /* data1 */
  inst->dst = GFX11_VGPR0 + bits(w1, 31, 24);
}

bool gfx11_decode(const uint8_t* bytes, size_t available,
                  gfx11_inst_t* out_inst) {
  gfx11_inst_t inst;
  memset(&inst, 0, sizeof(inst));
  if (available < 4) return false;
  uint32_t w0 = word_at(bytes, 0);
  uint32_t top6 = bits(w0, 31, 26);
  if (bits(w0, 31, 30) == 2) {
    decode_scalar(w0, &inst);
    /* s_fmaak_f32 and s_fmamk_f32 always carry their constant K as a
     * literal, s_setreg_imm32_b32 its value; otherwise SOPP and SOPK
     * carry immediates, never a literal source. */
    uint32_t always[1] = {GFX11_LITERAL};
    bool has_k =
        (inst.encoding == GFX11_SOP2 &&
         (inst.op == GFX11_S_FMAAK_F32 || inst.op == GFX11_S_FMAMK_F32)) ||
        (inst.encoding == GFX11_SOPK && inst.op == GFX11_S_SETREG_IMM32_B32);
    if (has_k) {
      if (!take_literal(bytes, available, always, 1, &inst)) return false;
    } else if (inst.encoding != GFX11_SOPP && inst.encoding != GFX11_SOPK &&
               !take_literal(bytes, available, inst.src, 2, &inst)) {
      return false;
    }
  } else if (bits(w0, 31, 31) == 0) {
    decode_vop_short(w0, &inst);
    /* v_fmamk_f32 and v_fmaak_f32 always carry their constant K as a
     * literal; a literal src0 is then that same word. */
    uint32_t always[1] = {GFX11_LITERAL};
    bool has_k = inst.encoding == GFX11_VOP2 &&
                 (inst.op == GFX11_V_FMAMK_F32 || inst.op == GFX11_V_FMAAK_F32);
    if (!take_literal(bytes, available, has_k ? always : inst.src, 1, &inst)) {
      return false;
    }
  } else if (top6 == 0x35 || top6 == 0x32 || top6 == 0x3D || top6 == 0x37 ||
             top6 == 0x36 || top6 == 0x38 || top6 == 0x33) {
    if (available < 8) return false;
    uint32_t w1 = word_at(bytes, 1);
    if (top6 == 0x35) {
      decode_vop3(w0, w1, &inst);
      if (!take_literal(bytes, available, inst.src, 3, &inst)) return false;
    } else if (top6 == 0x32) {
      decode_vopd(w0, w1, &inst);
      /* fmaak and fmamk (1, 2) in either half carry K as a literal, which
       * a literal src0 of either half then shares. */
      bool has_k = inst.op == 1 || inst.op == 2 || inst.op_y == 1 ||
                   inst.op_y == 2;
      uint32_t sources[2] = {has_k ? GFX11_LITERAL : inst.src[0],
                             inst.src_y[0]};
      if (!take_literal(bytes, available, sources, 2, &inst)) return false;
    } else if (top6 == 0x33) {
      if (!decode_vop3p(w0, w1, &inst) ||
          !take_literal(bytes, available, inst.src, 3, &inst)) {
        return false;
      }
    } else if (top6 == 0x3D) {
      decode_smem(w0, w1, &inst);
    } else if (top6 == 0x36) {
      decode_ds(w0, w1, &inst);
    } else if (top6 == 0x38) {
      inst.encoding = GFX11_MUBUF;
      inst.size = 8;
      inst.op = bits(w0, 25, 18);
    } else if (!decode_flat(w0, w1, &inst)) {
      return false;
    }
  } else {
    return false;
  }
  *out_inst = inst;
  return true;
}
