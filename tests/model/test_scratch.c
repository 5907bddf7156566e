/* Private scratch: two pipeline stages whose activations share one arena,
 * composed as fragments into one exec graph (reuse ordered after the
 * earlier stage's reads, both outputs right, the arena charged once), and
 * the record-time audit that keeps scratch private. */
#include <string.h>

#include "model_test_util.h"

typedef struct fixture_t {
  hrx_budget_t* budget;
  pipe_t* pipe;
} fixture_t;

static int setup(void** state) {
  static fixture_t f;
  assert_ok(hrx_budget_create(HRX_BUDGET_UNLIMITED, hrx_allocator_system(),
                              &f.budget));
  f.pipe = pipe_create(f.budget);
  *state = &f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  pipe_destroy(f->pipe);
  hrx_budget_release(f->budget);
  return 0;
}

/* Stage |key|: fresh x and out, y in |scratch|. */
static pipe_io_t stage(pipe_t* pipe, uint64_t key,
                       hrx_model_region_t scratch) {
  pipe_io_t io = {.y = scratch};
  assert_ok(hrx_model_session_allocate(pipe->session, PIPE_D * 4,
                                       HRX_MODEL_PLACEMENT_DEVICE, &io.x));
  assert_ok(hrx_model_session_allocate(pipe->session, PIPE_N * 4,
                                       HRX_MODEL_PLACEMENT_COHERENT, &io.out));
  assert_ok(pipe_record_io(pipe, key, &io));
  return io;
}

static void test_stages_reuse_scratch(void** state) {
  fixture_t* f = *state;
  pipe_t* pipe = f->pipe;
  uint64_t before = hrx_budget_live_bytes(f->budget);
  hrx_model_region_t s1, s2;
  assert_ok(hrx_model_session_scratch(pipe->session, PIPE_D * 4, &s1));
  assert_ok(hrx_model_session_scratch(pipe->session, PIPE_D * 4, &s2));
  assert_int_equal(hrx_budget_live_bytes(f->budget) - before, PIPE_D * 4);
  pipe_io_t io1 = stage(pipe, 1, s1);
  pipe_io_t io2 = stage(pipe, 2, s2);

  hrx_model_session_t* s = pipe->session;
  hrx_exec_graph_t* graph = NULL;
  assert_ok(hrx_exec_graph_create(hrx_model_session_runtime(s), &graph));
  float xs1[PIPE_D], xs2[PIPE_D], out1[PIPE_N], out2[PIPE_N];
  uint32_t seed = 5;
  for (int i = 0; i < PIPE_D; ++i) {
    xs1[i] = pipe_random(&seed) * 2.0f;
    xs2[i] = pipe_random(&seed) * 5.0f;
  }
  hrx_gpu_view_t x1, x2, o1, o2;
  assert_ok(hrx_model_session_region_view(s, io1.x, &x1));
  assert_ok(hrx_model_session_region_view(s, io2.x, &x2));
  assert_ok(hrx_model_session_region_view(s, io1.out, &o1));
  assert_ok(hrx_model_session_region_view(s, io2.out, &o2));
  hrx_exec_node_t node;
  assert_ok(hrx_exec_graph_upload(graph, x1, xs1, &node));
  assert_ok(hrx_exec_graph_upload(graph, x2, xs2, &node));
  assert_ok(hrx_model_session_record_into(s, 1, graph)); /* nodes 2, 3 */
  assert_ok(hrx_model_session_record_into(s, 2, graph)); /* nodes 4, 5 */
  assert_ok(hrx_exec_graph_download(graph, o1, out1, &node));
  assert_ok(hrx_exec_graph_download(graph, o2, out2, &node));
  /* Stage 2's norm overwrites the bytes stage 1's linear reads: it waits
   * for that reader. */
  size_t count = 0;
  const hrx_exec_node_t* deps = hrx_exec_graph_node_deps(graph, 4, &count);
  bool after_reader = false;
  for (size_t i = 0; i < count; ++i) after_reader |= deps[i] == 3;
  assert_true(after_reader);
  hrx_exec_completion_t* completion = NULL;
  assert_ok(hrx_exec_graph_submit(graph, &completion));
  assert_ok(hrx_exec_completion_wait(completion, 10 * SECOND));
  hrx_exec_completion_release(completion);
  hrx_exec_graph_destroy(graph);
  pipe_assert_output(&pipe->weights, xs1, out1);
  pipe_assert_output(&pipe->weights, xs2, out2);

  /* A larger region starts an arena of its own size. */
  before = hrx_budget_live_bytes(f->budget);
  hrx_model_region_t big;
  assert_ok(hrx_model_session_scratch(s, 4096, &big));
  assert_int_equal(hrx_budget_live_bytes(f->budget) - before, 4096);
  assert_status_code(hrx_model_session_scratch(s, 0, &big),
                     HRX_STATUS_INVALID_ARGUMENT);
}

static void test_audit_keeps_scratch_private(void** state) {
  fixture_t* f = *state;
  pipe_t* pipe = f->pipe;
  hrx_model_session_t* s = pipe->session;
  hrx_model_region_t s1, s2, x, out;
  assert_ok(hrx_model_session_scratch(s, PIPE_D * 4, &s1));
  assert_ok(hrx_model_session_scratch(s, PIPE_D * 4, &s2));
  assert_ok(hrx_model_session_allocate(s, PIPE_D * 4,
                                       HRX_MODEL_PLACEMENT_DEVICE, &x));
  assert_ok(hrx_model_session_allocate(s, PIPE_N * 4,
                                       HRX_MODEL_PLACEMENT_DEVICE, &out));
  uint64_t norm_workload[] = {PIPE_D}, linear_workload[] = {PIPE_N, PIPE_D};
  hrx_model_arg_t norm1[] = {
      hrx_model_arg_scalar(PIPE_D), hrx_model_arg_scalar(0),
      hrx_model_arg_region(x, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(pipe->norm, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(s1, HRX_GPU_ACCESS_WRITE)};
  hrx_model_arg_t norm2[5];
  memcpy(norm2, norm1, sizeof(norm1));
  norm2[4] = hrx_model_arg_region(s2, HRX_GPU_ACCESS_WRITE);
  hrx_model_arg_t linear1[] = {
      hrx_model_arg_scalar(PIPE_N), hrx_model_arg_scalar(PIPE_D),
      hrx_model_arg_region(pipe->w, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(s1, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(pipe->b, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(out, HRX_GPU_ACCESS_WRITE)};
  hrx_model_dispatch_t n1 = {pipe->norm_kernel, norm_workload, 1, norm1, 5};
  hrx_model_dispatch_t n2 = {pipe->norm_kernel, norm_workload, 1, norm2, 5};
  hrx_model_dispatch_t l1 = {pipe->linear_kernel, linear_workload, 2,
                             linear1, 6};
  /* Read before this graph wrote it. */
  assert_status(hrx_model_session_record(s, 10, &l1, 1),
                HRX_STATUS_INVALID_ARGUMENT, "before the graph writes it");
  /* Read after another scratch region overwrote the shared bytes. */
  hrx_model_dispatch_t stale[] = {n1, n2, l1};
  assert_status(hrx_model_session_record(s, 10, stale, 3),
                HRX_STATUS_INVALID_ARGUMENT, "overwrote");
  /* Two scratch regions in one dispatch. */
  norm2[2] = hrx_model_arg_region(s1, HRX_GPU_ACCESS_READ);
  hrx_model_dispatch_t both[] = {n1, n2};
  assert_status(hrx_model_session_record(s, 10, both, 2),
                HRX_STATUS_INVALID_ARGUMENT, "share storage");
  /* Nothing was kept: the key is still free for a valid graph. */
  hrx_model_dispatch_t good[] = {n1, l1};
  assert_ok(hrx_model_session_record(s, 10, good, 2));
  assert_ok(hrx_model_session_replay(s, 10, 10 * SECOND));

  /* Scratch is never read back, viewed or used as request IO. */
  hrx_model_binding_t read = {s1, 0, 0, HRX_GPU_ACCESS_READ};
  const void* data = NULL;
  assert_status(hrx_model_session_read(s, &read, 1, &data),
                HRX_STATUS_INVALID_ARGUMENT, "scratch");
  hrx_gpu_view_t view;
  assert_status(hrx_model_session_region_view(s, s1, &view),
                HRX_STATUS_INVALID_ARGUMENT, "scratch");
}

static hrx_status_t scratch_output_factory(void* user,
                                           hrx_model_session_t* session,
                                           uint32_t slot,
                                           hrx_model_slot_graph_t* out) {
  hrx_status_t status = pipe_slot_factory(user, session, slot, out);
  hrx_model_region_t scratch;
  assert_ok(hrx_model_session_scratch(session, PIPE_N * 4, &scratch));
  out->outputs[0].binding.region = scratch;
  return status;
}

static void test_scratch_is_not_request_io(void** state) {
  fixture_t* f = *state;
  hrx_model_prepared_t* prepared = NULL;
  assert_status(hrx_model_prepare(f->pipe->session, 1, scratch_output_factory,
                                  f->pipe, &prepared),
                HRX_STATUS_INVALID_ARGUMENT, "scratch");
  assert_null(prepared);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_stages_reuse_scratch, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_audit_keeps_scratch_private, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_scratch_is_not_request_io, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
