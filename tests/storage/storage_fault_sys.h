/* A storage system-call table that forwards to the native one and fails
 * one chosen call: the |fail_at|th call (1-based) of entry |call| returns
 * -|error|. It can also turn the |fail_at|th completion into an I/O error
 * (STORAGE_CALL_CQE), as a failing disk would. Counters are atomic: the
 * service thread makes some of the calls. */
#ifndef HRX_TESTS_STORAGE_FAULT_SYS_H_
#define HRX_TESTS_STORAGE_FAULT_SYS_H_

#include <stdatomic.h>

#include "ring_sys.h"

typedef enum storage_call_e {
  STORAGE_CALL_NONE = 0,
  STORAGE_CALL_QUEUE_INIT,
  STORAGE_CALL_REGISTER_FILES_SPARSE,
  STORAGE_CALL_REGISTER_FILES_UPDATE,
  STORAGE_CALL_REGISTER_BUFFERS,
  STORAGE_CALL_REGISTER_EVENTFD,
  STORAGE_CALL_SUBMIT,
  STORAGE_CALL_PEEK_CQE,
  STORAGE_CALL_EVENTFD,
  STORAGE_CALL_READ,
  STORAGE_CALL_WRITE,
  STORAGE_CALL_OPEN,
  STORAGE_CALL_GET_FLAGS,
  STORAGE_CALL_STATX,
  STORAGE_CALL_MAP_PAGES,
  STORAGE_CALL_DUPLICATE,
  STORAGE_CALL_URING_SETUP,
  STORAGE_CALL_URING_REGISTER,
  STORAGE_CALL_URING_ENTER,
  STORAGE_CALL_CQE,
  STORAGE_CALL_COUNT,
} storage_call_t;

typedef struct storage_fault_t {
  hrx_storage_sys_t native;
  _Atomic storage_call_t call;
  unsigned fail_at;
  unsigned fail_count; /* consecutive failing calls from fail_at on */
  int error;
  atomic_uint calls[STORAGE_CALL_COUNT];
} storage_fault_t;

/* Arms |fault| to fail one call and returns the table that consults it. */
hrx_storage_sys_t storage_fault_sys(storage_fault_t* fault,
                                    storage_call_t call, unsigned fail_at,
                                    int error);

/* Makes every call of the armed entry from fail_at on fail, until
 * storage_fault_disarm. */
void storage_fault_make_sticky(storage_fault_t* fault);
void storage_fault_disarm(storage_fault_t* fault);

/* The name of |call| for test messages. */
const char* storage_call_name(storage_call_t call);

#endif /* HRX_TESTS_STORAGE_FAULT_SYS_H_ */
