/* Bundle downloads against a loopback HTTP server run by this test
 * (127.0.0.1, an ephemeral port): good, tampered, truncated, failing,
 * stalled, redirected and flaky transfers, concurrent provisioning and
 * offline mode. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hrx/fabric.h"
#include "test_http.h"
#include "test_support.h"

typedef struct server_t {
  test_http_server_t* http;
  int port;
  uint8_t* body;
  size_t length;
  atomic_int good_requests;
  atomic_int flaky_requests;
} server_t;

static void redirect(int fd, const test_http_request_t* r, int port,
                     const char* to) {
  char location[128];
  snprintf(location, sizeof(location),
           "Location: http://127.0.0.1:%d%s\r\n", port, to);
  test_http_respond(fd, r, "302 Found", location, NULL, 0);
}

static void respond(void* context, int fd, const test_http_request_t* r) {
  server_t* s = context;
  const char* path = r->path;
  if (!strcmp(path, "/good") ||
      (!strcmp(path, "/flaky") && atomic_fetch_add(&s->flaky_requests, 1))) {
    if (!strcmp(path, "/good")) atomic_fetch_add(&s->good_requests, 1);
    test_http_respond(fd, r, "200 OK", NULL, s->body, s->length);
  } else if (!strcmp(path, "/tampered")) {
    uint8_t* copy = malloc(s->length);
    memcpy(copy, s->body, s->length);
    copy[s->length / 2] ^= 1;
    test_http_respond(fd, r, "200 OK", NULL, copy, s->length);
    free(copy);
  } else if (!strcmp(path, "/truncated") || !strcmp(path, "/slow")) {
    /* Promise the whole body, then send half of it (or nothing and stall
     * well past the client's stall timeout). */
    char header[128];
    snprintf(header, sizeof(header),
             "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
             "Connection: close\r\n\r\n",
             s->length);
    test_http_send(fd, header, strlen(header));
    if (!strcmp(path, "/slow")) {
      usleep(1500 * 1000);
    } else {
      test_http_send(fd, s->body, s->length / 2);
    }
  } else if (!strcmp(path, "/loop")) {
    redirect(fd, r, s->port, "/loop");
  } else if (!strcmp(path, "/redirect")) {
    redirect(fd, r, s->port, "/good");
  } else if (!strcmp(path, "/flaky")) {
    test_http_respond(fd, r, "503 Service Unavailable", NULL, NULL, 0);
  } else {
    test_http_respond(fd, r, "500 Internal Server Error", NULL, NULL, 0);
  }
}

typedef struct fixture_t {
  char* root;
  char* cache;
  server_t server;
  hrx_fabric_bundle_manifest_t* manifest;
} fixture_t;

static int setup(void** state) {
  fixture_t* f = calloc(1, sizeof(*f));
  f->root = test_temp_dir_create();
  f->cache = test_strdup_printf("%s/cache", f->root);
  char* src = test_strdup_printf("%s/src/k", f->root);
  assert_ok(hrx_dir_create_all(src, 0755));
  char* file = test_strdup_printf("%s/src/k/a.bin", f->root);
  /* Big enough that a half transfer is a real truncation. */
  static char data[200000];
  for (size_t i = 0; i < sizeof(data); ++i) data[i] = (char)(i * 7919 >> 5);
  test_write_file(file, data, sizeof(data));
  char* dir = test_strdup_printf("%s/src", f->root);
  char* archive = test_strdup_printf("%s/b.tar.zst", f->root);
  hrx_fabric_bundle_pack_options_t options = {"gfx1151", "http://x/", "r1"};
  assert_ok(hrx_fabric_bundle_pack(dir, &options, archive,
                                   hrx_allocator_system(), &f->manifest));
  void* body = NULL;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), archive, 1 << 24, &body,
                              &f->server.length));
  f->server.body = body;
  free(src);
  free(file);
  free(dir);
  free(archive);

  f->server.http = test_http_server_start(respond, &f->server);
  f->server.port = test_http_server_port(f->server.http);
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  test_http_server_stop(f->server.http);
  free(f->server.body);
  hrx_fabric_bundle_manifest_destroy(f->manifest);
  test_temp_dir_remove(f->root);
  free(f->cache);
  free(f);
  return 0;
}

static void use_route(fixture_t* f, const char* route) {
  free(f->manifest->url);
  f->manifest->url =
      test_strdup_printf("http://127.0.0.1:%d%s", f->server.port, route);
}

/* Entries under bundles/ other than locks (a half-installed bundle or a
 * leftover download would show here). */
static int visible_entries(const char* cache) {
  char* store = test_strdup_printf("%s/bundles", cache);
  int count = (int)test_dir_count(store, ".lock");
  free(store);
  return count;
}

static const hrx_fabric_bundle_fetch_options_t quick = {
    .progress = HRX_FABRIC_BUNDLE_PROGRESS_QUIET,
    .stall_timeout_ms = 300,
    .attempts = 1};

static void expect_failure(fixture_t* f, const char* route,
                           hrx_status_code_t code, const char* text) {
  use_route(f, route);
  char* dir = NULL;
  hrx_status_t status = hrx_fabric_bundle_provision(
      f->manifest, f->cache, &quick, hrx_allocator_system(), &dir);
  if (!status || hrx_status_code(status) != code ||
      !strstr(hrx_status_message(status), text)) {
    fail_msg("%s: %s", route, status ? hrx_status_message(status) : "OK");
  }
  hrx_status_free(status);
  assert_null(dir);
  assert_int_equal(visible_entries(f->cache), 0);
}

static void test_failed_downloads_install_nothing(void** state) {
  fixture_t* f = *state;
  expect_failure(f, "/tampered", HRX_STATUS_DATA_LOSS, "bundle.json pins");
  expect_failure(f, "/truncated", HRX_STATUS_UNAVAILABLE, "failed");
  expect_failure(f, "/error", HRX_STATUS_UNAVAILABLE, "500");
  expect_failure(f, "/slow", HRX_STATUS_DEADLINE_EXCEEDED, "stalled");
  expect_failure(f, "/loop", HRX_STATUS_UNAVAILABLE, "redirect");
  expect_failure(f, "/missing", HRX_STATUS_UNAVAILABLE, "500");
  /* Offline never reaches the server. */
  use_route(f, "/good");
  hrx_fabric_bundle_fetch_options_t offline = quick;
  offline.offline = true;
  char* dir = NULL;
  hrx_status_t status = hrx_fabric_bundle_provision(
      f->manifest, f->cache, &offline, hrx_allocator_system(), &dir);
  assert_non_null(strstr(hrx_status_message(status), "hrx prepare ARCHIVE"));
  assert_status_code(status, HRX_STATUS_UNAVAILABLE);
  assert_int_equal(atomic_load(&f->server.good_requests), 0);
}

static void test_download_installs_once(void** state) {
  fixture_t* f = *state;
  use_route(f, "/redirect");
  char* dir = NULL;
  /* With a progress bar, which goes to stderr. */
  hrx_fabric_bundle_fetch_options_t bar = quick;
  bar.progress = HRX_FABRIC_BUNDLE_PROGRESS_BAR;
  char* log = test_strdup_printf("%s/stderr", f->root);
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  FILE* capture = fopen(log, "w");
  dup2(fileno(capture), STDERR_FILENO);
  hrx_status_t status = hrx_fabric_bundle_provision(
      f->manifest, f->cache, &bar, hrx_allocator_system(), &dir);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  fclose(capture);
  assert_ok(status);
  void* text = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), log, 1 << 20, &text,
                              &length));
  assert_non_null(strstr(text, "downloading bundle ["));
  assert_non_null(strstr(text, "100%"));
  free(text);
  free(log);
  assert_non_null(strstr(dir, "/bundles/"));
  free(dir);
  assert_int_equal(atomic_load(&f->server.good_requests), 1);
  assert_int_equal(visible_entries(f->cache), 1);
  /* Installed: no more requests. */
  assert_ok(hrx_fabric_bundle_provision(f->manifest, f->cache, &quick,
                                        hrx_allocator_system(), &dir));
  free(dir);
  assert_int_equal(atomic_load(&f->server.good_requests), 1);
}

static void test_retry_after_a_server_error(void** state) {
  fixture_t* f = *state;
  use_route(f, "/flaky");
  hrx_fabric_bundle_fetch_options_t retrying = quick;
  retrying.attempts = 3;
  char* dir = NULL;
  assert_ok(hrx_fabric_bundle_provision(f->manifest, f->cache, &retrying,
                                        hrx_allocator_system(), &dir));
  free(dir);
  assert_int_equal(atomic_load(&f->server.flaky_requests), 2);
}

static void test_concurrent_provisioning_downloads_once(void** state) {
  fixture_t* f = *state;
  use_route(f, "/good");
  pid_t children[3];
  for (int c = 0; c < 3; ++c) {
    children[c] = fork();
    assert_true(children[c] >= 0);
    if (children[c] == 0) {
      char* dir = NULL;
      hrx_status_t status = hrx_fabric_bundle_provision(
          f->manifest, f->cache, &quick, hrx_allocator_system(), &dir);
      _exit(status == HRX_OK ? 0 : 1);
    }
  }
  for (int c = 0; c < 3; ++c) {
    int wstatus = 0;
    assert_int_equal(waitpid(children[c], &wstatus, 0), children[c]);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
  }
  assert_int_equal(atomic_load(&f->server.good_requests), 1);
  assert_int_equal(visible_entries(f->cache), 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_failed_downloads_install_nothing,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_download_installs_once, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_retry_after_a_server_error, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(
          test_concurrent_provisioning_downloads_once, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
