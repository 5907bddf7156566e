/* The KFD model driven the way the kfd provider will drive it: raw ioctls
 * through its hrx_kfd_sys_t, saxpy compiled for gfx1151 dispatched through
 * an AQL queue and through a PM4 queue's registers and checked against C,
 * PM4 fences, waits across queues, the SDMA engine, faulting dispatches
 * and packets stopping their queue, and the driver's refusals and
 * injected failures.
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
#include "pm4_packets.h"
#include "sdma_packets.h"
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

/* Ring, control page ("gart": for AQL the amd_queue_t, write_dispatch_id
 * at 56, read_dispatch_id at 128; PM4 and SDMA queues use the same
 * slots), and for compute queues the EOP and CWSR buffers; the queue args
 * that describe them. */
static void typed_queue_buffers(env_t* e, queue_t* q, uint32_t type,
                                uint32_t ring_bytes) {
  memset(q, 0, sizeof(*q));
  q->ring = alloc_buffer(e, ring_bytes);
  q->gart = alloc_buffer(e, PAGE);
  q->args = (hrx_kfd_create_queue_args_t){
      .ring_base_address = (uint64_t)(uintptr_t)q->ring.p,
      .write_pointer_address = (uint64_t)(uintptr_t)(q->gart.p + 56),
      .read_pointer_address = (uint64_t)(uintptr_t)(q->gart.p + 128),
      .ring_size = ring_bytes,
      .gpu_id = e->gpu_id,
      .queue_type = type,
      .queue_percentage = 100,
      .queue_priority = 7,
  };
  /* An SDMA queue needs neither an EOP buffer nor a CWSR area. */
  if (type == HRX_KFD_QUEUE_TYPE_SDMA) return;
  q->eop = alloc_buffer(e, PAGE);
  q->cwsr = alloc_buffer(e, CWSR_BO);
  q->args.eop_buffer_address = (uint64_t)(uintptr_t)q->eop.p;
  q->args.eop_buffer_size = PAGE;
  q->args.ctx_save_restore_address = (uint64_t)(uintptr_t)q->cwsr.p;
  q->args.ctx_save_restore_size = CWSR;
  q->args.ctl_stack_size = CTL_STACK;
}

static void queue_buffers(env_t* e, queue_t* q) {
  typed_queue_buffers(e, q, HRX_KFD_QUEUE_TYPE_COMPUTE_AQL, RING_BYTES);
  /* Every slot starts INVALID, so the processor waits for a header. */
  for (size_t i = 0; i < RING_BYTES / 64; ++i) {
    ((hrx_aql_packet_t*)q->ring.p)[i].dispatch.header = HRX_AQL_PACKET_INVALID;
  }
}

/* Creates the queue |q|'s args describe and maps its doorbell. */
static void queue_create(env_t* e, queue_t* q) {
  assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_CREATE_QUEUE, &q->args), 0);
  uint64_t base = q->args.doorbell_offset & ~(uint64_t)0x1fff;
  assert_int_equal(e->sys.mmap(e->sys.context, NULL, 0x2000,
                               PROT_READ | PROT_WRITE, MAP_SHARED, e->kfd,
                               (off_t)base, &q->doorbell_page),
                   0);
  q->doorbell = (_Atomic uint64_t*)((uint8_t*)q->doorbell_page +
                                    (q->args.doorbell_offset - base));
}

static void queue_open(env_t* e, queue_t* q) {
  queue_buffers(e, q);
  queue_create(e, q);
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

/* Unmaps, frees and destroys what register_image registered. */
static void release_image(env_t* e, uint64_t handle,
                          hrx_gfx11_image_t* image) {
  map_handle(e, handle, false);
  hrx_kfd_free_memory_args_t args = {.handle = handle};
  assert_int_equal(kfd_ioctl(e, HRX_KFD_IOC_FREE_MEMORY_OF_GPU, &args), 0);
  hrx_gfx11_image_destroy(image);
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
  release_image(&e, image_handle, image);
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
  release_image(&e, image_handle, image);
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

/* Whether the |bytes|-byte word at |p| (a fence, or a queue's read
 * index at gart + 128) reaches |want| within WAIT_MS. */
static bool wait_word(const uint8_t* p, size_t bytes, uint64_t want) {
  for (uint32_t i = 0; i < WAIT_MS; ++i) {
    uint64_t value =
        bytes == 8 ? atomic_load_explicit((const _Atomic uint64_t*)p,
                                          memory_order_acquire)
                   : atomic_load_explicit((const _Atomic uint32_t*)p,
                                          memory_order_acquire);
    if (value == want) return true;
    nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  return false;
}

static bool wait_u32(const uint8_t* p, uint32_t want) {
  return wait_word(p, 4, want);
}

static bool wait_u64(const uint8_t* p, uint64_t want) {
  return wait_word(p, 8, want);
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
  assert_true(wait_u64(q.gart.p + 128, 1));
  assert_int_equal(wait_event(&e, event, 20), HRX_KFD_WAIT_TIMEOUT);
  assert_int_equal(*(uint64_t*)(q.gart.p + 128), 1);
  store_value(b, 0);
  assert_int_equal(wait_event(&e, event, WAIT_MS), HRX_KFD_WAIT_COMPLETE);
  assert_int_equal(*(uint64_t*)(q.gart.p + 128), 3);
  assert_memory_equal(s.y, s.want, sizeof(float) * s.n);
  saxpy_release(&e, &s);
  free_buffer(&e, &deps);
  destroy_event(&e, event);
  queue_close(&e, &q);
  release_image(&e, image_handle, image);
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
  /* An unknown type is the kernel's ENOTSUPP (524); the APU has no XGMI
   * SDMA engine to give. */
  bad = q.args;
  bad.queue_type = 9;
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &bad), -524);
  bad.queue_type = HRX_KFD_QUEUE_TYPE_SDMA_XGMI;
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_QUEUE, &bad), -ENOMEM);
  /* A PM4 compute queue needs the EOP and CWSR buffers as AQL does. */
  bad = q.args;
  bad.queue_type = HRX_KFD_QUEUE_TYPE_COMPUTE;
  bad.eop_buffer_size = 2 * PAGE;
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

/* PM4 and SDMA queues: commands are built with the fabric's encoders and
 * published as the kfd provider will: dwords, then the write pointer,
 * then the doorbell (a dword index for PM4, a byte index for SDMA). */
#define CMD_CAPACITY 4096u
#define SDMA_RING_BYTES (64u << 10)

typedef struct cmd_t {
  uint32_t dwords[CMD_CAPACITY];
  size_t count;
} cmd_t;

/* Appends the packet encoder |fn| writes with arguments |...|. */
#define EMIT(c, fn, ...)                                              \
  do {                                                                \
    size_t emitted_ = 0;                                              \
    assert_ok(fn(__VA_ARGS__, (c)->dwords + (c)->count,               \
                 CMD_CAPACITY - (c)->count, &emitted_));              \
    (c)->count += emitted_;                                           \
  } while (0)

static void typed_queue_open(env_t* e, queue_t* q, uint32_t type,
                             uint32_t ring_bytes) {
  typed_queue_buffers(e, q, type, ring_bytes);
  queue_create(e, q);
}

/* Copies |c| into the ring at dword index |*write| and publishes it. A
 * PM4 block that would straddle the wrap goes after a NOP to the end; an
 * SDMA block wraps as it comes. */
static void publish(queue_t* q, uint64_t* write, const cmd_t* c) {
  bool sdma = q->args.queue_type == HRX_KFD_QUEUE_TYPE_SDMA;
  uint64_t ring_dwords = q->ring.size / 4;
  uint32_t* ring = (uint32_t*)q->ring.p;
  if (!sdma) {
    uint32_t pad = 0;
    assert_ok(hrx_pm4_wrap_padding(*write, ring_dwords, (uint32_t)c->count,
                                   &pad));
    size_t written = 0;
    if (pad) {
      assert_ok(hrx_pm4_nop(pad, ring + *write % ring_dwords, pad, &written));
    }
    *write += written;
  }
  for (size_t i = 0; i < c->count; ++i) {
    ring[(*write + i) % ring_dwords] = c->dwords[i];
  }
  *write += c->count;
  uint64_t index = sdma ? *write * 4 : *write;
  atomic_store_explicit((_Atomic uint64_t*)(q->gart.p + 56), index,
                        memory_order_release);
  atomic_store_explicit(q->doorbell, index, memory_order_release);
}

/* The engine's wrapped read pointer once it consumed up to |write|. */
static uint64_t consumed(const queue_t* q, uint64_t write) {
  bool sdma = q->args.queue_type == HRX_KFD_QUEUE_TYPE_SDMA;
  uint64_t wrapped = write % (q->ring.size / 4);
  return sdma ? wrapped * 4 : wrapped;
}

static hrx_gfx11_fault_t wait_fault(env_t* e, const queue_t* q) {
  hrx_gfx11_fault_t fault = {0};
  for (uint32_t i = 0; i < WAIT_MS && fault.kind == HRX_GFX11_FAULT_NONE;
       ++i) {
    assert_ok(hrx_kfd_model_queue_fault(e->model, q->args.queue_id, &fault));
    if (fault.kind == HRX_GFX11_FAULT_NONE) {
      nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
  }
  return fault;
}

/* saxpy programmed through the COMPUTE_* registers from its descriptor:
 * entry, RSRC1/2/3 (LDS in RSRC2's granules), the workgroup size, the
 * kernarg pointer in USER_DATA_0/1; then DISPATCH_DIRECT in workgroups
 * and a partial flush. */
static void pm4_saxpy(cmd_t* c, uint64_t kd, const saxpy_t* s) {
  const uint8_t* k = (const uint8_t*)(uintptr_t)kd;
  uint32_t group, rsrc1, rsrc2, rsrc3;
  int64_t entry_offset;
  memcpy(&group, k, 4);
  memcpy(&entry_offset, k + 16, 8);
  memcpy(&rsrc3, k + 44, 4);
  memcpy(&rsrc1, k + 48, 4);
  memcpy(&rsrc2, k + 52, 4);
  uint64_t entry = kd + (uint64_t)entry_offset;
  const uint32_t pgm[] = {(uint32_t)(entry >> 8), (uint32_t)(entry >> 40)};
  EMIT(c, hrx_pm4_set_sh_reg, HRX_PM4_COMPUTE_PGM_LO, pgm, 2);
  uint32_t lds = (group + HRX_PM4_LDS_GRANULE_BYTES - 1) /
                 HRX_PM4_LDS_GRANULE_BYTES;
  const uint32_t rsrc[] = {rsrc1, rsrc2 | lds << HRX_PM4_RSRC2_LDS_SIZE_SHIFT};
  EMIT(c, hrx_pm4_set_sh_reg, HRX_PM4_COMPUTE_PGM_RSRC1, rsrc, 2);
  EMIT(c, hrx_pm4_set_sh_reg, HRX_PM4_COMPUTE_PGM_RSRC3, &rsrc3, 1);
  const uint32_t threads[] = {THREADS, 1, 1};
  EMIT(c, hrx_pm4_set_sh_reg, HRX_PM4_COMPUTE_NUM_THREAD_X, threads, 3);
  uint64_t kernarg = (uint64_t)(uintptr_t)s->kernarg.p;
  const uint32_t user[] = {(uint32_t)kernarg, (uint32_t)(kernarg >> 32)};
  EMIT(c, hrx_pm4_set_sh_reg, HRX_PM4_COMPUTE_USER_DATA_0, user, 2);
  const uint32_t groups[] = {(s->n + THREADS - 1) / THREADS, 1, 1};
  EMIT(c, hrx_pm4_dispatch_direct, groups,
       HRX_PM4_INITIATOR_COMPUTE_SHADER_EN |
           HRX_PM4_INITIATOR_FORCE_START_AT_000 |
           HRX_PM4_INITIATOR_CS_W32_EN);
  EMIT(c, hrx_pm4_event_write, HRX_PM4_EVENT_CS_PARTIAL_FLUSH,
       HRX_PM4_EVENT_INDEX_PARTIAL_FLUSH);
}

/* A fence write plus the interrupt that sets |event|. */
static hrx_pm4_release_t fence_release(const uint8_t* fence, uint32_t value,
                                       uint32_t event) {
  return (hrx_pm4_release_t){
      .event_type = HRX_PM4_EVENT_CACHE_FLUSH_AND_INV_TS,
      .gcr = 1u << 21, /* GL2_WB */
      .data = HRX_PM4_DATA_32,
      .interrupt = HRX_PM4_INT_AFTER_WRITE_CONFIRM,
      .address = (uint64_t)(uintptr_t)fence,
      .value = value,
      .event_id = event};
}

/* saxpy through a PM4 queue, straight from the ring and from an indirect
 * buffer, each fenced by RELEASE_MEM whose interrupt sets a KFD event. */
static void test_pm4_dispatch(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  env_acquire(&e);
  hrx_gfx11_image_t* image = gfx11_test_load("saxpy.loom");
  uint64_t image_handle = register_image(&e, image);
  uint64_t kd = 0;
  assert_ok(hrx_gfx11_image_kernel(image, "saxpy", &kd));
  queue_t q;
  typed_queue_open(&e, &q, HRX_KFD_QUEUE_TYPE_COMPUTE, RING_BYTES);
  uint32_t event = create_event(&e);
  buffer_t fences = alloc_buffer(&e, PAGE);
  buffer_t ib = alloc_buffer(&e, PAGE);
  static cmd_t c;
  uint64_t write = 0;
  for (uint32_t round = 0; round < 2; ++round) {
    saxpy_t s;
    saxpy_prepare(&e, kd, round ? 300 : 1000, 0, 0, &s);
    c.count = 0;
    EMIT(&c, hrx_pm4_acquire_mem,
         HRX_PM4_GCR_GLI_INV_ALL | HRX_PM4_GCR_GLK_INV | HRX_PM4_GCR_GLV_INV |
             HRX_PM4_GCR_GL1_INV | HRX_PM4_GCR_GL2_INV);
    pm4_saxpy(&c, kd, &s);
    hrx_pm4_release_t release = fence_release(fences.p, round + 1, event);
    EMIT(&c, hrx_pm4_release_mem, &release);
    if (round == 1) {
      /* The same commands from an IB; a WRITE_DATA in the ring after it
       * runs once the IB has ended. */
      memcpy(ib.p, c.dwords, c.count * 4);
      uint32_t ib_dwords = (uint32_t)c.count;
      c.count = 0;
      EMIT(&c, hrx_pm4_indirect_buffer, (uint64_t)(uintptr_t)ib.p,
           ib_dwords);
      const uint32_t done = 0xD0D0u;
      EMIT(&c, hrx_pm4_write_data, (uint64_t)(uintptr_t)(fences.p + 8),
           &done, 1);
    }
    publish(&q, &write, &c);
    assert_int_equal(wait_event(&e, event, WAIT_MS), HRX_KFD_WAIT_COMPLETE);
    assert_true(wait_u32(fences.p, round + 1));
    assert_memory_equal(s.y, s.want, sizeof(float) * s.n);
    saxpy_release(&e, &s);
  }
  assert_true(wait_u32(fences.p + 8, 0xD0D0u));
  assert_true(wait_u64(q.gart.p + 128, consumed(&q, write)));
  hrx_gfx11_fault_t fault;
  assert_ok(hrx_kfd_model_queue_fault(e.model, q.args.queue_id, &fault));
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_NONE);
  free_buffer(&e, &ib);
  free_buffer(&e, &fences);
  destroy_event(&e, event);
  queue_close(&e, &q);
  release_image(&e, image_handle, image);
  env_close(&e);
}

/* A PM4 queue parked on WAIT_REG_MEM64 resumes when a second PM4 queue
 * writes the value, and on WAIT_REG_MEM when an SDMA fence does; packets
 * wrap around a small ring on the way. */
static void test_cross_queue_waits(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  env_acquire(&e);
  queue_t a, b, c;
  typed_queue_open(&e, &a, HRX_KFD_QUEUE_TYPE_COMPUTE, RING_BYTES);
  typed_queue_open(&e, &b, HRX_KFD_QUEUE_TYPE_COMPUTE, RING_BYTES);
  typed_queue_open(&e, &c, HRX_KFD_QUEUE_TYPE_SDMA, RING_BYTES);
  buffer_t flags = alloc_buffer(&e, PAGE);
  uint8_t* flag64 = flags.p;
  uint8_t* flag32 = flags.p + 16;
  uint8_t* out = flags.p + 64;
  uint8_t* out64 = flags.p + 128;
  static cmd_t cmd;
  /* Start A near the end of its ring, so its block wraps. */
  uint64_t write_a = RING_BYTES / 4 - 5, write_b = 0, write_c = 0;
  cmd.count = 0;
  EMIT(&cmd, hrx_pm4_nop, (uint32_t)write_a);
  publish(&a, &(uint64_t){0}, &cmd);
  /* The block below reuses the ring from dword 0: wait until it is free. */
  assert_true(wait_u32(a.gart.p + 128, (uint32_t)write_a));
  cmd.count = 0;
  hrx_pm4_wait_t wide = {.address = (uint64_t)(uintptr_t)flag64,
                         .reference = 0x100000001ull,
                         .mask = UINT64_MAX,
                         .compare = HRX_PM4_COMPARE_GREATER_EQUAL,
                         .poll_interval = 4};
  EMIT(&cmd, hrx_pm4_wait_reg_mem64, &wide);
  const uint32_t seven = 7;
  EMIT(&cmd, hrx_pm4_write_data, (uint64_t)(uintptr_t)out, &seven, 1);
  hrx_pm4_wait_t narrow = {.address = (uint64_t)(uintptr_t)flag32,
                           .reference = 5,
                           .mask = 0xFF,
                           .compare = HRX_PM4_COMPARE_EQUAL};
  EMIT(&cmd, hrx_pm4_wait_reg_mem, &narrow);
  hrx_pm4_release_t release = {
      .event_type = HRX_PM4_EVENT_BOTTOM_OF_PIPE_TS,
      .data = HRX_PM4_DATA_64,
      .address = (uint64_t)(uintptr_t)out64,
      .value = 0x1122334455667788ull};
  EMIT(&cmd, hrx_pm4_release_mem, &release);
  publish(&a, &write_a, &cmd);
  nanosleep(&(struct timespec){0, 20000000}, NULL);
  assert_int_equal(*(volatile uint32_t*)out, 0);
  /* A low word alone does not satisfy the 64-bit compare. */
  cmd.count = 0;
  const uint32_t low[] = {0xFFFFFFFFu, 0};
  EMIT(&cmd, hrx_pm4_write_data, (uint64_t)(uintptr_t)flag64, low, 2);
  publish(&b, &write_b, &cmd);
  nanosleep(&(struct timespec){0, 20000000}, NULL);
  assert_int_equal(*(volatile uint32_t*)out, 0);
  cmd.count = 0;
  const uint32_t both[] = {1, 1};
  EMIT(&cmd, hrx_pm4_write_data, (uint64_t)(uintptr_t)flag64, both, 2);
  publish(&b, &write_b, &cmd);
  assert_true(wait_u32(out, 7));
  nanosleep(&(struct timespec){0, 20000000}, NULL);
  assert_int_equal(*(volatile uint64_t*)out64, 0);
  cmd.count = 0;
  EMIT(&cmd, hrx_sdma_fence, (uint64_t)(uintptr_t)flag32, 0x305u);
  publish(&c, &write_c, &cmd);
  assert_true(wait_u32(out64, 0x55667788u));
  assert_int_equal(*(volatile uint64_t*)out64, 0x1122334455667788ull);
  assert_true(wait_u32(a.gart.p + 128, (uint32_t)consumed(&a, write_a)));
  free_buffer(&e, &flags);
  queue_close(&e, &c);
  queue_close(&e, &b);
  queue_close(&e, &a);
  env_close(&e);
}

enum { SLOT = 320, LONGEST = 300 };

/* Every copy length 1..300 at every alignment 0..7 through SDMA is exact
 * and touches nothing else; then a fill, a poll the host releases, GCR
 * and NOPs. The ring wraps under the copies. */
static void test_sdma_engine(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  env_acquire(&e);
  queue_t q;
  typed_queue_open(&e, &q, HRX_KFD_QUEUE_TYPE_SDMA, SDMA_RING_BYTES);
  assert_int_equal(q.args.eop_buffer_address, 0);
  buffer_t src = alloc_buffer(&e, PAGE);
  buffer_t dst = alloc_buffer(&e, SLOT * LONGEST);
  buffer_t fences = alloc_buffer(&e, PAGE);
  for (uint32_t i = 0; i < PAGE; ++i) src.p[i] = (uint8_t)(i * 7 + 1);
  static cmd_t c;
  uint64_t write = 0;
  for (uint32_t align = 0; align < 8; ++align) {
    uint32_t from = (align + 3) % 8;
    memset(dst.p, 0xA5, dst.size);
    c.count = 0;
    for (uint32_t n = 1; n <= LONGEST; ++n) {
      EMIT(&c, hrx_sdma_copy_linear,
           (uint64_t)(uintptr_t)(dst.p + (n - 1) * SLOT + align),
           (uint64_t)(uintptr_t)(src.p + from), n);
    }
    EMIT(&c, hrx_sdma_fence, (uint64_t)(uintptr_t)fences.p, align + 1);
    publish(&q, &write, &c);
    assert_true(wait_u32(fences.p, align + 1));
    for (uint32_t n = 1; n <= LONGEST; ++n) {
      const uint8_t* slot = dst.p + (n - 1) * SLOT;
      for (uint32_t i = 0; i < SLOT; ++i) {
        uint8_t want = i >= align && i < align + n ? src.p[from + i - align]
                                                   : 0xA5;
        if (slot[i] != want) {
          fail_msg("length %u alignment %u byte %u: 0x%02x, want 0x%02x", n,
                   align, i, slot[i], want);
        }
      }
    }
  }
  assert_true(write * 4 > SDMA_RING_BYTES); /* the ring wrapped */
  memset(dst.p, 0, 256);
  uint8_t* flag = fences.p + 64;
  c.count = 0;
  EMIT(&c, hrx_sdma_nop, 3);
  EMIT(&c, hrx_sdma_const_fill, (uint64_t)(uintptr_t)(dst.p + 64),
       0xCAFEF00Du, 128);
  EMIT(&c, hrx_sdma_gcr, 0, 0x1000, HRX_PM4_GCR_GL2_WB | HRX_PM4_GCR_GL2_INV);
  EMIT(&c, hrx_sdma_poll_memory, (uint64_t)(uintptr_t)flag, 9, 0xFFFF,
       HRX_PM4_COMPARE_EQUAL, 10);
  EMIT(&c, hrx_sdma_fence, (uint64_t)(uintptr_t)(fences.p + 8), 77);
  publish(&q, &write, &c);
  nanosleep(&(struct timespec){0, 20000000}, NULL);
  assert_int_equal(*(volatile uint32_t*)(fences.p + 8), 0);
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t pattern = 0xCAFEF00Du;
    uint8_t want = i >= 64 && i < 192 ? ((uint8_t*)&pattern)[i % 4] : 0;
    assert_int_equal(dst.p[i], want);
  }
  atomic_store_explicit((_Atomic uint32_t*)flag, 0x10009u,
                        memory_order_release);
  assert_true(wait_u32(fences.p + 8, 77));
  assert_true(wait_u32(q.gart.p + 128, (uint32_t)consumed(&q, write)));
  free_buffer(&e, &fences);
  free_buffer(&e, &dst);
  free_buffer(&e, &src);
  queue_close(&e, &q);
  env_close(&e);
}

/* A packet of an unknown opcode, and one writing outside every mapping,
 * stop their queue with a fault naming them (the latter also raising the
 * MEMORY event); the model goes on serving other queues. */
static void test_bad_packets(void** state) {
  (void)state;
  env_t e;
  env_open(&e);
  env_acquire(&e);
  uint64_t hole = (uint64_t)(uintptr_t)e.reservation + RESERVATION - PAGE;
  buffer_t fences = alloc_buffer(&e, PAGE);
  static cmd_t c;
  queue_t pm4, sdma;
  typed_queue_open(&e, &pm4, HRX_KFD_QUEUE_TYPE_COMPUTE, RING_BYTES);
  typed_queue_open(&e, &sdma, HRX_KFD_QUEUE_TYPE_SDMA, RING_BYTES);
  uint64_t write = 0;
  c.count = 0;
  c.dwords[c.count++] = HRX_PM4_TYPE3 << HRX_PM4_TYPE_SHIFT |
                        1u << HRX_PM4_COUNT_SHIFT | 0xEEu
                                                        << HRX_PM4_OPCODE_SHIFT;
  c.dwords[c.count++] = 0;
  c.dwords[c.count++] = 0;
  const uint32_t never = 1;
  EMIT(&c, hrx_pm4_write_data, (uint64_t)(uintptr_t)fences.p, &never, 1);
  publish(&pm4, &write, &c);
  hrx_gfx11_fault_t fault = wait_fault(&e, &pm4);
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_UNSUPPORTED);
  assert_non_null(strstr(fault.reason, "opcode 0xee"));
  assert_int_equal(fault.pc, (uint64_t)(uintptr_t)pm4.ring.p);
  uint64_t sdma_write = 0;
  c.count = 0;
  c.dwords[c.count++] = 0x77u;
  publish(&sdma, &sdma_write, &c);
  fault = wait_fault(&e, &sdma);
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_UNSUPPORTED);
  assert_non_null(strstr(fault.reason, "SDMA packet 0x00000077"));
  queue_close(&e, &sdma);
  queue_close(&e, &pm4);

  hrx_kfd_create_event_args_t memory = {.event_type = HRX_KFD_EVENT_MEMORY,
                                        .auto_reset = 1};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_CREATE_EVENT, &memory), 0);
  typed_queue_open(&e, &pm4, HRX_KFD_QUEUE_TYPE_COMPUTE, RING_BYTES);
  typed_queue_open(&e, &sdma, HRX_KFD_QUEUE_TYPE_SDMA, RING_BYTES);
  write = sdma_write = 0;
  c.count = 0;
  EMIT(&c, hrx_pm4_write_data, hole + 8, &never, 1);
  publish(&pm4, &write, &c);
  fault = wait_fault(&e, &pm4);
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_OUT_OF_BOUNDS);
  assert_int_equal(fault.address, hole + 8);
  hrx_kfd_event_data_t data = {.event_id = memory.event_id};
  hrx_kfd_wait_events_args_t wait = {.events_ptr = (uint64_t)(uintptr_t)&data,
                                     .num_events = 1, .timeout = WAIT_MS};
  assert_int_equal(kfd_ioctl(&e, HRX_KFD_IOC_WAIT_EVENTS, &wait), 0);
  assert_int_equal(wait.wait_result, HRX_KFD_WAIT_COMPLETE);
  assert_int_equal(data.u.memory_exception.va, hole + 8);
  c.count = 0;
  EMIT(&c, hrx_sdma_copy_linear, (uint64_t)(uintptr_t)fences.p, hole, 16);
  publish(&sdma, &sdma_write, &c);
  fault = wait_fault(&e, &sdma);
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_OUT_OF_BOUNDS);
  assert_int_equal(fault.address, hole);
  assert_int_equal(*(uint32_t*)fences.p, 0);
  queue_close(&e, &sdma);
  queue_close(&e, &pm4);
  destroy_event(&e, memory.event_id);

  /* Fresh queues of both families still run. */
  typed_queue_open(&e, &pm4, HRX_KFD_QUEUE_TYPE_COMPUTE, RING_BYTES);
  typed_queue_open(&e, &sdma, HRX_KFD_QUEUE_TYPE_SDMA, RING_BYTES);
  write = sdma_write = 0;
  c.count = 0;
  const uint32_t ok = 0x600Du;
  EMIT(&c, hrx_pm4_write_data, (uint64_t)(uintptr_t)fences.p, &ok, 1);
  publish(&pm4, &write, &c);
  c.count = 0;
  EMIT(&c, hrx_sdma_fence, (uint64_t)(uintptr_t)(fences.p + 4), ok);
  publish(&sdma, &sdma_write, &c);
  assert_true(wait_u32(fences.p, ok));
  assert_true(wait_u32(fences.p + 4, ok));
  queue_close(&e, &sdma);
  queue_close(&e, &pm4);
  free_buffer(&e, &fences);
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
      cmocka_unit_test(test_pm4_dispatch),
      cmocka_unit_test(test_cross_queue_waits),
      cmocka_unit_test(test_sdma_engine),
      cmocka_unit_test(test_bad_packets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
