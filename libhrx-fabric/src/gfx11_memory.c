/* GLOBAL and DS (LDS) loads, stores and 32-bit atomics of the gfx11 model,
 * SCRATCH (private) loads and stores, and the MUBUF cache invalidations. Every active lane's address is
 * checked against the mapped ranges before any lane touches memory, so a
 * faulting instruction has no effect. Global memory may be shared with
 * workgroups running on other threads, so global atomics are host atomic
 * read-modify-writes; LDS belongs to one workgroup, whose waves run on
 * one thread, so LDS atomics need none. */
#include <string.h>

#include "gfx11_internal.h"
#include "host_numeric.h"

typedef struct global_op_t {
  uint32_t bytes;
  bool store;
  bool sign_extend;
  bool atomic;
  bool high_half;  /* d16_hi: the VGPR's bits 16-31 (stored or loaded) */
  bool d16;        /* loads of 16 bits into one half, keeping the other */
} global_op_t;

/* GLOBAL opcodes 16..29: load u8 i8 u16 i16 b32 b64 b96 b128, then store
 * b8 b16 b32 b64 b96 b128. */
static bool global_op(uint32_t op, global_op_t* out) {
  static const global_op_t table[14] = {
      {1, false, false}, {1, false, true}, {2, false, false},
      {2, false, true},  {4, false, false}, {8, false, false},
      {12, false, false}, {16, false, false}, {1, true, false},
      {2, true, false},  {4, true, false},  {8, true, false},
      {12, true, false}, {16, true, false}};
  switch (op) {
    case GFX11_GLOBAL_ATOMIC_SWAP_B32: case GFX11_GLOBAL_ATOMIC_ADD_U32:
    case GFX11_GLOBAL_ATOMIC_SUB_U32: case GFX11_GLOBAL_ATOMIC_MIN_I32:
    case GFX11_GLOBAL_ATOMIC_MIN_U32: case GFX11_GLOBAL_ATOMIC_MAX_I32:
    case GFX11_GLOBAL_ATOMIC_MAX_U32: case GFX11_GLOBAL_ATOMIC_AND_B32:
    case GFX11_GLOBAL_ATOMIC_OR_B32: case GFX11_GLOBAL_ATOMIC_XOR_B32:
    case GFX11_GLOBAL_ATOMIC_ADD_F32: case GFX11_GLOBAL_ATOMIC_CMPSWAP_B32:
    case GFX11_GLOBAL_ATOMIC_MIN_F32: case GFX11_GLOBAL_ATOMIC_MAX_F32:
      *out = (global_op_t){.bytes = 4, .atomic = true};
      return true;
    case GFX11_GLOBAL_STORE_D16_HI_B8: case GFX11_GLOBAL_STORE_D16_HI_B16:
      *out = (global_op_t){.bytes = op == GFX11_GLOBAL_STORE_D16_HI_B8 ? 1 : 2,
                           .store = true, .high_half = true};
      return true;
    case GFX11_GLOBAL_LOAD_D16_U8: case GFX11_GLOBAL_LOAD_D16_I8:
    case GFX11_GLOBAL_LOAD_D16_B16: case GFX11_GLOBAL_LOAD_D16_HI_U8:
    case GFX11_GLOBAL_LOAD_D16_HI_I8: case GFX11_GLOBAL_LOAD_D16_HI_B16: {
      /* u8, i8, b16 into the low half, then the same into the high. */
      uint32_t form = (op - GFX11_GLOBAL_LOAD_D16_U8) % 3;
      *out = (global_op_t){.bytes = form == 2 ? 2 : 1,
                           .sign_extend = form == 1,
                           .high_half = op >= GFX11_GLOBAL_LOAD_D16_HI_U8,
                           .d16 = true};
      return true;
    }
    default:
      break;
  }
  if (op < GFX11_GLOBAL_LOAD_U8 || op > GFX11_GLOBAL_STORE_B128) return false;
  *out = table[op - GFX11_GLOBAL_LOAD_U8];
  return true;
}

/* The value an atomic leaves in memory; |compare| is cmpswap's DATA[1].
 * The float min and max follow the IEEE rules (a quiet NaN yields to a
 * number) whatever the wave's MODE, as memory atomics do not read it. */
static uint32_t atomic_result(uint32_t op, uint32_t old, uint32_t data,
                              uint32_t compare) {
  switch (op) {
    case GFX11_GLOBAL_ATOMIC_SWAP_B32: return data;
    case GFX11_GLOBAL_ATOMIC_CMPSWAP_B32: return old == compare ? data : old;
    case GFX11_GLOBAL_ATOMIC_MIN_F32: return gfx11_min_f32(old, data, true);
    case GFX11_GLOBAL_ATOMIC_MAX_F32: return gfx11_max_f32(old, data, true);
    case GFX11_GLOBAL_ATOMIC_ADD_U32: return old + data;
    case GFX11_GLOBAL_ATOMIC_SUB_U32: return old - data;
    case GFX11_GLOBAL_ATOMIC_MIN_I32:
      return (int32_t)data < (int32_t)old ? data : old;
    case GFX11_GLOBAL_ATOMIC_MIN_U32: return data < old ? data : old;
    case GFX11_GLOBAL_ATOMIC_MAX_I32:
      return (int32_t)data > (int32_t)old ? data : old;
    case GFX11_GLOBAL_ATOMIC_MAX_U32: return data > old ? data : old;
    case GFX11_GLOBAL_ATOMIC_AND_B32: return old & data;
    case GFX11_GLOBAL_ATOMIC_OR_B32: return old | data;
    case GFX11_GLOBAL_ATOMIC_ADD_F32:
      return hrx_f32_bits(hrx_f32(old) + hrx_f32(data));
    default: return old ^ data;
  }
}

/* One lane's read-modify-write, indivisible against every other thread's
 * (a compare-exchange loop, as min, max and the float add have no host
 * instruction of their own). Alignment was checked by the caller. */
static void atomic_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                        uint64_t address, uint32_t lane) {
  uint32_t data = gfx11_read32(wave, inst, inst->src[1], lane);
  uint32_t compare = inst->op == GFX11_GLOBAL_ATOMIC_CMPSWAP_B32
                         ? gfx11_read32(wave, inst, inst->src[1] + 1, lane)
                         : 0;
  if (wave->faulted) return;
  uint32_t* word = (uint32_t*)(uintptr_t)address;
  uint32_t old = __atomic_load_n(word, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(word, &old,
                                      atomic_result(inst->op, old, data,
                                                    compare),
                                      true, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED)) {
  }
  if (inst->glc) gfx11_write_vgpr(wave, inst->dst, lane, old);
}

static uint64_t lane_address(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                             uint32_t lane) {
  uint64_t base;
  if (inst->src[2] == GFX11_NULL) {
    base = gfx11_read64(wave, inst->src[0], lane);
  } else {
    /* With an SGPR base the VGPR is a 32-bit unsigned offset. */
    base = gfx11_read64(wave, inst->src[2], 0) +
           gfx11_read32(wave, inst, inst->src[0], lane);
  }
  return base + (int64_t)inst->imm;
}

static void load_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                      const global_op_t* g, uint64_t address, uint32_t lane) {
  const uint8_t* p = (const uint8_t*)(uintptr_t)address;
  if (g->bytes < 4) {
    uint32_t v = 0;
    memcpy(&v, p, g->bytes);  /* little-endian host, as the GPU */
    if (g->sign_extend) {
      uint32_t sign = 1u << (8 * g->bytes - 1);
      v = (v ^ sign) - sign;
    }
    if (g->d16) {
      uint32_t old = gfx11_read32(wave, inst, inst->dst, lane);
      v = g->high_half ? (old & 0xFFFFu) | v << 16
                       : (old & 0xFFFF0000u) | (v & 0xFFFFu);
    }
    gfx11_write_vgpr(wave, inst->dst, lane, v);
    return;
  }
  for (uint32_t i = 0; i < g->bytes / 4; ++i) {
    uint32_t v;
    memcpy(&v, p + 4 * i, 4);
    gfx11_write_vgpr(wave, inst->dst + i, lane, v);
  }
}

static void store_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                       const global_op_t* g, uint64_t address, uint32_t lane) {
  uint8_t* p = (uint8_t*)(uintptr_t)address;
  uint32_t dwords = g->bytes < 4 ? 1 : g->bytes / 4;
  for (uint32_t i = 0; i < dwords; ++i) {
    uint32_t v = gfx11_read32(wave, inst, inst->src[1] + i, lane);
    if (wave->faulted) return;
    if (g->high_half) v >>= 16;
    memcpy(p + 4 * i, &v, g->bytes < 4 ? g->bytes : 4);
  }
}

/* A SCRATCH access's address in lane |lane|'s private memory: VGPR (with
 * SVE) + SGPR (unless off) + offset, 32 bits wide, which must lie inside
 * the lane's private segment. Each lane's segment is its own stretch of
 * the wave's scratch slot (flat scratch, unswizzled as the program sees
 * it). Hardware bounds a wave by its slot instead; the model faults
 * sooner, at the lane's end, as an overrun is a kernel bug. */
static bool scratch_address(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                            uint32_t bytes, uint32_t lane,
                            uint64_t* out_address) {
  uint32_t offset = gfx11_read32(wave, inst, inst->src[0], lane) +
                    gfx11_read32(wave, inst, inst->src[2], lane) +
                    (uint32_t)inst->imm;
  if (wave->faulted) return false;
  if (!wave->scratch) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_OUT_OF_BOUNDS, offset,
                       "scratch access by a kernel without a private "
                       "segment");
  }
  if ((uint64_t)offset + bytes > wave->private_size) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_OUT_OF_BOUNDS, offset,
                       "%u-byte scratch access at private offset 0x%x past "
                       "the %u private bytes of lane %u",
                       bytes, offset, wave->private_size, lane);
  }
  *out_address = (uint64_t)(uintptr_t)wave->scratch +
                 (uint64_t)lane * wave->lane_stride + offset;
  return true;
}

/* buffer_gl0_inv and buffer_gl1_inv invalidate caches this model does not
 * have: every access goes straight to memory. */
static bool exec_mubuf(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  if (inst->op != GFX11_BUFFER_GL0_INV && inst->op != GFX11_BUFFER_GL1_INV) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "MUBUF opcode %u is not modelled", inst->op);
  }
  wave->pc += inst->size;
  return true;
}

bool gfx11_exec_memory(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  if (inst->encoding == GFX11_MUBUF) return exec_mubuf(wave, inst);
  bool scratch = inst->encoding == GFX11_SCRATCH;
  global_op_t g;
  if (!global_op(inst->op, &g) || (scratch && g.atomic)) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "%s opcode %u is not modelled",
                       scratch ? "SCRATCH" : "GLOBAL", inst->op);
  }
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  uint64_t addresses[GFX11_LANES];
  for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
    if (!(exec >> lane & 1)) continue;
    if (scratch) {
      if (!scratch_address(wave, inst, g.bytes, lane, &addresses[lane])) {
        return false;
      }
      continue;
    }
    addresses[lane] = lane_address(wave, inst, lane);
    if (wave->faulted) return false;
    if (!gfx11_memory_check(wave, addresses[lane], g.bytes)) return false;
    if (g.atomic && (addresses[lane] & 3)) {
      return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, addresses[lane],
                         "misaligned atomic at 0x%llx",
                         (unsigned long long)addresses[lane]);
    }
  }
  for (uint32_t lane = 0; lane < GFX11_LANES && !wave->faulted; ++lane) {
    if (!(exec >> lane & 1)) continue;
    if (g.atomic) {
      atomic_lane(wave, inst, addresses[lane], lane);
    } else if (g.store) {
      store_lane(wave, inst, &g, addresses[lane], lane);
    } else {
      load_lane(wave, inst, &g, addresses[lane], lane);
    }
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

/* DS instructions: loads, stores and 32-bit atomics on the workgroup's
 * LDS, and ds_bpermute_b32, which moves data between the lanes of a wave
 * without touching LDS. Opcode numbers are gfx11's (RDNA3 ISA guide,
 * checked against llvm-mc-19 encodings). As for GLOBAL, every active
 * lane's address is checked before any lane touches LDS, and the waves of
 * a workgroup run one at a time, so each atomic is indivisible. */

/* ds_add_u32 .. ds_xor_b32 are 0..11 and cmpstore, min/max_f32 16..19;
 * the forms returning the old value are the same ops at +32, but for
 * ds_add_rtn_f32 (121). */
enum {
  DS_ATOMIC_LAST = GFX11_DS_XOR_B32,
  DS_ATOMIC_RTN = GFX11_DS_ADD_RTN_U32,
};

/* The non-returning form of atomic |op|, or -1 for an op that is none. */
static int ds_atomic_base(uint32_t op) {
  if (op == GFX11_DS_ADD_RTN_F32) return GFX11_DS_ADD_F32;
  uint32_t base = op >= DS_ATOMIC_RTN ? op - DS_ATOMIC_RTN : op;
  bool atomic = base <= DS_ATOMIC_LAST || base == GFX11_DS_CMPSTORE_B32 ||
                base == GFX11_DS_MIN_F32 || base == GFX11_DS_MAX_F32 ||
                (base == GFX11_DS_ADD_F32 && op == base);
  return atomic && op < 2 * DS_ATOMIC_RTN ? (int)base : -1;
}

typedef struct ds_op_t {
  uint32_t bytes;
  bool store;
  bool sign_extend;
  bool atomic;
  bool returns;  /* atomics: the old value goes to vdst */
  /* 1: loads into the low 16 bits of vdst, 2: into the high 16 bits,
   * keeping the other half */
  uint8_t d16;
} ds_op_t;

static bool ds_op(uint32_t op, ds_op_t* out) {
  *out = (ds_op_t){.bytes = 4};
  switch (op) {
    case GFX11_DS_STORE_B8:
      *out = (ds_op_t){1, true, false, false, false}; break;
    case GFX11_DS_STORE_B16:
      *out = (ds_op_t){2, true, false, false, false}; break;
    case GFX11_DS_STORE_B32: out->store = true; break;
    case GFX11_DS_STORE_B64:
      *out = (ds_op_t){8, true, false, false, false}; break;
    case GFX11_DS_STORE_B96:
      *out = (ds_op_t){12, true, false, false, false}; break;
    case GFX11_DS_STORE_B128:
      *out = (ds_op_t){16, true, false, false, false}; break;
    case GFX11_DS_LOAD_I8:
      *out = (ds_op_t){1, false, true, false, false}; break;
    case GFX11_DS_LOAD_U8: out->bytes = 1; break;
    case GFX11_DS_LOAD_I16:
      *out = (ds_op_t){2, false, true, false, false}; break;
    case GFX11_DS_LOAD_U16: out->bytes = 2; break;
    case GFX11_DS_LOAD_B32: break;
    case GFX11_DS_LOAD_B64: out->bytes = 8; break;
    case GFX11_DS_LOAD_B96: out->bytes = 12; break;
    case GFX11_DS_LOAD_B128: out->bytes = 16; break;
    case GFX11_DS_LOAD_U8_D16: case GFX11_DS_LOAD_U8_D16_HI:
    case GFX11_DS_LOAD_I8_D16: case GFX11_DS_LOAD_I8_D16_HI:
    case GFX11_DS_LOAD_U16_D16: case GFX11_DS_LOAD_U16_D16_HI: {
      /* u8, i8, u16 in pairs of low and high half. */
      uint32_t form = (op - GFX11_DS_LOAD_U8_D16) / 2;
      *out = (ds_op_t){.bytes = form == 2 ? 2 : 1, .sign_extend = form == 1,
                       .d16 = (op - GFX11_DS_LOAD_U8_D16) % 2 ? 2 : 1};
      break;
    }
    default:
      if (ds_atomic_base(op) < 0) return false;
      out->atomic = true;
      out->returns = (uint32_t)ds_atomic_base(op) != op;
      return true;
  }
  return true;
}

/* Inc and dec wrap at the data value as the ISA defines; cmpstore stores DATA when the old value equals DATA2 (|compare|); the
 * f32 min and max follow the IEEE rules, as the global atomics do, and
 * the f32 add rounds to nearest even. */
static uint32_t ds_atomic_result(int base, uint32_t old, uint32_t data,
                                 uint32_t compare) {
  switch (base) {
    case GFX11_DS_CMPSTORE_B32: return old == compare ? data : old;
    case GFX11_DS_MIN_F32: return gfx11_min_f32(old, data, true);
    case GFX11_DS_MAX_F32: return gfx11_max_f32(old, data, true);
    case GFX11_DS_ADD_F32: return hrx_f32_bits(hrx_f32(old) + hrx_f32(data));
    case GFX11_DS_ADD_U32: return old + data;
    case GFX11_DS_SUB_U32: return old - data;
    case GFX11_DS_RSUB_U32: return data - old;
    case GFX11_DS_INC_U32: return old >= data ? 0 : old + 1;
    case GFX11_DS_DEC_U32: return old == 0 || old > data ? data : old - 1;
    case GFX11_DS_MIN_I32: return (int32_t)data < (int32_t)old ? data : old;
    case GFX11_DS_MAX_I32: return (int32_t)data > (int32_t)old ? data : old;
    case GFX11_DS_MIN_U32: return data < old ? data : old;
    case GFX11_DS_MAX_U32: return data > old ? data : old;
    case GFX11_DS_AND_B32: return old & data;
    case GFX11_DS_OR_B32: return old | data;
    default: return old ^ data;
  }
}

static void ds_lane_access(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                        const ds_op_t* d, uint8_t* p, uint32_t lane) {
  if (d->atomic) {
    int base = ds_atomic_base(inst->op);
    uint32_t old, data = gfx11_read32(wave, inst, inst->src[1], lane);
    uint32_t compare = base == GFX11_DS_CMPSTORE_B32
                           ? gfx11_read32(wave, inst, inst->src[2], lane)
                           : 0;
    memcpy(&old, p, 4);
    uint32_t result = ds_atomic_result(base, old, data, compare);
    memcpy(p, &result, 4);
    if (d->returns) gfx11_write_vgpr(wave, inst->dst, lane, old);
    return;
  }
  uint32_t dwords = d->bytes < 4 ? 1 : d->bytes / 4;
  uint32_t part = d->bytes < 4 ? d->bytes : 4;
  for (uint32_t i = 0; i < dwords && !wave->faulted; ++i) {
    uint32_t v = 0;
    if (d->store) {
      v = gfx11_read32(wave, inst, inst->src[1] + i, lane);
      memcpy(p + 4 * i, &v, part);  /* little-endian host, as the GPU */
      continue;
    }
    memcpy(&v, p + 4 * i, part);
    if (d->sign_extend) {
      uint32_t sign = 1u << (8 * part - 1);
      v = (v ^ sign) - sign;
    }
    if (d->d16) {
      uint32_t old = gfx11_read32(wave, inst, inst->dst, lane);
      v = d->d16 == 2 ? (old & 0xFFFFu) | v << 16
                      : (old & 0xFFFF0000u) | (v & 0xFFFFu);
    }
    gfx11_write_vgpr(wave, inst->dst + i, lane, v);
  }
}

/* ds_bpermute_b32: lane i reads data0 of lane ((addr + offset) / 4) % 32.
 * An inactive source lane contributes 0, as the ISA's pseudocode says. */
static bool bpermute(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  uint32_t data[GFX11_LANES] = {0};
  uint32_t from[GFX11_LANES] = {0};
  for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
    if (!(exec >> lane & 1)) continue;
    data[lane] = gfx11_read32(wave, inst, inst->src[1], lane);
    uint32_t address = gfx11_read32(wave, inst, inst->src[0], lane);
    from[lane] = ((address + (uint32_t)inst->imm) / 4) % GFX11_LANES;
  }
  for (uint32_t lane = 0; lane < GFX11_LANES && !wave->faulted; ++lane) {
    if (exec >> lane & 1) {
      gfx11_write_vgpr(wave, inst->dst, lane, data[from[lane]]);
    }
  }
  wave->pc += inst->size;
  return !wave->faulted;
}

bool gfx11_exec_lds(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  if (inst->op == GFX11_DS_BPERMUTE_B32) return bpermute(wave, inst);
  ds_op_t d;
  if (!ds_op(inst->op, &d)) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "DS opcode %u is not modelled", inst->op);
  }
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  uint64_t addresses[GFX11_LANES];
  for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
    if (!(exec >> lane & 1)) continue;
    /* LDS addresses are 32-bit: base + offset wraps (a negative base with
     * a positive offset is how compilers index backwards). */
    addresses[lane] = (uint32_t)(gfx11_read32(wave, inst, inst->src[0], lane) +
                                 (uint32_t)inst->imm);
    if (wave->faulted) return false;
    /* Hardware drops an out-of-range LDS access; the model reports it,
     * as it is a kernel bug the differential tests should see. */
    if (addresses[lane] + d.bytes > wave->lds_size) {
      return gfx11_fault(wave, HRX_GFX11_FAULT_OUT_OF_BOUNDS,
                         addresses[lane],
                         "%u-byte LDS access at 0x%llx past %u bytes",
                         d.bytes, (unsigned long long)addresses[lane],
                         wave->lds_size);
    }
    if (d.atomic && (addresses[lane] & 3)) {
      return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, addresses[lane],
                         "misaligned LDS atomic at 0x%llx",
                         (unsigned long long)addresses[lane]);
    }
  }
  for (uint32_t lane = 0; lane < GFX11_LANES && !wave->faulted; ++lane) {
    if (exec >> lane & 1) {
      ds_lane_access(wave, inst, &d, wave->lds + addresses[lane], lane);
    }
  }
  wave->pc += inst->size;
  return !wave->faulted;
}
