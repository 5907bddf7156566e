/* The NPU lane: programs bound to views of runtime buffers (imported as
 * dma-bufs where the GPU exports its memory, staged otherwise), their
 * graph nodes, and the host-ordered region each node runs as. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "exec_internal.h"
#include "hrx/exec/npu.h"

typedef struct hrx_exec_npu_bound_t {
  hrx_gpu_view_t view; /* buffer retained */
  hrx_gpu_access_t access;
  hrx_npu_buffer_t* npu; /* one reference */
  bool staged;           /* |npu| is a staging buffer of view.length bytes */
} hrx_exec_npu_bound_t;

/* One runtime buffer imported into one NPU device, shared by every
 * program binding it: a device holds one import per dma-buf (a second
 * would be ALREADY_EXISTS). */
typedef struct hrx_exec_npu_import_t {
  const hrx_npu_device_t* device;
  const hrx_gpu_buffer_t* buffer;
  hrx_npu_buffer_t* npu; /* the cache's reference */
  size_t users;          /* bindings of live programs */
} hrx_exec_npu_import_t;

/* The runtime's imports; programs hold references, so it outlives the
 * runtime when they do. */
typedef struct hrx_exec_npu_imports_s {
  atomic_int references;
  hrx_allocator_t allocator;
  pthread_mutex_t mutex;
  hrx_exec_npu_import_t* items;
  size_t count, capacity;
} hrx_exec_npu_imports_t;

struct hrx_exec_npu_program_s {
  atomic_int references;
  hrx_exec_runtime_t* runtime;
  hrx_allocator_t allocator;
  hrx_budget_t* budget; /* retained: charged with the staging bytes */
  uint64_t charged;
  hrx_exec_npu_imports_t* imports; /* retained */
  hrx_npu_device_t* device;
  hrx_npu_program_t* program;
  char name[64];
  size_t binding_count;
  hrx_exec_npu_bound_t bindings[];
};

static hrx_gpu_access_t hrx_exec_npu_access(hrx_npu_access_t access) {
  switch (access) {
    case HRX_NPU_ACCESS_READ:
      return HRX_GPU_ACCESS_READ;
    case HRX_NPU_ACCESS_WRITE:
      return HRX_GPU_ACCESS_WRITE;
    case HRX_NPU_ACCESS_READ_WRITE:
      break;
  }
  return HRX_GPU_ACCESS_READ_WRITE;
}

/* The runtime's import cache, made on first use; mutex not held. */
static hrx_status_t hrx_exec_npu_imports_get(hrx_exec_runtime_t* rt,
                                             hrx_exec_npu_imports_t** out) {
  pthread_mutex_lock(&rt->mutex);
  hrx_status_t status = HRX_OK;
  if (!rt->npu_imports) {
    hrx_exec_npu_imports_t* c = NULL;
    status = hrx_allocator_malloc(rt->allocator, sizeof(*c), (void**)&c);
    if (status == HRX_OK) {
      atomic_init(&c->references, 1);
      c->allocator = rt->allocator;
      pthread_mutex_init(&c->mutex, NULL);
      rt->npu_imports = c;
    }
  }
  if (status == HRX_OK) {
    atomic_fetch_add_explicit(&rt->npu_imports->references, 1,
                              memory_order_relaxed);
    *out = rt->npu_imports;
  }
  pthread_mutex_unlock(&rt->mutex);
  return status;
}

void hrx_exec_npu_imports_release(hrx_exec_npu_imports_t* c) {
  if (!c || atomic_fetch_sub_explicit(&c->references, 1,
                                      memory_order_acq_rel) != 1) {
    return;
  }
  /* Every program released its bindings: no import is left. */
  hrx_allocator_free(c->allocator, c->items);
  pthread_mutex_destroy(&c->mutex);
  hrx_allocator_free(c->allocator, c);
}

/* The import's owner: the runtime buffer stays retained while the NPU
 * may use its pages. */
static void hrx_exec_npu_owner_release(void* context) {
  hrx_gpu_buffer_release(context);
}

/* |b|'s buffer as an NPU buffer of |device|: the import a program already
 * made, or a new one from a dma-buf export. UNAVAILABLE (from the export)
 * when the buffer's device exports nothing. */
static hrx_status_t hrx_exec_npu_import(hrx_exec_npu_program_t* p,
                                        hrx_npu_device_t* device,
                                        hrx_exec_npu_bound_t* b) {
  hrx_exec_npu_imports_t* c = p->imports;
  pthread_mutex_lock(&c->mutex);
  for (size_t i = 0; i < c->count; ++i) {
    if (c->items[i].device == device && c->items[i].buffer == b->view.buffer) {
      c->items[i].users++;
      b->npu = c->items[i].npu;
      hrx_npu_buffer_retain(b->npu);
      pthread_mutex_unlock(&c->mutex);
      return HRX_OK;
    }
  }
  hrx_status_t status = hrx_allocator_grow_array(
      c->allocator, sizeof(*c->items), c->count + 1, &c->capacity,
      (void**)&c->items);
  int fd = -1;
  if (status == HRX_OK) {
    status = hrx_gpu_buffer_export_dmabuf(b->view.buffer, &fd);
  }
  hrx_npu_buffer_t* imported = NULL;
  if (status == HRX_OK) {
    hrx_npu_buffer_owner_t owner = {b->view.buffer,
                                    hrx_exec_npu_owner_release};
    hrx_gpu_buffer_retain(b->view.buffer);
    status = hrx_npu_buffer_import_dmabuf(
        device, fd, hrx_gpu_buffer_size(b->view.buffer), &owner, &imported);
    close(fd);
    if (status != HRX_OK) hrx_gpu_buffer_release(b->view.buffer);
  }
  if (status == HRX_OK) {
    c->items[c->count++] =
        (hrx_exec_npu_import_t){device, b->view.buffer, imported, 1};
    b->npu = imported;
    hrx_npu_buffer_retain(imported);
  }
  pthread_mutex_unlock(&c->mutex);
  return status;
}

/* A binding of a program being freed lets go of its import. */
static void hrx_exec_npu_unimport(hrx_exec_npu_program_t* p,
                                  const hrx_exec_npu_bound_t* b) {
  hrx_exec_npu_imports_t* c = p->imports;
  hrx_npu_buffer_t* dropped = NULL;
  pthread_mutex_lock(&c->mutex);
  for (size_t i = 0; i < c->count; ++i) {
    hrx_exec_npu_import_t* item = &c->items[i];
    if (item->device != p->device || item->buffer != b->view.buffer) {
      continue;
    }
    if (--item->users == 0) {
      dropped = item->npu;
      c->items[i] = c->items[--c->count];
    }
    break;
  }
  pthread_mutex_unlock(&c->mutex);
  hrx_npu_buffer_release(dropped);
}

/* Binds |b| to the NPU: the runtime buffer itself when its device
 * exports it, else a staging buffer charged to |p|'s budget. */
static hrx_status_t hrx_exec_npu_bind(hrx_exec_npu_program_t* p,
                                      hrx_npu_device_t* device,
                                      hrx_exec_npu_bound_t* b,
                                      const char* what) {
  hrx_status_t status = hrx_exec_npu_import(p, device, b);
  if (!hrx_status_is(status, HRX_STATUS_UNAVAILABLE)) {
    return hrx_status_annotate(status, "%s", what);
  }
  hrx_status_free(status);
  if (!hrx_gpu_buffer_host_pointer(b->view.buffer)) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "%s: its buffer can be neither imported by the "
                           "NPU nor staged by the host",
                           what);
  }
  HRX_RETURN_IF_ERROR(hrx_status_annotate(
      hrx_budget_charge(p->budget, b->view.length), "%s", what));
  status = hrx_npu_buffer_allocate(device, b->view.length, &b->npu);
  if (status != HRX_OK) {
    hrx_status_free(hrx_budget_uncharge(p->budget, b->view.length));
    return hrx_status_annotate(status, "%s", what);
  }
  p->charged += b->view.length;
  b->staged = true;
  return HRX_OK;
}

static void hrx_exec_npu_program_free(hrx_exec_npu_program_t* p) {
  /* Waits for pending invocations (or leaks the program and the buffers
   * it holds when the NPU never finishes). */
  hrx_npu_program_destroy(p->program);
  for (size_t i = 0; i < p->binding_count; ++i) {
    const hrx_exec_npu_bound_t* b = &p->bindings[i];
    hrx_npu_buffer_release(b->npu);
    if (b->npu && !b->staged) hrx_exec_npu_unimport(p, b);
    hrx_gpu_buffer_release(b->view.buffer);
  }
  if (p->charged) hrx_status_free(hrx_budget_uncharge(p->budget, p->charged));
  hrx_exec_npu_imports_release(p->imports);
  hrx_budget_release(p->budget);
  hrx_allocator_free(p->allocator, p);
}

/* The views against |runtime| and the entry's bindings, before anything
 * is allocated. */
static hrx_status_t hrx_exec_npu_check_views(hrx_exec_runtime_t* rt,
                                             const hrx_npu_image_entry_t* e,
                                             const hrx_gpu_view_t* views,
                                             size_t view_count) {
  if (view_count != e->binding_count || (view_count && !views)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "NPU entry '%s' has %zu bindings; %zu views given",
                           e->name, e->binding_count, view_count);
  }
  for (size_t i = 0; i < view_count; ++i) {
    char what[96];
    snprintf(what, sizeof(what), "binding %zu of NPU entry '%s'", i, e->name);
    HRX_RETURN_IF_ERROR(hrx_exec_check_view(views[i], what));
    if (hrx_gpu_buffer_device(views[i].buffer) != rt->device) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "%s is a buffer of another device", what);
    }
  }
  return HRX_OK;
}

hrx_status_t hrx_exec_npu_program_prepare(hrx_exec_runtime_t* rt,
                                          hrx_npu_device_t* device,
                                          const hrx_npu_image_t* image,
                                          const char* entry_name,
                                          const hrx_gpu_view_t* views,
                                          size_t view_count,
                                          hrx_exec_npu_program_t** out) {
  *out = NULL;
  if (!rt || !device || !image || !entry_name) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "an NPU program needs a runtime, a device, an "
                           "image and an entry name");
  }
  size_t entry = 0;
  HRX_RETURN_IF_ERROR(hrx_npu_image_find_entry(image, entry_name, &entry));
  hrx_npu_image_entry_t info;
  hrx_npu_image_entry(image, entry, &info);
  HRX_RETURN_IF_ERROR(hrx_exec_npu_check_views(rt, &info, views, view_count));
  hrx_exec_npu_program_t* p = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(
      rt->allocator, sizeof(*p) + view_count * sizeof(p->bindings[0]),
      (void**)&p));
  atomic_init(&p->references, 1);
  p->runtime = rt;
  p->allocator = rt->allocator;
  p->budget = rt->budget;
  hrx_budget_retain(p->budget);
  p->device = device;
  snprintf(p->name, sizeof(p->name), "%s", entry_name);
  hrx_npu_binding_t bindings[64];
  hrx_status_t status = hrx_exec_npu_imports_get(rt, &p->imports);
  if (status == HRX_OK && view_count > 64) {
    status = hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                             "NPU entry '%s' has more than 64 bindings",
                             entry_name);
  }
  for (size_t i = 0; i < view_count && status == HRX_OK; ++i) {
    hrx_exec_npu_bound_t* b = &p->bindings[i];
    hrx_npu_image_binding_t declared;
    hrx_npu_image_binding(image, entry, i, &declared);
    b->view = views[i];
    b->access = hrx_exec_npu_access(declared.access);
    hrx_gpu_buffer_retain(b->view.buffer);
    p->binding_count = i + 1;
    char what[96];
    snprintf(what, sizeof(what), "binding %zu of NPU entry '%s'", i,
             entry_name);
    status = hrx_exec_npu_bind(p, device, b, what);
    if (status == HRX_OK) {
      bindings[i] = (hrx_npu_binding_t){
          b->npu, b->staged ? 0 : b->view.offset, b->view.length};
    }
  }
  if (status == HRX_OK) {
    status = hrx_npu_program_prepare(device, image, entry_name, bindings,
                                     view_count, &p->program);
  }
  if (status != HRX_OK) {
    hrx_exec_npu_program_free(p);
    return status;
  }
  *out = p;
  return HRX_OK;
}

void hrx_exec_npu_program_retain(hrx_exec_npu_program_t* p) {
  if (p) atomic_fetch_add_explicit(&p->references, 1, memory_order_relaxed);
}

void hrx_exec_npu_program_release(hrx_exec_npu_program_t* p) {
  if (!p || atomic_fetch_sub_explicit(&p->references, 1,
                                      memory_order_acq_rel) != 1) {
    return;
  }
  hrx_exec_npu_program_free(p);
}

hrx_npu_buffer_t* hrx_exec_npu_program_buffer(const hrx_exec_npu_program_t* p,
                                              size_t index) {
  return p && index < p->binding_count ? p->bindings[index].npu : NULL;
}

hrx_status_t hrx_exec_npu_graph_invoke(hrx_exec_graph_t* g,
                                       hrx_exec_npu_program_t* p,
                                       hrx_exec_node_t* out_node) {
  if (!g || !p) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "an NPU node needs a graph and a program");
  }
  if (p->runtime != g->runtime) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "NPU program '%s' belongs to another runtime",
                           p->name);
  }
  hrx_exec_access_t* accesses = NULL;
  if (p->binding_count) {
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
        g->allocator, p->binding_count, sizeof(*accesses),
        (void**)&accesses));
  }
  for (size_t i = 0; i < p->binding_count; ++i) {
    accesses[i] = (hrx_exec_access_t){p->bindings[i].view,
                                      p->bindings[i].access};
  }
  hrx_exec_node_rec_t n = {.op = HRX_EXEC_OP_NPU, .lane = HRX_EXEC_LANE_NPU,
                           .npu = p};
  hrx_exec_npu_program_retain(p);
  hrx_status_t status =
      hrx_exec_graph_add(g, &n, accesses, p->binding_count, out_node);
  hrx_allocator_free(g->allocator, accesses);
  return status;
}

/* Copies every staged binding into its staging buffer (all of them:
 * bytes the NPU does not write must come back unchanged) and writes it
 * back for the NPU; returns the bytes copied. */
static uint64_t hrx_exec_npu_stage_in(hrx_exec_npu_program_t* p) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < p->binding_count; ++i) {
    hrx_exec_npu_bound_t* b = &p->bindings[i];
    if (!b->staged) continue;
    const uint8_t* source = hrx_gpu_buffer_host_pointer(b->view.buffer);
    memcpy(hrx_npu_buffer_host(b->npu), source + b->view.offset,
           b->view.length);
    hrx_npu_buffer_flush(b->npu, 0, b->view.length);
    bytes += b->view.length;
  }
  return bytes;
}

static uint64_t hrx_exec_npu_stage_out(hrx_exec_npu_program_t* p) {
  uint64_t bytes = 0;
  for (size_t i = 0; i < p->binding_count; ++i) {
    hrx_exec_npu_bound_t* b = &p->bindings[i];
    if (!b->staged || b->access == HRX_GPU_ACCESS_READ) continue;
    hrx_npu_buffer_invalidate(b->npu, 0, b->view.length);
    uint8_t* target = hrx_gpu_buffer_host_pointer(b->view.buffer);
    memcpy(target + b->view.offset, hrx_npu_buffer_host(b->npu),
           b->view.length);
    bytes += b->view.length;
  }
  return bytes;
}

/* Waits, on the host, for what node |i| must follow: its dependencies on
 * the stream lanes (whose events the submission recorded) and submissions
 * still in flight that conflict with the graph. Other work on the lanes
 * runs on beside the region. */
static hrx_status_t hrx_exec_npu_wait_inputs(hrx_exec_runtime_t* rt,
                                             const hrx_exec_graph_t* g,
                                             size_t i,
                                             hrx_gpu_event_t* const* events,
                                             const bool* used) {
  /* What the lanes batched so far must reach the device to end. */
  for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
    if (!used[lane]) continue;
    hrx_gpu_stream_end_batch(rt->lanes[lane]);
    hrx_gpu_stream_begin_batch(rt->lanes[lane]);
  }
  const hrx_exec_node_rec_t* n = &g->nodes[i];
  for (uint32_t d = 0; d < n->dep_count; ++d) {
    uint32_t dep = g->deps[n->deps_start + d];
    if (g->nodes[dep].lane == HRX_EXEC_LANE_NPU) continue; /* ended */
    if (!events[dep]) {
      return hrx_make_status(HRX_STATUS_INTERNAL,
                             "NPU node %zu depends on node %u, which "
                             "recorded no event",
                             i, dep);
    }
    HRX_RETURN_IF_ERROR(hrx_gpu_event_wait(events[dep], HRX_TIMEOUT_INFINITE));
  }
  for (size_t f = 0; f < rt->flight_count; ++f) {
    const hrx_exec_flight_t* flight = &rt->flights[f];
    if (!hrx_exec_plans_conflict(g->plan, flight->plan)) continue;
    for (int lane = 0; lane < HRX_EXEC_LANE_COUNT; ++lane) {
      if (!flight->events[lane]) continue;
      HRX_RETURN_IF_ERROR(
          hrx_gpu_event_wait(flight->events[lane], HRX_TIMEOUT_INFINITE));
    }
  }
  return HRX_OK;
}

hrx_status_t hrx_exec_npu_region(hrx_exec_runtime_t* rt,
                                 const hrx_exec_graph_t* g, size_t i,
                                 hrx_gpu_event_t* const* node_events,
                                 const bool* used) {
  hrx_exec_npu_program_t* p = g->nodes[i].npu;
  HRX_RETURN_IF_ERROR(hrx_exec_npu_wait_inputs(rt, g, i, node_events, used));
  uint64_t start = hrx_clock_monotonic_ns();
  uint64_t staged = hrx_exec_npu_stage_in(p);
  hrx_npu_invocation_t invocation = {0};
  hrx_status_t status = hrx_npu_program_dispatch(p->program, &invocation);
  if (status == HRX_OK) {
    status = hrx_npu_program_wait(p->program, invocation,
                                  HRX_TIMEOUT_INFINITE);
  }
  /* A failed invocation's bytes are not the program's result: the
   * runtime buffers keep what they held. */
  if (status == HRX_OK) staged += hrx_exec_npu_stage_out(p);
  uint64_t end = hrx_clock_monotonic_ns();
  rt->stats.npu_regions++;
  rt->stats.npu_busy_ns += end - start;
  rt->stats.npu_staged_bytes += staged;
  if (rt->trace) {
    hrx_trace_arg_t arg = {.key = "program", .type = HRX_TRACE_ARG_STRING,
                           .value.s = p->name};
    hrx_trace_event_t event = {.name = "npu",
                               .start_ns = start,
                               .duration_ns = end - start,
                               .tid = (uint32_t)HRX_EXEC_LANE_NPU + 1,
                               .args = &arg,
                               .arg_count = 1};
    hrx_status_free(hrx_trace_record(rt->trace, &event));
  }
  if (status != HRX_OK) {
    return hrx_status_annotate(status, "NPU region of program '%s'", p->name);
  }
  return HRX_OK;
}
