/* PreparedModel: the pipeline prepared with 3 slots and driven by 8
 * threads; BUSY, blocking and fd acquisition; tensors that outlive their
 * slot's next request; private IO; bad inputs. */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "model_test_util.h"

enum { SLOTS = 3, THREADS = 8 };

typedef struct fixture_t {
  pipe_t* pipe;
  hrx_model_prepared_t* model;
} fixture_t;

static int setup(void** state) {
  fixture_t* f = calloc(1, sizeof(*f));
  f->pipe = pipe_create(NULL);
  assert_ok(hrx_model_prepare(f->pipe->session, SLOTS, pipe_slot_factory,
                              f->pipe, &f->model));
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  hrx_model_prepared_destroy(f->model);
  pipe_destroy(f->pipe);
  free(f);
  return 0;
}

typedef struct worker_t {
  fixture_t* f;
  atomic_int* in_use; /* per slot: requests it serves right now */
  atomic_int* next;   /* requests handed out so far */
  int total;
  uint32_t seed;
  int busy_seen, served;
} worker_t;

typedef struct packed_t {
  const float* x;
} packed_t;

/* Writes the request straight into the slot's staging. */
static hrx_status_t write_packed(void* user, void* staging, uint64_t length) {
  const packed_t* packed = user;
  assert_int_equal(length, PIPE_D * 4);
  memcpy(staging, packed->x, length);
  return HRX_OK;
}

static void* worker_main(void* arg) {
  worker_t* w = arg;
  while (atomic_fetch_add(w->next, 1) < w->total) {
    float xs[PIPE_D];
    for (int i = 0; i < PIPE_D; ++i) xs[i] = pipe_random(&w->seed) * 3.0f;
    hrx_model_slot_t* slot = NULL;
    hrx_status_t status = hrx_model_prepared_try_acquire(w->f->model, &slot);
    if (hrx_status_is(status, HRX_STATUS_BUSY)) {
      w->busy_seen++;
      hrx_status_free(status);
      status = hrx_model_prepared_acquire(w->f->model, 60 * SECOND, &slot);
    }
    assert_ok(status);
    uint32_t index = hrx_model_slot_index(slot);
    assert_int_equal(atomic_fetch_add(&w->in_use[index], 1), 0);
    hrx_model_tensor_t* out = NULL;
    packed_t packed = {xs};
    if (w->served % 2) {
      assert_ok(hrx_model_slot_submit_host(slot, xs, sizeof(xs), &out));
    } else {
      assert_ok(
          hrx_model_slot_submit_host_with(slot, write_packed, &packed, &out));
    }
    float got[PIPE_N];
    assert_ok(hrx_model_tensor_read(out, got, sizeof(got), 60 * SECOND));
    pipe_assert_output(&w->f->pipe->weights, xs, got);
    /* The slot is this request's until its last tensor goes. */
    assert_int_equal(atomic_fetch_sub(&w->in_use[index], 1), 1);
    hrx_model_tensor_release(out);
    w->served++;
  }
  return NULL;
}

static void test_threads_match_reference(void** state) {
  fixture_t* f = *state;
  int total = test_under_valgrind() ? 120 : 1000;
  atomic_int in_use[SLOTS];
  for (int i = 0; i < SLOTS; ++i) atomic_init(&in_use[i], 0);
  atomic_int next;
  atomic_init(&next, 0);
  worker_t workers[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    workers[t] = (worker_t){f, in_use, &next, total, 1234u + (uint32_t)t, 0, 0};
    assert_int_equal(pthread_create(&threads[t], NULL, worker_main,
                                    &workers[t]),
                     0);
  }
  int served = 0, busy = 0;
  for (int t = 0; t < THREADS; ++t) {
    pthread_join(threads[t], NULL);
    served += workers[t].served;
    busy += workers[t].busy_seen;
  }
  assert_int_equal(served, total);
  /* Eight threads over three slots contend: some find them all taken. */
  assert_true(busy > 0);
  assert_int_equal(hrx_model_prepared_disabled_count(f->model), 0);
}

static hrx_model_tensor_t* submit(fixture_t* f, const float* xs) {
  hrx_model_slot_t* slot = NULL;
  assert_ok(hrx_model_prepared_acquire(f->model, 10 * SECOND, &slot));
  hrx_model_tensor_t* out = NULL;
  assert_ok(hrx_model_slot_submit_host(slot, xs, PIPE_D * 4, &out));
  return out;
}

static void test_busy_and_held_tensors(void** state) {
  fixture_t* f = *state;
  float first[PIPE_D], other[PIPE_D];
  for (int i = 0; i < PIPE_D; ++i) {
    first[i] = (float)i / 8.0f - 4.0f;
    other[i] = (float)(i % 5) + 0.25f;
  }
  int fd = hrx_model_prepared_fd(f->model);
  struct pollfd ready = {fd, POLLIN, 0};
  assert_int_equal(poll(&ready, 1, 0), 1);
  /* Hold the first request's tensor unread while the others cycle. */
  hrx_model_tensor_t* held = submit(f, first);
  for (int round = 0; round < 6; ++round) {
    hrx_model_tensor_t* out = submit(f, other);
    float got[PIPE_N];
    assert_ok(hrx_model_tensor_read(out, got, sizeof(got), 10 * SECOND));
    pipe_assert_output(&f->pipe->weights, other, got);
    hrx_model_tensor_release(out);
  }
  float got[PIPE_N];
  assert_ok(hrx_model_tensor_read(held, got, sizeof(got), 10 * SECOND));
  pipe_assert_output(&f->pipe->weights, first, got);
  const hrx_model_tensor_desc_t* desc = hrx_model_tensor_desc(held);
  assert_int_equal(desc->rank, 1);
  assert_int_equal(desc->shape[0], PIPE_N);
  assert_int_equal(hrx_model_tensor_view(held).length, PIPE_N * 4);
  assert_status(hrx_model_tensor_read(held, got, 8, SECOND),
                HRX_STATUS_INVALID_ARGUMENT, "128 bytes, not 8");

  /* Two more slots taken: none is free, the fd says so, BUSY. */
  hrx_model_slot_t *a = NULL, *b = NULL, *c = NULL;
  assert_ok(hrx_model_prepared_try_acquire(f->model, &a));
  assert_ok(hrx_model_prepared_try_acquire(f->model, &b));
  assert_status(hrx_model_prepared_try_acquire(f->model, &c),
                HRX_STATUS_BUSY, "all 3 slots");
  assert_null(c);
  assert_int_equal(poll(&ready, 1, 0), 0);
  assert_status_code(hrx_model_prepared_acquire(f->model, 1000000, &c),
                     HRX_STATUS_DEADLINE_EXCEEDED);
  /* Releasing the held tensor frees its slot. */
  hrx_model_tensor_release(held);
  assert_int_equal(poll(&ready, 1, 1000), 1);
  assert_ok(hrx_model_prepared_try_acquire(f->model, &c));
  hrx_model_slot_release(a);
  hrx_model_slot_release(b);
  hrx_model_slot_release(c);
}

static void test_bad_submissions(void** state) {
  fixture_t* f = *state;
  assert_int_equal(hrx_model_prepared_slot_count(f->model), SLOTS);
  assert_int_equal(hrx_model_prepared_input_bytes(f->model), PIPE_D * 4);
  assert_int_equal(hrx_model_prepared_output_count(f->model), 1);
  float xs[PIPE_D] = {0};
  hrx_model_tensor_t* out = NULL;
  hrx_model_slot_t* slot = NULL;
  assert_ok(hrx_model_prepared_try_acquire(f->model, &slot));
  assert_status(hrx_model_slot_submit_host(slot, xs, 12, &out),
                HRX_STATUS_INVALID_ARGUMENT, "256 bytes of packed inputs");
  assert_null(out);
  /* The slot came back: all three can be taken again. */
  hrx_model_slot_t* slots[SLOTS];
  for (int i = 0; i < SLOTS; ++i) {
    assert_ok(hrx_model_prepared_try_acquire(f->model, &slots[i]));
  }
  assert_status_code(
      hrx_model_slot_submit_host(slots[0], NULL, PIPE_D * 4, &out),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(
      hrx_model_slot_submit_host_with(slots[1], NULL, NULL, &out),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_slot_submit_host(slots[2], xs, sizeof(xs),
                                                NULL),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_slot_submit_host(NULL, xs, sizeof(xs), &out),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_tensor_read(NULL, xs, 4, SECOND),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_model_slot_release(NULL);
  hrx_model_tensor_release(NULL);
  assert_ok(hrx_model_prepared_try_acquire(f->model, &slot));
  hrx_model_slot_release(slot);
}

typedef struct factory_case_t {
  pipe_t* pipe;
  hrx_model_slot_graph_t first;
  int mode;
} factory_case_t;

static hrx_status_t case_factory(void* user, hrx_model_session_t* session,
                                 uint32_t slot, hrx_model_slot_graph_t* out) {
  factory_case_t* c = user;
  if (slot == 0) {
    HRX_RETURN_IF_ERROR(
        pipe_slot_factory(c->pipe, session, 200 + (uint32_t)c->mode, out));
    c->first = *out;
    return HRX_OK;
  }
  *out = c->first;
  switch (c->mode) {
    case 0: /* shares slot 0's IO */
      break;
    case 1: /* another output shape */
      out->outputs[0].desc.shape[0] = PIPE_N / 2;
      break;
    case 2:
      return hrx_make_status(HRX_STATUS_UNAVAILABLE, "factory gave up");
    case 3: /* inputs are written: never into weights */
      out->inputs[0].binding.region = c->pipe->w;
      break;
    default:
      out->graph = 9999;
      break;
  }
  return HRX_OK;
}

static void test_prepare_checks(void** state) {
  fixture_t* f = *state;
  hrx_model_prepared_t* model = NULL;
  factory_case_t c = {.pipe = f->pipe};
  const char* expected[] = {"share writable IO", "differs from slot 0",
                            "factory gave up", "weights", "no graph 9999"};
  for (c.mode = 0; c.mode < 5; ++c.mode) {
    hrx_status_t status =
        hrx_model_prepare(f->pipe->session, 2, case_factory, &c, &model);
    assert_true(status != HRX_OK);
    char text[512];
    hrx_status_format(status, text, sizeof(text));
    if (!strstr(text, expected[c.mode])) fail_msg("mode %d: %s", c.mode, text);
    hrx_status_free(status);
    assert_null(model);
  }
  assert_status_code(
      hrx_model_prepare(f->pipe->session, 0, case_factory, &c, &model),
      HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_model_prepare(f->pipe->session, 2, NULL, &c, &model),
                     HRX_STATUS_INVALID_ARGUMENT);
}

/* Stores ids[1] at sink[ids[0]] through a view far larger than the
 * sink: an id of 268435456 lands a gigabyte past it, a fault on every
 * device (a GPU maps memory by the page, so a near miss is not). */
static const char* const poke_source =
    "kernel.def export(\"poke\") @poke() {\n"
    "  %one = index.constant 1 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) "
    "workgroup_size(%one, %one, %one) : index\n"
    "} launch(%ids: buffer, %sink: buffer) {\n"
    "  %o = index.constant 0 : offset\n"
    "  %zero = index.constant 0 : index\n"
    "  %one = index.constant 1 : index\n"
    "  %iv = buffer.view %ids[%o] : buffer -> view<2xi32>\n"
    "  %v = buffer.view %sink[%o] : buffer -> view<268435457xi32>\n"
    "  %raw = view.load %iv[%zero] : view<2xi32> -> i32\n"
    "  %at = index.cast %raw : i32 to index\n"
    "  %x = view.load %iv[%one] : view<2xi32> -> i32\n"
    "  view.store %x, %v[%at] : i32, view<268435457xi32>\n"
    "  kernel.return\n"
    "}\n";

#define POKE_FAULT 268435456

typedef struct poke_pipe_t {
  pipe_t* pipe;
  hrx_model_kernel_t poke;
} poke_pipe_t;

/* Slots whose request is the pipeline on x, after poke on ids: inputs x
 * then ids (two i32), output out. */
static hrx_status_t poke_slot_factory(void* user,
                                      hrx_model_session_t* session,
                                      uint32_t slot,
                                      hrx_model_slot_graph_t* out) {
  poke_pipe_t* pp = user;
  pipe_t* pipe = pp->pipe;
  pipe_io_t io;
  hrx_model_region_t ids, sink;
  assert_ok(hrx_model_session_allocate(session, PIPE_D * 4,
                                       HRX_MODEL_PLACEMENT_DEVICE, &io.x));
  assert_ok(hrx_model_session_allocate(session, PIPE_D * 4,
                                       HRX_MODEL_PLACEMENT_DEVICE, &io.y));
  assert_ok(hrx_model_session_allocate(session, PIPE_N * 4,
                                       HRX_MODEL_PLACEMENT_COHERENT, &io.out));
  assert_ok(hrx_model_session_allocate(session, 8, HRX_MODEL_PLACEMENT_DEVICE,
                                       &ids));
  assert_ok(hrx_model_session_allocate(session, 16,
                                       HRX_MODEL_PLACEMENT_DEVICE, &sink));
  uint64_t key = 300 + slot;
  hrx_model_arg_t poke_args[] = {
      hrx_model_arg_region(ids, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(sink, HRX_GPU_ACCESS_WRITE)};
  hrx_model_dispatch_t poke = {pp->poke, NULL, 0, poke_args, 2};
  /* The pipeline's dispatches as pipe_record_io records them. */
  uint64_t norm_workload[] = {PIPE_D};
  uint64_t linear_workload[] = {PIPE_N, PIPE_D};
  uint32_t eps;
  float e = PIPE_EPS;
  memcpy(&eps, &e, 4);
  hrx_model_arg_t norm_args[] = {
      hrx_model_arg_scalar(PIPE_D), hrx_model_arg_scalar(eps),
      hrx_model_arg_region(io.x, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(pipe->norm, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(io.y, HRX_GPU_ACCESS_WRITE)};
  hrx_model_arg_t linear_args[] = {
      hrx_model_arg_scalar(PIPE_N), hrx_model_arg_scalar(PIPE_D),
      hrx_model_arg_region(pipe->w, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(io.y, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(pipe->b, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(io.out, HRX_GPU_ACCESS_WRITE)};
  hrx_model_dispatch_t dispatches[] = {
      poke,
      {pipe->norm_kernel, norm_workload, 1, norm_args, 5},
      {pipe->linear_kernel, linear_workload, 2, linear_args, 6}};
  HRX_RETURN_IF_ERROR(hrx_model_session_record(session, key, dispatches, 3));
  *out = (hrx_model_slot_graph_t){.graph = key, .input_count = 2,
                                  .output_count = 1};
  out->inputs[0] = (hrx_model_io_t){{io.x, 0, 0, HRX_GPU_ACCESS_WRITE},
                                    {HRX_MODEL_DTYPE_F32, 1, {PIPE_D}, {0}}};
  out->inputs[1] = (hrx_model_io_t){{ids, 0, 0, HRX_GPU_ACCESS_WRITE},
                                    {HRX_MODEL_DTYPE_I32, 1, {2}, {0}}};
  out->outputs[0] = (hrx_model_io_t){{io.out, 0, 0, HRX_GPU_ACCESS_READ},
                                     {HRX_MODEL_DTYPE_F32, 1, {PIPE_N}, {0}}};
  return HRX_OK;
}

typedef struct poke_request_t {
  float x[PIPE_D];
  int32_t ids[2];
} poke_request_t;

/* Submits one request; returns the slot it ran on, and whether it
 * succeeded (its output then checked against the C reference). */
static uint32_t poke_submit(hrx_model_prepared_t* model, const pipe_t* pipe,
                            const poke_request_t* request, bool* out_ok) {
  hrx_model_slot_t* slot = NULL;
  assert_ok(hrx_model_prepared_acquire(model, 10 * SECOND, &slot));
  uint32_t index = hrx_model_slot_index(slot);
  hrx_model_tensor_t* out = NULL;
  hrx_status_t status =
      hrx_model_slot_submit_host(slot, request, sizeof(*request), &out);
  float got[PIPE_N];
  if (status == HRX_OK) {
    status = hrx_model_tensor_read(out, got, sizeof(got), 60 * SECOND);
    hrx_model_tensor_release(out);
  }
  *out_ok = status == HRX_OK;
  if (status == HRX_OK) {
    pipe_assert_output(&pipe->weights, request->x, got);
  } else {
    assert_status_code(status, HRX_STATUS_ABORTED);
  }
  return index;
}

/* A request whose kernel faults disables its slot only: the other two
 * serve many requests with the reference's outputs; once every slot is
 * disabled, acquiring is UNAVAILABLE. */
static void test_fault_disables_only_its_slot(void** state) {
  fixture_t* f = *state;
  poke_pipe_t pp = {.pipe = f->pipe};
  hrx_model_source_t source = {poke_source, strlen(poke_source), "poke.loom",
                               "poke"};
  assert_ok(hrx_model_session_compile(f->pipe->session, &source, 1,
                                      &pp.poke));
  hrx_model_prepared_t* model = NULL;
  assert_ok(hrx_model_prepare(f->pipe->session, SLOTS, poke_slot_factory, &pp,
                              &model));
  assert_int_equal(hrx_model_prepared_input_bytes(model), PIPE_D * 4 + 8);
  uint32_t seed = 99;
  poke_request_t request;
  for (int i = 0; i < PIPE_D; ++i) request.x[i] = pipe_random(&seed);
  request.ids[0] = POKE_FAULT;
  request.ids[1] = 1;
  bool ok = true;
  uint32_t bad = poke_submit(model, f->pipe, &request, &ok);
  assert_false(ok);
  assert_int_equal(hrx_model_prepared_disabled_count(model), 1);
  int served[SLOTS] = {0};
  int total = test_under_valgrind() ? 12 : 60;
  for (int r = 0; r < total; ++r) {
    for (int i = 0; i < PIPE_D; ++i) request.x[i] = pipe_random(&seed) * 2.0f;
    request.ids[0] = r % 4;
    request.ids[1] = r;
    /* Requests alternate between slots: hold one while the next runs. */
    hrx_model_slot_t* held = NULL;
    if (r % 2) assert_ok(hrx_model_prepared_acquire(model, SECOND, &held));
    uint32_t index = poke_submit(model, f->pipe, &request, &ok);
    assert_true(ok);
    assert_int_not_equal(index, bad);
    served[index]++;
    hrx_model_slot_release(held);
  }
  assert_int_equal(hrx_model_prepared_disabled_count(model), 1);
  for (uint32_t i = 0; i < SLOTS; ++i) {
    if (i != bad) assert_true(served[i] > 0);
  }
  /* Fault the other two: nothing is left to acquire. */
  request.ids[0] = POKE_FAULT;
  for (int i = 0; i < SLOTS - 1; ++i) {
    poke_submit(model, f->pipe, &request, &ok);
    assert_false(ok);
  }
  assert_int_equal(hrx_model_prepared_disabled_count(model), SLOTS);
  hrx_model_slot_t* slot = NULL;
  assert_status(hrx_model_prepared_try_acquire(model, &slot),
                HRX_STATUS_UNAVAILABLE, "every slot");
  assert_status_code(hrx_model_prepared_acquire(model, SECOND, &slot),
                     HRX_STATUS_UNAVAILABLE);
  assert_null(slot);
  hrx_model_prepared_destroy(model);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_threads_match_reference, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_busy_and_held_tensors, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_bad_submissions, setup, teardown),
      cmocka_unit_test_setup_teardown(test_prepare_checks, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fault_disables_only_its_slot, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
