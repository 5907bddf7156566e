#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "device_internal.h"
#include "hrx/npu.h"

const char* hrx_npu_version(void) { return HRX_NPU_VERSION; }

/* NOT_FOUND listing every refused candidate (or saying there is none). */
static hrx_status_t no_device(const hrx_npu_candidates_t* candidates,
                              const char* node) {
  if (node && candidates->count == 0) {
    return hrx_make_status(HRX_STATUS_NOT_FOUND, "no accel node %s", node);
  }
  if (candidates->count == 0) {
    return hrx_make_status(HRX_STATUS_NOT_FOUND,
                           "no /dev/accel node: the amdxdna driver is not "
                           "loaded or this machine has no NPU");
  }
  char text[HRX_NPU_CANDIDATE_MAX * 224];
  size_t length = 0;
  text[0] = '\0';
  for (size_t i = 0; i < candidates->count; ++i) {
    const hrx_npu_candidate_t* c = &candidates->items[i];
    int n = snprintf(text + length, sizeof(text) - length, "%s%s: %s",
                     length ? "; " : "", c->node,
                     c->accepted ? "accepted" : c->reason);
    if (n > 0) length += (size_t)n;
    if (length >= sizeof(text)) break;
  }
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "no usable NPU: %s", text);
}

static hrx_status_t open_heap(hrx_npu_device_t* device) {
  return hrx_status_annotate(
      hrx_npu_bo_create(device, HRX_XDNA_BO_DEV_HEAP, HRX_NPU_HEAP_SIZE,
                        &device->heap),
      "creating the %llu MiB device heap",
      (unsigned long long)(HRX_NPU_HEAP_SIZE >> 20));
}

hrx_status_t hrx_npu_device_open_with(const hrx_npu_sys_t* sys, int root_fd,
                                      hrx_allocator_t allocator,
                                      const char* node, hrx_budget_t* budget,
                                      hrx_npu_device_t** out_device) {
  *out_device = NULL;
  hrx_npu_candidates_t candidates = {0};
  int fd = -1;
  for (unsigned i = 0; i < HRX_NPU_CANDIDATE_MAX && fd < 0; ++i) {
    hrx_npu_candidate_t* c = &candidates.items[candidates.count];
    char name[sizeof(c->node)];
    snprintf(name, sizeof(name), "accel%u", i);
    if (node && strcmp(node, name)) continue;
    if (hrx_npu_admit(sys, root_fd, i, c, &fd)) ++candidates.count;
  }
  if (fd < 0) return no_device(&candidates, node);
  hrx_npu_device_t* device = NULL;
  hrx_status_t status =
      hrx_allocator_malloc(allocator, sizeof(*device), (void**)&device);
  if (status != HRX_OK) {
    (void)sys->close(sys->context, fd);
    return status;
  }
  device->allocator = allocator;
  device->sys = *sys;
  device->fd = fd;
  device->candidate = candidates.items[candidates.count - 1];
  pthread_mutex_init(&device->imports_mutex, NULL);
  device->budget = budget;
  hrx_budget_retain(budget);
  status = open_heap(device);
  if (status != HRX_OK) {
    hrx_npu_device_destroy(device);
    return hrx_status_annotate(status, "opening %s",
                               candidates.items[candidates.count - 1].node);
  }
  *out_device = device;
  return HRX_OK;
}

hrx_status_t hrx_npu_device_open(hrx_allocator_t allocator, const char* node,
                                 hrx_npu_device_t** out_device) {
  return hrx_npu_device_open_budget(allocator, node, NULL, out_device);
}

hrx_status_t hrx_npu_device_open_budget(hrx_allocator_t allocator,
                                        const char* node,
                                        hrx_budget_t* budget,
                                        hrx_npu_device_t** out_device) {
  hrx_npu_sys_t sys = hrx_sys_native();
  int root = sys.openat(NULL, AT_FDCWD, "/",
                        O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) {
    *out_device = NULL;
    return hrx_status_from_errno(-root, "open /");
  }
  hrx_status_t status =
      hrx_npu_device_open_with(&sys, root, allocator, node, budget,
                               out_device);
  (void)sys.close(NULL, root);
  return status;
}

void hrx_npu_device_destroy(hrx_npu_device_t* device) {
  if (!device) return;
  hrx_npu_bo_release(device, &device->heap);
  /* Closing the node releases whatever the driver still holds for it. */
  (void)device->sys.close(device->sys.context, device->fd);
  hrx_budget_release(device->budget);
  pthread_mutex_destroy(&device->imports_mutex);
  hrx_allocator_free(device->allocator, device);
}

const hrx_npu_candidate_t* hrx_npu_device_candidate(
    const hrx_npu_device_t* device) {
  return &device->candidate;
}
