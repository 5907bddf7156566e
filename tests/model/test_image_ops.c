/* Image ops against numpy references computed in the same run
 * (ref_image_ops.py): affine crops, normalize and patchify, resize,
 * composite, the finite check and similarity fitting; plan and slot reuse;
 * and the errors for malformed requests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_test_util.h"
#include "hrx/model.h"
#include "model_test_util.h"
#include "numpy_reference.h"
#include "test_support.h"

typedef struct fixture_t {
  hrx_gpu_device_t* device;
  char* cache;
  hrx_model_session_t* session;
  hrx_model_image_ops_t* ops;
  bool host;
} fixture_t;

static int fixture_setup(void** state) {
  fixture_t* f = calloc(1, sizeof(*f));
  f->device = gpu_test_device_open();
  f->host = gpu_test_is_host(f->device);
  f->cache = test_temp_dir_create();
  hrx_loom_compiler_options_t compiler =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  compiler.cache_root = f->cache;
  hrx_model_session_options_t options =
      HRX_STRUCT_INIT(hrx_model_session_options_t);
  options.compiler = &compiler;
  assert_ok(hrx_model_session_create(f->device, &options,
                                     hrx_allocator_system(), &f->session));
  assert_ok(hrx_model_image_ops_create(f->session, NULL, &f->ops));
  *state = f;
  return 0;
}

static int fixture_teardown(void** state) {
  fixture_t* f = *state;
  if (!f) return 0; /* the setup failed */
  hrx_model_image_ops_destroy(f->ops);
  hrx_model_session_destroy(f->session);
  hrx_gpu_device_release(f->device);
  test_temp_dir_remove(f->cache);
  free(f);
  return 0;
}

static uint8_t* image_fill(uint32_t width, uint32_t height, uint32_t seed) {
  size_t bytes = (size_t)width * height * 3;
  uint8_t* rgb = malloc(bytes);
  for (size_t i = 0; i < bytes; ++i) {
    seed = seed * 1664525u + 1013904223u;
    rgb[i] = (uint8_t)(seed >> 24);
  }
  return rgb;
}

static hrx_model_image_t* image_upload(fixture_t* f, const uint8_t* rgb,
                                       uint32_t width, uint32_t height) {
  hrx_model_image_t* image = NULL;
  assert_ok(hrx_model_image_upload(f->ops, rgb, width, height, &image));
  assert_int_equal(hrx_model_image_width(image), width);
  assert_int_equal(hrx_model_image_height(image), height);
  return image;
}

/* Reads |t| (|bytes| long) into a new buffer and releases it. */
static void* tensor_take(hrx_model_tensor_t* t, size_t bytes) {
  uint64_t extent = 0;
  assert_ok(hrx_model_tensor_desc_extent(hrx_model_tensor_desc(t), &extent));
  assert_int_equal(extent, bytes);
  void* data = malloc(bytes);
  assert_ok(hrx_model_tensor_read(t, data, bytes, 60 * SECOND));
  hrx_model_tensor_release(t);
  return data;
}

static void assert_bytes_equal(const void* got, const void* want, size_t n,
                               const char* what) {
  const uint8_t *g = got, *w = want;
  for (size_t i = 0; i < n; ++i) {
    if (g[i] != w[i]) {
      fail_msg("%s: byte %zu is %u, numpy says %u", what, i, g[i], w[i]);
    }
  }
}

static char* arg_u(uint64_t value) {
  return test_strdup_printf("%llu", (unsigned long long)value);
}

/* Runs ref_image_ops.py |op| with |count| integer arguments. */
static void numpy_run(const char* op, const uint64_t* values, size_t count,
                      const numpy_blob_t* inputs, size_t input_count,
                      numpy_blob_t* outputs, size_t output_count) {
  const char* args[16] = {op};
  char* owned[16] = {0};
  for (size_t i = 0; i < count; ++i) args[1 + i] = owned[i] = arg_u(values[i]);
  numpy_reference_run("ref_image_ops.py", args, inputs, input_count, outputs,
                      output_count);
  for (size_t i = 0; i < count; ++i) free(owned[i]);
}

/*===------------------------------------------------------------------===*/
/* Affine                                                                  */
/*===------------------------------------------------------------------===*/

/* Maps of every kind: partly outside, rotated and scaled, exact half
 * weights (ties), wholly outside, sheared, and down-scaled. */
static void affine_maps(float* m, uint32_t crops, uint32_t w, uint32_t h,
                        float jitter) {
  const float base[6][6] = {
      {1.0f, 0.0f, -2.5f, 0.0f, 1.0f, 1.25f},
      {0.866f, -0.5f, 4.0f, 0.5f, 0.866f, -3.0f},
      {0.5f, 0.0f, 0.5f, 0.0f, 0.5f, 0.5f},
      {1.0f, 0.0f, -1000.0f, 0.0f, 1.0f, 0.0f},
      {1.1f, 0.3f, -0.7f, -0.2f, 0.9f, 2.2f},
      {(float)w / 7.0f, 0.0f, 0.0f, 0.0f, (float)h / 5.0f, 0.0f},
  };
  for (uint32_t c = 0; c < crops; ++c) {
    for (int k = 0; k < 6; ++k) m[c * 6 + k] = base[c % 6][k];
    m[c * 6 + 2] += jitter * (float)c;
    m[c * 6 + 5] -= jitter * (float)c;
  }
}

static void affine_reference(const uint8_t* rgb, uint32_t sw, uint32_t sh,
                             const float* maps, uint32_t crops, uint32_t w,
                             uint32_t h, uint8_t* want) {
  numpy_blob_t in[] = {{"image", (void*)rgb, (size_t)sw * sh * 3},
                       {"inverse", (void*)maps, crops * 6 * sizeof(float)}};
  numpy_blob_t out[] = {{"out", want, (size_t)crops * w * h * 3}};
  uint64_t args[] = {sw, sh, crops, w, h};
  numpy_run("affine", args, 5, in, 2, out, 1);
}

static void affine_case(fixture_t* f, uint32_t sw, uint32_t sh, uint32_t w,
                        uint32_t h) {
  const uint32_t crops = 6;
  uint8_t* rgb = image_fill(sw, sh, sw * 31 + sh);
  hrx_model_image_t* image = image_upload(f, rgb, sw, sh);
  size_t bytes = (size_t)crops * w * h * 3;
  uint8_t* want = malloc(bytes);
  float maps[6 * 6];
  hrx_model_image_ops_stats_t before =
      HRX_STRUCT_INIT(hrx_model_image_ops_stats_t);
  hrx_model_image_ops_stats_t after =
      HRX_STRUCT_INIT(hrx_model_image_ops_stats_t);
  assert_ok(hrx_model_image_ops_stats(f->ops, &before));
  /* Two rounds of different matrices through one plan. */
  for (int round = 0; round < 2; ++round) {
    affine_maps(maps, crops, w, h, 0.37f * (float)round);
    hrx_model_tensor_t* t = NULL;
    assert_ok(hrx_model_image_affine(f->ops, image, maps, crops, w, h, &t));
    const hrx_model_tensor_desc_t* d = hrx_model_tensor_desc(t);
    assert_int_equal(d->dtype, HRX_MODEL_DTYPE_U8);
    assert_int_equal(d->rank, 4);
    assert_int_equal(d->shape[0], crops);
    assert_int_equal(d->shape[1], h);
    assert_int_equal(d->shape[2], w);
    uint8_t* got = tensor_take(t, bytes);
    affine_reference(rgb, sw, sh, maps, crops, w, h, want);
    assert_bytes_equal(got, want, bytes, "affine");
    /* Crop 3 lies wholly outside: black. Crop 0 is mostly inside. */
    for (size_t i = 3 * bytes / crops; i < 4 * bytes / crops; ++i) {
      assert_int_equal(got[i], 0);
    }
    size_t lit = 0;
    for (size_t i = 0; i < bytes / crops; ++i) lit += got[i] != 0;
    assert_true(lit > bytes / crops / 2);
    free(got);
  }
  assert_ok(hrx_model_image_ops_stats(f->ops, &after));
  assert_int_equal(after.plans.prepares, before.plans.prepares + 1);
  assert_true(after.plans.hits >= before.plans.hits + 1);
  hrx_model_image_release(image);
  free(want);
  free(rgb);
}

static void test_affine_matches_numpy(void** state) {
  fixture_t* f = *state;
  affine_case(f, 37, 23, 17, 13);
  if (f->host) affine_case(f, 641, 479, 65, 49);
}

/* The fragment in the caller's session, with device-side matrices that
 * are not finite or far too large: black, never a wild read. */
static void test_affine_fragment(void** state) {
  fixture_t* f = *state;
  const uint32_t sw = 19, sh = 11, crops = 4, w = 9, h = 7;
  uint8_t* rgb = image_fill(sw, sh, 5);
  float maps[4 * 6] = {
      NAN,      0,     1,     0,      1,     1, /* NaN: black */
      INFINITY, 0,     0,     0,      1,     0, /* inf * 0 is NaN: black */
      1,        0,     1e30f, 0,      1,     0, /* far outside: black */
      0.75f,    0.25f, 1.5f,  -0.25f, 0.75f, 2.0f,
  };
  hrx_model_session_t* s = f->session;
  hrx_model_region_t image, inverse, out;
  assert_ok(hrx_model_session_weight(s, rgb, sw * sh * 3, &image));
  assert_ok(hrx_model_session_weight(s, maps, sizeof(maps), &inverse));
  assert_ok(hrx_model_session_allocate(s, crops * w * h * 3,
                                       HRX_MODEL_PLACEMENT_DEVICE, &out));
  hrx_model_image_affine_desc_t desc =
      HRX_STRUCT_INIT(hrx_model_image_affine_desc_t);
  desc.src_width = sw;
  desc.src_height = sh;
  desc.crops = crops;
  desc.width = w;
  desc.height = h;
  hrx_model_binding_t bi = {image, 0, 0, 0}, bm = {inverse, 0, 0, 0},
                      bo = {out, 0, 0, 0};
  assert_ok(hrx_model_image_record_affine(s, 7001, &desc, bi, bm, bo));
  assert_ok(hrx_model_session_replay(s, 7001, 60 * SECOND));
  const void* got = NULL;
  assert_ok(hrx_model_session_read(s, &bo, 1, &got));
  uint8_t want[4 * 9 * 7 * 3];
  affine_reference(rgb, sw, sh, maps, crops, w, h, want);
  assert_bytes_equal(got, want, sizeof(want), "affine fragment");
  for (size_t i = 0; i < 3 * w * h * 3; ++i) {
    assert_int_equal(((const uint8_t*)got)[i], 0);
  }
  /* A key is recorded once. */
  assert_status_code(hrx_model_image_record_affine(s, 7001, &desc, bi, bm, bo),
                     HRX_STATUS_ALREADY_EXISTS);
  free(rgb);
}

/*===------------------------------------------------------------------===*/
/* Normalize, resize, composite                                            */
/*===------------------------------------------------------------------===*/

static const float kMean[3] = {0.48145466f, 0.4578275f, 0.40821073f};
static const float kStd[3] = {0.26862954f, 0.26130258f, 0.27577711f};

static void normalize_case(fixture_t* f, hrx_model_image_t* image,
                           const uint8_t* rgb, hrx_model_image_rect_t rect,
                           uint32_t patch) {
  uint32_t sw = hrx_model_image_width(image);
  uint32_t sh = hrx_model_image_height(image);
  hrx_model_tensor_t* t = NULL;
  assert_ok(
      hrx_model_image_normalize(f->ops, image, &rect, kMean, kStd, patch, &t));
  const hrx_model_tensor_desc_t* d = hrx_model_tensor_desc(t);
  assert_int_equal(d->dtype, HRX_MODEL_DTYPE_F32);
  if (patch) {
    assert_int_equal(d->rank, 2);
    assert_int_equal(d->shape[1], 3 * patch * patch);
  } else {
    assert_int_equal(d->rank, 3);
    assert_int_equal(d->shape[0], 3);
  }
  size_t bytes = (size_t)rect.width * rect.height * 3 * sizeof(float);
  float* got = tensor_take(t, bytes);
  float params[7];
  assert_ok(hrx_model_image_normalize_params(kMean, kStd, params));
  float* want = malloc(bytes);
  numpy_blob_t in[] = {{"image", (void*)rgb, (size_t)sw * sh * 3},
                       {"params", params, sizeof(params)}};
  numpy_blob_t out[] = {{"out", want, bytes}};
  uint64_t args[] = {sw, sh, rect.x, rect.y, rect.width, rect.height, patch};
  numpy_run("normalize", args, 7, in, 2, out, 1);
  assert_bytes_equal(got, want, bytes, "normalize");
  free(want);
  free(got);
}

static void test_normalize_matches_numpy(void** state) {
  fixture_t* f = *state;
  const uint32_t sw = 37, sh = 23;
  uint8_t* rgb = image_fill(sw, sh, 11);
  hrx_model_image_t* image = image_upload(f, rgb, sw, sh);
  normalize_case(f, image, rgb, (hrx_model_image_rect_t){0, 0, sw, sh}, 0);
  normalize_case(f, image, rgb, (hrx_model_image_rect_t){3, 5, 29, 13}, 0);
  normalize_case(f, image, rgb, (hrx_model_image_rect_t){1, 2, 16, 12}, 4);
  if (f->host) {
    uint8_t* big = image_fill(224, 224, 3);
    hrx_model_image_t* large = image_upload(f, big, 224, 224);
    normalize_case(f, large, big, (hrx_model_image_rect_t){0, 0, 224, 224}, 14);
    hrx_model_image_release(large);
    free(big);
  }
  hrx_model_image_release(image);
  free(rgb);
}

static void resize_case(fixture_t* f, hrx_model_image_t* image,
                        const uint8_t* rgb, hrx_model_image_rect_t rect,
                        uint32_t w, uint32_t h) {
  uint32_t sw = hrx_model_image_width(image);
  uint32_t sh = hrx_model_image_height(image);
  hrx_model_tensor_t* t = NULL;
  assert_ok(hrx_model_image_resize(f->ops, image, &rect, w, h, &t));
  size_t bytes = (size_t)w * h * 3;
  uint8_t* got = tensor_take(t, bytes);
  uint8_t* want = malloc(bytes);
  numpy_blob_t in[] = {{"image", (void*)rgb, (size_t)sw * sh * 3}};
  numpy_blob_t out[] = {{"out", want, bytes}};
  uint64_t args[] = {sw, sh, rect.x, rect.y, rect.width, rect.height, w, h};
  numpy_run("resize", args, 8, in, 1, out, 1);
  assert_bytes_equal(got, want, bytes, "resize");
  free(want);
  free(got);
}

static void test_resize_matches_numpy(void** state) {
  fixture_t* f = *state;
  const uint32_t sw = 37, sh = 23;
  uint8_t* rgb = image_fill(sw, sh, 13);
  hrx_model_image_t* image = image_upload(f, rgb, sw, sh);
  resize_case(f, image, rgb, (hrx_model_image_rect_t){0, 0, sw, sh}, 16, 11);
  resize_case(f, image, rgb, (hrx_model_image_rect_t){3, 2, 13, 9}, 29, 20);
  resize_case(f, image, rgb, (hrx_model_image_rect_t){36, 0, 1, 23}, 5, 7);
  if (f->host) {
    uint8_t* big = image_fill(641, 479, 17);
    hrx_model_image_t* large = image_upload(f, big, 641, 479);
    resize_case(f, large, big, (hrx_model_image_rect_t){0, 0, 641, 479}, 224,
                224);
    hrx_model_image_release(large);
    free(big);
  }
  hrx_model_image_release(image);
  free(rgb);
}

static void composite_case(fixture_t* f, int32_t x, int32_t y, float alpha) {
  const uint32_t w = 37, h = 23, ow = 11, oh = 9;
  uint8_t* base_rgb = image_fill(w, h, 19);
  uint8_t* over_rgb = image_fill(ow, oh, 23);
  hrx_model_image_t* base = image_upload(f, base_rgb, w, h);
  hrx_model_image_t* over = image_upload(f, over_rgb, ow, oh);
  hrx_model_tensor_t* t = NULL;
  assert_ok(hrx_model_image_composite(f->ops, base, over, x, y, alpha, &t));
  size_t bytes = (size_t)w * h * 3;
  uint8_t* got = tensor_take(t, bytes);
  uint8_t* want = malloc(bytes);
  numpy_blob_t in[] = {{"base", base_rgb, bytes},
                       {"overlay", over_rgb, (size_t)ow * oh * 3},
                       {"alpha", &alpha, sizeof(alpha)}};
  numpy_blob_t out[] = {{"out", want, bytes}};
  char* sx = test_strdup_printf("%d", x);
  char* sy = test_strdup_printf("%d", y);
  char* sw = arg_u(w);
  char* sh = arg_u(h);
  char* sow = arg_u(ow);
  char* soh = arg_u(oh);
  const char* args[] = {"composite", sw, sh, sow, soh, sx, sy, NULL};
  numpy_reference_run("ref_image_ops.py", args, in, 3, out, 1);
  assert_bytes_equal(got, want, bytes, "composite");
  free(sx);
  free(sy);
  free(sw);
  free(sh);
  free(sow);
  free(soh);
  hrx_model_image_release(base);
  hrx_model_image_release(over);
  free(want);
  free(got);
  free(base_rgb);
  free(over_rgb);
}

static void test_composite_matches_numpy(void** state) {
  fixture_t* f = *state;
  composite_case(f, -3, 17, 0.37f);  /* partly outside, two edges */
  composite_case(f, 10, 4, 0.5f);    /* inside, ties */
  composite_case(f, 100, -50, 1.0f); /* wholly outside: the base */
}

/*===------------------------------------------------------------------===*/
/* Finite, fitting                                                         */
/*===------------------------------------------------------------------===*/

static void test_finite_fragment(void** state) {
  fixture_t* f = *state;
  hrx_model_session_t* s = f->session;
  const uint32_t n = 1003; /* not a multiple of the workgroup */
  float* values = malloc(n * sizeof(float));
  uint32_t seed = 3;
  for (uint32_t i = 0; i < n; ++i) values[i] = pipe_random(&seed) * 1e30f;
  values[0] = NAN;
  values[17] = INFINITY;
  values[500] = -INFINITY;
  values[n - 1] = -NAN;
  values[64] = 1e-45f;             /* denormal: finite */
  values[65] = 3.4e38f;            /* finite */
  uint32_t bad_bits = 0x7f800001u; /* a signalling NaN */
  memcpy(&values[300], &bad_bits, 4);
  hrx_model_region_t in, counter;
  assert_ok(hrx_model_session_weight(s, values, n * sizeof(float), &in));
  assert_ok(
      hrx_model_session_allocate(s, 4, HRX_MODEL_PLACEMENT_DEVICE, &counter));
  hrx_model_tensor_desc_t desc = {HRX_MODEL_DTYPE_F32, 2, {17, 59}, {0}};
  hrx_model_binding_t bv = {in, 0, 0, 0}, bc = {counter, 0, 0, 0};
  assert_ok(hrx_model_image_record_finite(s, 7101, &desc, bv, bc));
  uint32_t want = 0;
  numpy_blob_t inputs[] = {{"values", values, n * sizeof(float)}};
  numpy_blob_t outputs[] = {{"count", &want, sizeof(want)}};
  numpy_run("finite", NULL, 0, inputs, 1, outputs, 1);
  assert_int_equal(want, 5);
  /* Twice: the graph clears its counter. */
  for (int round = 0; round < 2; ++round) {
    assert_ok(hrx_model_session_replay(s, 7101, 60 * SECOND));
    const void* got = NULL;
    assert_ok(hrx_model_session_read(s, &bc, 1, &got));
    assert_int_equal(*(const uint32_t*)got, want);
  }
  /* Mismatched dtype and strides are refused. */
  hrx_model_tensor_desc_t bytes = {HRX_MODEL_DTYPE_U8, 1, {n * 4}, {0}};
  assert_status(hrx_model_image_record_finite(s, 7102, &bytes, bv, bc),
                HRX_STATUS_INVALID_ARGUMENT, "F32");
  hrx_model_tensor_desc_t strided = {HRX_MODEL_DTYPE_F32, 1, {n / 2}, {2}};
  assert_status_code(hrx_model_image_record_finite(s, 7102, &strided, bv, bc),
                     HRX_STATUS_INVALID_ARGUMENT);
  free(values);
}

static void test_fit_similarity(void** state) {
  (void)state;
  enum { N = 5 };
  /* Five face landmarks under a rotation by 0.3 rad, scale 1.7 and a
   * shift, plus a little noise. */
  float src[2 * N] = {38.3f, 51.7f, 73.5f, 51.5f, 56.0f,
                      71.7f, 41.5f, 92.4f, 70.7f, 92.2f};
  float dst[2 * N];
  double c = 1.7 * cos(0.3), s = 1.7 * sin(0.3);
  for (int i = 0; i < N; ++i) {
    double x = src[2 * i], y = src[2 * i + 1];
    dst[2 * i] = (float)(c * x - s * y + 12.5 + 0.01 * i);
    dst[2 * i + 1] = (float)(s * x + c * y - 7.25 - 0.02 * i);
  }
  float m[6], inv[6];
  assert_ok(hrx_model_image_fit_similarity(src, dst, N, m, inv));
  float want_m[6], want_inv[6];
  numpy_blob_t in[] = {{"src", src, sizeof(src)}, {"dst", dst, sizeof(dst)}};
  numpy_blob_t out[] = {{"matrix", want_m, sizeof(want_m)},
                        {"inverse", want_inv, sizeof(want_inv)}};
  uint64_t args[] = {N};
  numpy_run("fit", args, 1, in, 2, out, 2);
  for (int i = 0; i < 6; ++i) {
    /* Same order in double; only contraction of the sums may differ. */
    assert_true(fabsf(m[i] - want_m[i]) <= 1e-5f * (1 + fabsf(want_m[i])));
    assert_true(fabsf(inv[i] - want_inv[i]) <=
                1e-5f * (1 + fabsf(want_inv[i])));
  }
  assert_true(fabs(m[0] - c) < 1e-3 && fabs(m[3] - s) < 1e-3);
  /* inverse(matrix(p)) == p. */
  for (int i = 0; i < N; ++i) {
    float x = src[2 * i], y = src[2 * i + 1];
    float u = m[0] * x + m[1] * y + m[2], v = m[3] * x + m[4] * y + m[5];
    assert_true(fabsf(inv[0] * u + inv[1] * v + inv[2] - x) < 1e-3f);
    assert_true(fabsf(inv[3] * u + inv[4] * v + inv[5] - y) < 1e-3f);
  }
  /* Degenerate and malformed input. */
  float same[2 * N];
  for (int i = 0; i < N; ++i) same[2 * i] = 4.0f, same[2 * i + 1] = -2.0f;
  assert_status_code(hrx_model_image_fit_similarity(same, dst, N, m, inv),
                     HRX_STATUS_FAILED_PRECONDITION);
  assert_status_code(hrx_model_image_fit_similarity(src, same, N, m, inv),
                     HRX_STATUS_FAILED_PRECONDITION);
  assert_status_code(hrx_model_image_fit_similarity(src, dst, 1, m, inv),
                     HRX_STATUS_INVALID_ARGUMENT);
  src[3] = NAN;
  assert_status_code(hrx_model_image_fit_similarity(src, dst, N, m, inv),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_image_fit_similarity(NULL, dst, N, m, inv),
                     HRX_STATUS_INVALID_ARGUMENT);
}

/*===------------------------------------------------------------------===*/
/* Plans, slots, errors                                                    */
/*===------------------------------------------------------------------===*/

/* With one plan of two slots: a third live call is BUSY, and a plan
 * evicted while its tensors live is freed once they are released. */
static void test_slots_and_eviction(void** state) {
  fixture_t* f = *state;
  hrx_model_image_ops_options_t options =
      HRX_STRUCT_INIT(hrx_model_image_ops_options_t);
  options.plan_capacity = 1;
  options.slots_per_plan = 2;
  hrx_model_image_ops_t* ops = NULL;
  assert_ok(hrx_model_image_ops_create(f->session, &options, &ops));
  uint8_t* rgb = image_fill(13, 9, 29);
  hrx_model_image_t* image = NULL;
  assert_ok(hrx_model_image_upload(ops, rgb, 13, 9, &image));
  float map[6] = {1, 0, 0.5f, 0, 1, 0.5f};
  hrx_model_tensor_t *a = NULL, *b = NULL, *c = NULL;
  assert_ok(hrx_model_image_affine(ops, image, map, 1, 5, 4, &a));
  assert_ok(hrx_model_image_affine(ops, image, map, 1, 5, 4, &b));
  assert_status_code(hrx_model_image_affine(ops, image, map, 1, 5, 4, &c),
                     HRX_STATUS_BUSY);
  assert_null(c);
  uint8_t* first = tensor_take(a, 5 * 4 * 3);
  assert_ok(hrx_model_image_affine(ops, image, map, 1, 5, 4, &c));
  uint8_t* third = tensor_take(c, 5 * 4 * 3);
  assert_bytes_equal(third, first, 5 * 4 * 3, "a reused slot");
  /* A resize plan evicts the affine plan while |b| lives. */
  hrx_model_tensor_t* r = NULL;
  assert_ok(hrx_model_image_resize(ops, image, NULL, 6, 6, &r));
  hrx_model_image_ops_stats_t stats =
      HRX_STRUCT_INIT(hrx_model_image_ops_stats_t);
  assert_ok(hrx_model_image_ops_stats(ops, &stats));
  assert_int_equal(stats.retired, 1);
  assert_int_equal(stats.plans.evictions, 1);
  uint8_t* second = tensor_take(b, 5 * 4 * 3);
  assert_bytes_equal(second, first, 5 * 4 * 3, "a retired plan's tensor");
  assert_ok(hrx_model_image_ops_stats(ops, &stats));
  assert_int_equal(stats.retired, 0);
  /* Images outlive their ops; tensors must go first. */
  hrx_model_tensor_release(r);
  hrx_model_image_ops_destroy(ops);
  hrx_model_image_release(image);
  free(first);
  free(second);
  free(third);
  free(rgb);
}

static void test_errors(void** state) {
  fixture_t* f = *state;
  uint8_t* rgb = image_fill(13, 9, 31);
  hrx_model_image_t* image = image_upload(f, rgb, 13, 9);
  hrx_model_image_t* none = NULL;
  hrx_model_tensor_t* t = NULL;
  float maps[6] = {1, 0, 0, 0, 1, 0};
  /* Uploads. */
  assert_status_code(hrx_model_image_upload(f->ops, rgb, 0, 9, &none),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_image_upload(f->ops, rgb, 40000, 9, &none),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_image_upload(f->ops, rgb, 30000, 30000, &none),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_image_upload(f->ops, NULL, 13, 9, &none),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_null(none);
  /* Affine shapes, matrices and sizes. */
  assert_status_code(hrx_model_image_affine(f->ops, image, maps, 0, 5, 5, &t),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(
      hrx_model_image_affine(f->ops, image, maps, 5000, 5, 5, &t),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_image_affine(f->ops, image, maps, 1, 0, 5, &t),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(
      hrx_model_image_affine(f->ops, image, maps, 1, 5, 32768, &t),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_status(
      hrx_model_image_affine(f->ops, image, maps, 4096, 4096, 4096, &t),
      HRX_STATUS_INVALID_ARGUMENT, "past the limit");
  assert_status_code(hrx_model_image_affine(f->ops, image, NULL, 1, 5, 5, &t),
                     HRX_STATUS_INVALID_ARGUMENT);
  float bad[6] = {1, 0, NAN, 0, 1, 0};
  assert_status(hrx_model_image_affine(f->ops, image, bad, 1, 5, 5, &t),
                HRX_STATUS_INVALID_ARGUMENT, "element 2 is not finite");
  bad[2] = INFINITY;
  assert_status_code(hrx_model_image_affine(f->ops, image, bad, 1, 5, 5, &t),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_null(t);
  /* Normalize: mean/std, views, patches. */
  float zero_std[3] = {1, 0, 1};
  assert_status_code(
      hrx_model_image_normalize(f->ops, image, NULL, kMean, zero_std, 0, &t),
      HRX_STATUS_INVALID_ARGUMENT);
  float nan_mean[3] = {0, NAN, 0};
  assert_status_code(
      hrx_model_image_normalize(f->ops, image, NULL, nan_mean, kStd, 0, &t),
      HRX_STATUS_INVALID_ARGUMENT);
  hrx_model_image_rect_t outside = {10, 0, 4, 9};
  assert_status_code(
      hrx_model_image_normalize(f->ops, image, &outside, kMean, kStd, 0, &t),
      HRX_STATUS_INVALID_ARGUMENT);
  hrx_model_image_rect_t empty = {2, 0, 0, 0};
  assert_status_code(hrx_model_image_resize(f->ops, image, &empty, 4, 4, &t),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status(
      hrx_model_image_normalize(f->ops, image, NULL, kMean, kStd, 4, &t),
      HRX_STATUS_INVALID_ARGUMENT, "does not divide");
  assert_status_code(hrx_model_image_resize(f->ops, image, NULL, 0, 4, &t),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(
      hrx_model_image_composite(f->ops, image, image, 0, 0, NAN, &t),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(
      hrx_model_image_composite(f->ops, image, image, 0, 0, 1.5f, &t),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_null(t);
  /* Fragments: a binding shorter than its operand, a region too small. */
  hrx_model_session_t* s = f->session;
  hrx_model_region_t small, inverse, out;
  assert_ok(
      hrx_model_session_allocate(s, 64, HRX_MODEL_PLACEMENT_DEVICE, &small));
  assert_ok(
      hrx_model_session_allocate(s, 24, HRX_MODEL_PLACEMENT_DEVICE, &inverse));
  assert_ok(
      hrx_model_session_allocate(s, 300, HRX_MODEL_PLACEMENT_DEVICE, &out));
  hrx_model_image_affine_desc_t desc =
      HRX_STRUCT_INIT(hrx_model_image_affine_desc_t);
  desc.src_width = 13;
  desc.src_height = 9;
  desc.crops = 1;
  desc.width = 10;
  desc.height = 10;
  hrx_model_binding_t short_image = {small, 0, 32, 0};
  hrx_model_binding_t bm = {inverse, 0, 0, 0}, bo = {out, 0, 0, 0};
  assert_status(
      hrx_model_image_record_affine(s, 7201, &desc, short_image, bm, bo),
      HRX_STATUS_INVALID_ARGUMENT, "the image needs 351 bytes");
  hrx_model_binding_t bi = {small, 0, 0, 0};
  assert_status_code(hrx_model_image_record_affine(s, 7201, &desc, bi, bm, bo),
                     HRX_STATUS_OUT_OF_RANGE);
  assert_status_code(hrx_model_image_record_affine(s, 7201, NULL, bi, bm, bo),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_model_image_release(image);
  free(rgb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_affine_matches_numpy),
      cmocka_unit_test(test_affine_fragment),
      cmocka_unit_test(test_normalize_matches_numpy),
      cmocka_unit_test(test_resize_matches_numpy),
      cmocka_unit_test(test_composite_matches_numpy),
      cmocka_unit_test(test_finite_fragment),
      cmocka_unit_test(test_fit_similarity),
      cmocka_unit_test(test_slots_and_eviction),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
