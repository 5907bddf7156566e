/* Loom modules: parse, verify, print and inspect Loom source.
 *
 * A module is immutable once parsed and may be read from several threads at
 * once; it owns a copy of its source text, so the caller's buffer may be
 * freed after parsing.
 */
#ifndef HRX_LOOM_MODULE_H_
#define HRX_LOOM_MODULE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/loom/diagnostics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_loom_module_s hrx_loom_module_t;

/* Limits of a module. Source beyond them is rejected with a diagnostic at
 * the offending position, so the verifier, printer and backends never see
 * deeper or bigger input than this.
 *
 * Nesting counts the regions around an op (a kernel body is level 1, each
 * scf region inside it one more) plus, across a func.call, the nesting of
 * the callee: the backends inline calls, so that is the depth they walk. */
#define HRX_LOOM_MAX_NESTING 256
/* Kernels per module and bytes per kernel name (export name, else symbol):
 * the limits of the host code object format. */
#define HRX_LOOM_MAX_KERNELS 1024
#define HRX_LOOM_MAX_KERNEL_NAME 256

typedef struct hrx_loom_parse_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  /* Name used in diagnostics ("<input>" when NULL). */
  const char* source_name;
  /* Parse only; hrx_loom_module_verify() can run later. */
  bool skip_verify;
} hrx_loom_parse_options_t;

/* Parses (and, unless told otherwise, verifies) a whole module.
 *
 * On success |*out_module| is an owned module. On bad source the result is
 * INVALID_ARGUMENT naming the error count and the first error, the
 * diagnostics list (which may be NULL) holds every error with its position,
 * and no module is returned. |options| may be NULL. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_module_parse(
    const char* text, size_t length, const hrx_loom_parse_options_t* options,
    hrx_loom_diagnostics_t* diagnostics, hrx_allocator_t allocator,
    hrx_loom_module_t** out_module);

/* Checks types, SSA dominance, region terminators and yield arity,
 * attributes, assume facts, launch arguments and constant ranges. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_module_verify(
    const hrx_loom_module_t* module, hrx_loom_diagnostics_t* diagnostics);

/* Appends the canonical text of |module|; parsing it again yields a module
 * that prints identically. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_module_print(
    const hrx_loom_module_t* module, hrx_string_builder_t* out);

HRX_API void hrx_loom_module_destroy(hrx_loom_module_t* module);

/* Types of kernel arguments as seen by callers. */
typedef enum hrx_loom_arg_type_e {
  HRX_LOOM_ARG_INDEX = 0,
  HRX_LOOM_ARG_OFFSET,
  HRX_LOOM_ARG_I1,
  HRX_LOOM_ARG_I8,
  HRX_LOOM_ARG_I16,
  HRX_LOOM_ARG_I32,
  HRX_LOOM_ARG_I64,
  HRX_LOOM_ARG_F16,
  HRX_LOOM_ARG_BF16,
  HRX_LOOM_ARG_F32,
  HRX_LOOM_ARG_F64,
  HRX_LOOM_ARG_BUFFER,
} hrx_loom_arg_type_t;

HRX_API const char* hrx_loom_arg_type_name(hrx_loom_arg_type_t type);

typedef struct hrx_loom_arg_info_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  const char* name;  /* without '%', borrowed from the module */
  hrx_loom_arg_type_t type;
} hrx_loom_arg_info_t;

typedef struct hrx_loom_kernel_info_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  const char* symbol;       /* without '@' */
  const char* export_name;  /* NULL when not exported */
  const char* target_symbol; /* NULL for targetless kernels */
  const char* target_kind;  /* "gfx11-generic", "gfx1151", "cpu"; or NULL */
  uint32_t subgroup_size;   /* from the target; 0 when unspecified */
  size_t workload_arg_count;
  size_t launch_arg_count;
} hrx_loom_kernel_info_t;

HRX_API size_t hrx_loom_module_kernel_count(const hrx_loom_module_t* module);
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_module_kernel_info(
    const hrx_loom_module_t* module, size_t kernel,
    hrx_loom_kernel_info_t* out_info);
/* Launch (device ABI) or workload (launch-config) argument |index|. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_module_kernel_arg(
    const hrx_loom_module_t* module, size_t kernel, bool launch,
    size_t index, hrx_loom_arg_info_t* out_info);
/* Finds a kernel by export name (exact match); NOT_FOUND otherwise. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_module_find_export(
    const hrx_loom_module_t* module, const char* export_name,
    size_t* out_kernel);

#ifdef __cplusplus
}
#endif

#endif /* HRX_LOOM_MODULE_H_ */
