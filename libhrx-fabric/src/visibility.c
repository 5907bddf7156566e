/* Allocation profiles, host cache control and prepared host steps
 * (hrx/fabric/visibility.h). Profiles are derived from what each device
 * allocates for a visibility (kfd_memory.c: GTT, or GTT COHERENT |
 * UNCACHED; the host device: heap memory). */
#include "hrx/fabric/visibility.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

#include "hrx/fabric/queue_families.h"
#include "kfd_device.h"

const char* hrx_fabric_agent_name(hrx_fabric_agent_t agent) {
  static const char* const names[HRX_FABRIC_AGENT_COUNT] = {
      "host", "AQL", "PM4", "transfer"};
  return (unsigned)agent < HRX_FABRIC_AGENT_COUNT ? names[agent] : NULL;
}

/* Atomic scope of a GPU pair by width: 32 and 64 bits only. */
static void hrx_gpu_atomics(hrx_fabric_visibility_pair_t* pair,
                            hrx_fabric_atomic_scope_t scope) {
  pair->atomics[2] = scope;
  pair->atomics[3] = scope;
}

/* The kfd provider's pair |producer| -> |consumer| on cached (GTT) or
 * coherent (GTT COHERENT | UNCACHED) memory. */
static void hrx_kfd_pair(hrx_fabric_agent_t producer,
                         hrx_fabric_agent_t consumer, bool coherent,
                         hrx_fabric_visibility_pair_t* pair) {
  pair->reachable = true;
  bool host_producer = producer == HRX_FABRIC_AGENT_HOST;
  bool host_consumer = consumer == HRX_FABRIC_AGENT_HOST;
  if (host_producer && host_consumer) {
    for (int w = 0; w < HRX_FABRIC_ATOMIC_WIDTHS; ++w) {
      pair->atomics[w] = HRX_FABRIC_ATOMIC_SYSTEM;
    }
    return;
  }
  if (!coherent) {
    pair->release = host_producer ? HRX_FABRIC_ACTION_HOST_WRITE_BACK
                                  : HRX_FABRIC_ACTION_QUEUE_RELEASE;
    pair->acquire = host_consumer ? HRX_FABRIC_ACTION_HOST_INVALIDATE
                                  : HRX_FABRIC_ACTION_QUEUE_ACQUIRE;
  }
  bool compute = (producer == HRX_FABRIC_AGENT_AQL ||
                  producer == HRX_FABRIC_AGENT_PM4 || host_producer) &&
                 (consumer == HRX_FABRIC_AGENT_AQL ||
                  consumer == HRX_FABRIC_AGENT_PM4 || host_consumer);
  if (!compute) return; /* the transfer engine does no atomics */
  if (coherent) {
    hrx_gpu_atomics(pair, HRX_FABRIC_ATOMIC_SYSTEM);
  } else if (!host_producer && !host_consumer) {
    hrx_gpu_atomics(pair, HRX_FABRIC_ATOMIC_DEVICE);
  }
}

hrx_status_t hrx_fabric_device_allocation_profile(
    const hrx_fabric_device_t* device, hrx_fabric_visibility_t visibility,
    hrx_fabric_allocation_profile_t* out_profile) {
  if ((unsigned)visibility >= HRX_FABRIC_VISIBILITY_COUNT) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown visibility %d", (int)visibility);
  }
  static const char* const names[HRX_FABRIC_VISIBILITY_COUNT] = {
      "device", "host-visible", "coherent"};
  bool kfd = hrx_kfd_device_cast((hrx_fabric_device_t*)device) != NULL;
  bool coherent = !kfd || visibility == HRX_FABRIC_VISIBILITY_HOST_COHERENT;
  hrx_fabric_allocation_profile_t profile;
  memset(&profile, 0, sizeof(profile));
  hrx_fabric_allocation_profile_t* out = &profile;
  out->visibility = visibility;
  out->name = names[visibility];
  out->memory_kind = !kfd       ? "host memory"
                     : coherent ? "GTT coherent uncached"
                                : "GTT";
  /* Strix Halo is an APU: every kfd heap is host-mapped too. */
  out->host_mapped = true;
  out->coherent = coherent;
  static const struct {
    hrx_fabric_agent_t agent;
    hrx_fabric_queue_family_t family;
  } kQueueAgents[] = {
      {HRX_FABRIC_AGENT_AQL, HRX_FABRIC_QUEUE_FAMILY_AQL_COMPUTE},
      {HRX_FABRIC_AGENT_PM4, HRX_FABRIC_QUEUE_FAMILY_PM4_COMPUTE},
      {HRX_FABRIC_AGENT_TRANSFER, HRX_FABRIC_QUEUE_FAMILY_TRANSFER},
  };
  out->agents[HRX_FABRIC_AGENT_HOST] = true;
  for (size_t i = 0; i < sizeof(kQueueAgents) / sizeof(kQueueAgents[0]);
       ++i) {
    hrx_fabric_queue_family_info_t info =
        HRX_STRUCT_INIT(hrx_fabric_queue_family_info_t);
    HRX_RETURN_IF_ERROR(hrx_fabric_device_queue_family_info(
        device, kQueueAgents[i].family, &info));
    out->agents[kQueueAgents[i].agent] = info.queue_count != 0;
  }
  for (int p = 0; p < HRX_FABRIC_AGENT_COUNT; ++p) {
    for (int c = 0; c < HRX_FABRIC_AGENT_COUNT; ++c) {
      hrx_fabric_visibility_pair_t* pair = &out->pairs[p][c];
      if (!out->agents[p] || !out->agents[c]) continue;
      if (kfd) {
        hrx_kfd_pair((hrx_fabric_agent_t)p, (hrx_fabric_agent_t)c, coherent,
                     pair);
        continue;
      }
      /* The host device: every agent is the CPU on cached host memory. */
      pair->reachable = true;
      for (int w = 0; w < HRX_FABRIC_ATOMIC_WIDTHS; ++w) {
        pair->atomics[w] = HRX_FABRIC_ATOMIC_SYSTEM;
      }
    }
  }
  return HRX_STRUCT_WRITE(hrx_fabric_allocation_profile_t, pairs, &profile,
                          out_profile);
}

hrx_status_t hrx_fabric_memory_allocate_shared(hrx_fabric_device_t* device,
                                               uint64_t size,
                                               hrx_fabric_memory_t* out) {
  return hrx_fabric_memory_allocate(device, size,
                                    HRX_FABRIC_VISIBILITY_HOST_COHERENT, out);
}

/* The host actions |op| takes on memory of |visibility| (0: none). */
static uint32_t hrx_host_actions(const hrx_fabric_device_t* device,
                                 hrx_fabric_visibility_t visibility,
                                 hrx_fabric_cache_op_t op) {
  hrx_fabric_allocation_profile_t profile = {.struct_size = sizeof(profile)};
  hrx_status_t status =
      hrx_fabric_device_allocation_profile(device, visibility, &profile);
  if (status != HRX_OK) {
    hrx_status_free(status);
    return 0;
  }
  /* Any GPU agent stands for all: the host side is the same for each. */
  return op == HRX_FABRIC_CACHE_HOST_WRITES_DONE
             ? profile.pairs[HRX_FABRIC_AGENT_HOST][HRX_FABRIC_AGENT_AQL]
                   .release
             : profile.pairs[HRX_FABRIC_AGENT_AQL][HRX_FABRIC_AGENT_HOST]
                   .acquire;
}

static hrx_status_t hrx_check_range(const hrx_fabric_memory_t* memory,
                                    uint64_t offset, uint64_t length,
                                    hrx_fabric_cache_op_t op) {
  if ((unsigned)op > HRX_FABRIC_CACHE_HOST_READS_BEGIN) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown cache operation %d", (int)op);
  }
  if (!memory || !memory->host_pointer) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "cache control needs host-mapped memory");
  }
  if (offset > memory->size || length > memory->size - offset) {
    return hrx_make_status(
        HRX_STATUS_INVALID_ARGUMENT,
        "range of %llu bytes at offset %llu is not inside the %llu-byte "
        "allocation at 0x%llx",
        (unsigned long long)length, (unsigned long long)offset,
        (unsigned long long)memory->size,
        (unsigned long long)memory->device_address);
  }
  return HRX_OK;
}

/* Writes back and drops the CPU's lines of [begin, end): clflush does
 * both, which serves a release and an acquire alike. */
static void hrx_host_cache_flush(uintptr_t begin, uintptr_t end) {
#if defined(__x86_64__) || defined(__i386__)
  _mm_mfence();
  for (uintptr_t line = begin & ~(uintptr_t)63; line < end; line += 64) {
    _mm_clflush((const void*)line);
  }
  _mm_mfence();
#else
  (void)begin;
  (void)end;
  atomic_thread_fence(memory_order_seq_cst);
#endif
}

hrx_status_t hrx_fabric_memory_cache_control(hrx_fabric_device_t* device,
                                             const hrx_fabric_memory_t* memory,
                                             uint64_t offset, uint64_t length,
                                             hrx_fabric_cache_op_t op) {
  HRX_RETURN_IF_ERROR(hrx_check_range(memory, offset, length, op));
  if (length && hrx_host_actions(device, memory->visibility, op)) {
    uintptr_t begin = (uintptr_t)memory->host_pointer + offset;
    hrx_host_cache_flush(begin, begin + length);
  }
  return HRX_OK;
}

typedef struct hrx_host_span_t {
  uintptr_t begin, end;
} hrx_host_span_t;

struct hrx_fabric_host_step_s {
  hrx_allocator_t allocator;
  size_t count;
  hrx_host_span_t spans[]; /* sorted, disjoint, not touching */
};

static int hrx_span_order(const void* a, const void* b) {
  const hrx_host_span_t* x = a;
  const hrx_host_span_t* y = b;
  return x->begin < y->begin ? -1 : x->begin > y->begin;
}

hrx_status_t hrx_fabric_host_step_prepare(
    hrx_fabric_device_t* device, hrx_fabric_cache_op_t op,
    const hrx_fabric_host_range_t* ranges, size_t count,
    hrx_allocator_t allocator, hrx_fabric_host_step_t** out_step) {
  *out_step = NULL;
  if (count && !ranges) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no ranges");
  }
  for (size_t i = 0; i < count; ++i) {
    hrx_status_t status = hrx_check_range(ranges[i].memory, ranges[i].offset,
                                          ranges[i].length, op);
    if (status != HRX_OK) return hrx_status_annotate(status, "range %zu", i);
  }
  hrx_fabric_host_step_t* step = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(
      allocator, sizeof(*step) + count * sizeof(step->spans[0]),
      (void**)&step));
  step->allocator = allocator;
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i) {
    const hrx_fabric_host_range_t* r = &ranges[i];
    if (!r->length || !hrx_host_actions(device, r->memory->visibility, op)) {
      continue;
    }
    uintptr_t begin = (uintptr_t)r->memory->host_pointer + r->offset;
    step->spans[kept++] = (hrx_host_span_t){begin, begin + r->length};
  }
  if (kept) qsort(step->spans, kept, sizeof(step->spans[0]), hrx_span_order);
  size_t merged = 0;
  for (size_t i = 0; i < kept; ++i) {
    if (merged && step->spans[i].begin <= step->spans[merged - 1].end) {
      if (step->spans[i].end > step->spans[merged - 1].end) {
        step->spans[merged - 1].end = step->spans[i].end;
      }
    } else {
      step->spans[merged++] = step->spans[i];
    }
  }
  step->count = merged;
  *out_step = step;
  return HRX_OK;
}

size_t hrx_fabric_host_step_range_count(const hrx_fabric_host_step_t* step) {
  return step->count;
}

void hrx_fabric_host_step_run(const hrx_fabric_host_step_t* step) {
  for (size_t i = 0; i < step->count; ++i) {
    hrx_host_cache_flush(step->spans[i].begin, step->spans[i].end);
  }
}

void hrx_fabric_host_step_destroy(hrx_fabric_host_step_t* step) {
  if (step) hrx_allocator_free(step->allocator, step);
}
