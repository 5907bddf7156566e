/* ResidencyManager: a list of keyed units under one budget, loaded outside
 * the lock, evicted least recently used among the unleased, unpinned, idle
 * ones when a load does not fit. */
#include <pthread.h>

#include "model_internal.h"

typedef struct hrx_model_resident_t {
  struct hrx_model_resident_t* next;
  uint64_t key;
  bool ready; /* false while its loader runs (owned by that thread) */
  hrx_model_resident_loader_t loader;
  void* value;
  uint64_t declared; /* bytes the manager charged for it (declared loads) */
  uint32_t leases, pins;
  uint64_t last_use; /* the manager's tick at the last lease or release */
} hrx_model_resident_t;

struct hrx_model_residency_s {
  hrx_allocator_t allocator;
  hrx_budget_t* budget;
  pthread_mutex_t mutex;
  pthread_cond_t loaded; /* a unit left the loading state */
  hrx_model_resident_t* residents;
  uint64_t tick;
  hrx_model_residency_stats_t stats; /* the counters, under the mutex */
};

hrx_status_t hrx_model_residency_create(uint64_t ceiling_bytes,
                                        hrx_allocator_t allocator,
                                        hrx_model_residency_t** out_residency) {
  *out_residency = NULL;
  if (ceiling_bytes == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a residency ceiling must be above 0 bytes");
  }
  hrx_model_residency_t* r = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*r), (void**)&r));
  hrx_status_t status = hrx_budget_create(ceiling_bytes, allocator, &r->budget);
  if (status != HRX_OK) {
    hrx_allocator_free(allocator, r);
    return status;
  }
  r->allocator = allocator;
  r->stats.ceiling_bytes = ceiling_bytes;
  pthread_mutex_init(&r->mutex, NULL);
  pthread_cond_init(&r->loaded, NULL);
  *out_residency = r;
  return HRX_OK;
}

/* Destroys an unlinked unit and uncharges what the manager charged for
 * it; lock not held. */
static void hrx_model_resident_free(hrx_model_residency_t* r,
                                    hrx_model_resident_t* e) {
  if (e->ready && e->loader.destroy) e->loader.destroy(e->loader.user, e->value);
  hrx_model_budget_uncharge(r->budget, e->declared);
  hrx_allocator_free(r->allocator, e);
}

void hrx_model_residency_destroy(hrx_model_residency_t* r) {
  if (!r) return;
  while (r->residents) {
    hrx_model_resident_t* e = r->residents;
    r->residents = e->next;
    hrx_model_resident_free(r, e);
  }
  pthread_cond_destroy(&r->loaded);
  pthread_mutex_destroy(&r->mutex);
  hrx_budget_release(r->budget);
  hrx_allocator_free(r->allocator, r);
}

hrx_budget_t* hrx_model_residency_budget(const hrx_model_residency_t* r) {
  return r->budget;
}

/* The unit under |key| (ready or loading), or NULL; mutex held. */
static hrx_model_resident_t* hrx_model_resident_find(hrx_model_residency_t* r,
                                                     uint64_t key) {
  for (hrx_model_resident_t* e = r->residents; e; e = e->next) {
    if (e->key == key) return e;
  }
  return NULL;
}

static bool hrx_model_resident_evictable(const hrx_model_resident_t* e) {
  return e->ready && e->leases == 0 && e->pins == 0 &&
         (!e->loader.idle || e->loader.idle(e->loader.user, e->value));
}

/* Unlinks |e|, counting it as evicted; mutex held. */
static void hrx_model_resident_unlink(hrx_model_residency_t* r,
                                      hrx_model_resident_t* e, bool evicted) {
  hrx_model_resident_t** link = &r->residents;
  while (*link != e) link = &(*link)->next;
  *link = e->next;
  --r->stats.residents;
  r->stats.declared_bytes -= e->declared;
  r->stats.evictions += evicted;
}

/* Unlinks and returns the least recently used evictable unit, or NULL;
 * takes the mutex. */
static hrx_model_resident_t* hrx_model_resident_victim(
    hrx_model_residency_t* r) {
  pthread_mutex_lock(&r->mutex);
  hrx_model_resident_t* victim = NULL;
  for (hrx_model_resident_t* e = r->residents; e; e = e->next) {
    if ((!victim || e->last_use < victim->last_use) &&
        hrx_model_resident_evictable(e)) {
      victim = e;
    }
  }
  if (victim) hrx_model_resident_unlink(r, victim, true);
  pthread_mutex_unlock(&r->mutex);
  return victim;
}

/* Evicts one unit to make room after |status| (RESOURCE_EXHAUSTED, freed
 * here when something was evicted): true when the caller should try
 * again. */
static bool hrx_model_residency_make_room(hrx_model_residency_t* r,
                                          hrx_status_t status) {
  if (hrx_status_code(status) != HRX_STATUS_RESOURCE_EXHAUSTED) return false;
  hrx_model_resident_t* victim = hrx_model_resident_victim(r);
  if (!victim) return false;
  hrx_status_free(status);
  hrx_model_resident_free(r, victim);
  return true;
}

/* The budget's live bytes and the units other than the one loading (none
 * of them evictable when this is asked): for messages. */
static uint64_t hrx_model_residency_held(hrx_model_residency_t* r,
                                         size_t* out_others) {
  pthread_mutex_lock(&r->mutex);
  *out_others = r->stats.residents - 1;
  pthread_mutex_unlock(&r->mutex);
  return hrx_budget_live_bytes(r->budget);
}

/* Charges a declared peak, evicting while it does not fit; BUSY when
 * nothing is left to evict. */
static hrx_status_t hrx_model_residency_reserve(hrx_model_residency_t* r,
                                                uint64_t key,
                                                uint64_t peak_bytes) {
  for (;;) {
    hrx_status_t status =
        hrx_model_budget_charge(r->budget, peak_bytes, "resident peak");
    if (status == HRX_OK) return HRX_OK;
    if (hrx_model_residency_make_room(r, status)) continue;
    if (hrx_status_code(status) != HRX_STATUS_RESOURCE_EXHAUSTED) {
      return status;
    }
    hrx_status_free(status);
    size_t units = 0;
    uint64_t live = hrx_model_residency_held(r, &units);
    return hrx_make_status(
        HRX_STATUS_BUSY,
        "resident %llu: its peak of %llu bytes fits the ceiling of %llu "
        "bytes, but %llu bytes are held and none of the %zu other units "
        "is idle, unleased and unpinned to evict",
        (unsigned long long)key, (unsigned long long)peak_bytes,
        (unsigned long long)hrx_budget_limit_bytes(r->budget),
        (unsigned long long)live, units);
  }
}

/* Runs |e|'s loader (retrying after evictions for a budgeted one that
 * ran out of room); lock not held. */
static hrx_status_t hrx_model_resident_run(hrx_model_residency_t* r,
                                           hrx_model_resident_t* e,
                                           uint64_t peak_bytes) {
  for (;;) {
    void* value = NULL;
    uint64_t bytes = 0;
    hrx_status_t status = e->loader.load(e->loader.user, e->key, r->budget,
                                         &value, &bytes);
    if (status == HRX_OK && peak_bytes &&
        (bytes == 0 || bytes > peak_bytes)) {
      if (e->loader.destroy) e->loader.destroy(e->loader.user, value);
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "resident %llu: its loader reported %llu "
                             "resident bytes for a declared peak of %llu",
                             (unsigned long long)e->key,
                             (unsigned long long)bytes,
                             (unsigned long long)peak_bytes);
    }
    if (status == HRX_OK) {
      e->value = value;
      if (peak_bytes) {
        hrx_model_budget_uncharge(r->budget, peak_bytes - bytes);
        e->declared = bytes;
      }
      return HRX_OK;
    }
    if (!peak_bytes && hrx_model_residency_make_room(r, status)) continue;
    if (peak_bytes ||
        hrx_status_code(status) != HRX_STATUS_RESOURCE_EXHAUSTED) {
      return status;
    }
    size_t units = 0;
    uint64_t live = hrx_model_residency_held(r, &units);
    return hrx_status_annotate(
        status, "resident %llu: %llu bytes held, none of the %zu other "
                "units idle, unleased and unpinned to evict",
        (unsigned long long)e->key, (unsigned long long)live, units);
  }
}

static hrx_status_t hrx_model_residency_load_unit(
    hrx_model_residency_t* r, uint64_t key, uint64_t peak_bytes,
    const hrx_model_resident_loader_t* loader, void** out_value) {
  *out_value = NULL;
  if (!loader || !loader->load) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "resident %llu: no loader",
                           (unsigned long long)key);
  }
  pthread_mutex_lock(&r->mutex);
  hrx_model_resident_t* e = hrx_model_resident_find(r, key);
  while (e && !e->ready) {
    pthread_cond_wait(&r->loaded, &r->mutex);
    e = hrx_model_resident_find(r, key);
  }
  if (e) {
    r->stats.leased += e->leases++ == 0;
    e->last_use = ++r->tick;
    ++r->stats.hits;
    *out_value = e->value;
    pthread_mutex_unlock(&r->mutex);
    return HRX_OK;
  }
  hrx_status_t status =
      hrx_allocator_malloc(r->allocator, sizeof(*e), (void**)&e);
  if (status == HRX_OK) {
    *e = (hrx_model_resident_t){
        .next = r->residents, .key = key, .loader = *loader, .leases = 1};
    r->residents = e;
    ++r->stats.residents;
    ++r->stats.leased;
  }
  pthread_mutex_unlock(&r->mutex);
  HRX_RETURN_IF_ERROR(status);
  if (peak_bytes) {
    status = hrx_model_residency_reserve(r, key, peak_bytes);
    if (status == HRX_OK) e->declared = peak_bytes;
  }
  pthread_mutex_lock(&r->mutex);
  r->stats.declared_bytes += e->declared;
  pthread_mutex_unlock(&r->mutex);
  if (status == HRX_OK) status = hrx_model_resident_run(r, e, peak_bytes);
  pthread_mutex_lock(&r->mutex);
  if (status == HRX_OK) {
    e->ready = true;
    e->last_use = ++r->tick;
    r->stats.declared_bytes -= peak_bytes - e->declared;
    ++r->stats.loads;
    *out_value = e->value;
  } else {
    hrx_model_resident_unlink(r, e, false);
    --r->stats.leased;
  }
  pthread_cond_broadcast(&r->loaded);
  pthread_mutex_unlock(&r->mutex);
  if (status != HRX_OK) hrx_model_resident_free(r, e);
  return status;
}

hrx_status_t hrx_model_residency_load_budgeted(
    hrx_model_residency_t* r, uint64_t key,
    const hrx_model_resident_loader_t* loader, void** out_value) {
  return hrx_model_residency_load_unit(r, key, 0, loader, out_value);
}

hrx_status_t hrx_model_residency_load(hrx_model_residency_t* r, uint64_t key,
                                      uint64_t peak_bytes,
                                      const hrx_model_resident_loader_t* loader,
                                      void** out_value) {
  *out_value = NULL;
  if (peak_bytes == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "resident %llu: a declared load needs a peak "
                           "above 0 bytes",
                           (unsigned long long)key);
  }
  if (peak_bytes > hrx_budget_limit_bytes(r->budget)) {
    /* It can never fit: evicting everything first would be for nothing. */
    return hrx_make_status(
        HRX_STATUS_RESOURCE_EXHAUSTED,
        "resident %llu: a peak of %llu bytes requested against a ceiling "
        "of %llu bytes",
        (unsigned long long)key, (unsigned long long)peak_bytes,
        (unsigned long long)hrx_budget_limit_bytes(r->budget));
  }
  return hrx_model_residency_load_unit(r, key, peak_bytes, loader, out_value);
}

/* |key|'s ready unit, or NULL; mutex held. */
static hrx_model_resident_t* hrx_model_resident_ready(hrx_model_residency_t* r,
                                                      uint64_t key) {
  hrx_model_resident_t* e = hrx_model_resident_find(r, key);
  return e && e->ready ? e : NULL;
}

hrx_status_t hrx_model_residency_release(hrx_model_residency_t* r,
                                         uint64_t key) {
  pthread_mutex_lock(&r->mutex);
  hrx_model_resident_t* e = hrx_model_resident_ready(r, key);
  bool leased = e && e->leases > 0;
  if (leased) {
    r->stats.leased -= --e->leases == 0;
    e->last_use = ++r->tick;
  }
  pthread_mutex_unlock(&r->mutex);
  if (!leased) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "resident %llu is not leased",
                           (unsigned long long)key);
  }
  return HRX_OK;
}

hrx_status_t hrx_model_residency_pin(hrx_model_residency_t* r, uint64_t key) {
  pthread_mutex_lock(&r->mutex);
  hrx_model_resident_t* e = hrx_model_resident_ready(r, key);
  if (e) r->stats.pinned += e->pins++ == 0;
  pthread_mutex_unlock(&r->mutex);
  if (!e) {
    return hrx_make_status(HRX_STATUS_NOT_FOUND,
                           "no unit is resident under %llu",
                           (unsigned long long)key);
  }
  return HRX_OK;
}

hrx_status_t hrx_model_residency_unpin(hrx_model_residency_t* r,
                                       uint64_t key) {
  pthread_mutex_lock(&r->mutex);
  hrx_model_resident_t* e = hrx_model_resident_ready(r, key);
  bool pinned = e && e->pins > 0;
  if (pinned) r->stats.pinned -= --e->pins == 0;
  pthread_mutex_unlock(&r->mutex);
  if (!pinned) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "resident %llu is not pinned",
                           (unsigned long long)key);
  }
  return HRX_OK;
}

hrx_status_t hrx_model_residency_evict(hrx_model_residency_t* r, uint64_t key,
                                       bool* out_evicted) {
  *out_evicted = false;
  pthread_mutex_lock(&r->mutex);
  hrx_model_resident_t* e = hrx_model_resident_find(r, key);
  bool busy = e && !hrx_model_resident_evictable(e);
  if (e && !busy) hrx_model_resident_unlink(r, e, true);
  pthread_mutex_unlock(&r->mutex);
  if (busy) {
    return hrx_make_status(HRX_STATUS_BUSY,
                           "resident %llu is leased, pinned, loading or "
                           "in use",
                           (unsigned long long)key);
  }
  if (e) {
    hrx_model_resident_free(r, e);
    *out_evicted = true;
  }
  return HRX_OK;
}

hrx_status_t hrx_model_residency_stats(
    hrx_model_residency_t* r, hrx_model_residency_stats_t* out_stats) {
  pthread_mutex_lock(&r->mutex);
  hrx_model_residency_stats_t stats = r->stats;
  pthread_mutex_unlock(&r->mutex);
  stats.live_bytes = hrx_budget_live_bytes(r->budget);
  return HRX_STRUCT_WRITE(hrx_model_residency_stats_t, evictions, &stats,
                          out_stats);
}
