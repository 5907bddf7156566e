/* PM4 encoders: each builds its fixed dwords, then emit() checks the
 * caller's capacity before anything is written, so a short buffer is left
 * as it was. */
#include "pm4_packets.h"

#include <string.h>

static uint32_t header(uint32_t opcode, uint32_t total_dwords) {
  return HRX_PM4_TYPE3 << HRX_PM4_TYPE_SHIFT |
         (total_dwords - 2u) << HRX_PM4_COUNT_SHIFT |
         opcode << HRX_PM4_OPCODE_SHIFT;
}

static hrx_status_t room(const char* name, size_t need, size_t capacity) {
  if (need <= capacity) return HRX_OK;
  return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                         "PM4 %s needs %zu dwords, the buffer has %zu", name,
                         need, capacity);
}

static hrx_status_t emit(const char* name, const uint32_t* packet,
                         size_t count, uint32_t* dwords, size_t capacity,
                         size_t* out_count) {
  HRX_RETURN_IF_ERROR(room(name, count, capacity));
  memcpy(dwords, packet, count * sizeof(*packet));
  *out_count = count;
  return HRX_OK;
}

static hrx_status_t invalid(const char* name, const char* why) {
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "PM4 %s: %s", name,
                         why);
}

hrx_status_t hrx_pm4_nop(uint32_t dword_count, uint32_t* dwords,
                         size_t capacity, size_t* out_count) {
  if (dword_count == 0 || dword_count > HRX_PM4_MAX_DWORDS) {
    return invalid("NOP", "length outside 1..16385 dwords");
  }
  HRX_RETURN_IF_ERROR(room("NOP", dword_count, capacity));
  if (dword_count == 1) {
    dwords[0] = HRX_PM4_TYPE3 << HRX_PM4_TYPE_SHIFT |
                HRX_PM4_NOP_ONE_DWORD_COUNT << HRX_PM4_COUNT_SHIFT |
                HRX_PM4_NOP << HRX_PM4_OPCODE_SHIFT;
  } else {
    dwords[0] = header(HRX_PM4_NOP, dword_count);
    memset(dwords + 1, 0, (dword_count - 1) * sizeof(*dwords));
  }
  *out_count = dword_count;
  return HRX_OK;
}

hrx_status_t hrx_pm4_set_sh_reg(uint32_t reg, const uint32_t* values,
                                uint32_t value_count, uint32_t* dwords,
                                size_t capacity, size_t* out_count) {
  if (value_count == 0 || reg < HRX_PM4_SH_REG_START ||
      reg >= HRX_PM4_SH_REG_END ||
      value_count > HRX_PM4_SH_REG_END - reg) {
    return invalid("SET_SH_REG", "registers outside the SH window");
  }
  size_t count = HRX_PM4_SET_SH_REG_FIXED_DWORDS + value_count;
  HRX_RETURN_IF_ERROR(room("SET_SH_REG", count, capacity));
  dwords[0] = header(HRX_PM4_SET_SH_REG, (uint32_t)count);
  dwords[1] = reg - HRX_PM4_SH_REG_START;
  memcpy(dwords + 2, values, value_count * sizeof(*values));
  *out_count = count;
  return HRX_OK;
}

hrx_status_t hrx_pm4_dispatch_direct(const uint32_t groups[3],
                                     uint32_t initiator, uint32_t* dwords,
                                     size_t capacity, size_t* out_count) {
  const uint32_t packet[] = {
      header(HRX_PM4_DISPATCH_DIRECT, HRX_PM4_DISPATCH_DIRECT_DWORDS),
      groups[0], groups[1], groups[2], initiator};
  _Static_assert(sizeof(packet) / sizeof(packet[0]) ==
                     HRX_PM4_DISPATCH_DIRECT_DWORDS,
                 "DISPATCH_DIRECT length");
  return emit("DISPATCH_DIRECT", packet, HRX_PM4_DISPATCH_DIRECT_DWORDS,
              dwords, capacity, out_count);
}

hrx_status_t hrx_pm4_write_data(uint64_t address, const uint32_t* values,
                                uint32_t value_count, uint32_t* dwords,
                                size_t capacity, size_t* out_count) {
  if (value_count == 0 ||
      value_count > HRX_PM4_MAX_DWORDS - HRX_PM4_WRITE_DATA_FIXED_DWORDS) {
    return invalid("WRITE_DATA", "value count outside 1..16381");
  }
  if (address % 4 != 0) return invalid("WRITE_DATA", "address not dword aligned");
  size_t count = HRX_PM4_WRITE_DATA_FIXED_DWORDS + value_count;
  HRX_RETURN_IF_ERROR(room("WRITE_DATA", count, capacity));
  dwords[0] = header(HRX_PM4_WRITE_DATA, (uint32_t)count);
  dwords[1] = HRX_PM4_WRITE_DATA_DST_MEMORY
                  << HRX_PM4_WRITE_DATA_DST_SEL_SHIFT |
              HRX_PM4_WRITE_DATA_CONFIRM;
  dwords[2] = (uint32_t)address;
  dwords[3] = (uint32_t)(address >> 32);
  memcpy(dwords + 4, values, value_count * sizeof(*values));
  *out_count = count;
  return HRX_OK;
}

static uint32_t wait_control(hrx_pm4_compare_t compare) {
  return (uint32_t)compare |
         HRX_PM4_WAIT_MEM_SPACE_MEMORY << HRX_PM4_WAIT_MEM_SPACE_SHIFT;
}

static hrx_status_t check_wait(const char* name, const hrx_pm4_wait_t* w,
                               uint64_t alignment) {
  if ((uint32_t)w->compare > HRX_PM4_COMPARE_GREATER) {
    return invalid(name, "unknown compare function");
  }
  if (w->poll_interval > HRX_PM4_WAIT_POLL_INTERVAL_MASK) {
    return invalid(name, "poll interval over 16 bits");
  }
  if (w->address % alignment != 0) return invalid(name, "address misaligned");
  return HRX_OK;
}

hrx_status_t hrx_pm4_wait_reg_mem(const hrx_pm4_wait_t* wait,
                                  uint32_t* dwords, size_t capacity,
                                  size_t* out_count) {
  HRX_RETURN_IF_ERROR(check_wait("WAIT_REG_MEM", wait, 4));
  if ((wait->reference | wait->mask) > UINT32_MAX) {
    return invalid("WAIT_REG_MEM", "reference or mask over 32 bits");
  }
  const uint32_t packet[] = {
      header(HRX_PM4_WAIT_REG_MEM, HRX_PM4_WAIT_REG_MEM_DWORDS),
      wait_control(wait->compare),
      (uint32_t)wait->address,
      (uint32_t)(wait->address >> 32),
      (uint32_t)wait->reference,
      (uint32_t)wait->mask,
      wait->poll_interval};
  _Static_assert(sizeof(packet) / sizeof(packet[0]) ==
                     HRX_PM4_WAIT_REG_MEM_DWORDS,
                 "WAIT_REG_MEM length");
  return emit("WAIT_REG_MEM", packet, HRX_PM4_WAIT_REG_MEM_DWORDS, dwords,
              capacity, out_count);
}

hrx_status_t hrx_pm4_wait_reg_mem64(const hrx_pm4_wait_t* wait,
                                    uint32_t* dwords, size_t capacity,
                                    size_t* out_count) {
  HRX_RETURN_IF_ERROR(check_wait("WAIT_REG_MEM64", wait, 8));
  const uint32_t packet[] = {
      header(HRX_PM4_WAIT_REG_MEM64, HRX_PM4_WAIT_REG_MEM64_DWORDS),
      wait_control(wait->compare),
      (uint32_t)wait->address,
      (uint32_t)(wait->address >> 32),
      (uint32_t)wait->reference,
      (uint32_t)(wait->reference >> 32),
      (uint32_t)wait->mask,
      (uint32_t)(wait->mask >> 32),
      wait->poll_interval};
  _Static_assert(sizeof(packet) / sizeof(packet[0]) ==
                     HRX_PM4_WAIT_REG_MEM64_DWORDS,
                 "WAIT_REG_MEM64 length");
  return emit("WAIT_REG_MEM64", packet, HRX_PM4_WAIT_REG_MEM64_DWORDS, dwords,
              capacity, out_count);
}

hrx_status_t hrx_pm4_release_mem(const hrx_pm4_release_t* r,
                                 uint32_t* dwords, size_t capacity,
                                 size_t* out_count) {
  if (r->event_type > HRX_PM4_EVENT_TYPE_MASK ||
      (r->gcr & ~HRX_PM4_RELEASE_MEM_GCR_MASK) != 0) {
    return invalid("RELEASE_MEM", "event type or GCR bits out of field");
  }
  if ((uint32_t)r->data > HRX_PM4_DATA_SYSTEM_CLOCK ||
      (uint32_t)r->interrupt > HRX_PM4_INT_DATA_AFTER_WRITE_CONFIRM) {
    return invalid("RELEASE_MEM", "unknown data or interrupt selection");
  }
  uint64_t alignment = r->data == HRX_PM4_DATA_32 ? 4 : 8;
  if (r->data != HRX_PM4_DATA_NONE && r->address % alignment != 0) {
    return invalid("RELEASE_MEM", "address misaligned for its data");
  }
  const uint32_t packet[] = {
      header(HRX_PM4_RELEASE_MEM, HRX_PM4_RELEASE_MEM_DWORDS),
      r->event_type |
          HRX_PM4_EVENT_INDEX_END_OF_PIPE << HRX_PM4_EVENT_INDEX_SHIFT |
          r->gcr,
      (uint32_t)r->interrupt << HRX_PM4_RELEASE_MEM_INT_SEL_SHIFT |
          (uint32_t)r->data << HRX_PM4_RELEASE_MEM_DATA_SEL_SHIFT,
      (uint32_t)r->address,
      (uint32_t)(r->address >> 32),
      (uint32_t)r->value,
      (uint32_t)(r->value >> 32),
      r->event_id};
  _Static_assert(sizeof(packet) / sizeof(packet[0]) ==
                     HRX_PM4_RELEASE_MEM_DWORDS,
                 "RELEASE_MEM length");
  return emit("RELEASE_MEM", packet, HRX_PM4_RELEASE_MEM_DWORDS, dwords,
              capacity, out_count);
}

hrx_status_t hrx_pm4_acquire_mem(uint32_t gcr_cntl, uint32_t* dwords,
                                 size_t capacity, size_t* out_count) {
  if ((gcr_cntl & ~HRX_PM4_ACQUIRE_MEM_GCR_CNTL_MASK) != 0) {
    return invalid("ACQUIRE_MEM", "GCR_CNTL over 19 bits");
  }
  /* COHER_SIZE all ones from base 0: every address. */
  const uint32_t packet[] = {
      header(HRX_PM4_ACQUIRE_MEM, HRX_PM4_ACQUIRE_MEM_DWORDS),
      0,
      UINT32_MAX,
      HRX_PM4_ACQUIRE_MEM_SIZE_HI_MASK,
      0,
      0,
      0,
      gcr_cntl};
  _Static_assert(sizeof(packet) / sizeof(packet[0]) ==
                     HRX_PM4_ACQUIRE_MEM_DWORDS,
                 "ACQUIRE_MEM length");
  return emit("ACQUIRE_MEM", packet, HRX_PM4_ACQUIRE_MEM_DWORDS, dwords,
              capacity, out_count);
}

hrx_status_t hrx_pm4_event_write(uint32_t event_type, uint32_t event_index,
                                 uint32_t* dwords, size_t capacity,
                                 size_t* out_count) {
  if (event_type > HRX_PM4_EVENT_TYPE_MASK ||
      event_index > HRX_PM4_EVENT_INDEX_MASK) {
    return invalid("EVENT_WRITE", "event type or index out of field");
  }
  const uint32_t packet[] = {
      header(HRX_PM4_EVENT_WRITE, HRX_PM4_EVENT_WRITE_DWORDS),
      event_type | event_index << HRX_PM4_EVENT_INDEX_SHIFT};
  return emit("EVENT_WRITE", packet, HRX_PM4_EVENT_WRITE_DWORDS, dwords,
              capacity, out_count);
}

hrx_status_t hrx_pm4_indirect_buffer(uint64_t address, uint32_t ib_dwords,
                                     uint32_t* dwords, size_t capacity,
                                     size_t* out_count) {
  if (address % 4 != 0 || (address >> 32) > HRX_PM4_IB_BASE_HI_MASK) {
    return invalid("INDIRECT_BUFFER", "address misaligned or over 48 bits");
  }
  if (ib_dwords == 0 || ib_dwords > HRX_PM4_IB_SIZE_MASK) {
    return invalid("INDIRECT_BUFFER", "size outside 1..2^20-1 dwords");
  }
  const uint32_t packet[] = {
      header(HRX_PM4_INDIRECT_BUFFER, HRX_PM4_INDIRECT_BUFFER_DWORDS),
      (uint32_t)address, (uint32_t)(address >> 32),
      ib_dwords | HRX_PM4_IB_VALID};
  return emit("INDIRECT_BUFFER", packet, HRX_PM4_INDIRECT_BUFFER_DWORDS,
              dwords, capacity, out_count);
}

hrx_status_t hrx_pm4_dma_data(const hrx_pm4_dma_t* dma, uint32_t* dwords,
                              size_t capacity, size_t* out_count) {
  if (dma->byte_count == 0 ||
      dma->byte_count > HRX_PM4_DMA_BYTE_COUNT_MASK) {
    return invalid("DMA_DATA", "byte count outside 1..2^26-1");
  }
  if (dma->fill && (dma->byte_count % 4 != 0 || dma->destination % 4 != 0)) {
    return invalid("DMA_DATA", "a fill needs whole aligned dwords");
  }
  uint32_t source_sel = dma->fill ? HRX_PM4_DMA_SRC_DATA : HRX_PM4_DMA_SEL_L2;
  uint64_t source = dma->fill ? dma->fill_value : dma->source;
  const uint32_t packet[] = {
      header(HRX_PM4_DMA_DATA, HRX_PM4_DMA_DATA_DWORDS),
      HRX_PM4_DMA_SEL_L2 << HRX_PM4_DMA_DST_SEL_SHIFT |
          source_sel << HRX_PM4_DMA_SRC_SEL_SHIFT | HRX_PM4_DMA_CP_SYNC,
      (uint32_t)source,
      (uint32_t)(source >> 32),
      (uint32_t)dma->destination,
      (uint32_t)(dma->destination >> 32),
      dma->byte_count};
  return emit("DMA_DATA", packet, HRX_PM4_DMA_DATA_DWORDS, dwords, capacity,
              out_count);
}

hrx_status_t hrx_pm4_wrap_padding(uint64_t write_index, uint64_t ring_dwords,
                                  uint32_t packet_dwords,
                                  uint32_t* out_padding) {
  if (ring_dwords == 0 || (ring_dwords & (ring_dwords - 1)) != 0 ||
      packet_dwords == 0 || packet_dwords > ring_dwords) {
    return invalid("ring", "size not a power of two or packet too long");
  }
  uint64_t left = ring_dwords - write_index % ring_dwords;
  *out_padding = left < packet_dwords ? (uint32_t)left : 0;
  return HRX_OK;
}
