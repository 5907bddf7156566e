#include "npu_test_util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hrx/core/bytes.h"
#include "hrx/npu.h"

char* npu_fixture_create(const npu_fixture_node_t* nodes, size_t count) {
  char* root = test_temp_dir_create();
  for (size_t i = 0; i < count; ++i) {
    char* dir = test_strdup_printf("%s/sys/class/accel/accel%zu/device",
                                   root, i);
    assert_ok(hrx_dir_create_all(dir, 0755));
    char uevent[256] = "";
    size_t n = 0;
    if (nodes[i].driver) {
      n += (size_t)snprintf(uevent + n, sizeof(uevent) - n, "DRIVER=%s\n",
                            nodes[i].driver);
    }
    n += (size_t)snprintf(uevent + n, sizeof(uevent) - n,
                          "PCI_CLASS=118000\n");
    if (nodes[i].pci_id) {
      snprintf(uevent + n, sizeof(uevent) - n,
               "PCI_ID=%s\nPCI_SLOT_NAME=0000:c6:00.1\n", nodes[i].pci_id);
    }
    char* path = test_strdup_printf("%s/uevent", dir);
    test_write_file(path, uevent, strlen(uevent));
    free(path);
    path = test_strdup_printf("%s/revision", dir);
    char revision[32];
    snprintf(revision, sizeof(revision), "%s\n", nodes[i].revision);
    test_write_file(path, revision, strlen(revision));
    free(path);
    free(dir);
  }
  return root;
}

char* npu_fixture_strix_halo(void) {
  const npu_fixture_node_t node = {"1022:17F0", "amdxdna", "0x11"};
  return npu_fixture_create(&node, 1);
}

int npu_fixture_open(const char* root) {
  int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  assert_true(fd >= 0);
  return fd;
}

const uint8_t npu_noop_txn[20] = {0x00, 0x01, 0x04, 0x06, 0x08, 0x01, 0x00,
                                  0x00, 0x01, 0x00, 0x00, 0x00, 0x14, 0x00,
                                  0x00, 0x00, 0x05, 0x00, 0x00, 0x00};

void npu_image_default(npu_image_t* image) {
  memset(image, 0, sizeof(*image));
  image->machine = HRX_NPU_IMAGE_EM_AIE;
  image->metadata_type = HRX_NPU_IMAGE_PT_METADATA;
  image->version = HRX_NPU_IMAGE_VERSION;
  snprintf(image->profile, sizeof(image->profile), "%s", HRX_NPU_PROFILE);
  snprintf(image->firmware_abi, sizeof(image->firmware_abi), "npu.fw.1");
  image->entries[0] = (npu_image_entry_t){.name = "main", .columns = 8};
  image->entry_count = 1;
  image->allocations[0] = (npu_image_allocation_t){
      .kind = HRX_NPU_ALLOCATION_COMMAND, .entry = 0, .size = 4096};
  image->allocations[1] = (npu_image_allocation_t){
      .kind = HRX_NPU_ALLOCATION_DMA, .entry = 0, .size = 256};
  image->allocation_count = 2;
  image->bindings[0] = (npu_image_binding_t){
      .entry = 0,
      .access = HRX_NPU_ACCESS_READ_WRITE,
      .size_min = 64,
      .size_max = 4096,
      .alignment = 64,
      .offset_max = 4096,
  };
  image->binding_count = 1;
  image->relocations[0] = (npu_image_relocation_t){
      .kind = 1, .target = 0, .source = 1, .target_offset = 2048,
      .addend = 16};
  image->relocations[1] = (npu_image_relocation_t){
      .kind = 2, .target = 1, .source = 0, .target_offset = 8};
  image->relocation_count = 2;
  image->invocations[0] = (npu_image_invocation_t){
      .entry = 0, .command_offset = 0, .command_length = 20};
  image->invocation_count = 1;
  image->loads[0] = (npu_image_load_t){
      .type = 1, .allocation = 0, .offset = 0, .memory_size = 4096,
      .data = npu_noop_txn, .size = sizeof(npu_noop_txn)};
  image->load_count = 1;
}

static size_t metadata_size(const npu_image_t* image) {
  return 112 + 16 * image->allocation_count + 48 * image->entry_count +
         40 * image->binding_count + 48 * image->relocation_count +
         16 * image->invocation_count;
}

size_t npu_image_metadata_offset(const npu_image_t* image) {
  return NPU_IMAGE_ELF_HEADER + NPU_IMAGE_PHDR * (1 + image->load_count);
}

static void put(uint8_t** cursor, uint64_t value, int bytes) {
  hrx_put_le(cursor, value, bytes);
}

static void put_bytes(uint8_t** cursor, const void* data, size_t size) {
  memcpy(*cursor, data, size);
  *cursor += size;
}

static void put_phdr(uint8_t** p, uint32_t type, uint64_t offset,
                     uint32_t vaddr, uint32_t paddr, uint32_t filesz,
                     uint32_t memsz) {
  put(p, type, 4);
  put(p, offset, 4);
  put(p, vaddr, 4);
  put(p, paddr, 4);
  put(p, filesz, 4);
  put(p, memsz, 4);
  put(p, 0, 4);
  put(p, 4, 4);
}

uint8_t* npu_image_build(const npu_image_t* image, size_t* out_size) {
  size_t meta_offset = npu_image_metadata_offset(image);
  size_t meta = metadata_size(image);
  size_t size = meta_offset + meta;
  for (size_t i = 0; i < image->load_count; ++i) size += image->loads[i].size;
  uint8_t* bytes = calloc(1, size);
  assert_non_null(bytes);
  uint8_t* p = bytes;
  static const uint8_t kIdent[16] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
  put_bytes(&p, kIdent, sizeof(kIdent));
  put(&p, 2, 2);              /* ET_EXEC */
  put(&p, image->machine, 2); /* e_machine */
  put(&p, 1, 4);              /* e_version */
  put(&p, 0, 4);              /* e_entry */
  put(&p, NPU_IMAGE_ELF_HEADER, 4);
  put(&p, 0, 4); /* e_shoff */
  put(&p, 0, 4); /* e_flags */
  put(&p, NPU_IMAGE_ELF_HEADER, 2);
  put(&p, NPU_IMAGE_PHDR, 2);
  put(&p, 1 + image->load_count, 2);
  put(&p, 40, 2);
  put(&p, 0, 2);
  put(&p, 0, 2);
  put_phdr(&p, image->metadata_type, meta_offset, 0, 0, (uint32_t)meta,
           (uint32_t)meta);
  size_t data_offset = meta_offset + meta;
  for (size_t i = 0; i < image->load_count; ++i) {
    const npu_image_load_t* l = &image->loads[i];
    put_phdr(&p, l->type, data_offset, l->offset, l->allocation, l->size,
             l->memory_size);
    data_offset += l->size;
  }
  put_bytes(&p, "XDNA", 4);
  put(&p, image->version, 4);
  put_bytes(&p, image->profile, 32);
  put_bytes(&p, image->firmware_abi, 32);
  size_t counts[5] = {image->allocation_count, image->entry_count,
                      image->binding_count, image->relocation_count,
                      image->invocation_count};
  static const size_t kSizes[5] = {16, 48, 40, 48, 16};
  size_t table_offset = 112;
  for (int i = 0; i < 5; ++i) {
    put(&p, counts[i], 4);
    put(&p, table_offset, 4);
    table_offset += counts[i] * kSizes[i];
  }
  for (size_t i = 0; i < image->allocation_count; ++i) {
    put(&p, image->allocations[i].kind, 4);
    put(&p, image->allocations[i].entry, 4);
    put(&p, image->allocations[i].size, 8);
  }
  for (size_t i = 0; i < image->entry_count; ++i) {
    put_bytes(&p, image->entries[i].name, 32);
    put(&p, image->entries[i].columns, 4);
    put(&p, image->entries[i].reserved, 4);
    put(&p, 0, 8);
  }
  for (size_t i = 0; i < image->binding_count; ++i) {
    const npu_image_binding_t* b = &image->bindings[i];
    put(&p, b->entry, 4);
    put(&p, b->access, 4);
    put(&p, b->size_min, 8);
    put(&p, b->size_max, 8);
    put(&p, b->alignment, 8);
    put(&p, b->offset_max, 8);
  }
  for (size_t i = 0; i < image->relocation_count; ++i) {
    const npu_image_relocation_t* r = &image->relocations[i];
    put(&p, r->kind, 4);
    put(&p, r->target, 4);
    put(&p, r->source, 4);
    put(&p, r->reserved, 4);
    put(&p, r->target_offset, 8);
    put(&p, r->addend, 8);
    put(&p, 0, 8);
    put(&p, 0, 8);
  }
  for (size_t i = 0; i < image->invocation_count; ++i) {
    const npu_image_invocation_t* v = &image->invocations[i];
    put(&p, v->entry, 4);
    put(&p, v->command_offset, 4);
    put(&p, v->command_length, 4);
    put(&p, v->reserved, 4);
  }
  for (size_t i = 0; i < image->load_count; ++i) {
    put_bytes(&p, image->loads[i].data, image->loads[i].size);
  }
  assert_int_equal((size_t)(p - bytes), size);
  *out_size = size;
  return bytes;
}
