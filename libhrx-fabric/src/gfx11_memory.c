/* GLOBAL loads, stores and 32-bit atomics of the gfx11 model. Every active
 * lane's address is checked against the mapped ranges before any lane
 * touches memory, so a faulting instruction has no effect. Lanes run in
 * order on one thread, so each atomic is indivisible by construction. */
#include <string.h>

#include "gfx11_internal.h"

typedef struct global_op_t {
  uint32_t bytes;
  bool store;
  bool sign_extend;
  bool atomic;
} global_op_t;

enum {
  ATOMIC_SWAP = 51, ATOMIC_ADD = 53, ATOMIC_SUB = 54, ATOMIC_MIN_I32 = 56,
  ATOMIC_MIN_U32 = 57, ATOMIC_MAX_I32 = 58, ATOMIC_MAX_U32 = 59,
  ATOMIC_AND = 60, ATOMIC_OR = 61, ATOMIC_XOR = 62,
};

/* gfx11 GLOBAL opcodes 16..29: load u8 i8 u16 i16 b32 b64 b96 b128, then
 * store b8 b16 b32 b64 b96 b128. */
static bool global_op(uint32_t op, global_op_t* out) {
  static const global_op_t table[14] = {
      {1, false, false}, {1, false, true}, {2, false, false},
      {2, false, true},  {4, false, false}, {8, false, false},
      {12, false, false}, {16, false, false}, {1, true, false},
      {2, true, false},  {4, true, false},  {8, true, false},
      {12, true, false}, {16, true, false}};
  if (op == ATOMIC_SWAP || (op >= ATOMIC_ADD && op <= ATOMIC_XOR &&
                            op != ATOMIC_SUB + 1)) {
    *out = (global_op_t){.bytes = 4, .atomic = true};
    return true;
  }
  if (op < 16 || op > 29) return false;
  *out = table[op - 16];
  return true;
}

static uint32_t atomic_result(uint32_t op, uint32_t old, uint32_t data) {
  switch (op) {
    case ATOMIC_SWAP: return data;
    case ATOMIC_ADD: return old + data;
    case ATOMIC_SUB: return old - data;
    case ATOMIC_MIN_I32: return (int32_t)data < (int32_t)old ? data : old;
    case ATOMIC_MIN_U32: return data < old ? data : old;
    case ATOMIC_MAX_I32: return (int32_t)data > (int32_t)old ? data : old;
    case ATOMIC_MAX_U32: return data > old ? data : old;
    case ATOMIC_AND: return old & data;
    case ATOMIC_OR: return old | data;
    default: return old ^ data;
  }
}

static void atomic_lane(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                        uint64_t address, uint32_t lane) {
  uint32_t data = gfx11_read32(wave, inst, inst->src[1], lane);
  if (wave->faulted) return;
  uint32_t old;
  memcpy(&old, (const void*)(uintptr_t)address, 4);
  uint32_t result = atomic_result(inst->op, old, data);
  memcpy((void*)(uintptr_t)address, &result, 4);
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
    memcpy(p + 4 * i, &v, g->bytes < 4 ? g->bytes : 4);
  }
}

bool gfx11_exec_memory(gfx11_wave_t* wave, const gfx11_inst_t* inst) {
  global_op_t g;
  if (!global_op(inst->op, &g)) {
    return gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
                       "GLOBAL opcode %u is not modelled", inst->op);
  }
  uint32_t exec = wave->sgpr[GFX11_EXEC_LO];
  uint64_t addresses[GFX11_LANES];
  for (uint32_t lane = 0; lane < GFX11_LANES; ++lane) {
    if (!(exec >> lane & 1)) continue;
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
