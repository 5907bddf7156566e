/* libhrx-artifacts: checked readers of model files. */
#ifndef HRX_ARTIFACTS_H_
#define HRX_ARTIFACTS_H_

#include "hrx/artifacts/dtype.h"        // IWYU pragma: export
#include "hrx/artifacts/hf.h"           // IWYU pragma: export
#include "hrx/artifacts/onnx.h"         // IWYU pragma: export
#include "hrx/artifacts/safetensors.h"  // IWYU pragma: export

#ifdef __cplusplus
extern "C" {
#endif

HRX_API const char* hrx_artifacts_version(void);

#ifdef __cplusplus
}
#endif

#endif /* HRX_ARTIFACTS_H_ */
