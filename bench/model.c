/* bench/model: what libhrx-model costs per request over a raw exec
 * runtime doing the same work in the same run.
 *
 * The work is the model suite's pipeline (rms_norm over a D-wide row, then
 * linear_f32 to N outputs) with D = K = 64, N = 64: small enough that
 * the per-request overhead shows beside the kernels.
 * 1. Replay: hrx_model_session_replay of the recorded pipeline against a
 *    raw exec graph of the same two dispatches (submit, wait), and both
 *    against the two dispatches straight on a raw stream (synchronize).
 * 2. Requests: a prepared model with one slot (try_acquire, submit_host,
 *    tensor read, release) against a raw exec graph of upload, the two
 *    dispatches and download (submit, wait, copy out).
 * The peer makes raw exec calls on the session's own runtime, kernels and
 * regions' views, so that only the model layer differs: on the modelled
 * gfx1151 a second runtime, buffers and code objects of their own run the
 * same kernels at a speed that depends on which were created first.
 * Samples of the model and its peer interleave, so drift hits both alike;
 * medians are printed with model/peer (goal: within 1.05x). The device is
 * argv[1]'s index (default 0, the host; under HRX_KFD_MODEL device 1 is
 * the modelled gfx1151); the kernel sources come from HRX_MODEL_KERNELS. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hrx/exec.h"
#include "hrx/model.h"

#define D 64
#define N 64
#define SAMPLES 301

static char* read_kernel(const char* name, size_t* out_length) {
  const char* dir = getenv("HRX_MODEL_KERNELS");
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s.loom", dir ? dir : "libhrx-model/kernels",
           name);
  FILE* file = fopen(path, "rb");
  if (!file) {
    fprintf(stderr, "cannot open %s (set HRX_MODEL_KERNELS)\n", path);
    exit(1);
  }
  char* text = calloc(1, 1 << 20);
  if (!text) exit(1);
  *out_length = fread(text, 1, (1 << 20) - 1, file);
  fclose(file);
  return text;
}

static uint64_t f32_bits(float value) {
  uint32_t bits;
  memcpy(&bits, &value, 4);
  return bits;
}

static float weights_norm[D], weights_w[N * D], weights_b[N], input[D];

/* The pipeline's two launches over views x, norm, y, w, b, out. */
typedef struct launches_t {
  uint64_t norm_workload[1], linear_workload[2];
  hrx_gpu_arg_t norm_args[5], linear_args[6];
  hrx_gpu_launch_t norm, linear;
} launches_t;

static void launches_init(launches_t* l, const hrx_gpu_view_t* v) {
  l->norm_workload[0] = D;
  l->linear_workload[0] = N;
  l->linear_workload[1] = D;
  l->norm_args[0] = hrx_gpu_arg_scalar(D);
  l->norm_args[1] = hrx_gpu_arg_scalar(f32_bits(1e-5f));
  l->norm_args[2] = hrx_gpu_arg_binding(v[0], HRX_GPU_ACCESS_READ);
  l->norm_args[3] = hrx_gpu_arg_binding(v[1], HRX_GPU_ACCESS_READ);
  l->norm_args[4] = hrx_gpu_arg_binding(v[2], HRX_GPU_ACCESS_WRITE);
  l->linear_args[0] = hrx_gpu_arg_scalar(N);
  l->linear_args[1] = hrx_gpu_arg_scalar(D);
  l->linear_args[2] = hrx_gpu_arg_binding(v[3], HRX_GPU_ACCESS_READ);
  l->linear_args[3] = hrx_gpu_arg_binding(v[2], HRX_GPU_ACCESS_READ);
  l->linear_args[4] = hrx_gpu_arg_binding(v[4], HRX_GPU_ACCESS_READ);
  l->linear_args[5] = hrx_gpu_arg_binding(v[5], HRX_GPU_ACCESS_WRITE);
  l->norm = (hrx_gpu_launch_t){l->norm_workload, 1, l->norm_args, 5};
  l->linear = (hrx_gpu_launch_t){l->linear_workload, 2, l->linear_args, 6};
}

/* The raw peer: contracts and graphs of its own over the model session's
 * runtime and kernels (borrowed) and graph 1's regions. */
typedef struct peer_t {
  hrx_exec_runtime_t* runtime;
  hrx_gpu_stream_t* stream;
  hrx_gpu_kernel_t *norm, *linear;
  hrx_exec_kernel_t *norm_contract, *linear_contract;
  launches_t launches;
  hrx_exec_graph_t* replay;  /* the two dispatches */
  hrx_exec_graph_t* request; /* upload, dispatches, download */
  float out[N];
} peer_t;

static hrx_exec_kernel_t* peer_contract(peer_t* p, hrx_gpu_kernel_t* kernel,
                                        const hrx_gpu_launch_t* launch) {
  hrx_exec_binding_contract_t bindings[6];
  size_t count = 0;
  for (size_t a = 0; a < launch->arg_count; ++a) {
    const hrx_gpu_arg_t* arg = &launch->args[a];
    if (arg->kind != HRX_GPU_ARG_BINDING) continue;
    bindings[count++] = (hrx_exec_binding_contract_t){
        .access = arg->access, .min_bytes = arg->view.length};
  }
  hrx_exec_kernel_contract_t contract = {bindings, count,
                                         launch->arg_count - count};
  hrx_exec_kernel_t* out = NULL;
  bench_check(hrx_exec_kernel_create(p->runtime, kernel, &contract, &out),
              "contract");
  return out;
}

/* |regions|: x, norm, y, w, b, out of |session|. */
static void peer_create(peer_t* p, hrx_model_session_t* session,
                        const hrx_model_region_t* regions,
                        hrx_model_kernel_t norm, hrx_model_kernel_t linear) {
  p->runtime = hrx_model_session_runtime(session);
  bench_check(
      hrx_gpu_stream_create(hrx_model_session_device(session), &p->stream),
      "stream");
  bench_check(hrx_model_session_kernel(session, norm, &p->norm), "kernel");
  bench_check(hrx_model_session_kernel(session, linear, &p->linear), "kernel");
  hrx_gpu_view_t views[6];
  for (int i = 0; i < 6; ++i) {
    bench_check(hrx_model_session_region_view(session, regions[i], &views[i]),
                "view");
  }
  launches_init(&p->launches, views);
  p->norm_contract = peer_contract(p, p->norm, &p->launches.norm);
  p->linear_contract = peer_contract(p, p->linear, &p->launches.linear);
  bench_check(hrx_exec_graph_create(p->runtime, &p->replay), "graph");
  bench_check(hrx_exec_graph_create(p->runtime, &p->request), "graph");
  bench_check(hrx_exec_graph_upload(p->request, views[0], input, NULL),
              "upload");
  for (int g = 0; g < 2; ++g) {
    hrx_exec_graph_t* graph = g ? p->request : p->replay;
    bench_check(hrx_exec_graph_dispatch(graph, p->norm_contract,
                                        &p->launches.norm, NULL),
                "record");
    bench_check(hrx_exec_graph_dispatch(graph, p->linear_contract,
                                        &p->launches.linear, NULL),
                "record");
  }
  bench_check(hrx_exec_graph_download(p->request, views[5], p->out, NULL),
              "download");
}

static void peer_destroy(peer_t* p) {
  hrx_exec_graph_destroy(p->request);
  hrx_exec_graph_destroy(p->replay);
  hrx_exec_kernel_destroy(p->linear_contract);
  hrx_exec_kernel_destroy(p->norm_contract);
  hrx_gpu_stream_destroy(p->stream);
}

static void peer_submit(hrx_exec_graph_t* graph) {
  hrx_exec_completion_t* completion = NULL;
  bench_check(hrx_exec_graph_submit(graph, &completion), "submit");
  bench_check(hrx_exec_completion_wait(completion, HRX_TIMEOUT_INFINITE),
              "wait");
  hrx_exec_completion_release(completion);
}

static void run_peer_replay(void* context) {
  peer_submit(((peer_t*)context)->replay);
}

static void run_peer_direct(void* context) {
  peer_t* p = context;
  bench_check(hrx_gpu_stream_dispatch(p->stream, p->norm, &p->launches.norm),
              "dispatch");
  bench_check(
      hrx_gpu_stream_dispatch(p->stream, p->linear, &p->launches.linear),
      "dispatch");
  bench_check(hrx_gpu_stream_synchronize(p->stream, HRX_TIMEOUT_INFINITE),
              "synchronize");
}

static float request_out[N];

static void run_peer_request(void* context) {
  peer_t* p = context;
  peer_submit(p->request);
  memcpy(request_out, p->out, sizeof(request_out));
}

/* The model side: one session, graph 1 for replay, a one-slot prepared
 * model for requests. */
typedef struct model_t {
  hrx_model_session_t* session;
  hrx_model_kernel_t norm, linear;
  hrx_model_region_t weights[3]; /* norm, w, b */
  hrx_model_region_t x, y, out;  /* graph 1's */
  hrx_model_prepared_t* prepared;
} model_t;

static void model_record(model_t* m, uint64_t key, hrx_model_region_t* x,
                         hrx_model_region_t* y, hrx_model_region_t* out) {
  bench_check(hrx_model_session_allocate(m->session, D * 4,
                                         HRX_MODEL_PLACEMENT_DEVICE, x),
              "allocate");
  bench_check(hrx_model_session_allocate(m->session, D * 4,
                                         HRX_MODEL_PLACEMENT_DEVICE, y),
              "allocate");
  bench_check(hrx_model_session_allocate(m->session, N * 4,
                                         HRX_MODEL_PLACEMENT_COHERENT, out),
              "allocate");
  uint64_t norm_workload[] = {D}, linear_workload[] = {N, D};
  hrx_model_arg_t norm_args[] = {
      hrx_model_arg_scalar(D),
      hrx_model_arg_scalar(f32_bits(1e-5f)),
      hrx_model_arg_region(*x, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(m->weights[0], HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(*y, HRX_GPU_ACCESS_WRITE),
  };
  hrx_model_arg_t linear_args[] = {
      hrx_model_arg_scalar(N),
      hrx_model_arg_scalar(D),
      hrx_model_arg_region(m->weights[1], HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(*y, HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(m->weights[2], HRX_GPU_ACCESS_READ),
      hrx_model_arg_region(*out, HRX_GPU_ACCESS_WRITE),
  };
  hrx_model_dispatch_t dispatches[] = {
      {m->norm, norm_workload, 1, norm_args, 5},
      {m->linear, linear_workload, 2, linear_args, 6},
  };
  bench_check(hrx_model_session_record(m->session, key, dispatches, 2),
              "record");
}

static hrx_status_t model_slot_factory(void* user,
                                       hrx_model_session_t* session,
                                       uint32_t slot,
                                       hrx_model_slot_graph_t* out) {
  (void)session;
  model_t* m = user;
  hrx_model_region_t x, y, o;
  model_record(m, 100 + slot, &x, &y, &o);
  *out = (hrx_model_slot_graph_t){
      .graph = 100 + slot, .input_count = 1, .output_count = 1};
  out->inputs[0] = (hrx_model_io_t){{x, 0, 0, HRX_GPU_ACCESS_WRITE},
                                    {HRX_MODEL_DTYPE_F32, 1, {D}, {0}}};
  out->outputs[0] = (hrx_model_io_t){{o, 0, 0, HRX_GPU_ACCESS_READ},
                                     {HRX_MODEL_DTYPE_F32, 1, {N}, {0}}};
  return HRX_OK;
}

static void model_create(model_t* m, hrx_gpu_device_t* device,
                         char* norm_text, size_t norm_length,
                         char* linear_text, size_t linear_length) {
  bench_check(hrx_model_session_create(device, NULL, hrx_allocator_system(),
                                       &m->session),
              "session");
  hrx_model_source_t sources[] = {
      {norm_text, norm_length, "rms_norm.loom", "rms_norm"},
      {linear_text, linear_length, "linear_f32.loom", "linear_f32"},
  };
  hrx_model_kernel_t kernels[2];
  bench_check(hrx_model_session_compile(m->session, sources, 2, kernels),
              "compile");
  m->norm = kernels[0];
  m->linear = kernels[1];
  hrx_model_weight_t weights[] = {{weights_norm, sizeof(weights_norm)},
                                  {weights_w, sizeof(weights_w)},
                                  {weights_b, sizeof(weights_b)}};
  bench_check(hrx_model_session_load(m->session, weights, 3, m->weights),
              "load");
  /* Graph 1's regions are the peer's too. */
  model_record(m, 1, &m->x, &m->y, &m->out);
  bench_check(hrx_model_prepare(m->session, 1, model_slot_factory, m,
                                &m->prepared),
              "prepare");
}

static void run_model_replay(void* context) {
  model_t* m = context;
  bench_check(hrx_model_session_replay(m->session, 1, HRX_TIMEOUT_INFINITE),
              "replay");
}

static void run_model_request(void* context) {
  model_t* m = context;
  hrx_model_slot_t* slot = NULL;
  bench_check(hrx_model_prepared_try_acquire(m->prepared, &slot), "acquire");
  hrx_model_tensor_t* out = NULL;
  bench_check(hrx_model_slot_submit_host(slot, input, sizeof(input), &out),
              "submit");
  bench_check(hrx_model_tensor_read(out, request_out, sizeof(request_out),
                                    HRX_TIMEOUT_INFINITE),
              "read");
  hrx_model_tensor_release(out);
}

static int compare_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return (x > y) - (x < y);
}

static double median_us(uint64_t* samples) {
  qsort(samples, SAMPLES, sizeof(uint64_t), compare_u64);
  return samples[SAMPLES / 2] / 1e3;
}

int main(int argc, char** argv) {
  uint32_t seed = 1;
  float* all[] = {weights_norm, weights_w, weights_b, input};
  size_t counts[] = {D, N * D, N, D};
  for (int a = 0; a < 4; ++a) {
    for (size_t i = 0; i < counts[a]; ++i) {
      seed = seed * 1664525u + 1013904223u;
      all[a][i] = (float)(seed >> 8) / (float)(1u << 23) - 1.0f;
    }
  }
  hrx_gpu_device_t* device = NULL;
  uint32_t index = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 0;
  bench_check(hrx_gpu_device_open(index, hrx_allocator_system(), &device),
              "device");
  size_t norm_length = 0, linear_length = 0;
  char* norm_text = read_kernel("rms_norm", &norm_length);
  char* linear_text = read_kernel("linear_f32", &linear_length);
  model_t model = {0};
  model_create(&model, device, norm_text, norm_length, linear_text,
               linear_length);
  peer_t peer = {0};
  hrx_model_region_t regions[6] = {model.x, model.weights[0], model.y,
                                   model.weights[1], model.weights[2],
                                   model.out};
  peer_create(&peer, model.session, regions, model.norm, model.linear);
  printf("model: %s, rms_norm(%d) -> linear(%dx%d), median of %d\n",
         hrx_gpu_device_properties(device)->profile_target, D, N, D, SAMPLES);

  static uint64_t replay[SAMPLES], peer_replay[SAMPLES], direct[SAMPLES];
  static uint64_t request[SAMPLES], peer_request[SAMPLES];
  /* Which side goes first alternates: a queue just woken by the previous
   * sample favours whoever follows it. */
  for (int i = 0; i < SAMPLES; ++i) {
    bool model_first = i % 2 == 0;
    if (model_first) replay[i] = bench_median_ns(run_model_replay, &model, 1);
    peer_replay[i] = bench_median_ns(run_peer_replay, &peer, 1);
    if (!model_first) replay[i] = bench_median_ns(run_model_replay, &model, 1);
    direct[i] = bench_median_ns(run_peer_direct, &peer, 1);
    if (model_first) {
      request[i] = bench_median_ns(run_model_request, &model, 1);
    }
    peer_request[i] = bench_median_ns(run_peer_request, &peer, 1);
    if (!model_first) {
      request[i] = bench_median_ns(run_model_request, &model, 1);
    }
  }
  double r = median_us(replay), pr = median_us(peer_replay);
  double d = median_us(direct);
  double q = median_us(request), pq = median_us(peer_request);
  printf("1. replay: model session %.1f us, raw exec graph %.1f us, "
         "model/exec %.3fx (goal <= 1.05x); raw stream direct %.1f us, "
         "model replay/direct %.3fx\n",
         r, pr, r / pr, d, r / d);
  printf("2. request (acquire, submit, readback): prepared model %.1f us, "
         "raw exec upload+graph+download %.1f us, model/exec %.3fx "
         "(goal <= 1.05x)\n",
         q, pq, q / pq);

  peer_destroy(&peer);
  hrx_model_prepared_destroy(model.prepared);
  hrx_model_session_destroy(model.session);
  free(linear_text);
  free(norm_text);
  hrx_gpu_device_release(device);
  return 0;
}
