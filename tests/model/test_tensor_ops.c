/* TensorOps on the suite's device: linear (one and several projections,
 * F32 and BF16 outputs, K = 128..8192 on the host device), gathers of any
 * dtype, and both as fragments, against numpy computed in the same run
 * (tests/model/ref_tensor_ops.py). Every comparison is bit-exact: the
 * reference sums in the kernel's documented order, so no tolerance is
 * needed. Also: the shape rules, plan reuse, bounded slots and plans,
 * and concurrent calls. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "model_test_util.h"
#include "numpy_reference.h"

typedef struct fixture_t {
  hrx_gpu_device_t* device;
  hrx_model_session_t* session;
  hrx_model_tensor_ops_t* ops;
  char* cache;
  /* The modelled gfx1151 runs about a million wave-instructions a second:
   * its cases stay small, the host device runs the full sweep. */
  bool host;
  uint32_t seed;
} fixture_t;

static int setup(void** state) {
  fixture_t* f = calloc(1, sizeof(*f));
  f->device = gpu_test_device_open();
  f->host = gpu_test_is_host(f->device);
  f->cache = test_temp_dir_create();
  f->seed = 11;
  hrx_loom_compiler_options_t compiler =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  compiler.cache_root = f->cache;
  hrx_model_session_options_t options =
      HRX_STRUCT_INIT(hrx_model_session_options_t);
  options.compiler = &compiler;
  assert_ok(hrx_model_session_create(f->device, &options,
                                     hrx_allocator_system(), &f->session));
  assert_ok(hrx_model_tensor_ops_create(f->session, NULL, &f->ops));
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  hrx_model_tensor_ops_destroy(f->ops);
  hrx_model_session_destroy(f->session);
  hrx_gpu_device_release(f->device);
  test_temp_dir_remove(f->cache);
  free(f);
  return 0;
}

static uint32_t next_random(uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  return *state >> 8;
}

/* A random bf16 of magnitude 2^-6 .. 2^3: products and their sums stay
 * normal f32, where a product of two bf16 values is exact (the reference
 * relies on it; see ref_tensor_ops.py). */
static uint16_t random_bf16(uint32_t* state) {
  uint32_t r = next_random(state);
  uint32_t sign = r & 1u, exponent = 121u + (r >> 1) % 9u;
  uint32_t mantissa = (r >> 5) & 0x7fu;
  return (uint16_t)((sign << 15) | (exponent << 7) | mantissa);
}

static uint16_t* random_bf16s(uint32_t* state, size_t count) {
  uint16_t* values = malloc(count * 2);
  for (size_t i = 0; i < count; ++i) values[i] = random_bf16(state);
  return values;
}

static hrx_model_tensor_desc_t desc2(hrx_model_dtype_t dtype, uint64_t rows,
                                     uint64_t cols) {
  return (hrx_model_tensor_desc_t){dtype, 2, {rows, cols}, {0}};
}

static hrx_model_region_t load(fixture_t* f, const void* data, uint64_t bytes) {
  hrx_model_region_t region;
  assert_ok(hrx_model_session_weight(f->session, data, bytes, &region));
  return region;
}

/*===------------------------------------------------------------------===*/
/* Linear                                                                  */
/*===------------------------------------------------------------------===*/

/* One linear case: x, |count| weight matrices and numpy's answers. */
typedef struct linear_case_t {
  uint64_t k;
  size_t count;
  uint64_t n[3];
  uint64_t rows;
  uint16_t* x;
  uint16_t* w[3];
  float* want_f32; /* rows values */
  uint16_t* want_bf16;
} linear_case_t;

static void linear_case_init(fixture_t* f, linear_case_t* c, uint64_t k,
                             const uint64_t* n, size_t count) {
  memset(c, 0, sizeof(*c));
  c->k = k;
  c->count = count;
  c->x = random_bf16s(&f->seed, k);
  numpy_blob_t inputs[4] = {{"x", c->x, k * 2}};
  /* "linear", K, N0 .. N{count-1}, NULL */
  char* args[6] = {"linear", test_strdup_printf("%llu", (unsigned long long)k)};
  static const char* const names[] = {"w0", "w1", "w2"};
  for (size_t p = 0; p < count; ++p) {
    c->n[p] = n[p];
    c->rows += n[p];
    c->w[p] = random_bf16s(&f->seed, n[p] * k);
    inputs[1 + p] = (numpy_blob_t){names[p], c->w[p], n[p] * k * 2};
    args[2 + p] = test_strdup_printf("%llu", (unsigned long long)n[p]);
  }
  c->want_f32 = malloc(c->rows * 4);
  c->want_bf16 = malloc(c->rows * 2);
  numpy_blob_t outputs[] = {{"y_f32", c->want_f32, c->rows * 4},
                            {"y_bf16", c->want_bf16, c->rows * 2}};
  numpy_reference_run("ref_tensor_ops.py", (const char* const*)args, inputs,
                      1 + count, outputs, 2);
  for (size_t i = 1; i < 2 + count; ++i) free(args[i]);
}

static void linear_case_free(linear_case_t* c) {
  free(c->x);
  for (size_t p = 0; p < c->count; ++p) free(c->w[p]);
  free(c->want_f32);
  free(c->want_bf16);
}

/* Asserts |got| (|dtype| values of rows [first, first + n)) equals the
 * reference bit for bit, naming the first differing row. */
static void assert_rows_equal(const linear_case_t* c, hrx_model_dtype_t dtype,
                              const void* got, uint64_t first, uint64_t n) {
  size_t size = dtype == HRX_MODEL_DTYPE_F32 ? 4 : 2;
  const uint8_t* want = dtype == HRX_MODEL_DTYPE_F32
                            ? (const uint8_t*)(c->want_f32 + first)
                            : (const uint8_t*)(c->want_bf16 + first);
  for (uint64_t r = 0; r < n; ++r) {
    if (memcmp((const uint8_t*)got + r * size, want + r * size, size) != 0) {
      float g = 0, w = c->want_f32[first + r];
      if (size == 4) memcpy(&g, (const uint8_t*)got + r * size, 4);
      fail_msg("K = %llu, row %llu (%s): got %.9g (bits differ), numpy %.9g",
               (unsigned long long)c->k, (unsigned long long)(first + r),
               size == 4 ? "F32" : "BF16", g, w);
    }
  }
}

/* Runs |c| through linear_many with the weights at |offsets| of one
 * region per projection, for both output dtypes. */
static void run_linear_case(fixture_t* f, const linear_case_t* c) {
  hrx_model_io_t weights[3];
  for (size_t p = 0; p < c->count; ++p) {
    /* Projection p starts 256 * p bytes into its region: weights bound in
     * place at an offset. */
    uint64_t offset = 256 * p, bytes = c->n[p] * c->k * 2;
    uint8_t* padded = calloc(1, offset + bytes);
    memcpy(padded + offset, c->w[p], bytes);
    weights[p] = (hrx_model_io_t){
        {load(f, padded, offset + bytes), offset, 0, HRX_GPU_ACCESS_READ},
        desc2(HRX_MODEL_DTYPE_BF16, c->n[p], c->k)};
    free(padded);
  }
  hrx_model_tensor_desc_t input = desc2(HRX_MODEL_DTYPE_BF16, 1, c->k);
  const hrx_model_dtype_t dtypes[] = {HRX_MODEL_DTYPE_F32,
                                      HRX_MODEL_DTYPE_BF16};
  for (size_t d = 0; d < 2; ++d) {
    hrx_model_tensor_t* out[3] = {NULL};
    assert_ok(hrx_model_tensor_ops_linear_many(f->ops, &input, c->x, weights,
                                               c->count, dtypes[d], out));
    uint64_t first = 0;
    for (size_t p = 0; p < c->count; ++p) {
      const hrx_model_tensor_desc_t* desc = hrx_model_tensor_desc(out[p]);
      assert_int_equal(desc->dtype, dtypes[d]);
      assert_int_equal(desc->rank, 2);
      assert_int_equal(desc->shape[0], 1);
      assert_int_equal(desc->shape[1], c->n[p]);
      size_t bytes = c->n[p] * hrx_model_dtype_size(dtypes[d]);
      void* got = malloc(bytes);
      assert_ok(hrx_model_tensor_read(out[p], got, bytes, 60 * SECOND));
      assert_rows_equal(c, dtypes[d], got, first, c->n[p]);
      free(got);
      first += c->n[p];
    }
    for (size_t p = 0; p < c->count; ++p) hrx_model_tensor_release(out[p]);
  }
}

static void test_linear_sweep(void** state) {
  fixture_t* f = *state;
  /* N is never a multiple of the eight rows a workgroup takes. */
  static const uint64_t host_k[] = {128, 256, 384, 640, 1024, 2048, 4096, 8192};
  static const uint64_t host_n[] = {13, 1, 77, 9, 300, 33, 17, 5};
  static const uint64_t model_k[] = {128, 384, 1024};
  static const uint64_t model_n[] = {13, 1, 9};
  size_t cases = f->host ? 8 : 3;
  for (size_t i = 0; i < cases; ++i) {
    uint64_t k = f->host ? host_k[i] : model_k[i];
    uint64_t n = f->host ? host_n[i] : model_n[i];
    linear_case_t c;
    linear_case_init(f, &c, k, &n, 1);
    run_linear_case(f, &c);
    linear_case_free(&c);
  }
  if (f->host) {
    /* A decode-sized projection: many workgroups. */
    uint64_t n = 1001;
    linear_case_t c;
    linear_case_init(f, &c, 4096, &n, 1);
    run_linear_case(f, &c);
    linear_case_free(&c);
  }
}

static void test_linear_many_one_dispatch(void** state) {
  fixture_t* f = *state;
  uint64_t n[3] = {5, 17, 9};
  linear_case_t c;
  linear_case_init(f, &c, f->host ? 512 : 256, n, 3);
  hrx_model_tensor_ops_stats_t before =
      HRX_STRUCT_INIT(hrx_model_tensor_ops_stats_t);
  hrx_model_tensor_ops_stats_t after =
      HRX_STRUCT_INIT(hrx_model_tensor_ops_stats_t);
  assert_ok(hrx_model_tensor_ops_stats(f->ops, &before));
  run_linear_case(f, &c);
  assert_ok(hrx_model_tensor_ops_stats(f->ops, &after));
  /* Two output dtypes: two plans, each a single dispatch (checked through
   * the fragment test's node count). */
  assert_int_equal(after.plans.prepares - before.plans.prepares, 2);

  /* Two of the projections, through linear (one) and linear_many (two):
   * the same rows as in the three-projection dispatch. */
  hrx_model_io_t w[2] = {
      {{load(f, c.w[1], n[1] * c.k * 2), 0, 0, HRX_GPU_ACCESS_READ},
       desc2(HRX_MODEL_DTYPE_BF16, n[1], c.k)},
      {{load(f, c.w[2], n[2] * c.k * 2), 0, 0, HRX_GPU_ACCESS_READ},
       desc2(HRX_MODEL_DTYPE_BF16, n[2], c.k)}};
  hrx_model_tensor_desc_t input = {HRX_MODEL_DTYPE_BF16, 1, {c.k}, {0}};
  hrx_model_tensor_t* one = NULL;
  assert_ok(hrx_model_tensor_ops_linear(f->ops, &input, c.x, &w[0],
                                        HRX_MODEL_DTYPE_F32, &one));
  float got[32];
  assert_ok(hrx_model_tensor_read(one, got, n[1] * 4, 60 * SECOND));
  assert_rows_equal(&c, HRX_MODEL_DTYPE_F32, got, n[0], n[1]);
  hrx_model_tensor_release(one);
  hrx_model_tensor_t* two[2] = {NULL};
  assert_ok(hrx_model_tensor_ops_linear_many(f->ops, &input, c.x, w, 2,
                                             HRX_MODEL_DTYPE_BF16, two));
  uint16_t narrow[32];
  assert_ok(hrx_model_tensor_read(two[1], narrow, n[2] * 2, 60 * SECOND));
  assert_rows_equal(&c, HRX_MODEL_DTYPE_BF16, narrow, n[0] + n[1], n[2]);
  hrx_model_tensor_release(two[0]);
  hrx_model_tensor_release(two[1]);

  /* The same shape again reuses its plan. */
  assert_ok(hrx_model_tensor_ops_stats(f->ops, &before));
  assert_ok(hrx_model_tensor_ops_linear(f->ops, &input, c.x, &w[0],
                                        HRX_MODEL_DTYPE_F32, &one));
  hrx_model_tensor_release(one);
  assert_ok(hrx_model_tensor_ops_stats(f->ops, &after));
  assert_int_equal(after.plans.prepares, before.plans.prepares);
  assert_int_equal(after.plans.hits, before.plans.hits + 1);
  linear_case_free(&c);
}

/*===------------------------------------------------------------------===*/
/* Gather                                                                  */
/*===------------------------------------------------------------------===*/

/* Gathers |count| rows of a random [rows, elements] |dtype| table placed
 * |offset| bytes into its region and compares with numpy. */
static void check_gather(fixture_t* f, hrx_model_dtype_t dtype, uint64_t rows,
                         uint64_t elements, uint64_t offset,
                         const uint32_t* indices, size_t count) {
  uint64_t row_bytes = elements * hrx_model_dtype_size(dtype);
  uint64_t bytes = rows * row_bytes;
  uint8_t* table = malloc(offset + bytes);
  for (uint64_t i = 0; i < offset + bytes; ++i) {
    table[i] = (uint8_t)next_random(&f->seed);
  }
  hrx_model_io_t io = {
      {load(f, table, offset + bytes), offset, 0, HRX_GPU_ACCESS_READ},
      desc2(dtype, rows, elements)};
  uint8_t* want = malloc(count * row_bytes);
  numpy_blob_t inputs[] = {{"table", table + offset, bytes},
                           {"indices", (void*)indices, count * 4}};
  numpy_blob_t outputs[] = {{"rows", want, count * row_bytes}};
  char* row_arg = test_strdup_printf("%llu", (unsigned long long)row_bytes);
  char* count_arg = test_strdup_printf("%zu", count);
  numpy_reference_run("ref_tensor_ops.py",
                      (const char* const[]){"gather", row_arg, count_arg, NULL},
                      inputs, 2, outputs, 1);
  hrx_model_tensor_t* out = NULL;
  assert_ok(
      hrx_model_tensor_ops_gather_rows(f->ops, &io, indices, count, &out));
  const hrx_model_tensor_desc_t* desc = hrx_model_tensor_desc(out);
  assert_int_equal(desc->dtype, dtype);
  assert_int_equal(desc->rank, 2);
  assert_int_equal(desc->shape[0], count);
  assert_int_equal(desc->shape[1], elements);
  uint8_t* got = malloc(count * row_bytes);
  assert_ok(hrx_model_tensor_read(out, got, count * row_bytes, 60 * SECOND));
  for (size_t i = 0; i < count; ++i) {
    if (memcmp(got + i * row_bytes, want + i * row_bytes, row_bytes) != 0) {
      fail_msg("row %zu (table row %u) differs from numpy", i, indices[i]);
    }
  }
  hrx_model_tensor_release(out);
  free(got);
  free(want);
  free(row_arg);
  free(count_arg);
  free(table);
}

static void test_gather_rows(void** state) {
  fixture_t* f = *state;
  /* Duplicates and order kept; 5 rows use the bucket of 8. */
  const uint32_t mixed[] = {999, 0, 3, 3, 999};
  check_gather(f, HRX_MODEL_DTYPE_F32, 1000, 64, 0, mixed, 5);
  /* Rows of 6 bytes (three bf16): copied byte by byte. */
  const uint32_t one[] = {41};
  check_gather(f, HRX_MODEL_DTYPE_BF16, 42, 3, 0, one, 1);
  /* Rows of 7 bytes from a table 3 bytes into its region. */
  uint32_t many[13];
  for (uint32_t i = 0; i < 13; ++i) many[i] = (i * 7) % 11;
  check_gather(f, HRX_MODEL_DTYPE_U8, 11, 7, 3, many, 13);
  /* A full bucket of 64 rows of 1 KiB (host), or 16 of 64 bytes. */
  uint32_t full[64];
  size_t count = f->host ? 64 : 16;
  for (uint32_t i = 0; i < count; ++i) full[i] = (i * 37 + 5) % 300;
  check_gather(f, HRX_MODEL_DTYPE_I32, 300, f->host ? 256 : 16, 0, full, count);

  /* 5, 6 and 7 rows share the bucket of 8: one plan for the three. */
  const uint32_t rows[] = {1, 2, 3, 4, 5, 6, 7};
  int16_t table[8 * 4] = {0};
  for (int i = 0; i < 32; ++i) table[i] = (int16_t)(i * 3);
  hrx_model_io_t io = {
      {load(f, table, sizeof(table)), 0, 0, HRX_GPU_ACCESS_READ},
      desc2(HRX_MODEL_DTYPE_BF16, 8, 4)};
  hrx_model_tensor_ops_stats_t before =
      HRX_STRUCT_INIT(hrx_model_tensor_ops_stats_t);
  hrx_model_tensor_ops_stats_t after =
      HRX_STRUCT_INIT(hrx_model_tensor_ops_stats_t);
  assert_ok(hrx_model_tensor_ops_stats(f->ops, &before));
  for (size_t n = 5; n <= 7; ++n) {
    hrx_model_tensor_t* out = NULL;
    assert_ok(hrx_model_tensor_ops_gather_rows(f->ops, &io, rows, n, &out));
    int16_t got[7 * 4];
    assert_ok(hrx_model_tensor_read(out, got, n * 8, 60 * SECOND));
    assert_memory_equal(got, table + 4, n * 8);
    hrx_model_tensor_release(out);
  }
  assert_ok(hrx_model_tensor_ops_stats(f->ops, &after));
  assert_int_equal(after.plans.prepares - before.plans.prepares, 1);
}

/*===------------------------------------------------------------------===*/
/* Fragments                                                               */
/*===------------------------------------------------------------------===*/

static void write_region(fixture_t* f, hrx_model_region_t region,
                         const void* data, size_t bytes) {
  hrx_model_binding_t whole = {region, 0, 0, HRX_GPU_ACCESS_WRITE};
  assert_ok(hrx_model_session_write(f->session, &whole, data, bytes));
}

static void test_fragments(void** state) {
  fixture_t* f = *state;
  uint64_t n[2] = {7, 12};
  linear_case_t c;
  linear_case_init(f, &c, 256, n, 2);
  hrx_model_region_t x, y, w0, w1;
  assert_ok(hrx_model_session_allocate(f->session, c.k * 2,
                                       HRX_MODEL_PLACEMENT_DEVICE, &x));
  assert_ok(hrx_model_session_allocate(f->session, c.rows * 4,
                                       HRX_MODEL_PLACEMENT_COHERENT, &y));
  w0 = load(f, c.w[0], n[0] * c.k * 2);
  w1 = load(f, c.w[1], n[1] * c.k * 2);
  hrx_model_linear_fragment_t lf = {
      .input = {{x, 0, 0, 0}, {HRX_MODEL_DTYPE_BF16, 1, {c.k}, {0}}},
      .weights = {{{w0, 0, 0, 0}, desc2(HRX_MODEL_DTYPE_BF16, n[0], c.k)},
                  {{w1, 0, 0, 0}, desc2(HRX_MODEL_DTYPE_BF16, n[1], c.k)}},
      .count = 2,
      .output = {{y, 0, 0, 0}, desc2(HRX_MODEL_DTYPE_F32, 1, c.rows)},
  };
  assert_ok(hrx_model_tensor_record_linear(f->session, 1, &lf));
  assert_status(hrx_model_tensor_record_linear(f->session, 1, &lf),
                HRX_STATUS_ALREADY_EXISTS, "graph 1");
  lf.output.desc.shape[1] = c.rows + 1;
  assert_status(hrx_model_tensor_record_linear(f->session, 2, &lf),
                HRX_STATUS_INVALID_ARGUMENT, "values for");
  write_region(f, x, c.x, c.k * 2);

  /* Into an exec graph of the caller's: one dispatch after the upload. */
  hrx_exec_graph_t* graph = NULL;
  assert_ok(
      hrx_exec_graph_create(hrx_model_session_runtime(f->session), &graph));
  hrx_gpu_view_t xv, yv;
  assert_ok(hrx_model_session_region_view(f->session, x, &xv));
  assert_ok(hrx_model_session_region_view(f->session, y, &yv));
  hrx_exec_node_t up, down;
  assert_ok(hrx_exec_graph_upload(graph, xv, c.x, &up));
  assert_ok(hrx_model_session_record_into(f->session, 1, graph));
  float got[19];
  assert_ok(hrx_exec_graph_download(graph, yv, got, &down));
  assert_int_equal(hrx_exec_graph_node_count(graph), 3);
  hrx_exec_completion_t* done = NULL;
  assert_ok(hrx_exec_graph_submit(graph, &done));
  assert_ok(hrx_exec_completion_wait(done, 60 * SECOND));
  hrx_exec_completion_release(done);
  hrx_exec_graph_destroy(graph);
  assert_rows_equal(&c, HRX_MODEL_DTYPE_F32, got, 0, c.rows);

  /* A gather fragment reading its count and indices from the device. */
  float table[6 * 5];
  for (int i = 0; i < 30; ++i) table[i] = (float)i - 0.5f;
  int32_t indices[1 + 4] = {3, 5, 0, 5, 0};
  hrx_model_region_t t = load(f, table, sizeof(table)), idx, rows;
  assert_ok(hrx_model_session_allocate(f->session, sizeof(indices),
                                       HRX_MODEL_PLACEMENT_DEVICE, &idx));
  assert_ok(hrx_model_session_allocate(f->session, 4 * 5 * 4,
                                       HRX_MODEL_PLACEMENT_COHERENT, &rows));
  write_region(f, idx, indices, sizeof(indices));
  hrx_model_gather_fragment_t gf = {
      .table = {{t, 0, 0, 0}, desc2(HRX_MODEL_DTYPE_F32, 6, 5)},
      .capacity = 4,
      .indices = {{idx, 0, 0, 0}, {HRX_MODEL_DTYPE_I32, 1, {5}, {0}}},
      .output = {{rows, 0, 0, 0}, desc2(HRX_MODEL_DTYPE_F32, 4, 5)},
  };
  assert_ok(hrx_model_tensor_record_gather(f->session, 3, &gf));
  assert_ok(hrx_model_session_replay(f->session, 3, 60 * SECOND));
  hrx_model_binding_t read = {rows, 0, 3 * 5 * 4, HRX_GPU_ACCESS_READ};
  const void* data = NULL;
  assert_ok(hrx_model_session_read(f->session, &read, 1, &data));
  const float* g = data;
  for (int r = 0; r < 3; ++r) {
    assert_memory_equal(g + r * 5, table + indices[1 + r] * 5, 5 * 4);
  }
  gf.output.desc.dtype = HRX_MODEL_DTYPE_I32;
  assert_status(hrx_model_tensor_record_gather(f->session, 4, &gf),
                HRX_STATUS_INVALID_ARGUMENT, "copy rows as they are");
  linear_case_free(&c);
}

/*===------------------------------------------------------------------===*/
/* Rules                                                                   */
/*===------------------------------------------------------------------===*/

static void test_linear_rules(void** state) {
  fixture_t* f = *state;
  uint16_t x[256] = {0};
  uint16_t w[4 * 256] = {0};
  hrx_model_region_t region = load(f, w, sizeof(w));
  hrx_model_io_t weights = {{region, 0, 0, 0},
                            desc2(HRX_MODEL_DTYPE_BF16, 4, 256)};
  hrx_model_tensor_desc_t input = desc2(HRX_MODEL_DTYPE_BF16, 1, 256);
  hrx_model_tensor_t* out = (hrx_model_tensor_t*)&out;
  hrx_model_dtype_t f32 = HRX_MODEL_DTYPE_F32;
  hrx_model_tensor_ops_stats_t before =
      HRX_STRUCT_INIT(hrx_model_tensor_ops_stats_t);
  hrx_model_tensor_ops_stats_t after =
      HRX_STRUCT_INIT(hrx_model_tensor_ops_stats_t);
  assert_ok(hrx_model_tensor_ops_stats(f->ops, &before));

  hrx_model_tensor_desc_t bad = desc2(HRX_MODEL_DTYPE_BF16, 1, 200);
  hrx_model_io_t bad_w = weights;
  bad_w.desc.shape[1] = 200;
  assert_status(hrx_model_tensor_ops_linear(f->ops, &bad, x, &bad_w, f32, &out),
                HRX_STATUS_INVALID_ARGUMENT, "multiple of 128");
  assert_null(out);
  bad = desc2(HRX_MODEL_DTYPE_F32, 1, 256);
  assert_status(
      hrx_model_tensor_ops_linear(f->ops, &bad, x, &weights, f32, &out),
      HRX_STATUS_INVALID_ARGUMENT, "takes a BF16 input");
  bad = desc2(HRX_MODEL_DTYPE_BF16, 2, 256);
  assert_status(
      hrx_model_tensor_ops_linear(f->ops, &bad, x, &weights, f32, &out),
      HRX_STATUS_INVALID_ARGUMENT, "one row");
  bad = desc2(HRX_MODEL_DTYPE_BF16, 1, HRX_MODEL_LINEAR_MAX_K + 128);
  assert_status(
      hrx_model_tensor_ops_linear(f->ops, &bad, x, &weights, f32, &out),
      HRX_STATUS_INVALID_ARGUMENT, "above the limit");
  bad_w = weights;
  bad_w.desc.shape[0] = 0;
  assert_status(
      hrx_model_tensor_ops_linear(f->ops, &input, x, &bad_w, f32, &out),
      HRX_STATUS_INVALID_ARGUMENT, "N = 0");
  bad_w = weights;
  bad_w.desc.dtype = HRX_MODEL_DTYPE_F16;
  assert_status(
      hrx_model_tensor_ops_linear(f->ops, &input, x, &bad_w, f32, &out),
      HRX_STATUS_INVALID_ARGUMENT, "weights 0 are F16");
  bad_w = weights;
  bad_w.desc.shape[1] = 128;
  assert_status(
      hrx_model_tensor_ops_linear(f->ops, &input, x, &bad_w, f32, &out),
      HRX_STATUS_INVALID_ARGUMENT, "must equal K");
  bad_w = weights;
  bad_w.desc.strides[0] = 512;
  bad_w.desc.strides[1] = 1;
  assert_status(
      hrx_model_tensor_ops_linear(f->ops, &input, x, &bad_w, f32, &out),
      HRX_STATUS_INVALID_ARGUMENT, "contiguous");
  assert_status(hrx_model_tensor_ops_linear(f->ops, &input, x, &weights,
                                            HRX_MODEL_DTYPE_I32, &out),
                HRX_STATUS_INVALID_ARGUMENT, "F32 or BF16");
  hrx_model_tensor_t* many[4];
  hrx_model_io_t four[4] = {weights, weights, weights, weights};
  assert_status(
      hrx_model_tensor_ops_linear_many(f->ops, &input, x, four, 4, f32, many),
      HRX_STATUS_INVALID_ARGUMENT, "1..3 projections");
  assert_status(
      hrx_model_tensor_ops_linear_many(f->ops, &input, x, four, 0, f32, many),
      HRX_STATUS_INVALID_ARGUMENT, "1..3 projections");
  /* Weights past their region, misaligned, or in another session. */
  bad_w = weights;
  bad_w.binding.offset = 256;
  assert_status(
      hrx_model_tensor_ops_linear(f->ops, &input, x, &bad_w, f32, &out),
      HRX_STATUS_OUT_OF_RANGE, "preparing a tensor plan");
  bad_w.binding.offset = 2;
  bad_w.desc.shape[0] = 3;
  assert_status(
      hrx_model_tensor_ops_linear(f->ops, &input, x, &bad_w, f32, &out),
      HRX_STATUS_INVALID_ARGUMENT, "multiple of 8");
  bad_w = weights;
  bad_w.binding.region.bits ^= 1ull << 40;
  assert_status(
      hrx_model_tensor_ops_linear(f->ops, &input, x, &bad_w, f32, &out),
      HRX_STATUS_INVALID_ARGUMENT, "does not belong");
  assert_null(out);
  /* A failed prepare is not cached. */
  assert_ok(hrx_model_tensor_ops_stats(f->ops, &after));
  assert_int_equal(after.plans.prepares, before.plans.prepares);
}

static void test_gather_rules(void** state) {
  fixture_t* f = *state;
  uint32_t table[10 * 4] = {0};
  hrx_model_io_t io = {{load(f, table, sizeof(table)), 0, 0, 0},
                       desc2(HRX_MODEL_DTYPE_U32, 10, 4)};
  hrx_model_tensor_t* out = (hrx_model_tensor_t*)&out;
  const uint32_t indices[] = {0, 9, 4, 10, 2};
  /* Out of range: named, never clamped. */
  assert_status(hrx_model_tensor_ops_gather_rows(f->ops, &io, indices, 5, &out),
                HRX_STATUS_INVALID_ARGUMENT, "index 3 is 10");
  assert_null(out);
  assert_status(hrx_model_tensor_ops_gather_rows(f->ops, &io, indices, 0, &out),
                HRX_STATUS_INVALID_ARGUMENT, "takes 1..");
  assert_status(hrx_model_tensor_ops_gather_rows(
                    f->ops, &io, indices, HRX_MODEL_GATHER_MAX_COUNT + 1, &out),
                HRX_STATUS_INVALID_ARGUMENT, "takes 1..");
  hrx_model_io_t bad = io;
  bad.desc = (hrx_model_tensor_desc_t){HRX_MODEL_DTYPE_U32, 1, {40}, {0}};
  assert_status(
      hrx_model_tensor_ops_gather_rows(f->ops, &bad, indices, 2, &out),
      HRX_STATUS_INVALID_ARGUMENT, "[rows, E]");
  bad = io;
  bad.desc.shape[1] = HRX_MODEL_GATHER_MAX_BYTES / 4;
  assert_status(
      hrx_model_tensor_ops_gather_rows(f->ops, &bad, indices, 2, &out),
      HRX_STATUS_INVALID_ARGUMENT, "byte limit");
  bad = io;
  bad.desc.dtype = HRX_MODEL_DTYPE_COUNT;
  assert_status(
      hrx_model_tensor_ops_gather_rows(f->ops, &bad, indices, 2, &out),
      HRX_STATUS_INVALID_ARGUMENT, "unknown dtype");
  bad = io;
  bad.desc.shape[0] = 11; /* more rows than the region holds */
  assert_status(
      hrx_model_tensor_ops_gather_rows(f->ops, &bad, indices, 2, &out),
      HRX_STATUS_OUT_OF_RANGE, "preparing a tensor plan");
  assert_null(out);
}

/*===------------------------------------------------------------------===*/
/* Slots and plans                                                          */
/*===------------------------------------------------------------------===*/

static void test_bounded_slots_and_plans(void** state) {
  fixture_t* f = *state;
  hrx_model_tensor_ops_t* ops = NULL;
  hrx_model_tensor_ops_options_t options =
      HRX_STRUCT_INIT(hrx_model_tensor_ops_options_t);
  options.plan_capacity = 1;
  options.slots_per_plan = 1;
  assert_ok(hrx_model_tensor_ops_create(f->session, &options, &ops));
  options.slots_per_plan = 65;
  hrx_model_tensor_ops_t* none = NULL;
  assert_status(hrx_model_tensor_ops_create(f->session, &options, &none),
                HRX_STATUS_INVALID_ARGUMENT, "slots per plan");
  assert_null(none);

  uint32_t table[4 * 2] = {10, 11, 20, 21, 30, 31, 40, 41};
  hrx_model_io_t io = {{load(f, table, sizeof(table)), 0, 0, 0},
                       desc2(HRX_MODEL_DTYPE_U32, 4, 2)};
  const uint32_t indices[] = {3, 1};
  hrx_model_tensor_t *a = NULL, *b = NULL;
  assert_ok(hrx_model_tensor_ops_gather_rows(ops, &io, indices, 2, &a));
  /* The plan's one slot is leased to |a|: BUSY, never a wait. */
  assert_status(hrx_model_tensor_ops_gather_rows(ops, &io, indices, 2, &b),
                HRX_STATUS_BUSY, "unreleased tensors");
  /* Another bucket evicts the plan, which waits for |a| retired. */
  assert_ok(hrx_model_tensor_ops_gather_rows(ops, &io, indices, 1, &b));
  hrx_model_tensor_ops_stats_t stats =
      HRX_STRUCT_INIT(hrx_model_tensor_ops_stats_t);
  assert_ok(hrx_model_tensor_ops_stats(ops, &stats));
  assert_int_equal(stats.plans.entries, 1);
  assert_int_equal(stats.plans.evictions, 1);
  assert_int_equal(stats.retired, 1);
  uint32_t got[4];
  assert_ok(hrx_model_tensor_read(a, got, sizeof(got), 60 * SECOND));
  const uint32_t want[] = {40, 41, 20, 21};
  assert_memory_equal(got, want, sizeof(want));
  assert_ok(hrx_model_tensor_read(b, got, 8, 60 * SECOND));
  assert_memory_equal(got, want, 8);
  hrx_model_tensor_release(a);
  assert_ok(hrx_model_tensor_ops_stats(ops, &stats));
  assert_int_equal(stats.retired, 0);
  hrx_model_tensor_release(b);
  assert_ok(hrx_model_tensor_ops_gather_rows(ops, &io, indices, 1, &b));
  hrx_model_tensor_release(b);
  hrx_model_tensor_ops_destroy(ops);
}

/* Four threads share one TensorOps object and one plan of three slots:
 * calls that find every slot leased are BUSY and retried; every result
 * equals numpy's. */
typedef struct worker_t {
  hrx_model_tensor_ops_t* ops;
  const linear_case_t* c;
  const hrx_model_io_t* weights;
  int mismatches;
  int failures;
} worker_t;

static void* worker_run(void* arg) {
  worker_t* w = arg;
  hrx_model_tensor_desc_t input = desc2(HRX_MODEL_DTYPE_BF16, 1, w->c->k);
  for (int i = 0; i < 6; ++i) {
    hrx_model_tensor_t* t = NULL;
    hrx_status_t status;
    while (hrx_status_is(
        status = hrx_model_tensor_ops_linear(
            w->ops, &input, w->c->x, w->weights, HRX_MODEL_DTYPE_F32, &t),
        HRX_STATUS_BUSY)) {
      hrx_status_free(status);
      sched_yield();
    }
    float got[32];
    if (status == HRX_OK) {
      status = hrx_model_tensor_read(t, got, w->c->n[0] * 4, 60 * SECOND);
    }
    if (status != HRX_OK) {
      hrx_status_free(status);
      w->failures++;
    } else if (memcmp(got, w->c->want_f32, w->c->n[0] * 4) != 0) {
      w->mismatches++;
    }
    hrx_model_tensor_release(t);
  }
  return NULL;
}

static void test_concurrent_calls(void** state) {
  fixture_t* f = *state;
  uint64_t n = 21;
  linear_case_t c;
  linear_case_init(f, &c, 256, &n, 1);
  hrx_model_io_t weights = {
      {load(f, c.w[0], n * c.k * 2), 0, 0, HRX_GPU_ACCESS_READ},
      desc2(HRX_MODEL_DTYPE_BF16, n, c.k)};
  worker_t workers[4];
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i) {
    workers[i] = (worker_t){f->ops, &c, &weights, 0, 0};
    assert_int_equal(pthread_create(&threads[i], NULL, worker_run, &workers[i]),
                     0);
  }
  for (int i = 0; i < 4; ++i) {
    assert_int_equal(pthread_join(threads[i], NULL), 0);
    assert_int_equal(workers[i].failures, 0);
    assert_int_equal(workers[i].mismatches, 0);
  }
  linear_case_free(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_linear_sweep),
      cmocka_unit_test(test_linear_many_one_dispatch),
      cmocka_unit_test(test_gather_rows),
      cmocka_unit_test(test_fragments),
      cmocka_unit_test(test_linear_rules),
      cmocka_unit_test(test_gather_rules),
      cmocka_unit_test(test_bounded_slots_and_plans),
      cmocka_unit_test(test_concurrent_calls),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
