/* hrx inspect FILE: a summary of a safetensors file, an ONNX model or a
 * host code object. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/artifacts.h"
#include "hrx/fabric.h"
#include "hrx_cli.h"

static void print_tensor(const hrx_safetensors_tensor_t* t) {
  printf("  %-40s %-7s [", t->name, hrx_dtype_name(t->dtype));
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
  printf("  %-6s %-30s %-8s", kind, v->name, hrx_onnx_dtype_name(v->dtype));
  if (v->has_shape) {
    printf(" [");
    for (size_t d = 0; d < v->rank; ++d) {
      if (v->dims[d].param) {
        printf("%s%s", d ? ", " : "", v->dims[d].param);
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
  printf("%s: ONNX (IR %" PRId64 "), producer %s %s, graph '%s'\n", path,
         info->ir_version, info->producer_name, info->producer_version,
         info->graph_name);
  for (size_t i = 0; i < info->opset_count; ++i) {
    printf("  opset  %s %" PRId64 "\n",
           info->opsets[i].domain[0] ? info->opsets[i].domain : "ai.onnx",
           info->opsets[i].version);
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
    printf(" %s x%zu", ops[n], same);
    n += same;
  }
  printf("\n");
  free(ops);
  uint64_t bytes = 0;
  for (size_t i = 0; i < info->initializer_count; ++i) {
    const hrx_onnx_tensor_t* t = &info->initializers[i];
    bytes += t->external_path ? t->external_length
                              : t->elements * hrx_onnx_dtype_size(t->dtype);
  }
  printf("  %zu initializers, %" PRIu64 " bytes\n", info->initializer_count,
         bytes);
  if (info->sparse_initializer_count) {
    uint64_t values = 0;
    for (size_t i = 0; i < info->sparse_initializer_count; ++i) {
      values += info->sparse_initializers[i].nonzeros;
    }
    printf("  %zu sparse initializers, %" PRIu64 " stored values\n",
           info->sparse_initializer_count, values);
  }
  return HRX_EXIT_OK;
}

static const char* const host_type_names[HRX_HOST_TYPE_COUNT] = {
    "i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};

/* Loads the code object on a host device (which validates all of it) and
 * lists its kernels with what 'hrx run' needs to call them. */
static int inspect_code_object(const char* path) {
  hrx_allocator_t allocator = hrx_allocator_system();
  void* code = NULL;
  size_t length = 0;
  hrx_fabric_device_t* device = NULL;
  hrx_fabric_executable_t* exe = NULL;
  hrx_fabric_host_options_t options = {.worker_count = 1};
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
    printf("%s: HRX host code object, %zu bytes, %zu kernel%s\n", path,
           length, count, count == 1 ? "" : "s");
  }
  for (size_t k = 0; status == HRX_OK && k < count; ++k) {
    hrx_fabric_kernel_info_t info;
    hrx_fabric_kernel_info(hrx_fabric_executable_kernel_at(exe, k), &info);
    hrx_fabric_launch_program_t* launch = NULL;
    if (info.launch_program_length) {
      status = hrx_fabric_launch_program_load(
          info.launch_program, info.launch_program_length, allocator,
          &launch);
    }
    if (status != HRX_OK) break;
    printf("  kernel %s: subgroup %u, kernarg %u bytes, group segment %u, "
           "private segment %u",
           info.name, info.subgroup_size, info.kernarg_size,
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

typedef enum file_kind_e {
  FILE_ONNX,
  FILE_SAFETENSORS,
  FILE_CODE_OBJECT,
} file_kind_t;

/* Code objects start with "HXCO"; safetensors files with a small
 * little-endian length and '{'; ONNX files have no magic number. */
static file_kind_t sniff(const char* path) {
  FILE* file = fopen(path, "rb");
  if (!file) return FILE_SAFETENSORS; /* let the open report it */
  uint8_t head[9] = {0};
  size_t n = fread(head, 1, sizeof(head), file);
  fclose(file);
  if (n >= 4 && !memcmp(head, HRX_HOST_CODE_MAGIC, 4)) {
    return FILE_CODE_OBJECT;
  }
  return n == sizeof(head) && head[8] == '{' && head[7] == 0 && head[6] == 0
             ? FILE_SAFETENSORS
             : FILE_ONNX;
}

int hrx_cmd_inspect(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-') {
    return hrx_cli_usage_error("inspect", argc < 2 ? "missing FILE"
                                                   : "takes one FILE");
  }
  file_kind_t kind = sniff(argv[1]);
  if (kind == FILE_CODE_OBJECT) return inspect_code_object(argv[1]);
  if (kind == FILE_ONNX) {
    hrx_onnx_model_t* model = NULL;
    hrx_status_t status =
        hrx_onnx_open(argv[1], hrx_allocator_system(), &model);
    if (status != HRX_OK) return hrx_cli_fail("inspect", status);
    int rc = inspect_onnx(argv[1], model);
    hrx_onnx_close(model);
    return rc;
  }
  hrx_safetensors_options_t options = {.mode = HRX_SAFETENSORS_READ};
  hrx_safetensors_t* view = NULL;
  hrx_status_t status =
      hrx_safetensors_open(argv[1], &options, hrx_allocator_system(), &view);
  if (status != HRX_OK) return hrx_cli_fail("inspect", status);
  uint64_t total = 0;
  size_t count = hrx_safetensors_count(view);
  for (size_t i = 0; i < count; ++i) {
    total += hrx_safetensors_at(view, i)->length;
  }
  printf("%s: safetensors, %zu tensor%s, %" PRIu64 " bytes of data\n",
         argv[1], count, count == 1 ? "" : "s", total);
  for (size_t i = 0; i < hrx_safetensors_metadata_count(view); ++i) {
    const hrx_safetensors_metadata_t* m = hrx_safetensors_metadata_at(view, i);
    printf("  metadata %s = %s\n", m->key, m->value);
  }
  for (size_t i = 0; i < count; ++i) print_tensor(hrx_safetensors_at(view, i));
  hrx_safetensors_close(view);
  return HRX_EXIT_OK;
}
