/* Stream graphs: prepared commands with dependencies, replayed on streams.
 * Access inference asks a hazard tracker for each node's frontier, then
 * drops the edges that other edges already imply. */
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

#define HRX_GPU_NO_NODE UINT32_MAX

typedef struct hrx_gpu_node_rec_t {
  hrx_gpu_command_t command; /* type 0 for joins */
  uint32_t deps_start, dep_count;
} hrx_gpu_node_rec_t;


struct hrx_gpu_graph_s {
  hrx_gpu_device_t* device; /* retained */
  hrx_allocator_t allocator;
  uint32_t flags;
  hrx_gpu_node_rec_t* nodes;
  uint32_t node_count;
  size_t node_capacity;
  hrx_gpu_node_t* deps;
  uint32_t dep_count;
  size_t dep_capacity;
  hrx_gpu_hazard_tracker_t* tracker; /* with HRX_GPU_GRAPH_INFER_ACCESS */
  /* Reachability scratch: visited[n] == visit_epoch marks a visited node. */
  uint32_t* visited;
  size_t visited_capacity;
  uint32_t visit_epoch;
  uint32_t* stack;
  size_t stack_capacity;
  /* A failure after the tracker recorded a node's accesses leaves the two
   * out of step; the graph then refuses further recording. */
  bool broken;
  /* The last replay, so destruction waits for it. */
  hrx_fabric_signal_t* replay_timeline;
  uint64_t replay_point;
};

typedef struct hrx_gpu_access_range_t {
  const hrx_gpu_buffer_t* buffer;
  uint64_t begin, end;
  hrx_gpu_access_t access;
} hrx_gpu_access_range_t;

hrx_status_t hrx_gpu_graph_create(hrx_gpu_device_t* device, uint32_t flags,
                                  hrx_gpu_graph_t** out_graph) {
  *out_graph = NULL;
  if (flags & ~(uint32_t)HRX_GPU_GRAPH_INFER_ACCESS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown graph flags 0x%x", flags);
  }
  hrx_gpu_graph_t* graph = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(device->allocator, sizeof(*graph),
                                           (void**)&graph));
  graph->device = device;
  hrx_gpu_device_retain(device);
  graph->allocator = device->allocator;
  graph->flags = flags;
  if (flags & HRX_GPU_GRAPH_INFER_ACCESS) {
    hrx_status_t status =
        hrx_gpu_hazard_tracker_create(graph->allocator, &graph->tracker);
    if (status != HRX_OK) {
      hrx_gpu_graph_destroy(graph);
      return status;
    }
  }
  *out_graph = graph;
  return HRX_OK;
}

void hrx_gpu_graph_destroy(hrx_gpu_graph_t* graph) {
  if (!graph) return;
  if (graph->replay_timeline) {
    /* The last replay may still read our packets' kernargs and buffers. */
    hrx_status_free(hrx_fabric_signal_wait(
        graph->replay_timeline, HRX_FABRIC_SIGNAL_LT,
        (INT64_C(1) << 62) - (int64_t)graph->replay_point + 1,
        HRX_TIMEOUT_INFINITE, NULL));
    hrx_fabric_signal_release(graph->replay_timeline);
  }
  for (uint32_t n = 0; n < graph->node_count; ++n) {
    hrx_gpu_command_release(graph->allocator, &graph->nodes[n].command);
  }
  hrx_gpu_hazard_tracker_destroy(graph->tracker);
  hrx_allocator_free(graph->allocator, graph->visited);
  hrx_allocator_free(graph->allocator, graph->stack);
  hrx_allocator_free(graph->allocator, graph->nodes);
  hrx_allocator_free(graph->allocator, graph->deps);
  hrx_gpu_device_t* device = graph->device;
  hrx_allocator_free(graph->allocator, graph);
  hrx_gpu_device_release(device);
}

/*===------------------------------------------------------------------===*/
/* Hazards                                                                 */
/*===------------------------------------------------------------------===*/

static hrx_status_t hrx_gpu_add_candidate(hrx_gpu_graph_t* g, uint32_t node,
                                          uint32_t self, uint32_t** list,
                                          uint32_t* count, size_t* cap) {
  if (node == HRX_GPU_NO_NODE || node == self) return HRX_OK;
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(g->allocator, sizeof(uint32_t),
                                               *count + 1, cap, (void**)list));
  (*list)[(*count)++] = node;
  return HRX_OK;
}

/* True when |target| is an ancestor of |from| (or |from| itself). Nodes
 * only depend on earlier nodes, so the search never goes below |target|,
 * and each node is visited once per query. */
static hrx_status_t hrx_gpu_reaches(hrx_gpu_graph_t* g, uint32_t from,
                                    uint32_t target, bool* out_reaches) {
  *out_reaches = from == target;
  if (from <= target) return HRX_OK;
  size_t had = g->visited_capacity;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_grow_array(g->allocator, sizeof(uint32_t), g->node_count,
                               &g->visited_capacity, (void**)&g->visited));
  if (g->visited_capacity > had) {
    memset(g->visited + had, 0, (g->visited_capacity - had) * sizeof(uint32_t));
  }
  if (++g->visit_epoch == 0) {
    memset(g->visited, 0, g->visited_capacity * sizeof(uint32_t));
    g->visit_epoch = 1;
  }
  uint32_t depth = 0;
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(g->allocator, sizeof(uint32_t),
                                               1, &g->stack_capacity,
                                               (void**)&g->stack));
  g->stack[depth++] = from;
  g->visited[from] = g->visit_epoch;
  while (depth) {
    const hrx_gpu_node_rec_t* node = &g->nodes[g->stack[--depth]];
    for (uint32_t d = 0; d < node->dep_count; ++d) {
      uint32_t next = g->deps[node->deps_start + d];
      if (next == target) {
        *out_reaches = true;
        return HRX_OK;
      }
      if (next < target || g->visited[next] == g->visit_epoch) continue;
      g->visited[next] = g->visit_epoch;
      HRX_RETURN_IF_ERROR(
          hrx_allocator_grow_array(g->allocator, sizeof(uint32_t), depth + 1,
                                   &g->stack_capacity, (void**)&g->stack));
      g->stack[depth++] = next;
    }
  }
  return HRX_OK;
}

static int hrx_gpu_compare_u32(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  return (x > y) - (x < y);
}

/* Adds a node with |command| whose deps are the explicit ones plus those
 * inferred from |accesses|, reduced to the minimal frontier. */
static hrx_status_t hrx_gpu_graph_add(hrx_gpu_graph_t* g,
                                      hrx_gpu_command_t* command,
                                      const hrx_gpu_access_range_t* accesses,
                                      size_t access_count,
                                      const hrx_gpu_node_t* deps,
                                      size_t dep_count,
                                      hrx_gpu_node_t* out_node) {
  uint32_t self = g->node_count;
  uint32_t* list = NULL;
  uint32_t count = 0;
  size_t cap = 0;
  hrx_status_t status = HRX_OK;
  if (g->broken) {
    status = hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                             "graph recording failed earlier; record a new "
                             "graph");
  } else if (dep_count && !deps) {
    status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "%zu dependencies but no array", dep_count);
  }
  for (size_t d = 0; d < dep_count && status == HRX_OK; ++d) {
    if (deps[d] >= self) {
      status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "dependency %u is not a node of this graph",
                               deps[d]);
    } else {
      status = hrx_gpu_add_candidate(g, deps[d], self, &list, &count, &cap);
    }
  }
  if (status == HRX_OK) {
    status = hrx_allocator_grow_array(g->allocator, sizeof(hrx_gpu_node_rec_t),
                                      self + 1, &g->node_capacity,
                                      (void**)&g->nodes);
  }
  bool tracked = false;
  if (status == HRX_OK && g->tracker) {
    tracked = true;
    for (size_t a = 0; a < access_count && status == HRX_OK; ++a) {
      status = hrx_gpu_hazard_tracker_access(
          g->tracker, self, (uint64_t)(uintptr_t)accesses[a].buffer,
          accesses[a].begin, accesses[a].end, accesses[a].access);
    }
    size_t inferred = 0;
    const uint32_t* found =
        status == HRX_OK ? hrx_gpu_hazard_tracker_deps(g->tracker, &inferred)
                         : NULL;
    for (size_t i = 0; i < inferred && status == HRX_OK; ++i) {
      status = hrx_gpu_add_candidate(g, found[i], self, &list, &count, &cap);
    }
  }
  /* Sort, drop duplicates, then drop deps implied by another dep. */
  uint32_t kept = 0;
  if (status == HRX_OK && count) {
    qsort(list, count, sizeof(uint32_t), hrx_gpu_compare_u32);
    for (uint32_t i = 0; i < count; ++i) {
      if (i && list[i] == list[i - 1]) continue;
      bool implied = false;
      for (uint32_t j = i + 1; j < count && !implied && status == HRX_OK;
           ++j) {
        /* Only a later node can depend on list[i]. */
        if (list[j] != list[i]) {
          status = hrx_gpu_reaches(g, list[j], list[i], &implied);
        }
      }
      if (!implied) list[kept++] = list[i];
    }
  }
  if (status == HRX_OK && kept) {
    status = hrx_allocator_grow_array(g->allocator, sizeof(hrx_gpu_node_t),
                                      g->dep_count + kept, &g->dep_capacity,
                                      (void**)&g->deps);
  }
  if (status != HRX_OK) {
    if (tracked) g->broken = true;
    hrx_allocator_free(g->allocator, list);
    hrx_gpu_command_release(g->allocator, command);
    return status;
  }
  hrx_gpu_node_rec_t* node = &g->nodes[self];
  node->command = *command;
  memset(command, 0, sizeof(*command));
  node->deps_start = g->dep_count;
  node->dep_count = kept;
  if (kept) memcpy(&g->deps[g->dep_count], list, kept * sizeof(uint32_t));
  g->dep_count += kept;
  g->node_count++;
  hrx_allocator_free(g->allocator, list);
  if (out_node) *out_node = self;
  return HRX_OK;
}

static hrx_gpu_access_range_t hrx_gpu_range(hrx_gpu_view_t view,
                                            hrx_gpu_access_t access) {
  return (hrx_gpu_access_range_t){view.buffer, view.offset,
                                  view.offset + view.length, access};
}

/*===------------------------------------------------------------------===*/
/* Recording                                                               */
/*===------------------------------------------------------------------===*/

hrx_status_t hrx_gpu_graph_dispatch(hrx_gpu_graph_t* g,
                                    const hrx_gpu_kernel_t* kernel,
                                    const hrx_gpu_launch_t* launch,
                                    const hrx_gpu_node_t* deps,
                                    size_t dep_count,
                                    hrx_gpu_node_t* out_node) {
  hrx_gpu_command_t command;
  HRX_RETURN_IF_ERROR(
      hrx_gpu_command_dispatch(g->device, kernel, launch, NULL, NULL,
                               &command));
  hrx_gpu_access_range_t accesses[HRX_HOST_MAX_BINDINGS];
  size_t count = 0;
  for (size_t a = 0; a < launch->arg_count; ++a) {
    const hrx_gpu_arg_t* arg = &launch->args[a];
    if (arg->kind != HRX_GPU_ARG_BINDING) continue;
    if ((unsigned)arg->access > HRX_GPU_ACCESS_WRITE) {
      hrx_gpu_command_release(g->allocator, &command);
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "argument %zu has unknown access %d", a,
                             (int)arg->access);
    }
    accesses[count++] = hrx_gpu_range(arg->view, arg->access);
  }
  return hrx_gpu_graph_add(g, &command, accesses, count, deps, dep_count,
                           out_node);
}

hrx_status_t hrx_gpu_graph_copy(hrx_gpu_graph_t* g, hrx_gpu_view_t source,
                                hrx_gpu_view_t destination,
                                const hrx_gpu_node_t* deps, size_t dep_count,
                                hrx_gpu_node_t* out_node) {
  hrx_gpu_command_t command;
  HRX_RETURN_IF_ERROR(
      hrx_gpu_copy_check_overlap(g->device, source, destination));
  HRX_RETURN_IF_ERROR(
      hrx_gpu_command_copy(g->device, source, destination, &command));
  hrx_gpu_access_range_t accesses[] = {
      hrx_gpu_range(source, HRX_GPU_ACCESS_READ),
      hrx_gpu_range(destination, HRX_GPU_ACCESS_WRITE)};
  return hrx_gpu_graph_add(g, &command, accesses, 2, deps, dep_count,
                           out_node);
}

hrx_status_t hrx_gpu_graph_fill(hrx_gpu_graph_t* g, hrx_gpu_view_t view,
                                uint32_t pattern, const hrx_gpu_node_t* deps,
                                size_t dep_count, hrx_gpu_node_t* out_node) {
  hrx_gpu_command_t command;
  HRX_RETURN_IF_ERROR(hrx_gpu_command_fill(g->device, view, pattern, &command));
  hrx_gpu_access_range_t access = hrx_gpu_range(view, HRX_GPU_ACCESS_WRITE);
  return hrx_gpu_graph_add(g, &command, &access, 1, deps, dep_count,
                           out_node);
}

hrx_status_t hrx_gpu_graph_join(hrx_gpu_graph_t* g,
                                const hrx_gpu_node_t* deps, size_t dep_count,
                                hrx_gpu_node_t* out_node) {
  hrx_gpu_command_t command;
  memset(&command, 0, sizeof(command));
  return hrx_gpu_graph_add(g, &command, NULL, 0, deps, dep_count, out_node);
}

/*===------------------------------------------------------------------===*/
/* Replay and queries                                                      */
/*===------------------------------------------------------------------===*/

hrx_status_t hrx_gpu_graph_replay(hrx_gpu_graph_t* g,
                                  hrx_gpu_stream_t* stream) {
  /* Recording order is a topological order, and a stream runs its work in
   * order, so every edge holds; joins need no packet on one stream. */
  for (uint32_t n = 0; n < g->node_count; ++n) {
    hrx_gpu_command_t* command = &g->nodes[n].command;
    if (command->type == 0) continue;
    HRX_RETURN_IF_ERROR(hrx_gpu_stream_submit(stream, command, false));
  }
  hrx_fabric_signal_t* timeline = hrx_gpu_stream_timeline(stream);
  hrx_fabric_signal_retain(timeline);
  hrx_fabric_signal_release(g->replay_timeline);
  g->replay_timeline = timeline;
  g->replay_point = hrx_gpu_stream_point(stream);
  return HRX_OK;
}

size_t hrx_gpu_graph_node_count(const hrx_gpu_graph_t* g) {
  return g->node_count;
}

const hrx_gpu_node_t* hrx_gpu_graph_node_deps(const hrx_gpu_graph_t* g,
                                              hrx_gpu_node_t node,
                                              size_t* out_count) {
  if (node >= g->node_count) {
    *out_count = 0;
    return NULL;
  }
  *out_count = g->nodes[node].dep_count;
  return g->deps + g->nodes[node].deps_start;
}

uint64_t hrx_gpu_graph_binding_bytes(const hrx_gpu_graph_t* g) {
  uint64_t total = 0;
  for (uint32_t n = 0; n < g->node_count; ++n) {
    const hrx_gpu_command_t* c = &g->nodes[n].command;
    for (uint32_t b = 0; b < c->buffer_count; ++b) {
      bool seen = false;
      for (uint32_t m = 0; m <= n && !seen; ++m) {
        const hrx_gpu_command_t* e = &g->nodes[m].command;
        uint32_t limit = m == n ? b : e->buffer_count;
        for (uint32_t k = 0; k < limit && !seen; ++k) {
          seen = hrx_gpu_command_buffers(e)[k] == hrx_gpu_command_buffers(c)[b];
        }
      }
      if (!seen) total += hrx_gpu_command_buffers(c)[b]->memory.size;
    }
  }
  return total;
}
