/* The slot pool: a fixed array of equally sized slots carved from one
 * anonymous mapping, each remembering which physical range it holds and
 * who holds it. Pure bookkeeping: the session lock guards every call. */
#ifndef HRX_STORAGE_POOL_H_
#define HRX_STORAGE_POOL_H_

#include <stdbool.h>
#include <stdint.h>

#include "ring_sys.h"

#define HRX_STORAGE_NO_SLOT UINT32_MAX

typedef enum hrx_storage_slot_state_e {
  HRX_STORAGE_SLOT_EMPTY = 0, /* holds no range */
  HRX_STORAGE_SLOT_QUEUED,    /* accepted, not yet in the ring */
  HRX_STORAGE_SLOT_READING,   /* submitted to the kernel */
  HRX_STORAGE_SLOT_READY,
  HRX_STORAGE_SLOT_FAILED,
} hrx_storage_slot_state_t;

/* What the slot's next (or current) request does with it. */
typedef enum hrx_storage_slot_op_e {
  HRX_STORAGE_OP_READ = 0,
  HRX_STORAGE_OP_WRITE,
  HRX_STORAGE_OP_SYNC, /* the fsync or fdatasync a write asked for */
} hrx_storage_slot_op_t;

typedef struct hrx_storage_slot_t {
  uint8_t* memory;
  /* The physical range read into |memory| (direct I/O widens it). */
  uint32_t file;
  uint64_t offset;
  uint64_t length;
  /* Bytes the read must return: up to the end of the logical range. */
  uint64_t required;
  hrx_storage_slot_state_t state;
  hrx_storage_slot_op_t op;
  /* HRX_STORAGE_WRITE_* bits a write still owes after its data lands. */
  uint32_t write_flags;
  /* Later reads of the same range may use it: a read no write has
   * overlapped since. */
  bool shareable;
  /* Tickets plus the read itself while it is queued or in the kernel:
   * the kernel may write the slot until its completion is reaped. */
  uint32_t holders;
  uint64_t accepted_ns;
  uint64_t submitted_ns;
} hrx_storage_slot_t;

typedef struct hrx_storage_pool_t {
  void* pages;
  uint64_t slot_bytes;
  uint32_t slot_count;
  uint32_t retained; /* slots with holders */
  hrx_storage_slot_t* slots;
} hrx_storage_pool_t;

/* Maps |slot_count| x |slot_bytes| of pages (zeroed by the kernel). */
hrx_status_t hrx_storage_pool_init(hrx_storage_pool_t* pool,
                                   const hrx_storage_sys_t* sys,
                                   hrx_allocator_t allocator,
                                   uint32_t slot_count, uint64_t slot_bytes);
void hrx_storage_pool_deinit(hrx_storage_pool_t* pool,
                             const hrx_storage_sys_t* sys,
                             hrx_allocator_t allocator);

/* A retained, not failed slot holding exactly this physical range, or
 * HRX_STORAGE_NO_SLOT. */
uint32_t hrx_storage_pool_find_shared(const hrx_storage_pool_t* pool,
                                      uint32_t file, uint64_t offset,
                                      uint64_t length);
/* Stops reads from sharing slots that hold bytes of [offset, offset +
 * length) of |file|: a write there makes them stale. */
void hrx_storage_pool_unshare(hrx_storage_pool_t* pool, uint32_t file,
                              uint64_t offset, uint64_t length);
/* A slot nobody holds, or HRX_STORAGE_NO_SLOT when every slot is
 * retained. */
uint32_t hrx_storage_pool_find_free(const hrx_storage_pool_t* pool);

void hrx_storage_pool_hold(hrx_storage_pool_t* pool, uint32_t index);
void hrx_storage_pool_drop(hrx_storage_pool_t* pool, uint32_t index);

#endif /* HRX_STORAGE_POOL_H_ */
