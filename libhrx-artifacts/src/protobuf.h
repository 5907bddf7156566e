/* A protobuf wire-format reader: fields in order, nothing allocated. Only
 * what ONNX needs; the wire format is never exposed to users. */
#ifndef HRX_ARTIFACTS_SRC_PROTOBUF_H_
#define HRX_ARTIFACTS_SRC_PROTOBUF_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

typedef enum hrx_pb_wire_e {
  HRX_PB_VARINT = 0,
  HRX_PB_FIXED64 = 1,
  HRX_PB_LEN = 2,
  HRX_PB_FIXED32 = 5,
} hrx_pb_wire_t;

typedef struct hrx_pb_reader_t {
  const uint8_t* at;
  const uint8_t* end;
} hrx_pb_reader_t;

typedef struct hrx_pb_field_t {
  uint32_t number;
  hrx_pb_wire_t wire;
  uint64_t value;      /* VARINT, FIXED32, FIXED64 */
  const uint8_t* data; /* LEN */
  size_t length;       /* LEN */
} hrx_pb_field_t;

static inline hrx_pb_reader_t hrx_pb_reader(const uint8_t* data,
                                            size_t length) {
  /* NULL + 0 is undefined in C: an absent message is an empty one. */
  hrx_pb_reader_t r = {data, data ? data + length : data};
  return r;
}

/* Reads the next field; *out_done at the end of the message. DATA_LOSS for
 * a truncated or overlong varint, a length past the end, a group or
 * unknown wire type, or field number 0. */
hrx_status_t hrx_pb_next(hrx_pb_reader_t* reader, hrx_pb_field_t* out_field,
                         bool* out_done);

/* Counts, in one pass over a message, the occurrences of each field number
 * below |max_number| into |counts| (zeroed first). The first pass of
 * reading a message twice: sizes for the arrays the second fills. */
hrx_status_t hrx_pb_count(const uint8_t* data, size_t length,
                          size_t* counts, uint32_t max_number);

/* Reads one varint from a packed field's bytes. */
hrx_status_t hrx_pb_varint(hrx_pb_reader_t* reader, uint64_t* out_value);

#endif /* HRX_ARTIFACTS_SRC_PROTOBUF_H_ */
