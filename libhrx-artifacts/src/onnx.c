/* ONNX: ModelProto indexing over the protobuf wire reader.
 *
 * Every message is read twice: once to count its repeated fields, once to
 * fill arrays of exactly that size from the model's arena. Nothing grows,
 * and a failure anywhere frees the arena whole. */
#include "hrx/artifacts/onnx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protobuf.h"

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

/* A location under the model's directory: relative, no "..". */
static hrx_status_t hrx_onnx_external_path(hrx_onnx_model_t* m,
                                           const char* tensor,
                                           const char* location,
                                           const char** out) {
  if (!m->base_dir) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "tensor '%s' has external data, but the model "
                           "was not opened from a file",
                           tensor);
  }
  bool bad = !location[0] || location[0] == '/';
  for (const char* p = location; !bad && *p;) {
    const char* slash = strchr(p, '/');
    size_t n = slash ? (size_t)(slash - p) : strlen(p);
    bad = n == 2 && p[0] == '.' && p[1] == '.';
    p = slash ? slash + 1 : p + n;
  }
  if (bad || strchr(location, '\\')) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "tensor '%s': external location '%s' leaves the "
                           "model's directory",
                           tensor, location);
  }
  char* path = NULL;
  HRX_ONNX_NEW(m, path, strlen(m->base_dir) + strlen(location) + 2);
  sprintf(path, "%s/%s", m->base_dir, location);
  *out = path;
  return HRX_OK;
}

static hrx_status_t hrx_onnx_u64(const char* text, uint64_t* out) {
  char* end = NULL;
  bool digits = text[0] >= '0' && text[0] <= '9';
  if (digits) *out = strtoull(text, &end, 10);
  return !digits || *end ? hrx_make_status(HRX_STATUS_DATA_LOSS,
                                           "'%s' is not a byte count", text)
                         : HRX_OK;
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

static hrx_status_t hrx_onnx_tensor(hrx_onnx_model_t* m, const uint8_t* data,
                                    size_t length, hrx_onnx_tensor_t* t) {
  hrx_pb_field_t f;
  bool done = false;
  size_t typed = 0;
  t->proto = data;
  t->proto_length = length;
  HRX_RETURN_IF_ERROR(
      hrx_onnx_int64s(m, data, length, 1, &t->rank, &t->dims));
  hrx_pb_reader_t r;
  int64_t location = 0;
  const char* external_location = NULL;
  uint64_t external_offset = 0, external_length = UINT64_MAX;
  r = hrx_pb_reader(data, length);
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
      case 13: {
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_LEN));
        const char* key = "";
        const char* value = "";
        hrx_pb_reader_t entry = hrx_pb_reader(f.data, f.length);
        hrx_pb_field_t e;
        bool entry_done = false;
        for (;;) {
          HRX_RETURN_IF_ERROR(hrx_pb_next(&entry, &e, &entry_done));
          if (entry_done) break;
          if (e.number == 1) HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &e, &key));
          if (e.number == 2) {
            HRX_RETURN_IF_ERROR(hrx_onnx_string(m, &e, &value));
          }
        }
        if (!strcmp(key, "location")) external_location = value;
        if (!strcmp(key, "offset")) {
          HRX_RETURN_IF_ERROR(hrx_onnx_u64(value, &external_offset));
        }
        if (!strcmp(key, "length")) {
          HRX_RETURN_IF_ERROR(hrx_onnx_u64(value, &external_length));
        }
        break;
      }
      case 14:
        HRX_RETURN_IF_ERROR(hrx_onnx_expect(&f, HRX_PB_VARINT));
        location = (int64_t)f.value;
        break;
      default:
        break;
    }
  }
  const char* name = t->name ? t->name : "(unnamed)";
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
    if (!external_location) {
      return hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "tensor '%s' is external without a location",
                             name);
    }
    HRX_RETURN_IF_ERROR(hrx_onnx_external_path(m, name, external_location,
                                               &t->external_path));
    t->external_offset = external_offset;
    t->external_length =
        external_length == UINT64_MAX ? bytes : external_length;
    if (size && t->external_length != bytes) {
      return hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "tensor '%s': external length %llu, its dims "
                             "need %llu bytes",
                             name, (unsigned long long)t->external_length,
                             (unsigned long long)bytes);
    }
  } else if (t->raw) {
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
  const char* name = t->name[0] ? t->name : "(unnamed)";
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
  if (a->type < HRX_ONNX_ATTR_FLOAT || a->type > 14) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "attribute '%s' has unknown type %d", a->name,
                           (int)a->type);
  }
  if (a->type == HRX_ONNX_ATTR_TENSOR && !a->t) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "attribute '%s' is a TENSOR without a tensor",
                           a->name);
  }
  a->ints = int_values;
  a->floats = float_values;
  a->count = a->type == HRX_ONNX_ATTR_INTS     ? ints
             : a->type == HRX_ONNX_ATTR_FLOATS ? floats
                                               : others;
  if (!a->s) a->s = "";
  return HRX_OK;
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
  if (!n->op_type) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS, "node '%s' has no op_type",
                           n->name ? n->name : "");
  }
  if (!n->name) n->name = "";
  if (!n->domain) n->domain = "";
  /* Attribute lookup is by name: a repeated name would be ambiguous. */
  for (size_t a = 1; a < n->attribute_count; ++a) {
    for (size_t b = 0; b < a; ++b) {
      if (!strcmp(attrs[a].name, attrs[b].name)) {
        return hrx_make_status(HRX_STATUS_DATA_LOSS,
                               "node '%s' (%s) has attribute '%s' twice",
                               n->name, n->op_type, attrs[a].name);
      }
    }
  }
  return HRX_OK;
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
              HRX_STATUS_DATA_LOSS, "node %zu: %s", info->node_count,
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

void hrx_onnx_close(hrx_onnx_model_t* m) {
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
  hrx_status_t status = hrx_onnx_model(m);
  if (status != HRX_OK) {
    hrx_status_t named =
        hrx_make_status(hrx_status_code(status), "%s: %s", label,
                        hrx_status_message(status));
    hrx_status_free(status);
    hrx_onnx_close(m);
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
    hrx_onnx_close(m);
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
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "no initializer '%s'", name);
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
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "no sparse initializer '%s'",
                         name);
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
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "no node produces '%s'",
                         output);
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

static hrx_status_t hrx_onnx_read_external(const hrx_onnx_tensor_t* t,
                                           uint8_t* out) {
  FILE* file = fopen(t->external_path, "rb");
  if (!file) {
    return hrx_make_status(HRX_STATUS_NOT_FOUND,
                           "cannot open external data '%s' of tensor '%s'",
                           t->external_path, t->name);
  }
  bool ok = fseeko(file, (off_t)t->external_offset, SEEK_SET) == 0 &&
            fread(out, 1, t->external_length, file) == t->external_length;
  fclose(file);
  return ok ? HRX_OK
            : hrx_make_status(HRX_STATUS_DATA_LOSS,
                              "external data '%s' ends before tensor '%s' "
                              "[%llu, +%llu)",
                              t->external_path, t->name,
                              (unsigned long long)t->external_offset,
                              (unsigned long long)t->external_length);
}

hrx_status_t hrx_onnx_tensor_read(const hrx_onnx_tensor_t* t, void* buffer,
                                  size_t capacity) {
  size_t size = hrx_onnx_dtype_size(t->dtype);
  if (!size) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "tensor '%s' is %s; only numeric tensors decode",
                           t->name, hrx_onnx_dtype_name(t->dtype));
  }
  uint64_t bytes = t->elements * size; /* checked when indexed */
  if (capacity < bytes) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "tensor '%s' is %llu bytes; the buffer holds %zu",
                           t->name, (unsigned long long)bytes, capacity);
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
                           t->name, at, hrx_onnx_dtype_name(t->dtype), number,
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
  for (size_t a = 0; a < node->attribute_count; ++a) {
    const hrx_onnx_attribute_t* attribute = &node->attributes[a];
    if (strcmp(attribute->name, name)) continue;
    if (attribute->type != type) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "attribute '%s' of node '%s' (%s) is %s, not %s",
                             name, node->name, node->op_type,
                             hrx_onnx_attribute_type_name(attribute->type),
                             hrx_onnx_attribute_type_name(type));
    }
    *out = attribute;
    return HRX_OK;
  }
  return hrx_make_status(HRX_STATUS_NOT_FOUND,
                         "node '%s' (%s) has no attribute '%s'", node->name,
                         node->op_type, name);
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
  size_t size = hrx_onnx_dtype_size(t->dtype);
  if (!size) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "sparse tensor '%s' holds %s values", t->name,
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
                           t->name, (unsigned long long)t->elements, size,
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
                               t->name, (unsigned long long)i);
    } else if (i > 0 && at <= previous) {
      status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                               "sparse tensor '%s': index %llu is not after "
                               "index %llu (indices must ascend without "
                               "repeats)",
                               t->name, (unsigned long long)i,
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
