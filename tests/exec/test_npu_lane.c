/* libhrx-exec's NPU lane and resident sessions on the host device with
 * the scripted amdxdna driver (tests/npu/xdna_fake.h) as the NPU: a
 * graph whose GPU and NPU nodes share a buffer gives the right bytes in
 * the right order (the fake stands in for the NPU's work and checks what
 * it sees), a firmware error fails its submission and leaves the runtime
 * usable, staging is charged to the runtime's budget, statistics and the
 * trace count NPU regions, and the resident session protocol holds. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "device_internal.h"
#include "gpu_test_util.h"
#include "hrx/exec/npu.h"
#include "npu_test_util.h"
#include "xdna_fake.h"

#define N 256 /* floats: 1024 bytes, inside the image's 64..4096 */
#define ALPHA 0.75f

typedef struct fixture_t {
  hrx_gpu_device_t* device;
  hrx_budget_t* budget;
  hrx_trace_t* trace;
  hrx_exec_runtime_t* runtime;
  hrx_gpu_kernel_t* saxpy;
  hrx_exec_kernel_t* saxpy_contract;
  char* root;
  int root_fd;
  xdna_fake_t fake;
  hrx_npu_sys_t sys;
  hrx_npu_device_t* npu;
  hrx_npu_image_t* image;
  /* What the fake NPU saw at its last command, and what it does. */
  hrx_exec_npu_program_t* program;
  float seen[N];
  bool doubles;
} fixture_t;

static const hrx_exec_binding_contract_t saxpy_bindings[] = {
    {HRX_GPU_ACCESS_READ, 4, 4}, {HRX_GPU_ACCESS_READ_WRITE, 4, 4}};

static int setup_limit(void** state, uint64_t limit) {
  fixture_t* f = calloc(1, sizeof(*f));
  f->device = gpu_test_device_open();
  assert_ok(hrx_budget_create(limit, hrx_allocator_system(), &f->budget));
  hrx_trace_options_t trace_options = HRX_STRUCT_INIT(hrx_trace_options_t);
  assert_ok(hrx_trace_create(&trace_options, hrx_allocator_system(),
                             &f->trace));
  hrx_exec_runtime_options_t options =
      HRX_STRUCT_INIT(hrx_exec_runtime_options_t);
  options.memory_budget = f->budget;
  options.trace = f->trace;
  assert_ok(hrx_exec_runtime_create(f->device, &options,
                                    hrx_allocator_system(), &f->runtime));
  f->saxpy = gpu_test_kernel(f->device, "saxpy.loom", NULL, "saxpy");
  hrx_exec_kernel_contract_t contract = {saxpy_bindings, 2, 2};
  assert_ok(hrx_exec_kernel_create(f->runtime, f->saxpy, &contract,
                                   &f->saxpy_contract));
  f->root = npu_fixture_strix_halo();
  f->root_fd = npu_fixture_open(f->root);
  xdna_fake_init(&f->fake);
  f->sys = xdna_fake_sys(&f->fake);
  assert_ok(hrx_npu_device_open_with(&f->sys, f->root_fd,
                                     hrx_allocator_system(), NULL, NULL,
                                     &f->npu));
  npu_image_t d;
  npu_image_default(&d);
  size_t size = 0;
  uint8_t* bytes = npu_image_build(&d, &size);
  assert_ok(hrx_npu_image_parse(bytes, size, hrx_allocator_system(),
                                &f->image));
  free(bytes);
  *state = f;
  return 0;
}

static int setup(void** state) {
  return setup_limit(state, HRX_BUDGET_UNLIMITED);
}

static int teardown(void** state) {
  fixture_t* f = *state;
  hrx_npu_image_destroy(f->image);
  hrx_exec_kernel_destroy(f->saxpy_contract);
  hrx_gpu_kernel_release(f->saxpy);
  hrx_exec_runtime_destroy(f->runtime);
  hrx_npu_device_destroy(f->npu);
  assert_int_equal(f->fake.open_nodes, 0);
  assert_int_equal(f->fake.mappings, 0);
  assert_int_equal(f->fake.leaked_at_close, 0);
  xdna_fake_deinit(&f->fake);
  close(f->root_fd);
  test_temp_dir_remove(f->root);
  hrx_trace_release(f->trace);
  hrx_budget_release(f->budget);
  hrx_gpu_device_release(f->device);
  free(f);
  return 0;
}

/* Staging (and the fake NPU seeing the GPU's bytes) needs the host
 * device: the modelled gfx1151 exports its buffers, as fresh memory. */
static void host_only(const fixture_t* f) {
  if (!gpu_test_is_host(f->device)) skip();
}

/* The fake NPU's work: remember binding 0 as the NPU sees it, and double
 * every float in place. */
static void npu_doubles(void* context) {
  fixture_t* f = context;
  float* data = hrx_npu_buffer_host(hrx_exec_npu_program_buffer(f->program,
                                                                0));
  memcpy(f->seen, data, sizeof(f->seen));
  if (!f->doubles) return;
  for (size_t i = 0; i < N; ++i) data[i] *= 2.0f;
}

typedef struct saxpy_launch_t {
  uint64_t n;
  hrx_gpu_arg_t args[4];
  hrx_gpu_launch_t launch;
} saxpy_launch_t;

static void saxpy_launch(saxpy_launch_t* l, float a, hrx_gpu_view_t x,
                         hrx_gpu_view_t y) {
  uint32_t bits;
  memcpy(&bits, &a, 4);
  l->n = N;
  l->args[0] = hrx_gpu_arg_scalar(N);
  l->args[1] = hrx_gpu_arg_scalar(bits);
  l->args[2] = hrx_gpu_arg_binding(x, HRX_GPU_ACCESS_READ);
  l->args[3] = hrx_gpu_arg_binding(y, HRX_GPU_ACCESS_READ_WRITE);
  l->launch = (hrx_gpu_launch_t){&l->n, 1, l->args, 4};
}

static bool node_depends_on(const hrx_exec_graph_t* g, hrx_exec_node_t node,
                            hrx_exec_node_t on) {
  size_t count = 0;
  const hrx_exec_node_t* deps = hrx_exec_graph_node_deps(g, node, &count);
  for (size_t i = 0; i < count; ++i) {
    if (deps[i] == on) return true;
  }
  return false;
}

/* upload x -> saxpy (y = a*x, GPU) -> NPU doubles y -> saxpy (y += a*x)
 * -> download: 3*a*x only when the NPU ran after the first dispatch and
 * before the second, on the bytes the GPU wrote. */
typedef struct chain_t {
  hrx_gpu_buffer_t* x;
  hrx_gpu_buffer_t* y;
  hrx_exec_graph_t* graph;
  float xs[N];
  float out[N];
  saxpy_launch_t first, second;
  hrx_exec_node_t nodes[5];
} chain_t;

static void chain_record(fixture_t* f, chain_t* c) {
  for (size_t i = 0; i < N; ++i) c->xs[i] = (float)i * 0.5f - 17.0f;
  assert_ok(hrx_exec_buffer_allocate(f->runtime, N * 4, &c->x));
  assert_ok(hrx_exec_buffer_allocate(f->runtime, N * 4, &c->y));
  hrx_gpu_view_t y = hrx_gpu_buffer_binding(c->y);
  assert_ok(hrx_exec_npu_program_prepare(f->runtime, f->npu, f->image,
                                         "main", &y, 1, &f->program));
  f->doubles = true;
  f->fake.on_exec = npu_doubles;
  f->fake.on_exec_context = f;
  assert_ok(hrx_exec_graph_create(f->runtime, &c->graph));
  assert_ok(hrx_exec_graph_upload(c->graph, hrx_gpu_buffer_binding(c->x),
                                  c->xs, &c->nodes[0]));
  saxpy_launch(&c->first, ALPHA, hrx_gpu_buffer_binding(c->x), y);
  assert_ok(hrx_exec_graph_dispatch(c->graph, f->saxpy_contract,
                                    &c->first.launch, &c->nodes[1]));
  assert_ok(hrx_exec_npu_graph_invoke(c->graph, f->program, &c->nodes[2]));
  saxpy_launch(&c->second, ALPHA, hrx_gpu_buffer_binding(c->x), y);
  assert_ok(hrx_exec_graph_dispatch(c->graph, f->saxpy_contract,
                                    &c->second.launch, &c->nodes[3]));
  assert_ok(hrx_exec_graph_download(c->graph, y, c->out, &c->nodes[4]));
}

static void chain_release(fixture_t* f, chain_t* c) {
  hrx_exec_graph_destroy(c->graph);
  hrx_exec_npu_program_release(f->program);
  f->program = NULL;
  hrx_gpu_buffer_release(c->x);
  hrx_gpu_buffer_release(c->y);
}

static void test_gpu_and_npu_nodes_share_a_buffer(void** state) {
  fixture_t* f = *state;
  host_only(f);
  chain_t c;
  chain_record(f, &c);
  /* The hazards: GPU write -> NPU read-write -> GPU read-write. */
  assert_int_equal(hrx_exec_graph_node_lane(c.graph, c.nodes[2]),
                   HRX_EXEC_LANE_NPU);
  assert_true(node_depends_on(c.graph, c.nodes[2], c.nodes[1]));
  assert_true(node_depends_on(c.graph, c.nodes[3], c.nodes[2]));
  assert_true(node_depends_on(c.graph, c.nodes[4], c.nodes[3]));
  for (int round = 0; round < 2; ++round) {
    memset(c.out, 0, sizeof(c.out));
    hrx_exec_completion_t* done = NULL;
    assert_ok(hrx_exec_graph_submit(c.graph, &done));
    assert_ok(hrx_exec_completion_wait(done, HRX_TIMEOUT_INFINITE));
    hrx_exec_completion_release(done);
    for (size_t i = 0; i < N; ++i) {
      /* y enters each round as the last round left it. */
      float before = round == 0 ? 0.0f : 3.0f * (ALPHA * c.xs[i]);
      float gpu = fmaf(ALPHA, c.xs[i], before);
      assert_true(f->seen[i] == gpu);
      assert_true(c.out[i] == fmaf(ALPHA, c.xs[i], 2.0f * gpu));
    }
    if (round == 0) {
      for (size_t i = 0; i < N; ++i) {
        /* 0.75 * x doubled and added to once more is exact here. */
        assert_true(c.out[i] == 3.0f * (ALPHA * c.xs[i]));
      }
    }
  }
  hrx_exec_statistics_t stats = HRX_STRUCT_INIT(hrx_exec_statistics_t);
  assert_ok(hrx_exec_runtime_statistics(f->runtime, &stats));
  assert_int_equal(stats.npu_regions, 2);
  assert_int_equal(stats.npu_staged_bytes, 2 * 2 * N * 4); /* in and out */
  assert_int_equal(stats.nodes, 10);
  assert_int_equal(f->fake.submitted, 2);
  char* text = NULL;
  size_t length = 0;
  assert_ok(hrx_trace_serialize(f->trace, hrx_allocator_system(), &text,
                                &length));
  assert_non_null(strstr(text, "\"name\":\"npu\""));
  assert_non_null(strstr(text, "\"program\":\"main\""));
  free(text);
  chain_release(f, &c);
}

/* A command that ends in ERROR fails its submission with the state; the
 * runtime buffers keep their bytes; the next submission runs. */
static void test_firmware_error_does_not_wedge(void** state) {
  fixture_t* f = *state;
  host_only(f);
  chain_t c;
  chain_record(f, &c);
  f->fake.completion_state = HRX_NPU_ERT_STATE_ERROR;
  hrx_exec_completion_t* done = NULL;
  assert_status(hrx_exec_graph_submit(c.graph, &done), HRX_STATUS_INTERNAL,
                "command state ERROR");
  assert_null(done);
  f->fake.completion_state = HRX_NPU_ERT_STATE_COMPLETED;
  /* The first dispatch ran; the NPU's doubling was not staged back. */
  const float* y = hrx_gpu_buffer_host_pointer(c.y);
  hrx_exec_completion_t* sync = NULL;
  hrx_exec_graph_t* empty = NULL;
  assert_ok(hrx_exec_graph_create(f->runtime, &empty));
  assert_ok(hrx_exec_graph_download(empty, hrx_gpu_buffer_binding(c.y),
                                    c.out, NULL));
  assert_ok(hrx_exec_graph_submit(empty, &sync));
  assert_ok(hrx_exec_completion_wait(sync, HRX_TIMEOUT_INFINITE));
  hrx_exec_completion_release(sync);
  hrx_exec_graph_destroy(empty);
  for (size_t i = 0; i < N; ++i) {
    assert_true(c.out[i] == ALPHA * c.xs[i]);
    assert_true(y[i] == c.out[i]);
  }
  assert_ok(hrx_exec_graph_submit(c.graph, &done));
  assert_ok(hrx_exec_completion_wait(done, HRX_TIMEOUT_INFINITE));
  hrx_exec_completion_release(done);
  for (size_t i = 0; i < N; ++i) {
    float gpu = fmaf(ALPHA, c.xs[i], ALPHA * c.xs[i]);
    assert_true(c.out[i] == fmaf(ALPHA, c.xs[i], 2.0f * gpu));
  }
  hrx_exec_statistics_t stats = HRX_STRUCT_INIT(hrx_exec_statistics_t);
  assert_ok(hrx_exec_runtime_statistics(f->runtime, &stats));
  assert_int_equal(stats.npu_regions, 2);
  chain_release(f, &c);
}

/* Staging is charged to the runtime's budget for the program's life. */
static void test_staging_is_charged(void** state) {
  fixture_t* f = *state;
  host_only(f);
  hrx_gpu_buffer_t* y = NULL;
  assert_ok(hrx_exec_buffer_allocate(f->runtime, N * 4, &y));
  uint64_t before = hrx_budget_live_bytes(f->budget);
  hrx_gpu_view_t view = {y, 64, 512};
  hrx_exec_npu_program_t* p = NULL;
  assert_ok(hrx_exec_npu_program_prepare(f->runtime, f->npu, f->image,
                                         "main", &view, 1, &p));
  assert_int_equal(hrx_budget_live_bytes(f->budget), before + 512);
  assert_int_equal(hrx_npu_buffer_size(hrx_exec_npu_program_buffer(p, 0)),
                   512);
  assert_null(hrx_exec_npu_program_buffer(p, 1));
  hrx_exec_npu_program_release(p);
  assert_int_equal(hrx_budget_live_bytes(f->budget), before);
  /* Bad views say which binding. */
  assert_status(hrx_exec_npu_program_prepare(f->runtime, f->npu, f->image,
                                             "main", &view, 2, &p),
                HRX_STATUS_INVALID_ARGUMENT, "has 1 bindings; 2 views");
  hrx_gpu_view_t outside = {y, N * 4 - 64, 128};
  assert_status(hrx_exec_npu_program_prepare(f->runtime, f->npu, f->image,
                                             "main", &outside, 1, &p),
                HRX_STATUS_OUT_OF_RANGE, "binding 0 of NPU entry 'main'");
  assert_null(p);
  hrx_gpu_buffer_release(y);
}

static int setup_small(void** state) { return setup_limit(state, 4096); }

static void test_budget_exhaustion_allocates_nothing(void** state) {
  fixture_t* f = *state;
  host_only(f);
  hrx_gpu_buffer_t* y = NULL;
  assert_ok(hrx_exec_buffer_allocate(f->runtime, 3072, &y));
  uint32_t bos = f->fake.bo_count;
  size_t creates = f->fake.create_bo_calls;
  hrx_gpu_view_t view = hrx_gpu_buffer_binding(y);
  hrx_exec_npu_program_t* p = NULL;
  assert_status(hrx_exec_npu_program_prepare(f->runtime, f->npu, f->image,
                                             "main", &view, 1, &p),
                HRX_STATUS_RESOURCE_EXHAUSTED, "binding 0");
  assert_null(p);
  assert_int_equal(f->fake.create_bo_calls, creates);
  assert_int_equal(f->fake.bo_count, bos);
  assert_int_equal(hrx_budget_live_bytes(f->budget), 3072);
  hrx_gpu_buffer_release(y);
}

/*===------------------------------------------------------------------===*/
/* Resident sessions                                                       */
/*===------------------------------------------------------------------===*/

/* The GPU participant of a resident session (one work-item): spins on an
 * acquire load of word 0 of its startup binding until it leaves WAIT (0),
 * then stores the word it saw (RUN 1 or ABORT 2) into word 0 of its second
 * binding. */
static const char resident_wait_source[] =
    "kernel.def export(\"resident_wait\") @resident_wait() {\n"
    "  %one = index.constant 1 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one)"
    " workgroup_size(%one, %one, %one) : index\n"
    "} launch(%startup: buffer, %out: buffer) {\n"
    "  %origin = index.constant 0 : offset\n"
    "  %wait = scalar.constant 0 : i32\n"
    "  %sv = buffer.view %startup[%origin] : buffer -> view<1xi32>\n"
    "  %ov = buffer.view %out[%origin] : buffer -> view<1xi32>\n"
    "  %first = view.atomic.load %sv[0]"
    " {ordering = acquire, scope = system} : view<1xi32> -> i32\n"
    "  %seen = scf.while(%w = %first : i32) -> (i32) {\n"
    "    %waiting = scalar.cmpi eq, %w, %wait : i32\n"
    "    scf.condition %waiting, %w : i1, i32\n"
    "  } do(%w: i32) {\n"
    "    %again = view.atomic.load %sv[0]"
    " {ordering = acquire, scope = system} : view<1xi32> -> i32\n"
    "    scf.yield %again : i32\n"
    "  }\n"
    "  view.store %seen, %ov[0] : i32, view<1xi32>\n"
    "  kernel.return\n"
    "}\n";

typedef struct resident_rig_t {
  hrx_gpu_kernel_t* kernel;
  hrx_exec_kernel_t* contract;
  hrx_gpu_buffer_t* out;
  hrx_exec_npu_resident_t* session;
  hrx_npu_program_t* program;
  hrx_gpu_arg_t args[2];
  hrx_gpu_launch_t launch;
} resident_rig_t;

static const hrx_exec_binding_contract_t resident_bindings[] = {
    {HRX_GPU_ACCESS_READ, 4, 4}, {HRX_GPU_ACCESS_WRITE, 4, 4}};

static void resident_open(fixture_t* f, resident_rig_t* r) {
  r->kernel = gpu_test_kernel(f->device, NULL, resident_wait_source,
                              "resident_wait");
  hrx_exec_kernel_contract_t contract = {resident_bindings, 2, 0};
  assert_ok(hrx_exec_kernel_create(f->runtime, r->kernel, &contract,
                                   &r->contract));
  assert_ok(hrx_exec_buffer_allocate(f->runtime, 64, &r->out));
  assert_ok(hrx_exec_npu_resident_create(f->runtime, f->npu, &r->session));
  hrx_npu_binding_t binding = {
      .buffer = hrx_exec_npu_resident_npu_startup(r->session),
      .size = HRX_NPU_RESIDENT_STARTUP_BYTES};
  assert_ok(hrx_npu_program_prepare(f->npu, f->image, "main", &binding, 1,
                                    &r->program));
  r->args[0] = hrx_gpu_arg_binding(
      hrx_exec_npu_resident_gpu_startup(r->session), HRX_GPU_ACCESS_READ);
  r->args[1] = hrx_gpu_arg_binding(hrx_gpu_buffer_binding(r->out),
                                   HRX_GPU_ACCESS_WRITE);
  r->launch = (hrx_gpu_launch_t){NULL, 0, r->args, 2};
}

/* What the GPU participant saw, once it ended: a download ordered after
 * it by the runtime (it wrote |out|). */
static uint32_t resident_seen(fixture_t* f, resident_rig_t* r) {
  uint32_t seen = 0;
  hrx_exec_graph_t* g = NULL;
  assert_ok(hrx_exec_graph_create(f->runtime, &g));
  hrx_gpu_view_t word = {r->out, 0, 4};
  assert_ok(hrx_exec_graph_download(g, word, &seen, NULL));
  hrx_exec_completion_t* done = NULL;
  assert_ok(hrx_exec_graph_submit(g, &done));
  assert_ok(hrx_exec_completion_wait(done, HRX_TIMEOUT_INFINITE));
  hrx_exec_completion_release(done);
  hrx_exec_graph_destroy(g);
  return seen;
}

static uint32_t gpu_word(const resident_rig_t* r) {
  hrx_gpu_view_t view = hrx_exec_npu_resident_gpu_startup(r->session);
  return atomic_load((_Atomic uint32_t*)hrx_gpu_buffer_host_pointer(
      view.buffer));
}

static uint32_t npu_word(const resident_rig_t* r) {
  return *(const uint32_t*)hrx_npu_buffer_host(
      hrx_exec_npu_resident_npu_startup(r->session));
}

static void resident_close(resident_rig_t* r) {
  hrx_exec_npu_resident_destroy(r->session);
  hrx_npu_program_destroy(r->program);
  hrx_gpu_buffer_release(r->out);
  hrx_exec_kernel_destroy(r->contract);
  hrx_gpu_kernel_release(r->kernel);
}

static void test_resident_run(void** state) {
  fixture_t* f = *state;
  host_only(f);
  resident_rig_t r;
  resident_open(f, &r);
  assert_int_equal(gpu_word(&r), HRX_NPU_RESIDENT_WAIT);
  assert_int_equal(hrx_exec_npu_resident_gpu_startup(r.session).length,
                   HRX_NPU_RESIDENT_STARTUP_BYTES);
  /* RUN before both participants are accepted. */
  assert_status(hrx_exec_npu_resident_run(r.session), HRX_STATUS_BUSY,
                "waiting for the NPU GPU");
  assert_status(hrx_exec_npu_resident_wait(r.session, 0),
                HRX_STATUS_FAILED_PRECONDITION, "undecided");
  assert_ok(hrx_exec_npu_resident_submit(r.session, r.contract, &r.launch,
                                         r.program));
  assert_int_equal(f->fake.submitted, 1);
  assert_status(hrx_exec_npu_resident_submit(r.session, r.contract,
                                             &r.launch, r.program),
                HRX_STATUS_FAILED_PRECONDITION, "already submitted");
  assert_ok(hrx_exec_npu_resident_run(r.session));
  assert_int_equal(gpu_word(&r), HRX_NPU_RESIDENT_RUN);
  assert_int_equal(npu_word(&r), HRX_NPU_RESIDENT_RUN);
  /* ABORT after RUN. */
  assert_status(hrx_exec_npu_resident_abort(r.session),
                HRX_STATUS_FAILED_PRECONDITION, "already published RUN");
  assert_ok(hrx_exec_npu_resident_wait(r.session, HRX_TIMEOUT_INFINITE));
  assert_int_equal(resident_seen(f, &r), HRX_NPU_RESIDENT_RUN);
  assert_int_equal(hrx_exec_npu_resident_word(r.session),
                   HRX_NPU_RESIDENT_RUN);
  resident_close(&r);
}

static void test_resident_pre_start_abort(void** state) {
  fixture_t* f = *state;
  host_only(f);
  resident_rig_t r;
  resident_open(f, &r);
  assert_ok(hrx_exec_npu_resident_abort(r.session));
  assert_ok(hrx_exec_npu_resident_abort(r.session));
  assert_int_equal(gpu_word(&r), HRX_NPU_RESIDENT_ABORT);
  assert_int_equal(npu_word(&r), HRX_NPU_RESIDENT_ABORT);
  hrx_exec_statistics_t before = HRX_STRUCT_INIT(hrx_exec_statistics_t);
  assert_ok(hrx_exec_runtime_statistics(f->runtime, &before));
  assert_status(hrx_exec_npu_resident_submit(r.session, r.contract,
                                             &r.launch, r.program),
                HRX_STATUS_FAILED_PRECONDITION, "already published ABORT");
  hrx_exec_statistics_t after = HRX_STRUCT_INIT(hrx_exec_statistics_t);
  assert_ok(hrx_exec_runtime_statistics(f->runtime, &after));
  assert_int_equal(after.submissions, before.submissions);
  assert_int_equal(f->fake.submitted, 0);
  assert_status(hrx_exec_npu_resident_run(r.session),
                HRX_STATUS_FAILED_PRECONDITION, "already published ABORT");
  assert_ok(hrx_exec_npu_resident_wait(r.session, 0));
  resident_close(&r);
}

/* Dropping the session before deciding publishes ABORT: the spinning GPU
 * participant sees it and ends. */
static void test_resident_drop_publishes_abort(void** state) {
  fixture_t* f = *state;
  host_only(f);
  resident_rig_t r;
  resident_open(f, &r);
  assert_ok(hrx_exec_npu_resident_submit(r.session, r.contract, &r.launch,
                                         r.program));
  hrx_gpu_buffer_t* startup =
      hrx_exec_npu_resident_gpu_startup(r.session).buffer;
  hrx_gpu_buffer_retain(startup);
  hrx_exec_npu_resident_destroy(r.session);
  r.session = NULL;
  assert_int_equal(
      atomic_load((_Atomic uint32_t*)hrx_gpu_buffer_host_pointer(startup)),
      HRX_NPU_RESIDENT_ABORT);
  assert_int_equal(resident_seen(f, &r), HRX_NPU_RESIDENT_ABORT);
  hrx_gpu_buffer_release(startup);
  resident_close(&r);
}

/* A GPU participant the runtime rejects (a contract breach) publishes
 * ABORT and dispatches nothing on the NPU. */
static void test_resident_rejected_gpu_aborts(void** state) {
  fixture_t* f = *state;
  host_only(f);
  resident_rig_t r;
  resident_open(f, &r);
  hrx_gpu_launch_t bad = r.launch;
  bad.arg_count = 1;
  assert_status(hrx_exec_npu_resident_submit(r.session, r.contract, &bad,
                                             r.program),
                HRX_STATUS_INVALID_ARGUMENT, "ABORT published");
  assert_int_equal(gpu_word(&r), HRX_NPU_RESIDENT_ABORT);
  assert_int_equal(npu_word(&r), HRX_NPU_RESIDENT_ABORT);
  assert_int_equal(f->fake.submitted, 0);
  resident_close(&r);
}

/* The fake NPU's work in the overlap test: release the GPU kernel that
 * spins on |release|. */
static _Atomic uint32_t* overlap_release;
static void npu_releases_gpu(void* context) {
  (void)context;
  atomic_store(overlap_release, HRX_NPU_RESIDENT_RUN);
}

/* An NPU node waits only for what it depends on: GPU work of the graph
 * that it does not touch runs beside the region. Here the GPU node spins
 * until the NPU's work releases it, so waiting for every lane would never
 * end. */
static void test_independent_gpu_work_runs_beside(void** state) {
  fixture_t* f = *state;
  host_only(f);
  hrx_gpu_kernel_t* kernel = gpu_test_kernel(f->device, NULL,
                                             resident_wait_source,
                                             "resident_wait");
  hrx_exec_kernel_t* contract = NULL;
  hrx_exec_kernel_contract_t shape = {resident_bindings, 2, 0};
  assert_ok(hrx_exec_kernel_create(f->runtime, kernel, &shape, &contract));
  hrx_gpu_buffer_t *word = NULL, *seen = NULL, *y = NULL;
  assert_ok(hrx_exec_buffer_allocate(f->runtime, 64, &word));
  assert_ok(hrx_exec_buffer_allocate(f->runtime, 64, &seen));
  assert_ok(hrx_exec_buffer_allocate(f->runtime, N * 4, &y));
  hrx_gpu_view_t yv = hrx_gpu_buffer_binding(y);
  hrx_exec_npu_program_t* p = NULL;
  assert_ok(hrx_exec_npu_program_prepare(f->runtime, f->npu, f->image,
                                         "main", &yv, 1, &p));
  overlap_release = hrx_gpu_buffer_host_pointer(word);
  f->fake.on_exec = npu_releases_gpu;
  hrx_exec_graph_t* g = NULL;
  assert_ok(hrx_exec_graph_create(f->runtime, &g));
  hrx_gpu_arg_t args[2] = {
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(word), HRX_GPU_ACCESS_READ),
      hrx_gpu_arg_binding(hrx_gpu_buffer_binding(seen),
                          HRX_GPU_ACCESS_WRITE)};
  hrx_gpu_launch_t launch = {NULL, 0, args, 2};
  hrx_exec_node_t spin = 0, npu = 0;
  assert_ok(hrx_exec_graph_dispatch(g, contract, &launch, &spin));
  assert_ok(hrx_exec_npu_graph_invoke(g, p, &npu));
  size_t count = 0;
  hrx_exec_graph_node_deps(g, npu, &count);
  assert_int_equal(count, 0);
  hrx_exec_completion_t* done = NULL;
  assert_ok(hrx_exec_graph_submit(g, &done));
  assert_ok(hrx_exec_completion_wait(done, HRX_TIMEOUT_INFINITE));
  hrx_exec_completion_release(done);
  assert_int_equal(*(const uint32_t*)hrx_gpu_buffer_host_pointer(seen),
                   HRX_NPU_RESIDENT_RUN);
  hrx_exec_graph_destroy(g);
  hrx_exec_npu_program_release(p);
  hrx_gpu_buffer_release(word);
  hrx_gpu_buffer_release(seen);
  hrx_gpu_buffer_release(y);
  hrx_exec_kernel_destroy(contract);
  hrx_gpu_kernel_release(kernel);
}

static size_t live_imports(const xdna_fake_t* fake) {
  size_t live = 0;
  for (uint32_t i = 1; i <= fake->bo_count; ++i) {
    if (fake->bos[i].live && fake->bos[i].imported) live++;
  }
  return live;
}

/* Where the GPU exports its buffers (the modelled gfx1151), bindings of
 * one buffer share its one import (a device refuses a second of one
 * dma-buf), charge nothing to the runtime's budget and stage nothing; the
 * import goes with its last user. (The fake driver runs one hardware
 * context at a time, so the users here are two bindings of a program.) */
static void test_imports_are_shared(void** state) {
  fixture_t* f = *state;
  if (gpu_test_is_host(f->device)) skip(); /* exports nothing: staged */
  npu_image_t d;
  npu_image_default(&d);
  d.bindings[1] = d.bindings[0];
  d.binding_count = 2;
  size_t size = 0;
  uint8_t* bytes = npu_image_build(&d, &size);
  hrx_npu_image_t* two = NULL;
  assert_ok(hrx_npu_image_parse(bytes, size, hrx_allocator_system(), &two));
  free(bytes);
  hrx_gpu_buffer_t* y = NULL;
  assert_ok(hrx_exec_buffer_allocate(f->runtime, N * 4, &y));
  uint64_t live = hrx_budget_live_bytes(f->budget);
  hrx_gpu_view_t views[2] = {{y, 0, 512}, {y, 512, 512}};
  for (size_t round = 1; round <= 2; ++round) {
    hrx_exec_npu_program_t* p = NULL;
    assert_ok(hrx_exec_npu_program_prepare(f->runtime, f->npu, two, "main",
                                           views, 2, &p));
    assert_int_equal(f->fake.imports, round);
    assert_int_equal(live_imports(&f->fake), 1);
    assert_ptr_equal(hrx_exec_npu_program_buffer(p, 0),
                     hrx_exec_npu_program_buffer(p, 1));
    assert_int_equal(hrx_budget_live_bytes(f->budget), live);
    hrx_exec_graph_t* g = NULL;
    assert_ok(hrx_exec_graph_create(f->runtime, &g));
    assert_ok(hrx_exec_npu_graph_invoke(g, p, NULL));
    hrx_exec_completion_t* done = NULL;
    assert_ok(hrx_exec_graph_submit(g, &done));
    assert_ok(hrx_exec_completion_wait(done, HRX_TIMEOUT_INFINITE));
    hrx_exec_completion_release(done);
    hrx_exec_graph_destroy(g);
    hrx_exec_npu_program_release(p);
    assert_int_equal(live_imports(&f->fake), 0);
  }
  hrx_exec_statistics_t stats = HRX_STRUCT_INIT(hrx_exec_statistics_t);
  assert_ok(hrx_exec_runtime_statistics(f->runtime, &stats));
  assert_int_equal(stats.npu_regions, 2);
  assert_int_equal(stats.npu_staged_bytes, 0);
  hrx_gpu_buffer_release(y);
  hrx_npu_image_destroy(two);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_gpu_and_npu_nodes_share_a_buffer,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_firmware_error_does_not_wedge,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_staging_is_charged, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_budget_exhaustion_allocates_nothing,
                                      setup_small, teardown),
      cmocka_unit_test_setup_teardown(test_independent_gpu_work_runs_beside,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_imports_are_shared, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_resident_run, setup, teardown),
      cmocka_unit_test_setup_teardown(test_resident_pre_start_abort, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_resident_drop_publishes_abort,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_resident_rejected_gpu_aborts,
                                      setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
