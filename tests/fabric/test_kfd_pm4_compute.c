/* PM4 kernel dispatch of the kfd provider on the modelled gfx1151: the
 * register writes a kernel descriptor becomes (golden dwords), every
 * descriptor PM4 dispatch cannot program refused by name, and kernels
 * compiled for gfx1151 (saxpy over aligned and partial grids, the corpus's
 * 3-D work-item ids and workgroup-memory neighbour exchange) dispatched
 * through PM4 writing the same bytes as through an AQL queue and as the
 * C reference. CP DMA copies and fills, the kernarg arena running out
 * (RESOURCE_EXHAUSTED until a fence passes) and BUSY on destroying a
 * queue with work in flight. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_kernels.h"
#include "gfx11_test_util.h"
#include "hrx/fabric.h"
#include "hrx/loom.h"
#include "kfd_pm4_compute.h"
#include "pm4_packets.h"
#include "test_support.h"

#define GFX1151 HRX_KFD_FIXTURES "/gfx1151"
#define WAIT_NS (UINT64_C(60) * 1000000000u)
#define RING_BYTES 65536u
#define QUEUE_PACKETS 64u

/*===------------------------------------------------------------------===*/
/* The encoder                                                             */
/*===------------------------------------------------------------------===*/

#define OBJECT UINT64_C(0x7f1234560000)
#define ENTRY_OFFSET 0x1000

/* A wave32 descriptor loading the kernarg pointer (2 user SGPRs). */
static void descriptor(uint8_t kd[64], uint32_t properties, uint32_t rsrc2) {
  memset(kd, 0, 64);
  int64_t entry = ENTRY_OFFSET;
  uint32_t rsrc1 = 0x600c0041u, rsrc3 = 0x5u;
  memcpy(kd + 16, &entry, 8);
  memcpy(kd + 44, &rsrc3, 4);
  memcpy(kd + 48, &rsrc1, 4);
  memcpy(kd + 52, &rsrc2, 4);
  memcpy(kd + 56, &properties, 4);
}

static hrx_aql_dispatch_packet_t packet(uint32_t gx, uint32_t gy, uint32_t gz,
                                        uint16_t wx, uint16_t wy,
                                        uint16_t wz) {
  hrx_aql_dispatch_packet_t p;
  memset(&p, 0, sizeof(p));
  p.grid_size_x = gx;
  p.grid_size_y = gy;
  p.grid_size_z = gz;
  p.workgroup_size_x = wx;
  p.workgroup_size_y = wy;
  p.workgroup_size_z = wz;
  p.setup = 3;
  return p;
}

static uint32_t set_sh(uint32_t count) {
  return 3u << 30 | (count) << 16 | HRX_PM4_SET_SH_REG << 8;
}

static void test_encode_golden(void** state) {
  (void)state;
  uint8_t kd[64];
  descriptor(kd, 1u << 3 | 1u << 10, 2u << 1 | 1u << 7);
  hrx_aql_dispatch_packet_t p = packet(512, 6, 1, 256, 2, 1);
  p.group_segment_size = 1000; /* two LDS granules */
  uint32_t dwords[HRX_KFD_PM4_DISPATCH_MAX_DWORDS];
  size_t count = 0;
  uint64_t kernarg = UINT64_C(0x7f00aabbcc00);
  assert_ok(hrx_kfd_pm4_encode_dispatch(kd, OBJECT, &p, kernarg, "k", dwords,
                                        HRX_KFD_PM4_DISPATCH_MAX_DWORDS,
                                        &count));
  uint64_t entry = OBJECT + ENTRY_OFFSET;
  const uint32_t want[] = {
      set_sh(3), 0x204, 0, 0, 0,                       /* START_X..Z */
      set_sh(3), 0x207, 256, 2, 1,                     /* NUM_THREAD */
      set_sh(2), 0x20C, (uint32_t)(entry >> 8), 0x7f,  /* PGM_LO/HI */
      set_sh(2), 0x212, 0x600c0041u, 2u << 1 | 1u << 7 | 2u << 15,
      set_sh(1), 0x228, 0x5,                           /* RSRC3 */
      set_sh(1), 0x215, 0,                             /* RESOURCE_LIMITS */
      set_sh(1), 0x218, 0,                             /* TMPRING_SIZE */
      set_sh(2), 0x240, 0xaabbcc00u, 0x7f00u,          /* USER_DATA_0/1 */
      3u << 30 | 3u << 16 | HRX_PM4_DISPATCH_DIRECT << 8, 2, 3, 1,
      HRX_PM4_INITIATOR_COMPUTE_SHADER_EN | HRX_PM4_INITIATOR_CS_W32_EN,
  };
  assert_int_equal(count, sizeof(want) / sizeof(want[0]));
  assert_memory_equal(dwords, want, sizeof(want));

  /* A partial last group: thread counts and NUM_THREAD_PARTIAL. */
  p = packet(1000, 1, 1, 256, 1, 1);
  assert_ok(hrx_kfd_pm4_encode_dispatch(kd, OBJECT, &p, kernarg, "k", dwords,
                                        HRX_KFD_PM4_DISPATCH_MAX_DWORDS,
                                        &count));
  assert_int_equal(dwords[7], 256u | (1000u % 256u) << 16);
  assert_int_equal(dwords[count - 4], 1000);
  assert_int_equal(dwords[count - 1],
                   HRX_PM4_INITIATOR_COMPUTE_SHADER_EN |
                       HRX_PM4_INITIATOR_CS_W32_EN |
                       HRX_PM4_INITIATOR_USE_THREAD_DIMENSIONS);

  /* No user SGPRs, wave64: no USER_DATA, no CS_W32_EN. */
  descriptor(kd, 0, 0);
  p = packet(64, 1, 1, 64, 1, 1);
  assert_ok(hrx_kfd_pm4_encode_dispatch(kd, OBJECT, &p, kernarg, "k", dwords,
                                        HRX_KFD_PM4_DISPATCH_MAX_DWORDS,
                                        &count));
  assert_int_equal(count, sizeof(want) / sizeof(want[0]) - 4);
  assert_int_equal(dwords[count - 1], HRX_PM4_INITIATOR_COMPUTE_SHADER_EN);

  /* An empty grid writes nothing. */
  p = packet(0, 1, 1, 64, 1, 1);
  assert_ok(hrx_kfd_pm4_encode_dispatch(kd, OBJECT, &p, kernarg, "k", dwords,
                                        HRX_KFD_PM4_DISPATCH_MAX_DWORDS,
                                        &count));
  assert_int_equal(count, 0);
}

static void test_encode_refusals(void** state) {
  (void)state;
  uint8_t kd[64];
  uint32_t dwords[HRX_KFD_PM4_DISPATCH_MAX_DWORDS];
  size_t count = 0;
  hrx_aql_dispatch_packet_t p = packet(64, 1, 1, 64, 1, 1);
  /* Dispatch pointer and kernarg pointer: 4 user SGPRs. */
  descriptor(kd, 1u << 1 | 1u << 3 | 1u << 10, 4u << 1);
  assert_status(hrx_kfd_pm4_encode_dispatch(kd, OBJECT, &p, 0, "dp", dwords,
                                            64, &count),
                HRX_STATUS_UNIMPLEMENTED, "'dp' asks for the dispatch pointer");
  /* Kernarg preloading: more user SGPRs than enabled. */
  descriptor(kd, 1u << 3 | 1u << 10, 6u << 1);
  assert_status(hrx_kfd_pm4_encode_dispatch(kd, OBJECT, &p, 0, "pre", dwords,
                                            64, &count),
                HRX_STATUS_UNIMPLEMENTED, "kernarg preloading");
  /* Scratch, from the descriptor or the packet. */
  descriptor(kd, 1u << 3 | 1u << 10, 2u << 1 | HRX_PM4_RSRC2_SCRATCH_EN);
  assert_status(hrx_kfd_pm4_encode_dispatch(kd, OBJECT, &p, 0, "s", dwords,
                                            64, &count),
                HRX_STATUS_UNIMPLEMENTED, "scratch");
  descriptor(kd, 1u << 3 | 1u << 10, 2u << 1);
  p.private_segment_size = 16;
  assert_status(hrx_kfd_pm4_encode_dispatch(kd, OBJECT, &p, 0, "s", dwords,
                                            64, &count),
                HRX_STATUS_UNIMPLEMENTED, "scratch");
  p.private_segment_size = 0;
  p.group_segment_size = 65537;
  assert_status(hrx_kfd_pm4_encode_dispatch(kd, OBJECT, &p, 0, "big", dwords,
                                            64, &count),
                HRX_STATUS_INVALID_ARGUMENT, "65537 bytes of workgroup");
  p.group_segment_size = 0;
  p.workgroup_size_y = 0;
  assert_status(hrx_kfd_pm4_encode_dispatch(kd, OBJECT, &p, 0, "w", dwords,
                                            64, &count),
                HRX_STATUS_INVALID_ARGUMENT, "workgroup size 1 is 0");
  p.workgroup_size_y = 1;
  assert_status(hrx_kfd_pm4_encode_dispatch(kd, OBJECT + 64, &p, 0, "m",
                                            dwords, 64, &count),
                HRX_STATUS_INVALID_ARGUMENT, "not a 256-byte aligned");
  /* A short buffer: nothing usable, and said so. */
  assert_status_code(hrx_kfd_pm4_encode_dispatch(kd, OBJECT, &p, 0, "short",
                                                 dwords, 20, &count),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
}

/*===------------------------------------------------------------------===*/
/* On the model                                                            */
/*===------------------------------------------------------------------===*/

typedef struct env_t {
  hrx_fabric_device_t* device;
  hrx_fabric_queue_t* aql;
  hrx_kfd_pm4_compute_t* pm4;
} env_t;

static int setup(void** state) {
  env_t* e = calloc(1, sizeof(*e));
  assert_non_null(e);
  assert_int_equal(setenv("HRX_KFD_MODEL", GFX1151, 1), 0);
  assert_ok(hrx_fabric_kfd_device_create(0, hrx_allocator_system(),
                                         &e->device));
  assert_ok(hrx_fabric_queue_create(e->device, QUEUE_PACKETS, &e->aql));
  assert_ok(hrx_kfd_pm4_compute_create(hrx_kfd_device_cast(e->device),
                                       RING_BYTES, 4, &e->pm4));
  *state = e;
  return 0;
}

static int teardown(void** state) {
  env_t* e = *state;
  assert_ok(hrx_kfd_pm4_compute_destroy(e->pm4));
  hrx_fabric_queue_destroy(e->aql);
  hrx_fabric_device_release(e->device);
  free(e);
  return 0;
}

static hrx_fabric_executable_t* load(env_t* e, const char* file,
                                     const char* source, const char* name,
                                     const hrx_fabric_kernel_t** out) {
  hrx_loom_artifact_t* artifact = NULL;
  if (file) {
    artifact = gfx11_test_compile(file, NULL);
  } else {
    hrx_loom_compiler_options_t options =
        HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
    options.disable_cache = true;
    hrx_loom_compiler_t* compiler = NULL;
    assert_ok(hrx_loom_compiler_create("gfx1151", &options,
                                       hrx_allocator_system(), &compiler));
    hrx_loom_compile_request_t request = {
        .source = source, .length = strlen(source), .source_name = name};
    assert_ok(hrx_loom_compile(compiler, &request, NULL, &artifact));
    hrx_loom_compiler_destroy(compiler);
  }
  size_t length = 0;
  const uint8_t* code = hrx_loom_artifact_code(artifact, &length);
  hrx_fabric_executable_t* exe = NULL;
  assert_ok(hrx_fabric_executable_load(e->device, code, length, &exe));
  hrx_loom_artifact_destroy(artifact);
  assert_ok(hrx_fabric_executable_find_kernel(exe, name, out));
  return exe;
}

/* Runs |p| (its kernarg segment host memory) through the AQL queue. */
static void run_aql(env_t* e, hrx_aql_dispatch_packet_t p) {
  hrx_fabric_signal_t* done = NULL;
  assert_ok(hrx_fabric_device_signal_create(e->device, 1, &done));
  uint64_t index = 0;
  assert_ok(hrx_fabric_queue_reserve(e->aql, 1, &index));
  hrx_aql_dispatch_packet_t* slot =
      &hrx_fabric_queue_slot(e->aql, index)->dispatch;
  memcpy((uint8_t*)slot + 4, (uint8_t*)&p + 4, sizeof(p) - 4);
  slot->completion_signal = hrx_fabric_signal_handle(done);
  hrx_fabric_queue_publish(
      e->aql, index,
      hrx_aql_header(HRX_AQL_PACKET_KERNEL_DISPATCH, 1, HRX_AQL_FENCE_SYSTEM,
                     HRX_AQL_FENCE_SYSTEM),
      p.setup);
  int64_t value = 1;
  assert_ok(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1, WAIT_NS,
                                   &value));
  assert_int_equal(value, 0);
  hrx_fabric_signal_release(done);
}

/* Runs |p| through the PM4 queue and waits for its fence. */
static void run_pm4(env_t* e, const hrx_aql_dispatch_packet_t* p) {
  assert_ok(hrx_kfd_pm4_compute_dispatch(e->pm4, p));
  uint64_t fence = 0;
  assert_ok(hrx_kfd_pm4_compute_submit(e->pm4, &fence));
  assert_ok(hrx_kfd_user_queue_wait(hrx_kfd_pm4_compute_queue(e->pm4), fence,
                                    WAIT_NS));
}

static hrx_fabric_memory_t gpu_memory(env_t* e, uint64_t bytes) {
  hrx_fabric_memory_t m;
  assert_ok(hrx_fabric_memory_allocate(e->device, bytes,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                       &m));
  memset(m.host_pointer, 0, bytes);
  return m;
}

static void put_arg(uint8_t* kernarg, const hrx_fabric_kernel_info_t* info,
                    uint32_t index, uint64_t value) {
  memcpy(kernarg + info->args[index].offset, &value, info->args[index].size);
}

/* saxpy over |n| elements with workgroups of 256 and a grid of |grid|:
 * y = alpha x + y through AQL and through PM4 from the same inputs. */
static void saxpy_case(env_t* e, const hrx_fabric_kernel_t* kernel,
                       uint32_t n, uint32_t grid) {
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  hrx_fabric_memory_t m = gpu_memory(e, 3 * 4 * (uint64_t)n);
  float* x = m.host_pointer;
  float* y_aql = x + n;
  float* y_pm4 = y_aql + n;
  float alpha = 1.0f + 0x1p-23f;
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = 1.0f + (float)i * 0x1p-22f;
    y_aql[i] = y_pm4[i] = -(1.0f + (float)(i + 1) * 0x1p-21f);
  }
  float* want = malloc(4 * (size_t)n);
  assert_non_null(want);
  for (uint32_t i = 0; i < n; ++i) want[i] = fmaf(alpha, x[i], y_aql[i]);
  uint8_t* kernarg = calloc(1, info.kernarg_size);
  assert_non_null(kernarg);
  uint32_t bits;
  memcpy(&bits, &alpha, 4);
  put_arg(kernarg, &info, 0, n);
  put_arg(kernarg, &info, 1, bits);
  put_arg(kernarg, &info, 2, m.device_address);
  hrx_aql_dispatch_packet_t p = packet(grid, 1, 1, 256, 1, 1);
  p.kernel_object = hrx_fabric_kernel_object(kernel);
  p.kernarg_address = (uint64_t)(uintptr_t)kernarg;
  put_arg(kernarg, &info, 3, m.device_address + 4ull * n);
  run_aql(e, p);
  put_arg(kernarg, &info, 3, m.device_address + 8ull * n);
  run_pm4(e, &p);
  assert_memory_equal(y_aql, want, 4 * (size_t)n);
  assert_memory_equal(y_pm4, y_aql, 4 * (size_t)n);
  free(kernarg);
  free(want);
  hrx_fabric_memory_free(e->device, &m);
}

static void test_saxpy(void** state) {
  env_t* e = *state;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe =
      load(e, "saxpy.loom", NULL, "saxpy", &kernel);
  static const uint32_t sizes[] = {1, 31, 256, 1000, 4099};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    uint32_t n = sizes[i];
    saxpy_case(e, kernel, n, (n + 255) / 256 * 256); /* whole groups */
    saxpy_case(e, kernel, n, n);                     /* a partial one */
  }
  hrx_fabric_executable_release(exe);
}

/* The corpus's 3-D ids (workgroups of 5x3x4, two of them) and its
 * workgroup-memory neighbour exchange behind a barrier. */
static void test_corpus(void** state) {
  env_t* e = *state;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe =
      load(e, NULL, corpus_ids_kernel, "ids", &kernel);
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  const uint64_t bytes = 2 * 60 * 3 * 4;
  hrx_fabric_memory_t m = gpu_memory(e, 2 * bytes);
  uint8_t* kernarg = calloc(1, info.kernarg_size);
  assert_non_null(kernarg);
  hrx_aql_dispatch_packet_t p = packet(10, 3, 4, 5, 3, 4);
  p.kernel_object = hrx_fabric_kernel_object(kernel);
  p.kernarg_address = (uint64_t)(uintptr_t)kernarg;
  put_arg(kernarg, &info, 0, m.device_address);
  run_aql(e, p);
  put_arg(kernarg, &info, 0, m.device_address + bytes);
  run_pm4(e, &p);
  const int32_t* out = m.host_pointer;
  for (int g = 0; g < 2; ++g) {
    for (int flat = 0; flat < 60; ++flat) {
      const int32_t* row = out + (g * 60 + flat) * 3;
      assert_int_equal(row[0], flat % 5);
      assert_int_equal(row[1], flat / 5 % 3);
      assert_int_equal(row[2], flat / 15);
    }
  }
  assert_memory_equal((uint8_t*)m.host_pointer + bytes, m.host_pointer,
                      bytes);
  free(kernarg);
  hrx_fabric_memory_free(e->device, &m);
  hrx_fabric_executable_release(exe);

  char* text = corpus_neighbour_kernel(true);
  exe = load(e, NULL, text, "neighbour", &kernel);
  free(text);
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  assert_true(info.group_segment_size >= 256);
  m = gpu_memory(e, 2 * 256);
  kernarg = calloc(1, info.kernarg_size);
  assert_non_null(kernarg);
  p = packet(64, 1, 1, 64, 1, 1);
  p.kernel_object = hrx_fabric_kernel_object(kernel);
  p.kernarg_address = (uint64_t)(uintptr_t)kernarg;
  p.group_segment_size = info.group_segment_size;
  put_arg(kernarg, &info, 0, m.device_address);
  run_aql(e, p);
  put_arg(kernarg, &info, 0, m.device_address + 256);
  run_pm4(e, &p);
  out = m.host_pointer;
  for (int i = 0; i < 64; ++i) assert_int_equal(out[i], (i + 1) & 63);
  assert_memory_equal(out + 64, out, 256);
  free(kernarg);
  hrx_fabric_memory_free(e->device, &m);
  hrx_fabric_executable_release(exe);
}

/* Kernarg slots come back once their fence passed; a queue with work in
 * flight refuses destruction; copies and fills by CP DMA. */
static void test_arena_copy_fill(void** state) {
  env_t* e = *state;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe =
      load(e, "saxpy.loom", NULL, "saxpy", &kernel);
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  hrx_fabric_memory_t m = gpu_memory(e, 4096);
  uint8_t* kernarg = calloc(1, info.kernarg_size);
  assert_non_null(kernarg);
  /* n = 0: every dispatch runs, none writes. */
  put_arg(kernarg, &info, 2, m.device_address);
  put_arg(kernarg, &info, 3, m.device_address);
  hrx_aql_dispatch_packet_t p = packet(256, 1, 1, 256, 1, 1);
  p.kernel_object = hrx_fabric_kernel_object(kernel);
  p.kernarg_address = (uint64_t)(uintptr_t)kernarg;
  for (int i = 0; i < 4; ++i) {
    assert_ok(hrx_kfd_pm4_compute_dispatch(e->pm4, &p));
  }
  assert_status(hrx_kfd_pm4_compute_dispatch(e->pm4, &p),
                HRX_STATUS_RESOURCE_EXHAUSTED, "submit and wait");
  uint64_t fence = 0;
  assert_ok(hrx_kfd_pm4_compute_submit(e->pm4, &fence));
  hrx_kfd_user_queue_t* q = hrx_kfd_pm4_compute_queue(e->pm4);
  assert_ok(hrx_kfd_user_queue_wait(q, fence, WAIT_NS));
  assert_ok(hrx_kfd_pm4_compute_dispatch(e->pm4, &p));

  /* Unknown kernels are refused before anything is written. */
  hrx_aql_dispatch_packet_t bad = p;
  bad.kernel_object = m.device_address;
  assert_status(hrx_kfd_pm4_compute_dispatch(e->pm4, &bad),
                HRX_STATUS_INVALID_ARGUMENT, "no kernel loaded");

  uint8_t* bytes = m.host_pointer;
  for (int i = 0; i < 1024; ++i) bytes[i] = (uint8_t)(i * 7 + 1);
  assert_ok(hrx_kfd_pm4_compute_copy(e->pm4, m.device_address + 2048 + 3,
                                     m.device_address + 5, 1000));
  assert_ok(hrx_kfd_pm4_compute_fill(e->pm4, m.device_address + 3072,
                                     0xa1b2c3d4u, 64));
  assert_status(hrx_kfd_pm4_compute_fill(e->pm4, m.device_address + 1, 0, 4),
                HRX_STATUS_INVALID_ARGUMENT, "4-byte aligned");
  assert_status(hrx_kfd_pm4_compute_copy(e->pm4, m.device_address + 4000,
                                         m.device_address, 200),
                HRX_STATUS_INVALID_ARGUMENT, "copy destination");
  assert_status(hrx_kfd_pm4_compute_copy(e->pm4, m.device_address + 10,
                                         m.device_address, 20),
                HRX_STATUS_INVALID_ARGUMENT, "overlap");
  assert_ok(hrx_kfd_pm4_compute_submit(e->pm4, &fence));
  assert_ok(hrx_kfd_user_queue_wait(q, fence, WAIT_NS));
  assert_memory_equal(bytes + 2048 + 3, bytes + 5, 1000);
  for (int i = 0; i < 16; ++i) {
    assert_int_equal(((uint32_t*)(bytes + 3072))[i], 0xa1b2c3d4u);
  }
  assert_int_equal(((uint32_t*)(bytes + 3072))[16], 0);

  /* Work parked behind a wait keeps the queue from going. */
  uint64_t word = m.device_address + 4088;
  hrx_pm4_wait_t wait = {.address = word, .reference = 1, .mask = ~0ull,
                         .compare = HRX_PM4_COMPARE_EQUAL};
  uint32_t dwords[HRX_PM4_WAIT_REG_MEM64_DWORDS];
  size_t count = 0;
  assert_ok(hrx_pm4_wait_reg_mem64(&wait, dwords, 16, &count));
  assert_ok(hrx_kfd_user_queue_append(q, dwords, (uint32_t)count));
  assert_ok(hrx_kfd_pm4_compute_submit(e->pm4, &fence));
  assert_status(hrx_kfd_pm4_compute_destroy(e->pm4), HRX_STATUS_BUSY,
                "in flight");
  /* The value never arrives (yet): the wait times out naming the queue
   * and the fence, and the queue stays usable. */
  char awaited[32];
  snprintf(awaited, sizeof(awaited), "fence %llu", (unsigned long long)fence);
  hrx_status_t timed_out =
      hrx_kfd_user_queue_wait(q, fence, UINT64_C(50) * 1000000u);
  char text[512];
  hrx_status_format(timed_out, text, sizeof(text));
  assert_non_null(strstr(text, hrx_kfd_user_queue_name(q)));
  assert_status(timed_out, HRX_STATUS_DEADLINE_EXCEEDED, awaited);
  __atomic_store_n((uint64_t*)(bytes + 4088), 1, __ATOMIC_RELEASE);
  assert_ok(hrx_kfd_user_queue_wait(q, fence, WAIT_NS));
  assert_ok(hrx_kfd_pm4_compute_fill(e->pm4, m.device_address + 3072, 5u, 4));
  assert_ok(hrx_kfd_pm4_compute_submit(e->pm4, &fence));
  assert_ok(hrx_kfd_user_queue_wait(q, fence, WAIT_NS));
  assert_int_equal(((uint32_t*)(bytes + 3072))[0], 5u);
  free(kernarg);
  hrx_fabric_memory_free(e->device, &m);
  hrx_fabric_executable_release(exe);
}

/*===------------------------------------------------------------------===*/
/* The public queue (hrx/fabric/pm4.h)                                     */
/*===------------------------------------------------------------------===*/

static void test_public_host_unavailable(void** state) {
  (void)state;
  hrx_fabric_device_t* host = NULL;
  assert_ok(hrx_fabric_host_device_create(NULL, hrx_allocator_system(),
                                          &host));
  hrx_fabric_pm4_queue_t* q = (hrx_fabric_pm4_queue_t*)1;
  assert_status(hrx_fabric_pm4_queue_create(host, &q), HRX_STATUS_UNAVAILABLE,
                "has no PM4 command processor");
  assert_null(q);
  hrx_fabric_queue_family_info_t f[HRX_FABRIC_QUEUE_FAMILY_COUNT];
  for (int i = 0; i < HRX_FABRIC_QUEUE_FAMILY_COUNT; ++i) {
    const hrx_fabric_queue_family_info_t init =
        HRX_STRUCT_INIT(hrx_fabric_queue_family_info_t);
    f[i] = init;
    assert_ok(hrx_fabric_device_queue_family_info(
        host, (hrx_fabric_queue_family_t)i, &f[i]));
  }
  assert_int_equal(f[HRX_FABRIC_QUEUE_FAMILY_PM4_COMPUTE].queue_count, 0);
  hrx_fabric_device_release(host);
}

/* saxpy through the public queue, then a dispatch writing far outside
 * every allocation: the wait answers ABORTED naming the queue, the queue
 * reports it from then on, and destroy (nothing left to run) succeeds. */
static void test_public_dispatch_and_fault(void** state) {
  env_t* e = *state;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe =
      load(e, "saxpy.loom", NULL, "saxpy", &kernel);
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  hrx_fabric_pm4_queue_t* q = NULL;
  assert_ok(hrx_fabric_pm4_queue_create(e->device, &q));
  assert_non_null(strstr(hrx_fabric_pm4_queue_name(q), "PM4 queue"));
  const uint32_t n = 300;
  hrx_fabric_memory_t m = gpu_memory(e, 3 * 4 * n);
  float* x = m.host_pointer;
  float* y = x + n;
  for (uint32_t i = 0; i < n; ++i) {
    x[i] = (float)i;
    y[i] = 0.5f;
  }
  uint8_t* kernarg = calloc(1, info.kernarg_size);
  assert_non_null(kernarg);
  float alpha = 2.0f;
  uint32_t bits;
  memcpy(&bits, &alpha, 4);
  put_arg(kernarg, &info, 0, n);
  put_arg(kernarg, &info, 1, bits);
  put_arg(kernarg, &info, 2, m.device_address);
  put_arg(kernarg, &info, 3, m.device_address + 4 * n);
  hrx_aql_dispatch_packet_t p = packet(n, 1, 1, 256, 1, 1);
  p.kernel_object = hrx_fabric_kernel_object(kernel);
  p.kernarg_address = (uint64_t)(uintptr_t)kernarg;
  assert_ok(hrx_fabric_pm4_dispatch(q, &p));
  /* The kernarg segment was copied: the caller may reuse it at once. */
  memset(kernarg, 0xff, info.kernarg_size);
  assert_ok(hrx_fabric_pm4_copy(q, m.device_address + 8 * n,
                                m.device_address + 4 * n, 4 * n));
  uint64_t fence = 0;
  assert_ok(hrx_fabric_pm4_submit(q, &fence));
  assert_int_equal(fence, 1);
  assert_ok(hrx_fabric_pm4_wait(q, fence, WAIT_NS));
  assert_true(hrx_fabric_pm4_completed(q) >= 1);
  for (uint32_t i = 0; i < n; ++i) {
    assert_true(y[i] == 2.0f * (float)i + 0.5f);
  }
  assert_memory_equal(y + n, y, 4 * n);
  assert_ok(hrx_fabric_pm4_fill(q, m.device_address, 7u, 4 * n));
  assert_ok(hrx_fabric_pm4_submit(q, &fence));
  assert_ok(hrx_fabric_pm4_wait(q, fence, WAIT_NS));
  assert_int_equal(((uint32_t*)x)[n - 1], 7u);
  assert_status(hrx_fabric_pm4_wait(q, fence + 1, WAIT_NS),
                HRX_STATUS_INVALID_ARGUMENT, "never submitted");

  /* y far outside every allocation: the kernel faults. */
  memset(kernarg, 0, info.kernarg_size);
  put_arg(kernarg, &info, 0, n);
  put_arg(kernarg, &info, 2, m.device_address);
  put_arg(kernarg, &info, 3, UINT64_C(1) << 46);
  assert_ok(hrx_fabric_pm4_dispatch(q, &p));
  assert_ok(hrx_fabric_pm4_submit(q, &fence));
  hrx_status_t waited = hrx_fabric_pm4_wait(q, fence, WAIT_NS);
  assert_int_equal(hrx_status_code(waited), HRX_STATUS_ABORTED);
  assert_non_null(strstr(hrx_status_message(waited),
                         hrx_fabric_pm4_queue_name(q)));
  hrx_status_free(waited);
  assert_status_code(hrx_fabric_pm4_queue_check(q), HRX_STATUS_ABORTED);
  assert_ok(hrx_fabric_pm4_queue_destroy(q));

  /* Abort takes a queue whatever it still runs. */
  assert_ok(hrx_fabric_pm4_queue_create(e->device, &q));
  put_arg(kernarg, &info, 3, m.device_address + 4 * n);
  assert_ok(hrx_fabric_pm4_dispatch(q, &p));
  assert_ok(hrx_fabric_pm4_submit(q, &fence));
  hrx_fabric_pm4_queue_abort(q);
  free(kernarg);
  hrx_fabric_memory_free(e->device, &m);
  hrx_fabric_executable_release(exe);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_encode_golden),
      cmocka_unit_test(test_encode_refusals),
      cmocka_unit_test_setup_teardown(test_saxpy, setup, teardown),
      cmocka_unit_test_setup_teardown(test_corpus, setup, teardown),
      cmocka_unit_test_setup_teardown(test_arena_copy_fill, setup, teardown),
      cmocka_unit_test(test_public_host_unavailable),
      cmocka_unit_test_setup_teardown(test_public_dispatch_and_fault, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
