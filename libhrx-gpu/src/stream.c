/* Streams: in-order submission to one queue, a timeline signal, and
 * retention of everything queued work uses until it completes.
 *
 * Every command on a stream decrements the stream's timeline signal when
 * it completes; the signal starts at HRX_GPU_TIMELINE_START, so point p
 * (the p-th command) is complete once the value is at most START - p. A
 * fault stores -1, which satisfies every wait and marks the stream failed. */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpu_internal.h"

#define HRX_GPU_TIMELINE_START (INT64_C(1) << 62)
/* How long a full queue may keep a producer waiting before BUSY. */
#define HRX_GPU_RESERVE_TIMEOUT_NS (30ull * 1000000000ull)

typedef struct hrx_gpu_retained_t {
  uint64_t point;
  hrx_gpu_command_t command;
  hrx_fabric_memory_t staging; /* upload staging; released with the record */
  uint64_t staged;             /* bytes of it the upload charged */
} hrx_gpu_retained_t;

struct hrx_gpu_stream_s {
  hrx_gpu_device_t* device; /* retained */
  hrx_allocator_t allocator;
  hrx_fabric_queue_t* queue;
  hrx_fabric_signal_t* timeline;
  hrx_gpu_fault_cell_t* faults; /* the timeline's */
  uint64_t submitted;
  hrx_budget_t* budget;
  /* FIFO of retained work: [head, head + count) of a ring. */
  hrx_gpu_retained_t* retained;
  size_t retained_head, retained_count, retained_capacity;
  bool failed;
  hrx_fabric_fault_t fault;
  uint32_t batch_depth;
  uint32_t unlooked; /* publications since the timeline was last read */
  bool unrung; /* packets published quietly since the last ring */
  uint64_t end_index; /* queue index just past the stream's last packet */
  uint64_t abandoned; /* latest point a synchronize gave up on (0: none) */
  hrx_gpu_kernarg_cache_t kernargs;
  hrx_gpu_launch_memo_t launch_memo;
  hrx_gpu_stream_sanitizer_t sanitizer;
};

struct hrx_gpu_readback_s {
  hrx_allocator_t allocator;
  hrx_gpu_device_t* device; /* retained */
  hrx_fabric_signal_t* timeline;
  uint64_t point;
  hrx_fabric_memory_t staging; /* from the device's staging cache */
  uint64_t length;             /* bytes read (staging may be larger) */
  hrx_budget_t* budget;
};

static int64_t hrx_gpu_point_value(uint64_t point) {
  return HRX_GPU_TIMELINE_START - (int64_t)point;
}

static bool hrx_gpu_point_done(const hrx_fabric_signal_t* timeline,
                               uint64_t point) {
  return hrx_fabric_signal_load(timeline) <= hrx_gpu_point_value(point);
}

/*===------------------------------------------------------------------===*/
/* Failure and retention                                                   */
/*===------------------------------------------------------------------===*/

static hrx_status_t hrx_gpu_stream_failure(hrx_gpu_stream_t* s) {
  if (!s->failed && hrx_fabric_signal_load(s->timeline) < 0) {
    s->failed = true;
    hrx_gpu_fault_cell_read(s->faults, &s->fault);
  }
  if (!s->failed) return HRX_OK;
  char text[512];
  hrx_fabric_fault_format(&s->fault, text, sizeof(text));
  return hrx_make_status(HRX_STATUS_ABORTED, "stream failed: %s", text);
}

static void hrx_gpu_stream_retire(hrx_gpu_stream_t* s, bool all) {
  while (s->retained_count) {
    hrx_gpu_retained_t* r =
        &s->retained[s->retained_head % s->retained_capacity];
    if (!all && !hrx_gpu_point_done(s->timeline, r->point)) break;
    hrx_gpu_command_release(s->allocator, &r->command);
    hrx_gpu_staging_release(&s->device->staging, s->device->fabric,
                            s->budget, r->staged, &r->staging);
    s->retained_head++;
    s->retained_count--;
  }
}

/* The ring's next free record, for a command built in place; it counts
 * once hrx_gpu_stream_retain_next() commits it. Retiring in between
 * leaves it where it is (head + count does not move). */
static hrx_status_t hrx_gpu_stream_next_record(hrx_gpu_stream_t* s,
                                               hrx_gpu_retained_t** out) {
  if (s->retained_count == s->retained_capacity) {
    size_t capacity = s->retained_capacity ? s->retained_capacity * 2 : 64;
    hrx_gpu_retained_t* grown = NULL;
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
        s->allocator, capacity, sizeof(*grown), (void**)&grown));
    for (size_t i = 0; i < s->retained_count; ++i) {
      grown[i] = s->retained[(s->retained_head + i) % s->retained_capacity];
    }
    hrx_allocator_free(s->allocator, s->retained);
    s->retained = grown;
    s->retained_head = 0;
    s->retained_capacity = capacity;
  }
  *out = &s->retained[(s->retained_head + s->retained_count) %
                      s->retained_capacity];
  return HRX_OK;
}

static hrx_status_t hrx_gpu_stream_retain(hrx_gpu_stream_t* s,
                                          hrx_gpu_retained_t record) {
  hrx_gpu_retained_t* next = NULL;
  HRX_RETURN_IF_ERROR(hrx_gpu_stream_next_record(s, &next));
  *next = record;
  s->retained_count++;
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Submission                                                              */
/*===------------------------------------------------------------------===*/

/* Announces quietly published packets to the queue processor. */
static void hrx_gpu_stream_ring(hrx_gpu_stream_t* s) {
  if (!s->unrung) return;
  hrx_fabric_queue_ring(s->queue);
  s->unrung = false;
}

void hrx_gpu_stream_begin_batch(hrx_gpu_stream_t* s) { s->batch_depth++; }

void hrx_gpu_stream_end_batch(hrx_gpu_stream_t* s) {
  if (s->batch_depth && --s->batch_depth == 0) hrx_gpu_stream_ring(s);
}

static hrx_status_t hrx_gpu_reserve(hrx_gpu_stream_t* s, uint32_t count,
                                    uint64_t* out) {
  uint64_t deadline = 0;
  for (;;) {
    hrx_status_t status = hrx_fabric_queue_reserve(s->queue, count, out);
    if (!hrx_status_is(status, HRX_STATUS_BUSY)) return status;
    /* A full ring drains only if the processor knows about it. */
    hrx_gpu_stream_ring(s);
    hrx_status_free(status);
    if (!deadline) deadline = hrx_deadline_after(HRX_GPU_RESERVE_TIMEOUT_NS);
    if (hrx_deadline_remaining(deadline) == 0) {
      return hrx_make_status(HRX_STATUS_BUSY,
                             "the stream's queue stayed full for %llu s "
                             "(%u packets in flight)",
                             (unsigned long long)(HRX_GPU_RESERVE_TIMEOUT_NS /
                                                  1000000000ull),
                             hrx_fabric_queue_size(s->queue));
    }
    /* The ring drains on its own; give the processor the core. */
    hrx_gpu_stream_retire(s, false);
    sched_yield();
  }
}

/* Writes a packet body into reserved slot |index| with |signal| as its
 * completion signal, and publishes it. */
static void hrx_gpu_write(hrx_gpu_stream_t* s, uint64_t index,
                          const hrx_gpu_command_t* command, uint64_t signal) {
  hrx_aql_packet_t* slot = hrx_fabric_queue_slot(s->queue, index);
  s->end_index = index + 1;
  memcpy(slot->bytes + 4, command->packet.bytes + 4, 52);
  slot->dispatch.completion_signal = signal;
  uint16_t header = hrx_aql_header((hrx_aql_packet_type_t)command->type, 1,
                                   HRX_AQL_FENCE_SYSTEM, HRX_AQL_FENCE_SYSTEM);
  /* Agent packets keep their operation in the setup half-word. */
  uint16_t setup = command->type == HRX_AQL_PACKET_AGENT
                       ? command->packet.agent.type : command->setup;
  if (s->batch_depth) {
    hrx_fabric_queue_publish_quiet(s->queue, index, header, setup);
    s->unrung = true;
  } else {
    hrx_fabric_queue_publish(s->queue, index, header, setup);
  }
}

/* Publishes a packet body with |signal| as its completion signal. */
static hrx_status_t hrx_gpu_publish(hrx_gpu_stream_t* s,
                                    const hrx_gpu_command_t* command,
                                    uint64_t signal) {
  uint64_t index = 0;
  HRX_RETURN_IF_ERROR(hrx_gpu_reserve(s, 1, &index));
  hrx_gpu_write(s, index, command, signal);
  return HRX_OK;
}

/* Publishes |command| as the stream's next timeline point. */
/* Commands published in a row before the stream reads its timeline again
 * (for a fault, and to retire finished work). The queue processor writes
 * the timeline as each packet completes, so reading it on every call
 * costs a cache miss per call while the processor runs beside the caller
 * (up to 0.4 us on a 2-core VM, against a 60 ns call). Waits always
 * read it. */
#define HRX_GPU_LOOK_EVERY 16u

static hrx_status_t hrx_gpu_stream_publish_next(
    hrx_gpu_stream_t* s, const hrx_gpu_command_t* command) {
  if (s->failed || s->unlooked >= HRX_GPU_LOOK_EVERY) {
    s->unlooked = 0;
    HRX_RETURN_IF_ERROR(hrx_gpu_stream_failure(s));
    hrx_gpu_stream_retire(s, false);
  }
  HRX_RETURN_IF_ERROR(
      hrx_gpu_publish(s, command, hrx_fabric_signal_handle(s->timeline)));
  s->submitted++;
  s->unlooked++;
  return HRX_OK;
}

hrx_status_t hrx_gpu_stream_submit(hrx_gpu_stream_t* s,
                                   hrx_gpu_command_t* command, bool take) {
  hrx_status_t status = hrx_gpu_stream_publish_next(s, command);
  if (status != HRX_OK) {
    if (take) hrx_gpu_command_release(s->allocator, command);
    return status;
  }
  if (!take) return HRX_OK;
  hrx_gpu_retained_t record = {.point = s->submitted, .command = *command};
  memset(command, 0, sizeof(*command));
  status = hrx_gpu_stream_retain(s, record);
  if (status != HRX_OK) {
    /* Cannot track it: wait for it instead, so nothing is freed early. */
    hrx_status_free(hrx_gpu_stream_wait_point(s, s->submitted,
                                              HRX_TIMEOUT_INFINITE));
    hrx_gpu_command_release(s->allocator, &record.command);
  }
  return status;
}

static hrx_status_t hrx_gpu_check_prepared(const hrx_gpu_stream_t* s,
                                           const hrx_gpu_prepared_t* p) {
  if (p && p->device == s->device) return HRX_OK;
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         p ? "the command was prepared for another device"
                           : "no prepared command");
}

hrx_status_t hrx_gpu_stream_enqueue(hrx_gpu_stream_t* s,
                                    const hrx_gpu_prepared_t* prepared) {
  HRX_RETURN_IF_ERROR(hrx_gpu_check_prepared(s, prepared));
  return hrx_gpu_stream_publish_next(s, &prepared->command);
}

/* Slots reserved at once: small enough for any queue to grant. */
#define HRX_GPU_ENQUEUE_CHUNK 16u

hrx_status_t hrx_gpu_stream_enqueue_all(
    hrx_gpu_stream_t* s, const hrx_gpu_prepared_t* const* prepared,
    size_t count) {
  for (size_t i = 0; i < count; ++i) {
    HRX_RETURN_IF_ERROR(hrx_gpu_check_prepared(s, prepared[i]));
  }
  HRX_RETURN_IF_ERROR(hrx_gpu_stream_failure(s));
  uint64_t signal = hrx_fabric_signal_handle(s->timeline);
  hrx_gpu_stream_begin_batch(s); /* one doorbell for all of them */
  hrx_status_t status = HRX_OK;
  for (size_t done = 0; done < count && status == HRX_OK;) {
    uint32_t chunk = count - done < HRX_GPU_ENQUEUE_CHUNK
                         ? (uint32_t)(count - done)
                         : HRX_GPU_ENQUEUE_CHUNK;
    uint64_t index = 0;
    status = hrx_gpu_reserve(s, chunk, &index);
    if (status != HRX_OK) break;
    for (uint32_t k = 0; k < chunk; ++k) {
      hrx_gpu_write(s, index + k, &prepared[done + k]->command, signal);
    }
    s->submitted += chunk;
    done += chunk;
  }
  hrx_gpu_stream_end_batch(s);
  hrx_gpu_stream_retire(s, false);
  return status;
}

hrx_fabric_signal_t* hrx_gpu_stream_timeline(hrx_gpu_stream_t* s) {
  return s->timeline;
}

uint64_t hrx_gpu_stream_point(const hrx_gpu_stream_t* s) {
  return s->submitted;
}

hrx_status_t hrx_gpu_stream_wait_point(hrx_gpu_stream_t* s, uint64_t point,
                                       uint64_t timeout_ns) {
  hrx_gpu_stream_ring(s);
  hrx_status_t status = hrx_fabric_signal_wait(
      s->timeline, HRX_FABRIC_SIGNAL_LT, hrx_gpu_point_value(point) + 1,
      timeout_ns, NULL);
  /* A wait that gave up (not a poll) marks the work presumed stuck. */
  if (timeout_ns && hrx_status_is(status, HRX_STATUS_DEADLINE_EXCEEDED) &&
      point > s->abandoned) {
    s->abandoned = point;
  }
  HRX_RETURN_IF_ERROR(status);
  hrx_gpu_stream_retire(s, false);
  return hrx_gpu_stream_failure(s);
}

/* Waits until the queue processor is done with every packet of the
 * stream. Normally the timeline says so; once it reads faulted it says
 * nothing about later packets, so then wait for the processor to pass the
 * stream's last one (it skips them: see hrx/fabric/queue.h). */
static void hrx_gpu_stream_drain(hrx_gpu_stream_t* s) {
  hrx_gpu_stream_ring(s);
  hrx_status_free(hrx_fabric_signal_wait(
      s->timeline, HRX_FABRIC_SIGNAL_LT, hrx_gpu_point_value(s->submitted) + 1,
      HRX_TIMEOUT_INFINITE, NULL));
  if (hrx_fabric_signal_load(s->timeline) >= 0) return;
  while (hrx_fabric_queue_read_index(s->queue) < s->end_index) {
    struct timespec pause = {0, 100000};
    nanosleep(&pause, NULL);
  }
}

/* Drops fault reports for the stream's timeline that nobody took: they
 * would crowd the shared queue's list. Events may still ask for the one
 * that failed it, so the fault cell takes that first. */
static void hrx_gpu_stream_drop_faults(hrx_gpu_stream_t* s) {
  hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  if (hrx_fabric_signal_load(s->timeline) < 0) {
    hrx_gpu_fault_cell_read(s->faults, &fault);
  }
  for (hrx_status_t taken = HRX_OK; taken == HRX_OK;) {
    taken = hrx_fabric_queue_take_fault_for(
        s->queue, hrx_fabric_signal_handle(s->timeline), &fault);
    hrx_status_free(taken);
  }
}

hrx_status_t hrx_gpu_stream_recover(hrx_gpu_stream_t* s,
                                    hrx_fabric_fault_t* out_fault) {
  if (!s) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "no stream to recover");
  }
  hrx_fabric_fault_t none = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  /* A bad struct_size must not lose the report: check it first. */
  if (out_fault) {
    HRX_RETURN_IF_ERROR(
        HRX_STRUCT_WRITE(hrx_fabric_fault_t, detail, &none, out_fault));
  }
  hrx_status_t failure = hrx_gpu_stream_failure(s);
  if (failure == HRX_OK) return HRX_OK;
  hrx_status_free(failure);
  /* Everything queued completed or was skipped (it never runs later), so
   * nothing the stream retains is still in use. */
  hrx_gpu_stream_drain(s);
  hrx_gpu_stream_retire(s, true);
  HRX_RETURN_IF_ERROR(hrx_fabric_queue_restart(s->queue));
  /* A fresh timeline: events, readbacks and graph replays recorded before
   * hold the old one, which keeps reading faulted for them. */
  hrx_fabric_signal_t* timeline = NULL;
  HRX_RETURN_IF_ERROR(hrx_fabric_device_signal_create(
      s->device->fabric, HRX_GPU_TIMELINE_START, &timeline));
  hrx_gpu_fault_cell_t* faults = NULL;
  hrx_status_t status =
      hrx_gpu_fault_cell_create(s->allocator, s->queue, timeline, &faults);
  if (status != HRX_OK) {
    hrx_fabric_signal_release(timeline);
    return status;
  }
  hrx_gpu_stream_drop_faults(s);
  if (s->sanitizer.channel) {
    hrx_fabric_signal_set_report_channel(s->timeline, NULL);
    hrx_fabric_signal_set_report_channel(timeline, s->sanitizer.channel);
  }
  hrx_fabric_signal_release(s->timeline);
  s->timeline = timeline;
  hrx_gpu_fault_cell_release(s->faults);
  s->faults = faults;
  s->submitted = 0;
  s->abandoned = 0;
  s->failed = false;
  hrx_fabric_fault_t fault = s->fault;
  memset(&s->fault, 0, sizeof(s->fault));
  if (out_fault) {
    HRX_RETURN_IF_ERROR(
        HRX_STRUCT_WRITE(hrx_fabric_fault_t, detail, &fault, out_fault));
  }
  return HRX_OK;
}

void hrx_gpu_stream_cancel(hrx_gpu_stream_t* s) {
  hrx_gpu_stream_ring(s);
  if (!hrx_gpu_point_done(s->timeline, s->submitted)) {
    hrx_fabric_signal_cancel(s->timeline);
  }
  hrx_gpu_stream_drain(s);
  hrx_gpu_stream_retire(s, false);
}

/*===------------------------------------------------------------------===*/
/* Lifecycle                                                               */
/*===------------------------------------------------------------------===*/

hrx_status_t hrx_gpu_stream_create(hrx_gpu_device_t* device,
                                   hrx_gpu_stream_t** out_stream) {
  *out_stream = NULL;
  hrx_gpu_stream_t* s = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(device->allocator, sizeof(*s), (void**)&s));
  s->allocator = device->allocator;
  hrx_status_t status = hrx_gpu_device_next_queue(device, &s->queue);
  /* A queue a fault stopped, and no stream recovered yet, serves this
   * one afresh. */
  if (status == HRX_OK) status = hrx_fabric_queue_restart(s->queue);
  if (status == HRX_OK) {
    status = hrx_fabric_device_signal_create(
        device->fabric, HRX_GPU_TIMELINE_START, &s->timeline);
  }
  if (status == HRX_OK) {
    status = hrx_gpu_fault_cell_create(s->allocator, s->queue, s->timeline,
                                       &s->faults);
  }
  if (status != HRX_OK) {
    hrx_fabric_signal_release(s->timeline);
    hrx_allocator_free(s->allocator, s);
    return status;
  }
  s->device = device;
  hrx_gpu_device_retain(device);
  *out_stream = s;
  return HRX_OK;
}

void hrx_gpu_stream_destroy(hrx_gpu_stream_t* s) {
  if (!s) return;
  if (s->abandoned && !hrx_gpu_point_done(s->timeline, s->abandoned)) {
    hrx_gpu_stream_cancel(s);
  }
  hrx_gpu_stream_drain(s);
  hrx_gpu_stream_retire(s, true);
  hrx_gpu_stream_drop_faults(s);
  hrx_gpu_stream_sanitizer_reset(s);
  hrx_allocator_free(s->allocator, s->retained);
  hrx_gpu_kernarg_cache_free(s->allocator, &s->kernargs);
  hrx_fabric_signal_release(s->timeline);
  hrx_gpu_fault_cell_release(s->faults);
  hrx_budget_release(s->budget);
  hrx_gpu_device_t* device = s->device;
  hrx_allocator_free(s->allocator, s);
  hrx_gpu_device_release(device);
}

void hrx_gpu_stream_set_memory_budget(hrx_gpu_stream_t* s,
                                      hrx_budget_t* budget) {
  hrx_budget_retain(budget);
  hrx_budget_release(s->budget);
  s->budget = budget;
}

hrx_status_t hrx_gpu_stream_synchronize(hrx_gpu_stream_t* s,
                                        uint64_t timeout_ns) {
  return hrx_gpu_stream_wait_point(s, s->submitted, timeout_ns);
}

/*===------------------------------------------------------------------===*/
/* Memory                                                                  */
/*===------------------------------------------------------------------===*/

hrx_status_t hrx_gpu_stream_allocate(hrx_gpu_stream_t* s, uint64_t bytes,
                                     hrx_gpu_buffer_t** out_buffer) {
  return hrx_gpu_stream_allocate_placed(
      s, bytes, HRX_FABRIC_VISIBILITY_HOST_COHERENT, out_buffer);
}

hrx_status_t hrx_gpu_stream_allocate_placed(
    hrx_gpu_stream_t* s, uint64_t bytes, hrx_fabric_visibility_t placement,
    hrx_gpu_buffer_t** out_buffer) {
  return hrx_gpu_buffer_create(s->device, bytes, placement,
                               HRX_FABRIC_MEMORY_ZEROED, s->budget,
                               out_buffer);
}

hrx_status_t hrx_gpu_stream_allocate_from(hrx_gpu_stream_t* s,
                                          const void* data, uint64_t length,
                                          hrx_gpu_buffer_t** out_buffer) {
  return hrx_gpu_stream_allocate_from_placed(
      s, data, length, HRX_FABRIC_VISIBILITY_HOST_COHERENT, out_buffer);
}

hrx_status_t hrx_gpu_stream_allocate_from_placed(
    hrx_gpu_stream_t* s, const void* data, uint64_t length,
    hrx_fabric_visibility_t placement, hrx_gpu_buffer_t** out_buffer) {
  *out_buffer = NULL;
  if (!data || length == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "allocate_from needs nonempty data");
  }
  hrx_gpu_buffer_t* buffer = NULL;
  HRX_RETURN_IF_ERROR(hrx_gpu_buffer_create(s->device, length, placement,
                                            HRX_FABRIC_MEMORY_UNINITIALIZED,
                                            s->budget, &buffer));
  memcpy(buffer->memory.host_pointer, data, length);
  hrx_status_t status = hrx_gpu_buffer_host_access(
      buffer, 0, length, HRX_FABRIC_CACHE_HOST_WRITES_DONE);
  if (status != HRX_OK) {
    hrx_gpu_buffer_release(buffer);
    return status;
  }
  *out_buffer = buffer;
  return HRX_OK;
}

/* Staging memory charged to the stream's budget. */
static hrx_status_t hrx_gpu_staging(hrx_gpu_stream_t* s, uint64_t bytes,
                                    hrx_fabric_memory_t* out) {
  return hrx_gpu_staging_acquire(&s->device->staging, s->device->fabric,
                                 s->budget, bytes, out);
}

static void hrx_gpu_staging_drop(hrx_gpu_stream_t* s, uint64_t bytes,
                                 hrx_fabric_memory_t* staging) {
  hrx_gpu_staging_release(&s->device->staging, s->device->fabric, s->budget,
                          bytes, staging);
}

/* No queued work is pending: the device is not touching anything this
 * stream ordered, so a transfer may happen right now, by the host, and
 * still be in stream order. Waits on events are queued work too. */
bool hrx_gpu_stream_idle(const hrx_gpu_stream_t* s) {
  return hrx_gpu_point_done(s->timeline, s->submitted);
}

hrx_gpu_device_t* hrx_gpu_stream_device(const hrx_gpu_stream_t* s) {
  return s->device;
}

hrx_budget_t* hrx_gpu_stream_budget(const hrx_gpu_stream_t* s) {
  return s->budget;
}

hrx_gpu_stream_sanitizer_t* hrx_gpu_stream_sanitizer(hrx_gpu_stream_t* s) {
  return &s->sanitizer;
}

static hrx_status_t hrx_gpu_check_length(hrx_gpu_view_t view,
                                         const void* data, uint64_t length) {
  if (!data || length == 0 || length != view.length) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "upload of %llu bytes into a %llu-byte view "
                           "(lengths must match and be nonzero)",
                           (unsigned long long)length,
                           (unsigned long long)view.length);
  }
  return HRX_OK;
}

hrx_status_t hrx_gpu_stream_upload(hrx_gpu_stream_t* s, hrx_gpu_view_t view,
                                   const void* data, uint64_t length) {
  HRX_RETURN_IF_ERROR(hrx_gpu_view_check(s->device, view, "upload"));
  HRX_RETURN_IF_ERROR(hrx_gpu_check_length(view, data, length));
  HRX_RETURN_IF_ERROR(hrx_gpu_stream_failure(s));
  uint8_t* direct = view.buffer->memory.host_pointer;
  if (direct && hrx_gpu_stream_idle(s)) {
    /* One copy, straight into the buffer: nothing queued can observe the
     * difference from a staged copy. */
    memcpy(direct + view.offset, data, length);
    return hrx_gpu_buffer_host_access(view.buffer, view.offset, length,
                                      HRX_FABRIC_CACHE_HOST_WRITES_DONE);
  }
  hrx_fabric_memory_t staging;
  HRX_RETURN_IF_ERROR(hrx_gpu_staging(s, length, &staging));
  memcpy(staging.host_pointer, data, length);
  hrx_gpu_command_t command;
  hrx_status_t status = hrx_gpu_command_copy(
      s->device, (hrx_gpu_view_t){view.buffer, 0, length}, view, &command);
  if (status == HRX_OK) {
    /* The source is the staging allocation, not a buffer. */
    command.packet.agent.arg[1] = staging.device_address;
    status = hrx_gpu_publish(s, &command,
                             hrx_fabric_signal_handle(s->timeline));
  }
  if (status != HRX_OK) {
    hrx_gpu_command_release(s->allocator, &command);
    hrx_gpu_staging_drop(s, length, &staging);
    return status;
  }
  s->submitted++;
  hrx_gpu_retained_t record = {.point = s->submitted, .command = command,
                               .staging = staging, .staged = length};
  status = hrx_gpu_stream_retain(s, record);
  if (status != HRX_OK) {
    hrx_status_free(hrx_gpu_stream_wait_point(s, s->submitted,
                                              HRX_TIMEOUT_INFINITE));
    hrx_gpu_command_release(s->allocator, &record.command);
    hrx_gpu_staging_drop(s, length, &record.staging);
  }
  return status;
}

hrx_status_t hrx_gpu_stream_upload_blocking(hrx_gpu_stream_t* s,
                                            hrx_gpu_view_t view,
                                            const void* data,
                                            uint64_t length) {
  HRX_RETURN_IF_ERROR(hrx_gpu_view_check(s->device, view, "upload"));
  HRX_RETURN_IF_ERROR(hrx_gpu_check_length(view, data, length));
  HRX_RETURN_IF_ERROR(hrx_gpu_stream_synchronize(s, HRX_TIMEOUT_INFINITE));
  memcpy((uint8_t*)view.buffer->memory.host_pointer + view.offset, data,
         length);
  return hrx_gpu_buffer_host_access(view.buffer, view.offset, length,
                                    HRX_FABRIC_CACHE_HOST_WRITES_DONE);
}

hrx_status_t hrx_gpu_stream_download_blocking(hrx_gpu_stream_t* s,
                                              hrx_gpu_view_t view, void* data,
                                              uint64_t length) {
  HRX_RETURN_IF_ERROR(hrx_gpu_view_check(s->device, view, "download"));
  if (!data || length == 0 || length != view.length) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "download of a %llu-byte view into %llu bytes "
                           "(lengths must match and be nonzero)",
                           (unsigned long long)view.length,
                           (unsigned long long)length);
  }
  HRX_RETURN_IF_ERROR(hrx_gpu_stream_synchronize(s, HRX_TIMEOUT_INFINITE));
  HRX_RETURN_IF_ERROR(hrx_gpu_buffer_host_access(
      view.buffer, view.offset, length, HRX_FABRIC_CACHE_HOST_READS_BEGIN));
  memcpy(data, (const uint8_t*)view.buffer->memory.host_pointer + view.offset,
         length);
  return HRX_OK;
}

hrx_status_t hrx_gpu_stream_read(hrx_gpu_stream_t* s, hrx_gpu_view_t view,
                                 hrx_gpu_readback_t** out_readback) {
  *out_readback = NULL;
  HRX_RETURN_IF_ERROR(hrx_gpu_view_check(s->device, view, "read"));
  if (view.length == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "cannot read an empty view");
  }
  HRX_RETURN_IF_ERROR(hrx_gpu_stream_failure(s));
  hrx_gpu_readback_t* r = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(s->allocator, sizeof(*r), (void**)&r));
  memset(r, 0, sizeof(*r));
  r->allocator = s->allocator;
  r->length = view.length;
  hrx_status_t status = hrx_gpu_staging(s, view.length, &r->staging);
  const uint8_t* direct = view.buffer->memory.host_pointer;
  if (status == HRX_OK && direct && hrx_gpu_stream_idle(s)) {
    /* The snapshot is taken now, by the host, in stream order. */
    status = hrx_gpu_buffer_host_access(view.buffer, view.offset, view.length,
                                        HRX_FABRIC_CACHE_HOST_READS_BEGIN);
    if (status == HRX_OK) {
      memcpy(r->staging.host_pointer, direct + view.offset, view.length);
    }
  } else if (status == HRX_OK) {
    hrx_gpu_command_t command;
    memset(&command, 0, sizeof(command));
    status = hrx_gpu_command_copy(
        s->device, view, (hrx_gpu_view_t){view.buffer, 0, view.length},
        &command);
    if (status == HRX_OK) {
      command.packet.agent.arg[0] = r->staging.device_address;
      status = hrx_gpu_stream_submit(s, &command, true);
    } else {
      hrx_gpu_command_release(s->allocator, &command);
    }
  }
  if (status != HRX_OK) {
    hrx_gpu_staging_drop(s, r->length, &r->staging);
    hrx_allocator_free(s->allocator, r);
    return status;
  }
  r->device = s->device;
  hrx_gpu_device_retain(s->device);
  r->timeline = s->timeline;
  hrx_fabric_signal_retain(s->timeline);
  r->point = s->submitted;
  r->budget = s->budget;
  hrx_budget_retain(s->budget);
  *out_readback = r;
  return HRX_OK;
}

hrx_status_t hrx_gpu_readback_wait(hrx_gpu_readback_t* r, uint64_t timeout_ns,
                                   const void** out_data,
                                   uint64_t* out_length) {
  *out_data = NULL;
  *out_length = 0;
  int64_t value = 0;
  HRX_RETURN_IF_ERROR(hrx_fabric_signal_wait(
      r->timeline, HRX_FABRIC_SIGNAL_LT, hrx_gpu_point_value(r->point) + 1,
      timeout_ns, &value));
  if (value < 0) {
    return hrx_make_status(HRX_STATUS_ABORTED,
                           "the stream faulted before this read completed");
  }
  *out_data = r->staging.host_pointer;
  *out_length = r->length;
  return HRX_OK;
}

void hrx_gpu_readback_release(hrx_gpu_readback_t* r) {
  if (!r) return;
  /* The staging area may still be written: wait for the copy first. */
  hrx_status_free(hrx_fabric_signal_wait(
      r->timeline, HRX_FABRIC_SIGNAL_LT, hrx_gpu_point_value(r->point) + 1,
      HRX_TIMEOUT_INFINITE, NULL));
  hrx_gpu_staging_release(&r->device->staging, r->device->fabric, r->budget,
                          r->length, &r->staging);
  hrx_budget_release(r->budget);
  hrx_fabric_signal_release(r->timeline);
  hrx_gpu_device_release(r->device);
  hrx_allocator_free(r->allocator, r);
}

/*===------------------------------------------------------------------===*/
/* Commands                                                                */
/*===------------------------------------------------------------------===*/

hrx_status_t hrx_gpu_stream_fill(hrx_gpu_stream_t* s, hrx_gpu_view_t view,
                                 uint32_t pattern) {
  hrx_gpu_command_t command;
  HRX_RETURN_IF_ERROR(hrx_gpu_command_fill(s->device, view, pattern, &command));
  return hrx_gpu_stream_submit(s, &command, true);
}

hrx_status_t hrx_gpu_stream_copy(hrx_gpu_stream_t* s, hrx_gpu_view_t source,
                                 hrx_gpu_view_t destination) {
  hrx_gpu_command_t command;
  HRX_RETURN_IF_ERROR(
      hrx_gpu_copy_check_overlap(s->device, source, destination));
  HRX_RETURN_IF_ERROR(
      hrx_gpu_command_copy(s->device, source, destination, &command));
  return hrx_gpu_stream_submit(s, &command, true);
}

hrx_status_t hrx_gpu_stream_dispatch(hrx_gpu_stream_t* s,
                                     const hrx_gpu_kernel_t* kernel,
                                     const hrx_gpu_launch_t* launch) {
  /* Built where it is retained: the hot path copies no command. */
  hrx_gpu_retained_t* record = NULL;
  HRX_RETURN_IF_ERROR(hrx_gpu_stream_next_record(s, &record));
  HRX_RETURN_IF_ERROR(hrx_gpu_command_dispatch(
      s->device, kernel, launch, &s->kernargs, &s->launch_memo,
      &record->command));
  hrx_status_t status = hrx_gpu_stream_publish_next(s, &record->command);
  if (status != HRX_OK) {
    hrx_gpu_command_release(s->allocator, &record->command);
    return status;
  }
  record->point = s->submitted;
  memset(&record->staging, 0, sizeof(record->staging));
  record->staged = 0;
  s->retained_count++;
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Events                                                                  */
/*===------------------------------------------------------------------===*/

hrx_status_t hrx_gpu_stream_record_event(hrx_gpu_stream_t* s,
                                         hrx_gpu_event_t** out_event) {
  *out_event = NULL;
  HRX_RETURN_IF_ERROR(hrx_gpu_stream_failure(s));
  hrx_gpu_event_t* event = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(s->allocator, sizeof(*event), (void**)&event));
  atomic_init(&event->ref_count, 1);
  event->allocator = s->allocator;
  hrx_status_t status =
      hrx_fabric_device_signal_create(s->device->fabric, 1, &event->signal);
  /* A barrier with no dependencies completes once the queue reaches it,
   * after everything queued before it. */
  hrx_gpu_command_t barrier;
  memset(&barrier, 0, sizeof(barrier));
  barrier.type = HRX_AQL_PACKET_BARRIER_AND;
  if (status == HRX_OK) {
    status = hrx_gpu_publish(s, &barrier,
                             hrx_fabric_signal_handle(event->signal));
  }
  if (status != HRX_OK) {
    hrx_fabric_signal_release(event->signal);
    hrx_allocator_free(s->allocator, event);
    return status;
  }
  event->timeline = s->timeline;
  hrx_fabric_signal_retain(s->timeline);
  event->faults = s->faults;
  hrx_gpu_fault_cell_retain(s->faults);
  *out_event = event;
  return HRX_OK;
}

hrx_status_t hrx_gpu_stream_wait_event(hrx_gpu_stream_t* s,
                                       hrx_gpu_event_t* event) {
  if (!event) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "event is NULL");
  }
  hrx_gpu_command_t barrier;
  memset(&barrier, 0, sizeof(barrier));
  barrier.type = HRX_AQL_PACKET_BARRIER_AND;
  barrier.packet.barrier.dep_signal[0] = hrx_fabric_signal_handle(event->signal);
  barrier.event = event;
  hrx_gpu_event_retain(event);
  return hrx_gpu_stream_submit(s, &barrier, true);
}

void hrx_gpu_event_retain(hrx_gpu_event_t* event) {
  if (event) atomic_fetch_add_explicit(&event->ref_count, 1,
                                       memory_order_relaxed);
}

void hrx_gpu_event_release(hrx_gpu_event_t* event) {
  if (!event || atomic_fetch_sub_explicit(&event->ref_count, 1,
                                          memory_order_acq_rel) != 1) {
    return;
  }
  /* The barrier may still be queued: it names the signal until it runs. */
  hrx_status_free(hrx_fabric_signal_wait(event->signal, HRX_FABRIC_SIGNAL_LT,
                                         1, HRX_TIMEOUT_INFINITE, NULL));
  hrx_fabric_signal_release(event->signal);
  hrx_fabric_signal_release(event->timeline);
  hrx_gpu_fault_cell_release(event->faults);
  hrx_allocator_free(event->allocator, event);
}

hrx_status_t hrx_gpu_event_wait(const hrx_gpu_event_t* event,
                                uint64_t timeout_ns) {
  HRX_RETURN_IF_ERROR(hrx_fabric_signal_wait(
      event->signal, HRX_FABRIC_SIGNAL_LT, 1, timeout_ns, NULL));
  if (hrx_fabric_signal_load(event->timeline) < 0) {
    hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
    hrx_gpu_fault_cell_read(event->faults, &fault);
    char text[512];
    hrx_fabric_fault_format(&fault, text, sizeof(text));
    return hrx_make_status(HRX_STATUS_ABORTED,
                           "work before the event faulted: %s", text);
  }
  return HRX_OK;
}

hrx_status_t hrx_gpu_event_fault(const hrx_gpu_event_t* event,
                                 hrx_fabric_fault_t* out_fault) {
  if (!event || !out_fault) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "event_fault needs an event and a report");
  }
  hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  /* A bad struct_size must not cost the report: check it first. */
  HRX_RETURN_IF_ERROR(
      HRX_STRUCT_WRITE(hrx_fabric_fault_t, detail, &fault, out_fault));
  if (!hrx_gpu_event_is_complete(event)) {
    return hrx_status_from_code(HRX_STATUS_BUSY);
  }
  if (hrx_fabric_signal_load(event->timeline) < 0) {
    hrx_gpu_fault_cell_read(event->faults, &fault);
  }
  return HRX_STRUCT_WRITE(hrx_fabric_fault_t, detail, &fault, out_fault);
}

bool hrx_gpu_event_is_complete(const hrx_gpu_event_t* event) {
  return hrx_fabric_signal_load(event->signal) < 1;
}
