/* ONNX: ModelProto indexing over the protobuf wire reader.
 *
 * Every message is read twice: once to count its repeated fields, once to
 * fill arrays of exactly that size from the model's arena. Nothing grows,
 * and a failure anywhere frees the arena whole. */
#include "hrx/artifacts/onnx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/core/file.h"
#include "hrx/core/parse.h"
#include "protobuf.h"
#include "show.h"

typedef struct hrx_onnx_block_t {
  struct hrx_onnx_block_t* next;
  size_t used, size;
  _Alignas(16) uint8_t bytes[];
} hrx_onnx_block_t;

struct hrx_onnx_model_s {
  hrx_allocator_t allocator;
  uint8_t* image; /* the whole file */
  size_t image_length;
  char* base_dir; /* for external data; NULL for images in memory */
  hrx_onnx_block_t* blocks;
  hrx_onnx_model_info_t info;
};

#define HRX_ONNX_BLOCK (64u << 10)

static void* hrx_onnx_alloc(hrx_onnx_model_t* m, size_t size) {
  size = (size + 15) & ~(size_t)15;
  hrx_onnx_block_t* b = m->blocks;
  if (!b || b->size - b->used < size) {
    size_t capacity = size > HRX_ONNX_BLOCK ? size : HRX_ONNX_BLOCK;
    hrx_onnx_block_t* fresh = NULL;
    hrx_status_t status = hrx_allocator_malloc(
        m->allocator, sizeof(*fresh) + capacity, (void**)&fresh);
    if (status != HRX_OK) {
      hrx_status_free(status);
      return NULL;
    }
    fresh->size = capacity;
    fresh->next = m->blocks;
    m->blocks = fresh;
    b = fresh;
  }
  void* at = b->bytes + b->used;
  b->used += size;
  memset(at, 0, size);
  return at;
}

#define HRX_ONNX_NEW(m, out, count)                                         \
  do {                                                                      \
    size_t count_ = (count);                                                \
    if (count_ > SIZE_MAX / sizeof(*(out))) {                               \
      return hrx_make_status(HRX_STATUS_DATA_LOSS, "count overflows");      \
    }                                                                       \
    (out) = hrx_onnx_alloc((m), count_ ? count_ * sizeof(*(out)) : 1);      \
    if (!(out)) {                                                           \
      return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED, "no memory");   \
    }                                                                       \
  } while (0)

static hrx_status_t hrx_onnx_string(hrx_onnx_model_t* m,
                                    const hrx_pb_field_t* f,
                                    const char** out) {
  if (f->wire != HRX_PB_LEN) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "field %u should be a string", f->number);
  }
  char* copy = NULL;
  HRX_ONNX_NEW(m, copy, f->length + 1);
  memcpy(copy, f->data, f->length);
  *out = copy;
  return HRX_OK;
}

static hrx_status_t hrx_onnx_expect(const hrx_pb_field_t* f,
                                    hrx_pb_wire_t wire) {
  if (f->wire == wire) return HRX_OK;
  return hrx_make_status(HRX_STATUS_DATA_LOSS,
                         "field %u has wire type %u, expected %u", f->number,
                         (unsigned)f->wire, (unsigned)wire);
}

/* Elements of a repeated scalar field occurrence: one, or a packed run. */
static hrx_status_t hrx_onnx_repeated_count(const hrx_pb_field_t* f,
                                            hrx_pb_wire_t element,
                                            size_t* count) {
  if (f->wire == element) {
    (*count)++;
    return HRX_OK;
  }
  if (f->wire != HRX_PB_LEN) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "repeated field %u has wire type %u", f->number,
                           (unsigned)f->wire);
  }
  if (element == HRX_PB_FIXED32 || element == HRX_PB_FIXED64) {
    size_t size = element == HRX_PB_FIXED32 ? 4 : 8;
    if (f->length % size) {
      return hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "packed field %u is %zu bytes, not a multiple "
                             "of %zu",
                             f->number, f->length, size);
    }
    *count += f->length / size;
    return HRX_OK;
  }
  hrx_pb_reader_t r = hrx_pb_reader(f->data, f->length);
  while (r.at < r.end) {
    uint64_t ignored;
    HRX_RETURN_IF_ERROR(hrx_pb_varint(&r, &ignored));
    (*count)++;
  }
  return HRX_OK;
}

/* Appends the elements of |f| to |out| (as raw 64-bit or 32-bit values). */
static hrx_status_t hrx_onnx_repeated_fill(const hrx_pb_field_t* f,
                                           hrx_pb_wire_t element,
                                           void* out, size_t* at) {
  if (f->wire == element) {
    if (element == HRX_PB_FIXED32) {
      uint32_t bits = (uint32_t)f->value;
      memcpy((uint32_t*)out + (*at)++, &bits, 4);
    } else {
      ((uint64_t*)out)[(*at)++] = f->value;
    }
    return HRX_OK;
  }
  if (element == HRX_PB_FIXED32) {
    for (size_t i = 0; i + 4 <= f->length; i += 4) {
      uint32_t bits = (uint32_t)f->data[i] | (uint32_t)f->data[i + 1] << 8 |
                      (uint32_t)f->data[i + 2] << 16 |
                      (uint32_t)f->data[i + 3] << 24;
      memcpy((uint32_t*)out + (*at)++, &bits, 4);
    }
    return HRX_OK;
  }
  hrx_pb_reader_t r = hrx_pb_reader(f->data, f->length);
  while (r.at < r.end) {
    HRX_RETURN_IF_ERROR(hrx_pb_varint(&r, &((uint64_t*)out)[(*at)++]));
  }
  return HRX_OK;
}

const char* hrx_onnx_dtype_name(int32_t dtype) {
  static const char* const names[] = {
      [1] = "FLOAT",   [2] = "UINT8",    [3] = "INT8",    [4] = "UINT16",
      [5] = "INT16",   [6] = "INT32",    [7] = "INT64",   [8] = "STRING",
      [9] = "BOOL",    [10] = "FLOAT16", [11] = "DOUBLE", [12] = "UINT32",
      [13] = "UINT64", [16] = "BFLOAT16"};
  if (dtype <= 0 || dtype >= (int32_t)(sizeof(names) / sizeof(names[0])) ||
      !names[dtype]) {
    return "UNKNOWN";
  }
  return names[dtype];
}

size_t hrx_onnx_dtype_size(int32_t dtype) {
  switch (dtype) {
    case HRX_ONNX_UINT8: case HRX_ONNX_INT8: case HRX_ONNX_BOOL: return 1;
    case HRX_ONNX_UINT16: case HRX_ONNX_INT16: case HRX_ONNX_FLOAT16:
    case HRX_ONNX_BFLOAT16: return 2;
    case HRX_ONNX_FLOAT: case HRX_ONNX_INT32: case HRX_ONNX_UINT32: return 4;
    case HRX_ONNX_INT64: case HRX_ONNX_DOUBLE: case HRX_ONNX_UINT64: return 8;
    default: return 0;
  }
}

/* A location names a file under the model's directory: relative, no
 * empty, "." or ".." component (".", "a/" and "a//b" name directories or
 * the directory itself), no backslash or control character. Links inside
 * the directory are followed: the Hugging Face cache links every file of a
 * snapshot to its blob. */
static bool hrx_onnx_location_ok(const char* location) {
  if (!location[0] || location[0] == '/') return false;
  for (const unsigned char* c = (const unsigned char*)location; *c; ++c) {
    if (*c < 0x20 || *c == 0x7f || *c == '\\') return false;
  }
  for (const char* p = location;;) {
    const char* slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    if (n == 0 || (n == 1 && p[0] == '.') ||
        (n == 2 && p[0] == '.' && p[1] == '.')) {
      return false;
    }
    if (!slash) return true;
    p = slash + 1;
  }
}

static hrx_status_t hrx_onnx_external_path(hrx_onnx_model_t* m,
                                           const char* tensor,
                                           const char* location,
                                           const char** out) {
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  /* Checked first, so that images in memory (and the fuzzer) reach it. */
  if (!hrx_onnx_location_ok(location)) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "tensor '%s': external location '%s' does not "
                           "name a file inside the model's directory",
                           tensor, hrx_artifacts_show(location, shown));
  }
  if (!m->base_dir) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "tensor '%s' has external data, but the model "
                           "was not opened from a file",
                           tensor);
  }
  char* path = NULL;
  HRX_ONNX_NEW(m, path, strlen(m->base_dir) + strlen(location) + 2);
  sprintf(path, "%s/%s", m->base_dir, location);
  *out = path;
  return HRX_OK;
}

/* TensorProto.external_data as read; each key may appear once. */
typedef struct hrx_onnx_external_t {
  const char* location; /* NULL when absent */
  uint64_t offset;
  uint64_t length;
  bool has_length;
  unsigned seen; /* a bit per key of hrx_onnx_external_keys */
} hrx_onnx_external_t;

static const char* const hrx_onnx_external_keys[] = {"location", "offset",
                                                     "length"};

/* A byte count in [0, 2^63) (file offsets are signed). */
static hrx_status_t hrx_onnx_byte_count(const char* tensor, const char* key,
                                        const char* value, uint64_t* out) {
  /* Parsing the escaped text: digits escape to themselves, and anything
   * else fails either way, now with a message safe to print. */
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  hrx_status_t status = hrx_parse_u64(hrx_artifacts_show(value, shown), 0,
                                      INT64_MAX, key, out);
  if (status == HRX_OK) return HRX_OK;
  hrx_status_t named = hrx_make_status(
      HRX_STATUS_DATA_LOSS, "tensor '%s': external data %s", tensor,
      hrx_status_message(status));
  hrx_status_free(status);
  return named;
}

/* One StringStringEntryProto of external_data. */
static hrx_status_t hrx_onnx_external_entry(hrx_onnx_model_t* m,
                                            const char* tensor,
                                            const hrx_pb_field_t* f,
                                            hrx_onnx_external_t* ext) {
  HRX_RETURN_IF_ERROR(hrx_onnx_expect(f, HRX_PB_LEN));
  const char* key = "";
  const char* value = "";
  size_t value_length = 0;
  hrx_pb_reader_t entry = hrx_pb_reader(f->data, f->length);
  hrx_pb_field_t e;
  for (bool done = false;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&entry, &e, &done));
    if (done) break;
    if (e.number == 1) HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &e, &key));
    if (e.number == 2) {
      HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &e, &value));
      value_length = e.length;
    }
  }
  size_t k = 0;
  size_t keys =
      sizeof(hrx_onnx_external_keys) / sizeof(*hrx_onnx_external_keys);
  while (k < keys && strcmp(key, hrx_onnx_external_keys[k])) ++k;
  if (k == keys) return HRX_OK; /* "checksum" and others: not needed */
  if (ext->seen & (1u << k) || strlen(value) != value_length) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "tensor '%s': external data '%s' is %s", tensor,
                           key,
                           ext->seen & (1u << k) ? "given twice"
                                                 : "cut by a NUL byte");
  }
  ext->seen |= 1u << k;
  if (k == 0) {
    ext->location = value;
  } else if (k == 1) {
    HRX_RETURN_IF_ERROR(
        hrx_onnx_byte_count(tensor, "offset", value, &ext->offset));
  } else {
    HRX_RETURN_IF_ERROR(
        hrx_onnx_byte_count(tensor, "length", value, &ext->length));
    ext->has_length = true;
  }
  return HRX_OK;
}

/* The repeated int64 field |number| of a message (packed or not). */
static hrx_status_t hrx_onnx_int64s(hrx_onnx_model_t* m, const uint8_t* data,
                                    size_t length, uint32_t number,
                                    size_t* out_count,
                                    const int64_t** out_values) {
  hrx_pb_field_t f;
  bool done = false;
  size_t count = 0;
  hrx_pb_reader_t r = hrx_pb_reader(data, length);
  for (;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    if (f.number == number) {
      HRX_RETURN_IF_ERROR(hrx_onnx_repeated_count(&f, HRX_PB_VARINT, &count));
    }
  }
  int64_t* values = NULL;
  HRX_ONNX_NEW(m, values, count);
  size_t at = 0;
  r = hrx_pb_reader(data, length);
  for (;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    if (f.number == number) {
      HRX_RETURN_IF_ERROR(
          hrx_onnx_repeated_fill(&f, HRX_PB_VARINT, values, &at));
    }
  }
  *out_count = count;
  *out_values = values;
  return HRX_OK;
}

/* The element count of a shape; DATA_LOSS for a negative or overflowing
 * dimension. */
static hrx_status_t hrx_onnx_elements(const char* name, size_t rank,
                                      const int64_t* dims,
                                      uint64_t* out_elements) {
  uint64_t elements = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (dims[d] < 0 ||
        __builtin_mul_overflow(elements, (uint64_t)dims[d], &elements)) {
      return hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "tensor '%s' has a negative or overflowing "
                             "dimension",
                             name);
    }
  }
  *out_elements = elements;
  return HRX_OK;
}

/* The external_data entries of a tensor stored EXTERNAL, checked: a
 * location inside the model's directory, offset and length that fit a file
 * offset together, and a length its dims agree with. */
static hrx_status_t hrx_onnx_external(hrx_onnx_model_t* m, const uint8_t* data,
                                      size_t length, const char* name,
                                      uint64_t bytes, bool sized,
                                      hrx_onnx_tensor_t* t) {
  hrx_onnx_external_t ext = {0};
  hrx_pb_field_t f;
  hrx_pb_reader_t r = hrx_pb_reader(data, length);
  for (bool done = false;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    if (f.number == 13) {
      HRX_RETURN_IF_ERROR(hrx_onnx_external_entry(m, name, &f, &ext));
    }
  }
  if (!ext.location) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "tensor '%s' is external without a location",
                           name);
  }
  HRX_RETURN_IF_ERROR(
      hrx_onnx_external_path(m, name, ext.location, &t->external_path));
  t->external_offset = ext.offset;
  t->external_length = ext.has_length ? ext.length : bytes;
  if (sized && t->external_length != bytes) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "tensor '%s': external length %llu, its dims "
                           "need %llu bytes",
                           name, (unsigned long long)t->external_length,
                           (unsigned long long)bytes);
  }
  uint64_t end = 0;
  if (__builtin_add_overflow(t->external_offset, t->external_length, &end) ||
      end > INT64_MAX) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "tensor '%s': external bytes [%llu, +%llu) end "
                           "past the largest file offset",
                           name, (unsigned long long)t->external_offset,
                           (unsigned long long)t->external_length);
  }
  return HRX_OK;
}

static hrx_status_t hrx_onnx_tensor(hrx_onnx_model_t* m, const uint8_t* data,
                                    size_t length, hrx_onnx_tensor_t* t) {
  hrx_pb_field_t f;
  bool done = false;
  size_t typed = 0;
  t->proto = data;
  t->proto_length = length;
  HRX_RETURN_IF_ERROR(
      hrx_onnx_int64s(m, data, length, 1, &t->rank, &t->dims));
  int64_t location = 0;
  hrx_pb_reader_t r = hrx_pb_reader(data, length);
  for (;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    switch (f.number) {
      case 2:
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_VARINT));
        t->dtype = (int32_t)f.value;
        break;
      case 8:
        HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &f, &t->name));
        break;
      case 9:
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_LEN));
        t->raw = f.data;
        t->raw_length = f.length;
        break;
      case 4: case 5: case 7: case 10: case 11: {
        hrx_pb_wire_t element = f.number == 4   ? HRX_PB_FIXED32
                                : f.number == 10 ? HRX_PB_FIXED64
                                                 : HRX_PB_VARINT;
        HRX_RETURN_IF_ERROR(hrx_onnx_repeated_count(&f, element, &typed));
        break;
      }
      case 6:
        typed++;
        break;
      case 14:
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_VARINT));
        location = (int64_t)f.value;
        break;
      default:
        break;
    }
  }
  char name[HRX_ESCAPED_NAME_CAPACITY];
  hrx_artifacts_show(t->name ? t->name : "(unnamed)", name);
  if (!t->name) t->name = "";
  uint64_t elements = 0;
  HRX_RETURN_IF_ERROR(hrx_onnx_elements(name, t->rank, t->dims, &elements));
  t->elements = elements;
  size_t size = hrx_onnx_dtype_size(t->dtype);
  if (!size && t->dtype != HRX_ONNX_STRING) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "tensor '%s' has unsupported data type %d", name,
                           (int)t->dtype);
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(elements, (uint64_t)size, &bytes)) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "tensor '%s' is larger than 2^64 bytes", name);
  }
  if (location == 1) {
    return hrx_onnx_external(m, data, length, name, bytes, size != 0, t);
  }
  if (t->raw) {
    if (size && t->raw_length != bytes) {
      return hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "tensor '%s': raw_data holds %zu bytes, its "
                             "dims need %llu",
                             name, t->raw_length, (unsigned long long)bytes);
    }
  } else if (typed != elements) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "tensor '%s' holds %zu values, its dims need %llu",
                           name, typed, (unsigned long long)elements);
  }
  return HRX_OK;
}

static hrx_status_t hrx_onnx_sparse(hrx_onnx_model_t* m, const uint8_t* data,
                                    size_t length,
                                    hrx_onnx_sparse_tensor_t* t) {
  hrx_pb_field_t f;
  bool done = false;
  bool values = false, indices = false;
  hrx_pb_reader_t r = hrx_pb_reader(data, length);
  for (;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    if (f.number == 1 || f.number == 2) {
      HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_LEN));
      HRX_RETURN_IF_ERROR(hrx_onnx_tensor(
          m, f.data, f.length, f.number == 1 ? &t->values : &t->indices));
      *(f.number == 1 ? &values : &indices) = true;
    }
  }
  HRX_RETURN_IF_ERROR(hrx_onnx_int64s(m, data, length, 3, &t->rank, &t->dims));
  t->name = values ? t->values.name : "";
  t->dtype = t->values.dtype;
  char name[HRX_ESCAPED_NAME_CAPACITY];
  hrx_artifacts_show(t->name[0] ? t->name : "(unnamed)", name);
  if (!values || !indices) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "sparse tensor '%s' has no %s", name,
                           values ? "indices" : "values");
  }
  HRX_RETURN_IF_ERROR(hrx_onnx_elements(name, t->rank, t->dims, &t->elements));
  if (t->values.rank != 1) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "sparse tensor '%s': values have rank %zu, not 1",
                           name, t->values.rank);
  }
  t->nonzeros = (uint64_t)t->values.dims[0];
  const hrx_onnx_tensor_t* ix = &t->indices;
  bool linear = ix->rank == 1 && (uint64_t)ix->dims[0] == t->nonzeros;
  bool tuples = ix->rank == 2 && (uint64_t)ix->dims[0] == t->nonzeros &&
                (uint64_t)ix->dims[1] == t->rank;
  if (ix->dtype != HRX_ONNX_INT64 || !(linear || tuples)) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "sparse tensor '%s': indices must be INT64 of "
                           "shape [%llu] or [%llu, %zu]",
                           name, (unsigned long long)t->nonzeros,
                           (unsigned long long)t->nonzeros, t->rank);
  }
  if (t->nonzeros > t->elements) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "sparse tensor '%s' has %llu values for %llu "
                           "elements",
                           name, (unsigned long long)t->nonzeros,
                           (unsigned long long)t->elements);
  }
  return HRX_OK;
}

static hrx_status_t hrx_onnx_attribute_parse(hrx_onnx_model_t* m,
                                             const uint8_t* data,
                                             size_t length,
                                             hrx_onnx_attribute_t* a) {
  hrx_pb_field_t f;
  bool done = false;
  size_t ints = 0, floats = 0, others = 0;
  hrx_pb_reader_t r = hrx_pb_reader(data, length);
  for (;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    if (f.number == 7) {
      HRX_RETURN_IF_ERROR(hrx_onnx_repeated_count(&f, HRX_PB_FIXED32, &floats));
    } else if (f.number == 8) {
      HRX_RETURN_IF_ERROR(hrx_onnx_repeated_count(&f, HRX_PB_VARINT, &ints));
    } else if (f.number >= 9 && f.number <= 11) {
      others++;
    }
  }
  int64_t* int_values = NULL;
  float* float_values = NULL;
  HRX_ONNX_NEW(m, int_values, ints);
  HRX_ONNX_NEW(m, float_values, floats);
  size_t int_at = 0, float_at = 0;
  r = hrx_pb_reader(data, length);
  for (;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    switch (f.number) {
      case 1:
        HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &f, &a->name));
        break;
      case 20:
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_VARINT));
        a->type = (hrx_onnx_attribute_type_t)f.value;
        break;
      case 2: {
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_FIXED32));
        uint32_t bits = (uint32_t)f.value;
        float value;
        memcpy(&value, &bits, 4);
        a->f = value;
        break;
      }
      case 3:
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_VARINT));
        a->i = (int64_t)f.value;
        break;
      case 4:
        HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &f, &a->s));
        a->s_length = f.length;
        break;
      case 5: {
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_LEN));
        hrx_onnx_tensor_t* t = NULL;
        HRX_ONNX_NEW(m, t, 1);
        HRX_RETURN_IF_ERROR(hrx_onnx_tensor(m, f.data, f.length, t));
        a->t = t;
        break;
      }
      case 7:
        HRX_RETURN_IF_ERROR(hrx_onnx_repeated_fill(&f, HRX_PB_FIXED32,
                                                   float_values, &float_at));
        break;
      case 8:
        HRX_RETURN_IF_ERROR(hrx_onnx_repeated_fill(&f, HRX_PB_VARINT,
                                                   int_values, &int_at));
        break;
      default:
        break;
    }
  }
  if (!a->name) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS, "an attribute has no name");
  }
  char name[HRX_ESCAPED_NAME_CAPACITY];
  if (a->type < HRX_ONNX_ATTR_FLOAT || a->type > 14) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "attribute '%s' has unknown type %d",
                           hrx_artifacts_show(a->name, name), (int)a->type);
  }
  if (a->type == HRX_ONNX_ATTR_TENSOR && !a->t) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "attribute '%s' is a TENSOR without a tensor",
                           hrx_artifacts_show(a->name, name));
  }
  a->ints = int_values;
  a->floats = float_values;
  a->count = a->type == HRX_ONNX_ATTR_INTS     ? ints
             : a->type == HRX_ONNX_ATTR_FLOATS ? floats
                                               : others;
  if (!a->s) a->s = "";
  return HRX_OK;
}

static int hrx_onnx_compare_names(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

/* Attribute lookup is by name: a repeated name would be ambiguous. Repeats
 * are found by sorting a copy of the names, as a hostile file may give one
 * node 10^5 attributes (comparing every pair took minutes). */
static hrx_status_t hrx_onnx_unique_attributes(hrx_onnx_model_t* m,
                                               const hrx_onnx_node_t* n) {
  size_t count = n->attribute_count;
  if (count < 2) return HRX_OK;
  const char** names = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(m->allocator, count,
                                                 sizeof(*names),
                                                 (void**)&names));
  for (size_t a = 0; a < count; ++a) names[a] = n->attributes[a].name;
  qsort(names, count, sizeof(*names), hrx_onnx_compare_names);
  const char* repeated = NULL;
  for (size_t a = 1; a < count && !repeated; ++a) {
    if (!strcmp(names[a - 1], names[a])) repeated = names[a];
  }
  hrx_status_t status = HRX_OK;
  if (repeated) {
    char node[HRX_ESCAPED_NAME_CAPACITY], op[HRX_ESCAPED_NAME_CAPACITY];
    char attribute[HRX_ESCAPED_NAME_CAPACITY];
    status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "node '%s' (%s) has attribute '%s' twice",
                             hrx_artifacts_show(n->name, node),
                             hrx_artifacts_show(n->op_type, op),
                             hrx_artifacts_show(repeated, attribute));
  }
  hrx_allocator_free(m->allocator, names);
  return status;
}

static hrx_status_t hrx_onnx_node(hrx_onnx_model_t* m, const uint8_t* data,
                                  size_t length, hrx_onnx_node_t* n) {
  hrx_pb_field_t f;
  bool done = false;
  size_t counts[6];
  HRX_RETURN_IF_ERROR(hrx_pb_count(data, length, counts, 6));
  size_t inputs = counts[1], outputs = counts[2], attributes = counts[5];
  hrx_pb_reader_t r;
  const char** in = NULL;
  const char** out = NULL;
  hrx_onnx_attribute_t* attrs = NULL;
  HRX_ONNX_NEW(m, in, inputs);
  HRX_ONNX_NEW(m, out, outputs);
  HRX_ONNX_NEW(m, attrs, attributes);
  n->inputs = in;
  n->outputs = out;
  n->attributes = attrs;
  r = hrx_pb_reader(data, length);
  for (;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    switch (f.number) {
      case 1:
        HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &f, &in[n->input_count++]));
        break;
      case 2:
        HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &f, &out[n->output_count++]));
        break;
      case 3:
        HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &f, &n->name));
        break;
      case 4:
        HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &f, &n->op_type));
        break;
      case 7:
        HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &f, &n->domain));
        break;
      case 5:
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_LEN));
        HRX_RETURN_IF_ERROR(hrx_onnx_attribute_parse(
            m, f.data, f.length, &attrs[n->attribute_count++]));
        break;
      default:
        break;
    }
  }
  char name[HRX_ESCAPED_NAME_CAPACITY];
  if (!n->op_type) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS, "node '%s' has no op_type",
                           hrx_artifacts_show(n->name ? n->name : "", name));
  }
  if (!n->name) n->name = "";
  if (!n->domain) n->domain = "";
  return hrx_onnx_unique_attributes(m, n);
}

static hrx_status_t hrx_onnx_value_info(hrx_onnx_model_t* m,
                                        const uint8_t* data, size_t length,
                                        hrx_onnx_value_info_t* v) {
  hrx_pb_field_t f, tf, sf;
  bool done = false;
  hrx_pb_reader_t r = hrx_pb_reader(data, length);
  for (;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    if (f.number == 1) HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &f, &v->name));
    if (f.number != 2) continue;
    HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_LEN));
    hrx_pb_reader_t type = hrx_pb_reader(f.data, f.length);
    for (;;) { /* TypeProto: tensor_type = 1 */
      HRX_RETURN_IF_ERROR(hrx_pb_next(&type, &tf, &done));
      if (done) break;
      if (tf.number != 1) continue;
      HRX_RETURN_IF_ERROR(hrx_onnx_expect(&tf, HRX_PB_LEN));
      hrx_pb_reader_t tensor = hrx_pb_reader(tf.data, tf.length);
      for (;;) { /* elem_type = 1, shape = 2 */
        HRX_RETURN_IF_ERROR(hrx_pb_next(&tensor, &sf, &done));
        if (done) break;
        if (sf.number == 1) {
          HRX_RETURN_IF_ERROR(hrx_onnx_expect(&sf, HRX_PB_VARINT));
          v->dtype = (int32_t)sf.value;
        } else if (sf.number == 2) {
          HRX_RETURN_IF_ERROR(hrx_onnx_expect(&sf, HRX_PB_LEN));
          v->has_shape = true;
          size_t counts[2];
          HRX_RETURN_IF_ERROR(hrx_pb_count(sf.data, sf.length, counts, 2));
          hrx_pb_field_t df;
          hrx_onnx_dim_t* dims = NULL;
          HRX_ONNX_NEW(m, dims, counts[1]);
          hrx_pb_reader_t shape = hrx_pb_reader(sf.data, sf.length);
          for (;;) {
            HRX_RETURN_IF_ERROR(hrx_pb_next(&shape, &df, &done));
            if (done) break;
            if (df.number != 1) continue;
            HRX_RETURN_IF_ERROR(hrx_onnx_expect(&df, HRX_PB_LEN));
            hrx_onnx_dim_t* dim = &dims[v->rank++];
            dim->value = -1;
            hrx_pb_field_t xf;
            hrx_pb_reader_t x = hrx_pb_reader(df.data, df.length);
            for (;;) {
              HRX_RETURN_IF_ERROR(hrx_pb_next(&x, &xf, &done));
              if (done) break;
              if (xf.number == 1 && xf.wire == HRX_PB_VARINT) {
                dim->value = (int64_t)xf.value;
              } else if (xf.number == 2) {
                HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &xf, &dim->param));
              }
            }
          }
          v->dims = dims;
        }
      }
    }
  }
  if (!v->name) v->name = "";
  return HRX_OK;
}

static hrx_status_t hrx_onnx_graph(hrx_onnx_model_t* m, const uint8_t* data,
                                   size_t length) {
  hrx_onnx_model_info_t* info = &m->info;
  hrx_pb_field_t f;
  bool done = false;
  size_t counts[16];
  HRX_RETURN_IF_ERROR(hrx_pb_count(data, length, counts, 16));
  size_t nodes = counts[1], inits = counts[5], inputs = counts[11],
         outputs = counts[12], sparse = counts[15];
  hrx_pb_reader_t r;
  hrx_onnx_node_t* node_array = NULL;
  hrx_onnx_tensor_t* init_array = NULL;
  hrx_onnx_sparse_tensor_t* sparse_array = NULL;
  hrx_onnx_value_info_t* input_array = NULL;
  hrx_onnx_value_info_t* output_array = NULL;
  HRX_ONNX_NEW(m, node_array, nodes);
  HRX_ONNX_NEW(m, init_array, inits);
  HRX_ONNX_NEW(m, sparse_array, sparse);
  HRX_ONNX_NEW(m, input_array, inputs);
  HRX_ONNX_NEW(m, output_array, outputs);
  info->nodes = node_array;
  info->initializers = init_array;
  info->sparse_initializers = sparse_array;
  info->inputs = input_array;
  info->outputs = output_array;
  r = hrx_pb_reader(data, length);
  for (;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    hrx_status_t status = HRX_OK;
    if (f.number == 2) {
      status = hrx_onnx_string(m, &f, &info->graph_name);
    } else if (f.number == 1 || f.number == 5 || f.number == 11 ||
               f.number == 12 || f.number == 15) {
      status = hrx_onnx_expect(&f, HRX_PB_LEN);
      if (status == HRX_OK && f.number == 1) {
        status = hrx_onnx_node(m, f.data, f.length,
                               &node_array[info->node_count]);
        if (status != HRX_OK) {
          hrx_status_t named = hrx_make_status(
              hrx_status_code(status), "node %zu: %s", info->node_count,
              hrx_status_message(status));
          hrx_status_free(status);
          return named;
        }
        info->node_count++;
      } else if (status == HRX_OK && f.number == 5) {
        status = hrx_onnx_tensor(m, f.data, f.length,
                                 &init_array[info->initializer_count++]);
      } else if (status == HRX_OK && f.number == 15) {
        status = hrx_onnx_sparse(
            m, f.data, f.length,
            &sparse_array[info->sparse_initializer_count++]);
      } else if (status == HRX_OK && f.number == 11) {
        status = hrx_onnx_value_info(m, f.data, f.length,
                                     &input_array[info->input_count++]);
      } else if (status == HRX_OK) {
        status = hrx_onnx_value_info(m, f.data, f.length,
                                     &output_array[info->output_count++]);
      }
    }
    HRX_RETURN_IF_ERROR(status);
  }
  if (!info->graph_name) info->graph_name = "";
  return HRX_OK;
}

static hrx_status_t hrx_onnx_model(hrx_onnx_model_t* m) {
  hrx_onnx_model_info_t* info = &m->info;
  hrx_pb_field_t f, of;
  bool done = false;
  const uint8_t* graph = NULL;
  size_t graph_length = 0;
  size_t counts[9];
  HRX_RETURN_IF_ERROR(hrx_pb_count(m->image, m->image_length, counts, 9));
  hrx_onnx_opset_t* opset_array = NULL;
  HRX_ONNX_NEW(m, opset_array, counts[8]);
  info->opsets = opset_array;
  hrx_pb_reader_t r = hrx_pb_reader(m->image, m->image_length);
  for (;;) {
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    switch (f.number) {
      case 1:
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_VARINT));
        info->ir_version = (int64_t)f.value;
        break;
      case 2:
        HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &f, &info->producer_name));
        break;
      case 3:
        HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &f, &info->producer_version));
        break;
      case 7:
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_LEN));
        graph = f.data;
        graph_length = f.length;
        break;
      case 8: {
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_LEN));
        hrx_onnx_opset_t* o = &opset_array[info->opset_count++];
        o->domain = "";
        hrx_pb_reader_t opset = hrx_pb_reader(f.data, f.length);
        for (;;) {
          HRX_RETURN_IF_ERROR(hrx_pb_next(&opset, &of, &done));
          if (done) break;
          if (of.number == 1) {
            HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &of, &o->domain));
          }
          if (of.number == 2 && of.wire == HRX_PB_VARINT) {
            o->version = (int64_t)of.value;
          }
        }
        break;
      }
      default:
        break;
    }
  }
  if (!info->producer_name) info->producer_name = "";
  if (!info->producer_version) info->producer_version = "";
  if (!graph) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS, "the model has no graph");
  }
  return hrx_onnx_graph(m, graph, graph_length);
}

void hrx_onnx_destroy(hrx_onnx_model_t* m) {
  if (!m) return;
  for (hrx_onnx_block_t* b = m->blocks; b;) {
    hrx_onnx_block_t* next = b->next;
    hrx_allocator_free(m->allocator, b);
    b = next;
  }
  hrx_allocator_free(m->allocator, m->image);
  hrx_allocator_free(m->allocator, m->base_dir);
  hrx_allocator_free(m->allocator, m);
}

static hrx_status_t hrx_onnx_index(hrx_onnx_model_t* m, const char* label,
                                   hrx_onnx_model_t** out_model) {
  m->info.struct_size = sizeof(m->info);
  hrx_status_t status = hrx_onnx_model(m);
  if (status != HRX_OK) {
    char shown[HRX_ESCAPED_NAME_CAPACITY];
    hrx_status_t named =
        hrx_make_status(hrx_status_code(status), "%s: %s",
                        hrx_artifacts_show(label, shown),
                        hrx_status_message(status));
    hrx_status_free(status);
    hrx_onnx_destroy(m);
    return named;
  }
  *out_model = m;
  return HRX_OK;
}

hrx_status_t hrx_onnx_parse(const void* data, size_t length,
                            hrx_allocator_t allocator,
                            hrx_onnx_model_t** out_model) {
  *out_model = NULL;
  hrx_onnx_model_t* m = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*m), (void**)&m));
  m->allocator = allocator;
  hrx_status_t status =
      hrx_allocator_malloc_uninitialized(allocator, length ? length : 1,
                                         (void**)&m->image);
  if (status != HRX_OK) {
    hrx_allocator_free(allocator, m);
    return status;
  }
  if (length) memcpy(m->image, data, length);
  m->image_length = length;
  return hrx_onnx_index(m, "<memory>", out_model);
}

hrx_status_t hrx_onnx_open(const char* path, hrx_allocator_t allocator,
                           hrx_onnx_model_t** out_model) {
  *out_model = NULL;
  hrx_onnx_model_t* m = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*m), (void**)&m));
  m->allocator = allocator;
  /* ModelProto is capped at 2 GiB by protobuf itself. */
  hrx_status_t status = hrx_file_read_all(allocator, path, (size_t)2 << 30,
                                          (void**)&m->image,
                                          &m->image_length);
  if (status == HRX_OK) {
    status = hrx_path_parent(allocator, path, &m->base_dir);
  }
  if (status != HRX_OK) {
    hrx_onnx_destroy(m);
    return status;
  }
  return hrx_onnx_index(m, path, out_model);
}

const hrx_onnx_model_info_t* hrx_onnx_info(const hrx_onnx_model_t* m) {
  return &m->info;
}

hrx_status_t hrx_onnx_find_initializer(const hrx_onnx_model_t* m,
                                       const char* name,
                                       const hrx_onnx_tensor_t** out) {
  *out = NULL;
  for (size_t i = 0; i < m->info.initializer_count; ++i) {
    if (!strcmp(m->info.initializers[i].name, name)) {
      *out = &m->info.initializers[i];
      return HRX_OK;
    }
  }
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "no initializer '%s'",
                         hrx_artifacts_show(name, shown));
}

hrx_status_t hrx_onnx_find_sparse_initializer(
    const hrx_onnx_model_t* m, const char* name,
    const hrx_onnx_sparse_tensor_t** out) {
  *out = NULL;
  for (size_t i = 0; i < m->info.sparse_initializer_count; ++i) {
    if (!strcmp(m->info.sparse_initializers[i].name, name)) {
      *out = &m->info.sparse_initializers[i];
      return HRX_OK;
    }
  }
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "no sparse initializer '%s'",
                         hrx_artifacts_show(name, shown));
}

hrx_status_t hrx_onnx_find_producer(const hrx_onnx_model_t* m,
                                    const char* output,
                                    const hrx_onnx_node_t** out) {
  *out = NULL;
  for (size_t n = 0; n < m->info.node_count; ++n) {
    const hrx_onnx_node_t* node = &m->info.nodes[n];
    for (size_t o = 0; o < node->output_count; ++o) {
      if (!strcmp(node->outputs[o], output)) {
        *out = node;
        return HRX_OK;
      }
    }
  }
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "no node produces '%s'",
                         hrx_artifacts_show(output, shown));
}

/* Which typed field holds |dtype|'s values (ONNX spec), and its wire. */
static uint32_t hrx_onnx_typed_field(int32_t dtype, hrx_pb_wire_t* wire) {
  switch (dtype) {
    case HRX_ONNX_FLOAT: *wire = HRX_PB_FIXED32; return 4;
    case HRX_ONNX_DOUBLE: *wire = HRX_PB_FIXED64; return 10;
    case HRX_ONNX_INT64: *wire = HRX_PB_VARINT; return 7;
    case HRX_ONNX_UINT32: case HRX_ONNX_UINT64:
      *wire = HRX_PB_VARINT; return 11;
    default: *wire = HRX_PB_VARINT; return 5; /* int32_data */
  }
}

static hrx_status_t hrx_onnx_external_short(const hrx_onnx_tensor_t* t) {
  char name[HRX_ESCAPED_NAME_CAPACITY], path[HRX_ESCAPED_NAME_CAPACITY];
  return hrx_make_status(HRX_STATUS_DATA_LOSS,
                         "external data '%s' ends before tensor '%s' "
                         "[%llu, +%llu)",
                         hrx_artifacts_show(t->external_path, path),
                         hrx_artifacts_show(t->name, name),
                         (unsigned long long)t->external_offset,
                         (unsigned long long)t->external_length);
}

/* The tensor's range of its external file, which must be a regular file
 * (a FIFO or a device there would block or never end) holding the whole
 * range. */
static hrx_status_t hrx_onnx_read_external(const hrx_onnx_tensor_t* t,
                                           uint8_t* out) {
  char name[HRX_ESCAPED_NAME_CAPACITY];
  int fd = -1;
  struct stat info;
  hrx_status_t status =
      hrx_file_open_regular(t->external_path, true, &fd, &info);
  if (status != HRX_OK) {
    return hrx_status_annotate(status, "external data of tensor '%s'",
                               hrx_artifacts_show(t->name, name));
  }
  /* offset + length was checked against INT64_MAX when indexed. */
  if (t->external_offset + t->external_length > (uint64_t)info.st_size) {
    status = hrx_onnx_external_short(t);
  }
  for (uint64_t done = 0; status == HRX_OK && done < t->external_length;) {
    ssize_t n = pread(fd, out + done, t->external_length - done,
                      (off_t)(t->external_offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      status = hrx_status_from_errno(errno, "cannot read external data of "
                                     "tensor '%s'",
                                     hrx_artifacts_show(t->name, name));
    } else if (n == 0) {
      status = hrx_onnx_external_short(t); /* shrank meanwhile */
    } else {
      done += (uint64_t)n;
    }
  }
  close(fd);
  return status;
}

hrx_status_t hrx_onnx_tensor_read(const hrx_onnx_tensor_t* t, void* buffer,
                                  size_t capacity) {
  char name[HRX_ESCAPED_NAME_CAPACITY];
  size_t size = hrx_onnx_dtype_size(t->dtype);
  if (!size) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "tensor '%s' is %s; only numeric tensors decode",
                           hrx_artifacts_show(t->name, name),
                           hrx_onnx_dtype_name(t->dtype));
  }
  uint64_t bytes = t->elements * size; /* checked when indexed */
  if (capacity < bytes) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "tensor '%s' is %llu bytes; the buffer holds %zu",
                           hrx_artifacts_show(t->name, name),
                           (unsigned long long)bytes, capacity);
  }
  uint8_t* out = buffer;
  if (t->external_path) return hrx_onnx_read_external(t, out);
  if (t->raw) {
    if (bytes) memcpy(out, t->raw, bytes);
    return HRX_OK;
  }
  hrx_pb_wire_t wire;
  uint32_t number = hrx_onnx_typed_field(t->dtype, &wire);
  size_t at = 0;
  hrx_pb_reader_t r = hrx_pb_reader(t->proto, t->proto_length);
  for (;;) {
    hrx_pb_field_t f;
    bool done = false;
    HRX_RETURN_IF_ERROR(hrx_pb_next(&r, &f, &done));
    if (done) break;
    if (f.number != number) continue;
    /* Fixed-width values, packed or one per field. */
    if (wire != HRX_PB_VARINT) {
      size_t width = wire == HRX_PB_FIXED32 ? 4 : 8;
      const uint8_t* from = f.wire == HRX_PB_LEN ? f.data : NULL;
      size_t count = from ? f.length / width : 1;
      for (size_t i = 0; i < count && at < t->elements; ++i, ++at) {
        uint64_t v = f.value;
        if (from) {
          v = 0;
          for (size_t k = 0; k < width; ++k) {
            v |= (uint64_t)from[i * width + k] << (8 * k);
          }
        }
        for (size_t k = 0; k < size; ++k)
          out[at * size + k] = (uint8_t)(v >> (8 * k));
      }
      continue;
    }
    hrx_pb_reader_t values = hrx_pb_reader(f.data, f.length);
    while (at < t->elements) {
      uint64_t v = f.value;
      if (f.wire == HRX_PB_LEN) {
        if (values.at >= values.end) break;
        HRX_RETURN_IF_ERROR(hrx_pb_varint(&values, &v));
      }
      /* Narrow types keep their low bytes (FLOAT16 and BFLOAT16 their bit
       * patterns), as ONNX stores them in int32_data. */
      for (size_t k = 0; k < size; ++k)
        out[at * size + k] = (uint8_t)(v >> (8 * k));
      at++;
      if (f.wire != HRX_PB_LEN) break;
    }
  }
  if (at != t->elements) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "tensor '%s' holds %zu %s values in field %u, its "
                           "dims need %llu",
                           hrx_artifacts_show(t->name, name), at,
                           hrx_onnx_dtype_name(t->dtype), number,
                           (unsigned long long)t->elements);
  }
  return HRX_OK;
}

static const char* hrx_onnx_attribute_type_name(int type) {
  static const char* const names[] = {
      "UNDEFINED", "FLOAT",   "INT",     "STRING", "TENSOR",
      "GRAPH",     "FLOATS",  "INTS",    "STRINGS", "TENSORS",
      "GRAPHS",    "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO",
      "TYPE_PROTOS"};
  return type >= 0 && type < 15 ? names[type] : "UNKNOWN";
}

hrx_status_t hrx_onnx_attribute(const hrx_onnx_node_t* node, const char* name,
                                hrx_onnx_attribute_type_t type,
                                const hrx_onnx_attribute_t** out) {
  *out = NULL;
  char shown[HRX_ESCAPED_NAME_CAPACITY], node_name[HRX_ESCAPED_NAME_CAPACITY];
  char op[HRX_ESCAPED_NAME_CAPACITY];
  for (size_t a = 0; a < node->attribute_count; ++a) {
    const hrx_onnx_attribute_t* attribute = &node->attributes[a];
    if (strcmp(attribute->name, name)) continue;
    if (attribute->type != type) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "attribute '%s' of node '%s' (%s) is %s, not %s",
                             hrx_artifacts_show(name, shown),
                             hrx_artifacts_show(node->name, node_name),
                             hrx_artifacts_show(node->op_type, op),
                             hrx_onnx_attribute_type_name(attribute->type),
                             hrx_onnx_attribute_type_name(type));
    }
    *out = attribute;
    return HRX_OK;
  }
  return hrx_make_status(HRX_STATUS_NOT_FOUND,
                         "node '%s' (%s) has no attribute '%s'",
                         hrx_artifacts_show(node->name, node_name),
                         hrx_artifacts_show(node->op_type, op),
                         hrx_artifacts_show(name, shown));
}

/* The row-major position of index |i|, checked against the shape. */
static bool hrx_onnx_sparse_position(const hrx_onnx_sparse_tensor_t* t,
                                     const int64_t* indices, uint64_t i,
                                     uint64_t* out) {
  if (t->indices.rank == 1) {
    int64_t linear = indices[i];
    *out = (uint64_t)linear;
    return linear >= 0 && (uint64_t)linear < t->elements;
  }
  uint64_t position = 0;
  for (size_t d = 0; d < t->rank; ++d) {
    int64_t k = indices[i * t->rank + d];
    if (k < 0 || k >= t->dims[d]) return false;
    position = position * (uint64_t)t->dims[d] + (uint64_t)k;
  }
  *out = position;
  return true;
}

hrx_status_t hrx_onnx_sparse_tensor_read(const hrx_onnx_sparse_tensor_t* t,
                                         hrx_allocator_t allocator,
                                         void* buffer, size_t capacity) {
  char name[HRX_ESCAPED_NAME_CAPACITY];
  hrx_artifacts_show(t->name, name);
  size_t size = hrx_onnx_dtype_size(t->dtype);
  if (!size) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "sparse tensor '%s' holds %s values", name,
                           hrx_onnx_dtype_name(t->dtype));
  }
  /* Parsing bounded elements * size by 2^64 through the values tensor
   * only; the dense size is checked here. */
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(t->elements, (uint64_t)size, &bytes) ||
      bytes > capacity) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "sparse tensor '%s' needs %llu elements of %zu "
                           "bytes dense, the buffer holds %zu bytes",
                           name, (unsigned long long)t->elements, size,
                           capacity);
  }
  size_t value_bytes = (size_t)t->nonzeros * size;
  size_t index_bytes = (size_t)t->indices.elements * sizeof(int64_t);
  uint8_t* values = NULL;
  int64_t* indices = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_uninitialized(
      allocator, value_bytes ? value_bytes : 1, (void**)&values));
  hrx_status_t status = hrx_allocator_malloc_uninitialized(
      allocator, index_bytes ? index_bytes : 1, (void**)&indices);
  if (status == HRX_OK) {
    status = hrx_onnx_tensor_read(&t->values, values, value_bytes);
  }
  if (status == HRX_OK) {
    status = hrx_onnx_tensor_read(&t->indices, indices, index_bytes);
  }
  if (status == HRX_OK) memset(buffer, 0, (size_t)bytes);
  uint64_t previous = 0;
  for (uint64_t i = 0; status == HRX_OK && i < t->nonzeros; ++i) {
    uint64_t at = 0;
    if (!hrx_onnx_sparse_position(t, indices, i, &at)) {
      status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                               "sparse tensor '%s': index %llu lies outside "
                               "its shape",
                               name, (unsigned long long)i);
    } else if (i > 0 && at <= previous) {
      status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                               "sparse tensor '%s': index %llu is not after "
                               "index %llu (indices must ascend without "
                               "repeats)",
                               name, (unsigned long long)i,
                               (unsigned long long)(i - 1));
    } else {
      memcpy((uint8_t*)buffer + at * size, values + i * size, size);
      previous = at;
    }
  }
  hrx_allocator_free(allocator, indices);
  hrx_allocator_free(allocator, values);
  return status;
}
