/* NPU discovery and devices.
 *
 * Admission is strict: only the qualified profile runs. A candidate is an
 * accel node (/dev/accel/accelN) whose sysfs device is PCI 1022:17f0
 * revision 0x11 bound to the amdxdna driver, whose DRM version is at least
 * 0.8 and whose AIE array reports 8 columns x 6 rows (row 0 shim, row 1
 * memory, rows 2-5 cores). Every other accel node is listed and refused
 * with the reason, so `hrx doctor` can say why there is no NPU.
 *
 * A device owns its open node and the 64 MiB device heap every
 * device-carved buffer comes from. It must outlive every buffer and
 * program made from it.
 *
 * Threads: enumeration is reentrant. A device may be used from any thread;
 * creating buffers and programs on one device from several threads at once
 * is safe (the driver serialises), but destroying it races with everything.
 */
#ifndef HRX_NPU_DEVICE_H_
#define HRX_NPU_DEVICE_H_

#include <stdbool.h>
#include <stdint.h>

#include "hrx/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_npu_device_s hrx_npu_device_t;

/* Accel nodes accel0 .. accel15 are examined. */
#define HRX_NPU_CANDIDATE_MAX 16

/* The qualified profile. */
#define HRX_NPU_PROFILE "amd.xdna.strix_halo.17f0_11"

typedef struct hrx_npu_candidate_t {
  char node[16]; /* "accel0" */
  /* What sysfs says; zero / "" where it could not be read. */
  uint16_t vendor;
  uint16_t device;
  uint16_t revision;
  char driver[32];
  /* What the driver says; zero when the node was not opened. */
  uint32_t drm_major;
  uint32_t drm_minor;
  uint16_t columns;
  uint16_t rows;
  bool accepted;
  char reason[192]; /* why it was refused; "" when accepted */
} hrx_npu_candidate_t;

typedef struct hrx_npu_candidates_t {
  size_t count;
  hrx_npu_candidate_t items[HRX_NPU_CANDIDATE_MAX];
} hrx_npu_candidates_t;

/* Lists every accel node of this machine with its verdict. Opens each node
 * that passes the sysfs checks to ask the driver, then closes it. Never
 * fails: a node that cannot be read is listed, refused, with the error. */
HRX_API void hrx_npu_enumerate(hrx_npu_candidates_t* out_candidates);

/* Opens accel node |node| ("accel0"), or the first accepted one when
 * |node| is NULL, and creates its device heap. NOT_FOUND when no node is
 * accepted, naming each refused node and its reason. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_device_open(
    hrx_allocator_t allocator, const char* node,
    hrx_npu_device_t** out_device);

/* As hrx_npu_device_open, charging the device's memory to |budget| (NULL:
 * none), which the device retains: the 64 MiB heap at open, then every
 * buffer, program storage allocation and command slot made from it
 * (buffers carved from the heap are inside its charge). A charge that
 * does not fit is RESOURCE_EXHAUSTED before the driver is asked. Imported
 * dma-bufs are never charged here: their owner holds their bytes. */
HRX_API HRX_MUST_USE hrx_status_t hrx_npu_device_open_budget(
    hrx_allocator_t allocator, const char* node, hrx_budget_t* budget,
    hrx_npu_device_t** out_device);

/* Releases the heap, then closes the node. NULL is accepted. */
HRX_API void hrx_npu_device_destroy(hrx_npu_device_t* device);

/* The admitted candidate's description, borrowed from |device|. */
HRX_API const hrx_npu_candidate_t* hrx_npu_device_candidate(
    const hrx_npu_device_t* device);

#ifdef __cplusplus
}
#endif

#endif /* HRX_NPU_DEVICE_H_ */
