#include "host_harness.h"

#include <stdlib.h>
#include <string.h>

harness_arg_t arg_f32(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  return (harness_arg_t){.bits = bits};
}

void harness_open(harness_t* h) {
  memset(h, 0, sizeof(*h));
  assert_ok(hrx_fabric_host_device_create(NULL, hrx_allocator_system(),
                                          &h->device));
  assert_ok(hrx_fabric_queue_create(h->device, 64, &h->queue));
}

void harness_close(harness_t* h) {
  hrx_fabric_queue_destroy(h->queue);
  hrx_fabric_executable_release(h->executable);
  hrx_fabric_device_release(h->device);
}

void harness_load(harness_t* h, const char* file, const char* const* config) {
  const char* dir = getenv("HRX_LOOM_KERNELS");
  assert_non_null(dir);
  char* path = test_strdup_printf("%s/%s", dir, file);
  void* text = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 24, &text,
                              &length));
  harness_load_source(h, path, text, length, config);
  free(text);
  free(path);
}

/* Parses, specialises and compiles |text| for the host profile; on
 * failure |*out_diagnostics| (when not NULL) receives them formatted. */
static hrx_status_t harness_compile(const harness_t* h, const char* path,
                                    const char* text, size_t length,
                                    const char* const* config,
                                    uint8_t** out_code, size_t* out_length,
                                    char** out_diagnostics) {
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  hrx_loom_module_t* module = NULL;
  hrx_loom_parse_options_t options = HRX_STRUCT_INIT(hrx_loom_parse_options_t);
  options.source_name = path;
  hrx_status_t status = hrx_loom_module_parse(
      text, length, &options, diagnostics, hrx_allocator_system(), &module);
  hrx_loom_config_t* values = NULL;
  hrx_loom_specialization_t* spec = NULL;
  if (status == HRX_OK) {
    status = hrx_loom_config_create(hrx_allocator_system(), &values);
  }
  for (; status == HRX_OK && config && *config; ++config) {
    status = hrx_loom_config_set_assignment(values, *config);
  }
  if (status == HRX_OK) {
    status = hrx_loom_module_specialize(module, values, diagnostics,
                                        hrx_allocator_system(), &spec);
  }
  hrx_loom_profile_t profile = hrx_loom_profile_host();
  hrx_loom_host_options_t host = HRX_STRUCT_INIT(hrx_loom_host_options_t);
  host.sanitizers = h->sanitizers;
  if (status == HRX_OK) {
    status = hrx_loom_compile_host(module, spec, &profile, &host,
                                   diagnostics, hrx_allocator_system(),
                                   out_code, out_length);
  }
  if (status != HRX_OK && out_diagnostics) {
    hrx_string_builder_t b;
    hrx_string_builder_init(hrx_allocator_system(), &b);
    hrx_status_free(hrx_loom_diagnostics_format(diagnostics, &b));
    *out_diagnostics = strdup(hrx_string_builder_cstr(&b));
    hrx_string_builder_deinit(&b);
  }
  hrx_loom_specialization_destroy(spec);
  hrx_loom_config_destroy(values);
  hrx_loom_module_destroy(module);
  hrx_loom_diagnostics_destroy(diagnostics);
  return status;
}

uint8_t* harness_compile_code(const harness_t* h, const char* path,
                              const char* text, size_t length,
                              const char* const* config, size_t* out_length) {
  uint8_t* code = NULL;
  char* diagnostics = NULL;
  hrx_status_t status = harness_compile(h, path, text, length, config, &code,
                                        out_length, &diagnostics);
  if (status != HRX_OK) print_error("%s", diagnostics);
  free(diagnostics);
  assert_ok(status);
  return code;
}

void harness_load_code(harness_t* h, const uint8_t* code, size_t length) {
  hrx_fabric_executable_release(h->executable);
  h->executable = NULL;
  assert_ok(hrx_fabric_executable_load(h->device, code, length,
                                       &h->executable));
}

void harness_load_source(harness_t* h, const char* path, const char* text,
                         size_t length, const char* const* config) {
  size_t code_length = 0;
  uint8_t* code =
      harness_compile_code(h, path, text, length, config, &code_length);
  harness_load_code(h, code, code_length);
  free(code);
}

char* harness_compile_error(harness_t* h, const char* path,
                            const char* text) {
  uint8_t* code = NULL;
  size_t code_length = 0;
  char* diagnostics = NULL;
  hrx_status_t status = harness_compile(h, path, text, strlen(text), NULL,
                                        &code, &code_length, &diagnostics);
  free(code);
  if (status == HRX_OK) fail_msg("%s compiled; an error was expected", path);
  hrx_status_free(status);
  assert_non_null(diagnostics);
  return diagnostics;
}

hrx_fabric_memory_t harness_buffer(harness_t* h, size_t bytes) {
  hrx_fabric_memory_t memory;
  assert_ok(hrx_fabric_memory_allocate(h->device, bytes ? bytes : 1,
                                       HRX_FABRIC_VISIBILITY_HOST_COHERENT,
                                       &memory));
  return memory;
}

hrx_status_t harness_run(harness_t* h, const char* kernel_name,
                         const uint64_t* workload, size_t workload_count,
                         const harness_arg_t* args, size_t arg_count) {
  const hrx_fabric_kernel_t* kernel = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_fabric_executable_find_kernel(h->executable, kernel_name, &kernel));
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  if (arg_count != info.arg_count) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s takes %u arguments, got %zu", kernel_name,
                           info.arg_count, arg_count);
  }
  hrx_fabric_launch_program_t* program = NULL;
  HRX_RETURN_IF_ERROR(hrx_fabric_launch_program_load(
      info.launch_program, info.launch_program_length, hrx_allocator_system(),
      &program));
  hrx_fabric_launch_config_t launch =
      HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
  hrx_status_t status = hrx_fabric_launch_program_evaluate(
      program, workload, workload_count, &launch);
  hrx_fabric_launch_program_destroy(program);
  HRX_RETURN_IF_ERROR(status);

  uint8_t* kernarg = calloc(1, info.kernarg_size ? info.kernarg_size : 1);
  for (size_t a = 0; a < arg_count; ++a) {
    uint64_t bits = args[a].buffer ? args[a].buffer->device_address
                                   : args[a].bits;
    memcpy(kernarg + info.args[a].offset, &bits, info.args[a].size);
  }
  hrx_fabric_signal_t* done = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_fabric_signal_create(1, hrx_allocator_system(), &done));
  uint64_t index = 0;
  status = hrx_fabric_queue_reserve(h->queue, 1, &index);
  if (status == HRX_OK) {
    hrx_aql_dispatch_packet_t* p =
        &hrx_fabric_queue_slot(h->queue, index)->dispatch;
    p->workgroup_size_x = (uint16_t)launch.workgroup_size[0];
    p->workgroup_size_y = (uint16_t)launch.workgroup_size[1];
    p->workgroup_size_z = (uint16_t)launch.workgroup_size[2];
    p->grid_size_x = launch.workgroup_count[0] * launch.workgroup_size[0];
    p->grid_size_y = launch.workgroup_count[1] * launch.workgroup_size[1];
    p->grid_size_z = launch.workgroup_count[2] * launch.workgroup_size[2];
    p->group_segment_size = (uint32_t)launch.workgroup_storage_bytes;
    p->private_segment_size = 0;
    p->kernel_object = hrx_fabric_kernel_object(kernel);
    p->kernarg_address = (uint64_t)(uintptr_t)kernarg;
    p->completion_signal = hrx_fabric_signal_handle(done);
    hrx_fabric_queue_publish(
        h->queue, index,
        hrx_aql_header(HRX_AQL_PACKET_KERNEL_DISPATCH, 1,
                       HRX_AQL_FENCE_SYSTEM, HRX_AQL_FENCE_SYSTEM),
        3);
    int64_t value = 0;
    status = hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                    60ull * 1000000000ull, &value);
    if (status == HRX_OK && value == HRX_FABRIC_SIGNAL_FAULTED) {
      hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
      status = hrx_fabric_queue_take_fault(h->queue, &fault);
      if (status == HRX_OK) {
        char text[512];
        hrx_fabric_fault_format(&fault, text, sizeof(text));
        status = hrx_make_status(HRX_STATUS_ABORTED, "%s", text);
      }
    }
  }
  hrx_fabric_signal_release(done);
  free(kernarg);
  return status;
}
