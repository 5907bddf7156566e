/* Public entry points for modules: parse, inspect, destroy. */
#include <string.h>

#include "hrx/loom/module.h"
#include "ir.h"

hrx_status_t loom_parse_module(loom_module_t* module,
                               hrx_loom_diagnostics_t* diagnostics);

hrx_status_t hrx_loom_module_parse(
    const char* text, size_t length,
    const hrx_loom_parse_options_t* caller_options,
    hrx_loom_diagnostics_t* diagnostics, hrx_allocator_t allocator,
    hrx_loom_module_t** out_module) {
  *out_module = NULL;
  hrx_loom_parse_options_t local_options;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_loom_parse_options_t, skip_verify,
                                      caller_options, &local_options));
  const hrx_loom_parse_options_t* options = &local_options;
  if (!text && length) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "source text is NULL but length is %zu", length);
  }
  if (length > UINT32_MAX - 2) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "source of %zu bytes exceeds the 4 GiB limit",
                           length);
  }
  const char* name =
      options && options->source_name ? options->source_name : "<input>";
  /* Without a caller's list, errors are still counted in a private one. */
  hrx_loom_diagnostics_t* own = NULL;
  size_t errors_before = 0;
  HRX_RETURN_IF_ERROR(
      loom_diag_begin(&diagnostics, allocator, &own, &errors_before));
  loom_module_t* module = NULL;
  hrx_status_t status =
      loom_module_create(allocator, name, text ? text : "", length, &module);
  if (status == HRX_OK) status = loom_parse_module(module, diagnostics);
  if (status == HRX_OK) {
    status = loom_diag_result(diagnostics, errors_before, "parsing");
  }
  if (status == HRX_OK && !(options && options->skip_verify)) {
    status = hrx_loom_module_verify(module, diagnostics);
  }
  hrx_loom_diagnostics_destroy(own);
  if (status != HRX_OK) {
    hrx_loom_module_destroy(module);
    return status;
  }
  *out_module = module;
  return HRX_OK;
}

const char* hrx_loom_arg_type_name(hrx_loom_arg_type_t type) {
  static const char* const names[] = {
      "index", "offset", "i1", "i8", "i16", "i32", "i64", "f16", "bf16",
      "f32", "f64", "buffer"};
  return (unsigned)type < sizeof(names) / sizeof(names[0]) ? names[type]
                                                           : "unknown";
}

size_t hrx_loom_module_kernel_count(const hrx_loom_module_t* module) {
  return module->kernels.count;
}

static hrx_status_t loom_kernel_index(const hrx_loom_module_t* module,
                                      size_t kernel) {
  if (kernel >= module->kernels.count) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "kernel %zu of a module with %u kernels", kernel,
                           module->kernels.count);
  }
  return HRX_OK;
}

hrx_status_t hrx_loom_module_kernel_info(const hrx_loom_module_t* module,
                                         size_t kernel,
                                         hrx_loom_kernel_info_t* caller_info) {
  hrx_loom_kernel_info_t local;
  memset(&local, 0, sizeof(local));
  hrx_loom_kernel_info_t* out_info = &local;
  HRX_RETURN_IF_ERROR(loom_kernel_index(module, kernel));
  const loom_kernel_t* k = &LOOM_KERNEL(module, kernel);
  out_info->symbol = loom_module_string(module, k->symbol);
  out_info->export_name = k->export_name == LOOM_NONE
                              ? NULL
                              : loom_module_string(module, k->export_name);
  if (k->target != LOOM_NONE) {
    const loom_target_t* target = &LOOM_TARGET(module, k->target);
    out_info->target_symbol = loom_module_string(module, target->symbol);
    out_info->target_kind = loom_module_string(module, target->kind);
    out_info->subgroup_size = (uint32_t)target->subgroup_size;
  }
  out_info->workload_arg_count = LOOM_REGION(module, k->config_region).arg_count;
  out_info->launch_arg_count = LOOM_REGION(module, k->body_region).arg_count;
  return HRX_STRUCT_WRITE(hrx_loom_kernel_info_t, launch_arg_count, &local,
                          caller_info);
}

hrx_status_t hrx_loom_module_kernel_arg(const hrx_loom_module_t* module,
                                        size_t kernel, bool launch,
                                        size_t index,
                                        hrx_loom_arg_info_t* caller_info) {
  hrx_loom_arg_info_t local;
  memset(&local, 0, sizeof(local));
  hrx_loom_arg_info_t* out_info = &local;
  HRX_RETURN_IF_ERROR(loom_kernel_index(module, kernel));
  const loom_kernel_t* k = &LOOM_KERNEL(module, kernel);
  const loom_region_t* region =
      &LOOM_REGION(module, launch ? k->body_region : k->config_region);
  if (index >= region->arg_count) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "argument %zu of %u", index, region->arg_count);
  }
  const loom_value_t* arg = &LOOM_VALUE(module, region->args_start + index);
  out_info->name = loom_module_string(module, arg->name);
  loom_type_kind_t kind = loom_type_kind(module, arg->type);
  if (kind < LOOM_TYPE_INDEX || kind > LOOM_TYPE_BUFFER) {
    return hrx_make_status(HRX_STATUS_INTERNAL,
                           "argument %zu has a shaped type", index);
  }
  out_info->type = (hrx_loom_arg_type_t)(kind - LOOM_TYPE_INDEX);
  return HRX_STRUCT_WRITE(hrx_loom_arg_info_t, type, &local,
                          caller_info);
}

hrx_status_t hrx_loom_module_find_export(const hrx_loom_module_t* module,
                                         const char* export_name,
                                         size_t* out_kernel) {
  uint32_t k = loom_module_find_code_name(module, export_name);
  if (k != LOOM_NONE && LOOM_KERNEL(module, k).export_name != LOOM_NONE) {
    *out_kernel = k;
    return HRX_OK;
  }
  char escaped[HRX_ESCAPED_NAME_CAPACITY];
  return hrx_make_status(
      HRX_STATUS_NOT_FOUND, "no kernel exported as \"%s\"",
      hrx_escape_text(export_name, strlen(export_name), escaped,
                      sizeof(escaped)));
}

bool loom_module_targets_compile(const loom_module_t* module,
                                 const char* profile,
                                 hrx_loom_diagnostics_t* diagnostics) {
  for (uint32_t k = 0; k < module->kernels.count; ++k) {
    const loom_kernel_t* kernel = &LOOM_KERNEL(module, k);
    if (kernel->target == LOOM_NONE) continue;
    const loom_target_t* target = &LOOM_TARGET(module, kernel->target);
    if (target->family != LOOM_TARGET_OTHER) continue;
    const char* family = loom_module_string(module, target->family_name);
    hrx_loom_diag_param_t params[] = {{"target", family}};
    loom_diag_emit(diagnostics, &module->source, target->span,
                   HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_TARGET, params,
                   1, "%s.target is not supported: @%s targets it, and the "
                   "%s profile compiles host and amdgpu kernels only",
                   family, loom_module_string(module, kernel->symbol),
                   profile);
    return false;
  }
  return true;
}
