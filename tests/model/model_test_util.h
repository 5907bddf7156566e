/* Helpers for the model suite: the two-stage pipeline (rms_norm ->
 * linear_f32) every test builds, and its C reference. */
#ifndef HRX_TESTS_MODEL_MODEL_TEST_UTIL_H_
#define HRX_TESTS_MODEL_MODEL_TEST_UTIL_H_

#include "gpu_test_util.h"
#include "hrx/model.h"

/* Row width (D = K) and output rows (N) of the pipeline. */
#define PIPE_D 64
#define PIPE_N 32
#define PIPE_EPS 1e-5f

typedef struct pipe_weights_t {
  float norm[PIPE_D];
  float w[PIPE_N * PIPE_D];
  float b[PIPE_N];
} pipe_weights_t;

/* A session on the suite's device with the pipeline's kernels compiled
 * and its weights loaded. The compiler writes to a private cache. */
typedef struct pipe_t {
  hrx_gpu_device_t* device;
  hrx_model_session_t* session;
  char* cache;
  pipe_weights_t weights;
  hrx_model_kernel_t norm_kernel, linear_kernel;
  hrx_model_region_t norm, w, b;
} pipe_t;

/* Fills |weights| from |seed|. */
void pipe_weights_fill(pipe_weights_t* weights, uint32_t seed);
/* |budget| may be NULL. */
pipe_t* pipe_create(hrx_budget_t* budget);
/* As pipe_create, with the session in |context| (whose compiler options
 * choose the cache). */
pipe_t* pipe_create_in(hrx_model_context_t* context);
void pipe_destroy(pipe_t* pipe);

/* The Loom source of libhrx-model/kernels/<name>.loom (malloc'ed). */
char* pipe_kernel_source(const char* name, size_t* out_length);

/* Allocates x, y (scratch) and out for one request and records graph
 * |key|: y = rms_norm(x), out = linear(y). */
typedef struct pipe_io_t {
  hrx_model_region_t x, y, out;
} pipe_io_t;
void pipe_record(pipe_t* pipe, uint64_t key, pipe_io_t* out_io);
/* Records graph |key| over the caller's regions. */
hrx_status_t pipe_record_io(pipe_t* pipe, uint64_t key, const pipe_io_t* io);

/* The slot factory for hrx_model_prepare (user: the pipe_t). */
hrx_status_t pipe_slot_factory(void* user, hrx_model_session_t* session,
                               uint32_t slot, hrx_model_slot_graph_t* out);

/* The C reference of the pipeline on |x|. */
void pipe_reference(const pipe_weights_t* weights, const float* x,
                    float* out);
/* Asserts |got| matches the reference for |x| within float rounding. */
void pipe_assert_output(const pipe_weights_t* weights, const float* x,
                        const float* got);

/* A deterministic float in [-1, 1) from |state|. */
float pipe_random(uint32_t* state);

#endif /* HRX_TESTS_MODEL_MODEL_TEST_UTIL_H_ */
