/* PM4 type-3 packets for gfx11 compute queues (KFD queue type COMPUTE),
 * laid out as Linux amdgpu's nvd.h and the gfx11 register headers
 * document them (shared/research/libamdf.md §2). Private to the fabric:
 * the kfd provider encodes with these, the KFD model decodes with the same
 * field names.
 *
 * Every encoder writes one whole packet at |dwords| and its length to
 * |*out_count|, or nothing (RESOURCE_EXHAUSTED) when |capacity| dwords do
 * not hold it; a field that does not fit its bits is INVALID_ARGUMENT.
 *
 * Publication rule: a PM4 ring's write index counts dwords and only
 * grows; a packet never straddles the end of the ring, so a producer
 * fills the tail with one NOP (hrx_pm4_wrap_padding, hrx_pm4_nop) and
 * starts the packet at the ring's first dword. */
#ifndef HRX_FABRIC_PM4_PACKETS_H_
#define HRX_FABRIC_PM4_PACKETS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core/status.h"

/* Header: TYPE [31:30], COUNT [29:16] (body dwords - 1), OPCODE [15:8],
 * SHADER_TYPE [1], PREDICATE [0]. */
#define HRX_PM4_TYPE_SHIFT 30u
#define HRX_PM4_TYPE2 2u /* a one-dword filler */
#define HRX_PM4_TYPE3 3u
#define HRX_PM4_COUNT_SHIFT 16u
#define HRX_PM4_COUNT_MASK 0x3FFFu
#define HRX_PM4_OPCODE_SHIFT 8u
#define HRX_PM4_OPCODE_MASK 0xFFu
#define HRX_PM4_PREDICATE 1u
/* A type-3 NOP whose count is all ones is the header alone (the filler
 * amdgpu writes one dword at a time). */
#define HRX_PM4_NOP_ONE_DWORD_COUNT HRX_PM4_COUNT_MASK
/* Longest packet: header + COUNT_MASK + 1 body dwords. */
#define HRX_PM4_MAX_DWORDS (HRX_PM4_COUNT_MASK + 2u)

#define HRX_PM4_NOP 0x10u
#define HRX_PM4_DISPATCH_DIRECT 0x15u
#define HRX_PM4_WRITE_DATA 0x37u
#define HRX_PM4_WAIT_REG_MEM 0x3Cu
#define HRX_PM4_INDIRECT_BUFFER 0x3Fu
#define HRX_PM4_EVENT_WRITE 0x46u
#define HRX_PM4_RELEASE_MEM 0x49u
#define HRX_PM4_DMA_DATA 0x50u
#define HRX_PM4_ACQUIRE_MEM 0x58u
#define HRX_PM4_SET_SH_REG 0x76u
#define HRX_PM4_WAIT_REG_MEM64 0x93u

/* Packet lengths in dwords, header included. */
#define HRX_PM4_DISPATCH_DIRECT_DWORDS 5u
#define HRX_PM4_WAIT_REG_MEM_DWORDS 7u
#define HRX_PM4_WAIT_REG_MEM64_DWORDS 9u
#define HRX_PM4_INDIRECT_BUFFER_DWORDS 4u
#define HRX_PM4_EVENT_WRITE_DWORDS 2u
#define HRX_PM4_RELEASE_MEM_DWORDS 8u
#define HRX_PM4_DMA_DATA_DWORDS 7u
#define HRX_PM4_ACQUIRE_MEM_DWORDS 8u
/* WRITE_DATA and SET_SH_REG: these plus one dword per value. */
#define HRX_PM4_WRITE_DATA_FIXED_DWORDS 4u
#define HRX_PM4_SET_SH_REG_FIXED_DWORDS 2u

/* SH registers (dword addresses); SET_SH_REG names them relative to the
 * start of the SH window. */
#define HRX_PM4_SH_REG_START 0x2C00u
#define HRX_PM4_SH_REG_END 0x3000u
#define HRX_PM4_SH_REG_COUNT (HRX_PM4_SH_REG_END - HRX_PM4_SH_REG_START)
#define HRX_PM4_COMPUTE_START_X 0x2E04u /* Y, Z follow */
#define HRX_PM4_COMPUTE_NUM_THREAD_X 0x2E07u /* Y, Z follow */
#define HRX_PM4_COMPUTE_PGM_LO 0x2E0Cu /* entry address bits [39:8] */
#define HRX_PM4_COMPUTE_PGM_HI 0x2E0Du /* entry address bits [47:40] */
#define HRX_PM4_COMPUTE_DISPATCH_SCRATCH_BASE_LO 0x2E10u
#define HRX_PM4_COMPUTE_DISPATCH_SCRATCH_BASE_HI 0x2E11u
#define HRX_PM4_COMPUTE_PGM_RSRC1 0x2E12u
#define HRX_PM4_COMPUTE_PGM_RSRC2 0x2E13u
#define HRX_PM4_COMPUTE_RESOURCE_LIMITS 0x2E15u
#define HRX_PM4_COMPUTE_TMPRING_SIZE 0x2E18u
#define HRX_PM4_COMPUTE_RESTART_X 0x2E1Bu /* Y, Z follow */
#define HRX_PM4_COMPUTE_PGM_RSRC3 0x2E28u
#define HRX_PM4_COMPUTE_USER_DATA_0 0x2E40u /* 16 registers */
#define HRX_PM4_COMPUTE_USER_DATA_COUNT 16u
#define HRX_PM4_PGM_HI_MASK 0xFFu
#define HRX_PM4_PGM_ADDRESS_SHIFT 8u
/* COMPUTE_NUM_THREAD_*: NUM_THREAD_FULL [15:0], NUM_THREAD_PARTIAL
 * [31:16] (the last workgroup's size with USE_THREAD_DIMENSIONS). */
#define HRX_PM4_NUM_THREAD_FULL_MASK 0xFFFFu
#define HRX_PM4_NUM_THREAD_PARTIAL_SHIFT 16u
/* COMPUTE_PGM_RSRC2: USER_SGPR [5:1], LDS_SIZE [23:15] in 512-byte
 * granules. */
#define HRX_PM4_RSRC2_USER_SGPR_SHIFT 1u
#define HRX_PM4_RSRC2_USER_SGPR_MASK 0x1Fu
#define HRX_PM4_RSRC2_LDS_SIZE_SHIFT 15u
#define HRX_PM4_RSRC2_LDS_SIZE_MASK 0x1FFu
#define HRX_PM4_LDS_GRANULE_BYTES 512u
/* COMPUTE_PGM_RSRC2: SCRATCH_EN [0]. */
#define HRX_PM4_RSRC2_SCRATCH_EN 1u

_Static_assert(HRX_PM4_COMPUTE_PGM_LO - HRX_PM4_SH_REG_START == 0x20C,
               "SET_SH_REG offset of COMPUTE_PGM_LO");
_Static_assert(HRX_PM4_COMPUTE_USER_DATA_0 + HRX_PM4_COMPUTE_USER_DATA_COUNT <=
                   HRX_PM4_SH_REG_END,
               "user data inside the SH window");

/* DISPATCH_DIRECT's COMPUTE_DISPATCH_INITIATOR. */
#define HRX_PM4_INITIATOR_COMPUTE_SHADER_EN (1u << 0)
#define HRX_PM4_INITIATOR_FORCE_START_AT_000 (1u << 2)
#define HRX_PM4_INITIATOR_USE_THREAD_DIMENSIONS (1u << 5)
#define HRX_PM4_INITIATOR_CS_W32_EN (1u << 15)

/* WRITE_DATA control: DST_SEL [11:8], WR_ONE_ADDR [16] (every value to the
 * same address), WR_CONFIRM [20], CACHE_POLICY [26:25], ENGINE_SEL
 * [31:30]. */
#define HRX_PM4_WRITE_DATA_DST_SEL_SHIFT 8u
#define HRX_PM4_WRITE_DATA_DST_SEL_MASK 0xFu
#define HRX_PM4_WRITE_DATA_DST_MEMORY 5u /* memory, asynchronous */
#define HRX_PM4_WRITE_DATA_DST_MEMORY_SYNC 1u
#define HRX_PM4_WRITE_DATA_DST_TC_L2 2u
#define HRX_PM4_WRITE_DATA_ONE_ADDR (1u << 16)
#define HRX_PM4_WRITE_DATA_CONFIRM (1u << 20)

/* WAIT_REG_MEM(64) control: FUNCTION [2:0], MEM_SPACE [5:4], OPERATION
 * [7:6], ENGINE [9:8]; the compare is (value & mask) FUNCTION reference. */
#define HRX_PM4_WAIT_FUNCTION_MASK 0x7u
#define HRX_PM4_WAIT_MEM_SPACE_SHIFT 4u
#define HRX_PM4_WAIT_MEM_SPACE_MASK 0x3u
#define HRX_PM4_WAIT_MEM_SPACE_MEMORY 1u
#define HRX_PM4_WAIT_OPERATION_SHIFT 6u
#define HRX_PM4_WAIT_OPERATION_MASK 0x3u
#define HRX_PM4_WAIT_POLL_INTERVAL_MASK 0xFFFFu
typedef enum hrx_pm4_compare_t {
  HRX_PM4_COMPARE_ALWAYS = 0,
  HRX_PM4_COMPARE_LESS = 1,
  HRX_PM4_COMPARE_LESS_EQUAL = 2,
  HRX_PM4_COMPARE_EQUAL = 3,
  HRX_PM4_COMPARE_NOT_EQUAL = 4,
  HRX_PM4_COMPARE_GREATER_EQUAL = 5,
  HRX_PM4_COMPARE_GREATER = 6,
} hrx_pm4_compare_t;

/* RELEASE_MEM: dword 1 EVENT_TYPE [5:0], EVENT_INDEX [11:8], GCR bits
 * [23:12], CACHE_POLICY [26:25], EXECUTE [28]; dword 2 DST_SEL [17:16],
 * INT_SEL [26:24], DATA_SEL [31:29]; then address, data, and the
 * interrupt's context id (the KFD event id). */
#define HRX_PM4_EVENT_TYPE_MASK 0x3Fu
#define HRX_PM4_EVENT_INDEX_SHIFT 8u
#define HRX_PM4_EVENT_INDEX_MASK 0xFu
#define HRX_PM4_RELEASE_MEM_GCR_MASK 0x00FFF000u
#define HRX_PM4_RELEASE_MEM_DST_SEL_SHIFT 16u
#define HRX_PM4_RELEASE_MEM_DST_SEL_MASK 0x3u
#define HRX_PM4_RELEASE_MEM_INT_SEL_SHIFT 24u
#define HRX_PM4_RELEASE_MEM_INT_SEL_MASK 0x7u
#define HRX_PM4_RELEASE_MEM_DATA_SEL_SHIFT 29u
#define HRX_PM4_RELEASE_MEM_DATA_SEL_MASK 0x7u
/* Events: a cache-flush timestamp at end of pipe (EVENT_INDEX 5) is what
 * a compute fence releases; CS_PARTIAL_FLUSH (EVENT_INDEX 4) waits for
 * the dispatches before it. */
#define HRX_PM4_EVENT_CACHE_FLUSH_TS 0x04u
#define HRX_PM4_EVENT_CS_PARTIAL_FLUSH 0x07u
#define HRX_PM4_EVENT_CACHE_FLUSH_AND_INV_TS 0x14u
#define HRX_PM4_EVENT_BOTTOM_OF_PIPE_TS 0x28u
#define HRX_PM4_EVENT_INDEX_PARTIAL_FLUSH 4u
#define HRX_PM4_EVENT_INDEX_END_OF_PIPE 5u
typedef enum hrx_pm4_data_sel_t {
  HRX_PM4_DATA_NONE = 0,
  HRX_PM4_DATA_32 = 1,
  HRX_PM4_DATA_64 = 2,
  HRX_PM4_DATA_GPU_CLOCK = 3,
  HRX_PM4_DATA_SYSTEM_CLOCK = 4,
} hrx_pm4_data_sel_t;
typedef enum hrx_pm4_int_sel_t {
  HRX_PM4_INT_NONE = 0,
  HRX_PM4_INT_ONLY = 1,
  HRX_PM4_INT_AFTER_WRITE_CONFIRM = 2,
  HRX_PM4_INT_DATA_AFTER_WRITE_CONFIRM = 3, /* no interrupt */
} hrx_pm4_int_sel_t;

/* ACQUIRE_MEM: COHER_CNTL, COHER_SIZE, COHER_SIZE_HI [7:0], COHER_BASE,
 * COHER_BASE_HI [23:0], POLL_INTERVAL [15:0], GCR_CNTL [18:0]. */
#define HRX_PM4_ACQUIRE_MEM_GCR_CNTL_MASK 0x7FFFFu
#define HRX_PM4_ACQUIRE_MEM_SIZE_HI_MASK 0xFFu
#define HRX_PM4_ACQUIRE_MEM_BASE_HI_MASK 0xFFFFFFu
/* GCR_CNTL bits a release/acquire of global memory uses. */
#define HRX_PM4_GCR_GLI_INV_ALL 1u
#define HRX_PM4_GCR_GLM_WB (1u << 4)
#define HRX_PM4_GCR_GLM_INV (1u << 5)
#define HRX_PM4_GCR_GLK_INV (1u << 7)
#define HRX_PM4_GCR_GLV_INV (1u << 8)
#define HRX_PM4_GCR_GL1_INV (1u << 9)
#define HRX_PM4_GCR_GL2_INV (1u << 14)
#define HRX_PM4_GCR_GL2_WB (1u << 15)

/* INDIRECT_BUFFER: base (dword aligned) lo, hi [15:0], then IB_SIZE
 * [19:0] in dwords, CHAIN [20], VALID [23], VMID [27:24]. */
#define HRX_PM4_IB_BASE_HI_MASK 0xFFFFu
#define HRX_PM4_IB_SIZE_MASK 0xFFFFFu
#define HRX_PM4_IB_CHAIN (1u << 20)
#define HRX_PM4_IB_VALID (1u << 23)

/* DMA_DATA: control ENGINE [0], DST_SEL [21:20], SRC_SEL [30:29],
 * CP_SYNC [31]; then source (or the fill value), destination, and
 * command BYTE_COUNT [25:0], SAS [26], DAS [27], SAIC [28], DAIC [29]. */
#define HRX_PM4_DMA_DST_SEL_SHIFT 20u
#define HRX_PM4_DMA_SEL_MASK 0x3u
#define HRX_PM4_DMA_SRC_SEL_SHIFT 29u
#define HRX_PM4_DMA_SEL_ADDRESS 0u /* memory through the DAS/SAS space */
#define HRX_PM4_DMA_SRC_DATA 2u     /* the source dword is the fill value */
#define HRX_PM4_DMA_SEL_L2 3u       /* memory through L2 */
#define HRX_PM4_DMA_CP_SYNC (1u << 31)
#define HRX_PM4_DMA_BYTE_COUNT_MASK 0x3FFFFFFu
#define HRX_PM4_DMA_COMMAND_FLAGS_MASK 0xFC000000u

/* |dword_count| (>= 1) dwords of NOP. */
hrx_status_t hrx_pm4_nop(uint32_t dword_count, uint32_t* dwords,
                         size_t capacity, size_t* out_count);

/* SET_SH_REG of |value_count| consecutive registers from |reg| (a dword
 * address in the SH window). */
hrx_status_t hrx_pm4_set_sh_reg(uint32_t reg, const uint32_t* values,
                                uint32_t value_count, uint32_t* dwords,
                                size_t capacity, size_t* out_count);

/* DISPATCH_DIRECT of |groups| workgroups (or threads, with
 * USE_THREAD_DIMENSIONS) and COMPUTE_DISPATCH_INITIATOR |initiator|. */
hrx_status_t hrx_pm4_dispatch_direct(const uint32_t groups[3],
                                     uint32_t initiator, uint32_t* dwords,
                                     size_t capacity, size_t* out_count);

/* WRITE_DATA of |value_count| dwords to memory at |address| (dword
 * aligned), confirmed before the next packet runs. */
hrx_status_t hrx_pm4_write_data(uint64_t address, const uint32_t* values,
                                uint32_t value_count, uint32_t* dwords,
                                size_t capacity, size_t* out_count);

/* A wait for (memory at |address| & mask) |compare| reference. */
typedef struct hrx_pm4_wait_t {
  uint64_t address;
  uint64_t reference;
  uint64_t mask;
  hrx_pm4_compare_t compare;
  uint32_t poll_interval; /* [15:0]; the CP's clocks between polls */
} hrx_pm4_wait_t;

/* WAIT_REG_MEM on the 32-bit word at wait->address (dword aligned; the
 * reference and mask must fit 32 bits). */
hrx_status_t hrx_pm4_wait_reg_mem(const hrx_pm4_wait_t* wait,
                                  uint32_t* dwords, size_t capacity,
                                  size_t* out_count);

/* WAIT_REG_MEM64 on the 64-bit word at wait->address (8-byte aligned). */
hrx_status_t hrx_pm4_wait_reg_mem64(const hrx_pm4_wait_t* wait,
                                    uint32_t* dwords, size_t capacity,
                                    size_t* out_count);

/* An end-of-pipe release: once the work before it is done, write |value|
 * (as |data|) at |address| and, with an interrupt, set KFD event
 * |event_id|. */
typedef struct hrx_pm4_release_t {
  uint32_t event_type;  /* HRX_PM4_EVENT_*_TS */
  uint32_t gcr;         /* RELEASE_MEM GCR bits, in place [23:12] */
  hrx_pm4_data_sel_t data;
  hrx_pm4_int_sel_t interrupt;
  uint64_t address; /* 4-byte aligned, 8 for 64-bit data */
  uint64_t value;
  uint32_t event_id; /* the interrupt's context id */
} hrx_pm4_release_t;

hrx_status_t hrx_pm4_release_mem(const hrx_pm4_release_t* release,
                                 uint32_t* dwords, size_t capacity,
                                 size_t* out_count);

/* ACQUIRE_MEM over all memory with GCR_CNTL |gcr_cntl|. */
hrx_status_t hrx_pm4_acquire_mem(uint32_t gcr_cntl, uint32_t* dwords,
                                 size_t capacity, size_t* out_count);

/* EVENT_WRITE of a non-timestamp event (e.g. CS_PARTIAL_FLUSH, index 4). */
hrx_status_t hrx_pm4_event_write(uint32_t event_type, uint32_t event_index,
                                 uint32_t* dwords, size_t capacity,
                                 size_t* out_count);

/* INDIRECT_BUFFER running |ib_dwords| dwords at |address| (dword
 * aligned). */
hrx_status_t hrx_pm4_indirect_buffer(uint64_t address, uint32_t ib_dwords,
                                     uint32_t* dwords, size_t capacity,
                                     size_t* out_count);

/* DMA_DATA through L2: a copy of |byte_count| bytes from |source|, or,
 * with |fill|, |byte_count| bytes (a multiple of 4) of the dword
 * |fill_value|; CP_SYNC holds later packets until it is done. */
typedef struct hrx_pm4_dma_t {
  uint64_t source;
  uint64_t destination;
  uint32_t byte_count;
  bool fill;
  uint32_t fill_value;
} hrx_pm4_dma_t;

hrx_status_t hrx_pm4_dma_data(const hrx_pm4_dma_t* dma, uint32_t* dwords,
                              size_t capacity, size_t* out_count);

/* The NOP dwords to write at monotonic dword index |write_index| of a ring
 * of |ring_dwords| (a power of two) so that a packet of |packet_dwords|
 * starts where it does not straddle the wrap: 0 when it fits before the
 * end, else the dwords left to the end. */
hrx_status_t hrx_pm4_wrap_padding(uint64_t write_index, uint64_t ring_dwords,
                                  uint32_t packet_dwords,
                                  uint32_t* out_padding);

#endif /* HRX_FABRIC_PM4_PACKETS_H_ */
