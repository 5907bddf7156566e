/* ResidencyManager: a declared ceiling refusing loads before anything is
 * allocated, least recently used eviction that spares leased and pinned
 * units, declared peaks, charges released on eviction and destroy, and
 * sessions on the manager's budget: freezing charges nothing twice,
 * scratch, readback storage and slot staging are counted. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model_test_util.h"

/* A unit: a session on the manager's budget holding one weight. */
typedef struct unit_t {
  hrx_model_session_t* session;
  hrx_model_region_t weight;
} unit_t;

typedef struct loader_t {
  hrx_gpu_device_t* device;
  uint64_t weight_bytes;
  int loads, destroys; /* loader calls that built a unit, and frees */
  bool busy;           /* what idle answers */
} loader_t;

static uint8_t weight_data[64 * 1024];

static hrx_status_t unit_load(void* user, uint64_t key, hrx_budget_t* budget,
                              void** out_value, uint64_t* out_bytes) {
  (void)key;
  (void)out_bytes;
  loader_t* l = user;
  unit_t* u = calloc(1, sizeof(*u));
  hrx_model_session_options_t options =
      HRX_STRUCT_INIT(hrx_model_session_options_t);
  options.memory_budget = budget;
  hrx_status_t status = hrx_model_session_create(
      l->device, &options, hrx_allocator_system(), &u->session);
  if (status == HRX_OK) {
    status = hrx_model_session_weight(u->session, weight_data,
                                      l->weight_bytes, &u->weight);
  }
  if (status != HRX_OK) {
    hrx_model_session_destroy(u->session);
    free(u);
    return status;
  }
  __atomic_add_fetch(&l->loads, 1, __ATOMIC_RELAXED);
  *out_value = u;
  return HRX_OK;
}

static void unit_destroy(void* user, void* value) {
  loader_t* l = user;
  unit_t* u = value;
  hrx_model_session_destroy(u->session);
  free(u);
  ++l->destroys;
}

static bool unit_idle(void* user, void* value) {
  (void)value;
  return !((loader_t*)user)->busy;
}

static hrx_model_resident_loader_t loader_of(loader_t* l) {
  return (hrx_model_resident_loader_t){unit_load, unit_destroy, unit_idle, l};
}

static hrx_model_residency_stats_t stats_of(hrx_model_residency_t* r) {
  hrx_model_residency_stats_t stats =
      HRX_STRUCT_INIT(hrx_model_residency_stats_t);
  assert_ok(hrx_model_residency_stats(r, &stats));
  return stats;
}

static void test_ceiling_refuses_before_allocating(void** state) {
  (void)state;
  loader_t l = {.device = gpu_test_device_open(), .weight_bytes = 5000};
  hrx_model_resident_loader_t loader = loader_of(&l);
  hrx_model_residency_t* r = NULL;
  assert_status_code(
      hrx_model_residency_create(0, hrx_allocator_system(), &r),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_ok(hrx_model_residency_create(4000, hrx_allocator_system(), &r));
  assert_int_equal(hrx_budget_limit_bytes(hrx_model_residency_budget(r)),
                   4000);
  void* value = NULL;
  assert_status(hrx_model_residency_load_budgeted(r, 1, &loader, &value),
                HRX_STATUS_RESOURCE_EXHAUSTED,
                "5000 bytes requested against a ceiling of 4000 bytes");
  assert_null(value);
  /* The session the loader made was freed with nothing in it: nothing is
   * charged, no unit is held. */
  hrx_model_residency_stats_t stats = stats_of(r);
  assert_int_equal(stats.live_bytes, 0);
  assert_int_equal(stats.residents, 0);
  assert_int_equal(l.loads, 0);
  /* A declared peak above the ceiling never reaches its loader. */
  assert_status(hrx_model_residency_load(r, 2, 5000, &loader, &value),
                HRX_STATUS_RESOURCE_EXHAUSTED,
                "a peak of 5000 bytes requested against a ceiling of 4000");
  assert_status_code(hrx_model_residency_load(r, 2, 0, &loader, &value),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_residency_load_budgeted(r, 2, NULL, &value),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_int_equal(stats_of(r).live_bytes, 0);
  /* What fits loads, charged by its own allocation. */
  l.weight_bytes = 4000;
  assert_ok(hrx_model_residency_load_budgeted(r, 1, &loader, &value));
  assert_int_equal(stats_of(r).live_bytes, 4000);
  assert_ok(hrx_model_residency_release(r, 1));
  assert_status_code(hrx_model_residency_release(r, 1),
                     HRX_STATUS_FAILED_PRECONDITION);
  hrx_model_residency_destroy(r);
  assert_int_equal(l.destroys, 1);
  hrx_gpu_device_release(l.device);
}

static void test_eviction_spares_leases_and_pins(void** state) {
  (void)state;
  loader_t l = {.device = gpu_test_device_open(), .weight_bytes = 4000};
  hrx_model_resident_loader_t loader = loader_of(&l);
  hrx_model_residency_t* r = NULL;
  assert_ok(hrx_model_residency_create(10000, hrx_allocator_system(), &r));
  void *a = NULL, *b = NULL, *c = NULL, *again = NULL, *d = NULL;
  assert_ok(hrx_model_residency_load_budgeted(r, 'a', &loader, &a));
  assert_ok(hrx_model_residency_release(r, 'a'));
  assert_ok(hrx_model_residency_load_budgeted(r, 'b', &loader, &b));
  assert_ok(hrx_model_residency_release(r, 'b'));
  assert_status_code(hrx_model_residency_pin(r, 'x'), HRX_STATUS_NOT_FOUND);
  assert_ok(hrx_model_residency_pin(r, 'b'));
  /* c does not fit beside a and b: a, the least recently used unit with
   * no lease or pin, goes. */
  assert_ok(hrx_model_residency_load_budgeted(r, 'c', &loader, &c));
  hrx_model_residency_stats_t stats = stats_of(r);
  assert_int_equal(stats.evictions, 1);
  assert_int_equal(stats.residents, 2);
  assert_int_equal(stats.pinned, 1);
  assert_int_equal(stats.leased, 1);
  assert_int_equal(stats.live_bytes, 8000);
  assert_int_equal(l.destroys, 1);
  /* A held unit is shared, not loaded again. */
  assert_ok(hrx_model_residency_load_budgeted(r, 'c', &loader, &again));
  assert_ptr_equal(again, c);
  assert_int_equal(stats_of(r).hits, 1);
  assert_ok(hrx_model_residency_release(r, 'c'));
  /* b is pinned and c leased: d is refused, and nothing changed. */
  assert_status(hrx_model_residency_load_budgeted(r, 'd', &loader, &d),
                HRX_STATUS_RESOURCE_EXHAUSTED, "none of the 2 other units");
  assert_int_equal(stats_of(r).live_bytes, 8000);
  bool evicted = false;
  assert_status_code(hrx_model_residency_evict(r, 'b', &evicted),
                     HRX_STATUS_BUSY);
  assert_status_code(hrx_model_residency_evict(r, 'c', &evicted),
                     HRX_STATUS_BUSY);
  /* An unpinned unit still in use (its idle callback says so) stays. */
  assert_ok(hrx_model_residency_unpin(r, 'b'));
  assert_status_code(hrx_model_residency_unpin(r, 'b'),
                     HRX_STATUS_FAILED_PRECONDITION);
  l.busy = true;
  assert_status_code(hrx_model_residency_load_budgeted(r, 'd', &loader, &d),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  l.busy = false;
  assert_ok(hrx_model_residency_load_budgeted(r, 'd', &loader, &d));
  assert_int_equal(stats_of(r).evictions, 2);
  assert_int_equal(l.destroys, 2);
  assert_ok(hrx_model_residency_evict(r, 'x', &evicted));
  assert_false(evicted);
  assert_ok(hrx_model_residency_release(r, 'c'));
  assert_ok(hrx_model_residency_evict(r, 'c', &evicted));
  assert_true(evicted);
  assert_int_equal(stats_of(r).live_bytes, 4000);
  assert_ok(hrx_model_residency_release(r, 'd'));
  hrx_model_residency_destroy(r);
  assert_int_equal(l.destroys, 4);
  assert_int_equal(l.loads, 4);
  hrx_gpu_device_release(l.device);
}

/* A declared unit: host memory the loader reports, not charged itself. */
typedef struct declared_t {
  uint64_t report;
  int destroys;
} declared_t;

static hrx_status_t declared_load(void* user, uint64_t key,
                                  hrx_budget_t* budget, void** out_value,
                                  uint64_t* out_bytes) {
  (void)key;
  (void)budget;
  declared_t* d = user;
  *out_value = malloc(d->report ? d->report : 1);
  *out_bytes = d->report;
  return HRX_OK;
}

static void declared_destroy(void* user, void* value) {
  ++((declared_t*)user)->destroys;
  free(value);
}

static void test_declared_peaks(void** state) {
  (void)state;
  declared_t d = {.report = 3000};
  hrx_model_resident_loader_t loader = {declared_load, declared_destroy, NULL,
                                        &d};
  hrx_model_residency_t* r = NULL;
  assert_ok(hrx_model_residency_create(10000, hrx_allocator_system(), &r));
  void *first = NULL, *second = NULL;
  /* The peak is charged, then shrunk to what the loader reports. */
  assert_ok(hrx_model_residency_load(r, 1, 6000, &loader, &first));
  hrx_model_residency_stats_t stats = stats_of(r);
  assert_int_equal(stats.live_bytes, 3000);
  assert_int_equal(stats.declared_bytes, 3000);
  /* 3000 + 8000 passes the ceiling while the first is leased: BUSY. */
  assert_status(hrx_model_residency_load(r, 2, 8000, &loader, &second),
                HRX_STATUS_BUSY, "fits the ceiling of 10000 bytes");
  assert_int_equal(stats_of(r).live_bytes, 3000);
  assert_ok(hrx_model_residency_release(r, 1));
  assert_ok(hrx_model_residency_load(r, 2, 8000, &loader, &second));
  stats = stats_of(r);
  assert_int_equal(stats.evictions, 1);
  assert_int_equal(stats.live_bytes, 3000);
  assert_int_equal(d.destroys, 1);
  /* A report of 0 or above the peak fails, and the unit is freed. */
  d.report = 9000;
  void* bad = NULL;
  assert_status(hrx_model_residency_load(r, 3, 4000, &loader, &bad),
                HRX_STATUS_INVALID_ARGUMENT, "declared peak of 4000");
  d.report = 0;
  assert_status_code(hrx_model_residency_load(r, 3, 4000, &loader, &bad),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_int_equal(d.destroys, 3);
  stats = stats_of(r);
  assert_int_equal(stats.live_bytes, 3000);
  assert_int_equal(stats.declared_bytes, 3000);
  assert_int_equal(stats.residents, 1);
  assert_ok(hrx_model_residency_release(r, 2));
  hrx_budget_t* budget = hrx_model_residency_budget(r);
  hrx_budget_retain(budget);
  hrx_model_residency_destroy(r);
  assert_int_equal(hrx_budget_live_bytes(budget), 0);
  hrx_budget_release(budget);
}

static hrx_status_t pipe_load_unit(void* user, uint64_t key,
                                   hrx_budget_t* budget, void** out_value,
                                   uint64_t* out_bytes) {
  (void)user;
  (void)key;
  (void)out_bytes;
  *out_value = pipe_create(budget);
  return HRX_OK;
}

static void pipe_destroy_unit(void* user, void* value) {
  (void)user;
  pipe_destroy(value);
}

/* A session built on the manager's budget: its weights, scratch and
 * readback storage are charged there, freezing moves the weights' charge
 * instead of adding one, and destroying the manager frees it all. */
static void test_sessions_charge_the_ceiling(void** state) {
  (void)state;
  hrx_model_resident_loader_t loader = {pipe_load_unit, pipe_destroy_unit,
                                        NULL, NULL};
  const uint64_t weights = sizeof(pipe_weights_t);
  hrx_model_residency_t* r = NULL;
  /* Room for the weights, one scratch arena and x and out, and not for
   * the readback of out besides. */
  const uint64_t ceiling = weights + PIPE_D * 4 * 2 + PIPE_N * 4;
  assert_ok(hrx_model_residency_create(ceiling, hrx_allocator_system(), &r));
  hrx_budget_t* budget = hrx_model_residency_budget(r);
  hrx_budget_retain(budget);
  void* value = NULL;
  assert_ok(hrx_model_residency_load_budgeted(r, 7, &loader, &value));
  pipe_t* pipe = value;
  assert_ptr_equal(hrx_model_session_budget(pipe->session), budget);
  assert_int_equal(hrx_budget_live_bytes(budget), weights);

  hrx_model_frozen_t* frozen = NULL;
  assert_ok(hrx_model_session_freeze(pipe->session, &frozen));
  assert_int_equal(hrx_model_frozen_bytes(frozen), weights);
  assert_int_equal(hrx_budget_live_bytes(budget), weights);
  hrx_model_frozen_release(frozen); /* the session keeps its reference */

  pipe_io_t io = {0};
  assert_ok(hrx_model_session_scratch(pipe->session, PIPE_D * 4, &io.y));
  assert_ok(hrx_model_session_allocate(pipe->session, PIPE_D * 4,
                                       HRX_MODEL_PLACEMENT_DEVICE, &io.x));
  assert_ok(hrx_model_session_allocate(pipe->session, PIPE_N * 4,
                                       HRX_MODEL_PLACEMENT_COHERENT, &io.out));
  assert_int_equal(hrx_budget_live_bytes(budget), ceiling);
  assert_ok(pipe_record_io(pipe, 1, &io));
  assert_ok(hrx_model_session_replay(pipe->session, 1, 10 * SECOND));
  hrx_model_binding_t read = {io.out, 0, 0, HRX_GPU_ACCESS_READ};
  const void* data = NULL;
  assert_status(hrx_model_session_read(pipe->session, &read, 1, &data),
                HRX_STATUS_RESOURCE_EXHAUSTED, "readback storage");
  assert_int_equal(hrx_budget_live_bytes(budget), ceiling);
  assert_ok(hrx_model_residency_release(r, 7));
  hrx_model_residency_destroy(r);
  assert_int_equal(hrx_budget_live_bytes(budget), 0);
  hrx_budget_release(budget);
}

/* A prepared model of a resident unit charges its slots' host staging
 * and readback to the ceiling on first use, keeps them for reuse, and
 * gives them back when it is destroyed. */
static void test_slot_staging_is_counted(void** state) {
  (void)state;
  hrx_model_resident_loader_t loader = {pipe_load_unit, pipe_destroy_unit,
                                        NULL, NULL};
  hrx_model_residency_t* r = NULL;
  assert_ok(hrx_model_residency_create(1u << 20, hrx_allocator_system(), &r));
  hrx_budget_t* budget = hrx_model_residency_budget(r);
  void* value = NULL;
  assert_ok(hrx_model_residency_load_budgeted(r, 9, &loader, &value));
  pipe_t* pipe = value;
  hrx_model_prepared_t* prepared = NULL;
  assert_ok(hrx_model_prepare(pipe->session, 1, pipe_slot_factory, pipe,
                              &prepared));
  uint64_t before = hrx_budget_live_bytes(budget);
  const uint64_t staging = PIPE_D * 4 + PIPE_N * 4; /* inputs + outputs */
  for (uint32_t request = 0; request < 2; ++request) {
    float x[PIPE_D], out[PIPE_N];
    uint32_t seed = 11 + request;
    for (int i = 0; i < PIPE_D; ++i) x[i] = pipe_random(&seed);
    hrx_model_slot_t* slot = NULL;
    assert_ok(hrx_model_prepared_acquire(prepared, 10 * SECOND, &slot));
    hrx_model_tensor_t* tensor = NULL;
    assert_ok(hrx_model_slot_submit_host(slot, x, sizeof(x), &tensor));
    assert_true(hrx_budget_live_bytes(budget) >= before + staging);
    assert_ok(hrx_model_tensor_read(tensor, out, sizeof(out), 10 * SECOND));
    pipe_assert_output(&pipe->weights, x, out);
    hrx_model_tensor_release(tensor);
  }
  /* Both requests used the same staging, charged once. */
  assert_int_equal(hrx_budget_live_bytes(budget), before + staging);
  hrx_model_prepared_destroy(prepared);
  assert_int_equal(hrx_budget_live_bytes(budget), before);
  assert_ok(hrx_model_residency_release(r, 9));
  hrx_budget_retain(budget);
  hrx_model_residency_destroy(r);
  assert_int_equal(hrx_budget_live_bytes(budget), 0);
  hrx_budget_release(budget);
}

typedef struct racer_t {
  hrx_model_residency_t* residency;
  hrx_model_resident_loader_t loader;
  void* value;
} racer_t;

static void* racer_run(void* arg) {
  racer_t* racer = arg;
  assert_ok(hrx_model_residency_load_budgeted(racer->residency, 3,
                                              &racer->loader, &racer->value));
  return NULL;
}

/* Concurrent loads of one key share one loader call. */
static void test_concurrent_loads_share_one(void** state) {
  (void)state;
  loader_t l = {.device = gpu_test_device_open(), .weight_bytes = 1000};
  hrx_model_residency_t* r = NULL;
  assert_ok(hrx_model_residency_create(1000, hrx_allocator_system(), &r));
  enum { kThreads = 8 };
  racer_t racers[kThreads];
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) {
    racers[i] = (racer_t){r, loader_of(&l), NULL};
    assert_int_equal(pthread_create(&threads[i], NULL, racer_run, &racers[i]),
                     0);
  }
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  hrx_model_residency_stats_t stats = stats_of(r);
  assert_int_equal(l.loads, 1);
  assert_int_equal(stats.loads, 1);
  assert_int_equal(stats.hits, kThreads - 1);
  for (int i = 0; i < kThreads; ++i) {
    assert_ptr_equal(racers[i].value, racers[0].value);
    assert_ok(hrx_model_residency_release(r, 3));
  }
  assert_int_equal(stats_of(r).leased, 0);
  hrx_model_residency_destroy(r);
  hrx_gpu_device_release(l.device);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ceiling_refuses_before_allocating),
      cmocka_unit_test(test_eviction_spares_leases_and_pins),
      cmocka_unit_test(test_declared_peaks),
      cmocka_unit_test(test_sessions_charge_the_ceiling),
      cmocka_unit_test(test_slot_staging_is_counted),
      cmocka_unit_test(test_concurrent_loads_share_one),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
