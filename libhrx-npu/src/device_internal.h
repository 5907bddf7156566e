/* What the modules of libhrx-npu share: the device object, buffer objects
 * (BOs) and the entry points that take a system-call table, which tests
 * drive with a scripted fake driver. */
#ifndef HRX_NPU_DEVICE_INTERNAL_H_
#define HRX_NPU_DEVICE_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include "hrx/npu/device.h"
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
} hrx_npu_bo_t;

struct hrx_npu_device_s {
  hrx_allocator_t allocator;
  hrx_npu_sys_t sys;
  int fd;
  hrx_npu_candidate_t candidate;
  hrx_npu_bo_t heap;
};

/* Examines accel node |index| under |root_fd| into |*out_candidate|.
 * Returns false when the node does not exist. With |out_fd| non-NULL an
 * accepted node is left open there (the caller closes it). */
bool hrx_npu_admit(const hrx_npu_sys_t* sys, int root_fd, unsigned index,
                   hrx_npu_candidate_t* out_candidate, int* out_fd);

void hrx_npu_enumerate_with(const hrx_npu_sys_t* sys, int root_fd,
                            hrx_npu_candidates_t* out_candidates);

hrx_status_t hrx_npu_device_open_with(const hrx_npu_sys_t* sys, int root_fd,
                                      hrx_allocator_t allocator,
                                      const char* node,
                                      hrx_npu_device_t** out_device);

/* Creates a BO of |type| and |size| and maps it: DEV BOs are views of the
 * heap, checked to lie inside it at the driver's alignment; the others
 * are mmapped from the device fd. Nothing is left behind on failure. */
hrx_status_t hrx_npu_bo_create(hrx_npu_device_t* device,
                               hrx_xdna_bo_type_t type, uint64_t size,
                               hrx_npu_bo_t* out_bo);
/* Unmaps and closes |bo| (a zeroed one is accepted), then zeroes it. */
void hrx_npu_bo_release(hrx_npu_device_t* device, hrx_npu_bo_t* bo);

/* The shim DMA address of |xdna_addr|; OUT_OF_RANGE past 48 bits. */
hrx_status_t hrx_npu_dma_address(uint64_t xdna_addr, uint64_t* out_address);

/* Writes back (and drops) the CPU cache lines over [address, address +
 * size), then fences: the NPU does not snoop. */
void hrx_npu_cache_flush(const void* address, uint64_t size);

#endif /* HRX_NPU_DEVICE_INTERNAL_H_ */
