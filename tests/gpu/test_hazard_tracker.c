/* The byte-range hazard tracker against crafted cases and a byte-granular
 * oracle. */
#include <stdlib.h>
#include <string.h>

#include "hrx/gpu.h"
#include "test_support.h"

static int setup(void** state) {
  hrx_gpu_hazard_tracker_t* tracker = NULL;
  assert_ok(hrx_gpu_hazard_tracker_create(hrx_allocator_system(), &tracker));
  *state = tracker;
  return 0;
}

static int teardown(void** state) {
  hrx_gpu_hazard_tracker_destroy(*state);
  return 0;
}

/* Records one access by |node| and checks the node's deps so far. */
static void expect(hrx_gpu_hazard_tracker_t* t, uint32_t node,
                   uint64_t resource, uint64_t begin, uint64_t end,
                   hrx_gpu_access_t access, const uint32_t* want,
                   size_t want_count) {
  assert_ok(hrx_gpu_hazard_tracker_access(t, node, resource, begin, end,
                                          access));
  size_t count = 0;
  const uint32_t* deps = hrx_gpu_hazard_tracker_deps(t, &count);
  assert_int_equal(count, want_count);
  for (size_t i = 0; want && i < count; ++i) {
    assert_int_equal(deps[i], want[i]);
  }
}

static void test_frontier_anchor(void** state) {
  hrx_gpu_hazard_tracker_t* t = *state;
  expect(t, 0, 1, 0, 64, HRX_GPU_ACCESS_WRITE, NULL, 0);
  expect(t, 1, 1, 0, 32, HRX_GPU_ACCESS_READ, (uint32_t[]){0}, 1);
  expect(t, 2, 1, 64, 96, HRX_GPU_ACCESS_READ, NULL, 0);
  expect(t, 3, 1, 16, 80, HRX_GPU_ACCESS_WRITE, (uint32_t[]){0, 1, 2}, 3);
  expect(t, 4, 1, 24, 32, HRX_GPU_ACCESS_READ, (uint32_t[]){3}, 1);
}

static void test_hazard_kinds(void** state) {
  hrx_gpu_hazard_tracker_t* t = *state;
  /* Reads never order against reads; other resources never conflict. */
  expect(t, 0, 7, 0, 100, HRX_GPU_ACCESS_READ, NULL, 0);
  expect(t, 1, 7, 50, 150, HRX_GPU_ACCESS_READ, NULL, 0);
  expect(t, 2, 8, 0, 100, HRX_GPU_ACCESS_WRITE, NULL, 0);
  /* WAR on both readers, not on the unrelated writer of resource 8. */
  expect(t, 3, 7, 40, 60, HRX_GPU_ACCESS_WRITE, (uint32_t[]){0, 1}, 2);
  /* WAW with nobody reading in between. */
  expect(t, 4, 7, 40, 60, HRX_GPU_ACCESS_READ_WRITE, (uint32_t[]){3}, 1);
  /* Adjacent but disjoint ranges do not conflict: 3 and 4 wrote [40, 60),
   * while 0 and 1 still read [60, 70). */
  expect(t, 5, 7, 60, 70, HRX_GPU_ACCESS_WRITE, (uint32_t[]){0, 1}, 2);
  /* One node's several accesses collect into one sorted set, without
   * itself. */
  expect(t, 6, 8, 0, 10, HRX_GPU_ACCESS_READ, (uint32_t[]){2}, 1);
  expect(t, 6, 7, 0, 150, HRX_GPU_ACCESS_READ, (uint32_t[]){2, 4, 5}, 3);
  /* Its own read of [0, 10) is no hazard for its write. */
  expect(t, 6, 8, 0, 10, HRX_GPU_ACCESS_WRITE, (uint32_t[]){2, 4, 5}, 3);
  /* An empty range is no access. */
  expect(t, 7, 8, 5, 5, HRX_GPU_ACCESS_WRITE, NULL, 0);
}

static void test_writes_coalesce(void** state) {
  hrx_gpu_hazard_tracker_t* t = *state;
  for (uint32_t n = 0; n < 100; ++n) {
    assert_ok(hrx_gpu_hazard_tracker_access(t, 2 * n, 1, n * 8, n * 8 + 8,
                                            HRX_GPU_ACCESS_READ));
    assert_ok(hrx_gpu_hazard_tracker_access(t, 2 * n + 1, 1, n * 8 + 4,
                                            n * 8 + 12, HRX_GPU_ACCESS_WRITE));
  }
  assert_true(hrx_gpu_hazard_tracker_segment_count(t) > 100);
  /* Each read's first half is still read; each write's tail still written
   * with nobody reading after: every node is on the frontier once. */
  expect(t, 1000, 1, 0, 4096, HRX_GPU_ACCESS_WRITE, NULL, 200);
  assert_int_equal(hrx_gpu_hazard_tracker_segment_count(t), 1);
}

static void test_bad_arguments(void** state) {
  hrx_gpu_hazard_tracker_t* t = *state;
  assert_status_code(hrx_gpu_hazard_tracker_access(t, 0, UINT64_MAX, 0, 1,
                                                   HRX_GPU_ACCESS_READ),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_gpu_hazard_tracker_access(t, 0, 1, 9, 1,
                                                   HRX_GPU_ACCESS_READ),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_gpu_hazard_tracker_access(t, 0, 1, 0, 1,
                                                   (hrx_gpu_access_t)9),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_ok(hrx_gpu_hazard_tracker_access(t, 5, 1, 0, 1, HRX_GPU_ACCESS_READ));
  assert_status_code(hrx_gpu_hazard_tracker_access(t, 4, 1, 0, 1,
                                                   HRX_GPU_ACCESS_READ),
                     HRX_STATUS_INVALID_ARGUMENT);
}

/*===------------------------------------------------------------------===*/
/* Oracle                                                                  */
/*===------------------------------------------------------------------===*/

#define ORACLE_RESOURCES 3
#define ORACLE_BYTES 96
#define ORACLE_NODES 400

typedef struct oracle_byte_t {
  int writer;
  uint8_t readers[ORACLE_NODES / 8];
} oracle_byte_t;

static uint64_t next_random(uint64_t* state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

/* Applies the tracker's rules byte by byte. */
static void oracle_access(oracle_byte_t* bytes, int node, uint64_t begin,
                          uint64_t end, hrx_gpu_access_t access,
                          uint8_t* want) {
  for (uint64_t b = begin; b < end; ++b) {
    oracle_byte_t* o = &bytes[b];
    if (access == HRX_GPU_ACCESS_READ) {
      if (o->writer >= 0 && o->writer != node) {
        want[o->writer / 8] |= 1u << (o->writer % 8);
      }
      o->readers[node / 8] |= 1u << (node % 8);
      continue;
    }
    bool other = false;
    for (int r = 0; r < ORACLE_NODES; ++r) {
      if (r != node && (o->readers[r / 8] >> (r % 8) & 1)) {
        other = true;
        want[r / 8] |= 1u << (r % 8);
      }
    }
    if (!other && o->writer >= 0 && o->writer != node) {
      want[o->writer / 8] |= 1u << (o->writer % 8);
    }
    o->writer = node;
    memset(o->readers, 0, sizeof(o->readers));
  }
}

static void test_matches_byte_oracle(void** state) {
  hrx_gpu_hazard_tracker_t* t = *state;
  static oracle_byte_t bytes[ORACLE_RESOURCES][ORACLE_BYTES];
  uint64_t random = 0x2545f4914f6cdd1dull;
  for (int round = 0; round < 20; ++round) {
    hrx_gpu_hazard_tracker_reset(t);
    for (int r = 0; r < ORACLE_RESOURCES; ++r) {
      for (int b = 0; b < ORACLE_BYTES; ++b) {
        bytes[r][b].writer = -1;
        memset(bytes[r][b].readers, 0, sizeof(bytes[r][b].readers));
      }
    }
    for (int node = 0; node < ORACLE_NODES; ++node) {
      uint8_t want[ORACLE_NODES / 8] = {0};
      int accesses = 1 + (int)(next_random(&random) % 3);
      for (int a = 0; a < accesses; ++a) {
        int resource = (int)(next_random(&random) % ORACLE_RESOURCES);
        uint64_t x = next_random(&random) % (ORACLE_BYTES + 1);
        uint64_t y = next_random(&random) % (ORACLE_BYTES + 1);
        uint64_t begin = x < y ? x : y, end = x < y ? y : x;
        hrx_gpu_access_t access =
            (hrx_gpu_access_t)(next_random(&random) % 3);
        assert_ok(hrx_gpu_hazard_tracker_access(t, (uint32_t)node,
                                                (uint64_t)resource + 100,
                                                begin, end, access));
        oracle_access(bytes[resource], node, begin, end, access, want);
      }
      size_t count = 0;
      const uint32_t* deps = hrx_gpu_hazard_tracker_deps(t, &count);
      size_t want_count = 0;
      for (int n = 0; n < ORACLE_NODES; ++n) {
        if (!(want[n / 8] >> (n % 8) & 1)) continue;
        if (want_count >= count || deps[want_count] != (uint32_t)n) {
          fail_msg("round %d node %d: tracker and oracle disagree at dep %d",
                   round, node, n);
        }
        want_count++;
      }
      assert_int_equal(count, want_count);
    }
  }
}

/* Every allocation failure is reported and leaks nothing; a tracker that
 * failed keeps refusing work (FAILED_PRECONDITION once its state is lost)
 * until a reset. */
static hrx_status_t tracker_workload(hrx_allocator_t allocator,
                                     void* context) {
  (void)context;
  hrx_gpu_hazard_tracker_t* t = NULL;
  HRX_RETURN_IF_ERROR(hrx_gpu_hazard_tracker_create(allocator, &t));
  hrx_status_t status = HRX_OK;
  for (uint32_t n = 0; n < 40 && status == HRX_OK; ++n) {
    status = hrx_gpu_hazard_tracker_access(
        t, n, n % 5, (n * 7) % 64, (n * 7) % 64 + 16,
        (hrx_gpu_access_t)(n % 3));
  }
  if (status != HRX_OK) {
    hrx_status_t again =
        hrx_gpu_hazard_tracker_access(t, 99, 1, 0, 8, HRX_GPU_ACCESS_READ);
    assert_non_null(again);
    hrx_status_free(again);
    hrx_gpu_hazard_tracker_reset(t);
  }
  hrx_gpu_hazard_tracker_destroy(t);
  return status;
}

static void test_allocation_failures(void** state) {
  (void)state;
  assert_true(test_exhaust_allocations(tracker_workload, NULL, NULL) > 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_frontier_anchor, setup, teardown),
      cmocka_unit_test_setup_teardown(test_hazard_kinds, setup, teardown),
      cmocka_unit_test_setup_teardown(test_writes_coalesce, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_matches_byte_oracle, setup,
                                      teardown),
      cmocka_unit_test(test_allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
