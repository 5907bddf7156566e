/* Host queues: an AQL ring and the packet-processor thread that drains it.
 * The queue owns the thread: started in create, joined in destroy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_internal.h"

typedef struct hrx_host_queue_t {
  hrx_fabric_queue_t base; /* first */
  hrx_host_device_t* device;
  hrx_allocator_t allocator;
  _Atomic uint64_t read_index;
  hrx_fabric_signal_t* doorbell; /* counts publications */
  _Atomic bool shutdown;
  pthread_t processor;
  hrx_host_scratch_t scratch;    /* the processor's executor scratch */
} hrx_host_queue_t;

static uint32_t hrx_packet_word(const hrx_aql_packet_t* packet) {
  return __atomic_load_n((const uint32_t*)packet, __ATOMIC_ACQUIRE);
}

static void hrx_queue_fault(hrx_host_queue_t* q, hrx_fabric_fault_t fault,
                            uint64_t signal) {
  fault.completion_signal = signal;
  hrx_fabric_queue_record_fault(&q->base, &fault);
}

static void hrx_queue_complete(uint64_t handle, bool faulted) {
  hrx_fabric_signal_t* signal = hrx_fabric_signal_from_handle(handle);
  if (!signal) return;
  /* A waiter may release the signal as soon as it sees the new value,
   * while the wake-up still touches it: hold a reference until done. */
  hrx_fabric_signal_retain(signal);
  if (faulted) {
    hrx_fabric_signal_store(signal, HRX_FABRIC_SIGNAL_FAULTED);
  } else {
    hrx_fabric_signal_subtract(signal, 1);
  }
  hrx_fabric_signal_release(signal);
}

/* Whether the packet completing |handle| is skipped rather than run: its
 * signal was cancelled, or already reads negative because earlier work
 * completing it faulted. Skipping makes completion certain, and the
 * packet touches none of the memory its producer may free once the
 * signal reads faulted. The first cancelled packet of a signal records a
 * CANCELLED fault for it; later ones would only crowd the fault list. */
static bool hrx_queue_skip(hrx_host_queue_t* q, uint64_t handle,
                           const char* what) {
  hrx_fabric_signal_t* signal = hrx_fabric_signal_from_handle(handle);
  if (!signal) return false;
  bool faulted = hrx_fabric_signal_load(signal) < 0;
  if (!faulted && !hrx_fabric_signal_is_cancelled(signal)) return false;
  if (!faulted) {
    hrx_fabric_fault_t fault = {.kind = HRX_FABRIC_FAULT_CANCELLED};
    snprintf(fault.kernel, sizeof(fault.kernel), "%s", what);
    hrx_queue_fault(q, fault, handle);
  }
  hrx_queue_complete(handle, true);
  return true;
}

static void hrx_queue_dispatch(hrx_host_queue_t* q,
                               const hrx_aql_dispatch_packet_t* packet) {
  hrx_host_dispatch_t* dispatch = calloc(1, sizeof(*dispatch));
  hrx_fabric_fault_t bad = {.kind = HRX_FABRIC_FAULT_BAD_PACKET};
  if (!dispatch) {
    snprintf(bad.kernel, sizeof(bad.kernel), "%s", "(out of memory)");
    hrx_queue_fault(q, bad, packet->completion_signal);
    hrx_queue_complete(packet->completion_signal, true);
    return;
  }
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe =
      hrx_host_device_find_kernel(q->device, packet->kernel_object, &kernel);
  bool ok = exe != NULL;
  if (!ok) {
    snprintf(bad.kernel, sizeof(bad.kernel), "%s", "(unknown kernel object)");
    dispatch->fault = bad;
  } else {
    ok = hrx_host_dispatch_prepare(q->device, packet, kernel, dispatch);
  }
  hrx_fabric_signal_t* completion =
      hrx_fabric_signal_from_handle(packet->completion_signal);
  dispatch->cancel = completion ? &completion->cancelled : NULL;
  /* Report mode: held for the dispatch, whatever the signal's owner does
   * meanwhile. */
  dispatch->reports = completion ? atomic_load(&completion->reports) : NULL;
  hrx_fabric_report_channel_retain(dispatch->reports);
  if (ok) {
    uint64_t groups = (uint64_t)dispatch->workgroup_count[0] *
                      dispatch->workgroup_count[1] *
                      dispatch->workgroup_count[2];
    /* Native code when the kernel has it loaded (host_native_run.c), a
     * run of consecutive workgroups per job item; the interpreter, the
     * sanitizer engine, in report mode. */
    hrx_host_job_t job = {.fn = hrx_host_run_workgroup,
                          .context = dispatch,
                          .total = groups};
    if (kernel->native && !dispatch->reports) {
      job.fn = hrx_host_native_run_workgroups;
      job.total = hrx_host_native_job_items(groups);
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    hrx_host_pool_run(q->device->pool, &job, &q->scratch);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    ok = !atomic_load(&dispatch->faulted);
  }
  if (!ok) hrx_queue_fault(q, dispatch->fault, packet->completion_signal);
  hrx_fabric_executable_release(exe);
  hrx_fabric_report_channel_release(dispatch->reports);
  free(dispatch);
  hrx_queue_complete(packet->completion_signal, !ok);
}

/* True when [address, address + bytes) lies inside one allocation. */
static bool hrx_queue_range_ok(hrx_host_queue_t* q, uint64_t address,
                               uint64_t bytes) {
  hrx_host_allocation_t a;
  return bytes == 0 ||
         (hrx_host_device_resolve(q->device, address, &a) &&
          bytes <= a.size - (address - a.base));
}

static void hrx_queue_agent(hrx_host_queue_t* q,
                            const hrx_aql_agent_packet_t* packet) {
  uint64_t dst = packet->arg[0], src = packet->arg[1], bytes = packet->arg[2];
  hrx_fabric_fault_t fault = {.kind = HRX_FABRIC_FAULT_BAD_TRANSFER,
                              .access_bytes = (uint32_t)bytes};
  snprintf(fault.kernel, sizeof(fault.kernel), "%s",
           packet->type == HRX_AQL_AGENT_COPY ? "(copy)" : "(fill)");
  bool ok = false;
  if (packet->type == HRX_AQL_AGENT_COPY) {
    ok = hrx_queue_range_ok(q, dst, bytes);
    fault.address = ok ? src : dst;
    ok = ok && hrx_queue_range_ok(q, src, bytes);
    if (ok && bytes) {
      memmove((void*)(uintptr_t)dst, (const void*)(uintptr_t)src, bytes);
    }
  } else if (packet->type == HRX_AQL_AGENT_FILL) {
    fault.address = dst;
    ok = bytes % 4 == 0 && hrx_queue_range_ok(q, dst, bytes);
    uint32_t pattern = (uint32_t)src;
    uint8_t* out = (uint8_t*)(uintptr_t)dst;
    if (ok && (pattern & 0xff) * 0x01010101u == pattern) {
      memset(out, (int)(pattern & 0xff), bytes);
    } else {
      for (uint64_t i = 0; ok && i < bytes; i += 4) memcpy(out + i, &pattern, 4);
    }
  } else {
    fault.kind = HRX_FABRIC_FAULT_BAD_PACKET;
  }
  if (!ok) hrx_queue_fault(q, fault, packet->completion_signal);
  hrx_queue_complete(packet->completion_signal, !ok);
}

/* How long a queue processor polls before it sleeps, when idle or when a
 * barrier waits. Submissions and cross-queue completions often come within
 * microseconds, and waking a sleeping processor costs the other side a
 * futex wake (several microseconds on a VM) that would dominate a replay's
 * submit time. The poll yields the core at once and then every few
 * checks, so a waiter that shares the core sees a completion within a
 * microsecond rather than after the poller's turn, and it is bounded, so
 * an idle queue stops costing CPU after this long. Only as many
 * processors poll at once as leave one core free (the device's
 * poll_limit; none on one core): a poller that shares the submitter's core
 * makes its latency swing by whole time slices, and the others block. */
#define HRX_QUEUE_POLL_NS 50000u

static void hrx_queue_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#endif
}

/* Polls |ready| for up to HRX_QUEUE_POLL_NS when |device| lets one more
 * processor poll; false when it never held. */
static bool hrx_queue_poll(hrx_host_device_t* device,
                           bool (*ready)(const void*), const void* context) {
  if (atomic_fetch_add(&device->pollers, 1) >= device->poll_limit) {
    atomic_fetch_sub(&device->pollers, 1);
    return ready(context);
  }
  uint64_t until = hrx_clock_monotonic_ns() + HRX_QUEUE_POLL_NS;
  bool held = false;
  for (uint32_t i = 1;; ++i) {
    if (ready(context)) {
      held = true;
      break;
    }
    if ((i & 7) == 1) {
      if (hrx_clock_monotonic_ns() >= until) break;
      sched_yield();
    } else {
      hrx_queue_relax();
    }
  }
  atomic_fetch_sub(&device->pollers, 1);
  return held;
}

typedef struct hrx_queue_barrier_wait_t {
  const hrx_aql_barrier_packet_t* packet;
  bool any;
} hrx_queue_barrier_wait_t;

/* A dependency is met once its value drops below 1 (0, or faulted). */
static bool hrx_queue_barrier_met(const void* context) {
  const hrx_queue_barrier_wait_t* w = context;
  bool all = true, one = false, present = false;
  for (int d = 0; d < 5; ++d) {
    hrx_fabric_signal_t* dep =
        hrx_fabric_signal_from_handle(w->packet->dep_signal[d]);
    if (!dep) continue;
    present = true;
    bool met = hrx_fabric_signal_load(dep) < 1;
    all = all && met;
    one = one || met;
  }
  return !present || (w->any ? one : all);
}

/* How long a waiting barrier sleeps on one dependency before it checks
 * the others (an OR barrier) and its own cancellation again. */
#define HRX_QUEUE_BARRIER_RECHECK_NS 1000000u

static void hrx_queue_barrier(hrx_host_queue_t* q,
                              const hrx_aql_barrier_packet_t* packet,
                              bool any) {
  hrx_queue_barrier_wait_t w = {packet, any};
  if (hrx_queue_barrier_met(&w) || hrx_queue_poll(q->device, hrx_queue_barrier_met, &w)) {
    hrx_queue_complete(packet->completion_signal, false);
    return;
  }
  while (!hrx_queue_barrier_met(&w)) {
    /* A barrier waiting for work that never ends gives up when cancelled. */
    if (hrx_queue_skip(q, packet->completion_signal, "(while a barrier "
                       "packet waited)")) {
      return;
    }
    for (int d = 0; d < 5; ++d) {
      hrx_fabric_signal_t* dep =
          hrx_fabric_signal_from_handle(packet->dep_signal[d]);
      if (dep && hrx_fabric_signal_load(dep) >= 1) {
        hrx_status_free(hrx_fabric_signal_wait(dep, HRX_FABRIC_SIGNAL_LT, 1,
                                               HRX_QUEUE_BARRIER_RECHECK_NS,
                                               NULL));
        break;
      }
    }
  }
  hrx_queue_complete(packet->completion_signal, false);
}

typedef struct hrx_queue_idle_t {
  hrx_host_queue_t* queue;
  const hrx_aql_packet_t* slot;
  int64_t rung;
} hrx_queue_idle_t;

/* Work arrived: a packet at the read slot, a doorbell, or shutdown. */
static bool hrx_queue_woken(const void* context) {
  const hrx_queue_idle_t* idle = context;
  return (hrx_packet_word(idle->slot) & HRX_AQL_HEADER_TYPE_MASK) !=
             HRX_AQL_PACKET_INVALID ||
         hrx_fabric_signal_load(idle->queue->doorbell) != idle->rung ||
         atomic_load(&idle->queue->shutdown);
}

static void* hrx_queue_main(void* arg) {
  hrx_host_queue_t* q = arg;
  for (;;) {
    uint64_t index = atomic_load_explicit(&q->read_index,
                                          memory_order_relaxed);
    hrx_aql_packet_t* slot = &q->base.ring[index & (q->base.size - 1)];
    /* Read the doorbell before the header, so a publication between the
     * two still changes what we wait on. */
    int64_t rung = hrx_fabric_signal_load(q->doorbell);
    uint32_t word = hrx_packet_word(slot);
    uint32_t type = word & HRX_AQL_HEADER_TYPE_MASK;
    if (type == HRX_AQL_PACKET_INVALID) {
      if (atomic_load(&q->shutdown)) break;
      hrx_queue_idle_t idle = {q, slot, rung};
      if (hrx_queue_poll(q->device, hrx_queue_woken, &idle)) continue;
      hrx_status_free(hrx_fabric_signal_wait(
          q->doorbell, HRX_FABRIC_SIGNAL_NE, rung, HRX_TIMEOUT_INFINITE,
          NULL));
      continue;
    }
    hrx_aql_packet_t packet;
    memcpy(&packet, slot, sizeof(packet));
    if (hrx_queue_skip(q, packet.dispatch.completion_signal,
                       "(before the packet started)")) {
      type = HRX_AQL_PACKET_INVALID; /* done: only release the slot */
    }
    switch (type) {
      case HRX_AQL_PACKET_INVALID:
        break;
      case HRX_AQL_PACKET_KERNEL_DISPATCH:
        hrx_queue_dispatch(q, &packet.dispatch);
        break;
      case HRX_AQL_PACKET_AGENT:
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        hrx_queue_agent(q, &packet.agent);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        break;
      case HRX_AQL_PACKET_BARRIER_AND:
      case HRX_AQL_PACKET_BARRIER_OR:
        hrx_queue_barrier(q, &packet.barrier,
                          type == HRX_AQL_PACKET_BARRIER_OR);
        break;
      default: {
        hrx_fabric_fault_t fault = {.kind = HRX_FABRIC_FAULT_BAD_PACKET};
        snprintf(fault.kernel, sizeof(fault.kernel), "(packet type %u)",
                 type);
        hrx_queue_fault(q, fault, packet.dispatch.completion_signal);
        hrx_queue_complete(packet.dispatch.completion_signal, true);
      }
    }
    /* Release the slot: INVALID again, then advance the read index. */
    __atomic_store_n((uint32_t*)slot, HRX_AQL_PACKET_INVALID,
                     __ATOMIC_RELEASE);
    atomic_store_explicit(&q->read_index, index + 1, memory_order_release);
  }
  return NULL;
}

static void hrx_host_queue_ring(hrx_fabric_queue_t* base) {
  hrx_fabric_signal_add(((hrx_host_queue_t*)base)->doorbell, 1);
}

static void hrx_host_queue_destroy(hrx_fabric_queue_t* base) {
  hrx_host_queue_t* q = (hrx_host_queue_t*)base;
  atomic_store(&q->shutdown, true);
  hrx_fabric_signal_add(q->doorbell, 1);
  pthread_join(q->processor, NULL);
  hrx_host_scratch_free(&q->scratch);
  hrx_fabric_signal_release(q->doorbell);
  free(q->base.ring);
  hrx_fabric_queue_deinit(&q->base);
  hrx_allocator_free(q->allocator, q);
}

static const hrx_fabric_queue_vtable_t hrx_host_queue_vtable = {
    .destroy = hrx_host_queue_destroy,
    .ring = hrx_host_queue_ring,
};

hrx_status_t hrx_host_queue_create(hrx_fabric_device_t* base,
                                   uint32_t packet_count,
                                   uint64_t maximum_private_bytes,
                                   hrx_fabric_queue_t** out_queue) {
  hrx_allocator_t a = base->allocator;
  hrx_host_queue_t* q = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(a, sizeof(*q), (void**)&q));
  memset(q, 0, sizeof(*q));
  q->allocator = a;
  q->device = hrx_host_device_cast(base);
  hrx_aql_packet_t* ring = NULL;
  if (posix_memalign((void**)&ring, 64,
                     (size_t)packet_count * sizeof(hrx_aql_packet_t)) != 0) {
    hrx_allocator_free(a, q);
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "no memory for a %u-packet ring", packet_count);
  }
  atomic_init(&q->read_index, 0);
  hrx_fabric_queue_init(&q->base, &hrx_host_queue_vtable, base, ring,
                        packet_count, &q->read_index);
  /* Workers carry their own private memory (hrx_host_scratch_t): any
   * amount is served, whatever was asked for. */
  (void)maximum_private_bytes;
  q->base.private_bytes = HRX_FABRIC_PRIVATE_UNLIMITED;
  hrx_status_t status = hrx_fabric_signal_create(0, a, &q->doorbell);
  if (status == HRX_OK) {
    int error = pthread_create(&q->processor, NULL, hrx_queue_main, q);
    if (error) status = hrx_status_from_errno(error, "cannot start the "
                                              "packet processor");
  }
  if (status != HRX_OK) {
    hrx_fabric_signal_release(q->doorbell);
    free(ring);
    hrx_fabric_queue_deinit(&q->base);
    hrx_allocator_free(a, q);
    return status;
  }
  *out_queue = &q->base;
  return HRX_OK;
}
