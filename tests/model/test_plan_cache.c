/* PlanCache: each key prepared once from its pin's request, unpinned-only
 * LRU eviction, BUSY when every entry is pinned, failed prepares not
 * cached, busy evicted plans retired until idle, and 8 threads pinning
 * shared keys concurrently. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "model_test_util.h"

enum { KEYS = 8, THREADS = 8 };

typedef struct plan_t {
  uint64_t key;
  uint64_t request; /* what prepare's request held (NONE: no request) */
  atomic_int pins;  /* the test's own count: destroy must see zero */
  atomic_bool busy; /* in use while unpinned: the idle callback says no */
} plan_t;

#define NONE UINT64_MAX

/* The request pin() passes for |key|. */
static uint64_t request_for(uint64_t key) { return key * 10 + 7; }

typedef struct counts_t {
  atomic_int prepares[KEYS];
  atomic_int destroys;
  atomic_int live;
  uint64_t fail_key; /* prepare fails for this key (KEYS: never) */
} counts_t;

static hrx_status_t prepare(void* user, uint64_t key, const void* request,
                            void** out_plan) {
  counts_t* counts = user;
  if (key == counts->fail_key) {
    return hrx_make_status(HRX_STATUS_INTERNAL, "plan %llu cannot be built",
                           (unsigned long long)key);
  }
  atomic_fetch_add(&counts->prepares[key], 1);
  atomic_fetch_add(&counts->live, 1);
  plan_t* plan = calloc(1, sizeof(*plan));
  plan->key = key;
  plan->request = request ? *(const uint64_t*)request : NONE;
  /* Let other threads pile up on the key being prepared. */
  sched_yield();
  *out_plan = plan;
  return HRX_OK;
}

static void destroy(void* user, void* opaque) {
  counts_t* counts = user;
  plan_t* plan = opaque;
  assert_int_equal(atomic_load(&plan->pins), 0);
  atomic_fetch_add(&counts->destroys, 1);
  atomic_fetch_sub(&counts->live, 1);
  free(plan);
}

static bool plan_idle(void* user, void* opaque) {
  (void)user;
  return !atomic_load(&((plan_t*)opaque)->busy);
}

static hrx_model_plan_cache_t* cache_create_with(counts_t* counts,
                                                 size_t capacity,
                                                 hrx_model_plan_idle_fn idle) {
  hrx_model_plan_cache_options_t options =
      HRX_STRUCT_INIT(hrx_model_plan_cache_options_t);
  options.capacity = capacity;
  options.prepare = prepare;
  options.destroy = destroy;
  options.idle = idle;
  options.user = counts;
  hrx_model_plan_cache_t* cache = NULL;
  assert_ok(
      hrx_model_plan_cache_create(&options, hrx_allocator_system(), &cache));
  return cache;
}

static hrx_model_plan_cache_t* cache_create(counts_t* counts,
                                            size_t capacity) {
  return cache_create_with(counts, capacity, NULL);
}

/* Pins |key| with its request, which prepare must have been handed. */
static plan_t* pin(hrx_model_plan_cache_t* cache, uint64_t key) {
  void* plan = NULL;
  uint64_t request = request_for(key);
  assert_ok(hrx_model_plan_cache_pin(cache, key, &request, &plan));
  assert_int_equal(((plan_t*)plan)->key, key);
  assert_int_equal(((plan_t*)plan)->request, request_for(key));
  return plan;
}

static void test_lru_eviction_and_busy(void** state) {
  (void)state;
  counts_t counts = {.fail_key = KEYS};
  hrx_model_plan_cache_t* cache = cache_create(&counts, 2);
  plan_t* a = pin(cache, 0);
  assert_ptr_equal(pin(cache, 0), a); /* prepared once, pinned twice */
  assert_int_equal(atomic_load(&counts.prepares[0]), 1);
  assert_ok(hrx_model_plan_cache_unpin(cache, 0));
  assert_ok(hrx_model_plan_cache_unpin(cache, 0));
  assert_status_code(hrx_model_plan_cache_unpin(cache, 0),
                     HRX_STATUS_FAILED_PRECONDITION);
  pin(cache, 1);
  assert_ok(hrx_model_plan_cache_unpin(cache, 1));
  /* 0 is used again, so 1 is now the least recently used idle plan. */
  pin(cache, 0);
  assert_ok(hrx_model_plan_cache_unpin(cache, 0));
  pin(cache, 2);
  assert_int_equal(atomic_load(&counts.destroys), 1);
  pin(cache, 0);
  assert_int_equal(atomic_load(&counts.prepares[0]), 1);
  assert_int_equal(atomic_load(&counts.prepares[1]), 1);
  /* 0 and 2 pinned: a new key finds no room and prepares nothing. */
  void* plan = NULL;
  assert_status(hrx_model_plan_cache_pin(cache, 1, NULL, &plan),
                HRX_STATUS_BUSY, "pinned");
  assert_null(plan);
  assert_int_equal(atomic_load(&counts.prepares[1]), 1);
  /* A pinned key is still served while the cache is full. */
  pin(cache, 2);
  assert_ok(hrx_model_plan_cache_unpin(cache, 2));
  assert_ok(hrx_model_plan_cache_unpin(cache, 2));
  /* Unpinning 2 makes it the only idle plan: 1 replaces it. */
  pin(cache, 1);
  assert_int_equal(atomic_load(&counts.prepares[1]), 2);
  assert_int_equal(atomic_load(&counts.destroys), 2);
  hrx_model_plan_cache_stats_t stats =
      HRX_STRUCT_INIT(hrx_model_plan_cache_stats_t);
  assert_ok(hrx_model_plan_cache_stats(cache, &stats));
  assert_int_equal(stats.entries, 2);
  assert_int_equal(stats.pinned, 2);
  assert_int_equal(stats.prepares, 4);
  assert_int_equal(stats.evictions, 2);
  assert_int_equal(stats.busy, 1);
  assert_int_equal(stats.hits, 4);
  assert_ok(hrx_model_plan_cache_unpin(cache, 0));
  assert_ok(hrx_model_plan_cache_unpin(cache, 1));
  hrx_model_plan_cache_destroy(cache);
  assert_int_equal(atomic_load(&counts.live), 0);
}

static void test_failed_prepare_is_not_cached(void** state) {
  (void)state;
  counts_t counts = {.fail_key = 3};
  hrx_model_plan_cache_t* cache = cache_create(&counts, 1);
  void* plan = NULL;
  assert_status(hrx_model_plan_cache_pin(cache, 3, NULL, &plan),
                HRX_STATUS_INTERNAL, "cannot be built");
  assert_status(hrx_model_plan_cache_pin(cache, 3, NULL, &plan),
                HRX_STATUS_INTERNAL, "cannot be built");
  /* The failed key left its entry free. */
  pin(cache, 4);
  assert_status_code(hrx_model_plan_cache_unpin(cache, 3),
                     HRX_STATUS_FAILED_PRECONDITION);
  assert_ok(hrx_model_plan_cache_unpin(cache, 4));
  hrx_model_plan_cache_stats_t stats =
      HRX_STRUCT_INIT(hrx_model_plan_cache_stats_t);
  assert_ok(hrx_model_plan_cache_stats(cache, &stats));
  assert_int_equal(stats.entries, 1);
  assert_int_equal(stats.pinned, 0);
  hrx_model_plan_cache_destroy(cache);

  hrx_model_plan_cache_options_t bad =
      HRX_STRUCT_INIT(hrx_model_plan_cache_options_t);
  bad.capacity = 0;
  bad.prepare = prepare;
  assert_status_code(
      hrx_model_plan_cache_create(&bad, hrx_allocator_system(), &cache),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_null(cache);
}

static void test_busy_evicted_plans_retire(void** state) {
  (void)state;
  counts_t counts = {.fail_key = KEYS};
  hrx_model_plan_cache_t* cache = cache_create_with(&counts, 1, plan_idle);
  hrx_model_plan_cache_stats_t stats =
      HRX_STRUCT_INIT(hrx_model_plan_cache_stats_t);
  /* Evicted while idle: destroyed at once, as without the callback. */
  pin(cache, 0);
  assert_ok(hrx_model_plan_cache_unpin(cache, 0));
  plan_t* one = pin(cache, 1);
  assert_int_equal(atomic_load(&counts.destroys), 1);
  /* Evicted while busy: retired, out of the entries. */
  atomic_store(&one->busy, true);
  assert_ok(hrx_model_plan_cache_unpin(cache, 1));
  pin(cache, 2);
  assert_ok(hrx_model_plan_cache_stats(cache, &stats));
  assert_int_equal(stats.entries, 1);
  assert_int_equal(stats.evictions, 2);
  assert_int_equal(stats.retired, 1);
  assert_int_equal(atomic_load(&counts.destroys), 1);
  assert_int_equal(atomic_load(&counts.live), 2);
  /* Still busy: unpin and stats keep it; once idle, unpin destroys it. */
  assert_ok(hrx_model_plan_cache_stats(cache, &stats));
  assert_int_equal(stats.retired, 1);
  atomic_store(&one->busy, false);
  assert_ok(hrx_model_plan_cache_unpin(cache, 2));
  assert_int_equal(atomic_load(&counts.destroys), 2);
  assert_ok(hrx_model_plan_cache_stats(cache, &stats));
  assert_int_equal(stats.retired, 0);
  /* Found idle by a stats call. */
  plan_t* two = pin(cache, 2);
  atomic_store(&two->busy, true);
  assert_ok(hrx_model_plan_cache_unpin(cache, 2));
  pin(cache, 3);
  assert_ok(hrx_model_plan_cache_unpin(cache, 3));
  atomic_store(&two->busy, false);
  assert_ok(hrx_model_plan_cache_stats(cache, &stats));
  assert_int_equal(stats.retired, 0);
  assert_int_equal(atomic_load(&counts.destroys), 3);
  /* Found idle by a pin. */
  plan_t* three = pin(cache, 3);
  atomic_store(&three->busy, true);
  assert_ok(hrx_model_plan_cache_unpin(cache, 3));
  pin(cache, 4);
  atomic_store(&three->busy, false);
  pin(cache, 4);
  assert_int_equal(atomic_load(&counts.destroys), 4);
  assert_ok(hrx_model_plan_cache_unpin(cache, 4));
  assert_ok(hrx_model_plan_cache_unpin(cache, 4));
  /* Destroy frees retired plans without asking (their users are gone). */
  plan_t* four = pin(cache, 4);
  atomic_store(&four->busy, true);
  assert_ok(hrx_model_plan_cache_unpin(cache, 4));
  pin(cache, 5);
  assert_ok(hrx_model_plan_cache_unpin(cache, 5));
  assert_ok(hrx_model_plan_cache_stats(cache, &stats));
  assert_int_equal(stats.retired, 1);
  atomic_store(&four->busy, false);
  hrx_model_plan_cache_destroy(cache);
  assert_int_equal(atomic_load(&counts.live), 0);
  assert_int_equal(atomic_load(&counts.destroys), 6);
}

typedef struct worker_t {
  hrx_model_plan_cache_t* cache;
  uint32_t seed;
  int pins, busy;
} worker_t;

/* Pins random keys, holds each while checking it is intact, retries on
 * BUSY. */
static void* worker_run(void* opaque) {
  worker_t* w = opaque;
  int rounds = test_under_valgrind() ? 200 : 2000;
  for (int i = 0; i < rounds; ++i) {
    w->seed = w->seed * 1664525u + 1013904223u;
    uint64_t key = (w->seed >> 16) % KEYS;
    void* opaque_plan = NULL;
    hrx_status_t status =
        hrx_model_plan_cache_pin(w->cache, key, NULL, &opaque_plan);
    if (hrx_status_code(status) == HRX_STATUS_BUSY) {
      hrx_status_free(status);
      ++w->busy;
      sched_yield();
      continue;
    }
    assert_ok(status);
    plan_t* plan = opaque_plan;
    atomic_fetch_add(&plan->pins, 1);
    assert_int_equal(plan->key, key);
    assert_int_equal(plan->request, NONE);
    sched_yield();
    atomic_fetch_sub(&plan->pins, 1);
    assert_ok(hrx_model_plan_cache_unpin(w->cache, key));
    ++w->pins;
  }
  return NULL;
}

static void run_workers(hrx_model_plan_cache_t* cache, worker_t* workers) {
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    workers[t] = (worker_t){.cache = cache, .seed = 77u + (uint32_t)t};
    assert_int_equal(
        pthread_create(&threads[t], NULL, worker_run, &workers[t]), 0);
  }
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
}

static void test_threads_prepare_each_key_once(void** state) {
  (void)state;
  counts_t counts = {.fail_key = KEYS};
  hrx_model_plan_cache_t* cache = cache_create(&counts, KEYS);
  worker_t workers[THREADS];
  run_workers(cache, workers);
  for (int k = 0; k < KEYS; ++k) {
    assert_true(atomic_load(&counts.prepares[k]) <= 1);
  }
  assert_int_equal(atomic_load(&counts.destroys), 0);
  hrx_model_plan_cache_stats_t stats =
      HRX_STRUCT_INIT(hrx_model_plan_cache_stats_t);
  assert_ok(hrx_model_plan_cache_stats(cache, &stats));
  assert_int_equal(stats.busy, 0);
  assert_int_equal(stats.pinned, 0);
  hrx_model_plan_cache_destroy(cache);
  assert_int_equal(atomic_load(&counts.live), 0);
}

/* Fewer entries than threads: evictions, and BUSY when all are held;
 * with |idle|, every eviction goes through the retired list. */
static void threads_under_eviction(hrx_model_plan_idle_fn idle) {
  counts_t counts = {.fail_key = KEYS};
  hrx_model_plan_cache_t* cache = cache_create_with(&counts, 3, idle);
  worker_t workers[THREADS];
  run_workers(cache, workers);
  int pins = 0, busy = 0;
  for (int t = 0; t < THREADS; ++t) {
    pins += workers[t].pins;
    busy += workers[t].busy;
  }
  hrx_model_plan_cache_stats_t stats =
      HRX_STRUCT_INIT(hrx_model_plan_cache_stats_t);
  assert_ok(hrx_model_plan_cache_stats(cache, &stats));
  assert_int_equal(stats.busy, (uint64_t)busy);
  assert_int_equal(stats.prepares + stats.hits, (uint64_t)pins);
  assert_int_equal(stats.pinned, 0);
  assert_true(stats.entries <= 3);
  assert_int_equal(stats.retired, 0);
  assert_int_equal(atomic_load(&counts.live), (int)stats.entries);
  hrx_model_plan_cache_destroy(cache);
  assert_int_equal(atomic_load(&counts.live), 0);
}

static void test_threads_under_eviction(void** state) {
  (void)state;
  threads_under_eviction(NULL);
}

static void test_threads_under_eviction_retiring(void** state) {
  (void)state;
  threads_under_eviction(plan_idle);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lru_eviction_and_busy),
      cmocka_unit_test(test_failed_prepare_is_not_cached),
      cmocka_unit_test(test_busy_evicted_plans_retire),
      cmocka_unit_test(test_threads_prepare_each_key_once),
      cmocka_unit_test(test_threads_under_eviction),
      cmocka_unit_test(test_threads_under_eviction_retiring),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
