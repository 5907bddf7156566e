/* Corpus kernels end to end on the host device: compiled by libhrx-loom's
 * host backend, dispatched through AQL queues and completion signals,
 * checked against C references for several sizes. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_kernels.h"
#include "host_harness.h"

static int setup(void** state) {
  harness_t* h = malloc(sizeof(*h));
  harness_open(h);
  *state = h;
  return 0;
}

static int teardown(void** state) {
  harness_close(*state);
  free(*state);
  return 0;
}

static void test_saxpy(void** state) {
  harness_t* h = *state;
  harness_load(h, "saxpy.loom", NULL);
  const size_t sizes[] = {1, 31, 256, 257, 1000, 4099};
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
    size_t n = sizes[s];
    hrx_fabric_memory_t x = harness_buffer(h, n * 4);
    hrx_fabric_memory_t y = harness_buffer(h, n * 4);
    float* xs = x.host_pointer;
    float* ys = y.host_pointer;
    float* expected = malloc(n * 4);
    for (size_t i = 0; i < n; ++i) {
      xs[i] = (float)i * 0.5f - 3.0f;
      ys[i] = (float)(i % 7) + 0.25f;
      expected[i] = fmaf(2.5f, xs[i], ys[i]);
    }
    uint64_t workload[] = {n};
    harness_arg_t args[] = {ARG_U64(n), arg_f32(2.5f), ARG_BUF(x), ARG_BUF(y)};
    assert_ok(harness_run(h, "saxpy", workload, 1, args, 4));
    assert_memory_equal(ys, expected, n * 4);
    free(expected);
    hrx_fabric_memory_free(h->device, &x);
    hrx_fabric_memory_free(h->device, &y);
  }
}


static void test_reduce_sum_shuffles(void** state) {
  harness_t* h = *state;
  harness_load(h, "reduce_sum.loom", NULL);
  const size_t sizes[] = {1, 32, 33, 1000, 70000};
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
    size_t n = sizes[s];
    size_t waves = n < 64 ? 1 : 7;
    hrx_fabric_memory_t in = harness_buffer(h, n * 4);
    hrx_fabric_memory_t out = harness_buffer(h, waves * 4);
    float* xs = in.host_pointer;
    double* expected = calloc(waves, sizeof(double));
    for (size_t i = 0; i < n; ++i) {
      xs[i] = (float)((i * 7) % 13) - 6.0f; /* small integers: exact sums */
      expected[i / 32 % waves] += xs[i];
    }
    uint64_t workload[] = {n, waves};
    harness_arg_t args[] = {ARG_U64(n), ARG_U64(waves), ARG_BUF(in),
                            ARG_BUF(out)};
    assert_ok(harness_run(h, "reduce_sum", workload, 2, args, 4));
    const float* partial = out.host_pointer;
    for (size_t w = 0; w < waves; ++w) {
      assert_true(partial[w] == (float)expected[w]);
    }
    free(expected);
    hrx_fabric_memory_free(h->device, &in);
    hrx_fabric_memory_free(h->device, &out);
  }
}

static void test_gather_clamps_ids(void** state) {
  harness_t* h = *state;
  harness_load(h, "gather.loom", NULL);
  const size_t rows = 9, width = 5;
  const size_t counts[] = {1, 7, 64, 65, 300};
  hrx_fabric_memory_t table = harness_buffer(h, rows * width * 4);
  float* t = table.host_pointer;
  for (size_t i = 0; i < rows * width; ++i) t[i] = (float)i + 0.5f;
  for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
    size_t count = counts[c];
    hrx_fabric_memory_t ids = harness_buffer(h, count * 4);
    hrx_fabric_memory_t out = harness_buffer(h, count * width * 4);
    int32_t* id = ids.host_pointer;
    for (size_t r = 0; r < count; ++r) {
      /* In range, negative, and past the end. */
      id[r] = r % 3 == 0 ? (int32_t)(r % rows) : r % 3 == 1 ? -5 : 1000;
    }
    uint64_t workload[] = {count, width};
    harness_arg_t args[] = {ARG_U64(count), ARG_U64(width), ARG_U64(rows),
                            ARG_BUF(table), ARG_BUF(ids), ARG_BUF(out)};
    assert_ok(harness_run(h, "gather_rows", workload, 2, args, 6));
    const float* o = out.host_pointer;
    for (size_t r = 0; r < count; ++r) {
      size_t row = id[r] >= 0 && (size_t)id[r] < rows ? (size_t)id[r] : 0;
      for (size_t col = 0; col < width; ++col) {
        assert_true(o[r * width + col] == t[row * width + col]);
      }
    }
    hrx_fabric_memory_free(h->device, &ids);
    hrx_fabric_memory_free(h->device, &out);
  }
  hrx_fabric_memory_free(h->device, &table);
}

static uint16_t bf16_of(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return (uint16_t)(bits >> 16); /* exact for the small integers used */
}

static void test_linear_bf16(void** state) {
  harness_t* h = *state;
  const struct {
    const char* k;
    const char* n;
    size_t kk, nn;
  } shapes[] = {{"linear.k=128", "linear.n=1", 128, 1},
                {"linear.k=256", "linear.n=13", 256, 13},
                {"linear.k=512", "linear.n=64", 512, 64}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    const char* config[] = {shapes[s].k, shapes[s].n, NULL};
    harness_load(h, "linear_bf16.loom", config);
    size_t k = shapes[s].kk, n = shapes[s].nn;
    hrx_fabric_memory_t x = harness_buffer(h, k * 2);
    hrx_fabric_memory_t w = harness_buffer(h, n * k * 2);
    hrx_fabric_memory_t out = harness_buffer(h, n * 4);
    uint16_t* xs = x.host_pointer;
    uint16_t* ws = w.host_pointer;
    for (size_t i = 0; i < k; ++i) xs[i] = bf16_of((float)((int)(i % 5) - 2));
    for (size_t i = 0; i < n * k; ++i) {
      ws[i] = bf16_of((float)((int)(i % 7) - 3));
    }
    uint64_t workload[] = {0};
    harness_arg_t args[] = {ARG_BUF(x), ARG_BUF(w), ARG_BUF(out)};
    assert_ok(harness_run(h, "linear_bf16", workload, 1, args, 3));
    const float* o = out.host_pointer;
    for (size_t row = 0; row < n; ++row) {
      double sum = 0;
      for (size_t i = 0; i < k; ++i) {
        sum += (double)((int)(i % 5) - 2) * (double)((int)((row * k + i) % 7) - 3);
      }
      assert_true(o[row] == (float)sum);
    }
    hrx_fabric_memory_free(h->device, &x);
    hrx_fabric_memory_free(h->device, &w);
    hrx_fabric_memory_free(h->device, &out);
  }
}

static void test_transpose_through_local_memory(void** state) {
  harness_t* h = *state;
  /* Race-checked: the barrier orders every tile access. */
  h->sanitizers = HRX_LOOM_SANITIZE_RACE;
  harness_load(h, "transpose.loom", NULL);
  h->sanitizers = 0;
  const size_t shapes[][2] = {{1, 1}, {16, 16}, {17, 33}, {5, 100}, {64, 3}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    size_t rows = shapes[s][0], cols = shapes[s][1];
    hrx_fabric_memory_t in = harness_buffer(h, rows * cols * 4);
    hrx_fabric_memory_t out = harness_buffer(h, rows * cols * 4);
    float* a = in.host_pointer;
    for (size_t i = 0; i < rows * cols; ++i) a[i] = (float)i;
    uint64_t workload[] = {rows, cols};
    harness_arg_t args[] = {ARG_U64(rows), ARG_U64(cols), ARG_BUF(in),
                            ARG_BUF(out)};
    assert_ok(harness_run(h, "transpose", workload, 2, args, 4));
    const float* t = out.host_pointer;
    for (size_t r = 0; r < rows; ++r) {
      for (size_t c = 0; c < cols; ++c) {
        assert_true(t[c * rows + r] == a[r * cols + c]);
      }
    }
    hrx_fabric_memory_free(h->device, &in);
    hrx_fabric_memory_free(h->device, &out);
  }
}

static void test_atomic_histogram(void** state) {
  harness_t* h = *state;
  harness_load(h, "histogram.loom", NULL);
  const size_t sizes[] = {1, 127, 128, 129, 100000};
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
    size_t n = sizes[s];
    hrx_fabric_memory_t bytes = harness_buffer(h, n);
    hrx_fabric_memory_t bins = harness_buffer(h, 256 * 4);
    uint8_t* b = bytes.host_pointer;
    uint32_t expected[256] = {0};
    uint32_t seed = 12345;
    for (size_t i = 0; i < n; ++i) {
      seed = seed * 1103515245u + 12345u;
      b[i] = (uint8_t)(seed >> 16);
      expected[b[i]]++;
    }
    uint64_t workload[] = {n};
    harness_arg_t args[] = {ARG_U64(n), ARG_BUF(bytes), ARG_BUF(bins)};
    assert_ok(harness_run(h, "histogram", workload, 1, args, 3));
    assert_memory_equal(bins.host_pointer, expected, sizeof(expected));
    hrx_fabric_memory_free(h->device, &bytes);
    hrx_fabric_memory_free(h->device, &bins);
  }
}

static void test_affine_sampler(void** state) {
  harness_t* h = *state;
  harness_load(h, "affine_sampler.loom", NULL);
  const size_t sw = 13, sh = 9, dw = 11, dh = 10;
  const int dx = 3, dy = -2;
  hrx_fabric_memory_t src = harness_buffer(h, sw * sh * 3);
  hrx_fabric_memory_t dst = harness_buffer(h, dw * dh * 3);
  uint8_t* s = src.host_pointer;
  for (size_t i = 0; i < sw * sh * 3; ++i) s[i] = (uint8_t)(i * 37 + 11);
  uint64_t workload[] = {dw, dh};
  harness_arg_t args[] = {
      ARG_U64(dw),        ARG_U64(dh),        ARG_U64(sw),
      ARG_U64(sh),        arg_f32(1.0f),      arg_f32(0.0f),
      arg_f32((float)dx), arg_f32(0.0f),      arg_f32(1.0f),
      arg_f32((float)dy), ARG_U64(0x7f),      ARG_BUF(src),
      ARG_BUF(dst)};
  assert_ok(harness_run(h, "affine_rgb", workload, 2, args, 13));
  const uint8_t* d = dst.host_pointer;
  for (size_t y = 0; y < dh; ++y) {
    for (size_t x = 0; x < dw; ++x) {
      int sx = (int)x + dx, sy = (int)y + dy;
      bool inside = sx >= 0 && sy >= 0 && sx < (int)sw && sy < (int)sh;
      for (size_t c = 0; c < 3; ++c) {
        uint8_t want = inside ? s[((size_t)sy * sw + (size_t)sx) * 3 + c] : 0x7f;
        assert_int_equal(d[(y * dw + x) * 3 + c], want);
      }
    }
  }
  hrx_fabric_memory_free(h->device, &src);
  hrx_fabric_memory_free(h->device, &dst);
}

static void test_while_loop_and_atomics(void** state) {
  harness_t* h = *state;
  harness_load(h, "ring_drain.loom", NULL);
  const size_t count = 37;
  hrx_fabric_memory_t flag = harness_buffer(h, 4);
  hrx_fabric_memory_t payload = harness_buffer(h, count * 8);
  hrx_fabric_memory_t out = harness_buffer(h, count * 8);
  *(int32_t*)flag.host_pointer = 42;
  int64_t* p = payload.host_pointer;
  for (size_t i = 0; i < count; ++i) p[i] = (int64_t)i * -1000003;
  uint64_t workload[1] = {0};
  harness_arg_t args[] = {ARG_BUF(flag), ARG_BUF(payload), ARG_BUF(out),
                          ARG_U64(42), ARG_U64(count)};
  assert_ok(harness_run(h, "ring_drain", workload, 0, args, 5));
  assert_memory_equal(out.host_pointer, p, count * 8);
  assert_int_equal(*(int32_t*)flag.host_pointer, 0);
  hrx_fabric_memory_free(h->device, &flag);
  hrx_fabric_memory_free(h->device, &payload);
  hrx_fabric_memory_free(h->device, &out);
}

static void test_out_of_bounds_is_reported(void** state) {
  harness_t* h = *state;
  harness_load_source(h, "overflow.loom", corpus_overflow_kernel,
                      strlen(corpus_overflow_kernel), NULL);
  /* A guard allocation right after the target must stay untouched. */
  hrx_fabric_memory_t out = harness_buffer(h, 40);
  hrx_fabric_memory_t guard = harness_buffer(h, 64);
  memset(guard.host_pointer, 0xab, 64);
  uint64_t workload[] = {10};
  harness_arg_t args[] = {ARG_U64(10), ARG_BUF(out)};
  hrx_status_t status = harness_run(h, "overflow", workload, 1, args, 2);
  const char* message = hrx_status_message(status);
  assert_non_null(strstr(message, "out-of-bounds access in kernel "
                                  "'overflow'"));
  assert_non_null(strstr(message, "lane 10"));
  assert_non_null(strstr(message, "workgroup (0, 0, 0)"));
  assert_non_null(strstr(message, "4-byte access at offset 40"));
  assert_non_null(strstr(message, "+40 bytes"));
  assert_status_code(status, HRX_STATUS_ABORTED);
  for (int i = 0; i < 64; ++i) {
    assert_int_equal(((uint8_t*)guard.host_pointer)[i], 0xab);
  }
  /* Lanes inside the buffer may or may not have stored; the device and the
   * queue keep working either way. */
  hrx_fabric_fault_t none = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  assert_status_code(hrx_fabric_queue_take_fault(h->queue, &none),
                     HRX_STATUS_NOT_FOUND);
  harness_load(h, "saxpy.loom", NULL);
  hrx_fabric_memory_t x = harness_buffer(h, 8), y = harness_buffer(h, 8);
  ((float*)x.host_pointer)[1] = 2.0f;
  uint64_t n = 2;
  harness_arg_t saxpy_args[] = {ARG_U64(2), arg_f32(3.0f), ARG_BUF(x),
                                ARG_BUF(y)};
  assert_ok(harness_run(h, "saxpy", &n, 1, saxpy_args, 4));
  assert_true(((float*)y.host_pointer)[1] == 6.0f);
  hrx_fabric_memory_free(h->device, &x);
  hrx_fabric_memory_free(h->device, &y);
  hrx_fabric_memory_free(h->device, &out);
  hrx_fabric_memory_free(h->device, &guard);
}

static void test_unbound_buffer_is_reported(void** state) {
  harness_t* h = *state;
  harness_load(h, "saxpy.loom", NULL);
  hrx_fabric_memory_t y = harness_buffer(h, 16);
  float stack_array[4] = {0};
  hrx_fabric_memory_t fake = {.device_address = (uint64_t)(uintptr_t)stack_array,
                              .size = sizeof(stack_array)};
  uint64_t n = 4;
  harness_arg_t args[] = {ARG_U64(4), arg_f32(1.0f), ARG_BUF(fake),
                          ARG_BUF(y)};
  hrx_status_t status = harness_run(h, "saxpy", &n, 1, args, 4);
  assert_non_null(strstr(hrx_status_message(status), "unbound pointer"));
  assert_status_code(status, HRX_STATUS_ABORTED);
  hrx_fabric_memory_free(h->device, &y);
}

static void test_wave64_subgroup_ops(void** state) {
  harness_t* h = *state;
  harness_load_source(h, "subgroup.loom", corpus_subgroup_kernel,
                      strlen(corpus_subgroup_kernel), NULL);
  hrx_fabric_memory_t in = harness_buffer(h, 64 * 4);
  hrx_fabric_memory_t out = harness_buffer(h, 64 * 7 * 4);
  float* x = in.host_pointer;
  for (int l = 0; l < 64; ++l) x[l] = (float)((l * 37) % 64) + 1.0f / 3.0f;
  uint64_t none = 0;
  harness_arg_t args[] = {ARG_BUF(in), ARG_BUF(out)};
  assert_ok(harness_run(h, "subgroup_ops", &none, 0, args, 2));
  const float* o = out.host_pointer;
  float sum = 0;
  for (int l = 0; l < 64; ++l) sum += x[l];
  for (int l = 0; l < 64; ++l) {
    const float* row = o + l * 7;
    assert_true(row[0] == (l >= 1 ? x[l - 1] : x[l]));   /* up: own if none */
    assert_true(row[1] == (l <= 62 ? x[l + 1] : x[l]));  /* down */
    assert_true(row[2] == x[5]);                          /* index */
    assert_true(row[3] == x[l ^ 3]);                      /* xor */
    assert_true(fabsf(row[4] - sum) <= 1e-3f * sum);      /* reduce add */
    float max = x[l & ~7];
    for (int k = l & ~7; k < (l & ~7) + 8; ++k) max = fmaxf(max, x[k]);
    assert_true(row[5] == max);                           /* cluster max */
    uint32_t bits;
    memcpy(&bits, &x[l], 4);
    uint32_t back = hrx_f16_to_f32_bits(hrx_f32_bits_to_f16(bits));
    float expected;
    memcpy(&expected, &back, 4);
    assert_true(row[6] == expected);                      /* f16 rne */
    assert_true(row[6] != x[l]);                          /* really rounded */
  }
  hrx_fabric_memory_free(h->device, &in);
  hrx_fabric_memory_free(h->device, &out);
}

static void test_workitem_ids_in_three_dimensions(void** state) {
  harness_t* h = *state;
  harness_load_source(h, "ids.loom", corpus_ids_kernel,
                      strlen(corpus_ids_kernel), NULL);
  hrx_fabric_memory_t out = harness_buffer(h, 2 * 60 * 3 * 4);
  memset(out.host_pointer, 0xff, 2 * 60 * 3 * 4);
  uint64_t none = 0;
  harness_arg_t args[] = {ARG_BUF(out)};
  assert_ok(harness_run(h, "ids", &none, 0, args, 1));
  const int32_t* o = out.host_pointer;
  for (int g = 0; g < 2; ++g) {
    for (int flat = 0; flat < 60; ++flat) {
      const int32_t* id = o + (g * 60 + flat) * 3;
      if (id[0] != flat % 5 || id[1] != flat / 5 % 3 || id[2] != flat / 15) {
        fail_msg("group %d thread %d: ids %d %d %d", g, flat, id[0], id[1],
                 id[2]);
      }
    }
  }
  hrx_fabric_memory_free(h->device, &out);
}

/* Compiles the generated source |text| (freed) with |sanitizers|. */
static void load_generated(harness_t* h, const char* name, char* text,
                           uint32_t sanitizers) {
  h->sanitizers = sanitizers;
  harness_load_source(h, name, text, strlen(text), NULL);
  h->sanitizers = 0;
  free(text);
}

static hrx_status_t run_neighbour(harness_t* h, bool barrier,
                                  uint32_t sanitizers, int32_t* out_values) {
  load_generated(h, "neighbour.loom", corpus_neighbour_kernel(barrier),
                 sanitizers);
  hrx_fabric_memory_t out = harness_buffer(h, 64 * 4);
  uint64_t none = 0;
  harness_arg_t args[] = {ARG_BUF(out)};
  hrx_status_t status = harness_run(h, "neighbour", &none, 0, args, 1);
  memcpy(out_values, out.host_pointer, 64 * 4);
  hrx_fabric_memory_free(h->device, &out);
  return status;
}

/* The race sanitizer: a read of a neighbour's store with no barrier
 * between is reported with both accesses; with the barrier the kernel is
 * clean and right; without the sanitizer nothing is checked. */
static void test_race_sanitizer(void** state) {
  harness_t* h = *state;
  int32_t values[64];
  hrx_status_t status =
      run_neighbour(h, false, HRX_LOOM_SANITIZE_RACE, values);
  assert_status(status, HRX_STATUS_ABORTED,
                "data race in kernel 'neighbour', workgroup (0, 0, 0): "
                "work-item 0 reads 4 bytes of local memory at offset 4");
  status = run_neighbour(h, false, HRX_LOOM_SANITIZE_RACE, values);
  assert_status(status, HRX_STATUS_ABORTED, "that work-item 1 wrote");
  assert_ok(run_neighbour(h, true, HRX_LOOM_SANITIZE_RACE, values));
  for (int i = 0; i < 64; ++i) assert_int_equal(values[i], (i + 1) % 64);
  assert_ok(run_neighbour(h, false, 0, values));
  /* The device stays usable after a race report. */
  assert_ok(run_neighbour(h, true, HRX_LOOM_SANITIZE_RACE, values));
}

static hrx_status_t run_assume(harness_t* h, const char* facts,
                               uint32_t sanitizers, uint64_t n) {
  load_generated(h, "assume.loom", corpus_assume_kernel(facts), sanitizers);
  hrx_fabric_memory_t out = harness_buffer(h, 64 * 4);
  harness_arg_t args[] = {ARG_U64(n), ARG_BUF(out)};
  hrx_status_t status = harness_run(h, "assume", &n, 1, args, 2);
  const int32_t* values = out.host_pointer;
  for (int i = 0; status == HRX_OK && i < 64; ++i) {
    assert_int_equal(values[i], i);
  }
  hrx_fabric_memory_free(h->device, &out);
  return status;
}

/* The value sanitizer turns index.assume facts into checks naming the
 * fact, the lane and the value; facts that hold cost nothing visible, and
 * without the sanitizer facts are trusted. */
static void test_value_sanitizer(void** state) {
  harness_t* h = *state;
  const uint32_t value = HRX_LOOM_SANITIZE_VALUE;
  assert_ok(run_assume(h, "range(%id, 0, 63), lt(%id, %n)", value, 64));
  assert_status(run_assume(h, "range(%id, 0, 40)", value, 64),
                HRX_STATUS_ABORTED,
                "failed assertion in kernel 'assume' at instruction");
  assert_status(run_assume(h, "range(%id, 0, 40)", value, 64),
                HRX_STATUS_ABORTED,
                "lane 9, workgroup (0, 0, 0): index.assume fact 'range' does "
                "not hold for 41");
  assert_status(run_assume(h, "lt(%id, %n)", value, 10), HRX_STATUS_ABORTED,
                "fact 'lt' does not hold for 10");
  assert_status(run_assume(h, "mul(%id, 2)", value, 64), HRX_STATUS_ABORTED,
                "lane 1, workgroup (0, 0, 0): index.assume fact 'mul' does "
                "not hold for 1");
  assert_status(run_assume(h, "ne(%id, 5)", value, 64), HRX_STATUS_ABORTED,
                "fact 'ne' does not hold for 5");
  assert_ok(run_assume(h, "range(%id, 0, 40)", 0, 64));
}

static hrx_status_t run_operation(harness_t* h, const char* body,
                                  uint32_t sanitizers) {
  load_generated(h, "op.loom", corpus_operation_kernel(body), sanitizers);
  hrx_fabric_memory_t out = harness_buffer(h, 64 * 4);
  uint64_t none = 0;
  harness_arg_t args[] = {ARG_BUF(out)};
  hrx_status_t status = harness_run(h, "op", &none, 0, args, 1);
  hrx_fabric_memory_free(h->device, &out);
  return status;
}

/* The operation sanitizer: index arithmetic that overflows and shifts by
 * the width or more fault with the lane; scalar integers still wrap; and
 * unsanitized kernels keep the wrapping results. */
static void test_operation_sanitizer(void** state) {
  harness_t* h = *state;
  const uint32_t operation = HRX_LOOM_SANITIZE_OPERATION;
  const char* overflow = corpus_operation_bodies[0];
  const char* shift = corpus_operation_bodies[1];
  const char* wrap = corpus_operation_bodies[2];
  assert_status(run_operation(h, overflow, operation), HRX_STATUS_ABORTED,
                "integer overflow in kernel 'op' at instruction");
  assert_status(run_operation(h, overflow, operation), HRX_STATUS_ABORTED,
                ", lane 2, workgroup (0, 0, 0)");
  assert_status(run_operation(h, shift, operation), HRX_STATUS_ABORTED,
                "lane 24, workgroup (0, 0, 0): shift by 64 bits of a 64-bit "
                "value");
  assert_ok(run_operation(h, wrap, operation));
  assert_ok(run_operation(h, overflow, 0));
  assert_ok(run_operation(h, shift, 0));
}

/* Dispatches |kernel| (no workload) with |buffers| as its arguments, in
 * order. */
static void run_on(harness_t* h, const char* kernel,
                   const hrx_fabric_memory_t* buffers, size_t count) {
  harness_arg_t args[4];
  assert_true(count <= 4);
  for (size_t i = 0; i < count; ++i) args[i] = ARG_BUF(buffers[i]);
  uint64_t none = 0;
  assert_ok(harness_run(h, kernel, &none, 0, args, count));
}

/* Elementwise f32 vector arithmetic, four elements per work-item:
 * out = max(min((fma(2, x, y) - x) * y / 2, 1000), 0). */
static void test_vector_arithmetic(void** state) {
  harness_t* h = *state;
  load_generated(h, "vector.loom", corpus_vector_kernel(), 0);
  hrx_fabric_memory_t b[] = {harness_buffer(h, 256 * 4),
                             harness_buffer(h, 256 * 4),
                             harness_buffer(h, 256 * 4)};
  float* xs = b[0].host_pointer;
  float* ys = b[1].host_pointer;
  for (int i = 0; i < 256; ++i) {
    xs[i] = (float)(i % 17) - 4.0f;
    ys[i] = (float)(i % 13) * 0.75f - 3.0f;
  }
  run_on(h, "vector", b, 3);
  const float* o = b[2].host_pointer;
  for (int i = 0; i < 256; ++i) {
    float v = (fmaf(2.0f, xs[i], ys[i]) - xs[i]) * ys[i] / 2.0f;
    v = fmaxf(fminf(v, 1000.0f), 0.0f);
    if (o[i] != v) fail_msg("element %d: %g, expected %g", i, o[i], v);
  }
  for (int i = 0; i < 3; ++i) hrx_fabric_memory_free(h->device, &b[i]);
}

/* vector.reduce: per work-item, the sum (from an init of 0.5), the max of
 * four floats and the max of four i32 (from an init of -100). */
static void test_vector_reduce(void** state) {
  harness_t* h = *state;
  load_generated(h, "reduce.loom", corpus_vreduce_kernel(), 0);
  hrx_fabric_memory_t b[] = {harness_buffer(h, 256 * 4),
                             harness_buffer(h, 256 * 4),
                             harness_buffer(h, 192 * 4)};
  float* xs = b[0].host_pointer;
  int32_t* ns = b[1].host_pointer;
  for (int i = 0; i < 256; ++i) {
    xs[i] = (float)((i * 37) % 23) - 11.0f;
    ns[i] = (i * 53) % 301 - 150;
  }
  run_on(h, "vreduce", b, 3);
  const float* o = b[2].host_pointer;
  for (int w = 0; w < 64; ++w) {
    float sum = 0.5f, max = 0.5f;
    int32_t imax = -100;
    for (int e = 0; e < 4; ++e) {
      sum += xs[w * 4 + e];
      max = fmaxf(max, xs[w * 4 + e]);
      if (ns[w * 4 + e] > imax) imax = ns[w * 4 + e];
    }
    if (o[w * 3] != sum || o[w * 3 + 1] != max || o[w * 3 + 2] != (float)imax) {
      fail_msg("work-item %d: %g %g %g, expected %g %g %d", w, o[w * 3],
               o[w * 3 + 1], o[w * 3 + 2], sum, max, imax);
    }
  }
  for (int i = 0; i < 3; ++i) hrx_fabric_memory_free(h->device, &b[i]);
}

/* vector.extf / vector.fptrunc: bf16 vectors widened, scaled by 3 in f32
 * (out) and narrowed back with round-to-nearest-even (back). */
static void test_vector_casts(void** state) {
  harness_t* h = *state;
  load_generated(h, "casts.loom", corpus_casts_kernel(), 0);
  hrx_fabric_memory_t b[] = {harness_buffer(h, 256 * 2),
                             harness_buffer(h, 256 * 4),
                             harness_buffer(h, 256 * 2)};
  uint16_t* xs = b[0].host_pointer;
  for (int i = 0; i < 256; ++i) {
    float v = (float)i * 0.37f - 40.0f;
    uint32_t bits;
    memcpy(&bits, &v, 4);
    xs[i] = hrx_f32_bits_to_bf16(bits);
  }
  run_on(h, "casts", b, 3);
  const float* out = b[1].host_pointer;
  const uint16_t* back = b[2].host_pointer;
  for (int i = 0; i < 256; ++i) {
    uint32_t bits = hrx_bf16_to_f32_bits(xs[i]);
    float wide;
    memcpy(&wide, &bits, 4);
    float p = wide * 3.0f;
    uint32_t pbits;
    memcpy(&pbits, &p, 4);
    if (out[i] != p || back[i] != hrx_f32_bits_to_bf16(pbits)) {
      fail_msg("element %d: %g / 0x%04x, expected %g / 0x%04x", i, out[i],
               back[i], p, hrx_f32_bits_to_bf16(pbits));
    }
  }
  for (int i = 0; i < 3; ++i) hrx_fabric_memory_free(h->device, &b[i]);
}

/* row_dot.loom (vector loads, products and a reduction per step) against
 * a C loop, including a row count that leaves a partial workgroup. */
static void test_row_dot(void** state) {
  harness_t* h = *state;
  harness_load(h, "row_dot.loom", NULL);
  const size_t shapes[][2] = {{1, 4}, {70, 8}, {5, 64}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    size_t rows = shapes[s][0], k = shapes[s][1];
    hrx_fabric_memory_t a = harness_buffer(h, rows * k * 4);
    hrx_fabric_memory_t b = harness_buffer(h, rows * k * 4);
    hrx_fabric_memory_t out = harness_buffer(h, rows * 4);
    float* av = a.host_pointer;
    float* bv = b.host_pointer;
    for (size_t i = 0; i < rows * k; ++i) {
      av[i] = (float)(i % 7) - 3.0f;
      bv[i] = (float)(i % 5) * 0.5f;
    }
    uint64_t workload[] = {rows, k};
    harness_arg_t args[] = {ARG_U64(rows), ARG_U64(k), ARG_BUF(a), ARG_BUF(b),
                            ARG_BUF(out)};
    assert_ok(harness_run(h, "row_dot", workload, 2, args, 5));
    const float* o = out.host_pointer;
    for (size_t r = 0; r < rows; ++r) {
      float sum = 0;
      for (size_t j = 0; j < k; j += 4) {
        float step = sum;
        for (size_t e = 0; e < 4; ++e) {
          step += av[r * k + j + e] * bv[r * k + j + e];
        }
        sum = step;
      }
      if (o[r] != sum) {
        fail_msg("rows %zu k %zu row %zu: %g, expected %g", rows, k, r, o[r],
                 sum);
      }
    }
    hrx_fabric_memory_free(h->device, &a);
    hrx_fabric_memory_free(h->device, &b);
    hrx_fabric_memory_free(h->device, &out);
  }
}

/* Address arithmetic never wraps: an index times the element size (or a
 * linearised 2-D index) that overflows int64 would otherwise land inside
 * the buffer (2^62 + 1 -> element 1). Huge and negative indices fault out
 * of bounds, uniform or per lane, loaded or stored, constant or not, and
 * nothing is written. */
static void test_huge_indices_fault(void** state) {
  harness_t* h = *state;
  harness_load_source(h, "poke.loom", corpus_poke_kernels,
                      strlen(corpus_poke_kernels), NULL);
  const int64_t indices[] = {(INT64_C(1) << 62) + 1, INT64_MAX, -1,
                             INT64_MIN, -(INT64_C(1) << 62) + 1};
  const char* const kernels[] = {"store_uniform", "store_lane", "load_lane",
                                 "store_2d"};
  hrx_fabric_memory_t buf = harness_buffer(h, 16);
  for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); ++k) {
    for (size_t i = 0; i < sizeof(indices) / sizeof(indices[0]); ++i) {
      ((int32_t*)buf.host_pointer)[1] = 0;
      /* The 2-D view doubles the row index: 2^62 then wraps to row 0. */
      int64_t at = k == 3 && i == 0 ? INT64_C(1) << 62 : indices[i];
      uint64_t none = 0;
      harness_arg_t args[] = {ARG_BUF(buf), ARG_U64(at)};
      hrx_status_t status = harness_run(h, kernels[k], &none, 0, args, 2);
      char expected[96];
      snprintf(expected, sizeof(expected),
               "out-of-bounds access in kernel '%s'", kernels[k]);
      if (!status || !strstr(hrx_status_message(status), expected)) {
        fail_msg("%s[%" PRId64 "]: %s", kernels[k], at,
                 status ? hrx_status_message(status) : "no fault");
      }
      assert_status_code(status, HRX_STATUS_ABORTED);
      for (int e = 0; e < 4; ++e) {
        assert_int_equal(((int32_t*)buf.host_pointer)[e], 0);
      }
    }
  }
  uint64_t none = 0;
  harness_arg_t args[] = {ARG_BUF(buf), ARG_U64(4)};
  assert_status(harness_run(h, "store_folded", &none, 0, args, 2),
                HRX_STATUS_ABORTED,
                "out-of-bounds access in kernel 'store_folded'");
  /* In-range indices still work. */
  args[1] = ARG_U64(3);
  assert_ok(harness_run(h, "store_lane", &none, 0, args, 2));
  assert_int_equal(((int32_t*)buf.host_pointer)[3], 7);
  hrx_fabric_memory_free(h->device, &buf);
}

static hrx_status_t run_diverge(harness_t* h, bool by_wave,
                                uint32_t sanitizers, int64_t limit) {
  load_generated(h, "diverge.loom", corpus_divergent_barrier_kernel(by_wave),
                 sanitizers);
  uint64_t none = 0;
  harness_arg_t args[] = {ARG_U64(limit)};
  return harness_run(h, "diverge", &none, 0, args, 1);
}

/* The race sanitizer faults on a barrier that not every work-item of the
 * workgroup reaches: under a partial execution mask, or by one wave while
 * the other finishes. A barrier every work-item reaches stays fine, and
 * without the sanitizer nothing is checked. */
static void test_divergent_barrier_faults_under_race_sanitizer(void** state) {
  harness_t* h = *state;
  assert_status(run_diverge(h, false, HRX_LOOM_SANITIZE_RACE, 10),
                HRX_STATUS_ABORTED,
                "divergent barrier in kernel 'diverge' at instruction");
  assert_status(run_diverge(h, false, HRX_LOOM_SANITIZE_RACE, 10),
                HRX_STATUS_ABORTED,
                "work-item 10 of the workgroup does not reach this barrier");
  assert_status(run_diverge(h, true, HRX_LOOM_SANITIZE_RACE, 1),
                HRX_STATUS_ABORTED,
                "work-item 32 of the workgroup does not reach this barrier");
  assert_ok(run_diverge(h, false, HRX_LOOM_SANITIZE_RACE, 64));
  assert_ok(run_diverge(h, true, HRX_LOOM_SANITIZE_RACE, 2));
  assert_ok(run_diverge(h, false, 0, 10));
  assert_ok(run_diverge(h, true, 0, 1));
}

/* Divergent control deeper than the host's 64-entry mask stack is a
 * compile error at the if that overflows it, never a "bad launch" at run
 * time; 64 levels compile and run. */
static void test_divergent_nesting_limit(void** state) {
  harness_t* h = *state;
  const int depths[] = {65, 100};
  for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); ++i) {
    char* text = corpus_nested_if_kernel(depths[i]);
    char* diagnostics = harness_compile_error(h, "nest.loom", text);
    /* The 65th if, on line 77 of the generated source. */
    if (!strstr(diagnostics, "nest.loom:77:") ||
        !strstr(diagnostics, "nests more than 64 divergent ifs")) {
      fail_msg("depth %d: %s", depths[i], diagnostics);
    }
    free(diagnostics);
    free(text);
  }
  load_generated(h, "nest.loom", corpus_nested_if_kernel(64), 0);
  hrx_fabric_memory_t out = harness_buffer(h, 64 * 4);
  uint64_t none = 0;
  harness_arg_t args[] = {ARG_BUF(out)};
  assert_ok(harness_run(h, "nest", &none, 0, args, 1));
  for (int i = 0; i < 64; ++i) {
    assert_int_equal(((int32_t*)out.host_pointer)[i], 5);
  }
  hrx_fabric_memory_free(h->device, &out);
}

/* A kernel needing more registers than the host ISA has is refused at the
 * kernel's location, not at 0:0. */
static void test_register_limit_names_the_kernel(void** state) {
  harness_t* h = *state;
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_string_builder_appendf(
      &b, "  %%v = buffer.view %%out[%%o] : buffer -> view<[%%n]xf32>\n"
          "  %%s0 = vector.load %%v[%%id] : view<[%%n]xf32> -> "
          "vector<64xf32>\n"));
  /* 70 vectors of 64 elements, all live until the sum at the end. */
  for (int i = 1; i < 70; ++i) {
    assert_ok(hrx_string_builder_appendf(
        &b, "  %%a%d = index.add %%id, %%one : index\n"
            "  %%v%d = vector.load %%v[%%a%d] : view<[%%n]xf32> -> "
            "vector<64xf32>\n",
            i, i, i));
  }
  for (int i = 1; i < 70; ++i) {
    assert_ok(hrx_string_builder_appendf(
        &b, "  %%s%d = vector.addf %%s%d, %%v%d : vector<64xf32>\n", i,
        i - 1, i));
  }
  assert_ok(hrx_string_builder_appendf(
      &b, "  vector.store %%s69, %%v[%%id] : vector<64xf32>, "
          "view<[%%n]xf32>\n"));
  char* text = corpus_one_group_kernel("wide", "", "%out: buffer, %n: index",
                                       hrx_string_builder_cstr(&b));
  hrx_string_builder_deinit(&b);
  char* diagnostics = harness_compile_error(h, "wide.loom", text);
  if (!strstr(diagnostics, "wide.loom:2:") ||
      !strstr(diagnostics, "kernel needs more than 4096")) {
    fail_msg("%s", diagnostics);
  }
  free(diagnostics);
  free(text);
  /* A vector wider than the backend handles is refused where it is. */
  text = corpus_one_group_kernel(
      "wider", "", "%out: buffer",
      "  %v = buffer.view %out[%o] : buffer -> view<256xf32>\n"
      "  %w = vector.load %v[%id] : view<256xf32> -> vector<65xf32>\n"
      "  vector.store %w, %v[%id] : vector<65xf32>, view<256xf32>\n");
  diagnostics = harness_compile_error(h, "wider.loom", text);
  if (!strstr(diagnostics, "wider.loom:11:") ||
      !strstr(diagnostics, "at most 64 elements")) {
    fail_msg("%s", diagnostics);
  }
  free(diagnostics);
  free(text);
}

typedef struct compile_job_t {
  const hrx_loom_module_t* module;
  hrx_status_t status;
} compile_job_t;

static void* compile_job(void* arg) {
  compile_job_t* job = arg;
  hrx_loom_profile_t profile = hrx_loom_profile_host();
  uint8_t* code = NULL;
  size_t length = 0;
  job->status = hrx_loom_compile_host(job->module, NULL, &profile, NULL, NULL,
                                      hrx_allocator_system(), &code, &length);
  free(code);
  return NULL;
}

/* Compiles |text| on a thread with a |stack_kib| KiB stack. */
static hrx_status_t compile_on_thread(const char* text, size_t stack_kib) {
  hrx_loom_module_t* module = NULL;
  assert_ok(hrx_loom_module_parse(text, strlen(text), NULL, NULL,
                                  hrx_allocator_system(), &module));
  compile_job_t job = {.module = module};
  pthread_attr_t attr;
  assert_int_equal(pthread_attr_init(&attr), 0);
  assert_int_equal(pthread_attr_setstacksize(&attr, stack_kib << 10), 0);
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, &attr, compile_job, &job), 0);
  assert_int_equal(pthread_join(thread, NULL), 0);
  pthread_attr_destroy(&attr);
  hrx_loom_module_destroy(module);
  return job.status;
}

/* The backend recurses once per nesting level with a small frame: the
 * deepest nesting the parser accepts compiles on a 512 KiB worker stack
 * (sanitizers included). */
static void test_deep_nesting_compiles_on_a_worker_stack(void** state) {
  (void)state;
  for (int loops = 0; loops < 2; ++loops) {
    char* text = corpus_nested_kernel(250, loops, false);
    assert_ok(compile_on_thread(text, 512));
    free(text);
  }
}

/* Nested loops whose carried values turn per-lane make the uniformity
 * analysis revisit loop bodies; it resumes from what it found rather than
 * starting over, so 200 levels take moments, not 2^200 passes. */
static void test_nested_loop_analysis_is_not_exponential(void** state) {
  (void)state;
  char* text = corpus_nested_kernel(200, true, true);
  assert_ok(compile_on_thread(text, 4096));
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_saxpy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reduce_sum_shuffles, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_gather_clamps_ids, setup, teardown),
      cmocka_unit_test_setup_teardown(test_linear_bf16, setup, teardown),
      cmocka_unit_test_setup_teardown(test_transpose_through_local_memory,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_atomic_histogram, setup, teardown),
      cmocka_unit_test_setup_teardown(test_affine_sampler, setup, teardown),
      cmocka_unit_test_setup_teardown(test_while_loop_and_atomics, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_wave64_subgroup_ops, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_workitem_ids_in_three_dimensions,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_race_sanitizer, setup, teardown),
      cmocka_unit_test_setup_teardown(test_value_sanitizer, setup, teardown),
      cmocka_unit_test_setup_teardown(test_operation_sanitizer, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_vector_arithmetic, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_vector_reduce, setup, teardown),
      cmocka_unit_test_setup_teardown(test_vector_casts, setup, teardown),
      cmocka_unit_test_setup_teardown(test_row_dot, setup, teardown),
      cmocka_unit_test_setup_teardown(test_out_of_bounds_is_reported, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_unbound_buffer_is_reported, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_huge_indices_fault, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(
          test_divergent_barrier_faults_under_race_sanitizer, setup,
          teardown),
      cmocka_unit_test_setup_teardown(test_divergent_nesting_limit, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_register_limit_names_the_kernel,
                                      setup, teardown),
      cmocka_unit_test(test_deep_nesting_compiles_on_a_worker_stack),
      cmocka_unit_test(test_nested_loop_analysis_is_not_exponential),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
