/* The Hugging Face resolver against a loopback hub run by this test: the
 * cache layout huggingface_hub reads, cache-first lookups, offline hits and
 * misses, LFS redirects to a storage host, relative redirects, wrong
 * digests, resumed downloads, tokens, errors and concurrent processes. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hrx/artifacts.h"
#include "test_http.h"
#include "test_support.h"

#define COMMIT_1 "1111111111111111111111111111111111111111"
#define COMMIT_2 "2222222222222222222222222222222222222222"
#define CONFIG_ETAG "0123456789abcdef0123456789abcdef01234567"
#define WEIGHTS_SIZE 300000

typedef struct hub_t {
  test_http_server_t* http;
  int port;
  uint8_t weights[WEIGHTS_SIZE];
  char weights_sha[HRX_SHA256_HEX_SIZE];
  const char* commit; /* where "main" points */
  atomic_int heads;
  atomic_int storage_gets; /* GETs of LFS bytes */
  atomic_int ranged_gets;
  atomic_int storage_auth; /* Authorization headers seen by storage */
  atomic_int flaky_gets;
} hub_t;

static const char config_body[] = "{\"hidden_size\": 64}\n";

/* Storage answers as "localhost", another host than the endpoint
 * (127.0.0.1), so a token leak to storage would show. */
static void lfs_redirect(hub_t* hub, int fd, const test_http_request_t* r,
                         const char* commit, const char* sha,
                         const char* storage) {
  char headers[1024];
  snprintf(headers, sizeof(headers),
           "X-Repo-Commit: %s\r\nX-Linked-Etag: \"%s\"\r\n"
           "X-Linked-Size: %d\r\nETag: W/\"ignored\"\r\n"
           "Location: http://localhost:%d%s\r\n",
           commit, sha, WEIGHTS_SIZE, hub->port, storage);
  test_http_respond(fd, r, "302 Found", headers, NULL, 0);
}

/* LFS bytes from the storage host, honouring Range. */
static void storage(hub_t* hub, int fd, const test_http_request_t* r,
                    const uint8_t* body, size_t length, bool cut_first) {
  char value[256];
  if (test_http_header(r, "Authorization", value, sizeof(value))) {
    atomic_fetch_add(&hub->storage_auth, 1);
  }
  if (strcmp(r->method, "GET") != 0) {
    test_http_respond(fd, r, "200 OK", NULL, body, length);
    return;
  }
  atomic_fetch_add(&hub->storage_gets, 1);
  unsigned long long first = 0;
  if (test_http_header(r, "Range", value, sizeof(value)) &&
      sscanf(value, "bytes=%llu-", &first) == 1) {
    atomic_fetch_add(&hub->ranged_gets, 1);
    if (first >= length) {
      test_http_respond(fd, r, "416 Range Not Satisfiable", NULL, NULL, 0);
      return;
    }
    char headers[128];
    snprintf(headers, sizeof(headers), "Content-Range: bytes %llu-%zu/%zu\r\n",
             first, length - 1, length);
    test_http_respond(fd, r, "206 Partial Content", headers, body + first,
                      length - first);
    return;
  }
  if (cut_first && atomic_fetch_add(&hub->flaky_gets, 1) == 0) {
    /* Promise everything, send 40%, hang up. */
    char header[128];
    snprintf(header, sizeof(header),
             "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n"
             "Connection: close\r\n\r\n",
             length);
    test_http_send(fd, header, strlen(header));
    test_http_send(fd, body, length * 2 / 5);
    return;
  }
  test_http_respond(fd, r, "200 OK", NULL, body, length);
}

/* Storage that answers a range request with the wrong range: from byte 0
 * (as some servers and proxies do) or one byte after the one asked for. */
static void misplaced_storage(hub_t* hub, int fd, const test_http_request_t* r,
                              bool from_zero) {
  char value[256];
  unsigned long long first = 0;
  if (strcmp(r->method, "GET") != 0 ||
      !test_http_header(r, "Range", value, sizeof(value)) ||
      sscanf(value, "bytes=%llu-", &first) != 1) {
    storage(hub, fd, r, hub->weights, WEIGHTS_SIZE, false);
    return;
  }
  atomic_fetch_add(&hub->ranged_gets, 1);
  size_t at = from_zero ? 0 : (size_t)first + 1;
  char headers[128];
  snprintf(headers, sizeof(headers), "Content-Range: bytes %zu-%d/%d\r\n", at,
           WEIGHTS_SIZE - 1, WEIGHTS_SIZE);
  test_http_respond(fd, r, "206 Partial Content", headers, hub->weights + at,
                    WEIGHTS_SIZE - at);
}

/* A body sent one byte every 200 ms under a Content-Length of all of it,
 * until the client hangs up (or 20 s pass, so a broken client cannot hold
 * the test server for ever). */
static void trickle(hub_t* hub, int fd) {
  char header[128];
  snprintf(header, sizeof(header),
           "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
           "Connection: close\r\n\r\n",
           WEIGHTS_SIZE);
  test_http_send(fd, header, strlen(header));
  for (int i = 0; i < 100; ++i) {
    if (send(fd, hub->weights + i, 1, MSG_NOSIGNAL) != 1) return;
    usleep(200 * 1000);
  }
}

/* A body without a length that never ends, until the client hangs up (or
 * 256 MiB are sent). */
static void endless(hub_t* hub, int fd) {
  const char header[] = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n";
  test_http_send(fd, header, strlen(header));
  for (int i = 0; i < 4096; ++i) {
    if (send(fd, hub->weights, 65536, MSG_NOSIGNAL) <= 0) return;
  }
}

/* The hub's answer for an LFS file whose size it does not announce. */
static void unsized_redirect(hub_t* hub, int fd, const test_http_request_t* r,
                             const char* storage) {
  char headers[1024];
  snprintf(headers, sizeof(headers),
           "X-Repo-Commit: %s\r\nX-Linked-Etag: \"%s\"\r\n"
           "Location: http://localhost:%d%s\r\n",
           hub->commit, hub->weights_sha, hub->port, storage);
  test_http_respond(fd, r, "302 Found", headers, NULL, 0);
}

static bool route_is(const test_http_request_t* r, const char* repo,
                     const char* file) {
  char want[512];
  snprintf(want, sizeof(want), "/%s/resolve/", repo);
  if (strncmp(r->path, want, strlen(want)) != 0) return false;
  const char* rest = strchr(r->path + strlen(want), '/');
  return rest && strcmp(rest + 1, file) == 0;
}

static void hub_respond(void* context, int fd, const test_http_request_t* r) {
  hub_t* hub = context;
  if (!strcmp(r->method, "HEAD")) atomic_fetch_add(&hub->heads, 1);
  char value[256];
  if (!strcmp(r->path, "/storage/zero") || !strcmp(r->path, "/storage/off")) {
    misplaced_storage(hub, fd, r, !strcmp(r->path, "/storage/zero"));
  } else if (!strcmp(r->path, "/storage/trickle") &&
             !strcmp(r->method, "GET")) {
    trickle(hub, fd);
  } else if (!strcmp(r->path, "/storage/endless") &&
             !strcmp(r->method, "GET")) {
    endless(hub, fd);
  } else if (!strncmp(r->path, "/storage/", 9)) {
    bool flaky = !strcmp(r->path, "/storage/flaky");
    storage(hub, fd, r, hub->weights, sizeof(hub->weights), flaky);
  } else if (route_is(r, "org/model", "from-zero.bin")) {
    lfs_redirect(hub, fd, r, hub->commit, hub->weights_sha, "/storage/zero");
  } else if (route_is(r, "org/model", "off-by-one.bin")) {
    lfs_redirect(hub, fd, r, hub->commit, hub->weights_sha, "/storage/off");
  } else if (route_is(r, "org/model", "trickle.bin")) {
    lfs_redirect(hub, fd, r, hub->commit, hub->weights_sha,
                 "/storage/trickle");
  } else if (route_is(r, "org/model", "endless.bin")) {
    unsized_redirect(hub, fd, r, "/storage/endless");
  } else if (route_is(r, "org/model", "overlong.bin")) {
    /* Announces WEIGHTS_SIZE bytes, then sends without end. */
    lfs_redirect(hub, fd, r, hub->commit, hub->weights_sha,
                 "/storage/endless");
  } else if (route_is(r, "org/model", "evil-error.bin")) {
    test_http_respond(fd, r, "404 Not Found",
                      "X-Error-Code: EntryNotFound\r\n"
                      "X-Error-Message: \x1b[2Jgone\r\n",
                      NULL, 0);
  } else if (route_is(r, "org/model", "weights.bin") ||
             route_is(r, "datasets/org/data", "weights.bin")) {
    lfs_redirect(hub, fd, r, hub->commit, hub->weights_sha, "/storage/w");
  } else if (route_is(r, "org/model", "flaky.bin")) {
    lfs_redirect(hub, fd, r, hub->commit, hub->weights_sha, "/storage/flaky");
  } else if (route_is(r, "org/model", "bad.bin")) {
    /* The pointer names a digest the bytes do not have. */
    lfs_redirect(hub, fd, r, hub->commit,
                 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                 "aaaa",
                 "/storage/w");
  } else if (route_is(r, "org/model", "config.json") ||
             route_is(r, "org/model", "sub/dir/config.json")) {
    char headers[256];
    snprintf(headers, sizeof(headers),
             "X-Repo-Commit: %s\r\nETag: \"" CONFIG_ETAG "\"\r\n",
             hub->commit);
    test_http_respond(fd, r, "200 OK", headers, config_body,
                      strlen(config_body));
  } else if (!strncmp(r->path, "/org/old-name/", 14)) {
    /* A renamed repository: relative redirect to the new name. */
    char headers[600];
    snprintf(headers, sizeof(headers), "Location: /org/model/%s\r\n",
             r->path + 14);
    test_http_respond(fd, r, "307 Temporary Redirect", headers, NULL, 0);
  } else if (route_is(r, "org/private", "weights.bin")) {
    if (test_http_header(r, "Authorization", value, sizeof(value)) &&
        !strcmp(value, "Bearer hf_secret")) {
      lfs_redirect(hub, fd, r, hub->commit, hub->weights_sha, "/storage/w");
    } else {
      test_http_respond(fd, r, "401 Unauthorized",
                        "X-Error-Code: GatedRepo\r\n", NULL, 0);
    }
  } else if (route_is(r, "org/model", "missing.bin") ||
             route_is(r, "org/model", "sub/missing.bin")) {
    char headers[256];
    snprintf(headers, sizeof(headers),
             "X-Error-Code: EntryNotFound\r\n"
             "X-Error-Message: Entry not found\r\nX-Repo-Commit: %s\r\n",
             hub->commit);
    test_http_respond(fd, r, "404 Not Found", headers, NULL, 0);
  } else if (route_is(r, "org/model", "no-commit.bin")) {
    test_http_respond(fd, r, "200 OK", "ETag: \"abc\"\r\n", "x", 1);
  } else if (route_is(r, "org/model", "evil-etag.bin")) {
    char headers[256];
    snprintf(headers, sizeof(headers),
             "X-Repo-Commit: %s\r\nETag: \"../../escape\"\r\n", hub->commit);
    test_http_respond(fd, r, "200 OK", headers, "x", 1);
  } else {
    test_http_respond(fd, r, "404 Not Found",
                      "X-Error-Code: RepoNotFound\r\n", NULL, 0);
  }
}

typedef struct fixture_t {
  char* root;
  char* cache;
  char* endpoint;
  hub_t hub;
} fixture_t;

static int setup(void** state) {
  fixture_t* f = calloc(1, sizeof(*f));
  f->root = test_temp_dir_create();
  f->cache = test_strdup_printf("%s/hub", f->root);
  for (size_t i = 0; i < WEIGHTS_SIZE; ++i) {
    f->hub.weights[i] = (uint8_t)(i * 2654435761u >> 13);
  }
  hrx_sha256_digest_t digest;
  hrx_sha256(f->hub.weights, WEIGHTS_SIZE, &digest);
  hrx_sha256_digest_format(&digest, f->hub.weights_sha);
  f->hub.commit = COMMIT_1;
  f->hub.http = test_http_server_start(hub_respond, &f->hub);
  f->hub.port = test_http_server_port(f->hub.http);
  f->endpoint = test_strdup_printf("http://127.0.0.1:%d/", f->hub.port);
  unsetenv("HF_HUB_OFFLINE");
  unsetenv("HF_TOKEN");
  unsetenv("HF_TOKEN_PATH");
  setenv("HF_HOME", f->root, 1); /* no stray token file from the user */
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  test_http_server_stop(f->hub.http);
  test_temp_dir_remove(f->root);
  free(f->cache);
  free(f->endpoint);
  free(f);
  return 0;
}

/* |o| is a compound literal whose struct_size the helper fills in, like
 * the defaults below. */
static hrx_hf_resolver_t* resolver(fixture_t* f, hrx_hf_options_t o) {
  if (!o.struct_size) o.struct_size = sizeof(o);
  if (!o.cache_dir) o.cache_dir = f->cache;
  if (!o.endpoint) o.endpoint = f->endpoint;
  if (!o.progress) o.progress = HRX_HF_PROGRESS_SILENT;
  if (!o.stall_timeout_ms) o.stall_timeout_ms = 2000;
  if (!o.attempts) o.attempts = 1;
  hrx_hf_resolver_t* r = NULL;
  assert_ok(hrx_hf_resolver_create(&o, hrx_allocator_system(), &r));
  return r;
}

/* An endpoint nobody listens on (a port just given back). */
static char* closed_endpoint(fixture_t* f) {
  test_http_server_t* gone = test_http_server_start(hub_respond, &f->hub);
  char* url =
      test_strdup_printf("http://127.0.0.1:%d", test_http_server_port(gone));
  test_http_server_stop(gone);
  return url;
}

static hrx_status_t resolve(hrx_hf_resolver_t* r, const char* repo,
                            const char* revision, const char* file,
                            char** out_path) {
  hrx_hf_file_t request = {.repo_id = repo, .revision = revision,
                           .filename = file};
  return hrx_hf_resolve(r, &request, hrx_allocator_system(), out_path, NULL);
}

static void assert_file_equals(const char* path, const void* data,
                               size_t length) {
  void* got = NULL;
  size_t got_length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 24, &got,
                              &got_length));
  assert_int_equal(got_length, length);
  assert_memory_equal(got, data, length);
  free(got);
}

static void assert_link(const char* path, const char* target) {
  char buffer[512];
  ssize_t n = readlink(path, buffer, sizeof(buffer) - 1);
  assert_true(n > 0);
  buffer[n] = '\0';
  assert_string_equal(buffer, target);
}

static void test_download_publishes_the_hub_layout(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  hrx_hf_commit_t commit;
  hrx_hf_file_t request = {.repo_id = "org/model", .filename = "weights.bin"};
  assert_ok(
      hrx_hf_resolve(r, &request, hrx_allocator_system(), &path, &commit));
  assert_string_equal(commit.hex, COMMIT_1);
  char* want = test_strdup_printf(
      "%s/models--org--model/snapshots/" COMMIT_1 "/weights.bin", f->cache);
  assert_string_equal(path, want);
  assert_file_equals(path, f->hub.weights, WEIGHTS_SIZE);
  char* target = test_strdup_printf("../../blobs/%s", f->hub.weights_sha);
  assert_link(path, target);
  char* ref = test_strdup_printf("%s/models--org--model/refs/main", f->cache);
  assert_file_equals(ref, COMMIT_1, 40);
  char* blobs = test_strdup_printf("%s/models--org--model/blobs", f->cache);
  assert_int_equal(test_dir_count(blobs, NULL), 1); /* no .incomplete */
  assert_int_equal(atomic_load(&f->hub.storage_gets), 1);
  assert_int_equal(atomic_load(&f->hub.storage_auth), 0);
  free(path);

  /* The cache answers first: by ref and by commit, no request at all. */
  int heads = atomic_load(&f->hub.heads);
  assert_ok(resolve(r, "org/model", NULL, "weights.bin", &path));
  free(path);
  assert_ok(resolve(r, "org/model", COMMIT_1, "weights.bin", &path));
  assert_string_equal(path, want);
  free(path);
  assert_int_equal(atomic_load(&f->hub.heads), heads);

  /* A non-LFS file is named by its git ETag; nested names link further up. */
  assert_ok(resolve(r, "org/model", "main", "sub/dir/config.json", &path));
  assert_file_equals(path, config_body, strlen(config_body));
  assert_link(path, "../../../../blobs/" CONFIG_ETAG);
  free(path);
  /* A dataset lives in its own folder. */
  hrx_hf_file_t data = {.repo_type = HRX_HF_REPO_DATASET,
                        .repo_id = "org/data", .filename = "weights.bin"};
  assert_ok(hrx_hf_resolve(r, &data, hrx_allocator_system(), &path, NULL));
  assert_non_null(strstr(path, "/datasets--org--data/snapshots/"));
  free(path);
  free(want);
  free(target);
  free(ref);
  free(blobs);
  hrx_hf_resolver_destroy(r);
}

static void test_offline_hit_and_miss(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){.offline = true});
  assert_true(hrx_hf_resolver_offline(r));
  char* path = NULL;
  hrx_status_t status = resolve(r, "org/model", NULL, "weights.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), f->cache));
  assert_non_null(strstr(hrx_status_message(status), "HF_HUB_OFFLINE"));
  assert_status_code(status, HRX_STATUS_UNAVAILABLE);
  assert_null(path);
  assert_int_equal(atomic_load(&f->hub.heads), 0);
  hrx_hf_resolver_destroy(r);

  r = resolver(f, (hrx_hf_options_t){0});
  assert_ok(resolve(r, "org/model", NULL, "weights.bin", &path));
  free(path);
  hrx_hf_resolver_destroy(r);
  int heads = atomic_load(&f->hub.heads);

  /* HF_HUB_OFFLINE=1: hits still answer, misses fail, nothing is sent. */
  setenv("HF_HUB_OFFLINE", "yes", 1);
  r = resolver(f, (hrx_hf_options_t){.refresh_refs = true});
  unsetenv("HF_HUB_OFFLINE");
  assert_true(hrx_hf_resolver_offline(r));
  assert_ok(resolve(r, "org/model", NULL, "weights.bin", &path));
  assert_file_equals(path, f->hub.weights, WEIGHTS_SIZE);
  free(path);
  assert_status_code(resolve(r, "org/model", NULL, "config.json", &path),
                     HRX_STATUS_UNAVAILABLE);
  assert_status_code(resolve(r, "org/model", "v2", "weights.bin", &path),
                     HRX_STATUS_UNAVAILABLE);
  assert_int_equal(atomic_load(&f->hub.heads), heads);
  hrx_hf_resolver_destroy(r);
}

static void test_wrong_digests_leave_nothing(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  hrx_status_t status = resolve(r, "org/model", NULL, "bad.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), "LFS pointer"));
  assert_status_code(status, HRX_STATUS_DATA_LOSS);
  char* blobs = test_strdup_printf("%s/models--org--model/blobs", f->cache);
  char* snapshots =
      test_strdup_printf("%s/models--org--model/snapshots", f->cache);
  assert_int_equal(test_dir_count(blobs, NULL), 0);
  assert_int_equal(test_dir_count(snapshots, NULL), 0);

  /* The caller's digest is checked on download and on every cache hit. */
  hrx_sha256_digest_t wrong = {{0}};
  hrx_hf_file_t request = {.repo_id = "org/model", .filename = "config.json",
                           .sha256 = &wrong};
  status = hrx_hf_resolve(r, &request, hrx_allocator_system(), &path, NULL);
  assert_non_null(strstr(hrx_status_message(status), "expected"));
  assert_status_code(status, HRX_STATUS_DATA_LOSS);
  assert_int_equal(test_dir_count(blobs, NULL), 0);
  hrx_sha256_digest_t right;
  hrx_sha256(config_body, strlen(config_body), &right);
  request.sha256 = &right;
  assert_ok(hrx_hf_resolve(r, &request, hrx_allocator_system(), &path, NULL));
  free(path);
  request.sha256 = &wrong;
  assert_status_code(
      hrx_hf_resolve(r, &request, hrx_allocator_system(), &path, NULL),
      HRX_STATUS_DATA_LOSS);
  assert_null(path);

  /* Headers the cache cannot use. */
  status = resolve(r, "org/model", NULL, "no-commit.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), "X-Repo-Commit"));
  assert_status_code(status, HRX_STATUS_UNAVAILABLE);
  status = resolve(r, "org/model", NULL, "evil-etag.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), "ETag"));
  assert_status_code(status, HRX_STATUS_UNAVAILABLE);
  free(blobs);
  free(snapshots);
  hrx_hf_resolver_destroy(r);
}

static void test_relative_redirect_and_errors(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  /* The renamed repository resolves through the new name's answer and is
   * cached under the name asked for, as huggingface_hub does. */
  assert_ok(resolve(r, "org/old-name", NULL, "weights.bin", &path));
  assert_non_null(strstr(path, "/models--org--old-name/snapshots/" COMMIT_1));
  assert_file_equals(path, f->hub.weights, WEIGHTS_SIZE);
  free(path);
  hrx_status_t status = resolve(r, "org/model", NULL, "missing.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), "no such file"));
  assert_status_code(status, HRX_STATUS_NOT_FOUND);
  status = resolve(r, "org/nothing", NULL, "weights.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), "no such repository"));
  assert_status_code(status, HRX_STATUS_NOT_FOUND);
  hrx_hf_resolver_destroy(r);
  char* closed = closed_endpoint(f);
  r = resolver(f, (hrx_hf_options_t){.endpoint = closed});
  status = resolve(r, "org/model", NULL, "config.json", &path);
  assert_status_code(status, HRX_STATUS_UNAVAILABLE);
  hrx_hf_resolver_destroy(r);
  free(closed);
}

/* The hub's "no such file" is kept under .no_exist/<commit>/ as
 * huggingface_hub keeps it: later lookups, offline ones and ones with an
 * unreachable hub answer NOT_FOUND without asking. */
static void test_missing_files_are_remembered(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  static const char* const names[] = {"missing.bin", "sub/missing.bin"};
  for (int i = 0; i < 2; ++i) {
    hrx_status_t status = resolve(r, "org/model", NULL, names[i], &path);
    assert_non_null(strstr(hrx_status_message(status), "no such file"));
    assert_status_code(status, HRX_STATUS_NOT_FOUND);
    char* marker = test_strdup_printf(
        "%s/models--org--model/.no_exist/" COMMIT_1 "/%s", f->cache, names[i]);
    struct stat info;
    assert_int_equal(stat(marker, &info), 0);
    assert_true(S_ISREG(info.st_mode) && info.st_size == 0);
    free(marker);
  }
  char* ref = test_strdup_printf("%s/models--org--model/refs/main", f->cache);
  void* text = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), ref, 64, &text,
                              &length));
  assert_int_equal(length, 40);
  assert_memory_equal(text, COMMIT_1, 40);
  free(text);
  free(ref);
  int heads = atomic_load(&f->hub.heads);
  hrx_status_t status = resolve(r, "org/model", NULL, "missing.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), ".no_exist"));
  assert_status_code(status, HRX_STATUS_NOT_FOUND);
  assert_int_equal(atomic_load(&f->hub.heads), heads);
  hrx_hf_resolver_destroy(r);

  r = resolver(f, (hrx_hf_options_t){.offline = true});
  assert_status_code(resolve(r, "org/model", NULL, "missing.bin", &path),
                     HRX_STATUS_NOT_FOUND);
  /* Another file of the same commit is merely not cached. */
  assert_status_code(resolve(r, "org/model", NULL, "config.json", &path),
                     HRX_STATUS_UNAVAILABLE);
  hrx_hf_resolver_destroy(r);

  char* closed = closed_endpoint(f);
  r = resolver(f, (hrx_hf_options_t){.endpoint = closed, .refresh_refs = true});
  assert_status_code(resolve(r, "org/model", NULL, "missing.bin", &path),
                     HRX_STATUS_NOT_FOUND);
  assert_null(path);
  hrx_hf_resolver_destroy(r);
  free(closed);
  assert_int_equal(atomic_load(&f->hub.heads), heads);
}

static void test_interrupted_download_resumes(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  hrx_status_t status = resolve(r, "org/model", NULL, "flaky.bin", &path);
  assert_status_code(status, HRX_STATUS_UNAVAILABLE);
  char* partial = test_strdup_printf("%s/models--org--model/blobs/%s.incomplete",
                                     f->cache, f->hub.weights_sha);
  struct stat info;
  assert_int_equal(stat(partial, &info), 0);
  assert_int_equal(info.st_size, WEIGHTS_SIZE * 2 / 5);
  char* snapshots =
      test_strdup_printf("%s/models--org--model/snapshots", f->cache);
  assert_int_equal(test_dir_count(snapshots, NULL), 0);
  hrx_hf_resolver_destroy(r);

  /* A callback policy without a callback is refused. */
  hrx_hf_options_t bad = HRX_STRUCT_INIT(hrx_hf_options_t);
  bad.cache_dir = f->cache;
  bad.progress = HRX_HF_PROGRESS_CALLBACK;
  assert_status_code(hrx_hf_resolver_create(&bad, hrx_allocator_system(), &r),
                     HRX_STATUS_INVALID_ARGUMENT);
  free(partial);
  free(snapshots);
}

static void record_first(void* user, const char* filename, uint64_t done,
                         uint64_t total) {
  uint64_t* first = user;
  assert_string_equal(filename, "flaky.bin");
  if (first[0] == UINT64_MAX) {
    first[0] = done;
    first[1] = total;
  }
}

static void test_resume_sends_a_range(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  assert_status_code(resolve(r, "org/model", NULL, "flaky.bin", &path),
                     HRX_STATUS_UNAVAILABLE);
  hrx_hf_resolver_destroy(r);
  uint64_t first[2] = {UINT64_MAX, 0};
  r = resolver(f, (hrx_hf_options_t){.progress = HRX_HF_PROGRESS_CALLBACK,
                                     .progress_fn = record_first,
                                     .progress_user_data = first});
  assert_ok(resolve(r, "org/model", NULL, "flaky.bin", &path));
  assert_file_equals(path, f->hub.weights, WEIGHTS_SIZE);
  free(path);
  assert_int_equal(atomic_load(&f->hub.ranged_gets), 1);
  assert_true(first[0] > WEIGHTS_SIZE * 2 / 5); /* counted from the part */
  assert_int_equal(first[1], WEIGHTS_SIZE);
  hrx_hf_resolver_destroy(r);

  /* With retries, one call rides over the interruption. */
  assert_ok(hrx_dir_remove_all(f->cache, NULL));
  atomic_store(&f->hub.flaky_gets, 0);
  r = resolver(f, (hrx_hf_options_t){.attempts = 2});
  assert_ok(resolve(r, "org/model", NULL, "flaky.bin", &path));
  assert_file_equals(path, f->hub.weights, WEIGHTS_SIZE);
  free(path);
  assert_int_equal(atomic_load(&f->hub.ranged_gets), 2);
  hrx_hf_resolver_destroy(r);
}

/* Leaves a 40% partial blob of the weights in the cache. */
static void interrupt_a_download(fixture_t* f) {
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  assert_status_code(resolve(r, "org/model", NULL, "flaky.bin", &path),
                     HRX_STATUS_UNAVAILABLE);
  hrx_hf_resolver_destroy(r);
}

static char* partial_path(fixture_t* f) {
  return test_strdup_printf("%s/models--org--model/blobs/%s.incomplete",
                            f->cache, f->hub.weights_sha);
}

/* A server that answers the range request with 206 from byte 0 sends the
 * whole file: it is taken from the start. Before, the partial file stayed
 * and every later fetch failed at once. */
static void test_resume_answered_from_byte_zero(void** state) {
  fixture_t* f = *state;
  interrupt_a_download(f);
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  assert_ok(resolve(r, "org/model", NULL, "from-zero.bin", &path));
  assert_file_equals(path, f->hub.weights, WEIGHTS_SIZE);
  free(path);
  assert_int_equal(atomic_load(&f->hub.ranged_gets), 1);
  hrx_hf_resolver_destroy(r);
}

/* A range at any other wrong offset fails the try and empties the partial
 * file, so the next try downloads the file whole. */
static void test_resume_at_a_wrong_offset_starts_over(void** state) {
  fixture_t* f = *state;
  interrupt_a_download(f);
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  hrx_status_t status = resolve(r, "org/model", NULL, "off-by-one.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), "wrong place"));
  assert_status_code(status, HRX_STATUS_UNAVAILABLE);
  char* partial = partial_path(f);
  struct stat info;
  assert_int_equal(stat(partial, &info), 0);
  assert_int_equal(info.st_size, 0);
  assert_ok(resolve(r, "org/model", NULL, "off-by-one.bin", &path));
  assert_file_equals(path, f->hub.weights, WEIGHTS_SIZE);
  free(path);
  hrx_hf_resolver_destroy(r);

  /* With retries, one call gets there. */
  assert_ok(hrx_dir_remove_all(f->cache, NULL));
  atomic_store(&f->hub.flaky_gets, 0);
  interrupt_a_download(f);
  r = resolver(f, (hrx_hf_options_t){.attempts = 2});
  assert_ok(resolve(r, "org/model", NULL, "off-by-one.bin", &path));
  assert_file_equals(path, f->hub.weights, WEIGHTS_SIZE);
  free(path);
  assert_int_equal(atomic_load(&f->hub.ranged_gets), 2);
  hrx_hf_resolver_destroy(r);
  free(partial);
}

/* A server sending a byte now and then cannot hold a download: less than
 * min_bytes_per_second over a window fails the try. Before, anything
 * above one byte a second kept it alive for ever. */
static void test_trickling_server_is_dropped(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r =
      resolver(f, (hrx_hf_options_t){.stall_timeout_ms = 1000});
  char* path = NULL;
  hrx_status_t status = resolve(r, "org/model", NULL, "trickle.bin", &path);
  assert_non_null(
      strstr(hrx_status_message(status), "slower than the 1024 bytes/s"));
  assert_status_code(status, HRX_STATUS_DEADLINE_EXCEEDED);
  hrx_hf_resolver_destroy(r);

  /* The deadline ends it too, however generous the window. */
  r = resolver(f, (hrx_hf_options_t){.stall_timeout_ms = 60000,
                                     .deadline_ms = 1500,
                                     .attempts = 3});
  status = resolve(r, "org/model", NULL, "trickle.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), "1500 ms deadline"));
  assert_status_code(status, HRX_STATUS_DEADLINE_EXCEEDED);
  assert_null(path);
  hrx_hf_resolver_destroy(r);
}

/* A body longer than announced, or without an announced size and longer
 * than max_bytes, stops as it passes the limit and leaves nothing
 * on the disk. Before, an unsized body was written without end. */
static void test_bodies_stop_at_their_size(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r =
      resolver(f, (hrx_hf_options_t){.max_bytes = 1 << 20});
  char* path = NULL;
  hrx_status_t status = resolve(r, "org/model", NULL, "endless.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), "passed 1048576 bytes"));
  assert_status_code(status, HRX_STATUS_OUT_OF_RANGE);
  char* blobs = test_strdup_printf("%s/models--org--model/blobs", f->cache);
  assert_int_equal(test_dir_count(blobs, NULL), 0);
  status = resolve(r, "org/model", NULL, "overlong.bin", &path);
  assert_non_null(
      strstr(hrx_status_message(status), "longer than the 300000 bytes"));
  assert_status_code(status, HRX_STATUS_DATA_LOSS);
  assert_int_equal(test_dir_count(blobs, NULL), 0);
  free(blobs);
  hrx_hf_resolver_destroy(r);
}

/* FIFOs planted in the cache are refused instead of blocking the resolver
 * (or being handed out as a cached file). */
static void test_planted_fifos_do_not_hang(void** state) {
  fixture_t* f = *state;
  char* blobs = test_strdup_printf("%s/models--org--model/blobs", f->cache);
  assert_ok(hrx_dir_create_all(blobs, 0755));
  char* partial = partial_path(f);
  char* blob = test_strdup_printf("%s/%s", blobs, f->hub.weights_sha);
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  const char* planted[] = {partial, blob};
  for (int i = 0; i < 2; ++i) {
    assert_int_equal(mkfifo(planted[i], 0600), 0);
    hrx_status_t status = resolve(r, "org/model", NULL, "weights.bin", &path);
    assert_non_null(strstr(hrx_status_message(status), "is a FIFO"));
    assert_status_code(status, HRX_STATUS_FAILED_PRECONDITION);
    assert_int_equal(unlink(planted[i]), 0);
  }
  assert_ok(resolve(r, "org/model", NULL, "weights.bin", &path));
  free(path);
  hrx_hf_resolver_destroy(r);
  /* A ref that is a FIFO is no ref: offline, the lookup misses. */
  char* ref = test_strdup_printf("%s/models--org--model/refs/main", f->cache);
  assert_int_equal(unlink(ref), 0);
  assert_int_equal(mkfifo(ref, 0600), 0);
  r = resolver(f, (hrx_hf_options_t){.offline = true});
  assert_status_code(resolve(r, "org/model", NULL, "weights.bin", &path),
                     HRX_STATUS_UNAVAILABLE);
  hrx_hf_resolver_destroy(r);
  free(ref);
  free(blob);
  free(partial);
  free(blobs);
}

static void assert_escaped(hrx_status_t status, const char* shown,
                           hrx_status_code_t code) {
  const char* message = hrx_status_message(status);
  if (!strstr(message, shown) || strchr(message, '\x1b') ||
      strchr(message, '\n')) {
    fail_msg("not escaped: %s", message);
  }
  assert_status_code(status, code);
}

/* Names from the caller and text from the hub reach messages escaped;
 * file names must be valid UTF-8 without control characters, as the
 * paths printed for them would carry them. */
static void test_names_in_messages_are_escaped(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  assert_escaped(resolve(r, "org/model", NULL, "a\x1b[2J\nb", &path),
                 "filename 'a\\x1b[2J\\nb'", HRX_STATUS_INVALID_ARGUMENT);
  assert_escaped(resolve(r, "org/\x1b[2J\n", NULL, "a", &path),
                 "repo id 'org/\\x1b[2J\\n'", HRX_STATUS_INVALID_ARGUMENT);
  assert_escaped(resolve(r, "org/model", "\x1b[2J", "a", &path),
                 "revision '\\x1b[2J'", HRX_STATUS_INVALID_ARGUMENT);
  static const char* const unprintable[] = {"c1-\xc2\x9b.bin",
                                            "bad-\xff.bin"};
  for (int i = 0; i < 2; ++i) {
    hrx_status_t status = resolve(r, "org/model", NULL, unprintable[i], &path);
    assert_non_null(strstr(hrx_status_message(status), "not valid UTF-8"));
    assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  }
  assert_escaped(resolve(r, "org/model", NULL, "evil-error.bin", &path),
                 "\\x1b[2Jgone", HRX_STATUS_NOT_FOUND);
  /* Other UTF-8 is a name like any other (this hub has no such file). */
  assert_status_code(resolve(r, "org/model", NULL, "mod\xc3\xa8le.bin", &path),
                     HRX_STATUS_NOT_FOUND);
  assert_int_equal(atomic_load(&f->hub.storage_gets), 0);
  hrx_hf_resolver_destroy(r);
}

static void test_tokens(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  char* path = NULL;
  hrx_status_t status = resolve(r, "org/private", NULL, "weights.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), "HF_TOKEN"));
  assert_status_code(status, HRX_STATUS_PERMISSION_DENIED);
  hrx_hf_resolver_destroy(r);

  setenv("HF_TOKEN", "hf_secret", 1);
  r = resolver(f, (hrx_hf_options_t){0});
  unsetenv("HF_TOKEN");
  assert_ok(resolve(r, "org/private", NULL, "weights.bin", &path));
  free(path);
  /* The storage host never sees the token. */
  assert_int_equal(atomic_load(&f->hub.storage_auth), 0);
  hrx_hf_resolver_destroy(r);

  /* The token file under HF_HOME, as `huggingface-cli login` writes it. */
  char* token = test_strdup_printf("%s/token", f->root);
  test_write_file(token, "hf_wrong\n", 9);
  r = resolver(f, (hrx_hf_options_t){0});
  status = resolve(r, "org/private", "v1", "weights.bin", &path);
  assert_non_null(strstr(hrx_status_message(status), "no access"));
  assert_status_code(status, HRX_STATUS_PERMISSION_DENIED);
  hrx_hf_resolver_destroy(r);
  /* A token that would break the header is refused up front. */
  test_write_file(token, "hf_a\r\nX-Evil: 1", 15);
  hrx_hf_options_t o = HRX_STRUCT_INIT(hrx_hf_options_t);
  o.cache_dir = f->cache;
  assert_status_code(hrx_hf_resolver_create(&o, hrx_allocator_system(), &r),
                     HRX_STATUS_INVALID_ARGUMENT);
  free(token);
}

static void test_refresh_follows_a_moved_ref(void** state) {
  fixture_t* f = *state;
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){.refresh_refs = true});
  char* path = NULL;
  hrx_hf_commit_t commit;
  hrx_hf_file_t request = {.repo_id = "org/model", .filename = "weights.bin"};
  assert_ok(
      hrx_hf_resolve(r, &request, hrx_allocator_system(), &path, &commit));
  free(path);
  f->hub.commit = COMMIT_2;
  assert_ok(
      hrx_hf_resolve(r, &request, hrx_allocator_system(), &path, &commit));
  assert_string_equal(commit.hex, COMMIT_2);
  assert_non_null(strstr(path, COMMIT_2));
  free(path);
  /* Same blob: downloaded once for both commits. */
  assert_int_equal(atomic_load(&f->hub.storage_gets), 1);
  hrx_hf_resolver_destroy(r);
  /* The hub gone: the cached answer stands. */
  char* closed = test_strdup_printf("http://127.0.0.1:1");
  r = resolver(f, (hrx_hf_options_t){.refresh_refs = true,
                                     .endpoint = closed});
  assert_ok(
      hrx_hf_resolve(r, &request, hrx_allocator_system(), &path, &commit));
  assert_string_equal(commit.hex, COMMIT_2);
  free(path);
  hrx_hf_resolver_destroy(r);
  free(closed);
}

static void test_concurrent_processes_download_once(void** state) {
  fixture_t* f = *state;
  pid_t children[3];
  for (int c = 0; c < 3; ++c) {
    children[c] = fork();
    assert_true(children[c] >= 0);
    if (children[c] == 0) {
      hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
      char* path = NULL;
      hrx_status_t status = resolve(r, "org/model", NULL, "weights.bin", &path);
      _exit(status == HRX_OK ? 0 : 1);
    }
  }
  for (int c = 0; c < 3; ++c) {
    int wstatus = 0;
    assert_int_equal(waitpid(children[c], &wstatus, 0), children[c]);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
  }
  assert_int_equal(atomic_load(&f->hub.storage_gets), 1);
}

static void test_names_and_environment(void** state) {
  fixture_t* f = *state;
  char* folder = NULL;
  assert_ok(hrx_hf_repo_folder(HRX_HF_REPO_MODEL, "org/name.v2",
                               hrx_allocator_system(), &folder));
  assert_string_equal(folder, "models--org--name.v2");
  free(folder);
  assert_ok(hrx_hf_repo_folder(HRX_HF_REPO_SPACE, "gpt2",
                               hrx_allocator_system(), &folder));
  assert_string_equal(folder, "spaces--gpt2");
  free(folder);
  static const char* const bad_ids[] = {"",      "/x",   "a/",     "a/b/c",
                                        "a--b",  "a..b", "-a",     "a.",
                                        "a b",   "a/../b", "ä"};
  for (size_t i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); ++i) {
    assert_status_code(hrx_hf_repo_folder(HRX_HF_REPO_MODEL, bad_ids[i],
                                          hrx_allocator_system(), &folder),
                       HRX_STATUS_INVALID_ARGUMENT);
  }
  hrx_hf_resolver_t* r = resolver(f, (hrx_hf_options_t){0});
  static const char* const bad_files[] = {"",     "/etc/passwd", "../x",
                                          "a/../../x", "a//b", "./a",
                                          "a\\b", "a\nb"};
  char* path = NULL;
  for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); ++i) {
    assert_status_code(resolve(r, "org/model", NULL, bad_files[i], &path),
                       HRX_STATUS_INVALID_ARGUMENT);
  }
  assert_status_code(resolve(r, "org/model", "../../x", "a", &path),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(resolve(r, "org/model", "", "a", &path),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_int_equal(atomic_load(&f->hub.heads), 0);
  hrx_hf_resolver_destroy(r);

  /* Where the cache is: HF_HUB_CACHE, then HF_HOME/hub, then XDG. */
  setenv("HF_HUB_CACHE", "/opt/hub", 1);
  assert_ok(hrx_hf_resolver_create(NULL, hrx_allocator_system(), &r));
  assert_string_equal(hrx_hf_resolver_cache_dir(r), "/opt/hub");
  hrx_hf_resolver_destroy(r);
  unsetenv("HF_HUB_CACHE");
  setenv("HF_HOME", "/opt/hf", 1);
  assert_ok(hrx_hf_resolver_create(NULL, hrx_allocator_system(), &r));
  assert_string_equal(hrx_hf_resolver_cache_dir(r), "/opt/hf/hub");
  hrx_hf_resolver_destroy(r);
  unsetenv("HF_HOME");
  setenv("XDG_CACHE_HOME", "/opt/xdg", 1);
  assert_ok(hrx_hf_resolver_create(NULL, hrx_allocator_system(), &r));
  assert_string_equal(hrx_hf_resolver_cache_dir(r),
                      "/opt/xdg/huggingface/hub");
  hrx_hf_resolver_destroy(r);
  unsetenv("XDG_CACHE_HOME");
  hrx_hf_options_t o = HRX_STRUCT_INIT(hrx_hf_options_t);
  o.endpoint = "ftp://hub";
  assert_status_code(hrx_hf_resolver_create(&o, hrx_allocator_system(), &r),
                     HRX_STATUS_INVALID_ARGUMENT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_download_publishes_the_hub_layout,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_offline_hit_and_miss, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_wrong_digests_leave_nothing, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_relative_redirect_and_errors,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_missing_files_are_remembered,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_interrupted_download_resumes,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_resume_sends_a_range, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_resume_answered_from_byte_zero,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(
          test_resume_at_a_wrong_offset_starts_over, setup, teardown),
      cmocka_unit_test_setup_teardown(test_trickling_server_is_dropped, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_bodies_stop_at_their_size, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_planted_fifos_do_not_hang, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_names_in_messages_are_escaped,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_tokens, setup, teardown),
      cmocka_unit_test_setup_teardown(test_refresh_follows_a_moved_ref, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_concurrent_processes_download_once,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_names_and_environment, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
