/* ERT command packets: what a CMD BO holds when it is submitted with
 * EXEC_CMD, and the state the firmware writes back into its first word. */
#ifndef HRX_NPU_COMMAND_H_
#define HRX_NPU_COMMAND_H_

#include <stdint.h>

/* Header word 0x3B00B001 plus 11 payload words: 48 bytes. */
#define HRX_NPU_ERT_WORDS 12

/* The low four bits of word 0. */
typedef enum hrx_npu_ert_state_e {
  HRX_NPU_ERT_STATE_NEW = 1,
  HRX_NPU_ERT_STATE_QUEUED = 2,
  HRX_NPU_ERT_STATE_RUNNING = 3,
  HRX_NPU_ERT_STATE_COMPLETED = 4,
  HRX_NPU_ERT_STATE_ERROR = 5,
  HRX_NPU_ERT_STATE_ABORT = 6,
  HRX_NPU_ERT_STATE_SUBMITTED = 7,
  HRX_NPU_ERT_STATE_TIMEOUT = 8,
  HRX_NPU_ERT_STATE_NORESPONSE = 9,
} hrx_npu_ert_state_t;

#define HRX_NPU_ERT_STATE_MASK 0xfu

/* ERT_START_NPU_PREEMPT_ELF for the transaction stream of |length| bytes
 * at NPU address |address|: {header, 1 (CU mask), address low, address
 * high, 0, 0, 0, 0, length, 0, 0, 0}. */
void hrx_npu_ert_encode(uint64_t address, uint32_t length,
                        uint32_t out_words[HRX_NPU_ERT_WORDS]);

/* "COMPLETED", "ERROR", ...; "UNKNOWN" for other values. */
const char* hrx_npu_ert_state_name(uint32_t state);

#endif /* HRX_NPU_COMMAND_H_ */
