/* safetensors files: a checked, allocation-frugal view.
 *
 * Layout: an 8-byte little-endian header length N, N bytes of JSON (space
 * padding allowed), then the data section. The header maps tensor names to
 * {"dtype", "shape", "data_offsets": [begin, end]} (offsets relative to the
 * data section) and may hold "__metadata__", a map of strings.
 *
 * Opening validates everything before any tensor is handed out: the header
 * length against a cap and the file size, the JSON (duplicate keys
 * refused), each dtype, each shape (its element count and byte size
 * overflow-checked), each byte range inside the data section and equal to
 * the shape's size, no two ranges overlapping, metadata values being
 * strings. Nothing in the file is trusted: a path that is not a regular
 * file (a FIFO, a device) is refused at once, and names from the file
 * appear escaped in messages.
 *
 * Tensor data is either mapped (zero-copy, read-only) or read on demand.
 * A view is immutable after opening and may be shared between threads.
 */
#ifndef HRX_ARTIFACTS_SAFETENSORS_H_
#define HRX_ARTIFACTS_SAFETENSORS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/artifacts/dtype.h"
#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_SAFETENSORS_MAX_RANK 16

typedef struct hrx_safetensors_s hrx_safetensors_t;

typedef enum hrx_safetensors_mode_e {
  HRX_SAFETENSORS_MAP = 0, /* mmap the file; tensor bytes are zero-copy */
  HRX_SAFETENSORS_READ,    /* keep the descriptor; read tensors on demand */
} hrx_safetensors_mode_t;

typedef struct hrx_safetensors_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  hrx_safetensors_mode_t mode;
  /* Largest accepted header; 0 selects 100 MiB (as the reference
   * implementation does). */
  uint64_t max_header_bytes;
} hrx_safetensors_options_t;

typedef struct hrx_safetensors_tensor_t {
  const char* name;
  hrx_dtype_t dtype;
  uint32_t rank;
  const uint64_t* shape;
  uint64_t elements;
  uint64_t file_offset; /* absolute, in the file */
  uint64_t length;      /* bytes */
} hrx_safetensors_tensor_t;

typedef struct hrx_safetensors_metadata_t {
  const char* key;
  const char* value;
} hrx_safetensors_metadata_t;

/* Opens and validates |path|. |options| may be NULL. */
HRX_API HRX_MUST_USE hrx_status_t hrx_safetensors_open(
    const char* path, const hrx_safetensors_options_t* options,
    hrx_allocator_t allocator, hrx_safetensors_t** out_view);

/* Validates an image already in memory (borrowed; it must outlive the
 * view), as a mapped view of it. */
HRX_API HRX_MUST_USE hrx_status_t hrx_safetensors_open_memory(
    const void* data, size_t length, uint64_t max_header_bytes,
    hrx_allocator_t allocator, hrx_safetensors_t** out_view);

HRX_API void hrx_safetensors_destroy(hrx_safetensors_t* view);

/* Tensors in data order (ascending file offset). */
HRX_API size_t hrx_safetensors_count(const hrx_safetensors_t* view);
HRX_API const hrx_safetensors_tensor_t* hrx_safetensors_at(
    const hrx_safetensors_t* view, size_t index);
/* NOT_FOUND names |name|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_safetensors_find(
    const hrx_safetensors_t* view, const char* name,
    const hrx_safetensors_tensor_t** out_tensor);

HRX_API size_t hrx_safetensors_metadata_count(const hrx_safetensors_t* view);
HRX_API const hrx_safetensors_metadata_t* hrx_safetensors_metadata_at(
    const hrx_safetensors_t* view, size_t index);

/* The tensor's bytes without copying (mapped views only; FAILED_PRECONDITION
 * for a read view). Valid while the view lives. */
HRX_API HRX_MUST_USE hrx_status_t hrx_safetensors_bytes(
    const hrx_safetensors_t* view, const hrx_safetensors_tensor_t* tensor,
    const void** out_data);

/* Copies the tensor's bytes into |buffer| (capacity bytes, at least
 * tensor->length). Works in both modes. */
HRX_API HRX_MUST_USE hrx_status_t hrx_safetensors_read(
    const hrx_safetensors_t* view, const hrx_safetensors_tensor_t* tensor,
    void* buffer, size_t capacity);

typedef enum hrx_safetensors_advice_e {
  HRX_SAFETENSORS_WILLNEED = 0,
  HRX_SAFETENSORS_SEQUENTIAL,
  HRX_SAFETENSORS_DONTNEED,
} hrx_safetensors_advice_t;

/* Advises the kernel about the pages holding |tensor| (madvise on a
 * mapping, posix_fadvise on a descriptor). Advice is a hint: OK unless the
 * arguments are wrong. */
HRX_API HRX_MUST_USE hrx_status_t hrx_safetensors_advise(
    const hrx_safetensors_t* view, const hrx_safetensors_tensor_t* tensor,
    hrx_safetensors_advice_t advice);

/* Where |name|'s bytes are in the file, for I/O that bypasses the view
 * (io_uring, DMA): a new descriptor (the caller closes it) plus absolute
 * offset and length. Touches no mapped page. FAILED_PRECONDITION for a
 * view opened from memory. */
HRX_API HRX_MUST_USE hrx_status_t hrx_safetensors_file_range(
    const hrx_safetensors_t* view, const char* name, int* out_fd,
    uint64_t* out_offset, uint64_t* out_length);

#ifdef __cplusplus
}
#endif

#endif /* HRX_ARTIFACTS_SAFETENSORS_H_ */
