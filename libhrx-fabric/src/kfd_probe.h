/* hrx_fabric_kfd_probe over given directories and table, so tests run it
 * on checked-in sysfs trees and a fake /dev. */
#ifndef HRX_FABRIC_KFD_PROBE_H_
#define HRX_FABRIC_KFD_PROBE_H_

#include <stddef.h>

#include "hrx/fabric/kfd.h"
#include "kfd_sys.h"

/* |sysfs_fd| and |dev_fd| are directory fds for /sys and /dev. */
hrx_status_t hrx_kfd_probe(const hrx_kfd_sys_t* sys, int sysfs_fd,
                           int dev_fd, size_t capacity,
                           hrx_fabric_kfd_gpu_t* gpus, size_t* out_count);

/* The topology part alone (model mode has no /dev/kfd to check). */
hrx_status_t hrx_kfd_probe_topology(const hrx_kfd_sys_t* sys, int sysfs_fd,
                                    size_t capacity,
                                    hrx_fabric_kfd_gpu_t* gpus,
                                    size_t* out_count);

#endif /* HRX_FABRIC_KFD_PROBE_H_ */
