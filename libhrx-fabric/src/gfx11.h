/* A software model of a gfx11 (RDNA 3.5, wave32) compute unit: it runs the
 * code objects the amdgpu backend emits on the host, so their results can
 * be compared with the host device's without a GPU. Private to the fabric
 * and its tests.
 *
 * Memory is the host's own address space: the code, the kernel descriptor,
 * the kernarg segment and the buffers are ordinary host memory, and every
 * access the kernel makes (instruction fetch included) must fall inside one
 * of the dispatch's mapped ranges, or the wave stops with a fault. */
#ifndef HRX_FABRIC_GFX11_H_
#define HRX_FABRIC_GFX11_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core/allocator.h"
#include "hrx/core/status.h"

/* One mapped [base, base + size) range of host memory. */
typedef struct hrx_gfx11_range_t {
  uint64_t base;
  uint64_t size;
} hrx_gfx11_range_t;

typedef enum hrx_gfx11_fault_kind_t {
  HRX_GFX11_FAULT_NONE = 0,
  HRX_GFX11_FAULT_UNDECODABLE,    /* no gfx11 encoding matches the bytes */
  HRX_GFX11_FAULT_UNSUPPORTED,    /* decodes, but this model lacks it */
  HRX_GFX11_FAULT_OUT_OF_BOUNDS,  /* an access outside the mapped ranges */
  /* The wave's instruction budget ran out, the dispatch's wall-clock
   * bound passed (reason "watchdog ...") or its cancel flag was set
   * (reason "cancelled"). */
  HRX_GFX11_FAULT_BUDGET,
} hrx_gfx11_fault_kind_t;

/* Where and why a wave stopped. */
typedef struct hrx_gfx11_fault_t {
  hrx_gfx11_fault_kind_t kind;
  uint64_t pc;          /* address of the faulting instruction */
  uint8_t bytes[12];    /* its raw bytes (as many as could be read) */
  uint32_t byte_count;
  uint64_t address;     /* the bad address for OUT_OF_BOUNDS */
  uint32_t workgroup[3];
  uint32_t wave;        /* wave index inside the workgroup */
  /* The instruction at pc: its mnemonic ("v_add_f32", "v_add_f32_e64")
   * when the model knows the opcode, else "<encoding> opcode N"; empty
   * when nothing at pc decodes. */
  char mnemonic[32];
  char reason[128];
} hrx_gfx11_fault_t;

typedef struct hrx_gfx11_dispatch_t {
  /* The 64-byte kernel descriptor (in mapped memory); the code entry is
   * descriptor + its kernel_code_entry_byte_offset. */
  uint64_t kernel_descriptor;
  uint64_t kernarg;         /* kernarg segment address */
  uint32_t grid[3];         /* work-items per dimension, as in an AQL packet */
  uint32_t workgroup[3];    /* work-items per workgroup */
  const hrx_gfx11_range_t* ranges;
  size_t range_count;
  /* Private memory, as the command processor hands it out: the scratch
   * backing memory [scratch, scratch + scratch_size) (host memory, 0 and
   * 0 for none), cut into wave slots of roundup(bytes x 64, 1024), where
   * bytes is the work-item's private segment: private_segment_size (the
   * packet's) or the descriptor's fixed size, whichever is larger. A
   * kernel that enables its private segment needs the slots for one
   * workgroup's waves per worker thread; fewer threads run when there are
   * not enough, and none (INVALID_ARGUMENT) without one workgroup's. */
  uint64_t scratch;
  uint64_t scratch_size;
  uint32_t private_segment_size;
  /* Instructions one wave may execute before it faults with BUDGET, so a
   * kernel that never ends still returns. */
  uint64_t wave_instruction_budget;
  /* Worker threads the workgroups are spread over; 0 and 1 run them all
   * on the calling thread, in order. At most HRX_GFX11_MAX_THREADS. */
  uint32_t threads;
  /* Wall-clock bound of the whole dispatch in nanoseconds (0: none):
   * past it the running waves fault with BUDGET, reason "watchdog". */
  uint64_t timeout_ns;
  /* Set by another thread to stop the dispatch (NULL: none): the waves
   * poll it every few thousand instructions and fault with BUDGET,
   * reason "cancelled". */
  const _Atomic bool* cancel;
  /* When not NULL, receives the wave instructions the dispatch executed
   * (all waves, all workers), for rate measurements. */
  uint64_t* executed_instructions;
} hrx_gfx11_dispatch_t;

enum { HRX_GFX11_MAX_THREADS = 256 };

/* Runs every workgroup of |dispatch|. A wave fault stops the dispatch with
 * ABORTED naming the fault, which is also stored in |out_fault| (kind NONE
 * on success). A descriptor asking for set-up this model lacks is
 * UNIMPLEMENTED; bad sizes are INVALID_ARGUMENT.
 *
 * With |threads| > 1 the call creates that many threads less one (the
 * calling thread is the first worker) and joins them before it returns;
 * it owns them for its duration only. Each worker runs whole workgroups
 * with its own waves and LDS; global atomics are atomic across workers.
 * The first fault wins: it is the one reported, and the other workers
 * stop within a few thousand instructions. Which workgroup faults first
 * is then a matter of timing, as on hardware. */
hrx_status_t hrx_gfx11_dispatch(const hrx_gfx11_dispatch_t* dispatch,
                                hrx_allocator_t allocator,
                                hrx_gfx11_fault_t* out_fault);

/* An ET_REL amdgpu object placed in memory: its allocated sections at
 * their alignment, relocations applied. */
typedef struct hrx_gfx11_image_t hrx_gfx11_image_t;

hrx_status_t hrx_gfx11_image_load(const uint8_t* object, size_t length,
                                  hrx_allocator_t allocator,
                                  hrx_gfx11_image_t** out_image);
void hrx_gfx11_image_destroy(hrx_gfx11_image_t* image);
/* The placed image's [base, size) range, for the dispatch's range list. */
hrx_gfx11_range_t hrx_gfx11_image_range(const hrx_gfx11_image_t* image);
/* Address of kernel |name|'s descriptor ("<name>.kd"); NOT_FOUND if none. */
hrx_status_t hrx_gfx11_image_kernel(const hrx_gfx11_image_t* image,
                                    const char* name,
                                    uint64_t* out_descriptor);

#endif  // HRX_FABRIC_GFX11_H_
