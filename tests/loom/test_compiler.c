/* Compiler service and kernel cache: hits, keys, corruption, concurrency,
 * batches, launch-program lookup, tracing. */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loom_test_util.h"

typedef struct fixture_t {
  char* root;
  char* saxpy;
  size_t saxpy_length;
} fixture_t;

static int setup(void** state) {
  fixture_t* f = calloc(1, sizeof(*f));
  f->root = test_temp_dir_create();
  f->saxpy = loom_test_read_kernel("saxpy.loom", &f->saxpy_length);
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  test_temp_dir_remove(f->root);
  free(f->saxpy);
  free(f);
  return 0;
}

static hrx_loom_compiler_t* make_compiler(const fixture_t* f,
                                          uint32_t sanitizers) {
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.cache_root = f->root;
  options.sanitizers = sanitizers;
  hrx_loom_compiler_t* c = NULL;
  assert_ok(hrx_loom_compiler_create("host", &options,
                                     hrx_allocator_system(), &c));
  return c;
}

static hrx_loom_artifact_t* compile_text(hrx_loom_compiler_t* c,
                                         const char* text, size_t length,
                                         const char* export_name,
                                         const hrx_loom_config_t* config) {
  hrx_loom_compile_request_t request = {.source = text, .length = length,
                                        .export_name = export_name,
                                        .config = config};
  hrx_loom_artifact_t* a = NULL;
  assert_ok(hrx_loom_compile(c, &request, NULL, &a));
  return a;
}

static void test_hit_and_miss(void** state) {
  fixture_t* f = *state;
  hrx_loom_compiler_t* c = make_compiler(f, 0);
  assert_int_equal(strlen(hrx_loom_compiler_identity(c)), 64);
  hrx_loom_artifact_t* first =
      compile_text(c, f->saxpy, f->saxpy_length, "saxpy", NULL);
  assert_false(hrx_loom_artifact_cache_hit(first));
  hrx_loom_artifact_t* second =
      compile_text(c, f->saxpy, f->saxpy_length, "saxpy", NULL);
  assert_true(hrx_loom_artifact_cache_hit(second));
  size_t a = 0, b = 0;
  const uint8_t* ca = hrx_loom_artifact_code(first, &a);
  const uint8_t* cb = hrx_loom_artifact_code(second, &b);
  assert_int_equal(a, b);
  assert_memory_equal(ca, cb, a);
  assert_string_equal(hrx_loom_artifact_manifest(first),
                      hrx_loom_artifact_manifest(second));
  /* The manifest is JSON describing the export. */
  json_error_t error;
  json_t* root = json_loads(hrx_loom_artifact_manifest(second), 0, &error);
  assert_non_null(root);
  json_t* kernel = json_array_get(json_object_get(root, "kernels"), 0);
  assert_string_equal(json_string_value(json_object_get(kernel, "export")),
                      "saxpy");
  assert_int_equal(json_array_size(json_object_get(kernel, "arguments")), 4);
  assert_string_equal(json_string_value(json_object_get(root, "key")),
                      hrx_loom_artifact_key(second));
  json_decref(root);
  /* Launch programs bind exact export names only. */
  const uint8_t* program = NULL;
  size_t program_length = 0;
  assert_ok(hrx_loom_artifact_launch_program(second, "saxpy", &program,
                                             &program_length));
  assert_true(program_length > 32);
  assert_status_code(hrx_loom_artifact_launch_program(second, "saxp", &program,
                                                      &program_length),
                     HRX_STATUS_NOT_FOUND);
  assert_status_code(hrx_loom_artifact_launch_program(second, "@saxpy",
                                                      &program,
                                                      &program_length),
                     HRX_STATUS_NOT_FOUND);
  hrx_loom_artifact_destroy(first);
  hrx_loom_artifact_destroy(second);
  hrx_loom_compiler_destroy(c);
}

static void test_key_components(void** state) {
  fixture_t* f = *state;
  char* linear = loom_test_read_kernel("linear_bf16.loom", NULL);
  hrx_loom_compiler_t* c = make_compiler(f, 0);
  hrx_loom_config_t *one = NULL, *other_order = NULL, *changed = NULL;
  assert_ok(hrx_loom_config_create(hrx_allocator_system(), &one));
  assert_ok(hrx_loom_config_create(hrx_allocator_system(), &other_order));
  assert_ok(hrx_loom_config_create(hrx_allocator_system(), &changed));
  assert_ok(hrx_loom_config_set(one, "linear.k", "256"));
  assert_ok(hrx_loom_config_set(one, "linear.n", "16"));
  assert_ok(hrx_loom_config_set(other_order, "linear.n", "0x10"));
  assert_ok(hrx_loom_config_set(other_order, "linear.k", "256"));
  assert_ok(hrx_loom_config_set(changed, "linear.k", "256"));
  assert_ok(hrx_loom_config_set(changed, "linear.n", "17"));
  size_t length = strlen(linear);
  hrx_loom_artifact_t* base = compile_text(c, linear, length, NULL, one);
  hrx_loom_artifact_t* same = compile_text(c, linear, length, NULL, other_order);
  assert_string_equal(hrx_loom_artifact_key(base), hrx_loom_artifact_key(same));
  assert_true(hrx_loom_artifact_cache_hit(same));
  hrx_loom_artifact_t* config = compile_text(c, linear, length, NULL, changed);
  hrx_loom_artifact_t* exported =
      compile_text(c, linear, length, "linear_bf16", one);
  char* edited = strdup(linear);
  assert_true(edited[0] == '/' && edited[1] == '/');
  edited[3] ^= 0x20; /* a letter of the leading comment: other bytes only */
  hrx_loom_artifact_t* source = compile_text(c, edited, length, NULL, one);
  hrx_loom_compiler_t* sanitized = make_compiler(f, HRX_LOOM_SANITIZE_ACCESS);
  hrx_loom_artifact_t* checks = compile_text(sanitized, linear, length, NULL,
                                             one);
  const char* keys[] = {
      hrx_loom_artifact_key(base), hrx_loom_artifact_key(config),
      hrx_loom_artifact_key(exported), hrx_loom_artifact_key(source),
      hrx_loom_artifact_key(checks)};
  for (size_t i = 0; i < 5; ++i) {
    for (size_t j = i + 1; j < 5; ++j) assert_string_not_equal(keys[i], keys[j]);
  }
  hrx_loom_artifact_destroy(base);
  hrx_loom_artifact_destroy(same);
  hrx_loom_artifact_destroy(config);
  hrx_loom_artifact_destroy(exported);
  hrx_loom_artifact_destroy(source);
  hrx_loom_artifact_destroy(checks);
  hrx_loom_compiler_destroy(sanitized);
  hrx_loom_compiler_destroy(c);
  hrx_loom_config_destroy(one);
  hrx_loom_config_destroy(other_order);
  hrx_loom_config_destroy(changed);
  free(edited);
  free(linear);
}

static void test_corrupt_entry_is_replaced(void** state) {
  fixture_t* f = *state;
  hrx_loom_compiler_t* c = make_compiler(f, 0);
  hrx_loom_artifact_t* a = compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
  char* path = test_strdup_printf("%s/kernels/%s/code.hxco", f->root,
                                  hrx_loom_artifact_key(a));
  FILE* file = fopen(path, "r+b");
  assert_non_null(file);
  fseek(file, 40, SEEK_SET);
  fputc(0x5a, file);
  fclose(file);
  hrx_loom_artifact_t* again =
      compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
  assert_false(hrx_loom_artifact_cache_hit(again)); /* recompiled */
  hrx_loom_artifact_t* third =
      compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
  assert_true(hrx_loom_artifact_cache_hit(third)); /* and stored again */
  /* A missing file is corruption too. */
  unlink(path);
  hrx_loom_artifact_t* fourth =
      compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
  assert_false(hrx_loom_artifact_cache_hit(fourth));
  hrx_loom_artifact_destroy(a);
  hrx_loom_artifact_destroy(again);
  hrx_loom_artifact_destroy(third);
  hrx_loom_artifact_destroy(fourth);
  free(path);
  hrx_loom_compiler_destroy(c);
}

/* Writes |code| as entry |key|'s code object with digests that match it,
 * as a cache written by a broken or hostile writer would be. */
static void forge_entry(const char* root, const char* key, const void* code,
                        size_t length) {
  char* dir = test_strdup_printf("%s/kernels/%s", root, key);
  char* manifest_path = test_strdup_printf("%s/manifest.json", dir);
  void* manifest = NULL;
  size_t manifest_length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), manifest_path, 1 << 20,
                              &manifest, &manifest_length));
  char* code_path = test_strdup_printf("%s/code.hxco", dir);
  test_write_file(code_path, code, length);
  char code_hex[HRX_SHA256_HEX_SIZE], manifest_hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_t d;
  hrx_sha256(code, length, &d);
  hrx_sha256_digest_format(&d, code_hex);
  hrx_sha256(manifest, manifest_length, &d);
  hrx_sha256_digest_format(&d, manifest_hex);
  char* digests = test_strdup_printf("%s\n%s\n", code_hex, manifest_hex);
  char* digest_path = test_strdup_printf("%s/sha256", dir);
  test_write_file(digest_path, digests, strlen(digests));
  free(digest_path);
  free(digests);
  free(code_path);
  free(manifest);
  free(manifest_path);
  free(dir);
}

/* Recorded digests prove only that the files are the ones written: an
 * entry whose code object is too short, foreign or torn inside is rebuilt,
 * never indexed. */
static void test_forged_entry_is_rebuilt(void** state) {
  fixture_t* f = *state;
  hrx_loom_compiler_t* c = make_compiler(f, 0);
  hrx_loom_artifact_t* a =
      compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
  size_t length = 0;
  const uint8_t* good = hrx_loom_artifact_code(a, &length);
  uint8_t* bad = malloc(length);
  char key[HRX_SHA256_HEX_SIZE];
  strcpy(key, hrx_loom_artifact_key(a));
  /* Shorter than the header, the header alone, a foreign magic, and a
   * body whose trailer does not match. */
  size_t lengths[] = {0, 2, 12, length, length};
  for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); ++i) {
    memcpy(bad, good, length);
    if (i == 3) memcpy(bad, "ELF\x7f", 4);
    if (i == 4) bad[20] ^= 1;
    forge_entry(f->root, key, bad, lengths[i]);
    hrx_loom_artifact_t* again =
        compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
    assert_false(hrx_loom_artifact_cache_hit(again));
    size_t again_length = 0;
    const uint8_t* code = hrx_loom_artifact_code(again, &again_length);
    assert_int_equal(again_length, length);
    assert_memory_equal(code, good, length);
    hrx_loom_artifact_destroy(again);
  }
  /* A trailing byte after a well-formed object, with a trailer that
   * covers it. */
  uint8_t* longer = malloc(length + 1);
  memcpy(longer, good, length - HRX_SHA256_DIGEST_SIZE);
  longer[length - HRX_SHA256_DIGEST_SIZE] = 0;
  hrx_sha256_digest_t d;
  hrx_sha256(longer, length + 1 - HRX_SHA256_DIGEST_SIZE, &d);
  memcpy(longer + length + 1 - HRX_SHA256_DIGEST_SIZE, d.bytes,
         HRX_SHA256_DIGEST_SIZE);
  forge_entry(f->root, key, longer, length + 1);
  hrx_loom_artifact_t* again =
      compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
  assert_false(hrx_loom_artifact_cache_hit(again));
  hrx_loom_artifact_destroy(again);
  free(longer);
  free(bad);
  hrx_loom_artifact_destroy(a);
  hrx_loom_compiler_destroy(c);
}

/* A FIFO, a device link or a directory planted where an entry's file
 * belongs is refused without blocking, and the entry is rebuilt. */
static void test_special_files_in_entry(void** state) {
  fixture_t* f = *state;
  hrx_loom_compiler_t* c = make_compiler(f, 0);
  hrx_loom_artifact_t* a =
      compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
  const char* leaves[] = {"code.hxco", "manifest.json", "sha256"};
  for (size_t i = 0; i < 3; ++i) {
    for (int kind = 0; kind < 3; ++kind) {
      char* path = test_strdup_printf("%s/kernels/%s/%s", f->root,
                                      hrx_loom_artifact_key(a), leaves[i]);
      assert_int_equal(unlink(path), 0);
      if (kind == 0) assert_int_equal(mkfifo(path, 0600), 0);
      if (kind == 1) assert_int_equal(symlink("/dev/zero", path), 0);
      if (kind == 2) assert_int_equal(mkdir(path, 0700), 0);
      hrx_loom_artifact_t* again =
          compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
      assert_false(hrx_loom_artifact_cache_hit(again));
      hrx_loom_artifact_destroy(again);
      free(path);
    }
  }
  hrx_loom_artifact_destroy(a);
  hrx_loom_compiler_destroy(c);
}

typedef struct log_capture_t {
  int warnings;
  char last[512];
} log_capture_t;

static void capture_log(void* self, hrx_log_level_t level, const char* line) {
  log_capture_t* capture = self;
  if (level == HRX_LOG_WARN) capture->warnings++;
  snprintf(capture->last, sizeof(capture->last), "%s", line);
}

/* An unwritable cache costs the cache, never the compile: the artifact
 * comes back and one warning says why. As root, permission bits do not
 * stop writes, so the unwritable case is a cache whose kernels folder is
 * a file; without root a read-only directory is tried too. */
static void test_unwritable_cache_still_compiles(void** state) {
  fixture_t* f = *state;
  char* blocked = test_strdup_printf("%s/blocked", f->root);
  assert_ok(hrx_dir_create_all(blocked, 0755));
  char* kernels = test_strdup_printf("%s/kernels", blocked);
  test_write_file(kernels, "x", 1);
  char* readonly = test_strdup_printf("%s/readonly", f->root);
  assert_ok(hrx_dir_create_all(readonly, 0555));
  const char* roots[] = {blocked, readonly};
  size_t count = geteuid() == 0 ? 1 : 2;
  for (size_t i = 0; i < count; ++i) {
    log_capture_t capture = {0};
    hrx_loom_compiler_options_t options =
        HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
    options.cache_root = roots[i];
    options.logger = (hrx_logger_t){
        .level = HRX_LOG_WARN, .sink = capture_log, .self = &capture};
    hrx_loom_compiler_t* c = NULL;
    assert_ok(hrx_loom_compiler_create("host", &options,
                                       hrx_allocator_system(), &c));
    for (int round = 0; round < 3; ++round) {
      hrx_loom_artifact_t* a =
          compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
      assert_false(hrx_loom_artifact_cache_hit(a));
      size_t length = 0;
      assert_non_null(hrx_loom_artifact_code(a, &length));
      assert_true(length > 0);
      hrx_loom_artifact_destroy(a);
    }
    assert_int_equal(capture.warnings, 1);
    assert_non_null(strstr(capture.last, "kernel cache not writable"));
    hrx_loom_compiler_destroy(c);
  }
  chmod(readonly, 0755);
  free(readonly);
  free(kernels);
  free(blocked);
}

static void test_concurrent_processes(void** state) {
  fixture_t* f = *state;
  enum { CHILDREN = 4 };
  pid_t children[CHILDREN];
  for (int i = 0; i < CHILDREN; ++i) {
    children[i] = fork();
    assert_true(children[i] >= 0);
    if (children[i] == 0) {
      hrx_loom_compiler_options_t options =
          HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
      options.cache_root = f->root;
      hrx_loom_compiler_t* c = NULL;
      hrx_loom_artifact_t* a = NULL;
      hrx_loom_compile_request_t r = {.source = f->saxpy,
                                      .length = f->saxpy_length};
      int ok = hrx_loom_compiler_create("host", &options,
                                        hrx_allocator_system(), &c) == HRX_OK &&
               hrx_loom_compile(c, &r, NULL, &a) == HRX_OK;
      hrx_loom_artifact_destroy(a);
      hrx_loom_compiler_destroy(c);
      _exit(ok ? 0 : 1);
    }
  }
  for (int i = 0; i < CHILDREN; ++i) {
    int status = 0;
    assert_int_equal(waitpid(children[i], &status, 0), children[i]);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  /* One entry, valid, and nothing half-written left behind. */
  char* kernels = test_strdup_printf("%s/kernels", f->root);
  DIR* dir = opendir(kernels);
  int entries = 0, temporaries = 0;
  for (struct dirent* e; (e = readdir(dir));) {
    if (strlen(e->d_name) == 64) entries++;
    if (!strncmp(e->d_name, ".tmp-", 5)) temporaries++;
  }
  closedir(dir);
  free(kernels);
  assert_int_equal(entries, 1);
  assert_int_equal(temporaries, 0);
  hrx_loom_compiler_t* c = make_compiler(f, 0);
  hrx_loom_artifact_t* a = compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
  assert_true(hrx_loom_artifact_cache_hit(a));
  hrx_loom_artifact_destroy(a);
  hrx_loom_compiler_destroy(c);
}

static void test_compile_all_in_order(void** state) {
  fixture_t* f = *state;
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.cache_root = f->root;
  options.workers = 3;
  hrx_loom_compiler_t* c = NULL;
  assert_ok(hrx_loom_compiler_create("host", &options, hrx_allocator_system(),
                                     &c));
  const char* names[] = {"saxpy.loom", "gather.loom", "transpose.loom",
                         "histogram.loom", "reduce_sum.loom"};
  char* texts[5];
  hrx_loom_compile_request_t requests[7];
  for (int i = 0; i < 5; ++i) {
    texts[i] = loom_test_read_kernel(names[i], NULL);
    requests[i] = (hrx_loom_compile_request_t){.source = texts[i],
                                               .length = strlen(texts[i])};
  }
  requests[5] = (hrx_loom_compile_request_t){.source = "bogus", .length = 5};
  requests[6] = (hrx_loom_compile_request_t){
      .source = texts[0], .length = strlen(texts[0]), .export_name = "nope"};
  hrx_loom_artifact_t* artifacts[7];
  hrx_status_t statuses[7];
  assert_ok(hrx_loom_compile_all(c, requests, 7, artifacts, statuses));
  for (int i = 0; i < 5; ++i) {
    assert_ok(statuses[i]);
    char* expected = strdup(names[i]);
    *strchr(expected, '.') = '\0';
    const char* manifest = hrx_loom_artifact_manifest(artifacts[i]);
    assert_non_null(strstr(manifest, expected) ? manifest : NULL);
    free(expected);
    hrx_loom_artifact_destroy(artifacts[i]);
    free(texts[i]);
  }
  assert_null(artifacts[5]);
  assert_status_code(statuses[5], HRX_STATUS_INVALID_ARGUMENT);
  assert_null(artifacts[6]);
  assert_status_code(statuses[6], HRX_STATUS_NOT_FOUND);
  hrx_loom_compiler_destroy(c);
}

static void test_trace_and_errors(void** state) {
  fixture_t* f = *state;
  hrx_trace_options_t trace_options = HRX_STRUCT_INIT(hrx_trace_options_t);
  trace_options.format = HRX_TRACE_FORMAT_JSONL;
  hrx_trace_t* trace = NULL;
  assert_ok(hrx_trace_create(&trace_options, hrx_allocator_system(), &trace));
  const char* after[] = {"parse"};
  const char* before[] = {"lower"};
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.cache_root = f->root;
  options.trace = trace;
  options.trace_after = after;
  options.trace_after_count = 1;
  options.trace_before = before;
  options.trace_before_count = 1;
  hrx_loom_compiler_t* c = NULL;
  assert_ok(hrx_loom_compiler_create("host", &options, hrx_allocator_system(),
                                     &c));
  /* Cached already, but tracing compiles anyway. */
  hrx_loom_artifact_t* a = compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
  hrx_loom_artifact_t* b = compile_text(c, f->saxpy, f->saxpy_length, NULL, NULL);
  assert_false(hrx_loom_artifact_cache_hit(b));
  char* text = NULL;
  assert_ok(hrx_trace_serialize(trace, hrx_allocator_system(), &text, NULL));
  assert_non_null(strstr(text, "\"name\":\"parse-verify\""));
  assert_non_null(strstr(text, "\"name\":\"lower-host\""));
  assert_non_null(strstr(text, "\"after\":\"host.target<cpu>"));
  assert_non_null(strstr(text, "\"before\":\"host.target<cpu>"));
  free(text);
  hrx_loom_artifact_destroy(a);
  hrx_loom_artifact_destroy(b);
  hrx_loom_compiler_destroy(c);
  hrx_trace_release(trace);
  /* Bad targets, sanitizers and requests. */
  assert_status_code(hrx_loom_compiler_create("gfx9999", NULL,
                                              hrx_allocator_system(), &c),
                     HRX_STATUS_UNIMPLEMENTED);
  uint32_t bits = 0;
  assert_ok(hrx_loom_sanitizers_parse("access,race", &bits));
  assert_int_equal(bits, HRX_LOOM_SANITIZE_ACCESS | HRX_LOOM_SANITIZE_RACE);
  assert_status_code(hrx_loom_sanitizers_parse("access,memory", &bits),
                     HRX_STATUS_INVALID_ARGUMENT);
  c = make_compiler(f, 0);
  hrx_loom_diagnostics_t* diagnostics = NULL;
  assert_ok(hrx_loom_diagnostics_create(0, hrx_allocator_system(),
                                        &diagnostics));
  hrx_loom_compile_request_t bad = {.source = "kernel.def @k() {",
                                    .length = 17, .source_name = "bad.loom"};
  hrx_loom_artifact_t* none = NULL;
  assert_status_code(hrx_loom_compile(c, &bad, diagnostics, &none),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_null(none);
  assert_true(hrx_loom_diagnostics_error_count(diagnostics) > 0);
  assert_status_code(hrx_loom_compile(c, NULL, NULL, &none),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_loom_diagnostics_destroy(diagnostics);
  hrx_loom_compiler_destroy(c);
}

/* Compiler options across struct sizes: smaller than the first release
 * is refused, naming the type; a newer caller's larger struct is accepted
 * when the members this library does not know are zero. */
static void test_options_struct_size(void** state) {
  (void)state;
  hrx_loom_compiler_t* c = NULL;
  hrx_loom_compiler_options_t older =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  older.struct_size =
      HRX_STRUCT_SIZE_THROUGH(hrx_loom_compiler_options_t, cache_root);
  assert_status(hrx_loom_compiler_create("host", &older,
                                         hrx_allocator_system(), &c),
                HRX_STATUS_INVALID_ARGUMENT,
                "hrx_loom_compiler_options_t.struct_size is");
  assert_null(c);

  struct {
    hrx_loom_compiler_options_t known;
    uint32_t future;
  } newer;
  memset(&newer, 0, sizeof(newer));
  newer.known.struct_size = sizeof(newer);
  newer.known.disable_cache = true;
  assert_ok(hrx_loom_compiler_create("host", &newer.known,
                                     hrx_allocator_system(), &c));
  hrx_loom_compiler_destroy(c);
  c = NULL;
  newer.future = 3;
  assert_status(hrx_loom_compiler_create("host", &newer.known,
                                         hrx_allocator_system(), &c),
                HRX_STATUS_INVALID_ARGUMENT, "hrx_loom_compiler_options_t");
  assert_null(c);
}

/* The compiler retains its trace: the caller may release it at once. */
static void test_compiler_retains_trace(void** state) {
  fixture_t* f = *state;
  hrx_trace_options_t trace_options = HRX_STRUCT_INIT(hrx_trace_options_t);
  trace_options.format = HRX_TRACE_FORMAT_JSONL;
  hrx_trace_t* trace = NULL;
  assert_ok(hrx_trace_create(&trace_options, hrx_allocator_system(), &trace));
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.disable_cache = true;
  options.trace = trace;
  hrx_loom_compiler_t* c = NULL;
  assert_ok(hrx_loom_compiler_create("host", &options, hrx_allocator_system(),
                                     &c));
  hrx_trace_release(trace);
  /* Every pass records into it. */
  hrx_loom_artifact_t* a =
      compile_text(c, f->saxpy, f->saxpy_length, "saxpy", NULL);
  hrx_loom_artifact_destroy(a);
  hrx_loom_compiler_destroy(c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_compiler_retains_trace, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_options_struct_size, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_hit_and_miss, setup, teardown),
      cmocka_unit_test_setup_teardown(test_key_components, setup, teardown),
      cmocka_unit_test_setup_teardown(test_corrupt_entry_is_replaced, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_forged_entry_is_rebuilt, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_special_files_in_entry, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_unwritable_cache_still_compiles,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_concurrent_processes, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_compile_all_in_order, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_trace_and_errors, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
