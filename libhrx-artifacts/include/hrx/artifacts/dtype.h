/* Element types of model files (safetensors and ONNX spell them
 * differently; this is the one HRX list). */
#ifndef HRX_ARTIFACTS_DTYPE_H_
#define HRX_ARTIFACTS_DTYPE_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hrx_dtype_e {
  HRX_DTYPE_BOOL = 0,
  HRX_DTYPE_U8,
  HRX_DTYPE_I8,
  HRX_DTYPE_F8_E4M3,
  HRX_DTYPE_F8_E5M2,
  HRX_DTYPE_U16,
  HRX_DTYPE_I16,
  HRX_DTYPE_F16,
  HRX_DTYPE_BF16,
  HRX_DTYPE_U32,
  HRX_DTYPE_I32,
  HRX_DTYPE_F32,
  HRX_DTYPE_U64,
  HRX_DTYPE_I64,
  HRX_DTYPE_F64,
  HRX_DTYPE_COUNT,
} hrx_dtype_t;

/* Bytes per element. */
HRX_API size_t hrx_dtype_size(hrx_dtype_t dtype);
/* The safetensors spelling ("F32", "BF16", "F8_E4M3", ...). */
HRX_API const char* hrx_dtype_name(hrx_dtype_t dtype);
/* Parses a safetensors spelling; INVALID_ARGUMENT names an unknown one. */
HRX_API HRX_MUST_USE hrx_status_t hrx_dtype_parse(const char* name,
                                                  hrx_dtype_t* out_dtype);

#ifdef __cplusplus
}
#endif

#endif /* HRX_ARTIFACTS_DTYPE_H_ */
