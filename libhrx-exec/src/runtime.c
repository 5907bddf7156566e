/* The runtime: one stream per lane, the budget, submissions in flight and
 * the quarantine of completions released early. */
#include <string.h>

#include "exec_internal.h"

const char* hrx_exec_version(void) { return HRX_EXEC_VERSION; }

/* Copies may run on the device's transfer queue (SDMA on a kfd device,
 * host memory operations on the host device), dispatches on a kfd
 * device's PM4 queue; the host device's compute queues take AQL only. */
static hrx_status_t hrx_exec_check_engines(
    const hrx_gpu_device_t* device, const hrx_exec_runtime_options_t* o) {
  if ((unsigned)o->copy_engine > HRX_EXEC_COPY_ENGINE_SDMA ||
      (unsigned)o->compute_engine > HRX_EXEC_COMPUTE_ENGINE_PM4) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown copy engine %d or compute engine %d",
                           (int)o->copy_engine, (int)o->compute_engine);
  }
  const hrx_fabric_device_properties_t* props =
      hrx_gpu_device_properties(device);
  if (o->compute_engine == HRX_EXEC_COMPUTE_ENGINE_PM4 &&
      props->kind == HRX_FABRIC_DEVICE_HOST) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "%s takes AQL packets only, not PM4", props->name);
  }
  return HRX_OK;
}

hrx_status_t hrx_exec_runtime_create(
    hrx_gpu_device_t* device, const hrx_exec_runtime_options_t* caller_options,
    hrx_allocator_t allocator, hrx_exec_runtime_t** out_runtime) {
  *out_runtime = NULL;
  if (!device) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no device");
  }
  hrx_exec_runtime_options_t local;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_exec_runtime_options_t,
                                      maximum_private_bytes, caller_options,
                                      &local));
  const hrx_exec_runtime_options_t* options = &local;
  HRX_RETURN_IF_ERROR(hrx_exec_check_engines(device, options));
  if (options->maximum_private_bytes >
                     hrx_gpu_device_maximum_private_bytes(device)) {
    hrx_status_t status = hrx_gpu_device_set_maximum_private_bytes(
        device, options->maximum_private_bytes);
    if (status != HRX_OK) {
      return hrx_status_annotate(
          status, "the runtime asks for %llu private bytes per work-item, "
                  "the device's queues provide %llu",
          (unsigned long long)options->maximum_private_bytes,
          (unsigned long long)hrx_gpu_device_maximum_private_bytes(device));
    }
  }
  hrx_exec_runtime_t* rt = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*rt), (void**)&rt));
  rt->allocator = allocator;
  rt->device = device;
  hrx_gpu_device_retain(device);
  rt->max_submissions =
      options->max_submissions ? options->max_submissions : 64;
  rt->trace = options->trace;
  hrx_trace_retain(rt->trace);
  rt->observe = rt->trace || options->observe;
  rt->region_timeout_ns = hrx_exec_region_timeout(options);
  atomic_init(&rt->abandoned, false);
  pthread_mutex_init(&rt->mutex, NULL);
  hrx_status_t status = HRX_OK;
  if (options->memory_budget) {
    rt->budget = options->memory_budget;
    hrx_budget_retain(rt->budget);
  } else {
    status = hrx_budget_create(HRX_BUDGET_UNLIMITED, allocator, &rt->budget);
  }
  if (status == HRX_OK &&
      options->copy_engine == HRX_EXEC_COPY_ENGINE_SDMA) {
    status = hrx_fabric_transfer_queue_create(hrx_gpu_device_fabric(device),
                                              &rt->transfer);
  }
  if (status == HRX_OK &&
      options->compute_engine == HRX_EXEC_COMPUTE_ENGINE_PM4) {
    status = hrx_fabric_pm4_queue_create(hrx_gpu_device_fabric(device),
                                         &rt->pm4);
  }
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT && status == HRX_OK; ++lane) {
    status = hrx_gpu_stream_create(device, &rt->lanes[lane]);
    if (status == HRX_OK) {
      hrx_gpu_stream_set_memory_budget(rt->lanes[lane], rt->budget);
      if (rt->observe) {
        status = hrx_exec_watcher_start(rt, (hrx_exec_lane_t)lane);
      }
    }
  }
  if (status != HRX_OK) {
    hrx_exec_runtime_destroy(rt);
    return status;
  }
  *out_runtime = rt;
  return HRX_OK;
}

static bool hrx_exec_events_done(hrx_gpu_event_t* const* events) {
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (events[lane] && !hrx_gpu_event_is_complete(events[lane])) return false;
  }
  return true;
}

static void hrx_exec_flight_free(hrx_exec_flight_t* flight) {
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    hrx_gpu_event_release(flight->events[lane]);
  }
  hrx_exec_plan_release(flight->plan);
}

void hrx_exec_runtime_prune(hrx_exec_runtime_t* rt) {
  /* A lane that finished its work frees its transfer staging (and
   * uncharges the budget) now rather than at its next submission. */
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (rt->lanes[lane]) {
      hrx_status_free(hrx_gpu_stream_synchronize(rt->lanes[lane], 0));
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < rt->flight_count; ++i) {
    if (hrx_exec_events_done(rt->flights[i].events)) {
      hrx_exec_flight_free(&rt->flights[i]);
    } else {
      rt->flights[kept++] = rt->flights[i];
    }
  }
  rt->flight_count = kept;
  kept = 0;
  for (size_t i = 0; i < rt->quarantine_count; ++i) {
    if (hrx_exec_events_done(rt->quarantine[i]->events)) {
      hrx_exec_completion_free(rt->quarantine[i]);
    } else {
      rt->quarantine[kept++] = rt->quarantine[i];
    }
  }
  rt->quarantine_count = kept;
}

void hrx_exec_runtime_destroy(hrx_exec_runtime_t* rt) {
  if (!rt) return;
  /* After a wait gave up on it, work still running is presumed stuck:
   * cancelling it makes its end certain, so nothing below waits forever
   * and nothing is freed while the device may touch it. */
  if (atomic_load(&rt->abandoned)) {
    for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
      if (rt->lanes[lane]) hrx_gpu_stream_cancel(rt->lanes[lane]);
    }
  }
  /* A queue presumed hung is stopped first: whatever it runs may hold the
   * engine the lanes need too (the KFD model runs every queue on one
   * processor thread), and nothing of it is waited for anyway. */
  if (rt->hung_fence[HRX_EXEC_ENGINE_TRANSFER]) {
    hrx_fabric_transfer_queue_abort(rt->transfer);
    rt->transfer = NULL;
  }
  if (rt->hung_fence[HRX_EXEC_ENGINE_PM4]) {
    hrx_fabric_pm4_queue_abort(rt->pm4);
    rt->pm4 = NULL;
  }
  /* Streams wait for their work when destroyed; after that every flight
   * and quarantined completion has ended. */
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    hrx_gpu_stream_destroy(rt->lanes[lane]);
    rt->lanes[lane] = NULL;
  }
  /* Each region was waited for when submitted: a queue still holding
   * work stopped on a fault or is presumed hung (its region timed out),
   * and stopping it for good loses nothing. */
  if (rt->transfer) {
    hrx_status_t busy = hrx_fabric_transfer_queue_destroy(rt->transfer);
    if (busy != HRX_OK) {
      hrx_status_free(busy);
      hrx_fabric_transfer_queue_abort(rt->transfer);
    }
  }
  if (rt->pm4) {
    hrx_status_t busy = hrx_fabric_pm4_queue_destroy(rt->pm4);
    if (busy != HRX_OK) {
      hrx_status_free(busy);
      hrx_fabric_pm4_queue_abort(rt->pm4);
    }
  }
  for (int engine = 0; engine < HRX_EXEC_ENGINE_LANE; ++engine) {
    hrx_exec_plan_release(rt->hung_plan[engine]);
  }
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    hrx_exec_watcher_stop(&rt->watchers[lane]);
  }
  hrx_trace_release(rt->trace);
  hrx_exec_runtime_prune(rt);
  for (size_t i = 0; i < rt->flight_count; ++i) {
    hrx_exec_flight_free(&rt->flights[i]);
  }
  for (size_t i = 0; i < rt->quarantine_count; ++i) {
    hrx_exec_completion_free(rt->quarantine[i]);
  }
  hrx_allocator_free(rt->allocator, rt->flights);
  hrx_allocator_free(rt->allocator, rt->quarantine);
  hrx_allocator_free(rt->allocator, rt->node_events);
#if HRX_EXEC_NPU
  hrx_exec_npu_imports_release(rt->npu_imports);
#endif
  pthread_mutex_destroy(&rt->mutex);
  hrx_budget_release(rt->budget);
  hrx_gpu_device_t* device = rt->device;
  hrx_allocator_free(rt->allocator, rt);
  hrx_gpu_device_release(device);
}

hrx_status_t hrx_exec_buffer_allocate(hrx_exec_runtime_t* rt, uint64_t bytes,
                                      hrx_gpu_buffer_t** out_buffer) {
  *out_buffer = NULL;
  pthread_mutex_lock(&rt->mutex);
  hrx_status_t status = hrx_gpu_stream_allocate(
      rt->lanes[HRX_EXEC_LANE_COMPUTE], bytes, out_buffer);
  pthread_mutex_unlock(&rt->mutex);
  return status;
}

hrx_status_t hrx_exec_runtime_statistics(hrx_exec_runtime_t* rt,
                                         hrx_exec_statistics_t* out_stats) {
  pthread_mutex_lock(&rt->mutex);
  hrx_exec_runtime_prune(rt);
  hrx_exec_statistics_t stats = rt->stats;
  pthread_mutex_unlock(&rt->mutex);
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    stats.lane_busy_ns[lane] = hrx_exec_watcher_busy_ns(&rt->watchers[lane]);
  }
  stats.live_bytes = hrx_budget_live_bytes(rt->budget);
  stats.peak_bytes = hrx_budget_peak_bytes(rt->budget);
  return HRX_STRUCT_WRITE(hrx_exec_statistics_t, npu_staged_bytes, &stats,
                          out_stats);
}
