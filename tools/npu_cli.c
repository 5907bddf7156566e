/* hrx doctor's NPU lines and hrx run of a .xdna image. */
#include "npu_cli.h"

#include <string.h>

#include "hrx_cli.h"

#define NPU_RUN_MAX_IMAGE_BYTES (256u << 20)
#define NPU_RUN_DEFAULT_TIMEOUT_S 60u
#define NS_PER_SECOND 1000000000ull

const char hrx_cli_npu_run_usage[] =
    "usage: hrx run IMAGE.xdna [options]\n"
    "  submits an entry of a prebuilt NPU image (profile " HRX_NPU_PROFILE
    ")\n"
    "  to the XDNA NPU 'hrx doctor' lists, with zeroed buffers of each\n"
    "  binding's smallest size, and waits for every invocation\n"
    "  --entry=NAME     the entry to run (default: the image's first)\n"
    "  --count=N        invocations, 1..1000000 (default 1)\n"
    "  --node=accelN    the accel node (default: the first accepted)\n"
    "  --timeout=S      how long each invocation may take (default 60)\n";

static void native_enumerate(void* context, hrx_npu_candidates_t* out) {
  (void)context;
  hrx_npu_enumerate(out);
}

static hrx_status_t native_open(void* context, const char* node,
                                hrx_npu_device_t** out_device) {
  (void)context;
  return hrx_npu_device_open(hrx_allocator_system(), node, out_device);
}

hrx_cli_npu_driver_t hrx_cli_npu_native(void) {
  return (hrx_cli_npu_driver_t){.enumerate = native_enumerate,
                                .open = native_open};
}

void hrx_cli_npu_doctor(const hrx_cli_npu_driver_t* driver, FILE* out) {
  hrx_npu_candidates_t candidates;
  driver->enumerate(driver->context, &candidates);
  if (candidates.count == 0) {
    fprintf(out, "  npu          no NPU: no /dev/accel node (the amdxdna "
                 "driver is not loaded, or this machine has no NPU)\n");
    return;
  }
  for (size_t i = 0; i < candidates.count; ++i) {
    const hrx_npu_candidate_t* c = &candidates.items[i];
    if (c->accepted) {
      fprintf(out,
              "  npu          %s: PCI %04x:%04x rev 0x%02x, driver %s "
              "(DRM %u.%u), AIE %u columns x %u rows: profile %s\n",
              c->node, c->vendor, c->device, c->revision, c->driver,
              c->drm_major, c->drm_minor, c->columns, c->rows,
              HRX_NPU_PROFILE);
    } else {
      fprintf(out, "  npu          %s: refused: %s\n", c->node, c->reason);
    }
  }
}

typedef struct npu_run_args_t {
  const char* image;
  const char* entry;
  const char* node;
  uint64_t count;
  uint64_t timeout_s;
} npu_run_args_t;

static int usage_error(FILE* err, const char* message, const char* arg) {
  fprintf(err, "hrx: run: %s%s%s\n", message, arg ? " " : "",
          arg ? arg : "");
  return HRX_EXIT_USAGE;
}

static int status_error(FILE* err, int code, hrx_status_t status) {
  char text[1024];
  hrx_status_format(status, text, sizeof(text));
  hrx_status_free(status);
  fprintf(err, "hrx: run: %s\n", text);
  return code;
}

static int parse_args(int argc, char** argv, npu_run_args_t* a, FILE* err) {
  *a = (npu_run_args_t){.count = 1, .timeout_s = NPU_RUN_DEFAULT_TIMEOUT_S};
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    hrx_status_t status = HRX_OK;
    if (!strncmp(arg, "--entry=", 8)) {
      a->entry = arg + 8;
    } else if (!strncmp(arg, "--node=", 7)) {
      a->node = arg + 7;
    } else if (!strncmp(arg, "--count=", 8)) {
      status = hrx_parse_u64(arg + 8, 1, 1000000, "--count", &a->count);
    } else if (!strncmp(arg, "--timeout=", 10)) {
      status = hrx_parse_u64(arg + 10, 1, UINT64_MAX / NS_PER_SECOND,
                             "--timeout", &a->timeout_s);
    } else if (!strncmp(arg, "--", 2) || a->image) {
      return usage_error(err, "unexpected argument", arg);
    } else {
      a->image = arg;
    }
    if (status != HRX_OK) return status_error(err, HRX_EXIT_USAGE, status);
  }
  if (!a->image) return usage_error(err, "missing IMAGE.xdna", NULL);
  return HRX_EXIT_OK;
}

typedef struct npu_run_t {
  hrx_npu_image_t* image;
  hrx_npu_device_t* device;
  hrx_npu_binding_t* bindings;
  size_t binding_count;
  hrx_npu_program_t* program;
} npu_run_t;

static void run_release(npu_run_t* r) {
  hrx_npu_program_destroy(r->program);
  for (size_t i = 0; r->bindings && i < r->binding_count; ++i) {
    hrx_npu_buffer_release(r->bindings[i].buffer);
  }
  hrx_allocator_free(hrx_allocator_system(), r->bindings);
  hrx_npu_device_destroy(r->device);
  hrx_npu_image_destroy(r->image);
}

/* Zeroed buffers of each binding's smallest size, bound from offset 0. */
static hrx_status_t make_bindings(npu_run_t* r, size_t entry) {
  hrx_npu_image_entry_t info;
  hrx_npu_image_entry(r->image, entry, &info);
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      hrx_allocator_system(), info.binding_count ? info.binding_count : 1,
      sizeof(*r->bindings), (void**)&r->bindings));
  for (size_t i = 0; i < info.binding_count; ++i) {
    hrx_npu_image_binding_t binding;
    hrx_npu_image_binding(r->image, entry, i, &binding);
    uint64_t size = binding.size_min ? binding.size_min : 1;
    HRX_RETURN_IF_ERROR(
        hrx_npu_buffer_allocate(r->device, size, &r->bindings[i].buffer));
    r->bindings[i].size = size;
    ++r->binding_count;
  }
  return HRX_OK;
}

/* Prepares the entry and runs it |a->count| times; the first failure
 * stops the run. */
static hrx_status_t run_image(const hrx_cli_npu_driver_t* driver,
                              const npu_run_args_t* a, npu_run_t* r,
                              FILE* out) {
  void* bytes = NULL;
  size_t length = 0;
  HRX_RETURN_IF_ERROR(hrx_file_read_all(hrx_allocator_system(), a->image,
                                        NPU_RUN_MAX_IMAGE_BYTES, &bytes,
                                        &length));
  hrx_status_t status =
      hrx_npu_image_parse(bytes, length, hrx_allocator_system(), &r->image);
  hrx_allocator_free(hrx_allocator_system(), bytes);
  HRX_RETURN_IF_ERROR(hrx_status_annotate(status, "%s", a->image));
  size_t entry = 0;
  if (a->entry) {
    HRX_RETURN_IF_ERROR(hrx_npu_image_find_entry(r->image, a->entry, &entry));
  }
  hrx_npu_image_entry_t info;
  hrx_npu_image_entry(r->image, entry, &info);
  HRX_RETURN_IF_ERROR(driver->open(driver->context, a->node, &r->device));
  HRX_RETURN_IF_ERROR(make_bindings(r, entry));
  HRX_RETURN_IF_ERROR(hrx_npu_program_prepare(r->device, r->image, info.name,
                                              r->bindings, r->binding_count,
                                              &r->program));
  uint64_t start = hrx_clock_monotonic_ns();
  for (uint64_t i = 0; i < a->count; ++i) {
    hrx_npu_invocation_t invocation;
    HRX_RETURN_IF_ERROR(hrx_npu_program_dispatch(r->program, &invocation));
    HRX_RETURN_IF_ERROR(hrx_npu_program_wait(
        r->program, invocation, a->timeout_s * NS_PER_SECOND));
  }
  uint64_t elapsed = hrx_clock_monotonic_ns() - start;
  fprintf(out,
          "hrx: ran entry '%s' of %s on %s: %llu invocation%s completed "
          "(%zu binding%s) in %.3f ms\n",
          info.name, a->image, hrx_npu_device_candidate(r->device)->node,
          (unsigned long long)a->count, a->count == 1 ? "" : "s",
          r->binding_count, r->binding_count == 1 ? "" : "s",
          (double)elapsed / 1e6);
  return HRX_OK;
}

int hrx_cli_npu_run(const hrx_cli_npu_driver_t* driver, int argc,
                    char** argv, FILE* out, FILE* err) {
  npu_run_args_t a;
  int code = parse_args(argc, argv, &a, err);
  if (code != HRX_EXIT_OK) return code;
  npu_run_t r = {0};
  hrx_status_t status = run_image(driver, &a, &r, out);
  run_release(&r);
  if (status != HRX_OK) return status_error(err, HRX_EXIT_FAILURE, status);
  return HRX_EXIT_OK;
}
