/* Graph recording: each node's lane, declared ranges and inferred
 * dependencies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_internal.h"
#if HRX_EXEC_NPU
#include "hrx/exec/npu.h"
#endif

hrx_status_t hrx_exec_graph_create(hrx_exec_runtime_t* rt,
                                   hrx_exec_graph_t** out_graph) {
  *out_graph = NULL;
  hrx_exec_graph_t* g = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(rt->allocator, sizeof(*g), (void**)&g));
  g->runtime = rt;
  g->allocator = rt->allocator;
  hrx_status_t status = hrx_gpu_hazard_tracker_create(rt->allocator,
                                                      &g->tracker);
  if (status != HRX_OK) {
    hrx_allocator_free(rt->allocator, g);
    return status;
  }
  *out_graph = g;
  return HRX_OK;
}

static void hrx_exec_node_release(hrx_exec_graph_t* g,
                                  hrx_exec_node_rec_t* n) {
  hrx_gpu_buffer_release(n->view.buffer);
  hrx_gpu_buffer_release(n->source.buffer);
  for (size_t a = 0; a < n->arg_count; ++a) {
    if (n->args[a].kind == HRX_GPU_ARG_BINDING) {
      hrx_gpu_buffer_release(n->args[a].view.buffer);
    }
  }
  hrx_gpu_kernel_release(n->kernel);
#if HRX_EXEC_NPU
  hrx_exec_npu_program_release(n->npu);
#endif
  hrx_allocator_free(g->allocator, n->args);
  hrx_allocator_free(g->allocator, n->workload);
}

void hrx_exec_graph_destroy(hrx_exec_graph_t* g) {
  if (!g) return;
  for (size_t i = 0; i < g->node_count; ++i) {
    hrx_exec_node_release(g, &g->nodes[i]);
  }
  hrx_exec_plan_release(g->plan);
  hrx_gpu_hazard_tracker_destroy(g->tracker);
  hrx_allocator_free(g->allocator, g->nodes);
  hrx_allocator_free(g->allocator, g->deps);
  hrx_allocator_free(g->allocator, g->ranges);
  hrx_allocator_free(g->allocator, g);
}

size_t hrx_exec_graph_node_count(const hrx_exec_graph_t* g) {
  return g->node_count;
}

const hrx_exec_node_t* hrx_exec_graph_node_deps(const hrx_exec_graph_t* g,
                                                hrx_exec_node_t node,
                                                size_t* out_count) {
  if (node >= g->node_count) {
    *out_count = 0;
    return NULL;
  }
  *out_count = g->nodes[node].dep_count;
  return &g->deps[g->nodes[node].deps_start];
}

hrx_exec_lane_t hrx_exec_graph_node_lane(const hrx_exec_graph_t* g,
                                         hrx_exec_node_t node) {
  return node < g->node_count ? g->nodes[node].lane : HRX_EXEC_LANE_COUNT;
}

hrx_status_t hrx_exec_check_view(hrx_gpu_view_t view, const char* what) {
  if (!view.buffer) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "%s has no buffer",
                           what);
  }
  uint64_t size = hrx_gpu_buffer_size(view.buffer);
  if (view.length == 0 || view.offset > size || view.length > size - view.offset) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "%s [%llu, +%llu) is empty or outside its %llu-byte "
                           "buffer",
                           what, (unsigned long long)view.offset,
                           (unsigned long long)view.length,
                           (unsigned long long)size);
  }
  return HRX_OK;
}


/* Reachability checks visit at most this many nodes, so recording stays
 * O(k * budget) per node; an edge whose redundancy is not proven within
 * the budget is kept (an extra edge is harmless, a missing one is not). */
#define HRX_EXEC_IMPLIED_BUDGET 256

/* True when a later dep in |deps| (sorted) reaches deps[d] through
 * recorded edges: the edge to deps[d] is then implied. Edges point to
 * earlier nodes, so the search never goes below deps[d]. */
static bool hrx_exec_dep_implied(const hrx_exec_graph_t* g,
                                 const uint32_t* deps, size_t count,
                                 size_t d) {
  uint32_t target = deps[d];
  uint32_t stack[HRX_EXEC_IMPLIED_BUDGET];
  size_t visits = 0, depth = 0;
  for (size_t e = d + 1; e < count; ++e) {
    if (visits == HRX_EXEC_IMPLIED_BUDGET) return false;
    stack[depth++] = deps[e];
    visits++;
  }
  while (depth) {
    const hrx_exec_node_rec_t* node = &g->nodes[stack[--depth]];
    const uint32_t* preds = &g->deps[node->deps_start];
    for (uint32_t p = node->dep_count; p-- > 0;) {
      /* Sorted ascending: walk down and stop below the target. */
      if (preds[p] == target) return true;
      if (preds[p] < target) break;
      if (visits == HRX_EXEC_IMPLIED_BUDGET) return false;
      stack[depth++] = preds[p];
      visits++;
    }
  }
  return false;
}

hrx_status_t hrx_exec_graph_add(hrx_exec_graph_t* g, hrx_exec_node_rec_t* n,
                                const hrx_exec_access_t* accesses,
                                size_t access_count,
                                hrx_exec_node_t* out_node) {
  hrx_status_t status = HRX_OK;
  if (g->broken) {
    status = hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                             "graph recording failed earlier; record a new "
                             "graph");
  }
  uint32_t self = (uint32_t)g->node_count;
  if (status == HRX_OK) {
    status = hrx_allocator_grow_array(g->allocator, sizeof(*g->nodes),
                                      g->node_count + 1, &g->node_capacity,
                                      (void**)&g->nodes);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_grow_array(g->allocator, sizeof(*g->ranges),
                                      g->range_count + access_count,
                                      &g->range_capacity, (void**)&g->ranges);
  }
  if (status != HRX_OK) {
    hrx_exec_node_release(g, n);
    return status;
  }
  /* From here a failure leaves the tracker ahead of the graph. */
  for (size_t a = 0; a < access_count && status == HRX_OK; ++a) {
    status = hrx_gpu_hazard_tracker_access(
        g->tracker, self, (uint64_t)(uintptr_t)accesses[a].view.buffer,
        accesses[a].view.offset,
        accesses[a].view.offset + accesses[a].view.length,
        accesses[a].access);
  }
  size_t count = 0;
  const uint32_t* deps =
      status == HRX_OK ? hrx_gpu_hazard_tracker_deps(g->tracker, &count)
                       : NULL;
  if (status == HRX_OK) {
    status = hrx_allocator_grow_array(g->allocator, sizeof(*g->deps),
                                      g->dep_count + count, &g->dep_capacity,
                                      (void**)&g->deps);
  }
  if (status != HRX_OK) {
    g->broken = true;
    hrx_exec_node_release(g, n);
    return status;
  }
  n->deps_start = (uint32_t)g->dep_count;
  for (size_t d = 0; d < count; ++d) {
    if (hrx_exec_dep_implied(g, deps, count, d)) continue;
    g->deps[g->dep_count++] = deps[d];
    /* An NPU region signals nothing: it has ended before anything after
     * it is queued. */
    if (g->nodes[deps[d]].lane != n->lane &&
        g->nodes[deps[d]].lane != HRX_EXEC_LANE_NPU) {
      g->nodes[deps[d]].signals = true;
    }
  }
  n->dep_count = (uint32_t)(g->dep_count - n->deps_start);
  for (size_t a = 0; a < access_count; ++a) {
    g->ranges[g->range_count++] = (hrx_exec_range_t){
        accesses[a].view.buffer, accesses[a].view.offset,
        accesses[a].view.offset + accesses[a].view.length,
        accesses[a].access != HRX_GPU_ACCESS_READ};
  }
  g->nodes[g->node_count++] = *n;
  /* Submissions in flight keep the old plan; the next one prepares anew. */
  hrx_exec_plan_release(g->plan);
  g->plan = NULL;
  if (out_node) *out_node = self;
  return HRX_OK;
}

hrx_status_t hrx_exec_graph_upload(hrx_exec_graph_t* g, hrx_gpu_view_t view,
                                   const void* data,
                                   hrx_exec_node_t* out_node) {
  HRX_RETURN_IF_ERROR(hrx_exec_check_view(view, "upload destination"));
  if (!data) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "upload has no data");
  }
  hrx_exec_node_rec_t n = {.op = HRX_EXEC_OP_UPLOAD,
                           .lane = HRX_EXEC_LANE_UPLOAD, .view = view,
                           .upload = data};
  hrx_gpu_buffer_retain(view.buffer);
  hrx_exec_access_t access = {view, HRX_GPU_ACCESS_WRITE};
  return hrx_exec_graph_add(g, &n, &access, 1, out_node);
}

hrx_status_t hrx_exec_graph_download(hrx_exec_graph_t* g, hrx_gpu_view_t view,
                                     void* data, hrx_exec_node_t* out_node) {
  HRX_RETURN_IF_ERROR(hrx_exec_check_view(view, "download source"));
  if (!data) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "download has no destination");
  }
  hrx_exec_node_rec_t n = {.op = HRX_EXEC_OP_DOWNLOAD,
                           .lane = HRX_EXEC_LANE_DOWNLOAD, .view = view,
                           .download = data};
  hrx_gpu_buffer_retain(view.buffer);
  hrx_exec_access_t access = {view, HRX_GPU_ACCESS_READ};
  return hrx_exec_graph_add(g, &n, &access, 1, out_node);
}

hrx_status_t hrx_exec_graph_copy(hrx_exec_graph_t* g, hrx_gpu_view_t source,
                                 hrx_gpu_view_t destination,
                                 hrx_exec_node_t* out_node) {
  HRX_RETURN_IF_ERROR(hrx_exec_check_view(source, "copy source"));
  HRX_RETURN_IF_ERROR(hrx_exec_check_view(destination, "copy destination"));
  if (source.length != destination.length) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "copy of %llu bytes into %llu",
                           (unsigned long long)source.length,
                           (unsigned long long)destination.length);
  }
  hrx_exec_node_rec_t n = {.op = HRX_EXEC_OP_COPY,
                           .lane = HRX_EXEC_LANE_COMPUTE, .view = destination,
                           .source = source};
  hrx_gpu_buffer_retain(source.buffer);
  hrx_gpu_buffer_retain(destination.buffer);
  hrx_exec_access_t accesses[] = {{source, HRX_GPU_ACCESS_READ},
                                  {destination, HRX_GPU_ACCESS_WRITE}};
  return hrx_exec_graph_add(g, &n, accesses, 2, out_node);
}

/* Checks |launch| against |k|'s contract. */
static hrx_status_t hrx_exec_check_launch(const hrx_exec_kernel_t* k,
                                          const hrx_gpu_launch_t* launch) {
  if (!launch || (launch->arg_count && !launch->args) ||
      (launch->workload_count && !launch->workload)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "dispatch of '%s' has no launch arguments",
                           k->name);
  }
  size_t binding = 0, scalars = 0;
  for (size_t a = 0; a < launch->arg_count; ++a) {
    const hrx_gpu_arg_t* arg = &launch->args[a];
    if (arg->kind == HRX_GPU_ARG_SCALAR) {
      scalars++;
      continue;
    }
    if (binding >= k->binding_count) break;
    const hrx_exec_binding_contract_t* c = &k->bindings[binding];
    char what[160];
    snprintf(what, sizeof(what), "binding %zu (argument %zu) of '%s'",
             binding, a, k->name);
    HRX_RETURN_IF_ERROR(hrx_exec_check_view(arg->view, what));
    if (arg->view.length < c->min_bytes) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "%s binds %llu bytes; the contract needs at "
                             "least %llu",
                             what, (unsigned long long)arg->view.length,
                             (unsigned long long)c->min_bytes);
    }
    if (c->alignment > 1 && arg->view.offset % c->alignment) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "%s starts at offset %llu; the contract needs "
                             "%u-byte alignment",
                             what, (unsigned long long)arg->view.offset,
                             c->alignment);
    }
    binding++;
  }
  size_t bindings = launch->arg_count - scalars;
  if (bindings != k->binding_count || scalars != k->scalar_count) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "dispatch of '%s' passes %zu bindings and %zu "
                           "scalars; the contract says %zu and %zu",
                           k->name, bindings, scalars, k->binding_count,
                           k->scalar_count);
  }
  return HRX_OK;
}

hrx_status_t hrx_exec_graph_dispatch(hrx_exec_graph_t* g,
                                     const hrx_exec_kernel_t* k,
                                     const hrx_gpu_launch_t* launch,
                                     hrx_exec_node_t* out_node) {
  if (!k) return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no kernel");
  HRX_RETURN_IF_ERROR(hrx_exec_check_launch(k, launch));
  hrx_exec_access_t accesses[64];
  if (k->binding_count > 64) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "'%s' has more than 64 bindings", k->name);
  }
  hrx_exec_node_rec_t n = {.op = HRX_EXEC_OP_DISPATCH,
                           .lane = HRX_EXEC_LANE_COMPUTE};
  hrx_status_t status = HRX_OK;
  if (launch->arg_count) {
    status = hrx_allocator_malloc(g->allocator,
                                  launch->arg_count * sizeof(*n.args),
                                  (void**)&n.args);
  }
  if (status == HRX_OK && launch->workload_count) {
    status = hrx_allocator_malloc(g->allocator,
                                  launch->workload_count * sizeof(uint64_t),
                                  (void**)&n.workload);
  }
  if (status != HRX_OK) {
    hrx_allocator_free(g->allocator, n.args);
    return status;
  }
  if (launch->arg_count) {
    memcpy(n.args, launch->args, launch->arg_count * sizeof(*n.args));
  }
  if (launch->workload_count) {
    memcpy(n.workload, launch->workload,
           launch->workload_count * sizeof(uint64_t));
  }
  n.arg_count = launch->arg_count;
  n.workload_count = launch->workload_count;
  n.kernel = k->kernel;
  hrx_gpu_kernel_retain(k->kernel);
  size_t binding = 0;
  for (size_t a = 0; a < n.arg_count; ++a) {
    if (n.args[a].kind != HRX_GPU_ARG_BINDING) continue;
    n.args[a].access = k->bindings[binding].access;
    hrx_gpu_buffer_retain(n.args[a].view.buffer);
    accesses[binding] = (hrx_exec_access_t){n.args[a].view,
                                            n.args[a].access};
    binding++;
  }
  return hrx_exec_graph_add(g, &n, accesses, binding, out_node);
}
