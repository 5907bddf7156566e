/* The amdgpu backend: every corpus kernel compiles for gfx1151 into an
 * object LLVM's own tools read back without complaint, whose metadata note
 * says what HRX's manifest says; bad input fails with reasons. In a build
 * without LLVM, asking for gfx1151 is UNAVAILABLE naming the build
 * feature. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_kernels.h"
#include "hrx/fabric/device.h"
#include "hrx/fabric/launch_program.h"
#include "loom_test_util.h"

#if HRX_TEST_HAVE_LLVM
#include <sys/wait.h>

#include "inspect_elf.h"

static hrx_loom_compiler_t* make_compiler(const char* cache_root) {
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.cache_root = cache_root;
  options.disable_cache = !cache_root;
  hrx_loom_compiler_t* c = NULL;
  assert_ok(hrx_loom_compiler_create("gfx1151", &options,
                                     hrx_allocator_system(), &c));
  return c;
}


typedef struct kernel_source_t {
  const char* name;   /* file in HRX_LOOM_KERNELS, or a label */
  const char* text;   /* inline source, or NULL to read |name| */
  const char* config; /* NAME=VALUE[,NAME=VALUE] or NULL */
} kernel_source_t;

static const kernel_source_t sources[] = {
    {"saxpy.loom", NULL, NULL},
    {"reduce_sum.loom", NULL, NULL},
    {"gather.loom", NULL, NULL},
    {"linear_bf16.loom", NULL, "linear.k=256,linear.n=64"},
    {"transpose.loom", NULL, NULL},
    {"affine_sampler.loom", NULL, NULL},
    {"histogram.loom", NULL, NULL},
    {"ring_drain.loom", NULL, NULL},
    {"row_dot.loom", NULL, NULL},
    {"examples/saxpy.loom", NULL, NULL},
    {"extra.loom", NULL, NULL},
    {"private.loom", NULL, NULL},
    {"tests/float_math.loom", NULL, NULL},
    {"tests/strided_transpose.loom", NULL, NULL},
    {"tests/trig_pow.loom", NULL, NULL},
    {"tests/templates.loom", NULL, NULL},
    {"tests/encoding_define.loom", NULL, NULL},
    {"tests/wmma_schema.loom", NULL, NULL},
};

static char* read_source(const kernel_source_t* s, size_t* out_length) {
  if (!strcmp(s->name, "extra.loom")) {
    *out_length = strlen(corpus_amdgpu_extra_kernel);
    return strdup(corpus_amdgpu_extra_kernel);
  }
  if (!strcmp(s->name, "private.loom")) {
    *out_length = strlen(corpus_private_kernel);
    return strdup(corpus_private_kernel);
  }
  if (!strncmp(s->name, "tests/", 6)) {
    return loom_test_read_file("HRX_TEST_KERNELS", s->name + 6, out_length);
  }
  if (!strncmp(s->name, "examples/", 9)) {
    const char* dir = getenv("HRX_EXAMPLES");
    assert_non_null(dir);
    char* path = test_strdup_printf("%s/%s", dir, s->name + 9);
    void* data = NULL;
    assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 24, &data,
                                out_length));
    free(path);
    return data;
  }
  return loom_test_read_kernel(s->name, out_length);
}

static hrx_loom_artifact_t* compile_source(hrx_loom_compiler_t* c,
                                           const kernel_source_t* s) {
  size_t length = 0;
  char* text = read_source(s, &length);
  hrx_loom_config_t* config = NULL;
  assert_ok(hrx_loom_config_create(hrx_allocator_system(), &config));
  if (s->config) {
    char* list = strdup(s->config);
    for (char* item = strtok(list, ","); item; item = strtok(NULL, ",")) {
      assert_ok(hrx_loom_config_set_assignment(config, item));
    }
    free(list);
  }
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  hrx_loom_compile_request_t request = {.source = text, .length = length,
                                        .source_name = s->name,
                                        .config = config};
  hrx_loom_artifact_t* artifact = NULL;
  hrx_status_t status = hrx_loom_compile(c, &request, diagnostics, &artifact);
  if (status != HRX_OK) {
    hrx_string_builder_t b;
    hrx_string_builder_init(hrx_allocator_system(), &b);
    hrx_status_free(hrx_loom_diagnostics_format(diagnostics, &b));
    print_error("%s: %s\n%s", s->name, hrx_status_message(status),
                hrx_string_builder_cstr(&b));
    hrx_string_builder_deinit(&b);
  }
  assert_ok(status);
  hrx_loom_diagnostics_destroy(diagnostics);
  hrx_loom_config_destroy(config);
  free(text);
  return artifact;
}

/* Runs "TOOL ARGS FILE"; returns its exit status with stdout and stderr. */
static int run_tool(const char* tool, const char* args, const char* file,
                    const char* dir, char** out_stdout, char** out_stderr) {
  char* out_path = test_strdup_printf("%s/stdout", dir);
  char* err_path = test_strdup_printf("%s/stderr", dir);
  char* command = test_strdup_printf("'%s' %s '%s' >'%s' 2>'%s'", tool, args,
                                     file, out_path, err_path);
  int rc = system(command);
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), out_path, 1 << 26,
                              (void**)out_stdout, &length));
  assert_ok(hrx_file_read_all(hrx_allocator_system(), err_path, 1 << 20,
                              (void**)out_stderr, &length));
  free(command);
  free(out_path);
  free(err_path);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* One kernel of llvm-readelf's YAML rendering of the metadata note. */
typedef struct note_kernel_t {
  char name[160];
  long kernarg, group, wavefront, max_flat;
  int arg_count;
  struct {
    long offset, size;
    char kind[128];
  } args[64];
} note_kernel_t;

static void note_field(note_kernel_t* k, bool arg, const char* line) {
  char key[64], value[128];
  if (sscanf(line, " %63[^:]: %127s", key, value) != 2) return;
  if (!strcmp(value, "!str") &&
      sscanf(line, " %63[^:]: !str %127s", key, value) != 2) {
    return;
  }
  if (arg) {
    if (k->arg_count == 0 || k->arg_count > 64) return;
    __typeof__(k->args[0])* a = &k->args[k->arg_count - 1];
    if (!strcmp(key, ".offset")) a->offset = atol(value);
    if (!strcmp(key, ".size")) a->size = atol(value);
    if (!strcmp(key, ".value_kind")) snprintf(a->kind, sizeof(a->kind), "%s",
                                              value);
    return;
  }
  if (!strcmp(key, ".name")) snprintf(k->name, sizeof(k->name), "%s", value);
  if (!strcmp(key, ".kernarg_segment_size")) k->kernarg = atol(value);
  if (!strcmp(key, ".group_segment_fixed_size")) k->group = atol(value);
  if (!strcmp(key, ".wavefront_size")) k->wavefront = atol(value);
  if (!strcmp(key, ".max_flat_workgroup_size")) k->max_flat = atol(value);
}

/* Parses the kernels of `llvm-readelf --notes` output. */
static size_t parse_notes(char* text, note_kernel_t* kernels, size_t max) {
  size_t count = 0;
  note_kernel_t* k = NULL;
  bool in_kernels = false;
  for (char* line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    if (!strncmp(line, "amdhsa.", 7)) {
      in_kernels = !strncmp(line, "amdhsa.kernels:", 15);
      k = NULL;
    } else if (!in_kernels) {
      continue;
    } else if (!strncmp(line, "  - ", 4)) {
      assert_true(count < max);
      k = &kernels[count++];
      memset(k, 0, sizeof(*k));
      note_field(k, false, line + 4);
    } else if (k && !strncmp(line, "      - ", 8)) {
      if (k->arg_count < 64) k->arg_count++;
      note_field(k, true, line + 8);
    } else if (k && !strncmp(line, "        .", 9)) {
      note_field(k, true, line + 8);
    } else if (k && !strncmp(line, "    .", 5)) {
      note_field(k, false, line + 4);
    }
  }
  return count;
}

static long json_long(json_t* object, const char* key) {
  json_t* value = json_object_get(object, key);
  assert_true(json_is_integer(value));
  return (long)json_integer_value(value);
}

/* The note's kernel equals the manifest's amdgpu facts. */
static void check_kernel(const char* source, json_t* manifest_kernel,
                         const note_kernel_t* note) {
  json_t* amdgpu = json_object_get(manifest_kernel, "amdgpu");
  assert_non_null(amdgpu);
  const char* exported =
      json_string_value(json_object_get(manifest_kernel, "export"));
  if (strcmp(note->name, exported) != 0 ||
      note->kernarg != json_long(amdgpu, "kernarg_size") ||
      note->group != json_long(amdgpu, "group_segment_size") ||
      note->wavefront != 32 || json_long(amdgpu, "wavefront_size") != 32 ||
      note->max_flat != json_long(amdgpu, "max_flat_workgroup_size")) {
    fail_msg("%s: note says %s kernarg %ld group %ld wave %ld max %ld; "
             "manifest %s", source, note->name, note->kernarg, note->group,
             note->wavefront, note->max_flat,
             json_dumps(amdgpu, JSON_COMPACT));
  }
  json_t* args = json_object_get(amdgpu, "arguments");
  size_t explicit_count = 0;
  for (int a = 0; a < note->arg_count; ++a) {
    if (!strncmp(note->args[a].kind, "hidden_", 7)) continue;
    json_t* arg = json_array_get(args, explicit_count++);
    assert_non_null(arg);
    const char* kind = json_string_value(json_object_get(arg, "kind"));
    if (note->args[a].offset != json_long(arg, "offset") ||
        note->args[a].size != json_long(arg, "size") ||
        strcmp(note->args[a].kind, kind) != 0) {
      fail_msg("%s: argument %d is %s at %ld (%ld bytes), manifest says %s "
               "at %ld (%ld bytes)", source, a, note->args[a].kind,
               note->args[a].offset, note->args[a].size, kind,
               json_long(arg, "offset"), json_long(arg, "size"));
    }
  }
  assert_int_equal(explicit_count, json_array_size(args));
  assert_int_equal(json_array_size(args),
                   json_array_size(json_object_get(manifest_kernel,
                                                   "arguments")));
}

static void check_object(const char* dir, const char* name,
                         const hrx_loom_artifact_t* artifact) {
  size_t length = 0;
  const uint8_t* code = hrx_loom_artifact_code(artifact, &length);
  char* path = test_strdup_printf("%s/object.co", dir);
  test_write_file(path, code, length);
  char *out = NULL, *err = NULL;
  int rc = run_tool(getenv("HRX_LLVM_OBJDUMP"), "-d --mcpu=gfx1151", path,
                    dir, &out, &err);
  if (rc != 0 || err[0] || strstr(out, "<unknown>") ||
      !strstr(out, "s_endpgm")) {
    fail_msg("%s: llvm-objdump exit %d, stderr '%s'", name, rc, err);
  }
  free(out);
  free(err);
  rc = run_tool(getenv("HRX_LLVM_READELF"), "--notes", path, dir, &out, &err);
  if (rc != 0 || err[0] ||
      !strstr(out, "amdhsa.target:   amdgcn-amd-amdhsa--gfx1151")) {
    fail_msg("%s: llvm-readelf exit %d, stderr '%s'", name, rc, err);
  }
  note_kernel_t* notes = calloc(16, sizeof(note_kernel_t));
  size_t note_count = parse_notes(out, notes, 16);
  json_error_t error;
  json_t* manifest =
      json_loads(hrx_loom_artifact_manifest(artifact), 0, &error);
  assert_non_null(manifest);
  assert_string_equal(
      json_string_value(json_object_get(manifest, "profile_target")),
      "gfx1151");
  json_t* kernels = json_object_get(manifest, "kernels");
  assert_int_equal(note_count, json_array_size(kernels));
  for (size_t k = 0; k < note_count; ++k) {
    /* The note lists kernels by name; the manifest in source order. */
    json_t* match = NULL;
    for (size_t j = 0; j < json_array_size(kernels); ++j) {
      json_t* candidate = json_array_get(kernels, j);
      if (!strcmp(json_string_value(json_object_get(candidate, "export")),
                  notes[k].name)) {
        match = candidate;
      }
    }
    assert_non_null(match);
    check_kernel(name, match, &notes[k]);
    const uint8_t* launch = NULL;
    size_t launch_length = 0;
    assert_ok(hrx_loom_artifact_launch_program(artifact, notes[k].name,
                                               &launch, &launch_length));
    hrx_fabric_launch_program_t* program = NULL;
    assert_ok(hrx_fabric_launch_program_load(launch, launch_length,
                                             hrx_allocator_system(), &program));
    hrx_fabric_launch_program_destroy(program);
  }
  json_decref(manifest);
  free(notes);
  free(out);
  free(err);
  free(path);
}

static void test_corpus_compiles(void** state) {
  (void)state;
  char* dir = test_temp_dir_create();
  hrx_loom_compiler_t* c = make_compiler(NULL);
  for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); ++i) {
    hrx_loom_artifact_t* artifact = compile_source(c, &sources[i]);
    check_object(dir, sources[i].name, artifact);
    hrx_loom_artifact_destroy(artifact);
  }
  hrx_loom_compiler_destroy(c);
  test_temp_dir_remove(dir);
}

/* compile_all runs LLVM on several threads; the cache serves the second
 * round, launch programs and all, and its key is not the host's. */
static void test_compile_all_and_cache(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  enum { COUNT = 6 };
  char* texts[COUNT];
  hrx_loom_compile_request_t requests[COUNT];
  for (size_t i = 0; i < COUNT; ++i) {
    size_t length = 0;
    /* Distinct sources without configs: all but linear_bf16 (3). */
    const kernel_source_t* s = &sources[i < 3 ? i : i + 1];
    texts[i] = read_source(s, &length);
    requests[i] = (hrx_loom_compile_request_t){
        .source = texts[i], .length = length, .source_name = s->name};
  }
  hrx_loom_compiler_t* c = make_compiler(root);
  for (int round = 0; round < 2; ++round) {
    hrx_loom_artifact_t* artifacts[COUNT];
    hrx_status_t statuses[COUNT];
    assert_ok(hrx_loom_compile_all(c, requests, COUNT, artifacts, statuses));
    for (size_t i = 0; i < COUNT; ++i) {
      assert_ok(statuses[i]);
      assert_int_equal(hrx_loom_artifact_cache_hit(artifacts[i]), round == 1);
      size_t length = 0;
      const uint8_t* code = hrx_loom_artifact_code(artifacts[i], &length);
      assert_memory_equal(code, "\177ELF", 4);
      assert_non_null(strstr(hrx_loom_artifact_manifest(artifacts[i]),
                             "\"amdgpu\":{\"descriptor\":"));
      const uint8_t* launch = NULL;
      size_t launch_length = 0;
      json_t* manifest =
          json_loads(hrx_loom_artifact_manifest(artifacts[i]), 0, NULL);
      const char* exported = json_string_value(json_object_get(
          json_array_get(json_object_get(manifest, "kernels"), 0), "export"));
      assert_ok(hrx_loom_artifact_launch_program(artifacts[i], exported,
                                                 &launch, &launch_length));
      assert_memory_equal(launch, HRX_LAUNCH_PROGRAM_MAGIC, 4);
      json_decref(manifest);
      hrx_loom_artifact_destroy(artifacts[i]);
    }
  }
  hrx_loom_compiler_destroy(c);
  /* The same source for the host has another key. */
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.cache_root = root;
  hrx_loom_compiler_t* host = NULL;
  assert_ok(hrx_loom_compiler_create("host", &options, hrx_allocator_system(),
                                     &host));
  hrx_loom_artifact_t* a = NULL;
  assert_ok(hrx_loom_compile(host, &requests[0], NULL, &a));
  assert_false(hrx_loom_artifact_cache_hit(a));
  hrx_loom_artifact_destroy(a);
  hrx_loom_compiler_destroy(host);
  for (size_t i = 0; i < COUNT; ++i) free(texts[i]);
  test_temp_dir_remove(root);
}

static void expect_compile_error(const char* text, const char* expected) {
  hrx_loom_compiler_t* c = make_compiler(NULL);
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  hrx_loom_compile_request_t request = {.source = text,
                                        .length = strlen(text),
                                        .source_name = "bad.loom"};
  hrx_loom_artifact_t* artifact = NULL;
  assert_status_code(hrx_loom_compile(c, &request, diagnostics, &artifact),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_null(artifact);
  hrx_string_builder_t b;
  hrx_string_builder_init(hrx_allocator_system(), &b);
  assert_ok(hrx_loom_diagnostics_format(diagnostics, &b));
  if (!strstr(hrx_string_builder_cstr(&b), expected)) {
    fail_msg("expected '%s' in:\n%s", expected, hrx_string_builder_cstr(&b));
  }
  hrx_string_builder_deinit(&b);
  hrx_loom_diagnostics_destroy(diagnostics);
  hrx_loom_compiler_destroy(c);
}

/* Private memory is scratch: buffer.alloca<private> arrays become
 * scratch loads and stores (none promoted to LDS), and the kernel's fixed
 * private segment holds its 312 bytes of arrays. */
static void test_private_scratch(void** state) {
  (void)state;
  char* dir = test_temp_dir_create();
  hrx_loom_compiler_t* c = make_compiler(NULL);
  const kernel_source_t source = {"private.loom", NULL, NULL};
  hrx_loom_artifact_t* artifact = compile_source(c, &source);
  size_t length = 0;
  const uint8_t* code = hrx_loom_artifact_code(artifact, &length);
  char* path = test_strdup_printf("%s/object.co", dir);
  test_write_file(path, code, length);
  char *out = NULL, *err = NULL;
  assert_int_equal(run_tool(getenv("HRX_LLVM_OBJDUMP"), "-d --mcpu=gfx1151",
                            path, dir, &out, &err),
                   0);
  assert_non_null(strstr(out, "scratch_store_b32"));
  assert_non_null(strstr(out, "scratch_store_b16"));
  assert_non_null(strstr(out, "scratch_load_"));
  assert_null(strstr(out, "ds_"));
  free(out);
  free(err);
  assert_int_equal(run_tool(getenv("HRX_LLVM_READELF"), "--notes", path, dir,
                            &out, &err),
                   0);
  const char* key = ".private_segment_fixed_size:";
  const char* at = strstr(out, key);
  assert_non_null(at);
  assert_in_range(atol(at + strlen(key)), 312, HRX_FABRIC_MAX_PRIVATE_BYTES);
  free(out);
  free(err);
  free(path);
  hrx_loom_artifact_destroy(artifact);
  hrx_loom_compiler_destroy(c);
  test_temp_dir_remove(dir);
}

static void test_bad_sources(void** state) {
  (void)state;
  /* More private memory than a queue's scratch can serve a work-item: a
   * diagnostic at the op, naming the limit and the target. */
  expect_compile_error(
      "kernel.def export(\"k\") @k() {\n"
      "  %one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%one, %one, %one) "
      "workgroup_size(%one, %one, %one) : index\n"
      "} launch(%out: buffer) {\n"
      "  %n = index.constant 40000 : index\n"
      "  %p = buffer.alloca<private> align(16) %n : buffer\n"
      "  kernel.return\n"
      "}\n",
      "bad.loom:6:3: error[L0802]: private memory exceeds 32752 bytes per "
      "work-item on amdgpu");
  /* An op the backend cannot lower: a diagnostic at the op, naming it and
   * the target. */
  expect_compile_error(
      "kernel.def export(\"k\") @k() {\n"
      "  %one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%one, %one, %one) "
      "workgroup_size(%one, %one, %one) : index\n"
      "} launch(%out: buffer, %f: f32) {\n"
      "  %v = vector.splat %f : vector<4xf32>\n"
      "  %s = kernel.workgroup.reduce<addf> %v : vector<4xf32>\n"
      "  kernel.return\n"
      "}\n",
      "bad.loom:6:3: error[L0801]: kernel.workgroup.reduce of vectors is not "
      "supported by the amdgpu backend");
  /* Source targets the profile cannot run. */
  expect_compile_error(
      "amdgpu.target<gfx1100> @t {subgroup_size = 32}\n"
      "kernel.def target(@t) @k() {\n"
      "  %one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%one, %one, %one) "
      "workgroup_size(%one, %one, %one) : index\n"
      "} launch() {\n  kernel.return\n}\n",
      "bad.loom:1:1: error[L0508]: source target gfx1100 does not run on the "
      "gfx1151 profile");
  expect_compile_error(
      "host.target<cpu> @w {subgroup_size = 64}\n"
      "kernel.def target(@w) @k() {\n"
      "  %one = index.constant 1 : index\n"
      "  kernel.launch.config workgroups(%one, %one, %one) "
      "workgroup_size(%one, %one, %one) : index\n"
      "} launch() {\n  kernel.return\n}\n",
      "compiles 32-lane subgroups; @w asks for 64");
}

static void test_profiles(void** state) {
  (void)state;
  hrx_loom_compiler_t* c = NULL;
  /* A generic target is a source target, never a profile. */
  hrx_status_t status = hrx_loom_compiler_create(
      "gfx11-generic", NULL, hrx_allocator_system(), &c);
  assert_non_null(strstr(hrx_status_message(status), "source target"));
  assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  /* Processors off the allowlist never reach LLVM. */
  assert_status_code(hrx_loom_compiler_create("gfx9999", NULL,
                                              hrx_allocator_system(), &c),
                     HRX_STATUS_UNIMPLEMENTED);
  hrx_loom_compiler_options_t sanitized =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  sanitized.sanitizers = HRX_LOOM_SANITIZE_ACCESS;
  assert_status_code(hrx_loom_compiler_create("gfx1151", &sanitized,
                                              hrx_allocator_system(), &c),
                     HRX_STATUS_UNIMPLEMENTED);
  assert_null(c);
}

/* hrx inspect's ELF reader: the kernel, its arguments, descriptor fields
 * and launch program; truncated and foreign files refused with a reason. */
static void test_inspect(void** state) {
  (void)state;
  hrx_loom_compiler_t* c = make_compiler(NULL);
  hrx_loom_artifact_t* artifact = compile_source(c, &sources[0]);
  size_t length = 0;
  const uint8_t* code = hrx_loom_artifact_code(artifact, &length);
  char* listing = NULL;
  size_t listing_length = 0;
  FILE* out = open_memstream(&listing, &listing_length);
  assert_ok(hrx_inspect_elf("saxpy.co", code, length, out));
  fclose(out);
  static const char* const expected[] = {
      "saxpy.co: AMDGPU code object (relocatable, ABI version 3, e_flags 0x4a)",
      "1 kernel, target amdgcn-amd-amdhsa--gfx1151",
      "  kernel saxpy: kernarg 288 bytes, group segment 0",
      "wavefront 32, max workgroup 256",
      "    arg 0  n by_value at 0, 8 bytes",
      "    arg 1  alpha by_value at 8, 4 bytes",
      "    arg 2  x global_buffer at 16, 8 bytes",
      "hidden arguments",
      "rsrc1 0x", "VGPR granule", "rsrc2 0x", "user SGPRs",
      "kernarg segment ptr", "wave32",
      "    launch program: ", "1 workload value\n",
  };
  for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); ++i) {
    if (!strstr(listing, expected[i])) {
      fail_msg("expected '%s' in:\n%s", expected[i], listing);
    }
  }
  free(listing);
  /* Cut anywhere, the object is refused, never read past its end. */
  for (size_t cut = 0; cut < length; cut += cut < 128 ? 1 : 97) {
    uint8_t* copy = malloc(cut ? cut : 1);
    memcpy(copy, code, cut);
    FILE* sink = fopen("/dev/null", "w");
    hrx_status_t status = hrx_inspect_elf("cut.co", copy, cut, sink);
    fclose(sink);
    if (status == HRX_OK) fail_msg("a %zu-byte prefix was accepted", cut);
    assert_true(strlen(hrx_status_message(status)) > 0);
    hrx_status_free(status);
    free(copy);
  }
  /* A foreign ELF: this test program. */
  void* self = NULL;
  size_t self_length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), "/proc/self/exe",
                              1 << 30, &self, &self_length));
  hrx_status_t status = hrx_inspect_elf("self", self, self_length, stdout);
  assert_non_null(strstr(hrx_status_message(status),
                         "not an AMDGPU code object: ELF machine 62"));
  hrx_status_free(status);
  free(self);
  hrx_loom_artifact_destroy(artifact);
  hrx_loom_compiler_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_corpus_compiles),
      cmocka_unit_test(test_private_scratch),
      cmocka_unit_test(test_compile_all_and_cache),
      cmocka_unit_test(test_bad_sources),
      cmocka_unit_test(test_profiles),
      cmocka_unit_test(test_inspect),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* no LLVM in this build */

static void test_unavailable(void** state) {
  (void)state;
  hrx_loom_compiler_t* c = NULL;
  hrx_status_t status =
      hrx_loom_compiler_create("gfx1151", NULL, hrx_allocator_system(), &c);
  assert_non_null(strstr(hrx_status_message(status), "-Dllvm=enabled"));
  assert_status_code(status, HRX_STATUS_UNAVAILABLE);
  assert_null(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_unavailable)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
