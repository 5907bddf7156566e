/* Provisioning: locate the pinned bundle, downloading it first when it is
 * missing and downloads are allowed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
  char revision[HRX_ESCAPED_NAME_CAPACITY], target[HRX_ESCAPED_NAME_CAPACITY];
  char url[HRX_ESCAPED_NAME_CAPACITY];
  return hrx_make_status(
      HRX_STATUS_UNAVAILABLE,
      "bundle %s for %s is not installed and %s; download %s yourself and "
      "run 'hrx prepare ARCHIVE' to install it from the file",
      hrx_escape_text(m->revision, strlen(m->revision), revision,
                      sizeof(revision)),
      hrx_escape_text(m->target, strlen(m->target), target, sizeof(target)),
      why, hrx_escape_text(m->url, strlen(m->url), url, sizeof(url)));
}

#if HRX_FABRIC_HAVE_CURL

/* Without a pinned size, the most a download may bring. */
#define HRX_BUNDLE_DEFAULT_MAX_BYTES (UINT64_C(4) << 30)

/* One download into <bundle dir>.partial. The file survives a failed
 * transfer, so the next try (in this call or a later one) asks only for
 * the bytes after it; the hash always covers exactly the file's bytes. */
typedef struct hrx_bundle_transfer_t {
  const char* url;
  char shown_url[HRX_ESCAPED_NAME_CAPACITY]; /* for messages */
  const char* path;
  int fd;
  hrx_sha256_t hash;
  uint64_t have;  /* bytes in the file, all of them hashed */
  uint64_t asked; /* where this try's range began */
  bool resumed;   /* some bytes came from an earlier try */
  bool started;   /* this try's body has begun */
  /* The file may not grow past |limit|: the pinned size, else the cap. */
  uint64_t limit;
  bool limit_pinned;
  /* The throughput window: at least |min_rate| bytes per second over
   * every |window_ms| of a try. */
  uint64_t window_ms, min_rate;
  uint64_t window_start_ns, window_start_bytes;
  uint64_t received;    /* body bytes of this try (headers aside) */
  uint64_t deadline_ns; /* of the whole download */
  CURL* curl;
  bool bar;
  hrx_progress_bar_t progress;
  hrx_status_t failure; /* why a callback stopped the transfer */
} hrx_bundle_transfer_t;

static hrx_status_t hrx_bundle_restart(hrx_bundle_transfer_t* t) {
  if (ftruncate(t->fd, 0) != 0 || lseek(t->fd, 0, SEEK_SET) != 0) {
    return hrx_status_from_errno(errno, "cannot restart '%s'", t->path);
  }
  hrx_sha256_init(&t->hash);
  t->have = 0;
  t->resumed = false;
  return HRX_OK;
}

/* The file would hold more than |t->limit| with |more| bytes: its bytes
 * cannot be the archive, so it starts over and the try fails for good. */
static hrx_status_t hrx_bundle_too_big(hrx_bundle_transfer_t* t,
                                       uint64_t more) {
  if (t->have <= t->limit && more <= t->limit - t->have) return HRX_OK;
  HRX_RETURN_IF_ERROR(hrx_bundle_restart(t));
  if (t->limit_pinned) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "download of %s brings more than the %llu bytes "
                           "bundle.json pins",
                           t->shown_url, (unsigned long long)t->limit);
  }
  return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                         "download of %s brings more than %llu bytes, the "
                         "limit for a bundle.json without \"size\"",
                         t->shown_url, (unsigned long long)t->limit);
}

/* The first body bytes of a try: a 206 must continue where the file ends;
 * anything else is the whole archive again. A body announced longer than
 * the limit is refused before any of it is written. */
static hrx_status_t hrx_bundle_body_starts(hrx_bundle_transfer_t* t) {
  t->started = true;
  long code = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &code);
  if (code != 206) {
    if (t->have) HRX_RETURN_IF_ERROR(hrx_bundle_restart(t));
  } else {
    struct curl_header* range = NULL;
    unsigned long long first = 0;
    if (curl_easy_header(t->curl, "Content-Range", 0, CURLH_HEADER, -1,
                         &range) != CURLHE_OK ||
        sscanf(range->value, "bytes %llu-", &first) != 1 ||
        first != t->have) {
      /* Restart on the next try rather than trust a misplaced range. */
      HRX_RETURN_IF_ERROR(hrx_bundle_restart(t));
      const char* value = range ? range->value : "no Content-Range";
      char shown[HRX_ESCAPED_NAME_CAPACITY];
      return hrx_make_status(
          HRX_STATUS_UNAVAILABLE,
          "%s resumed at the wrong place ('%s', asked for byte %llu)",
          t->shown_url,
          hrx_escape_text(value, strlen(value), shown, sizeof(shown)),
          (unsigned long long)t->asked);
    }
    t->resumed = true;
  }
  curl_off_t announced = -1;
  curl_easy_getinfo(t->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced);
  return announced > 0 ? hrx_bundle_too_big(t, (uint64_t)announced) : HRX_OK;
}

static size_t hrx_bundle_write(char* data, size_t size, size_t count,
                               void* context) {
  hrx_bundle_transfer_t* t = context;
  size_t n = size * count;
  if (!t->started) {
    t->failure = hrx_bundle_body_starts(t);
    if (t->failure) return 0;
  }
  /* An unsized or lying body stops at the limit, not at a full disk. */
  t->failure = hrx_bundle_too_big(t, n);
  if (t->failure) return 0;
  t->failure = hrx_fd_write_all(t->fd, data, n, t->path);
  if (t->failure) return 0; /* aborts the transfer */
  hrx_sha256_update(&t->hash, data, n);
  t->have += n;
  t->received += n;
  return n;
}

/* Whether the try moved at least min_rate bytes per second over the window
 * that just ended; a trickle that keeps some bytes coming still fails. */
static hrx_status_t hrx_bundle_check_throughput(hrx_bundle_transfer_t* t) {
  uint64_t now = hrx_clock_monotonic_ns();
  uint64_t elapsed_ms = (now - t->window_start_ns) / 1000000;
  if (elapsed_ms < t->window_ms) return HRX_OK;
  /* Headers count: a server answering with redirects is not stalled. */
  long headers = 0;
  curl_easy_getinfo(t->curl, CURLINFO_HEADER_SIZE, &headers);
  uint64_t received = t->received + (headers > 0 ? (uint64_t)headers : 0);
  uint64_t moved = received - t->window_start_bytes;
  if (moved * 1000 < t->min_rate * elapsed_ms) {
    return hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                           "download of %s stalled: %llu bytes in %llu ms, "
                           "below the minimum of %llu bytes/s",
                           t->shown_url, (unsigned long long)moved,
                           (unsigned long long)elapsed_ms,
                           (unsigned long long)t->min_rate);
  }
  t->window_start_ns = now;
  t->window_start_bytes = received;
  return HRX_OK;
}

static int hrx_bundle_progress(void* context, curl_off_t total,
                               curl_off_t now, curl_off_t up_total,
                               curl_off_t up_now) {
  (void)up_total;
  (void)up_now;
  hrx_bundle_transfer_t* t = context;
  /* |total| and |now| count this try's range only. */
  uint64_t base = t->started ? t->asked : t->have;
  if (t->bar && total > 0 && now >= 0) {
    hrx_progress_bar_update(&t->progress, base + (uint64_t)now,
                            base + (uint64_t)total);
  }
  /* libcurl calls this about once a second even when nothing arrives. A
   * failure the write callback set is kept. */
  if (!t->failure) t->failure = hrx_bundle_check_throughput(t);
  return t->failure ? 1 : 0; /* nonzero aborts the transfer */
}

/* The transfer timed out: the download's deadline, or connecting. */
static hrx_status_t hrx_bundle_timed_out(const hrx_bundle_transfer_t* t,
                                         long stall, const char* why) {
  if (t->deadline_ns != HRX_DEADLINE_INFINITE &&
      hrx_deadline_remaining(t->deadline_ns) == 0) {
    return hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                           "download of %s passed its deadline: %s",
                           t->shown_url, why);
  }
  return hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                         "download of %s stalled for %ld ms: %s",
                         t->shown_url, stall, why);
}

/* One try: GET the bytes after the ones the file holds. */
static hrx_status_t hrx_bundle_get(hrx_bundle_transfer_t* t) {
  t->curl = curl_easy_init();
  if (!t->curl) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "cannot start a transfer");
  }
  CURL* curl = t->curl;
  long stall = (long)t->window_ms;
  char error[CURL_ERROR_SIZE] = "";
  char range[48];
  curl_easy_setopt(curl, CURLOPT_URL, t->url);
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
  if (t->deadline_ns != HRX_DEADLINE_INFINITE) {
    /* Rounded up, and a millisecond more for libcurl's clock, which
     * rounds down: a try timing out means the deadline has passed. */
    uint64_t left_ms =
        (hrx_deadline_remaining(t->deadline_ns) + 999999) / 1000000 + 1;
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                     (long)(left_ms < LONG_MAX ? left_ms : LONG_MAX));
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, hrx_bundle_write);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, t);
  /* The progress callback also watches the throughput. */
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, hrx_bundle_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, t);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "hrx/" HRX_FABRIC_VERSION);
  if (t->have) {
    /* A plain Range header: a server that ignores it answers 200 and the
     * file starts over instead of the transfer failing. */
    snprintf(range, sizeof(range), "%llu-", (unsigned long long)t->have);
    curl_easy_setopt(curl, CURLOPT_RANGE, range);
  }
  t->asked = t->have;
  t->started = false;
  t->received = 0;
  t->window_start_ns = hrx_clock_monotonic_ns();
  t->window_start_bytes = 0;
  CURLcode code = curl_easy_perform(curl);
  long http = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http);
  curl_easy_cleanup(curl);
  t->curl = NULL;
  if (t->failure) {
    hrx_status_t failure = t->failure;
    t->failure = HRX_OK;
    return failure;
  }
  if (code == CURLE_HTTP_RETURNED_ERROR && http == 416 && t->have) {
    /* The server will not continue this file (it changed, or the file is
     * whole already): the next try starts over. */
    HRX_RETURN_IF_ERROR(hrx_bundle_restart(t));
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "%s refused to resume at byte %llu; restarting",
                           t->shown_url, (unsigned long long)t->asked);
  }
  /* libcurl's message may quote what the server sent. */
  char why[HRX_ESCAPED_NAME_CAPACITY];
  const char* reason = error[0] ? error : curl_easy_strerror(code);
  hrx_escape_text(reason, strlen(reason), why, sizeof(why));
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return hrx_bundle_timed_out(t, stall, why);
  }
  if (code != CURLE_OK) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE, "download of %s failed: %s",
                           t->shown_url, why);
  }
  /* An empty 200 to a range request is an empty archive. */
  if (!t->started && t->have && http != 206) {
    HRX_RETURN_IF_ERROR(hrx_bundle_restart(t));
  }
  return HRX_OK;
}

/* Opens <dir>.partial and hashes what an earlier try left in it. Only a
 * regular file will do: reading a FIFO planted there would wait forever
 * (O_NONBLOCK keeps the open itself from waiting and changes nothing for
 * a regular file). */
static hrx_status_t hrx_bundle_open_partial(hrx_bundle_transfer_t* t) {
  t->fd = open(t->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
               0644);
  if (t->fd < 0) {
    return hrx_status_from_errno(errno, "cannot open '%s'", t->path);
  }
  struct stat info;
  if (fstat(t->fd, &info) != 0) {
    return hrx_status_from_errno(errno, "cannot stat '%s'", t->path);
  }
  if (!S_ISREG(info.st_mode)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "'%s' is a %s, not a regular file", t->path,
                           hrx_file_kind_name(info.st_mode));
  }
  hrx_sha256_init(&t->hash);
  HRX_RETURN_IF_ERROR(hrx_status_annotate(
      hrx_sha256_update_fd(&t->hash, t->fd, &t->have), "reading '%s'",
      t->path));
  t->resumed = t->have > 0;
  return HRX_OK;
}

/* Whether the file's bytes so far are the pinned archive. */
static bool hrx_bundle_complete(const hrx_fabric_bundle_manifest_t* m,
                                const hrx_bundle_transfer_t* t,
                                hrx_sha256_digest_t* out_digest) {
  hrx_sha256_t copy = t->hash; /* the file may still grow on a retry */
  hrx_sha256_final(&copy, out_digest);
  return memcmp(out_digest, &m->archive_sha256, sizeof(*out_digest)) == 0;
}

/* Tries until the file holds the pinned archive. A wrong digest after a
 * resume may come from stale leading bytes: that costs one full download,
 * never a wrong bundle. */
static hrx_status_t hrx_bundle_download_file(
    const hrx_fabric_bundle_manifest_t* m, hrx_bundle_transfer_t* t,
    const hrx_fabric_bundle_fetch_options_t* o) {
  hrx_sha256_digest_t digest;
  /* A download that finished before its install was interrupted. */
  if (t->have && hrx_bundle_complete(m, t, &digest)) return HRX_OK;
  uint32_t attempts = o && o->attempts ? o->attempts : 3;
  bool restarted = false;
  hrx_status_t status = HRX_OK;
  for (uint32_t attempt = 0; attempt < attempts; ++attempt) {
    uint64_t pause = hrx_retry_backoff_ns(attempt);
    if (attempt && hrx_deadline_remaining(t->deadline_ns) <= pause) {
      /* The next try could not start before the deadline. */
      return hrx_status_annotate(status, "the download's deadline passed");
    }
    hrx_sleep_ns(pause);
    hrx_status_free(status);
    status = hrx_bundle_get(t);
    /* Bytes the pin rules out, a full disk or a passed deadline come back
     * the same on every try. */
    if (hrx_status_is(status, HRX_STATUS_DATA_LOSS) ||
        hrx_status_is(status, HRX_STATUS_RESOURCE_EXHAUSTED) ||
        (status && hrx_deadline_remaining(t->deadline_ns) == 0)) {
      return status;
    }
    if (status != HRX_OK) continue;
    if (hrx_bundle_complete(m, t, &digest)) return HRX_OK;
    char got[HRX_SHA256_HEX_SIZE], want[HRX_SHA256_HEX_SIZE];
    hrx_sha256_digest_format(&digest, got);
    hrx_sha256_digest_format(&m->archive_sha256, want);
    bool resumed = t->resumed;
    status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "download of %s has SHA-256 %s; bundle.json "
                             "pins %s",
                             t->shown_url, got, want);
    HRX_RETURN_IF_ERROR(hrx_bundle_restart(t));
    /* Whole bytes that differ will differ again: retrying cannot help. */
    if (!resumed || restarted) return status;
    restarted = true;
    if (attempt + 1 == attempts) ++attempts; /* a full download is owed */
  }
  return status;
}

/* The options' limits, with their defaults, for |m|'s download. */
static void hrx_bundle_limit_transfer(const hrx_fabric_bundle_manifest_t* m,
                                      const hrx_fabric_bundle_fetch_options_t* o,
                                      hrx_bundle_transfer_t* t) {
  hrx_escape_text(m->url, strlen(m->url), t->shown_url, sizeof(t->shown_url));
  t->limit_pinned = m->size != 0;
  t->limit = m->size ? m->size
             : o && o->max_bytes ? o->max_bytes
                                 : HRX_BUNDLE_DEFAULT_MAX_BYTES;
  t->window_ms = o && o->stall_timeout_ms ? o->stall_timeout_ms : 30000;
  t->min_rate = o && o->min_bytes_per_second ? o->min_bytes_per_second : 1024;
  uint64_t deadline_ms = o ? o->deadline_ms : 0;
  t->deadline_ns = deadline_ms && deadline_ms < UINT64_MAX / 1000000
                       ? hrx_deadline_after(deadline_ms * 1000000)
                       : HRX_DEADLINE_INFINITE;
}

/* Under the bundle's lock: another process may have installed it. */
static hrx_status_t hrx_bundle_fetch_locked(
    void* context, const hrx_fabric_bundle_manifest_t* m, const char* store,
    const char* dir, hrx_allocator_t allocator) {
  const hrx_fabric_bundle_fetch_options_t* o = context;
  hrx_status_t intact = hrx_bundle_verify_dir(m, dir);
  if (intact == HRX_OK) return HRX_OK;
  hrx_status_free(intact);
  char path[4096];
  int n = snprintf(path, sizeof(path), "%s.partial", dir);
  if (n < 0 || (size_t)n >= sizeof(path)) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE, "store path too long");
  }
  hrx_bundle_transfer_t t = {.url = m->url, .path = path, .fd = -1};
  hrx_bundle_limit_transfer(m, o, &t);
  t.bar = o && o->progress == HRX_FABRIC_BUNDLE_PROGRESS_BAR;
  if (!o || o->progress == HRX_FABRIC_BUNDLE_PROGRESS_AUTO) {
    t.bar = isatty(STDERR_FILENO);
  }
  hrx_progress_bar_init(&t.progress, stderr, "hrx: downloading bundle");
  hrx_status_t status = hrx_bundle_open_partial(&t);
  if (status == HRX_OK) status = hrx_bundle_download_file(m, &t, o);
  if (t.fd >= 0 && close(t.fd) != 0 && status == HRX_OK) {
    status = hrx_status_from_errno(errno, "cannot write '%s'", path);
  }
  if (status == HRX_OK) {
    /* The transfer was hashed as it arrived: no second read. */
    status = hrx_bundle_install_locked(m, path, true, store, dir, allocator);
    /* Installed, or bytes that match the pin yet do not install: neither
     * is worth resuming. */
    unlink(path);
  } else if (t.have == 0) {
    unlink(path);
  } else {
    status = hrx_status_annotate(status, "%llu bytes kept in '%s'; the next "
                                 "try resumes after them",
                                 (unsigned long long)t.have, path);
  }
  return status;
}

static hrx_status_t hrx_bundle_download(
    const hrx_fabric_bundle_manifest_t* m, const char* cache_root,
    const hrx_fabric_bundle_fetch_options_t* options,
    hrx_allocator_t allocator, char** out_dir) {
  return hrx_bundle_with_lock(m, cache_root, allocator,
                              hrx_bundle_fetch_locked, (void*)options,
                              out_dir);
}

#endif /* HRX_FABRIC_HAVE_CURL */

hrx_status_t hrx_fabric_bundle_provision(
    const hrx_fabric_bundle_manifest_t* m, const char* cache_root,
    const hrx_fabric_bundle_fetch_options_t* caller_options,
    hrx_allocator_t allocator, char** out_dir) {
  *out_dir = NULL;
  hrx_fabric_bundle_fetch_options_t local_options;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_fabric_bundle_fetch_options_t,
                                      attempts, caller_options,
                                      &local_options));
  const hrx_fabric_bundle_fetch_options_t* options = &local_options;
  hrx_status_t status =
      hrx_fabric_bundle_locate(m, cache_root, allocator, out_dir);
  if (status == HRX_OK) return HRX_OK;
  if (!hrx_status_is(status, HRX_STATUS_NOT_FOUND) &&
      !hrx_status_is(status, HRX_STATUS_DATA_LOSS)) {
    return status;
  }
  hrx_status_free(status);
  char* local = NULL;
  HRX_RETURN_IF_ERROR(hrx_bundle_local_archive(m, allocator, &local));
  if (local) {
    status = hrx_fabric_bundle_install(m, local, cache_root, allocator,
                                       out_dir);
    if (hrx_status_is(status, HRX_STATUS_NOT_FOUND)) {
      status = hrx_status_annotate(
          status, "bundle.json's url names the local archive '%s'; "
                  "reinstall it or run 'hrx prepare ARCHIVE'", local);
    }
    hrx_allocator_free(allocator, local);
    return status;
  }
  if (hrx_bundle_offline(options)) {
    return hrx_bundle_unavailable(m, "downloads are off (HRX_OFFLINE)");
  }
#if HRX_FABRIC_HAVE_CURL
  return hrx_bundle_download(m, cache_root, options, allocator, out_dir);
#else
  return hrx_bundle_unavailable(m, "this build has no download support");
#endif
}
