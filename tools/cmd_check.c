/* hrx check: run the check.case records of a Loom file on a device and
 * report each case's pass or first mismatching element. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/core/half.h"
#include "hrx/gpu.h"
#include "hrx_cli.h"

#define HRX_CHECK_MAX_ARGS 64
#define HRX_CHECK_TIMEOUT_NS (600ull * 1000000000ull)

typedef struct check_args_t {
  const char* input;
  uint64_t device;
} check_args_t;

/* Where the runner keeps the values of one case: a device buffer for each
 * tensor, the bits of each scalar. */
typedef struct check_slot_t {
  hrx_gpu_buffer_t* buffer;
  uint64_t scalar;
} check_slot_t;

typedef struct check_run_t {
  hrx_gpu_device_t* device;
  hrx_gpu_stream_t* stream;
  const uint8_t* code; /* NULL when the file defines no kernel */
  size_t code_length;
} check_run_t;

static int parse_args(int argc, char** argv, check_args_t* a) {
  for (int i = 1; i < argc; ++i) {
    const char* v = NULL;
    if (hrx_cli_option(argv[i], "--device", &v)) {
      hrx_status_t status =
          hrx_parse_u64(v, 0, UINT32_MAX, "--device index", &a->device);
      if (status != HRX_OK) return hrx_cli_usage_status("check", status);
    } else if (argv[i][0] == '-') {
      return hrx_cli_usage_error("check", "unknown option '%s'", argv[i]);
    } else if (a->input) {
      return hrx_cli_usage_error("check", "more than one input file");
    } else {
      a->input = argv[i];
    }
  }
  if (!a->input) return hrx_cli_usage_error("check", "missing FILE.loom");
  size_t count = hrx_gpu_device_count();
  if (a->device >= count) {
    return hrx_cli_usage_error("check", "bad --device=%llu: there %s %zu "
                               "device%s (see 'hrx doctor')",
                               (unsigned long long)a->device,
                               count == 1 ? "is" : "are", count,
                               count == 1 ? "" : "s");
  }
  return HRX_EXIT_OK;
}

static size_t element_size(hrx_loom_arg_type_t type) {
  static const uint8_t sizes[] = {
      [HRX_LOOM_ARG_INDEX] = 8, [HRX_LOOM_ARG_OFFSET] = 8,
      [HRX_LOOM_ARG_I1] = 1,    [HRX_LOOM_ARG_I8] = 1,
      [HRX_LOOM_ARG_I16] = 2,   [HRX_LOOM_ARG_I32] = 4,
      [HRX_LOOM_ARG_I64] = 8,   [HRX_LOOM_ARG_F16] = 2,
      [HRX_LOOM_ARG_BF16] = 2,  [HRX_LOOM_ARG_F32] = 4,
      [HRX_LOOM_ARG_F64] = 8};
  return sizes[type];
}

static bool is_float(hrx_loom_arg_type_t type) {
  return type >= HRX_LOOM_ARG_F16 && type <= HRX_LOOM_ARG_F64;
}

static hrx_status_t make_slot(const check_run_t* run,
                              const hrx_loom_check_value_t* v,
                              check_slot_t* slot) {
  if (!v->rank) {
    slot->scalar = hrx_loom_check_value_bits(v, 0);
    return HRX_OK;
  }
  size_t size = element_size(v->element);
  /* A buffer is never empty; a zero-element tensor gets one spare. */
  uint64_t bytes = (v->element_count ? v->element_count : 1) * size;
  HRX_RETURN_IF_ERROR(hrx_gpu_stream_allocate(run->stream, bytes,
                                              &slot->buffer));
  uint8_t* data = hrx_gpu_buffer_host_pointer(slot->buffer);
  for (uint64_t k = 0; k < v->element_count; ++k) {
    uint64_t bits = hrx_loom_check_value_bits(v, k);
    memcpy(data + k * size, &bits, size);
  }
  return HRX_OK;
}

static hrx_status_t launch(const check_run_t* run,
                           const hrx_loom_check_case_t* c,
                           const hrx_loom_check_step_t* step,
                           check_slot_t* slots) {
  if (!run->code) {
    return hrx_make_status(HRX_STATUS_NOT_FOUND, "the file defines no "
                           "kernel to launch ('%s')", step->kernel);
  }
  if (step->workload_count > HRX_CHECK_MAX_ARGS ||
      step->arg_count > HRX_CHECK_MAX_ARGS) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED, "more than %d launch "
                           "values", HRX_CHECK_MAX_ARGS);
  }
  uint64_t workload[HRX_CHECK_MAX_ARGS];
  for (size_t i = 0; i < step->workload_count; ++i) {
    const hrx_loom_check_value_t* v = &c->values[step->workload[i]];
    if (v->rank || v->value.i < 0) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "workload value "
                             "%%%s is not a count", v->name);
    }
    workload[i] = (uint64_t)v->value.i;
  }
  hrx_gpu_arg_t args[HRX_CHECK_MAX_ARGS];
  for (size_t i = 0; i < step->arg_count; ++i) {
    check_slot_t* slot = &slots[step->args[i]];
    args[i] = slot->buffer
                  ? hrx_gpu_arg_binding(hrx_gpu_buffer_binding(slot->buffer),
                                        HRX_GPU_ACCESS_READ_WRITE)
                  : hrx_gpu_arg_scalar(slot->scalar);
  }
  hrx_gpu_kernel_t* kernel = NULL;
  HRX_RETURN_IF_ERROR(hrx_gpu_kernel_load(run->device, run->code,
                                          run->code_length, step->kernel,
                                          &kernel));
  hrx_gpu_launch_t request = {workload, step->workload_count, args,
                              step->arg_count};
  hrx_status_t status = hrx_gpu_stream_dispatch(run->stream, kernel, &request);
  if (status == HRX_OK) {
    status = hrx_gpu_stream_synchronize(run->stream, HRX_CHECK_TIMEOUT_NS);
    if (status != HRX_OK) hrx_gpu_stream_cancel(run->stream);
  }
  hrx_gpu_kernel_release(kernel);
  return status;
}

/* One element read back: its bits, and its number as a double (floats)
 * or a sign-extended integer. */
typedef struct element_t {
  uint64_t bits;
  double f;
  int64_t i;
} element_t;

static element_t load_element(hrx_loom_arg_type_t type, const uint8_t* data,
                              uint64_t k) {
  size_t size = element_size(type);
  element_t e = {0};
  memcpy(&e.bits, data + k * size, size);
  unsigned shift = 64 - 8 * (unsigned)size;
  e.i = (int64_t)(e.bits << shift) >> shift;
  uint32_t f32 = (uint32_t)e.bits;
  if (type == HRX_LOOM_ARG_F16) f32 = hrx_f16_to_f32_bits((uint16_t)e.bits);
  if (type == HRX_LOOM_ARG_BF16) f32 = hrx_bf16_to_f32_bits((uint16_t)e.bits);
  if (type == HRX_LOOM_ARG_F64) {
    memcpy(&e.f, &e.bits, 8);
  } else {
    float f;
    memcpy(&f, &f32, 4);
    e.f = f;
  }
  return e;
}

static bool element_matches(const hrx_loom_check_step_t* step,
                            hrx_loom_arg_type_t type, element_t got,
                            element_t want) {
  if (step->expect == HRX_LOOM_CHECK_EXPECT_BITWISE) {
    return got.bits == want.bits;
  }
  if (!is_float(type)) return got.i == want.i;
  if (isnan(got.f) || isnan(want.f)) {
    return isnan(got.f) && isnan(want.f) &&
           (step->expect == HRX_LOOM_CHECK_EXPECT_EQUAL || step->nan_same);
  }
  if (step->expect == HRX_LOOM_CHECK_EXPECT_EQUAL || isinf(want.f)) {
    return got.f == want.f;
  }
  return fabs(got.f - want.f) <= step->atol + step->rtol * fabs(want.f);
}

static void format_element(const hrx_loom_check_step_t* step,
                           hrx_loom_arg_type_t type, element_t e, char* out,
                           size_t size) {
  if (step->expect == HRX_LOOM_CHECK_EXPECT_BITWISE) {
    snprintf(out, size, "0x%llx", (unsigned long long)e.bits);
  } else if (is_float(type)) {
    snprintf(out, size, "%.9g", e.f);
  } else {
    snprintf(out, size, "%lld", (long long)e.i);
  }
}

static const uint8_t* slot_data(const check_slot_t* slot) {
  return slot->buffer ? hrx_gpu_buffer_host_pointer(slot->buffer)
                      : (const uint8_t*)&slot->scalar;
}

/* False, with FAIL's reason in |reason|, when an element differs. */
static bool compare(const hrx_loom_check_case_t* c,
                    const hrx_loom_check_step_t* step,
                    const check_slot_t* slots, char* reason, size_t size) {
  const hrx_loom_check_value_t* actual = &c->values[step->actual];
  const hrx_loom_check_value_t* expected = &c->values[step->expected];
  hrx_loom_arg_type_t type = actual->element;
  const uint8_t* got_data = slot_data(&slots[step->actual]);
  const uint8_t* want_data = slot_data(&slots[step->expected]);
  for (uint64_t k = 0; k < actual->element_count; ++k) {
    element_t got = load_element(type, got_data, k);
    element_t want = load_element(type, want_data, k);
    if (element_matches(step, type, got, want)) continue;
    char got_text[32], want_text[32], tolerance[96];
    format_element(step, type, got, got_text, sizeof(got_text));
    format_element(step, type, want, want_text, sizeof(want_text));
    if (step->expect == HRX_LOOM_CHECK_EXPECT_CLOSE) {
      snprintf(tolerance, sizeof(tolerance), "close: atol %g, rtol %g, "
               "nan %s", step->atol, step->rtol,
               step->nan_same ? "same" : "different");
    } else {
      snprintf(tolerance, sizeof(tolerance), "%s",
               step->expect == HRX_LOOM_CHECK_EXPECT_EQUAL ? "equal"
                                                           : "bitwise");
    }
    snprintf(reason, size, "element %llu: got %s, expected %s (%%%s vs "
             "%%%s, %s)", (unsigned long long)k, got_text, want_text,
             actual->name, expected->name, tolerance);
    return false;
  }
  return true;
}

/* Runs case |index|; prints its line and returns whether it passed. */
static bool run_case(const check_run_t* run, const hrx_loom_module_t* module,
                     size_t index, const char* name) {
  hrx_allocator_t allocator = hrx_allocator_system();
  hrx_loom_check_case_t* c = NULL;
  check_slot_t* slots = NULL;
  hrx_status_t status =
      hrx_loom_check_case_describe(module, index, allocator, &c);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(allocator, c->value_count,
                                        sizeof(*slots), (void**)&slots);
  }
  for (size_t v = 0; status == HRX_OK && v < c->value_count; ++v) {
    status = make_slot(run, &c->values[v], &slots[v]);
  }
  char reason[512] = "";
  bool matched = true;
  for (size_t s = 0; status == HRX_OK && matched && s < c->step_count; ++s) {
    const hrx_loom_check_step_t* step = &c->steps[s];
    if (step->kind == HRX_LOOM_CHECK_STEP_LAUNCH) {
      status = launch(run, c, step, slots);
    } else {
      matched = compare(c, step, slots, reason, sizeof(reason));
    }
  }
  if (status != HRX_OK) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    hrx_status_free(status);
    printf("FAIL %s: %s\n", name, text);
  } else if (!matched) {
    printf("FAIL %s: %s\n", name, reason);
  } else {
    printf("PASS %s\n", name);
  }
  bool passed = status == HRX_OK && matched;
  for (size_t v = 0; slots && v < c->value_count; ++v) {
    if (slots[v].buffer) hrx_gpu_buffer_release(slots[v].buffer);
  }
  hrx_allocator_free(allocator, slots);
  hrx_loom_check_case_destroy(c);
  return passed;
}

/* Prints |status| and frees it; HRX_EXIT_USAGE, as nothing could run:
 * exit 1 stays the answer that a case failed. */
static int cannot_check(hrx_status_t status) {
  char text[1024];
  hrx_status_format(status, text, sizeof(text));
  hrx_status_free(status);
  fprintf(stderr, "hrx: check: %s\n", text);
  return HRX_EXIT_USAGE;
}

/* Parses |source| and compiles its kernels for the device's profile
 * target; false (after printing why) on a usage or compile error. */
static bool compile_file(const check_args_t* a, const char* source,
                         size_t length, const char* profile,
                         hrx_loom_module_t** out_module,
                         hrx_loom_artifact_t** out_artifact) {
  hrx_allocator_t allocator = hrx_allocator_system();
  hrx_loom_diagnostics_t* diagnostics = NULL;
  hrx_loom_compiler_t* compiler = NULL;
  hrx_status_t status = hrx_loom_diagnostics_create(0, allocator,
                                                    &diagnostics);
  hrx_loom_parse_options_t options = HRX_STRUCT_INIT(hrx_loom_parse_options_t);
  options.source_name = a->input;
  if (status == HRX_OK) {
    status = hrx_loom_module_parse(source, length, &options, diagnostics,
                                   allocator, out_module);
  }
  if (status == HRX_OK && hrx_loom_module_kernel_count(*out_module)) {
    hrx_loom_compiler_options_t compiler_options =
        HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
    status = hrx_loom_compiler_create(profile, &compiler_options, allocator,
                                      &compiler);
    hrx_loom_compile_request_t request = {
        .source = source, .length = length, .source_name = a->input};
    if (status == HRX_OK) {
      status = hrx_loom_compile(compiler, &request, diagnostics, out_artifact);
    }
  }
  if (diagnostics) hrx_cli_print_diagnostics(diagnostics);
  hrx_loom_compiler_destroy(compiler);
  hrx_loom_diagnostics_destroy(diagnostics);
  if (status == HRX_OK) return true;
  cannot_check(status);
  return false;
}

/* Runs every case in order; scenarios and benchmarks are listed only. */
static int run_checks(const check_run_t* run,
                      const hrx_loom_module_t* module) {
  size_t passed = 0, failed = 0, listed = 0;
  size_t count = hrx_loom_module_check_count(module);
  for (size_t i = 0; i < count; ++i) {
    hrx_loom_check_info_t info = HRX_STRUCT_INIT(hrx_loom_check_info_t);
    hrx_status_t status = hrx_loom_module_check_info(module, i, &info);
    if (status != HRX_OK) return hrx_cli_fail("check", status);
    if (info.kind == HRX_LOOM_CHECK_CASE) {
      if (run_case(run, module, i, info.name)) {
        ++passed;
      } else {
        ++failed;
      }
    } else if (info.kind == HRX_LOOM_CHECK_SCENARIO) {
      printf("NOT RUN %s (check.scenario)\n", info.name);
      ++listed;
    } else {
      printf("NOT RUN %s (check.benchmark of @%s)\n", info.name,
             info.subject);
      ++listed;
    }
  }
  printf("%zu passed, %zu failed, %zu not run\n", passed, failed, listed);
  return failed ? HRX_EXIT_FAILURE : HRX_EXIT_OK;
}

int hrx_cmd_check(int argc, char** argv) {
  check_args_t a = {0};
  int rc = parse_args(argc, argv, &a);
  if (rc != HRX_EXIT_OK) return rc;
  hrx_allocator_t allocator = hrx_allocator_system();
  void* source = NULL;
  size_t length = 0;
  hrx_status_t status =
      hrx_file_read_all(allocator, a.input, 64u << 20, &source, &length);
  if (status != HRX_OK) return cannot_check(status);
  check_run_t run = {0};
  status = hrx_gpu_device_open((size_t)a.device, allocator, &run.device);
  if (status == HRX_OK) status = hrx_gpu_stream_create(run.device, &run.stream);
  hrx_loom_module_t* module = NULL;
  hrx_loom_artifact_t* artifact = NULL;
  if (status != HRX_OK) {
    rc = cannot_check(hrx_status_annotate(status, "opening device %llu",
                                          (unsigned long long)a.device));
  } else if (!compile_file(&a, source, length,
                           hrx_gpu_device_properties(run.device)
                               ->profile_target,
                           &module, &artifact)) {
    rc = HRX_EXIT_USAGE;
  } else {
    if (artifact) run.code = hrx_loom_artifact_code(artifact, &run.code_length);
    rc = run_checks(&run, module);
  }
  hrx_loom_artifact_destroy(artifact);
  hrx_loom_module_destroy(module);
  hrx_gpu_stream_destroy(run.stream);
  hrx_gpu_device_release(run.device);
  hrx_allocator_free(allocator, source);
  return rc;
}
