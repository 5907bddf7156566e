/* Stream graphs: prepared commands with dependencies, replayed on streams.
 * Access inference keeps, per buffer, byte segments with their last writer
 * and the readers since; a new access depends on the writer (read after
 * write, write after write) or on the readers (write after read). */
#include <stdlib.h>
#include <string.h>

#include "gpu_internal.h"

#define HRX_GPU_NO_NODE UINT32_MAX

typedef struct hrx_gpu_node_rec_t {
  hrx_gpu_command_t command; /* type 0 for joins */
  uint32_t deps_start, dep_count;
} hrx_gpu_node_rec_t;

typedef struct hrx_gpu_segment_t {
  const hrx_gpu_buffer_t* buffer;
  uint64_t begin, end;
  uint32_t writer;
  uint32_t* readers;
  uint32_t reader_count, reader_capacity;
} hrx_gpu_segment_t;

struct hrx_gpu_graph_s {
  hrx_gpu_device_t* device; /* retained */
  hrx_allocator_t allocator;
  uint32_t flags;
  hrx_gpu_node_rec_t* nodes;
  uint32_t node_count, node_capacity;
  hrx_gpu_node_t* deps;
  uint32_t dep_count, dep_capacity;
  hrx_gpu_segment_t* segments;
  uint32_t segment_count, segment_capacity;
  /* The last replay, so destruction waits for it. */
  hrx_fabric_signal_t* replay_timeline;
  uint64_t replay_point;
};

typedef struct hrx_gpu_access_range_t {
  const hrx_gpu_buffer_t* buffer;
  uint64_t begin, end;
  bool reads, writes;
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
  for (uint32_t s = 0; s < graph->segment_count; ++s) {
    hrx_allocator_free(graph->allocator, graph->segments[s].readers);
  }
  hrx_allocator_free(graph->allocator, graph->segments);
  hrx_allocator_free(graph->allocator, graph->nodes);
  hrx_allocator_free(graph->allocator, graph->deps);
  hrx_gpu_device_t* device = graph->device;
  hrx_allocator_free(graph->allocator, graph);
  hrx_gpu_device_release(device);
}

/* Grows |*array| (of |size|-byte elements) to hold |needed|. */
static hrx_status_t hrx_gpu_reserve(hrx_allocator_t allocator, void** array,
                                    uint32_t* capacity, uint32_t needed,
                                    size_t size) {
  if (needed <= *capacity) return HRX_OK;
  uint32_t next = *capacity ? *capacity * 2 : 16;
  while (next < needed) next *= 2;
  void* data = *array;
  HRX_RETURN_IF_ERROR(hrx_allocator_realloc(allocator, (size_t)next * size,
                                            &data));
  *array = data;
  *capacity = next;
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Hazards                                                                 */
/*===------------------------------------------------------------------===*/

static hrx_status_t hrx_gpu_segment_add(hrx_gpu_graph_t* g,
                                        hrx_gpu_segment_t segment) {
  HRX_RETURN_IF_ERROR(hrx_gpu_reserve(g->allocator, (void**)&g->segments,
                                      &g->segment_capacity,
                                      g->segment_count + 1,
                                      sizeof(hrx_gpu_segment_t)));
  g->segments[g->segment_count++] = segment;
  return HRX_OK;
}

static hrx_status_t hrx_gpu_segment_copy_readers(hrx_gpu_graph_t* g,
                                                 const hrx_gpu_segment_t* from,
                                                 hrx_gpu_segment_t* to) {
  to->readers = NULL;
  to->reader_capacity = 0;
  to->reader_count = 0;
  if (!from->reader_count) return HRX_OK;
  HRX_RETURN_IF_ERROR(hrx_gpu_reserve(g->allocator, (void**)&to->readers,
                                      &to->reader_capacity,
                                      from->reader_count, sizeof(uint32_t)));
  memcpy(to->readers, from->readers, from->reader_count * sizeof(uint32_t));
  to->reader_count = from->reader_count;
  return HRX_OK;
}

/* Splits segments of |buffer| at |at| so that none straddles it. */
static hrx_status_t hrx_gpu_segment_split(hrx_gpu_graph_t* g,
                                          const hrx_gpu_buffer_t* buffer,
                                          uint64_t at) {
  uint32_t count = g->segment_count;
  for (uint32_t s = 0; s < count; ++s) {
    hrx_gpu_segment_t* seg = &g->segments[s];
    if (seg->buffer != buffer || seg->begin >= at || seg->end <= at) continue;
    hrx_gpu_segment_t tail = *seg;
    tail.begin = at;
    HRX_RETURN_IF_ERROR(hrx_gpu_segment_copy_readers(g, seg, &tail));
    g->segments[s].end = at;
    HRX_RETURN_IF_ERROR(hrx_gpu_segment_add(g, tail));
  }
  return HRX_OK;
}

static hrx_status_t hrx_gpu_add_candidate(hrx_gpu_graph_t* g, uint32_t node,
                                          uint32_t self, uint32_t** list,
                                          uint32_t* count, uint32_t* cap) {
  if (node == HRX_GPU_NO_NODE || node == self) return HRX_OK;
  HRX_RETURN_IF_ERROR(hrx_gpu_reserve(g->allocator, (void**)list, cap,
                                      *count + 1, sizeof(uint32_t)));
  (*list)[(*count)++] = node;
  return HRX_OK;
}

/* Adds the hazards of |access| by node |self| to the candidate list, then
 * records the access. */
static hrx_status_t hrx_gpu_track(hrx_gpu_graph_t* g, uint32_t self,
                                  const hrx_gpu_access_range_t* access,
                                  uint32_t** list, uint32_t* count,
                                  uint32_t* cap) {
  if (access->begin == access->end) return HRX_OK;
  HRX_RETURN_IF_ERROR(hrx_gpu_segment_split(g, access->buffer, access->begin));
  HRX_RETURN_IF_ERROR(hrx_gpu_segment_split(g, access->buffer, access->end));
  /* Cover gaps inside the range with fresh segments. */
  uint64_t cursor = access->begin;
  while (cursor < access->end) {
    uint64_t next = access->end;
    bool covered = false;
    for (uint32_t s = 0; s < g->segment_count; ++s) {
      const hrx_gpu_segment_t* seg = &g->segments[s];
      if (seg->buffer != access->buffer || seg->end <= cursor) continue;
      if (seg->begin <= cursor) {
        covered = true;
        next = seg->end;
        break;
      }
      if (seg->begin < next) next = seg->begin;
    }
    if (!covered) {
      hrx_gpu_segment_t fresh = {.buffer = access->buffer, .begin = cursor,
                                 .end = next, .writer = HRX_GPU_NO_NODE};
      HRX_RETURN_IF_ERROR(hrx_gpu_segment_add(g, fresh));
    }
    cursor = next;
  }
  for (uint32_t s = 0; s < g->segment_count; ++s) {
    hrx_gpu_segment_t* seg = &g->segments[s];
    if (seg->buffer != access->buffer || seg->begin < access->begin ||
        seg->end > access->end) {
      continue;
    }
    if (access->writes) {
      /* WAR on every reader since the last write; WAW on the writer only
       * when nobody read in between (the readers already follow it). */
      bool other_readers = false;
      for (uint32_t r = 0; r < seg->reader_count; ++r) {
        if (seg->readers[r] != self) other_readers = true;
        HRX_RETURN_IF_ERROR(
            hrx_gpu_add_candidate(g, seg->readers[r], self, list, count, cap));
      }
      if (!other_readers || access->reads) {
        HRX_RETURN_IF_ERROR(
            hrx_gpu_add_candidate(g, seg->writer, self, list, count, cap));
      }
      seg->writer = self;
      seg->reader_count = 0;
    } else {
      HRX_RETURN_IF_ERROR(
          hrx_gpu_add_candidate(g, seg->writer, self, list, count, cap));
      if (!seg->reader_count || seg->readers[seg->reader_count - 1] != self) {
        HRX_RETURN_IF_ERROR(hrx_gpu_reserve(
            g->allocator, (void**)&seg->readers, &seg->reader_capacity,
            seg->reader_count + 1, sizeof(uint32_t)));
        seg->readers[seg->reader_count++] = self;
      }
    }
  }
  return HRX_OK;
}

/* True when |target| is |from| or one of its ancestors. Nodes only depend
 * on earlier nodes, so the search stops below |target|. */
static bool hrx_gpu_reaches(const hrx_gpu_graph_t* g, uint32_t from,
                            uint32_t target) {
  if (from == target) return true;
  if (from < target) return false;
  const hrx_gpu_node_rec_t* node = &g->nodes[from];
  for (uint32_t d = 0; d < node->dep_count; ++d) {
    if (hrx_gpu_reaches(g, g->deps[node->deps_start + d], target)) return true;
  }
  return false;
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
  uint32_t count = 0, cap = 0;
  hrx_status_t status = HRX_OK;
  if (dep_count && !deps) {
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
  if (g->flags & HRX_GPU_GRAPH_INFER_ACCESS) {
    for (size_t a = 0; a < access_count && status == HRX_OK; ++a) {
      status = hrx_gpu_track(g, self, &accesses[a], &list, &count, &cap);
    }
  }
  if (status == HRX_OK) {
    status = hrx_gpu_reserve(g->allocator, (void**)&g->nodes,
                             &g->node_capacity, self + 1,
                             sizeof(hrx_gpu_node_rec_t));
  }
  /* Sort, drop duplicates, then drop deps implied by another dep. */
  uint32_t kept = 0;
  if (status == HRX_OK && count) {
    qsort(list, count, sizeof(uint32_t), hrx_gpu_compare_u32);
    for (uint32_t i = 0; i < count; ++i) {
      if (i && list[i] == list[i - 1]) continue;
      bool implied = false;
      for (uint32_t j = 0; j < count && !implied; ++j) {
        implied = list[j] != list[i] && hrx_gpu_reaches(g, list[j], list[i]);
      }
      if (!implied) list[kept++] = list[i];
    }
    status = hrx_gpu_reserve(g->allocator, (void**)&g->deps,
                             &g->dep_capacity, g->dep_count + kept,
                             sizeof(hrx_gpu_node_t));
  }
  if (status != HRX_OK) {
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

static hrx_gpu_access_range_t hrx_gpu_range(hrx_gpu_view_t view, bool reads,
                                            bool writes) {
  return (hrx_gpu_access_range_t){view.buffer, view.offset,
                                  view.offset + view.length, reads, writes};
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
      hrx_gpu_command_dispatch(g->device, kernel, launch, &command));
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
    accesses[count++] = hrx_gpu_range(arg->view,
                                      arg->access != HRX_GPU_ACCESS_WRITE,
                                      arg->access != HRX_GPU_ACCESS_READ);
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
      hrx_gpu_command_copy(g->device, source, destination, &command));
  hrx_gpu_access_range_t accesses[] = {
      hrx_gpu_range(source, true, false),
      hrx_gpu_range(destination, false, true)};
  return hrx_gpu_graph_add(g, &command, accesses, 2, deps, dep_count,
                           out_node);
}

hrx_status_t hrx_gpu_graph_fill(hrx_gpu_graph_t* g, hrx_gpu_view_t view,
                                uint32_t pattern, const hrx_gpu_node_t* deps,
                                size_t dep_count, hrx_gpu_node_t* out_node) {
  hrx_gpu_command_t command;
  HRX_RETURN_IF_ERROR(hrx_gpu_command_fill(g->device, view, pattern, &command));
  hrx_gpu_access_range_t access = hrx_gpu_range(view, false, true);
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
          seen = e->buffers[k] == c->buffers[b];
        }
      }
      if (!seen) total += c->buffers[b]->memory.size;
    }
  }
  return total;
}
