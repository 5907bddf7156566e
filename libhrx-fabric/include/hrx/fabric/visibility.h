/* Memory visibility: what each kind of allocation promises to the agents
 * that touch it, queried before allocating (hrx-rs
 * Fabric::allocation_profiles, Buffer::visibility), and the host's cache
 * maintenance for ordinary allocations.
 *
 * Agents are the host and the device's queue families (AQL compute, PM4
 * compute, transfer). For each hrx_fabric_visibility_t the device offers,
 * a profile says, per producer/consumer pair: whether the consumer can
 * reach the memory at all; which actions make the producer's writes
 * visible (on the producer's side, the release; on the consumer's, the
 * acquire); and for each access width whether read-modify-write atomics
 * of the two agents are atomic with each other, and at which scope.
 * Ordering itself (that the consumer runs after the producer) is the
 * caller's, through signals, fences or host waits; the actions are what
 * that ordering must carry.
 *
 * Per device:
 * - host: every agent is the CPU and every allocation ordinary cached host
 *   memory, so every profile is coherent: every pair of the agents the
 *   device offers reaches, needs no action and is atomic at system scope
 *   for every width. The PM4 family is not offered: pairs naming it do
 *   not reach.
 * - kfd (gfx1151, an APU: every heap is system memory): DEVICE and
 *   HOST_VISIBLE are GTT buffer objects the GPU caches (L2, K$) without
 *   snooping the CPU's caches; HOST_COHERENT is GTT allocated COHERENT |
 *   UNCACHED, which the GPU neither caches nor lets go stale. So on the
 *   cached kinds a GPU producer releases at system scope (AQL release
 *   fence, PM4 RELEASE_MEM with a GCR write-back, the SDMA fence) and a
 *   GPU consumer acquires (AQL acquire fence, PM4 ACQUIRE_MEM with a GCR
 *   invalidate); the host, whose mapping is cached and not snooped by the
 *   GPU, writes back its lines after writing (HOST_WRITE_BACK) and drops
 *   them before reading (HOST_INVALIDATE): hrx_fabric_memory_cache_control
 *   or a prepared host step. Coherent memory needs none of that. GPU
 *   atomics are 32 and 64 bits wide: at device scope among the GPU's
 *   compute queues on cached memory, at system scope (with the host too)
 *   on coherent memory; the transfer engine does no atomics.
 *
 * Thread-safe; profiles are constant for a device's lifetime.
 */
#ifndef HRX_FABRIC_VISIBILITY_H_
#define HRX_FABRIC_VISIBILITY_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/fabric/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hrx_fabric_agent_e {
  HRX_FABRIC_AGENT_HOST = 0,
  HRX_FABRIC_AGENT_AQL = 1,      /* AQL compute queues */
  HRX_FABRIC_AGENT_PM4 = 2,      /* PM4 compute queues */
  HRX_FABRIC_AGENT_TRANSFER = 3, /* transfer queues (SDMA) */
  HRX_FABRIC_AGENT_COUNT = 4,
} hrx_fabric_agent_t;

/* "host", "AQL", "PM4", "transfer"; NULL for an unknown agent. */
HRX_API const char* hrx_fabric_agent_name(hrx_fabric_agent_t agent);

/* Actions a release (producer side) or acquire (consumer side) carries. */
typedef enum hrx_fabric_visibility_action_e {
  HRX_FABRIC_ACTION_NONE = 0,
  /* Host: write back CPU cache lines of the range (cache_control). */
  HRX_FABRIC_ACTION_HOST_WRITE_BACK = 1u << 0,
  /* Host: drop CPU cache lines of the range before reading. */
  HRX_FABRIC_ACTION_HOST_INVALIDATE = 1u << 1,
  /* Queue: a system-scope release after the producing work (AQL release
   * fence scope SYSTEM, PM4 RELEASE_MEM with GCR write-back, SDMA FENCE). */
  HRX_FABRIC_ACTION_QUEUE_RELEASE = 1u << 2,
  /* Queue: an acquire before the consuming work (AQL acquire fence scope
   * SYSTEM, PM4 ACQUIRE_MEM with GCR invalidate). */
  HRX_FABRIC_ACTION_QUEUE_ACQUIRE = 1u << 3,
} hrx_fabric_visibility_action_t;

typedef enum hrx_fabric_atomic_scope_e {
  HRX_FABRIC_ATOMIC_NONE = 0,   /* not atomic with each other */
  HRX_FABRIC_ATOMIC_DEVICE = 1, /* atomic among the device's queues */
  HRX_FABRIC_ATOMIC_SYSTEM = 2, /* atomic with the host as well */
} hrx_fabric_atomic_scope_t;

/* Access widths of hrx_fabric_visibility_pair_t.atomics: 1, 2, 4 and 8
 * bytes. */
#define HRX_FABRIC_ATOMIC_WIDTHS 4

typedef struct hrx_fabric_visibility_pair_t {
  /* The consumer can access the memory at all (false also when either
   * agent is not offered by the device). */
  bool reachable;
  uint32_t release; /* hrx_fabric_visibility_action_t bits, producer */
  uint32_t acquire; /* hrx_fabric_visibility_action_t bits, consumer */
  /* By width (index log2(bytes)): the scope at which read-modify-write
   * atomics of the producer and the consumer are atomic together. */
  hrx_fabric_atomic_scope_t atomics[HRX_FABRIC_ATOMIC_WIDTHS];
} hrx_fabric_visibility_pair_t;

typedef struct hrx_fabric_allocation_profile_t {
  uint32_t struct_size; /* sizeof(hrx_fabric_allocation_profile_t) */
  hrx_fabric_visibility_t visibility; /* what to allocate it with */
  const char* name;        /* "device", "host-visible", "coherent" */
  const char* memory_kind; /* "host memory", "GTT", "GTT coherent uncached" */
  bool host_mapped;        /* allocations have a host pointer */
  /* No pair of offered agents needs an action. */
  bool coherent;
  /* Which agents the device offers (the others' pairs do not reach). */
  bool agents[HRX_FABRIC_AGENT_COUNT];
  /* [producer][consumer]. */
  hrx_fabric_visibility_pair_t pairs[HRX_FABRIC_AGENT_COUNT]
                                    [HRX_FABRIC_AGENT_COUNT];
} hrx_fabric_allocation_profile_t;

/* Every device offers the three visibilities, in enum order. */
#define HRX_FABRIC_VISIBILITY_COUNT 3

/* Describes allocations of |visibility| on |device| into |*out_profile|,
 * whose struct_size the caller sets: INVALID_ARGUMENT for 0 or a size this
 * library does not know, or an unknown visibility. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_device_allocation_profile(
    const hrx_fabric_device_t* device, hrx_fabric_visibility_t visibility,
    hrx_fabric_allocation_profile_t* out_profile);

/* Allocates |size| bytes every agent sees without actions (hrx-rs
 * allocate_shared): HOST_COHERENT memory, zeroed. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_memory_allocate_shared(
    hrx_fabric_device_t* device, uint64_t size,
    hrx_fabric_memory_t* out_memory);

typedef enum hrx_fabric_cache_op_e {
  /* After host writes, before a device agent reads: the host release. */
  HRX_FABRIC_CACHE_HOST_WRITES_DONE = 0,
  /* After a device agent wrote, before host reads: the host acquire. */
  HRX_FABRIC_CACHE_HOST_READS_BEGIN = 1,
} hrx_fabric_cache_op_t;

/* Performs, on the host, what |op| needs for |length| bytes at |offset| of
 * |memory| (host-mapped, allocated on |device|): the host actions its
 * profile names for host->device (WRITES_DONE) or device->host
 * (READS_BEGIN), nothing where it names none (coherent memory, the host
 * device). INVALID_ARGUMENT for a range outside the allocation, memory
 * without a host pointer or an unknown op. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_memory_cache_control(
    hrx_fabric_device_t* device, const hrx_fabric_memory_t* memory,
    uint64_t offset, uint64_t length, hrx_fabric_cache_op_t op);

/* A prepared host release or acquire over many ranges: validated, sorted
 * and merged (overlapping or touching host ranges become one) once, then
 * run any number of times with no checks and no allocation. */
typedef struct hrx_fabric_host_step_s hrx_fabric_host_step_t;

typedef struct hrx_fabric_host_range_t {
  const hrx_fabric_memory_t* memory; /* borrowed while preparing */
  uint64_t offset, length;
} hrx_fabric_host_range_t;

/* Prepares |op| over |count| ranges (as hrx_fabric_memory_cache_control
 * checks each). Ranges whose profile needs no host action are left out,
 * so a step over coherent memory, or on the host device, runs nothing.
 * The memory must outlive the step's runs. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_host_step_prepare(
    hrx_fabric_device_t* device, hrx_fabric_cache_op_t op,
    const hrx_fabric_host_range_t* ranges, size_t count,
    hrx_allocator_t allocator, hrx_fabric_host_step_t** out_step);
/* Ranges left after merging and leaving out those needing no action. */
HRX_API size_t hrx_fabric_host_step_range_count(
    const hrx_fabric_host_step_t* step);
HRX_API void hrx_fabric_host_step_run(const hrx_fabric_host_step_t* step);
HRX_API void hrx_fabric_host_step_destroy(hrx_fabric_host_step_t* step);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_VISIBILITY_H_ */
