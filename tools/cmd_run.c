/* hrx run: run one kernel of a code object on the host device and show
 * its buffers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hrx/gpu.h"
#include "hrx_cli.h"

#define HRX_RUN_MAX 64

typedef struct run_args_t {
  const char* artifact;
  const char* export_name;
  uint64_t workload[HRX_RUN_MAX];
  size_t workload_count;
  const char* scalars[HRX_RUN_MAX];
  size_t scalar_count;
  const char* buffers[HRX_RUN_MAX];
  size_t buffer_count;
  const char* dump;
  const char* print;
} run_args_t;

static bool parse_u64(const char* text, uint64_t* out) {
  char* end = NULL;
  errno = 0;
  bool negative = text[0] == '-';
  *out = negative ? (uint64_t)strtoll(text, &end, 0) : strtoull(text, &end, 0);
  return *text && end && !*end && errno == 0;
}

/* Splits a comma list in place into |out|. */
static int split(char* list, const char** out, size_t* count) {
  for (char* item = strtok(list, ","); item; item = strtok(NULL, ",")) {
    if (*count == HRX_RUN_MAX) return -1;
    out[(*count)++] = item;
  }
  return 0;
}

static int parse_args(int argc, char** argv, run_args_t* a) {
  a->print = "hex";
  for (int i = 1; i < argc; ++i) {
    const char* v = NULL;
    if (hrx_cli_option(argv[i], "--export", &v)) {
      a->export_name = v;
    } else if (hrx_cli_option(argv[i], "--workload", &v)) {
      char* copy = strdup(v);
      const char* items[HRX_RUN_MAX];
      size_t count = 0;
      int bad = !copy || split(copy, items, &count);
      for (size_t k = 0; k < count && !bad; ++k) {
        bad = a->workload_count == HRX_RUN_MAX ||
              !parse_u64(items[k], &a->workload[a->workload_count++]);
      }
      free(copy);
      if (bad) return hrx_cli_usage_error("run", "bad --workload=%s", v);
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
      a->buffers[a->buffer_count++] = v;
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
  return HRX_EXIT_OK;
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
  if (!parse_u64(text, out)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "'%s' is not an integer", text);
  }
  return HRX_OK;
}

/* SIZE | @FILE | fill:BYTE:SIZE | f32:V,V,... | i32:V,V,... */
static hrx_status_t make_buffer(hrx_gpu_stream_t* stream, const char* spec,
                                hrx_gpu_buffer_t** out) {
  uint64_t size = 0;
  if (spec[0] == '@') {
    void* data = NULL;
    size_t length = 0;
    HRX_RETURN_IF_ERROR(hrx_file_read_all(hrx_allocator_system(), spec + 1,
                                          UINT32_MAX, &data, &length));
    hrx_status_t status =
        length ? hrx_gpu_stream_allocate_from(stream, data, length, out)
               : hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                                 "buffer file '%s' is empty", spec + 1);
    free(data);
    return status;
  }
  if (!strncmp(spec, "fill:", 5)) {
    unsigned byte = 0;
    unsigned long long bytes = 0;
    char tail = 0;
    if (sscanf(spec + 5, "%i:%llu%c", (int*)&byte, &bytes, &tail) != 2 ||
        byte > 255 || bytes == 0) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "'%s' is not fill:BYTE:SIZE", spec);
    }
    HRX_RETURN_IF_ERROR(hrx_gpu_stream_allocate(stream, bytes, out));
    memset(hrx_gpu_buffer_host_pointer(*out), (int)byte, bytes);
    return HRX_OK;
  }
  if (!strncmp(spec, "f32:", 4) || !strncmp(spec, "i32:", 4)) {
    bool is_float = spec[0] == 'f';
    char* copy = strdup(spec + 4);
    const char* items[HRX_RUN_MAX];
    size_t count = 0;
    hrx_status_t status = HRX_OK;
    if (!copy || split(copy, items, &count) || count == 0) {
      status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "'%s' needs 1 to %d values", spec, HRX_RUN_MAX);
    }
    uint32_t values[HRX_RUN_MAX];
    for (size_t i = 0; i < count && status == HRX_OK; ++i) {
      uint64_t bits = 0;
      status = scalar_bits(items[i],
                           is_float ? HRX_HOST_TYPE_F32 : HRX_HOST_TYPE_I32,
                           &bits);
      values[i] = (uint32_t)bits;
    }
    free(copy);
    HRX_RETURN_IF_ERROR(status);
    return hrx_gpu_stream_allocate_from(stream, values, count * 4, out);
  }
  if (!parse_u64(spec, &size) || size == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "'%s' is not SIZE, @FILE, fill:BYTE:SIZE, f32:... "
                           "or i32:...", spec);
  }
  return hrx_gpu_stream_allocate(stream, size, out);
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
  hrx_status_t status = hrx_gpu_device_open(0, allocator, &device);
  if (status == HRX_OK) status = hrx_gpu_stream_create(device, &stream);
  if (status == HRX_OK) {
    status = hrx_gpu_kernel_load(device, code, code_length, a->export_name,
                                 &kernel);
  }
  hrx_fabric_kernel_info_t info;
  hrx_gpu_arg_t args[HRX_RUN_MAX];
  size_t scalar = 0;
  if (status == HRX_OK) {
    hrx_gpu_kernel_info(kernel, &info);
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
      status = make_buffer(stream, a->buffers[made], &buffers[made]);
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
    status = hrx_gpu_stream_synchronize(stream, 600ull * 1000000000ull);
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
      status = hrx_file_write_atomic(path, data, size, 0644);
    }
  }
  for (size_t b = 0; b < made; ++b) hrx_gpu_buffer_release(buffers[b]);
  hrx_gpu_kernel_release(kernel);
  hrx_gpu_stream_destroy(stream);
  hrx_gpu_device_release(device);
  free(code);
  return status;
}

int hrx_cmd_run(int argc, char** argv) {
  run_args_t a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc == HRX_EXIT_OK) {
    hrx_status_t status = run(&a);
    rc = status == HRX_OK ? HRX_EXIT_OK : hrx_cli_fail("run", status);
  }
  return rc;
}
