/* The host backend's lowering state and the instruction-building helpers
 * its lowering files share (private to libhrx-loom). host_backend.c lowers
 * the IR; host_math.c composes the float functions the host ISA has no
 * instruction for. */
#ifndef HRX_LOOM_HOST_BACKEND_INTERNAL_H_
#define HRX_LOOM_HOST_BACKEND_INTERNAL_H_

#include <stdbool.h>
#include <stdint.h>

#include "hrx/fabric/host_isa.h"
#include "hrx/loom/compiler.h"
#include "ir.h"

typedef struct hb_vreg_t {
  uint8_t scalar;
  uint32_t group; /* first vreg of its group (vectors span several) */
  uint32_t width; /* on the group's first vreg */
  uint32_t first, last; /* live interval in instruction positions */
  uint32_t phys;
} hb_vreg_t;

typedef struct hb_insn_t {
  hrx_host_insn_t insn; /* op, type, aux, imm; flags set from vregs */
  uint32_t dst, a, b, c; /* vreg ids or LOOM_NONE */
} hb_insn_t;

typedef struct hb_loop_t {
  uint32_t start, end;
} hb_loop_t;

typedef struct hb_t {
  const loom_module_t* m;
  const hrx_loom_specialization_t* spec;
  hrx_loom_diagnostics_t* diagnostics;
  hrx_allocator_t allocator;
  uint32_t sanitizers;   /* HRX_LOOM_SANITIZE_* */
  uint32_t kernel_flags; /* HRX_HOST_KERNEL_* for every kernel */
  hrx_status_t status;   /* allocation failure */
  bool failed;           /* a diagnostic was emitted */

  /* per module value */
  uint8_t* uniform;
  uint8_t* analyzed;   /* loop-carried values the analysis has seen */
  uint32_t* vreg;      /* first vreg of the value, or LOOM_NONE */
  uint8_t* known;      /* const_value is valid */
  int64_t* const_value;

  loom_array_t vregs;  /* hb_vreg_t */
  loom_array_t insns;  /* hb_insn_t */
  loom_array_t consts; /* uint64_t */
  loom_array_t loops;  /* hb_loop_t */

  uint32_t local_size;  /* workgroup memory so far */
  uint32_t private_size; /* private memory of each work-item so far */
  uint32_t inline_depth;
  uint32_t mask_depth;   /* divergent ifs and loops around the lowering point */
  loom_span_t kernel_span; /* of the kernel being lowered */
  uint32_t subgroup_size;  /* lanes of a wave of that kernel */
  /* func.return of the function being inlined */
  uint32_t return_values; /* first vreg per result, in a type list */
  loom_array_t return_jumps; /* insn positions to patch */
  uint32_t* return_vregs;
} hb_t;

#define HB_TRY(b, expr)                        \
  do {                                         \
    hrx_status_t hb_status_ = (expr);          \
    if (hb_status_ != HRX_OK) {                \
      if ((b)->status == HRX_OK) {             \
        (b)->status = hb_status_;              \
      } else {                                 \
        hrx_status_free(hb_status_);           \
      }                                        \
      return false;                            \
    }                                          \
  } while (0)

bool hb_error(hb_t* b, loom_span_t span, hrx_loom_diag_code_t code,
              const char* format, ...) HRX_PRINTF(4, 5);
const char* hb_op_name(const loom_op_t* op);
bool hb_is(const loom_op_t* op, const char* name);

/* Host type of a scalar Loom kind (index/offset are i64). */
uint8_t hb_host_type(loom_type_kind_t kind);
loom_type_kind_t hb_kind(const hb_t* b, loom_type_id_t type);
/* Number of registers a value of |type| takes. */
uint32_t hb_width(const hb_t* b, loom_type_id_t type);
/* Register bits of a literal as a value of |kind|. */
uint64_t hb_literal_bits(const loom_literal_t* l, loom_type_kind_t kind);

bool hb_new_vreg(hb_t* b, bool scalar, uint32_t width, uint32_t* out);
/* The position of the next instruction, and the branch target of the
 * instruction at |at|. */
uint32_t hb_pos(const hb_t* b);
void hb_patch(hb_t* b, uint32_t at, uint32_t target);
bool hb_emit(hb_t* b, uint8_t op, uint8_t type, uint8_t aux, uint32_t dst,
             uint32_t a, uint32_t bb, uint32_t c, uint32_t imm);
/* Copies |width| registers from |src| to |dst|. */
bool hb_mov(hb_t* b, uint32_t dst, uint32_t src, uint32_t width);
/* Loads constant |bits| into |dst|. */
bool hb_const(hb_t* b, uint64_t bits, uint32_t dst);
/* The register of an operand; static literals become constants. */
bool hb_operand(hb_t* b, const loom_op_t* op, uint32_t i, uint32_t* out);
bool hb_all_scalar(const hb_t* b, const uint32_t* regs, int count);
/* One lane of an elementwise op: up to three operand registers (LOOM_NONE
 * past its operands) into a new register |*out|. */
typedef bool (*hb_lane_fn)(hb_t* b, const loom_op_t* op, uint8_t type,
                           const uint32_t* operands, uint32_t* out);
/* Lowers elementwise |op| (up to three operands) lane by lane with
 * |lane|: a scalar directly, a vector into its consecutive registers. */
bool hb_lower_lanewise(hb_t* b, const loom_op_t* op, hb_lane_fn lane);
/* A new register |*out| holding one instruction's result (operands |x|,
 * |y|, |z|, LOOM_NONE where unused), in the file its operands allow:
 * scalar only when they all are. */
bool hb_emit_value(hb_t* b, uint8_t op, uint8_t type, uint8_t aux,
                   uint32_t x, uint32_t y, uint32_t z, uint32_t imm,
                   uint32_t* out);
/* A new register holding |x| <op> |y|, in the file the operands allow. */
bool hb_binary(hb_t* b, uint8_t op, uint8_t type, uint8_t aux, uint32_t x,
               uint32_t y, uint32_t* out);

/* Counts a divergent region the lowering opens on the wave's mask stack;
 * false (after a diagnostic naming |op|) when the stack is full. */
bool hb_enter_divergent(hb_t* b, const loom_op_t* op);

/* A new scalar register holding the geometry value of host op |op| (aux
 * |dim|): WORKGROUP_SIZE, SUBGROUP_ID, SUBGROUP_SIZE, ... */
bool hb_geometry(hb_t* b, uint8_t op, uint8_t dim, uint32_t* out);
/* A new register (scalar or per-lane) holding |value|. */
bool hb_constant(hb_t* b, bool scalar, uint64_t value, uint32_t* out);

/* kernel.workgroup.reduce (host_collective.c). */
bool hb_lower_workgroup_reduce(hb_t* b, const loom_op_t* op);

/* buffer.alloca<private> of |bytes| (host_private.c). */
bool hb_lower_private_alloca(hb_t* b, const loom_op_t* op, uint64_t bytes);

/* Whether host_math lowers |op| (float functions without an instruction). */
bool hb_is_math(const loom_op_t* op);
bool hb_lower_math(hb_t* b, const loom_op_t* op);

/* vector.constant/iota/from_elements/cmpi/cmpf/select/dotf/dot4i
 * (host_vector.c). */
bool hb_is_vector_build(const loom_op_t* op);
bool hb_lower_vector_build(hb_t* b, const loom_op_t* op);

/* vector.broadcast and the other lane moves of vector_layout.h
 * (host_layout.c). */
bool hb_lower_layout(hb_t* b, const loom_op_t* op);

/* vector.bitcast, the whole register reinterpreted (host_layout.c). */
bool hb_lower_vector_bitcast(hb_t* b, const loom_op_t* op);

/* The pointer to the element at |indices| (registers, one per dimension)
 * of the view that operand |view_operand| of |op| holds, linearised and
 * checked as view accesses are. */
bool hb_element_address(hb_t* b, const loom_op_t* op, uint32_t view_operand,
                        loom_type_id_t view_type, const uint32_t* indices,
                        uint32_t* out_ptr);

/* vector.fragment, .fragment.load, .fragment.store and vector.mma
 * (host_fragment.c). */
bool hb_is_fragment(const loom_op_t* op);
bool hb_lower_fragment(hb_t* b, const loom_op_t* op);

/* vector.bitfield.extract{u,s}, vector.bitunpack{u,s} (host_bits.c). */
bool hb_is_bits(const loom_op_t* op);
bool hb_lower_bits(hb_t* b, const loom_op_t* op);

/* scalar/vector negi, absi and fmai (host_ops_extra.c). */
bool hb_is_extra(const loom_op_t* op);
bool hb_lower_extra(hb_t* b, const loom_op_t* op);

/* The ops of dynamic vectors that read their run-time length
 * (host_dynvec.c); for the others only checks that each has a bound.
 * |*done| when |op| was lowered here. */
bool hb_lower_dynamic(hb_t* b, const loom_op_t* op, bool* done);

#endif /* HRX_LOOM_HOST_BACKEND_INTERNAL_H_ */
