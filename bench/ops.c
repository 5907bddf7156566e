/* bench/ops: TensorOps and image ops against memcpy bandwidth and numpy in
 * the same run.
 *
 * Tensor half (this file): a decode step's projections, linear 1x4096 by
 * 4096x4096 and by 11008x4096 bf16 (bf16 out), and a gather of 64 rows of
 * 4096 bf16 from a 32768-row table. Each is timed per request
 * (hrx_model_tensor_ops_*, wait for the tensor, release it): the median of
 * SAMPLES runs after one warm-up call that builds the plan. Weight traffic
 * is the bytes of weights (or gathered rows) read per request; it is
 * reported in GB/s and as a fraction of the bandwidth of a 256 MiB libc
 * memcpy (bytes copied per second, one thread) measured in this run. The
 * numpy peer (bench/ops_peer.py, found next to HRX_MODEL_REFERENCES)
 * times numpy's best (f32 sgemv on pre-widened weights), a bf16-resident
 * numpy step (widen, then sgemv) and table[indices], and writes numpy's
 * bit-exact answers, which the device's must equal. The image half
 * (ops_image.c) follows. The device is HRX_BENCH_DEVICE's index (default
 * 0, the host). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hrx/model.h"
#include "ops_image.h"

#define K 4096
#define TABLE_ROWS 32768
#define GATHER_ROWS 64
#define SAMPLES 9
#define COPY_BYTES (256u << 20)

static const uint64_t linear_rows[] = {4096, 11008};
#define LINEARS 2

/* Pseudo-random bf16 of magnitude 2^-6 .. 2^3 for element |index|;
 * bench/ops_peer.py computes the same values. */
static uint16_t bench_bf16(uint32_t index, uint32_t salt) {
  uint32_t h = index * 2654435761u + salt;
  h ^= h >> 15;
  h *= 2246822519u;
  h ^= h >> 13;
  return (uint16_t)(((h & 1u) << 15) | ((121u + (h >> 1) % 9u) << 7) |
                    ((h >> 5) & 0x7fu));
}

/* |count| hashed bf16 values loaded as one weight region. */
static hrx_model_region_t bench_weights(hrx_model_session_t* session,
                                        uint64_t count, uint32_t salt) {
  uint16_t* data = malloc(count * 2);
  if (!data)
    bench_check(hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED, "host weights"),
                "weights");
  for (uint64_t i = 0; i < count; ++i) data[i] = bench_bf16((uint32_t)i, salt);
  hrx_model_region_t region;
  bench_check(hrx_model_session_weight(session, data, count * 2, &region),
              "loading weights");
  free(data);
  return region;
}

typedef struct copy_bench_t {
  void* src;
  void* dst;
} copy_bench_t;

static void copy_once(void* context) {
  copy_bench_t* c = context;
  memcpy(c->dst, c->src, COPY_BYTES);
}

/* libc memcpy bandwidth in bytes copied per second. */
static double memcpy_bandwidth(void) {
  copy_bench_t c = {malloc(COPY_BYTES), malloc(COPY_BYTES)};
  if (!c.src || !c.dst) return 0;
  memset(c.src, 1, COPY_BYTES);
  memset(c.dst, 2, COPY_BYTES);
  uint64_t ns = bench_median_ns(copy_once, &c, 5);
  free(c.src);
  free(c.dst);
  return ns ? COPY_BYTES / (ns * 1e-9) : 0;
}

typedef struct tensor_bench_t {
  hrx_model_tensor_ops_t* ops;
  hrx_model_tensor_desc_t input_desc;
  uint16_t x[K];
  hrx_model_io_t weights;
  uint32_t indices[GATHER_ROWS];
  hrx_model_tensor_t* last; /* the warm-up's result, read for checking */
} tensor_bench_t;

static void linear_once(void* context) {
  tensor_bench_t* b = context;
  hrx_model_tensor_t* t = NULL;
  bench_check(
      hrx_model_tensor_ops_linear(b->ops, &b->input_desc, b->x, &b->weights,
                                  HRX_MODEL_DTYPE_BF16, &t),
      "linear");
  bench_check(hrx_model_tensor_wait(t, HRX_TIMEOUT_INFINITE), "linear wait");
  hrx_model_tensor_release(t);
}

static void gather_once(void* context) {
  tensor_bench_t* b = context;
  hrx_model_tensor_t* t = NULL;
  bench_check(hrx_model_tensor_ops_gather_rows(b->ops, &b->weights, b->indices,
                                               GATHER_ROWS, &t),
              "gather");
  bench_check(hrx_model_tensor_wait(t, HRX_TIMEOUT_INFINITE), "gather wait");
  hrx_model_tensor_release(t);
}

/* The peer's numbers. */
typedef struct peer_t {
  char dir[64];
  int made; /* dir exists */
  double f32_s[LINEARS], widen_s[LINEARS], gather_s;
  int ran;
} peer_t;

void bench_ops_open(hrx_gpu_device_t** out_device,
                    hrx_model_session_t** out_session) {
  const char* index_text = getenv("HRX_BENCH_DEVICE");
  size_t index = index_text ? (size_t)strtoul(index_text, NULL, 10) : 0;
  bench_check(hrx_gpu_device_open(index, hrx_allocator_system(), out_device),
              "device");
  bench_check(hrx_model_session_create(*out_device, NULL,
                                       hrx_allocator_system(), out_session),
              "session");
}

void bench_ops_close(hrx_gpu_device_t* device, hrx_model_session_t* session) {
  hrx_model_session_destroy(session);
  hrx_gpu_device_release(device);
}

int bench_ops_write_file(const char* dir, const char* name, const void* data,
                         size_t bytes) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE* f = fopen(path, "wb");
  if (!f) return -1;
  size_t done = fwrite(data, 1, bytes, f);
  return fclose(f) == 0 && done == bytes ? 0 : -1;
}

/* Whether |dir|/|name| holds exactly |bytes| bytes equal to |want|. */
static int same_as_file(const char* dir, const char* name, const void* want,
                        size_t bytes) {
  char path[256];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  FILE* f = fopen(path, "rb");
  if (!f) return 0;
  uint8_t* got = malloc(bytes + 1);
  size_t read = got ? fread(got, 1, bytes + 1, f) : 0;
  fclose(f);
  int same = read == bytes && memcmp(got, want, bytes) == 0;
  free(got);
  return same;
}

/* Runs bench/ops_peer.py over the bench's shapes and indices. */
static void run_peer(peer_t* peer, const uint32_t* indices) {
  const char* references = getenv("HRX_MODEL_REFERENCES");
  snprintf(peer->dir, sizeof(peer->dir), "/tmp/hrx-ops-XXXXXX");
  peer->made = references && mkdtemp(peer->dir);
  if (!peer->made ||
      bench_ops_write_file(peer->dir, "indices.bin", indices,
                           GATHER_ROWS * sizeof(*indices)) != 0) {
    fprintf(stderr,
            "ops: the numpy peer cannot run (HRX_MODEL_REFERENCES "
            "unset or no temporary directory)\n");
    return;
  }
  char command[4096];
  /* The python3 with numpy (bench/meson.build); PATH's may lack it. */
  const char* python = getenv("HRX_PYTHON");
  if (!python) python = "python3";
  snprintf(command, sizeof(command),
           "'%s' '%s/../../bench/ops_peer.py' '%s' %d %d %llu %llu",
           python, references, peer->dir, SAMPLES, K,
           (unsigned long long)linear_rows[0],
           (unsigned long long)linear_rows[1]);
  FILE* out = popen(command, "r");
  if (!out) return;
  char line[256];
  int seen = 0;
  while (fgets(line, sizeof(line), out)) {
    unsigned long long n = 0;
    double f32 = 0, widen = 0;
    if (sscanf(line, "linear n=%llu f32_s=%lf widen_s=%lf", &n, &f32, &widen) ==
        3) {
      for (int i = 0; i < LINEARS; ++i) {
        if (linear_rows[i] != n) continue;
        peer->f32_s[i] = f32;
        peer->widen_s[i] = widen;
        seen++;
      }
    } else if (sscanf(line, "gather s=%lf", &peer->gather_s) == 1) {
      seen++;
    }
  }
  peer->ran = pclose(out) == 0 && seen == LINEARS + 1;
  if (!peer->ran) fprintf(stderr, "ops: the numpy peer failed\n");
}

static void remove_peer_dir(const peer_t* peer) {
  if (!peer->made) return;
  char command[128];
  snprintf(command, sizeof(command), "rm -rf '%s'", peer->dir);
  if (system(command) != 0) {
    fprintf(stderr, "ops: could not remove %s\n", peer->dir);
  }
}

/* Reads |t| (|bytes|) and says whether the peer's |file| equals it. */
static const char* check_against(const peer_t* peer, hrx_model_tensor_t* t,
                                 uint64_t bytes, const char* file) {
  if (!peer->ran) return "no peer";
  void* got = malloc(bytes);
  if (!got) return "no memory";
  bench_check(hrx_model_tensor_read(t, got, bytes, HRX_TIMEOUT_INFINITE),
              "reading a result");
  int same = same_as_file(peer->dir, file, got, bytes);
  free(got);
  return same ? "yes" : "NO";
}

static int bench_ops_tensor(void) {
  hrx_gpu_device_t* device = NULL;
  hrx_model_session_t* session = NULL;
  bench_ops_open(&device, &session);
  tensor_bench_t* b = calloc(1, sizeof(*b));
  if (!b) return 1;
  bench_check(hrx_model_tensor_ops_create(session, NULL, &b->ops),
              "tensor ops");
  b->input_desc =
      (hrx_model_tensor_desc_t){HRX_MODEL_DTYPE_BF16, 2, {1, K}, {0}};
  for (uint32_t i = 0; i < K; ++i) b->x[i] = bench_bf16(i, 1);
  uint32_t seed = 5;
  for (int i = 0; i < GATHER_ROWS; ++i) {
    seed = seed * 1664525u + 1013904223u;
    b->indices[i] = (seed >> 8) % TABLE_ROWS;
  }
  peer_t peer = {0};
  run_peer(&peer, b->indices);

  double copy = memcpy_bandwidth();
  printf("ops: memcpy %u MiB: %.2f GB/s (libc, one thread)\n", COPY_BYTES >> 20,
         copy * 1e-9);
  for (int i = 0; i < LINEARS; ++i) {
    uint64_t n = linear_rows[i];
    b->weights =
        (hrx_model_io_t){{bench_weights(session, n * K, 2 + (uint32_t)i), 0, 0,
                          HRX_GPU_ACCESS_READ},
                         {HRX_MODEL_DTYPE_BF16, 2, {n, K}, {0}}};
    bench_check(
        hrx_model_tensor_ops_linear(b->ops, &b->input_desc, b->x, &b->weights,
                                    HRX_MODEL_DTYPE_BF16, &b->last),
        "linear warm-up");
    const char* exact = check_against(
        &peer, b->last, n * 2, i == 0 ? "linear_4096.bin" : "linear_11008.bin");
    hrx_model_tensor_release(b->last);
    uint64_t ns = bench_median_ns(linear_once, b, SAMPLES);
    double rate = (double)(n * K * 2) / (ns * 1e-9);
    printf(
        "ops: linear 1x%d by %llux%d bf16: %.3f ms, %.2f GB/s of weights "
        "= %.3f of memcpy; numpy f32 sgemv %.3f ms, numpy bf16 "
        "(widen + sgemv) %.3f ms; bit-exact with numpy: %s\n",
        K, (unsigned long long)n, K, ns * 1e-6, rate * 1e-9,
        copy > 0 ? rate / copy : 0.0, peer.f32_s[i] * 1e3,
        peer.widen_s[i] * 1e3, exact);
  }
  b->weights =
      (hrx_model_io_t){{bench_weights(session, (uint64_t)TABLE_ROWS * K, 4), 0,
                        0, HRX_GPU_ACCESS_READ},
                       {HRX_MODEL_DTYPE_BF16, 2, {TABLE_ROWS, K}, {0}}};
  bench_check(hrx_model_tensor_ops_gather_rows(b->ops, &b->weights, b->indices,
                                               GATHER_ROWS, &b->last),
              "gather warm-up");
  const char* exact =
      check_against(&peer, b->last, GATHER_ROWS * K * 2, "gather.bin");
  hrx_model_tensor_release(b->last);
  uint64_t ns = bench_median_ns(gather_once, b, SAMPLES);
  double rate = (double)(GATHER_ROWS * K * 2) / (ns * 1e-9);
  printf(
      "ops: gather %d rows of %d bf16 from %d: %.3f ms, %.2f GB/s of "
      "rows = %.3f of memcpy; numpy table[indices] %.3f ms; bit-exact "
      "with numpy: %s\n",
      GATHER_ROWS, K, TABLE_ROWS, ns * 1e-6, rate * 1e-9,
      copy > 0 ? rate / copy : 0.0, peer.gather_s * 1e3, exact);
  remove_peer_dir(&peer);
  hrx_model_tensor_ops_destroy(b->ops);
  free(b);
  bench_ops_close(device, session);
  return 0;
}

int main(void) {
  int status = bench_ops_tensor();
  return status ? status : bench_ops_image();
}
