/* libFuzzer target: `.xdna` images and transaction streams. The input is
 * parsed as an image; a valid image has every entry loaded (when its
 * allocations are small) into host memory with bindings at their limits,
 * and a successful load leaves a well-formed transaction stream. The
 * input is also checked as a transaction stream, and a valid one is
 * composed with a prefix and suffix and must check again. Any crash,
 * leak, sanitizer report or hang is a bug. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hrx/npu.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* Entries whose allocations add up to more are parsed, not loaded. */
#define LOAD_LIMIT (1u << 20)

static void check(int condition) {
  if (!condition) abort();
}

static void load_entry(const hrx_npu_image_t* image, size_t entry) {
  hrx_npu_image_entry_t e;
  hrx_npu_image_entry(image, entry, &e);
  hrx_npu_image_target_t* targets =
      calloc(e.allocation_count + 1, sizeof(*targets));
  hrx_npu_image_bound_t* bounds = calloc(e.binding_count + 1, sizeof(*bounds));
  check(targets && bounds);
  uint64_t total = 0;
  for (size_t i = 0; i < e.allocation_count; ++i) {
    hrx_npu_image_allocation_t a;
    hrx_npu_image_allocation(image, entry, i, &a);
    total += a.size;
    targets[i].size = a.size;
    targets[i].address = 0x80000000ull + (uint64_t)i * 0x01000000ull;
  }
  if (total <= LOAD_LIMIT) {
    for (size_t i = 0; i < e.allocation_count; ++i) {
      targets[i].host = malloc((size_t)targets[i].size);
      check(targets[i].host != NULL);
    }
    for (size_t i = 0; i < e.binding_count; ++i) {
      hrx_npu_image_binding_t b;
      hrx_npu_image_binding(image, entry, i, &b);
      bounds[i] = (hrx_npu_image_bound_t){
          .address = 0x0000100000000000ull, .size = b.size_min,
          .offset = 0};
    }
    hrx_status_t status = hrx_npu_image_load(
        image, entry, targets, e.allocation_count, bounds, e.binding_count);
    if (status == HRX_OK) {
      const uint8_t* command = targets[e.command_allocation].host;
      check(hrx_npu_txn_check(command + e.command_offset, e.command_length,
                              NULL) == HRX_OK);
    }
    hrx_status_free(status);
    for (size_t i = 0; i < e.allocation_count; ++i) free(targets[i].host);
  }
  free(targets);
  free(bounds);
}

static void fuzz_image(const uint8_t* data, size_t size) {
  hrx_npu_image_t* image = NULL;
  hrx_status_t status =
      hrx_npu_image_parse(data, size, hrx_allocator_system(), &image);
  if (status != HRX_OK) {
    check(image == NULL);
    hrx_status_free(status);
    return;
  }
  for (size_t i = 0; i < hrx_npu_image_entry_count(image); ++i) {
    hrx_npu_image_entry_t e;
    hrx_npu_image_entry(image, i, &e);
    size_t found = SIZE_MAX;
    check(hrx_npu_image_find_entry(image, e.name, &found) == HRX_OK);
    check(found == i);
    load_entry(image, i);
  }
  hrx_npu_image_destroy(image);
}

static void fuzz_transaction(const uint8_t* data, size_t size) {
  hrx_npu_txn_info_t info = HRX_STRUCT_INIT(hrx_npu_txn_info_t);
  hrx_status_t status = hrx_npu_txn_check(data, size, &info);
  if (status != HRX_OK) {
    hrx_status_free(status);
    return;
  }
  check(info.size == size);
  hrx_allocator_t allocator = hrx_allocator_system();
  hrx_npu_txn_builder_t prefix;
  check(hrx_npu_txn_builder_init(allocator, 1, &prefix) == HRX_OK);
  check(hrx_npu_txn_maskpoll(&prefix, 0x1000, 1, 1) == HRX_OK);
  uint8_t* out = NULL;
  size_t out_size = 0;
  check(hrx_npu_txn_compose(data, size, &prefix, &prefix, allocator, &out,
                            &out_size) == HRX_OK);
  hrx_npu_txn_info_t composed = HRX_STRUCT_INIT(hrx_npu_txn_info_t);
  check(hrx_npu_txn_check(out, out_size, &composed) == HRX_OK);
  check(composed.op_count == info.op_count + 2);
  hrx_allocator_free(allocator, out);
  hrx_npu_txn_builder_deinit(&prefix);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_image(data, size);
  fuzz_transaction(data, size);
  return 0;
}
