/* bench/verify: SHA-256 verification throughput (hrx_sha256_file, the path
 * every bundle and kernel-cache check takes) against coreutils' sha256sum
 * on the same file in the same run. The file (512 MiB by default) is
 * written once and read from the page cache by both. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

typedef struct verify_ctx_t {
  const char* path;
  hrx_sha256_digest_t digest;
  char peer_hex[HRX_SHA256_HEX_SIZE];
} verify_ctx_t;

static void run_hrx(void* context) {
  verify_ctx_t* c = context;
  bench_check(hrx_sha256_file(c->path, &c->digest), "sha256");
}

static void run_sha256sum(void* context) {
  verify_ctx_t* c = context;
  char command[4200];
  snprintf(command, sizeof(command), "sha256sum '%s'", c->path);
  FILE* pipe = popen(command, "r");
  if (!pipe || fread(c->peer_hex, 1, 64, pipe) != 64) {
    fprintf(stderr, "verify: sha256sum failed\n");
    exit(1);
  }
  c->peer_hex[64] = '\0';
  pclose(pipe);
}

int main(int argc, char** argv) {
  size_t mib = argc > 1 ? (size_t)atoi(argv[1]) : 512;
  const char* tmp = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof(path), "%s/hrx-verify-XXXXXX", tmp ? tmp : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0) return 1;
  static uint8_t block[1 << 20];
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < sizeof(block); i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    memcpy(block + i, &x, 8);
  }
  for (size_t m = 0; m < mib; ++m) {
    if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block)) return 1;
  }
  close(fd);
  verify_ctx_t c = {.path = path};
  run_hrx(&c); /* warm the page cache */
  double hrx_ns = (double)bench_median_ns(run_hrx, &c, 3);
  double peer_ns = (double)bench_median_ns(run_sha256sum, &c, 3);
  char hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&c.digest, hex);
  unlink(path);
  if (strcmp(hex, c.peer_hex) != 0) {
    fprintf(stderr, "verify: digests differ (%s vs %s)\n", hex, c.peer_hex);
    return 1;
  }
  double bytes = (double)mib * (1 << 20);
  printf("verify: %zu MiB, median of 3: hrx_sha256_file %.0f MB/s, "
         "sha256sum %.0f MB/s, ratio %.2fx\n",
         mib, bytes / hrx_ns * 1e3, bytes / peer_ns * 1e3, peer_ns / hrx_ns);
  return 0;
}
