/* A userspace model of the KFD kernel driver behind an hrx_kfd_sys_t, so
 * the kfd provider runs without a GPU (as libhsakmt's model mode and
 * tinygrad's MOCKKFD do). Private to the fabric and its tests.
 *
 * What the model stands in for:
 * - sysfs: "/sys" and paths under it are served from |fixture_root| (a
 *   checked-in topology tree); relative opens under a real directory fd are
 *   passed through, so hrx_kfd_topology_scan() reads the fixture.
 * - "/dev/kfd" and "/dev/dri/renderD<minor>" (also "kfd" and
 *   "dri/renderD<minor>" under a model "/dev" directory fd): model fds. Each
 *   holds a real descriptor of /dev/null so its number is unique in the
 *   process and a leaked one shows up like any leaked fd.
 * - Memory: CPU VA == GPU VA. The caller reserves address space with an
 *   anonymous PROT_NONE mmap through the table; ALLOC_MEMORY_OF_GPU at a
 *   va_addr inside such a reservation backs the pages with real host memory
 *   at that very address (MAP_FIXED); an mmap of the render fd at the
 *   allocation's mmap_offset then answers that address. USERPTR registers
 *   existing page-aligned host memory (how the tests map a code image that
 *   hrx_gfx11_image_load placed in its own allocation). Kernels only touch
 *   memory that is MAPPED_TO_GPU: those ranges are the dispatch's ranges.
 * - Queues: AQL only. The doorbell page is ordinary memory the caller maps
 *   from the kfd fd at the CREATE_QUEUE doorbell_offset; a store to it
 *   cannot be trapped without signals, so the model's packet processor
 *   thread (one per model, started by hrx_kfd_model_create and joined by
 *   hrx_kfd_model_destroy, its only owner) polls every queue's doorbell and
 *   drains the ring through hrx_gfx11_dispatch.
 * - Process teardown: closing the kfd fd does not release the process's
 *   queues and memory as the driver's release does; hrx_kfd_model_destroy
 *   releases everything.
 *
 * - Dispatches: workgroups run on up to 8 threads (the online CPUs) with
 *   atomics that are atomic; a wave faults after 2^24 instructions, and a
 *   whole dispatch after HRX_KFD_MODEL_WATCHDOG_MS milliseconds when that
 *   variable is set (a number in 0..86400000; 0 or unset: no watchdog).
 *
 * GET_VERSION answers the 1.11 interface kfd_ioctl.h describes, so a caller
 * never asks for RUNTIME_ENABLE (1.14), which the model lacks. Requests the
 * model does not implement fail with ENOTTY, as the driver answers unknown
 * command numbers. */
#ifndef HRX_FABRIC_KFD_MODEL_H_
#define HRX_FABRIC_KFD_MODEL_H_

#include <stdint.h>

#include "gfx11.h"
#include "hrx/core/allocator.h"
#include "hrx/core/status.h"
#include "kfd_sys.h"

typedef struct hrx_kfd_model_t hrx_kfd_model_t;

/* Creates a model of the GPU described by the sysfs tree at |fixture_root|
 * (a directory holding class/kfd/kfd/topology). Its first GPU node is the
 * modelled GPU; no GPU node is UNAVAILABLE. */
hrx_status_t hrx_kfd_model_create(const char* fixture_root,
                                  hrx_allocator_t allocator,
                                  hrx_kfd_model_t** out_model);

/* Stops the packet processor and releases every allocation, queue, event
 * and fd the model still holds. */
void hrx_kfd_model_destroy(hrx_kfd_model_t* model);

/* The system-call table whose calls go to |model|; valid until destroy. */
hrx_kfd_sys_t hrx_kfd_model_sys(hrx_kfd_model_t* model);

/* The modelled GPU's gpu_id (from the fixture). */
uint32_t hrx_kfd_model_gpu_id(const hrx_kfd_model_t* model);

/* Fault injection: the |nth| (1-based) ioctl with request code |request|
 * (0: any request) fails with -|error_number| before the model looks at
 * it. |nth| 0 turns injection off. */
void hrx_kfd_model_inject(hrx_kfd_model_t* model, unsigned long request,
                          uint32_t nth, int error_number);

/* The fault that stopped queue |queue_id| (kind NONE while it runs).
 * NOT_FOUND when no such queue exists. */
hrx_status_t hrx_kfd_model_queue_fault(hrx_kfd_model_t* model,
                                       uint32_t queue_id,
                                       hrx_gfx11_fault_t* out_fault);

#endif /* HRX_FABRIC_KFD_MODEL_H_ */
