/* Sanitizer report channels: a fixed array of reports that the host
 * executor's workers fill without locks (a slot claimed by one atomic
 * increment, findings past the capacity only counted), drained once the
 * work is done. */
#include "hrx/fabric/sanitizer.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fabric_internal.h"

struct hrx_fabric_report_channel_s {
  atomic_uint_fast32_t ref_count;
  hrx_allocator_t allocator;
  uint32_t capacity;
  /* Findings since the last drain: the first |capacity| hold a slot. */
  _Atomic uint64_t findings;
  hrx_fabric_sanitizer_report_t reports[];
};

uint64_t hrx_fabric_report_channel_footprint(uint32_t capacity) {
  return sizeof(hrx_fabric_report_channel_t) +
         (uint64_t)capacity * sizeof(hrx_fabric_sanitizer_report_t);
}

hrx_status_t hrx_fabric_report_channel_create(
    uint32_t capacity, hrx_allocator_t allocator,
    hrx_fabric_report_channel_t** out_channel) {
  *out_channel = NULL;
  if (capacity == 0 || capacity > HRX_FABRIC_SANITIZER_MAX_CAPACITY) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a sanitizer report channel holds 1 to %u "
                           "reports, not %" PRIu32,
                           HRX_FABRIC_SANITIZER_MAX_CAPACITY, capacity);
  }
  hrx_fabric_report_channel_t* channel = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(
      allocator, (size_t)hrx_fabric_report_channel_footprint(capacity),
      (void**)&channel));
  atomic_init(&channel->ref_count, 1);
  channel->allocator = allocator;
  channel->capacity = capacity;
  atomic_init(&channel->findings, 0);
  *out_channel = channel;
  return HRX_OK;
}

void hrx_fabric_report_channel_retain(hrx_fabric_report_channel_t* channel) {
  if (channel) {
    atomic_fetch_add_explicit(&channel->ref_count, 1, memory_order_relaxed);
  }
}

void hrx_fabric_report_channel_release(hrx_fabric_report_channel_t* channel) {
  if (channel && atomic_fetch_sub_explicit(&channel->ref_count, 1,
                                           memory_order_acq_rel) == 1) {
    hrx_allocator_free(channel->allocator, channel);
  }
}

uint32_t hrx_fabric_report_channel_capacity(
    const hrx_fabric_report_channel_t* channel) {
  return channel->capacity;
}

void hrx_fabric_report_channel_push(
    hrx_fabric_report_channel_t* channel,
    const hrx_fabric_sanitizer_report_t* report) {
  uint64_t slot =
      atomic_fetch_add_explicit(&channel->findings, 1, memory_order_relaxed);
  if (slot < channel->capacity) channel->reports[slot] = *report;
}

size_t hrx_fabric_report_channel_count(
    const hrx_fabric_report_channel_t* channel) {
  uint64_t findings = atomic_load(&channel->findings);
  return findings < channel->capacity ? (size_t)findings : channel->capacity;
}

hrx_status_t hrx_fabric_report_channel_drain(
    hrx_fabric_report_channel_t* channel, size_t report_size,
    hrx_fabric_sanitizer_report_t* out_reports, size_t* out_count,
    uint64_t* out_dropped) {
  *out_count = 0;
  *out_dropped = 0;
  size_t first = HRX_STRUCT_SIZE_THROUGH(hrx_fabric_sanitizer_report_t, value);
  /* Checked before anything leaves the channel: a refused drain loses no
   * report. */
  if (report_size < first || report_size > UINT32_MAX) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "report size %zu is not a "
                           "hrx_fabric_sanitizer_report_t (at least %zu)",
                           report_size, first);
  }
  /* The completion the caller waited for ordered the workers' writes
   * before this load. */
  size_t count = hrx_fabric_report_channel_count(channel);
  uint64_t findings = atomic_exchange(&channel->findings, 0);
  for (size_t i = 0; i < count; ++i) {
    hrx_fabric_sanitizer_report_t* out =
        (hrx_fabric_sanitizer_report_t*)((char*)out_reports +
                                         i * report_size);
    out->struct_size = (uint32_t)report_size;
    HRX_RETURN_IF_ERROR(HRX_STRUCT_WRITE(hrx_fabric_sanitizer_report_t,
                                         value, &channel->reports[i], out));
  }
  *out_count = count;
  *out_dropped = findings - count;
  return HRX_OK;
}

void hrx_fabric_signal_set_report_channel(
    hrx_fabric_signal_t* signal, hrx_fabric_report_channel_t* channel) {
  hrx_fabric_report_channel_retain(channel);
  hrx_fabric_report_channel_release(atomic_exchange(&signal->reports,
                                                    channel));
}

/*===------------------------------------------------------------------===*/
/* Formatting                                                              */
/*===------------------------------------------------------------------===*/

/* "work-item 5 (5, 0, 0)", or "several work-items". */
static void hrx_work_item_text(const hrx_fabric_sanitizer_access_t* a,
                               char* text, size_t capacity) {
  if (a->work_item == HRX_FABRIC_SANITIZER_SEVERAL) {
    snprintf(text, capacity, "several work-items");
  } else {
    snprintf(text, capacity,
             "work-item %" PRIu32 " (%" PRIu32 ", %" PRIu32 ", %" PRIu32 ")",
             a->work_item, a->work_item_id[0], a->work_item_id[1],
             a->work_item_id[2]);
  }
}

/* "binding 1", "local memory", "private memory". */
static const char* hrx_slot_text(uint32_t slot, char* text, size_t capacity) {
  if (slot == HRX_FABRIC_SANITIZER_SLOT_LOCAL) return "local memory";
  if (slot == HRX_FABRIC_SANITIZER_SLOT_PRIVATE) return "private memory";
  snprintf(text, capacity, "binding %" PRIu32, slot);
  return text;
}

size_t hrx_fabric_sanitizer_report_format(
    const hrx_fabric_sanitizer_report_t* r, char* buffer, size_t capacity) {
  char who[64], other[64], slot[32];
  hrx_work_item_text(&r->access, who, sizeof(who));
  hrx_work_item_text(&r->other, other, sizeof(other));
  const char* where = hrx_slot_text(r->slot, slot, sizeof(slot));
  int n = snprintf(buffer, capacity,
                   "%s in kernel '%s', workgroup (%" PRIu32 ", %" PRIu32
                   ", %" PRIu32 "), %s at instruction %" PRIu32,
                   hrx_fabric_fault_kind_string(r->kind), r->kernel,
                   r->workgroup[0], r->workgroup[1], r->workgroup[2], who,
                   r->access.pc);
  size_t used = n < 0 ? 0 : (size_t)n;
  char* at = used < capacity ? buffer + used : NULL;
  size_t left = used < capacity ? capacity - used : 0;
  switch (r->kind) {
    case HRX_FABRIC_FAULT_OUT_OF_BOUNDS:
    case HRX_FABRIC_FAULT_UNBOUND_POINTER:
    case HRX_FABRIC_FAULT_MISALIGNED:
      n = snprintf(at, left,
                   ": %" PRIu32 "-byte %s at offset %" PRIu64 " of %s"
                   " (address 0x%" PRIx64 ", %" PRIu64 " bytes long)",
                   r->access.bytes, r->access.write ? "write" : "read",
                   r->offset, where, r->address, r->allocation_size);
      break;
    case HRX_FABRIC_FAULT_DATA_RACE:
      n = snprintf(at, left,
                   ": %" PRIu32 "-byte %s of %s at offset %" PRIu64
                   " races with a %" PRIu32 "-byte %s by %s at instruction "
                   "%" PRIu32 " with no barrier between",
                   r->access.bytes, r->access.write ? "write" : "read",
                   where, r->offset, r->other.bytes,
                   r->other.write ? "write" : "read", other, r->other.pc);
      break;
    case HRX_FABRIC_FAULT_ASSERTION:
      n = snprintf(at, left, ": index.assume fact '%s' does not hold for "
                   "%" PRId64, hrx_host_assert_name(r->assertion), r->value);
      break;
    case HRX_FABRIC_FAULT_BAD_SHIFT:
      n = snprintf(at, left, ": shift by %" PRId64 " bits of a %" PRIu32
                   "-bit value", r->value, r->access.bytes * 8);
      break;
    case HRX_FABRIC_FAULT_BARRIER_DIVERGENCE:
      n = snprintf(at, left, ": the work-item does not reach this barrier");
      break;
    default:
      n = 0;
      break;
  }
  return used + (n < 0 ? 0 : (size_t)n);
}
