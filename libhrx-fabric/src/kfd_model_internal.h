/* The KFD model's state, shared by its files (kfd_model*.c). Tables are
 * fixed arrays: the model serves tests and a small provider, and a full
 * table fails the request with the errno the driver uses when it runs out
 * (ENOMEM). One mutex guards everything; the packet
 * processor holds it while it runs a packet, so an ioctl never sees a
 * half-retired packet or frees memory a kernel is using. */
#ifndef HRX_FABRIC_KFD_MODEL_INTERNAL_H_
#define HRX_FABRIC_KFD_MODEL_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kfd_ioctl.h"
#include "kfd_model.h"
#include "pm4_packets.h"

#define KFD_MODEL_PAGE 4096u
#define KFD_MODEL_MAX_FDS 64
#define KFD_MODEL_MAX_RESERVATIONS 64
#define KFD_MODEL_MAX_ALLOCATIONS 256
#define KFD_MODEL_MAX_QUEUES 16
#define KFD_MODEL_MAX_EVENTS 256
#define KFD_MODEL_MAX_DEFERRED 64
/* Doorbells are 64-bit, 1024 to a page (hardware.md §2); the provider maps
 * two pages at doorbell_offset & ~0x1fff. */
#define KFD_MODEL_DOORBELL_BYTES 0x2000u
/* mmap offsets the model hands out; any value the driver could use works,
 * as long as doorbell and render-node offsets cannot be confused. */
#define KFD_MODEL_DOORBELL_OFFSET 0x100000000ull
#define KFD_MODEL_RENDER_OFFSET 0x200000000ull
/* Instructions one wave may run before the queue faults with BUDGET. */
#define KFD_MODEL_WAVE_BUDGET (1ull << 24)

typedef enum kfd_model_fd_kind_t {
  KFD_MODEL_FD_FREE = 0,
  KFD_MODEL_FD_KFD,
  KFD_MODEL_FD_RENDER,
  KFD_MODEL_FD_DEV_DIR,
} kfd_model_fd_kind_t;

typedef struct kfd_model_reservation_t {
  uint64_t base, size; /* 0 size: free slot */
} kfd_model_reservation_t;

typedef struct kfd_model_allocation_t {
  uint64_t va, size; /* 0 size: free slot */
  uint32_t flags;
  bool userptr; /* host memory the caller owns; never remapped */
  bool mapped;  /* MAP_MEMORY_TO_GPU done */
} kfd_model_allocation_t;

/* A PM4 queue's command processor state. */
typedef struct kfd_model_pm4_t {
  uint32_t sh[HRX_PM4_SH_REG_COUNT]; /* SET_SH_REG's register file */
  /* The indirect buffer being run (the ring's read index stays on its
   * INDIRECT_BUFFER packet until it ends). */
  bool in_ib;
  uint64_t ib_base;
  uint32_t ib_dwords, ib_position;
  /* The kernel descriptor a DISPATCH_DIRECT hands the gfx11 executor,
   * rebuilt from the COMPUTE_* registers for each dispatch (the executor
   * reads it bytewise: no alignment needed). */
  uint8_t descriptor[64];
} kfd_model_pm4_t;

typedef struct kfd_model_queue_t {
  bool used;
  uint32_t id;
  uint32_t type;            /* HRX_KFD_QUEUE_TYPE_* */
  uint64_t ring, ring_size; /* bytes */
  uint64_t read_pointer, write_pointer;
  uint32_t doorbell_index; /* slot in the doorbell page */
  /* Next packet: AQL counts packets (mirrored to read_pointer as is),
   * PM4 and SDMA count dwords (mirrored wrapped, in dwords for PM4 and
   * bytes for SDMA). */
  uint64_t read_index;
  uint64_t generation;     /* distinguishes a re-created queue in a slot */
  hrx_gfx11_fault_t fault; /* kind != NONE: stopped */
  bool bad_packet;         /* stopped on a packet, not a wave */
  kfd_model_pm4_t pm4;     /* PM4 queues only */
} kfd_model_queue_t;

typedef struct kfd_model_event_t {
  bool used, signaled, auto_reset;
  uint32_t type;
  uint64_t fault_va; /* MEMORY events: the address of the last fault */
} kfd_model_event_t;

struct hrx_kfd_model_t {
  hrx_allocator_t allocator;
  char* fixture_root;
  uint32_t gpu_id;
  uint32_t render_minor;
  /* CREATE_QUEUE's exact sizes for this GPU (hardware.md §1). */
  uint64_t eop_size, ctl_stack_size, cwsr_size, debug_memory_size;
  /* SDMA queues the node offers (engines x queues per engine). */
  uint32_t sdma_queues;

  pthread_mutex_t mutex;
  pthread_cond_t changed; /* an event was set, or the model is stopping */
  pthread_t processor;
  bool stopping;

  kfd_model_fd_kind_t fds[KFD_MODEL_MAX_FDS]; /* by fd number */
  bool vm_acquired;
  kfd_model_reservation_t reservations[KFD_MODEL_MAX_RESERVATIONS];
  kfd_model_allocation_t allocations[KFD_MODEL_MAX_ALLOCATIONS];
  kfd_model_queue_t queues[KFD_MODEL_MAX_QUEUES];
  kfd_model_event_t events[KFD_MODEL_MAX_EVENTS]; /* id = index + 1 */
  _Atomic uint64_t* doorbells; /* KFD_MODEL_DOORBELL_BYTES of host memory */
  /* Per queue slot: set by DESTROY_QUEUE before it takes the mutex, so a
   * dispatch in progress on that queue stops (as the driver preempts a
   * queue's waves when it unmaps it) and the destroy is not held up. */
  _Atomic bool preempt[KFD_MODEL_MAX_QUEUES];
  uint64_t next_generation;
  /* Dispatch settings: worker threads (the online CPUs, at most 8) and
   * the per-dispatch watchdog (HRX_KFD_MODEL_WATCHDOG_MS; 0: none). */
  uint32_t threads;
  uint64_t watchdog_ns;
  /* The processor runs a dispatch without the mutex (ioctls must not wait
   * for a long kernel). Meanwhile FREE keeps the pages it releases (a
   * kernel touching freed memory reads stale pages, as through a stale
   * GPU TLB, rather than crashing the process) and lists them here; they
   * become reservation again when no dispatch runs. */
  uint32_t running;
  int running_queue; /* slot whose dispatch runs, or -1 */
  kfd_model_reservation_t deferred[KFD_MODEL_MAX_DEFERRED];

  unsigned long inject_request;
  uint32_t inject_nth, inject_seen;
  int inject_errno;
};

/* kfd_model_memory.c; all with the mutex held. */
int kfd_model_reserve(hrx_kfd_model_t* m, uint64_t base, uint64_t size);
/* Forgets the reservation [base, base + size) before the caller unmaps it:
 * 0, -EINVAL while allocations live inside it, or 0 for memory that was
 * never a reservation (an ordinary mapping). */
int kfd_model_release_reservation(hrx_kfd_model_t* m, uint64_t base,
                                  uint64_t size);
int kfd_model_alloc(hrx_kfd_model_t* m, hrx_kfd_alloc_memory_args_t* args);
int kfd_model_free(hrx_kfd_model_t* m, hrx_kfd_free_memory_args_t* args);
/* A memfd of the allocation's size stands in for the dma-buf: the model's
 * pages are private to the process, so the fd does not share them. */
int kfd_model_export_dmabuf(hrx_kfd_model_t* m,
                            hrx_kfd_export_dmabuf_args_t* args);
int kfd_model_map(hrx_kfd_model_t* m, hrx_kfd_map_memory_args_t* args,
                  bool map);
/* The mapped allocation holding [address, address + size), or NULL. */
const kfd_model_allocation_t* kfd_model_find_mapped(const hrx_kfd_model_t* m,
                                                    uint64_t address,
                                                    uint64_t size);
/* The allocation whose mmap offset is |offset| (render-node mmap). */
const kfd_model_allocation_t* kfd_model_find_offset(const hrx_kfd_model_t* m,
                                                    uint64_t offset);
void kfd_model_memory_release_all(hrx_kfd_model_t* m);
/* Whether [va, va + size) overlaps pages FREE kept during a dispatch. */
bool kfd_model_deferred(const hrx_kfd_model_t* m, uint64_t va,
                        uint64_t size);
/* Turns the pages FREE kept during a dispatch back into reservation
 * (those overlapping [va, va + size), or all when size is 0). */
void kfd_model_release_deferred(hrx_kfd_model_t* m, uint64_t va,
                                uint64_t size);

/* kfd_model_queue.c; with the mutex held. */
int kfd_model_create_queue(hrx_kfd_model_t* m,
                           hrx_kfd_create_queue_args_t* args);
int kfd_model_destroy_queue(hrx_kfd_model_t* m,
                            const hrx_kfd_destroy_queue_args_t* args);
/* PM4 and SDMA rings: the dwords published past the read index (from the
 * doorbell: a dword index for PM4, a byte index for SDMA) into
 * |*out_dwords|; false when the queue faulted instead (ring unmapped,
 * write index misaligned or more than a ring ahead). */
bool kfd_model_ring_pending(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                            uint64_t* out_dwords);
/* Dword |index| past the read index, across the wrap. */
uint32_t kfd_model_ring_dword(const kfd_model_queue_t* q, uint64_t index);
/* Retires |dwords| and mirrors the read index to the read pointer. */
void kfd_model_ring_retire(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                           uint64_t dwords);

/* kfd_model_processor.c: stops |q| with a fault of |kind| at |address|
 * and a printf reason. */
void kfd_model_set_fault(kfd_model_queue_t* q, hrx_gfx11_fault_kind_t kind,
                         uint64_t address, const char* format, ...)
    HRX_PRINTF(4, 5);
/* The host pointer for |size| bytes of GPU memory at |address|, or NULL
 * after stopping |q| (misaligned to |alignment|: UNDECODABLE; outside
 * every mapped allocation: OUT_OF_BOUNDS). |what| names it in the fault,
 * whose pc is |packet|, the address of the packet that named it. */
void* kfd_model_gpu_pointer(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                            uint64_t address, uint64_t size,
                            uint64_t alignment, const char* what,
                            uint64_t packet);
/* Runs |d| on the gfx11 executor without the mutex, over every mapped
 * allocation plus |extra| (size 0: none), with the model's threads,
 * budget, watchdog and the queue's preempt flag. True when it completed;
 * false when it faulted (the fault is the queue's) or the queue was
 * destroyed meanwhile. */
bool kfd_model_run_dispatch(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                            hrx_gfx11_dispatch_t* d, hrx_gfx11_range_t extra);

/* kfd_model_pm4.c and kfd_model_sdma.c: run the packet at the read index
 * of a PM4 or SDMA queue; true when the queue moved (a packet retired, an
 * indirect buffer began, or the queue faulted), false while it waits for
 * a packet or a condition. With the mutex held (a dispatch drops it). */
bool kfd_model_pm4_step(hrx_kfd_model_t* m, kfd_model_queue_t* q);
bool kfd_model_sdma_step(hrx_kfd_model_t* m, kfd_model_queue_t* q);
/* WAIT_REG_MEM's and POLL_REGMEM's compare (hrx_pm4_compare_t
 * numbering): 1 holds, 0 does not, -1 reserved function. */
int kfd_model_compare(uint32_t function, uint64_t value, uint64_t reference);

/* kfd_model_event.c; CREATE/DESTROY/SET/RESET with the mutex held,
 * WAIT_EVENTS takes it itself (it sleeps on |changed|). */
int kfd_model_create_event(hrx_kfd_model_t* m,
                           hrx_kfd_create_event_args_t* args);
int kfd_model_event_op(hrx_kfd_model_t* m, unsigned long request,
                       const hrx_kfd_event_id_args_t* args);
int kfd_model_wait_events(hrx_kfd_model_t* m,
                          hrx_kfd_wait_events_args_t* args);
/* Sets event |id| (if it exists) and wakes waiters. */
void kfd_model_signal_event(hrx_kfd_model_t* m, uint32_t id);
/* Sets every MEMORY event with |va| as the faulting address, as the
 * driver does on a GPU VM fault. */
void kfd_model_signal_memory_fault(hrx_kfd_model_t* m, uint64_t va);

/* kfd_model_processor.c: the packet processor thread's body. */
void* kfd_model_processor_main(void* model);

/* kfd_model_ioctl.c: one ioctl on a kfd fd; takes the mutex. */
int kfd_model_ioctl(hrx_kfd_model_t* m, unsigned long request, void* args);

#endif /* HRX_FABRIC_KFD_MODEL_INTERNAL_H_ */
