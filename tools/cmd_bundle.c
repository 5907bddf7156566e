/* hrx pack and hrx prepare: making and installing native bundles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/fabric.h"
#include "hrx/fabric/bundle.h"
#include "hrx_cli.h"
#ifdef HRX_CLI_HAVE_NPU
#include "npu_cli.h"
#endif

int hrx_cmd_pack(int argc, char** argv) {
  const char *dir = NULL, *output = NULL, *bundle_json = NULL;
  hrx_fabric_bundle_pack_options_t options =
      HRX_STRUCT_INIT(hrx_fabric_bundle_pack_options_t);
  for (int i = 1; i < argc; ++i) {
    const char* v = NULL;
    if (hrx_cli_option(argv[i], "--target", &v)) {
      options.target = v;
    } else if (hrx_cli_option(argv[i], "--url", &v)) {
      options.url = v;
    } else if (hrx_cli_option(argv[i], "--revision", &v)) {
      options.revision = v;
    } else if (hrx_cli_option(argv[i], "--output", &v)) {
      output = v;
    } else if (hrx_cli_option(argv[i], "--bundle-json", &v)) {
      bundle_json = v;
    } else if (argv[i][0] == '-') {
      return hrx_cli_usage_error("pack", "unknown option '%s'", argv[i]);
    } else if (dir) {
      return hrx_cli_usage_error("pack", "more than one DIR");
    } else {
      dir = argv[i];
    }
  }
  if (!dir) return hrx_cli_usage_error("pack", "missing DIR");
  if (!options.target || !options.target[0]) {
    return hrx_cli_usage_error("pack", "missing --target");
  }
  if (!options.url || !options.url[0]) {
    return hrx_cli_usage_error("pack", "missing --url");
  }
  if (!output) return hrx_cli_usage_error("pack", "missing --output");
  if (bundle_json && !strcmp(bundle_json, output)) {
    return hrx_cli_usage_error("pack", "--bundle-json names the --output");
  }
#ifdef HRX_CLI_HAVE_NPU
  /* NPU images are pinned for the NPU's profile: npu/PROFILE/NAME.xdna.
   * Without libhrx-npu the tool cannot read them and packs their bytes. */
  hrx_status_t images = hrx_cli_npu_check_bundle(dir);
  if (images != HRX_OK) return hrx_cli_fail("pack", images);
#endif
  hrx_allocator_t allocator = hrx_allocator_system();
  char* json_path = NULL;
  if (!bundle_json) {
    size_t n = strlen(output) + sizeof(".json");
    json_path = malloc(n);
    if (!json_path) {
      return hrx_cli_fail("pack", hrx_make_status(
                                      HRX_STATUS_RESOURCE_EXHAUSTED,
                                      "no memory"));
    }
    snprintf(json_path, n, "%s.json", output);
    bundle_json = json_path;
  }
  options.manifest_path = bundle_json;
  hrx_fabric_bundle_manifest_t* manifest = NULL;
  hrx_status_t status =
      hrx_fabric_bundle_pack(dir, &options, output, allocator, &manifest);
  hrx_string_builder_t text;
  hrx_string_builder_init(allocator, &text);
  if (status == HRX_OK) {
    status = hrx_fabric_bundle_manifest_format(manifest, &text);
  }
  /* Written after the archive: should this fail, the bundle.json already
   * there names the earlier archive by digest, so the mismatch is caught
   * on install rather than installed. */
  if (status == HRX_OK) {
    status = hrx_file_write_output(bundle_json, hrx_string_builder_cstr(&text),
                                   text.length, 0644);
  }
  if (status == HRX_OK) {
    char hex[HRX_SHA256_HEX_SIZE];
    hrx_sha256_digest_format(&manifest->archive_sha256, hex);
    printf("hrx pack: %zu file%s -> %s (%llu bytes, sha256 %s), manifest %s\n",
           manifest->file_count, manifest->file_count == 1 ? "" : "s",
           output, (unsigned long long)manifest->size, hex, bundle_json);
  }
  free(json_path);
  hrx_string_builder_deinit(&text);
  hrx_fabric_bundle_manifest_destroy(manifest);
  return status == HRX_OK ? HRX_EXIT_OK : hrx_cli_fail("pack", status);
}

int hrx_cmd_prepare(int argc, char** argv) {
  const char* archive = NULL;
  hrx_cli_transfer_limits_t limits = {0};
  for (int i = 1; i < argc; ++i) {
    int taken = hrx_cli_transfer_limit("prepare", argv[i], &limits);
    if (taken == HRX_EXIT_USAGE) return taken;
    if (taken) continue;
    if (argv[i][0] == '-') {
      return hrx_cli_usage_error("prepare", "unknown option '%s'", argv[i]);
    }
    if (archive) return hrx_cli_usage_error("prepare", "more than one ARCHIVE");
    archive = argv[i];
  }
  hrx_fabric_bundle_fetch_options_t options =
      HRX_STRUCT_INIT(hrx_fabric_bundle_fetch_options_t);
  options.deadline_ms = limits.timeout_s * 1000;
  options.stall_timeout_ms = (uint32_t)(limits.stall_window_s * 1000);
  options.min_bytes_per_second = (uint32_t)limits.min_rate;
  options.max_bytes = limits.max_size;
  hrx_allocator_t allocator = hrx_allocator_system();
  hrx_fabric_bundle_manifest_t* manifest = NULL;
  hrx_status_t status =
      hrx_fabric_bundle_manifest_load_pinned(allocator, &manifest);
  char* dir = NULL;
  if (status == HRX_OK && archive) {
    status = hrx_fabric_bundle_install(manifest, archive, NULL, allocator,
                                       &dir);
  } else if (status == HRX_OK) {
    status = hrx_fabric_bundle_provision(manifest, NULL, &options, allocator,
                                         &dir);
  }
  if (status == HRX_OK) {
    char revision[HRX_ESCAPED_NAME_CAPACITY], target[HRX_ESCAPED_NAME_CAPACITY];
    printf("hrx prepare: bundle %s for %s ready in %s\n",
           hrx_escape_text(manifest->revision, strlen(manifest->revision),
                           revision, sizeof(revision)),
           hrx_escape_text(manifest->target, strlen(manifest->target), target,
                           sizeof(target)),
           dir);
  }
  hrx_allocator_free(allocator, dir);
  hrx_fabric_bundle_manifest_destroy(manifest);
  return status == HRX_OK ? HRX_EXIT_OK : hrx_cli_fail("prepare", status);
}
