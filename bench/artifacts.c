/* bench/artifacts: time to open, validate and index a 2,000-tensor
 * safetensors file (written by tests/artifacts/make_safetensors.py), in
 * both modes, printed with MB/s of header and of file. The peer in the
 * same run is jansson alone parsing the same header: the JSON parse every
 * reader must pay, so the ratio shows what validation and indexing add. */
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
  hrx_safetensors_options_t options = {.mode = c->mode};
  hrx_safetensors_t* v = NULL;
  bench_check(hrx_safetensors_open(c->path, &options, hrx_allocator_system(),
                                   &v),
              "open");
  hrx_safetensors_close(v);
}

static void run_jansson(void* context) {
  open_ctx_t* c = context;
  json_error_t error;
  json_t* root = json_loadb(c->header, c->header_length, 0, &error);
  if (!root) exit(1);
  json_decref(root);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: artifacts FILE.safetensors (see bench/meson.build)\n");
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
  hrx_safetensors_close(v);
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
  return 0;
}
