/* Code providers: TensorOps' kernels come from the bundle this build made
 * (provisioned on first use into a private cache, verified against its
 * pins) with nothing compiled; without a provider, for a target the
 * bundle lacks or with sanitizers, they compile in process; a damaged
 * bundle file is refused with DATA_LOSS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hrx/fabric/bundle.h"
#include "model_test_util.h"

/* A provider over the built bundle, as an application would write one. */
typedef struct bundle_provider_t {
  hrx_fabric_bundle_manifest_t* manifest;
  char* cache;
  char* dir; /* the installed bundle, after the first find */
  int finds, provisions;
} bundle_provider_t;

static hrx_status_t bundle_find(void* user, const char* name,
                                hrx_model_code_object_t* out_object) {
  bundle_provider_t* p = user;
  ++p->finds;
  if (!p->dir) {
    hrx_fabric_bundle_fetch_options_t options =
        HRX_STRUCT_INIT(hrx_fabric_bundle_fetch_options_t);
    options.offline = true;
    options.progress = HRX_FABRIC_BUNDLE_PROGRESS_QUIET;
    HRX_RETURN_IF_ERROR(hrx_fabric_bundle_provision(
        p->manifest, p->cache, &options, hrx_allocator_system(), &p->dir));
    ++p->provisions;
  }
  for (size_t i = 0; i < p->manifest->file_count; ++i) {
    const hrx_fabric_bundle_file_t* file = &p->manifest->files[i];
    if (strcmp(file->name, name) != 0) continue;
    char* path = test_strdup_printf("%s/%s", p->dir, name);
    void* code = NULL;
    size_t length = 0;
    hrx_status_t status = hrx_file_read_all(hrx_allocator_system(), path,
                                            64u << 20, &code, &length);
    free(path);
    HRX_RETURN_IF_ERROR(status);
    *out_object = (hrx_model_code_object_t){code, length, file->sha256, code};
    return HRX_OK;
  }
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "%s is not in the bundle",
                         name);
}

static void bundle_release(void* user, hrx_model_code_object_t* object) {
  (void)user;
  free(object->handle);
}

typedef struct fixture_t {
  hrx_gpu_device_t* device;
  bool host; /* the bundle carries the host target only */
  char* compiler_cache;
  bundle_provider_t provider;
} fixture_t;

static int setup(void** state) {
  static fixture_t f;
  memset(&f, 0, sizeof(f));
  f.device = gpu_test_device_open();
  f.host = strcmp(hrx_gpu_device_properties(f.device)->profile_target,
                  "host") == 0;
  f.compiler_cache = test_temp_dir_create();
  f.provider.cache = test_temp_dir_create();
  const char* json = getenv("HRX_BUILT_BUNDLE_JSON");
  assert_non_null(json);
  assert_ok(hrx_fabric_bundle_manifest_load(json, hrx_allocator_system(),
                                            &f.provider.manifest));
  *state = &f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  hrx_fabric_bundle_manifest_destroy(f->provider.manifest);
  free(f->provider.dir);
  test_temp_dir_remove(f->provider.cache);
  test_temp_dir_remove(f->compiler_cache);
  hrx_gpu_device_release(f->device);
  return 0;
}

/* A context on the fixture's device, with |provider| (may be NULL). */
static hrx_model_context_t* context_create(
    fixture_t* f, const hrx_model_code_provider_t* provider) {
  hrx_loom_compiler_options_t compiler =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  compiler.cache_root = f->compiler_cache;
  hrx_model_session_options_t options =
      HRX_STRUCT_INIT(hrx_model_session_options_t);
  options.compiler = &compiler;
  options.code_provider = provider;
  hrx_model_context_t* context = NULL;
  assert_ok(hrx_model_context_create(f->device, &options,
                                     hrx_allocator_system(), &context));
  return context;
}

/* Creates TensorOps in |context|, checks a gather through them, and
 * answers the context's kernel stats. */
static hrx_model_kernel_stats_t run_tensor_ops(hrx_model_context_t* context) {
  hrx_model_session_t* session = NULL;
  assert_ok(hrx_model_session_create_in(context, &session));
  hrx_model_tensor_ops_t* ops = NULL;
  assert_ok(hrx_model_tensor_ops_create(session, NULL, &ops));
  float table[16 * 4];
  for (int i = 0; i < 64; ++i) table[i] = (float)i * 0.5f;
  hrx_model_io_t io = {{{0}, 0, 0, HRX_GPU_ACCESS_READ},
                       {HRX_MODEL_DTYPE_F32, 2, {16, 4}, {0}}};
  assert_ok(hrx_model_session_weight(session, table, sizeof(table),
                                     &io.binding.region));
  const uint32_t rows[] = {15, 0, 7};
  hrx_model_tensor_t* out = NULL;
  assert_ok(hrx_model_tensor_ops_gather_rows(ops, &io, rows, 3, &out));
  float got[3 * 4];
  assert_ok(hrx_model_tensor_read(out, got, sizeof(got), 60 * SECOND));
  for (int r = 0; r < 3; ++r) {
    assert_memory_equal(got + r * 4, table + rows[r] * 4, 16);
  }
  hrx_model_tensor_release(out);
  hrx_model_tensor_ops_destroy(ops);
  hrx_model_session_destroy(session);
  hrx_model_kernel_stats_t stats = HRX_STRUCT_INIT(hrx_model_kernel_stats_t);
  assert_ok(hrx_model_context_kernel_stats(context, &stats));
  return stats;
}

static void test_bundle_kernels_load_without_compiling(void** state) {
  fixture_t* f = *state;
  hrx_model_code_provider_t provider = {bundle_find, bundle_release,
                                        &f->provider};
  hrx_model_context_t* context = context_create(f, &provider);
  hrx_model_kernel_stats_t stats = run_tensor_ops(context);
  assert_true(f->provider.finds > 0);
  if (f->host) {
    /* Provisioned once, on first use; every kernel came from it. */
    assert_int_equal(f->provider.provisions, 1);
    assert_int_equal(stats.compiled, 0);
    assert_int_equal(stats.precompiled, f->provider.finds);
  } else {
    /* No code objects for this target: compiled in process. */
    assert_int_equal(stats.precompiled, 0);
    assert_int_equal(stats.compiled, f->provider.finds);
  }
  hrx_model_context_release(context);
}

static void test_without_a_provider_kernels_compile(void** state) {
  fixture_t* f = *state;
  hrx_model_context_t* context = context_create(f, NULL);
  hrx_model_kernel_stats_t stats = run_tensor_ops(context);
  assert_true(stats.compiled > 0);
  assert_int_equal(stats.precompiled, 0);
  hrx_model_context_release(context);
  hrx_model_code_provider_t no_find = {NULL, NULL, NULL};
  hrx_loom_compiler_options_t compiler =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  compiler.cache_root = f->compiler_cache;
  hrx_model_session_options_t options =
      HRX_STRUCT_INIT(hrx_model_session_options_t);
  options.compiler = &compiler;
  options.code_provider = &no_find;
  assert_status(hrx_model_context_create(f->device, &options,
                                         hrx_allocator_system(), &context),
                HRX_STATUS_INVALID_ARGUMENT, "find callback");
}

/* Bundle code objects carry no sanitizer checks: a sanitizing context
 * compiles even when the bundle has the kernels. */
static void test_sanitizing_context_compiles(void** state) {
  fixture_t* f = *state;
  if (!f->host) skip(); /* sanitizers run on the host device only */
  hrx_model_code_provider_t provider = {bundle_find, bundle_release,
                                        &f->provider};
  hrx_loom_compiler_options_t compiler =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  compiler.cache_root = f->compiler_cache;
  compiler.sanitizers = HRX_LOOM_SANITIZE_ACCESS;
  hrx_model_session_options_t options =
      HRX_STRUCT_INIT(hrx_model_session_options_t);
  options.compiler = &compiler;
  options.code_provider = &provider;
  hrx_model_context_t* context = NULL;
  assert_ok(hrx_model_context_create(f->device, &options,
                                     hrx_allocator_system(), &context));
  int finds = f->provider.finds;
  hrx_model_kernel_stats_t stats = run_tensor_ops(context);
  assert_int_equal(f->provider.finds, finds);
  assert_true(stats.compiled > 0);
  assert_int_equal(stats.precompiled, 0);
  hrx_model_context_release(context);
}

/* The installed copy of a bundled model kernel changed after install: the
 * provider hands out bytes that do not match the pin, and the kernel is
 * refused rather than run or silently recompiled. */
static void test_damaged_bundle_kernel_is_refused(void** state) {
  fixture_t* f = *state;
  if (!f->host) skip();
  bundle_provider_t* p = &f->provider;
  if (!p->dir) {
    hrx_fabric_bundle_fetch_options_t options =
        HRX_STRUCT_INIT(hrx_fabric_bundle_fetch_options_t);
    options.offline = true;
    options.progress = HRX_FABRIC_BUNDLE_PROGRESS_QUIET;
    assert_ok(hrx_fabric_bundle_provision(p->manifest, p->cache, &options,
                                          hrx_allocator_system(), &p->dir));
  }
  int damaged = 0;
  for (size_t i = 0; i < p->manifest->file_count; ++i) {
    const char* name = p->manifest->files[i].name;
    if (strncmp(name, "model-kernels/host/tensor_", 26) != 0) continue;
    char* path = test_strdup_printf("%s/%s", p->dir, name);
    size_t length = 0;
    void* bytes = NULL;
    assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 64u << 20,
                                &bytes, &length));
    ((uint8_t*)bytes)[length / 2] ^= 0x40;
    assert_int_equal(unlink(path), 0);
    FILE* file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(bytes, 1, length, file), length);
    assert_int_equal(fclose(file), 0);
    free(bytes);
    free(path);
    ++damaged;
  }
  assert_true(damaged > 0);
  hrx_model_code_provider_t provider = {bundle_find, bundle_release, p};
  hrx_model_context_t* context = context_create(f, &provider);
  hrx_model_session_t* session = NULL;
  assert_ok(hrx_model_session_create_in(context, &session));
  hrx_model_tensor_ops_t* ops = NULL;
  assert_status(hrx_model_tensor_ops_create(session, NULL, &ops),
                HRX_STATUS_DATA_LOSS, "the installed bundle is damaged");
  assert_null(ops);
  hrx_model_kernel_stats_t stats = HRX_STRUCT_INIT(hrx_model_kernel_stats_t);
  assert_ok(hrx_model_context_kernel_stats(context, &stats));
  assert_int_equal(stats.compiled, 0);
  hrx_model_session_destroy(session);
  hrx_model_context_release(context);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bundle_kernels_load_without_compiling),
      cmocka_unit_test(test_without_a_provider_kernels_compile),
      cmocka_unit_test(test_sanitizing_context_compiles),
      cmocka_unit_test(test_damaged_bundle_kernel_is_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
