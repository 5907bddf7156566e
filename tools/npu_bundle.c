/* `hrx pack`'s check of the NPU images a bundle pins. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npu_cli.h"

#define NPU_IMAGE_MAX_BYTES (256u << 20)

static bool is_entry(const struct dirent* e) {
  return strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
}

/* Every entry of |folder| is a `.xdna` image that validates. */
static hrx_status_t check_images(const char* folder, const char* shown) {
  DIR* listing = opendir(folder);
  if (!listing) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s is not a folder of NPU images", shown);
  }
  hrx_status_t status = HRX_OK;
  for (struct dirent* e; status == HRX_OK && (e = readdir(listing));) {
    if (!is_entry(e)) continue;
    size_t length = strlen(e->d_name);
    char name[HRX_ESCAPED_NAME_CAPACITY];
    hrx_escape_text(e->d_name, length, name, sizeof(name));
    char path[4096];
    if ((size_t)snprintf(path, sizeof(path), "%s/%s", folder, e->d_name) >=
        sizeof(path)) {
      status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "%s/%s: the path is too long", shown, name);
      break;
    }
    if (length < 6 || strcmp(e->d_name + length - 5, ".xdna")) {
      status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "%s/%s: only .xdna images are pinned for an "
                               "NPU profile",
                               shown, name);
      break;
    }
    void* bytes = NULL;
    size_t size = 0;
    status = hrx_file_read_all(hrx_allocator_system(), path,
                               NPU_IMAGE_MAX_BYTES, &bytes, &size);
    hrx_npu_image_t* image = NULL;
    if (status == HRX_OK) {
      status = hrx_npu_image_parse(bytes, size, hrx_allocator_system(),
                                   &image);
    }
    free(bytes);
    hrx_npu_image_destroy(image);
    status = hrx_status_annotate(status, "%s/%s", shown, name);
  }
  closedir(listing);
  return status;
}

hrx_status_t hrx_cli_npu_check_bundle(const char* dir) {
  char npu[4096];
  if ((size_t)snprintf(npu, sizeof(npu), "%s/npu", dir) >= sizeof(npu)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the bundle folder's path is too long");
  }
  DIR* listing = opendir(npu);
  if (!listing) return HRX_OK; /* no NPU images */
  hrx_status_t status = HRX_OK;
  for (struct dirent* e; status == HRX_OK && (e = readdir(listing));) {
    if (!is_entry(e)) continue;
    if (strcmp(e->d_name, HRX_NPU_PROFILE)) {
      char shown[HRX_ESCAPED_NAME_CAPACITY];
      hrx_escape_text(e->d_name, strlen(e->d_name), shown, sizeof(shown));
      status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "npu/%s: NPU images are pinned for the "
                               "qualified profile, npu/%s/",
                               shown, HRX_NPU_PROFILE);
      break;
    }
    char folder[sizeof(npu) + sizeof(HRX_NPU_PROFILE)];
    if ((size_t)snprintf(folder, sizeof(folder), "%s/" HRX_NPU_PROFILE,
                         npu) >= sizeof(folder)) {
      status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                               "the bundle folder's path is too long");
      break;
    }
    status = check_images(folder, "npu/" HRX_NPU_PROFILE);
  }
  closedir(listing);
  return status;
}
