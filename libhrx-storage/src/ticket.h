/* Tickets: a caller's hold on one slot and the logical range in it. */
#ifndef HRX_STORAGE_TICKET_H_
#define HRX_STORAGE_TICKET_H_

#include "session_internal.h"

struct hrx_storage_ticket_s {
  hrx_storage_session_t* session; /* one reference, from bind */
  uint32_t slot;
  uint64_t skip; /* bytes of direct-I/O padding before the range */
  uint64_t length;
};

/* An unbound ticket, allocated before the session lock is taken. */
hrx_status_t hrx_storage_ticket_allocate(hrx_storage_session_t* session,
                                         hrx_storage_ticket_t** out_ticket);
/* Fills in the slot; the caller has already taken the ticket's slot hold
 * and session reference (lock held). */
void hrx_storage_ticket_bind(hrx_storage_ticket_t* ticket, uint32_t slot,
                             uint64_t skip, uint64_t length);
/* Frees a ticket that was never bound. */
void hrx_storage_ticket_free(hrx_storage_ticket_t* ticket);

#endif /* HRX_STORAGE_TICKET_H_ */
