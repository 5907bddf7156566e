/* KFD discovery: /dev/kfd and the topology the driver publishes in sysfs
 * (class/kfd/kfd/topology/nodes/N/{gpu_id,properties}), read through an
 * hrx_kfd_sys_t relative to directory fds so tests point it at a checked-in
 * tree (tests/fabric/kfd_topology/).
 */
#ifndef HRX_FABRIC_KFD_TOPOLOGY_H_
#define HRX_FABRIC_KFD_TOPOLOGY_H_

#include <stdbool.h>
#include <stdint.h>

#include "hrx/core/status.h"
#include "kfd_sys.h"

/* Far above any real machine (one CPU node per socket plus one per GPU
 * partition); a longer list is refused rather than truncated. */
#define HRX_KFD_MAX_NODES 64

/* The gfx_target_version HRX generates code for. */
#define HRX_KFD_GFX1151_VERSION 110501u

typedef struct hrx_kfd_node_t {
  uint32_t index;  /* N in nodes/N */
  uint32_t gpu_id; /* 0 for a CPU node; names the GPU in every ioctl */
  bool is_gpu;     /* simd_count > 0 */
  /* For GPU nodes: "gfx%d%x%x" of gfx_target_version, e.g. "gfx1151". */
  char arch[16];
  /* The profile target when HRX supports this GPU, otherwise NULL (the GPU
   * is listed, never opened). */
  const char* target;
  uint64_t cu_count; /* simd_count / simd_per_cu */

  /* Values of the properties file, by key name. */
  uint64_t cpu_cores_count;
  uint64_t simd_count;
  uint64_t gfx_target_version;
  uint64_t simd_per_cu;
  uint64_t array_count;
  uint64_t simd_arrays_per_engine;
  uint64_t cu_per_simd_array;
  uint64_t max_waves_per_simd;
  uint64_t max_slots_scratch_cu; /* 0 when the kernel predates the key */
  uint64_t wave_front_size;
  uint64_t lds_size_in_kb;
  uint64_t num_xcc; /* 1 when the kernel predates the key */
  uint64_t num_cp_queues;
  uint64_t num_sdma_engines;
  uint64_t num_sdma_queues_per_engine;
  uint64_t drm_render_minor;
  uint64_t local_mem_size;
  uint64_t vendor_id;
  uint64_t device_id;
} hrx_kfd_node_t;

typedef struct hrx_kfd_topology_t {
  uint64_t generation_id;
  uint32_t node_count;
  hrx_kfd_node_t nodes[HRX_KFD_MAX_NODES];
} hrx_kfd_topology_t;

/* Scans the topology under |sysfs_fd| (a directory fd for /sys) into
 * |*out|. generation_id is read before and after; when the driver changed
 * the topology meanwhile (hot-plug, partition switch) the scan is repeated.
 * No topology directory is UNAVAILABLE ("no AMD GPU: ..."); a malformed
 * file is DATA_LOSS naming the file and line. */
hrx_status_t hrx_kfd_topology_scan(const hrx_kfd_sys_t* sys, int sysfs_fd,
                                   hrx_kfd_topology_t* out);

/* The CREATE_QUEUE buffer sizes the driver demands of a queue on |node|
 * (kfd_queue_ctx_save_restore_size(), hardware.md §1): the EOP buffer and
 * control stack sizes must match exactly, the context save area must be at
 * least |cwsr|, and its buffer holds |debug_memory| more. */
typedef struct hrx_kfd_queue_sizes_t {
  uint64_t eop;
  uint64_t ctl_stack;
  uint64_t cwsr;
  uint64_t debug_memory;
} hrx_kfd_queue_sizes_t;

void hrx_kfd_queue_sizes(const hrx_kfd_node_t* node,
                         hrx_kfd_queue_sizes_t* out);

/* Opens "kfd" under |dev_fd| (a directory fd for /dev) read-write into
 * |*out_fd|. A missing node is UNAVAILABLE ("no AMD GPU: ..."); a denied
 * one is PERMISSION_DENIED naming the fix (the 'render' group). */
hrx_status_t hrx_kfd_open_device(const hrx_kfd_sys_t* sys, int dev_fd,
                                 int* out_fd);

#endif /* HRX_FABRIC_KFD_TOPOLOGY_H_ */
