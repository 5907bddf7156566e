/* Transfer queues on the kfd provider: one SDMA user queue each. Copies
 * become COPY_LINEAR packets; fills become CONST_FILL of whole aligned
 * dwords, with byte fills (FILLSIZE 0) for the unaligned head and tail,
 * one per run of equal bytes; waits on memory become POLL_REGMEM. */
#include <string.h>

#include "kfd_user_queue.h"
#include "pm4_packets.h"
#include "sdma_packets.h"
#include "transfer_internal.h"

/* 16 K dwords of packets: about 2300 copies in flight. */
#define HRX_KFD_TRANSFER_RING (64u * 1024u)
#define HRX_KFD_COPY_CHUNK ((uint64_t)HRX_SDMA_COPY_COUNT_MASK + 1)
#define HRX_KFD_FILL_CHUNK ((uint64_t)HRX_SDMA_FILL_COUNT_MASK + 1)
/* The engine's clocks between polls of a wait_memory word. */
#define HRX_KFD_POLL_INTERVAL 16u

typedef struct hrx_kfd_transfer_t {
  hrx_fabric_transfer_queue_t base; /* first */
  hrx_kfd_device_t* device;
  hrx_kfd_user_queue_t* sdma;
} hrx_kfd_transfer_t;

static hrx_kfd_transfer_t* hrx_kfd_transfer(hrx_fabric_transfer_queue_t* q) {
  return (hrx_kfd_transfer_t*)q;
}

static bool hrx_kfd_transfer_contains(hrx_fabric_transfer_queue_t* base,
                                      uint64_t address, uint64_t bytes) {
  hrx_kfd_device_t* d = hrx_kfd_transfer(base)->device;
  pthread_mutex_lock(&d->mutex);
  bool inside = hrx_kfd_memory_contains_locked(d, address, bytes);
  pthread_mutex_unlock(&d->mutex);
  return inside;
}

/* Fails with RESOURCE_EXHAUSTED unless |packets| packets of |dwords| each
 * fit, so that a command is recorded whole or not at all. */
static hrx_status_t hrx_kfd_transfer_room(hrx_kfd_transfer_t* t,
                                          uint64_t packets, uint32_t dwords) {
  uint64_t room = hrx_kfd_user_queue_room(t->sdma);
  if (packets * dwords <= room) return HRX_OK;
  return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                         "%s: a command of %llu packets does not fit beside "
                         "the unfinished work (room for %llu dwords); wait "
                         "on a fence first",
                         hrx_kfd_user_queue_name(t->sdma),
                         (unsigned long long)packets,
                         (unsigned long long)room);
}

static hrx_status_t hrx_kfd_transfer_copy(hrx_fabric_transfer_queue_t* base,
                                          uint64_t destination,
                                          uint64_t source, uint64_t bytes) {
  hrx_kfd_transfer_t* t = hrx_kfd_transfer(base);
  uint64_t packets = (bytes + HRX_KFD_COPY_CHUNK - 1) / HRX_KFD_COPY_CHUNK;
  HRX_RETURN_IF_ERROR(
      hrx_kfd_transfer_room(t, packets, HRX_SDMA_COPY_LINEAR_DWORDS));
  for (uint64_t at = 0; at < bytes; at += HRX_KFD_COPY_CHUNK) {
    uint64_t n = bytes - at < HRX_KFD_COPY_CHUNK ? bytes - at
                                                 : HRX_KFD_COPY_CHUNK;
    uint32_t packet[HRX_SDMA_COPY_LINEAR_DWORDS];
    size_t count = 0;
    HRX_RETURN_IF_ERROR(hrx_sdma_copy_linear(destination + at, source + at,
                                             (uint32_t)n, packet,
                                             HRX_SDMA_COPY_LINEAR_DWORDS,
                                             &count));
    HRX_RETURN_IF_ERROR(
        hrx_kfd_user_queue_append(t->sdma, packet, (uint32_t)count));
  }
  return HRX_OK;
}

/* A fill's pieces: |head| bytes before the first aligned dword, |body|
 * bytes of whole dwords, |tail| bytes after them. */
typedef struct hrx_kfd_fill_plan_t {
  uint64_t head, body, tail;
} hrx_kfd_fill_plan_t;

static hrx_kfd_fill_plan_t hrx_kfd_fill_plan(uint64_t destination,
                                             uint64_t bytes) {
  uint64_t head = (4 - destination % 4) % 4;
  if (head > bytes) head = bytes;
  uint64_t body = (bytes - head) & ~(uint64_t)3;
  return (hrx_kfd_fill_plan_t){head, body, bytes - head - body};
}

/* Byte fills for the |count| (< 4) bytes at |destination|, which are fill
 * bytes |first|.. of |pattern|: one packet per run of equal bytes. */
static hrx_status_t hrx_kfd_fill_bytes(hrx_kfd_transfer_t* t,
                                       uint64_t destination, uint32_t pattern,
                                       uint64_t first, uint64_t count) {
  uint64_t i = 0;
  while (i < count) {
    uint8_t value = (uint8_t)(pattern >> (8 * ((first + i) % 4)));
    uint64_t run = 1;
    while (i + run < count &&
           (uint8_t)(pattern >> (8 * ((first + i + run) % 4))) == value) {
      ++run;
    }
    uint32_t packet[HRX_SDMA_CONST_FILL_DWORDS];
    size_t written = 0;
    HRX_RETURN_IF_ERROR(hrx_sdma_const_fill_bytes(
        destination + i, value, (uint32_t)run, packet,
        HRX_SDMA_CONST_FILL_DWORDS, &written));
    HRX_RETURN_IF_ERROR(
        hrx_kfd_user_queue_append(t->sdma, packet, (uint32_t)written));
    i += run;
  }
  return HRX_OK;
}

static hrx_status_t hrx_kfd_transfer_fill(hrx_fabric_transfer_queue_t* base,
                                          uint64_t destination,
                                          uint32_t pattern, uint64_t bytes) {
  hrx_kfd_transfer_t* t = hrx_kfd_transfer(base);
  hrx_kfd_fill_plan_t plan = hrx_kfd_fill_plan(destination, bytes);
  /* At most 3 byte fills on each side. */
  uint64_t packets = 6 + (plan.body + HRX_KFD_FILL_CHUNK - 1) /
                             HRX_KFD_FILL_CHUNK;
  HRX_RETURN_IF_ERROR(
      hrx_kfd_transfer_room(t, packets, HRX_SDMA_CONST_FILL_DWORDS));
  HRX_RETURN_IF_ERROR(
      hrx_kfd_fill_bytes(t, destination, pattern, 0, plan.head));
  /* The body's first dword holds fill byte |head| at its lowest address. */
  uint32_t shift = (uint32_t)(8 * plan.head);
  uint32_t rotated = shift ? pattern >> shift | pattern << (32 - shift)
                           : pattern;
  uint64_t body = destination + plan.head;
  for (uint64_t at = 0; at < plan.body; at += HRX_KFD_FILL_CHUNK) {
    uint64_t n = plan.body - at < HRX_KFD_FILL_CHUNK ? plan.body - at
                                                     : HRX_KFD_FILL_CHUNK;
    uint32_t packet[HRX_SDMA_CONST_FILL_DWORDS];
    size_t count = 0;
    HRX_RETURN_IF_ERROR(hrx_sdma_const_fill(body + at, rotated, (uint32_t)n,
                                            packet,
                                            HRX_SDMA_CONST_FILL_DWORDS,
                                            &count));
    HRX_RETURN_IF_ERROR(
        hrx_kfd_user_queue_append(t->sdma, packet, (uint32_t)count));
  }
  return hrx_kfd_fill_bytes(t, body + plan.body, pattern,
                            plan.head + plan.body, plan.tail);
}

static hrx_status_t hrx_kfd_transfer_wait_memory(
    hrx_fabric_transfer_queue_t* base, uint64_t address, uint32_t value,
    uint32_t mask) {
  hrx_kfd_transfer_t* t = hrx_kfd_transfer(base);
  HRX_RETURN_IF_ERROR(
      hrx_kfd_transfer_room(t, 1, HRX_SDMA_POLL_REGMEM_DWORDS));
  uint32_t packet[HRX_SDMA_POLL_REGMEM_DWORDS];
  size_t count = 0;
  HRX_RETURN_IF_ERROR(hrx_sdma_poll_memory(
      address, value, mask, HRX_PM4_COMPARE_EQUAL, HRX_KFD_POLL_INTERVAL,
      packet, HRX_SDMA_POLL_REGMEM_DWORDS, &count));
  return hrx_kfd_user_queue_append(t->sdma, packet, (uint32_t)count);
}

static hrx_status_t hrx_kfd_transfer_submit(hrx_fabric_transfer_queue_t* base,
                                            uint64_t* out_fence) {
  return hrx_kfd_user_queue_submit(hrx_kfd_transfer(base)->sdma, out_fence);
}

static uint64_t hrx_kfd_transfer_completed(hrx_fabric_transfer_queue_t* base) {
  return hrx_kfd_user_queue_completed(hrx_kfd_transfer(base)->sdma);
}

static hrx_status_t hrx_kfd_transfer_wait(hrx_fabric_transfer_queue_t* base,
                                          uint64_t fence,
                                          uint64_t timeout_ns) {
  return hrx_kfd_user_queue_wait(hrx_kfd_transfer(base)->sdma, fence,
                                 timeout_ns);
}

static hrx_status_t hrx_kfd_transfer_check(hrx_fabric_transfer_queue_t* base) {
  return hrx_kfd_user_queue_check(hrx_kfd_transfer(base)->sdma);
}

static const char* hrx_kfd_transfer_name(
    const hrx_fabric_transfer_queue_t* base) {
  return hrx_kfd_user_queue_name(((const hrx_kfd_transfer_t*)base)->sdma);
}

static hrx_status_t hrx_kfd_transfer_destroy(
    hrx_fabric_transfer_queue_t* base) {
  hrx_kfd_transfer_t* t = hrx_kfd_transfer(base);
  HRX_RETURN_IF_ERROR(hrx_kfd_user_queue_destroy(t->sdma));
  hrx_allocator_free(t->device->base.allocator, t);
  return HRX_OK;
}

static void hrx_kfd_transfer_abort(hrx_fabric_transfer_queue_t* base) {
  hrx_kfd_transfer_t* t = hrx_kfd_transfer(base);
  hrx_kfd_user_queue_teardown(t->sdma);
  hrx_allocator_free(t->device->base.allocator, t);
}

static const hrx_fabric_transfer_vtable_t hrx_kfd_transfer_vtable = {
    .contains = hrx_kfd_transfer_contains,
    .copy = hrx_kfd_transfer_copy,
    .fill = hrx_kfd_transfer_fill,
    .wait_memory = hrx_kfd_transfer_wait_memory,
    .submit = hrx_kfd_transfer_submit,
    .completed = hrx_kfd_transfer_completed,
    .wait = hrx_kfd_transfer_wait,
    .check = hrx_kfd_transfer_check,
    .name = hrx_kfd_transfer_name,
    .destroy = hrx_kfd_transfer_destroy,
    .abort = hrx_kfd_transfer_abort,
};

hrx_status_t hrx_kfd_transfer_create(hrx_fabric_device_t* device,
                                     hrx_fabric_transfer_queue_t** out) {
  hrx_kfd_device_t* d = hrx_kfd_device_cast(device);
  hrx_kfd_transfer_t* t = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(device->allocator, sizeof(*t), (void**)&t));
  memset(t, 0, sizeof(*t));
  t->base.vtable = &hrx_kfd_transfer_vtable;
  t->device = d;
  hrx_status_t status = hrx_kfd_user_queue_create(
      d, HRX_KFD_USER_SDMA, HRX_KFD_TRANSFER_RING, &t->sdma);
  if (status != HRX_OK) {
    hrx_allocator_free(device->allocator, t);
    return status;
  }
  *out = &t->base;
  return HRX_OK;
}
