/* The compiler service: compile Loom sources into artifacts, once.
 *
 * A compiler targets one profile: "host" (the host device's ISA, always
 * built) or "gfx1151" (AMDGPU code through LLVM 19, in builds configured
 * with -Dllvm). Compiling produces an artifact: the code object, a JSON
 * manifest (exports, kernel argument layouts, launch requirements,
 * compiler identity, source digest, profile and source targets, canonical
 * config, sanitizers) and each export's serialised launch program.
 *
 * A gfx1151 code object is the relocatable ELF LLVM emits (code object v5,
 * one `<name>.kd` kernel descriptor per kernel, relocations R_AMDGPU_REL64
 * and R_AMDGPU_REL32_LO/HI only), with the launch programs in a section
 * loaders ignore: HRX_LOOM_LAUNCH_SECTION, not allocated, holding
 *   "HXLT" u32 version (1) u32 kernel_count
 *   kernel_count x { u32 name_length, name bytes,
 *                    u32 launch_length, launch program bytes }
 * little-endian, in the order of the manifest's kernels; each launch
 * program is the checksummed blob of hrx/fabric/launch_program.h. Its
 * manifest kernels also carry "amdgpu": the kernel descriptor symbol,
 * kernarg size, each argument's offset, size and kind (global_buffer,
 * by_value), group segment size, wavefront size and flat workgroup bound,
 * as the object's metadata note states them.
 *
 * Artifacts are cached under <cache root>/kernels/<key>/, one store shared
 * by every process. The key is the SHA-256 of the compiler identity (a
 * digest of the compiler's version and sources, fixed at build time, so
 * stripping or linking statically keeps every key), the code generator's
 * version (the
 * LLVM library in use, which updates apart from HRX), the source bytes,
 * the export, the profile target, the canonical config and the sanitizer
 * selection. Every
 * hit re-verifies the stored bytes against their recorded SHA-256; a
 * corrupt entry is reported through the logger, removed and recompiled.
 * Entries are published atomically (a complete directory renamed into
 * place) under a per-key lock, so concurrent compilations of one kernel by
 * several processes end with one valid entry. Hits refresh the entry's
 * access time for `hrx gc`.
 *
 * A compiler is immutable and thread-safe: share one per profile.
 */
#ifndef HRX_LOOM_COMPILER_H_
#define HRX_LOOM_COMPILER_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"
#include "hrx/loom/config.h"
#include "hrx/loom/diagnostics.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HRX_LOOM_LAUNCH_SECTION ".hrx.launch"
#define HRX_LOOM_LAUNCH_TABLE_MAGIC "HXLT"
#define HRX_LOOM_LAUNCH_TABLE_VERSION 1u

typedef struct hrx_loom_compiler_s hrx_loom_compiler_t;
typedef struct hrx_loom_artifact_s hrx_loom_artifact_t;

/* Sanitizer checks (part of an artifact's identity). The host device
 * always checks every access against its allocation, which is what
 * "access" asks for; "race" has it check workgroup-local memory for
 * accesses no barrier orders (hrx/fabric/host_isa.h); "value" checks the
 * facts of every index.assume at run time; "operation" checks index
 * arithmetic for signed overflow and shifts for amounts of at least the
 * width (scalar integers may wrap). A failed check ends the dispatch with
 * a fault report, or, on a stream in report mode, becomes one report among
 * many while the kernel runs on (hrx/gpu/sanitizer.h): how findings
 * surface is the running stream's choice, not part of the artifact. */
enum {
  HRX_LOOM_SANITIZE_ACCESS = 1u << 0,
  HRX_LOOM_SANITIZE_VALUE = 1u << 1,
  HRX_LOOM_SANITIZE_OPERATION = 1u << 2,
  HRX_LOOM_SANITIZE_RACE = 1u << 3,
};

/* "access,value" -> bits; INVALID_ARGUMENT names an unknown check. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_sanitizers_parse(
    const char* text, uint32_t* out_bits);

typedef struct hrx_loom_compiler_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint32_t workers;       /* compile_all parallelism; 0 = min(CPUs, 4) */
  uint32_t sanitizers;    /* HRX_LOOM_SANITIZE_* */
  /* Cache root; NULL selects the XDG cache root (hrx_path_cache_root). */
  const char* cache_root;
  bool disable_cache;
  /* Compiler passes are recorded here when set (name, duration, and the
   * module text before/after passes whose names contain a pattern);
   * retained until the compiler is destroyed. */
  hrx_trace_t* trace;
  const char* const* trace_before;
  size_t trace_before_count;
  const char* const* trace_after;
  size_t trace_after_count;
  hrx_logger_t logger;    /* sink for cache warnings; zero = from env */
} hrx_loom_compiler_options_t;

/* A compiler for |profile_target| ("host" or "gfx1151"; device properties
 * name it as profile_target). A generic source target ("gfx11-generic")
 * is no profile: INVALID_ARGUMENT. UNAVAILABLE for gfx1151 in a build
 * without -Dllvm; UNIMPLEMENTED for any other name. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_compiler_create(
    const char* profile_target, const hrx_loom_compiler_options_t* options,
    hrx_allocator_t allocator, hrx_loom_compiler_t** out_compiler);
HRX_API void hrx_loom_compiler_destroy(hrx_loom_compiler_t* compiler);

/* Hex SHA-256 naming this compiler's version and sources, computed when
 * HRX is built (borrowed). Equal across builds of the same sources,
 * whatever the build type, sanitizers or stripping. */
HRX_API const char* hrx_loom_compiler_identity(
    const hrx_loom_compiler_t* compiler);

typedef struct hrx_loom_compile_request_t {
  const char* source;
  size_t length;
  const char* source_name;   /* for diagnostics; NULL = "<input>" */
  const char* export_name;   /* required export, or NULL for all kernels */
  const hrx_loom_config_t* config; /* NULL = no config values */
} hrx_loom_compile_request_t;

/* Compiles one request (blocking). On bad source the status is
 * INVALID_ARGUMENT and |diagnostics| (may be NULL) holds the errors. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_compile(
    hrx_loom_compiler_t* compiler, const hrx_loom_compile_request_t* request,
    hrx_loom_diagnostics_t* diagnostics, hrx_loom_artifact_t** out_artifact);

/* Compiles |count| requests across the compiler's workers. Results come
 * back in request order: out_artifacts[i] and out_statuses[i] (owned; OK or
 * the request's failure). Returns OK unless the batch itself could not
 * run. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_compile_all(
    hrx_loom_compiler_t* compiler, const hrx_loom_compile_request_t* requests,
    size_t count, hrx_loom_artifact_t** out_artifacts,
    hrx_status_t* out_statuses);

HRX_API void hrx_loom_artifact_destroy(hrx_loom_artifact_t* artifact);
HRX_API const uint8_t* hrx_loom_artifact_code(
    const hrx_loom_artifact_t* artifact, size_t* out_length);
HRX_API const char* hrx_loom_artifact_manifest(
    const hrx_loom_artifact_t* artifact);
/* The cache key (hex SHA-256). */
HRX_API const char* hrx_loom_artifact_key(const hrx_loom_artifact_t* artifact);
HRX_API bool hrx_loom_artifact_cache_hit(const hrx_loom_artifact_t* artifact);
/* The serialised launch program of export |symbol| (borrowed); NOT_FOUND
 * unless |symbol| names an export exactly. */
HRX_API HRX_MUST_USE hrx_status_t hrx_loom_artifact_launch_program(
    const hrx_loom_artifact_t* artifact, const char* symbol,
    const uint8_t** out_bytes, size_t* out_length);

#ifdef __cplusplus
}
#endif

#endif /* HRX_LOOM_COMPILER_H_ */
