/* Shared by the npu suite: sysfs fixture trees and a builder of synthetic
 * `.xdna` images whose every field a test can set or break. */
#ifndef HRX_TESTS_NPU_NPU_TEST_UTIL_H_
#define HRX_TESTS_NPU_NPU_TEST_UTIL_H_

#include <stddef.h>
#include <stdint.h>

#include "test_support.h"

/* One accel node of a fixture: PCI_ID text ("1022:17F0"; NULL for a
 * device with none), the bound driver (NULL for none) and the revision
 * file's text. */
typedef struct npu_fixture_node_t {
  const char* pci_id;
  const char* driver;
  const char* revision;
} npu_fixture_node_t;

/* A temporary root with sys/class/accel/accelN/device/{uevent,revision}
 * for each node; remove it with test_temp_dir_remove. */
char* npu_fixture_create(const npu_fixture_node_t* nodes, size_t count);
/* The qualified Strix Halo NPU as accel0. */
char* npu_fixture_strix_halo(void);
/* An O_DIRECTORY fd on |root|. */
int npu_fixture_open(const char* root);

#define NPU_IMAGE_MAX 6

typedef struct npu_image_entry_t {
  char name[32];
  uint32_t columns;
  uint32_t reserved;
} npu_image_entry_t;

typedef struct npu_image_allocation_t {
  uint32_t kind;
  uint32_t entry;
  uint64_t size;
} npu_image_allocation_t;

typedef struct npu_image_binding_t {
  uint32_t entry;
  uint32_t access;
  uint64_t size_min;
  uint64_t size_max;
  uint64_t alignment;
  uint64_t offset_max;
} npu_image_binding_t;

typedef struct npu_image_relocation_t {
  uint32_t kind;
  uint32_t target;
  uint32_t source;
  uint32_t reserved;
  uint64_t target_offset;
  uint64_t addend;
} npu_image_relocation_t;

typedef struct npu_image_invocation_t {
  uint32_t entry;
  uint32_t command_offset;
  uint32_t command_length;
  uint32_t reserved;
} npu_image_invocation_t;

typedef struct npu_image_load_t {
  uint32_t type; /* PT_LOAD (1) */
  uint32_t allocation;
  uint32_t offset;
  uint32_t memory_size;
  const uint8_t* data;
  uint32_t size;
} npu_image_load_t;

typedef struct npu_image_t {
  uint16_t machine;
  uint32_t metadata_type;
  uint32_t version;
  char profile[32];
  char firmware_abi[32];
  npu_image_entry_t entries[NPU_IMAGE_MAX];
  size_t entry_count;
  npu_image_allocation_t allocations[NPU_IMAGE_MAX];
  size_t allocation_count;
  npu_image_binding_t bindings[NPU_IMAGE_MAX];
  size_t binding_count;
  npu_image_relocation_t relocations[NPU_IMAGE_MAX];
  size_t relocation_count;
  npu_image_invocation_t invocations[NPU_IMAGE_MAX];
  size_t invocation_count;
  npu_image_load_t loads[NPU_IMAGE_MAX];
  size_t load_count;
} npu_image_t;

/* The NOOP transaction: one op, 20 bytes, 8 columns. */
extern const uint8_t npu_noop_txn[20];

/* One entry "main" (8 columns): allocation 0 COMMAND (4096 bytes, the
 * NOOP transaction at 0), allocation 1 DMA (256 bytes); binding 0 (read-
 * write, 64..4096 bytes, 64-aligned, offset up to 4096); relocation 0
 * puts allocation 1's address (+16) at COMMAND offset 2048, relocation 1
 * binding 0's address at DMA offset 8. */
void npu_image_default(npu_image_t* image);

/* Serialises |image| into a malloc'ed buffer; free() it. */
uint8_t* npu_image_build(const npu_image_t* image, size_t* out_size);

/* Offsets into a built image, for tests that break single bytes. */
#define NPU_IMAGE_ELF_HEADER 52
#define NPU_IMAGE_PHDR 32
size_t npu_image_metadata_offset(const npu_image_t* image);

#endif /* HRX_TESTS_NPU_NPU_TEST_UTIL_H_ */
