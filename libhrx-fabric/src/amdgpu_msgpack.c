/* The bounded MessagePack reader (see amdgpu_msgpack.h). */
#include "amdgpu_msgpack.h"

#include <string.h>

static hrx_status_t msgpack_bad(const hrx_msgpack_reader_t* reader,
                                const char* what) {
  return hrx_make_status(HRX_STATUS_DATA_LOSS, "%s: msgpack %s at byte %zu",
                         reader->what, what,
                         (size_t)(reader->at - reader->begin));
}

void hrx_msgpack_reader_init(hrx_msgpack_reader_t* reader,
                             const uint8_t* bytes, size_t length,
                             const char* what) {
  /* No arithmetic on a NULL |bytes|, even of zero. */
  const uint8_t* end = length ? bytes + length : bytes;
  *reader = (hrx_msgpack_reader_t){
      .begin = bytes, .at = bytes, .end = end, .what = what};
}

static size_t msgpack_left(const hrx_msgpack_reader_t* reader) {
  return (size_t)(reader->end - reader->at);
}

/* A big-endian unsigned integer of |bytes| bytes; the caller checked that
 * they are there. */
static uint64_t msgpack_be(hrx_msgpack_reader_t* reader, size_t bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value = (value << 8) | *reader->at++;
  return value;
}

static hrx_status_t msgpack_take_be(hrx_msgpack_reader_t* reader,
                                    size_t bytes, uint64_t* out_value) {
  if (msgpack_left(reader) < bytes) return msgpack_bad(reader, "ends early");
  *out_value = msgpack_be(reader, bytes);
  return HRX_OK;
}

/* A STR/BIN payload of |length| bytes (EXT: preceded by its type byte). */
static hrx_status_t msgpack_payload(hrx_msgpack_reader_t* reader,
                                    hrx_msgpack_type_t type, uint64_t length,
                                    hrx_msgpack_value_t* out) {
  if (type == HRX_MSGPACK_EXT) {
    if (msgpack_left(reader) < 1) return msgpack_bad(reader, "ends early");
    reader->at++;  /* the extension type, which no metadata key uses */
  }
  if (length > msgpack_left(reader)) {
    return msgpack_bad(reader, "string or binary runs past the end");
  }
  out->type = type;
  out->bytes = reader->at;
  out->length = (uint32_t)length;
  reader->at += length;
  return HRX_OK;
}

/* A container header: each element takes at least one byte, so a count
 * larger than the bytes left is a lie, caught before anyone allocates for
 * it. */
static hrx_status_t msgpack_container(hrx_msgpack_reader_t* reader,
                                      hrx_msgpack_type_t type, uint64_t count,
                                      hrx_msgpack_value_t* out) {
  uint64_t elements = type == HRX_MSGPACK_MAP ? 2 * count : count;
  if (elements > msgpack_left(reader)) {
    return msgpack_bad(reader, "container claims more elements than bytes");
  }
  out->type = type;
  out->count = (uint32_t)count;
  return HRX_OK;
}

/* A signed integer of |bytes| bytes; non-negative values read as UINT. */
static hrx_status_t msgpack_signed(hrx_msgpack_reader_t* reader, size_t bytes,
                                   hrx_msgpack_value_t* out) {
  uint64_t raw = 0;
  HRX_RETURN_IF_ERROR(msgpack_take_be(reader, bytes, &raw));
  /* Sign-extend through the top bit without a signed shift of a negative
   * value. */
  uint64_t sign = (uint64_t)1 << (8 * bytes - 1);
  int64_t value = (int64_t)((raw ^ sign) - sign);
  if (value >= 0) {
    out->type = HRX_MSGPACK_UINT;
    out->uint_value = (uint64_t)value;
  } else {
    out->type = HRX_MSGPACK_INT;
    out->int_value = value;
  }
  return HRX_OK;
}

/* Tags 0xc0..0xdf that carry a length or value in the following bytes. */
static hrx_status_t msgpack_tagged(hrx_msgpack_reader_t* reader, uint8_t tag,
                                   hrx_msgpack_value_t* out) {
  uint64_t n = 0;
  switch (tag) {
    case 0xc0: out->type = HRX_MSGPACK_NIL; return HRX_OK;
    case 0xc2:
    case 0xc3:
      out->type = HRX_MSGPACK_BOOL;
      out->uint_value = tag == 0xc3;
      return HRX_OK;
    case 0xc4: case 0xc5: case 0xc6:
      HRX_RETURN_IF_ERROR(msgpack_take_be(reader, (size_t)1 << (tag - 0xc4),
                                          &n));
      return msgpack_payload(reader, HRX_MSGPACK_BIN, n, out);
    case 0xc7: case 0xc8: case 0xc9:
      HRX_RETURN_IF_ERROR(msgpack_take_be(reader, (size_t)1 << (tag - 0xc7),
                                          &n));
      return msgpack_payload(reader, HRX_MSGPACK_EXT, n, out);
    case 0xca: case 0xcb:
      HRX_RETURN_IF_ERROR(msgpack_take_be(reader, tag == 0xca ? 4 : 8, &n));
      out->type = HRX_MSGPACK_FLOAT;
      return HRX_OK;
    case 0xcc: case 0xcd: case 0xce: case 0xcf:
      HRX_RETURN_IF_ERROR(msgpack_take_be(reader, (size_t)1 << (tag - 0xcc),
                                          &out->uint_value));
      out->type = HRX_MSGPACK_UINT;
      return HRX_OK;
    case 0xd0: case 0xd1: case 0xd2: case 0xd3:
      return msgpack_signed(reader, (size_t)1 << (tag - 0xd0), out);
    case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8:
      return msgpack_payload(reader, HRX_MSGPACK_EXT,
                             (uint64_t)1 << (tag - 0xd4), out);
    case 0xd9: case 0xda: case 0xdb:
      HRX_RETURN_IF_ERROR(msgpack_take_be(reader, (size_t)1 << (tag - 0xd9),
                                          &n));
      return msgpack_payload(reader, HRX_MSGPACK_STR, n, out);
    case 0xdc: case 0xdd:
      HRX_RETURN_IF_ERROR(msgpack_take_be(reader, tag == 0xdc ? 2 : 4, &n));
      return msgpack_container(reader, HRX_MSGPACK_ARRAY, n, out);
    case 0xde: case 0xdf:
      HRX_RETURN_IF_ERROR(msgpack_take_be(reader, tag == 0xde ? 2 : 4, &n));
      return msgpack_container(reader, HRX_MSGPACK_MAP, n, out);
    default:
      reader->at--;  /* report the offending byte's own position */
      return msgpack_bad(reader, "uses the reserved tag 0xc1");
  }
}

hrx_status_t hrx_msgpack_read(hrx_msgpack_reader_t* reader,
                              hrx_msgpack_value_t* out_value) {
  memset(out_value, 0, sizeof(*out_value));
  if (msgpack_left(reader) < 1) return msgpack_bad(reader, "ends early");
  uint8_t tag = *reader->at++;
  if (tag <= 0x7f) {
    out_value->type = HRX_MSGPACK_UINT;
    out_value->uint_value = tag;
    return HRX_OK;
  }
  if (tag >= 0xe0) {
    out_value->type = HRX_MSGPACK_INT;
    out_value->int_value = (int64_t)tag - 256;
    return HRX_OK;
  }
  if (tag <= 0x8f) {
    return msgpack_container(reader, HRX_MSGPACK_MAP, tag & 0x0f, out_value);
  }
  if (tag <= 0x9f) {
    return msgpack_container(reader, HRX_MSGPACK_ARRAY, tag & 0x0f,
                             out_value);
  }
  if (tag <= 0xbf) {
    return msgpack_payload(reader, HRX_MSGPACK_STR, tag & 0x1f, out_value);
  }
  return msgpack_tagged(reader, tag, out_value);
}

static const char* msgpack_type_name(hrx_msgpack_type_t type) {
  static const char* const names[] = {
      [HRX_MSGPACK_NIL] = "nil",
      [HRX_MSGPACK_BOOL] = "a boolean",
      [HRX_MSGPACK_UINT] = "a non-negative integer",
      [HRX_MSGPACK_INT] = "a negative integer",
      [HRX_MSGPACK_FLOAT] = "a float",
      [HRX_MSGPACK_STR] = "a string",
      [HRX_MSGPACK_BIN] = "binary data",
      [HRX_MSGPACK_EXT] = "an extension",
      [HRX_MSGPACK_ARRAY] = "an array",
      [HRX_MSGPACK_MAP] = "a map",
  };
  return names[type];
}

hrx_status_t hrx_msgpack_expect(hrx_msgpack_reader_t* reader,
                                hrx_msgpack_type_t type, const char* field,
                                hrx_msgpack_value_t* out_value) {
  HRX_RETURN_IF_ERROR(hrx_msgpack_read(reader, out_value));
  if (out_value->type != type) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS, "%s: %s is %s, not %s",
                           reader->what, field,
                           msgpack_type_name(out_value->type),
                           msgpack_type_name(type));
  }
  return HRX_OK;
}

hrx_status_t hrx_msgpack_read_u32(hrx_msgpack_reader_t* reader,
                                  const char* field, uint32_t* out_value) {
  hrx_msgpack_value_t value;
  HRX_RETURN_IF_ERROR(
      hrx_msgpack_expect(reader, HRX_MSGPACK_UINT, field, &value));
  if (value.uint_value > UINT32_MAX) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "%s: %s (%llu) does not fit 32 bits",
                           reader->what, field,
                           (unsigned long long)value.uint_value);
  }
  *out_value = (uint32_t)value.uint_value;
  return HRX_OK;
}

/* Walks |count| values iteratively: pending[d] counts the values still to
 * read at nesting depth d, so hostile nesting costs a bounded stack. Each
 * value read consumes at least one byte, so the walk ends within the
 * input's length. */
hrx_status_t hrx_msgpack_skip_elements(hrx_msgpack_reader_t* reader,
                                       uint64_t count) {
  uint64_t pending[HRX_MSGPACK_MAX_DEPTH + 1];
  int depth = 0;
  pending[0] = count;
  while (depth >= 0) {
    if (pending[depth] == 0) {
      --depth;
      continue;
    }
    pending[depth]--;
    hrx_msgpack_value_t value;
    HRX_RETURN_IF_ERROR(hrx_msgpack_read(reader, &value));
    if ((value.type != HRX_MSGPACK_ARRAY && value.type != HRX_MSGPACK_MAP) ||
        value.count == 0) {
      continue;
    }
    if (depth == HRX_MSGPACK_MAX_DEPTH) {
      return msgpack_bad(reader, "nests containers too deeply");
    }
    pending[++depth] =
        value.type == HRX_MSGPACK_MAP ? 2 * (uint64_t)value.count
                                      : value.count;
  }
  return HRX_OK;
}

hrx_status_t hrx_msgpack_skip(hrx_msgpack_reader_t* reader) {
  return hrx_msgpack_skip_elements(reader, 1);
}

bool hrx_msgpack_str_equals(const hrx_msgpack_value_t* value,
                            const char* text) {
  size_t length = strlen(text);
  return value->type == HRX_MSGPACK_STR && value->length == length &&
         memcmp(value->bytes, text, length) == 0;
}
