/* examples/model_pipeline: an inference pipeline linking only hrx-model.
 *
 *   x -> rms_norm(x) * g -> W . y + b -> out
 *
 * A ModelSession compiles the two kernels of libhrx-model/kernels and
 * loads the weights; a PreparedModel with two slots serves REQUESTS
 * requests, each written straight into a slot's staging and read back
 * through its DeviceTensor, and checked against a CPU reference. Finally
 * the session times one slot's graph as a replay against direct dispatch.
 *
 * usage: model_pipeline [--device=N] KERNELS_DIR [REQUESTS]
 *        (defaults: device 0, 16 requests)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/model.h"

enum { WIDTH = 256, ROWS = 64, SLOTS = 2 };

typedef struct model_t {
  float gain[WIDTH], w[ROWS * WIDTH], b[ROWS];
  hrx_model_kernel_t norm, linear;
  hrx_model_region_t gain_region, w_region, b_region;
} model_t;

static uint64_t bits_of(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/* The slot factory: private x, y and out regions per slot, and the graph
 * y = rms_norm(x) * gain; out = W y + b recorded under the slot's index. */
static hrx_status_t make_slot(void* user, hrx_model_session_t* session,
                              uint32_t slot, hrx_model_slot_graph_t* out) {
  const model_t* m = user;
  hrx_model_region_t x, y, o;
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, WIDTH * 4, HRX_MODEL_PLACEMENT_DEVICE, &x));
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, WIDTH * 4, HRX_MODEL_PLACEMENT_DEVICE, &y));
  HRX_RETURN_IF_ERROR(hrx_model_session_allocate(
      session, ROWS * 4, HRX_MODEL_PLACEMENT_DEVICE, &o));
  const uint64_t norm_workload[] = {WIDTH};
  const hrx_model_arg_t norm_args[] = {
      hrx_model_arg_scalar(WIDTH), hrx_model_arg_scalar(bits_of(1e-5f)),
      hrx_model_arg_region(x, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(m->gain_region, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(y, HRX_GPU_ACCESS_WRITE)};
  const uint64_t linear_workload[] = {ROWS, WIDTH};
  const hrx_model_arg_t linear_args[] = {
      hrx_model_arg_scalar(ROWS), hrx_model_arg_scalar(WIDTH),
      hrx_model_arg_region(m->w_region, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(y, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(m->b_region, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(o, HRX_GPU_ACCESS_WRITE)};
  const hrx_model_dispatch_t stages[] = {
      {m->norm, norm_workload, 1, norm_args, 5},
      {m->linear, linear_workload, 2, linear_args, 6}};
  HRX_RETURN_IF_ERROR(hrx_model_session_record(session, slot, stages, 2));
  *out = (hrx_model_slot_graph_t){.graph = slot, .input_count = 1,
                                  .output_count = 1};
  out->inputs[0].binding.region = x;
  out->inputs[0].desc = (hrx_model_tensor_desc_t){
      HRX_MODEL_DTYPE_F32, 1, {WIDTH}, {0}};
  out->outputs[0].binding.region = o;
  out->outputs[0].desc = (hrx_model_tensor_desc_t){
      HRX_MODEL_DTYPE_F32, 1, {ROWS}, {0}};
  return HRX_OK;
}

static void fill_input(unsigned request, float* x, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    x[i] = sinf(0.37f * (float)(i + 1) * (float)(request + 1));
  }
}

/* Request r's input, written straight into the slot's staging. */
static hrx_status_t write_request(void* user, void* staging, uint64_t length) {
  fill_input(*(const unsigned*)user, staging, length / 4);
  return HRX_OK;
}

static double max_error(const model_t* m, const float* x, const float* got) {
  double squares = 0.0, error = 0.0;
  for (int i = 0; i < WIDTH; ++i) squares += (double)x[i] * x[i];
  double scale = 1.0 / sqrt(squares / WIDTH + 1e-5);
  for (int r = 0; r < ROWS; ++r) {
    double want = m->b[r];
    for (int k = 0; k < WIDTH; ++k) {
      want += (double)m->w[r * WIDTH + k] * x[k] * m->gain[k] * scale;
    }
    error = fmax(error, fabs(want - got[r]) / (1.0 + fabs(want)));
  }
  return error;
}

static hrx_status_t load_kernels(hrx_model_session_t* session,
                                 const char* dir, model_t* m) {
  const char* names[2] = {"rms_norm", "linear_f32"};
  void* text[2] = {NULL, NULL};
  size_t length[2] = {0, 0};
  char path[2][4096];
  hrx_model_source_t sources[2];
  hrx_status_t status = HRX_OK;
  for (int i = 0; i < 2 && status == HRX_OK; ++i) {
    snprintf(path[i], sizeof(path[i]), "%s/%s.loom", dir, names[i]);
    status = hrx_file_read_all(hrx_allocator_system(), path[i], 1 << 20,
                               &text[i], &length[i]);
    sources[i] = (hrx_model_source_t){text[i], length[i], path[i], names[i]};
  }
  hrx_model_kernel_t kernels[2];
  if (status == HRX_OK) {
    status = hrx_model_session_compile(session, sources, 2, kernels);
  }
  free(text[0]);
  free(text[1]);
  HRX_RETURN_IF_ERROR(status);
  m->norm = kernels[0];
  m->linear = kernels[1];
  return HRX_OK;
}

/* Serves |requests| requests through |prepared|; the worst relative error
 * against the reference lands in |worst|. */
static hrx_status_t serve(hrx_model_prepared_t* prepared, const model_t* m,
                          unsigned requests, double* worst) {
  for (unsigned r = 0; r < requests; ++r) {
    hrx_model_slot_t* slot = NULL;
    HRX_RETURN_IF_ERROR(
        hrx_model_prepared_acquire(prepared, HRX_TIMEOUT_INFINITE, &slot));
    hrx_model_tensor_t* out = NULL;
    HRX_RETURN_IF_ERROR(
        hrx_model_slot_submit_host_with(slot, write_request, &r, &out));
    float x[WIDTH], got[ROWS];
    fill_input(r, x, WIDTH);
    hrx_status_t status =
        hrx_model_tensor_read(out, got, sizeof(got), HRX_TIMEOUT_INFINITE);
    hrx_model_tensor_release(out);
    HRX_RETURN_IF_ERROR(status);
    *worst = fmax(*worst, max_error(m, x, got));
  }
  return HRX_OK;
}

static hrx_status_t run(hrx_gpu_device_t* device, const char* kernels_dir,
                        unsigned requests, model_t* m) {
  hrx_model_session_t* session = NULL;
  HRX_RETURN_IF_ERROR(hrx_model_session_create(device, NULL,
                                               hrx_allocator_system(),
                                               &session));
  hrx_model_prepared_t* prepared = NULL;
  const hrx_model_weight_t weights[] = {{m->gain, sizeof(m->gain)},
                                        {m->w, sizeof(m->w)},
                                        {m->b, sizeof(m->b)}};
  hrx_model_region_t regions[3];
  hrx_status_t status = load_kernels(session, kernels_dir, m);
  if (status == HRX_OK) {
    status = hrx_model_session_load(session, weights, 3, regions);
  }
  if (status == HRX_OK) {
    m->gain_region = regions[0];
    m->w_region = regions[1];
    m->b_region = regions[2];
    status = hrx_model_prepare(session, SLOTS, make_slot, m, &prepared);
  }
  double worst = 0.0;
  if (status == HRX_OK) status = serve(prepared, m, requests, &worst);
  hrx_model_timing_t timing = HRX_STRUCT_INIT(hrx_model_timing_t);
  if (status == HRX_OK) {
    status = hrx_model_session_time(session, 0, 20, &timing);
  }
  if (status == HRX_OK) {
    printf("model_pipeline: %s, %u requests over %d slots, max relative "
           "error %.2e\n",
           hrx_gpu_device_properties(device)->name, requests, SLOTS, worst);
    printf("model_pipeline: per request, graph replay %.1f us, direct "
           "dispatch %.1f us\n",
           timing.replay_ns / 1e3, timing.direct_ns / 1e3);
    if (worst > 1e-4) {
      status = hrx_make_status(HRX_STATUS_DATA_LOSS,
                               "outputs differ from the reference");
    }
  }
  hrx_model_prepared_destroy(prepared);
  hrx_model_session_destroy(session);
  return status;
}

int main(int argc, char** argv) {
  size_t device_index = 0;
  int arg = 1;
  if (arg < argc && strncmp(argv[arg], "--device=", 9) == 0) {
    device_index = strtoul(argv[arg++] + 9, NULL, 10);
  }
  if (arg >= argc) {
    fprintf(stderr, "usage: model_pipeline [--device=N] KERNELS_DIR "
                    "[REQUESTS]\n");
    return 64;
  }
  const char* kernels_dir = argv[arg++];
  unsigned requests = arg < argc ? (unsigned)strtoul(argv[arg], NULL, 10) : 16;

  static model_t model;
  for (int i = 0; i < WIDTH; ++i) model.gain[i] = 1.0f + 0.001f * (float)i;
  for (int i = 0; i < ROWS * WIDTH; ++i) {
    model.w[i] = cosf(0.011f * (float)i) / 16.0f;
  }
  for (int r = 0; r < ROWS; ++r) model.b[r] = 0.01f * (float)r;

  hrx_gpu_device_t* device = NULL;
  hrx_status_t status =
      hrx_gpu_device_open(device_index, hrx_allocator_system(), &device);
  if (status == HRX_OK) {
    status = run(device, kernels_dir, requests, &model);
    hrx_gpu_device_release(device);
  }
  if (status != HRX_OK) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    fprintf(stderr, "model_pipeline: %s\n", text);
    hrx_status_free(status);
    return 1;
  }
  return 0;
}
