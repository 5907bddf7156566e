/* PlanCache: a fixed table of entries, prepared outside the lock, evicted
 * least recently used among the idle ones. */
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

struct hrx_model_plan_cache_s {
  hrx_allocator_t allocator;
  hrx_model_plan_cache_options_t options;
  pthread_mutex_t mutex;
  pthread_cond_t prepared; /* an entry left PREPARING */
  hrx_model_plan_entry_t* entries; /* options.capacity of them */
  uint64_t tick;
  hrx_model_plan_cache_stats_t stats;
};

hrx_status_t hrx_model_plan_cache_create(
    const hrx_model_plan_cache_options_t* options, hrx_allocator_t allocator,
    hrx_model_plan_cache_t** out_cache) {
  *out_cache = NULL;
  if (!options || options->capacity == 0 || !options->prepare) {
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

void hrx_model_plan_cache_destroy(hrx_model_plan_cache_t* c) {
  if (!c) return;
  for (size_t i = 0; i < c->options.capacity; ++i) {
    hrx_model_plan_entry_t* e = &c->entries[i];
    if (e->state == HRX_MODEL_PLAN_READY && c->options.destroy) {
      c->options.destroy(c->options.user, e->plan);
    }
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

/* An empty entry, else the least recently used idle one (its plan handed
 * to |out_evicted| for destruction outside the lock), else NULL; mutex
 * held. */
static hrx_model_plan_entry_t* hrx_model_plan_room(hrx_model_plan_cache_t* c,
                                                   bool* out_evicted,
                                                   void** out_evicted_plan) {
  hrx_model_plan_entry_t* victim = NULL;
  for (size_t i = 0; i < c->options.capacity; ++i) {
    hrx_model_plan_entry_t* e = &c->entries[i];
    if (e->state == HRX_MODEL_PLAN_EMPTY) return e;
    if (e->state == HRX_MODEL_PLAN_READY && e->pins == 0 &&
        (!victim || e->last_use < victim->last_use)) {
      victim = e;
    }
  }
  if (victim) {
    *out_evicted = true;
    *out_evicted_plan = victim->plan;
    ++c->stats.evictions;
    --c->stats.entries;
  }
  return victim;
}

/* Prepares |key| into |e| (PREPARING, pinned once, lock not held) and
 * publishes the result. */
static hrx_status_t hrx_model_plan_prepare(hrx_model_plan_cache_t* c,
                                           hrx_model_plan_entry_t* e,
                                           uint64_t key, void** out_plan) {
  void* plan = NULL;
  hrx_status_t status = c->options.prepare(c->options.user, key, &plan);
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
                                      void** out_plan) {
  *out_plan = NULL;
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
  bool evicted = false;
  void* evicted_plan = NULL;
  e = hrx_model_plan_room(c, &evicted, &evicted_plan);
  if (!e) {
    ++c->stats.busy;
    size_t capacity = c->options.capacity;
    pthread_mutex_unlock(&c->mutex);
    return hrx_make_status(HRX_STATUS_BUSY,
                           "plan %llu: all %zu cache entries are pinned",
                           (unsigned long long)key, capacity);
  }
  *e = (hrx_model_plan_entry_t){
      .state = HRX_MODEL_PLAN_PREPARING, .key = key, .pins = 1};
  ++c->stats.entries;
  ++c->stats.pinned;
  pthread_mutex_unlock(&c->mutex);
  if (evicted && c->options.destroy) {
    c->options.destroy(c->options.user, evicted_plan);
  }
  return hrx_model_plan_prepare(c, e, key, out_plan);
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
  if (!pinned) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "plan %llu is not pinned", (unsigned long long)key);
  }
  return HRX_OK;
}

void hrx_model_plan_cache_stats(hrx_model_plan_cache_t* c,
                                hrx_model_plan_cache_stats_t* out_stats) {
  pthread_mutex_lock(&c->mutex);
  *out_stats = c->stats;
  pthread_mutex_unlock(&c->mutex);
}
