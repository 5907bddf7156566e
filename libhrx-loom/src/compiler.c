/* The compiler service: host and amdgpu compilation behind a
 * content-addressed, process-shared artifact cache. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hrx/core/bytes.h"
#include "hrx/loom.h"
#include "hrx/fabric/host_isa.h"
#include "hrx/fabric/host_native.h"
#include "hrx/loom/compiler.h"
#include "host_native.h"
#include "ir.h"
#include "loom_identity.h"
#if HRX_LOOM_HAVE_LLVM
#include "amdgpu_backend.h"
#include "amdgpu_elf.h"
#endif

/* The front end checks the code object's limits up front. */
_Static_assert(HRX_LOOM_MAX_KERNELS == HRX_HOST_MAX_KERNELS,
               "module kernel limit differs from the code object's");
_Static_assert(HRX_LOOM_MAX_KERNEL_NAME == HRX_HOST_MAX_KERNEL_NAME,
               "kernel name limit differs from the code object's");

#define HRX_LOOM_KEY_FORMAT "hrx-loom-artifact-v1"
#define HRX_LOOM_MAX_ARTIFACT (256u << 20)

struct hrx_loom_compiler_s {
  hrx_allocator_t allocator;
  hrx_loom_profile_t profile;
  /* The code generator's version when it lives outside this binary (the
   * LLVM library for amdgpu profiles), else NULL. */
  const char* codegen;
  hrx_loom_compiler_options_t options;
  char identity[HRX_SHA256_HEX_SIZE];
  char* kernels_dir; /* <cache root>/kernels, or NULL without a cache */
  /* Set by the first compile that finds the cache unwritable, so a
   * read-only cache is reported once per compiler, not once per kernel. */
  atomic_bool cache_warned;
};

typedef struct hrx_loom_export_t {
  char* name;
  size_t launch_offset, launch_length; /* within the code object */
} hrx_loom_export_t;

struct hrx_loom_artifact_s {
  hrx_allocator_t allocator;
  uint8_t* code;
  size_t code_length;
  char* manifest;
  char key[HRX_SHA256_HEX_SIZE];
  bool cache_hit;
  hrx_loom_export_t* exports;
  size_t export_count;
};

/*===------------------------------------------------------------------===*/
/* Options and identity                                                    */
/*===------------------------------------------------------------------===*/

hrx_status_t hrx_loom_sanitizers_parse(const char* text, uint32_t* out_bits) {
  static const struct {
    const char* name;
    uint32_t bit;
  } names[] = {{"access", HRX_LOOM_SANITIZE_ACCESS},
               {"value", HRX_LOOM_SANITIZE_VALUE},
               {"operation", HRX_LOOM_SANITIZE_OPERATION},
               {"race", HRX_LOOM_SANITIZE_RACE}};
  *out_bits = 0;
  const char* at = text ? text : "";
  while (*at) {
    size_t length = strcspn(at, ",");
    bool found = false;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
      if (strlen(names[i].name) == length &&
          memcmp(names[i].name, at, length) == 0) {
        *out_bits |= names[i].bit;
        found = true;
      }
    }
    if (!found) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "unknown sanitizer '%.*s' (expected access, "
                             "value, operation or race)", (int)length, at);
    }
    at += length;
    if (*at == ',') ++at;
  }
  return HRX_OK;
}

#if HRX_LOOM_HAVE_LLVM
#define HRX_LOOM_PROFILES "host, gfx1151"
#else
#define HRX_LOOM_PROFILES "host"
#endif

/* The profile named |name|, refused before any code generator sees it:
 * an unknown processor aborts LLVM. */
static hrx_status_t hrx_loom_profile_select(const char* name,
                                            hrx_loom_profile_t* out_profile,
                                            const char** out_codegen) {
  *out_codegen = NULL;
  hrx_target_t target;
  HRX_RETURN_IF_ERROR(hrx_target_parse(name, &target));
  name = target.name;
  if (target.kind == HRX_TARGET_HOST) {
    *out_profile = hrx_loom_profile_host();
    return HRX_OK;
  }
  if (!strcmp(name, "gfx1151")) {
#if HRX_LOOM_HAVE_LLVM
    *out_profile = hrx_loom_profile_gfx1151();
    *out_codegen = loom_amdgpu_codegen_version();
    return HRX_OK;
#else
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "no compiler backend for target '%s' in this "
                           "build: the amdgpu backend needs LLVM 19 "
                           "(configure with -Dllvm=enabled)", name);
#endif
  }
  return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                         "no compiler backend for target '%s' in this build "
                         "(available: " HRX_LOOM_PROFILES ")", name);
}

hrx_status_t hrx_loom_compiler_create(
    const char* profile_target, const hrx_loom_compiler_options_t* caller_opts,
    hrx_allocator_t allocator, hrx_loom_compiler_t** out_compiler) {
  *out_compiler = NULL;
  hrx_loom_compiler_options_t local_opts;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_loom_compiler_options_t, logger,
                                      caller_opts, &local_opts));
  const hrx_loom_compiler_options_t* opts = &local_opts;
  hrx_loom_profile_t profile;
  const char* codegen = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_loom_profile_select(profile_target, &profile, &codegen));
  if (codegen && opts->sanitizers) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "sanitizers run on the host device only; '%s' "
                           "code is compiled without them", profile_target);
  }
  hrx_loom_compiler_t* c = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*c), (void**)&c));
  c->allocator = allocator;
  c->profile = profile;
  c->codegen = codegen;
  c->options = *opts;
  hrx_trace_retain(c->options.trace);
  if (!c->options.logger.sink) c->options.logger = hrx_logger_from_env();
  if (!c->options.workers) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    c->options.workers = cpus > 4 ? 4 : cpus > 0 ? (uint32_t)cpus : 1;
  }
  _Static_assert(sizeof(HRX_LOOM_SOURCE_IDENTITY) == sizeof(c->identity),
                 "the identity is a SHA-256 in hex");
  memcpy(c->identity, HRX_LOOM_SOURCE_IDENTITY, sizeof(c->identity));
  hrx_status_t status = HRX_OK;
  if (!c->options.disable_cache) {
    char* root = NULL;
    if (c->options.cache_root) {
      status = hrx_allocator_strdup(allocator, c->options.cache_root, &root);
    } else {
      status = hrx_path_cache_root(allocator, &root, NULL);
    }
    if (status == HRX_OK) {
      status = hrx_path_join(allocator, root, "kernels", &c->kernels_dir);
    }
    hrx_allocator_free(allocator, root);
    c->options.cache_root = NULL; /* borrowed text no longer needed */
  }
  if (status != HRX_OK) {
    hrx_loom_compiler_destroy(c);
    return status;
  }
  *out_compiler = c;
  return HRX_OK;
}

void hrx_loom_compiler_destroy(hrx_loom_compiler_t* compiler) {
  if (!compiler) return;
  hrx_trace_release(compiler->options.trace);
  hrx_allocator_free(compiler->allocator, compiler->kernels_dir);
  hrx_allocator_free(compiler->allocator, compiler);
}

const char* hrx_loom_compiler_identity(const hrx_loom_compiler_t* compiler) {
  return compiler->identity;
}

/*===------------------------------------------------------------------===*/
/* Artifacts                                                               */
/*===------------------------------------------------------------------===*/

void hrx_loom_artifact_destroy(hrx_loom_artifact_t* a) {
  if (!a) return;
  for (size_t i = 0; i < a->export_count; ++i) {
    hrx_allocator_free(a->allocator, a->exports[i].name);
  }
  hrx_allocator_free(a->allocator, a->exports);
  hrx_allocator_free(a->allocator, a->code);
  hrx_allocator_free(a->allocator, a->manifest);
  hrx_allocator_free(a->allocator, a);
}

const uint8_t* hrx_loom_artifact_code(const hrx_loom_artifact_t* a,
                                      size_t* out_length) {
  *out_length = a->code_length;
  return a->code;
}

const char* hrx_loom_artifact_manifest(const hrx_loom_artifact_t* a) {
  return a->manifest;
}

const char* hrx_loom_artifact_key(const hrx_loom_artifact_t* a) {
  return a->key;
}

bool hrx_loom_artifact_cache_hit(const hrx_loom_artifact_t* a) {
  return a->cache_hit;
}

hrx_status_t hrx_loom_artifact_launch_program(const hrx_loom_artifact_t* a,
                                              const char* symbol,
                                              const uint8_t** out_bytes,
                                              size_t* out_length) {
  for (size_t i = 0; symbol && i < a->export_count; ++i) {
    if (strcmp(a->exports[i].name, symbol) == 0) {
      *out_bytes = a->code + a->exports[i].launch_offset;
      *out_length = a->exports[i].launch_length;
      return HRX_OK;
    }
  }
  return hrx_make_status(HRX_STATUS_NOT_FOUND,
                         "artifact has no export named \"%s\"",
                         symbol ? symbol : "(null)");
}

/* Checks the frame of a host code object: long enough for its header and
 * trailer, the right magic and version, and a trailer that is the SHA-256
 * of everything before it. A cache entry's recorded digests only prove
 * that the files are the ones written, not that what was written is a
 * code object, so nothing is indexed before this holds. */
static hrx_status_t hrx_loom_code_check(const uint8_t* code, size_t length) {
  const size_t header = 12; /* magic, version, kernel count */
  if (length < header + HRX_SHA256_DIGEST_SIZE) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "artifact code object is %zu bytes, shorter than "
                           "its header and trailer", length);
  }
  const uint8_t* at = code + 4;
  if (memcmp(code, HRX_HOST_CODE_MAGIC, 4) != 0 ||
      hrx_get_le(&at, 4) != HRX_HOST_CODE_VERSION) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "artifact is not a version %u host code object",
                           HRX_HOST_CODE_VERSION);
  }
  size_t body = length - HRX_SHA256_DIGEST_SIZE;
  hrx_sha256_digest_t digest;
  hrx_sha256(code, body, &digest);
  if (memcmp(digest.bytes, code + body, HRX_SHA256_DIGEST_SIZE) != 0) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "artifact code object fails its trailer digest");
  }
  return HRX_OK;
}

/* Walks the kernel table of a host code object whose frame
 * hrx_loom_code_check accepted, to find each kernel's launch program. */
static hrx_status_t hrx_loom_index_host(hrx_loom_artifact_t* a) {
  HRX_RETURN_IF_ERROR(hrx_loom_code_check(a->code, a->code_length));
  const uint8_t* at = a->code + 8;
  const uint8_t* end = a->code + a->code_length - HRX_SHA256_DIGEST_SIZE;
#define NEED(n)                                                          \
  do {                                                                   \
    if ((size_t)(end - at) < (size_t)(n)) {                              \
      return hrx_make_status(HRX_STATUS_DATA_LOSS,                       \
                             "artifact code object is malformed");      \
    }                                                                    \
  } while (0)
  NEED(4);
  uint32_t count = (uint32_t)hrx_get_le(&at, 4);
  if (count > HRX_HOST_MAX_KERNELS) NEED(SIZE_MAX);
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      a->allocator, count ? count : 1, sizeof(hrx_loom_export_t),
      (void**)&a->exports));
  for (uint32_t k = 0; k < count; ++k) {
    NEED(4);
    uint32_t name_length = (uint32_t)hrx_get_le(&at, 4);
    NEED(name_length);
    hrx_loom_export_t* e = &a->exports[a->export_count];
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_uninitialized(
        a->allocator, name_length + 1, (void**)&e->name));
    memcpy(e->name, at, name_length);
    e->name[name_length] = '\0';
    a->export_count++;
    at += name_length;
    NEED(HRX_HOST_KERNEL_HEADER_WORDS * 4);
    at += (HRX_HOST_KERNEL_HEADER_WORDS - 1) * 4; /* to arg_count */
    uint32_t args = (uint32_t)hrx_get_le(&at, 4);
    NEED((uint64_t)args * 8 + 4);
    at += (size_t)args * 8;
    uint32_t consts = (uint32_t)hrx_get_le(&at, 4);
    NEED((uint64_t)consts * 8 + 4);
    at += (size_t)consts * 8;
    uint32_t insns = (uint32_t)hrx_get_le(&at, 4);
    NEED((uint64_t)insns * 16 + 4);
    at += (size_t)insns * 16;
    uint32_t launch = (uint32_t)hrx_get_le(&at, 4);
    NEED(launch);
    e->launch_offset = (size_t)(at - a->code);
    e->launch_length = launch;
    at += launch;
  }
  if (at != end && end - at >= 4 && !memcmp(at, HRX_HOST_NATIVE_MAGIC, 4)) {
    HRX_RETURN_IF_ERROR(loom_host_native_skip(at, end, count, &at));
  }
  if (at != end) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "artifact code object has %zu bytes after its "
                           "last kernel", (size_t)(end - at));
  }
#undef NEED
  return HRX_OK;
}

#if HRX_LOOM_HAVE_LLVM
/* Checks an AMDGPU object's ELF header (processor, ABI version) and finds
 * each kernel's launch program in its launch table. */
static hrx_status_t hrx_loom_index_amdgpu(const hrx_loom_compiler_t* c,
                                          hrx_loom_artifact_t* a) {
  loom_launch_table_t table;
  HRX_RETURN_IF_ERROR(loom_amdgpu_object_open(
      a->code, a->code_length, loom_amdgpu_isa(c->profile.name), &table));
  if (table.remaining > HRX_LOOM_MAX_KERNELS) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "code object lists %u kernels", table.remaining);
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      a->allocator, table.remaining ? table.remaining : 1,
      sizeof(hrx_loom_export_t), (void**)&a->exports));
  while (table.remaining) {
    loom_launch_entry_t entry;
    HRX_RETURN_IF_ERROR(loom_launch_table_next(&table, &entry));
    hrx_loom_export_t* e = &a->exports[a->export_count];
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_uninitialized(
        a->allocator, entry.name_length + 1, (void**)&e->name));
    memcpy(e->name, entry.name, entry.name_length);
    e->name[entry.name_length] = '\0';
    e->launch_offset = entry.launch_offset;
    e->launch_length = entry.launch_length;
    a->export_count++;
  }
  return HRX_OK;
}
#endif

static hrx_status_t hrx_loom_index_exports(const hrx_loom_compiler_t* c,
                                           hrx_loom_artifact_t* a) {
#if HRX_LOOM_HAVE_LLVM
  if (c->codegen) return hrx_loom_index_amdgpu(c, a);
#else
  (void)c;
#endif
  return hrx_loom_index_host(a);
}

/*===------------------------------------------------------------------===*/
/* Manifest                                                                */
/*===------------------------------------------------------------------===*/

static hrx_status_t hrx_loom_manifest_args(hrx_string_builder_t* b,
                                           const hrx_loom_module_t* module,
                                           size_t kernel, bool launch,
                                           size_t count) {
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(b, "["));
  for (size_t a = 0; a < count; ++a) {
    hrx_loom_arg_info_t arg = HRX_STRUCT_INIT(hrx_loom_arg_info_t);
    HRX_RETURN_IF_ERROR(
        hrx_loom_module_kernel_arg(module, kernel, launch, a, &arg));
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
        b, "%s{\"name\":", a ? "," : ""));
    HRX_RETURN_IF_ERROR(hrx_string_builder_append_json_string(
        b, arg.name, strlen(arg.name)));
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
        b, ",\"type\":\"%s\"}", hrx_loom_arg_type_name(arg.type)));
  }
  return hrx_string_builder_append_cstr(b, "]");
}

/* What code generation decided about a kernel beyond its signature (the
 * amdgpu kernarg layout), or nothing for host code. */
typedef struct hrx_loom_code_info_t {
#if HRX_LOOM_HAVE_LLVM
  const loom_amdgpu_output_t* amdgpu;
#else
  int unused;
#endif
} hrx_loom_code_info_t;

#if HRX_LOOM_HAVE_LLVM
/* The kernel's amdgpu facts, as its metadata note states them. */
static hrx_status_t hrx_loom_manifest_amdgpu(hrx_string_builder_t* b,
                                             const char* name,
                                             const loom_amdgpu_kernel_t* k) {
  HRX_RETURN_IF_ERROR(
      hrx_string_builder_append_cstr(b, ",\"amdgpu\":{\"descriptor\":"));
  char descriptor[HRX_LOOM_MAX_KERNEL_NAME + 8];
  int length = snprintf(descriptor, sizeof(descriptor), "%s.kd", name);
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_json_string(
      b, descriptor, (size_t)length < sizeof(descriptor)
                         ? (size_t)length : sizeof(descriptor) - 1));
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      b, ",\"kernarg_size\":%u,\"group_segment_size\":%u,"
         "\"wavefront_size\":%u,\"max_flat_workgroup_size\":%u,"
         "\"arguments\":[",
      k->kernarg_size, k->group_segment_size, k->wavefront_size,
      k->max_flat_workgroup_size));
  for (uint32_t a = 0; a < k->arg_count; ++a) {
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
        b, "%s{\"offset\":%u,\"size\":%u,\"kind\":\"%s\"}", a ? "," : "",
        k->args[a].offset, k->args[a].size,
        k->args[a].buffer ? "global_buffer" : "by_value"));
  }
  return hrx_string_builder_append_cstr(b, "]}");
}
#endif

static hrx_status_t hrx_loom_manifest(const hrx_loom_compiler_t* c,
                                      const hrx_loom_module_t* module,
                                      const hrx_loom_compile_request_t* r,
                                      const char* source_hex,
                                      const char* canonical,
                                      const hrx_loom_artifact_t* a,
                                      const hrx_loom_code_info_t* code,
                                      hrx_string_builder_t* b) {
  const char* name = r->source_name ? r->source_name : "<input>";
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      b,
      "{\"format\":\"hrx-artifact-manifest-v1\",\"key\":\"%s\","
      "\"compiler\":{\"identity\":\"%s\",\"version\":\"%s\"},"
      "\"profile_target\":\"%s\",\"source\":{\"name\":",
      a->key, c->identity, hrx_loom_version(), c->profile.name));
  HRX_RETURN_IF_ERROR(
      hrx_string_builder_append_json_string(b, name, strlen(name)));
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      b, ",\"sha256\":\"%s\"},\"config\":", source_hex));
  HRX_RETURN_IF_ERROR(
      hrx_string_builder_append_json_string(b, canonical, strlen(canonical)));
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      b, ",\"sanitizers\":%u,\"kernels\":[", c->options.sanitizers));
  for (size_t k = 0; k < hrx_loom_module_kernel_count(module); ++k) {
    hrx_loom_kernel_info_t info = HRX_STRUCT_INIT(hrx_loom_kernel_info_t);
    HRX_RETURN_IF_ERROR(hrx_loom_module_kernel_info(module, k, &info));
    const char* exported = info.export_name ? info.export_name : info.symbol;
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(b, "%s{\"symbol\":",
                                                   k ? "," : ""));
    HRX_RETURN_IF_ERROR(hrx_string_builder_append_json_string(
        b, info.symbol, strlen(info.symbol)));
    HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(b, ",\"export\":"));
    HRX_RETURN_IF_ERROR(
        hrx_string_builder_append_json_string(b, exported, strlen(exported)));
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
        b, ",\"source_target\":\"%s\",\"subgroup_size\":%u,\"workload\":",
        info.target_kind ? info.target_kind : "", info.subgroup_size
                                                      ? info.subgroup_size
                                                      : c->profile.subgroup_size));
    HRX_RETURN_IF_ERROR(hrx_loom_manifest_args(b, module, k, false,
                                               info.workload_arg_count));
    HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(b, ",\"arguments\":"));
    HRX_RETURN_IF_ERROR(hrx_loom_manifest_args(b, module, k, true,
                                               info.launch_arg_count));
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
        b, ",\"launch_program_bytes\":%zu",
        k < a->export_count ? a->exports[k].launch_length : 0));
#if HRX_LOOM_HAVE_LLVM
    if (code->amdgpu && k < code->amdgpu->kernel_count) {
      HRX_RETURN_IF_ERROR(hrx_loom_manifest_amdgpu(
          b, exported, &code->amdgpu->kernels[k]));
    }
#else
    (void)code;
#endif
    HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(b, "}"));
  }
  return hrx_string_builder_append_cstr(b, "]}\n");
}

/*===------------------------------------------------------------------===*/
/* Cache                                                                   */
/*===------------------------------------------------------------------===*/

static char* hrx_loom_entry_path(const hrx_loom_compiler_t* c,
                                 const char* key, const char* leaf) {
  char* path = NULL;
  size_t length = strlen(c->kernels_dir) + strlen(key) + strlen(leaf) + 3;
  if (hrx_allocator_malloc_uninitialized(c->allocator, length,
                                         (void**)&path) != HRX_OK) {
    return NULL;
  }
  snprintf(path, length, "%s/%s%s%s", c->kernels_dir, key, leaf[0] ? "/" : "",
           leaf);
  return path;
}

/* Reads and verifies entry |key|; NOT_FOUND when absent, DATA_LOSS when
 * present but corrupt. */
static hrx_status_t hrx_loom_cache_read(const hrx_loom_compiler_t* c,
                                        const char* key,
                                        hrx_loom_artifact_t* a) {
  char* code_path = hrx_loom_entry_path(c, key, "code.hxco");
  char* manifest_path = hrx_loom_entry_path(c, key, "manifest.json");
  char* digest_path = hrx_loom_entry_path(c, key, "sha256");
  char* dir = hrx_loom_entry_path(c, key, "");
  hrx_status_t status =
      code_path && manifest_path && digest_path && dir
          ? HRX_OK
          : hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED, "no memory");
  struct stat info;
  if (status == HRX_OK && stat(dir, &info) != 0) {
    status = hrx_make_status(HRX_STATUS_NOT_FOUND, "not cached");
  }
  void* digests = NULL;
  size_t digests_length = 0, manifest_length = 0;
  if (status == HRX_OK) {
    status = hrx_file_read_all(c->allocator, digest_path, 256, &digests,
                               &digests_length);
  }
  if (status == HRX_OK) {
    status = hrx_file_read_all(c->allocator, code_path, HRX_LOOM_MAX_ARTIFACT,
                               (void**)&a->code, &a->code_length);
  }
  if (status == HRX_OK) {
    status = hrx_file_read_all(c->allocator, manifest_path, 1u << 24,
                               (void**)&a->manifest, &manifest_length);
  }
  if (status == HRX_OK) {
    char expected[2 * HRX_SHA256_HEX_SIZE + 2];
    char code_hex[HRX_SHA256_HEX_SIZE], manifest_hex[HRX_SHA256_HEX_SIZE];
    hrx_sha256_digest_t d;
    hrx_sha256(a->code, a->code_length, &d);
    hrx_sha256_digest_format(&d, code_hex);
    hrx_sha256(a->manifest, manifest_length, &d);
    hrx_sha256_digest_format(&d, manifest_hex);
    snprintf(expected, sizeof(expected), "%s\n%s\n", code_hex, manifest_hex);
    if (digests_length != strlen(expected) ||
        memcmp(digests, expected, digests_length) != 0) {
      status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                               "cache entry %s fails its SHA-256 check", key);
    }
  } else if (!hrx_status_is(status, HRX_STATUS_NOT_FOUND) ||
             stat(dir, &info) == 0) {
    /* The directory exists but its files are missing or unreadable. */
    hrx_status_t incomplete = hrx_status_annotate(
        hrx_make_status(HRX_STATUS_DATA_LOSS, "cache entry %s is incomplete",
                        key),
        "%s", hrx_status_message(status));
    hrx_status_free(status);
    status = incomplete;
  }
  if (status == HRX_OK) status = hrx_loom_index_exports(c, a);
  if (status == HRX_OK) {
    /* Reads refresh the access time that gc ages entries by. */
    struct timespec times[2] = {{.tv_nsec = UTIME_NOW},
                                {.tv_nsec = UTIME_OMIT}};
    utimensat(AT_FDCWD, dir, times, 0);
  }
  hrx_allocator_free(c->allocator, digests);
  hrx_allocator_free(c->allocator, code_path);
  hrx_allocator_free(c->allocator, manifest_path);
  hrx_allocator_free(c->allocator, digest_path);
  hrx_allocator_free(c->allocator, dir);
  return status;
}

/* Returns true when entry a->key was read and verified into |a|. A
 * corrupt entry is left alone unless |locked|, when it is reported and
 * removed so the caller rebuilds it. */
static bool hrx_loom_cache_lookup(const hrx_loom_compiler_t* c,
                                  hrx_loom_artifact_t* a, bool locked) {
  hrx_status_t hit = hrx_loom_cache_read(c, a->key, a);
  if (hit == HRX_OK) return true;
  if (locked && hrx_status_is(hit, HRX_STATUS_DATA_LOSS)) {
    hrx_log_status(&c->options.logger, HRX_LOG_WARN,
                   "discarding corrupt kernel cache entry", hit);
    char* dir = hrx_loom_entry_path(c, a->key, "");
    hrx_status_t removed =
        dir ? hrx_dir_remove_all(dir, NULL)
            : hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED, "no memory");
    if (removed != HRX_OK) {
      /* The rebuilt entry cannot replace it; the next hit reports again. */
      hrx_log_status(&c->options.logger, HRX_LOG_WARN,
                     "cannot remove corrupt kernel cache entry", removed);
      hrx_status_free(removed);
    }
    hrx_allocator_free(c->allocator, dir);
  }
  hrx_status_free(hit);
  hrx_allocator_free(c->allocator, a->code);
  hrx_allocator_free(c->allocator, a->manifest);
  for (size_t i = 0; i < a->export_count; ++i) {
    hrx_allocator_free(c->allocator, a->exports[i].name);
  }
  hrx_allocator_free(c->allocator, a->exports);
  a->code = NULL;
  a->manifest = NULL;
  a->exports = NULL;
  a->export_count = 0;
  return false;
}

static hrx_status_t hrx_loom_write_file(const char* path, const void* data,
                                        size_t length) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return hrx_status_from_errno(errno, "cannot create '%s'", path);
  hrx_status_t status = hrx_fd_write_all(fd, data, length, path);
  if (status == HRX_OK && fsync(fd) != 0) {
    status = hrx_status_from_errno(errno, "cannot sync '%s'", path);
  }
  close(fd);
  return status;
}

/* Publishes an entry: a complete directory renamed into place. */
static hrx_status_t hrx_loom_cache_write(const hrx_loom_compiler_t* c,
                                         const hrx_loom_artifact_t* a) {
  char temp[4096];
  snprintf(temp, sizeof(temp), "%s/.tmp-%s-XXXXXX", c->kernels_dir, a->key);
  if (!mkdtemp(temp)) {
    return hrx_status_from_errno(errno, "cannot create a cache entry in '%s'",
                                 c->kernels_dir);
  }
  char path[4096 + 32];
  char code_hex[HRX_SHA256_HEX_SIZE], manifest_hex[HRX_SHA256_HEX_SIZE];
  char digests[2 * HRX_SHA256_HEX_SIZE + 2];
  hrx_sha256_digest_t d;
  hrx_sha256(a->code, a->code_length, &d);
  hrx_sha256_digest_format(&d, code_hex);
  hrx_sha256(a->manifest, strlen(a->manifest), &d);
  hrx_sha256_digest_format(&d, manifest_hex);
  snprintf(digests, sizeof(digests), "%s\n%s\n", code_hex, manifest_hex);
  snprintf(path, sizeof(path), "%s/code.hxco", temp);
  hrx_status_t status = hrx_loom_write_file(path, a->code, a->code_length);
  if (status == HRX_OK) {
    snprintf(path, sizeof(path), "%s/manifest.json", temp);
    status = hrx_loom_write_file(path, a->manifest, strlen(a->manifest));
  }
  if (status == HRX_OK) {
    snprintf(path, sizeof(path), "%s/sha256", temp);
    status = hrx_loom_write_file(path, digests, strlen(digests));
  }
  if (status == HRX_OK) {
    snprintf(path, sizeof(path), "%s/%s", c->kernels_dir, a->key);
    if (rename(temp, path) != 0 && errno != ENOTEMPTY && errno != EEXIST) {
      status = hrx_status_from_errno(errno, "cannot publish cache entry");
    }
  }
  /* Gone already when the rename won; a leftover is gc's to remove. */
  hrx_status_free(hrx_dir_remove_all(temp, NULL));
  return status;
}

/* Takes the lock that serialises the miss path of entry |key|. */
static hrx_status_t hrx_loom_cache_lock(const hrx_loom_compiler_t* c,
                                        const char* key,
                                        hrx_file_lock_t* out_lock) {
  HRX_RETURN_IF_ERROR(hrx_dir_create_all(c->kernels_dir, 0755));
  char* entry = hrx_loom_entry_path(c, key, "");
  if (!entry) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED, "no memory");
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s.lock", entry);
  hrx_allocator_free(c->allocator, entry);
  return hrx_file_lock_acquire(path, HRX_LOCK_EXCLUSIVE, out_lock);
}

/* A cache that cannot be written (read-only, full, not ours) is not a
 * compile failure: the artifact is built and returned all the same, and
 * the first such failure of this compiler is logged. Takes |status|. */
static void hrx_loom_cache_unusable(hrx_loom_compiler_t* c,
                                    hrx_status_t status) {
  if (!atomic_exchange(&c->cache_warned, true)) {
    hrx_log_status(&c->options.logger, HRX_LOG_WARN,
                   "kernel cache not writable; compiling without it", status);
  }
  hrx_status_free(status);
}

/*===------------------------------------------------------------------===*/
/* Compilation                                                             */
/*===------------------------------------------------------------------===*/

static bool hrx_loom_trace_matches(const char* const* patterns, size_t count,
                                   const char* pass) {
  for (size_t i = 0; i < count; ++i) {
    if (strstr(pass, patterns[i])) return true;
  }
  return false;
}

/* Records one compiler pass in the trace, with the module text around it
 * when a before/after pattern names it. */
static void hrx_loom_trace_pass(const hrx_loom_compiler_t* c, const char* pass,
                                uint64_t start, const char* before,
                                const hrx_loom_module_t* after) {
  if (!c->options.trace) return;
  hrx_trace_arg_t args[2];
  size_t count = 0;
  hrx_string_builder_t text;
  hrx_string_builder_init(c->allocator, &text);
  if (before && hrx_loom_trace_matches(c->options.trace_before,
                                       c->options.trace_before_count, pass)) {
    args[count++] = (hrx_trace_arg_t){.key = "before",
                                      .type = HRX_TRACE_ARG_STRING,
                                      .value.s = before};
  }
  if (after && hrx_loom_trace_matches(c->options.trace_after,
                                      c->options.trace_after_count, pass)) {
    hrx_status_free(hrx_loom_module_print(after, &text));
    args[count++] = (hrx_trace_arg_t){.key = "after",
                                      .type = HRX_TRACE_ARG_STRING,
                                      .value.s = hrx_string_builder_cstr(&text)};
  }
  hrx_trace_event_t event = {.name = pass, .category = "loom.pass",
                             .start_ns = start,
                             .duration_ns = hrx_clock_monotonic_ns() - start,
                             .args = args, .arg_count = count};
  hrx_status_free(hrx_trace_record(c->options.trace, &event));
  hrx_string_builder_deinit(&text);
}

/* The cache key over every input that changes the output. */
static void hrx_loom_key(const hrx_loom_compiler_t* c, const char* source_hex,
                         const char* export_name, const char* canonical,
                         char out[HRX_SHA256_HEX_SIZE]) {
  hrx_sha256_t h;
  hrx_sha256_init(&h);
  const char* parts[] = {HRX_LOOM_KEY_FORMAT, c->identity, source_hex,
                         export_name ? export_name : "*", c->profile.name,
                         canonical};
  for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); ++i) {
    hrx_sha256_update(&h, parts[i], strlen(parts[i]) + 1);
  }
  /* An LLVM update changes the code without changing HRX's binary. */
  if (c->codegen) hrx_sha256_update(&h, c->codegen, strlen(c->codegen) + 1);
  /* Host code carries native code for this CPU and its features (and
   * LLVM's version) when built with LLVM: a cache shared between machines
   * must not hand it to another. Without native code, host keys stay as
   * they were. */
  const char* native = c->codegen ? NULL : loom_host_native_target();
  if (native) hrx_sha256_update(&h, native, strlen(native) + 1);
  uint8_t sanitizers[4];
  uint8_t* at = sanitizers;
  hrx_put_le(&at, c->options.sanitizers, 4);
  hrx_sha256_update(&h, sanitizers, sizeof(sanitizers));
  hrx_sha256_digest_t digest;
  hrx_sha256_final(&h, &digest);
  hrx_sha256_digest_format(&digest, out);
}

/* Generates the code object of |module| for the compiler's profile;
 * |code| receives what the manifest needs beyond the signatures. */
static hrx_status_t hrx_loom_generate(hrx_loom_compiler_t* c,
                                      const hrx_loom_module_t* module,
                                      const hrx_loom_specialization_t* spec,
                                      hrx_loom_diagnostics_t* diagnostics,
                                      hrx_loom_artifact_t* a,
                                      hrx_loom_code_info_t* code) {
#if HRX_LOOM_HAVE_LLVM
  if (c->codegen) {
    loom_amdgpu_output_t* out = NULL;
    HRX_RETURN_IF_ERROR(
        hrx_allocator_malloc(c->allocator, sizeof(*out), (void**)&out));
    hrx_status_t status = loom_amdgpu_compile(module, spec, &c->profile,
                                              diagnostics, c->allocator, out);
    a->code = out->code;
    a->code_length = out->code_length;
    out->code = NULL; /* the artifact's now */
    code->amdgpu = out;
    return status;
  }
#else
  (void)code;
#endif
  hrx_loom_host_options_t host = HRX_STRUCT_INIT(hrx_loom_host_options_t);
  host.sanitizers = c->options.sanitizers;
  return hrx_loom_compile_host(module, spec, &c->profile, &host, diagnostics,
                               c->allocator, &a->code, &a->code_length);
}

static void hrx_loom_code_info_free(const hrx_loom_compiler_t* c,
                                    hrx_loom_code_info_t* code) {
#if HRX_LOOM_HAVE_LLVM
  if (!code->amdgpu) return;
  loom_amdgpu_output_t* out = (loom_amdgpu_output_t*)code->amdgpu;
  loom_amdgpu_output_free(out, c->allocator);
  hrx_allocator_free(c->allocator, out);
#else
  (void)c;
  (void)code;
#endif
}

static hrx_status_t hrx_loom_build(hrx_loom_compiler_t* c,
                                   const hrx_loom_compile_request_t* r,
                                   const hrx_loom_module_t* module,
                                   const hrx_loom_specialization_t* spec,
                                   const char* source_hex,
                                   hrx_loom_diagnostics_t* diagnostics,
                                   hrx_loom_artifact_t* a) {
  uint64_t start = hrx_clock_monotonic_ns();
  const char* pass = c->codegen ? "lower-amdgpu" : "lower-host";
  char* before = NULL;
  if (c->options.trace &&
      hrx_loom_trace_matches(c->options.trace_before,
                             c->options.trace_before_count, pass)) {
    hrx_string_builder_t text;
    hrx_string_builder_init(c->allocator, &text);
    hrx_status_free(hrx_loom_module_print(module, &text));
    hrx_status_free(hrx_string_builder_take(&text, &before, NULL));
    hrx_string_builder_deinit(&text);
  }
  hrx_loom_code_info_t code = {0};
  hrx_status_t status =
      hrx_loom_generate(c, module, spec, diagnostics, a, &code);
  hrx_loom_trace_pass(c, pass, start, before, NULL);
  hrx_allocator_free(c->allocator, before);
  if (status == HRX_OK) status = hrx_loom_index_exports(c, a);
  if (status == HRX_OK) {
    hrx_string_builder_t manifest;
    hrx_string_builder_init(c->allocator, &manifest);
    status = hrx_loom_manifest(c, module, r, source_hex,
                               hrx_loom_specialization_canonical(spec), a,
                               &code, &manifest);
    if (status == HRX_OK) {
      status = hrx_string_builder_take(&manifest, &a->manifest, NULL);
    }
    hrx_string_builder_deinit(&manifest);
  }
  hrx_loom_code_info_free(c, &code);
  return status;
}

hrx_status_t hrx_loom_compile(hrx_loom_compiler_t* c,
                              const hrx_loom_compile_request_t* r,
                              hrx_loom_diagnostics_t* diagnostics,
                              hrx_loom_artifact_t** out_artifact) {
  *out_artifact = NULL;
  if (!r || (!r->source && r->length)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "compile request has no source");
  }
  hrx_loom_artifact_t* a = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(c->allocator, sizeof(*a),
                                           (void**)&a));
  a->allocator = c->allocator;
  hrx_sha256_digest_t digest;
  hrx_sha256(r->source, r->length, &digest);
  char source_hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&digest, source_hex);

  uint64_t start = hrx_clock_monotonic_ns();
  hrx_loom_parse_options_t parse = HRX_STRUCT_INIT(hrx_loom_parse_options_t);
  parse.source_name = r->source_name;
  hrx_loom_module_t* module = NULL;
  hrx_status_t status =
      hrx_loom_module_parse(r->source ? r->source : "", r->length, &parse,
                            diagnostics, c->allocator, &module);
  hrx_loom_trace_pass(c, "parse-verify", start, NULL, module);
  size_t kernel = 0;
  if (status == HRX_OK && r->export_name) {
    status = hrx_loom_module_find_export(module, r->export_name, &kernel);
  }
  hrx_loom_specialization_t* spec = NULL;
  if (status == HRX_OK) {
    start = hrx_clock_monotonic_ns();
    status = hrx_loom_module_specialize(module, r->config, diagnostics,
                                        c->allocator, &spec);
    hrx_loom_trace_pass(c, "specialize", start, NULL, NULL);
  }
  if (status == HRX_OK) {
    hrx_loom_key(c, source_hex, r->export_name,
                 hrx_loom_specialization_canonical(spec), a->key);
  }
  /* Tracing always compiles so the passes are seen. */
  bool use_cache = status == HRX_OK && c->kernels_dir && !c->options.trace;
  hrx_file_lock_t lock = {.fd = -1};
  if (use_cache) {
    /* Entries appear by atomic rename, so a complete one can be read
     * without the lock; the lock serialises only the miss path (build,
     * publish, discard a corrupt entry), where the entry is read again in
     * case another process published it meanwhile. */
    a->cache_hit = hrx_loom_cache_lookup(c, a, false);
    if (!a->cache_hit) {
      hrx_status_t locked = hrx_loom_cache_lock(c, a->key, &lock);
      if (locked == HRX_OK) {
        a->cache_hit = hrx_loom_cache_lookup(c, a, true);
      } else {
        hrx_loom_cache_unusable(c, locked);
        use_cache = false;
      }
    }
  }
  if (status == HRX_OK && !a->cache_hit) {
    status = hrx_loom_build(c, r, module, spec, source_hex, diagnostics, a);
    if (status == HRX_OK && use_cache) {
      hrx_status_t stored = hrx_loom_cache_write(c, a);
      if (stored != HRX_OK) hrx_loom_cache_unusable(c, stored);
    }
  }
  hrx_file_lock_release(&lock);
  hrx_loom_specialization_destroy(spec);
  hrx_loom_module_destroy(module);
  if (status != HRX_OK) {
    hrx_loom_artifact_destroy(a);
    return status;
  }
  *out_artifact = a;
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Batches                                                                 */
/*===------------------------------------------------------------------===*/

typedef struct hrx_loom_batch_t {
  hrx_loom_compiler_t* compiler;
  const hrx_loom_compile_request_t* requests;
  size_t count;
  _Atomic size_t next;
  hrx_loom_artifact_t** artifacts;
  hrx_status_t* statuses;
} hrx_loom_batch_t;

static void* hrx_loom_batch_worker(void* arg) {
  hrx_loom_batch_t* batch = arg;
  for (;;) {
    size_t i = atomic_fetch_add(&batch->next, 1);
    if (i >= batch->count) return NULL;
    batch->statuses[i] = hrx_loom_compile(batch->compiler, &batch->requests[i],
                                          NULL, &batch->artifacts[i]);
  }
}

hrx_status_t hrx_loom_compile_all(hrx_loom_compiler_t* c,
                                  const hrx_loom_compile_request_t* requests,
                                  size_t count,
                                  hrx_loom_artifact_t** out_artifacts,
                                  hrx_status_t* out_statuses) {
  for (size_t i = 0; i < count; ++i) {
    out_artifacts[i] = NULL;
    out_statuses[i] = HRX_OK;
  }
  hrx_loom_batch_t batch = {.compiler = c, .requests = requests,
                            .count = count, .artifacts = out_artifacts,
                            .statuses = out_statuses};
  atomic_init(&batch.next, 0);
  size_t workers = c->options.workers < count ? c->options.workers : count;
  pthread_t threads[64];
  size_t started = 0;
  for (; started + 1 < workers && started < 64; ++started) {
    if (pthread_create(&threads[started], NULL, hrx_loom_batch_worker,
                       &batch) != 0) {
      break;
    }
  }
  hrx_loom_batch_worker(&batch); /* the caller works too */
  for (size_t t = 0; t < started; ++t) pthread_join(threads[t], NULL);
  return HRX_OK;
}
