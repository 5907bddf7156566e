/* PlanCache: plans prepared once per key and kept, within a capacity,
 * while they are in use or recently used.
 *
 * A plan is whatever the caller's prepare callback builds for a key (a
 * recorded graph, a compiled kernel, a prepared model for one shape). Pin
 * a key to use its plan: the first pin prepares it, later pins share it.
 * A pinned plan is never evicted; when a new key needs room, the least
 * recently used idle (unpinned) plan is destroyed; when every entry is
 * pinned or being prepared, the pin is BUSY and nothing is prepared. A
 * failed prepare is not cached: the next pin of that key tries again.
 *
 * Threads. Every function may be called from any thread. The callbacks run
 * on the pinning thread without the cache's lock: prepares of different
 * keys run concurrently, and a pin of a key being prepared waits for that
 * prepare instead of starting another. A callback must not pin or unpin on
 * its own cache. The cache starts no threads.
 */
#ifndef HRX_MODEL_PLAN_CACHE_H_
#define HRX_MODEL_PLAN_CACHE_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_model_plan_cache_s hrx_model_plan_cache_t;

/* Builds the plan for |key| into |out_plan| (any value, NULL included). */
typedef hrx_status_t (*hrx_model_plan_prepare_fn)(void* user, uint64_t key,
                                                  void** out_plan);
/* Frees a plan |prepare| built; it is no longer pinned. */
typedef void (*hrx_model_plan_destroy_fn)(void* user, void* plan);

typedef struct hrx_model_plan_cache_options_t {
  size_t capacity; /* plans kept at once, pinned or idle (> 0) */
  hrx_model_plan_prepare_fn prepare; /* required */
  hrx_model_plan_destroy_fn destroy; /* NULL: plans need no freeing */
  void* user;                        /* passed to both */
} hrx_model_plan_cache_options_t;

typedef struct hrx_model_plan_cache_stats_t {
  size_t entries;     /* plans held (or being prepared) now */
  size_t pinned;      /* of those, pinned now */
  uint64_t prepares;  /* successful prepare calls */
  uint64_t hits;      /* pins served by a held plan */
  uint64_t evictions; /* idle plans destroyed to make room */
  uint64_t busy;      /* pins refused because every entry was pinned */
} hrx_model_plan_cache_stats_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_model_plan_cache_create(
    const hrx_model_plan_cache_options_t* options, hrx_allocator_t allocator,
    hrx_model_plan_cache_t** out_cache);
/* Destroys every plan. Every pin must have been unpinned. */
HRX_API void hrx_model_plan_cache_destroy(hrx_model_plan_cache_t* cache);

/* Pins |key|'s plan, preparing it first if the cache does not hold it, and
 * returns it. BUSY when a plan must be prepared and every entry is pinned;
 * a failing prepare is returned as is. Each successful pin is matched by
 * one unpin. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_plan_cache_pin(
    hrx_model_plan_cache_t* cache, uint64_t key, void** out_plan);
/* Drops one pin of |key|; the plan stays cached, idle once unpinned.
 * FAILED_PRECONDITION when |key| is not pinned. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_plan_cache_unpin(
    hrx_model_plan_cache_t* cache, uint64_t key);

HRX_API void hrx_model_plan_cache_stats(hrx_model_plan_cache_t* cache,
                                        hrx_model_plan_cache_stats_t* out_stats);

#ifdef __cplusplus
}
#endif

#endif /* HRX_MODEL_PLAN_CACHE_H_ */
