/* Register layout ops on the host ISA. A vector value is one register
 * per lane, so moving lanes is one register copy per result lane from
 * the source lane vector_layout.c maps it to (sources end to end). */
#include "host_backend_internal.h"
#include "vector_layout.h"

bool hb_lower_layout(hb_t* b, const loom_op_t* op) {
  uint32_t sources[2] = {0, 0};
  uint32_t count = loom_layout_sources(op);
  for (uint32_t i = 0; i < count; ++i) {
    if (!hb_operand(b, op, i, &sources[i])) return false;
  }
  uint32_t result = op->results_start;
  uint32_t lanes = hb_width(b, op->type2);
  uint32_t width = hb_width(b, op->type);
  if (!hb_new_vreg(b, b->uniform[result] && hb_all_scalar(b, sources, (int)count),
                   lanes, &b->vreg[result])) {
    return false;
  }
  for (uint32_t k = 0; k < lanes; ++k) {
    uint32_t lane = loom_layout_source_lane(b->m, op, k);
    uint32_t from = sources[lane / width] + lane % width;
    if (!hb_emit(b, HRX_HOST_OP_MOV, HRX_HOST_TYPE_I64, 0,
                 b->vreg[result] + k, from, LOOM_NONE, LOOM_NONE, 0)) {
      return false;
    }
  }
  return true;
}
