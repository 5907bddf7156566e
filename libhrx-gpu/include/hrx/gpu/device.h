/* libhrx-gpu devices, buffers, views, kernels and events.
 *
 * The raw-dispatch layer: a program that already has code objects links
 * this layer (and what it pulls in), never the compiler. Devices, buffers,
 * kernels and events are reference counted and thread-safe; views are
 * plain values that borrow their buffer.
 */
#ifndef HRX_GPU_DEVICE_H_
#define HRX_GPU_DEVICE_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/fabric.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_gpu_device_s hrx_gpu_device_t;
typedef struct hrx_gpu_buffer_s hrx_gpu_buffer_t;
typedef struct hrx_gpu_kernel_s hrx_gpu_kernel_t;
typedef struct hrx_gpu_event_s hrx_gpu_event_t;

/*===------------------------------------------------------------------===*/
/* Devices                                                                 */
/*===------------------------------------------------------------------===*/

/* Number of devices: the host device (index 0) is always present; then
 * every AMD GPU HRX supports, through the kfd provider (or the one GPU the
 * KFD model models when HRX_KFD_MODEL is set: see hrx/fabric/kfd.h). */
HRX_API size_t hrx_gpu_device_count(void);

/* Opens device |index|. While a device of that index is live, every open
 * returns it (one more reference): components that open the same index
 * share its queues, threads, buffers and stream queue count, and the
 * first open's |allocator| serves them all. Thread-safe. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_device_open(
    size_t index, hrx_allocator_t allocator, hrx_gpu_device_t** out_device);
HRX_API void hrx_gpu_device_retain(hrx_gpu_device_t* device);
HRX_API void hrx_gpu_device_release(hrx_gpu_device_t* device);

HRX_API const hrx_fabric_device_properties_t* hrx_gpu_device_properties(
    const hrx_gpu_device_t* device);

/* The fabric device under |device| (borrowed: it lives as long as
 * |device|), for components that drive its other queue families
 * directly (hrx/fabric/transfer.h), as libhrx-exec's SDMA copy engine
 * does. */
HRX_API hrx_fabric_device_t* hrx_gpu_device_fabric(
    const hrx_gpu_device_t* device);

/* Sets how many hardware queues streams are spread over (default 8).
 * Must come before the first stream of this device; later calls fail with
 * FAILED_PRECONDITION. Zero is INVALID_ARGUMENT. Queues are created lazily
 * when a stream first needs one. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_device_set_stream_queue_count(
    hrx_gpu_device_t* device, uint32_t count);
HRX_API uint32_t hrx_gpu_device_stream_queue_count(
    const hrx_gpu_device_t* device);

/* Sets the private (scratch) memory per work-item, at most
 * HRX_FABRIC_MAX_PRIVATE_BYTES, that the stream queues' dispatches may use
 * (default 0): each AQL queue allocates its scratch for that much when it
 * is created (hrx_fabric_queue_options_t) and keeps it while the device
 * lives, so prepared dispatches, which retain the device, always find it.
 * A dispatch of a kernel needing more (its code object's private segment
 * or its launch configuration's private storage) is refused at recording
 * or preparation with FAILED_PRECONDITION naming the kernel, what it
 * needs and what the queues provide. Must come before the first stream
 * or dispatch of this device; later calls fail with FAILED_PRECONDITION.
 * The host device's queues serve any amount whatever is set. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_device_set_maximum_private_bytes(
    hrx_gpu_device_t* device, uint64_t bytes);
/* What a dispatch may use: the value set, or HRX_FABRIC_PRIVATE_UNLIMITED
 * on the host device. */
HRX_API uint64_t hrx_gpu_device_maximum_private_bytes(
    const hrx_gpu_device_t* device);

/*===------------------------------------------------------------------===*/
/* Buffers and views                                                       */
/*===------------------------------------------------------------------===*/

/* A byte range of a buffer. Views borrow their buffer: keep the buffer
 * alive while the view is used to record work (queued work itself retains
 * what it touches, so a buffer may be released right after recording). */
typedef struct hrx_gpu_view_t {
  hrx_gpu_buffer_t* buffer;
  uint64_t offset;
  uint64_t length;
} hrx_gpu_view_t;

HRX_API void hrx_gpu_buffer_retain(hrx_gpu_buffer_t* buffer);
/* Drops a reference. A pooled buffer returns to its pool. */
HRX_API void hrx_gpu_buffer_release(hrx_gpu_buffer_t* buffer);
HRX_API uint64_t hrx_gpu_buffer_size(const hrx_gpu_buffer_t* buffer);
/* The host mapping of a buffer the host may use without cache
 * maintenance (HOST_COHERENT, and every buffer of the host device); NULL
 * for the others, which the stream's transfers reach. */
HRX_API void* hrx_gpu_buffer_host_pointer(const hrx_gpu_buffer_t* buffer);
/* How |buffer| was placed (hrx_gpu_stream_allocate_placed). */
HRX_API hrx_fabric_visibility_t hrx_gpu_buffer_placement(
    const hrx_gpu_buffer_t* buffer);
HRX_API hrx_gpu_device_t* hrx_gpu_buffer_device(
    const hrx_gpu_buffer_t* buffer);
/* The device address of |buffer|'s first byte: what packets and the
 * fabric's transfer queues on the buffer's device name it by. */
HRX_API uint64_t hrx_gpu_buffer_device_address(
    const hrx_gpu_buffer_t* buffer);
/* Buffer::visibility: the allocation profile of |buffer|'s memory (who
 * reaches it, which releases and acquires each producer/consumer pair
 * needs, atomic scopes; hrx/fabric/visibility.h) into |*out_profile|,
 * whose struct_size the caller sets: the profile of its placement. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_buffer_visibility(
    const hrx_gpu_buffer_t* buffer,
    hrx_fabric_allocation_profile_t* out_profile);

/* Exports |buffer|'s memory as a new dma-buf fd the caller owns, for
 * another device to import (hrx_npu_buffer_import_dmabuf). The bytes
 * stay charged to |buffer|'s budget: keep the buffer retained while the
 * importer uses them. UNAVAILABLE on the host device, whose memory no
 * kernel driver can import. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_buffer_export_dmabuf(
    hrx_gpu_buffer_t* buffer, int* out_fd);

/* The whole buffer. */
HRX_API hrx_gpu_view_t hrx_gpu_buffer_binding(hrx_gpu_buffer_t* buffer);

/* [offset, offset + length) of |view|; OUT_OF_RANGE when it does not fit
 * (overflow-checked), INVALID_ARGUMENT for a view without buffer. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_view_slice(hrx_gpu_view_t view,
                                                     uint64_t offset,
                                                     uint64_t length,
                                                     hrx_gpu_view_t* out_view);

/*===------------------------------------------------------------------===*/
/* Kernels                                                                 */
/*===------------------------------------------------------------------===*/

/* Loads kernel |name| from a code object for |device|. The kernel retains
 * its executable; its launch program is loaded and checked here. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_kernel_load(
    hrx_gpu_device_t* device, const void* code_object, size_t length,
    const char* name, hrx_gpu_kernel_t** out_kernel);
HRX_API void hrx_gpu_kernel_retain(hrx_gpu_kernel_t* kernel);
HRX_API void hrx_gpu_kernel_release(hrx_gpu_kernel_t* kernel);
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_kernel_info(
    const hrx_gpu_kernel_t* kernel, hrx_fabric_kernel_info_t* out_info);

/* Declared access of a binding. A stream runs its work in order whatever
 * the access says; graphs with HRX_GPU_GRAPH_INFER_ACCESS and the exec
 * runtime order work by it. Every dispatch checks it is one of these. */
typedef enum hrx_gpu_access_e {
  HRX_GPU_ACCESS_READ_WRITE = 0,
  HRX_GPU_ACCESS_READ = 1,
  HRX_GPU_ACCESS_WRITE = 2,
} hrx_gpu_access_t;

typedef enum hrx_gpu_arg_kind_e {
  HRX_GPU_ARG_SCALAR = 0,
  HRX_GPU_ARG_BINDING = 1,
} hrx_gpu_arg_kind_t;

/* One kernel argument, in the kernel's argument order. */
typedef struct hrx_gpu_arg_t {
  hrx_gpu_arg_kind_t kind;
  uint64_t bits;          /* scalars: raw little-endian value */
  hrx_gpu_view_t view;    /* bindings */
  hrx_gpu_access_t access;
} hrx_gpu_arg_t;

static inline hrx_gpu_arg_t hrx_gpu_arg_scalar(uint64_t bits) {
  hrx_gpu_arg_t arg = {HRX_GPU_ARG_SCALAR, bits, {0, 0, 0},
                       HRX_GPU_ACCESS_READ_WRITE};
  return arg;
}
static inline hrx_gpu_arg_t hrx_gpu_arg_binding(hrx_gpu_view_t view,
                                                hrx_gpu_access_t access) {
  hrx_gpu_arg_t arg = {HRX_GPU_ARG_BINDING, 0, view, access};
  return arg;
}

typedef struct hrx_gpu_launch_t {
  const uint64_t* workload; /* the kernel's workload arguments */
  size_t workload_count;
  const hrx_gpu_arg_t* args;
  size_t arg_count;
} hrx_gpu_launch_t;

/*===------------------------------------------------------------------===*/
/* Events                                                                  */
/*===------------------------------------------------------------------===*/

HRX_API void hrx_gpu_event_retain(hrx_gpu_event_t* event);
HRX_API void hrx_gpu_event_release(hrx_gpu_event_t* event);
/* Blocks until the work before the event completed; DEADLINE_EXCEEDED on
 * timeout, ABORTED (with the fault report) when that work faulted. Until
 * its stream recovers (hrx_gpu_stream_recover), a fault in the stream's
 * later work counts too: the stream's failure is what an event reports. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_event_wait(
    const hrx_gpu_event_t* event, uint64_t timeout_ns);
HRX_API bool hrx_gpu_event_is_complete(const hrx_gpu_event_t* event);
/* Once the event completed, the report of the fault that failed its
 * stream's work (as hrx_gpu_event_wait counts it), kind
 * HRX_FABRIC_FAULT_NONE when none did; BUSY (no message) before. Any
 * thread may ask. |out_fault|: HRX_STRUCT_INIT. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_event_fault(
    const hrx_gpu_event_t* event, hrx_fabric_fault_t* out_fault);

#ifdef __cplusplus
}
#endif

#endif /* HRX_GPU_DEVICE_H_ */
