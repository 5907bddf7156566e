/* The KFD model's SDMA engine for SDMA queues: packets run one at a time
 * from the ring (read and write indices in bytes, packets read across the
 * wrap), with the model's mutex held.
 *
 * COPY_LINEAR and CONST_FILL move bytes between mapped allocations, FENCE
 * writes its dword once the packets before it are done, POLL_REGMEM on
 * memory parks the queue until its compare holds (the model polls
 * forever, whatever the retry count), GCR_REQ and NOP retire. A packet
 * that is malformed or names memory outside every mapped allocation stops
 * the queue with a fault naming it; an opcode the model lacks stops it as
 * UNSUPPORTED. */
#include <stdatomic.h>
#include <string.h>

#include "kfd_model_internal.h"
#include "sdma_packets.h"

/* COPY_LINEAR header bits the model does not honour: TMZ [18] (secure
 * memory), BACKWARDS [25], BROADCAST [27]. */
#define KFD_MODEL_SDMA_COPY_UNMODELLED ((1u << 18) | (1u << 25) | (1u << 27))
/* The longest packet whose dwords the engine reads (COPY_LINEAR). */
#define KFD_MODEL_SDMA_MAX_READ HRX_SDMA_COPY_LINEAR_DWORDS

typedef enum sdma_result_t {
  SDMA_RETIRE, /* done: the read index moves past it */
  SDMA_WAIT,   /* not yet: run it again later */
  SDMA_STOP,   /* the queue faulted */
} sdma_result_t;

typedef struct sdma_packet_t {
  uint64_t address; /* of its header, for fault reports */
  uint32_t op, sub_op;
  uint32_t length; /* dwords, header included */
  uint32_t d[KFD_MODEL_SDMA_MAX_READ];
} sdma_packet_t;

static uint64_t pair(const sdma_packet_t* p, uint32_t i) {
  return p->d[i] | (uint64_t)p->d[i + 1] << 32;
}

static sdma_result_t packet_fault(kfd_model_queue_t* q,
                                  const sdma_packet_t* p,
                                  hrx_gfx11_fault_kind_t kind,
                                  const char* why) {
  kfd_model_set_fault(q, kind, 0,
                      "SDMA packet 0x%08x (op %u, sub-op %u) at 0x%llx: %s",
                      p->d[0], p->op, p->sub_op,
                      (unsigned long long)p->address, why);
  q->fault.pc = p->address;
  q->bad_packet = true;
  return SDMA_STOP;
}

static void* operand(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                     const sdma_packet_t* p, uint64_t address, uint64_t size,
                     uint64_t alignment) {
  return kfd_model_gpu_pointer(m, q, address, size, alignment,
                               "SDMA packet operand", p->address);
}

static sdma_result_t copy_linear(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                                 const sdma_packet_t* p) {
  if (p->sub_op != HRX_SDMA_SUB_OP_COPY_LINEAR) {
    return packet_fault(q, p, HRX_GFX11_FAULT_UNSUPPORTED,
                        "only linear copies are modelled");
  }
  if (p->d[0] & KFD_MODEL_SDMA_COPY_UNMODELLED) {
    return packet_fault(q, p, HRX_GFX11_FAULT_UNSUPPORTED,
                        "TMZ, backwards or broadcast copy");
  }
  uint64_t count = (uint64_t)(p->d[1] & HRX_SDMA_COPY_COUNT_MASK) + 1;
  const uint8_t* source = operand(m, q, p, pair(p, 3), count, 1);
  if (source == NULL) return SDMA_STOP;
  uint8_t* target = operand(m, q, p, pair(p, 5), count, 1);
  if (target == NULL) return SDMA_STOP;
  memmove(target, source, count);
  return SDMA_RETIRE;
}

static sdma_result_t const_fill(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                                const sdma_packet_t* p) {
  uint32_t size = p->d[0] >> HRX_SDMA_FILLSIZE_SHIFT;
  uint64_t count = (uint64_t)(p->d[4] & HRX_SDMA_FILL_COUNT_MASK) + 1;
  if (size != HRX_SDMA_FILLSIZE_BYTE && size != HRX_SDMA_FILLSIZE_DWORD) {
    return packet_fault(q, p, HRX_GFX11_FAULT_UNSUPPORTED,
                        "fill size other than a byte or a dword");
  }
  bool dwords = size == HRX_SDMA_FILLSIZE_DWORD;
  if (dwords && count % 4 != 0) {
    return packet_fault(q, p, HRX_GFX11_FAULT_UNDECODABLE,
                        "a dword fill of part dwords");
  }
  uint8_t* target = operand(m, q, p, pair(p, 1), count, dwords ? 4 : 1);
  if (target == NULL) return SDMA_STOP;
  if (!dwords) {
    memset(target, (int)(p->d[3] & 0xFFu), count);
    return SDMA_RETIRE;
  }
  for (uint64_t at = 0; at < count; at += 4) memcpy(target + at, &p->d[3], 4);
  return SDMA_RETIRE;
}

static sdma_result_t fence(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                           const sdma_packet_t* p) {
  _Atomic uint32_t* target = operand(m, q, p, pair(p, 1), 4, 4);
  if (target == NULL) return SDMA_STOP;
  atomic_store_explicit(target, p->d[3], memory_order_release);
  return SDMA_RETIRE;
}

static sdma_result_t poll_regmem(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                                 const sdma_packet_t* p) {
  if (!(p->d[0] & HRX_SDMA_POLL_MEM) || (p->d[0] & HRX_SDMA_POLL_HDP_FLUSH)) {
    return packet_fault(q, p, HRX_GFX11_FAULT_UNSUPPORTED,
                        "register polls and HDP flushes");
  }
  _Atomic uint32_t* word = operand(m, q, p, pair(p, 1), 4, 4);
  if (word == NULL) return SDMA_STOP;
  uint32_t value = atomic_load_explicit(word, memory_order_acquire);
  int holds = kfd_model_compare(
      p->d[0] >> HRX_SDMA_POLL_FUNC_SHIFT & HRX_SDMA_POLL_FUNC_MASK,
      value & p->d[4], p->d[3]);
  if (holds < 0) {
    return packet_fault(q, p, HRX_GFX11_FAULT_UNDECODABLE,
                        "reserved compare function 7");
  }
  return holds ? SDMA_RETIRE : SDMA_WAIT;
}

/* The packet's length from its header; 0 for an opcode the model lacks. */
static uint32_t packet_length(uint32_t header, uint32_t op) {
  switch (op) {
    case HRX_SDMA_OP_NOP:
      return 1 + (header >> HRX_SDMA_NOP_COUNT_SHIFT & HRX_SDMA_NOP_COUNT_MASK);
    case HRX_SDMA_OP_COPY: return HRX_SDMA_COPY_LINEAR_DWORDS;
    case HRX_SDMA_OP_FENCE: return HRX_SDMA_FENCE_DWORDS;
    case HRX_SDMA_OP_POLL_REGMEM: return HRX_SDMA_POLL_REGMEM_DWORDS;
    case HRX_SDMA_OP_CONST_FILL: return HRX_SDMA_CONST_FILL_DWORDS;
    case HRX_SDMA_OP_GCR_REQ: return HRX_SDMA_GCR_DWORDS;
    default: return 0;
  }
}

static sdma_result_t execute(hrx_kfd_model_t* m, kfd_model_queue_t* q,
                             const sdma_packet_t* p) {
  switch (p->op) {
    case HRX_SDMA_OP_COPY: return copy_linear(m, q, p);
    case HRX_SDMA_OP_FENCE: return fence(m, q, p);
    case HRX_SDMA_OP_POLL_REGMEM: return poll_regmem(m, q, p);
    case HRX_SDMA_OP_CONST_FILL: return const_fill(m, q, p);
    /* Caches are coherent in the model: a GCR has nothing to do. */
    default: return SDMA_RETIRE;
  }
}

bool kfd_model_sdma_step(hrx_kfd_model_t* m, kfd_model_queue_t* q) {
  uint64_t available;
  if (!kfd_model_ring_pending(m, q, &available)) return true;
  if (available == 0) return false;
  sdma_packet_t p = {.address = q->ring + q->read_index * 4 % q->ring_size};
  p.d[0] = kfd_model_ring_dword(q, 0);
  p.op = p.d[0] & HRX_SDMA_OP_MASK;
  p.sub_op = p.d[0] >> HRX_SDMA_SUB_OP_SHIFT & HRX_SDMA_SUB_OP_MASK;
  p.length = packet_length(p.d[0], p.op);
  if (p.length == 0) {
    packet_fault(q, &p, HRX_GFX11_FAULT_UNSUPPORTED, "opcode not modelled");
    return true;
  }
  if (p.length > q->ring_size / 4) {
    packet_fault(q, &p, HRX_GFX11_FAULT_UNDECODABLE,
                 "packet longer than the ring");
    return true;
  }
  /* Run a packet only once the producer published all of it. */
  if (p.length > available) return false;
  for (uint32_t i = 1; i < p.length && i < KFD_MODEL_SDMA_MAX_READ; ++i) {
    p.d[i] = kfd_model_ring_dword(q, i);
  }
  sdma_result_t result = execute(m, q, &p);
  if (result == SDMA_WAIT) return false;
  if (result == SDMA_RETIRE) kfd_model_ring_retire(m, q, p.length);
  return true;
}
