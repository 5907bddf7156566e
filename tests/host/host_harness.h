/* Compile a corpus kernel for the host device and dispatch it through a
 * real queue, as a runtime layer would. */
#ifndef HRX_TESTS_HOST_HARNESS_H_
#define HRX_TESTS_HOST_HARNESS_H_

#include "hrx/fabric.h"
#include "hrx/loom.h"
#include "test_support.h"

typedef struct harness_t {
  hrx_fabric_device_t* device;
  hrx_fabric_queue_t* queue;
  hrx_fabric_executable_t* executable;
  uint32_t sanitizers; /* HRX_LOOM_SANITIZE_* for the next load */
} harness_t;

/* Launch-argument value: a buffer or the raw bits of a scalar. */
typedef struct harness_arg_t {
  const hrx_fabric_memory_t* buffer; /* NULL for scalars */
  uint64_t bits;
} harness_arg_t;

#define ARG_BUF(memory) ((harness_arg_t){.buffer = &(memory)})
#define ARG_U64(value) ((harness_arg_t){.bits = (uint64_t)(value)})
harness_arg_t arg_f32(float value);

void harness_open(harness_t* h);
void harness_close(harness_t* h);

/* Compiles libhrx-loom/kernels/<file> with NULL-terminated NAME=VALUE
 * configs and loads it. */
void harness_load(harness_t* h, const char* file, const char* const* config);

/* Compiles Loom |text| named |path| and loads it. */
void harness_load_source(harness_t* h, const char* path, const char* text,
                         size_t length, const char* const* config);

/* Compiles Loom |text| named |path| for the host profile (with
 * h->sanitizers), without loading it; returns the code object (free it),
 * which harness_load_code loads on any harness's device. */
uint8_t* harness_compile_code(const harness_t* h, const char* path,
                              const char* text, size_t length,
                              const char* const* config, size_t* out_length);

/* Loads a code object from harness_compile_code, replacing the loaded
 * executable. */
void harness_load_code(harness_t* h, const uint8_t* code, size_t length);

/* Compiles Loom |text| named |path| (with h->sanitizers), which must fail;
 * returns the diagnostics formatted (free them). */
char* harness_compile_error(harness_t* h, const char* path, const char* text);

/* Allocates a zeroed buffer. */
hrx_fabric_memory_t harness_buffer(harness_t* h, size_t bytes);

/* Evaluates the kernel's launch program on |workload|, dispatches it with
 * |args| and waits. Returns OK, or the fault formatted into a status. */
hrx_status_t harness_run(harness_t* h, const char* kernel,
                         const uint64_t* workload, size_t workload_count,
                         const harness_arg_t* args, size_t arg_count);

#endif /* HRX_TESTS_HOST_HARNESS_H_ */
