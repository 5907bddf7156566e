/* Graphs recorded under caller keys: dispatches with declared accesses,
 * replayed as one submission, embedded as fragments, or timed against
 * direct dispatch. */
#include <string.h>

#include "model_internal.h"

static void hrx_model_op_free(hrx_model_session_t* s, hrx_model_op_t* op) {
  hrx_exec_kernel_destroy(op->contract);
  hrx_allocator_free(s->allocator, op->workload);
  hrx_allocator_free(s->allocator, op->args);
}

void hrx_model_graph_rec_free(hrx_model_session_t* s,
                              hrx_model_graph_rec_t* rec) {
  hrx_exec_graph_destroy(rec->graph);
  for (size_t i = 0; i < rec->op_count; ++i) {
    hrx_model_op_free(s, &rec->ops[i]);
  }
  hrx_allocator_free(s->allocator, rec->ops);
}

hrx_model_graph_rec_t* hrx_model_session_graph(hrx_model_session_t* s,
                                               uint64_t key) {
  for (size_t i = 0; i < s->graph_count; ++i) {
    if (s->graphs[i].key == key) return &s->graphs[i];
  }
  return NULL;
}

static hrx_status_t hrx_model_access_check(hrx_gpu_access_t access) {
  if ((unsigned)access > HRX_GPU_ACCESS_WRITE) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "unknown access %d",
                           (int)access);
  }
  return HRX_OK;
}

/* Resolves |d| into |op|: views, copied workload and a contract holding
 * the declared accesses; mutex held. */
static hrx_status_t hrx_model_op_resolve(hrx_model_session_t* s,
                                         const hrx_model_dispatch_t* d,
                                         hrx_model_op_t* op) {
  size_t kernel = 0;
  HRX_RETURN_IF_ERROR(hrx_model_id_index(s, d->kernel.bits, s->kernel_count,
                                         "kernel", &kernel));
  if ((d->arg_count && !d->args) || (d->workload_count && !d->workload)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "arguments or workload missing");
  }
  op->kernel = s->kernels[kernel].kernel;
  hrx_exec_binding_contract_t* bindings = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      s->allocator, d->arg_count, sizeof(*op->args), (void**)&op->args));
  op->arg_count = d->arg_count;
  hrx_status_t status = hrx_allocator_malloc_array(
      s->allocator, d->workload_count, sizeof(*op->workload),
      (void**)&op->workload);
  if (status == HRX_OK) {
    op->workload_count = d->workload_count;
    if (d->workload_count) {
      memcpy(op->workload, d->workload,
             d->workload_count * sizeof(*op->workload));
    }
    status = hrx_allocator_malloc_array(s->allocator, d->arg_count,
                                        sizeof(*bindings), (void**)&bindings);
  }
  size_t binding_count = 0;
  for (size_t a = 0; a < d->arg_count && status == HRX_OK; ++a) {
    const hrx_model_arg_t* arg = &d->args[a];
    if (arg->kind == HRX_GPU_ARG_SCALAR) {
      op->args[a] = hrx_gpu_arg_scalar(arg->bits);
      continue;
    }
    if (arg->kind != HRX_GPU_ARG_BINDING) {
      status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "unknown argument kind %d", (int)arg->kind);
      break;
    }
    hrx_gpu_access_t access = arg->binding.access;
    status = hrx_model_access_check(access);
    hrx_gpu_view_t view = {0};
    if (status == HRX_OK) {
      status = hrx_model_session_resolve(
          s, &arg->binding, access != HRX_GPU_ACCESS_READ, true, &view);
    }
    if (status != HRX_OK) {
      status = hrx_status_annotate(status, "argument %zu", a);
      break;
    }
    op->args[a] = hrx_gpu_arg_binding(view, access);
    bindings[binding_count++] = (hrx_exec_binding_contract_t){
        .access = access, .min_bytes = view.length};
  }
  if (status == HRX_OK) {
    hrx_exec_kernel_contract_t contract = {
        .bindings = bindings,
        .binding_count = binding_count,
        .scalar_count = d->arg_count - binding_count,
    };
    status = hrx_exec_kernel_create(s->runtime, s->kernels[kernel].kernel,
                                    &contract, &op->contract);
  }
  hrx_allocator_free(s->allocator, bindings);
  return status;
}

static hrx_gpu_launch_t hrx_model_op_launch(const hrx_model_op_t* op) {
  return (hrx_gpu_launch_t){op->workload, op->workload_count, op->args,
                            op->arg_count};
}

hrx_status_t hrx_model_graph_record_ops(const hrx_model_graph_rec_t* rec,
                                        hrx_exec_graph_t* graph) {
  for (size_t i = 0; i < rec->op_count; ++i) {
    hrx_gpu_launch_t launch = hrx_model_op_launch(&rec->ops[i]);
    hrx_exec_node_t node = 0;
    hrx_status_t status =
        hrx_exec_graph_dispatch(graph, rec->ops[i].contract, &launch, &node);
    if (status != HRX_OK) {
      return hrx_status_annotate(status, "graph %llu, dispatch %zu",
                                 (unsigned long long)rec->key, i);
    }
  }
  return HRX_OK;
}

static hrx_status_t hrx_model_graph_build(hrx_model_session_t* s,
                                          const hrx_model_dispatch_t* d,
                                          size_t count,
                                          hrx_model_graph_rec_t* rec) {
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      s->allocator, count, sizeof(*rec->ops), (void**)&rec->ops));
  for (size_t i = 0; i < count; ++i) {
    hrx_status_t status = hrx_model_op_resolve(s, &d[i], &rec->ops[i]);
    rec->op_count = i + 1; /* a half-resolved op frees cleanly */
    if (status != HRX_OK) {
      return hrx_status_annotate(status, "dispatch %zu", i);
    }
  }
  HRX_RETURN_IF_ERROR(hrx_exec_graph_create(s->runtime, &rec->graph));
  return hrx_model_graph_record_ops(rec, rec->graph);
}

hrx_status_t hrx_model_session_record(hrx_model_session_t* s, uint64_t key,
                                      const hrx_model_dispatch_t* dispatches,
                                      size_t count) {
  if (!dispatches || count == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "graph %llu: no dispatches",
                           (unsigned long long)key);
  }
  pthread_mutex_lock(&s->mutex);
  hrx_status_t status = HRX_OK;
  if (hrx_model_session_graph(s, key)) {
    status = hrx_make_status(HRX_STATUS_ALREADY_EXISTS,
                             "graph %llu is already recorded",
                             (unsigned long long)key);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_grow_array(s->allocator, sizeof(*s->graphs),
                                      s->graph_count + 1, &s->graph_capacity,
                                      (void**)&s->graphs);
  }
  if (status == HRX_OK) {
    hrx_model_graph_rec_t rec = {.key = key};
    status = hrx_model_graph_build(s, dispatches, count, &rec);
    if (status == HRX_OK) {
      status = hrx_model_scratch_audit(s, dispatches, count);
    }
    if (status == HRX_OK) {
      s->graphs[s->graph_count++] = rec;
    } else {
      hrx_model_graph_rec_free(s, &rec);
      status = hrx_status_annotate(status, "recording graph %llu",
                                   (unsigned long long)key);
    }
  }
  pthread_mutex_unlock(&s->mutex);
  return status;
}

static hrx_status_t hrx_model_graph_missing(uint64_t key) {
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "no graph %llu is recorded",
                         (unsigned long long)key);
}

/* Submits graph |key|; the graph's plan is built on its first submission,
 * so submissions of one graph go through the lock. */
static hrx_status_t hrx_model_graph_submit(hrx_model_session_t* s,
                                           uint64_t key,
                                           hrx_exec_completion_t** out) {
  pthread_mutex_lock(&s->mutex);
  hrx_model_graph_rec_t* rec = hrx_model_session_graph(s, key);
  hrx_status_t status = rec ? hrx_exec_graph_submit(rec->graph, out)
                            : hrx_model_graph_missing(key);
  pthread_mutex_unlock(&s->mutex);
  return status;
}

hrx_status_t hrx_model_session_replay(hrx_model_session_t* s, uint64_t key,
                                      uint64_t timeout_ns) {
  hrx_exec_completion_t* completion = NULL;
  HRX_RETURN_IF_ERROR(hrx_model_graph_submit(s, key, &completion));
  hrx_status_t status = hrx_exec_completion_wait(completion, timeout_ns);
  hrx_exec_completion_release(completion);
  return status;
}

hrx_status_t hrx_model_session_record_into(hrx_model_session_t* s,
                                           uint64_t key,
                                           hrx_exec_graph_t* graph) {
  if (!graph) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no exec graph");
  }
  pthread_mutex_lock(&s->mutex);
  hrx_model_graph_rec_t* rec = hrx_model_session_graph(s, key);
  hrx_status_t status = rec ? hrx_model_graph_record_ops(rec, graph)
                            : hrx_model_graph_missing(key);
  pthread_mutex_unlock(&s->mutex);
  return status;
}

/* Each dispatch of |key| straight onto the session's stream, then a
 * synchronize: the cost replay is measured against. */
static hrx_status_t hrx_model_graph_direct(hrx_model_session_t* s,
                                           uint64_t key) {
  pthread_mutex_lock(&s->mutex);
  hrx_model_graph_rec_t* rec = hrx_model_session_graph(s, key);
  hrx_status_t status = rec ? HRX_OK : hrx_model_graph_missing(key);
  for (size_t i = 0; status == HRX_OK && i < rec->op_count; ++i) {
    hrx_gpu_launch_t launch = hrx_model_op_launch(&rec->ops[i]);
    status = hrx_gpu_stream_dispatch(s->stream, rec->ops[i].kernel, &launch);
  }
  if (status == HRX_OK) {
    status = hrx_gpu_stream_synchronize(s->stream, HRX_TIMEOUT_INFINITE);
  }
  pthread_mutex_unlock(&s->mutex);
  return status;
}

hrx_status_t hrx_model_session_time(hrx_model_session_t* s, uint64_t key,
                                    uint32_t iterations,
                                    hrx_model_timing_t* out_timing) {
  hrx_model_timing_t timing = HRX_STRUCT_INIT(hrx_model_timing_t);
  timing.iterations = iterations;
  /* Checks the caller's struct before the runs it would report. */
  HRX_RETURN_IF_ERROR(
      HRX_STRUCT_WRITE(hrx_model_timing_t, direct_ns, &timing, out_timing));
  if (iterations == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "timing needs at least one iteration");
  }
  uint64_t start = hrx_clock_monotonic_ns();
  for (uint32_t i = 0; i < iterations; ++i) {
    HRX_RETURN_IF_ERROR(
        hrx_model_session_replay(s, key, HRX_TIMEOUT_INFINITE));
  }
  uint64_t middle = hrx_clock_monotonic_ns();
  for (uint32_t i = 0; i < iterations; ++i) {
    HRX_RETURN_IF_ERROR(hrx_model_graph_direct(s, key));
  }
  uint64_t end = hrx_clock_monotonic_ns();
  timing.replay_ns = (middle - start) / iterations;
  timing.direct_ns = (end - middle) / iterations;
  return HRX_STRUCT_WRITE(hrx_model_timing_t, direct_ns, &timing, out_timing);
}
