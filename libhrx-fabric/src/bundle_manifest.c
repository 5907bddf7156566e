/* bundle.json: parsing, validation and canonical formatting. */
#include <dlfcn.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle_internal.h"

#ifndef HRX_FABRIC_BUNDLE_JSON_DEFAULT
#define HRX_FABRIC_BUNDLE_JSON_DEFAULT "/usr/local/share/hrx/bundle.json"
#endif

void hrx_fabric_bundle_manifest_destroy(hrx_fabric_bundle_manifest_t* m) {
  if (!m) return;
  for (size_t i = 0; i < m->file_count; ++i) {
    hrx_allocator_free(m->allocator, m->files[i].name);
  }
  hrx_allocator_free(m->allocator, m->files);
  hrx_allocator_free(m->allocator, m->target);
  hrx_allocator_free(m->allocator, m->revision);
  hrx_allocator_free(m->allocator, m->url);
  hrx_allocator_free(m->allocator, m->source_dir);
  hrx_allocator_free(m->allocator, m);
}

/* A relative path of plain components: no absolute path, no empty, "." or
 * ".." component, no backslash or control character. */
static bool hrx_bundle_name_is_safe(const char* name) {
  size_t length = strlen(name);
  if (length == 0 || length > 1024 || name[0] == '/') return false;
  const char* component = name;
  for (const char* p = name;; ++p) {
    if (*p == '/' || *p == '\0') {
      size_t n = (size_t)(p - component);
      if (n == 0 || (n == 1 && component[0] == '.') ||
          (n == 2 && component[0] == '.' && component[1] == '.')) {
        return false;
      }
      if (*p == '\0') return true;
      component = p + 1;
    } else if ((unsigned char)*p < 0x20 || *p == '\\' || *p == 0x7f) {
      return false;
    }
  }
}

static int hrx_bundle_compare_files(const void* a, const void* b) {
  return strcmp(((const hrx_fabric_bundle_file_t*)a)->name,
                ((const hrx_fabric_bundle_file_t*)b)->name);
}

int hrx_bundle_find_file(const void* key, const void* element) {
  return strcmp((const char*)key,
                ((const hrx_fabric_bundle_file_t*)element)->name);
}

static hrx_status_t hrx_bundle_string(json_t* root, const char* key,
                                      const char* source,
                                      hrx_allocator_t allocator,
                                      char** out) {
  json_t* value = json_object_get(root, key);
  if (!value) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: missing field \"%s\"", source, key);
  }
  if (!json_is_string(value) || json_string_length(value) == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: \"%s\" must be a nonempty string", source,
                           key);
  }
  return hrx_allocator_strdup(allocator, json_string_value(value), out);
}

/* |what| is a field or file name of the manifest: untrusted text. */
static hrx_status_t hrx_bundle_digest(json_t* value, const char* source,
                                      const char* what,
                                      hrx_sha256_digest_t* out) {
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  hrx_escape_text(what, strlen(what), shown, sizeof(shown));
  if (!json_is_string(value)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: %s must be a string of 64 hex digits", source,
                           shown);
  }
  hrx_status_t status = hrx_sha256_digest_parse(json_string_value(value), out);
  if (status != HRX_OK) {
    hrx_status_t named = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                                         "%s: %s: %s", source, shown,
                                         hrx_status_message(status));
    hrx_status_free(status);
    return named;
  }
  return HRX_OK;
}

/* A url provisioning downloads (the others name local archives). */
static bool hrx_bundle_url_is_remote(const char* url) {
  return !strncmp(url, "https://", 8) || !strncmp(url, "http://", 7);
}

hrx_status_t hrx_bundle_check_url(const char* url, const char* source) {
  if (hrx_bundle_url_is_remote(url)) return HRX_OK;
  char shown[HRX_ESCAPED_NAME_CAPACITY];
  hrx_escape_text(url, strlen(url), shown, sizeof(shown));
  if (!strncmp(url, "file://", 7)) {
    if (url[7] == '/') return HRX_OK;
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: url '%s' must name an absolute path "
                           "(file:///...)",
                           source, shown);
  }
  size_t scheme = strcspn(url, ":/");
  if (url[scheme] == ':') {
    char scheme_shown[HRX_ESCAPED_NAME_CAPACITY];
    hrx_escape_text(url, scheme, scheme_shown, sizeof(scheme_shown));
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: url '%s' has scheme '%s'; bundles come "
                           "from https://, http:// or file:// URLs or a "
                           "path relative to bundle.json",
                           source, shown, scheme_shown);
  }
  if (url[0] == '/') {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: url '%s' is an absolute path; write "
                           "file://%s",
                           source, shown, shown);
  }
  return HRX_OK;
}

/* "size": optional, so that manifests written before it existed still
 * load; they are downloaded under the fetch options' general cap. */
static hrx_status_t hrx_bundle_parse_size(json_t* root, const char* source,
                                          uint64_t* out_size) {
  json_t* size = json_object_get(root, "size");
  if (!size) return HRX_OK;
  if (!json_is_integer(size) || json_integer_value(size) <= 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: \"size\" must be the archive's size in bytes "
                           "(a positive integer)",
                           source);
  }
  *out_size = (uint64_t)json_integer_value(size);
  return HRX_OK;
}

/* "a" and "a/b" cannot both be files: every parent of a listed name must
 * not be listed itself. A search per parent keeps this O(n log n) in the
 * number of files; comparing neighbours alone misses "a", "a-b", "a/b". */
static hrx_status_t hrx_bundle_check_parents(
    const hrx_fabric_bundle_manifest_t* m, const char* source) {
  char parent[1025]; /* names are at most 1024 bytes */
  for (size_t i = 0; i < m->file_count; ++i) {
    const char* name = m->files[i].name;
    for (const char* slash = strchr(name, '/'); slash;
         slash = strchr(slash + 1, '/')) {
      size_t n = (size_t)(slash - name);
      memcpy(parent, name, n);
      parent[n] = '\0';
      if (bsearch(parent, m->files, m->file_count, sizeof(*m->files),
                  hrx_bundle_find_file)) {
        char shown[HRX_ESCAPED_NAME_CAPACITY];
        return hrx_make_status(
            HRX_STATUS_INVALID_ARGUMENT, "%s: \"%s\" is a file and a directory",
            source, hrx_escape_text(parent, n, shown, sizeof(shown)));
      }
    }
  }
  return HRX_OK;
}

static hrx_status_t hrx_bundle_parse_root(json_t* root, const char* source,
                                          hrx_fabric_bundle_manifest_t* m) {
  static const char* const known[] = {"schema", "target", "revision",
                                      "url",    "files",  "archive_sha256",
                                      "size"};
  if (!json_is_object(root)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: a bundle manifest is a JSON object", source);
  }
  const char* key;
  json_t* value;
  json_object_foreach(root, key, value) {
    bool ok = false;
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); ++i) {
      if (!strcmp(key, known[i])) ok = true;
    }
    if (!ok) {
      char shown[HRX_ESCAPED_NAME_CAPACITY];
      return hrx_make_status(
          HRX_STATUS_INVALID_ARGUMENT, "%s: unknown field \"%s\"", source,
          hrx_escape_text(key, strlen(key), shown, sizeof(shown)));
    }
  }
  json_t* schema = json_object_get(root, "schema");
  if (!schema) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: missing field \"schema\"", source);
  }
  if (!json_is_integer(schema) ||
      json_integer_value(schema) != HRX_FABRIC_BUNDLE_SCHEMA) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: unknown schema %s (this HRX reads schema %d)",
                           source,
                           json_is_integer(schema) ? "version" : "value",
                           HRX_FABRIC_BUNDLE_SCHEMA);
  }
  m->schema = HRX_FABRIC_BUNDLE_SCHEMA;
  HRX_RETURN_IF_ERROR(
      hrx_bundle_string(root, "target", source, m->allocator, &m->target));
  HRX_RETURN_IF_ERROR(hrx_bundle_string(root, "revision", source,
                                        m->allocator, &m->revision));
  HRX_RETURN_IF_ERROR(
      hrx_bundle_string(root, "url", source, m->allocator, &m->url));
  HRX_RETURN_IF_ERROR(hrx_bundle_check_url(m->url, source));
  json_t* archive = json_object_get(root, "archive_sha256");
  if (!archive) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: missing field \"archive_sha256\"", source);
  }
  HRX_RETURN_IF_ERROR(
      hrx_bundle_digest(archive, source, "archive_sha256", &m->archive_sha256));
  HRX_RETURN_IF_ERROR(hrx_bundle_parse_size(root, source, &m->size));
  json_t* files = json_object_get(root, "files");
  if (!files) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: missing field \"files\"", source);
  }
  if (!json_is_object(files)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s: \"files\" must map names to SHA-256 digests",
                           source);
  }
  size_t count = json_object_size(files);
  if (count) {
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
        m->allocator, count, sizeof(*m->files), (void**)&m->files));
  }
  json_object_foreach(files, key, value) {
    if (!hrx_bundle_name_is_safe(key)) {
      char shown[HRX_ESCAPED_NAME_CAPACITY];
      return hrx_make_status(
          HRX_STATUS_INVALID_ARGUMENT,
          "%s: file name \"%s\" is not a plain relative path", source,
          hrx_escape_text(key, strlen(key), shown, sizeof(shown)));
    }
    hrx_fabric_bundle_file_t* file = &m->files[m->file_count];
    HRX_RETURN_IF_ERROR(hrx_allocator_strdup(m->allocator, key, &file->name));
    m->file_count++;
    HRX_RETURN_IF_ERROR(hrx_bundle_digest(value, source, key, &file->sha256));
  }
  if (m->file_count) {
    qsort(m->files, m->file_count, sizeof(*m->files),
          hrx_bundle_compare_files);
  }
  return hrx_bundle_check_parents(m, source);
}

hrx_status_t hrx_fabric_bundle_manifest_parse(
    const char* json, size_t length, const char* source_name,
    hrx_allocator_t allocator, hrx_fabric_bundle_manifest_t** out_manifest) {
  *out_manifest = NULL;
  const char* source = source_name ? source_name : "bundle.json";
  json_error_t error;
  json_t* root = json_loadb(json ? json : "", json ? length : 0,
                            JSON_REJECT_DUPLICATES, &error);
  if (!root) {
    /* jansson quotes the offending input. */
    char shown[HRX_ESCAPED_NAME_CAPACITY];
    return hrx_make_status(
        HRX_STATUS_INVALID_ARGUMENT, "%s:%d:%d: %s", source, error.line,
        error.column,
        hrx_escape_text(error.text, strlen(error.text), shown, sizeof(shown)));
  }
  hrx_fabric_bundle_manifest_t* m = NULL;
  hrx_status_t status =
      hrx_allocator_malloc(allocator, sizeof(*m), (void**)&m);
  if (status == HRX_OK) {
    m->allocator = allocator;
    status = hrx_bundle_parse_root(root, source, m);
  }
  json_decref(root);
  if (status != HRX_OK) {
    hrx_fabric_bundle_manifest_destroy(m);
    return status;
  }
  *out_manifest = m;
  return HRX_OK;
}

hrx_status_t hrx_fabric_bundle_manifest_load(
    const char* path, hrx_allocator_t allocator,
    hrx_fabric_bundle_manifest_t** out_manifest) {
  *out_manifest = NULL;
  void* text = NULL;
  size_t length = 0;
  HRX_RETURN_IF_ERROR(
      hrx_file_read_all(allocator, path, 16u << 20, &text, &length));
  hrx_status_t status = hrx_fabric_bundle_manifest_parse(
      text, length, path, allocator, out_manifest);
  hrx_allocator_free(allocator, text);
  if (status != HRX_OK) return status;
  status = hrx_path_parent(allocator, path, &(*out_manifest)->source_dir);
  if (status != HRX_OK) {
    hrx_fabric_bundle_manifest_destroy(*out_manifest);
    *out_manifest = NULL;
  }
  return status;
}

hrx_status_t hrx_bundle_local_archive(const hrx_fabric_bundle_manifest_t* m,
                                      hrx_allocator_t allocator,
                                      char** out_path) {
  *out_path = NULL;
  const char* url = m->url;
  if (hrx_bundle_url_is_remote(url)) return HRX_OK;
  if (!strncmp(url, "file://", 7)) {
    return hrx_allocator_strdup(allocator, url + 7, out_path);
  }
  if (!m->source_dir) {
    char shown[HRX_ESCAPED_NAME_CAPACITY];
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "bundle url '%s' is relative to a bundle.json, "
                           "but this manifest was not loaded from a file",
                           hrx_escape_text(url, strlen(url), shown,
                                           sizeof(shown)));
  }
  return hrx_path_join(allocator, m->source_dir, url, out_path);
}

/* The bundle.json installed with this library, found from where the
 * library itself was loaded (HRX_FABRIC_BUNDLE_JSON_FROM_LIBDIR: datadir
 * relative to libdir), so that an install moved to another prefix (a
 * DESTDIR, a relocated package) finds its own. NULL when the library was
 * linked statically or that file is not there. */
static char* hrx_bundle_json_beside_library(hrx_allocator_t allocator) {
#ifdef HRX_FABRIC_BUNDLE_JSON_FROM_LIBDIR
  Dl_info info;
  if (!dladdr((void*)(uintptr_t)&hrx_fabric_bundle_manifest_path, &info) ||
      !info.dli_fname || info.dli_fname[0] != '/') {
    return NULL;
  }
  char *dir = NULL, *path = NULL;
  hrx_status_t status = hrx_path_parent(allocator, info.dli_fname, &dir);
  if (status == HRX_OK) {
    status = hrx_path_join(allocator, dir, HRX_FABRIC_BUNDLE_JSON_FROM_LIBDIR,
                           &path);
  }
  hrx_status_free(status);
  hrx_allocator_free(allocator, dir);
  if (path && access(path, R_OK) != 0) {
    hrx_allocator_free(allocator, path);
    path = NULL;
  }
  return path;
#else
  (void)allocator;
  return NULL;
#endif
}

hrx_status_t hrx_fabric_bundle_manifest_path(hrx_allocator_t allocator,
                                             char** out_path) {
  const char* chosen = getenv("HRX_BUNDLE_JSON");
  if (chosen && chosen[0]) {
    return hrx_allocator_strdup(allocator, chosen, out_path);
  }
  *out_path = hrx_bundle_json_beside_library(allocator);
  if (*out_path) return HRX_OK;
  return hrx_allocator_strdup(allocator, HRX_FABRIC_BUNDLE_JSON_DEFAULT,
                              out_path);
}

hrx_status_t hrx_fabric_bundle_manifest_load_pinned(
    hrx_allocator_t allocator, hrx_fabric_bundle_manifest_t** out_manifest) {
  *out_manifest = NULL;
  char* path = NULL;
  HRX_RETURN_IF_ERROR(hrx_fabric_bundle_manifest_path(allocator, &path));
  hrx_status_t status =
      hrx_fabric_bundle_manifest_load(path, allocator, out_manifest);
  const char* chosen = getenv("HRX_BUNDLE_JSON");
  if (hrx_status_is(status, HRX_STATUS_NOT_FOUND) &&
      (!chosen || !chosen[0])) {
    status = hrx_status_annotate(
        status, "HRX is not installed at its prefix; set HRX_BUNDLE_JSON "
                "to a bundle.json (a build tree has tools/bundle.json)");
  }
  hrx_allocator_free(allocator, path);
  return status;
}

hrx_status_t hrx_fabric_bundle_manifest_format(
    const hrx_fabric_bundle_manifest_t* m, hrx_string_builder_t* out) {
  char hex[HRX_SHA256_HEX_SIZE];
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      out, "{\n  \"schema\": %u,\n  \"target\": ", m->schema));
  HRX_RETURN_IF_ERROR(
      hrx_string_builder_append_json_string(out, m->target, strlen(m->target)));
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(out, ",\n  \"revision\": "));
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_json_string(
      out, m->revision, strlen(m->revision)));
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(out, ",\n  \"url\": "));
  HRX_RETURN_IF_ERROR(
      hrx_string_builder_append_json_string(out, m->url, strlen(m->url)));
  hrx_sha256_digest_format(&m->archive_sha256, hex);
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      out, ",\n  \"archive_sha256\": \"%s\",\n", hex));
  if (m->size) {
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
        out, "  \"size\": %llu,\n", (unsigned long long)m->size));
  }
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(out, "  \"files\": {"));
  for (size_t i = 0; i < m->file_count; ++i) {
    HRX_RETURN_IF_ERROR(
        hrx_string_builder_append_cstr(out, i ? ",\n    " : "\n    "));
    HRX_RETURN_IF_ERROR(hrx_string_builder_append_json_string(
        out, m->files[i].name, strlen(m->files[i].name)));
    hrx_sha256_digest_format(&m->files[i].sha256, hex);
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(out, ": \"%s\"", hex));
  }
  return hrx_string_builder_append_cstr(out,
                                        m->file_count ? "\n  }\n}\n" : "}\n}\n");
}
