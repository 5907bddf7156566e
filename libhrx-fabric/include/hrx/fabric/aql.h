/* AQL packets (HSA Architected Queuing Language), 64 bytes each.
 *
 * Layouts follow the HSA specification byte for byte (checked below), so the
 * same producer code fills a host queue and an amdgpu hardware queue. A
 * packet is published by writing its body first and then its first 32 bits
 * (header | setup << 16) with a release store; the slot is INVALID until
 * then and again after the packet processor consumed it.
 */
#ifndef HRX_FABRIC_AQL_H_
#define HRX_FABRIC_AQL_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core/api.h"

typedef enum hrx_aql_packet_type_e {
  HRX_AQL_PACKET_VENDOR = 0,
  HRX_AQL_PACKET_INVALID = 1,
  HRX_AQL_PACKET_KERNEL_DISPATCH = 2,
  HRX_AQL_PACKET_BARRIER_AND = 3,
  HRX_AQL_PACKET_AGENT = 4,
  HRX_AQL_PACKET_BARRIER_OR = 5,
} hrx_aql_packet_type_t;

typedef enum hrx_aql_fence_scope_e {
  HRX_AQL_FENCE_NONE = 0,
  HRX_AQL_FENCE_AGENT = 1,
  HRX_AQL_FENCE_SYSTEM = 2,
} hrx_aql_fence_scope_t;

/* Header bit fields. */
#define HRX_AQL_HEADER_TYPE_SHIFT 0
#define HRX_AQL_HEADER_TYPE_MASK 0xFFu
#define HRX_AQL_HEADER_BARRIER (1u << 8)
#define HRX_AQL_HEADER_ACQUIRE_SHIFT 9
#define HRX_AQL_HEADER_RELEASE_SHIFT 11
#define HRX_AQL_SETUP_DIMENSIONS_MASK 0x3u

static inline uint16_t hrx_aql_header(hrx_aql_packet_type_t type,
                                      int barrier,
                                      hrx_aql_fence_scope_t acquire,
                                      hrx_aql_fence_scope_t release) {
  return (uint16_t)(((unsigned)type << HRX_AQL_HEADER_TYPE_SHIFT) |
                    (barrier ? HRX_AQL_HEADER_BARRIER : 0u) |
                    ((unsigned)acquire << HRX_AQL_HEADER_ACQUIRE_SHIFT) |
                    ((unsigned)release << HRX_AQL_HEADER_RELEASE_SHIFT));
}

typedef struct hrx_aql_dispatch_packet_t {
  uint16_t header;
  uint16_t setup;
  uint16_t workgroup_size_x;
  uint16_t workgroup_size_y;
  uint16_t workgroup_size_z;
  uint16_t reserved0;
  uint32_t grid_size_x; /* in work-items */
  uint32_t grid_size_y;
  uint32_t grid_size_z;
  uint32_t private_segment_size;
  uint32_t group_segment_size;
  uint64_t kernel_object;
  uint64_t kernarg_address;
  uint64_t reserved2;
  uint64_t completion_signal; /* hrx_fabric_signal_handle(), 0 = none */
} hrx_aql_dispatch_packet_t;

typedef struct hrx_aql_barrier_packet_t {
  uint16_t header;
  uint16_t reserved0;
  uint32_t reserved1;
  uint64_t dep_signal[5];
  uint64_t reserved2;
  uint64_t completion_signal;
} hrx_aql_barrier_packet_t;

/* Agent packets carry work for the agent itself rather than a kernel. HRX
 * uses them for transfers: the host device runs them with memmove/memset
 * after checking both ranges against their allocations; the kfd provider
 * maps them to SDMA. */
typedef enum hrx_aql_agent_op_e {
  HRX_AQL_AGENT_COPY = 0x8001, /* arg[0] dst, arg[1] src, arg[2] bytes */
  HRX_AQL_AGENT_FILL = 0x8002, /* arg[0] dst, arg[1] u32 pattern, arg[2]
                                  bytes (a multiple of 4) */
} hrx_aql_agent_op_t;

typedef struct hrx_aql_agent_packet_t {
  uint16_t header;
  uint16_t type; /* hrx_aql_agent_op_t */
  uint32_t reserved0;
  uint64_t return_address;
  uint64_t arg[4];
  uint64_t reserved2;
  uint64_t completion_signal;
} hrx_aql_agent_packet_t;

typedef union hrx_aql_packet_t {
  hrx_aql_dispatch_packet_t dispatch;
  hrx_aql_barrier_packet_t barrier;
  hrx_aql_agent_packet_t agent;
  uint8_t bytes[64];
} hrx_aql_packet_t;

HRX_STATIC_ASSERT(sizeof(hrx_aql_dispatch_packet_t) == 64, "AQL dispatch size");
HRX_STATIC_ASSERT(sizeof(hrx_aql_barrier_packet_t) == 64, "AQL barrier size");
HRX_STATIC_ASSERT(offsetof(hrx_aql_dispatch_packet_t, grid_size_x) == 12, "");
HRX_STATIC_ASSERT(offsetof(hrx_aql_dispatch_packet_t, private_segment_size) ==
                   24, "");
HRX_STATIC_ASSERT(offsetof(hrx_aql_dispatch_packet_t, kernel_object) == 32, "");
HRX_STATIC_ASSERT(offsetof(hrx_aql_dispatch_packet_t, kernarg_address) == 40,
               "");
HRX_STATIC_ASSERT(offsetof(hrx_aql_dispatch_packet_t, completion_signal) == 56,
               "");
HRX_STATIC_ASSERT(offsetof(hrx_aql_barrier_packet_t, dep_signal) == 8, "");
HRX_STATIC_ASSERT(sizeof(hrx_aql_agent_packet_t) == 64, "AQL agent size");
HRX_STATIC_ASSERT(offsetof(hrx_aql_agent_packet_t, arg) == 16, "");
HRX_STATIC_ASSERT(offsetof(hrx_aql_agent_packet_t, completion_signal) == 56,
               "");
HRX_STATIC_ASSERT(offsetof(hrx_aql_barrier_packet_t, completion_signal) == 56,
               "");

#endif /* HRX_FABRIC_AQL_H_ */
