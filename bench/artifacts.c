/* bench/artifacts: time to open, validate and index
 *  - a 2,000-tensor safetensors file (tests/artifacts/make_safetensors.py),
 *    in both modes, with MB/s of header and of file; the peer in the same
 *    run is jansson alone parsing the same header, the JSON parse every
 *    reader must pay, so the ratio shows what validation and indexing add;
 *  - a ~50 MiB ONNX model (tests/artifacts/make_onnx.py), with MB/s of
 *    file; the peer is reading the file (the floor: hrx_onnx_open reads it
 *    whole before indexing). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hrx/artifacts.h"

typedef struct open_ctx_t {
  const char* path;
  hrx_safetensors_mode_t mode;
  const char* header;
  size_t header_length;
} open_ctx_t;

static void run_open(void* context) {
  open_ctx_t* c = context;
  hrx_safetensors_options_t options =
      HRX_STRUCT_INIT(hrx_safetensors_options_t);
  options.mode = c->mode;
  hrx_safetensors_t* v = NULL;
  bench_check(hrx_safetensors_open(c->path, &options, hrx_allocator_system(),
                                   &v),
              "open");
  hrx_safetensors_destroy(v);
}

static void run_jansson(void* context) {
  open_ctx_t* c = context;
  json_error_t error;
  json_t* root = json_loadb(c->header, c->header_length, 0, &error);
  if (!root) exit(1);
  json_decref(root);
}

typedef struct onnx_ctx_t {
  const char* path;
} onnx_ctx_t;

static void run_onnx(void* context) {
  onnx_ctx_t* c = context;
  hrx_onnx_model_t* m = NULL;
  bench_check(hrx_onnx_open(c->path, hrx_allocator_system(), &m), "onnx");
  hrx_onnx_destroy(m);
}

static void run_read(void* context) {
  onnx_ctx_t* c = context;
  void* data = NULL;
  size_t size = 0;
  bench_check(hrx_file_read_all(hrx_allocator_system(), c->path, 1u << 31,
                                &data, &size),
              "read");
  free(data);
}

static void bench_onnx(const char* path) {
  onnx_ctx_t c = {path};
  hrx_onnx_model_t* m = NULL;
  bench_check(hrx_onnx_open(path, hrx_allocator_system(), &m), "onnx");
  const hrx_onnx_model_info_t* info = hrx_onnx_info(m);
  size_t nodes = info->node_count, inits = info->initializer_count;
  hrx_onnx_destroy(m);
  FILE* file = fopen(path, "rb");
  fseek(file, 0, SEEK_END);
  double size = (double)ftell(file);
  fclose(file);
  double read = (double)bench_median_ns(run_read, &c, 11);
  double open = (double)bench_median_ns(run_onnx, &c, 11);
  printf("  ONNX %s: %zu nodes, %zu initializers, %.1f MiB (median of 11)\n",
         path, nodes, inits, size / (1 << 20));
  printf("  read the file                       %8.1f ms  %7.0f MB/s\n",
         read / 1e6, size / read * 1e3);
  printf("  open+index                          %8.1f ms  %7.0f MB/s, "
         "%.2fx the read\n",
         open / 1e6, size / open * 1e3, open / read);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: artifacts FILE.safetensors [MODEL.onnx] "
            "(see bench/meson.build)\n");
    return 2;
  }
  open_ctx_t c = {.path = argv[1]};
  void* data = NULL;
  size_t size = 0;
  bench_check(hrx_file_read_all(hrx_allocator_system(), c.path, 1u << 30,
                                &data, &size),
              "read");
  const uint8_t* bytes = data;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[i];
  c.header = (const char*)bytes + 8;
  c.header_length = (size_t)n;
  hrx_safetensors_t* v = NULL;
  bench_check(hrx_safetensors_open(c.path, NULL, hrx_allocator_system(), &v),
              "open");
  size_t tensors = hrx_safetensors_count(v);
  hrx_safetensors_destroy(v);
  double jansson = (double)bench_median_ns(run_jansson, &c, 51);
  printf("artifacts: %s, %zu tensors, header %zu bytes, file %zu bytes "
         "(median of 51)\n", c.path, tensors, c.header_length, size);
  printf("  jansson parse of the header alone   %8.1f us  %7.1f MB/s\n",
         jansson / 1e3, c.header_length / jansson * 1e3);
  for (int mode = 0; mode < 2; ++mode) {
    c.mode = (hrx_safetensors_mode_t)mode;
    double ns = (double)bench_median_ns(run_open, &c, 51);
    printf("  open+validate+index (%s)          %8.1f us  %7.1f MB/s header, "
           "%.0f MB/s file, %.2fx jansson\n",
           mode ? "read" : "map ", ns / 1e3, c.header_length / ns * 1e3,
           size / ns * 1e3, ns / jansson);
  }
  free(data);
  if (argc > 2) bench_onnx(argv[2]);
  return 0;
}
