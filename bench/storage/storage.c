/* Storage throughput: 1 MiB reads of one large file, sequential and in
 * random order, through an HRX storage session (buffered, and direct where
 * the filesystem supports it) next to a pread loop and an mmap+memcpy loop
 * in the same run.
 *
 * Usage: storage [MiB (2048)] [directory (.)] [queue depth (16)]
 *                [wait|sqpoll (wait)]
 *
 * "cold" drops the file's pages with posix_fadvise(POSIX_FADV_DONTNEED)
 * before each pass (no privileges needed; the kernel may keep pages that
 * are still mapped or dirty, so the file is synced first); "warm" reads
 * what the previous pass left in the page cache. Direct reads bypass the
 * cache either way. Each pass folds the first word of every block into a
 * checksum, and the checksums must agree across methods.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_util.h"
#include "hrx/storage.h"

#define BLOCK (1u << 20)

typedef struct bench_file_t {
  const char* path;
  uint64_t blocks;
  const uint64_t* order; /* block indices in read order */
  uint8_t* buffer;       /* BLOCK bytes, the copy target of pread/mmap */
} bench_file_t;

static void die(const char* what) {
  perror(what);
  exit(1);
}

static void drop_cache(const char* path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0 || fdatasync(fd) != 0 ||
      posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) {
    die("dropping the page cache");
  }
  close(fd);
}

static uint64_t fold(uint64_t sum, const void* block) {
  uint64_t word;
  memcpy(&word, block, sizeof(word));
  return sum * 31 + word;
}

static uint64_t run_pread(const bench_file_t* file) {
  int fd = open(file->path, O_RDONLY);
  if (fd < 0) die("open");
  uint64_t sum = 0;
  for (uint64_t i = 0; i < file->blocks; ++i) {
    if (pread(fd, file->buffer, BLOCK, (off_t)(file->order[i] * BLOCK)) !=
        BLOCK) {
      die("pread");
    }
    sum = fold(sum, file->buffer);
  }
  close(fd);
  return sum;
}

static uint64_t run_mmap(const bench_file_t* file) {
  int fd = open(file->path, O_RDONLY);
  if (fd < 0) die("open");
  size_t size = (size_t)file->blocks * BLOCK;
  const uint8_t* map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) die("mmap");
  uint64_t sum = 0;
  for (uint64_t i = 0; i < file->blocks; ++i) {
    memcpy(file->buffer, map + file->order[i] * BLOCK, BLOCK);
    sum = fold(sum, file->buffer);
  }
  munmap((void*)map, size);
  close(fd);
  return sum;
}

/* Keeps |depth| reads in flight; the oldest is waited for, folded and
 * released before the next read is issued in its place. */
static uint64_t run_hrx(const bench_file_t* file,
                        hrx_storage_session_t* session, uint32_t id,
                        uint32_t depth) {
  hrx_storage_ticket_t** ring = calloc(depth, sizeof(*ring));
  if (!ring) die("calloc");
  uint64_t sum = 0;
  for (uint64_t i = 0; i < file->blocks + depth; ++i) {
    hrx_storage_ticket_t** slot = &ring[i % depth];
    if (*slot) {
      const void* data = NULL;
      uint64_t length = 0;
      bench_check(hrx_storage_ticket_wait(*slot, UINT64_MAX, &data, &length),
                  "wait");
      sum = fold(sum, data);
      hrx_storage_ticket_release(*slot);
      *slot = NULL;
    }
    if (i < file->blocks) {
      bench_check(hrx_storage_session_read(session, id,
                                           file->order[i] * BLOCK, BLOCK,
                                           slot),
                  "read");
    }
  }
  free(ring);
  return sum;
}

static hrx_storage_session_t* open_session(const char* path,
                                           hrx_storage_io_mode_t mode,
                                           hrx_storage_progress_t progress,
                                           uint32_t depth, uint32_t* out_id) {
  hrx_storage_options_t options = HRX_STRUCT_INIT(hrx_storage_options_t);
  bench_check(hrx_storage_options_default(&options), "options");
  options.io_mode = mode;
  options.progress = progress;
  options.slot_count = depth;
  /* Direct reads of an aligned block stay one block long. */
  options.slot_bytes = BLOCK;
  hrx_storage_session_t* session = NULL;
  bench_check(hrx_storage_session_create(&options, hrx_allocator_system(),
                                         &session),
              "session");
  hrx_status_t status = hrx_storage_session_open_file(session, path, out_id);
  if (status != HRX_OK) {
    char text[512];
    hrx_status_format(status, text, sizeof(text));
    printf("  (direct I/O unavailable: %s)\n", text);
    hrx_status_free(status);
    hrx_storage_session_destroy(session);
    return NULL;
  }
  return session;
}

static void create_file(const char* path, uint64_t blocks) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) die("create");
  uint8_t* block = malloc(BLOCK);
  if (!block) die("malloc");
  for (uint64_t i = 0; i < blocks; ++i) {
    for (size_t j = 0; j < BLOCK; j += 8) {
      uint64_t word = i * 0x9e3779b97f4a7c15ull + j;
      memcpy(block + j, &word, 8);
    }
    if (write(fd, block, BLOCK) != BLOCK) die("write");
  }
  free(block);
  if (fsync(fd) != 0) die("fsync");
  close(fd);
}

static double mean_us(const hrx_storage_interval_t* now,
                      const hrx_storage_interval_t* then) {
  uint64_t count = now->count - then->count;
  return count ? (double)(now->total_ns - then->total_ns) / count / 1e3 : 0;
}

/* Where a buffered read's time went in the pass just run, from the
 * session's own counters: accepted -> submitted (waiting for the service
 * thread), submitted -> reaped (the kernel's copy plus the wake-up). */
static void print_intervals(hrx_storage_session_t* session,
                            const hrx_storage_statistics_t* before) {
  if (!session) return;
  hrx_storage_statistics_t now = HRX_STRUCT_INIT(hrx_storage_statistics_t);
  bench_check(hrx_storage_session_statistics(session, &now), "statistics");
  printf("           hrx buffered per read: queue %.1f us, completion %.1f "
         "us, service %.1f us\n",
         mean_us(&now.queue, &before->queue),
         mean_us(&now.completion, &before->completion),
         mean_us(&now.service, &before->service));
}

typedef enum method_e {
  PREAD,
  MMAP,
  HRX_BUFFERED,
  HRX_DIRECT,
  METHODS,
} method_t;
static const char* const kMethodNames[METHODS] = {
    "pread", "mmap+memcpy", "hrx buffered", "hrx direct"};

int main(int argc, char** argv) {
  uint64_t mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 2048;
  const char* dir = argc > 2 ? argv[2] : ".";
  uint32_t depth = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 16;
  hrx_storage_progress_t progress = argc > 4 && !strcmp(argv[4], "sqpoll")
                                        ? HRX_STORAGE_PROGRESS_SQPOLL
                                        : HRX_STORAGE_PROGRESS_WAIT;
  if (mib == 0 || depth == 0 || depth > HRX_STORAGE_MAX_SLOTS) {
    fprintf(stderr, "usage: storage [MiB] [directory] [depth 1..64]\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof(path), "%s/hrx-bench-storage.bin", dir);
  bench_file_t file = {.path = path, .blocks = mib};
  printf("storage: %llu x 1 MiB reads of %s, queue depth %u, %s\n",
         (unsigned long long)mib, path, depth,
         progress == HRX_STORAGE_PROGRESS_SQPOLL ? "sqpoll" : "wait");
  create_file(path, mib);
  uint64_t* order = malloc(sizeof(uint64_t) * mib);
  file.buffer = aligned_alloc(4096, BLOCK);
  if (!order || !file.buffer) die("malloc");
  file.order = order;

  uint32_t ids[METHODS] = {0};
  hrx_storage_session_t* sessions[METHODS] = {
      [HRX_BUFFERED] = open_session(path, HRX_STORAGE_IO_BUFFERED, progress,
                                    depth, &ids[HRX_BUFFERED]),
      [HRX_DIRECT] = open_session(path, HRX_STORAGE_IO_DIRECT, progress,
                                  depth, &ids[HRX_DIRECT]),
  };

  for (int random_order = 0; random_order < 2; ++random_order) {
    uint64_t state = 0x853c49e6748fea9bull;
    for (uint64_t i = 0; i < mib; ++i) order[i] = i;
    for (uint64_t i = mib - 1; random_order && i > 0; --i) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      uint64_t j = state % (i + 1), t = order[i];
      order[i] = order[j], order[j] = t;
    }
    for (int warm = 0; warm < 2; ++warm) {
      double rate[METHODS] = {0};
      hrx_storage_statistics_t before =
          HRX_STRUCT_INIT(hrx_storage_statistics_t);
      if (sessions[HRX_BUFFERED]) {
        bench_check(
            hrx_storage_session_statistics(sessions[HRX_BUFFERED], &before),
            "statistics");
      }
      uint64_t reference = 0;
      if (warm) {
        (void)run_pread(&file); /* the cold row ends with direct reads */
      }
      for (int m = 0; m < METHODS; ++m) {
        if ((m == HRX_BUFFERED || m == HRX_DIRECT) && !sessions[m]) continue;
        if (!warm) drop_cache(path);
        uint64_t start = hrx_clock_monotonic_ns();
        uint64_t sum = m == PREAD  ? run_pread(&file)
                       : m == MMAP ? run_mmap(&file)
                                   : run_hrx(&file, sessions[m], ids[m], depth);
        uint64_t ns = hrx_clock_monotonic_ns() - start;
        if (m == PREAD) reference = sum;
        if (sum != reference) {
          fprintf(stderr, "%s read different bytes\n", kMethodNames[m]);
          return 1;
        }
        rate[m] = (double)mib * BLOCK / (double)ns;
      }
      printf("%-10s %-4s", random_order ? "random" : "sequential",
             warm ? "warm" : "cold");
      for (int m = 0; m < METHODS; ++m) {
        printf("  %s %6.2f GB/s", kMethodNames[m], rate[m]);
      }
      printf("  hrx/pread %.2fx\n", rate[HRX_BUFFERED] / rate[PREAD]);
      print_intervals(sessions[HRX_BUFFERED], &before);
    }
  }
  for (int m = 0; m < METHODS; ++m) hrx_storage_session_destroy(sessions[m]);
  free(order);
  free(file.buffer);
  unlink(path);
  return 0;
}
