/* Kernels: a loaded executable's kernel plus its launch program. */
#include "gpu_internal.h"

hrx_status_t hrx_gpu_kernel_load(hrx_gpu_device_t* device,
                                 const void* code_object, size_t length,
                                 const char* name,
                                 hrx_gpu_kernel_t** out_kernel) {
  *out_kernel = NULL;
  hrx_gpu_kernel_t* kernel = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(device->allocator, sizeof(*kernel),
                                           (void**)&kernel));
  hrx_status_t status = hrx_fabric_executable_load(
      device->fabric, code_object, length, &kernel->executable);
  if (status == HRX_OK) {
    status = hrx_fabric_executable_find_kernel(kernel->executable, name,
                                               &kernel->kernel);
  }
  if (status == HRX_OK) {
    kernel->info.struct_size = sizeof(kernel->info);
    status = hrx_fabric_kernel_info(kernel->kernel, &kernel->info);
  }
  if (status == HRX_OK) {
    status = hrx_fabric_launch_program_load(
        kernel->info.launch_program, kernel->info.launch_program_length,
        device->allocator, &kernel->program);
  }
  if (status != HRX_OK) {
    hrx_fabric_executable_release(kernel->executable);
    hrx_allocator_free(device->allocator, kernel);
    return hrx_status_annotate(status, "loading kernel '%s'", name);
  }
  atomic_init(&kernel->ref_count, 1);
  kernel->serial = atomic_fetch_add_explicit(&device->next_kernel_serial, 1,
                                             memory_order_relaxed) + 1;
  kernel->device = device;
  hrx_gpu_device_retain(device);
  *out_kernel = kernel;
  return HRX_OK;
}

void hrx_gpu_kernel_retain(hrx_gpu_kernel_t* kernel) {
  if (kernel) atomic_fetch_add_explicit(&kernel->ref_count, 1,
                                        memory_order_relaxed);
}

void hrx_gpu_kernel_release(hrx_gpu_kernel_t* kernel) {
  if (!kernel || atomic_fetch_sub_explicit(&kernel->ref_count, 1,
                                           memory_order_acq_rel) != 1) {
    return;
  }
  hrx_gpu_device_t* device = kernel->device;
  hrx_fabric_launch_program_destroy(kernel->program);
  hrx_fabric_executable_release(kernel->executable);
  hrx_allocator_free(device->allocator, kernel);
  hrx_gpu_device_release(device);
}

hrx_status_t hrx_gpu_kernel_info(const hrx_gpu_kernel_t* kernel,
                                 hrx_fabric_kernel_info_t* out_info) {
  return HRX_STRUCT_WRITE(hrx_fabric_kernel_info_t, native_note, &kernel->info,
                          out_info);
}
