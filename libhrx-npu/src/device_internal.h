/* What the modules of libhrx-npu share: the device object, buffer objects
 * (BOs) and the entry points that take a system-call table, which tests
 * drive with a scripted fake driver. */
#ifndef HRX_NPU_DEVICE_INTERNAL_H_
#define HRX_NPU_DEVICE_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "hrx/npu/device.h"
#include "hrx/npu/memory.h"
#include "npu_sys.h"
#include "xdna_abi.h"

/* The device heap every DEV BO is carved from, and the alignment the
 * driver carves at. */
#define HRX_NPU_HEAP_SIZE (64ull << 20)
#define HRX_NPU_DEV_ALIGNMENT (32ull << 10)
/* The array's shim DMA reaches host address A at A + this offset. */
#define HRX_NPU_SHIM_OFFSET 0x80000000ull
#define HRX_NPU_DMA_LIMIT (1ull << 48)

/* A driver buffer object and this process's view of it. */
typedef struct hrx_npu_bo_t {
  uint32_t handle; /* 0: none */
  uint64_t size;
  uint64_t xdna_addr;
  uint8_t* host;
  bool owns_mapping; /* |host| is its own mmap, not a view of the heap */
  bool charged;      /* |size| is charged to the device's budget */
} hrx_npu_bo_t;

struct hrx_npu_buffer_s {
  atomic_size_t references;
  hrx_npu_device_t* device;
  hrx_npu_bo_t bo;
  uint64_t dma_address;
  /* Imported buffers: what keeps the memory's owner alive, and the link
   * in the device's list of imports (under its mutex). */
  bool imported;
  hrx_npu_buffer_owner_t owner;
  struct hrx_npu_buffer_s* next_import;
};

struct hrx_npu_device_s {
  hrx_allocator_t allocator;
  hrx_npu_sys_t sys;
  int fd;
  hrx_npu_candidate_t candidate;
  hrx_npu_bo_t heap;
  hrx_budget_t* budget; /* retained; NULL: nothing is charged */
  /* Imported dma-bufs, so that a second import of one (which the driver
   * answers with the first one's GEM handle) is refused instead of
   * sharing a handle that either release would close. */
  pthread_mutex_t imports_mutex;
  hrx_npu_buffer_t* imports;
};

/* Examines accel node |index| under |root_fd| into |*out_candidate|.
 * Returns false when the node does not exist. With |out_fd| non-NULL an
 * accepted node is left open there (the caller closes it). */
bool hrx_npu_admit(const hrx_npu_sys_t* sys, int root_fd, unsigned index,
                   hrx_npu_candidate_t* out_candidate, int* out_fd);

void hrx_npu_enumerate_with(const hrx_npu_sys_t* sys, int root_fd,
                            hrx_npu_candidates_t* out_candidates);

/* |budget| may be NULL. */
hrx_status_t hrx_npu_device_open_with(const hrx_npu_sys_t* sys, int root_fd,
                                      hrx_allocator_t allocator,
                                      const char* node, hrx_budget_t* budget,
                                      hrx_npu_device_t** out_device);

/* Creates a BO of |type| and |size| and maps it: DEV BOs are views of the
 * heap, checked to lie inside it at the driver's alignment; the others
 * are mmapped from the device fd. Every type but DEV (whose bytes the
 * heap's charge already holds) is charged to the device's budget before
 * the driver is asked, so an exhausted budget costs no ioctl. Nothing is
 * left behind on failure. */
hrx_status_t hrx_npu_bo_create(hrx_npu_device_t* device,
                               hrx_xdna_bo_type_t type, uint64_t size,
                               hrx_npu_bo_t* out_bo);
/* Looks up the BO info of |bo| (handle and size set) and maps it as a
 * BO of |type|; |bo| is left for hrx_npu_bo_release on failure. */
hrx_status_t hrx_npu_bo_map(hrx_npu_device_t* device, hrx_npu_bo_t* bo,
                            uint32_t type);
/* Unmaps and closes |bo| (a zeroed one is accepted), uncharges it, then
 * zeroes it. */
void hrx_npu_bo_release(hrx_npu_device_t* device, hrx_npu_bo_t* bo);

/* Drops imported |buffer| from its device's list of imports. */
void hrx_npu_import_forget(hrx_npu_device_t* device,
                           hrx_npu_buffer_t* buffer);

/* The shim DMA address of |xdna_addr|; OUT_OF_RANGE past 48 bits. */
hrx_status_t hrx_npu_dma_address(uint64_t xdna_addr, uint64_t* out_address);

/* Writes back (and drops) the CPU cache lines over [address, address +
 * size), then fences: the NPU does not snoop. */
void hrx_npu_cache_flush(const void* address, uint64_t size);

#endif /* HRX_NPU_DEVICE_INTERNAL_H_ */
