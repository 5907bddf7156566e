/* The gfx11 opcodes the model executes, one list per encoding, each entry
 * X(ID, number, "mnemonic"). The executors take their enum constants from
 * these lists and the fault reports their names (gfx11_mnemonic), so an
 * opcode is numbered and named in exactly one place. Numbers are gfx11's
 * (RDNA3 ISA guide), each checked against llvm-mc-19 -mcpu=gfx1151
 * encodings in tests/fabric/test_gfx11.c. Compares (VOPC) are named from
 * their number's fields instead: see gfx11_names.c. */
#ifndef HRX_FABRIC_GFX11_OPCODES_H_
#define HRX_FABRIC_GFX11_OPCODES_H_

#define GFX11_SOP1_OPS(X)                                  \
  X(S_MOV_B32, 0x00, "s_mov_b32")                          \
  X(S_MOV_B64, 0x01, "s_mov_b64")                          \
  X(S_BREV_B32, 0x04, "s_brev_b32")                        \
  X(S_CTZ_I32_B32, 0x08, "s_ctz_i32_b32")                  \
  X(S_CTZ_I32_B64, 0x09, "s_ctz_i32_b64")                  \
  X(S_CLZ_I32_U32, 0x0A, "s_clz_i32_u32")                  \
  X(S_BCNT1_I32_B32, 0x18, "s_bcnt1_i32_b32")              \
  X(S_NOT_B32, 0x1E, "s_not_b32")                          \
  X(S_AND_SAVEEXEC_B32, 0x20, "s_and_saveexec_b32")        \
  X(S_OR_SAVEEXEC_B32, 0x22, "s_or_saveexec_b32")          \
  X(S_AND_NOT1_SAVEEXEC_B32, 0x30, "s_and_not1_saveexec_b32") \
  X(S_TRUNC_F32, 0x62, "s_trunc_f32")                      \
  X(S_CVT_F32_I32, 0x64, "s_cvt_f32_i32")                  \
  X(S_CVT_F32_U32, 0x65, "s_cvt_f32_u32")                  \
  X(S_CVT_I32_F32, 0x66, "s_cvt_i32_f32")                  \
  X(S_CVT_U32_F32, 0x67, "s_cvt_u32_f32")

#define GFX11_SOP2_OPS(X)                      \
  X(S_ADD_U32, 0, "s_add_u32")                 \
  X(S_SUB_U32, 1, "s_sub_u32")                 \
  X(S_ADD_I32, 2, "s_add_i32")                 \
  X(S_SUB_I32, 3, "s_sub_i32")                 \
  X(S_ADDC_U32, 4, "s_addc_u32")               \
  X(S_SUBB_U32, 5, "s_subb_u32")               \
  X(S_LSHL_B32, 8, "s_lshl_b32")               \
  X(S_LSHL_B64, 9, "s_lshl_b64")               \
  X(S_LSHR_B32, 10, "s_lshr_b32")              \
  X(S_LSHR_B64, 11, "s_lshr_b64")              \
  X(S_ASHR_I32, 12, "s_ashr_i32")              \
  X(S_ASHR_I64, 13, "s_ashr_i64")              \
  X(S_MIN_I32, 18, "s_min_i32")                \
  X(S_MIN_U32, 19, "s_min_u32")                \
  X(S_MAX_I32, 20, "s_max_i32")                \
  X(S_MAX_U32, 21, "s_max_u32")                \
  X(S_AND_B32, 22, "s_and_b32")                \
  X(S_AND_B64, 23, "s_and_b64")                \
  X(S_OR_B32, 24, "s_or_b32")                  \
  X(S_OR_B64, 25, "s_or_b64")                  \
  X(S_XOR_B32, 26, "s_xor_b32")                \
  X(S_XOR_B64, 27, "s_xor_b64")                \
  X(S_AND_NOT1_B32, 34, "s_and_not1_b32")      \
  X(S_MUL_I32, 44, "s_mul_i32")                \
  X(S_MUL_HI_U32, 45, "s_mul_hi_u32")          \
  X(S_MUL_HI_I32, 46, "s_mul_hi_i32")          \
  X(S_CSELECT_B32, 48, "s_cselect_b32")        \
  X(S_ADD_F32, 64, "s_add_f32")                \
  X(S_SUB_F32, 65, "s_sub_f32")                \
  X(S_MIN_F32, 66, "s_min_f32")                \
  X(S_MAX_F32, 67, "s_max_f32")                \
  X(S_MUL_F32, 68, "s_mul_f32")                \
  X(S_FMAAK_F32, 69, "s_fmaak_f32")            \
  X(S_FMAMK_F32, 70, "s_fmamk_f32")                \
  X(S_FMAC_F32, 71, "s_fmac_f32")

#define GFX11_SOPC_OPS(X)                      \
  X(S_CMP_EQ_I32, 0, "s_cmp_eq_i32")           \
  X(S_CMP_LG_I32, 1, "s_cmp_lg_i32")           \
  X(S_CMP_GT_I32, 2, "s_cmp_gt_i32")           \
  X(S_CMP_GE_I32, 3, "s_cmp_ge_i32")           \
  X(S_CMP_LT_I32, 4, "s_cmp_lt_i32")           \
  X(S_CMP_LE_I32, 5, "s_cmp_le_i32")           \
  X(S_CMP_EQ_U32, 6, "s_cmp_eq_u32")           \
  X(S_CMP_LG_U32, 7, "s_cmp_lg_u32")           \
  X(S_CMP_GT_U32, 8, "s_cmp_gt_u32")           \
  X(S_CMP_GE_U32, 9, "s_cmp_ge_u32")           \
  X(S_CMP_LT_U32, 10, "s_cmp_lt_u32")          \
  X(S_CMP_LE_U32, 11, "s_cmp_le_u32")          \
  X(S_CMP_EQ_U64, 16, "s_cmp_eq_u64")          \
  X(S_CMP_LG_U64, 17, "s_cmp_lg_u64")

#define GFX11_SOPK_OPS(X)                      \
  X(S_MOVK_I32, 0x00, "s_movk_i32")            \
  X(S_GETREG_B32, 0x11, "s_getreg_b32")        \
  X(S_SETREG_B32, 0x12, "s_setreg_b32")        \
  X(S_SETREG_IMM32_B32, 0x13, "s_setreg_imm32_b32") \
  X(S_WAITCNT_VSCNT, 0x18, "s_waitcnt_vscnt")

#define GFX11_SOPP_OPS(X)                                       \
  X(S_NOP, 0x00, "s_nop")                                       \
  X(S_SET_INST_PREFETCH_DISTANCE, 0x04, "s_set_inst_prefetch_distance") \
  X(S_CLAUSE, 0x05, "s_clause")                                 \
  X(S_DELAY_ALU, 0x07, "s_delay_alu")                           \
  X(S_WAITCNT_DEPCTR, 0x08, "s_waitcnt_depctr")                 \
  X(S_WAITCNT, 0x09, "s_waitcnt")                               \
  X(S_ROUND_MODE, 0x11, "s_round_mode")                         \
  X(S_DENORM_MODE, 0x12, "s_denorm_mode")                       \
  X(S_BRANCH, 0x20, "s_branch")                                 \
  X(S_CBRANCH_SCC0, 0x21, "s_cbranch_scc0")                     \
  X(S_CBRANCH_SCC1, 0x22, "s_cbranch_scc1")                     \
  X(S_CBRANCH_VCCZ, 0x23, "s_cbranch_vccz")                     \
  X(S_CBRANCH_VCCNZ, 0x24, "s_cbranch_vccnz")                   \
  X(S_CBRANCH_EXECZ, 0x25, "s_cbranch_execz")                   \
  X(S_CBRANCH_EXECNZ, 0x26, "s_cbranch_execnz")                 \
  X(S_ENDPGM, 0x30, "s_endpgm")                                 \
  X(S_SENDMSG, 0x36, "s_sendmsg")                               \
  X(S_BARRIER, 0x3D, "s_barrier")

#define GFX11_SMEM_OPS(X)                      \
  X(S_LOAD_B32, 0, "s_load_b32")               \
  X(S_LOAD_B64, 1, "s_load_b64")               \
  X(S_LOAD_B128, 2, "s_load_b128")             \
  X(S_LOAD_B256, 3, "s_load_b256")             \
  X(S_LOAD_B512, 4, "s_load_b512")

/* VOP2, VOP1 and VOP3-only ops in the VOP3 numbering (VOP2 256 + n, VOP1
 * 384 + n), the space the decoder renumbers the short forms into. */
#define GFX11_VOP_OPS(X)                                   \
  X(V_CNDMASK_B32, 0x101, "v_cndmask_b32")                 \
  X(V_ADD_F32, 0x103, "v_add_f32")                         \
  X(V_SUB_F32, 0x104, "v_sub_f32")                         \
  X(V_SUBREV_F32, 0x105, "v_subrev_f32")                   \
  X(V_MUL_F32, 0x108, "v_mul_f32")                         \
  X(V_MUL_I32_I24, 0x109, "v_mul_i32_i24")                 \
  X(V_MUL_U32_U24, 0x10B, "v_mul_u32_u24")                 \
  X(V_MIN_F32, 0x10F, "v_min_f32")                         \
  X(V_MAX_F32, 0x110, "v_max_f32")                         \
  X(V_MIN_I32, 0x111, "v_min_i32")                         \
  X(V_MAX_I32, 0x112, "v_max_i32")                         \
  X(V_MIN_U32, 0x113, "v_min_u32")                         \
  X(V_MAX_U32, 0x114, "v_max_u32")                         \
  X(V_LSHLREV_B32, 0x118, "v_lshlrev_b32")                 \
  X(V_LSHRREV_B32, 0x119, "v_lshrrev_b32")                 \
  X(V_ASHRREV_I32, 0x11A, "v_ashrrev_i32")                 \
  X(V_AND_B32, 0x11B, "v_and_b32")                         \
  X(V_OR_B32, 0x11C, "v_or_b32")                           \
  X(V_XOR_B32, 0x11D, "v_xor_b32")                         \
  X(V_ADD_CO_CI_U32, 0x120, "v_add_co_ci_u32")             \
  X(V_SUB_CO_CI_U32, 0x121, "v_sub_co_ci_u32")             \
  X(V_SUBREV_CO_CI_U32, 0x122, "v_subrev_co_ci_u32")       \
  X(V_ADD_NC_U32, 0x125, "v_add_nc_u32")                   \
  X(V_SUB_NC_U32, 0x126, "v_sub_nc_u32")                   \
  X(V_SUBREV_NC_U32, 0x127, "v_subrev_nc_u32")             \
  X(V_FMAC_F32, 0x12B, "v_fmac_f32")                       \
  X(V_FMAMK_F32, 0x12C, "v_fmamk_f32")                     \
  X(V_FMAAK_F32, 0x12D, "v_fmaak_f32")                     \
  X(V_ADD_F16, 0x132, "v_add_f16")                         \
  X(V_MUL_F16, 0x135, "v_mul_f16")                         \
  X(V_FMAC_F16, 0x136, "v_fmac_f16")                       \
  X(V_MOV_B32, 0x181, "v_mov_b32")                         \
  X(V_READFIRSTLANE_B32, 0x182, "v_readfirstlane_b32")     \
  X(V_CVT_F32_I32, 0x185, "v_cvt_f32_i32")                 \
  X(V_CVT_F32_U32, 0x186, "v_cvt_f32_u32")                 \
  X(V_CVT_U32_F32, 0x187, "v_cvt_u32_f32")                 \
  X(V_CVT_I32_F32, 0x188, "v_cvt_i32_f32")                 \
  X(V_CVT_F16_F32, 0x18A, "v_cvt_f16_f32")                 \
  X(V_CVT_F32_F16, 0x18B, "v_cvt_f32_f16")                 \
  X(V_CVT_F32_UBYTE0, 0x191, "v_cvt_f32_ubyte0")           \
  X(V_TRUNC_F32, 0x1A1, "v_trunc_f32")                     \
  X(V_CEIL_F32, 0x1A2, "v_ceil_f32")                       \
  X(V_RNDNE_F32, 0x1A3, "v_rndne_f32")                     \
  X(V_FLOOR_F32, 0x1A4, "v_floor_f32")                     \
  X(V_EXP_F32, 0x1A5, "v_exp_f32")                         \
  X(V_LOG_F32, 0x1A7, "v_log_f32")                         \
  X(V_RCP_F32, 0x1AA, "v_rcp_f32")                         \
  X(V_RCP_IFLAG_F32, 0x1AB, "v_rcp_iflag_f32")             \
  X(V_RSQ_F32, 0x1AE, "v_rsq_f32")                         \
  X(V_SQRT_F32, 0x1B3, "v_sqrt_f32")                       \
  X(V_SIN_F32, 0x1B5, "v_sin_f32")                         \
  X(V_COS_F32, 0x1B6, "v_cos_f32")                         \
  X(V_NOT_B32, 0x1B7, "v_not_b32")                         \
  X(V_BFREV_B32, 0x1B8, "v_bfrev_b32")                     \
  X(V_CLZ_I32_U32, 0x1B9, "v_clz_i32_u32")                 \
  X(V_CTZ_I32_B32, 0x1BA, "v_ctz_i32_b32")                 \
  X(V_MAD_I32_I24, 0x20A, "v_mad_i32_i24")                 \
  X(V_MAD_U32_U24, 0x20B, "v_mad_u32_u24")                 \
  X(V_BFE_U32, 0x210, "v_bfe_u32")                         \
  X(V_BFE_I32, 0x211, "v_bfe_i32")                         \
  X(V_BFI_B32, 0x212, "v_bfi_b32")                         \
  X(V_FMA_F32, 0x213, "v_fma_f32")                         \
  X(V_ALIGNBIT_B32, 0x216, "v_alignbit_b32")               \
  X(V_MIN3_F32, 0x219, "v_min3_f32")                       \
  X(V_MIN3_I32, 0x21A, "v_min3_i32")                       \
  X(V_MIN3_U32, 0x21B, "v_min3_u32")                       \
  X(V_MAX3_F32, 0x21C, "v_max3_f32")                       \
  X(V_MAX3_I32, 0x21D, "v_max3_i32")                       \
  X(V_MAX3_U32, 0x21E, "v_max3_u32")                       \
  X(V_MED3_F32, 0x21F, "v_med3_f32")                       \
  X(V_MED3_I32, 0x220, "v_med3_i32")                       \
  X(V_MED3_U32, 0x221, "v_med3_u32")                       \
  X(V_DIV_FIXUP_F32, 0x227, "v_div_fixup_f32")             \
  X(V_DIV_FMAS_F32, 0x237, "v_div_fmas_f32")               \
  X(V_XOR3_B32, 0x240, "v_xor3_b32")                       \
  X(V_PERM_B32, 0x244, "v_perm_b32")                       \
  X(V_XAD_U32, 0x245, "v_xad_u32")                         \
  X(V_LSHL_ADD_U32, 0x246, "v_lshl_add_u32")               \
  X(V_FMA_F16, 0x248, "v_fma_f16")                         \
  X(V_ADD3_U32, 0x255, "v_add3_u32")                       \
  X(V_LSHL_OR_B32, 0x256, "v_lshl_or_b32")                 \
  X(V_AND_OR_B32, 0x257, "v_and_or_b32")                   \
  X(V_OR3_B32, 0x258, "v_or3_b32")                         \
  X(V_MAXMIN_F32, 0x25E, "v_maxmin_f32")                   \
  X(V_MINMAX_F32, 0x25F, "v_minmax_f32")                   \
  X(V_DIV_SCALE_F32, 0x2FC, "v_div_scale_f32")             \
  X(V_MAD_U64_U32, 0x2FE, "v_mad_u64_u32")                 \
  X(V_MAD_I64_I32, 0x2FF, "v_mad_i64_i32")                 \
  X(V_ADD_CO_U32, 0x300, "v_add_co_u32")                   \
  X(V_SUB_CO_U32, 0x301, "v_sub_co_u32")                   \
  X(V_SUBREV_CO_U32, 0x302, "v_subrev_co_u32")             \
  X(V_ADD_NC_U16, 0x303, "v_add_nc_u16")                   \
  X(V_SUB_NC_U16, 0x304, "v_sub_nc_u16")                   \
  X(V_MUL_LO_U16, 0x305, "v_mul_lo_u16")                   \
  X(V_PACK_B32_F16, 0x311, "v_pack_b32_f16")               \
  X(V_LDEXP_F32, 0x31C, "v_ldexp_f32")                     \
  X(V_BCNT_U32_B32, 0x31E, "v_bcnt_u32_b32")               \
  X(V_MBCNT_LO_U32_B32, 0x31F, "v_mbcnt_lo_u32_b32")       \
  X(V_MUL_LO_U32, 0x32C, "v_mul_lo_u32")                   \
  X(V_MUL_HI_U32, 0x32D, "v_mul_hi_u32")                   \
  X(V_MUL_HI_I32, 0x32E, "v_mul_hi_i32")                   \
  X(V_LSHLREV_B16, 0x338, "v_lshlrev_b16")                 \
  X(V_LSHRREV_B16, 0x339, "v_lshrrev_b16")                 \
  X(V_ASHRREV_I16, 0x33A, "v_ashrrev_i16")                 \
  X(V_LSHLREV_B64, 0x33C, "v_lshlrev_b64")                 \
  X(V_LSHRREV_B64, 0x33D, "v_lshrrev_b64")                 \
  X(V_ASHRREV_I64, 0x33E, "v_ashrrev_i64")                 \
  X(V_READLANE_B32, 0x360, "v_readlane_b32")               \
  X(V_WRITELANE_B32, 0x361, "v_writelane_b32")

/* Packed 16-bit math (VOP3P). */
#define GFX11_VOP3P_OPS(X)                     \
  X(V_PK_MUL_LO_U16, 1, "v_pk_mul_lo_u16")     \
  X(V_PK_ADD_I16, 2, "v_pk_add_i16")           \
  X(V_PK_SUB_I16, 3, "v_pk_sub_i16")           \
  X(V_PK_LSHLREV_B16, 4, "v_pk_lshlrev_b16")   \
  X(V_PK_LSHRREV_B16, 5, "v_pk_lshrrev_b16")   \
  X(V_PK_ASHRREV_I16, 6, "v_pk_ashrrev_i16")   \
  X(V_PK_MAX_I16, 7, "v_pk_max_i16")           \
  X(V_PK_MIN_I16, 8, "v_pk_min_i16")           \
  X(V_PK_ADD_U16, 10, "v_pk_add_u16")          \
  X(V_PK_SUB_U16, 11, "v_pk_sub_u16")          \
  X(V_PK_MAX_U16, 12, "v_pk_max_u16")          \
  X(V_PK_MIN_U16, 13, "v_pk_min_u16")          \
  X(V_PK_FMA_F16, 14, "v_pk_fma_f16")          \
  X(V_PK_ADD_F16, 15, "v_pk_add_f16")          \
  X(V_PK_MUL_F16, 16, "v_pk_mul_f16")          \
  X(V_PK_MIN_F16, 17, "v_pk_min_f16")          \
  X(V_PK_MAX_F16, 18, "v_pk_max_f16")          \
  X(V_WMMA_F32_16X16X16_F16, 64, "v_wmma_f32_16x16x16_f16") \
  X(V_WMMA_F32_16X16X16_BF16, 65, "v_wmma_f32_16x16x16_bf16") \
  X(V_WMMA_F16_16X16X16_F16, 66, "v_wmma_f16_16x16x16_f16") \
  X(V_WMMA_BF16_16X16X16_BF16, 67, "v_wmma_bf16_16x16x16_bf16") \
  X(V_WMMA_I32_16X16X16_IU8, 68, "v_wmma_i32_16x16x16_iu8") \
  X(V_WMMA_I32_16X16X16_IU4, 69, "v_wmma_i32_16x16x16_iu4")

#define GFX11_GLOBAL_OPS(X)                                  \
  X(GLOBAL_LOAD_U8, 16, "global_load_u8")                    \
  X(GLOBAL_LOAD_I8, 17, "global_load_i8")                    \
  X(GLOBAL_LOAD_U16, 18, "global_load_u16")                  \
  X(GLOBAL_LOAD_I16, 19, "global_load_i16")                  \
  X(GLOBAL_LOAD_B32, 20, "global_load_b32")                  \
  X(GLOBAL_LOAD_B64, 21, "global_load_b64")                  \
  X(GLOBAL_LOAD_B96, 22, "global_load_b96")                  \
  X(GLOBAL_LOAD_B128, 23, "global_load_b128")                \
  X(GLOBAL_STORE_B8, 24, "global_store_b8")                  \
  X(GLOBAL_STORE_B16, 25, "global_store_b16")                \
  X(GLOBAL_STORE_B32, 26, "global_store_b32")                \
  X(GLOBAL_STORE_B64, 27, "global_store_b64")                \
  X(GLOBAL_STORE_B96, 28, "global_store_b96")                \
  X(GLOBAL_STORE_B128, 29, "global_store_b128")              \
  X(GLOBAL_LOAD_D16_U8, 30, "global_load_d16_u8")            \
  X(GLOBAL_LOAD_D16_I8, 31, "global_load_d16_i8")            \
  X(GLOBAL_LOAD_D16_B16, 32, "global_load_d16_b16")          \
  X(GLOBAL_LOAD_D16_HI_U8, 33, "global_load_d16_hi_u8")      \
  X(GLOBAL_LOAD_D16_HI_I8, 34, "global_load_d16_hi_i8")      \
  X(GLOBAL_LOAD_D16_HI_B16, 35, "global_load_d16_hi_b16")    \
  X(GLOBAL_STORE_D16_HI_B8, 36, "global_store_d16_hi_b8")    \
  X(GLOBAL_STORE_D16_HI_B16, 37, "global_store_d16_hi_b16")  \
  X(GLOBAL_ATOMIC_SWAP_B32, 51, "global_atomic_swap_b32")    \
  X(GLOBAL_ATOMIC_CMPSWAP_B32, 52, "global_atomic_cmpswap_b32") \
  X(GLOBAL_ATOMIC_ADD_U32, 53, "global_atomic_add_u32")      \
  X(GLOBAL_ATOMIC_SUB_U32, 54, "global_atomic_sub_u32")      \
  X(GLOBAL_ATOMIC_MIN_I32, 56, "global_atomic_min_i32")      \
  X(GLOBAL_ATOMIC_MIN_U32, 57, "global_atomic_min_u32")      \
  X(GLOBAL_ATOMIC_MAX_I32, 58, "global_atomic_max_i32")      \
  X(GLOBAL_ATOMIC_MAX_U32, 59, "global_atomic_max_u32")      \
  X(GLOBAL_ATOMIC_AND_B32, 60, "global_atomic_and_b32")      \
  X(GLOBAL_ATOMIC_OR_B32, 61, "global_atomic_or_b32")        \
  X(GLOBAL_ATOMIC_XOR_B32, 62, "global_atomic_xor_b32")      \
  X(GLOBAL_ATOMIC_MIN_F32, 81, "global_atomic_min_f32")      \
  X(GLOBAL_ATOMIC_MAX_F32, 82, "global_atomic_max_f32")      \
  X(GLOBAL_ATOMIC_ADD_F32, 86, "global_atomic_add_f32")

/* SCRATCH (the FLAT encoding's private segment) numbers its loads and
 * stores as GLOBAL does; it has no atomics. */
#define GFX11_SCRATCH_OPS(X)                                   \
  X(SCRATCH_LOAD_U8, 16, "scratch_load_u8")                    \
  X(SCRATCH_LOAD_I8, 17, "scratch_load_i8")                    \
  X(SCRATCH_LOAD_U16, 18, "scratch_load_u16")                  \
  X(SCRATCH_LOAD_I16, 19, "scratch_load_i16")                  \
  X(SCRATCH_LOAD_B32, 20, "scratch_load_b32")                  \
  X(SCRATCH_LOAD_B64, 21, "scratch_load_b64")                  \
  X(SCRATCH_LOAD_B96, 22, "scratch_load_b96")                  \
  X(SCRATCH_LOAD_B128, 23, "scratch_load_b128")                \
  X(SCRATCH_STORE_B8, 24, "scratch_store_b8")                  \
  X(SCRATCH_STORE_B16, 25, "scratch_store_b16")                \
  X(SCRATCH_STORE_B32, 26, "scratch_store_b32")                \
  X(SCRATCH_STORE_B64, 27, "scratch_store_b64")                \
  X(SCRATCH_STORE_B96, 28, "scratch_store_b96")                \
  X(SCRATCH_STORE_B128, 29, "scratch_store_b128")              \
  X(SCRATCH_LOAD_D16_U8, 30, "scratch_load_d16_u8")            \
  X(SCRATCH_LOAD_D16_I8, 31, "scratch_load_d16_i8")            \
  X(SCRATCH_LOAD_D16_B16, 32, "scratch_load_d16_b16")          \
  X(SCRATCH_LOAD_D16_HI_U8, 33, "scratch_load_d16_hi_u8")      \
  X(SCRATCH_LOAD_D16_HI_I8, 34, "scratch_load_d16_hi_i8")      \
  X(SCRATCH_LOAD_D16_HI_B16, 35, "scratch_load_d16_hi_b16")    \
  X(SCRATCH_STORE_D16_HI_B8, 36, "scratch_store_d16_hi_b8")    \
  X(SCRATCH_STORE_D16_HI_B16, 37, "scratch_store_d16_hi_b16")

/* DS ops 0..11 are the LDS atomics, 32..43 the same returning the old
 * value. */
#define GFX11_DS_OPS(X)                                \
  X(DS_ADD_U32, 0, "ds_add_u32")                       \
  X(DS_SUB_U32, 1, "ds_sub_u32")                       \
  X(DS_RSUB_U32, 2, "ds_rsub_u32")                     \
  X(DS_INC_U32, 3, "ds_inc_u32")                       \
  X(DS_DEC_U32, 4, "ds_dec_u32")                       \
  X(DS_MIN_I32, 5, "ds_min_i32")                       \
  X(DS_MAX_I32, 6, "ds_max_i32")                       \
  X(DS_MIN_U32, 7, "ds_min_u32")                       \
  X(DS_MAX_U32, 8, "ds_max_u32")                       \
  X(DS_AND_B32, 9, "ds_and_b32")                       \
  X(DS_OR_B32, 10, "ds_or_b32")                        \
  X(DS_XOR_B32, 11, "ds_xor_b32")                      \
  X(DS_STORE_B32, 13, "ds_store_b32")                  \
  X(DS_CMPSTORE_B32, 16, "ds_cmpstore_b32")           \
  X(DS_MIN_F32, 18, "ds_min_f32")                     \
  X(DS_MAX_F32, 19, "ds_max_f32")                     \
  X(DS_ADD_F32, 21, "ds_add_f32")                     \
  X(DS_STORE_B8, 30, "ds_store_b8")                    \
  X(DS_STORE_B16, 31, "ds_store_b16")                  \
  X(DS_ADD_RTN_U32, 32, "ds_add_rtn_u32")              \
  X(DS_SUB_RTN_U32, 33, "ds_sub_rtn_u32")              \
  X(DS_RSUB_RTN_U32, 34, "ds_rsub_rtn_u32")            \
  X(DS_INC_RTN_U32, 35, "ds_inc_rtn_u32")              \
  X(DS_DEC_RTN_U32, 36, "ds_dec_rtn_u32")              \
  X(DS_MIN_RTN_I32, 37, "ds_min_rtn_i32")              \
  X(DS_MAX_RTN_I32, 38, "ds_max_rtn_i32")              \
  X(DS_MIN_RTN_U32, 39, "ds_min_rtn_u32")              \
  X(DS_MAX_RTN_U32, 40, "ds_max_rtn_u32")              \
  X(DS_AND_RTN_B32, 41, "ds_and_rtn_b32")              \
  X(DS_OR_RTN_B32, 42, "ds_or_rtn_b32")                \
  X(DS_XOR_RTN_B32, 43, "ds_xor_rtn_b32")              \
  X(DS_CMPSTORE_RTN_B32, 48, "ds_cmpstore_rtn_b32")   \
  X(DS_MIN_RTN_F32, 50, "ds_min_rtn_f32")             \
  X(DS_MAX_RTN_F32, 51, "ds_max_rtn_f32")             \
  X(DS_LOAD_B32, 54, "ds_load_b32")                    \
  X(DS_LOAD_I8, 57, "ds_load_i8")                      \
  X(DS_LOAD_U8, 58, "ds_load_u8")                      \
  X(DS_LOAD_I16, 59, "ds_load_i16")                    \
  X(DS_LOAD_U16, 60, "ds_load_u16")                    \
  X(DS_STORE_B64, 77, "ds_store_b64")                  \
  X(DS_LOAD_B64, 118, "ds_load_b64")                   \
  X(DS_ADD_RTN_F32, 121, "ds_add_rtn_f32")            \
  X(DS_LOAD_U8_D16, 162, "ds_load_u8_d16")             \
  X(DS_LOAD_U8_D16_HI, 163, "ds_load_u8_d16_hi")       \
  X(DS_LOAD_I8_D16, 164, "ds_load_i8_d16")             \
  X(DS_LOAD_I8_D16_HI, 165, "ds_load_i8_d16_hi")       \
  X(DS_LOAD_U16_D16, 166, "ds_load_u16_d16")           \
  X(DS_LOAD_U16_D16_HI, 167, "ds_load_u16_d16_hi")     \
  X(DS_BPERMUTE_B32, 179, "ds_bpermute_b32")           \
  X(DS_STORE_B96, 222, "ds_store_b96")                 \
  X(DS_STORE_B128, 223, "ds_store_b128")               \
  X(DS_LOAD_B96, 254, "ds_load_b96")                   \
  X(DS_LOAD_B128, 255, "ds_load_b128")

#define GFX11_MUBUF_OPS(X)                     \
  X(BUFFER_GL0_INV, 43, "buffer_gl0_inv")      \
  X(BUFFER_GL1_INV, 44, "buffer_gl1_inv")

/* The enum constants: GFX11_<ID>, e.g. GFX11_V_ADD_F32. */
#define GFX11_OPCODE_ENUM(id, number, name) GFX11_##id = number,
enum { GFX11_SOP1_OPS(GFX11_OPCODE_ENUM) };
enum { GFX11_SOP2_OPS(GFX11_OPCODE_ENUM) };
enum { GFX11_SOPC_OPS(GFX11_OPCODE_ENUM) };
enum { GFX11_SOPK_OPS(GFX11_OPCODE_ENUM) };
enum { GFX11_SOPP_OPS(GFX11_OPCODE_ENUM) };
enum { GFX11_SMEM_OPS(GFX11_OPCODE_ENUM) };
enum { GFX11_VOP_OPS(GFX11_OPCODE_ENUM) };
enum { GFX11_VOP3P_OPS(GFX11_OPCODE_ENUM) };
enum { GFX11_GLOBAL_OPS(GFX11_OPCODE_ENUM) };
enum { GFX11_SCRATCH_OPS(GFX11_OPCODE_ENUM) };
enum { GFX11_DS_OPS(GFX11_OPCODE_ENUM) };
enum { GFX11_MUBUF_OPS(GFX11_OPCODE_ENUM) };
#undef GFX11_OPCODE_ENUM

#endif  // HRX_FABRIC_GFX11_OPCODES_H_
