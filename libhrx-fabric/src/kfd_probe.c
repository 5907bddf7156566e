#include "kfd_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "kfd_topology.h"

static void describe_gpu(const hrx_kfd_node_t* node,
                         hrx_fabric_kfd_gpu_t* gpu) {
  /* The topology parser bounds every figure below 2^21, so each fits. */
  memset(gpu, 0, sizeof(*gpu));
  gpu->node = node->index;
  gpu->gpu_id = node->gpu_id;
  memcpy(gpu->arch, node->arch, sizeof(gpu->arch));
  gpu->profile_target = node->target;
  gpu->compute_units = (uint32_t)node->cu_count;
  gpu->simds_per_cu = (uint32_t)node->simd_per_cu;
  gpu->wavefront_size = (uint32_t)node->wave_front_size;
  gpu->max_waves_per_simd = (uint32_t)node->max_waves_per_simd;
  gpu->lds_bytes = (uint32_t)(node->lds_size_in_kb * 1024);
  gpu->compute_queues = (uint32_t)node->num_cp_queues;
  gpu->sdma_engines = (uint32_t)node->num_sdma_engines;
  gpu->render_minor = (uint32_t)node->drm_render_minor;
  gpu->vendor_id = (uint32_t)node->vendor_id;
  gpu->device_id = (uint32_t)node->device_id;
}

hrx_status_t hrx_kfd_probe(const hrx_kfd_sys_t* sys, int sysfs_fd,
                           int dev_fd, size_t capacity,
                           hrx_fabric_kfd_gpu_t* gpus, size_t* out_count) {
  /* /dev/kfd first: its absence or permissions are what a user can fix. */
  int kfd_fd = -1;
  HRX_RETURN_IF_ERROR(hrx_kfd_open_device(sys, dev_fd, &kfd_fd));
  sys->close(sys->context, kfd_fd);
  return hrx_kfd_probe_topology(sys, sysfs_fd, capacity, gpus, out_count);
}

hrx_status_t hrx_kfd_probe_topology(const hrx_kfd_sys_t* sys, int sysfs_fd,
                                    size_t capacity,
                                    hrx_fabric_kfd_gpu_t* gpus,
                                    size_t* out_count) {
  /* About 12 KiB: a stack copy keeps the probe free of allocation. */
  hrx_kfd_topology_t topology;
  HRX_RETURN_IF_ERROR(hrx_kfd_topology_scan(sys, sysfs_fd, &topology));
  size_t count = 0;
  for (uint32_t i = 0; i < topology.node_count; ++i) {
    if (!topology.nodes[i].is_gpu) continue;
    if (count < capacity) describe_gpu(&topology.nodes[i], &gpus[count]);
    ++count;
  }
  *out_count = count;
  return HRX_OK;
}

static hrx_status_t open_directory(const char* path, int* out_fd) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "no AMD GPU: cannot open %s (errno %d)", path,
                           errno);
  }
  *out_fd = fd;
  return HRX_OK;
}

hrx_status_t hrx_fabric_kfd_probe(size_t capacity,
                                  hrx_fabric_kfd_gpu_t* gpus,
                                  size_t* out_count) {
  if (out_count == NULL || (capacity > 0 && gpus == NULL)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "hrx_fabric_kfd_probe: NULL output");
  }
  int sysfs_fd = -1;
  int dev_fd = -1;
  const char* model = hrx_fabric_kfd_model_root();
  if (model) {
    /* Model mode: the fixture is the topology, and there is no /dev/kfd
     * to check. */
    HRX_RETURN_IF_ERROR(open_directory(model, &sysfs_fd));
    hrx_kfd_sys_t sys = hrx_kfd_sys_native();
    hrx_status_t status =
        hrx_kfd_probe_topology(&sys, sysfs_fd, capacity, gpus, out_count);
    close(sysfs_fd);
    return status;
  }
  HRX_RETURN_IF_ERROR(open_directory("/sys", &sysfs_fd));
  hrx_status_t status = open_directory("/dev", &dev_fd);
  if (status == HRX_OK) {
    hrx_kfd_sys_t sys = hrx_kfd_sys_native();
    status = hrx_kfd_probe(&sys, sysfs_fd, dev_fd, capacity, gpus, out_count);
    close(dev_fd);
  }
  close(sysfs_fd);
  return status;
}
