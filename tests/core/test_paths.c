/* XDG paths: cache root, relative-value rejection, runtime fallback. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_support.h"

typedef struct saved_env_t {
  char* xdg_cache;
  char* home;
  char* xdg_runtime;
  char* tmpdir;
} saved_env_t;

static char* dup_env(const char* name) {
  const char* value = getenv(name);
  return value ? strdup(value) : NULL;
}

static void restore_env(const char* name, char* value) {
  if (value) {
    setenv(name, value, 1);
    free(value);
  } else {
    unsetenv(name);
  }
}

static int save(void** state) {
  saved_env_t* saved = calloc(1, sizeof(*saved));
  saved->xdg_cache = dup_env("XDG_CACHE_HOME");
  saved->home = dup_env("HOME");
  saved->xdg_runtime = dup_env("XDG_RUNTIME_DIR");
  saved->tmpdir = dup_env("TMPDIR");
  *state = saved;
  return 0;
}

static int restore(void** state) {
  saved_env_t* saved = *state;
  restore_env("XDG_CACHE_HOME", saved->xdg_cache);
  restore_env("HOME", saved->home);
  restore_env("XDG_RUNTIME_DIR", saved->xdg_runtime);
  restore_env("TMPDIR", saved->tmpdir);
  free(saved);
  return 0;
}

static void expect_cache_root(const char* expected, hrx_path_source_t source) {
  char* path = NULL;
  hrx_path_source_t actual = (hrx_path_source_t)-1;
  assert_ok(hrx_path_cache_root(hrx_allocator_system(), &path, &actual));
  assert_string_equal(path, expected);
  assert_int_equal(actual, source);
  free(path);
}

static void test_cache_root_from_xdg(void** state) {
  (void)state;
  setenv("XDG_CACHE_HOME", "/var/cache/me/", 1);
  setenv("HOME", "/home/me", 1);
  expect_cache_root("/var/cache/me/hrx", HRX_PATH_SOURCE_XDG);
}

static void test_relative_xdg_is_ignored(void** state) {
  (void)state;
  setenv("XDG_CACHE_HOME", "relative/cache", 1);
  setenv("HOME", "/home/me", 1);
  expect_cache_root("/home/me/.cache/hrx", HRX_PATH_SOURCE_HOME);
  setenv("XDG_CACHE_HOME", "", 1);
  expect_cache_root("/home/me/.cache/hrx", HRX_PATH_SOURCE_HOME);
}

static void test_no_home_uses_user_database(void** state) {
  (void)state;
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  char* path = NULL;
  hrx_path_source_t source;
  hrx_status_t status =
      hrx_path_cache_root(hrx_allocator_system(), &path, &source);
  if (status == HRX_OK) {
    assert_int_equal(source, HRX_PATH_SOURCE_PASSWD);
    assert_true(path[0] == '/');
    assert_non_null(strstr(path, "/.cache/hrx"));
    free(path);
  } else {
    assert_null(path);
    assert_status_code(status, HRX_STATUS_NOT_FOUND);
  }
}

static void test_runtime_dir(void** state) {
  (void)state;
  char* path = NULL;
  hrx_path_source_t source;
  setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1);
  assert_ok(hrx_path_runtime_dir(hrx_allocator_system(), &path, &source));
  assert_string_equal(path, "/run/user/1000/hrx");
  assert_int_equal(source, HRX_PATH_SOURCE_XDG);
  free(path);
  setenv("XDG_RUNTIME_DIR", "run/relative", 1);
  setenv("TMPDIR", "/scratch", 1);
  assert_ok(hrx_path_runtime_dir(hrx_allocator_system(), &path, &source));
  char* expected =
      test_strdup_printf("/scratch/hrx-runtime-%lu", (unsigned long)getuid());
  assert_string_equal(path, expected);
  assert_int_equal(source, HRX_PATH_SOURCE_TMP_FALLBACK);
  free(expected);
  free(path);
}

static void test_join(void** state) {
  (void)state;
  char* path = NULL;
  assert_ok(hrx_path_join(hrx_allocator_system(), "/a/b//", "/c", &path));
  assert_string_equal(path, "/a/b/c");
  free(path);
  assert_ok(hrx_path_join(hrx_allocator_system(), "/", "x", &path));
  assert_string_equal(path, "/x");
  free(path);
  test_allocator_t counts = {.fail_at = 1};
  assert_status_code(
      hrx_path_join(test_allocator(&counts), "/a", "b", &path),
      HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_null(path);
}

static void test_parent(void** state) {
  (void)state;
  static const char* const cases[][2] = {
      {"/a/b/c.json", "/a/b"}, {"/x", "/"}, {"c.json", "."},
      {"rel/c.json", "rel"}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    char* parent = NULL;
    assert_ok(hrx_path_parent(hrx_allocator_system(), cases[i][0], &parent));
    assert_string_equal(parent, cases[i][1]);
    free(parent);
  }
  char* parent = NULL;
  test_allocator_t counts = {.fail_at = 1};
  assert_status_code(
      hrx_path_parent(test_allocator(&counts), "/a/b", &parent),
      HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_null(parent);
}

static void test_private_dir(void** state) {
  (void)state;
  char* dir = test_temp_dir_create();
  char* nested = test_strdup_printf("%s/a/b/runtime", dir);
  assert_ok(hrx_path_ensure_private_dir(nested));
  struct stat info;
  assert_int_equal(stat(nested, &info), 0);
  assert_int_equal(info.st_mode & 0777, 0700);
  /* Idempotent. */
  assert_ok(hrx_path_ensure_private_dir(nested));
  /* Writable by others: refused. */
  chmod(nested, 0777);
  assert_status_code(hrx_path_ensure_private_dir(nested),
                     HRX_STATUS_PERMISSION_DENIED);
  /* A symlink in place of the directory: refused. */
  char* link = test_strdup_printf("%s/link", dir);
  assert_int_equal(symlink(nested, link), 0);
  assert_status_code(hrx_path_ensure_private_dir(link),
                     HRX_STATUS_PERMISSION_DENIED);
  free(link);
  free(nested);
  test_temp_dir_remove(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_cache_root_from_xdg, save,
                                      restore),
      cmocka_unit_test_setup_teardown(test_relative_xdg_is_ignored, save,
                                      restore),
      cmocka_unit_test_setup_teardown(test_no_home_uses_user_database, save,
                                      restore),
      cmocka_unit_test_setup_teardown(test_runtime_dir, save, restore),
      cmocka_unit_test(test_join),
      cmocka_unit_test(test_parent),
      cmocka_unit_test(test_private_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
