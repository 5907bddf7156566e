/* libFuzzer target: bundle manifests and archives. The input is parsed as a
 * bundle.json (a valid one must format and parse back identically), and is
 * also installed as an archive under a manifest that pins its digest and
 * lists one file, so libarchive's readers and HRX's entry checks see
 * arbitrary tar/zstd/gzip bytes. Any crash, leak, sanitizer report, hang,
 * or file written outside the private store is a bug. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hrx/fabric/bundle.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void check(int condition) {
  if (!condition) abort();
}

static void fuzz_manifest(const uint8_t* data, size_t size) {
  hrx_allocator_t allocator = hrx_allocator_system();
  hrx_fabric_bundle_manifest_t* m = NULL;
  hrx_status_t status = hrx_fabric_bundle_manifest_parse(
      (const char*)data, size, "fuzz", allocator, &m);
  if (status != HRX_OK) {
    check(m == NULL);
    hrx_status_free(status);
    return;
  }
  hrx_string_builder_t first, second;
  hrx_string_builder_init(allocator, &first);
  hrx_string_builder_init(allocator, &second);
  check(hrx_fabric_bundle_manifest_format(m, &first) == HRX_OK);
  hrx_fabric_bundle_manifest_t* again = NULL;
  check(hrx_fabric_bundle_manifest_parse(hrx_string_builder_cstr(&first),
                                         first.length, "fuzz", allocator,
                                         &again) == HRX_OK);
  check(hrx_fabric_bundle_manifest_format(again, &second) == HRX_OK);
  check(!strcmp(hrx_string_builder_cstr(&first),
                hrx_string_builder_cstr(&second)));
  hrx_string_builder_deinit(&first);
  hrx_string_builder_deinit(&second);
  hrx_fabric_bundle_manifest_destroy(again);
  hrx_fabric_bundle_manifest_destroy(m);
}

static char* fuzz_root;

static void remove_root(void) {
  hrx_status_free(hrx_dir_remove_all(fuzz_root, NULL));
  free(fuzz_root);
}

static void fuzz_archive(const uint8_t* data, size_t size) {
  if (!fuzz_root) {
    char template[] = "/tmp/hrx-fuzz-bundle-XXXXXX";
    check(mkdtemp(template) != NULL);
    fuzz_root = strdup(template);
    atexit(remove_root);
  }
  char archive[4200];
  snprintf(archive, sizeof(archive), "%s/input", fuzz_root);
  FILE* file = fopen(archive, "wb");
  check(file != NULL);
  check(fwrite(data, 1, size, file) == size);
  check(fclose(file) == 0);
  hrx_sha256_digest_t digest;
  hrx_sha256(data, size, &digest);
  char hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&digest, hex);
  /* The size is pinned too (an empty input has none to pin). */
  char size_field[48] = "";
  if (size) snprintf(size_field, sizeof(size_field), "\"size\":%zu,", size);
  char json[512];
  snprintf(json, sizeof(json),
           "{\"schema\":1,\"target\":\"t\",\"revision\":\"r\",\"url\":\"u\","
           "\"archive_sha256\":\"%s\",%s\"files\":{\"a/b\":\"%s\"}}",
           hex, size_field, hex);
  hrx_fabric_bundle_manifest_t* m = NULL;
  check(hrx_fabric_bundle_manifest_parse(json, strlen(json), "fuzz",
                                         hrx_allocator_system(), &m) ==
        HRX_OK);
  char cache[4200];
  snprintf(cache, sizeof(cache), "%s/cache", fuzz_root);
  /* The listed digest is the archive's own, so no real entry matches it:
   * installation must fail, cleanly. */
  hrx_status_t status = hrx_fabric_bundle_install(
      m, archive, cache, hrx_allocator_system(), NULL);
  check(status != HRX_OK);
  hrx_status_free(status);
  hrx_fabric_bundle_manifest_destroy(m);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_manifest(data, size);
  fuzz_archive(data, size);
  return 0;
}
