/* The NPU half of the hrx tool: `hrx doctor`'s NPU lines, `hrx run` of
 * a `.xdna` image and `hrx pack`'s check of pinned NPU images. The first
 * two reach the driver through an hrx_cli_npu_driver_t, so the tools
 * suite drives them against the npu suite's scripted driver and sysfs
 * fixtures; the tool itself uses hrx_cli_npu_native(). */
#ifndef HRX_TOOLS_NPU_CLI_H_
#define HRX_TOOLS_NPU_CLI_H_

#include <stdio.h>

#include "hrx/npu.h"

typedef struct hrx_cli_npu_driver_t {
  void* context;
  void (*enumerate)(void* context, hrx_npu_candidates_t* out_candidates);
  hrx_status_t (*open)(void* context, const char* node,
                       hrx_npu_device_t** out_device);
} hrx_cli_npu_driver_t;

/* This machine's accel nodes, through libhrx-npu's public API. */
hrx_cli_npu_driver_t hrx_cli_npu_native(void);

/* One line per accel node with its verdict (the admitted profile, or why
 * it was refused), or one saying there is no node and what that means. */
void hrx_cli_npu_doctor(const hrx_cli_npu_driver_t* driver, FILE* out);

/* `hrx run IMAGE.xdna [--entry=NAME] [--count=N] [--node=accelN]
 * [--timeout=S]`: prepares the entry with zeroed buffers of each
 * binding's smallest size, dispatches it N times, waits for every
 * invocation and reports. argv[0] is "run"; the report goes to |out|,
 * errors to |err|. Returns an HRX_EXIT_ code. */
int hrx_cli_npu_run(const hrx_cli_npu_driver_t* driver, int argc,
                    char** argv, FILE* out, FILE* err);

extern const char hrx_cli_npu_run_usage[];

/* `hrx pack`'s check of the NPU images bundle folder |dir| pins: each
 * entry of DIR/npu/ must be a folder named after the qualified profile
 * (npu/amd.xdna.strix_halo.17f0_11/) holding only `.xdna` images that
 * parse and validate for it; INVALID_ARGUMENT or the image's DATA_LOSS
 * naming the entry otherwise. A folder without npu/ passes. */
hrx_status_t hrx_cli_npu_check_bundle(const char* dir);

#endif /* HRX_TOOLS_NPU_CLI_H_ */
