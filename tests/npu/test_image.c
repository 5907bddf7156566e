/* The .xdna v2 parser, validator and relocator on synthetic images: one
 * case per validation rule, the relocation formula, binding limits, and
 * allocation failures. */
#include <stdlib.h>
#include <string.h>

#include "hrx/npu.h"
#include "npu_test_util.h"

static hrx_status_t parse(const npu_image_t* description,
                          hrx_npu_image_t** out_image) {
  size_t size = 0;
  uint8_t* bytes = npu_image_build(description, &size);
  hrx_status_t status =
      hrx_npu_image_parse(bytes, size, hrx_allocator_system(), out_image);
  free(bytes);
  return status;
}

static void test_default_image(void** state) {
  (void)state;
  npu_image_t d;
  npu_image_default(&d);
  hrx_npu_image_t* image = NULL;
  assert_ok(parse(&d, &image));
  assert_string_equal(hrx_npu_image_firmware_abi(image), "npu.fw.1");
  assert_int_equal(hrx_npu_image_entry_count(image), 1);
  size_t entry = 9;
  assert_ok(hrx_npu_image_find_entry(image, "main", &entry));
  assert_int_equal(entry, 0);
  assert_status(hrx_npu_image_find_entry(image, "other", &entry),
                HRX_STATUS_NOT_FOUND, "no entry 'other'");
  hrx_npu_image_entry_t e;
  hrx_npu_image_entry(image, 0, &e);
  assert_string_equal(e.name, "main");
  assert_int_equal(e.columns, 8);
  assert_int_equal(e.allocation_count, 2);
  assert_int_equal(e.binding_count, 1);
  assert_int_equal(e.command_allocation, 0);
  assert_int_equal(e.command_offset, 0);
  assert_int_equal(e.command_length, 20);
  hrx_npu_image_allocation_t a;
  hrx_npu_image_allocation(image, 0, 1, &a);
  assert_int_equal(a.kind, HRX_NPU_ALLOCATION_DMA);
  assert_int_equal(a.size, 256);
  hrx_npu_image_binding_t b;
  hrx_npu_image_binding(image, 0, 0, &b);
  assert_int_equal(b.access, HRX_NPU_ACCESS_READ_WRITE);
  assert_int_equal(b.size_min, 64);
  assert_int_equal(b.alignment, 64);
  hrx_npu_image_destroy(image);
}

/* Command bits the relocation must keep: low 2 bits of the low word and
 * the high 16 bits of the high word. */
static const uint8_t kOldPair[8] = {0x03, 0x00, 0x00, 0x00,
                                    0x00, 0x00, 0xAB, 0xCD};

typedef struct load_fixture_t {
  uint8_t command[4096];
  uint8_t dma[256];
  hrx_npu_image_target_t targets[2];
  hrx_npu_image_bound_t bound;
} load_fixture_t;

static hrx_npu_image_t* relocatable_image(void) {
  npu_image_t d;
  npu_image_default(&d);
  d.loads[1] = (npu_image_load_t){.type = 1, .allocation = 0,
                                  .offset = 2048, .memory_size = 8,
                                  .data = kOldPair, .size = 8};
  d.load_count = 2;
  hrx_npu_image_t* image = NULL;
  assert_ok(parse(&d, &image));
  return image;
}

static void load_fixture(load_fixture_t* f) {
  memset(f->command, 0xEE, sizeof(f->command));
  memset(f->dma, 0xEE, sizeof(f->dma));
  f->targets[0] = (hrx_npu_image_target_t){
      .host = f->command, .size = sizeof(f->command),
      .address = 0x0000000180000000ull};
  f->targets[1] = (hrx_npu_image_target_t){
      .host = f->dma, .size = sizeof(f->dma),
      .address = 0x0000123480001000ull};
  f->bound = (hrx_npu_image_bound_t){
      .address = 0x0000567880002040ull, .size = 128, .offset = 64};
}

static uint32_t word_at(const uint8_t* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

static void test_load_relocates(void** state) {
  (void)state;
  hrx_npu_image_t* image = relocatable_image();
  load_fixture_t f;
  load_fixture(&f);
  assert_ok(hrx_npu_image_load(image, 0, f.targets, 2, &f.bound, 1));
  assert_memory_equal(f.command, npu_noop_txn, sizeof(npu_noop_txn));
  assert_int_equal(f.command[100], 0); /* zero-filled past the load */
  /* DMA allocation + 16: low = (3 & 3) | 0x80001010, high = 0xCDAB0000 |
   * 0x1234. */
  assert_int_equal(word_at(f.command + 2048), 0x80001013u);
  assert_int_equal(word_at(f.command + 2052), 0xCDAB1234u);
  /* Binding address into zeroed DMA memory. */
  assert_int_equal(word_at(f.dma + 8), 0x80002040u);
  assert_int_equal(word_at(f.dma + 12), 0x00005678u);
  assert_int_equal(f.dma[0], 0);
  hrx_npu_image_destroy(image);
}

static void expect_load_refused(hrx_npu_image_t* image, load_fixture_t* f,
                                hrx_status_code_t code, const char* text) {
  assert_status(hrx_npu_image_load(image, 0, f->targets, 2, &f->bound, 1),
                code, text);
  /* Refused before anything was written. */
  assert_int_equal(f->command[0], 0xEE);
  assert_int_equal(f->dma[8], 0xEE);
  load_fixture(f);
}

static void test_load_refusals(void** state) {
  (void)state;
  hrx_npu_image_t* image = relocatable_image();
  load_fixture_t f;
  load_fixture(&f);
  f.bound.size = 63;
  expect_load_refused(image, &f, HRX_STATUS_INVALID_ARGUMENT,
                      "63 bytes, the entry takes 64..4096");
  f.bound.size = 4097;
  expect_load_refused(image, &f, HRX_STATUS_INVALID_ARGUMENT, "4097 bytes");
  f.bound.offset = 4097;
  expect_load_refused(image, &f, HRX_STATUS_INVALID_ARGUMENT,
                      "offset 4097 is past the limit 4096");
  f.bound.address += 32;
  expect_load_refused(image, &f, HRX_STATUS_INVALID_ARGUMENT,
                      "not 64-aligned");
  f.targets[1].address = (1ull << 48) - 8;
  expect_load_refused(image, &f, HRX_STATUS_OUT_OF_RANGE, "48-bit");
  f.targets[1].address = 0x80000002ull;
  expect_load_refused(image, &f, HRX_STATUS_OUT_OF_RANGE, "4-aligned");
  f.bound.address = UINT64_MAX - 63;
  expect_load_refused(image, &f, HRX_STATUS_OUT_OF_RANGE, "48-bit");
  f.targets[1].size = 255;
  expect_load_refused(image, &f, HRX_STATUS_INVALID_ARGUMENT,
                      "needs 256 bytes");
  f.targets[0].host = NULL;
  expect_load_refused(image, &f, HRX_STATUS_INVALID_ARGUMENT,
                      "needs 4096 bytes");
  assert_status(hrx_npu_image_load(image, 0, f.targets, 1, &f.bound, 1),
                HRX_STATUS_INVALID_ARGUMENT, "takes 2 allocations");
  assert_status(hrx_npu_image_load(image, 0, f.targets, 2, &f.bound, 0),
                HRX_STATUS_INVALID_ARGUMENT, "and 1 bindings");
  hrx_npu_image_destroy(image);
}

/* A relocation that breaks the transaction stream it patches is caught
 * by the check after relocation. */
static void test_load_rechecks_transaction(void** state) {
  (void)state;
  npu_image_t d;
  npu_image_default(&d);
  d.relocations[0].target_offset = 12; /* TxnSize and the noop */
  hrx_npu_image_t* image = NULL;
  assert_ok(parse(&d, &image));
  load_fixture_t f;
  load_fixture(&f);
  assert_status(hrx_npu_image_load(image, 0, f.targets, 2, &f.bound, 1),
                HRX_STATUS_DATA_LOSS, "after relocation");
  hrx_npu_image_destroy(image);
}

typedef void (*mutate_fn)(npu_image_t* d);
typedef struct rule_case_t {
  const char* name;
  mutate_fn mutate;
  const char* text;
} rule_case_t;

static void m_machine(npu_image_t* d) { d->machine = 62; }
static void m_metadata_type(npu_image_t* d) { d->metadata_type = 1; }
static void m_version(npu_image_t* d) { d->version = 1; }
static void m_profile(npu_image_t* d) {
  strcpy(d->profile, "amd.xdna.phoenix.1502_00");
}
static void m_firmware_empty(npu_image_t* d) { d->firmware_abi[0] = '\0'; }
static void m_firmware_unterminated(npu_image_t* d) {
  memset(d->firmware_abi, 'x', sizeof(d->firmware_abi));
}
static void m_no_entries(npu_image_t* d) {
  d->entry_count = 0;
  d->allocation_count = 0;
  d->binding_count = 0;
  d->relocation_count = 0;
  d->invocation_count = 0;
  d->load_count = 0;
}
static void m_entry_name_empty(npu_image_t* d) { d->entries[0].name[0] = 0; }
static void m_entry_name_unterminated(npu_image_t* d) {
  memset(d->entries[0].name, 'n', sizeof(d->entries[0].name));
}
static void m_entry_columns_zero(npu_image_t* d) { d->entries[0].columns = 0; }
static void m_entry_columns_nine(npu_image_t* d) { d->entries[0].columns = 9; }
static void m_entry_reserved(npu_image_t* d) { d->entries[0].reserved = 1; }
static void add_second_entry(npu_image_t* d, const char* name) {
  d->entries[1] = (npu_image_entry_t){.columns = 8};
  strcpy(d->entries[1].name, name);
  d->entry_count = 2;
  d->allocations[2] = (npu_image_allocation_t){
      .kind = HRX_NPU_ALLOCATION_COMMAND, .entry = 1, .size = 64};
  d->allocation_count = 3;
  d->invocations[1] = (npu_image_invocation_t){
      .entry = 1, .command_offset = 0, .command_length = 20};
  d->invocation_count = 2;
  d->loads[1] = (npu_image_load_t){.type = 1, .allocation = 2,
                                   .memory_size = 20, .data = npu_noop_txn,
                                   .size = 20};
  d->load_count = 2;
}
static void m_entry_duplicate(npu_image_t* d) { add_second_entry(d, "main"); }
static void m_alloc_kind(npu_image_t* d) { d->allocations[1].kind = 3; }
static void m_alloc_entry(npu_image_t* d) { d->allocations[1].entry = 1; }
static void m_alloc_size_zero(npu_image_t* d) { d->allocations[1].size = 0; }
static void m_alloc_command_huge(npu_image_t* d) {
  d->allocations[0].size = (16u << 20) + 1;
}
static void m_alloc_dma_huge(npu_image_t* d) {
  d->allocations[1].size = (1ull << 30) + 1;
}
static void m_no_command(npu_image_t* d) {
  d->allocations[0].kind = HRX_NPU_ALLOCATION_DMA;
}
static void m_two_commands(npu_image_t* d) {
  d->allocations[1].kind = HRX_NPU_ALLOCATION_COMMAND;
}
static void m_binding_entry(npu_image_t* d) { d->bindings[0].entry = 2; }
static void m_binding_access(npu_image_t* d) { d->bindings[0].access = 4; }
static void m_binding_access_zero(npu_image_t* d) {
  d->bindings[0].access = 0;
}
static void m_binding_sizes(npu_image_t* d) {
  d->bindings[0].size_min = 8192;
}
static void m_binding_size_max_zero(npu_image_t* d) {
  d->bindings[0].size_min = 0;
  d->bindings[0].size_max = 0;
}
static void m_binding_alignment(npu_image_t* d) {
  d->bindings[0].alignment = 48;
}
static void m_binding_alignment_zero(npu_image_t* d) {
  d->bindings[0].alignment = 0;
}
static void m_reloc_kind(npu_image_t* d) { d->relocations[0].kind = 3; }
static void m_reloc_target(npu_image_t* d) { d->relocations[0].target = 2; }
static void m_reloc_source(npu_image_t* d) { d->relocations[1].source = 1; }
static void m_reloc_offset_unaligned(npu_image_t* d) {
  d->relocations[0].target_offset = 2050;
}
static void m_reloc_offset_past(npu_image_t* d) {
  d->relocations[1].target_offset = 252;
}
static void m_reloc_offset_huge(npu_image_t* d) {
  d->relocations[1].target_offset = UINT64_MAX - 3;
}
static void m_reloc_reserved(npu_image_t* d) {
  d->relocations[0].reserved = 1;
}
static void m_reloc_cross_entry(npu_image_t* d) {
  add_second_entry(d, "second");
  d->relocations[0].target = 2;
  d->relocations[0].target_offset = 24;
}
static void m_invocation_entry(npu_image_t* d) {
  d->invocations[0].entry = 1;
}
static void m_invocation_missing(npu_image_t* d) {
  d->invocation_count = 0;
}
static void m_invocation_twice(npu_image_t* d) {
  d->invocations[1] = d->invocations[0];
  d->invocation_count = 2;
}
static void m_invocation_reserved(npu_image_t* d) {
  d->invocations[0].reserved = 1;
}
static void m_invocation_range(npu_image_t* d) {
  d->invocations[0].command_offset = 4090;
}
static void m_invocation_not_txn(npu_image_t* d) {
  d->invocations[0].command_offset = 4;
  d->invocations[0].command_length = 16;
}
static void m_invocation_columns(npu_image_t* d) {
  d->entries[0].columns = 4;
}
static void m_load_type(npu_image_t* d) { d->loads[0].type = 4; }
static void m_load_allocation(npu_image_t* d) { d->loads[0].allocation = 5; }
static void m_load_past_allocation(npu_image_t* d) {
  d->loads[0].offset = 4090;
  d->loads[0].memory_size = 20;
}
static void m_load_file_over_memory(npu_image_t* d) {
  d->loads[0].memory_size = 10;
}

static const rule_case_t kRules[] = {
    {"machine", m_machine, "machine 62 is not EM_AIE"},
    {"metadata type", m_metadata_type, "not METADATA"},
    {"version", m_version, "metadata version 1"},
    {"profile", m_profile, "not for profile amd.xdna.strix_halo.17f0_11"},
    {"firmware empty", m_firmware_empty, "firmware ABI"},
    {"firmware unterminated", m_firmware_unterminated, "firmware ABI"},
    {"no entries", m_no_entries, "no entries"},
    {"entry name empty", m_entry_name_empty, "empty or unterminated name"},
    {"entry name unterminated", m_entry_name_unterminated,
     "empty or unterminated name"},
    {"entry columns 0", m_entry_columns_zero, "0 columns"},
    {"entry columns 9", m_entry_columns_nine, "9 columns"},
    {"entry reserved", m_entry_reserved, "reserved"},
    {"entry duplicate", m_entry_duplicate, "'main' is used twice"},
    {"allocation kind", m_alloc_kind, "unknown kind 3"},
    {"allocation entry", m_alloc_entry, "names entry 1 of 1"},
    {"allocation size 0", m_alloc_size_zero, "size 0"},
    {"command too large", m_alloc_command_huge, "size 16777217"},
    {"dma too large", m_alloc_dma_huge, "size 1073741825"},
    {"no command", m_no_command, "0 COMMAND allocations"},
    {"two commands", m_two_commands, "2 COMMAND allocations"},
    {"binding entry", m_binding_entry, "binding 0 names entry 2"},
    {"binding access", m_binding_access, "unknown access 4"},
    {"binding access 0", m_binding_access_zero, "unknown access 0"},
    {"binding sizes", m_binding_sizes, "sizes 8192..4096"},
    {"binding size_max 0", m_binding_size_max_zero, "sizes 0..0"},
    {"binding alignment", m_binding_alignment, "48 is not a power of two"},
    {"binding alignment 0", m_binding_alignment_zero, "not a power of two"},
    {"relocation kind", m_reloc_kind, "kind 3"},
    {"relocation target", m_reloc_target, "targets allocation 2"},
    {"relocation source", m_reloc_source, "kind 2 and source 1"},
    {"relocation unaligned", m_reloc_offset_unaligned, "offset 2050"},
    {"relocation past end", m_reloc_offset_past, "offset 252"},
    {"relocation offset overflow", m_reloc_offset_huge, "patches offset"},
    {"relocation reserved", m_reloc_reserved, "reserved"},
    {"relocation across entries", m_reloc_cross_entry,
     "crosses from entry 0 to entry 1"},
    {"invocation entry", m_invocation_entry, "invocation 0 names entry 1"},
    {"invocation missing", m_invocation_missing, "0 invocations"},
    {"invocation twice", m_invocation_twice, "2 invocations"},
    {"invocation reserved", m_invocation_reserved, "reserved"},
    {"invocation range", m_invocation_range, "runs past its 4096-byte"},
    {"invocation not a transaction", m_invocation_not_txn, "transaction"},
    {"invocation columns", m_invocation_columns,
     "4 columns, its transaction 8"},
    {"load type", m_load_type, "not PT_LOAD"},
    {"load allocation", m_load_allocation, "loads allocation 5"},
    {"load past allocation", m_load_past_allocation,
     "runs past allocation 0"},
    {"load file over memory", m_load_file_over_memory, "memory bytes"},
};

static void test_every_rule(void** state) {
  (void)state;
  for (size_t i = 0; i < sizeof(kRules) / sizeof(kRules[0]); ++i) {
    npu_image_t d;
    npu_image_default(&d);
    kRules[i].mutate(&d);
    print_message("rule: %s\n", kRules[i].name);
    hrx_npu_image_t* image = (hrx_npu_image_t*)1;
    hrx_status_t status = parse(&d, &image);
    assert_null(image);
    assert_status(status, HRX_STATUS_DATA_LOSS, kRules[i].text);
  }
}

/* Rules on the ELF container, broken in the built bytes. */
static void test_container_rules(void** state) {
  (void)state;
  npu_image_t d;
  npu_image_default(&d);
  size_t size = 0;
  uint8_t* good = npu_image_build(&d, &size);
  uint8_t* bytes = malloc(size);
  hrx_allocator_t system = hrx_allocator_system();
  hrx_npu_image_t* image = NULL;
  static const struct {
    size_t offset;
    uint8_t value;
    const char* text;
  } kBytes[] = {
      {0, 0x7e, "not a little-endian ELF32"},
      {4, 2, "not a little-endian ELF32"},  /* ELFCLASS64 */
      {5, 2, "not a little-endian ELF32"},  /* big-endian */
      {16, 1, "ELF type 1"},                /* ET_REL */
      {20, 0, "version 0"},
      {42, 56, "program headers"},         /* e_phentsize */
      {44, 0, "program headers"},          /* e_phnum = 0 */
      {44, 200, "program headers"},        /* past the file */
      {29, 0x10, "program headers"},       /* e_phoff past the file */
      {52 + 4, 0xff, "metadata segment"},  /* metadata p_offset */
      {52 + 17, 0x40, "metadata segment"}, /* metadata p_filesz */
      {52 + 32 + 5, 0x40, "program header 1"}, /* load p_offset */
  };
  for (size_t i = 0; i < sizeof(kBytes) / sizeof(kBytes[0]); ++i) {
    memcpy(bytes, good, size);
    bytes[kBytes[i].offset] = kBytes[i].value;
    print_message("byte %zu\n", kBytes[i].offset);
    assert_status(hrx_npu_image_parse(bytes, size, system, &image),
                  HRX_STATUS_DATA_LOSS, kBytes[i].text);
  }
  /* Metadata magic, short metadata, tables past the metadata, counts
   * past the limits. */
  size_t meta = npu_image_metadata_offset(&d);
  memcpy(bytes, good, size);
  bytes[meta] = 'Y';
  assert_status(hrx_npu_image_parse(bytes, size, system, &image),
                HRX_STATUS_DATA_LOSS, "XDNA header");
  memcpy(bytes, good, size);
  bytes[52 + 16] = 100; /* metadata p_filesz below the header */
  bytes[52 + 17] = 0;
  assert_status(hrx_npu_image_parse(bytes, size, system, &image),
                HRX_STATUS_DATA_LOSS, "XDNA header");
  memcpy(bytes, good, size);
  bytes[meta + 76 + 8 * 3 + 1] = 0x10; /* relocations' offset */
  assert_status(hrx_npu_image_parse(bytes, size, system, &image),
                HRX_STATUS_DATA_LOSS, "relocations table runs past");
  memcpy(bytes, good, size);
  bytes[meta + 72 + 8 * 1] = 65; /* 65 entries */
  assert_status(hrx_npu_image_parse(bytes, size, system, &image),
                HRX_STATUS_DATA_LOSS, "65 entries, at most 64");
  memcpy(bytes, good, size);
  bytes[meta + 72 + 8 * 2 + 1] = 0x10; /* 4096 + 1 bindings */
  bytes[meta + 72 + 8 * 2] = 1;
  assert_status(hrx_npu_image_parse(bytes, size, system, &image),
                HRX_STATUS_DATA_LOSS, "4097 bindings, at most 4096");
  /* Every truncation fails cleanly. */
  for (size_t cut = 0; cut < size; ++cut) {
    hrx_status_t status = hrx_npu_image_parse(good, cut, system, &image);
    assert_status_code(status, HRX_STATUS_DATA_LOSS);
  }
  free(bytes);
  free(good);
}

static hrx_status_t parse_with(hrx_allocator_t allocator, void* context) {
  const npu_image_t* d = context;
  size_t size = 0;
  uint8_t* bytes = npu_image_build(d, &size);
  hrx_npu_image_t* image = NULL;
  hrx_status_t status = hrx_npu_image_parse(bytes, size, allocator, &image);
  free(bytes);
  hrx_npu_image_destroy(image);
  return status;
}

static void test_allocation_failures(void** state) {
  (void)state;
  npu_image_t d;
  npu_image_default(&d);
  add_second_entry(&d, "second");
  assert_true(test_exhaust_allocations(parse_with, NULL, &d) > 3);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_default_image),
      cmocka_unit_test(test_load_relocates),
      cmocka_unit_test(test_load_refusals),
      cmocka_unit_test(test_load_rechecks_transaction),
      cmocka_unit_test(test_every_rule),
      cmocka_unit_test(test_container_rules),
      cmocka_unit_test(test_allocation_failures),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
