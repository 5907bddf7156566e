/* The pieces TensorOps and ImageOps share: their embedded kernels, the ops
 * object and its per-shape plans. */
#include <string.h>

#include "model_internal.h"
#include "model_kernels.h"
#include "ops_common.h"

#define HRX_MODEL_OPS_DEFAULT_SLOTS 3
#define HRX_MODEL_OPS_MAX_SLOTS 64
/* The most kernels one kind compiles (the image ops' six). */
#define HRX_MODEL_OPS_MAX_KERNELS 8

hrx_status_t hrx_model_ops_compile(hrx_model_session_t* session,
                                   const hrx_model_ops_kernel_t* kernels,
                                   size_t count,
                                   hrx_model_kernel_t* out_kernels) {
  hrx_model_source_t sources[HRX_MODEL_OPS_MAX_KERNELS];
  size_t order[HRX_MODEL_OPS_MAX_KERNELS];
  hrx_model_kernel_t compiled[HRX_MODEL_OPS_MAX_KERNELS];
  if (count > HRX_MODEL_OPS_MAX_KERNELS) {
    return hrx_make_status(HRX_STATUS_INTERNAL,
                           "%zu kernels in one batch: at most %d", count,
                           HRX_MODEL_OPS_MAX_KERNELS);
  }
  /* Precompiled code objects first; the rest compile in one batch. */
  size_t pending = 0;
  for (size_t i = 0; i < count; ++i) {
    const hrx_model_embedded_kernel_t* k =
        hrx_model_kernel_lookup(kernels[i].file);
    if (!k) {
      return hrx_make_status(HRX_STATUS_INTERNAL, "kernel %s is not embedded",
                             kernels[i].file);
    }
    hrx_model_source_t source = {k->source, k->length, kernels[i].file,
                                 kernels[i].export_name};
    bool found = false;
    HRX_RETURN_IF_ERROR(hrx_model_precompiled_load(
        session, kernels[i].file, &source, &out_kernels[i], &found));
    if (!found) {
      sources[pending] = source;
      order[pending++] = i;
    }
  }
  if (pending == 0) return HRX_OK;
  HRX_RETURN_IF_ERROR(
      hrx_model_session_compile(session, sources, pending, compiled));
  for (size_t p = 0; p < pending; ++p) out_kernels[order[p]] = compiled[p];
  return HRX_OK;
}

hrx_status_t hrx_model_ops_operand(hrx_model_binding_t binding, uint64_t bytes,
                                   hrx_gpu_access_t access, const char* what,
                                   hrx_model_arg_t* out_arg) {
  if (binding.length == 0) {
    binding.length = bytes;
  } else if (binding.length < bytes) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s needs %llu bytes; its binding has %llu", what,
                           (unsigned long long)bytes,
                           (unsigned long long)binding.length);
  }
  binding.access = access;
  *out_arg = (hrx_model_arg_t){HRX_GPU_ARG_BINDING, 0, binding};
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Plans                                                                   */
/*===------------------------------------------------------------------===*/

static uint64_t hrx_model_ops_key(const void* spec, size_t size) {
  const uint8_t* bytes = spec;
  uint64_t hash = 0xcbf29ce484222325ull; /* FNV-1a */
  for (size_t i = 0; i < size; ++i) {
    hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  }
  return hash;
}

/* The copy of its spec |plan| keeps. */
static const void* hrx_model_ops_plan_spec(const hrx_model_ops_plan_t* plan) {
  return (const uint8_t*)plan + plan->ops->kind->spec_offset;
}

static void hrx_model_ops_plan_free(hrx_model_ops_plan_t* plan) {
  hrx_model_prepared_destroy(plan->prepared);
  hrx_model_session_destroy(plan->session);
  hrx_allocator_free(plan->ops->allocator, plan);
}

/* The plan's session, holding the ops' kernels and what the kind binds,
 * and its prepared model. */
static hrx_status_t hrx_model_ops_plan_build(hrx_model_ops_plan_t* plan,
                                             const void* request) {
  hrx_model_ops_t* ops = plan->ops;
  HRX_RETURN_IF_ERROR(
      hrx_model_session_create_in(ops->context, &plan->session));
  hrx_model_kernel_t kernels[HRX_MODEL_OPS_MAX_KERNELS];
  if (hrx_model_frozen_kernel_count(ops->kernels) > HRX_MODEL_OPS_MAX_KERNELS) {
    return hrx_make_status(HRX_STATUS_INTERNAL, "unexpected %s kernels",
                           ops->kind->name);
  }
  HRX_RETURN_IF_ERROR(
      hrx_model_session_adopt(plan->session, ops->kernels, NULL, kernels));
  HRX_RETURN_IF_ERROR(ops->kind->bind(plan, request));
  return hrx_model_prepare(plan->session, ops->slots, ops->kind->factory, plan,
                           &plan->prepared);
}

/* PlanCache callbacks; user: the ops. */
static hrx_status_t hrx_model_ops_plan_prepare(void* user, uint64_t key,
                                               const void* request,
                                               void** out_plan) {
  (void)key;
  hrx_model_ops_t* ops = user;
  const hrx_model_ops_kind_t* kind = ops->kind;
  hrx_model_ops_plan_t* plan = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(ops->allocator, kind->plan_size, (void**)&plan));
  plan->ops = ops;
  /* Padding too: pins compare it. */
  memcpy((uint8_t*)plan + kind->spec_offset, request, kind->spec_size);
  hrx_status_t status = hrx_model_ops_plan_build(plan, request);
  if (status != HRX_OK) {
    hrx_model_ops_plan_free(plan);
    return hrx_status_annotate(status, "preparing a %s plan", kind->name);
  }
  *out_plan = plan;
  return HRX_OK;
}

static void hrx_model_ops_plan_destroy(void* user, void* plan) {
  (void)user;
  hrx_model_ops_plan_free(plan);
}

/* Whether every slot is back: no tensor leases one. */
static bool hrx_model_ops_plan_idle(void* user, void* plan) {
  (void)user;
  return hrx_model_prepared_idle(((hrx_model_ops_plan_t*)plan)->prepared);
}

/* Pins the plan of |request|; unpin with |out_key|. */
static hrx_status_t hrx_model_ops_pin(hrx_model_ops_t* ops, const void* request,
                                      hrx_model_ops_plan_t** out_plan,
                                      uint64_t* out_key) {
  size_t spec_size = ops->kind->spec_size;
  uint64_t key = hrx_model_ops_key(request, spec_size);
  void* opaque = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_model_plan_cache_pin(ops->plans, key, request, &opaque));
  hrx_model_ops_plan_t* plan = opaque;
  if (memcmp(hrx_model_ops_plan_spec(plan), request, spec_size) != 0) {
    hrx_status_free(hrx_model_plan_cache_unpin(ops->plans, key));
    return hrx_make_status(HRX_STATUS_INTERNAL,
                           "%s plan key 0x%016llx names two shapes",
                           ops->kind->name, (unsigned long long)key);
  }
  *out_plan = plan;
  *out_key = key;
  return HRX_OK;
}

hrx_status_t hrx_model_ops_call(hrx_model_ops_t* ops, const void* request,
                                hrx_model_write_fn write, void* user,
                                hrx_model_tensor_t** out_tensors,
                                hrx_model_slot_t** out_slot) {
  hrx_model_ops_plan_t* plan = NULL;
  uint64_t key = 0;
  HRX_RETURN_IF_ERROR(hrx_model_ops_pin(ops, request, &plan, &key));
  hrx_model_slot_t* slot = NULL;
  hrx_status_t status = hrx_model_prepared_try_acquire(plan->prepared, &slot);
  if (status != HRX_OK) {
    status = hrx_status_annotate(status,
                                 "every slot of this %s plan holds "
                                 "unreleased tensors",
                                 ops->kind->name);
  } else {
    if (out_slot) *out_slot = slot;
    status = hrx_model_slot_submit_host_with(slot, write, user, out_tensors);
  }
  /* The tensors keep the slot; a plan evicted under them is retired. The
   * unpin cannot fail: this call holds the pin. */
  hrx_status_free(hrx_model_plan_cache_unpin(ops->plans, key));
  return status;
}

hrx_status_t hrx_model_ops_write_input(void* user, void* staging,
                                       uint64_t length) {
  const hrx_model_ops_input_t* input = user;
  if (length != input->bytes) {
    return hrx_make_status(
        HRX_STATUS_INTERNAL, "the plan takes %llu input bytes, not %llu",
        (unsigned long long)length, (unsigned long long)input->bytes);
  }
  if (length) memcpy(staging, input->data, length);
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Ops                                                                     */
/*===------------------------------------------------------------------===*/

/* Compiles the kind's kernels in a session of |ops|' context and freezes
 * them, so every plan adopts them without compiling. */
static hrx_status_t hrx_model_ops_kernels(hrx_model_ops_t* ops) {
  hrx_model_session_t* session = NULL;
  HRX_RETURN_IF_ERROR(hrx_model_session_create_in(ops->context, &session));
  hrx_status_t status = ops->kind->compile(session);
  if (status == HRX_OK) {
    status = hrx_model_session_freeze(session, &ops->kernels);
  }
  hrx_model_session_destroy(session);
  return status;
}

hrx_status_t hrx_model_ops_create(const hrx_model_ops_kind_t* kind,
                                  hrx_model_session_t* session,
                                  const hrx_model_plan_ops_options_t* options,
                                  hrx_model_ops_t** out_ops) {
  *out_ops = NULL;
  hrx_model_plan_ops_options_t o;
  HRX_RETURN_IF_ERROR(
      HRX_STRUCT_READ(hrx_model_plan_ops_options_t, slots_per_plan, options,
                      &o));
  if (!session || o.slots_per_plan > HRX_MODEL_OPS_MAX_SLOTS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s ops need a session and 1..%d slots per plan "
                           "(got %u)",
                           kind->name, HRX_MODEL_OPS_MAX_SLOTS,
                           o.slots_per_plan);
  }
  hrx_model_context_t* context = hrx_model_session_context(session);
  hrx_model_ops_t* ops = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(context->allocator, kind->ops_size, (void**)&ops));
  ops->kind = kind;
  ops->allocator = context->allocator;
  ops->context = context;
  hrx_model_context_retain(context);
  ops->slots =
      o.slots_per_plan ? o.slots_per_plan : HRX_MODEL_OPS_DEFAULT_SLOTS;
  hrx_model_plan_cache_options_t cache =
      HRX_STRUCT_INIT(hrx_model_plan_cache_options_t);
  cache.capacity = o.plan_capacity ? o.plan_capacity : kind->default_plans;
  cache.prepare = hrx_model_ops_plan_prepare;
  cache.destroy = hrx_model_ops_plan_destroy;
  cache.idle = hrx_model_ops_plan_idle;
  cache.user = ops;
  hrx_status_t status =
      hrx_model_plan_cache_create(&cache, ops->allocator, &ops->plans);
  if (status == HRX_OK) status = hrx_model_ops_kernels(ops);
  if (status != HRX_OK) {
    hrx_model_ops_destroy(ops);
    return hrx_status_annotate(status, "creating %s ops", kind->name);
  }
  *out_ops = ops;
  return HRX_OK;
}

void hrx_model_ops_destroy(hrx_model_ops_t* ops) {
  if (!ops) return;
  hrx_model_plan_cache_destroy(ops->plans);
  hrx_model_frozen_release(ops->kernels);
  hrx_model_context_t* context = ops->context;
  hrx_allocator_free(ops->allocator, ops);
  hrx_model_context_release(context);
}

hrx_status_t hrx_model_ops_stats(hrx_model_ops_t* ops,
                                 hrx_model_plan_ops_stats_t* out_stats) {
  hrx_model_plan_ops_stats_t stats =
      HRX_STRUCT_INIT(hrx_model_plan_ops_stats_t);
  stats.plans.struct_size = sizeof(stats.plans);
  HRX_RETURN_IF_ERROR(hrx_model_plan_cache_stats(ops->plans, &stats.plans));
  stats.retired = stats.plans.retired;
  return HRX_STRUCT_WRITE(hrx_model_plan_ops_stats_t, retired, &stats,
                          out_stats);
}
