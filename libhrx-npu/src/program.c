#include <string.h>

#include "command.h"
#include "completion.h"
#include "device_internal.h"
#include "hrx/npu/program.h"

#define CMD_BO_SIZE 4096u
/* The driver's QoS priority for ordinary work. */
#define XDNA_QOS_PRIORITY_NORMAL 0x200u
/* Rows 2-5 of each column hold cores. */
#define AIE_CORE_ROWS 4u

typedef struct program_slot_t {
  hrx_npu_bo_t command;
  uint64_t point; /* 0 while the slot is free */
} program_slot_t;

struct hrx_npu_program_s {
  hrx_npu_device_t* device;
  uint32_t context;
  uint32_t timeline;
  uint32_t spare;
  /* The point whose fence the spare syncobj holds; 0 when none is. */
  uint64_t captured_point;
  hrx_npu_bo_t* storage;
  size_t storage_count;
  hrx_npu_buffer_t** bound;
  size_t bound_count;
  uint64_t command_address;
  uint32_t command_length;
  uint64_t newest_point; /* of the last dispatch; 0 before the first */
  size_t head;           /* the oldest pending slot */
  size_t pending;
  program_slot_t slots[HRX_NPU_PROGRAM_SLOTS];
};

/* Releases what |program| holds, in teardown order: queue, storage,
 * context. Works on a partly prepared program. */
static void release_program(hrx_npu_program_t* program) {
  hrx_npu_device_t* device = program->device;
  for (size_t i = 0; i < HRX_NPU_PROGRAM_SLOTS; ++i) {
    hrx_npu_bo_release(device, &program->slots[i].command);
  }
  for (size_t i = 0; i < program->storage_count; ++i) {
    hrx_npu_bo_release(device, &program->storage[i]);
  }
  for (size_t i = 0; i < program->bound_count; ++i) {
    hrx_npu_buffer_release(program->bound[i]);
  }
  if (program->spare) {
    hrx_npu_syncobj_destroy(&device->sys, device->fd, program->spare);
  }
  if (program->context) {
    hrx_xdna_destroy_hwctx_t args = {.handle = program->context};
    /* The node's close reclaims a context the driver would not destroy. */
    hrx_status_ignore(hrx_sys_ioctl(&device->sys, device->fd,
                                    HRX_XDNA_IOCTL_DESTROY_HWCTX,
                                    "DESTROY_HWCTX", &args));
  }
  hrx_allocator_free(device->allocator, program->storage);
  hrx_allocator_free(device->allocator, program->bound);
  hrx_allocator_free(device->allocator, program);
}

static hrx_status_t create_context(hrx_npu_program_t* program) {
  hrx_npu_device_t* device = program->device;
  hrx_xdna_qos_t qos = {.priority = XDNA_QOS_PRIORITY_NORMAL};
  hrx_xdna_create_hwctx_t args;
  memset(&args, 0, sizeof(args));
  args.qos_p = (uint64_t)(uintptr_t)&qos;
  args.num_tiles = (uint32_t)device->candidate.columns * AIE_CORE_ROWS;
  HRX_RETURN_IF_ERROR(hrx_sys_ioctl(&device->sys, device->fd,
                                    HRX_XDNA_IOCTL_CREATE_HWCTX,
                                    "CREATE_HWCTX", &args));
  program->context = args.handle;
  program->timeline = args.syncobj_handle;
  return hrx_npu_syncobj_create(&device->sys, device->fd, &program->spare);
}

/* Creates the entry's allocations and fills |targets| and |bounds|. */
static hrx_status_t create_allocations(hrx_npu_program_t* program,
                                       const hrx_npu_image_t* image,
                                       size_t entry,
                                       const hrx_npu_binding_t* bindings,
                                       hrx_npu_image_target_t* targets,
                                       hrx_npu_image_bound_t* bounds) {
  hrx_npu_image_entry_t info;
  hrx_npu_image_entry(image, entry, &info);
  for (size_t i = 0; i < info.allocation_count; ++i) {
    hrx_npu_image_allocation_t allocation;
    hrx_npu_image_allocation(image, entry, i, &allocation);
    hrx_xdna_bo_type_t type = allocation.kind == HRX_NPU_ALLOCATION_COMMAND
                                  ? HRX_XDNA_BO_DEV
                                  : HRX_XDNA_BO_SHARE;
    HRX_RETURN_IF_ERROR(hrx_status_annotate(
        hrx_npu_bo_create(program->device, type, allocation.size,
                          &program->storage[i]),
        "allocation %zu of entry '%s'", i, info.name));
    ++program->storage_count;
    targets[i] = (hrx_npu_image_target_t){
        .host = program->storage[i].host, .size = allocation.size};
    HRX_RETURN_IF_ERROR(hrx_npu_dma_address(program->storage[i].xdna_addr,
                                            &targets[i].address));
  }
  for (size_t i = 0; i < info.binding_count; ++i) {
    bounds[i] = (hrx_npu_image_bound_t){
        .address = hrx_npu_buffer_dma_address(bindings[i].buffer) +
                   bindings[i].offset,
        .size = bindings[i].size,
        .offset = bindings[i].offset,
    };
  }
  return HRX_OK;
}

/* Creates the entry's storage, loads and relocates the image into it and
 * flushes it for the NPU. */
static hrx_status_t create_storage(hrx_npu_program_t* program,
                                   const hrx_npu_image_t* image, size_t entry,
                                   const hrx_npu_binding_t* bindings) {
  hrx_allocator_t allocator = program->device->allocator;
  hrx_npu_image_entry_t info;
  hrx_npu_image_entry(image, entry, &info);
  hrx_npu_image_target_t* targets = NULL;
  hrx_npu_image_bound_t* bounds = NULL;
  hrx_status_t status = hrx_allocator_malloc_array(
      allocator, info.allocation_count, sizeof(*targets), (void**)&targets);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(allocator, info.binding_count + 1,
                                        sizeof(*bounds), (void**)&bounds);
  }
  if (status == HRX_OK) {
    status = create_allocations(program, image, entry, bindings, targets,
                                bounds);
  }
  if (status == HRX_OK) {
    status = hrx_npu_image_load(image, entry, targets, info.allocation_count,
                                bounds, info.binding_count);
  }
  hrx_allocator_free(allocator, targets);
  hrx_allocator_free(allocator, bounds);
  HRX_RETURN_IF_ERROR(status);
  for (size_t i = 0; i < program->storage_count; ++i) {
    hrx_npu_cache_flush(program->storage[i].host, program->storage[i].size);
  }
  program->command_address =
      program->storage[info.command_allocation].xdna_addr +
      info.command_offset;
  program->command_length = info.command_length;
  return HRX_OK;
}

static hrx_status_t create_queue(hrx_npu_program_t* program) {
  for (size_t i = 0; i < HRX_NPU_PROGRAM_SLOTS; ++i) {
    HRX_RETURN_IF_ERROR(hrx_status_annotate(
        hrx_npu_bo_create(program->device, HRX_XDNA_BO_CMD, CMD_BO_SIZE,
                          &program->slots[i].command),
        "command slot %zu", i));
  }
  return HRX_OK;
}

static hrx_status_t check_bindings(const hrx_npu_binding_t* bindings,
                                   size_t count, size_t expected,
                                   const char* entry) {
  if (count != expected) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "entry '%s' takes %zu bindings, got %zu", entry,
                           expected, count);
  }
  for (size_t i = 0; i < count; ++i) {
    const hrx_npu_binding_t* b = &bindings[i];
    uint64_t size = b->buffer ? hrx_npu_buffer_size(b->buffer) : 0;
    if (!b->buffer || b->offset > size || size - b->offset < b->size) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "binding %zu: %llu bytes at %llu do not fit "
                             "its %llu-byte buffer",
                             i, (unsigned long long)b->size,
                             (unsigned long long)b->offset,
                             (unsigned long long)size);
    }
  }
  return HRX_OK;
}

static hrx_status_t prepare(hrx_npu_program_t* program,
                            const hrx_npu_image_t* image, size_t entry,
                            const hrx_npu_binding_t* bindings) {
  HRX_RETURN_IF_ERROR(
      hrx_status_annotate(create_context(program), "creating the context"));
  HRX_RETURN_IF_ERROR(create_storage(program, image, entry, bindings));
  return hrx_status_annotate(create_queue(program), "creating the queue");
}

hrx_status_t hrx_npu_program_prepare(hrx_npu_device_t* device,
                                     const hrx_npu_image_t* image,
                                     const char* entry_name,
                                     const hrx_npu_binding_t* bindings,
                                     size_t binding_count,
                                     hrx_npu_program_t** out_program) {
  *out_program = NULL;
  size_t entry = 0;
  HRX_RETURN_IF_ERROR(hrx_npu_image_find_entry(image, entry_name, &entry));
  hrx_npu_image_entry_t info;
  hrx_npu_image_entry(image, entry, &info);
  HRX_RETURN_IF_ERROR(
      check_bindings(bindings, binding_count, info.binding_count, info.name));
  hrx_npu_program_t* program = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(device->allocator,
                                           sizeof(*program),
                                           (void**)&program));
  program->device = device;
  hrx_status_t status = hrx_allocator_malloc_array(
      device->allocator, info.allocation_count, sizeof(hrx_npu_bo_t),
      (void**)&program->storage);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(
        device->allocator, binding_count ? binding_count : 1,
        sizeof(hrx_npu_buffer_t*), (void**)&program->bound);
  }
  if (status == HRX_OK) {
    for (size_t i = 0; i < binding_count; ++i) {
      hrx_npu_buffer_retain(bindings[i].buffer);
      program->bound[program->bound_count++] = bindings[i].buffer;
    }
    status = prepare(program, image, entry, bindings);
  }
  if (status != HRX_OK) {
    release_program(program);
    return hrx_status_annotate(status, "preparing NPU entry '%s'",
                               entry_name);
  }
  *out_program = program;
  return HRX_OK;
}

/* The syncobj and point that say when |point| has completed. */
static void fence_of(const hrx_npu_program_t* program, uint64_t point,
                     uint32_t* out_handle, uint64_t* out_point) {
  if (point == program->captured_point) {
    *out_handle = program->spare;
    *out_point = 0;
  } else {
    *out_handle = program->timeline;
    *out_point = point;
  }
}

static hrx_status_t slot_signaled(hrx_npu_program_t* program,
                                  const program_slot_t* slot,
                                  uint64_t deadline_ns, bool* out_signaled) {
  uint32_t handle = 0;
  uint64_t point = 0;
  fence_of(program, slot->point, &handle, &point);
  return hrx_npu_syncobj_wait(&program->device->sys, program->device->fd,
                              handle, point, deadline_ns, out_signaled);
}

/* Retires the oldest pending slot, whose fence has signalled, and reports
 * a command state other than COMPLETED. */
static hrx_status_t retire_oldest(hrx_npu_program_t* program) {
  program_slot_t* slot = &program->slots[program->head];
  hrx_npu_cache_flush(slot->command.host, sizeof(uint32_t));
  uint32_t word = 0;
  memcpy(&word, slot->command.host, sizeof(word));
  uint32_t state = word & HRX_NPU_ERT_STATE_MASK;
  uint64_t point = slot->point;
  slot->point = 0;
  program->head = (program->head + 1) % HRX_NPU_PROGRAM_SLOTS;
  --program->pending;
  if (state != HRX_NPU_ERT_STATE_COMPLETED) {
    return hrx_make_status(HRX_STATUS_INTERNAL,
                           "NPU invocation %llu ended in command state %s "
                           "(%u), not COMPLETED",
                           (unsigned long long)point,
                           hrx_npu_ert_state_name(state), state);
  }
  return HRX_OK;
}

/* Retires every pending invocation up to |point|, which has signalled
 * (the timeline completes in order); the first failure is returned. */
static hrx_status_t retire_through(hrx_npu_program_t* program,
                                   uint64_t point) {
  hrx_status_t status = HRX_OK;
  while (program->pending > 0 &&
         program->slots[program->head].point <= point) {
    status = hrx_status_join(status, retire_oldest(program));
  }
  return status;
}

hrx_status_t hrx_npu_program_dispatch(hrx_npu_program_t* program,
                                      hrx_npu_invocation_t* out_invocation) {
  out_invocation->point = 0;
  if (program->pending == HRX_NPU_PROGRAM_SLOTS) {
    program_slot_t* oldest = &program->slots[program->head];
    bool signaled = false;
    HRX_RETURN_IF_ERROR(slot_signaled(program, oldest, 0, &signaled));
    if (!signaled) {
      return hrx_make_status(HRX_STATUS_BUSY,
                             "%d NPU invocations are pending and the oldest "
                             "(%llu) still runs",
                             HRX_NPU_PROGRAM_SLOTS,
                             (unsigned long long)oldest->point);
    }
    HRX_RETURN_IF_ERROR(retire_through(program, oldest->point));
  }
  size_t index = (program->head + program->pending) % HRX_NPU_PROGRAM_SLOTS;
  program_slot_t* slot = &program->slots[index];
  uint32_t words[HRX_NPU_ERT_WORDS];
  hrx_npu_ert_encode(program->command_address, program->command_length,
                     words);
  memcpy(slot->command.host, words, sizeof(words));
  hrx_npu_cache_flush(slot->command.host, sizeof(words));
  hrx_npu_device_t* device = program->device;
  hrx_xdna_exec_cmd_t args;
  memset(&args, 0, sizeof(args));
  args.hwctx = program->context;
  args.type = HRX_XDNA_CMD_SUBMIT_EXEC_BUF;
  args.cmd_handles = slot->command.handle;
  args.cmd_count = 1;
  args.arg_count = 0;
  HRX_RETURN_IF_ERROR(hrx_sys_ioctl(&device->sys, device->fd,
                                    HRX_XDNA_IOCTL_EXEC_CMD, "EXEC_CMD",
                                    &args));
  slot->point = args.seq + 1;
  bool first = program->newest_point == 0;
  program->newest_point = slot->point;
  ++program->pending;
  if (first) {
    /* Without the capture the invocation is still tracked on the
     * timeline; only the caller's handle is lost. */
    HRX_RETURN_IF_ERROR(hrx_status_annotate(
        hrx_npu_syncobj_capture(&device->sys, device->fd, program->timeline,
                                slot->point, program->spare),
        "capturing the first fence"));
    program->captured_point = slot->point;
  }
  out_invocation->point = slot->point;
  return HRX_OK;
}

/* The pending slot of |invocation|, or NULL when it has retired. */
static hrx_status_t find_slot(hrx_npu_program_t* program,
                              hrx_npu_invocation_t invocation,
                              program_slot_t** out_slot) {
  *out_slot = NULL;
  if (invocation.point == 0 || invocation.point > program->newest_point) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "NPU invocation %llu was not dispatched here",
                           (unsigned long long)invocation.point);
  }
  for (size_t i = 0; i < program->pending; ++i) {
    program_slot_t* slot =
        &program->slots[(program->head + i) % HRX_NPU_PROGRAM_SLOTS];
    if (slot->point == invocation.point) {
      *out_slot = slot;
      return HRX_OK;
    }
  }
  return HRX_OK;
}

static hrx_status_t wait_until(hrx_npu_program_t* program,
                               hrx_npu_invocation_t invocation,
                               uint64_t deadline_ns, bool* out_complete) {
  *out_complete = false;
  program_slot_t* slot = NULL;
  HRX_RETURN_IF_ERROR(find_slot(program, invocation, &slot));
  if (!slot) {
    *out_complete = true;
    return HRX_OK;
  }
  bool signaled = false;
  HRX_RETURN_IF_ERROR(slot_signaled(program, slot, deadline_ns, &signaled));
  if (!signaled) return HRX_OK;
  *out_complete = true;
  return retire_through(program, invocation.point);
}

hrx_status_t hrx_npu_program_is_complete(hrx_npu_program_t* program,
                                         hrx_npu_invocation_t invocation,
                                         bool* out_complete) {
  return wait_until(program, invocation, 0, out_complete);
}

hrx_status_t hrx_npu_program_wait(hrx_npu_program_t* program,
                                  hrx_npu_invocation_t invocation,
                                  uint64_t timeout_ns) {
  bool complete = false;
  HRX_RETURN_IF_ERROR(wait_until(program, invocation,
                                 hrx_deadline_after(timeout_ns), &complete));
  if (!complete) {
    return hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                           "NPU invocation %llu still runs after %llu ns",
                           (unsigned long long)invocation.point,
                           (unsigned long long)timeout_ns);
  }
  return HRX_OK;
}

hrx_status_t hrx_npu_program_eventfd(hrx_npu_program_t* program,
                                     hrx_npu_invocation_t invocation,
                                     int eventfd) {
  program_slot_t* slot = NULL;
  HRX_RETURN_IF_ERROR(find_slot(program, invocation, &slot));
  uint32_t handle = 0;
  uint64_t point = 0;
  fence_of(program, invocation.point, &handle, &point);
  return hrx_npu_syncobj_eventfd(&program->device->sys, program->device->fd,
                                 handle, point, eventfd);
}

size_t hrx_npu_program_pending(const hrx_npu_program_t* program) {
  return program->pending;
}

void hrx_npu_program_destroy(hrx_npu_program_t* program) {
  if (!program) return;
  if (program->pending > 0) {
    size_t newest =
        (program->head + program->pending - 1) % HRX_NPU_PROGRAM_SLOTS;
    hrx_npu_invocation_t last = {.point = program->slots[newest].point};
    /* A firmware error is over and done; what matters is whether the NPU
     * may still be running, and then everything is leaked. */
    hrx_status_ignore(
        hrx_npu_program_wait(program, last, HRX_NPU_PROGRAM_DRAIN_NS));
    if (program->pending > 0) return;
  }
  release_program(program);
}
