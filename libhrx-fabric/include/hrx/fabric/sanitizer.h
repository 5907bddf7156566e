/* Sanitizer reports: findings of the host device's checks, collected
 * while kernels keep running.
 *
 * The host device's interpreter is the sanitizer engine: it checks every
 * access against its allocation and runs the checks Loom's sanitizers
 * compile in (race, value, operation; hrx/loom/compiler.h). By default a
 * finding traps: the dispatch stops and completes its signal as faulted
 * with one fault report (hrx/fabric/fault.h). A dispatch whose completion
 * signal carries a report channel runs in report mode instead: each
 * finding becomes a report in the channel and the kernel goes on, with
 * the offending lane's access skipped as a GPU's robust buffer access
 * would (an out-of-bounds or unbound load gives 0, the store or atomic is
 * dropped), a checked operation keeping its unchecked result (wrapping
 * arithmetic, a shift of at least the width gives 0 or the sign, a
 * division by zero 0), a failed index.assume fact trusted, and a barrier
 * that not every work-item reaches releasing the waves that do. What is
 * no finding (a malformed packet or launch, cancellation) still stops the
 * dispatch. In report mode a kernel that has native host code runs on the
 * interpreter instead. Other devices always trap.
 *
 * A channel is bounded: it holds |capacity| reports, fixed at creation
 * (one allocation, nothing allocated while kernels run); findings past
 * that are counted as dropped. Workers of several dispatches may report
 * into one channel at once; draining must wait until the work that
 * reports into it has completed (its completion signal says so).
 */
#ifndef HRX_FABRIC_SANITIZER_H_
#define HRX_FABRIC_SANITIZER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/fabric/fault.h"
#include "hrx/fabric/signal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A work-item field standing for several work-items (a race with an
 * access that more than one work-item made). */
#define HRX_FABRIC_SANITIZER_SEVERAL UINT32_MAX
/* Slots of workgroup-local and work-item private memory (host_isa.h). */
#define HRX_FABRIC_SANITIZER_SLOT_LOCAL 0xFFFFu
#define HRX_FABRIC_SANITIZER_SLOT_PRIVATE 0xFFFEu
/* Channels hold at most this many reports. */
#define HRX_FABRIC_SANITIZER_MAX_CAPACITY (1u << 20)

/* One access (or checked operation) a report names. */
typedef struct hrx_fabric_sanitizer_access_t {
  uint32_t pc;         /* instruction index in the kernel */
  uint32_t bytes;      /* width of the access or operand; 0: none */
  uint32_t lane;       /* lane of the wave that made it */
  /* Flat work-item id in the workgroup (x + y * size_x + z * size_x *
   * size_y) and its (x, y, z); HRX_FABRIC_SANITIZER_SEVERAL in every
   * field when several work-items made it. */
  uint32_t work_item;
  uint32_t work_item_id[3];
  bool write;
} hrx_fabric_sanitizer_access_t;

typedef struct hrx_fabric_sanitizer_report_t {
  /* sizeof(hrx_fabric_sanitizer_report_t) of the library that wrote it:
   * fields past it are absent. */
  uint32_t struct_size;
  /* OUT_OF_BOUNDS, UNBOUND_POINTER, MISALIGNED, DATA_RACE,
   * BARRIER_DIVERGENCE, ASSERTION, INTEGER_OVERFLOW, BAD_SHIFT or
   * DIVIDE_BY_ZERO. */
  hrx_fabric_fault_kind_t kind;
  char kernel[64];
  uint32_t workgroup[3];
  /* Memory findings: the binding index (kernel-argument order among the
   * buffers), or a SLOT_ constant; the byte offset in it; the device
   * address it names (a binding's start plus the offset; 0 for local
   * and private memory, whose addresses are per workgroup); the extent
   * of the slot. */
  uint32_t slot;
  uint64_t offset;
  uint64_t address;
  uint64_t allocation_size;
  /* The access or operation found; for DATA_RACE the later of the two
   * conflicting accesses, with the earlier one in |other| (both widths,
   * both sites, both work-items). BARRIER_DIVERGENCE: |access| is the
   * barrier and a work-item that does not reach it. */
  hrx_fabric_sanitizer_access_t access;
  hrx_fabric_sanitizer_access_t other;
  /* ASSERTION: the fact checked (hrx_host_assert_t) and the value;
   * BAD_SHIFT: the amount. */
  uint32_t assertion;
  int64_t value;
} hrx_fabric_sanitizer_report_t;

/* One-line description, snprintf semantics. */
HRX_API size_t hrx_fabric_sanitizer_report_format(
    const hrx_fabric_sanitizer_report_t* report, char* buffer,
    size_t capacity);

typedef struct hrx_fabric_report_channel_s hrx_fabric_report_channel_t;

/* The bytes a channel of |capacity| reports allocates (what a memory
 * budget should be charged). */
HRX_API uint64_t hrx_fabric_report_channel_footprint(uint32_t capacity);

/* A channel for |capacity| reports (1..HRX_FABRIC_SANITIZER_MAX_CAPACITY,
 * else INVALID_ARGUMENT), reference counted. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_report_channel_create(
    uint32_t capacity, hrx_allocator_t allocator,
    hrx_fabric_report_channel_t** out_channel);
HRX_API void hrx_fabric_report_channel_retain(
    hrx_fabric_report_channel_t* channel);
HRX_API void hrx_fabric_report_channel_release(
    hrx_fabric_report_channel_t* channel);
HRX_API uint32_t hrx_fabric_report_channel_capacity(
    const hrx_fabric_report_channel_t* channel);

/* The reports the channel holds now (at most its capacity). */
HRX_API size_t hrx_fabric_report_channel_count(
    const hrx_fabric_report_channel_t* channel);

/* Moves the reports collected so far into |out_reports| (room for
 * hrx_fabric_report_channel_count of them), oldest first, and empties the
 * channel: |out_count| reports, with the findings dropped since the last
 * drain in |out_dropped|. |report_size| is the caller's
 * sizeof(hrx_fabric_sanitizer_report_t), the array's stride: each report
 * is written by hrx/core/struct.h's output rule with that struct_size, so
 * a program built against another release reads its own layout. A size
 * below the first release's is INVALID_ARGUMENT and drains nothing. Call
 * it (and count) only once the work reporting into the channel has
 * completed, from one thread at a time. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_report_channel_drain(
    hrx_fabric_report_channel_t* channel, size_t report_size,
    hrx_fabric_sanitizer_report_t* out_reports, size_t* out_count,
    uint64_t* out_dropped);

/* Dispatches completing |signal| from now on run in report mode into
 * |channel| (retained by the signal), or trap again when it is NULL.
 * Change it only while no work completing |signal| is queued. */
HRX_API void hrx_fabric_signal_set_report_channel(
    hrx_fabric_signal_t* signal, hrx_fabric_report_channel_t* channel);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_SANITIZER_H_ */
