/* Kernel contracts: what each dispatch of a kernel must bind. */
#include <stdio.h>
#include <string.h>

#include "exec_internal.h"

hrx_status_t hrx_exec_kernel_create(hrx_exec_runtime_t* rt,
                                    hrx_gpu_kernel_t* kernel,
                                    const hrx_exec_kernel_contract_t* contract,
                                    hrx_exec_kernel_t** out_kernel) {
  *out_kernel = NULL;
  if (!kernel || !contract ||
      (contract->binding_count && !contract->bindings)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "kernel contract needs a kernel and its bindings");
  }
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  HRX_RETURN_IF_ERROR(hrx_gpu_kernel_info(kernel, &info));
  size_t buffers = 0, scalars = 0;
  for (uint32_t a = 0; a < info.arg_count; ++a) {
    if (info.args[a].kind == HRX_FABRIC_ARG_BUFFER) {
      buffers++;
    } else {
      scalars++;
    }
  }
  if (buffers != contract->binding_count || scalars != contract->scalar_count) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "contract of kernel '%s' declares %zu bindings and "
                           "%zu scalars; the kernel takes %zu and %zu",
                           info.name, contract->binding_count,
                           contract->scalar_count, buffers, scalars);
  }
  for (size_t b = 0; b < contract->binding_count; ++b) {
    const hrx_exec_binding_contract_t* c = &contract->bindings[b];
    if ((unsigned)c->access > HRX_GPU_ACCESS_WRITE ||
        (c->alignment & (c->alignment - 1)) != 0) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "contract of kernel '%s': binding %zu has access "
                             "%d and alignment %u (a power of two or 0)",
                             info.name, b, (int)c->access, c->alignment);
    }
  }
  hrx_exec_kernel_t* k = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(rt->allocator, sizeof(*k), (void**)&k));
  if (contract->binding_count) {
    hrx_status_t status = hrx_allocator_malloc(
        rt->allocator, contract->binding_count * sizeof(*k->bindings),
        (void**)&k->bindings);
    if (status != HRX_OK) {
      hrx_allocator_free(rt->allocator, k);
      return status;
    }
    memcpy(k->bindings, contract->bindings,
           contract->binding_count * sizeof(*k->bindings));
  }
  k->runtime = rt;
  k->kernel = kernel;
  hrx_gpu_kernel_retain(kernel);
  k->binding_count = contract->binding_count;
  k->scalar_count = contract->scalar_count;
  snprintf(k->name, sizeof(k->name), "%s", info.name ? info.name : "?");
  *out_kernel = k;
  return HRX_OK;
}

void hrx_exec_kernel_destroy(hrx_exec_kernel_t* k) {
  if (!k) return;
  hrx_gpu_kernel_release(k->kernel);
  hrx_allocator_free(k->runtime->allocator, k->bindings);
  hrx_allocator_free(k->runtime->allocator, k);
}
