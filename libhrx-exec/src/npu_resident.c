/* Resident sessions, GPU half: the ResidentStartup allocation as a runtime
 * buffer, the GPU participant as a one-dispatch graph on the compute lane,
 * and the NPU half (hrx/npu/resident.h) for the word and its rules. */
#include <stdatomic.h>
#include <unistd.h>

#include "exec_internal.h"
#include "hrx/exec/npu.h"

struct hrx_exec_npu_resident_s {
  hrx_exec_runtime_t* runtime;
  hrx_gpu_buffer_t* startup; /* one reference */
  hrx_npu_resident_t* npu;
  /* The NPU half's word lives in a buffer of its own (the host device):
   * each decision is copied into |startup| after it is published. */
  bool mirrored;
  bool submitted;
  hrx_exec_graph_t* graph;
  hrx_exec_completion_t* completion;
  hrx_npu_program_t* program; /* borrowed: the NPU participant */
  hrx_npu_invocation_t invocation;
};

static void hrx_exec_owner_release(void* context) {
  hrx_gpu_buffer_release(context);
}

/* Copies the NPU half's word into the GPU's startup allocation, with
 * release order, when the two are different memory. */
static void hrx_exec_resident_mirror(hrx_exec_npu_resident_t* s) {
  if (!s->mirrored) return;
  _Atomic uint32_t* word = hrx_gpu_buffer_host_pointer(s->startup);
  atomic_store_explicit(word, (uint32_t)hrx_npu_resident_word(s->npu),
                        memory_order_release);
}

/* The NPU half over the startup buffer itself when its device exports
 * it; over a 64-byte NPU buffer of its own, mirrored, when it cannot
 * (UNAVAILABLE: the host device). */
static hrx_status_t hrx_exec_resident_npu_half(hrx_exec_npu_resident_t* s,
                                               hrx_npu_device_t* device) {
  int fd = -1;
  hrx_status_t status = hrx_gpu_buffer_export_dmabuf(s->startup, &fd);
  if (hrx_status_is(status, HRX_STATUS_UNAVAILABLE)) {
    hrx_status_free(status);
    if (!hrx_gpu_buffer_host_pointer(s->startup)) {
      return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                             "the ResidentStartup allocation is neither "
                             "importable by the NPU nor host-visible");
    }
    s->mirrored = true;
    return hrx_npu_resident_create(device, NULL, &s->npu);
  }
  HRX_RETURN_IF_ERROR(status);
  hrx_npu_buffer_owner_t owner = {s->startup, hrx_exec_owner_release};
  hrx_npu_buffer_t* imported = NULL;
  hrx_gpu_buffer_retain(s->startup);
  status = hrx_npu_buffer_import_dmabuf(device, fd,
                                        HRX_NPU_RESIDENT_STARTUP_BYTES,
                                        &owner, &imported);
  close(fd);
  if (status != HRX_OK) {
    hrx_gpu_buffer_release(s->startup);
    return status;
  }
  status = hrx_npu_resident_create(device, imported, &s->npu);
  hrx_npu_buffer_release(imported); /* the session holds its own */
  return status;
}

hrx_status_t hrx_exec_npu_resident_create(hrx_exec_runtime_t* rt,
                                          hrx_npu_device_t* device,
                                          hrx_exec_npu_resident_t** out) {
  *out = NULL;
  if (!rt || !device) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a resident session needs a runtime and an NPU "
                           "device");
  }
  hrx_exec_npu_resident_t* s = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(rt->allocator, sizeof(*s), (void**)&s));
  s->runtime = rt;
  hrx_status_t status = hrx_exec_buffer_allocate(
      rt, HRX_NPU_RESIDENT_STARTUP_BYTES, &s->startup);
  if (status == HRX_OK) status = hrx_exec_resident_npu_half(s, device);
  if (status != HRX_OK) {
    hrx_gpu_buffer_release(s->startup);
    hrx_allocator_free(rt->allocator, s);
    return hrx_status_annotate(status, "the ResidentStartup allocation");
  }
  hrx_exec_resident_mirror(s);
  *out = s;
  return HRX_OK;
}

hrx_gpu_view_t hrx_exec_npu_resident_gpu_startup(
    const hrx_exec_npu_resident_t* s) {
  return hrx_gpu_buffer_binding(s->startup);
}

hrx_npu_buffer_t* hrx_exec_npu_resident_npu_startup(
    const hrx_exec_npu_resident_t* s) {
  return hrx_npu_resident_startup(s->npu);
}

static hrx_status_t hrx_exec_resident_submit_gpu(
    hrx_exec_npu_resident_t* s, const hrx_exec_kernel_t* kernel,
    const hrx_gpu_launch_t* launch) {
  HRX_RETURN_IF_ERROR(hrx_exec_graph_create(s->runtime, &s->graph));
  HRX_RETURN_IF_ERROR(hrx_exec_graph_dispatch(s->graph, kernel, launch, NULL));
  return hrx_exec_graph_submit(s->graph, &s->completion);
}

hrx_status_t hrx_exec_npu_resident_submit(hrx_exec_npu_resident_t* s,
                                          const hrx_exec_kernel_t* kernel,
                                          const hrx_gpu_launch_t* launch,
                                          hrx_npu_program_t* program) {
  if (s->submitted) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "the resident session's participants were "
                           "already submitted");
  }
  if (hrx_npu_resident_word(s->npu) != HRX_NPU_RESIDENT_WAIT) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "cannot submit: the resident session already "
                           "published %s",
                           hrx_npu_resident_word(s->npu) ==
                                   HRX_NPU_RESIDENT_RUN
                               ? "RUN"
                               : "ABORT");
  }
  if (!kernel || !program) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a resident session needs a GPU kernel and an "
                           "NPU program");
  }
  s->submitted = true;
  hrx_status_t status = hrx_exec_resident_submit_gpu(s, kernel, launch);
  if (status != HRX_OK) {
    hrx_npu_resident_reject(s->npu, HRX_NPU_RESIDENT_GPU);
    hrx_exec_resident_mirror(s);
    return hrx_status_annotate(status, "the resident session's GPU "
                                       "participant was rejected; ABORT "
                                       "published");
  }
  HRX_RETURN_IF_ERROR(hrx_npu_resident_accept(s->npu, HRX_NPU_RESIDENT_GPU));
  s->program = program;
  status = hrx_npu_resident_dispatch(s->npu, program, &s->invocation);
  hrx_exec_resident_mirror(s); /* ABORT when the NPU refused */
  return status;
}

hrx_status_t hrx_exec_npu_resident_run(hrx_exec_npu_resident_t* s) {
  HRX_RETURN_IF_ERROR(hrx_npu_resident_run(s->npu));
  hrx_exec_resident_mirror(s);
  return HRX_OK;
}

hrx_status_t hrx_exec_npu_resident_abort(hrx_exec_npu_resident_t* s) {
  HRX_RETURN_IF_ERROR(hrx_npu_resident_abort(s->npu));
  hrx_exec_resident_mirror(s);
  return HRX_OK;
}

hrx_npu_resident_word_t hrx_exec_npu_resident_word(
    const hrx_exec_npu_resident_t* s) {
  return hrx_npu_resident_word(s->npu);
}

hrx_status_t hrx_exec_npu_resident_wait(hrx_exec_npu_resident_t* s,
                                        uint64_t timeout_ns) {
  if (hrx_npu_resident_word(s->npu) == HRX_NPU_RESIDENT_WAIT) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "the resident session is undecided: its "
                           "participants wait for RUN or ABORT");
  }
  uint64_t deadline = hrx_deadline_after(timeout_ns);
  if (s->completion) {
    HRX_RETURN_IF_ERROR(hrx_status_annotate(
        hrx_exec_completion_wait(s->completion,
                                 hrx_deadline_remaining(deadline)),
        "the resident session's GPU participant"));
  }
  if (s->invocation.point) {
    HRX_RETURN_IF_ERROR(hrx_status_annotate(
        hrx_npu_program_wait(s->program, s->invocation,
                             hrx_deadline_remaining(deadline)),
        "the resident session's NPU participant"));
  }
  return HRX_OK;
}

void hrx_exec_npu_resident_destroy(hrx_exec_npu_resident_t* s) {
  if (!s) return;
  /* Undecided: ABORT, so that the participants end. */
  if (hrx_npu_resident_word(s->npu) == HRX_NPU_RESIDENT_WAIT) {
    hrx_status_free(hrx_npu_resident_abort(s->npu));
    hrx_exec_resident_mirror(s);
  }
  hrx_exec_completion_release(s->completion);
  hrx_exec_graph_destroy(s->graph);
  hrx_npu_resident_destroy(s->npu);
  hrx_gpu_buffer_release(s->startup);
  hrx_allocator_free(s->runtime->allocator, s);
}
