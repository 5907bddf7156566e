/* The fake machine the npu device tests open their device on: the
 * qualified Strix Halo sysfs tree and the scripted amdxdna driver behind
 * it, set up, opened and checked clean the same way in every suite. */
#ifndef HRX_TESTS_NPU_XDNA_RIG_H_
#define HRX_TESTS_NPU_XDNA_RIG_H_

#include <stdbool.h>
#include <stddef.h>

#include "device_internal.h"
#include "hrx/npu.h"
#include "npu_test_util.h"
#include "xdna_fake.h"

/* |root| holds the sysfs tree (open as |root_fd|), |sys| calls into
 * |fake|, and |counted| is the allocator the device gets. */
typedef struct xdna_rig_t {
  char* root;
  int root_fd;
  xdna_fake_t fake;
  hrx_npu_sys_t sys;
  test_allocator_t counted;
} xdna_rig_t;

void xdna_rig_init(xdna_rig_t* rig);
/* With the device destroyed: fails unless every node, mapping, buffer
 * object and allocation was released, then frees the rig. */
void xdna_rig_deinit(xdna_rig_t* rig);

/* npu_image_default's image, built and parsed. */
hrx_npu_image_t* xdna_rig_default_image(void);

/* Opens the rig's device with |budget| (may be NULL). */
hrx_status_t xdna_rig_open(xdna_rig_t* rig, hrx_budget_t* budget,
                           hrx_npu_device_t** out_device);

/* Judges call |n| of a sweep that fails each call once with EIO: |status|
 * (consumed) must be OK only where the failed call was a release, and
 * otherwise name errno 5; counts the failures in |*failures|. Returns
 * whether the fake failed a call at all (once none is, the sweep ends). */
bool xdna_rig_sweep_check(const xdna_fake_t* fake, size_t n,
                          hrx_status_t status, size_t* failures);

#endif /* HRX_TESTS_NPU_XDNA_RIG_H_ */
