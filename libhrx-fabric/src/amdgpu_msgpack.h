/* A small bounded MessagePack reader, for the NT_AMDGPU_METADATA note of
 * AMDGPU code objects. Private to libhrx-fabric.
 *
 * The input is untrusted: every length and element count is checked
 * against the bytes that remain before anything is read, a container's
 * count can never promise more elements than bytes left, and skipping a
 * value walks it without recursion, refusing nesting deeper than
 * HRX_MSGPACK_MAX_DEPTH. Strings are returned as views into the input
 * (not NUL-terminated). */
#ifndef HRX_FABRIC_AMDGPU_MSGPACK_H_
#define HRX_FABRIC_AMDGPU_MSGPACK_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core/status.h"

enum { HRX_MSGPACK_MAX_DEPTH = 32 };

typedef enum hrx_msgpack_type_t {
  HRX_MSGPACK_NIL,
  HRX_MSGPACK_BOOL,
  HRX_MSGPACK_UINT,   /* any non-negative integer */
  HRX_MSGPACK_INT,    /* a negative integer */
  HRX_MSGPACK_FLOAT,
  HRX_MSGPACK_STR,
  HRX_MSGPACK_BIN,
  HRX_MSGPACK_EXT,
  HRX_MSGPACK_ARRAY,
  HRX_MSGPACK_MAP,
} hrx_msgpack_type_t;

typedef struct hrx_msgpack_value_t {
  hrx_msgpack_type_t type;
  uint64_t uint_value;     /* UINT, BOOL (0 or 1) */
  int64_t int_value;       /* INT */
  uint32_t count;          /* ARRAY elements, MAP key/value pairs */
  const uint8_t* bytes;    /* STR, BIN, EXT payload */
  uint32_t length;
} hrx_msgpack_value_t;

typedef struct hrx_msgpack_reader_t {
  const uint8_t* begin;
  const uint8_t* at;
  const uint8_t* end;
  const char* what;        /* names the input in error messages */
} hrx_msgpack_reader_t;

/* A reader over |bytes|; |what| ("code object metadata") prefixes every
 * error message and must outlive the reader. */
void hrx_msgpack_reader_init(hrx_msgpack_reader_t* reader,
                             const uint8_t* bytes, size_t length,
                             const char* what);

/* Reads the next value. Scalars, strings, binaries and extensions are
 * consumed whole; for an array or a map only the header is, and its
 * elements (maps: key, value, key, ...) follow. DATA_LOSS when the input
 * ends early, uses the unused tag 0xc1 or a count exceeds what is left. */
hrx_status_t hrx_msgpack_read(hrx_msgpack_reader_t* reader,
                              hrx_msgpack_value_t* out_value);

/* Reads the next value and requires |type|; DATA_LOSS naming |field|
 * otherwise. */
hrx_status_t hrx_msgpack_expect(hrx_msgpack_reader_t* reader,
                                hrx_msgpack_type_t type, const char* field,
                                hrx_msgpack_value_t* out_value);

/* Reads an unsigned integer that fits 32 bits; DATA_LOSS naming |field|
 * otherwise. */
hrx_status_t hrx_msgpack_read_u32(hrx_msgpack_reader_t* reader,
                                  const char* field, uint32_t* out_value);

/* Skips the next value with everything nested in it. */
hrx_status_t hrx_msgpack_skip(hrx_msgpack_reader_t* reader);

/* Skips the |count| elements of a container whose header was just read
 * (a map's count is of pairs: pass 2 * pairs). */
hrx_status_t hrx_msgpack_skip_elements(hrx_msgpack_reader_t* reader,
                                       uint64_t count);

/* Whether a STR value equals the NUL-terminated |text|. */
bool hrx_msgpack_str_equals(const hrx_msgpack_value_t* value,
                            const char* text);

#endif /* HRX_FABRIC_AMDGPU_MSGPACK_H_ */
