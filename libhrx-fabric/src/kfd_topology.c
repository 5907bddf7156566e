#include "kfd_topology.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hrx/core/escape.h"
#include "hrx/core/parse.h"

#define TOPOLOGY_DIR "class/kfd/kfd/topology"

/* A real properties file is about 1.5 KiB; anything near this is not one. */
#define PROPERTIES_CAPACITY 8192

/* generation_id changes only on hot-plug or repartitioning, so a few scans
 * settle; a value that never settles means something is wrong. */
#define SCAN_ATTEMPTS 8

/* The properties HRX reads. The maxima refuse values no real GPU has, so a
 * corrupt file cannot feed an absurd figure (or a division by zero) on. */
typedef struct property_t {
  const char* key;
  size_t offset; /* of the uint64_t in hrx_kfd_node_t */
  uint64_t max;
  bool gpu_required; /* a GPU node without it is refused */
} property_t;

#define PROPERTY(name, max, required) \
  {#name, offsetof(hrx_kfd_node_t, name), (max), (required)}

static const property_t kProperties[] = {
    PROPERTY(cpu_cores_count, 1u << 20, false),
    PROPERTY(simd_count, 1u << 20, false), /* required for every node */
    PROPERTY(gfx_target_version, 999999, true),
    PROPERTY(simd_per_cu, 64, true),
    PROPERTY(array_count, 4096, true),
    PROPERTY(simd_arrays_per_engine, 4096, true),
    PROPERTY(cu_per_simd_array, 4096, true),
    PROPERTY(max_waves_per_simd, 1024, true),
    PROPERTY(max_slots_scratch_cu, 4096, false),
    PROPERTY(wave_front_size, 64, true),
    PROPERTY(lds_size_in_kb, 1u << 20, true),
    PROPERTY(num_xcc, 64, false),
    PROPERTY(num_cp_queues, 4096, true),
    PROPERTY(num_sdma_engines, 4096, true),
    PROPERTY(num_sdma_queues_per_engine, 4096, true),
    PROPERTY(drm_render_minor, 1u << 20, true),
    PROPERTY(local_mem_size, UINT64_C(1) << 56, false),
    PROPERTY(vendor_id, 0xFFFF, true),
    PROPERTY(device_id, 0xFFFF, true),
};
#define PROPERTY_COUNT (sizeof(kProperties) / sizeof(kProperties[0]))
_Static_assert(PROPERTY_COUNT <= 32, "seen-key mask is 32 bits");

static hrx_status_t read_text(const hrx_kfd_sys_t* sys, int dir_fd,
                              const char* path, char* buffer, size_t capacity,
                              int* out_open_error, size_t* out_length) {
  hrx_sys_t view = hrx_kfd_sys_view(sys);
  return hrx_sys_read_text(&view, dir_fd, path, buffer, capacity,
                           out_open_error, out_length);
}

/* Parses the decimal |text| of |what| in file |path| line |line|, with the
 * parse failure restated as DATA_LOSS at that place. */
static hrx_status_t parse_value(const char* path, unsigned line,
                                const char* text, uint64_t max,
                                const char* what, uint64_t* out_value) {
  hrx_status_t status = hrx_parse_u64(text, 0, max, what, out_value);
  if (status == HRX_OK) return HRX_OK;
  hrx_status_t result = hrx_make_status(HRX_STATUS_DATA_LOSS, "%s:%u: %s",
                                        path, line,
                                        hrx_status_message(status));
  hrx_status_free(status);
  return result;
}

/* Reads a file holding one number |what| and a newline (gpu_id,
 * generation_id). */
static hrx_status_t read_number(const hrx_kfd_sys_t* sys, int dir_fd,
                                const char* path, const char* what,
                                uint64_t max, int* out_open_error,
                                uint64_t* out_value) {
  char text[64];
  size_t length = 0;
  HRX_RETURN_IF_ERROR(read_text(sys, dir_fd, path, text, sizeof(text),
                                out_open_error, &length));
  if (length > 0 && text[length - 1] == '\n') text[length - 1] = '\0';
  return parse_value(path, 1, text, max, what, out_value);
}

static const property_t* find_property(const char* key, size_t length) {
  for (size_t i = 0; i < PROPERTY_COUNT; ++i) {
    if (strlen(kProperties[i].key) == length &&
        memcmp(kProperties[i].key, key, length) == 0) {
      return &kProperties[i];
    }
  }
  return NULL;
}

/* Parses "key value" lines into |node|; keys HRX does not use are skipped
 * (newer kernels add some), a known key twice is refused. Returns the mask
 * of properties seen. */
static hrx_status_t parse_properties(const char* path, char* text,
                                     hrx_kfd_node_t* node,
                                     uint32_t* out_seen) {
  uint32_t seen = 0;
  unsigned line = 0;
  char* cursor = text;
  while (*cursor != '\0') {
    ++line;
    char* end = strchr(cursor, '\n');
    char* next = end != NULL ? end + 1 : cursor + strlen(cursor);
    if (end != NULL) *end = '\0';
    char* space = strchr(cursor, ' ');
    if (space == NULL || space == cursor) {
      char escaped[HRX_ESCAPED_NAME_CAPACITY];
      return hrx_make_status(
          HRX_STATUS_DATA_LOSS, "%s:%u: expected 'key value', got '%s'", path,
          line, hrx_escape_text(cursor, strlen(cursor), escaped,
                                sizeof(escaped)));
    }
    const property_t* property =
        find_property(cursor, (size_t)(space - cursor));
    if (property != NULL) {
      uint32_t bit = 1u << (property - kProperties);
      if (seen & bit) {
        return hrx_make_status(HRX_STATUS_DATA_LOSS, "%s:%u: '%s' repeated",
                               path, line, property->key);
      }
      seen |= bit;
      uint64_t* field = (uint64_t*)((char*)node + property->offset);
      HRX_RETURN_IF_ERROR(parse_value(path, line, space + 1, property->max,
                                      property->key, field));
    }
    cursor = next;
  }
  *out_seen = seen;
  return HRX_OK;
}

/* Checks what a GPU node must say and derives its target. */
static hrx_status_t finish_gpu_node(const char* path, uint32_t seen,
                                    hrx_kfd_node_t* node) {
  for (size_t i = 0; i < PROPERTY_COUNT; ++i) {
    if (kProperties[i].gpu_required && !(seen & (1u << i))) {
      return hrx_make_status(HRX_STATUS_DATA_LOSS,
                             "%s: GPU node without '%s'", path,
                             kProperties[i].key);
    }
  }
  if (node->simd_per_cu == 0) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "%s: GPU node with simd_per_cu 0", path);
  }
  if (node->wave_front_size != 32 && node->wave_front_size != 64) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "%s: wave_front_size %" PRIu64
                           " (expected 32 or 64)",
                           path, node->wave_front_size);
  }
  uint64_t v = node->gfx_target_version;
  snprintf(node->arch, sizeof(node->arch), "gfx%u%x%x",
           (unsigned)(v / 10000), (unsigned)(v / 100 % 100),
           (unsigned)(v % 100));
  node->target = v == HRX_KFD_GFX1151_VERSION ? "gfx1151" : NULL;
  node->cu_count = node->simd_count / node->simd_per_cu;
  return HRX_OK;
}

/* Reads nodes/|index| into |node|; an absent node directory sets
 * |*out_absent| instead of failing. */
static hrx_status_t scan_node(const hrx_kfd_sys_t* sys, int sysfs_fd,
                              uint32_t index, bool* out_absent,
                              hrx_kfd_node_t* node) {
  char path[96];
  char text[PROPERTIES_CAPACITY];
  size_t length = 0;
  int open_error = 0;
  *out_absent = false;
  memset(node, 0, sizeof(*node));
  node->index = index;
  node->num_xcc = 1;

  snprintf(path, sizeof(path), TOPOLOGY_DIR "/nodes/%" PRIu32 "/gpu_id",
           index);
  uint64_t gpu_id = 0;
  hrx_status_t status =
      read_number(sys, sysfs_fd, path, "gpu_id", UINT32_MAX, &open_error,
                  &gpu_id);
  if (status != HRX_OK && open_error == -ENOENT) {
    hrx_status_free(status);
    *out_absent = true;
    return HRX_OK;
  }
  HRX_RETURN_IF_ERROR(status);
  node->gpu_id = (uint32_t)gpu_id;

  snprintf(path, sizeof(path), TOPOLOGY_DIR "/nodes/%" PRIu32 "/properties",
           index);
  HRX_RETURN_IF_ERROR(read_text(sys, sysfs_fd, path, text, sizeof(text),
                                &open_error, &length));
  uint32_t seen = 0;
  HRX_RETURN_IF_ERROR(parse_properties(path, text, node, &seen));
  const property_t* simd_count = find_property("simd_count", 10);
  if (!(seen & (1u << (simd_count - kProperties)))) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS, "%s: no 'simd_count'",
                           path);
  }
  node->is_gpu = node->simd_count > 0;
  return node->is_gpu ? finish_gpu_node(path, seen, node) : HRX_OK;
}

static hrx_status_t read_generation(const hrx_kfd_sys_t* sys, int sysfs_fd,
                                    uint64_t* out_generation) {
  int open_error = 0;
  hrx_status_t status =
      read_number(sys, sysfs_fd, TOPOLOGY_DIR "/generation_id",
                  "generation_id", UINT64_MAX, &open_error, out_generation);
  if (status != HRX_OK && open_error == -ENOENT) {
    hrx_status_free(status);
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "no AMD GPU: sysfs has no " TOPOLOGY_DIR
                           " (the amdgpu kernel driver is not loaded)");
  }
  return status;
}

static hrx_status_t scan_nodes(const hrx_kfd_sys_t* sys, int sysfs_fd,
                               hrx_kfd_topology_t* out) {
  out->node_count = 0;
  for (uint32_t index = 0;; ++index) {
    hrx_kfd_node_t node;
    bool absent = false;
    HRX_RETURN_IF_ERROR(scan_node(sys, sysfs_fd, index, &absent, &node));
    if (absent) break;
    if (index == HRX_KFD_MAX_NODES) {
      return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                             TOPOLOGY_DIR " lists more than %d nodes",
                             HRX_KFD_MAX_NODES);
    }
    out->nodes[out->node_count++] = node;
  }
  if (out->node_count == 0) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "no AMD GPU: " TOPOLOGY_DIR " lists no nodes");
  }
  return HRX_OK;
}

hrx_status_t hrx_kfd_topology_scan(const hrx_kfd_sys_t* sys, int sysfs_fd,
                                   hrx_kfd_topology_t* out) {
  uint64_t before = 0;
  uint64_t after = 0;
  for (int attempt = 0; attempt < SCAN_ATTEMPTS; ++attempt) {
    HRX_RETURN_IF_ERROR(read_generation(sys, sysfs_fd, &before));
    HRX_RETURN_IF_ERROR(scan_nodes(sys, sysfs_fd, out));
    HRX_RETURN_IF_ERROR(read_generation(sys, sysfs_fd, &after));
    if (before == after) {
      out->generation_id = after;
      return HRX_OK;
    }
  }
  return hrx_make_status(HRX_STATUS_BUSY,
                         "KFD topology changed during each of %d scans "
                         "(generation_id %" PRIu64 " -> %" PRIu64 ")",
                         SCAN_ATTEMPTS, before, after);
}

hrx_status_t hrx_kfd_open_device(const hrx_kfd_sys_t* sys, int dev_fd,
                                 int* out_fd) {
  int fd = sys->openat(sys->context, dev_fd, "kfd", O_RDWR | O_CLOEXEC);
  if (fd >= 0) {
    *out_fd = fd;
    return HRX_OK;
  }
  if (fd == -ENOENT || fd == -ENODEV || fd == -ENXIO) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "no AMD GPU: /dev/kfd is absent (errno %d; the "
                           "amdgpu kernel driver is not loaded)",
                           -fd);
  }
  if (fd == -EACCES || fd == -EPERM) {
    return hrx_make_status(
        HRX_STATUS_PERMISSION_DENIED,
        "cannot open /dev/kfd: permission denied; add the user to the "
        "'render' group (sudo usermod -aG render $USER) and log in again");
  }
  return hrx_status_from_errno(-fd, "open /dev/kfd");
}

static uint64_t queue_align(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

void hrx_kfd_queue_sizes(const hrx_kfd_node_t* n, hrx_kfd_queue_sizes_t* out) {
  const uint64_t page = 4096;
  uint64_t xcc = n->num_xcc ? n->num_xcc : 1;
  uint64_t cu = n->simd_count / (n->simd_per_cu ? n->simd_per_cu : 1) / xcc;
  uint64_t waves = cu * 32; /* gfx10.1 and later */
  /* gfx1100/1101/1200/1201 save more VGPRs; gfx1151 the common 0x40000. */
  uint64_t vgpr = (n->gfx_target_version == 110000 ||
                   n->gfx_target_version == 110001 ||
                   n->gfx_target_version == 120000 ||
                   n->gfx_target_version == 120001)
                      ? 0x60000
                      : 0x40000;
  out->eop = 4096;
  out->ctl_stack = queue_align(40 + waves * 12 + 8, page);
  out->cwsr = out->ctl_stack +
              queue_align(cu * (vgpr + 0x4000 + 0x10000 + 0x1000), page);
  out->debug_memory = queue_align(waves * 32, 64);
}
