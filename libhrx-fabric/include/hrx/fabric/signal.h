/* Signals: 64-bit values that the device and the host update atomically
 * and that waiters block on, as HSA signals behave.
 *
 * A dispatch's completion signal is decremented when its last workgroup
 * ends; a dispatch that faults sets it to HRX_FABRIC_SIGNAL_FAULTED (-1) so
 * that "wait until < 1" waiters wake either way. Waiting spins for up to
 * 50 us, yielding the core between checks, and then sleeps on a futex; it
 * never busy-waits for longer. All operations are
 * thread-safe; signals are reference counted.
 */
#ifndef HRX_FABRIC_SIGNAL_H_
#define HRX_FABRIC_SIGNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_FABRIC_SIGNAL_FAULTED INT64_C(-1)

typedef struct hrx_fabric_signal_s hrx_fabric_signal_t;

typedef enum hrx_fabric_signal_condition_e {
  HRX_FABRIC_SIGNAL_EQ = 0,
  HRX_FABRIC_SIGNAL_NE,
  HRX_FABRIC_SIGNAL_LT,
  HRX_FABRIC_SIGNAL_GTE,
} hrx_fabric_signal_condition_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_signal_create(
    int64_t initial_value, hrx_allocator_t allocator,
    hrx_fabric_signal_t** out_signal);
HRX_API void hrx_fabric_signal_retain(hrx_fabric_signal_t* signal);
HRX_API void hrx_fabric_signal_release(hrx_fabric_signal_t* signal);

/* The value carried in AQL packets, and back. */
HRX_API uint64_t hrx_fabric_signal_handle(const hrx_fabric_signal_t* signal);
HRX_API hrx_fabric_signal_t* hrx_fabric_signal_from_handle(uint64_t handle);

HRX_API int64_t hrx_fabric_signal_load(const hrx_fabric_signal_t* signal);
HRX_API void hrx_fabric_signal_store(hrx_fabric_signal_t* signal,
                                     int64_t value);
/* Return the value before the operation. */
HRX_API int64_t hrx_fabric_signal_add(hrx_fabric_signal_t* signal,
                                      int64_t value);
HRX_API int64_t hrx_fabric_signal_subtract(hrx_fabric_signal_t* signal,
                                           int64_t value);
HRX_API int64_t hrx_fabric_signal_exchange(hrx_fabric_signal_t* signal,
                                           int64_t value);
/* Stores |desired| if the value is |expected|; returns the value seen. */
HRX_API int64_t hrx_fabric_signal_compare_exchange(
    hrx_fabric_signal_t* signal, int64_t expected, int64_t desired);

/* Abandons the device work that would complete |signal|, for work that
 * may never end (a kernel in an endless loop). From now on a queue skips
 * every packet whose completion signal this is, a dispatch running for it
 * stops at its next loop back-edge or workgroup barrier, and a barrier
 * packet waiting on dependencies gives up; each completes the signal as
 * faulted (HRX_FABRIC_SIGNAL_FAULTED) with a CANCELLED fault report. It is
 * permanent and returns at once: wait on the signal to know the work has
 * ended. Packets already completed are not affected. */
HRX_API void hrx_fabric_signal_cancel(hrx_fabric_signal_t* signal);
HRX_API bool hrx_fabric_signal_is_cancelled(const hrx_fabric_signal_t* signal);

/* Blocks until `value <condition> compare` holds or |timeout_ns| passes
 * (HRX_TIMEOUT_INFINITE waits forever): DEADLINE_EXCEEDED then.
 * |out_value| (may be NULL) receives the value that satisfied it. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_signal_wait(
    const hrx_fabric_signal_t* signal,
    hrx_fabric_signal_condition_t condition, int64_t compare,
    uint64_t timeout_ns, int64_t* out_value);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_SIGNAL_H_ */
