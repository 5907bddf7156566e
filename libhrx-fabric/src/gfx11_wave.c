/* Wave state access for the gfx11 model: faults, operands, bounds. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "gfx11_internal.h"

bool gfx11_fault(gfx11_wave_t* wave, hrx_gfx11_fault_kind_t kind,
                 uint64_t address, const char* format, ...) {
  if (wave->faulted) return false;
  wave->faulted = true;
  wave->fault->kind = kind;
  wave->fault->address = address;
  va_list args;
  va_start(args, format);
  vsnprintf(wave->fault->reason, sizeof(wave->fault->reason), format, args);
  va_end(args);
  return false;
}

bool gfx11_memory_mapped(const gfx11_memory_t* memory, uint64_t address,
                         uint64_t size) {
  for (size_t i = 0; i < memory->range_count; ++i) {
    const hrx_gfx11_range_t* r = &memory->ranges[i];
    if (address >= r->base && size <= r->size &&
        address - r->base <= r->size - size) {
      return true;
    }
  }
  return false;
}

bool gfx11_memory_check(gfx11_wave_t* wave, uint64_t address, uint64_t size) {
  if (gfx11_memory_mapped(&wave->memory, address, size)) return true;
  return gfx11_fault(wave, HRX_GFX11_FAULT_OUT_OF_BOUNDS, address,
                     "%u-byte access at 0x%llx outside the mapped ranges",
                     (unsigned)size, (unsigned long long)address);
}

/* The f32 and f64 bit patterns of inline constants 240..248 (0.5, -0.5,
 * 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2*pi)). */
static const uint32_t inline_f32[9] = {
    0x3F000000u, 0xBF000000u, 0x3F800000u, 0xBF800000u, 0x40000000u,
    0xC0000000u, 0x40800000u, 0xC0800000u, 0x3E22F983u};
static const uint64_t inline_f64[9] = {
    0x3FE0000000000000ull, 0xBFE0000000000000ull, 0x3FF0000000000000ull,
    0xBFF0000000000000ull, 0x4000000000000000ull, 0xC000000000000000ull,
    0x4010000000000000ull, 0xC010000000000000ull, 0x3FC45F306DC9C882ull};

/* Integer inline constants: 128..192 are 0..64, 193..208 are -1..-16. */
static bool inline_int(uint32_t code, int64_t* out_value) {
  if (code >= 128 && code <= 192) {
    *out_value = (int64_t)code - 128;
    return true;
  }
  if (code >= 193 && code <= 208) {
    *out_value = 192 - (int64_t)code;
    return true;
  }
  return false;
}

static bool is_sgpr_like(uint32_t code) {
  return code <= GFX11_VCC_HI || (code >= GFX11_NULL && code <= GFX11_EXEC_HI);
}

static uint32_t bad_operand(gfx11_wave_t* wave, uint32_t code) {
  gfx11_fault(wave, HRX_GFX11_FAULT_UNSUPPORTED, 0,
              "operand code %u is not modelled or out of range", code);
  return 0;
}

uint32_t gfx11_read32(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                      uint32_t code, uint32_t lane) {
  int64_t value = 0;
  if (code >= GFX11_VGPR0) {
    if (code - GFX11_VGPR0 >= wave->vgpr_count) return bad_operand(wave, code);
    return wave->vgpr[code - GFX11_VGPR0][lane];
  }
  if (code == GFX11_NULL) return 0;
  if (is_sgpr_like(code)) return wave->sgpr[code];
  if (inline_int(code, &value)) return (uint32_t)value;
  if (code >= 240 && code <= 248) return inline_f32[code - 240];
  if (code == GFX11_SCC) return wave->scc;
  if (code == GFX11_LITERAL) return inst->literal;
  return bad_operand(wave, code);
}

uint32_t gfx11_read32_f16(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                          uint32_t code, uint32_t lane) {
  /* 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0 and 1/(2*pi) as f16. */
  static const uint16_t inline_f16[9] = {0x3800, 0xB800, 0x3C00,
                                         0xBC00, 0x4000, 0xC000,
                                         0x4400, 0xC400, 0x3118};
  if (code >= 240 && code <= 248) return inline_f16[code - 240];
  return gfx11_read32(wave, inst, code, lane);
}

uint64_t gfx11_read64(gfx11_wave_t* wave, uint32_t code, uint32_t lane) {
  int64_t value = 0;
  if (code >= GFX11_VGPR0) {
    uint32_t v = code - GFX11_VGPR0;
    if (v + 1 >= wave->vgpr_count) return bad_operand(wave, code);
    return wave->vgpr[v][lane] | (uint64_t)wave->vgpr[v + 1][lane] << 32;
  }
  if (code == GFX11_NULL) return 0;
  /* SGPR pairs start at an even register (VCC and EXEC included). */
  if (is_sgpr_like(code) && !(code & 1)) {
    return wave->sgpr[code] | (uint64_t)wave->sgpr[code + 1] << 32;
  }
  if (inline_int(code, &value)) return (uint64_t)value;
  if (code >= 240 && code <= 248) return inline_f64[code - 240];
  /* A 64-bit operand's literal extends differently for integer and float
   * types; no modelled 64-bit op needs one yet. */
  return bad_operand(wave, code);
}

uint64_t gfx11_read64_int(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                          uint32_t code, uint32_t lane, bool is_signed) {
  if (code != GFX11_LITERAL) return gfx11_read64(wave, code, lane);
  return is_signed ? (uint64_t)(int64_t)(int32_t)inst->literal
                   : inst->literal;
}

void gfx11_write_sgpr(gfx11_wave_t* wave, uint32_t code, uint32_t value) {
  if (code == GFX11_NULL) return;
  if (!is_sgpr_like(code)) {
    bad_operand(wave, code);
    return;
  }
  wave->sgpr[code] = value;
}

void gfx11_write_vgpr(gfx11_wave_t* wave, uint32_t code, uint32_t lane,
                      uint32_t value) {
  if (code < GFX11_VGPR0 || code - GFX11_VGPR0 >= wave->vgpr_count) {
    bad_operand(wave, code);
    return;
  }
  wave->vgpr[code - GFX11_VGPR0][lane] = value;
}

uint32_t gfx11_cvt_u32_f32(float value) {
  if (isnan(value) || value <= 0.0f) return 0;
  if (value >= 4294967296.0f) return UINT32_MAX;
  return (uint32_t)value;
}

uint32_t gfx11_cvt_i32_f32(float value) {
  if (isnan(value)) return 0;
  if (value <= -2147483648.0f) return 0x80000000u;
  if (value >= 2147483648.0f) return INT32_MAX;
  return (uint32_t)(int32_t)value;
}
