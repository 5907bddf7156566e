/* The KFD model driven the way the kfd provider will drive it: raw ioctls
 * through its hrx_kfd_sys_t, saxpy compiled for gfx1151 dispatched through
 * an AQL queue and checked against C, a faulting dispatch stopping its
 * queue, and the driver's refusals and injected failures.
 *
 * The code image: hrx_gfx11_image_load places it in its own host
 * allocation, with relocations applied for that address, so it is
 * registered with the model as USERPTR memory (its enclosing pages) rather
 * than copied, which would break absolute relocations. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "gfx11.h"
#include "gfx11_test_util.h"
#include "hrx/core/bytes.h"
#include "hrx/core/file.h"
#include "hrx/fabric/aql.h"
#include "hrx/loom.h"
#include "kfd_ioctl.h"
#include "kfd_model.h"
#include "kfd_topology.h"
#include "test_support.h"

#define PAGE 4096u
#define RESERVATION (64u << 20)
/* The gfx1151 fixture (simd_count 80, simd_per_cu 2): 40 CUs, 1280 waves,
 * so ctl_stack = ALIGN(40 + 1280 * 12 + 8, 4 KiB) = 0x4000, cwsr =
 * ctl_stack + ALIGN(40 * 0x55000, 4 KiB) = 0xD4C000 and the CWSR BO adds
 * ALIGN(1280 * 32, 64) = 0xA000 of debug memory (hardware.md §1). */
#define CTL_STACK 0x4000u
#define CWSR 0xD4C000u
#define CWSR_BO 0xD56000u
#define RING_BYTES 4096u
#define WAIT_MS 20000u

typedef struct env_t {
  test_allocator_t counter;
  hrx_kfd_model_t* model;
  hrx_kfd_sys_t sys;
  int kfd, render;
  uint32_t gpu_id;
  uint8_t* reservation;
  uint64_t next; /* bump pointer inside the reservation */
  size_t fds_before;
} env_t;

typedef struct buffer_t {
  uint64_t handle;
  uint8_t* p;
  uint64_t size;
} buffer_t;

typedef struct queue_t {
  hrx_kfd_create_queue_args_t args;
  buffer_t ring, gart, eop, cwsr;
  _Atomic uint64_t* doorbell;
  void* doorbell_page;
} queue_t;

static int kfd_ioctl(env_t* e, unsigned long request, void* args) {
  return e->sys.ioctl(e->sys.context, e->kfd, request, args);
}

static void env_open(env_t* e) {
  memset(e, 0, sizeof(*e));
  e->fds_before = test_dir_count("/proc/self/fd", NULL);
  assert_ok(hrx_kfd_model_create(HRX_KFD_FIXTURES "/gfx1151",
                                 test_allocator(&e->counter), &e->model));
  e->sys = hrx_kfd_model_sys(e->model);
  e->gpu_id = hrx_kfd_model_gpu_id(e->model);
  e->kfd = e->sys.openat(e->sys.context, -1, "/dev/kfd", 0);
  e->render = e->sys.openat(e->sys.context, -1, "/dev/dri/renderD128", 0);
  assert_true(e->kfd >= 0 && e->render >= 0);
  void* p = NULL;
  assert_int_equal(e->sys.mmap(e->sys.context, NULL, RESERVATION, PROT_NONE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                               -1, 0, &p),
                   0);
  e->reservation = p;
  e->next = (uint64_t)(uintptr_t)p;
}

static void env_acquire(env_t* e) {
  hrx_kfd_get_version_args_t version = {0};
  assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_GET_VERSION, &version), 0);
  assert_int_equal(version.major_version, 1);
  assert_int_equal(version.minor_version, HRX_KFD_VERSION_MINOR);
  hrx_kfd_acquire_vm_args_t vm = {.drm_fd = (uint32_t)e->render,
                                  .gpu_id = e->gpu_id};
  assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_ACQUIRE_VM, &vm), 0);
}

static void env_close(env_t* e) {
  assert_int_equal(
      e->sys.munmap(e->sys.context, e->reservation, RESERVATION), 0);
  assert_int_equal(e->sys.close(e->sys.context, e->kfd), 0);
  assert_int_equal(e->sys.close(e->sys.context, e->render), 0);
  hrx_kfd_model_destroy(e->model);
  assert_int_equal(e->counter.live, 0);
  assert_int_equal(test_dir_count("/proc/self/fd", NULL), e->fds_before);
}

static void map_handle(env_t* e, uint64_t handle, bool map) {
  hrx_kfd_map_memory_args_t args = {
      .handle = handle,
      .device_ids_array_ptr = (uint64_t)(uintptr_t)&e->gpu_id,
      .n_devices = 1};
  assert_int_equal(kfd_ioctl(e, map ? HRX_KFD_IOC_MAP_MEMORY_TO_GPU
                                    : HRX_KFD_IOC_UNMAP_MEMORY_FROM_GPU,
                             &args),
                   0);
  assert_int_equal(args.n_success, 1);
}

/* ALLOC at the next free VA of the reservation, MAP, and mmap the render
 * node at the answer's offset, as libhsakmt does. */
static buffer_t alloc_buffer(env_t* e, uint64_t size) {
  size = (size + PAGE - 1) / PAGE * PAGE;
  hrx_kfd_alloc_memory_args_t args = {.va_addr = e->next, .size = size,
                                      .gpu_id = e->gpu_id,
                                      .flags = HRX_KFD_ALLOC_GTT |
                                               HRX_KFD_ALLOC_WRITABLE};
  assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU, &args), 0);
  e->next += size;
  map_handle(e, args.handle, true);
  void* cpu = NULL;
  assert_int_equal(
      e->sys.mmap(e->sys.context, (void*)(uintptr_t)args.va_addr, size,
                  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, e->render,
                  (off_t)args.mmap_offset, &cpu),
      0);
  assert_ptr_equal(cpu, (void*)(uintptr_t)args.va_addr);
  return (buffer_t){args.handle, cpu, size};
}

static void free_buffer(env_t* e, buffer_t* b) {
  if (b->handle == 0) return;
  map_handle(e, b->handle, false);
  hrx_kfd_free_memory_args_t args = {.handle = b->handle};
  assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_FREE_MEMORY_OF_GPU, &args), 0);
  *b = (buffer_t){0};
}

/* Ring, amd_queue_t ("gart": write_dispatch_id at 56, read_dispatch_id at
 * 128), EOP and CWSR buffers, the queue args that describe them. */
static void queue_buffers(env_t* e, queue_t* q) {
  memset(q, 0, sizeof(*q));
  q->ring = alloc_buffer(e, RING_BYTES);
  q->gart = alloc_buffer(e, PAGE);
  q->eop = alloc_buffer(e, PAGE);
  q->cwsr = alloc_buffer(e, CWSR_BO);
  /* Every slot starts INVALID, so the processor waits for a header. */
  for (size_t i = 0; i < RING_BYTES / 64; ++i) {
    ((hrx_aql_packet_t*)q->ring.p)[i].dispatch.header = HRX_AQL_PACKET_INVALID;
  }
  q->args = (hrx_kfd_create_queue_args_t){
      .ring_base_address = (uint64_t)(uintptr_t)q->ring.p,
      .write_pointer_address = (uint64_t)(uintptr_t)(q->gart.p + 56),
      .read_pointer_address = (uint64_t)(uintptr_t)(q->gart.p + 128),
      .ring_size = RING_BYTES,
      .gpu_id = e->gpu_id,
      .queue_type = HRX_KFD_QUEUE_TYPE_COMPUTE_AQL,
      .queue_percentage = 100,
      .queue_priority = 7,
      .eop_buffer_address = (uint64_t)(uintptr_t)q->eop.p,
      .eop_buffer_size = PAGE,
      .ctx_save_restore_address = (uint64_t)(uintptr_t)q->cwsr.p,
      .ctx_save_restore_size = CWSR,
      .ctl_stack_size = CTL_STACK,
  };
}

static void queue_open(env_t* e, queue_t* q) {
  queue_buffers(e, q);
  assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_CREATE_QUEUE, &q->args), 0);
  uint64_t base = q->args.doorbell_offset & ~(uint64_t)0x1fff;
  assert_int_equal(e->sys.mmap(e->sys.context, NULL, 0x2000,
                               PROT_READ | PROT_WRITE, MAP_SHARED, e->kfd,
                               (off_t)base, &q->doorbell_page),
                   0);
  q->doorbell = (_Atomic uint64_t*)((uint8_t*)q->doorbell_page +
                                    (q->args.doorbell_offset - base));
}

static void queue_close(env_t* e, queue_t* q) {
  if (q->doorbell_page != NULL) {
    assert_int_equal(e->sys.munmap(e->sys.context, q->doorbell_page, 0x2000),
                     0);
    hrx_kfd_destroy_queue_args_t args = {.queue_id = q->args.queue_id};
    assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_DESTROY_QUEUE, &args), 0);
  }
  free_buffer(e, &q->cwsr);
  free_buffer(e, &q->eop);
  free_buffer(e, &q->gart);
  free_buffer(e, &q->ring);
}

/* Writes |packet| at |index|: the body first, then header and setup with
 * one release store; then write_dispatch_id and the doorbell. */
static void submit(queue_t* q, uint64_t index, const hrx_aql_packet_t* p) {
  hrx_aql_packet_t* slot =
      (hrx_aql_packet_t*)q->ring.p + index % (RING_BYTES / 64);
  memcpy((uint8_t*)slot + 4, (const uint8_t*)p + 4, 60);
  uint32_t first = (uint32_t)p->dispatch.header |
                   ((uint32_t)p->dispatch.setup << 16);
  atomic_store_explicit((_Atomic uint32_t*)slot, first, memory_order_release);
  atomic_store_explicit((_Atomic uint64_t*)(q->gart.p + 56), index + 1,
                        memory_order_release);
  atomic_store_explicit(q->doorbell, index, memory_order_release);
}

/* Registers the image's enclosing pages as USERPTR memory and maps them. */
static uint64_t register_image(env_t* e, const hrx_gfx11_image_t* image) {
  hrx_gfx11_range_t r = hrx_gfx11_image_range(image);
  uint64_t base = r.base / PAGE * PAGE;
  uint64_t end = (r.base + r.size + PAGE - 1) / PAGE * PAGE;
  hrx_kfd_alloc_memory_args_t args = {.va_addr = base, .size = end - base,
                                      .mmap_offset = base,
                                      .gpu_id = e->gpu_id,
                                      .flags = HRX_KFD_ALLOC_USERPTR |
                                               HRX_KFD_ALLOC_EXECUTABLE};
  assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU, &args), 0);
  map_handle(e, args.handle, true);
  return args.handle;
}

typedef struct saxpy_t {
  buffer_t kernarg, data, signal;
  float *x, *y, *want;
  uint32_t n;
  hrx_aql_packet_t packet;
} saxpy_t;

enum { THREADS = 256 };

/* Buffers and a dispatch packet for saxpy over |n| elements; y_override,
 * when nonzero, replaces the y pointer (to make the kernel fault). */
static void saxpy_prepare(env_t* e, uint64_t kd, uint32_t n,
                          uint64_t y_override, uint32_t event_id,
                          saxpy_t* s) {
  memset(s, 0, sizeof(*s));
  s->n = n;
  const uint8_t* cursor = (const uint8_t*)(uintptr_t)(kd + 8);
  uint32_t kernarg_size = (uint32_t)hrx_get_le(&cursor, 4);
  assert_true(kernarg_size >= 56);
  s->kernarg = alloc_buffer(e, kernarg_size);
  s->data = alloc_buffer(e, 3 * sizeof(float) * n);
  s->signal = alloc_buffer(e, PAGE);
  s->x = (float*)s->data.p;
  s->y = s->x + n;
  s->want = s->y + n;
  float alpha = 1.0f + 0x1p-23f;
  for (uint32_t i = 0; i < n; ++i) {
    s->x[i] = 1.0f + (float)i * 0x1p-22f;
    s->y[i] = -(1.0f + (float)(i + 1) * 0x1p-21f);
    s->want[i] = fmaf(alpha, s->x[i], s->y[i]);
  }
  uint32_t groups = (n + THREADS - 1) / THREADS;
  uint32_t alpha_bits;
  memcpy(&alpha_bits, &alpha, 4);
  uint8_t* k = s->kernarg.p;
  hrx_put_le(&k, n, 8);
  hrx_put_le(&k, alpha_bits, 4);
  hrx_put_le(&k, 0, 4);
  hrx_put_le(&k, (uint64_t)(uintptr_t)s->x, 8);
  hrx_put_le(&k, y_override ? y_override : (uint64_t)(uintptr_t)s->y, 8);
  hrx_put_le(&k, groups, 4); /* hidden_block_count_x, y, z */
  hrx_put_le(&k, 1, 4);
  hrx_put_le(&k, 1, 4);
  hrx_put_le(&k, THREADS, 2); /* hidden_group_size_x, y, z */
  hrx_put_le(&k, 1, 2);
  hrx_put_le(&k, 1, 2);
  /* amd_signal_t: kind USER, value 1, the mailbox in the same page. */
  uint8_t* sig = s->signal.p;
  uint64_t mailbox = (uint64_t)(uintptr_t)(sig + 64);
  uint8_t* c = sig;
  hrx_put_le(&c, 1, 8);
  hrx_put_le(&c, 1, 8);
  hrx_put_le(&c, event_id ? mailbox : 0, 8);
  hrx_put_le(&c, event_id, 4);
  hrx_aql_dispatch_packet_t* d = &s->packet.dispatch;
  d->header = hrx_aql_header(HRX_AQL_PACKET_KERNEL_DISPATCH, 1,
                             HRX_AQL_FENCE_SYSTEM, HRX_AQL_FENCE_SYSTEM);
  d->setup = 1;
  d->workgroup_size_x = THREADS;
  d->workgroup_size_y = d->workgroup_size_z = 1;
  d->grid_size_x = groups * THREADS;
  d->grid_size_y = d->grid_size_z = 1;
  d->kernel_object = kd;
  d->kernarg_address = (uint64_t)(uintptr_t)s->kernarg.p;
  d->completion_signal = (uint64_t)(uintptr_t)sig;
}

static void saxpy_release(env_t* e, saxpy_t* s) {
  free_buffer(e, &s->signal);
  free_buffer(e, &s->data);
  free_buffer(e, &s->kernarg);
}

static int64_t signal_value(const saxpy_t* s) {
  return atomic_load_explicit((_Atomic int64_t*)(s->signal.p + 8),
                              memory_order_acquire);
}

static uint32_t create_event(env_t* e) {
  hrx_kfd_create_event_args_t args = {.event_type = HRX_KFD_EVENT_SIGNAL,
                                      .auto_reset = 1};
  assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_CREATE_EVENT, &args), 0);
  assert_int_not_equal(args.event_id, 0);
  return args.event_id;
}

static void destroy_event(env_t* e, uint32_t id) {
  hrx_kfd_event_id_args_t args = {.event_id = id};
  assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_DESTROY_EVENT, &args), 0);
}

static uint32_t wait_event(env_t* e, uint32_t id, uint32_t timeout_ms) {
  hrx_kfd_event_data_t data = {.event_id = id};
  hrx_kfd_wait_events_args_t args = {.events_ptr = (uint64_t)(uintptr_t)&data,
                                     .num_events = 1,
                                     .wait_for_all = 1,
                                     .timeout = timeout_ms};
  assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_WAIT_EVENTS, &args), 0);
  return args.wait_result;
}

/* saxpy through the queue, completion through WAIT_EVENTS on the signal's
 * mailbox event, against fmaf. */
static void test_saxpy_dispatch(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  env_acquire(&e);
  hrx_kfd_get_process_apertures_new_args_t count = {0};
  assert_int_equal(
      kfd_ioctl(&e, HRX_KFD_IOC_GET_PROCESS_APERTURES_NEW, &count), 0);
  assert_int_equal(count.num_of_nodes, 1);
  hrx_kfd_process_device_apertures_t aperture;
  count.apertures_ptr = (uint64_t)(uintptr_t)&aperture;
  assert_int_equal(
      kfd_ioctl(&e, HRX_KFD_IOC_GET_PROCESS_APERTURES_NEW, &count), 0);
  assert_int_equal(aperture.gpu_id, e.gpu_id);
  assert_true(aperture.gpuvm_base <= e.next &&
              e.next + RESERVATION <= aperture.gpuvm_limit);

  hrx_gfx11_image_t* image = gfx11_test_load("saxpy.loom");
  uint64_t image_handle = register_image(&e, image);
  uint64_t kd = 0;
  assert_ok(hrx_gfx11_image_kernel(image, "saxpy", &kd));
  queue_t q;
  queue_open(&e, &q);
  uint32_t event = create_event(&e);
  static const uint32_t sizes[] = {1, 257, 1000};
  for (uint64_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    saxpy_t s;
    saxpy_prepare(&e, kd, sizes[i], 0, event, &s);
    submit(&q, i, &s.packet);
    assert_int_equal(wait_event(&e, event, WAIT_MS), HRX_KFD_WAIT_COMPLETE);
    assert_int_equal(signal_value(&s), 0);
    uint64_t mailbox;
    memcpy(&mailbox, s.signal.p + 64, 8);
    assert_int_equal(mailbox, event);
    assert_int_equal(*(uint64_t*)(q.gart.p + 128), i + 1);
    assert_memory_equal(s.y, s.want, sizeof(float) * s.n);
    saxpy_release(&e, &s);
  }
  /* Nothing pending: the auto-reset event was consumed and the wait
   * times out. */
  assert_int_equal(wait_event(&e, event, 10), HRX_KFD_WAIT_TIMEOUT);
  destroy_event(&e, event);
  queue_close(&e, &q);
  map_handle(&e, image_handle, false);
  hrx_kfd_free_memory_args_t free_args = {.handle = image_handle};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_FREE_MEMORY_OF_GPU, &free_args),
                   0);
  hrx_gfx11_image_destroy(image);
  env_close(&e);
}

/* A store outside every mapped allocation stops the queue with a report;
 * the packet behind it never runs; a new queue runs. */
static void test_fault_stops_queue(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  env_acquire(&e);
  hrx_gfx11_image_t* image = gfx11_test_load("saxpy.loom");
  uint64_t image_handle = register_image(&e, image);
  uint64_t kd = 0;
  assert_ok(hrx_gfx11_image_kernel(image, "saxpy", &kd));
  queue_t q;
  queue_open(&e, &q);
  /* Reserved but never allocated: not GPU-mapped. */
  uint64_t hole = (uint64_t)(uintptr_t)e.reservation + RESERVATION - PAGE;
  saxpy_t bad, after;
  saxpy_prepare(&e, kd, 64, hole, 0, &bad);
  saxpy_prepare(&e, kd, 64, 0, 0, &after);
  hrx_kfd_create_event_args_t memory = {.event_type = HRX_KFD_EVENT_MEMORY,
                                        .auto_reset = 1};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_EVENT, &memory), 0);
  submit(&q, 0, &bad.packet);
  submit(&q, 1, &after.packet);
  /* The VM fault wakes a MEMORY event waiter with the address. */
  hrx_kfd_event_data_t data = {.event_id = memory.event_id};
  hrx_kfd_wait_events_args_t wait = {.events_ptr = (uint64_t)(uintptr_t)&data,
                                     .num_events = 1, .timeout = WAIT_MS};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_WAIT_EVENTS, &wait), 0);
  assert_int_equal(wait.wait_result, HRX_KFD_WAIT_COMPLETE);
  assert_int_equal(data.u.memory_exception.gpu_id, e.gpu_id);
  uint64_t va = data.u.memory_exception.va;
  assert_true(va >= hole && va < hole + PAGE);
  destroy_event(&e, memory.event_id);
  hrx_gfx11_fault_t fault = {0};
  assert_ok(hrx_kfd_model_queue_fault(e.model, q.args.queue_id, &fault));
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_OUT_OF_BOUNDS);
  assert_int_equal(fault.address, va);
  assert_true(fault.address >= hole && fault.address < hole + PAGE);
  assert_int_equal(*(uint64_t*)(q.gart.p + 128), 0);
  assert_int_equal(signal_value(&bad), 1);
  assert_int_equal(signal_value(&after), 1);
  hrx_gfx11_fault_t none;
  assert_status_code(hrx_kfd_model_queue_fault(e.model, 99, &none),
                     HRX_STATUS_NOT_FOUND);
  saxpy_release(&e, &after);
  saxpy_release(&e, &bad);
  queue_close(&e, &q);

  queue_t again;
  queue_open(&e, &again);
  saxpy_t good;
  saxpy_prepare(&e, kd, 300, 0, 0, &good);
  submit(&again, 0, &good.packet);
  for (uint32_t i = 0; i < WAIT_MS && signal_value(&good) != 0; ++i) {
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  assert_int_equal(signal_value(&good), 0);
  assert_memory_equal(good.y, good.want, sizeof(float) * good.n);
  saxpy_release(&e, &good);
  queue_close(&e, &again);
  map_handle(&e, image_handle, false);
  hrx_kfd_free_memory_args_t free_args = {.handle = image_handle};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_FREE_MEMORY_OF_GPU, &free_args),
                   0);
  hrx_gfx11_image_destroy(image);
  env_close(&e);
}

static hrx_aql_packet_t barrier_packet(hrx_aql_packet_type_t type,
                                       uint64_t dep0, uint64_t dep1) {
  hrx_aql_packet_t p;
  memset(&p, 0, sizeof(p));
  p.barrier.header = hrx_aql_header(type, 1, HRX_AQL_FENCE_SYSTEM,
                                    HRX_AQL_FENCE_SYSTEM);
  p.barrier.dep_signal[0] = dep0;
  p.barrier.dep_signal[1] = dep1;
  return p;
}

static void store_value(uint8_t* signal, int64_t value) {
  atomic_store_explicit((_Atomic int64_t*)(signal + 8), value,
                        memory_order_release);
}

/* A barrier-AND holds the dispatch behind it until every dependency is 0;
 * a barrier-OR passes once one is. */
static void test_barriers(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  env_acquire(&e);
  hrx_gfx11_image_t* image = gfx11_test_load("saxpy.loom");
  uint64_t image_handle = register_image(&e, image);
  uint64_t kd = 0;
  assert_ok(hrx_gfx11_image_kernel(image, "saxpy", &kd));
  queue_t q;
  queue_open(&e, &q);
  uint32_t event = create_event(&e);
  buffer_t deps = alloc_buffer(&e, PAGE);
  uint8_t* a = deps.p;
  uint8_t* b = deps.p + 64;
  store_value(a, 1);
  store_value(b, 1);
  hrx_aql_packet_t and_packet =
      barrier_packet(HRX_AQL_PACKET_BARRIER_AND, (uint64_t)(uintptr_t)a,
                     (uint64_t)(uintptr_t)b);
  hrx_aql_packet_t or_packet =
      barrier_packet(HRX_AQL_PACKET_BARRIER_OR, (uint64_t)(uintptr_t)a,
                     (uint64_t)(uintptr_t)b);
  saxpy_t s;
  saxpy_prepare(&e, kd, 100, 0, event, &s);
  submit(&q, 0, &or_packet);
  submit(&q, 1, &and_packet);
  submit(&q, 2, &s.packet);
  assert_int_equal(wait_event(&e, event, 20), HRX_KFD_WAIT_TIMEOUT);
  assert_int_equal(*(uint64_t*)(q.gart.p + 128), 0);
  store_value(a, 0); /* the OR passes, the AND still waits for b */
  _Atomic uint64_t* read_index = (_Atomic uint64_t*)(q.gart.p + 128);
  for (uint32_t i = 0; i < WAIT_MS && atomic_load(read_index) == 0; ++i) {
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  assert_int_equal(wait_event(&e, event, 20), HRX_KFD_WAIT_TIMEOUT);
  assert_int_equal(atomic_load(read_index), 1);
  store_value(b, 0);
  assert_int_equal(wait_event(&e, event, WAIT_MS), HRX_KFD_WAIT_COMPLETE);
  assert_int_equal(*(uint64_t*)(q.gart.p + 128), 3);
  assert_memory_equal(s.y, s.want, sizeof(float) * s.n);
  saxpy_release(&e, &s);
  free_buffer(&e, &deps);
  destroy_event(&e, event);
  queue_close(&e, &q);
  map_handle(&e, image_handle, false);
  hrx_kfd_free_memory_args_t free_args = {.handle = image_handle};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_FREE_MEMORY_OF_GPU, &free_args),
                   0);
  hrx_gfx11_image_destroy(image);
  env_close(&e);
}

/* The refusals the driver makes, with its errnos. */
static void test_refusals(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  /* Before ACQUIRE_VM there is no VM to allocate in. */
  hrx_kfd_alloc_memory_args_t early = {.va_addr = e.next, .size = PAGE,
                                       .gpu_id = e.gpu_id,
                                       .flags = HRX_KFD_ALLOC_GTT};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU, &early),
                   -EINVAL);
  /* ACQUIRE_VM wants the model's render node, not the kfd fd. */
  hrx_kfd_acquire_vm_args_t vm = {.drm_fd = (uint32_t)e.kfd,
                                  .gpu_id = e.gpu_id};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_ACQUIRE_VM, &vm), -EINVAL);
  env_acquire(&e);
  /* Outside any reservation: the driver would not have the VA. */
  static uint8_t outside[2 * PAGE];
  hrx_kfd_alloc_memory_args_t stray = {
      .va_addr = ((uint64_t)(uintptr_t)outside + PAGE - 1) / PAGE * PAGE,
      .size = PAGE, .gpu_id = e.gpu_id, .flags = HRX_KFD_ALLOC_GTT};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU, &stray),
                   -EINVAL);
  buffer_t b = alloc_buffer(&e, PAGE);
  hrx_kfd_free_memory_args_t busy = {.handle = b.handle};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_FREE_MEMORY_OF_GPU, &busy),
                   -EBUSY);
  free_buffer(&e, &b);

  queue_t q;
  queue_buffers(&e, &q);
  hrx_kfd_create_queue_args_t bad = q.args;
  bad.ring_size = RING_BYTES + 64;
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &bad), -EINVAL);
  bad.ring_size = 0;
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &bad), -EINVAL);
  bad = q.args;
  bad.ring_size = RING_BYTES / 2; /* power of two, not the ring's mapping */
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &bad), -EINVAL);
  bad = q.args;
  bad.eop_buffer_size = 2 * PAGE;
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &bad), -EINVAL);
  bad = q.args;
  bad.ctx_save_restore_size = CWSR - PAGE;
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &bad), -EINVAL);
  bad = q.args;
  bad.ctl_stack_size = CTL_STACK + PAGE;
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &bad), -EINVAL);
  bad = q.args;
  bad.read_pointer_address = (uint64_t)(uintptr_t)outside;
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &bad), -EINVAL);
  bad = q.args;
  bad.queue_type = HRX_KFD_QUEUE_TYPE_COMPUTE;
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &bad), -EINVAL);
  hrx_kfd_destroy_queue_args_t missing = {.queue_id = 7};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_DESTROY_QUEUE, &missing),
                   -EINVAL);
  queue_close(&e, &q);

  /* Unknown requests, and ioctls on a node that is not /dev/kfd. */
  hrx_kfd_set_xnack_mode_args_t xnack = {.xnack_enabled = -1};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_SET_XNACK_MODE, &xnack),
                   -ENOTTY);
  hrx_kfd_get_version_args_t version;
  assert_int_equal(e.sys.ioctl(e.sys.context, e.render,
                               HRX_KFD_IOC_GET_VERSION, &version),
                   -ENOTTY);
  assert_int_equal(e.sys.openat(e.sys.context, -1, "/dev/dri/renderD129", 0),
                   -ENOENT);
  /* SET_EVENT on a signal event wakes a waiter; a missing id is EINVAL. */
  uint32_t event = create_event(&e);
  hrx_kfd_event_id_args_t set = {.event_id = event};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_SET_EVENT, &set), 0);
  assert_int_equal(wait_event(&e, event, 0), HRX_KFD_WAIT_COMPLETE);
  destroy_event(&e, event);
  hrx_kfd_event_data_t data = {.event_id = event};
  hrx_kfd_wait_events_args_t wait = {.events_ptr = (uint64_t)(uintptr_t)&data,
                                     .num_events = 1, .timeout = 0};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_WAIT_EVENTS, &wait), -EINVAL);
  env_close(&e);
}

/* The Nth call of a request fails with the injected errno, once. */
static void test_fault_injection(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  hrx_kfd_model_inject(e.model, HRX_KFD_IOC_ACQUIRE_VM, 1, EIO);
  hrx_kfd_acquire_vm_args_t vm = {.drm_fd = (uint32_t)e.render,
                                  .gpu_id = e.gpu_id};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_ACQUIRE_VM, &vm), -EIO);
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_ACQUIRE_VM, &vm), 0);

  hrx_kfd_model_inject(e.model, HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU, 2, ENOMEM);
  buffer_t first = alloc_buffer(&e, PAGE);
  hrx_kfd_alloc_memory_args_t args = {.va_addr = e.next, .size = PAGE,
                                      .gpu_id = e.gpu_id,
                                      .flags = HRX_KFD_ALLOC_GTT};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU, &args),
                   -ENOMEM);
  buffer_t second = alloc_buffer(&e, PAGE);

  queue_t q;
  queue_buffers(&e, &q);
  hrx_kfd_model_inject(e.model, HRX_KFD_IOC_CREATE_QUEUE, 1, ENOSPC);
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &q.args), -ENOSPC);
  hrx_kfd_model_inject(e.model, 0, 0, 0);
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &q.args), 0);
  hrx_kfd_destroy_queue_args_t destroy = {.queue_id = q.args.queue_id};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_DESTROY_QUEUE, &destroy), 0);
  queue_close(&e, &q);
  free_buffer(&e, &second);
  free_buffer(&e, &first);
  env_close(&e);
}

/* The provider's own discovery and set-up calls run on the model: the
 * topology scan reads the fixture, /dev/kfd opens under a /dev fd, and
 * GET_VERSION and ACQUIRE_VM go through hrx_kfd_ioctl. */
static void test_provider_calls(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  int sysfs = e.sys.openat(e.sys.context, -1, "/sys",
                           O_RDONLY | O_DIRECTORY);
  assert_true(sysfs >= 0);
  hrx_kfd_topology_t* topology = malloc(sizeof(*topology));
  assert_non_null(topology);
  assert_ok(hrx_kfd_topology_scan(&e.sys, sysfs, topology));
  assert_int_equal(e.sys.close(e.sys.context, sysfs), 0);
  assert_int_equal(topology->nodes[1].gpu_id, e.gpu_id);
  assert_string_equal(topology->nodes[1].target, "gfx1151");
  free(topology);
  int dev = e.sys.openat(e.sys.context, -1, "/dev", O_RDONLY | O_DIRECTORY);
  assert_true(dev >= 0);
  int kfd = -1;
  assert_ok(hrx_kfd_open_device(&e.sys, dev, &kfd));
  uint32_t major = 0, minor = 0;
  assert_ok(hrx_kfd_get_version(&e.sys, kfd, &major, &minor));
  assert_int_equal(major, HRX_KFD_VERSION_MAJOR);
  assert_int_equal(minor, HRX_KFD_VERSION_MINOR);
  assert_ok(hrx_kfd_acquire_vm(&e.sys, kfd, e.render, e.gpu_id));
  /* One injected EAGAIN is the driver's "busy, try again": retried. */
  hrx_kfd_model_inject(e.model, 0, 1, EAGAIN);
  hrx_kfd_get_version_args_t version;
  assert_ok(hrx_kfd_ioctl(&e.sys, kfd, HRX_KFD_IOC_GET_VERSION,
                          "AMDKFD_IOC_GET_VERSION", &version));
  /* An injected EIO is not; the status names the request. */
  hrx_kfd_model_inject(e.model, HRX_KFD_IOC_GET_VERSION, 1, EIO);
  assert_status(hrx_kfd_ioctl(&e.sys, kfd, HRX_KFD_IOC_GET_VERSION,
                              "AMDKFD_IOC_GET_VERSION", &version),
                HRX_STATUS_DATA_LOSS, "AMDKFD_IOC_GET_VERSION");
  assert_int_equal(e.sys.close(e.sys.context, kfd), 0);
  assert_int_equal(e.sys.close(e.sys.context, dev), 0);
  env_close(&e);
}

/* Fixture files and model nodes through the raw table. */
static void test_fixture_paths(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  int fd = e.sys.openat(e.sys.context, -1,
                        "/sys/class/kfd/kfd/topology/nodes/1/gpu_id", 0);
  assert_true(fd >= 0);
  char text[32] = {0};
  assert_true(e.sys.read(e.sys.context, fd, text, sizeof(text) - 1) > 0);
  assert_int_equal(strtoul(text, NULL, 10), e.gpu_id);
  assert_int_equal(e.sys.close(e.sys.context, fd), 0);
  int dev = e.sys.openat(e.sys.context, -1, "/dev", 0);
  assert_true(dev >= 0);
  int kfd = e.sys.openat(e.sys.context, dev, "kfd", 0);
  assert_true(kfd >= 0);
  assert_int_equal(e.sys.read(e.sys.context, kfd, text, 1), -EINVAL);
  assert_int_equal(e.sys.close(e.sys.context, kfd), 0);
  assert_int_equal(e.sys.close(e.sys.context, dev), 0);
  assert_int_equal(e.sys.openat(e.sys.context, -1, "/etc/passwd", 0),
                   -ENOENT);
  env_close(&e);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fixture_paths),
      cmocka_unit_test(test_provider_calls),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_fault_injection),
      cmocka_unit_test(test_saxpy_dispatch),
      cmocka_unit_test(test_fault_stops_queue),
      cmocka_unit_test(test_barriers),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
