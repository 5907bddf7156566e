/* ModelContext: sessions sharing one runtime, budget and compiler; frozen
 * weights and kernels adopted without copies, charged once, read-only
 * everywhere, and alive until their last holder lets go. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "model_test_util.h"

typedef struct fixture_t {
  hrx_gpu_device_t* device;
  char* cache;
  hrx_budget_t* budget;
  hrx_model_context_t* context;
} fixture_t;

/* A context whose budget has |limit| bytes. */
static fixture_t* fixture_create(uint64_t limit) {
  fixture_t* f = calloc(1, sizeof(*f));
  f->device = gpu_test_device_open();
  f->cache = test_temp_dir_create();
  assert_ok(hrx_budget_create(limit, hrx_allocator_system(), &f->budget));
  hrx_loom_compiler_options_t compiler =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  compiler.cache_root = f->cache;
  hrx_model_session_options_t options =
      HRX_STRUCT_INIT(hrx_model_session_options_t);
  options.memory_budget = f->budget;
  options.compiler = &compiler;
  assert_ok(hrx_model_context_create(f->device, &options,
                                     hrx_allocator_system(), &f->context));
  return f;
}

static void fixture_destroy(fixture_t* f) {
  hrx_model_context_release(f->context);
  hrx_budget_release(f->budget);
  hrx_gpu_device_release(f->device);
  test_temp_dir_remove(f->cache);
  free(f);
}

/* The pipe |a| as seen from |session| after adopting |frozen|: the same
 * weights and kernels under the session's ids. */
static pipe_t pipe_adopted(const pipe_t* a, hrx_model_session_t* session,
                           hrx_model_frozen_t* frozen) {
  pipe_t b = *a;
  b.session = session;
  hrx_model_region_t weights[3];
  hrx_model_kernel_t kernels[2];
  assert_int_equal(hrx_model_frozen_weight_count(frozen), 3);
  assert_int_equal(hrx_model_frozen_kernel_count(frozen), 2);
  assert_ok(hrx_model_session_adopt(session, frozen, weights, kernels));
  b.norm = weights[0];
  b.w = weights[1];
  b.b = weights[2];
  b.norm_kernel = kernels[0];
  b.linear_kernel = kernels[1];
  return b;
}

/* Replays graph |key| of |pipe| on |x| and checks the output. */
static void replay_checked(pipe_t* pipe, uint64_t key, const pipe_io_t* io,
                           uint32_t seed) {
  float xs[PIPE_D];
  for (int i = 0; i < PIPE_D; ++i) xs[i] = pipe_random(&seed) * 3.0f;
  hrx_model_binding_t x = {io->x, 0, 0, HRX_GPU_ACCESS_WRITE};
  assert_ok(hrx_model_session_write(pipe->session, &x, xs, sizeof(xs)));
  assert_ok(hrx_model_session_replay(pipe->session, key, 10 * SECOND));
  hrx_model_binding_t read = {io->out, 0, 0, HRX_GPU_ACCESS_READ};
  const void* data = NULL;
  assert_ok(hrx_model_session_read(pipe->session, &read, 1, &data));
  pipe_assert_output(&pipe->weights, xs, data);
}

static void test_sessions_share_the_domain(void** state) {
  (void)state;
  fixture_t* f = fixture_create(HRX_BUDGET_UNLIMITED);
  hrx_model_session_t *a = NULL, *b = NULL;
  assert_ok(hrx_model_session_create_in(f->context, &a));
  assert_ok(hrx_model_session_create_in(f->context, &b));
  assert_ptr_equal(hrx_model_session_context(a), f->context);
  assert_ptr_equal(hrx_model_session_runtime(a),
                   hrx_model_context_runtime(f->context));
  assert_ptr_equal(hrx_model_session_runtime(b),
                   hrx_model_session_runtime(a));
  assert_ptr_equal(hrx_model_session_budget(b), f->budget);
  assert_ptr_equal(hrx_model_context_budget(f->context), f->budget);
  assert_ptr_equal(hrx_model_session_device(b), f->device);
  /* Both sessions' allocations land in the one budget. */
  uint64_t before = hrx_budget_live_bytes(f->budget);
  hrx_model_region_t ra, rb;
  assert_ok(hrx_model_session_allocate(a, 100, HRX_MODEL_PLACEMENT_DEVICE,
                                       &ra));
  assert_ok(hrx_model_session_allocate(b, 200, HRX_MODEL_PLACEMENT_DEVICE,
                                       &rb));
  assert_int_equal(hrx_budget_live_bytes(f->budget), before + 300);
  /* Ids stay session-scoped inside a context. */
  hrx_gpu_view_t view;
  assert_status(hrx_model_session_region_view(b, ra, &view),
                HRX_STATUS_INVALID_ARGUMENT, "does not belong");
  /* A context outlives the caller's reference while sessions hold it. */
  hrx_model_context_retain(f->context);
  hrx_model_context_release(f->context);
  hrx_model_session_destroy(a);
  hrx_model_session_destroy(b);
  assert_int_equal(hrx_budget_live_bytes(f->budget), before);
  assert_status_code(hrx_model_session_create_in(NULL, &a),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_null(a);
  fixture_destroy(f);
}

static void test_freeze_is_shared_and_charged_once(void** state) {
  (void)state;
  fixture_t* f = fixture_create(HRX_BUDGET_UNLIMITED);
  uint64_t empty = hrx_budget_live_bytes(f->budget);
  pipe_t* a = pipe_create_in(f->context);
  uint64_t loaded = hrx_budget_live_bytes(f->budget);
  assert_int_equal(loaded - empty, sizeof(pipe_weights_t));

  hrx_model_frozen_t* frozen = NULL;
  assert_ok(hrx_model_session_freeze(a->session, &frozen));
  assert_int_equal(hrx_model_frozen_bytes(frozen), sizeof(pipe_weights_t));
  assert_int_equal(hrx_budget_live_bytes(f->budget), loaded);
  /* Nothing new to freeze: an empty state, charged nothing. */
  hrx_model_frozen_t* again = NULL;
  assert_ok(hrx_model_session_freeze(a->session, &again));
  assert_int_equal(hrx_model_frozen_weight_count(again), 0);
  assert_int_equal(hrx_model_frozen_bytes(again), 0);
  hrx_model_frozen_release(again);

  /* Two more sessions adopt the state: no new charge, no compile. */
  hrx_model_session_t *sb = NULL, *sc = NULL;
  assert_ok(hrx_model_session_create_in(f->context, &sb));
  assert_ok(hrx_model_session_create_in(f->context, &sc));
  pipe_t b = pipe_adopted(a, sb, frozen);
  pipe_t c = pipe_adopted(a, sc, frozen);
  assert_int_equal(hrx_budget_live_bytes(f->budget), loaded);
  size_t length = 0;
  char* text = pipe_kernel_source("rms_norm", &length);
  hrx_model_source_t source = {text, length, "rms_norm.loom", "rms_norm"};
  hrx_model_kernel_t same;
  assert_ok(hrx_model_session_compile(sb, &source, 1, &same));
  assert_int_equal(same.bits, b.norm_kernel.bits);
  free(text);
  /* The adopted weights are the frozen buffers themselves. */
  hrx_gpu_view_t va, vb;
  assert_ok(hrx_model_session_region_view(a->session, a->w, &va));
  assert_ok(hrx_model_session_region_view(sb, b.w, &vb));
  assert_ptr_equal(va.buffer, vb.buffer);

  pipe_io_t io_a, io_b, io_c;
  pipe_record(a, 1, &io_a);
  pipe_record(&b, 1, &io_b);
  pipe_record(&c, 1, &io_c);
  replay_checked(a, 1, &io_a, 11);
  replay_checked(&b, 1, &io_b, 12);

  /* Frozen weights are read-only in every session, the freezer's too. */
  uint64_t workload[] = {PIPE_D};
  hrx_model_arg_t args[] = {
      hrx_model_arg_scalar(PIPE_D),
      hrx_model_arg_scalar(0),
      hrx_model_arg_region(io_b.x, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(io_b.y, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(b.norm, HRX_GPU_ACCESS_WRITE),
  };
  hrx_model_dispatch_t d = {b.norm_kernel, workload, 1, args, 5};
  assert_status(hrx_model_session_record(sb, 2, &d, 1),
                HRX_STATUS_INVALID_ARGUMENT, "frozen");
  args[4] = hrx_model_arg_region(b.b, HRX_GPU_ACCESS_READ_WRITE);
  assert_status(hrx_model_session_record(sb, 2, &d, 1),
                HRX_STATUS_INVALID_ARGUMENT, "frozen");
  args[2] = hrx_model_arg_region(io_a.x, HRX_GPU_ACCESS_READ);
  args[3] = hrx_model_arg_region(io_a.y, HRX_GPU_ACCESS_READ);
  args[4] = hrx_model_arg_region(a->norm, HRX_GPU_ACCESS_WRITE);
  d.kernel = a->norm_kernel;
  assert_status(hrx_model_session_record(a->session, 2, &d, 1),
                HRX_STATUS_INVALID_ARGUMENT, "frozen");

  /* The state outlives the session that froze it. */
  pipe_destroy(a);
  replay_checked(&b, 1, &io_b, 13);
  replay_checked(&c, 1, &io_c, 14);
  hrx_model_session_destroy(sb);
  hrx_model_session_destroy(sc);
  /* Only the caller's reference is left, and only the weights' charge. */
  uint64_t held = hrx_budget_live_bytes(f->budget);
  assert_true(held >= empty + sizeof(pipe_weights_t));
  hrx_model_frozen_release(frozen);
  assert_int_equal(hrx_budget_live_bytes(f->budget),
                   held - sizeof(pipe_weights_t));
  fixture_destroy(f);
}

static void test_adopt_fits_a_budget_that_holds_one_copy(void** state) {
  (void)state;
  /* Room for the weights once, plus activations, readbacks and staging
   * that together stay below a second copy. */
  enum { SLACK = 8192 };
  static_assert(SLACK < sizeof(pipe_weights_t), "a copy must not fit");
  fixture_t* f = fixture_create(sizeof(pipe_weights_t) + SLACK);
  pipe_t* a = pipe_create_in(f->context);
  hrx_model_frozen_t* frozen = NULL;
  assert_ok(hrx_model_session_freeze(a->session, &frozen));
  hrx_model_session_t* sb = NULL;
  assert_ok(hrx_model_session_create_in(f->context, &sb));
  pipe_t b = pipe_adopted(a, sb, frozen);
  /* A second copy would not fit. */
  hrx_model_weight_t copy[] = {
      {a->weights.norm, sizeof(a->weights.norm)},
      {a->weights.w, sizeof(a->weights.w)},
      {a->weights.b, sizeof(a->weights.b)},
  };
  hrx_model_region_t regions[3];
  assert_status(hrx_model_session_load(sb, copy, 3, regions),
                HRX_STATUS_RESOURCE_EXHAUSTED, "ceiling");
  pipe_io_t io;
  pipe_record(&b, 1, &io);
  replay_checked(&b, 1, &io, 21);
  hrx_model_frozen_release(frozen);
  hrx_model_session_destroy(sb);
  pipe_destroy(a);
  assert_int_equal(hrx_budget_live_bytes(f->budget), 0);
  fixture_destroy(f);
}

static void test_adopt_rejects_another_context(void** state) {
  (void)state;
  fixture_t* f = fixture_create(HRX_BUDGET_UNLIMITED);
  pipe_t* a = pipe_create_in(f->context);
  hrx_model_frozen_t* frozen = NULL;
  assert_ok(hrx_model_session_freeze(a->session, &frozen));
  pipe_t* other = pipe_create(NULL);
  hrx_model_region_t weights[3];
  hrx_model_kernel_t kernels[2];
  assert_status(hrx_model_session_adopt(other->session, frozen, weights,
                                        kernels),
                HRX_STATUS_INVALID_ARGUMENT, "another context");
  assert_status_code(
      hrx_model_session_adopt(other->session, frozen, NULL, kernels),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(
      hrx_model_session_adopt(other->session, NULL, weights, kernels),
      HRX_STATUS_INVALID_ARGUMENT);
  pipe_destroy(other);
  /* The caller may let go first: the freezing session still holds it. */
  hrx_model_frozen_release(frozen);
  pipe_io_t io;
  pipe_record(a, 1, &io);
  replay_checked(a, 1, &io, 31);
  pipe_destroy(a);
  fixture_destroy(f);
}

/* Session options and the compiler options they point to are checked
 * like any extensible struct, each naming its type; kernel statistics
 * stop at the caller's struct_size. */
static void test_options_struct_size(void** state) {
  (void)state;
  hrx_gpu_device_t* device = gpu_test_device_open();
  hrx_model_context_t* context = NULL;
  hrx_model_session_options_t zero = {0};
  assert_status(hrx_model_context_create(device, &zero,
                                         hrx_allocator_system(), &context),
                HRX_STATUS_INVALID_ARGUMENT,
                "hrx_model_session_options_t.struct_size is 0");
  hrx_loom_compiler_options_t compiler = {0};
  hrx_model_session_options_t options =
      HRX_STRUCT_INIT(hrx_model_session_options_t);
  options.compiler = &compiler;
  assert_status(hrx_model_context_create(device, &options,
                                         hrx_allocator_system(), &context),
                HRX_STATUS_INVALID_ARGUMENT,
                "hrx_loom_compiler_options_t.struct_size is 0");
  assert_null(context);
  struct {
    hrx_model_session_options_t known;
    uint64_t future;
  } newer;
  memset(&newer, 0, sizeof(newer));
  newer.known.struct_size = sizeof(newer);
  assert_ok(hrx_model_context_create(device, &newer.known,
                                     hrx_allocator_system(), &context));
  struct newer_stats {
    hrx_model_kernel_stats_t known;
    uint64_t future;
    uint8_t guard;
  } stats;
  memset(&stats, 0x5A, sizeof(stats));
  stats.known.struct_size = offsetof(struct newer_stats, guard);
  assert_ok(hrx_model_context_kernel_stats(context, &stats.known));
  assert_int_equal(stats.known.compiled, 0);
  assert_int_equal(stats.future, 0);
  assert_int_equal(stats.guard, 0x5A);
  hrx_model_context_release(context);
  hrx_gpu_device_release(device);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_options_struct_size),
      cmocka_unit_test(test_sessions_share_the_domain),
      cmocka_unit_test(test_freeze_is_shared_and_charged_once),
      cmocka_unit_test(test_adopt_fits_a_budget_that_holds_one_copy),
      cmocka_unit_test(test_adopt_rejects_another_context),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
