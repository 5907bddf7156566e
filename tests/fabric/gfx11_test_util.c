#include <stdlib.h>

#include "gfx11_test_util.h"
#include "test_support.h"

hrx_loom_artifact_t* gfx11_test_compile(const char* file,
                                        const char* const* config) {
  const char* dir = getenv("HRX_LOOM_KERNELS");
  assert_non_null(dir);
  char* path = test_strdup_printf("%s/%s", dir, file);
  char* text = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 20,
                              (void**)&text, &length));
  hrx_loom_config_t* values = NULL;
  assert_ok(hrx_loom_config_create(hrx_allocator_system(), &values));
  for (const char* const* v = config; v && *v; ++v) {
    assert_ok(hrx_loom_config_set_assignment(values, *v));
  }
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.disable_cache = true;
  hrx_loom_compiler_t* compiler = NULL;
  assert_ok(hrx_loom_compiler_create("gfx1151", &options,
                                     hrx_allocator_system(), &compiler));
  hrx_loom_compile_request_t request = {.source = text,
                                        .length = length,
                                        .source_name = path,
                                        .config = values};
  hrx_loom_artifact_t* artifact = NULL;
  assert_ok(hrx_loom_compile(compiler, &request, NULL, &artifact));
  hrx_loom_compiler_destroy(compiler);
  hrx_loom_config_destroy(values);
  hrx_allocator_free(hrx_allocator_system(), text);
  free(path);
  return artifact;
}

hrx_gfx11_image_t* gfx11_test_load(const char* file) {
  return gfx11_test_load_config(file, NULL);
}

hrx_gfx11_image_t* gfx11_test_load_config(const char* file,
                                          const char* const* config) {
  hrx_loom_artifact_t* artifact = gfx11_test_compile(file, config);
  size_t length = 0;
  const uint8_t* code = hrx_loom_artifact_code(artifact, &length);
  hrx_gfx11_image_t* image = NULL;
  assert_ok(hrx_gfx11_image_load(code, length, hrx_allocator_system(),
                                 &image));
  hrx_loom_artifact_destroy(artifact);
  return image;
}
