/* libhrx-fabric: devices, memory, signals, AQL queues and code objects.
 * The host provider (the CPU as a virtual GPU) is always available.
 * Bundle provisioning is a library of its own: hrx/fabric/bundle.h,
 * pkg-config hrx-fabric-bundle. */
#ifndef HRX_FABRIC_H_
#define HRX_FABRIC_H_

#include "hrx/fabric/aql.h"         // IWYU pragma: export
#include "hrx/fabric/device.h"      // IWYU pragma: export
#include "hrx/fabric/executable.h"  // IWYU pragma: export
#include "hrx/fabric/fault.h"       // IWYU pragma: export
#include "hrx/fabric/host_isa.h"    // IWYU pragma: export
#include "hrx/fabric/kfd.h"         // IWYU pragma: export
#include "hrx/fabric/launch_program.h"  // IWYU pragma: export
#include "hrx/fabric/pm4.h"         // IWYU pragma: export
#include "hrx/fabric/queue.h"       // IWYU pragma: export
#include "hrx/fabric/queue_families.h"  // IWYU pragma: export
#include "hrx/fabric/sanitizer.h"   // IWYU pragma: export
#include "hrx/fabric/signal.h"      // IWYU pragma: export
#include "hrx/fabric/transfer.h"    // IWYU pragma: export
#include "hrx/fabric/visibility.h"  // IWYU pragma: export

#ifdef __cplusplus
extern "C" {
#endif

HRX_API const char* hrx_fabric_version(void);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_H_ */
