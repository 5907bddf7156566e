/* The session object, shared by session.c, files.c, service.c and
 * ticket.c. */
#ifndef HRX_STORAGE_SESSION_INTERNAL_H_
#define HRX_STORAGE_SESSION_INTERNAL_H_

#include <pthread.h>
#include <stdbool.h>

#include "pool.h"
#include "ring_sys.h"

/* Slots are page-aligned multiples of this; direct I/O may need no more
 * memory alignment than it. */
#define HRX_STORAGE_PAGE_BYTES 4096u

typedef struct hrx_storage_file_t {
  int fd; /* the session's own descriptor, closed at destroy */
  /* Direct I/O offset and length alignment; 1 for buffered files. */
  uint32_t alignment;
  bool writable; /* opened O_RDWR: writes are accepted */
} hrx_storage_file_t;

struct hrx_storage_session_s {
  hrx_allocator_t allocator;
  hrx_storage_sys_t sys;
  hrx_storage_options_t options;

  /* Created and destroyed by the creating/destroying thread; between the
   * two, only the service thread touches its queues. */
  struct io_uring ring;
  bool ring_ready;
  int event_fd; /* completions and new work wake the service thread */
  pthread_t service_thread;
  bool service_started;

  pthread_mutex_t mutex;
  pthread_cond_t changed; /* a slot completed or the session failed */
  /* The creator's reference plus one per live ticket; the last release
   * frees the pages and the object. */
  uint32_t references;
  hrx_storage_pool_t pool;
  hrx_storage_file_t* files;
  uint32_t file_count;
  /* Slots accepted but not yet submitted, first in first out; a slot is
   * queued at most once, so slot_count entries suffice. */
  uint32_t* queue;
  uint32_t queue_head;
  uint32_t queue_length;
  uint32_t in_kernel; /* submitted, completion not yet reaped */
  /* Set by the service thread, under the lock, just before it sleeps on
   * the eventfd; readers wake it only then. */
  bool service_sleeping;
  bool stopping;
  hrx_status_t failure; /* the first I/O failure, owned */
  hrx_storage_statistics_t stats;
};

/* The service thread's body (service.c). */
void* hrx_storage_service_main(void* session);

/* A copy of the session's failure for a caller (lock held). */
hrx_status_t hrx_storage_session_failure_copy(hrx_storage_session_t* session);

/* Records |status| as the session's failure unless it already has one
 * (which then wins and |status| is freed); wakes waiters (lock held). */
void hrx_storage_session_fail(hrx_storage_session_t* session,
                              hrx_status_t status);

/* Drops one reference; the last frees the session (lock not held). */
void hrx_storage_session_release(hrx_storage_session_t* session);

/* The session's failure, a destroy under way, or an unregistered |file|
 * as a status (lock held). */
hrx_status_t hrx_storage_session_check_file(hrx_storage_session_t* session,
                                            uint32_t file);

/* Takes a free slot for one request and holds it for the request (lock
 * held); BUSY when every slot is retained. */
hrx_status_t hrx_storage_session_claim(hrx_storage_session_t* session,
                                       uint32_t file, uint64_t offset,
                                       uint64_t length, uint64_t required,
                                       hrx_storage_slot_op_t op,
                                       uint32_t* out_slot);

/* Hands a claimed slot to the service thread (lock held); when the wake-up
 * fails the claim is given back. */
hrx_status_t hrx_storage_session_enqueue(hrx_storage_session_t* session,
                                         uint32_t index);

/* Wakes the service thread through the eventfd. */
int hrx_storage_session_wake(hrx_storage_session_t* session);

#endif /* HRX_STORAGE_SESSION_INTERNAL_H_ */
