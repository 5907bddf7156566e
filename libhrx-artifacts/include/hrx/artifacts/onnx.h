/* ONNX models: a checked index of a ModelProto, decoded by HRX's own
 * protobuf wire reader (no protobuf library is used or exposed).
 *
 * Opening reads the whole file and indexes it: opset imports, producer,
 * the main graph's nodes in order (op type, inputs, outputs, attributes),
 * its inputs and outputs with element types and shapes, and its
 * initializers (element type, dims, and where their bytes are). Every
 * length, count and byte range is checked against the file; element counts
 * are overflow-checked; data sizes must match dims. Initializer bytes are
 * zero-copy views into the loaded file when stored as raw_data.
 *
 * External data (data_location = EXTERNAL) is resolved relative to the
 * model file's directory. A location must name a file inside it: empty,
 * absolute, ".", ".." and empty components, backslashes and control
 * characters are refused (symbolic links are followed, as the Hugging Face
 * cache links every file). "offset" and "length" are decimal numbers whose
 * sum is a valid file offset (below 2^63); each key may appear once. The
 * external file must be a regular file holding the whole range.
 *
 * Model files must be regular files: FIFOs and devices are refused at
 * once. Names from the file appear escaped in messages.
 *
 * A model is immutable after opening and may be shared between threads.
 */
#ifndef HRX_ARTIFACTS_ONNX_H_
#define HRX_ARTIFACTS_ONNX_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_onnx_model_s hrx_onnx_model_t;

/* TensorProto.DataType values. */
typedef enum hrx_onnx_dtype_e {
  HRX_ONNX_FLOAT = 1, HRX_ONNX_UINT8 = 2, HRX_ONNX_INT8 = 3,
  HRX_ONNX_UINT16 = 4, HRX_ONNX_INT16 = 5, HRX_ONNX_INT32 = 6,
  HRX_ONNX_INT64 = 7, HRX_ONNX_STRING = 8, HRX_ONNX_BOOL = 9,
  HRX_ONNX_FLOAT16 = 10, HRX_ONNX_DOUBLE = 11, HRX_ONNX_UINT32 = 12,
  HRX_ONNX_UINT64 = 13, HRX_ONNX_BFLOAT16 = 16,
} hrx_onnx_dtype_t;

/* "FLOAT", "INT64", ...; "UNKNOWN" otherwise. */
HRX_API const char* hrx_onnx_dtype_name(int32_t dtype);
/* Bytes per element; 0 for STRING and unknown types. */
HRX_API size_t hrx_onnx_dtype_size(int32_t dtype);

/* AttributeProto.AttributeType values. */
typedef enum hrx_onnx_attribute_type_e {
  HRX_ONNX_ATTR_FLOAT = 1, HRX_ONNX_ATTR_INT = 2, HRX_ONNX_ATTR_STRING = 3,
  HRX_ONNX_ATTR_TENSOR = 4, HRX_ONNX_ATTR_GRAPH = 5,
  HRX_ONNX_ATTR_FLOATS = 6, HRX_ONNX_ATTR_INTS = 7,
  HRX_ONNX_ATTR_STRINGS = 8, HRX_ONNX_ATTR_TENSORS = 9,
  HRX_ONNX_ATTR_GRAPHS = 10,
} hrx_onnx_attribute_type_t;

typedef struct hrx_onnx_tensor_t {
  const char* name;
  int32_t dtype;
  size_t rank;
  const int64_t* dims;
  uint64_t elements;
  /* In-file bytes (raw_data, little-endian), or NULL. */
  const uint8_t* raw;
  size_t raw_length;
  /* External data: the resolved path, offset and length, or path NULL. */
  const char* external_path;
  uint64_t external_offset;
  uint64_t external_length;
  /* The encoded TensorProto, for hrx_onnx_tensor_read. */
  const uint8_t* proto;
  size_t proto_length;
} hrx_onnx_tensor_t;

/* A sparse initializer (GraphProto.sparse_initializer): a dense tensor of
 * shape |dims| that is zero except at |indices|, which hold |values|. */
typedef struct hrx_onnx_sparse_tensor_t {
  const char* name; /* the values' name */
  int32_t dtype;    /* the values' dtype */
  size_t rank;      /* of the dense tensor */
  const int64_t* dims;
  uint64_t elements;
  uint64_t nonzeros;
  hrx_onnx_tensor_t values;  /* [nonzeros] */
  hrx_onnx_tensor_t indices; /* INT64: [nonzeros] linear, or [nonzeros, rank] */
} hrx_onnx_sparse_tensor_t;

typedef struct hrx_onnx_attribute_t {
  const char* name;
  hrx_onnx_attribute_type_t type;
  double f;                 /* FLOAT */
  int64_t i;                /* INT */
  const char* s;            /* STRING (bytes, NUL-terminated copy) */
  size_t s_length;
  const hrx_onnx_tensor_t* t; /* TENSOR */
  const int64_t* ints;      /* INTS */
  const float* floats;      /* FLOATS */
  size_t count;             /* INTS, FLOATS, STRINGS, TENSORS, GRAPHS */
} hrx_onnx_attribute_t;

typedef struct hrx_onnx_node_t {
  const char* name;
  const char* op_type;
  const char* domain;
  const char* const* inputs;
  size_t input_count;
  const char* const* outputs;
  size_t output_count;
  const hrx_onnx_attribute_t* attributes;
  size_t attribute_count;
} hrx_onnx_node_t;

typedef struct hrx_onnx_dim_t {
  int64_t value;     /* when param is NULL; -1 when unknown */
  const char* param; /* a symbolic dimension, or NULL */
} hrx_onnx_dim_t;

typedef struct hrx_onnx_value_info_t {
  const char* name;
  int32_t dtype;     /* 0 when not a tensor type */
  bool has_shape;
  size_t rank;
  const hrx_onnx_dim_t* dims;
} hrx_onnx_value_info_t;

typedef struct hrx_onnx_opset_t {
  const char* domain; /* "" is the default ONNX domain */
  int64_t version;
} hrx_onnx_opset_t;

typedef struct hrx_onnx_model_info_t {
  /* Set by the library (borrowed report): see hrx/core/struct.h. */
  uint32_t struct_size;
  int64_t ir_version;
  const char* producer_name;
  const char* producer_version;
  const char* graph_name;
  const hrx_onnx_opset_t* opsets;
  size_t opset_count;
  const hrx_onnx_node_t* nodes; /* in graph order */
  size_t node_count;
  const hrx_onnx_value_info_t* inputs;
  size_t input_count;
  const hrx_onnx_value_info_t* outputs;
  size_t output_count;
  const hrx_onnx_tensor_t* initializers;
  size_t initializer_count;
  const hrx_onnx_sparse_tensor_t* sparse_initializers;
  size_t sparse_initializer_count;
} hrx_onnx_model_info_t;

/* Reads and indexes |path|. DATA_LOSS names what is malformed. */
HRX_API HRX_MUST_USE hrx_status_t hrx_onnx_open(
    const char* path, hrx_allocator_t allocator, hrx_onnx_model_t** out_model);
/* Indexes an image in memory (copied); external data is refused. */
HRX_API HRX_MUST_USE hrx_status_t hrx_onnx_parse(
    const void* data, size_t length, hrx_allocator_t allocator,
    hrx_onnx_model_t** out_model);
HRX_API void hrx_onnx_destroy(hrx_onnx_model_t* model);

/* Borrowed views, valid while the model lives. */
HRX_API const hrx_onnx_model_info_t* hrx_onnx_info(
    const hrx_onnx_model_t* model);

/* NOT_FOUND names the initializer. */
HRX_API HRX_MUST_USE hrx_status_t hrx_onnx_find_initializer(
    const hrx_onnx_model_t* model, const char* name,
    const hrx_onnx_tensor_t** out_tensor);
/* The same for sparse initializers (hrx_onnx_find_initializer finds only
 * dense ones). */
HRX_API HRX_MUST_USE hrx_status_t hrx_onnx_find_sparse_initializer(
    const hrx_onnx_model_t* model, const char* name,
    const hrx_onnx_sparse_tensor_t** out_tensor);
/* The node producing |output|; NOT_FOUND when none does (a graph input or
 * initializer, say). */
HRX_API HRX_MUST_USE hrx_status_t hrx_onnx_find_producer(
    const hrx_onnx_model_t* model, const char* output,
    const hrx_onnx_node_t** out_node);

/* Decodes |tensor|'s elements into |buffer| as little-endian values of its
 * dtype (elements * dtype size bytes; OUT_OF_RANGE when |capacity| is
 * smaller): from raw_data, from the typed fields (float_data, int32_data,
 * int64_data, double_data, uint64_data, as the ONNX spec assigns them per
 * dtype) or from its external file. UNIMPLEMENTED for STRING tensors;
 * DATA_LOSS when an external file is shorter than its range. */
HRX_API HRX_MUST_USE hrx_status_t hrx_onnx_tensor_read(
    const hrx_onnx_tensor_t* tensor, void* buffer, size_t capacity);

/* Decodes |tensor| into its dense form in |buffer| (elements * dtype size
 * bytes, zero where no index points; OUT_OF_RANGE when |capacity| is
 * smaller), with |allocator| for scratch space. DATA_LOSS for an index
 * outside the shape or indices not in ascending order without repeats, as
 * the ONNX spec requires (the buffer's contents are then unspecified);
 * UNIMPLEMENTED for STRING values. */
HRX_API HRX_MUST_USE hrx_status_t hrx_onnx_sparse_tensor_read(
    const hrx_onnx_sparse_tensor_t* tensor, hrx_allocator_t allocator,
    void* buffer, size_t capacity);

/* Checked attribute access: NOT_FOUND when |node| has no attribute |name|,
 * INVALID_ARGUMENT when it has another type (both name node and
 * attribute). */
HRX_API HRX_MUST_USE hrx_status_t hrx_onnx_attribute(
    const hrx_onnx_node_t* node, const char* name,
    hrx_onnx_attribute_type_t type, const hrx_onnx_attribute_t** out);

#ifdef __cplusplus
}
#endif

#endif /* HRX_ARTIFACTS_ONNX_H_ */
