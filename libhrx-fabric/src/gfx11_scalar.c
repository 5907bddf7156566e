/* Scalar ALU, program control and scalar memory of the gfx11 model
 * (SOP1, SOP2, SOPC, SOPK, SOPP, SMEM). Opcode numbers are gfx11's, from
 * the RDNA3 ISA guide; SCC rules follow its per-opcode pseudocode. */
#include <math.h>
#include <string.h>

#include "gfx11_internal.h"
#include "host_numeric.h"

static bool unsupported(gfx11_wave_t* wave, const char* encoding,
                        uint32_t op) {
  return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                     "%s opcode %u is not modelled", encoding, op);
}

static void write_sgpr64(gfx11_wave_t* wave, uint32_t code, uint64_t value) {
  gfx11_write_sgpr(wave, code, (uint32_t)value);
  gfx11_write_sgpr(wave, code + 1, (uint32_t)(value >> 32));
}

/* The SALU float ops, whose denormals follow MODE as the VALU's do. */
static uint32_t salu_float(const gfx11_wave_t* wave, uint32_t op, uint32_t a,
                           uint32_t b, uint32_t k) {
  bool keep_in = wave->mode & GFX11_MODE_F32_DENORM_IN;
  float x = hrx_f32(gfx11_flush_f32(a, keep_in));
  float y = hrx_f32(gfx11_flush_f32(b, keep_in));
  float z = hrx_f32(gfx11_flush_f32(k, keep_in));
  uint32_t r;
  switch (op) {
    case GFX11_S_ADD_F32: r = hrx_f32_bits(x + y); break;
    case GFX11_S_SUB_F32: r = hrx_f32_bits(x - y); break;
    case GFX11_S_MUL_F32: r = hrx_f32_bits(x * y); break;
    /* The NaN rules of min and max follow MODE.IEEE, as the VALU's. */
    case GFX11_S_MIN_F32:
      r = gfx11_min_f32(hrx_f32_bits(x), hrx_f32_bits(y),
                        wave->mode & GFX11_MODE_IEEE);
      break;
    case GFX11_S_MAX_F32:
      r = gfx11_max_f32(hrx_f32_bits(x), hrx_f32_bits(y),
                        wave->mode & GFX11_MODE_IEEE);
      break;
    case GFX11_S_FMAAK_F32: case GFX11_S_FMAC_F32:
      r = hrx_f32_bits(fmaf(x, y, z));
      break;
    default: r = hrx_f32_bits(fmaf(x, z, y)); break;  /* s_fmamk_f32 */
  }
  return gfx11_flush_f32(r, wave->mode & GFX11_MODE_F32_DENORM_OUT);
}

static bool exec_sop2(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t a = gfx11_read32(wave, inst, inst->src[0], 0);
  uint32_t b = gfx11_read32(wave, inst, inst->src[1], 0);
  uint64_t wide = 0;
  uint32_t d = 0;
  switch (inst->op) {
    case GFX11_S_ADD_U32:  /* s_add_u32: SCC is the carry out */
      wide = (uint64_t)a + b;
      d = (uint32_t)wide;
      wave->scc = wide >> 32;
      break;
    case GFX11_S_SUB_U32:  /* s_sub_u32: SCC is the borrow */
      d = a - b;
      wave->scc = b > a;
      break;
    case GFX11_S_ADD_I32:  /* s_add_i32: SCC is signed overflow */
      d = a + b;
      wave->scc = ((a ^ d) & (b ^ d)) >> 31;
      break;
    case GFX11_S_SUB_I32:  /* s_sub_i32 */
      d = a - b;
      wave->scc = ((a ^ b) & (a ^ d)) >> 31;
      break;
    case GFX11_S_ADDC_U32:  /* s_addc_u32 */
      wide = (uint64_t)a + b + wave->scc;
      d = (uint32_t)wide;
      wave->scc = wide >> 32;
      break;
    case GFX11_S_SUBB_U32:  /* s_subb_u32 */
      wide = (uint64_t)b + wave->scc;
      d = a - (uint32_t)wide;
      wave->scc = wide > a;
      break;
    case GFX11_S_LSHL_B32: d = a << (b & 31); wave->scc = d != 0; break;
    case GFX11_S_LSHR_B32: d = a >> (b & 31); wave->scc = d != 0; break;
    case GFX11_S_ASHR_I32:
      /* s_ashr_i32: arithmetic shift, written without UB */
      d = (a >> (b & 31)) | ((a >> 31) ? ~(~0u >> (b & 31)) : 0);
      wave->scc = d != 0;
      break;
    case GFX11_S_LSHL_B64: case GFX11_S_LSHR_B64: case GFX11_S_ASHR_I64:
      {  /* s_lshl_b64, s_lshr_b64, s_ashr_i64: the shift is 32-bit */
      uint64_t v = gfx11_read64(wave, inst->src[0], 0);
      uint64_t fill = inst->op == GFX11_S_ASHR_I64 && (v >> 63)
                          ? ~(~UINT64_C(0) >> (b & 63)) : 0;
      v = inst->op == GFX11_S_LSHL_B64 ? v << (b & 63)
                                       : (v >> (b & 63)) | fill;
      wave->scc = v != 0;
      write_sgpr64(wave, inst->dst, v);
      wave->pc += inst->size;
      return !wave->faulted;
    }
    case GFX11_S_AND_B64: case GFX11_S_OR_B64: case GFX11_S_XOR_B64:
      {  /* s_and_b64, s_or_b64, s_xor_b64 */
      uint64_t x = gfx11_read64(wave, inst->src[0], 0);
      uint64_t y = gfx11_read64(wave, inst->src[1], 0);
      uint64_t v = inst->op == GFX11_S_AND_B64   ? x & y
                   : inst->op == GFX11_S_OR_B64 ? x | y
                                                : x ^ y;
      wave->scc = v != 0;
      write_sgpr64(wave, inst->dst, v);
      wave->pc += inst->size;
      return !wave->faulted;
    }
    case GFX11_S_MIN_I32:
      d = (int32_t)a < (int32_t)b ? a : b; wave->scc = d == a; break;
    case GFX11_S_MIN_U32: d = a < b ? a : b; wave->scc = d == a; break;
    case GFX11_S_MAX_I32:
      d = (int32_t)a > (int32_t)b ? a : b; wave->scc = d == a; break;
    case GFX11_S_MAX_U32: d = a > b ? a : b; wave->scc = d == a; break;
    case GFX11_S_AND_B32: d = a & b; wave->scc = d != 0; break;
    case GFX11_S_OR_B32: d = a | b; wave->scc = d != 0; break;
    case GFX11_S_XOR_B32: d = a ^ b; wave->scc = d != 0; break;
    case GFX11_S_AND_NOT1_B32: d = a & ~b; wave->scc = d != 0; break;
    case GFX11_S_MUL_I32: d = a * b; break;
    case GFX11_S_MUL_HI_U32: d = (uint32_t)(((uint64_t)a * b) >> 32); break;
    case GFX11_S_MUL_HI_I32:
      d = (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32);
      break;
    case GFX11_S_CSELECT_B32: d = wave->scc ? a : b; break;  /* s_cselect_b32 */
    /* gfx11.5 SALU float ops (no SCC): s_add/sub/mul/min/max_f32,
     * s_fmaak_f32 (S0*S1+K), s_fmamk_f32 (S0*K+S1); K is the literal.
     * s_fmac_f32 accumulates into D: S0*S1+D. */
    case GFX11_S_ADD_F32: case GFX11_S_SUB_F32: case GFX11_S_MUL_F32:
    case GFX11_S_MIN_F32: case GFX11_S_MAX_F32:
    case GFX11_S_FMAAK_F32: case GFX11_S_FMAMK_F32:
      d = salu_float(wave, inst->op, a, b, inst->literal);
      break;
    case GFX11_S_FMAC_F32:
      d = salu_float(wave, inst->op, a, b,
                     gfx11_read32(wave, inst, inst->dst, 0));
      break;
    default: return unsupported(wave, "SOP2", inst->op);
  }
  gfx11_write_sgpr(wave, inst->dst, d);
  wave->pc += inst->size;
  return !wave->faulted;
}

static bool exec_sop1(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t a = gfx11_read32(wave, inst, inst->src[0], 0);
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  switch (inst->op) {
    case GFX11_S_MOV_B32: gfx11_write_sgpr(wave, inst->dst, a); break;
    case GFX11_S_MOV_B64:  /* s_mov_b64 */
      write_sgpr64(wave, inst->dst, gfx11_read64(wave, inst->src[0], 0));
      break;
    case GFX11_S_CTZ_I32_B64: {
      /* s_ctz_i32_b64: the index of the lowest set bit of S0.u64, -1 when
       * none is set; SCC is unchanged. A literal S0 is zero-extended
       * (B64 is an unsigned operand type). */
      uint64_t v = gfx11_read64_int(wave, inst, inst->src[0], 0, false);
      gfx11_write_sgpr(wave, inst->dst,
                       v ? (uint32_t)__builtin_ctzll(v) : UINT32_MAX);
      break;
    }
    /* The bit counts leave SCC alone and answer -1 for no set bit. */
    case GFX11_S_CTZ_I32_B32:
      gfx11_write_sgpr(wave, inst->dst,
                       a ? (uint32_t)__builtin_ctz(a) : UINT32_MAX);
      break;
    case GFX11_S_CLZ_I32_U32:
      gfx11_write_sgpr(wave, inst->dst,
                       a ? (uint32_t)__builtin_clz(a) : UINT32_MAX);
      break;
    case GFX11_S_BREV_B32:  /* SCC unchanged */
      gfx11_write_sgpr(wave, inst->dst, gfx11_reverse_bits(a));
      break;
    case GFX11_S_BCNT1_I32_B32: {
      uint32_t count = (uint32_t)__builtin_popcount(a);
      gfx11_write_sgpr(wave, inst->dst, count);
      wave->scc = count != 0;
      break;
    }
    case GFX11_S_NOT_B32:  /* s_not_b32 */
      gfx11_write_sgpr(wave, inst->dst, ~a);
      wave->scc = ~a != 0;
      break;
    case GFX11_S_AND_SAVEEXEC_B32: case GFX11_S_OR_SAVEEXEC_B32:
    case GFX11_S_AND_NOT1_SAVEEXEC_B32:
      /* s_{and,or,and_not1}_saveexec_b32: the old EXEC goes to dst; the
       * and_not1 form inverts EXEC, not S0 (it enters an else branch). */
      wave->sgpr[GFX11_EXEC_LO] =
          inst->op == GFX11_S_AND_SAVEEXEC_B32  ? a & exec
          : inst->op == GFX11_S_OR_SAVEEXEC_B32 ? a | exec
                                                : a & ~exec;
      gfx11_write_sgpr(wave, inst->dst, exec);
      wave->scc = wave->sgpr[GFX11_EXEC_LO] != 0;
      break;
    case GFX11_S_TRUNC_F32:  /* s_trunc_f32 */
      gfx11_write_sgpr(wave, inst->dst, hrx_f32_bits(truncf(hrx_f32(a))));
      break;
    case GFX11_S_CVT_F32_U32:  /* s_cvt_f32_u32 */
      gfx11_write_sgpr(wave, inst->dst, hrx_f32_bits((float)a));
      break;
    case GFX11_S_CVT_F32_I32:
      gfx11_write_sgpr(wave, inst->dst, hrx_f32_bits((float)(int32_t)a));
      break;
    case GFX11_S_CVT_I32_F32:
      gfx11_write_sgpr(wave, inst->dst, gfx11_cvt_i32_f32(hrx_f32(a)));
      break;
    case GFX11_S_CVT_U32_F32:  /* s_cvt_u32_f32 */
      gfx11_write_sgpr(wave, inst->dst, gfx11_cvt_u32_f32(hrx_f32(a)));
      break;
    default: return unsupported(wave, "SOP1", inst->op);
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

static bool exec_sopc(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  if (inst->op == GFX11_S_CMP_EQ_U64 || inst->op == GFX11_S_CMP_LG_U64) {
    uint64_t a = gfx11_read64(wave, inst->src[0], 0);
    uint64_t b = gfx11_read64(wave, inst->src[1], 0);
    wave->scc = inst->op == GFX11_S_CMP_EQ_U64 ? a == b : a != b;
    wave->pc += inst->size;
    return !wave->faulted;
  }
  if (inst->op > GFX11_S_CMP_LE_U32) return unsupported(wave, "SOPC", inst->op);
  uint32_t a = gfx11_read32(wave, inst, inst->src[0], 0);
  uint32_t b = gfx11_read32(wave, inst, inst->src[1], 0);
  /* Ops 0-5 compare signed, 6-11 unsigned, each as eq lg gt ge lt le.
   * Flipping the sign bit maps signed order onto unsigned order. */
  if (inst->op < GFX11_S_CMP_EQ_U32) {
    a ^= 0x80000000u;
    b ^= 0x80000000u;
  }
  switch (inst->op % 6) {
    case 0: wave->scc = a == b; break;
    case 1: wave->scc = a != b; break;
    case 2: wave->scc = a > b; break;
    case 3: wave->scc = a >= b; break;
    case 4: wave->scc = a < b; break;
    default: wave->scc = a <= b; break;
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

/* s_getreg_b32, s_setreg_b32 and s_setreg_imm32_b32 (its value the
 * literal); SIMM16 names the register field. */
static bool exec_hwreg(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t simm16 = (uint32_t)inst->imm & 0xFFFF;
  if (inst->op == GFX11_S_GETREG_B32) {
    uint32_t value = 0;
    if (!gfx11_getreg(wave, simm16, &value)) return false;
    gfx11_write_sgpr(wave, inst->dst, value);
    return true;
  }
  uint32_t value = inst->op == GFX11_S_SETREG_B32
                       ? gfx11_read32(wave, inst, inst->dst, 0)
                       : inst->literal;
  return gfx11_setreg(wave, simm16, value);
}

static bool exec_sopk(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  switch (inst->op) {
    case GFX11_S_MOVK_I32:
      gfx11_write_sgpr(wave, inst->dst, (uint32_t)inst->imm); break;
    case GFX11_S_WAITCNT_VSCNT:
      break;  /* s_waitcnt_vscnt: memory is synchronous here */
    case GFX11_S_GETREG_B32: case GFX11_S_SETREG_B32:
    case GFX11_S_SETREG_IMM32_B32:
      if (!exec_hwreg(wave, inst)) return false;
      break;
    default: return unsupported(wave, "SOPK", inst->op);
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

static bool exec_sopp(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  uint32_t vcc = wave->sgpr[GFX11_VCC_LO];
  bool taken = false;
  switch (inst->op) {
    /* s_nop, s_set_inst_prefetch_distance, s_clause, s_delay_alu,
     * s_waitcnt_depctr, s_waitcnt: hints and counters that have no effect
     * when every access completes before the next instruction. */
    case GFX11_S_NOP: case GFX11_S_SET_INST_PREFETCH_DISTANCE:
    case GFX11_S_CLAUSE: case GFX11_S_DELAY_ALU: case GFX11_S_WAITCNT_DEPCTR:
    case GFX11_S_WAITCNT: break;
    case GFX11_S_SENDMSG:  /* s_sendmsg: only MSG_DEALLOC_VGPRS (3), a hint */
      if ((inst->imm & 0xFF) != 3) {
        return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                           "s_sendmsg %d is not modelled", inst->imm);
      }
      break;
    case GFX11_S_DENORM_MODE:
      if (!gfx11_denorm_mode(wave, (uint32_t)inst->imm)) return false;
      break;
    case GFX11_S_ROUND_MODE:
      if (!gfx11_round_mode(wave, (uint32_t)inst->imm)) return false;
      break;
    case GFX11_S_ENDPGM: wave->ended = true; return true;  /* s_endpgm */
    case GFX11_S_BARRIER: wave->at_barrier = true; break;   /* s_barrier */
    case GFX11_S_BRANCH: taken = true; break;              /* s_branch */
    case GFX11_S_CBRANCH_SCC0: taken = !wave->scc; break;
    case GFX11_S_CBRANCH_SCC1: taken = wave->scc; break;
    case GFX11_S_CBRANCH_VCCZ: taken = vcc == 0; break;
    case GFX11_S_CBRANCH_VCCNZ: taken = vcc != 0; break;
    case GFX11_S_CBRANCH_EXECZ: taken = exec == 0; break;
    case GFX11_S_CBRANCH_EXECNZ: taken = exec != 0; break;
    default: return unsupported(wave, "SOPP", inst->op);
  }
  /* Branch targets are relative to the next instruction, in dwords. */
  wave->pc += inst->size + (taken ? (int64_t)inst->imm * 4 : 0);
  return true;
}

static bool exec_smem(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  if (inst->op > GFX11_S_LOAD_B512) return unsupported(wave, "SMEM", inst->op);
  uint32_t dwords = 1u << inst->op;  /* s_load_b32 .. s_load_b512 */
  if (inst->dst + dwords > GFX11_SGPR_COUNT) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "s_load into s%u..s%u", inst->dst,
                       inst->dst + dwords - 1);
  }
  uint64_t base = gfx11_read64(wave, inst->src[0], 0);
  uint32_t soffset = gfx11_read32(wave, inst, inst->src[1], 0);
  /* Scalar loads ignore the low two address bits. */
  uint64_t address = (base + (int64_t)inst->imm + soffset) & ~(uint64_t)3;
  if (!gfx11_memory_check(wave, address, 4ull * dwords)) return false;
  memcpy(&wave->sgpr[inst->dst], (const void*)(uintptr_t)address,
         4ull * dwords);
  wave->pc += inst->size;
  return !wave->faulted;
}

bool gfx11_exec_scalar(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  switch (inst->encoding) {
    case GFX11_SOP1: return exec_sop1(wave, inst);
    case GFX11_SOP2: return exec_sop2(wave, inst);
    case GFX11_SOPC: return exec_sopc(wave, inst);
    case GFX11_SOPK: return exec_sopk(wave, inst);
    case GFX11_SOPP: return exec_sopp(wave, inst);
    default: return exec_smem(wave, inst);
  }
}
