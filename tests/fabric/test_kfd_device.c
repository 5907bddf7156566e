/* The kfd provider as a fabric device, on the KFD model: a device opened
 * on the checked-in gfx1151 topology (and refused on the others), every
 * ioctl of creation and use failed in turn by the model's injection, GPU
 * memory round trips, saxpy compiled for gfx1151 dispatched and checked
 * against C, copies and fills through HRX agent packets, a faulting
 * dispatch stopping only its own queue, and corrupted code objects.
 *
 * Every test checks that nothing leaks: host allocations through a
 * counting allocator (locked, since the model's packet processor allocates
 * on its own thread), file descriptors against /proc/self/fd, and GPU
 * allocations and queues against the model's own tables.
 *
 * The tests at the end pin provider bugs this suite found (now fixed). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gfx11_test_util.h"
#include "hrx/fabric.h"
#include "hrx/loom.h"
#include "kfd_device.h"
#include "kfd_ioctl.h"
#include "kfd_model.h"
#include "kfd_model_internal.h"
#include "test_support.h"

#define GFX1151 HRX_KFD_FIXTURES "/gfx1151"
#define GFX1100 HRX_KFD_FIXTURES "/gfx1100"
#define NO_GPU HRX_KFD_FIXTURES "/no_gpu"
/* Generous for ASan and loaded machines: a small saxpy on the model takes
 * milliseconds; a transfer of 2^20 work-items about a second alone. */
#define WAIT_NS (UINT64_C(20) * 1000000000u)
#define WAIT_LONG_NS (UINT64_C(100) * 1000000000u)
/* An address no allocation can hold: mmap places the device's 64 GiB
 * reservation near the top of the 47-bit user space, far above 2^46. */
#define FAR_AWAY (UINT64_C(1) << 46)
#define QUEUE_PACKETS 64u

/*===------------------------------------------------------------------===*/
/* The compiled saxpy, shared by every test                                */
/*===------------------------------------------------------------------===*/

static uint8_t* saxpy_code;
static size_t saxpy_length;

static int compile_saxpy(void** state) {
  (void)state;
  hrx_loom_artifact_t* artifact = gfx11_test_compile("saxpy.loom", NULL);
  const uint8_t* code = hrx_loom_artifact_code(artifact, &saxpy_length);
  saxpy_code = malloc(saxpy_length);
  assert_non_null(saxpy_code);
  memcpy(saxpy_code, code, saxpy_length);
  hrx_loom_artifact_destroy(artifact);
  return 0;
}

static int free_saxpy(void** state) {
  (void)state;
  free(saxpy_code);
  saxpy_code = NULL;
  return 0;
}

/*===------------------------------------------------------------------===*/
/* A thread-safe counting allocator                                        */
/*===------------------------------------------------------------------===*/

typedef struct locked_allocator_t {
  pthread_mutex_t mutex;
  test_allocator_t counter;
  hrx_allocator_t inner;
} locked_allocator_t;

static void* locked_alloc(void* self, size_t size) {
  locked_allocator_t* l = self;
  pthread_mutex_lock(&l->mutex);
  void* p = l->inner.alloc(l->inner.self, size);
  pthread_mutex_unlock(&l->mutex);
  return p;
}

static void* locked_realloc(void* self, void* ptr, size_t size) {
  locked_allocator_t* l = self;
  pthread_mutex_lock(&l->mutex);
  void* p = l->inner.realloc(l->inner.self, ptr, size);
  pthread_mutex_unlock(&l->mutex);
  return p;
}

static void locked_free(void* self, void* ptr) {
  locked_allocator_t* l = self;
  pthread_mutex_lock(&l->mutex);
  l->inner.free(l->inner.self, ptr);
  pthread_mutex_unlock(&l->mutex);
}

static hrx_allocator_t locked_allocator(locked_allocator_t* l) {
  pthread_mutex_init(&l->mutex, NULL);
  l->counter = (test_allocator_t){0};
  l->inner = test_allocator(&l->counter);
  return (hrx_allocator_t){.self = l,
                           .alloc = locked_alloc,
                           .realloc = locked_realloc,
                           .free = locked_free};
}

static size_t locked_live(locked_allocator_t* l) {
  pthread_mutex_lock(&l->mutex);
  size_t live = l->counter.live;
  pthread_mutex_unlock(&l->mutex);
  return live;
}

/*===------------------------------------------------------------------===*/
/* Environment: one model, one device                                      */
/*===------------------------------------------------------------------===*/

typedef struct env_t {
  locked_allocator_t allocator;
  size_t fds_before;
  hrx_kfd_model_t* model; /* owned by |device| once it exists */
  hrx_fabric_device_t* device;
  size_t gpu_allocations; /* the model's allocations of a fresh device */
} env_t;

/* The model's live allocations and queues. */
static size_t model_allocations(hrx_kfd_model_t* m) {
  pthread_mutex_lock(&m->mutex);
  size_t count = 0;
  for (size_t i = 0; i < KFD_MODEL_MAX_ALLOCATIONS; ++i) {
    count += m->allocations[i].size != 0;
  }
  pthread_mutex_unlock(&m->mutex);
  return count;
}

static size_t model_queues(hrx_kfd_model_t* m) {
  pthread_mutex_lock(&m->mutex);
  size_t count = 0;
  for (size_t i = 0; i < KFD_MODEL_MAX_QUEUES; ++i) {
    count += m->queues[i].used;
  }
  pthread_mutex_unlock(&m->mutex);
  return count;
}

static uint32_t model_injections_seen(hrx_kfd_model_t* m) {
  pthread_mutex_lock(&m->mutex);
  uint32_t seen = m->inject_seen;
  pthread_mutex_unlock(&m->mutex);
  return seen;
}

/* Creates a model of |fixture| and device |index| on it, with the
 * |nth| ioctl |request| failing with |error| (nth 0: none). */
static hrx_status_t env_try_open(env_t* e, const char* fixture, size_t index,
                                 unsigned long request, uint32_t nth,
                                 int error) {
  memset(e, 0, sizeof(*e));
  e->fds_before = test_dir_count("/proc/self/fd", NULL);
  hrx_allocator_t allocator = locked_allocator(&e->allocator);
  HRX_RETURN_IF_ERROR(hrx_kfd_model_create(fixture, allocator, &e->model));
  if (nth) hrx_kfd_model_inject(e->model, request, nth, error);
  hrx_kfd_sys_t sys = hrx_kfd_model_sys(e->model);
  hrx_status_t status =
      hrx_kfd_device_create_with(e->model, &sys, index, allocator, &e->device);
  if (status != HRX_OK) {
    e->model = NULL; /* destroyed by the failed create */
    e->device = NULL;
    return status;
  }
  hrx_kfd_model_inject(e->model, 0, 0, 0);
  e->gpu_allocations = model_allocations(e->model);
  return HRX_OK;
}

static void env_open(env_t* e) {
  assert_ok(env_try_open(e, GFX1151, 0, 0, 0, 0));
}

/* Nothing of a failed or closed device is left. */
static void env_check_clean(env_t* e) {
  assert_int_equal(locked_live(&e->allocator), 0);
  assert_int_equal(test_dir_count("/proc/self/fd", NULL), e->fds_before);
  pthread_mutex_destroy(&e->allocator.mutex);
}

/* Releases the device after checking that every GPU allocation and queue
 * the test made is gone again (signal chunks stay pooled until the device
 * goes), then checks that nothing is left. */
static void env_close(env_t* e) {
  hrx_kfd_device_t* d = hrx_kfd_device_cast(e->device);
  assert_int_equal(model_queues(e->model), 0);
  assert_int_equal(model_allocations(e->model),
                   e->gpu_allocations + d->signal_chunk_count);
  assert_int_equal(d->executable_count, 1); /* the blit kernels */
  hrx_fabric_device_release(e->device);
  e->device = NULL;
  e->model = NULL;
  env_check_clean(e);
}

static hrx_fabric_signal_t* device_signal(env_t* e, int64_t value) {
  hrx_fabric_signal_t* s = NULL;
  assert_ok(hrx_fabric_device_signal_create(e->device, value, &s));
  return s;
}

/* Waits for |s| to drop below 1 and returns its value. */
static int64_t wait_signal(hrx_fabric_signal_t* s) {
  int64_t value = 0;
  assert_ok(hrx_fabric_signal_wait(s, HRX_FABRIC_SIGNAL_LT, 1, WAIT_NS,
                                   &value));
  return value;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*===------------------------------------------------------------------===*/
/* Packets                                                                 */
/*===------------------------------------------------------------------===*/

static uint16_t header_of(hrx_aql_packet_type_t type) {
  return hrx_aql_header(type, 1, HRX_AQL_FENCE_SYSTEM, HRX_AQL_FENCE_SYSTEM);
}

static void publish_dispatch(hrx_fabric_queue_t* q,
                             const hrx_fabric_kernel_t* kernel,
                             uint64_t kernarg, uint32_t grid,
                             uint16_t workgroup, hrx_fabric_signal_t* done) {
  uint64_t index = 0;
  assert_ok(hrx_fabric_queue_reserve(q, 1, &index));
  hrx_aql_dispatch_packet_t* p = &hrx_fabric_queue_slot(q, index)->dispatch;
  memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
  p->workgroup_size_x = workgroup;
  p->workgroup_size_y = p->workgroup_size_z = 1;
  p->grid_size_x = grid;
  p->grid_size_y = p->grid_size_z = 1;
  p->kernel_object = hrx_fabric_kernel_object(kernel);
  p->kernarg_address = kernarg;
  p->completion_signal = done ? hrx_fabric_signal_handle(done) : 0;
  hrx_fabric_queue_publish(q, index, header_of(HRX_AQL_PACKET_KERNEL_DISPATCH),
                           1);
}

/* A copy or fill agent packet; the operation travels in |setup|. */
static void publish_agent(hrx_fabric_queue_t* q, hrx_aql_agent_op_t op,
                          uint64_t a0, uint64_t a1, uint64_t a2,
                          hrx_fabric_signal_t* done) {
  uint64_t index = 0;
  assert_ok(hrx_fabric_queue_reserve(q, 1, &index));
  hrx_aql_agent_packet_t* p = &hrx_fabric_queue_slot(q, index)->agent;
  memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
  p->arg[0] = a0;
  p->arg[1] = a1;
  p->arg[2] = a2;
  p->completion_signal = done ? hrx_fabric_signal_handle(done) : 0;
  hrx_fabric_queue_publish(q, index, header_of(HRX_AQL_PACKET_AGENT),
                           (uint16_t)op);
}

/*===------------------------------------------------------------------===*/
/* saxpy                                                                   */
/*===------------------------------------------------------------------===*/

typedef struct saxpy_t {
  hrx_fabric_memory_t data, kernarg;
  float *x, *y, *want;
  uint32_t n;
  hrx_fabric_signal_t* done;
} saxpy_t;

enum { SAXPY_THREADS = 256 };

static hrx_fabric_executable_t* load_saxpy(env_t* e,
                                           const hrx_fabric_kernel_t** out) {
  hrx_fabric_executable_t* exe = NULL;
  assert_ok(hrx_fabric_executable_load(e->device, saxpy_code, saxpy_length,
                                       &exe));
  assert_int_equal(hrx_fabric_executable_kernel_count(exe), 1);
  assert_ok(hrx_fabric_executable_find_kernel(exe, "saxpy", out));
  const hrx_fabric_kernel_t* missing = NULL;
  assert_status_code(hrx_fabric_executable_find_kernel(exe, "saxpz", &missing),
                     HRX_STATUS_NOT_FOUND);
  return exe;
}

/* The dispatch tests' start: the device open with saxpy loaded. */
static hrx_fabric_executable_t* env_open_saxpy(
    env_t* e, const hrx_fabric_kernel_t** kernel) {
  env_open(e);
  return load_saxpy(e, kernel);
}

/* Their end: saxpy released, then the device closed and checked clean. */
static void env_close_saxpy(env_t* e, hrx_fabric_executable_t* exe) {
  hrx_fabric_executable_release(exe);
  env_close(e);
}

/* A queue of QUEUE_PACKETS on |e|'s device. */
static hrx_fabric_queue_t* open_queue(env_t* e) {
  hrx_fabric_queue_t* q = NULL;
  assert_ok(hrx_fabric_queue_create(e->device, QUEUE_PACKETS, &q));
  return q;
}

/* Buffers and the explicit kernel arguments (n, alpha, x, y) for saxpy
 * over |n| elements, laid out from the kernel's metadata; the queue fills
 * the hidden ones. |y_override| (nonzero) replaces y's address. */
static void saxpy_prepare(env_t* e, const hrx_fabric_kernel_t* kernel,
                          uint32_t n, uint64_t y_override, saxpy_t* s) {
  memset(s, 0, sizeof(*s));
  s->n = n;
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  assert_ok(hrx_fabric_kernel_info(kernel, &info));
  assert_string_equal(info.name, "saxpy");
  assert_int_equal(info.subgroup_size, 32);
  assert_int_equal(info.arg_count, 4);
  assert_int_equal(info.args[0].kind, HRX_FABRIC_ARG_SCALAR);
  assert_int_equal(info.args[1].kind, HRX_FABRIC_ARG_SCALAR);
  assert_int_equal(info.args[1].size, 4);
  assert_int_equal(info.args[2].kind, HRX_FABRIC_ARG_BUFFER);
  assert_int_equal(info.args[3].kind, HRX_FABRIC_ARG_BUFFER);
  /* Code object v5 hidden arguments follow the explicit ones. */
  assert_true(info.kernarg_size > info.args[3].offset + 8);
  assert_ok(hrx_fabric_memory_allocate(e->device, 3 * sizeof(float) * n,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                       &s->data));
  assert_ok(hrx_fabric_memory_allocate(e->device, info.kernarg_size,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                       &s->kernarg));
  s->x = s->data.host_pointer;
  s->y = s->x + n;
  s->want = s->y + n;
  float alpha = 1.0f + 0x1p-23f;
  for (uint32_t i = 0; i < n; ++i) {
    s->x[i] = 1.0f + (float)i * 0x1p-22f;
    s->y[i] = -(1.0f + (float)(i + 1) * 0x1p-21f);
    s->want[i] = fmaf(alpha, s->x[i], s->y[i]);
  }
  uint8_t* k = s->kernarg.host_pointer;
  uint64_t n64 = n;
  uint64_t x = s->data.device_address;
  uint64_t y = y_override ? y_override : x + sizeof(float) * n;
  memcpy(k + info.args[0].offset, &n64, info.args[0].size);
  memcpy(k + info.args[1].offset, &alpha, 4);
  memcpy(k + info.args[2].offset, &x, 8);
  memcpy(k + info.args[3].offset, &y, 8);
  s->done = device_signal(e, 1);
}

static void saxpy_publish(hrx_fabric_queue_t* q,
                          const hrx_fabric_kernel_t* kernel, saxpy_t* s) {
  uint32_t groups = (s->n + SAXPY_THREADS - 1) / SAXPY_THREADS;
  publish_dispatch(q, kernel, s->kernarg.device_address,
                   groups * SAXPY_THREADS, SAXPY_THREADS, s->done);
}

static void saxpy_check(saxpy_t* s) {
  assert_int_equal(wait_signal(s->done), 0);
  assert_memory_equal(s->y, s->want, sizeof(float) * s->n);
}

static void saxpy_release(env_t* e, saxpy_t* s) {
  hrx_fabric_signal_release(s->done);
  hrx_fabric_memory_free(e->device, &s->kernarg);
  hrx_fabric_memory_free(e->device, &s->data);
}

/* Runs saxpy over |n| elements on |q| and checks it against fmaf. */
static void saxpy_run(env_t* e, hrx_fabric_queue_t* q,
                      const hrx_fabric_kernel_t* kernel, uint32_t n) {
  saxpy_t s;
  saxpy_prepare(e, kernel, n, 0, &s);
  saxpy_publish(q, kernel, &s);
  saxpy_check(&s);
  saxpy_release(e, &s);
}

/* A fill through the blit kernels on a fresh queue: the device works. */
static void check_usable(env_t* e) {
  hrx_fabric_queue_t* q = NULL;
  assert_ok(hrx_fabric_queue_create(e->device, QUEUE_PACKETS, &q));
  hrx_fabric_memory_t m;
  assert_ok(hrx_fabric_memory_allocate(e->device, 256,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE, &m));
  hrx_fabric_signal_t* done = device_signal(e, 1);
  publish_agent(q, HRX_AQL_AGENT_FILL, m.device_address, 0x5a5a1234u, 256,
                done);
  assert_int_equal(wait_signal(done), 0);
  const uint32_t* words = m.host_pointer;
  for (size_t i = 0; i < 64; ++i) assert_int_equal(words[i], 0x5a5a1234u);
  hrx_fabric_signal_release(done);
  hrx_fabric_memory_free(e->device, &m);
  hrx_fabric_queue_destroy(q);
}

/*===------------------------------------------------------------------===*/
/* 1. Open and close                                                       */
/*===------------------------------------------------------------------===*/

static void test_open_close(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  const hrx_fabric_device_properties_t* p =
      hrx_fabric_device_properties(e.device);
  assert_int_equal(p->kind, HRX_FABRIC_DEVICE_GPU);
  assert_string_equal(p->profile_target, "gfx1151");
  assert_int_equal(p->subgroup_size, 32);
  assert_int_equal(p->compute_units, 40);
  assert_non_null(strstr(p->name, "model"));
  assert_non_null(strstr(p->name, "gfx1151"));
  assert_true(p->max_workgroup_size >= 256);
  assert_true(p->max_workgroup_storage >= 64 * 1024);
  assert_true(p->memory_bytes > 0);
  assert_true(p->queue_count_limit > 0);
  /* Two GPU queues exist at once and go again. */
  hrx_fabric_queue_t* a = NULL;
  hrx_fabric_queue_t* b = NULL;
  assert_ok(hrx_fabric_queue_create(e.device, QUEUE_PACKETS, &a));
  assert_ok(hrx_fabric_queue_create(e.device, 1024, &b));
  assert_int_equal(hrx_fabric_queue_size(b), 1024);
  assert_int_equal(model_queues(e.model), 2);
  hrx_fabric_queue_destroy(b);
  hrx_fabric_queue_destroy(a);
  /* A device reference held past the caller's keeps it open. */
  hrx_fabric_device_retain(e.device);
  hrx_fabric_device_release(e.device);
  env_close(&e);

  /* Index 1: the fixture has one supported GPU. */
  assert_status(env_try_open(&e, GFX1151, 1, 0, 0, 0), HRX_STATUS_NOT_FOUND,
                "no supported AMD GPU number 1 (1 present)");
  env_check_clean(&e);
  /* gfx1100 is listed by the topology but not supported. */
  assert_status(env_try_open(&e, GFX1100, 0, 0, 0, 0), HRX_STATUS_NOT_FOUND,
                "no supported AMD GPU number 0 (0 present)");
  env_check_clean(&e);
  /* No GPU node at all: the model refuses to model nothing. */
  assert_status(env_try_open(&e, NO_GPU, 0, 0, 0, 0), HRX_STATUS_UNAVAILABLE,
                "has no GPU node");
  env_check_clean(&e);
}

/* The public entry in model mode (HRX_KFD_MODEL). */
static void test_public_create(void** state) {
  (void)state;
  locked_allocator_t l;
  hrx_allocator_t allocator = locked_allocator(&l);
  size_t fds = test_dir_count("/proc/self/fd", NULL);
  hrx_fabric_device_t* device = NULL;

  assert_int_equal(setenv("HRX_KFD_MODEL", GFX1151, 1), 0);
  assert_string_equal(hrx_fabric_kfd_model_root(), GFX1151);
  assert_ok(hrx_fabric_kfd_device_create(0, allocator, &device));
  const hrx_fabric_device_properties_t* p =
      hrx_fabric_device_properties(device);
  assert_string_equal(p->profile_target, "gfx1151");
  assert_true(strlen(p->name) > 8 &&
              strcmp(p->name + strlen(p->name) - 8, ", model)") == 0);
  hrx_fabric_device_release(device);
  device = NULL;
  assert_status(hrx_fabric_kfd_device_create(1, allocator, &device),
                HRX_STATUS_NOT_FOUND, "no supported AMD GPU number 1");
  assert_null(device);

  assert_int_equal(setenv("HRX_KFD_MODEL", NO_GPU, 1), 0);
  assert_status(hrx_fabric_kfd_device_create(0, allocator, &device),
                HRX_STATUS_UNAVAILABLE, "HRX_KFD_MODEL=" NO_GPU);
  assert_null(device);
  assert_int_equal(setenv("HRX_KFD_MODEL", GFX1100, 1), 0);
  assert_status(hrx_fabric_kfd_device_create(0, allocator, &device),
                HRX_STATUS_NOT_FOUND, "no supported AMD GPU");
  assert_int_equal(setenv("HRX_KFD_MODEL", HRX_KFD_FIXTURES "/missing", 1),
                   0);
  assert_status(hrx_fabric_kfd_device_create(0, allocator, &device),
                HRX_STATUS_NOT_FOUND, "/missing");
  assert_int_equal(unsetenv("HRX_KFD_MODEL"), 0);
  assert_null(hrx_fabric_kfd_model_root());

  assert_int_equal(locked_live(&l), 0);
  assert_int_equal(test_dir_count("/proc/self/fd", NULL), fds);
  pthread_mutex_destroy(&l.mutex);
}

/* Every allocation of creation failing in turn. */
static hrx_status_t create_with_allocator(hrx_allocator_t allocator,
                                          void* context) {
  hrx_fabric_device_t** device = context;
  hrx_kfd_model_t* model = NULL;
  HRX_RETURN_IF_ERROR(hrx_kfd_model_create(GFX1151, allocator, &model));
  hrx_kfd_sys_t sys = hrx_kfd_model_sys(model);
  return hrx_kfd_device_create_with(model, &sys, 0, allocator, device);
}

static void release_created(hrx_allocator_t allocator, void* context) {
  (void)allocator;
  hrx_fabric_device_t** device = context;
  hrx_fabric_device_release(*device);
  *device = NULL;
}

static void test_create_allocation_failures(void** state) {
  (void)state;
  size_t fds = test_dir_count("/proc/self/fd", NULL);
  hrx_fabric_device_t* device = NULL;
  assert_true(test_exhaust_allocations(create_with_allocator,
                                       release_created, &device) > 3);
  assert_int_equal(test_dir_count("/proc/self/fd", NULL), fds);
}

/*===------------------------------------------------------------------===*/
/* 2. Scripted ioctl failures                                              */
/*===------------------------------------------------------------------===*/

/* Fails the nth |request| of device creation for nth = 1, 2, ... until
 * creation succeeds; every failure names |name|, leaves nothing behind,
 * and the device that finally opens works. Returns how many failed. */
static uint32_t fail_creation(unsigned long request, const char* name,
                              int error, hrx_status_code_t code) {
  for (uint32_t nth = 1; nth < 64; ++nth) {
    env_t e;
    hrx_status_t status = env_try_open(&e, GFX1151, 0, request, nth, error);
    if (status == HRX_OK) {
      check_usable(&e);
      env_close(&e);
      return nth - 1;
    }
    assert_status(status, code, name);
    env_check_clean(&e);
  }
  fail_msg("%s: creation never succeeded", name);
  return 0;
}

static void test_creation_ioctl_failures(void** state) {
  (void)state;
  assert_int_equal(fail_creation(HRX_KFD_IOC_GET_VERSION,
                                 "AMDKFD_IOC_GET_VERSION", EIO,
                                 HRX_STATUS_DATA_LOSS),
                   1);
  assert_int_equal(fail_creation(HRX_KFD_IOC_ACQUIRE_VM,
                                 "AMDKFD_IOC_ACQUIRE_VM", EIO,
                                 HRX_STATUS_DATA_LOSS),
                   1);
  /* The event mailbox and the blit kernels' code at least. */
  assert_true(fail_creation(HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU,
                            "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", ENOMEM,
                            HRX_STATUS_RESOURCE_EXHAUSTED) >= 2);
  assert_true(fail_creation(HRX_KFD_IOC_MAP_MEMORY_TO_GPU,
                            "AMDKFD_IOC_MAP_MEMORY_TO_GPU", ENOMEM,
                            HRX_STATUS_RESOURCE_EXHAUSTED) >= 2);
  /* The signal event and the memory event. */
  assert_int_equal(fail_creation(HRX_KFD_IOC_CREATE_EVENT,
                                 "AMDKFD_IOC_CREATE_EVENT", ENOSPC,
                                 HRX_STATUS_RESOURCE_EXHAUSTED),
                   2);
  /* A busy driver is retried, not reported. */
  env_t e;
  assert_ok(env_try_open(&e, GFX1151, 0, HRX_KFD_IOC_ACQUIRE_VM, 1, EAGAIN));
  env_close(&e);
}

/* Queue creation with the nth |request| failing, nth = 1, 2, ... until it
 * succeeds, each on a fresh device that must stay usable. */
static uint32_t fail_queue_creation(unsigned long request, const char* name,
                                    int error, hrx_status_code_t code) {
  for (uint32_t nth = 1; nth < 64; ++nth) {
    env_t e;
    env_open(&e);
    hrx_kfd_model_inject(e.model, request, nth, error);
    hrx_fabric_queue_t* q = NULL;
    hrx_status_t status = hrx_fabric_queue_create(e.device, QUEUE_PACKETS, &q);
    hrx_kfd_model_inject(e.model, 0, 0, 0);
    if (status == HRX_OK) {
      hrx_fabric_queue_destroy(q);
      env_close(&e);
      return nth - 1;
    }
    assert_null(q);
    assert_status(status, code, name);
    assert_int_equal(model_queues(e.model), 0);
    check_usable(&e);
    env_close(&e);
  }
  fail_msg("%s: queue creation never succeeded", name);
  return 0;
}

static void test_queue_ioctl_failures(void** state) {
  (void)state;
  assert_int_equal(fail_queue_creation(HRX_KFD_IOC_CREATE_QUEUE,
                                       "AMDKFD_IOC_CREATE_QUEUE", ENOSPC,
                                       HRX_STATUS_RESOURCE_EXHAUSTED),
                   1);
  /* Ring, amd_queue_t, EOP, CWSR, kernargs and the inactive signal's
   * chunk. */
  assert_true(fail_queue_creation(HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU,
                                  "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", ENOMEM,
                                  HRX_STATUS_RESOURCE_EXHAUSTED) >= 5);
  assert_true(fail_queue_creation(HRX_KFD_IOC_MAP_MEMORY_TO_GPU,
                                  "AMDKFD_IOC_MAP_MEMORY_TO_GPU", EIO,
                                  HRX_STATUS_DATA_LOSS) >= 5);
}

/* The event thread's WAIT_EVENTS failing: it falls back to polling, so a
 * dispatch published before the failure and one after both complete. */
static void test_wait_events_failure(void** state) {
  (void)state;
  env_t e;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe = env_open_saxpy(&e, &kernel);
  hrx_fabric_queue_t* q = open_queue(&e);
  for (int round = 0; round < 3; ++round) {
    saxpy_t s;
    saxpy_prepare(&e, kernel, 300, 0, &s);
    hrx_kfd_model_inject(e.model, HRX_KFD_IOC_WAIT_EVENTS, 1,
                         round == 2 ? EINVAL : EIO);
    if (round == 1) {
      /* Let the failure happen before the dispatch. */
      for (int i = 0; i < 2000 && model_injections_seen(e.model) == 0; ++i) {
        usleep(1000);
      }
      assert_true(model_injections_seen(e.model) >= 1);
    }
    saxpy_publish(q, kernel, &s);
    saxpy_check(&s);
    saxpy_release(&e, &s);
    for (int i = 0; i < 2000 && model_injections_seen(e.model) == 0; ++i) {
      usleep(1000);
    }
    assert_true(model_injections_seen(e.model) >= 1);
  }
  hrx_kfd_model_inject(e.model, 0, 0, 0);
  check_usable(&e);
  hrx_fabric_queue_destroy(q);
  env_close_saxpy(&e, exe);
}

/* Teardown ioctls failing (the queue's DESTROY_QUEUE; the device's
 * SET_EVENT that wakes its event thread, DESTROY_EVENT, UNMAP and FREE):
 * nothing hangs, the device stays usable, and closing it still leaves
 * nothing behind (the model releases what the driver would at close). */
static void test_teardown_failures(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  hrx_fabric_queue_t* q = open_queue(&e);
  hrx_kfd_model_inject(e.model, HRX_KFD_IOC_DESTROY_QUEUE, 1, EIO);
  double start = now_seconds();
  hrx_fabric_queue_destroy(q);
  assert_true(now_seconds() - start < 5.0);
  hrx_kfd_model_inject(e.model, 0, 0, 0);
  check_usable(&e);
  hrx_fabric_device_release(e.device);
  env_check_clean(&e);

  static const unsigned long requests[] = {
      HRX_KFD_IOC_SET_EVENT, HRX_KFD_IOC_DESTROY_EVENT,
      HRX_KFD_IOC_UNMAP_MEMORY_FROM_GPU, HRX_KFD_IOC_FREE_MEMORY_OF_GPU};
  for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); ++i) {
    env_open(&e);
    check_usable(&e);
    hrx_kfd_model_inject(e.model, requests[i], 1, EIO);
    start = now_seconds();
    hrx_fabric_device_release(e.device);
    /* Without SET_EVENT the event thread notices within its 100 ms
     * wait. */
    assert_true(now_seconds() - start < 5.0);
    env_check_clean(&e);
  }
}

/*===------------------------------------------------------------------===*/
/* Memory                                                                  */
/*===------------------------------------------------------------------===*/

static void test_memory(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  static const uint64_t sizes[] = {1, 64, 4095, 4096, 4097, 3 << 20};
  for (int round = 0; round < 2; ++round) {
    hrx_fabric_memory_t m[3 * sizeof(sizes) / sizeof(sizes[0])];
    size_t count = 0;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
      for (int v = 0; v <= HRX_FABRIC_VISIBILITY_HOST_COHERENT; ++v) {
        hrx_fabric_memory_t* b = &m[count++];
        assert_ok(hrx_fabric_memory_allocate_flags(
            e.device, sizes[i], (hrx_fabric_visibility_t)v,
            round ? HRX_FABRIC_MEMORY_UNINITIALIZED : 0, b));
        assert_non_null(b->host_pointer);
        /* CPU VA == GPU VA, page aligned. */
        assert_int_equal((uint64_t)(uintptr_t)b->host_pointer,
                         b->device_address);
        assert_int_equal(b->device_address % 4096, 0);
        assert_int_equal(b->size, sizes[i]);
        assert_int_equal(b->visibility, v);
        uint8_t* bytes = b->host_pointer;
        if (!round) {
          for (uint64_t k = 0; k < sizes[i]; ++k) assert_int_equal(bytes[k], 0);
        }
        memset(bytes, 0xa0 + (int)count, sizes[i]);
      }
    }
    /* Distinct, non-overlapping, still holding what was written. */
    for (size_t i = 0; i < count; ++i) {
      const uint8_t* bytes = m[i].host_pointer;
      assert_int_equal(bytes[0], (uint8_t)(0xa0 + i + 1));
      assert_int_equal(bytes[m[i].size - 1], (uint8_t)(0xa0 + i + 1));
      for (size_t j = 0; j < count; ++j) {
        if (i == j) continue;
        assert_true(m[i].device_address + m[i].size <= m[j].device_address ||
                    m[j].device_address + m[j].size <= m[i].device_address);
      }
    }
    for (size_t i = 0; i < count; ++i) hrx_fabric_memory_free(e.device, &m[i]);
    assert_int_equal(model_allocations(e.model), e.gpu_allocations);
  }
  /* Freed memory comes back zeroed when zeroing is asked for. */
  hrx_fabric_memory_t again;
  assert_ok(hrx_fabric_memory_allocate(e.device, 8192,
                                       HRX_FABRIC_VISIBILITY_DEVICE, &again));
  for (size_t k = 0; k < 8192; ++k) {
    assert_int_equal(((uint8_t*)again.host_pointer)[k], 0);
  }
  hrx_fabric_memory_free(e.device, &again);
  assert_int_equal(again.device_address, 0);
  hrx_fabric_memory_free(e.device, &again); /* freed memory: nothing */

  hrx_fabric_memory_t none;
  assert_status(hrx_fabric_memory_allocate(e.device, 0,
                                           HRX_FABRIC_VISIBILITY_DEVICE,
                                           &none),
                HRX_STATUS_INVALID_ARGUMENT, "at least one byte");
  assert_int_equal(none.device_address, 0);
  assert_status(hrx_fabric_memory_allocate(e.device, UINT64_C(1) << 40,
                                           HRX_FABRIC_VISIBILITY_DEVICE,
                                           &none),
                HRX_STATUS_RESOURCE_EXHAUSTED, "1099511627776 bytes");
  assert_int_equal(none.device_address, 0);
  assert_status_code(hrx_fabric_memory_allocate(e.device, UINT64_MAX,
                                                HRX_FABRIC_VISIBILITY_DEVICE,
                                                &none),
                     HRX_STATUS_RESOURCE_EXHAUSTED);

  /* Injected failures of each step name it and give the address back. */
  hrx_kfd_model_inject(e.model, HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU, 1, ENOMEM);
  assert_status(hrx_fabric_memory_allocate(e.device, 4096,
                                           HRX_FABRIC_VISIBILITY_DEVICE,
                                           &none),
                HRX_STATUS_RESOURCE_EXHAUSTED,
                "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU");
  hrx_kfd_model_inject(e.model, HRX_KFD_IOC_MAP_MEMORY_TO_GPU, 1, EIO);
  assert_status(hrx_fabric_memory_allocate(e.device, 4096,
                                           HRX_FABRIC_VISIBILITY_DEVICE,
                                           &none),
                HRX_STATUS_DATA_LOSS, "AMDKFD_IOC_MAP_MEMORY_TO_GPU");
  hrx_kfd_model_inject(e.model, 0, 0, 0);
  assert_int_equal(model_allocations(e.model), e.gpu_allocations);
  /* First fit: a freed address is handed out again. */
  hrx_fabric_memory_t first;
  assert_ok(hrx_fabric_memory_allocate(e.device, 4096,
                                       HRX_FABRIC_VISIBILITY_DEVICE, &first));
  uint64_t address = first.device_address;
  hrx_fabric_memory_free(e.device, &first);
  hrx_fabric_memory_t second;
  assert_ok(hrx_fabric_memory_allocate(e.device, 4096,
                                       HRX_FABRIC_VISIBILITY_DEVICE, &second));
  assert_int_equal(second.device_address, address);
  /* A dma-buf export for another device's driver: an fd of the
   * allocation's size, which the caller owns. */
  int fd = -1;
  assert_ok(hrx_fabric_memory_export_dmabuf(e.device, &second, &fd));
  assert_true(fd >= 0);
  assert_int_equal(lseek(fd, 0, SEEK_END), 4096);
  close(fd);
  hrx_kfd_model_inject(e.model, HRX_KFD_IOC_EXPORT_DMABUF, 1, ENOMEM);
  assert_status(hrx_fabric_memory_export_dmabuf(e.device, &second, &fd),
                HRX_STATUS_RESOURCE_EXHAUSTED, "AMDKFD_IOC_EXPORT_DMABUF");
  assert_int_equal(fd, -1);
  hrx_kfd_model_inject(e.model, 0, 0, 0);
  hrx_fabric_memory_t stranger = second;
  stranger.device_address += 4096;
  assert_status(hrx_fabric_memory_export_dmabuf(e.device, &stranger, &fd),
                HRX_STATUS_INVALID_ARGUMENT, "not an allocation of this GPU");
  hrx_fabric_memory_free(e.device, &second);
  assert_status(hrx_fabric_memory_export_dmabuf(e.device, &second, &fd),
                HRX_STATUS_INVALID_ARGUMENT, "no allocation");
  env_close(&e);
}

/*===------------------------------------------------------------------===*/
/* 3. Dispatch, copy and fill                                              */
/*===------------------------------------------------------------------===*/

static void test_saxpy(void** state) {
  (void)state;
  env_t e;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe = env_open_saxpy(&e, &kernel);
  hrx_fabric_queue_t* q = open_queue(&e);
  static const uint32_t sizes[] = {1, 31, 257, 1000};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    saxpy_run(&e, q, kernel, sizes[i]);
  }
  /* Several in flight at once, completing in order. */
  saxpy_t batch[4];
  for (size_t i = 0; i < 4; ++i) {
    saxpy_prepare(&e, kernel, 100 + 50 * (uint32_t)i, 0, &batch[i]);
  }
  for (size_t i = 0; i < 4; ++i) saxpy_publish(q, kernel, &batch[i]);
  for (size_t i = 0; i < 4; ++i) {
    saxpy_check(&batch[i]);
    saxpy_release(&e, &batch[i]);
  }
  assert_int_equal(hrx_fabric_queue_read_index(q), 8);
  assert_int_equal(hrx_fabric_queue_write_index(q), 8);
  hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  assert_status_code(hrx_fabric_queue_take_fault(q, &fault),
                     HRX_STATUS_NOT_FOUND);
  hrx_fabric_queue_destroy(q);
  /* The executable outlives nothing it needs: release it last. */
  env_close_saxpy(&e, exe);
}

static void settle(env_t* e);

/* Publishes saxpy with a private segment of |private_bytes| per
 * work-item in its packet. */
static void saxpy_publish_private(hrx_fabric_queue_t* q,
                                  const hrx_fabric_kernel_t* kernel,
                                  saxpy_t* s, uint32_t private_bytes) {
  uint64_t index = 0;
  assert_ok(hrx_fabric_queue_reserve(q, 1, &index));
  hrx_aql_dispatch_packet_t* p = &hrx_fabric_queue_slot(q, index)->dispatch;
  memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
  p->workgroup_size_x = SAXPY_THREADS;
  p->workgroup_size_y = p->workgroup_size_z = 1;
  p->grid_size_x = (s->n + SAXPY_THREADS - 1) / SAXPY_THREADS * SAXPY_THREADS;
  p->grid_size_y = p->grid_size_z = 1;
  p->private_segment_size = private_bytes;
  p->kernel_object = hrx_fabric_kernel_object(kernel);
  p->kernarg_address = s->kernarg.device_address;
  p->completion_signal = hrx_fabric_signal_handle(s->done);
  hrx_fabric_queue_publish(q, index, header_of(HRX_AQL_PACKET_KERNEL_DISPATCH),
                           1);
}

/* A queue's scratch (maximum_private_bytes): allocated at creation, one
 * more GPU allocation than a queue without, and what the model's CP reads
 * from the amd_queue_t: a dispatch whose private segment fits runs, one
 * needing more stops the queue with a fault naming both sizes. The
 * kernel is saxpy with a private segment size in its packet, so the size
 * alone is tested (saxpy never touches scratch; tests/gpu/test_stream.c
 * runs a kernel that does). */
static void test_queue_scratch(void** state) {
  (void)state;
  env_t e;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe = env_open_saxpy(&e, &kernel);
  hrx_fabric_queue_options_t o = {.packet_count = QUEUE_PACKETS,
                                  .maximum_private_bytes = 256};
  hrx_fabric_queue_t* q = NULL;
  assert_status(hrx_fabric_queue_create_with_options(e.device, &o, &q),
                HRX_STATUS_INVALID_ARGUMENT, "struct_size is 0");
  o.struct_size = sizeof(o);
  o.maximum_private_bytes = HRX_FABRIC_MAX_PRIVATE_BYTES + 1;
  assert_status_code(hrx_fabric_queue_create_with_options(e.device, &o, &q),
                     HRX_STATUS_OUT_OF_RANGE);
  assert_ok(hrx_fabric_queue_create(e.device, QUEUE_PACKETS, &q));
  assert_int_equal(hrx_fabric_queue_private_bytes(q), 0);
  size_t plain = model_allocations(e.model);
  hrx_fabric_queue_destroy(q);
  o.maximum_private_bytes = 256;
  assert_ok(hrx_fabric_queue_create_with_options(e.device, &o, &q));
  assert_int_equal(model_allocations(e.model), plain + 1);
  assert_int_equal(hrx_fabric_queue_private_bytes(q), 256);
  saxpy_t fits, over;
  saxpy_prepare(&e, kernel, 64, 0, &fits);
  saxpy_publish_private(q, kernel, &fits, 256);
  saxpy_check(&fits);
  saxpy_prepare(&e, kernel, 64, 0, &over);
  saxpy_publish_private(q, kernel, &over, 257);
  assert_int_equal(wait_signal(over.done), HRX_FABRIC_SIGNAL_FAULTED);
  settle(&e);
  hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  assert_ok(hrx_fabric_queue_take_fault_for(
      q, hrx_fabric_signal_handle(over.done), &fault));
  print_message("fault: %s\n", fault.detail);
  assert_non_null(strstr(fault.detail, "257 private bytes"));
  assert_non_null(strstr(fault.detail, "256 per wave64 lane"));
  hrx_fabric_queue_destroy(q);
  saxpy_release(&e, &fits);
  saxpy_release(&e, &over);
  env_close_saxpy(&e, exe);
}

/* More packets than the ring holds, so the ring wraps: each wait frees
 * the slot the next one needs. */
static void test_ring_wraps(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  hrx_fabric_queue_t* q = open_queue(&e);
  hrx_fabric_memory_t m;
  assert_ok(hrx_fabric_memory_allocate(e.device, 4 * 3 * QUEUE_PACKETS,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE, &m));
  hrx_fabric_signal_t* done = device_signal(&e, 3 * QUEUE_PACKETS);
  for (uint32_t i = 0; i < 3 * QUEUE_PACKETS; ++i) {
    uint64_t index = 0;
    hrx_status_t status;
    while ((status = hrx_fabric_queue_reserve(q, 1, &index)) != HRX_OK) {
      assert_status_code(status, HRX_STATUS_BUSY);
      usleep(100);
    }
    hrx_aql_agent_packet_t* p = &hrx_fabric_queue_slot(q, index)->agent;
    memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
    p->arg[0] = m.device_address + 4 * i;
    p->arg[1] = i + 1;
    p->arg[2] = 4;
    p->completion_signal = hrx_fabric_signal_handle(done);
    hrx_fabric_queue_publish(q, index, header_of(HRX_AQL_PACKET_AGENT),
                             HRX_AQL_AGENT_FILL);
  }
  assert_int_equal(wait_signal(done), 0);
  const uint32_t* words = m.host_pointer;
  for (uint32_t i = 0; i < 3 * QUEUE_PACKETS; ++i) {
    assert_int_equal(words[i], i + 1);
  }
  hrx_fabric_signal_release(done);
  hrx_fabric_memory_free(e.device, &m);
  hrx_fabric_queue_destroy(q);
  env_close(&e);
}

enum { TRANSFER_BYTES = 16384, GUARD = 0xEE };

static void test_copy_fill(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  hrx_fabric_queue_t* q = open_queue(&e);
  hrx_fabric_memory_t src, dst;
  assert_ok(hrx_fabric_memory_allocate(e.device, TRANSFER_BYTES,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                       &src));
  assert_ok(hrx_fabric_memory_allocate(e.device, TRANSFER_BYTES,
                                       HRX_FABRIC_VISIBILITY_DEVICE, &dst));
  uint8_t* s = src.host_pointer;
  uint8_t* d = dst.host_pointer;
  for (size_t i = 0; i < TRANSFER_BYTES; ++i) s[i] = (uint8_t)(i * 7 + 1);
  /* dst offset, src offset, bytes: 16-byte, 4-byte and byte kernels. */
  static const uint64_t copies[][3] = {
      {0, 0, 4096},   {16, 32, 1040}, {0, 0, 16},    {4, 8, 100},
      {8, 4, 4},      {1, 3, 333},    {3, 0, 1},     {5, 7, 4001},
      {0, 1, 64},     {0, 0, 0},      {2, 2, 12345},
  };
  for (size_t c = 0; c < sizeof(copies) / sizeof(copies[0]); ++c) {
    uint64_t doff = copies[c][0], soff = copies[c][1], bytes = copies[c][2];
    memset(d, GUARD, TRANSFER_BYTES);
    hrx_fabric_signal_t* done = device_signal(&e, 1);
    publish_agent(q, HRX_AQL_AGENT_COPY, dst.device_address + doff,
                  src.device_address + soff, bytes, done);
    assert_int_equal(wait_signal(done), 0);
    hrx_fabric_signal_release(done);
    for (uint64_t i = 0; i < TRANSFER_BYTES; ++i) {
      uint8_t want = i >= doff && i < doff + bytes ? s[soff + (i - doff)]
                                                   : GUARD;
      if (d[i] != want) {
        fail_msg("copy %zu (dst +%llu, src +%llu, %llu bytes): byte %llu is "
                 "0x%02x, not 0x%02x", c, (unsigned long long)doff,
                 (unsigned long long)soff, (unsigned long long)bytes,
                 (unsigned long long)i, d[i], want);
      }
    }
  }
  /* dst offset, bytes (dwords of the pattern), pattern. */
  static const uint64_t fills[][3] = {
      {0, 64, 0xdeadbeef},   {4, 1000, 0x01020304}, {3, 40, 0xa5a55a5a},
      {0, 4, 0x11223344},    {1, 4096, 0xcafef00d}, {0, 0, 0x77777777},
      {6, 12288, 0x80000001},
  };
  for (size_t c = 0; c < sizeof(fills) / sizeof(fills[0]); ++c) {
    uint64_t doff = fills[c][0], bytes = fills[c][1];
    uint32_t pattern = (uint32_t)fills[c][2];
    memset(d, GUARD, TRANSFER_BYTES);
    hrx_fabric_signal_t* done = device_signal(&e, 1);
    publish_agent(q, HRX_AQL_AGENT_FILL, dst.device_address + doff, pattern,
                  bytes, done);
    assert_int_equal(wait_signal(done), 0);
    hrx_fabric_signal_release(done);
    for (uint64_t i = 0; i < TRANSFER_BYTES; ++i) {
      uint8_t want = i >= doff && i < doff + bytes
                         ? (uint8_t)(pattern >> (8 * ((i - doff) % 4)))
                         : GUARD;
      if (d[i] != want) {
        fail_msg("fill %zu (dst +%llu, %llu bytes): byte %llu is 0x%02x, "
                 "not 0x%02x", c, (unsigned long long)doff,
                 (unsigned long long)bytes, (unsigned long long)i, d[i],
                 want);
      }
    }
  }
  /* A copy, then a dispatch-free chain: fill -> copy back, in order on one
   * queue with one signal counting both. */
  hrx_fabric_signal_t* both = device_signal(&e, 2);
  publish_agent(q, HRX_AQL_AGENT_FILL, dst.device_address, 0x0badf00d, 256,
                both);
  publish_agent(q, HRX_AQL_AGENT_COPY, src.device_address + 1024,
                dst.device_address, 256, both);
  assert_int_equal(wait_signal(both), 0);
  hrx_fabric_signal_release(both);
  for (size_t i = 0; i < 64; ++i) {
    assert_int_equal(((uint32_t*)(s + 1024))[i], 0x0badf00d);
  }
  hrx_fabric_memory_free(e.device, &dst);
  hrx_fabric_memory_free(e.device, &src);
  hrx_fabric_queue_destroy(q);
  env_close(&e);
}

/*===------------------------------------------------------------------===*/
/* 4. Fault isolation                                                      */
/*===------------------------------------------------------------------===*/

/* Waits until the device's event thread has finished retiring a faulted
 * queue (it holds the device mutex throughout). It completes the faulted
 * packets' signals before it marks the queue dead, so without this a
 * publication right after a faulted wait can be lost: see
 * test_publish_right_after_fault. */
static void settle(env_t* e) {
  hrx_kfd_device_t* d = hrx_kfd_device_cast(e->device);
  pthread_mutex_lock(&d->mutex);
  pthread_mutex_unlock(&d->mutex);
}

/* Publishes a saxpy over |n| whose y lies far outside every allocation
 * and waits until it has faulted and the queue is retired. */
static void saxpy_fault(env_t* e, hrx_fabric_queue_t* q,
                        const hrx_fabric_kernel_t* kernel, uint32_t n,
                        saxpy_t* bad) {
  saxpy_prepare(e, kernel, n, FAR_AWAY, bad);
  saxpy_publish(q, kernel, bad);
  assert_int_equal(wait_signal(bad->done), HRX_FABRIC_SIGNAL_FAULTED);
  settle(e);
}

static void check_fault_text(const hrx_fabric_fault_t* fault) {
  char text[512];
  hrx_fabric_fault_format(fault, text, sizeof(text));
  print_message("fault: %s\n", text);
  assert_int_equal(fault->kind, HRX_FABRIC_FAULT_OUT_OF_BOUNDS);
  assert_string_equal(fault->kernel, "saxpy");
  assert_non_null(strstr(text, "out-of-bounds"));
  assert_non_null(strstr(text, "'saxpy'"));
}

static void test_fault_isolation(void** state) {
  (void)state;
  env_t e;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe = env_open_saxpy(&e, &kernel);
  hrx_fabric_queue_t* a = open_queue(&e);
  hrx_fabric_queue_t* b = open_queue(&e);
  saxpy_run(&e, a, kernel, 64); /* A works before it faults */

  /* y far outside every allocation; a good dispatch queued behind it. */
  saxpy_t bad, behind;
  saxpy_prepare(&e, kernel, 64, FAR_AWAY, &bad);
  saxpy_prepare(&e, kernel, 64, 0, &behind);
  double start = now_seconds();
  saxpy_publish(a, kernel, &bad);
  saxpy_publish(a, kernel, &behind);
  assert_int_equal(wait_signal(bad.done), HRX_FABRIC_SIGNAL_FAULTED);
  assert_true(now_seconds() - start < 10.0);
  assert_int_equal(wait_signal(behind.done), HRX_FABRIC_SIGNAL_FAULTED);
  settle(&e);
  hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  assert_ok(hrx_fabric_queue_take_fault_for(
      a, hrx_fabric_signal_handle(bad.done), &fault));
  check_fault_text(&fault);
  assert_int_equal(fault.completion_signal,
                   hrx_fabric_signal_handle(bad.done));
  assert_true(fault.address >= FAR_AWAY && fault.address < FAR_AWAY + 256);
  /* The packet behind it never ran: y untouched. */
  for (uint32_t i = 0; i < behind.n; ++i) {
    assert_true(behind.y[i] < 0.0f);
  }
  assert_ok(hrx_fabric_queue_take_fault_for(
      a, hrx_fabric_signal_handle(behind.done), &fault));
  assert_status_code(hrx_fabric_queue_take_fault_for(
                         a, hrx_fabric_signal_handle(bad.done), &fault),
                     HRX_STATUS_NOT_FOUND);
  /* Every packet published on A counts as retired, so the ring drains. */
  assert_int_equal(hrx_fabric_queue_read_index(a),
                   hrx_fabric_queue_write_index(a));
  saxpy_release(&e, &behind);
  saxpy_release(&e, &bad);

  /* B is unaffected. */
  saxpy_run(&e, b, kernel, 300);
  saxpy_run(&e, b, kernel, 5);

  /* Later publications on A complete as faulted at once. */
  saxpy_t later;
  saxpy_prepare(&e, kernel, 64, 0, &later);
  saxpy_publish(a, kernel, &later);
  assert_int_equal(hrx_fabric_signal_load(later.done),
                   HRX_FABRIC_SIGNAL_FAULTED);
  assert_ok(hrx_fabric_queue_take_fault_for(
      a, hrx_fabric_signal_handle(later.done), &fault));
  check_fault_text(&fault);
  for (uint32_t i = 0; i < later.n; ++i) assert_true(later.y[i] < 0.0f);
  saxpy_release(&e, &later);
  hrx_fabric_signal_t* fill_done = device_signal(&e, 1);
  hrx_fabric_memory_t m;
  assert_ok(hrx_fabric_memory_allocate(e.device, 64,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE, &m));
  publish_agent(a, HRX_AQL_AGENT_FILL, m.device_address, 1, 64, fill_done);
  assert_int_equal(hrx_fabric_signal_load(fill_done),
                   HRX_FABRIC_SIGNAL_FAULTED);
  assert_int_equal(((uint32_t*)m.host_pointer)[0], 0);
  hrx_fabric_signal_release(fill_done);
  hrx_fabric_memory_free(e.device, &m);
  /* Many more than the ring holds: a dead queue never fills up. */
  for (uint32_t i = 0; i < 2 * QUEUE_PACKETS; ++i) {
    publish_agent(a, HRX_AQL_AGENT_FILL, 0, 0, 0, NULL);
  }

  /* Destroying A does not hang; B still runs. */
  start = now_seconds();
  hrx_fabric_queue_destroy(a);
  assert_true(now_seconds() - start < 5.0);
  saxpy_run(&e, b, kernel, 1000);
  hrx_fabric_fault_t none = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  assert_status_code(hrx_fabric_queue_take_fault(b, &none),
                     HRX_STATUS_NOT_FOUND);
  /* A new queue on the same device runs too. */
  a = open_queue(&e);
  saxpy_run(&e, a, kernel, 77);
  hrx_fabric_queue_destroy(a);
  hrx_fabric_queue_destroy(b);
  env_close_saxpy(&e, exe);
}

/* Publishes a barrier on |q| waiting for |dep| (NULL: none, an event
 * marker) that completes |done|. */
static void publish_barrier(hrx_fabric_queue_t* q, hrx_fabric_signal_t* dep,
                            hrx_fabric_signal_t* done) {
  uint64_t index = 0;
  assert_ok(hrx_fabric_queue_reserve(q, 1, &index));
  hrx_aql_barrier_packet_t* barrier = &hrx_fabric_queue_slot(q, index)->barrier;
  memset((uint8_t*)barrier + 4, 0, sizeof(*barrier) - 4);
  barrier->dep_signal[0] = dep ? hrx_fabric_signal_handle(dep) : 0;
  barrier->completion_signal = hrx_fabric_signal_handle(done);
  hrx_fabric_queue_publish(q, index, header_of(HRX_AQL_PACKET_BARRIER_AND), 0);
}

/* A queue a fault stopped completes the event markers it held, or is
 * given later, as if they had run (a barrier on another queue waiting for
 * one goes on), fails everything else, and runs work again once
 * restarted. */
static void test_restart_after_fault(void** state) {
  (void)state;
  env_t e;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe = env_open_saxpy(&e, &kernel);
  hrx_fabric_queue_t* a = open_queue(&e);
  hrx_fabric_queue_t* b = open_queue(&e);
  assert_ok(hrx_fabric_queue_restart(a)); /* running: nothing to do */
  for (int round = 0; round < 2; ++round) {
    saxpy_t bad, behind;
    saxpy_prepare(&e, kernel, 64, FAR_AWAY, &bad);
    saxpy_prepare(&e, kernel, 64, 0, &behind);
    hrx_fabric_signal_t* held = device_signal(&e, 1);
    hrx_fabric_signal_t* later = device_signal(&e, 1);
    hrx_fabric_signal_t* waited = device_signal(&e, 1);
    saxpy_publish(a, kernel, &bad);
    publish_barrier(a, NULL, held);
    saxpy_publish(a, kernel, &behind);
    /* B waits on A's marker. */
    publish_barrier(b, held, waited);
    assert_int_equal(wait_signal(bad.done), HRX_FABRIC_SIGNAL_FAULTED);
    assert_int_equal(wait_signal(behind.done), HRX_FABRIC_SIGNAL_FAULTED);
    assert_int_equal(wait_signal(held), 0);
    assert_int_equal(wait_signal(waited), 0);
    publish_barrier(a, NULL, later); /* on the stopped queue */
    assert_int_equal(wait_signal(later), 0);
    for (uint32_t i = 0; i < behind.n; ++i) assert_true(behind.y[i] < 0.0f);
    hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
    assert_ok(hrx_fabric_queue_take_fault_for(
        a, hrx_fabric_signal_handle(bad.done), &fault));
    check_fault_text(&fault);
    assert_ok(hrx_fabric_queue_take_fault_for(
        a, hrx_fabric_signal_handle(behind.done), &fault));
    /* Markers leave no report. */
    assert_status_code(hrx_fabric_queue_take_fault(a, &fault),
                       HRX_STATUS_NOT_FOUND);
    assert_ok(hrx_fabric_queue_restart(a));
    saxpy_run(&e, a, kernel, 300);
    saxpy_run(&e, b, kernel, 5);
    hrx_fabric_signal_release(waited);
    hrx_fabric_signal_release(later);
    hrx_fabric_signal_release(held);
    saxpy_release(&e, &behind);
    saxpy_release(&e, &bad);
  }
  assert_status_code(hrx_fabric_queue_restart(NULL),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_fabric_queue_destroy(b);
  hrx_fabric_queue_destroy(a);
  env_close_saxpy(&e, exe);
}

/* A fault on a queue that is then destroyed while packets are still
 * outstanding, and a device released with a dead queue's faults unread. */
static void test_fault_then_teardown(void** state) {
  (void)state;
  env_t e;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe = env_open_saxpy(&e, &kernel);
  hrx_fabric_queue_t* q = open_queue(&e);
  saxpy_t bad;
  saxpy_fault(&e, q, kernel, 32, &bad);
  double start = now_seconds();
  hrx_fabric_queue_destroy(q);
  assert_true(now_seconds() - start < 5.0);
  saxpy_release(&e, &bad);
  check_usable(&e);
  env_close_saxpy(&e, exe);
}

/*===------------------------------------------------------------------===*/
/* Signals, limits, barriers, large transfers, threads                     */
/*===------------------------------------------------------------------===*/

typedef struct waiter_t {
  hrx_fabric_signal_t* signal;
  int64_t seen;
  hrx_status_t status;
} waiter_t;

static void* wait_thread(void* context) {
  waiter_t* w = context;
  w->status = hrx_fabric_signal_wait(w->signal, HRX_FABRIC_SIGNAL_EQ, 42,
                                     WAIT_NS, &w->seen);
  return NULL;
}

/* Device signals: host operations, a sleeping waiter woken by a host
 * store, more signals than one chunk holds, and a failing chunk
 * allocation. */
static void test_signals(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  hrx_fabric_signal_t* s = device_signal(&e, 5);
  assert_int_equal(hrx_fabric_signal_load(s), 5);
  assert_int_equal(hrx_fabric_signal_subtract(s, 2), 5);
  assert_int_equal(hrx_fabric_signal_add(s, 10), 3);
  assert_int_equal(hrx_fabric_signal_exchange(s, 7), 13);
  assert_int_equal(hrx_fabric_signal_compare_exchange(s, 7, 8), 7);
  assert_int_equal(hrx_fabric_signal_load(s), 8);
  /* The handle is its GPU address, inside device memory, 64-aligned. */
  uint64_t handle = hrx_fabric_signal_handle(s);
  assert_int_equal(handle % 64, 0);
  assert_ptr_equal(hrx_fabric_signal_from_handle(handle), s);
  hrx_kfd_device_t* kfd = hrx_kfd_device_cast(e.device);
  pthread_mutex_lock(&kfd->mutex);
  assert_true(hrx_kfd_memory_contains_locked(kfd, handle, 64));
  pthread_mutex_unlock(&kfd->mutex);
  assert_status_code(hrx_fabric_signal_wait(s, HRX_FABRIC_SIGNAL_EQ, 42,
                                            1000000, NULL),
                     HRX_STATUS_DEADLINE_EXCEEDED);
  waiter_t w = {.signal = s};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, wait_thread, &w), 0);
  usleep(20000);
  hrx_fabric_signal_store(s, 42);
  assert_int_equal(pthread_join(thread, NULL), 0);
  assert_ok(w.status);
  assert_int_equal(w.seen, 42);
  hrx_fabric_signal_release(s);

  /* Past the first chunk (336 slots), all distinct. */
  enum { MANY = 400 };
  hrx_fabric_signal_t** many = calloc(MANY, sizeof(*many));
  assert_non_null(many);
  for (size_t i = 0; i < MANY; ++i) {
    many[i] = device_signal(&e, (int64_t)i);
    for (size_t j = 0; j < i; ++j) assert_ptr_not_equal(many[i], many[j]);
  }
  for (size_t i = 0; i < MANY; ++i) {
    assert_int_equal(hrx_fabric_signal_load(many[i]), (int64_t)i);
  }
  /* The pool is full again: the next chunk's allocation fails, named. */
  hrx_kfd_model_inject(e.model, HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU, 1, ENOMEM);
  hrx_fabric_signal_t* extra[300];
  size_t made = 0;
  hrx_status_t status = HRX_OK;
  while (made < 300 &&
         (status = hrx_fabric_device_signal_create(e.device, 0,
                                                   &extra[made])) == HRX_OK) {
    ++made;
  }
  assert_status(status, HRX_STATUS_RESOURCE_EXHAUSTED,
                "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU");
  hrx_kfd_model_inject(e.model, 0, 0, 0);
  for (size_t i = 0; i < made; ++i) hrx_fabric_signal_release(extra[i]);
  for (size_t i = 0; i < MANY; ++i) hrx_fabric_signal_release(many[i]);
  free(many);
  /* A signal outlives the caller's device reference. */
  s = device_signal(&e, 1);
  hrx_fabric_device_retain(e.device);
  hrx_fabric_device_release(e.device);
  hrx_fabric_signal_release(s);
  check_usable(&e);
  env_close(&e);
}

/* The model's tables run out (256 allocations, 16 queues): the failures
 * name the ioctl, and the device works once resources are freed. */
static void test_resource_limits(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  hrx_fabric_memory_t* blocks = calloc(KFD_MODEL_MAX_ALLOCATIONS,
                                       sizeof(*blocks));
  assert_non_null(blocks);
  size_t count = 0;
  hrx_status_t status = HRX_OK;
  while (count < KFD_MODEL_MAX_ALLOCATIONS &&
         (status = hrx_fabric_memory_allocate(
              e.device, 4096, HRX_FABRIC_VISIBILITY_DEVICE,
              &blocks[count])) == HRX_OK) {
    ++count;
  }
  assert_true(count > 200 && count < KFD_MODEL_MAX_ALLOCATIONS);
  assert_status(status, HRX_STATUS_RESOURCE_EXHAUSTED,
                "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU");
  for (size_t i = 0; i < count; ++i) {
    hrx_fabric_memory_free(e.device, &blocks[i]);
  }
  free(blocks);
  assert_int_equal(model_allocations(e.model), e.gpu_allocations);

  hrx_fabric_queue_t* queues[KFD_MODEL_MAX_QUEUES + 1] = {0};
  size_t made = 0;
  while (made <= KFD_MODEL_MAX_QUEUES &&
         (status = hrx_fabric_queue_create(e.device, QUEUE_PACKETS,
                                           &queues[made])) == HRX_OK) {
    ++made;
  }
  assert_int_equal(made, KFD_MODEL_MAX_QUEUES);
  assert_status(status, HRX_STATUS_RESOURCE_EXHAUSTED,
                "AMDKFD_IOC_CREATE_QUEUE");
  hrx_fabric_queue_destroy(queues[--made]);
  check_usable(&e); /* one queue free again */
  while (made) hrx_fabric_queue_destroy(queues[--made]);
  env_close(&e);
}

/* A barrier on queue B waits for a device signal that a dispatch on queue
 * A completes, and for one the host completes. */
static void test_barrier_across_queues(void** state) {
  (void)state;
  env_t e;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe = env_open_saxpy(&e, &kernel);
  hrx_fabric_queue_t* a = open_queue(&e);
  hrx_fabric_queue_t* b = open_queue(&e);
  hrx_fabric_signal_t* host = device_signal(&e, 1);
  hrx_fabric_signal_t* gate = device_signal(&e, 1);
  saxpy_t s;
  saxpy_prepare(&e, kernel, 500, 0, &s);
  /* On B: wait for saxpy (on A) and the host, then copy y out. */
  hrx_fabric_memory_t out;
  assert_ok(hrx_fabric_memory_allocate(e.device, sizeof(float) * s.n,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                       &out));
  uint64_t index = 0;
  assert_ok(hrx_fabric_queue_reserve(b, 1, &index));
  hrx_aql_barrier_packet_t* barrier =
      &hrx_fabric_queue_slot(b, index)->barrier;
  memset((uint8_t*)barrier + 4, 0, sizeof(*barrier) - 4);
  barrier->dep_signal[0] = hrx_fabric_signal_handle(s.done);
  barrier->dep_signal[3] = hrx_fabric_signal_handle(host);
  barrier->completion_signal = hrx_fabric_signal_handle(gate);
  hrx_fabric_queue_publish(b, index, header_of(HRX_AQL_PACKET_BARRIER_AND), 0);
  hrx_fabric_signal_t* copied = device_signal(&e, 1);
  publish_agent(b, HRX_AQL_AGENT_COPY, out.device_address,
                s.data.device_address + sizeof(float) * s.n,
                sizeof(float) * s.n, copied);
  usleep(20000);
  assert_int_equal(hrx_fabric_signal_load(gate), 1);
  saxpy_publish(a, kernel, &s);
  saxpy_check(&s);
  usleep(20000);
  assert_int_equal(hrx_fabric_signal_load(gate), 1); /* still the host */
  assert_int_equal(hrx_fabric_signal_load(copied), 1);
  hrx_fabric_signal_store(host, 0);
  assert_int_equal(wait_signal(gate), 0);
  assert_int_equal(wait_signal(copied), 0);
  assert_memory_equal(out.host_pointer, s.want, sizeof(float) * s.n);
  hrx_fabric_signal_release(copied);
  hrx_fabric_signal_release(gate);
  hrx_fabric_signal_release(host);
  hrx_fabric_memory_free(e.device, &out);
  saxpy_release(&e, &s);
  hrx_fabric_queue_destroy(b);
  hrx_fabric_queue_destroy(a);
  env_close_saxpy(&e, exe);
}

/* Transfers of more units than one blit dispatch launches work-items
 * (2^20), so the kernels' grid-stride loops go round. */
static void test_large_transfers(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  hrx_fabric_queue_t* q = open_queue(&e);
  const uint64_t bytes = (UINT64_C(1) << 20) + 5; /* byte copy */
  const uint64_t fill_bytes = (UINT64_C(4) << 20) + 8; /* 2^20 + 2 dwords */
  hrx_fabric_memory_t src, dst;
  assert_ok(hrx_fabric_memory_allocate(e.device, fill_bytes + 16,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                       &src));
  assert_ok(hrx_fabric_memory_allocate(e.device, fill_bytes + 16,
                                       HRX_FABRIC_VISIBILITY_DEVICE, &dst));
  uint8_t* s = src.host_pointer;
  uint8_t* d = dst.host_pointer;
  for (uint64_t i = 0; i < bytes + 8; ++i) s[i] = (uint8_t)(i * 13 + 5);
  memset(d, GUARD, fill_bytes + 16);
  hrx_fabric_signal_t* done = device_signal(&e, 2);
  publish_agent(q, HRX_AQL_AGENT_COPY, dst.device_address + 1,
                src.device_address + 3, bytes, done);
  publish_agent(q, HRX_AQL_AGENT_FILL, src.device_address + 4, 0x12345678,
                fill_bytes, done);
  int64_t value = 1;
  assert_ok(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                   WAIT_LONG_NS, &value));
  assert_int_equal(value, 0);
  hrx_fabric_signal_release(done);
  assert_int_equal(d[0], GUARD);
  for (uint64_t i = 0; i < bytes; ++i) {
    if (d[1 + i] != (uint8_t)((i + 3) * 13 + 5)) {
      fail_msg("copied byte %llu is wrong", (unsigned long long)i);
    }
  }
  assert_int_equal(d[1 + bytes], GUARD);
  const uint32_t* words = (const uint32_t*)(s + 4);
  for (uint64_t i = 0; i < fill_bytes / 4; ++i) {
    if (words[i] != 0x12345678u) {
      fail_msg("filled dword %llu is 0x%x", (unsigned long long)i, words[i]);
    }
  }
  assert_int_equal(s[0], 5); /* before the fill: untouched */
  hrx_fabric_memory_free(e.device, &dst);
  hrx_fabric_memory_free(e.device, &src);
  hrx_fabric_queue_destroy(q);
  env_close(&e);
}

/* Threads each with their own queue allocate, create signals, fill and
 * free at the same time, on one device. */
typedef struct worker_t {
  env_t* env;
  uint32_t id;
  hrx_fabric_queue_t* queue; /* shared by all when not NULL */
  int failures;
} worker_t;

static void* worker_main(void* context) {
  worker_t* w = context;
  hrx_fabric_device_t* device = w->env->device;
  hrx_fabric_queue_t* q = w->queue;
  if (!q && hrx_fabric_queue_create(device, QUEUE_PACKETS, &q) != HRX_OK) {
    w->failures++;
    return NULL;
  }
  for (uint32_t round = 0; round < 16; ++round) {
    uint64_t bytes = 4 * (1 + (round * 37 + w->id * 11) % 700);
    hrx_fabric_memory_t m;
    hrx_fabric_signal_t* done = NULL;
    if (hrx_fabric_memory_allocate(device, bytes,
                                   HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                   &m) != HRX_OK ||
        hrx_fabric_device_signal_create(device, 1, &done) != HRX_OK) {
      w->failures++;
      break;
    }
    uint32_t pattern = w->id << 16 | round;
    uint64_t index = 0;
    hrx_status_t status;
    while ((status = hrx_fabric_queue_reserve(q, 1, &index)) != HRX_OK) {
      hrx_status_free(status);
      usleep(100);
    }
    hrx_aql_agent_packet_t* p = &hrx_fabric_queue_slot(q, index)->agent;
    memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
    p->arg[0] = m.device_address;
    p->arg[1] = pattern;
    p->arg[2] = bytes;
    p->completion_signal = hrx_fabric_signal_handle(done);
    hrx_fabric_queue_publish(q, index, header_of(HRX_AQL_PACKET_AGENT),
                             HRX_AQL_AGENT_FILL);
    int64_t value = 1;
    status = hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1, WAIT_NS,
                                    &value);
    if (status != HRX_OK || value != 0) w->failures++;
    hrx_status_free(status);
    for (uint64_t i = 0; i < bytes / 4; ++i) {
      if (((const uint32_t*)m.host_pointer)[i] != pattern) {
        w->failures++;
        break;
      }
    }
    hrx_fabric_signal_release(done);
    hrx_fabric_memory_free(device, &m);
  }
  if (!w->queue) hrx_fabric_queue_destroy(q);
  return NULL;
}

static void test_threads(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  enum { THREADS = 6 };
  hrx_fabric_queue_t* shared = NULL;
  assert_ok(hrx_fabric_queue_create(e.device, 16 * QUEUE_PACKETS, &shared));
  worker_t workers[THREADS];
  pthread_t threads[THREADS];
  for (uint32_t i = 0; i < THREADS; ++i) {
    /* Half on their own queues, half sharing one. */
    workers[i] = (worker_t){.env = &e, .id = i,
                            .queue = i % 2 ? shared : NULL};
    assert_int_equal(
        pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
  }
  for (uint32_t i = 0; i < THREADS; ++i) {
    assert_int_equal(pthread_join(threads[i], NULL), 0);
    assert_int_equal(workers[i].failures, 0);
  }
  hrx_fabric_queue_destroy(shared);
  env_close(&e);
}

/*===------------------------------------------------------------------===*/
/* 5. Corrupted code objects                                               */
/*===------------------------------------------------------------------===*/

static void expect_rejected(env_t* e, const uint8_t* bytes, size_t length,
                            const char* what) {
  /* An exact-size copy, so ASan sees any read past the end. */
  uint8_t* copy = malloc(length ? length : 1);
  assert_non_null(copy);
  memcpy(copy, bytes, length);
  size_t live = locked_live(&e->allocator);
  hrx_fabric_executable_t* exe = NULL;
  hrx_status_t status =
      hrx_fabric_executable_load(e->device, copy, length, &exe);
  if (!hrx_status_is(status, HRX_STATUS_DATA_LOSS)) {
    char text[512] = "OK";
    if (status != HRX_OK) hrx_status_format(status, text, sizeof(text));
    fail_msg("%s: '%s', not DATA_LOSS", what, text);
  }
  hrx_status_free(status);
  assert_null(exe);
  assert_int_equal(locked_live(&e->allocator), live);
  assert_int_equal(model_allocations(e->model), e->gpu_allocations);
  free(copy);
}

static void test_corrupt_code_object(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  uint8_t* flipped = malloc(saxpy_length);
  assert_non_null(flipped);
  /* Truncations: the header only, half, all but the last byte, and a
   * sweep between. */
  expect_rejected(&e, saxpy_code, 1, "1 byte");
  expect_rejected(&e, saxpy_code, 63, "63 bytes");
  expect_rejected(&e, saxpy_code, 64, "the ELF header");
  expect_rejected(&e, saxpy_code, saxpy_length / 2, "half");
  expect_rejected(&e, saxpy_code, saxpy_length - 1, "all but one byte");
  for (size_t length = 65; length < saxpy_length; length += 397) {
    char what[64];
    snprintf(what, sizeof(what), "truncated to %zu bytes", length);
    expect_rejected(&e, saxpy_code, length, what);
  }
  /* Bit flips the loader must catch: the magic, the class, the machine,
   * the section table's offset, its entry size, and the metadata note's
   * type. */
  static const struct {
    size_t offset;
    uint8_t mask;
    const char* what;
  } flips[] = {
      {0, 0x01, "magic 0x7f"}, {1, 0x20, "magic 'E'"},
      {4, 0x03, "ELF class"},  {5, 0x03, "byte order"},
      {18, 0x01, "e_machine"}, {45, 0x40, "e_shoff"},
      {58, 0x10, "e_shentsize"},
  };
  for (size_t i = 0; i < sizeof(flips) / sizeof(flips[0]); ++i) {
    memcpy(flipped, saxpy_code, saxpy_length);
    flipped[flips[i].offset] ^= flips[i].mask;
    expect_rejected(&e, flipped, saxpy_length, flips[i].what);
  }
  free(flipped);
  /* The empty object is refused before the provider sees it. */
  hrx_fabric_executable_t* exe = NULL;
  assert_status_code(hrx_fabric_executable_load(e.device, saxpy_code, 0, &exe),
                     HRX_STATUS_INVALID_ARGUMENT);
  /* And the device still loads and runs the real thing. */
  const hrx_fabric_kernel_t* kernel = NULL;
  exe = load_saxpy(&e, &kernel);
  hrx_fabric_queue_t* q = open_queue(&e);
  saxpy_run(&e, q, kernel, 200);
  hrx_fabric_queue_destroy(q);
  env_close_saxpy(&e, exe);
}

/*===------------------------------------------------------------------===*/
/* Provider bugs found by this suite                                       */
/*===------------------------------------------------------------------===*/

/* hrx_fabric_queue_create allows 2..65536 packets, but a ring smaller
 * than a page (under 64 packets) is a smaller BO than the page the
 * allocation rounds to, and CREATE_QUEUE refuses it. */
static void test_small_queues(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  hrx_fabric_memory_t m;
  assert_ok(hrx_fabric_memory_allocate(e.device, 4 * 3 * 32,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE, &m));
  for (uint32_t n = 2; n <= 32; n *= 2) {
    hrx_fabric_queue_t* q = NULL;
    assert_ok(hrx_fabric_queue_create(e.device, n, &q));
    /* A provider may round a ring up to the page a hardware ring needs. */
    assert_true(hrx_fabric_queue_size(q) >= n);
    /* Three times round the ring. */
    hrx_fabric_signal_t* done = device_signal(&e, 3 * n);
    for (uint32_t i = 0; i < 3 * n; ++i) {
      uint64_t index = 0;
      hrx_status_t status;
      while ((status = hrx_fabric_queue_reserve(q, 1, &index)) != HRX_OK) {
        assert_status_code(status, HRX_STATUS_BUSY);
        usleep(100);
      }
      hrx_aql_agent_packet_t* p = &hrx_fabric_queue_slot(q, index)->agent;
      memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
      p->arg[0] = m.device_address + 4 * i;
      p->arg[1] = n * 1000 + i;
      p->arg[2] = 4;
      p->completion_signal = hrx_fabric_signal_handle(done);
      hrx_fabric_queue_publish(q, index, header_of(HRX_AQL_PACKET_AGENT),
                               HRX_AQL_AGENT_FILL);
    }
    assert_int_equal(wait_signal(done), 0);
    for (uint32_t i = 0; i < 3 * n; ++i) {
      assert_int_equal(((uint32_t*)m.host_pointer)[i], n * 1000 + i);
    }
    hrx_fabric_signal_release(done);
    hrx_fabric_queue_destroy(q);
  }
  hrx_fabric_memory_free(e.device, &m);
  env_close(&e);
}

/* A free whose UNMAP or FREE ioctl fails must not hand the address back
 * while the buffer object still holds it: later allocations there fail. */
static void test_failed_free_keeps_device_usable(void** state) {
  (void)state;
  static const struct {
    unsigned long request;
  } steps[] = {{HRX_KFD_IOC_UNMAP_MEMORY_FROM_GPU},
               {HRX_KFD_IOC_FREE_MEMORY_OF_GPU}};
  for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); ++i) {
    env_t e;
    env_open(&e);
    hrx_fabric_memory_t m;
    assert_ok(hrx_fabric_memory_allocate(e.device, 4096,
                                         HRX_FABRIC_VISIBILITY_DEVICE, &m));
    hrx_kfd_model_inject(e.model, steps[i].request, 1, EIO);
    hrx_fabric_memory_free(e.device, &m);
    hrx_kfd_model_inject(e.model, 0, 0, 0);
    hrx_fabric_memory_t again[3];
    for (size_t k = 0; k < 3; ++k) {
      assert_ok(hrx_fabric_memory_allocate(e.device, 4096,
                                           HRX_FABRIC_VISIBILITY_DEVICE,
                                           &again[k]));
    }
    for (size_t k = 0; k < 3; ++k) hrx_fabric_memory_free(e.device, &again[k]);
    check_usable(&e);
    hrx_fabric_device_release(e.device);
    env_check_clean(&e);
  }
}

/* A completion signal the GPU cannot reach (a host signal, not a device
 * one) must end as a fault the producer hears of, not a wait that never
 * ends: the model stops the queue after the packet retired, so the event
 * thread finds nothing to fail and the host signal stays 1. */
static void test_unreachable_completion_signal(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  hrx_fabric_queue_t* q = open_queue(&e);
  hrx_fabric_memory_t m;
  assert_ok(hrx_fabric_memory_allocate(e.device, 64,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE, &m));
  hrx_fabric_signal_t* host = NULL;
  assert_ok(hrx_fabric_signal_create(1, hrx_allocator_system(), &host));
  publish_agent(q, HRX_AQL_AGENT_FILL, m.device_address, 7, 64, host);
  int64_t value = 1;
  assert_ok(hrx_fabric_signal_wait(host, HRX_FABRIC_SIGNAL_LT, 1,
                                   UINT64_C(5000000000), &value));
  assert_int_equal(value, HRX_FABRIC_SIGNAL_FAULTED);
  hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  assert_ok(hrx_fabric_queue_take_fault_for(
      q, hrx_fabric_signal_handle(host), &fault));
  hrx_fabric_queue_destroy(q);
  hrx_fabric_signal_release(host);
  hrx_fabric_memory_free(e.device, &m);
  check_usable(&e);
  env_close(&e);
}

/* A queue may hold the last reference to its device. */
static void test_queue_outlives_device(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  hrx_fabric_queue_t* q = open_queue(&e);
  check_usable(&e);
  hrx_fabric_device_release(e.device);
  e.device = NULL;
  hrx_fabric_queue_destroy(q); /* releases the device */
  env_check_clean(&e);
}

/* A producer that sees its packet's signal faulted and at once publishes
 * again on the same queue must get that packet completed as faulted too.
 * The event thread completes the faulted packets' signals before it marks
 * the queue dead, so a publication in between goes to a queue that never
 * runs it. Many packets behind the faulting one widen the window. */
static void test_publish_right_after_fault(void** state) {
  (void)state;
  env_t e;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe = env_open_saxpy(&e, &kernel);
  int lost = 0;
  for (int round = 0; round < 100; ++round) {
    hrx_fabric_queue_t* q = open_queue(&e);
    saxpy_t bad;
    saxpy_prepare(&e, kernel, 1, FAR_AWAY, &bad);
    saxpy_publish(q, kernel, &bad);
    hrx_fabric_signal_t* behind = device_signal(&e, 40);
    for (int k = 0; k < 40; ++k) {
      publish_agent(q, HRX_AQL_AGENT_FILL, 0, 0, 0, behind);
    }
    hrx_fabric_signal_t* later = device_signal(&e, 1);
    while (hrx_fabric_signal_load(bad.done) != HRX_FABRIC_SIGNAL_FAULTED) {
    }
    publish_agent(q, HRX_AQL_AGENT_FILL, 0, 0, 0, later);
    int64_t value = 1;
    hrx_status_t status = hrx_fabric_signal_wait(
        later, HRX_FABRIC_SIGNAL_LT, 1, UINT64_C(2000000000), &value);
    if (status != HRX_OK) {
      ++lost;
      hrx_status_free(status);
    } else {
      assert_int_equal(value, HRX_FABRIC_SIGNAL_FAULTED);
    }
    hrx_fabric_queue_destroy(q);
    hrx_fabric_signal_release(later);
    hrx_fabric_signal_release(behind);
    saxpy_release(&e, &bad);
  }
  assert_int_equal(lost, 0);
  env_close_saxpy(&e, exe);
}

/* The model's fault text carries the faulting instruction's bytes. */
static void test_fault_detail_bytes(void** state) {
  (void)state;
  env_t e;
  const hrx_fabric_kernel_t* kernel = NULL;
  hrx_fabric_executable_t* exe = env_open_saxpy(&e, &kernel);
  hrx_fabric_queue_t* q = open_queue(&e);
  saxpy_t bad;
  saxpy_fault(&e, q, kernel, 1, &bad);
  hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  assert_ok(hrx_fabric_queue_take_fault(q, &fault));
  hrx_gfx11_fault_t model = {0};
  for (uint32_t id = 0; id < KFD_MODEL_MAX_QUEUES; ++id) {
    hrx_gfx11_fault_t f;
    hrx_status_t status = hrx_kfd_model_queue_fault(e.model, id, &f);
    if (status == HRX_OK && f.kind != HRX_GFX11_FAULT_NONE) model = f;
    hrx_status_free(status);
  }
  assert_true(model.byte_count >= 4);
  char bytes[64] = "";
  for (uint32_t i = 0, at = 0; i < model.byte_count; ++i) {
    at += (uint32_t)snprintf(bytes + at, sizeof(bytes) - at, "%s%02x",
                             i ? " " : "", model.bytes[i]);
  }
  if (!strstr(fault.detail, bytes)) {
    fail_msg("'%s' lacks the instruction bytes [%s]", fault.detail, bytes);
  }
  hrx_fabric_queue_destroy(q);
  saxpy_release(&e, &bad);
  env_close_saxpy(&e, exe);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_open_close),
      cmocka_unit_test(test_public_create),
      cmocka_unit_test(test_create_allocation_failures),
      cmocka_unit_test(test_creation_ioctl_failures),
      cmocka_unit_test(test_queue_ioctl_failures),
      cmocka_unit_test(test_wait_events_failure),
      cmocka_unit_test(test_teardown_failures),
      cmocka_unit_test(test_memory),
      cmocka_unit_test(test_saxpy),
      cmocka_unit_test(test_queue_scratch),
      cmocka_unit_test(test_ring_wraps),
      cmocka_unit_test(test_copy_fill),
      cmocka_unit_test(test_fault_isolation),
      cmocka_unit_test(test_restart_after_fault),
      cmocka_unit_test(test_fault_then_teardown),
      cmocka_unit_test(test_corrupt_code_object),
      cmocka_unit_test(test_signals),
      cmocka_unit_test(test_resource_limits),
      cmocka_unit_test(test_barrier_across_queues),
      cmocka_unit_test(test_large_transfers),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_small_queues),
      cmocka_unit_test(test_publish_right_after_fault),
      cmocka_unit_test(test_fault_detail_bytes),
      cmocka_unit_test(test_failed_free_keeps_device_usable),
      cmocka_unit_test(test_unreachable_completion_signal),
      /* Last: while the bug stands, ASan ends the process here. */
      cmocka_unit_test(test_queue_outlives_device),
  };
  return cmocka_run_group_tests(tests, compile_saxpy, free_saxpy);
}
