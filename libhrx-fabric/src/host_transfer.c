/* Transfer queues on the host device: recorded commands run with host
 * memory operations on the caller's thread, in order, during submit and
 * wait (there is no engine thread). A wait_memory whose word does not
 * match parks the queue at it until a later call finds it matching. */
#include <string.h>

#include "kfd_device.h"
#include "transfer_internal.h"

typedef enum hrx_host_command_kind_t {
  HRX_HOST_COPY,
  HRX_HOST_FILL,
  HRX_HOST_POLL,
  HRX_HOST_FENCE,
} hrx_host_command_kind_t;

typedef struct hrx_host_command_t {
  hrx_host_command_kind_t kind;
  uint64_t destination; /* the polled word for POLL */
  uint64_t source;      /* the fence value for FENCE */
  uint64_t bytes;
  uint32_t value, mask; /* FILL's pattern; POLL's value and mask */
} hrx_host_command_t;

typedef struct hrx_host_transfer_t {
  hrx_fabric_transfer_queue_t base; /* first */
  hrx_host_device_t* device;
  hrx_host_command_t* commands;
  size_t count, capacity;
  size_t submitted; /* commands[0, submitted) were submitted */
  size_t next;      /* the first not yet run */
  uint64_t fence, completed;
} hrx_host_transfer_t;

static hrx_host_transfer_t* hrx_host_transfer(hrx_fabric_transfer_queue_t* q) {
  return (hrx_host_transfer_t*)q;
}

static bool hrx_host_transfer_contains(hrx_fabric_transfer_queue_t* base,
                                       uint64_t address, uint64_t bytes) {
  hrx_host_allocation_t a;
  return hrx_host_device_resolve(hrx_host_transfer(base)->device, address,
                                 &a) &&
         address + bytes <= a.base + a.size;
}

static hrx_status_t hrx_host_record(hrx_host_transfer_t* t,
                                    hrx_host_command_t command) {
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(
      t->device->base.allocator, sizeof(*t->commands), t->count + 1,
      &t->capacity, (void**)&t->commands));
  t->commands[t->count++] = command;
  return HRX_OK;
}

/* Runs submitted commands until one cannot run yet. */
static void hrx_host_progress(hrx_host_transfer_t* t) {
  while (t->next < t->submitted) {
    const hrx_host_command_t* c = &t->commands[t->next];
    uint8_t* target = (uint8_t*)(uintptr_t)c->destination;
    if (c->kind == HRX_HOST_COPY) {
      memcpy(target, (const void*)(uintptr_t)c->source, c->bytes);
    } else if (c->kind == HRX_HOST_FILL) {
      for (uint64_t i = 0; i < c->bytes; ++i) {
        target[i] = (uint8_t)(c->value >> (8 * (i % 4)));
      }
    } else if (c->kind == HRX_HOST_POLL) {
      uint32_t word = atomic_load_explicit((_Atomic uint32_t*)target,
                                           memory_order_acquire);
      if ((word & c->mask) != c->value) return;
    } else {
      t->completed = c->source;
    }
    ++t->next;
  }
  /* Everything ran: reuse the list from the start. */
  if (t->next == t->count) t->count = t->submitted = t->next = 0;
}

static hrx_status_t hrx_host_transfer_copy(hrx_fabric_transfer_queue_t* base,
                                           uint64_t destination,
                                           uint64_t source, uint64_t bytes) {
  return hrx_host_record(hrx_host_transfer(base),
                         (hrx_host_command_t){.kind = HRX_HOST_COPY,
                                              .destination = destination,
                                              .source = source,
                                              .bytes = bytes});
}

static hrx_status_t hrx_host_transfer_fill(hrx_fabric_transfer_queue_t* base,
                                           uint64_t destination,
                                           uint32_t pattern, uint64_t bytes) {
  return hrx_host_record(hrx_host_transfer(base),
                         (hrx_host_command_t){.kind = HRX_HOST_FILL,
                                              .destination = destination,
                                              .bytes = bytes,
                                              .value = pattern});
}

static hrx_status_t hrx_host_transfer_wait_memory(
    hrx_fabric_transfer_queue_t* base, uint64_t address, uint32_t value,
    uint32_t mask) {
  return hrx_host_record(hrx_host_transfer(base),
                         (hrx_host_command_t){.kind = HRX_HOST_POLL,
                                              .destination = address,
                                              .value = value & mask,
                                              .mask = mask});
}

static hrx_status_t hrx_host_transfer_submit(hrx_fabric_transfer_queue_t* base,
                                             uint64_t* out_fence) {
  hrx_host_transfer_t* t = hrx_host_transfer(base);
  HRX_RETURN_IF_ERROR(hrx_host_record(
      t, (hrx_host_command_t){.kind = HRX_HOST_FENCE,
                              .source = t->fence + 1}));
  *out_fence = ++t->fence;
  t->submitted = t->count;
  hrx_host_progress(t);
  return HRX_OK;
}

static uint64_t hrx_host_transfer_completed(
    hrx_fabric_transfer_queue_t* base) {
  hrx_host_transfer_t* t = hrx_host_transfer(base);
  hrx_host_progress(t);
  return t->completed;
}

typedef struct hrx_host_wait_t {
  hrx_host_transfer_t* transfer;
  uint64_t fence;
} hrx_host_wait_t;

static bool hrx_host_reached(void* context) {
  hrx_host_wait_t* w = context;
  hrx_host_progress(w->transfer);
  return w->transfer->completed >= w->fence;
}

static hrx_status_t hrx_host_transfer_wait(hrx_fabric_transfer_queue_t* base,
                                           uint64_t fence,
                                           uint64_t timeout_ns) {
  hrx_host_transfer_t* t = hrx_host_transfer(base);
  if (fence > t->fence) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "host transfer queue: fence %llu was never "
                           "submitted (last %llu)",
                           (unsigned long long)fence,
                           (unsigned long long)t->fence);
  }
  hrx_host_wait_t w = {.transfer = t, .fence = fence};
  hrx_status_t status =
      hrx_fabric_poll_until(hrx_host_reached, NULL, &w, timeout_ns);
  if (status == HRX_OK) return HRX_OK;
  const hrx_host_command_t* parked = &t->commands[t->next];
  return hrx_status_annotate(
      status,
      "host transfer queue: waiting for fence %llu (completed %llu; parked "
      "on the word at 0x%llx until it reads 0x%x under mask 0x%x)",
      (unsigned long long)fence, (unsigned long long)t->completed,
      (unsigned long long)parked->destination, parked->value, parked->mask);
}

/* Host memory operations cannot fault: the ranges were checked. */
static hrx_status_t hrx_host_transfer_check(hrx_fabric_transfer_queue_t* base) {
  (void)base;
  return HRX_OK;
}

static const char* hrx_host_transfer_name(
    const hrx_fabric_transfer_queue_t* base) {
  (void)base;
  return "host transfer queue";
}

static void hrx_host_transfer_abort(hrx_fabric_transfer_queue_t* base) {
  hrx_host_transfer_t* t = hrx_host_transfer(base);
  hrx_allocator_t allocator = t->device->base.allocator;
  hrx_allocator_free(allocator, t->commands);
  hrx_allocator_free(allocator, t);
}

static hrx_status_t hrx_host_transfer_destroy(
    hrx_fabric_transfer_queue_t* base) {
  hrx_host_transfer_t* t = hrx_host_transfer(base);
  hrx_host_progress(t);
  if (t->next < t->submitted) {
    return hrx_make_status(HRX_STATUS_BUSY,
                           "host transfer queue has work in flight: fence "
                           "%llu submitted, %llu completed",
                           (unsigned long long)t->fence,
                           (unsigned long long)t->completed);
  }
  hrx_host_transfer_abort(base);
  return HRX_OK;
}

static const hrx_fabric_transfer_vtable_t hrx_host_transfer_vtable = {
    .contains = hrx_host_transfer_contains,
    .copy = hrx_host_transfer_copy,
    .fill = hrx_host_transfer_fill,
    .wait_memory = hrx_host_transfer_wait_memory,
    .submit = hrx_host_transfer_submit,
    .completed = hrx_host_transfer_completed,
    .wait = hrx_host_transfer_wait,
    .check = hrx_host_transfer_check,
    .name = hrx_host_transfer_name,
    .destroy = hrx_host_transfer_destroy,
    .abort = hrx_host_transfer_abort,
};

hrx_status_t hrx_host_transfer_create(hrx_fabric_device_t* device,
                                      hrx_fabric_transfer_queue_t** out) {
  hrx_host_transfer_t* t = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(device->allocator, sizeof(*t), (void**)&t));
  memset(t, 0, sizeof(*t));
  t->base.vtable = &hrx_host_transfer_vtable;
  t->device = hrx_host_device_cast(device);
  *out = &t->base;
  return HRX_OK;
}
