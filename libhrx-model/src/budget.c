/* Charging the session's budget before anything is allocated. */
#include "model_internal.h"

hrx_status_t hrx_model_budget_charge(hrx_budget_t* budget, uint64_t bytes,
                                     const char* what) {
  hrx_status_t status = hrx_budget_charge(budget, bytes);
  if (status == HRX_OK) return HRX_OK;
  return hrx_status_annotate(
      status, "%s: %llu bytes requested against a ceiling of %llu bytes",
      what, (unsigned long long)bytes,
      (unsigned long long)hrx_budget_limit_bytes(budget));
}

void hrx_model_budget_uncharge(hrx_budget_t* budget, uint64_t bytes) {
  /* Every uncharge matches a charge made here; a failure would be a
   * bookkeeping bug with nothing left to undo. */
  hrx_status_free(hrx_budget_uncharge(budget, bytes));
}

hrx_status_t hrx_model_host_alloc(hrx_allocator_t allocator,
                                  hrx_budget_t* budget, uint64_t bytes,
                                  const char* what, void** out_ptr) {
  *out_ptr = NULL;
  if (bytes > SIZE_MAX) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "%s: %llu bytes do not fit host memory", what,
                           (unsigned long long)bytes);
  }
  HRX_RETURN_IF_ERROR(hrx_model_budget_charge(budget, bytes, what));
  hrx_status_t status =
      hrx_allocator_malloc_uninitialized(allocator, (size_t)bytes, out_ptr);
  if (status != HRX_OK) hrx_model_budget_uncharge(budget, bytes);
  return status;
}

void hrx_model_host_free(hrx_allocator_t allocator, hrx_budget_t* budget,
                         void* ptr, uint64_t bytes) {
  if (!ptr) return;
  hrx_allocator_free(allocator, ptr);
  hrx_model_budget_uncharge(budget, bytes);
}
