/* libhrx-storage: io_uring storage sessions that read files into registered
 * system pages and copy them into device buffers. */
#ifndef HRX_STORAGE_H_
#define HRX_STORAGE_H_

#include "hrx/storage/fabric_ring.h"  // IWYU pragma: export
#include "hrx/storage/ranges.h"       // IWYU pragma: export
#include "hrx/storage/session.h"      // IWYU pragma: export

#ifdef __cplusplus
extern "C" {
#endif

HRX_API const char* hrx_storage_version(void);

#ifdef __cplusplus
}
#endif

#endif /* HRX_STORAGE_H_ */
