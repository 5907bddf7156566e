/* Storage sessions: file reads through io_uring into a bounded pool of
 * registered system pages, then into device buffers.
 *
 * A session owns one io_uring ring, a table of registered ("fixed") files
 * and a pool of equally sized slots of page-aligned system memory, all
 * registered with the ring once at creation. A read names a registered
 * file, an offset and a length and yields a ticket; the ticket holds its
 * slot until it is released, and hrx_storage_ticket_copy_to moves the
 * completed bytes into a device buffer on a gpu stream. This is not peer
 * DMA: the kernel writes the slot, the stream copies from it.
 *
 * Bounded by design. The pool never grows and a read never blocks for a
 * slot: when every slot is retained, read answers BUSY and the caller
 * releases tickets (or waits for its own) before retrying. A read equal to
 * one whose slot is still retained (same file, same physical range) shares
 * that slot instead of reading again.
 *
 * I/O modes, chosen explicitly, never switched behind the caller's back:
 * - BUFFERED reads through the page cache at any offset and length.
 * - DIRECT opens files O_DIRECT and needs the filesystem to report its
 *   alignment through statx(STATX_DIOALIGN); a read is widened to the
 *   enclosing aligned range and the ticket shows only the bytes asked for.
 *   A file or filesystem without direct I/O support fails with
 *   UNIMPLEMENTED; the session never falls back to buffered reads.
 * Progress, also explicit:
 * - WAIT: the service thread submits with io_uring_enter and sleeps on an
 *   eventfd the ring signals on each completion.
 * - SQPOLL: a kernel thread polls the submission queue (no system call per
 *   submission); completions still wake the service thread through the
 *   eventfd. A kernel that refuses SQPOLL (privileges, seccomp, old kernel)
 *   makes creation fail with UNAVAILABLE naming SQPOLL; the caller may then
 *   create a WAIT session, nothing falls back silently.
 *
 * Error model. The first I/O failure (an error in a completion, a failed
 * submission, reap or eventfd wait, or a short read, which for a regular
 * file means the range passed end of file)
 * stops the session: nothing more is issued, requests still queued fail,
 * and every later call on the session or its tickets returns that failure
 * (same code, same message). Reads already in the kernel still complete
 * and keep their slots until they do. A read that times out in
 * hrx_storage_ticket_wait keeps its slot (the kernel may still write it)
 * whether or not the ticket is released.
 *
 * Writes. A write copies the caller's bytes into a slot, so the caller's
 * buffer is free on return, and the ticket completes when the kernel has
 * taken them. That completion is not durability: the bytes may sit in the
 * page cache (or a drive's cache) and a crash can lose them. A write that
 * asks for HRX_STORAGE_WRITE_DATASYNC or HRX_STORAGE_WRITE_FSYNC completes
 * only after that call on the file has returned too, which is what makes
 * data durable as far as the kernel can promise. In DIRECT mode writes
 * need offsets and lengths aligned to the file's direct-I/O alignment
 * (unaligned ones are refused, never widened: widening would write bytes
 * the caller did not give). A write stops reads from sharing slots that
 * hold bytes it overlaps; tickets already holding them keep the old bytes.
 *
 * Threads. Each session starts one service thread at creation and joins it
 * in hrx_storage_session_destroy. The service thread alone owns the ring's
 * submission and completion queues: it turns accepted reads into
 * submission entries, submits them and reaps completions. Registration
 * (files) is made by the calling thread under the session lock; the kernel
 * serialises it against submission. Every function here may be called from
 * any thread: session state is guarded by one mutex. Destroy must be the
 * session's last call (its tickets stay usable). A ticket may be used from
 * any thread but not released while another thread uses it.
 */
#ifndef HRX_STORAGE_SESSION_H_
#define HRX_STORAGE_SESSION_H_

#include <stdint.h>

#include "hrx/core.h"
#include "hrx/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_storage_session_s hrx_storage_session_t;
typedef struct hrx_storage_ticket_s hrx_storage_ticket_t;

typedef enum hrx_storage_io_mode_e {
  HRX_STORAGE_IO_BUFFERED = 0,
  HRX_STORAGE_IO_DIRECT = 1,
} hrx_storage_io_mode_t;

typedef enum hrx_storage_progress_e {
  HRX_STORAGE_PROGRESS_WAIT = 0,
  HRX_STORAGE_PROGRESS_SQPOLL = 1,
} hrx_storage_progress_t;

/* Limits on hrx_storage_options_t. */
#define HRX_STORAGE_MAX_FILES 1024u
#define HRX_STORAGE_MAX_SLOTS 64u
#define HRX_STORAGE_MAX_SLOT_BYTES (64ull << 20)
#define HRX_STORAGE_MAX_SQ_ENTRIES 4096u

typedef struct hrx_storage_options_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint32_t file_capacity; /* registered file table, 1..1024 */
  uint32_t slot_count;    /* pool slots, 1..64 */
  /* Bytes per slot: a multiple of the page size, at most 64 MiB; also the
   * longest read (after direct-I/O widening). */
  uint64_t slot_bytes;
  uint32_t sq_entries; /* submission queue entries, 1..4096 */
  hrx_storage_io_mode_t io_mode;
  hrx_storage_progress_t progress;
  /* SQPOLL only: how long the kernel poller spins idle before sleeping. */
  uint32_t sqpoll_idle_ms;
} hrx_storage_options_t;

/* 64 files, 4 slots x 16 MiB, 64 SQ entries, BUFFERED, WAIT (SQPOLL costs a
 * kernel thread spinning per session, so it is asked for, not assumed),
 * sqpoll_idle_ms 50. */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_options_default(
    hrx_storage_options_t* out_options);

/* Validates |options| (INVALID_ARGUMENT naming the field), maps and
 * registers the slot pages, sets up the ring and starts the service
 * thread. Registering pages pins them: RESOURCE_EXHAUSTED mentions
 * RLIMIT_MEMLOCK when the kernel refuses. */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_session_create(
    const hrx_storage_options_t* options, hrx_allocator_t allocator,
    hrx_storage_session_t** out_session);

/* Stops accepting reads, lets every accepted read finish (queued reads are
 * issued unless the session failed), joins the service thread and closes
 * the ring and the files the session opened. Tickets stay valid: the slot
 * pages live until the last ticket is released. NULL is accepted. */
HRX_API void hrx_storage_session_destroy(hrx_storage_session_t* session);

/* Opens |path| read-only (O_DIRECT in DIRECT mode, after which statx must
 * report STATX_DIOALIGN) and registers it; the session owns and closes the
 * descriptor. RESOURCE_EXHAUSTED when the file table is full. */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_session_open_file(
    hrx_storage_session_t* session, const char* path, uint32_t* out_file);

/* Opens the existing file |path| for reading and writing (O_DIRECT in
 * DIRECT mode) and registers it, as hrx_storage_session_open_file does.
 * Nothing is created or truncated. */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_session_open_file_for_writing(
    hrx_storage_session_t* session, const char* path, uint32_t* out_file);

/* Registers the caller's open descriptor |fd|, which must be open for
 * reading (and carry O_DIRECT in DIRECT mode); writes are accepted when it
 * is open for reading and writing. The session keeps a duplicate of |fd|
 * until it is destroyed, so the caller may close |fd| afterwards. */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_session_add_fd(
    hrx_storage_session_t* session, int fd, uint32_t* out_file);

/* Accepts a read of |length| (> 0) bytes at |offset| of registered |file|
 * and returns its ticket, or BUSY when every slot is retained (nothing is
 * queued then), or the session's failure. The read must fit a slot after
 * direct-I/O widening (INVALID_ARGUMENT otherwise). */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_session_read(
    hrx_storage_session_t* session, uint32_t file, uint64_t offset,
    uint64_t length, hrx_storage_ticket_t** out_ticket);

/* Bits of hrx_storage_write_flags_t. */
enum hrx_storage_write_flag_bits_e {
  HRX_STORAGE_WRITE_NONE = 0u,
  /* fdatasync(2) the file after the write: its data (and the metadata
   * needed to read it back) is on stable storage when the ticket
   * completes. */
  HRX_STORAGE_WRITE_DATASYNC = 1u << 0,
  /* fsync(2) the file after the write: all of its metadata too. */
  HRX_STORAGE_WRITE_FSYNC = 1u << 1,
};
typedef uint32_t hrx_storage_write_flags_t;

/* Accepts a write of |length| (> 0, at most a slot) bytes of |data| at
 * |offset| of registered |file|, which must have been opened for writing.
 * The bytes are copied into a slot before this returns. The ticket
 * completes when the kernel has taken them (and, with a sync flag, after
 * the sync); waiting on it yields the bytes written. BUSY when every slot
 * is retained (nothing is written then); INVALID_ARGUMENT for a file not
 * open for writing, unknown flags, or, in DIRECT mode, an offset or length
 * that is not a multiple of the file's alignment; the session's failure
 * once it has one. A short write (a full device) fails the session with
 * DATA_LOSS. */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_session_write(
    hrx_storage_session_t* session, uint32_t file, uint64_t offset,
    const void* data, uint64_t length, hrx_storage_write_flags_t flags,
    hrx_storage_ticket_t** out_ticket);

/* Waits up to |timeout_ns| for the ticket's read and yields its bytes,
 * borrowed from the slot and valid until the ticket is released.
 * DEADLINE_EXCEEDED on timeout (the read keeps its slot); the session's
 * failure once it has one. A timeout of 0 only polls. */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_ticket_wait(
    hrx_storage_ticket_t* ticket, uint64_t timeout_ns, const void** out_data,
    uint64_t* out_length);

/* Queues a copy of the completed read into |view| (whose length must equal
 * the read's) on |stream|: the bytes are staged by the stream now, so the
 * ticket may be released on return. FAILED_PRECONDITION while the read
 * has not completed (wait first); the session's failure once it has one. */
HRX_API HRX_MUST_USE hrx_status_t hrx_storage_ticket_copy_to(
    hrx_storage_ticket_t* ticket, hrx_gpu_stream_t* stream,
    hrx_gpu_view_t view);

/* Gives the ticket's hold on its slot back. NULL is accepted. */
HRX_API void hrx_storage_ticket_release(hrx_storage_ticket_t* ticket);

/* Host-observed intervals of physical reads, in nanoseconds. */
typedef struct hrx_storage_interval_t {
  uint64_t count;
  uint64_t total_ns;
  uint64_t max_ns;
} hrx_storage_interval_t;

typedef struct hrx_storage_statistics_t {
  uint32_t struct_size; /* HRX_STRUCT_INIT: see hrx/core/struct.h */
  uint64_t logical_reads;  /* reads accepted (tickets handed out) */
  uint64_t shared_reads;   /* of those, served by a retained slot */
  uint64_t physical_reads; /* reads issued to the kernel */
  uint64_t busy_reads;     /* reads and writes refused with BUSY */
  uint64_t writes;         /* writes accepted */
  uint64_t syncs;          /* fsync/fdatasync requests issued */
  uint32_t retained_slots; /* slots held now */
  uint32_t peak_retained_slots;
  hrx_storage_interval_t queue;      /* accepted -> submitted */
  hrx_storage_interval_t completion; /* submitted -> completion reaped */
  hrx_storage_interval_t service;    /* accepted -> completion reaped */
} hrx_storage_statistics_t;

HRX_API HRX_MUST_USE hrx_status_t hrx_storage_session_statistics(
    hrx_storage_session_t* session, hrx_storage_statistics_t* out_stats);

#ifdef __cplusplus
}
#endif

#endif /* HRX_STORAGE_SESSION_H_ */
