/* hrx compile: Loom source -> host code object, through the kernel cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx_cli.h"

#define HRX_MAX_PATTERNS 32

typedef struct compile_args_t {
  const char* input;
  const char* target;
  const char* export_name;
  const char* output;
  const char* manifest_output;
  const char* launch_output;
  const char* trace_output;
  const char* trace_format;
  const char* trace_before[HRX_MAX_PATTERNS];
  size_t trace_before_count;
  const char* trace_after[HRX_MAX_PATTERNS];
  size_t trace_after_count;
  uint64_t trace_max_bytes;
  uint32_t sanitizers;
  bool no_cache;
} compile_args_t;

static int parse_args(int argc, char** argv, compile_args_t* a,
                      hrx_loom_config_t* config) {
  a->target = "host";
  a->trace_format = "jsonl";
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    const char* v = NULL;
    if (hrx_cli_option(arg, "--target", &v)) {
      a->target = v;
    } else if (hrx_cli_option(arg, "--export", &v)) {
      a->export_name = v;
    } else if (hrx_cli_option(arg, "--config", &v)) {
      hrx_status_t status = hrx_loom_config_set_assignment(config, v);
      if (status != HRX_OK) {
        int rc = hrx_cli_usage_error("compile", "bad --config=%s: %s", v,
                                     hrx_status_message(status));
        hrx_status_free(status);
        return rc;
      }
    } else if (hrx_cli_option(arg, "--output", &v) ||
               (!strcmp(arg, "-o") && i + 1 < argc && (v = argv[++i]))) {
      a->output = v;
    } else if (hrx_cli_option(arg, "--manifest-output", &v)) {
      a->manifest_output = v;
    } else if (hrx_cli_option(arg, "--launch-output", &v)) {
      a->launch_output = v;
    } else if (hrx_cli_option(arg, "--trace-output", &v)) {
      a->trace_output = v;
    } else if (hrx_cli_option(arg, "--trace-format", &v)) {
      if (strcmp(v, "jsonl") && strcmp(v, "chrome")) {
        return hrx_cli_usage_error("compile", "--trace-format is jsonl or "
                                   "chrome, not '%s'", v);
      }
      a->trace_format = v;
    } else if (hrx_cli_option(arg, "--trace-before", &v) ||
               hrx_cli_option(arg, "--trace-after", &v)) {
      bool before = strncmp(arg, "--trace-before", 14) == 0;
      size_t* count = before ? &a->trace_before_count : &a->trace_after_count;
      if (*count == HRX_MAX_PATTERNS) {
        return hrx_cli_usage_error("compile", "too many trace patterns");
      }
      (before ? a->trace_before : a->trace_after)[(*count)++] = v;
    } else if (hrx_cli_option(arg, "--trace-max-bytes", &v)) {
      hrx_status_t status = hrx_parse_u64(v, 1, SIZE_MAX, "--trace-max-bytes",
                                          &a->trace_max_bytes);
      if (status != HRX_OK) return hrx_cli_usage_status("compile", status);
    } else if (hrx_cli_option(arg, "--sanitizer", &v)) {
      hrx_status_t status = hrx_loom_sanitizers_parse(v, &a->sanitizers);
      if (status != HRX_OK) {
        int rc = hrx_cli_usage_error("compile", "%s",
                                     hrx_status_message(status));
        hrx_status_free(status);
        return rc;
      }
    } else if (hrx_cli_option(arg, "--sanitizer-reporting", &v)) {
      /* The same code traps or reports: the stream running it decides. */
      return hrx_cli_usage_error("compile", "--sanitizer-reporting is chosen "
                                 "when the kernel runs: hrx run "
                                 "--sanitizer-reporting=%s", v);
    } else if (!strcmp(arg, "--no-cache")) {
      a->no_cache = true;
    } else if (arg[0] == '-') {
      return hrx_cli_usage_error("compile", "unknown option '%s'", arg);
    } else if (a->input) {
      return hrx_cli_usage_error("compile", "more than one input file");
    } else {
      a->input = arg;
    }
  }
  if (!a->input) return hrx_cli_usage_error("compile", "missing FILE.loom");
  if ((a->trace_before_count || a->trace_after_count) && !a->trace_output) {
    return hrx_cli_usage_error("compile", "--trace-before/--trace-after need "
                               "--trace-output");
  }
  return HRX_EXIT_OK;
}

/* FILE.loom -> FILE.hxco (host) or FILE.co (an AMDGPU ELF code object)
 * in the current directory. */
static char* default_output(const char* input, const char* target) {
  const char* base = strrchr(input, '/');
  base = base ? base + 1 : input;
  size_t length = strlen(base);
  if (length > 5 && !strcmp(base + length - 5, ".loom")) length -= 5;
  const char* extension = strcmp(target, "host") ? ".co" : ".hxco";
  size_t extension_length = strlen(extension);
  char* out = malloc(length + extension_length + 1);
  if (!out) return NULL;
  memcpy(out, base, length);
  memcpy(out + length, extension, extension_length + 1);
  return out;
}

/* Outputs go where the user pointed: devices and FIFOs are written in
 * place and symbolic links followed (hrx_file_write_output). */
static hrx_status_t write_file(const char* path, const void* data,
                               size_t length) {
  return hrx_status_annotate(hrx_file_write_output(path, data, length, 0644),
                             "writing '%s'", path);
}

int hrx_cmd_compile(int argc, char** argv) {
  hrx_allocator_t allocator = hrx_allocator_system();
  hrx_loom_config_t* config = NULL;
  hrx_status_t status = hrx_loom_config_create(allocator, &config);
  if (status != HRX_OK) return hrx_cli_fail("compile", status);
  compile_args_t a = {0};
  int rc = parse_args(argc, argv, &a, config);
  if (rc != HRX_EXIT_OK) {
    hrx_loom_config_destroy(config);
    return rc;
  }
  void* source = NULL;
  size_t length = 0;
  status = hrx_file_read_all(allocator, a.input, 64u << 20, &source, &length);
  hrx_trace_t* trace = NULL;
  if (status == HRX_OK && a.trace_output) {
    hrx_trace_options_t options = HRX_STRUCT_INIT(hrx_trace_options_t);
    options.format = strcmp(a.trace_format, "chrome")
                         ? HRX_TRACE_FORMAT_JSONL
                         : HRX_TRACE_FORMAT_CHROME_JSON;
    options.max_bytes = a.trace_max_bytes;
    status = hrx_trace_create(&options, allocator, &trace);
  }
  hrx_loom_compiler_options_t options =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  options.sanitizers = a.sanitizers;
  options.disable_cache = a.no_cache;
  options.trace = trace;
  options.trace_before = a.trace_before;
  options.trace_before_count = a.trace_before_count;
  options.trace_after = a.trace_after;
  options.trace_after_count = a.trace_after_count;
  hrx_loom_compiler_t* compiler = NULL;
  if (status == HRX_OK) {
    status = hrx_loom_compiler_create(a.target, &options, allocator, &compiler);
  }
  hrx_loom_diagnostics_t* diagnostics = NULL;
  if (status == HRX_OK) {
    status = hrx_loom_diagnostics_create(0, allocator, &diagnostics);
  }
  hrx_loom_artifact_t* artifact = NULL;
  if (status == HRX_OK) {
    hrx_loom_compile_request_t request = {
        .source = source, .length = length, .source_name = a.input,
        .export_name = a.export_name, .config = config};
    status = hrx_loom_compile(compiler, &request, diagnostics, &artifact);
    if (diagnostics) hrx_cli_print_diagnostics(diagnostics);
  }
  char* output = NULL;
  if (status == HRX_OK) {
    output = a.output ? strdup(a.output) : default_output(a.input, a.target);
    size_t code_length = 0;
    const uint8_t* code = hrx_loom_artifact_code(artifact, &code_length);
    status = output ? write_file(output, code, code_length)
                    : hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED, "memory");
  }
  if (status == HRX_OK && a.manifest_output) {
    const char* manifest = hrx_loom_artifact_manifest(artifact);
    status = write_file(a.manifest_output, manifest, strlen(manifest));
  }
  if (status == HRX_OK && a.launch_output) {
    const uint8_t* bytes = NULL;
    size_t bytes_length = 0;
    status = a.export_name
                 ? hrx_loom_artifact_launch_program(artifact, a.export_name,
                                                    &bytes, &bytes_length)
                 : hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                                   "--launch-output needs --export");
    if (status == HRX_OK) status = write_file(a.launch_output, bytes,
                                              bytes_length);
  }
  if (status == HRX_OK && trace) {
    status = hrx_trace_write_file(trace, a.trace_output);
  }
  if (status == HRX_OK) {
    printf("hrx: compiled %s -> %s (%s, key %.16s)\n", a.input, output,
           hrx_loom_artifact_cache_hit(artifact) ? "cache hit" : "compiled",
           hrx_loom_artifact_key(artifact));
  }
  free(output);
  hrx_loom_artifact_destroy(artifact);
  hrx_loom_diagnostics_destroy(diagnostics);
  hrx_loom_compiler_destroy(compiler);
  hrx_trace_release(trace);
  hrx_loom_config_destroy(config);
  hrx_allocator_free(allocator, source);
  return status == HRX_OK ? HRX_EXIT_OK : hrx_cli_fail("compile", status);
}
