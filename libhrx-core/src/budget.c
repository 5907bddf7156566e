#include "hrx/core/budget.h"

#include <inttypes.h>
#include <stdatomic.h>

struct hrx_budget_s {
  atomic_uint_fast32_t ref_count;
  hrx_allocator_t allocator;
  uint64_t limit_bytes;
  _Atomic uint64_t live_bytes;
  _Atomic uint64_t peak_bytes;
  _Atomic uint64_t failed_charges;
};

hrx_status_t hrx_budget_create(uint64_t limit_bytes, hrx_allocator_t allocator,
                               hrx_budget_t** out_budget) {
  *out_budget = NULL;
  hrx_budget_t* budget = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*budget), (void**)&budget));
  atomic_init(&budget->ref_count, 1);
  budget->allocator = allocator;
  budget->limit_bytes = limit_bytes;
  atomic_init(&budget->live_bytes, 0);
  atomic_init(&budget->peak_bytes, 0);
  atomic_init(&budget->failed_charges, 0);
  *out_budget = budget;
  return HRX_OK;
}

void hrx_budget_retain(hrx_budget_t* budget) {
  if (budget) atomic_fetch_add_explicit(&budget->ref_count, 1,
                                        memory_order_relaxed);
}

void hrx_budget_release(hrx_budget_t* budget) {
  if (!budget) return;
  if (atomic_fetch_sub_explicit(&budget->ref_count, 1,
                                memory_order_acq_rel) == 1) {
    hrx_allocator_free(budget->allocator, budget);
  }
}

hrx_status_t hrx_budget_charge(hrx_budget_t* budget, uint64_t bytes) {
  uint64_t live = atomic_load_explicit(&budget->live_bytes,
                                       memory_order_relaxed);
  uint64_t next;
  do {
    if (__builtin_add_overflow(live, bytes, &next) ||
        next > budget->limit_bytes) {
      atomic_fetch_add_explicit(&budget->failed_charges, 1,
                                memory_order_relaxed);
      return hrx_make_status(
          HRX_STATUS_RESOURCE_EXHAUSTED,
          "memory budget exhausted: requested %" PRIu64 " bytes, live %" PRIu64
          " bytes, limit %" PRIu64 " bytes",
          bytes, live, budget->limit_bytes);
    }
  } while (!atomic_compare_exchange_weak_explicit(
      &budget->live_bytes, &live, next, memory_order_acq_rel,
      memory_order_relaxed));
  uint64_t peak = atomic_load_explicit(&budget->peak_bytes,
                                       memory_order_relaxed);
  while (peak < next &&
         !atomic_compare_exchange_weak_explicit(&budget->peak_bytes, &peak,
                                                next, memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
  return HRX_OK;
}

hrx_status_t hrx_budget_uncharge(hrx_budget_t* budget, uint64_t bytes) {
  uint64_t live = atomic_load_explicit(&budget->live_bytes,
                                       memory_order_relaxed);
  do {
    if (bytes > live) {
      return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                             "memory budget uncharge of %" PRIu64
                             " bytes exceeds live %" PRIu64 " bytes",
                             bytes, live);
    }
  } while (!atomic_compare_exchange_weak_explicit(
      &budget->live_bytes, &live, live - bytes, memory_order_acq_rel,
      memory_order_relaxed));
  return HRX_OK;
}

uint64_t hrx_budget_live_bytes(const hrx_budget_t* budget) {
  return atomic_load_explicit(&((hrx_budget_t*)budget)->live_bytes,
                              memory_order_relaxed);
}

uint64_t hrx_budget_peak_bytes(const hrx_budget_t* budget) {
  return atomic_load_explicit(&((hrx_budget_t*)budget)->peak_bytes,
                              memory_order_relaxed);
}

uint64_t hrx_budget_limit_bytes(const hrx_budget_t* budget) {
  return budget->limit_bytes;
}

hrx_status_t hrx_budget_stats(const hrx_budget_t* budget,
                             hrx_budget_stats_t* out_stats) {
  hrx_budget_stats_t stats = {
      .live_bytes = hrx_budget_live_bytes(budget),
      .peak_bytes = hrx_budget_peak_bytes(budget),
      .limit_bytes = budget->limit_bytes,
      .failed_charges = atomic_load_explicit(
          &((hrx_budget_t*)budget)->failed_charges, memory_order_relaxed),
  };
  return HRX_STRUCT_WRITE(hrx_budget_stats_t, failed_charges, &stats,
                          out_stats);
}
