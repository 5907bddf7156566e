/* libFuzzer target: the protobuf wire reader and ONNX indexing. Any image
 * either fails cleanly or yields an index whose views stay inside it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/artifacts.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void check(int condition) {
  if (!condition) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hrx_onnx_model_t* m = NULL;
  hrx_status_t status = hrx_onnx_parse(data, size, hrx_allocator_system(), &m);
  if (status != HRX_OK) {
    check(m == NULL);
    hrx_status_free(status);
    return 0;
  }
  const hrx_onnx_model_info_t* info = hrx_onnx_info(m);
  volatile size_t sink = 0;
  for (size_t n = 0; n < info->node_count; ++n) {
    const hrx_onnx_node_t* node = &info->nodes[n];
    sink += strlen(node->op_type) + strlen(node->name);
    for (size_t a = 0; a < node->attribute_count; ++a) {
      const hrx_onnx_attribute_t* attr = &node->attributes[a];
      const hrx_onnx_attribute_t* found = NULL;
      check(hrx_onnx_attribute(node, attr->name, attr->type, &found) ==
            HRX_OK);
      if (attr->type == HRX_ONNX_ATTR_INTS && attr->count) {
        sink += (size_t)attr->ints[attr->count - 1];
      }
    }
  }
  for (size_t i = 0; i < info->initializer_count; ++i) {
    const hrx_onnx_tensor_t* t = &info->initializers[i];
    if (t->raw_length) sink += t->raw[t->raw_length - 1];
    /* Decode small tensors: a read either fills exactly or fails. */
    uint64_t bytes = t->elements * hrx_onnx_dtype_size(t->dtype);
    if (bytes <= (1u << 16)) {
      uint8_t* buffer = malloc(bytes ? bytes : 1);
      status = hrx_onnx_tensor_read(t, buffer, bytes);
      hrx_status_free(status);
      free(buffer);
    }
  }
  for (size_t i = 0; i < info->sparse_initializer_count; ++i) {
    const hrx_onnx_sparse_tensor_t* t = &info->sparse_initializers[i];
    uint64_t bytes = t->elements * hrx_onnx_dtype_size(t->dtype);
    if (t->elements <= (1u << 16) && bytes <= (1u << 16)) {
      uint8_t* buffer = malloc(bytes ? bytes : 1);
      status = hrx_onnx_sparse_tensor_read(t, hrx_allocator_system(), buffer,
                                           bytes);
      hrx_status_free(status);
      free(buffer);
    }
  }
  (void)sink;
  hrx_onnx_destroy(m);
  return 0;
}
