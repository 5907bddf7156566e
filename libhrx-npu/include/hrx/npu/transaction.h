/* AIE2P transaction streams (format 0.1): the COMMAND payload of an NPU
 * program. The stream configures the array and loads core code itself.
 *
 * A stream is a 16-byte header followed by NumOps records:
 *   header     [0]=0 [1]=1 [2]=4 [3]=6, [4] columns (1..8), [5]=1,
 *              [6..7]=0, NumOps u32 @8, TxnSize u32 @12 (whole stream)
 *   write      24 B: op 0, address u64 @8, value u32 @16, size u32 @20
 *   blockwrite op 1, address u32 @8, size u32 @12 (16 + 4n), n words @16
 *   maskwrite  32 B: op 3, address u64 @8, value @16, mask @20, size @24
 *   maskpoll   32 B: op 4, same layout (waits until (reg & mask) == value)
 *   noop       4 B: op 5
 * Every field is little-endian; the op code is byte 0 of its record.
 *
 * Threads: builders are plain values owned by one thread; the checker and
 * the composer are reentrant.
 */
#ifndef HRX_NPU_TRANSACTION_H_
#define HRX_NPU_TRANSACTION_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_NPU_TXN_HEADER_SIZE 16
#define HRX_NPU_TXN_MAX_COLUMNS 8

typedef enum hrx_npu_txn_op_e {
  HRX_NPU_TXN_OP_WRITE = 0,
  HRX_NPU_TXN_OP_BLOCKWRITE = 1,
  HRX_NPU_TXN_OP_MASKWRITE = 3,
  HRX_NPU_TXN_OP_MASKPOLL = 4,
  HRX_NPU_TXN_OP_NOOP = 5,
} hrx_npu_txn_op_t;

/* A stream under construction. |data| holds header and records, and the
 * header's NumOps/TxnSize are kept current after every append, so
 * (data, length) is always a complete stream. Read the fields; change
 * them only through the functions below. */
typedef struct hrx_npu_txn_builder_t {
  hrx_allocator_t allocator;
  uint8_t* data;
  size_t length;
  size_t capacity;
  uint32_t op_count;
} hrx_npu_txn_builder_t;

/* Starts a stream for |columns| (1..8) columns. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_txn_builder_init(
    hrx_allocator_t allocator, uint8_t columns,
    hrx_npu_txn_builder_t* out_builder);
HRX_API void hrx_npu_txn_builder_deinit(hrx_npu_txn_builder_t* builder);

/* Appends one record. OUT_OF_RANGE when NumOps or TxnSize would overflow
 * 32 bits; the builder is unchanged on failure. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_txn_write(
    hrx_npu_txn_builder_t* builder, uint64_t address, uint32_t value);
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_txn_blockwrite(
    hrx_npu_txn_builder_t* builder, uint32_t address, const uint32_t* words,
    size_t word_count);
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_txn_maskwrite(
    hrx_npu_txn_builder_t* builder, uint64_t address, uint32_t value,
    uint32_t mask);
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_txn_maskpoll(
    hrx_npu_txn_builder_t* builder, uint64_t address, uint32_t value,
    uint32_t mask);
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_txn_noop(
    hrx_npu_txn_builder_t* builder);

typedef struct hrx_npu_txn_info_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint8_t columns;
  uint32_t op_count;
  uint32_t size;
} hrx_npu_txn_info_t;

/* Checks that (|data|, |size|) is exactly one well-formed stream: the
 * fixed header bytes, 1..8 columns, TxnSize == |size|, NumOps records of
 * known ops with consistent sizes, nothing after the last. DATA_LOSS
 * names the offending offset. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_txn_check(
    const void* data, size_t size, hrx_npu_txn_info_t* out_info);

/* Composes the stream behind wrap_transaction: |prefix|'s records right
 * after |body|'s header, then |body|'s records, then |suffix|'s records,
 * with NumOps and TxnSize updated. |body| is checked first; |prefix| and
 * |suffix| (each may be NULL) must not address more columns than |body|.
 * OUT_OF_RANGE when the op count or size would overflow 32 bits. The
 * result is allocated from |allocator|; free it with hrx_allocator_free. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_txn_compose(
    const void* body, size_t body_size, const hrx_npu_txn_builder_t* prefix,
    const hrx_npu_txn_builder_t* suffix, hrx_allocator_t allocator,
    uint8_t** out_data, size_t* out_size);

#ifdef __cplusplus
}
#endif

#endif /* HRX_NPU_TRANSACTION_H_ */
