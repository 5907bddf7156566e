/* A graph's prepared form: its dispatches and copies prepared once, and
 * the byte ranges it touches merged per buffer. Shared by the graph and
 * every submission still in flight, so a replay costs no preparation and
 * the graph may be re-recorded or destroyed while its work runs. */
#include <stdlib.h>
#include <string.h>

#include "exec_internal.h"

static int hrx_exec_range_order(const void* a, const void* b) {
  const hrx_exec_range_t* x = a;
  const hrx_exec_range_t* y = b;
  uintptr_t bx = (uintptr_t)x->buffer, by = (uintptr_t)y->buffer;
  if (bx != by) return bx < by ? -1 : 1;
  if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
  return 0;
}

/* Sorts by buffer and start, then merges ranges of a buffer that overlap
 * or touch. A merged range writes if any part did: conservative, it can
 * only add ordering, never lose it. */
static size_t hrx_exec_ranges_merge(hrx_exec_range_t* ranges, size_t count) {
  if (count == 0) return 0;
  qsort(ranges, count, sizeof(*ranges), hrx_exec_range_order);
  size_t kept = 0;
  for (size_t i = 1; i < count; ++i) {
    hrx_exec_range_t* last = &ranges[kept];
    if (ranges[i].buffer == last->buffer && ranges[i].begin <= last->end) {
      if (ranges[i].end > last->end) last->end = ranges[i].end;
      last->writes |= ranges[i].writes;
    } else {
      ranges[++kept] = ranges[i];
    }
  }
  return kept + 1;
}

bool hrx_exec_plans_conflict(const hrx_exec_plan_t* a,
                             const hrx_exec_plan_t* b) {
  /* Both lists are sorted and disjoint within a buffer: one sweep. */
  size_t i = 0, j = 0;
  while (i < a->range_count && j < b->range_count) {
    const hrx_exec_range_t* x = &a->ranges[i];
    const hrx_exec_range_t* y = &b->ranges[j];
    if (x->buffer != y->buffer) {
      if ((uintptr_t)x->buffer < (uintptr_t)y->buffer) {
        ++i;
      } else {
        ++j;
      }
      continue;
    }
    if (x->begin < y->end && y->begin < x->end && (x->writes || y->writes)) {
      return true;
    }
    if (x->end <= y->end) {
      ++i;
    } else {
      ++j;
    }
  }
  return false;
}

static bool hrx_exec_node_is_prepared(const hrx_exec_node_rec_t* n) {
  return n->op == HRX_EXEC_OP_DISPATCH || n->op == HRX_EXEC_OP_COPY;
}

static bool hrx_exec_node_waits_on_other_lanes(const hrx_exec_graph_t* g,
                                               size_t i) {
  const hrx_exec_node_rec_t* n = &g->nodes[i];
  for (uint32_t d = 0; d < n->dep_count; ++d) {
    if (g->nodes[g->deps[n->deps_start + d]].lane != n->lane) return true;
  }
  return false;
}

/* runs[i]: how many prepared nodes from i on can be queued as one group:
 * same lane, no event needed after any but the last, no wait on another
 * lane before any but the first. */
static void hrx_exec_plan_runs(const hrx_exec_graph_t* g, uint32_t* runs) {
  for (size_t i = g->node_count; i-- > 0;) {
    const hrx_exec_node_rec_t* n = &g->nodes[i];
    runs[i] = 1;
    if (i + 1 < g->node_count && hrx_exec_node_is_prepared(n) &&
        hrx_exec_node_is_prepared(&g->nodes[i + 1]) &&
        g->nodes[i + 1].lane == n->lane && !n->signals &&
        !hrx_exec_node_waits_on_other_lanes(g, i + 1)) {
      runs[i] = runs[i + 1] + 1;
    }
  }
}

static hrx_status_t hrx_exec_prepare_node(hrx_gpu_device_t* device,
                                          const hrx_exec_node_rec_t* n,
                                          hrx_gpu_prepared_t** out) {
  if (n->op == HRX_EXEC_OP_COPY) {
    return hrx_gpu_prepare_copy(device, n->source, n->view, out);
  }
  hrx_gpu_launch_t launch = {n->workload, n->workload_count, n->args,
                             n->arg_count};
  return hrx_gpu_prepare_dispatch(device, n->kernel, &launch, out);
}

hrx_status_t hrx_exec_plan_create(const hrx_exec_graph_t* g,
                                  hrx_exec_plan_t** out_plan) {
  *out_plan = NULL;
  hrx_allocator_t allocator = g->allocator;
  hrx_exec_plan_t* plan = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*plan), (void**)&plan));
  atomic_init(&plan->references, 1);
  plan->allocator = allocator;
  hrx_status_t status = HRX_OK;
  if (g->node_count) {
    status = hrx_allocator_malloc_array(allocator, g->node_count,
                                        sizeof(*plan->commands),
                                        (void**)&plan->commands);
  }
  if (status == HRX_OK && g->node_count) {
    status = hrx_allocator_malloc_array(allocator, g->node_count,
                                        sizeof(*plan->runs),
                                        (void**)&plan->runs);
  }
  if (status == HRX_OK && g->range_count) {
    status = hrx_allocator_malloc_array(allocator, g->range_count,
                                        sizeof(*plan->ranges),
                                        (void**)&plan->ranges);
  }
  if (status == HRX_OK) {
    plan->node_count = g->node_count;
    if (g->range_count) {
      memcpy(plan->ranges, g->ranges, g->range_count * sizeof(*plan->ranges));
    }
    plan->range_count = hrx_exec_ranges_merge(plan->ranges, g->range_count);
  }
  hrx_gpu_device_t* device = g->runtime->device;
  for (size_t i = 0; i < plan->node_count && status == HRX_OK; ++i) {
    const hrx_exec_node_rec_t* n = &g->nodes[i];
    if (hrx_exec_node_is_prepared(n)) {
      status = hrx_exec_prepare_node(device, n, &plan->commands[i]);
    }
  }
  if (status == HRX_OK && plan->runs) hrx_exec_plan_runs(g, plan->runs);
  if (status != HRX_OK) {
    hrx_exec_plan_release(plan);
    return status;
  }
  *out_plan = plan;
  return HRX_OK;
}

void hrx_exec_plan_retain(hrx_exec_plan_t* plan) {
  if (plan) atomic_fetch_add_explicit(&plan->references, 1,
                                      memory_order_relaxed);
}

void hrx_exec_plan_release(hrx_exec_plan_t* plan) {
  if (!plan || atomic_fetch_sub_explicit(&plan->references, 1,
                                         memory_order_acq_rel) != 1) {
    return;
  }
  for (size_t i = 0; plan->commands && i < plan->node_count; ++i) {
    hrx_gpu_prepared_destroy(plan->commands[i]);
  }
  hrx_allocator_free(plan->allocator, plan->commands);
  hrx_allocator_free(plan->allocator, plan->runs);
  hrx_allocator_free(plan->allocator, plan->ranges);
  hrx_allocator_free(plan->allocator, plan);
}
