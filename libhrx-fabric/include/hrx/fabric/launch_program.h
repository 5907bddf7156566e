/* Launch programs: the small host program that turns a kernel's workload
 * into its launch geometry, and its serialised form.
 *
 * Compilers (libhrx-loom) lower a kernel's launch-config region into this
 * register program; runtimes evaluate it before every dispatch. Like the
 * host ISA, the format is specified here so that a runtime can evaluate a
 * launch program without linking the compiler.
 *
 * Machine: up to 1024 int64 registers; instructions run in order. Layout
 * (little-endian):
 *   "HXLP" u32 version
 *   u32 workload_count, register_count, insn_count, subgroup_size
 *   u32 max_workgroup_size, max_workgroup_count
 *   u64 max_workgroup_storage, workgroup_storage, private_storage
 *   u16 launch_regs[9]  (workgroups xyz, workgroup sizes xyz, clusters xyz)
 *   u32 symbol_length, symbol bytes
 *   insn_count x { u8 op, u16 dst, a, b, c, i64 imm }   (17 bytes each)
 *   32-byte SHA-256 of all preceding bytes
 *
 * Evaluation never wraps: a workload value above INT64_MAX, an ADD, SUB,
 * MUL or MADD that overflows int64, and an SHL that loses bits fail with
 * OUT_OF_RANGE naming the value or the expression.
 *
 * Loaded programs are immutable; evaluation is thread-safe.
 */
#ifndef HRX_FABRIC_LAUNCH_PROGRAM_H_
#define HRX_FABRIC_LAUNCH_PROGRAM_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_LAUNCH_PROGRAM_MAGIC "HXLP"
#define HRX_LAUNCH_PROGRAM_VERSION 1u
#define HRX_LAUNCH_PROGRAM_MAX_REGISTERS 1024u
#define HRX_LAUNCH_PROGRAM_MAX_INSNS 65536u
#define HRX_LAUNCH_PROGRAM_HEADER_SIZE (8 + 6 * 4 + 3 * 8 + 9 * 2 + 4)
#define HRX_LAUNCH_PROGRAM_INSN_SIZE 17

typedef enum hrx_launch_op_e {
  HRX_LAUNCH_OP_CONST = 0, /* dst = imm */
  HRX_LAUNCH_OP_ARG,       /* dst = workload[imm] */
  HRX_LAUNCH_OP_ADD,       /* checked: overflow is OUT_OF_RANGE */
  HRX_LAUNCH_OP_SUB,
  HRX_LAUNCH_OP_MUL,
  HRX_LAUNCH_OP_DIV,       /* nonnegative dividend, positive divisor */
  HRX_LAUNCH_OP_REM,
  HRX_LAUNCH_OP_MIN,
  HRX_LAUNCH_OP_MAX,
  HRX_LAUNCH_OP_MADD,      /* dst = a * b + c */
  HRX_LAUNCH_OP_AND,
  HRX_LAUNCH_OP_OR,
  HRX_LAUNCH_OP_XOR,
  HRX_LAUNCH_OP_SHL,
  HRX_LAUNCH_OP_SHRU,
  HRX_LAUNCH_OP_CMP,       /* dst = a <pred imm> b: eq ne slt sle sgt sge
                              ult ule ugt uge */
  HRX_LAUNCH_OP_SELECT,    /* dst = a ? b : c */
  HRX_LAUNCH_OP_SEXT,      /* dst = sign-extend low imm bits of a */
  HRX_LAUNCH_OP_ZEXT,      /* dst = zero-extend low imm bits of a */
  HRX_LAUNCH_OP_ASSERT,    /* fact imm over a (b, c): see below */
  HRX_LAUNCH_OP_COUNT,
} hrx_launch_op_t;

/* Facts checked by HRX_LAUNCH_OP_ASSERT: range(a, b, c) inclusive,
 * lt(a, b), le(a, b), eq(a, b), ne(a, b), mul(a, b) (a multiple of b). */
typedef enum hrx_launch_fact_e {
  HRX_LAUNCH_FACT_RANGE = 0,
  HRX_LAUNCH_FACT_LT,
  HRX_LAUNCH_FACT_LE,
  HRX_LAUNCH_FACT_EQ,
  HRX_LAUNCH_FACT_NE,
  HRX_LAUNCH_FACT_MUL,
  HRX_LAUNCH_FACT_COUNT,
} hrx_launch_fact_t;

typedef struct hrx_fabric_launch_config_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint32_t workgroup_count[3];
  uint32_t workgroup_size[3];
  uint32_t cluster_size[3];
  uint32_t subgroup_size;
  uint64_t workgroup_storage_bytes;
  uint64_t private_storage_bytes;   /* per work-item */
} hrx_fabric_launch_config_t;

typedef struct hrx_fabric_launch_program_s hrx_fabric_launch_program_t;

/* Loads a serialised program. A truncated, tampered, wrong-version or
 * internally inconsistent blob fails with DATA_LOSS, UNIMPLEMENTED or
 * INVALID_ARGUMENT; nothing in it is trusted before it is checked. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_launch_program_load(
    const uint8_t* bytes, size_t length, hrx_allocator_t allocator,
    hrx_fabric_launch_program_t** out_program);

HRX_API void hrx_fabric_launch_program_destroy(
    hrx_fabric_launch_program_t* program);

HRX_API const char* hrx_fabric_launch_program_symbol(
    const hrx_fabric_launch_program_t* program);
HRX_API size_t hrx_fabric_launch_program_workload_count(
    const hrx_fabric_launch_program_t* program);

/* Runs the program on |workload| (one raw 64-bit value per workload
 * argument: integers two's complement, floats as their bits).
 * INVALID_ARGUMENT for a wrong argument count, a violated fact, division
 * by zero or a zero size; OUT_OF_RANGE for arithmetic overflow or sizes
 * past the limits recorded in the program. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_launch_program_evaluate(
    const hrx_fabric_launch_program_t* program, const uint64_t* workload,
    size_t workload_count, hrx_fabric_launch_config_t* out_config);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_LAUNCH_PROGRAM_H_ */
