/* The gfx11 model: each modelled opcode against values from the RDNA3 ISA
 * semantics, saxpy, gather and histogram compiled for gfx1151 against C
 * references bit for bit, and bad input (undecodable words, stores outside
 * the mapped ranges, endless loops) stopping the wave with a named fault.
 * Instruction bytes were produced once with
 *   llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu=gfx1151 -show-encoding
 * and are checked in with their assembly beside them. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gfx11.h"
#include "gfx11_internal.h"
#include "gfx11_test_util.h"
#include "hrx/core/file.h"
#include "hrx/loom.h"
#include "test_support.h"

typedef struct isa_case_t {
  const char* text;
  const uint8_t* code;
  size_t length;
  uint32_t in[4];   /* kernarg words 0-3: s4-s7, and v2-v4 = s4-s6 */
  uint32_t lane0;   /* expected v10 of lanes 0 and 5 (0xdeadbeef: the */
  uint32_t lane5;   /* lane was inactive and stored nothing) */
} isa_case_t;

/* Each case runs between this prologue and epilogue: s4-s7 inputs,
 * s[12:13] the output, v1 a 16-byte slot per lane, v2-v4 the inputs,
 * v[5:6] the 64-bit lane id, v10 the result stored at the end. */
static const uint8_t prologue[] = {
    /* s_load_b128 s[4:7], s[0:1], 0x0 */
    0x00, 0x01, 0x08, 0xf4, 0x00, 0x00, 0x00, 0xf8,
    /* s_load_b64 s[12:13], s[0:1], 0x10 */
    0x00, 0x03, 0x04, 0xf4, 0x10, 0x00, 0x00, 0xf8,
    /* s_waitcnt lgkmcnt(0) */
    0x07, 0xfc, 0x89, 0xbf,
    /* v_lshlrev_b32_e32 v1, 4, v0 */
    0x84, 0x00, 0x02, 0x30,
    /* v_mov_b32_e32 v2, s4 */
    0x04, 0x02, 0x04, 0x7e,
    /* v_mov_b32_e32 v3, s5 */
    0x05, 0x02, 0x06, 0x7e,
    /* v_mov_b32_e32 v4, s6 */
    0x06, 0x02, 0x08, 0x7e,
    /* v_mov_b32_e32 v5, v0 */
    0x00, 0x03, 0x0a, 0x7e,
    /* v_mov_b32_e32 v6, 0 */
    0x80, 0x02, 0x0c, 0x7e,
    /* v_mov_b32_e32 v10, 0 */
    0x80, 0x02, 0x14, 0x7e,
};
static const uint8_t epilogue[] = {
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* s_endpgm */
    0x00, 0x00, 0xb0, 0xbf,
};

static const uint8_t case0[] = {
    /* s_add_u32 s20, s4, s5 */
    0x04, 0x05, 0x14, 0x80,
    /* s_addc_u32 s20, s20, 0 */
    0x14, 0x80, 0x14, 0x82,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case1[] = {
    /* s_sub_u32 s20, s4, s5 */
    0x04, 0x05, 0x94, 0x80,
    /* s_subb_u32 s20, s20, 0 */
    0x14, 0x80, 0x94, 0x82,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case2[] = {
    /* s_add_i32 s20, s4, s5 */
    0x04, 0x05, 0x14, 0x81,
    /* s_cselect_b32 s20, s20, 7 */
    0x14, 0x87, 0x14, 0x98,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case3[] = {
    /* s_sub_i32 s20, s4, s5 */
    0x04, 0x05, 0x94, 0x81,
    /* s_cselect_b32 s20, 5, s20 */
    0x85, 0x14, 0x14, 0x98,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case4[] = {
    /* s_and_b32 s20, s4, 0xffff */
    0x04, 0xff, 0x14, 0x8b, 0xff, 0xff, 0x00, 0x00,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case5[] = {
    /* s_or_b32 s20, s4, s5 */
    0x04, 0x05, 0x14, 0x8c,
    /* s_xor_b32 s20, s20, s6 */
    0x14, 0x06, 0x14, 0x8d,
    /* s_and_not1_b32 s20, s20, s7 */
    0x14, 0x07, 0x14, 0x91,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case6[] = {
    /* s_lshl_b32 s20, s4, s5 */
    0x04, 0x05, 0x14, 0x84,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case7[] = {
    /* s_lshr_b32 s20, s4, 4 */
    0x04, 0x84, 0x14, 0x85,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case8[] = {
    /* s_ashr_i32 s20, s4, 4 */
    0x04, 0x84, 0x14, 0x86,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case9[] = {
    /* s_lshl_b64 s[20:21], s[4:5], 4 */
    0x04, 0x84, 0x94, 0x84,
    /* v_mov_b32_e32 v10, s21 */
    0x15, 0x02, 0x14, 0x7e,
};
static const uint8_t case10[] = {
    /* s_lshr_b64 s[20:21], s[4:5], s6 */
    0x04, 0x06, 0x94, 0x85,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case11[] = {
    /* s_or_b64 s[20:21], s[4:5], s[6:7] */
    0x04, 0x06, 0x94, 0x8c,
    /* v_mov_b32_e32 v10, s21 */
    0x15, 0x02, 0x14, 0x7e,
};
static const uint8_t case12[] = {
    /* s_and_b64 s[20:21], s[4:5], s[6:7] */
    0x04, 0x06, 0x94, 0x8b,
    /* v_mov_b32_e32 v10, s21 */
    0x15, 0x02, 0x14, 0x7e,
};
static const uint8_t case13[] = {
    /* s_min_i32 s20, s4, s5 */
    0x04, 0x05, 0x14, 0x89,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case14[] = {
    /* s_min_u32 s20, s4, s5 */
    0x04, 0x05, 0x94, 0x89,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case15[] = {
    /* s_max_i32 s20, s4, s5 */
    0x04, 0x05, 0x14, 0x8a,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case16[] = {
    /* s_max_u32 s20, s4, s5 */
    0x04, 0x05, 0x94, 0x8a,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case17[] = {
    /* s_mul_i32 s20, s4, s5 */
    0x04, 0x05, 0x14, 0x96,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case18[] = {
    /* s_mul_hi_u32 s20, s4, s5 */
    0x04, 0x05, 0x94, 0x96,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case19[] = {
    /* s_mul_hi_i32 s20, s4, s5 */
    0x04, 0x05, 0x14, 0x97,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case20[] = {
    /* s_mov_b64 s[20:21], s[4:5] */
    0x04, 0x01, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s21 */
    0x15, 0x02, 0x14, 0x7e,
};
static const uint8_t case21[] = {
    /* s_not_b32 s20, s4 */
    0x04, 0x1e, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case22[] = {
    /* s_movk_i32 s20, 0x8000 */
    0x00, 0x80, 0x14, 0xb0,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case23[] = {
    /* s_cmp_lt_i32 s4, s5 */
    0x04, 0x05, 0x04, 0xbf,
    /* s_cselect_b32 s20, 1, 2 */
    0x81, 0x82, 0x14, 0x98,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case24[] = {
    /* s_cmp_lt_u32 s4, s5 */
    0x04, 0x05, 0x0a, 0xbf,
    /* s_cselect_b32 s20, 1, 2 */
    0x81, 0x82, 0x14, 0x98,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case25[] = {
    /* s_cmp_gt_u32 s4, s5 */
    0x04, 0x05, 0x08, 0xbf,
    /* s_cselect_b32 s20, 1, 2 */
    0x81, 0x82, 0x14, 0x98,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case26[] = {
    /* s_cmp_eq_u32 s4, s5 */
    0x04, 0x05, 0x06, 0xbf,
    /* s_cselect_b32 s20, 1, 2 */
    0x81, 0x82, 0x14, 0x98,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case27[] = {
    /* s_cmp_lg_u32 s4, s5 */
    0x04, 0x05, 0x07, 0xbf,
    /* s_cselect_b32 s20, 1, 2 */
    0x81, 0x82, 0x14, 0x98,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case28[] = {
    /* s_cmp_eq_u64 s[4:5], s[6:7] */
    0x04, 0x06, 0x10, 0xbf,
    /* s_cselect_b32 s20, 1, 2 */
    0x81, 0x82, 0x14, 0x98,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case29[] = {
    /* s_cmp_lg_u64 s[4:5], s[6:7] */
    0x04, 0x06, 0x11, 0xbf,
    /* s_cselect_b32 s20, 1, 2 */
    0x81, 0x82, 0x14, 0x98,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case30[] = {
    /* s_mov_b32 s20, 1 */
    0x81, 0x00, 0x94, 0xbe,
    /* s_branch 1 */
    0x01, 0x00, 0xa0, 0xbf,
    /* s_mov_b32 s20, 2 */
    0x82, 0x00, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case31[] = {
    /* s_mov_b32 s20, 1 */
    0x81, 0x00, 0x94, 0xbe,
    /* s_cmp_eq_u32 s4, 0 */
    0x04, 0x80, 0x06, 0xbf,
    /* s_cbranch_scc1 1 */
    0x01, 0x00, 0xa2, 0xbf,
    /* s_mov_b32 s20, 2 */
    0x82, 0x00, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case32[] = {
    /* s_mov_b32 s20, 1 */
    0x81, 0x00, 0x94, 0xbe,
    /* s_cmp_eq_u32 s4, 0 */
    0x04, 0x80, 0x06, 0xbf,
    /* s_cbranch_scc0 1 */
    0x01, 0x00, 0xa1, 0xbf,
    /* s_mov_b32 s20, 2 */
    0x82, 0x00, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case33[] = {
    /* s_mov_b32 s20, 1 */
    0x81, 0x00, 0x94, 0xbe,
    /* s_cbranch_vccz 1 */
    0x01, 0x00, 0xa3, 0xbf,
    /* s_mov_b32 s20, 2 */
    0x82, 0x00, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case34[] = {
    /* s_mov_b32 s20, 1 */
    0x81, 0x00, 0x94, 0xbe,
    /* s_cbranch_vccnz 1 */
    0x01, 0x00, 0xa4, 0xbf,
    /* s_mov_b32 s20, 2 */
    0x82, 0x00, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case35[] = {
    /* s_mov_b32 s20, 1 */
    0x81, 0x00, 0x94, 0xbe,
    /* s_cbranch_execz 1 */
    0x01, 0x00, 0xa5, 0xbf,
    /* s_mov_b32 s20, 2 */
    0x82, 0x00, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case36[] = {
    /* s_mov_b32 s20, 1 */
    0x81, 0x00, 0x94, 0xbe,
    /* s_cbranch_execnz 1 */
    0x01, 0x00, 0xa6, 0xbf,
    /* s_mov_b32 s20, 2 */
    0x82, 0x00, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case37[] = {
    /* s_and_saveexec_b32 s20, s4 */
    0x04, 0x20, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case38[] = {
    /* s_or_saveexec_b32 s20, s4 */
    0x04, 0x22, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case39[] = {
    /* s_mov_b32 exec_lo, 1 */
    0x81, 0x00, 0xfe, 0xbe,
    /* s_and_not1_saveexec_b32 s20, s4 */
    0x04, 0x30, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case40[] = {
    /* s_nop 0 */
    0x00, 0x00, 0x80, 0xbf,
    /* s_clause 0x1 */
    0x01, 0x00, 0x85, 0xbf,
    /* s_delay_alu instid0(VALU_DEP_1) */
    0x01, 0x00, 0x87, 0xbf,
    /* s_waitcnt vmcnt(0) */
    0xf7, 0x03, 0x89, 0xbf,
    /* s_waitcnt_vscnt null, 0x0 */
    0x00, 0x00, 0x7c, 0xbc,
    /* s_waitcnt_depctr 0xfff */
    0xff, 0x0f, 0x88, 0xbf,
    /* s_barrier */
    0x00, 0x00, 0xbd, 0xbf,
    /* s_sendmsg sendmsg(MSG_DEALLOC_VGPRS) */
    0x03, 0x00, 0xb6, 0xbf,
    /* v_mov_b32_e32 v10, s4 */
    0x04, 0x02, 0x14, 0x7e,
};
static const uint8_t case41[] = {
    /* s_load_b32 s20, s[0:1], 0x4 */
    0x00, 0x05, 0x00, 0xf4, 0x04, 0x00, 0x00, 0xf8,
    /* s_waitcnt lgkmcnt(0) */
    0x07, 0xfc, 0x89, 0xbf,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case42[] = {
    /* s_load_b256 s[20:27], s[0:1], 0x0 */
    0x00, 0x05, 0x0c, 0xf4, 0x00, 0x00, 0x00, 0xf8,
    /* s_waitcnt lgkmcnt(0) */
    0x07, 0xfc, 0x89, 0xbf,
    /* v_mov_b32_e32 v10, s23 */
    0x17, 0x02, 0x14, 0x7e,
};
static const uint8_t case43[] = {
    /* v_mov_b32_e32 v10, 0x12345678 */
    0xff, 0x02, 0x14, 0x7e, 0x78, 0x56, 0x34, 0x12,
};
static const uint8_t case44[] = {
    /* v_mov_b32_e32 v10, -16 */
    0xd0, 0x02, 0x14, 0x7e,
};
static const uint8_t case45[] = {
    /* v_mov_b32_e32 v10, 0.5 */
    0xf0, 0x02, 0x14, 0x7e,
};
static const uint8_t case46[] = {
    /* v_mov_b32_e32 v10, 0.15915494 */
    0xf8, 0x02, 0x14, 0x7e,
};
static const uint8_t case47[] = {
    /* v_add_nc_u32_e32 v11, 7, v5 */
    0x87, 0x0a, 0x16, 0x4a,
    /* v_readfirstlane_b32 s20, v11 */
    0x0b, 0x05, 0x28, 0x7e,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case48[] = {
    /* v_cvt_f32_u32_e32 v10, v5 */
    0x05, 0x0d, 0x14, 0x7e,
};
static const uint8_t case49[] = {
    /* v_cvt_u32_f32_e32 v10, v2 */
    0x02, 0x0f, 0x14, 0x7e,
};
static const uint8_t case50[] = {
    /* v_cvt_u32_f32_e32 v10, v2 */
    0x02, 0x0f, 0x14, 0x7e,
};
static const uint8_t case51[] = {
    /* v_cmp_gt_u32_e32 vcc_lo, 3, v5 */
    0x83, 0x0a, 0x98, 0x7c,
    /* v_cndmask_b32_e32 v10, v2, v3, vcc_lo */
    0x02, 0x07, 0x14, 0x02,
};
static const uint8_t case52[] = {
    /* v_cmp_gt_u32_e64 s20, 3, v5 */
    0x14, 0x00, 0x4c, 0xd4, 0x83, 0x0a, 0x02, 0x00,
    /* v_cndmask_b32_e64 v10, v2, v3, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x02, 0x07, 0x52, 0x00,
};
static const uint8_t case53[] = {
    /* v_add_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x06,
};
static const uint8_t case54[] = {
    /* v_sub_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x08,
};
static const uint8_t case55[] = {
    /* v_mul_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x10,
};
static const uint8_t case56[] = {
    /* v_min_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x1e,
};
static const uint8_t case57[] = {
    /* v_max_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x20,
};
static const uint8_t case58[] = {
    /* v_add_f32_e64 v10, -|v2|, v3 */
    0x0a, 0x01, 0x03, 0xd5, 0x02, 0x07, 0x02, 0x20,
};
static const uint8_t case59[] = {
    /* v_mul_f32_e64 v10, v2, v3 clamp */
    0x0a, 0x80, 0x08, 0xd5, 0x02, 0x07, 0x02, 0x00,
};
static const uint8_t case60[] = {
    /* v_add_f32_e64 v10, v2, v3 mul:2 */
    0x0a, 0x00, 0x03, 0xd5, 0x02, 0x07, 0x02, 0x08,
};
static const uint8_t case61[] = {
    /* v_mov_b32_e32 v10, v4 */
    0x04, 0x03, 0x14, 0x7e,
    /* v_fmac_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x56,
};
static const uint8_t case62[] = {
    /* v_fma_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x13, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case63[] = {
    /* v_add_nc_u32_e32 v10, s4, v5 */
    0x04, 0x0a, 0x14, 0x4a,
};
static const uint8_t case64[] = {
    /* v_sub_nc_u32_e32 v10, v2, v5 */
    0x02, 0x0b, 0x14, 0x4c,
};
static const uint8_t case65[] = {
    /* v_subrev_nc_u32_e32 v10, v2, v5 */
    0x02, 0x0b, 0x14, 0x4e,
};
static const uint8_t case66[] = {
    /* v_lshlrev_b32_e32 v10, v5, v2 */
    0x05, 0x05, 0x14, 0x30,
};
static const uint8_t case67[] = {
    /* v_lshrrev_b32_e32 v10, v5, v2 */
    0x05, 0x05, 0x14, 0x32,
};
static const uint8_t case68[] = {
    /* v_ashrrev_i32_e32 v10, v5, v2 */
    0x05, 0x05, 0x14, 0x34,
};
static const uint8_t case69[] = {
    /* v_and_b32_e32 v10, v2, v5 */
    0x02, 0x0b, 0x14, 0x36,
};
static const uint8_t case70[] = {
    /* v_or_b32_e32 v10, v2, v5 */
    0x02, 0x0b, 0x14, 0x38,
};
static const uint8_t case71[] = {
    /* v_xor_b32_e32 v10, v2, v5 */
    0x02, 0x0b, 0x14, 0x3a,
};
static const uint8_t case72[] = {
    /* v_min_u32_e32 v10, v2, v5 */
    0x02, 0x0b, 0x14, 0x26,
};
static const uint8_t case73[] = {
    /* v_max_u32_e32 v10, v2, v5 */
    0x02, 0x0b, 0x14, 0x28,
};
static const uint8_t case74[] = {
    /* v_mul_lo_u32 v10, v2, v5 */
    0x0a, 0x00, 0x2c, 0xd7, 0x02, 0x0b, 0x02, 0x00,
};
static const uint8_t case75[] = {
    /* v_mul_hi_u32 v10, v2, v3 */
    0x0a, 0x00, 0x2d, 0xd7, 0x02, 0x07, 0x02, 0x00,
};
static const uint8_t case76[] = {
    /* v_add3_u32 v10, v2, v3, v5 */
    0x0a, 0x00, 0x55, 0xd6, 0x02, 0x07, 0x16, 0x04,
};
static const uint8_t case77[] = {
    /* v_mbcnt_lo_u32_b32 v10, -1, 0 */
    0x0a, 0x00, 0x1f, 0xd7, 0xc1, 0x00, 0x01, 0x00,
};
static const uint8_t case78[] = {
    /* v_add_co_u32 v10, vcc_lo, v2, v5 */
    0x0a, 0x6a, 0x00, 0xd7, 0x02, 0x0b, 0x02, 0x00,
    /* v_add_co_ci_u32_e32 v10, vcc_lo, 0, v10, vcc_lo */
    0x80, 0x14, 0x14, 0x40,
};
static const uint8_t case79[] = {
    /* v_mov_b32_e32 v11, 0 */
    0x80, 0x02, 0x16, 0x7e,
    /* v_sub_co_u32 v10, vcc_lo, v5, 3 */
    0x0a, 0x6a, 0x01, 0xd7, 0x05, 0x07, 0x01, 0x00,
    /* v_sub_co_ci_u32_e32 v11, vcc_lo, 0, v11, vcc_lo */
    0x80, 0x16, 0x16, 0x42,
    /* v_add_nc_u32_e32 v10, v10, v11 */
    0x0a, 0x17, 0x14, 0x4a,
};
static const uint8_t case80[] = {
    /* v_subrev_co_u32 v10, vcc_lo, 3, v5 */
    0x0a, 0x6a, 0x02, 0xd7, 0x83, 0x0a, 0x02, 0x00,
    /* v_mov_b32_e32 v11, 0 */
    0x80, 0x02, 0x16, 0x7e,
    /* v_subrev_co_ci_u32_e32 v11, vcc_lo, 0, v11, vcc_lo */
    0x80, 0x16, 0x16, 0x44,
    /* v_add_nc_u32_e32 v10, v10, v11 */
    0x0a, 0x17, 0x14, 0x4a,
};
static const uint8_t case81[] = {
    /* s_mov_b32 s21, 1 */
    0x81, 0x00, 0x95, 0xbe,
    /* v_add_co_ci_u32_e64 v10, s20, v2, v5, s21 */
    0x0a, 0x14, 0x20, 0xd5, 0x02, 0x0b, 0x56, 0x00,
};
static const uint8_t case82[] = {
    /* v_mad_u64_u32 v[10:11], null, v2, v3, v[5:6] */
    0x0a, 0x7c, 0xfe, 0xd6, 0x02, 0x07, 0x16, 0x04,
};
static const uint8_t case83[] = {
    /* v_mad_u64_u32 v[10:11], null, v2, v3, v[5:6] */
    0x0a, 0x7c, 0xfe, 0xd6, 0x02, 0x07, 0x16, 0x04,
    /* v_mov_b32_e32 v10, v11 */
    0x0b, 0x03, 0x14, 0x7e,
};
static const uint8_t case84[] = {
    /* v_mad_i64_i32 v[10:11], null, v2, v3, v[5:6] */
    0x0a, 0x7c, 0xff, 0xd6, 0x02, 0x07, 0x16, 0x04,
};
static const uint8_t case85[] = {
    /* v_lshlrev_b64 v[10:11], 30, v[5:6] */
    0x0a, 0x00, 0x3c, 0xd7, 0x9e, 0x0a, 0x02, 0x00,
    /* v_mov_b32_e32 v10, v11 */
    0x0b, 0x03, 0x14, 0x7e,
};
static const uint8_t case86[] = {
    /* v_cmp_lt_u32_e32 vcc_lo, 3, v5 */
    0x83, 0x0a, 0x92, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case87[] = {
    /* v_cmp_eq_u32_e32 vcc_lo, 5, v5 */
    0x85, 0x0a, 0x94, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case88[] = {
    /* v_cmp_le_u32_e32 vcc_lo, 5, v5 */
    0x85, 0x0a, 0x96, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case89[] = {
    /* v_cmp_ne_u32_e32 vcc_lo, 5, v5 */
    0x85, 0x0a, 0x9a, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case90[] = {
    /* v_cmp_ge_u32_e32 vcc_lo, 3, v5 */
    0x83, 0x0a, 0x9c, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case91[] = {
    /* v_cmp_lt_i32_e32 vcc_lo, v2, v5 */
    0x02, 0x0b, 0x82, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case92[] = {
    /* v_cmp_gt_u64_e32 vcc_lo, s[4:5], v[5:6] */
    0x04, 0x0a, 0xb8, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case93[] = {
    /* v_cmp_lt_u64_e32 vcc_lo, s[4:5], v[5:6] */
    0x04, 0x0a, 0xb2, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case94[] = {
    /* v_cmp_gt_i64_e64 vcc_lo, v[5:6], s[4:5] */
    0x6a, 0x00, 0x54, 0xd4, 0x05, 0x09, 0x00, 0x00,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case95[] = {
    /* v_cmp_lt_f32_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x22, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case96[] = {
    /* v_cmp_gt_f32_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x28, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case97[] = {
    /* v_cmp_eq_f32_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x24, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case98[] = {
    /* v_cmpx_eq_u32_e32 5, v5 */
    0x85, 0x0a, 0x94, 0x7d,
    /* v_mov_b32_e32 v10, 9 */
    0x89, 0x02, 0x14, 0x7e,
};
static const uint8_t case99[] = {
    /* v_cmpx_gt_u64_e64 s[4:5], v[5:6] */
    0x7e, 0x00, 0xdc, 0xd4, 0x04, 0x0a, 0x02, 0x00,
    /* v_mov_b32_e32 v10, 9 */
    0x89, 0x02, 0x14, 0x7e,
};
static const uint8_t case100[] = {
    /* v_dual_mov_b32 v10, v2 :: v_dual_mov_b32 v11, v3 */
    0x02, 0x01, 0x10, 0xca, 0x03, 0x01, 0x0a, 0x0a,
};
static const uint8_t case101[] = {
    /* v_mov_b32_e32 v7, v2 */
    0x02, 0x03, 0x0e, 0x7e,
    /* v_mov_b32_e32 v8, v3 */
    0x03, 0x03, 0x10, 0x7e,
    /* v_dual_add_f32 v10, v2, v3 :: v_dual_mul_f32 v11, v7, v8 */
    0x02, 0x07, 0x06, 0xc9, 0x07, 0x11, 0x0a, 0x0a,
    /* v_add_f32_e32 v10, v10, v11 */
    0x0a, 0x17, 0x14, 0x06,
};
static const uint8_t case102[] = {
    /* v_mov_b32_e32 v10, v2 */
    0x02, 0x03, 0x14, 0x7e,
    /* v_mov_b32_e32 v11, v3 */
    0x03, 0x03, 0x16, 0x7e,
    /* v_dual_mov_b32 v10, v11 :: v_dual_mov_b32 v11, v10 */
    0x0b, 0x01, 0x10, 0xca, 0x0a, 0x01, 0x0a, 0x0a,
};
static const uint8_t case103[] = {
    /* v_cmp_gt_u32_e32 vcc_lo, 3, v5 */
    0x83, 0x0a, 0x98, 0x7c,
    /* v_dual_cndmask_b32 v10, v2, v3 :: v_dual_add_nc_u32 v11, v5, v4 */
    0x02, 0x07, 0x60, 0xca, 0x05, 0x09, 0x0a, 0x0a,
    /* v_add_nc_u32_e32 v10, v10, v11 */
    0x0a, 0x17, 0x14, 0x4a,
};
static const uint8_t case104[] = {
    /* v_mov_b32_e32 v10, v4 */
    0x04, 0x03, 0x14, 0x7e,
    /* v_mov_b32_e32 v7, v2 */
    0x02, 0x03, 0x0e, 0x7e,
    /* v_mov_b32_e32 v8, v3 */
    0x03, 0x03, 0x10, 0x7e,
    /* v_dual_fmac_f32 v10, v2, v3 :: v_dual_sub_f32 v11, v7, v8 */
    0x02, 0x07, 0x0a, 0xc8, 0x07, 0x11, 0x0a, 0x0a,
};
static const uint8_t case105[] = {
    /* v_mov_b32_e32 v12, s0 */
    0x00, 0x02, 0x18, 0x7e,
    /* v_mov_b32_e32 v13, s1 */
    0x01, 0x02, 0x1a, 0x7e,
    /* global_load_b32 v10, v[12:13], off offset:4 */
    0x04, 0x00, 0x52, 0xdc, 0x0c, 0x00, 0x7c, 0x0a,
};
static const uint8_t case106[] = {
    /* v_mov_b32_e32 v12, s0 */
    0x00, 0x02, 0x18, 0x7e,
    /* v_mov_b32_e32 v13, s1 */
    0x01, 0x02, 0x1a, 0x7e,
    /* global_load_b64 v[10:11], v[12:13], off offset:8 */
    0x08, 0x00, 0x56, 0xdc, 0x0c, 0x00, 0x7c, 0x0a,
    /* v_add_nc_u32_e32 v10, v10, v11 */
    0x0a, 0x17, 0x14, 0x4a,
};
static const uint8_t case107[] = {
    /* v_mov_b32_e32 v12, s0 */
    0x00, 0x02, 0x18, 0x7e,
    /* v_mov_b32_e32 v13, s1 */
    0x01, 0x02, 0x1a, 0x7e,
    /* global_load_b96 v[10:12], v[12:13], off */
    0x00, 0x00, 0x5a, 0xdc, 0x0c, 0x00, 0x7c, 0x0a,
    /* v_add_nc_u32_e32 v10, v10, v12 */
    0x0a, 0x19, 0x14, 0x4a,
};
static const uint8_t case108[] = {
    /* v_mov_b32_e32 v12, s0 */
    0x00, 0x02, 0x18, 0x7e,
    /* v_mov_b32_e32 v13, s1 */
    0x01, 0x02, 0x1a, 0x7e,
    /* global_load_b128 v[10:13], v[12:13], off */
    0x00, 0x00, 0x5e, 0xdc, 0x0c, 0x00, 0x7c, 0x0a,
    /* v_add_nc_u32_e32 v10, v10, v13 */
    0x0a, 0x1b, 0x14, 0x4a,
};
static const uint8_t case109[] = {
    /* global_load_u8 v10, v6, s[0:1] offset:1 */
    0x01, 0x00, 0x42, 0xdc, 0x06, 0x00, 0x00, 0x0a,
};
static const uint8_t case110[] = {
    /* global_load_i8 v10, v6, s[0:1] offset:3 */
    0x03, 0x00, 0x46, 0xdc, 0x06, 0x00, 0x00, 0x0a,
};
static const uint8_t case111[] = {
    /* global_load_u16 v10, v6, s[0:1] offset:2 */
    0x02, 0x00, 0x4a, 0xdc, 0x06, 0x00, 0x00, 0x0a,
};
static const uint8_t case112[] = {
    /* global_load_i16 v10, v6, s[0:1] offset:2 */
    0x02, 0x00, 0x4e, 0xdc, 0x06, 0x00, 0x00, 0x0a,
};
static const uint8_t case113[] = {
    /* global_store_b32 v1, v5, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case114[] = {
    /* v_mov_b32_e32 v10, -1 */
    0xc1, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_store_b8 v1, v5, s[12:13] offset:1 */
    0x01, 0x00, 0x62, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case115[] = {
    /* v_mov_b32_e32 v10, -1 */
    0xc1, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_store_b16 v1, v5, s[12:13] offset:2 */
    0x02, 0x00, 0x66, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case116[] = {
    /* v_mov_b32_e32 v7, v2 */
    0x02, 0x03, 0x0e, 0x7e,
    /* v_mov_b32_e32 v8, v3 */
    0x03, 0x03, 0x10, 0x7e,
    /* global_store_b64 v1, v[7:8], s[12:13] offset:8 */
    0x08, 0x00, 0x6e, 0xdc, 0x01, 0x07, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] offset:12 */
    0x0c, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case117[] = {
    /* v_mov_b32_e32 v7, v2 */
    0x02, 0x03, 0x0e, 0x7e,
    /* v_mov_b32_e32 v8, v3 */
    0x03, 0x03, 0x10, 0x7e,
    /* v_mov_b32_e32 v9, v4 */
    0x04, 0x03, 0x12, 0x7e,
    /* global_store_b96 v1, v[7:9], s[12:13] offset:4 */
    0x04, 0x00, 0x72, 0xdc, 0x01, 0x07, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] offset:12 */
    0x0c, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case118[] = {
    /* v_mov_b32_e32 v7, v2 */
    0x02, 0x03, 0x0e, 0x7e,
    /* v_mov_b32_e32 v8, v3 */
    0x03, 0x03, 0x10, 0x7e,
    /* v_mov_b32_e32 v9, v4 */
    0x04, 0x03, 0x12, 0x7e,
    /* v_mov_b32_e32 v10, v5 */
    0x05, 0x03, 0x14, 0x7e,
    /* global_store_b128 v1, v[7:10], s[12:13] */
    0x00, 0x00, 0x76, 0xdc, 0x01, 0x07, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] offset:12 */
    0x0c, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case119[] = {
    /* s_xor_b64 s[20:21], s[4:5], s[6:7] */
    0x04, 0x06, 0x94, 0x8d,
    /* v_mov_b32_e32 v10, s21 */
    0x15, 0x02, 0x14, 0x7e,
};
static const uint8_t case120[] = {
    /* s_cvt_f32_u32 s20, s4 */
    0x04, 0x65, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case121[] = {
    /* s_cvt_u32_f32 s20, s4 */
    0x04, 0x67, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case122[] = {
    /* s_trunc_f32 s20, s4 */
    0x04, 0x62, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case123[] = {
    /* s_mul_f32 s20, s4, 2.0 */
    0x04, 0xf4, 0x14, 0xa2,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case124[] = {
    /* s_fmamk_f32 s20, s4, 0x3f800001, s5 */
    0x04, 0x05, 0x14, 0xa3, 0x01, 0x00, 0x80, 0x3f,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case125[] = {
    /* s_fmaak_f32 s20, s4, s5, 0xbf800002 */
    0x04, 0x05, 0x94, 0xa2, 0x02, 0x00, 0x80, 0xbf,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case126[] = {
    /* v_rcp_f32_e32 v10, v2 */
    0x02, 0x55, 0x14, 0x7e,
};
static const uint8_t case127[] = {
    /* v_rcp_iflag_f32_e32 v10, v2 */
    0x02, 0x57, 0x14, 0x7e,
};
static const uint8_t case128[] = {
    /* v_mov_b32_e32 v10, 10 */
    0x8a, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_atomic_add_u32 v10, v1, v5, s[12:13] glc */
    0x00, 0x40, 0xd6, 0xdc, 0x01, 0x05, 0x0c, 0x0a,
    /* global_load_b32 v11, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0b,
    /* v_add_nc_u32_e32 v10, v10, v11 */
    0x0a, 0x17, 0x14, 0x4a,
};
static const uint8_t case129[] = {
    /* v_mov_b32_e32 v10, 10 */
    0x8a, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_atomic_swap_b32 v1, v5, s[12:13] */
    0x00, 0x00, 0xce, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case130[] = {
    /* v_mov_b32_e32 v10, 10 */
    0x8a, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_atomic_add_u32 v1, v5, s[12:13] */
    0x00, 0x00, 0xd6, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case131[] = {
    /* v_mov_b32_e32 v10, 10 */
    0x8a, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_atomic_sub_u32 v1, v5, s[12:13] */
    0x00, 0x00, 0xda, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case132[] = {
    /* v_mov_b32_e32 v10, 10 */
    0x8a, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_atomic_min_u32 v1, v5, s[12:13] */
    0x00, 0x00, 0xe6, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case133[] = {
    /* v_mov_b32_e32 v10, 10 */
    0x8a, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_atomic_max_u32 v1, v5, s[12:13] */
    0x00, 0x00, 0xee, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case134[] = {
    /* v_mov_b32_e32 v10, -1 */
    0xc1, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_atomic_min_i32 v1, v5, s[12:13] */
    0x00, 0x00, 0xe2, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case135[] = {
    /* v_mov_b32_e32 v10, -1 */
    0xc1, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_atomic_max_i32 v1, v5, s[12:13] */
    0x00, 0x00, 0xea, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case136[] = {
    /* v_mov_b32_e32 v10, 10 */
    0x8a, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_atomic_and_b32 v1, v5, s[12:13] */
    0x00, 0x00, 0xf2, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case137[] = {
    /* v_mov_b32_e32 v10, 10 */
    0x8a, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_atomic_or_b32 v1, v5, s[12:13] */
    0x00, 0x00, 0xf6, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case138[] = {
    /* v_mov_b32_e32 v10, 10 */
    0x8a, 0x02, 0x14, 0x7e,
    /* global_store_b32 v1, v10, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x0a, 0x0c, 0x00,
    /* global_atomic_xor_b32 v1, v5, s[12:13] */
    0x00, 0x00, 0xfa, 0xdc, 0x01, 0x05, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};

static const uint8_t case139[] = {
    /* v_bfe_u32 v10, v2, 4, 8 */
    0x0a, 0x00, 0x10, 0xd6, 0x02, 0x09, 0x21, 0x02,
};
static const uint8_t case140[] = {
    /* v_cvt_f32_ubyte0_e32 v10, v2 */
    0x02, 0x23, 0x14, 0x7e,
};
static const uint8_t case141[] = {
    /* v_floor_f32_e32 v10, v2 */
    0x02, 0x49, 0x14, 0x7e,
};
static const uint8_t case142[] = {
    /* v_maxmin_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x5e, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case143[] = {
    /* v_med3_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x1f, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case144[] = {
    /* v_med3_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x1f, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case145[] = {
    /* v_lshl_add_u32 v10, v2, 4, v3 */
    0x0a, 0x00, 0x46, 0xd6, 0x02, 0x09, 0x0d, 0x04,
};
static const uint8_t case146[] = {
    /* v_mad_u32_u24 v10, v2, v3, v4 */
    0x0a, 0x00, 0x0b, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case147[] = {
    /* v_readlane_b32 s20, v5, s4 */
    0x14, 0x00, 0x60, 0xd7, 0x05, 0x09, 0x00, 0x00,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case148[] = {
    /* v_writelane_b32 v10, s4, 5 */
    0x0a, 0x00, 0x61, 0xd7, 0x04, 0x0a, 0x01, 0x00,
};
static const uint8_t case149[] = {
    /* s_set_inst_prefetch_distance 0x1 */
    0x01, 0x00, 0x84, 0xbf,
    /* buffer_gl0_inv */
    0x00, 0x00, 0xac, 0xe0, 0x00, 0x00, 0x00, 0x00,
    /* buffer_gl1_inv */
    0x00, 0x00, 0xb0, 0xe0, 0x00, 0x00, 0x00, 0x00,
    /* v_mov_b32_e32 v10, s4 */
    0x04, 0x02, 0x14, 0x7e,
};
static const uint8_t case150[] = {
    /* ds_store_b32 v1, v5 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x05, 0x00, 0x00,
    /* ds_load_b32 v10, v1 offset:16 */
    0x10, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case151[] = {
    /* ds_store_b16 v1, v2 */
    0x00, 0x00, 0x7c, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_load_i16 v10, v1 */
    0x00, 0x00, 0xec, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case152[] = {
    /* ds_store_b16 v1, v2 */
    0x00, 0x00, 0x7c, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_load_u16 v10, v1 */
    0x00, 0x00, 0xf0, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case153[] = {
    /* ds_store_b8 v1, v2 */
    0x00, 0x00, 0x78, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_load_i8 v10, v1 */
    0x00, 0x00, 0xe4, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case154[] = {
    /* ds_store_b8 v1, v2 */
    0x00, 0x00, 0x78, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_load_u8 v10, v1 */
    0x00, 0x00, 0xe8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case155[] = {
    /* ds_store_b64 v1, v[2:3] */
    0x00, 0x00, 0x34, 0xd9, 0x01, 0x02, 0x00, 0x00,
    /* ds_load_b64 v[9:10], v1 */
    0x00, 0x00, 0xd8, 0xd9, 0x01, 0x00, 0x00, 0x09,
};
static const uint8_t case156[] = {
    /* ds_store_b96 v1, v[2:4] */
    0x00, 0x00, 0x78, 0xdb, 0x01, 0x02, 0x00, 0x00,
    /* ds_load_b96 v[8:10], v1 */
    0x00, 0x00, 0xf8, 0xdb, 0x01, 0x00, 0x00, 0x08,
};
static const uint8_t case157[] = {
    /* ds_store_b128 v1, v[2:5] */
    0x00, 0x00, 0x7c, 0xdb, 0x01, 0x02, 0x00, 0x00,
    /* ds_load_b128 v[7:10], v1 */
    0x00, 0x00, 0xfc, 0xdb, 0x01, 0x00, 0x00, 0x07,
};
static const uint8_t case158[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_add_u32 v1, v5 */
    0x00, 0x00, 0x00, 0xd8, 0x01, 0x05, 0x00, 0x00,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case159[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_add_rtn_u32 v10, v1, v5 */
    0x00, 0x00, 0x80, 0xd8, 0x01, 0x05, 0x00, 0x0a,
};
static const uint8_t case160[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_rsub_u32 v1, v5 */
    0x00, 0x00, 0x08, 0xd8, 0x01, 0x05, 0x00, 0x00,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case161[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_inc_u32 v1, v5 */
    0x00, 0x00, 0x0c, 0xd8, 0x01, 0x05, 0x00, 0x00,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case162[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_dec_u32 v1, v5 */
    0x00, 0x00, 0x10, 0xd8, 0x01, 0x05, 0x00, 0x00,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case163[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_min_i32 v1, v5 */
    0x00, 0x00, 0x14, 0xd8, 0x01, 0x05, 0x00, 0x00,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case164[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_max_u32 v1, v5 */
    0x00, 0x00, 0x20, 0xd8, 0x01, 0x05, 0x00, 0x00,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case165[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_xor_rtn_b32 v9, v1, v5 */
    0x00, 0x00, 0xac, 0xd8, 0x01, 0x05, 0x00, 0x09,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case166[] = {
    /* ds_bpermute_b32 v10, v1, v5 offset:4 */
    0x04, 0x00, 0xcc, 0xda, 0x01, 0x05, 0x00, 0x0a,
};

static const uint8_t case167[] = {
    /* v_cmp_nlt_f32_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x3c, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case168[] = {
    /* v_cmp_nlt_f32_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x3c, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case169[] = {
    /* v_cmp_nge_f32_e64 s20, v2, v3 */
    0x14, 0x00, 0x19, 0xd4, 0x02, 0x07, 0x02, 0x00,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case170[] = {
    /* v_cmp_ngt_f32_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x36, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case171[] = {
    /* v_cmp_gt_u64_e64 s20, 0xfffffff0, v[2:3] */
    0x14, 0x00, 0x5c, 0xd4, 0xff, 0x04, 0x02, 0x00, 0xf0, 0xff, 0xff, 0xff,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case172[] = {
    /* v_cmp_lt_i64_e64 s20, 0xfffffc18, v[2:3] */
    0x14, 0x00, 0x51, 0xd4, 0xff, 0x04, 0x02, 0x00, 0x18, 0xfc, 0xff, 0xff,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case173[] = {
    /* v_sqrt_f32_e32 v10, v2 */
    0x02, 0x67, 0x14, 0x7e,
};
static const uint8_t case174[] = {
    /* v_rsq_f32_e32 v10, v2 */
    0x02, 0x5d, 0x14, 0x7e,
};
static const uint8_t case175[] = {
    /* v_exp_f32_e32 v10, v2 */
    0x02, 0x4b, 0x14, 0x7e,
};
static const uint8_t case176[] = {
    /* v_log_f32_e32 v10, v2 */
    0x02, 0x4f, 0x14, 0x7e,
};

static const uint8_t case177[] = {
    /* v_cmpx_gt_u32_e32 6, v5 */
    0x86, 0x0a, 0x98, 0x7d,
    /* ds_bpermute_b32 v10, v1, v5 offset:4 */
    0x04, 0x00, 0xcc, 0xda, 0x01, 0x05, 0x00, 0x0a,
};

static const uint8_t case178[] = {
    /* v_cvt_f16_f32_e32 v10, v2 */
    0x02, 0x15, 0x14, 0x7e,
};
static const uint8_t case179[] = {
    /* v_cvt_f16_f32_e32 v10, v2 */
    0x02, 0x15, 0x14, 0x7e,
};
static const uint8_t case180[] = {
    /* v_cvt_f16_f32_e32 v10, v2 */
    0x02, 0x15, 0x14, 0x7e,
};
static const uint8_t case181[] = {
    /* v_cvt_f16_f32_e32 v10, v2 */
    0x02, 0x15, 0x14, 0x7e,
};
static const uint8_t case182[] = {
    /* v_cvt_f16_f32_e32 v10, v2 */
    0x02, 0x15, 0x14, 0x7e,
};
static const uint8_t case183[] = {
    /* v_cvt_f32_f16_e32 v10, v2 */
    0x02, 0x17, 0x14, 0x7e,
};
static const uint8_t case184[] = {
    /* v_cvt_f32_f16_e32 v10, v2 */
    0x02, 0x17, 0x14, 0x7e,
};
static const uint8_t case185[] = {
    /* v_cvt_f32_f16_e32 v10, v2 */
    0x02, 0x17, 0x14, 0x7e,
};
static const uint8_t case186[] = {
    /* v_cvt_f32_f16_e32 v10, v2 */
    0x02, 0x17, 0x14, 0x7e,
};
static const uint8_t case187[] = {
    /* v_cvt_f32_f16_e32 v10, v2 */
    0x02, 0x17, 0x14, 0x7e,
};
static const uint8_t case188[] = {
    /* v_mov_b32_e32 v10, v4 */
    0x04, 0x03, 0x14, 0x7e,
    /* v_add_f16_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x64,
};
static const uint8_t case189[] = {
    /* v_add_f16_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x64,
};
static const uint8_t case190[] = {
    /* v_add_f16_e64 v10, v2, 1.0 */
    0x0a, 0x00, 0x32, 0xd5, 0x02, 0xe5, 0x01, 0x00,
};
static const uint8_t case191[] = {
    /* v_mov_b32_e32 v10, v4 */
    0x04, 0x03, 0x14, 0x7e,
    /* v_add_f16_e32 v10.h, v2.l, v3.h */
    0x02, 0x07, 0x15, 0x65,
};
static const uint8_t case192[] = {
    /* v_mul_f16_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x6a,
};
static const uint8_t case193[] = {
    /* v_mul_f16_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x6a,
};
static const uint8_t case194[] = {
    /* v_mul_f16_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x6a,
};
static const uint8_t case195[] = {
    /* v_fma_f16 v10, v2, v3, v4 */
    0x0a, 0x00, 0x48, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case196[] = {
    /* v_mov_b32_e32 v10, v4 */
    0x04, 0x03, 0x14, 0x7e,
    /* v_fmac_f16_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x6c,
};
static const uint8_t case197[] = {
    /* v_div_scale_f32 v10, vcc_lo, v2, v3, v2 */
    0x0a, 0x6a, 0xfc, 0xd6, 0x02, 0x07, 0x0a, 0x04,
};
static const uint8_t case198[] = {
    /* v_div_scale_f32 v11, vcc_lo, v2, v3, v2 */
    0x0b, 0x6a, 0xfc, 0xd6, 0x02, 0x07, 0x0a, 0x04,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case199[] = {
    /* v_div_scale_f32 v10, vcc_lo, v2, v3, v2 */
    0x0a, 0x6a, 0xfc, 0xd6, 0x02, 0x07, 0x0a, 0x04,
};
static const uint8_t case200[] = {
    /* v_div_scale_f32 v10, vcc_lo, v3, v3, v2 */
    0x0a, 0x6a, 0xfc, 0xd6, 0x03, 0x07, 0x0a, 0x04,
};
static const uint8_t case201[] = {
    /* v_div_scale_f32 v11, vcc_lo, v2, v3, v2 */
    0x0b, 0x6a, 0xfc, 0xd6, 0x02, 0x07, 0x0a, 0x04,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case202[] = {
    /* v_div_scale_f32 v10, vcc_lo, v2, v3, v2 */
    0x0a, 0x6a, 0xfc, 0xd6, 0x02, 0x07, 0x0a, 0x04,
};
static const uint8_t case203[] = {
    /* v_div_scale_f32 v10, vcc_lo, v2, v3, v2 */
    0x0a, 0x6a, 0xfc, 0xd6, 0x02, 0x07, 0x0a, 0x04,
};
static const uint8_t case204[] = {
    /* v_div_scale_f32 v11, vcc_lo, v2, v3, v2 */
    0x0b, 0x6a, 0xfc, 0xd6, 0x02, 0x07, 0x0a, 0x04,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case205[] = {
    /* v_div_scale_f32 v10, vcc_lo, v2, v3, v2 */
    0x0a, 0x6a, 0xfc, 0xd6, 0x02, 0x07, 0x0a, 0x04,
};
static const uint8_t case206[] = {
    /* s_mov_b32 vcc_lo, s7 */
    0x07, 0x00, 0xea, 0xbe,
    /* v_div_fmas_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x37, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case207[] = {
    /* s_mov_b32 vcc_lo, s7 */
    0x07, 0x00, 0xea, 0xbe,
    /* v_div_fmas_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x37, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case208[] = {
    /* s_mov_b32 vcc_lo, s7 */
    0x07, 0x00, 0xea, 0xbe,
    /* v_div_fmas_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x37, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case209[] = {
    /* s_mov_b32 vcc_lo, s7 */
    0x07, 0x00, 0xea, 0xbe,
    /* v_div_fmas_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x37, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case210[] = {
    /* v_div_fixup_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x27, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case211[] = {
    /* v_div_fixup_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x27, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case212[] = {
    /* v_div_fixup_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x27, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case213[] = {
    /* v_div_fixup_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x27, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case214[] = {
    /* v_pk_add_f16 v10, v2, v3 */
    0x0a, 0x40, 0x0f, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case215[] = {
    /* v_pk_add_f16 v10, v2, v3 op_sel:[1,0] op_sel_hi:[0,1]
     *     neg_lo:[1,0] neg_hi:[0,1] clamp */
    0x0a, 0xca, 0x0f, 0xcc, 0x02, 0x07, 0x02, 0x30,
};
static const uint8_t case216[] = {
    /* v_pk_add_f16 v10, v2, 1.0 */
    0x0a, 0x40, 0x0f, 0xcc, 0x02, 0xe5, 0x01, 0x18,
};
static const uint8_t case217[] = {
    /* v_pk_mul_f16 v10, v2, v3 */
    0x0a, 0x40, 0x10, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case218[] = {
    /* v_pk_fma_f16 v10, v2, v3, v4 */
    0x0a, 0x40, 0x0e, 0xcc, 0x02, 0x07, 0x12, 0x1c,
};
static const uint8_t case219[] = {
    /* v_pk_add_u16 v10, v2, v3 */
    0x0a, 0x40, 0x0a, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case220[] = {
    /* v_pk_add_u16 v10, v2, v3 clamp */
    0x0a, 0xc0, 0x0a, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case221[] = {
    /* v_pk_add_i16 v10, v2, v3 */
    0x0a, 0x40, 0x02, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case222[] = {
    /* v_pk_add_i16 v10, v2, v3 clamp */
    0x0a, 0xc0, 0x02, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case223[] = {
    /* v_pk_mul_lo_u16 v10, v2, v3 */
    0x0a, 0x40, 0x01, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case224[] = {
    /* v_pk_max_f16 v10, v2, v3 */
    0x0a, 0x40, 0x12, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case225[] = {
    /* v_pk_min_f16 v10, v2, v3 */
    0x0a, 0x40, 0x11, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case226[] = {
    /* v_pk_min_f16 v10, v2, v3 */
    0x0a, 0x40, 0x11, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case227[] = {
    /* global_store_d16_hi_b16 v1, v2, s[12:13] */
    0x00, 0x00, 0x96, 0xdc, 0x01, 0x02, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case228[] = {
    /* global_store_b32 v1, v2, s[12:13] */
    0x00, 0x00, 0x6a, 0xdc, 0x01, 0x02, 0x0c, 0x00,
    /* global_atomic_add_f32 v1, v3, s[12:13] */
    0x00, 0x00, 0x5a, 0xdd, 0x01, 0x03, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};

static const uint8_t case229[] = {
    /* s_denorm_mode 12 */
    0x0c, 0x00, 0x92, 0xbf,
    /* v_add_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x06,
};
static const uint8_t case230[] = {
    /* s_denorm_mode 12 */
    0x0c, 0x00, 0x92, 0xbf,
    /* v_add_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x06,
};
static const uint8_t case231[] = {
    /* s_denorm_mode 14 */
    0x0e, 0x00, 0x92, 0xbf,
    /* v_add_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x06,
};
static const uint8_t case232[] = {
    /* s_denorm_mode 14 */
    0x0e, 0x00, 0x92, 0xbf,
    /* v_add_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x06,
};
static const uint8_t case233[] = {
    /* s_denorm_mode 13 */
    0x0d, 0x00, 0x92, 0xbf,
    /* v_mul_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x10,
};
static const uint8_t case234[] = {
    /* s_denorm_mode 13 */
    0x0d, 0x00, 0x92, 0xbf,
    /* v_mul_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x10,
};
static const uint8_t case235[] = {
    /* v_mul_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x10,
};
static const uint8_t case236[] = {
    /* s_denorm_mode 14 */
    0x0e, 0x00, 0x92, 0xbf,
    /* v_fma_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x13, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case237[] = {
    /* s_denorm_mode 13 */
    0x0d, 0x00, 0x92, 0xbf,
    /* v_fma_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x13, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case238[] = {
    /* s_denorm_mode 13 */
    0x0d, 0x00, 0x92, 0xbf,
    /* v_fma_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x13, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case239[] = {
    /* s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s7 */
    0x01, 0x09, 0x07, 0xb9,
    /* v_add_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x06,
};
static const uint8_t case240[] = {
    /* s_denorm_mode 0 */
    0x00, 0x00, 0x92, 0xbf,
    /* s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 15 */
    0x01, 0x19, 0x80, 0xb9, 0x0f, 0x00, 0x00, 0x00,
    /* v_add_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x06,
};
static const uint8_t case241[] = {
    /* s_getreg_b32 s20, hwreg(HW_REG_MODE, 0, 10) */
    0x01, 0x48, 0x94, 0xb8,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case242[] = {
    /* s_denorm_mode 3 */
    0x03, 0x00, 0x92, 0xbf,
    /* v_add_f16_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x64,
};
static const uint8_t case243[] = {
    /* s_denorm_mode 3 */
    0x03, 0x00, 0x92, 0xbf,
    /* v_add_f16_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x64,
};
static const uint8_t case244[] = {
    /* s_denorm_mode 11 */
    0x0b, 0x00, 0x92, 0xbf,
    /* v_pk_add_f16 v10, v2, v3 */
    0x0a, 0x40, 0x0f, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case245[] = {
    /* v_pk_add_f16 v10, v2, v3 */
    0x0a, 0x40, 0x0f, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case246[] = {
    /* s_denorm_mode 3 */
    0x03, 0x00, 0x92, 0xbf,
    /* v_cvt_f32_f16_e32 v10, v2 */
    0x02, 0x17, 0x14, 0x7e,
};
static const uint8_t case247[] = {
    /* s_denorm_mode 12 */
    0x0c, 0x00, 0x92, 0xbf,
    /* s_mul_f32 s20, s4, s5 */
    0x04, 0x05, 0x14, 0xa2,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case248[] = {
    /* s_denorm_mode 12 */
    0x0c, 0x00, 0x92, 0xbf,
    /* v_max_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x20,
};
static const uint8_t case249[] = {
    /* v_min_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x1e,
};
static const uint8_t case250[] = {
    /* v_min_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x1e,
};
static const uint8_t case251[] = {
    /* v_max_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x20,
};
static const uint8_t case252[] = {
    /* v_max_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x20,
};
static const uint8_t case253[] = {
    /* v_min_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x1e,
};
static const uint8_t case254[] = {
    /* v_max_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x20,
};
static const uint8_t case255[] = {
    /* v_min_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x1e,
};
static const uint8_t case256[] = {
    /* v_max_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x20,
};
static const uint8_t case257[] = {
    /* v_med3_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x1f, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case258[] = {
    /* v_med3_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x1f, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case259[] = {
    /* v_pk_sub_i16 v10, v2, v3 */
    0x0a, 0x40, 0x03, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case260[] = {
    /* v_pk_sub_i16 v10, v2, v3 clamp */
    0x0a, 0xc0, 0x03, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case261[] = {
    /* v_pk_sub_u16 v10, v2, v3 */
    0x0a, 0x40, 0x0b, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case262[] = {
    /* v_pk_sub_u16 v10, v2, v3 clamp */
    0x0a, 0xc0, 0x0b, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case263[] = {
    /* v_pk_lshlrev_b16 v10, v2, v3 */
    0x0a, 0x40, 0x04, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case264[] = {
    /* v_pk_lshrrev_b16 v10, v2, v3 */
    0x0a, 0x40, 0x05, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case265[] = {
    /* v_pk_ashrrev_i16 v10, v2, v3 */
    0x0a, 0x40, 0x06, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case266[] = {
    /* v_pk_max_i16 v10, v2, v3 */
    0x0a, 0x40, 0x07, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case267[] = {
    /* v_pk_min_i16 v10, v2, v3 */
    0x0a, 0x40, 0x08, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case268[] = {
    /* v_pk_max_u16 v10, v2, v3 */
    0x0a, 0x40, 0x0c, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case269[] = {
    /* v_pk_min_u16 v10, v2, v3 */
    0x0a, 0x40, 0x0d, 0xcc, 0x02, 0x07, 0x02, 0x18,
};
static const uint8_t case270[] = {
    /* v_cmp_f_f16_e64 s20, v2, v3 */
    0x14, 0x00, 0x00, 0xd4, 0x02, 0x07, 0x02, 0x00,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case271[] = {
    /* v_cmp_lt_f16_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x02, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case272[] = {
    /* v_cmp_eq_f16_e64 s20, -|v2|, v3 */
    0x14, 0x01, 0x02, 0xd4, 0x02, 0x07, 0x02, 0x20,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case273[] = {
    /* v_cmp_le_f16_e64 s20, v2, 1.0 */
    0x14, 0x00, 0x03, 0xd4, 0x02, 0xe5, 0x01, 0x00,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case274[] = {
    /* v_cmp_gt_f16_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x08, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case275[] = {
    /* v_cmp_lg_f16_e64 s20, v2, v3 */
    0x14, 0x00, 0x05, 0xd4, 0x02, 0x07, 0x02, 0x00,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case276[] = {
    /* v_cmp_ge_f16_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x0c, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case277[] = {
    /* v_cmp_o_f16_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x0e, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case278[] = {
    /* v_cmp_u_f16_e64 s20, v2, v3 */
    0x14, 0x00, 0x08, 0xd4, 0x02, 0x07, 0x02, 0x00,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case279[] = {
    /* v_cmp_nge_f16_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x12, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case280[] = {
    /* v_cmp_nlg_f16_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x14, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case281[] = {
    /* v_cmp_ngt_f16_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x16, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case282[] = {
    /* v_cmp_nle_f16_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x18, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case283[] = {
    /* v_cmp_neq_f16_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x1a, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case284[] = {
    /* v_cmp_nlt_f16_e64 s20, v2, v3 */
    0x14, 0x00, 0x0e, 0xd4, 0x02, 0x07, 0x02, 0x00,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case285[] = {
    /* v_cmp_t_f16_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0x1e, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case286[] = {
    /* v_cmpx_gt_f16_e32 v2, v3 */
    0x02, 0x07, 0x08, 0x7d,
    /* v_mov_b32_e32 v10, exec_lo */
    0x7e, 0x02, 0x14, 0x7e,
};

static const uint8_t case287[] = {
    /* v_minmax_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x5f, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case288[] = {
    /* v_minmax_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x5f, 0xd6, 0x02, 0x07, 0x12, 0x04,
};

static const uint8_t case289[] = {
    /* s_ctz_i32_b64 s20, s[4:5] */
    0x04, 0x09, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case290[] = {
    /* v_cvt_f32_i32_e32 v10, v2 */
    0x02, 0x0b, 0x14, 0x7e,
};
static const uint8_t case291[] = {
    /* v_cvt_f32_i32_e64 v10, v2 mul:2 */
    0x0a, 0x00, 0x85, 0xd5, 0x02, 0x01, 0x00, 0x08,
};
static const uint8_t case292[] = {
    /* v_rndne_f32_e32 v10, v2 */
    0x02, 0x47, 0x14, 0x7e,
};
static const uint8_t case293[] = {
    /* v_rndne_f32_e64 v10, -v2 */
    0x0a, 0x00, 0xa3, 0xd5, 0x02, 0x01, 0x00, 0x20,
};
static const uint8_t case294[] = {
    /* v_fmamk_f32 v10, v2, 0x40400000, v3 */
    0x02, 0x07, 0x14, 0x58, 0x00, 0x00, 0x40, 0x40,
};
static const uint8_t case295[] = {
    /* v_fmaak_f32 v10, v2, v3, 0x40400000 */
    0x02, 0x07, 0x14, 0x5a, 0x00, 0x00, 0x40, 0x40,
};
static const uint8_t case296[] = {
    /* v_fmamk_f32 v10, 0x40400000, 0x40400000, v3 */
    0xff, 0x06, 0x14, 0x58, 0x00, 0x00, 0x40, 0x40,
};
static const uint8_t case297[] = {
    /* v_fmamk_f32 v10, v2, 0x3f800800, v3 */
    0x02, 0x07, 0x14, 0x58, 0x00, 0x08, 0x80, 0x3f,
};
static const uint8_t case298[] = {
    /* v_max3_i32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x1d, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case299[] = {
    /* v_max3_i32 v10, v2, v5, -1 */
    0x0a, 0x00, 0x1d, 0xd6, 0x02, 0x0b, 0x06, 0x03,
};
static const uint8_t case300[] = {
    /* v_lshlrev_b64 v[10:11], v5, 0x80000001 */
    0x0a, 0x00, 0x3c, 0xd7, 0x05, 0xff, 0x01, 0x00,
    0x01, 0x00, 0x00, 0x80,
    /* v_mov_b32_e32 v10, v11 */
    0x0b, 0x03, 0x14, 0x7e,
};
static const uint8_t case301[] = {
    /* v_lshlrev_b64 v[10:11], v5, 0x80000001 */
    0x0a, 0x00, 0x3c, 0xd7, 0x05, 0xff, 0x01, 0x00,
    0x01, 0x00, 0x00, 0x80,
};
static const uint8_t case302[] = {
    /* v_lshlrev_b64 v[10:11], 0x41, v[5:6] */
    0x0a, 0x00, 0x3c, 0xd7, 0xff, 0x0a, 0x02, 0x00,
    0x41, 0x00, 0x00, 0x00,
};
static const uint8_t case303[] = {
    /* v_min3_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x19, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case304[] = {
    /* v_max3_f32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x1c, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case305[] = {
    /* v_min3_i32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x1a, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case306[] = {
    /* v_min3_u32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x1b, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case307[] = {
    /* v_max3_u32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x1e, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case308[] = {
    /* v_med3_i32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x20, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case309[] = {
    /* v_med3_u32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x21, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case310[] = {
    /* v_max_i32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x24,
};
static const uint8_t case311[] = {
    /* v_min_i32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x22,
};

static const uint8_t case312[] = {
    /* v_cmp_class_f32_e64 s20, v2, v3 */
    0x14, 0x00, 0x7e, 0xd4, 0x02, 0x07, 0x02, 0x00,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case313[] = {
    /* v_cmp_class_f32_e64 s20, |v2|, v3 */
    0x14, 0x01, 0x7e, 0xd4, 0x02, 0x07, 0x02, 0x00,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case314[] = {
    /* v_cmp_class_f32_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0xfc, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case315[] = {
    /* v_cmpx_class_f32_e32 v2, v3 */
    0x02, 0x07, 0xfc, 0x7d,
    /* v_mov_b32_e32 v10, exec_lo */
    0x7e, 0x02, 0x14, 0x7e,
};
static const uint8_t case316[] = {
    /* v_cmp_class_f16_e32 vcc_lo, v2, v3 */
    0x02, 0x07, 0xfa, 0x7c,
    /* v_cndmask_b32_e64 v10, 0, 1, vcc_lo */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0xa9, 0x01,
};
static const uint8_t case317[] = {
    /* v_cvt_i32_f32_e32 v10, v2 */
    0x02, 0x11, 0x14, 0x7e,
};
static const uint8_t case318[] = {
    /* v_cvt_i32_f32_e64 v10, -v2 */
    0x0a, 0x00, 0x88, 0xd5, 0x02, 0x01, 0x00, 0x20,
};
static const uint8_t case319[] = {
    /* v_ldexp_f32 v10, v2, v3 */
    0x0a, 0x00, 0x1c, 0xd7, 0x02, 0x07, 0x02, 0x00,
};
static const uint8_t case320[] = {
    /* v_perm_b32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x44, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case321[] = {
    /* s_ctz_i32_b32 s20, s4 */
    0x04, 0x08, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case322[] = {
    /* s_clz_i32_u32 s20, s4 */
    0x04, 0x0a, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case323[] = {
    /* s_bcnt1_i32_b32 s20, s4 */
    0x04, 0x18, 0x94, 0xbe,
    /* s_cselect_b32 s21, 1, 0 */
    0x81, 0x80, 0x15, 0x98,
    /* s_add_u32 s20, s20, s21 */
    0x14, 0x15, 0x14, 0x80,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case324[] = {
    /* s_brev_b32 s20, s4 */
    0x04, 0x04, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case325[] = {
    /* s_cvt_f32_i32 s20, s4 */
    0x04, 0x64, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case326[] = {
    /* s_cvt_i32_f32 s20, s4 */
    0x04, 0x66, 0x94, 0xbe,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case327[] = {
    /* s_add_f32 s20, s4, s5 */
    0x04, 0x05, 0x14, 0xa0,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case328[] = {
    /* s_sub_f32 s20, s4, s5 */
    0x04, 0x05, 0x94, 0xa0,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case329[] = {
    /* s_min_f32 s20, s4, s5 */
    0x04, 0x05, 0x14, 0xa1,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case330[] = {
    /* s_max_f32 s20, s4, s5 */
    0x04, 0x05, 0x94, 0xa1,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case331[] = {
    /* global_atomic_cmpswap_b32 v10, v1, v[2:3], s[12:13] glc */
    0x00, 0x40, 0xd2, 0xdc, 0x01, 0x02, 0x0c, 0x0a,
};
static const uint8_t case332[] = {
    /* global_atomic_cmpswap_b32 v1, v[2:3], s[12:13] */
    0x00, 0x00, 0xd2, 0xdc, 0x01, 0x02, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case333[] = {
    /* global_atomic_max_f32 v1, v2, s[12:13] */
    0x00, 0x00, 0x4a, 0xdd, 0x01, 0x02, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case334[] = {
    /* global_atomic_min_f32 v10, v1, v2, s[12:13] glc */
    0x00, 0x40, 0x46, 0xdd, 0x01, 0x02, 0x0c, 0x0a,
};
static const uint8_t case335[] = {
    /* global_atomic_min_f32 v1, v2, s[12:13] */
    0x00, 0x00, 0x46, 0xdd, 0x01, 0x02, 0x0c, 0x00,
    /* global_load_b32 v10, v1, s[12:13] */
    0x00, 0x00, 0x52, 0xdc, 0x01, 0x00, 0x0c, 0x0a,
};
static const uint8_t case336[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_max_rtn_f32 v10, v1, v3 */
    0x00, 0x00, 0xcc, 0xd8, 0x01, 0x03, 0x00, 0x0a,
};
static const uint8_t case337[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_max_f32 v1, v3 */
    0x00, 0x00, 0x4c, 0xd8, 0x01, 0x03, 0x00, 0x00,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case338[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_min_f32 v1, v3 */
    0x00, 0x00, 0x48, 0xd8, 0x01, 0x03, 0x00, 0x00,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case339[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_min_rtn_f32 v10, v1, v3 */
    0x00, 0x00, 0xc8, 0xd8, 0x01, 0x03, 0x00, 0x0a,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case340[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_add_f32 v1, v3 */
    0x00, 0x00, 0x54, 0xd8, 0x01, 0x03, 0x00, 0x00,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case341[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_add_rtn_f32 v10, v1, v3 */
    0x00, 0x00, 0xe4, 0xd9, 0x01, 0x03, 0x00, 0x0a,
};
static const uint8_t case342[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_cmpstore_b32 v1, v3, v4 */
    0x00, 0x00, 0x40, 0xd8, 0x01, 0x03, 0x04, 0x00,
    /* ds_load_b32 v10, v1 */
    0x00, 0x00, 0xd8, 0xd8, 0x01, 0x00, 0x00, 0x0a,
};
static const uint8_t case343[] = {
    /* ds_store_b32 v1, v2 */
    0x00, 0x00, 0x34, 0xd8, 0x01, 0x02, 0x00, 0x00,
    /* ds_cmpstore_rtn_b32 v10, v1, v3, v4 */
    0x00, 0x00, 0xc0, 0xd8, 0x01, 0x03, 0x04, 0x0a,
};
static const uint8_t case344[] = {
    /* v_dual_fmamk_f32 v10, v2, 0x40400000, v3 :: v_dual_mov_b32 v11, v4 */
    0x02, 0x07, 0x90, 0xc8, 0x04, 0x01, 0x0a, 0x0a,
    0x00, 0x00, 0x40, 0x40,
};
static const uint8_t case345[] = {
    /* v_dual_mov_b32 v11, v4 :: v_dual_fmamk_f32 v10, v2, 0x40400000, v3 */
    0x04, 0x01, 0x04, 0xca, 0x02, 0x07, 0x0a, 0x0b,
    0x00, 0x00, 0x40, 0x40,
};
static const uint8_t case346[] = {
    /* v_dual_fmaak_f32 v10, v2, v3, 0x40400000 :: v_dual_mov_b32 v11, v4 */
    0x02, 0x07, 0x50, 0xc8, 0x04, 0x01, 0x0a, 0x0a,
    0x00, 0x00, 0x40, 0x40,
};
static const uint8_t case347[] = {
    /* v_dual_fmamk_f32 v10, v2, 0x40400000, v3 :: v_dual_mov_b32 v11, v4 */
    0x02, 0x07, 0x90, 0xc8, 0x04, 0x01, 0x0a, 0x0a,
    0x00, 0x00, 0x40, 0x40,
    /* v_mov_b32_e32 v10, v11 */
    0x0b, 0x03, 0x14, 0x7e,
};
static const uint8_t case348[] = {
    /* v_dual_subrev_f32 v10, v2, v3 :: v_dual_mov_b32 v11, v4 */
    0x02, 0x07, 0x90, 0xc9, 0x04, 0x01, 0x0a, 0x0a,
};
static const uint8_t case349[] = {
    /* v_subrev_f32_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x0a,
};
static const uint8_t case350[] = {
    /* v_trunc_f32_e32 v10, v2 */
    0x02, 0x43, 0x14, 0x7e,
};
static const uint8_t case351[] = {
    /* v_ceil_f32_e32 v10, v2 */
    0x02, 0x45, 0x14, 0x7e,
};
static const uint8_t case352[] = {
    /* v_not_b32_e32 v10, v2 */
    0x02, 0x6f, 0x14, 0x7e,
};
static const uint8_t case353[] = {
    /* v_bfrev_b32_e32 v10, v2 */
    0x02, 0x71, 0x14, 0x7e,
};
static const uint8_t case354[] = {
    /* v_clz_i32_u32_e32 v10, v2 */
    0x02, 0x73, 0x14, 0x7e,
};
static const uint8_t case355[] = {
    /* v_ctz_i32_b32_e32 v10, v2 */
    0x02, 0x75, 0x14, 0x7e,
};
static const uint8_t case356[] = {
    /* v_bcnt_u32_b32 v10, v2, v3 */
    0x0a, 0x00, 0x1e, 0xd7, 0x02, 0x07, 0x02, 0x00,
};
static const uint8_t case357[] = {
    /* v_xor3_b32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x40, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case358[] = {
    /* v_or3_b32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x58, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case359[] = {
    /* v_and_or_b32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x57, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case360[] = {
    /* v_lshl_or_b32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x56, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case361[] = {
    /* v_xad_u32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x45, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case362[] = {
    /* v_bfi_b32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x12, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case363[] = {
    /* v_alignbit_b32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x16, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case364[] = {
    /* v_bfe_i32 v10, v2, v3, v4 */
    0x0a, 0x00, 0x11, 0xd6, 0x02, 0x07, 0x12, 0x04,
};
static const uint8_t case365[] = {
    /* v_mul_hi_i32 v10, v2, v3 */
    0x0a, 0x00, 0x2e, 0xd7, 0x02, 0x07, 0x02, 0x00,
};
static const uint8_t case366[] = {
    /* v_mul_u32_u24_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x16,
};
static const uint8_t case367[] = {
    /* v_mul_i32_i24_e32 v10, v2, v3 */
    0x02, 0x07, 0x14, 0x12,
};
static const uint8_t case368[] = {
    /* v_lshrrev_b64 v[10:11], v5, v[2:3] */
    0x0a, 0x00, 0x3d, 0xd7, 0x05, 0x05, 0x02, 0x00,
};
static const uint8_t case369[] = {
    /* v_ashrrev_i64 v[10:11], v5, v[2:3] */
    0x0a, 0x00, 0x3e, 0xd7, 0x05, 0x05, 0x02, 0x00,
    /* v_mov_b32_e32 v10, v11 */
    0x0b, 0x03, 0x14, 0x7e,
};
static const uint8_t case370[] = {
    /* s_mov_b32 s20, s6 */
    0x06, 0x00, 0x94, 0xbe,
    /* s_fmac_f32 s20, s4, s5 */
    0x04, 0x05, 0x94, 0xa3,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case371[] = {
    /* s_mov_b32 s20, s6 */
    0x06, 0x00, 0x94, 0xbe,
    /* s_fmac_f32 s20, 0x40400000, s5 */
    0xff, 0x05, 0x94, 0xa3, 0x00, 0x00, 0x40, 0x40,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
/* The matrix cases' setup moves, as llvm-mc encodes v_mov_b32_e32 (VOP1
 * opcode 1, vdst in byte 2 as 2 * N): from a 32-bit literal (src0 0xff,
 * the literal after the word), from -1 (inline constant 0xc1) and from a
 * VGPR (src0 256 + M). */
#define V_MOV_LIT(n, lit)                                              \
  0xff, 0x02, 2 * (n), 0x7e, (lit) & 0xff, (lit) >> 8 & 0xff,          \
      (lit) >> 16 & 0xff, (lit) >> 24 & 0xff
#define V_MOV_LIT4(n, lit)                                     \
  V_MOV_LIT(n, lit), V_MOV_LIT((n) + 1, lit), V_MOV_LIT((n) + 2, lit), \
      V_MOV_LIT((n) + 3, lit)
#define V_MOV_LIT8(n, lit) V_MOV_LIT4(n, lit), V_MOV_LIT4((n) + 4, lit)
#define V_MOV_NEG1(n) 0xc1, 0x02, 2 * (n), 0x7e
#define V_MOV_V(n, m) (m), 0x03, 2 * (n), 0x7e
/* v_mov_b32_e32 v8, v2 ... v_mov_b32_e32 v15, v2: C = v2 everywhere. */
#define WMMA_C_FROM_V2                                                  \
  V_MOV_V(8, 2), V_MOV_V(9, 2), V_MOV_V(10, 2), V_MOV_V(11, 2),         \
      V_MOV_V(12, 2), V_MOV_V(13, 2), V_MOV_V(14, 2), V_MOV_V(15, 2)
/* v_mov_b32_e32 v16, -1 ... v19, -1; v20-v23 = 0xfefefefe: 8-bit A of
 * i8 -1 (u8 255), B of i8 -2 (u8 254). */
#define WMMA_IU8_AB                                                    \
  V_MOV_NEG1(16), V_MOV_NEG1(17), V_MOV_NEG1(18), V_MOV_NEG1(19),      \
      V_MOV_LIT4(20, 0xfefefefeu)
/* v_mov_b32_e32 v16, -1; v17, -1; v18-v19 = 0x33333333: 4-bit A of
 * i4 -1 (u4 15), B of 3. */
#define WMMA_IU4_AB \
  V_MOV_NEG1(16), V_MOV_NEG1(17), V_MOV_LIT(18, 0x33333333u), \
      V_MOV_LIT(19, 0x33333333u)

/* Matrix products of ones by twos: every element of D is C + 16 * 2
 * (the harness's waves have 32 VGPRs). Each sets A and B, C = v2, runs
 * the product and stores D's v15 from v10 (v_mov_b32_e32 v10, v15). */
static const uint8_t case372[] = {
    V_MOV_LIT8(16, 0x3c003c00u),  /* v[16:23]: f16 1.0, 1.0 */
    V_MOV_LIT8(24, 0x40004000u),  /* v[24:31]: f16 2.0, 2.0 */
    WMMA_C_FROM_V2,
    /* v_wmma_f32_16x16x16_f16 v[8:15], v[16:23], v[24:31], v[8:15] */
    0x08, 0x40, 0x40, 0xcc, 0x10, 0x31, 0x22, 0x1c,
    V_MOV_V(10, 15),
};
static const uint8_t case414[] = {
    /* v_mov_b32_e32 v10, v4 */
    0x04, 0x03, 0x14, 0x7e,
    /* v_lshlrev_b16 v10, v3, v2 */
    0x0a, 0x00, 0x38, 0xd7, 0x03, 0x05, 0x02, 0x00,
};
static const uint8_t case415[] = {
    /* v_mov_b32_e32 v10, v4 */
    0x04, 0x03, 0x14, 0x7e,
    /* v_lshrrev_b16 v10, v3, v2 */
    0x0a, 0x00, 0x39, 0xd7, 0x03, 0x05, 0x02, 0x00,
};
static const uint8_t case416[] = {
    /* v_mov_b32_e32 v10, v4 */
    0x04, 0x03, 0x14, 0x7e,
    /* v_ashrrev_i16 v10, v3, v2 */
    0x0a, 0x00, 0x3a, 0xd7, 0x03, 0x05, 0x02, 0x00,
};
static const uint8_t case417[] = {
    /* v_pack_b32_f16 v10, v2, v3 */
    0x0a, 0x00, 0x11, 0xd7, 0x02, 0x07, 0x02, 0x00,
};
static const uint8_t case418[] = {
    /* v_pack_b32_f16 v10, v2, -v3 op_sel:[1,0,0] */
    0x0a, 0x08, 0x11, 0xd7, 0x02, 0x07, 0x02, 0x40,
};
static const uint8_t case373[] = {
    V_MOV_LIT8(16, 0x3f803f80u),  /* v[16:23]: bf16 1.0, 1.0 */
    V_MOV_LIT8(24, 0x40004000u),  /* v[24:31]: bf16 2.0, 2.0 */
    WMMA_C_FROM_V2,
    /* v_wmma_f32_16x16x16_bf16 v[8:15], v[16:23], v[24:31], v[8:15] */
    0x08, 0x40, 0x41, 0xcc, 0x10, 0x31, 0x22, 0x1c,
    V_MOV_V(10, 15),
};
static const uint8_t case374[] = {
    V_MOV_LIT8(16, 0x3c003c00u),  /* v[16:23]: f16 1.0, 1.0 */
    V_MOV_LIT8(24, 0x40004000u),  /* v[24:31]: f16 2.0, 2.0 */
    WMMA_C_FROM_V2,
    /* v_wmma_f16_16x16x16_f16 v[8:15], v[16:23], v[24:31], v[8:15] */
    0x08, 0x40, 0x42, 0xcc, 0x10, 0x31, 0x22, 0x1c,
    V_MOV_V(10, 15),
};
static const uint8_t case375[] = {
    V_MOV_LIT8(16, 0x3c003c00u),  /* v[16:23]: f16 1.0, 1.0 */
    V_MOV_LIT8(24, 0x40004000u),  /* v[24:31]: f16 2.0, 2.0 */
    WMMA_C_FROM_V2,
    /* v_wmma_f16_16x16x16_f16 v[8:15], v[16:23], v[24:31], v[8:15]
     * op_sel:[0,0,1] */
    0x08, 0x60, 0x42, 0xcc, 0x10, 0x31, 0x22, 0x1c,
    V_MOV_V(10, 15),
};
static const uint8_t case376[] = {
    V_MOV_LIT8(16, 0x3f803f80u),  /* v[16:23]: bf16 1.0, 1.0 */
    V_MOV_LIT8(24, 0x40004000u),  /* v[24:31]: bf16 2.0, 2.0 */
    WMMA_C_FROM_V2,
    /* v_wmma_bf16_16x16x16_bf16 v[8:15], v[16:23], v[24:31], v[8:15]
     * op_sel:[0,0,1] */
    0x08, 0x60, 0x43, 0xcc, 0x10, 0x31, 0x22, 0x1c,
    V_MOV_V(10, 15),
};
static const uint8_t case377[] = {
    WMMA_IU8_AB,
    WMMA_C_FROM_V2,
    /* v_wmma_i32_16x16x16_iu8 v[8:15], v[16:19], v[20:23], v[8:15]
     * neg_lo:[1,1,0] */
    0x08, 0x40, 0x44, 0xcc, 0x10, 0x29, 0x22, 0x7c,
    V_MOV_V(10, 15),
};
static const uint8_t case378[] = {
    WMMA_IU8_AB,
    WMMA_C_FROM_V2,
    /* v_wmma_i32_16x16x16_iu8 v[8:15], v[16:19], v[20:23], v[8:15]
     * neg_lo:[1,0,0] */
    0x08, 0x40, 0x44, 0xcc, 0x10, 0x29, 0x22, 0x3c,
    V_MOV_V(10, 15),
};
static const uint8_t case379[] = {
    WMMA_IU8_AB,
    WMMA_C_FROM_V2,
    /* v_wmma_i32_16x16x16_iu8 v[8:15], v[16:19], v[20:23], v[8:15]
     * neg_lo:[1,0,0] clamp */
    0x08, 0xc0, 0x44, 0xcc, 0x10, 0x29, 0x22, 0x3c,
    V_MOV_V(10, 15),
};
static const uint8_t case380[] = {
    WMMA_IU4_AB,
    WMMA_C_FROM_V2,
    /* v_wmma_i32_16x16x16_iu4 v[8:15], v[16:17], v[18:19], v[8:15]
     * neg_lo:[1,1,0] */
    0x08, 0x40, 0x45, 0xcc, 0x10, 0x25, 0x22, 0x7c,
    V_MOV_V(10, 15),
};
static const uint8_t case381[] = {
    WMMA_IU4_AB,
    WMMA_C_FROM_V2,
    /* v_wmma_i32_16x16x16_iu4 v[8:15], v[16:17], v[18:19], v[8:15] */
    0x08, 0x40, 0x45, 0xcc, 0x10, 0x25, 0x22, 0x1c,
    V_MOV_V(10, 15),
};
static const uint8_t case382[] = {
    /* v_mov_b32_e32 v10, v3 */
    0x03, 0x03, 0x14, 0x7e,
    /* v_lshlrev_b16 v10, 8, v2 */
    0x0a, 0x00, 0x38, 0xd7, 0x88, 0x04, 0x02, 0x00,
};
static const uint8_t case383[] = {
    /* v_mov_b32_e32 v10, v3 */
    0x03, 0x03, 0x14, 0x7e,
    /* v_lshrrev_b16 v10, v4, v2 */
    0x0a, 0x00, 0x39, 0xd7, 0x04, 0x05, 0x02, 0x00,
};
static const uint8_t case384[] = {
    /* v_mov_b32_e32 v10, v3 */
    0x03, 0x03, 0x14, 0x7e,
    /* v_ashrrev_i16 v10, 3, v2 */
    0x0a, 0x00, 0x3a, 0xd7, 0x83, 0x04, 0x02, 0x00,
};
static const uint8_t case385[] = {
    /* v_sin_f32_e32 v10, v2 */
    0x02, 0x6b, 0x14, 0x7e,
};
static const uint8_t case386[] = {
    /* v_cos_f32_e32 v10, v2 */
    0x02, 0x6d, 0x14, 0x7e,
};
static const uint8_t case387[] = {
    /* v_sin_f32_e64 v10, -v2 */
    0x0a, 0x00, 0xb5, 0xd5, 0x02, 0x01, 0x00, 0x20,
};
/* f8 conversions: 64-bit arithmetic shifts of indices, 16-bit shifts
 * (a 16-bit result replaces its half and keeps the other) and 16-bit
 * compares (only the low halves count). */
static const uint8_t case388[] = {
    /* s_ashr_i64 s[20:21], s[4:5], s6 */
    0x04, 0x06, 0x94, 0x86,
    /* v_mov_b32_e32 v10, s20 */
    0x14, 0x02, 0x14, 0x7e,
};
static const uint8_t case389[] = {
    /* v_lshlrev_b16 v3, v2, v3 */
    0x03, 0x00, 0x38, 0xd7, 0x02, 0x07, 0x02, 0x00,
    /* v_mov_b32_e32 v10, v3 */
    0x03, 0x03, 0x14, 0x7e,
};
static const uint8_t case390[] = {
    /* v_lshrrev_b16 v3, v2, v3 */
    0x03, 0x00, 0x39, 0xd7, 0x02, 0x07, 0x02, 0x00,
    /* v_mov_b32_e32 v10, v3 */
    0x03, 0x03, 0x14, 0x7e,
};
static const uint8_t case391[] = {
    /* v_cmp_gt_u16_e32 vcc_lo, v2, v5 */
    0x02, 0x0b, 0x78, 0x7c,
    /* v_cndmask_b32_e32 v10, v2, v3, vcc_lo */
    0x02, 0x07, 0x14, 0x02,
};
static const uint8_t case392[] = {
    /* v_cmp_lt_i16_e64 s20, v2, v5 */
    0x14, 0x00, 0x31, 0xd4, 0x02, 0x0b, 0x02, 0x00,
    /* v_cndmask_b32_e64 v10, 0, 1, s20 */
    0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
};
static const uint8_t case394[] = {
    /* v_add_nc_u16 v10, v2, v3 */
    0x0a, 0x00, 0x03, 0xd7, 0x02, 0x07, 0x02, 0x00,
};
static const uint8_t case395[] = {
    /* v_add_nc_u16 v10, v2, v3 clamp */
    0x0a, 0x80, 0x03, 0xd7, 0x02, 0x07, 0x02, 0x00,
};
static const uint8_t case396[] = {
    /* v_sub_nc_u16 v10, v2, v3 op_sel:[1,0,1] */
    0x0a, 0x48, 0x04, 0xd7, 0x02, 0x07, 0x02, 0x00,
};
static const uint8_t case397[] = {
    /* v_sub_nc_u16 v10, v2, v3 clamp */
    0x0a, 0x80, 0x04, 0xd7, 0x02, 0x07, 0x02, 0x00,
};
static const uint8_t case398[] = {
    /* v_mul_lo_u16 v10, 0x1234, v3 */
    0x0a, 0x00, 0x05, 0xd7, 0xff, 0x06, 0x02, 0x00,
    0x34, 0x12, 0x00, 0x00,
};
static const uint8_t case399[] = {
    /* v_lshlrev_b16 v10, v5, v2 */
    0x0a, 0x00, 0x38, 0xd7, 0x05, 0x05, 0x02, 0x00,
};
static const uint8_t case400[] = {
    /* s_mov_b32 s20, 32 */
    0xa0, 0x00, 0x94, 0xbe,
    /* scratch_store_b32 off, v5, s20 offset:4 */
    0x04, 0x00, 0x69, 0xdc, 0x00, 0x05, 0x14, 0x00,
    /* scratch_load_b32 v10, off, off offset:36 */
    0x24, 0x00, 0x51, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case401[] = {
    /* v_lshlrev_b32_e32 v7, 1, v5 */
    0x81, 0x0a, 0x0e, 0x30,
    /* s_mov_b32 s20, 64 */
    0xc0, 0x00, 0x94, 0xbe,
    /* scratch_store_b32 v7, v2, s20 offset:-4 */
    0xfc, 0x1f, 0x69, 0xdc, 0x07, 0x02, 0x94, 0x00,
    /* scratch_load_b32 v10, v7, off offset:60 */
    0x3c, 0x00, 0x51, 0xdc, 0x07, 0x00, 0xfc, 0x0a,
};
static const uint8_t case402[] = {
    /* scratch_store_b128 off, v[2:5], off offset:32 */
    0x20, 0x00, 0x75, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_load_b64 v[10:11], off, off offset:44 */
    0x2c, 0x00, 0x55, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case403[] = {
    /* scratch_store_b96 off, v[2:4], off offset:16 */
    0x10, 0x00, 0x71, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_load_b96 v[10:12], off, off offset:20 */
    0x14, 0x00, 0x59, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case404[] = {
    /* scratch_store_b32 off, v2, off */
    0x00, 0x00, 0x69, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_load_i8 v10, off, off offset:2 */
    0x02, 0x00, 0x45, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case405[] = {
    /* scratch_store_b32 off, v2, off */
    0x00, 0x00, 0x69, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_load_u8 v10, off, off offset:3 */
    0x03, 0x00, 0x41, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case406[] = {
    /* scratch_store_b32 off, v2, off */
    0x00, 0x00, 0x69, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_load_u16 v10, off, off offset:2 */
    0x02, 0x00, 0x49, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case407[] = {
    /* scratch_store_b32 off, v2, off */
    0x00, 0x00, 0x69, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_load_i16 v10, off, off offset:2 */
    0x02, 0x00, 0x4d, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case408[] = {
    /* scratch_store_b32 off, v3, off */
    0x00, 0x00, 0x69, 0xdc, 0x00, 0x03, 0x7c, 0x00,
    /* scratch_store_b8 off, v2, off offset:1 */
    0x01, 0x00, 0x61, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_store_b16 off, v2, off offset:2 */
    0x02, 0x00, 0x65, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_load_b32 v10, off, off */
    0x00, 0x00, 0x51, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case409[] = {
    /* scratch_store_b32 off, v2, off */
    0x00, 0x00, 0x69, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_load_d16_b16 v10, off, off offset:2 */
    0x02, 0x00, 0x81, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
    /* scratch_load_d16_hi_b16 v10, off, off */
    0x00, 0x00, 0x8d, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case410[] = {
    /* scratch_store_b32 off, v2, off */
    0x00, 0x00, 0x69, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_load_d16_i8 v10, off, off offset:3 */
    0x03, 0x00, 0x7d, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
    /* scratch_load_d16_hi_u8 v10, off, off offset:1 */
    0x01, 0x00, 0x85, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case411[] = {
    /* scratch_store_b32 off, v2, off */
    0x00, 0x00, 0x69, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_load_d16_u8 v10, off, off offset:3 */
    0x03, 0x00, 0x79, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
    /* scratch_load_d16_hi_i8 v10, off, off offset:3 */
    0x03, 0x00, 0x89, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case412[] = {
    /* scratch_store_b32 off, v3, off */
    0x00, 0x00, 0x69, 0xdc, 0x00, 0x03, 0x7c, 0x00,
    /* scratch_store_d16_hi_b16 off, v2, off */
    0x00, 0x00, 0x95, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_store_d16_hi_b8 off, v2, off offset:3 */
    0x03, 0x00, 0x91, 0xdc, 0x00, 0x02, 0x7c, 0x00,
    /* scratch_load_b32 v10, off, off */
    0x00, 0x00, 0x51, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const uint8_t case413[] = {
    /* scratch_store_b32 off, v5, off offset:252 */
    0xfc, 0x00, 0x69, 0xdc, 0x00, 0x05, 0x7c, 0x00,
    /* scratch_load_b32 v10, off, off offset:252 */
    0xfc, 0x00, 0x51, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
};
static const isa_case_t isa_cases[] = {
    {"s_add_u32 s20, s4, s5; s_addc_u32 s20, s20, 0; v_mov_b32 v10, s20",
     case0, sizeof(case0),
     {0xfffffff0u, 0x30u, 0x0u, 0x0u}, 0x21u, 0x21u},
    {"s_sub_u32 s20, s4, s5; s_subb_u32 s20, s20, 0; v_mov_b32 v10, s20",
     case1, sizeof(case1),
     {0x10u, 0x20u, 0x0u, 0x0u}, 0xffffffefu, 0xffffffefu},
    {"s_add_i32 s20, s4, s5; s_cselect_b32 s20, s20, 7; v_mov_b32 v10, s20",
     case2, sizeof(case2),
     {0x7fffffffu, 0x1u, 0x0u, 0x0u}, 0x80000000u, 0x80000000u},
    {"s_sub_i32 s20, s4, s5; s_cselect_b32 s20, 5, s20; v_mov_b32 v10, s20",
     case3, sizeof(case3),
     {0x3u, 0x5u, 0x0u, 0x0u}, 0xfffffffeu, 0xfffffffeu},
    {"s_and_b32 s20, s4, 0xffff; v_mov_b32 v10, s20",
     case4, sizeof(case4),
     {0x12345678u, 0x0u, 0x0u, 0x0u}, 0x5678u, 0x5678u},
    {"s_or_b32 s20, s4, s5;"
     "s_xor_b32 s20, s20, s6;"
     "s_and_not1_b32 s20, s20, s7;"
     "v_mov_b32 v10, s20",
     case5, sizeof(case5),
     {0xf0u, 0xfu, 0x3cu, 0x1u}, 0xc2u, 0xc2u},
    {"s_lshl_b32 s20, s4, s5; v_mov_b32 v10, s20",
     case6, sizeof(case6),
     {0x3u, 0x21u, 0x0u, 0x0u}, 0x6u, 0x6u},
    {"s_lshr_b32 s20, s4, 4; v_mov_b32 v10, s20",
     case7, sizeof(case7),
     {0x80000000u, 0x0u, 0x0u, 0x0u}, 0x8000000u, 0x8000000u},
    {"s_ashr_i32 s20, s4, 4; v_mov_b32 v10, s20",
     case8, sizeof(case8),
     {0x80000000u, 0x0u, 0x0u, 0x0u}, 0xf8000000u, 0xf8000000u},
    {"s_lshl_b64 s[20:21], s[4:5], 4; v_mov_b32 v10, s21",
     case9, sizeof(case9),
     {0x90000001u, 0x1u, 0x0u, 0x0u}, 0x19u, 0x19u},
    {"s_lshr_b64 s[20:21], s[4:5], s6; v_mov_b32 v10, s20",
     case10, sizeof(case10),
     {0x0u, 0x1u, 0x4u, 0x0u}, 0x10000000u, 0x10000000u},
    {"s_or_b64 s[20:21], s[4:5], s[6:7]; v_mov_b32 v10, s21",
     case11, sizeof(case11),
     {0x0u, 0x10u, 0x0u, 0x1u}, 0x11u, 0x11u},
    {"s_and_b64 s[20:21], s[4:5], s[6:7]; v_mov_b32 v10, s21",
     case12, sizeof(case12),
     {0x0u, 0x30u, 0x0u, 0x11u}, 0x10u, 0x10u},
    {"s_min_i32 s20, s4, s5; v_mov_b32 v10, s20",
     case13, sizeof(case13),
     {0xffffffffu, 0x1u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"s_min_u32 s20, s4, s5; v_mov_b32 v10, s20",
     case14, sizeof(case14),
     {0xffffffffu, 0x1u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"s_max_i32 s20, s4, s5; v_mov_b32 v10, s20",
     case15, sizeof(case15),
     {0xffffffffu, 0x1u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"s_max_u32 s20, s4, s5; v_mov_b32 v10, s20",
     case16, sizeof(case16),
     {0xffffffffu, 0x1u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"s_mul_i32 s20, s4, s5; v_mov_b32 v10, s20",
     case17, sizeof(case17),
     {0x10001u, 0x10001u, 0x0u, 0x0u}, 0x20001u, 0x20001u},
    {"s_mul_hi_u32 s20, s4, s5; v_mov_b32 v10, s20",
     case18, sizeof(case18),
     {0x10001u, 0x10001u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"s_mul_hi_i32 s20, s4, s5; v_mov_b32 v10, s20",
     case19, sizeof(case19),
     {0xfffffffeu, 0x3u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"s_mov_b64 s[20:21], s[4:5]; v_mov_b32 v10, s21",
     case20, sizeof(case20),
     {0x1u, 0x2u, 0x0u, 0x0u}, 0x2u, 0x2u},
    {"s_not_b32 s20, s4; v_mov_b32 v10, s20",
     case21, sizeof(case21),
     {0xf0f0f0fu, 0x0u, 0x0u, 0x0u}, 0xf0f0f0f0u, 0xf0f0f0f0u},
    {"s_movk_i32 s20, 0x8000; v_mov_b32 v10, s20",
     case22, sizeof(case22),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xffff8000u, 0xffff8000u},
    {"s_cmp_lt_i32 s4, s5; s_cselect_b32 s20, 1, 2; v_mov_b32 v10, s20",
     case23, sizeof(case23),
     {0xffffffffu, 0x1u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"s_cmp_lt_u32 s4, s5; s_cselect_b32 s20, 1, 2; v_mov_b32 v10, s20",
     case24, sizeof(case24),
     {0xffffffffu, 0x1u, 0x0u, 0x0u}, 0x2u, 0x2u},
    {"s_cmp_gt_u32 s4, s5; s_cselect_b32 s20, 1, 2; v_mov_b32 v10, s20",
     case25, sizeof(case25),
     {0xffffffffu, 0x1u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"s_cmp_eq_u32 s4, s5; s_cselect_b32 s20, 1, 2; v_mov_b32 v10, s20",
     case26, sizeof(case26),
     {0x7u, 0x7u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"s_cmp_lg_u32 s4, s5; s_cselect_b32 s20, 1, 2; v_mov_b32 v10, s20",
     case27, sizeof(case27),
     {0x7u, 0x7u, 0x0u, 0x0u}, 0x2u, 0x2u},
    {"s_cmp_eq_u64 s[4:5], s[6:7]; s_cselect_b32 s20, 1, 2; v_mov_b32 v10, s20",
     case28, sizeof(case28),
     {0x1u, 0x2u, 0x1u, 0x2u}, 0x1u, 0x1u},
    {"s_cmp_lg_u64 s[4:5], s[6:7]; s_cselect_b32 s20, 1, 2; v_mov_b32 v10, s20",
     case29, sizeof(case29),
     {0x1u, 0x2u, 0x1u, 0x3u}, 0x1u, 0x1u},
    {"s_mov_b32 s20, 1; s_branch 1; s_mov_b32 s20, 2; v_mov_b32 v10, s20",
     case30, sizeof(case30),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"s_mov_b32 s20, 1;"
     "s_cmp_eq_u32 s4, 0;"
     "s_cbranch_scc1 1;"
     "s_mov_b32 s20, 2;"
     "v_mov_b32 v10, s20",
     case31, sizeof(case31),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"s_mov_b32 s20, 1;"
     "s_cmp_eq_u32 s4, 0;"
     "s_cbranch_scc0 1;"
     "s_mov_b32 s20, 2;"
     "v_mov_b32 v10, s20",
     case32, sizeof(case32),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x2u, 0x2u},
    {"s_mov_b32 s20, 1; s_cbranch_vccz 1; s_mov_b32 s20, 2; v_mov_b32 v10, s20",
     case33, sizeof(case33),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"s_mov_b32 s20, 1;"
     "s_cbranch_vccnz 1;"
     "s_mov_b32 s20, 2;"
     "v_mov_b32 v10, s20",
     case34, sizeof(case34),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x2u, 0x2u},
    {"s_mov_b32 s20, 1;"
     "s_cbranch_execz 1;"
     "s_mov_b32 s20, 2;"
     "v_mov_b32 v10, s20",
     case35, sizeof(case35),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x2u, 0x2u},
    {"s_mov_b32 s20, 1;"
     "s_cbranch_execnz 1;"
     "s_mov_b32 s20, 2;"
     "v_mov_b32 v10, s20",
     case36, sizeof(case36),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"s_and_saveexec_b32 s20, s4; v_mov_b32 v10, s20",
     case37, sizeof(case37),
     {0x1u, 0x0u, 0x0u, 0x0u}, 0xffffffffu, 0xdeadbeefu},
    {"s_or_saveexec_b32 s20, s4; v_mov_b32 v10, s20",
     case38, sizeof(case38),
     {0x1u, 0x0u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"s_mov_b32 exec_lo, 1;"
     "s_and_not1_saveexec_b32 s20, s4;"
     "v_mov_b32 v10, s20",
     case39, sizeof(case39),
     {0x21u, 0x0u, 0x0u, 0x0u}, 0xdeadbeefu, 0x1u},
    {"s_nop 0;"
     "s_clause 0x1;"
     "s_delay_alu instid0(VALU_DEP_1);"
     "s_waitcnt vmcnt(0);"
     "s_waitcnt_vscnt null, 0x0;"
     "s_waitcnt_depctr 0xfff;"
     "s_barrier;"
     "s_sendmsg sendmsg(MSG_DEALLOC_VGPRS);"
     "v_mov_b32 v10, s4",
     case40, sizeof(case40),
     {0x2au, 0x0u, 0x0u, 0x0u}, 0x2au, 0x2au},
    {"s_load_b32 s20, s[0:1], 0x4; s_waitcnt lgkmcnt(0); v_mov_b32 v10, s20",
     case41, sizeof(case41),
     {0x1u, 0x2u, 0x3u, 0x4u}, 0x2u, 0x2u},
    {"s_load_b256 s[20:27], s[0:1], 0x0;"
     "s_waitcnt lgkmcnt(0);"
     "v_mov_b32 v10, s23",
     case42, sizeof(case42),
     {0x1u, 0x2u, 0x3u, 0x4u}, 0x4u, 0x4u},
    {"v_mov_b32 v10, 0x12345678",
     case43, sizeof(case43),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x12345678u, 0x12345678u},
    {"v_mov_b32 v10, -16",
     case44, sizeof(case44),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xfffffff0u, 0xfffffff0u},
    {"v_mov_b32 v10, 0.5",
     case45, sizeof(case45),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x3f000000u, 0x3f000000u},
    {"v_mov_b32 v10, 0.15915494",
     case46, sizeof(case46),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x3e22f983u, 0x3e22f983u},
    {"v_add_nc_u32 v11, 7, v5;"
     "v_readfirstlane_b32 s20, v11;"
     "v_mov_b32 v10, s20",
     case47, sizeof(case47),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x7u, 0x7u},
    {"v_cvt_f32_u32 v10, v5",
     case48, sizeof(case48),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x40a00000u},
    {"v_cvt_u32_f32 v10, v2",
     case49, sizeof(case49),
     {0x406ccccdu, 0x0u, 0x0u, 0x0u}, 0x3u, 0x3u},
    {"v_cvt_u32_f32 v10, v2",
     case50, sizeof(case50),
     {0xbf800000u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_gt_u32 vcc_lo, 3, v5; v_cndmask_b32 v10, v2, v3, vcc_lo",
     case51, sizeof(case51),
     {0xbu, 0x16u, 0x0u, 0x0u}, 0x16u, 0xbu},
    {"v_cmp_gt_u32_e64 s20, 3, v5; v_cndmask_b32_e64 v10, v2, v3, s20",
     case52, sizeof(case52),
     {0xbu, 0x16u, 0x0u, 0x0u}, 0x16u, 0xbu},
    {"v_add_f32 v10, v2, v3",
     case53, sizeof(case53),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0x40700000u, 0x40700000u},
    {"v_sub_f32 v10, v2, v3",
     case54, sizeof(case54),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0xbf400000u, 0xbf400000u},
    {"v_mul_f32 v10, v2, v3",
     case55, sizeof(case55),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0x40580000u, 0x40580000u},
    {"v_min_f32 v10, v2, v3",
     case56, sizeof(case56),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0x3fc00000u, 0x3fc00000u},
    {"v_max_f32 v10, v2, v3",
     case57, sizeof(case57),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0x40100000u, 0x40100000u},
    {"v_add_f32_e64 v10, -|v2|, v3",
     case58, sizeof(case58),
     {0xbfc00000u, 0x40100000u, 0x0u, 0x0u}, 0x3f400000u, 0x3f400000u},
    {"v_mul_f32_e64 v10, v2, v3 clamp",
     case59, sizeof(case59),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0x3f800000u, 0x3f800000u},
    {"v_add_f32_e64 v10, v2, v3 mul:2",
     case60, sizeof(case60),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0x40f00000u, 0x40f00000u},
    {"v_mov_b32 v10, v4; v_fmac_f32 v10, v2, v3",
     case61, sizeof(case61),
     {0x3f800001u, 0x3f800001u, 0xbf800002u, 0x0u}, 0x28800000u, 0x28800000u},
    {"v_fma_f32 v10, v2, v3, v4",
     case62, sizeof(case62),
     {0x3f800001u, 0x3f800001u, 0xbf800002u, 0x0u}, 0x28800000u, 0x28800000u},
    {"v_add_nc_u32 v10, s4, v5",
     case63, sizeof(case63),
     {0x64u, 0x0u, 0x0u, 0x0u}, 0x64u, 0x69u},
    {"v_sub_nc_u32 v10, v2, v5",
     case64, sizeof(case64),
     {0x64u, 0x0u, 0x0u, 0x0u}, 0x64u, 0x5fu},
    {"v_subrev_nc_u32 v10, v2, v5",
     case65, sizeof(case65),
     {0x64u, 0x0u, 0x0u, 0x0u}, 0xffffff9cu, 0xffffffa1u},
    {"v_lshlrev_b32 v10, v5, v2",
     case66, sizeof(case66),
     {0x3u, 0x0u, 0x0u, 0x0u}, 0x3u, 0x60u},
    {"v_lshrrev_b32 v10, v5, v2",
     case67, sizeof(case67),
     {0x80000000u, 0x0u, 0x0u, 0x0u}, 0x80000000u, 0x4000000u},
    {"v_ashrrev_i32 v10, v5, v2",
     case68, sizeof(case68),
     {0x80000000u, 0x0u, 0x0u, 0x0u}, 0x80000000u, 0xfc000000u},
    {"v_and_b32 v10, v2, v5",
     case69, sizeof(case69),
     {0x6u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x4u},
    {"v_or_b32 v10, v2, v5",
     case70, sizeof(case70),
     {0x8u, 0x0u, 0x0u, 0x0u}, 0x8u, 0xdu},
    {"v_xor_b32 v10, v2, v5",
     case71, sizeof(case71),
     {0x7u, 0x0u, 0x0u, 0x0u}, 0x7u, 0x2u},
    {"v_min_u32 v10, v2, v5",
     case72, sizeof(case72),
     {0x3u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x3u},
    {"v_max_u32 v10, v2, v5",
     case73, sizeof(case73),
     {0x3u, 0x0u, 0x0u, 0x0u}, 0x3u, 0x5u},
    {"v_mul_lo_u32 v10, v2, v5",
     case74, sizeof(case74),
     {0x80000001u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x80000005u},
    {"v_mul_hi_u32 v10, v2, v3",
     case75, sizeof(case75),
     {0x80000000u, 0x80000000u, 0x0u, 0x0u}, 0x40000000u, 0x40000000u},
    {"v_add3_u32 v10, v2, v3, v5",
     case76, sizeof(case76),
     {0x1u, 0x2u, 0x0u, 0x0u}, 0x3u, 0x8u},
    {"v_mbcnt_lo_u32_b32 v10, -1, 0",
     case77, sizeof(case77),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x5u},
    {"v_add_co_u32 v10, vcc_lo, v2, v5;"
     "v_add_co_ci_u32_e32 v10, vcc_lo, 0, v10, vcc_lo",
     case78, sizeof(case78),
     {0xfffffffeu, 0x0u, 0x0u, 0x0u}, 0xfffffffeu, 0x4u},
    {"v_mov_b32 v11, 0;"
     "v_sub_co_u32 v10, vcc_lo, v5, 3;"
     "v_sub_co_ci_u32_e32 v11, vcc_lo, 0, v11, vcc_lo;"
     "v_add_nc_u32 v10, v10, v11",
     case79, sizeof(case79),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xfffffffcu, 0x2u},
    {"v_subrev_co_u32 v10, vcc_lo, 3, v5;"
     "v_mov_b32 v11, 0;"
     "v_subrev_co_ci_u32_e32 v11, vcc_lo, 0, v11, vcc_lo;"
     "v_add_nc_u32 v10, v10, v11",
     case80, sizeof(case80),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xfffffffcu, 0x2u},
    {"s_mov_b32 s21, 1; v_add_co_ci_u32_e64 v10, s20, v2, v5, s21",
     case81, sizeof(case81),
     {0xau, 0x0u, 0x0u, 0x0u}, 0xbu, 0xfu},
    {"v_mad_u64_u32 v[10:11], null, v2, v3, v[5:6]",
     case82, sizeof(case82),
     {0x10000u, 0x10000u, 0x0u, 0x0u}, 0x0u, 0x5u},
    {"v_mad_u64_u32 v[10:11], null, v2, v3, v[5:6]; v_mov_b32 v10, v11",
     case83, sizeof(case83),
     {0x10000u, 0x10000u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_mad_i64_i32 v[10:11], null, v2, v3, v[5:6]",
     case84, sizeof(case84),
     {0xffffffffu, 0x2u, 0x0u, 0x0u}, 0xfffffffeu, 0x3u},
    {"v_lshlrev_b64 v[10:11], 30, v[5:6]; v_mov_b32 v10, v11",
     case85, sizeof(case85),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x1u},
    {"v_cmp_lt_u32 vcc_lo, 3, v5; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case86, sizeof(case86),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x1u},
    {"v_cmp_eq_u32 vcc_lo, 5, v5; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case87, sizeof(case87),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x1u},
    {"v_cmp_le_u32 vcc_lo, 5, v5; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case88, sizeof(case88),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x1u},
    {"v_cmp_ne_u32 vcc_lo, 5, v5; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case89, sizeof(case89),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x1u, 0x0u},
    {"v_cmp_ge_u32 vcc_lo, 3, v5; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case90, sizeof(case90),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x1u, 0x0u},
    {"v_cmp_lt_i32 vcc_lo, v2, v5; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case91, sizeof(case91),
     {0xffffffffu, 0x0u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_gt_u64 vcc_lo, s[4:5], v[5:6]; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case92, sizeof(case92),
     {0x3u, 0x0u, 0x0u, 0x0u}, 0x1u, 0x0u},
    {"v_cmp_lt_u64 vcc_lo, s[4:5], v[5:6]; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case93, sizeof(case93),
     {0x3u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x1u},
    {"v_cmp_gt_i64 vcc_lo, v[5:6], s[4:5]; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case94, sizeof(case94),
     {0xffffffffu, 0xffffffffu, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_lt_f32 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case95, sizeof(case95),
     {0x3f800000u, 0x7fc00000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_gt_f32 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case96, sizeof(case96),
     {0x40000000u, 0x3f800000u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_eq_f32 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case97, sizeof(case97),
     {0x40000000u, 0x40000000u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmpx_eq_u32 5, v5; v_mov_b32 v10, 9",
     case98, sizeof(case98),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xdeadbeefu, 0x9u},
    {"v_cmpx_gt_u64_e64 s[4:5], v[5:6]; v_mov_b32 v10, 9",
     case99, sizeof(case99),
     {0x3u, 0x0u, 0x0u, 0x0u}, 0x9u, 0xdeadbeefu},
    {"v_dual_mov_b32 v10, v2 :: v_dual_mov_b32 v11, v3",
     case100, sizeof(case100),
     {0x7u, 0x8u, 0x0u, 0x0u}, 0x7u, 0x7u},
    {"v_mov_b32 v7, v2;"
     "v_mov_b32 v8, v3;"
     "v_dual_add_f32 v10, v2, v3 :: v_dual_mul_f32 v11, v7, v8;"
     "v_add_f32 v10, v10, v11",
     case101, sizeof(case101),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0x40e40000u, 0x40e40000u},
    {"v_mov_b32 v10, v2;"
     "v_mov_b32 v11, v3;"
     "v_dual_mov_b32 v10, v11 :: v_dual_mov_b32 v11, v10",
     case102, sizeof(case102),
     {0x7u, 0x8u, 0x0u, 0x0u}, 0x8u, 0x8u},
    {"v_cmp_gt_u32 vcc_lo, 3, v5;"
     "v_dual_cndmask_b32 v10, v2, v3 :: v_dual_add_nc_u32 v11, v5, v4;"
     "v_add_nc_u32 v10, v10, v11",
     case103, sizeof(case103),
     {0xau, 0x14u, 0x64u, 0x0u}, 0x78u, 0x73u},
    {"v_mov_b32 v10, v4;"
     "v_mov_b32 v7, v2;"
     "v_mov_b32 v8, v3;"
     "v_dual_fmac_f32 v10, v2, v3 :: v_dual_sub_f32 v11, v7, v8",
     case104, sizeof(case104),
     {0x3f800001u, 0x3f800001u, 0xbf800002u, 0x0u}, 0x28800000u, 0x28800000u},
    {"v_mov_b32 v12, s0;"
     "v_mov_b32 v13, s1;"
     "global_load_b32 v10, v[12:13], off offset:4",
     case105, sizeof(case105),
     {0x1u, 0x2u, 0x3u, 0x4u}, 0x2u, 0x2u},
    {"v_mov_b32 v12, s0;"
     "v_mov_b32 v13, s1;"
     "global_load_b64 v[10:11], v[12:13], off offset:8;"
     "v_add_nc_u32 v10, v10, v11",
     case106, sizeof(case106),
     {0x1u, 0x2u, 0x3u, 0x4u}, 0x7u, 0x7u},
    {"v_mov_b32 v12, s0;"
     "v_mov_b32 v13, s1;"
     "global_load_b96 v[10:12], v[12:13], off;"
     "v_add_nc_u32 v10, v10, v12",
     case107, sizeof(case107),
     {0x1u, 0x2u, 0x3u, 0x4u}, 0x4u, 0x4u},
    {"v_mov_b32 v12, s0;"
     "v_mov_b32 v13, s1;"
     "global_load_b128 v[10:13], v[12:13], off;"
     "v_add_nc_u32 v10, v10, v13",
     case108, sizeof(case108),
     {0x1u, 0x2u, 0x3u, 0x4u}, 0x5u, 0x5u},
    {"global_load_u8 v10, v6, s[0:1] offset:1",
     case109, sizeof(case109),
     {0x80ff7f01u, 0x0u, 0x0u, 0x0u}, 0x7fu, 0x7fu},
    {"global_load_i8 v10, v6, s[0:1] offset:3",
     case110, sizeof(case110),
     {0x80ff7f01u, 0x0u, 0x0u, 0x0u}, 0xffffff80u, 0xffffff80u},
    {"global_load_u16 v10, v6, s[0:1] offset:2",
     case111, sizeof(case111),
     {0x80ff7f01u, 0x0u, 0x0u, 0x0u}, 0x80ffu, 0x80ffu},
    {"global_load_i16 v10, v6, s[0:1] offset:2",
     case112, sizeof(case112),
     {0x80ff7f01u, 0x0u, 0x0u, 0x0u}, 0xffff80ffu, 0xffff80ffu},
    {"global_store_b32 v1, v5, s[12:13]; global_load_b32 v10, v1, s[12:13]",
     case113, sizeof(case113),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x5u},
    {"v_mov_b32 v10, -1;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_store_b8 v1, v5, s[12:13] offset:1;"
     "global_load_b32 v10, v1, s[12:13]",
     case114, sizeof(case114),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xffff00ffu, 0xffff05ffu},
    {"v_mov_b32 v10, -1;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_store_b16 v1, v5, s[12:13] offset:2;"
     "global_load_b32 v10, v1, s[12:13]",
     case115, sizeof(case115),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xffffu, 0x5ffffu},
    {"v_mov_b32 v7, v2;"
     "v_mov_b32 v8, v3;"
     "global_store_b64 v1, v[7:8], s[12:13] offset:8;"
     "global_load_b32 v10, v1, s[12:13] offset:12",
     case116, sizeof(case116),
     {0x1u, 0x2u, 0x0u, 0x0u}, 0x2u, 0x2u},
    {"v_mov_b32 v7, v2;"
     "v_mov_b32 v8, v3;"
     "v_mov_b32 v9, v4;"
     "global_store_b96 v1, v[7:9], s[12:13] offset:4;"
     "global_load_b32 v10, v1, s[12:13] offset:12",
     case117, sizeof(case117),
     {0x1u, 0x2u, 0x3u, 0x0u}, 0x3u, 0x3u},
    {"v_mov_b32 v7, v2;"
     "v_mov_b32 v8, v3;"
     "v_mov_b32 v9, v4;"
     "v_mov_b32 v10, v5;"
     "global_store_b128 v1, v[7:10], s[12:13];"
     "global_load_b32 v10, v1, s[12:13] offset:12",
     case118, sizeof(case118),
     {0x1u, 0x2u, 0x3u, 0x0u}, 0x0u, 0x5u},
    {"s_xor_b64 s[20:21], s[4:5], s[6:7]; v_mov_b32 v10, s21",
     case119, sizeof(case119),
     {0x0u, 0x30u, 0x0u, 0x11u}, 0x21u, 0x21u},
    {"s_cvt_f32_u32 s20, s4; v_mov_b32 v10, s20",
     case120, sizeof(case120),
     {0x7u, 0x0u, 0x0u, 0x0u}, 0x40e00000u, 0x40e00000u},
    {"s_cvt_u32_f32 s20, s4; v_mov_b32 v10, s20",
     case121, sizeof(case121),
     {0x40fccccdu, 0x0u, 0x0u, 0x0u}, 0x7u, 0x7u},
    {"s_trunc_f32 s20, s4; v_mov_b32 v10, s20",
     case122, sizeof(case122),
     {0xc0fccccdu, 0x0u, 0x0u, 0x0u}, 0xc0e00000u, 0xc0e00000u},
    {"s_mul_f32 s20, s4, 0x40000000; v_mov_b32 v10, s20",
     case123, sizeof(case123),
     {0x3fc00000u, 0x0u, 0x0u, 0x0u}, 0x40400000u, 0x40400000u},
    {"s_fmamk_f32 s20, s4, 0x3f800001, s5; v_mov_b32 v10, s20",
     case124, sizeof(case124),
     {0x3f800001u, 0xbf800002u, 0x0u, 0x0u}, 0x28800000u, 0x28800000u},
    {"s_fmaak_f32 s20, s4, s5, 0xbf800002; v_mov_b32 v10, s20",
     case125, sizeof(case125),
     {0x3f800001u, 0x3f800001u, 0x0u, 0x0u}, 0x28800000u, 0x28800000u},
    {"v_rcp_f32 v10, v2",
     case126, sizeof(case126),
     {0x40800000u, 0x0u, 0x0u, 0x0u}, 0x3e800000u, 0x3e800000u},
    {"v_rcp_iflag_f32 v10, v2",
     case127, sizeof(case127),
     {0xc0000000u, 0x0u, 0x0u, 0x0u}, 0xbf000000u, 0xbf000000u},
    {"v_mov_b32 v10, 10;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_atomic_add_u32 v10, v1, v5, s[12:13] glc;"
     "global_load_b32 v11, v1, s[12:13];"
     "v_add_nc_u32 v10, v10, v11",
     case128, sizeof(case128),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x14u, 0x19u},
    {"v_mov_b32 v10, 10;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_atomic_swap_b32 v1, v5, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case129, sizeof(case129),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x5u},
    {"v_mov_b32 v10, 10;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_atomic_add_u32 v1, v5, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case130, sizeof(case130),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xau, 0xfu},
    {"v_mov_b32 v10, 10;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_atomic_sub_u32 v1, v5, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case131, sizeof(case131),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xau, 0x5u},
    {"v_mov_b32 v10, 10;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_atomic_min_u32 v1, v5, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case132, sizeof(case132),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x5u},
    {"v_mov_b32 v10, 10;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_atomic_max_u32 v1, v5, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case133, sizeof(case133),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xau, 0xau},
    {"v_mov_b32 v10, -1;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_atomic_min_i32 v1, v5, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case134, sizeof(case134),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"v_mov_b32 v10, -1;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_atomic_max_i32 v1, v5, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case135, sizeof(case135),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x5u},
    {"v_mov_b32 v10, 10;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_atomic_and_b32 v1, v5, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case136, sizeof(case136),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_mov_b32 v10, 10;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_atomic_or_b32 v1, v5, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case137, sizeof(case137),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xau, 0xfu},
    {"v_mov_b32 v10, 10;"
     "global_store_b32 v1, v10, s[12:13];"
     "global_atomic_xor_b32 v1, v5, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case138, sizeof(case138),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xau, 0xfu},
    {"v_bfe_u32 v10, v2, 4, 8",
     case139, sizeof(case139),
     {0x12345678u, 0x0u, 0x0u, 0x0u}, 0x67u, 0x67u},
    {"v_cvt_f32_ubyte0 v10, v2",
     case140, sizeof(case140),
     {0x123456ffu, 0x0u, 0x0u, 0x0u}, 0x437f0000u, 0x437f0000u},
    {"v_floor_f32 v10, v2",
     case141, sizeof(case141),
     {0xbfc00000u, 0x0u, 0x0u, 0x0u}, 0xc0000000u, 0xc0000000u},
    {"v_maxmin_f32 v10, v2, v3, v4",
     case142, sizeof(case142),
     {0x3f800000u, 0x40a00000u, 0x40400000u, 0x0u}, 0x40400000u, 0x40400000u},
    {"v_med3_f32 v10, v2, v3, v4",
     case143, sizeof(case143),
     {0x3f800000u, 0x40a00000u, 0x40400000u, 0x0u}, 0x40400000u, 0x40400000u},
    {"v_med3_f32 v10, v2, v3, v4",
     case144, sizeof(case144),
     {0x7fc00000u, 0x40a00000u, 0x40400000u, 0x0u}, 0x40400000u, 0x40400000u},
    {"v_lshl_add_u32 v10, v2, 4, v3",
     case145, sizeof(case145),
     {0x10u, 0x7u, 0x0u, 0x0u}, 0x107u, 0x107u},
    {"v_mad_u32_u24 v10, v2, v3, v4",
     case146, sizeof(case146),
     {0x1000003u, 0xff000005u, 0x64u, 0x0u}, 0x73u, 0x73u},
    {"v_readlane_b32 s20, v5, s4;v_mov_b32 v10, s20",
     case147, sizeof(case147),
     {0x25u, 0x0u, 0x0u, 0x0u}, 0x5u, 0x5u},
    {"v_writelane_b32 v10, s4, 5",
     case148, sizeof(case148),
     {0xabcu, 0x0u, 0x0u, 0x0u}, 0x0u, 0xabcu},
    {"s_set_inst_prefetch_distance 0x1;"
     "buffer_gl0_inv;"
     "buffer_gl1_inv;"
     "v_mov_b32 v10, s4",
     case149, sizeof(case149),
     {0x77u, 0x0u, 0x0u, 0x0u}, 0x77u, 0x77u},
    {"ds_store_b32 v1, v5;ds_load_b32 v10, v1 offset:16",
     case150, sizeof(case150),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x1u, 0x6u},
    {"ds_store_b16 v1, v2;ds_load_i16 v10, v1",
     case151, sizeof(case151),
     {0x123480ffu, 0x0u, 0x0u, 0x0u}, 0xffff80ffu, 0xffff80ffu},
    {"ds_store_b16 v1, v2;ds_load_u16 v10, v1",
     case152, sizeof(case152),
     {0x123480ffu, 0x0u, 0x0u, 0x0u}, 0x80ffu, 0x80ffu},
    {"ds_store_b8 v1, v2;ds_load_i8 v10, v1",
     case153, sizeof(case153),
     {0x123480ffu, 0x0u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"ds_store_b8 v1, v2;ds_load_u8 v10, v1",
     case154, sizeof(case154),
     {0x123480ffu, 0x0u, 0x0u, 0x0u}, 0xffu, 0xffu},
    {"ds_store_b64 v1, v[2:3];ds_load_b64 v[9:10], v1",
     case155, sizeof(case155),
     {0x1u, 0x55u, 0x0u, 0x0u}, 0x55u, 0x55u},
    {"ds_store_b96 v1, v[2:4];ds_load_b96 v[8:10], v1",
     case156, sizeof(case156),
     {0x1u, 0x2u, 0x66u, 0x0u}, 0x66u, 0x66u},
    {"ds_store_b128 v1, v[2:5];ds_load_b128 v[7:10], v1",
     case157, sizeof(case157),
     {0x1u, 0x2u, 0x3u, 0x0u}, 0x0u, 0x5u},
    {"ds_store_b32 v1, v2;ds_add_u32 v1, v5;ds_load_b32 v10, v1",
     case158, sizeof(case158),
     {0xau, 0x0u, 0x0u, 0x0u}, 0xau, 0xfu},
    {"ds_store_b32 v1, v2;ds_add_rtn_u32 v10, v1, v5",
     case159, sizeof(case159),
     {0xau, 0x0u, 0x0u, 0x0u}, 0xau, 0xau},
    {"ds_store_b32 v1, v2;ds_rsub_u32 v1, v5;ds_load_b32 v10, v1",
     case160, sizeof(case160),
     {0x3u, 0x0u, 0x0u, 0x0u}, 0xfffffffdu, 0x2u},
    {"ds_store_b32 v1, v2;ds_inc_u32 v1, v5;ds_load_b32 v10, v1",
     case161, sizeof(case161),
     {0x4u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x5u},
    {"ds_store_b32 v1, v2;ds_dec_u32 v1, v5;ds_load_b32 v10, v1",
     case162, sizeof(case162),
     {0x4u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x3u},
    {"ds_store_b32 v1, v2;ds_min_i32 v1, v5;ds_load_b32 v10, v1",
     case163, sizeof(case163),
     {0xffffffffu, 0x0u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"ds_store_b32 v1, v2;ds_max_u32 v1, v5;ds_load_b32 v10, v1",
     case164, sizeof(case164),
     {0x3u, 0x0u, 0x0u, 0x0u}, 0x3u, 0x5u},
    {"ds_store_b32 v1, v2;ds_xor_rtn_b32 v9, v1, v5;ds_load_b32 v10, v1",
     case165, sizeof(case165),
     {0xau, 0x0u, 0x0u, 0x0u}, 0xau, 0xfu},
    {"ds_bpermute_b32 v10, v1, v5 offset:4",
     case166, sizeof(case166),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x1u, 0x15u},
    {"v_cmp_nlt_f32 vcc_lo, v2, v3;v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case167, sizeof(case167),
     {0x3f800000u, 0x40000000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_nlt_f32 vcc_lo, v2, v3;v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case168, sizeof(case168),
     {0x7fc00000u, 0x40000000u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_nge_f32_e64 s20, v2, v3;v_cndmask_b32_e64 v10, 0, 1, s20",
     case169, sizeof(case169),
     {0x3f800000u, 0x40000000u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_ngt_f32 vcc_lo, v2, v3;v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case170, sizeof(case170),
     {0x40400000u, 0x40000000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_gt_u64_e64 s20, 0xfffffff0, v[2:3];"
     "v_cndmask_b32_e64 v10, 0, 1, s20",
     case171, sizeof(case171),
     {0x0u, 0x1u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_lt_i64_e64 s20, -1000, v[2:3];v_cndmask_b32_e64 v10, 0, 1, s20",
     case172, sizeof(case172),
     {0xfffffc19u, 0xffffffffu, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_sqrt_f32 v10, v2",
     case173, sizeof(case173),
     {0x41800000u, 0x0u, 0x0u, 0x0u}, 0x40800000u, 0x40800000u},
    {"v_rsq_f32 v10, v2",
     case174, sizeof(case174),
     {0x40800000u, 0x0u, 0x0u, 0x0u}, 0x3f000000u, 0x3f000000u},
    {"v_exp_f32 v10, v2",
     case175, sizeof(case175),
     {0x40400000u, 0x0u, 0x0u, 0x0u}, 0x41000000u, 0x41000000u},
    {"v_log_f32 v10, v2",
     case176, sizeof(case176),
     {0x41000000u, 0x0u, 0x0u, 0x0u}, 0x40400000u, 0x40400000u},
    {"v_cmpx_gt_u32 6, v5;ds_bpermute_b32 v10, v1, v5 offset:4",
     case177, sizeof(case177),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x1u, 0x0u},
    {"v_cvt_f16_f32 v10, v2",
     case178, sizeof(case178),
     {0x3f803000u, 0x0u, 0x0u, 0x0u}, 0x3c02u, 0x3c02u},
    {"v_cvt_f16_f32 v10, v2",
     case179, sizeof(case179),
     {0x477ff000u, 0x0u, 0x0u, 0x0u}, 0x7c00u, 0x7c00u},
    {"v_cvt_f16_f32 v10, v2",
     case180, sizeof(case180),
     {0x33c00000u, 0x0u, 0x0u, 0x0u}, 0x2u, 0x2u},
    {"v_cvt_f16_f32 v10, v2",
     case181, sizeof(case181),
     {0xffc00000u, 0x0u, 0x0u, 0x0u}, 0xfe00u, 0xfe00u},
    {"v_cvt_f16_f32 v10, v2",
     case182, sizeof(case182),
     {0x477fefffu, 0x0u, 0x0u, 0x0u}, 0x7bffu, 0x7bffu},
    {"v_cvt_f32_f16 v10, v2",
     case183, sizeof(case183),
     {0x1u, 0x0u, 0x0u, 0x0u}, 0x33800000u, 0x33800000u},
    {"v_cvt_f32_f16 v10, v2",
     case184, sizeof(case184),
     {0x7bffu, 0x0u, 0x0u, 0x0u}, 0x477fe000u, 0x477fe000u},
    {"v_cvt_f32_f16 v10, v2",
     case185, sizeof(case185),
     {0xfc00u, 0x0u, 0x0u, 0x0u}, 0xff800000u, 0xff800000u},
    {"v_cvt_f32_f16 v10, v2",
     case186, sizeof(case186),
     {0x7c01u, 0x0u, 0x0u, 0x0u}, 0x7fc02000u, 0x7fc02000u},
    {"v_cvt_f32_f16 v10, v2",
     case187, sizeof(case187),
     {0x12340400u, 0x0u, 0x0u, 0x0u}, 0x38800000u, 0x38800000u},
    {"v_mov_b32 v10, v4;"
     "v_add_f16 v10, v2, v3",
     case188, sizeof(case188),
     {0x6800u, 0x3c00u, 0xabcd0000u, 0x0u}, 0xabcd6800u, 0xabcd6800u},
    {"v_add_f16 v10, v2, v3",
     case189, sizeof(case189),
     {0x1u, 0x8002u, 0x0u, 0x0u}, 0x8001u, 0x8001u},
    {"v_add_f16_e64 v10, v2, 1.0",
     case190, sizeof(case190),
     {0x3c00u, 0x0u, 0x0u, 0x0u}, 0x4000u, 0x4000u},
    {"v_mov_b32 v10, v4;"
     "v_add_f16_e32 v10.h, v2.l, v3.h",
     case191, sizeof(case191),
     {0x3c00u, 0x40000000u, 0x1111u, 0x0u}, 0x42001111u, 0x42001111u},
    {"v_mul_f16 v10, v2, v3",
     case192, sizeof(case192),
     {0x3e00u, 0x4000u, 0x0u, 0x0u}, 0x4200u, 0x4200u},
    {"v_mul_f16 v10, v2, v3",
     case193, sizeof(case193),
     {0x400u, 0x3800u, 0x0u, 0x0u}, 0x200u, 0x200u},
    {"v_mul_f16 v10, v2, v3",
     case194, sizeof(case194),
     {0x7bffu, 0x4000u, 0x0u, 0x0u}, 0x7c00u, 0x7c00u},
    {"v_fma_f16 v10, v2, v3, v4",
     case195, sizeof(case195),
     {0x3c03u, 0x3c03u, 0xbc00u, 0x0u}, 0x1e02u, 0x1e02u},
    {"v_mov_b32 v10, v4;"
     "v_fmac_f16 v10, v2, v3",
     case196, sizeof(case196),
     {0x4000u, 0x4200u, 0x12343c00u, 0x0u}, 0x12344700u, 0x12344700u},
    {"v_div_scale_f32 v10, vcc_lo, v2, v3, v2",
     case197, sizeof(case197),
     {0x3f800000u, 0x40800000u, 0x0u, 0x0u}, 0x3f800000u, 0x3f800000u},
    {"v_div_scale_f32 v11, vcc_lo, v2, v3, v2;"
     "v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case198, sizeof(case198),
     {0xd800000u, 0x4e800000u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_div_scale_f32 v10, vcc_lo, v2, v3, v2",
     case199, sizeof(case199),
     {0xd800000u, 0x4e800000u, 0x0u, 0x0u}, 0x2d800000u, 0x2d800000u},
    {"v_div_scale_f32 v10, vcc_lo, v3, v3, v2",
     case200, sizeof(case200),
     {0x7f7fffffu, 0x3f800000u, 0x0u, 0x0u}, 0x5f800000u, 0x5f800000u},
    {"v_div_scale_f32 v11, vcc_lo, v2, v3, v2;"
     "v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case201, sizeof(case201),
     {0x7f7fffffu, 0x3f800000u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_div_scale_f32 v10, vcc_lo, v2, v3, v2",
     case202, sizeof(case202),
     {0x7f7fffffu, 0x3f800000u, 0x0u, 0x0u}, 0x7f7fffffu, 0x7f7fffffu},
    {"v_div_scale_f32 v10, vcc_lo, v2, v3, v2",
     case203, sizeof(case203),
     {0x3800000u, 0x3f800000u, 0x0u, 0x0u}, 0x23800000u, 0x23800000u},
    {"v_div_scale_f32 v11, vcc_lo, v2, v3, v2;"
     "v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case204, sizeof(case204),
     {0x3800000u, 0x3f800000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_div_scale_f32 v10, vcc_lo, v2, v3, v2",
     case205, sizeof(case205),
     {0x0u, 0x3f800000u, 0x0u, 0x0u}, 0x7fc00000u, 0x7fc00000u},
    {"s_mov_b32 vcc_lo, s7;"
     "v_div_fmas_f32 v10, v2, v3, v4",
     case206, sizeof(case206),
     {0x40000000u, 0x40400000u, 0x3f800000u, 0x0u}, 0x40e00000u, 0x40e00000u},
    {"s_mov_b32 vcc_lo, s7;"
     "v_div_fmas_f32 v10, v2, v3, v4",
     case207, sizeof(case207),
     {0x3f800000u, 0x3f800000u, 0x40000000u, 0xffffffffu},
     0x60400000u, 0x60400000u},
    {"s_mov_b32 vcc_lo, s7;"
     "v_div_fmas_f32 v10, v2, v3, v4",
     case208, sizeof(case208),
     {0x40000000u, 0x40400000u, 0x3f800000u, 0xffffffffu},
     0x20e00000u, 0x20e00000u},
    {"s_mov_b32 vcc_lo, s7;"
     "v_div_fmas_f32 v10, v2, v3, v4",
     case209, sizeof(case209),
     {0x2a000040u, 0x2a000040u, 0x20000000u, 0x20u}, 0x20000001u, 0x400001u},
    /* Scaled up by 2^64 past the largest f32 (S2's exponent above 127):
     * infinity; scaled down by 2^-64 into the denormals, rounded once. */
    {"s_mov_b32 vcc_lo, s7;"
     "v_div_fmas_f32 v10, v2, v3, v4",
     case206, sizeof(case206),
     {0x71800000u, 0x3f800000u, 0x71800000u, 0xffffffffu},
     0x7f800000u, 0x7f800000u},
    {"s_mov_b32 vcc_lo, s7;"
     "v_div_fmas_f32 v10, v2, v3, v4",
     case206, sizeof(case206),
     {0x17800000u, 0x3f800000u, 0x17800000u, 0xffffffffu}, 0x40u, 0x40u},
    {"s_mov_b32 vcc_lo, s7;"
     "v_div_fmas_f32 v10, v2, v3, v4",
     case206, sizeof(case206),
     {0xd800000u, 0x3f800000u, 0xd800000u, 0xffffffffu}, 0x0u, 0x0u},
    {"v_div_fixup_f32 v10, v2, v3, v4",
     case210, sizeof(case210),
     {0x40400000u, 0xc0000000u, 0x40c00000u, 0x0u}, 0xc0400000u, 0xc0400000u},
    {"v_div_fixup_f32 v10, v2, v3, v4",
     case211, sizeof(case211),
     {0x3f800000u, 0x0u, 0xbf800000u, 0x0u}, 0xff800000u, 0xff800000u},
    {"v_div_fixup_f32 v10, v2, v3, v4",
     case212, sizeof(case212),
     {0x3f800000u, 0x0u, 0x0u, 0x0u}, 0xffc00000u, 0xffc00000u},
    {"v_div_fixup_f32 v10, v2, v3, v4",
     case213, sizeof(case213),
     {0x3f800000u, 0x3f800000u, 0x7fa00000u, 0x0u}, 0x7fe00000u, 0x7fe00000u},
    /* A quotient that overflowed the fma chain (inf - inf gave NaN, or
     * infinity) of finite nonzero operands: infinity of n / d's sign. */
    {"v_div_fixup_f32 v10, v2, v3, v4",
     case210, sizeof(case210),
     {0xffc00000u, 0x1u, 0x7f7fffffu, 0x0u}, 0x7f800000u, 0x7f800000u},
    {"v_div_fixup_f32 v10, v2, v3, v4",
     case210, sizeof(case210),
     {0x7f800000u, 0x2aa2425u, 0xff61b1e6u, 0x0u}, 0xff800000u, 0xff800000u},
    /* Exponents more than 150 apart underflow to zero of n / d's sign;
     * exactly 150 apart the quotient S0 is kept. */
    {"v_div_fixup_f32 v10, v2, v3, v4",
     case210, sizeof(case210),
     {0x3f800000u, 0x7f7fffffu, 0x80000001u, 0x0u}, 0x80000000u, 0x80000000u},
    {"v_div_fixup_f32 v10, v2, v3, v4",
     case210, sizeof(case210),
     {0x1u, 0xff000000u, 0x34000000u, 0x0u}, 0x80000001u, 0x80000001u},
    {"v_pk_add_f16 v10, v2, v3",
     case214, sizeof(case214),
     {0x40003c00u, 0x44004200u, 0x0u, 0x0u}, 0x46004400u, 0x46004400u},
    {"v_pk_add_f16 v10, v2, v3 op_sel:[1,0] op_sel_hi:[0,1] "
     "neg_lo:[1,0] neg_hi:[0,1] clamp",
     case215, sizeof(case215),
     {0x3800b400u, 0xb8004200u, 0x0u, 0x0u}, 0x34003c00u, 0x34003c00u},
    {"v_pk_add_f16 v10, v2, 1.0",
     case216, sizeof(case216),
     {0x40003c00u, 0x0u, 0x0u, 0x0u}, 0x40004000u, 0x40004000u},
    {"v_pk_mul_f16 v10, v2, v3",
     case217, sizeof(case217),
     {0x42004000u, 0x45004400u, 0x0u, 0x0u}, 0x4b804800u, 0x4b804800u},
    {"v_pk_fma_f16 v10, v2, v3, v4",
     case218, sizeof(case218),
     {0x3c033c03u, 0x3c033c03u, 0xbc00bc00u, 0x0u}, 0x1e021e02u, 0x1e021e02u},
    {"v_pk_add_u16 v10, v2, v3",
     case219, sizeof(case219),
     {0xffff0001u, 0x20003u, 0x0u, 0x0u}, 0x10004u, 0x10004u},
    {"v_pk_add_u16 v10, v2, v3 clamp",
     case220, sizeof(case220),
     {0xffff0001u, 0x20003u, 0x0u, 0x0u}, 0xffff0004u, 0xffff0004u},
    {"v_pk_add_i16 v10, v2, v3",
     case221, sizeof(case221),
     {0x7fff0005u, 0x1fffeu, 0x0u, 0x0u}, 0x80000003u, 0x80000003u},
    {"v_pk_add_i16 v10, v2, v3 clamp",
     case222, sizeof(case222),
     {0x7fff0005u, 0x1fffeu, 0x0u, 0x0u}, 0x7fff0003u, 0x7fff0003u},
    {"v_pk_mul_lo_u16 v10, v2, v3",
     case223, sizeof(case223),
     {0x1000003u, 0x1000005u, 0x0u, 0x0u}, 0xfu, 0xfu},
    {"v_pk_max_f16 v10, v2, v3",
     case224, sizeof(case224),
     {0x7e008000u, 0x3c000000u, 0x0u, 0x0u}, 0x3c000000u, 0x3c000000u},
    {"v_pk_min_f16 v10, v2, v3",
     case225, sizeof(case225),
     {0x7e008000u, 0x3c000000u, 0x0u, 0x0u}, 0x3c008000u, 0x3c008000u},
    {"v_pk_min_f16 v10, v2, v3",
     case226, sizeof(case226),
     {0x7c01c000u, 0x3c004000u, 0x0u, 0x0u}, 0x7e01c000u, 0x7e01c000u},
    {"global_store_d16_hi_b16 v1, v2, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case227, sizeof(case227),
     {0x12345678u, 0x0u, 0x0u, 0x0u}, 0xdead1234u, 0xdead1234u},
    {"global_store_b32 v1, v2, s[12:13];"
     "global_atomic_add_f32 v1, v3, s[12:13];"
     "global_load_b32 v10, v1, s[12:13]",
     case228, sizeof(case228),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0x40700000u, 0x40700000u},
    {"s_denorm_mode 0xc; v_add_f32 v10, v2, v3",
     case229, sizeof(case229),
     {0x400000u, 0x400000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"s_denorm_mode 0xc; v_add_f32 v10, v2, v3",
     case230, sizeof(case230),
     {0x80c00000u, 0x800000u, 0x0u, 0x0u}, 0x80000000u, 0x80000000u},
    {"s_denorm_mode 0xe; v_add_f32 v10, v2, v3",
     case231, sizeof(case231),
     {0xc00000u, 0x80800000u, 0x0u, 0x0u}, 0x400000u, 0x400000u},
    {"s_denorm_mode 0xe; v_add_f32 v10, v2, v3",
     case232, sizeof(case232),
     {0x400000u, 0x400000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"s_denorm_mode 0xd; v_mul_f32 v10, v2, v3",
     case233, sizeof(case233),
     {0x400000u, 0x40000000u, 0x0u, 0x0u}, 0x800000u, 0x800000u},
    {"s_denorm_mode 0xd; v_mul_f32 v10, v2, v3",
     case234, sizeof(case234),
     {0xd800000u, 0x30800000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_mul_f32 v10, v2, v3",
     case235, sizeof(case235),
     {0xd800000u, 0x30800000u, 0x0u, 0x0u}, 0x80000u, 0x80000u},
    {"s_denorm_mode 0xe; v_fma_f32 v10, v2, v3, v4",
     case236, sizeof(case236),
     {0x400000u, 0x40800000u, 0x400000u, 0x0u}, 0x0u, 0x0u},
    {"s_denorm_mode 0xd; v_fma_f32 v10, v2, v3, v4",
     case237, sizeof(case237),
     {0x400000u, 0x40800000u, 0x400000u, 0x0u}, 0x1200000u, 0x1200000u},
    {"s_denorm_mode 0xd; v_fma_f32 v10, v2, v3, v4",
     case238, sizeof(case238),
     {0xc00000u, 0x3f800000u, 0x80800000u, 0x0u}, 0x0u, 0x0u},
    {"s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s7; v_add_f32 v10, v2, v3",
     case239, sizeof(case239),
     {0x400000u, 0x400000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"s_denorm_mode 0x0;"
     "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 0xf;"
     "v_add_f32 v10, v2, v3",
     case240, sizeof(case240),
     {0x400000u, 0x400000u, 0x0u, 0x0u}, 0x800000u, 0x800000u},
    {"s_getreg_b32 s20, hwreg(HW_REG_MODE, 0, 10); v_mov_b32 v10, s20",
     case241, sizeof(case241),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x3f0u, 0x3f0u},
    {"s_denorm_mode 0x3; v_add_f16 v10, v2, v3",
     case242, sizeof(case242),
     {0x200u, 0x200u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"s_denorm_mode 0x3; v_add_f16 v10, v2, v3",
     case243, sizeof(case243),
     {0x8600u, 0x400u, 0x0u, 0x0u}, 0x8000u, 0x8000u},
    {"s_denorm_mode 0xb; v_pk_add_f16 v10, v2, v3",
     case244, sizeof(case244),
     {0x2000600u, 0x2008400u, 0x0u, 0x0u}, 0x200u, 0x200u},
    {"v_pk_add_f16 v10, v2, v3",
     case245, sizeof(case245),
     {0x2000600u, 0x2008400u, 0x0u, 0x0u}, 0x4000200u, 0x4000200u},
    {"s_denorm_mode 0x3; v_cvt_f32_f16 v10, v2",
     case246, sizeof(case246),
     {0x200u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"s_denorm_mode 0xc; s_mul_f32 s20, s4, s5; v_mov_b32 v10, s20",
     case247, sizeof(case247),
     {0x400000u, 0x40000000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"s_denorm_mode 0xc; v_max_f32 v10, v2, v3",
     case248, sizeof(case248),
     {0x400000u, 0x80000000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_min_f32 v10, v2, v3",
     case249, sizeof(case249),
     {0x80000000u, 0x0u, 0x0u, 0x0u}, 0x80000000u, 0x80000000u},
    {"v_min_f32 v10, v2, v3",
     case250, sizeof(case250),
     {0x0u, 0x80000000u, 0x0u, 0x0u}, 0x80000000u, 0x80000000u},
    {"v_max_f32 v10, v2, v3",
     case251, sizeof(case251),
     {0x80000000u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_max_f32 v10, v2, v3",
     case252, sizeof(case252),
     {0x0u, 0x80000000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_min_f32 v10, v2, v3",
     case253, sizeof(case253),
     {0x7fc00001u, 0x3f800000u, 0x0u, 0x0u}, 0x3f800000u, 0x3f800000u},
    {"v_max_f32 v10, v2, v3",
     case254, sizeof(case254),
     {0x3f800000u, 0xffc00000u, 0x0u, 0x0u}, 0x3f800000u, 0x3f800000u},
    {"v_min_f32 v10, v2, v3",
     case255, sizeof(case255),
     {0x7f800001u, 0x3f800000u, 0x0u, 0x0u}, 0x7fc00001u, 0x7fc00001u},
    {"v_max_f32 v10, v2, v3",
     case256, sizeof(case256),
     {0x3f800000u, 0xff800002u, 0x0u, 0x0u}, 0xffc00002u, 0xffc00002u},
    {"v_med3_f32 v10, v2, v3, v4",
     case257, sizeof(case257),
     {0x7f800001u, 0x3f800000u, 0x40000000u, 0x0u}, 0x40000000u, 0x40000000u},
    {"v_med3_f32 v10, v2, v3, v4",
     case258, sizeof(case258),
     {0x80000000u, 0x0u, 0x3f800000u, 0x0u}, 0x0u, 0x0u},
    {"v_pk_sub_i16 v10, v2, v3",
     case259, sizeof(case259),
     {0x80000005u, 0x10007u, 0x0u, 0x0u}, 0x7ffffffeu, 0x7ffffffeu},
    {"v_pk_sub_i16 v10, v2, v3 clamp",
     case260, sizeof(case260),
     {0x80000005u, 0x10007u, 0x0u, 0x0u}, 0x8000fffeu, 0x8000fffeu},
    {"v_pk_sub_u16 v10, v2, v3",
     case261, sizeof(case261),
     {0x50003u, 0x20007u, 0x0u, 0x0u}, 0x3fffcu, 0x3fffcu},
    {"v_pk_sub_u16 v10, v2, v3 clamp",
     case262, sizeof(case262),
     {0x50003u, 0x20007u, 0x0u, 0x0u}, 0x30000u, 0x30000u},
    {"v_pk_lshlrev_b16 v10, v2, v3",
     case263, sizeof(case263),
     {0x110003u, 0x80010001u, 0x0u, 0x0u}, 0x20008u, 0x20008u},
    {"v_pk_lshrrev_b16 v10, v2, v3",
     case264, sizeof(case264),
     {0xf0004u, 0x8000f000u, 0x0u, 0x0u}, 0x10f00u, 0x10f00u},
    {"v_pk_ashrrev_i16 v10, v2, v3",
     case265, sizeof(case265),
     {0xf0004u, 0x8000f000u, 0x0u, 0x0u}, 0xffffff00u, 0xffffff00u},
    {"v_pk_max_i16 v10, v2, v3",
     case266, sizeof(case266),
     {0x8000ffffu, 0x10001u, 0x0u, 0x0u}, 0x10001u, 0x10001u},
    {"v_pk_min_i16 v10, v2, v3",
     case267, sizeof(case267),
     {0x8000ffffu, 0x10001u, 0x0u, 0x0u}, 0x8000ffffu, 0x8000ffffu},
    {"v_pk_max_u16 v10, v2, v3",
     case268, sizeof(case268),
     {0x8000ffffu, 0x10001u, 0x0u, 0x0u}, 0x8000ffffu, 0x8000ffffu},
    {"v_pk_min_u16 v10, v2, v3",
     case269, sizeof(case269),
     {0x8000ffffu, 0x10001u, 0x0u, 0x0u}, 0x10001u, 0x10001u},
    {"v_cmp_f_f16_e64 s20, v2, v3; v_cndmask_b32_e64 v10, 0, 1, s20",
     case270, sizeof(case270),
     {0x3c00u, 0x4000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_lt_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case271, sizeof(case271),
     {0x3c00u, 0x4000u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_eq_f16_e64 s20, -|v2|, v3; v_cndmask_b32_e64 v10, 0, 1, s20",
     case272, sizeof(case272),
     {0x3c00u, 0xbc00u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_le_f16_e64 s20, v2, 1.0; v_cndmask_b32_e64 v10, 0, 1, s20",
     case273, sizeof(case273),
     {0x3c00u, 0x0u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_gt_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case274, sizeof(case274),
     {0x8000u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_lg_f16_e64 s20, v2, v3; v_cndmask_b32_e64 v10, 0, 1, s20",
     case275, sizeof(case275),
     {0x3c00u, 0x7e00u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_ge_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case276, sizeof(case276),
     {0x4000u, 0x3c00u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_o_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case277, sizeof(case277),
     {0x3c00u, 0x7e00u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_u_f16_e64 s20, v2, v3; v_cndmask_b32_e64 v10, 0, 1, s20",
     case278, sizeof(case278),
     {0x7e00u, 0x3c00u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_nge_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case279, sizeof(case279),
     {0x3c00u, 0x7e00u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_nlg_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case280, sizeof(case280),
     {0x3c00u, 0x3c00u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_ngt_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case281, sizeof(case281),
     {0x4000u, 0x3c00u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_nle_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case282, sizeof(case282),
     {0x4000u, 0x3c00u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_neq_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case283, sizeof(case283),
     {0x3c00u, 0x4000u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_nlt_f16_e64 s20, v2, v3; v_cndmask_b32_e64 v10, 0, 1, s20",
     case284, sizeof(case284),
     {0x3c00u, 0x4000u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_t_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case285, sizeof(case285),
     {0x3c00u, 0x4000u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmpx_gt_f16 v2, v3; v_mov_b32 v10, exec_lo",
     case286, sizeof(case286),
     {0x4000u, 0x3c00u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"v_minmax_f32 v10, v2, v3, v4",
     case287, sizeof(case287),
     {0x40a00000u, 0x3f800000u, 0x40000000u, 0x0u}, 0x40000000u, 0x40000000u},
    {"v_minmax_f32 v10, v2, v3, v4",
     case288, sizeof(case288),
     {0x3f800000u, 0x40400000u, 0x7fc00000u, 0x0u}, 0x3f800000u, 0x3f800000u},    /* s_ctz_i32_b64: the lowest set bit of the pair (bit 36), -1 for 0. */
    {"s_ctz_i32_b64 s20, s[4:5]; v_mov_b32 v10, s20",
     case289, sizeof(case289),
     {0x0u, 0x10u, 0x0u, 0x0u}, 0x24u, 0x24u},
    {"s_ctz_i32_b64 s20, s[4:5]; v_mov_b32 v10, s20",
     case289, sizeof(case289),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    /* -7 to -7.0; 2^24 + 1 ties between 2^24 and 2^24 + 2 and rounds to
     * the even mantissa (2^24); mul:2 doubles the result. */
    {"v_cvt_f32_i32 v10, v2",
     case290, sizeof(case290),
     {0xfffffff9u, 0x0u, 0x0u, 0x0u}, 0xc0e00000u, 0xc0e00000u},
    {"v_cvt_f32_i32 v10, v2",
     case290, sizeof(case290),
     {0x01000001u, 0x0u, 0x0u, 0x0u}, 0x4b800000u, 0x4b800000u},
    {"v_cvt_f32_i32_e64 v10, v2 mul:2",
     case291, sizeof(case291),
     {0xfffffff9u, 0x0u, 0x0u, 0x0u}, 0xc1600000u, 0xc1600000u},
    /* Ties to even: 2.5 to 2, 3.5 to 4, -2.5 to -2; -(1.5) to -2. */
    {"v_rndne_f32 v10, v2",
     case292, sizeof(case292),
     {0x40200000u, 0x0u, 0x0u, 0x0u}, 0x40000000u, 0x40000000u},
    {"v_rndne_f32 v10, v2",
     case292, sizeof(case292),
     {0x40600000u, 0x0u, 0x0u, 0x0u}, 0x40800000u, 0x40800000u},
    {"v_rndne_f32 v10, v2",
     case292, sizeof(case292),
     {0xc0200000u, 0x0u, 0x0u, 0x0u}, 0xc0000000u, 0xc0000000u},
    {"v_rndne_f32_e64 v10, -v2",
     case293, sizeof(case293),
     {0x3fc00000u, 0x0u, 0x0u, 0x0u}, 0xc0000000u, 0xc0000000u},
    /* fmamk: 2 * K(3) + 1 = 7; fmaak: 2 * 1 + K(3) = 5; a literal src0
     * shares K's word: 3 * 3 + 1 = 10. */
    {"v_fmamk_f32 v10, v2, 0x40400000, v3",
     case294, sizeof(case294),
     {0x40000000u, 0x3f800000u, 0x0u, 0x0u}, 0x40e00000u, 0x40e00000u},
    {"v_fmaak_f32 v10, v2, v3, 0x40400000",
     case295, sizeof(case295),
     {0x40000000u, 0x3f800000u, 0x0u, 0x0u}, 0x40a00000u, 0x40a00000u},
    {"v_fmamk_f32 v10, 0x40400000, 0x40400000, v3",
     case296, sizeof(case296),
     {0x0u, 0x3f800000u, 0x0u, 0x0u}, 0x41200000u, 0x41200000u},
    /* One rounding: (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24 exactly
     * (0x3a000400); rounding the product first would give 2^-11. */
    {"v_fmamk_f32 v10, v2, 0x3f800800, v3",
     case297, sizeof(case297),
     {0x3f800800u, 0xbf800000u, 0x0u, 0x0u}, 0x3a000400u, 0x3a000400u},
    /* Signed: max(-16, 5, -1) = 5; max(INT_MIN, -2, -3) = -2; with the
     * lane id, max(-3, lane, -1) = lane. */
    /* Three-operand selections: f32 by the IEEE min/max rules (a quiet
     * NaN yields to a number), integers signed or unsigned. */
    {"v_min3_f32 v10, v2, v3, v4",
     case303, sizeof(case303),
     {0x40400000u, 0xbf800000u, 0x3f800000u, 0x0u}, 0xbf800000u, 0xbf800000u},
    {"v_min3_f32 v10, v2, v3, v4",
     case303, sizeof(case303),
     {0x7fc00000u, 0x40000000u, 0x40400000u, 0x0u}, 0x40000000u, 0x40000000u},
    {"v_max3_f32 v10, v2, v3, v4",
     case304, sizeof(case304),
     {0x40400000u, 0xbf800000u, 0x40a00000u, 0x0u}, 0x40a00000u, 0x40a00000u},
    {"v_max3_f32 v10, v2, v3, v4",
     case304, sizeof(case304),
     {0x80000000u, 0x00000000u, 0xbf800000u, 0x0u}, 0x00000000u, 0x00000000u},
    {"v_min3_i32 v10, v2, v3, v4",
     case305, sizeof(case305),
     {0x5u, 0xfffffff0u, 0x7u, 0x0u}, 0xfffffff0u, 0xfffffff0u},
    {"v_min3_u32 v10, v2, v3, v4",
     case306, sizeof(case306),
     {0x5u, 0xfffffff0u, 0x7u, 0x0u}, 0x5u, 0x5u},
    {"v_max3_u32 v10, v2, v3, v4",
     case307, sizeof(case307),
     {0x5u, 0xfffffff0u, 0x7u, 0x0u}, 0xfffffff0u, 0xfffffff0u},
    {"v_med3_i32 v10, v2, v3, v4",
     case308, sizeof(case308),
     {0x5u, 0xfffffff0u, 0x7u, 0x0u}, 0x5u, 0x5u},
    {"v_med3_u32 v10, v2, v3, v4",
     case309, sizeof(case309),
     {0x5u, 0xfffffff0u, 0x7u, 0x0u}, 0x7u, 0x7u},
    {"v_max_i32 v10, v2, v3",
     case310, sizeof(case310),
     {0xfffffff0u, 0x3u, 0x0u, 0x0u}, 0x3u, 0x3u},
    {"v_min_i32 v10, v2, v3",
     case311, sizeof(case311),
     {0xfffffff0u, 0x3u, 0x0u, 0x0u}, 0xfffffff0u, 0xfffffff0u},
    {"v_max3_i32 v10, v2, v3, v4",
     case298, sizeof(case298),
     {0xfffffff0u, 0x5u, 0xffffffffu, 0x0u}, 0x5u, 0x5u},
    {"v_max3_i32 v10, v2, v3, v4",
     case298, sizeof(case298),
     {0x80000000u, 0xfffffffeu, 0xfffffffdu, 0x0u}, 0xfffffffeu, 0xfffffffeu},
    {"v_max3_i32 v10, v2, v5, -1",
     case299, sizeof(case299),
     {0xfffffffdu, 0x0u, 0x0u, 0x0u}, 0x0u, 0x5u},
    /* A literal 64-bit source is zero-extended: 0x80000001 << lane has
     * high word 0 in lane 0 and 0x10 in lane 5, low word 0x80000001 and
     * 0x20. A literal shift amount uses its low 6 bits (0x41: 1). */
    {"v_lshlrev_b64 v[10:11], v5, 0x80000001; v_mov_b32 v10, v11",
     case300, sizeof(case300),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x10u},
    {"v_lshlrev_b64 v[10:11], v5, 0x80000001",
     case301, sizeof(case301),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x80000001u, 0x20u},
    {"v_lshlrev_b64 v[10:11], 0x41, v[5:6]",
     case302, sizeof(case302),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0xau},
    /* v_cmp_class: S1 bit 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal,
     * 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf; abs/neg apply to S0. */
    {"v_cmp_class_f32_e64 s20, v2, v3; v_cndmask_b32_e64 v10, 0, 1, s20",
     case312, sizeof(case312),
     {0xff800000u, 0x4u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_class_f32_e64 s20, v2, v3; v_cndmask_b32_e64 v10, 0, 1, s20",
     case312, sizeof(case312),
     {0xff800000u, 0x200u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_class_f32_e64 s20, |v2|, v3; v_cndmask_b32_e64 v10, 0, 1, s20",
     case313, sizeof(case313),
     {0xff800000u, 0x200u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_class_f32 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case314, sizeof(case314),
     {0x1u, 0x80u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_class_f32 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case314, sizeof(case314),
     {0x7fc00000u, 0x2u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_class_f32 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case314, sizeof(case314),
     {0x7f800001u, 0x2u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cmp_class_f32 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case314, sizeof(case314),
     {0x7f800001u, 0x1u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_class_f32 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case314, sizeof(case314),
     {0xbf800000u, 0x8u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmpx_class_f32 v2, v3; v_mov_b32 v10, exec_lo",
     case315, sizeof(case315),
     {0x80000000u, 0x20u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    /* No lane in the class: EXEC is 0 and nothing is stored. */
    {"v_cmpx_class_f32 v2, v3; v_mov_b32 v10, exec_lo",
     case315, sizeof(case315),
     {0x80000000u, 0x40u, 0x0u, 0x0u}, 0xdeadbeefu, 0xdeadbeefu},
    {"v_cmp_class_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case316, sizeof(case316),
     {0xfc00u, 0x4u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_class_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case316, sizeof(case316),
     {0x1u, 0x80u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_cmp_class_f16 vcc_lo, v2, v3; v_cndmask_b32_e64 v10, 0, 1, vcc_lo",
     case316, sizeof(case316),
     {0x3c00u, 0x80u, 0x0u, 0x0u}, 0x0u, 0x0u},
    /* f32 to i32 truncates; NaN gives 0; out of range saturates. */
    {"v_cvt_i32_f32 v10, v2",
     case317, sizeof(case317),
     {0xc0fccccdu, 0x0u, 0x0u, 0x0u}, 0xfffffff9u, 0xfffffff9u},
    {"v_cvt_i32_f32 v10, v2",
     case317, sizeof(case317),
     {0x4f32d05eu, 0x0u, 0x0u, 0x0u}, 0x7fffffffu, 0x7fffffffu},
    {"v_cvt_i32_f32 v10, v2",
     case317, sizeof(case317),
     {0xcf32d05eu, 0x0u, 0x0u, 0x0u}, 0x80000000u, 0x80000000u},
    {"v_cvt_i32_f32 v10, v2",
     case317, sizeof(case317),
     {0x7fc00000u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_cvt_i32_f32_e64 v10, -v2",
     case318, sizeof(case318),
     {0x40200000u, 0x0u, 0x0u, 0x0u}, 0xfffffffeu, 0xfffffffeu},
    /* ldexp: 1.5 * 2^3 = 12; 1 * 2^-126 the least normal; -3 * 2^2;
     * 2^200 overflows to +inf; 2^-149 is the least denormal (kept). */
    {"v_ldexp_f32 v10, v2, v3",
     case319, sizeof(case319),
     {0x3fc00000u, 0x3u, 0x0u, 0x0u}, 0x41400000u, 0x41400000u},
    {"v_ldexp_f32 v10, v2, v3",
     case319, sizeof(case319),
     {0x3f800000u, 0xffffff82u, 0x0u, 0x0u}, 0x800000u, 0x800000u},
    {"v_ldexp_f32 v10, v2, v3",
     case319, sizeof(case319),
     {0xc0400000u, 0x2u, 0x0u, 0x0u}, 0xc1400000u, 0xc1400000u},
    {"v_ldexp_f32 v10, v2, v3",
     case319, sizeof(case319),
     {0x3f800000u, 0xc8u, 0x0u, 0x0u}, 0x7f800000u, 0x7f800000u},
    {"v_ldexp_f32 v10, v2, v3",
     case319, sizeof(case319),
     {0x3f800000u, 0xffffff6bu, 0x0u, 0x0u}, 0x1u, 0x1u},
    /* v_perm_b32 picks bytes of {S0, S1} (S0 high): 0-7 a byte, 8-11
     * the sign of bytes 1/3/5/7, 12 zero, 13+ 0xff. */
    {"v_perm_b32 v10, v2, v3, v4",
     case320, sizeof(case320),
     {0x88776655u, 0x44332211u, 0x7000104u, 0x0u}, 0x88112255u, 0x88112255u},
    {"v_perm_b32 v10, v2, v3, v4",
     case320, sizeof(case320),
     {0x88776655u, 0x44332211u, 0xc0d0b08u, 0x0u}, 0xffff00u, 0xffff00u},
    /* Scalar bit counts: -1 when no bit is set. */
    {"s_ctz_i32_b32 s20, s4; v_mov_b32 v10, s20",
     case321, sizeof(case321),
     {0x100u, 0x0u, 0x0u, 0x0u}, 0x8u, 0x8u},
    {"s_ctz_i32_b32 s20, s4; v_mov_b32 v10, s20",
     case321, sizeof(case321),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"s_clz_i32_u32 s20, s4; v_mov_b32 v10, s20",
     case322, sizeof(case322),
     {0x10000u, 0x0u, 0x0u, 0x0u}, 0xfu, 0xfu},
    {"s_clz_i32_u32 s20, s4; v_mov_b32 v10, s20",
     case322, sizeof(case322),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    /* s_bcnt1_i32_b32 sets SCC when the count is not 0: 8 + 1. */
    {"s_bcnt1_i32_b32 s20, s4; s_cselect_b32 s21, 1, 0; "
     "s_add_u32 s20, s20, s21; v_mov_b32 v10, s20",
     case323, sizeof(case323),
     {0xf0f0u, 0x0u, 0x0u, 0x0u}, 0x9u, 0x9u},
    {"s_brev_b32 s20, s4; v_mov_b32 v10, s20",
     case324, sizeof(case324),
     {0x12345678u, 0x0u, 0x0u, 0x0u}, 0x1e6a2c48u, 0x1e6a2c48u},
    {"s_cvt_f32_i32 s20, s4; v_mov_b32 v10, s20",
     case325, sizeof(case325),
     {0xfffffff9u, 0x0u, 0x0u, 0x0u}, 0xc0e00000u, 0xc0e00000u},
    {"s_cvt_i32_f32 s20, s4; v_mov_b32 v10, s20",
     case326, sizeof(case326),
     {0xc0fccccdu, 0x0u, 0x0u, 0x0u}, 0xfffffff9u, 0xfffffff9u},
    /* SALU float: 1.5 + 2.25, 1.5 - 2.25; min/max by the IEEE rules. */
    {"s_add_f32 s20, s4, s5; v_mov_b32 v10, s20",
     case327, sizeof(case327),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0x40700000u, 0x40700000u},
    {"s_sub_f32 s20, s4, s5; v_mov_b32 v10, s20",
     case328, sizeof(case328),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0xbf400000u, 0xbf400000u},
    {"s_min_f32 s20, s4, s5; v_mov_b32 v10, s20",
     case329, sizeof(case329),
     {0x7fc00000u, 0x40000000u, 0x0u, 0x0u}, 0x40000000u, 0x40000000u},
    {"s_max_f32 s20, s4, s5; v_mov_b32 v10, s20",
     case330, sizeof(case330),
     {0xbf800000u, 0x40000000u, 0x0u, 0x0u}, 0x40000000u, 0x40000000u},
    /* cmpswap: DATA[0] replaces the word when it equals DATA[1]; the
     * slot starts as 0xdeadbeef; glc returns the old word. */
    {"global_atomic_cmpswap_b32 v10, v1, v[2:3], s[12:13] glc",
     case331, sizeof(case331),
     {0x1234u, 0xdeadbeefu, 0x0u, 0x0u}, 0xdeadbeefu, 0xdeadbeefu},
    {"global_atomic_cmpswap_b32 v1, v[2:3], s[12:13]; "
     "global_load_b32 v10, v1, s[12:13]",
     case332, sizeof(case332),
     {0x1234u, 0xdeadbeefu, 0x0u, 0x0u}, 0x1234u, 0x1234u},
    {"global_atomic_cmpswap_b32 v1, v[2:3], s[12:13]; "
     "global_load_b32 v10, v1, s[12:13]",
     case332, sizeof(case332),
     {0x1234u, 0x0u, 0x0u, 0x0u}, 0xdeadbeefu, 0xdeadbeefu},
    /* Float atomics against 0xdeadbeef (about -6.3e18). */
    {"global_atomic_max_f32 v1, v2, s[12:13]; "
     "global_load_b32 v10, v1, s[12:13]",
     case333, sizeof(case333),
     {0x3f800000u, 0x0u, 0x0u, 0x0u}, 0x3f800000u, 0x3f800000u},
    {"global_atomic_min_f32 v10, v1, v2, s[12:13] glc",
     case334, sizeof(case334),
     {0xff800000u, 0x0u, 0x0u, 0x0u}, 0xdeadbeefu, 0xdeadbeefu},
    {"global_atomic_min_f32 v1, v2, s[12:13]; "
     "global_load_b32 v10, v1, s[12:13]",
     case335, sizeof(case335),
     {0xff800000u, 0x0u, 0x0u, 0x0u}, 0xff800000u, 0xff800000u},
    {"global_atomic_min_f32 v1, v2, s[12:13]; "
     "global_load_b32 v10, v1, s[12:13]",
     case335, sizeof(case335),
     {0x7fc00000u, 0x0u, 0x0u, 0x0u}, 0xdeadbeefu, 0xdeadbeefu},
    /* LDS float atomics and cmpstore (DATA0 stored when the word equals
     * DATA1). */
    {"ds_store_b32 v1, v2; ds_max_rtn_f32 v10, v1, v3",
     case336, sizeof(case336),
     {0x3f800000u, 0x40000000u, 0x0u, 0x0u}, 0x3f800000u, 0x3f800000u},
    {"ds_store_b32 v1, v2; ds_max_f32 v1, v3; ds_load_b32 v10, v1",
     case337, sizeof(case337),
     {0x3f800000u, 0x40000000u, 0x0u, 0x0u}, 0x40000000u, 0x40000000u},
    {"ds_store_b32 v1, v2; ds_min_f32 v1, v3; ds_load_b32 v10, v1",
     case338, sizeof(case338),
     {0x7fc00000u, 0x40400000u, 0x0u, 0x0u}, 0x40400000u, 0x40400000u},
    {"ds_store_b32 v1, v2; ds_min_rtn_f32 v10, v1, v3; ds_load_b32 v10, v1",
     case339, sizeof(case339),
     {0x3f800000u, 0xc0000000u, 0x0u, 0x0u}, 0xc0000000u, 0xc0000000u},
    {"ds_store_b32 v1, v2; ds_add_f32 v1, v3; ds_load_b32 v10, v1",
     case340, sizeof(case340),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0x40700000u, 0x40700000u},
    {"ds_store_b32 v1, v2; ds_add_rtn_f32 v10, v1, v3",
     case341, sizeof(case341),
     {0x3fc00000u, 0x40100000u, 0x0u, 0x0u}, 0x3fc00000u, 0x3fc00000u},
    {"ds_store_b32 v1, v2; ds_cmpstore_b32 v1, v3, v4; ds_load_b32 v10, v1",
     case342, sizeof(case342),
     {0x5u, 0x9u, 0x5u, 0x0u}, 0x9u, 0x9u},
    {"ds_store_b32 v1, v2; ds_cmpstore_b32 v1, v3, v4; ds_load_b32 v10, v1",
     case342, sizeof(case342),
     {0x5u, 0x9u, 0x6u, 0x0u}, 0x5u, 0x5u},
    {"ds_store_b32 v1, v2; ds_cmpstore_rtn_b32 v10, v1, v3, v4",
     case343, sizeof(case343),
     {0x5u, 0x9u, 0x5u, 0x0u}, 0x5u, 0x5u},
    /* VOPD fmamk/fmaak carry K as the literal, in either half: 2 * 3 +
     * 1 and 2 * 1 + 3; subrev: 1 - 2; the other half still writes. */
    {"v_dual_fmamk_f32 v10, v2, 0x40400000, v3 :: v_dual_mov_b32 v11, v4",
     case344, sizeof(case344),
     {0x40000000u, 0x3f800000u, 0x0u, 0x0u}, 0x40e00000u, 0x40e00000u},
    {"v_dual_mov_b32 v11, v4 :: v_dual_fmamk_f32 v10, v2, 0x40400000, v3",
     case345, sizeof(case345),
     {0x40000000u, 0x3f800000u, 0x0u, 0x0u}, 0x40e00000u, 0x40e00000u},
    {"v_dual_fmaak_f32 v10, v2, v3, 0x40400000 :: v_dual_mov_b32 v11, v4",
     case346, sizeof(case346),
     {0x40000000u, 0x3f800000u, 0x0u, 0x0u}, 0x40a00000u, 0x40a00000u},
    {"v_dual_fmamk_f32 v10, v2, 0x40400000, v3 :: v_dual_mov_b32 v11, v4; "
     "v_mov_b32 v10, v11",
     case347, sizeof(case347),
     {0x40000000u, 0x3f800000u, 0x1234u, 0x0u}, 0x1234u, 0x1234u},
    {"v_dual_subrev_f32 v10, v2, v3 :: v_dual_mov_b32 v11, v4",
     case348, sizeof(case348),
     {0x40000000u, 0x3f800000u, 0x0u, 0x0u}, 0xbf800000u, 0xbf800000u},
    {"v_subrev_f32 v10, v2, v3",
     case349, sizeof(case349),
     {0x40000000u, 0x3f800000u, 0x0u, 0x0u}, 0xbf800000u, 0xbf800000u},
    /* trunc -2.7, ceil 2.1 and -0.5 (to -0). */
    {"v_trunc_f32 v10, v2",
     case350, sizeof(case350),
     {0xc02ccccdu, 0x0u, 0x0u, 0x0u}, 0xc0000000u, 0xc0000000u},
    {"v_ceil_f32 v10, v2",
     case351, sizeof(case351),
     {0x40066666u, 0x0u, 0x0u, 0x0u}, 0x40400000u, 0x40400000u},
    {"v_ceil_f32 v10, v2",
     case351, sizeof(case351),
     {0xbf000000u, 0x0u, 0x0u, 0x0u}, 0x80000000u, 0x80000000u},
    /* Integer bit manipulation. */
    {"v_not_b32 v10, v2",
     case352, sizeof(case352),
     {0xf0f0f0fu, 0x0u, 0x0u, 0x0u}, 0xf0f0f0f0u, 0xf0f0f0f0u},
    {"v_bfrev_b32 v10, v2",
     case353, sizeof(case353),
     {0x1u, 0x0u, 0x0u, 0x0u}, 0x80000000u, 0x80000000u},
    {"v_clz_i32_u32 v10, v2",
     case354, sizeof(case354),
     {0x10000u, 0x0u, 0x0u, 0x0u}, 0xfu, 0xfu},
    {"v_clz_i32_u32 v10, v2",
     case354, sizeof(case354),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"v_ctz_i32_b32 v10, v2",
     case355, sizeof(case355),
     {0x100u, 0x0u, 0x0u, 0x0u}, 0x8u, 0x8u},
    {"v_ctz_i32_b32 v10, v2",
     case355, sizeof(case355),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"v_bcnt_u32_b32 v10, v2, v3",
     case356, sizeof(case356),
     {0xffu, 0x3u, 0x0u, 0x0u}, 0xbu, 0xbu},
    {"v_xor3_b32 v10, v2, v3, v4",
     case357, sizeof(case357),
     {0x5u, 0x5u, 0x3u, 0x0u}, 0x3u, 0x3u},
    {"v_or3_b32 v10, v2, v3, v4",
     case358, sizeof(case358),
     {0x1u, 0x2u, 0x4u, 0x0u}, 0x7u, 0x7u},
    {"v_and_or_b32 v10, v2, v3, v4",
     case359, sizeof(case359),
     {0xff00u, 0xff0u, 0x1u, 0x0u}, 0xf01u, 0xf01u},
    {"v_lshl_or_b32 v10, v2, v3, v4",
     case360, sizeof(case360),
     {0x1u, 0x4u, 0x3u, 0x0u}, 0x13u, 0x13u},
    {"v_xad_u32 v10, v2, v3, v4",
     case361, sizeof(case361),
     {0x5u, 0x3u, 0xau, 0x0u}, 0x10u, 0x10u},
    {"v_bfi_b32 v10, v2, v3, v4",
     case362, sizeof(case362),
     {0xffff0000u, 0x12345678u, 0xabcdef01u, 0x0u}, 0x1234ef01u, 0x1234ef01u},
    {"v_alignbit_b32 v10, v2, v3, v4",
     case363, sizeof(case363),
     {0x12345678u, 0x9abcdef0u, 0x8u, 0x0u}, 0x789abcdeu, 0x789abcdeu},
    {"v_bfe_i32 v10, v2, v3, v4",
     case364, sizeof(case364),
     {0xf00u, 0x8u, 0x4u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"v_bfe_i32 v10, v2, v3, v4",
     case364, sizeof(case364),
     {0x700u, 0x8u, 0x4u, 0x0u}, 0x7u, 0x7u},
    {"v_bfe_i32 v10, v2, v3, v4",
     case364, sizeof(case364),
     {0xf00u, 0x8u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_mul_hi_i32 v10, v2, v3",
     case365, sizeof(case365),
     {0xfffffffeu, 0x3u, 0x0u, 0x0u}, 0xffffffffu, 0xffffffffu},
    {"v_mul_hi_i32 v10, v2, v3",
     case365, sizeof(case365),
     {0x40000000u, 0x4u, 0x0u, 0x0u}, 0x1u, 0x1u},
    {"v_mul_u32_u24 v10, v2, v3",
     case366, sizeof(case366),
     {0x1000003u, 0x5u, 0x0u, 0x0u}, 0xfu, 0xfu},
    {"v_mul_i32_i24 v10, v2, v3",
     case367, sizeof(case367),
     {0xfffffeu, 0x3u, 0x0u, 0x0u}, 0xfffffffau, 0xfffffffau},
    /* 64-bit right shifts by the lane id: logical, then arithmetic. */
    {"v_lshrrev_b64 v[10:11], v5, v[2:3]",
     case368, sizeof(case368),
     {0x80000000u, 0x1u, 0x0u, 0x0u}, 0x80000000u, 0xc000000u},
    {"v_ashrrev_i64 v[10:11], v5, v[2:3]; v_mov_b32 v10, v11",
     case369, sizeof(case369),
     {0x0u, 0x80000000u, 0x0u, 0x0u}, 0x80000000u, 0xfc000000u},
    /* s_fmac_f32: S0 * S1 + D with one rounding (2 * 3 + 1; (1 + 2^-12)^2
     * - 1 = 2^-11 + 2^-24 exactly; a literal S0). */
    {"s_mov_b32 s20, s6; s_fmac_f32 s20, s4, s5; v_mov_b32 v10, s20",
     case370, sizeof(case370),
     {0x40000000u, 0x40400000u, 0x3f800000u, 0x0u}, 0x40e00000u, 0x40e00000u},
    {"s_mov_b32 s20, s6; s_fmac_f32 s20, s4, s5; v_mov_b32 v10, s20",
     case370, sizeof(case370),
     {0x3f800800u, 0x3f800800u, 0xbf800000u, 0x0u}, 0x3a000400u, 0x3a000400u},
    {"s_mov_b32 s20, s6; s_fmac_f32 s20, 0x40400000, s5; v_mov_b32 v10, s20",
     case371, sizeof(case371),
     {0x0u, 0x40000000u, 0x3f800000u, 0x0u}, 0x40e00000u, 0x40e00000u},
    {"v_wmma_f32_16x16x16_f16 of ones by twos onto v2 = 1.5",
     case372, sizeof(case372),
     {0x3fc00000u, 0x0u, 0x0u, 0x0u}, 0x42060000u, 0x42060000u},
    {"v_wmma_f32_16x16x16_bf16 of ones by twos onto v2 = 1.5",
     case373, sizeof(case373),
     {0x3fc00000u, 0x0u, 0x0u, 0x0u}, 0x42060000u, 0x42060000u},
    /* 16-bit accumulators: op_sel[2] picks the half of C read and of D
     * written, the other half of D kept; the f32 sum rounds once to
     * nearest even (1 + 2^-10 + 32 is 33 in f16). */
    {"v_wmma_f16_16x16x16_f16 of ones by twos onto the low half 1.5",
     case374, sizeof(case374),
     {0x77773e00u, 0x0u, 0x0u, 0x0u}, 0x77775030u, 0x77775030u},
    {"v_wmma_f16_16x16x16_f16 of ones by twos onto the low half 1 + 2^-10",
     case374, sizeof(case374),
     {0x77773c01u, 0x0u, 0x0u, 0x0u}, 0x77775020u, 0x77775020u},
    {"v_wmma_f16_16x16x16_f16 op_sel:[0,0,1] onto the high half 1.5",
     case375, sizeof(case375),
     {0x3e001234u, 0x0u, 0x0u, 0x0u}, 0x50301234u, 0x50301234u},
    {"v_wmma_bf16_16x16x16_bf16 op_sel:[0,0,1] onto the high half 1.5",
     case376, sizeof(case376),
     {0x3fc01234u, 0x0u, 0x0u, 0x0u}, 0x42061234u, 0x42061234u},
    /* Integer forms: neg_lo says which sources are signed; the sum wraps,
     * or saturates with clamp. */
    {"v_wmma_i32_16x16x16_iu8 signed -1 by -2 onto 100",
     case377, sizeof(case377),
     {0x64u, 0x0u, 0x0u, 0x0u}, 0x84u, 0x84u},
    {"v_wmma_i32_16x16x16_iu8 signed -1 by unsigned 254 onto INT32_MIN",
     case378, sizeof(case378),
     {0x80000000u, 0x0u, 0x0u, 0x0u}, 0x7ffff020u, 0x7ffff020u},
    {"v_wmma_i32_16x16x16_iu8 clamp: -1 by 254 onto INT32_MIN",
     case379, sizeof(case379),
     {0x80000000u, 0x0u, 0x0u, 0x0u}, 0x80000000u, 0x80000000u},
    {"v_wmma_i32_16x16x16_iu8 clamp: -1 by 254 onto 100",
     case379, sizeof(case379),
     {0x64u, 0x0u, 0x0u, 0x0u}, 0xfffff084u, 0xfffff084u},
    {"v_wmma_i32_16x16x16_iu4 signed -1 by 3 onto 0",
     case380, sizeof(case380),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0xffffffd0u, 0xffffffd0u},
    {"v_wmma_i32_16x16x16_iu4 unsigned 15 by 3 onto 0",
     case381, sizeof(case381),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x2d0u, 0x2d0u},
    /* 16-bit shifts: S1 by S0 & 15 into the low half, the high half
     * kept; integer inline constants. */
    {"v_mov_b32 v10, v3; v_lshlrev_b16 v10, 8, v2",
     case382, sizeof(case382),
     {0xaaaa12ffu, 0x12345678u, 0x0u, 0x0u}, 0x1234ff00u, 0x1234ff00u},
    {"v_mov_b32 v10, v3; v_lshrrev_b16 v10, v4, v2",
     case383, sizeof(case383),
     {0x0000f0f0u, 0x12345678u, 0x14u, 0x0u}, 0x12340f0fu, 0x12340f0fu},
    {"v_mov_b32 v10, v3; v_ashrrev_i16 v10, 3, v2",
     case384, sizeof(case384),
     {0x00008010u, 0x12345678u, 0x0u, 0x0u}, 0x1234f002u, 0x1234f002u},
    /* Sine and cosine of turns, sin(2 pi x): quarter turns exact (-0.75
     * is a quarter past the nearest whole turn), others the rounded
     * double value (1000.125 turns: sqrt(1/2); cos 0.1 turn = 0.809017). */
    {"v_sin_f32 v10, v2 (1/4 turn)", case385, sizeof(case385),
     {0x3e800000u, 0x0u, 0x0u, 0x0u}, 0x3f800000u, 0x3f800000u},
    {"v_sin_f32 v10, v2 (-3/4 turn)", case385, sizeof(case385),
     {0xbf400000u, 0x0u, 0x0u, 0x0u}, 0x3f800000u, 0x3f800000u},
    {"v_sin_f32 v10, v2 (1000.125 turns)", case385, sizeof(case385),
     {0x447a0800u, 0x0u, 0x0u, 0x0u}, 0x3f3504f3u, 0x3f3504f3u},
    {"v_sin_f32 v10, v2 (-0)", case385, sizeof(case385),
     {0x80000000u, 0x0u, 0x0u, 0x0u}, 0x80000000u, 0x80000000u},
    {"v_cos_f32 v10, v2 (1/2 turn)", case386, sizeof(case386),
     {0x3f000000u, 0x0u, 0x0u, 0x0u}, 0xbf800000u, 0xbf800000u},
    {"v_cos_f32 v10, v2 (0.1 turn)", case386, sizeof(case386),
     {0x3dcccccdu, 0x0u, 0x0u, 0x0u}, 0x3f4f1bbdu, 0x3f4f1bbdu},
    {"v_cos_f32 v10, v2 (infinity)", case386, sizeof(case386),
     {0x7f800000u, 0x0u, 0x0u, 0x0u}, 0x7fc00000u, 0x7fc00000u},
    {"v_sin_f32_e64 v10, -v2 (-(1/4) turn)", case387, sizeof(case387),
     {0x3e800000u, 0x0u, 0x0u, 0x0u}, 0xbf800000u, 0xbf800000u},
    {"s_ashr_i64 s[20:21], s[4:5], s6; v_mov_b32 v10, s20",
     case388, sizeof(case388),
     {0x12345678u, 0x80000001u, 0x24u, 0x0u}, 0xf8000000u, 0xf8000000u},
    {"v_lshlrev_b16 v3, v2, v3; v_mov_b32 v10, v3",
     case389, sizeof(case389),
     {0x14u, 0xabcd1234u, 0x0u, 0x0u}, 0xabcd2340u, 0xabcd2340u},
    {"v_lshrrev_b16 v3, v2, v3; v_mov_b32 v10, v3",
     case390, sizeof(case390),
     {0x13u, 0xabcd8234u, 0x0u, 0x0u}, 0xabcd1046u, 0xabcd1046u},
    {"v_cmp_gt_u16 vcc_lo, v2, v5; v_cndmask_b32 v10, v2, v3, vcc_lo",
     case391, sizeof(case391),
     {0x10002u, 0x77u, 0x0u, 0x0u}, 0x77u, 0x10002u},
    {"v_cmp_lt_i16_e64 s20, v2, v5; v_cndmask_b32_e64 v10, 0, 1, s20",
     case392, sizeof(case392),
     {0x3ffffu, 0x0u, 0x0u, 0x0u}, 0x1u, 0x1u},
    /* u16 VOP3 ops: results replace one half of v10 (0 before). */
    {"v_add_nc_u16 v10, v2, v3",
     case394, sizeof(case394),
     {0x1234fff0u, 0xabcd0020u, 0x0u, 0x0u}, 0x10u, 0x10u},
    {"v_add_nc_u16 v10, v2, v3 clamp",
     case395, sizeof(case395),
     {0xfff0u, 0x20u, 0x0u, 0x0u}, 0xffffu, 0xffffu},
    {"v_sub_nc_u16 v10, v2, v3 op_sel:[1,0,1] (high halves)",
     case396, sizeof(case396),
     {0x50000u, 0x7u, 0x0u, 0x0u}, 0xfffe0000u, 0xfffe0000u},
    {"v_sub_nc_u16 v10, v2, v3 clamp",
     case397, sizeof(case397),
     {0x5u, 0x7u, 0x0u, 0x0u}, 0x0u, 0x0u},
    {"v_mul_lo_u16 v10, 0x1234, v3",
     case398, sizeof(case398),
     {0x0u, 0x10010u, 0x0u, 0x0u}, 0x2340u, 0x2340u},
    {"v_lshlrev_b16 v10, v5, v2 (by the lane id)",
     case399, sizeof(case399),
     {0x8001u, 0x0u, 0x0u, 0x0u}, 0x8001u, 0x20u},
};

/* SCRATCH loads and stores, run with the private segment enabled (rsrc2
 * bit 0) and PRIVATE_BYTES per work-item: addresses from a VGPR (SVE),
 * an SGPR and the offset, each lane in its own private memory. */
static const isa_case_t scratch_cases[] = {
    {"every lane its own lane id at one private address: s_mov_b32 s20, 32; "
     "scratch_store_b32 off, v5, s20 offset:4; "
     "scratch_load_b32 v10, off, off offset:36",
     case400, sizeof(case400),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x5u},
    {"v_lshlrev_b32 v7, 1, v5; s_mov_b32 s20, 64; "
     "scratch_store_b32 v7, v2, s20 offset:-4; "
     "scratch_load_b32 v10, v7, off offset:60",
     case401, sizeof(case401),
     {0x12345678u, 0x0u, 0x0u, 0x0u}, 0x12345678u, 0x12345678u},
    {"scratch_store_b128 off, v[2:5], off offset:32; "
     "scratch_load_b64 v[10:11], off, off offset:44",
     case402, sizeof(case402),
     {0x1u, 0x2u, 0x3u, 0x0u}, 0x0u, 0x5u},
    {"scratch_store_b96 off, v[2:4], off offset:16; "
     "scratch_load_b96 v[10:12], off, off offset:20",
     case403, sizeof(case403),
     {0x1u, 0x2u, 0x3u, 0x0u}, 0x2u, 0x2u},
    {"scratch_store_b32 off, v2, off; scratch_load_i8 v10, off, off offset:2",
     case404, sizeof(case404),
     {0x8091a2b3u, 0x0u, 0x0u, 0x0u}, 0xffffff91u, 0xffffff91u},
    {"scratch_store_b32 off, v2, off; scratch_load_u8 v10, off, off offset:3",
     case405, sizeof(case405),
     {0x8091a2b3u, 0x0u, 0x0u, 0x0u}, 0x80u, 0x80u},
    {"scratch_store_b32 off, v2, off; scratch_load_u16 v10, off, off offset:2",
     case406, sizeof(case406),
     {0x8091a2b3u, 0x0u, 0x0u, 0x0u}, 0x8091u, 0x8091u},
    {"scratch_store_b32 off, v2, off; scratch_load_i16 v10, off, off offset:2",
     case407, sizeof(case407),
     {0x8091a2b3u, 0x0u, 0x0u, 0x0u}, 0xffff8091u, 0xffff8091u},
    {"scratch_store_b32 off, v3, off; "
     "scratch_store_b8 off, v2, off offset:1; "
     "scratch_store_b16 off, v2, off offset:2; "
     "scratch_load_b32 v10, off, off",
     case408, sizeof(case408),
     {0xaabbccddu, 0x11223344u, 0x0u, 0x0u}, 0xccdddd44u, 0xccdddd44u},
    {"scratch_store_b32 off, v2, off; "
     "scratch_load_d16_b16 v10, off, off offset:2; "
     "scratch_load_d16_hi_b16 v10, off, off",
     case409, sizeof(case409),
     {0xaabbccddu, 0x0u, 0x0u, 0x0u}, 0xccddaabbu, 0xccddaabbu},
    {"scratch_store_b32 off, v2, off; "
     "scratch_load_d16_i8 v10, off, off offset:3; "
     "scratch_load_d16_hi_u8 v10, off, off offset:1",
     case410, sizeof(case410),
     {0x80112233u, 0x0u, 0x0u, 0x0u}, 0x22ff80u, 0x22ff80u},
    {"scratch_store_b32 off, v2, off; "
     "scratch_load_d16_u8 v10, off, off offset:3; "
     "scratch_load_d16_hi_i8 v10, off, off offset:3",
     case411, sizeof(case411),
     {0x80112233u, 0x0u, 0x0u, 0x0u}, 0xff800080u, 0xff800080u},
    {"scratch_store_b32 off, v3, off; scratch_store_d16_hi_b16 off, v2, off; "
     "scratch_store_d16_hi_b8 off, v2, off offset:3; "
     "scratch_load_b32 v10, off, off",
     case412, sizeof(case412),
     {0xaabbccddu, 0x11223344u, 0x0u, 0x0u}, 0xbb22aabbu, 0xbb22aabbu},
    {"the last private word: scratch_store_b32 off, v5, off offset:252; "
     "scratch_load_b32 v10, off, off offset:252",
     case413, sizeof(case413),
     {0x0u, 0x0u, 0x0u, 0x0u}, 0x0u, 0x5u},
    /* 16-bit shifts: the low half of v2 by the low 4 bits of v3 (0x14:
     * 4), into the low half of v10, whose high half is kept. */
    {"v_mov_b32 v10, v4; v_lshlrev_b16 v10, v3, v2",
     case414, sizeof(case414),
     {0x1234abcdu, 0x14u, 0x77770000u, 0x0u}, 0x7777bcd0u, 0x7777bcd0u},
    {"v_mov_b32 v10, v4; v_lshrrev_b16 v10, v3, v2",
     case415, sizeof(case415),
     {0x1234abcdu, 0x14u, 0x77770000u, 0x0u}, 0x77770abcu, 0x77770abcu},
    {"v_mov_b32 v10, v4; v_ashrrev_i16 v10, v3, v2",
     case416, sizeof(case416),
     {0x1234abcdu, 0x14u, 0x77770000u, 0x0u}, 0x7777fabcu, 0x7777fabcu},
    {"v_mov_b32 v10, v4; v_ashrrev_i16 v10, v3, v2",
     case416, sizeof(case416),
     {0x12345678u, 0xfu, 0x0u, 0x0u}, 0x0u, 0x0u},
    /* v_pack_b32_f16: the low halves of v2 and v3, high to high; opsel
     * takes v2's high half, and neg flips v3's sign. */
    {"v_pack_b32_f16 v10, v2, v3",
     case417, sizeof(case417),
     {0x12343c00u, 0x5678c000u, 0x0u, 0x0u}, 0xc0003c00u, 0xc0003c00u},
    {"v_pack_b32_f16 v10, v2, -v3 op_sel:[1,0,0]",
     case418, sizeof(case418),
     {0x3c001234u, 0x5678c000u, 0x0u, 0x0u}, 0x40003c00u, 0x40003c00u},
};

static const uint8_t undecodable[] = {
    0xff, 0xff, 0xff, 0xff,  /* no gfx11 encoding (llvm-mc rejects it) */
};
static const uint8_t store_outside[] = {
    /* global_store_b32 v6, v5, s[4:5] */
    0x00, 0x00, 0x6a, 0xdc, 0x06, 0x05, 0x04, 0x00,
};
static const uint8_t endless[] = {
    0xff, 0xff, 0xa0, 0xbf,  /* s_branch -1 */
};
static const uint8_t misaligned_atomic[] = {
    /* global_atomic_add_u32 v6, v5, s[12:13] offset:1 */
    0x01, 0x00, 0xd6, 0xdc, 0x06, 0x05, 0x0c, 0x00,
};
static const uint8_t unmodelled[] = {
    0x02, 0x81, 0x14, 0x7e,  /* v_frexp_mant_f32_e32 v10, v2 */
};
static const uint8_t wmma_negated[] = {
    /* v_wmma_f32_16x16x16_f16 v[8:15], v[16:23], v[16:23], v[8:15]
     * neg_lo:[1,0,0] */
    0x08, 0x40, 0x40, 0xcc, 0x10, 0x21, 0x22, 0x3c,
};

enum {
  GROUP = 64,         /* two waves, so every case runs in both */
  SLOT_WORDS = 4,     /* 16-byte output slot per work-item */
  CODE_OFFSET = 256,  /* entry point, after the descriptor */
  LDS_BYTES = 2048,   /* a 16-byte LDS slot per work-item, and spare */
  SENTINEL = 0xDEADBEEFu,
};

/* COMPUTE_PGM_RSRC1 as LLVM writes it for a gfx1151 kernel, less the
 * fields the model ignores: (3 + 1) * 8 VGPRs, f32 and f16/f64 denormals
 * kept (FLOAT_DENORM_MODE_32 and _16_64 = 3 at bits 16-19), DX10 clamp
 * (bit 21) and IEEE mode (bit 23). */
enum {
  RSRC1_VGPRS = 3,
  RSRC1_DENORM_32_SHIFT = 16,
  RSRC1_DENORM_16_64_SHIFT = 18,
  RSRC1_IEEE_MODE = 1u << 23,
  RSRC1_DEFAULT = RSRC1_VGPRS | 3u << RSRC1_DENORM_32_SHIFT |
                  3u << RSRC1_DENORM_16_64_SHIFT | 1u << 21 | RSRC1_IEEE_MODE,
};

/* A kernel descriptor with the layout the prologue expects: 32 VGPRs,
 * kernarg pointer in s[0:1], workgroup id x in s2, wave32, LDS_BYTES of
 * LDS. */
static void write_descriptor(uint8_t* kd, uint32_t rsrc1, uint32_t rsrc2) {
  memset(kd, 0, 64);
  uint8_t* p = kd;
  hrx_put_le(&p, LDS_BYTES, 4);  /* group_segment_fixed_size */
  p = kd + 16;
  hrx_put_le(&p, CODE_OFFSET, 8);
  p = kd + 48;
  hrx_put_le(&p, rsrc1, 4);
  hrx_put_le(&p, rsrc2, 4);
  hrx_put_le(&p, (1u << 3) | (1u << 10), 2);  /* kernarg ptr, wave32 */
}

enum { RSRC2_DEFAULT = (2u << 1) | (1u << 7) };  /* 2 user SGPRs, wg id x */

typedef struct harness_t {
  uint32_t grid[3];
  uint32_t workgroup[3];
  uint32_t threads;  /* the dispatch's worker threads (0: one) */
  uint64_t budget;   /* per wave; 0: 10000 */
  uint32_t rsrc1;    /* 0: RSRC1_DEFAULT */
  /* The dispatch's scratch backing memory (0: none) and the packet's
   * private bytes per work-item. */
  size_t scratch_size;
  uint32_t private_bytes;
  uint8_t* block;  /* descriptor, then code */
  size_t block_size;
  uint32_t kernarg[8];
  uint32_t out[GROUP * SLOT_WORDS];
} harness_t;

/* One workgroup of GROUP work-items along x. */
#define HARNESS_1D {.grid = {GROUP, 1, 1}, .workgroup = {GROUP, 1, 1}}

/* Runs prologue + |body| + epilogue over the harness's grid. */
static hrx_status_t run_body(harness_t* h, const uint8_t* body, size_t length,
                             const uint32_t in[4], uint32_t rsrc2,
                             hrx_gfx11_fault_t* fault) {
  h->block_size = CODE_OFFSET + sizeof(prologue) + length + sizeof(epilogue);
  h->block = aligned_alloc(256, (h->block_size + 255) & ~(size_t)255);
  assert_non_null(h->block);
  write_descriptor(h->block, h->rsrc1 ? h->rsrc1 : RSRC1_DEFAULT, rsrc2);
  uint8_t* code = h->block + CODE_OFFSET;
  memcpy(code, prologue, sizeof(prologue));
  if (length) memcpy(code + sizeof(prologue), body, length);
  memcpy(code + sizeof(prologue) + length, epilogue, sizeof(epilogue));
  memset(h->kernarg, 0, sizeof(h->kernarg));
  memcpy(h->kernarg, in, 4 * sizeof(uint32_t));
  uint64_t out = (uint64_t)(uintptr_t)h->out;
  memcpy(&h->kernarg[4], &out, sizeof(out));
  for (size_t i = 0; i < GROUP * SLOT_WORDS; ++i) h->out[i] = SENTINEL;
  hrx_gfx11_range_t ranges[] = {
      {(uint64_t)(uintptr_t)h->block, h->block_size},
      {(uint64_t)(uintptr_t)h->kernarg, sizeof(h->kernarg)},
      {out, sizeof(h->out)},
  };
  /* Scratch starts as garbage, as on hardware. */
  uint8_t* scratch = h->scratch_size ? malloc(h->scratch_size) : NULL;
  if (scratch) memset(scratch, 0xA5, h->scratch_size);
  hrx_gfx11_dispatch_t dispatch = {
      .kernel_descriptor = (uint64_t)(uintptr_t)h->block,
      .kernarg = (uint64_t)(uintptr_t)h->kernarg,
      .grid = {h->grid[0], h->grid[1], h->grid[2]},
      .workgroup = {h->workgroup[0], h->workgroup[1], h->workgroup[2]},
      .ranges = ranges,
      .range_count = 3,
      .scratch = (uint64_t)(uintptr_t)scratch,
      .scratch_size = h->scratch_size,
      .private_segment_size = h->private_bytes,
      .wave_instruction_budget = h->budget ? h->budget : 10000,
      .threads = h->threads,
  };
  hrx_status_t status =
      hrx_gfx11_dispatch(&dispatch, hrx_allocator_system(), fault);
  free(scratch);
  free(h->block);
  h->block = NULL;
  return status;
}

static void test_instructions(void** state) {
  (void)state;
  harness_t h = HARNESS_1D;
  size_t count = sizeof(isa_cases) / sizeof(isa_cases[0]);
  for (size_t i = 0; i < count; ++i) {
    const isa_case_t* c = &isa_cases[i];
    hrx_gfx11_fault_t fault;
    hrx_status_t status =
        run_body(&h, c->code, c->length, c->in, RSRC2_DEFAULT, &fault);
    if (status != HRX_OK) print_error("case %zu: %s\n", i, c->text);
    assert_ok(status);
    uint32_t lane0 = h.out[0], lane5 = h.out[5 * SLOT_WORDS];
    if (lane0 != c->lane0 || lane5 != c->lane5) {
      print_error("case %zu: %s: lanes 0/5 = 0x%x/0x%x, want 0x%x/0x%x\n", i,
                  c->text, lane0, lane5, c->lane0, c->lane5);
      fail();
    }
  }
}

enum {
  PRIVATE_BYTES = 256,
  /* A wave's slot: roundup(PRIVATE_BYTES x 64, 1024). */
  WAVE_SCRATCH = PRIVATE_BYTES * 64,
  RSRC2_PRIVATE = RSRC2_DEFAULT | 1u, /* ENABLE_PRIVATE_SEGMENT */
};

/* The harness with scratch for |groups| workgroups of GROUP (two waves). */
static harness_t scratch_harness(uint32_t groups) {
  harness_t h = HARNESS_1D;
  h.scratch_size = (size_t)groups * (GROUP / 32) * WAVE_SCRATCH;
  h.private_bytes = PRIVATE_BYTES;
  return h;
}

static void test_scratch_instructions(void** state) {
  (void)state;
  harness_t h = scratch_harness(1);
  size_t count = sizeof(scratch_cases) / sizeof(scratch_cases[0]);
  for (size_t i = 0; i < count; ++i) {
    const isa_case_t* c = &scratch_cases[i];
    hrx_gfx11_fault_t fault;
    hrx_status_t status =
        run_body(&h, c->code, c->length, c->in, RSRC2_PRIVATE, &fault);
    if (status != HRX_OK) print_error("case %zu: %s\n", i, c->text);
    assert_ok(status);
    uint32_t lane0 = h.out[0], lane5 = h.out[5 * SLOT_WORDS];
    if (lane0 != c->lane0 || lane5 != c->lane5) {
      print_error("case %zu: %s: lanes 0/5 = 0x%x/0x%x, want 0x%x/0x%x\n", i,
                  c->text, lane0, lane5, c->lane0, c->lane5);
      fail();
    }
  }
}

/* Where scratch may not go: past a lane's private bytes (the fault names
 * the private offset, and no lane stored), and anywhere for a kernel
 * without a private segment. */
static void test_scratch_out_of_bounds(void** state) {
  (void)state;
  static const uint8_t past[] = {
      /* scratch_store_b32 off, v5, off offset:254 */
      0xfe, 0x00, 0x69, 0xdc, 0x00, 0x05, 0x7c, 0x00,
  };
  uint32_t in[4] = {0, 0, 0, 0};
  hrx_gfx11_fault_t fault;
  harness_t h = scratch_harness(1);
  assert_status(run_body(&h, past, sizeof(past), in, RSRC2_PRIVATE, &fault),
                HRX_STATUS_ABORTED,
                "4-byte scratch access at private offset 0xfe past the 256 "
                "private bytes of lane 0");
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_OUT_OF_BOUNDS);
  assert_int_equal(fault.address, 254);
  assert_string_equal(fault.mnemonic, "scratch_store_b32");
  assert_int_equal(h.out[0], SENTINEL);
  assert_status(run_body(&h, past, sizeof(past), in, RSRC2_DEFAULT, &fault),
                HRX_STATUS_ABORTED, "without a private segment");
}

/* The waves' slots come from the dispatch's scratch: none, or too little
 * for one workgroup, is refused naming the sizes; room for two of four
 * workgroups runs them on at most two workers, each lane still in its
 * own memory. */
static void test_scratch_slots(void** state) {
  (void)state;
  static const uint8_t body[] = {
      /* s_mov_b32 s20, 32 */
      0xa0, 0x00, 0x94, 0xbe,
      /* v_add_nc_u32_e32 v8, s2, v5 (the workgroup id plus the lane's) */
      0x02, 0x0a, 0x10, 0x4a,
      /* scratch_store_b32 off, v8, s20 offset:4 */
      0x04, 0x00, 0x69, 0xdc, 0x00, 0x08, 0x14, 0x00,
      /* scratch_load_b32 v10, off, off offset:36 */
      0x24, 0x00, 0x51, 0xdc, 0x00, 0x00, 0x7c, 0x0a,
      /* v_subrev_nc_u32_e32 v10, s2, v10 */
      0x02, 0x14, 0x14, 0x4e,
  };
  uint32_t in[4] = {0, 0, 0, 0};
  hrx_gfx11_fault_t fault;
  harness_t h = scratch_harness(0);
  assert_status(run_body(&h, body, sizeof(body), in, RSRC2_PRIVATE,
                         &fault),
                HRX_STATUS_INVALID_ARGUMENT,
                "a workgroup of 2 waves needs 32768 bytes of scratch (256 "
                "private bytes per work-item); the dispatch has 0");
  h.scratch_size = WAVE_SCRATCH;
  assert_status(run_body(&h, body, sizeof(body), in, RSRC2_PRIVATE,
                         &fault),
                HRX_STATUS_INVALID_ARGUMENT, "the dispatch has 16384");
  h = scratch_harness(2);
  h.grid[0] = 4 * GROUP;
  h.threads = 4;
  assert_ok(run_body(&h, body, sizeof(body), in, RSRC2_PRIVATE,
                     &fault));
  for (uint32_t i = 0; i < GROUP; ++i) {
    assert_int_equal(h.out[i * SLOT_WORDS], i);
  }
}

/* Two waves of a partial workgroup: lanes past the grid stay inactive,
 * and v0 carries the work-item id of each lane of each wave. */
static void test_workitem_ids(void** state) {
  (void)state;
  static const uint8_t body[] = {
      0x00, 0x03, 0x14, 0x7e,  /* v_mov_b32_e32 v10, v0 */
  };
  harness_t h = HARNESS_1D;
  hrx_gfx11_fault_t fault;
  uint32_t in[4] = {0, 0, 0, 0};
  assert_ok(run_body(&h, body, sizeof(body), in, RSRC2_DEFAULT, &fault));
  for (uint32_t i = 0; i < GROUP; ++i) {
    assert_int_equal(h.out[i * SLOT_WORDS], i);
  }
}

/* Work-item ids of a 3D workgroup, packed in v0 as x | y << 10 | z << 20
 * when the descriptor enables all three. */
static void test_packed_workitem_ids(void** state) {
  (void)state;
  static const uint8_t body[] = {
      /* v_mbcnt_lo_u32_b32 v11, -1, 0 */
      0x0b, 0x00, 0x1f, 0xd7, 0xc1, 0x00, 0x01, 0x00,
      0x84, 0x16, 0x02, 0x30,  /* v_lshlrev_b32_e32 v1, 4, v11 */
      0x00, 0x03, 0x14, 0x7e,  /* v_mov_b32_e32 v10, v0 */
  };
  harness_t h = {.grid = {4, 2, 2}, .workgroup = {4, 2, 2}};
  hrx_gfx11_fault_t fault;
  uint32_t in[4] = {0, 0, 0, 0};
  uint32_t rsrc2 = RSRC2_DEFAULT | (2u << 11);  /* ids x, y and z */
  assert_ok(run_body(&h, body, sizeof(body), in, rsrc2, &fault));
  for (uint32_t i = 0; i < 16; ++i) {
    uint32_t x = i % 4, y = i / 4 % 2, z = i / 8;
    assert_int_equal(h.out[i * SLOT_WORDS], x | y << 10 | z << 20);
  }
}

/* With workgroup ids x and y enabled, y follows x in s3. Every workgroup
 * stores to the same slots, so the last one (y = 2) is what remains. */
static void test_workgroup_id_sgprs(void** state) {
  (void)state;
  static const uint8_t body[] = {
      0x03, 0x02, 0x14, 0x7e,  /* v_mov_b32_e32 v10, s3 */
  };
  harness_t h = {.grid = {GROUP, 3, 1}, .workgroup = {GROUP, 1, 1}};
  hrx_gfx11_fault_t fault;
  uint32_t in[4] = {0, 0, 0, 0};
  assert_ok(run_body(&h, body, sizeof(body), in, RSRC2_DEFAULT | (1u << 8),
                     &fault));
  assert_int_equal(h.out[0], 2);
  assert_int_equal(h.out[(GROUP - 1) * SLOT_WORDS], 2);
}

static void expect_fault(const uint8_t* body, size_t length,
                         const uint32_t in[4], hrx_gfx11_fault_kind_t kind,
                         const char* reason, const char* mnemonic) {
  harness_t h = HARNESS_1D;
  hrx_gfx11_fault_t fault;
  hrx_status_t status = run_body(&h, body, length, in, RSRC2_DEFAULT, &fault);
  /* The report names the instruction: "... pc 0x... <mnemonic> [...]". */
  if (mnemonic[0]) {
    assert_non_null(strstr(hrx_status_message(status), mnemonic));
  }
  assert_status(status, HRX_STATUS_ABORTED, reason);
  assert_int_equal(fault.kind, kind);
  assert_int_equal(fault.wave, 0);
  assert_non_null(strstr(fault.reason, reason));
  assert_string_equal(fault.mnemonic, mnemonic);
  if (kind == HRX_GFX11_FAULT_OUT_OF_BOUNDS) {
    assert_int_equal(fault.address, in[0]);
  }
  if (kind != HRX_GFX11_FAULT_BUDGET) {
    assert_int_equal(fault.byte_count, length);
    assert_memory_equal(fault.bytes, body, length);
  }
  /* Nothing reached the output: the wave stopped before the epilogue. */
  for (size_t i = 0; i < GROUP * SLOT_WORDS; ++i) {
    assert_int_equal(h.out[i], SENTINEL);
  }
  /* The next dispatch runs normally. */
  assert_ok(run_body(&h, isa_cases[0].code, isa_cases[0].length,
                     isa_cases[0].in, RSRC2_DEFAULT, &fault));
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_NONE);
  assert_int_equal(h.out[0], isa_cases[0].lane0);
}

static void test_faults(void** state) {
  (void)state;
  uint32_t in[4] = {0x10, 0, 0, 0};  /* s[4:5] = 0x10: never mapped */
  expect_fault(undecodable, sizeof(undecodable), in,
               HRX_GFX11_FAULT_UNDECODABLE, "no gfx11 encoding", "");
  expect_fault(store_outside, sizeof(store_outside), in,
               HRX_GFX11_FAULT_OUT_OF_BOUNDS, "outside the mapped ranges",
               "global_store_b32");
  expect_fault(endless, sizeof(endless), in, HRX_GFX11_FAULT_BUDGET,
               "budget", "s_branch");
  expect_fault(misaligned_atomic, sizeof(misaligned_atomic), in,
               HRX_GFX11_FAULT_UNSUPPORTED, "misaligned atomic",
               "global_atomic_add_u32");
  /* v_frexp_mant_f32 is VOP1 opcode 64, which the model lacks. */
  expect_fault(unmodelled, sizeof(unmodelled), in,
               HRX_GFX11_FAULT_UNSUPPORTED, "not modelled", "VOP1 opcode 64");
  expect_fault(wmma_negated, sizeof(wmma_negated), in,
               HRX_GFX11_FAULT_UNSUPPORTED, "neg, clamp or op_sel",
               "v_wmma_f32_16x16x16_f16");
}

/* An LDS access past the descriptor's group segment stops the wave with
 * the LDS address, before any lane's access. */
static void test_lds_out_of_bounds(void** state) {
  (void)state;
  static const uint8_t body[] = {
      /* ds_load_b32 v10, v2 offset:2048 */
      0x00, 0x08, 0xd8, 0xd8, 0x02, 0x00, 0x00, 0x0a,
  };
  harness_t h = HARNESS_1D;
  hrx_gfx11_fault_t fault;
  uint32_t in[4] = {0x10, 0, 0, 0};
  assert_status(run_body(&h, body, sizeof(body), in, RSRC2_DEFAULT, &fault),
                HRX_STATUS_ABORTED, "LDS access");
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_OUT_OF_BOUNDS);
  assert_int_equal(fault.address, 0x10 + LDS_BYTES);
  assert_int_equal(h.out[0], SENTINEL);
}

static void test_descriptor_checks(void** state) {
  (void)state;
  harness_t h = HARNESS_1D;
  hrx_gfx11_fault_t fault;
  uint32_t in[4] = {0, 0, 0, 0};
  /* Workgroup info (rsrc2 bit 10) is an SGPR this model does not set. */
  assert_status(run_body(&h, NULL, 0, in, RSRC2_DEFAULT | 1u << 10, &fault),
                HRX_STATUS_UNIMPLEMENTED, "workgroup info");
  /* Three user SGPRs would be kernarg preloading. */
  assert_status(run_body(&h, NULL, 0, in, (3u << 1) | (1u << 7), &fault),
                HRX_STATUS_UNIMPLEMENTED, "user SGPRs");
}

/* Runs |body| over lanes 0 and 5 with descriptor |rsrc1| and checks
 * that both stored |want|. */
static void expect_with_rsrc1(uint32_t rsrc1, const uint8_t* body,
                              size_t length, const uint32_t in[4],
                              uint32_t want, const char* text) {
  harness_t h = HARNESS_1D;
  h.rsrc1 = rsrc1;
  hrx_gfx11_fault_t fault;
  assert_ok(run_body(&h, body, length, in, RSRC2_DEFAULT, &fault));
  if (h.out[0] != want || h.out[5 * SLOT_WORDS] != want) {
    print_error("%s with rsrc1 0x%x: lanes 0/5 = 0x%x/0x%x, want 0x%x\n",
                text, rsrc1, h.out[0], h.out[5 * SLOT_WORDS], want);
    fail();
  }
}

/* The descriptor's FLOAT_DENORM_MODE fields start the waves' MODE: for
 * each value 0-3 (bit 0 keeps denormal sources, bit 1 denormal results)
 * a sum with denormal sources and a normal result, and one with normal
 * sources and a denormal result. The other format's field stays 3. */
static void test_descriptor_denorm_modes(void** state) {
  (void)state;
  static const uint8_t add_f32[] = {
      0x02, 0x07, 0x14, 0x06,  /* v_add_f32_e32 v10, v2, v3 */
  };
  static const uint8_t add_f16[] = {
      0x02, 0x07, 0x14, 0x64,  /* v_add_f16_e32 v10, v2, v3 */
  };
  /* 2^-127 + 2^-127 = 2^-126; 1.5 * 2^-126 - 2^-126 = 2^-127. */
  static const uint32_t f32_denormal_in[4] = {0x400000u, 0x400000u, 0, 0};
  static const uint32_t f32_denormal_out[4] = {0xc00000u, 0x80800000u, 0, 0};
  /* The same in f16: 2^-15 + 2^-15 = 2^-14; 1.5 * 2^-14 - 2^-14. */
  static const uint32_t f16_denormal_in[4] = {0x200u, 0x200u, 0, 0};
  static const uint32_t f16_denormal_out[4] = {0x600u, 0x8400u, 0, 0};
  for (uint32_t mode = 0; mode < 4; ++mode) {
    bool keep_in = mode & 1, keep_out = mode & 2;
    uint32_t f32 = RSRC1_VGPRS | mode << RSRC1_DENORM_32_SHIFT |
                   3u << RSRC1_DENORM_16_64_SHIFT | RSRC1_IEEE_MODE;
    uint32_t f16 = RSRC1_VGPRS | 3u << RSRC1_DENORM_32_SHIFT |
                   mode << RSRC1_DENORM_16_64_SHIFT | RSRC1_IEEE_MODE;
    expect_with_rsrc1(f32, add_f32, sizeof(add_f32), f32_denormal_in,
                      keep_in ? 0x800000u : 0, "v_add_f32 (denormal in)");
    expect_with_rsrc1(f32, add_f32, sizeof(add_f32), f32_denormal_out,
                      keep_out ? 0x400000u : 0, "v_add_f32 (denormal out)");
    expect_with_rsrc1(f16, add_f16, sizeof(add_f16), f16_denormal_in,
                      keep_in ? 0x400u : 0, "v_add_f16 (denormal in)");
    expect_with_rsrc1(f16, add_f16, sizeof(add_f16), f16_denormal_out,
                      keep_out ? 0x200u : 0, "v_add_f16 (denormal out)");
  }
}

/* Without the descriptor's IEEE_MODE bit, v_min/v_max treat a signalling
 * NaN like a quiet one: the other source is the result. */
static void test_non_ieee_min_max(void** state) {
  (void)state;
  static const uint8_t min_f32[] = {
      0x02, 0x07, 0x14, 0x1e,  /* v_min_f32_e32 v10, v2, v3 */
  };
  static const uint8_t pk_max_f16[] = {
      /* v_pk_max_f16 v10, v2, v3 */
      0x0a, 0x40, 0x12, 0xcc, 0x02, 0x07, 0x02, 0x18,
  };
  uint32_t rsrc1 = RSRC1_DEFAULT & ~(uint32_t)RSRC1_IEEE_MODE;
  static const uint32_t snan_f32[4] = {0x7f800001u, 0x3f800000u, 0, 0};
  static const uint32_t snan_f16[4] = {0x3c007c01u, 0x40003c00u, 0, 0};
  expect_with_rsrc1(rsrc1, min_f32, sizeof(min_f32), snan_f32, 0x3f800000u,
                    "v_min_f32 sNaN, 1.0");
  expect_with_rsrc1(RSRC1_DEFAULT, min_f32, sizeof(min_f32), snan_f32,
                    0x7fc00001u, "v_min_f32 sNaN, 1.0");
  expect_with_rsrc1(rsrc1, pk_max_f16, sizeof(pk_max_f16), snan_f16,
                    0x40003c00u, "v_pk_max_f16");
  expect_with_rsrc1(RSRC1_DEFAULT, pk_max_f16, sizeof(pk_max_f16), snan_f16,
                    0x40007e01u, "v_pk_max_f16");
}

/* The VOP3 form's opsel picks the high half of an f16 compare's source.
 * LLVM 19 neither assembles nor prints op_sel on VOPC (it decodes these
 * bytes as plain v_cmp_lt_f16_e64 s20, v2, v3), so the bytes are the
 * llvm-mc encoding of that with opsel bit 0 (word bit 11) set by hand, as
 * the ISA guide's VOP3 layout places it. */
static void test_f16_compare_opsel(void** state) {
  (void)state;
  static const uint8_t body[] = {
      /* v_cmp_lt_f16_e64 s20, v2, v3 op_sel:[1,0] */
      0x14, 0x08, 0x01, 0xd4, 0x02, 0x07, 0x02, 0x00,
      /* v_cndmask_b32_e64 v10, 0, 1, s20 */
      0x0a, 0x00, 0x01, 0xd5, 0x80, 0x02, 0x51, 0x00,
  };
  /* v2 = 2.0 (high) : 1.0 (low), v3 = 1.5: 2.0 < 1.5 is false. */
  static const uint32_t in[4] = {0x40003c00u, 0x3e00u, 0, 0};
  expect_with_rsrc1(RSRC1_DEFAULT, body, sizeof(body), in, 0,
                    "v_cmp_lt_f16_e64 op_sel:[1,0]");
}

/* Rounding modes other than to nearest even and hardware registers other
 * than MODE are refused, not run with the wrong results. */
static void test_mode_limits(void** state) {
  (void)state;
  static const uint8_t round_mode[] = {
      0x01, 0x00, 0x91, 0xbf,  /* s_round_mode 0x1 */
  };
  static const uint8_t getreg_status[] = {
      /* s_getreg_b32 s20, hwreg(HW_REG_STATUS) */
      0x02, 0xf8, 0x94, 0xb8,
  };
  uint32_t in[4] = {0, 0, 0, 0};
  expect_fault(round_mode, sizeof(round_mode), in,
               HRX_GFX11_FAULT_UNSUPPORTED, "rounding", "s_round_mode");
  expect_fault(getreg_status, sizeof(getreg_status), in,
               HRX_GFX11_FAULT_UNSUPPORTED, "hardware register 2",
               "s_getreg_b32");
  /* FLOAT_ROUND_MODE_32 (bits 12-13) = 1: round toward +infinity. */
  harness_t h = HARNESS_1D;
  h.rsrc1 = RSRC1_DEFAULT | 1u << 12;
  hrx_gfx11_fault_t fault;
  assert_status(run_body(&h, NULL, 0, in, RSRC2_DEFAULT, &fault),
                HRX_STATUS_UNIMPLEMENTED, "rounding");
}

static uint8_t* new_kernarg(uint64_t kd, uint32_t* out_size) {
  const uint8_t* p = (const uint8_t*)(uintptr_t)(kd + 8);
  *out_size = (uint32_t)hrx_get_le(&p, 4);
  uint8_t* kernarg = calloc(1, *out_size);
  assert_non_null(kernarg);
  return kernarg;
}

static void put_u(uint8_t* kernarg, size_t offset, uint64_t value, int bytes) {
  uint8_t* p = kernarg + offset;
  hrx_put_le(&p, value, bytes);
}

static void run_saxpy(uint64_t kd, hrx_gfx11_range_t image, uint32_t n,
                      uint32_t threads) {
  enum { THREADS = 256 };
  uint32_t groups = (n + THREADS - 1) / THREADS;
  float alpha = 1.0f + 0x1p-23f;
  float* x = malloc(sizeof(float) * n);
  float* y = malloc(sizeof(float) * n);
  float* want = malloc(sizeof(float) * n);
  assert_true(x && y && want);
  for (uint32_t i = 0; i < n; ++i) {
    /* Values where a fused and an unfused multiply-add differ. */
    x[i] = 1.0f + (float)i * 0x1p-22f;
    y[i] = -(1.0f + (float)(i + 1) * 0x1p-21f);
    want[i] = fmaf(alpha, x[i], y[i]);
  }
  uint32_t kernarg_size = 0;
  uint8_t* kernarg = new_kernarg(kd, &kernarg_size);
  assert_true(kernarg_size >= 56);
  /* Explicit arguments, then the code object v5 hidden ones, at the
   * offsets of the kernel's metadata note. */
  put_u(kernarg, 0, n, 8);
  uint32_t alpha_bits;
  memcpy(&alpha_bits, &alpha, 4);
  put_u(kernarg, 8, alpha_bits, 4);
  put_u(kernarg, 16, (uint64_t)(uintptr_t)x, 8);
  put_u(kernarg, 24, (uint64_t)(uintptr_t)y, 8);
  put_u(kernarg, 32, groups, 4);   /* hidden_block_count_x, y, z */
  put_u(kernarg, 36, 1, 4);
  put_u(kernarg, 40, 1, 4);
  put_u(kernarg, 44, THREADS, 2);  /* hidden_group_size_x, y, z */
  put_u(kernarg, 46, 1, 2);
  put_u(kernarg, 48, 1, 2);
  hrx_gfx11_range_t ranges[] = {
      image,
      {(uint64_t)(uintptr_t)kernarg, kernarg_size},
      {(uint64_t)(uintptr_t)x, sizeof(float) * n},
      {(uint64_t)(uintptr_t)y, sizeof(float) * n},
  };
  hrx_gfx11_dispatch_t dispatch = {
      .kernel_descriptor = kd,
      .kernarg = (uint64_t)(uintptr_t)kernarg,
      .grid = {groups * THREADS, 1, 1},
      .workgroup = {THREADS, 1, 1},
      .ranges = ranges,
      .range_count = 4,
      .wave_instruction_budget = 1000,
      .threads = threads,
  };
  hrx_gfx11_fault_t fault;
  assert_ok(hrx_gfx11_dispatch(&dispatch, hrx_allocator_system(), &fault));
  assert_memory_equal(y, want, sizeof(float) * n);
  free(kernarg);
  free(want);
  free(y);
  free(x);
}

/* saxpy compiled for gfx1151, run on the model, against fmaf: the Loom op
 * is scalar.fmaf, a fused multiply-add on the host and v_fmac_f32 here.
 * Each size runs on one thread and spread over four. */
static void test_saxpy(void** state) {
  (void)state;
  hrx_gfx11_image_t* image = gfx11_test_load("saxpy.loom");
  uint64_t kd = 0;
  assert_ok(hrx_gfx11_image_kernel(image, "saxpy", &kd));
  assert_status(hrx_gfx11_image_kernel(image, "missing", &kd),
                HRX_STATUS_NOT_FOUND, "missing");
  static const uint32_t sizes[] = {1, 31, 32, 255, 256, 257, 1000, 20000};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    run_saxpy(kd, hrx_gfx11_image_range(image), sizes[i], 1);
    run_saxpy(kd, hrx_gfx11_image_range(image), sizes[i], 4);
  }
  hrx_gfx11_image_destroy(image);
}

/* gather_rows: out[r, c] = table[ids[r] if 0 <= ids[r] < rows else 0, c].
 * Its index arithmetic is a 64-bit division the compiler expands into
 * SALU float, v_rcp_f32 and carry chains, so exact integer results check
 * all of those. */
static void run_gather(uint64_t kd, hrx_gfx11_range_t image, uint64_t count,
                       uint64_t width, uint64_t rows) {
  enum { THREADS = 64 };
  uint64_t cells = count * width;
  uint32_t groups = (uint32_t)((cells + THREADS - 1) / THREADS);
  float* table = malloc(sizeof(float) * rows * width);
  int32_t* ids = malloc(sizeof(int32_t) * count);
  float* out = malloc(sizeof(float) * cells);
  float* want = malloc(sizeof(float) * cells);
  assert_true(table && ids && out && want);
  for (uint64_t i = 0; i < rows * width; ++i) table[i] = (float)i + 0.5f;
  for (uint64_t r = 0; r < count; ++r) {
    /* Some ids in range, some past the end, some negative. */
    ids[r] = (int32_t)((r * 7) % (rows + 3)) - (r % 5 == 4 ? 9 : 0);
  }
  for (uint64_t cell = 0; cell < cells; ++cell) {
    uint64_t r = cell / width, c = cell % width;
    uint64_t id = (uint64_t)(int64_t)ids[r];
    want[cell] = table[(id < rows ? id : 0) * width + c];
  }
  uint32_t kernarg_size = 0;
  uint8_t* kernarg = new_kernarg(kd, &kernarg_size);
  assert_true(kernarg_size >= 72);
  put_u(kernarg, 0, count, 8);
  put_u(kernarg, 8, width, 8);
  put_u(kernarg, 16, rows, 8);
  put_u(kernarg, 24, (uint64_t)(uintptr_t)table, 8);
  put_u(kernarg, 32, (uint64_t)(uintptr_t)ids, 8);
  put_u(kernarg, 40, (uint64_t)(uintptr_t)out, 8);
  put_u(kernarg, 48, groups, 4);   /* hidden_block_count_x, y, z */
  put_u(kernarg, 52, 1, 4);
  put_u(kernarg, 56, 1, 4);
  put_u(kernarg, 60, THREADS, 2);  /* hidden_group_size_x, y, z */
  put_u(kernarg, 62, 1, 2);
  put_u(kernarg, 64, 1, 2);
  hrx_gfx11_range_t ranges[] = {
      image,
      {(uint64_t)(uintptr_t)kernarg, kernarg_size},
      {(uint64_t)(uintptr_t)table, sizeof(float) * rows * width},
      {(uint64_t)(uintptr_t)ids, sizeof(int32_t) * count},
      {(uint64_t)(uintptr_t)out, sizeof(float) * cells},
  };
  hrx_gfx11_dispatch_t dispatch = {
      .kernel_descriptor = kd,
      .kernarg = (uint64_t)(uintptr_t)kernarg,
      .grid = {groups * THREADS, 1, 1},
      .workgroup = {THREADS, 1, 1},
      .ranges = ranges,
      .range_count = 5,
      .wave_instruction_budget = 2000,
  };
  hrx_gfx11_fault_t fault;
  assert_ok(hrx_gfx11_dispatch(&dispatch, hrx_allocator_system(), &fault));
  assert_memory_equal(out, want, sizeof(float) * cells);
  free(kernarg);
  free(want);
  free(out);
  free(ids);
  free(table);
}

/* tests/kernels/templates.loom: template families, a func.template
 * provider and template.call, chosen and inlined by the compiler, give on
 * gfx1151 what the C reference does: per element (x+1)^2 as x*x + (2x+1),
 * x*x, 2x+1, and 32 from the implementation for 32-lane subgroups. */
static void test_templates(void** state) {
  (void)state;
  enum { THREADS = 32, N = 77 };
  hrx_gfx11_image_t* image =
      gfx11_test_load("../../tests/kernels/templates.loom");
  uint64_t kd = 0;
  assert_ok(hrx_gfx11_image_kernel(image, "templates", &kd));
  float x[N], out[4 * N];
  for (int i = 0; i < N; ++i) x[i] = (float)i * 0.375f - 9.0f;
  memset(out, 0, sizeof(out));
  uint32_t groups = (N + THREADS - 1) / THREADS;
  uint32_t kernarg_size = 0;
  uint8_t* kernarg = new_kernarg(kd, &kernarg_size);
  /* The kernel reads only ids, so it has no hidden arguments. */
  assert_int_equal(kernarg_size, 24);
  put_u(kernarg, 0, N, 8);
  put_u(kernarg, 8, (uint64_t)(uintptr_t)x, 8);
  put_u(kernarg, 16, (uint64_t)(uintptr_t)out, 8);
  hrx_gfx11_range_t ranges[] = {
      hrx_gfx11_image_range(image),
      {(uint64_t)(uintptr_t)kernarg, kernarg_size},
      {(uint64_t)(uintptr_t)x, sizeof(x)},
      {(uint64_t)(uintptr_t)out, sizeof(out)},
  };
  hrx_gfx11_dispatch_t dispatch = {
      .kernel_descriptor = kd,
      .kernarg = (uint64_t)(uintptr_t)kernarg,
      .grid = {groups * THREADS, 1, 1},
      .workgroup = {THREADS, 1, 1},
      .ranges = ranges,
      .range_count = 4,
      .wave_instruction_budget = 4000,
  };
  hrx_gfx11_fault_t fault;
  assert_ok(hrx_gfx11_dispatch(&dispatch, hrx_allocator_system(), &fault));
  for (int i = 0; i < N; ++i) {
    float square = x[i] * x[i];
    float line = 2.0f * x[i] + 1.0f;
    assert_true(out[4 * i + 0] == square + line);
    assert_true(out[4 * i + 1] == square);
    assert_true(out[4 * i + 2] == line);
    assert_true(out[4 * i + 3] == 32.0f);
  }
  free(kernarg);
  hrx_gfx11_image_destroy(image);
}

static void test_gather(void** state) {
  (void)state;
  hrx_gfx11_image_t* image = gfx11_test_load("gather.loom");
  uint64_t kd = 0;
  assert_ok(hrx_gfx11_image_kernel(image, "gather_rows", &kd));
  run_gather(kd, hrx_gfx11_image_range(image), 1, 1, 1);
  run_gather(kd, hrx_gfx11_image_range(image), 10, 3, 4);
  run_gather(kd, hrx_gfx11_image_range(image), 37, 5, 11);
  run_gather(kd, hrx_gfx11_image_range(image), 100, 7, 9);
  hrx_gfx11_image_destroy(image);
}

/* histogram: 256 bins counted with global_atomic_add_u32. */
static void run_histogram(uint64_t kd, hrx_gfx11_range_t image, uint32_t n,
                          uint32_t threads) {
  enum { THREADS = 128, BINS = 256 };
  uint32_t groups = (n + THREADS - 1) / THREADS;
  uint8_t* bytes = malloc(n);
  uint32_t* bins = calloc(BINS, sizeof(uint32_t));
  uint32_t want[BINS] = {0};
  assert_true(bytes && bins);
  for (uint32_t i = 0; i < n; ++i) {
    bytes[i] = (uint8_t)((i * 37u + i / 7u) & 0xFF);
    ++want[bytes[i]];
  }
  uint32_t kernarg_size = 0;
  uint8_t* kernarg = new_kernarg(kd, &kernarg_size);
  assert_true(kernarg_size >= 42);
  put_u(kernarg, 0, n, 8);
  put_u(kernarg, 8, (uint64_t)(uintptr_t)bytes, 8);
  put_u(kernarg, 16, (uint64_t)(uintptr_t)bins, 8);
  put_u(kernarg, 24, groups, 4);   /* hidden_block_count_x, y, z */
  put_u(kernarg, 28, 1, 4);
  put_u(kernarg, 32, 1, 4);
  put_u(kernarg, 36, THREADS, 2);  /* hidden_group_size_x, y, z */
  put_u(kernarg, 38, 1, 2);
  put_u(kernarg, 40, 1, 2);
  hrx_gfx11_range_t ranges[] = {
      image,
      {(uint64_t)(uintptr_t)kernarg, kernarg_size},
      {(uint64_t)(uintptr_t)bytes, n},
      {(uint64_t)(uintptr_t)bins, sizeof(uint32_t) * BINS},
  };
  hrx_gfx11_dispatch_t dispatch = {
      .kernel_descriptor = kd,
      .kernarg = (uint64_t)(uintptr_t)kernarg,
      .grid = {groups * THREADS, 1, 1},
      .workgroup = {THREADS, 1, 1},
      .ranges = ranges,
      .range_count = 4,
      .wave_instruction_budget = 1000,
      .threads = threads,
  };
  hrx_gfx11_fault_t fault;
  assert_ok(hrx_gfx11_dispatch(&dispatch, hrx_allocator_system(), &fault));
  assert_memory_equal(bins, want, sizeof(want));
  free(kernarg);
  free(bins);
  free(bytes);
}

static void test_histogram(void** state) {
  (void)state;
  hrx_gfx11_image_t* image = gfx11_test_load("histogram.loom");
  uint64_t kd = 0;
  assert_ok(hrx_gfx11_image_kernel(image, "histogram", &kd));
  /* Four threads add into the same 256 bins at once: global atomics must
   * be atomic across threads for the counts to come out exact. */
  static const uint32_t sizes[] = {1, 127, 128, 129, 5000, 50000};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    run_histogram(kd, hrx_gfx11_image_range(image), sizes[i], 1);
    run_histogram(kd, hrx_gfx11_image_range(image), sizes[i], 4);
  }
  hrx_gfx11_image_destroy(image);
}

/* The decoder's mnemonics: known opcodes by name (VOP3 forms of VOP1/2/C
 * ops with LLVM's _e64), others by encoding and number. */
static void expect_mnemonic(const uint8_t* bytes, size_t length,
                            const char* want) {
  gfx11_inst_t inst;
  assert_true(gfx11_decode(bytes, length, &inst));
  char name[32];
  gfx11_mnemonic(&inst, name, sizeof(name));
  assert_string_equal(name, want);
}

static void test_mnemonics(void** state) {
  (void)state;
  /* v_add_f32_e64 v10, v2, v3 */
  static const uint8_t add_e64[] = {0x0a, 0x00, 0x03, 0xd5,
                                    0x02, 0x07, 0x02, 0x00};
  /* v_cmp_lt_i32_e64 s20, v2, v3 */
  static const uint8_t cmp[] = {0x14, 0x00, 0x41, 0xd4, 0x02, 0x07, 0x02, 0x00};
  /* v_dual_mul_f32 v10, v2, v3 :: v_dual_add_f32 v11, v4, v5 */
  static const uint8_t dual[] = {0x02, 0x07, 0xc8, 0xc8,
                                 0x04, 0x0b, 0x0a, 0x0a};
  /* v_pk_add_f16 v10, v2, v3 */
  static const uint8_t pk_add[] = {0x0a, 0x40, 0x0f, 0xcc,
                                   0x02, 0x07, 0x02, 0x18};
  /* v_add_f16_e32 v10, v2, v3 */
  static const uint8_t add_f16[] = {0x02, 0x07, 0x14, 0x64};
  /* s_cmp_lg_u32 s2, 3 */
  static const uint8_t scmp[] = {0x02, 0x83, 0x07, 0xbf};
  /* v_cmpx_gt_f16_e32 v2, v3 */
  static const uint8_t cmpx_f16[] = {0x02, 0x07, 0x08, 0x7d};
  /* v_pk_ashrrev_i16 v10, v2, v3 */
  static const uint8_t pk_ashr[] = {0x0a, 0x40, 0x06, 0xcc,
                                    0x02, 0x07, 0x02, 0x18};
  /* s_denorm_mode 12 */
  static const uint8_t denorm[] = {0x0c, 0x00, 0x92, 0xbf};
  /* v_cmp_class_f32_e64 s20, v2, v3 */
  static const uint8_t cmp_class[] = {0x14, 0x00, 0x7e, 0xd4,
                                      0x02, 0x07, 0x02, 0x00};
  /* v_dual_fmamk_f32 v10, v2, 0x40400000, v3 :: v_dual_mov_b32 v11, v4 */
  static const uint8_t dual_k[] = {0x02, 0x07, 0x90, 0xc8, 0x04, 0x01,
                                   0x0a, 0x0a, 0x00, 0x00, 0x40, 0x40};
  expect_mnemonic(cmp_class, sizeof(cmp_class), "v_cmp_class_f32_e64");
  expect_mnemonic(dual_k, sizeof(dual_k), "v_dual_fmamk_f32::mov_b32");
  expect_mnemonic(add_e64, sizeof(add_e64), "v_add_f32_e64");
  expect_mnemonic(cmpx_f16, sizeof(cmpx_f16), "v_cmpx_gt_f16");
  expect_mnemonic(pk_ashr, sizeof(pk_ashr), "v_pk_ashrrev_i16");
  expect_mnemonic(denorm, sizeof(denorm), "s_denorm_mode");
  expect_mnemonic(cmp, sizeof(cmp), "v_cmp_lt_i32_e64");
  expect_mnemonic(dual, sizeof(dual), "v_dual_mul_f32::add_f32");
  expect_mnemonic(pk_add, sizeof(pk_add), "v_pk_add_f16");
  expect_mnemonic(add_f16, sizeof(add_f16), "v_add_f16");
  expect_mnemonic(scmp, sizeof(scmp), "s_cmp_lg_u32");
  expect_mnemonic(unmodelled, sizeof(unmodelled), "VOP1 opcode 64");
}

/* Every workgroup of a threaded dispatch faults at once, each at its own
 * address: the one fault reported is whole, not a mix of two. */
static void test_threaded_fault_reported_once(void** state) {
  (void)state;
  static const uint8_t body[] = {
      /* v_lshlrev_b32_e64 v6, 4, s2 */
      0x06, 0x00, 0x18, 0xd5, 0x84, 0x04, 0x00, 0x00,
      /* global_store_b32 v6, v5, s[4:5] */
      0x00, 0x00, 0x6a, 0xdc, 0x06, 0x05, 0x04, 0x00,
  };
  enum { GROUPS = 64 };
  harness_t h = {.grid = {GROUP * GROUPS, 1, 1},
                 .workgroup = {GROUP, 1, 1},
                 .threads = 4};
  uint32_t in[4] = {0x10, 0, 0, 0};  /* s[4:5] = 0x10: never mapped */
  for (int run = 0; run < 10; ++run) {
    hrx_gfx11_fault_t fault;
    hrx_status_t status =
        run_body(&h, body, sizeof(body), in, RSRC2_DEFAULT, &fault);
    assert_status(status, HRX_STATUS_ABORTED, "global_store_b32");
    assert_int_equal(fault.kind, HRX_GFX11_FAULT_OUT_OF_BOUNDS);
    assert_true(fault.workgroup[0] < GROUPS);
    assert_int_equal(fault.address, 0x10 + 16ull * fault.workgroup[0]);
    assert_int_equal(fault.wave, 0);
    assert_int_equal(fault.byte_count, 8);
    assert_memory_equal(fault.bytes, body + 8, 8);
    assert_string_equal(fault.mnemonic, "global_store_b32");
  }
}

/* Workgroup 3 faults while the others spin forever with no instruction
 * budget to stop them: the fault stops every worker, or this test would
 * never end. */
static void test_threaded_fault_stops_others(void** state) {
  (void)state;
  static const uint8_t body[] = {
      0x02, 0x83, 0x07, 0xbf,  /* s_cmp_lg_u32 s2, 3 */
      0xff, 0xff, 0xa2, 0xbf,  /* s_cbranch_scc1 -1 (itself) */
      0xff, 0xff, 0xff, 0xff,  /* undecodable */
  };
  harness_t h = {.grid = {GROUP * 8, 1, 1},
                 .workgroup = {GROUP, 1, 1},
                 .threads = 4,
                 .budget = UINT64_MAX};
  uint32_t in[4] = {0, 0, 0, 0};
  hrx_gfx11_fault_t fault;
  assert_status(run_body(&h, body, sizeof(body), in, RSRC2_DEFAULT, &fault),
                HRX_STATUS_ABORTED, "no gfx11 encoding");
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_UNDECODABLE);
  assert_int_equal(fault.workgroup[0], 3);
  assert_int_equal(fault.byte_count, 4);
}

static void test_thread_count_checked(void** state) {
  (void)state;
  harness_t h = HARNESS_1D;
  h.threads = HRX_GFX11_MAX_THREADS + 1;
  hrx_gfx11_fault_t fault;
  uint32_t in[4] = {0, 0, 0, 0};
  assert_status(run_body(&h, NULL, 0, in, RSRC2_DEFAULT, &fault),
                HRX_STATUS_INVALID_ARGUMENT, "threads");
}

static uint64_t monotonic_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* tests/kernels/spin.loom (64 work-items a workgroup) with data {0, 1}:
 * it loops until data[0] == data[1], so never. Eight workgroups, no
 * instruction budget: only the watchdog or the cancel flag end it. */
static hrx_status_t run_spin(uint64_t kd, hrx_gfx11_range_t image,
                             uint32_t threads, uint64_t timeout_ns,
                             const _Atomic bool* cancel,
                             hrx_gfx11_fault_t* fault) {
  enum { THREADS = 64, GROUPS = 8 };
  int32_t data[2] = {0, 1};
  uint32_t kernarg_size = 0;
  uint8_t* kernarg = new_kernarg(kd, &kernarg_size);
  assert_true(kernarg_size >= 8);
  put_u(kernarg, 0, (uint64_t)(uintptr_t)data, 8);
  if (kernarg_size >= 26) {
    put_u(kernarg, 8, GROUPS, 4);   /* hidden_block_count_x, y, z */
    put_u(kernarg, 12, 1, 4);
    put_u(kernarg, 16, 1, 4);
    put_u(kernarg, 20, THREADS, 2);  /* hidden_group_size_x, y, z */
    put_u(kernarg, 22, 1, 2);
    put_u(kernarg, 24, 1, 2);
  }
  hrx_gfx11_range_t ranges[] = {
      image,
      {(uint64_t)(uintptr_t)kernarg, kernarg_size},
      {(uint64_t)(uintptr_t)data, sizeof(data)},
  };
  hrx_gfx11_dispatch_t dispatch = {
      .kernel_descriptor = kd,
      .kernarg = (uint64_t)(uintptr_t)kernarg,
      .grid = {GROUPS * THREADS, 1, 1},
      .workgroup = {THREADS, 1, 1},
      .ranges = ranges,
      .range_count = 3,
      .wave_instruction_budget = UINT64_MAX,
      .threads = threads,
      .timeout_ns = timeout_ns,
      .cancel = cancel,
  };
  hrx_status_t status =
      hrx_gfx11_dispatch(&dispatch, hrx_allocator_system(), fault);
  free(kernarg);
  return status;
}

static hrx_gfx11_image_t* load_spin(uint64_t* out_kd) {
  hrx_gfx11_image_t* image = gfx11_test_load("../../tests/kernels/spin.loom");
  assert_ok(hrx_gfx11_image_kernel(image, "spin", out_kd));
  return image;
}

/* The watchdog ends an endless dispatch soon after its bound, on one
 * thread or four, naming the instruction the wave had reached. */
static void test_watchdog(void** state) {
  (void)state;
  uint64_t kd = 0;
  hrx_gfx11_image_t* image = load_spin(&kd);
  static const uint32_t threads[] = {1, 4};
  for (size_t i = 0; i < 2; ++i) {
    hrx_gfx11_fault_t fault;
    uint64_t start = monotonic_ns();
    hrx_status_t status = run_spin(kd, hrx_gfx11_image_range(image),
                                   threads[i], 50000000, NULL, &fault);
    uint64_t elapsed = monotonic_ns() - start;
    assert_non_null(strstr(hrx_status_message(status), fault.mnemonic));
    assert_status(status, HRX_STATUS_ABORTED, "watchdog");
    assert_int_equal(fault.kind, HRX_GFX11_FAULT_BUDGET);
    assert_non_null(strstr(fault.reason, "watchdog"));
    assert_true(fault.mnemonic[0] != '\0');
    assert_true(fault.byte_count >= 4);
    assert_true(elapsed >= 50000000);
    assert_true(elapsed < 10000000000ull);
  }
  hrx_gfx11_image_destroy(image);
}

static void* cancel_later(void* arg) {
  _Atomic bool* flag = arg;
  struct timespec pause = {0, 20000000};
  nanosleep(&pause, NULL);
  atomic_store(flag, true);
  return NULL;
}

/* Another thread's cancel flag ends an endless dispatch; a flag already
 * set ends it at its first instruction. */
static void test_cancel(void** state) {
  (void)state;
  uint64_t kd = 0;
  hrx_gfx11_image_t* image = load_spin(&kd);
  _Atomic bool flag;
  atomic_init(&flag, false);
  pthread_t canceller;
  assert_int_equal(pthread_create(&canceller, NULL, cancel_later, &flag), 0);
  hrx_gfx11_fault_t fault;
  hrx_status_t status =
      run_spin(kd, hrx_gfx11_image_range(image), 4, 0, &flag, &fault);
  pthread_join(canceller, NULL);
  assert_status(status, HRX_STATUS_ABORTED, "cancelled");
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_BUDGET);
  assert_non_null(strstr(fault.reason, "cancelled"));
  status = run_spin(kd, hrx_gfx11_image_range(image), 1, 0, &flag, &fault);
  assert_status(status, HRX_STATUS_ABORTED, "cancelled");
  assert_int_equal(fault.workgroup[0], 0);
  hrx_gfx11_image_destroy(image);
}

static void test_bad_objects(void** state) {
  (void)state;
  hrx_gfx11_image_t* image = NULL;
  static const uint8_t not_elf[64] = {'n', 'o', 't'};
  assert_status(hrx_gfx11_image_load(not_elf, sizeof(not_elf),
                                     hrx_allocator_system(), &image),
                HRX_STATUS_DATA_LOSS, "ELF64");
  assert_null(image);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_instructions),
      cmocka_unit_test(test_scratch_instructions),
      cmocka_unit_test(test_scratch_out_of_bounds),
      cmocka_unit_test(test_scratch_slots),
      cmocka_unit_test(test_workitem_ids),
      cmocka_unit_test(test_packed_workitem_ids),
      cmocka_unit_test(test_workgroup_id_sgprs),
      cmocka_unit_test(test_faults),
      cmocka_unit_test(test_lds_out_of_bounds),
      cmocka_unit_test(test_descriptor_checks),
      cmocka_unit_test(test_descriptor_denorm_modes),
      cmocka_unit_test(test_non_ieee_min_max),
      cmocka_unit_test(test_f16_compare_opsel),
      cmocka_unit_test(test_mode_limits),
      cmocka_unit_test(test_saxpy),
      cmocka_unit_test(test_gather),
      cmocka_unit_test(test_templates),
      cmocka_unit_test(test_histogram),
      cmocka_unit_test(test_bad_objects),
      cmocka_unit_test(test_mnemonics),
      cmocka_unit_test(test_threaded_fault_reported_once),
      cmocka_unit_test(test_threaded_fault_stops_others),
      cmocka_unit_test(test_thread_count_checked),
      cmocka_unit_test(test_watchdog),
      cmocka_unit_test(test_cancel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
