/* bench/compile_cache: what the kernel cache saves. Times a cold compile
 * (cache disabled) against a warm cache hit, for saxpy alone and for every
 * kernel of the corpus, with PoCL's clBuildProgram of an equivalent OpenCL C
 * saxpy as the peer in the same run: its first build in a fresh
 * POCL_CACHE_DIR (cold) and a rebuild of the same source (PoCL's kernel
 * cache hit). With the amdgpu backend built, each kernel's cold gfx1151
 * compile (LLVM at O3) stands next to its cold host compile and its
 * gfx1151 cache hit. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "ocl_peer.h"
#include "hrx/loom.h"
#include "test_support.h"

#define MAX_SOURCES 32
#define REPEATS 51
#define LLVM_REPEATS 9 /* an LLVM compile takes milliseconds */

typedef struct source_t {
  char* name;
  char* text;
  size_t length;
} source_t;

typedef struct compile_ctx_t {
  hrx_loom_compiler_t* compiler;
  const source_t* sources;
  size_t count;
  bool expect_hit;
} compile_ctx_t;

static void compile_sources(void* context) {
  compile_ctx_t* c = context;
  for (size_t i = 0; i < c->count; ++i) {
    hrx_loom_compile_request_t request = {.source = c->sources[i].text,
                                          .length = c->sources[i].length,
                                          .source_name = c->sources[i].name};
    hrx_loom_artifact_t* artifact = NULL;
    bench_check(hrx_loom_compile(c->compiler, &request, NULL, &artifact),
          c->sources[i].name);
    if (hrx_loom_artifact_cache_hit(artifact) != c->expect_hit) {
      fprintf(stderr, "compile_cache: %s: cache %s unexpectedly\n",
              c->sources[i].name, c->expect_hit ? "missed" : "hit");
      exit(1);
    }
    hrx_loom_artifact_destroy(artifact);
  }
}

static hrx_loom_compiler_t* make_compiler(const char* profile,
                                          const char* cache_root,
                                          bool disable_cache) {
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.cache_root = cache_root;
  options.disable_cache = disable_cache;
  hrx_loom_compiler_t* compiler = NULL;
  bench_check(hrx_loom_compiler_create(profile, &options,
                                       hrx_allocator_system(), &compiler),
              "compiler");
  return compiler;
}

/* Loads the corpus kernels that compile without config values (the others
 * need --config and are skipped, named on stderr). */
static size_t load_corpus(const char* dir, source_t* out) {
  hrx_loom_compiler_t* trial = make_compiler("host", NULL, true);
  DIR* d = opendir(dir);
  if (!d) {
    fprintf(stderr, "compile_cache: cannot open %s\n", dir);
    exit(1);
  }
  size_t count = 0;
  for (struct dirent* e = readdir(d); e && count < MAX_SOURCES;
       e = readdir(d)) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".loom")) continue;
    char* path = test_strdup_printf("%s/%s", dir, e->d_name);
    void* data = NULL;
    bench_check(hrx_file_read_all(hrx_allocator_system(), path, 1u << 20, &data,
                            &out[count].length),
          path);
    out[count].name = path;
    out[count].text = data;
    hrx_loom_compile_request_t request = {
        .source = data, .length = out[count].length, .source_name = path};
    hrx_loom_artifact_t* artifact = NULL;
    hrx_status_t status = hrx_loom_compile(trial, &request, NULL, &artifact);
    hrx_loom_artifact_destroy(artifact);
    if (status == HRX_OK) {
      ++count;
    } else {
      fprintf(stderr, "compile_cache: skipping %s (needs config)\n", path);
      hrx_status_free(status);
      free(path);
      free(data);
    }
  }
  closedir(d);
  hrx_loom_compiler_destroy(trial);
  return count;
}

/* Returns (cold, warm) microseconds for compiling |sources| for
 * |profile|, medians of |repeats|. */
static void measure_hrx(const char* profile, const source_t* sources,
                        size_t count, int repeats, double* cold,
                        double* warm) {
  char* root = test_temp_dir_create();
  compile_ctx_t ctx = {.compiler = make_compiler(profile, NULL, true),
                       .sources = sources,
                       .count = count};
  *cold = bench_median_ns(compile_sources, &ctx, repeats) / 1e3;
  hrx_loom_compiler_destroy(ctx.compiler);

  ctx.compiler = make_compiler(profile, root, false);
  compile_sources(&ctx); /* fills the cache */
  ctx.expect_hit = true;
  *warm = bench_median_ns(compile_sources, &ctx, repeats) / 1e3;
  hrx_loom_compiler_destroy(ctx.compiler);
  test_temp_dir_remove(root);
}

static const char* pocl_saxpy =
    "__kernel void saxpy(uint n, float a, __global const float* x,\n"
    "                    __global float* y) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) y[i] = fma(a, x[i], y[i]);\n"
    "}\n";

static void pocl_build(void* context) {
  clReleaseProgram(ocl_program(context, pocl_saxpy));
}

/* Returns false when no OpenCL CPU device is present. */
static bool measure_pocl(double* cold, double* warm) {
  ocl_t o = ocl_open();
  if (!o.ok) {
    ocl_close(&o);
    return false;
  }
  uint64_t start = hrx_clock_monotonic_ns();
  pocl_build(&o); /* fresh POCL_CACHE_DIR: a real compile */
  *cold = (hrx_clock_monotonic_ns() - start) / 1e3;
  *warm = bench_median_ns(pocl_build, &o, REPEATS) / 1e3;
  ocl_close(&o);
  return true;
}

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : getenv("HRX_LOOM_KERNELS");
  if (!dir) {
    fprintf(stderr, "usage: compile_cache KERNEL_DIR (or HRX_LOOM_KERNELS)\n");
    return 2;
  }
  source_t sources[MAX_SOURCES];
  size_t count = load_corpus(dir, sources);
  size_t saxpy = count;
  for (size_t i = 0; i < count; ++i) {
    if (strstr(sources[i].name, "/saxpy.loom")) saxpy = i;
  }
  if (saxpy == count) {
    fprintf(stderr, "compile_cache: no saxpy.loom in %s\n", dir);
    return 1;
  }

  double saxpy_cold, saxpy_warm, all_cold, all_warm;
  measure_hrx("host", &sources[saxpy], 1, REPEATS, &saxpy_cold, &saxpy_warm);
  measure_hrx("host", sources, count, REPEATS, &all_cold, &all_warm);

  /* PoCL reads POCL_CACHE_DIR when its platform is first opened. */
  char* pocl_root = test_temp_dir_create();
  setenv("POCL_CACHE_DIR", pocl_root, 1);
  double pocl_cold = 0, pocl_warm = 0;
  bool have_pocl = measure_pocl(&pocl_cold, &pocl_warm);
  test_temp_dir_remove(pocl_root);

  /* Both HRX paths parse and specialise the source (the key holds the
   * canonical config), so for the host backend, whose code generation is
   * cheap, a hit costs about what a compile does; the cache pays for
   * backends whose code generation is expensive. */
  printf("compile_cache (median of %d)\n", REPEATS);
  printf("  saxpy        HRX cold %9.1f us  warm %7.1f us  cold/warm %.2f\n",
         saxpy_cold, saxpy_warm, saxpy_cold / saxpy_warm);
  printf("  corpus (%2zu)  HRX cold %9.1f us  warm %7.1f us  cold/warm %.2f\n",
         count, all_cold, all_warm, all_cold / all_warm);
  if (have_pocl) {
    printf("  saxpy        PoCL cold %8.1f us  warm %7.1f us  cold/warm %.2f\n",
           pocl_cold, pocl_warm, pocl_cold / pocl_warm);
    printf("  PoCL/HRX time: cold %.0fx, warm %.0fx\n", pocl_cold / saxpy_cold,
           pocl_warm / saxpy_warm);
  } else {
    printf("  PoCL: no OpenCL CPU device; peer not measured\n");
  }
#if HRX_BENCH_HAVE_LLVM
  printf("  per kernel (median)   host cold   gfx1151 cold   gfx1151 hit\n");
  for (size_t i = 0; i < count; ++i) {
    double host_cold, host_warm, gpu_cold, gpu_warm;
    measure_hrx("host", &sources[i], 1, REPEATS, &host_cold, &host_warm);
    measure_hrx("gfx1151", &sources[i], 1, LLVM_REPEATS, &gpu_cold,
                &gpu_warm);
    const char* base = strrchr(sources[i].name, '/');
    printf("  %-20s %8.1f us %11.1f us %10.1f us\n",
           base ? base + 1 : sources[i].name, host_cold, gpu_cold, gpu_warm);
  }
#endif
  for (size_t i = 0; i < count; ++i) {
    free(sources[i].name);
    free(sources[i].text);
  }
  return 0;
}
