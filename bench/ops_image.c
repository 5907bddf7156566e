/* bench/ops, image half: 8 affine crops of 224x224 from one resident
 * 1920x1080 RGB8 image, per request (hrx_model_image_affine, wait for the
 * tensor, release), median of SAMPLES runs after one warm-up call that
 * builds the plan. The numpy peer (bench/ops_image_peer.py, running the
 * tests' vectorised float32 reference) times the same crops in the same
 * run, and its bytes are compared with the device's. The device is
 * HRX_BENCH_DEVICE's index (default 0, the host); the peer is found next
 * to HRX_MODEL_REFERENCES (tests/model). */
#include "ops_image.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "hrx/model.h"

#define SRC_W 1920
#define SRC_H 1080
#define CROPS 8
#define SIDE 224
#define SAMPLES 9

typedef struct affine_bench_t {
  hrx_model_image_ops_t* ops;
  hrx_model_image_t* image;
  float maps[CROPS * 6];
} affine_bench_t;

static void affine_once(void* context) {
  affine_bench_t* b = context;
  hrx_model_tensor_t* t = NULL;
  bench_check(
      hrx_model_image_affine(b->ops, b->image, b->maps, CROPS, SIDE, SIDE, &t),
      "affine");
  bench_check(hrx_model_tensor_wait(t, HRX_TIMEOUT_INFINITE), "affine wait");
  hrx_model_tensor_release(t);
}

/* Crops around points spread over the frame, each rotated and scaled
 * differently (as face or object crops are); the last one hangs over the
 * edge, so borders are sampled too. */
static void affine_maps(float* maps) {
  for (int c = 0; c < CROPS; ++c) {
    double angle = 0.15 * c - 0.5, scale = 0.8 + 0.35 * c;
    double cx = 150.0 + 230.0 * c, cy = 140.0 + 110.0 * c;
    double cs = scale * cos(angle), sn = scale * sin(angle);
    float* m = &maps[c * 6];
    /* source = R * (output - centre) + crop centre */
    m[0] = (float)cs;
    m[1] = (float)-sn;
    m[2] = (float)(cx - cs * SIDE / 2 + sn * SIDE / 2);
    m[3] = (float)sn;
    m[4] = (float)cs;
    m[5] = (float)(cy - sn * SIDE / 2 - cs * SIDE / 2);
  }
}

/* Runs the numpy peer over |rgb| and |maps|; its median in ns and whether
 * its bytes equal |want|. Returns -1 when the peer could not run. */
static int affine_peer(const uint8_t* rgb, const float* maps,
                       const uint8_t* want, uint64_t* out_ns,
                       size_t* out_mismatches) {
  const char* references = getenv("HRX_MODEL_REFERENCES");
  if (!references) {
    fprintf(stderr, "ops image: HRX_MODEL_REFERENCES is not set\n");
    return -1;
  }
  char dir[] = "/tmp/hrx-ops-image-XXXXXX";
  if (!mkdtemp(dir)) return -1;
  size_t out_bytes = (size_t)CROPS * SIDE * SIDE * 3;
  int result = -1;
  char command[8192];
  /* The python3 with numpy (bench/meson.build); PATH's may lack it. */
  const char* python = getenv("HRX_PYTHON");
  if (!python) python = "python3";
  snprintf(command, sizeof(command),
           "'%s' '%s/../../bench/ops_image_peer.py' '%s' '%s' %d %d %d %d "
           "%d %d",
           python, references, references, dir, SRC_W, SRC_H, CROPS, SIDE, SIDE,
           SAMPLES);
  FILE* peer = NULL;
  if (bench_ops_write_file(dir, "image.bin", rgb,
                           (size_t)SRC_W * SRC_H * 3) == 0 &&
      bench_ops_write_file(dir, "inverse.bin", maps,
                           CROPS * 6 * sizeof(float)) == 0) {
    peer = popen(command, "r");
  }
  double seconds = -1;
  if (peer) {
    char line[256];
    while (fgets(line, sizeof(line), peer)) {
      sscanf(line, "median_s=%lf", &seconds);
    }
    if (pclose(peer) == 0 && seconds >= 0) result = 0;
  }
  uint8_t* got = malloc(out_bytes);
  char path[4096];
  snprintf(path, sizeof(path), "%s/out.bin", dir);
  FILE* f = result == 0 && got ? fopen(path, "rb") : NULL;
  if (f) {
    size_t read = fread(got, 1, out_bytes, f);
    fclose(f);
    size_t mismatches = read == out_bytes ? 0 : out_bytes;
    for (size_t i = 0; i < read && read == out_bytes; ++i) {
      mismatches += got[i] != want[i];
    }
    *out_mismatches = mismatches;
    *out_ns = (uint64_t)(seconds * 1e9);
  } else {
    result = -1;
  }
  free(got);
  snprintf(command, sizeof(command), "rm -rf '%s'", dir);
  if (system(command) != 0)
    fprintf(stderr, "ops image: could not remove %s\n", dir);
  return result;
}

int bench_ops_image(void) {
  hrx_gpu_device_t* device = NULL;
  hrx_model_session_t* session = NULL;
  bench_ops_open(&device, &session);
  affine_bench_t b = {0};
  bench_check(hrx_model_image_ops_create(session, NULL, &b.ops), "image ops");
  size_t src_bytes = (size_t)SRC_W * SRC_H * 3;
  size_t out_bytes = (size_t)CROPS * SIDE * SIDE * 3;
  uint8_t* rgb = malloc(src_bytes);
  uint8_t* out = malloc(out_bytes);
  if (!rgb || !out) return 1;
  uint32_t seed = 1;
  for (size_t i = 0; i < src_bytes; ++i) {
    seed = seed * 1664525u + 1013904223u;
    rgb[i] = (uint8_t)(seed >> 24);
  }
  uint64_t start = hrx_clock_monotonic_ns();
  bench_check(hrx_model_image_upload(b.ops, rgb, SRC_W, SRC_H, &b.image),
              "upload");
  uint64_t upload_ns = hrx_clock_monotonic_ns() - start;
  affine_maps(b.maps);
  /* Warm-up: builds the plan; its output is checked against the peer. */
  start = hrx_clock_monotonic_ns();
  hrx_model_tensor_t* t = NULL;
  bench_check(
      hrx_model_image_affine(b.ops, b.image, b.maps, CROPS, SIDE, SIDE, &t),
      "affine");
  bench_check(hrx_model_tensor_read(t, out, out_bytes, HRX_TIMEOUT_INFINITE),
              "affine read");
  hrx_model_tensor_release(t);
  uint64_t first_ns = hrx_clock_monotonic_ns() - start;
  uint64_t median = bench_median_ns(affine_once, &b, SAMPLES);
  uint64_t peer_ns = 0;
  size_t mismatches = 0;
  int peer = affine_peer(rgb, b.maps, out, &peer_ns, &mismatches);
  double pixels = (double)CROPS * SIDE * SIDE;
  printf("ops image affine: %d crops of %dx%d from %dx%d RGB8 on %s\n", CROPS,
         SIDE, SIDE, SRC_W, SRC_H,
         hrx_gpu_device_properties(device)->profile_target);
  printf(
      "  upload (once, resident): %.3f ms; first call (plan + run): "
      "%.3f ms\n",
      upload_ns / 1e6, first_ns / 1e6);
  printf("  hrx per request (median of %d): %.3f ms, %.1f Mpixel/s\n", SAMPLES,
         median / 1e6, pixels / (median / 1e9) / 1e6);
  if (peer == 0) {
    printf(
        "  numpy peer (median of %d): %.3f ms; hrx/numpy time %.3f; "
        "bytes differing: %zu of %zu\n",
        SAMPLES, peer_ns / 1e6, (double)median / (double)peer_ns, mismatches,
        out_bytes);
  } else {
    printf("  numpy peer: did not run\n");
  }
  hrx_model_image_release(b.image);
  hrx_model_image_ops_destroy(b.ops);
  bench_ops_close(device, session);
  free(out);
  free(rgb);
  return peer == 0 && mismatches == 0 ? 0 : 1;
}
