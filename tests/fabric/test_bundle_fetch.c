/* Bundle downloads against a loopback HTTP server run by this test
 * (127.0.0.1, an ephemeral port): good, tampered, truncated, failing,
 * stalled, trickling, endless, redirected and flaky transfers, deadlines
 * and size limits, concurrent provisioning and offline mode. */
#include <dirent.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hrx/fabric.h"
#include "hrx/fabric/bundle.h"
#include "test_http.h"
#include "test_support.h"

typedef struct server_t {
  test_http_server_t* http;
  int port;
  uint8_t* body;
  size_t length;
  atomic_int good_requests;
  atomic_int flaky_requests;
  /* Range requests: how many, and where the last one began. */
  atomic_int range_requests;
  atomic_long range_first;
  atomic_int full_requests; /* requests without Range to resuming routes */
  atomic_int endless_requests;
  atomic_long endless_sent; /* bytes the endless route got out */
  atomic_bool endless_done;
} server_t;

/* Like test_http_send, but says whether the client took everything. */
static bool send_or_stop(int fd, const void* data, size_t length) {
  const char* at = data;
  while (length) {
    ssize_t n = send(fd, at, length, MSG_NOSIGNAL);
    if (n <= 0) return false;
    at += n;
    length -= (size_t)n;
  }
  return true;
}

/* Headers promising the whole body, which the caller does not send. */
static void send_promise(int fd, const server_t* s) {
  char header[128];
  snprintf(header, sizeof(header),
           "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
           "Connection: close\r\n\r\n",
           s->length);
  test_http_send(fd, header, strlen(header));
}

/* The promise, then a byte every 20 ms (50 bytes/s) for up to 8 s or
 * until the client goes away: alive, but far too slow. */
static void send_trickle(int fd, const server_t* s) {
  send_promise(fd, s);
  for (size_t i = 0; i < 400 && i < s->length; ++i) {
    if (!send_or_stop(fd, s->body + i, 1)) return;
    usleep(20 * 1000);
  }
}

/* No Content-Length: the archive over and over until the client goes
 * away (at most 256 MiB). */
static void send_endless(int fd, server_t* s) {
  atomic_fetch_add(&s->endless_requests, 1);
  const char* header = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";
  test_http_send(fd, header, strlen(header));
  for (long sent = 0; sent < (256L << 20); sent += (long)s->length) {
    if (!send_or_stop(fd, s->body, s->length)) break;
    atomic_fetch_add(&s->endless_sent, (long)s->length);
  }
  atomic_store(&s->endless_done, true);
}

static void send_truncated(int fd, const server_t* s) {
  send_promise(fd, s);
  test_http_send(fd, s->body, s->length / 2);
}

/* Routes that break the first full transfer half way and then answer a
 * Range request their own way: "/resume" as a server should, "/norange"
 * ignoring it (200, everything), "/misplaced" with bytes from the wrong
 * place, "/refuse" with 416. Without Range, the first request of each is
 * truncated and later ones are whole. */
static void serve_resuming(int fd, const test_http_request_t* r,
                           server_t* s) {
  char range[64];
  if (!test_http_header(r, "Range", range, sizeof(range))) {
    if (atomic_fetch_add(&s->full_requests, 1) == 0) {
      send_truncated(fd, s);
    } else {
      test_http_respond(fd, r, "200 OK", NULL, s->body, s->length);
    }
    return;
  }
  atomic_fetch_add(&s->range_requests, 1);
  unsigned long first = 0;
  if (sscanf(range, "bytes=%lu-", &first) != 1 || first >= s->length) {
    first = s->length;
  }
  atomic_store(&s->range_first, (long)first);
  if (!strcmp(r->path, "/norange")) {
    test_http_respond(fd, r, "200 OK", NULL, s->body, s->length);
    return;
  }
  if (!strcmp(r->path, "/refuse") || first == s->length) {
    test_http_respond(fd, r, "416 Range Not Satisfiable", NULL, NULL, 0);
    return;
  }
  if (!strcmp(r->path, "/misplaced")) first /= 2;
  char headers[128];
  snprintf(headers, sizeof(headers), "Content-Range: bytes %lu-%zu/%zu\r\n",
           first, s->length - 1, s->length);
  test_http_respond(fd, r, "206 Partial Content", headers, s->body + first,
                    s->length - first);
}

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
  if (!strcmp(path, "/resume") || !strcmp(path, "/norange") ||
      !strcmp(path, "/misplaced") || !strcmp(path, "/refuse")) {
    serve_resuming(fd, r, s);
  } else if (!strcmp(path, "/good") ||
      (!strcmp(path, "/flaky") && atomic_fetch_add(&s->flaky_requests, 1))) {
    if (!strcmp(path, "/good")) atomic_fetch_add(&s->good_requests, 1);
    test_http_respond(fd, r, "200 OK", NULL, s->body, s->length);
  } else if (!strcmp(path, "/tampered")) {
    uint8_t* copy = malloc(s->length);
    memcpy(copy, s->body, s->length);
    copy[s->length / 2] ^= 1;
    test_http_respond(fd, r, "200 OK", NULL, copy, s->length);
    free(copy);
  } else if (!strcmp(path, "/truncated")) {
    send_truncated(fd, s); /* promises the whole body, sends half */
  } else if (!strcmp(path, "/slow")) {
    send_promise(fd, s); /* then stall well past the client's timeout */
    usleep(3000 * 1000);
  } else if (!strcmp(path, "/trickle")) {
    send_trickle(fd, s);
  } else if (!strcmp(path, "/endless")) {
    send_endless(fd, s);
  } else if (!strcmp(path, "/oversized")) {
    /* Announces (and sends) twice the archive. */
    uint8_t* twice = malloc(2 * s->length);
    memcpy(twice, s->body, s->length);
    memcpy(twice + s->length, s->body, s->length);
    test_http_respond(fd, r, "200 OK", NULL, twice, 2 * s->length);
    free(twice);
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
  hrx_fabric_bundle_pack_options_t options =
      HRX_STRUCT_INIT(hrx_fabric_bundle_pack_options_t);
  options.target = "gfx1151";
  options.url = "http://x/";
  options.revision = "r1";
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

static bool ends_with(const char* name, const char* suffix) {
  size_t n = strlen(name), m = strlen(suffix);
  return n >= m && !strcmp(name + n - m, suffix);
}

/* Entries under bundles/ other than locks and a download kept for
 * resuming (a half-installed bundle or a temporary would show here). */
static int visible_entries(const char* cache) {
  char* store = test_strdup_printf("%s/bundles", cache);
  DIR* dir = opendir(store);
  free(store);
  if (!dir) return 0;
  int count = 0;
  for (struct dirent* e; (e = readdir(dir));) {
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
        !ends_with(e->d_name, ".lock") && !ends_with(e->d_name, ".partial")) {
      count++;
    }
  }
  closedir(dir);
  return count;
}

/* <cache>/bundles/<archive sha256>.partial */
static char* partial_path(const fixture_t* f) {
  char hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&f->manifest->archive_sha256, hex);
  return test_strdup_printf("%s/bundles/%s.partial", f->cache, hex);
}

static long file_size(const char* path) {
  struct stat info;
  return stat(path, &info) == 0 ? (long)info.st_size : -1;
}

/* A second without a byte is a stall (the throughput tests ask for more). */
static const hrx_fabric_bundle_fetch_options_t quick = {
    .struct_size = sizeof(hrx_fabric_bundle_fetch_options_t),
    .progress = HRX_FABRIC_BUNDLE_PROGRESS_QUIET,
    .stall_timeout_ms = 1000,
    .min_bytes_per_second = 1,
    .attempts = 1};

static void expect_failure(fixture_t* f, const char* route,
                           hrx_status_code_t code, const char* text) {
  use_route(f, route);
  /* Only the stall case wants the one-second window: on a loaded machine
   * a redirect loop can take that long without a byte of body. */
  hrx_fabric_bundle_fetch_options_t options = quick;
  if (strcmp(route, "/slow") != 0) options.stall_timeout_ms = 30000;
  char* dir = NULL;
  hrx_status_t status = hrx_fabric_bundle_provision(
      f->manifest, f->cache, &options, hrx_allocator_system(), &dir);
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

static hrx_status_t provision(fixture_t* f, const char* route,
                              uint32_t attempts) {
  use_route(f, route);
  hrx_fabric_bundle_fetch_options_t options = quick;
  options.attempts = attempts;
  char* dir = NULL;
  hrx_status_t status = hrx_fabric_bundle_provision(
      f->manifest, f->cache, &options, hrx_allocator_system(), &dir);
  if (status == HRX_OK) assert_non_null(strstr(dir, "/bundles/"));
  free(dir);
  return status;
}

static void test_interrupted_download_resumes_later(void** state) {
  fixture_t* f = *state;
  assert_status(provision(f, "/resume", 1), HRX_STATUS_UNAVAILABLE,
                "the next try resumes");
  assert_int_equal(visible_entries(f->cache), 0);
  char* partial = partial_path(f);
  long kept = file_size(partial);
  assert_true(kept > 0 && kept < (long)f->server.length);

  assert_ok(provision(f, "/resume", 1));
  assert_int_equal(atomic_load(&f->server.range_requests), 1);
  assert_int_equal(atomic_load(&f->server.range_first), kept);
  assert_int_equal(atomic_load(&f->server.full_requests), 1);
  assert_int_equal(file_size(partial), -1);
  assert_int_equal(visible_entries(f->cache), 1);
  free(partial);
}

static void test_resume_within_one_call(void** state) {
  fixture_t* f = *state;
  assert_ok(provision(f, "/resume", 3));
  assert_int_equal(atomic_load(&f->server.full_requests), 1);
  assert_int_equal(atomic_load(&f->server.range_requests), 1);
  assert_true(atomic_load(&f->server.range_first) > 0);
}

/* A server that ignores Range, answers it from the wrong place or refuses
 * it: the download starts over and still installs. */
static void test_servers_that_do_not_resume(void** state) {
  fixture_t* f = *state;
  assert_ok(provision(f, "/norange", 3));
  assert_int_equal(atomic_load(&f->server.range_requests), 1);
  static const char* const routes[] = {"/misplaced", "/refuse"};
  for (int i = 0; i < 2; ++i) {
    assert_ok(hrx_dir_remove_all(f->cache, NULL));
    atomic_store(&f->server.full_requests, 0);
    atomic_store(&f->server.range_requests, 0);
    assert_ok(provision(f, routes[i], 3));
    /* Truncated, refused or misplaced, then whole. */
    assert_int_equal(atomic_load(&f->server.full_requests), 2);
    assert_int_equal(atomic_load(&f->server.range_requests), 1);
  }
}

/* Leading bytes that are not the archive's (left by another revision
 * served at the same URL, say) cost one full download, never a bad
 * bundle. */
static void test_stale_partial_restarts_once(void** state) {
  fixture_t* f = *state;
  char* store = test_strdup_printf("%s/bundles", f->cache);
  assert_ok(hrx_dir_create_all(store, 0755));
  char* partial = partial_path(f);
  char junk[1000];
  memset(junk, 'x', sizeof(junk));
  test_write_file(partial, junk, sizeof(junk));
  atomic_store(&f->server.full_requests, 1); /* whole from now on */
  assert_ok(provision(f, "/resume", 1));
  assert_int_equal(atomic_load(&f->server.range_requests), 1);
  assert_int_equal(atomic_load(&f->server.range_first), sizeof(junk));
  assert_int_equal(atomic_load(&f->server.full_requests), 2);
  assert_int_equal(file_size(partial), -1);
  free(partial);
  free(store);
}

/* A whole archive left by a download whose install never ran installs
 * with no request at all. */
static void test_finished_partial_needs_no_request(void** state) {
  fixture_t* f = *state;
  char* store = test_strdup_printf("%s/bundles", f->cache);
  assert_ok(hrx_dir_create_all(store, 0755));
  char* partial = partial_path(f);
  test_write_file(partial, f->server.body, f->server.length);
  assert_ok(provision(f, "/resume", 1));
  assert_int_equal(atomic_load(&f->server.full_requests), 0);
  assert_int_equal(atomic_load(&f->server.range_requests), 0);
  assert_int_equal(file_size(partial), -1);
  assert_int_equal(visible_entries(f->cache), 1);
  free(partial);
  free(store);
}

static uint64_t elapsed_ms(uint64_t start_ns) {
  return (hrx_clock_monotonic_ns() - start_ns) / 1000000;
}

/* 50 bytes a second keeps a transfer alive byte by byte, far below the
 * default minimum of 1 KiB/s: the window ends it, not the server. */
static void test_trickle_fails_the_throughput_window(void** state) {
  fixture_t* f = *state;
  use_route(f, "/trickle");
  hrx_fabric_bundle_fetch_options_t options =
      HRX_STRUCT_INIT(hrx_fabric_bundle_fetch_options_t);
  options.progress = HRX_FABRIC_BUNDLE_PROGRESS_QUIET;
  options.stall_timeout_ms = 300;
  options.attempts = 1;
  uint64_t start = hrx_clock_monotonic_ns();
  char* dir = NULL;
  assert_status(hrx_fabric_bundle_provision(f->manifest, f->cache, &options,
                                            hrx_allocator_system(), &dir),
                HRX_STATUS_DEADLINE_EXCEEDED,
                "below the minimum of 1024 bytes/s");
  /* The trickle would go on for 8 s. */
  assert_true(elapsed_ms(start) < 6000);
  assert_null(dir);
  assert_int_equal(visible_entries(f->cache), 0);
}

/* A transfer fast enough for the window still ends at the deadline, and
 * no retry starts after it. */
static void test_deadline_bounds_every_try(void** state) {
  fixture_t* f = *state;
  use_route(f, "/trickle");
  hrx_fabric_bundle_fetch_options_t options =
      HRX_STRUCT_INIT(hrx_fabric_bundle_fetch_options_t);
  options.progress = HRX_FABRIC_BUNDLE_PROGRESS_QUIET;
  options.stall_timeout_ms = 60000;
  options.min_bytes_per_second = 1;
  options.deadline_ms = 700;
  options.attempts = 3;
  uint64_t start = hrx_clock_monotonic_ns();
  char* dir = NULL;
  assert_status(hrx_fabric_bundle_provision(f->manifest, f->cache, &options,
                                            hrx_allocator_system(), &dir),
                HRX_STATUS_DEADLINE_EXCEEDED, "passed its deadline");
  assert_true(elapsed_ms(start) < 6000);
  assert_null(dir);
}

/* The endless route's sender has given up; what it got out. */
static long endless_sent(server_t* s) {
  for (int i = 0; i < 1000 && !atomic_load(&s->endless_done); ++i) {
    usleep(10 * 1000);
  }
  assert_true(atomic_load(&s->endless_done));
  return atomic_load(&s->endless_sent);
}

/* A body without Content-Length stops as soon as it passes the size
 * bundle.json pins; one that announces more is refused before a byte is
 * written. Neither is retried, and nothing is kept. */
static void test_download_stops_at_the_pinned_size(void** state) {
  fixture_t* f = *state;
  assert_int_equal(f->manifest->size, f->server.length);
  char* pins = test_strdup_printf("more than the %zu bytes bundle.json pins",
                                  f->server.length);
  assert_status(provision(f, "/endless", 3), HRX_STATUS_DATA_LOSS, pins);
  assert_int_equal(atomic_load(&f->server.endless_requests), 1);
  /* Socket buffers hold a few MiB; without the limit it is 256 MiB. */
  assert_true(endless_sent(&f->server) < (32L << 20));
  char* partial = partial_path(f);
  assert_int_equal(file_size(partial), -1);
  assert_status(provision(f, "/oversized", 3), HRX_STATUS_DATA_LOSS, pins);
  assert_int_equal(file_size(partial), -1);
  assert_int_equal(visible_entries(f->cache), 0);
  free(partial);
  free(pins);
}

/* Without a pinned size (an older bundle.json) the cap applies. */
static void test_download_cap_without_a_pinned_size(void** state) {
  fixture_t* f = *state;
  f->manifest->size = 0;
  hrx_fabric_bundle_fetch_options_t capped = quick;
  capped.max_bytes = f->server.length / 2;
  char* dir = NULL;
  use_route(f, "/endless");
  assert_status(hrx_fabric_bundle_provision(f->manifest, f->cache, &capped,
                                            hrx_allocator_system(), &dir),
                HRX_STATUS_RESOURCE_EXHAUSTED, "bundle.json without \"size\"");
  assert_true(endless_sent(&f->server) < (32L << 20));
  use_route(f, "/good");
  assert_status(hrx_fabric_bundle_provision(f->manifest, f->cache, &capped,
                                            hrx_allocator_system(), &dir),
                HRX_STATUS_RESOURCE_EXHAUSTED, "more than");
  assert_int_equal(visible_entries(f->cache), 0);
  /* The default cap is generous. */
  assert_ok(provision(f, "/good", 1));
}

/* A FIFO where the partial download belongs is refused, not read
 * forever. */
static void test_partial_must_be_a_regular_file(void** state) {
  fixture_t* f = *state;
  char* store = test_strdup_printf("%s/bundles", f->cache);
  assert_ok(hrx_dir_create_all(store, 0755));
  char* partial = partial_path(f);
  assert_int_equal(mkfifo(partial, 0644), 0);
  assert_status(provision(f, "/good", 1), HRX_STATUS_INVALID_ARGUMENT,
                "is a FIFO");
  free(partial);
  free(store);
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
      cmocka_unit_test_setup_teardown(test_interrupted_download_resumes_later,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_resume_within_one_call, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_servers_that_do_not_resume, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_stale_partial_restarts_once, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_finished_partial_needs_no_request,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_trickle_fails_the_throughput_window,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_deadline_bounds_every_try, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_download_stops_at_the_pinned_size,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_download_cap_without_a_pinned_size,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_partial_must_be_a_regular_file,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
