/* Tensor descriptors and DeviceTensors.
 *
 * A descriptor names an element type, a shape of up to
 * HRX_MODEL_MAX_RANK dimensions and strides in elements (all zero means
 * contiguous row-major). A DeviceTensor is an owned view of device memory
 * with its descriptor, the completion of the work that produces it and a
 * lease on the slot whose storage holds it: while any tensor of a request
 * is alive, that slot cannot be acquired again, so its storage is never
 * recycled under a consumer. Reading a tensor waits for its producer.
 *
 * Threads. A tensor may be used from any thread, one at a time; tensors of
 * one request may be read from different threads at once.
 */
#ifndef HRX_MODEL_TENSOR_H_
#define HRX_MODEL_TENSOR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_MODEL_MAX_RANK 4

typedef enum hrx_model_dtype_e {
  HRX_MODEL_DTYPE_F32 = 0,
  HRX_MODEL_DTYPE_F16,
  HRX_MODEL_DTYPE_BF16,
  HRX_MODEL_DTYPE_I32,
  HRX_MODEL_DTYPE_U32,
  HRX_MODEL_DTYPE_I8,
  HRX_MODEL_DTYPE_U8,
  HRX_MODEL_DTYPE_COUNT, /* not a type */
} hrx_model_dtype_t;

/* Bytes per element; 0 for a value outside the enumeration. */
HRX_API size_t hrx_model_dtype_size(hrx_model_dtype_t dtype);

typedef struct hrx_model_tensor_desc_t {
  hrx_model_dtype_t dtype;
  uint32_t rank; /* 1..HRX_MODEL_MAX_RANK */
  uint64_t shape[HRX_MODEL_MAX_RANK];
  /* In elements; all zero = contiguous row-major. */
  uint64_t strides[HRX_MODEL_MAX_RANK];
} hrx_model_tensor_desc_t;

/* Checks |desc| (known dtype, rank in range, no zero dimension, strides
 * either all zero or all nonzero, no overflow) and returns the bytes its
 * elements span: from the first element to one past the last.
 * INVALID_ARGUMENT names what is wrong. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_tensor_desc_extent(
    const hrx_model_tensor_desc_t* desc, uint64_t* out_bytes);
/* Whether two descriptors describe the same layout. */
HRX_API bool hrx_model_tensor_desc_equal(const hrx_model_tensor_desc_t* a,
                                         const hrx_model_tensor_desc_t* b);

typedef struct hrx_model_tensor_s hrx_model_tensor_t;

HRX_API const hrx_model_tensor_desc_t* hrx_model_tensor_desc(
    const hrx_model_tensor_t* tensor);
/* The device bytes the tensor spans (borrowed from the tensor). Device
 * work reading it must be ordered after hrx_model_tensor_wait. */
HRX_API hrx_gpu_view_t hrx_model_tensor_view(const hrx_model_tensor_t* tensor);

/* Waits for the producing work: DEADLINE_EXCEEDED on timeout (the tensor
 * stays valid), ABORTED when that work failed. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_tensor_wait(
    hrx_model_tensor_t* tensor, uint64_t timeout_ns);
/* Waits for the producer, then copies the tensor's extent (see
 * hrx_model_tensor_desc_extent) into |data|; |length| must equal it
 * (INVALID_ARGUMENT otherwise, naming both). */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_tensor_read(
    hrx_model_tensor_t* tensor, void* data, uint64_t length,
    uint64_t timeout_ns);

/* Drops the tensor and its slot lease; the slot becomes free once every
 * tensor of its request is released. NULL is accepted. */
HRX_API void hrx_model_tensor_release(hrx_model_tensor_t* tensor);

#ifdef __cplusplus
}
#endif

#endif /* HRX_MODEL_TENSOR_H_ */
