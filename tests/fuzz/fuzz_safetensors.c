/* libFuzzer target: the safetensors header and index. Any image either
 * fails validation or yields tensors whose bytes lie inside it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/artifacts.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void check(int condition) {
  if (!condition) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hrx_safetensors_t* v = NULL;
  hrx_status_t status = hrx_safetensors_open_memory(
      data, size, 1u << 20, hrx_allocator_system(), &v);
  if (status != HRX_OK) {
    check(v == NULL);
    hrx_status_free(status);
    return 0;
  }
  for (size_t i = 0; i < hrx_safetensors_count(v); ++i) {
    const hrx_safetensors_tensor_t* t = hrx_safetensors_at(v, i);
    check(t->file_offset <= size && t->length <= size - t->file_offset);
    const hrx_safetensors_tensor_t* found = NULL;
    check(hrx_safetensors_find(v, t->name, &found) == HRX_OK && found == t);
    const void* bytes = NULL;
    check(hrx_safetensors_bytes(v, t, &bytes) == HRX_OK);
    volatile uint8_t sink = 0;
    if (t->length) sink ^= ((const uint8_t*)bytes)[t->length - 1];
    (void)sink;
  }
  hrx_safetensors_destroy(v);
  return 0;
}
