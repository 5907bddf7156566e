/* Resident sessions, NPU half: a GPU invocation and an immutable NPU
 * invocation that start together on one word.
 *
 * The ResidentStartup allocation is 64 bytes both devices reach; its first
 * 32-bit word starts at WAIT. Each participant is submitted and accepted
 * by its queue first (the NPU program polls the word, the GPU kernel spins
 * on it); then the host decides: it release-stores RUN or ABORT into the
 * word and writes it back from the CPU caches, which the NPU does not
 * snoop. RUN needs both participants accepted (BUSY before); ABORT may
 * come at any time before RUN (a pre-start abort) and never after it. A
 * rejected submit, or destroying the session before deciding, publishes
 * ABORT, so no participant waits for ever.
 *
 * This half owns the word, the NPU participant (dispatched through
 * hrx_npu_resident_dispatch) and the decision; the GPU participant is
 * submitted by its own layer, which reports the outcome with
 * hrx_npu_resident_accept / hrx_npu_resident_reject, and runs the GPU's
 * cache-release steps for the word.
 *
 * Threads: one session is used by one thread at a time.
 */
#ifndef HRX_NPU_RESIDENT_H_
#define HRX_NPU_RESIDENT_H_

#include <stdint.h>

#include "hrx/core.h"
#include "hrx/npu/memory.h"
#include "hrx/npu/program.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_NPU_RESIDENT_STARTUP_BYTES 64u

typedef enum hrx_npu_resident_word_e {
  HRX_NPU_RESIDENT_WAIT = 0,
  HRX_NPU_RESIDENT_RUN = 1,
  HRX_NPU_RESIDENT_ABORT = 2,
} hrx_npu_resident_word_t;

typedef enum hrx_npu_resident_party_e {
  HRX_NPU_RESIDENT_NPU = 1u << 0,
  HRX_NPU_RESIDENT_GPU = 1u << 1,
} hrx_npu_resident_party_t;

typedef struct hrx_npu_resident_s hrx_npu_resident_t;

/* Creates a session whose ResidentStartup allocation is |startup| (at
 * least 64 bytes; retained), or a new 64-byte NPU buffer when NULL (an
 * imported GPU allocation serves when the GPU must reach the word too).
 * The word is set to WAIT and written back. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_resident_create(
    hrx_npu_device_t* device, hrx_npu_buffer_t* startup,
    hrx_npu_resident_t** out_session);

/* The ResidentStartup allocation, borrowed: bind it to the NPU program
 * (whose transaction polls it) before preparing that program. */
HRX_API hrx_npu_buffer_t* hrx_npu_resident_startup(
    const hrx_npu_resident_t* session);

/* Dispatches the NPU participant: once, before the decision. A dispatch
 * the driver rejects publishes ABORT and returns its error. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_resident_dispatch(
    hrx_npu_resident_t* session, hrx_npu_program_t* program,
    hrx_npu_invocation_t* out_invocation);

/* The GPU participant's layer reports its submit: accepted, or rejected
 * (which publishes ABORT). Each participant is reported once, before the
 * decision; FAILED_PRECONDITION otherwise. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_resident_accept(
    hrx_npu_resident_t* session, hrx_npu_resident_party_t party);
HRX_API void hrx_npu_resident_reject(hrx_npu_resident_t* session,
                                     hrx_npu_resident_party_t party);

/* Publishes RUN: BUSY until both participants are accepted,
 * FAILED_PRECONDITION once the session is decided. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_resident_run(
    hrx_npu_resident_t* session);
/* Publishes ABORT: any time before RUN (again is a no-op);
 * FAILED_PRECONDITION after RUN, which the participants may be acting on
 * already. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_resident_abort(
    hrx_npu_resident_t* session);

/* The word as this session last published it. */
HRX_API hrx_npu_resident_word_t hrx_npu_resident_word(
    const hrx_npu_resident_t* session);

/* Publishes ABORT if undecided, then drops the session's reference to the
 * startup allocation (a program bound to it keeps its own). NULL is
 * accepted. */
HRX_API void hrx_npu_resident_destroy(hrx_npu_resident_t* session);

#ifdef __cplusplus
}
#endif

#endif /* HRX_NPU_RESIDENT_H_ */
