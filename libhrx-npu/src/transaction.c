#include <string.h>

#include "hrx/core/bytes.h"
#include "hrx/npu/transaction.h"

/* Header bytes 0-3 (format 0.1, AIE2P generation 4, 6 rows) and byte 5
 * (one memory-tile row); byte 4 is the column count. */
static const uint8_t kHeaderFixed[4] = {0, 1, 4, 6};
#define TXN_HEADER_MEM_ROWS 1

#define TXN_WRITE_SIZE 24u
#define TXN_MASK_SIZE 32u
#define TXN_BLOCK_HEADER_SIZE 16u
#define TXN_NOOP_SIZE 4u

static uint32_t load_u32(const uint8_t* p) {
  return (uint32_t)hrx_get_le(&p, 4);
}

static void store_u32(uint8_t* p, uint32_t value) {
  hrx_put_le(&p, value, 4);
}

static void store_u64(uint8_t* p, uint64_t value) {
  hrx_put_le(&p, value, 8);
}

hrx_status_t hrx_npu_txn_builder_init(hrx_allocator_t allocator,
                                      uint8_t columns,
                                      hrx_npu_txn_builder_t* out_builder) {
  memset(out_builder, 0, sizeof(*out_builder));
  if (columns < 1 || columns > HRX_NPU_TXN_MAX_COLUMNS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "transaction columns %u outside 1..%d", columns,
                           HRX_NPU_TXN_MAX_COLUMNS);
  }
  void* data = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, 256, &data));
  uint8_t* header = data;
  memcpy(header, kHeaderFixed, sizeof(kHeaderFixed));
  header[4] = columns;
  header[5] = TXN_HEADER_MEM_ROWS;
  store_u32(header + 12, HRX_NPU_TXN_HEADER_SIZE);
  *out_builder = (hrx_npu_txn_builder_t){
      .allocator = allocator,
      .data = header,
      .length = HRX_NPU_TXN_HEADER_SIZE,
      .capacity = 256,
  };
  return HRX_OK;
}

void hrx_npu_txn_builder_deinit(hrx_npu_txn_builder_t* builder) {
  hrx_allocator_free(builder->allocator, builder->data);
  memset(builder, 0, sizeof(*builder));
}

/* Reserves |size| zeroed bytes for one more record and returns them; the
 * header is updated as if the record were already written. */
static hrx_status_t append_record(hrx_npu_txn_builder_t* b, size_t size,
                                  uint8_t** out_record) {
  if (b->op_count == UINT32_MAX) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "transaction op count would overflow 32 bits");
  }
  if (size > UINT32_MAX - b->length) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "transaction size would overflow 32 bits");
  }
  void* data = b->data;
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(
      b->allocator, 1, b->length + size, &b->capacity, &data));
  b->data = data;
  uint8_t* record = b->data + b->length;
  memset(record, 0, size);
  b->length += size;
  ++b->op_count;
  store_u32(b->data + 8, b->op_count);
  store_u32(b->data + 12, (uint32_t)b->length);
  *out_record = record;
  return HRX_OK;
}

hrx_status_t hrx_npu_txn_write(hrx_npu_txn_builder_t* builder,
                               uint64_t address, uint32_t value) {
  uint8_t* r = NULL;
  HRX_RETURN_IF_ERROR(append_record(builder, TXN_WRITE_SIZE, &r));
  r[0] = HRX_NPU_TXN_OP_WRITE;
  store_u64(r + 8, address);
  store_u32(r + 16, value);
  store_u32(r + 20, TXN_WRITE_SIZE);
  return HRX_OK;
}

hrx_status_t hrx_npu_txn_blockwrite(hrx_npu_txn_builder_t* builder,
                                    uint32_t address, const uint32_t* words,
                                    size_t word_count) {
  if (word_count == 0 ||
      word_count > (UINT32_MAX - TXN_BLOCK_HEADER_SIZE) / 4) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "blockwrite of %zu words", word_count);
  }
  size_t size = TXN_BLOCK_HEADER_SIZE + 4 * word_count;
  uint8_t* r = NULL;
  HRX_RETURN_IF_ERROR(append_record(builder, size, &r));
  r[0] = HRX_NPU_TXN_OP_BLOCKWRITE;
  store_u32(r + 8, address);
  store_u32(r + 12, (uint32_t)size);
  for (size_t i = 0; i < word_count; ++i) {
    store_u32(r + TXN_BLOCK_HEADER_SIZE + 4 * i, words[i]);
  }
  return HRX_OK;
}

static hrx_status_t append_masked(hrx_npu_txn_builder_t* builder,
                                  hrx_npu_txn_op_t op, uint64_t address,
                                  uint32_t value, uint32_t mask) {
  uint8_t* r = NULL;
  HRX_RETURN_IF_ERROR(append_record(builder, TXN_MASK_SIZE, &r));
  r[0] = (uint8_t)op;
  store_u64(r + 8, address);
  store_u32(r + 16, value);
  store_u32(r + 20, mask);
  store_u32(r + 24, TXN_MASK_SIZE);
  return HRX_OK;
}

hrx_status_t hrx_npu_txn_maskwrite(hrx_npu_txn_builder_t* builder,
                                   uint64_t address, uint32_t value,
                                   uint32_t mask) {
  return append_masked(builder, HRX_NPU_TXN_OP_MASKWRITE, address, value,
                       mask);
}

hrx_status_t hrx_npu_txn_maskpoll(hrx_npu_txn_builder_t* builder,
                                  uint64_t address, uint32_t value,
                                  uint32_t mask) {
  return append_masked(builder, HRX_NPU_TXN_OP_MASKPOLL, address, value,
                       mask);
}

hrx_status_t hrx_npu_txn_noop(hrx_npu_txn_builder_t* builder) {
  uint8_t* r = NULL;
  HRX_RETURN_IF_ERROR(append_record(builder, TXN_NOOP_SIZE, &r));
  r[0] = HRX_NPU_TXN_OP_NOOP;
  return HRX_OK;
}

/* The size of the record at |r|, |left| bytes before the stream's end, or
 * 0 when it is unknown or does not fit. */
static size_t record_size(const uint8_t* r, size_t left) {
  if (left < TXN_NOOP_SIZE) return 0;
  size_t size = 0;
  switch (r[0]) {
    case HRX_NPU_TXN_OP_NOOP:
      return TXN_NOOP_SIZE;
    case HRX_NPU_TXN_OP_WRITE:
      if (left < TXN_WRITE_SIZE) return 0;
      return load_u32(r + 20) == TXN_WRITE_SIZE ? TXN_WRITE_SIZE : 0;
    case HRX_NPU_TXN_OP_MASKWRITE:
    case HRX_NPU_TXN_OP_MASKPOLL:
      if (left < TXN_MASK_SIZE) return 0;
      return load_u32(r + 24) == TXN_MASK_SIZE ? TXN_MASK_SIZE : 0;
    case HRX_NPU_TXN_OP_BLOCKWRITE:
      if (left < TXN_BLOCK_HEADER_SIZE) return 0;
      size = load_u32(r + 12);
      if (size <= TXN_BLOCK_HEADER_SIZE || size % 4 != 0 || size > left) {
        return 0;
      }
      return size;
    default:
      return 0;
  }
}

hrx_status_t hrx_npu_txn_check(const void* data, size_t size,
                               hrx_npu_txn_info_t* out_info) {
  const uint8_t* p = data;
  if (size < HRX_NPU_TXN_HEADER_SIZE) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "transaction of %zu bytes has no header", size);
  }
  if (memcmp(p, kHeaderFixed, sizeof(kHeaderFixed)) != 0 ||
      p[5] != TXN_HEADER_MEM_ROWS || p[6] != 0 || p[7] != 0) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "transaction header is not AIE2P format 0.1");
  }
  if (p[4] < 1 || p[4] > HRX_NPU_TXN_MAX_COLUMNS) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "transaction columns %u outside 1..%d", p[4],
                           HRX_NPU_TXN_MAX_COLUMNS);
  }
  uint32_t op_count = load_u32(p + 8);
  uint32_t txn_size = load_u32(p + 12);
  if (txn_size != size) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "transaction TxnSize %u but %zu bytes", txn_size,
                           size);
  }
  size_t offset = HRX_NPU_TXN_HEADER_SIZE;
  for (uint32_t i = 0; i < op_count; ++i) {
    size_t n = record_size(p + offset, size - offset);
    if (n == 0) {
      return hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "transaction op %u at offset %zu is unknown, "
                             "malformed or truncated",
                             i, offset);
    }
    offset += n;
  }
  if (offset != size) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "transaction has %zu bytes after its %u ops",
                           size - offset, op_count);
  }
  if (!out_info) return HRX_OK;
  hrx_npu_txn_info_t info = {
      .columns = p[4], .op_count = op_count, .size = txn_size};
  return HRX_STRUCT_WRITE(hrx_npu_txn_info_t, size, &info, out_info);
}

/* Adds |part|'s ops and record bytes to the running totals. */
static hrx_status_t add_part(const hrx_npu_txn_builder_t* part,
                             const char* name, uint8_t columns,
                             uint64_t* inout_ops, uint64_t* inout_size) {
  if (!part) return HRX_OK;
  if (part->data[4] > columns) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the %s addresses %u columns, the body only %u",
                           name, part->data[4], columns);
  }
  *inout_ops += part->op_count;
  *inout_size += part->length - HRX_NPU_TXN_HEADER_SIZE;
  return HRX_OK;
}

hrx_status_t hrx_npu_txn_compose(const void* body, size_t body_size,
                                 const hrx_npu_txn_builder_t* prefix,
                                 const hrx_npu_txn_builder_t* suffix,
                                 hrx_allocator_t allocator,
                                 uint8_t** out_data, size_t* out_size) {
  *out_data = NULL;
  *out_size = 0;
  hrx_npu_txn_info_t info = HRX_STRUCT_INIT(hrx_npu_txn_info_t);
  HRX_RETURN_IF_ERROR(hrx_status_annotate(
      hrx_npu_txn_check(body, body_size, &info), "composing a transaction"));
  uint64_t ops = info.op_count;
  uint64_t size = body_size;
  HRX_RETURN_IF_ERROR(add_part(prefix, "prefix", info.columns, &ops, &size));
  HRX_RETURN_IF_ERROR(add_part(suffix, "suffix", info.columns, &ops, &size));
  if (ops > UINT32_MAX) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "composed transaction has %llu ops, over 32 bits",
                           (unsigned long long)ops);
  }
  if (size > UINT32_MAX) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "composed transaction has %llu bytes, over 32 bits",
                           (unsigned long long)size);
  }
  void* data = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc_uninitialized(allocator, (size_t)size, &data));
  uint8_t* out = data;
  const uint8_t* b = body;
  size_t at = HRX_NPU_TXN_HEADER_SIZE;
  memcpy(out, b, HRX_NPU_TXN_HEADER_SIZE);
  if (prefix) {
    memcpy(out + at, prefix->data + HRX_NPU_TXN_HEADER_SIZE,
           prefix->length - HRX_NPU_TXN_HEADER_SIZE);
    at += prefix->length - HRX_NPU_TXN_HEADER_SIZE;
  }
  memcpy(out + at, b + HRX_NPU_TXN_HEADER_SIZE,
         body_size - HRX_NPU_TXN_HEADER_SIZE);
  at += body_size - HRX_NPU_TXN_HEADER_SIZE;
  if (suffix) {
    memcpy(out + at, suffix->data + HRX_NPU_TXN_HEADER_SIZE,
           suffix->length - HRX_NPU_TXN_HEADER_SIZE);
  }
  store_u32(out + 8, (uint32_t)ops);
  store_u32(out + 12, (uint32_t)size);
  *out_data = out;
  *out_size = (size_t)size;
  return HRX_OK;
}
