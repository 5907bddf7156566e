/* Queue families: which kinds of queue a device offers, how many of each
 * it can have at once, and what each runs.
 *
 * On the kfd provider the counts come from the GPU's topology node: the
 * compute families share the node's command-processor queues
 * (num_cp_queues), the transfer family has num_sdma_engines x
 * num_sdma_queues_per_engine SDMA queues. On the host device the compute
 * family is the host queue (its properties' queue_count_limit), the
 * transfer family runs host memory operations and is limited only by
 * memory, and there is no PM4 family. The answer is a snapshot of what
 * the device offers, not of what is free now. Thread-safe.
 */
#ifndef HRX_FABRIC_QUEUE_FAMILIES_H_
#define HRX_FABRIC_QUEUE_FAMILIES_H_

#include <stdint.h>

#include "hrx/core.h"
#include "hrx/fabric/device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hrx_fabric_queue_family_e {
  HRX_FABRIC_QUEUE_FAMILY_AQL_COMPUTE = 0, /* hrx_fabric_queue_create */
  HRX_FABRIC_QUEUE_FAMILY_PM4_COMPUTE = 1, /* hrx/fabric/pm4.h */
  HRX_FABRIC_QUEUE_FAMILY_TRANSFER = 2,    /* hrx/fabric/transfer.h */
  HRX_FABRIC_QUEUE_FAMILY_COUNT = 3,
} hrx_fabric_queue_family_t;

/* What a family's queues run. */
typedef enum hrx_fabric_queue_operation_e {
  HRX_FABRIC_QUEUE_OP_DISPATCH = 1u << 0,    /* kernel dispatches */
  HRX_FABRIC_QUEUE_OP_BARRIER = 1u << 1,     /* AQL barrier-AND/OR */
  HRX_FABRIC_QUEUE_OP_COPY = 1u << 2,        /* any alignment */
  HRX_FABRIC_QUEUE_OP_FILL = 1u << 3,        /* any alignment */
  HRX_FABRIC_QUEUE_OP_WAIT_MEMORY = 1u << 4, /* wait on a word in memory */
  HRX_FABRIC_QUEUE_OP_SIGNAL = 1u << 5,      /* completion signals */
  HRX_FABRIC_QUEUE_OP_FENCE = 1u << 6,       /* fence values in memory */
} hrx_fabric_queue_operation_t;

/* queue_count for a family limited only by memory. */
#define HRX_FABRIC_QUEUE_COUNT_UNLIMITED UINT32_MAX

typedef struct hrx_fabric_queue_family_info_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  hrx_fabric_queue_family_t family;
  const char* name;   /* "AQL compute", "PM4 compute", "transfer" */
  const char* engine; /* "SDMA", "command processor", "host CPU" */
  uint32_t queue_count; /* 0: the device does not offer the family */
  uint32_t operations;  /* hrx_fabric_queue_operation_t bits */
  bool public_api;      /* whether HRX exposes these queues */
} hrx_fabric_queue_family_info_t;

/* Describes |family| (one query per family: the struct may grow, so it is
 * never an array element). INVALID_ARGUMENT for an unknown family. */
HRX_API HRX_MUST_USE hrx_status_t hrx_fabric_device_queue_family_info(
    const hrx_fabric_device_t* device, hrx_fabric_queue_family_t family,
    hrx_fabric_queue_family_info_t* out_info);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FABRIC_QUEUE_FAMILIES_H_ */
