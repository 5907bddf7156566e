/* AMDGPU object checks and the HRX launch table (see amdgpu_elf.h). */
#include "amdgpu_elf.h"

#include <string.h>

#include "hrx/core/bytes.h"
#include "hrx/loom/compiler.h"
#include "le_append.h"

enum {
  LOOM_ELF_HEADER_SIZE = 64,
  LOOM_ELF_SECTION_SIZE = 64,
  LOOM_ELF_OSABI_AMDGPU_HSA = 64,
  LOOM_ELF_REL = 1,
  LOOM_ELF_MACHINE_AMDGPU = 224,
};

static const loom_amdgpu_isa_t loom_amdgpu_isas[] = {
    {.profile = "gfx1151", .cpu = "gfx1151", .e_flags = 0x4A,
     .abi_version = 3, .code_object_version = 500},
};

const loom_amdgpu_isa_t* loom_amdgpu_isa(const char* name) {
  for (size_t i = 0; name && i < sizeof(loom_amdgpu_isas) /
                                       sizeof(loom_amdgpu_isas[0]); ++i) {
    if (!strcmp(loom_amdgpu_isas[i].profile, name)) return &loom_amdgpu_isas[i];
  }
  return NULL;
}

static uint64_t loom_elf_get(const uint8_t* at, int bytes) {
  return hrx_get_le(&at, bytes);
}

static hrx_status_t loom_elf_bad(const char* what) {
  return hrx_make_status(HRX_STATUS_DATA_LOSS, "code object %s", what);
}

/* Finds section |name| in the section table; false when absent. */
static hrx_status_t loom_elf_section(const uint8_t* code, size_t length,
                                     const char* name, size_t* out_offset,
                                     size_t* out_size, bool* out_found) {
  *out_found = false;
  uint64_t table = loom_elf_get(code + 40, 8);
  uint64_t entry = loom_elf_get(code + 58, 2);
  uint64_t count = loom_elf_get(code + 60, 2);
  uint64_t names_index = loom_elf_get(code + 62, 2);
  if (entry != LOOM_ELF_SECTION_SIZE || table > length ||
      count > (length - table) / LOOM_ELF_SECTION_SIZE ||
      names_index >= count) {
    return loom_elf_bad("has a section table outside the file");
  }
  const uint8_t* sections = code + table;
  const uint8_t* names_header = sections + names_index * LOOM_ELF_SECTION_SIZE;
  uint64_t names = loom_elf_get(names_header + 24, 8);
  uint64_t names_size = loom_elf_get(names_header + 32, 8);
  if (names > length || names_size > length - names) {
    return loom_elf_bad("has section names outside the file");
  }
  size_t name_length = strlen(name);
  for (uint64_t s = 0; s < count; ++s) {
    const uint8_t* header = sections + s * LOOM_ELF_SECTION_SIZE;
    uint64_t at = loom_elf_get(header, 4);
    if (at >= names_size || names_size - at <= name_length ||
        memcmp(code + names + at, name, name_length + 1) != 0) {
      continue;
    }
    uint64_t offset = loom_elf_get(header + 24, 8);
    uint64_t size = loom_elf_get(header + 32, 8);
    if (offset > length || size > length - offset) {
      return loom_elf_bad("has a section outside the file");
    }
    *out_offset = (size_t)offset;
    *out_size = (size_t)size;
    *out_found = true;
    return HRX_OK;
  }
  return HRX_OK;
}

hrx_status_t loom_amdgpu_object_open(const uint8_t* code, size_t length,
                                     const loom_amdgpu_isa_t* isa,
                                     loom_launch_table_t* out_table) {
  memset(out_table, 0, sizeof(*out_table));
  if (length < LOOM_ELF_HEADER_SIZE || memcmp(code, "\177ELF", 4) != 0) {
    return loom_elf_bad("is not an ELF file");
  }
  if (code[4] != 2 || code[5] != 1) {
    return loom_elf_bad("is not a little-endian ELF64 file");
  }
  if (code[7] != LOOM_ELF_OSABI_AMDGPU_HSA || code[8] != isa->abi_version) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "code object has OS/ABI %u version %u, expected "
                           "AMDGPU HSA version %u", code[7], code[8],
                           isa->abi_version);
  }
  uint64_t type = loom_elf_get(code + 16, 2);
  uint64_t machine = loom_elf_get(code + 18, 2);
  uint64_t flags = loom_elf_get(code + 48, 4);
  if (type != LOOM_ELF_REL || machine != LOOM_ELF_MACHINE_AMDGPU) {
    return loom_elf_bad("is not a relocatable AMDGPU object");
  }
  if (flags != isa->e_flags) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "code object has e_flags 0x%x, expected 0x%x (%s)",
                           (unsigned)flags, isa->e_flags, isa->cpu);
  }
  size_t offset = 0, size = 0;
  bool found = false;
  HRX_RETURN_IF_ERROR(loom_elf_section(code, length, HRX_LOOM_LAUNCH_SECTION,
                                       &offset, &size, &found));
  if (!found || size < 12 ||
      memcmp(code + offset, HRX_LOOM_LAUNCH_TABLE_MAGIC, 4) != 0 ||
      loom_elf_get(code + offset + 4, 4) != HRX_LOOM_LAUNCH_TABLE_VERSION) {
    return loom_elf_bad("has no version 1 HRX launch table");
  }
  *out_table = (loom_launch_table_t){
      .code = code, .at = offset + 12, .end = offset + size,
      .remaining = (uint32_t)loom_elf_get(code + offset + 8, 4)};
  return HRX_OK;
}

hrx_status_t loom_launch_table_next(loom_launch_table_t* t,
                                    loom_launch_entry_t* out) {
  size_t left = t->end - t->at;
  if (!t->remaining || left < 4) return loom_elf_bad("launch table ends early");
  size_t name_length = (size_t)loom_elf_get(t->code + t->at, 4);
  if (name_length > left - 4 || left - 4 - name_length < 4) {
    return loom_elf_bad("launch table ends early");
  }
  out->name = (const char*)t->code + t->at + 4;
  out->name_length = name_length;
  size_t at = t->at + 4 + name_length;
  out->launch_length = (size_t)loom_elf_get(t->code + at, 4);
  out->launch_offset = at + 4;
  if (out->launch_length > t->end - out->launch_offset) {
    return loom_elf_bad("launch table ends early");
  }
  t->at = out->launch_offset + out->launch_length;
  t->remaining--;
  return HRX_OK;
}

hrx_status_t loom_launch_table_begin(hrx_string_builder_t* out,
                                     uint32_t count) {
  HRX_RETURN_IF_ERROR(
      hrx_string_builder_append(out, HRX_LOOM_LAUNCH_TABLE_MAGIC, 4));
  HRX_RETURN_IF_ERROR(loom_append_le(out, HRX_LOOM_LAUNCH_TABLE_VERSION, 4));
  return loom_append_le(out, count, 4);
}

hrx_status_t loom_launch_table_add(hrx_string_builder_t* out,
                                   const char* name, const uint8_t* launch,
                                   size_t launch_length) {
  HRX_RETURN_IF_ERROR(loom_append_le(out, strlen(name), 4));
  HRX_RETURN_IF_ERROR(hrx_string_builder_append(out, name, strlen(name)));
  HRX_RETURN_IF_ERROR(loom_append_le(out, launch_length, 4));
  return hrx_string_builder_append(out, launch, launch_length);
}
