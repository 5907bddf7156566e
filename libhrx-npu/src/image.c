#include <stdarg.h>
#include <string.h>

#include "hrx/core/bytes.h"
#include "hrx/npu/device.h"
#include "hrx/npu/image.h"
#include "hrx/npu/transaction.h"

#define ELF_HEADER_SIZE 52
#define ELF_PHDR_SIZE 32
#define ELF_PT_LOAD 1
#define ELF_ET_EXEC 2

#define META_HEADER_SIZE 112
#define META_NAME_SIZE 32
#define META_TABLES 5
#define ALLOCATION_SIZE 16
#define ENTRY_SIZE 48
#define BINDING_SIZE 40
#define RELOCATION_SIZE 48
#define INVOCATION_SIZE 16

/* Bounds that keep a hostile image from costing more than it could be
 * worth: the COMMAND allocation must fit the 64 MiB device heap with room
 * to spare, and validation is quadratic in the entry count. */
#define MAX_ENTRIES 64
#define MAX_RECORDS 4096
#define MAX_COMMAND_SIZE (16u << 20)
#define MAX_DMA_SIZE (1ull << 30)
#define RELOCATION_KIND_ALLOCATION 1
#define RELOCATION_KIND_BINDING 2
#define DMA_ADDRESS_LIMIT (1ull << 48)

typedef struct image_allocation_t {
  uint32_t kind;
  uint32_t entry;
  uint64_t size;
  size_t ordinal; /* index among its entry's allocations */
} image_allocation_t;

typedef struct image_entry_t {
  char name[META_NAME_SIZE];
  uint32_t columns;
  size_t allocation_count;
  size_t binding_count;
  size_t command; /* global index of its COMMAND allocation */
  size_t command_count;
  size_t invocation_count;
  uint32_t command_offset;
  uint32_t command_length;
} image_entry_t;

typedef struct image_binding_t {
  uint32_t entry;
  hrx_npu_image_binding_t limits;
  size_t ordinal;
} image_binding_t;

typedef struct image_relocation_t {
  uint32_t kind;
  uint32_t target;
  uint32_t source;
  uint64_t target_offset;
  uint64_t addend;
} image_relocation_t;

typedef struct image_load_t {
  uint32_t allocation;
  uint64_t offset; /* inside the allocation */
  uint64_t file_offset;
  uint64_t file_size;
} image_load_t;

struct hrx_npu_image_s {
  hrx_allocator_t allocator;
  uint8_t* bytes;
  char firmware_abi[META_NAME_SIZE];
  image_allocation_t* allocations;
  size_t allocation_count;
  image_entry_t* entries;
  size_t entry_count;
  image_binding_t* bindings;
  size_t binding_count;
  image_relocation_t* relocations;
  size_t relocation_count;
  image_load_t* loads;
  size_t load_count;
};

static uint64_t le(const uint8_t* p, int bytes) {
  return hrx_get_le(&p, bytes);
}

static hrx_status_t malformed(const char* format, ...) HRX_PRINTF(1, 2);
static hrx_status_t malformed(const char* format, ...) {
  va_list args;
  va_start(args, format);
  hrx_status_t status = hrx_make_status_v(HRX_STATUS_DATA_LOSS, format, args);
  va_end(args);
  return status;
}

/* Copies a NUL-padded name field; false when it is empty or unterminated. */
static bool read_name(const uint8_t* field, char out[META_NAME_SIZE]) {
  memcpy(out, field, META_NAME_SIZE);
  return out[0] != '\0' && memchr(out, '\0', META_NAME_SIZE) != NULL;
}

static hrx_status_t parse_elf(hrx_npu_image_t* image, size_t size,
                              uint64_t* out_meta_offset,
                              uint64_t* out_meta_size, size_t* out_phnum,
                              uint64_t* out_phoff) {
  const uint8_t* p = image->bytes;
  static const uint8_t kIdent[7] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
  if (size < ELF_HEADER_SIZE || memcmp(p, kIdent, sizeof(kIdent)) != 0) {
    return malformed("not a little-endian ELF32 file");
  }
  if (le(p + 16, 2) != ELF_ET_EXEC || le(p + 20, 4) != 1) {
    return malformed("ELF type %u version %u, want an EV_CURRENT "
                     "executable",
                     (unsigned)le(p + 16, 2), (unsigned)le(p + 20, 4));
  }
  if (le(p + 18, 2) != HRX_NPU_IMAGE_EM_AIE) {
    return malformed("ELF machine %u is not EM_AIE (%d)",
                     (unsigned)le(p + 18, 2), HRX_NPU_IMAGE_EM_AIE);
  }
  uint64_t phoff = le(p + 28, 4);
  uint64_t phentsize = le(p + 42, 2);
  uint64_t phnum = le(p + 44, 2);
  if (phentsize != ELF_PHDR_SIZE || phnum == 0 ||
      phoff + phnum * ELF_PHDR_SIZE > size) {
    return malformed("program headers (%llu x %llu bytes at %llu) do not "
                     "fit the file",
                     (unsigned long long)phnum,
                     (unsigned long long)phentsize,
                     (unsigned long long)phoff);
  }
  const uint8_t* ph = p + phoff;
  if (le(ph, 4) != HRX_NPU_IMAGE_PT_METADATA) {
    return malformed("program header 0 has type 0x%x, not METADATA",
                     (unsigned)le(ph, 4));
  }
  *out_meta_offset = le(ph + 4, 4);
  *out_meta_size = le(ph + 16, 4);
  if (*out_meta_offset + *out_meta_size > size) {
    return malformed("the metadata segment runs past the end of the file");
  }
  *out_phnum = (size_t)phnum;
  *out_phoff = phoff;
  return HRX_OK;
}

/* The table |index| of the metadata header: its record count and start,
 * checked to lie inside the metadata. */
static hrx_status_t table(const uint8_t* meta, uint64_t meta_size,
                          int index, const char* name, size_t record_size,
                          size_t limit, size_t* out_count,
                          const uint8_t** out_records) {
  uint64_t count = le(meta + 72 + 8 * index, 4);
  uint64_t offset = le(meta + 76 + 8 * index, 4);
  if (count > limit) {
    return malformed("%llu %s, at most %zu", (unsigned long long)count, name,
                     limit);
  }
  if (offset + count * record_size > meta_size) {
    return malformed("the %s table runs past the metadata", name);
  }
  *out_count = (size_t)count;
  *out_records = meta + offset;
  return HRX_OK;
}

static hrx_status_t alloc_table(hrx_npu_image_t* image, size_t count,
                                size_t element_size, void** out) {
  return hrx_allocator_malloc_array(image->allocator, count ? count : 1,
                                    element_size, out);
}

static hrx_status_t parse_entries(hrx_npu_image_t* image, const uint8_t* r,
                                  size_t count) {
  if (count == 0) return malformed("the image has no entries");
  HRX_RETURN_IF_ERROR(alloc_table(image, count, sizeof(image_entry_t),
                                  (void**)&image->entries));
  image->entry_count = count;
  for (size_t i = 0; i < count; ++i, r += ENTRY_SIZE) {
    image_entry_t* e = &image->entries[i];
    if (!read_name(r, e->name)) {
      return malformed("entry %zu has an empty or unterminated name", i);
    }
    for (size_t j = 0; j < i; ++j) {
      if (!strcmp(image->entries[j].name, e->name)) {
        return malformed("entry name '%s' is used twice", e->name);
      }
    }
    e->columns = (uint32_t)le(r + 32, 4);
    if (e->columns < 1 || e->columns > HRX_NPU_TXN_MAX_COLUMNS) {
      return malformed("entry '%s' has %u columns, outside 1..%d", e->name,
                       e->columns, HRX_NPU_TXN_MAX_COLUMNS);
    }
    if (le(r + 36, 4) != 0 || le(r + 40, 8) != 0) {
      return malformed("entry '%s' has nonzero reserved fields", e->name);
    }
  }
  return HRX_OK;
}

static hrx_status_t parse_allocations(hrx_npu_image_t* image,
                                      const uint8_t* r, size_t count) {
  HRX_RETURN_IF_ERROR(alloc_table(image, count, sizeof(image_allocation_t),
                                  (void**)&image->allocations));
  image->allocation_count = count;
  for (size_t i = 0; i < count; ++i, r += ALLOCATION_SIZE) {
    image_allocation_t* a = &image->allocations[i];
    a->kind = (uint32_t)le(r, 4);
    a->entry = (uint32_t)le(r + 4, 4);
    a->size = le(r + 8, 8);
    if (a->entry >= image->entry_count) {
      return malformed("allocation %zu names entry %u of %zu", i, a->entry,
                       image->entry_count);
    }
    image_entry_t* e = &image->entries[a->entry];
    uint64_t limit = 0;
    if (a->kind == HRX_NPU_ALLOCATION_COMMAND) {
      limit = MAX_COMMAND_SIZE;
      e->command = i;
      ++e->command_count;
    } else if (a->kind == HRX_NPU_ALLOCATION_DMA) {
      limit = MAX_DMA_SIZE;
    } else {
      return malformed("allocation %zu has unknown kind %u", i, a->kind);
    }
    if (a->size == 0 || a->size > limit) {
      return malformed("allocation %zu has size %llu, outside 1..%llu", i,
                       (unsigned long long)a->size,
                       (unsigned long long)limit);
    }
    a->ordinal = e->allocation_count++;
  }
  for (size_t i = 0; i < image->entry_count; ++i) {
    if (image->entries[i].command_count != 1) {
      return malformed("entry '%s' has %zu COMMAND allocations, not 1",
                       image->entries[i].name,
                       image->entries[i].command_count);
    }
  }
  return HRX_OK;
}

static bool is_power_of_two(uint64_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

static hrx_status_t parse_bindings(hrx_npu_image_t* image, const uint8_t* r,
                                   size_t count) {
  HRX_RETURN_IF_ERROR(alloc_table(image, count, sizeof(image_binding_t),
                                  (void**)&image->bindings));
  image->binding_count = count;
  for (size_t i = 0; i < count; ++i, r += BINDING_SIZE) {
    image_binding_t* b = &image->bindings[i];
    b->entry = (uint32_t)le(r, 4);
    uint32_t access = (uint32_t)le(r + 4, 4);
    b->limits = (hrx_npu_image_binding_t){
        .access = (hrx_npu_access_t)access,
        .size_min = le(r + 8, 8),
        .size_max = le(r + 16, 8),
        .alignment = le(r + 24, 8),
        .offset_max = le(r + 32, 8),
    };
    if (b->entry >= image->entry_count) {
      return malformed("binding %zu names entry %u of %zu", i, b->entry,
                       image->entry_count);
    }
    if (access < HRX_NPU_ACCESS_READ || access > HRX_NPU_ACCESS_READ_WRITE) {
      return malformed("binding %zu has unknown access %u", i, access);
    }
    if (b->limits.size_max == 0 || b->limits.size_min > b->limits.size_max) {
      return malformed("binding %zu has sizes %llu..%llu", i,
                       (unsigned long long)b->limits.size_min,
                       (unsigned long long)b->limits.size_max);
    }
    if (!is_power_of_two(b->limits.alignment)) {
      return malformed("binding %zu alignment %llu is not a power of two", i,
                       (unsigned long long)b->limits.alignment);
    }
    b->ordinal = image->entries[b->entry].binding_count++;
  }
  return HRX_OK;
}

static hrx_status_t parse_relocations(hrx_npu_image_t* image,
                                      const uint8_t* r, size_t count) {
  HRX_RETURN_IF_ERROR(alloc_table(image, count, sizeof(image_relocation_t),
                                  (void**)&image->relocations));
  image->relocation_count = count;
  for (size_t i = 0; i < count; ++i, r += RELOCATION_SIZE) {
    image_relocation_t* x = &image->relocations[i];
    x->kind = (uint32_t)le(r, 4);
    x->target = (uint32_t)le(r + 4, 4);
    x->source = (uint32_t)le(r + 8, 4);
    x->target_offset = le(r + 16, 8);
    x->addend = le(r + 24, 8);
    if (le(r + 12, 4) != 0 || le(r + 32, 8) != 0 || le(r + 40, 8) != 0) {
      return malformed("relocation %zu has nonzero reserved fields", i);
    }
    if (x->target >= image->allocation_count) {
      return malformed("relocation %zu targets allocation %u of %zu", i,
                       x->target, image->allocation_count);
    }
    const image_allocation_t* target = &image->allocations[x->target];
    if (x->target_offset % 4 != 0 || x->target_offset > target->size ||
        target->size - x->target_offset < 8) {
      return malformed("relocation %zu patches offset %llu of a %llu-byte "
                       "allocation",
                       i, (unsigned long long)x->target_offset,
                       (unsigned long long)target->size);
    }
    uint32_t source_entry = 0;
    if (x->kind == RELOCATION_KIND_ALLOCATION &&
        x->source < image->allocation_count) {
      source_entry = image->allocations[x->source].entry;
    } else if (x->kind == RELOCATION_KIND_BINDING &&
               x->source < image->binding_count) {
      source_entry = image->bindings[x->source].entry;
    } else {
      return malformed("relocation %zu has kind %u and source %u", i,
                       x->kind, x->source);
    }
    if (source_entry != target->entry) {
      return malformed("relocation %zu crosses from entry %u to entry %u", i,
                       source_entry, target->entry);
    }
  }
  return HRX_OK;
}

static hrx_status_t parse_invocations(hrx_npu_image_t* image,
                                      const uint8_t* r, size_t count) {
  for (size_t i = 0; i < count; ++i, r += INVOCATION_SIZE) {
    uint32_t entry = (uint32_t)le(r, 4);
    if (entry >= image->entry_count || le(r + 12, 4) != 0) {
      return malformed("invocation %zu names entry %u of %zu or has "
                       "reserved bits",
                       i, entry, image->entry_count);
    }
    image_entry_t* e = &image->entries[entry];
    e->command_offset = (uint32_t)le(r + 4, 4);
    e->command_length = (uint32_t)le(r + 8, 4);
    uint64_t size = image->allocations[e->command].size;
    if ((uint64_t)e->command_offset + e->command_length > size) {
      return malformed("invocation %zu runs past its %llu-byte COMMAND "
                       "allocation",
                       i, (unsigned long long)size);
    }
    ++e->invocation_count;
  }
  for (size_t i = 0; i < image->entry_count; ++i) {
    if (image->entries[i].invocation_count != 1) {
      return malformed("entry '%s' has %zu invocations, not 1",
                       image->entries[i].name,
                       image->entries[i].invocation_count);
    }
  }
  return HRX_OK;
}

static hrx_status_t parse_loads(hrx_npu_image_t* image, size_t size,
                                uint64_t phoff, size_t phnum) {
  image->load_count = phnum - 1;
  HRX_RETURN_IF_ERROR(alloc_table(image, image->load_count,
                                  sizeof(image_load_t),
                                  (void**)&image->loads));
  for (size_t i = 1; i < phnum; ++i) {
    const uint8_t* ph = image->bytes + phoff + i * ELF_PHDR_SIZE;
    image_load_t* l = &image->loads[i - 1];
    uint64_t memsz = le(ph + 20, 4);
    l->allocation = (uint32_t)le(ph + 12, 4);
    l->offset = le(ph + 8, 4);
    l->file_offset = le(ph + 4, 4);
    l->file_size = le(ph + 16, 4);
    if (le(ph, 4) != ELF_PT_LOAD) {
      return malformed("program header %zu has type 0x%x, not PT_LOAD", i,
                       (unsigned)le(ph, 4));
    }
    if (l->file_offset + l->file_size > size || l->file_size > memsz) {
      return malformed("program header %zu: %llu file bytes at %llu do not "
                       "fit the file or its %llu memory bytes",
                       i, (unsigned long long)l->file_size,
                       (unsigned long long)l->file_offset,
                       (unsigned long long)memsz);
    }
    if (l->allocation >= image->allocation_count) {
      return malformed("program header %zu loads allocation %u of %zu", i,
                       l->allocation, image->allocation_count);
    }
    if (l->offset + memsz > image->allocations[l->allocation].size) {
      return malformed("program header %zu runs past allocation %u", i,
                       l->allocation);
    }
  }
  return HRX_OK;
}

/* Copies the loaded bytes of |allocation| that fall in [offset, offset +
 * length) to |out|, which the caller zeroed. */
static void copy_loaded(const hrx_npu_image_t* image, uint32_t allocation,
                        uint64_t offset, uint64_t length, uint8_t* out) {
  for (size_t i = 0; i < image->load_count; ++i) {
    const image_load_t* l = &image->loads[i];
    if (l->allocation != allocation) continue;
    uint64_t start = l->offset > offset ? l->offset : offset;
    uint64_t end = l->offset + l->file_size;
    if (end > offset + length) end = offset + length;
    if (start >= end) continue;
    memcpy(out + (start - offset),
           image->bytes + l->file_offset + (start - l->offset),
           (size_t)(end - start));
  }
}

/* Checks an entry's transaction |stream| (its invocation's range). */
static hrx_status_t check_command(const image_entry_t* e,
                                  const uint8_t* stream) {
  hrx_npu_txn_info_t info = HRX_STRUCT_INIT(hrx_npu_txn_info_t);
  HRX_RETURN_IF_ERROR(hrx_status_annotate(
      hrx_npu_txn_check(stream, e->command_length, &info),
      "entry '%s'", e->name));
  if (info.columns != e->columns) {
    return malformed("entry '%s' has %u columns, its transaction %u",
                     e->name, e->columns, info.columns);
  }
  return HRX_OK;
}

static hrx_status_t check_commands(hrx_npu_image_t* image) {
  for (size_t i = 0; i < image->entry_count; ++i) {
    const image_entry_t* e = &image->entries[i];
    void* buffer = NULL;
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc(
        image->allocator, e->command_length, &buffer));
    copy_loaded(image, (uint32_t)e->command, e->command_offset,
                e->command_length, buffer);
    hrx_status_t status = check_command(e, buffer);
    hrx_allocator_free(image->allocator, buffer);
    HRX_RETURN_IF_ERROR(status);
  }
  return HRX_OK;
}

static hrx_status_t parse_image(hrx_npu_image_t* image, size_t size) {
  uint64_t meta_offset = 0, meta_size = 0, phoff = 0;
  size_t phnum = 0;
  HRX_RETURN_IF_ERROR(
      parse_elf(image, size, &meta_offset, &meta_size, &phnum, &phoff));
  const uint8_t* meta = image->bytes + meta_offset;
  if (meta_size < META_HEADER_SIZE || memcmp(meta, "XDNA", 4) != 0) {
    return malformed("the metadata does not start with an XDNA header");
  }
  if (le(meta + 4, 4) != HRX_NPU_IMAGE_VERSION) {
    return malformed("metadata version %u, want %d", (unsigned)le(meta + 4, 4),
                     HRX_NPU_IMAGE_VERSION);
  }
  char profile[META_NAME_SIZE];
  if (!read_name(meta + 8, profile) || strcmp(profile, HRX_NPU_PROFILE)) {
    return malformed("the image is not for profile %s", HRX_NPU_PROFILE);
  }
  if (!read_name(meta + 40, image->firmware_abi)) {
    return malformed("the firmware ABI id is empty or unterminated");
  }
  const uint8_t* records[META_TABLES];
  size_t counts[META_TABLES];
  static const char* const kNames[META_TABLES] = {
      "allocations", "entries", "bindings", "relocations", "invocations"};
  static const size_t kSizes[META_TABLES] = {
      ALLOCATION_SIZE, ENTRY_SIZE, BINDING_SIZE, RELOCATION_SIZE,
      INVOCATION_SIZE};
  for (int i = 0; i < META_TABLES; ++i) {
    HRX_RETURN_IF_ERROR(table(meta, meta_size, i, kNames[i], kSizes[i],
                              i == 1 ? MAX_ENTRIES : MAX_RECORDS, &counts[i],
                              &records[i]));
  }
  HRX_RETURN_IF_ERROR(parse_entries(image, records[1], counts[1]));
  HRX_RETURN_IF_ERROR(parse_allocations(image, records[0], counts[0]));
  HRX_RETURN_IF_ERROR(parse_bindings(image, records[2], counts[2]));
  HRX_RETURN_IF_ERROR(parse_relocations(image, records[3], counts[3]));
  HRX_RETURN_IF_ERROR(parse_invocations(image, records[4], counts[4]));
  HRX_RETURN_IF_ERROR(parse_loads(image, size, phoff, phnum));
  return check_commands(image);
}

hrx_status_t hrx_npu_image_parse(const void* data, size_t size,
                                 hrx_allocator_t allocator,
                                 hrx_npu_image_t** out_image) {
  *out_image = NULL;
  hrx_npu_image_t* image = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*image), (void**)&image));
  image->allocator = allocator;
  hrx_status_t status = hrx_allocator_malloc_uninitialized(
      allocator, size, (void**)&image->bytes);
  if (status == HRX_OK) {
    if (size) memcpy(image->bytes, data, size);
    status = hrx_status_annotate(parse_image(image, size),
                                 "parsing a .xdna image");
  }
  if (status != HRX_OK) {
    hrx_npu_image_destroy(image);
    return status;
  }
  *out_image = image;
  return HRX_OK;
}

void hrx_npu_image_destroy(hrx_npu_image_t* image) {
  if (!image) return;
  hrx_allocator_t allocator = image->allocator;
  hrx_allocator_free(allocator, image->bytes);
  hrx_allocator_free(allocator, image->allocations);
  hrx_allocator_free(allocator, image->entries);
  hrx_allocator_free(allocator, image->bindings);
  hrx_allocator_free(allocator, image->relocations);
  hrx_allocator_free(allocator, image->loads);
  hrx_allocator_free(allocator, image);
}

const char* hrx_npu_image_firmware_abi(const hrx_npu_image_t* image) {
  return image->firmware_abi;
}

size_t hrx_npu_image_entry_count(const hrx_npu_image_t* image) {
  return image->entry_count;
}

hrx_status_t hrx_npu_image_find_entry(const hrx_npu_image_t* image,
                                      const char* name, size_t* out_entry) {
  for (size_t i = 0; i < image->entry_count; ++i) {
    if (!strcmp(image->entries[i].name, name)) {
      *out_entry = i;
      return HRX_OK;
    }
  }
  return hrx_make_status(HRX_STATUS_NOT_FOUND, "the image has no entry '%s'",
                         name);
}

void hrx_npu_image_entry(const hrx_npu_image_t* image, size_t entry,
                         hrx_npu_image_entry_t* out_entry) {
  const image_entry_t* e = &image->entries[entry];
  *out_entry = (hrx_npu_image_entry_t){
      .name = e->name,
      .columns = e->columns,
      .allocation_count = e->allocation_count,
      .binding_count = e->binding_count,
      .command_allocation = image->allocations[e->command].ordinal,
      .command_offset = e->command_offset,
      .command_length = e->command_length,
  };
}

void hrx_npu_image_allocation(const hrx_npu_image_t* image, size_t entry,
                              size_t index, hrx_npu_image_allocation_t* out) {
  for (size_t i = 0; i < image->allocation_count; ++i) {
    const image_allocation_t* a = &image->allocations[i];
    if (a->entry == entry && a->ordinal == index) {
      *out = (hrx_npu_image_allocation_t){
          .kind = (hrx_npu_allocation_kind_t)a->kind, .size = a->size};
      return;
    }
  }
}

void hrx_npu_image_binding(const hrx_npu_image_t* image, size_t entry,
                           size_t index, hrx_npu_image_binding_t* out) {
  for (size_t i = 0; i < image->binding_count; ++i) {
    const image_binding_t* b = &image->bindings[i];
    if (b->entry == entry && b->ordinal == index) {
      *out = b->limits;
      return;
    }
  }
}

static hrx_status_t check_bound(const image_binding_t* b,
                                const hrx_npu_image_bound_t* bound) {
  const hrx_npu_image_binding_t* l = &b->limits;
  if (bound->size < l->size_min || bound->size > l->size_max) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "binding %zu: %llu bytes, the entry takes "
                           "%llu..%llu",
                           b->ordinal, (unsigned long long)bound->size,
                           (unsigned long long)l->size_min,
                           (unsigned long long)l->size_max);
  }
  if (bound->offset > l->offset_max) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "binding %zu: offset %llu is past the limit %llu",
                           b->ordinal, (unsigned long long)bound->offset,
                           (unsigned long long)l->offset_max);
  }
  if (bound->address % l->alignment != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "binding %zu: address 0x%llx is not %llu-aligned",
                           b->ordinal, (unsigned long long)bound->address,
                           (unsigned long long)l->alignment);
  }
  return HRX_OK;
}

/* The address relocation |x| patches in, checked against the formula's
 * limits. */
static hrx_status_t relocation_value(const hrx_npu_image_t* image,
                                     const image_relocation_t* x,
                                     const hrx_npu_image_target_t* targets,
                                     const hrx_npu_image_bound_t* bounds,
                                     uint64_t* out_value) {
  uint64_t base =
      x->kind == RELOCATION_KIND_ALLOCATION
          ? targets[image->allocations[x->source].ordinal].address
          : bounds[image->bindings[x->source].ordinal].address;
  uint64_t value = base + x->addend;
  if (value < base || value >= DMA_ADDRESS_LIMIT || value % 4 != 0) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "relocation to 0x%llx + %llu is not a 4-aligned "
                           "48-bit address",
                           (unsigned long long)base,
                           (unsigned long long)x->addend);
  }
  *out_value = value;
  return HRX_OK;
}

static void patch(uint8_t* at, uint64_t value) {
  uint32_t low = (uint32_t)le(at, 4);
  uint32_t high = (uint32_t)le(at + 4, 4);
  low = (low & 3u) | ((uint32_t)value & ~3u);
  high = (high & 0xFFFF0000u) | (uint32_t)(value >> 32);
  uint8_t* cursor = at;
  hrx_put_le(&cursor, low, 4);
  hrx_put_le(&cursor, high, 4);
}

hrx_status_t hrx_npu_image_load(const hrx_npu_image_t* image, size_t entry,
                                const hrx_npu_image_target_t* targets,
                                size_t target_count,
                                const hrx_npu_image_bound_t* bounds,
                                size_t bound_count) {
  const image_entry_t* e = &image->entries[entry];
  if (target_count != e->allocation_count ||
      bound_count != e->binding_count) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "entry '%s' takes %zu allocations and %zu "
                           "bindings, got %zu and %zu",
                           e->name, e->allocation_count, e->binding_count,
                           target_count, bound_count);
  }
  for (size_t i = 0; i < image->allocation_count; ++i) {
    const image_allocation_t* a = &image->allocations[i];
    if (a->entry != entry) continue;
    const hrx_npu_image_target_t* t = &targets[a->ordinal];
    if (!t->host || t->size < a->size) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "allocation %zu of entry '%s' needs %llu bytes",
                             a->ordinal, e->name,
                             (unsigned long long)a->size);
    }
  }
  for (size_t i = 0; i < image->binding_count; ++i) {
    if (image->bindings[i].entry != entry) continue;
    HRX_RETURN_IF_ERROR(
        check_bound(&image->bindings[i], &bounds[image->bindings[i].ordinal]));
  }
  /* Every relocation is checked before the first byte is written, so a
   * refused load leaves the caller's memory as it was. */
  for (size_t i = 0; i < image->relocation_count; ++i) {
    const image_relocation_t* x = &image->relocations[i];
    if (image->allocations[x->target].entry != entry) continue;
    uint64_t value = 0;
    HRX_RETURN_IF_ERROR(relocation_value(image, x, targets, bounds, &value));
  }
  for (size_t i = 0; i < image->allocation_count; ++i) {
    const image_allocation_t* a = &image->allocations[i];
    if (a->entry != entry) continue;
    uint8_t* host = targets[a->ordinal].host;
    memset(host, 0, (size_t)a->size);
    copy_loaded(image, (uint32_t)i, 0, a->size, host);
  }
  for (size_t i = 0; i < image->relocation_count; ++i) {
    const image_relocation_t* x = &image->relocations[i];
    const image_allocation_t* target = &image->allocations[x->target];
    if (target->entry != entry) continue;
    uint64_t value = 0;
    HRX_RETURN_IF_ERROR(relocation_value(image, x, targets, bounds, &value));
    patch((uint8_t*)targets[target->ordinal].host + x->target_offset, value);
  }
  return hrx_status_annotate(
      check_command(e, (const uint8_t*)targets[image->allocations[e->command]
                                                   .ordinal]
                               .host +
                           e->command_offset),
      "after relocation");
}
