#include "test_support.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct test_allocation_header_t {
  size_t size;
  size_t pad; /* keeps the payload 16-byte aligned */
} test_allocation_header_t;

static bool test_allocator_should_fail(test_allocator_t* state) {
  return state->fail_at != 0 && state->allocations + 1 >= state->fail_at;
}

static void* counting_alloc(void* self, size_t size) {
  test_allocator_t* state = self;
  if (test_allocator_should_fail(state)) {
    state->allocations++;
    return NULL;
  }
  test_allocation_header_t* header = malloc(sizeof(*header) + size);
  if (!header) return NULL;
  state->allocations++;
  state->live++;
  header->size = size;
  return header + 1;
}

static void* counting_realloc(void* self, void* ptr, size_t size) {
  test_allocator_t* state = self;
  if (test_allocator_should_fail(state)) {
    state->allocations++;
    return NULL;
  }
  state->allocations++;
  test_allocation_header_t* header = (test_allocation_header_t*)ptr - 1;
  test_allocation_header_t* grown = realloc(header, sizeof(*grown) + size);
  if (!grown) return NULL;
  grown->size = size;
  return grown + 1;
}

static void counting_free(void* self, void* ptr) {
  test_allocator_t* state = self;
  state->frees++;
  state->live--;
  free((test_allocation_header_t*)ptr - 1);
}

hrx_allocator_t test_allocator(test_allocator_t* state) {
  return (hrx_allocator_t){.self = state,
                           .alloc = counting_alloc,
                           .realloc = counting_realloc,
                           .free = counting_free};
}

size_t test_exhaust_allocations(test_alloc_operation_fn operation,
                                test_alloc_cleanup_fn cleanup,
                                void* context) {
  for (size_t fail_at = 1; fail_at < 100000; ++fail_at) {
    test_allocator_t state = {.fail_at = fail_at};
    hrx_allocator_t allocator = test_allocator(&state);
    hrx_status_t status = operation(allocator, context);
    if (status == HRX_OK) {
      if (cleanup) cleanup(allocator, context);
      assert_int_equal(state.live, 0);
      return fail_at - 1;
    }
    if (!hrx_status_is(status, HRX_STATUS_RESOURCE_EXHAUSTED)) {
      char text[512];
      hrx_status_format(status, text, sizeof(text));
      fail_msg("allocation %zu failing gave '%s', not RESOURCE_EXHAUSTED",
               fail_at, text);
    }
    hrx_status_free(status);
    if (state.live != 0) {
      fail_msg("allocation %zu failing leaked %zu allocations", fail_at,
               state.live);
    }
  }
  fail_msg("operation never succeeded");
  return 0;
}

void test_assert_status_code(hrx_status_t status, hrx_status_code_t code,
                             const char* file, int line) {
  hrx_status_code_t actual = hrx_status_code(status);
  if (actual != code) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    hrx_status_free(status);
    print_error("expected %s, got %s\n", hrx_status_code_string(code), text);
    _fail(file, line);
  }
  hrx_status_free(status);
}

void test_assert_status(hrx_status_t status, hrx_status_code_t code,
                        const char* text, const char* file, int line) {
  char formatted[2048];
  hrx_status_format(status, formatted, sizeof(formatted));
  bool matched = hrx_status_code(status) == code && strstr(formatted, text);
  hrx_status_free(status);
  if (!matched) {
    print_error("expected %s with '%s', got %s\n",
                hrx_status_code_string(code), text, formatted);
    _fail(file, line);
  }
}

char* test_temp_dir_create(void) {
  const char* base = getenv("TMPDIR");
  if (!base || base[0] != '/') base = "/tmp";
  char* path = test_strdup_printf("%s/hrx-test-XXXXXX", base);
  assert_non_null(mkdtemp(path));
  return path;
}

void test_temp_dir_remove(char* path) {
  if (!path) return;
  hrx_status_free(hrx_dir_remove_all(path, NULL));
  free(path);
}

size_t test_dir_count(const char* dir, const char* skip_suffix) {
  DIR* handle = opendir(dir);
  if (!handle) return 0;
  size_t count = 0;
  size_t skip = skip_suffix ? strlen(skip_suffix) : 0;
  for (struct dirent* e; (e = readdir(handle));) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    size_t n = strlen(e->d_name);
    if (skip && n >= skip && !strcmp(e->d_name + n - skip, skip_suffix)) {
      continue;
    }
    count++;
  }
  closedir(handle);
  return count;
}

void test_write_file(const char* path, const void* data, size_t length) {
  FILE* file = fopen(path, "wb");
  assert_non_null(file);
  if (length) assert_int_equal(fwrite(data, 1, length, file), length);
  assert_int_equal(fclose(file), 0);
}

char* test_read_text(const char* path) {
  void* data = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 20, &data,
                              &length));
  return data;
}

char* test_strdup_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  char* text = NULL;
  int n = vasprintf(&text, format, args);
  va_end(args);
  assert_true(n >= 0);
  return text;
}

bool test_under_valgrind(void) { return getenv("HRX_TEST_VALGRIND") != NULL; }
