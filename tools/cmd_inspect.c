/* hrx inspect FILE: a summary of a safetensors or ONNX file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/artifacts.h"
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

/* ONNX files have no magic number; safetensors ones start with a small
 * little-endian length and '{'. */
static bool looks_like_safetensors(const char* path) {
  FILE* file = fopen(path, "rb");
  if (!file) return true; /* let the open report it */
  uint8_t head[9] = {0};
  size_t n = fread(head, 1, sizeof(head), file);
  fclose(file);
  return n == sizeof(head) && head[8] == '{' && head[7] == 0 && head[6] == 0;
}

int hrx_cmd_inspect(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-') {
    return hrx_cli_usage_error("inspect", argc < 2 ? "missing FILE"
                                                   : "takes one FILE");
  }
  if (!looks_like_safetensors(argv[1])) {
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
