/* bench/ops: what its tensor half (ops.c) and image half (ops_image.c)
 * share. */
#ifndef HRX_BENCH_OPS_IMAGE_H_
#define HRX_BENCH_OPS_IMAGE_H_

#include <stddef.h>

#include "hrx/model.h"

/* Opens the device HRX_BENCH_DEVICE names (default 0, the host) and a
 * session on it, exiting on failure; bench_ops_close releases both. */
void bench_ops_open(hrx_gpu_device_t** out_device,
                    hrx_model_session_t** out_session);
void bench_ops_close(hrx_gpu_device_t* device, hrx_model_session_t* session);

/* Writes |bytes| of |data| to |dir|/|name|; 0 on success. */
int bench_ops_write_file(const char* dir, const char* name, const void* data,
                         size_t bytes);

/* Runs the image op benchmarks, printing their lines; 0 on success. */
int bench_ops_image(void);

#endif /* HRX_BENCH_OPS_IMAGE_H_ */
