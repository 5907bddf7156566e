/* Prepared commands: AQL packet bodies plus the resources they use. */
#include <string.h>

#include "gpu_internal.h"

void hrx_gpu_kernarg_cache_free(hrx_allocator_t allocator,
                                hrx_gpu_kernarg_cache_t* cache) {
  for (uint32_t i = 0; i < cache->count; ++i) {
    hrx_allocator_free(allocator, cache->blocks[i]);
  }
  cache->count = 0;
}

static hrx_status_t hrx_gpu_kernarg_take(hrx_allocator_t allocator,
                                         hrx_gpu_kernarg_cache_t* cache,
                                         uint32_t bytes,
                                         hrx_gpu_command_t* command) {
  if (cache && bytes <= HRX_GPU_KERNARG_BLOCK) {
    command->kernarg_cache = cache;
    if (cache->count) {
      /* As fresh as a heap segment: padding and unset bytes read zero. */
      command->kernarg = cache->blocks[--cache->count];
      memset(command->kernarg, 0, bytes);
      return HRX_OK;
    }
    bytes = HRX_GPU_KERNARG_BLOCK;
  }
  return hrx_allocator_malloc(allocator, bytes, (void**)&command->kernarg);
}

static void hrx_gpu_kernarg_give(hrx_allocator_t allocator,
                                 hrx_gpu_command_t* command) {
  hrx_gpu_kernarg_cache_t* cache = command->kernarg_cache;
  if (command->kernarg && cache && cache->count < HRX_GPU_KERNARG_CACHE) {
    cache->blocks[cache->count++] = command->kernarg;
  } else {
    hrx_allocator_free(allocator, command->kernarg);
  }
}

void hrx_gpu_command_release(hrx_allocator_t allocator,
                             hrx_gpu_command_t* command) {
  hrx_gpu_buffer_t* const* buffers = hrx_gpu_command_buffers(command);
  for (uint32_t i = 0; i < command->buffer_count; ++i) {
    hrx_gpu_buffer_release(buffers[i]);
  }
  hrx_allocator_free(allocator, command->heap_buffers);
  hrx_gpu_kernarg_give(allocator, command);
  hrx_gpu_kernel_release(command->kernel);
  hrx_gpu_event_release(command->event);
  memset(command, 0, sizeof(*command));
}

static hrx_status_t hrx_gpu_command_retain_buffers(
    hrx_allocator_t allocator, hrx_gpu_command_t* command,
    hrx_gpu_buffer_t* const* buffers, uint32_t count) {
  hrx_gpu_buffer_t** held = command->inline_buffers;
  if (count > HRX_GPU_COMMAND_INLINE_BUFFERS) {
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
        allocator, count, sizeof(hrx_gpu_buffer_t*),
        (void**)&command->heap_buffers));
    held = command->heap_buffers;
  }
  for (uint32_t i = 0; i < count; ++i) {
    held[i] = buffers[i];
    hrx_gpu_buffer_retain(buffers[i]);
  }
  command->buffer_count = count;
  return HRX_OK;
}

static uint64_t hrx_gpu_view_address(hrx_gpu_view_t view) {
  return view.buffer->memory.device_address + view.offset;
}

hrx_status_t hrx_gpu_copy_check_overlap(const hrx_gpu_device_t* device,
                                        hrx_gpu_view_t source,
                                        hrx_gpu_view_t destination) {
  const hrx_fabric_device_properties_t* props =
      hrx_fabric_device_properties(device->fabric);
  if (props->kind != HRX_FABRIC_DEVICE_HOST &&
      source.buffer == destination.buffer &&
      source.offset < destination.offset + destination.length &&
      destination.offset < source.offset + source.length &&
      source.offset != destination.offset) {
    /* A GPU's blit kernels copy in parallel, front to back. */
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s cannot copy between overlapping ranges of one "
                           "buffer ([%llu, +%llu) to [%llu, +%llu)); copy "
                           "through a second buffer",
                           props->name, (unsigned long long)source.offset,
                           (unsigned long long)source.length,
                           (unsigned long long)destination.offset,
                           (unsigned long long)destination.length);
  }
  return HRX_OK;
}

hrx_status_t hrx_gpu_command_copy(hrx_gpu_device_t* device,
                                  hrx_gpu_view_t source,
                                  hrx_gpu_view_t destination,
                                  hrx_gpu_command_t* out) {
  memset(out, 0, sizeof(*out));
  HRX_RETURN_IF_ERROR(hrx_gpu_view_check(device, source, "copy source"));
  HRX_RETURN_IF_ERROR(
      hrx_gpu_view_check(device, destination, "copy destination"));
  if (source.length == 0 || source.length != destination.length) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "copy needs equal, nonempty views (%llu and %llu "
                           "bytes)", (unsigned long long)source.length,
                           (unsigned long long)destination.length);
  }
  hrx_gpu_buffer_t* buffers[] = {source.buffer, destination.buffer};
  HRX_RETURN_IF_ERROR(
      hrx_gpu_command_retain_buffers(device->allocator, out, buffers, 2));
  out->type = HRX_AQL_PACKET_AGENT;
  out->packet.agent.type = HRX_AQL_AGENT_COPY;
  out->packet.agent.arg[0] = hrx_gpu_view_address(destination);
  out->packet.agent.arg[1] = hrx_gpu_view_address(source);
  out->packet.agent.arg[2] = source.length;
  return HRX_OK;
}

hrx_status_t hrx_gpu_command_fill(hrx_gpu_device_t* device,
                                  hrx_gpu_view_t view, uint32_t pattern,
                                  hrx_gpu_command_t* out) {
  memset(out, 0, sizeof(*out));
  HRX_RETURN_IF_ERROR(hrx_gpu_view_check(device, view, "fill"));
  if (view.length == 0 || view.length % 4 != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "fill needs a nonempty view whose length is a "
                           "multiple of 4 (got %llu bytes)",
                           (unsigned long long)view.length);
  }
  HRX_RETURN_IF_ERROR(
      hrx_gpu_command_retain_buffers(device->allocator, out, &view.buffer, 1));
  out->type = HRX_AQL_PACKET_AGENT;
  out->packet.agent.type = HRX_AQL_AGENT_FILL;
  out->packet.agent.arg[0] = hrx_gpu_view_address(view);
  out->packet.agent.arg[1] = pattern;
  out->packet.agent.arg[2] = view.length;
  return HRX_OK;
}

static hrx_status_t hrx_gpu_launch_evaluate(const hrx_gpu_kernel_t* kernel,
                                            const hrx_gpu_launch_t* launch,
                                            hrx_gpu_launch_memo_t* memo,
                                            hrx_fabric_launch_config_t* out) {
  const size_t count = launch->workload_count;
  const size_t bytes = count * sizeof(uint64_t);
  if (memo && memo->serial == kernel->serial &&
      memo->workload_count == count &&
      (count == 0 || (launch->workload &&
                      memcmp(memo->workload, launch->workload, bytes) == 0))) {
    *out = memo->config;
    return HRX_OK;
  }
  hrx_status_t status = hrx_fabric_launch_program_evaluate(
      kernel->program, launch->workload, count, out);
  if (status != HRX_OK) {
    return hrx_status_annotate(status, "launching '%s'", kernel->info.name);
  }
  if (memo && count <= HRX_GPU_LAUNCH_MEMO_WORKLOAD) {
    memo->serial = kernel->serial;
    memo->workload_count = count;
    if (count) memcpy(memo->workload, launch->workload, bytes);
    memo->config = *out;
  }
  return HRX_OK;
}

hrx_status_t hrx_gpu_command_dispatch(hrx_gpu_device_t* device,
                                      const hrx_gpu_kernel_t* kernel,
                                      const hrx_gpu_launch_t* launch,
                                      hrx_gpu_kernarg_cache_t* kernargs,
                                      hrx_gpu_launch_memo_t* memo,
                                      hrx_gpu_command_t* out) {
  memset(out, 0, sizeof(*out));
  const hrx_fabric_kernel_info_t* info = &kernel->info;
  if (kernel->device->fabric != device->fabric) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "kernel '%s' was loaded for another device",
                           info->name);
  }
  if (launch->arg_count != info->arg_count ||
      (launch->arg_count && !launch->args)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "kernel '%s' takes %u arguments, got %zu",
                           info->name, info->arg_count, launch->arg_count);
  }
  hrx_gpu_buffer_t* buffers[HRX_HOST_MAX_BINDINGS];
  uint32_t buffer_count = 0;
  for (uint32_t a = 0; a < info->arg_count; ++a) {
    const hrx_gpu_arg_t* arg = &launch->args[a];
    bool binding = info->args[a].kind == HRX_FABRIC_ARG_BUFFER;
    if (binding != (arg->kind == HRX_GPU_ARG_BINDING)) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "kernel '%s' argument %u is a %s, got a %s",
                             info->name, a, binding ? "binding" : "scalar",
                             binding ? "scalar" : "binding");
    }
    if (binding && (unsigned)arg->access > HRX_GPU_ACCESS_WRITE) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "kernel '%s' argument %u declares access %d "
                             "(READ, WRITE or READ_WRITE)",
                             info->name, a, (int)arg->access);
    }
    if (binding) {
      hrx_status_t status = hrx_gpu_view_check(device, arg->view, "binding");
      if (status != HRX_OK) {
        return hrx_status_annotate(status, "kernel '%s' argument %u",
                                   info->name, a);
      }
      if (buffer_count == HRX_HOST_MAX_BINDINGS) {
        return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "too many bindings");
      }
      buffers[buffer_count++] = arg->view.buffer;
    }
  }
  hrx_fabric_launch_config_t config =
      HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
  hrx_status_t status = hrx_gpu_launch_evaluate(kernel, launch, memo, &config);
  if (status != HRX_OK) return status;
  atomic_store(&device->private_fixed, true);
  /* A dispatch's private segment: its launch configuration's, at least
   * the code object's fixed size. */
  uint64_t private_bytes = info->private_segment_size;
  if (config.private_storage_bytes > private_bytes) {
    private_bytes = config.private_storage_bytes;
  }
  uint64_t provided = hrx_gpu_device_maximum_private_bytes(device);
  if (private_bytes > provided) {
    return hrx_make_status(
        HRX_STATUS_FAILED_PRECONDITION,
        "kernel '%s' needs %llu private bytes per work-item; the device's "
        "queues provide %llu (hrx_gpu_device_set_maximum_private_bytes)",
        info->name, (unsigned long long)private_bytes,
        (unsigned long long)provided);
  }
  uint64_t grid[3];
  for (int d = 0; d < 3; ++d) {
    grid[d] = (uint64_t)config.workgroup_count[d] * config.workgroup_size[d];
    if (grid[d] > UINT32_MAX || config.workgroup_size[d] > UINT16_MAX) {
      return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                             "'%s' grid dimension %d has %llu work-items, "
                             "more than 2^32-1", info->name, d,
                             (unsigned long long)grid[d]);
    }
  }
  status = hrx_gpu_kernarg_take(device->allocator, kernargs,
                                info->kernarg_size ? info->kernarg_size : 8,
                                out);
  if (status == HRX_OK) {
    status = hrx_gpu_command_retain_buffers(device->allocator, out, buffers,
                                            buffer_count);
  }
  if (status != HRX_OK) {
    hrx_gpu_command_release(device->allocator, out);
    return status;
  }
  for (uint32_t a = 0; a < info->arg_count; ++a) {
    const hrx_gpu_arg_t* arg = &launch->args[a];
    uint64_t bits = arg->kind == HRX_GPU_ARG_BINDING
                        ? hrx_gpu_view_address(arg->view) : arg->bits;
    memcpy(out->kernarg + info->args[a].offset, &bits, info->args[a].size);
  }
  hrx_gpu_kernel_retain((hrx_gpu_kernel_t*)kernel);
  out->kernel = (hrx_gpu_kernel_t*)kernel;
  out->type = HRX_AQL_PACKET_KERNEL_DISPATCH;
  out->setup = 3;
  hrx_aql_dispatch_packet_t* p = &out->packet.dispatch;
  p->workgroup_size_x = (uint16_t)config.workgroup_size[0];
  p->workgroup_size_y = (uint16_t)config.workgroup_size[1];
  p->workgroup_size_z = (uint16_t)config.workgroup_size[2];
  p->grid_size_x = (uint32_t)grid[0];
  p->grid_size_y = (uint32_t)grid[1];
  p->grid_size_z = (uint32_t)grid[2];
  uint64_t group = config.workgroup_storage_bytes > info->group_segment_size
                       ? config.workgroup_storage_bytes
                       : info->group_segment_size;
  p->group_segment_size = (uint32_t)group;
  p->private_segment_size = (uint32_t)private_bytes;
  p->kernel_object = hrx_fabric_kernel_object(kernel->kernel);
  p->kernarg_address = (uint64_t)(uintptr_t)out->kernarg;
  return HRX_OK;
}

static hrx_status_t hrx_gpu_prepared_wrap(hrx_gpu_device_t* device,
                                          hrx_gpu_command_t* command,
                                          hrx_gpu_prepared_t** out) {
  hrx_gpu_prepared_t* p = NULL;
  hrx_status_t status =
      hrx_allocator_malloc(device->allocator, sizeof(*p), (void**)&p);
  if (status != HRX_OK) {
    hrx_gpu_command_release(device->allocator, command);
    return status;
  }
  p->device = device;
  hrx_gpu_device_retain(device);
  p->command = *command;
  *out = p;
  return HRX_OK;
}

hrx_status_t hrx_gpu_prepare_dispatch(hrx_gpu_device_t* device,
                                      const hrx_gpu_kernel_t* kernel,
                                      const hrx_gpu_launch_t* launch,
                                      hrx_gpu_prepared_t** out_prepared) {
  *out_prepared = NULL;
  hrx_gpu_command_t command;
  HRX_RETURN_IF_ERROR(
      hrx_gpu_command_dispatch(device, kernel, launch, NULL, NULL, &command));
  return hrx_gpu_prepared_wrap(device, &command, out_prepared);
}

hrx_status_t hrx_gpu_prepare_copy(hrx_gpu_device_t* device,
                                  hrx_gpu_view_t source,
                                  hrx_gpu_view_t destination,
                                  hrx_gpu_prepared_t** out_prepared) {
  *out_prepared = NULL;
  hrx_gpu_command_t command;
  HRX_RETURN_IF_ERROR(hrx_gpu_copy_check_overlap(device, source, destination));
  HRX_RETURN_IF_ERROR(
      hrx_gpu_command_copy(device, source, destination, &command));
  return hrx_gpu_prepared_wrap(device, &command, out_prepared);
}

hrx_status_t hrx_gpu_prepared_dispatch_packet(
    const hrx_gpu_prepared_t* p, hrx_aql_dispatch_packet_t* out_packet) {
  if (!p || p->command.type != HRX_AQL_PACKET_KERNEL_DISPATCH) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the prepared command is not a dispatch");
  }
  *out_packet = p->command.packet.dispatch;
  out_packet->header = 0;
  out_packet->setup = p->command.setup;
  out_packet->completion_signal = 0;
  return HRX_OK;
}

void hrx_gpu_prepared_destroy(hrx_gpu_prepared_t* p) {
  if (!p) return;
  hrx_gpu_device_t* device = p->device;
  hrx_gpu_command_release(device->allocator, &p->command);
  hrx_allocator_free(device->allocator, p);
  hrx_gpu_device_release(device);
}
