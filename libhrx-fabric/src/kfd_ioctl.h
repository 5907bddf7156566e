/* The KFD (/dev/kfd) kernel interface, written in HRX from the documented
 * layout (shared/research/hardware.md §1) rather than copied from a kernel
 * header, which Debian ships only as KFD 1.11 and which does not compile
 * without libdrm's drm.h.
 *
 * The layouts are those of KFD 1.11. Later kernels only append fields, and
 * kfd_ioctl() copies max(kernel size, user size) bytes zero-filled, so these
 * sizes work on every newer kernel. Each struct is pinned by size and offset
 * assertions below; tests/fabric/test_kfd_abi.c checks them against the
 * system's <linux/kfd_ioctl.h> when one is installed.
 */
#ifndef HRX_FABRIC_KFD_IOCTL_H_
#define HRX_FABRIC_KFD_IOCTL_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* The interface version this declaration describes. */
#define HRX_KFD_VERSION_MAJOR 1u
#define HRX_KFD_VERSION_MINOR 11u

#define HRX_KFD_IOCTL_TYPE 'K'
#define HRX_KFD_IOR(nr, type) _IOR(HRX_KFD_IOCTL_TYPE, (nr), type)
#define HRX_KFD_IOW(nr, type) _IOW(HRX_KFD_IOCTL_TYPE, (nr), type)
#define HRX_KFD_IOWR(nr, type) _IOWR(HRX_KFD_IOCTL_TYPE, (nr), type)

/* GET_VERSION (0x01). */
typedef struct hrx_kfd_get_version_args_t {
  uint32_t major_version; /* out */
  uint32_t minor_version; /* out */
} hrx_kfd_get_version_args_t;

/* Queue types for CREATE_QUEUE. */
#define HRX_KFD_QUEUE_TYPE_COMPUTE 0u /* PM4 */
#define HRX_KFD_QUEUE_TYPE_SDMA 1u
#define HRX_KFD_QUEUE_TYPE_COMPUTE_AQL 2u
#define HRX_KFD_QUEUE_TYPE_SDMA_XGMI 3u

/* CREATE_QUEUE (0x02). The read and write pointer addresses are chosen by
 * userspace (GPUVM-mapped memory), despite the "from KFD" in old headers. */
typedef struct hrx_kfd_create_queue_args_t {
  uint64_t ring_base_address;
  uint64_t write_pointer_address;
  uint64_t read_pointer_address;
  uint64_t doorbell_offset; /* out: mmap offset of the doorbell in /dev/kfd */
  uint32_t ring_size;
  uint32_t gpu_id;
  uint32_t queue_type;
  uint32_t queue_percentage;
  uint32_t queue_priority;
  uint32_t queue_id; /* out */
  uint64_t eop_buffer_address;
  uint64_t eop_buffer_size;
  uint64_t ctx_save_restore_address;
  uint32_t ctx_save_restore_size;
  uint32_t ctl_stack_size;
} hrx_kfd_create_queue_args_t;

/* KFD 1.17 appends an SDMA engine choice; a 1.11-sized struct is still
 * accepted (zero-filled), so this form is needed only to pick an engine. */
typedef struct hrx_kfd_create_queue_v117_args_t {
  hrx_kfd_create_queue_args_t base;
  uint32_t sdma_engine_id;
  uint32_t pad;
} hrx_kfd_create_queue_v117_args_t;

/* DESTROY_QUEUE (0x03). */
typedef struct hrx_kfd_destroy_queue_args_t {
  uint32_t queue_id;
  uint32_t pad;
} hrx_kfd_destroy_queue_args_t;

/* Event types for CREATE_EVENT. */
#define HRX_KFD_EVENT_SIGNAL 0u
#define HRX_KFD_EVENT_HW_EXCEPTION 3u
#define HRX_KFD_EVENT_MEMORY 8u

/* CREATE_EVENT (0x08). The first call may pass the handle of an event page
 * allocation in event_page_offset; signal events then mail at
 * event_page + event_slot_index * 8. */
typedef struct hrx_kfd_create_event_args_t {
  uint64_t event_page_offset;
  uint32_t event_trigger_data; /* out */
  uint32_t event_type;
  uint32_t auto_reset;
  uint32_t node_id;
  uint32_t event_id;         /* out */
  uint32_t event_slot_index; /* out */
} hrx_kfd_create_event_args_t;

/* DESTROY_EVENT (0x09), SET_EVENT (0x0A), RESET_EVENT (0x0B) share it. */
typedef struct hrx_kfd_event_id_args_t {
  uint32_t event_id;
  uint32_t pad;
} hrx_kfd_event_id_args_t;

/* What a MEMORY event reports about a GPU page fault. */
typedef struct hrx_kfd_memory_exception_t {
  uint32_t not_present;
  uint32_t read_only;
  uint32_t no_execute;
  uint32_t imprecise;
  uint64_t va;
  uint32_t gpu_id;
  uint32_t error_type;
} hrx_kfd_memory_exception_t;

/* What a HW_EXCEPTION event reports about a reset. */
typedef struct hrx_kfd_hw_exception_t {
  uint32_t reset_type;
  uint32_t reset_cause;
  uint32_t memory_lost;
  uint32_t gpu_id;
} hrx_kfd_hw_exception_t;

/* One entry of the WAIT_EVENTS array (48 bytes). */
typedef struct hrx_kfd_event_data_t {
  union {
    hrx_kfd_memory_exception_t memory_exception;
    hrx_kfd_hw_exception_t hw_exception;
  } u; /* out */
  uint64_t event_data_ext;
  uint32_t event_id;
  uint32_t pad;
} hrx_kfd_event_data_t;

#define HRX_KFD_WAIT_COMPLETE 0u
#define HRX_KFD_WAIT_TIMEOUT 1u
#define HRX_KFD_WAIT_FAIL 2u

/* WAIT_EVENTS (0x0C); timeout in milliseconds. */
typedef struct hrx_kfd_wait_events_args_t {
  uint64_t events_ptr; /* hrx_kfd_event_data_t[num_events] */
  uint32_t num_events;
  uint32_t wait_for_all;
  uint32_t timeout;
  uint32_t wait_result; /* out: HRX_KFD_WAIT_* */
} hrx_kfd_wait_events_args_t;

/* SET_SCRATCH_BACKING_VA (0x11). */
typedef struct hrx_kfd_set_scratch_backing_va_args_t {
  uint64_t va_addr;
  uint32_t gpu_id;
  uint32_t pad;
} hrx_kfd_set_scratch_backing_va_args_t;

/* SET_TRAP_HANDLER (0x13). */
typedef struct hrx_kfd_set_trap_handler_args_t {
  uint64_t tba_addr;
  uint64_t tma_addr;
  uint32_t gpu_id;
  uint32_t pad;
} hrx_kfd_set_trap_handler_args_t;

/* One GPU's apertures, as GET_PROCESS_APERTURES_NEW fills them. */
typedef struct hrx_kfd_process_device_apertures_t {
  uint64_t lds_base;
  uint64_t lds_limit;
  uint64_t scratch_base;
  uint64_t scratch_limit;
  uint64_t gpuvm_base;
  uint64_t gpuvm_limit;
  uint32_t gpu_id;
  uint32_t pad;
} hrx_kfd_process_device_apertures_t;

/* GET_PROCESS_APERTURES_NEW (0x14); 0x06 is the deprecated fixed-size form.
 * num_of_nodes is in/out: the array's length, then the number filled. */
typedef struct hrx_kfd_get_process_apertures_new_args_t {
  uint64_t apertures_ptr; /* hrx_kfd_process_device_apertures_t[] */
  uint32_t num_of_nodes;
  uint32_t pad;
} hrx_kfd_get_process_apertures_new_args_t;

/* ACQUIRE_VM (0x15): drm_fd is the GPU's /dev/dri/renderD<minor>. */
typedef struct hrx_kfd_acquire_vm_args_t {
  uint32_t drm_fd;
  uint32_t gpu_id;
} hrx_kfd_acquire_vm_args_t;

/* Flags for ALLOC_MEMORY_OF_GPU. */
#define HRX_KFD_ALLOC_VRAM (1u << 0)
#define HRX_KFD_ALLOC_GTT (1u << 1)
#define HRX_KFD_ALLOC_USERPTR (1u << 2)
#define HRX_KFD_ALLOC_DOORBELL (1u << 3)
#define HRX_KFD_ALLOC_MMIO_REMAP (1u << 4)
#define HRX_KFD_ALLOC_UNCACHED (1u << 25)
#define HRX_KFD_ALLOC_COHERENT (1u << 26)
#define HRX_KFD_ALLOC_AQL_QUEUE_MEM (1u << 27)
#define HRX_KFD_ALLOC_NO_SUBSTITUTE (1u << 28)
#define HRX_KFD_ALLOC_PUBLIC (1u << 29)
#define HRX_KFD_ALLOC_EXECUTABLE (1u << 30)
#define HRX_KFD_ALLOC_WRITABLE (1u << 31)

/* ALLOC_MEMORY_OF_GPU (0x16). mmap_offset is the user pointer for USERPTR,
 * otherwise the offset to mmap on the render node fd. */
typedef struct hrx_kfd_alloc_memory_args_t {
  uint64_t va_addr;
  uint64_t size;
  uint64_t handle; /* out */
  uint64_t mmap_offset;
  uint32_t gpu_id;
  uint32_t flags; /* HRX_KFD_ALLOC_* */
} hrx_kfd_alloc_memory_args_t;

/* FREE_MEMORY_OF_GPU (0x17). */
typedef struct hrx_kfd_free_memory_args_t {
  uint64_t handle;
} hrx_kfd_free_memory_args_t;

/* MAP_MEMORY_TO_GPU (0x18) and UNMAP_MEMORY_FROM_GPU (0x19). n_success is
 * in/out so that a retried call resumes after the GPUs already done. */
typedef struct hrx_kfd_map_memory_args_t {
  uint64_t handle;
  uint64_t device_ids_array_ptr; /* uint32_t gpu_ids[n_devices] */
  uint32_t n_devices;
  uint32_t n_success;
} hrx_kfd_map_memory_args_t;

/* SET_XNACK_MODE (0x21): -1 queries, 0/1 sets. */
typedef struct hrx_kfd_set_xnack_mode_args_t {
  int32_t xnack_enabled;
} hrx_kfd_set_xnack_mode_args_t;

/* AVAILABLE_MEMORY (0x23). */
typedef struct hrx_kfd_available_memory_args_t {
  uint64_t available; /* out */
  uint32_t gpu_id;
  uint32_t pad;
} hrx_kfd_available_memory_args_t;

/* EXPORT_DMABUF (0x24): a buffer object as a dma-buf fd, for another
 * device's driver to import (the NPU's amdxdna). */
typedef struct hrx_kfd_export_dmabuf_args_t {
  uint64_t handle;
  uint32_t flags;     /* open flags of the new fd: O_CLOEXEC, O_RDWR */
  uint32_t dmabuf_fd; /* out */
} hrx_kfd_export_dmabuf_args_t;

#define HRX_KFD_IOC_GET_VERSION HRX_KFD_IOR(0x01, hrx_kfd_get_version_args_t)
#define HRX_KFD_IOC_CREATE_QUEUE \
  HRX_KFD_IOWR(0x02, hrx_kfd_create_queue_args_t)
#define HRX_KFD_IOC_CREATE_QUEUE_V117 \
  HRX_KFD_IOWR(0x02, hrx_kfd_create_queue_v117_args_t)
#define HRX_KFD_IOC_DESTROY_QUEUE \
  HRX_KFD_IOWR(0x03, hrx_kfd_destroy_queue_args_t)
#define HRX_KFD_IOC_CREATE_EVENT \
  HRX_KFD_IOWR(0x08, hrx_kfd_create_event_args_t)
#define HRX_KFD_IOC_DESTROY_EVENT HRX_KFD_IOW(0x09, hrx_kfd_event_id_args_t)
#define HRX_KFD_IOC_SET_EVENT HRX_KFD_IOW(0x0A, hrx_kfd_event_id_args_t)
#define HRX_KFD_IOC_RESET_EVENT HRX_KFD_IOW(0x0B, hrx_kfd_event_id_args_t)
#define HRX_KFD_IOC_WAIT_EVENTS \
  HRX_KFD_IOWR(0x0C, hrx_kfd_wait_events_args_t)
#define HRX_KFD_IOC_SET_SCRATCH_BACKING_VA \
  HRX_KFD_IOWR(0x11, hrx_kfd_set_scratch_backing_va_args_t)
#define HRX_KFD_IOC_SET_TRAP_HANDLER \
  HRX_KFD_IOW(0x13, hrx_kfd_set_trap_handler_args_t)
#define HRX_KFD_IOC_GET_PROCESS_APERTURES_NEW \
  HRX_KFD_IOWR(0x14, hrx_kfd_get_process_apertures_new_args_t)
#define HRX_KFD_IOC_ACQUIRE_VM HRX_KFD_IOW(0x15, hrx_kfd_acquire_vm_args_t)
#define HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU \
  HRX_KFD_IOWR(0x16, hrx_kfd_alloc_memory_args_t)
#define HRX_KFD_IOC_FREE_MEMORY_OF_GPU \
  HRX_KFD_IOW(0x17, hrx_kfd_free_memory_args_t)
#define HRX_KFD_IOC_MAP_MEMORY_TO_GPU \
  HRX_KFD_IOWR(0x18, hrx_kfd_map_memory_args_t)
#define HRX_KFD_IOC_UNMAP_MEMORY_FROM_GPU \
  HRX_KFD_IOWR(0x19, hrx_kfd_map_memory_args_t)
#define HRX_KFD_IOC_SET_XNACK_MODE \
  HRX_KFD_IOWR(0x21, hrx_kfd_set_xnack_mode_args_t)
#define HRX_KFD_IOC_AVAILABLE_MEMORY \
  HRX_KFD_IOWR(0x23, hrx_kfd_available_memory_args_t)
#define HRX_KFD_IOC_EXPORT_DMABUF \
  HRX_KFD_IOWR(0x24, hrx_kfd_export_dmabuf_args_t)

/* Pins: a layout change here breaks the build before it reaches a kernel. */
#define HRX_KFD_PIN_SIZE(type, size) \
  _Static_assert(sizeof(type) == (size), #type " size")
#define HRX_KFD_PIN_OFFSET(type, field, offset) \
  _Static_assert(offsetof(type, field) == (offset), #type "." #field)

HRX_KFD_PIN_SIZE(hrx_kfd_get_version_args_t, 8);
HRX_KFD_PIN_OFFSET(hrx_kfd_get_version_args_t, minor_version, 4);

HRX_KFD_PIN_SIZE(hrx_kfd_create_queue_args_t, 88);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, write_pointer_address, 8);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, read_pointer_address, 16);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, doorbell_offset, 24);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, ring_size, 32);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, gpu_id, 36);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, queue_type, 40);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, queue_percentage, 44);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, queue_priority, 48);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, queue_id, 52);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, eop_buffer_address, 56);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, eop_buffer_size, 64);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, ctx_save_restore_address,
                   72);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, ctx_save_restore_size, 80);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_args_t, ctl_stack_size, 84);

HRX_KFD_PIN_SIZE(hrx_kfd_create_queue_v117_args_t, 96);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_v117_args_t, sdma_engine_id, 88);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_queue_v117_args_t, pad, 92);

HRX_KFD_PIN_SIZE(hrx_kfd_destroy_queue_args_t, 8);

HRX_KFD_PIN_SIZE(hrx_kfd_create_event_args_t, 32);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_event_args_t, event_trigger_data, 8);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_event_args_t, event_type, 12);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_event_args_t, auto_reset, 16);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_event_args_t, node_id, 20);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_event_args_t, event_id, 24);
HRX_KFD_PIN_OFFSET(hrx_kfd_create_event_args_t, event_slot_index, 28);

HRX_KFD_PIN_SIZE(hrx_kfd_event_id_args_t, 8);

HRX_KFD_PIN_SIZE(hrx_kfd_memory_exception_t, 32);
HRX_KFD_PIN_OFFSET(hrx_kfd_memory_exception_t, va, 16);
HRX_KFD_PIN_OFFSET(hrx_kfd_memory_exception_t, gpu_id, 24);
HRX_KFD_PIN_OFFSET(hrx_kfd_memory_exception_t, error_type, 28);
HRX_KFD_PIN_SIZE(hrx_kfd_hw_exception_t, 16);
HRX_KFD_PIN_SIZE(hrx_kfd_event_data_t, 48);
HRX_KFD_PIN_OFFSET(hrx_kfd_event_data_t, event_data_ext, 32);
HRX_KFD_PIN_OFFSET(hrx_kfd_event_data_t, event_id, 40);

HRX_KFD_PIN_SIZE(hrx_kfd_wait_events_args_t, 24);
HRX_KFD_PIN_OFFSET(hrx_kfd_wait_events_args_t, num_events, 8);
HRX_KFD_PIN_OFFSET(hrx_kfd_wait_events_args_t, wait_for_all, 12);
HRX_KFD_PIN_OFFSET(hrx_kfd_wait_events_args_t, timeout, 16);
HRX_KFD_PIN_OFFSET(hrx_kfd_wait_events_args_t, wait_result, 20);

HRX_KFD_PIN_SIZE(hrx_kfd_set_scratch_backing_va_args_t, 16);
HRX_KFD_PIN_SIZE(hrx_kfd_set_trap_handler_args_t, 24);
HRX_KFD_PIN_OFFSET(hrx_kfd_set_trap_handler_args_t, gpu_id, 16);

HRX_KFD_PIN_SIZE(hrx_kfd_process_device_apertures_t, 56);
HRX_KFD_PIN_OFFSET(hrx_kfd_process_device_apertures_t, gpuvm_base, 32);
HRX_KFD_PIN_OFFSET(hrx_kfd_process_device_apertures_t, gpu_id, 48);
HRX_KFD_PIN_SIZE(hrx_kfd_get_process_apertures_new_args_t, 16);
HRX_KFD_PIN_OFFSET(hrx_kfd_get_process_apertures_new_args_t, num_of_nodes, 8);

HRX_KFD_PIN_SIZE(hrx_kfd_acquire_vm_args_t, 8);
HRX_KFD_PIN_OFFSET(hrx_kfd_acquire_vm_args_t, gpu_id, 4);

HRX_KFD_PIN_SIZE(hrx_kfd_alloc_memory_args_t, 40);
HRX_KFD_PIN_OFFSET(hrx_kfd_alloc_memory_args_t, size, 8);
HRX_KFD_PIN_OFFSET(hrx_kfd_alloc_memory_args_t, handle, 16);
HRX_KFD_PIN_OFFSET(hrx_kfd_alloc_memory_args_t, mmap_offset, 24);
HRX_KFD_PIN_OFFSET(hrx_kfd_alloc_memory_args_t, gpu_id, 32);
HRX_KFD_PIN_OFFSET(hrx_kfd_alloc_memory_args_t, flags, 36);

HRX_KFD_PIN_SIZE(hrx_kfd_export_dmabuf_args_t, 16);
HRX_KFD_PIN_OFFSET(hrx_kfd_export_dmabuf_args_t, dmabuf_fd, 12);
_Static_assert(HRX_KFD_IOC_EXPORT_DMABUF == 0xc0104b24u, "EXPORT_DMABUF");
HRX_KFD_PIN_SIZE(hrx_kfd_free_memory_args_t, 8);
HRX_KFD_PIN_SIZE(hrx_kfd_map_memory_args_t, 24);
HRX_KFD_PIN_OFFSET(hrx_kfd_map_memory_args_t, device_ids_array_ptr, 8);
HRX_KFD_PIN_OFFSET(hrx_kfd_map_memory_args_t, n_devices, 16);
HRX_KFD_PIN_OFFSET(hrx_kfd_map_memory_args_t, n_success, 20);

HRX_KFD_PIN_SIZE(hrx_kfd_set_xnack_mode_args_t, 4);
HRX_KFD_PIN_SIZE(hrx_kfd_available_memory_args_t, 16);
HRX_KFD_PIN_OFFSET(hrx_kfd_available_memory_args_t, gpu_id, 8);

/* Request codes measured from the 1.11 header (hardware.md §1). */
_Static_assert(HRX_KFD_IOC_GET_VERSION == 0x80084b01u, "GET_VERSION");
_Static_assert(HRX_KFD_IOC_CREATE_QUEUE == 0xc0584b02u, "CREATE_QUEUE");
_Static_assert(HRX_KFD_IOC_CREATE_QUEUE_V117 == 0xc0604b02u,
               "CREATE_QUEUE 1.17");
_Static_assert(HRX_KFD_IOC_ACQUIRE_VM == 0x40084b15u, "ACQUIRE_VM");
_Static_assert(HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU == 0xc0284b16u,
               "ALLOC_MEMORY_OF_GPU");

#endif /* HRX_FABRIC_KFD_IOCTL_H_ */
