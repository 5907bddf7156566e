/* Session lifetime, reads and statistics. */
#include <sys/eventfd.h>

#include "hrx/storage.h"
#include "session_internal.h"
#include "ticket.h"

hrx_status_t hrx_storage_options_default(hrx_storage_options_t* out_options) {
  hrx_storage_options_t options = {
      .file_capacity = 64,
      .slot_count = 4,
      .slot_bytes = 16ull << 20,
      .sq_entries = 64,
      .io_mode = HRX_STORAGE_IO_BUFFERED,
      .progress = HRX_STORAGE_PROGRESS_WAIT,
      .sqpoll_idle_ms = 50,
  };
  return HRX_STRUCT_WRITE(hrx_storage_options_t, sqpoll_idle_ms, &options,
                          out_options);
}

static hrx_status_t validate_options(const hrx_storage_options_t* options) {
  if (options->file_capacity < 1 ||
      options->file_capacity > HRX_STORAGE_MAX_FILES) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "file_capacity %u is outside 1..%u",
                           options->file_capacity, HRX_STORAGE_MAX_FILES);
  }
  if (options->slot_count < 1 || options->slot_count > HRX_STORAGE_MAX_SLOTS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "slot_count %u is outside 1..%u",
                           options->slot_count, HRX_STORAGE_MAX_SLOTS);
  }
  if (options->slot_bytes == 0 ||
      options->slot_bytes > HRX_STORAGE_MAX_SLOT_BYTES ||
      options->slot_bytes % HRX_STORAGE_PAGE_BYTES != 0) {
    return hrx_make_status(
        HRX_STATUS_INVALID_ARGUMENT,
        "slot_bytes %llu must be a nonzero multiple of %u up to %llu",
        (unsigned long long)options->slot_bytes, HRX_STORAGE_PAGE_BYTES,
        (unsigned long long)HRX_STORAGE_MAX_SLOT_BYTES);
  }
  if (options->sq_entries < 1 ||
      options->sq_entries > HRX_STORAGE_MAX_SQ_ENTRIES) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "sq_entries %u is outside 1..%u",
                           options->sq_entries, HRX_STORAGE_MAX_SQ_ENTRIES);
  }
  if (options->io_mode != HRX_STORAGE_IO_BUFFERED &&
      options->io_mode != HRX_STORAGE_IO_DIRECT) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "io_mode %d is not BUFFERED or DIRECT",
                           (int)options->io_mode);
  }
  if (options->progress != HRX_STORAGE_PROGRESS_WAIT &&
      options->progress != HRX_STORAGE_PROGRESS_SQPOLL) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "progress %d is not WAIT or SQPOLL",
                           (int)options->progress);
  }
  return HRX_OK;
}

static hrx_status_t setup_ring(hrx_storage_session_t* session) {
  const hrx_storage_options_t* options = &session->options;
  struct io_uring_params params = {0};
  if (options->progress == HRX_STORAGE_PROGRESS_SQPOLL) {
    params.flags |= IORING_SETUP_SQPOLL;
    params.sq_thread_idle = options->sqpoll_idle_ms;
  }
  int rc = session->sys.queue_init(session->sys.context, options->sq_entries,
                                   &session->ring, &params);
  if (rc < 0 && options->progress == HRX_STORAGE_PROGRESS_SQPOLL) {
    return hrx_make_status(
        HRX_STATUS_UNAVAILABLE,
        "the kernel refused an io_uring with IORING_SETUP_SQPOLL (errno %d); "
        "create the session with HRX_STORAGE_PROGRESS_WAIT instead",
        -rc);
  }
  if (rc < 0) {
    return hrx_status_from_errno(-rc, "io_uring_queue_init_params(%u)",
                                 options->sq_entries);
  }
  session->ring_ready = true;

  rc = session->sys.register_files_sparse(session->sys.context, &session->ring,
                                          options->file_capacity);
  if (rc < 0) {
    return hrx_status_from_errno(-rc, "registering a table of %u files",
                                 options->file_capacity);
  }

  struct iovec iovecs[HRX_STORAGE_MAX_SLOTS];
  for (uint32_t i = 0; i < session->pool.slot_count; ++i) {
    iovecs[i].iov_base = session->pool.slots[i].memory;
    iovecs[i].iov_len = session->pool.slot_bytes;
  }
  rc = session->sys.register_buffers(session->sys.context, &session->ring,
                                     iovecs, session->pool.slot_count);
  if (rc < 0) {
    return hrx_status_annotate(
        hrx_status_from_errno(-rc, "registering %u slots of %llu bytes",
                              session->pool.slot_count,
                              (unsigned long long)session->pool.slot_bytes),
        "registered pages are pinned and count against RLIMIT_MEMLOCK "
        "(ulimit -l) for unprivileged processes");
  }

  rc = session->sys.eventfd(session->sys.context, 0, EFD_CLOEXEC);
  if (rc < 0) {
    return hrx_status_from_errno(-rc, "creating the session's eventfd");
  }
  session->event_fd = rc;
  rc = session->sys.register_eventfd(session->sys.context, &session->ring,
                                     session->event_fd);
  if (rc < 0) {
    return hrx_status_from_errno(-rc, "registering the completion eventfd");
  }
  return HRX_OK;
}

/* Closes what setup opened; the pages stay for the tickets. */
static void teardown_ring(hrx_storage_session_t* session) {
  if (session->ring_ready) {
    session->sys.queue_exit(session->sys.context, &session->ring);
    session->ring_ready = false;
  }
  if (session->event_fd >= 0) {
    (void)session->sys.close(session->sys.context, session->event_fd);
    session->event_fd = -1;
  }
  for (uint32_t i = 0; i < session->file_count; ++i) {
    (void)session->sys.close(session->sys.context, session->files[i].fd);
  }
  session->file_count = 0;
}

hrx_status_t hrx_storage_session_create_with_sys(
    const hrx_storage_options_t* caller_options, const hrx_storage_sys_t* sys,
    hrx_allocator_t allocator, hrx_storage_session_t** out_session) {
  *out_session = NULL;
  if (!caller_options) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a storage session needs options "
                           "(hrx_storage_options_default)");
  }
  hrx_storage_options_t local_options;
  HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_storage_options_t, sqpoll_idle_ms,
                                      caller_options, &local_options));
  const hrx_storage_options_t* options = &local_options;
  HRX_RETURN_IF_ERROR(validate_options(options));
  hrx_storage_session_t* session = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*session), (void**)&session));
  session->allocator = allocator;
  session->sys = *sys;
  session->options = *options;
  session->event_fd = -1;
  session->references = 1;
  pthread_mutex_init(&session->mutex, NULL);
  pthread_condattr_t attributes;
  pthread_condattr_init(&attributes);
  pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
  pthread_cond_init(&session->changed, &attributes);
  pthread_condattr_destroy(&attributes);

  hrx_status_t status = hrx_allocator_malloc_array(
      allocator, options->file_capacity, sizeof(*session->files),
      (void**)&session->files);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(allocator, options->slot_count,
                                        sizeof(*session->queue),
                                        (void**)&session->queue);
  }
  if (status == HRX_OK) {
    status = hrx_storage_pool_init(&session->pool, &session->sys, allocator,
                                   options->slot_count, options->slot_bytes);
  }
  if (status == HRX_OK) {
    status = setup_ring(session);
  }
  if (status == HRX_OK) {
    int rc = pthread_create(&session->service_thread, NULL,
                            hrx_storage_service_main, session);
    if (rc != 0) {
      status = hrx_status_from_errno(rc, "starting the service thread");
    }
  }
  if (status != HRX_OK) {
    teardown_ring(session);
    hrx_storage_session_release(session);
    return hrx_status_annotate(status, "creating a storage session");
  }
  session->service_started = true;
  *out_session = session;
  return HRX_OK;
}

hrx_status_t hrx_storage_session_create(const hrx_storage_options_t* options,
                                        hrx_allocator_t allocator,
                                        hrx_storage_session_t** out_session) {
  hrx_storage_sys_t sys = hrx_storage_sys_native();
  return hrx_storage_session_create_with_sys(options, &sys, allocator,
                                             out_session);
}

void hrx_storage_session_destroy(hrx_storage_session_t* session) {
  if (!session) {
    return;
  }
  pthread_mutex_lock(&session->mutex);
  session->stopping = true;
  pthread_mutex_unlock(&session->mutex);
  /* A counter write fails only on overflow, which a drained counter cannot
   * reach; the bounded retry covers an injected fault. */
  for (uint32_t attempt = 0;
       hrx_storage_session_wake(session) < 0 && attempt < 100; ++attempt) {
    hrx_sleep_ns(1000000);
  }
  pthread_join(session->service_thread, NULL);
  teardown_ring(session);
  hrx_storage_session_release(session);
}

void hrx_storage_session_release(hrx_storage_session_t* session) {
  pthread_mutex_lock(&session->mutex);
  bool last = --session->references == 0;
  pthread_mutex_unlock(&session->mutex);
  if (!last) {
    return;
  }
  hrx_storage_pool_deinit(&session->pool, &session->sys, session->allocator);
  hrx_allocator_free(session->allocator, session->files);
  hrx_allocator_free(session->allocator, session->queue);
  hrx_status_free(session->failure);
  pthread_cond_destroy(&session->changed);
  pthread_mutex_destroy(&session->mutex);
  hrx_allocator_free(session->allocator, session);
}

int hrx_storage_session_wake(hrx_storage_session_t* session) {
  uint64_t one = 1;
  ssize_t rc = session->sys.write(session->sys.context, session->event_fd,
                                  &one, sizeof(one));
  return rc < 0 ? (int)rc : 0;
}

hrx_status_t hrx_storage_session_failure_copy(
    hrx_storage_session_t* session) {
  return hrx_status_annotate(
      hrx_make_status(hrx_status_code(session->failure), "%s",
                      hrx_status_message(session->failure)),
      "the storage session stopped at its first I/O failure");
}

void hrx_storage_session_fail(hrx_storage_session_t* session,
                              hrx_status_t status) {
  if (session->failure) {
    hrx_status_free(status);
  } else {
    session->failure = status;
  }
  pthread_cond_broadcast(&session->changed);
}

hrx_status_t hrx_storage_session_check_file(hrx_storage_session_t* session,
                                            uint32_t file) {
  if (session->failure) {
    return hrx_storage_session_failure_copy(session);
  }
  if (session->stopping) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "the storage session is being destroyed");
  }
  if (file >= session->file_count) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "file %u is not registered (%u are)", file,
                           session->file_count);
  }
  return HRX_OK;
}

hrx_status_t hrx_storage_session_claim(hrx_storage_session_t* session,
                                       uint32_t file, uint64_t offset,
                                       uint64_t length, uint64_t required,
                                       hrx_storage_slot_op_t op,
                                       uint32_t* out_slot) {
  hrx_storage_pool_t* pool = &session->pool;
  uint32_t index = hrx_storage_pool_find_free(pool);
  if (index == HRX_STORAGE_NO_SLOT) {
    session->stats.busy_reads++;
    return hrx_make_status(HRX_STATUS_BUSY,
                           "all %u storage slots are retained; release "
                           "tickets before reading or writing more",
                           pool->slot_count);
  }
  hrx_storage_slot_t* slot = &pool->slots[index];
  slot->file = file;
  slot->offset = offset;
  slot->length = length;
  slot->required = required;
  slot->state = HRX_STORAGE_SLOT_QUEUED;
  slot->op = op;
  slot->write_flags = 0;
  slot->shareable = op == HRX_STORAGE_OP_READ;
  hrx_storage_pool_hold(pool, index); /* the request's own hold */
  *out_slot = index;
  return HRX_OK;
}

hrx_status_t hrx_storage_session_enqueue(hrx_storage_session_t* session,
                                         uint32_t index) {
  hrx_storage_slot_t* slot = &session->pool.slots[index];
  slot->accepted_ns = hrx_clock_monotonic_ns();
  /* A busy service thread looks at the queue before it sleeps again, so
   * only a sleeping one needs the system call. */
  int rc =
      session->service_sleeping ? hrx_storage_session_wake(session) : 0;
  if (rc < 0) {
    slot->state = HRX_STORAGE_SLOT_EMPTY;
    hrx_storage_pool_drop(&session->pool, index);
    return hrx_status_from_errno(-rc, "waking the storage service thread");
  }
  uint32_t tail = (session->queue_head + session->queue_length) %
                  session->options.slot_count;
  session->queue[tail] = index;
  session->queue_length++;
  if (slot->op == HRX_STORAGE_OP_READ) {
    session->stats.physical_reads++;
  } else {
    session->stats.writes++;
  }
  return HRX_OK;
}

hrx_status_t hrx_storage_session_read(hrx_storage_session_t* session,
                                      uint32_t file, uint64_t offset,
                                      uint64_t length,
                                      hrx_storage_ticket_t** out_ticket) {
  *out_ticket = NULL;
  if (length == 0 || offset + length < offset) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "read of %llu bytes at offset %llu is empty or "
                           "overflows",
                           (unsigned long long)length,
                           (unsigned long long)offset);
  }
  hrx_storage_ticket_t* ticket = NULL;
  HRX_RETURN_IF_ERROR(hrx_storage_ticket_allocate(session, &ticket));

  pthread_mutex_lock(&session->mutex);
  hrx_status_t status = hrx_storage_session_check_file(session, file);
  uint64_t start = 0, end = 0;
  if (status == HRX_OK) {
    uint64_t alignment = session->files[file].alignment;
    start = offset / alignment * alignment;
    end = (offset + length + alignment - 1) / alignment * alignment;
    if (end < offset + length || end - start > session->pool.slot_bytes) {
      status = hrx_make_status(
          HRX_STATUS_INVALID_ARGUMENT,
          "read of %llu bytes at offset %llu needs %llu bytes, more than a "
          "slot holds (%llu)",
          (unsigned long long)length, (unsigned long long)offset,
          (unsigned long long)(end - start),
          (unsigned long long)session->pool.slot_bytes);
    }
  }
  uint32_t slot = HRX_STORAGE_NO_SLOT;
  if (status == HRX_OK) {
    slot = hrx_storage_pool_find_shared(&session->pool, file, start,
                                        end - start);
    if (slot != HRX_STORAGE_NO_SLOT) {
      session->stats.shared_reads++;
    } else {
      status = hrx_storage_session_claim(session, file, start, end - start,
                                         offset + length - start,
                                         HRX_STORAGE_OP_READ, &slot);
      if (status == HRX_OK) {
        status = hrx_storage_session_enqueue(session, slot);
      }
    }
  }
  if (status == HRX_OK) {
    hrx_storage_pool_hold(&session->pool, slot); /* the ticket's hold */
    session->references++;
    session->stats.logical_reads++;
    if (session->pool.retained > session->stats.peak_retained_slots) {
      session->stats.peak_retained_slots = session->pool.retained;
    }
    hrx_storage_ticket_bind(ticket, slot, offset - start, length);
  }
  pthread_mutex_unlock(&session->mutex);
  if (status != HRX_OK) {
    hrx_storage_ticket_free(ticket);
    return status;
  }
  *out_ticket = ticket;
  return HRX_OK;
}

hrx_status_t hrx_storage_session_statistics(
    hrx_storage_session_t* session, hrx_storage_statistics_t* out_stats) {
  pthread_mutex_lock(&session->mutex);
  hrx_storage_statistics_t stats = session->stats;
  stats.retained_slots = session->pool.retained;
  pthread_mutex_unlock(&session->mutex);
  return HRX_STRUCT_WRITE(hrx_storage_statistics_t, service, &stats,
                          out_stats);
}

const char* hrx_storage_version(void) { return HRX_STORAGE_VERSION; }
