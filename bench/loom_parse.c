/* bench/loom_parse: Loom parse + verify throughput on a generated module,
 * with jansson parsing a JSON document of the same size in the same run as
 * the peer (a mature C text parser doing comparable tokenising work). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hrx/loom.h"

static void append_kernel(hrx_string_builder_t* b, int index, int chain) {
  hrx_status_free(hrx_string_builder_appendf(
      b,
      "kernel.def target(@t) export(\"k%d\") @k%d(%%n: index) {\n"
      "  %%one = index.constant 1 : index\n"
      "  %%threads = index.constant 256 : index\n"
      "  %%round = index.sub %%threads, %%one : index\n"
      "  %%padded = index.add %%n, %%round : index\n"
      "  %%groups = index.div %%padded, %%threads : index\n"
      "  kernel.launch.config workgroups(%%groups, %%one, %%one) "
      "workgroup_size(%%threads, %%one, %%one) : index\n"
      "} launch(%%n: index, %%a: f32, %%x: buffer, %%y: buffer) {\n"
      "  %%g = kernel.workgroup.id<x> : index\n"
      "  %%l = kernel.workitem.id<x> : index\n"
      "  %%s = kernel.workgroup.size<x> : index\n"
      "  %%i = index.madd %%g, %%s, %%l : index\n"
      "  %%o = index.constant 0 : offset\n"
      "  %%xv = buffer.view %%x[%%o] : buffer -> view<[%%n]xf32>\n"
      "  %%yv = buffer.view %%y[%%o] : buffer -> view<[%%n]xf32>\n"
      "  %%in = index.cmp ult, %%i, %%n : index\n"
      "  scf.if %%in {\n"
      "    %%v0 = view.load %%xv[%%i] : view<[%%n]xf32> -> f32\n",
      index, index));
  for (int c = 1; c <= chain; ++c) {
    hrx_status_free(hrx_string_builder_appendf(
        b, "    %%v%d = scalar.fmaf %%a, %%v%d, %%v%d : f32\n", c, c - 1,
        c - 1));
  }
  hrx_status_free(hrx_string_builder_appendf(
      b,
      "    view.store %%v%d, %%yv[%%i] : f32, view<[%%n]xf32>\n"
      "  }\n"
      "  kernel.return\n"
      "}\n",
      chain));
}

typedef struct loom_ctx_t {
  const char* text;
  size_t length;
} loom_ctx_t;

static void run_loom(void* context) {
  loom_ctx_t* c = context;
  hrx_loom_module_t* module = NULL;
  hrx_status_t status = hrx_loom_module_parse(
      c->text, c->length, NULL, NULL, hrx_allocator_system(), &module);
  if (status != HRX_OK) {
    char text[512];
    hrx_status_format(status, text, sizeof(text));
    fprintf(stderr, "loom_parse: %s\n", text);
    exit(1);
  }
  hrx_loom_module_destroy(module);
}

static void run_jansson(void* context) {
  loom_ctx_t* c = context;
  json_error_t error;
  json_t* root = json_loadb(c->text, c->length, 0, &error);
  if (!root) {
    fprintf(stderr, "jansson: %s\n", error.text);
    exit(1);
  }
  json_decref(root);
}

int main(int argc, char** argv) {
  /* A module holds at most 1024 kernels (one code object). */
  int kernels = argc > 1 ? atoi(argv[1]) : 1000;
  int repeats = argc > 2 ? atoi(argv[2]) : 7;
  hrx_string_builder_t loom;
  hrx_string_builder_init(hrx_allocator_system(), &loom);
  hrx_status_free(hrx_string_builder_append_cstr(
      &loom, "amdgpu.target<gfx11-generic> @t {subgroup_size = 32}\n"));
  for (int k = 0; k < kernels; ++k) append_kernel(&loom, k, 24);
  size_t lines = 0;
  for (size_t i = 0; i < loom.length; ++i) lines += loom.data[i] == '\n';

  /* A JSON document of about the same size: an array of op records. */
  hrx_string_builder_t json;
  hrx_string_builder_init(hrx_allocator_system(), &json);
  hrx_status_free(hrx_string_builder_append_cstr(&json, "["));
  for (int i = 0; json.length < loom.length; ++i) {
    hrx_status_free(hrx_string_builder_appendf(
        &json,
        "%s{\"result\":\"%%v%d\",\"op\":\"scalar.fmaf\",\"operands\":"
        "[\"%%a\",\"%%v%d\"],\"type\":\"f32\",\"line\":%d}\n",
        i ? "," : "", i, i - 1, i));
  }
  hrx_status_free(hrx_string_builder_append_cstr(&json, "]"));

  loom_ctx_t loom_ctx = {loom.data, loom.length};
  loom_ctx_t json_ctx = {json.data, json.length};
  run_loom(&loom_ctx); /* warm-up and validity check */
  uint64_t loom_ns = bench_median_ns(run_loom, &loom_ctx, repeats);
  uint64_t json_ns = bench_median_ns(run_jansson, &json_ctx, repeats);
  double mb = (double)loom.length / 1e6;
  double loom_mbs = mb / ((double)loom_ns / 1e9);
  double json_mbs = ((double)json.length / 1e6) / ((double)json_ns / 1e9);
  printf("loom_parse: %d kernels, %.2f MB, %zu lines, median of %d\n",
         kernels, mb, lines, repeats);
  printf("  hrx parse+verify  %8.2f ms  %8.1f MB/s  %10.0f lines/s\n",
         (double)loom_ns / 1e6, loom_mbs,
         (double)lines / ((double)loom_ns / 1e9));
  printf("  jansson json_loadb %7.2f ms  %8.1f MB/s  (%.2f MB peer document)\n",
         (double)json_ns / 1e6, json_mbs, (double)json.length / 1e6);
  printf("  ratio hrx/jansson throughput: %.2fx\n", loom_mbs / json_mbs);
  hrx_string_builder_deinit(&json);
  hrx_string_builder_deinit(&loom);
  return 0;
}
