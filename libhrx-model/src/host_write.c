/* Host bytes into a region, in the runtime's order: DEVICE regions have
 * no host pointer on gfx1151, so this is how the host fills them. */
#include "model_internal.h"

hrx_status_t hrx_model_session_write(hrx_model_session_t* s,
                                     const hrx_model_binding_t* binding,
                                     const void* data, uint64_t length) {
  if (!binding || !data || length == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "write needs a binding and nonempty data");
  }
  hrx_exec_graph_t* graph = NULL;
  hrx_exec_completion_t* completion = NULL;
  pthread_mutex_lock(&s->mutex);
  hrx_gpu_view_t view = {0};
  hrx_status_t status =
      hrx_model_session_resolve(s, binding, true, false, &view);
  if (status == HRX_OK && view.length != length) {
    status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "write of %llu bytes into a %llu-byte binding "
                             "(lengths must match)",
                             (unsigned long long)length,
                             (unsigned long long)view.length);
  }
  if (status == HRX_OK) status = hrx_exec_graph_create(s->runtime, &graph);
  hrx_exec_node_t node = 0;
  if (status == HRX_OK) {
    status = hrx_exec_graph_upload(graph, view, data, &node);
  }
  /* The runtime orders the upload after earlier work on the same bytes;
   * waiting makes |data| the caller's again on return. */
  if (status == HRX_OK) status = hrx_exec_graph_submit(graph, &completion);
  pthread_mutex_unlock(&s->mutex);
  if (status == HRX_OK) {
    status = hrx_exec_completion_wait(completion, HRX_TIMEOUT_INFINITE);
  }
  hrx_exec_completion_release(completion);
  hrx_exec_graph_destroy(graph);
  return status;
}
