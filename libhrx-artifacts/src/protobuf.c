#include "protobuf.h"

#include <string.h>

hrx_status_t hrx_pb_varint(hrx_pb_reader_t* r, uint64_t* out) {
  uint64_t value = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (r->at >= r->end) {
      return hrx_make_status(HRX_STATUS_DATA_LOSS, "truncated varint");
    }
    uint8_t byte = *r->at++;
    /* The tenth byte may carry only the top bit of a 64-bit value. */
    if (shift == 63 && byte > 1) {
      return hrx_make_status(HRX_STATUS_DATA_LOSS, "varint over 64 bits");
    }
    value |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *out = value;
      return HRX_OK;
    }
  }
  return hrx_make_status(HRX_STATUS_DATA_LOSS, "varint over 10 bytes");
}

hrx_status_t hrx_pb_next(hrx_pb_reader_t* r, hrx_pb_field_t* f,
                         bool* out_done) {
  memset(f, 0, sizeof(*f));
  *out_done = r->at >= r->end;
  if (*out_done) return HRX_OK;
  uint64_t key = 0;
  HRX_RETURN_IF_ERROR(hrx_pb_varint(r, &key));
  uint64_t number = key >> 3;
  if (number == 0 || number > 536870911u) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS, "invalid field number %llu",
                           (unsigned long long)number);
  }
  f->number = (uint32_t)number;
  f->wire = (hrx_pb_wire_t)(key & 7);
  size_t left = (size_t)(r->end - r->at);
  switch (f->wire) {
    case HRX_PB_VARINT:
      return hrx_pb_varint(r, &f->value);
    case HRX_PB_FIXED64:
    case HRX_PB_FIXED32: {
      size_t size = f->wire == HRX_PB_FIXED64 ? 8 : 4;
      if (left < size) {
        return hrx_make_status(HRX_STATUS_DATA_LOSS,
                               "field %u: truncated fixed%zu", f->number,
                               size * 8);
      }
      for (size_t i = 0; i < size; ++i) {
        f->value |= (uint64_t)r->at[i] << (8 * i);
      }
      r->at += size;
      return HRX_OK;
    }
    case HRX_PB_LEN: {
      uint64_t length = 0;
      HRX_RETURN_IF_ERROR(hrx_pb_varint(r, &length));
      if (length > (uint64_t)(r->end - r->at)) {
        return hrx_make_status(HRX_STATUS_DATA_LOSS,
                               "field %u: %llu bytes run past the end of "
                               "the message",
                               f->number, (unsigned long long)length);
      }
      f->data = r->at;
      f->length = (size_t)length;
      r->at += length;
      return HRX_OK;
    }
    default:
      return hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "field %u has wire type %u (groups and unknown "
                             "types are not read)",
                             f->number, (unsigned)f->wire);
  }
}

hrx_status_t hrx_pb_count(const uint8_t* data, size_t length, size_t* counts,
                          uint32_t max_number) {
  memset(counts, 0, max_number * sizeof(*counts));
  hrx_pb_reader_t r = hrx_pb_reader(data, length);
  for (;;) {
    hrx_pb_field_t f;
    bool done = false;
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) return HRX_OK;
    if (f.number < max_number) counts[f.number]++;
  }
}
