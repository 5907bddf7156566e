/* Devices, providers and memory.
 *
 * A provider implements one device family (the host device; amdgpu
 * through KFD); its interface is private to libhrx-fabric, which has no
 * provider registration. Public calls validate and dispatch to the
 * provider. Devices are reference counted and their calls are thread-safe.
 */
#ifndef HRX_FABRIC_DEVICE_H_
#define HRX_FABRIC_DEVICE_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_fabric_device_s hrx_fabric_device_t;
typedef struct hrx_fabric_queue_s hrx_fabric_queue_t;
typedef struct hrx_fabric_executable_s hrx_fabric_executable_t;
typedef struct hrx_fabric_signal_s hrx_fabric_signal_t;

typedef enum hrx_fabric_device_kind_e {
  HRX_FABRIC_DEVICE_HOST = 0, /* the CPU as a virtual GPU */
  HRX_FABRIC_DEVICE_GPU = 1,
} hrx_fabric_device_kind_t;

typedef struct hrx_fabric_device_properties_t {
  /* Set by the library (borrowed report): see hrx/core/struct.h. */
  uint32_t struct_size;
  hrx_fabric_device_kind_t kind;
  const char* name;            /* "HRX host device" */
  const char* profile_target;  /* "host", "gfx1151" */
  uint32_t subgroup_size;
  uint32_t max_workgroup_size;
  uint64_t max_workgroup_storage;
  uint32_t compute_units;      /* host: worker threads */
  uint64_t memory_bytes;       /* host: physical memory */
  uint32_t queue_count_limit;
} hrx_fabric_device_properties_t;

/* Who may touch an allocation (the kfd provider maps these to heaps; on the
 * host every profile is host memory, tracked the same way). */
typedef enum hrx_fabric_visibility_e {
  HRX_FABRIC_VISIBILITY_DEVICE = 0,      /* device-local */
  HRX_FABRIC_VISIBILITY_HOST_VISIBLE = 1,/* host may map and read/write */
  HRX_FABRIC_VISIBILITY_HOST_COHERENT = 2,
} hrx_fabric_visibility_t;

typedef struct hrx_fabric_memory_t {
  void* host_pointer;      /* NULL when not host-visible */
  uint64_t device_address; /* what kernels and packets use */
  uint64_t size;
  hrx_fabric_visibility_t visibility;
} hrx_fabric_memory_t;

/* The most worker threads a host device runs. */
#define HRX_HOST_MAX_WORKERS 1024u

typedef struct hrx_fabric_host_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  /* Worker threads, 1..HRX_HOST_MAX_WORKERS; 0 reads the environment
   * variable HRX_HOST_THREADS (a decimal number in the same range), else
   * uses the online CPUs (at most HRX_HOST_MAX_WORKERS). */
  uint32_t worker_count;
} hrx_fabric_host_options_t;

/* Creates the host device. |options| may be NULL. An HRX_HOST_THREADS
 * that is set but not a number in 1..HRX_HOST_MAX_WORKERS ("0", "-1",
 * "abc", "99999") fails with INVALID_ARGUMENT or OUT_OF_RANGE naming the
 * variable; it is never silently ignored. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_host_device_create(
    const hrx_fabric_host_options_t* options, hrx_allocator_t allocator,
    hrx_fabric_device_t** out_device);

HRX_API void hrx_fabric_device_retain(hrx_fabric_device_t* device);
HRX_API void hrx_fabric_device_release(hrx_fabric_device_t* device);

HRX_API const hrx_fabric_device_properties_t* hrx_fabric_device_properties(
    const hrx_fabric_device_t* device);

typedef enum hrx_fabric_memory_flags_e {
  HRX_FABRIC_MEMORY_ZEROED = 0,
  /* Contents are unspecified: for callers that overwrite them at once. */
  HRX_FABRIC_MEMORY_UNINITIALIZED = 1u << 0,
} hrx_fabric_memory_flags_t;

/* Allocates |size| (> 0) bytes, 64-byte aligned and zeroed. On the host
 * device an allocation of 2 MiB or more is its own mapping, aligned to
 * 2 MiB and advised for transparent huge pages (streaming kernels spend
 * far less time in page walks); smaller ones come from the C heap. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_memory_allocate(
    hrx_fabric_device_t* device, uint64_t size,
    hrx_fabric_visibility_t visibility, hrx_fabric_memory_t* out_memory);

/* As hrx_fabric_memory_allocate, with hrx_fabric_memory_flags_t. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_memory_allocate_flags(
    hrx_fabric_device_t* device, uint64_t size,
    hrx_fabric_visibility_t visibility, uint32_t flags,
    hrx_fabric_memory_t* out_memory);
/* Frees an allocation. The caller guarantees no queued work uses it. */
HRX_API void hrx_fabric_memory_free(hrx_fabric_device_t* device,
                                    hrx_fabric_memory_t* memory);

/* Exports |memory| as a new dma-buf fd (close-on-exec, read-write) that
 * another device's driver can import (the NPU's, say). The caller owns
 * the fd; the export keeps the pages alive until every importer lets go,
 * but |memory| stays charged to whoever allocated it. UNAVAILABLE where
 * the device cannot export: the host device's memory is plain heap
 * memory, which no kernel driver can import. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_memory_export_dmabuf(
    hrx_fabric_device_t* device, const hrx_fabric_memory_t* memory,
    int* out_fd);

/* Loads a code object for this device; validates it completely. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_executable_load(
    hrx_fabric_device_t* device, const void* bytes, size_t length,
    hrx_fabric_executable_t** out_executable);

/* Creates a queue of |packet_count| packets (a power of two, 2..65536),
 * with no scratch (maximum_private_bytes 0). */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_queue_create(
    hrx_fabric_device_t* device, uint32_t packet_count,
    hrx_fabric_queue_t** out_queue);

/* hrx_fabric_queue_private_bytes of a queue whose dispatches may use any
 * amount of private memory (the host device's: its workers carry their
 * own). */
#define HRX_FABRIC_PRIVATE_UNLIMITED UINT64_MAX

/* The most private (scratch) memory per work-item a queue's scratch may
 * serve. */
#define HRX_FABRIC_MAX_PRIVATE_BYTES 32752u

typedef struct hrx_fabric_queue_options_t {
  uint32_t struct_size; /* sizeof(hrx_fabric_queue_options_t) */
  uint32_t packet_count; /* as hrx_fabric_queue_create */
  /* Private memory per work-item the queue's dispatches may use, at most
   * HRX_FABRIC_MAX_PRIVATE_BYTES. On the kfd provider the queue's scratch
   * is allocated at creation for every wave slot of the GPU
   * (ceil(CUs / shader engines) x shader engines x max_slots_scratch_cu
   * waves of roundup(bytes x 64, 1024) bytes, as ROCr sizes it) and
   * described in its amd_queue_t (compute_tmpring_size, scratch backing
   * location and size, wave64 lane size); it lives as long as the queue.
   * The host device's queues need none and serve any amount. */
  uint64_t maximum_private_bytes;
} hrx_fabric_queue_options_t;

/* hrx_fabric_queue_create with |options|: INVALID_ARGUMENT for a
 * struct_size of 0 or one this library does not know, OUT_OF_RANGE for
 * maximum_private_bytes above HRX_FABRIC_MAX_PRIVATE_BYTES. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_queue_create_with_options(
    hrx_fabric_device_t* device, const hrx_fabric_queue_options_t* options,
    hrx_fabric_queue_t** out_queue);

/* Creates a signal that packets on |device|'s queues may name as
 * completion or dependency signals. A GPU can only complete signals in
 * its own memory, so this is the signal to use with a device's queues;
 * on the host device it is an ordinary hrx_fabric_signal_create signal.
 * Released with hrx_fabric_signal_release. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_device_signal_create(
    hrx_fabric_device_t* device, int64_t initial_value,
    hrx_fabric_signal_t** out_signal);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_DEVICE_H_ */
