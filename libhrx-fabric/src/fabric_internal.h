/* Private structures of libhrx-fabric. */
#ifndef HRX_FABRIC_INTERNAL_H_
#define HRX_FABRIC_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "hrx/fabric.h"

/* Provider interface: one table per device family. */
typedef struct hrx_fabric_device_vtable_t {
  void (*destroy)(hrx_fabric_device_t* device);
  hrx_status_t (*memory_allocate)(hrx_fabric_device_t* device, uint64_t size,
                                  hrx_fabric_visibility_t visibility,
                                  uint32_t flags,
                                  hrx_fabric_memory_t* out_memory);
  void (*memory_free)(hrx_fabric_device_t* device,
                      hrx_fabric_memory_t* memory);
  /* Optional: |memory| as a new dma-buf fd (NULL: the device cannot). */
  hrx_status_t (*memory_export_dmabuf)(hrx_fabric_device_t* device,
                                       const hrx_fabric_memory_t* memory,
                                       int* out_fd);
  hrx_status_t (*executable_load)(hrx_fabric_device_t* device,
                                  const void* bytes, size_t length,
                                  hrx_fabric_executable_t** out_executable);
  hrx_status_t (*queue_create)(hrx_fabric_device_t* device,
                               uint32_t packet_count,
                               uint64_t maximum_private_bytes,
                               hrx_fabric_queue_t** out_queue);
  /* Optional: signals this device's packet processor can complete (NULL:
   * any hrx_fabric_signal_create signal will do). */
  hrx_status_t (*signal_create)(hrx_fabric_device_t* device,
                                int64_t initial_value,
                                hrx_fabric_signal_t** out_signal);
} hrx_fabric_device_vtable_t;

struct hrx_fabric_device_s {
  const hrx_fabric_device_vtable_t* vtable; /* first: provider dispatch */
  atomic_uint_fast32_t ref_count;
  hrx_allocator_t allocator;
  hrx_fabric_device_properties_t properties;
};

/* How a provider whose device writes signals behind the host's back (the
 * kfd provider: the GPU decrements the value and mails a KFD event) lets
 * host waiters sleep on that, and takes the signal's memory back. */
typedef struct hrx_fabric_signal_waker_t {
  /* The host changed the value: wake waiters sleeping in |sleep|. */
  void (*notify)(void* context);
  /* A counter that moves whenever any signal it serves may have changed;
   * read before the value is checked. */
  uint32_t (*observe)(void* context);
  /* Sleeps while the counter still reads |observed|, for at most
   * |timeout_ns|; spurious returns are fine. */
  void (*sleep)(void* context, uint32_t observed, uint64_t timeout_ns);
  /* The last reference is gone: take |signal|'s memory back. */
  void (*release)(void* context, hrx_fabric_signal_t* signal);
  /* hrx_fabric_signal_cancel was called: stop the device work that would
   * complete |signal|. */
  void (*cancel)(void* context, hrx_fabric_signal_t* signal);
} hrx_fabric_signal_waker_t;

/* The first 64 bytes are an amd_signal_t (hardware.md §3), so a packet
 * processor can decrement |value| and mail |event_id| to |event_mailbox|:
 * a signal's handle is its address, and for a GPU its memory must be
 * GPU-mapped (the kfd provider carves signals out of device memory). */
struct hrx_fabric_signal_s {
  int64_t kind;          /* AMD_SIGNAL_KIND_USER */
  _Atomic int64_t value; /* byte 8 */
  uint64_t event_mailbox;
  uint32_t event_id;
  uint32_t reserved1;
  uint64_t start_ts, end_ts, queue_ptr, reserved3;
  /* Host side. Bumped on every host change; waiters sleep on it, since
   * futexes are 32-bit. */
  _Atomic uint32_t epoch;
  _Atomic uint32_t waiters;
  atomic_uint_fast32_t ref_count;
  /* Set by hrx_fabric_signal_cancel; the executor polls it at back-edges. */
  _Atomic bool cancelled;
  /* Report mode for the dispatches completing it (retained; NULL: trap):
   * hrx_fabric_signal_set_report_channel. */
  _Atomic(hrx_fabric_report_channel_t*) reports;
  hrx_allocator_t allocator;
  const hrx_fabric_signal_waker_t* waker; /* NULL: host memory only */
  void* waker_context;
};

#define HRX_AMD_SIGNAL_KIND_USER 1
#define HRX_FABRIC_SIGNAL_BYTES 192u
_Static_assert(sizeof(struct hrx_fabric_signal_s) <= HRX_FABRIC_SIGNAL_BYTES,
               "signal slot size");
_Static_assert(offsetof(struct hrx_fabric_signal_s, value) == 8,
               "amd_signal_t value");
_Static_assert(offsetof(struct hrx_fabric_signal_s, event_mailbox) == 16,
               "amd_signal_t event_mailbox_ptr");
_Static_assert(offsetof(struct hrx_fabric_signal_s, event_id) == 24,
               "amd_signal_t event_id");
_Static_assert(offsetof(struct hrx_fabric_signal_s, epoch) == 64,
               "amd_signal_t is 64 bytes");

/* A 32-bit futex word that counts changes, with a count of sleepers so
 * that a change wakes only when someone sleeps: sleep while |*word| still
 * reads |observed| (at most |timeout_ns|, or HRX_TIMEOUT_INFINITE), and
 * count a change, waking every sleeper. */
void hrx_fabric_futex_wait(_Atomic uint32_t* word, _Atomic uint32_t* sleepers,
                           uint32_t observed, uint64_t timeout_ns);
void hrx_fabric_futex_bump(_Atomic uint32_t* word, _Atomic uint32_t* sleepers);

/* Initialises a signal in |memory| (HRX_FABRIC_SIGNAL_BYTES, 64-byte
 * aligned) whose device side |waker| serves; its last release calls
 * waker->release. */
void hrx_fabric_signal_init_device(hrx_fabric_signal_t* signal,
                                   int64_t initial_value,
                                   const hrx_fabric_signal_waker_t* waker,
                                   void* waker_context, uint64_t mailbox,
                                   uint32_t event_id);

struct hrx_amdgpu_kernel_t;
struct hrx_host_native_args_t;

struct hrx_fabric_kernel_s {
  const hrx_fabric_executable_t* executable;
  /* The AQL kernel_object: the kernel descriptor's GPU address for the kfd
   * provider; 0 on the host, where the kernel's own address serves. */
  uint64_t object;
  /* kfd: the code object's view of the kernel (hidden arguments). */
  const struct hrx_amdgpu_kernel_t* amdgpu;
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
  /* Native code (hrx/fabric/host_native.h) that runs a workgroup, or NULL:
   * the interpreter runs the kernel, and |native_note| says why. */
  int32_t (*native)(struct hrx_host_native_args_t* args);
  char* native_note;
};

struct hrx_fabric_executable_s {
  atomic_uint_fast32_t ref_count;
  hrx_allocator_t allocator;
  hrx_fabric_device_t* device; /* retained */
  uint32_t kernel_count;
  hrx_fabric_kernel_t* kernels;
  uint8_t* storage;            /* owned copy of the code object */
  size_t storage_length;
  /* The native section's code, mapped (host_native_elf.c), or NULL. */
  struct hrx_host_native_image_s* native_image;
  /* Providers other than the host free their executables through this
   * (NULL: the host device's). */
  void (*destroy)(hrx_fabric_executable_t* executable);
};

/* Which fields of a host instruction an op uses (HRX_HOST_USE_*): the
 * code-object validator checks them, the fast executor's liveness scan
 * reads them. */
enum {
  HRX_HOST_USE_DST = 1u << 0,
  HRX_HOST_USE_A = 1u << 1,
  HRX_HOST_USE_B = 1u << 2,
  HRX_HOST_USE_C = 1u << 3,
  HRX_HOST_USE_VECTOR_DST = 1u << 4, /* dst must be a V register */
  HRX_HOST_USE_SCALAR_A = 1u << 5,   /* a must be an S register */
  HRX_HOST_USE_JUMP = 1u << 6,       /* imm is an instruction index */
};
uint32_t hrx_host_op_usage(uint8_t op);

/* Parses and validates a host code object into |executable|. */
hrx_status_t hrx_host_code_object_parse(hrx_fabric_executable_t* executable,
                                        const uint8_t* bytes, size_t length);
void hrx_host_code_object_free(hrx_fabric_executable_t* executable);

/*===------------------------------------------------------------------===*/
/* Queues                                                                  */
/*===------------------------------------------------------------------===*/

#define HRX_QUEUE_FAULTS 16

/* What differs between providers' queues. */
typedef struct hrx_fabric_queue_vtable_t {
  void (*destroy)(hrx_fabric_queue_t* queue);
  /* Optional: publishes slot |index| itself (turning the filled body into
   * what this device's packet processor runs, then storing the header),
   * or completes it as failed without storing it. NULL: the header is
   * stored as it is. */
  void (*publish_slot)(hrx_fabric_queue_t* queue, uint64_t index,
                       uint16_t header, uint16_t setup);
  /* Tells the packet processor that slots up to the write index may hold
   * published packets. */
  void (*ring)(hrx_fabric_queue_t* queue);
  /* Optional: hrx_fabric_queue_restart. NULL: the queue never stops. */
  hrx_status_t (*restart)(hrx_fabric_queue_t* queue);
  /* Ring on quiet publications too: a hardware doorbell is one store, and
   * a command processor never looks past it, while waiting for a batch's
   * ring could keep a packet that a producer waits on from ever running. */
  bool ring_always;
} hrx_fabric_queue_vtable_t;

/* The part of a queue every provider shares; providers embed it first. */
struct hrx_fabric_queue_s {
  const hrx_fabric_queue_vtable_t* vtable;
  hrx_fabric_device_t* device; /* retained */
  hrx_aql_packet_t* ring;
  uint32_t size;
  uint64_t private_bytes; /* hrx_fabric_queue_private_bytes, set by the provider */
  /* The producers' fields, on cache lines of their own: the processor
   * reads the fields above for every packet, and a reservation's write
   * beside them would take the line from it each time. */
  uint8_t producer_pad_before[64];
  _Atomic uint64_t write_index;
  /* A read index producers saw (indices only grow, so it is a lower
   * bound): reserve looks at the processor's own only when this one leaves
   * too little room, instead of taking its cache line on every packet. */
  _Atomic uint64_t read_seen;
  uint8_t producer_pad_after[64];
  /* Advanced by the packet processor as packets retire (the provider's
   * own field, or the hardware's read_dispatch_id). A provider may point
   * it elsewhere once (atomically): read it with __atomic_load_n. */
  _Atomic uint64_t* read_index;
  pthread_mutex_t fault_mutex;
  hrx_fabric_fault_t faults[HRX_QUEUE_FAULTS];
  uint32_t fault_head;
  uint32_t fault_count;
};

/* Fills the shared part; every slot of |ring| starts INVALID. */
void hrx_fabric_queue_init(hrx_fabric_queue_t* queue,
                           const hrx_fabric_queue_vtable_t* vtable,
                           hrx_fabric_device_t* device, hrx_aql_packet_t* ring,
                           uint32_t size, _Atomic uint64_t* read_index);
void hrx_fabric_queue_deinit(hrx_fabric_queue_t* queue);
/* Stores header and setup of slot |index| with one release store. */
void hrx_fabric_queue_store_header(hrx_fabric_queue_t* queue, uint64_t index,
                                   uint16_t header, uint16_t setup);
/* Keeps |fault| for take_fault (the oldest 16 are kept). */
void hrx_fabric_queue_record_fault(hrx_fabric_queue_t* queue,
                                   const hrx_fabric_fault_t* fault);

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

/* Grows |scratch| to at least |bytes| (64-byte aligned; the old contents
 * are not kept); false when memory runs out. */
bool hrx_host_scratch_reserve(hrx_host_scratch_t* scratch, size_t bytes);
void hrx_host_scratch_free(hrx_host_scratch_t* scratch);

/*===------------------------------------------------------------------===*/
/* Host device                                                             */
/*===------------------------------------------------------------------===*/

/* Host memory for host device allocations (host_pages.c): 64-byte
 * aligned; from HRX_HOST_PAGES_LARGE bytes on, a 2 MiB-aligned mapping
 * advised for transparent huge pages. |zero| clears it (fresh mappings
 * are zero already). NULL when the memory is not there.
 * hrx_host_pages_free takes the size that was allocated. */
#define HRX_HOST_PAGES_LARGE ((size_t)2 << 20)
void* hrx_host_pages_allocate(size_t bytes, bool zero);
void hrx_host_pages_free(void* memory, size_t bytes);

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
  /* Queue processors polling now, and how many may at once: one core is
   * always left to the threads that submit, since a poller sharing a
   * submitter's core costs it whole time slices (host_queue.c). */
  atomic_uint pollers;
  uint32_t poll_limit;
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

/* host_queue.c: a queue drained by its own packet-processor thread. */
hrx_status_t hrx_host_queue_create(hrx_fabric_device_t* device,
                                   uint32_t packet_count,
                                   uint64_t maximum_private_bytes,
                                   hrx_fabric_queue_t** out_queue);

void hrx_host_device_forget_executable(hrx_host_device_t* device,
                                       hrx_fabric_executable_t* executable);

/*===------------------------------------------------------------------===*/
/* Executor                                                                */
/*===------------------------------------------------------------------===*/

/* The name of index.assume fact |assertion| (hrx_host_assert_t), "?" for
 * one this library does not know. */
const char* hrx_host_assert_name(uint32_t assertion);

/* Adds |report| to |channel|, or counts it dropped when the channel is
 * full; any thread, no allocation (sanitizer.c). */
void hrx_fabric_report_channel_push(
    hrx_fabric_report_channel_t* channel,
    const hrx_fabric_sanitizer_report_t* report);

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
  /* Report mode (hrx/fabric/sanitizer.h): the completion signal's channel,
   * which findings go to instead of ending the dispatch; NULL: trap. */
  hrx_fabric_report_channel_t* reports;
  /* Unique per prepared dispatch: keys the executor's per-thread caches. */
  uint64_t serial;
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

/*===------------------------------------------------------------------===*/
/* Native host code (host_native_elf.c, host_native_run.c)                 */
/*===------------------------------------------------------------------===*/

typedef struct hrx_host_native_image_s hrx_host_native_image_t;

/* An external function native code may call. */
typedef struct hrx_host_native_symbol_t {
  const char* name;
  void* address;
} hrx_host_native_symbol_t;

/* The functions of hrx_host_native_symbol_names, implemented. */
const hrx_host_native_symbol_t* hrx_host_native_symbols(size_t* out_count);

/* Loads an ELF64 x86-64 relocatable object, resolving undefined symbols
 * from |externals| only; errors name what the loader refused. */
hrx_status_t hrx_host_native_image_load(
    const uint8_t* object, size_t length,
    const hrx_host_native_symbol_t* externals, size_t external_count,
    hrx_allocator_t allocator, hrx_host_native_image_t** out_image);
/* The address of global symbol |name| of the image, or NULL. */
void* hrx_host_native_image_find(const hrx_host_native_image_t* image,
                                 const char* name);
void hrx_host_native_image_free(hrx_host_native_image_t* image);

/* Whether the running CPU has every "+feature" of LLVM feature list
 * |features|; when not, |why| says which it lacks. */
bool hrx_host_native_cpu_supports(const char* features, size_t length,
                                  char* why, size_t why_capacity);

/* Runs workgroups with the kernel's native code, a run of consecutive
 * ones per job item (hrx_host_native_job_items of the dispatch's groups
 * in all); a job function for the pool. Faults are reported as the
 * interpreter reports them. */
void hrx_host_native_run_workgroups(void* dispatch, uint64_t item,
                                    hrx_host_scratch_t* scratch);
uint64_t hrx_host_native_job_items(uint64_t workgroups);

#endif /* HRX_FABRIC_INTERNAL_H_ */
