/* The context: the runtime, budget and compiler its sessions share. */
#include "model_internal.h"

hrx_status_t hrx_model_context_create(
    hrx_gpu_device_t* device, const hrx_model_session_options_t* caller_options,
    hrx_allocator_t allocator, hrx_model_context_t** out_context) {
  *out_context = NULL;
  if (!device) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no device");
  }
  hrx_model_session_options_t local_options;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_model_session_options_t,
                                      code_provider, caller_options,
                                      &local_options));
  const hrx_model_session_options_t* options = &local_options;
  hrx_loom_compiler_options_t compiler_options;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_loom_compiler_options_t, logger,
                                      options->compiler, &compiler_options));
  if (options->code_provider && !options->code_provider->find) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a code provider needs a find callback");
  }
  hrx_model_context_t* c = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*c), (void**)&c));
  c->allocator = allocator;
  atomic_init(&c->references, 1);
  c->device = device;
  hrx_gpu_device_retain(device);
  pthread_mutex_init(&c->mutex, NULL);
  c->compiler_options = compiler_options;
  hrx_trace_retain(c->compiler_options.trace);
  atomic_init(&c->compiled, 0);
  atomic_init(&c->precompiled, 0);
  if (options->code_provider) {
    c->code_provider = *options->code_provider;
    c->has_code_provider = true;
  }
  hrx_status_t status = HRX_OK;
  if (options->memory_budget) {
    c->budget = options->memory_budget;
    hrx_budget_retain(c->budget);
  } else {
    status = hrx_budget_create(HRX_BUDGET_UNLIMITED, allocator, &c->budget);
  }
  if (status == HRX_OK) {
    hrx_exec_runtime_options_t runtime_options =
        HRX_STRUCT_INIT(hrx_exec_runtime_options_t);
    runtime_options.max_submissions = options->max_submissions;
    runtime_options.memory_budget = c->budget;
    status = hrx_exec_runtime_create(device, &runtime_options, allocator,
                                     &c->runtime);
  }
  if (status != HRX_OK) {
    hrx_model_context_release(c);
    return status;
  }
  *out_context = c;
  return HRX_OK;
}

void hrx_model_context_retain(hrx_model_context_t* c) {
  atomic_fetch_add_explicit(&c->references, 1, memory_order_relaxed);
}

void hrx_model_context_release(hrx_model_context_t* c) {
  if (!c || atomic_fetch_sub_explicit(&c->references, 1,
                                      memory_order_acq_rel) != 1) {
    return;
  }
  hrx_exec_runtime_destroy(c->runtime);
  hrx_loom_compiler_destroy(c->compiler);
  hrx_trace_release(c->compiler_options.trace);
  hrx_budget_release(c->budget);
  pthread_mutex_destroy(&c->mutex);
  hrx_gpu_device_t* device = c->device;
  hrx_allocator_free(c->allocator, c);
  hrx_gpu_device_release(device);
}

hrx_gpu_device_t* hrx_model_context_device(const hrx_model_context_t* c) {
  return c->device;
}
hrx_exec_runtime_t* hrx_model_context_runtime(const hrx_model_context_t* c) {
  return c->runtime;
}
hrx_budget_t* hrx_model_context_budget(const hrx_model_context_t* c) {
  return c->budget;
}

hrx_status_t hrx_model_context_kernel_stats(
    const hrx_model_context_t* c, hrx_model_kernel_stats_t* out_stats) {
  hrx_model_kernel_stats_t stats = {
      .compiled = atomic_load_explicit(&c->compiled, memory_order_relaxed),
      .precompiled =
          atomic_load_explicit(&c->precompiled, memory_order_relaxed)};
  return HRX_STRUCT_WRITE(hrx_model_kernel_stats_t, precompiled, &stats,
                          out_stats);
}

hrx_status_t hrx_model_context_compiler(hrx_model_context_t* c,
                                        hrx_loom_compiler_t** out_compiler) {
  hrx_status_t status = HRX_OK;
  pthread_mutex_lock(&c->mutex);
  if (!c->compiler) {
    const char* target = hrx_gpu_device_properties(c->device)->profile_target;
    status = hrx_loom_compiler_create(target, &c->compiler_options,
                                      c->allocator, &c->compiler);
  }
  *out_compiler = c->compiler;
  pthread_mutex_unlock(&c->mutex);
  return status;
}
