/* libFuzzer target: the Loom parser and verifier, and everything that runs
 * on a module that passes them (printer round trip, specialisation, launch
 * programs and their serialised form). Any crash, leak, sanitizer report
 * or hang is a bug. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/fabric/launch_program.h"
#include "hrx/loom.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static void check(int condition) {
  if (!condition) abort();
}

static void exercise(const hrx_loom_module_t* module) {
  hrx_allocator_t allocator = hrx_allocator_system();
  /* print(parse(print(m))) must equal print(m). */
  hrx_string_builder_t first;
  hrx_string_builder_init(allocator, &first);
  check(hrx_loom_module_print(module, &first) == HRX_OK);
  hrx_loom_module_t* again = NULL;
  hrx_status_t status =
      hrx_loom_module_parse(hrx_string_builder_cstr(&first), first.length,
                            NULL, NULL, allocator, &again);
  check(status == HRX_OK);
  hrx_string_builder_t second;
  hrx_string_builder_init(allocator, &second);
  check(hrx_loom_module_print(again, &second) == HRX_OK);
  check(first.length == second.length &&
        strcmp(hrx_string_builder_cstr(&first),
               hrx_string_builder_cstr(&second)) == 0);
  hrx_string_builder_deinit(&second);
  hrx_string_builder_deinit(&first);
  hrx_loom_module_destroy(again);

  hrx_loom_specialization_t* spec = NULL;
  status = hrx_loom_module_specialize(module, NULL, NULL, allocator, &spec);
  hrx_status_free(status);
  hrx_loom_profile_t profile = hrx_loom_profile_host();
  for (size_t k = 0; k < hrx_loom_module_kernel_count(module); ++k) {
    hrx_loom_launch_program_t* program = NULL;
    status = hrx_loom_launch_program_build(module, k, spec, &profile, NULL,
                                           allocator, &program);
    if (status != HRX_OK) {
      hrx_status_free(status);
      continue;
    }
    uint8_t* bytes = NULL;
    size_t length = 0;
    check(hrx_loom_launch_program_serialize(program, allocator, &bytes,
                                            &length) == HRX_OK);
    hrx_fabric_launch_program_t* loaded = NULL;
    check(hrx_fabric_launch_program_load(bytes, length, allocator, &loaded) ==
          HRX_OK);
    uint64_t workload[8] = {1, 7, 64, 1000, 3, 0, 5, 2};
    size_t count = hrx_fabric_launch_program_workload_count(loaded);
    hrx_fabric_launch_config_t config =
        HRX_STRUCT_INIT(hrx_fabric_launch_config_t);
    if (count <= 8) {
      hrx_status_free(hrx_fabric_launch_program_evaluate(loaded, workload,
                                                         count, &config));
    }
    hrx_fabric_launch_program_destroy(loaded);
    free(bytes);
    hrx_loom_launch_program_destroy(program);
  }
  hrx_loom_specialization_destroy(spec);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hrx_allocator_t allocator = hrx_allocator_system();
  hrx_loom_diagnostics_t* diagnostics = NULL;
  if (hrx_loom_diagnostics_create(0, allocator, &diagnostics) != HRX_OK) {
    return 0;
  }
  hrx_loom_module_t* module = NULL;
  hrx_status_t status = hrx_loom_module_parse((const char*)data, size, NULL,
                                              diagnostics, allocator, &module);
  if (status == HRX_OK) {
    exercise(module);
  } else {
    /* Formatting walks every diagnostic's strings. */
    hrx_string_builder_t text;
    hrx_string_builder_init(allocator, &text);
    hrx_status_free(hrx_loom_diagnostics_format(diagnostics, &text));
    hrx_string_builder_deinit(&text);
    hrx_status_free(status);
  }
  hrx_loom_module_destroy(module);
  hrx_loom_diagnostics_destroy(diagnostics);
  return 0;
}
