/* Loaded code objects and their kernels. Executables are immutable once
 * loaded, reference counted, and safe to use from any thread. */
#ifndef HRX_FABRIC_EXECUTABLE_H_
#define HRX_FABRIC_EXECUTABLE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/fabric/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_fabric_kernel_s hrx_fabric_kernel_t;

typedef enum hrx_fabric_arg_kind_e {
  HRX_FABRIC_ARG_SCALAR = 0,
  HRX_FABRIC_ARG_BUFFER = 1,
} hrx_fabric_arg_kind_t;

typedef struct hrx_fabric_kernel_arg_t {
  hrx_fabric_arg_kind_t kind;
  uint8_t type;    /* hrx_host_type_t of a scalar (i64 for index/offset) */
  uint32_t offset; /* in the kernarg segment */
  uint32_t size;   /* bytes */
} hrx_fabric_kernel_arg_t;

typedef struct hrx_fabric_kernel_info_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  const char* name;
  uint32_t kernarg_size;
  uint32_t group_segment_size;
  uint32_t private_segment_size;
  uint32_t subgroup_size;
  uint32_t arg_count;
  const hrx_fabric_kernel_arg_t* args;
  const uint8_t* launch_program; /* serialised launch program, may be empty */
  size_t launch_program_length;
  bool race_checked; /* workgroup-local accesses are checked for races */
  /* Host device: the kernel runs as native code (hrx/fabric/host_native.h)
   * rather than on the interpreter; when not, |native_note| says why (set
   * HRX_HOST_NATIVE=0 before loading to force the interpreter). */
  bool native;
  const char* native_note;
} hrx_fabric_kernel_info_t;

HRX_API void hrx_fabric_executable_retain(hrx_fabric_executable_t* exe);
HRX_API void hrx_fabric_executable_release(hrx_fabric_executable_t* exe);

HRX_API size_t hrx_fabric_executable_kernel_count(
    const hrx_fabric_executable_t* exe);
/* Borrowed; valid while the executable lives. NOT_FOUND by name. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_executable_find_kernel(
    const hrx_fabric_executable_t* exe, const char* name,
    const hrx_fabric_kernel_t** out_kernel);
HRX_API const hrx_fabric_kernel_t* hrx_fabric_executable_kernel_at(
    const hrx_fabric_executable_t* exe, size_t index);

HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_kernel_info(
    const hrx_fabric_kernel_t* kernel, hrx_fabric_kernel_info_t* out_info);
/* The value for hrx_aql_dispatch_packet_t.kernel_object. */
HRX_API uint64_t hrx_fabric_kernel_object(const hrx_fabric_kernel_t* kernel);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_EXECUTABLE_H_ */
