/* Reads into the session's combined readback storage: one host
 * allocation, grown as needed and reused by every read. */
#include "model_internal.h"

/* Grows the storage to |bytes|; mutex held. */
static hrx_status_t hrx_model_readback_reserve(hrx_model_session_t* s,
                                               uint64_t bytes) {
  if (bytes <= s->readback_bytes) return HRX_OK;
  void* grown = NULL;
  HRX_RETURN_IF_ERROR(hrx_model_host_alloc(s->allocator, s->budget, bytes,
                                           "readback storage", &grown));
  hrx_model_host_free(s->allocator, s->budget, s->readback, s->readback_bytes);
  s->readback = grown;
  s->readback_bytes = bytes;
  return HRX_OK;
}

/* Resolves the bindings, lays them out back to back and records their
 * downloads into |graph|; mutex held. */
static hrx_status_t hrx_model_readback_record(
    hrx_model_session_t* s, const hrx_model_binding_t* bindings, size_t count,
    hrx_exec_graph_t* graph, uint64_t* offsets) {
  uint64_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    hrx_gpu_view_t view = {0};
    hrx_status_t status =
        hrx_model_session_resolve(s, &bindings[i], false, false, &view);
    if (status != HRX_OK) return hrx_status_annotate(status, "read %zu", i);
    offsets[i] = total;
    total += view.length; /* views lie within allocations: no overflow */
  }
  HRX_RETURN_IF_ERROR(hrx_model_readback_reserve(s, total));
  for (size_t i = 0; i < count; ++i) {
    hrx_gpu_view_t view = {0};
    HRX_RETURN_IF_ERROR(
        hrx_model_session_resolve(s, &bindings[i], false, false, &view));
    hrx_exec_node_t node = 0;
    HRX_RETURN_IF_ERROR(hrx_exec_graph_download(
        graph, view, (uint8_t*)s->readback + offsets[i], &node));
  }
  return HRX_OK;
}

hrx_status_t hrx_model_session_read(hrx_model_session_t* s,
                                    const hrx_model_binding_t* bindings,
                                    size_t count, const void** out_data) {
  if (!bindings || !out_data || count == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "read needs bindings and room for their data");
  }
  uint64_t* offsets = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      s->allocator, count, sizeof(*offsets), (void**)&offsets));
  hrx_exec_graph_t* graph = NULL;
  hrx_exec_completion_t* completion = NULL;
  pthread_mutex_lock(&s->mutex);
  hrx_status_t status = hrx_exec_graph_create(s->runtime, &graph);
  if (status == HRX_OK) {
    status = hrx_model_readback_record(s, bindings, count, graph, offsets);
  }
  /* The runtime orders the downloads after earlier work on the same
   * bytes. The lock is held until they are delivered: another read could
   * otherwise move the storage they land in. */
  if (status == HRX_OK) status = hrx_exec_graph_submit(graph, &completion);
  if (status == HRX_OK) {
    status = hrx_exec_completion_wait(completion, HRX_TIMEOUT_INFINITE);
  }
  pthread_mutex_unlock(&s->mutex);
  if (status == HRX_OK) {
    for (size_t i = 0; i < count; ++i) {
      out_data[i] = (const uint8_t*)s->readback + offsets[i];
    }
  }
  hrx_exec_completion_release(completion);
  hrx_exec_graph_destroy(graph);
  hrx_allocator_free(s->allocator, offsets);
  return status;
}
