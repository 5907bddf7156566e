/* Loading many byte ranges of one file into one device buffer: the shape of
 * a checkpoint load, where each tensor is a range of a safetensors file and
 * the destination is one device arena.
 *
 * Neither layer may see the other: artifacts (which parses safetensors)
 * depends on core alone, so that reading a checkpoint's header never
 * pulls in a GPU stack or liburing, and storage sits below artifacts in
 * the layer table, so it cannot depend upward on a file format. The
 * caller joins them: hrx_safetensors_file_range gives a descriptor to
 * register (hrx_storage_session_add_fd) and each tensor's absolute
 * file_offset and length become one entry, for example
 *
 *   for (size_t i = 0; i < hrx_safetensors_count(view); ++i) {
 *     const hrx_safetensors_tensor_t* t = hrx_safetensors_at(view, i);
 *     entries[i] = (hrx_storage_arena_entry_t){
 *         .file_offset = t->file_offset, .length = t->length,
 *         .alignment = 256};
 *   }
 *   hrx_storage_session_load_arena(session, file, entries, count, stream,
 *                                  &arena);
 *
 * Reads go through the session's slot pool; the file's pages are never
 * mapped.
 *
 * Threads: one call uses |session| like any other caller (other threads may
 * share the session, competing for its slots) and |stream| from the calling
 * thread only, as streams require.
 */
#ifndef HRX_STORAGE_RANGES_H_
#define HRX_STORAGE_RANGES_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/storage/session.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_storage_range_t {
  uint64_t file_offset;        /* absolute, in the file */
  uint64_t length;             /* bytes, > 0 */
  uint64_t destination_offset; /* into the destination view */
} hrx_storage_range_t;

/* Reads every range of registered |file| and queues its copy into
 * |destination| on |stream|. Ranges longer than a slot are split; up to
 * every slot of the session is kept reading while earlier chunks are
 * copied. Returns once every copy is queued (synchronize the stream before
 * using the buffer). INVALID_ARGUMENT (naming the range) when a range is
 * empty or does not fit the destination; BUSY when, with none of its own
 * reads left to copy out, every slot is held (by other tickets, or by
 * reads still in the kernel); otherwise the first failure of a read or copy, after which no
 * further copies are queued (copies already queued stay queued). */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_session_load_ranges(
    hrx_storage_session_t* session, uint32_t file,
    const hrx_storage_range_t* ranges, size_t count, hrx_gpu_stream_t* stream,
    hrx_gpu_view_t destination);

/* One piece of an arena: a byte range of the file and the alignment of
 * its start in the arena. */
typedef struct hrx_storage_arena_entry_t {
  uint64_t file_offset; /* absolute, in the file */
  uint64_t length;      /* bytes; 0 takes no space and reads nothing */
  uint64_t alignment;   /* a power of two; 0 means 1 */
  uint64_t arena_offset; /* set by hrx_storage_session_load_arena */
} hrx_storage_arena_entry_t;

/* Largest alignment an entry may ask for. */
#define HRX_STORAGE_MAX_ARENA_ALIGNMENT (1ull << 20)

/* Lays the entries out in order, each at the next multiple of its
 * alignment, allocates one buffer of the total on |stream| and loads every
 * entry into it as hrx_storage_session_load_ranges does (BUSY only when
 * other tickets hold every slot; the pool never grows). Sets each entry's
 * arena_offset and returns the arena, owned by the caller, once every copy
 * is queued (synchronize the stream before using it).
 *
 * Everything is checked before anything is allocated: INVALID_ARGUMENT
 * (naming the entry) for an alignment that is not a power of two up to
 * HRX_STORAGE_MAX_ARENA_ALIGNMENT or a layout that overflows, and
 * DATA_LOSS (naming the entry and the file's size) when an entry ends past
 * the current end of the file: a header that lies, or a file truncated
 * since it was parsed. A failure after allocation releases the arena. */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_session_load_arena(
    hrx_storage_session_t* session, uint32_t file,
    hrx_storage_arena_entry_t* entries, size_t count,
    hrx_gpu_stream_t* stream, hrx_gpu_buffer_t** out_arena);

#ifdef __cplusplus
}
#endif

#endif /* HRX_STORAGE_RANGES_H_ */
