#include "hrx/fabric/fault.h"

#include <inttypes.h>
#include <stdio.h>

#include "fabric_internal.h"

const char* hrx_host_assert_name(uint32_t assertion) {
  static const char* const facts[] = {"range", "lt", "le", "eq", "ne", "mul"};
  return assertion < sizeof(facts) / sizeof(facts[0]) ? facts[assertion]
                                                      : "?";
}

const char* hrx_fabric_fault_kind_string(hrx_fabric_fault_kind_t kind) {
  switch (kind) {
    case HRX_FABRIC_FAULT_NONE: return "none";
    case HRX_FABRIC_FAULT_OUT_OF_BOUNDS: return "out-of-bounds access";
    case HRX_FABRIC_FAULT_UNBOUND_POINTER: return "unbound pointer";
    case HRX_FABRIC_FAULT_DIVIDE_BY_ZERO: return "division by zero";
    case HRX_FABRIC_FAULT_MISALIGNED: return "misaligned atomic";
    case HRX_FABRIC_FAULT_BAD_PACKET: return "malformed packet";
    case HRX_FABRIC_FAULT_BAD_LAUNCH: return "bad launch";
    case HRX_FABRIC_FAULT_BAD_TRANSFER: return "bad transfer";
    case HRX_FABRIC_FAULT_DATA_RACE: return "data race";
    case HRX_FABRIC_FAULT_ASSERTION: return "failed assertion";
    case HRX_FABRIC_FAULT_INTEGER_OVERFLOW: return "integer overflow";
    case HRX_FABRIC_FAULT_BAD_SHIFT: return "shift out of range";
    case HRX_FABRIC_FAULT_CANCELLED: return "cancelled";
    case HRX_FABRIC_FAULT_BARRIER_DIVERGENCE: return "divergent barrier";
    case HRX_FABRIC_FAULT_GPU_EXCEPTION: return "GPU exception";
  }
  return "unknown fault";
}

size_t hrx_fabric_fault_format(const hrx_fabric_fault_t* caller_fault,
                               char* buffer, size_t capacity) {
  hrx_fabric_fault_t fault;
  hrx_status_t bad =
      HRX_STRUCT_READ(hrx_fabric_fault_t, detail, caller_fault, &fault);
  int n;
  if (bad != HRX_OK) {
    n = snprintf(buffer, capacity, "unreadable fault report: %s",
                 hrx_status_message(bad));
    hrx_status_free(bad);
    return n < 0 ? 0 : (size_t)n;
  }
  const hrx_fabric_fault_t* f = &fault;
  if (f->detail[0]) {
    /* A GPU reports in its own terms, not the host executor's. */
    n = snprintf(buffer, capacity, "%s in kernel '%s': %s",
                 hrx_fabric_fault_kind_string(f->kind), f->kernel, f->detail);
  } else if (f->kind == HRX_FABRIC_FAULT_OUT_OF_BOUNDS ||
      f->kind == HRX_FABRIC_FAULT_MISALIGNED) {
    n = snprintf(buffer, capacity,
                 "%s in kernel '%s' at instruction %" PRIu32 ", lane %" PRIu32
                 ", workgroup (%" PRIu32 ", %" PRIu32 ", %" PRIu32 "): %" PRIu32
                 "-byte access at offset %" PRIu64 " of %s %" PRIu32
                 " [0x%" PRIx64 ", +%" PRIu64 " bytes)",
                 hrx_fabric_fault_kind_string(f->kind), f->kernel, f->pc,
                 f->lane, f->workgroup[0], f->workgroup[1], f->workgroup[2],
                 f->access_bytes, f->offset,
                 f->slot == 0xFFFFu ? "local memory" : "binding",
                 f->slot == 0xFFFFu ? 0u : f->slot, f->address,
                 f->allocation_size);
  } else if (f->kind == HRX_FABRIC_FAULT_DATA_RACE) {
    char other[32];
    if (f->other_work_item == 0xFFFFu) {
      snprintf(other, sizeof(other), "several work-items");
    } else {
      snprintf(other, sizeof(other), "work-item %" PRIu32,
               f->other_work_item);
    }
    n = snprintf(buffer, capacity,
                 "%s in kernel '%s', workgroup (%" PRIu32 ", %" PRIu32
                 ", %" PRIu32 "): work-item %" PRIu32 " %s %" PRIu32
                 " bytes of local memory at offset %" PRIu64
                 " (instruction %" PRIu32 ") that %s %s (instruction %" PRIu32
                 ") with no barrier between",
                 hrx_fabric_fault_kind_string(f->kind), f->kernel,
                 f->workgroup[0], f->workgroup[1], f->workgroup[2],
                 f->work_item, f->write ? "writes" : "reads", f->access_bytes,
                 f->offset, f->pc, other,
                 f->other_write ? "wrote" : "read", f->other_pc);
  } else if (f->kind == HRX_FABRIC_FAULT_ASSERTION) {
    n = snprintf(buffer, capacity,
                 "%s in kernel '%s' at instruction %" PRIu32 ", lane %" PRIu32
                 ", workgroup (%" PRIu32 ", %" PRIu32 ", %" PRIu32
                 "): index.assume fact '%s' does not hold for %" PRId64,
                 hrx_fabric_fault_kind_string(f->kind), f->kernel, f->pc,
                 f->lane, f->workgroup[0], f->workgroup[1], f->workgroup[2],
                 hrx_host_assert_name(f->assertion), f->value);
  } else if (f->kind == HRX_FABRIC_FAULT_BAD_SHIFT) {
    n = snprintf(buffer, capacity,
                 "%s in kernel '%s' at instruction %" PRIu32 ", lane %" PRIu32
                 ", workgroup (%" PRIu32 ", %" PRIu32 ", %" PRIu32
                 "): shift by %" PRId64 " bits of a %" PRIu32 "-bit value",
                 hrx_fabric_fault_kind_string(f->kind), f->kernel, f->pc,
                 f->lane, f->workgroup[0], f->workgroup[1], f->workgroup[2],
                 f->value, f->access_bytes * 8);
  } else if (f->kind == HRX_FABRIC_FAULT_BARRIER_DIVERGENCE) {
    n = snprintf(buffer, capacity,
                 "%s in kernel '%s' at instruction %" PRIu32
                 ", workgroup (%" PRIu32 ", %" PRIu32 ", %" PRIu32
                 "): work-item %" PRIu32 " of the workgroup does not reach "
                 "this barrier",
                 hrx_fabric_fault_kind_string(f->kind), f->kernel, f->pc,
                 f->workgroup[0], f->workgroup[1], f->workgroup[2],
                 f->work_item);
  } else if (f->kind == HRX_FABRIC_FAULT_CANCELLED && f->kernel[0] == '(') {
    /* Packets skipped or barriers abandoned name what they were. */
    n = snprintf(buffer, capacity, "%s %s",
                 hrx_fabric_fault_kind_string(f->kind), f->kernel);
  } else if (f->kind == HRX_FABRIC_FAULT_BAD_TRANSFER) {
    n = snprintf(buffer, capacity,
                 "%s: %" PRIu32 " bytes at 0x%" PRIx64
                 " are not inside one allocation",
                 hrx_fabric_fault_kind_string(f->kind), f->access_bytes,
                 f->address);
  } else {
    n = snprintf(buffer, capacity,
                 "%s in kernel '%s' at instruction %" PRIu32 ", lane %" PRIu32
                 ", workgroup (%" PRIu32 ", %" PRIu32 ", %" PRIu32 ")",
                 hrx_fabric_fault_kind_string(f->kind), f->kernel, f->pc,
                 f->lane, f->workgroup[0], f->workgroup[1], f->workgroup[2]);
  }
  return n < 0 ? 0 : (size_t)n;
}
