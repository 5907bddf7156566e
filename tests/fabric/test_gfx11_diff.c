/* The differential suite of the gfx11 model: every Loom kernel in the
 * repository is compiled for gfx1151 and for the host; the gfx1151 code
 * object runs on the gfx11 model, the host one on the host device, from
 * the same inputs, and every output buffer must agree bit for bit, except
 * the outputs of approximate operations, which must agree within the
 * bounds of the table below.
 *
 * The kernarg segment is laid out from the manifest's "amdgpu" entry
 * (argument offsets, sizes and kinds, checked against the arguments each
 * case passes), the grid from the gfx1151 artifact's own launch program,
 * and the code object v5 hidden arguments (block counts, group sizes,
 * remainders) follow the explicit ones at an 8-byte boundary when the
 * descriptor's kernarg size has room for them.
 *
 * Kernels covered (57 kernel sources, 172 runs):
 *   libhrx-loom/kernels/ and examples/ (10 sources, 31 runs), at sizes
 *   that are not multiples of the workgroup: saxpy (both copies),
 *   gather_rows (2-D workload), histogram, reduce_sum, row_dot, transpose
 *   (2-D grid, LDS), affine_rgb (2-D grid), linear_bf16 (three configs),
 *   ring_drain.
 *   The host test corpus, sources copied from the suites that own them:
 *   - tests/host/test_kernels.c (21 sources, 39 runs): overflow (n = 0 to
 *     100 on one 64-item group, with room for its store at n), ids (a
 *     5x3x4 workgroup: 3-D local ids, the second wave partial), neighbour
 *     (LDS and barrier), assume (facts that hold), op (index overflow,
 *     shift by 8 to 71 bits, i32 wrap), vector, vreduce, casts,
 *     store_uniform, store_lane, load_lane, store_2d (every in-range
 *     index), diverge (a barrier in a function that every work-item
 *     reaches, by lane and by wave), nest (64 divergent ifs), deep (250
 *     nested ifs; loops plain and carrying per-lane values, 32 deep, as
 *     LLVM takes some 40 s over the 250 its suite nests), with one trip and
 *     none, and subgroup_ops as a wave32 variant (see the skip table).
 *   - tests/loom/test_amdgpu.c: extra (wave32 shuffles and clustered
 *     reductions, f16/bf16 rounding, vector math, tanhf, rsqrtf, an inlined
 *     function, LDS, atomics), three shuffle distances, its
 *     order-dependent atomic results left out.
 *   - tests/gpu/test_stream.c: overflow (its store, in bounds here).
 *   - tests/kernels/spin.loom, with data that ends its loop at once.
 *   - tests/common/corpus_kernels.c: private_permute (private memory:
 *     scratch loads and stores in one wave slot per wave, 3 groups of 40
 *     on noise seeds), which tests/gpu/test_stream.c also runs.
 *   - tests/kernels/check/wmma_gemm.loom (6 runs): matrix fragments and
 *     vector.mma (V_WMMA_F32_16X16X16_F16 / _BF16 on the model, lane
 *     shuffles and f32 fmas on the host) on noise, f16 and bf16, one tile
 *     and a 48x32 grid of tiles over k = 64; one tile staged through LDS
 *     (ds_load_u16_d16_hi, v_mad_i32_i24); lhs and rhs fragments stored
 *     back by lanes 0..15.
 *   - tests/kernels/check/wmma_f16acc.loom and wmma_int8.loom (7 runs):
 *     f16 and bf16 accumulators (V_WMMA_F16_16X16X16_F16 / _BF16 on low
 *     halves) on noise, one tile and 48x32 over k = 64; i8 into i32
 *     (V_WMMA_I32_16X16X16_IU8) on random bytes, the same shapes, and one
 *     tile wrapped and saturated with C near both ends of the i32 range.
 *   - tests/kernels/check/f8_convert.loom (3 runs): f8E4M3 / f8E5M2
 *     conversions and moves, lowered to integer code on both.
 *   - tests/kernels/vector_shapes.loom (3 runs): vector<4x8xf16> tiles
 *     (row and element extracts and inserts, clampf, reduce), index
 *     lanes, bitpack, bitfield.insert, vector integer division.
 *   - tests/kernels/dynamic_vectors.loom (4 runs): vector<[%n]xf32> rows
 *     of a run-time length per work-item, vector<[%n]xi32> prefixes of
 *     one per launch (0, 5 and the bound 16).
 *   - tests/kernels/packed_dots.loom (1 run): vector.dot2f, dot8i4 and
 *     dot4f8 in every kind, over finite noise.
 *   - tests/kernels/vector_layout.loom (2 runs): vector.shuffle of 32-,
 *     16- and 8-bit lanes, vector.broadcast of rows and columns,
 *     vector.transpose of 2 and 3 axes, vector.slice, vector.interleave.
 *   - tests/kernels/vector_regroup.loom (2 runs): vector.concat of two
 *     and three inputs, vector.deinterleave of 16- and 8-bit lanes,
 *     vector.poison, vector.bitcast joining and splitting lanes;
 *     vector.reduce.axes of f32 and i32 tiles over some or all axes.
 *   - tests/kernels/vector_masked.loom (1 run): vector.load.mask and
 *     vector.store.mask with per-lane and uniform masks, a tail whose
 *     lanes past the end of its buffers stay off, vector.gather and
 *     vector.scatter with i32 and i16 offsets, vector.store.compress and
 *     vector.load.expand.
 *   Written here (12 sources, 66 runs): grid2d (2-D grid of 8x4 groups,
 *   6 sizes), grid3d (3-D grid of 4x3x3 groups, 36 work-items so the
 *   second wave is partial, 5 sizes), both at sizes that are not multiples
 *   of the workgroup in each dimension (and one that is); roots (sqrtf,
 *   rsqrtf, divf) and exp_log (expf, logf, tanhf) over special values and
 *   noise, 6 sizes each, as are float_tests (signf, remf, the class tests,
 *   signi: exact), logs (log2f, log10f), formulas_a..d (math_formulas.c's
 *   twelve functions) and vector_forms (all of them on vector<2xf32>);
 *   lds_mirror, which indexes LDS backwards from a
 *   negative base (LDS addresses wrap at 32 bits).
 * Loom text elsewhere under tests/ is not launchable work: the
 * tests/loom parser, config, launch-program and diagnostics fixtures
 * have empty bodies or are meant not to compile, tests/tools/test_cli.c
 * compiles one broken file, and the tests/fuzz/loom_seeds inputs store
 * nothing (they stress the parser and the host compiler's limits).
 *
 * Approximate operations, compared in units in the last place (ULP: the
 * distance between the two f32 bit patterns in the ordered integer line;
 * both NaN compares equal, as host and gfx11 NaN payloads differ):
 *
 *   op            gfx1151 code (LLVM 19)            ISA precision  bound
 *   scalar.sqrtf  v_sqrt_f32, then the v_fma_f32    v_sqrt_f32     0 ULP
 *                 residuals of s-1ulp and s+1ulp    1 ULP
 *                 pick the correctly rounded root
 *   scalar.rsqrtf the root above, then a division   v_rcp_f32      0 ULP
 *                 (below): two correct roundings,   1 ULP
 *                 as the host's 1.0f / sqrtf(x)
 *   scalar.divf   v_div_scale_f32, v_rcp_f32, fma   v_rcp_f32      0 ULP
 *                 refinement, v_div_fmas_f32,       1 ULP
 *                 v_div_fixup_f32: correctly rounded
 *   scalar.expf   v_exp_f32 (2^x) of x * log2(e),   v_exp_f32      2 ULP
 *                 split hi/lo with v_fma_f32,       1 ULP
 *                 scaled back by v_ldexp_f32
 *   scalar.logf   v_log_f32 (log2), times ln(2)     v_log_f32      2 ULP
 *                 split hi/lo with v_fma_f32        1 ULP
 *   scalar.tanhf  1 - 2 / (exp(2x) + 1): the expf   (composite)    4 ULP;
 *                 and divf above; cancels in 1 - q                 2^-21 abs
 *                                                                  below 0.5
 *   scalar.log2f  LLVM's log2: v_log_f32            v_log_f32      1 ULP
 *   scalar.log10f v_log_f32 times log10(2), hi/lo   1 ULP          2 ULP
 *   scalar.remf   exact (llvm_lower.c ll_fmod:      -              0 ULP
 *                 integer remainders), quotients
 *                 up to 2^277 here (see specials)
 *   math_formulas.c in f32 on v_exp/v_log/v_sin/v_cos/v_sqrt (measured
 *   largest distance in brackets): expm1f, log1pf, sinhf, coshf,
 *   logisticf, softplusf 4 ULP (2); tanf 6 ULP (3) for |x| < 4096 (ll_tan's
 *   reduction); atanf, atan2f, cbrtf 2 ULP (1); asinf, acosf 4 ULP (2).
 *   The host is within 0.501 ULP of exact for all of these, so the GPU is
 *   within the bound plus one half.
 * The ISA precisions are those AMD documents for the gfx11 transcendental
 * unit (1 ULP for f32 v_exp, v_log, v_rcp, v_rsq, v_sqrt; see LLVM's
 * AMDGPUUsage). The host reference is glibc (sqrtf, expf, logf, tanhf:
 * within 1 ULP; sqrtf and division correctly rounded). Where LLVM's
 * sequence corrects the instruction's 1 ULP to a correctly rounded result
 * (sqrt, rsqrt, div), the bound is 0; expf and logf allow the
 * instruction's 1 ULP plus the host's 1 ULP; tanhf's 1 - q loses the
 * relative precision of q where |tanh x| < 0.5 (|x| < 0.55), so there it
 * is bounded absolutely, by a few ULP of 1 (q's error: exp's 2 ULP and
 * the division's rounding, scaled by q <= 2). The suite prints the
 * largest distances it saw per operation.
 *
 * Each kernel source (its name, config and texts) is compiled once per
 * device, on its first run, and the code kept for its other runs:
 * compiling costs far more than running, under sanitizers and valgrind
 * most of all. Every run still gets a fresh host device and gfx11 image.
 *
 * Kernels not run are listed in skip_table (with the reason, printed when
 * the suite runs): those the amdgpu backend refuses (the compile failure
 * is checked, so a backend that learns the feature fails the table) and
 * runs whose result is undefined, racy or a fault by design. Every other
 * case must run on the gfx11 model: an instruction it lacks fails the
 * suite, naming the instruction. */
#include <float.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_kernels.h"
#include "../host/host_harness.h"
#include "gfx11.h"
#include "gfx11_test_util.h"
#include "hrx/core/bytes.h"
#include "hrx/core/f8.h"
#include "hrx/core/file.h"
#include "hrx/core/half.h"

enum { MAX_ARGS = 16, MAX_BUFFERS = 12, MAX_COLUMNS = 40 };

/* How far an approximate operation's results may be apart. */
typedef struct op_bound_t {
  const char* op;
  uint32_t ulp;  /* distance in units in the last place */
  /* Where the host's result is smaller than |small| in magnitude, at most
   * |abs| apart instead (0: no such region). */
  float small, abs;
} op_bound_t;

static const op_bound_t bound_sqrt = {"scalar.sqrtf", 0, 0, 0};
static const op_bound_t bound_rsqrt = {"scalar.rsqrtf", 0, 0, 0};
static const op_bound_t bound_div = {"scalar.divf", 0, 0, 0};
static const op_bound_t bound_exp = {"scalar.expf", 2, 0, 0};
static const op_bound_t bound_log = {"scalar.logf", 2, 0, 0};
static const op_bound_t bound_tanh = {"scalar.tanhf", 4, 0.5f, 0x1p-21f};
static const op_bound_t bound_log2 = {"scalar.log2f", 1, 0, 0};
static const op_bound_t bound_log10 = {"scalar.log10f", 2, 0, 0};
static const op_bound_t bound_expm1 = {"scalar.expm1f", 4, 0, 0};
static const op_bound_t bound_log1p = {"scalar.log1pf", 4, 0, 0};
static const op_bound_t bound_sinh = {"scalar.sinhf", 4, 0, 0};
static const op_bound_t bound_cosh = {"scalar.coshf", 4, 0, 0};
static const op_bound_t bound_tan = {"scalar.tanf", 6, 0, 0};
static const op_bound_t bound_atan = {"scalar.atanf", 2, 0, 0};
static const op_bound_t bound_atan2 = {"scalar.atan2f", 2, 0, 0};
static const op_bound_t bound_asin = {"scalar.asinf", 4, 0, 0};
static const op_bound_t bound_acos = {"scalar.acosf", 4, 0, 0};
static const op_bound_t bound_cbrt = {"scalar.cbrtf", 2, 0, 0};
static const op_bound_t bound_logistic = {"scalar.logisticf", 4, 0, 0};
static const op_bound_t bound_softplus = {"scalar.softplusf", 4, 0, 0};

/* A buffer of f32 rows of |columns| values; column c holds the results of
 * |column[c]|, or exact values when that is NULL. */
typedef struct tolerance_t {
  size_t columns;
  const op_bound_t* column[MAX_COLUMNS];
} tolerance_t;

/* Byte ranges of a buffer left out of the comparison. */
typedef struct ignore_t {
  size_t begin, end;
} ignore_t;

/* One kernel run: launch arguments are scalars (raw bits) or indices
 * into the buffers, whose initial bytes both devices receive. */
typedef struct diff_case_t {
  const char* file;             /* relative to HRX_LOOM_KERNELS, or NULL */
  const char* source;           /* the Loom text when |file| is NULL */
  const char* host_source;      /* the host's text when it differs */
  const char* label;            /* the inline source's name */
  const char* const* config;    /* NULL-terminated NAME=VALUE, or NULL */
  const char* kernel;           /* the export */
  uint64_t workload[3];
  size_t workload_count;
  size_t arg_count;
  int buffer_of[MAX_ARGS];      /* -1 for a scalar */
  uint64_t bits[MAX_ARGS];
  size_t buffer_count;
  size_t buffer_bytes[MAX_BUFFERS];
  uint8_t* init[MAX_BUFFERS];
  const tolerance_t* tolerance[MAX_BUFFERS];  /* NULL: bit for bit */
  const ignore_t* ignore[MAX_BUFFERS];        /* ends with {0, 0} */
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

static const char* case_name(const diff_case_t* c) {
  return c->file ? c->file : c->label;
}

/* The case's Loom text (free it). */
static char* case_text(const diff_case_t* c, size_t* out_length) {
  if (!c->file) {
    *out_length = strlen(c->source);
    return strdup(c->source);
  }
  const char* dir = getenv("HRX_LOOM_KERNELS");
  assert_non_null(dir);
  char* path = test_strdup_printf("%s/%s", dir, c->file);
  void* text = NULL;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 24, &text,
                              out_length));
  free(path);
  char* copy = malloc(*out_length + 1);
  assert_non_null(copy);
  memcpy(copy, text, *out_length);
  copy[*out_length] = 0;
  hrx_allocator_free(hrx_allocator_system(), text);
  return copy;
}

/* What one kernel source compiled to on each device, shared by all of its
 * runs (most sources run at several sizes). */
typedef struct compiled_t {
  char* key; /* see case_key */
  size_t key_length;
  hrx_loom_artifact_t* artifact; /* gfx1151 */
  uint8_t* host_code;
  size_t host_length;
} compiled_t;

/* The suite's compilations, freed by free_compiled after the last test. */
static struct {
  hrx_loom_compiler_t* compiler; /* gfx1151, without the kernel cache */
  compiled_t* entries;
  size_t count, capacity;
} compiled;

static int free_compiled(void** state) {
  (void)state;
  for (size_t i = 0; i < compiled.count; ++i) {
    free(compiled.entries[i].key);
    hrx_loom_artifact_destroy(compiled.entries[i].artifact);
    free(compiled.entries[i].host_code);
  }
  free(compiled.entries);
  hrx_loom_compiler_destroy(compiled.compiler);
  memset(&compiled, 0, sizeof(compiled));
  return 0;
}

/* Compiles Loom |text| for gfx1151 without the kernel cache. Returns the
 * compiler's status; on failure |*out_diagnostics| (when not NULL) gets
 * the diagnostics formatted (free them). */
static hrx_status_t compile_gfx11(const char* name, const char* text,
                                  size_t length, const char* const* config,
                                  hrx_loom_artifact_t** out_artifact,
                                  char** out_diagnostics) {
  hrx_loom_config_t* values = NULL;
  assert_ok(hrx_loom_config_create(hrx_allocator_system(), &values));
  for (const char* const* v = config; v && *v; ++v) {
    assert_ok(hrx_loom_config_set_assignment(values, *v));
  }
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  if (!compiled.compiler) {
    hrx_loom_compiler_options_t options =
        HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
    options.disable_cache = true;
    assert_ok(hrx_loom_compiler_create("gfx1151", &options,
                                       hrx_allocator_system(),
                                       &compiled.compiler));
  }
  hrx_loom_compile_request_t request = {.source = text,
                                        .length = length,
                                        .source_name = name,
                                        .config = values};
  *out_artifact = NULL;
  hrx_status_t status =
      hrx_loom_compile(compiled.compiler, &request, diagnostics,
                       out_artifact);
  if (status != HRX_OK && out_diagnostics) {
    hrx_string_builder_t b;
    hrx_string_builder_init(hrx_allocator_system(), &b);
    hrx_status_free(hrx_loom_diagnostics_format(diagnostics, &b));
    *out_diagnostics = strdup(hrx_string_builder_cstr(&b));
    hrx_string_builder_deinit(&b);
  }
  hrx_loom_diagnostics_destroy(diagnostics);
  hrx_loom_config_destroy(values);
  return status;
}

/* Appends |length| bytes of |text| to |key|, after their length, so that
 * no two lists of parts make the same key. */
static void key_append(char** key, size_t* key_length, const char* text,
                       size_t length) {
  char prefix[24];
  int n = snprintf(prefix, sizeof(prefix), "%zu:", length);
  char* grown = realloc(*key, *key_length + (size_t)n + length);
  assert_non_null(grown);
  memcpy(grown + *key_length, prefix, (size_t)n);
  memcpy(grown + *key_length + n, text, length);
  *key = grown;
  *key_length += (size_t)n + length;
}

/* What |c|'s code depends on: its name, config and texts. */
static char* case_key(const diff_case_t* c, const char* text, size_t length,
                      size_t* out_length) {
  char* key = NULL;
  *out_length = 0;
  key_append(&key, out_length, case_name(c), strlen(case_name(c)));
  for (const char* const* v = c->config; v && *v; ++v) {
    key_append(&key, out_length, *v, strlen(*v));
  }
  key_append(&key, out_length, text, length);
  if (c->host_source) {
    key_append(&key, out_length, c->host_source, strlen(c->host_source));
  }
  return key;
}

/* |c|'s code for both devices, compiled on its source's first run. */
static const compiled_t* compile_case(const diff_case_t* c) {
  size_t length = 0;
  char* text = case_text(c, &length);
  size_t key_length = 0;
  char* key = case_key(c, text, length, &key_length);
  for (size_t i = 0; i < compiled.count; ++i) {
    const compiled_t* e = &compiled.entries[i];
    if (e->key_length == key_length && !memcmp(e->key, key, key_length)) {
      free(key);
      free(text);
      return e;
    }
  }
  compiled_t built = {.key = key, .key_length = key_length};
  char* diagnostics = NULL;
  hrx_status_t status = compile_gfx11(case_name(c), text, length, c->config,
                                      &built.artifact, &diagnostics);
  if (status != HRX_OK) print_error("%s", diagnostics);
  free(diagnostics);
  assert_ok(status);
  /* The host compiles without sanitizers, named as harness_load names
   * its files. */
  const harness_t plain = {.sanitizers = 0};
  if (c->file) {
    char* path = test_strdup_printf("%s/%s", getenv("HRX_LOOM_KERNELS"),
                                    c->file);
    built.host_code = harness_compile_code(&plain, path, text, length,
                                           c->config, &built.host_length);
    free(path);
  } else {
    const char* host = c->host_source ? c->host_source : c->source;
    built.host_code = harness_compile_code(&plain, c->label, host,
                                           strlen(host), c->config,
                                           &built.host_length);
  }
  free(text);
  if (compiled.count == compiled.capacity) {
    compiled.capacity = compiled.capacity ? 2 * compiled.capacity : 64;
    compiled_t* grown = realloc(compiled.entries,
                                compiled.capacity * sizeof(*grown));
    assert_non_null(grown);
    compiled.entries = grown;
  }
  compiled.entries[compiled.count] = built;
  return &compiled.entries[compiled.count++];
}

/* Runs |c| on the host device; |out| receives each buffer's final bytes. */
static void run_host(const diff_case_t* c, const compiled_t* built,
                     uint8_t** out) {
  harness_t h;
  harness_open(&h);
  harness_load_code(&h, built->host_code, built->host_length);
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
  hrx_status_t status = harness_run(&h, c->kernel, c->workload,
                                    c->workload_count, args, c->arg_count);
  if (status != HRX_OK) print_error("%s (%s) on the host\n", c->kernel,
                                    case_name(c));
  assert_ok(status);
  for (size_t b = 0; b < c->buffer_count; ++b) {
    memcpy(out[b], memory[b].host_pointer, c->buffer_bytes[b]);
    hrx_fabric_memory_free(h.device, &memory[b]);
  }
  harness_close(&h);
}

/* Writes the explicit arguments where the manifest's amdgpu entry puts
 * them, after checking each one's kind (buffer or value) against the
 * case's; returns the end of the last one. */
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
    const char* name = json_string_value(json_object_get(entry, "export"));
    if (name && !strcmp(name, c->kernel)) {
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
    const char* kind = json_string_value(json_object_get(arg, "kind"));
    assert_non_null(kind);
    if (strcmp(kind, c->buffer_of[a] < 0 ? "by_value" : "global_buffer")) {
      fail_msg("%s: argument %zu is %s", c->kernel, a, kind);
    }
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
static void run_gfx11(const diff_case_t* c, const compiled_t* built,
                      uint8_t** out) {
  const hrx_loom_artifact_t* artifact = built->artifact;
  size_t code_length = 0;
  const uint8_t* code = hrx_loom_artifact_code(artifact, &code_length);
  hrx_gfx11_image_t* image = NULL;
  assert_ok(hrx_gfx11_image_load(code, code_length, hrx_allocator_system(),
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
  hrx_fabric_launch_config_t launch =
      HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
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
  /* Scratch for exactly one workgroup's waves (the model runs on one
   * thread here), sized as the command processor slices it: a wave slot
   * of roundup(private bytes x 64, 1024) each. */
  p = (const uint8_t*)(uintptr_t)(kd + 4);
  uint64_t private_bytes = hrx_get_le(&p, 4);
  uint64_t items = (uint64_t)launch.workgroup_size[0] *
                   launch.workgroup_size[1] * launch.workgroup_size[2];
  size_t scratch_size =
      (size_t)((items + 31) / 32 * ((private_bytes * 64 + 1023) & ~1023ull));
  uint8_t* scratch = scratch_size ? malloc(scratch_size) : NULL;
  hrx_gfx11_dispatch_t dispatch = {
      .kernel_descriptor = kd,
      .kernarg = (uint64_t)(uintptr_t)kernarg,
      .ranges = ranges,
      .range_count = 2 + c->buffer_count,
      .scratch = (uint64_t)(uintptr_t)scratch,
      .scratch_size = scratch_size,
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
    print_error("%s (%s): %s at image + 0x%llx: %s\n", c->kernel,
                case_name(c), fault.mnemonic,
                (unsigned long long)(fault.pc - ranges[0].base),
                fault.reason);
  }
  assert_ok(status);
  free(scratch);
  free(kernarg);
  hrx_gfx11_image_destroy(image);
}

/* Distance of two f32 bit patterns in units in the last place: their
 * places on the ordered integer line (-0 and +0 coincide); two NaN are
 * equal, a NaN and a number are as far apart as can be. */
static uint32_t ulp_distance(uint32_t a, uint32_t b) {
  bool a_nan = (a & 0x7fffffffu) > 0x7f800000u;
  bool b_nan = (b & 0x7fffffffu) > 0x7f800000u;
  if (a_nan || b_nan) return a_nan && b_nan ? 0 : UINT32_MAX;
  int64_t x = a >> 31 ? -(int64_t)(a & 0x7fffffffu) : (int64_t)a;
  int64_t y = b >> 31 ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b;
  int64_t d = x > y ? x - y : y - x;
  return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

/* The largest distance seen per bounded operation, for the report. */
typedef struct op_seen_t {
  const op_bound_t* bound;
  uint32_t max_ulp;  /* outside the bound's small region */
  float max_abs;     /* inside it */
  size_t values;
} op_seen_t;

static op_seen_t seen[24];

/* Runs compared. */
static size_t runs_compared;

static op_seen_t* seen_of(const op_bound_t* bound) {
  for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]); ++i) {
    if (seen[i].bound == bound) return &seen[i];
    if (!seen[i].bound) {
      seen[i].bound = bound;
      return &seen[i];
    }
  }
  fail_msg("too many bounded operations");
  return NULL;
}

static bool ignored(const ignore_t* ignore, size_t at) {
  for (; ignore && ignore->end; ++ignore) {
    if (at >= ignore->begin && at < ignore->end) return true;
  }
  return false;
}

/* Compares buffer |b| of |c|: bytes bit for bit, f32 results of bounded
 * operations within their bounds. */
static void compare_buffer(const diff_case_t* c, size_t b,
                           const uint8_t* host, const uint8_t* gfx) {
  const tolerance_t* t = c->tolerance[b];
  for (size_t i = 0; i < c->buffer_bytes[b]; ++i) {
    if (ignored(c->ignore[b], i)) continue;
    const op_bound_t* bound =
        t && i / 4 * 4 + 4 <= c->buffer_bytes[b]
            ? t->column[i / 4 % t->columns] : NULL;
    if (!bound) {
      if (host[i] == gfx[i]) continue;
      print_error("%s (%s): buffer %zu byte %zu: host 0x%02x, gfx11 0x%02x\n",
                  c->kernel, case_name(c), b, i, host[i], gfx[i]);
      fail();
    }
    if (i % 4) continue;
    uint32_t h, g;
    memcpy(&h, host + i, 4);
    memcpy(&g, gfx + i, 4);
    uint32_t d = ulp_distance(h, g);
    float hf, gf;
    memcpy(&hf, &h, 4);
    memcpy(&gf, &g, 4);
    bool small = fabsf(hf) < bound->small;
    float a = d == 0 ? 0.0f : fabsf(hf - gf);
    op_seen_t* s = seen_of(bound);
    s->values++;
    if (small && a > s->max_abs) s->max_abs = a;
    if (!small && d > s->max_ulp) s->max_ulp = d;
    if (small ? a <= bound->abs : d <= bound->ulp) continue;
    print_error("%s (%s): %s at buffer %zu value %zu: host %a (0x%08x), "
                "gfx11 %a (0x%08x), %u ULP apart (bound %u ULP, or %a "
                "absolute below %g)\n",
                c->kernel, case_name(c), bound->op, b, i / 4, hf, h, gf, g,
                d, bound->ulp, bound->abs, bound->small);
    fail();
  }
}

/* Runs |c| on both devices and compares every buffer. */
static void run_case(diff_case_t* c) {
  uint8_t* host[MAX_BUFFERS];
  uint8_t* gfx[MAX_BUFFERS];
  for (size_t b = 0; b < c->buffer_count; ++b) {
    host[b] = malloc(c->buffer_bytes[b] ? c->buffer_bytes[b] : 1);
    gfx[b] = malloc(c->buffer_bytes[b] ? c->buffer_bytes[b] : 1);
    assert_true(host[b] && gfx[b]);
  }
  const compiled_t* built = compile_case(c);
  run_host(c, built, host);
  run_gfx11(c, built, gfx);
  ++runs_compared;
  for (size_t b = 0; b < c->buffer_count; ++b) {
    compare_buffer(c, b, host[b], gfx[b]);
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

/*===------------------------------------------------------------------===*/
/* The host test corpus                                                    */
/*===------------------------------------------------------------------===*/

/* An inline case: |text| named |label|, export |kernel|. */
static diff_case_t inline_case(const char* label, const char* text,
                               const char* kernel) {
  return (diff_case_t){.label = label, .source = text, .kernel = kernel};
}

static void fill_bytes(uint8_t* buffer, size_t bytes, uint32_t seed) {
  for (size_t i = 0; i < bytes; ++i) {
    buffer[i] = (uint8_t)((i + seed) * 2654435761u >> 13);
  }
}

/* overflow stores 7 at out[0..n] from 64 lanes: run with room for n + 1
 * elements, so the store its suite uses to fault stays in bounds. */
static void test_corpus_overflow(void** state) {
  (void)state;
  static const uint64_t sizes[] = {0, 10, 37, 63, 100};
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
    uint64_t n = sizes[s];
    diff_case_t c =
        inline_case("overflow.loom", corpus_overflow_kernel, "overflow");
    c.workload[0] = n;
    c.workload_count = 1;
    add_scalar(&c, n);
    fill_bytes(add_buffer(&c, (n + 1) * 4), (n + 1) * 4, 1);
    run_case(&c);
  }
}

/* subgroup_ops on wave32: the same text with a 32-lane subgroup and
 * shuffle width (two waves of the 64-item workgroup). */
static void test_corpus_subgroup_ops_wave32(void** state) {
  (void)state;
  char* text = strdup(corpus_subgroup_kernel);
  assert_non_null(text);
  char* at = strstr(text, "{subgroup_size = 64}");
  assert_non_null(at);
  memcpy(at, "{subgroup_size = 32}", 20);
  at = strstr(text, "%w = scalar.constant 64 : i32");
  assert_non_null(at);
  memcpy(at + strlen("%w = scalar.constant "), "32", 2);
  diff_case_t c = inline_case("subgroup32.loom", text, "subgroup_ops");
  uint8_t* in = add_buffer(&c, 64 * 4);
  for (int l = 0; l < 64; ++l) {
    float x = (float)((l * 37) % 64) + 1.0f / 3.0f;
    memcpy(in + 4 * l, &x, 4);
  }
  add_buffer(&c, 64 * 7 * 4);
  run_case(&c);
  free(text);
}

static void test_corpus_ids(void** state) {
  (void)state;
  diff_case_t c = inline_case("ids.loom", corpus_ids_kernel, "ids");
  memset(add_buffer(&c, 2 * 60 * 3 * 4), 0xff, 2 * 60 * 3 * 4);
  run_case(&c);
}

/* Runs the generated one-buffer kernel |text| (freed) over 64 i32. */
static void run_out64(const char* label, char* text, const char* kernel) {
  diff_case_t c = inline_case(label, text, kernel);
  fill_bytes(add_buffer(&c, 64 * 4), 64 * 4, 3);
  run_case(&c);
  free(text);
}

static void test_corpus_neighbour(void** state) {
  (void)state;
  run_out64("neighbour.loom", corpus_neighbour_kernel(true), "neighbour");
}

static void test_corpus_assume(void** state) {
  (void)state;
  char* text = corpus_assume_kernel("range(%id, 0, 63), lt(%id, %n)");
  static const uint64_t sizes[] = {64, 100};
  for (size_t s = 0; s < 2; ++s) {
    diff_case_t c = inline_case("assume.loom", text, "assume");
    c.workload[0] = sizes[s];
    c.workload_count = 1;
    add_scalar(&c, sizes[s]);
    add_buffer(&c, 64 * 4);
    run_case(&c);
  }
  free(text);
}

/* The operation sanitizer's three bodies, unsanitized: index arithmetic
 * that wraps, shifts by 8..71 bits, and an i32 product that wraps. */
static void test_corpus_operations(void** state) {
  (void)state;
  static const char* const labels[] = {"op_index_overflow.loom",
                                       "op_shift.loom", "op_wrap.loom"};
  for (size_t i = 0; i < 3; ++i) {
    run_out64(labels[i], corpus_operation_kernel(corpus_operation_bodies[i]),
              "op");
  }
}

/* The three vector kernels; buffers of noise of the sizes their suite
 * uses. */
static void test_corpus_vectors(void** state) {
  (void)state;
  char* vector = corpus_vector_kernel();
  char* vreduce = corpus_vreduce_kernel();
  char* casts = corpus_casts_kernel();

  diff_case_t c = inline_case("vector.loom", vector, "vector");
  fill_f32(add_buffer(&c, 256 * 4), 256, 11);
  fill_f32(add_buffer(&c, 256 * 4), 256, 12);
  add_buffer(&c, 256 * 4);
  run_case(&c);

  c = inline_case("reduce.loom", vreduce, "vreduce");
  fill_f32(add_buffer(&c, 256 * 4), 256, 13);
  fill_bytes(add_buffer(&c, 256 * 4), 256 * 4, 14);
  add_buffer(&c, 192 * 4);
  run_case(&c);

  c = inline_case("casts.loom", casts, "casts");
  uint8_t* x = add_buffer(&c, 256 * 2);
  for (int i = 0; i < 256; ++i) {
    float v = noise((uint32_t)i + 15) * 1000.0f;
    uint32_t bits;
    memcpy(&bits, &v, 4);
    uint16_t half = hrx_f32_bits_to_bf16(bits);
    memcpy(x + 2 * i, &half, 2);
  }
  add_buffer(&c, 256 * 4);
  add_buffer(&c, 256 * 2);
  run_case(&c);
  free(vector);
  free(vreduce);
  free(casts);
}

/* The poke kernels at every index in bounds (store_folded is always out
 * of bounds: see the skip table). */
static void test_corpus_pokes(void** state) {
  (void)state;
  static const char* const kernels[] = {"store_uniform", "store_lane",
                                        "load_lane", "store_2d"};
  for (size_t k = 0; k < sizeof(kernels) / sizeof(kernels[0]); ++k) {
    int64_t last = k == 3 ? 1 : 3;  /* store_2d writes [at, 1] of 2x2 */
    for (int64_t at = 0; at <= last; ++at) {
      diff_case_t c =
          inline_case("poke.loom", corpus_poke_kernels, kernels[k]);
      fill_bytes(add_buffer(&c, 16), 16, (uint32_t)at);
      add_scalar(&c, (uint64_t)at);
      run_case(&c);
    }
  }
}

/* A barrier in a function that every work-item reaches: by lane (n = 64)
 * and by wave (n = 2). The kernel has no buffer: both devices must just
 * finish. */
static void test_corpus_diverge(void** state) {
  (void)state;
  for (int by_wave = 0; by_wave < 2; ++by_wave) {
    char* text = corpus_divergent_barrier_kernel(by_wave);
    diff_case_t c = inline_case("diverge.loom", text, "diverge");
    add_scalar(&c, by_wave ? 2 : 64);
    run_case(&c);
    free(text);
  }
}

static void test_corpus_nest(void** state) {
  (void)state;
  run_out64("nest.loom", corpus_nested_if_kernel(64), "nest");
}

/* Its suite's nesting: 250 ifs, and loops, plain and carrying per-lane
 * values, 32 deep (its suite nests 250 and 200, which LLVM's loop passes
 * take some 40 s to compile for gfx1151), each run with one trip (n = 1)
 * and none (n = 0). */
static void test_corpus_deep(void** state) {
  (void)state;
  static const struct {
    int depth;
    bool loops, carried;
  } shapes[] = {{250, false, false}, {32, true, false}, {32, true, true}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    char* text = corpus_nested_kernel(shapes[s].depth, shapes[s].loops,
                                      shapes[s].carried);
    for (uint64_t n = 0; n < 2; ++n) {
      diff_case_t c = inline_case("deep.loom", text, "deep");
      fill_bytes(add_buffer(&c, 16), 16, 5);
      add_scalar(&c, n);
      run_case(&c);
    }
    free(text);
  }
}

/* extra, with the host's target record for the host side. Its two waves
 * race by design: both write rows 0-31 of out (indexed by lane), and the
 * first rewrites the input (as bf16) before the second reads it; both
 * devices run a workgroup's waves in order between barriers, so the
 * second wave's results are the ones compared. Row 0 of out (values
 * g = 0, gs = 1 and 3 take the float atomics) and count[1..2] (atomics
 * whose operands are earlier atomics' results) depend on the order of the
 * lanes' atomics, which the two backends lower differently, and are left
 * out; count[0] (a sum) is compared. Row l holds clamp(sum) (exact),
 * tanhf, rsqrtf and the bf16 lane index. The input is read as 64 f32 and
 * as 256 bf16 (512 bytes). */
static void test_corpus_extra(void** state) {
  (void)state;
  static const char target[] = "amdgpu.target<gfx1151> @gpu";
  static const char host_target[] = "host.target<cpu>       @gpu";
  _Static_assert(sizeof(target) == sizeof(host_target), "same length");
  char* host = strdup(corpus_amdgpu_extra_kernel);
  assert_non_null(host);
  memcpy(host, host_target, sizeof(host_target) - 1);
  static const tolerance_t rows = {
      8, {NULL, &bound_tanh, &bound_rsqrt, NULL, NULL, NULL, NULL, NULL}};
  static const ignore_t order[] = {{0, 8 * 4}, {0, 0}};
  static const ignore_t chained[] = {{4, 12}, {0, 0}};
  static const int32_t ks[] = {1, 3, 31};
  for (size_t s = 0; s < sizeof(ks) / sizeof(ks[0]); ++s) {
    diff_case_t c =
        inline_case("extra.loom", corpus_amdgpu_extra_kernel, "extra");
    c.host_source = host;
    c.workload[0] = 1;
    c.workload_count = 1;
    uint8_t* in = add_buffer(&c, 128 * 4);
    for (int l = 0; l < 128; ++l) {
      float x = noise((uint32_t)l + 21) * (l % 3 ? 1.0f : 16.0f) + 0.25f;
      memcpy(in + 4 * l, &x, 4);
    }
    add_buffer(&c, 64 * 8 * 4);
    add_buffer(&c, 8 * 4);
    add_scalar(&c, (uint32_t)ks[s]);
    c.tolerance[1] = &rows;
    c.ignore[1] = order;
    c.ignore[2] = chained;
    run_case(&c);
  }
  free(host);
}

static void test_corpus_stream_store(void** state) {
  (void)state;
  diff_case_t c =
      inline_case("stream_overflow.loom", corpus_store_at_7_kernel, "overflow");
  fill_bytes(add_buffer(&c, 32), 32, 7);
  run_case(&c);
}

/* tests/kernels/spin.loom loops until data[0] == data[1]: run with the
 * two equal, so the loop ends at once (other data would never end). */
static void test_corpus_spin(void** state) {
  (void)state;
  static const int32_t starts[][2] = {{5, 5}, {-7, -7}};
  for (size_t s = 0; s < 2; ++s) {
    diff_case_t c = {.file = "../../tests/kernels/spin.loom",
                     .kernel = "spin"};
    memcpy(add_buffer(&c, 8), starts[s], 8);
    run_case(&c);
  }
}


/*===------------------------------------------------------------------===*/
/* 2-D and 3-D grids, transcendentals                                      */
/*===------------------------------------------------------------------===*/

/* A 2-D grid of 8x4 workgroups over a w x h image: out[y][x] =
 * fma(y, 0.375, fma(in[y][x], 0.375, in[y][min(x + 1, w - 1)])) and
 * ids[y][x] packs (count_y, group_y, group_x, local_y, local_x). */
static const char* const grid2d_kernel =
    "host.target<cpu> @h {subgroup_size = 32}\n"
    "kernel.def target(@h) export(\"grid2d\") @grid2d(%w: index, %h: index) {\n"
    "  %one = index.constant 1 : index\n"
    "  %tx = index.constant 8 : index\n"
    "  %ty = index.constant 4 : index\n"
    "  %rx = index.constant 7 : index\n"
    "  %ry = index.constant 3 : index\n"
    "  %wp = index.add %w, %rx : index\n"
    "  %hp = index.add %h, %ry : index\n"
    "  %gx = index.div %wp, %tx : index\n"
    "  %gy = index.div %hp, %ty : index\n"
    "  kernel.launch.config workgroups(%gx, %gy, %one) "
    "workgroup_size(%tx, %ty, %one) : index\n"
    "} launch(%w: index, %h: index, %in: buffer, %out: buffer, "
    "%ids: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %one = index.constant 1 : index\n"
    "  %c16 = index.constant 16 : index\n"
    "  %c64 = index.constant 64 : index\n"
    "  %lx = kernel.workitem.id<x> : index\n"
    "  %ly = kernel.workitem.id<y> : index\n"
    "  %bx = kernel.workgroup.id<x> : index\n"
    "  %by = kernel.workgroup.id<y> : index\n"
    "  %sx = kernel.workgroup.size<x> : index\n"
    "  %sy = kernel.workgroup.size<y> : index\n"
    "  %cy = kernel.workgroup.count<y> : index\n"
    "  %x = index.madd %bx, %sx, %lx : index\n"
    "  %y = index.madd %by, %sy, %ly : index\n"
    "  %iv = buffer.view %in[%o] : buffer -> view<[%h]x[%w]xf32>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<[%h]x[%w]xf32>\n"
    "  %dv = buffer.view %ids[%o] : buffer -> view<[%h]x[%w]xi32>\n"
    "  %x_ok = index.cmp ult, %x, %w : index\n"
    "  %y_ok = index.cmp ult, %y, %h : index\n"
    "  scf.if %x_ok {\n"
    "    scf.if %y_ok {\n"
    "      %last = index.sub %w, %one : index\n"
    "      %x1 = index.add %x, %one : index\n"
    "      %xn = index.min %x1, %last : index\n"
    "      %a = view.load %iv[%y, %x] : view<[%h]x[%w]xf32> -> f32\n"
    "      %b = view.load %iv[%y, %xn] : view<[%h]x[%w]xf32> -> f32\n"
    "      %y32 = index.cast %y : index to i32\n"
    "      %fy = scalar.uitofp %y32 : i32 to f32\n"
    "      %k = scalar.constant 0.375 : f32\n"
    "      %s = scalar.fmaf %a, %k, %b : f32\n"
    "      %r = scalar.fmaf %fy, %k, %s : f32\n"
    "      view.store %r, %ov[%y, %x] : f32, view<[%h]x[%w]xf32>\n"
    "      %p0 = index.madd %cy, %c64, %by : index\n"
    "      %p1 = index.madd %p0, %c64, %bx : index\n"
    "      %p2 = index.madd %p1, %c16, %ly : index\n"
    "      %p3 = index.madd %p2, %c16, %lx : index\n"
    "      %code = index.cast %p3 : index to i32\n"
    "      view.store %code, %dv[%y, %x] : i32, view<[%h]x[%w]xi32>\n"
    "    }\n"
    "  }\n"
    "  kernel.return\n"
    "}\n";

static void grid2d_case(uint64_t w, uint64_t h) {
  diff_case_t c = inline_case("grid2d.loom", grid2d_kernel, "grid2d");
  c.workload[0] = w;
  c.workload[1] = h;
  c.workload_count = 2;
  add_scalar(&c, w);
  add_scalar(&c, h);
  fill_f32(add_buffer(&c, w * h * 4), w * h, 31);
  memset(add_buffer(&c, w * h * 4), 0xa5, w * h * 4);
  memset(add_buffer(&c, w * h * 4), 0x5a, w * h * 4);
  run_case(&c);
}

static void test_grid2d(void** state) {
  (void)state;
  static const uint64_t sizes[][2] = {{1, 1},   {8, 4},   {13, 7},
                                      {33, 17}, {100, 3}, {3, 50}};
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
    grid2d_case(sizes[s][0], sizes[s][1]);
  }
}

/* f16 (or bf16) noise: products and sums of these round in f32. */
static void fill_half(uint8_t* buffer, size_t count, uint32_t seed,
                      bool bf16) {
  for (size_t i = 0; i < count; ++i) {
    float v = noise((uint32_t)i + seed);
    uint32_t bits;
    memcpy(&bits, &v, 4);
    uint16_t h = bf16 ? hrx_f32_bits_to_bf16(bits) : hrx_f32_bits_to_f16(bits);
    memcpy(buffer + 2 * i, &h, 2);
  }
}

/* C = A x B + C through fragments: both devices add the exact products
 * to C in k order with one rounding each, so they agree bit for bit. */
static void wmma_case(bool bf16, uint64_t m, uint64_t n, uint64_t k) {
  diff_case_t c = {.file = "../../tests/kernels/check/wmma_gemm.loom",
                   .kernel = bf16 ? "wmma_gemm_bf16" : "wmma_gemm_f16",
                   .workload = {m, n, k}, .workload_count = 3};
  add_scalar(&c, m);
  add_scalar(&c, n);
  add_scalar(&c, k);
  fill_half(add_buffer(&c, m * k * 2), m * k, 41, bf16);
  fill_half(add_buffer(&c, k * n * 2), k * n, 42, bf16);
  fill_f32(add_buffer(&c, m * n * 4), m * n, 43);
  run_case(&c);
}

/* 16-bit accumulators: both devices round the f32 sum of each 16-deep
 * product once, so they agree bit for bit. */
static void wmma_half_acc_case(bool bf16, uint64_t m, uint64_t n,
                               uint64_t k) {
  diff_case_t c = {.file = "../../tests/kernels/check/wmma_f16acc.loom",
                   .kernel = bf16 ? "wmma_gemm_bf16acc" : "wmma_gemm_f16acc",
                   .workload = {m, n, k}, .workload_count = 3};
  add_scalar(&c, m);
  add_scalar(&c, n);
  add_scalar(&c, k);
  fill_half(add_buffer(&c, m * k * 2), m * k, 51, bf16);
  fill_half(add_buffer(&c, k * n * 2), k * n, 52, bf16);
  fill_half(add_buffer(&c, m * n * 2), m * n, 53, bf16);
  run_case(&c);
}

/* i8 into i32: exact sums, wrapped. */
static void wmma_i8_case(uint64_t m, uint64_t n, uint64_t k) {
  diff_case_t c = {.file = "../../tests/kernels/check/wmma_int8.loom",
                   .kernel = "wmma_gemm_i8", .workload = {m, n, k},
                   .workload_count = 3};
  add_scalar(&c, m);
  add_scalar(&c, n);
  add_scalar(&c, k);
  fill_bytes(add_buffer(&c, m * k), m * k, 54);
  fill_bytes(add_buffer(&c, k * n), k * n, 55);
  fill_bytes(add_buffer(&c, m * n * 4), m * n * 4, 56);
  run_case(&c);
}

static void test_wmma_types(void** state) {
  (void)state;
  wmma_half_acc_case(false, 16, 16, 16);
  wmma_half_acc_case(true, 16, 16, 16);
  wmma_half_acc_case(false, 48, 32, 64);
  wmma_half_acc_case(true, 48, 32, 64);
  wmma_i8_case(16, 16, 16);
  wmma_i8_case(48, 32, 64);
  diff_case_t sat = {.file = "../../tests/kernels/check/wmma_int8.loom",
                     .kernel = "wmma_i8_saturate", .workload = {1},
                     .workload_count = 1};
  fill_bytes(add_buffer(&sat, 256), 256, 57);
  fill_bytes(add_buffer(&sat, 256), 256, 58);
  uint8_t* wrap = add_buffer(&sat, 256 * 4);
  for (uint32_t i = 0; i < 256; ++i) {
    /* Within 2^14 of INT32_MAX or INT32_MIN: many sums leave the range. */
    uint32_t near = (i * 2654435761u) >> 18;
    uint32_t value = i % 2 ? (uint32_t)INT32_MAX - near
                           : (uint32_t)INT32_MIN + near;
    memcpy(wrap + 4 * i, &value, 4);
  }
  memset(add_buffer(&sat, 256 * 4), 0, 256 * 4);
  run_case(&sat);
}

/* f8 storage types (tests/kernels/check/f8_convert.loom): every code
 * widened to f32, f16 and bf16 with vector loads and lane moves, f32 /
 * f16 / bf16 values narrowed (ties between codes of both formats, noise
 * over the formats' range and any bit pattern), and the round trips the
 * file's check cases state. Integer code and exact float steps on both
 * devices, so bit for bit. */
static void test_f8(void** state) {
  (void)state;
  const char* file = "../../tests/kernels/check/f8_convert.loom";
  diff_case_t widen = {.file = file, .kernel = "f8_widen", .workload = {256},
                       .workload_count = 1};
  add_scalar(&widen, 256);
  uint8_t* codes = add_buffer(&widen, 256);
  for (size_t i = 0; i < 256; ++i) codes[i] = (uint8_t)i;
  for (size_t b = 0; b < 6; ++b) add_buffer(&widen, b < 2 ? 1024 : 512);
  add_buffer(&widen, 1024);
  add_buffer(&widen, 256);
  run_case(&widen);

  const uint64_t n = 1000;
  diff_case_t narrow = {.file = file, .kernel = "f8_narrow", .workload = {n},
                        .workload_count = 1};
  add_scalar(&narrow, n);
  uint8_t* x = add_buffer(&narrow, n * 4);
  uint8_t* hx = add_buffer(&narrow, n * 2);
  uint8_t* bx = add_buffer(&narrow, n * 2);
  for (size_t i = 0; i < n; ++i) {
    uint32_t hash = (uint32_t)i * 2654435761u ^ 0x5bd1e995u;
    hash ^= hash >> 13;
    uint32_t bits = hash;
    if (i % 4 == 0) { /* the tie between two E4M3 codes */
      uint8_t c = (uint8_t)((i / 4) % 0x7e);
      float lo, hi;
      uint32_t a = hrx_f8e4m3_to_f32_bits(c), b = hrx_f8e4m3_to_f32_bits(c + 1);
      memcpy(&lo, &a, 4);
      memcpy(&hi, &b, 4);
      float mid = (lo + hi) / 2.0f;
      memcpy(&bits, &mid, 4);
    } else if (i % 4 == 1) { /* the tie between two E5M2 codes */
      uint8_t c = (uint8_t)((i / 4) % 0x7b);
      float lo, hi;
      uint32_t a = hrx_f8e5m2_to_f32_bits(c), b = hrx_f8e5m2_to_f32_bits(c + 1);
      memcpy(&lo, &a, 4);
      memcpy(&hi, &b, 4);
      float mid = (lo + hi) / 2.0f;
      memcpy(&bits, &mid, 4);
    } else if (i % 4 == 2) { /* 2^-27 .. 2^22 */
      bits = (hash & 0x807fffffu) | ((100u + (hash >> 25) % 50u) << 23);
    }
    bits |= (uint32_t)(i & 8) << 28; /* both signs */
    uint16_t h = hrx_f32_bits_to_f16(bits), bf = (uint16_t)(bits >> 16);
    memcpy(x + 4 * i, &bits, 4);
    memcpy(hx + 2 * i, &h, 2);
    memcpy(bx + 2 * i, &bf, 2);
  }
  for (size_t b = 0; b < 8; ++b) add_buffer(&narrow, n);
  run_case(&narrow);

  diff_case_t trip = {.file = file, .kernel = "f8_round_trip",
                      .workload = {256}, .workload_count = 1};
  add_scalar(&trip, 256);
  codes = add_buffer(&trip, 256);
  for (size_t i = 0; i < 256; ++i) codes[i] = (uint8_t)(255 - i);
  add_buffer(&trip, 256);
  add_buffer(&trip, 256);
  run_case(&trip);
}

static void test_wmma(void** state) {
  (void)state;
  wmma_case(false, 16, 16, 16);
  wmma_case(true, 16, 16, 16);
  wmma_case(false, 48, 32, 64);
  wmma_case(true, 48, 32, 64);
  diff_case_t c = {.file = "../../tests/kernels/check/wmma_gemm.loom",
                   .kernel = "wmma_lds_tile", .workload = {1},
                   .workload_count = 1};
  fill_half(add_buffer(&c, 256 * 2), 256, 44, false);
  fill_half(add_buffer(&c, 256 * 2), 256, 45, false);
  fill_f32(add_buffer(&c, 256 * 4), 256, 46);
  run_case(&c);
  diff_case_t copy = {.file = "../../tests/kernels/check/wmma_gemm.loom",
                      .kernel = "wmma_operand_copy", .workload = {1},
                      .workload_count = 1};
  fill_half(add_buffer(&copy, 256 * 2), 256, 47, true);
  fill_half(add_buffer(&copy, 256 * 2), 256, 48, true);
  memset(add_buffer(&copy, 256 * 2), 0xa5, 256 * 2);
  memset(add_buffer(&copy, 256 * 2), 0x5a, 256 * 2);
  run_case(&copy);
}

/* tests/kernels/vector_shapes.loom: vector<4x8xf16> tiles loaded,
 * reshuffled by row and element extracts and inserts, clamped, reduced
 * and stored back; vector<8xindex> lanes; bitpack, bitfield.insert and
 * vector integer division (tests/loom/test_language_vectors.c holds the
 * C references). */
static void test_vector_shapes(void** state) {
  (void)state;
  enum { GROUPS = 3, TILES = GROUPS * 32 };
  static const char file[] = "../../tests/kernels/vector_shapes.loom";
  diff_case_t s = {.file = file, .kernel = "shapes", .workload = {GROUPS},
                   .workload_count = 1};
  add_scalar(&s, GROUPS);
  add_scalar(&s, 0x4100); /* 2.5 in f16 */
  fill_half(add_buffer(&s, TILES * 32 * 2), TILES * 32, 51, false);
  add_buffer(&s, TILES * 32 * 2);
  add_buffer(&s, TILES * 4);
  add_buffer(&s, TILES * 8 * 2);
  run_case(&s);
  diff_case_t i = {.file = file, .kernel = "index_lanes",
                   .workload = {GROUPS}, .workload_count = 1};
  add_scalar(&i, GROUPS);
  add_buffer(&i, TILES * 3 * 4);
  run_case(&i);
  diff_case_t b = {.file = file, .kernel = "bits", .workload = {GROUPS},
                   .workload_count = 1};
  add_scalar(&b, GROUPS);
  fill_bytes(add_buffer(&b, TILES * 8), TILES * 8, 52);
  fill_bytes(add_buffer(&b, TILES * 8 * 4), TILES * 8 * 4, 53);
  add_buffer(&b, TILES * 4);
  add_buffer(&b, TILES * 3);
  for (int k = 0; k < 3; ++k) add_buffer(&b, TILES * 8 * 4);
  run_case(&b);
}

/* tests/kernels/dynamic_vectors.loom: rows of run-time length (1 to 64)
 * as vector<[%n]xf32>, loaded, scaled, offset by an iota, clamped at zero
 * by a compare and select, stored, reduced and extracted; prefixes of a
 * launch-wide length as vector<[%n]xi32> (tests/loom/test_language_dynvec.c
 * holds the C references). */
static void test_dynamic_vectors(void** state) {
  (void)state;
  enum { GROUPS = 2, ROWS = GROUPS * 32, COLS = 64 };
  diff_case_t c = {.file = "../../tests/kernels/dynamic_vectors.loom",
                   .kernel = "rows", .workload = {GROUPS},
                   .workload_count = 1};
  add_scalar(&c, GROUPS);
  add_scalar(&c, COLS);
  add_f32(&c, 0.75f);
  fill_f32(add_buffer(&c, ROWS * COLS * 4), ROWS * COLS, 71);
  uint8_t* lens = add_buffer(&c, ROWS * 4);
  for (uint32_t g = 0; g < ROWS; ++g) {
    int32_t length = (int32_t)((g * 2654435761u >> 7) % COLS) + 1;
    if (g == 1) length = COLS;
    memcpy(lens + 4 * g, &length, 4);
  }
  memset(add_buffer(&c, ROWS * COLS * 4), 0xa5, ROWS * COLS * 4);
  add_buffer(&c, ROWS * 4);
  add_buffer(&c, ROWS * 4);
  run_case(&c);
  /* prefix: one length for the launch (uniform loads), 0 to the bound. */
  static const uint64_t lengths[] = {0, 5, 16};
  for (size_t i = 0; i < 3; ++i) {
    diff_case_t p = {.file = c.file, .kernel = "prefix",
                     .workload = {GROUPS}, .workload_count = 1};
    add_scalar(&p, GROUPS);
    add_scalar(&p, lengths[i]);
    fill_bytes(add_buffer(&p, GROUPS * 16 * 4), GROUPS * 16 * 4, 72);
    memset(add_buffer(&p, ROWS * 16 * 4), 0x5a, ROWS * 16 * 4);
    add_buffer(&p, ROWS * 4);
    run_case(&p);
  }
}

/* tests/kernels/vector_layout.loom: lanes moved by vector.shuffle,
 * vector.broadcast, vector.transpose, vector.slice and vector.interleave
 * (tests/loom/test_language_layout.c holds the C references). */
static void test_vector_layout(void** state) {
  (void)state;
  enum { GROUPS = 3, TILES = GROUPS * 32 };
  diff_case_t c = {.file = "../../tests/kernels/vector_layout.loom",
                   .kernel = "layout", .workload = {GROUPS},
                   .workload_count = 1};
  add_scalar(&c, GROUPS);
  fill_bytes(add_buffer(&c, TILES * 8 * 4), TILES * 8 * 4, 61);
  fill_bytes(add_buffer(&c, TILES * 8 * 2), TILES * 8 * 2, 62);
  fill_bytes(add_buffer(&c, TILES * 8), TILES * 8, 63);
  add_buffer(&c, TILES * 8 * 4);
  add_buffer(&c, TILES * 8 * 4);
  add_buffer(&c, TILES * 24 * 4);
  add_buffer(&c, TILES * 24 * 4);
  add_buffer(&c, TILES * 8 * 2);
  add_buffer(&c, TILES * 8);
  run_case(&c);
  diff_case_t p = {.file = c.file, .kernel = "permute",
                   .workload = {GROUPS}, .workload_count = 1};
  add_scalar(&p, GROUPS);
  fill_bytes(add_buffer(&p, TILES * 32 * 4), TILES * 32 * 4, 64);
  fill_bytes(add_buffer(&p, TILES * 24 * 2), TILES * 24 * 2, 65);
  fill_bytes(add_buffer(&p, TILES * 8), TILES * 8, 66);
  add_buffer(&p, TILES * 32 * 4);
  add_buffer(&p, TILES * 10 * 4);
  add_buffer(&p, TILES * 24 * 2);
  add_buffer(&p, TILES * 4);
  add_buffer(&p, TILES * 64 * 4);
  add_buffer(&p, TILES * 16);
  run_case(&p);
}

/* tests/kernels/vector_regroup.loom: vectors joined by vector.concat,
 * split by vector.deinterleave, reinterpreted by vector.bitcast, and a
 * vector.poison whose lanes are zero
 * (tests/loom/test_language_regroup.c holds the C references). */
static void test_vector_regroup(void** state) {
  (void)state;
  enum { GROUPS = 3, TILES = GROUPS * 32 };
  diff_case_t c = {.file = "../../tests/kernels/vector_regroup.loom",
                   .kernel = "regroup", .workload = {GROUPS},
                   .workload_count = 1};
  add_scalar(&c, GROUPS);
  fill_bytes(add_buffer(&c, TILES * 12 * 4), TILES * 12 * 4, 71);
  fill_bytes(add_buffer(&c, TILES * 8 * 2), TILES * 8 * 2, 72);
  fill_bytes(add_buffer(&c, TILES * 16), TILES * 16, 73);
  add_buffer(&c, TILES * 8 * 4);
  add_buffer(&c, TILES * 12 * 4);
  add_buffer(&c, TILES * 8 * 2);
  add_buffer(&c, TILES * 16);
  /* Both sides must write the poison lanes (zero) over these bytes. */
  fill_bytes(add_buffer(&c, TILES * 4 * 4), TILES * 4 * 4, 74);
  add_buffer(&c, TILES * 16);
  add_buffer(&c, TILES * 4 * 4);
  add_buffer(&c, TILES * 4 * 4);
  add_buffer(&c, TILES * 8 * 2);
  run_case(&c);
  diff_case_t r = {.file = c.file, .kernel = "reduce_axes",
                   .workload = {GROUPS}, .workload_count = 1};
  add_scalar(&r, GROUPS);
  /* Multiples of 1/8: exact sums, the same on both sides. */
  float* floats = (float*)add_buffer(&r, TILES * 24 * 4);
  for (int i = 0; i < TILES * 24; ++i) floats[i] = (float)(i * 37 % 201) / 8;
  fill_bytes(add_buffer(&r, TILES * 24 * 4), TILES * 24 * 4, 75);
  add_buffer(&r, TILES * 6 * 4);
  add_buffer(&r, TILES * 3 * 4);
  add_buffer(&r, TILES * 4);
  add_buffer(&r, TILES * 8 * 4);
  run_case(&r);
}

/* tests/kernels/vector_masked.loom: masked loads and stores, the tail
 * buffers exactly as long as the limit so that a lane that should be off
 * and is not faults (tests/loom/test_language_vmem.c holds the C
 * references). */
static void test_vector_masked(void** state) {
  (void)state;
  enum { GROUPS = 3, TILES = GROUPS * 32, LIMIT = TILES * 8 - 5 };
  diff_case_t c = {.file = "../../tests/kernels/vector_masked.loom",
                   .kernel = "masked", .workload = {GROUPS},
                   .workload_count = 1};
  add_scalar(&c, GROUPS);
  add_scalar(&c, LIMIT);
  fill_bytes(add_buffer(&c, TILES * 8 * 4), TILES * 8 * 4, 81);
  fill_bytes(add_buffer(&c, TILES * 8 * 4), TILES * 8 * 4, 82);
  add_buffer(&c, TILES * 8 * 4);
  /* Lanes stored under a false mask keep these bytes. */
  fill_bytes(add_buffer(&c, TILES * 8 * 4), TILES * 8 * 4, 83);
  add_buffer(&c, TILES * 8 * 4);
  fill_bytes(add_buffer(&c, LIMIT * 4), LIMIT * 4, 84);
  add_buffer(&c, LIMIT * 4);
  /* Offsets -4..3 from column 4, in an order that differs per tile. */
  int32_t* order = (int32_t*)add_buffer(&c, TILES * 8 * 4);
  for (int g = 0; g < TILES; ++g) {
    for (int k = 0; k < 8; ++k) order[g * 8 + k] = (k * 3 + g) % 8 - 4;
  }
  add_buffer(&c, TILES * 8 * 4);
  add_buffer(&c, TILES * 8 * 4);
  /* Elements past the compressed lanes keep these bytes. */
  fill_bytes(add_buffer(&c, TILES * 8 * 4), TILES * 8 * 4, 85);
  add_buffer(&c, TILES * 8 * 4);
  run_case(&c);
}

/* tests/kernels/packed_dots.loom: vector.dot2f (f16, bf16), dot8i4 and
 * dot4f8 in every kind (tests/loom/test_language_dot.c holds the C
 * references). Exponent bits are cleared to keep every source finite,
 * as NaN payloads differ between the devices. */
static void test_packed_dots(void** state) {
  (void)state;
  enum { GROUPS = 2, ITEMS = GROUPS * 32 };
  diff_case_t c = {.file = "../../tests/kernels/packed_dots.loom",
                   .kernel = "packed_dots", .workload = {GROUPS},
                   .workload_count = 1};
  add_scalar(&c, GROUPS);
  for (int b = 0; b < 3; ++b) {
    uint8_t* bytes = add_buffer(&c, ITEMS * 32);
    fill_bytes(bytes, ITEMS * 32, 70 + b);
    /* f16/bf16 bit 14, f8 bit 6 */
    for (size_t i = 0; i < ITEMS * 32; ++i) {
      bytes[i] &= b < 2 ? (i & 1 ? 0xbf : 0xff) : 0xbf;
    }
  }
  float* acc = (float*)add_buffer(&c, ITEMS * 16);
  for (size_t i = 0; i < ITEMS * 4; ++i) acc[i] = noise((uint32_t)i);
  fill_bytes(add_buffer(&c, ITEMS * 16), ITEMS * 16, 73);
  add_buffer(&c, ITEMS * 32);
  add_buffer(&c, ITEMS * 64);
  add_buffer(&c, ITEMS * 64);
  run_case(&c);
}

/* A 3-D grid of 4x3x3 workgroups (36 work-items: the second wave runs 4
 * of 32 lanes) over a w x h x d volume: out[z][y][x] =
 * fma(in[z][y][x], k, in[min(z + 1, d - 1)][y][x]) - in[z][min(y + 1,
 * h - 1)][x], and ids[z][y][x] packs the group counts, the group ids and
 * the local ids. */
static const char* const grid3d_kernel =
    "host.target<cpu> @h {subgroup_size = 32}\n"
    "kernel.def target(@h) export(\"grid3d\") @grid3d(%w: index, %h: index, "
    "%d: index) {\n"
    "  %one = index.constant 1 : index\n"
    "  %two = index.constant 2 : index\n"
    "  %tx = index.constant 4 : index\n"
    "  %ty = index.constant 3 : index\n"
    "  %rx = index.constant 3 : index\n"
    "  %wp = index.add %w, %rx : index\n"
    "  %hp = index.add %h, %two : index\n"
    "  %dp = index.add %d, %two : index\n"
    "  %gx = index.div %wp, %tx : index\n"
    "  %gy = index.div %hp, %ty : index\n"
    "  %gz = index.div %dp, %ty : index\n"
    "  kernel.launch.config workgroups(%gx, %gy, %gz) "
    "workgroup_size(%tx, %ty, %ty) : index\n"
    "} launch(%w: index, %h: index, %d: index, %k: f32, %in: buffer, "
    "%out: buffer, %ids: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %one = index.constant 1 : index\n"
    "  %c4 = index.constant 4 : index\n"
    "  %c16 = index.constant 16 : index\n"
    "  %lx = kernel.workitem.id<x> : index\n"
    "  %ly = kernel.workitem.id<y> : index\n"
    "  %lz = kernel.workitem.id<z> : index\n"
    "  %bx = kernel.workgroup.id<x> : index\n"
    "  %by = kernel.workgroup.id<y> : index\n"
    "  %bz = kernel.workgroup.id<z> : index\n"
    "  %sx = kernel.workgroup.size<x> : index\n"
    "  %sy = kernel.workgroup.size<y> : index\n"
    "  %sz = kernel.workgroup.size<z> : index\n"
    "  %cx = kernel.workgroup.count<x> : index\n"
    "  %cz = kernel.workgroup.count<z> : index\n"
    "  %x = index.madd %bx, %sx, %lx : index\n"
    "  %y = index.madd %by, %sy, %ly : index\n"
    "  %z = index.madd %bz, %sz, %lz : index\n"
    "  %iv = buffer.view %in[%o] : buffer -> view<[%d]x[%h]x[%w]xf32>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<[%d]x[%h]x[%w]xf32>\n"
    "  %dv = buffer.view %ids[%o] : buffer -> view<[%d]x[%h]x[%w]xi32>\n"
    "  %x_ok = index.cmp ult, %x, %w : index\n"
    "  %y_ok = index.cmp ult, %y, %h : index\n"
    "  %z_ok = index.cmp ult, %z, %d : index\n"
    "  scf.if %x_ok {\n"
    "    scf.if %y_ok {\n"
    "      scf.if %z_ok {\n"
    "        %zl = index.sub %d, %one : index\n"
    "        %z1 = index.add %z, %one : index\n"
    "        %zn = index.min %z1, %zl : index\n"
    "        %yl = index.sub %h, %one : index\n"
    "        %y1 = index.add %y, %one : index\n"
    "        %yn = index.min %y1, %yl : index\n"
    "        %a = view.load %iv[%z, %y, %x] : "
    "view<[%d]x[%h]x[%w]xf32> -> f32\n"
    "        %b = view.load %iv[%zn, %y, %x] : "
    "view<[%d]x[%h]x[%w]xf32> -> f32\n"
    "        %c = view.load %iv[%z, %yn, %x] : "
    "view<[%d]x[%h]x[%w]xf32> -> f32\n"
    "        %s = scalar.fmaf %a, %k, %b : f32\n"
    "        %r = scalar.subf %s, %c : f32\n"
    "        view.store %r, %ov[%z, %y, %x] : f32, "
    "view<[%d]x[%h]x[%w]xf32>\n"
    "        %p0 = index.madd %cz, %c16, %cx : index\n"
    "        %p1 = index.madd %p0, %c16, %bz : index\n"
    "        %p2 = index.madd %p1, %c16, %by : index\n"
    "        %p3 = index.madd %p2, %c16, %bx : index\n"
    "        %p4 = index.madd %p3, %c4, %lz : index\n"
    "        %p5 = index.madd %p4, %c4, %ly : index\n"
    "        %p6 = index.madd %p5, %c4, %lx : index\n"
    "        %code = index.cast %p6 : index to i32\n"
    "        view.store %code, %dv[%z, %y, %x] : i32, "
    "view<[%d]x[%h]x[%w]xi32>\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  kernel.return\n"
    "}\n";

static void grid3d_case(uint64_t w, uint64_t h, uint64_t d) {
  diff_case_t c = inline_case("grid3d.loom", grid3d_kernel, "grid3d");
  c.workload[0] = w;
  c.workload[1] = h;
  c.workload[2] = d;
  c.workload_count = 3;
  add_scalar(&c, w);
  add_scalar(&c, h);
  add_scalar(&c, d);
  add_f32(&c, -1.625f);
  size_t cells = w * h * d;
  fill_f32(add_buffer(&c, cells * 4), cells, 41);
  memset(add_buffer(&c, cells * 4), 0xa5, cells * 4);
  memset(add_buffer(&c, cells * 4), 0x5a, cells * 4);
  run_case(&c);
}

static void test_grid3d(void** state) {
  (void)state;
  static const uint64_t sizes[][3] = {
      {1, 1, 1}, {4, 3, 3}, {5, 4, 7}, {9, 5, 4}, {17, 2, 10}};
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s) {
    grid3d_case(sizes[s][0], sizes[s][1], sizes[s][2]);
  }
}

/* A 1-D kernel over n (x, y) pairs with 64-item workgroups (n not a
 * multiple): out[i] = {|ops|}, three results per pair. */
#define PAIR_KERNEL(name, ops)                                               \
  "host.target<cpu> @h {subgroup_size = 32}\n"                              \
  "kernel.def target(@h) export(\"" name "\") @" name "(%n: index) {\n"     \
  "  %one = index.constant 1 : index\n"                                     \
  "  %t = index.constant 64 : index\n"                                      \
  "  %r = index.constant 63 : index\n"                                      \
  "  %np = index.add %n, %r : index\n"                                      \
  "  %g = index.div %np, %t : index\n"                                      \
  "  kernel.launch.config workgroups(%g, %one, %one) "                      \
  "workgroup_size(%t, %one, %one) : index\n"                                \
  "} launch(%n: index, %in: buffer, %out: buffer) {\n"                      \
  "  %o = index.constant 0 : offset\n"                                      \
  "  %id = kernel.workitem.id<x> : index\n"                                 \
  "  %wg = kernel.workgroup.id<x> : index\n"                                \
  "  %sz = kernel.workgroup.size<x> : index\n"                              \
  "  %i = index.madd %wg, %sz, %id : index\n"                               \
  "  %ok = index.cmp ult, %i, %n : index\n"                                 \
  "  %iv = buffer.view %in[%o] : buffer -> view<[%n]x2xf32>\n"              \
  "  %ov = buffer.view %out[%o] : buffer -> view<[%n]x3xf32>\n"             \
  "  scf.if %ok {\n"                                                        \
  "    %x = view.load %iv[%i, 0] : view<[%n]x2xf32> -> f32\n"               \
  "    %y = view.load %iv[%i, 1] : view<[%n]x2xf32> -> f32\n"               \
  "    %ax = scalar.absf %x : f32\n" ops                                    \
  "    view.store %r0, %ov[%i, 0] : f32, view<[%n]x3xf32>\n"                \
  "    view.store %r1, %ov[%i, 1] : f32, view<[%n]x3xf32>\n"                \
  "    view.store %r2, %ov[%i, 2] : f32, view<[%n]x3xf32>\n"                \
  "  }\n"                                                                   \
  "  kernel.return\n"                                                       \
  "}\n"

/* sqrt|x|, rsqrt|x|, x / y. */
static const char* const roots_kernel = PAIR_KERNEL(
    "roots",
    "    %r0 = scalar.sqrtf %ax : f32\n"
    "    %r1 = scalar.rsqrtf %ax : f32\n"
    "    %r2 = scalar.divf %x, %y : f32\n");

/* exp x, log|x|, tanh x. */
static const char* const exp_log_kernel = PAIR_KERNEL(
    "exp_log",
    "    %r0 = scalar.expf %x : f32\n"
    "    %r1 = scalar.logf %ax : f32\n"
    "    %r2 = scalar.tanhf %x : f32\n");

/* signf x, remf(x, y), and the class tests and signi of x's bits in one
 * exact number: isnanf + 2 isinff + 4 isfinitef + 8 signi(bits). */
static const char* const float_tests_kernel = PAIR_KERNEL(
    "float_tests",
    "    %r0 = scalar.signf %x : f32\n"
    "    %r1 = scalar.remf %x, %y : f32\n"
    "    %c1 = scalar.constant 1.0 : f32\n"
    "    %c0 = scalar.constant 0.0 : f32\n"
    "    %c2 = scalar.constant 2.0 : f32\n"
    "    %c4 = scalar.constant 4.0 : f32\n"
    "    %c8 = scalar.constant 8.0 : f32\n"
    "    %tn = scalar.isnanf %x : f32\n"
    "    %ti = scalar.isinff %x : f32\n"
    "    %tf = scalar.isfinitef %x : f32\n"
    "    %fn = scf.select %tn, %c1, %c0 : f32\n"
    "    %fi = scf.select %ti, %c2, %c0 : f32\n"
    "    %ff = scf.select %tf, %c4, %c0 : f32\n"
    "    %bits = scalar.bitcast %x : f32 to i32\n"
    "    %sb = scalar.signi %bits : i32\n"
    "    %sf = scalar.sitofp %sb : i32 to f32\n"
    "    %s8 = scalar.mulf %sf, %c8 : f32\n"
    "    %a1 = scalar.addf %fn, %fi : f32\n"
    "    %a2 = scalar.addf %a1, %ff : f32\n"
    "    %r2 = scalar.addf %a2, %s8 : f32\n");

/* log2|x|, log10|x|, log2 x (NaN for negative x). */
static const char* const logs_kernel = PAIR_KERNEL(
    "logs",
    "    %r0 = scalar.log2f %ax : f32\n"
    "    %r1 = scalar.log10f %ax : f32\n"
    "    %r2 = scalar.log2f %x : f32\n");

/* math_formulas.c's functions, three per kernel: tan of x / (|x| / 4096
 * + 1) in (-4096, 4096) (its f32 reduction's range), asin and acos of
 * y / (|y| + 1) in (-1, 1). */
static const char* const formulas_a_kernel = PAIR_KERNEL(
    "formulas_a",
    "    %r0 = scalar.expm1f %x : f32\n"
    "    %r1 = scalar.log1pf %x : f32\n"
    "    %r2 = scalar.sinhf %x : f32\n");
static const char* const formulas_b_kernel = PAIR_KERNEL(
    "formulas_b",
    "    %c = scalar.constant 0.000244140625 : f32\n"
    "    %one = scalar.constant 1.0 : f32\n"
    "    %s = scalar.fmaf %ax, %c, %one : f32\n"
    "    %t = scalar.divf %x, %s : f32\n"
    "    %r0 = scalar.coshf %x : f32\n"
    "    %r1 = scalar.tanf %t : f32\n"
    "    %r2 = scalar.atanf %x : f32\n");
static const char* const formulas_c_kernel = PAIR_KERNEL(
    "formulas_c",
    "    %one = scalar.constant 1.0 : f32\n"
    "    %ay = scalar.absf %y : f32\n"
    "    %d = scalar.addf %ay, %one : f32\n"
    "    %u = scalar.divf %y, %d : f32\n"
    "    %r0 = scalar.atan2f %x, %y : f32\n"
    "    %r1 = scalar.asinf %u : f32\n"
    "    %r2 = scalar.acosf %u : f32\n");
static const char* const formulas_d_kernel = PAIR_KERNEL(
    "formulas_d",
    "    %r0 = scalar.cbrtf %x : f32\n"
    "    %r1 = scalar.logisticf %x : f32\n"
    "    %r2 = scalar.softplusf %x : f32\n");
static const tolerance_t formulas_a_columns = {
    3, {&bound_expm1, &bound_log1p, &bound_sinh}};
static const tolerance_t formulas_b_columns = {
    3, {&bound_cosh, &bound_tan, &bound_atan}};
static const tolerance_t formulas_c_columns = {
    3, {&bound_atan2, &bound_asin, &bound_acos}};
static const tolerance_t formulas_d_columns = {
    3, {&bound_cbrt, &bound_logistic, &bound_softplus}};

static const tolerance_t float_tests_columns = {3, {NULL, NULL, NULL}};

/* The vector forms on vector<2xf32> rows (x, y): each function of the
 * row, two columns each; remf and atan2f of (x, y) by (y, x); the class
 * tests as 1.0 / 0.0; tanf as in formulas_b. */
#define VECTOR_OP(op) \
  "    %o" op " = vector." op " %v : vector<2xf32>\n"
static const char* const vector_forms_kernel =
    "host.target<cpu> @h {subgroup_size = 32}\n"
    "kernel.def target(@h) export(\"vector_forms\") @vector_forms(%n: index) "
    "{\n"
    "  %one = index.constant 1 : index\n"
    "  %t = index.constant 64 : index\n"
    "  %r = index.constant 63 : index\n"
    "  %np = index.add %n, %r : index\n"
    "  %g = index.div %np, %t : index\n"
    "  kernel.launch.config workgroups(%g, %one, %one) "
    "workgroup_size(%t, %one, %one) : index\n"
    "} launch(%n: index, %in: buffer, %out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %id = kernel.workitem.id<x> : index\n"
    "  %wg = kernel.workgroup.id<x> : index\n"
    "  %sz = kernel.workgroup.size<x> : index\n"
    "  %i = index.madd %wg, %sz, %id : index\n"
    "  %ok = index.cmp ult, %i, %n : index\n"
    "  %iv = buffer.view %in[%o] : buffer -> view<[%n]x2xf32>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<[%n]x19x2xf32>\n"
    "  scf.if %ok {\n"
    "    %v = vector.load %iv[%i, 0] : view<[%n]x2xf32> -> vector<2xf32>\n"
    "    %w = vector.shuffle<[1, 0]> %v : vector<2xf32>\n"
    "    %f1 = scalar.constant 1.0 : f32\n"
    "    %f0 = scalar.constant 0.0 : f32\n"
    "    %ones = vector.splat %f1 : vector<2xf32>\n"
    "    %zeros = vector.splat %f0 : vector<2xf32>\n"
    "    %mn = vector.isnanf %v : vector<2xf32> -> vector<2xi1>\n"
    "    %oisnanf = vector.select %mn, %ones, %zeros : vector<2xf32>\n"
    "    %mi = vector.isinff %v : vector<2xf32> -> vector<2xi1>\n"
    "    %oisinff = vector.select %mi, %ones, %zeros : vector<2xf32>\n"
    "    %mf = vector.isfinitef %v : vector<2xf32> -> vector<2xi1>\n"
    "    %oisfinitef = vector.select %mf, %ones, %zeros : vector<2xf32>\n"
    "    %oremf = vector.remf %v, %w : vector<2xf32>\n"
    "    %oatan2f = vector.atan2f %v, %w : vector<2xf32>\n"
    "    %av = vector.absf %v : vector<2xf32>\n"
    "    %k = scalar.constant 0.000244140625 : f32\n"
    "    %kv = vector.splat %k : vector<2xf32>\n"
    "    %d = vector.fmaf %av, %kv, %ones : vector<2xf32>\n"
    "    %tv = vector.divf %v, %d : vector<2xf32>\n"
    "    %otanf = vector.tanf %tv : vector<2xf32>\n"
    VECTOR_OP("signf") VECTOR_OP("log2f") VECTOR_OP("log10f")
    VECTOR_OP("expm1f") VECTOR_OP("log1pf") VECTOR_OP("sinhf")
    VECTOR_OP("coshf") VECTOR_OP("atanf") VECTOR_OP("asinf")
    VECTOR_OP("acosf") VECTOR_OP("cbrtf") VECTOR_OP("logisticf")
    VECTOR_OP("softplusf")
    "    vector.store %oisnanf, %ov[%i, 0, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %oisinff, %ov[%i, 1, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %oisfinitef, %ov[%i, 2, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %osignf, %ov[%i, 3, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %oremf, %ov[%i, 4, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %olog2f, %ov[%i, 5, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %olog10f, %ov[%i, 6, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %oexpm1f, %ov[%i, 7, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %olog1pf, %ov[%i, 8, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %osinhf, %ov[%i, 9, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %ocoshf, %ov[%i, 10, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %otanf, %ov[%i, 11, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %oatanf, %ov[%i, 12, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %oatan2f, %ov[%i, 13, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %oasinf, %ov[%i, 14, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %oacosf, %ov[%i, 15, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %ocbrtf, %ov[%i, 16, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %ologisticf, %ov[%i, 17, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "    vector.store %osoftplusf, %ov[%i, 18, 0] : vector<2xf32>, "
    "view<[%n]x19x2xf32>\n"
    "  }\n"
    "  kernel.return\n"
    "}\n";
#undef VECTOR_OP

static const tolerance_t vector_forms_columns = {
    38,
    {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     &bound_log2, &bound_log2, &bound_log10, &bound_log10, &bound_expm1,
     &bound_expm1, &bound_log1p, &bound_log1p, &bound_sinh, &bound_sinh,
     &bound_cosh, &bound_cosh, &bound_tan, &bound_tan, &bound_atan,
     &bound_atan, &bound_atan2, &bound_atan2, &bound_asin, &bound_asin,
     &bound_acos, &bound_acos, &bound_cbrt, &bound_cbrt, &bound_logistic,
     &bound_logistic, &bound_softplus, &bound_softplus}};
static const tolerance_t logs_columns = {
    3, {&bound_log2, &bound_log10, &bound_log2}};

static const tolerance_t roots_columns = {
    3, {&bound_sqrt, &bound_rsqrt, &bound_div}};
static const tolerance_t exp_log_columns = {
    3, {&bound_exp, &bound_log, &bound_tanh}};

/* Inputs: the special pairs first (zeros, denormals, extremes, infinities,
 * NaN, the edges of exp's range, tanh's saturation and its small
 * arguments), then noise over 41 binades. */
static void pair_case(const char* label, const char* text,
                      const char* kernel, const tolerance_t* columns,
                      uint64_t n) {
  static const float specials[][2] = {
      {0.0f, 0.0f},          {-0.0f, -0.0f},       {1.0f, 3.0f},
      {-1.0f, -3.0f},        {0.5f, 7.0f},         {2.0f, 0.1f},
      {1e-3f, 1e-3f},        {-1e-3f, 3e-39f},     {1e-40f, 1e-40f},
      {-1e-40f, 2.0f},       {FLT_MIN, 0.75f},     {FLT_MAX, 0.5f},
      {-FLT_MAX, 2.0f},      {INFINITY, 1.0f},     {-INFINITY, 5.0f},
      {NAN, 1.0f},           {1.0f, INFINITY},     {88.7f, 1e30f},
      {89.0f, -1e-30f},      {-87.3f, 1e38f},      {-103.0f, 3.0f},
      {-110.0f, 7.0f},       {10.0f, 1e-38f},      {-10.0f, 9.0f},
      {1e30f, 1e-10f},       {1e-30f, 1e10f},      {0.54f, 11.0f},
      {-0.3f, 13.0f},        {1.0000001f, 0.9999999f},
      {0.9999999f, 17.0f},   {4e-5f, -4e-5f},
      /* remf's wide exponent gaps, and quotients that overflow to
       * infinity (even after v_div_scale's 2^64) */
      {FLT_MAX, 1.5f},       {-3.0e38f, 7.0f},     {16777215.0f, 3e-31f},
      {1e-40f, 3e-45f},      {FLT_MAX, 1e-45f},    {-3.0e38f, 2.5e-37f},
      {-FLT_MAX, 0.25f},     {-FLT_MAX, 1e-30f},
      /* quotients that underflow to denormals, to zero by rounding, and
       * to zero by exponents more than 150 apart */
      {1.0f, FLT_MAX},       {1.0f, -3.0e38f},     {FLT_MIN, 3.0f},
      {3e-45f, -2.0f},       {1e-45f, 2.0f},       {-1e-38f, 1e30f},
      {1e-30f, 3e38f},
  };
  const size_t special_count = sizeof(specials) / sizeof(specials[0]);
  diff_case_t c = inline_case(label, text, kernel);
  c.workload[0] = n;
  c.workload_count = 1;
  add_scalar(&c, n);
  uint8_t* in = add_buffer(&c, n * 8);
  for (uint64_t i = 0; i < n; ++i) {
    float pair[2];
    if (i < special_count) {
      memcpy(pair, specials[i], 8);
    } else {
      int scale = (int)(i % 41) - 20;
      pair[0] = ldexpf(noise((uint32_t)i + 51), scale);
      pair[1] = ldexpf(noise((uint32_t)i + 52), 20 - scale);
    }
    memcpy(in + 8 * i, pair, 8);
  }
  add_buffer(&c, n * columns->columns * 4);
  c.tolerance[1] = columns;
  run_case(&c);
}

static void test_transcendentals(void** state) {
  (void)state;
  static const uint64_t sizes[] = {1, 1000, 31, 63, 65, 200};
  /* Under valgrind the first two sizes: every special input and a
   * partial wave, in a third of the time. */
  size_t count = test_under_valgrind() ? 2 : sizeof(sizes) / sizeof(sizes[0]);
  for (size_t s = 0; s < count; ++s) {
    pair_case("roots.loom", roots_kernel, "roots", &roots_columns, sizes[s]);
    pair_case("exp_log.loom", exp_log_kernel, "exp_log", &exp_log_columns,
              sizes[s]);
    pair_case("float_tests.loom", float_tests_kernel, "float_tests",
              &float_tests_columns, sizes[s]);
    pair_case("logs.loom", logs_kernel, "logs", &logs_columns, sizes[s]);
    pair_case("formulas_a.loom", formulas_a_kernel, "formulas_a",
              &formulas_a_columns, sizes[s]);
    pair_case("formulas_b.loom", formulas_b_kernel, "formulas_b",
              &formulas_b_columns, sizes[s]);
    pair_case("formulas_c.loom", formulas_c_kernel, "formulas_c",
              &formulas_c_columns, sizes[s]);
    pair_case("formulas_d.loom", formulas_d_kernel, "formulas_d",
              &formulas_d_columns, sizes[s]);
    pair_case("vector_forms.loom", vector_forms_kernel, "vector_forms",
              &vector_forms_columns, sizes[s]);
  }
  for (size_t i = 0; i < sizeof(seen) / sizeof(seen[0]) && seen[i].bound;
       ++i) {
    const op_seen_t* o = &seen[i];
    if (o->bound->small > 0) {
      print_message("%-14s %5zu values: at most %u ULP apart (bound %u), "
                    "%a apart below %g (bound %a)\n",
                    o->bound->op, o->values, o->max_ulp, o->bound->ulp,
                    o->max_abs, o->bound->small, o->bound->abs);
    } else {
      print_message("%-14s %5zu values: at most %u ULP apart (bound %u)\n",
                    o->bound->op, o->values, o->max_ulp, o->bound->ulp);
    }
  }
}

/* 48 work-items put their ids in workgroup memory and read their
 * mirror's after the barrier: out[i] = 47 - i. LLVM addresses the read
 * as ds_load_b32 (-4 * i) offset:188, relying on the 32-bit wrap of the
 * LDS address. */
static const char* const lds_mirror_kernel =
    "host.target<cpu> @h {subgroup_size = 32}\n"
    "kernel.def target(@h) export(\"lds_mirror\") @lds_mirror() {\n"
    "  %one = index.constant 1 : index\n"
    "  %t = index.constant 48 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%t, %one, %one) : index\n"
    "} launch(%out: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %id = kernel.workitem.id<x> : index\n"
    "  %c47 = index.constant 47 : index\n"
    "  %bytes = index.constant 192 : offset\n"
    "  %scratch = buffer.alloca<workgroup> align(16) %bytes : buffer\n"
    "  %lds = buffer.view %scratch[%o] : buffer -> view<48xi32>\n"
    "  %ov = buffer.view %out[%o] : buffer -> view<48xi32>\n"
    "  %v = index.cast %id : index to i32\n"
    "  view.store %v, %lds[%id] : i32, view<48xi32>\n"
    "  kernel.barrier<workgroup> scope(workgroup) ordering(acq_rel)\n"
    "  %m = index.sub %c47, %id : index\n"
    "  %x = view.load %lds[%m] : view<48xi32> -> i32\n"
    "  view.store %x, %ov[%id] : i32, view<48xi32>\n"
    "  kernel.return\n"
    "}\n";

static void test_lds_mirror(void** state) {
  (void)state;
  diff_case_t c = inline_case("lds_mirror.loom", lds_mirror_kernel,
                              "lds_mirror");
  fill_bytes(add_buffer(&c, 48 * 4), 48 * 4, 9);
  run_case(&c);
}

/* Private memory (tests/common/corpus_kernels.c): three private arrays
 * per work-item written in permuted order and read back (on gfx1151
 * scratch stores of 8, 16 and 32 bits, loads of 8, 16, 32 and 128), seeds
 * from noise; 3 groups of 40, the second wave of each partial. */
static void test_private_permute(void** state) {
  (void)state;
  diff_case_t c = inline_case("private.loom", corpus_private_kernel,
                              "private_permute");
  enum { GROUPS = 3, CELLS = GROUPS * 40 };
  add_scalar(&c, GROUPS);
  uint32_t* seeds = (uint32_t*)add_buffer(&c, CELLS * 4);
  fill_bytes((uint8_t*)seeds, CELLS * 4, 21);
  for (size_t i = 0; i < CELLS; ++i) seeds[i] &= 0xFFFFu;
  add_buffer(&c, CELLS * 16);
  c.workload[0] = GROUPS;
  c.workload_count = 1;
  run_case(&c);
}

/*===------------------------------------------------------------------===*/
/* Kernels not run                                                          */
/*===------------------------------------------------------------------===*/

/* A corpus kernel (or runs of one) this suite does not run. With |text|,
 * the amdgpu backend refuses it: compiling it for gfx1151 must still fail
 * with |code| and |diagnostic|, or the entry is stale. */
typedef struct skip_t {
  const char* kernel;
  const char* origin;
  const char* reason;
  const char* const* text;
  hrx_status_code_t code;
  const char* diagnostic;
} skip_t;

static const skip_t skip_table[] = {
    {"subgroup_ops", "tests/host/test_kernels.c",
     "asks for 64-lane subgroups, which the amdgpu backend refuses (it "
     "compiles wave32); run here as a wave32 variant",
     &corpus_subgroup_kernel, HRX_STATUS_INVALID_ARGUMENT,
     "compiles 32-lane subgroups; @w64 asks for 64"},
    {"neighbour without barrier", "tests/host/test_kernels.c",
     "a data race by design (the race sanitizer's fixture): what a lane "
     "reads depends on the order of the waves",
     NULL, HRX_STATUS_OK, NULL},
    {"assume with facts that do not hold", "tests/host/test_kernels.c",
     "index.assume facts are promises; unsanitized, a broken one is "
     "undefined (LLVM may fold on it), only the sanitizer defines it",
     NULL, HRX_STATUS_OK, NULL},
    {"diverge with n = 10 / one wave", "tests/host/test_kernels.c",
     "a barrier not every work-item reaches is undefined on hardware (the "
     "race sanitizer's fixture)",
     NULL, HRX_STATUS_OK, NULL},
    {"overflow past its buffer, store_folded, huge poke indices",
     "tests/host/test_kernels.c",
     "out of bounds by design: the host device faults on them",
     NULL, HRX_STATUS_OK, NULL},
    {"overflow (1 GiB past the buffer)", "tests/gpu/test_stream.c",
     "out of bounds by design: a GPU fault far past a small buffer",
     NULL, HRX_STATUS_OK, NULL},
    {"nest at depth 65 and 100, wide, wider", "tests/host/test_kernels.c",
     "the host compiler refuses them by design (mask stack, register and "
     "vector-width limits): nothing to compare",
     NULL, HRX_STATUS_OK, NULL},
};

/* The ULP measure itself, as the bounded comparisons rely on it. */
static void test_ulp_distance(void** state) {
  (void)state;
  uint32_t one = 0x3f800000u, below = 0x3f7fffffu;
  assert_int_equal(ulp_distance(one, one), 0);
  assert_int_equal(ulp_distance(one, one + 1), 1);
  assert_int_equal(ulp_distance(below, one + 1), 2);
  assert_int_equal(ulp_distance(0x80000000u, 0), 0);           /* -0, +0 */
  assert_int_equal(ulp_distance(0x80000001u, 1), 2);           /* denormals */
  assert_int_equal(ulp_distance(0x7f7fffffu, 0x7f800000u), 1); /* to inf */
  assert_int_equal(ulp_distance(0x7fc00000u, 0xffc00000u), 0); /* NaNs */
  assert_int_equal(ulp_distance(0x7fc00000u, one), UINT32_MAX);
  assert_int_equal(ulp_distance(0xff800000u, 0x7f800000u), 0xff000000u);
}

static void test_skip_table(void** state) {
  (void)state;
  for (size_t i = 0; i < sizeof(skip_table) / sizeof(skip_table[0]); ++i) {
    const skip_t* s = &skip_table[i];
    print_message("skipped: %s (%s): %s\n", s->kernel, s->origin, s->reason);
  }
  /* Those the backend refuses must still fail to compile for gfx1151. */
  for (size_t i = 0; i < sizeof(skip_table) / sizeof(skip_table[0]); ++i) {
    const skip_t* s = &skip_table[i];
    if (!s->text) continue;
    hrx_loom_artifact_t* artifact = NULL;
    char* diagnostics = NULL;
    hrx_status_t status = compile_gfx11("skipped.loom", *s->text,
                                        strlen(*s->text), NULL, &artifact,
                                        &diagnostics);
    if (status == HRX_OK || !diagnostics ||
        !strstr(diagnostics, s->diagnostic)) {
      fail_msg("%s: %s", s->kernel, diagnostics ? diagnostics : "compiled");
    }
    assert_null(artifact);
    assert_status_code(status, s->code);
    free(diagnostics);
  }
  print_message("%zu runs compared\n", runs_compared);
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
      cmocka_unit_test(test_corpus_overflow),
      cmocka_unit_test(test_corpus_subgroup_ops_wave32),
      cmocka_unit_test(test_corpus_ids),
      cmocka_unit_test(test_corpus_neighbour),
      cmocka_unit_test(test_corpus_assume),
      cmocka_unit_test(test_corpus_operations),
      cmocka_unit_test(test_corpus_vectors),
      cmocka_unit_test(test_corpus_pokes),
      cmocka_unit_test(test_corpus_diverge),
      cmocka_unit_test(test_corpus_nest),
      cmocka_unit_test(test_corpus_deep),
      cmocka_unit_test(test_corpus_extra),
      cmocka_unit_test(test_corpus_stream_store),
      cmocka_unit_test(test_corpus_spin),
      cmocka_unit_test(test_private_permute),
      cmocka_unit_test(test_grid2d),
      cmocka_unit_test(test_grid3d),
      cmocka_unit_test(test_transcendentals),
      cmocka_unit_test(test_lds_mirror),
      cmocka_unit_test(test_wmma),
      cmocka_unit_test(test_wmma_types),
      cmocka_unit_test(test_f8),
      cmocka_unit_test(test_vector_shapes),
      cmocka_unit_test(test_vector_layout),
      cmocka_unit_test(test_packed_dots),
      cmocka_unit_test(test_dynamic_vectors),
      cmocka_unit_test(test_vector_regroup),
      cmocka_unit_test(test_vector_masked),
      cmocka_unit_test(test_ulp_distance),
      cmocka_unit_test(test_skip_table),
  };
  return cmocka_run_group_tests(tests, NULL, free_compiled);
}
