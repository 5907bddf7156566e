/* Loading many byte ranges of one file into one device buffer: the shape of
 * a checkpoint load, where each tensor is a range of a safetensors file and
 * the destination is one device arena.
 *
 * The artifacts layer (which parses safetensors) sits beside this one, not
 * below it, so the caller turns tensors into ranges: a tensor's absolute
 * file_offset and length, and where it goes in the arena.
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

#ifdef __cplusplus
}
#endif

#endif /* HRX_STORAGE_RANGES_H_ */
