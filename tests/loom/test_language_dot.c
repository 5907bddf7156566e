/* The packed dot products (vector.dot2f, vector.dot8i4, vector.dot4f8)
 * as upstream Loom writes them: they print back as written, misuse is
 * diagnosed at its op, and tests/kernels/packed_dots.loom runs on the
 * host device, interpreted and as native code, bit for bit as the C
 * references below (tests/fabric/test_gfx11_diff.c compares gfx1151
 * with the host). The float dots are defined as f32 fmas in product
 * order, each rounded once; f16, bf16 and f8 products are exact in f32,
 * so each step is the rounded sum of the exact product and the partial
 * sum. The integer dots wrap in i32. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/core/f8.h"
#include "hrx/core/half.h"
#include "loom_test_host.h"
#include "loom_test_util.h"

#define FILE_NAME "packed_dots.loom"
#define GROUPS 2
#define ITEMS (GROUPS * 32)

#define HEAD                                                              \
  "kernel.def @k(%n: index) {\n"                                          \
  "  %one = index.constant 1 : index\n"                                   \
  "  kernel.launch.config workgroups(%one, %one, %one) "                  \
  "workgroup_size(%one, %one, %one) : index\n"                            \
  "} launch(%n: index) {\n"                                               \
  "  %h = vector.constant 1.0 : vector<8xf16>\n"                          \
  "  %b = vector.constant 1.0 : vector<8xbf16>\n"                         \
  "  %p = vector.constant 7 : vector<4xi32>\n"                            \
  "  %a = vector.constant 0.5 : vector<4xf32>\n"                          \
  "  %i = vector.constant 3 : vector<4xi32>\n"                            \
  "  %w = vector.constant 1.0 : vector<8xf32>\n"
#define HEAD_LINES 10
#define TAIL "  kernel.return\n}\n"

static void test_dots_print_back(void** state) {
  (void)state;
  static const char* const forms[] = {
      "%r = vector.dot2f %h, %h, %a : vector<8xf16>, vector<8xf16>, "
      "vector<4xf32>",
      "%r = vector.dot2f %b, %b, %a : vector<8xbf16>, vector<8xbf16>, "
      "vector<4xf32>",
      "%r = vector.dot8i4<u4s4> %p, %p, %i : vector<4xi32>",
      "%r = vector.dot4f8<bf8fp8> %p, %p, %a : vector<4xi32>, vector<4xf32>",
  };
  loom_test_expect_forms(HEAD, TAIL, forms, sizeof(forms) / sizeof(forms[0]));
  size_t length = 0;
  free(loom_test_read_test_kernel(FILE_NAME, &length)); /* round-trips */
}

static void test_dots_misuse_diagnosed(void** state) {
  (void)state;
  static const struct {
    const char* op;
    hrx_loom_diag_code_t code;
    uint32_t column;
    const char* words;
  } cases[] = {
      {"  %r = vector.dot2f %w, %w, %a : vector<8xf32>, vector<8xf32>, "
       "vector<4xf32>",
       HRX_LOOM_DIAG_TYPE_MISMATCH, 3, "two f16 or bf16 products"},
      {"  %r = vector.dot2f %h, %h, %w : vector<8xf16>, vector<8xf16>, "
       "vector<8xf32>",
       HRX_LOOM_DIAG_TYPE_MISMATCH, 3, "does not match vector<8xf32>"},
      {"  %r = vector.dot2f %h, %b, %a : vector<8xf16>, vector<8xbf16>, "
       "vector<4xf32>",
       HRX_LOOM_DIAG_TYPE_MISMATCH, 49, "two sources of one type"},
      {"  %r = vector.dot8i4<s4s4> %a, %a, %a : vector<4xf32>",
       HRX_LOOM_DIAG_TYPE_MISMATCH, 3, "eight 4-bit products"},
      {"  %r = vector.dot8i4<s8s8> %p, %p, %i : vector<4xi32>",
       HRX_LOOM_DIAG_UNKNOWN_ENUM, 0, "s4s4, u4s4, s4u4, u4u4"},
      {"  %r = vector.dot4f8<fp8fp8> %p, %p, %i : vector<4xi32>, "
       "vector<4xi32>",
       HRX_LOOM_DIAG_TYPE_MISMATCH, 3, "four f8 products"},
      {"  %r = vector.dot4f8<e4m3> %p, %p, %a : vector<4xi32>, vector<4xf32>",
       HRX_LOOM_DIAG_UNKNOWN_ENUM, 0, "fp8bf8, bf8fp8, fp8fp8, bf8bf8"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    loom_test_expect_rejected(HEAD, HEAD_LINES, TAIL, cases[i].op,
                              cases[i].code, cases[i].column, cases[i].words);
  }
}

/* Field |k| of |bits| bits of |lane|, low first, sign- or zero-extended. */
static int32_t field(uint32_t lane, unsigned bits, unsigned k,
                     bool is_unsigned) {
  uint32_t raw = (lane >> (bits * k)) & ((1u << bits) - 1);
  if (is_unsigned || !(raw >> (bits - 1))) return (int32_t)raw;
  return (int32_t)raw - (int32_t)(1u << bits);
}

static float f8(uint32_t lane, unsigned k, bool e5m2) {
  uint8_t code = (uint8_t)(lane >> (8 * k));
  return loom_test_f32(e5m2 ? hrx_f8e5m2_to_f32_bits(code)
                        : hrx_f8e4m3_to_f32_bits(code));
}

static void expect_f32(const char* what, size_t i, float got, float want) {
  uint32_t g, w;
  memcpy(&g, &got, 4);
  memcpy(&w, &want, 4);
  /* Any NaN matches any NaN; every other result bit for bit. */
  if (g != w && !(isnan(got) && isnan(want))) {
    fail_msg("%s[%zu]: got 0x%08x want 0x%08x", what, i, g, w);
  }
}

typedef struct inputs_t {
  uint16_t h[ITEMS * 16], bh[ITEMS * 16];
  uint32_t p[ITEMS * 8], ia[ITEMS * 4];
  float a[ITEMS * 4];
} inputs_t;

/* Noise, with the edges mixed in: f16/bf16 and f8 codes of every kind
 * (NaN, infinity, subnormal), accumulators near the i32 ends and of all
 * float magnitudes, so that every rounding and wrap is exercised. */
static void fill(inputs_t* in) {
  uint32_t state = 0x9e3779b9u;
  for (size_t i = 0; i < ITEMS * 16; ++i) {
    state = state * 1664525u + 1013904223u;
    in->h[i] = (uint16_t)(state >> 16);
    in->bh[i] = (uint16_t)((state >> 16) & 0xbfff); /* mostly finite */
  }
  for (size_t i = 0; i < ITEMS * 8; ++i) {
    state = state * 1664525u + 1013904223u;
    in->p[i] = state ^ (state >> 7);
  }
  for (size_t i = 0; i < ITEMS * 4; ++i) {
    state = state * 1664525u + 1013904223u;
    in->ia[i] = i % 3 == 0 ? 0x7fffffffu - (state & 255) : state;
    in->a[i] = loom_test_f32((state & 0x807fffffu) |
                         ((110u + (state >> 25) % 40u) << 23));
  }
}

static void check(const inputs_t* in, const float* o2, const int32_t* o8,
                  const float* of) {
  for (size_t t = 0; t < ITEMS; ++t) {
    for (size_t r = 0; r < 4; ++r) {
      float acc = in->a[4 * t + r];
      for (int brain = 0; brain < 2; ++brain) {
        const uint16_t* x = (brain ? in->bh : in->h) + 16 * t;
        float sum = acc;
        for (size_t k = 0; k < 2; ++k) {
          uint16_t lx = x[2 * r + k], ly = x[8 + 2 * r + k];
          float fx = loom_test_f32(brain ? hrx_bf16_to_f32_bits(lx)
                                     : hrx_f16_to_f32_bits(lx));
          float fy = loom_test_f32(brain ? hrx_bf16_to_f32_bits(ly)
                                     : hrx_f16_to_f32_bits(ly));
          sum = fmaf(fx, fy, sum);
        }
        expect_f32(brain ? "dot2f bf16" : "dot2f f16", 4 * t + r,
                   o2[8 * t + 4 * brain + r], sum);
      }
      uint32_t lx = in->p[8 * t + r], ly = in->p[8 * t + 4 + r];
      for (unsigned kind = 0; kind < 4; ++kind) {
        uint32_t isum = (uint32_t)(int32_t)in->ia[4 * t + r];
        float fsum = acc;
        bool lhs_e5m2 = kind & 1, rhs_e5m2 = kind == 0 || kind == 3;
        for (unsigned k = 0; k < 8; ++k) {
          isum += (uint32_t)(field(lx, 4, k, kind & 1) *
                             field(ly, 4, k, kind & 2));
          if (k < 4) fsum = fmaf(f8(lx, k, lhs_e5m2), f8(ly, k, rhs_e5m2),
                                 fsum);
        }
        size_t at = 16 * t + 4 * kind + r;
        if ((uint32_t)o8[at] != isum) {
          fail_msg("dot8i4 kind %u [%zu]: got %d want %d", kind, at, o8[at],
                   (int32_t)isum);
        }
        expect_f32("dot4f8", at, of[at], fsum);
      }
    }
  }
}

/* Runs the file with native code on or off (HRX_HOST_NATIVE=0 in the
 * test's environment keeps it off) against the reference. */
static void run(bool native) {
  harness_t h;
  harness_open(&h);
  loom_test_load_path(&h, FILE_NAME,
                      (const char* const[]){"packed_dots", NULL}, native);
  inputs_t* in = calloc(1, sizeof(*in));
  assert_non_null(in);
  fill(in);
  static const size_t bytes[8] = {ITEMS * 32, ITEMS * 32, ITEMS * 32,
                                  ITEMS * 16, ITEMS * 16, ITEMS * 32,
                                  ITEMS * 64, ITEMS * 64};
  const void* sources[5] = {in->h, in->bh, in->p, in->a, in->ia};
  hrx_fabric_memory_t m[8];
  harness_arg_t args[9] = {ARG_U64(GROUPS)};
  for (size_t b = 0; b < 8; ++b) {
    m[b] = harness_buffer(&h, bytes[b]);
    if (b < 5) memcpy(m[b].host_pointer, sources[b], bytes[b]);
    args[b + 1] = ARG_BUF(m[b]);
  }
  uint64_t workload = GROUPS;
  assert_ok(harness_run(&h, "packed_dots", &workload, 1, args, 9));
  check(in, m[5].host_pointer, m[6].host_pointer, m[7].host_pointer);
  for (size_t b = 0; b < 8; ++b) hrx_fabric_memory_free(h.device, &m[b]);
  free(in);
  harness_close(&h);
}

static void test_interpreter_matches_reference(void** state) {
  (void)state;
  run(false);
}

static void test_native_matches_reference(void** state) {
  (void)state;
  run(true);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dots_print_back),
      cmocka_unit_test(test_dots_misuse_diagnosed),
      cmocka_unit_test(test_interpreter_matches_reference),
      cmocka_unit_test(test_native_matches_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
