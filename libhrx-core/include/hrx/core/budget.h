/* Memory budgets: an atomic byte ceiling shared by many owners.
 *
 * A budget counts the bytes its owners say they hold (device allocations,
 * staging, weights, scratch). Owners charge before they allocate, so an
 * exhausted budget fails before any memory is taken, and uncharge after
 * they free. Budgets are reference counted; every function here is
 * thread-safe.
 */
#ifndef HRX_CORE_BUDGET_H_
#define HRX_CORE_BUDGET_H_

#include <stdint.h>

#include "hrx/core/allocator.h"
#include "hrx/core/api.h"
#include "hrx/core/status.h"
#include "hrx/core/struct.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_BUDGET_UNLIMITED UINT64_MAX

typedef struct hrx_budget_s hrx_budget_t;

typedef struct hrx_budget_stats_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint64_t live_bytes;
  uint64_t peak_bytes;
  uint64_t limit_bytes;
  uint64_t failed_charges;
} hrx_budget_stats_t;

/* Creates a budget with a ceiling of |limit_bytes| (HRX_BUDGET_UNLIMITED for
 * none) and a reference count of one. */
HRX_API HRX_MUST_USE hrx_status_t hrx_budget_create(
    uint64_t limit_bytes, hrx_allocator_t allocator, hrx_budget_t** out_budget);

HRX_API void hrx_budget_retain(hrx_budget_t* budget);
/* Drops a reference; the last one frees the budget. Bytes still charged
 * at that point are simply forgotten. NULL is accepted. */
HRX_API void hrx_budget_release(hrx_budget_t* budget);

/* Adds |bytes| to the live count, or fails with RESOURCE_EXHAUSTED naming
 * the requested, live and limit bytes when the ceiling would be passed (the
 * count is then unchanged). */
HRX_API HRX_MUST_USE hrx_status_t hrx_budget_charge(hrx_budget_t* budget,
                                                    uint64_t bytes);

/* Removes |bytes| from the live count. Uncharging more than is live is a
 * bookkeeping bug in the caller: it fails with FAILED_PRECONDITION and the
 * count is unchanged. */
HRX_API HRX_MUST_USE hrx_status_t hrx_budget_uncharge(hrx_budget_t* budget,
                                                      uint64_t bytes);

HRX_API uint64_t hrx_budget_live_bytes(const hrx_budget_t* budget);
HRX_API uint64_t hrx_budget_peak_bytes(const hrx_budget_t* budget);
HRX_API uint64_t hrx_budget_limit_bytes(const hrx_budget_t* budget);
HRX_API HRX_MUST_USE hrx_status_t hrx_budget_stats(
    const hrx_budget_t* budget, hrx_budget_stats_t* out_stats);

#ifdef __cplusplus
}
#endif

#endif /* HRX_CORE_BUDGET_H_ */
