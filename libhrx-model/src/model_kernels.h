/* The Loom sources of libhrx-model's own operations (libhrx-model/kernels,
 * embedded at build time by scripts/embed-kernels), so tensor and image
 * ops compile their kernels in process without files at run time. */
#ifndef HRX_MODEL_KERNELS_H_
#define HRX_MODEL_KERNELS_H_

#include <stddef.h>

typedef struct hrx_model_embedded_kernel_t {
  const char* name;   /* file name without ".loom" */
  const char* source;
  size_t length;      /* bytes of |source| */
} hrx_model_embedded_kernel_t;

/* The embedded kernel |name|, or NULL. */
const hrx_model_embedded_kernel_t* hrx_model_kernel_lookup(const char* name);

#endif /* HRX_MODEL_KERNELS_H_ */
