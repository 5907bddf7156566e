/* hrx gc [DAYS]: evict kernel cache entries not read for DAYS days and
 * bundles that bundle.json does not pin. Only entries this tool recognises
 * (64-hex-digit directories, their lock files, partial downloads and
 * abandoned temporaries) are touched; unknown folders stay. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hrx/fabric.h"
#include "hrx/fabric/bundle.h"
#include "hrx_cli.h"

/* 1,000,000 days (2,700 years) keeps everything; more is surely a typo,
 * and keeps the cutoff's arithmetic far from overflow. */
#define HRX_GC_MAX_DAYS 1000000u

static bool is_key_prefix(const char* name) {
  for (int i = 0; i < 64; ++i) {
    char c = name[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

/* Removes one entry; a failure is reported and gc goes on. */
static bool remove_entry(const char* path, uint64_t* bytes) {
  uint64_t removed = 0;
  hrx_status_t status = hrx_dir_remove_all(path, &removed);
  *bytes += removed;
  if (status == HRX_OK) return true;
  char text[1024];
  hrx_status_format(status, text, sizeof(text));
  fprintf(stderr, "hrx: gc: %s\n", text);
  hrx_status_free(status);
  return false;
}

typedef struct sweep_t {
  size_t removed, kept, busy;
  uint64_t bytes;
} sweep_t;

/* Takes entry |key|'s lock in |store| without waiting: the same lock that
 * compiles and installs hold while they build, publish or verify it. */
static bool lock_entry(const char* store, const char* key,
                       hrx_file_lock_t* out_lock) {
  char path[4096 + 256];
  snprintf(path, sizeof(path), "%s/%.64s.lock", store, key);
  hrx_status_t status =
      hrx_file_lock_try_acquire(path, HRX_LOCK_EXCLUSIVE, out_lock);
  if (status == HRX_OK) return true;
  if (!hrx_status_is(status, HRX_STATUS_BUSY)) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    fprintf(stderr, "hrx: gc: %s\n", text);
  }
  hrx_status_free(status);
  return false;
}

/* Drops entry |key|'s lock file, then the lock. Holders re-check that the
 * path still names the file they locked (hrx_file_lock_acquire), so the
 * unlink cannot leave two holders. */
static void unlock_and_remove(const char* store, const char* key,
                              hrx_file_lock_t* lock) {
  char path[4096 + 256];
  snprintf(path, sizeof(path), "%s/%.64s.lock", store, key);
  unlink(path);
  hrx_file_lock_release(lock);
}

static bool entry_exists(const char* store, const char* key) {
  char path[4096 + 256];
  snprintf(path, sizeof(path), "%s/%.64s", store, key);
  struct stat info;
  return lstat(path, &info) == 0;
}

/* Sweeps one store: |evict| decides for each 64-hex entry. Abandoned
 * temporaries (a day old) and locks without their entry go too. An entry
 * whose lock is held (a compile or install in progress) is left alone. */
static void sweep(const char* store,
                  bool (*evict)(const char* name, const struct stat* info,
                                const void* context),
                  const void* context, sweep_t* out) {
  DIR* dir = opendir(store);
  if (!dir) return;
  for (struct dirent* e; (e = readdir(dir));) {
    char path[4096 + 256];
    snprintf(path, sizeof(path), "%s/%s", store, e->d_name);
    struct stat info;
    if (lstat(path, &info) != 0) continue;
    const char* suffix = is_key_prefix(e->d_name) ? e->d_name + 64 : NULL;
    hrx_file_lock_t lock = {.fd = -1};
    if (suffix && !*suffix && S_ISDIR(info.st_mode)) {
      if (!evict(e->d_name, &info, context)) {
        out->kept++;
      } else if (!lock_entry(store, e->d_name, &lock)) {
        out->busy++;
      } else {
        if (remove_entry(path, &out->bytes)) out->removed++;
        unlock_and_remove(store, e->d_name, &lock);
      }
    } else if (suffix && !strcmp(suffix, ".partial") &&
               S_ISREG(info.st_mode)) {
      /* A download kept for resuming goes with the entry it would be,
       * unless that download is running now. */
      char key[65];
      snprintf(key, sizeof(key), "%.64s", e->d_name);
      if (evict(key, &info, context) && lock_entry(store, key, &lock)) {
        if (unlink(path) == 0) out->bytes += (uint64_t)info.st_size;
        hrx_file_lock_release(&lock);
      }
    } else if (!strncmp(e->d_name, ".tmp-", 5) && S_ISDIR(info.st_mode) &&
               info.st_mtime < time(NULL) - 86400) {
      remove_entry(path, &out->bytes); /* abandoned by a killed process */
    } else if (suffix && !strcmp(suffix, ".lock") && S_ISREG(info.st_mode) &&
               !entry_exists(store, e->d_name) &&
               lock_entry(store, e->d_name, &lock)) {
      /* Unused and still without its entry once held: nobody is
       * building that entry, so the lock file can go. */
      if (!entry_exists(store, e->d_name)) {
        unlock_and_remove(store, e->d_name, &lock);
      } else {
        hrx_file_lock_release(&lock);
      }
    }
  }
  closedir(dir);
}

static void print_busy(const char* what, size_t count) {
  if (count) {
    printf("hrx gc: kept %zu %s%s in use by another process\n", count, what,
           count == 1 ? "" : "s");
  }
}

static bool kernel_unread(const char* name, const struct stat* info,
                          const void* context) {
  (void)name;
  return info->st_atime < *(const time_t*)context;
}

static bool bundle_unpinned(const char* name, const struct stat* info,
                            const void* context) {
  (void)info;
  return strcmp(name, (const char*)context) != 0;
}

int hrx_cmd_gc(int argc, char** argv) {
  uint64_t days = 30;
  if (argc > 2) return hrx_cli_usage_error("gc", "takes at most DAYS");
  if (argc == 2) {
    hrx_status_t status =
        hrx_parse_u64(argv[1], 0, HRX_GC_MAX_DAYS, "DAYS", &days);
    if (status != HRX_OK) return hrx_cli_usage_status("gc", status);
  }
  hrx_allocator_t allocator = hrx_allocator_system();
  char* root = NULL;
  hrx_status_t status = hrx_path_cache_root(allocator, &root, NULL);
  if (status != HRX_OK) return hrx_cli_fail("gc", status);
  char kernels[4096];
  snprintf(kernels, sizeof(kernels), "%s/kernels", root);
  time_t cutoff = time(NULL) - (time_t)days * 86400;
  sweep_t swept = {0};
  sweep(kernels, kernel_unread, &cutoff, &swept);
  printf("hrx gc: removed %zu kernel%s (%llu bytes) unread for %llu day%s, "
         "kept %zu\n", swept.removed, swept.removed == 1 ? "" : "s",
         (unsigned long long)swept.bytes, (unsigned long long)days,
         days == 1 ? "" : "s", swept.kept);
  print_busy("kernel", swept.busy);

  /* Bundles: only with a readable pin, never by guesswork. */
  hrx_fabric_bundle_manifest_t* manifest = NULL;
  status = hrx_fabric_bundle_manifest_load_pinned(allocator, &manifest);
  if (status != HRX_OK) {
    char text[1024];
    hrx_status_format(status, text, sizeof(text));
    printf("hrx gc: bundles kept (no pinned bundle.json: %s)\n", text);
    hrx_status_free(status);
  } else {
    char pinned[HRX_SHA256_HEX_SIZE];
    hrx_sha256_digest_format(&manifest->archive_sha256, pinned);
    char bundles[4096];
    snprintf(bundles, sizeof(bundles), "%s/bundles", root);
    sweep_t bundle_sweep = {0};
    sweep(bundles, bundle_unpinned, pinned, &bundle_sweep);
    printf("hrx gc: removed %zu unpinned bundle%s (%llu bytes), kept %zu\n",
           bundle_sweep.removed, bundle_sweep.removed == 1 ? "" : "s",
           (unsigned long long)bundle_sweep.bytes, bundle_sweep.kept);
    print_busy("bundle", bundle_sweep.busy);
  }
  hrx_fabric_bundle_manifest_destroy(manifest);
  free(root);
  return HRX_EXIT_OK;
}
