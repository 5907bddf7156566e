/* Queues and the host device without a compiler: BUSY rings, barrier
 * packets, bad packets, memory and device properties. */
#include <stdlib.h>
#include <string.h>

#include "hrx/fabric.h"
#include "test_support.h"

typedef struct fixture_t {
  hrx_fabric_device_t* device;
  hrx_fabric_queue_t* queue;
} fixture_t;

static int setup(void** state) {
  fixture_t* f = calloc(1, sizeof(*f));
  hrx_fabric_host_options_t options =
      HRX_STRUCT_INIT(hrx_fabric_host_options_t);
  options.worker_count = 2;
  assert_ok(hrx_fabric_host_device_create(&options, hrx_allocator_system(),
                                          &f->device));
  assert_ok(hrx_fabric_queue_create(f->device, 4, &f->queue));
  *state = f;
  return 0;
}

static int teardown(void** state) {
  fixture_t* f = *state;
  hrx_fabric_queue_destroy(f->queue);
  hrx_fabric_device_release(f->device);
  free(f);
  return 0;
}

static void publish_barrier(hrx_fabric_queue_t* q, uint64_t index, bool any,
                            hrx_fabric_signal_t* dep,
                            hrx_fabric_signal_t* done) {
  hrx_aql_barrier_packet_t* p = &hrx_fabric_queue_slot(q, index)->barrier;
  memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
  p->dep_signal[0] = dep ? hrx_fabric_signal_handle(dep) : 0;
  p->completion_signal = hrx_fabric_signal_handle(done);
  hrx_fabric_queue_publish(
      q, index,
      hrx_aql_header(any ? HRX_AQL_PACKET_BARRIER_OR
                         : HRX_AQL_PACKET_BARRIER_AND,
                     1, HRX_AQL_FENCE_SYSTEM, HRX_AQL_FENCE_SYSTEM),
      0);
}

static void test_properties(void** state) {
  fixture_t* f = *state;
  const hrx_fabric_device_properties_t* p =
      hrx_fabric_device_properties(f->device);
  /* A borrowed report carries the library's size. */
  assert_int_equal(p->struct_size, sizeof(*p));
  assert_int_equal(p->kind, HRX_FABRIC_DEVICE_HOST);
  assert_string_equal(p->profile_target, "host");
  assert_int_equal(p->subgroup_size, 32);
  assert_int_equal(p->compute_units, 2);
  assert_true(p->memory_bytes > 0);
}

static void test_barrier_waits_for_dependency(void** state) {
  fixture_t* f = *state;
  hrx_fabric_signal_t *dep = NULL, *done = NULL;
  assert_ok(hrx_fabric_signal_create(1, hrx_allocator_system(), &dep));
  assert_ok(hrx_fabric_signal_create(1, hrx_allocator_system(), &done));
  uint64_t index = 0;
  assert_ok(hrx_fabric_queue_reserve(f->queue, 1, &index));
  publish_barrier(f->queue, index, false, dep, done);
  /* Still blocked on |dep|. */
  assert_status_code(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                            20000000, NULL),
                     HRX_STATUS_DEADLINE_EXCEEDED);
  hrx_fabric_signal_store(dep, 0);
  assert_ok(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                   5000000000ull, NULL));
  hrx_fabric_signal_release(dep);
  hrx_fabric_signal_release(done);
}

static void test_full_ring_is_busy(void** state) {
  fixture_t* f = *state;
  hrx_fabric_signal_t *gate = NULL, *done = NULL;
  assert_ok(hrx_fabric_signal_create(1, hrx_allocator_system(), &gate));
  assert_ok(hrx_fabric_signal_create(4, hrx_allocator_system(), &done));
  uint64_t index = 0;
  /* Four packets held up by a gate fill the 4-slot ring. */
  for (int i = 0; i < 4; ++i) {
    assert_ok(hrx_fabric_queue_reserve(f->queue, 1, &index));
    publish_barrier(f->queue, index, true, gate, done);
  }
  hrx_status_t status = hrx_fabric_queue_reserve(f->queue, 1, &index);
  /* The processor may have retired nothing yet; the ring must not block. */
  assert_status_code(status, HRX_STATUS_BUSY);
  assert_status_code(hrx_fabric_queue_reserve(f->queue, 5, &index),
                     HRX_STATUS_INVALID_ARGUMENT);
  hrx_fabric_signal_store(gate, 0);
  assert_ok(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                   5000000000ull, NULL));
  /* Room again once the packets retire. */
  while (hrx_fabric_queue_read_index(f->queue) <
         hrx_fabric_queue_write_index(f->queue)) {
  }
  assert_ok(hrx_fabric_queue_reserve(f->queue, 4, &index));
  for (int i = 0; i < 4; ++i) {
    hrx_fabric_signal_store(done, 1);
    publish_barrier(f->queue, index + (uint64_t)i, false, NULL, done);
    assert_ok(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                     5000000000ull, NULL));
  }
  hrx_fabric_signal_release(gate);
  hrx_fabric_signal_release(done);
}

static void test_bad_packets_fault(void** state) {
  fixture_t* f = *state;
  hrx_fabric_signal_t* done = NULL;
  assert_ok(hrx_fabric_signal_create(1, hrx_allocator_system(), &done));
  uint64_t index = 0;
  /* A dispatch naming a kernel object no executable contains. */
  assert_ok(hrx_fabric_queue_reserve(f->queue, 1, &index));
  hrx_aql_dispatch_packet_t* p =
      &hrx_fabric_queue_slot(f->queue, index)->dispatch;
  memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
  p->workgroup_size_x = 1;
  p->grid_size_x = 1;
  p->kernel_object = 0xdeadbeef;
  p->completion_signal = hrx_fabric_signal_handle(done);
  hrx_fabric_queue_publish(
      f->queue, index,
      hrx_aql_header(HRX_AQL_PACKET_KERNEL_DISPATCH, 1, HRX_AQL_FENCE_SYSTEM,
                     HRX_AQL_FENCE_SYSTEM),
      1);
  int64_t value = 0;
  assert_ok(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                   5000000000ull, &value));
  assert_int_equal(value, HRX_FABRIC_SIGNAL_FAULTED);
  /* A struct the library cannot fill is refused before the report leaves
   * the queue: it is not lost. */
  hrx_fabric_fault_t fault = {0};
  assert_status(hrx_fabric_queue_take_fault(f->queue, &fault),
                HRX_STATUS_INVALID_ARGUMENT,
                "hrx_fabric_fault_t.struct_size is 0");
  fault.struct_size = sizeof(fault);
  assert_ok(hrx_fabric_queue_take_fault(f->queue, &fault));
  assert_int_equal(fault.kind, HRX_FABRIC_FAULT_BAD_PACKET);
  char text[256];
  assert_true(hrx_fabric_fault_format(&fault, text, sizeof(text)) > 0);
  /* A vendor packet type the host does not implement. */
  hrx_fabric_signal_store(done, 1);
  assert_ok(hrx_fabric_queue_reserve(f->queue, 1, &index));
  p = &hrx_fabric_queue_slot(f->queue, index)->dispatch;
  p->completion_signal = hrx_fabric_signal_handle(done);
  hrx_fabric_queue_publish(f->queue, index, HRX_AQL_PACKET_VENDOR, 0);
  assert_ok(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                   5000000000ull, &value));
  assert_int_equal(value, HRX_FABRIC_SIGNAL_FAULTED);
  assert_ok(hrx_fabric_queue_take_fault(f->queue, &fault));
  assert_status_code(hrx_fabric_queue_take_fault(f->queue, &fault),
                     HRX_STATUS_NOT_FOUND);
  /* A host queue never stops: restarting it does nothing, and it runs. */
  assert_ok(hrx_fabric_queue_restart(f->queue));
  hrx_fabric_signal_store(done, 1);
  assert_ok(hrx_fabric_queue_reserve(f->queue, 1, &index));
  hrx_aql_barrier_packet_t* marker =
      &hrx_fabric_queue_slot(f->queue, index)->barrier;
  memset((uint8_t*)marker + 4, 0, sizeof(*marker) - 4);
  marker->completion_signal = hrx_fabric_signal_handle(done);
  hrx_fabric_queue_publish(
      f->queue, index,
      hrx_aql_header(HRX_AQL_PACKET_BARRIER_AND, 1, HRX_AQL_FENCE_SYSTEM,
                     HRX_AQL_FENCE_SYSTEM),
      0);
  assert_ok(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                   5000000000ull, &value));
  assert_int_equal(value, 0);
  hrx_fabric_signal_release(done);
}

/* A barrier waiting on a dependency that never completes gives up when its
 * completion signal is cancelled: it completes faulted with a CANCELLED
 * report, and later packets on that signal are skipped at once. */
static void test_cancel_abandons_waiting_barrier(void** state) {
  fixture_t* f = *state;
  hrx_fabric_signal_t *never = NULL, *done = NULL;
  assert_ok(hrx_fabric_signal_create(1, hrx_allocator_system(), &never));
  assert_ok(hrx_fabric_signal_create(2, hrx_allocator_system(), &done));
  uint64_t index = 0;
  assert_ok(hrx_fabric_queue_reserve(f->queue, 2, &index));
  publish_barrier(f->queue, index, false, never, done);
  publish_barrier(f->queue, index + 1, false, NULL, done);
  assert_status_code(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 2,
                                            20000000, NULL),
                     HRX_STATUS_DEADLINE_EXCEEDED);
  assert_false(hrx_fabric_signal_is_cancelled(done));
  hrx_fabric_signal_cancel(done);
  assert_true(hrx_fabric_signal_is_cancelled(done));
  int64_t value = 0;
  assert_ok(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                   5000000000ull, &value));
  assert_int_equal(value, HRX_FABRIC_SIGNAL_FAULTED);
  while (hrx_fabric_queue_read_index(f->queue) < index + 2) {
  }
  /* Skipped, not run: a run barrier would have subtracted one more. */
  assert_int_equal(hrx_fabric_signal_load(done), HRX_FABRIC_SIGNAL_FAULTED);
  hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  assert_ok(hrx_fabric_queue_take_fault_for(
      f->queue, hrx_fabric_signal_handle(done), &fault));
  assert_int_equal(fault.kind, HRX_FABRIC_FAULT_CANCELLED);
  char text[256];
  hrx_fabric_fault_format(&fault, text, sizeof(text));
  assert_string_equal(text, "cancelled (while a barrier packet waited)");
  /* One report per cancelled signal, not one per skipped packet. */
  assert_status_code(hrx_fabric_queue_take_fault(f->queue, &fault),
                     HRX_STATUS_NOT_FOUND);
  hrx_fabric_signal_release(never);
  hrx_fabric_signal_release(done);
}

/* A packet whose completion signal already reads faulted (earlier work on
 * it failed) is skipped: it completes at once and runs nothing. */
static void test_packets_after_a_fault_are_skipped(void** state) {
  fixture_t* f = *state;
  hrx_fabric_signal_t *gate = NULL, *done = NULL;
  assert_ok(hrx_fabric_signal_create(1, hrx_allocator_system(), &gate));
  assert_ok(hrx_fabric_signal_create(HRX_FABRIC_SIGNAL_FAULTED,
                                     hrx_allocator_system(), &done));
  uint64_t index = 0;
  assert_ok(hrx_fabric_queue_reserve(f->queue, 1, &index));
  /* Would wait on the gate forever if it ran. */
  publish_barrier(f->queue, index, false, gate, done);
  while (hrx_fabric_queue_read_index(f->queue) < index + 1) {
  }
  assert_int_equal(hrx_fabric_signal_load(done), HRX_FABRIC_SIGNAL_FAULTED);
  hrx_fabric_fault_t fault = HRX_STRUCT_INIT(hrx_fabric_fault_t);
  assert_status_code(hrx_fabric_queue_take_fault(f->queue, &fault),
                     HRX_STATUS_NOT_FOUND);
  hrx_fabric_signal_release(gate);
  hrx_fabric_signal_release(done);
}

/* HRX_HOST_THREADS is checked: a value that is not a count in 1..1024 is
 * an error naming the variable, never silently replaced. */
static void test_host_threads_variable(void** state) {
  (void)state;
  static const char* const bad[] = {"0", "-1", "abc", "99999", "4x", " 4",
                                    "18446744073709551616"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    setenv("HRX_HOST_THREADS", bad[i], 1);
    hrx_fabric_device_t* device = NULL;
    hrx_status_t status =
        hrx_fabric_host_device_create(NULL, hrx_allocator_system(), &device);
    assert_null(device);
    if (!status || !strstr(hrx_status_message(status), "HRX_HOST_THREADS")) {
      fail_msg("'%s': %s", bad[i],
               status ? hrx_status_message(status) : "accepted");
    }
    hrx_status_free(status);
  }
  setenv("HRX_HOST_THREADS", "3", 1);
  hrx_fabric_device_t* device = NULL;
  assert_ok(hrx_fabric_host_device_create(NULL, hrx_allocator_system(),
                                          &device));
  assert_int_equal(hrx_fabric_device_properties(device)->compute_units, 3);
  hrx_fabric_device_release(device);
  /* An explicit count wins over the variable. */
  setenv("HRX_HOST_THREADS", "abc", 1);
  hrx_fabric_host_options_t options =
      HRX_STRUCT_INIT(hrx_fabric_host_options_t);
  options.worker_count = 2;
  assert_ok(hrx_fabric_host_device_create(&options, hrx_allocator_system(),
                                          &device));
  hrx_fabric_device_release(device);
  unsetenv("HRX_HOST_THREADS");
}

/* Host options from a newer caller: accepted while the members this
 * library does not know are zero, refused naming the type otherwise. */
static void test_host_options_struct_size(void** state) {
  (void)state;
  struct {
    hrx_fabric_host_options_t known;
    uint32_t future;
  } newer;
  memset(&newer, 0, sizeof(newer));
  newer.known.struct_size = sizeof(newer);
  newer.known.worker_count = 1;
  hrx_fabric_device_t* device = NULL;
  assert_ok(hrx_fabric_host_device_create(&newer.known,
                                          hrx_allocator_system(), &device));
  assert_int_equal(hrx_fabric_device_properties(device)->compute_units, 1);
  hrx_fabric_device_release(device);
  device = NULL;
  newer.future = 1;
  assert_status(hrx_fabric_host_device_create(&newer.known,
                                              hrx_allocator_system(), &device),
                HRX_STATUS_INVALID_ARGUMENT,
                "hrx_fabric_host_options_t is 12 bytes and this library knows 8");
  assert_null(device);
}

static void test_memory(void** state) {
  fixture_t* f = *state;
  hrx_fabric_memory_t m;
  assert_status_code(hrx_fabric_memory_allocate(f->device, 0,
                                                HRX_FABRIC_VISIBILITY_DEVICE,
                                                &m),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_fabric_memory_allocate(
                         f->device, 16, (hrx_fabric_visibility_t)9, &m),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_fabric_memory_allocate(f->device, UINT64_MAX,
                                                HRX_FABRIC_VISIBILITY_DEVICE,
                                                &m),
                     HRX_STATUS_OUT_OF_RANGE);
  assert_ok(hrx_fabric_memory_allocate(f->device, 100,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                       &m));
  assert_int_equal(m.device_address % 64, 0);
  for (int i = 0; i < 100; ++i) {
    assert_int_equal(((uint8_t*)m.host_pointer)[i], 0);
  }
  hrx_fabric_memory_free(f->device, &m);
  assert_int_equal(m.device_address, 0);
  hrx_fabric_memory_free(f->device, &m); /* freeing twice is harmless */
}

/* Large allocations are 2 MiB-aligned mappings (huge-page candidates):
 * zeroed, writable to their last byte, zero again when reallocated after
 * being written, and reachable by queue packets. */
static void test_large_memory(void** state) {
  fixture_t* f = *state;
  const uint64_t mib = 1u << 20;
  const uint64_t sizes[] = {2 * mib - 64, 2 * mib, 3 * mib + 5, 9 * mib};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
    for (int round = 0; round < 2; ++round) {
      hrx_fabric_memory_t m;
      assert_ok(hrx_fabric_memory_allocate(
          f->device, sizes[i], HRX_FABRIC_VISIBILITY_DEVICE, &m));
      uint8_t* bytes = m.host_pointer;
      assert_int_equal(m.device_address % 64, 0);
      if (sizes[i] >= 2 * mib) assert_int_equal(m.device_address % (2 * mib), 0);
      for (uint64_t at = 0; at < sizes[i]; at += 4093) {
        assert_int_equal(bytes[at], 0);
      }
      assert_int_equal(bytes[sizes[i] - 1], 0);
      memset(bytes, 0xa5, (size_t)sizes[i]);
      hrx_fabric_memory_free(f->device, &m);
    }
  }
  /* A fill packet reaches the last word of a large allocation. */
  hrx_fabric_memory_t m;
  assert_ok(hrx_fabric_memory_allocate_flags(
      f->device, 3 * mib, HRX_FABRIC_VISIBILITY_DEVICE,
      HRX_FABRIC_MEMORY_UNINITIALIZED, &m));
  hrx_fabric_signal_t* done = NULL;
  assert_ok(hrx_fabric_signal_create(1, hrx_allocator_system(), &done));
  uint64_t index = 0;
  assert_ok(hrx_fabric_queue_reserve(f->queue, 1, &index));
  hrx_aql_agent_packet_t* p = &hrx_fabric_queue_slot(f->queue, index)->agent;
  memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
  p->arg[0] = m.device_address;
  p->arg[1] = 0x01020304u;
  p->arg[2] = 3 * mib;
  p->completion_signal = hrx_fabric_signal_handle(done);
  hrx_fabric_queue_publish(
      f->queue, index,
      hrx_aql_header(HRX_AQL_PACKET_AGENT, 1, HRX_AQL_FENCE_SYSTEM,
                     HRX_AQL_FENCE_SYSTEM),
      (uint16_t)HRX_AQL_AGENT_FILL);
  int64_t value = -1;
  assert_ok(hrx_fabric_signal_wait(done, HRX_FABRIC_SIGNAL_LT, 1,
                                   10ull * 1000000000ull, &value));
  assert_int_equal(value, 0);
  uint32_t last;
  memcpy(&last, (uint8_t*)m.host_pointer + 3 * mib - 4, 4);
  assert_int_equal(last, 0x01020304u);
  hrx_fabric_signal_release(done);
  hrx_fabric_memory_free(f->device, &m);
}

static void test_bad_queue_sizes(void** state) {
  fixture_t* f = *state;
  hrx_fabric_queue_t* q = NULL;
  assert_status_code(hrx_fabric_queue_create(f->device, 3, &q),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_fabric_queue_create(f->device, 1, &q),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_fabric_queue_create(f->device, 1u << 20, &q),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_null(q);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_properties, setup, teardown),
      cmocka_unit_test_setup_teardown(test_barrier_waits_for_dependency,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_full_ring_is_busy, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_bad_packets_fault, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_cancel_abandons_waiting_barrier,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_packets_after_a_fault_are_skipped,
                                      setup, teardown),
      cmocka_unit_test(test_host_threads_variable),
      cmocka_unit_test(test_host_options_struct_size),
      cmocka_unit_test_setup_teardown(test_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_large_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_queue_sizes, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
