/* PlanCache: plans prepared once per key and kept, within a capacity,
 * while they are in use or recently used.
 *
 * A plan is whatever the caller's prepare callback builds for a key (a
 * recorded graph, a compiled kernel, a prepared model for one shape). Pin
 * a key to use its plan: the first pin prepares it, later pins share it.
 * A pinned plan is never evicted; when a new key needs room, the least
 * recently used unpinned plan is evicted (destroyed); when every entry is
 * pinned or being prepared, the pin is BUSY and nothing is prepared. A
 * failed prepare is not cached: the next pin of that key tries again.
 *
 * A plan may stay in use after it is unpinned (a result it produced can
 * still lease its storage). With an |idle| callback, an evicted plan that
 * is not idle is retired: it leaves the cache's entries, and the first
 * later pin, unpin or stats call that finds it idle destroys it.
 *
 * Threads. Every function may be called from any thread. The callbacks run
 * on the calling thread without the cache's lock: prepares of different
 * keys run concurrently, and a pin of a key being prepared waits for that
 * prepare instead of starting another. A callback must not call its own
 * cache. The cache starts no threads.
 */
#ifndef HRX_MODEL_PLAN_CACHE_H_
#define HRX_MODEL_PLAN_CACHE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_model_plan_cache_s hrx_model_plan_cache_t;

/* Builds the plan for |key| into |out_plan| (any value, NULL included).
 * |request| is what the pin that prepares passed (borrowed for the call):
 * what the key stands for. */
typedef hrx_status_t (*hrx_model_plan_prepare_fn)(void* user, uint64_t key,
                                                  const void* request,
                                                  void** out_plan);
/* Frees a plan |prepare| built; it is no longer pinned. */
typedef void (*hrx_model_plan_destroy_fn)(void* user, void* plan);
/* Whether an unpinned |plan| is no longer in use, so it may be destroyed
 * now. */
typedef bool (*hrx_model_plan_idle_fn)(void* user, void* plan);

typedef struct hrx_model_plan_cache_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  size_t capacity; /* plans kept at once, pinned or idle (> 0) */
  hrx_model_plan_prepare_fn prepare; /* required */
  hrx_model_plan_destroy_fn destroy; /* NULL: plans need no freeing */
  /* NULL: a plan is idle once unpinned; otherwise evicted plans it finds
   * busy are retired until it finds them idle. */
  hrx_model_plan_idle_fn idle;
  void* user; /* passed to every callback */
} hrx_model_plan_cache_options_t;

typedef struct hrx_model_plan_cache_stats_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  size_t entries;     /* plans held (or being prepared) now */
  size_t pinned;      /* of those, pinned now */
  uint64_t prepares;  /* successful prepare calls */
  uint64_t hits;      /* pins served by a held plan */
  uint64_t evictions; /* unpinned plans evicted to make room */
  uint64_t busy;      /* pins refused because every entry was pinned */
  size_t retired;     /* evicted plans held now until they are idle */
} hrx_model_plan_cache_stats_t;

/* The options and stats shared by the layer's plan-backed ops (TensorOps,
 * ImageOps): a PlanCache of per-shape plans, each with private slots. */
typedef struct hrx_model_plan_ops_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  size_t plan_capacity;    /* plans kept (0: the ops' default) */
  uint32_t slots_per_plan; /* private slots per plan, 1..64 (0: 3) */
} hrx_model_plan_ops_options_t;

typedef struct hrx_model_plan_ops_stats_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  hrx_model_plan_cache_stats_t plans;
  size_t retired; /* evicted plans waiting for their tensors (plans.retired) */
} hrx_model_plan_ops_stats_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_model_plan_cache_create(
    const hrx_model_plan_cache_options_t* options, hrx_allocator_t allocator,
    hrx_model_plan_cache_t** out_cache);
/* Destroys every plan, retired ones included, without asking whether they
 * are idle: every pin must have been unpinned, and whatever kept a plan
 * busy (for example the results that lease its storage) released. */
HRX_API void hrx_model_plan_cache_destroy(hrx_model_plan_cache_t* cache);

/* Pins |key|'s plan, preparing it first from |request| (may be NULL; only
 * read during the call) if the cache does not hold it, and returns it. A
 * held plan is returned as is, whatever request prepared it. BUSY when a
 * plan must be prepared and every entry is pinned; a failing prepare is
 * returned as is. Each successful pin is matched by one unpin. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_plan_cache_pin(
    hrx_model_plan_cache_t* cache, uint64_t key, const void* request,
    void** out_plan);
/* Drops one pin of |key|; the plan stays cached, evictable once unpinned.
 * FAILED_PRECONDITION when |key| is not pinned. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_plan_cache_unpin(
    hrx_model_plan_cache_t* cache, uint64_t key);

/* The counters now; retired plans found idle are destroyed first. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_plan_cache_stats(
    hrx_model_plan_cache_t* cache, hrx_model_plan_cache_stats_t* out_stats);

#ifdef __cplusplus
}
#endif

#endif /* HRX_MODEL_PLAN_CACHE_H_ */
