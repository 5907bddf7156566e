/* TensorOps plans: per shape, a session of the ops' context adopting the
 * compiled kernels and binding the operands' regions in place, with a
 * PreparedModel whose private slots each own an input and an output
 * region. */
#include <string.h>

#include "model_internal.h"
#include "tensor_ops_internal.h"

struct hrx_model_tensor_plan_t {
  hrx_model_tensor_ops_t* ops;
  hrx_model_tensor_spec_t spec;
  hrx_model_session_t* session;
  hrx_model_prepared_t* prepared;
  /* The operands' regions, as the plan's session names them. */
  hrx_model_region_t operands[HRX_MODEL_LINEAR_MAX_PROJECTIONS];
  hrx_model_tensor_plan_t* next; /* in the ops' retired list */
};

/* The spec being pinned on this thread: PlanCache prepares on the
 * pinning thread, so this is how prepare learns what to build. */
static _Thread_local const hrx_model_tensor_spec_t* hrx_model_tensor_pending;

static uint64_t hrx_model_tensor_key(const hrx_model_tensor_spec_t* spec) {
  const uint8_t* bytes = (const uint8_t*)spec;
  uint64_t hash = 0xcbf29ce484222325ull; /* FNV-1a */
  for (size_t i = 0; i < sizeof(*spec); ++i) {
    hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  }
  return hash;
}

/* The buffer behind |region| of |session|, retained. Scratch and foreign
 * regions are INVALID_ARGUMENT. */
static hrx_status_t hrx_model_tensor_region_buffer(
    hrx_model_session_t* session, hrx_model_region_t region,
    hrx_gpu_buffer_t** out_buffer, uint64_t* out_bytes) {
  hrx_model_binding_t whole = {region, 0, 0, HRX_GPU_ACCESS_READ};
  hrx_gpu_view_t view = {0};
  pthread_mutex_lock(&session->mutex);
  hrx_status_t status =
      hrx_model_session_resolve(session, &whole, false, false, &view);
  if (status == HRX_OK) hrx_gpu_buffer_retain(view.buffer);
  pthread_mutex_unlock(&session->mutex);
  HRX_RETURN_IF_ERROR(status);
  *out_buffer = view.buffer;
  *out_bytes = view.length;
  return HRX_OK;
}

/* Names |buffer| (taking the reference) in |session| as a read-only
 * region of |bytes| whose memory and charge belong to another session of
 * the context: the plan binds the ops' operands in place. It is marked
 * as frozen weights, the kind of region a session holds without having
 * charged it and never writes. */
static hrx_status_t hrx_model_tensor_region_alias(
    hrx_model_session_t* s, hrx_gpu_buffer_t* buffer, uint64_t bytes,
    hrx_model_region_t* out_region) {
  pthread_mutex_lock(&s->mutex);
  hrx_status_t status = hrx_allocator_grow_array(
      s->allocator, sizeof(*s->regions), s->region_count + 1,
      &s->region_capacity, (void**)&s->regions);
  if (status == HRX_OK) {
    s->regions[s->region_count] = (hrx_model_region_rec_t){
        .buffer = buffer, .weight = true, .frozen = true, .bytes = bytes};
    out_region->bits = hrx_model_id_make(s, s->region_count++);
  }
  pthread_mutex_unlock(&s->mutex);
  if (status != HRX_OK) hrx_gpu_buffer_release(buffer);
  return status;
}

/* Binds the spec's operands in the plan's session. */
static hrx_status_t hrx_model_tensor_plan_operands(
    hrx_model_tensor_plan_t* plan) {
  const hrx_model_tensor_spec_t* spec = &plan->spec;
  size_t count = spec->op == HRX_MODEL_TENSOR_OP_LINEAR ? spec->count : 1;
  for (size_t i = 0; i < count; ++i) {
    hrx_gpu_buffer_t* buffer = NULL;
    uint64_t bytes = 0;
    hrx_status_t status = hrx_model_tensor_region_buffer(
        plan->ops->session, spec->operands[i].binding.region, &buffer, &bytes);
    if (status == HRX_OK) {
      status = hrx_model_tensor_region_alias(plan->session, buffer, bytes,
                                             &plan->operands[i]);
    }
    if (status != HRX_OK) return hrx_status_annotate(status, "operand %zu", i);
  }
  return HRX_OK;
}

/* |spec|'s operand |i| as the plan's session names it. */
static hrx_model_io_t hrx_model_tensor_plan_operand(
    const hrx_model_tensor_plan_t* plan, size_t i) {
  hrx_model_io_t io = plan->spec.operands[i];
  io.binding.region = plan->operands[i];
  return io;
}

/* Slot |slot| of a linear plan: x in, the projections' rows out of one
 * region, one output tensor per projection. */
static hrx_status_t hrx_model_tensor_linear_slot(hrx_model_tensor_plan_t* plan,
                                                 hrx_model_session_t* session,
                                                 uint32_t slot,
                                                 hrx_model_slot_graph_t* out) {
  const hrx_model_tensor_spec_t* spec = &plan->spec;
  uint64_t k = spec->operands[0].desc.shape[1];
  uint64_t rows = 0;
  for (size_t p = 0; p < spec->count; ++p) {
    rows += spec->operands[p].desc.shape[0];
  }
  uint64_t size = hrx_model_dtype_size(spec->output);
  hrx_model_region_t x = {0}, y = {0};
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, k * 2, HRX_MODEL_PLACEMENT_DEVICE, &x));
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, rows * size, HRX_MODEL_PLACEMENT_COHERENT, &y));
  hrx_model_linear_fragment_t f = {
      .input = {{x, 0, 0, HRX_GPU_ACCESS_READ},
                {HRX_MODEL_DTYPE_BF16, 2, {1, k}, {0}}},
      .count = spec->count,
      .output = {{y, 0, 0, HRX_GPU_ACCESS_WRITE},
                 {spec->output, 2, {1, rows}, {0}}},
  };
  for (size_t p = 0; p < spec->count; ++p) {
    f.weights[p] = hrx_model_tensor_plan_operand(plan, p);
  }
  HRX_RETURN_IF_ERROR(hrx_model_tensor_record_linear(session, slot, &f));
  *out = (hrx_model_slot_graph_t){
      .graph = slot, .input_count = 1, .output_count = spec->count};
  out->inputs[0] =
      (hrx_model_io_t){{x, 0, 0, HRX_GPU_ACCESS_WRITE}, f.input.desc};
  uint64_t first = 0;
  for (size_t p = 0; p < spec->count; ++p) {
    uint64_t n = spec->operands[p].desc.shape[0];
    out->outputs[p] =
        (hrx_model_io_t){{y, first * size, n * size, HRX_GPU_ACCESS_READ},
                         {spec->output, 2, {1, n}, {0}}};
    first += n;
  }
  return HRX_OK;
}

/* Slot |slot| of a gather plan: the count and indices in, the bucket's
 * rows out. */
static hrx_status_t hrx_model_tensor_gather_slot(hrx_model_tensor_plan_t* plan,
                                                 hrx_model_session_t* session,
                                                 uint32_t slot,
                                                 hrx_model_slot_graph_t* out) {
  const hrx_model_tensor_spec_t* spec = &plan->spec;
  const hrx_model_tensor_desc_t* table = &spec->operands[0].desc;
  uint64_t capacity = spec->capacity;
  uint64_t row_bytes = table->shape[1] * hrx_model_dtype_size(table->dtype);
  hrx_model_region_t indices = {0}, rows = {0};
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, (capacity + 1) * 4, HRX_MODEL_PLACEMENT_DEVICE, &indices));
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, capacity * row_bytes, HRX_MODEL_PLACEMENT_COHERENT, &rows));
  hrx_model_gather_fragment_t f = {
      .table = hrx_model_tensor_plan_operand(plan, 0),
      .capacity = capacity,
      .indices = {{indices, 0, 0, HRX_GPU_ACCESS_READ},
                  {HRX_MODEL_DTYPE_I32, 1, {capacity + 1}, {0}}},
      .output = {{rows, 0, 0, HRX_GPU_ACCESS_WRITE},
                 {table->dtype, 2, {capacity, table->shape[1]}, {0}}},
  };
  HRX_RETURN_IF_ERROR(hrx_model_tensor_record_gather(session, slot, &f));
  *out = (hrx_model_slot_graph_t){
      .graph = slot, .input_count = 1, .output_count = 1};
  out->inputs[0] =
      (hrx_model_io_t){{indices, 0, 0, HRX_GPU_ACCESS_WRITE}, f.indices.desc};
  out->outputs[0] =
      (hrx_model_io_t){{rows, 0, 0, HRX_GPU_ACCESS_READ}, f.output.desc};
  return HRX_OK;
}

static hrx_status_t hrx_model_tensor_slot_factory(void* user,
                                                  hrx_model_session_t* session,
                                                  uint32_t slot,
                                                  hrx_model_slot_graph_t* out) {
  hrx_model_tensor_plan_t* plan = user;
  return plan->spec.op == HRX_MODEL_TENSOR_OP_LINEAR
             ? hrx_model_tensor_linear_slot(plan, session, slot, out)
             : hrx_model_tensor_gather_slot(plan, session, slot, out);
}

static void hrx_model_tensor_plan_free(hrx_model_tensor_plan_t* plan) {
  hrx_model_prepared_destroy(plan->prepared);
  hrx_model_session_destroy(plan->session);
  hrx_allocator_free(plan->ops->allocator, plan);
}

static hrx_status_t hrx_model_tensor_plan_build(hrx_model_tensor_plan_t* plan) {
  hrx_model_tensor_ops_t* ops = plan->ops;
  HRX_RETURN_IF_ERROR(
      hrx_model_session_create_in(ops->context, &plan->session));
  hrx_model_kernel_t kernels[HRX_MODEL_TENSOR_DEVICE_KERNELS];
  if (hrx_model_frozen_kernel_count(ops->kernels) >
      HRX_MODEL_TENSOR_DEVICE_KERNELS) {
    return hrx_make_status(HRX_STATUS_INTERNAL, "unexpected tensor kernels");
  }
  HRX_RETURN_IF_ERROR(
      hrx_model_session_adopt(plan->session, ops->kernels, NULL, kernels));
  HRX_RETURN_IF_ERROR(hrx_model_tensor_plan_operands(plan));
  return hrx_model_prepare(plan->session, ops->slots,
                           hrx_model_tensor_slot_factory, plan,
                           &plan->prepared);
}

hrx_status_t hrx_model_tensor_plan_prepare(void* user, uint64_t key,
                                           void** out_plan) {
  (void)key;
  hrx_model_tensor_ops_t* ops = user;
  const hrx_model_tensor_spec_t* spec = hrx_model_tensor_pending;
  if (!spec) {
    return hrx_make_status(HRX_STATUS_INTERNAL, "no tensor plan request");
  }
  hrx_model_tensor_plan_t* plan = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(ops->allocator, sizeof(*plan), (void**)&plan));
  plan->ops = ops;
  memcpy(&plan->spec, spec, sizeof(*spec)); /* padding too: keys compare it */
  hrx_status_t status = hrx_model_tensor_plan_build(plan);
  if (status != HRX_OK) {
    hrx_model_tensor_plan_free(plan);
    return hrx_status_annotate(status, "preparing a tensor plan");
  }
  *out_plan = plan;
  return HRX_OK;
}

/* Whether every slot is back (its tensors released). */
static bool hrx_model_tensor_plan_idle(hrx_model_tensor_plan_t* plan) {
  hrx_model_prepared_t* p = plan->prepared;
  pthread_mutex_lock(&p->mutex);
  bool idle = p->free_count + p->disabled_count == p->slot_count;
  pthread_mutex_unlock(&p->mutex);
  return idle;
}

void hrx_model_tensor_plan_evicted(void* user, void* opaque) {
  hrx_model_tensor_ops_t* ops = user;
  hrx_model_tensor_plan_t* plan = opaque;
  if (hrx_model_tensor_plan_idle(plan)) {
    hrx_model_tensor_plan_free(plan);
    return;
  }
  /* A tensor still leases one of its slots: free it once that is over. */
  pthread_mutex_lock(&ops->mutex);
  plan->next = ops->retired;
  ops->retired = plan;
  ops->retired_count++;
  pthread_mutex_unlock(&ops->mutex);
}

void hrx_model_tensor_plan_reap(hrx_model_tensor_ops_t* ops, bool all) {
  hrx_model_tensor_plan_t* done = NULL;
  pthread_mutex_lock(&ops->mutex);
  for (hrx_model_tensor_plan_t** at = &ops->retired; *at;) {
    hrx_model_tensor_plan_t* plan = *at;
    if (all || hrx_model_tensor_plan_idle(plan)) {
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
    hrx_model_tensor_plan_t* next = done->next;
    hrx_model_tensor_plan_free(done);
    done = next;
  }
}

hrx_status_t hrx_model_tensor_plan_pin(hrx_model_tensor_ops_t* ops,
                                       const hrx_model_tensor_spec_t* spec,
                                       hrx_model_tensor_plan_t** out_plan,
                                       uint64_t* out_key) {
  *out_plan = NULL;
  uint64_t key = hrx_model_tensor_key(spec);
  void* opaque = NULL;
  hrx_model_tensor_pending = spec;
  hrx_status_t status = hrx_model_plan_cache_pin(ops->plans, key, &opaque);
  hrx_model_tensor_pending = NULL;
  HRX_RETURN_IF_ERROR(status);
  hrx_model_tensor_plan_t* plan = opaque;
  if (memcmp(&plan->spec, spec, sizeof(*spec)) != 0) {
    hrx_status_free(hrx_model_plan_cache_unpin(ops->plans, key));
    return hrx_make_status(HRX_STATUS_INTERNAL,
                           "tensor plan key 0x%016llx names two shapes",
                           (unsigned long long)key);
  }
  *out_plan = plan;
  *out_key = key;
  return HRX_OK;
}

hrx_status_t hrx_model_tensor_plan_run(hrx_model_tensor_plan_t* plan,
                                       hrx_model_write_fn write, void* user,
                                       hrx_model_tensor_t** out_tensors,
                                       hrx_model_slot_t** out_slot) {
  hrx_model_slot_t* slot = NULL;
  hrx_status_t status = hrx_model_prepared_try_acquire(plan->prepared, &slot);
  if (status != HRX_OK) {
    return hrx_status_annotate(status,
                               "every slot of this tensor plan holds "
                               "unreleased tensors");
  }
  if (out_slot) *out_slot = slot;
  return hrx_model_slot_submit_host_with(slot, write, user, out_tensors);
}
