/* Range loading: a window of reads in flight, copied out oldest first. */
#include "hrx/storage/ranges.h"

#include "session_internal.h"

/* A read whose copy has not been queued yet. */
typedef struct hrx_storage_chunk_t {
  hrx_storage_ticket_t* ticket;
  uint64_t destination_offset;
} hrx_storage_chunk_t;

typedef struct hrx_storage_window_t {
  hrx_storage_chunk_t* chunks;
  uint32_t capacity;
  uint32_t head;
  uint32_t length;
} hrx_storage_window_t;

static hrx_status_t check_ranges(const hrx_storage_range_t* ranges,
                                 size_t count, uint64_t destination_length) {
  for (size_t i = 0; i < count; ++i) {
    const hrx_storage_range_t* range = &ranges[i];
    uint64_t end = range->destination_offset + range->length;
    if (range->length == 0 || end < range->destination_offset ||
        end > destination_length ||
        range->file_offset + range->length < range->file_offset) {
      return hrx_make_status(
          HRX_STATUS_INVALID_ARGUMENT,
          "range %zu (%llu bytes at file offset %llu to destination offset "
          "%llu) is empty or does not fit the destination of %llu bytes",
          i, (unsigned long long)range->length,
          (unsigned long long)range->file_offset,
          (unsigned long long)range->destination_offset,
          (unsigned long long)destination_length);
    }
  }
  return HRX_OK;
}

/* The longest chunk that fits a slot after direct-I/O widening, which adds
 * less than one alignment unit at each end. */
static hrx_status_t chunk_bytes(hrx_storage_session_t* session, uint32_t file,
                                uint64_t* out_bytes) {
  pthread_mutex_lock(&session->mutex);
  uint64_t alignment =
      file < session->file_count ? session->files[file].alignment : 1;
  pthread_mutex_unlock(&session->mutex);
  uint64_t padding = alignment > 1 ? 2 * alignment : 0;
  if (session->pool.slot_bytes <= padding) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "slots of %llu bytes leave no room for direct "
                           "reads aligned to %llu",
                           (unsigned long long)session->pool.slot_bytes,
                           (unsigned long long)alignment);
  }
  *out_bytes = session->pool.slot_bytes - padding;
  return HRX_OK;
}

/* Waits for the oldest read and queues its copy. */
static hrx_status_t copy_oldest(hrx_storage_window_t* window,
                                hrx_gpu_stream_t* stream,
                                hrx_gpu_view_t destination) {
  hrx_storage_chunk_t chunk = window->chunks[window->head];
  window->head = (window->head + 1) % window->capacity;
  window->length--;
  const void* data = NULL;
  uint64_t length = 0;
  hrx_status_t status =
      hrx_storage_ticket_wait(chunk.ticket, UINT64_MAX, &data, &length);
  hrx_gpu_view_t view;
  if (status == HRX_OK) {
    status = hrx_gpu_view_slice(destination, chunk.destination_offset, length,
                                &view);
  }
  if (status == HRX_OK) {
    status = hrx_storage_ticket_copy_to(chunk.ticket, stream, view);
  }
  hrx_storage_ticket_release(chunk.ticket);
  return status;
}

/* Accepts one chunk's read, copying out older chunks while the pool is
 * full. */
static hrx_status_t read_chunk(hrx_storage_session_t* session, uint32_t file,
                               uint64_t offset, uint64_t length,
                               uint64_t destination_offset,
                               hrx_storage_window_t* window,
                               hrx_gpu_stream_t* stream,
                               hrx_gpu_view_t destination) {
  for (;;) {
    if (window->length == window->capacity) {
      HRX_RETURN_IF_ERROR(copy_oldest(window, stream, destination));
    }
    hrx_storage_ticket_t* ticket = NULL;
    hrx_status_t status =
        hrx_storage_session_read(session, file, offset, length, &ticket);
    if (status == HRX_OK) {
      window->chunks[(window->head + window->length) % window->capacity] =
          (hrx_storage_chunk_t){ticket, destination_offset};
      window->length++;
      return HRX_OK;
    }
    if (!hrx_status_is(status, HRX_STATUS_BUSY) || window->length == 0) {
      return status;
    }
    hrx_status_free(status);
    HRX_RETURN_IF_ERROR(copy_oldest(window, stream, destination));
  }
}

hrx_status_t hrx_storage_session_load_ranges(
    hrx_storage_session_t* session, uint32_t file,
    const hrx_storage_range_t* ranges, size_t count, hrx_gpu_stream_t* stream,
    hrx_gpu_view_t destination) {
  HRX_RETURN_IF_ERROR(check_ranges(ranges, count, destination.length));
  uint64_t chunk = 0;
  HRX_RETURN_IF_ERROR(chunk_bytes(session, file, &chunk));
  hrx_storage_window_t window = {.capacity = session->pool.slot_count};
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      session->allocator, window.capacity, sizeof(*window.chunks),
      (void**)&window.chunks));
  hrx_status_t status = HRX_OK;
  for (size_t i = 0; i < count && status == HRX_OK; ++i) {
    for (uint64_t done = 0; done < ranges[i].length && status == HRX_OK;
         done += chunk) {
      uint64_t left = ranges[i].length - done;
      status = read_chunk(session, file, ranges[i].file_offset + done,
                          left < chunk ? left : chunk,
                          ranges[i].destination_offset + done, &window,
                          stream, destination);
    }
  }
  while (window.length > 0) {
    if (status == HRX_OK) {
      status = copy_oldest(&window, stream, destination);
    } else {
      hrx_storage_ticket_release(window.chunks[window.head].ticket);
      window.head = (window.head + 1) % window.capacity;
      window.length--;
    }
  }
  hrx_allocator_free(session->allocator, window.chunks);
  return status;
}
