/* SDMA encoders: the packet is built whole, then written only when the
 * caller's buffer holds it. */
#include "sdma_packets.h"

#include <string.h>

#include "pm4_packets.h"

/* Writes |count| dwords: |header|, then |body| (NULL: zeros). */
static hrx_status_t write_packet(const char* name, uint32_t header,
                                 const uint32_t* body, size_t count,
                                 uint32_t* dwords, size_t capacity,
                                 size_t* out_count) {
  if (count > capacity) {
    return hrx_make_status(HRX_STATUS_RESOURCE_EXHAUSTED,
                           "SDMA %s needs %zu dwords, the buffer has %zu",
                           name, count, capacity);
  }
  dwords[0] = header;
  if (body != NULL) {
    memcpy(dwords + 1, body, (count - 1) * sizeof(*body));
  } else {
    memset(dwords + 1, 0, (count - 1) * sizeof(*dwords));
  }
  *out_count = count;
  return HRX_OK;
}

static hrx_status_t invalid(const char* name, const char* why) {
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "SDMA %s: %s", name,
                         why);
}

hrx_status_t hrx_sdma_nop(uint32_t dword_count, uint32_t* dwords,
                          size_t capacity, size_t* out_count) {
  if (dword_count == 0 || dword_count - 1 > HRX_SDMA_NOP_COUNT_MASK) {
    return invalid("NOP", "length outside 1..16384 dwords");
  }
  return write_packet("NOP",
                      HRX_SDMA_OP_NOP |
                          (dword_count - 1) << HRX_SDMA_NOP_COUNT_SHIFT,
                      NULL, dword_count, dwords, capacity, out_count);
}

hrx_status_t hrx_sdma_copy_linear(uint64_t destination, uint64_t source,
                                  uint32_t byte_count, uint32_t* dwords,
                                  size_t capacity, size_t* out_count) {
  if (byte_count == 0 || byte_count - 1 > HRX_SDMA_COPY_COUNT_MASK) {
    return invalid("COPY_LINEAR", "byte count outside 1..2^30");
  }
  const uint32_t body[] = {byte_count - 1,
                           0,
                           (uint32_t)source,
                           (uint32_t)(source >> 32),
                           (uint32_t)destination,
                           (uint32_t)(destination >> 32)};
  _Static_assert(sizeof(body) / sizeof(body[0]) + 1 ==
                     HRX_SDMA_COPY_LINEAR_DWORDS,
                 "COPY_LINEAR length");
  return write_packet(
      "COPY_LINEAR",
      HRX_SDMA_OP_COPY | HRX_SDMA_SUB_OP_COPY_LINEAR << HRX_SDMA_SUB_OP_SHIFT,
      body, HRX_SDMA_COPY_LINEAR_DWORDS, dwords, capacity, out_count);
}

/* CONST_FILL of |byte_count| bytes with FILLSIZE |size|; the checks of
 * each size are the caller's. */
static hrx_status_t const_fill(uint32_t size, uint64_t destination,
                               uint32_t data, uint32_t byte_count,
                               uint32_t* dwords, size_t capacity,
                               size_t* out_count) {
  const uint32_t body[] = {(uint32_t)destination,
                           (uint32_t)(destination >> 32), data,
                           byte_count - 1};
  _Static_assert(sizeof(body) / sizeof(body[0]) + 1 ==
                     HRX_SDMA_CONST_FILL_DWORDS,
                 "CONST_FILL length");
  return write_packet("CONST_FILL",
                      HRX_SDMA_OP_CONST_FILL | size << HRX_SDMA_FILLSIZE_SHIFT,
                      body, HRX_SDMA_CONST_FILL_DWORDS, dwords, capacity,
                      out_count);
}

hrx_status_t hrx_sdma_const_fill(uint64_t destination, uint32_t pattern,
                                 uint32_t byte_count, uint32_t* dwords,
                                 size_t capacity, size_t* out_count) {
  if (byte_count == 0 || byte_count - 1 > HRX_SDMA_FILL_COUNT_MASK ||
      byte_count % 4 != 0 || destination % 4 != 0) {
    return invalid("CONST_FILL",
                   "needs whole aligned dwords, at most 2^22 bytes");
  }
  return const_fill(HRX_SDMA_FILLSIZE_DWORD, destination, pattern,
                    byte_count, dwords, capacity, out_count);
}

hrx_status_t hrx_sdma_const_fill_bytes(uint64_t destination, uint8_t value,
                                       uint32_t byte_count, uint32_t* dwords,
                                       size_t capacity, size_t* out_count) {
  if (byte_count == 0 || byte_count - 1 > HRX_SDMA_FILL_COUNT_MASK) {
    return invalid("CONST_FILL", "byte count outside 1..2^22");
  }
  return const_fill(HRX_SDMA_FILLSIZE_BYTE, destination, value, byte_count,
                    dwords, capacity, out_count);
}

hrx_status_t hrx_sdma_fence(uint64_t address, uint32_t value,
                            uint32_t* dwords, size_t capacity,
                            size_t* out_count) {
  if (address % 4 != 0) return invalid("FENCE", "address not dword aligned");
  const uint32_t body[] = {(uint32_t)address, (uint32_t)(address >> 32),
                           value};
  _Static_assert(sizeof(body) / sizeof(body[0]) + 1 == HRX_SDMA_FENCE_DWORDS,
                 "FENCE length");
  return write_packet("FENCE", HRX_SDMA_OP_FENCE, body, HRX_SDMA_FENCE_DWORDS,
                      dwords, capacity, out_count);
}

hrx_status_t hrx_sdma_poll_memory(uint64_t address, uint32_t value,
                                  uint32_t mask, uint32_t function,
                                  uint32_t interval, uint32_t* dwords,
                                  size_t capacity, size_t* out_count) {
  if (address % 4 != 0 || function > HRX_PM4_COMPARE_GREATER ||
      interval > HRX_SDMA_POLL_INTERVAL_MASK) {
    return invalid("POLL_REGMEM",
                   "address misaligned, unknown function or interval over "
                   "16 bits");
  }
  const uint32_t body[] = {
      (uint32_t)address, (uint32_t)(address >> 32), value, mask,
      interval | HRX_SDMA_POLL_RETRY_FOREVER << HRX_SDMA_POLL_RETRY_SHIFT};
  _Static_assert(sizeof(body) / sizeof(body[0]) + 1 ==
                     HRX_SDMA_POLL_REGMEM_DWORDS,
                 "POLL_REGMEM length");
  return write_packet(
      "POLL_REGMEM",
      HRX_SDMA_OP_POLL_REGMEM | function << HRX_SDMA_POLL_FUNC_SHIFT |
          HRX_SDMA_POLL_MEM,
      body, HRX_SDMA_POLL_REGMEM_DWORDS, dwords, capacity, out_count);
}

hrx_status_t hrx_sdma_gcr(uint64_t base, uint64_t limit, uint32_t control,
                          uint32_t* dwords, size_t capacity,
                          size_t* out_count) {
  if (base % HRX_SDMA_GCR_VA_GRANULE != 0 ||
      limit % HRX_SDMA_GCR_VA_GRANULE != 0 ||
      (base >> 32) > HRX_SDMA_GCR_VA_HIGH_MASK ||
      (limit >> 32) > HRX_SDMA_GCR_VA_HIGH_MASK ||
      (control & ~HRX_SDMA_GCR_CONTROL_MASK) != 0) {
    return invalid("GCR_REQ",
                   "range not 128-byte aligned 48-bit or control over 19 "
                   "bits");
  }
  const uint32_t body[] = {
      (uint32_t)base & HRX_SDMA_GCR_VA_LOW_MASK,
      (uint32_t)(base >> 32) | control << HRX_SDMA_GCR_CONTROL_LOW_SHIFT,
      (control >> HRX_SDMA_GCR_CONTROL_LOW_SHIFT) |
          ((uint32_t)limit & HRX_SDMA_GCR_VA_LOW_MASK),
      (uint32_t)(limit >> 32)};
  _Static_assert(sizeof(body) / sizeof(body[0]) + 1 == HRX_SDMA_GCR_DWORDS,
                 "GCR_REQ length");
  return write_packet("GCR_REQ", HRX_SDMA_OP_GCR_REQ, body,
                      HRX_SDMA_GCR_DWORDS, dwords, capacity, out_count);
}

hrx_status_t hrx_sdma_ring_offset(uint64_t byte_index, uint64_t ring_bytes,
                                  uint64_t* out_offset) {
  if (ring_bytes < 4 || (ring_bytes & (ring_bytes - 1)) != 0 ||
      byte_index % 4 != 0) {
    return invalid("ring",
                   "size not a power of two or index not a dword multiple");
  }
  *out_offset = byte_index & (ring_bytes - 1);
  return HRX_OK;
}
