/* hrx: the HRX command-line tool. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hrx_cli.h"

static int hrx_cmd_help(int argc, char** argv);

static const char hrx_compile_usage[] =
    "usage: hrx compile FILE.loom [options]\n"
    "  --target=NAME            host (default) or gfx1151 (an AMDGPU ELF\n"
    "                           code object; needs a build with -Dllvm)\n"
    "  --export=NAME            compile only this export\n"
    "  --config=KEY=VALUE       set a config value (repeatable)\n"
    "  -o PATH, --output=PATH   code object path (default FILE.hxco, or\n"
    "                           FILE.co for gfx1151)\n"
    "  --manifest-output=PATH   write the manifest JSON\n"
    "  --launch-output=PATH     write the serialised launch programs\n"
    "  --sanitizer=LIST         access,value,operation,race (checked at\n"
    "                           run time on the host device; hrx run\n"
    "                           --sanitizer-reporting picks trap or report)\n"
    "  --trace-output=PATH      write a pass trace (forces recompilation)\n"
    "  --trace-format=jsonl|chrome\n"
    "  --trace-before=PASS, --trace-after=PASS   dump IR around passes\n"
    "  --trace-max-bytes=N      cap the trace file\n"
    "  --no-cache               neither read nor write the kernel cache\n";

static const char hrx_run_usage[] =
    "usage: hrx run ARTIFACT --export=NAME [options]\n"
    "       hrx run IMAGE.xdna [--entry=NAME] [--count=N] [--node=accelN]\n"
    "                          [--timeout=S]\n"
    "  ARTIFACT is a code object from 'hrx compile': FILE.hxco for the host\n"
    "  device, FILE.co (--target=gfx1151) for an AMD GPU; a prebuilt NPU\n"
    "  image runs an entry on the XDNA NPU with zeroed buffers of each\n"
    "  binding's smallest size, N times (default 1, timeout 60 s each)\n"
    "  --device=N               0 = the host device (default); 1.. = the\n"
    "                           AMD GPUs 'hrx doctor' lists (a model of one\n"
    "                           with HRX_KFD_MODEL=DIR)\n"
    "  --workload=N[,N...]      workload values for the launch program\n"
    "  --scalar=VALUE           next scalar argument (repeatable, in order)\n"
    "  --buffer=SPEC            next buffer argument (repeatable, in order):\n"
    "                           SIZE | @FILE | fill:BYTE:SIZE |\n"
    "                           f32:V,V,... | i32:V,V,...\n"
    "  --print=hex|f32|i32|u8   how to print buffers after the run\n"
    "  --dump=DIR               also write DIR/bufferN.bin (links followed)\n"
    "  --timeout=SECONDS        how long the kernel may run (default 600);\n"
    "                           then it is cancelled and run exits 1\n"
    "  --sanitizer-reporting=trap|report\n"
    "                           trap (default): the first sanitizer finding\n"
    "                           or out-of-bounds access stops the kernel;\n"
    "                           report: the kernel runs on, every finding is\n"
    "                           printed after the buffers and run exits 1\n"
    "                           if there was any (host device only)\n"
    "  --sanitizer-report-capacity=N  reports kept in report mode (default\n"
    "                           256); findings past N are counted dropped\n"
    "  numbers are decimal; sizes, counts and workload values that overflow\n"
    "  or carry junk are usage errors\n";

static const char hrx_check_usage[] =
    "usage: hrx check FILE.loom [--device=N]\n"
    "  compiles the file's kernels for the device, runs every check.case in\n"
    "  order (generated inputs, kernel launches, expectations) and prints\n"
    "  PASS or FAIL with the first mismatching element for each;\n"
    "  check.scenario and check.benchmark are listed as not run\n"
    "  --device=N               0 = the host device (default); 1.. = the\n"
    "                           AMD GPUs 'hrx doctor' lists\n"
    "  exits 1 when a case fails; 2 when the file cannot be read or\n"
    "  compiled, the device opened, or the options are wrong\n";

static const char hrx_gc_usage[] =
    "usage: hrx gc [DAYS]\n"
    "  removes kernel cache entries not read for DAYS days (default 30),\n"
    "  bundles the pinned bundle.json does not name, orphaned locks and\n"
    "  stale temporary files\n";

static const char hrx_pack_usage[] =
    "usage: hrx pack DIR --target=T --url=URL --output=ARCHIVE [options]\n"
    "  packs the files under DIR into a reproducible tar.zst and writes the\n"
    "  bundle.json that pins it\n"
    "  --revision=R             the bundle's revision (default unversioned)\n"
    "  --bundle-json=FILE       where the manifest goes (default "
    "ARCHIVE.json)\n"
    "  outputs: a regular file is replaced only once the archive is whole;\n"
    "  a symbolic link is followed; /dev/null or a FIFO is written in place;\n"
    "  a directory is refused. The outputs are never packed, even inside DIR\n"
    "  NPU images are pinned as npu/amd.xdna.strix_halo.17f0_11/NAME.xdna;\n"
    "  each must be a valid image for that profile (checked by an hrx built\n"
    "  with libhrx-npu)\n";

static const char hrx_prepare_usage[] =
    "usage: hrx prepare [ARCHIVE] [options]\n"
    "  installs the bundle that bundle.json pins ($HRX_BUNDLE_JSON, else\n"
    "  the installed one) from ARCHIVE, or downloads it from its url when\n"
    "  it is not installed yet (never with HRX_OFFLINE=1), verifying every\n"
    "  byte; an interrupted download resumes where it stopped\n"
    HRX_CLI_TRANSFER_USAGE
    "  (--max-size applies to a bundle.json without \"size\"; default 4 GiB)"
    "\n";

static const char hrx_inspect_usage[] =
    "usage: hrx inspect FILE\n"
    "  validates a safetensors file (metadata and tensors: dtype, shape,\n"
    "  bytes), an ONNX model (producer, opsets, inputs and outputs,\n"
    "  nodes by op type, initializer bytes) or a host code object (its\n"
    "  kernels: arguments, segments, workload values for 'hrx run'); a\n"
    "  malformed file exits 1 with the reason. The format comes from the\n"
    "  extension (.safetensors, .onnx, .hxco), else from the content, else\n"
    "  ONNX is tried; names from the file are shown with controls escaped\n";

static const char hrx_fetch_usage[] =
    "usage: hrx fetch REPO FILE... [options]\n"
    "  prints the cached path of each FILE of Hugging Face repository REPO\n"
    "  (org/name), downloading what the cache lacks; the cache is the one\n"
    "  huggingface_hub uses ($HF_HUB_CACHE, $HF_HOME/hub, ...)\n"
    "  --revision=R              branch, tag or commit (default main)\n"
    "  --type=model|dataset|space  repository type (default model)\n"
    "  --sha256=HEX              the expected contents of the one FILE\n"
    "  --cache-dir=DIR           another cache directory\n"
    "  --offline                 never use the network (or HF_HUB_OFFLINE=1)\n"
    "  --refresh                 ask the hub where a branch points now\n"
    HRX_CLI_TRANSFER_USAGE
    "  (limits apply to each FILE; --max-size to a file whose size the hub\n"
    "  does not announce, default 64 GiB)\n"
    "  HF_TOKEN (or $HF_HOME/token) authorises gated and private files;\n"
    "  HF_ENDPOINT selects another hub\n";

static const char hrx_doctor_usage[] = "usage: hrx doctor\n";
static const char hrx_help_usage[] = "usage: hrx help [COMMAND]\n";

static const hrx_cli_command_t hrx_commands[] = {
    {"compile", "compile a Loom file into a host code object (cached)",
     hrx_compile_usage, hrx_cmd_compile},
    {"run", "run a kernel of a code object on a device", hrx_run_usage,
     hrx_cmd_run},
    {"check", "run the check.case tests of a Loom file on a device",
     hrx_check_usage, hrx_cmd_check},
    {"gc", "evict kernel cache entries not read for DAYS (default 30)",
     hrx_gc_usage, hrx_cmd_gc},
    {"pack", "pack a directory into a pinned bundle archive", hrx_pack_usage,
     hrx_cmd_pack},
    {"prepare", "install or check the pinned native bundle",
     hrx_prepare_usage, hrx_cmd_prepare},
    {"inspect", "validate and summarise a safetensors or ONNX file",
     hrx_inspect_usage, hrx_cmd_inspect},
    {"fetch", "download Hugging Face files into the shared cache",
     hrx_fetch_usage, hrx_cmd_fetch},
    {"doctor", "report libraries, cache and runtime paths, and devices",
     hrx_doctor_usage, hrx_cmd_doctor},
    {"help", "show this help, or one command's", hrx_help_usage, hrx_cmd_help},
};

#define HRX_COMMAND_COUNT (sizeof(hrx_commands) / sizeof(hrx_commands[0]))

static void hrx_print_usage(FILE* out) {
  fprintf(out,
          "usage: hrx [--version] [--help] <command> [<args>]\n"
          "\n"
          "commands:\n");
  for (size_t i = 0; i < HRX_COMMAND_COUNT; ++i) {
    fprintf(out, "  %-10s %s\n", hrx_commands[i].name,
            hrx_commands[i].summary);
  }
  fprintf(out,
          "\n"
          "'hrx help COMMAND' shows a command's options.\n"
          "environment: HRX_LOG=debug|info|warn|error|off, "
          "HRX_HOST_THREADS,\n"
          "             HRX_BUNDLE_JSON, HRX_OFFLINE, XDG_CACHE_HOME, "
          "XDG_RUNTIME_DIR,\n"
          "             HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE, HF_TOKEN, "
          "HF_ENDPOINT,\n"
          "             HRX_KFD_MODEL (a KFD model of an AMD GPU, see the "
          "README)\n");
}

static const hrx_cli_command_t* hrx_find_command(const char* name) {
  for (size_t i = 0; i < HRX_COMMAND_COUNT; ++i) {
    if (strcmp(name, hrx_commands[i].name) == 0) return &hrx_commands[i];
  }
  return NULL;
}

static int hrx_cmd_help(int argc, char** argv) {
  if (argc > 2) {
    return hrx_cli_usage_error("help", "unexpected argument '%s'", argv[2]);
  }
  if (argc == 2) {
    const hrx_cli_command_t* command = hrx_find_command(argv[1]);
    if (!command) {
      return hrx_cli_usage_error("help", "unknown command '%s'", argv[1]);
    }
    fputs(command->usage, stdout);
    return HRX_EXIT_OK;
  }
  hrx_print_usage(stdout);
  return HRX_EXIT_OK;
}

int hrx_cli_usage_error(const char* command, const char* format, ...) {
  fprintf(stderr, "hrx: %s%s", command ? command : "", command ? ": " : "");
  va_list args;
  va_start(args, format);
  vfprintf(stderr, format, args);
  va_end(args);
  fprintf(stderr, "\n(see 'hrx help')\n");
  return HRX_EXIT_USAGE;
}

int hrx_cli_usage_status(const char* command, hrx_status_t status) {
  int rc = hrx_cli_usage_error(command, "%s", hrx_status_message(status));
  hrx_status_free(status);
  return rc;
}

int hrx_cli_transfer_limit(const char* command, const char* arg,
                           hrx_cli_transfer_limits_t* limits) {
  /* Seconds stay far below what milliseconds in 32 bits (the stall
   * window) or 64 bits (the deadline) can hold. */
  const struct {
    const char* name;
    uint64_t max;
    uint64_t* value;
  } options[] = {
      {"--timeout", UINT32_MAX, &limits->timeout_s},
      {"--stall-window", 3600, &limits->stall_window_s},
      {"--min-rate", UINT32_MAX, &limits->min_rate},
      {"--max-size", UINT64_MAX, &limits->max_size},
  };
  for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); ++i) {
    const char* v = NULL;
    if (!hrx_cli_option(arg, options[i].name, &v)) continue;
    hrx_status_t status =
        hrx_parse_u64(v, 1, options[i].max, options[i].name, options[i].value);
    return status == HRX_OK ? 1 : hrx_cli_usage_status(command, status);
  }
  return 0;
}

bool hrx_cli_option(const char* arg, const char* name,
                    const char** out_value) {
  size_t length = strlen(name);
  if (strncmp(arg, name, length) != 0 || arg[length] != '=') return false;
  *out_value = arg + length + 1;
  return true;
}

void hrx_cli_print_diagnostics(const hrx_loom_diagnostics_t* diagnostics) {
  hrx_string_builder_t text;
  hrx_string_builder_init(hrx_allocator_system(), &text);
  hrx_status_free(hrx_loom_diagnostics_format(diagnostics, &text));
  fputs(hrx_string_builder_cstr(&text), stderr);
  hrx_string_builder_deinit(&text);
}

int hrx_cli_fail(const char* command, hrx_status_t status) {
  char text[2048];
  hrx_status_format(status, text, sizeof(text));
  fprintf(stderr, "hrx: %s: %s\n", command, text);
  hrx_status_free(status);
  return HRX_EXIT_FAILURE;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    hrx_print_usage(stderr);
    return HRX_EXIT_USAGE;
  }
  const char* first = argv[1];
  if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
    if (argc > 2) {
      return hrx_cli_usage_error(NULL, "--version takes no arguments");
    }
    printf("hrx %s\n", hrx_core_version());
    return HRX_EXIT_OK;
  }
  if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
    return hrx_cmd_help(argc - 1, argv + 1);
  }
  if (first[0] == '-') {
    return hrx_cli_usage_error(NULL, "unknown option '%s'", first);
  }
  const hrx_cli_command_t* command = hrx_find_command(first);
  if (!command) return hrx_cli_usage_error(NULL, "unknown command '%s'", first);
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(command->usage, stdout);
      return HRX_EXIT_OK;
    }
  }
  return command->run(argc - 1, argv + 1);
}
