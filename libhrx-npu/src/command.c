#include "command.h"

/* ERT packet header fields: state [3:0], custom [11:4], payload word
 * count [22:12], opcode [27:23], type [31:28]. */
#define ERT_OPCODE_START_NPU_PREEMPT_ELF 22u
#define ERT_TYPE 3u
#define ERT_PAYLOAD_WORDS (HRX_NPU_ERT_WORDS - 1)
#define ERT_HEADER                                                   \
  ((uint32_t)HRX_NPU_ERT_STATE_NEW | ((uint32_t)ERT_PAYLOAD_WORDS << 12) | \
   (ERT_OPCODE_START_NPU_PREEMPT_ELF << 23) | (ERT_TYPE << 28))
_Static_assert(ERT_HEADER == 0x3B00B001u, "the documented ERT header");

#define ERT_CU_MASK 1u
#define ERT_LENGTH_WORD 8

void hrx_npu_ert_encode(uint64_t address, uint32_t length,
                        uint32_t out_words[HRX_NPU_ERT_WORDS]) {
  for (int i = 0; i < HRX_NPU_ERT_WORDS; ++i) out_words[i] = 0;
  out_words[0] = ERT_HEADER;
  out_words[1] = ERT_CU_MASK;
  out_words[2] = (uint32_t)address;
  out_words[3] = (uint32_t)(address >> 32);
  out_words[ERT_LENGTH_WORD] = length;
}

const char* hrx_npu_ert_state_name(uint32_t state) {
  static const char* const kNames[] = {
      [HRX_NPU_ERT_STATE_NEW] = "NEW",
      [HRX_NPU_ERT_STATE_QUEUED] = "QUEUED",
      [HRX_NPU_ERT_STATE_RUNNING] = "RUNNING",
      [HRX_NPU_ERT_STATE_COMPLETED] = "COMPLETED",
      [HRX_NPU_ERT_STATE_ERROR] = "ERROR",
      [HRX_NPU_ERT_STATE_ABORT] = "ABORT",
      [HRX_NPU_ERT_STATE_SUBMITTED] = "SUBMITTED",
      [HRX_NPU_ERT_STATE_TIMEOUT] = "TIMEOUT",
      [HRX_NPU_ERT_STATE_NORESPONSE] = "NORESPONSE",
  };
  if (state < sizeof(kNames) / sizeof(kNames[0]) && kNames[state]) {
    return kNames[state];
  }
  return "UNKNOWN";
}
