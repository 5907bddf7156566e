#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_internal.h"

#define AMD_VENDOR 0x1022u
#define STRIX_HALO_NPU 0x17f0u
#define STRIX_HALO_REVISION 0x11u
#define DRIVER_NAME "amdxdna"
#define DRM_MIN_MAJOR 0
#define DRM_MIN_MINOR 8
#define AIE_COLUMNS 8
#define AIE_ROWS 6

static void refuse(hrx_npu_candidate_t* c, const char* format, ...)
    HRX_PRINTF(2, 3);
static void refuse(hrx_npu_candidate_t* c, const char* format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(c->reason, sizeof(c->reason), format, args);
  va_end(args);
  c->accepted = false;
}

/* Refuses |c| with |what| and |status|'s text, and frees |status|. */
static void refuse_status(hrx_npu_candidate_t* c, const char* what,
                          hrx_status_t status) {
  char text[sizeof(c->reason)];
  hrx_status_format(status, text, sizeof(text));
  hrx_status_free(status);
  refuse(c, "%s: %s", what, text);
}

static bool parse_hex(const char* text, unsigned long max,
                      unsigned long* out) {
  char* end = NULL;
  unsigned long value = strtoul(text, &end, 16);
  if (end == text || (*end != '\0' && *end != '\n') || value > max) {
    return false;
  }
  *out = value;
  return true;
}

/* Reads DRIVER= and PCI_ID= from the device's uevent. */
static void parse_uevent(char* text, hrx_npu_candidate_t* c,
                         bool* out_pci) {
  *out_pci = false;
  char* save = NULL;
  for (char* line = strtok_r(text, "\n", &save); line;
       line = strtok_r(NULL, "\n", &save)) {
    if (!strncmp(line, "DRIVER=", 7)) {
      snprintf(c->driver, sizeof(c->driver), "%s", line + 7);
    } else if (!strncmp(line, "PCI_ID=", 7)) {
      unsigned vendor = 0, device = 0;
      if (sscanf(line + 7, "%4x:%4x", &vendor, &device) == 2) {
        c->vendor = (uint16_t)vendor;
        c->device = (uint16_t)device;
        *out_pci = true;
      }
    }
  }
}

static bool check_sysfs(const hrx_npu_sys_t* sys, int root_fd,
                        unsigned index, hrx_npu_candidate_t* c) {
  char path[96];
  char text[512];
  bool pci = false;
  snprintf(path, sizeof(path), "sys/class/accel/accel%u/device/uevent",
           index);
  hrx_status_t status =
      hrx_npu_read_text(sys, root_fd, path, text, sizeof(text));
  if (status != HRX_OK) {
    refuse_status(c, "reading sysfs", status);
    return false;
  }
  parse_uevent(text, c, &pci);
  if (!pci) {
    refuse(c, "not a PCI device");
    return false;
  }
  snprintf(path, sizeof(path), "sys/class/accel/accel%u/device/revision",
           index);
  status = hrx_npu_read_text(sys, root_fd, path, text, sizeof(text));
  unsigned long revision = 0;
  if (status != HRX_OK) {
    refuse_status(c, "reading the PCI revision", status);
    return false;
  }
  if (!parse_hex(text, 0xff, &revision)) {
    refuse(c, "unreadable PCI revision '%s'", text);
    return false;
  }
  c->revision = (uint16_t)revision;
  if (c->vendor != AMD_VENDOR) {
    refuse(c, "PCI vendor 0x%04x is not AMD (0x%04x)", c->vendor,
           AMD_VENDOR);
  } else if (c->device != STRIX_HALO_NPU) {
    refuse(c, "PCI device 0x%04x is not the Strix Halo NPU (0x%04x)",
           c->device, STRIX_HALO_NPU);
  } else if (c->revision != STRIX_HALO_REVISION) {
    refuse(c, "PCI revision 0x%02x is not the qualified 0x%02x",
           c->revision, STRIX_HALO_REVISION);
  } else if (c->driver[0] == '\0') {
    refuse(c, "no driver is bound");
  } else if (strcmp(c->driver, DRIVER_NAME)) {
    refuse(c, "driver %s is not %s", c->driver, DRIVER_NAME);
  } else {
    return true;
  }
  return false;
}

/* Asks the open node for its DRM version and AIE array shape. */
static bool check_driver(const hrx_npu_sys_t* sys, int fd,
                         hrx_npu_candidate_t* c) {
  hrx_drm_version_t version;
  memset(&version, 0, sizeof(version));
  hrx_status_t status = hrx_sys_ioctl(sys, fd, HRX_DRM_IOCTL_VERSION,
                                      "DRM_IOCTL_VERSION", &version);
  if (status != HRX_OK) {
    refuse_status(c, "asking the DRM version", status);
    return false;
  }
  c->drm_major = (uint32_t)version.version_major;
  c->drm_minor = (uint32_t)version.version_minor;
  if (version.version_major < DRM_MIN_MAJOR ||
      (version.version_major == DRM_MIN_MAJOR &&
       version.version_minor < DRM_MIN_MINOR)) {
    refuse(c, "DRM version %d.%d is older than %d.%d",
           version.version_major, version.version_minor, DRM_MIN_MAJOR,
           DRM_MIN_MINOR);
    return false;
  }
  hrx_xdna_aie_metadata_t metadata;
  memset(&metadata, 0, sizeof(metadata));
  hrx_xdna_get_info_t info = {
      .param = HRX_XDNA_QUERY_AIE_METADATA,
      .buffer_size = sizeof(metadata),
      .buffer = (uint64_t)(uintptr_t)&metadata,
  };
  status = hrx_sys_ioctl(sys, fd, HRX_XDNA_IOCTL_GET_INFO,
                         "GET_INFO(QUERY_AIE_METADATA)", &info);
  if (status != HRX_OK) {
    refuse_status(c, "asking the AIE metadata", status);
    return false;
  }
  c->columns = metadata.cols;
  c->rows = metadata.rows;
  if (metadata.cols != AIE_COLUMNS || metadata.rows != AIE_ROWS) {
    refuse(c, "AIE array is %u columns x %u rows, not %d x %d",
           metadata.cols, metadata.rows, AIE_COLUMNS, AIE_ROWS);
    return false;
  }
  return true;
}

bool hrx_npu_admit(const hrx_npu_sys_t* sys, int root_fd, unsigned index,
                   hrx_npu_candidate_t* out_candidate, int* out_fd) {
  hrx_npu_candidate_t* c = out_candidate;
  memset(c, 0, sizeof(*c));
  snprintf(c->node, sizeof(c->node), "accel%u", index);
  char path[64];
  snprintf(path, sizeof(path), "sys/class/accel/accel%u", index);
  int dir = sys->openat(sys->context, root_fd, path,
                        O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir == -ENOENT) return false;
  if (dir < 0) {
    refuse_status(c, "opening sysfs",
                  hrx_status_from_errno(-dir, "open %s", path));
    return true;
  }
  (void)sys->close(sys->context, dir);
  if (!check_sysfs(sys, root_fd, index, c)) return true;
  snprintf(path, sizeof(path), "dev/accel/accel%u", index);
  int fd = sys->openat(sys->context, root_fd, path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    refuse_status(c, "opening the node",
                  hrx_status_from_errno(-fd, "open /%s", path));
    return true;
  }
  c->accepted = check_driver(sys, fd, c);
  if (c->accepted && out_fd) {
    *out_fd = fd;
  } else {
    (void)sys->close(sys->context, fd);
  }
  return true;
}

void hrx_npu_enumerate_with(const hrx_npu_sys_t* sys, int root_fd,
                            hrx_npu_candidates_t* out_candidates) {
  out_candidates->count = 0;
  for (unsigned i = 0; i < HRX_NPU_CANDIDATE_MAX; ++i) {
    hrx_npu_candidate_t* c = &out_candidates->items[out_candidates->count];
    if (hrx_npu_admit(sys, root_fd, i, c, NULL)) ++out_candidates->count;
  }
}

void hrx_npu_enumerate(hrx_npu_candidates_t* out_candidates) {
  hrx_npu_sys_t sys = hrx_sys_native();
  int root = sys.openat(NULL, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY |
                                                 O_CLOEXEC);
  out_candidates->count = 0;
  if (root < 0) return;
  hrx_npu_enumerate_with(&sys, root, out_candidates);
  (void)sys.close(NULL, root);
}
