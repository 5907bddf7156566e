/* Memory budgets: ceilings, peaks, sharing between owners and threads. */
#include <pthread.h>
#include <string.h>

#include "test_support.h"

static void test_charge_and_uncharge(void** state) {
  (void)state;
  hrx_budget_t* budget = NULL;
  assert_ok(hrx_budget_create(1000, hrx_allocator_system(), &budget));
  assert_ok(hrx_budget_charge(budget, 600));
  assert_ok(hrx_budget_charge(budget, 400));
  assert_int_equal(hrx_budget_live_bytes(budget), 1000);
  hrx_status_t status = hrx_budget_charge(budget, 1);
  assert_non_null(strstr(hrx_status_message(status),
                         "requested 1 bytes, live 1000 bytes, limit 1000"));
  assert_status_code(status, HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_int_equal(hrx_budget_live_bytes(budget), 1000);
  assert_ok(hrx_budget_uncharge(budget, 700));
  assert_int_equal(hrx_budget_live_bytes(budget), 300);
  assert_int_equal(hrx_budget_peak_bytes(budget), 1000);
  hrx_budget_stats_t stats = HRX_STRUCT_INIT(hrx_budget_stats_t);
  assert_ok(hrx_budget_stats(budget, &stats));
  assert_int_equal(stats.failed_charges, 1);
  assert_int_equal(stats.limit_bytes, 1000);
  hrx_budget_release(budget);
}

static void test_over_uncharge_is_rejected(void** state) {
  (void)state;
  hrx_budget_t* budget = NULL;
  assert_ok(hrx_budget_create(HRX_BUDGET_UNLIMITED, hrx_allocator_system(),
                              &budget));
  assert_ok(hrx_budget_charge(budget, 10));
  assert_status_code(hrx_budget_uncharge(budget, 11),
                     HRX_STATUS_FAILED_PRECONDITION);
  assert_int_equal(hrx_budget_live_bytes(budget), 10);
  hrx_budget_release(budget);
}

static void test_overflowing_charge(void** state) {
  (void)state;
  hrx_budget_t* budget = NULL;
  assert_ok(hrx_budget_create(HRX_BUDGET_UNLIMITED, hrx_allocator_system(),
                              &budget));
  assert_ok(hrx_budget_charge(budget, UINT64_MAX - 5));
  assert_status_code(hrx_budget_charge(budget, 10),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  hrx_budget_release(budget);
}

static void test_shared_owners(void** state) {
  (void)state;
  test_allocator_t counts = {0};
  hrx_budget_t* budget = NULL;
  assert_ok(hrx_budget_create(100, test_allocator(&counts), &budget));
  hrx_budget_retain(budget);
  hrx_budget_release(budget);
  assert_int_equal(counts.live, 1);
  hrx_budget_release(budget);
  assert_int_equal(counts.live, 0);
  hrx_budget_release(NULL);
}

static hrx_status_t create_budget(hrx_allocator_t allocator, void* context) {
  return hrx_budget_create(1, allocator, (hrx_budget_t**)context);
}
static void release_budget(hrx_allocator_t allocator, void* context) {
  (void)allocator;
  hrx_budget_release(*(hrx_budget_t**)context);
}

static void test_create_allocation_failure(void** state) {
  (void)state;
  hrx_budget_t* budget = NULL;
  assert_int_equal(
      test_exhaust_allocations(create_budget, release_budget, &budget), 1);
}

#define THREADS 4
#define ROUNDS 20000

static void* charge_loop(void* arg) {
  hrx_budget_t* budget = arg;
  for (int i = 0; i < ROUNDS; ++i) {
    hrx_status_t status = hrx_budget_charge(budget, 3);
    if (status == HRX_OK) {
      hrx_status_free(hrx_budget_uncharge(budget, 3));
    } else {
      hrx_status_free(status);
    }
  }
  return NULL;
}

static void test_concurrent_charges_never_pass_limit(void** state) {
  (void)state;
  hrx_budget_t* budget = NULL;
  assert_ok(hrx_budget_create(7, hrx_allocator_system(), &budget));
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; ++i) {
    assert_int_equal(pthread_create(&threads[i], NULL, charge_loop, budget),
                     0);
  }
  for (int i = 0; i < THREADS; ++i) pthread_join(threads[i], NULL);
  assert_int_equal(hrx_budget_live_bytes(budget), 0);
  assert_true(hrx_budget_peak_bytes(budget) <= 7);
  hrx_budget_release(budget);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_charge_and_uncharge),
      cmocka_unit_test(test_over_uncharge_is_rejected),
      cmocka_unit_test(test_overflowing_charge),
      cmocka_unit_test(test_shared_owners),
      cmocka_unit_test(test_create_allocation_failure),
      cmocka_unit_test(test_concurrent_charges_never_pass_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
