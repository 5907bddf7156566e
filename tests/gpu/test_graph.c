/* Stream graphs (explicit and access-inferred edges, replay, ownership)
 * and buffer pools. */
#include <stdlib.h>
#include <string.h>

#include "gpu_test_util.h"

static hrx_gpu_view_t slice(hrx_gpu_buffer_t* b, uint64_t offset,
                            uint64_t length) {
  hrx_gpu_view_t view;
  assert_ok(hrx_gpu_view_slice(hrx_gpu_buffer_binding(b), offset, length,
                               &view));
  return view;
}

static void expect_deps(const hrx_gpu_graph_t* g, hrx_gpu_node_t node,
                        const hrx_gpu_node_t* expected, size_t count) {
  size_t actual = 0;
  const hrx_gpu_node_t* deps = hrx_gpu_graph_node_deps(g, node, &actual);
  if (actual != count) fail_msg("node %u has %zu deps, want %zu", node, actual, count);
  for (size_t i = 0; i < count; ++i) assert_int_equal(deps[i], expected[i]);
}

static void test_explicit_graph_replays(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_kernel_t* saxpy = gpu_test_kernel(f->device, "saxpy.loom", NULL,
                                            "saxpy");
  hrx_gpu_buffer_t *x = NULL, *y = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 256 * 4, &x));
  assert_ok(hrx_gpu_stream_allocate(f->stream, 256 * 4, &y));
  hrx_gpu_graph_t* g = NULL;
  assert_ok(hrx_gpu_graph_create(f->device, HRX_GPU_GRAPH_DEFAULT, &g));
  float one = 1.0f;
  uint32_t bits;
  memcpy(&bits, &one, 4);
  hrx_gpu_node_t fx, fy, k, join;
  assert_ok(hrx_gpu_graph_fill(g, hrx_gpu_buffer_binding(x), bits, NULL, 0, &fx));
  assert_ok(hrx_gpu_graph_fill(g, hrx_gpu_buffer_binding(y), 0, NULL, 0, &fy));
  hrx_gpu_node_t both[] = {fx, fy, fx};
  assert_ok(hrx_gpu_graph_join(g, both, 3, &join));
  expect_deps(g, join, (hrx_gpu_node_t[]){0, 1}, 2); /* duplicates collapse */
  uint64_t n = 256;
  uint32_t two;
  float twof = 2.0f;
  memcpy(&two, &twof, 4);
  hrx_gpu_arg_t args[] = {
      hrx_gpu_arg_scalar(n), hrx_gpu_arg_scalar(two),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(x), HRX_GPU_ACCESS_READ),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(y), HRX_GPU_ACCESS_READ_WRITE)};
  hrx_gpu_launch_t launch = {&n, 1, args, 4};
  assert_ok(hrx_gpu_graph_dispatch(g, saxpy, &launch, &join, 1, &k));
  hrx_gpu_node_t bad = 99;
  assert_status_code(hrx_gpu_graph_join(g, &bad, 1, NULL),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_int_equal(hrx_gpu_graph_binding_bytes(g), 2 * 256 * 4);
  /* The graph owns what it recorded. */
  hrx_gpu_kernel_release(saxpy);
  hrx_gpu_buffer_retain(y);
  hrx_gpu_buffer_release(x);
  for (int replay = 0; replay < 3; ++replay) {
    assert_ok(hrx_gpu_graph_replay(g, f->stream));
  }
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
  /* Each replay resets y to 0 and computes y = 2 * 1. */
  const float* ys = hrx_gpu_buffer_host_pointer(y);
  for (int i = 0; i < 256; ++i) assert_true(ys[i] == 2.0f);
  hrx_gpu_graph_destroy(g);
  hrx_gpu_buffer_release(y);
  hrx_gpu_buffer_release(y);
}

static void test_inferred_edges_are_minimal(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_buffer_t *a = NULL, *b = NULL;
  assert_ok(hrx_gpu_stream_allocate(f->stream, 64, &a));
  assert_ok(hrx_gpu_stream_allocate(f->stream, 64, &b));
  hrx_gpu_graph_t* g = NULL;
  assert_ok(hrx_gpu_graph_create(f->device, HRX_GPU_GRAPH_INFER_ACCESS, &g));
  hrx_gpu_node_t n0, n1, n2, n3, n4, n5, n6;
  /* n0, n1: writes to disjoint halves of a: independent. */
  assert_ok(hrx_gpu_graph_fill(g, slice(a, 0, 32), 1, NULL, 0, &n0));
  assert_ok(hrx_gpu_graph_fill(g, slice(a, 32, 32), 2, NULL, 0, &n1));
  expect_deps(g, n1, NULL, 0);
  /* n2 reads a[16, 48) into b[0, 32): RAW on both writers. */
  assert_ok(hrx_gpu_graph_copy(g, slice(a, 16, 32), slice(b, 0, 32), NULL, 0,
                               &n2));
  expect_deps(g, n2, (hrx_gpu_node_t[]){0, 1}, 2);
  /* n3 reads a[0, 8): only n0 wrote there. Two reads share no edge. */
  assert_ok(hrx_gpu_graph_copy(g, slice(a, 0, 8), slice(b, 40, 8), NULL, 0,
                               &n3));
  expect_deps(g, n3, (hrx_gpu_node_t[]){0}, 1);
  /* n4 overwrites a[0, 64): WAR on readers n2, n3; the WAW on n0 and n1 is
   * implied through them and dropped. */
  assert_ok(hrx_gpu_graph_fill(g, slice(a, 0, 64), 3, NULL, 0, &n4));
  expect_deps(g, n4, (hrx_gpu_node_t[]){2, 3}, 2);
  /* n5 writes b[32, 40): no one touched it; n6 writes b[0, 8): WAW on n2
   * only (n3 wrote b[40, 48)). */
  assert_ok(hrx_gpu_graph_fill(g, slice(b, 32, 8), 4, NULL, 0, &n5));
  expect_deps(g, n5, NULL, 0);
  assert_ok(hrx_gpu_graph_fill(g, slice(b, 0, 8), 5, NULL, 0, &n6));
  expect_deps(g, n6, (hrx_gpu_node_t[]){2}, 1);
  /* An explicit edge already implied is not duplicated. */
  hrx_gpu_node_t n7;
  assert_ok(hrx_gpu_graph_fill(g, slice(a, 0, 4), 6, &n2, 1, &n7));
  expect_deps(g, n7, (hrx_gpu_node_t[]){4}, 1);
  hrx_gpu_graph_destroy(g);
  hrx_gpu_buffer_release(a);
  hrx_gpu_buffer_release(b);
}

/* Random copies and fills over random byte ranges: replaying the graph
 * equals a sequential CPU simulation, and every pair of conflicting nodes
 * is connected while no edge joins non-conflicting ones. */
typedef struct op_t {
  int kind; /* 0 fill, 1 copy */
  int src, dst;
  uint32_t src_off, dst_off, len, pattern;
} op_t;

static bool overlaps(int b1, uint32_t o1, uint32_t l1, int b2, uint32_t o2,
                     uint32_t l2) {
  return b1 == b2 && o1 < o2 + l2 && o2 < o1 + l1;
}

static bool conflict(const op_t* p, const op_t* q) {
  /* Writes of p vs reads/writes of q and reads of p vs writes of q. */
  bool ww = overlaps(p->dst, p->dst_off, p->len, q->dst, q->dst_off, q->len);
  bool wr = q->kind == 1 &&
            overlaps(p->dst, p->dst_off, p->len, q->src, q->src_off, q->len);
  bool rw = p->kind == 1 &&
            overlaps(p->src, p->src_off, p->len, q->dst, q->dst_off, q->len);
  return ww || wr || rw;
}

static bool reachable(const hrx_gpu_graph_t* g, hrx_gpu_node_t from,
                      hrx_gpu_node_t to) {
  if (from == to) return true;
  size_t count = 0;
  const hrx_gpu_node_t* deps = hrx_gpu_graph_node_deps(g, from, &count);
  for (size_t i = 0; i < count; ++i) {
    if (deps[i] >= to && reachable(g, deps[i], to)) return true;
  }
  return false;
}

static void test_random_access_graphs(void** state) {
  gpu_fixture_t* f = *state;
  enum { BUFFERS = 3, BYTES = 256, OPS = 60, ROUNDS = 30 };
  uint32_t seed = 2024;
  for (int round = 0; round < ROUNDS; ++round) {
    hrx_gpu_buffer_t* buffers[BUFFERS];
    uint8_t model[BUFFERS][BYTES];
    memset(model, 0, sizeof(model));
    for (int i = 0; i < BUFFERS; ++i) {
      assert_ok(hrx_gpu_stream_allocate(f->stream, BYTES, &buffers[i]));
    }
    hrx_gpu_graph_t* g = NULL;
    assert_ok(hrx_gpu_graph_create(f->device, HRX_GPU_GRAPH_INFER_ACCESS, &g));
    op_t ops[OPS];
    for (int i = 0; i < OPS; ++i) {
      op_t* op = &ops[i];
      seed = seed * 1103515245u + 12345u;
      op->kind = (seed >> 16) % 3 ? 1 : 0;
      seed = seed * 1103515245u + 12345u;
      op->len = 4 * (1 + (seed >> 16) % 16);
      seed = seed * 1103515245u + 12345u;
      op->dst = (int)((seed >> 16) % BUFFERS);
      op->dst_off = 4 * ((seed >> 20) % ((BYTES - op->len) / 4 + 1));
      seed = seed * 1103515245u + 12345u;
      op->src = (int)((seed >> 16) % BUFFERS);
      op->src_off = 4 * ((seed >> 20) % ((BYTES - op->len) / 4 + 1));
      op->pattern = seed;
      if (op->kind == 1 && op->src == op->dst) op->src = (op->dst + 1) % BUFFERS;
      hrx_gpu_node_t node;
      if (op->kind == 0) {
        assert_ok(hrx_gpu_graph_fill(g, slice(buffers[op->dst], op->dst_off,
                                              op->len),
                                     op->pattern, NULL, 0, &node));
        for (uint32_t k = 0; k < op->len; k += 4) {
          memcpy(&model[op->dst][op->dst_off + k], &op->pattern, 4);
        }
      } else {
        assert_ok(hrx_gpu_graph_copy(
            g, slice(buffers[op->src], op->src_off, op->len),
            slice(buffers[op->dst], op->dst_off, op->len), NULL, 0, &node));
        memmove(&model[op->dst][op->dst_off], &model[op->src][op->src_off],
                op->len);
      }
    }
    for (int i = 0; i < OPS; ++i) {
      size_t count = 0;
      const hrx_gpu_node_t* deps = hrx_gpu_graph_node_deps(g, (uint32_t)i, &count);
      for (size_t d = 0; d < count; ++d) {
        assert_true(conflict(&ops[deps[d]], &ops[i]));
      }
      for (int j = 0; j < i; ++j) {
        if (conflict(&ops[j], &ops[i])) {
          assert_true(reachable(g, (uint32_t)i, (uint32_t)j));
        }
      }
    }
    assert_ok(hrx_gpu_graph_replay(g, f->stream));
    assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
    for (int i = 0; i < BUFFERS; ++i) {
      assert_memory_equal(hrx_gpu_buffer_host_pointer(buffers[i]), model[i],
                          BYTES);
      hrx_gpu_buffer_release(buffers[i]);
    }
    hrx_gpu_graph_destroy(g);
  }
}

static void test_buffer_pool(void** state) {
  gpu_fixture_t* f = *state;
  hrx_gpu_buffer_pool_t* pool = NULL;
  assert_ok(hrx_gpu_buffer_pool_create(f->device, 1500, &pool));
  hrx_gpu_buffer_t *a = NULL, *b = NULL, *c = NULL;
  assert_status_code(hrx_gpu_buffer_pool_acquire(pool, 0, &a),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_ok(hrx_gpu_buffer_pool_acquire(pool, 1000, &a));
  void* a_memory = hrx_gpu_buffer_host_pointer(a);
  hrx_gpu_buffer_release(a);
  hrx_gpu_buffer_pool_stats_t stats =
      HRX_STRUCT_INIT(hrx_gpu_buffer_pool_stats_t);
  assert_ok(hrx_gpu_buffer_pool_stats(pool, &stats));
  assert_int_equal(stats.free_bytes, 1000);
  /* 900 fits best in the free 1000-byte buffer. */
  assert_ok(hrx_gpu_buffer_pool_acquire(pool, 900, &a));
  assert_ptr_equal(hrx_gpu_buffer_host_pointer(a), a_memory);
  /* 400 would waste more than half of it: a new buffer. */
  hrx_gpu_buffer_release(a);
  assert_ok(hrx_gpu_buffer_pool_acquire(pool, 400, &b));
  assert_ptr_not_equal(hrx_gpu_buffer_host_pointer(b), a_memory);
  assert_ok(hrx_gpu_buffer_pool_acquire(pool, 1200, &c)); /* 1000 too small */
  hrx_gpu_buffer_release(b); /* free: 1000 + 400 */
  hrx_gpu_buffer_release(c); /* 1200 more: the largest free ones go */
  assert_ok(hrx_gpu_buffer_pool_stats(pool, &stats));
  assert_int_equal(stats.free_bytes, 1200);
  assert_int_equal(stats.free_buffers, 1);
  assert_int_equal(stats.hits, 1);
  assert_int_equal(stats.misses, 3);
  assert_int_equal(stats.evictions, 2);
  /* A newer caller's larger struct: the member this library lacks reads
   * zero; a struct_size of 0 is refused naming the type. */
  struct {
    hrx_gpu_buffer_pool_stats_t known;
    uint64_t future;
  } newer;
  memset(&newer, 0x5A, sizeof(newer));
  newer.known.struct_size = sizeof(newer);
  assert_ok(hrx_gpu_buffer_pool_stats(pool, &newer.known));
  assert_int_equal(newer.known.evictions, 2);
  assert_int_equal(newer.future, 0);
  newer.known.struct_size = 0;
  assert_status(hrx_gpu_buffer_pool_stats(pool, &newer.known),
                HRX_STATUS_INVALID_ARGUMENT,
                "hrx_gpu_buffer_pool_stats_t.struct_size is 0");
  /* Pooled buffers work like any other and outlive the pool handle. */
  assert_ok(hrx_gpu_buffer_pool_acquire(pool, 64, &a));
  /* Two holders of the pool release in either order. */
  hrx_gpu_buffer_pool_retain(pool);
  hrx_gpu_buffer_pool_release(pool);
  hrx_gpu_buffer_pool_release(pool);
  assert_ok(hrx_gpu_stream_fill(f->stream, hrx_gpu_buffer_binding(a), 7));
  assert_ok(hrx_gpu_stream_synchronize(f->stream, 10 * SECOND));
  assert_int_equal(((uint32_t*)hrx_gpu_buffer_host_pointer(a))[3], 7);
  hrx_gpu_buffer_release(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      GPU_FIXTURE_TEST(test_explicit_graph_replays),
      GPU_FIXTURE_TEST(test_inferred_edges_are_minimal),
      GPU_FIXTURE_TEST(test_random_access_graphs),
      GPU_FIXTURE_TEST(test_buffer_pool),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
