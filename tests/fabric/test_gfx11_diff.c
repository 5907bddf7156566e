/* The differential suite of the gfx11 model: every repository Loom kernel
 * is compiled for gfx1151 and for the host; the gfx1151 code object runs
 * on the gfx11 model, the host one on the host device, from the same
 * inputs, and every output buffer must agree bit for bit. The kernels use
 * only integer and exactly rounded f32 operations (fma, add, mul, min,
 * max, floor, conversions), so no ULP tolerance is needed; the model's
 * v_rcp_f32 only feeds the compiler's integer division, which corrects
 * it.
 *
 * The kernarg segment is laid out from the manifest's "amdgpu" entry
 * (argument offsets and sizes), the grid from the gfx1151 artifact's own
 * launch program, and the code object v5 hidden arguments (block counts,
 * group sizes, remainders) follow the explicit ones at an 8-byte
 * boundary when the descriptor's kernarg size has room for them.
 *
 * Kernels covered, each at several sizes: saxpy (kernels/ and examples/),
 * gather_rows, histogram, reduce_sum, row_dot, transpose (2-D, LDS),
 * affine_rgb (2-D), linear_bf16 (three configs), ring_drain. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../host/host_harness.h"
#include "gfx11.h"
#include "gfx11_test_util.h"
#include "hrx/core/bytes.h"
#include "hrx/core/file.h"

enum { MAX_ARGS = 16, MAX_BUFFERS = 4 };

/* One kernel run: launch arguments are scalars (raw bits) or indices
 * into the buffers, whose initial bytes both devices receive. */
typedef struct diff_case_t {
  const char* file;             /* relative to HRX_LOOM_KERNELS */
  const char* const* config;    /* NULL-terminated NAME=VALUE, or NULL */
  const char* kernel;
  uint64_t workload[3];
  size_t workload_count;
  size_t arg_count;
  int buffer_of[MAX_ARGS];      /* -1 for a scalar */
  uint64_t bits[MAX_ARGS];
  size_t buffer_count;
  size_t buffer_bytes[MAX_BUFFERS];
  uint8_t* init[MAX_BUFFERS];
} diff_case_t;

static void add_scalar(diff_case_t* c, uint64_t bits) {
  c->buffer_of[c->arg_count] = -1;
  c->bits[c->arg_count++] = bits;
}

static void add_f32(diff_case_t* c, float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  add_scalar(c, bits);
}

/* Adds a buffer argument of |bytes| and returns its initial contents
 * (zeroed) for the caller to fill. */
static uint8_t* add_buffer(diff_case_t* c, size_t bytes) {
  size_t b = c->buffer_count++;
  c->buffer_of[c->arg_count++] = (int)b;
  c->buffer_bytes[b] = bytes;
  c->init[b] = calloc(1, bytes ? bytes : 1);
  assert_non_null(c->init[b]);
  return c->init[b];
}

static void free_case(diff_case_t* c) {
  for (size_t b = 0; b < c->buffer_count; ++b) free(c->init[b]);
}

/* Runs |c| on the host device; |out| receives each buffer's final bytes. */
static void run_host(const diff_case_t* c, uint8_t** out) {
  harness_t h;
  harness_open(&h);
  harness_load(&h, c->file, c->config);
  hrx_fabric_memory_t memory[MAX_BUFFERS];
  for (size_t b = 0; b < c->buffer_count; ++b) {
    memory[b] = harness_buffer(&h, c->buffer_bytes[b]);
    memcpy(memory[b].host_pointer, c->init[b], c->buffer_bytes[b]);
  }
  harness_arg_t args[MAX_ARGS];
  for (size_t a = 0; a < c->arg_count; ++a) {
    args[a] = c->buffer_of[a] < 0 ? ARG_U64(c->bits[a])
                                  : ARG_BUF(memory[c->buffer_of[a]]);
  }
  assert_ok(harness_run(&h, c->kernel, c->workload, c->workload_count, args,
                        c->arg_count));
  for (size_t b = 0; b < c->buffer_count; ++b) {
    memcpy(out[b], memory[b].host_pointer, c->buffer_bytes[b]);
    hrx_fabric_memory_free(h.device, &memory[b]);
  }
  harness_close(&h);
}

/* Writes the explicit arguments where the manifest's amdgpu entry puts
 * them; returns the end of the last one. */
static size_t write_explicit_args(const hrx_loom_artifact_t* artifact,
                                  const diff_case_t* c, uint8_t** buffers,
                                  uint8_t* kernarg, size_t kernarg_size) {
  json_error_t error;
  json_t* root = json_loads(hrx_loom_artifact_manifest(artifact), 0, &error);
  assert_non_null(root);
  json_t* kernels = json_object_get(root, "kernels");
  json_t* amdgpu = NULL;
  for (size_t k = 0; k < json_array_size(kernels); ++k) {
    json_t* entry = json_array_get(kernels, k);
    const char* symbol = json_string_value(json_object_get(entry, "symbol"));
    if (symbol && !strcmp(symbol, c->kernel)) {
      amdgpu = json_object_get(entry, "amdgpu");
    }
  }
  assert_non_null(amdgpu);
  json_t* args = json_object_get(amdgpu, "arguments");
  assert_int_equal(json_array_size(args), c->arg_count);
  size_t end = 0;
  for (size_t a = 0; a < c->arg_count; ++a) {
    json_t* arg = json_array_get(args, a);
    size_t offset = (size_t)json_integer_value(json_object_get(arg, "offset"));
    size_t size = (size_t)json_integer_value(json_object_get(arg, "size"));
    assert_true(size <= 8 && offset + size <= kernarg_size);
    uint64_t value = c->buffer_of[a] < 0
                         ? c->bits[a]
                         : (uint64_t)(uintptr_t)buffers[c->buffer_of[a]];
    uint8_t* p = kernarg + offset;
    hrx_put_le(&p, value, (int)size);
    if (offset + size > end) end = offset + size;
  }
  json_decref(root);
  return end;
}

/* The v5 hidden arguments the compiler may read for the grid's shape. */
static void write_hidden_args(uint8_t* kernarg, size_t kernarg_size,
                              size_t explicit_end,
                              const hrx_fabric_launch_config_t* launch) {
  size_t base = (explicit_end + 7) & ~(size_t)7;
  if (base + 24 > kernarg_size) return;
  uint8_t* p = kernarg + base;
  for (int i = 0; i < 3; ++i) hrx_put_le(&p, launch->workgroup_count[i], 4);
  for (int i = 0; i < 3; ++i) hrx_put_le(&p, launch->workgroup_size[i], 2);
  for (int i = 0; i < 3; ++i) hrx_put_le(&p, 0, 2);  /* no partial groups */
}

/* Runs |c| on the gfx11 model; |out| holds the buffers it works on. */
static void run_gfx11(const diff_case_t* c, uint8_t** out) {
  hrx_loom_artifact_t* artifact = gfx11_test_compile(c->file, c->config);
  size_t length = 0;
  const uint8_t* code = hrx_loom_artifact_code(artifact, &length);
  hrx_gfx11_image_t* image = NULL;
  assert_ok(hrx_gfx11_image_load(code, length, hrx_allocator_system(),
                                 &image));
  uint64_t kd = 0;
  assert_ok(hrx_gfx11_image_kernel(image, c->kernel, &kd));
  const uint8_t* bytes = NULL;
  size_t bytes_length = 0;
  assert_ok(hrx_loom_artifact_launch_program(artifact, c->kernel, &bytes,
                                             &bytes_length));
  hrx_fabric_launch_program_t* program = NULL;
  assert_ok(hrx_fabric_launch_program_load(bytes, bytes_length,
                                           hrx_allocator_system(), &program));
  hrx_fabric_launch_config_t launch;
  assert_ok(hrx_fabric_launch_program_evaluate(program, c->workload,
                                               c->workload_count, &launch));
  hrx_fabric_launch_program_destroy(program);

  const uint8_t* p = (const uint8_t*)(uintptr_t)(kd + 8);
  size_t kernarg_size = (size_t)hrx_get_le(&p, 4);
  uint8_t* kernarg = calloc(1, kernarg_size ? kernarg_size : 1);
  assert_non_null(kernarg);
  size_t end = write_explicit_args(artifact, c, out, kernarg, kernarg_size);
  write_hidden_args(kernarg, kernarg_size, end, &launch);

  hrx_gfx11_range_t ranges[2 + MAX_BUFFERS] = {
      hrx_gfx11_image_range(image),
      {(uint64_t)(uintptr_t)kernarg, kernarg_size},
  };
  for (size_t b = 0; b < c->buffer_count; ++b) {
    memcpy(out[b], c->init[b], c->buffer_bytes[b]);
    ranges[2 + b] = (hrx_gfx11_range_t){(uint64_t)(uintptr_t)out[b],
                                        c->buffer_bytes[b]};
  }
  hrx_gfx11_dispatch_t dispatch = {
      .kernel_descriptor = kd,
      .kernarg = (uint64_t)(uintptr_t)kernarg,
      .ranges = ranges,
      .range_count = 2 + c->buffer_count,
      .wave_instruction_budget = 1u << 24,
  };
  for (int i = 0; i < 3; ++i) {
    dispatch.grid[i] = launch.workgroup_count[i] * launch.workgroup_size[i];
    dispatch.workgroup[i] = launch.workgroup_size[i];
  }
  hrx_gfx11_fault_t fault;
  hrx_status_t status =
      hrx_gfx11_dispatch(&dispatch, hrx_allocator_system(), &fault);
  if (status != HRX_OK) {
    print_error("%s (%s): pc at image + 0x%llx\n", c->kernel, c->file,
                (unsigned long long)(fault.pc - ranges[0].base));
  }
  assert_ok(status);
  free(kernarg);
  hrx_gfx11_image_destroy(image);
  hrx_loom_artifact_destroy(artifact);
}

/* Runs |c| on both devices and compares every buffer bit for bit. */
static void run_case(diff_case_t* c) {
  uint8_t* host[MAX_BUFFERS];
  uint8_t* gfx[MAX_BUFFERS];
  for (size_t b = 0; b < c->buffer_count; ++b) {
    host[b] = malloc(c->buffer_bytes[b] ? c->buffer_bytes[b] : 1);
    gfx[b] = malloc(c->buffer_bytes[b] ? c->buffer_bytes[b] : 1);
    assert_true(host[b] && gfx[b]);
  }
  run_host(c, host);
  run_gfx11(c, gfx);
  for (size_t b = 0; b < c->buffer_count; ++b) {
    for (size_t i = 0; i < c->buffer_bytes[b]; ++i) {
      if (host[b][i] == gfx[b][i]) continue;
      print_error("%s: buffer %zu byte %zu: host 0x%02x, gfx11 0x%02x\n",
                  c->kernel, b, i, host[b][i], gfx[b][i]);
      fail();
    }
    free(host[b]);
    free(gfx[b]);
  }
  free_case(c);
}

/* Deterministic f32 inputs with full mantissas, so any difference in
 * rounding or operation order shows. */
static float noise(uint32_t i) {
  uint32_t x = i * 2654435761u + 0x9E3779B9u;
  x ^= x >> 15;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  return (float)(int32_t)(x & 0xFFFFFF) * 0x1p-20f - 8.0f;
}

static void fill_f32(uint8_t* buffer, size_t count, uint32_t seed) {
  for (size_t i = 0; i < count; ++i) {
    float v = noise((uint32_t)i + seed);
    memcpy(buffer + 4 * i, &v, 4);
  }
}

static void saxpy_case(const char* file, uint64_t n) {
  diff_case_t c = {.file = file, .kernel = "saxpy", .workload = {n},
                   .workload_count = 1};
  add_scalar(&c, n);
  add_f32(&c, 1.0f + 0x1p-23f);
  fill_f32(add_buffer(&c, n * 4), n, 1);
  fill_f32(add_buffer(&c, n * 4), n, 2);
  run_case(&c);
}

static void test_saxpy(void** state) {
  (void)state;
  static const uint64_t sizes[] = {1, 31, 257, 1000};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    saxpy_case("saxpy.loom", sizes[i]);
    saxpy_case("../../examples/saxpy.loom", sizes[i]);
  }
}

static void gather_case(uint64_t count, uint64_t width, uint64_t rows) {
  diff_case_t c = {.file = "gather.loom", .kernel = "gather_rows",
                   .workload = {count, width}, .workload_count = 2};
  add_scalar(&c, count);
  add_scalar(&c, width);
  add_scalar(&c, rows);
  fill_f32(add_buffer(&c, rows * width * 4), rows * width, 3);
  uint8_t* ids = add_buffer(&c, count * 4);
  for (uint64_t r = 0; r < count; ++r) {
    /* Some ids in range, some past the end, some negative. */
    int32_t id = (int32_t)((r * 7) % (rows + 3)) - (r % 5 == 4 ? 9 : 0);
    memcpy(ids + 4 * r, &id, 4);
  }
  add_buffer(&c, count * width * 4);
  run_case(&c);
}

static void test_gather(void** state) {
  (void)state;
  gather_case(1, 1, 1);
  gather_case(37, 5, 11);
  gather_case(100, 7, 9);
}

static void histogram_case(uint64_t n) {
  diff_case_t c = {.file = "histogram.loom", .kernel = "histogram",
                   .workload = {n}, .workload_count = 1};
  add_scalar(&c, n);
  uint8_t* bytes = add_buffer(&c, n);
  for (uint64_t i = 0; i < n; ++i) bytes[i] = (uint8_t)(i * 37 + i / 7);
  add_buffer(&c, 256 * 4);
  run_case(&c);
}

static void test_histogram(void** state) {
  (void)state;
  static const uint64_t sizes[] = {1, 129, 5000};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    histogram_case(sizes[i]);
  }
}

static void reduce_sum_case(uint64_t n, uint64_t waves) {
  diff_case_t c = {.file = "reduce_sum.loom", .kernel = "reduce_sum",
                   .workload = {n, waves}, .workload_count = 2};
  add_scalar(&c, n);
  add_scalar(&c, waves);
  fill_f32(add_buffer(&c, n * 4), n, 4);
  add_buffer(&c, waves * 4);
  run_case(&c);
}

static void test_reduce_sum(void** state) {
  (void)state;
  reduce_sum_case(1, 1);
  reduce_sum_case(33, 1);
  reduce_sum_case(1000, 7);
}

static void row_dot_case(uint64_t rows, uint64_t k) {
  diff_case_t c = {.file = "row_dot.loom", .kernel = "row_dot",
                   .workload = {rows, k}, .workload_count = 2};
  add_scalar(&c, rows);
  add_scalar(&c, k);
  fill_f32(add_buffer(&c, rows * k * 4), rows * k, 5);
  fill_f32(add_buffer(&c, rows * k * 4), rows * k, 6);
  add_buffer(&c, rows * 4);
  run_case(&c);
}

static void test_row_dot(void** state) {
  (void)state;
  row_dot_case(1, 4);
  row_dot_case(70, 8);
  row_dot_case(5, 64);
}

static void transpose_case(uint64_t rows, uint64_t cols) {
  diff_case_t c = {.file = "transpose.loom", .kernel = "transpose",
                   .workload = {rows, cols}, .workload_count = 2};
  add_scalar(&c, rows);
  add_scalar(&c, cols);
  fill_f32(add_buffer(&c, rows * cols * 4), rows * cols, 7);
  add_buffer(&c, rows * cols * 4);
  run_case(&c);
}

static void test_transpose(void** state) {
  (void)state;
  transpose_case(1, 1);
  transpose_case(17, 33);
  transpose_case(64, 5);
}

/* A rotation-and-scale matrix, so sample positions fall between pixels
 * and off the source on some sides. */
static void affine_case(uint64_t dw, uint64_t dh, uint64_t sw, uint64_t sh) {
  diff_case_t c = {.file = "affine_sampler.loom", .kernel = "affine_rgb",
                   .workload = {dw, dh}, .workload_count = 2};
  add_scalar(&c, dw);
  add_scalar(&c, dh);
  add_scalar(&c, sw);
  add_scalar(&c, sh);
  static const float m[6] = {0.8f, -0.3f, 2.25f, 0.35f, 0.9f, -1.5f};
  for (int i = 0; i < 6; ++i) add_f32(&c, m[i]);
  add_scalar(&c, 0x7f);
  uint8_t* src = add_buffer(&c, sw * sh * 3);
  for (uint64_t i = 0; i < sw * sh * 3; ++i) src[i] = (uint8_t)(i * 37 + 11);
  add_buffer(&c, dw * dh * 3);
  run_case(&c);
}

static void test_affine_sampler(void** state) {
  (void)state;
  affine_case(1, 1, 1, 1);
  affine_case(11, 10, 13, 9);
  affine_case(37, 19, 20, 25);
}

static void linear_bf16_case(const char* k_config, const char* n_config,
                             size_t k, size_t n) {
  const char* config[] = {k_config, n_config, NULL};
  diff_case_t c = {.file = "linear_bf16.loom", .config = config,
                   .kernel = "linear_bf16", .workload = {0},
                   .workload_count = 1};
  /* bf16 inputs: the high halves of full-mantissa f32 values. */
  uint8_t* x = add_buffer(&c, k * 2);
  uint8_t* w = add_buffer(&c, n * k * 2);
  for (size_t i = 0; i < k + n * k; ++i) {
    float v = noise((uint32_t)i + 8);
    uint32_t bits;
    memcpy(&bits, &v, 4);
    uint16_t half = (uint16_t)(bits >> 16);
    memcpy(i < k ? x + 2 * i : w + 2 * (i - k), &half, 2);
  }
  add_buffer(&c, n * 4);
  run_case(&c);
}

static void test_linear_bf16(void** state) {
  (void)state;
  linear_bf16_case("linear.k=128", "linear.n=1", 128, 1);
  linear_bf16_case("linear.k=256", "linear.n=13", 256, 13);
  linear_bf16_case("linear.k=512", "linear.n=64", 512, 64);
}

/* A single lane that finds the flag already set, copies the payload and
 * clears the flag. */
static void test_ring_drain(void** state) {
  (void)state;
  static const uint64_t counts[] = {1, 37};
  for (size_t s = 0; s < 2; ++s) {
    uint64_t count = counts[s];
    diff_case_t c = {.file = "ring_drain.loom", .kernel = "ring_drain",
                     .workload_count = 0};
    uint8_t* flag = add_buffer(&c, 4);
    int32_t expected = 42;
    memcpy(flag, &expected, 4);
    uint8_t* payload = add_buffer(&c, count * 8);
    for (uint64_t i = 0; i < count; ++i) {
      int64_t v = (int64_t)i * -1000003;
      memcpy(payload + 8 * i, &v, 8);
    }
    add_buffer(&c, count * 8);
    add_scalar(&c, (uint64_t)expected);
    add_scalar(&c, count);
    run_case(&c);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_saxpy),
      cmocka_unit_test(test_gather),
      cmocka_unit_test(test_histogram),
      cmocka_unit_test(test_reduce_sum),
      cmocka_unit_test(test_row_dot),
      cmocka_unit_test(test_transpose),
      cmocka_unit_test(test_affine_sampler),
      cmocka_unit_test(test_linear_bf16),
      cmocka_unit_test(test_ring_drain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
