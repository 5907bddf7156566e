/* What the kfd provider (AMD GPUs through /dev/kfd) finds on this machine:
 * every GPU node of the KFD topology, supported or not, for `hrx doctor`
 * and device listings. Opening a GPU is the device API's job.
 */
#ifndef HRX_FABRIC_KFD_H_
#define HRX_FABRIC_KFD_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/fabric/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_fabric_kfd_gpu_t {
  uint32_t node;   /* index in /sys/class/kfd/kfd/topology/nodes */
  uint32_t gpu_id; /* the driver's id for the GPU */
  char arch[16];   /* from gfx_target_version, e.g. "gfx1151" */
  /* The profile target HRX compiles for ("gfx1151"), or NULL for a GPU HRX
   * does not support (listed, never opened). */
  const char* profile_target;
  uint32_t compute_units;
  uint32_t simds_per_cu;
  uint32_t wavefront_size;
  uint32_t max_waves_per_simd;
  uint32_t lds_bytes; /* per workgroup */
  uint32_t compute_queues; /* hardware compute queues KFD may use */
  uint32_t sdma_engines;
  uint32_t render_minor; /* /dev/dri/renderD<render_minor> */
  uint32_t vendor_id;
  uint32_t device_id;
} hrx_fabric_kfd_gpu_t;

/* Lists the GPUs of the KFD topology: the first |capacity| go to |gpus|
 * (may be NULL when |capacity| is 0) and the number found to |*out_count|,
 * which may be larger than |capacity|. A machine without the driver is
 * UNAVAILABLE with one line starting "no AMD GPU: "; a /dev/kfd the user
 * may not open is PERMISSION_DENIED naming the fix (the 'render' group). */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_kfd_probe(
    size_t capacity, hrx_fabric_kfd_gpu_t* gpus, size_t* out_count);

/* Opens AMD GPU |index| (counting only GPUs HRX supports, in topology
 * order) as a fabric device: streams, graphs and the execution runtime run
 * on it unchanged, with gfx1151 code objects from the amdgpu backend.
 *
 * Model mode: when the environment variable HRX_KFD_MODEL names a sysfs
 * fixture directory (one holding class/kfd/kfd/topology, such as
 * tests/fabric/kfd_topology/gfx1151), the device is a model of that GPU
 * instead: a userspace model of the KFD driver whose queues run the real
 * machine code on the CPU (see the README). Its name ends in ", model)".
 *
 * No GPU is UNAVAILABLE ("no AMD GPU: ..."), a /dev/kfd or render node the
 * user may not open is PERMISSION_DENIED naming the 'render' group, an
 * index past the supported GPUs is NOT_FOUND. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_kfd_device_create(
    size_t index, hrx_allocator_t allocator,
    hrx_fabric_device_t** out_device);

/* The fixture directory HRX_KFD_MODEL names, or NULL when model mode is
 * off (unset or empty). */
HRX_API const char* hrx_fabric_kfd_model_root(void);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_KFD_H_ */
