/* The kfd provider's device: one GPU node opened through /dev/kfd (or the
 * KFD model), shared by its files (kfd_device.c, kfd_memory.c,
 * kfd_signal.c, kfd_executable.c, kfd_queue.c). Private to the fabric.
 *
 * Threads. The device owns one event thread, started by create and joined
 * by destroy: the only caller of WAIT_EVENTS. It sleeps on the device's
 * signal event (mailed by the packet processor when a signal with that
 * mailbox completes) and its memory event (GPU VM faults), bumps |epoch|
 * so that host waiters sleeping on it re-check their signals, and turns a
 * stopped queue into fault reports. Everything else happens on callers'
 * threads under |mutex|. */
#ifndef HRX_FABRIC_KFD_DEVICE_H_
#define HRX_FABRIC_KFD_DEVICE_H_

#include "fabric_internal.h"
#include "kfd_model.h"
#include "kfd_sys.h"
#include "kfd_topology.h"

#define HRX_KFD_PAGE 4096u
/* Bytes of kernarg segment per dispatch (AQL and PM4): HRX kernels need at
 * most a few hundred (arguments, then 256 bytes of hidden arguments). */
#define HRX_KFD_KERNARG_SLOT 2048u

typedef struct hrx_kfd_queue_t hrx_kfd_queue_t;

/* The blit kernels a queue dispatches for copies and fills (kfd_blit.h). */
typedef enum hrx_kfd_blit_t {
  HRX_KFD_BLIT_B8 = 0,
  HRX_KFD_BLIT_B32,
  HRX_KFD_BLIT_B128,
  HRX_KFD_BLIT_FILL,
  HRX_KFD_BLIT_COUNT,
} hrx_kfd_blit_t;

/* A free range of the device's GPU virtual address space. */
typedef struct hrx_kfd_range_t {
  uint64_t base, size;
} hrx_kfd_range_t;

/* One KFD allocation (a buffer object), mapped to the GPU and the CPU at
 * the same address. */
typedef struct hrx_kfd_block_t {
  uint64_t va, size, handle;
} hrx_kfd_block_t;

typedef struct hrx_kfd_device_t {
  hrx_fabric_device_t base; /* first */
  hrx_kfd_model_t* model;   /* owned in model mode, else NULL */
  hrx_kfd_sys_t sys;
  int kfd_fd, render_fd;
  hrx_kfd_node_t node;
  uint32_t version_major, version_minor;
  char name[96];

  pthread_mutex_t mutex; /* guards everything below that is not atomic */
  uint64_t va_base, va_size; /* the reservation */
  hrx_kfd_range_t* holes;    /* free ranges, sorted by base */
  size_t hole_count, hole_capacity;
  hrx_kfd_block_t* blocks;
  size_t block_count, block_capacity;

  /* Signals: 192-byte slots carved from GPU memory. */
  hrx_fabric_memory_t* signal_chunks;
  size_t signal_chunk_count, signal_chunk_capacity;
  hrx_fabric_signal_t** free_signals;
  size_t free_signal_count, free_signal_capacity;

  /* Events. */
  hrx_fabric_memory_t mailbox; /* the signal event's mailbox */
  uint32_t signal_event, memory_event;
  _Atomic uint32_t epoch;
  _Atomic uint32_t sleepers;
  _Atomic bool stopping;
  pthread_t event_thread;
  bool event_thread_started;

  /* Loaded executables, for kernarg sizes at publication. */
  hrx_fabric_executable_t** executables;
  size_t executable_count, executable_capacity;
  hrx_kfd_queue_t** queues; /* live queues, for fault propagation */
  size_t queue_count, queue_capacity;
  hrx_fabric_executable_t* blit; /* the blit kernels, loaded at create */
  uint64_t blit_objects[HRX_KFD_BLIT_COUNT];
} hrx_kfd_device_t;

/* |device| as a kfd device, or NULL when another provider made it. */
hrx_kfd_device_t* hrx_kfd_device_cast(hrx_fabric_device_t* device);

/* Issues KFD ioctl |request| on the device's kfd fd. */
hrx_status_t hrx_kfd_device_ioctl(hrx_kfd_device_t* device,
                                  unsigned long request, const char* name,
                                  void* args);


/* kfd_memory.c: the address space and buffer objects. */
hrx_status_t hrx_kfd_memory_reserve(hrx_kfd_device_t* device);
void hrx_kfd_memory_unreserve(hrx_kfd_device_t* device);
/* Allocates GPU memory with extra KFD |alloc_flags| (EXECUTABLE,
 * UNCACHED); host-mapped at the same address. */
hrx_status_t hrx_kfd_memory_allocate_flags(hrx_kfd_device_t* device,
                                           uint64_t size, uint32_t alloc_flags,
                                           bool zeroed,
                                           hrx_fabric_memory_t* out);
hrx_status_t hrx_kfd_memory_allocate(hrx_fabric_device_t* device,
                                     uint64_t size,
                                     hrx_fabric_visibility_t visibility,
                                     uint32_t flags,
                                     hrx_fabric_memory_t* out_memory);
/* EXPORT_DMABUF of the buffer object behind |memory|. */
hrx_status_t hrx_kfd_memory_export_dmabuf(hrx_fabric_device_t* device,
                                          const hrx_fabric_memory_t* memory,
                                          int* out_fd);
void hrx_kfd_memory_free(hrx_fabric_device_t* device,
                         hrx_fabric_memory_t* memory);
/* Whether [address, address + bytes) lies inside one allocation. With
 * the device mutex held. */
bool hrx_kfd_memory_contains_locked(hrx_kfd_device_t* device,
                                    uint64_t address, uint64_t bytes);

/* kfd_signal.c: signals in GPU memory and the event thread. */
hrx_status_t hrx_kfd_events_start(hrx_kfd_device_t* device);
void hrx_kfd_events_stop(hrx_kfd_device_t* device);
hrx_status_t hrx_kfd_signal_create(hrx_fabric_device_t* device,
                                   int64_t initial_value,
                                   hrx_fabric_signal_t** out_signal);
void hrx_kfd_signal_pool_free(hrx_kfd_device_t* device);
/* Wakes host waiters: some signal of this device changed. */
void hrx_kfd_wake(hrx_kfd_device_t* device);

/* kfd_executable.c: AMDGPU code objects in executable GPU memory. */
hrx_status_t hrx_kfd_executable_load(hrx_fabric_device_t* device,
                                     const void* bytes, size_t length,
                                     hrx_fabric_executable_t** out);
/* As executable_load; |hold_device| false for the device's own blit
 * kernels, which must not keep it alive. */
hrx_status_t hrx_kfd_executable_load_internal(hrx_kfd_device_t* device,
                                              const void* bytes,
                                              size_t length,
                                              bool hold_device,
                                              hrx_fabric_executable_t** out);
/* The kernel whose descriptor is at |kernel_object|, or NULL. Borrowed:
 * the caller keeps its executable alive (a queued packet's producer
 * does). */
const hrx_fabric_kernel_t* hrx_kfd_find_kernel(hrx_kfd_device_t* device,
                                               uint64_t kernel_object);
/* As hrx_kfd_find_kernel, with the device mutex already held. */
const hrx_fabric_kernel_t* hrx_kfd_find_kernel_locked(
    hrx_kfd_device_t* device, uint64_t kernel_object);

/* kfd_queue.c: what every hardware queue (AQL, PM4, SDMA) shares. */

/* The CREATE_QUEUE of one hardware queue: the ring (a buffer object of
 * exactly |ring_bytes|), where the engine reads the write pointer and
 * writes the read pointer, and for compute queues (AQL, PM4) the EOP
 * buffer and context-save area of hrx_kfd_queue_context_allocate. */
typedef struct hrx_kfd_queue_plan_t {
  uint32_t type; /* HRX_KFD_QUEUE_TYPE_* */
  uint64_t ring, ring_bytes;
  uint64_t read_pointer, write_pointer;
  const hrx_fabric_memory_t* eop;  /* NULL for SDMA */
  const hrx_fabric_memory_t* cwsr; /* NULL for SDMA */
} hrx_kfd_queue_plan_t;

/* A created hardware queue and its doorbell, mapped from the kfd fd. */
typedef struct hrx_kfd_hw_queue_t {
  uint32_t queue_id;
  void* doorbell_page; /* HRX_KFD_DOORBELL_MAP bytes */
  _Atomic uint64_t* doorbell;
} hrx_kfd_hw_queue_t;

#define HRX_KFD_DOORBELL_MAP 0x2000u

/* Allocates the EOP buffer and context-save area a compute queue needs,
 * at the sizes the node dictates (hardware.md §1). */
hrx_status_t hrx_kfd_queue_context_allocate(hrx_kfd_device_t* device,
                                            hrx_fabric_memory_t* out_eop,
                                            hrx_fabric_memory_t* out_cwsr);
/* CREATE_QUEUE as |plan| says, then maps its doorbell; on failure no
 * queue is left. */
hrx_status_t hrx_kfd_hw_queue_open(hrx_kfd_device_t* device,
                                   const hrx_kfd_queue_plan_t* plan,
                                   hrx_kfd_hw_queue_t* out_queue);
/* DESTROY_QUEUE of |queue_id|: the engine is preempted and never reads
 * the ring again. The doorbell page stays mapped (producers may still
 * store to it); hrx_kfd_doorbell_unmap takes it. */
hrx_status_t hrx_kfd_hw_queue_close(hrx_kfd_device_t* device,
                                    uint32_t queue_id);
void hrx_kfd_doorbell_unmap(hrx_kfd_device_t* device, void* page);

/* Fills the code object v5 hidden arguments |kernel| declares (block
 * counts, group sizes, remainders, grid dimensions) in the kernarg
 * segment at |kernarg| from dispatch packet |packet|; the explicit
 * arguments stay as they are. Shared by AQL and PM4 dispatch. */
struct hrx_amdgpu_kernel_t;
void hrx_kfd_hidden_args(const struct hrx_amdgpu_kernel_t* kernel,
                         const hrx_aql_dispatch_packet_t* packet,
                         uint8_t* kernarg);

/* kfd_queue.c: AQL queues on the GPU. */
hrx_status_t hrx_kfd_queue_create(hrx_fabric_device_t* device,
                                  uint32_t packet_count,
                                  uint64_t maximum_private_bytes,
                                  hrx_fabric_queue_t** out_queue);
/* Turns a stopped queue's outstanding packets into faults; called by the
 * event thread after a memory event or a queue error. */
void hrx_kfd_queue_check(hrx_kfd_queue_t* queue);
/* With the device mutex held: when |queue| holds published packets that
 * complete |signal| (a cancelled signal), resets the hardware queue
 * (DESTROY_QUEUE preempts what runs, then CREATE_QUEUE over the same
 * ring): every packet it held ends as CANCELLED, later packets run. */
void hrx_kfd_queue_cancel(hrx_kfd_queue_t* queue, uint64_t signal);

/* kfd_device.c: a device on GPU |index| (counting supported GPUs) of the
 * topology |sys| serves; takes |model| (may be NULL) and destroys it with
 * the device, or at once on failure. */
hrx_status_t hrx_kfd_device_create_with(hrx_kfd_model_t* model,
                                        const hrx_kfd_sys_t* sys,
                                        size_t index,
                                        hrx_allocator_t allocator,
                                        hrx_fabric_device_t** out_device);

#endif /* HRX_FABRIC_KFD_DEVICE_H_ */
