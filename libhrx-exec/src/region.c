/* Host-ordered regions: consecutive copy nodes on the transfer queue
 * (copy_engine = SDMA) or dispatch nodes on the PM4 queue (compute_engine
 * = PM4) run as one batch under one fence, after the lanes drained, and
 * the host waits for that fence once before queuing what follows. Every
 * wait is bounded by the runtime's region timeout: a queue whose fence
 * did not pass in time is presumed hung and the runtime runs nothing more
 * on it (see hrx/exec.h, Timeouts). */
#include <inttypes.h>

#include "exec_internal.h"

/* Nanoseconds a region may take when the options leave it 0: long enough
 * for any real region (the KFD model under sanitizers included), short
 * enough that a hung engine is reported instead of blocking forever. */
#define HRX_EXEC_DEFAULT_REGION_TIMEOUT_NS (60ull * 1000000000ull)

uint64_t hrx_exec_region_timeout(const hrx_exec_runtime_options_t* options) {
  if (!options || !options->region_timeout_ns) {
    return HRX_EXEC_DEFAULT_REGION_TIMEOUT_NS;
  }
  return options->region_timeout_ns;
}

const char* hrx_exec_engine_name(const hrx_exec_runtime_t* rt,
                                 hrx_exec_engine_t engine) {
  return engine == HRX_EXEC_ENGINE_TRANSFER
             ? hrx_fabric_transfer_queue_name(rt->transfer)
             : hrx_fabric_pm4_queue_name(rt->pm4);
}

/* Transfer queues refuse copies between overlapping ranges; those stay on
 * the lane, whose copies define what overlap means on the device. */
static bool hrx_exec_copy_overlaps(const hrx_exec_node_rec_t* n) {
  return n->source.buffer == n->view.buffer &&
         n->source.offset < n->view.offset + n->view.length &&
         n->view.offset < n->source.offset + n->source.length;
}

hrx_exec_engine_t hrx_exec_node_engine(const hrx_exec_runtime_t* rt,
                                       const hrx_exec_node_rec_t* n) {
  if (rt->transfer && n->op == HRX_EXEC_OP_COPY &&
      !hrx_exec_copy_overlaps(n)) {
    return HRX_EXEC_ENGINE_TRANSFER;
  }
  if (rt->pm4 && n->op == HRX_EXEC_OP_DISPATCH) return HRX_EXEC_ENGINE_PM4;
  return HRX_EXEC_ENGINE_LANE;
}

/* Drains every lane before a region, which covers the region's
 * dependencies and conflicting submissions (all queued on the lanes
 * before it). |used| names the lanes batching this submission. A lane
 * that does not drain by |deadline| marks the runtime abandoned, as a
 * completion wait that gave up does. */
static hrx_status_t hrx_exec_drain_lanes(hrx_exec_runtime_t* rt,
                                         const bool* used,
                                         uint64_t deadline) {
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (!used[lane]) continue;
    /* Ring what the batch holds so far and keep batching the rest. */
    hrx_gpu_stream_end_batch(rt->lanes[lane]);
    hrx_gpu_stream_begin_batch(rt->lanes[lane]);
  }
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    hrx_status_t status = hrx_gpu_stream_synchronize(
        rt->lanes[lane], hrx_deadline_remaining(deadline));
    if (hrx_status_is(status, HRX_STATUS_DEADLINE_EXCEEDED)) {
      static const char* const names[HRX_EXEC_LANE_COUNT] = {
          "upload", "compute", "download"};
      atomic_store(&rt->abandoned, true);
      return hrx_status_annotate(
          status, "the %s lane did not drain before a host-ordered region",
          names[lane]);
    }
    HRX_RETURN_IF_ERROR(status);
  }
  return HRX_OK;
}

static hrx_status_t hrx_exec_region_record(hrx_exec_runtime_t* rt,
                                           hrx_exec_engine_t engine,
                                           const hrx_exec_node_rec_t* n,
                                           const hrx_gpu_prepared_t* prepared) {
  if (engine == HRX_EXEC_ENGINE_TRANSFER) {
    return hrx_fabric_transfer_copy(
        rt->transfer,
        hrx_gpu_buffer_device_address(n->view.buffer) + n->view.offset,
        hrx_gpu_buffer_device_address(n->source.buffer) + n->source.offset,
        n->view.length);
  }
  hrx_aql_dispatch_packet_t packet;
  HRX_RETURN_IF_ERROR(hrx_gpu_prepared_dispatch_packet(prepared, &packet));
  return hrx_fabric_pm4_dispatch(rt->pm4, &packet);
}

/* Ends what the queue holds with its fence and waits for it until
 * |deadline|. A fence that does not pass marks the queue hung, and keeps
 * |g|'s plan (its buffers, kernels and kernargs) alive for it: the lanes'
 * events, which free a submission, know nothing of this queue. */
static hrx_status_t hrx_exec_region_fence(hrx_exec_runtime_t* rt,
                                          const hrx_exec_graph_t* g,
                                          hrx_exec_engine_t engine,
                                          uint64_t deadline) {
  uint64_t fence = 0;
  hrx_status_t status = HRX_OK;
  if (engine == HRX_EXEC_ENGINE_TRANSFER) {
    HRX_RETURN_IF_ERROR(hrx_fabric_transfer_submit(rt->transfer, &fence));
    status = hrx_fabric_transfer_wait(rt->transfer, fence,
                                      hrx_deadline_remaining(deadline));
  } else {
    HRX_RETURN_IF_ERROR(hrx_fabric_pm4_submit(rt->pm4, &fence));
    status = hrx_fabric_pm4_wait(rt->pm4, fence,
                                 hrx_deadline_remaining(deadline));
  }
  rt->stats.region_fences++;
  if (hrx_status_is(status, HRX_STATUS_DEADLINE_EXCEEDED)) {
    rt->hung_fence[engine] = fence;
    rt->hung_plan[engine] = g->plan;
    hrx_exec_plan_retain(g->plan);
    return hrx_status_annotate(
        status, "host-ordered region timed out; the runtime presumes the "
                "queue hung and runs nothing more on it");
  }
  return status;
}

hrx_status_t hrx_exec_pm4_recover(hrx_exec_runtime_t* rt) {
  if (!rt->pm4 || rt->hung_fence[HRX_EXEC_ENGINE_PM4]) return HRX_OK;
  hrx_status_t stopped = hrx_fabric_pm4_queue_check(rt->pm4);
  if (stopped == HRX_OK) return HRX_OK;
  hrx_status_free(stopped);
  /* The new queue first: when the GPU has none free, the stopped one
   * stays, and its regions keep failing with the fault. */
  hrx_fabric_pm4_queue_t* fresh = NULL;
  HRX_RETURN_IF_ERROR(hrx_status_annotate(
      hrx_fabric_pm4_queue_create(hrx_gpu_device_fabric(rt->device), &fresh),
      "replacing %s, which a fault stopped",
      hrx_fabric_pm4_queue_name(rt->pm4)));
  hrx_fabric_pm4_queue_abort(rt->pm4);
  rt->pm4 = fresh;
  return HRX_OK;
}

hrx_status_t hrx_exec_region_run(hrx_exec_runtime_t* rt,
                                 const hrx_exec_graph_t* g, size_t first,
                                 size_t count, hrx_exec_engine_t engine,
                                 const bool* used) {
  if (rt->hung_fence[engine]) {
    return hrx_make_status(
        HRX_STATUS_ABORTED,
        "%s is presumed hung: its fence %" PRIu64 " did not pass within "
        "the region timeout, so the runtime runs nothing more on it",
        hrx_exec_engine_name(rt, engine), rt->hung_fence[engine]);
  }
  uint64_t deadline = hrx_deadline_after(rt->region_timeout_ns);
  HRX_RETURN_IF_ERROR(hrx_exec_drain_lanes(rt, used, deadline));
  hrx_gpu_prepared_t* const* commands = g->plan->commands;
  size_t recorded = 0;
  for (size_t k = first; k < first + count; ++k) {
    const hrx_exec_node_rec_t* n = &g->nodes[k];
    hrx_status_t status = hrx_exec_region_record(rt, engine, n, commands[k]);
    if (recorded && hrx_status_is(status, HRX_STATUS_RESOURCE_EXHAUSTED)) {
      /* The queue is full of this region's work: fence what it holds,
       * then record the node again into the emptied queue. */
      hrx_status_free(status);
      HRX_RETURN_IF_ERROR(hrx_exec_region_fence(rt, g, engine, deadline));
      recorded = 0;
      status = hrx_exec_region_record(rt, engine, n, commands[k]);
    }
    if (status != HRX_OK) {
      /* Nothing recorded may stay behind for a later region: what went
       * before the refused node runs now, in order, as on a lane. */
      if (recorded) {
        status = hrx_status_join(
            status, hrx_exec_region_fence(rt, g, engine, deadline));
      }
      return status;
    }
    recorded++;
    if (engine == HRX_EXEC_ENGINE_TRANSFER) {
      rt->stats.sdma_copy_bytes += n->view.length;
    } else {
      rt->stats.pm4_dispatches++;
    }
  }
  return hrx_exec_region_fence(rt, g, engine, deadline);
}
