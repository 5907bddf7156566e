/* AMDGPU ELF code objects for gfx11: parse, validate and place. Private to
 * libhrx-fabric (the kfd provider and the gfx11 model load through it).
 *
 * Accepted: ELF64 little-endian, OS/ABI AMDGPU_HSA, ABI version 2..4 (code
 * object v4..v6), machine AMDGPU, EF_AMDGPU_MACH gfx1151 or gfx11-generic,
 * as either
 *   - ET_REL, what HRX's amdgpu backend emits: every SHF_ALLOC section is
 *     placed at its alignment, one after the other, and the RELA sections
 *     that target them are applied; or
 *   - ET_DYN, a linked (foreign) code object: PT_LOAD segments at their
 *     p_vaddr offsets, and the dynamic relocations (RELA sections linked to
 *     the dynamic symbol table) applied.
 * Relocations: R_AMDGPU_NONE, ABS32_LO, ABS32_HI, ABS64, REL32, REL64,
 * ABS32, REL32_LO, REL32_HI and RELATIVE64; any other is UNIMPLEMENTED.
 * Both kinds need section headers: the symbols and the metadata note are
 * found through them.
 *
 * Kernels come from the NT_AMDGPU_METADATA note (MessagePack). Every kernel
 * descriptor must be a defined symbol, 64-byte aligned in the image, agree
 * with the metadata (wave32, segment sizes), and point its code entry at a
 * 256-byte aligned address inside executable code. Nothing in the file is
 * trusted: malformed input is DATA_LOSS with a message saying what is
 * wrong, a target other than gfx1151/gfx11-generic is INVALID_ARGUMENT. */
#ifndef HRX_FABRIC_AMDGPU_OBJECT_H_
#define HRX_FABRIC_AMDGPU_OBJECT_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core/allocator.h"
#include "hrx/core/status.h"

typedef enum hrx_amdgpu_arg_kind_t {
  HRX_AMDGPU_ARG_BY_VALUE,
  HRX_AMDGPU_ARG_GLOBAL_BUFFER,
  HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_X,
  HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Y,
  HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Z,
  HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_X,
  HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Y,
  HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Z,
  HRX_AMDGPU_ARG_HIDDEN_REMAINDER_X,
  HRX_AMDGPU_ARG_HIDDEN_REMAINDER_Y,
  HRX_AMDGPU_ARG_HIDDEN_REMAINDER_Z,
  HRX_AMDGPU_ARG_HIDDEN_GRID_DIMS,
  /* Any other hidden_* argument: the loader zero-fills it. */
  HRX_AMDGPU_ARG_HIDDEN_OTHER,
} hrx_amdgpu_arg_kind_t;

typedef struct hrx_amdgpu_arg_t {
  hrx_amdgpu_arg_kind_t kind;
  uint32_t offset;
  uint32_t size;      /* hidden block counts 4, group sizes, remainders and
                       * grid dims 2, global buffers 8 (checked) */
  /* ".type_name" when present (cut to 31 bytes), else "". */
  char type_name[32];
} hrx_amdgpu_arg_t;

typedef struct hrx_amdgpu_kernel_t {
  char* name;                  /* ".name" */
  char* symbol;                /* ".symbol", the descriptor ("<name>.kd") */
  /* Offset of the 64-byte kernel descriptor from the placed image base
   * (a multiple of 64). */
  uint64_t descriptor_offset;
  /* Offset of the code entry (descriptor + kernel_code_entry_byte_offset)
   * from the image base: 256-byte aligned, inside executable code. */
  uint64_t entry_offset;
  uint32_t kernarg_size;
  uint32_t kernarg_alignment;  /* a power of two */
  uint32_t group_segment_size;
  uint32_t private_segment_size;
  uint32_t wavefront_size;     /* 32 */
  uint32_t max_flat_workgroup_size;
  uint32_t required_workgroup_size[3];  /* 0s when absent */
  uint32_t sgpr_count;
  uint32_t vgpr_count;
  uint32_t arg_count;
  hrx_amdgpu_arg_t* args;      /* in metadata order; inside kernarg_size,
                                * none overlapping */
  /* The kernel's HRX launch program from the ".hrx.launch" section
   * (hrx/loom/compiler.h), matched by name: a view into the object's own
   * copy of the bytes; NULL/0 when the object has none for it. */
  const uint8_t* launch_program;
  size_t launch_program_length;
} hrx_amdgpu_kernel_t;

/* A parsed object; owns a copy of the bytes. Immutable after parsing, so
 * it may be read (and placed) from several threads. */
typedef struct hrx_amdgpu_object_t hrx_amdgpu_object_t;

hrx_status_t hrx_amdgpu_object_parse(const uint8_t* bytes, size_t length,
                                     hrx_allocator_t allocator,
                                     hrx_amdgpu_object_t** out_object);
void hrx_amdgpu_object_destroy(hrx_amdgpu_object_t* object);

/* "gfx1151" or "gfx11-generic". */
const char* hrx_amdgpu_object_target(const hrx_amdgpu_object_t* object);
/* Bytes the placed image needs (at most 1 GiB). */
uint64_t hrx_amdgpu_object_image_size(const hrx_amdgpu_object_t* object);
/* The placed image's alignment: a power of two, at least 256. */
uint64_t hrx_amdgpu_object_image_alignment(const hrx_amdgpu_object_t* object);
/* At least one: an object without kernels is refused. */
size_t hrx_amdgpu_object_kernel_count(const hrx_amdgpu_object_t* object);
/* Kernel |index| in metadata order; NULL past the end. */
const hrx_amdgpu_kernel_t* hrx_amdgpu_object_kernel(
    const hrx_amdgpu_object_t* object, size_t index);

/* Writes the image for load address |address| (a multiple of
 * image_alignment; INVALID_ARGUMENT otherwise) into |destination|
 * (image_size bytes of any host memory): the allocated sections (PT_LOAD
 * segments for ET_DYN) at their offsets, everything else zero, and the
 * relocations applied for |address|. */
hrx_status_t hrx_amdgpu_object_place(const hrx_amdgpu_object_t* object,
                                     uint64_t address, uint8_t* destination);

#endif /* HRX_FABRIC_AMDGPU_OBJECT_H_ */
