/* Internals of the gfx11 model: the decoded instruction, the wave state and
 * the executors of each encoding class (see gfx11.h). */
#ifndef HRX_FABRIC_GFX11_INTERNAL_H_
#define HRX_FABRIC_GFX11_INTERNAL_H_

#include <stdbool.h>

#include "gfx11.h"
#include "gfx11_opcodes.h"

/* Operand codes shared by scalar (8-bit) and vector (9-bit) source fields,
 * from the RDNA3 ISA guide's operand table. SGPR-like registers (VCC, M0
 * at 125, EXEC) are stored at their code in gfx11_wave_t.sgpr so one index
 * reaches all of them. */
enum {
  GFX11_SGPR_COUNT = 106,
  GFX11_VCC_LO = 106,
  GFX11_VCC_HI = 107,
  GFX11_NULL = 124,
  GFX11_EXEC_LO = 126,
  GFX11_EXEC_HI = 127,
  GFX11_SCC = 253,
  GFX11_LITERAL = 255,
  GFX11_VGPR0 = 256,
  GFX11_MAX_VGPRS = 256,
  GFX11_LANES = 32,
};

typedef enum gfx11_encoding_t {
  GFX11_SOP1,
  GFX11_SOP2,
  GFX11_SOPC,
  GFX11_SOPK,
  GFX11_SOPP,
  GFX11_SMEM,
  GFX11_VOP1,
  GFX11_VOP2,
  GFX11_VOPC,
  GFX11_VOP3,   /* VOP3 and VOP3SD: VOP1/2/C promoted plus VOP3-only ops */
  GFX11_VOPD,
  GFX11_GLOBAL,
  GFX11_DS,     /* LDS of the workgroup, and cross-lane ds_bpermute */
  GFX11_MUBUF,  /* only the cache invalidations (buffer_gl0/gl1_inv) */
  GFX11_VOP3P,  /* packed 16-bit math */
  GFX11_SCRATCH, /* FLAT's private segment: per-lane loads and stores */
} gfx11_encoding_t;

/* One decoded instruction. Register fields hold operand codes (VGPRs as
 * GFX11_VGPR0 + n) so the executors read every source the same way. */
typedef struct gfx11_inst_t {
  gfx11_encoding_t encoding;
  uint32_t op;        /* VOP1/2/C are renumbered into the VOP3 space */
  uint32_t size;      /* bytes, literal included */
  uint32_t dst;
  uint32_t sdst;      /* VOP3SD carry-out / VOPC-as-VOP3 mask destination */
  uint32_t src[3];
  uint32_t literal;
  int32_t imm;        /* SOPP/SOPK simm16, SMEM/GLOBAL/DS byte offset */
  uint32_t abs, neg;  /* VOP3 per-source float modifiers (bit i: src i) */
  /* 16-bit half selects. VOP3: bit i picks the high half of source i,
   * bit 3 writes the high half of the destination. VOP3P: opsel picks
   * the half of each source feeding the low result, opsel_hi the half
   * feeding the high one; neg_hi negates the high result's sources. */
  uint32_t opsel, opsel_hi, neg_hi;
  uint32_t omod;
  bool clamp;
  bool e64;           /* VOP3 form: carries and masks go to sdst/src2 */
  bool glc;           /* GLOBAL atomics: return the old value to dst */
  /* VOPD's second (Y) operation; the X one uses the fields above. */
  uint32_t op_y, dst_y, src_y[2];
} gfx11_inst_t;

typedef struct gfx11_memory_t {
  const hrx_gfx11_range_t* ranges;
  size_t range_count;
} gfx11_memory_t;

typedef struct gfx11_wave_t {
  uint32_t sgpr[128];   /* indexed by operand code (see above) */
  bool scc;
  uint64_t pc;
  bool ended;
  bool at_barrier;      /* waiting at s_barrier for the workgroup */
  bool faulted;
  uint32_t vgpr_count;
  gfx11_memory_t memory;
  /* The workgroup's LDS, shared by its waves (NULL when it has none). */
  uint8_t* lds;
  uint32_t lds_size;
  /* This wave's scratch slot (NULL without a private segment): lane i's
   * private bytes [0, private_size) lie at scratch + i * lane_stride. */
  uint8_t* scratch;
  uint32_t private_size;
  uint32_t lane_stride;
  hrx_gfx11_fault_t* fault;
  uint32_t mode;        /* the MODE hardware register (gfx11_mode.c) */
  uint32_t vgpr[GFX11_MAX_VGPRS][GFX11_LANES];
} gfx11_wave_t;

/* MODE register fields (hwreg 1; LLVM's SIDefines.h): FP_ROUND [3:0],
 * FP_DENORM [7:4] (bit 0 of each 2-bit field keeps input denormals,
 * bit 1 output ones), DX10_CLAMP 8, IEEE 9. */
enum {
  GFX11_MODE_ROUND_MASK = 0xFu,
  GFX11_MODE_DENORM_MASK = 0xF0u,
  GFX11_MODE_F32_DENORM_IN = 1u << 4,
  GFX11_MODE_F32_DENORM_OUT = 1u << 5,
  GFX11_MODE_F16_DENORM_IN = 1u << 6,
  GFX11_MODE_F16_DENORM_OUT = 1u << 7,
  GFX11_MODE_DX10_CLAMP = 1u << 8,
  GFX11_MODE_IEEE = 1u << 9,
};

/* The wave's starting MODE from the descriptor's COMPUTE_PGM_RSRC1. */
uint32_t gfx11_mode_from_rsrc1(uint32_t rsrc1);
/* s_denorm_mode and s_round_mode (imm[3:0] to the field), s_setreg_b32
 * and s_setreg_imm32_b32 (|simm16| names the field), s_getreg_b32. Only
 * the MODE register and round-to-nearest-even are modelled; anything else
 * faults the wave and returns false. */
bool gfx11_denorm_mode(gfx11_wave_t* wave, uint32_t imm);
bool gfx11_round_mode(gfx11_wave_t* wave, uint32_t imm);
bool gfx11_setreg(gfx11_wave_t* wave, uint32_t simm16, uint32_t value);
bool gfx11_getreg(gfx11_wave_t* wave, uint32_t simm16, uint32_t* out_value);
/* A denormal |bits| as zero of its sign unless |keep|. */
uint32_t gfx11_flush_f32(uint32_t bits, bool keep);
uint16_t gfx11_flush_f16(uint16_t bits, bool keep);

/* Writes the mnemonic of |inst| into |out|: its name when the model
 * knows the opcode, else "<encoding> opcode N" (see gfx11_opcodes.h). */
void gfx11_mnemonic(const gfx11_inst_t* inst, char* out, size_t size);

/* The VOP3-numbered op of VOPD opcode |op| of the X or Y half; 0 for the
 * ones the model lacks. */
uint32_t gfx11_vopd_op(uint32_t op, bool is_y);

/* Decodes the instruction at |bytes| (|available| readable bytes). False
 * when no encoding matches or the instruction runs past |available|. */
bool gfx11_decode(const uint8_t* bytes, size_t available,
                  gfx11_inst_t* out_inst);

/* Records a fault on |wave| (the first one wins) and returns false, so
 * executors can `return gfx11_fault(...)`. */
bool gfx11_fault(gfx11_wave_t* wave, hrx_gfx11_fault_kind_t kind,
                 uint64_t address, const char* format, ...)
    __attribute__((format(printf, 4, 5)));

/* Operand access. Reads of invalid codes fault the wave and yield 0. */
uint32_t gfx11_read32(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                      uint32_t code, uint32_t lane);
/* As gfx11_read32 for an operand of a 16-bit float op: the float inline
 * constants are then f16 values in the low half (the high half zero). */
uint32_t gfx11_read32_f16(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                          uint32_t code, uint32_t lane);
uint64_t gfx11_read64(gfx11_wave_t* wave, uint32_t code, uint32_t lane);
/* A 64-bit integer source that may be the 32-bit literal, which the
 * hardware sign-extends for signed operands and zero-extends for unsigned
 * ones. */
uint64_t gfx11_read64_int(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                          uint32_t code, uint32_t lane, bool is_signed);
void gfx11_write_sgpr(gfx11_wave_t* wave, uint32_t code, uint32_t value);
void gfx11_write_vgpr(gfx11_wave_t* wave, uint32_t code, uint32_t lane,
                      uint32_t value);

/* Checks that [address, address + size) is mapped; faults the wave if not. */
bool gfx11_memory_check(gfx11_wave_t* wave, uint64_t address, uint64_t size);
bool gfx11_memory_mapped(const gfx11_memory_t* memory, uint64_t address,
                         uint64_t size);

/* f32 to u32 as v_cvt_u32_f32 and s_cvt_u32_f32 do: truncation, NaN and
 * negatives to 0, saturation at UINT32_MAX. */
uint32_t gfx11_cvt_u32_f32(float value);
/* f32 to i32 as v_cvt_i32_f32 and s_cvt_i32_f32 do: truncation, NaN to 0,
 * saturation at INT32_MIN and INT32_MAX. */
uint32_t gfx11_cvt_i32_f32(float value);
/* Bit 0 to bit 31 and so on (s_brev_b32, v_bfrev_b32). */
uint32_t gfx11_reverse_bits(uint32_t value);
/* One lane of a VALU integer bit-manipulation op (gfx11_bits.c): false
 * for an op that is not one. */
bool gfx11_bit_op(uint32_t op, uint32_t a, uint32_t b, uint32_t c,
                  uint32_t* out);

/* IEEE arithmetic the host lacks, exactly rounded (gfx11_float.c). f16
 * values travel as their bit patterns; NaN results are quiet. */
float gfx11_f16_to_f32(uint16_t h);
uint16_t gfx11_f16_from_f32(float value);
uint16_t gfx11_f16_from_double(double value);
uint16_t gfx11_add_f16(uint16_t a, uint16_t b);
uint16_t gfx11_mul_f16(uint16_t a, uint16_t b);
uint16_t gfx11_fma_f16(uint16_t a, uint16_t b, uint16_t c);
/* v_max and v_min as the ISA's pseudocode has them: in IEEE mode
 * (|ieee|) a signalling NaN source gives its quiet form; otherwise a NaN
 * source gives the other source; +0 is above -0. */
uint16_t gfx11_max_f16(uint16_t a, uint16_t b, bool ieee);
uint16_t gfx11_min_f16(uint16_t a, uint16_t b, bool ieee);
uint32_t gfx11_max_f32(uint32_t a, uint32_t b, bool ieee);
uint32_t gfx11_min_f32(uint32_t a, uint32_t b, bool ieee);
/* v_div_scale_f32, v_div_fmas_f32 and v_div_fixup_f32 of one lane;
 * |out_vcc| receives the lane's condition. */
uint32_t gfx11_div_scale_f32(uint32_t s0, uint32_t s1, uint32_t s2,
                             bool* out_vcc);
uint32_t gfx11_div_fmas_f32(uint32_t s0, uint32_t s1, uint32_t s2, bool vcc);
uint32_t gfx11_div_fixup_f32(uint32_t s0, uint32_t s1, uint32_t s2);
/* v_sin_f32 (or with |cosine| v_cos_f32) of one lane: the sine of S0
 * turns, sin(2 pi S0). */
uint32_t gfx11_sin_turns_f32(uint32_t s0, bool cosine);

/* Executors: false when the wave faulted. They advance or set the PC. */
bool gfx11_exec_scalar(gfx11_wave_t* wave, const gfx11_inst_t* inst);
bool gfx11_exec_vector(gfx11_wave_t* wave, const gfx11_inst_t* inst);
bool gfx11_exec_memory(gfx11_wave_t* wave, const gfx11_inst_t* inst);
bool gfx11_exec_lds(gfx11_wave_t* wave, const gfx11_inst_t* inst);
/* The 16-bit VOP1/VOP2/VOP3 ops, and VOP3P (gfx11_half.c). */
bool gfx11_is_half_op(uint32_t op);
/* Source |index| of a 16-bit float VOPC/VOP3 op: its half of the register
 * (see gfx11_half.c) with abs and neg applied. */
uint16_t gfx11_read_f16_source(gfx11_wave_t* wave, const gfx11_inst_t* inst,
                               int index, uint32_t lane);
bool gfx11_exec_half(gfx11_wave_t* wave, const gfx11_inst_t* inst);
bool gfx11_exec_vop3p(gfx11_wave_t* wave, const gfx11_inst_t* inst);
/* v_wmma_* (gfx11_wmma.c): whether a VOP3P opcode is one, and running
 * it. */
bool gfx11_is_wmma(uint32_t op);
bool gfx11_exec_wmma(gfx11_wave_t* wave, const gfx11_inst_t* inst);

#endif  // HRX_FABRIC_GFX11_INTERNAL_H_
