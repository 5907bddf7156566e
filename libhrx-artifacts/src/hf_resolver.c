/* The resolver: configuration from options and environment, and the order
 * of a resolution (cache, hub metadata, blob, publication). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hf_internal.h"

static bool hrx_hf_env_true(const char* name) {
  const char* value = getenv(name);
  if (!value) return false;
  static const char* const yes[] = {"1", "ON", "YES", "TRUE"};
  for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); ++i) {
    if (strcasecmp(value, yes[i]) == 0) return true;
  }
  return false;
}

static const char* hrx_hf_env_absolute(const char* name) {
  const char* value = getenv(name);
  return value && value[0] == '/' ? value : NULL;
}

/* $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface. */
static hrx_status_t hrx_hf_home(char* out) {
  const char* home = hrx_hf_env_absolute("HF_HOME");
  if (home) return hrx_hf_format_path(out, "%s", home);
  const char* xdg = hrx_hf_env_absolute("XDG_CACHE_HOME");
  if (xdg) return hrx_hf_format_path(out, "%s/huggingface", xdg);
  const char* user = hrx_hf_env_absolute("HOME");
  if (user) return hrx_hf_format_path(out, "%s/.cache/huggingface", user);
  return hrx_make_status(HRX_STATUS_NOT_FOUND,
                         "no Hugging Face cache: set HF_HUB_CACHE, HF_HOME "
                         "or HOME to an absolute path");
}

static hrx_status_t hrx_hf_cache_dir(const hrx_hf_options_t* o, char* out) {
  if (o->cache_dir) return hrx_hf_format_path(out, "%s", o->cache_dir);
  const char* hub = hrx_hf_env_absolute("HF_HUB_CACHE");
  if (hub) return hrx_hf_format_path(out, "%s", hub);
  char home[PATH_MAX];
  HRX_RETURN_IF_ERROR(hrx_hf_home(home));
  return hrx_hf_format_path(out, "%s/hub", home);
}

/* A token goes into a header line: anything but visible ASCII would let it
 * inject headers. */
static hrx_status_t hrx_hf_check_token(const char* token, const char* from) {
  for (const char* c = token; *c; ++c) {
    if (*c <= ' ' || *c == 0x7f) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "the token from %s has spaces or control "
                             "characters",
                             from);
    }
  }
  return HRX_OK;
}

static hrx_status_t hrx_hf_token(const hrx_hf_options_t* o,
                                 hrx_allocator_t allocator, char** out) {
  *out = NULL;
  const char* from = "the options";
  const char* token = o->token;
  if (!token && getenv("HF_TOKEN") && getenv("HF_TOKEN")[0]) {
    token = getenv("HF_TOKEN");
    from = "HF_TOKEN";
  }
  if (token) {
    HRX_RETURN_IF_ERROR(hrx_hf_check_token(token, from));
    return hrx_allocator_strdup(allocator, token, out);
  }
  char path[PATH_MAX];
  const char* file = hrx_hf_env_absolute("HF_TOKEN_PATH");
  if (file) {
    HRX_RETURN_IF_ERROR(hrx_hf_format_path(path, "%s", file));
  } else {
    char home[PATH_MAX];
    hrx_status_t status = hrx_hf_home(home);
    if (status) {
      hrx_status_free(status);
      return HRX_OK; /* no home, no token file: anonymous */
    }
    HRX_RETURN_IF_ERROR(hrx_hf_format_path(path, "%s/token", home));
  }
  void* data = NULL;
  size_t length = 0;
  hrx_status_t status =
      hrx_file_read_all(allocator, path, 4096, &data, &length);
  if (hrx_status_is(status, HRX_STATUS_NOT_FOUND)) {
    hrx_status_free(status);
    return HRX_OK;
  }
  HRX_RETURN_IF_ERROR(status);
  char* text = data;
  while (length && (text[length - 1] == '\n' || text[length - 1] == '\r' ||
                    text[length - 1] == ' ')) {
    text[--length] = '\0';
  }
  status = hrx_hf_check_token(text, path);
  if (status || length == 0) {
    hrx_allocator_free(allocator, text);
    return status;
  }
  *out = text;
  return HRX_OK;
}

hrx_status_t hrx_hf_resolver_create(const hrx_hf_options_t* options,
                                    hrx_allocator_t allocator,
                                    hrx_hf_resolver_t** out_resolver) {
  *out_resolver = NULL;
  hrx_hf_options_t local_options;
  HRX_RETURN_IF_ERROR(
      HRX_STRUCT_READ(hrx_hf_options_t, max_bytes, options, &local_options));
  const hrx_hf_options_t* o = &local_options;
  if ((unsigned)o->progress > HRX_HF_PROGRESS_CALLBACK ||
      (o->progress == HRX_HF_PROGRESS_CALLBACK && !o->progress_fn)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "progress policy %d needs a progress_fn",
                           (int)o->progress);
  }
  const char* endpoint = o->endpoint ? o->endpoint : getenv("HF_ENDPOINT");
  if (!endpoint || !endpoint[0]) endpoint = "https://huggingface.co";
  if (strncmp(endpoint, "https://", 8) != 0 &&
      strncmp(endpoint, "http://", 7) != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "endpoint '%s' is not an http(s) URL", endpoint);
  }
  char cache_dir[PATH_MAX];
  HRX_RETURN_IF_ERROR(hrx_hf_cache_dir(o, cache_dir));
  hrx_hf_resolver_t* r = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*r), (void**)&r));
  r->allocator = allocator;
  r->offline = o->offline || hrx_hf_env_true("HF_HUB_OFFLINE");
  r->refresh_refs = o->refresh_refs;
  r->progress = o->progress;
  r->progress_fn = o->progress_fn;
  r->progress_user_data = o->progress_user_data;
  r->stall_timeout_ms = o->stall_timeout_ms ? o->stall_timeout_ms : 30000;
  r->attempts = o->attempts ? o->attempts : 3;
  r->min_bytes_per_second =
      o->min_bytes_per_second ? o->min_bytes_per_second : 1024;
  r->deadline_ms = o->deadline_ms;
  r->max_bytes =
      o->max_bytes ? o->max_bytes : (uint64_t)64 << 30;
  hrx_status_t status = hrx_allocator_strdup(allocator, cache_dir, &r->cache_dir);
  if (status == HRX_OK) {
    status = hrx_allocator_strdup(allocator, endpoint, &r->endpoint);
  }
  if (status == HRX_OK) {
    size_t n = strlen(r->endpoint);
    while (n > 0 && r->endpoint[n - 1] == '/') r->endpoint[--n] = '\0';
    status = hrx_hf_token(o, allocator, &r->token);
  }
  if (status) {
    hrx_hf_resolver_destroy(r);
    return status;
  }
  *out_resolver = r;
  return HRX_OK;
}

void hrx_hf_resolver_destroy(hrx_hf_resolver_t* r) {
  if (!r) return;
  hrx_allocator_free(r->allocator, r->cache_dir);
  hrx_allocator_free(r->allocator, r->endpoint);
  if (r->token) {
    /* Do not leave the secret in freed memory. */
    volatile char* c = r->token;
    while (*c) *c++ = '\0';
  }
  hrx_allocator_free(r->allocator, r->token);
  hrx_allocator_free(r->allocator, r);
}

const char* hrx_hf_resolver_cache_dir(const hrx_hf_resolver_t* r) {
  return r->cache_dir;
}

bool hrx_hf_resolver_offline(const hrx_hf_resolver_t* r) { return r->offline; }

/* Hands |path| to the caller once it passed the caller's digest. */
static hrx_status_t hrx_hf_answer(const hrx_hf_target_t* t, const char* path,
                                  const char* commit, bool verify,
                                  hrx_allocator_t allocator, char** out_path,
                                  hrx_hf_commit_t* out_commit) {
  if (verify) HRX_RETURN_IF_ERROR(hrx_hf_cache_verify(t, path));
  if (out_commit) memcpy(out_commit->hex, commit, HRX_HF_COMMIT_LENGTH + 1);
  return hrx_allocator_strdup(allocator, path, out_path);
}

static hrx_status_t hrx_hf_recorded_missing(const hrx_hf_target_t* t,
                                            const char* commit) {
  return hrx_make_status(HRX_STATUS_NOT_FOUND,
                         "the hub has no file '%s' in commit %s of %s "
                         "(recorded in the cache under .no_exist)",
                         t->file->filename, commit, t->file->repo_id);
}

hrx_status_t hrx_hf_resolve(const hrx_hf_resolver_t* r,
                            const hrx_hf_file_t* file,
                            hrx_allocator_t allocator, char** out_path,
                            hrx_hf_commit_t* out_commit) {
  *out_path = NULL;
  if (out_commit) out_commit->hex[0] = '\0';
  hrx_hf_target_t t;
  HRX_RETURN_IF_ERROR(hrx_hf_target_init(r, file, &t));
  char commit[HRX_HF_COMMIT_LENGTH + 1] = "";
  char path[PATH_MAX];
  hrx_status_t status = hrx_hf_cache_commit(&t, commit);
  bool known = status == HRX_OK;
  if (status == HRX_OK) status = hrx_hf_cache_snapshot(&t, commit, path);
  bool cached = status == HRX_OK;
  hrx_status_free(status);
  /* The cache already holds the hub's "no such file" for this commit. */
  bool missing = known && !cached && hrx_hf_cache_no_exist(&t, commit);
  bool settled =
      hrx_hf_is_commit(t.revision) || !r->refresh_refs || r->offline;
  if (cached && settled) {
    return hrx_hf_answer(&t, path, commit, true, allocator, out_path,
                         out_commit);
  }
  if (missing && settled) return hrx_hf_recorded_missing(&t, commit);
  if (r->offline) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "'%s' at '%s' of %s is not in the cache %s and "
                           "downloads are off (HF_HUB_OFFLINE or the offline "
                           "option); fetch it once while online",
                           file->filename, t.revision, file->repo_id,
                           r->cache_dir);
  }
  hrx_hf_metadata_t m = {0}; /* the no-download build leaves it */
  status = hrx_hf_fetch_metadata(r, &t, &m);
  if (status && (cached || missing) &&
      (hrx_status_is(status, HRX_STATUS_UNAVAILABLE) ||
       hrx_status_is(status, HRX_STATUS_DEADLINE_EXCEEDED))) {
    /* The hub is unreachable: what the cache knows is the best answer. */
    hrx_status_free(status);
    if (missing) return hrx_hf_recorded_missing(&t, commit);
    return hrx_hf_answer(&t, path, commit, true, allocator, out_path,
                         out_commit);
  }
  if (status && m.entry_missing) {
    /* Remembered as huggingface_hub does; a cache we cannot write only
     * costs the next lookup a request. */
    hrx_status_free(hrx_hf_cache_mark_missing(&t, m.commit));
  }
  HRX_RETURN_IF_ERROR(status);
  /* Another revision name may already have brought this commit's file. */
  status = hrx_hf_cache_snapshot(&t, m.commit, path);
  if (status == HRX_OK) {
    HRX_RETURN_IF_ERROR(hrx_hf_cache_write_ref(&t, m.commit));
    return hrx_hf_answer(&t, path, m.commit, true, allocator, out_path,
                         out_commit);
  }
  hrx_status_free(status);
  bool downloaded = false;
  HRX_RETURN_IF_ERROR(hrx_hf_fetch_blob(r, &t, &m, &downloaded));
  if (!downloaded && file->sha256) {
    char blob[PATH_MAX];
    HRX_RETURN_IF_ERROR(
        hrx_hf_format_path(blob, "%s/blobs/%s", t.repo_dir, m.etag));
    HRX_RETURN_IF_ERROR(hrx_hf_cache_verify(&t, blob));
  }
  HRX_RETURN_IF_ERROR(hrx_hf_cache_publish(&t, &m, path));
  return hrx_hf_answer(&t, path, m.commit, false, allocator, out_path,
                       out_commit);
}
