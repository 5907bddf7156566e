/* The host device's native path (hrx/fabric/host_native.h) against its
 * interpreter: the same kernels, inputs and dispatches, compiled once and
 * loaded twice (HRX_HOST_NATIVE=0 for the interpreter), must leave the
 * same bytes in every buffer and report the same faults. Also: kernels
 * the native path declines run on the interpreter and say why, and a
 * native section that is malformed, or whose object is unusable, is
 * refused or falls back with a note. */
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_kernels.h"
#include "hrx/core/bytes.h"
#include "hrx/fabric/host_native.h"
#include "host_harness.h"

#define MAX_BUFFERS 8
#define MAX_ARGS 16

/* Without LLVM (or off x86-64) nothing is native; the comparisons still
 * run, interpreter against interpreter. */
static bool have_native;

/* HRX_HOST_NATIVE=0 in the test's own environment (meson test --setup
 * interpreter) keeps native code off throughout: both runs interpret. */
static bool forced_off;

/* Back to the environment the test started with. */
static void native_default(void) {
  if (forced_off) {
    setenv("HRX_HOST_NATIVE", "0", 1);
  } else {
    unsetenv("HRX_HOST_NATIVE");
  }
}

static int setup(void** state) {
  harness_t* h = malloc(sizeof(*h));
  harness_open(h);
  *state = h;
  return 0;
}

static int teardown(void** state) {
  native_default();
  harness_close(*state);
  free(*state);
  return 0;
}

/* One dispatch of a kernel: its source, arguments and buffers. */
typedef struct case_t {
  const char* file;   /* in HRX_LOOM_KERNELS (lib:) or HRX_TEST_KERNELS */
  const char* source; /* or inline text, named |file| */
  const char* const* config;
  const char* kernel;
  uint64_t workload[3];
  size_t workload_count;
  size_t arg_count;
  int buffer[MAX_ARGS]; /* buffer index per argument, or -1 for bits */
  uint64_t bits[MAX_ARGS];
  size_t buffer_count;
  size_t bytes[MAX_BUFFERS];
  void (*fill)(size_t buffer, void* data, size_t bytes);
  bool native; /* expected to run natively */
  bool nan_words; /* buffers of f32: any two NaNs are equal */
} case_t;

typedef struct result_t {
  char message[512]; /* "" when the dispatch succeeded */
  uint8_t* data[MAX_BUFFERS];
} result_t;

static char* read_source(const char* file, size_t* out_length) {
  bool lib = !strncmp(file, "lib:", 4);
  bool model = !strncmp(file, "model:", 6);
  const char* dir = getenv(lib     ? "HRX_LOOM_KERNELS"
                           : model ? "HRX_MODEL_KERNELS"
                                   : "HRX_TEST_KERNELS");
  assert_non_null(dir);
  char* path = test_strdup_printf("%s/%s", dir, strchr(file, ':') ?
                                  strchr(file, ':') + 1 : file);
  void* text = NULL;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 24, &text,
                              out_length));
  free(path);
  return text;
}

/* Loads the case's kernel with native code on or off and checks which
 * path it is on. */
static void load_case(harness_t* h, const case_t* c, bool native) {
  if (native) {
    native_default();
  } else {
    setenv("HRX_HOST_NATIVE", "0", 1);
  }
  if (c->source) {
    harness_load_source(h, c->file, c->source, strlen(c->source), c->config);
  } else {
    size_t length = 0;
    char* text = read_source(c->file, &length);
    harness_load_source(h, c->file, text, length, c->config);
    free(text);
  }
  native_default();
  const hrx_fabric_kernel_t* kernel = NULL;
  assert_ok(hrx_fabric_executable_find_kernel(h->executable, c->kernel,
                                              &kernel));
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  bool expected = native && c->native && have_native;
  if (info.native != expected) {
    fail_msg("%s: native %d, expected %d (%s)", c->kernel, info.native,
             expected, info.native_note ? info.native_note : "no note");
  }
  if (!info.native) assert_non_null(info.native_note);
}

static void run_case(harness_t* h, const case_t* c, bool native,
                     result_t* out) {
  load_case(h, c, native);
  hrx_fabric_memory_t buffers[MAX_BUFFERS];
  for (size_t b = 0; b < c->buffer_count; ++b) {
    buffers[b] = harness_buffer(h, c->bytes[b]);
    if (c->fill) c->fill(b, buffers[b].host_pointer, c->bytes[b]);
  }
  harness_arg_t args[MAX_ARGS];
  for (size_t a = 0; a < c->arg_count; ++a) {
    args[a] = c->buffer[a] >= 0 ? ARG_BUF(buffers[c->buffer[a]])
                                : ARG_U64(c->bits[a]);
  }
  hrx_status_t status = harness_run(h, c->kernel, c->workload,
                                    c->workload_count, args, c->arg_count);
  out->message[0] = '\0';
  if (status != HRX_OK) {
    /* The binding's host address differs between the two runs' buffers. */
    const char* text = hrx_status_message(status);
    const char* address = strstr(text, "[0x");
    const char* after = address ? strchr(address, ',') : NULL;
    if (after) {
      snprintf(out->message, sizeof(out->message), "%.*s[address%s",
               (int)(address - text), text, after);
    } else {
      snprintf(out->message, sizeof(out->message), "%s", text);
    }
    hrx_status_free(status);
  }
  for (size_t b = 0; b < c->buffer_count; ++b) {
    out->data[b] = malloc(c->bytes[b]);
    memcpy(out->data[b], buffers[b].host_pointer, c->bytes[b]);
    hrx_fabric_memory_free(h->device, &buffers[b]);
  }
}

/* The case on both paths: same report, same bytes (buffers a fault left
 * behind excepted: the paths stop at the same access, but a workgroup's
 * other work-items may or may not have stored by then). */
static void compare_case(harness_t* h, const case_t* c) {
  result_t interpreted, native;
  run_case(h, c, false, &interpreted);
  run_case(h, c, true, &native);
  if (strcmp(interpreted.message, native.message) != 0) {
    fail_msg("%s: interpreter \"%s\", native \"%s\"", c->kernel,
             interpreted.message, native.message);
  }
  for (size_t b = 0; !interpreted.message[0] && b < c->buffer_count; ++b) {
    for (size_t i = 0; i < c->bytes[b]; ++i) {
      if (interpreted.data[b][i] == native.data[b][i]) continue;
      size_t word = i & ~(size_t)3;
      uint32_t want = 0, got = 0;
      memcpy(&want, interpreted.data[b] + word, 4);
      memcpy(&got, native.data[b] + word, 4);
      /* f32 NaNs agree whatever their sign and payload, which neither C
       * nor LLVM pin down (nor valgrind's emulation of the CPU). */
      if (c->nan_words && word + 4 <= c->bytes[b] &&
          (want & 0x7fffffffu) > 0x7f800000u &&
          (got & 0x7fffffffu) > 0x7f800000u) {
        i = word + 3;
        continue;
      }
      fail_msg("%s: buffer %zu differs at byte %zu: word %08x on the "
               "interpreter, %08x native",
               c->kernel, b, i, want, got);
    }
  }
  for (size_t b = 0; b < c->buffer_count; ++b) {
    free(interpreted.data[b]);
    free(native.data[b]);
  }
}

/*===------------------------------------------------------------------===*/
/* Inputs                                                                  */
/*===------------------------------------------------------------------===*/

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)rng_state;
}

/* f32 edge values first, then a spread of magnitudes and signs. */
static float edge_float(size_t i) {
  static const uint32_t edges[] = {
      0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x7f800000u,
      0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7fa00000u, 0x00000001u,
      0x80000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0xff7fffffu,
      0x3f000000u, 0x477fe000u, 0x477ff000u, 0x477fefffu, 0x33800000u,
      0x33000000u, 0x387fc000u, 0x3f808000u, 0x3f818000u, 0x40490fdbu,
      0x4b000001u, 0x4effffffu, 0xcf000000u, 0x4f800000u, 0x5f000000u,
      0xdf000001u, 0x42c80000u};
  uint32_t bits;
  if (i < sizeof(edges) / sizeof(edges[0])) {
    bits = edges[i];
  } else {
    uint32_t r = rng();
    /* Mostly moderate exponents, some anywhere. */
    bits = (i % 5 == 0) ? r
                        : (r & 0x807fffffu) | ((100u + (r >> 8) % 60u) << 23);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static void fill_floats(size_t buffer, void* data, size_t bytes) {
  float* f = data;
  rng_state = 0x9e3779b97f4a7c15ull + buffer;
  for (size_t i = 0; i < bytes / 4; ++i) f[i] = edge_float(i);
}

/* Positive floats: min and max never see zeros of both signs or NaNs,
 * whose choice C leaves open (and the interpreter's compiler may swap the
 * operands of fminf and fmaxf, as they commute otherwise). */
static void fill_positive(size_t buffer, void* data, size_t bytes) {
  float* f = data;
  rng_state = 0x77ull + buffer;
  for (size_t i = 0; i < bytes / 4; ++i) {
    f[i] = 0.5f + (float)(rng() % 100000) / 997.0f;
  }
}

static void fill_small(size_t buffer, void* data, size_t bytes) {
  float* f = data;
  rng_state = 0x1234567ull + buffer;
  for (size_t i = 0; i < bytes / 4; ++i) {
    f[i] = (float)((int)(rng() % 2001) - 1000) / 64.0f;
  }
}

static void fill_bytes(size_t buffer, void* data, size_t bytes) {
  uint8_t* b = data;
  rng_state = 0xabcdefull + buffer;
  for (size_t i = 0; i < bytes; ++i) b[i] = (uint8_t)rng();
}

static void fill_gather(size_t buffer, void* data, size_t bytes) {
  if (buffer == 1) {
    int32_t* ids = data;
    rng_state = 99;
    for (size_t i = 0; i < bytes / 4; ++i) {
      /* Some out of the table, which the kernel clamps to row 0. */
      ids[i] = (int32_t)(rng() % 300) - 20;
    }
  } else {
    fill_small(buffer, data, bytes);
  }
}

static void fill_bf16(size_t buffer, void* data, size_t bytes) {
  uint16_t* v = data;
  rng_state = 7 + buffer;
  for (size_t i = 0; i < bytes / 2; ++i) {
    v[i] = (uint16_t)(0x3c00 + rng() % 0x800) | (uint16_t)((rng() & 1) << 15);
  }
}

/*===------------------------------------------------------------------===*/
/* Corpus kernels, bit for bit                                             */
/*===------------------------------------------------------------------===*/

static void test_saxpy(void** state) {
  /* 4099: the last workgroup's corner check fails (the guard keeps it in
   * bounds), so it takes the checked loop; the others the fast one. */
  const uint64_t sizes[] = {1, 256, 4099};
  for (size_t s = 0; s < 3; ++s) {
    uint64_t n = sizes[s];
    case_t c = {.file = "lib:saxpy.loom", .kernel = "saxpy",
                .workload = {n}, .workload_count = 1, .arg_count = 4,
                .buffer = {-1, -1, 0, 1}, .bits = {n, 0x3fa00000u},
                .buffer_count = 2, .bytes = {n * 4, n * 4},
                .fill = fill_floats, .native = true, .nan_words = true};
    compare_case(*state, &c);
    /* x and y one buffer: overlapping bindings fail the precheck of the
     * fast copy (whose accesses carry per-binding alias scopes), so the
     * checked copy runs, and still agrees. */
    c.buffer[2] = 1;
    compare_case(*state, &c);
  }
}

static void test_gather(void** state) {
  const uint64_t count = 1000, width = 24, rows = 256;
  case_t c = {.file = "lib:gather.loom", .kernel = "gather_rows",
              .workload = {count, width}, .workload_count = 2,
              .arg_count = 6, .buffer = {-1, -1, -1, 0, 1, 2},
              .bits = {count, width, rows}, .buffer_count = 3,
              .bytes = {rows * width * 4, count * 4, count * width * 4},
              .fill = fill_gather, .native = true};
  compare_case(*state, &c);
}

static void test_histogram(void** state) {
  const uint64_t n = 5000;
  case_t c = {.file = "lib:histogram.loom", .kernel = "histogram",
              .workload = {n}, .workload_count = 1, .arg_count = 3,
              .buffer = {-1, 0, 1}, .bits = {n}, .buffer_count = 2,
              .bytes = {n, 256 * 4}, .fill = fill_bytes, .native = true};
  compare_case(*state, &c);
}

static void test_affine_sampler(void** state) {
  const uint64_t w = 37, hgt = 21, sw = 30, sh = 17;
  float m[6] = {0.8f, 0.15f, -2.5f, -0.1f, 0.9f, 1.25f};
  uint32_t bits[6];
  memcpy(bits, m, sizeof(bits));
  case_t c = {.file = "lib:affine_sampler.loom", .kernel = "affine_rgb",
              .workload = {w, hgt}, .workload_count = 2, .arg_count = 13,
              .buffer = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 1},
              .bits = {w, hgt, sw, sh, bits[0], bits[1], bits[2], bits[3],
                       bits[4], bits[5], 0x7f},
              .buffer_count = 2, .bytes = {sw * sh * 3, w * hgt * 3},
              .fill = fill_bytes, .native = true};
  compare_case(*state, &c);
}

static void test_row_dot(void** state) {
  const uint64_t rows = 40, k = 96;
  case_t c = {.file = "lib:row_dot.loom", .kernel = "row_dot",
              .workload = {rows, k}, .workload_count = 2, .arg_count = 5,
              .buffer = {-1, -1, 0, 1, 2}, .bits = {rows, k},
              .buffer_count = 3, .bytes = {rows * k * 4, k * 4, rows * 4},
              .fill = fill_small, .native = true};
  compare_case(*state, &c);
}

static void test_float_functions(void** state) {
  const uint64_t n = 777;
  case_t math = {.file = "float_math.loom", .kernel = "float_math",
                 .workload = {n}, .workload_count = 1, .arg_count = 3,
                 .buffer = {-1, 0, 1}, .bits = {n}, .buffer_count = 2,
                 .bytes = {n * 4, n * 5 * 4}, .fill = fill_floats,
                 .native = true, .nan_words = true};
  compare_case(*state, &math);
  case_t trig = {.file = "trig_pow.loom", .kernel = "trig_pow",
                 .workload = {n}, .workload_count = 1, .arg_count = 4,
                 .buffer = {-1, 0, 1, 2}, .bits = {n}, .buffer_count = 3,
                 .bytes = {n * 4, n * 4, n * 3 * 4}, .fill = fill_floats,
                 .native = true, .nan_words = true};
  compare_case(*state, &trig);
}

static void test_func_forms_and_strides(void** state) {
  const uint64_t n = 300;
  case_t forms = {.file = "func_forms.loom", .kernel = "func_forms",
                  .workload = {n}, .workload_count = 1, .arg_count = 3,
                  .buffer = {-1, 0, 1}, .bits = {n}, .buffer_count = 2,
                  .bytes = {n * 4, n * 4 * 4}, .fill = fill_small,
                  .native = true};
  compare_case(*state, &forms);
  /* Template applications reach both paths as inlined calls. */
  case_t templates = {.file = "templates.loom", .kernel = "templates",
                      .workload = {n}, .workload_count = 1, .arg_count = 3,
                      .buffer = {-1, 0, 1}, .bits = {n}, .buffer_count = 2,
                      .bytes = {n * 4, n * 4 * 4}, .fill = fill_small,
                      .native = true};
  compare_case(*state, &templates);
  case_t defined = {.file = "encoding_define.loom", .kernel = "encoding_define",
                    .arg_count = 2, .buffer = {0, 1}, .buffer_count = 2,
                    .bytes = {24 * 4, 48 * 4}, .fill = fill_small,
                    .native = true};
  compare_case(*state, &defined);
  const uint64_t rows = 13, cols = 29;
  case_t strided = {.file = "strided_transpose.loom",
                    .kernel = "strided_transpose",
                    .workload = {rows, cols}, .workload_count = 2,
                    .arg_count = 4, .buffer = {-1, -1, 0, 1},
                    .bits = {rows, cols}, .buffer_count = 2,
                    .bytes = {rows * cols * 4, rows * cols * 4},
                    .fill = fill_small, .native = true};
  compare_case(*state, &strided);
}

static void test_linear_bf16(void** state) {
  const char* config[] = {"linear.k=256", "linear.n=19", NULL};
  case_t c = {.file = "lib:linear_bf16.loom", .config = config,
              .kernel = "linear_bf16", .workload = {0}, .workload_count = 1,
              .arg_count = 3, .buffer = {0, 1, 2}, .buffer_count = 3,
              .bytes = {256 * 2, 19 * 256 * 2, 19 * 4}, .fill = fill_bf16,
              .native = true, .nan_words = true};
  compare_case(*state, &c);
}

static void test_generated_kernels(void** state) {
  harness_t* h = *state;
  /* Work-item ids in three dimensions, two workgroups. */
  case_t ids = {.file = "ids.loom", .source = corpus_ids_kernel,
                .kernel = "ids", .arg_count = 1, .buffer = {0},
                .buffer_count = 1, .bytes = {2 * 60 * 3 * 4},
                .native = true};
  compare_case(h, &ids);
  /* Vector arithmetic, reductions and bf16 casts. */
  char* vector = corpus_vector_kernel();
  case_t vec = {.file = "vector.loom", .source = vector, .kernel = "vector",
                .arg_count = 3, .buffer = {0, 1, 2}, .buffer_count = 3,
                .bytes = {256 * 4, 256 * 4, 256 * 4}, .fill = fill_positive,
                .native = true};
  compare_case(h, &vec);
  free(vector);
  char* vreduce = corpus_vreduce_kernel();
  case_t red = {.file = "vreduce.loom", .source = vreduce,
                .kernel = "vreduce", .arg_count = 3, .buffer = {0, 1, 2},
                .buffer_count = 3, .bytes = {256 * 4, 256 * 4, 192 * 4},
                .fill = fill_positive, .native = true};
  compare_case(h, &red);
  free(vreduce);
  char* casts = corpus_casts_kernel();
  case_t cast = {.file = "casts.loom", .source = casts, .kernel = "casts",
                 .arg_count = 3, .buffer = {0, 1, 2}, .buffer_count = 3,
                 .bytes = {256 * 2, 256 * 4, 256 * 2}, .fill = fill_bf16,
                 .native = true};
  compare_case(h, &cast);
  free(casts);
}

/*===------------------------------------------------------------------===*/
/* Semantics the native code must reproduce exactly                        */
/*===------------------------------------------------------------------===*/

/* Integer division, shifts and min/max on per-lane data, f16/bf16 round
 * trips of edge floats, fmin/fmax ties and NaNs, saturating conversions. */
static const char* const exact_body =
    "  %xv = buffer.view %x[%o] : buffer -> view<256xi32>\n"
    "  %yv = buffer.view %y[%o] : buffer -> view<256xi32>\n"
    "  %fv = buffer.view %f[%o] : buffer -> view<256xf32>\n"
    "  %gv = buffer.view %g[%o] : buffer -> view<256xf32>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<256x16xi32>\n"
    "  %pv = buffer.view %out[%o] : buffer -> view<256x16xf32>\n"
    "  %a = view.load %xv[%id] : view<256xi32> -> i32\n"
    "  %b0 = view.load %yv[%id] : view<256xi32> -> i32\n"
    "  %zero = scalar.constant 0 : i32\n"
    "  %isz = scalar.cmpi eq, %b0, %zero : i32\n"
    "  %seven = scalar.constant 7 : i32\n"
    "  %b = scf.select %isz, %seven, %b0 : i32\n"
    "  %q = scalar.divsi %a, %b : i32\n"
    "  %r = scalar.remsi %a, %b : i32\n"
    "  %qu = scalar.divui %a, %b : i32\n"
    "  %sh = scalar.shli %a, %b0 : i32\n"
    "  %sr = scalar.shrsi %a, %b0 : i32\n"
    "  %su = scalar.shrui %a, %b0 : i32\n"
    "  %mn = scalar.minsi %a, %b0 : i32\n"
    "  %mx = scalar.maxui %a, %b0 : i32\n"
    "  view.store %q, %ov[%id, 0] : i32, view<256x16xi32>\n"
    "  view.store %r, %ov[%id, 1] : i32, view<256x16xi32>\n"
    "  view.store %qu, %ov[%id, 2] : i32, view<256x16xi32>\n"
    "  view.store %sh, %ov[%id, 3] : i32, view<256x16xi32>\n"
    "  view.store %sr, %ov[%id, 4] : i32, view<256x16xi32>\n"
    "  view.store %su, %ov[%id, 5] : i32, view<256x16xi32>\n"
    "  view.store %mn, %ov[%id, 6] : i32, view<256x16xi32>\n"
    "  view.store %mx, %ov[%id, 7] : i32, view<256x16xi32>\n"
    "  %u = view.load %fv[%id] : view<256xf32> -> f32\n"
    "  %v = view.load %gv[%id] : view<256xf32> -> f32\n"
    "  %half = scalar.constant 0.5 : f32\n"
    "  %mtwo = scalar.constant -2.0 : f32\n"
    "  %fmin = scalar.minnumf %u, %half : f32\n"
    "  %fmax = scalar.maxnumf %mtwo, %v : f32\n"
    "  view.store %fmin, %pv[%id, 8] : f32, view<256x16xf32>\n"
    "  view.store %fmax, %pv[%id, 9] : f32, view<256x16xf32>\n"
    "  %h = scalar.fptrunc %u : f32 to f16\n"
    "  %hb = scalar.extf %h : f16 to f32\n"
    "  view.store %hb, %pv[%id, 10] : f32, view<256x16xf32>\n"
    "  %bf = scalar.fptrunc %u : f32 to bf16\n"
    "  %bb = scalar.extf %bf : bf16 to f32\n"
    "  view.store %bb, %pv[%id, 11] : f32, view<256x16xf32>\n"
    "  %hs = scalar.addf %h, %h : f16\n"
    "  %hw = scalar.extf %hs : f16 to f32\n"
    "  view.store %hw, %pv[%id, 12] : f32, view<256x16xf32>\n"
    "  %si = scalar.fptosi %u : f32 to i32\n"
    "  view.store %si, %ov[%id, 13] : i32, view<256x16xi32>\n"
    "  %d = scalar.extf %u : f32 to f64\n"
    "  %d2 = scalar.mulf %d, %d : f64\n"
    "  %dh = scalar.fptrunc %d2 : f64 to f16\n"
    "  %dhw = scalar.extf %dh : f16 to f32\n"
    "  view.store %dhw, %pv[%id, 14] : f32, view<256x16xf32>\n"
    "  %t = scalar.tanhf %v : f32\n"
    "  view.store %t, %pv[%id, 15] : f32, view<256x16xf32>\n";

static void fill_exact(size_t buffer, void* data, size_t bytes) {
  int32_t* v = data;
  rng_state = 0x5151 + buffer;
  static const int32_t edges[] = {0,  1,  -1, INT32_MIN, INT32_MAX, 31, 32,
                                  33, 64, -31, -32, 7,  -7,        100};
  if (buffer < 2) {
    for (size_t i = 0; i < bytes / 4; ++i) {
      v[i] = i < 14 ? edges[(i + buffer * 3) % 14] : (int32_t)rng();
      if (buffer == 1 && i >= 14 && i % 3) v[i] = (int32_t)(rng() % 70) - 5;
    }
  } else {
    float* f = data;
    for (size_t i = 0; i < bytes / 4; ++i) {
      f[i] = edge_float((i + (buffer == 3 ? 1 : 0)) % 256);
    }
  }
}

static void test_exact_semantics(void** state) {
  char* text = corpus_one_group_kernel(
      "exact", "",
      "%x: buffer, %y: buffer, %f: buffer, %g: buffer, %out: buffer",
      exact_body);
  /* Four workgroups would need a workload: one group of 64, four times
   * over the inputs through different offsets is not needed; 64 lanes. */
  case_t c = {.file = "exact.loom", .source = text, .kernel = "exact",
              .arg_count = 5, .buffer = {0, 1, 2, 3, 4}, .buffer_count = 5,
              .bytes = {256 * 4, 256 * 4, 256 * 4, 256 * 4, 256 * 16 * 4},
              .fill = fill_exact, .native = true, .nan_words = true};
  compare_case(*state, &c);
  free(text);
}

static uint64_t f32_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  return bits;
}

static void fill_gather_rows(size_t buffer, void* data, size_t bytes) {
  if (buffer != 1) {
    fill_bytes(buffer, data, bytes);
    return;
  }
  /* 13 live rows of the 16, indices within the table's 50 rows. */
  int32_t* v = data;
  v[0] = 13;
  rng_state = 5;
  for (size_t i = 1; i < bytes / 4; ++i) v[i] = (int32_t)(rng() % 50);
}

/* libhrx-model's TensorOps and image kernels, and the rest of
 * libhrx-loom's: ring_drain's order-dependent results are left to its own
 * tests. */
static void test_model_kernels(void** state) {
  harness_t* h = *state;
  const uint64_t n = 37, k = 50, d = 100;
  case_t linear = {.file = "model:linear_f32.loom", .kernel = "linear_f32",
                   .workload = {n, k}, .workload_count = 2, .arg_count = 6,
                   .buffer = {-1, -1, 0, 1, 2, 3}, .bits = {n, k},
                   .buffer_count = 4, .bytes = {n * k * 4, k * 4, n * 4, n * 4},
                   .fill = fill_small, .native = true, .nan_words = true};
  compare_case(h, &linear);
  case_t rms = {.file = "model:rms_norm.loom", .kernel = "rms_norm",
                .workload = {d}, .workload_count = 1, .arg_count = 5,
                .buffer = {-1, -1, 0, 1, 2}, .bits = {d, f32_bits(1e-5f)},
                .buffer_count = 3, .bytes = {d * 4, d * 4, d * 4},
                .fill = fill_small, .native = true, .nan_words = true};
  compare_case(h, &rms);
  for (uint64_t wide = 0; wide < 2; ++wide) {
    const uint64_t capacity = 16, rows = 50, units = 7;
    uint64_t unit = wide ? 4 : 1;
    case_t gather = {.file = "model:tensor_gather.loom",
                     .kernel = "tensor_gather", .workload = {capacity},
                     .workload_count = 1, .arg_count = 7,
                     .buffer = {-1, -1, -1, -1, 0, 1, 2},
                     .bits = {capacity, rows, units, wide}, .buffer_count = 3,
                     .bytes = {rows * units * unit, (capacity + 1) * 4,
                               capacity * units * unit},
                     .fill = fill_gather_rows, .native = true};
    compare_case(h, &gather);
  }
  case_t finite = {.file = "model:image_finite.loom", .kernel = "image_finite",
                   .workload = {1000}, .workload_count = 1, .arg_count = 3,
                   .buffer = {-1, 0, 1}, .bits = {1000}, .buffer_count = 2,
                   .bytes = {4000, 4}, .fill = fill_bytes, .native = true};
  compare_case(h, &finite);
  /* Three projections chosen per row by scf.select between buffers,
   * checked against the binding chosen; f32 and bf16 results. */
  for (uint64_t narrow = 0; narrow < 2; ++narrow) {
    const uint64_t kk = 256, n0 = 5, n1 = 3, n2 = 9, rows = n0 + n1 + n2;
    case_t tensor_linear = {
        .file = "model:tensor_linear.loom", .kernel = "tensor_linear",
        .workload = {rows}, .workload_count = 1, .arg_count = 10,
        .buffer = {-1, -1, -1, -1, -1, 0, 1, 2, 3, 4},
        .bits = {kk, n0, n1, n2, narrow}, .buffer_count = 5,
        .bytes = {kk * 2, n0 * kk * 2, n1 * kk * 2, n2 * kk * 2,
                  rows * (narrow ? 2 : 4)},
        .fill = fill_bf16, .native = true};
    compare_case(h, &tensor_linear);
  }
  case_t transpose = {.file = "lib:transpose.loom", .kernel = "transpose",
                      .workload = {19, 33}, .workload_count = 2,
                      .arg_count = 4, .buffer = {-1, -1, 0, 1},
                      .bits = {19, 33}, .buffer_count = 2,
                      .bytes = {19 * 33 * 4, 19 * 33 * 4}, .fill = fill_small,
                      .native = true};
  compare_case(h, &transpose);
}

/* Every kernel of the three corpora (tests/kernels, libhrx-loom/kernels,
 * libhrx-model/kernels) has native code or a note saying why not. */
static void test_corpus_is_native_or_says_why(void** state) {
  harness_t* h = *state;
  static const char* const dirs[][2] = {{"HRX_TEST_KERNELS", ""},
                                        {"HRX_LOOM_KERNELS", "lib:"},
                                        {"HRX_MODEL_KERNELS", "model:"}};
  const char* bf16_config[] = {"linear.k=256", "linear.n=19", NULL};
  size_t native = 0, declined = 0;
  for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); ++i) {
    const char* dir = getenv(dirs[i][0]);
    assert_non_null(dir);
    DIR* listing = opendir(dir);
    assert_non_null(listing);
    for (struct dirent* e; (e = readdir(listing)) != NULL;) {
      size_t length = strlen(e->d_name);
      if (length < 6 || strcmp(e->d_name + length - 5, ".loom")) continue;
      char* file = test_strdup_printf("%s%s", dirs[i][1], e->d_name);
      case_t c = {.file = file,
                  .config = strstr(file, "linear_bf16") ? bf16_config : NULL};
      size_t text_length = 0;
      char* text = read_source(c.file, &text_length);
      harness_load_source(h, c.file, text, text_length, c.config);
      free(text);
      size_t count = hrx_fabric_executable_kernel_count(h->executable);
      assert_true(count > 0);
      for (size_t k = 0; k < count; ++k) {
        hrx_fabric_kernel_info_t info =
            HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
        assert_ok(hrx_fabric_kernel_info(
            hrx_fabric_executable_kernel_at(h->executable, k), &info));
        if (info.native) {
          ++native;
          continue;
        }
        ++declined;
        if (!info.native_note || !info.native_note[0]) {
          fail_msg("%s %s: declined without a note", file, info.name);
        }
        print_message("%s %s: interpreted: %s\n", file, info.name,
                      info.native_note);
      }
      free(file);
    }
    closedir(listing);
  }
  print_message("corpus: %zu kernels native, %zu interpreted\n", native,
                declined);
  if (have_native) assert_true(native > declined);
}

/*===------------------------------------------------------------------===*/
/* Faults                                                                  */
/*===------------------------------------------------------------------===*/

static void test_faults_match(void** state) {
  harness_t* h = *state;
  /* One element past the end, from lane 10 of 64. */
  case_t overflow = {.file = "overflow.loom", .source = corpus_overflow_kernel,
                     .kernel = "overflow", .workload = {10},
                     .workload_count = 1, .arg_count = 2, .buffer = {-1, 0},
                     .bits = {10}, .buffer_count = 1, .bytes = {40},
                     .native = true};
  compare_case(h, &overflow);
  /* Huge and negative indices: poisoned, never wrapped into the buffer. */
  const int64_t indices[] = {(INT64_C(1) << 62) + 1, INT64_MAX, -1, INT64_MIN,
                             3, 4, INT64_C(1) << 62};
  const char* const kernels[] = {"store_uniform", "store_lane", "load_lane",
                                 "store_2d", "store_folded"};
  for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); ++k) {
    for (size_t i = 0; i < sizeof(indices) / sizeof(indices[0]); ++i) {
      case_t poke = {.file = "poke.loom", .source = corpus_poke_kernels,
                     .kernel = kernels[k], .arg_count = 2, .buffer = {0, -1},
                     .bits = {0, (uint64_t)indices[i]}, .buffer_count = 1,
                     .bytes = {16}, .native = true};
      compare_case(h, &poke);
    }
  }
  /* Division by zero. */
  char* text = corpus_one_group_kernel(
      "divide", "", "%x: buffer, %y: buffer",
      "  %xv = buffer.view %x[%o] : buffer -> view<64xi32>\n"
      "  %a = view.load %xv[%id] : view<64xi32> -> i32\n"
      "  %b = scalar.constant 0 : i32\n"
      "  %c5 = index.constant 5 : index\n"
      "  %is5 = index.cmp eq, %id, %c5 : index\n"
      "  %unit = scalar.constant 1 : i32\n"
      "  %d = scf.select %is5, %b, %unit : i32\n"
      "  %q = scalar.divsi %a, %d : i32\n"
      "  view.store %q, %xv[%id] : i32, view<64xi32>\n");
  case_t divide = {.file = "divide.loom", .source = text, .kernel = "divide",
                   .arg_count = 2, .buffer = {0, 1}, .buffer_count = 2,
                   .bytes = {256, 256}, .fill = fill_bytes, .native = true};
  compare_case(h, &divide);
  free(text);
}

/* Subgroup shuffles and reductions run in phases: wave64 shuffles of
 * every mode and clustered reductions, and a whole-wave sum. */
static void test_subgroup_operations(void** state) {
  harness_t* h = *state;
  case_t c = {.file = "subgroup.loom", .source = corpus_subgroup_kernel,
              .kernel = "subgroup_ops", .arg_count = 2, .buffer = {0, 1},
              .buffer_count = 2, .bytes = {64 * 4, 64 * 7 * 4},
              .fill = fill_small, .native = true, .nan_words = true};
  compare_case(h, &c);
  const uint64_t sizes[] = {1, 33, 1000};
  for (size_t s = 0; s < 3; ++s) {
    uint64_t n = sizes[s], waves = n < 64 ? 1 : 7;
    case_t sum = {.file = "lib:reduce_sum.loom", .kernel = "reduce_sum",
                  .workload = {n, waves}, .workload_count = 2,
                  .arg_count = 4, .buffer = {-1, -1, 0, 1},
                  .bits = {n, waves}, .buffer_count = 2,
                  .bytes = {n * 4, waves * 4}, .fill = fill_small,
                  .native = true, .nan_words = true};
    compare_case(h, &sum);
  }
}

/* Phases around uniform control flow: an scf.if per wave with a
 * reduction in each arm, an scf.for carrying a value through shuffles, in
 * a 24x3 workgroup (x and y from the flat id; the third wave holds 8
 * lanes). */
static const char* const phases_kernel =
    "host.target<cpu> @h {subgroup_size = 32}\n"
    "kernel.def target(@h) export(\"phases\") @phases(%n: index) {\n"
    "  %one = index.constant 1 : index\n"
    "  %sx = index.constant 24 : index\n"
    "  %sy = index.constant 3 : index\n"
    "  kernel.launch.config workgroups(%n, %one, %one) "
    "workgroup_size(%sx, %sy, %one) : index\n"
    "} launch(%n: index, %in: buffer, %out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %one = index.constant 1 : index\n"
    "  %x = kernel.workitem.id<x> : index\n"
    "  %y = kernel.workitem.id<y> : index\n"
    "  %g = kernel.workgroup.id<x> : index\n"
    "  %c24 = index.constant 24 : index\n"
    "  %c72 = index.constant 72 : index\n"
    "  %row = index.mul %y, %c24 : index\n"
    "  %flat = index.add %row, %x : index\n"
    "  %gbase = index.mul %g, %c72 : index\n"
    "  %i = index.add %gbase, %flat : index\n"
    "  %iv = buffer.view %in[%o] : buffer -> view<720xf32>\n"
    "  %v = view.load %iv[%i] : view<720xf32> -> f32\n"
    "  %wave = kernel.subgroup.id : index\n"
    "  %zero = index.constant 0 : index\n"
    "  %first = index.cmp eq, %wave, %zero : index\n"
    "  %r = scf.if %first -> (f32) {\n"
    "    %s = kernel.subgroup.reduce<addf> %v : f32\n"
    "    scf.yield %s : f32\n"
    "  } else {\n"
    "    %m = kernel.subgroup.reduce<maxnumf> %v {cluster_size = 8} : f32\n"
    "    scf.yield %m : f32\n"
    "  }\n"
    "  %three = index.constant 3 : index\n"
    "  %acc = scf.for %k = [%zero to %three step %one](%a = %v : f32) -> "
    "(f32) {\n"
    "    %w = scalar.constant 4 : i32\n"
    "    %k32 = index.cast %k : index to i32\n"
    "    %h, %ok = kernel.subgroup.shuffle<down> %a, %k32, %w : f32, i32, "
    "i32\n"
    "    %t = scalar.addf %a, %h : f32\n"
    "    scf.yield %t : f32\n"
    "  }\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<720x2xf32>\n"
    "  view.store %r, %ov[%i, 0] : f32, view<720x2xf32>\n"
    "  view.store %acc, %ov[%i, 1] : f32, view<720x2xf32>\n"
    "  kernel.return\n"
    "}\n";

static void test_phases_around_control_flow(void** state) {
  harness_t* h = *state;
  case_t c = {.file = "phases.loom", .source = phases_kernel,
              .kernel = "phases", .workload = {10}, .workload_count = 1,
              .arg_count = 3, .buffer = {-1, 0, 1}, .bits = {10},
              .buffer_count = 2, .bytes = {720 * 4, 720 * 2 * 4},
              .fill = fill_positive, .native = true};
  compare_case(h, &c);
  /* A shuffle under a condition that differs between lanes stays on the
   * interpreter. */
  char* text = corpus_one_group_kernel(
      "divergent", "", "%out: buffer",
      "  %ov = buffer.view %out[%o] : buffer -> view<64xf32>\n"
      "  %c5 = index.constant 5 : index\n"
      "  %odd = index.cmp ult, %id, %c5 : index\n"
      "  %f = scalar.constant 2.0 : f32\n"
      "  %w = scalar.constant 32 : i32\n"
      "  %d = scalar.constant 1 : i32\n"
      "  scf.if %odd {\n"
      "    %h, %ok = kernel.subgroup.shuffle<xor> %f, %d, %w : f32, i32, "
      "i32\n"
      "    view.store %h, %ov[%id] : f32, view<64xf32>\n"
      "  }\n");
  case_t divergent = {.file = "divergent.loom", .source = text,
                      .kernel = "divergent", .arg_count = 1, .buffer = {0},
                      .buffer_count = 1, .bytes = {64 * 4}, .native = false};
  compare_case(h, &divergent);
  const hrx_fabric_kernel_t* kernel = NULL;
  assert_ok(hrx_fabric_executable_find_kernel(h->executable, "divergent",
                                              &kernel));
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  if (have_native && !strstr(info.native_note, "may differ between lanes")) {
    fail_msg("note: %s", info.native_note);
  }
  free(text);
}

/* Divisions by a value every work-item shares go through a reciprocal
 * when the dividend fits 31 bits, and divide otherwise: both agree with
 * the interpreter, negative and huge dividends included. */
static void fill_dividends(size_t buffer, void* data, size_t bytes) {
  int64_t* v = data;
  rng_state = 0xd1d1 + buffer;
  for (size_t i = 0; i < bytes / 8; ++i) {
    switch (i % 4) {
      case 0: v[i] = (int64_t)(rng() % 100000); break;
      case 1: v[i] = (int64_t)rng(); break;
      case 2: v[i] = -(int64_t)(rng() % 1000); break;
      default: v[i] = (int64_t)(((uint64_t)rng() << 32) | rng()); break;
    }
  }
}

static void test_shared_divisors(void** state) {
  harness_t* h = *state;
  char* text = corpus_one_group_kernel(
      "divide", "", "%x: buffer, %out: buffer, %d: index",
      "  %xv = buffer.view %x[%o] : buffer -> view<64xi64>\n"
      "  %ov = buffer.view %out[%o] : buffer -> view<64x2xi64>\n"
      "  %a64 = view.load %xv[%id] : view<64xi64> -> i64\n"
      "  %a = index.cast %a64 : i64 to index\n"
      "  %q = index.div %a, %d : index\n"
      "  %r = index.rem %a, %d : index\n"
      "  %q64 = index.cast %q : index to i64\n"
      "  %r64 = index.cast %r : index to i64\n"
      "  view.store %q64, %ov[%id, 0] : i64, view<64x2xi64>\n"
      "  view.store %r64, %ov[%id, 1] : i64, view<64x2xi64>\n");
  const uint64_t divisors[] = {1, 3, 7, 64, 1000, (1u << 31) - 1, 1u << 31,
                               UINT64_C(1) << 40, (uint64_t)-1,
                               (uint64_t)-7};
  for (size_t i = 0; i < sizeof(divisors) / sizeof(divisors[0]); ++i) {
    case_t c = {.file = "divide.loom", .source = text, .kernel = "divide",
                .arg_count = 3, .buffer = {0, 1, -1},
                .bits = {0, 0, divisors[i]}, .buffer_count = 2,
                .bytes = {64 * 8, 64 * 2 * 8}, .fill = fill_dividends,
                .native = true};
    compare_case(h, &c);
  }
  free(text);
}

/* A native kernel that never ends stops at a loop back-edge when its
 * completion signal is cancelled. */
static void test_cancel_stops_native_loops(void** state) {
  harness_t* h = *state;
  case_t c = {.file = "spin.loom", .kernel = "spin", .native = true};
  load_case(h, &c, true);
  const hrx_fabric_kernel_t* kernel = NULL;
  assert_ok(hrx_fabric_executable_find_kernel(h->executable, "spin",
                                              &kernel));
  hrx_fabric_memory_t data = harness_buffer(h, 8);
  ((int32_t*)data.host_pointer)[0] = 0;
  ((int32_t*)data.host_pointer)[1] = 1; /* never reached */
  uint8_t kernarg[8];
  memcpy(kernarg, &data.device_address, 8);
  hrx_fabric_signal_t* done = NULL;
  assert_ok(hrx_fabric_signal_create(1, hrx_allocator_system(), &done));
  uint64_t index = 0;
  assert_ok(hrx_fabric_queue_reserve(h->queue, 1, &index));
  hrx_aql_dispatch_packet_t* p =
      &hrx_fabric_queue_slot(h->queue, index)->dispatch;
  p->workgroup_size_x = 64;
  p->workgroup_size_y = 1;
  p->workgroup_size_z = 1;
  p->grid_size_x = 64;
  p->grid_size_y = 1;
  p->grid_size_z = 1;
  p->group_segment_size = 0;
  p->private_segment_size = 0;
  p->kernel_object = hrx_fabric_kernel_object(kernel);
  p->kernarg_address = (uint64_t)(uintptr_t)kernarg;
  p->completion_signal = hrx_fabric_signal_handle(done);
  hrx_fabric_queue_publish(
      h->queue, index,
      hrx_aql_header(HRX_AQL_PACKET_KERNEL_DISPATCH, 1, HRX_AQL_FENCE_SYSTEM,
                     HRX_AQL_FENCE_SYSTEM),
      1);
  /* Let it spin, then cancel. */
  int64_t value = 0;
  assert_status_code(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                            20000000ull, &value),
                     HRX_STATUS_DEADLINE_EXCEEDED);
  hrx_fabric_signal_cancel(done);
  assert_ok(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                   60ull * 1000000000ull, &value));
  assert_int_equal(value, HRX_FABRIC_SIGNAL_FAULTED);
  hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  assert_ok(hrx_fabric_queue_take_fault(h->queue, &fault));
  assert_int_equal(fault.kind, HRX_FABRIC_FAULT_CANCELLED);
  assert_string_equal(fault.kernel, "spin");
  hrx_fabric_signal_release(done);
  hrx_fabric_memory_free(h->device, &data);
}

/* Workgroup barriers split the work-item loop into phases over the whole
 * workgroup (loop fission), with values live across a barrier in
 * per-work-item arrays: workgroup memory read after a barrier, barriers in
 * uniform loops, subgroup and workgroup reductions (partial last waves
 * included), all bit for bit with the interpreter. */
static const char* const mixed_barrier_kernel =
    "host.target<cpu> @h {subgroup_size = 32}\n"
    "kernel.def target(@h) export(\"mixed\") @mixed() {\n"
    "  %one = index.constant 1 : index\n"
    "  %two = index.constant 2 : index\n"
    "  %t = index.constant 80 : index\n"
    "  kernel.launch.config workgroups(%two, %one, %one) "
    "workgroup_size(%t, %one, %one) : index\n"
    "} launch(%in: buffer, %out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %id = kernel.workitem.id<x> : index\n"
    "  %g = kernel.workgroup.id<x> : index\n"
    "  %t = index.constant 80 : index\n"
    "  %last = index.constant 79 : index\n"
    "  %iv = buffer.view %in[%o] : buffer -> view<160xf32>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<160x5xf32>\n"
    "  %at = index.madd %g, %t, %id : index\n"
    "  %x = view.load %iv[%at] : view<160xf32> -> f32\n"
    "  %bytes = index.constant 320 : offset\n"
    "  %scratch = buffer.alloca<workgroup> align(16) %bytes : buffer\n"
    "  %lds = buffer.view %scratch[%o] : buffer -> view<80xf32>\n"
    "  %w = kernel.subgroup.id : index\n"
    "  %s = kernel.subgroup.reduce<addf> %x : f32\n"
    "  %m = kernel.subgroup.reduce<maxnumf> %x {cluster_size = 8} : f32\n"
    "  view.store %x, %lds[%id] : f32, view<80xf32>\n"
    "  kernel.barrier<workgroup> scope(workgroup) ordering(acq_rel)\n"
    "  %rev = index.sub %last, %id : index\n"
    "  %y = view.load %lds[%rev] : view<80xf32> -> f32\n"
    "  %tot = kernel.workgroup.reduce<addf> %y : f32\n"
    "  %xw = view.load %iv[%w] : view<160xf32> -> f32\n"
    "  %c0 = index.constant 0 : index\n"
    "  %c1 = index.constant 1 : index\n"
    "  %c2 = index.constant 2 : index\n"
    "  %c3 = index.constant 3 : index\n"
    "  %c4 = index.constant 4 : index\n"
    "  view.store %s, %ov[%at, %c0] : f32, view<160x5xf32>\n"
    "  view.store %m, %ov[%at, %c1] : f32, view<160x5xf32>\n"
    "  view.store %y, %ov[%at, %c2] : f32, view<160x5xf32>\n"
    "  view.store %tot, %ov[%at, %c3] : f32, view<160x5xf32>\n"
    "  view.store %xw, %ov[%at, %c4] : f32, view<160x5xf32>\n"
    "  kernel.return\n"
    "}\n";

static void test_barrier_kernels(void** state) {
  harness_t* h = *state;
  char* text = corpus_neighbour_kernel(true);
  case_t neighbour = {.file = "neighbour.loom", .source = text,
                      .kernel = "neighbour", .arg_count = 1, .buffer = {0},
                      .buffer_count = 1, .bytes = {64 * 4}, .native = true};
  compare_case(h, &neighbour);
  free(text);
  /* Full and partial 16x16 tiles, 256 work-items a workgroup. */
  const uint64_t shapes[][2] = {{16, 16}, {19, 33}, {64, 48}, {1, 70}};
  for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); ++i) {
    uint64_t rows = shapes[i][0], cols = shapes[i][1];
    case_t transpose = {.file = "lib:transpose.loom", .kernel = "transpose",
                        .workload = {rows, cols}, .workload_count = 2,
                        .arg_count = 4, .buffer = {-1, -1, 0, 1},
                        .bits = {rows, cols}, .buffer_count = 2,
                        .bytes = {rows * cols * 4, rows * cols * 4},
                        .fill = fill_floats, .native = true,
                        .nan_words = true};
    compare_case(h, &transpose);
  }
  const uint64_t groups = 5;
  case_t tree = {.file = "check/workgroup_reduce.loom",
                 .kernel = "workgroup_reduce", .workload = {groups},
                 .workload_count = 1, .arg_count = 3, .buffer = {-1, 0, 1},
                 .bits = {groups}, .buffer_count = 2,
                 .bytes = {groups * 64 * 4, groups * 4}, .fill = fill_small,
                 .native = true};
  compare_case(h, &tree);
  case_t kinds = {.file = "check/workgroup_reduce_kinds.loom",
                  .kernel = "reduce_f32_kinds", .workload = {groups},
                  .workload_count = 1, .arg_count = 8,
                  .buffer = {-1, 0, 1, 2, 3, 4, 5, 6}, .bits = {groups},
                  .buffer_count = 7,
                  .bytes = {groups * 80 * 4, groups * 80 * 4, groups * 4,
                            groups * 4, groups * 4, groups * 4, groups * 4},
                  .fill = fill_positive, .native = true};
  compare_case(h, &kinds);
  case_t mixed = {.file = "mixed.loom", .source = mixed_barrier_kernel,
                  .kernel = "mixed", .arg_count = 2, .buffer = {0, 1},
                  .buffer_count = 2, .bytes = {160 * 4, 160 * 5 * 4},
                  .fill = fill_small, .native = true};
  compare_case(h, &mixed);
}

/* |c| stays on the interpreter, saying |why|, and agrees with it. */
static void expect_declined(harness_t* h, const case_t* c, const char* why) {
  compare_case(h, c);
  load_case(h, c, true);
  const hrx_fabric_kernel_t* kernel = NULL;
  assert_ok(hrx_fabric_executable_find_kernel(h->executable, c->kernel,
                                              &kernel));
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  assert_false(info.native);
  if (have_native && !strstr(info.native_note, why)) {
    fail_msg("note: %s", info.native_note);
  }
}

/* Kernels the native path declines run on the interpreter and say why: a
 * barrier in a function (which the verifier cannot prove every work-item
 * reaches) and any kernel under a sanitizer. */
static void test_declined_kernel_runs_on_the_interpreter(void** state) {
  harness_t* h = *state;
  char* text = corpus_divergent_barrier_kernel(false);
  case_t diverge = {.file = "diverge.loom", .source = text,
                    .kernel = "diverge", .arg_count = 1, .buffer = {-1},
                    .bits = {64}, .native = false};
  expect_declined(h, &diverge, "inside a function");
  free(text);
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  /* Sanitizers keep every kernel on the interpreter. */
  h->sanitizers = HRX_LOOM_SANITIZE_ACCESS;
  harness_load(h, "saxpy.loom", NULL);
  h->sanitizers = 0;
  assert_ok(hrx_fabric_executable_find_kernel(h->executable, "saxpy",
                                              &kernel));
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  assert_false(info.native);
  if (have_native && !strstr(info.native_note, "sanitizers")) {
    fail_msg("note: %s", info.native_note);
  }
}

/*===------------------------------------------------------------------===*/
/* Malformed native sections                                               */
/*===------------------------------------------------------------------===*/

/* A compiled code object and where its native section's parts are. */
typedef struct object_t {
  uint8_t* code;
  size_t length;
  size_t section;      /* offset of "HXNT" */
  size_t features;     /* offset of the features' length word */
  size_t kernel_count; /* offset of the kernel count word */
  size_t elf;          /* offset of the ELF object */
  size_t elf_length;
} object_t;

static void compile_object(const char* text, object_t* out) {
  memset(out, 0, sizeof(*out));
  hrx_loom_module_t* module = NULL;
  assert_ok(hrx_loom_module_parse(text, strlen(text), NULL, NULL,
                                  hrx_allocator_system(), &module));
  hrx_loom_profile_t profile = hrx_loom_profile_host();
  assert_ok(hrx_loom_compile_host(module, NULL, &profile, NULL, NULL,
                                  hrx_allocator_system(), &out->code,
                                  &out->length));
  hrx_loom_module_destroy(module);
  for (size_t at = 12; !out->section && at + 4 <= out->length; ++at) {
    if (!memcmp(out->code + at, HRX_HOST_NATIVE_MAGIC, 4)) out->section = at;
  }
  assert_true(out->section > 0);
  const uint8_t* at = out->code + out->section + 8;
  uint64_t skip = hrx_get_le(&at, 4); /* cpu */
  at += skip;
  out->features = (size_t)(at - out->code);
  skip = hrx_get_le(&at, 4);
  at += skip;
  out->kernel_count = (size_t)(at - out->code);
  uint64_t count = hrx_get_le(&at, 4);
  for (uint64_t k = 0; k < count; ++k) {
    at += 4; /* has_code */
    skip = hrx_get_le(&at, 4);
    at += skip;
  }
  out->elf_length = hrx_get_le(&at, 4);
  out->elf = (size_t)(at - out->code);
}

static void reseal(uint8_t* bytes, size_t length) {
  hrx_sha256_digest_t digest;
  hrx_sha256(bytes, length - 32, &digest);
  memcpy(bytes + length - 32, digest.bytes, 32);
}

/* Loads |code| and returns the first kernel's note (NULL when native);
 * the kernel must still run (saxpy on the interpreter). */
static char* load_note(harness_t* h, const uint8_t* code, size_t length) {
  hrx_fabric_executable_release(h->executable);
  h->executable = NULL;
  assert_ok(hrx_fabric_executable_load(h->device, code, length,
                                       &h->executable));
  const hrx_fabric_kernel_t* kernel =
      hrx_fabric_executable_kernel_at(h->executable, 0);
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  return info.native ? NULL : strdup(info.native_note);
}

static void expect_note(harness_t* h, const uint8_t* code, size_t length,
                        const char* text) {
  char* note = load_note(h, code, length);
  if (!note || !strstr(note, text)) {
    fail_msg("expected a note with \"%s\", got \"%s\"", text,
             note ? note : "(native)");
  }
  free(note);
}

/* ELF section |type| of the object at |elf|: offset and size. */
static bool elf_section(const uint8_t* elf, uint32_t type, size_t* out_offset,
                        size_t* out_size, uint32_t* out_link) {
  const uint8_t* at = elf + 40;
  uint64_t shoff = hrx_get_le(&at, 8);
  at = elf + 60;
  uint64_t shnum = hrx_get_le(&at, 2);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint8_t* s = elf + shoff + i * 64;
    at = s + 4;
    if (hrx_get_le(&at, 4) != type) continue;
    at = s + 24;
    *out_offset = hrx_get_le(&at, 8);
    *out_size = hrx_get_le(&at, 8);
    at = s + 40;
    if (out_link) *out_link = (uint32_t)hrx_get_le(&at, 4);
    return true;
  }
  return false;
}

static const char* const tanh_kernel =
    "kernel.def export(\"tanh\") @tanh() {\n"
    "  %one = index.constant 1 : index\n"
    "  %t = index.constant 64 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%t, %one, %one) : index\n"
    "} launch(%out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %id = kernel.workitem.id<x> : index\n"
    "  %v = buffer.view %out[%o] : buffer -> view<64xf32>\n"
    "  %x = view.load %v[%id] : view<64xf32> -> f32\n"
    "  %y = scalar.tanhf %x : f32\n"
    "  view.store %y, %v[%id] : f32, view<64xf32>\n"
    "  kernel.return\n"
    "}\n";

static void test_malformed_native_sections(void** state) {
  harness_t* h = *state;
  if (!have_native) skip();
  object_t o;
  compile_object(tanh_kernel, &o);
  uint8_t* copy = malloc(o.length);
  /* Untouched, it runs natively. */
  char* note = load_note(h, o.code, o.length);
  if (note) fail_msg("not native: %s", note);
  /* A truncated ELF inside a well-framed section: the interpreter runs. */
  size_t cut = 200;
  size_t shorter = o.length - (o.elf_length - cut);
  memcpy(copy, o.code, o.elf + cut);
  memcpy(copy + o.elf + cut, o.code + o.elf + o.elf_length,
         o.length - o.elf - o.elf_length);
  uint8_t* word = copy + o.elf - 4;
  hrx_put_le(&word, cut, 4);
  reseal(copy, shorter);
  expect_note(h, copy, shorter, "native object");
  /* An unknown relocation type. */
  size_t rela = 0, rela_size = 0;
  assert_true(elf_section(o.code + o.elf, 4, &rela, &rela_size, NULL));
  memcpy(copy, o.code, o.length);
  copy[o.elf + rela + 8] = 99;
  reseal(copy, o.length);
  expect_note(h, copy, o.length, "unsupported relocation type 99");
  /* A symbol outside the allow-list: tanhf renamed tanhg. */
  size_t symtab = 0, symtab_size = 0, strtab = 0, strtab_size = 0;
  uint32_t link = 0;
  assert_true(elf_section(o.code + o.elf, 2, &symtab, &symtab_size, &link));
  const uint8_t* shdr = o.code + o.elf;
  const uint8_t* at = shdr + 40;
  uint64_t shoff = hrx_get_le(&at, 8);
  at = shdr + shoff + link * 64 + 24;
  strtab = hrx_get_le(&at, 8);
  strtab_size = hrx_get_le(&at, 8);
  memcpy(copy, o.code, o.length);
  uint8_t* names = copy + o.elf + strtab;
  bool renamed = false;
  for (size_t i = 0; i + 6 <= strtab_size; ++i) {
    if (!memcmp(names + i, "tanhf", 6)) {
      names[i + 4] = 'g';
      renamed = true;
    }
  }
  assert_true(renamed);
  reseal(copy, o.length);
  expect_note(h, copy, o.length, "unknown symbol 'tanhg'");
  /* Features this CPU lacks, or that cannot be checked. */
  memcpy(copy, o.code, o.length);
  at = copy + o.features;
  size_t features_length = hrx_get_le(&at, 4);
  assert_true(features_length > 12);
  memcpy(copy + o.features + 4, "+bogusfeat,", 11);
  reseal(copy, o.length);
  expect_note(h, copy, o.length, "+bogusfeat");
  /* Framing errors refuse the code object. */
  memcpy(copy, o.code, o.length);
  word = copy + o.kernel_count;
  hrx_put_le(&word, 2, 4);
  reseal(copy, o.length);
  hrx_fabric_executable_t* exe = NULL;
  assert_status_code(hrx_fabric_executable_load(h->device, copy, o.length,
                                                &exe),
                     HRX_STATUS_INVALID_ARGUMENT);
  memcpy(copy, o.code, o.length);
  word = copy + o.elf - 4;
  hrx_put_le(&word, o.elf_length + 1, 4);
  reseal(copy, o.length);
  hrx_status_t status =
      hrx_fabric_executable_load(h->device, copy, o.length, &exe);
  assert_non_null(status);
  hrx_status_free(status);
  /* And the interpreter is always there. */
  setenv("HRX_HOST_NATIVE", "0", 1);
  expect_note(h, o.code, o.length, "HRX_HOST_NATIVE=0");
  native_default();
  free(copy);
  free(o.code);
}

/* Every kernel of the malformed-section test, byte-mutated and resealed,
 * loads or fails cleanly (the loader and ASan stay quiet). */
static void test_mutated_objects_fail_cleanly(void** state) {
  harness_t* h = *state;
  if (!have_native) skip();
  object_t o;
  compile_object(tanh_kernel, &o);
  uint8_t* copy = malloc(o.length);
  size_t loaded = 0, refused = 0;
  for (size_t at = o.elf; at < o.elf + o.elf_length; at += 3) {
    memcpy(copy, o.code, o.length);
    copy[at] ^= (uint8_t)(0x55 + at);
    reseal(copy, o.length);
    hrx_fabric_executable_t* exe = NULL;
    hrx_status_t status =
        hrx_fabric_executable_load(h->device, copy, o.length, &exe);
    if (status == HRX_OK) {
      ++loaded;
      hrx_fabric_executable_release(exe);
    } else {
      ++refused;
      hrx_status_free(status);
    }
  }
  assert_int_equal(refused, 0); /* the frame is intact: notes, not errors */
  assert_true(loaded > 0);
  free(copy);
  free(o.code);
}

int main(void) {
  const char* forced = getenv("HRX_HOST_NATIVE");
  forced_off = forced && strcmp(forced, "0") == 0;
  if (!forced_off) {
    /* Probe: does this build and machine make native code? */
    object_t o;
    memset(&o, 0, sizeof(o));
    hrx_loom_module_t* module = NULL;
    hrx_loom_profile_t profile = hrx_loom_profile_host();
    if (hrx_loom_module_parse(tanh_kernel, strlen(tanh_kernel), NULL, NULL,
                              hrx_allocator_system(), &module) == HRX_OK &&
        hrx_loom_compile_host(module, NULL, &profile, NULL, NULL,
                              hrx_allocator_system(), &o.code,
                              &o.length) == HRX_OK) {
      for (size_t at = 12; at + 4 <= o.length; ++at) {
        if (!memcmp(o.code + at, HRX_HOST_NATIVE_MAGIC, 4)) have_native = true;
      }
    }
    hrx_loom_module_destroy(module);
    free(o.code);
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_saxpy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gather, setup, teardown),
      cmocka_unit_test_setup_teardown(test_histogram, setup, teardown),
      cmocka_unit_test_setup_teardown(test_affine_sampler, setup, teardown),
      cmocka_unit_test_setup_teardown(test_row_dot, setup, teardown),
      cmocka_unit_test_setup_teardown(test_float_functions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_func_forms_and_strides, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_linear_bf16, setup, teardown),
      cmocka_unit_test_setup_teardown(test_model_kernels, setup, teardown),
      cmocka_unit_test_setup_teardown(test_corpus_is_native_or_says_why,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_generated_kernels, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_exact_semantics, setup, teardown),
      cmocka_unit_test_setup_teardown(test_faults_match, setup, teardown),
      cmocka_unit_test_setup_teardown(test_subgroup_operations, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_phases_around_control_flow, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_shared_divisors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cancel_stops_native_loops, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_barrier_kernels, setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_declined_kernel_runs_on_the_interpreter, setup, teardown),
      cmocka_unit_test_setup_teardown(test_malformed_native_sections, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_mutated_objects_fail_cleanly,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
