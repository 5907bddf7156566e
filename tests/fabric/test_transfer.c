/* Transfer queues on the host device and on the modelled gfx1151 (an SDMA
 * user queue run by the KFD model): copies of every length 1..300 at every
 * alignment 0..7 land exactly, guard bytes around them untouched; fills
 * with unaligned heads and tails repeat the pattern from the destination;
 * a wait on a word the host has not written times out naming the queue
 * and the fence, the queue then refuses to be destroyed (BUSY) and
 * finishes once the word is written; a fault stops the SDMA queue with the
 * model's account; bad arguments are refused by name; the queue families
 * each device reports. Every test runs on both devices. */
#include <stdlib.h>
#include <string.h>

#include "hrx/fabric.h"
#include "test_support.h"

#define GFX1151 HRX_KFD_FIXTURES "/gfx1151"
#define WAIT_NS (UINT64_C(20) * 1000000000u)
#define SHORT_NS (UINT64_C(50) * 1000000u)
#define GUARD 0xEEu
#define MAX_LENGTH 300u
/* Each copy of a batch gets its own slot of the destination. */
#define SLOT 320u
/* An address no allocation holds on either device. */
#define FAR_AWAY (UINT64_C(1) << 46)

typedef enum device_kind_t { HOST, KFD } device_kind_t;

typedef struct env_t {
  device_kind_t kind;
  hrx_fabric_device_t* device;
  hrx_fabric_transfer_queue_t* queue;
} env_t;

static int env_setup(void** state, device_kind_t kind) {
  env_t* e = calloc(1, sizeof(*e));
  assert_non_null(e);
  e->kind = kind;
  if (kind == HOST) {
    hrx_fabric_host_options_t options =
        HRX_STRUCT_INIT(hrx_fabric_host_options_t);
    options.worker_count = 1;
    assert_ok(hrx_fabric_host_device_create(&options, hrx_allocator_system(),
                                            &e->device));
  } else {
    assert_int_equal(setenv("HRX_KFD_MODEL", GFX1151, 1), 0);
    assert_ok(hrx_fabric_kfd_device_create(0, hrx_allocator_system(),
                                           &e->device));
  }
  assert_ok(hrx_fabric_transfer_queue_create(e->device, &e->queue));
  *state = e;
  return 0;
}

static int setup_host(void** state) { return env_setup(state, HOST); }
static int setup_kfd(void** state) { return env_setup(state, KFD); }

static int teardown(void** state) {
  env_t* e = *state;
  if (e->queue) assert_ok(hrx_fabric_transfer_queue_destroy(e->queue));
  hrx_fabric_device_release(e->device);
  free(e);
  return 0;
}

static hrx_fabric_memory_t allocate(env_t* e, uint64_t size) {
  hrx_fabric_memory_t m;
  assert_ok(hrx_fabric_memory_allocate(e->device, size,
                                       HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                       &m));
  return m;
}

static void submit_and_wait(env_t* e) {
  uint64_t fence = 0;
  assert_ok(hrx_fabric_transfer_submit(e->queue, &fence));
  assert_ok(hrx_fabric_transfer_wait(e->queue, fence, WAIT_NS));
  assert_true(hrx_fabric_transfer_completed(e->queue) >= fence);
}

/* Every length 1..300, destination alignment 0..7 (the source at another
 * alignment), one batch per alignment; each slot holds its copy exactly
 * and guard bytes everywhere else. */
static void test_copy_every_length(void** state) {
  env_t* e = *state;
  uint64_t slots_bytes = (uint64_t)MAX_LENGTH * SLOT;
  hrx_fabric_memory_t src = allocate(e, MAX_LENGTH + 16);
  hrx_fabric_memory_t dst = allocate(e, slots_bytes);
  uint8_t* s = src.host_pointer;
  uint8_t* d = dst.host_pointer;
  for (uint32_t i = 0; i < MAX_LENGTH + 16; ++i) s[i] = (uint8_t)(i * 7 + 1);
  for (uint32_t align = 0; align < 8; ++align) {
    uint32_t source_align = (align * 3 + 1) % 8;
    memset(d, GUARD, slots_bytes);
    for (uint32_t n = 1; n <= MAX_LENGTH; ++n) {
      assert_ok(hrx_fabric_transfer_copy(
          e->queue, dst.device_address + (n - 1) * SLOT + align,
          src.device_address + source_align, n));
    }
    submit_and_wait(e);
    for (uint32_t n = 1; n <= MAX_LENGTH; ++n) {
      const uint8_t* slot = d + (n - 1) * SLOT;
      for (uint32_t i = 0; i < SLOT; ++i) {
        uint8_t want = i >= align && i < align + n
                           ? s[source_align + i - align]
                           : GUARD;
        if (slot[i] != want) {
          fail_msg("length %u alignment %u: byte %u is 0x%02x, want 0x%02x",
                   n, align, i, slot[i], want);
        }
      }
    }
  }
  hrx_fabric_memory_free(e->device, &dst);
  hrx_fabric_memory_free(e->device, &src);
}

/* Fills at every alignment 0..7 with lengths 0..40 and a long one, two
 * patterns (bytes all different; a repeated byte, which merges the byte
 * fills): byte i of a fill is byte i % 4 of the pattern. */
static void test_fill_heads_and_tails(void** state) {
  env_t* e = *state;
  const uint32_t patterns[] = {0x44332211u, 0xABABAB5Au};
  const uint32_t lengths[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 17, 31, 40,
                              5003};
  const uint64_t span = 5200;
  hrx_fabric_memory_t dst = allocate(e, span);
  uint8_t* d = dst.host_pointer;
  for (size_t p = 0; p < 2; ++p) {
    for (uint32_t align = 0; align < 8; ++align) {
      for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); ++l) {
        uint32_t n = lengths[l];
        memset(d, GUARD, span);
        assert_ok(hrx_fabric_transfer_fill(
            e->queue, dst.device_address + 16 + align, patterns[p], n));
        submit_and_wait(e);
        for (uint64_t i = 0; i < span; ++i) {
          uint64_t at = i - 16 - align;
          uint8_t want = i >= 16 + align && at < n
                             ? (uint8_t)(patterns[p] >> (8 * (at % 4)))
                             : GUARD;
          if (d[i] != want) {
            fail_msg("fill of %u at alignment %u: byte %llu is 0x%02x, want "
                     "0x%02x", n, align, (unsigned long long)i, d[i], want);
          }
        }
      }
    }
  }
  hrx_fabric_memory_free(e->device, &dst);
}

/* A wait on a word nobody has written yet: the fence times out with a
 * status naming the queue and the fence, the queue stays usable but
 * refuses destruction, and it finishes once the host writes the word. */
static void test_wait_that_never_arrives(void** state) {
  env_t* e = *state;
  hrx_fabric_memory_t word = allocate(e, 64);
  hrx_fabric_memory_t buffer = allocate(e, 64);
  uint8_t* b = buffer.host_pointer;
  memset(b, 0, 64);
  b[0] = 42;
  assert_ok(hrx_fabric_transfer_wait_memory(e->queue, word.device_address,
                                            7, 0xFFu));
  assert_ok(hrx_fabric_transfer_copy(e->queue, buffer.device_address + 32,
                                     buffer.device_address, 1));
  uint64_t fence = 0;
  assert_ok(hrx_fabric_transfer_submit(e->queue, &fence));
  char expected[64];
  snprintf(expected, sizeof(expected), "fence %llu",
           (unsigned long long)fence);
  hrx_status_t status = hrx_fabric_transfer_wait(e->queue, fence, SHORT_NS);
  const char* name = hrx_fabric_transfer_queue_name(e->queue);
  assert_status(status, HRX_STATUS_DEADLINE_EXCEEDED, expected);
  assert_status(hrx_fabric_transfer_wait(e->queue, fence, SHORT_NS),
                HRX_STATUS_DEADLINE_EXCEEDED, name);
  assert_int_equal(b[32], 0);
  assert_ok(hrx_fabric_transfer_queue_check(e->queue));
  assert_status(hrx_fabric_transfer_queue_destroy(e->queue),
                HRX_STATUS_BUSY, "in flight");
  /* The mask applies: only the low byte counts. */
  *(volatile uint32_t*)word.host_pointer = 0x1207u;
  assert_ok(hrx_fabric_transfer_wait(e->queue, fence, WAIT_NS));
  assert_int_equal(b[32], 42);
  /* And the queue goes on. */
  assert_ok(hrx_fabric_transfer_fill(e->queue, buffer.device_address + 40,
                                     0x01010101u, 3));
  submit_and_wait(e);
  assert_int_equal(b[42], 1);
  hrx_fabric_memory_free(e->device, &buffer);
  hrx_fabric_memory_free(e->device, &word);
}

/* A queue parked for good is torn down by abort. */
static void test_abort_parked_queue(void** state) {
  env_t* e = *state;
  hrx_fabric_memory_t word = allocate(e, 64);
  assert_ok(hrx_fabric_transfer_wait_memory(e->queue, word.device_address,
                                            1, 1));
  uint64_t fence = 0;
  assert_ok(hrx_fabric_transfer_submit(e->queue, &fence));
  assert_status_code(hrx_fabric_transfer_queue_destroy(e->queue),
                     HRX_STATUS_BUSY);
  hrx_fabric_transfer_queue_abort(e->queue);
  e->queue = NULL;
  hrx_fabric_memory_free(e->device, &word);
}

static void test_bad_arguments(void** state) {
  env_t* e = *state;
  hrx_fabric_memory_t m = allocate(e, 4096);
  uint64_t a = m.device_address;
  assert_status(hrx_fabric_transfer_copy(e->queue, FAR_AWAY, a, 4),
                HRX_STATUS_INVALID_ARGUMENT, "0x400000000000");
  assert_status(hrx_fabric_transfer_copy(e->queue, a, FAR_AWAY + 8, 4),
                HRX_STATUS_INVALID_ARGUMENT, "0x400000000008");
  assert_status(hrx_fabric_transfer_copy(e->queue, a + 4090, a, 57),
                HRX_STATUS_INVALID_ARGUMENT, "not inside");
  assert_status(hrx_fabric_transfer_copy(e->queue, a + 8, a, 16),
                HRX_STATUS_INVALID_ARGUMENT, "overlap");
  assert_status(hrx_fabric_transfer_copy(e->queue, UINT64_MAX - 2, a, 8),
                HRX_STATUS_INVALID_ARGUMENT, "not inside");
  assert_status(hrx_fabric_transfer_fill(e->queue, a, 0, UINT64_MAX),
                HRX_STATUS_INVALID_ARGUMENT, "not inside");
  assert_status(hrx_fabric_transfer_wait_memory(e->queue, a + 2, 0, 1),
                HRX_STATUS_INVALID_ARGUMENT, "aligned");
  assert_status(hrx_fabric_transfer_wait_memory(e->queue, FAR_AWAY, 0, 1),
                HRX_STATUS_INVALID_ARGUMENT, "0x400000000000");
  assert_status(hrx_fabric_transfer_wait(e->queue, 99, 0),
                HRX_STATUS_INVALID_ARGUMENT, "never submitted");
  assert_ok(hrx_fabric_transfer_copy(e->queue, a, a + 8, 0));
  assert_status_code(hrx_fabric_transfer_copy(NULL, a, a, 1),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_fabric_transfer_submit(e->queue, NULL),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_status_code(hrx_fabric_transfer_queue_create(NULL, NULL),
                     HRX_STATUS_INVALID_ARGUMENT);
  assert_int_equal(hrx_fabric_transfer_completed(NULL), 0);
  assert_ok(hrx_fabric_transfer_queue_destroy(NULL));
  /* A wait on nothing recorded passes at once. */
  submit_and_wait(e);
  hrx_fabric_memory_free(e->device, &m);
}

static void test_queue_families(void** state) {
  env_t* e = *state;
  hrx_fabric_queue_family_info_t f[HRX_FABRIC_QUEUE_FAMILY_COUNT];
  for (int i = 0; i < HRX_FABRIC_QUEUE_FAMILY_COUNT; ++i) {
    const hrx_fabric_queue_family_info_t init =
        HRX_STRUCT_INIT(hrx_fabric_queue_family_info_t);
    f[i] = init;
    assert_ok(hrx_fabric_device_queue_family_info(
        e->device, (hrx_fabric_queue_family_t)i, &f[i]));
  }
  assert_int_equal(f[0].family, HRX_FABRIC_QUEUE_FAMILY_AQL_COMPUTE);
  assert_true(f[0].operations & HRX_FABRIC_QUEUE_OP_DISPATCH);
  assert_true(f[2].operations & HRX_FABRIC_QUEUE_OP_COPY);
  assert_true(f[2].operations & HRX_FABRIC_QUEUE_OP_FILL);
  assert_true(f[0].public_api && f[1].public_api && f[2].public_api);
  if (e->kind == HOST) {
    assert_int_equal(f[0].queue_count, 1024);
    assert_int_equal(f[1].queue_count, 0);
    assert_int_equal(f[2].queue_count, HRX_FABRIC_QUEUE_COUNT_UNLIMITED);
    assert_string_equal(f[2].engine, "host CPU");
  } else {
    /* The fixture's node: 8 CP queues, 2 SDMA engines x 6 queues. */
    assert_int_equal(f[0].queue_count, 8);
    assert_int_equal(f[1].queue_count, 8);
    assert_int_equal(f[2].queue_count, 12);
    assert_string_equal(f[2].engine, "SDMA");
  }
}

/* The model offers the node's 12 SDMA queues; the 13th is refused. */
static void test_sdma_queues_run_out(void** state) {
  env_t* e = *state;
  hrx_fabric_transfer_queue_t* more[12] = {NULL};
  size_t made = 0;
  hrx_status_t status = HRX_OK;
  while (made < 12 && status == HRX_OK) {
    status = hrx_fabric_transfer_queue_create(e->device, &more[made]);
    if (status == HRX_OK) ++made;
  }
  assert_int_equal(made, 11); /* the environment's queue is the 12th */
  assert_status_code(status, HRX_STATUS_RESOURCE_EXHAUSTED);
  for (size_t i = 0; i < made; ++i) {
    assert_ok(hrx_fabric_transfer_queue_destroy(more[i]));
  }
}

/* Memory freed under recorded work: the SDMA engine faults on it, the
 * wait answers ABORTED with the model's account, and the stopped queue
 * can be destroyed. */
static void test_fault_stops_queue(void** state) {
  env_t* e = *state;
  hrx_fabric_memory_t src = allocate(e, 4096);
  hrx_fabric_memory_t dst = allocate(e, 4096);
  uint64_t gone = dst.device_address;
  assert_ok(hrx_fabric_transfer_copy(e->queue, gone, src.device_address, 64));
  hrx_fabric_memory_free(e->device, &dst);
  uint64_t fence = 0;
  assert_ok(hrx_fabric_transfer_submit(e->queue, &fence));
  hrx_status_t status = hrx_fabric_transfer_wait(e->queue, fence, WAIT_NS);
  assert_status(status, HRX_STATUS_ABORTED,
                hrx_fabric_transfer_queue_name(e->queue));
  assert_status(hrx_fabric_transfer_queue_check(e->queue),
                HRX_STATUS_ABORTED, "stopped");
  assert_ok(hrx_fabric_transfer_queue_destroy(e->queue));
  e->queue = NULL;
  hrx_fabric_memory_free(e->device, &src);
}

#define BOTH(test)                                                       \
  cmocka_unit_test_setup_teardown(test, setup_host, teardown),           \
      cmocka_unit_test_setup_teardown(test, setup_kfd, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      BOTH(test_copy_every_length),
      BOTH(test_fill_heads_and_tails),
      BOTH(test_wait_that_never_arrives),
      BOTH(test_abort_parked_queue),
      BOTH(test_bad_arguments),
      BOTH(test_queue_families),
      cmocka_unit_test_setup_teardown(test_sdma_queues_run_out, setup_kfd,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_fault_stops_queue, setup_kfd,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
