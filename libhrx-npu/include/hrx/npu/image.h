/* `.xdna` program images, metadata version 2: parsing, validation and
 * relocation. Host-only: nothing here touches a device.
 *
 * An image is a little-endian ELF32 (ELFCLASS32, EV_CURRENT) executable for
 * EM_AIE (264). Program header 0 has p_type HRX_NPU_IMAGE_PT_METADATA and
 * holds the metadata; every other program header is PT_LOAD: p_paddr
 * names the allocation it fills, p_vaddr the offset inside it, and
 * p_filesz <= p_memsz bytes come from p_offset (the rest is zero).
 *
 * Metadata (offsets in bytes from its start, all integers little-endian):
 *   0   "XDNA"          4  u32 version = 2
 *   8   char profile[32]       NUL-padded, == HRX_NPU_PROFILE
 *   40  char firmware_abi[32]  NUL-padded, non-empty
 *   72  five {u32 count, u32 offset} tables, in this order:
 *   allocations (16 B): u32 kind (1 COMMAND, 2 DMA), u32 entry, u64 size
 *   entries     (48 B): char name[32] (NUL-terminated, unique),
 *                       u32 columns (1..8), u32 0, u64 0
 *   bindings    (40 B): u32 entry, u32 access (1 read, 2 write, 3 both),
 *                       u64 size_min, u64 size_max, u64 alignment (power
 *                       of two), u64 offset_max
 *   relocations (48 B): u32 kind (1 allocation, 2 binding), u32 target
 *                       allocation, u32 source (allocation or binding
 *                       index of the target's entry), u32 0,
 *                       u64 target_offset (4-aligned), u64 addend, u64 0,
 *                       u64 0
 *   invocations (16 B): u32 entry, u32 command_offset,
 *                       u32 command_length, u32 0
 * Indices are into the whole table; an entry's allocations and bindings
 * are the records naming it, in table order. Each entry has exactly one
 * COMMAND allocation and exactly one invocation, whose range of the
 * COMMAND allocation holds a well-formed transaction stream for the
 * entry's column count (hrx/npu/transaction.h).
 *
 * Relocation: the 64-bit address A = address(source) + addend, which must
 * be 4-aligned and below 2^48, is patched into the u32 pair at
 * target_offset as low = (old_low & 3) | (A & 0xFFFFFFFC),
 * high = (old_high & 0xFFFF0000) | (A >> 32).
 *
 * Threads: an image is immutable after parsing and may be shared.
 */
#ifndef HRX_NPU_IMAGE_H_
#define HRX_NPU_IMAGE_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_NPU_IMAGE_EM_AIE 264
#define HRX_NPU_IMAGE_PT_METADATA 0x6C584408u
#define HRX_NPU_IMAGE_VERSION 2

typedef struct hrx_npu_image_s hrx_npu_image_t;

typedef enum hrx_npu_allocation_kind_e {
  HRX_NPU_ALLOCATION_COMMAND = 1, /* the transaction stream, device heap */
  HRX_NPU_ALLOCATION_DMA = 2,     /* data the array reaches, host pages */
} hrx_npu_allocation_kind_t;

typedef enum hrx_npu_access_e {
  HRX_NPU_ACCESS_READ = 1,
  HRX_NPU_ACCESS_WRITE = 2,
  HRX_NPU_ACCESS_READ_WRITE = 3,
} hrx_npu_access_t;

typedef struct hrx_npu_image_entry_t {
  const char* name; /* borrowed from the image */
  uint32_t columns;
  size_t allocation_count;
  size_t binding_count;
  size_t command_allocation; /* index among the entry's allocations */
  uint32_t command_offset;
  uint32_t command_length;
} hrx_npu_image_entry_t;

typedef struct hrx_npu_image_allocation_t {
  hrx_npu_allocation_kind_t kind;
  uint64_t size;
} hrx_npu_image_allocation_t;

typedef struct hrx_npu_image_binding_t {
  hrx_npu_access_t access;
  uint64_t size_min;
  uint64_t size_max;
  uint64_t alignment;
  uint64_t offset_max;
} hrx_npu_image_binding_t;

/* Where one allocation of an entry lives: its host view of |size| bytes
 * (at least the allocation's size) and its DMA address. */
typedef struct hrx_npu_image_target_t {
  void* host;
  uint64_t size;
  uint64_t address;
} hrx_npu_image_target_t;

/* What one binding is bound to: the DMA address of its first byte, the
 * bound size, and the offset into the buffer it starts at. */
typedef struct hrx_npu_image_bound_t {
  uint64_t address;
  uint64_t size;
  uint64_t offset;
} hrx_npu_image_bound_t;

/* Parses and validates |size| bytes (copied; |data| may go away). Any
 * violation of the format above is DATA_LOSS naming the rule. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_image_parse(
    const void* data, size_t size, hrx_allocator_t allocator,
    hrx_npu_image_t** out_image);
HRX_API void hrx_npu_image_destroy(hrx_npu_image_t* image);

HRX_API const char* hrx_npu_image_firmware_abi(const hrx_npu_image_t* image);
HRX_API size_t hrx_npu_image_entry_count(const hrx_npu_image_t* image);
/* NOT_FOUND when no entry is called |name|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_image_find_entry(
    const hrx_npu_image_t* image, const char* name, size_t* out_entry);
/* |entry| < entry count; |index| < the entry's allocation/binding count. */
HRX_API void hrx_npu_image_entry(const hrx_npu_image_t* image, size_t entry,
                                 hrx_npu_image_entry_t* out_entry);
HRX_API void hrx_npu_image_allocation(const hrx_npu_image_t* image,
                                      size_t entry, size_t index,
                                      hrx_npu_image_allocation_t* out);
HRX_API void hrx_npu_image_binding(const hrx_npu_image_t* image,
                                   size_t entry, size_t index,
                                   hrx_npu_image_binding_t* out);

/* Loads |entry| into its allocations' host views: zero-fills each, copies
 * the PT_LOAD bytes, checks every bound binding against its limits
 * (size_min <= size <= size_max, offset <= offset_max, address aligned),
 * applies every relocation, and re-checks the transaction stream.
 * |targets| and |bounds| are in entry order and must match the entry's
 * counts. Fails with INVALID_ARGUMENT or OUT_OF_RANGE before writing
 * anything when a binding or address is unacceptable. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_image_load(
    const hrx_npu_image_t* image, size_t entry,
    const hrx_npu_image_target_t* targets, size_t target_count,
    const hrx_npu_image_bound_t* bounds, size_t bound_count);

#ifdef __cplusplus
}
#endif

#endif /* HRX_NPU_IMAGE_H_ */
