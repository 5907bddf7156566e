/* The session: its runtime, stream, budget, id scheme and regions. */
#include <string.h>
#include <sys/random.h>

#include "model_internal.h"

const char* hrx_model_version(void) { return HRX_MODEL_VERSION; }

/* Ids carry a random per-session tag, so an id handed to another session
 * is caught without any process-wide registry. */
static uint32_t hrx_model_session_tag(const void* salt) {
  uint32_t tag = 0;
  if (getrandom(&tag, sizeof(tag), GRND_NONBLOCK) != sizeof(tag)) {
    tag = (uint32_t)(hrx_clock_monotonic_ns() ^ (uintptr_t)salt);
  }
  return tag ? tag : 1;
}

uint64_t hrx_model_id_make(const hrx_model_session_t* session, size_t index) {
  return ((uint64_t)session->tag << 32) | (uint64_t)(index + 1);
}

hrx_status_t hrx_model_id_index(const hrx_model_session_t* session,
                                uint64_t bits, size_t count, const char* what,
                                size_t* out_index) {
  uint64_t low = bits & 0xffffffffu;
  if ((uint32_t)(bits >> 32) != session->tag || low == 0 || low > count) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s id 0x%016llx does not belong to this session",
                           what, (unsigned long long)bits);
  }
  *out_index = (size_t)(low - 1);
  return HRX_OK;
}

hrx_status_t hrx_model_session_create(
    hrx_gpu_device_t* device, const hrx_model_session_options_t* options,
    hrx_allocator_t allocator, hrx_model_session_t** out_session) {
  *out_session = NULL;
  hrx_model_context_t* context = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_model_context_create(device, options, allocator, &context));
  hrx_status_t status = hrx_model_session_create_in(context, out_session);
  hrx_model_context_release(context); /* the session holds it now */
  return status;
}

hrx_status_t hrx_model_session_create_in(hrx_model_context_t* context,
                                         hrx_model_session_t** out_session) {
  *out_session = NULL;
  if (!context) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no context");
  }
  hrx_model_session_t* s = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(context->allocator, sizeof(*s), (void**)&s));
  s->allocator = context->allocator;
  s->context = context;
  hrx_model_context_retain(context);
  s->device = context->device;
  s->budget = context->budget;
  s->runtime = context->runtime;
  s->tag = hrx_model_session_tag(s);
  pthread_mutex_init(&s->mutex, NULL);
  hrx_status_t status = hrx_gpu_stream_create(s->device, &s->stream);
  if (status != HRX_OK) {
    hrx_model_session_destroy(s);
    return status;
  }
  *out_session = s;
  return HRX_OK;
}

void hrx_model_session_destroy(hrx_model_session_t* s) {
  if (!s) return;
  /* Graphs and contracts belong to the runtime, and submissions keep what
   * they use until the device is done; the stream waits for the direct
   * dispatches. The context (its runtime) goes last. */
  for (size_t i = 0; i < s->graph_count; ++i) {
    hrx_model_graph_rec_free(s, &s->graphs[i]);
  }
  hrx_gpu_stream_destroy(s->stream);
  for (size_t i = 0; i < s->kernel_count; ++i) {
    hrx_gpu_kernel_release(s->kernels[i].kernel);
  }
  for (size_t i = 0; i < s->region_count; ++i) {
    uint64_t bytes = hrx_gpu_buffer_size(s->regions[i].buffer);
    hrx_gpu_buffer_release(s->regions[i].buffer);
    if (!s->regions[i].frozen && !s->regions[i].scratch) {
      hrx_model_budget_uncharge(s->budget, bytes);
    }
  }
  hrx_gpu_buffer_release(s->arena);
  hrx_model_budget_uncharge(s->budget, s->scratch_charged);
  for (size_t i = 0; i < s->frozen_count; ++i) {
    hrx_model_frozen_release(s->frozen[i]);
  }
  hrx_model_host_free(s->allocator, s->budget, s->readback, s->readback_bytes);
  hrx_allocator_free(s->allocator, s->frozen);
  hrx_allocator_free(s->allocator, s->graphs);
  hrx_allocator_free(s->allocator, s->kernels);
  hrx_allocator_free(s->allocator, s->regions);
  pthread_mutex_destroy(&s->mutex);
  hrx_model_context_t* context = s->context;
  hrx_allocator_free(s->allocator, s);
  hrx_model_context_release(context);
}

hrx_model_context_t* hrx_model_session_context(const hrx_model_session_t* s) {
  return s->context;
}

hrx_gpu_device_t* hrx_model_session_device(const hrx_model_session_t* s) {
  return s->device;
}
hrx_exec_runtime_t* hrx_model_session_runtime(const hrx_model_session_t* s) {
  return s->runtime;
}
hrx_budget_t* hrx_model_session_budget(const hrx_model_session_t* s) {
  return s->budget;
}

/* Allocates (and, with |data|, fills) |count| regions as one charge;
 * mutex held. */
static hrx_status_t hrx_model_regions_add(hrx_model_session_t* s,
                                          const hrx_model_weight_t* items,
                                          size_t count, bool weight,
                                          hrx_fabric_visibility_t placement,
                                          const char* what,
                                          hrx_model_region_t* out_regions) {
  uint64_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    if (items[i].length == 0 || (weight && !items[i].data)) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "%s %zu: %s", what, i,
                             items[i].length ? "no data" : "zero bytes");
    }
    if (items[i].length > UINT64_MAX - total) {
      return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                             "%s: the total size overflows", what);
    }
    total += items[i].length;
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(
      s->allocator, sizeof(*s->regions), s->region_count + count,
      &s->region_capacity, (void**)&s->regions));
  HRX_RETURN_IF_ERROR(hrx_model_budget_charge(s->budget, total, what));
  size_t first = s->region_count;
  hrx_status_t status = HRX_OK;
  for (size_t i = 0; i < count && status == HRX_OK; ++i) {
    hrx_gpu_buffer_t* buffer = NULL;
    status = weight ? hrx_gpu_stream_allocate_from_placed(
                          s->stream, items[i].data, items[i].length,
                          placement, &buffer)
                    : hrx_gpu_stream_allocate_placed(
                          s->stream, items[i].length, placement, &buffer);
    if (status == HRX_OK) {
      s->regions[s->region_count++] = (hrx_model_region_rec_t){
          .buffer = buffer, .weight = weight, .bytes = items[i].length};
    }
  }
  if (status != HRX_OK) {
    while (s->region_count > first) {
      hrx_gpu_buffer_release(s->regions[--s->region_count].buffer);
    }
    hrx_model_budget_uncharge(s->budget, total);
    return hrx_status_annotate(status, "%s", what);
  }
  for (size_t i = 0; i < count; ++i) {
    out_regions[i].bits = hrx_model_id_make(s, first + i);
  }
  return HRX_OK;
}

static hrx_fabric_visibility_t hrx_model_visibility(
    hrx_model_placement_t placement) {
  return placement == HRX_MODEL_PLACEMENT_COHERENT
             ? HRX_FABRIC_VISIBILITY_HOST_COHERENT
             : HRX_FABRIC_VISIBILITY_DEVICE;
}

hrx_status_t hrx_model_session_allocate(hrx_model_session_t* s, uint64_t bytes,
                                        hrx_model_placement_t placement,
                                        hrx_model_region_t* out_region) {
  out_region->bits = 0;
  if ((unsigned)placement > HRX_MODEL_PLACEMENT_COHERENT) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown placement %d", (int)placement);
  }
  hrx_model_weight_t item = {NULL, bytes};
  pthread_mutex_lock(&s->mutex);
  hrx_status_t status = hrx_model_regions_add(
      s, &item, 1, false, hrx_model_visibility(placement), "allocation",
      out_region);
  pthread_mutex_unlock(&s->mutex);
  return status;
}

hrx_status_t hrx_model_session_weight(hrx_model_session_t* s, const void* data,
                                      uint64_t length,
                                      hrx_model_region_t* out_region) {
  hrx_model_weight_t item = {data, length};
  return hrx_model_session_load(s, &item, 1, out_region);
}

hrx_status_t hrx_model_session_load(hrx_model_session_t* s,
                                    const hrx_model_weight_t* weights,
                                    size_t count,
                                    hrx_model_region_t* out_regions) {
  if (!weights || !out_regions || count == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "load needs weights and room for their ids");
  }
  memset(out_regions, 0, count * sizeof(*out_regions));
  pthread_mutex_lock(&s->mutex);
  hrx_status_t status =
      hrx_model_regions_add(s, weights, count, true,
                            HRX_FABRIC_VISIBILITY_DEVICE, "weights",
                            out_regions);
  pthread_mutex_unlock(&s->mutex);
  return status;
}

hrx_status_t hrx_model_session_resolve(hrx_model_session_t* s,
                                       const hrx_model_binding_t* binding,
                                       bool writes, bool dispatch,
                                       hrx_gpu_view_t* out_view) {
  size_t index = 0;
  HRX_RETURN_IF_ERROR(hrx_model_id_index(s, binding->region.bits,
                                         s->region_count, "region", &index));
  const hrx_model_region_rec_t* rec = &s->regions[index];
  if (writes && rec->weight) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "region %zu holds %sweights, which are never "
                           "written",
                           index, rec->frozen ? "frozen (shared) " : "");
  }
  if (rec->scratch && !dispatch) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "region %zu is private scratch: only recorded "
                           "dispatches bind it",
                           index);
  }
  hrx_gpu_view_t whole = {rec->buffer, 0, rec->bytes};
  uint64_t length = binding->length;
  if (length == 0) {
    if (binding->offset >= whole.length) {
      return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                             "offset %llu is past region %zu (%llu bytes)",
                             (unsigned long long)binding->offset, index,
                             (unsigned long long)whole.length);
    }
    length = whole.length - binding->offset;
  }
  return hrx_gpu_view_slice(whole, binding->offset, length, out_view);
}

hrx_status_t hrx_model_session_alias(hrx_model_session_t* s,
                                     hrx_model_session_t* owner,
                                     hrx_model_region_t region,
                                     hrx_model_region_t* out_region) {
  out_region->bits = 0;
  if (owner->context != s->context) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "an alias names a region of a session of the "
                           "same context");
  }
  hrx_model_binding_t whole = {region, 0, 0, HRX_GPU_ACCESS_READ};
  hrx_gpu_view_t view = {0};
  pthread_mutex_lock(&owner->mutex);
  hrx_status_t status =
      hrx_model_session_resolve(owner, &whole, false, false, &view);
  if (status == HRX_OK) hrx_gpu_buffer_retain(view.buffer);
  pthread_mutex_unlock(&owner->mutex);
  HRX_RETURN_IF_ERROR(status);
  pthread_mutex_lock(&s->mutex);
  status = hrx_allocator_grow_array(s->allocator, sizeof(*s->regions),
                                    s->region_count + 1, &s->region_capacity,
                                    (void**)&s->regions);
  if (status == HRX_OK) {
    s->regions[s->region_count] = (hrx_model_region_rec_t){
        .buffer = view.buffer, .weight = true, .frozen = true,
        .bytes = view.length};
    out_region->bits = hrx_model_id_make(s, s->region_count++);
  }
  pthread_mutex_unlock(&s->mutex);
  if (status != HRX_OK) hrx_gpu_buffer_release(view.buffer);
  return status;
}

hrx_status_t hrx_model_session_region_view(hrx_model_session_t* s,
                                           hrx_model_region_t region,
                                           hrx_gpu_view_t* out_view) {
  *out_view = (hrx_gpu_view_t){0};
  hrx_model_binding_t binding = {region, 0, 0, HRX_GPU_ACCESS_READ};
  pthread_mutex_lock(&s->mutex);
  hrx_status_t status =
      hrx_model_session_resolve(s, &binding, false, false, out_view);
  pthread_mutex_unlock(&s->mutex);
  return status;
}
