/* The KFD model's ioctl entry: fault injection first, then the request.
 * Everything but WAIT_EVENTS runs under the model's mutex. */
#include <errno.h>

#include "kfd_model_internal.h"

/* gfx9+ style flat apertures, as HRX reads kfd_flat_memory.c (not
 * measured on hardware): LDS and scratch in 4 GiB windows above the 48-bit
 * space, GPUVM the user half of the CPU's address space. Callers following
 * hardware.md §2 reserve their VA with mmap and need none of these. */
#define KFD_MODEL_LDS_BASE 0x1000000000000ull
#define KFD_MODEL_SCRATCH_BASE 0x2000000000000ull
#define KFD_MODEL_APERTURE_SIZE 0x100000000ull
#define KFD_MODEL_GPUVM_BASE 0x1000000ull
#define KFD_MODEL_GPUVM_LIMIT 0x7FFFFFFFFFFFull

static bool inject_now(hrx_kfd_model_t* m, unsigned long request) {
  if (m->inject_nth == 0 ||
      (m->inject_request != 0 && m->inject_request != request)) {
    return false;
  }
  return ++m->inject_seen == m->inject_nth;
}

static int acquire_vm(hrx_kfd_model_t* m,
                      const hrx_kfd_acquire_vm_args_t* args) {
  int fd = (int)args->drm_fd;
  if (args->gpu_id != m->gpu_id || fd < 0 || fd >= KFD_MODEL_MAX_FDS ||
      m->fds[fd] != KFD_MODEL_FD_RENDER) {
    return -EINVAL;
  }
  /* A second acquire with the same render node is accepted, as the driver
   * accepts re-acquiring the VM it already holds. */
  m->vm_acquired = true;
  return 0;
}

static int apertures(hrx_kfd_model_t* m,
                     hrx_kfd_get_process_apertures_new_args_t* args) {
  /* A count of 0 asks how many entries the array needs. */
  if (args->num_of_nodes == 0) {
    args->num_of_nodes = 1;
    return 0;
  }
  if (args->apertures_ptr == 0) return -EINVAL;
  hrx_kfd_process_device_apertures_t* out =
      (hrx_kfd_process_device_apertures_t*)(uintptr_t)args->apertures_ptr;
  *out = (hrx_kfd_process_device_apertures_t){
      .lds_base = KFD_MODEL_LDS_BASE,
      .lds_limit = KFD_MODEL_LDS_BASE + KFD_MODEL_APERTURE_SIZE - 1,
      .scratch_base = KFD_MODEL_SCRATCH_BASE,
      .scratch_limit = KFD_MODEL_SCRATCH_BASE + KFD_MODEL_APERTURE_SIZE - 1,
      .gpuvm_base = KFD_MODEL_GPUVM_BASE,
      .gpuvm_limit = KFD_MODEL_GPUVM_LIMIT,
      .gpu_id = m->gpu_id,
  };
  args->num_of_nodes = 1;
  return 0;
}

static int locked_ioctl(hrx_kfd_model_t* m, unsigned long request,
                        void* args) {
  switch (request) {
    case HRX_KFD_IOC_GET_VERSION: {
      hrx_kfd_get_version_args_t* v = args;
      v->major_version = HRX_KFD_VERSION_MAJOR;
      v->minor_version = HRX_KFD_VERSION_MINOR;
      return 0;
    }
    case HRX_KFD_IOC_ACQUIRE_VM:
      return acquire_vm(m, args);
    case HRX_KFD_IOC_GET_PROCESS_APERTURES_NEW:
      return apertures(m, args);
    case HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU:
      return kfd_model_alloc(m, args);
    case HRX_KFD_IOC_FREE_MEMORY_OF_GPU:
      return kfd_model_free(m, args);
    case HRX_KFD_IOC_EXPORT_DMABUF:
      return kfd_model_export_dmabuf(m, args);
    case HRX_KFD_IOC_MAP_MEMORY_TO_GPU:
      return m->vm_acquired ? kfd_model_map(m, args, true) : -EINVAL;
    case HRX_KFD_IOC_UNMAP_MEMORY_FROM_GPU:
      return kfd_model_map(m, args, false);
    case HRX_KFD_IOC_CREATE_QUEUE:
      return kfd_model_create_queue(m, args);
    case HRX_KFD_IOC_CREATE_QUEUE_V117: {
      /* The appended sdma_engine_id counts only for the 1.17 queue type
       * SDMA_BY_ENG_ID, which a 1.11 interface does not offer. */
      hrx_kfd_create_queue_v117_args_t* v = args;
      return kfd_model_create_queue(m, &v->base);
    }
    case HRX_KFD_IOC_DESTROY_QUEUE:
      return kfd_model_destroy_queue(m, args);
    case HRX_KFD_IOC_CREATE_EVENT:
      return kfd_model_create_event(m, args);
    case HRX_KFD_IOC_DESTROY_EVENT:
    case HRX_KFD_IOC_SET_EVENT:
    case HRX_KFD_IOC_RESET_EVENT:
      return kfd_model_event_op(m, request, args);
    default:
      return -ENOTTY;
  }
}

int kfd_model_ioctl(hrx_kfd_model_t* m, unsigned long request, void* args) {
  if (args == NULL) return -EFAULT;
  pthread_mutex_lock(&m->mutex);
  if (inject_now(m, request)) {
    int error = m->inject_errno;
    pthread_mutex_unlock(&m->mutex);
    return -error;
  }
  if (request == HRX_KFD_IOC_WAIT_EVENTS) {
    pthread_mutex_unlock(&m->mutex);
    return kfd_model_wait_events(m, args);
  }
  int rc = locked_ioctl(m, request, args);
  pthread_mutex_unlock(&m->mutex);
  return rc;
}
