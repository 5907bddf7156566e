/* hrx inspect FILE: a summary of a safetensors file, an ONNX model or a
 * host code object. Every name in it comes from the file and is printed
 * escaped, so a file cannot write escape sequences to the terminal or forge
 * lines of the listing. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "hrx/artifacts.h"
#include "hrx/core/escape.h"
#include "hrx/core/file.h"
#include "hrx/fabric.h"
#include "hrx_cli.h"
#include "inspect_elf.h"

/* Prints |text| escaped, left-aligned in |width| columns (0: as is). */
static void print_name(const char* text, int width) {
  hrx_string_builder_t shown;
  hrx_string_builder_init(hrx_allocator_system(), &shown);
  hrx_status_t status =
      hrx_string_builder_append_escaped(&shown, text, strlen(text));
  printf("%-*s", width, status == HRX_OK ? hrx_string_builder_cstr(&shown)
                                         : "(no memory)");
  hrx_status_free(status);
  hrx_string_builder_deinit(&shown);
}

static void print_tensor(const hrx_safetensors_tensor_t* t) {
  printf("  ");
  print_name(t->name, 40);
  printf(" %-7s [", hrx_dtype_name(t->dtype));
  for (uint32_t d = 0; d < t->rank; ++d) {
    printf("%s%" PRIu64, d ? ", " : "", t->shape[d]);
  }
  printf("] %" PRIu64 " bytes\n", t->length);
}

static int compare_strings(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

static void print_value_info(const char* kind,
                             const hrx_onnx_value_info_t* v) {
  printf("  %-6s ", kind);
  print_name(v->name, 30);
  printf(" %-8s", hrx_onnx_dtype_name(v->dtype));
  if (v->has_shape) {
    printf(" [");
    for (size_t d = 0; d < v->rank; ++d) {
      if (v->dims[d].param) {
        printf("%s", d ? ", " : "");
        print_name(v->dims[d].param, 0);
      } else {
        printf("%s%" PRId64, d ? ", " : "", v->dims[d].value);
      }
    }
    printf("]");
  }
  printf("\n");
}

/* Producer, opsets, inputs and outputs, node counts by op type and
 * initializer bytes. */
static int inspect_onnx(const char* path, hrx_onnx_model_t* model) {
  const hrx_onnx_model_info_t* info = hrx_onnx_info(model);
  print_name(path, 0);
  printf(": ONNX (IR %" PRId64 "), producer ", info->ir_version);
  print_name(info->producer_name, 0);
  printf(" ");
  print_name(info->producer_version, 0);
  printf(", graph '");
  print_name(info->graph_name, 0);
  printf("'\n");
  for (size_t i = 0; i < info->opset_count; ++i) {
    printf("  opset  ");
    print_name(info->opsets[i].domain[0] ? info->opsets[i].domain : "ai.onnx",
               0);
    printf(" %" PRId64 "\n", info->opsets[i].version);
  }
  for (size_t i = 0; i < info->input_count; ++i) {
    print_value_info("input", &info->inputs[i]);
  }
  for (size_t i = 0; i < info->output_count; ++i) {
    print_value_info("output", &info->outputs[i]);
  }
  const char** ops = calloc(info->node_count + 1, sizeof(char*));
  if (!ops) return hrx_cli_fail("inspect", hrx_make_status(
                                    HRX_STATUS_RESOURCE_EXHAUSTED, "no memory"));
  for (size_t n = 0; n < info->node_count; ++n) ops[n] = info->nodes[n].op_type;
  if (info->node_count) {
    qsort(ops, info->node_count, sizeof(char*), compare_strings);
  }
  printf("  %zu nodes:", info->node_count);
  for (size_t n = 0; n < info->node_count;) {
    size_t same = 1;
    while (n + same < info->node_count && !strcmp(ops[n], ops[n + same])) {
      same++;
    }
    printf(" ");
    print_name(ops[n], 0);
    printf(" x%zu", same);
    n += same;
  }
  printf("\n");
  free(ops);
  /* Each size fits 64 bits (the reader checks), their sum need not: a
   * wrapped total would understate what the model needs. */
  uint64_t bytes = 0;
  bool over = false;
  for (size_t i = 0; i < info->initializer_count; ++i) {
    const hrx_onnx_tensor_t* t = &info->initializers[i];
    uint64_t size = t->external_path
                        ? t->external_length
                        : t->elements * hrx_onnx_dtype_size(t->dtype);
    over |= __builtin_add_overflow(bytes, size, &bytes);
  }
  printf("  %zu initializers, ", info->initializer_count);
  if (over) {
    printf("more than %" PRIu64 " bytes\n", UINT64_MAX);
  } else {
    printf("%" PRIu64 " bytes\n", bytes);
  }
  if (info->sparse_initializer_count) {
    uint64_t values = 0;
    over = false;
    for (size_t i = 0; i < info->sparse_initializer_count; ++i) {
      over |= __builtin_add_overflow(
          values, info->sparse_initializers[i].nonzeros, &values);
    }
    printf("  %zu sparse initializers, ", info->sparse_initializer_count);
    if (over) {
      printf("more than %" PRIu64 " stored values\n", UINT64_MAX);
    } else {
      printf("%" PRIu64 " stored values\n", values);
    }
  }
  return HRX_EXIT_OK;
}

static const char* const host_type_names[HRX_HOST_TYPE_COUNT] = {
    "i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "f8E4M3",
    "f8E5M2"};

/* Loads the code object on a host device (which validates all of it) and
 * lists its kernels with what 'hrx run' needs to call them. */
static int inspect_code_object(const char* path) {
  hrx_allocator_t allocator = hrx_allocator_system();
  void* code = NULL;
  size_t length = 0;
  hrx_fabric_device_t* device = NULL;
  hrx_fabric_executable_t* exe = NULL;
  hrx_fabric_host_options_t options =
      HRX_STRUCT_INIT(hrx_fabric_host_options_t);
  options.worker_count = 1;
  hrx_status_t status =
      hrx_file_read_all(allocator, path, (size_t)1 << 30, &code, &length);
  if (status == HRX_OK) {
    status = hrx_fabric_host_device_create(&options, allocator, &device);
  }
  if (status == HRX_OK) {
    status = hrx_fabric_executable_load(device, code, length, &exe);
  }
  size_t count = exe ? hrx_fabric_executable_kernel_count(exe) : 0;
  if (status == HRX_OK) {
    print_name(path, 0);
    printf(": HRX host code object, %zu bytes, %zu kernel%s\n", length,
           count, count == 1 ? "" : "s");
  }
  for (size_t k = 0; status == HRX_OK && k < count; ++k) {
    hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
    status = hrx_fabric_kernel_info(hrx_fabric_executable_kernel_at(exe, k),
                                    &info);
    if (status != HRX_OK) break;
    hrx_fabric_launch_program_t* launch = NULL;
    if (info.launch_program_length) {
      status = hrx_fabric_launch_program_load(
          info.launch_program, info.launch_program_length, allocator,
          &launch);
    }
    if (status != HRX_OK) break;
    printf("  kernel ");
    print_name(info.name, 0);
    printf(": subgroup %u, kernarg %u bytes, group segment %u, "
           "private segment %u",
           info.subgroup_size, info.kernarg_size,
           info.group_segment_size, info.private_segment_size);
    if (launch) {
      size_t workload = hrx_fabric_launch_program_workload_count(launch);
      printf(", %zu workload value%s", workload, workload == 1 ? "" : "s");
    }
    printf("%s\n", info.race_checked ? ", race-checked" : "");
    for (uint32_t a = 0; a < info.arg_count; ++a) {
      const hrx_fabric_kernel_arg_t* arg = &info.args[a];
      const char* type = arg->kind == HRX_FABRIC_ARG_BUFFER ? "buffer"
                         : arg->type < HRX_HOST_TYPE_COUNT
                             ? host_type_names[arg->type]
                             : "?";
      printf("    arg %u  %-6s at %u, %u bytes\n", a, type, arg->offset,
             arg->size);
    }
    hrx_fabric_launch_program_destroy(launch);
  }
  if (exe) hrx_fabric_executable_release(exe);
  if (device) hrx_fabric_device_release(device);
  hrx_allocator_free(allocator, code);
  return status == HRX_OK ? HRX_EXIT_OK : hrx_cli_fail("inspect", status);
}

/* An AMDGPU code object (hrx compile --target=gfx1151): its kernels,
 * descriptors and launch programs. */
static int inspect_amdgpu_code_object(const char* path) {
  hrx_allocator_t allocator = hrx_allocator_system();
  void* data = NULL;
  size_t length = 0;
  hrx_status_t status =
      hrx_file_read_all(allocator, path, (size_t)1 << 30, &data, &length);
  if (status == HRX_OK) status = hrx_inspect_elf(path, data, length, stdout);
  hrx_allocator_free(allocator, data);
  return status == HRX_OK ? HRX_EXIT_OK : hrx_cli_fail("inspect", status);
}

typedef enum file_kind_e {
  FILE_UNKNOWN,
  FILE_ONNX,
  FILE_SAFETENSORS,
  FILE_CODE_OBJECT,
  FILE_AMDGPU_CODE_OBJECT,
} file_kind_t;

/* The format a file's name promises: what the user meant, and so the
 * format whose errors a broken file is reported with. */
static file_kind_t kind_by_name(const char* path) {
  const char* dot = strrchr(path, '.');
  if (!dot || strchr(dot, '/')) return FILE_UNKNOWN;
  if (!strcasecmp(dot, ".safetensors")) return FILE_SAFETENSORS;
  if (!strcasecmp(dot, ".onnx")) return FILE_ONNX;
  if (!strcasecmp(dot, ".hxco")) return FILE_CODE_OBJECT;
  if (!strcasecmp(dot, ".co")) return FILE_AMDGPU_CODE_OBJECT;
  return FILE_UNKNOWN;
}

/* The format a file's first bytes show: host code objects start with
 * "HXCO", AMDGPU ones are ELF, safetensors files have their JSON header's
 * '{' at byte 8 (whatever the length before it says); ONNX files have no
 * magic number. */
static file_kind_t kind_by_content(const uint8_t* head, size_t length) {
  if (length >= 4 && !memcmp(head, HRX_HOST_CODE_MAGIC, 4)) {
    return FILE_CODE_OBJECT;
  }
  if (length >= 4 && !memcmp(head, HRX_INSPECT_ELF_MAGIC, 4)) {
    return FILE_AMDGPU_CODE_OBJECT;
  }
  if (length >= 9 && head[8] == '{') return FILE_SAFETENSORS;
  return FILE_UNKNOWN;
}

/* Up to 9 bytes from the start of |path|, which must be a regular file: a
 * FIFO or a device would block or never end. */
static hrx_status_t read_head(const char* path, uint8_t head[9],
                              size_t* out_length) {
  int fd = -1;
  HRX_RETURN_IF_ERROR(hrx_file_open_regular(path, true, &fd, NULL));
  ssize_t n = pread(fd, head, 9, 0);
  hrx_status_t status =
      n < 0 ? hrx_status_from_errno(errno, "cannot read '%s'", path) : HRX_OK;
  close(fd);
  *out_length = n > 0 ? (size_t)n : 0;
  return status;
}

static int inspect_safetensors(const char* path) {
  hrx_safetensors_options_t options =
      HRX_STRUCT_INIT(hrx_safetensors_options_t);
  options.mode = HRX_SAFETENSORS_READ;
  hrx_safetensors_t* view = NULL;
  hrx_status_t status =
      hrx_safetensors_open(path, &options, hrx_allocator_system(), &view);
  if (status != HRX_OK) return hrx_cli_fail("inspect", status);
  /* Tensors lie inside the file without overlapping: no overflow. */
  uint64_t total = 0;
  size_t count = hrx_safetensors_count(view);
  for (size_t i = 0; i < count; ++i) {
    total += hrx_safetensors_at(view, i)->length;
  }
  print_name(path, 0);
  printf(": safetensors, %zu tensor%s, %" PRIu64 " bytes of data\n", count,
         count == 1 ? "" : "s", total);
  for (size_t i = 0; i < hrx_safetensors_metadata_count(view); ++i) {
    const hrx_safetensors_metadata_t* m = hrx_safetensors_metadata_at(view, i);
    printf("  metadata ");
    print_name(m->key, 0);
    printf(" = ");
    print_name(m->value, 0);
    printf("\n");
  }
  for (size_t i = 0; i < count; ++i) print_tensor(hrx_safetensors_at(view, i));
  hrx_safetensors_destroy(view);
  return HRX_EXIT_OK;
}

/* An ONNX model, or for a file of no known kind the list of what it is
 * not. */
static int inspect_onnx_file(const char* path, bool guessed) {
  hrx_onnx_model_t* model = NULL;
  hrx_status_t status = hrx_onnx_open(path, hrx_allocator_system(), &model);
  if (status != HRX_OK && guessed) {
    status = hrx_status_annotate(
        status, "tried as ONNX: the file has no known extension "
        "(.safetensors, .onnx, .hxco, .co), no code object magic (HXCO, "
        "ELF) and no "
        "safetensors header");
  }
  if (status != HRX_OK) return hrx_cli_fail("inspect", status);
  int rc = inspect_onnx(path, model);
  hrx_onnx_destroy(model);
  return rc;
}

int hrx_cmd_inspect(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-') {
    return hrx_cli_usage_error("inspect", argc < 2 ? "missing FILE"
                                                   : "takes one FILE");
  }
  const char* path = argv[1];
  uint8_t head[9];
  size_t length = 0;
  hrx_status_t status = read_head(path, head, &length);
  if (status != HRX_OK) return hrx_cli_fail("inspect", status);
  file_kind_t kind = kind_by_name(path);
  bool guessed = kind == FILE_UNKNOWN;
  /* Code objects of either kind are told apart by their magic: "hrx
   * compile -o x.hxco --target=gfx1151" writes ELF under that name. */
  if (guessed || kind == FILE_CODE_OBJECT ||
      kind == FILE_AMDGPU_CODE_OBJECT) {
    file_kind_t shown = kind_by_content(head, length);
    if (guessed || shown == FILE_CODE_OBJECT ||
        shown == FILE_AMDGPU_CODE_OBJECT) {
      kind = shown;
    }
  }
  switch (kind) {
    case FILE_CODE_OBJECT:
      return inspect_code_object(path);
    case FILE_AMDGPU_CODE_OBJECT:
      return inspect_amdgpu_code_object(path);
    case FILE_SAFETENSORS:
      return inspect_safetensors(path);
    default:
      return inspect_onnx_file(path, guessed);
  }
}
