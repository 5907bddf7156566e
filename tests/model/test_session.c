/* ModelSession on the suite's device: compile caching, recording with
 * declared access, replay and reads against the C reference, session-scoped
 * ids, memory budgets and bad arguments. */
#include <stdlib.h>
#include <string.h>

#include "model_test_util.h"

static int setup(void** state) {
  *state = pipe_create(NULL);
  return 0;
}

static int teardown(void** state) {
  pipe_destroy(*state);
  return 0;
}

static void write_input(pipe_t* pipe, hrx_model_region_t x, const float* xs) {
  hrx_model_binding_t whole = {x, 0, 0, HRX_GPU_ACCESS_WRITE};
  assert_ok(hrx_model_session_write(pipe->session, &whole, xs, PIPE_D * 4));
}

static void test_replay_matches_reference(void** state) {
  pipe_t* pipe = *state;
  pipe_io_t io;
  pipe_record(pipe, 1, &io);
  uint32_t seed = 3;
  for (int round = 0; round < 3; ++round) {
    float xs[PIPE_D];
    for (int i = 0; i < PIPE_D; ++i) xs[i] = pipe_random(&seed) * 4.0f;
    write_input(pipe, io.x, xs);
    assert_ok(hrx_model_session_replay(pipe->session, 1, 10 * SECOND));
    hrx_model_binding_t reads[] = {{io.out, 0, 0, HRX_GPU_ACCESS_READ},
                                   {io.x, 0, 16, HRX_GPU_ACCESS_READ}};
    const void* data[2];
    assert_ok(hrx_model_session_read(pipe->session, reads, 2, data));
    pipe_assert_output(&pipe->weights, xs, data[0]);
    assert_memory_equal(data[1], xs, 16);
  }
  /* A fragment: the same dispatches inside a graph of the caller's, with
   * the upload and download edges inferred around them. */
  hrx_exec_graph_t* graph = NULL;
  assert_ok(hrx_exec_graph_create(hrx_model_session_runtime(pipe->session),
                                  &graph));
  float xs[PIPE_D], out[PIPE_N];
  for (int i = 0; i < PIPE_D; ++i) xs[i] = (float)(i % 7) - 3.0f;
  hrx_gpu_view_t x, o;
  assert_ok(hrx_model_session_region_view(pipe->session, io.x, &x));
  assert_ok(hrx_model_session_region_view(pipe->session, io.out, &o));
  hrx_exec_node_t up, down;
  assert_ok(hrx_exec_graph_upload(graph, x, xs, &up));
  assert_ok(hrx_model_session_record_into(pipe->session, 1, graph));
  assert_ok(hrx_exec_graph_download(graph, o, out, &down));
  assert_int_equal(hrx_exec_graph_node_count(graph), 4);
  size_t deps = 0;
  hrx_exec_graph_node_deps(graph, up + 1, &deps);
  assert_int_equal(deps, 1); /* rms_norm after the upload */
  hrx_exec_completion_t* completion = NULL;
  assert_ok(hrx_exec_graph_submit(graph, &completion));
  assert_ok(hrx_exec_completion_wait(completion, 10 * SECOND));
  hrx_exec_completion_release(completion);
  hrx_exec_graph_destroy(graph);
  pipe_assert_output(&pipe->weights, xs, out);

  hrx_model_timing_t timing = HRX_STRUCT_INIT(hrx_model_timing_t);
  assert_ok(hrx_model_session_time(pipe->session, 1, 5, &timing));
  assert_int_equal(timing.iterations, 5);
  assert_true(timing.replay_ns > 0 && timing.direct_ns > 0);
}

static void test_compile_is_cached(void** state) {
  pipe_t* pipe = *state;
  size_t length = 0;
  char* text = pipe_kernel_source("rms_norm", &length);
  hrx_model_source_t source = {text, length, "rms_norm.loom", "rms_norm"};
  hrx_model_kernel_t again;
  assert_ok(hrx_model_session_compile(pipe->session, &source, 1, &again));
  assert_true(again.bits == pipe->norm_kernel.bits);
  /* A missing export fails, named. */
  source.export_name = "nothing_here";
  assert_status(hrx_model_session_compile(pipe->session, &source, 1, &again),
                HRX_STATUS_NOT_FOUND, "rms_norm.loom");
  assert_true(again.bits == 0);
  free(text);
  /* The loaded kernels behind the ids, for raw work on the runtime. */
  hrx_gpu_kernel_t *norm = NULL, *linear = NULL;
  assert_ok(hrx_model_session_kernel(pipe->session, pipe->norm_kernel, &norm));
  assert_ok(
      hrx_model_session_kernel(pipe->session, pipe->linear_kernel, &linear));
  assert_non_null(norm);
  assert_true(norm != linear);
  assert_status(hrx_model_session_kernel(pipe->session, again, &norm),
                HRX_STATUS_INVALID_ARGUMENT, "kernel id");
  assert_null(norm);
}

static void test_record_checks(void** state) {
  pipe_t* pipe = *state;
  pipe_io_t io;
  pipe_record(pipe, 2, &io);
  uint64_t workload[] = {PIPE_D};
  hrx_model_arg_t args[] = {
      hrx_model_arg_scalar(PIPE_D), hrx_model_arg_scalar(0),
      hrx_model_arg_region(io.x, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(pipe->norm, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(io.y, HRX_GPU_ACCESS_WRITE)};
  hrx_model_dispatch_t d = {pipe->norm_kernel, workload, 1, args, 5};
  assert_status(hrx_model_session_record(pipe->session, 2, &d, 1),
                HRX_STATUS_ALREADY_EXISTS, "graph 2");
  /* Weights are never written. */
  args[4] = hrx_model_arg_region(pipe->norm, HRX_GPU_ACCESS_READ_WRITE);
  assert_status(hrx_model_session_record(pipe->session, 3, &d, 1),
                HRX_STATUS_INVALID_ARGUMENT, "weights");
  /* A binding past its region. */
  args[4] = hrx_model_arg_region(io.y, HRX_GPU_ACCESS_WRITE);
  args[4].binding.offset = PIPE_D * 4 - 4;
  args[4].binding.length = 8;
  assert_status_code(hrx_model_session_record(pipe->session, 3, &d, 1),
                     HRX_STATUS_OUT_OF_RANGE);
  args[4].binding.offset = 0;
  args[4].binding.length = 0;
  args[4].binding.access = (hrx_gpu_access_t)9;
  assert_status(hrx_model_session_record(pipe->session, 3, &d, 1),
                HRX_STATUS_INVALID_ARGUMENT, "unknown access");
  args[4].binding.access = HRX_GPU_ACCESS_WRITE;
  /* The kernel's contract: too few arguments. */
  d.arg_count = 4;
  assert_status_code(hrx_model_session_record(pipe->session, 3, &d, 1),
                     HRX_STATUS_INVALID_ARGUMENT);
  d.arg_count = 5;
  assert_ok(hrx_model_session_record(pipe->session, 3, &d, 1));
  assert_status(hrx_model_session_replay(pipe->session, 99, SECOND),
                HRX_STATUS_NOT_FOUND, "99");
}

static void test_ids_are_session_scoped(void** state) {
  pipe_t* pipe = *state;
  hrx_model_session_t* other = NULL;
  assert_ok(hrx_model_session_create(pipe->device, NULL,
                                     hrx_allocator_system(), &other));
  hrx_model_region_t mine;
  assert_ok(hrx_model_session_allocate(other, 64, HRX_MODEL_PLACEMENT_DEVICE,
                                       &mine));
  hrx_gpu_view_t view;
  assert_status(hrx_model_session_region_view(other, pipe->w, &view),
                HRX_STATUS_INVALID_ARGUMENT, "does not belong");
  assert_status(hrx_model_session_region_view(pipe->session, mine, &view),
                HRX_STATUS_INVALID_ARGUMENT, "does not belong");
  hrx_model_region_t zero = {0};
  assert_status_code(hrx_model_session_region_view(other, zero, &view),
                     HRX_STATUS_INVALID_ARGUMENT);
  /* A kernel id from pipe's session, a region of the other one. */
  uint64_t workload[] = {16};
  hrx_model_arg_t args[] = {
      hrx_model_arg_scalar(16), hrx_model_arg_scalar(0),
      hrx_model_arg_region(mine, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(mine, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(mine, HRX_GPU_ACCESS_WRITE)};
  hrx_model_dispatch_t d = {pipe->norm_kernel, workload, 1, args, 5};
  assert_status(hrx_model_session_record(other, 1, &d, 1),
                HRX_STATUS_INVALID_ARGUMENT, "kernel id");
  args[2] = hrx_model_arg_region(pipe->norm, HRX_GPU_ACCESS_READ);
  d.kernel = pipe->norm_kernel;
  assert_status(hrx_model_session_record(pipe->session, 50, &d, 1),
                HRX_STATUS_INVALID_ARGUMENT, "region id");
  hrx_model_session_destroy(other);
}

static void test_budget_refuses_weights(void** state) {
  (void)state;
  hrx_budget_t* budget = NULL;
  assert_ok(hrx_budget_create(4000, hrx_allocator_system(), &budget));
  hrx_gpu_device_t* device = gpu_test_device_open();
  hrx_model_session_t* s = NULL;
  hrx_model_session_options_t options =
      HRX_STRUCT_INIT(hrx_model_session_options_t);
  options.memory_budget = budget;
  assert_ok(hrx_model_session_create(device, &options, hrx_allocator_system(),
                                     &s));
  static uint8_t bytes[3000];
  hrx_model_weight_t weights[] = {{bytes, 1000}, {bytes, 3000}, {bytes, 1}};
  hrx_model_region_t regions[3];
  uint64_t live = hrx_budget_live_bytes(budget);
  assert_status(hrx_model_session_load(s, weights, 3, regions),
                HRX_STATUS_RESOURCE_EXHAUSTED,
                "4001 bytes requested against a ceiling of 4000 bytes");
  /* Nothing was allocated or charged, and no id handed out. */
  assert_int_equal(hrx_budget_live_bytes(budget), live);
  assert_true(regions[0].bits == 0 && regions[2].bits == 0);
  assert_ok(hrx_model_session_load(s, weights, 2, regions));
  assert_int_equal(hrx_budget_live_bytes(budget), live + 4000);
  assert_status_code(hrx_model_session_weight(s, bytes, 200, &regions[2]),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_status_code(hrx_model_session_allocate(
                         s, 200, HRX_MODEL_PLACEMENT_DEVICE, &regions[2]),
                     HRX_STATUS_RESOURCE_EXHAUSTED);
  hrx_model_session_destroy(s);
  assert_int_equal(hrx_budget_live_bytes(budget), 0);
  hrx_gpu_device_release(device);
  hrx_budget_release(budget);
}

static void test_bad_arguments(void** state) {
  pipe_t* pipe = *state;
  hrx_model_session_t* s = pipe->session;
  hrx_model_session_t* none = NULL;
  assert_status(hrx_model_session_create(NULL, NULL, hrx_allocator_system(),
                                         &none),
                HRX_STATUS_INVALID_ARGUMENT, "no device");
  hrx_model_region_t region;
  assert_status_code(hrx_model_session_weight(s, NULL, 16, &region),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_session_weight(s, "x", 0, &region),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_session_allocate(s, 0,
                                                HRX_MODEL_PLACEMENT_DEVICE,
                                                &region),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status(hrx_model_session_allocate(s, 16, (hrx_model_placement_t)7,
                                           &region),
                HRX_STATUS_INVALID_ARGUMENT, "placement");
  assert_status_code(hrx_model_session_load(s, NULL, 1, &region),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_model_kernel_t kernel;
  assert_status_code(hrx_model_session_compile(s, NULL, 1, &kernel),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_model_source_t empty = {NULL, 0, "empty.loom", "k"};
  assert_status(hrx_model_session_compile(s, &empty, 1, &kernel),
                HRX_STATUS_INVALID_ARGUMENT, "empty.loom");
  hrx_model_source_t bad = {"kernel.def nonsense", 19, "bad.loom", "k"};
  assert_status(hrx_model_session_compile(s, &bad, 1, &kernel),
                HRX_STATUS_INVALID_ARGUMENT, "bad.loom");
  assert_status_code(hrx_model_session_record(s, 7, NULL, 1),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_model_dispatch_t d = {pipe->norm_kernel, NULL, 1, NULL, 5};
  assert_status_code(hrx_model_session_record(s, 7, &d, 1),
                     HRX_STATUS_INVALID_ARGUMENT);
  const void* data;
  assert_status_code(hrx_model_session_read(s, NULL, 1, &data),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_session_record_into(s, 1, NULL),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_model_timing_t timing = HRX_STRUCT_INIT(hrx_model_timing_t);
  assert_status_code(hrx_model_session_time(s, 1, 0, &timing),
                     HRX_STATUS_INVALID_ARGUMENT);
}

/* DEVICE regions are GPU-cached on gfx1151 and have no host pointer there;
 * writes and reads reach both placements with the same bytes. */
static void test_placements_and_writes(void** state) {
  pipe_t* pipe = *state;
  hrx_model_session_t* s = pipe->session;
  bool host = gpu_test_is_host(hrx_model_session_device(s));
  hrx_model_region_t device, coherent, weight;
  assert_ok(hrx_model_session_allocate(s, 64, HRX_MODEL_PLACEMENT_DEVICE,
                                       &device));
  assert_ok(hrx_model_session_allocate(s, 64, HRX_MODEL_PLACEMENT_COHERENT,
                                       &coherent));
  assert_ok(hrx_model_session_weight(s, "weights!", 8, &weight));
  hrx_gpu_view_t view;
  assert_ok(hrx_model_session_region_view(s, device, &view));
  assert_int_equal(hrx_gpu_buffer_placement(view.buffer),
                   HRX_FABRIC_VISIBILITY_DEVICE);
  assert_int_equal(hrx_gpu_buffer_host_pointer(view.buffer) != NULL, host);
  assert_ok(hrx_model_session_region_view(s, coherent, &view));
  assert_non_null(hrx_gpu_buffer_host_pointer(view.buffer));
  uint8_t bytes[64];
  for (int i = 0; i < 64; ++i) bytes[i] = (uint8_t)(3 * i + 1);
  hrx_model_binding_t tail = {device, 48, 16, HRX_GPU_ACCESS_WRITE};
  assert_ok(hrx_model_session_write(s, &tail, bytes, 16));
  hrx_model_binding_t whole = {coherent, 0, 0, HRX_GPU_ACCESS_WRITE};
  assert_ok(hrx_model_session_write(s, &whole, bytes, 64));
  hrx_model_binding_t reads[] = {{device, 0, 0, HRX_GPU_ACCESS_READ},
                                 {coherent, 0, 0, HRX_GPU_ACCESS_READ},
                                 {weight, 0, 0, HRX_GPU_ACCESS_READ}};
  const void* data[3];
  assert_ok(hrx_model_session_read(s, reads, 3, data));
  const uint8_t* d = data[0];
  for (int i = 0; i < 48; ++i) assert_int_equal(d[i], 0);
  assert_memory_equal(d + 48, bytes, 16);
  assert_memory_equal(data[1], bytes, 64);
  assert_memory_equal(data[2], "weights!", 8);
  /* Weights are never written; lengths must match; no data, no write. */
  hrx_model_binding_t to_weight = {weight, 0, 0, HRX_GPU_ACCESS_WRITE};
  assert_status(hrx_model_session_write(s, &to_weight, bytes, 8),
                HRX_STATUS_INVALID_ARGUMENT, "never written");
  assert_status(hrx_model_session_write(s, &tail, bytes, 15),
                HRX_STATUS_INVALID_ARGUMENT, "lengths must match");
  assert_status_code(hrx_model_session_write(s, &tail, NULL, 16),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_model_binding_t past = {device, 60, 16, HRX_GPU_ACCESS_WRITE};
  assert_status_code(hrx_model_session_write(s, &past, bytes, 16),
                     HRX_STATUS_OUT_OF_RANGE);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_placements_and_writes, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_replay_matches_reference, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_compile_is_cached, setup, teardown),
      cmocka_unit_test_setup_teardown(test_record_checks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ids_are_session_scoped, setup,
                                      teardown),
      cmocka_unit_test(test_budget_refuses_weights),
      cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
