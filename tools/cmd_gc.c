/* hrx gc [DAYS]: evict kernel cache entries not read for DAYS days.
 * Only entries this tool recognises (64-hex-digit directories, their lock
 * files and abandoned temporaries) are touched; unknown folders stay. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hrx_cli.h"

static bool is_key(const char* name) {
  if (strlen(name) != 64) return false;
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

int hrx_cmd_gc(int argc, char** argv) {
  long days = 30;
  if (argc > 2) return hrx_cli_usage_error("gc", "takes at most DAYS");
  if (argc == 2) {
    char* end = NULL;
    days = strtol(argv[1], &end, 10);
    if (!*argv[1] || *end || days < 0) {
      return hrx_cli_usage_error("gc", "DAYS must be a number >= 0, not '%s'",
                                 argv[1]);
    }
  }
  char* root = NULL;
  hrx_status_t status =
      hrx_path_cache_root(hrx_allocator_system(), &root, NULL);
  if (status != HRX_OK) return hrx_cli_fail("gc", status);
  char kernels[4096];
  snprintf(kernels, sizeof(kernels), "%s/kernels", root);
  free(root);
  time_t cutoff = time(NULL) - (time_t)days * 86400;
  size_t removed = 0, kept = 0;
  uint64_t bytes = 0;
  DIR* dir = opendir(kernels);
  if (dir) {
    for (struct dirent* e; (e = readdir(dir));) {
      char path[4096 + 256];
      snprintf(path, sizeof(path), "%s/%s", kernels, e->d_name);
      struct stat info;
      if (lstat(path, &info) != 0) continue;
      if (is_key(e->d_name) && S_ISDIR(info.st_mode)) {
        if (info.st_atime < cutoff) {
          if (remove_entry(path, &bytes)) removed++;
        } else {
          kept++;
        }
      } else if (!strncmp(e->d_name, ".tmp-", 5) && S_ISDIR(info.st_mode) &&
                 info.st_mtime < time(NULL) - 86400) {
        remove_entry(path, &bytes); /* abandoned by a killed compiler */
      } else if (strlen(e->d_name) == 69 && !strcmp(e->d_name + 64, ".lock")) {
        char entry[4096 + 256];
        snprintf(entry, sizeof(entry), "%s/%.64s", kernels, e->d_name);
        struct stat entry_info;
        if (stat(entry, &entry_info) != 0) unlink(path);
      }
    }
    closedir(dir);
  }
  printf("hrx gc: removed %zu kernel%s (%llu bytes) unread for %ld day%s, "
         "kept %zu\n", removed, removed == 1 ? "" : "s",
         (unsigned long long)bytes, days, days == 1 ? "" : "s", kept);
  return HRX_EXIT_OK;
}
