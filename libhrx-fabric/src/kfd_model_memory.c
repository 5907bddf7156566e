/* The KFD model's GPU memory: CPU VA == GPU VA. ALLOC fills part of an
 * address range the caller reserved (PROT_NONE) with real pages at the
 * very address, FREE gives the pages back to the reservation, MAP/UNMAP
 * decide which allocations a kernel may touch. Errnos follow the driver:
 * EINVAL for bad arguments, EBUSY for freeing mapped memory, ENOMEM when a
 * table is full. All with the model's mutex held. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfd_model_internal.h"

static bool page_aligned(uint64_t value) {
  return value % KFD_MODEL_PAGE == 0;
}

static bool overlaps(uint64_t a, uint64_t a_size, uint64_t b,
                     uint64_t b_size) {
  return a < b + b_size && b < a + a_size;
}

int kfd_model_reserve(hrx_kfd_model_t* m, uint64_t base, uint64_t size) {
  /* Re-reserving part of a reservation (a freed allocation's CPU view
   * turned back into PROT_NONE, as libhsakmt does) adds nothing. */
  for (size_t i = 0; i < KFD_MODEL_MAX_RESERVATIONS; ++i) {
    const kfd_model_reservation_t* r = &m->reservations[i];
    if (r->size != 0 && base >= r->base && base + size <= r->base + r->size) {
      return 0;
    }
  }
  for (size_t i = 0; i < KFD_MODEL_MAX_RESERVATIONS; ++i) {
    if (m->reservations[i].size == 0) {
      m->reservations[i] = (kfd_model_reservation_t){base, size};
      return 0;
    }
  }
  return -ENOMEM;
}

int kfd_model_release_reservation(hrx_kfd_model_t* m, uint64_t base,
                                  uint64_t size) {
  for (size_t i = 0; i < KFD_MODEL_MAX_RESERVATIONS; ++i) {
    kfd_model_reservation_t* r = &m->reservations[i];
    if (r->size == 0 || r->base != base || r->size != size) continue;
    for (size_t j = 0; j < KFD_MODEL_MAX_ALLOCATIONS; ++j) {
      const kfd_model_allocation_t* a = &m->allocations[j];
      if (a->size != 0 && !a->userptr && overlaps(a->va, a->size, base, size)) {
        return -EINVAL;
      }
    }
    r->size = 0;
  }
  return 0;
}

/* Whether [va, va + size) lies inside one reservation and touches no
 * other allocation. */
static bool va_free(const hrx_kfd_model_t* m, uint64_t va, uint64_t size) {
  bool reserved = false;
  for (size_t i = 0; i < KFD_MODEL_MAX_RESERVATIONS; ++i) {
    const kfd_model_reservation_t* r = &m->reservations[i];
    if (r->size != 0 && va >= r->base && va + size <= r->base + r->size) {
      reserved = true;
    }
  }
  for (size_t i = 0; reserved && i < KFD_MODEL_MAX_ALLOCATIONS; ++i) {
    const kfd_model_allocation_t* a = &m->allocations[i];
    if (a->size != 0 && overlaps(a->va, a->size, va, size)) return false;
  }
  return reserved;
}

/* Back to reserved address space, so the VA cannot be reused by the host
 * allocator while the caller's reservation stands. */
static bool rereserve(uint64_t va, uint64_t size) {
  void* p = mmap((void*)(uintptr_t)va, size, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1,
                 0);
  return p != MAP_FAILED;
}

bool kfd_model_deferred(const hrx_kfd_model_t* m, uint64_t va,
                        uint64_t size) {
  for (size_t i = 0; i < KFD_MODEL_MAX_DEFERRED; ++i) {
    const kfd_model_reservation_t* r = &m->deferred[i];
    if (r->size != 0 && overlaps(r->base, r->size, va, size)) return true;
  }
  return false;
}

void kfd_model_release_deferred(hrx_kfd_model_t* m, uint64_t va,
                                uint64_t size) {
  for (size_t i = 0; i < KFD_MODEL_MAX_DEFERRED; ++i) {
    kfd_model_reservation_t* r = &m->deferred[i];
    if (r->size == 0 || (size != 0 && !overlaps(r->base, r->size, va, size))) {
      continue;
    }
    rereserve(r->base, r->size);
    *r = (kfd_model_reservation_t){0};
  }
}

int kfd_model_alloc(hrx_kfd_model_t* m, hrx_kfd_alloc_memory_args_t* args) {
  const uint32_t kinds =
      HRX_KFD_ALLOC_VRAM | HRX_KFD_ALLOC_GTT | HRX_KFD_ALLOC_USERPTR;
  uint32_t kind = args->flags & (kinds | HRX_KFD_ALLOC_DOORBELL |
                                 HRX_KFD_ALLOC_MMIO_REMAP);
  /* Doorbell and MMIO-remap BOs are not modelled; exactly one domain. */
  if (!m->vm_acquired || args->gpu_id != m->gpu_id || args->size == 0 ||
      (kind & (kind - 1)) != 0 || (kind & kinds) == 0 ||
      !page_aligned(args->va_addr) || !page_aligned(args->size) ||
      args->va_addr + args->size < args->va_addr) {
    return -EINVAL;
  }
  bool userptr = (kind & HRX_KFD_ALLOC_USERPTR) != 0;
  /* A user pointer is its own GPU address here (CPU VA == GPU VA). */
  if (userptr && args->mmap_offset != args->va_addr) return -EINVAL;
  size_t slot = KFD_MODEL_MAX_ALLOCATIONS;
  for (size_t i = 0; i < KFD_MODEL_MAX_ALLOCATIONS; ++i) {
    if (m->allocations[i].size == 0) {
      slot = i;
      break;
    }
  }
  if (slot == KFD_MODEL_MAX_ALLOCATIONS) return -ENOMEM;
  if (!userptr) {
    if (!va_free(m, args->va_addr, args->size)) return -EINVAL;
    kfd_model_release_deferred(m, args->va_addr, args->size);
    void* p = mmap((void*)(uintptr_t)args->va_addr, args->size,
                   PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED) return -ENOMEM;
    args->mmap_offset = KFD_MODEL_RENDER_OFFSET + slot * KFD_MODEL_PAGE;
  }
  m->allocations[slot] = (kfd_model_allocation_t){
      .va = args->va_addr,
      .size = args->size,
      .flags = args->flags,
      .userptr = userptr,
  };
  args->handle = slot + 1;
  return 0;
}

static kfd_model_allocation_t* by_handle(hrx_kfd_model_t* m,
                                         uint64_t handle) {
  if (handle == 0 || handle > KFD_MODEL_MAX_ALLOCATIONS) return NULL;
  kfd_model_allocation_t* a = &m->allocations[handle - 1];
  return a->size != 0 ? a : NULL;
}

int kfd_model_free(hrx_kfd_model_t* m, hrx_kfd_free_memory_args_t* args) {
  kfd_model_allocation_t* a = by_handle(m, args->handle);
  if (a == NULL) return -EINVAL;
  if (a->mapped) return -EBUSY;
  if (!a->userptr) {
    /* Back to reserved address space, so the VA cannot be reused by the
     * host allocator while the caller's reservation stands. */
    void* p = mmap((void*)(uintptr_t)a->va, a->size, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return -ENOMEM;
  }
  *a = (kfd_model_allocation_t){0};
  return 0;
}

int kfd_model_export_dmabuf(hrx_kfd_model_t* m,
                            hrx_kfd_export_dmabuf_args_t* args) {
  kfd_model_allocation_t* a = by_handle(m, args->handle);
  if (a == NULL || a->userptr ||
      (args->flags & ~(uint32_t)(O_CLOEXEC | O_ACCMODE)) != 0) {
    return -EINVAL;
  }
  int fd = memfd_create("hrx-kfd-model-dmabuf", MFD_CLOEXEC);
  if (fd < 0) return -errno;
  if (ftruncate(fd, (off_t)a->size) < 0) {
    int error = errno;
    close(fd);
    return -error;
  }
  args->dmabuf_fd = (uint32_t)fd;
  return 0;
}

int kfd_model_map(hrx_kfd_model_t* m, hrx_kfd_map_memory_args_t* args,
                  bool map) {
  kfd_model_allocation_t* a = by_handle(m, args->handle);
  if (a == NULL || args->n_devices == 0 || args->device_ids_array_ptr == 0 ||
      args->n_success > args->n_devices) {
    return -EINVAL;
  }
  const uint32_t* ids = (const uint32_t*)(uintptr_t)args->device_ids_array_ptr;
  for (uint32_t i = args->n_success; i < args->n_devices; ++i) {
    if (ids[i] != m->gpu_id) return -EINVAL;
  }
  a->mapped = map;
  args->n_success = args->n_devices;
  return 0;
}

const kfd_model_allocation_t* kfd_model_find_mapped(const hrx_kfd_model_t* m,
                                                    uint64_t address,
                                                    uint64_t size) {
  for (size_t i = 0; i < KFD_MODEL_MAX_ALLOCATIONS; ++i) {
    const kfd_model_allocation_t* a = &m->allocations[i];
    if (a->size != 0 && a->mapped && address >= a->va &&
        address - a->va <= a->size && size <= a->size - (address - a->va)) {
      return a;
    }
  }
  return NULL;
}

const kfd_model_allocation_t* kfd_model_find_offset(const hrx_kfd_model_t* m,
                                                    uint64_t offset) {
  if (offset < KFD_MODEL_RENDER_OFFSET) return NULL;
  uint64_t slot = (offset - KFD_MODEL_RENDER_OFFSET) / KFD_MODEL_PAGE;
  if ((offset - KFD_MODEL_RENDER_OFFSET) % KFD_MODEL_PAGE != 0 ||
      slot >= KFD_MODEL_MAX_ALLOCATIONS) {
    return NULL;
  }
  const kfd_model_allocation_t* a = &m->allocations[slot];
  return a->size != 0 && !a->userptr ? a : NULL;
}

void kfd_model_memory_release_all(hrx_kfd_model_t* m) {
  /* The pages of every allocation lie in a reservation; unmapping the
   * reservations the caller left behind frees them all. */
  for (size_t i = 0; i < KFD_MODEL_MAX_RESERVATIONS; ++i) {
    kfd_model_reservation_t* r = &m->reservations[i];
    if (r->size != 0) munmap((void*)(uintptr_t)r->base, r->size);
    r->size = 0;
  }
  for (size_t i = 0; i < KFD_MODEL_MAX_ALLOCATIONS; ++i) {
    m->allocations[i] = (kfd_model_allocation_t){0};
  }
}
