/* The fabric storage ring: io_uring set up by raw system calls over queue
 * pages the caller's device owns. liburing (2.3 in Debian 12) predates
 * caller-owned queues, so the setup parameters are declared here from the
 * kernel's documented layout and checked by size. */
#include "hrx/storage/fabric_ring.h"

#include <errno.h>
#include <liburing.h>
#include <stdatomic.h>
#include <sys/uio.h>

#include "ring_sys.h"

#define HRX_FABRIC_PAGE 4096u
/* Setup flags newer than the uapi header this may be built against
 * (Documentation: io_uring_setup(2), Linux 6.5 / 6.6). */
#define HRX_URING_SETUP_NO_MMAP (1u << 14)
#define HRX_URING_SETUP_NO_SQARRAY (1u << 16)
/* struct io_rings puts its indices and flags in the first cache lines and
 * the completions after them; a page covers that header with room. */
#define HRX_FABRIC_RING_HEADER_BYTES HRX_FABRIC_PAGE
#define HRX_URING_CQE_BYTES 16u
#define HRX_URING_SQE_BYTES 64u

/* struct io_sqring_offsets / io_cqring_offsets / io_uring_params with the
 * user_addr fields of Linux 6.5 (older headers call them resv2). */
typedef struct hrx_uring_sq_offsets_t {
  uint32_t head, tail, ring_mask, ring_entries, flags, dropped, array, resv1;
  uint64_t user_addr;
} hrx_uring_sq_offsets_t;
typedef struct hrx_uring_cq_offsets_t {
  uint32_t head, tail, ring_mask, ring_entries, overflow, cqes, flags, resv1;
  uint64_t user_addr;
} hrx_uring_cq_offsets_t;
typedef struct hrx_uring_params_t {
  uint32_t sq_entries, cq_entries, flags, sq_thread_cpu, sq_thread_idle;
  uint32_t features, wq_fd, resv[3];
  hrx_uring_sq_offsets_t sq_off;
  hrx_uring_cq_offsets_t cq_off;
} hrx_uring_params_t;
HRX_STATIC_ASSERT(sizeof(hrx_uring_params_t) == sizeof(struct io_uring_params),
                  "io_uring_params layout");
HRX_STATIC_ASSERT(sizeof(hrx_uring_sq_offsets_t) == 40, "sq offsets layout");
HRX_STATIC_ASSERT(sizeof(hrx_uring_cq_offsets_t) == 40, "cq offsets layout");

struct hrx_storage_fabric_ring_s {
  hrx_allocator_t allocator;
  hrx_storage_sys_t sys;
  int fd;
  hrx_gpu_buffer_t* rings;   /* indices, flags and completions */
  hrx_gpu_buffer_t* entries; /* submission entries */
  hrx_gpu_buffer_t* payload; /* retained */
  _Atomic uint32_t* sq_flags;
  hrx_storage_fabric_ring_layout_t layout;
};

static int uring_register(hrx_storage_fabric_ring_t* ring, unsigned opcode,
                          const void* argument, unsigned count) {
  return ring->sys.uring_register(ring->sys.context, ring->fd, opcode,
                                  argument, count);
}

static hrx_status_t check_options(const hrx_storage_fabric_ring_options_t* o,
                                  uint32_t file_count,
                                  hrx_gpu_buffer_t* payload) {
  if (!o || o->entries == 0 || (o->entries & (o->entries - 1)) != 0 ||
      o->entries > HRX_STORAGE_FABRIC_RING_MAX_ENTRIES) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "fabric ring entries %u must be a power of two "
                           "in 1..%u",
                           o ? o->entries : 0,
                           HRX_STORAGE_FABRIC_RING_MAX_ENTRIES);
  }
  if (file_count == 0 || file_count > HRX_STORAGE_FABRIC_RING_MAX_FILES) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "fabric ring file count %u is outside 1..%u",
                           file_count, HRX_STORAGE_FABRIC_RING_MAX_FILES);
  }
  if (!payload) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a fabric ring needs a payload buffer");
  }
  if (!hrx_gpu_buffer_host_pointer(payload)) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "the payload buffer has no host mapping, which "
                           "io_uring needs to pin it (device-local memory "
                           "cannot be a registered buffer)");
  }
  if (hrx_gpu_buffer_size(payload) > (1ull << 30)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "payload of %llu bytes is larger than io_uring's "
                           "1 GiB registered-buffer limit",
                           (unsigned long long)hrx_gpu_buffer_size(payload));
  }
  return HRX_OK;
}

/* A buffer of at least |bytes| whose page-aligned part starts at
 * *out_offset. */
static hrx_status_t allocate_pages(hrx_gpu_stream_t* stream, uint64_t bytes,
                                   hrx_gpu_buffer_t** out_buffer,
                                   uint64_t* out_offset) {
  HRX_RETURN_IF_ERROR(
      hrx_gpu_stream_allocate(stream, bytes + HRX_FABRIC_PAGE, out_buffer));
  uintptr_t address = (uintptr_t)hrx_gpu_buffer_host_pointer(*out_buffer);
  if (!address) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "the device's buffers have no host mapping for "
                           "io_uring to pin");
  }
  *out_offset = (HRX_FABRIC_PAGE - address % HRX_FABRIC_PAGE) %
                HRX_FABRIC_PAGE;
  return HRX_OK;
}

static hrx_status_t slice(hrx_gpu_buffer_t* buffer, uint64_t offset,
                          uint64_t length, hrx_gpu_view_t* out_view) {
  return hrx_gpu_view_slice(hrx_gpu_buffer_binding(buffer), offset, length,
                            out_view);
}

/* Files, payload, restrictions, then enabling: restrictions can only be
 * registered on a disabled ring and bind every later registration. */
static hrx_status_t register_all(hrx_storage_fabric_ring_t* ring,
                                 const int* fds, uint32_t file_count) {
  int rc = uring_register(ring, IORING_REGISTER_FILES, fds, file_count);
  if (rc == -EBADF) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "registering %u fabric ring files: a descriptor "
                           "is not open",
                           file_count);
  }
  if (rc < 0) {
    return hrx_status_from_errno(-rc, "registering %u fabric ring files",
                                 file_count);
  }
  struct iovec payload = {hrx_gpu_buffer_host_pointer(ring->payload),
                          (size_t)hrx_gpu_buffer_size(ring->payload)};
  rc = uring_register(ring, IORING_REGISTER_BUFFERS, &payload, 1);
  if (rc < 0) {
    return hrx_status_annotate(
        hrx_status_from_errno(-rc, "registering the fabric ring payload"),
        "registered pages count against RLIMIT_MEMLOCK");
  }
  struct io_uring_restriction restrictions[2] = {
      {.opcode = IORING_RESTRICTION_SQE_OP, .sqe_op = IORING_OP_READ_FIXED},
      {.opcode = IORING_RESTRICTION_SQE_FLAGS_REQUIRED,
       .sqe_flags = IOSQE_FIXED_FILE},
  };
  rc = uring_register(ring, IORING_REGISTER_RESTRICTIONS, restrictions,
                      2);
  if (rc < 0) {
    return hrx_status_from_errno(-rc, "restricting the fabric ring");
  }
  rc = uring_register(ring, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
  if (rc < 0) {
    return hrx_status_from_errno(-rc, "enabling the fabric ring");
  }
  return HRX_OK;
}

static hrx_status_t set_up(hrx_storage_fabric_ring_t* ring,
                           hrx_gpu_stream_t* stream,
                           const hrx_storage_fabric_ring_options_t* options) {
  uint32_t cq_entries = 2 * options->entries; /* the kernel's default */
  uint64_t rings_bytes =
      HRX_FABRIC_RING_HEADER_BYTES + (uint64_t)cq_entries * HRX_URING_CQE_BYTES;
  uint64_t entries_bytes = (uint64_t)options->entries * HRX_URING_SQE_BYTES;
  uint64_t rings_offset = 0, entries_offset = 0;
  HRX_RETURN_IF_ERROR(
      allocate_pages(stream, rings_bytes, &ring->rings, &rings_offset));
  HRX_RETURN_IF_ERROR(
      allocate_pages(stream, entries_bytes, &ring->entries, &entries_offset));
  uint8_t* rings = (uint8_t*)hrx_gpu_buffer_host_pointer(ring->rings) +
                   rings_offset;
  uint8_t* entries = (uint8_t*)hrx_gpu_buffer_host_pointer(ring->entries) +
                     entries_offset;

  hrx_uring_params_t params = {
      .flags = IORING_SETUP_SQPOLL | IORING_SETUP_R_DISABLED |
               HRX_URING_SETUP_NO_MMAP | HRX_URING_SETUP_NO_SQARRAY,
      .sq_thread_idle = options->sqpoll_idle_ms,
      .sq_off = {.user_addr = (uint64_t)(uintptr_t)entries},
      .cq_off = {.user_addr = (uint64_t)(uintptr_t)rings},
  };
  int fd = ring->sys.uring_setup(ring->sys.context, options->entries,
                                 &params);
  if (fd == -EINVAL || fd == -ENOSYS) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "the kernel refused io_uring queues in caller "
                           "pages (IORING_SETUP_NO_MMAP | NO_SQARRAY need "
                           "Linux 6.6; errno %d)",
                           -fd);
  }
  if (fd == -EPERM) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "the kernel refused IORING_SETUP_SQPOLL for the "
                           "fabric ring (errno %d)",
                           -fd);
  }
  if (fd < 0) {
    return hrx_status_from_errno(-fd, "io_uring_setup for the fabric ring");
  }
  ring->fd = fd;
  if (params.sq_entries != options->entries ||
      params.cq_off.cqes + (uint64_t)params.cq_entries * HRX_URING_CQE_BYTES >
          rings_bytes) {
    return hrx_make_status(HRX_STATUS_INTERNAL,
                           "the kernel laid the fabric ring out beyond its "
                           "pages (%u entries, completions at %u)",
                           params.sq_entries, params.cq_off.cqes);
  }
  hrx_storage_fabric_ring_layout_t* layout = &ring->layout;
  layout->sq_entries = params.sq_entries;
  layout->cq_entries = params.cq_entries;
  layout->payload_address =
      (uint64_t)(uintptr_t)hrx_gpu_buffer_host_pointer(ring->payload);
  ring->sq_flags = (_Atomic uint32_t*)(rings + params.sq_off.flags);
  hrx_status_t status =
      slice(ring->entries, entries_offset, entries_bytes, &layout->sqes);
  const struct {
    uint32_t offset;
    uint64_t length;
    hrx_gpu_view_t* view;
  } fields[] = {
      {params.sq_off.tail, 4, &layout->sq_tail},
      {params.sq_off.head, 4, &layout->sq_head},
      {params.sq_off.flags, 4, &layout->sq_flags},
      {params.cq_off.tail, 4, &layout->cq_tail},
      {params.cq_off.head, 4, &layout->cq_head},
      {params.cq_off.cqes, (uint64_t)params.cq_entries * HRX_URING_CQE_BYTES,
       &layout->cqes},
  };
  for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); ++i) {
    if (status == HRX_OK) {
      status = slice(ring->rings, rings_offset + fields[i].offset,
                     fields[i].length, fields[i].view);
    }
  }
  return status;
}

hrx_status_t hrx_storage_fabric_ring_create_with_sys(
    hrx_gpu_stream_t* stream, const int* fds, uint32_t file_count,
    hrx_gpu_buffer_t* payload,
    const hrx_storage_fabric_ring_options_t* caller_options,
    const hrx_storage_sys_t* sys, hrx_allocator_t allocator,
    hrx_storage_fabric_ring_t** out_ring) {
  *out_ring = NULL;
  hrx_storage_fabric_ring_options_t local_options;
  const hrx_storage_fabric_ring_options_t* options = NULL;
  if (caller_options) {
    HRX_RETURN_IF_ERROR(HRX_STRUCT_READ(hrx_storage_fabric_ring_options_t,
                                        sqpoll_idle_ms, caller_options,
                                        &local_options));
    options = &local_options;
  }
  HRX_RETURN_IF_ERROR(check_options(options, file_count, payload));
  if (!fds) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%u fabric ring files but no descriptors",
                           file_count);
  }
  hrx_storage_fabric_ring_t* ring = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*ring), (void**)&ring));
  *ring = (hrx_storage_fabric_ring_t){
      .allocator = allocator, .sys = *sys, .fd = -1};
  hrx_gpu_buffer_retain(payload);
  ring->payload = payload;
  hrx_status_t status = set_up(ring, stream, options);
  if (status == HRX_OK) {
    status = register_all(ring, fds, file_count);
  }
  if (status != HRX_OK) {
    hrx_storage_fabric_ring_destroy(ring);
    return hrx_status_annotate(status, "creating a fabric storage ring");
  }
  *out_ring = ring;
  return HRX_OK;
}

hrx_status_t hrx_storage_fabric_ring_create(
    hrx_gpu_stream_t* stream, const int* fds, uint32_t file_count,
    hrx_gpu_buffer_t* payload,
    const hrx_storage_fabric_ring_options_t* options,
    hrx_allocator_t allocator, hrx_storage_fabric_ring_t** out_ring) {
  hrx_storage_sys_t sys = hrx_storage_sys_native();
  return hrx_storage_fabric_ring_create_with_sys(
      stream, fds, file_count, payload, options, &sys, allocator, out_ring);
}

void hrx_storage_fabric_ring_destroy(hrx_storage_fabric_ring_t* ring) {
  if (!ring) {
    return;
  }
  /* Closing the ring stops the poller and unpins the queue pages before
   * the buffers holding them go. */
  if (ring->fd >= 0) {
    (void)ring->sys.close(ring->sys.context, ring->fd);
  }
  hrx_gpu_buffer_release(ring->rings);
  hrx_gpu_buffer_release(ring->entries);
  hrx_gpu_buffer_release(ring->payload);
  hrx_allocator_free(ring->allocator, ring);
}

const hrx_storage_fabric_ring_layout_t* hrx_storage_fabric_ring_layout(
    const hrx_storage_fabric_ring_t* ring) {
  return &ring->layout;
}

hrx_status_t hrx_storage_fabric_ring_wake(hrx_storage_fabric_ring_t* ring) {
  if (!(atomic_load_explicit(ring->sq_flags, memory_order_acquire) &
        IORING_SQ_NEED_WAKEUP)) {
    return HRX_OK;
  }
  int rc = ring->sys.uring_enter(ring->sys.context, ring->fd,
                                 IORING_ENTER_SQ_WAKEUP);
  if (rc < 0) {
    return hrx_status_from_errno(-rc, "waking the fabric ring's poller");
  }
  return HRX_OK;
}
