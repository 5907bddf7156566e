/* GPU memory of the kfd provider: CPU VA == GPU VA, as libhsakmt does it.
 * The device reserves one range of address space (PROT_NONE) at open;
 * each allocation takes a hole of it, becomes a buffer object there
 * (ALLOC_MEMORY_OF_GPU at that va), is mapped to the GPU (MAP_MEMORY_TO_GPU)
 * and to the CPU (mmap of the render node at the object's offset, over the
 * reserved pages). Freeing undoes each step in reverse and turns the pages
 * back into reservation. Strix Halo is an APU: every heap is system memory
 * the CPU can map, so every allocation has a host pointer. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>

#include "kfd_device.h"
#include "kfd_ioctl.h"
#include "hrx/fabric/visibility.h"

/* Address space reserved per device: GPU VM space costs nothing until
 * used, and the largest buffer must fit in one hole. Where the process
 * may not reserve that much (an address-space limit, valgrind), halves
 * down to the floor. */
#define HRX_KFD_VA_BYTES (UINT64_C(64) << 30)
#define HRX_KFD_VA_MIN_BYTES (UINT64_C(1) << 30)

static uint64_t hrx_kfd_round(uint64_t size) {
  return (size + HRX_KFD_PAGE - 1) / HRX_KFD_PAGE * HRX_KFD_PAGE;
}

hrx_status_t hrx_kfd_memory_reserve(hrx_kfd_device_t* d) {
  void* p = NULL;
  uint64_t bytes = HRX_KFD_VA_BYTES;
  int rc;
  for (;;) {
    rc = d->sys.mmap(d->sys.context, NULL, bytes, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0, &p);
    if (rc >= 0 || bytes <= HRX_KFD_VA_MIN_BYTES) break;
    bytes /= 2;
  }
  if (rc < 0) {
    return hrx_status_from_errno(-rc, "cannot reserve %llu GiB of GPU "
                                 "address space",
                                 (unsigned long long)(bytes >> 30));
  }
  d->va_base = (uint64_t)(uintptr_t)p;
  d->va_size = bytes;
  hrx_status_t status =
      hrx_allocator_grow_array(d->base.allocator, sizeof(hrx_kfd_range_t), 16,
                               &d->hole_capacity, (void**)&d->holes);
  if (status != HRX_OK) {
    d->sys.munmap(d->sys.context, p, bytes);
    d->va_base = 0;
    return status;
  }
  d->holes[0] = (hrx_kfd_range_t){d->va_base, d->va_size};
  d->hole_count = 1;
  return HRX_OK;
}

void hrx_kfd_memory_unreserve(hrx_kfd_device_t* d) {
  if (d->va_base) {
    d->sys.munmap(d->sys.context, (void*)(uintptr_t)d->va_base, d->va_size);
  }
  hrx_allocator_free(d->base.allocator, d->holes);
  hrx_allocator_free(d->base.allocator, d->blocks);
  d->holes = NULL;
  d->blocks = NULL;
  d->va_base = 0;
}

/* First fit; 0 when no hole is large enough. With the mutex held. */
static uint64_t hrx_kfd_va_take(hrx_kfd_device_t* d, uint64_t size) {
  for (size_t i = 0; i < d->hole_count; ++i) {
    hrx_kfd_range_t* h = &d->holes[i];
    if (h->size < size) continue;
    uint64_t va = h->base;
    h->base += size;
    h->size -= size;
    if (h->size == 0) {
      memmove(h, h + 1, (d->hole_count - i - 1) * sizeof(*h));
      d->hole_count--;
    }
    return va;
  }
  return 0;
}

/* Returns [va, va + size) to the holes, merging neighbours. With the mutex
 * held; false only when the hole table cannot grow (the range is lost to
 * this device, never handed out twice). */
static bool hrx_kfd_va_give(hrx_kfd_device_t* d, uint64_t va, uint64_t size) {
  size_t i = 0;
  while (i < d->hole_count && d->holes[i].base < va) ++i;
  bool joins_prev = i > 0 && d->holes[i - 1].base + d->holes[i - 1].size == va;
  bool joins_next = i < d->hole_count && va + size == d->holes[i].base;
  if (joins_prev && joins_next) {
    d->holes[i - 1].size += size + d->holes[i].size;
    memmove(&d->holes[i], &d->holes[i + 1],
            (d->hole_count - i - 1) * sizeof(d->holes[0]));
    d->hole_count--;
  } else if (joins_prev) {
    d->holes[i - 1].size += size;
  } else if (joins_next) {
    d->holes[i].base = va;
    d->holes[i].size += size;
  } else {
    hrx_status_t status = hrx_allocator_grow_array(
        d->base.allocator, sizeof(hrx_kfd_range_t), d->hole_count + 1,
        &d->hole_capacity, (void**)&d->holes);
    if (status != HRX_OK) {
      hrx_status_free(status);
      return false;
    }
    memmove(&d->holes[i + 1], &d->holes[i],
            (d->hole_count - i) * sizeof(d->holes[0]));
    d->holes[i] = (hrx_kfd_range_t){va, size};
    d->hole_count++;
  }
  return true;
}

static void hrx_kfd_va_release(hrx_kfd_device_t* d, uint64_t va,
                               uint64_t size) {
  pthread_mutex_lock(&d->mutex);
  hrx_kfd_va_give(d, va, size);
  pthread_mutex_unlock(&d->mutex);
}

static hrx_status_t hrx_kfd_map(hrx_kfd_device_t* d, uint64_t handle,
                                bool map) {
  uint32_t gpu_id = d->node.gpu_id;
  hrx_kfd_map_memory_args_t args = {
      .handle = handle,
      .device_ids_array_ptr = (uint64_t)(uintptr_t)&gpu_id,
      .n_devices = 1};
  return map ? hrx_kfd_device_ioctl(d, HRX_KFD_IOC_MAP_MEMORY_TO_GPU,
                                    "AMDKFD_IOC_MAP_MEMORY_TO_GPU", &args)
             : hrx_kfd_device_ioctl(d, HRX_KFD_IOC_UNMAP_MEMORY_FROM_GPU,
                                    "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU", &args);
}

static hrx_status_t hrx_kfd_free_handle(hrx_kfd_device_t* d,
                                        uint64_t handle) {
  hrx_kfd_free_memory_args_t args = {.handle = handle};
  return hrx_kfd_device_ioctl(d, HRX_KFD_IOC_FREE_MEMORY_OF_GPU,
                              "AMDKFD_IOC_FREE_MEMORY_OF_GPU", &args);
}

/* The CPU view of a freed object becomes reserved address space again. */
static void hrx_kfd_rereserve(hrx_kfd_device_t* d, uint64_t va,
                              uint64_t size) {
  void* p = NULL;
  d->sys.mmap(d->sys.context, (void*)(uintptr_t)va, size, PROT_NONE,
              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0,
              &p);
}

static hrx_status_t hrx_kfd_record(hrx_kfd_device_t* d,
                                   hrx_kfd_block_t block) {
  pthread_mutex_lock(&d->mutex);
  hrx_status_t status = hrx_allocator_grow_array(
      d->base.allocator, sizeof(hrx_kfd_block_t), d->block_count + 1,
      &d->block_capacity, (void**)&d->blocks);
  if (status == HRX_OK) d->blocks[d->block_count++] = block;
  pthread_mutex_unlock(&d->mutex);
  return status;
}

hrx_status_t hrx_kfd_memory_allocate_flags(hrx_kfd_device_t* d, uint64_t size,
                                           uint32_t alloc_flags, bool zeroed,
                                           hrx_fabric_memory_t* out) {
  *out = (hrx_fabric_memory_t){0};
  if (size > d->va_size) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "%llu bytes exceed the device's address space",
                           (unsigned long long)size);
  }
  uint64_t bytes = hrx_kfd_round(size);
  pthread_mutex_lock(&d->mutex);
  uint64_t va = hrx_kfd_va_take(d, bytes);
  pthread_mutex_unlock(&d->mutex);
  if (va == 0) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "no %llu-byte hole left in the GPU address space",
                           (unsigned long long)bytes);
  }
  hrx_kfd_alloc_memory_args_t args = {
      .va_addr = va, .size = bytes, .gpu_id = d->node.gpu_id,
      .flags = HRX_KFD_ALLOC_GTT | HRX_KFD_ALLOC_WRITABLE | alloc_flags};
  hrx_status_t status = hrx_kfd_device_ioctl(
      d, HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU, "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU",
      &args);
  if (status != HRX_OK) {
    hrx_kfd_va_release(d, va, bytes);
    return hrx_status_annotate(status, "allocating %llu bytes",
                               (unsigned long long)bytes);
  }
  status = hrx_kfd_map(d, args.handle, true);
  void* cpu = NULL;
  if (status == HRX_OK) {
    int rc = d->sys.mmap(d->sys.context, (void*)(uintptr_t)va, bytes,
                         PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                         d->render_fd, (off_t)args.mmap_offset, &cpu);
    if (rc < 0 || cpu != (void*)(uintptr_t)va) {
      status = hrx_status_from_errno(rc < 0 ? -rc : 22,
                                     "cannot map GPU memory at 0x%llx for "
                                     "the CPU", (unsigned long long)va);
      hrx_status_free(hrx_kfd_map(d, args.handle, false));
    }
  }
  if (status == HRX_OK) {
    status = hrx_kfd_record(d, (hrx_kfd_block_t){va, bytes, args.handle});
    if (status != HRX_OK) hrx_status_free(hrx_kfd_map(d, args.handle, false));
  }
  if (status != HRX_OK) {
    hrx_status_t freed = hrx_kfd_free_handle(d, args.handle);
    if (freed == HRX_OK) {
      hrx_kfd_rereserve(d, va, bytes);
      hrx_kfd_va_release(d, va, bytes);
    }
    hrx_status_free(freed); /* else the range stays taken, as above */
    return status;
  }
  /* The driver hands out cleared pages only for some heaps. */
  if (zeroed) memset(cpu, 0, bytes);
  out->host_pointer = cpu;
  out->device_address = va;
  out->size = size;
  return HRX_OK;
}

hrx_status_t hrx_kfd_memory_allocate(hrx_fabric_device_t* base, uint64_t size,
                                     hrx_fabric_visibility_t visibility,
                                     uint32_t flags,
                                     hrx_fabric_memory_t* out) {
  /* Coherent host memory must not sit in GPU caches between packets. */
  uint32_t alloc_flags = visibility == HRX_FABRIC_VISIBILITY_HOST_COHERENT
                             ? HRX_KFD_ALLOC_COHERENT | HRX_KFD_ALLOC_UNCACHED
                             : 0;
  bool zeroed = !(flags & HRX_FABRIC_MEMORY_UNINITIALIZED);
  HRX_RETURN_IF_ERROR(hrx_kfd_memory_allocate_flags(
      hrx_kfd_device_cast(base), size, alloc_flags, zeroed, out));
  out->visibility = visibility;
  /* The GPU does not snoop the CPU's caches on cached GTT: the zeroes the
   * CPU wrote must reach memory before a kernel reads it, or the kernel
   * would see the pages' previous contents. */
  hrx_status_t status =
      zeroed ? hrx_fabric_memory_cache_control(
                   base, out, 0, size, HRX_FABRIC_CACHE_HOST_WRITES_DONE)
             : HRX_OK;
  if (status != HRX_OK) hrx_kfd_memory_free(base, out);
  return status;
}

void hrx_kfd_memory_free(hrx_fabric_device_t* base,
                         hrx_fabric_memory_t* memory) {
  hrx_kfd_device_t* d = hrx_kfd_device_cast(base);
  hrx_kfd_block_t block = {0};
  pthread_mutex_lock(&d->mutex);
  for (size_t i = 0; i < d->block_count; ++i) {
    if (d->blocks[i].va != memory->device_address) continue;
    block = d->blocks[i];
    d->blocks[i] = d->blocks[--d->block_count];
    break;
  }
  pthread_mutex_unlock(&d->mutex);
  if (block.va == 0) return; /* not ours: nothing to undo */
  hrx_status_t status = hrx_kfd_map(d, block.handle, false);
  if (status == HRX_OK) status = hrx_kfd_free_handle(d, block.handle);
  if (status != HRX_OK) {
    /* The buffer object still holds the range: never hand it out again
     * (closing the device releases it with the process's VM). */
    hrx_status_free(status);
    return;
  }
  hrx_kfd_rereserve(d, block.va, block.size);
  hrx_kfd_va_release(d, block.va, block.size);
}

hrx_status_t hrx_kfd_memory_export_dmabuf(hrx_fabric_device_t* base,
                                          const hrx_fabric_memory_t* memory,
                                          int* out_fd) {
  hrx_kfd_device_t* d = hrx_kfd_device_cast(base);
  uint64_t handle = 0;
  pthread_mutex_lock(&d->mutex);
  for (size_t i = 0; i < d->block_count; ++i) {
    if (d->blocks[i].va == memory->device_address) {
      handle = d->blocks[i].handle;
      break;
    }
  }
  pthread_mutex_unlock(&d->mutex);
  if (handle == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "0x%llx is not an allocation of this GPU",
                           (unsigned long long)memory->device_address);
  }
  hrx_kfd_export_dmabuf_args_t args = {.handle = handle,
                                       .flags = O_CLOEXEC | O_RDWR};
  HRX_RETURN_IF_ERROR(hrx_kfd_device_ioctl(d, HRX_KFD_IOC_EXPORT_DMABUF,
                                           "AMDKFD_IOC_EXPORT_DMABUF",
                                           &args));
  *out_fd = (int)args.dmabuf_fd;
  return HRX_OK;
}

bool hrx_kfd_memory_contains_locked(hrx_kfd_device_t* d, uint64_t address,
                                    uint64_t bytes) {
  for (size_t i = 0; i < d->block_count; ++i) {
    const hrx_kfd_block_t* b = &d->blocks[i];
    if (address >= b->va && address - b->va <= b->size &&
        bytes <= b->size - (address - b->va)) {
      return true;
    }
  }
  return false;
}
