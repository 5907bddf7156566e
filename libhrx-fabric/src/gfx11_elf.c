/* Places an ET_REL amdgpu object (what the backend emits before linking)
 * into memory for the gfx11 model: every SHF_ALLOC section at its own
 * alignment in one block, then R_AMDGPU relocations applied against the
 * placed addresses. */
#include <string.h>

#include "gfx11.h"
#include "hrx/core/bytes.h"

enum {
  ELF_HEADER_SIZE = 64,
  ELF_SECTION_SIZE = 64,
  ELF_SYMBOL_SIZE = 24,
  ELF_RELA_SIZE = 24,
  ELF_REL = 1,
  ELF_MACHINE_AMDGPU = 224,
  SHT_SYMTAB = 2,
  SHT_RELA = 4,
  SHT_NOBITS = 8,
  SHT_REL = 9,
  SHF_ALLOC = 2,
  R_AMDGPU_ABS64 = 3,
  R_AMDGPU_REL64 = 5,
  R_AMDGPU_REL32_LO = 10,
  R_AMDGPU_REL32_HI = 11,
  /* The block's own alignment: the largest any section asks for (.text). */
  IMAGE_ALIGNMENT = 256,
};

struct hrx_gfx11_image_t {
  hrx_allocator_t allocator;
  uint8_t* object;     /* a copy, for the symbol table at lookup time */
  uint8_t* block;      /* allocation; base is block aligned up */
  uint64_t base;
  uint64_t size;
  uint64_t* placed;    /* per section: its address, 0 when not placed */
  uint32_t section_count;
};

static uint64_t get(const uint8_t* at, int bytes) {
  return hrx_get_le(&at, bytes);
}

static hrx_status_t bad(const char* what) {
  return hrx_make_status(HRX_STATUS_DATA_LOSS, "gfx11 object %s", what);
}

static const uint8_t* section(const hrx_gfx11_image_t* image, uint32_t i) {
  uint64_t table = get(image->object + 40, 8);
  return image->object + table + (uint64_t)i * ELF_SECTION_SIZE;
}

/* Checks the header and that every section's bytes lie inside the file. */
static hrx_status_t check_object(const uint8_t* object, size_t length) {
  if (length < ELF_HEADER_SIZE || memcmp(object, "\x7f" "ELF", 4) ||
      object[4] != 2 || object[5] != 1) {
    return bad("is not a little-endian ELF64 file");
  }
  if (get(object + 16, 2) != ELF_REL ||
      get(object + 18, 2) != ELF_MACHINE_AMDGPU) {
    return bad("is not an amdgpu ET_REL object");
  }
  uint64_t table = get(object + 40, 8);
  uint64_t count = get(object + 60, 2);
  if (get(object + 58, 2) != ELF_SECTION_SIZE || table > length ||
      count > (length - table) / ELF_SECTION_SIZE) {
    return bad("has a section table outside the file");
  }
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t* s = object + table + i * ELF_SECTION_SIZE;
    uint64_t offset = get(s + 24, 8), size = get(s + 32, 8);
    if (get(s + 4, 4) != SHT_NOBITS &&
        (offset > length || size > length - offset)) {
      return bad("has a section outside the file");
    }
    uint64_t align = get(s + 48, 8);
    if (align > IMAGE_ALIGNMENT || (align & (align - 1))) {
      return bad("asks for an unsupported section alignment");
    }
  }
  return HRX_OK;
}

static hrx_status_t place_sections(hrx_gfx11_image_t* image) {
  uint64_t size = 0;
  for (uint32_t i = 0; i < image->section_count; ++i) {
    const uint8_t* s = section(image, i);
    if (!(get(s + 8, 8) & SHF_ALLOC)) continue;
    uint64_t align = get(s + 48, 8) ? get(s + 48, 8) : 1;
    size = (size + align - 1) & ~(align - 1);
    image->placed[i] = size;  /* an offset until the block exists */
    size += get(s + 32, 8);
  }
  image->size = size ? size : 1;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(
      image->allocator, image->size + IMAGE_ALIGNMENT - 1,
      (void**)&image->block));
  image->base = ((uint64_t)(uintptr_t)image->block + IMAGE_ALIGNMENT - 1) &
                ~(uint64_t)(IMAGE_ALIGNMENT - 1);
  for (uint32_t i = 0; i < image->section_count; ++i) {
    const uint8_t* s = section(image, i);
    if (!(get(s + 8, 8) & SHF_ALLOC)) continue;
    image->placed[i] += image->base;
    /* NOBITS sections stay zero, as the allocation is zeroed. */
    if (get(s + 4, 4) != SHT_NOBITS) {
      memcpy((void*)(uintptr_t)image->placed[i],
             image->object + get(s + 24, 8), get(s + 32, 8));
    }
  }
  return HRX_OK;
}

/* The placed address of symbol |index| of symbol table section |symtab|. */
static hrx_status_t symbol_address(const hrx_gfx11_image_t* image,
                                   const uint8_t* symtab, uint64_t index,
                                   uint64_t* out_address) {
  uint64_t offset = get(symtab + 24, 8), size = get(symtab + 32, 8);
  if (index >= size / ELF_SYMBOL_SIZE) return bad("names a missing symbol");
  const uint8_t* sym = image->object + offset + index * ELF_SYMBOL_SIZE;
  uint64_t shndx = get(sym + 6, 2);
  if (shndx == 0 || shndx >= image->section_count || !image->placed[shndx]) {
    return bad("relocates against an undefined or unplaced symbol");
  }
  *out_address = image->placed[shndx] + get(sym + 8, 8);
  return HRX_OK;
}

static hrx_status_t apply_rela(hrx_gfx11_image_t* image, const uint8_t* rela) {
  uint32_t target = (uint32_t)get(rela + 44, 4);
  uint32_t link = (uint32_t)get(rela + 40, 4);
  if (target >= image->section_count || link >= image->section_count) {
    return bad("has a relocation section with bad links");
  }
  if (!image->placed[target]) return HRX_OK;  /* e.g. debug sections */
  const uint8_t* symtab = section(image, link);
  if (get(symtab + 4, 4) != SHT_SYMTAB) return bad("relocates without symtab");
  uint64_t target_size = get(section(image, target) + 32, 8);
  const uint8_t* entries = image->object + get(rela + 24, 8);
  uint64_t count = get(rela + 32, 8) / ELF_RELA_SIZE;
  for (uint64_t r = 0; r < count; ++r) {
    const uint8_t* e = entries + r * ELF_RELA_SIZE;
    uint64_t offset = get(e, 8), info = get(e + 8, 8);
    int64_t addend = (int64_t)get(e + 16, 8);
    uint64_t s = 0;
    HRX_RETURN_IF_ERROR(symbol_address(image, symtab, info >> 32, &s));
    uint64_t p = image->placed[target] + offset;
    uint64_t value;
    int width;
    switch ((uint32_t)info) {
      case R_AMDGPU_ABS64: value = s + addend; width = 8; break;
      case R_AMDGPU_REL64: value = s + addend - p; width = 8; break;
      case R_AMDGPU_REL32_LO:
        value = (uint32_t)(s + addend - p);
        width = 4;
        break;
      case R_AMDGPU_REL32_HI:
        value = (s + addend - p) >> 32;
        width = 4;
        break;
      default:
        return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                               "gfx11 object relocation type %u",
                               (uint32_t)info);
    }
    if (offset > target_size || (uint64_t)width > target_size - offset) {
      return bad("relocates outside its section");
    }
    uint8_t* at = (uint8_t*)(uintptr_t)p;
    hrx_put_le(&at, value, width);
  }
  return HRX_OK;
}

static hrx_status_t load(hrx_gfx11_image_t* image) {
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      image->allocator, image->section_count ? image->section_count : 1,
      sizeof(uint64_t), (void**)&image->placed));
  HRX_RETURN_IF_ERROR(place_sections(image));
  for (uint32_t i = 0; i < image->section_count; ++i) {
    const uint8_t* s = section(image, i);
    if (get(s + 4, 4) == SHT_REL) return bad("has REL (not RELA) entries");
    if (get(s + 4, 4) == SHT_RELA) HRX_RETURN_IF_ERROR(apply_rela(image, s));
  }
  return HRX_OK;
}

hrx_status_t hrx_gfx11_image_load(const uint8_t* object, size_t length,
                                  hrx_allocator_t allocator,
                                  hrx_gfx11_image_t** out_image) {
  *out_image = NULL;
  HRX_RETURN_IF_ERROR(check_object(object, length));
  hrx_gfx11_image_t* image = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*image), (void**)&image));
  image->allocator = allocator;
  image->section_count = (uint32_t)get(object + 60, 2);
  hrx_status_t status =
      hrx_allocator_malloc(allocator, length, (void**)&image->object);
  if (status == HRX_OK) {
    memcpy(image->object, object, length);
    status = load(image);
  }
  if (status != HRX_OK) {
    hrx_gfx11_image_destroy(image);
    return status;
  }
  *out_image = image;
  return HRX_OK;
}

void hrx_gfx11_image_destroy(hrx_gfx11_image_t* image) {
  if (!image) return;
  hrx_allocator_free(image->allocator, image->block);
  hrx_allocator_free(image->allocator, image->placed);
  hrx_allocator_free(image->allocator, image->object);
  hrx_allocator_free(image->allocator, image);
}

hrx_gfx11_range_t hrx_gfx11_image_range(const hrx_gfx11_image_t* image) {
  return (hrx_gfx11_range_t){image->base, image->size};
}

hrx_status_t hrx_gfx11_image_kernel(const hrx_gfx11_image_t* image,
                                    const char* name,
                                    uint64_t* out_descriptor) {
  size_t name_length = strlen(name);
  for (uint32_t i = 0; i < image->section_count; ++i) {
    const uint8_t* symtab = section(image, i);
    if (get(symtab + 4, 4) != SHT_SYMTAB) continue;
    uint32_t link = (uint32_t)get(symtab + 40, 4);
    if (link >= image->section_count) return bad("has a bad string table");
    const uint8_t* strtab = section(image, link);
    uint64_t names = get(strtab + 24, 8), names_size = get(strtab + 32, 8);
    uint64_t count = get(symtab + 32, 8) / ELF_SYMBOL_SIZE;
    for (uint64_t k = 0; k < count; ++k) {
      const uint8_t* sym =
          image->object + get(symtab + 24, 8) + k * ELF_SYMBOL_SIZE;
      uint64_t at = get(sym, 4);
      if (at >= names_size || names_size - at < name_length + 4) continue;
      const char* sym_name = (const char*)image->object + names + at;
      if (memcmp(sym_name, name, name_length) ||
          memcmp(sym_name + name_length, ".kd", 4)) {
        continue;
      }
      return symbol_address(image, symtab, k, out_descriptor);
    }
  }
  return hrx_make_status(HRX_STATUS_NOT_FOUND,
                         "gfx11 object has no kernel '%s'", name);
}
