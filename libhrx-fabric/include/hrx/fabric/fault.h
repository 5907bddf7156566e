/* Fault reports: why a dispatch stopped. */
#ifndef HRX_FABRIC_FAULT_H_
#define HRX_FABRIC_FAULT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hrx_fabric_fault_kind_e {
  HRX_FABRIC_FAULT_NONE = 0,
  HRX_FABRIC_FAULT_OUT_OF_BOUNDS,   /* access outside its allocation */
  HRX_FABRIC_FAULT_UNBOUND_POINTER, /* buffer argument in no allocation */
  HRX_FABRIC_FAULT_DIVIDE_BY_ZERO,
  HRX_FABRIC_FAULT_MISALIGNED,      /* atomic not aligned to its size */
  HRX_FABRIC_FAULT_BAD_PACKET,      /* malformed AQL packet */
  HRX_FABRIC_FAULT_BAD_LAUNCH,      /* geometry the kernel cannot run */
  HRX_FABRIC_FAULT_BAD_TRANSFER,    /* copy/fill outside its allocations */
  HRX_FABRIC_FAULT_DATA_RACE,       /* unsynchronised local accesses */
  HRX_FABRIC_FAULT_ASSERTION,       /* a sanitizer check failed */
  HRX_FABRIC_FAULT_INTEGER_OVERFLOW, /* checked arithmetic overflowed */
  HRX_FABRIC_FAULT_BAD_SHIFT,       /* checked shift by >= the width */
  /* The packet's completion signal was cancelled (hrx_fabric_signal_cancel):
   * a dispatch stopped at a loop back-edge or barrier, or a packet was
   * skipped before it started (pc and workgroup then 0). */
  HRX_FABRIC_FAULT_CANCELLED,
  /* Race sanitizer: a workgroup barrier that not every work-item reaches
   * (reached under a partial execution mask, or while other waves of the
   * workgroup finished or wait at another barrier); |work_item| is one
   * that does not reach it. */
  HRX_FABRIC_FAULT_BARRIER_DIVERGENCE,
  /* A GPU wave stopped on an exception other than a memory fault (an
   * illegal instruction, a watchdog); |detail| says what the GPU or the
   * KFD model reported. */
  HRX_FABRIC_FAULT_GPU_EXCEPTION,
} hrx_fabric_fault_kind_t;

typedef struct hrx_fabric_fault_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  hrx_fabric_fault_kind_t kind;
  char kernel[64];
  uint32_t pc;            /* instruction index */
  uint32_t lane;
  uint32_t workgroup[3];
  uint32_t slot;          /* binding index, or 0xFFFF for local memory */
  uint64_t offset;        /* byte offset of the access in its slot */
  uint32_t access_bytes;
  uint64_t allocation_size; /* extent of the slot */
  uint64_t address;       /* host address of the bound allocation start */
  uint64_t completion_signal; /* of the faulting packet (0 = none) */
  /* DATA_RACE: this access and the earlier one it conflicts with, by
   * flat work-item id in the workgroup (0xFFFF: several readers). */
  uint32_t work_item;
  bool write;
  uint32_t other_pc;
  uint32_t other_work_item;
  bool other_write;
  /* ASSERTION: what was checked (hrx_host_assert_t) and the value;
   * BAD_SHIFT: the amount. */
  uint32_t assertion;
  int64_t value;
  /* A GPU's own account, when it gives one (the kfd provider: the queue
   * error, and with the KFD model the wave, pc and instruction); the
   * fields above that a GPU does not report stay 0. */
  char detail[160];
} hrx_fabric_fault_t;

HRX_API const char* hrx_fabric_fault_kind_string(hrx_fabric_fault_kind_t kind);

/* One-line description, snprintf semantics. */
HRX_API size_t hrx_fabric_fault_format(const hrx_fabric_fault_t* fault,
                                       char* buffer, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_FAULT_H_ */
