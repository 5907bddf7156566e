/* Allocation profiles, allocate_shared, cache control and prepared host
 * steps on the host device (every profile coherent) and on the modelled
 * gfx1151 (cached GTT needs releases and acquires, coherent memory none). */
#include <stdlib.h>
#include <string.h>

#include "hrx/fabric.h"
#include "test_support.h"

#define GFX1151 HRX_KFD_FIXTURES "/gfx1151"

typedef enum device_kind_t { HOST, KFD } device_kind_t;

typedef struct env_t {
  device_kind_t kind;
  hrx_fabric_device_t* device;
} env_t;

static int env_setup(void** state, device_kind_t kind) {
  env_t* e = calloc(1, sizeof(*e));
  assert_non_null(e);
  e->kind = kind;
  if (kind == HOST) {
    hrx_fabric_host_options_t options =
        HRX_STRUCT_INIT(hrx_fabric_host_options_t);
    options.worker_count = 1;
    assert_ok(hrx_fabric_host_device_create(&options, hrx_allocator_system(),
                                            &e->device));
  } else {
    assert_int_equal(setenv("HRX_KFD_MODEL", GFX1151, 1), 0);
    assert_ok(hrx_fabric_kfd_device_create(0, hrx_allocator_system(),
                                           &e->device));
  }
  *state = e;
  return 0;
}

static int setup_host(void** state) { return env_setup(state, HOST); }
static int setup_kfd(void** state) { return env_setup(state, KFD); }

static int teardown(void** state) {
  env_t* e = *state;
  hrx_fabric_device_release(e->device);
  free(e);
  return 0;
}

static hrx_fabric_allocation_profile_t profile(env_t* e,
                                               hrx_fabric_visibility_t v) {
  hrx_fabric_allocation_profile_t p = {.struct_size = sizeof(p)};
  assert_ok(hrx_fabric_device_allocation_profile(e->device, v, &p));
  assert_int_equal(p.struct_size, sizeof(p));
  assert_int_equal(p.visibility, v);
  return p;
}

static void test_bad_queries(void** state) {
  env_t* e = *state;
  hrx_fabric_allocation_profile_t p = {0};
  assert_status(hrx_fabric_device_allocation_profile(
                    e->device, HRX_FABRIC_VISIBILITY_DEVICE, &p),
                HRX_STATUS_INVALID_ARGUMENT, "struct_size is 0");
  p.struct_size = sizeof(p) - 8;
  assert_status_code(hrx_fabric_device_allocation_profile(
                         e->device, HRX_FABRIC_VISIBILITY_DEVICE, &p),
                     HRX_STATUS_INVALID_ARGUMENT);
  p.struct_size = sizeof(p);
  assert_status(hrx_fabric_device_allocation_profile(
                    e->device, (hrx_fabric_visibility_t)3, &p),
                HRX_STATUS_INVALID_ARGUMENT, "unknown visibility 3");
  assert_string_equal(hrx_fabric_agent_name(HRX_FABRIC_AGENT_TRANSFER),
                      "transfer");
  assert_null(hrx_fabric_agent_name(HRX_FABRIC_AGENT_COUNT));
}

/* The host device: every profile coherent, every pair of the agents it
 * offers reaches without actions and is atomic at system scope for every
 * width; PM4 is not offered, so its pairs do not reach. */
static void test_host_profiles(void** state) {
  env_t* e = *state;
  for (int v = 0; v < HRX_FABRIC_VISIBILITY_COUNT; ++v) {
    hrx_fabric_allocation_profile_t p = profile(e, (hrx_fabric_visibility_t)v);
    assert_true(p.coherent);
    assert_true(p.host_mapped);
    assert_string_equal(p.memory_kind, "host memory");
    assert_false(p.agents[HRX_FABRIC_AGENT_PM4]);
    for (int a = 0; a < HRX_FABRIC_AGENT_COUNT; ++a) {
      for (int b = 0; b < HRX_FABRIC_AGENT_COUNT; ++b) {
        const hrx_fabric_visibility_pair_t* pair = &p.pairs[a][b];
        bool offered = a != HRX_FABRIC_AGENT_PM4 && b != HRX_FABRIC_AGENT_PM4;
        assert_int_equal(pair->reachable, offered);
        assert_int_equal(pair->release, 0);
        assert_int_equal(pair->acquire, 0);
        for (int w = 0; w < HRX_FABRIC_ATOMIC_WIDTHS; ++w) {
          assert_int_equal(pair->atomics[w], offered
                                                 ? HRX_FABRIC_ATOMIC_SYSTEM
                                                 : HRX_FABRIC_ATOMIC_NONE);
        }
      }
    }
  }
}

/* gfx1151: cached GTT for DEVICE and HOST_VISIBLE, directional actions;
 * HOST_COHERENT needs none; GPU atomics 32/64-bit only, none on the
 * transfer engine. */
static void test_kfd_profiles(void** state) {
  env_t* e = *state;
  hrx_fabric_allocation_profile_t cached =
      profile(e, HRX_FABRIC_VISIBILITY_HOST_VISIBLE);
  assert_false(cached.coherent);
  assert_string_equal(cached.memory_kind, "GTT");
  for (int a = 0; a < HRX_FABRIC_AGENT_COUNT; ++a) {
    assert_true(cached.agents[a]);
  }
  const hrx_fabric_visibility_pair_t* to_gpu =
      &cached.pairs[HRX_FABRIC_AGENT_HOST][HRX_FABRIC_AGENT_PM4];
  assert_true(to_gpu->reachable);
  assert_int_equal(to_gpu->release, HRX_FABRIC_ACTION_HOST_WRITE_BACK);
  assert_int_equal(to_gpu->acquire, HRX_FABRIC_ACTION_QUEUE_ACQUIRE);
  assert_int_equal(to_gpu->atomics[2], HRX_FABRIC_ATOMIC_NONE);
  const hrx_fabric_visibility_pair_t* to_host =
      &cached.pairs[HRX_FABRIC_AGENT_TRANSFER][HRX_FABRIC_AGENT_HOST];
  assert_int_equal(to_host->release, HRX_FABRIC_ACTION_QUEUE_RELEASE);
  assert_int_equal(to_host->acquire, HRX_FABRIC_ACTION_HOST_INVALIDATE);
  const hrx_fabric_visibility_pair_t* gpu =
      &cached.pairs[HRX_FABRIC_AGENT_AQL][HRX_FABRIC_AGENT_PM4];
  assert_int_equal(gpu->release, HRX_FABRIC_ACTION_QUEUE_RELEASE);
  assert_int_equal(gpu->acquire, HRX_FABRIC_ACTION_QUEUE_ACQUIRE);
  assert_int_equal(gpu->atomics[0], HRX_FABRIC_ATOMIC_NONE);
  assert_int_equal(gpu->atomics[1], HRX_FABRIC_ATOMIC_NONE);
  assert_int_equal(gpu->atomics[2], HRX_FABRIC_ATOMIC_DEVICE);
  assert_int_equal(gpu->atomics[3], HRX_FABRIC_ATOMIC_DEVICE);
  assert_int_equal(
      cached.pairs[HRX_FABRIC_AGENT_AQL][HRX_FABRIC_AGENT_TRANSFER].atomics[2],
      HRX_FABRIC_ATOMIC_NONE);
  hrx_fabric_allocation_profile_t device =
      profile(e, HRX_FABRIC_VISIBILITY_DEVICE);
  assert_memory_equal(device.pairs, cached.pairs, sizeof(device.pairs));

  hrx_fabric_allocation_profile_t shared =
      profile(e, HRX_FABRIC_VISIBILITY_HOST_COHERENT);
  assert_true(shared.coherent);
  assert_string_equal(shared.memory_kind, "GTT coherent uncached");
  for (int a = 0; a < HRX_FABRIC_AGENT_COUNT; ++a) {
    for (int b = 0; b < HRX_FABRIC_AGENT_COUNT; ++b) {
      assert_true(shared.pairs[a][b].reachable);
      assert_int_equal(shared.pairs[a][b].release, 0);
      assert_int_equal(shared.pairs[a][b].acquire, 0);
    }
  }
  const hrx_fabric_visibility_pair_t* host_gpu =
      &shared.pairs[HRX_FABRIC_AGENT_HOST][HRX_FABRIC_AGENT_AQL];
  assert_int_equal(host_gpu->atomics[1], HRX_FABRIC_ATOMIC_NONE);
  assert_int_equal(host_gpu->atomics[3], HRX_FABRIC_ATOMIC_SYSTEM);
  assert_int_equal(
      shared.pairs[HRX_FABRIC_AGENT_HOST][HRX_FABRIC_AGENT_HOST].atomics[0],
      HRX_FABRIC_ATOMIC_SYSTEM);
}

/* allocate_shared is coherent memory; cache control checks its range and
 * keeps the bytes; a prepared step merges overlapping and touching ranges
 * once and leaves out those needing no action. */
static void test_cache_control_and_steps(void** state) {
  env_t* e = *state;
  hrx_fabric_memory_t shared, a, b;
  assert_ok(hrx_fabric_memory_allocate_shared(e->device, 4096, &shared));
  assert_int_equal(shared.visibility, HRX_FABRIC_VISIBILITY_HOST_COHERENT);
  assert_ok(hrx_fabric_memory_allocate(e->device, 4096,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE, &a));
  assert_ok(hrx_fabric_memory_allocate(e->device, 4096,
                                       HRX_FABRIC_VISIBILITY_DEVICE, &b));
  memset(a.host_pointer, 0x5A, 4096);
  assert_ok(hrx_fabric_memory_cache_control(
      e->device, &a, 0, 4096, HRX_FABRIC_CACHE_HOST_WRITES_DONE));
  assert_ok(hrx_fabric_memory_cache_control(
      e->device, &a, 100, 7, HRX_FABRIC_CACHE_HOST_READS_BEGIN));
  assert_int_equal(((uint8_t*)a.host_pointer)[4095], 0x5A);
  assert_ok(hrx_fabric_memory_cache_control(
      e->device, &shared, 0, 0, HRX_FABRIC_CACHE_HOST_READS_BEGIN));
  assert_status(hrx_fabric_memory_cache_control(
                    e->device, &a, 4000, 97, HRX_FABRIC_CACHE_HOST_WRITES_DONE),
                HRX_STATUS_INVALID_ARGUMENT, "not inside");
  assert_status(hrx_fabric_memory_cache_control(
                    e->device, &a, 0, 1, (hrx_fabric_cache_op_t)9),
                HRX_STATUS_INVALID_ARGUMENT, "unknown cache operation");

  const hrx_fabric_host_range_t ranges[] = {
      {&a, 256, 64},  {&a, 0, 128},    {&a, 128, 64},  /* touch: one */
      {&a, 1024, 8},  {&a, 1028, 100}, /* overlap: one */
      {&b, 64, 64},   {&b, 4000, 1},   {&shared, 0, 4096},
      {&a, 2048, 0}};
  size_t n = sizeof(ranges) / sizeof(ranges[0]);
  hrx_fabric_host_step_t* step = NULL;
  assert_ok(hrx_fabric_host_step_prepare(e->device,
                                         HRX_FABRIC_CACHE_HOST_WRITES_DONE,
                                         ranges, n, hrx_allocator_system(),
                                         &step));
  /* On the host device nothing needs an action; on gfx1151 the cached
   * ranges merge to [0, 192) + [256, 320) of a, [1024, 1128) of a, and two
   * of b, and the coherent one is left out. */
  assert_int_equal(hrx_fabric_host_step_range_count(step),
                   e->kind == HOST ? 0 : 5);
  hrx_fabric_host_step_run(step);
  hrx_fabric_host_step_run(step);
  hrx_fabric_host_step_destroy(step);
  const hrx_fabric_host_range_t bad[] = {{&a, 0, 8}, {&a, 4096, 1}};
  assert_status(hrx_fabric_host_step_prepare(
                    e->device, HRX_FABRIC_CACHE_HOST_READS_BEGIN, bad, 2,
                    hrx_allocator_system(), &step),
                HRX_STATUS_INVALID_ARGUMENT, "not inside");
  assert_null(step);
  hrx_fabric_memory_free(e->device, &b);
  hrx_fabric_memory_free(e->device, &a);
  hrx_fabric_memory_free(e->device, &shared);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_bad_queries, setup_host, teardown),
      cmocka_unit_test_setup_teardown(test_host_profiles, setup_host,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cache_control_and_steps,
                                      setup_host, teardown),
      cmocka_unit_test_setup_teardown(test_bad_queries, setup_kfd, teardown),
      cmocka_unit_test_setup_teardown(test_kfd_profiles, setup_kfd, teardown),
      cmocka_unit_test_setup_teardown(test_cache_control_and_steps, setup_kfd,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
