/* hrx run: run one kernel of a code object on a device (the host device
 * unless --device names an AMD GPU) and show its buffers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hrx/fabric.h"
#include "hrx/gpu.h"
#include "hrx_cli.h"
#ifdef HRX_CLI_HAVE_NPU
#include "npu_cli.h"
#endif

#define HRX_RUN_MAX 64
#define HRX_RUN_NS_PER_SECOND 1000000000ull
/* How long the kernel may run unless --timeout says otherwise. */
#define HRX_RUN_DEFAULT_TIMEOUT_S 600u

/* SIZE | @FILE | fill:BYTE:SIZE | f32:V,V,... | i32:V,V,... */
typedef enum buffer_kind_e {
  BUFFER_ZEROED,
  BUFFER_FILE,
  BUFFER_FILL,
  BUFFER_VALUES,
} buffer_kind_t;

typedef struct buffer_spec_t {
  buffer_kind_t kind;
  const char* path;              /* FILE */
  uint64_t size;                 /* ZEROED, FILL */
  uint8_t byte;                  /* FILL */
  uint32_t values[HRX_RUN_MAX];  /* VALUES */
  size_t count;
} buffer_spec_t;

typedef struct run_args_t {
  const char* artifact;
  const char* export_name;
  uint64_t workload[HRX_RUN_MAX];
  size_t workload_count;
  const char* scalars[HRX_RUN_MAX];
  size_t scalar_count;
  buffer_spec_t buffers[HRX_RUN_MAX];
  size_t buffer_count;
  const char* dump;
  const char* print;
  uint64_t timeout_s;
  uint64_t device; /* index for hrx_gpu_device_open; 0 is the host */
  bool report;     /* --sanitizer-reporting=report */
  uint64_t report_capacity; /* 0: the library's default */
} run_args_t;

/* Splits |list| at commas into |out|; an empty item is an error. */
static hrx_status_t split(char* list, const char** out, size_t* count) {
  for (char* item = list;;) {
    char* comma = strchr(item, ',');
    if (comma) *comma = '\0';
    if (!*item) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "empty list item");
    }
    if (*count == HRX_RUN_MAX) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "more than %d values", HRX_RUN_MAX);
    }
    out[(*count)++] = item;
    if (!comma) return HRX_OK;
    item = comma + 1;
  }
}

/* A decimal integer, optionally negative, that fits |bits| bits read as
 * signed or as unsigned; its two's-complement bits. */
static hrx_status_t parse_int_bits(const char* text, uint32_t bits,
                                   uint64_t* out) {
  bool negative = text[0] == '-';
  uint64_t magnitude_max =
      negative ? UINT64_C(1) << (bits - 1)
               : (bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1);
  uint64_t magnitude = 0;
  HRX_RETURN_IF_ERROR(hrx_parse_u64(text + negative, 0, magnitude_max,
                                    "integer value", &magnitude));
  *out = negative ? 0 - magnitude : magnitude;
  return HRX_OK;
}

/* A scalar's raw bits for a host type: integers, or floats for f32/f64. */
static hrx_status_t scalar_bits(const char* text, uint8_t type,
                                uint64_t* out) {
  if (type == HRX_HOST_TYPE_F32 || type == HRX_HOST_TYPE_F64) {
    char* end = NULL;
    double d = strtod(text, &end);
    if (!*text || *end) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "'%s' is not a number", text);
    }
    if (type == HRX_HOST_TYPE_F64) {
      memcpy(out, &d, 8);
    } else {
      float f = (float)d;
      uint32_t bits;
      memcpy(&bits, &f, 4);
      *out = bits;
    }
    return HRX_OK;
  }
  static const uint8_t widths[] = {
      [HRX_HOST_TYPE_I1] = 1,   [HRX_HOST_TYPE_I8] = 8,
      [HRX_HOST_TYPE_I16] = 16, [HRX_HOST_TYPE_I32] = 32,
      [HRX_HOST_TYPE_I64] = 64};
  uint32_t bits = type <= HRX_HOST_TYPE_I64 ? widths[type] : 16;
  hrx_status_t status = parse_int_bits(text, bits, out);
  if (status != HRX_OK) {
    return hrx_status_annotate(status, "'%s' is not a %u-bit integer", text,
                               bits);
  }
  return HRX_OK;
}

/* fill:BYTE:SIZE */
static hrx_status_t parse_fill(const char* text, buffer_spec_t* out) {
  const char* colon = strchr(text, ':');
  if (!colon || (size_t)(colon - text) >= 8) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "'fill:%s' is not fill:BYTE:SIZE", text);
  }
  char byte_text[8];
  memcpy(byte_text, text, (size_t)(colon - text));
  byte_text[colon - text] = '\0';
  uint64_t byte = 0;
  HRX_RETURN_IF_ERROR(hrx_parse_u64(byte_text, 0, 255, "fill byte", &byte));
  HRX_RETURN_IF_ERROR(
      hrx_parse_u64(colon + 1, 1, UINT64_MAX, "fill size", &out->size));
  out->kind = BUFFER_FILL;
  out->byte = (uint8_t)byte;
  return HRX_OK;
}

static hrx_status_t parse_values(const char* spec, buffer_spec_t* out) {
  char* copy = strdup(spec + 4);
  if (!copy) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  const char* items[HRX_RUN_MAX];
  size_t count = 0;
  hrx_status_t status = split(copy, items, &count);
  uint8_t type = spec[0] == 'f' ? HRX_HOST_TYPE_F32 : HRX_HOST_TYPE_I32;
  for (size_t i = 0; i < count && status == HRX_OK; ++i) {
    uint64_t bits = 0;
    status = scalar_bits(items[i], type, &bits);
    out->values[i] = (uint32_t)bits;
  }
  free(copy);
  out->kind = BUFFER_VALUES;
  out->count = count;
  return status;
}

static hrx_status_t parse_buffer(const char* spec, buffer_spec_t* out) {
  memset(out, 0, sizeof(*out));
  if (spec[0] == '@') {
    out->kind = BUFFER_FILE;
    out->path = spec + 1;
    return HRX_OK;
  }
  if (!strncmp(spec, "fill:", 5)) return parse_fill(spec + 5, out);
  if (!strncmp(spec, "f32:", 4) || !strncmp(spec, "i32:", 4)) {
    return parse_values(spec, out);
  }
  out->kind = BUFFER_ZEROED;
  return hrx_parse_u64(spec, 1, UINT64_MAX, "buffer SIZE", &out->size);
}

static hrx_status_t parse_workload(const char* list, run_args_t* a) {
  char* copy = strdup(list);
  if (!copy) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED, "out of memory");
  }
  const char* items[HRX_RUN_MAX];
  size_t count = 0;
  hrx_status_t status = split(copy, items, &count);
  for (size_t k = 0; k < count && status == HRX_OK; ++k) {
    if (a->workload_count == HRX_RUN_MAX) {
      status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "more than %d workload values", HRX_RUN_MAX);
      break;
    }
    /* Workload values are counts the launch program reads as indices. */
    status = hrx_parse_u64(items[k], 0, INT64_MAX, "workload value",
                           &a->workload[a->workload_count++]);
  }
  free(copy);
  return status;
}

/* A usage error (exit 2) carrying |status|'s message; frees it. */
static int usage_status(const char* option, const char* value,
                        hrx_status_t status) {
  char text[512];
  hrx_status_format(status, text, sizeof(text));
  hrx_status_free(status);
  return hrx_cli_usage_error("run", "bad %s=%s: %s", option, value, text);
}

static int parse_args(int argc, char** argv, run_args_t* a) {
  a->print = "hex";
  a->timeout_s = HRX_RUN_DEFAULT_TIMEOUT_S;
  for (int i = 1; i < argc; ++i) {
    const char* v = NULL;
    if (hrx_cli_option(argv[i], "--export", &v)) {
      a->export_name = v;
    } else if (hrx_cli_option(argv[i], "--workload", &v)) {
      hrx_status_t status = parse_workload(v, a);
      if (status != HRX_OK) return usage_status("--workload", v, status);
    } else if (hrx_cli_option(argv[i], "--timeout", &v)) {
      hrx_status_t status =
          hrx_parse_u64(v, 1, UINT64_MAX / HRX_RUN_NS_PER_SECOND,
                        "--timeout seconds", &a->timeout_s);
      if (status != HRX_OK) return usage_status("--timeout", v, status);
    } else if (hrx_cli_option(argv[i], "--device", &v)) {
      hrx_status_t status =
          hrx_parse_u64(v, 0, UINT32_MAX, "--device index", &a->device);
      if (status != HRX_OK) return usage_status("--device", v, status);
    } else if (hrx_cli_option(argv[i], "--scalar", &v)) {
      /* One value per option, parsed against the kernel's types later. */
      if (a->scalar_count == HRX_RUN_MAX) {
        return hrx_cli_usage_error("run", "too many --scalar options");
      }
      a->scalars[a->scalar_count++] = v;
    } else if (hrx_cli_option(argv[i], "--buffer", &v)) {
      if (a->buffer_count == HRX_RUN_MAX) {
        return hrx_cli_usage_error("run", "too many --buffer options");
      }
      hrx_status_t status = parse_buffer(v, &a->buffers[a->buffer_count++]);
      if (status != HRX_OK) return usage_status("--buffer", v, status);
    } else if (hrx_cli_option(argv[i], "--sanitizer-reporting", &v)) {
      if (strcmp(v, "trap") && strcmp(v, "report")) {
        return hrx_cli_usage_error("run", "--sanitizer-reporting is trap or "
                                   "report, not '%s'", v);
      }
      a->report = !strcmp(v, "report");
    } else if (hrx_cli_option(argv[i], "--sanitizer-report-capacity", &v)) {
      hrx_status_t status = hrx_parse_u64(
          v, 1, HRX_FABRIC_SANITIZER_MAX_CAPACITY,
          "--sanitizer-report-capacity", &a->report_capacity);
      if (status != HRX_OK) {
        return usage_status("--sanitizer-report-capacity", v, status);
      }
    } else if (hrx_cli_option(argv[i], "--dump", &v)) {
      a->dump = v;
    } else if (hrx_cli_option(argv[i], "--print", &v)) {
      if (strcmp(v, "hex") && strcmp(v, "f32") && strcmp(v, "i32") &&
          strcmp(v, "u8")) {
        return hrx_cli_usage_error("run", "--print is hex, f32, i32 or u8");
      }
      a->print = v;
    } else if (argv[i][0] == '-') {
      return hrx_cli_usage_error("run", "unknown option '%s'", argv[i]);
    } else if (a->artifact) {
      return hrx_cli_usage_error("run", "more than one artifact");
    } else {
      a->artifact = argv[i];
    }
  }
  if (!a->artifact) return hrx_cli_usage_error("run", "missing ARTIFACT");
  if (!a->export_name) return hrx_cli_usage_error("run", "missing --export");
  if (a->report_capacity && !a->report) {
    return hrx_cli_usage_error("run", "--sanitizer-report-capacity needs "
                               "--sanitizer-reporting=report");
  }
  return HRX_EXIT_OK;
}

static hrx_status_t make_buffer(hrx_gpu_stream_t* stream,
                                const buffer_spec_t* spec,
                                hrx_gpu_buffer_t** out) {
  switch (spec->kind) {
    case BUFFER_FILE: {
      /* hrx_file_read_all refuses FIFOs and devices without blocking. */
      void* data = NULL;
      size_t length = 0;
      HRX_RETURN_IF_ERROR(hrx_file_read_all(hrx_allocator_system(),
                                            spec->path, UINT32_MAX, &data,
                                            &length));
      hrx_status_t status =
          length ? hrx_gpu_stream_allocate_from(stream, data, length, out)
                 : hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                                   "buffer file '%s' is empty", spec->path);
      free(data);
      return status;
    }
    case BUFFER_FILL:
      HRX_RETURN_IF_ERROR(hrx_gpu_stream_allocate(stream, spec->size, out));
      memset(hrx_gpu_buffer_host_pointer(*out), spec->byte, spec->size);
      return HRX_OK;
    case BUFFER_VALUES:
      return hrx_gpu_stream_allocate_from(stream, spec->values,
                                          spec->count * 4, out);
    case BUFFER_ZEROED:
      break;
  }
  return hrx_gpu_stream_allocate(stream, spec->size, out);
}

static void print_buffer(size_t index, const uint8_t* data, uint64_t size,
                         const char* format) {
  printf("buffer %zu (%llu bytes):", index, (unsigned long long)size);
  uint64_t shown = size > 256 ? 256 : size;
  if (!strcmp(format, "f32") || !strcmp(format, "i32")) {
    for (uint64_t i = 0; i + 4 <= shown; i += 4) {
      uint32_t bits;
      memcpy(&bits, data + i, 4);
      if (format[0] == 'f') {
        float f;
        memcpy(&f, &bits, 4);
        printf(" %g", f);
      } else {
        printf(" %d", (int32_t)bits);
      }
    }
  } else if (!strcmp(format, "u8")) {
    for (uint64_t i = 0; i < shown; ++i) printf(" %u", data[i]);
  } else {
    for (uint64_t i = 0; i < shown; ++i) printf(" %02x", data[i]);
  }
  printf("%s\n", shown < size ? " ..." : "");
}

/* Prints the sanitizer reports the run collected (report mode); a
 * failure naming how many there were when there were any. */
static hrx_status_t print_reports(hrx_gpu_stream_t* stream,
                                  const char* export_name) {
  hrx_gpu_sanitizer_reports_t* reports = NULL;
  HRX_RETURN_IF_ERROR(hrx_gpu_stream_sanitizer_reports(stream, &reports));
  size_t count = hrx_gpu_sanitizer_reports_count(reports);
  uint64_t dropped = hrx_gpu_sanitizer_reports_dropped(reports);
  printf("sanitizer: %zu report%s, %llu dropped\n", count,
         count == 1 ? "" : "s", (unsigned long long)dropped);
  for (size_t i = 0; i < count; ++i) {
    char text[768];
    hrx_fabric_sanitizer_report_format(
        hrx_gpu_sanitizer_reports_get(reports, i), text, sizeof(text));
    printf("  %s\n", text);
  }
  hrx_gpu_sanitizer_reports_destroy(reports);
  if (count == 0 && dropped == 0) return HRX_OK;
  return hrx_make_status(HRX_STATUS_ABORTED,
                         "'%s' ran to the end with %llu sanitizer findings "
                         "(%zu reported, %llu dropped past "
                         "--sanitizer-report-capacity)",
                         export_name,
                         (unsigned long long)(count + dropped), count,
                         (unsigned long long)dropped);
}

/* A --device index past the devices there are is a usage error that says
 * how many there are (and, with no GPU, why none was found). */
static int check_device(uint64_t index) {
  size_t count = hrx_gpu_device_count();
  if (index < count) return HRX_EXIT_OK;
  char why[512] = "";
  if (count == 1) {
    size_t found = 0;
    hrx_status_t status = hrx_fabric_kfd_probe(0, NULL, &found);
    if (status != HRX_OK) {
      char text[448];
      hrx_status_format(status, text, sizeof(text));
      hrx_status_free(status);
      snprintf(why, sizeof(why), " (%s)", text);
    } else {
      snprintf(why, sizeof(why), " (the KFD topology lists %zu GPU%s, none "
               "that HRX supports)", found, found == 1 ? "" : "s");
    }
    return hrx_cli_usage_error("run", "bad --device=%llu: there is 1 device, "
                               "0 (the host device); no AMD GPU%s",
                               (unsigned long long)index, why);
  }
  return hrx_cli_usage_error("run", "bad --device=%llu: there are %zu "
                             "devices, 0 (the host device) and 1..%zu (AMD "
                             "GPUs; see 'hrx doctor')",
                             (unsigned long long)index, count, count - 1);
}

static hrx_status_t run(run_args_t* a) {
  hrx_allocator_t allocator = hrx_allocator_system();
  void* code = NULL;
  size_t code_length = 0;
  HRX_RETURN_IF_ERROR(hrx_file_read_all(allocator, a->artifact, 1u << 30,
                                        &code, &code_length));
  hrx_gpu_device_t* device = NULL;
  hrx_gpu_stream_t* stream = NULL;
  hrx_gpu_kernel_t* kernel = NULL;
  hrx_gpu_buffer_t* buffers[HRX_RUN_MAX] = {0};
  size_t made = 0;
  bool reporting = false;
  hrx_status_t status =
      hrx_gpu_device_open((size_t)a->device, allocator, &device);
  if (status != HRX_OK) {
    status = hrx_status_annotate(status, "opening device %llu",
                                 (unsigned long long)a->device);
  }
  if (status == HRX_OK) status = hrx_gpu_stream_create(device, &stream);
  if (status == HRX_OK && a->report) {
    hrx_gpu_sanitizer_options_t options = {
        .struct_size = sizeof(options),
        .reporting = HRX_GPU_SANITIZER_REPORT,
        .report_capacity = (uint32_t)a->report_capacity};
    status = hrx_gpu_stream_set_sanitizer(stream, &options);
    reporting = status == HRX_OK;
  }
  if (status == HRX_OK) {
    status = hrx_gpu_kernel_load(device, code, code_length, a->export_name,
                                 &kernel);
    if (status != HRX_OK) {
      /* The usual mistake: a code object for another target. */
      const hrx_fabric_device_properties_t* p =
          hrx_gpu_device_properties(device);
      status = hrx_status_annotate(
          status, "loading '%s' from %s on device %llu (%s, needs a %s code "
          "object: hrx compile --target=%s)", a->export_name, a->artifact,
          (unsigned long long)a->device, p->name, p->profile_target,
          p->profile_target);
    }
  }
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  hrx_gpu_arg_t args[HRX_RUN_MAX];
  size_t scalar = 0;
  if (status == HRX_OK) status = hrx_gpu_kernel_info(kernel, &info);
  if (status == HRX_OK) {
    if (info.arg_count > HRX_RUN_MAX) {
      status = hrx_make_status(HRX_STATUS_UNIMPLEMENTED, "too many arguments");
    }
  }
  for (uint32_t i = 0; status == HRX_OK && i < info.arg_count; ++i) {
    if (info.args[i].kind == HRX_FABRIC_ARG_BUFFER) {
      if (made == a->buffer_count) {
        status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                                 "'%s' needs more --buffer options (argument "
                                 "%u)", a->export_name, i);
        break;
      }
      status = make_buffer(stream, &a->buffers[made], &buffers[made]);
      if (status == HRX_OK) {
        args[i] = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(buffers[made]),
                                      HRX_GPU_ACCESS_READ_WRITE);
        made++;
      }
    } else {
      if (scalar == a->scalar_count) {
        status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                                 "'%s' needs more --scalar values (argument "
                                 "%u)", a->export_name, i);
        break;
      }
      uint64_t bits = 0;
      status = scalar_bits(a->scalars[scalar++], info.args[i].type, &bits);
      args[i] = hrx_gpu_arg_scalar(bits);
    }
  }
  if (status == HRX_OK &&
      (made != a->buffer_count || scalar != a->scalar_count)) {
    status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "'%s' takes %zu buffers and %zu scalars; got %zu "
                             "and %zu", a->export_name, made, scalar,
                             a->buffer_count, a->scalar_count);
  }
  if (status == HRX_OK) {
    hrx_gpu_launch_t launch = {a->workload, a->workload_count, args,
                               info.arg_count};
    status = hrx_gpu_stream_dispatch(stream, kernel, &launch);
  }
  if (status == HRX_OK) {
    status = hrx_gpu_stream_synchronize(
        stream, a->timeout_s * HRX_RUN_NS_PER_SECOND);
    if (hrx_status_is(status, HRX_STATUS_DEADLINE_EXCEEDED)) {
      /* Presumed endless: stop it so the buffers can be freed and hrx can
       * exit, and say so. */
      hrx_status_free(status);
      hrx_gpu_stream_cancel(stream);
      status = hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                               "'%s' did not finish within %llu s "
                               "(--timeout); it was cancelled",
                               a->export_name,
                               (unsigned long long)a->timeout_s);
    }
  }
  if (status == HRX_OK && a->dump) {
    status = hrx_dir_create_all(a->dump, 0755);
  }
  for (size_t b = 0; status == HRX_OK && b < made; ++b) {
    const uint8_t* data = hrx_gpu_buffer_host_pointer(buffers[b]);
    uint64_t size = hrx_gpu_buffer_size(buffers[b]);
    print_buffer(b, data, size, a->print);
    if (a->dump) {
      char path[4096];
      snprintf(path, sizeof(path), "%s/buffer%zu.bin", a->dump, b);
      /* A user-chosen place: a link is followed, a device or FIFO written
       * in place (hrx_file_write_output). */
      status = hrx_file_write_output(path, data, size, 0644);
    }
  }
  if (reporting) {
    /* Whatever else went wrong, what the sanitizer found is shown. */
    hrx_status_t found = print_reports(stream, a->export_name);
    if (status == HRX_OK) {
      status = found;
    } else {
      hrx_status_free(found);
    }
  }
  for (size_t b = 0; b < made; ++b) hrx_gpu_buffer_release(buffers[b]);
  hrx_gpu_kernel_release(kernel);
  hrx_gpu_stream_destroy(stream);
  hrx_gpu_device_release(device);
  free(code);
  return status;
}

/* Whether |path| names a .xdna NPU image, which runs on the NPU. */
static bool is_npu_image(const char* path) {
  size_t length = strlen(path);
  return length > 5 && !strcmp(path + length - 5, ".xdna");
}

int hrx_cmd_run(int argc, char** argv) {
  if (argc > 1 && is_npu_image(argv[1])) {
#ifdef HRX_CLI_HAVE_NPU
    hrx_cli_npu_driver_t driver = hrx_cli_npu_native();
    return hrx_cli_npu_run(&driver, argc, argv, stdout, stderr);
#else
    return hrx_cli_fail("run", hrx_make_status(
                                   HRX_STATUS_UNAVAILABLE,
                                   "%s is an NPU image, and this hrx was "
                                   "built without libhrx-npu (-Dnpu)",
                                   argv[1]));
#endif
  }
  run_args_t a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc == HRX_EXIT_OK) rc = check_device(a.device);
  if (rc == HRX_EXIT_OK) {
    hrx_status_t status = run(&a);
    rc = status == HRX_OK ? HRX_EXIT_OK : hrx_cli_fail("run", status);
  }
  return rc;
}
