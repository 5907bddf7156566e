/* Provisioning: locate the pinned bundle, downloading it first when it is
 * missing and downloads are allowed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle_internal.h"

#if HRX_FABRIC_HAVE_CURL
#include <curl/curl.h>
#endif

static bool hrx_bundle_offline(const hrx_fabric_bundle_fetch_options_t* o) {
  const char* env = getenv("HRX_OFFLINE");
  return (o && o->offline) || (env && env[0] && strcmp(env, "0") != 0);
}

static hrx_status_t hrx_bundle_unavailable(const hrx_fabric_bundle_manifest_t* m,
                                           const char* why) {
  return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                         "bundle %s for %s is not installed and %s; download "
                         "%s yourself and run 'hrx prepare ARCHIVE' to "
                         "install it from the file",
                         m->revision, m->target, why, m->url);
}

#if HRX_FABRIC_HAVE_CURL

typedef struct hrx_bundle_transfer_t {
  FILE* file;
  hrx_sha256_t hash;
  uint64_t bytes;
  bool bar;
  hrx_progress_bar_t progress;
} hrx_bundle_transfer_t;

static size_t hrx_bundle_write(char* data, size_t size, size_t count,
                               void* context) {
  hrx_bundle_transfer_t* t = context;
  size_t n = size * count;
  if (fwrite(data, 1, n, t->file) != n) return 0; /* aborts the transfer */
  hrx_sha256_update(&t->hash, data, n);
  t->bytes += n;
  return n;
}

static int hrx_bundle_progress(void* context, curl_off_t total,
                               curl_off_t now, curl_off_t up_total,
                               curl_off_t up_now) {
  (void)up_total;
  (void)up_now;
  hrx_bundle_transfer_t* t = context;
  if (t->bar && total > 0 && now >= 0) {
    hrx_progress_bar_update(&t->progress, (uint64_t)now, (uint64_t)total);
  }
  return 0;
}

/* One attempt: |url| into |path|; the digest of what arrived in |out|. */
static hrx_status_t hrx_bundle_get(const char* url, const char* path,
                                   const hrx_fabric_bundle_fetch_options_t* o,
                                   bool bar, hrx_sha256_digest_t* out) {
  hrx_bundle_transfer_t t = {.bar = bar};
  hrx_progress_bar_init(&t.progress, stderr, "hrx: downloading bundle");
  t.file = fopen(path, "wb");
  if (!t.file) return hrx_status_from_errno(errno, "cannot create '%s'", path);
  hrx_sha256_init(&t.hash);
  CURL* curl = curl_easy_init();
  if (!curl) {
    fclose(t.file);
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "cannot start a transfer");
  }
  long stall = o && o->stall_timeout_ms ? (long)o->stall_timeout_ms : 30000;
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, stall);
  /* Less than one byte per second for the whole stall window fails. */
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
                   (stall + 999) / 1000 > 0 ? (stall + 999) / 1000 : 1);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, hrx_bundle_write);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, bar ? 0L : 1L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, hrx_bundle_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &t);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "hrx/" HRX_FABRIC_VERSION);
  CURLcode code = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  bool closed = fclose(t.file) == 0;
  hrx_sha256_final(&t.hash, out);
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                           "download of %s stalled for %ld ms: %s", url, stall,
                           error[0] ? error : curl_easy_strerror(code));
  }
  if (code != CURLE_OK) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE, "download of %s failed: %s",
                           url, error[0] ? error : curl_easy_strerror(code));
  }
  if (!closed) return hrx_status_from_errno(errno, "cannot write '%s'", path);
  return HRX_OK;
}

typedef struct hrx_bundle_fetch_t {
  const hrx_fabric_bundle_fetch_options_t* options;
} hrx_bundle_fetch_t;

/* Under the bundle's lock: another process may have installed it. */
static hrx_status_t hrx_bundle_fetch_locked(
    void* context, const hrx_fabric_bundle_manifest_t* m, const char* store,
    const char* dir, hrx_allocator_t allocator) {
  const hrx_fabric_bundle_fetch_options_t* o =
      ((hrx_bundle_fetch_t*)context)->options;
  hrx_status_t intact = hrx_bundle_verify_dir(m, dir);
  if (intact == HRX_OK) return HRX_OK;
  hrx_status_free(intact);
  char path[4096];
  char hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&m->archive_sha256, hex);
  int n = snprintf(path, sizeof(path), "%s/.download-%s-XXXXXX", store, hex);
  if (n < 0 || (size_t)n >= sizeof(path)) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE, "store path too long");
  }
  int fd = mkstemp(path);
  if (fd < 0) return hrx_status_from_errno(errno, "cannot create '%s'", path);
  close(fd);
  bool bar = o && o->progress == HRX_FABRIC_BUNDLE_PROGRESS_BAR;
  if (!o || o->progress == HRX_FABRIC_BUNDLE_PROGRESS_AUTO) {
    bar = isatty(STDERR_FILENO);
  }
  uint32_t attempts = o && o->attempts ? o->attempts : 3;
  hrx_status_t status = HRX_OK;
  for (uint32_t attempt = 0; attempt < attempts; ++attempt) {
    hrx_sleep_ns(hrx_retry_backoff_ns(attempt));
    hrx_status_free(status);
    hrx_sha256_digest_t digest;
    status = hrx_bundle_get(m->url, path, o, bar, &digest);
    if (status == HRX_OK &&
        memcmp(&digest, &m->archive_sha256, sizeof(digest)) != 0) {
      char got[HRX_SHA256_HEX_SIZE];
      hrx_sha256_digest_format(&digest, got);
      /* The server answered with other bytes: retrying will not help. */
      status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                               "download of %s has SHA-256 %s; bundle.json "
                               "pins %s",
                               m->url, got, hex);
      break;
    }
    if (status == HRX_OK) break;
  }
  if (status == HRX_OK) {
    /* The transfer was hashed as it arrived: no second read. */
    status = hrx_bundle_install_locked(m, path, true, store, dir, allocator);
  }
  unlink(path);
  return status;
}

static hrx_status_t hrx_bundle_download(
    const hrx_fabric_bundle_manifest_t* m, const char* cache_root,
    const hrx_fabric_bundle_fetch_options_t* options,
    hrx_allocator_t allocator, char** out_dir) {
  hrx_bundle_fetch_t context = {options};
  return hrx_bundle_with_lock(m, cache_root, allocator,
                              hrx_bundle_fetch_locked, &context, out_dir);
}

#endif /* HRX_FABRIC_HAVE_CURL */

hrx_status_t hrx_fabric_bundle_provision(
    const hrx_fabric_bundle_manifest_t* m, const char* cache_root,
    const hrx_fabric_bundle_fetch_options_t* options,
    hrx_allocator_t allocator, char** out_dir) {
  *out_dir = NULL;
  hrx_status_t status =
      hrx_fabric_bundle_locate(m, cache_root, allocator, out_dir);
  if (status == HRX_OK) return HRX_OK;
  if (!hrx_status_is(status, HRX_STATUS_NOT_FOUND) &&
      !hrx_status_is(status, HRX_STATUS_DATA_LOSS)) {
    return status;
  }
  hrx_status_free(status);
  if (hrx_bundle_offline(options)) {
    return hrx_bundle_unavailable(m, "downloads are off (HRX_OFFLINE)");
  }
#if HRX_FABRIC_HAVE_CURL
  return hrx_bundle_download(m, cache_root, options, allocator, out_dir);
#else
  return hrx_bundle_unavailable(m, "this build has no download support");
#endif
}
