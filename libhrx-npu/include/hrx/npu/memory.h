/* NPU buffers: host pages the NPU reaches by DMA (amdxdna SHARE BOs),
 * allocated here or imported from another device as a dma-buf.
 *
 * A buffer is mapped into the process for its whole life. The CPU and the
 * NPU do not snoop each other's caches here: call hrx_npu_buffer_flush
 * after the CPU writes and before the NPU reads, and
 * hrx_npu_buffer_invalidate after the NPU wrote and before the CPU reads.
 *
 * Buffers are reference counted: a program retains every buffer bound to
 * it until it is destroyed, so releasing a bound buffer early is safe.
 *
 * Threads: retain/release are atomic; everything else needs the caller to
 * order accesses to one buffer.
 */
#ifndef HRX_NPU_MEMORY_H_
#define HRX_NPU_MEMORY_H_

#include <stdint.h>

#include "hrx/core.h"
#include "hrx/npu/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_npu_buffer_s hrx_npu_buffer_t;

/* Allocates |size| (> 0) bytes, zeroed, with one reference, charged to
 * the device's budget (RESOURCE_EXHAUSTED before the driver is asked
 * when it does not fit) until the last reference is dropped. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_buffer_allocate(
    hrx_npu_device_t* device, uint64_t size, hrx_npu_buffer_t** out_buffer);

/* Keeps the owner of imported memory alive (a GPU buffer, say) for as
 * long as the NPU may use it: |release| runs once, with |context|, when
 * the imported buffer's last reference is dropped. */
typedef struct hrx_npu_buffer_owner_t {
  void* context;
  void (*release)(void* context);
} hrx_npu_buffer_owner_t;

/* Imports |size| (> 0) bytes of the dma-buf |dmabuf_fd| (a GPU
 * allocation's DRM PRIME export, say) as an NPU buffer with one
 * reference, mapped for the CPU like any other. The fd stays the
 * caller's: close it whenever convenient, the driver holds its own
 * reference. The bytes stay charged to their owner's budget alone, never
 * to the NPU device's. On success the buffer takes over one reference of
 * |owner| (may be NULL), released with the buffer; on failure |owner| is
 * left untouched.
 *
 * INVALID_ARGUMENT for a negative fd or a zero size; the driver's error
 * for an fd that is not a dma-buf (EBADF, EINVAL) or is smaller than
 * |size|; ALREADY_EXISTS when this device already holds a buffer of the
 * same dma-buf (the driver would hand out the same handle twice: retain
 * that buffer instead). */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_buffer_import_dmabuf(
    hrx_npu_device_t* device, int dmabuf_fd, uint64_t size,
    const hrx_npu_buffer_owner_t* owner, hrx_npu_buffer_t** out_buffer);

HRX_API void hrx_npu_buffer_retain(hrx_npu_buffer_t* buffer);
/* Drops a reference; the last one unmaps and frees. NULL is accepted. */
HRX_API void hrx_npu_buffer_release(hrx_npu_buffer_t* buffer);

HRX_API void* hrx_npu_buffer_host(const hrx_npu_buffer_t* buffer);
HRX_API uint64_t hrx_npu_buffer_size(const hrx_npu_buffer_t* buffer);
/* The address the array's shim DMA uses for byte 0: the driver's
 * xdna_addr plus 0x80000000. */
HRX_API uint64_t hrx_npu_buffer_dma_address(const hrx_npu_buffer_t* buffer);

/* Writes CPU caches back over [offset, offset + size) (clamped to the
 * buffer), then fences. */
HRX_API void hrx_npu_buffer_flush(hrx_npu_buffer_t* buffer, uint64_t offset,
                                  uint64_t size);
/* Drops CPU cache lines over the range so the next reads see the NPU's
 * writes. */
HRX_API void hrx_npu_buffer_invalidate(hrx_npu_buffer_t* buffer,
                                       uint64_t offset, uint64_t size);

#ifdef __cplusplus
}
#endif

#endif /* HRX_NPU_MEMORY_H_ */
