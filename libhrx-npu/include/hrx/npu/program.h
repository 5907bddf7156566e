/* Programs: one entry of an image, prepared on a device with immutable
 * bindings, dispatched any number of times.
 *
 * Prepare creates, in order, the hardware context (normal priority, all 8
 * columns x 4 core rows) with its completion timeline (a DRM syncobj),
 * the entry's storage (COMMAND allocations carved from the device heap,
 * DMA allocations as host pages), loads and relocates the image with the
 * bindings' DMA addresses, flushes, and makes a queue of 128 command
 * slots; the DMA storage and the slots are charged to the device's
 * budget, the COMMAND storage lies inside the heap's charge. Dispatch
 * writes an ERT_START_NPU_PREEMPT_ELF packet into a free slot and submits
 * it; the driver's sequence number + 1 is the invocation's timeline
 * point. The first submission of a context is also
 * captured into a spare syncobj, because a fresh timeline reads as point 0
 * and a wait on its first point cannot tell "not yet submitted" apart.
 *
 * At most 128 invocations are pending. A dispatch with all slots pending
 * polls the oldest; if it still runs the dispatch is BUSY.
 *
 * Completion: invocations retire in submission order. The call that
 * retires one (is_complete, wait, or a dispatch that reclaims its slot)
 * reads its command state; any state other than COMPLETED is returned as
 * an INTERNAL status naming the state and the invocation's point, once.
 * An invocation older than every pending one is complete; a point this
 * program never returned is INVALID_ARGUMENT.
 *
 * Teardown (destroy): waits up to HRX_NPU_PROGRAM_DRAIN_NS for pending
 * invocations, then releases queue, storage and context in that order
 * and drops the bound buffers. If the NPU does not finish in time the
 * program is leaked instead (device memory, bound buffers and all): the
 * NPU may still write it.
 *
 * Threads: one program is used by one thread at a time; different
 * programs of one device may be used from different threads.
 */
#ifndef HRX_NPU_PROGRAM_H_
#define HRX_NPU_PROGRAM_H_

#include <stdbool.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/npu/device.h"
#include "hrx/npu/image.h"
#include "hrx/npu/memory.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_NPU_PROGRAM_SLOTS 128
#define HRX_NPU_PROGRAM_DRAIN_NS (5ull * 1000 * 1000 * 1000)

typedef struct hrx_npu_program_s hrx_npu_program_t;

/* One binding of an entry: |size| bytes of |buffer| from |offset|. */
typedef struct hrx_npu_binding_t {
  hrx_npu_buffer_t* buffer;
  uint64_t offset;
  uint64_t size;
} hrx_npu_binding_t;

typedef struct hrx_npu_invocation_t {
  uint64_t point; /* the timeline point; 0 is never a valid invocation */
} hrx_npu_invocation_t;

/* Prepares entry |entry_name| of |image| (which may be destroyed
 * afterwards) with one binding per entry binding, in entry order. The
 * program retains every bound buffer. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_program_prepare(
    hrx_npu_device_t* device, const hrx_npu_image_t* image,
    const char* entry_name, const hrx_npu_binding_t* bindings,
    size_t binding_count, hrx_npu_program_t** out_program);

HRX_API HRX_MUST_USE hrx_status_t hrx_npu_program_dispatch(
    hrx_npu_program_t* program, hrx_npu_invocation_t* out_invocation);

/* Whether |invocation| finished, without blocking. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_program_is_complete(
    hrx_npu_program_t* program, hrx_npu_invocation_t invocation,
    bool* out_complete);

/* Waits up to |timeout_ns| (HRX_TIMEOUT_INFINITE for ever) for
 * |invocation|; DEADLINE_EXCEEDED when it is still running then. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_program_wait(
    hrx_npu_program_t* program, hrx_npu_invocation_t invocation,
    uint64_t timeout_ns);

/* Has the kernel signal |eventfd| (an eventfd(2) the caller owns) once
 * |invocation| completes, at once when it already has, so a poll loop can
 * wait on NPU work beside other fds. The eventfd says the fence
 * signalled; is_complete or wait still retires the invocation and checks
 * its command state. UNIMPLEMENTED before Linux 6.6 (no
 * DRM_IOCTL_SYNCOBJ_EVENTFD). */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_program_eventfd(
    hrx_npu_program_t* program, hrx_npu_invocation_t invocation,
    int eventfd);

/* Invocations dispatched and not yet retired. */
HRX_API size_t hrx_npu_program_pending(const hrx_npu_program_t* program);

/* NULL is accepted. */
HRX_API void hrx_npu_program_destroy(hrx_npu_program_t* program);

#ifdef __cplusplus
}
#endif

#endif /* HRX_NPU_PROGRAM_H_ */
