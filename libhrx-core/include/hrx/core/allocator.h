/* Host memory allocators, passed explicitly by value.
 *
 * Every HRX object that allocates host memory takes an hrx_allocator_t at
 * creation and keeps it to free itself, so a program (or a test) can route
 * all of HRX's host allocations through its own functions: arenas, leak
 * accounting, or injected failures that prove every error path frees what
 * it took. hrx_allocator_system() wraps malloc/realloc/free.
 *
 * An allocator's functions must be callable from any thread that uses the
 * objects created with it.
 */
#ifndef HRX_CORE_ALLOCATOR_H_
#define HRX_CORE_ALLOCATOR_H_

#include <stddef.h>

#include "hrx/core/api.h"
#include "hrx/core/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_allocator_t {
  void* self;
  /* Returns |size| bytes (size > 0) aligned for any fundamental type, or
   * NULL. */
  void* (*alloc)(void* self, size_t size);
  /* Resizes |ptr| (never NULL here) to |size| (> 0) bytes, or returns NULL
   * and leaves |ptr| untouched. */
  void* (*realloc)(void* self, void* ptr, size_t size);
  /* Frees |ptr| (never NULL here). */
  void (*free)(void* self, void* ptr);
} hrx_allocator_t;

HRX_API hrx_allocator_t hrx_allocator_system(void);

/* Allocates |size| zeroed bytes. A zero size allocates one byte, so the
 * result is always a distinct pointer. Fails with RESOURCE_EXHAUSTED. */
HRX_API HRX_MUST_USE hrx_status_t hrx_allocator_malloc(
    hrx_allocator_t allocator, size_t size, void** out_ptr);

/* As hrx_allocator_malloc without zeroing. */
HRX_API HRX_MUST_USE hrx_status_t hrx_allocator_malloc_uninitialized(
    hrx_allocator_t allocator, size_t size, void** out_ptr);

/* Allocates |count| * |element_size| zeroed bytes; an overflowing product
 * fails with OUT_OF_RANGE before anything is allocated. */
HRX_API HRX_MUST_USE hrx_status_t hrx_allocator_malloc_array(
    hrx_allocator_t allocator, size_t count, size_t element_size,
    void** out_ptr);

/* Resizes |*inout_ptr| (NULL allocates). On failure |*inout_ptr| is left
 * valid and unchanged. Grown bytes are not zeroed. */
HRX_API HRX_MUST_USE hrx_status_t hrx_allocator_realloc(
    hrx_allocator_t allocator, size_t size, void** inout_ptr);

/* Grows the array |*inout_array| of |element_size|-byte elements, whose
 * room is |*inout_capacity| elements, to hold at least |needed| (doubling,
 * from 8). Nothing changes when it already does, or on failure
 * (RESOURCE_EXHAUSTED, or OUT_OF_RANGE when the size would overflow).
 * Grown elements are not zeroed. */
HRX_API HRX_MUST_USE hrx_status_t hrx_allocator_grow_array(
    hrx_allocator_t allocator, size_t element_size, size_t needed,
    size_t* inout_capacity, void** inout_array);

/* Frees |ptr|; NULL is accepted. */
HRX_API void hrx_allocator_free(hrx_allocator_t allocator, void* ptr);

/* Copies the NUL-terminated |text| into a new allocation. */
HRX_API HRX_MUST_USE hrx_status_t hrx_allocator_strdup(
    hrx_allocator_t allocator, const char* text, char** out_text);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_ALLOCATOR_H_ */
