/* Version of the libhrx-core a program runs against. */
#ifndef HRX_CORE_VERSION_H_
#define HRX_CORE_VERSION_H_

#include "hrx/core/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "MAJOR.MINOR.PATCH" of the loaded library (not of the headers). */
HRX_API const char* hrx_core_version(void);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_VERSION_H_ */
