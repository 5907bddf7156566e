/* Bundles: manifest validation, pack/install round trips, tampering, and
 * malicious archives built here with libarchive. */
#include <archive.h>
#include <archive_entry.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hrx/fabric.h"
#include "hrx/fabric/bundle.h"
#include "test_support.h"

static int make_dir(void** state) {
  *state = test_temp_dir_create();
  return 0;
}

static int remove_dir(void** state) {
  test_temp_dir_remove(*state);
  return 0;
}

static const char* const zero_hex =
    "0000000000000000000000000000000000000000000000000000000000000000";

static hrx_status_t parse(const char* json,
                          hrx_fabric_bundle_manifest_t** out) {
  return hrx_fabric_bundle_manifest_parse(json, strlen(json), "b.json",
                                          hrx_allocator_system(), out);
}

static void test_manifest_errors(void** state) {
  (void)state;
  char good[512];
  snprintf(good, sizeof(good),
           "{\"schema\":1,\"target\":\"gfx1151\",\"revision\":\"r1\","
           "\"url\":\"https://x/b.tar.zst\",\"archive_sha256\":\"%s\","
           "\"files\":{\"b/k.bin\":\"%s\",\"a.bin\":\"%s\"}}",
           zero_hex, zero_hex, zero_hex);
  hrx_fabric_bundle_manifest_t* m = NULL;
  assert_ok(parse(good, &m));
  assert_int_equal(m->file_count, 2);
  assert_string_equal(m->files[0].name, "a.bin"); /* sorted */
  assert_string_equal(m->target, "gfx1151");
  /* Canonical text reads back identically. */
  hrx_string_builder_t text;
  hrx_string_builder_init(hrx_allocator_system(), &text);
  assert_ok(hrx_fabric_bundle_manifest_format(m, &text));
  hrx_fabric_bundle_manifest_t* again = NULL;
  assert_ok(parse(hrx_string_builder_cstr(&text), &again));
  hrx_string_builder_t text2;
  hrx_string_builder_init(hrx_allocator_system(), &text2);
  assert_ok(hrx_fabric_bundle_manifest_format(again, &text2));
  assert_string_equal(hrx_string_builder_cstr(&text),
                      hrx_string_builder_cstr(&text2));
  hrx_string_builder_deinit(&text);
  hrx_string_builder_deinit(&text2);
  hrx_fabric_bundle_manifest_destroy(again);
  hrx_fabric_bundle_manifest_destroy(m);

  struct {
    const char* json;
    const char* message;
  } cases[] = {
      {"{\"schema\":1,", "b.json:1:"},
      {"[]", "is a JSON object"},
      {"{\"schema\":2}", "unknown schema version"},
      {"{\"schema\":\"1\"}", "unknown schema value"},
      {"{}", "missing field \"schema\""},
      {"{\"schema\":1}", "missing field \"target\""},
      {"{\"schema\":1,\"target\":\"t\",\"revision\":\"r\",\"url\":\"u\","
       "\"files\":{}}",
       "missing field \"archive_sha256\""},
      {"{\"schema\":1,\"target\":\"\",\"revision\":\"r\",\"url\":\"u\"}",
       "\"target\" must be a nonempty string"},
      {"{\"schema\":1,\"tagret\":\"t\"}", "unknown field \"tagret\""},
      {"{\"schema\":1,\"target\":\"t\",\"revision\":\"r\",\"url\":\"u\","
       "\"archive_sha256\":\"abc\",\"files\":{}}",
       "archive_sha256"},
      {"{\"schema\":1,\"target\":\"t\",\"target\":\"u\"}", "duplicate"},
      {"{\"schema\":1,\"target\":\"t\",\"revision\":\"r\","
       "\"url\":\"ftp://x/b\"}",
       "has scheme 'ftp'"},
      {"{\"schema\":1,\"target\":\"t\",\"revision\":\"r\","
       "\"url\":\"file://b.tar.zst\"}",
       "must name an absolute path"},
      {"{\"schema\":1,\"target\":\"t\",\"revision\":\"r\","
       "\"url\":\"/srv/b.tar.zst\"}",
       "write file:///srv/b.tar.zst"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    hrx_status_t status = parse(cases[i].json, &m);
    if (!status || !strstr(hrx_status_message(status), cases[i].message)) {
      fail_msg("case %zu: %s", i, status ? hrx_status_message(status) : "OK");
    }
    assert_null(m);
    assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  }
  /* File names must be plain relative paths, listed once. */
  const char* names[] = {"/etc/passwd", "../x", "a/../b", "a//b", "a\\\\b",
                         "",            "./a",  "a/",     "d\\u0001"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    char json[512];
    snprintf(json, sizeof(json),
             "{\"schema\":1,\"target\":\"t\",\"revision\":\"r\",\"url\":\"u\","
             "\"archive_sha256\":\"%s\",\"files\":{\"%s\":\"%s\"}}",
             zero_hex, names[i], zero_hex);
    hrx_status_t status = parse(json, &m);
    if (!status || !strstr(hrx_status_message(status), "plain relative")) {
      fail_msg("name '%s': %s", names[i],
               status ? hrx_status_message(status) : "OK");
    }
    hrx_status_free(status);
  }
  char json[512];
  snprintf(json, sizeof(json),
           "{\"schema\":1,\"target\":\"t\",\"revision\":\"r\",\"url\":\"u\","
           "\"archive_sha256\":\"%s\",\"files\":{\"a\":\"%s\",\"a\":\"%s\"}}",
           zero_hex, zero_hex, zero_hex);
  assert_status_code(parse(json, &m), HRX_STATUS_INVALID_ARGUMENT);
  snprintf(json, sizeof(json),
           "{\"schema\":1,\"target\":\"t\",\"revision\":\"r\",\"url\":\"u\","
           "\"archive_sha256\":\"%s\",\"files\":{\"a\":\"%s\",\"a/b\":\"%s\"}}",
           zero_hex, zero_hex, zero_hex);
  hrx_status_t status = parse(json, &m);
  assert_non_null(strstr(hrx_status_message(status), "file and a directory"));
  hrx_status_free(status);
}

/* The options pack_fixture packs with. */
static hrx_fabric_bundle_pack_options_t fixture_options(void) {
  hrx_fabric_bundle_pack_options_t options =
      HRX_STRUCT_INIT(hrx_fabric_bundle_pack_options_t);
  options.target = "gfx1151";
  options.url = "https://x/b";
  options.revision = "r7";
  return options;
}

/* The least options that pack: target "t", url "u". */
static hrx_fabric_bundle_pack_options_t plain_options(void) {
  hrx_fabric_bundle_pack_options_t options =
      HRX_STRUCT_INIT(hrx_fabric_bundle_pack_options_t);
  options.target = "t";
  options.url = "u";
  return options;
}

/* Creates |root|/|name| and returns its path. */
static char* make_dir_under(const char* root, const char* name) {
  char* dir = test_strdup_printf("%s/%s", root, name);
  assert_ok(hrx_dir_create_all(dir, 0755));
  return dir;
}

/* A source tree with two files, packed; returns the manifest. */
static hrx_fabric_bundle_manifest_t* pack_fixture(const char* root,
                                                  char** out_archive) {
  char* src = test_strdup_printf("%s/src/kernels", root);
  assert_ok(hrx_dir_create_all(src, 0755));
  char* a = test_strdup_printf("%s/src/kernels/a.bin", root);
  char* b = test_strdup_printf("%s/src/readme", root);
  test_write_file(a, "kernel bytes", 12);
  test_write_file(b, "hello", 5);
  char* dir = test_strdup_printf("%s/src", root);
  *out_archive = test_strdup_printf("%s/bundle.tar.zst", root);
  hrx_fabric_bundle_pack_options_t options = fixture_options();
  hrx_fabric_bundle_manifest_t* m = NULL;
  assert_ok(hrx_fabric_bundle_pack(dir, &options, *out_archive,
                                   hrx_allocator_system(), &m));
  free(src);
  free(a);
  free(b);
  free(dir);
  return m;
}

/* pack_fixture's bundle under a test's root and a cache beside it. */
typedef struct packed_t {
  hrx_fabric_bundle_manifest_t* m;
  char* archive;
  char* cache;
} packed_t;

static packed_t packed_open(const char* root) {
  packed_t p = {0};
  p.m = pack_fixture(root, &p.archive);
  p.cache = test_strdup_printf("%s/cache", root);
  return p;
}

static void packed_close(packed_t* p) {
  hrx_fabric_bundle_manifest_destroy(p->m);
  free(p->cache);
  free(p->archive);
}

/* Names under bundles/ other than locks. */
static int visible_entries(const char* cache) {
  char* store = test_strdup_printf("%s/bundles", cache);
  int count = (int)test_dir_count(store, ".lock");
  free(store);
  return count;
}

static void test_pack_install_locate(void** state) {
  const char* root = *state;
  char* archive = NULL;
  hrx_fabric_bundle_manifest_t* m = pack_fixture(root, &archive);
  assert_int_equal(m->file_count, 2);
  assert_string_equal(m->files[0].name, "kernels/a.bin");
  assert_string_equal(m->revision, "r7");
  /* Packing is reproducible. */
  char* second = test_strdup_printf("%s/again.tar.zst", root);
  char* src = test_strdup_printf("%s/src", root);
  hrx_fabric_bundle_pack_options_t options = fixture_options();
  hrx_fabric_bundle_manifest_t* m2 = NULL;
  sleep(1); /* different mtimes would show */
  assert_ok(hrx_fabric_bundle_pack(src, &options, second,
                                   hrx_allocator_system(), &m2));
  assert_memory_equal(&m->archive_sha256, &m2->archive_sha256,
                      sizeof(m->archive_sha256));
  hrx_fabric_bundle_manifest_destroy(m2);

  char* cache = test_strdup_printf("%s/cache", root);
  char* dir = NULL;
  assert_status_code(hrx_fabric_bundle_locate(m, cache, hrx_allocator_system(),
                                              &dir),
                     HRX_STATUS_NOT_FOUND);
  assert_ok(hrx_fabric_bundle_install(m, archive, cache,
                                      hrx_allocator_system(), &dir));
  char* file = test_strdup_printf("%s/kernels/a.bin", dir);
  void* data = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), file, 100, &data,
                              &length));
  assert_int_equal(length, 12);
  assert_memory_equal(data, "kernel bytes", 12);
  free(data);
  free(dir);
  assert_ok(hrx_fabric_bundle_locate(m, cache, hrx_allocator_system(), &dir));
  free(dir);
  assert_int_equal(visible_entries(cache), 1);
  /* A changed file is caught on use and repaired by installing again. */
  test_write_file(file, "kernel bytez", 12);
  assert_status_code(hrx_fabric_bundle_locate(m, cache, hrx_allocator_system(),
                                              &dir),
                     HRX_STATUS_DATA_LOSS);
  assert_ok(hrx_fabric_bundle_install(m, archive, cache,
                                      hrx_allocator_system(), NULL));
  assert_ok(hrx_fabric_bundle_locate(m, cache, hrx_allocator_system(), &dir));
  free(dir);
  free(file);
  free(cache);
  free(src);
  free(second);
  free(archive);
  hrx_fabric_bundle_manifest_destroy(m);
}

/* A url naming a local archive installs without the network, offline too:
 * relative to the loaded bundle.json, or as a file:/// URL. */
static void test_local_archive_url(void** state) {
  const char* root = *state;
  char* archive = NULL;
  hrx_fabric_bundle_manifest_t* packed = pack_fixture(root, &archive);
  char* share = test_strdup_printf("%s/share/hrx", root);
  assert_ok(hrx_dir_create_all(share, 0755));
  char* beside = test_strdup_printf("%s/b.tar.zst", share);
  assert_int_equal(rename(archive, beside), 0);
  free(packed->url);
  packed->url = test_strdup_printf("b.tar.zst");
  hrx_string_builder_t text;
  hrx_string_builder_init(hrx_allocator_system(), &text);
  assert_ok(hrx_fabric_bundle_manifest_format(packed, &text));
  char* json = test_strdup_printf("%s/bundle.json", share);
  test_write_file(json, hrx_string_builder_cstr(&text),
                  strlen(hrx_string_builder_cstr(&text)));

  hrx_fabric_bundle_manifest_t* m = NULL;
  assert_ok(hrx_fabric_bundle_manifest_load(json, hrx_allocator_system(), &m));
  assert_string_equal(m->source_dir, share);
  char* cache = test_strdup_printf("%s/cache", root);
  hrx_fabric_bundle_fetch_options_t offline =
      HRX_STRUCT_INIT(hrx_fabric_bundle_fetch_options_t);
  offline.offline = true;
  char* dir = NULL;
  assert_ok(hrx_fabric_bundle_provision(m, cache, &offline,
                                        hrx_allocator_system(), &dir));
  assert_non_null(strstr(dir, "/bundles/"));
  free(dir);

  /* Parsed from memory, a relative url has nothing to be relative to. */
  hrx_fabric_bundle_manifest_t* unanchored = NULL;
  assert_ok(hrx_fabric_bundle_manifest_parse(
      hrx_string_builder_cstr(&text), strlen(hrx_string_builder_cstr(&text)),
      "memory", hrx_allocator_system(), &unanchored));
  char* fresh = test_strdup_printf("%s/fresh", root);
  hrx_status_t status = hrx_fabric_bundle_provision(
      unanchored, fresh, &offline, hrx_allocator_system(), &dir);
  assert_non_null(strstr(hrx_status_message(status), "not loaded from a file"));
  assert_status_code(status, HRX_STATUS_INVALID_ARGUMENT);
  /* An absolute file:// URL works anywhere. */
  free(unanchored->url);
  unanchored->url = test_strdup_printf("file://%s", beside);
  assert_ok(hrx_fabric_bundle_provision(unanchored, fresh, &offline,
                                        hrx_allocator_system(), &dir));
  free(dir);
  /* A missing local archive says which file it wanted. */
  assert_ok(hrx_dir_remove_all(fresh, NULL));
  assert_int_equal(unlink(beside), 0);
  assert_status(hrx_fabric_bundle_provision(unanchored, fresh, &offline,
                                            hrx_allocator_system(), &dir),
                HRX_STATUS_NOT_FOUND, "names the local archive");
  assert_null(dir);

  hrx_fabric_bundle_manifest_destroy(unanchored);
  hrx_fabric_bundle_manifest_destroy(m);
  hrx_fabric_bundle_manifest_destroy(packed);
  hrx_string_builder_deinit(&text);
  free(fresh);
  free(cache);
  free(json);
  free(beside);
  free(share);
  free(archive);
}

/* A remote url with downloads unavailable fails with the way out. A
 * build without libcurl (-Ddownload=disabled) says so; with it, HRX_OFFLINE
 * keeps the network untouched. */
static void test_remote_url_without_downloads(void** state) {
  packed_t p = packed_open(*state);
  char* dir = NULL;
#if HRX_TEST_HAVE_CURL
  setenv("HRX_OFFLINE", "1", 1);
  const char* why = "downloads are off (HRX_OFFLINE)";
#else
  const char* why = "this build has no download support";
#endif
  hrx_status_t status = hrx_fabric_bundle_provision(
      p.m, p.cache, NULL, hrx_allocator_system(), &dir);
  unsetenv("HRX_OFFLINE");
  if (!status || !strstr(hrx_status_message(status), why) ||
      !strstr(hrx_status_message(status), "hrx prepare ARCHIVE")) {
    fail_msg("%s", status ? hrx_status_message(status) : "OK");
  }
  assert_status_code(status, HRX_STATUS_UNAVAILABLE);
  assert_null(dir);
  /* Installing the file works either way. */
  assert_ok(hrx_fabric_bundle_install(p.m, p.archive, p.cache,
                                      hrx_allocator_system(), NULL));
  assert_ok(hrx_fabric_bundle_provision(p.m, p.cache, NULL,
                                        hrx_allocator_system(), &dir));
  free(dir);
  packed_close(&p);
}

/* The pinned manifest: $HRX_BUNDLE_JSON, else the installed one, whose
 * absence (a build tree) comes with the way out. */
static void test_pinned_manifest(void** state) {
  const char* root = *state;
  char* archive = NULL;
  hrx_fabric_bundle_manifest_t* packed = pack_fixture(root, &archive);
  hrx_string_builder_t text;
  hrx_string_builder_init(hrx_allocator_system(), &text);
  assert_ok(hrx_fabric_bundle_manifest_format(packed, &text));
  char* json = test_strdup_printf("%s/pinned.json", root);
  test_write_file(json, hrx_string_builder_cstr(&text),
                  strlen(hrx_string_builder_cstr(&text)));
  setenv("HRX_BUNDLE_JSON", json, 1);
  hrx_fabric_bundle_manifest_t* m = NULL;
  assert_ok(hrx_fabric_bundle_manifest_load_pinned(hrx_allocator_system(),
                                                   &m));
  assert_memory_equal(&m->archive_sha256, &packed->archive_sha256,
                      sizeof(m->archive_sha256));
  hrx_fabric_bundle_manifest_destroy(m);
  /* A chosen file that is missing is reported as it is. */
  char* missing = test_strdup_printf("%s/missing.json", root);
  setenv("HRX_BUNDLE_JSON", missing, 1);
  assert_status(
      hrx_fabric_bundle_manifest_load_pinned(hrx_allocator_system(), &m),
      HRX_STATUS_NOT_FOUND, "cannot open");
  unsetenv("HRX_BUNDLE_JSON");
  char* installed = NULL;
  assert_ok(hrx_fabric_bundle_manifest_path(hrx_allocator_system(),
                                            &installed));
  if (access(installed, F_OK) != 0) {
    assert_status(
        hrx_fabric_bundle_manifest_load_pinned(hrx_allocator_system(), &m),
        HRX_STATUS_NOT_FOUND, "set HRX_BUNDLE_JSON");
    assert_null(m);
  }
  free(installed);
  free(missing);
  free(json);
  free(archive);
  hrx_string_builder_deinit(&text);
  hrx_fabric_bundle_manifest_destroy(packed);
}

/* A bundle may list no files (found by fuzz-bundle: empty arrays reached
 * qsort and bsearch with NULL). */
static void test_empty_bundle(void** state) {
  const char* root = *state;
  char* src = make_dir_under(root, "empty");
  char* archive = test_strdup_printf("%s/empty.tar.zst", root);
  hrx_fabric_bundle_pack_options_t options = plain_options();
  hrx_fabric_bundle_manifest_t* m = NULL;
  assert_ok(hrx_fabric_bundle_pack(src, &options, archive,
                                   hrx_allocator_system(), &m));
  assert_int_equal(m->file_count, 0);
  assert_string_equal(m->revision, "unversioned");
  char* cache = test_strdup_printf("%s/cache", root);
  char* dir = NULL;
  assert_ok(hrx_fabric_bundle_install(m, archive, cache,
                                      hrx_allocator_system(), &dir));
  free(dir);
  assert_ok(hrx_fabric_bundle_locate(m, cache, hrx_allocator_system(), &dir));
  free(dir);
  hrx_fabric_bundle_manifest_destroy(m);
  free(cache);
  free(archive);
  free(src);
}

static void test_tampering_installs_nothing(void** state) {
  const char* root = *state;
  packed_t p = packed_open(root);
  /* A flipped byte in the archive. */
  void* data = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), p.archive, 1 << 20, &data,
                              &length));
  ((uint8_t*)data)[length / 2] ^= 1;
  char* tampered = test_strdup_printf("%s/tampered.tar.zst", root);
  test_write_file(tampered, data, length);
  hrx_status_t status = hrx_fabric_bundle_install(
      p.m, tampered, p.cache, hrx_allocator_system(), NULL);
  assert_non_null(strstr(hrx_status_message(status), "bundle.json pins"));
  assert_status_code(status, HRX_STATUS_DATA_LOSS);
  assert_int_equal(visible_entries(p.cache), 0);
  /* A truncated archive whose digest is pinned: extraction fails. */
  char* truncated = test_strdup_printf("%s/truncated.tar.zst", root);
  test_write_file(truncated, data, length - 40);
  assert_ok(hrx_sha256_file(truncated, &p.m->archive_sha256));
  assert_status_code(hrx_fabric_bundle_install(p.m, truncated, p.cache,
                                               hrx_allocator_system(), NULL),
                     HRX_STATUS_DATA_LOSS);
  assert_int_equal(visible_entries(p.cache), 0);
  /* A file whose pinned digest differs. */
  assert_ok(hrx_sha256_file(p.archive, &p.m->archive_sha256));
  p.m->files[1].sha256.bytes[0] ^= 1;
  status = hrx_fabric_bundle_install(p.m, p.archive, p.cache,
                                     hrx_allocator_system(), NULL);
  assert_non_null(strstr(hrx_status_message(status), "'readme' has SHA-256"));
  assert_status_code(status, HRX_STATUS_DATA_LOSS);
  assert_int_equal(visible_entries(p.cache), 0);
  /* A listed file the archive lacks. */
  p.m->files[1].sha256.bytes[0] ^= 1;
  free(p.m->files[1].name);
  p.m->files[1].name = strdup("zzz");
  status = hrx_fabric_bundle_install(p.m, p.archive, p.cache,
                                     hrx_allocator_system(), NULL);
  assert_non_null(strstr(hrx_status_message(status), "not listed"));
  hrx_status_free(status);
  assert_int_equal(visible_entries(p.cache), 0);
  free(data);
  free(tampered);
  free(truncated);
  packed_close(&p);
}

/*===------------------------------------------------------------------===*/
/* Malicious archives                                                      */
/*===------------------------------------------------------------------===*/

typedef struct evil_entry_t {
  const char* name;
  mode_t type;
  const char* link; /* symlink target or hardlink source */
  bool hardlink;
} evil_entry_t;

/* Writes a tar.gz holding "ok" and then |evil|, and the manifest text
 * pinning it (listing "ok" and |listed| when not NULL). */
static char* write_evil(const char* root, const evil_entry_t* evil,
                        const char* listed, char** out_archive) {
  *out_archive = test_strdup_printf("%s/evil.tar.gz", root);
  struct archive* w = archive_write_new();
  archive_write_set_format_pax_restricted(w);
  archive_write_add_filter_gzip(w);
  assert_int_equal(archive_write_open_filename(w, *out_archive), ARCHIVE_OK);
  for (int i = 0; i < 2; ++i) {
    const char* name = i ? evil->name : "ok";
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name);
    mode_t type = i ? evil->type : AE_IFREG;
    archive_entry_set_filetype(e, type);
    archive_entry_set_perm(e, 0644);
    if (i && evil->hardlink) archive_entry_set_hardlink(e, evil->link);
    if (i && type == AE_IFLNK) archive_entry_set_symlink(e, evil->link);
    bool data = type == AE_IFREG && !(i && evil->hardlink);
    archive_entry_set_size(e, data ? 2 : 0);
    assert_int_equal(archive_write_header(w, e), ARCHIVE_OK);
    if (data) assert_int_equal(archive_write_data(w, "hi", 2), 2);
    archive_entry_free(e);
  }
  archive_write_close(w);
  archive_write_free(w);
  hrx_sha256_digest_t digest, hi;
  assert_ok(hrx_sha256_file(*out_archive, &digest));
  hrx_sha256("hi", 2, &hi);
  char archive_hex[HRX_SHA256_HEX_SIZE], hi_hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&digest, archive_hex);
  hrx_sha256_digest_format(&hi, hi_hex);
  if (listed) {
    return test_strdup_printf(
        "{\"schema\":1,\"target\":\"t\",\"revision\":\"r\",\"url\":\"u\","
        "\"archive_sha256\":\"%s\",\"files\":{\"ok\":\"%s\",\"%s\":\"%s\"}}",
        archive_hex, hi_hex, listed, hi_hex);
  }
  return test_strdup_printf(
      "{\"schema\":1,\"target\":\"t\",\"revision\":\"r\",\"url\":\"u\","
      "\"archive_sha256\":\"%s\",\"files\":{\"ok\":\"%s\"}}",
      archive_hex, hi_hex);
}

static void test_malicious_archives(void** state) {
  const char* root = *state;
  struct {
    evil_entry_t entry;
    const char* listed;
    const char* message;
  } cases[] = {
      {{"/etc/evil", AE_IFREG, NULL, false}, NULL, "not listed"},
      {{"../evil", AE_IFREG, NULL, false}, NULL, "not listed"},
      {{"sub/../../evil", AE_IFREG, NULL, false}, NULL, "not listed"},
      {{"link", AE_IFLNK, "/etc", false}, "link", "symbolic link"},
      {{"escape", AE_IFLNK, "../../..", false}, NULL, "symbolic link"},
      {{"hard", AE_IFREG, "ok", true}, "hard", "hard link"},
      {{"dev", AE_IFCHR, NULL, false}, NULL, "character device"},
      {{"fifo", AE_IFIFO, NULL, false}, NULL, "fifo"},
      {{"ok", AE_IFREG, NULL, false}, NULL, "appears twice"},
      {{"extra", AE_IFREG, NULL, false}, NULL, "not listed"},
      {{"ok/", AE_IFDIR, NULL, false}, NULL, "lists it as a file"},
      {{"\x1b]0;owned\a\x1b[2J", AE_IFREG, NULL, false},
       NULL,
       "'\\x1b]0;owned\\x07\\x1b[2J' is not listed"},
  };
  char* cache = test_strdup_printf("%s/cache", root);
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    char* archive = NULL;
    char* json = write_evil(root, &cases[i].entry, cases[i].listed, &archive);
    hrx_fabric_bundle_manifest_t* m = NULL;
    assert_ok(parse(json, &m));
    hrx_status_t status =
        hrx_fabric_bundle_install(m, archive, cache, hrx_allocator_system(),
                                  NULL);
    if (!status || !strstr(hrx_status_message(status), cases[i].message)) {
      fail_msg("case %zu (%s): %s", i, cases[i].entry.name,
               status ? hrx_status_message(status) : "installed");
    }
    /* Archive names reach the terminal escaped. */
    for (const char* c = hrx_status_message(status); *c; ++c) {
      if ((unsigned char)*c < 0x20) fail_msg("case %zu: raw control", i);
    }
    hrx_status_free(status);
    assert_int_equal(visible_entries(cache), 0);
    hrx_fabric_bundle_manifest_destroy(m);
    free(json);
    free(archive);
  }
  /* Nothing escaped. */
  char* outside = test_strdup_printf("%s/evil", root);
  struct stat info;
  assert_int_not_equal(lstat(outside, &info), 0);
  free(outside);
  free(cache);
}

static void test_concurrent_installs(void** state) {
  packed_t p = packed_open(*state);
  pid_t children[4];
  for (int c = 0; c < 4; ++c) {
    children[c] = fork();
    assert_true(children[c] >= 0);
    if (children[c] == 0) {
      hrx_status_t status = hrx_fabric_bundle_install(
          p.m, p.archive, p.cache, hrx_allocator_system(), NULL);
      _exit(status == HRX_OK ? 0 : 1);
    }
  }
  for (int c = 0; c < 4; ++c) {
    int wstatus = 0;
    assert_int_equal(waitpid(children[c], &wstatus, 0), children[c]);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
  }
  assert_int_equal(visible_entries(p.cache), 1);
  char* dir = NULL;
  assert_ok(
      hrx_fabric_bundle_locate(p.m, p.cache, hrx_allocator_system(), &dir));
  free(dir);
  packed_close(&p);
}

/* "size" is optional and positive; a parent of a listed file may not be
 * listed, even when other names sort between them; unknown names are
 * shown escaped. */
static void test_manifest_size_and_parents(void** state) {
  (void)state;
  const char* head =
      "{\"schema\":1,\"target\":\"t\",\"revision\":\"r\",\"url\":\"u\","
      "\"archive_sha256\":\"0000000000000000000000000000000000000000000000000"
      "000000000000000\"";
  char json[1024];
  snprintf(json, sizeof(json), "%s,\"size\":123,\"files\":{}}", head);
  hrx_fabric_bundle_manifest_t* m = NULL;
  assert_ok(parse(json, &m));
  assert_int_equal(m->size, 123);
  hrx_string_builder_t text;
  hrx_string_builder_init(hrx_allocator_system(), &text);
  assert_ok(hrx_fabric_bundle_manifest_format(m, &text));
  assert_non_null(strstr(hrx_string_builder_cstr(&text), "\"size\": 123,"));
  hrx_string_builder_deinit(&text);
  hrx_fabric_bundle_manifest_destroy(m);
  const char* sizes[] = {"0", "-5", "\"12\"", "1.5", "null"};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    snprintf(json, sizeof(json), "%s,\"size\":%s,\"files\":{}}", head,
             sizes[i]);
    assert_status(parse(json, &m), HRX_STATUS_INVALID_ARGUMENT,
                  "\"size\" must be");
    assert_null(m);
  }
  snprintf(json, sizeof(json),
           "%s,\"files\":{\"a\":\"%s\",\"a-b\":\"%s\",\"a/b\":\"%s\"}}", head,
           zero_hex, zero_hex, zero_hex);
  assert_status(parse(json, &m), HRX_STATUS_INVALID_ARGUMENT,
                "\"a\" is a file and a directory");
  assert_status(parse("{\"schema\":1,\"\\u001b[2J\":1}", &m),
                HRX_STATUS_INVALID_ARGUMENT, "unknown field \"\\x1b[2J\"");
}

/* A sparse entry's data blocks (what the manifest's digest covers) are
 * not the bytes of the file it describes: here "hi" at offset 8192 of a
 * file whose first 8192 bytes are a hole. */
static void test_sparse_entries_are_refused(void** state) {
  const char* root = *state;
  char* archive = test_strdup_printf("%s/sparse.tar.gz", root);
  struct archive* w = archive_write_new();
  archive_write_set_format_pax_restricted(w);
  archive_write_add_filter_gzip(w);
  assert_int_equal(archive_write_open_filename(w, archive), ARCHIVE_OK);
  struct archive_entry* e = archive_entry_new();
  archive_entry_set_pathname(e, "ok");
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_perm(e, 0644);
  archive_entry_set_size(e, 8192 + 2);
  archive_entry_sparse_add_entry(e, 8192, 2);
  assert_int_equal(archive_write_header(w, e), ARCHIVE_OK);
  assert_int_equal(archive_write_data(w, "hi", 2), 2);
  archive_entry_free(e);
  archive_write_close(w);
  archive_write_free(w);
  hrx_sha256_digest_t digest, hi;
  assert_ok(hrx_sha256_file(archive, &digest));
  hrx_sha256("hi", 2, &hi);
  char archive_hex[HRX_SHA256_HEX_SIZE], hi_hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&digest, archive_hex);
  hrx_sha256_digest_format(&hi, hi_hex);
  char* json = test_strdup_printf(
      "{\"schema\":1,\"target\":\"t\",\"revision\":\"r\",\"url\":\"u\","
      "\"archive_sha256\":\"%s\",\"files\":{\"ok\":\"%s\"}}",
      archive_hex, hi_hex);
  hrx_fabric_bundle_manifest_t* m = NULL;
  assert_ok(parse(json, &m));
  char* cache = test_strdup_printf("%s/cache", root);
  assert_status(hrx_fabric_bundle_install(m, archive, cache,
                                          hrx_allocator_system(), NULL),
                HRX_STATUS_INVALID_ARGUMENT, "'ok' is a sparse file");
  assert_int_equal(visible_entries(cache), 0);
  hrx_fabric_bundle_manifest_destroy(m);
  free(cache);
  free(json);
  free(archive);
}

/* Archives and installed files are read only when they are regular files:
 * a device or FIFO would be read (or waited on) forever. */
static void test_archive_must_be_a_regular_file(void** state) {
  const char* root = *state;
  packed_t p = packed_open(root);
  char* fifo = test_strdup_printf("%s/fifo", root);
  assert_int_equal(mkfifo(fifo, 0644), 0);
  hrx_allocator_t a = hrx_allocator_system();
  assert_status(hrx_fabric_bundle_install(p.m, "/dev/zero", p.cache, a, NULL),
                HRX_STATUS_INVALID_ARGUMENT, "is a character device");
  assert_status(hrx_fabric_bundle_install(p.m, fifo, p.cache, a, NULL),
                HRX_STATUS_INVALID_ARGUMENT, "is a FIFO");
  assert_status(hrx_fabric_bundle_install(p.m, root, p.cache, a, NULL),
                HRX_STATUS_INVALID_ARGUMENT, "is a directory");
  free(p.m->url);
  p.m->url = test_strdup_printf("file:///dev/zero");
  hrx_fabric_bundle_fetch_options_t offline =
      HRX_STRUCT_INIT(hrx_fabric_bundle_fetch_options_t);
  offline.offline = true;
  char* dir = NULL;
  assert_status(hrx_fabric_bundle_provision(p.m, p.cache, &offline, a, &dir),
                HRX_STATUS_INVALID_ARGUMENT, "is a character device");
  /* A local archive of another size than the pin is refused unread. */
  p.m->size += 1;
  assert_status(hrx_fabric_bundle_install(p.m, p.archive, p.cache, a, NULL),
                HRX_STATUS_DATA_LOSS, "bundle.json pins");
  p.m->size -= 1;
  /* A FIFO planted in an installed bundle is damage, not a hang. */
  assert_ok(hrx_fabric_bundle_install(p.m, p.archive, p.cache, a, &dir));
  char* file = test_strdup_printf("%s/readme", dir);
  assert_int_equal(unlink(file), 0);
  assert_int_equal(mkfifo(file, 0644), 0);
  free(dir);
  assert_status(hrx_fabric_bundle_locate(p.m, p.cache, a, &dir),
                HRX_STATUS_DATA_LOSS, "is a FIFO");
  assert_ok(hrx_fabric_bundle_install(p.m, p.archive, p.cache, a, NULL));
  assert_ok(hrx_fabric_bundle_locate(p.m, p.cache, a, &dir));
  free(dir);
  free(file);
  free(fifo);
  packed_close(&p);
}

/* A write cut short (here by RLIMIT_FSIZE, as a full disk would) reports
 * its real cause, never a stale errno such as EEXIST from making the
 * directories before it. */
static void test_short_write_names_its_cause(void** state) {
  const char* root = *state;
  char* src = make_dir_under(root, "src");
  char* big = test_strdup_printf("%s/src/big.bin", root);
  static char data[256 << 10];
  for (size_t i = 0; i < sizeof(data); ++i) data[i] = (char)(i * 7919 >> 3);
  test_write_file(big, data, sizeof(data));
  char* archive = test_strdup_printf("%s/big.tar.zst", root);
  hrx_fabric_bundle_pack_options_t options = plain_options();
  hrx_fabric_bundle_manifest_t* m = NULL;
  assert_ok(hrx_fabric_bundle_pack(src, &options, archive,
                                   hrx_allocator_system(), &m));
  char* cache = test_strdup_printf("%s/cache", root);
  int pipe_fds[2];
  assert_int_equal(pipe(pipe_fds), 0);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    close(pipe_fds[0]);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {.rlim_cur = 64 << 10, .rlim_max = 64 << 10};
    setrlimit(RLIMIT_FSIZE, &limit);
    hrx_status_t status = hrx_fabric_bundle_install(
        m, archive, cache, hrx_allocator_system(), NULL);
    const char* text = status ? hrx_status_message(status) : "installed";
    ssize_t written = write(pipe_fds[1], text, strlen(text));
    _exit(written > 0 ? 0 : 1);
  }
  close(pipe_fds[1]);
  char message[4096] = "";
  size_t used = 0;
  for (ssize_t n; (n = read(pipe_fds[0], message + used,
                            sizeof(message) - 1 - used)) > 0;) {
    used += (size_t)n;
  }
  message[used] = '\0';
  close(pipe_fds[0]);
  int wstatus = 0;
  assert_int_equal(waitpid(child, &wstatus, 0), child);
  if (!strstr(message, "cannot write") || !strstr(message, "errno 27")) {
    fail_msg("%s", message);
  }
  assert_int_equal(visible_entries(cache), 0);
  hrx_fabric_bundle_manifest_destroy(m);
  free(cache);
  free(archive);
  free(big);
  free(src);
}

/* A pack that fails, before writing or after, leaves the file at the
 * output as it was. */
static void test_failed_pack_keeps_the_output(void** state) {
  const char* root = *state;
  char* src = make_dir_under(root, "src");
  char* output = test_strdup_printf("%s/out.tar.zst", root);
  test_write_file(output, "precious", 8);
  hrx_fabric_bundle_pack_options_t options = plain_options();
  hrx_fabric_bundle_manifest_t* m = NULL;
  /* Fails before the walk: a bad url. */
  hrx_fabric_bundle_pack_options_t bad =
      HRX_STRUCT_INIT(hrx_fabric_bundle_pack_options_t);
  bad.target = "t";
  bad.url = "ftp://x";
  assert_status(hrx_fabric_bundle_pack(src, &bad, output,
                                       hrx_allocator_system(), &m),
                HRX_STATUS_INVALID_ARGUMENT, "scheme");
  /* Fails in the walk: a FIFO in DIR. */
  char* fifo = test_strdup_printf("%s/src/fifo", root);
  assert_int_equal(mkfifo(fifo, 0644), 0);
  assert_status(hrx_fabric_bundle_pack(src, &options, output,
                                       hrx_allocator_system(), &m),
                HRX_STATUS_INVALID_ARGUMENT, "not a regular file");
  assert_null(m);
  char* text = test_read_text(output);
  assert_string_equal(text, "precious");
  free(text);
  free(fifo);
  free(output);
  free(src);
}

/* Packing into DIR leaves out the earlier archive and manifest (through
 * a link too), so packing twice gives the same archive. */
static void test_pack_leaves_out_its_outputs(void** state) {
  const char* root = *state;
  char* src = make_dir_under(root, "src");
  char* file = test_strdup_printf("%s/src/a.bin", root);
  test_write_file(file, "abc", 3);
  char* output = test_strdup_printf("%s/src/b.tar.zst", root);
  char* json = test_strdup_printf("%s/src/b.json", root);
  char* link = test_strdup_printf("%s/b-link.tar.zst", root);
  assert_int_equal(symlink(output, link), 0);
  test_write_file(json, "{}", 2);
  hrx_fabric_bundle_pack_options_t options = plain_options();
  options.manifest_path = json;
  hrx_fabric_bundle_manifest_t *first = NULL, *second = NULL;
  assert_ok(hrx_fabric_bundle_pack(src, &options, output,
                                   hrx_allocator_system(), &first));
  assert_ok(hrx_fabric_bundle_pack(src, &options, link,
                                   hrx_allocator_system(), &second));
  assert_int_equal(second->file_count, 1);
  assert_string_equal(second->files[0].name, "a.bin");
  assert_memory_equal(&first->archive_sha256, &second->archive_sha256,
                      sizeof(first->archive_sha256));
  struct stat info;
  assert_int_equal(lstat(link, &info), 0);
  assert_true(S_ISLNK(info.st_mode)); /* followed, not replaced */
  assert_int_equal(stat(output, &info), 0);
  assert_int_equal((uint64_t)info.st_size, second->size);
  hrx_fabric_bundle_manifest_destroy(first);
  hrx_fabric_bundle_manifest_destroy(second);
  free(link);
  free(json);
  free(output);
  free(file);
  free(src);
}

/* The output is a path the user chose: a device is written in place, a
 * directory refused. */
static void test_pack_output_paths(void** state) {
  const char* root = *state;
  char* src = make_dir_under(root, "src");
  hrx_fabric_bundle_pack_options_t options = plain_options();
  hrx_fabric_bundle_manifest_t* m = NULL;
  assert_ok(hrx_fabric_bundle_pack(src, &options, "/dev/null",
                                   hrx_allocator_system(), &m));
  assert_true(m->size > 0);
  hrx_fabric_bundle_manifest_destroy(m);
  struct stat info;
  assert_int_equal(stat("/dev/null", &info), 0);
  assert_true(S_ISCHR(info.st_mode));
  char* into = test_strdup_printf("%s/into", root);
  assert_ok(hrx_dir_create_all(into, 0755));
  assert_status(hrx_fabric_bundle_pack(src, &options, into,
                                       hrx_allocator_system(), &m),
                HRX_STATUS_INVALID_ARGUMENT, "directory");
  assert_null(m);
  free(into);
  free(src);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_manifest_errors),
      cmocka_unit_test_setup_teardown(test_pack_install_locate, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_local_archive_url, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_remote_url_without_downloads,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_pinned_manifest, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_empty_bundle, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_tampering_installs_nothing,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_malicious_archives, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_concurrent_installs, make_dir,
                                      remove_dir),
      cmocka_unit_test(test_manifest_size_and_parents),
      cmocka_unit_test_setup_teardown(test_sparse_entries_are_refused,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_archive_must_be_a_regular_file,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_short_write_names_its_cause,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_failed_pack_keeps_the_output,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_pack_leaves_out_its_outputs,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_pack_output_paths, make_dir,
                                      remove_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
