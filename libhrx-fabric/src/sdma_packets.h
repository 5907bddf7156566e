/* SDMA packets for KFD SDMA queues on gfx11 parts (SDMA 6.x), laid out as
 * Linux amdgpu's sdma_v6_0_0_pkt_open.h documents them
 * (shared/research/libamdf.md §2). Private to the fabric: the kfd provider
 * encodes with these, the KFD model decodes with the same names.
 *
 * Every encoder writes one whole packet at |dwords| and its length to
 * |*out_count|, or nothing (RESOURCE_EXHAUSTED) when |capacity| dwords do
 * not hold it; a field that does not fit its bits is INVALID_ARGUMENT.
 *
 * Publication rule: an SDMA ring's read and write indices count bytes
 * (always a multiple of 4); the engine reads packets across the wrap, so
 * no padding is needed there. */
#ifndef HRX_FABRIC_SDMA_PACKETS_H_
#define HRX_FABRIC_SDMA_PACKETS_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core/status.h"

/* Header: OP [7:0], SUB_OP [15:8]; the rest is per packet. */
#define HRX_SDMA_OP_MASK 0xFFu
#define HRX_SDMA_SUB_OP_SHIFT 8u
#define HRX_SDMA_SUB_OP_MASK 0xFFu

#define HRX_SDMA_OP_NOP 0u
#define HRX_SDMA_OP_COPY 1u
#define HRX_SDMA_OP_FENCE 5u
#define HRX_SDMA_OP_POLL_REGMEM 8u
#define HRX_SDMA_OP_CONST_FILL 11u
#define HRX_SDMA_OP_GCR_REQ 17u
#define HRX_SDMA_SUB_OP_COPY_LINEAR 0u

/* Packet lengths in dwords, header included. */
#define HRX_SDMA_COPY_LINEAR_DWORDS 7u
#define HRX_SDMA_FENCE_DWORDS 4u
#define HRX_SDMA_POLL_REGMEM_DWORDS 6u
#define HRX_SDMA_CONST_FILL_DWORDS 5u
#define HRX_SDMA_GCR_DWORDS 5u

/* NOP: COUNT [29:16] dwords follow the header (a zero dword is a NOP). */
#define HRX_SDMA_NOP_COUNT_SHIFT 16u
#define HRX_SDMA_NOP_COUNT_MASK 0x3FFFu

/* COPY_LINEAR: COUNT (bytes - 1) [29:0], a parameter dword (swaps and
 * cache policies), source, destination. */
#define HRX_SDMA_COPY_COUNT_MASK 0x3FFFFFFFu

/* CONST_FILL: header FILLSIZE [31:30] (0: the data's low byte, 2: the
 * whole dword), destination, data, COUNT (bytes - 1) [21:0]. */
#define HRX_SDMA_FILLSIZE_SHIFT 30u
#define HRX_SDMA_FILLSIZE_BYTE 0u
#define HRX_SDMA_FILLSIZE_DWORD 2u
#define HRX_SDMA_FILL_COUNT_MASK 0x3FFFFFu

/* FENCE: a dword at a 4-byte aligned address. */

/* POLL_REGMEM: header HDP_FLUSH [26], FUNC [30:28], MEM_POLL [31]; address,
 * value, mask, then INTERVAL [15:0] and RETRY_COUNT [27:16]. The compare
 * is (memory & mask) FUNC value, with the PM4 functions' numbering. */
#define HRX_SDMA_POLL_HDP_FLUSH (1u << 26)
#define HRX_SDMA_POLL_FUNC_SHIFT 28u
#define HRX_SDMA_POLL_FUNC_MASK 0x7u
#define HRX_SDMA_POLL_MEM (1u << 31)
#define HRX_SDMA_POLL_INTERVAL_MASK 0xFFFFu
#define HRX_SDMA_POLL_RETRY_SHIFT 16u
#define HRX_SDMA_POLL_RETRY_MASK 0xFFFu
/* A retry count of all ones: poll until the compare holds. */
#define HRX_SDMA_POLL_RETRY_FOREVER HRX_SDMA_POLL_RETRY_MASK

/* GCR_REQ: base VA [31:7] in dword 1, base VA [47:32] and GCR_CONTROL
 * [15:0] in dword 2, GCR_CONTROL [18:16] and limit VA [31:7] in dword 3,
 * limit VA [47:32] and VMID [27:24] in dword 4 (128-byte granules). */
#define HRX_SDMA_GCR_VA_GRANULE 128u
#define HRX_SDMA_GCR_VA_LOW_MASK 0xFFFFFF80u
#define HRX_SDMA_GCR_VA_HIGH_MASK 0xFFFFu
#define HRX_SDMA_GCR_CONTROL_MASK 0x7FFFFu
#define HRX_SDMA_GCR_CONTROL_LOW_SHIFT 16u
#define HRX_SDMA_GCR_CONTROL_HIGH_MASK 0x7u

/* |dword_count| (>= 1) dwords of NOP. */
hrx_status_t hrx_sdma_nop(uint32_t dword_count, uint32_t* dwords,
                          size_t capacity, size_t* out_count);

/* COPY_LINEAR of |byte_count| (1..2^30) bytes; any alignment. */
hrx_status_t hrx_sdma_copy_linear(uint64_t destination, uint64_t source,
                                  uint32_t byte_count, uint32_t* dwords,
                                  size_t capacity, size_t* out_count);

/* CONST_FILL of |byte_count| bytes (a multiple of 4, at most 2^22) of the
 * dword |pattern| at |destination| (dword aligned). Unaligned heads and
 * tails are the caller's, as on hardware. */
hrx_status_t hrx_sdma_const_fill(uint64_t destination, uint32_t pattern,
                                 uint32_t byte_count, uint32_t* dwords,
                                 size_t capacity, size_t* out_count);

/* CONST_FILL with FILLSIZE 0: |byte_count| (1..2^22) bytes of |value| at
 * |destination|, any alignment (for the heads and tails a dword fill
 * cannot reach). */
hrx_status_t hrx_sdma_const_fill_bytes(uint64_t destination, uint8_t value,
                                       uint32_t byte_count, uint32_t* dwords,
                                       size_t capacity, size_t* out_count);

/* FENCE: writes |value| at |address| (dword aligned) once the packets
 * before it are done. */
hrx_status_t hrx_sdma_fence(uint64_t address, uint32_t value,
                            uint32_t* dwords, size_t capacity,
                            size_t* out_count);

/* POLL_REGMEM on memory: waits until (dword at |address| & |mask|)
 * |function| |value| (function numbered as hrx_pm4_compare_t), retrying
 * forever every |interval| (16 bits) clocks. */
hrx_status_t hrx_sdma_poll_memory(uint64_t address, uint32_t value,
                                  uint32_t mask, uint32_t function,
                                  uint32_t interval, uint32_t* dwords,
                                  size_t capacity, size_t* out_count);

/* GCR_REQ over [base, limit) (128-byte aligned, 48-bit) with GCR_CONTROL
 * |control| (19 bits; the PM4 GCR_CNTL bits). */
hrx_status_t hrx_sdma_gcr(uint64_t base, uint64_t limit, uint32_t control,
                          uint32_t* dwords, size_t capacity,
                          size_t* out_count);

/* The ring byte offset of write index |byte_index| in a ring of
 * |ring_bytes| (a power of two); INVALID_ARGUMENT unless both are dword
 * multiples. */
hrx_status_t hrx_sdma_ring_offset(uint64_t byte_index, uint64_t ring_bytes,
                                  uint64_t* out_offset);

#endif /* HRX_FABRIC_SDMA_PACKETS_H_ */
