/* The service thread: the only user of the ring's submission and
 * completion queues. It sleeps on the session's eventfd, which the ring
 * signals on every completion and readers write when they queue work. */
#include <errno.h>

#include "session_internal.h"

/* Completions taken per pass before the lock is retaken. */
#define HRX_STORAGE_REAP_BATCH 64
/* Pause after a failed system call before trying it again. */
#define HRX_STORAGE_RETRY_NS 1000000u
/* Submission attempts a stopping session makes before it abandons entries
 * the kernel keeps refusing. */
#define HRX_STORAGE_STOP_SUBMIT_ATTEMPTS 100u

typedef struct hrx_storage_completion_t {
  uint32_t slot;
  int32_t result;
} hrx_storage_completion_t;

/* Entries in the submission queue that the kernel has not taken yet, in
 * preparation order (service thread only). */
typedef struct hrx_storage_unsubmitted_t {
  uint32_t slots[HRX_STORAGE_MAX_SLOTS];
  uint32_t head;
  uint32_t length;
  uint32_t failed_attempts;
} hrx_storage_unsubmitted_t;

static void interval_add(hrx_storage_interval_t* interval, uint64_t ns) {
  interval->count++;
  interval->total_ns += ns;
  if (ns > interval->max_ns) {
    interval->max_ns = ns;
  }
}

static void fail_slot(hrx_storage_session_t* session, uint32_t index) {
  session->pool.slots[index].state = HRX_STORAGE_SLOT_FAILED;
  hrx_storage_pool_drop(&session->pool, index);
}

/* Fails every queued read: a failed session issues nothing more (lock
 * held). */
static void fail_queued(hrx_storage_session_t* session) {
  for (; session->queue_length > 0; session->queue_length--) {
    fail_slot(session, session->queue[session->queue_head]);
    session->queue_head =
        (session->queue_head + 1) % session->options.slot_count;
  }
  pthread_cond_broadcast(&session->changed);
}

static void prepare_entry(struct io_uring_sqe* sqe,
                          const hrx_storage_slot_t* slot, uint32_t index,
                          hrx_storage_io_mode_t mode) {
  switch (slot->op) {
    case HRX_STORAGE_OP_READ:
      io_uring_prep_read_fixed(sqe, (int)slot->file, slot->memory,
                               (unsigned)slot->length, slot->offset,
                               (int)index);
      break;
    case HRX_STORAGE_OP_WRITE:
      io_uring_prep_write_fixed(sqe, (int)slot->file, slot->memory,
                                (unsigned)slot->length, slot->offset,
                                (int)index);
      break;
    case HRX_STORAGE_OP_SYNC:
      io_uring_prep_fsync(sqe, (int)slot->file,
                          (slot->write_flags & HRX_STORAGE_WRITE_FSYNC)
                              ? 0
                              : IORING_FSYNC_DATASYNC);
      break;
  }
  sqe->flags |= IOSQE_FIXED_FILE;
  /* A buffered request that hits the page cache would otherwise be copied
   * inline, inside this thread's io_uring_enter: every copy serialised
   * behind the one thread that also reaps and wakes the waiters. Handed to
   * the kernel's io-wq workers, copies run in parallel (bounded by the
   * slots in flight) while this thread goes on. Direct requests are
   * asynchronous block I/O already; forced through io-wq they lost about
   * two thirds of their rate in bench/storage. */
  if (mode == HRX_STORAGE_IO_BUFFERED) {
    sqe->flags |= IOSQE_ASYNC;
  }
}

/* Moves queued reads into submission entries (lock held). */
static void prepare(hrx_storage_session_t* session,
                    hrx_storage_unsubmitted_t* unsubmitted) {
  uint64_t now = hrx_clock_monotonic_ns();
  while (session->queue_length > 0) {
    struct io_uring_sqe* sqe = io_uring_get_sqe(&session->ring);
    if (!sqe) {
      return; /* the queue is full until the kernel takes entries */
    }
    uint32_t index = session->queue[session->queue_head];
    session->queue_head =
        (session->queue_head + 1) % session->options.slot_count;
    session->queue_length--;
    hrx_storage_slot_t* slot = &session->pool.slots[index];
    prepare_entry(sqe, slot, index, session->options.io_mode);
    io_uring_sqe_set_data64(sqe, index);
    slot->state = HRX_STORAGE_SLOT_READING;
    slot->submitted_ns = now;
    interval_add(&session->stats.queue, now - slot->accepted_ns);
    session->in_kernel++;
    unsubmitted->slots[(unsubmitted->head + unsubmitted->length) %
                       HRX_STORAGE_MAX_SLOTS] = index;
    unsubmitted->length++;
  }
}

/* Hands prepared entries to the kernel; returns false when it should be
 * tried again later. */
static bool submit(hrx_storage_session_t* session,
                   hrx_storage_unsubmitted_t* unsubmitted,
                   hrx_status_t* inout_status) {
  if (unsubmitted->length == 0) {
    return true;
  }
  int rc = session->sys.submit(session->sys.context, &session->ring);
  if (rc >= 0) {
    uint32_t taken = (uint32_t)rc < unsubmitted->length ? (uint32_t)rc
                                                         : unsubmitted->length;
    unsubmitted->head = (unsubmitted->head + taken) % HRX_STORAGE_MAX_SLOTS;
    unsubmitted->length -= taken;
    unsubmitted->failed_attempts = 0;
    return unsubmitted->length == 0;
  }
  unsubmitted->failed_attempts++;
  if (rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) {
    *inout_status = hrx_status_join(
        *inout_status, hrx_status_from_errno(-rc, "submitting %u requests",
                                             unsubmitted->length));
  }
  return false;
}

/* A stopping session whose kernel keeps refusing entries gives them up;
 * the ring is torn down right after, so nothing can write their slots
 * once they are reused (lock held). */
static void abandon_unsubmitted(hrx_storage_session_t* session,
                                hrx_storage_unsubmitted_t* unsubmitted) {
  for (; unsubmitted->length > 0; unsubmitted->length--) {
    fail_slot(session, unsubmitted->slots[unsubmitted->head]);
    unsubmitted->head = (unsubmitted->head + 1) % HRX_STORAGE_MAX_SLOTS;
    session->in_kernel--;
  }
  hrx_storage_session_fail(
      session, hrx_make_status(HRX_STATUS_UNAVAILABLE,
                               "the kernel kept refusing queued reads"));
}

/* Takes up to a batch of completions; returns false when a failure asks
 * for a later retry. */
static bool reap(hrx_storage_session_t* session,
                 hrx_storage_completion_t* done, uint32_t* out_count,
                 hrx_status_t* inout_status) {
  *out_count = 0;
  while (*out_count < HRX_STORAGE_REAP_BATCH) {
    struct io_uring_cqe* cqe = NULL;
    int rc = session->sys.peek_cqe(session->sys.context, &session->ring,
                                   &cqe);
    if (rc == -EAGAIN) {
      return true;
    }
    if (rc < 0) {
      *inout_status = hrx_status_join(
          *inout_status,
          hrx_status_from_errno(-rc, "reaping io_uring completions"));
      return false;
    }
    done[*out_count].slot = (uint32_t)io_uring_cqe_get_data64(cqe);
    done[*out_count].result = cqe->res;
    (*out_count)++;
    io_uring_cqe_seen(&session->ring, cqe);
  }
  return true;
}

/* Settles one read (lock held). */
static void complete(hrx_storage_session_t* session,
                     const hrx_storage_completion_t* completion,
                     uint64_t now) {
  hrx_storage_slot_t* slot = &session->pool.slots[completion->slot];
  session->in_kernel--;
  interval_add(&session->stats.completion, now - slot->submitted_ns);
  interval_add(&session->stats.service, now - slot->accepted_ns);
  static const char* const kVerbs[] = {"reading", "writing",
                                       "syncing after writing"};
  if (completion->result < 0) {
    hrx_storage_session_fail(
        session, hrx_status_from_errno(
                     -completion->result, "%s %llu bytes at offset %llu of "
                     "file %u",
                     kVerbs[slot->op], (unsigned long long)slot->length,
                     (unsigned long long)slot->offset, slot->file));
    fail_slot(session, completion->slot);
  } else if (slot->op == HRX_STORAGE_OP_WRITE &&
             (uint64_t)completion->result < slot->length) {
    /* A regular file takes fewer bytes only when the device is full or a
     * limit (RLIMIT_FSIZE, quota) is reached. */
    hrx_storage_session_fail(
        session,
        hrx_make_status(HRX_STATUS_DATA_LOSS,
                        "short write: %d of %llu bytes at offset %llu of "
                        "file %u (device full or file size limit)",
                        completion->result,
                        (unsigned long long)slot->length,
                        (unsigned long long)slot->offset, slot->file));
    fail_slot(session, completion->slot);
  } else if (slot->op == HRX_STORAGE_OP_WRITE && slot->write_flags) {
    /* The data is in; the sync the writer asked for goes next, still under
     * the write's hold, so the ticket completes only after it. */
    slot->op = HRX_STORAGE_OP_SYNC;
    slot->state = HRX_STORAGE_SLOT_QUEUED;
    slot->accepted_ns = now;
    session->queue[(session->queue_head + session->queue_length) %
                   session->options.slot_count] = completion->slot;
    session->queue_length++;
    session->stats.syncs++;
    return;
  } else if (slot->op == HRX_STORAGE_OP_READ &&
             (uint64_t)completion->result < slot->required) {
    /* Regular files return short only at end of file: the range passes
     * the end, or the file shrank under the session. */
    hrx_storage_session_fail(
        session,
        hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                        "short read: %d of %llu bytes at offset %llu of "
                        "file %u (end of file)",
                        completion->result,
                        (unsigned long long)slot->required,
                        (unsigned long long)slot->offset, slot->file));
    fail_slot(session, completion->slot);
  } else {
    slot->state = HRX_STORAGE_SLOT_READY;
    hrx_storage_pool_drop(&session->pool, completion->slot);
  }
  pthread_cond_broadcast(&session->changed);
}

void* hrx_storage_service_main(void* argument) {
  hrx_storage_session_t* session = argument;
  hrx_storage_unsubmitted_t unsubmitted = {0};
  hrx_storage_completion_t done[HRX_STORAGE_REAP_BATCH];
  pthread_mutex_lock(&session->mutex);
  for (;;) {
    if (session->failure) {
      fail_queued(session);
    } else {
      prepare(session, &unsubmitted);
    }
    pthread_mutex_unlock(&session->mutex);

    hrx_status_t status = HRX_OK;
    bool settled = submit(session, &unsubmitted, &status);
    uint32_t count = 0;
    settled = reap(session, done, &count, &status) && settled;
    uint64_t now = hrx_clock_monotonic_ns();

    pthread_mutex_lock(&session->mutex);
    if (status != HRX_OK) {
      hrx_storage_session_fail(session, status);
    }
    for (uint32_t i = 0; i < count; ++i) {
      complete(session, &done[i], now);
    }
    if (session->stopping && unsubmitted.failed_attempts >=
                                 HRX_STORAGE_STOP_SUBMIT_ATTEMPTS) {
      abandon_unsubmitted(session, &unsubmitted);
    }
    if (session->stopping && session->queue_length == 0 &&
        session->in_kernel == 0) {
      break;
    }
    if (count == HRX_STORAGE_REAP_BATCH ||
        (session->queue_length > 0 &&
         (session->failure || io_uring_sq_space_left(&session->ring) > 0))) {
      continue; /* more completions, or queued reads to issue or fail */
    }
    session->service_sleeping = settled;
    pthread_mutex_unlock(&session->mutex);
    if (!settled) {
      hrx_sleep_ns(HRX_STORAGE_RETRY_NS);
    } else {
      uint64_t value = 0;
      ssize_t rc = session->sys.read(session->sys.context, session->event_fd,
                                     &value, sizeof(value));
      if (rc < 0 && rc != -EINTR) {
        pthread_mutex_lock(&session->mutex);
        hrx_storage_session_fail(
            session, hrx_status_from_errno((int)-rc,
                                           "waiting on the storage eventfd"));
        pthread_mutex_unlock(&session->mutex);
        hrx_sleep_ns(HRX_STORAGE_RETRY_NS);
      }
    }
    pthread_mutex_lock(&session->mutex);
    session->service_sleeping = false;
  }
  pthread_mutex_unlock(&session->mutex);
  return NULL;
}
