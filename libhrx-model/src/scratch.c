/* Private scratch: activation regions that all alias one arena, and the
 * audit at record time that makes the aliasing safe. */
#include "model_internal.h"

hrx_status_t hrx_model_session_scratch(hrx_model_session_t* s, uint64_t bytes,
                                       hrx_model_region_t* out_region) {
  out_region->bits = 0;
  if (bytes == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "scratch: zero bytes");
  }
  pthread_mutex_lock(&s->mutex);
  hrx_status_t status = hrx_allocator_grow_array(
      s->allocator, sizeof(*s->regions), s->region_count + 1,
      &s->region_capacity, (void**)&s->regions);
  if (status == HRX_OK &&
      (!s->arena || hrx_gpu_buffer_size(s->arena) < bytes)) {
    /* Regions on the old arena keep it; only later ones share the new. */
    status = hrx_model_budget_charge(s->budget, bytes, "scratch arena");
    hrx_gpu_buffer_t* arena = NULL;
    if (status == HRX_OK) {
      status = hrx_gpu_stream_allocate_placed(
          s->stream, bytes, HRX_FABRIC_VISIBILITY_DEVICE, &arena);
      if (status != HRX_OK) hrx_model_budget_uncharge(s->budget, bytes);
    }
    if (status == HRX_OK) {
      hrx_gpu_buffer_release(s->arena);
      s->arena = arena;
      s->scratch_charged += bytes;
    }
  }
  if (status == HRX_OK) {
    hrx_gpu_buffer_retain(s->arena);
    s->regions[s->region_count] = (hrx_model_region_rec_t){
        .buffer = s->arena, .scratch = true, .bytes = bytes};
    out_region->bits = hrx_model_id_make(s, s->region_count++);
  }
  pthread_mutex_unlock(&s->mutex);
  return status;
}

#define HRX_MODEL_NO_SCRATCH SIZE_MAX

static hrx_status_t hrx_model_scratch_stale(size_t dispatch, size_t region,
                                           size_t live) {
  if (live == HRX_MODEL_NO_SCRATCH) {
    return hrx_make_status(
        HRX_STATUS_INVALID_ARGUMENT,
        "dispatch %zu reads scratch region %zu before the graph writes it: "
        "scratch is private to a graph",
        dispatch, region);
  }
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "dispatch %zu reads scratch region %zu after scratch "
                         "region %zu overwrote the storage they share",
                         dispatch, region, live);
}

/* The scratch region a dispatch binds and how, or INVALID_ARGUMENT when
 * it binds two: they share storage, so at most one holds its data. */
static hrx_status_t hrx_model_scratch_of(const hrx_model_session_t* s,
                                         const hrx_model_dispatch_t* d,
                                         size_t dispatch, size_t* out_region,
                                         bool* out_reads, bool* out_writes) {
  *out_region = HRX_MODEL_NO_SCRATCH;
  *out_reads = *out_writes = false;
  for (size_t a = 0; a < d->arg_count; ++a) {
    const hrx_model_arg_t* arg = &d->args[a];
    if (arg->kind != HRX_GPU_ARG_BINDING) continue;
    /* Recording resolved every id already. */
    size_t index = (size_t)(arg->binding.region.bits & 0xffffffffu) - 1;
    if (!s->regions[index].scratch) continue;
    if (*out_region != HRX_MODEL_NO_SCRATCH && *out_region != index) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "dispatch %zu binds scratch regions %zu and %zu, "
                             "which share storage",
                             dispatch, *out_region, index);
    }
    *out_region = index;
    *out_reads |= arg->binding.access != HRX_GPU_ACCESS_WRITE;
    *out_writes |= arg->binding.access != HRX_GPU_ACCESS_READ;
  }
  return HRX_OK;
}

hrx_status_t hrx_model_scratch_audit(hrx_model_session_t* s,
                                     const hrx_model_dispatch_t* dispatches,
                                     size_t count) {
  /* The scratch region whose bytes the arena holds at this point. */
  size_t live = HRX_MODEL_NO_SCRATCH;
  for (size_t i = 0; i < count; ++i) {
    size_t region = 0;
    bool reads = false, writes = false;
    HRX_RETURN_IF_ERROR(
        hrx_model_scratch_of(s, &dispatches[i], i, &region, &reads, &writes));
    if (region == HRX_MODEL_NO_SCRATCH) continue;
    if (reads && live != region) {
      return hrx_model_scratch_stale(i, region, live);
    }
    if (writes) live = region;
  }
  return HRX_OK;
}
