/* Private structures of libhrx-gpu. */
#ifndef HRX_GPU_INTERNAL_H_
#define HRX_GPU_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "hrx/gpu.h"
#include "staging.h"

struct hrx_gpu_device_s {
  atomic_uint_fast32_t ref_count;
  size_t index;              /* its entry among the live devices */
  hrx_allocator_t allocator;
  hrx_fabric_device_t* fabric;
  pthread_mutex_t mutex;     /* guards the queue fields */
  /* Written under the mutex; atomic so that the getter needs no lock. */
  atomic_uint_fast32_t queue_count;
  bool streams_started;
  /* Private bytes per work-item the stream queues' scratch serves (see
   * hrx_gpu_device_set_maximum_private_bytes); fixed, like queue_count,
   * once a stream or a dispatch was made. */
  _Atomic uint64_t maximum_private_bytes;
  atomic_bool private_fixed;
  uint32_t next_queue;
  hrx_fabric_queue_t** queues; /* created lazily */
  hrx_gpu_staging_cache_t staging;
  /* Source of hrx_gpu_kernel_s.serial. */
  atomic_uint_fast64_t next_kernel_serial;
};

struct hrx_gpu_buffer_s {
  atomic_uint_fast32_t ref_count;
  hrx_gpu_device_t* device;    /* retained */
  hrx_fabric_memory_t memory;
  hrx_budget_t* budget;        /* retained; charged memory.size */
  hrx_gpu_buffer_pool_t* pool; /* retained when pooled */
  /* The host may use memory.host_pointer without cache maintenance (its
   * allocation profile is coherent); fixed at creation. */
  bool host_coherent;
};

struct hrx_gpu_kernel_s {
  atomic_uint_fast32_t ref_count;
  hrx_gpu_device_t* device;    /* retained */
  hrx_fabric_executable_t* executable;
  const hrx_fabric_kernel_t* kernel;
  hrx_fabric_kernel_info_t info;
  hrx_fabric_launch_program_t* program;
  /* Unique among the device's kernels, never reused: what a launch memo
   * is keyed by (a freed kernel's address may be reused). */
  uint64_t serial;
};

/* The fault that failed one timeline of a stream (fault_cell.c): shared,
 * reference counted, by the stream and the events recorded on that
 * timeline; the first reader takes the report from the queue. */
typedef struct hrx_gpu_fault_cell_t {
  atomic_uint_fast32_t ref_count;
  hrx_allocator_t allocator;
  pthread_mutex_t mutex; /* guards taken and fault */
  hrx_fabric_queue_t* queue;
  uint64_t signal; /* the timeline's handle */
  bool taken;
  hrx_fabric_fault_t fault;
} hrx_gpu_fault_cell_t;

hrx_status_t hrx_gpu_fault_cell_create(hrx_allocator_t allocator,
                                       hrx_fabric_queue_t* queue,
                                       const hrx_fabric_signal_t* timeline,
                                       hrx_gpu_fault_cell_t** out_cell);
void hrx_gpu_fault_cell_retain(hrx_gpu_fault_cell_t* cell);
void hrx_gpu_fault_cell_release(hrx_gpu_fault_cell_t* cell);
/* The timeline's fault report; call only once the timeline reads
 * faulted. */
void hrx_gpu_fault_cell_read(hrx_gpu_fault_cell_t* cell,
                             hrx_fabric_fault_t* out_fault);

struct hrx_gpu_event_s {
  atomic_uint_fast32_t ref_count;
  hrx_allocator_t allocator;
  hrx_fabric_signal_t* signal;   /* 1 until the event's barrier runs */
  hrx_fabric_signal_t* timeline; /* the recording stream's, for faults */
  hrx_gpu_fault_cell_t* faults;  /* that timeline's (retained) */
};

/* Frees a buffer's memory (budget uncharged); used by release and pools. */
void hrx_gpu_buffer_destroy(hrx_gpu_buffer_t* buffer);
/* Creates a buffer of |visibility|; |budget| may be NULL. */
hrx_status_t hrx_gpu_buffer_create(hrx_gpu_device_t* device, uint64_t bytes,
                                   hrx_fabric_visibility_t visibility,
                                   uint32_t flags, hrx_budget_t* budget,
                                   hrx_gpu_buffer_t** out_buffer);
/* Host access to [offset, offset + length) of |buffer|'s mapping: after
 * the host wrote it (WRITES_DONE) or before it reads it (READS_BEGIN).
 * Nothing to do, and cheap, for coherent buffers. */
hrx_status_t hrx_gpu_buffer_host_access(hrx_gpu_buffer_t* buffer,
                                        uint64_t offset, uint64_t length,
                                        hrx_fabric_cache_op_t op);
/* Returns a pooled buffer whose last reference was dropped. */
void hrx_gpu_buffer_pool_return(hrx_gpu_buffer_pool_t* pool,
                                hrx_gpu_buffer_t* buffer);

/* Grows a pointer array to |needed| slots; false when memory is short. */
bool hrx_gpu_reserve_slots(hrx_allocator_t allocator, void** array,
                           size_t* capacity, size_t needed);

hrx_status_t hrx_gpu_view_check(const hrx_gpu_device_t* device,
                                hrx_gpu_view_t view, const char* what);

/* The queue a new stream binds to (round robin; creates it if needed). */
hrx_status_t hrx_gpu_device_next_queue(hrx_gpu_device_t* device,
                                       hrx_fabric_queue_t** out_queue);

/* A prepared command: one AQL packet body and what it keeps alive. */
/* Kernarg segments of one stream's dispatches, recycled so that a
 * dispatch allocates nothing once the stream has warmed up. Owned and used
 * by the stream's thread only (streams are single-threaded). */
#define HRX_GPU_KERNARG_BLOCK 256u
#define HRX_GPU_KERNARG_CACHE 64u
typedef struct hrx_gpu_kernarg_cache_t {
  uint32_t count;
  uint8_t* blocks[HRX_GPU_KERNARG_CACHE]; /* HRX_GPU_KERNARG_BLOCK bytes */
} hrx_gpu_kernarg_cache_t;

void hrx_gpu_kernarg_cache_free(hrx_allocator_t allocator,
                                hrx_gpu_kernarg_cache_t* cache);

/* The last launch a stream evaluated: a stream that dispatches one kernel
 * with one workload again and again evaluates its launch program once.
 * The program is a pure function of the workload, so the memo is exact.
 * Owned by the stream's thread, like the kernarg cache. */
#define HRX_GPU_LAUNCH_MEMO_WORKLOAD 8u
typedef struct hrx_gpu_launch_memo_t {
  uint64_t serial; /* of the kernel; 0: empty */
  size_t workload_count;
  uint64_t workload[HRX_GPU_LAUNCH_MEMO_WORKLOAD];
  hrx_fabric_launch_config_t config;
} hrx_gpu_launch_memo_t;

/* Commands retain up to this many buffers without allocating. */
#define HRX_GPU_COMMAND_INLINE_BUFFERS 4u

typedef struct hrx_gpu_command_t {
  hrx_aql_packet_t packet; /* body; the first 32 bits are set at publish */
  uint16_t type;           /* hrx_aql_packet_type_t */
  uint16_t setup;
  uint8_t* kernarg;        /* owned: heap, or a block of |kernarg_cache| */
  hrx_gpu_kernarg_cache_t* kernarg_cache;
  hrx_gpu_kernel_t* kernel; /* retained */
  hrx_gpu_event_t* event;   /* retained (event waits) */
  uint32_t buffer_count;   /* retained buffers: */
  hrx_gpu_buffer_t* inline_buffers[HRX_GPU_COMMAND_INLINE_BUFFERS];
  hrx_gpu_buffer_t** heap_buffers; /* when there are more */
} hrx_gpu_command_t;

/* The buffers |command| retains (buffer_count of them). Commands are
 * copied by value, so the inline ones are found afresh each time. */
static inline hrx_gpu_buffer_t* const* hrx_gpu_command_buffers(
    const hrx_gpu_command_t* command) {
  return command->heap_buffers ? command->heap_buffers
                               : command->inline_buffers;
}

/* |kernargs| (may be NULL: heap) supplies the kernarg segment; |memo|
 * (may be NULL) remembers the last launch evaluated. */
hrx_status_t hrx_gpu_command_dispatch(hrx_gpu_device_t* device,
                                      const hrx_gpu_kernel_t* kernel,
                                      const hrx_gpu_launch_t* launch,
                                      hrx_gpu_kernarg_cache_t* kernargs,
                                      hrx_gpu_launch_memo_t* memo,
                                      hrx_gpu_command_t* out_command);
/* A GPU's blit kernels copy in parallel, front to back: overlapping
 * ranges of one buffer are INVALID_ARGUMENT on every device but the host.
 * The public copy paths check it; uploads and reads (whose staging side
 * is no buffer) need not. */
hrx_status_t hrx_gpu_copy_check_overlap(const hrx_gpu_device_t* device,
                                        hrx_gpu_view_t source,
                                        hrx_gpu_view_t destination);
hrx_status_t hrx_gpu_command_copy(hrx_gpu_device_t* device,
                                  hrx_gpu_view_t source,
                                  hrx_gpu_view_t destination,
                                  hrx_gpu_command_t* out_command);
hrx_status_t hrx_gpu_command_fill(hrx_gpu_device_t* device,
                                  hrx_gpu_view_t view, uint32_t pattern,
                                  hrx_gpu_command_t* out_command);
struct hrx_gpu_prepared_s {
  hrx_gpu_device_t* device; /* retained */
  hrx_gpu_command_t command;
};

/* Releases what the command holds. */
void hrx_gpu_command_release(hrx_allocator_t allocator,
                             hrx_gpu_command_t* command);

/* Queues |command| on |stream|. When |take| the stream takes ownership of
 * the command's resources (freed when it completes); otherwise the caller
 * keeps them alive (graphs) until the stream has passed this point. */
hrx_status_t hrx_gpu_stream_submit(hrx_gpu_stream_t* stream,
                                   hrx_gpu_command_t* command, bool take);
/* The stream's timeline signal (borrowed). */
hrx_fabric_signal_t* hrx_gpu_stream_timeline(hrx_gpu_stream_t* stream);
/* The timeline point of the stream's most recent submission. */
uint64_t hrx_gpu_stream_point(const hrx_gpu_stream_t* stream);
/* Whether no queued work of |stream| is pending. */
bool hrx_gpu_stream_idle(const hrx_gpu_stream_t* stream);
hrx_gpu_device_t* hrx_gpu_stream_device(const hrx_gpu_stream_t* stream);
/* The budget the stream charges now (borrowed; NULL: none). */
hrx_budget_t* hrx_gpu_stream_budget(const hrx_gpu_stream_t* stream);

/* A stream's sanitizer reporting (sanitizer.c): REPORT while |channel|
 * is set, which is also attached to the stream's timeline signal. */
typedef struct hrx_gpu_stream_sanitizer_t {
  hrx_fabric_report_channel_t* channel;
  hrx_budget_t* budget; /* retained; charged |bytes| for the channel */
  uint64_t bytes;
} hrx_gpu_stream_sanitizer_t;

/* The stream's reporting state, kept in the stream. */
hrx_gpu_stream_sanitizer_t* hrx_gpu_stream_sanitizer(hrx_gpu_stream_t* stream);
/* Back to TRAP: the channel released and its charge returned. */
void hrx_gpu_stream_sanitizer_reset(hrx_gpu_stream_t* stream);

/* Waits until |point| of |stream| completed. */
hrx_status_t hrx_gpu_stream_wait_point(hrx_gpu_stream_t* stream,
                                       uint64_t point, uint64_t timeout_ns);

#endif /* HRX_GPU_INTERNAL_H_ */
