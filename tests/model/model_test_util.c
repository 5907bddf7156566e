#include "model_test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

float pipe_random(uint32_t* state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)(*state >> 8) / (float)(1u << 23) - 1.0f;
}

void pipe_weights_fill(pipe_weights_t* weights, uint32_t seed) {
  for (int i = 0; i < PIPE_D; ++i) weights->norm[i] = pipe_random(&seed) + 1.5f;
  for (int i = 0; i < PIPE_N * PIPE_D; ++i) weights->w[i] = pipe_random(&seed);
  for (int i = 0; i < PIPE_N; ++i) weights->b[i] = pipe_random(&seed);
}

char* pipe_kernel_source(const char* name, size_t* out_length) {
  const char* dir = getenv("HRX_MODEL_KERNELS");
  assert_non_null(dir);
  char* path = test_strdup_printf("%s/%s.loom", dir, name);
  char* text = test_read_text(path);
  free(path);
  *out_length = strlen(text);
  return text;
}

/* Compiles the pipeline's kernels and loads its weights into the pipe's
 * session. */
static void pipe_load(pipe_t* pipe) {
  size_t norm_length = 0, linear_length = 0;
  char* norm = pipe_kernel_source("rms_norm", &norm_length);
  char* linear = pipe_kernel_source("linear_f32", &linear_length);
  hrx_model_source_t sources[] = {
      {norm, norm_length, "rms_norm.loom", "rms_norm"},
      {linear, linear_length, "linear_f32.loom", "linear_f32"},
  };
  hrx_model_kernel_t kernels[2];
  assert_ok(hrx_model_session_compile(pipe->session, sources, 2, kernels));
  pipe->norm_kernel = kernels[0];
  pipe->linear_kernel = kernels[1];
  free(norm);
  free(linear);
  pipe_weights_fill(&pipe->weights, 7);
  hrx_model_weight_t weights[] = {
      {pipe->weights.norm, sizeof(pipe->weights.norm)},
      {pipe->weights.w, sizeof(pipe->weights.w)},
      {pipe->weights.b, sizeof(pipe->weights.b)},
  };
  hrx_model_region_t regions[3];
  assert_ok(hrx_model_session_load(pipe->session, weights, 3, regions));
  pipe->norm = regions[0];
  pipe->w = regions[1];
  pipe->b = regions[2];
}

pipe_t* pipe_create(hrx_budget_t* budget) {
  pipe_t* pipe = calloc(1, sizeof(*pipe));
  pipe->device = gpu_test_device_open();
  pipe->cache = test_temp_dir_create();
  hrx_loom_compiler_options_t compiler =
      HRX_STRUCT_INIT(hrx_loom_compiler_options_t);
  compiler.cache_root = pipe->cache;
  hrx_model_session_options_t options =
      HRX_STRUCT_INIT(hrx_model_session_options_t);
  options.memory_budget = budget;
  options.compiler = &compiler;
  assert_ok(hrx_model_session_create(pipe->device, &options,
                                     hrx_allocator_system(), &pipe->session));
  pipe_load(pipe);
  return pipe;
}

pipe_t* pipe_create_in(hrx_model_context_t* context) {
  pipe_t* pipe = calloc(1, sizeof(*pipe));
  pipe->device = hrx_model_context_device(context);
  hrx_gpu_device_retain(pipe->device);
  assert_ok(hrx_model_session_create_in(context, &pipe->session));
  pipe_load(pipe);
  return pipe;
}

void pipe_destroy(pipe_t* pipe) {
  hrx_model_session_destroy(pipe->session);
  hrx_gpu_device_release(pipe->device);
  test_temp_dir_remove(pipe->cache);
  free(pipe);
}

static uint64_t f32_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  return bits;
}

void pipe_record(pipe_t* pipe, uint64_t key, pipe_io_t* io) {
  hrx_model_session_t* s = pipe->session;
  assert_ok(hrx_model_session_allocate(s, PIPE_D * 4,
                                       HRX_MODEL_PLACEMENT_DEVICE, &io->x));
  assert_ok(hrx_model_session_allocate(s, PIPE_D * 4,
                                       HRX_MODEL_PLACEMENT_DEVICE, &io->y));
  assert_ok(hrx_model_session_allocate(s, PIPE_N * 4,
                                       HRX_MODEL_PLACEMENT_COHERENT, &io->out));
  assert_ok(pipe_record_io(pipe, key, io));
}

hrx_status_t pipe_record_io(pipe_t* pipe, uint64_t key, const pipe_io_t* io) {
  uint64_t norm_workload[] = {PIPE_D};
  hrx_model_arg_t norm_args[] = {
      hrx_model_arg_scalar(PIPE_D),
      hrx_model_arg_scalar(f32_bits(PIPE_EPS)),
      hrx_model_arg_region(io->x, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(pipe->norm, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(io->y, HRX_GPU_ACCESS_WRITE),
  };
  uint64_t linear_workload[] = {PIPE_N, PIPE_D};
  hrx_model_arg_t linear_args[] = {
      hrx_model_arg_scalar(PIPE_N),
      hrx_model_arg_scalar(PIPE_D),
      hrx_model_arg_region(pipe->w, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(io->y, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(pipe->b, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(io->out, HRX_GPU_ACCESS_WRITE),
  };
  hrx_model_dispatch_t dispatches[] = {
      {pipe->norm_kernel, norm_workload, 1, norm_args, 5},
      {pipe->linear_kernel, linear_workload, 2, linear_args, 6},
  };
  return hrx_model_session_record(pipe->session, key, dispatches, 2);
}

hrx_status_t pipe_slot_factory(void* user, hrx_model_session_t* session,
                               uint32_t slot, hrx_model_slot_graph_t* out) {
  pipe_t* pipe = user;
  assert_ptr_equal(session, pipe->session);
  pipe_io_t io;
  pipe_record(pipe, 100 + slot, &io);
  *out = (hrx_model_slot_graph_t){.graph = 100 + slot,
                                  .input_count = 1,
                                  .output_count = 1};
  out->inputs[0] = (hrx_model_io_t){
      {io.x, 0, 0, HRX_GPU_ACCESS_WRITE},
      {HRX_MODEL_DTYPE_F32, 1, {PIPE_D}, {0}}};
  out->outputs[0] = (hrx_model_io_t){
      {io.out, 0, 0, HRX_GPU_ACCESS_READ},
      {HRX_MODEL_DTYPE_F32, 1, {PIPE_N}, {0}}};
  return HRX_OK;
}

void pipe_reference(const pipe_weights_t* weights, const float* x,
                    float* out) {
  float y[PIPE_D];
  float squares = 0.0f;
  for (int j = 0; j < PIPE_D; ++j) squares = fmaf(x[j], x[j], squares);
  float root = sqrtf(squares / (float)PIPE_D + PIPE_EPS);
  for (int i = 0; i < PIPE_D; ++i) y[i] = x[i] * weights->norm[i] / root;
  for (int r = 0; r < PIPE_N; ++r) {
    float sum = weights->b[r];
    for (int k = 0; k < PIPE_D; ++k) {
      sum = fmaf(weights->w[r * PIPE_D + k], y[k], sum);
    }
    out[r] = sum;
  }
}

void pipe_assert_output(const pipe_weights_t* weights, const float* x,
                        const float* got) {
  float want[PIPE_N];
  pipe_reference(weights, x, want);
  for (int r = 0; r < PIPE_N; ++r) {
    /* The same operations in the same order: only the device's fma and
     * division rounding may differ. */
    float tolerance = 1e-5f * (1.0f + fabsf(want[r]));
    if (fabsf(got[r] - want[r]) > tolerance) {
      fail_msg("row %d: got %.9g, want %.9g", r, got[r], want[r]);
    }
  }
}
