/* hrx fetch: files of a Hugging Face repository through the shared cache. */
#include <stdio.h>
#include <string.h>

#include "hrx/artifacts.h"
#include "hrx_cli.h"

static bool hrx_fetch_repo_type(const char* text, hrx_hf_repo_type_t* out) {
  static const char* const names[] = {"model", "dataset", "space"};
  for (int i = 0; i < 3; ++i) {
    if (strcmp(text, names[i]) == 0) {
      *out = (hrx_hf_repo_type_t)i;
      return true;
    }
  }
  return false;
}

int hrx_cmd_fetch(int argc, char** argv) {
  hrx_hf_options_t options = HRX_STRUCT_INIT(hrx_hf_options_t);
  hrx_cli_transfer_limits_t limits = {0};
  hrx_hf_file_t file = {0};
  hrx_sha256_digest_t digest;
  const char* files[64];
  int file_count = 0;
  for (int i = 1; i < argc; ++i) {
    const char* v = NULL;
    int taken = hrx_cli_transfer_limit("fetch", argv[i], &limits);
    if (taken == HRX_EXIT_USAGE) return taken;
    if (taken) {
      continue;
    } else if (hrx_cli_option(argv[i], "--revision", &v)) {
      file.revision = v;
    } else if (hrx_cli_option(argv[i], "--type", &v)) {
      if (!hrx_fetch_repo_type(v, &file.repo_type)) {
        return hrx_cli_usage_error("fetch", "--type is model, dataset or "
                                   "space, not '%s'", v);
      }
    } else if (hrx_cli_option(argv[i], "--sha256", &v)) {
      hrx_status_t status = hrx_sha256_digest_parse(v, &digest);
      if (status) {
        hrx_status_free(status);
        return hrx_cli_usage_error("fetch", "--sha256 wants 64 hex digits");
      }
      file.sha256 = &digest;
    } else if (hrx_cli_option(argv[i], "--cache-dir", &v)) {
      options.cache_dir = v;
    } else if (strcmp(argv[i], "--offline") == 0) {
      options.offline = true;
    } else if (strcmp(argv[i], "--refresh") == 0) {
      options.refresh_refs = true;
    } else if (argv[i][0] == '-') {
      return hrx_cli_usage_error("fetch", "unknown option '%s'", argv[i]);
    } else if (!file.repo_id) {
      file.repo_id = argv[i];
    } else if (file_count == (int)(sizeof(files) / sizeof(files[0]))) {
      return hrx_cli_usage_error("fetch", "more than 64 files");
    } else {
      files[file_count++] = argv[i];
    }
  }
  if (!file.repo_id) return hrx_cli_usage_error("fetch", "missing REPO");
  if (file_count == 0) return hrx_cli_usage_error("fetch", "missing FILE");
  if (file.sha256 && file_count > 1) {
    return hrx_cli_usage_error("fetch", "--sha256 applies to one FILE");
  }
  options.deadline_ms = limits.timeout_s * 1000;
  options.stall_timeout_ms = (uint32_t)(limits.stall_window_s * 1000);
  options.min_bytes_per_second = (uint32_t)limits.min_rate;
  options.max_bytes = limits.max_size;
  hrx_allocator_t allocator = hrx_allocator_system();
  hrx_hf_resolver_t* resolver = NULL;
  hrx_status_t status =
      hrx_hf_resolver_create(&options, allocator, &resolver);
  for (int i = 0; status == HRX_OK && i < file_count; ++i) {
    file.filename = files[i];
    char* path = NULL;
    status = hrx_hf_resolve(resolver, &file, allocator, &path, NULL);
    if (status == HRX_OK) printf("%s\n", path);
    hrx_allocator_free(allocator, path);
  }
  hrx_hf_resolver_destroy(resolver);
  return status == HRX_OK ? HRX_EXIT_OK : hrx_cli_fail("fetch", status);
}
