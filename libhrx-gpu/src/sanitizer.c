/* Sanitizer reporting on streams: the stream's report channel, attached
 * to its timeline signal so that the host executor finds it from any
 * dispatch the stream queues (graphs and prepared commands included). */
#include <inttypes.h>
#include <string.h>

#include "gpu_internal.h"

struct hrx_gpu_sanitizer_reports_s {
  hrx_allocator_t allocator;
  size_t count;
  uint64_t dropped;
  hrx_fabric_sanitizer_report_t reports[];
};

void hrx_gpu_stream_sanitizer_reset(hrx_gpu_stream_t* stream) {
  hrx_gpu_stream_sanitizer_t* state = hrx_gpu_stream_sanitizer(stream);
  if (!state->channel) return;
  hrx_fabric_signal_set_report_channel(hrx_gpu_stream_timeline(stream), NULL);
  hrx_fabric_report_channel_release(state->channel);
  if (state->budget) {
    hrx_status_free(hrx_budget_uncharge(state->budget, state->bytes));
    hrx_budget_release(state->budget);
  }
  memset(state, 0, sizeof(*state));
}

static hrx_status_t hrx_gpu_sanitizer_check(
    const hrx_gpu_sanitizer_options_t* options) {
  if (options->struct_size != sizeof(*options)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "hrx_gpu_sanitizer_options_t.struct_size is "
                           "%" PRIu32 ", this library knows %zu",
                           options->struct_size, sizeof(*options));
  }
  if (options->reporting != HRX_GPU_SANITIZER_TRAP &&
      options->reporting != HRX_GPU_SANITIZER_REPORT) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown sanitizer reporting %d (trap or report)",
                           (int)options->reporting);
  }
  if (options->report_capacity > HRX_FABRIC_SANITIZER_MAX_CAPACITY) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a sanitizer report channel holds at most %u "
                           "reports, not %" PRIu32,
                           HRX_FABRIC_SANITIZER_MAX_CAPACITY,
                           options->report_capacity);
  }
  return HRX_OK;
}

hrx_status_t hrx_gpu_stream_set_sanitizer(
    hrx_gpu_stream_t* stream, const hrx_gpu_sanitizer_options_t* options) {
  if (!stream) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "stream is NULL");
  }
  if (options) HRX_RETURN_IF_ERROR(hrx_gpu_sanitizer_check(options));
  if (!hrx_gpu_stream_idle(stream)) {
    return hrx_make_status(HRX_STATUS_BUSY,
                           "the stream has work pending: synchronize before "
                           "changing its sanitizer reporting");
  }
  if (!options || options->reporting == HRX_GPU_SANITIZER_TRAP) {
    hrx_gpu_stream_sanitizer_reset(stream);
    return HRX_OK;
  }
  hrx_gpu_device_t* device = hrx_gpu_stream_device(stream);
  const hrx_fabric_device_properties_t* properties =
      hrx_gpu_device_properties(device);
  if (properties->kind != HRX_FABRIC_DEVICE_HOST) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "sanitizer reports are collected by the host "
                           "device's interpreter; %s traps at the first "
                           "finding", properties->name);
  }
  uint32_t capacity = options->report_capacity
                          ? options->report_capacity
                          : HRX_GPU_SANITIZER_DEFAULT_CAPACITY;
  uint64_t bytes = hrx_fabric_report_channel_footprint(capacity);
  hrx_budget_t* budget = hrx_gpu_stream_budget(stream);
  if (budget) {
    HRX_RETURN_IF_ERROR(hrx_status_annotate(
        hrx_budget_charge(budget, bytes),
        "a sanitizer report channel of %" PRIu32 " reports", capacity));
  }
  hrx_fabric_report_channel_t* channel = NULL;
  hrx_status_t status = hrx_fabric_report_channel_create(
      capacity, device->allocator, &channel);
  if (status != HRX_OK) {
    if (budget) hrx_status_free(hrx_budget_uncharge(budget, bytes));
    return status;
  }
  hrx_gpu_stream_sanitizer_reset(stream);
  hrx_fabric_signal_set_report_channel(hrx_gpu_stream_timeline(stream),
                                       channel);
  hrx_budget_retain(budget);
  *hrx_gpu_stream_sanitizer(stream) = (hrx_gpu_stream_sanitizer_t){
      .channel = channel, .budget = budget, .bytes = bytes};
  return HRX_OK;
}

hrx_status_t hrx_gpu_stream_sanitizer_reports(
    hrx_gpu_stream_t* stream, hrx_gpu_sanitizer_reports_t** out_reports) {
  if (!stream || !out_reports) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "sanitizer reports need a stream and an "
                           "out_reports");
  }
  *out_reports = NULL;
  hrx_gpu_stream_sanitizer_t* state = hrx_gpu_stream_sanitizer(stream);
  if (!state->channel) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "the stream's sanitizer reporting is trap: a "
                           "finding fails the stream instead (select "
                           "report with hrx_gpu_stream_set_sanitizer)");
  }
  if (!hrx_gpu_stream_idle(stream)) {
    return hrx_status_from_code(HRX_STATUS_BUSY);
  }
  hrx_allocator_t allocator = hrx_gpu_stream_device(stream)->allocator;
  size_t held = hrx_fabric_report_channel_count(state->channel);
  hrx_gpu_sanitizer_reports_t* reports = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(
      allocator, sizeof(*reports) + held * sizeof(reports->reports[0]),
      (void**)&reports));
  reports->allocator = allocator;
  hrx_status_t status = hrx_fabric_report_channel_drain(
      state->channel, sizeof(reports->reports[0]), reports->reports,
      &reports->count, &reports->dropped);
  if (status != HRX_OK) {
    hrx_allocator_free(allocator, reports);
    return status;
  }
  *out_reports = reports;
  return HRX_OK;
}

size_t hrx_gpu_sanitizer_reports_count(
    const hrx_gpu_sanitizer_reports_t* reports) {
  return reports ? reports->count : 0;
}

uint64_t hrx_gpu_sanitizer_reports_dropped(
    const hrx_gpu_sanitizer_reports_t* reports) {
  return reports ? reports->dropped : 0;
}

const hrx_fabric_sanitizer_report_t* hrx_gpu_sanitizer_reports_get(
    const hrx_gpu_sanitizer_reports_t* reports, size_t index) {
  return reports && index < reports->count ? &reports->reports[index] : NULL;
}

void hrx_gpu_sanitizer_reports_destroy(hrx_gpu_sanitizer_reports_t* reports) {
  if (reports) hrx_allocator_free(reports->allocator, reports);
}
