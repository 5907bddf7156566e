/* libhrx-npu: programs on the XDNA 2 NPU of AMD Strix Halo (PCI 1022:17f0
 * revision 0x11), submitted straight through the amdxdna accel driver.
 *
 * HRX loads prebuilt `.xdna` images and submits them; it does not compile
 * AIE code. Include this umbrella or the headers under hrx/npu/.
 */
#ifndef HRX_NPU_H_
#define HRX_NPU_H_

#include "hrx/npu/device.h"       // IWYU pragma: export
#include "hrx/npu/image.h"        // IWYU pragma: export
#include "hrx/npu/memory.h"       // IWYU pragma: export
#include "hrx/npu/program.h"      // IWYU pragma: export
#include "hrx/npu/resident.h"     // IWYU pragma: export
#include "hrx/npu/transaction.h"  // IWYU pragma: export

#ifdef __cplusplus
extern "C" {
#endif

HRX_API const char* hrx_npu_version(void);

#ifdef __cplusplus
}
#endif

#endif /* HRX_NPU_H_ */
