#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "device_internal.h"
#include "hrx/npu/memory.h"

#define CACHE_LINE 64u

static hrx_status_t gem_close(hrx_npu_device_t* device, uint32_t handle) {
  hrx_drm_gem_close_t args = {.handle = handle};
  return hrx_sys_ioctl(&device->sys, device->fd, HRX_DRM_IOCTL_GEM_CLOSE,
                       "DRM_IOCTL_GEM_CLOSE", &args);
}

/* Where the driver put the DEV BO |bo|: it must lie inside the heap at the
 * carve alignment, so its host view is the heap mapping at that offset. */
static hrx_status_t place_in_heap(const hrx_npu_device_t* device,
                                  hrx_npu_bo_t* bo) {
  const hrx_npu_bo_t* heap = &device->heap;
  if (!heap->handle) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "a DEV BO needs the device heap");
  }
  if (bo->xdna_addr < heap->xdna_addr ||
      bo->xdna_addr - heap->xdna_addr > heap->size ||
      heap->size - (bo->xdna_addr - heap->xdna_addr) < bo->size ||
      bo->xdna_addr % HRX_NPU_DEV_ALIGNMENT != 0) {
    return hrx_make_status(
        HRX_STATUS_INTERNAL,
        "the driver placed a %llu-byte DEV BO at 0x%llx, not %llu-aligned "
        "inside the heap [0x%llx, +%llu)",
        (unsigned long long)bo->size, (unsigned long long)bo->xdna_addr,
        (unsigned long long)HRX_NPU_DEV_ALIGNMENT,
        (unsigned long long)heap->xdna_addr,
        (unsigned long long)heap->size);
  }
  bo->host = heap->host + (bo->xdna_addr - heap->xdna_addr);
  return HRX_OK;
}

hrx_status_t hrx_npu_bo_map(hrx_npu_device_t* device, hrx_npu_bo_t* bo,
                            uint32_t type) {
  hrx_xdna_get_bo_info_t info;
  memset(&info, 0, sizeof(info));
  info.handle = bo->handle;
  HRX_RETURN_IF_ERROR(hrx_sys_ioctl(&device->sys, device->fd,
                                    HRX_XDNA_IOCTL_GET_BO_INFO, "GET_BO_INFO",
                                    &info));
  bo->xdna_addr = info.xdna_addr;
  if (type == HRX_XDNA_BO_DEV) return place_in_heap(device, bo);
  void* host = NULL;
  int rc = device->sys.mmap(device->sys.context, NULL, (size_t)bo->size,
                            PROT_READ | PROT_WRITE, MAP_SHARED, device->fd,
                            (off_t)info.map_offset, &host);
  if (rc < 0) return hrx_status_from_errno(-rc, "mmap of a BO");
  bo->host = host;
  bo->owns_mapping = true;
  return HRX_OK;
}

hrx_status_t hrx_npu_bo_create(hrx_npu_device_t* device,
                               hrx_xdna_bo_type_t type, uint64_t size,
                               hrx_npu_bo_t* out_bo) {
  memset(out_bo, 0, sizeof(*out_bo));
  bool charge = device->budget && type != HRX_XDNA_BO_DEV;
  if (charge) HRX_RETURN_IF_ERROR(hrx_budget_charge(device->budget, size));
  hrx_xdna_create_bo_t args;
  memset(&args, 0, sizeof(args));
  args.size = size;
  args.type = type;
  hrx_status_t status = hrx_sys_ioctl(&device->sys, device->fd,
                                      HRX_XDNA_IOCTL_CREATE_BO, "CREATE_BO",
                                      &args);
  if (status != HRX_OK) {
    if (charge) hrx_status_ignore(hrx_budget_uncharge(device->budget, size));
    return status;
  }
  hrx_npu_bo_t bo = {.handle = args.handle, .size = size, .charged = charge};
  status = hrx_npu_bo_map(device, &bo, type);
  if (status != HRX_OK) {
    hrx_npu_bo_release(device, &bo);
    return status;
  }
  *out_bo = bo;
  return HRX_OK;
}

void hrx_npu_bo_release(hrx_npu_device_t* device, hrx_npu_bo_t* bo) {
  if (bo->owns_mapping) {
    (void)device->sys.munmap(device->sys.context, bo->host,
                             (size_t)bo->size);
  }
  /* A failed close leaves the handle to the driver, which drops it when
   * the node is closed; nothing else can be done about it here. */
  if (bo->handle) hrx_status_ignore(gem_close(device, bo->handle));
  /* Uncharged even when the close failed: the node's close reclaims the
   * memory, and a budget that never drops would fail later work. */
  if (bo->charged) {
    hrx_status_ignore(hrx_budget_uncharge(device->budget, bo->size));
  }
  memset(bo, 0, sizeof(*bo));
}

hrx_status_t hrx_npu_dma_address(uint64_t xdna_addr, uint64_t* out_address) {
  uint64_t address = xdna_addr + HRX_NPU_SHIM_OFFSET;
  if (address < xdna_addr || address >= HRX_NPU_DMA_LIMIT) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "NPU address 0x%llx is past the shim's 48 bits",
                           (unsigned long long)xdna_addr);
  }
  *out_address = address;
  return HRX_OK;
}

void hrx_npu_cache_flush(const void* address, uint64_t size) {
#if defined(__x86_64__) || defined(__i386__)
  uintptr_t start = (uintptr_t)address & ~(uintptr_t)(CACHE_LINE - 1);
  uintptr_t end = (uintptr_t)address + (uintptr_t)size;
  for (uintptr_t line = start; line < end; line += CACHE_LINE) {
    __builtin_ia32_clflush((const void*)line);
  }
  __builtin_ia32_mfence();
#else
  (void)address;
  (void)size;
  atomic_thread_fence(memory_order_seq_cst);
#endif
}

hrx_status_t hrx_npu_buffer_allocate(hrx_npu_device_t* device, uint64_t size,
                                     hrx_npu_buffer_t** out_buffer) {
  *out_buffer = NULL;
  if (size == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "an NPU buffer needs at least one byte");
  }
  hrx_npu_buffer_t* buffer = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(device->allocator,
                                           sizeof(*buffer), (void**)&buffer));
  atomic_init(&buffer->references, 1);
  buffer->device = device;
  hrx_status_t status =
      hrx_npu_bo_create(device, HRX_XDNA_BO_SHARE, size, &buffer->bo);
  if (status == HRX_OK) {
    status = hrx_npu_dma_address(buffer->bo.xdna_addr, &buffer->dma_address);
  }
  if (status != HRX_OK) {
    hrx_npu_bo_release(device, &buffer->bo);
    hrx_allocator_free(device->allocator, buffer);
    return hrx_status_annotate(status, "allocating a %llu-byte NPU buffer",
                               (unsigned long long)size);
  }
  memset(buffer->bo.host, 0, (size_t)size);
  *out_buffer = buffer;
  return HRX_OK;
}

void hrx_npu_buffer_retain(hrx_npu_buffer_t* buffer) {
  atomic_fetch_add_explicit(&buffer->references, 1, memory_order_relaxed);
}

void hrx_npu_buffer_release(hrx_npu_buffer_t* buffer) {
  if (!buffer) return;
  if (atomic_fetch_sub_explicit(&buffer->references, 1,
                                memory_order_acq_rel) != 1) {
    return;
  }
  hrx_npu_device_t* device = buffer->device;
  if (buffer->imported) hrx_npu_import_forget(device, buffer);
  hrx_npu_bo_release(device, &buffer->bo);
  if (buffer->owner.release) buffer->owner.release(buffer->owner.context);
  hrx_allocator_free(device->allocator, buffer);
}

void* hrx_npu_buffer_host(const hrx_npu_buffer_t* buffer) {
  return buffer->bo.host;
}

uint64_t hrx_npu_buffer_size(const hrx_npu_buffer_t* buffer) {
  return buffer->bo.size;
}

uint64_t hrx_npu_buffer_dma_address(const hrx_npu_buffer_t* buffer) {
  return buffer->dma_address;
}

/* Clamps [offset, offset + size) to the buffer and flushes it. */
static void flush_range(hrx_npu_buffer_t* buffer, uint64_t offset,
                        uint64_t size) {
  if (offset >= buffer->bo.size) return;
  if (size > buffer->bo.size - offset) size = buffer->bo.size - offset;
  hrx_npu_cache_flush(buffer->bo.host + offset, size);
}

void hrx_npu_buffer_flush(hrx_npu_buffer_t* buffer, uint64_t offset,
                          uint64_t size) {
  flush_range(buffer, offset, size);
}

/* clflush both writes back and drops a line, so invalidation is the same
 * instruction; a separate entry keeps the caller's intent visible. */
void hrx_npu_buffer_invalidate(hrx_npu_buffer_t* buffer, uint64_t offset,
                               uint64_t size) {
  flush_range(buffer, offset, size);
}
