/* Arena loading: lay out entries, check them against the file, allocate
 * once, then load the non-empty ones as ranges. */
#include "hrx/storage/ranges.h"

#include "session_internal.h"

/* Sets every entry's arena_offset and the total size. */
static hrx_status_t lay_out(hrx_storage_arena_entry_t* entries, size_t count,
                            uint64_t* out_total) {
  uint64_t end = 0;
  for (size_t i = 0; i < count; ++i) {
    hrx_storage_arena_entry_t* entry = &entries[i];
    uint64_t alignment = entry->alignment ? entry->alignment : 1;
    if ((alignment & (alignment - 1)) != 0 ||
        alignment > HRX_STORAGE_MAX_ARENA_ALIGNMENT) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "arena entry %zu asks for alignment %llu, not a "
                             "power of two up to %llu",
                             i, (unsigned long long)entry->alignment,
                             HRX_STORAGE_MAX_ARENA_ALIGNMENT);
    }
    uint64_t start = (end + alignment - 1) & ~(alignment - 1);
    if (start < end || start + entry->length < start ||
        entry->file_offset + entry->length < entry->file_offset) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "arena entry %zu (%llu bytes at file offset "
                             "%llu) overflows the layout",
                             i, (unsigned long long)entry->length,
                             (unsigned long long)entry->file_offset);
    }
    entry->arena_offset = start;
    end = start + entry->length;
  }
  *out_total = end;
  return HRX_OK;
}

/* The file's current size, from the session's own descriptor. */
static hrx_status_t file_size(hrx_storage_session_t* session, uint32_t file,
                              uint64_t* out_size) {
  pthread_mutex_lock(&session->mutex);
  hrx_status_t status = hrx_storage_session_check_file(session, file);
  int fd = status == HRX_OK ? session->files[file].fd : -1;
  pthread_mutex_unlock(&session->mutex);
  HRX_RETURN_IF_ERROR(status);
  /* The descriptor stays open until destroy, which must be the session's
   * last call, so it is safe to use outside the lock. */
  struct statx info = {0};
  int rc = session->sys.statx(session->sys.context, fd, STATX_SIZE, &info);
  if (rc < 0) {
    return hrx_status_from_errno(-rc, "statx(STATX_SIZE) on file %u", file);
  }
  *out_size = info.stx_size;
  return HRX_OK;
}

static hrx_status_t check_file(const hrx_storage_arena_entry_t* entries,
                               size_t count, uint32_t file, uint64_t size) {
  for (size_t i = 0; i < count; ++i) {
    if (entries[i].file_offset + entries[i].length > size) {
      return hrx_make_status(
          HRX_STATUS_DATA_LOSS,
          "arena entry %zu (%llu bytes at file offset %llu) ends past the "
          "end of file %u (%llu bytes): the file was truncated or its "
          "header lies",
          i, (unsigned long long)entries[i].length,
          (unsigned long long)entries[i].file_offset, file,
          (unsigned long long)size);
    }
  }
  return HRX_OK;
}

/* The non-empty entries as ranges into the arena. */
static hrx_status_t make_ranges(hrx_allocator_t allocator,
                                const hrx_storage_arena_entry_t* entries,
                                size_t count,
                                hrx_storage_range_t** out_ranges,
                                size_t* out_count) {
  *out_ranges = NULL;
  *out_count = 0;
  if (count == 0) {
    return HRX_OK;
  }
  hrx_storage_range_t* ranges = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      allocator, count, sizeof(*ranges), (void**)&ranges));
  size_t used = 0;
  for (size_t i = 0; i < count; ++i) {
    if (entries[i].length > 0) {
      ranges[used++] = (hrx_storage_range_t){
          .file_offset = entries[i].file_offset,
          .length = entries[i].length,
          .destination_offset = entries[i].arena_offset,
      };
    }
  }
  *out_ranges = ranges;
  *out_count = used;
  return HRX_OK;
}

hrx_status_t hrx_storage_session_load_arena(
    hrx_storage_session_t* session, uint32_t file,
    hrx_storage_arena_entry_t* entries, size_t count,
    hrx_gpu_stream_t* stream, hrx_gpu_buffer_t** out_arena) {
  *out_arena = NULL;
  if (count > 0 && !entries) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%zu arena entries but no array", count);
  }
  uint64_t total = 0;
  HRX_RETURN_IF_ERROR(lay_out(entries, count, &total));
  uint64_t size = 0;
  HRX_RETURN_IF_ERROR(file_size(session, file, &size));
  HRX_RETURN_IF_ERROR(check_file(entries, count, file, size));
  hrx_storage_range_t* ranges = NULL;
  size_t range_count = 0;
  HRX_RETURN_IF_ERROR(make_ranges(session->allocator, entries, count, &ranges,
                                  &range_count));
  hrx_gpu_buffer_t* arena = NULL;
  /* Buffers are never empty; a file of empty tensors gets one byte. */
  hrx_status_t status =
      hrx_gpu_stream_allocate(stream, total > 0 ? total : 1, &arena);
  if (status == HRX_OK) {
    status = hrx_storage_session_load_ranges(session, file, ranges,
                                             range_count, stream,
                                             hrx_gpu_buffer_binding(arena));
  }
  hrx_allocator_free(session->allocator, ranges);
  if (status != HRX_OK) {
    hrx_gpu_buffer_release(arena);
    return hrx_status_annotate(status, "loading %zu entries into an arena",
                               count);
  }
  *out_arena = arena;
  return HRX_OK;
}
