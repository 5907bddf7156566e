/* Running native host code: the CPU check, the functions native code may
 * call, and the workgroup job that calls a kernel's entry point
 * (hrx/fabric/host_native.h).
 *
 * A fault in native code is reported as the interpreter reports it: the
 * workgroup is replayed on the interpreter, which stops at the same
 * access (the native code checked the same conditions) and fills in the
 * instruction, lane and everything else. Only when the replay runs clean
 * (a kernel whose earlier stores changed what it reads) does the report
 * come from the native record. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "host_exec_internal.h"
#include "hrx/core/half.h"
#include "hrx/fabric/host_native.h"

HRX_STATIC_ASSERT(sizeof(hrx_host_slot_t) ==
                      sizeof(hrx_host_native_binding_t),
                  "dispatch slots are native bindings");
HRX_STATIC_ASSERT(offsetof(hrx_host_slot_t, size) ==
                      offsetof(hrx_host_native_binding_t, size),
                  "dispatch slots are native bindings");

/*===------------------------------------------------------------------===*/
/* The functions native code may call                                      */
/*===------------------------------------------------------------------===*/

/* f16 and bf16 travel in the low 16 bits of an SSE register (LLVM's x86-64
 * ABI for half and bfloat), which a float argument or result covers. */
static uint32_t hrx_native_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  return bits;
}

static float hrx_native_from_bits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, 4);
  return value;
}

static float hrx_native_extendhfsf2(float half) {
  return hrx_native_from_bits(
      hrx_f16_to_f32_bits((uint16_t)hrx_native_bits(half)));
}

static float hrx_native_truncsfhf2(float value) {
  return hrx_native_from_bits(hrx_f32_bits_to_f16(hrx_native_bits(value)));
}

static float hrx_native_truncdfhf2(double value) {
  return hrx_native_truncsfhf2((float)value);
}

static float hrx_native_truncsfbf2(float value) {
  return hrx_native_from_bits(hrx_f32_bits_to_bf16(hrx_native_bits(value)));
}

static float hrx_native_truncdfbf2(double value) {
  return hrx_native_truncsfbf2((float)value);
}

#define HRX_NATIVE_LIBM(name) {#name, (void*)(uintptr_t)&name}

static const hrx_host_native_symbol_t hrx_native_symbols[] = {
    HRX_NATIVE_LIBM(memcpy),   HRX_NATIVE_LIBM(memmove),
    HRX_NATIVE_LIBM(memset),   HRX_NATIVE_LIBM(expf),
    HRX_NATIVE_LIBM(exp),      HRX_NATIVE_LIBM(exp2f),
    HRX_NATIVE_LIBM(exp2),     HRX_NATIVE_LIBM(logf),
    HRX_NATIVE_LIBM(log),      HRX_NATIVE_LIBM(log2f),
    HRX_NATIVE_LIBM(log2),     HRX_NATIVE_LIBM(sinf),
    HRX_NATIVE_LIBM(sin),      HRX_NATIVE_LIBM(cosf),
    HRX_NATIVE_LIBM(cos),      HRX_NATIVE_LIBM(tanhf),
    HRX_NATIVE_LIBM(tanh),     HRX_NATIVE_LIBM(powf),
    HRX_NATIVE_LIBM(pow),      HRX_NATIVE_LIBM(fmaf),
    HRX_NATIVE_LIBM(fma),      HRX_NATIVE_LIBM(floorf),
    HRX_NATIVE_LIBM(floor),    HRX_NATIVE_LIBM(ceilf),
    HRX_NATIVE_LIBM(ceil),     HRX_NATIVE_LIBM(truncf),
    HRX_NATIVE_LIBM(trunc),    HRX_NATIVE_LIBM(roundevenf),
    HRX_NATIVE_LIBM(roundeven), HRX_NATIVE_LIBM(nearbyintf),
    HRX_NATIVE_LIBM(nearbyint), HRX_NATIVE_LIBM(rintf),
    HRX_NATIVE_LIBM(rint),     HRX_NATIVE_LIBM(sqrtf),
    HRX_NATIVE_LIBM(sqrt),     HRX_NATIVE_LIBM(fminf),
    HRX_NATIVE_LIBM(fmin),     HRX_NATIVE_LIBM(fmaxf),
    HRX_NATIVE_LIBM(fmax),     HRX_NATIVE_LIBM(fmodf),
    HRX_NATIVE_LIBM(fmod),
    {"__extendhfsf2", (void*)(uintptr_t)&hrx_native_extendhfsf2},
    {"__truncsfhf2", (void*)(uintptr_t)&hrx_native_truncsfhf2},
    {"__truncdfhf2", (void*)(uintptr_t)&hrx_native_truncdfhf2},
    {"__truncsfbf2", (void*)(uintptr_t)&hrx_native_truncsfbf2},
    {"__truncdfbf2", (void*)(uintptr_t)&hrx_native_truncdfbf2},
};

const hrx_host_native_symbol_t* hrx_host_native_symbols(size_t* out_count) {
  *out_count = sizeof(hrx_native_symbols) / sizeof(hrx_native_symbols[0]);
  return hrx_native_symbols;
}

/*===------------------------------------------------------------------===*/
/* CPU features                                                            */
/*===------------------------------------------------------------------===*/

typedef struct hrx_cpu_feature_t {
  const char* name;
  bool present;
} hrx_cpu_feature_t;

#define HRX_CPU_MAX_FEATURES 128

/* The running CPU's features under LLVM's names, as LLVM 19's
 * sys::getHostCPUFeatures detects them (CPUID, and XGETBV for the state
 * the OS saves). */
static size_t hrx_cpu_features(hrx_cpu_feature_t* f) {
  size_t n = 0;
#define F(name_, cond_) (f[n++] = (hrx_cpu_feature_t){name_, (cond_) != 0})
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0, max_level = 0;
  if (!__get_cpuid(0, &max_level, &ebx, &ecx, &edx) || max_level < 1) {
    return 0;
  }
  __get_cpuid(1, &eax, &ebx, &ecx, &edx);
  F("cx8", (edx >> 8) & 1);
  F("cmov", (edx >> 15) & 1);
  F("mmx", (edx >> 23) & 1);
  F("fxsr", (edx >> 24) & 1);
  F("sse", (edx >> 25) & 1);
  F("sse2", (edx >> 26) & 1);
  F("sse3", (ecx >> 0) & 1);
  F("pclmul", (ecx >> 1) & 1);
  F("ssse3", (ecx >> 9) & 1);
  F("cx16", (ecx >> 13) & 1);
  F("sse4.1", (ecx >> 19) & 1);
  F("sse4.2", (ecx >> 20) & 1);
  F("crc32", (ecx >> 20) & 1);
  F("movbe", (ecx >> 22) & 1);
  F("popcnt", (ecx >> 23) & 1);
  F("aes", (ecx >> 25) & 1);
  F("rdrnd", (ecx >> 30) & 1);
  uint64_t xcr0 = 0;
  bool has_xsave = (ecx >> 27) & 1;
  if (has_xsave) {
    uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = ((uint64_t)hi << 32) | lo;
  }
  bool avx_save = has_xsave && ((ecx >> 28) & 1) && (xcr0 & 0x6) == 0x6;
  bool avx512_save = avx_save && (xcr0 & 0xe0) == 0xe0;
  bool amx_save = has_xsave && (xcr0 & 0x60000) == 0x60000;
  bool apx_save = has_xsave && ((xcr0 >> 19) & 1);
  F("avx", avx_save);
  F("fma", ((ecx >> 12) & 1) && avx_save);
  F("xsave", ((ecx >> 26) & 1) && avx_save);
  F("f16c", ((ecx >> 29) & 1) && avx_save);
  unsigned max_ext = 0;
  __get_cpuid(0x80000000, &max_ext, &ebx, &ecx, &edx);
  bool ext1 = max_ext >= 0x80000001 &&
              __get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx);
  F("sahf", ext1 && ((ecx >> 0) & 1));
  F("lzcnt", ext1 && ((ecx >> 5) & 1));
  F("sse4a", ext1 && ((ecx >> 6) & 1));
  F("prfchw", ext1 && ((ecx >> 8) & 1));
  F("xop", ext1 && ((ecx >> 11) & 1) && avx_save);
  F("lwp", ext1 && ((ecx >> 15) & 1));
  F("fma4", ext1 && ((ecx >> 16) & 1) && avx_save);
  F("tbm", ext1 && ((ecx >> 21) & 1));
  F("mwaitx", ext1 && ((ecx >> 29) & 1));
  F("64bit", ext1 && ((edx >> 29) & 1));
  bool ext8 = max_ext >= 0x80000008 &&
              __get_cpuid(0x80000008, &eax, &ebx, &ecx, &edx);
  F("clzero", ext8 && ((ebx >> 0) & 1));
  F("rdpru", ext8 && ((ebx >> 4) & 1));
  F("wbnoinvd", ext8 && ((ebx >> 9) & 1));
  bool leaf7 = max_level >= 7 &&
               __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx);
  if (!leaf7) eax = ebx = ecx = edx = 0;
  unsigned leaf7_max = eax;
  F("fsgsbase", (ebx >> 0) & 1);
  F("sgx", (ebx >> 2) & 1);
  F("bmi", (ebx >> 3) & 1);
  F("avx2", ((ebx >> 5) & 1) && avx_save);
  F("bmi2", (ebx >> 8) & 1);
  F("invpcid", (ebx >> 10) & 1);
  F("rtm", (ebx >> 11) & 1);
  F("avx512f", ((ebx >> 16) & 1) && avx512_save);
  /* LLVM's name for "512-bit EVEX registers usable": the OS saves the
   * AVX-512 state (ZMM and opmask), on AVX-512 and AVX10/512 CPUs. */
  F("evex512", avx512_save);
  F("avx512dq", ((ebx >> 17) & 1) && avx512_save);
  F("rdseed", (ebx >> 18) & 1);
  F("adx", (ebx >> 19) & 1);
  F("avx512ifma", ((ebx >> 21) & 1) && avx512_save);
  F("clflushopt", (ebx >> 23) & 1);
  F("clwb", (ebx >> 24) & 1);
  F("avx512pf", ((ebx >> 26) & 1) && avx512_save);
  F("avx512er", ((ebx >> 27) & 1) && avx512_save);
  F("avx512cd", ((ebx >> 28) & 1) && avx512_save);
  F("sha", (ebx >> 29) & 1);
  F("avx512bw", ((ebx >> 30) & 1) && avx512_save);
  F("avx512vl", ((ebx >> 31) & 1) && avx512_save);
  F("prefetchwt1", (ecx >> 0) & 1);
  F("avx512vbmi", ((ecx >> 1) & 1) && avx512_save);
  F("pku", (ecx >> 4) & 1);
  F("waitpkg", (ecx >> 5) & 1);
  F("avx512vbmi2", ((ecx >> 6) & 1) && avx512_save);
  F("shstk", (ecx >> 7) & 1);
  F("gfni", (ecx >> 8) & 1);
  F("vaes", ((ecx >> 9) & 1) && avx_save);
  F("vpclmulqdq", ((ecx >> 10) & 1) && avx_save);
  F("avx512vnni", ((ecx >> 11) & 1) && avx512_save);
  F("avx512bitalg", ((ecx >> 12) & 1) && avx512_save);
  F("avx512vpopcntdq", ((ecx >> 14) & 1) && avx512_save);
  F("rdpid", (ecx >> 22) & 1);
  F("kl", (ecx >> 23) & 1);
  F("cldemote", (ecx >> 25) & 1);
  F("movdiri", (ecx >> 27) & 1);
  F("movdir64b", (ecx >> 28) & 1);
  F("enqcmd", (ecx >> 29) & 1);
  F("uintr", (edx >> 5) & 1);
  F("avx512vp2intersect", ((edx >> 8) & 1) && avx512_save);
  F("serialize", (edx >> 14) & 1);
  F("tsxldtrk", (edx >> 16) & 1);
  F("pconfig", (edx >> 18) & 1);
  F("amx-bf16", ((edx >> 22) & 1) && amx_save);
  F("avx512fp16", ((edx >> 23) & 1) && avx512_save);
  F("amx-tile", ((edx >> 24) & 1) && amx_save);
  F("amx-int8", ((edx >> 25) & 1) && amx_save);
  bool sub1 = leaf7 && leaf7_max >= 1 &&
              __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx);
  if (!sub1) eax = ebx = ecx = edx = 0;
  F("sha512", (eax >> 0) & 1);
  F("sm3", (eax >> 1) & 1);
  F("sm4", (eax >> 2) & 1);
  F("raoint", (eax >> 3) & 1);
  F("avxvnni", ((eax >> 4) & 1) && avx_save);
  F("avx512bf16", ((eax >> 5) & 1) && avx512_save);
  F("cmpccxadd", (eax >> 7) & 1);
  F("amx-fp16", ((eax >> 21) & 1) && amx_save);
  F("hreset", (eax >> 22) & 1);
  F("avxifma", ((eax >> 23) & 1) && avx_save);
  F("avxvnniint8", ((edx >> 4) & 1) && avx_save);
  F("avxneconvert", ((edx >> 5) & 1) && avx_save);
  F("amx-complex", ((edx >> 8) & 1) && amx_save);
  F("avxvnniint16", ((edx >> 10) & 1) && avx_save);
  F("prefetchi", (edx >> 14) & 1);
  F("usermsr", (edx >> 15) & 1);
  bool avx10 = (edx >> 19) & 1;
  F("avx10.1-256", avx10);
  bool apx = ((edx >> 21) & 1) && apx_save;
  F("egpr", apx);
  F("push2pop2", apx);
  F("ppx", apx);
  F("ndd", apx);
  F("ccmp", apx);
  F("cf", apx);
  bool leaf_d = max_level >= 0xd &&
                __get_cpuid_count(0xd, 1, &eax, &ebx, &ecx, &edx);
  F("xsaveopt", leaf_d && ((eax >> 0) & 1) && avx_save);
  F("xsavec", leaf_d && ((eax >> 1) & 1) && avx_save);
  F("xsaves", leaf_d && ((eax >> 3) & 1) && avx_save);
  bool leaf14 = max_level >= 0x14 &&
                __get_cpuid_count(0x14, 0, &eax, &ebx, &ecx, &edx);
  F("ptwrite", leaf14 && ((ebx >> 4) & 1));
  bool leaf19 = max_level >= 0x19 &&
                __get_cpuid_count(0x19, 0, &eax, &ebx, &ecx, &edx);
  F("widekl", leaf7 && leaf19 && ((ebx >> 2) & 1));
  bool leaf24 = max_level >= 0x24 &&
                __get_cpuid_count(0x24, 0, &eax, &ebx, &ecx, &edx);
  F("avx10.1-512", avx10 && leaf24 && ((ebx >> 18) & 1));
#endif
#undef F
  return n;
}

bool hrx_host_native_cpu_supports(const char* features, size_t length,
                                  char* why, size_t why_capacity) {
  hrx_cpu_feature_t present[HRX_CPU_MAX_FEATURES];
  size_t count = hrx_cpu_features(present);
  if (count == 0) {
    snprintf(why, why_capacity, "this CPU is not x86-64");
    return false;
  }
  const char* at = features;
  const char* end = features + length;
  while (at < end) {
    const char* comma = memchr(at, ',', (size_t)(end - at));
    const char* stop = comma ? comma : end;
    size_t word = (size_t)(stop - at);
    if (word >= 2 && at[0] == '+') {
      bool known = false, has = false;
      for (size_t i = 0; i < count; ++i) {
        if (strlen(present[i].name) == word - 1 &&
            !memcmp(present[i].name, at + 1, word - 1)) {
          known = true;
          has = present[i].present;
        }
      }
      if (!known || !has) {
        snprintf(why, why_capacity,
                 "compiled for CPU feature %.*s, which this CPU %s",
                 (int)(word > 40 ? 40 : word), at,
                 known ? "lacks" : "cannot be checked for");
        return false;
      }
    } else if (word > 0 && at[0] != '-') {
      snprintf(why, why_capacity, "malformed CPU feature list");
      return false;
    }
    at = stop + (comma ? 1 : 0);
  }
  return true;
}

/*===------------------------------------------------------------------===*/
/* Workgroups                                                              */
/*===------------------------------------------------------------------===*/

/* Runs workgroup |workgroup|, whose coordinates are |id|. */
static void hrx_host_native_run_workgroup(hrx_host_dispatch_t* d,
                                          uint64_t workgroup,
                                          const uint32_t id[3],
                                          hrx_host_scratch_t* scratch) {
  static const uint8_t never = 0;
  if (atomic_load_explicit(&d->faulted, memory_order_relaxed)) return;
  const hrx_fabric_kernel_t* k = d->kernel;
  hrx_host_native_args_t args = {
      .kernarg = d->kernarg,
      .bindings = (const hrx_host_native_binding_t*)(const void*)d->slots,
      .local_size = d->group_segment_size,
      .cancel = d->cancel ? (const volatile uint8_t*)(const volatile void*)
                                d->cancel
                          : &never,
      .workgroup_id = {id[0], id[1], id[2]}};
  hrx_fabric_fault_t fault = {
      .workgroup = {args.workgroup_id[0], args.workgroup_id[1],
                    args.workgroup_id[2]}};
  if (d->cancel && atomic_load_explicit(d->cancel, memory_order_relaxed)) {
    fault.kind = HRX_FABRIC_FAULT_CANCELLED;
    hrx_fault_here(d, fault);
    return;
  }
  for (int i = 0; i < 3; ++i) {
    args.workgroup_size[i] = d->workgroup_size[i];
    args.workgroup_count[i] = d->workgroup_count[i];
  }
  size_t local = ((size_t)d->group_segment_size + 15) & ~(size_t)15;
  if (!hrx_host_scratch_reserve(scratch, local + 64)) {
    fault.kind = HRX_FABRIC_FAULT_BAD_LAUNCH;
    hrx_fault_here(d, fault);
    return;
  }
  /* Local memory starts zeroed, as the interpreter has it. */
  args.local = scratch->data;
  memset(args.local, 0, local);
  int32_t kind = k->native(&args);
  if (kind == 0) return;
  if (kind != HRX_FABRIC_FAULT_CANCELLED) {
    /* The interpreter's report, from the same workgroup. */
    hrx_host_run_workgroup(d, workgroup, scratch);
    if (atomic_load(&d->faulted)) return;
  }
  const hrx_host_native_fault_t* n = &args.fault;
  fault.kind = (hrx_fabric_fault_kind_t)kind;
  fault.lane = n->work_item % (k->subgroup_size ? k->subgroup_size : 1);
  fault.slot = n->slot;
  fault.offset = n->offset;
  fault.access_bytes = n->access_bytes;
  if (kind == HRX_FABRIC_FAULT_OUT_OF_BOUNDS) {
    if (n->slot == HRX_HOST_SLOT_LOCAL) {
      fault.allocation_size = d->group_segment_size;
      fault.address = (uint64_t)(uintptr_t)args.local;
    } else if (n->slot < d->slot_count) {
      fault.allocation_size = d->slots[n->slot].size;
      fault.address = (uint64_t)(uintptr_t)d->slots[n->slot].base;
    }
  }
  hrx_fault_here(d, fault);
}

/* Workgroups per job item: one for small grids (balance), up to 64 for
 * large ones, where the pool's shared counter would cost more than a
 * short workgroup runs. */
static uint64_t hrx_native_chunk(uint64_t workgroups) {
  uint64_t chunk = workgroups / 512;
  return chunk < 1 ? 1 : chunk > 64 ? 64 : chunk;
}

uint64_t hrx_host_native_job_items(uint64_t workgroups) {
  uint64_t chunk = hrx_native_chunk(workgroups);
  return (workgroups + chunk - 1) / chunk;
}

void hrx_host_native_run_workgroups(void* context, uint64_t item,
                                    hrx_host_scratch_t* scratch) {
  hrx_host_dispatch_t* d = context;
  uint64_t groups = (uint64_t)d->workgroup_count[0] * d->workgroup_count[1] *
                    d->workgroup_count[2];
  uint64_t chunk = hrx_native_chunk(groups);
  uint64_t end = (item + 1) * chunk < groups ? (item + 1) * chunk : groups;
  uint64_t first = item * chunk;
  uint64_t cx = d->workgroup_count[0], cy = d->workgroup_count[1];
  /* Two 64-bit divisions once per item, not per (short) workgroup. */
  uint32_t id[3] = {(uint32_t)(first % cx), (uint32_t)(first / cx % cy),
                    (uint32_t)(first / (cx * cy))};
  for (uint64_t g = first; g < end; ++g) {
    hrx_host_native_run_workgroup(d, g, id, scratch);
    if (++id[0] == cx) {
      id[0] = 0;
      if (++id[1] == cy) {
        id[1] = 0;
        ++id[2];
      }
    }
  }
}
