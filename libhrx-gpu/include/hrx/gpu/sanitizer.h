/* Sanitizer reporting on a stream: trap at the first finding, or collect
 * reports while kernels keep running.
 *
 * Which checks run is decided when a kernel is compiled (Loom's
 * sanitizers: hrx/loom/compiler.h); the host device always checks every
 * access against its allocation. How findings surface is decided per
 * stream:
 *
 *   TRAP (the default): the first finding stops its dispatch and fails
 *   the stream with the fault report (ABORTED), as any fault does.
 *
 *   REPORT: every finding of the stream's dispatches becomes a report in
 *   the stream's bounded report channel and the kernel goes on (the
 *   offending lane's access skipped, a checked operation keeping its
 *   unchecked result: hrx/fabric/sanitizer.h says exactly what happens);
 *   the stream does not fail. Findings past the channel's capacity are
 *   counted as dropped. hrx_gpu_stream_sanitizer_reports drains the
 *   channel once the stream's work has completed.
 *
 * The channel belongs to the stream (not to the device queue it shares
 * with other streams), so reports never mix streams. Its memory is one
 * allocation made when REPORT is selected, charged to the stream's memory
 * budget (hrx_gpu_stream_set_memory_budget) of that moment until TRAP is
 * selected again or the stream is destroyed. Only the host device, whose
 * interpreter is the sanitizer engine, collects reports: other devices
 * always trap.
 *
 * Threads: like every stream call, these are for the stream's owner
 * thread. The drained reports belong to the caller, who may use them from
 * any thread and frees them with hrx_gpu_sanitizer_reports_destroy.
 */
#ifndef HRX_GPU_SANITIZER_H_
#define HRX_GPU_SANITIZER_H_

#include "hrx/fabric/sanitizer.h"
#include "hrx/gpu/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hrx_gpu_sanitizer_reporting_e {
  HRX_GPU_SANITIZER_TRAP = 0,
  HRX_GPU_SANITIZER_REPORT = 1,
} hrx_gpu_sanitizer_reporting_t;

/* The channel capacity a REPORT stream gets when it asks for 0. */
#define HRX_GPU_SANITIZER_DEFAULT_CAPACITY 256u

typedef struct hrx_gpu_sanitizer_options_t {
  /* sizeof(hrx_gpu_sanitizer_options_t): 0 and sizes this library does
   * not know are INVALID_ARGUMENT. */
  uint32_t struct_size;
  hrx_gpu_sanitizer_reporting_t reporting;
  /* REPORT: reports the channel holds between drains (0: the default,
   * at most HRX_FABRIC_SANITIZER_MAX_CAPACITY). */
  uint32_t report_capacity;
} hrx_gpu_sanitizer_options_t;

/* Selects how the stream's later dispatches surface findings; NULL
 * |options| is TRAP. A new REPORT channel starts empty (reports not yet
 * drained from the old one are discarded). BUSY while the stream has
 * work pending (synchronize first); INVALID_ARGUMENT for bad options;
 * UNAVAILABLE for REPORT on a device other than the host;
 * RESOURCE_EXHAUSTED when the channel does not fit the stream's budget
 * (the reporting then stays as it was). */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_set_sanitizer(
    hrx_gpu_stream_t* stream, const hrx_gpu_sanitizer_options_t* options);

/* Reports drained from a stream: owned by the caller. */
typedef struct hrx_gpu_sanitizer_reports_s hrx_gpu_sanitizer_reports_t;

/* Takes every report the stream's channel holds, oldest first, with the
 * count of findings dropped since the last drain, and empties the
 * channel: a second drain finds none. BUSY (hrx_status_from_code, never
 * allocating: cheap to poll) while the stream has work pending;
 * FAILED_PRECONDITION when the stream traps. A stream that failed for
 * another reason still gives the reports collected before. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_stream_sanitizer_reports(
    hrx_gpu_stream_t* stream, hrx_gpu_sanitizer_reports_t** out_reports);

HRX_API size_t hrx_gpu_sanitizer_reports_count(
    const hrx_gpu_sanitizer_reports_t* reports);
/* Findings that found the channel full. */
HRX_API uint64_t hrx_gpu_sanitizer_reports_dropped(
    const hrx_gpu_sanitizer_reports_t* reports);
/* Report |index| (borrowed from |reports|), NULL past the count. */
HRX_API const hrx_fabric_sanitizer_report_t* hrx_gpu_sanitizer_reports_get(
    const hrx_gpu_sanitizer_reports_t* reports, size_t index);
HRX_API void hrx_gpu_sanitizer_reports_destroy(
    hrx_gpu_sanitizer_reports_t* reports);

#ifdef __cplusplus
}
#endif

#endif /* HRX_GPU_SANITIZER_H_ */
