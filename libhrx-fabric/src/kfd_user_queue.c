/* PM4 and SDMA user queues (kfd_user_queue.h): buffers, CREATE_QUEUE
 * through the shared hardware-queue helper, publication per family and
 * fence waits. */
#include "kfd_user_queue.h"

#include <stdio.h>
#include <string.h>

#include "kfd_ioctl.h"
#include "pm4_packets.h"
#include "sdma_packets.h"
#include "transfer_internal.h"

/* Control page: each index on its own cache line, as the engines want
 * (libamdf.md §2), and the fence word after them. */
#define HRX_KFD_USER_READ 0u
#define HRX_KFD_USER_WRITE 64u
#define HRX_KFD_USER_FENCE 128u
/* PM4 publications are whole multiples of this many dwords. */
#define HRX_KFD_PM4_PUBLISH_DWORDS 8u
/* The longest fence sequence: RELEASE_MEM plus a publication's padding. */
#define HRX_KFD_USER_FENCE_DWORDS \
  (HRX_PM4_RELEASE_MEM_DWORDS + HRX_KFD_PM4_PUBLISH_DWORDS)
#define HRX_KFD_USER_MIN_RING 4096u
#define HRX_KFD_USER_MAX_RING (16u << 20)

struct hrx_kfd_user_queue_t {
  hrx_kfd_device_t* device;
  hrx_kfd_user_family_t family;
  hrx_fabric_memory_t ring, control, eop, cwsr;
  hrx_kfd_hw_queue_t hw;
  bool created;
  uint32_t* dwords;      /* the ring's host mapping */
  uint64_t ring_dwords;  /* a power of two */
  uint64_t write;        /* dwords appended, monotonic */
  uint64_t published;    /* dwords the engine was told of */
  uint64_t fence;        /* the last fence submitted */
  char name[32];
};

static void* hrx_kfd_user_control(const hrx_kfd_user_queue_t* q,
                                  uint32_t offset) {
  return (uint8_t*)q->control.host_pointer + offset;
}

const char* hrx_kfd_user_queue_name(const hrx_kfd_user_queue_t* q) {
  return q->name;
}

/*===------------------------------------------------------------------===*/
/* Creation and teardown                                                   */
/*===------------------------------------------------------------------===*/

void hrx_kfd_user_queue_teardown(hrx_kfd_user_queue_t* q) {
  hrx_kfd_device_t* d = q->device;
  if (q->created) hrx_status_free(hrx_kfd_hw_queue_close(d, q->hw.queue_id));
  hrx_kfd_doorbell_unmap(d, q->hw.doorbell_page);
  hrx_fabric_memory_t* buffers[] = {&q->cwsr, &q->eop, &q->control,
                                    &q->ring};
  for (size_t i = 0; i < sizeof(buffers) / sizeof(buffers[0]); ++i) {
    if (buffers[i]->device_address) hrx_kfd_memory_free(&d->base, buffers[i]);
  }
  hrx_allocator_free(d->base.allocator, q);
}

static hrx_status_t hrx_kfd_user_open(hrx_kfd_user_queue_t* q,
                                      uint32_t ring_bytes) {
  hrx_kfd_device_t* d = q->device;
  const uint32_t uncached = HRX_KFD_ALLOC_COHERENT | HRX_KFD_ALLOC_UNCACHED;
  bool pm4 = q->family == HRX_KFD_USER_PM4;
  HRX_RETURN_IF_ERROR(
      hrx_kfd_memory_allocate_flags(d, ring_bytes, uncached, true, &q->ring));
  HRX_RETURN_IF_ERROR(hrx_kfd_memory_allocate_flags(d, HRX_KFD_PAGE, uncached,
                                                    true, &q->control));
  if (pm4) {
    HRX_RETURN_IF_ERROR(hrx_kfd_queue_context_allocate(d, &q->eop, &q->cwsr));
  }
  const hrx_kfd_queue_plan_t plan = {
      .type = pm4 ? HRX_KFD_QUEUE_TYPE_COMPUTE : HRX_KFD_QUEUE_TYPE_SDMA,
      .ring = q->ring.device_address,
      .ring_bytes = ring_bytes,
      .read_pointer = q->control.device_address + HRX_KFD_USER_READ,
      .write_pointer = q->control.device_address + HRX_KFD_USER_WRITE,
      .eop = pm4 ? &q->eop : NULL,
      .cwsr = pm4 ? &q->cwsr : NULL,
  };
  HRX_RETURN_IF_ERROR(hrx_kfd_hw_queue_open(d, &plan, &q->hw));
  q->created = true;
  snprintf(q->name, sizeof(q->name), "%s queue %u", pm4 ? "PM4" : "SDMA",
           q->hw.queue_id);
  return HRX_OK;
}

hrx_status_t hrx_kfd_user_queue_create(hrx_kfd_device_t* d,
                                       hrx_kfd_user_family_t family,
                                       uint32_t ring_bytes,
                                       hrx_kfd_user_queue_t** out_queue) {
  if (ring_bytes < HRX_KFD_USER_MIN_RING ||
      ring_bytes > HRX_KFD_USER_MAX_RING ||
      (ring_bytes & (ring_bytes - 1)) != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "ring of %u bytes: want a power of two in "
                           "4 KiB..16 MiB", ring_bytes);
  }
  hrx_kfd_user_queue_t* q = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(d->base.allocator, sizeof(*q), (void**)&q));
  memset(q, 0, sizeof(*q));
  q->device = d;
  q->family = family;
  q->ring_dwords = ring_bytes / sizeof(uint32_t);
  hrx_status_t status = hrx_kfd_user_open(q, ring_bytes);
  if (status != HRX_OK) {
    hrx_kfd_user_queue_teardown(q);
    return hrx_status_annotate(status, "creating a%s queue",
                               family == HRX_KFD_USER_PM4 ? " PM4" : "n SDMA");
  }
  q->dwords = q->ring.host_pointer;
  *out_queue = q;
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Publication                                                             */
/*===------------------------------------------------------------------===*/

/* The dwords the engine has consumed, from its wrapped read offset. */
static uint64_t hrx_kfd_user_consumed(const hrx_kfd_user_queue_t* q) {
  uint64_t read = atomic_load_explicit(
      (_Atomic uint64_t*)hrx_kfd_user_control(q, HRX_KFD_USER_READ),
      memory_order_acquire);
  if (q->family == HRX_KFD_USER_SDMA) read /= sizeof(uint32_t);
  return q->published - ((q->published - read) & (q->ring_dwords - 1));
}

static void hrx_kfd_user_put(hrx_kfd_user_queue_t* q, const uint32_t* dwords,
                             uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    q->dwords[(q->write + i) & (q->ring_dwords - 1)] = dwords[i];
  }
  q->write += count;
}

/* Writes |count| dwords of PM4 NOP (as one packet, or type-2 fillers
 * where a single dword is left). */
static void hrx_kfd_user_pm4_pad(hrx_kfd_user_queue_t* q, uint32_t count) {
  if (count == 0) return;
  uint32_t* at = q->dwords + (q->write & (q->ring_dwords - 1));
  size_t written = 0;
  /* Callers pad at most to the ring's end, and by less than one packet
   * (at most HRX_PM4_MAX_DWORDS), so this is a valid NOP that fits. */
  hrx_status_free(hrx_pm4_nop(count, at, count, &written));
  q->write += count;
}

/* Whether |count| more dwords fit beside what the engine has not yet
 * consumed, one dword always left free. */
static bool hrx_kfd_user_fits(const hrx_kfd_user_queue_t* q,
                              uint64_t count) {
  uint64_t pending = q->write - hrx_kfd_user_consumed(q);
  return pending + count < q->ring_dwords;
}

uint64_t hrx_kfd_user_queue_room(const hrx_kfd_user_queue_t* q) {
  uint64_t used = q->write - hrx_kfd_user_consumed(q) + 1 +
                  HRX_KFD_USER_FENCE_DWORDS;
  return used < q->ring_dwords ? q->ring_dwords - used : 0;
}

/* Appends |count| dwords if they fit with |reserve| more. */
static hrx_status_t hrx_kfd_user_append(hrx_kfd_user_queue_t* q,
                                        const uint32_t* dwords,
                                        uint32_t count, uint32_t reserve) {
  uint32_t padding = 0;
  if (q->family == HRX_KFD_USER_PM4) {
    HRX_RETURN_IF_ERROR(
        hrx_pm4_wrap_padding(q->write, q->ring_dwords, count, &padding));
  }
  if (!hrx_kfd_user_fits(q, (uint64_t)padding + count + reserve)) {
    return hrx_make_status(
        HRX_STATUS_RESOURCE_EXHAUSTED,
        "%s: no room for %u dwords in its ring of %llu (%llu not yet "
        "consumed); wait on a fence first",
        q->name, count, (unsigned long long)q->ring_dwords,
        (unsigned long long)(q->write - hrx_kfd_user_consumed(q)));
  }
  hrx_kfd_user_pm4_pad(q, padding);
  hrx_kfd_user_put(q, dwords, count);
  return HRX_OK;
}

hrx_status_t hrx_kfd_user_queue_append(hrx_kfd_user_queue_t* q,
                                       const uint32_t* dwords,
                                       uint32_t count) {
  /* Room stays for the fence that ends the submission. */
  return hrx_kfd_user_append(q, dwords, count, HRX_KFD_USER_FENCE_DWORDS);
}

/* The fence packet writing |value| to the control page. */
static hrx_status_t hrx_kfd_user_fence(const hrx_kfd_user_queue_t* q,
                                       uint64_t value, uint32_t* dwords,
                                       size_t* out_count) {
  uint64_t address = q->control.device_address + HRX_KFD_USER_FENCE;
  if (q->family == HRX_KFD_USER_SDMA) {
    return hrx_sdma_fence(address, (uint32_t)value, dwords,
                          HRX_KFD_USER_FENCE_DWORDS, out_count);
  }
  const hrx_pm4_release_t release = {
      .event_type = HRX_PM4_EVENT_BOTTOM_OF_PIPE_TS,
      .data = HRX_PM4_DATA_64,
      .interrupt = HRX_PM4_INT_NONE,
      .address = address,
      .value = value,
  };
  return hrx_pm4_release_mem(&release, dwords, HRX_KFD_USER_FENCE_DWORDS,
                             out_count);
}

hrx_status_t hrx_kfd_user_queue_submit(hrx_kfd_user_queue_t* q,
                                       uint64_t* out_fence) {
  uint32_t fence[HRX_KFD_USER_FENCE_DWORDS];
  size_t count = 0;
  HRX_RETURN_IF_ERROR(hrx_kfd_user_fence(q, q->fence + 1, fence, &count));
  /* Every append kept room for this and its padding. */
  HRX_RETURN_IF_ERROR(hrx_kfd_user_append(q, fence, (uint32_t)count, 0));
  ++q->fence;
  uint64_t index = q->write;
  if (q->family == HRX_KFD_USER_PM4) {
    /* The ring is a multiple of 8 dwords, so this never crosses its end. */
    hrx_kfd_user_pm4_pad(q, (uint32_t)(-q->write &
                                       (HRX_KFD_PM4_PUBLISH_DWORDS - 1)));
    index = q->write;
  } else {
    index *= sizeof(uint32_t);
  }
  q->published = q->write;
  atomic_store_explicit(
      (_Atomic uint64_t*)hrx_kfd_user_control(q, HRX_KFD_USER_WRITE), index,
      memory_order_release);
  atomic_thread_fence(memory_order_seq_cst);
  atomic_store_explicit(q->hw.doorbell, index, memory_order_release);
  *out_fence = q->fence;
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Completion                                                              */
/*===------------------------------------------------------------------===*/

uint64_t hrx_kfd_user_queue_submitted(const hrx_kfd_user_queue_t* q) {
  return q->fence;
}

uint64_t hrx_kfd_user_queue_completed(const hrx_kfd_user_queue_t* q) {
  const void* word = hrx_kfd_user_control(q, HRX_KFD_USER_FENCE);
  if (q->family == HRX_KFD_USER_PM4) {
    return atomic_load_explicit((const _Atomic uint64_t*)word,
                                memory_order_acquire);
  }
  /* SDMA writes 32 bits: fewer than 2^32 fences are ever in flight. */
  uint32_t low = atomic_load_explicit((const _Atomic uint32_t*)word,
                                      memory_order_acquire);
  return q->fence - (uint32_t)((uint32_t)q->fence - low);
}

hrx_status_t hrx_kfd_user_queue_check(const hrx_kfd_user_queue_t* q) {
  hrx_kfd_device_t* d = q->device;
  if (!d->sys.describe_queue_fault) return HRX_OK;
  char detail[256] = {0};
  uint64_t address = 0;
  if (d->sys.describe_queue_fault(d->sys.context, q->hw.queue_id, detail,
                                  sizeof(detail), &address) != 0) {
    return HRX_OK;
  }
  return hrx_make_status(HRX_STATUS_ABORTED,
                         "%s stopped (fault address 0x%llx): %s", q->name,
                         (unsigned long long)address, detail);
}

typedef struct hrx_kfd_user_wait_t {
  const hrx_kfd_user_queue_t* queue;
  uint64_t fence;
} hrx_kfd_user_wait_t;

static bool hrx_kfd_user_reached(void* context) {
  const hrx_kfd_user_wait_t* w = context;
  return hrx_kfd_user_queue_completed(w->queue) >= w->fence;
}

static hrx_status_t hrx_kfd_user_stopped(void* context) {
  return hrx_kfd_user_queue_check(((hrx_kfd_user_wait_t*)context)->queue);
}

hrx_status_t hrx_kfd_user_queue_wait(hrx_kfd_user_queue_t* q, uint64_t fence,
                                     uint64_t timeout_ns) {
  if (fence > q->fence) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: fence %llu was never submitted (last %llu)",
                           q->name, (unsigned long long)fence,
                           (unsigned long long)q->fence);
  }
  hrx_kfd_user_wait_t w = {.queue = q, .fence = fence};
  hrx_status_t status = hrx_fabric_poll_until(
      hrx_kfd_user_reached, hrx_kfd_user_stopped, &w, timeout_ns);
  if (status == HRX_OK) return HRX_OK;
  return hrx_status_annotate(
      status, "%s: waiting for fence %llu (completed %llu)", q->name,
      (unsigned long long)fence,
      (unsigned long long)hrx_kfd_user_queue_completed(q));
}

hrx_status_t hrx_kfd_user_queue_destroy(hrx_kfd_user_queue_t* q) {
  uint64_t completed = hrx_kfd_user_queue_completed(q);
  hrx_status_t stopped = hrx_kfd_user_queue_check(q);
  bool running = stopped == HRX_OK;
  hrx_status_free(stopped);
  if (running && completed < q->fence) {
    return hrx_make_status(HRX_STATUS_BUSY,
                           "%s has work in flight: fence %llu submitted, "
                           "%llu completed",
                           q->name, (unsigned long long)q->fence,
                           (unsigned long long)completed);
  }
  hrx_kfd_user_queue_teardown(q);
  return HRX_OK;
}
