/* The KFD model's lifetime: the GPU it models (from the fixture), the
 * doorbell page and the packet processor thread. The system-call table is
 * kfd_model_sys.c, the ioctls kfd_model_ioctl.c. */
#include "kfd_model.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hrx/core/parse.h"
#include "kfd_model_internal.h"
#include "kfd_topology.h"

static void derive_queue_sizes(hrx_kfd_model_t* m, const hrx_kfd_node_t* n) {
  hrx_kfd_queue_sizes_t sizes;
  hrx_kfd_queue_sizes(n, &sizes);
  m->eop_size = sizes.eop;
  m->ctl_stack_size = sizes.ctl_stack;
  m->cwsr_size = sizes.cwsr;
  m->debug_memory_size = sizes.debug_memory;
  uint64_t sdma = n->num_sdma_engines * n->num_sdma_queues_per_engine;
  m->sdma_queues = sdma > KFD_MODEL_MAX_QUEUES ? KFD_MODEL_MAX_QUEUES
                                               : (uint32_t)sdma;
}

static hrx_status_t read_fixture(hrx_kfd_model_t* m) {
  int fd = open(m->fixture_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return hrx_status_from_errno(errno, "KFD model fixture %s",
                                 m->fixture_root);
  }
  hrx_kfd_topology_t* topology = NULL;
  hrx_status_t status = hrx_allocator_malloc(
      m->allocator, sizeof(*topology), (void**)&topology);
  if (hrx_status_is_ok(status)) {
    hrx_kfd_sys_t native = hrx_kfd_sys_native();
    status = hrx_kfd_topology_scan(&native, fd, topology);
  }
  close(fd);
  const hrx_kfd_node_t* gpu = NULL;
  for (uint32_t i = 0; hrx_status_is_ok(status) && i < topology->node_count;
       ++i) {
    if (topology->nodes[i].is_gpu) {
      gpu = &topology->nodes[i];
      break;
    }
  }
  if (hrx_status_is_ok(status) && gpu == NULL) {
    status = hrx_make_status(HRX_STATUS_UNAVAILABLE,
                             "KFD model fixture %s has no GPU node",
                             m->fixture_root);
  }
  if (hrx_status_is_ok(status)) {
    m->gpu_id = gpu->gpu_id;
    m->render_minor = (uint32_t)gpu->drm_render_minor;
    derive_queue_sizes(m, gpu);
  }
  hrx_allocator_free(m->allocator, topology);
  return status;
}

hrx_status_t hrx_kfd_model_create(const char* fixture_root,
                                  hrx_allocator_t allocator,
                                  hrx_kfd_model_t** out_model) {
  *out_model = NULL;
  hrx_kfd_model_t* m = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*m),
                                           (void**)&m));
  m->allocator = allocator;
  m->running_queue = -1;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  m->threads = cpus < 1 ? 1u : cpus > 8 ? 8u : (uint32_t)cpus;
  uint64_t watchdog_ms = 0;
  hrx_status_t status = hrx_env_u64("HRX_KFD_MODEL_WATCHDOG_MS", 0,
                                    UINT64_C(86400000), &watchdog_ms, NULL);
  m->watchdog_ns = watchdog_ms * 1000000u;
  if (hrx_status_is_ok(status)) {
    status = hrx_allocator_strdup(allocator, fixture_root, &m->fixture_root);
  }
  if (hrx_status_is_ok(status)) status = read_fixture(m);
  if (!hrx_status_is_ok(status)) {
    hrx_allocator_free(allocator, m->fixture_root);
    hrx_allocator_free(allocator, m);
    return status;
  }
  void* doorbells = mmap(NULL, KFD_MODEL_DOORBELL_BYTES,
                         PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
  if (doorbells == MAP_FAILED) {
    status = hrx_status_from_errno(errno, "KFD model doorbell page");
  } else {
    m->doorbells = doorbells;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    /* WAIT_EVENTS timeouts must not move with the wall clock. */
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&m->mutex, NULL);
    pthread_cond_init(&m->changed, &attr);
    pthread_condattr_destroy(&attr);
    int rc = pthread_create(&m->processor, NULL, kfd_model_processor_main, m);
    if (rc != 0) {
      status = hrx_status_from_errno(rc, "KFD model packet processor");
      pthread_cond_destroy(&m->changed);
      pthread_mutex_destroy(&m->mutex);
      munmap(doorbells, KFD_MODEL_DOORBELL_BYTES);
    }
  }
  if (!hrx_status_is_ok(status)) {
    hrx_allocator_free(allocator, m->fixture_root);
    hrx_allocator_free(allocator, m);
    return status;
  }
  *out_model = m;
  return HRX_OK;
}

void hrx_kfd_model_destroy(hrx_kfd_model_t* m) {
  if (m == NULL) return;
  pthread_mutex_lock(&m->mutex);
  m->stopping = true;
  pthread_cond_broadcast(&m->changed);
  pthread_mutex_unlock(&m->mutex);
  pthread_join(m->processor, NULL);
  kfd_model_memory_release_all(m);
  for (int fd = 0; fd < KFD_MODEL_MAX_FDS; ++fd) {
    if (m->fds[fd] != KFD_MODEL_FD_FREE) close(fd);
  }
  munmap(m->doorbells, KFD_MODEL_DOORBELL_BYTES);
  pthread_cond_destroy(&m->changed);
  pthread_mutex_destroy(&m->mutex);
  hrx_allocator_free(m->allocator, m->fixture_root);
  hrx_allocator_free(m->allocator, m);
}

uint32_t hrx_kfd_model_gpu_id(const hrx_kfd_model_t* m) { return m->gpu_id; }

void hrx_kfd_model_inject(hrx_kfd_model_t* m, unsigned long request,
                          uint32_t nth, int error_number) {
  pthread_mutex_lock(&m->mutex);
  m->inject_request = request;
  m->inject_nth = nth;
  m->inject_seen = 0;
  m->inject_errno = error_number;
  pthread_mutex_unlock(&m->mutex);
}

hrx_status_t hrx_kfd_model_queue_fault(hrx_kfd_model_t* m, uint32_t queue_id,
                                       hrx_gfx11_fault_t* out_fault) {
  /* Queue ids are their slots (kfd_model_queue.c). */
  pthread_mutex_lock(&m->mutex);
  bool found = queue_id < KFD_MODEL_MAX_QUEUES && m->queues[queue_id].used;
  if (found) *out_fault = m->queues[queue_id].fault;
  pthread_mutex_unlock(&m->mutex);
  return found ? HRX_OK
               : hrx_make_status(HRX_STATUS_NOT_FOUND,
                                 "KFD model has no queue %u", queue_id);
}
