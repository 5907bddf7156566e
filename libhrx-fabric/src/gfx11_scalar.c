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

static bool exec_sop2(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t a = gfx11_read32(wave, inst, inst->src[0], 0);
  uint32_t b = gfx11_read32(wave, inst, inst->src[1], 0);
  uint64_t wide = 0;
  uint32_t d = 0;
  switch (inst->op) {
    case 0:  /* s_add_u32: SCC is the carry out */
      wide = (uint64_t)a + b;
      d = (uint32_t)wide;
      wave->scc = wide >> 32;
      break;
    case 1:  /* s_sub_u32: SCC is the borrow */
      d = a - b;
      wave->scc = b > a;
      break;
    case 2:  /* s_add_i32: SCC is signed overflow */
      d = a + b;
      wave->scc = ((a ^ d) & (b ^ d)) >> 31;
      break;
    case 3:  /* s_sub_i32 */
      d = a - b;
      wave->scc = ((a ^ b) & (a ^ d)) >> 31;
      break;
    case 4:  /* s_addc_u32 */
      wide = (uint64_t)a + b + wave->scc;
      d = (uint32_t)wide;
      wave->scc = wide >> 32;
      break;
    case 5:  /* s_subb_u32 */
      wide = (uint64_t)b + wave->scc;
      d = a - (uint32_t)wide;
      wave->scc = wide > a;
      break;
    case 8: d = a << (b & 31); wave->scc = d != 0; break;   /* s_lshl_b32 */
    case 10: d = a >> (b & 31); wave->scc = d != 0; break;  /* s_lshr_b32 */
    case 12:  /* s_ashr_i32: arithmetic shift, written without UB */
      d = (a >> (b & 31)) | ((a >> 31) ? ~(~0u >> (b & 31)) : 0);
      wave->scc = d != 0;
      break;
    case 9: case 11: {  /* s_lshl_b64, s_lshr_b64: the shift is 32-bit */
      uint64_t v = gfx11_read64(wave, inst->src[0], 0);
      v = inst->op == 9 ? v << (b & 63) : v >> (b & 63);
      wave->scc = v != 0;
      write_sgpr64(wave, inst->dst, v);
      wave->pc += inst->size;
      return !wave->faulted;
    }
    case 23: case 25: case 27: {  /* s_and_b64, s_or_b64, s_xor_b64 */
      uint64_t x = gfx11_read64(wave, inst->src[0], 0);
      uint64_t y = gfx11_read64(wave, inst->src[1], 0);
      uint64_t v = inst->op == 23 ? x & y : inst->op == 25 ? x | y : x ^ y;
      wave->scc = v != 0;
      write_sgpr64(wave, inst->dst, v);
      wave->pc += inst->size;
      return !wave->faulted;
    }
    case 18: d = (int32_t)a < (int32_t)b ? a : b; wave->scc = d == a; break;
    case 19: d = a < b ? a : b; wave->scc = d == a; break;
    case 20: d = (int32_t)a > (int32_t)b ? a : b; wave->scc = d == a; break;
    case 21: d = a > b ? a : b; wave->scc = d == a; break;
    case 22: d = a & b; wave->scc = d != 0; break;
    case 24: d = a | b; wave->scc = d != 0; break;
    case 26: d = a ^ b; wave->scc = d != 0; break;
    case 34: d = a & ~b; wave->scc = d != 0; break;  /* s_and_not1_b32 */
    case 44: d = a * b; break;                        /* s_mul_i32 */
    case 45: d = (uint32_t)(((uint64_t)a * b) >> 32); break;
    case 46:
      d = (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32);
      break;
    case 48: d = wave->scc ? a : b; break;  /* s_cselect_b32 */
    /* gfx11.5 SALU float ops (no SCC): s_mul_f32, s_fmaak_f32 (S0*S1+K),
     * s_fmamk_f32 (S0*K+S1); K is the literal. */
    case 68: d = hrx_f32_bits(hrx_f32(a) * hrx_f32(b)); break;
    case 69:
      d = hrx_f32_bits(fmaf(hrx_f32(a), hrx_f32(b), hrx_f32(inst->literal)));
      break;
    case 70:
      d = hrx_f32_bits(fmaf(hrx_f32(a), hrx_f32(inst->literal), hrx_f32(b)));
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
    case 0: gfx11_write_sgpr(wave, inst->dst, a); break;  /* s_mov_b32 */
    case 1:  /* s_mov_b64 */
      write_sgpr64(wave, inst->dst, gfx11_read64(wave, inst->src[0], 0));
      break;
    case 0x1E:  /* s_not_b32 */
      gfx11_write_sgpr(wave, inst->dst, ~a);
      wave->scc = ~a != 0;
      break;
    case 0x20: case 0x22: case 0x30:
      /* s_{and,or,and_not1}_saveexec_b32: the old EXEC goes to dst; the
       * and_not1 form inverts EXEC, not S0 (it enters an else branch). */
      wave->sgpr[GFX11_EXEC_LO] = inst->op == 0x20   ? a & exec
                                  : inst->op == 0x22 ? a | exec
                                                     : a & ~exec;
      gfx11_write_sgpr(wave, inst->dst, exec);
      wave->scc = wave->sgpr[GFX11_EXEC_LO] != 0;
      break;
    case 0x62:  /* s_trunc_f32 */
      gfx11_write_sgpr(wave, inst->dst, hrx_f32_bits(truncf(hrx_f32(a))));
      break;
    case 0x65:  /* s_cvt_f32_u32 */
      gfx11_write_sgpr(wave, inst->dst, hrx_f32_bits((float)a));
      break;
    case 0x67:  /* s_cvt_u32_f32 */
      gfx11_write_sgpr(wave, inst->dst, gfx11_cvt_u32_f32(hrx_f32(a)));
      break;
    default: return unsupported(wave, "SOP1", inst->op);
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

static bool exec_sopc(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  if (inst->op == 0x10 || inst->op == 0x11) {  /* s_cmp_{eq,lg}_u64 */
    uint64_t a = gfx11_read64(wave, inst->src[0], 0);
    uint64_t b = gfx11_read64(wave, inst->src[1], 0);
    wave->scc = inst->op == 0x10 ? a == b : a != b;
    wave->pc += inst->size;
    return !wave->faulted;
  }
  if (inst->op > 11) return unsupported(wave, "SOPC", inst->op);
  uint32_t a = gfx11_read32(wave, inst, inst->src[0], 0);
  uint32_t b = gfx11_read32(wave, inst, inst->src[1], 0);
  /* Ops 0-5 compare signed, 6-11 unsigned, each as eq lg gt ge lt le.
   * Flipping the sign bit maps signed order onto unsigned order. */
  if (inst->op < 6) {
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

static bool exec_sopk(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  switch (inst->op) {
    case 0: gfx11_write_sgpr(wave, inst->dst, (uint32_t)inst->imm); break;
    case 0x18: break;  /* s_waitcnt_vscnt: memory is synchronous here */
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
    case 0x00: case 0x04: case 0x05: case 0x07: case 0x08: case 0x09: break;
    case 0x36:  /* s_sendmsg: only MSG_DEALLOC_VGPRS (3), a hint */
      if ((inst->imm & 0xFF) != 3) {
        return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                           "s_sendmsg %d is not modelled", inst->imm);
      }
      break;
    case 0x30: wave->ended = true; return true;  /* s_endpgm */
    case 0x3D: wave->at_barrier = true; break;   /* s_barrier */
    case 0x20: taken = true; break;              /* s_branch */
    case 0x21: taken = !wave->scc; break;
    case 0x22: taken = wave->scc; break;
    case 0x23: taken = vcc == 0; break;
    case 0x24: taken = vcc != 0; break;
    case 0x25: taken = exec == 0; break;
    case 0x26: taken = exec != 0; break;
    default: return unsupported(wave, "SOPP", inst->op);
  }
  /* Branch targets are relative to the next instruction, in dwords. */
  wave->pc += inst->size + (taken ? (int64_t)inst->imm * 4 : 0);
  return true;
}

static bool exec_smem(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  if (inst->op > 4) return unsupported(wave, "SMEM", inst->op);
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
