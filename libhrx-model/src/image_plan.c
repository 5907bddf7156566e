/* ImageOps plans: per shape, a session of the ops' context adopting the
 * compiled kernels and the images it samples, with a PreparedModel whose
 * private slots each own an input and an output region. */
#include <string.h>

#include "image_internal.h"
#include "model_internal.h"

struct hrx_model_image_plan_t {
  hrx_model_image_ops_t* ops;
  hrx_model_image_request_t request; /* images: borrowed while building */
  hrx_model_session_t* session;
  hrx_model_prepared_t* prepared;
  hrx_model_region_t images[2]; /* adopted */
  hrx_model_image_plan_t* next; /* in the ops' retired list */
};

/* The request being pinned on this thread: PlanCache prepares on the
 * pinning thread, so this is how prepare learns what to build. */
static _Thread_local const hrx_model_image_request_t* hrx_model_image_pending;

static uint64_t hrx_model_image_key(const hrx_model_image_spec_t* spec) {
  const uint8_t* bytes = (const uint8_t*)spec;
  uint64_t hash = 0xcbf29ce484222325ull; /* FNV-1a */
  for (size_t i = 0; i < sizeof(*spec); ++i) {
    hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  }
  return hash;
}

/* Records slot |slot|'s graph (key |slot|) over its regions. */
static hrx_status_t hrx_model_image_plan_record(hrx_model_image_plan_t* plan,
                                                uint32_t slot,
                                                hrx_model_region_t input,
                                                hrx_model_region_t output) {
  const hrx_model_image_spec_t* spec = &plan->request.spec;
  hrx_model_session_t* s = plan->session;
  hrx_model_binding_t in = {input, 0, 0, HRX_GPU_ACCESS_READ};
  hrx_model_binding_t out = {output, 0, 0, HRX_GPU_ACCESS_WRITE};
  hrx_model_binding_t first = {plan->images[0], 0, 0, HRX_GPU_ACCESS_READ};
  hrx_model_binding_t second = {plan->images[1], 0, 0, HRX_GPU_ACCESS_READ};
  switch (spec->op) {
    case HRX_MODEL_IMAGE_OP_AFFINE:
      return hrx_model_image_record_affine(s, slot, &spec->affine, first, in,
                                           out);
    case HRX_MODEL_IMAGE_OP_NORMALIZE:
      return hrx_model_image_record_normalize(s, slot, &spec->normalize, first,
                                              in, out);
    case HRX_MODEL_IMAGE_OP_RESIZE:
      return hrx_model_image_record_resize(s, slot, &spec->resize, first, out);
    case HRX_MODEL_IMAGE_OP_COMPOSITE:
      return hrx_model_image_record_composite(s, slot, &spec->composite, first,
                                              second, out);
  }
  return hrx_make_status(HRX_STATUS_INTERNAL, "unknown image op %d",
                         (int)spec->op);
}

static hrx_status_t hrx_model_image_slot_factory(void* user,
                                                 hrx_model_session_t* session,
                                                 uint32_t slot,
                                                 hrx_model_slot_graph_t* out) {
  hrx_model_image_plan_t* plan = user;
  const hrx_model_image_request_t* r = &plan->request;
  uint64_t output_bytes = 0;
  HRX_RETURN_IF_ERROR(hrx_model_tensor_desc_extent(&r->output, &output_bytes));
  hrx_model_region_t input = {0}, output = {0};
  if (r->input_bytes) {
    HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
        session, r->input_bytes, HRX_MODEL_PLACEMENT_DEVICE, &input));
  }
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, output_bytes, HRX_MODEL_PLACEMENT_COHERENT, &output));
  HRX_RETURN_IF_ERROR(hrx_model_image_plan_record(plan, slot, input, output));
  *out = (hrx_model_slot_graph_t){.graph = slot, .output_count = 1};
  if (r->input_bytes) {
    out->input_count = 1;
    out->inputs[0] = (hrx_model_io_t){
        {input, 0, 0, HRX_GPU_ACCESS_WRITE},
        {HRX_MODEL_DTYPE_F32, 1, {r->input_bytes / sizeof(float)}, {0}}};
  }
  out->outputs[0] =
      (hrx_model_io_t){{output, 0, 0, HRX_GPU_ACCESS_READ}, r->output};
  return HRX_OK;
}

static void hrx_model_image_plan_free(hrx_model_image_plan_t* plan) {
  hrx_model_prepared_destroy(plan->prepared);
  hrx_model_session_destroy(plan->session);
  hrx_allocator_free(plan->ops->allocator, plan);
}

static hrx_status_t hrx_model_image_plan_build(hrx_model_image_plan_t* plan) {
  hrx_model_image_ops_t* ops = plan->ops;
  HRX_RETURN_IF_ERROR(
      hrx_model_session_create_in(ops->context, &plan->session));
  hrx_model_kernel_t kernels[HRX_MODEL_IMAGE_KERNEL_COUNT];
  if (hrx_model_frozen_kernel_count(ops->kernels) >
      HRX_MODEL_IMAGE_KERNEL_COUNT) {
    return hrx_make_status(HRX_STATUS_INTERNAL, "unexpected image kernels");
  }
  HRX_RETURN_IF_ERROR(
      hrx_model_session_adopt(plan->session, ops->kernels, NULL, kernels));
  for (size_t i = 0; i < plan->request.image_count; ++i) {
    HRX_RETURN_IF_ERROR(hrx_model_session_adopt(plan->session,
                                                plan->request.images[i]->frozen,
                                                &plan->images[i], NULL));
  }
  return hrx_model_prepare(plan->session, ops->slots,
                           hrx_model_image_slot_factory, plan, &plan->prepared);
}

hrx_status_t hrx_model_image_plan_prepare(void* user, uint64_t key,
                                          void** out_plan) {
  (void)key;
  hrx_model_image_ops_t* ops = user;
  const hrx_model_image_request_t* request = hrx_model_image_pending;
  if (!request) {
    return hrx_make_status(HRX_STATUS_INTERNAL, "no image plan request");
  }
  hrx_model_image_plan_t* plan = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(ops->allocator, sizeof(*plan), (void**)&plan));
  plan->ops = ops;
  plan->request = *request;
  hrx_status_t status = hrx_model_image_plan_build(plan);
  /* The plan's session holds the images it adopted, not the caller's. */
  plan->request.images[0] = plan->request.images[1] = NULL;
  if (status != HRX_OK) {
    hrx_model_image_plan_free(plan);
    return hrx_status_annotate(status, "preparing an image plan");
  }
  *out_plan = plan;
  return HRX_OK;
}

/* Whether every slot is back (its tensors released). */
static bool hrx_model_image_plan_idle(hrx_model_image_plan_t* plan) {
  hrx_model_prepared_t* p = plan->prepared;
  pthread_mutex_lock(&p->mutex);
  bool idle = p->free_count + p->disabled_count == p->slot_count;
  pthread_mutex_unlock(&p->mutex);
  return idle;
}

void hrx_model_image_plan_evicted(void* user, void* opaque) {
  hrx_model_image_ops_t* ops = user;
  hrx_model_image_plan_t* plan = opaque;
  if (hrx_model_image_plan_idle(plan)) {
    hrx_model_image_plan_free(plan);
    return;
  }
  /* A tensor still leases one of its slots: free it once that is over. */
  pthread_mutex_lock(&ops->mutex);
  plan->next = ops->retired;
  ops->retired = plan;
  ops->retired_count++;
  pthread_mutex_unlock(&ops->mutex);
}

void hrx_model_image_plan_reap(hrx_model_image_ops_t* ops, bool all) {
  hrx_model_image_plan_t* done = NULL;
  pthread_mutex_lock(&ops->mutex);
  for (hrx_model_image_plan_t** at = &ops->retired; *at;) {
    hrx_model_image_plan_t* plan = *at;
    if (all || hrx_model_image_plan_idle(plan)) {
      *at = plan->next;
      plan->next = done;
      done = plan;
      ops->retired_count--;
    } else {
      at = &plan->next;
    }
  }
  pthread_mutex_unlock(&ops->mutex);
  /* Destroying waits for the device: outside the lock. */
  while (done) {
    hrx_model_image_plan_t* next = done->next;
    hrx_model_image_plan_free(done);
    done = next;
  }
}

hrx_status_t hrx_model_image_plan_pin(hrx_model_image_ops_t* ops,
                                      const hrx_model_image_request_t* request,
                                      hrx_model_image_plan_t** out_plan,
                                      uint64_t* out_key) {
  *out_plan = NULL;
  uint64_t key = hrx_model_image_key(&request->spec);
  void* opaque = NULL;
  hrx_model_image_pending = request;
  hrx_status_t status = hrx_model_plan_cache_pin(ops->plans, key, &opaque);
  hrx_model_image_pending = NULL;
  HRX_RETURN_IF_ERROR(status);
  hrx_model_image_plan_t* plan = opaque;
  if (memcmp(&plan->request.spec, &request->spec, sizeof(request->spec))) {
    hrx_status_free(hrx_model_plan_cache_unpin(ops->plans, key));
    return hrx_make_status(HRX_STATUS_INTERNAL,
                           "image plan key 0x%016llx names two shapes",
                           (unsigned long long)key);
  }
  *out_plan = plan;
  *out_key = key;
  return HRX_OK;
}

typedef struct hrx_model_image_input_t {
  const void* data;
  uint64_t bytes;
} hrx_model_image_input_t;

static hrx_status_t hrx_model_image_write(void* user, void* staging,
                                          uint64_t length) {
  const hrx_model_image_input_t* input = user;
  if (length != input->bytes) {
    return hrx_make_status(
        HRX_STATUS_INTERNAL, "the plan takes %llu input bytes, not %llu",
        (unsigned long long)length, (unsigned long long)input->bytes);
  }
  if (length) memcpy(staging, input->data, length);
  return HRX_OK;
}

hrx_status_t hrx_model_image_plan_run(hrx_model_image_plan_t* plan,
                                      const void* input, uint64_t bytes,
                                      hrx_model_tensor_t** out_tensor) {
  hrx_model_slot_t* slot = NULL;
  hrx_status_t status = hrx_model_prepared_try_acquire(plan->prepared, &slot);
  if (status != HRX_OK) {
    return hrx_status_annotate(status,
                               "every slot of this image plan holds "
                               "unreleased tensors");
  }
  hrx_model_image_input_t data = {input, bytes};
  return hrx_model_slot_submit_host_with(slot, hrx_model_image_write, &data,
                                         out_tensor);
}
