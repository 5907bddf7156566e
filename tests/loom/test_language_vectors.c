/* Vectors of more than one axis (vector<4x8xf16>), of index lanes
 * (vector<8xindex>) and of run-time length (vector<[%n]xf32>), and the
 * vector ops that came with them (clampf, roundf, bitpack,
 * bitfield.insert, divsi/divui/remsi/remui): the forms print back as
 * written; the kernels of tests/kernels/vector_shapes.loom give what C
 * computes on the host device, interpreted and as native code
 * (tests/fabric/test_gfx11_diff.c runs them on the modelled gfx1151);
 * malformed shapes are diagnosed at their op, and the backends refuse
 * dynamic vectors they cannot run by name. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/core/half.h"
#include "loom_test_host.h"
#include "loom_test_util.h"

#define FILE_NAME "vector_shapes.loom"

#define HEAD                                                               \
  "kernel.def @k(%n: index) {\n"                                           \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%n: index, %b: buffer) {\n"                                     \
  "  %o = index.constant 0 : offset\n"                                     \
  "  %z = index.constant 0 : index\n"                                      \
  "  %v2 = buffer.view %b[%o] : buffer -> view<[%n]x8xf16>\n"              \
  "  %h = scalar.constant 1.0 : f16\n"                                     \
  "  %t = vector.splat %h : vector<4x8xf16>\n"                             \
  "  %i = vector.splat %n : vector<4xindex>\n"                             \
  "  %d = vector.splat %h : vector<[%n]xf16>\n"                            \
  "  %w = vector.constant 5 : vector<8xi32>\n"                             \
  "  %q = vector.constant 3 : vector<8xi8>\n"
#define HEAD_LINES 13
#define TAIL "  kernel.return\n}\n"

static void test_forms_print_back(void** state) {
  (void)state;
  static const char* const forms[] = {
      "%r = vector.load %v2[%z, %z] : view<[%n]x8xf16> -> vector<4x8xf16>",
      "vector.store %t, %v2[%z, %z] : vector<4x8xf16>, view<[%n]x8xf16>",
      "%r = vector.extract %t[1] : vector<4x8xf16> -> vector<8xf16>",
      "%r = vector.extract %t[%z, 7] : vector<4x8xf16> -> f16",
      "%r = vector.insert %h into %t[3, %z] : f16, vector<4x8xf16>",
      "%r = vector.addf %t, %t : vector<4x8xf16>",
      "%r = vector.clampf<number, nnan|nsz> %t, %t, %t : vector<4x8xf16>",
      "%r = vector.reduce<maxnumf> %t, %h : vector<4x8xf16>, f16",
      "%r = vector.iota %z step %n : vector<16xindex>",
      "%r = vector.extract %i[2] : vector<4xindex> -> index",
      "%r = vector.extract %d[%z] : vector<[%n]xf16> -> f16",
      "%r = vector.mulf %d, %d : vector<[%n]xf16>",
      "%r = vector.load %v2[%z, %z] : view<[%n]x8xf16> -> vector<[%n]xf16>",
      "%r = vector.bitpack<4> %q : vector<8xi8> -> vector<4xi8>",
      "%r = vector.bitfield.insert %q into %w {offset = 3, width = 4} : "
      "vector<8xi8>, vector<8xi32>",
      "%r = vector.divsi %w, %w : vector<8xi32>",
      "%r = vector.roundf<afn> %t : vector<4x8xf16>",
      "%r = vector.remui %w, %w : vector<8xi32>",
  };
  loom_test_expect_forms(HEAD, TAIL, forms, sizeof(forms) / sizeof(forms[0]));
  size_t length = 0;
  free(loom_test_read_test_kernel(FILE_NAME, &length)); /* round-trips */
}

/* Malformed ops after HEAD: the code and column (0: any) of the
 * diagnostic on the last line, and words of its message. */
static void expect_rejected(const char* op, hrx_loom_diag_code_t code,
                            uint32_t column, const char* words) {
  loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL, op, code, column, words);
}

static void test_malformed_vectors_rejected(void** state) {
  (void)state;
  expect_rejected("  %r = vector.splat %h : vector<4x0xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 26,
                  "vector extents must not be zero");
  expect_rejected("  %r = vector.splat %h : vector<65536x2xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 26, "at most 65536 lanes");
  expect_rejected("  %r = vector.splat %h : vector<[%h]xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 26, "must be an index value");
  expect_rejected("  %r = vector.splat %o : vector<4xoffset>",
                  HRX_LOOM_DIAG_UNKNOWN_TYPE, 0,
                  "element type must be an integer or float type");
  expect_rejected("  %r = vector.extract %t[1, 2, 3] : vector<4x8xf16> -> f16",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "3 indices for a rank-2 vector");
  expect_rejected("  %r = vector.extract %t[1] : vector<4x8xf16> -> f16",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "1 indices into vector<4x8xf16> leave its trailing axes, "
                  "not f16");
  expect_rejected("  %r = vector.insert %t into %t[0] : vector<4x8xf16>, "
                  "vector<4x8xf16>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3, "leave its trailing axes");
  expect_rejected("  %r = vector.extract %t[4, 0] : vector<4x8xf16> -> f16",
                  HRX_LOOM_DIAG_CONSTANT_RANGE, 3, "static index 4");
  expect_rejected("  %r = vector.load %v2[%z, %z] : view<[%n]x8xf16> -> "
                  "vector<2x4x8xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "a rank-3 vector does not fit a rank-2 view");
  expect_rejected("  %r = vector.extf %t : vector<4x8xf16> to vector<32xf32>",
                  HRX_LOOM_DIAG_BAD_CAST, 3,
                  "cannot change the vector shape");
  expect_rejected("  %m = vector.cmpf olt, %t, %t : vector<4x8xf16> -> "
                  "vector<32xi1>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 3,
                  "needs an i1 mask of the shape of vector<4x8xf16>");
  expect_rejected("  %r = vector.from_elements %h : vector<[%n]xf16>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "vector.from_elements needs vectors of static shape");
  expect_rejected("  %x = vector.splat %z : vector<[%n]xi8>\n"
                  "  %r = vector.bitpack<4> %x : vector<[%n]xi8> -> "
                  "vector<4xi8>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "vector.bitpack needs vectors of static shape");
  expect_rejected("  %r = vector.bitpack<4> %q : vector<8xi8> -> "
                  "vector<8xi8>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3,
                  "the result needs exactly that many bits, not 8 x i8");
  expect_rejected("  %r = vector.bitpack<9> %q : vector<8xi8> -> "
                  "vector<9xi8>",
                  HRX_LOOM_DIAG_BAD_SHAPE, 3, "packs 9-bit fields");
  expect_rejected("  %r = vector.bitfield.insert %q into %w "
                  "{offset = 30, width = 4} : vector<8xi8>, vector<8xi32>",
                  HRX_LOOM_DIAG_BAD_ATTRIBUTE, 3, "bits [30, 34)");
  expect_rejected("  %r = vector.bitfield.insert %q into %w "
                  "{offset = 0, width = 9} : vector<8xi8>, vector<8xi32>",
                  HRX_LOOM_DIAG_BAD_ATTRIBUTE, 3, "bits [0, 9)");
  expect_rejected("  %r = vector.bitfield.insert %w into %q "
                  "{offset = 0, width = 2} : vector<8xi32>, vector<4xi8>",
                  HRX_LOOM_DIAG_TYPE_MISMATCH, 0, "operand 1");
  expect_rejected("  %r = vector.clampf<ordered> %w, %w, %w : vector<8xi32>",
                  HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 3, "vector<8xi32>");
  expect_rejected("  %r = vector.clampf %t, %t, %t : vector<4x8xf16>",
                  HRX_LOOM_DIAG_EXPECTED_TOKEN, 0, "'<' with a keyword");
}

/* Dynamic vectors pass the front end; without a bound on the extent the
 * backends refuse them by name (test_language_dynvec.c runs bounded
 * ones). */
static const char kDynamic[] =
    "kernel.def export(\"dyn\") @dyn(%n: index) {\n"
    "  %one = index.constant 1 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%one, %one, %one) : index\n"
    "} launch(%n: index, %b: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %z = index.constant 0 : index\n"
    "  %v = buffer.view %b[%o] : buffer -> view<[%n]xf32>\n"
    "  %x = vector.load %v[%z] : view<[%n]xf32> -> vector<[%n]xf32>\n"
    "  %y = vector.addf %x, %x : vector<[%n]xf32>\n"
    "  vector.store %y, %v[%z] : vector<[%n]xf32>, view<[%n]xf32>\n"
    "  kernel.return\n"
    "}\n";

static void test_unbounded_dynamic_vectors_refused(void** state) {
  (void)state;
  loom_test_expect_round_trip(kDynamic);
  harness_t h;
  harness_open(&h);
  char* report = harness_compile_error(&h, "dyn.loom", kDynamic);
  if (!strstr(report, "dyn.loom:8:3:") ||
      !strstr(report, "vector.load: vector<[%n]x...> cannot run: its "
                      "extent needs a bound")) {
    fail_msg("%s", report);
  }
  free(report);
  harness_close(&h);
#if HRX_TEST_HAVE_LLVM
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.disable_cache = true;
  hrx_loom_compiler_t* compiler = NULL;
  assert_ok(hrx_loom_compiler_create("gfx1151", &options,
                                     hrx_allocator_system(), &compiler));
  hrx_loom_diagnostics_t* d = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(), &d));
  hrx_loom_compile_request_t request = {.source = kDynamic,
                                        .length = strlen(kDynamic),
                                        .source_name = "dyn.loom"};
  hrx_loom_artifact_t* artifact = NULL;
  hrx_status_t status = hrx_loom_compile(compiler, &request, d, &artifact);
  assert_int_not_equal(hrx_status_code(status), HRX_STATUS_OK);
  hrx_status_free(status);
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_loom_diagnostics_format(d, &b));
  if (!strstr(hrx_string_builder_cstr(&b),
              "vector.load: vector<[%n]x...> cannot run: its extent "
              "needs a bound")) {
    fail_msg("%s", hrx_string_builder_cstr(&b));
  }
  hrx_string_builder_deinit(&b);
  hrx_loom_diagnostics_destroy(d);
  hrx_loom_compiler_destroy(compiler);
#endif
}

/*===------------------------------------------------------------------===*/
/* The kernels against C                                                    */
/*===------------------------------------------------------------------===*/

enum { GROUPS = 3, ITEMS = 32, TILES = GROUPS * ITEMS };

static float f16_value(uint16_t h) {
  uint32_t bits = hrx_f16_to_f32_bits(h);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static uint16_t f16_of(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return hrx_f32_bits_to_f16(bits);
}

static const char* const kKernels[] = {"shapes", "index_lanes", "bits", NULL};

/* shapes: see vector_shapes.loom. */
static void run_shapes(harness_t* h, uint32_t seed) {
  enum { LANES = 32 };
  hrx_fabric_memory_t src = harness_buffer(h, TILES * LANES * 2);
  hrx_fabric_memory_t dst = harness_buffer(h, TILES * LANES * 2);
  hrx_fabric_memory_t sums = harness_buffer(h, TILES * 4);
  hrx_fabric_memory_t picks = harness_buffer(h, TILES * 8 * 2);
  uint16_t* x = src.host_pointer;
  for (size_t i = 0; i < TILES * LANES; ++i) {
    x[i] = f16_of((float)loom_test_next(&seed) * 0x1p-21f - 4.0f);
  }
  const float bound = 2.5f;
  uint64_t workload[] = {GROUPS};
  harness_arg_t args[] = {ARG_U64(GROUPS), ARG_U64(f16_of(bound)),
                          ARG_BUF(src),    ARG_BUF(dst),
                          ARG_BUF(sums),   ARG_BUF(picks)};
  assert_ok(harness_run(h, "shapes", workload, 1, args, 6));
  const uint16_t* out = dst.host_pointer;
  const float* sum = sums.host_pointer;
  const uint16_t* pick = picks.host_pointer;
  for (size_t g = 0; g < TILES; ++g) {
    const uint16_t* t = &x[g * LANES];
    uint16_t swapped[LANES];
    memcpy(swapped, t, sizeof(swapped));
    memcpy(&swapped[0], &t[24], 16);
    memcpy(&swapped[24], &t[0], 16);
    uint16_t a = swapped[1 * 8 + 2];
    swapped[1 * 8 + 2] = swapped[2 * 8 + 1];
    swapped[2 * 8 + 1] = a;
    float total = 0.0f;
    for (size_t k = 0; k < LANES; ++k) {
      float v = f16_value(f16_of(f16_value(swapped[k]) + 1.0f));
      float raised = v < -bound ? -bound : v;
      uint16_t want = f16_of(raised > bound ? bound : raised);
      if (out[g * LANES + k] != want) {
        fail_msg("shapes tile %zu lane %zu: %04x, expected %04x", g, k,
                 out[g * LANES + k], want);
      }
      total += f16_value(t[k]);
    }
    if (sum[g] != total) {
      fail_msg("shapes tile %zu: sum %a, expected %a", g, sum[g], total);
    }
    for (size_t k = 0; k < 8; ++k) {
      float product =
          f16_value(f16_of(f16_value(t[16 + k]) * f16_value(t[7])));
      uint16_t want = f16_of(roundf(product));
      if (pick[g * 8 + k] != want) {
        fail_msg("shapes tile %zu pick %zu: %04x, expected %04x", g, k,
                 pick[g * 8 + k], want);
      }
    }
  }
  hrx_fabric_memory_free(h->device, &src);
  hrx_fabric_memory_free(h->device, &dst);
  hrx_fabric_memory_free(h->device, &sums);
  hrx_fabric_memory_free(h->device, &picks);
}

static void run_index_lanes(harness_t* h) {
  hrx_fabric_memory_t out = harness_buffer(h, TILES * 3 * 4);
  uint64_t workload[] = {GROUPS};
  harness_arg_t args[] = {ARG_U64(GROUPS), ARG_BUF(out)};
  assert_ok(harness_run(h, "index_lanes", workload, 1, args, 2));
  const int32_t* r = out.host_pointer;
  for (int32_t g = 0; g < TILES; ++g) {
    assert_int_equal(r[g * 3 + 0], 8 * g + 15);
    assert_int_equal(r[g * 3 + 1], g + 8 * g + 21);
    assert_int_equal(r[g * 3 + 2], 7 + g);
  }
  hrx_fabric_memory_free(h->device, &out);
}

/* The low |width| bits of bytes |b| packed little-endian into |out|. */
static void pack_bits(const uint8_t* b, size_t count, unsigned width,
                      uint8_t* out, size_t out_bytes) {
  memset(out, 0, out_bytes);
  for (size_t k = 0; k < count; ++k) {
    for (unsigned i = 0; i < width; ++i) {
      size_t bit = k * width + i;
      if ((b[k] >> i) & 1) out[bit / 8] |= (uint8_t)(1u << (bit % 8));
    }
  }
}

static void run_bits(harness_t* h, uint32_t seed) {
  hrx_fabric_memory_t bytes = harness_buffer(h, TILES * 8);
  hrx_fabric_memory_t words = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t nibbles = harness_buffer(h, TILES * 4);
  hrx_fabric_memory_t threes = harness_buffer(h, TILES * 3);
  hrx_fabric_memory_t fields = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t quotients = harness_buffer(h, TILES * 8 * 4);
  hrx_fabric_memory_t remainders = harness_buffer(h, TILES * 8 * 4);
  uint8_t* b = bytes.host_pointer;
  int32_t* w = words.host_pointer;
  for (size_t i = 0; i < TILES * 8; ++i) {
    b[i] = (uint8_t)loom_test_next(&seed);
    w[i] = (int32_t)(loom_test_next(&seed) << 8 ^ loom_test_next(&seed));
  }
  w[5] = INT32_MIN; /* signed division of the extreme */
  uint64_t workload[] = {GROUPS};
  harness_arg_t args[] = {ARG_U64(GROUPS),    ARG_BUF(bytes),
                          ARG_BUF(words),     ARG_BUF(nibbles),
                          ARG_BUF(threes),    ARG_BUF(fields),
                          ARG_BUF(quotients), ARG_BUF(remainders)};
  assert_ok(harness_run(h, "bits", workload, 1, args, 8));
  const uint8_t* n4 = nibbles.host_pointer;
  const uint8_t* n3 = threes.host_pointer;
  const int32_t* f = fields.host_pointer;
  const int32_t* q = quotients.host_pointer;
  const uint32_t* m = remainders.host_pointer;
  for (size_t g = 0; g < TILES; ++g) {
    uint8_t want[4];
    pack_bits(&b[g * 8], 8, 4, want, 4);
    assert_memory_equal(&n4[g * 4], want, 4);
    pack_bits(&b[g * 8], 8, 3, want, 3);
    assert_memory_equal(&n3[g * 3], want, 3);
    for (size_t k = 0; k < 8; ++k) {
      size_t i = g * 8 + k;
      uint32_t base = (uint32_t)w[i];
      int32_t field = (int32_t)((base & ~(0xFu << 3)) | (b[i] & 0xFu) << 3);
      int32_t d = (b[i] & 7) + 1;
      assert_int_equal(f[i], field);
      assert_int_equal(q[i], w[i] / d);
      assert_int_equal(m[i], (uint32_t)w[i] % (uint32_t)d);
    }
  }
  hrx_fabric_memory_free(h->device, &bytes);
  hrx_fabric_memory_free(h->device, &words);
  hrx_fabric_memory_free(h->device, &nibbles);
  hrx_fabric_memory_free(h->device, &threes);
  hrx_fabric_memory_free(h->device, &fields);
  hrx_fabric_memory_free(h->device, &quotients);
  hrx_fabric_memory_free(h->device, &remainders);
}

static void test_kernels_match_c(void** state) {
  (void)state;
  for (int native = 0; native < 2; ++native) {
    harness_t h;
    harness_open(&h);
    loom_test_load_path(&h, FILE_NAME, kKernels, native);
    run_shapes(&h, 7);
    run_shapes(&h, 1234);
    run_index_lanes(&h);
    run_bits(&h, 99);
    run_bits(&h, 4242);
    harness_close(&h);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_forms_print_back),
      cmocka_unit_test(test_malformed_vectors_rejected),
      cmocka_unit_test(test_unbounded_dynamic_vectors_refused),
      cmocka_unit_test(test_kernels_match_c),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
