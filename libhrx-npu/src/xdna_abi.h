/* The kernel interface libhrx-npu speaks: the amdxdna accel driver's ioctls
 * and the core DRM ioctls (version, GEM close, PRIME, syncobj) it uses.
 *
 * Written in HRX from the documented layouts (shared/research/xdna.md and
 * the public uapi headers drm/amdxdna_accel.h and drm/drm.h); no kernel
 * header is copied, and Debian 12 ships neither amdxdna header. Every size,
 * offset and request number the driver depends on is pinned below, so a
 * layout mistake fails the build instead of corrupting an ioctl.
 */
#ifndef HRX_NPU_XDNA_ABI_H_
#define HRX_NPU_XDNA_ABI_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* DRM ioctls are type 'd'; driver-private ones start at 0x40. */
#define HRX_DRM_IOCTL_TYPE 'd'
#define HRX_DRM_COMMAND_BASE 0x40

/*===------------------------- core DRM ------------------------------===*/

typedef struct hrx_drm_version_t {
  int32_t version_major;
  int32_t version_minor;
  int32_t version_patchlevel;
  uint32_t pad;
  uint64_t name_len; /* in: capacity of |name|; out: the name's length */
  uint64_t name;     /* char* */
  uint64_t date_len;
  uint64_t date;
  uint64_t desc_len;
  uint64_t desc;
} hrx_drm_version_t;

typedef struct hrx_drm_gem_close_t {
  uint32_t handle;
  uint32_t pad;
} hrx_drm_gem_close_t;

typedef struct hrx_drm_prime_handle_t {
  uint32_t handle;
  uint32_t flags;
  int32_t fd;
} hrx_drm_prime_handle_t;

typedef struct hrx_drm_syncobj_create_t {
  uint32_t handle;
  uint32_t flags;
} hrx_drm_syncobj_create_t;

typedef struct hrx_drm_syncobj_destroy_t {
  uint32_t handle;
  uint32_t pad;
} hrx_drm_syncobj_destroy_t;

/* The 40-byte form (before deadline_nsec was appended): the kernel accepts
 * a shorter argument and zero-fills the rest. |timeout_nsec| is an absolute
 * CLOCK_MONOTONIC time. */
typedef struct hrx_drm_syncobj_timeline_wait_t {
  uint64_t handles; /* uint32_t* */
  uint64_t points;  /* uint64_t* */
  int64_t timeout_nsec;
  uint32_t count_handles;
  uint32_t flags;
  uint32_t first_signaled;
  uint32_t pad;
} hrx_drm_syncobj_timeline_wait_t;

/* SYNCOBJ_QUERY: the last signalled point of each handle. */
typedef struct hrx_drm_syncobj_timeline_array_t {
  uint64_t handles; /* uint32_t* */
  uint64_t points;  /* uint64_t* */
  uint32_t count_handles;
  uint32_t flags;
} hrx_drm_syncobj_timeline_array_t;

typedef struct hrx_drm_syncobj_transfer_t {
  uint32_t src_handle;
  uint32_t dst_handle;
  uint64_t src_point;
  uint64_t dst_point;
  uint32_t flags;
  uint32_t pad;
} hrx_drm_syncobj_transfer_t;

/* SYNCOBJ_EVENTFD (Linux 6.6+): signal |fd| when |point| signals. */
typedef struct hrx_drm_syncobj_eventfd_t {
  uint32_t handle;
  uint32_t flags;
  uint64_t point;
  int32_t fd;
  uint32_t pad;
} hrx_drm_syncobj_eventfd_t;

#define HRX_DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL 0x1u
#define HRX_DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT 0x2u

#define HRX_DRM_IOCTL_VERSION 0xc0406400ul
#define HRX_DRM_IOCTL_GEM_CLOSE 0x40086409ul
#define HRX_DRM_IOCTL_PRIME_HANDLE_TO_FD 0xc00c642dul
#define HRX_DRM_IOCTL_PRIME_FD_TO_HANDLE 0xc00c642eul
#define HRX_DRM_IOCTL_SYNCOBJ_CREATE 0xc00864bful
#define HRX_DRM_IOCTL_SYNCOBJ_DESTROY 0xc00864c0ul
#define HRX_DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT 0xc02864caul
#define HRX_DRM_IOCTL_SYNCOBJ_QUERY 0xc01864cbul
#define HRX_DRM_IOCTL_SYNCOBJ_TRANSFER 0xc02064ccul
#define HRX_DRM_IOCTL_SYNCOBJ_EVENTFD 0xc01864cful

/*===------------------------- amdxdna -------------------------------===*/

typedef struct hrx_xdna_qos_t {
  uint32_t gops;
  uint32_t fps;
  uint32_t dma_bandwidth;
  uint32_t latency;
  uint32_t frame_exec_time;
  uint32_t priority;
} hrx_xdna_qos_t;

typedef struct hrx_xdna_create_hwctx_t {
  uint64_t ext;
  uint64_t ext_flags;
  uint64_t qos_p; /* hrx_xdna_qos_t* */
  uint32_t umq_bo;
  uint32_t log_buf_bo;
  uint32_t max_opc;
  uint32_t num_tiles;
  uint32_t mem_size;
  uint32_t umq_doorbell;
  uint32_t handle;         /* out */
  uint32_t syncobj_handle; /* out: the context's completion timeline */
} hrx_xdna_create_hwctx_t;

typedef struct hrx_xdna_destroy_hwctx_t {
  uint32_t handle;
  uint32_t pad;
} hrx_xdna_destroy_hwctx_t;

typedef struct hrx_xdna_config_hwctx_t {
  uint32_t handle;
  uint32_t param_type;
  uint64_t param_val;
  uint32_t param_val_size;
  uint32_t pad;
} hrx_xdna_config_hwctx_t;

typedef enum hrx_xdna_bo_type_e {
  HRX_XDNA_BO_SHARE = 1,    /* host pages the NPU reaches */
  HRX_XDNA_BO_DEV_HEAP = 2, /* the device heap, one per open file */
  HRX_XDNA_BO_DEV = 3,      /* carved from the heap by the driver */
  HRX_XDNA_BO_CMD = 4,      /* an ERT command packet */
} hrx_xdna_bo_type_t;

typedef struct hrx_xdna_create_bo_t {
  uint64_t flags;
  uint64_t vaddr; /* SHARE import: points at {dmabuf fd, num_entries} */
  uint64_t size;
  uint32_t type;
  uint32_t handle; /* out */
} hrx_xdna_create_bo_t;

typedef struct hrx_xdna_get_bo_info_t {
  uint64_t ext;
  uint64_t ext_flags;
  uint32_t handle;
  uint32_t pad;
  uint64_t map_offset; /* out: mmap offset on the device fd */
  uint64_t vaddr;      /* out */
  uint64_t xdna_addr;  /* out: the NPU's address of the BO */
} hrx_xdna_get_bo_info_t;

typedef struct hrx_xdna_sync_bo_t {
  uint32_t handle;
  uint32_t direction;
  uint64_t offset;
  uint64_t size;
} hrx_xdna_sync_bo_t;

#define HRX_XDNA_CMD_SUBMIT_EXEC_BUF 0u

typedef struct hrx_xdna_exec_cmd_t {
  uint64_t ext;
  uint64_t ext_flags;
  uint32_t hwctx;
  uint32_t type;
  uint64_t cmd_handles; /* with cmd_count 1: the CMD BO handle itself */
  uint64_t args;
  uint32_t cmd_count;
  uint32_t arg_count;
  uint64_t seq; /* out: the submission's sequence number */
} hrx_xdna_exec_cmd_t;

#define HRX_XDNA_QUERY_AIE_METADATA 1u

typedef struct hrx_xdna_get_info_t {
  uint32_t param;
  uint32_t buffer_size;
  uint64_t buffer; /* void* */
} hrx_xdna_get_info_t;

typedef struct hrx_xdna_tile_metadata_t {
  uint16_t row_count;
  uint16_t row_start;
  uint16_t dma_channel_count;
  uint16_t lock_count;
  uint16_t event_reg_count;
  uint16_t pad[3];
} hrx_xdna_tile_metadata_t;

typedef struct hrx_xdna_aie_metadata_t {
  uint32_t col_size;
  uint16_t cols;
  uint16_t rows;
  uint32_t version_major;
  uint32_t version_minor;
  hrx_xdna_tile_metadata_t core;
  hrx_xdna_tile_metadata_t mem;
  hrx_xdna_tile_metadata_t shim;
} hrx_xdna_aie_metadata_t;

#define HRX_XDNA_IOCTL_CREATE_HWCTX 0xc0386440ul
#define HRX_XDNA_IOCTL_DESTROY_HWCTX 0xc0086441ul
#define HRX_XDNA_IOCTL_CONFIG_HWCTX 0xc0186442ul
#define HRX_XDNA_IOCTL_CREATE_BO 0xc0206443ul
#define HRX_XDNA_IOCTL_GET_BO_INFO 0xc0306444ul
#define HRX_XDNA_IOCTL_SYNC_BO 0xc0186445ul
#define HRX_XDNA_IOCTL_EXEC_CMD 0xc0386446ul
#define HRX_XDNA_IOCTL_GET_INFO 0xc0106447ul

/*===------------------------- pinned layouts ------------------------===*/

#define HRX_XDNA_ASSERT_SIZE(type, size) \
  _Static_assert(sizeof(type) == (size), #type " must be " #size " bytes")
#define HRX_XDNA_ASSERT_OFFSET(type, field, offset)      \
  _Static_assert(offsetof(type, field) == (offset),      \
                 #type "." #field " must be at " #offset)
#define HRX_XDNA_ASSERT_IOWR(code, nr, type)                              \
  _Static_assert((code) == _IOWR(HRX_DRM_IOCTL_TYPE, (nr), type),         \
                 #code " must encode " #type)

HRX_XDNA_ASSERT_SIZE(hrx_drm_version_t, 64);
HRX_XDNA_ASSERT_OFFSET(hrx_drm_version_t, name_len, 16);
HRX_XDNA_ASSERT_OFFSET(hrx_drm_version_t, desc, 56);
HRX_XDNA_ASSERT_SIZE(hrx_drm_gem_close_t, 8);
HRX_XDNA_ASSERT_SIZE(hrx_drm_prime_handle_t, 12);
HRX_XDNA_ASSERT_SIZE(hrx_drm_syncobj_create_t, 8);
HRX_XDNA_ASSERT_SIZE(hrx_drm_syncobj_destroy_t, 8);
HRX_XDNA_ASSERT_SIZE(hrx_drm_syncobj_timeline_wait_t, 40);
HRX_XDNA_ASSERT_OFFSET(hrx_drm_syncobj_timeline_wait_t, timeout_nsec, 16);
HRX_XDNA_ASSERT_OFFSET(hrx_drm_syncobj_timeline_wait_t, first_signaled, 32);
HRX_XDNA_ASSERT_SIZE(hrx_drm_syncobj_timeline_array_t, 24);
HRX_XDNA_ASSERT_SIZE(hrx_drm_syncobj_transfer_t, 32);
HRX_XDNA_ASSERT_OFFSET(hrx_drm_syncobj_transfer_t, dst_point, 16);
HRX_XDNA_ASSERT_SIZE(hrx_drm_syncobj_eventfd_t, 24);
HRX_XDNA_ASSERT_OFFSET(hrx_drm_syncobj_eventfd_t, fd, 16);

HRX_XDNA_ASSERT_IOWR(HRX_DRM_IOCTL_VERSION, 0x00, hrx_drm_version_t);
_Static_assert(HRX_DRM_IOCTL_GEM_CLOSE ==
                   _IOW(HRX_DRM_IOCTL_TYPE, 0x09, hrx_drm_gem_close_t),
               "GEM_CLOSE is _IOW");
HRX_XDNA_ASSERT_IOWR(HRX_DRM_IOCTL_PRIME_HANDLE_TO_FD, 0x2d,
                     hrx_drm_prime_handle_t);
HRX_XDNA_ASSERT_IOWR(HRX_DRM_IOCTL_PRIME_FD_TO_HANDLE, 0x2e,
                     hrx_drm_prime_handle_t);
HRX_XDNA_ASSERT_IOWR(HRX_DRM_IOCTL_SYNCOBJ_CREATE, 0xbf,
                     hrx_drm_syncobj_create_t);
HRX_XDNA_ASSERT_IOWR(HRX_DRM_IOCTL_SYNCOBJ_DESTROY, 0xc0,
                     hrx_drm_syncobj_destroy_t);
HRX_XDNA_ASSERT_IOWR(HRX_DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, 0xca,
                     hrx_drm_syncobj_timeline_wait_t);
HRX_XDNA_ASSERT_IOWR(HRX_DRM_IOCTL_SYNCOBJ_QUERY, 0xcb,
                     hrx_drm_syncobj_timeline_array_t);
HRX_XDNA_ASSERT_IOWR(HRX_DRM_IOCTL_SYNCOBJ_TRANSFER, 0xcc,
                     hrx_drm_syncobj_transfer_t);
HRX_XDNA_ASSERT_IOWR(HRX_DRM_IOCTL_SYNCOBJ_EVENTFD, 0xcf,
                     hrx_drm_syncobj_eventfd_t);

HRX_XDNA_ASSERT_SIZE(hrx_xdna_qos_t, 24);
HRX_XDNA_ASSERT_SIZE(hrx_xdna_create_hwctx_t, 56);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_create_hwctx_t, qos_p, 16);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_create_hwctx_t, num_tiles, 36);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_create_hwctx_t, handle, 48);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_create_hwctx_t, syncobj_handle, 52);
HRX_XDNA_ASSERT_SIZE(hrx_xdna_destroy_hwctx_t, 8);
HRX_XDNA_ASSERT_SIZE(hrx_xdna_config_hwctx_t, 24);
HRX_XDNA_ASSERT_SIZE(hrx_xdna_create_bo_t, 32);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_create_bo_t, type, 24);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_create_bo_t, handle, 28);
HRX_XDNA_ASSERT_SIZE(hrx_xdna_get_bo_info_t, 48);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_get_bo_info_t, map_offset, 24);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_get_bo_info_t, xdna_addr, 40);
HRX_XDNA_ASSERT_SIZE(hrx_xdna_sync_bo_t, 24);
HRX_XDNA_ASSERT_SIZE(hrx_xdna_exec_cmd_t, 56);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_exec_cmd_t, hwctx, 16);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_exec_cmd_t, cmd_handles, 24);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_exec_cmd_t, cmd_count, 40);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_exec_cmd_t, seq, 48);
HRX_XDNA_ASSERT_SIZE(hrx_xdna_get_info_t, 16);
HRX_XDNA_ASSERT_SIZE(hrx_xdna_tile_metadata_t, 16);
HRX_XDNA_ASSERT_SIZE(hrx_xdna_aie_metadata_t, 64);
HRX_XDNA_ASSERT_OFFSET(hrx_xdna_aie_metadata_t, core, 16);

HRX_XDNA_ASSERT_IOWR(HRX_XDNA_IOCTL_CREATE_HWCTX, HRX_DRM_COMMAND_BASE + 0,
                     hrx_xdna_create_hwctx_t);
HRX_XDNA_ASSERT_IOWR(HRX_XDNA_IOCTL_DESTROY_HWCTX, HRX_DRM_COMMAND_BASE + 1,
                     hrx_xdna_destroy_hwctx_t);
HRX_XDNA_ASSERT_IOWR(HRX_XDNA_IOCTL_CONFIG_HWCTX, HRX_DRM_COMMAND_BASE + 2,
                     hrx_xdna_config_hwctx_t);
HRX_XDNA_ASSERT_IOWR(HRX_XDNA_IOCTL_CREATE_BO, HRX_DRM_COMMAND_BASE + 3,
                     hrx_xdna_create_bo_t);
HRX_XDNA_ASSERT_IOWR(HRX_XDNA_IOCTL_GET_BO_INFO, HRX_DRM_COMMAND_BASE + 4,
                     hrx_xdna_get_bo_info_t);
HRX_XDNA_ASSERT_IOWR(HRX_XDNA_IOCTL_SYNC_BO, HRX_DRM_COMMAND_BASE + 5,
                     hrx_xdna_sync_bo_t);
HRX_XDNA_ASSERT_IOWR(HRX_XDNA_IOCTL_EXEC_CMD, HRX_DRM_COMMAND_BASE + 6,
                     hrx_xdna_exec_cmd_t);
HRX_XDNA_ASSERT_IOWR(HRX_XDNA_IOCTL_GET_INFO, HRX_DRM_COMMAND_BASE + 7,
                     hrx_xdna_get_info_t);

#endif /* HRX_NPU_XDNA_ABI_H_ */
