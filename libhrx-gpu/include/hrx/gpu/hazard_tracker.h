/* Byte-range hazard tracking: which earlier nodes a new access must follow.
 *
 * Per resource (a buffer, named by any 64-bit id) the tracker keeps the
 * resource's touched bytes as ordered, disjoint segments, each with its
 * last writer and the readers since that write. An access of [begin, end)
 * by a node depends on:
 *   - a read: the writer of every segment it covers (read after write);
 *   - a write or read-write: every reader since the last write (write after
 *     read), or the writer itself where nobody read in between (write after
 *     write). Readers already follow the writer, so naming both would only
 *     add an implied edge.
 * That is the frontier of the access: no node whose bytes do not conflict,
 * at most one edge per conflicting segment. Edges implied through other
 * nodes of different segments are not removed here (callers that promise a
 * transitively reduced graph do that).
 *
 * Cost: O(log s + k) per access, for s segments of the resource and k
 * segments the range covers; a write collapses the k segments it covers
 * into one, so repeated writes keep s small.
 *
 * A tracker is not thread-safe. After an allocation failure the recorded
 * state is incomplete: every later call fails with FAILED_PRECONDITION
 * until hrx_gpu_hazard_tracker_reset.
 */
#ifndef HRX_GPU_HAZARD_TRACKER_H_
#define HRX_GPU_HAZARD_TRACKER_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/gpu/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_gpu_hazard_tracker_s hrx_gpu_hazard_tracker_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_hazard_tracker_create(
    hrx_allocator_t allocator, hrx_gpu_hazard_tracker_t** out_tracker);
HRX_API void hrx_gpu_hazard_tracker_destroy(hrx_gpu_hazard_tracker_t* tracker);

/* Forgets every access (and a failed state). */
HRX_API void hrx_gpu_hazard_tracker_reset(hrx_gpu_hazard_tracker_t* tracker);

/* Records that |node| accesses [begin, end) of |resource| (UINT64_MAX is
 * reserved) and collects the nodes it must follow. A node's accesses are
 * recorded together; the first access of another node starts a new
 * collection. Node ids only grow. An empty range is ignored. */
HRX_API HRX_MUST_USE hrx_status_t hrx_gpu_hazard_tracker_access(
    hrx_gpu_hazard_tracker_t* tracker, uint32_t node, uint64_t resource,
    uint64_t begin, uint64_t end, hrx_gpu_access_t access);

/* The nodes collected for the current node: sorted, unique, never the node
 * itself. Borrowed until the next access of another node or a reset. */
HRX_API const uint32_t* hrx_gpu_hazard_tracker_deps(
    hrx_gpu_hazard_tracker_t* tracker, size_t* out_count);

/* Segments currently held over all resources (for tests and benchmarks). */
HRX_API size_t hrx_gpu_hazard_tracker_segment_count(
    const hrx_gpu_hazard_tracker_t* tracker);

#ifdef __cplusplus
}
#endif

#endif /* HRX_GPU_HAZARD_TRACKER_H_ */
