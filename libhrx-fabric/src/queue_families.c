/* Queue families per device (hrx/fabric/queue_families.h). */
#include "kfd_device.h"

#define HRX_COMPUTE_OPS                                           \
  (HRX_FABRIC_QUEUE_OP_DISPATCH | HRX_FABRIC_QUEUE_OP_BARRIER |   \
   HRX_FABRIC_QUEUE_OP_COPY | HRX_FABRIC_QUEUE_OP_FILL |          \
   HRX_FABRIC_QUEUE_OP_SIGNAL)
/* What the PM4 packets HRX encodes do: DISPATCH_DIRECT, DMA_DATA,
 * WAIT_REG_MEM and RELEASE_MEM / WRITE_DATA fences. */
#define HRX_PM4_OPS                                               \
  (HRX_FABRIC_QUEUE_OP_DISPATCH | HRX_FABRIC_QUEUE_OP_COPY |      \
   HRX_FABRIC_QUEUE_OP_FILL | HRX_FABRIC_QUEUE_OP_WAIT_MEMORY |   \
   HRX_FABRIC_QUEUE_OP_FENCE)
#define HRX_TRANSFER_OPS                                          \
  (HRX_FABRIC_QUEUE_OP_COPY | HRX_FABRIC_QUEUE_OP_FILL |          \
   HRX_FABRIC_QUEUE_OP_WAIT_MEMORY | HRX_FABRIC_QUEUE_OP_FENCE)

static uint32_t hrx_clamp_count(uint64_t count) {
  return count >= HRX_FABRIC_QUEUE_COUNT_UNLIMITED
             ? HRX_FABRIC_QUEUE_COUNT_UNLIMITED - 1
             : (uint32_t)count;
}

static void hrx_queue_families(
    const hrx_fabric_device_t* device,
    hrx_fabric_queue_family_info_t out[HRX_FABRIC_QUEUE_FAMILY_COUNT]) {
  /* The casts only compare the vtable. */
  hrx_kfd_device_t* kfd = hrx_kfd_device_cast((hrx_fabric_device_t*)device);
  out[HRX_FABRIC_QUEUE_FAMILY_AQL_COMPUTE] = (hrx_fabric_queue_family_info_t){
      .family = HRX_FABRIC_QUEUE_FAMILY_AQL_COMPUTE,
      .name = "AQL compute",
      .engine = kfd ? "command processor" : "host CPU",
      .queue_count = kfd ? hrx_clamp_count(kfd->node.num_cp_queues)
                         : device->properties.queue_count_limit,
      .operations = HRX_COMPUTE_OPS,
      .public_api = true,
  };
  out[HRX_FABRIC_QUEUE_FAMILY_PM4_COMPUTE] = (hrx_fabric_queue_family_info_t){
      .family = HRX_FABRIC_QUEUE_FAMILY_PM4_COMPUTE,
      .name = "PM4 compute",
      .engine = kfd ? "command processor" : "none",
      .queue_count = kfd ? hrx_clamp_count(kfd->node.num_cp_queues) : 0,
      .operations = kfd ? HRX_PM4_OPS : 0,
      .public_api = true,
  };
  out[HRX_FABRIC_QUEUE_FAMILY_TRANSFER] = (hrx_fabric_queue_family_info_t){
      .family = HRX_FABRIC_QUEUE_FAMILY_TRANSFER,
      .name = "transfer",
      .engine = kfd ? "SDMA" : "host CPU",
      .queue_count = kfd ? hrx_clamp_count(kfd->node.num_sdma_engines *
                                           kfd->node.num_sdma_queues_per_engine)
                         : HRX_FABRIC_QUEUE_COUNT_UNLIMITED,
      .operations = HRX_TRANSFER_OPS,
      .public_api = true,
  };
}

hrx_status_t hrx_fabric_device_queue_family_info(
    const hrx_fabric_device_t* device, hrx_fabric_queue_family_t family,
    hrx_fabric_queue_family_info_t* out_info) {
  if ((unsigned)family >= HRX_FABRIC_QUEUE_FAMILY_COUNT) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "unknown queue family %d", (int)family);
  }
  hrx_fabric_queue_family_info_t families[HRX_FABRIC_QUEUE_FAMILY_COUNT];
  hrx_queue_families(device, families);
  return HRX_STRUCT_WRITE(hrx_fabric_queue_family_info_t, public_api,
                          &families[family], out_info);
}
