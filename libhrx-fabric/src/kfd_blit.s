// Blit kernels for the kfd provider's buffer copies and fills. A hardware
// AQL queue runs only kernel dispatch (and barrier) packets, not HRX's
// vendor "agent" copy/fill packets, so the provider turns each copy or fill
// into a dispatch of one of these kernels, as ROCr does with its own blit
// kernels.
//
// Regenerate the embedded object after editing this file:
//   scripts/gen-kfd-blit
// which runs
//   llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu=gfx1151 -filetype=obj
// and rewrites kfd_blit_object.c; tests/fabric/test_kfd_blit.c checks that
// the two agree whenever llvm-mc-19 is installed.
//
// Every kernel takes the same 40-byte kernarg segment (hrx_kfd_blit_args_t
// in kfd_blit.h):
//   u64 dst             @0   destination address
//   u64 source          @8   source address; for the fill, the low 32 bits
//                            are the pattern
//   u64 count           @16  units to move: bytes, dwords or 16-byte blocks
//   u64 stride          @24  work-items launched (the grid's x size)
//   u32 workgroup_size  @32  work-items per workgroup (the packet's x size)
//   u32 pad             @36
// The workgroup size travels in the kernarg because these kernels take no
// hidden arguments: code object v5 would otherwise find it in the hidden
// ones, which the provider would have to fill in for each dispatch.
//
// Each work-item handles units global_id, global_id + stride, ... below
// count (a grid-stride loop), so the provider may launch fewer work-items
// than units. Indices are 64-bit: count may exceed 2^32. The global id
// itself fits 32 bits, as an AQL grid size is a u32. The sum i + stride
// must not wrap 2^64, which holds for any buffer that exists.
//
// Copies assume the source and destination ranges do not overlap: a lane
// may store a unit before another lane loads it. The provider orders
// overlapping copies itself.
//
// Register use, the same in every kernel (wave32):
//   s[0:1]   kernarg segment pointer (the only user SGPR)
//   s2       workgroup id x, then the workgroup's first global id
//   s[4:5]   dst          s[6:7]  source or pattern
//   s[8:9]   count        s[10:11] stride (units)
//   s12      workgroup size, then s[12:13] the stride in bytes (the
//            wider units; for bytes s[10:11] serves)
//   v0       work-item id x, then v[0:1] the 64-bit unit index i
//   v[2:3]   source address of unit i (copies)
//   v[4:5]   destination address of unit i
//   v6..v9   the data in flight (the fill keeps its pattern in v6)
//
// The work-item id x is v0 unpacked: the descriptors ask for the x id only
// (.amdhsa_system_vgpr_workitem_id 0), so v0 holds nothing else.
//
// Hazards: a v_cmpx that writes EXEC after a non-VALU instruction that
// reads it (a global load or store, s_cbranch_exec*) needs a VALU with an
// SGPR destination in between on gfx10+ parts; in every loop below the
// v_add_co_u32 (carry-out to vcc_lo) of the index step sits between the
// store and the v_cmpx, and between the branch and the next iteration's
// v_cmpx. Loop exits leave EXEC empty; s_endpgm does not care.

	.amdgcn_target "amdgcn-amd-amdhsa--gfx1151"
	.amdhsa_code_object_version 5

	.text

// Shared prologue: loads the kernarg, forms i = workgroup_id * size + v0,
// drops the lanes with i >= count, and leaves the kernel (branching to
// \done) when none remains.
.macro BLIT_PROLOGUE done
	s_load_b256 s[4:11], s[0:1], 0x0
	s_load_b32 s12, s[0:1], 0x20
	s_waitcnt lgkmcnt(0)
	s_mul_i32 s2, s2, s12
	v_add_nc_u32_e32 v0, s2, v0
	v_mov_b32_e32 v1, 0
	v_cmpx_gt_u64_e32 s[8:9], v[0:1]
	s_cbranch_execz \done
.endm

// hrx_blit_copy_b8: dst[i] = source[i] for bytes i < count; any alignment.
	.globl hrx_blit_copy_b8
	.p2align 8
	.type hrx_blit_copy_b8,@function
hrx_blit_copy_b8:
	BLIT_PROLOGUE .Lcopy_b8_done
	// Byte units: the unit index is the byte offset, and the stride in
	// bytes is the stride.
	v_add_co_u32 v2, vcc_lo, s6, v0
	v_add_co_ci_u32_e32 v3, vcc_lo, s7, v1, vcc_lo
	v_add_co_u32 v4, vcc_lo, s4, v0
	v_add_co_ci_u32_e32 v5, vcc_lo, s5, v1, vcc_lo
.Lcopy_b8_loop:
	global_load_u8 v6, v[2:3], off
	// Advance the source address and the index while the load is in
	// flight; the load has already read its address.
	v_add_co_u32 v2, vcc_lo, s10, v2
	v_add_co_ci_u32_e32 v3, vcc_lo, s11, v3, vcc_lo
	s_waitcnt vmcnt(0)
	global_store_b8 v[4:5], v6, off
	v_add_co_u32 v0, vcc_lo, s10, v0
	v_add_co_ci_u32_e32 v1, vcc_lo, s11, v1, vcc_lo
	v_add_co_u32 v4, vcc_lo, s10, v4
	v_add_co_ci_u32_e32 v5, vcc_lo, s11, v5, vcc_lo
	v_cmpx_gt_u64_e32 s[8:9], v[0:1]
	s_cbranch_execnz .Lcopy_b8_loop
.Lcopy_b8_done:
	s_endpgm
.Lcopy_b8_end:
	.size hrx_blit_copy_b8, .Lcopy_b8_end-hrx_blit_copy_b8

// hrx_blit_copy_b32: dword i of dst = dword i of source for i < count;
// both addresses 4-aligned.
	.globl hrx_blit_copy_b32
	.p2align 8
	.type hrx_blit_copy_b32,@function
hrx_blit_copy_b32:
	BLIT_PROLOGUE .Lcopy_b32_done
	// Byte offset i * 4, and the stride in bytes for the address steps.
	v_lshlrev_b64 v[4:5], 2, v[0:1]
	s_lshl_b64 s[12:13], s[10:11], 2
	v_add_co_u32 v2, vcc_lo, s6, v4
	v_add_co_ci_u32_e32 v3, vcc_lo, s7, v5, vcc_lo
	v_add_co_u32 v4, vcc_lo, s4, v4
	v_add_co_ci_u32_e32 v5, vcc_lo, s5, v5, vcc_lo
.Lcopy_b32_loop:
	global_load_b32 v6, v[2:3], off
	v_add_co_u32 v2, vcc_lo, s12, v2
	v_add_co_ci_u32_e32 v3, vcc_lo, s13, v3, vcc_lo
	s_waitcnt vmcnt(0)
	global_store_b32 v[4:5], v6, off
	v_add_co_u32 v0, vcc_lo, s10, v0
	v_add_co_ci_u32_e32 v1, vcc_lo, s11, v1, vcc_lo
	v_add_co_u32 v4, vcc_lo, s12, v4
	v_add_co_ci_u32_e32 v5, vcc_lo, s13, v5, vcc_lo
	v_cmpx_gt_u64_e32 s[8:9], v[0:1]
	s_cbranch_execnz .Lcopy_b32_loop
.Lcopy_b32_done:
	s_endpgm
.Lcopy_b32_end:
	.size hrx_blit_copy_b32, .Lcopy_b32_end-hrx_blit_copy_b32

// hrx_blit_copy_b128: 16-byte block i of dst = block i of source for
// i < count; both addresses 16-aligned.
	.globl hrx_blit_copy_b128
	.p2align 8
	.type hrx_blit_copy_b128,@function
hrx_blit_copy_b128:
	BLIT_PROLOGUE .Lcopy_b128_done
	v_lshlrev_b64 v[4:5], 4, v[0:1]
	s_lshl_b64 s[12:13], s[10:11], 4
	v_add_co_u32 v2, vcc_lo, s6, v4
	v_add_co_ci_u32_e32 v3, vcc_lo, s7, v5, vcc_lo
	v_add_co_u32 v4, vcc_lo, s4, v4
	v_add_co_ci_u32_e32 v5, vcc_lo, s5, v5, vcc_lo
.Lcopy_b128_loop:
	global_load_b128 v[6:9], v[2:3], off
	v_add_co_u32 v2, vcc_lo, s12, v2
	v_add_co_ci_u32_e32 v3, vcc_lo, s13, v3, vcc_lo
	s_waitcnt vmcnt(0)
	global_store_b128 v[4:5], v[6:9], off
	v_add_co_u32 v0, vcc_lo, s10, v0
	v_add_co_ci_u32_e32 v1, vcc_lo, s11, v1, vcc_lo
	v_add_co_u32 v4, vcc_lo, s12, v4
	v_add_co_ci_u32_e32 v5, vcc_lo, s13, v5, vcc_lo
	v_cmpx_gt_u64_e32 s[8:9], v[0:1]
	s_cbranch_execnz .Lcopy_b128_loop
.Lcopy_b128_done:
	s_endpgm
.Lcopy_b128_end:
	.size hrx_blit_copy_b128, .Lcopy_b128_end-hrx_blit_copy_b128

// hrx_blit_fill_b32: dword i of dst = pattern for i < count. dst need not
// be 4-aligned: gfx11 global stores accept unaligned dword addresses in
// the unaligned access mode the KFD driver sets up.
	.globl hrx_blit_fill_b32
	.p2align 8
	.type hrx_blit_fill_b32,@function
hrx_blit_fill_b32:
	BLIT_PROLOGUE .Lfill_b32_done
	v_lshlrev_b64 v[4:5], 2, v[0:1]
	s_lshl_b64 s[12:13], s[10:11], 2
	v_add_co_u32 v4, vcc_lo, s4, v4
	v_add_co_ci_u32_e32 v5, vcc_lo, s5, v5, vcc_lo
	v_mov_b32_e32 v6, s6
.Lfill_b32_loop:
	global_store_b32 v[4:5], v6, off
	v_add_co_u32 v0, vcc_lo, s10, v0
	v_add_co_ci_u32_e32 v1, vcc_lo, s11, v1, vcc_lo
	v_add_co_u32 v4, vcc_lo, s12, v4
	v_add_co_ci_u32_e32 v5, vcc_lo, s13, v5, vcc_lo
	v_cmpx_gt_u64_e32 s[8:9], v[0:1]
	s_cbranch_execnz .Lfill_b32_loop
.Lfill_b32_done:
	s_endpgm
.Lfill_b32_end:
	.size hrx_blit_fill_b32, .Lfill_b32_end-hrx_blit_fill_b32

// gfx10+ instruction prefetch reads past the last instruction. As LLVM
// does for its own code objects, pad .text with s_code_end (0xbf9f0000) to
// a 128-byte boundary and then 96 dwords more, so those reads stay inside
// the loaded image.
	.p2alignl 7, 0xbf9f0000
	.fill 96, 4, 0xbf9f0000

// Kernel descriptors. Each asks for the kernarg pointer (s[0:1]) and the
// workgroup id x (s2) only: no dispatch or queue pointer, no scratch, no
// LDS, the x work-item id alone in v0. VGPRs v0..v9 and SGPRs s0..s13 are
// used; vcc is reserved on top of the SGPRs.
.macro BLIT_DESCRIPTOR name
	.rodata
	.p2align 6
	.amdhsa_kernel \name
		.amdhsa_group_segment_fixed_size 0
		.amdhsa_private_segment_fixed_size 0
		.amdhsa_kernarg_size 40
		.amdhsa_user_sgpr_count 2
		.amdhsa_user_sgpr_dispatch_ptr 0
		.amdhsa_user_sgpr_queue_ptr 0
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_user_sgpr_dispatch_id 0
		.amdhsa_user_sgpr_private_segment_size 0
		.amdhsa_wavefront_size32 1
		.amdhsa_uses_dynamic_stack 0
		.amdhsa_enable_private_segment 0
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_sgpr_workgroup_id_y 0
		.amdhsa_system_sgpr_workgroup_id_z 0
		.amdhsa_system_sgpr_workgroup_info 0
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 10
		.amdhsa_next_free_sgpr 14
		.amdhsa_reserve_vcc 1
		.amdhsa_float_round_mode_32 0
		.amdhsa_float_round_mode_16_64 0
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
		.amdhsa_dx10_clamp 1
		.amdhsa_ieee_mode 1
		.amdhsa_fp16_overflow 0
		.amdhsa_workgroup_processor_mode 1
		.amdhsa_memory_ordered 1
		.amdhsa_forward_progress 0
		.amdhsa_shared_vgpr_count 0
	.end_amdhsa_kernel
.endm

	BLIT_DESCRIPTOR hrx_blit_copy_b8
	BLIT_DESCRIPTOR hrx_blit_copy_b32
	BLIT_DESCRIPTOR hrx_blit_copy_b128
	BLIT_DESCRIPTOR hrx_blit_fill_b32

// The metadata note a loader reads for the kernarg layout. .sgpr_count
// counts vcc (14 + 2); .vgpr_count is v0..v9.
	.amdgpu_metadata
---
amdhsa.kernels:
  - .name:           hrx_blit_copy_b8
    .symbol:         hrx_blit_copy_b8.kd
    .kernarg_segment_size: 40
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 32
    .sgpr_count:     16
    .vgpr_count:     10
    .max_flat_workgroup_size: 256
    .args:
      - { .name: dst, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: source, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: count, .offset: 16, .size: 8, .value_kind: by_value }
      - { .name: stride, .offset: 24, .size: 8, .value_kind: by_value }
      - { .name: workgroup_size, .offset: 32, .size: 4, .value_kind: by_value }
  - .name:           hrx_blit_copy_b32
    .symbol:         hrx_blit_copy_b32.kd
    .kernarg_segment_size: 40
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 32
    .sgpr_count:     16
    .vgpr_count:     10
    .max_flat_workgroup_size: 256
    .args:
      - { .name: dst, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: source, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: count, .offset: 16, .size: 8, .value_kind: by_value }
      - { .name: stride, .offset: 24, .size: 8, .value_kind: by_value }
      - { .name: workgroup_size, .offset: 32, .size: 4, .value_kind: by_value }
  - .name:           hrx_blit_copy_b128
    .symbol:         hrx_blit_copy_b128.kd
    .kernarg_segment_size: 40
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 32
    .sgpr_count:     16
    .vgpr_count:     10
    .max_flat_workgroup_size: 256
    .args:
      - { .name: dst, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: source, .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: count, .offset: 16, .size: 8, .value_kind: by_value }
      - { .name: stride, .offset: 24, .size: 8, .value_kind: by_value }
      - { .name: workgroup_size, .offset: 32, .size: 4, .value_kind: by_value }
  - .name:           hrx_blit_fill_b32
    .symbol:         hrx_blit_fill_b32.kd
    .kernarg_segment_size: 40
    .kernarg_segment_align: 8
    .group_segment_fixed_size: 0
    .private_segment_fixed_size: 0
    .wavefront_size: 32
    .sgpr_count:     16
    .vgpr_count:     10
    .max_flat_workgroup_size: 256
    .args:
      - { .name: dst, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: pattern, .offset: 8, .size: 8, .value_kind: by_value }
      - { .name: count, .offset: 16, .size: 8, .value_kind: by_value }
      - { .name: stride, .offset: 24, .size: 8, .value_kind: by_value }
      - { .name: workgroup_size, .offset: 32, .size: 4, .value_kind: by_value }
amdhsa.target:   amdgcn-amd-amdhsa--gfx1151
amdhsa.version:
  - 1
  - 2
...
	.end_amdgpu_metadata
