/* Submission: queue a graph's nodes on their lanes with cross-lane events,
 * after conflicting submissions still in flight; completions deliver the
 * downloads. */
#include <string.h>

#include "exec_internal.h"

void hrx_exec_completion_free(hrx_exec_completion_t* c) {
  hrx_allocator_t allocator = c->runtime->allocator;
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    hrx_gpu_event_release(c->events[lane]);
    hrx_gpu_event_release(c->start_events[lane]);
  }
  for (size_t i = 0; i < c->delivery_count; ++i) {
    hrx_gpu_readback_release(c->deliveries[i].readback);
  }
  hrx_allocator_free(allocator, c->deliveries);
  hrx_exec_notice_release(allocator, c->notice);
  hrx_allocator_free(allocator, c);
}

/* Queues the |run| prepared nodes from |i| on: consecutive copies for the
 * transfer queue and dispatches for the PM4 queue, when the runtime has
 * them, each as one host-ordered region (region.c); the rest on the
 * lane. */
static hrx_status_t hrx_exec_queue_prepared(hrx_exec_runtime_t* rt,
                                            const hrx_exec_graph_t* g,
                                            size_t i, size_t run,
                                            const bool* used) {
  hrx_gpu_stream_t* stream = rt->lanes[g->nodes[i].lane];
  hrx_gpu_prepared_t* const* commands = g->plan->commands;
  if (!rt->transfer && !rt->pm4) {
    /* Prepared once per plan: no checks, evaluation or allocation. */
    return hrx_gpu_stream_enqueue_all(
        stream, (const hrx_gpu_prepared_t* const*)&commands[i], run);
  }
  for (size_t k = i; k < i + run;) {
    hrx_exec_engine_t engine = hrx_exec_node_engine(rt, &g->nodes[k]);
    size_t end = k + 1;
    while (end < i + run &&
           hrx_exec_node_engine(rt, &g->nodes[end]) == engine) {
      ++end;
    }
    if (engine == HRX_EXEC_ENGINE_LANE) {
      HRX_RETURN_IF_ERROR(hrx_gpu_stream_enqueue_all(
          stream, (const hrx_gpu_prepared_t* const*)&commands[k], end - k));
    } else {
      HRX_RETURN_IF_ERROR(hrx_exec_region_run(rt, g, k, end - k, engine,
                                              used));
    }
    k = end;
  }
  return HRX_OK;
}

/* Queues node |i| on its lane, with the |run| - 1 prepared nodes after it
 * that the plan groups with it; |node_events| holds the events of earlier
 * nodes that other lanes wait for. |lane_state| per lane: 0 before its
 * first node, 1 when it waited on another lane before it, 2 once its first
 * node is queued. */
static hrx_status_t hrx_exec_queue_node(hrx_exec_runtime_t* rt,
                                        const hrx_exec_graph_t* g, size_t i,
                                        size_t run,
                                        hrx_gpu_event_t** node_events,
                                        uint8_t* lane_state, const bool* used,
                                        hrx_exec_completion_t* c) {
  const hrx_exec_node_rec_t* n = &g->nodes[i];
#if HRX_EXEC_NPU
  if (n->op == HRX_EXEC_OP_NPU) {
    hrx_status_t status = hrx_exec_npu_region(rt, g, i, node_events, used);
    /* A lane whose work is queued after the region starts no earlier,
     * which only the device sees. */
    for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
      if (!lane_state[lane]) lane_state[lane] = 1;
    }
    return status;
  }
#endif
  hrx_gpu_stream_t* stream = rt->lanes[n->lane];
  for (uint32_t d = 0; d < n->dep_count; ++d) {
    uint32_t dep = g->deps[n->deps_start + d];
    /* Stream order; an NPU region ended before anything after it was
     * queued. */
    if (g->nodes[dep].lane == n->lane ||
        g->nodes[dep].lane == HRX_EXEC_LANE_NPU) {
      continue;
    }
    HRX_RETURN_IF_ERROR(hrx_gpu_stream_wait_event(stream, node_events[dep]));
    rt->stats.cross_lane_waits++;
    if (!lane_state[n->lane]) lane_state[n->lane] = 1;
  }
  if (lane_state[n->lane] < 2) {
    /* The lane's first node. Without waits on other lanes its work starts
     * at the later of the submission and its previous end, which the
     * watcher knows; after such waits only the device knows when. */
    if (lane_state[n->lane] == 1 && rt->observe) {
      HRX_RETURN_IF_ERROR(
          hrx_gpu_stream_record_event(stream, &c->start_events[n->lane]));
    }
    lane_state[n->lane] = 2;
  }
  switch (n->op) {
    case HRX_EXEC_OP_UPLOAD:
      HRX_RETURN_IF_ERROR(
          hrx_gpu_stream_upload(stream, n->view, n->upload, n->view.length));
      rt->stats.upload_bytes += n->view.length;
      break;
    case HRX_EXEC_OP_COPY:
    case HRX_EXEC_OP_DISPATCH:
      HRX_RETURN_IF_ERROR(hrx_exec_queue_prepared(rt, g, i, run, used));
      break;
    case HRX_EXEC_OP_NPU: /* a region, run above */
      break;
    case HRX_EXEC_OP_DOWNLOAD: {
      hrx_exec_delivery_t* d = &c->deliveries[c->delivery_count];
      HRX_RETURN_IF_ERROR(hrx_gpu_stream_read(stream, n->view, &d->readback));
      d->data = n->download;
      c->delivery_count++;
      rt->stats.download_bytes += n->view.length;
      break;
    }
  }
  size_t last = i + run - 1; /* only the run's last node may signal */
  if (g->nodes[last].signals) {
    HRX_RETURN_IF_ERROR(
        hrx_gpu_stream_record_event(stream, &node_events[last]));
  }
  return HRX_OK;
}

/* Queues the whole graph; on failure part of it may be queued. */
static hrx_status_t hrx_exec_queue_graph(hrx_exec_runtime_t* rt,
                                         const hrx_exec_graph_t* g,
                                         const bool* used,
                                         hrx_exec_completion_t* c) {
  uint8_t lane_state[HRX_EXEC_LANE_COUNT] = {0};
  /* Order after conflicting submissions still in flight. Each lane waits
   * for the other lanes' ends; its own lane is ordered already. */
  for (size_t f = 0; f < rt->flight_count; ++f) {
    const hrx_exec_flight_t* flight = &rt->flights[f];
    if (!hrx_exec_plans_conflict(g->plan, flight->plan)) continue;
    for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
      if (!used[lane]) continue;
      for (int other = 0; other < HRX_EXEC_LANE_COUNT; ++other) {
        if (other == lane || !flight->events[other]) continue;
        HRX_RETURN_IF_ERROR(
            hrx_gpu_stream_wait_event(rt->lanes[lane], flight->events[other]));
        rt->stats.cross_lane_waits++;
        lane_state[lane] = 1;
      }
    }
  }
  /* The runtime's scratch (submissions are serialised): kept all NULL
   * between submissions. */
  if (g->node_count > rt->node_event_capacity) {
    hrx_gpu_event_t** grown = NULL;
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
        rt->allocator, g->node_count, sizeof(*grown), (void**)&grown));
    hrx_allocator_free(rt->allocator, rt->node_events);
    rt->node_events = grown;
    rt->node_event_capacity = g->node_count;
  }
  hrx_gpu_event_t** node_events = rt->node_events;
  hrx_status_t status = HRX_OK;
  for (size_t i = 0; i < g->node_count && status == HRX_OK;) {
    size_t run = g->plan->runs[i];
    status = hrx_exec_queue_node(rt, g, i, run, node_events, lane_state,
                                 used, c);
    i += run;
  }
  for (size_t i = 0; i < g->node_count; ++i) {
    if (!node_events[i]) continue;
    hrx_gpu_event_release(node_events[i]);
    node_events[i] = NULL;
  }
  return status;
}

hrx_status_t hrx_exec_graph_submit(hrx_exec_graph_t* g,
                                   hrx_exec_completion_t** out_completion) {
  *out_completion = NULL;
  hrx_exec_runtime_t* rt = g->runtime;
  if (g->broken) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "graph recording failed; it cannot be submitted");
  }
  if (!g->plan) HRX_RETURN_IF_ERROR(hrx_exec_plan_create(g, &g->plan));
  bool used[HRX_EXEC_LANE_COUNT] = {false};
  size_t downloads = 0;
  int lanes = 0;
  for (size_t i = 0; i < g->node_count; ++i) {
    if (g->nodes[i].lane == HRX_EXEC_LANE_NPU) continue; /* no stream */
    if (!used[g->nodes[i].lane]) lanes++;
    used[g->nodes[i].lane] = true;
    if (g->nodes[i].op == HRX_EXEC_OP_DOWNLOAD) downloads++;
  }
  pthread_mutex_lock(&rt->mutex);
  hrx_exec_runtime_prune(rt);
  /* A lane an earlier submission faulted takes work again: that fault
   * stays with the submission it ended (its completion holds the lane's
   * old timeline), and this one starts afresh. */
  hrx_status_t status = hrx_exec_pm4_recover(rt);
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT && status == HRX_OK; ++lane) {
    if (used[lane]) status = hrx_gpu_stream_recover(rt->lanes[lane], NULL);
  }
  if (status == HRX_OK && rt->flight_count >= rt->max_submissions) {
    status = hrx_make_status(HRX_STATUS_BUSY,
                             "%u submissions are in flight (max_submissions); "
                             "wait for one",
                             rt->max_submissions);
  }
  hrx_exec_completion_t* c = NULL;
  hrx_exec_flight_t flight = {0};
  if (status == HRX_OK) {
    status = hrx_allocator_grow_array(
        rt->allocator, sizeof(*rt->flights), rt->flight_count + 1,
        &rt->flight_capacity, (void**)&rt->flights);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc(rt->allocator, sizeof(*c), (void**)&c);
  }
  if (status == HRX_OK) {
    atomic_init(&c->references, 1);
    c->runtime = rt;
    if (rt->observe) {
      status = hrx_exec_notice_create(rt->allocator, lanes,
                                      rt->stats.submissions + 1, &c->notice);
    }
  }
  if (status == HRX_OK) {
    if (downloads) {
      status = hrx_allocator_malloc(rt->allocator,
                                    downloads * sizeof(*c->deliveries),
                                    (void**)&c->deliveries);
    }
  }
  if (status != HRX_OK) {
    if (c) hrx_exec_completion_free(c);
    pthread_mutex_unlock(&rt->mutex);
    return status;
  }
  flight.plan = g->plan;
  hrx_exec_plan_retain(flight.plan);

  /* Every lane's commands go out with one doorbell per lane. */
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (used[lane]) hrx_gpu_stream_begin_batch(rt->lanes[lane]);
  }
  status = hrx_exec_queue_graph(rt, g, used, c);
  /* Whatever was queued is now in flight: end every used lane with an
   * event so later submissions and this completion can order on it. */
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (!used[lane]) continue;
    hrx_status_t ended =
        hrx_gpu_stream_record_event(rt->lanes[lane], &c->events[lane]);
    if (ended != HRX_OK) {
      if (status == HRX_OK) {
        status = ended;
      } else {
        hrx_status_free(ended);
      }
      continue;
    }
    flight.events[lane] = c->events[lane];
    hrx_gpu_event_retain(flight.events[lane]);
  }
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (used[lane]) hrx_gpu_stream_end_batch(rt->lanes[lane]);
  }
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT && rt->observe; ++lane) {
    if (c->events[lane]) {
      hrx_exec_watcher_push(&rt->watchers[lane], c->start_events[lane],
                            c->events[lane], c->notice);
    } else if (used[lane]) {
      hrx_exec_notice_lane_done(c->notice); /* nothing of it was queued */
    }
  }
  rt->flights[rt->flight_count++] = flight;
  rt->stats.submissions++;
  rt->stats.nodes += g->node_count;
  if (status != HRX_OK) {
    /* The queued part runs on; its completion waits in quarantine. */
    hrx_status_t held = hrx_allocator_grow_array(
        rt->allocator, sizeof(*rt->quarantine), rt->quarantine_count + 1,
        &rt->quarantine_capacity, (void**)&rt->quarantine);
    if (held == HRX_OK) {
      rt->quarantine[rt->quarantine_count++] = c;
    } else {
      /* No room to defer: wait here rather than free storage in use. */
      hrx_status_free(held);
      for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
        if (c->events[lane]) {
          hrx_status_free(
              hrx_gpu_event_wait(c->events[lane], HRX_TIMEOUT_INFINITE));
        }
      }
      hrx_exec_completion_free(c);
    }
    pthread_mutex_unlock(&rt->mutex);
    return status;
  }
  pthread_mutex_unlock(&rt->mutex);
  *out_completion = c;
  return HRX_OK;
}

static hrx_status_t hrx_exec_deliver(hrx_exec_completion_t* c) {
  if (c->delivered) return HRX_OK;
  for (size_t i = 0; i < c->delivery_count; ++i) {
    const void* data = NULL;
    uint64_t length = 0;
    HRX_RETURN_IF_ERROR(
        hrx_gpu_readback_wait(c->deliveries[i].readback, 0, &data, &length));
    memcpy(c->deliveries[i].data, data, length);
  }
  c->delivered = true;
  return HRX_OK;
}

hrx_status_t hrx_exec_completion_wait(hrx_exec_completion_t* c,
                                      uint64_t timeout_ns) {
  uint64_t deadline = hrx_deadline_after(timeout_ns);
  /* A faulted lane does not end the wait: the others still run, and
   * done means every lane ended (hrx_exec_completion_fault needs that). */
  hrx_status_t failed = HRX_OK;
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (!c->events[lane]) continue;
    hrx_status_t status =
        hrx_gpu_event_wait(c->events[lane], hrx_deadline_remaining(deadline));
    if (hrx_status_is(status, HRX_STATUS_DEADLINE_EXCEEDED)) {
      /* A wait that gave up (not a poll) marks the work presumed stuck. */
      if (timeout_ns) atomic_store(&c->runtime->abandoned, true);
      hrx_status_free(failed);
      return status;
    }
    if (failed == HRX_OK) {
      failed = status;
    } else {
      hrx_status_free(status);
    }
  }
  HRX_RETURN_IF_ERROR(failed);
  return hrx_exec_deliver(c);
}

hrx_status_t hrx_exec_completion_poll(hrx_exec_completion_t* c) {
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (c->events[lane] && !hrx_gpu_event_is_complete(c->events[lane])) {
      return hrx_status_from_code(HRX_STATUS_BUSY);
    }
  }
  /* Complete events still say whether the work faulted. */
  return hrx_exec_completion_wait(c, 0);
}

hrx_status_t hrx_exec_completion_fault(hrx_exec_completion_t* c,
                                       hrx_exec_lane_t* out_lane,
                                       hrx_fabric_fault_t* out_fault) {
  if (!c || !out_lane || !out_fault) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "completion_fault needs a completion, a lane and "
                           "a report");
  }
  *out_lane = HRX_EXEC_LANE_COUNT;
  hrx_fabric_fault_t none = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  /* A bad struct_size fails before anything is written. */
  HRX_RETURN_IF_ERROR(
      HRX_STRUCT_WRITE(hrx_fabric_fault_t, detail, &none, out_fault));
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (c->events[lane] && !hrx_gpu_event_is_complete(c->events[lane])) {
      return hrx_status_from_code(HRX_STATUS_BUSY);
    }
  }
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (!c->events[lane]) continue;
    HRX_RETURN_IF_ERROR(hrx_gpu_event_fault(c->events[lane], out_fault));
    if (out_fault->kind != HRX_FABRIC_FAULT_NONE) {
      *out_lane = (hrx_exec_lane_t)lane;
      return HRX_OK;
    }
  }
  return HRX_OK;
}

void hrx_exec_completion_retain(hrx_exec_completion_t* c) {
  if (c) atomic_fetch_add_explicit(&c->references, 1, memory_order_relaxed);
}

void hrx_exec_completion_release(hrx_exec_completion_t* c) {
  if (!c) return;
  if (atomic_fetch_sub_explicit(&c->references, 1, memory_order_acq_rel) !=
      1) {
    return;
  }
  hrx_exec_runtime_t* rt = c->runtime;
  pthread_mutex_lock(&rt->mutex);
  bool done = true;
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (c->events[lane] && !hrx_gpu_event_is_complete(c->events[lane])) {
      done = false;
    }
  }
  if (!done) {
    hrx_status_t held = hrx_allocator_grow_array(
        rt->allocator, sizeof(*rt->quarantine), rt->quarantine_count + 1,
        &rt->quarantine_capacity, (void**)&rt->quarantine);
    if (held == HRX_OK) {
      rt->quarantine[rt->quarantine_count++] = c;
      pthread_mutex_unlock(&rt->mutex);
      return;
    }
    hrx_status_free(held);
  }
  pthread_mutex_unlock(&rt->mutex);
  /* Done, or no room to defer it: freeing waits for the copies at worst. */
  hrx_exec_completion_free(c);
}
