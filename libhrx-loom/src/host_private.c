/* Private memory on the host backend. The host device gives a workgroup
 * private_segment_size bytes for each of its work-items in one region
 * (HRX_HOST_SLOT_PRIVATE), laid out alloca by alloca: the allocation
 * starting at per-item offset s, of size z, takes bytes [s * T, (s + z) * T)
 * of the region for a workgroup of T work-items, z for each, in flat
 * work-item order. Loads and stores are checked against the region; one
 * work-item overrunning its part reaches its neighbour's, as on a GPU
 * whose scratch is one allocation.
 */
#include "host_backend_internal.h"

/* Most private bytes a work-item may have on the host device, so a
 * workgroup of 1024 needs at most 64 MiB. */
#define HB_PRIVATE_LIMIT (64u << 10)

bool hb_lower_private_alloca(hb_t* b, const loom_op_t* op, uint64_t bytes) {
  uint64_t align = op->attrs[LOOM_ATTR_ALIGN] > 0
                       ? (uint64_t)op->attrs[LOOM_ATTR_ALIGN] : 16;
  uint64_t start = ((uint64_t)b->private_size + align - 1) & ~(align - 1);
  uint64_t size = (bytes + align - 1) & ~(align - 1);
  if (size < bytes || start + size > HB_PRIVATE_LIMIT) {
    return hb_error(b, op->span, HRX_LOOM_DIAG_BACKEND_LIMIT,
                    "private memory exceeds %u bytes per work-item on the "
                    "host backend", HB_PRIVATE_LIMIT);
  }
  b->private_size = (uint32_t)(start + size);
  uint32_t dims[3], items = 0, region = 0, wave = 0, lanes = 0, lane = 0;
  uint32_t item = 0;
  for (uint8_t d = 0; d < 3; ++d) {
    if (!hb_geometry(b, HRX_HOST_OP_WORKGROUP_SIZE, d, &dims[d])) return false;
  }
  if (!hb_binary(b, HRX_HOST_OP_IMUL, HRX_HOST_TYPE_I64, 0, dims[0], dims[1],
                 &items) ||
      !hb_binary(b, HRX_HOST_OP_IMUL, HRX_HOST_TYPE_I64, 0, items, dims[2],
                 &items) ||
      !hb_constant(b, true,
                   (uint64_t)HRX_HOST_SLOT_PRIVATE << HRX_HOST_PTR_SHIFT,
                   &region)) {
    return false;
  }
  if (start) {
    uint32_t shifted = 0;
    if (!hb_new_vreg(b, true, 1, &shifted) ||
        !hb_emit(b, HRX_HOST_OP_PTR_ADD, HRX_HOST_TYPE_I64, 0, shifted,
                 region, items, LOOM_NONE, (uint32_t)start)) {
      return false;
    }
    region = shifted;
  }
  if (!hb_geometry(b, HRX_HOST_OP_SUBGROUP_ID, 0, &wave) ||
      !hb_geometry(b, HRX_HOST_OP_SUBGROUP_SIZE, 0, &lanes) ||
      !hb_new_vreg(b, false, 1, &lane) ||
      !hb_emit(b, HRX_HOST_OP_LANE_ID, HRX_HOST_TYPE_I64, 0, lane, LOOM_NONE,
               LOOM_NONE, LOOM_NONE, 0) ||
      !hb_new_vreg(b, false, 1, &item) ||
      !hb_emit(b, HRX_HOST_OP_IMADD, HRX_HOST_TYPE_I64, 0, item, wave, lanes,
               lane, 0) ||
      !hb_new_vreg(b, false, 1, &b->vreg[op->results_start])) {
    return false;
  }
  /* An empty allocation is the region's own address in every work-item. */
  if (!size) {
    return hb_emit(b, HRX_HOST_OP_MOV, HRX_HOST_TYPE_I64, 0,
                   b->vreg[op->results_start], region, LOOM_NONE, LOOM_NONE,
                   0);
  }
  return hb_emit(b, HRX_HOST_OP_PTR_ADD, HRX_HOST_TYPE_I64, 0,
                 b->vreg[op->results_start], region, item, LOOM_NONE,
                 (uint32_t)size);
}
