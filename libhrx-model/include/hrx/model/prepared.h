/* PreparedModel: concurrent requests over a bounded set of private slots.
 *
 * Preparing calls a slot factory once per slot. Each call records (with
 * hrx_model_session_record) or picks the session graph that slot replays
 * and names the regions the request's inputs are written to and its
 * outputs read from. Every slot must declare the same inputs and outputs
 * (count and descriptors), and no two slots may share writable IO: inputs
 * and outputs of different slots must not overlap (INVALID_ARGUMENT at
 * prepare, naming the slots). Writable scratch two slots share is still
 * correct, only serialised: the runtime orders submissions whose ranges
 * conflict.
 *
 * A request: acquire a slot (try: BUSY when none is free; blocking; or
 * wait on the model's file descriptor, readable while a slot is free),
 * submit packed host inputs (copied, or written by a callback straight into
 * the slot's staging) and receive one DeviceTensor per output. The slot's
 * lease passes to those tensors: the slot is free again once every one of
 * them is released. On a slot's first request its exec graph (uploads from
 * its host staging, the session graph as a fragment, downloads into its
 * host readback storage) is recorded and its host storage allocated
 * (charged to the session's budget); later requests reuse both.
 *
 * Failures. A submission or producer that fails on the device disables
 * that slot only: it is never handed out again, and the others go on
 * (the runtime recovers the lanes a fault stopped before the next
 * submission: hrx/exec.h, Faults). A request already queued behind the
 * fault on a lane it stopped fails too, disabling its slot as well.
 * When every slot is disabled, acquiring is UNAVAILABLE.
 *
 * Threads. The prepared model and its slots may be used from any thread;
 * one slot by one thread at a time. It starts no threads.
 */
#ifndef HRX_MODEL_PREPARED_H_
#define HRX_MODEL_PREPARED_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/model/session.h"
#include "hrx/model/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_MODEL_MAX_IO 8

typedef struct hrx_model_prepared_s hrx_model_prepared_t;
typedef struct hrx_model_slot_s hrx_model_slot_t;

/* One input or output of a request: its descriptor, stored contiguously
 * (inputs) or as its strides say (outputs) from the binding's offset. The
 * binding's access is ignored (inputs are written, outputs read). */
typedef struct hrx_model_io_t {
  hrx_model_binding_t binding;
  hrx_model_tensor_desc_t desc;
} hrx_model_io_t;

/* What a slot factory returns for one slot. */
typedef struct hrx_model_slot_graph_t {
  uint64_t graph; /* a recorded session graph key */
  hrx_model_io_t inputs[HRX_MODEL_MAX_IO];
  size_t input_count;
  hrx_model_io_t outputs[HRX_MODEL_MAX_IO];
  size_t output_count; /* at least one */
} hrx_model_slot_graph_t;

typedef hrx_status_t (*hrx_model_slot_factory_fn)(
    void* user, hrx_model_session_t* session, uint32_t slot,
    hrx_model_slot_graph_t* out_graph);

/* Builds |slot_count| (1..64) slots through |factory|. The session must
 * outlive the prepared model. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_prepare(
    hrx_model_session_t* session, uint32_t slot_count,
    hrx_model_slot_factory_fn factory, void* user,
    hrx_model_prepared_t** out_prepared);
/* Waits for work in flight and frees the model. Every slot and tensor
 * must have been released. */
HRX_API void hrx_model_prepared_destroy(hrx_model_prepared_t* prepared);

HRX_API uint32_t hrx_model_prepared_slot_count(
    const hrx_model_prepared_t* prepared);
/* Slots disabled by failures. */
HRX_API uint32_t hrx_model_prepared_disabled_count(
    hrx_model_prepared_t* prepared);
/* The bytes of one request's packed inputs (inputs in order, no
 * padding). */
HRX_API uint64_t hrx_model_prepared_input_bytes(
    const hrx_model_prepared_t* prepared);
HRX_API size_t hrx_model_prepared_output_count(
    const hrx_model_prepared_t* prepared);

/* A free slot, or BUSY when none is. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_prepared_try_acquire(
    hrx_model_prepared_t* prepared, hrx_model_slot_t** out_slot);
/* Waits up to |timeout_ns| for a free slot; DEADLINE_EXCEEDED after. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_prepared_acquire(
    hrx_model_prepared_t* prepared, uint64_t timeout_ns,
    hrx_model_slot_t** out_slot);
/* A nonblocking eventfd, readable while at least one slot is free, for
 * poll/epoll loops; follow readiness with try_acquire (another thread may
 * win the slot: BUSY then). Owned by the model (do not read or close
 * it); the same fd on every call. */
HRX_API int hrx_model_prepared_fd(const hrx_model_prepared_t* prepared);

HRX_API uint32_t hrx_model_slot_index(const hrx_model_slot_t* slot);
/* Returns an unused slot. */
HRX_API void hrx_model_slot_release(hrx_model_slot_t* slot);

/* Writes a request's packed inputs (|length| bytes) into |staging|. */
typedef hrx_status_t (*hrx_model_write_fn)(void* user, void* staging,
                                           uint64_t length);

/* Submits one request: |write| fills the slot's host staging with the
 * packed inputs, then the slot's graph is submitted and out_outputs
 * (output_count tensors) receive the outputs. The slot is consumed either
 * way: on success its lease passes to the tensors; on failure it returns
 * to the model (or is disabled, when the device failed). A failing
 * |write| is returned as is. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_slot_submit_host_with(
    hrx_model_slot_t* slot, hrx_model_write_fn write, void* user,
    hrx_model_tensor_t** out_outputs);
/* As submit_host_with, copying |length| bytes of packed inputs from |data|
 * (|length| must equal the input bytes: INVALID_ARGUMENT otherwise). */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_slot_submit_host(
    hrx_model_slot_t* slot, const void* data, uint64_t length,
    hrx_model_tensor_t** out_outputs);

#ifdef __cplusplus
}
#endif

#endif /* HRX_MODEL_PREPARED_H_ */
