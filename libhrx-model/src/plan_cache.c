/* PlanCache: a fixed table of entries, prepared outside the lock, evicted
 * least recently used among the unpinned ones, and a list of evicted plans
 * retired until they are idle. */
#include <pthread.h>
#include <stdbool.h>

#include "hrx/model/plan_cache.h"

typedef enum hrx_model_plan_state_e {
  HRX_MODEL_PLAN_EMPTY = 0,
  HRX_MODEL_PLAN_PREPARING, /* owned by the pinning thread until ready */
  HRX_MODEL_PLAN_READY,
} hrx_model_plan_state_t;

typedef struct hrx_model_plan_entry_t {
  hrx_model_plan_state_t state;
  uint64_t key;
  void* plan;
  uint32_t pins;
  uint64_t last_use; /* the cache's tick at the last pin or unpin */
} hrx_model_plan_entry_t;

/* An evicted plan that was busy, destroyed once the idle callback says
 * it is idle. */
typedef struct hrx_model_plan_retired_t {
  void* plan;
  struct hrx_model_plan_retired_t* next;
} hrx_model_plan_retired_t;

struct hrx_model_plan_cache_s {
  hrx_allocator_t allocator;
  hrx_model_plan_cache_options_t options;
  pthread_mutex_t mutex;
  pthread_cond_t prepared; /* an entry left PREPARING */
  hrx_model_plan_entry_t* entries; /* options.capacity of them */
  /* Only with options.idle; stats.retired counts them, including those a
   * reap has taken off the list to look at. */
  hrx_model_plan_retired_t* retired;
  uint64_t tick;
  hrx_model_plan_cache_stats_t stats;
};

hrx_status_t hrx_model_plan_cache_create(
    const hrx_model_plan_cache_options_t* caller_options,
    hrx_allocator_t allocator, hrx_model_plan_cache_t** out_cache) {
  *out_cache = NULL;
  hrx_model_plan_cache_options_t local_options;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_model_plan_cache_options_t, user,
                                      caller_options, &local_options));
  const hrx_model_plan_cache_options_t* options = &local_options;
  if (options->capacity == 0 || !options->prepare) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a plan cache needs a capacity and a prepare "
                           "callback");
  }
  hrx_model_plan_cache_t* c = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*c), (void**)&c));
  hrx_status_t status = hrx_allocator_malloc_array(
      allocator, options->capacity, sizeof(*c->entries), (void**)&c->entries);
  if (status != HRX_OK) {
    hrx_allocator_free(allocator, c);
    return status;
  }
  c->allocator = allocator;
  c->options = *options;
  pthread_mutex_init(&c->mutex, NULL);
  pthread_cond_init(&c->prepared, NULL);
  *out_cache = c;
  return HRX_OK;
}

/* Destroys |plan| with the caller's callback, if any; lock not held. */
static void hrx_model_plan_destroy(hrx_model_plan_cache_t* c, void* plan) {
  if (c->options.destroy) c->options.destroy(c->options.user, plan);
}

/* Destroys the retired plans the idle callback finds idle; lock not held.
 * The list is taken off the cache while the callback runs unlocked, and
 * the busy plans are put back. */
static void hrx_model_plan_reap(hrx_model_plan_cache_t* c) {
  if (!c->options.idle) return; /* nothing is ever retired */
  pthread_mutex_lock(&c->mutex);
  hrx_model_plan_retired_t* list = c->retired;
  c->retired = NULL;
  pthread_mutex_unlock(&c->mutex);
  if (!list) return;
  hrx_model_plan_retired_t *busy = NULL, *done = NULL;
  size_t done_count = 0;
  while (list) {
    hrx_model_plan_retired_t* r = list;
    list = r->next;
    if (c->options.idle(c->options.user, r->plan)) {
      r->next = done;
      done = r;
      ++done_count;
    } else {
      r->next = busy;
      busy = r;
    }
  }
  pthread_mutex_lock(&c->mutex);
  while (busy) {
    hrx_model_plan_retired_t* r = busy;
    busy = r->next;
    r->next = c->retired;
    c->retired = r;
  }
  c->stats.retired -= done_count;
  pthread_mutex_unlock(&c->mutex);
  while (done) {
    hrx_model_plan_retired_t* r = done;
    done = r->next;
    hrx_model_plan_destroy(c, r->plan);
    hrx_allocator_free(c->allocator, r);
  }
}

void hrx_model_plan_cache_destroy(hrx_model_plan_cache_t* c) {
  if (!c) return;
  for (size_t i = 0; i < c->options.capacity; ++i) {
    hrx_model_plan_entry_t* e = &c->entries[i];
    if (e->state == HRX_MODEL_PLAN_READY) hrx_model_plan_destroy(c, e->plan);
  }
  /* The caller has released what kept them busy. */
  while (c->retired) {
    hrx_model_plan_retired_t* r = c->retired;
    c->retired = r->next;
    hrx_model_plan_destroy(c, r->plan);
    hrx_allocator_free(c->allocator, r);
  }
  pthread_cond_destroy(&c->prepared);
  pthread_mutex_destroy(&c->mutex);
  hrx_allocator_free(c->allocator, c->entries);
  hrx_allocator_free(c->allocator, c);
}

/* The entry holding |key| (ready or being prepared), or NULL; mutex
 * held. */
static hrx_model_plan_entry_t* hrx_model_plan_find(hrx_model_plan_cache_t* c,
                                                   uint64_t key) {
  for (size_t i = 0; i < c->options.capacity; ++i) {
    hrx_model_plan_entry_t* e = &c->entries[i];
    if (e->state != HRX_MODEL_PLAN_EMPTY && e->key == key) return e;
  }
  return NULL;
}

/* An empty entry, else the least recently used unpinned one (still
 * holding its plan), else NULL; mutex held. */
static hrx_model_plan_entry_t* hrx_model_plan_room(hrx_model_plan_cache_t* c) {
  hrx_model_plan_entry_t* victim = NULL;
  for (size_t i = 0; i < c->options.capacity; ++i) {
    hrx_model_plan_entry_t* e = &c->entries[i];
    if (e->state == HRX_MODEL_PLAN_EMPTY) return e;
    if (e->state == HRX_MODEL_PLAN_READY && e->pins == 0 &&
        (!victim || e->last_use < victim->last_use)) {
      victim = e;
    }
  }
  return victim;
}

/* Takes |e|'s plan out of the cache: onto the retired list when there is
 * an idle callback (the reap that follows destroys it if it is idle
 * already), else into |out_plan| for destruction; mutex held. Fails only
 * when the retired list cannot grow, with nothing changed. */
static hrx_status_t hrx_model_plan_evict(hrx_model_plan_cache_t* c,
                                         hrx_model_plan_entry_t* e,
                                         void** out_plan) {
  *out_plan = NULL;
  if (c->options.idle) {
    hrx_model_plan_retired_t* r = NULL;
    HRX_RETURN_IF_ERROR(
        hrx_allocator_malloc(c->allocator, sizeof(*r), (void**)&r));
    *r = (hrx_model_plan_retired_t){e->plan, c->retired};
    c->retired = r;
    ++c->stats.retired;
  } else {
    *out_plan = e->plan;
  }
  ++c->stats.evictions;
  --c->stats.entries;
  return HRX_OK;
}

/* Prepares |key| into |e| (PREPARING, pinned once, lock not held) and
 * publishes the result. */
static hrx_status_t hrx_model_plan_prepare(hrx_model_plan_cache_t* c,
                                           hrx_model_plan_entry_t* e,
                                           uint64_t key, const void* request,
                                           void** out_plan) {
  void* plan = NULL;
  hrx_status_t status =
      c->options.prepare(c->options.user, key, request, &plan);
  pthread_mutex_lock(&c->mutex);
  if (status == HRX_OK) {
    e->plan = plan;
    e->state = HRX_MODEL_PLAN_READY;
    e->last_use = ++c->tick;
    ++c->stats.prepares;
    *out_plan = plan;
  } else {
    *e = (hrx_model_plan_entry_t){0};
    --c->stats.entries;
    --c->stats.pinned;
  }
  pthread_cond_broadcast(&c->prepared);
  pthread_mutex_unlock(&c->mutex);
  return status;
}

hrx_status_t hrx_model_plan_cache_pin(hrx_model_plan_cache_t* c, uint64_t key,
                                      const void* request, void** out_plan) {
  *out_plan = NULL;
  hrx_model_plan_reap(c);
  pthread_mutex_lock(&c->mutex);
  hrx_model_plan_entry_t* e = hrx_model_plan_find(c, key);
  while (e && e->state == HRX_MODEL_PLAN_PREPARING) {
    pthread_cond_wait(&c->prepared, &c->mutex);
    e = hrx_model_plan_find(c, key);
  }
  if (e) {
    c->stats.pinned += e->pins++ == 0;
    e->last_use = ++c->tick;
    ++c->stats.hits;
    *out_plan = e->plan;
    pthread_mutex_unlock(&c->mutex);
    return HRX_OK;
  }
  e = hrx_model_plan_room(c);
  if (!e) {
    ++c->stats.busy;
    size_t capacity = c->options.capacity;
    pthread_mutex_unlock(&c->mutex);
    return hrx_make_status(HRX_STATUS_BUSY,
                           "plan %llu: all %zu cache entries are pinned",
                           (unsigned long long)key, capacity);
  }
  bool evicted = e->state == HRX_MODEL_PLAN_READY;
  void* evicted_plan = NULL;
  if (evicted) {
    hrx_status_t status = hrx_model_plan_evict(c, e, &evicted_plan);
    if (status != HRX_OK) {
      pthread_mutex_unlock(&c->mutex);
      return hrx_status_annotate(status, "retiring a plan for %llu",
                                 (unsigned long long)key);
    }
  }
  *e = (hrx_model_plan_entry_t){
      .state = HRX_MODEL_PLAN_PREPARING, .key = key, .pins = 1};
  ++c->stats.entries;
  ++c->stats.pinned;
  pthread_mutex_unlock(&c->mutex);
  if (evicted && c->options.idle) {
    hrx_model_plan_reap(c);
  } else if (evicted) {
    hrx_model_plan_destroy(c, evicted_plan);
  }
  return hrx_model_plan_prepare(c, e, key, request, out_plan);
}

hrx_status_t hrx_model_plan_cache_unpin(hrx_model_plan_cache_t* c,
                                        uint64_t key) {
  pthread_mutex_lock(&c->mutex);
  hrx_model_plan_entry_t* e = hrx_model_plan_find(c, key);
  bool pinned = e && e->state == HRX_MODEL_PLAN_READY && e->pins > 0;
  if (pinned) {
    c->stats.pinned -= --e->pins == 0;
    e->last_use = ++c->tick;
  }
  pthread_mutex_unlock(&c->mutex);
  hrx_model_plan_reap(c);
  if (!pinned) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "plan %llu is not pinned", (unsigned long long)key);
  }
  return HRX_OK;
}

hrx_status_t hrx_model_plan_cache_stats(
    hrx_model_plan_cache_t* c, hrx_model_plan_cache_stats_t* out_stats) {
  hrx_model_plan_reap(c);
  pthread_mutex_lock(&c->mutex);
  hrx_model_plan_cache_stats_t stats = c->stats;
  pthread_mutex_unlock(&c->mutex);
  return HRX_STRUCT_WRITE(hrx_model_plan_cache_stats_t, retired, &stats,
                          out_stats);
}
