/* The kfd provider's devices: open a GPU node (GET_VERSION, the render
 * node, ACQUIRE_VM, address space, events, the blit kernels), serve the
 * device vtable, and tear down in exactly the reverse order. In model mode
 * (HRX_KFD_MODEL=<sysfs fixture dir>) the device owns a KFD model and
 * makes every call through its table instead of the kernel's. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu_object.h"
#include "kfd_blit.h"
#include "kfd_device.h"
#include "kfd_ioctl.h"

static const char* const hrx_kfd_blit_names[HRX_KFD_BLIT_COUNT] = {
    [HRX_KFD_BLIT_B8] = HRX_KFD_BLIT_COPY_B8,
    [HRX_KFD_BLIT_B32] = HRX_KFD_BLIT_COPY_B32,
    [HRX_KFD_BLIT_B128] = HRX_KFD_BLIT_COPY_B128,
    [HRX_KFD_BLIT_FILL] = HRX_KFD_BLIT_FILL_B32,
};

static const hrx_fabric_device_vtable_t hrx_kfd_device_vtable;

hrx_kfd_device_t* hrx_kfd_device_cast(hrx_fabric_device_t* device) {
  return device->vtable == &hrx_kfd_device_vtable ? (hrx_kfd_device_t*)device
                                                  : NULL;
}

hrx_status_t hrx_kfd_device_ioctl(hrx_kfd_device_t* d, unsigned long request,
                                  const char* name, void* args) {
  return hrx_kfd_ioctl(&d->sys, d->kfd_fd, request, name, args);
}

static void hrx_kfd_device_destroy(hrx_fabric_device_t* base) {
  hrx_kfd_device_t* d = hrx_kfd_device_cast(base);
  /* Executables, queues and signals hold the device; none is left but the
   * blit kernels, which do not. */
  hrx_fabric_executable_release(d->blit);
  hrx_kfd_events_stop(d);
  hrx_kfd_signal_pool_free(d);
  hrx_kfd_memory_unreserve(d);
  hrx_allocator_t a = base->allocator;
  hrx_allocator_free(a, d->executables);
  hrx_allocator_free(a, d->queues);
  if (d->render_fd >= 0) d->sys.close(d->sys.context, d->render_fd);
  if (d->kfd_fd >= 0) d->sys.close(d->sys.context, d->kfd_fd);
  if (d->model) hrx_kfd_model_destroy(d->model);
  pthread_mutex_destroy(&d->mutex);
  hrx_allocator_free(a, d);
}

static hrx_status_t hrx_kfd_signal_create_entry(
    hrx_fabric_device_t* device, int64_t initial_value,
    hrx_fabric_signal_t** out_signal) {
  return hrx_kfd_signal_create(device, initial_value, out_signal);
}

static const hrx_fabric_device_vtable_t hrx_kfd_device_vtable = {
    .destroy = hrx_kfd_device_destroy,
    .memory_allocate = hrx_kfd_memory_allocate,
    .memory_free = hrx_kfd_memory_free,
    .memory_export_dmabuf = hrx_kfd_memory_export_dmabuf,
    .executable_load = hrx_kfd_executable_load,
    .queue_create = hrx_kfd_queue_create,
    .signal_create = hrx_kfd_signal_create_entry,
};

/* The blit executable is part of the device: it holds no reference to it
 * (or the device could never be released). */
static hrx_status_t hrx_kfd_load_blit(hrx_kfd_device_t* d) {
  HRX_RETURN_IF_ERROR(hrx_kfd_executable_load_internal(
      d, hrx_kfd_blit_object, hrx_kfd_blit_object_length, false, &d->blit));
  for (int i = 0; i < HRX_KFD_BLIT_COUNT; ++i) {
    const hrx_fabric_kernel_t* k = NULL;
    HRX_RETURN_IF_ERROR(
        hrx_fabric_executable_find_kernel(d->blit, hrx_kfd_blit_names[i], &k));
    d->blit_objects[i] = k->object;
  }
  return HRX_OK;
}

static hrx_status_t hrx_kfd_open_node(hrx_kfd_device_t* d, int sysfs_fd,
                                      int dev_fd, size_t index) {
  hrx_kfd_topology_t* topology = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(d->base.allocator,
                                           sizeof(*topology),
                                           (void**)&topology));
  hrx_status_t status = hrx_kfd_topology_scan(&d->sys, sysfs_fd, topology);
  size_t seen = 0;
  bool found = false;
  for (uint32_t i = 0; status == HRX_OK && i < topology->node_count; ++i) {
    const hrx_kfd_node_t* n = &topology->nodes[i];
    if (!n->is_gpu || !n->target) continue;
    if (seen++ == index) {
      d->node = *n;
      found = true;
    }
  }
  hrx_allocator_free(d->base.allocator, topology);
  HRX_RETURN_IF_ERROR(status);
  if (!found) {
    return hrx_make_status(HRX_STATUS_NOT_FOUND,
                           "no supported AMD GPU number %zu (%zu present)",
                           index, seen);
  }
  HRX_RETURN_IF_ERROR(hrx_kfd_open_device(&d->sys, dev_fd, &d->kfd_fd));
  char render[32];
  snprintf(render, sizeof(render), "dri/renderD%u",
           (unsigned)d->node.drm_render_minor);
  int fd = d->sys.openat(d->sys.context, dev_fd, render, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    return hrx_status_from_errno(-fd, "cannot open /dev/%s (is the user in "
                                 "the 'render' group?)", render);
  }
  d->render_fd = fd;
  return HRX_OK;
}

/* Properties for the device API, from the node. */
static void hrx_kfd_describe_device(hrx_kfd_device_t* d) {
  snprintf(d->name, sizeof(d->name), "AMD %s (KFD %u.%u%s)", d->node.arch,
           d->version_major, d->version_minor, d->model ? ", model" : "");
  d->base.properties = (hrx_fabric_device_properties_t){
      .struct_size = sizeof(hrx_fabric_device_properties_t),
      .kind = HRX_FABRIC_DEVICE_GPU,
      .name = d->name,
      .profile_target = d->node.target,
      .subgroup_size = (uint32_t)d->node.wave_front_size,
      .max_workgroup_size = 1024,
      .max_workgroup_storage = d->node.lds_size_in_kb * 1024,
      .compute_units = (uint32_t)d->node.cu_count,
      .memory_bytes = d->va_size,
      .queue_count_limit = (uint32_t)d->node.num_cp_queues,
  };
}

static hrx_status_t hrx_kfd_device_open(hrx_kfd_device_t* d, int sysfs_fd,
                                        int dev_fd, size_t index) {
  HRX_RETURN_IF_ERROR(hrx_kfd_open_node(d, sysfs_fd, dev_fd, index));
  HRX_RETURN_IF_ERROR(hrx_kfd_get_version(&d->sys, d->kfd_fd,
                                          &d->version_major,
                                          &d->version_minor));
  if (d->version_major != 1 || d->version_minor < 11) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "KFD interface %u.%u is older than 1.11",
                           d->version_major, d->version_minor);
  }
  HRX_RETURN_IF_ERROR(hrx_kfd_acquire_vm(&d->sys, d->kfd_fd, d->render_fd,
                                         d->node.gpu_id));
  HRX_RETURN_IF_ERROR(hrx_kfd_memory_reserve(d));
  HRX_RETURN_IF_ERROR(hrx_kfd_events_start(d));
  hrx_kfd_describe_device(d);
  return hrx_kfd_load_blit(d);
}

/* Directory fds for /sys and /dev through the table (the model answers
 * both from its fixture). */
static hrx_status_t hrx_kfd_open_roots(hrx_kfd_device_t* d, int* out_sysfs,
                                       int* out_dev) {
  *out_sysfs = d->sys.openat(d->sys.context, AT_FDCWD, "/sys",
                             O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (*out_sysfs < 0) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "no AMD GPU: cannot open /sys (errno %d)",
                           -*out_sysfs);
  }
  *out_dev = d->sys.openat(d->sys.context, AT_FDCWD, "/dev",
                           O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (*out_dev < 0) {
    d->sys.close(d->sys.context, *out_sysfs);
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "no AMD GPU: cannot open /dev (errno %d)",
                           -*out_dev);
  }
  return HRX_OK;
}

hrx_status_t hrx_kfd_device_create_with(hrx_kfd_model_t* model,
                                        const hrx_kfd_sys_t* sys,
                                        size_t index,
                                        hrx_allocator_t allocator,
                                        hrx_fabric_device_t** out_device) {
  hrx_kfd_device_t* d = NULL;
  hrx_status_t status =
      hrx_allocator_malloc(allocator, sizeof(*d), (void**)&d);
  if (status != HRX_OK) {
    if (model) hrx_kfd_model_destroy(model);
    return status;
  }
  memset(d, 0, sizeof(*d));
  d->base.vtable = &hrx_kfd_device_vtable;
  atomic_init(&d->base.ref_count, 1);
  d->base.allocator = allocator;
  d->model = model;
  d->sys = *sys;
  d->kfd_fd = d->render_fd = -1;
  pthread_mutex_init(&d->mutex, NULL);
  int sysfs_fd = -1, dev_fd = -1;
  status = hrx_kfd_open_roots(d, &sysfs_fd, &dev_fd);
  if (status == HRX_OK) {
    status = hrx_kfd_device_open(d, sysfs_fd, dev_fd, index);
    d->sys.close(d->sys.context, dev_fd);
    d->sys.close(d->sys.context, sysfs_fd);
  }
  if (status != HRX_OK) {
    hrx_kfd_device_destroy(&d->base);
    return status;
  }
  *out_device = &d->base;
  return HRX_OK;
}

const char* hrx_fabric_kfd_model_root(void) {
  const char* root = getenv("HRX_KFD_MODEL");
  return root && root[0] ? root : NULL;
}

hrx_status_t hrx_fabric_kfd_device_create(size_t index,
                                          hrx_allocator_t allocator,
                                          hrx_fabric_device_t** out_device) {
  *out_device = NULL;
  const char* root = hrx_fabric_kfd_model_root();
  if (!root) {
    hrx_kfd_sys_t native = hrx_kfd_sys_native();
    return hrx_kfd_device_create_with(NULL, &native, index, allocator,
                                      out_device);
  }
  hrx_kfd_model_t* model = NULL;
  HRX_RETURN_IF_ERROR(hrx_status_annotate(
      hrx_kfd_model_create(root, allocator, &model),
      "HRX_KFD_MODEL=%s", root));
  hrx_kfd_sys_t sys = hrx_kfd_model_sys(model);
  return hrx_kfd_device_create_with(model, &sys, index, allocator,
                                    out_device);
}
