/* Private structures shared by libhrx-exec's source files. */
#ifndef HRX_EXEC_SRC_EXEC_INTERNAL_H_
#define HRX_EXEC_SRC_EXEC_INTERNAL_H_

#include <pthread.h>
#include <stdatomic.h>

#include "hrx/exec.h"

/* A byte range a graph touches, for ordering against later submissions. */
typedef struct hrx_exec_range_t {
  const hrx_gpu_buffer_t* buffer;
  uint64_t begin, end;
  bool writes;
} hrx_exec_range_t;

/* A graph's prepared form (plan.c): reference counted, immutable. */
typedef struct hrx_exec_plan_t {
  atomic_int references;
  hrx_allocator_t allocator;
  hrx_gpu_prepared_t** commands; /* per node; NULL for transfers */
  uint32_t* runs; /* per node: prepared nodes queued with it (plan.c) */
  size_t node_count;
  /* Sorted by buffer then start, disjoint within a buffer. */
  hrx_exec_range_t* ranges;
  size_t range_count;
} hrx_exec_plan_t;

/* A submission still in flight: its lanes' end events and the plan whose
 * commands it queued. Owned by the runtime until every event completed. */
typedef struct hrx_exec_flight_t {
  hrx_gpu_event_t* events[HRX_EXEC_LANE_COUNT]; /* NULL: lane unused */
  hrx_exec_plan_t* plan;                        /* retained */
} hrx_exec_flight_t;

/* What the watchers tell a completion: shared by the completion and the
 * watchers of its lanes (reference counted). */
typedef struct hrx_exec_notice_t {
  atomic_int references;
  pthread_mutex_t mutex;
  int remaining; /* lanes whose end no watcher has seen yet */
  int fd;        /* eventfd, -1 until asked for */
  uint64_t submit_ns;
  uint64_t submission;
} hrx_exec_notice_t;

typedef struct hrx_exec_watch_item_t {
  /* Completes when the lane has passed its previous work and this
   * submission's waits on other lanes: when its own work starts. */
  hrx_gpu_event_t* start;
  hrx_gpu_event_t* end;
  hrx_exec_notice_t* notice;
} hrx_exec_watch_item_t;

/* One lane's watcher thread and its queue of submissions to observe. */
typedef struct hrx_exec_watcher_t {
  hrx_exec_runtime_t* runtime;
  hrx_exec_lane_t lane;
  pthread_t thread;
  bool started;
  pthread_mutex_t mutex;
  pthread_cond_t wake;
  hrx_exec_watch_item_t* items; /* ring */
  size_t head, count, capacity;
  bool stopping;
  uint64_t last_end_ns;
  uint64_t busy_ns;
} hrx_exec_watcher_t;

/* Where a prepared node runs: a host-ordered region on the transfer or
 * PM4 queue (region.c), or its lane. */
typedef enum hrx_exec_engine_e {
  HRX_EXEC_ENGINE_TRANSFER = 0,
  HRX_EXEC_ENGINE_PM4 = 1,
  HRX_EXEC_ENGINE_LANE = 2,
} hrx_exec_engine_t;

struct hrx_exec_runtime_s {
  hrx_allocator_t allocator;
  hrx_gpu_device_t* device; /* retained */
  hrx_budget_t* budget;     /* retained */
  hrx_gpu_stream_t* lanes[HRX_EXEC_LANE_COUNT];
  hrx_exec_watcher_t watchers[HRX_EXEC_LANE_COUNT];
  /* copy_engine = SDMA: copy nodes run here (submit.c), else NULL. */
  hrx_fabric_transfer_queue_t* transfer;
  /* compute_engine = PM4: dispatch nodes run here, else NULL. */
  hrx_fabric_pm4_queue_t* pm4;
  /* Per hrx_exec_engine_t: the fence a region timed out on (0: none);
   * the runtime runs nothing more on a queue presumed hung. */
  uint64_t hung_fence[HRX_EXEC_ENGINE_LANE];
  /* The plans whose work the hung queues may still touch, retained until
   * the queue is stopped (runtime destroy). */
  hrx_exec_plan_t* hung_plan[HRX_EXEC_ENGINE_LANE];
  uint64_t region_timeout_ns; /* each region's bound (region.c) */
  hrx_trace_t* trace; /* retained, may be NULL */
  /* NPU imports of runtime buffers (npu_lane.c); NULL until the first. */
  struct hrx_exec_npu_imports_s* npu_imports;
  bool observe;       /* watchers run */
  /* A completion wait timed out: destruction cancels what still runs
   * rather than wait for it forever. Set by any waiting thread. */
  atomic_bool abandoned;
  uint32_t max_submissions;
  /* Guards everything below and serialises submissions, so lane order is
   * one order for every thread. */
  pthread_mutex_t mutex;
  hrx_exec_flight_t* flights;
  size_t flight_count, flight_capacity;
  /* Completions released while their work ran: freed once it ended. */
  hrx_exec_completion_t** quarantine;
  size_t quarantine_count, quarantine_capacity;
  /* Scratch for one submission: events of nodes other lanes wait for. */
  hrx_gpu_event_t** node_events;
  size_t node_event_capacity;
  hrx_exec_statistics_t stats;
};

struct hrx_exec_kernel_s {
  hrx_exec_runtime_t* runtime;
  hrx_gpu_kernel_t* kernel; /* retained */
  hrx_exec_binding_contract_t* bindings;
  size_t binding_count, scalar_count;
  char name[64];
};

typedef enum hrx_exec_op_e {
  HRX_EXEC_OP_UPLOAD,
  HRX_EXEC_OP_DISPATCH,
  HRX_EXEC_OP_COPY,
  HRX_EXEC_OP_DOWNLOAD,
  HRX_EXEC_OP_NPU, /* npu_lane.c, built with -Dnpu */
} hrx_exec_op_t;

typedef struct hrx_exec_npu_program_s hrx_exec_npu_program_t;

typedef struct hrx_exec_node_rec_t {
  hrx_exec_op_t op;
  hrx_exec_lane_t lane;
  hrx_gpu_view_t view, source; /* buffers retained by the graph */
  const void* upload;
  void* download;
  hrx_gpu_kernel_t* kernel; /* retained */
  uint64_t* workload;
  size_t workload_count;
  hrx_gpu_arg_t* args;
  size_t arg_count;
  hrx_exec_npu_program_t* npu; /* retained; HRX_EXEC_OP_NPU only */
  uint32_t deps_start, dep_count;
  bool signals; /* a node of another lane waits for it */
} hrx_exec_node_rec_t;

typedef struct hrx_exec_access_t {
  hrx_gpu_view_t view;
  hrx_gpu_access_t access;
} hrx_exec_access_t;

/* A view of a live buffer that lies inside it (graph.c). */
hrx_status_t hrx_exec_check_view(hrx_gpu_view_t view, const char* what);
/* Appends node |n| (taking its references) with the dependencies its
 * accesses imply. On failure |n|'s references are dropped. */
hrx_status_t hrx_exec_graph_add(hrx_exec_graph_t* graph,
                                hrx_exec_node_rec_t* n,
                                const hrx_exec_access_t* accesses,
                                size_t access_count,
                                hrx_exec_node_t* out_node);

struct hrx_exec_graph_s {
  hrx_exec_runtime_t* runtime;
  hrx_allocator_t allocator;
  hrx_gpu_hazard_tracker_t* tracker;
  hrx_exec_node_rec_t* nodes;
  size_t node_count, node_capacity;
  hrx_exec_node_t* deps;
  size_t dep_count, dep_capacity;
  hrx_exec_range_t* ranges; /* as recorded; the plan merges them */
  size_t range_count, range_capacity;
  hrx_exec_plan_t* plan; /* NULL until submitted, and after recording */
  bool broken;
};

typedef struct hrx_exec_delivery_t {
  hrx_gpu_readback_t* readback;
  void* data;
} hrx_exec_delivery_t;

struct hrx_exec_completion_s {
  atomic_uint_fast32_t references;
  hrx_exec_runtime_t* runtime;
  hrx_exec_notice_t* notice; /* retained; NULL when not observing */
  hrx_gpu_event_t* events[HRX_EXEC_LANE_COUNT];
  /* When observing: each used lane's start (see hrx_exec_watch_item_t). */
  hrx_gpu_event_t* start_events[HRX_EXEC_LANE_COUNT];
  hrx_exec_delivery_t* deliveries;
  size_t delivery_count;
  bool delivered;
};

hrx_status_t hrx_exec_notice_create(hrx_allocator_t allocator, int lanes,
                                    uint64_t submission,
                                    hrx_exec_notice_t** out_notice);
void hrx_exec_notice_retain(hrx_exec_notice_t* notice);
void hrx_exec_notice_release(hrx_allocator_t allocator,
                             hrx_exec_notice_t* notice);
/* Marks one lane of |notice| ended; the last one makes the fd readable. */
void hrx_exec_notice_lane_done(hrx_exec_notice_t* notice);

/* Starts the lane's watcher thread. */
hrx_status_t hrx_exec_watcher_start(hrx_exec_runtime_t* runtime,
                                    hrx_exec_lane_t lane);
/* Lets the watcher observe everything queued, then joins it. */
void hrx_exec_watcher_stop(hrx_exec_watcher_t* watcher);
/* Queues the lane's |start| (may be NULL) and |end| events and |notice|
 * (all retained) for the watcher; without memory to queue them, waits for
 * the end here instead. */
void hrx_exec_watcher_push(hrx_exec_watcher_t* watcher, hrx_gpu_event_t* start,
                           hrx_gpu_event_t* end, hrx_exec_notice_t* notice);
uint64_t hrx_exec_watcher_busy_ns(hrx_exec_watcher_t* watcher);

/* Frees a completion whose events all completed (or that never ran). */
void hrx_exec_completion_free(hrx_exec_completion_t* completion);

hrx_status_t hrx_exec_plan_create(const hrx_exec_graph_t* graph,
                                  hrx_exec_plan_t** out_plan);
void hrx_exec_plan_retain(hrx_exec_plan_t* plan);
void hrx_exec_plan_release(hrx_exec_plan_t* plan);
/* Whether two plans touch a common byte and one of them writes it. */
bool hrx_exec_plans_conflict(const hrx_exec_plan_t* a,
                             const hrx_exec_plan_t* b);

uint64_t hrx_exec_region_timeout(const hrx_exec_runtime_options_t* options);
hrx_exec_engine_t hrx_exec_node_engine(const hrx_exec_runtime_t* runtime,
                                       const hrx_exec_node_rec_t* node);
/* "SDMA queue 2", "PM4 queue 3": the engine's queue as statuses name it. */
const char* hrx_exec_engine_name(const hrx_exec_runtime_t* runtime,
                                 hrx_exec_engine_t engine);
/* Runs the |count| prepared nodes of |graph| from |first| on, all of
 * |engine| (not the lane), as one host-ordered region; |used| names the
 * lanes batching this submission. Mutex held. */
hrx_status_t hrx_exec_region_run(hrx_exec_runtime_t* runtime,
                                 const hrx_exec_graph_t* graph, size_t first,
                                 size_t count, hrx_exec_engine_t engine,
                                 const bool* used);
/* A PM4 queue stops for good on a fault: replaces it with a new one, so
 * the fault stays with the submission whose region it failed. Mutex
 * held. */
hrx_status_t hrx_exec_pm4_recover(hrx_exec_runtime_t* runtime);
#if HRX_EXEC_NPU
/* Drops the runtime's reference to its NPU import cache (npu_lane.c). */
void hrx_exec_npu_imports_release(struct hrx_exec_npu_imports_s* imports);
/* Runs node |i| of |graph|, an NPU node, as a host-ordered region
 * (npu_lane.c) while submitting: |node_events| as hrx_exec_queue_node
 * has them, |used| the lanes batching the submission; mutex held. */
hrx_status_t hrx_exec_npu_region(hrx_exec_runtime_t* runtime,
                                 const hrx_exec_graph_t* graph, size_t i,
                                 hrx_gpu_event_t* const* node_events,
                                 const bool* used);
#endif

/* Drops finished flights and quarantined completions; mutex held. */
void hrx_exec_runtime_prune(hrx_exec_runtime_t* runtime);

#endif /* HRX_EXEC_SRC_EXEC_INTERNAL_H_ */
