/* hrx inspect FILE: a summary of a model file. */
#include <inttypes.h>
#include <stdio.h>

#include "hrx/artifacts.h"
#include "hrx_cli.h"

static void print_tensor(const hrx_safetensors_tensor_t* t) {
  printf("  %-40s %-7s [", t->name, hrx_dtype_name(t->dtype));
  for (uint32_t d = 0; d < t->rank; ++d) {
    printf("%s%" PRIu64, d ? ", " : "", t->shape[d]);
  }
  printf("] %" PRIu64 " bytes\n", t->length);
}

int hrx_cmd_inspect(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-') {
    return hrx_cli_usage_error("inspect", argc < 2 ? "missing FILE"
                                                   : "takes one FILE");
  }
  hrx_safetensors_options_t options = {.mode = HRX_SAFETENSORS_READ};
  hrx_safetensors_t* view = NULL;
  hrx_status_t status =
      hrx_safetensors_open(argv[1], &options, hrx_allocator_system(), &view);
  if (status != HRX_OK) {
    /* ONNX is recognised once its reader lands; until then only
     * safetensors is. */
    return hrx_cli_fail("inspect", status);
  }
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
