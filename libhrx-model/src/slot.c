/* Slots: their exec graph and host storage (set up on first use), one
 * request at a time, and the lease output tensors hold. */
#include <string.h>

#include "model_internal.h"

uint32_t hrx_model_slot_index(const hrx_model_slot_t* slot) {
  return slot->index;
}

const uint8_t* hrx_model_slot_readback(const hrx_model_slot_t* slot) {
  return slot->readback;
}

void hrx_model_slot_lease_retain(hrx_model_slot_t* slot) {
  pthread_mutex_lock(&slot->prepared->mutex);
  slot->leases++;
  pthread_mutex_unlock(&slot->prepared->mutex);
}

/* The request is over for its consumers: keep a failure, drop the
 * completion (the runtime keeps what still runs alive) and recycle. */
static void hrx_model_slot_finish(hrx_model_slot_t* slot) {
  pthread_mutex_lock(&slot->mutex);
  if (slot->completion) {
    hrx_status_t status = hrx_exec_completion_poll(slot->completion);
    if (status != HRX_OK && !hrx_status_is(status, HRX_STATUS_BUSY)) {
      slot->failed = true;
    }
    hrx_status_free(status);
    hrx_exec_completion_release(slot->completion);
    slot->completion = NULL;
  }
  pthread_mutex_unlock(&slot->mutex);
  hrx_model_prepared_recycle(slot);
}

void hrx_model_slot_lease_release(hrx_model_slot_t* slot) {
  pthread_mutex_lock(&slot->prepared->mutex);
  bool last = --slot->leases == 0;
  pthread_mutex_unlock(&slot->prepared->mutex);
  if (last) hrx_model_slot_finish(slot);
}

void hrx_model_slot_release(hrx_model_slot_t* slot) {
  if (slot) hrx_model_slot_lease_release(slot);
}

hrx_status_t hrx_model_slot_wait(hrx_model_slot_t* slot, uint64_t timeout_ns) {
  pthread_mutex_lock(&slot->mutex);
  hrx_status_t status = HRX_OK;
  if (slot->completion) {
    status = hrx_exec_completion_wait(slot->completion, timeout_ns);
    if (status != HRX_OK &&
        !hrx_status_is(status, HRX_STATUS_DEADLINE_EXCEEDED)) {
      slot->failed = true;
    }
  }
  pthread_mutex_unlock(&slot->mutex);
  return status;
}

/* Records the slot's graph: uploads from its staging, the session graph
 * as a fragment, downloads into its readback storage. */
static hrx_status_t hrx_model_slot_record(hrx_model_slot_t* slot) {
  hrx_model_prepared_t* p = slot->prepared;
  hrx_model_session_t* session = p->session;
  hrx_exec_graph_t* graph = NULL;
  HRX_RETURN_IF_ERROR(hrx_exec_graph_create(session->runtime, &graph));
  hrx_status_t status = HRX_OK;
  hrx_exec_node_t node = 0;
  uint64_t offset = 0;
  for (size_t i = 0; i < slot->io.input_count && status == HRX_OK; ++i) {
    status = hrx_exec_graph_upload(graph, slot->inputs[i],
                                   (uint8_t*)slot->staging + offset, &node);
    offset += slot->inputs[i].length;
  }
  if (status == HRX_OK) {
    status = hrx_model_session_record_into(session, slot->io.graph, graph);
  }
  offset = 0;
  for (size_t i = 0; i < slot->io.output_count && status == HRX_OK; ++i) {
    status = hrx_exec_graph_download(graph, slot->outputs[i],
                                     (uint8_t*)slot->readback + offset, &node);
    offset += slot->outputs[i].length;
  }
  if (status != HRX_OK) {
    hrx_exec_graph_destroy(graph);
    return status;
  }
  slot->graph = graph;
  return HRX_OK;
}

static hrx_status_t hrx_model_slot_setup(hrx_model_slot_t* slot) {
  if (slot->graph) return HRX_OK;
  hrx_model_prepared_t* p = slot->prepared;
  hrx_budget_t* budget = p->session->budget;
  if (!slot->staging && p->input_bytes) {
    HRX_RETURN_IF_ERROR(hrx_model_host_alloc(p->allocator, budget,
                                             p->input_bytes, "slot staging",
                                             &slot->staging));
  }
  if (!slot->readback) {
    HRX_RETURN_IF_ERROR(hrx_model_host_alloc(p->allocator, budget,
                                             p->output_bytes, "slot readback",
                                             &slot->readback));
  }
  return hrx_model_slot_record(slot);
}

/* Submits the slot's graph and hands its outputs to new tensors. */
static hrx_status_t hrx_model_slot_launch(hrx_model_slot_t* slot,
                                          hrx_model_tensor_t** out_outputs) {
  hrx_model_prepared_t* p = slot->prepared;
  pthread_mutex_lock(&slot->mutex);
  hrx_status_t status = hrx_exec_graph_submit(slot->graph, &slot->completion);
  pthread_mutex_unlock(&slot->mutex);
  if (hrx_status_is(status, HRX_STATUS_ABORTED)) slot->failed = true;
  uint64_t offset = 0;
  size_t made = 0;
  for (size_t i = 0; i < slot->io.output_count && status == HRX_OK; ++i) {
    status = hrx_model_tensor_create(p->allocator, slot,
                                     &slot->io.outputs[i].desc,
                                     slot->outputs[i], offset,
                                     &out_outputs[i]);
    offset += slot->outputs[i].length;
    if (status == HRX_OK) made++;
  }
  if (status != HRX_OK) {
    for (size_t i = 0; i < made; ++i) {
      hrx_model_tensor_release(out_outputs[i]);
      out_outputs[i] = NULL;
    }
  }
  return status;
}

hrx_status_t hrx_model_slot_submit_host_with(hrx_model_slot_t* slot,
                                             hrx_model_write_fn write,
                                             void* user,
                                             hrx_model_tensor_t** out_outputs) {
  if (!slot) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no slot");
  }
  hrx_status_t status = HRX_OK;
  if (!write || !out_outputs) {
    status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "submit needs a writer and room for %zu outputs",
                             slot->io.output_count);
  }
  if (status == HRX_OK) {
    memset(out_outputs, 0, slot->io.output_count * sizeof(*out_outputs));
    status = hrx_model_slot_setup(slot);
  }
  if (status == HRX_OK) {
    status = write(user, slot->staging, slot->prepared->input_bytes);
  }
  if (status == HRX_OK) status = hrx_model_slot_launch(slot, out_outputs);
  /* The acquirer's lease ends here: on success the tensors hold theirs. */
  hrx_model_slot_lease_release(slot);
  return status;
}

typedef struct hrx_model_host_copy_t {
  const void* data;
  uint64_t length;
} hrx_model_host_copy_t;

static hrx_status_t hrx_model_host_copy(void* user, void* staging,
                                        uint64_t length) {
  const hrx_model_host_copy_t* copy = user;
  if (copy->length != length || !copy->data) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the model takes %llu bytes of packed inputs, "
                           "not %llu",
                           (unsigned long long)length,
                           (unsigned long long)copy->length);
  }
  if (length) memcpy(staging, copy->data, length);
  return HRX_OK;
}

hrx_status_t hrx_model_slot_submit_host(hrx_model_slot_t* slot,
                                        const void* data, uint64_t length,
                                        hrx_model_tensor_t** out_outputs) {
  hrx_model_host_copy_t copy = {data, length};
  return hrx_model_slot_submit_host_with(slot, hrx_model_host_copy, &copy,
                                         out_outputs);
}
