/* The 8-bit float storage types f8E4M3 and f8E5M2: they print back as
 * written, tests/kernels/check/f8_convert.loom converts every encoding and
 * the edge values of f32, f16 and bf16 on the host device, interpreted and
 * as native code, bit for bit as hrx/core/f8.h does (gfx1151 is compared
 * with the host by tests/fabric/test_gfx11_diff.c), and computing on f8,
 * f64 -> f8 and f8 kernel arguments are diagnosed at their op. */
#include <stdlib.h>
#include <string.h>

#include "hrx/core/f8.h"
#include "hrx/core/half.h"
#include "loom_test_host.h"
#include "loom_test_util.h"

#define FILE_NAME "check/f8_convert.loom"
/* Every code, widened; and the narrowing inputs (a multiple of 4). */
#define CODES 256
#define VALUES 1024

#define HEAD                                                               \
  "kernel.def @k(%n: index) {\n"                                           \
  "  %one = index.constant 1 : index\n"                                    \
  "  kernel.launch.config workgroups(%one, %one, %one) "                   \
  "workgroup_size(%one, %one, %one) : index\n"                             \
  "} launch(%n: index, %b: buffer) {\n"                                    \
  "  %o = index.constant 0 : offset\n"                                     \
  "  %z = index.constant 0 : index\n"                                      \
  "  %v = buffer.view %b[%o] : buffer -> view<[%n]xf8E4M3>\n"              \
  "  %w = buffer.view %b[%o] : buffer -> view<[%n]xf8E5M2>\n"              \
  "  %x = view.load %v[%z] : view<[%n]xf8E4M3> -> f8E4M3\n"                \
  "  %y = view.load %w[%z] : view<[%n]xf8E5M2> -> f8E5M2\n"
#define HEAD_LINES 10
#define TAIL "  kernel.return\n}\n"

static void test_f8_types_print_back(void** state) {
  (void)state;
  static const char* const forms[] = {
      "%r = scalar.extf %x : f8E4M3 to f32",
      "%r = scalar.extf %y : f8E5M2 to bf16",
      "%f = scalar.extf %x : f8E4M3 to f16\n"
      "  %r = scalar.fptrunc %f : f16 to f8E5M2",
      "%q = vector.load %v[%z] : view<[%n]xf8E4M3> -> vector<4xf8E4M3>\n"
      "  %r = vector.extf %q : vector<4xf8E4M3> to vector<4xf32>",
      "%r = vector.splat %y : vector<8xf8E5M2>",
      "%r = scalar.bitcast %x : f8E4M3 to i8",
  };
  for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); ++i) {
    char* text = test_strdup_printf("%s  %s\n%s", HEAD, forms[i], TAIL);
    loom_test_expect_round_trip(text);
    const char* first = strchr(forms[i], '\n');
    char* line = test_strdup_printf(
        "%.*s", (int)(first ? (size_t)(first - forms[i]) : strlen(forms[i])),
        forms[i]);
    loom_test_expect_printed(text, line);
    free(line);
    free(text);
  }
  size_t length = 0;
  free(loom_test_read_test_kernel(FILE_NAME, &length)); /* round-trips */
}

/* Computing on f8, f8 <-> f64, f8 -> f8 and f8 launch arguments. */
static void test_f8_misuse_diagnosed(void** state) {
  (void)state;
  static const struct {
    const char* body;
    hrx_loom_diag_code_t code;
    uint32_t column;
  } cases[] = {
      {"  %r = scalar.addf %x, %x : f8E4M3\n", HRX_LOOM_DIAG_TYPE_NOT_ALLOWED,
       3},
      {"  %r = scalar.cmpf olt, %y, %y : f8E5M2\n",
       HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 3},
      {"  %q = vector.splat %x : vector<4xf8E4M3>\n"
       "  %r = vector.mulf %q, %q : vector<4xf8E4M3>\n",
       HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 3},
      {"  %d = scalar.constant 1.0 : f64\n"
       "  %r = scalar.fptrunc %d : f64 to f8E4M3\n",
       HRX_LOOM_DIAG_BAD_CAST, 3},
      {"  %r = scalar.extf %x : f8E4M3 to f8E5M2\n",
       HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 3},
      {"  %r = scalar.extf %y : f8E5M2 to f64\n", HRX_LOOM_DIAG_BAD_CAST, 3},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    char* text = test_strdup_printf("%s%s%s", HEAD, cases[i].body, TAIL);
    hrx_loom_diagnostics_t* d = loom_test_parse_fail(text);
    uint32_t lines = 0;
    for (const char* c = cases[i].body; *c; ++c) lines += *c == '\n';
    loom_test_expect_diag(d, cases[i].code, HEAD_LINES + lines,
                          cases[i].column);
    hrx_loom_diagnostics_destroy(d);
    free(text);
  }
  /* The diagnostic says why. */
  char* text = test_strdup_printf(
      "%s  %%r = scalar.addf %%x, %%x : f8E4M3\n%s", HEAD, TAIL);
  hrx_loom_diagnostics_t* d = loom_test_parse_fail(text);
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_loom_diagnostics_format(d, &b));
  if (!strstr(hrx_string_builder_cstr(&b), "are storage types: only loads")) {
    fail_msg("%s", hrx_string_builder_cstr(&b));
  }
  hrx_string_builder_deinit(&b);
  hrx_loom_diagnostics_destroy(d);
  free(text);
  /* No f8 in the kernel-argument ABI. */
  d = loom_test_parse_fail(
      "kernel.def @k(%n: index) {\n"
      "  %one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%one, %one, %one) "
      "workgroup_size(%one, %one, %one) : index\n"
      "} launch(%s: f8E4M3) {\n"
      "  kernel.return\n"
      "}\n");
  loom_test_expect_diag(d, HRX_LOOM_DIAG_TYPE_NOT_ALLOWED, 4, 0);
  hrx_loom_diagnostics_destroy(d);
}

static uint32_t f8_to_f32(bool e4m3, uint8_t code) {
  return e4m3 ? hrx_f8e4m3_to_f32_bits(code) : hrx_f8e5m2_to_f32_bits(code);
}

static uint8_t f32_to_f8(bool e4m3, uint32_t bits) {
  return e4m3 ? hrx_f32_bits_to_f8e4m3(bits) : hrx_f32_bits_to_f8e5m2(bits);
}

static void check_u8(const char* what, size_t i, uint32_t input, uint8_t got,
                     uint8_t want) {
  if (got != want) {
    fail_msg("%s[%zu] (input 0x%08x): got 0x%02x want 0x%02x", what, i,
             input, got, want);
  }
}

static void check_u32(const char* what, size_t i, uint32_t got,
                      uint32_t want) {
  if (got != want) {
    fail_msg("%s[%zu]: got 0x%08x want 0x%08x", what, i, got, want);
  }
}

static void run_widen(harness_t* h) {
  hrx_fabric_memory_t m[9];
  static const size_t bytes[9] = {CODES,     CODES * 4, CODES * 4,
                                  CODES * 2, CODES * 2, CODES * 2,
                                  CODES * 2, CODES * 4, CODES};
  harness_arg_t args[10] = {ARG_U64(CODES)};
  for (size_t b = 0; b < 9; ++b) {
    m[b] = harness_buffer(h, bytes[b]);
    args[b + 1] = ARG_BUF(m[b]);
  }
  uint8_t* codes = m[0].host_pointer;
  for (size_t i = 0; i < CODES; ++i) codes[i] = (uint8_t)i;
  uint64_t workload = CODES;
  assert_ok(harness_run(h, "f8_widen", &workload, 1, args, 10));
  for (size_t i = 0; i < CODES; ++i) {
    for (int e4m3 = 1; e4m3 >= 0; --e4m3) {
      uint32_t wide = f8_to_f32(e4m3, (uint8_t)i);
      const uint32_t* w = m[e4m3 ? 1 : 2].host_pointer;
      const uint16_t* half = m[e4m3 ? 3 : 4].host_pointer;
      const uint16_t* brain = m[e4m3 ? 5 : 6].host_pointer;
      check_u32(e4m3 ? "e4m3 -> f32" : "e5m2 -> f32", i, w[i], wide);
      check_u32(e4m3 ? "e4m3 -> f16" : "e5m2 -> f16", i, half[i],
                hrx_f32_bits_to_f16(wide));
      check_u32(e4m3 ? "e4m3 -> bf16" : "e5m2 -> bf16", i, brain[i],
                hrx_f32_bits_to_bf16(wide));
    }
    const uint32_t* vector = m[7].host_pointer;
    check_u32("vector e5m2 -> f32", i, vector[i],
              hrx_f8e5m2_to_f32_bits((uint8_t)i));
  }
  const uint8_t* moves = m[8].host_pointer;
  for (size_t q = 0; q < CODES / 4; ++q) {
    const uint8_t* c = codes + 4 * q;
    uint8_t want[4] = {c[3], c[1], c[1], (q & 1) ? c[0] : c[2]};
    for (size_t l = 0; l < 4; ++l) {
      check_u8("moves", 4 * q + l, c[l], moves[4 * q + l], want[l]);
    }
  }
  for (size_t b = 0; b < 9; ++b) hrx_fabric_memory_free(h->device, &m[b]);
}

/* Narrowing inputs: every code's value, the midpoints between neighbours
 * (ties) and their f32 neighbours, in both formats, then the overflow
 * edges, specials and subnormals of f32. */
static size_t narrow_inputs(uint32_t* out) {
  size_t n = 0;
  for (int e4m3 = 1; e4m3 >= 0; --e4m3) {
    uint8_t last = e4m3 ? 0x7e : 0x7b;
    for (uint32_t c = 0; c < last; c += 2) {
      float a = loom_test_f32(f8_to_f32(e4m3, (uint8_t)c));
      float b = loom_test_f32(f8_to_f32(e4m3, (uint8_t)(c + 1)));
      uint32_t mid = loom_test_bits((a + b) / 2.0f);
      out[n++] = mid;
      out[n++] = (mid + 1) | (c & 2 ? 0x80000000u : 0);
      out[n++] = mid - 1;
      out[n++] = loom_test_bits(b) | 0x80000000u;
    }
  }
  static const float edges[] = {448.0f, 464.0f, 464.00003f, 480.0f, 1e6f,
                                57344.0f, 61439.996f, 61440.0f, 65536.0f,
                                0x1p-9f, 0x1p-10f, 0x1.0000002p-10f,
                                0x1p-16f, 0x1p-17f, 0x1.8p-16f, 1e-45f,
                                1.17549435e-38f, 3.4028235e38f};
  for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); ++i) {
    out[n++] = loom_test_bits(edges[i]);
    out[n++] = loom_test_bits(-edges[i]);
  }
  static const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7f800000u,
                                      0xff800000u, 0x7fc00000u, 0xffc00000u,
                                      0x7f800001u, 0xffbfffffu};
  for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); ++i) {
    out[n++] = specials[i];
  }
  uint32_t state = 0x2545f491u;
  while (n < VALUES) {
    state = state * 1664525u + 1013904223u;
    out[n++] = (state & 0x807fffffu) | ((100u + (state >> 26) % 50u) << 23);
  }
  return n;
}

static void run_narrow(harness_t* h) {
  hrx_fabric_memory_t m[11];
  static const size_t bytes[11] = {VALUES * 4, VALUES * 2, VALUES * 2,
                                   VALUES,     VALUES,     VALUES,
                                   VALUES,     VALUES,     VALUES,
                                   VALUES,     VALUES};
  harness_arg_t args[12] = {ARG_U64(VALUES)};
  for (size_t b = 0; b < 11; ++b) {
    m[b] = harness_buffer(h, bytes[b]);
    args[b + 1] = ARG_BUF(m[b]);
  }
  uint32_t* x = m[0].host_pointer;
  uint16_t* hx = m[1].host_pointer;
  uint16_t* bx = m[2].host_pointer;
  assert_int_equal(narrow_inputs(x), VALUES);
  for (size_t i = 0; i < VALUES; ++i) {
    hx[i] = hrx_f32_bits_to_f16(x[i]);
    bx[i] = (uint16_t)(x[i] >> 16); /* every bf16 bit pattern kind */
  }
  uint64_t workload = VALUES;
  assert_ok(harness_run(h, "f8_narrow", &workload, 1, args, 12));
  for (size_t i = 0; i < VALUES; ++i) {
    for (int e4m3 = 1; e4m3 >= 0; --e4m3) {
      const uint8_t* n = m[e4m3 ? 3 : 4].host_pointer;
      const uint8_t* hn = m[e4m3 ? 5 : 6].host_pointer;
      const uint8_t* bn = m[e4m3 ? 7 : 8].host_pointer;
      const uint8_t* vn = m[e4m3 ? 9 : 10].host_pointer;
      uint8_t want = f32_to_f8(e4m3, x[i]);
      check_u8(e4m3 ? "f32 -> e4m3" : "f32 -> e5m2", i, x[i], n[i], want);
      check_u8(e4m3 ? "vector f32 -> e4m3" : "vector f32 -> e5m2", i, x[i],
               vn[i], want);
      uint32_t h32 = hrx_f16_to_f32_bits(hx[i]);
      check_u8(e4m3 ? "f16 -> e4m3" : "f16 -> e5m2", i, h32, hn[i],
               f32_to_f8(e4m3, h32));
      uint32_t b32 = hrx_bf16_to_f32_bits(bx[i]);
      check_u8(e4m3 ? "bf16 -> e4m3" : "bf16 -> e5m2", i, b32, bn[i],
               f32_to_f8(e4m3, b32));
    }
  }
  for (size_t b = 0; b < 11; ++b) hrx_fabric_memory_free(h->device, &m[b]);
}

static void run_paths(bool native) {
  harness_t h;
  harness_open(&h);
  loom_test_load_path(&h, FILE_NAME,
                      (const char* const[]){"f8_widen", "f8_narrow", NULL},
                      native);
  run_widen(&h);
  run_narrow(&h);
  harness_close(&h);
}

static void test_interpreter_matches_reference(void** state) {
  (void)state;
  run_paths(false);
}

static void test_native_matches_reference(void** state) {
  (void)state;
  run_paths(true);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_f8_types_print_back),
      cmocka_unit_test(test_f8_misuse_diagnosed),
      cmocka_unit_test(test_interpreter_matches_reference),
      cmocka_unit_test(test_native_matches_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
