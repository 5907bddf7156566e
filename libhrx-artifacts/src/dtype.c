#include "hrx/artifacts.h"

#include <string.h>

static const struct {
  const char* name;
  size_t size;
} hrx_dtypes[HRX_DTYPE_COUNT] = {
    [HRX_DTYPE_BOOL] = {"BOOL", 1},       [HRX_DTYPE_U8] = {"U8", 1},
    [HRX_DTYPE_I8] = {"I8", 1},           [HRX_DTYPE_F8_E4M3] = {"F8_E4M3", 1},
    [HRX_DTYPE_F8_E5M2] = {"F8_E5M2", 1}, [HRX_DTYPE_U16] = {"U16", 2},
    [HRX_DTYPE_I16] = {"I16", 2},         [HRX_DTYPE_F16] = {"F16", 2},
    [HRX_DTYPE_BF16] = {"BF16", 2},       [HRX_DTYPE_U32] = {"U32", 4},
    [HRX_DTYPE_I32] = {"I32", 4},         [HRX_DTYPE_F32] = {"F32", 4},
    [HRX_DTYPE_U64] = {"U64", 8},         [HRX_DTYPE_I64] = {"I64", 8},
    [HRX_DTYPE_F64] = {"F64", 8},
};

size_t hrx_dtype_size(hrx_dtype_t dtype) {
  return (unsigned)dtype < HRX_DTYPE_COUNT ? hrx_dtypes[dtype].size : 0;
}

const char* hrx_dtype_name(hrx_dtype_t dtype) {
  return (unsigned)dtype < HRX_DTYPE_COUNT ? hrx_dtypes[dtype].name : "?";
}

hrx_status_t hrx_dtype_parse(const char* name, hrx_dtype_t* out_dtype) {
  for (int d = 0; d < HRX_DTYPE_COUNT; ++d) {
    if (!strcmp(name, hrx_dtypes[d].name)) {
      *out_dtype = (hrx_dtype_t)d;
      return HRX_OK;
    }
  }
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "unknown dtype '%s'",
                         name);
}

const char* hrx_artifacts_version(void) { return HRX_ARTIFACTS_VERSION; }
