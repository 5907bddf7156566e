/* ResidencyManager: resident units (models, corpora, plans) kept under one
 * declared byte ceiling, loaded once per key, pinned or evicted.
 *
 * The manager owns one memory budget (hrx/core/budget.h) whose limit is
 * the ceiling declared at create. Pass that budget, as
 * hrx_model_session_options_t.memory_budget, to the sessions and contexts
 * the loaders build: their runtime then charges weights, activations,
 * scratch, readback and transfer staging to it before allocating, so the
 * ceiling covers everything they hold. Compiler memory and allocations
 * made elsewhere are not counted.
 *
 * A unit is whatever a loader builds for a key, in one of two ways:
 * - load_budgeted: the unit's allocations carry their own charges (a
 *   session on the manager's budget). Nothing is reserved up front; the
 *   unit's bytes are whatever its allocations hold, and may change while
 *   it lives.
 * - load: the loader declares a peak. The peak is charged before the
 *   loader runs, and shrunk to the resident bytes it reports; the unit's
 *   own allocations must not be charged to the budget again (give its
 *   sessions another budget, or none).
 * A request that can never fit (a peak above the ceiling, or an
 * allocation a budgeted loader makes that alone passes it) is
 * RESOURCE_EXHAUSTED naming the ceiling and the request, and allocates
 * nothing that stays.
 *
 * Leases and pins. A load returns the unit with one lease, which
 * hrx_model_residency_release drops; a pin keeps a loaded unit resident
 * with no lease. When a load does not fit, the least recently used unit
 * with no lease, no pin, and (with an idle callback) idle is evicted
 * (destroyed, which uncharges its bytes) and the load tries again: a
 * declared peak is recharged, a budgeted loader that failed with
 * RESOURCE_EXHAUSTED is called again, so it must undo what it allocated
 * when it fails (a session's load does). When nothing is left to evict, a
 * declared load that would fit the ceiling is BUSY (leases or pins hold
 * the room); a budgeted one returns its loader's RESOURCE_EXHAUSTED,
 * annotated with the bytes leased or pinned units hold.
 *
 * Threads. Every function may be called from any thread. Loaders run
 * without the manager's lock, so different keys load concurrently; a load
 * of a key being loaded waits for that load and shares its unit (a failed
 * load is not kept: the next load of the key tries again). Callbacks must
 * not call the manager. The manager starts no threads.
 */
#ifndef HRX_MODEL_RESIDENCY_H_
#define HRX_MODEL_RESIDENCY_H_

#include <stdbool.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_model_residency_s hrx_model_residency_t;

/* Builds the unit for |key| into |out_value| (any value, NULL included).
 * |budget| is the manager's (borrowed; retain it to keep it): charge every
 * allocation of a budgeted unit to it. A declared load also sets
 * |out_resident_bytes| (> 0, at most the peak); budgeted loads ignore it.
 * On failure nothing the loader allocated may stay. */
typedef hrx_status_t (*hrx_model_resident_load_fn)(
    void* user, uint64_t key, hrx_budget_t* budget, void** out_value,
    uint64_t* out_resident_bytes);
/* Frees a unit its loader built: no lease or pin holds it. Charges its
 * allocations carry are released by freeing them. */
typedef void (*hrx_model_resident_destroy_fn)(void* user, void* value);
/* Whether a unit with no lease and no pin is out of use (no tensors or
 * queued work of its own), so that eviction may destroy it now. */
typedef bool (*hrx_model_resident_idle_fn)(void* user, void* value);

typedef struct hrx_model_resident_loader_t {
  hrx_model_resident_load_fn load;       /* required */
  hrx_model_resident_destroy_fn destroy; /* NULL: units need no freeing */
  hrx_model_resident_idle_fn idle;       /* NULL: idle once unleased */
  void* user;                            /* passed to every callback */
} hrx_model_resident_loader_t;

typedef struct hrx_model_residency_stats_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint64_t ceiling_bytes; /* the declared ceiling */
  uint64_t live_bytes;    /* charged to the budget now, by anyone */
  /* Declared residents' bytes plus peaks reserved by declared loads
   * running now. */
  uint64_t declared_bytes;
  size_t residents; /* units held, or being loaded */
  size_t pinned;    /* of those, pinned now */
  size_t leased;    /* of those, leased now */
  uint64_t loads;   /* successful loader calls */
  uint64_t hits;    /* loads served by a held unit */
  uint64_t evictions;
} hrx_model_residency_stats_t;

/* A manager whose budget has a ceiling of |ceiling_bytes| (> 0). */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_residency_create(
    uint64_t ceiling_bytes, hrx_allocator_t allocator,
    hrx_model_residency_t** out_residency);
/* Destroys every unit, pinned ones included (every lease must have been
 * released, and every load returned), and drops the manager's reference
 * to its budget. NULL is accepted. */
HRX_API void hrx_model_residency_destroy(hrx_model_residency_t* residency);

/* The manager's budget (borrowed: retain it to keep it past the
 * manager). */
HRX_API hrx_budget_t* hrx_model_residency_budget(
    const hrx_model_residency_t* residency);

/* Leases |key|'s unit, loading it first with |loader| (copied; its
 * callbacks serve this unit until it is destroyed) when the manager does
 * not hold it; a held unit is returned as is. Each successful load is
 * matched by one hrx_model_residency_release. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_residency_load_budgeted(
    hrx_model_residency_t* residency, uint64_t key,
    const hrx_model_resident_loader_t* loader, void** out_value);
/* As load_budgeted, for a unit whose loader declares |peak_bytes| (> 0):
 * charged before it runs, then shrunk to the resident bytes it reports
 * (a report of 0 or above the peak fails the load, destroying the unit). */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_residency_load(
    hrx_model_residency_t* residency, uint64_t key, uint64_t peak_bytes,
    const hrx_model_resident_loader_t* loader, void** out_value);

/* Drops one lease of |key|. FAILED_PRECONDITION when it holds none. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_residency_release(
    hrx_model_residency_t* residency, uint64_t key);

/* Pins |key|'s loaded unit: eviction leaves it alone until it is unpinned
 * as often. NOT_FOUND when no unit is loaded under |key|; unpin is
 * FAILED_PRECONDITION when it is not pinned. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_residency_pin(
    hrx_model_residency_t* residency, uint64_t key);
HRX_API HRX_MUST_USE hrx_status_t hrx_model_residency_unpin(
    hrx_model_residency_t* residency, uint64_t key);

/* Destroys |key|'s unit now. BUSY when it is leased, pinned, loading or
 * not idle; |out_evicted| says whether there was a unit to evict. */
HRX_API HRX_MUST_USE hrx_status_t hrx_model_residency_evict(
    hrx_model_residency_t* residency, uint64_t key, bool* out_evicted);

HRX_API HRX_MUST_USE hrx_status_t hrx_model_residency_stats(
    hrx_model_residency_t* residency, hrx_model_residency_stats_t* out_stats);

#ifdef __cplusplus
}
#endif

#endif /* HRX_MODEL_RESIDENCY_H_ */
