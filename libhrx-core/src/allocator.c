#include "hrx/core/allocator.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void* hrx_system_alloc(void* self, size_t size) {
  (void)self;
  return malloc(size);
}

static void* hrx_system_realloc(void* self, void* ptr, size_t size) {
  (void)self;
  return realloc(ptr, size);
}

static void hrx_system_free(void* self, void* ptr) {
  (void)self;
  free(ptr);
}

hrx_allocator_t hrx_allocator_system(void) {
  return (hrx_allocator_t){
      .self = NULL,
      .alloc = hrx_system_alloc,
      .realloc = hrx_system_realloc,
      .free = hrx_system_free,
  };
}

hrx_status_t hrx_allocator_malloc_uninitialized(hrx_allocator_t allocator,
                                                size_t size, void** out_ptr) {
  *out_ptr = NULL;
  if (size == 0) size = 1;
  void* ptr = allocator.alloc(allocator.self, size);
  if (!ptr) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "host allocation of %zu bytes failed", size);
  }
  *out_ptr = ptr;
  return HRX_OK;
}

hrx_status_t hrx_allocator_malloc(hrx_allocator_t allocator, size_t size,
                                  void** out_ptr) {
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc_uninitialized(allocator, size, out_ptr));
  memset(*out_ptr, 0, size ? size : 1);
  return HRX_OK;
}

hrx_status_t hrx_allocator_malloc_array(hrx_allocator_t allocator,
                                        size_t count, size_t element_size,
                                        void** out_ptr) {
  *out_ptr = NULL;
  size_t total = 0;
  if (__builtin_mul_overflow(count, element_size, &total)) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "array of %zu elements of %zu bytes overflows",
                           count, element_size);
  }
  return hrx_allocator_malloc(allocator, total, out_ptr);
}

hrx_status_t hrx_allocator_grow_array(hrx_allocator_t allocator,
                                      size_t element_size, size_t needed,
                                      size_t* inout_capacity,
                                      void** inout_array) {
  if (needed <= *inout_capacity) return HRX_OK;
  size_t next = *inout_capacity ? *inout_capacity : 8;
  while (next < needed) {
    next = next > SIZE_MAX / 2 ? needed : next * 2;
  }
  size_t bytes = 0;
  if (__builtin_mul_overflow(next, element_size, &bytes)) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "array of %zu elements of %zu bytes overflows",
                           next, element_size);
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_realloc(allocator, bytes, inout_array));
  *inout_capacity = next;
  return HRX_OK;
}

hrx_status_t hrx_allocator_realloc(hrx_allocator_t allocator, size_t size,
                                   void** inout_ptr) {
  if (!*inout_ptr) {
    return hrx_allocator_malloc_uninitialized(allocator, size, inout_ptr);
  }
  if (size == 0) size = 1;
  void* grown = allocator.realloc(allocator.self, *inout_ptr, size);
  if (!grown) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "host reallocation to %zu bytes failed", size);
  }
  *inout_ptr = grown;
  return HRX_OK;
}

void hrx_allocator_free(hrx_allocator_t allocator, void* ptr) {
  if (ptr) allocator.free(allocator.self, ptr);
}

hrx_status_t hrx_allocator_strdup(hrx_allocator_t allocator, const char* text,
                                  char** out_text) {
  *out_text = NULL;
  size_t length = strlen(text);
  void* copy = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc_uninitialized(allocator, length + 1, &copy));
  memcpy(copy, text, length + 1);
  *out_text = copy;
  return HRX_OK;
}
