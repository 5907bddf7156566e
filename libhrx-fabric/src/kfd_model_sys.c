/* The KFD model's system-call table: which paths are model devices,
 * which are fixture files, and what mmap of a model fd answers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfd_model_internal.h"

/* Opens a model device: a /dev/null descriptor gives it a unique number. */
static int open_model_fd(hrx_kfd_model_t* m, kfd_model_fd_kind_t kind) {
  int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (fd < 0) return -errno;
  if (fd >= KFD_MODEL_MAX_FDS) {
    close(fd);
    return -EMFILE;
  }
  pthread_mutex_lock(&m->mutex);
  m->fds[fd] = kind;
  pthread_mutex_unlock(&m->mutex);
  return fd;
}

static kfd_model_fd_kind_t fd_kind(hrx_kfd_model_t* m, int fd) {
  if (fd < 0 || fd >= KFD_MODEL_MAX_FDS) return KFD_MODEL_FD_FREE;
  pthread_mutex_lock(&m->mutex);
  kfd_model_fd_kind_t kind = m->fds[fd];
  pthread_mutex_unlock(&m->mutex);
  return kind;
}

/* |path| relative to /dev: a model device, or -ENOENT. */
static int open_dev(hrx_kfd_model_t* m, const char* path) {
  char render[32];
  snprintf(render, sizeof(render), "dri/renderD%u", m->render_minor);
  if (strcmp(path, "kfd") == 0) return open_model_fd(m, KFD_MODEL_FD_KFD);
  if (strcmp(path, render) == 0) {
    return open_model_fd(m, KFD_MODEL_FD_RENDER);
  }
  return -ENOENT;
}

static int model_openat(void* context, int dir_fd, const char* path,
                        int flags) {
  hrx_kfd_model_t* m = context;
  if (fd_kind(m, dir_fd) == KFD_MODEL_FD_DEV_DIR) return open_dev(m, path);
  if (path[0] != '/') {
    /* Relative to a fixture directory the caller opened through us. */
    int fd = openat(dir_fd, path, flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
  }
  if (strcmp(path, "/dev") == 0) {
    return open_model_fd(m, KFD_MODEL_FD_DEV_DIR);
  }
  if (strncmp(path, "/dev/", 5) == 0) return open_dev(m, path + 5);
  if (strcmp(path, "/sys") == 0 || strncmp(path, "/sys/", 5) == 0) {
    char real[4096];
    int n = snprintf(real, sizeof(real), "%s%s", m->fixture_root, path + 4);
    if (n < 0 || (size_t)n >= sizeof(real)) return -ENAMETOOLONG;
    int fd = open(real, flags | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
  }
  return -ENOENT;
}

static int model_close(void* context, int fd) {
  hrx_kfd_model_t* m = context;
  if (fd >= 0 && fd < KFD_MODEL_MAX_FDS) {
    pthread_mutex_lock(&m->mutex);
    m->fds[fd] = KFD_MODEL_FD_FREE;
    pthread_mutex_unlock(&m->mutex);
  }
  return close(fd) < 0 ? -errno : 0;
}

static ssize_t model_read(void* context, int fd, void* buffer, size_t size) {
  if (fd_kind(context, fd) != KFD_MODEL_FD_FREE) return -EINVAL;
  ssize_t n = read(fd, buffer, size);
  return n < 0 ? -errno : n;
}

static int model_ioctl(void* context, int fd, unsigned long request,
                       void* args) {
  hrx_kfd_model_t* m = context;
  /* A destroy preempts the queue's waves before anything waits for the
   * mutex, which the packet processor holds while a dispatch runs. */
  uint32_t preempt = KFD_MODEL_MAX_QUEUES;
  if (request == HRX_KFD_IOC_DESTROY_QUEUE && args != NULL) {
    preempt = ((const hrx_kfd_destroy_queue_args_t*)args)->queue_id;
    if (preempt < KFD_MODEL_MAX_QUEUES) {
      atomic_store_explicit(&m->preempt[preempt], true, memory_order_release);
    }
  }
  if (fd_kind(m, fd) != KFD_MODEL_FD_KFD) {
    if (preempt < KFD_MODEL_MAX_QUEUES) {
      atomic_store_explicit(&m->preempt[preempt], false,
                            memory_order_release);
    }
    return -ENOTTY;
  }
  return kfd_model_ioctl(m, request, args);
}

/* mmap of a model fd answers memory the model already holds: the doorbell
 * page for the kfd fd, an allocation's pages for the render fd. Anonymous
 * mappings are real ones, remembered as reservations ALLOC may fill. */
static int model_mmap(void* context, void* address, size_t length,
                      int protection, int flags, int fd, off_t offset,
                      void** out_address) {
  hrx_kfd_model_t* m = context;
  kfd_model_fd_kind_t kind = fd_kind(m, fd);
  if (kind == KFD_MODEL_FD_KFD) {
    if ((uint64_t)offset != KFD_MODEL_DOORBELL_OFFSET ||
        length != KFD_MODEL_DOORBELL_BYTES) {
      return -EINVAL;
    }
    *out_address = m->doorbells;
    return 0;
  }
  if (kind == KFD_MODEL_FD_RENDER) {
    int rc = -EINVAL;
    pthread_mutex_lock(&m->mutex);
    const kfd_model_allocation_t* a =
        kfd_model_find_offset(m, (uint64_t)offset);
    if (a != NULL && length <= a->size &&
        (address == NULL || (uint64_t)(uintptr_t)address == a->va)) {
      *out_address = (void*)(uintptr_t)a->va;
      rc = 0;
    }
    pthread_mutex_unlock(&m->mutex);
    return rc;
  }
  if (kind != KFD_MODEL_FD_FREE) return -ENODEV;
  if (fd < 0 && protection == PROT_NONE && (flags & MAP_FIXED)) {
    /* Re-reserving pages that FREE kept for a running dispatch waits for
     * that dispatch (kfd_model_release_deferred does it). */
    pthread_mutex_lock(&m->mutex);
    bool kept = kfd_model_deferred(m, (uint64_t)(uintptr_t)address, length);
    pthread_mutex_unlock(&m->mutex);
    if (kept) {
      *out_address = address;
      return 0;
    }
  }
  void* p = mmap(address, length, protection, flags, fd, offset);
  if (p == MAP_FAILED) return -errno;
  if (fd < 0 && protection == PROT_NONE) {
    pthread_mutex_lock(&m->mutex);
    int rc = kfd_model_reserve(m, (uint64_t)(uintptr_t)p, length);
    pthread_mutex_unlock(&m->mutex);
    if (rc != 0) {
      munmap(p, length);
      return rc;
    }
  }
  *out_address = p;
  return 0;
}

static int model_munmap(void* context, void* address, size_t length) {
  hrx_kfd_model_t* m = context;
  uint64_t base = (uint64_t)(uintptr_t)address;
  pthread_mutex_lock(&m->mutex);
  /* Unmapping the doorbell page or an allocation's CPU view leaves the
   * model's memory alone, as munmap of a driver mapping leaves the BO. */
  bool model_memory = base == (uint64_t)(uintptr_t)m->doorbells;
  for (size_t i = 0; !model_memory && i < KFD_MODEL_MAX_ALLOCATIONS; ++i) {
    const kfd_model_allocation_t* a = &m->allocations[i];
    if (a->size != 0 && !a->userptr && a->va == base) model_memory = true;
  }
  /* A reservation still holding allocations is refused: unmapping it would
   * pull the pages from under memory the model still serves. */
  int rc = model_memory ? 0 : kfd_model_release_reservation(m, base, length);
  pthread_mutex_unlock(&m->mutex);
  if (model_memory || rc != 0) return rc;
  return munmap(address, length) < 0 ? -errno : 0;
}

/* The model knows the faulting wave, which hardware would report only to
 * a debugger: give it to the provider as text. */
static int model_describe_queue_fault(void* context, uint32_t queue_id,
                                      char* text, size_t capacity,
                                      uint64_t* out_address) {
  hrx_gfx11_fault_t fault;
  hrx_status_t status = hrx_kfd_model_queue_fault(context, queue_id, &fault);
  if (!hrx_status_is_ok(status) || fault.kind == HRX_GFX11_FAULT_NONE) {
    hrx_status_free(status);
    return -ENOENT;
  }
  char bytes[3 * sizeof(fault.bytes) + 1] = "";
  size_t at = 0;
  for (uint32_t i = 0; i < fault.byte_count && i < sizeof(fault.bytes); ++i) {
    at += (size_t)snprintf(bytes + at, sizeof(bytes) - at, "%s%02x",
                           i ? " " : "", fault.bytes[i]);
  }
  snprintf(text, capacity,
           "%s; wave %u of workgroup (%u, %u, %u) at pc 0x%llx %s [%s], "
           "address 0x%llx",
           fault.reason, fault.wave, fault.workgroup[0], fault.workgroup[1],
           fault.workgroup[2], (unsigned long long)fault.pc,
           fault.mnemonic[0] ? fault.mnemonic : "?", bytes,
           (unsigned long long)fault.address);
  *out_address = fault.address;
  return 0;
}

hrx_kfd_sys_t hrx_kfd_model_sys(hrx_kfd_model_t* m) {
  return (hrx_kfd_sys_t){
      .context = m,
      .openat = model_openat,
      .close = model_close,
      .read = model_read,
      .ioctl = model_ioctl,
      .mmap = model_mmap,
      .munmap = model_munmap,
      .describe_queue_fault = model_describe_queue_fault,
  };
}
