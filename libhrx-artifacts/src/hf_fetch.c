/* The hub protocol: file metadata from a HEAD on the resolve URL, blobs
 * downloaded with resume and verified while they stream. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hf_internal.h"
#include "hrx/core/file.h"
#include "hrx/core/parse.h"
#include "hrx/core/progress.h"
#include "show.h"

#if HRX_ARTIFACTS_HAVE_CURL
#include <curl/curl.h>

/* The response headers the resolver reads; reset at each status line, so
 * after a transfer they belong to the last response. */
typedef struct hrx_hf_headers_t {
  long code;
  bool overflow; /* a header we need did not fit */
  char commit[64];
  char linked_etag[256];
  char etag[256];
  char linked_size[32];
  char content_length[32];
  char content_range[128];
  char location[4096];
  char error_code[64];
  char error_message[256];
} hrx_hf_headers_t;

static void hrx_hf_header_copy(hrx_hf_headers_t* h, char* field, size_t size,
                               const char* value, size_t length) {
  if (length >= size) {
    h->overflow = true;
    length = 0;
  }
  memcpy(field, value, length);
  field[length] = '\0';
}

static size_t hrx_hf_on_header(char* data, size_t size, size_t count,
                               void* context) {
  hrx_hf_headers_t* h = context;
  size_t n = size * count;
  if (n >= 5 && memcmp(data, "HTTP/", 5) == 0) {
    memset(h, 0, sizeof(*h));
    const char* space = memchr(data, ' ', n);
    if (space) h->code = strtol(space + 1, NULL, 10);
    return n;
  }
  const char* colon = memchr(data, ':', n);
  if (!colon) return n;
  size_t name_length = (size_t)(colon - data);
  const char* value = colon + 1;
  const char* end = data + n;
  while (value < end && (*value == ' ' || *value == '\t')) ++value;
  while (end > value && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
    --end;
  size_t length = (size_t)(end - value);
  static const struct {
    const char* name;
    size_t offset;
    size_t size;
  } wanted[] = {
#define HRX_HF_FIELD(name, field)                      \
  {name, offsetof(hrx_hf_headers_t, field),            \
   sizeof(((hrx_hf_headers_t*)0)->field)}
      HRX_HF_FIELD("X-Repo-Commit", commit),
      HRX_HF_FIELD("X-Linked-Etag", linked_etag),
      HRX_HF_FIELD("ETag", etag),
      HRX_HF_FIELD("X-Linked-Size", linked_size),
      HRX_HF_FIELD("Content-Length", content_length),
      HRX_HF_FIELD("Content-Range", content_range),
      HRX_HF_FIELD("Location", location),
      HRX_HF_FIELD("X-Error-Code", error_code),
      HRX_HF_FIELD("X-Error-Message", error_message),
#undef HRX_HF_FIELD
  };
  for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); ++i) {
    if (strlen(wanted[i].name) == name_length &&
        strncasecmp(data, wanted[i].name, name_length) == 0) {
      hrx_hf_header_copy(h, (char*)h + wanted[i].offset, wanted[i].size,
                         value, length);
    }
  }
  return n;
}

static bool hrx_hf_parse_size(const char* text, uint64_t* out) {
  hrx_status_t status = hrx_parse_u64(text, 0, UINT64_MAX, "size", out);
  bool ok = status == HRX_OK;
  hrx_status_free(status);
  return ok;
}

/* The token goes only to the endpoint itself, never to a storage host. */
static bool hrx_hf_same_origin(const hrx_hf_resolver_t* r, const char* url) {
  size_t length = strlen(r->endpoint);
  return strncmp(url, r->endpoint, length) == 0 && url[length] == '/';
}

static struct curl_slist* hrx_hf_request_headers(const hrx_hf_resolver_t* r,
                                                 const char* url,
                                                 bool* out_ok) {
  struct curl_slist* list = NULL;
  struct curl_slist* next = curl_slist_append(NULL, "Accept-Encoding: identity");
  *out_ok = next != NULL;
  list = next;
  if (*out_ok && r->token && hrx_hf_same_origin(r, url)) {
    char header[4200];
    snprintf(header, sizeof(header), "Authorization: Bearer %s", r->token);
    next = curl_slist_append(list, header);
    if (next) {
      list = next;
    } else {
      *out_ok = false;
    }
  }
  return list;
}

/* How long |t|'s resolution may still take, in ms (at least 1); 0 when it
 * has no deadline. */
static uint64_t hrx_hf_remaining_ms(const hrx_hf_target_t* t) {
  if (!t->deadline_ns) return 0;
  uint64_t now = hrx_clock_monotonic_ns();
  if (now >= t->deadline_ns) return 1;
  return (t->deadline_ns - now + 999999) / 1000000;
}

static hrx_status_t hrx_hf_deadline_passed(const hrx_hf_resolver_t* r,
                                           const hrx_hf_target_t* t) {
  if (!t->deadline_ns || hrx_clock_monotonic_ns() < t->deadline_ns) {
    return HRX_OK;
  }
  return hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                         "'%s' of %s did not arrive within the %llu ms "
                         "deadline",
                         t->file->filename, t->file->repo_id,
                         (unsigned long long)r->deadline_ms);
}

/* The pace of one transfer, checked from libcurl's progress callback, which
 * runs about once a second even while nothing arrives: the deadline, and
 * at least min_bytes_per_second over each window of stall_timeout_ms.
 * (libcurl's own low-speed check never fires for a server that sends one
 * byte now and then.) */
typedef struct hrx_hf_pace_t {
  const hrx_hf_resolver_t* r;
  const hrx_hf_target_t* t;
  uint64_t window_start_ns;
  uint64_t window_start_bytes;
  hrx_status_t failure; /* why the callback stopped the transfer */
} hrx_hf_pace_t;

static int hrx_hf_on_progress(void* context, curl_off_t download_total,
                              curl_off_t download_now, curl_off_t upload_total,
                              curl_off_t upload_now) {
  (void)download_total;
  (void)upload_total;
  (void)upload_now;
  hrx_hf_pace_t* p = context;
  const hrx_hf_resolver_t* r = p->r;
  p->failure = hrx_hf_deadline_passed(r, p->t);
  if (p->failure) return 1;
  uint64_t now = hrx_clock_monotonic_ns();
  uint64_t window_ns = (uint64_t)r->stall_timeout_ms * 1000000;
  if (now - p->window_start_ns < window_ns) return 0;
  uint64_t bytes = download_now > 0 ? (uint64_t)download_now : 0;
  /* A redirect starts the count again. */
  uint64_t got = bytes >= p->window_start_bytes
                     ? bytes - p->window_start_bytes
                     : bytes;
  uint64_t elapsed_ms = (now - p->window_start_ns) / 1000000;
  if (got * 1000 < (uint64_t)r->min_bytes_per_second * elapsed_ms) {
    p->failure = hrx_make_status(
        HRX_STATUS_DEADLINE_EXCEEDED,
        "'%s' of %s: %llu bytes in %llu ms, slower than the %u bytes/s "
        "required",
        p->t->file->filename, p->t->file->repo_id, (unsigned long long)got,
        (unsigned long long)elapsed_ms, r->min_bytes_per_second);
    return 1;
  }
  p->window_start_ns = now;
  p->window_start_bytes = bytes;
  return 0;
}

static void hrx_hf_transfer_options(CURL* curl, const hrx_hf_resolver_t* r,
                                    const hrx_hf_target_t* t, const char* url,
                                    char* error, hrx_hf_headers_t* headers,
                                    hrx_hf_pace_t* pace) {
  long stall = (long)r->stall_timeout_ms;
  *pace = (hrx_hf_pace_t){.r = r, .t = t,
                          .window_start_ns = hrx_clock_monotonic_ns()};
  curl_easy_setopt(curl, CURLOPT_URL, url);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, stall);
  /* The callback's checks run about once a second; libcurl's timeout ends
   * the transfer at the deadline itself. */
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)hrx_hf_remaining_ms(t));
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, hrx_hf_on_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, pace);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "hrx/" HRX_ARTIFACTS_VERSION);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, hrx_hf_on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, headers);
}

/* Waits before try |attempt|, never past the deadline; DEADLINE_EXCEEDED
 * once it has passed, as no try could finish. */
static hrx_status_t hrx_hf_backoff(const hrx_hf_resolver_t* r,
                                   const hrx_hf_target_t* t,
                                   uint32_t attempt) {
  uint64_t pause = hrx_retry_backoff_ns(attempt);
  uint64_t remaining = hrx_hf_remaining_ms(t) * 1000000;
  hrx_sleep_ns(t->deadline_ns && remaining < pause ? remaining : pause);
  return hrx_hf_deadline_passed(r, t);
}

static bool hrx_hf_transient(hrx_status_t status) {
  return hrx_status_is(status, HRX_STATUS_UNAVAILABLE) ||
         hrx_status_is(status, HRX_STATUS_DEADLINE_EXCEEDED);
}

/* Why the pace callback stopped a transfer that failed (libcurl may report
 * its abort as a timeout); nothing when the transfer got through. */
static hrx_status_t hrx_hf_pace_verdict(hrx_hf_pace_t* pace, CURLcode code) {
  hrx_status_t failure = pace->failure;
  pace->failure = HRX_OK;
  if (code != CURLE_OK) return failure;
  hrx_status_free(failure);
  return HRX_OK;
}

/* Why a transfer ended badly. URLs (a redirect's Location) and libcurl's
 * text come from the server. */
static hrx_status_t hrx_hf_curl_failure(CURLcode code, const char* error,
                                        const char* what, const char* url,
                                        const hrx_hf_pace_t* pace) {
  hrx_status_t late = hrx_hf_deadline_passed(pace->r, pace->t);
  if (late) return late;
  char shown_url[HRX_ESCAPED_NAME_CAPACITY];
  char shown_error[HRX_ESCAPED_NAME_CAPACITY];
  hrx_artifacts_show(url, shown_url);
  hrx_artifacts_show(error[0] ? error : curl_easy_strerror(code), shown_error);
  if (code == CURLE_OPERATION_TIMEDOUT) {
    return hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                           "%s %s stalled for %u ms: %s", what, shown_url,
                           pace->r->stall_timeout_ms, shown_error);
  }
  return hrx_make_status(HRX_STATUS_UNAVAILABLE, "%s %s failed: %s", what,
                         shown_url, shown_error);
}

/* What an error answer from the hub means. */
static hrx_status_t hrx_hf_http_failure(const hrx_hf_resolver_t* r,
                                        const hrx_hf_target_t* t,
                                        const hrx_hf_headers_t* h) {
  char detail[HRX_ESCAPED_NAME_CAPACITY];
  hrx_artifacts_show(h->error_message, detail);
  if (h->code == 401 || h->code == 403) {
    return hrx_make_status(
        HRX_STATUS_PERMISSION_DENIED,
        "the hub refused %s '%s' (HTTP %ld)%s%s; %s", t->file->repo_id,
        t->file->filename, h->code, detail[0] ? ": " : "", detail,
        r->token ? "the token has no access to it"
                 : "it may be gated or private: set HF_TOKEN");
  }
  if (h->code == 404) {
    const char* what = !strcmp(h->error_code, "RepoNotFound")
                           ? "repository"
                       : !strcmp(h->error_code, "RevisionNotFound")
                           ? "revision"
                           : "file";
    return hrx_make_status(HRX_STATUS_NOT_FOUND,
                           "the hub has no such %s: '%s' at '%s' of %s%s%s",
                           what, t->file->filename, t->revision,
                           t->file->repo_id, detail[0] ? ": " : "", detail);
  }
  return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                         "the hub answered HTTP %ld for '%s' of %s", h->code,
                         t->file->filename, t->file->repo_id);
}

/* Percent-encodes |text| into |out| (PATH_MAX), keeping '/' when asked. */
static hrx_status_t hrx_hf_url_escape(const char* text, bool keep_slash,
                                      char* out, size_t size) {
  static const char hex[] = "0123456789ABCDEF";
  size_t at = 0;
  for (const unsigned char* c = (const unsigned char*)text; *c; ++c) {
    bool plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                 (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' ||
                 *c == '.' || *c == '~' || (keep_slash && *c == '/');
    if (at + 4 > size) {
      return hrx_make_status(HRX_STATUS_OUT_OF_RANGE, "URL too long");
    }
    if (plain) {
      out[at++] = (char)*c;
    } else {
      out[at++] = '%';
      out[at++] = hex[*c >> 4];
      out[at++] = hex[*c & 15];
    }
  }
  out[at] = '\0';
  return HRX_OK;
}

static hrx_status_t hrx_hf_resolve_url(const hrx_hf_resolver_t* r,
                                       const hrx_hf_target_t* t, char* out,
                                       size_t size) {
  static const char* const prefixes[] = {"", "datasets/", "spaces/"};
  char revision[800];
  char filename[3200];
  HRX_RETURN_IF_ERROR(
      hrx_hf_url_escape(t->revision, false, revision, sizeof(revision)));
  HRX_RETURN_IF_ERROR(
      hrx_hf_url_escape(t->file->filename, true, filename, sizeof(filename)));
  int n = snprintf(out, size, "%s/%s%s/resolve/%s/%s", r->endpoint,
                   prefixes[t->file->repo_type], t->file->repo_id, revision,
                   filename);
  if (n < 0 || (size_t)n >= size) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE, "URL too long");
  }
  return HRX_OK;
}

/* A relative Location ("/api/..."), resolved against |url|: the hub uses
 * these for renamed repositories; an absolute one points at storage. */
static hrx_status_t hrx_hf_follow(const char* url, const char* location,
                                  char* out, size_t size) {
  CURLU* u = curl_url();
  char* joined = NULL;
  bool ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
            curl_url_set(u, CURLUPART_URL, location, 0) == CURLUE_OK &&
            curl_url_get(u, CURLUPART_URL, &joined, 0) == CURLUE_OK;
  hrx_status_t status = HRX_OK;
  if (!ok || strlen(joined) >= size) {
    char shown[HRX_ESCAPED_NAME_CAPACITY];
    status = hrx_make_status(HRX_STATUS_UNAVAILABLE,
                             "the hub redirected to an unusable location '%s'",
                             hrx_artifacts_show(location, shown));
  } else {
    strcpy(out, joined);
  }
  curl_free(joined);
  curl_url_cleanup(u);
  return status;
}

static hrx_status_t hrx_hf_head(const hrx_hf_resolver_t* r,
                                const hrx_hf_target_t* t, const char* url,
                                hrx_hf_headers_t* h) {
  CURL* curl = curl_easy_init();
  bool ok = false;
  struct curl_slist* list = hrx_hf_request_headers(r, url, &ok);
  if (!curl || !ok) {
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "cannot start a request");
  }
  char error[CURL_ERROR_SIZE] = "";
  hrx_hf_pace_t pace;
  hrx_hf_transfer_options(curl, r, t, url, error, h, &pace);
  curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  HRX_RETURN_IF_ERROR(hrx_hf_pace_verdict(&pace, code));
  if (code != CURLE_OK) {
    return hrx_hf_curl_failure(code, error, "request for", url, &pace);
  }
  if (h->overflow) {
    char shown[HRX_ESCAPED_NAME_CAPACITY];
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "the hub answered %s with an oversized header",
                           hrx_artifacts_show(url, shown));
  }
  return HRX_OK;
}

static hrx_status_t hrx_hf_metadata_once(const hrx_hf_resolver_t* r,
                                         const hrx_hf_target_t* t,
                                         hrx_hf_metadata_t* m) {
  char url[4096];
  HRX_RETURN_IF_ERROR(hrx_hf_resolve_url(r, t, url, sizeof(url)));
  hrx_hf_headers_t h;
  for (int hop = 0;; ++hop) {
    memset(&h, 0, sizeof(h));
    HRX_RETURN_IF_ERROR(hrx_hf_head(r, t, url, &h));
    bool redirect = h.code >= 300 && h.code < 400 && h.location[0];
    bool relative = redirect && h.location[0] == '/' && h.location[1] != '/';
    if (relative) {
      if (hop == 5) {
        char shown[HRX_ESCAPED_NAME_CAPACITY];
        return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                               "more than 5 redirects for %s",
                               hrx_artifacts_show(url, shown));
      }
      char next[4096];
      HRX_RETURN_IF_ERROR(hrx_hf_follow(url, h.location, next, sizeof(next)));
      strcpy(url, next);
      continue;
    }
    if (redirect) {
      snprintf(m->download_url, sizeof(m->download_url), "%s", h.location);
      break;
    }
    if (h.code >= 200 && h.code < 300) {
      snprintf(m->download_url, sizeof(m->download_url), "%s", url);
      break;
    }
    if (h.code == 404 && !strcmp(h.error_code, "EntryNotFound") &&
        hrx_hf_is_commit(h.commit)) {
      memcpy(m->commit, h.commit, sizeof(m->commit));
      m->entry_missing = true;
    }
    return hrx_hf_http_failure(r, t, &h);
  }
  if (!hrx_hf_is_commit(h.commit)) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "the hub sent no commit hash (X-Repo-Commit) for "
                           "'%s' of %s",
                           t->file->filename, t->file->repo_id);
  }
  memcpy(m->commit, h.commit, sizeof(m->commit));
  const char* etag = h.linked_etag[0] ? h.linked_etag : h.etag;
  if (!hrx_hf_etag_normalize(etag, m->etag)) {
    char shown[HRX_ESCAPED_NAME_CAPACITY];
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "the hub sent no usable ETag for '%s' of %s "
                           "(got '%s')",
                           t->file->filename, t->file->repo_id,
                           hrx_artifacts_show(etag, shown));
  }
  m->size_known = hrx_hf_parse_size(h.linked_size, &m->size) ||
                  (h.code >= 200 && h.code < 300 &&
                   hrx_hf_parse_size(h.content_length, &m->size));
  return HRX_OK;
}

hrx_status_t hrx_hf_fetch_metadata(const hrx_hf_resolver_t* r,
                                   const hrx_hf_target_t* t,
                                   hrx_hf_metadata_t* out_metadata) {
  memset(out_metadata, 0, sizeof(*out_metadata));
  hrx_status_t status = HRX_OK;
  for (uint32_t attempt = 0; attempt < r->attempts; ++attempt) {
    hrx_status_free(status);
    status = hrx_hf_backoff(r, t, attempt);
    if (status == HRX_OK) status = hrx_hf_metadata_once(r, t, out_metadata);
    if (!hrx_hf_transient(status)) break;
  }
  if (status == HRX_OK && hrx_hf_is_commit(t->revision) &&
      strcmp(out_metadata->commit, t->revision) != 0) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "the hub answered commit %s for revision %s",
                           out_metadata->commit, t->revision);
  }
  return status;
}

/* One blob download into an .incomplete file. */
typedef struct hrx_hf_download_t {
  const hrx_hf_resolver_t* r;
  const hrx_hf_target_t* t;
  const hrx_hf_metadata_t* m;
  int fd;
  hrx_sha256_t hash;
  uint64_t have; /* bytes in the file, all of them hashed */
  bool started;  /* the body of the final response has begun */
  bool bar;
  hrx_progress_bar_t progress;
  hrx_hf_headers_t headers;
  hrx_hf_pace_t pace;
  hrx_status_t failure; /* why the write callback stopped the transfer */
} hrx_hf_download_t;

static hrx_status_t hrx_hf_restart(hrx_hf_download_t* d) {
  if (ftruncate(d->fd, 0) != 0 || lseek(d->fd, 0, SEEK_SET) != 0) {
    return hrx_status_from_errno(errno, "cannot restart a download");
  }
  hrx_sha256_init(&d->hash);
  d->have = 0;
  return HRX_OK;
}

static void hrx_hf_report(hrx_hf_download_t* d) {
  uint64_t total = d->m->size_known ? d->m->size : 0;
  if (d->r->progress == HRX_HF_PROGRESS_CALLBACK && d->r->progress_fn) {
    d->r->progress_fn(d->r->progress_user_data, d->t->file->filename, d->have,
                      total);
  } else if (d->bar) {
    hrx_progress_bar_update(&d->progress, d->have, total);
  }
}

/* The first body bytes: a 206 must continue where the file ends, and one
 * from byte 0 is the file from its start; a 200 means the server sent
 * everything again. A range anywhere else empties the file, so that the
 * next try asks for all of it: kept, the partial file would fail every
 * later fetch the same way. */
static hrx_status_t hrx_hf_body_starts(hrx_hf_download_t* d) {
  d->started = true;
  if (d->headers.code != 206) return d->have ? hrx_hf_restart(d) : HRX_OK;
  unsigned long long first = 0;
  bool parsed = sscanf(d->headers.content_range, "bytes %llu-", &first) == 1;
  if (parsed && first == d->have) return HRX_OK;
  uint64_t asked = d->have;
  HRX_RETURN_IF_ERROR(hrx_hf_restart(d));
  if (parsed && first == 0) return HRX_OK;
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                         "the server resumed '%s' at the wrong place ('%s', "
                         "asked for byte %llu); starting it over",
                         d->t->file->filename,
                         hrx_artifacts_show(d->headers.content_range, shown),
                         (unsigned long long)asked);
}

/* Stops a body longer than the hub announced, or than the cap when it
 * announced no size, before it reaches the disk. */
static hrx_status_t hrx_hf_check_growth(const hrx_hf_download_t* d,
                                        size_t n) {
  const hrx_hf_file_t* file = d->t->file;
  if (d->m->size_known && d->have + n > d->m->size) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "'%s' of %s is longer than the %llu bytes the hub "
                           "announced",
                           file->filename, file->repo_id,
                           (unsigned long long)d->m->size);
  }
  if (!d->m->size_known && d->have + n > d->r->max_bytes) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "'%s' of %s passed %llu bytes, the limit for a "
                           "file whose size the hub does not announce",
                           file->filename, file->repo_id,
                           (unsigned long long)d->r->max_bytes);
  }
  return HRX_OK;
}

static size_t hrx_hf_on_body(char* data, size_t size, size_t count,
                             void* context) {
  hrx_hf_download_t* d = context;
  size_t n = size * count;
  if (!d->started) {
    d->failure = hrx_hf_body_starts(d);
    if (d->failure) return 0;
  }
  d->failure = hrx_hf_check_growth(d, n);
  if (d->failure) return 0;
  d->failure = hrx_fd_write_all(d->fd, data, n, d->t->file->filename);
  if (d->failure) return 0;
  hrx_sha256_update(&d->hash, data, n);
  d->have += n;
  hrx_hf_report(d);
  return n;
}

/* One try: GET from where the file ends. Leaves the partial file for the
 * next try unless the bytes cannot be right. */
static hrx_status_t hrx_hf_get(hrx_hf_download_t* d) {
  const char* url = d->m->download_url;
  CURL* curl = curl_easy_init();
  bool ok = false;
  struct curl_slist* list = hrx_hf_request_headers(d->r, url, &ok);
  if (!curl || !ok) {
    curl_slist_free_all(list);
    curl_easy_cleanup(curl);
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "cannot start a transfer");
  }
  char error[CURL_ERROR_SIZE] = "";
  char range[48];
  hrx_hf_transfer_options(curl, d->r, d->t, url, error, &d->headers,
                          &d->pace);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  /* libcurl does not forward this token to another host on redirects. */
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, hrx_hf_on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, d);
  if (d->have) {
    /* A plain Range header, so a server that ignores it (200) restarts
     * the file instead of failing the transfer. */
    snprintf(range, sizeof(range), "%llu-", (unsigned long long)d->have);
    curl_easy_setopt(curl, CURLOPT_RANGE, range);
  }
  d->started = false;
  CURLcode code = curl_easy_perform(curl);
  long http = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http);
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  hrx_status_t paced = hrx_hf_pace_verdict(&d->pace, code);
  if (d->failure) {
    hrx_status_t failure = d->failure;
    d->failure = HRX_OK;
    hrx_status_free(paced);
    return failure;
  }
  HRX_RETURN_IF_ERROR(paced);
  if (code == CURLE_HTTP_RETURNED_ERROR && http == 416) {
    /* The server will not continue this file: start it over next try. */
    HRX_RETURN_IF_ERROR(hrx_hf_restart(d));
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "the server refused to resume '%s'; restarting",
                           d->t->file->filename);
  }
  if (code == CURLE_HTTP_RETURNED_ERROR) {
    d->headers.code = http;
    return hrx_hf_http_failure(d->r, d->t, &d->headers);
  }
  if (code != CURLE_OK) {
    return hrx_hf_curl_failure(code, error, "download of", url, &d->pace);
  }
  if (!d->started && d->have && http != 206) {
    HRX_RETURN_IF_ERROR(hrx_hf_restart(d)); /* an empty 200 */
  }
  return HRX_OK;
}

/* The finished bytes against every digest we know. */
static hrx_status_t hrx_hf_check_blob(hrx_hf_download_t* d) {
  const hrx_hf_target_t* t = d->t;
  if (d->m->size_known && d->have != d->m->size) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "'%s' of %s has %llu bytes; the hub announced %llu",
                           t->file->filename, t->file->repo_id,
                           (unsigned long long)d->have,
                           (unsigned long long)d->m->size);
  }
  hrx_sha256_digest_t digest;
  hrx_sha256_final(&d->hash, &digest);
  char got[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&digest, got);
  if (hrx_hf_is_sha256_hex(d->m->etag) && strcmp(got, d->m->etag) != 0) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "'%s' of %s has SHA-256 %s; its LFS pointer says %s",
                           t->file->filename, t->file->repo_id, got,
                           d->m->etag);
  }
  if (t->file->sha256 &&
      memcmp(&digest, t->file->sha256, sizeof(digest)) != 0) {
    char want[HRX_SHA256_HEX_SIZE];
    hrx_sha256_digest_format(t->file->sha256, want);
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "'%s' of %s has SHA-256 %s, expected %s",
                           t->file->filename, t->file->repo_id, got, want);
  }
  return HRX_OK;
}

/* Opens the partial file and hashes what it already holds. */
static hrx_status_t hrx_hf_open_partial(hrx_hf_download_t* d,
                                        const char* path) {
  /* Non-blocking, so that a FIFO planted here cannot hold the open. */
  d->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
               0644);
  if (d->fd < 0) return hrx_status_from_errno(errno, "cannot open '%s'", path);
  struct stat info;
  if (fstat(d->fd, &info) != 0) {
    return hrx_status_from_errno(errno, "cannot stat '%s'", path);
  }
  if (!S_ISREG(info.st_mode)) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "'%s' is a %s, not a regular file; remove it",
                           path, hrx_file_kind_name(info.st_mode));
  }
  hrx_sha256_init(&d->hash);
  HRX_RETURN_IF_ERROR(hrx_status_annotate(
      hrx_sha256_update_fd(&d->hash, d->fd, &d->have), "reading '%s'",
      path));
  /* More than the whole file cannot be a prefix of it. */
  uint64_t most = d->m->size_known ? d->m->size : d->r->max_bytes;
  if (d->have > most) return hrx_hf_restart(d);
  return HRX_OK;
}

static hrx_status_t hrx_hf_download_locked(const hrx_hf_resolver_t* r,
                                           const hrx_hf_target_t* t,
                                           const hrx_hf_metadata_t* m,
                                           const char* blob) {
  char partial[PATH_MAX];
  HRX_RETURN_IF_ERROR(hrx_hf_format_path(partial, "%s.incomplete", blob));
  hrx_hf_download_t d = {.r = r, .t = t, .m = m, .fd = -1};
  d.bar = r->progress == HRX_HF_PROGRESS_BAR ||
          (r->progress == HRX_HF_PROGRESS_AUTO && isatty(STDERR_FILENO));
  hrx_progress_bar_init(&d.progress, stderr, t->file->filename);
  hrx_status_t status = hrx_hf_open_partial(&d, partial);
  for (uint32_t attempt = 0; status == HRX_OK && attempt < r->attempts;
       ++attempt) {
    status = hrx_hf_backoff(r, t, attempt);
    if (status == HRX_OK) status = hrx_hf_get(&d);
    if (!hrx_hf_transient(status) || attempt + 1 == r->attempts) break;
    hrx_status_free(status);
    status = HRX_OK;
  }
  if (status == HRX_OK) status = hrx_hf_check_blob(&d);
  if (status == HRX_OK && fsync(d.fd) != 0) {
    status = hrx_status_from_errno(errno, "cannot flush '%s'", partial);
  }
  if (d.fd >= 0) close(d.fd);
  if (status == HRX_OK && rename(partial, blob) != 0) {
    status = hrx_status_from_errno(errno, "cannot publish '%s'", blob);
  }
  /* Bytes that failed a digest or a size must not be resumed (nor kept on
   * the disk); a broken transfer is. */
  if (hrx_status_is(status, HRX_STATUS_DATA_LOSS) ||
      hrx_status_is(status, HRX_STATUS_OUT_OF_RANGE)) {
    unlink(partial);
  }
  return status;
}

/* Whether blobs/<etag> is there. Anything but a regular file (a FIFO, say)
 * is an error: published, it would hang whoever reads the snapshot. */
static hrx_status_t hrx_hf_blob_present(const char* blob, bool* out_present) {
  struct stat info;
  *out_present = stat(blob, &info) == 0;
  if (!*out_present) {
    return errno == ENOENT
               ? HRX_OK
               : hrx_status_from_errno(errno, "cannot stat '%s'", blob);
  }
  if (S_ISREG(info.st_mode)) return HRX_OK;
  return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                         "'%s' is a %s, not a regular file; remove it", blob,
                         hrx_file_kind_name(info.st_mode));
}

hrx_status_t hrx_hf_fetch_blob(const hrx_hf_resolver_t* r,
                               const hrx_hf_target_t* t,
                               const hrx_hf_metadata_t* m,
                               bool* out_downloaded) {
  *out_downloaded = false;
  char blob[PATH_MAX];
  HRX_RETURN_IF_ERROR(
      hrx_hf_format_path(blob, "%s/blobs/%s", t->repo_dir, m->etag));
  bool present = false;
  HRX_RETURN_IF_ERROR(hrx_hf_blob_present(blob, &present));
  if (present) return HRX_OK;
  char locks[PATH_MAX];
  char lock_path[PATH_MAX];
  HRX_RETURN_IF_ERROR(hrx_hf_format_path(locks, "%s/.locks/%s", r->cache_dir,
                                         t->folder));
  HRX_RETURN_IF_ERROR(
      hrx_hf_format_path(lock_path, "%s/%s.lock", locks, m->etag));
  char blobs[PATH_MAX];
  HRX_RETURN_IF_ERROR(hrx_hf_format_path(blobs, "%s/blobs", t->repo_dir));
  HRX_RETURN_IF_ERROR(hrx_dir_create_all(locks, 0755));
  HRX_RETURN_IF_ERROR(hrx_dir_create_all(blobs, 0755));
  hrx_file_lock_t lock;
  HRX_RETURN_IF_ERROR(
      hrx_file_lock_acquire(lock_path, HRX_LOCK_EXCLUSIVE, &lock));
  /* Another process may have finished it while we waited. */
  hrx_status_t status = hrx_hf_blob_present(blob, &present);
  if (status == HRX_OK && !present) {
    status = hrx_hf_download_locked(r, t, m, blob);
    *out_downloaded = status == HRX_OK;
  }
  hrx_file_lock_release(&lock);
  return status;
}

#else /* !HRX_ARTIFACTS_HAVE_CURL */

hrx_status_t hrx_hf_fetch_metadata(const hrx_hf_resolver_t* r,
                                   const hrx_hf_target_t* t,
                                   hrx_hf_metadata_t* out_metadata) {
  (void)out_metadata;
  return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                         "'%s' of %s is not in the cache %s and this build "
                         "has no download support (meson -Ddownload)",
                         t->file->filename, t->file->repo_id, r->cache_dir);
}

hrx_status_t hrx_hf_fetch_blob(const hrx_hf_resolver_t* r,
                               const hrx_hf_target_t* t,
                               const hrx_hf_metadata_t* m,
                               bool* out_downloaded) {
  (void)m;
  *out_downloaded = false;
  return hrx_hf_fetch_metadata(r, t, NULL);
}

#endif /* HRX_ARTIFACTS_HAVE_CURL */
