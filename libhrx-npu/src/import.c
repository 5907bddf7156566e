/* dma-buf import: memory another device owns (a GPU allocation exported
 * through DRM PRIME) becomes an NPU buffer. The driver turns the fd into
 * a GEM handle on the accel node; from there it is a SHARE BO like any
 * other, except that its bytes are its owner's: never charged to the NPU
 * device's budget, and the owner is kept alive until the NPU lets go. */
#include <string.h>

#include "device_internal.h"
#include "hrx/npu/memory.h"

/* Whether the device already holds a buffer of GEM handle |handle|.
 * With the imports mutex held. */
static bool imported_locked(const hrx_npu_device_t* device,
                            uint32_t handle) {
  for (const hrx_npu_buffer_t* b = device->imports; b; b = b->next_import) {
    if (b->bo.handle == handle) return true;
  }
  return false;
}

/* Takes |buffer| (its handle set) into the device's imports, unless its
 * handle is already there: then the handle is the other buffer's and
 * must not be closed, so it is cleared. */
static hrx_status_t remember(hrx_npu_device_t* device,
                             hrx_npu_buffer_t* buffer) {
  pthread_mutex_lock(&device->imports_mutex);
  bool duplicate = imported_locked(device, buffer->bo.handle);
  if (!duplicate) {
    buffer->next_import = device->imports;
    device->imports = buffer;
    buffer->imported = true;
  }
  pthread_mutex_unlock(&device->imports_mutex);
  if (!duplicate) return HRX_OK;
  uint32_t handle = buffer->bo.handle;
  buffer->bo.handle = 0;
  return hrx_make_status(HRX_STATUS_ALREADY_EXISTS,
                         "this dma-buf is already imported on the NPU (GEM "
                         "handle %u): retain that buffer instead",
                         handle);
}

void hrx_npu_import_forget(hrx_npu_device_t* device,
                           hrx_npu_buffer_t* buffer) {
  pthread_mutex_lock(&device->imports_mutex);
  for (hrx_npu_buffer_t** link = &device->imports; *link;
       link = &(*link)->next_import) {
    if (*link == buffer) {
      *link = buffer->next_import;
      break;
    }
  }
  pthread_mutex_unlock(&device->imports_mutex);
  buffer->imported = false;
}

static hrx_status_t import(hrx_npu_device_t* device, int dmabuf_fd,
                           hrx_npu_buffer_t* buffer) {
  hrx_drm_prime_handle_t prime = {.fd = dmabuf_fd};
  HRX_RETURN_IF_ERROR(hrx_sys_ioctl(&device->sys, device->fd,
                                    HRX_DRM_IOCTL_PRIME_FD_TO_HANDLE,
                                    "DRM_IOCTL_PRIME_FD_TO_HANDLE", &prime));
  buffer->bo.handle = prime.handle;
  HRX_RETURN_IF_ERROR(remember(device, buffer));
  HRX_RETURN_IF_ERROR(
      hrx_npu_bo_map(device, &buffer->bo, HRX_XDNA_BO_SHARE));
  return hrx_npu_dma_address(buffer->bo.xdna_addr, &buffer->dma_address);
}

hrx_status_t hrx_npu_buffer_import_dmabuf(hrx_npu_device_t* device,
                                          int dmabuf_fd, uint64_t size,
                                          const hrx_npu_buffer_owner_t* owner,
                                          hrx_npu_buffer_t** out_buffer) {
  *out_buffer = NULL;
  if (dmabuf_fd < 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "dma-buf fd %d is not a file descriptor",
                           dmabuf_fd);
  }
  if (size == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "an imported NPU buffer needs at least one byte");
  }
  hrx_npu_buffer_t* buffer = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(device->allocator,
                                           sizeof(*buffer), (void**)&buffer));
  atomic_init(&buffer->references, 1);
  buffer->device = device;
  buffer->bo.size = size;
  hrx_status_t status = import(device, dmabuf_fd, buffer);
  if (status != HRX_OK) {
    if (buffer->imported) hrx_npu_import_forget(device, buffer);
    hrx_npu_bo_release(device, &buffer->bo);
    hrx_allocator_free(device->allocator, buffer);
    return hrx_status_annotate(status,
                               "importing %llu bytes of dma-buf fd %d",
                               (unsigned long long)size, dmabuf_fd);
  }
  if (owner) buffer->owner = *owner;
  *out_buffer = buffer;
  return HRX_OK;
}
