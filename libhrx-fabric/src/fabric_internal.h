/* Private structures of libhrx-fabric. */
#ifndef HRX_FABRIC_INTERNAL_H_
#define HRX_FABRIC_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "hrx/fabric.h"

struct hrx_fabric_device_s {
  const hrx_fabric_device_vtable_t* vtable; /* first: provider dispatch */
  atomic_uint_fast32_t ref_count;
  hrx_allocator_t allocator;
  hrx_fabric_device_properties_t properties;
};

struct hrx_fabric_signal_s {
  _Atomic int64_t value;
  /* Bumped on every change; waiters sleep on it, since futexes are 32-bit. */
  _Atomic uint32_t epoch;
  _Atomic uint32_t waiters;
  atomic_uint_fast32_t ref_count;
  /* Set by hrx_fabric_signal_cancel; the executor polls it at back-edges. */
  _Atomic bool cancelled;
  hrx_allocator_t allocator;
};

struct hrx_fabric_kernel_s {
  const hrx_fabric_executable_t* executable;
  char* name;
  uint32_t subgroup_size;
  uint32_t sreg_count;
  uint32_t vreg_count;
  uint32_t group_segment_size;
  uint32_t private_segment_size;
  uint32_t flags; /* HRX_HOST_KERNEL_* */
  uint32_t kernarg_size;
  uint32_t arg_count;
  hrx_fabric_kernel_arg_t* args;
  uint32_t buffer_count;  /* buffer arguments, in argument order = slots */
  uint32_t const_count;
  uint64_t* constants;
  uint32_t insn_count;
  hrx_host_insn_t* insns;
  const uint8_t* launch_program;
  size_t launch_program_length;
};

struct hrx_fabric_executable_s {
  atomic_uint_fast32_t ref_count;
  hrx_allocator_t allocator;
  hrx_fabric_device_t* device; /* retained */
  uint32_t kernel_count;
  hrx_fabric_kernel_t* kernels;
  uint8_t* storage;            /* owned copy of the code object */
  size_t storage_length;
};

/* Parses and validates a host code object into |executable|. */
hrx_status_t hrx_host_code_object_parse(hrx_fabric_executable_t* executable,
                                        const uint8_t* bytes, size_t length);
void hrx_host_code_object_free(hrx_fabric_executable_t* executable);

/*===------------------------------------------------------------------===*/
/* Worker pool                                                             */
/*===------------------------------------------------------------------===*/

/* Per-thread scratch the executor grows as needed (registers, local
 * memory); owned by whichever thread runs work with it. */
typedef struct hrx_host_scratch_t {
  uint8_t* data;
  size_t capacity;
} hrx_host_scratch_t;

typedef struct hrx_host_job_s hrx_host_job_t;
typedef void (*hrx_host_job_fn)(void* context, uint64_t item,
                                hrx_host_scratch_t* scratch);

struct hrx_host_job_s {
  hrx_host_job_fn fn;
  void* context;
  uint64_t total;
  _Atomic uint64_t next;
  _Atomic uint64_t done;
  uint32_t attached; /* workers draining it; guarded by the pool mutex */
  hrx_host_job_t* link;
};

typedef struct hrx_host_pool_s hrx_host_pool_t;

hrx_status_t hrx_host_pool_create(uint32_t worker_count,
                                  hrx_allocator_t allocator,
                                  hrx_host_pool_t** out_pool);
void hrx_host_pool_destroy(hrx_host_pool_t* pool);
uint32_t hrx_host_pool_worker_count(const hrx_host_pool_t* pool);

/* Runs items [0, job->total) on the pool and the calling thread (with
 * |scratch|) and returns when all have finished. Thread-safe: several
 * callers may run jobs at once. */
void hrx_host_pool_run(hrx_host_pool_t* pool, hrx_host_job_t* job,
                       hrx_host_scratch_t* scratch);

void hrx_host_scratch_free(hrx_host_scratch_t* scratch);

/*===------------------------------------------------------------------===*/
/* Host device                                                             */
/*===------------------------------------------------------------------===*/

typedef struct hrx_host_allocation_t {
  uintptr_t base;
  uint64_t size;
} hrx_host_allocation_t;

typedef struct hrx_host_device_t {
  hrx_fabric_device_t base;
  hrx_host_pool_t* pool;
  pthread_mutex_t mutex; /* guards allocations and executables */
  hrx_host_allocation_t* allocations; /* sorted by base */
  size_t allocation_count;
  size_t allocation_capacity;
  hrx_fabric_executable_t** executables; /* loaded, for kernel checks */
  size_t executable_count;
  size_t executable_capacity;
} hrx_host_device_t;

hrx_host_device_t* hrx_host_device_cast(hrx_fabric_device_t* device);

/* Finds the allocation holding |address|; false when none does. */
bool hrx_host_device_resolve(hrx_host_device_t* device, uint64_t address,
                             hrx_host_allocation_t* out_allocation);

/* Retains and returns the executable whose kernel |kernel_object| names,
 * or NULL when no loaded executable has such a kernel. */
hrx_fabric_executable_t* hrx_host_device_find_kernel(
    hrx_host_device_t* device, uint64_t kernel_object,
    const hrx_fabric_kernel_t** out_kernel);

void hrx_host_device_forget_executable(hrx_host_device_t* device,
                                       hrx_fabric_executable_t* executable);

/*===------------------------------------------------------------------===*/
/* Executor                                                                */
/*===------------------------------------------------------------------===*/

typedef struct hrx_host_slot_t {
  uint8_t* base;
  uint64_t size;
} hrx_host_slot_t;

typedef struct hrx_host_dispatch_t {
  const hrx_fabric_kernel_t* kernel;
  const uint8_t* kernarg;
  uint32_t workgroup_size[3];
  uint32_t workgroup_count[3];
  uint32_t grid[3];
  uint32_t group_segment_size;
  uint32_t slot_count;
  hrx_host_slot_t slots[HRX_HOST_MAX_BINDINGS];
  /* The completion signal's cancel flag (NULL: none): set by any thread,
   * polled by the workers running this dispatch. */
  const _Atomic bool* cancel;
  _Atomic int faulted;
  hrx_fabric_fault_t fault;
} hrx_host_dispatch_t;

/* Resolves bindings and geometry of a dispatch packet. On failure fills
 * |dispatch->fault| and returns false. */
bool hrx_host_dispatch_prepare(hrx_host_device_t* device,
                               const hrx_aql_dispatch_packet_t* packet,
                               const hrx_fabric_kernel_t* kernel,
                               hrx_host_dispatch_t* dispatch);

/* Runs one workgroup (linear index); a job function for the pool. */
void hrx_host_run_workgroup(void* dispatch, uint64_t workgroup,
                            hrx_host_scratch_t* scratch);

#endif /* HRX_FABRIC_INTERNAL_H_ */
