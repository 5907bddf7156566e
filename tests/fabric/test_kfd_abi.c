/* HRX's own KFD declarations (libhrx-fabric/src/kfd_ioctl.h) against the
 * system's <linux/kfd_ioctl.h>: every struct size, every field offset and
 * size, every request code. Skipped when the header is not installed. */
#include <stddef.h>
#include <stdio.h>

#include "kfd_ioctl.h"
#include "test_support.h"

#if HRX_TEST_HAVE_KFD_IOCTL_H
#include <linux/kfd_ioctl.h>

#define CHECK_SIZE(ours, theirs) \
  assert_int_equal(sizeof(ours), sizeof(struct theirs))
#define CHECK_FIELD(ours, field, theirs, their_field)            \
  do {                                                           \
    assert_int_equal(offsetof(ours, field),                      \
                     offsetof(struct theirs, their_field));      \
    assert_int_equal(sizeof(((ours*)0)->field),                  \
                     sizeof(((struct theirs*)0)->their_field));  \
  } while (0)

static void test_version(void** state) {
  (void)state;
  assert_int_equal(HRX_KFD_VERSION_MAJOR, KFD_IOCTL_MAJOR_VERSION);
  /* Newer headers only append; ours must not claim more than the system's. */
  assert_true(HRX_KFD_VERSION_MINOR <= KFD_IOCTL_MINOR_VERSION);
}

static void test_structs(void** state) {
  (void)state;
  CHECK_SIZE(hrx_kfd_get_version_args_t, kfd_ioctl_get_version_args);
  CHECK_FIELD(hrx_kfd_get_version_args_t, major_version,
              kfd_ioctl_get_version_args, major_version);
  CHECK_FIELD(hrx_kfd_get_version_args_t, minor_version,
              kfd_ioctl_get_version_args, minor_version);

  /* The 1.17 extension keeps the 1.11 prefix. */
  if (KFD_IOCTL_MINOR_VERSION < 17) {
    CHECK_SIZE(hrx_kfd_create_queue_args_t, kfd_ioctl_create_queue_args);
  } else {
    CHECK_SIZE(hrx_kfd_create_queue_v117_args_t, kfd_ioctl_create_queue_args);
  }
#define Q(field) \
  CHECK_FIELD(hrx_kfd_create_queue_args_t, field, kfd_ioctl_create_queue_args, \
              field)
  Q(ring_base_address);
  Q(write_pointer_address);
  Q(read_pointer_address);
  Q(doorbell_offset);
  Q(ring_size);
  Q(gpu_id);
  Q(queue_type);
  Q(queue_percentage);
  Q(queue_priority);
  Q(queue_id);
  Q(eop_buffer_address);
  Q(eop_buffer_size);
  Q(ctx_save_restore_address);
  Q(ctx_save_restore_size);
  Q(ctl_stack_size);
#undef Q

  CHECK_SIZE(hrx_kfd_destroy_queue_args_t, kfd_ioctl_destroy_queue_args);
  CHECK_FIELD(hrx_kfd_destroy_queue_args_t, queue_id,
              kfd_ioctl_destroy_queue_args, queue_id);
  CHECK_FIELD(hrx_kfd_destroy_queue_args_t, pad,
              kfd_ioctl_destroy_queue_args, pad);

#define E(field) \
  CHECK_FIELD(hrx_kfd_create_event_args_t, field, kfd_ioctl_create_event_args, \
              field)
  CHECK_SIZE(hrx_kfd_create_event_args_t, kfd_ioctl_create_event_args);
  E(event_page_offset);
  E(event_trigger_data);
  E(event_type);
  E(auto_reset);
  E(node_id);
  E(event_id);
  E(event_slot_index);
#undef E

  CHECK_SIZE(hrx_kfd_event_id_args_t, kfd_ioctl_destroy_event_args);
  CHECK_SIZE(hrx_kfd_event_id_args_t, kfd_ioctl_set_event_args);
  CHECK_SIZE(hrx_kfd_event_id_args_t, kfd_ioctl_reset_event_args);
  CHECK_FIELD(hrx_kfd_event_id_args_t, event_id, kfd_ioctl_destroy_event_args,
              event_id);
  CHECK_FIELD(hrx_kfd_event_id_args_t, pad, kfd_ioctl_destroy_event_args,
              pad);
  CHECK_FIELD(hrx_kfd_event_id_args_t, event_id, kfd_ioctl_set_event_args,
              event_id);
  CHECK_FIELD(hrx_kfd_event_id_args_t, event_id, kfd_ioctl_reset_event_args,
              event_id);

  CHECK_SIZE(hrx_kfd_memory_exception_t, kfd_hsa_memory_exception_data);
  CHECK_FIELD(hrx_kfd_memory_exception_t, not_present,
              kfd_hsa_memory_exception_data, failure.NotPresent);
  CHECK_FIELD(hrx_kfd_memory_exception_t, read_only,
              kfd_hsa_memory_exception_data, failure.ReadOnly);
  CHECK_FIELD(hrx_kfd_memory_exception_t, no_execute,
              kfd_hsa_memory_exception_data, failure.NoExecute);
  CHECK_FIELD(hrx_kfd_memory_exception_t, imprecise,
              kfd_hsa_memory_exception_data, failure.imprecise);
  CHECK_FIELD(hrx_kfd_memory_exception_t, va, kfd_hsa_memory_exception_data,
              va);
  CHECK_FIELD(hrx_kfd_memory_exception_t, gpu_id,
              kfd_hsa_memory_exception_data, gpu_id);
  CHECK_FIELD(hrx_kfd_memory_exception_t, error_type,
              kfd_hsa_memory_exception_data, ErrorType);

  CHECK_SIZE(hrx_kfd_hw_exception_t, kfd_hsa_hw_exception_data);
  CHECK_FIELD(hrx_kfd_hw_exception_t, reset_type, kfd_hsa_hw_exception_data,
              reset_type);
  CHECK_FIELD(hrx_kfd_hw_exception_t, reset_cause, kfd_hsa_hw_exception_data,
              reset_cause);
  CHECK_FIELD(hrx_kfd_hw_exception_t, memory_lost, kfd_hsa_hw_exception_data,
              memory_lost);
  CHECK_FIELD(hrx_kfd_hw_exception_t, gpu_id, kfd_hsa_hw_exception_data,
              gpu_id);

  CHECK_SIZE(hrx_kfd_event_data_t, kfd_event_data);
  CHECK_FIELD(hrx_kfd_event_data_t, u.memory_exception, kfd_event_data,
              memory_exception_data);
  CHECK_FIELD(hrx_kfd_event_data_t, u.hw_exception, kfd_event_data,
              hw_exception_data);
  CHECK_FIELD(hrx_kfd_event_data_t, event_data_ext, kfd_event_data,
              kfd_event_data_ext);
  CHECK_FIELD(hrx_kfd_event_data_t, event_id, kfd_event_data, event_id);
  CHECK_FIELD(hrx_kfd_event_data_t, pad, kfd_event_data, pad);

  CHECK_SIZE(hrx_kfd_wait_events_args_t, kfd_ioctl_wait_events_args);
  CHECK_FIELD(hrx_kfd_wait_events_args_t, events_ptr,
              kfd_ioctl_wait_events_args, events_ptr);
  CHECK_FIELD(hrx_kfd_wait_events_args_t, num_events,
              kfd_ioctl_wait_events_args, num_events);
  CHECK_FIELD(hrx_kfd_wait_events_args_t, wait_for_all,
              kfd_ioctl_wait_events_args, wait_for_all);
  CHECK_FIELD(hrx_kfd_wait_events_args_t, timeout, kfd_ioctl_wait_events_args,
              timeout);
  CHECK_FIELD(hrx_kfd_wait_events_args_t, wait_result,
              kfd_ioctl_wait_events_args, wait_result);

  CHECK_SIZE(hrx_kfd_set_scratch_backing_va_args_t,
             kfd_ioctl_set_scratch_backing_va_args);
  CHECK_FIELD(hrx_kfd_set_scratch_backing_va_args_t, va_addr,
              kfd_ioctl_set_scratch_backing_va_args, va_addr);
  CHECK_FIELD(hrx_kfd_set_scratch_backing_va_args_t, gpu_id,
              kfd_ioctl_set_scratch_backing_va_args, gpu_id);

  CHECK_SIZE(hrx_kfd_set_trap_handler_args_t, kfd_ioctl_set_trap_handler_args);
  CHECK_FIELD(hrx_kfd_set_trap_handler_args_t, tba_addr,
              kfd_ioctl_set_trap_handler_args, tba_addr);
  CHECK_FIELD(hrx_kfd_set_trap_handler_args_t, tma_addr,
              kfd_ioctl_set_trap_handler_args, tma_addr);
  CHECK_FIELD(hrx_kfd_set_trap_handler_args_t, gpu_id,
              kfd_ioctl_set_trap_handler_args, gpu_id);

#define A(field)                                                         \
  CHECK_FIELD(hrx_kfd_process_device_apertures_t, field,                 \
              kfd_process_device_apertures, field)
  CHECK_SIZE(hrx_kfd_process_device_apertures_t,
             kfd_process_device_apertures);
  A(lds_base);
  A(lds_limit);
  A(scratch_base);
  A(scratch_limit);
  A(gpuvm_base);
  A(gpuvm_limit);
  A(gpu_id);
  A(pad);
#undef A
  CHECK_SIZE(hrx_kfd_get_process_apertures_new_args_t,
             kfd_ioctl_get_process_apertures_new_args);
  CHECK_FIELD(hrx_kfd_get_process_apertures_new_args_t, apertures_ptr,
              kfd_ioctl_get_process_apertures_new_args,
              kfd_process_device_apertures_ptr);
  CHECK_FIELD(hrx_kfd_get_process_apertures_new_args_t, num_of_nodes,
              kfd_ioctl_get_process_apertures_new_args, num_of_nodes);

  CHECK_SIZE(hrx_kfd_acquire_vm_args_t, kfd_ioctl_acquire_vm_args);
  CHECK_FIELD(hrx_kfd_acquire_vm_args_t, drm_fd, kfd_ioctl_acquire_vm_args,
              drm_fd);
  CHECK_FIELD(hrx_kfd_acquire_vm_args_t, gpu_id, kfd_ioctl_acquire_vm_args,
              gpu_id);

#define M(field)                                                  \
  CHECK_FIELD(hrx_kfd_alloc_memory_args_t, field,                 \
              kfd_ioctl_alloc_memory_of_gpu_args, field)
  CHECK_SIZE(hrx_kfd_alloc_memory_args_t, kfd_ioctl_alloc_memory_of_gpu_args);
  M(va_addr);
  M(size);
  M(handle);
  M(mmap_offset);
  M(gpu_id);
  M(flags);
#undef M

  CHECK_SIZE(hrx_kfd_free_memory_args_t, kfd_ioctl_free_memory_of_gpu_args);
  CHECK_FIELD(hrx_kfd_free_memory_args_t, handle,
              kfd_ioctl_free_memory_of_gpu_args, handle);

#define MAP(theirs)                                                     \
  do {                                                                  \
    CHECK_SIZE(hrx_kfd_map_memory_args_t, theirs);                      \
    CHECK_FIELD(hrx_kfd_map_memory_args_t, handle, theirs, handle);     \
    CHECK_FIELD(hrx_kfd_map_memory_args_t, device_ids_array_ptr, theirs, \
                device_ids_array_ptr);                                  \
    CHECK_FIELD(hrx_kfd_map_memory_args_t, n_devices, theirs, n_devices); \
    CHECK_FIELD(hrx_kfd_map_memory_args_t, n_success, theirs, n_success); \
  } while (0)
  MAP(kfd_ioctl_map_memory_to_gpu_args);
  MAP(kfd_ioctl_unmap_memory_from_gpu_args);
#undef MAP

  CHECK_SIZE(hrx_kfd_set_xnack_mode_args_t, kfd_ioctl_set_xnack_mode_args);
  CHECK_FIELD(hrx_kfd_set_xnack_mode_args_t, xnack_enabled,
              kfd_ioctl_set_xnack_mode_args, xnack_enabled);

  CHECK_SIZE(hrx_kfd_available_memory_args_t,
             kfd_ioctl_get_available_memory_args);
  CHECK_FIELD(hrx_kfd_available_memory_args_t, available,
              kfd_ioctl_get_available_memory_args, available);
  CHECK_FIELD(hrx_kfd_available_memory_args_t, gpu_id,
              kfd_ioctl_get_available_memory_args, gpu_id);
}

static void test_constants(void** state) {
  (void)state;
  assert_int_equal(HRX_KFD_QUEUE_TYPE_COMPUTE, KFD_IOC_QUEUE_TYPE_COMPUTE);
  assert_int_equal(HRX_KFD_QUEUE_TYPE_SDMA, KFD_IOC_QUEUE_TYPE_SDMA);
  assert_int_equal(HRX_KFD_QUEUE_TYPE_COMPUTE_AQL,
                   KFD_IOC_QUEUE_TYPE_COMPUTE_AQL);
  assert_int_equal(HRX_KFD_QUEUE_TYPE_SDMA_XGMI, KFD_IOC_QUEUE_TYPE_SDMA_XGMI);
  assert_int_equal(HRX_KFD_EVENT_SIGNAL, KFD_IOC_EVENT_SIGNAL);
  assert_int_equal(HRX_KFD_EVENT_HW_EXCEPTION, KFD_IOC_EVENT_HW_EXCEPTION);
  assert_int_equal(HRX_KFD_EVENT_MEMORY, KFD_IOC_EVENT_MEMORY);
  assert_int_equal(HRX_KFD_WAIT_COMPLETE, KFD_IOC_WAIT_RESULT_COMPLETE);
  assert_int_equal(HRX_KFD_WAIT_TIMEOUT, KFD_IOC_WAIT_RESULT_TIMEOUT);
  assert_int_equal(HRX_KFD_WAIT_FAIL, KFD_IOC_WAIT_RESULT_FAIL);
  assert_int_equal(HRX_KFD_ALLOC_VRAM, KFD_IOC_ALLOC_MEM_FLAGS_VRAM);
  assert_int_equal(HRX_KFD_ALLOC_GTT, KFD_IOC_ALLOC_MEM_FLAGS_GTT);
  assert_int_equal(HRX_KFD_ALLOC_USERPTR, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR);
  assert_int_equal(HRX_KFD_ALLOC_DOORBELL, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL);
  assert_int_equal(HRX_KFD_ALLOC_MMIO_REMAP,
                   KFD_IOC_ALLOC_MEM_FLAGS_MMIO_REMAP);
  assert_int_equal(HRX_KFD_ALLOC_UNCACHED, KFD_IOC_ALLOC_MEM_FLAGS_UNCACHED);
  assert_int_equal(HRX_KFD_ALLOC_COHERENT, KFD_IOC_ALLOC_MEM_FLAGS_COHERENT);
  assert_int_equal(HRX_KFD_ALLOC_AQL_QUEUE_MEM,
                   KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM);
  assert_int_equal(HRX_KFD_ALLOC_NO_SUBSTITUTE,
                   KFD_IOC_ALLOC_MEM_FLAGS_NO_SUBSTITUTE);
  assert_int_equal(HRX_KFD_ALLOC_PUBLIC, KFD_IOC_ALLOC_MEM_FLAGS_PUBLIC);
  assert_int_equal(HRX_KFD_ALLOC_EXECUTABLE,
                   KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE);
  /* The header spells WRITABLE as the signed 1 << 31, which UBSan rejects;
   * it is the bit above EXECUTABLE. */
  assert_int_equal(HRX_KFD_ALLOC_WRITABLE,
                   (uint32_t)KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE << 1);
}

static void test_requests(void** state) {
  (void)state;
  assert_int_equal(HRX_KFD_IOC_GET_VERSION, AMDKFD_IOC_GET_VERSION);
  if (KFD_IOCTL_MINOR_VERSION < 17) {
    assert_int_equal(HRX_KFD_IOC_CREATE_QUEUE, AMDKFD_IOC_CREATE_QUEUE);
  } else {
    assert_int_equal(HRX_KFD_IOC_CREATE_QUEUE_V117, AMDKFD_IOC_CREATE_QUEUE);
  }
  assert_int_equal(HRX_KFD_IOC_DESTROY_QUEUE, AMDKFD_IOC_DESTROY_QUEUE);
  assert_int_equal(HRX_KFD_IOC_CREATE_EVENT, AMDKFD_IOC_CREATE_EVENT);
  assert_int_equal(HRX_KFD_IOC_DESTROY_EVENT, AMDKFD_IOC_DESTROY_EVENT);
  assert_int_equal(HRX_KFD_IOC_SET_EVENT, AMDKFD_IOC_SET_EVENT);
  assert_int_equal(HRX_KFD_IOC_RESET_EVENT, AMDKFD_IOC_RESET_EVENT);
  assert_int_equal(HRX_KFD_IOC_WAIT_EVENTS, AMDKFD_IOC_WAIT_EVENTS);
  assert_int_equal(HRX_KFD_IOC_SET_SCRATCH_BACKING_VA,
                   AMDKFD_IOC_SET_SCRATCH_BACKING_VA);
  assert_int_equal(HRX_KFD_IOC_SET_TRAP_HANDLER, AMDKFD_IOC_SET_TRAP_HANDLER);
  assert_int_equal(HRX_KFD_IOC_GET_PROCESS_APERTURES_NEW,
                   AMDKFD_IOC_GET_PROCESS_APERTURES_NEW);
  assert_int_equal(HRX_KFD_IOC_ACQUIRE_VM, AMDKFD_IOC_ACQUIRE_VM);
  assert_int_equal(HRX_KFD_IOC_ALLOC_MEMORY_OF_GPU,
                   AMDKFD_IOC_ALLOC_MEMORY_OF_GPU);
  assert_int_equal(HRX_KFD_IOC_FREE_MEMORY_OF_GPU,
                   AMDKFD_IOC_FREE_MEMORY_OF_GPU);
  assert_int_equal(HRX_KFD_IOC_MAP_MEMORY_TO_GPU,
                   AMDKFD_IOC_MAP_MEMORY_TO_GPU);
  assert_int_equal(HRX_KFD_IOC_UNMAP_MEMORY_FROM_GPU,
                   AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU);
  assert_int_equal(HRX_KFD_IOC_SET_XNACK_MODE, AMDKFD_IOC_SET_XNACK_MODE);
  assert_int_equal(HRX_KFD_IOC_AVAILABLE_MEMORY, AMDKFD_IOC_AVAILABLE_MEMORY);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_structs),
      cmocka_unit_test(test_constants),
      cmocka_unit_test(test_requests),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

/* Exit status 77 is meson's "skipped". */
int main(void) {
  printf("skipped: <linux/kfd_ioctl.h> is not installed (linux-libc-dev); "
         "the layouts are checked only by kfd_ioctl.h's assertions\n");
  return 77;
}

#endif
