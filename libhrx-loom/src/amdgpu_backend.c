/* Loom -> gfx1151 code objects through LLVM 19 (see amdgpu_backend.h). */
#include "amdgpu_backend.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "amdgpu_elf.h"
#include "hrx/core/bytes.h"
#include "hrx/fabric/device.h"
#include "hrx/fabric/launch_program.h"
#include "hrx/loom/compiler.h"
#include "llvm_codegen.h"
#include "llvm_lower.h"

#define AMDGPU_TRIPLE "amdgcn-amd-amdhsa"
#define AMDGPU_HIDDEN_ARGS 256 /* code object v5 */

/*===------------------------------------------------------------------===*/
/* Target hooks                                                            */
/*===------------------------------------------------------------------===*/

static LLVMValueRef amdgpu_call(llvm_lower_t* l, const char* name,
                                LLVMValueRef* args, unsigned count) {
  return llvm_lower_intrinsic(l, name, NULL, 0, args, count);
}

static LLVMValueRef amdgpu_dim_call(llvm_lower_t* l, const char* prefix,
                                    unsigned dim) {
  char name[64];
  snprintf(name, sizeof(name), "%s.%c", prefix, "xyz"[dim % 3]);
  return amdgpu_call(l, name, NULL, 0);
}

static LLVMValueRef amdgpu_workgroup_id(llvm_lower_t* l, unsigned dim) {
  return amdgpu_dim_call(l, "llvm.amdgcn.workgroup.id", dim);
}

static LLVMValueRef amdgpu_workitem_id(llvm_lower_t* l, unsigned dim) {
  return amdgpu_dim_call(l, "llvm.amdgcn.workitem.id", dim);
}

/* A field of the code-object-v5 hidden arguments, zero-extended to i32. */
static LLVMValueRef amdgpu_hidden(llvm_lower_t* l, unsigned offset,
                                  unsigned bits) {
  LLVMBuilderRef b = l->builder;
  LLVMValueRef base = amdgpu_call(l, "llvm.amdgcn.implicitarg.ptr", NULL, 0);
  LLVMValueRef at = LLVMConstInt(LLVMInt64TypeInContext(l->context), offset, 0);
  LLVMValueRef field = LLVMBuildInBoundsGEP2(
      b, LLVMInt8TypeInContext(l->context), base, &at, 1, "");
  LLVMTypeRef type = LLVMIntTypeInContext(l->context, bits);
  LLVMValueRef value = LLVMBuildLoad2(b, type, field, "");
  LLVMSetAlignment(value, bits / 8);
  return LLVMBuildZExtOrBitCast(b, value, LLVMInt32TypeInContext(l->context),
                                "");
}

static LLVMValueRef amdgpu_workgroup_size(llvm_lower_t* l, unsigned dim) {
  return amdgpu_hidden(l, 12 + 2 * (dim % 3), 16); /* hidden_group_size */
}

static LLVMValueRef amdgpu_workgroup_count(llvm_lower_t* l, unsigned dim) {
  return amdgpu_hidden(l, 4 * (dim % 3), 32); /* hidden_block_count */
}

static LLVMValueRef amdgpu_lane_id(llvm_lower_t* l) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(l->context);
  LLVMValueRef args[] = {LLVMConstAllOnes(i32), LLVMConstNull(i32)};
  return amdgpu_call(l, "llvm.amdgcn.mbcnt.lo", args, 2);
}

static LLVMValueRef amdgpu_read_lane(llvm_lower_t* l, LLVMValueRef value,
                                     LLVMValueRef lane) {
  LLVMValueRef bytes = LLVMBuildShl(
      l->builder, lane, LLVMConstInt(LLVMTypeOf(lane), 2, 0), "");
  LLVMValueRef args[] = {bytes, value};
  return amdgpu_call(l, "llvm.amdgcn.ds.bpermute", args, 2);
}

static LLVMValueRef amdgpu_read_uniform_lane(llvm_lower_t* l,
                                             LLVMValueRef value,
                                             LLVMValueRef lane) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(l->context);
  LLVMValueRef args[] = {value, lane};
  return llvm_lower_intrinsic(l, "llvm.amdgcn.readlane", &i32, 1, args, 2);
}

static LLVMValueRef amdgpu_active_lanes(llvm_lower_t* l) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(l->context);
  LLVMValueRef yes = LLVMConstInt(LLVMInt1TypeInContext(l->context), 1, 0);
  LLVMValueRef mask =
      llvm_lower_intrinsic(l, "llvm.amdgcn.ballot", &i32, 1, &yes, 1);
  return LLVMBuildZExt(l->builder, mask, LLVMInt64TypeInContext(l->context),
                       "");
}

static void amdgpu_barrier(llvm_lower_t* l, bool workgroup) {
  amdgpu_call(l, workgroup ? "llvm.amdgcn.s.barrier"
                           : "llvm.amdgcn.wave.barrier", NULL, 0);
}

static const char* amdgpu_sync_scope(uint32_t scope) {
  /* thread subgroup workgroup device system */
  static const char* const names[] = {"singlethread", "wavefront",
                                      "workgroup", "agent", ""};
  return scope < sizeof(names) / sizeof(names[0]) ? names[scope] : "";
}

static void amdgpu_attribute(llvm_lower_t* l, LLVMValueRef fn,
                             const char* key, const char* value) {
  LLVMAttributeRef attribute = LLVMCreateStringAttribute(
      l->context, key, (unsigned)strlen(key), value, (unsigned)strlen(value));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, attribute);
}

static void amdgpu_kernel_attributes(llvm_lower_t* l, LLVMValueRef fn,
                                     uint32_t max_threads) {
  char bound[32];
  snprintf(bound, sizeof(bound), "1,%u", max_threads);
  amdgpu_attribute(l, fn, "amdgpu-flat-work-group-size", bound);
  /* HRX launches whole workgroups only. */
  amdgpu_attribute(l, fn, "uniform-work-group-size", "true");
  /* Float atomics in hardware (global_atomic_add_f32) rather than a
   * compare-and-swap loop. */
  amdgpu_attribute(l, fn, "amdgpu-unsafe-fp-atomics", "true");
}

static const llvm_target_hooks_t amdgpu_hooks = {
    .name = "amdgpu",
    .global_space = 1,
    .workgroup_space = 3,
    .kernel_call_conv = LLVMAMDGPUKERNELCallConv,
    .subgroup_size = 32,
    .workgroup_memory_limit = 64u << 10,
    /* Scratch, which the runtime gives each work-item up to this much of
     * (the queues' maximum_private_bytes). */
    .private_memory_limit = HRX_FABRIC_MAX_PRIVATE_BYTES,
    .wmma = true,
    .workgroup_id = amdgpu_workgroup_id,
    .workitem_id = amdgpu_workitem_id,
    .workgroup_size = amdgpu_workgroup_size,
    .workgroup_count = amdgpu_workgroup_count,
    .lane_id = amdgpu_lane_id,
    .read_lane = amdgpu_read_lane,
    .read_uniform_lane = amdgpu_read_uniform_lane,
    .active_lanes = amdgpu_active_lanes,
    .barrier = amdgpu_barrier,
    .sync_scope = amdgpu_sync_scope,
    .kernel_attributes = amdgpu_kernel_attributes,
};

/*===------------------------------------------------------------------===*/
/* LLVM setup                                                              */
/*===------------------------------------------------------------------===*/

static pthread_once_t amdgpu_once = PTHREAD_ONCE_INIT;
static char amdgpu_version[32];

static void amdgpu_initialize(void) {
  LLVMInitializeAMDGPUTargetInfo();
  LLVMInitializeAMDGPUTarget();
  LLVMInitializeAMDGPUTargetMC();
  LLVMInitializeAMDGPUAsmPrinter();
  /* The launch table travels as module-level assembly. */
  LLVMInitializeAMDGPUAsmParser();
  unsigned major = 0, minor = 0, patch = 0;
  LLVMGetVersion(&major, &minor, &patch);
  snprintf(amdgpu_version, sizeof(amdgpu_version), "LLVM %u.%u.%u", major,
           minor, patch);
}

const char* loom_amdgpu_codegen_version(void) {
  pthread_once(&amdgpu_once, amdgpu_initialize);
  return amdgpu_version;
}

/*===------------------------------------------------------------------===*/
/* Compilation                                                             */
/*===------------------------------------------------------------------===*/

/* Refuses source targets this profile cannot honour. */
static bool amdgpu_check_targets(const loom_module_t* m,
                                 const loom_amdgpu_isa_t* isa,
                                 hrx_loom_diagnostics_t* diagnostics) {
  bool ok = true;
  for (uint32_t t = 0; t < m->targets.count; ++t) {
    const loom_target_t* target = &LOOM_TARGET(m, t);
    const char* kind = loom_module_string(m, target->kind);
    if (target->family == LOOM_TARGET_AMDGPU &&
        strcmp(kind, "gfx11-generic") != 0 && strcmp(kind, isa->cpu) != 0) {
      loom_diag_emit(diagnostics, &m->source, target->span,
                     HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_TARGET, NULL,
                     0, "source target %s does not run on the %s profile",
                     kind, isa->profile);
      ok = false;
    }
    if (target->subgroup_size && target->subgroup_size != 32) {
      loom_diag_emit(diagnostics, &m->source, target->span,
                     HRX_LOOM_SEVERITY_ERROR, HRX_LOOM_DIAG_BAD_TARGET, NULL,
                     0, "the amdgpu backend compiles 32-lane subgroups; "
                     "@%s asks for %" PRId64,
                     loom_module_string(m, target->symbol),
                     target->subgroup_size);
      ok = false;
    }
  }
  return ok;
}

/* The largest workgroup a launch program can ask for: the product of its
 * sizes when constant propagation through the program finds each one
 * (config values are constants there), else the profile's bound. */
static uint32_t amdgpu_max_threads(const uint8_t* program, size_t length,
                                   uint32_t bound) {
  enum { NONE = -1 };
  int64_t known[HRX_LAUNCH_PROGRAM_MAX_REGISTERS];
  for (size_t r = 0; r < HRX_LAUNCH_PROGRAM_MAX_REGISTERS; ++r) known[r] = NONE;
  const uint8_t* at = program + HRX_LAUNCH_PROGRAM_HEADER_SIZE - 4;
  uint64_t symbol = hrx_get_le(&at, 4);
  size_t insn_count =
      (length - HRX_SHA256_DIGEST_SIZE - HRX_LAUNCH_PROGRAM_HEADER_SIZE -
       symbol) / HRX_LAUNCH_PROGRAM_INSN_SIZE;
  at += symbol;
  for (size_t i = 0; i < insn_count; ++i) {
    uint8_t op = *at++;
    uint64_t regs[4];
    for (int k = 0; k < 4; ++k) {
      regs[k] = hrx_get_le(&at, 2) % HRX_LAUNCH_PROGRAM_MAX_REGISTERS;
    }
    int64_t imm = (int64_t)hrx_get_le(&at, 8);
    int64_t a = known[regs[1]], b = known[regs[2]], c = known[regs[3]], v = NONE;
    bool ab = a != NONE && b != NONE;
    switch (op) {
      case HRX_LAUNCH_OP_CONST: v = imm >= 0 ? imm : NONE; break;
      case HRX_LAUNCH_OP_ADD: if (ab && a + b <= bound) v = a + b; break;
      case HRX_LAUNCH_OP_SUB: if (ab && a >= b) v = a - b; break;
      case HRX_LAUNCH_OP_MUL: if (ab && a <= bound && b <= bound) v = a * b; break;
      case HRX_LAUNCH_OP_DIV: if (ab && b > 0) v = a / b; break;
      case HRX_LAUNCH_OP_MIN: if (ab) v = a < b ? a : b; break;
      case HRX_LAUNCH_OP_MAX: if (ab) v = a > b ? a : b; break;
      case HRX_LAUNCH_OP_MADD:
        if (ab && c != NONE && a <= bound && b <= bound) v = a * b + c;
        break;
      case HRX_LAUNCH_OP_ASSERT: continue; /* writes nothing */
      default: break;
    }
    known[regs[0]] = v;
  }
  uint64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    /* launch_regs[3 + d]: after magic, version, six u32 and three u64. */
    const uint8_t* reg_at = program + 8 + 6 * 4 + 3 * 8 + 2 * (3 + d);
    int64_t size = known[hrx_get_le(&reg_at, 2) %
                         HRX_LAUNCH_PROGRAM_MAX_REGISTERS];
    if (size <= 0 || size > bound) return bound;
    threads *= (uint64_t)size;
  }
  return threads <= bound ? (uint32_t)threads : bound;
}

/* Everything one compilation owns. */
typedef struct amdgpu_build_t {
  const loom_module_t* m;
  const hrx_loom_specialization_t* spec;
  const hrx_loom_profile_t* profile;
  const loom_amdgpu_isa_t* isa;
  hrx_loom_diagnostics_t* diagnostics;
  hrx_allocator_t allocator;
  llvm_first_error_t llvm_errors;
  LLVMContextRef context;
  LLVMTargetMachineRef machine;
  LLVMModuleRef module;
  llvm_lower_t lower;
  llvm_kernel_info_t* infos;
  hrx_string_builder_t table; /* the launch table */
  uint32_t* max_threads;
} amdgpu_build_t;

static hrx_status_t amdgpu_llvm_error(amdgpu_build_t* b, const char* what) {
  return hrx_make_status(HRX_STATUS_INTERNAL, "%s for %s failed: %s", what,
                         b->isa->cpu,
                         b->llvm_errors.text[0] ? b->llvm_errors.text
                                                : "no reason given");
}

static hrx_status_t amdgpu_create(amdgpu_build_t* b) {
  b->context = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(b->context, llvm_keep_first_error,
                                  &b->llvm_errors);
  LLVMTargetRef target = NULL;
  char* message = NULL;
  if (LLVMGetTargetFromTriple(AMDGPU_TRIPLE, &target, &message)) {
    hrx_status_t status = hrx_make_status(
        HRX_STATUS_UNAVAILABLE, "this LLVM has no amdgpu target: %s",
        message ? message : "?");
    LLVMDisposeMessage(message);
    return status;
  }
  b->machine = LLVMCreateTargetMachine(
      target, AMDGPU_TRIPLE, b->isa->cpu, "", LLVMCodeGenLevelAggressive,
      LLVMRelocDefault, LLVMCodeModelDefault);
  if (!b->machine) return amdgpu_llvm_error(b, "creating a target machine");
  const char* name = b->m->source.name ? b->m->source.name : "<input>";
  b->module = LLVMModuleCreateWithNameInContext(name, b->context);
  LLVMSetTarget(b->module, AMDGPU_TRIPLE);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(b->machine);
  LLVMSetModuleDataLayout(b->module, layout);
  LLVMDisposeTargetData(layout);
  LLVMValueRef version = LLVMConstInt(LLVMInt32TypeInContext(b->context),
                                      b->isa->code_object_version, 0);
  const char* flag = "amdhsa_code_object_version";
  LLVMAddModuleFlag(b->module, LLVMModuleFlagBehaviorError, flag,
                    strlen(flag), LLVMValueAsMetadata(version));
  return HRX_OK;
}

/* Builds each kernel's launch program into the launch table and reads its
 * workgroup bound. */
static hrx_status_t amdgpu_launch_programs(amdgpu_build_t* b) {
  uint32_t count = b->m->kernels.count;
  HRX_RETURN_IF_ERROR(loom_launch_table_begin(&b->table, count));
  for (uint32_t k = 0; k < count; ++k) {
    hrx_loom_launch_program_t* program = NULL;
    uint8_t* bytes = NULL;
    size_t length = 0;
    hrx_status_t status = hrx_loom_launch_program_build(
        b->m, k, b->spec, b->profile, b->diagnostics, b->allocator, &program);
    if (status == HRX_OK) {
      status = hrx_loom_launch_program_serialize(program, b->allocator,
                                                 &bytes, &length);
    }
    if (status == HRX_OK) {
      status = loom_launch_table_add(
          &b->table, loom_kernel_code_name(b->m, &LOOM_KERNEL(b->m, k)),
          bytes, length);
      b->max_threads[k] = amdgpu_max_threads(bytes, length,
                                             b->profile->max_workgroup_size);
    }
    hrx_allocator_free(b->allocator, bytes);
    hrx_loom_launch_program_destroy(program);
    HRX_RETURN_IF_ERROR(status);
  }
  return HRX_OK;
}

/* The launch table as module-level assembly: a section that is neither
 * allocated nor loaded, so loaders and disassemblers pass over it. */
static hrx_status_t amdgpu_embed_table(amdgpu_build_t* b) {
  hrx_string_builder_t text;
  hrx_string_builder_init(b->allocator, &text);
  hrx_status_t status = hrx_string_builder_appendf(
      &text, ".pushsection %s,\"\",@progbits\n", HRX_LOOM_LAUNCH_SECTION);
  const uint8_t* bytes = (const uint8_t*)b->table.data;
  for (size_t i = 0; status == HRX_OK && i < b->table.length; ++i) {
    status = hrx_string_builder_appendf(
        &text, "%s%u%s", i % 32 ? "," : ".byte ", bytes[i],
        i % 32 == 31 || i + 1 == b->table.length ? "\n" : "");
  }
  if (status == HRX_OK) {
    status = hrx_string_builder_append_cstr(&text, ".popsection\n");
  }
  if (status == HRX_OK) {
    LLVMSetModuleInlineAsm2(b->module, hrx_string_builder_cstr(&text),
                            text.length);
  }
  hrx_string_builder_deinit(&text);
  return status;
}

static hrx_status_t amdgpu_lower(amdgpu_build_t* b) {
  HRX_RETURN_IF_ERROR(llvm_lower_init(&b->lower, b->m, b->spec, &amdgpu_hooks,
                                      b->module, b->diagnostics,
                                      b->allocator));
  size_t errors_before = hrx_loom_diagnostics_error_count(b->diagnostics);
  bool ok = true;
  for (uint32_t k = 0; k < b->m->kernels.count && ok; ++k) {
    ok = llvm_lower_kernel(&b->lower, k, b->max_threads[k], &b->infos[k]);
    /* Private memory stays in scratch: AMDGPU's alloca promotion would
     * move arrays into LDS slices found through the dispatch packet
     * (workgroup memory HRX did not lay out, and a user SGPR its
     * dispatchers do not set up). The feature also turns off promotion
     * into registers, which SROA still does for constant indices. */
    if (ok && b->lower.private_size) {
      amdgpu_attribute(&b->lower, b->infos[k].function, "target-features",
                       "-promote-alloca");
    }
  }
  if (b->lower.status != HRX_OK) {
    hrx_status_t status = b->lower.status;
    b->lower.status = HRX_OK;
    return status;
  }
  if (!ok) {
    hrx_status_t status =
        loom_diag_result(b->diagnostics, errors_before, "amdgpu compilation");
    return status != HRX_OK ? status
                            : hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                                              "amdgpu compilation failed");
  }
  return llvm_lower_finish(&b->lower);
}

static hrx_status_t amdgpu_optimize(amdgpu_build_t* b) {
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  hrx_status_t status =
      llvm_verify_and_optimize(b->module, b->machine, options, "amdgpu");
  LLVMDisposePassBuilderOptions(options);
  HRX_RETURN_IF_ERROR(status);
  return b->llvm_errors.text[0] ? amdgpu_llvm_error(b, "optimisation")
                                : HRX_OK;
}

static hrx_status_t amdgpu_emit(amdgpu_build_t* b, loom_amdgpu_output_t* out) {
  LLVMMemoryBufferRef buffer = NULL;
  if (!llvm_emit_object(b->machine, b->module, &b->llvm_errors, &buffer)) {
    return amdgpu_llvm_error(b, "code generation");
  }
  size_t length = LLVMGetBufferSize(buffer);
  hrx_status_t status = hrx_allocator_malloc_uninitialized(
      b->allocator, length ? length : 1, (void**)&out->code);
  if (status == HRX_OK) {
    memcpy(out->code, LLVMGetBufferStart(buffer), length);
    out->code_length = length;
  }
  LLVMDisposeMemoryBuffer(buffer);
  return status;
}

/* The manifest's view of each kernel. LLVM leaves out the hidden
 * arguments of a kernel that never reads them (its attributor marks it
 * amdgpu-no-implicitarg-ptr), and so does the kernarg size here. */
static hrx_status_t amdgpu_describe(amdgpu_build_t* b,
                                    loom_amdgpu_output_t* out) {
  uint32_t count = b->m->kernels.count;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      b->allocator, count ? count : 1, sizeof(loom_amdgpu_kernel_t),
      (void**)&out->kernels));
  const char* no_hidden = "amdgpu-no-implicitarg-ptr";
  for (uint32_t k = 0; k < count; ++k) {
    llvm_kernel_info_t* info = &b->infos[k];
    loom_amdgpu_kernel_t* kernel = &out->kernels[out->kernel_count++];
    uint32_t kernarg = info->explicit_kernarg_size;
    if (!LLVMGetStringAttributeAtIndex(info->function,
                                       LLVMAttributeFunctionIndex, no_hidden,
                                       (unsigned)strlen(no_hidden))) {
      kernarg = ((kernarg + 7u) & ~7u) + AMDGPU_HIDDEN_ARGS;
    }
    *kernel = (loom_amdgpu_kernel_t){
        .kernarg_size = kernarg,
        .group_segment_size = info->group_segment_size,
        .wavefront_size = amdgpu_hooks.subgroup_size,
        .max_flat_workgroup_size = b->max_threads[k],
        .arg_count = info->arg_count};
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
        b->allocator, info->arg_count + 1, sizeof(loom_amdgpu_arg_t),
        (void**)&kernel->args));
    for (uint32_t a = 0; a < info->arg_count; ++a) {
      kernel->args[a] = (loom_amdgpu_arg_t){.offset = info->args[a].offset,
                                            .size = info->args[a].size,
                                            .buffer = info->args[a].buffer};
    }
  }
  return HRX_OK;
}

/* The object must be what was asked for before anyone keeps it. */
static hrx_status_t amdgpu_check_object(amdgpu_build_t* b,
                                        const loom_amdgpu_output_t* out) {
  loom_launch_table_t table;
  hrx_status_t status =
      loom_amdgpu_object_open(out->code, out->code_length, b->isa, &table);
  if (status != HRX_OK) {
    return hrx_status_annotate(status, "LLVM emitted an unexpected object");
  }
  return HRX_OK;
}

static void amdgpu_build_free(amdgpu_build_t* b) {
  for (uint32_t k = 0; b->infos && k < b->m->kernels.count; ++k) {
    hrx_allocator_free(b->allocator, b->infos[k].args);
  }
  hrx_allocator_free(b->allocator, b->infos);
  hrx_allocator_free(b->allocator, b->max_threads);
  hrx_string_builder_deinit(&b->table);
  if (b->lower.m) llvm_lower_deinit(&b->lower);
  if (b->module) LLVMDisposeModule(b->module);
  if (b->machine) LLVMDisposeTargetMachine(b->machine);
  if (b->context) LLVMContextDispose(b->context);
}

hrx_status_t loom_amdgpu_compile(const loom_module_t* module,
                                 const hrx_loom_specialization_t* spec,
                                 const hrx_loom_profile_t* profile,
                                 hrx_loom_diagnostics_t* diagnostics,
                                 hrx_allocator_t allocator,
                                 loom_amdgpu_output_t* out) {
  memset(out, 0, sizeof(*out));
  const loom_amdgpu_isa_t* isa = loom_amdgpu_isa(profile ? profile->name
                                                         : NULL);
  if (!isa) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "no amdgpu processor for profile '%s'",
                           profile ? profile->name : "(null)");
  }
  if (module->kernels.count == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "module has no kernels to compile");
  }
  hrx_loom_diagnostics_t* own = NULL;
  size_t errors_before = 0;
  HRX_RETURN_IF_ERROR(
      loom_diag_begin(&diagnostics, allocator, &own, &errors_before));
  loom_amdgpu_codegen_version(); /* initialises LLVM's targets once */
  amdgpu_build_t b = {.m = module, .spec = spec, .profile = profile,
                      .isa = isa, .diagnostics = diagnostics,
                      .allocator = allocator};
  hrx_string_builder_init(allocator, &b.table);
  hrx_status_t status = HRX_OK;
  if (!amdgpu_check_targets(module, isa, diagnostics) ||
      !loom_module_targets_compile(module, profile->name, diagnostics)) {
    status = loom_diag_result(diagnostics, errors_before,
                              "amdgpu compilation");
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(allocator, module->kernels.count,
                                        sizeof(llvm_kernel_info_t),
                                        (void**)&b.infos);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(allocator, module->kernels.count,
                                        sizeof(uint32_t),
                                        (void**)&b.max_threads);
  }
  if (status == HRX_OK) status = amdgpu_create(&b);
  if (status == HRX_OK) status = amdgpu_launch_programs(&b);
  if (status == HRX_OK) status = amdgpu_lower(&b);
  if (status == HRX_OK) status = amdgpu_embed_table(&b);
  if (status == HRX_OK) status = amdgpu_optimize(&b);
  if (status == HRX_OK) status = amdgpu_describe(&b, out);
  if (status == HRX_OK) status = amdgpu_emit(&b, out);
  if (status == HRX_OK) status = amdgpu_check_object(&b, out);
  amdgpu_build_free(&b);
  hrx_loom_diagnostics_destroy(own);
  if (status != HRX_OK) loom_amdgpu_output_free(out, allocator);
  return status;
}

void loom_amdgpu_output_free(loom_amdgpu_output_t* out,
                             hrx_allocator_t allocator) {
  for (uint32_t k = 0; k < out->kernel_count; ++k) {
    hrx_allocator_free(allocator, out->kernels[k].args);
  }
  hrx_allocator_free(allocator, out->kernels);
  hrx_allocator_free(allocator, out->code);
  memset(out, 0, sizeof(*out));
}
