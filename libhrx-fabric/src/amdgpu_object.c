/* AMDGPU code objects: parse, validate, place (see amdgpu_object.h).
 *
 * Parsing turns the file into three things the placement needs and nothing
 * else: chunks (byte ranges of the file copied to image offsets, with zero
 * fill after them), relocations normalised to image offsets, and the
 * kernels of the metadata note. Placement then never looks at ELF
 * structures again, and the descriptor checks read the image through the
 * same chunks and relocations without allocating it. */
#include "amdgpu_object.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu_msgpack.h"
#include "hrx/core/bytes.h"

enum {
  ELF_HEADER_SIZE = 64,
  ELF_SECTION_SIZE = 64,
  ELF_SEGMENT_SIZE = 56,
  ELF_SYMBOL_SIZE = 24,
  ELF_RELA_SIZE = 24,
  ELF_OSABI_AMDGPU_HSA = 64,
  ELF_ABI_VERSION_V4 = 2,
  ELF_ABI_VERSION_V6 = 4,
  ET_REL = 1,
  ET_DYN = 3,
  EM_AMDGPU = 224,
  EF_AMDGPU_MACH = 0xff,
  EF_AMDGPU_MACH_GFX1151 = 0x4a,
  EF_AMDGPU_MACH_GFX11_GENERIC = 0x54,
  EF_AMDGPU_GENERIC_VERSION_SHIFT = 24,
  SHN_UNDEF = 0,
  SHN_LORESERVE = 0xff00,
  SHN_ABS = 0xfff1,
  SHN_XINDEX = 0xffff,
  PN_XNUM = 0xffff,
  SHT_SYMTAB = 2,
  SHT_STRTAB = 3,
  SHT_RELA = 4,
  SHT_NOTE = 7,
  SHT_NOBITS = 8,
  SHT_REL = 9,
  SHT_DYNSYM = 11,
  SHF_ALLOC = 0x2,
  SHF_EXECINSTR = 0x4,
  PT_LOAD = 1,
  PF_X = 1,
  NT_AMDGPU_METADATA = 32,
  R_AMDGPU_NONE = 0,
  R_AMDGPU_ABS32_LO = 1,
  R_AMDGPU_ABS32_HI = 2,
  R_AMDGPU_ABS64 = 3,
  R_AMDGPU_REL32 = 4,
  R_AMDGPU_REL64 = 5,
  R_AMDGPU_ABS32 = 6,
  R_AMDGPU_REL32_LO = 10,
  R_AMDGPU_REL32_HI = 11,
  R_AMDGPU_RELATIVE64 = 13,
  KD_SIZE = 64,
  KD_ALIGNMENT = 64,
  KD_WAVEFRONT_SIZE32 = 1 << 10,  /* kernel_code_properties bit */
  ENTRY_ALIGNMENT = 256,
  MIN_IMAGE_ALIGNMENT = 256,
  /* Larger alignments than a 64 KiB page would only waste device memory
   * and are what a corrupt header looks like. */
  MAX_ALIGNMENT = 1 << 16,
  MAX_NAME_LENGTH = 1024,
  MAX_WORKGROUP_SIZE = 1024,
};

/* The placed image is bounded so a hostile size cannot ask for the moon. */
#define MAX_IMAGE_SIZE ((uint64_t)1 << 30)
#define UNPLACED UINT64_MAX

/* File bytes [file_offset, +file_size) land at image_offset, followed by
 * zeros up to memory_size. */
typedef struct amdgpu_chunk_t {
  uint64_t image_offset;
  uint64_t file_offset;
  uint64_t file_size;
  uint64_t memory_size;
  bool executable;
} amdgpu_chunk_t;

/* A relocation against the image: S is |symbol| plus the load address, or
 * |symbol| alone when |absolute| (SHN_ABS symbols). */
typedef struct amdgpu_reloc_t {
  uint64_t offset;
  uint64_t symbol;
  int64_t addend;
  uint32_t type;
  bool absolute;
} amdgpu_reloc_t;

struct hrx_amdgpu_object_t {
  hrx_allocator_t allocator;
  uint8_t* bytes;
  size_t length;
  const char* target;
  uint64_t image_size;
  uint64_t image_alignment;
  amdgpu_chunk_t* chunks;
  size_t chunk_count;
  amdgpu_reloc_t* relocs;
  size_t reloc_count;
  hrx_amdgpu_kernel_t* kernels;
  size_t kernel_count;
};

/* State that only parsing needs. */
typedef struct amdgpu_parse_t {
  hrx_amdgpu_object_t* object;
  const uint8_t* data;
  size_t length;
  uint32_t type;              /* ET_REL or ET_DYN */
  uint64_t section_table;
  uint32_t section_count;
  uint32_t names_index;       /* e_shstrndx */
  uint64_t segment_table;
  uint32_t segment_count;
  uint64_t* section_image;    /* ET_REL: image offset or UNPLACED */
  uint64_t base_vaddr;        /* ET_DYN: the vaddr at image offset 0 */
} amdgpu_parse_t;

typedef struct amdgpu_section_t {
  uint32_t name, type, link, info;
  uint64_t flags, offset, size, align, entsize;
} amdgpu_section_t;

typedef struct amdgpu_symbol_t {
  uint32_t name;
  uint16_t shndx;
  uint64_t value;
} amdgpu_symbol_t;

static hrx_status_t amdgpu_fail(hrx_status_code_t code, const char* format,
                                ...) HRX_PRINTF(2, 3);
static hrx_status_t amdgpu_fail(hrx_status_code_t code, const char* format,
                                ...) {
  char text[320];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  return hrx_make_status(code, "code object: %s", text);
}

#define AMDGPU_BAD(...) amdgpu_fail(HRX_STATUS_DATA_LOSS, __VA_ARGS__)

static uint64_t amdgpu_get(const uint8_t* at, int bytes) {
  return hrx_get_le(&at, bytes);
}

static bool amdgpu_inside(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

static bool amdgpu_power_of_two(uint64_t value) {
  return value && !(value & (value - 1));
}

/*===------------------------------------------------------------------===*/
/* ELF tables                                                              */
/*===------------------------------------------------------------------===*/

static amdgpu_section_t amdgpu_section(const amdgpu_parse_t* p,
                                       uint32_t index) {
  const uint8_t* h =
      p->data + p->section_table + (uint64_t)index * ELF_SECTION_SIZE;
  return (amdgpu_section_t){.name = (uint32_t)amdgpu_get(h, 4),
                            .type = (uint32_t)amdgpu_get(h + 4, 4),
                            .flags = amdgpu_get(h + 8, 8),
                            .offset = amdgpu_get(h + 24, 8),
                            .size = amdgpu_get(h + 32, 8),
                            .link = (uint32_t)amdgpu_get(h + 40, 4),
                            .info = (uint32_t)amdgpu_get(h + 44, 4),
                            .align = amdgpu_get(h + 48, 8),
                            .entsize = amdgpu_get(h + 56, 8)};
}

/* The NUL-terminated string at |offset| of string table |table|, or NULL
 * when it is not one or runs past the table. */
static const char* amdgpu_string(const amdgpu_parse_t* p, uint32_t table,
                                 uint64_t offset) {
  if (table == 0 || table >= p->section_count) return NULL;
  amdgpu_section_t strings = amdgpu_section(p, table);
  if (strings.type != SHT_STRTAB || offset >= strings.size) return NULL;
  const char* text = (const char*)p->data + strings.offset + offset;
  return memchr(text, '\0', strings.size - offset) ? text : NULL;
}

static const char* amdgpu_section_name(const amdgpu_parse_t* p,
                                       uint32_t index) {
  const char* name =
      amdgpu_string(p, p->names_index, amdgpu_section(p, index).name);
  return name ? name : "?";
}

static uint64_t amdgpu_symbol_count(const amdgpu_section_t* table) {
  return table->size / ELF_SYMBOL_SIZE;
}

static amdgpu_symbol_t amdgpu_symbol(const amdgpu_parse_t* p,
                                     const amdgpu_section_t* table,
                                     uint64_t index) {
  const uint8_t* s = p->data + table->offset + index * ELF_SYMBOL_SIZE;
  return (amdgpu_symbol_t){.name = (uint32_t)amdgpu_get(s, 4),
                           .shndx = (uint16_t)amdgpu_get(s + 6, 2),
                           .value = amdgpu_get(s + 8, 8)};
}

static const char* amdgpu_symbol_name(const amdgpu_parse_t* p,
                                      const amdgpu_section_t* table,
                                      const amdgpu_symbol_t* symbol) {
  const char* name = amdgpu_string(p, table->link, symbol->name);
  return name ? name : "?";
}

/*===------------------------------------------------------------------===*/
/* Header, sections, segments                                              */
/*===------------------------------------------------------------------===*/

/* EF_AMDGPU_MACH names for the messages that reject them. */
static const char* amdgpu_mach_name(uint32_t mach) {
  static const struct {
    uint32_t mach;
    const char* name;
  } names[] = {
      {0x41, "gfx1100"}, {0x46, "gfx1101"}, {0x47, "gfx1102"},
      {0x44, "gfx1103"}, {0x43, "gfx1150"}, {0x4a, "gfx1151"},
      {0x55, "gfx1152"}, {0x54, "gfx11-generic"}, {0x48, "gfx1200"},
      {0x4e, "gfx1201"}, {0x3f, "gfx90a"}, {0x4c, "gfx942"},
      {0x36, "gfx1030"}, {0x51, "gfx9-generic"}, {0x52, "gfx10-1-generic"},
      {0x53, "gfx10-3-generic"}, {0x59, "gfx12-generic"},
  };
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    if (names[i].mach == mach) return names[i].name;
  }
  return NULL;
}

static hrx_status_t amdgpu_check_target(amdgpu_parse_t* p, uint32_t flags,
                                        uint32_t abi_version) {
  uint32_t mach = flags & EF_AMDGPU_MACH;
  if (mach == EF_AMDGPU_MACH_GFX1151) {
    p->object->target = "gfx1151";
    return HRX_OK;
  }
  if (mach == EF_AMDGPU_MACH_GFX11_GENERIC) {
    /* Generic targets exist from code object v6, which also records the
     * generic version in the top byte of e_flags. */
    if (abi_version < ELF_ABI_VERSION_V6 ||
        (flags >> EF_AMDGPU_GENERIC_VERSION_SHIFT) == 0) {
      return AMDGPU_BAD("targets gfx11-generic without code object v6 and "
                        "a generic version (e_flags 0x%x, ABI version %u)",
                        flags, abi_version);
    }
    p->object->target = "gfx11-generic";
    return HRX_OK;
  }
  const char* name = amdgpu_mach_name(mach);
  if (name) {
    return amdgpu_fail(HRX_STATUS_INVALID_ARGUMENT,
                       "targets %s, not gfx1151 or gfx11-generic", name);
  }
  return amdgpu_fail(HRX_STATUS_INVALID_ARGUMENT,
                     "targets EF_AMDGPU_MACH 0x%x, not gfx1151 (0x4a) or "
                     "gfx11-generic (0x54)", mach);
}

static hrx_status_t amdgpu_check_header(amdgpu_parse_t* p) {
  const uint8_t* d = p->data;
  if (p->length < 4 || memcmp(d, "\177ELF", 4) != 0) {
    return AMDGPU_BAD("is not an ELF64 file (bad magic)");
  }
  if (p->length < ELF_HEADER_SIZE || d[4] != 2 || d[5] != 1 || d[6] != 1) {
    return AMDGPU_BAD("is not a little-endian ELF64 version 1 file");
  }
  if (d[7] != ELF_OSABI_AMDGPU_HSA || d[8] < ELF_ABI_VERSION_V4 ||
      d[8] > ELF_ABI_VERSION_V6) {
    return AMDGPU_BAD("has OS/ABI %u version %u; expected AMDGPU HSA (64) "
                      "version 2..4 (code object v4..v6)", d[7], d[8]);
  }
  p->type = (uint32_t)amdgpu_get(d + 16, 2);
  uint64_t machine = amdgpu_get(d + 18, 2);
  if (machine != EM_AMDGPU) {
    return AMDGPU_BAD("has ELF machine %u, not AMDGPU (224)",
                      (unsigned)machine);
  }
  if (p->type != ET_REL && p->type != ET_DYN) {
    return AMDGPU_BAD("has ELF type %u, neither ET_REL nor ET_DYN", p->type);
  }
  if (amdgpu_get(d + 20, 4) != 1 ||
      amdgpu_get(d + 52, 2) != ELF_HEADER_SIZE) {
    return AMDGPU_BAD("has a bad ELF version or header size");
  }
  HRX_RETURN_IF_ERROR(
      amdgpu_check_target(p, (uint32_t)amdgpu_get(d + 48, 4), d[8]));
  p->segment_table = amdgpu_get(d + 32, 8);
  p->section_table = amdgpu_get(d + 40, 8);
  p->segment_count = (uint32_t)amdgpu_get(d + 56, 2);
  p->section_count = (uint32_t)amdgpu_get(d + 60, 2);
  p->names_index = (uint32_t)amdgpu_get(d + 62, 2);
  return HRX_OK;
}

/* Entry sizes of the tables this loader reads. */
static hrx_status_t amdgpu_check_entries(const amdgpu_parse_t* p,
                                         uint32_t index,
                                         const amdgpu_section_t* s) {
  uint64_t entry = 0;
  if (s->type == SHT_SYMTAB || s->type == SHT_DYNSYM) entry = ELF_SYMBOL_SIZE;
  if (s->type == SHT_RELA) entry = ELF_RELA_SIZE;
  if (entry && (s->entsize != entry || s->size % entry)) {
    return AMDGPU_BAD("section %u ('%s') has entries of %llu bytes in %llu "
                      "bytes; expected %llu", index,
                      amdgpu_section_name(p, index),
                      (unsigned long long)s->entsize,
                      (unsigned long long)s->size,
                      (unsigned long long)entry);
  }
  bool symbols = s->type == SHT_SYMTAB || s->type == SHT_DYNSYM;
  if (symbols && (s->link == 0 || s->link >= p->section_count ||
                  amdgpu_section(p, s->link).type != SHT_STRTAB)) {
    return AMDGPU_BAD("symbol table %u ('%s') has no string table", index,
                      amdgpu_section_name(p, index));
  }
  return HRX_OK;
}

static hrx_status_t amdgpu_check_sections(amdgpu_parse_t* p) {
  if (p->section_count == 0 || p->names_index == SHN_XINDEX ||
      amdgpu_get(p->data + 58, 2) != ELF_SECTION_SIZE) {
    return AMDGPU_BAD("has no section table this loader can read");
  }
  if (!amdgpu_inside(p->section_table,
                     (uint64_t)p->section_count * ELF_SECTION_SIZE,
                     p->length)) {
    return AMDGPU_BAD("has a section table outside the file (%u entries at "
                      "%llu, file is %zu bytes)", p->section_count,
                      (unsigned long long)p->section_table, p->length);
  }
  if (p->names_index >= p->section_count ||
      (p->names_index &&
       amdgpu_section(p, p->names_index).type != SHT_STRTAB)) {
    return AMDGPU_BAD("has a bad section name table index %u",
                      p->names_index);
  }
  for (uint32_t i = 0; i < p->section_count; ++i) {
    amdgpu_section_t s = amdgpu_section(p, i);
    if (s.type != SHT_NOBITS && !amdgpu_inside(s.offset, s.size, p->length)) {
      return AMDGPU_BAD("section %u lies outside the file (%llu bytes at "
                        "%llu, file is %zu bytes)", i,
                        (unsigned long long)s.size,
                        (unsigned long long)s.offset, p->length);
    }
    if (s.align > 1 && !amdgpu_power_of_two(s.align)) {
      return AMDGPU_BAD("section %u asks for alignment %llu, not a power of "
                        "two", i, (unsigned long long)s.align);
    }
  }
  /* Names are readable only once every section is known to be inside. */
  for (uint32_t i = 0; i < p->section_count; ++i) {
    amdgpu_section_t s = amdgpu_section(p, i);
    HRX_RETURN_IF_ERROR(amdgpu_check_entries(p, i, &s));
  }
  return HRX_OK;
}

static hrx_status_t amdgpu_check_segments(amdgpu_parse_t* p) {
  if (p->segment_count == 0) return HRX_OK;
  if (p->segment_count == PN_XNUM ||
      amdgpu_get(p->data + 54, 2) != ELF_SEGMENT_SIZE ||
      !amdgpu_inside(p->segment_table,
                     (uint64_t)p->segment_count * ELF_SEGMENT_SIZE,
                     p->length)) {
    return AMDGPU_BAD("has a program header table outside the file");
  }
  for (uint32_t i = 0; i < p->segment_count; ++i) {
    const uint8_t* h =
        p->data + p->segment_table + (uint64_t)i * ELF_SEGMENT_SIZE;
    if (amdgpu_get(h, 4) != PT_LOAD) continue;
    uint64_t offset = amdgpu_get(h + 8, 8), vaddr = amdgpu_get(h + 16, 8);
    uint64_t file_size = amdgpu_get(h + 32, 8);
    uint64_t memory_size = amdgpu_get(h + 40, 8);
    uint64_t align = amdgpu_get(h + 48, 8);
    if (!amdgpu_inside(offset, file_size, p->length)) {
      return AMDGPU_BAD("segment %u lies outside the file", i);
    }
    if (file_size > memory_size || vaddr > UINT64_MAX - memory_size) {
      return AMDGPU_BAD("segment %u has inconsistent sizes", i);
    }
    if (align > MAX_ALIGNMENT || (align > 1 && !amdgpu_power_of_two(align))) {
      return AMDGPU_BAD("segment %u asks for alignment %llu (at most %d, a "
                        "power of two)", i, (unsigned long long)align,
                        MAX_ALIGNMENT);
    }
  }
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Layout                                                                  */
/*===------------------------------------------------------------------===*/

static hrx_status_t amdgpu_add_chunk(amdgpu_parse_t* p, size_t* capacity,
                                     amdgpu_chunk_t chunk) {
  hrx_amdgpu_object_t* o = p->object;
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(
      o->allocator, sizeof(*o->chunks), o->chunk_count + 1, capacity,
      (void**)&o->chunks));
  o->chunks[o->chunk_count++] = chunk;
  return HRX_OK;
}

static hrx_status_t amdgpu_check_image_size(uint64_t size) {
  if (size > MAX_IMAGE_SIZE) {
    return AMDGPU_BAD("needs an image of %llu bytes, more than 1 GiB",
                      (unsigned long long)size);
  }
  return HRX_OK;
}

/* ET_REL: every SHF_ALLOC section at its own alignment, in section order. */
static hrx_status_t amdgpu_layout_rel(amdgpu_parse_t* p) {
  hrx_amdgpu_object_t* o = p->object;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      o->allocator, p->section_count, sizeof(uint64_t),
      (void**)&p->section_image));
  size_t capacity = 0;
  uint64_t size = 0;
  for (uint32_t i = 0; i < p->section_count; ++i) {
    amdgpu_section_t s = amdgpu_section(p, i);
    p->section_image[i] = UNPLACED;
    if (!(s.flags & SHF_ALLOC) || i == 0) continue;
    uint64_t align = s.align > 1 ? s.align : 1;
    if (align > MAX_ALIGNMENT) {
      return AMDGPU_BAD("section %u ('%s') asks for alignment %llu, more "
                        "than %d", i, amdgpu_section_name(p, i),
                        (unsigned long long)align, MAX_ALIGNMENT);
    }
    if (align > o->image_alignment) o->image_alignment = align;
    size = (size + align - 1) & ~(align - 1);
    HRX_RETURN_IF_ERROR(amdgpu_check_image_size(size));
    HRX_RETURN_IF_ERROR(amdgpu_check_image_size(s.size));
    p->section_image[i] = size;
    HRX_RETURN_IF_ERROR(amdgpu_add_chunk(
        p, &capacity,
        (amdgpu_chunk_t){.image_offset = size,
                         .file_offset = s.offset,
                         .file_size = s.type == SHT_NOBITS ? 0 : s.size,
                         .memory_size = s.size,
                         .executable = (s.flags & SHF_EXECINSTR) != 0}));
    size += s.size;
    HRX_RETURN_IF_ERROR(amdgpu_check_image_size(size));
  }
  o->image_size = size;
  return HRX_OK;
}

/* ET_DYN: PT_LOAD segments at their p_vaddr, relative to the first one's
 * address rounded down to the image alignment, so that every alignment the
 * linker established between segments holds in the placed image. The ELF
 * specification has PT_LOAD entries sorted by p_vaddr; overlapping or
 * unsorted ones are refused rather than resolved by placement order. */
static hrx_status_t amdgpu_layout_dyn(amdgpu_parse_t* p) {
  hrx_amdgpu_object_t* o = p->object;
  size_t capacity = 0;
  uint64_t end = 0;
  for (uint32_t i = 0; i < p->segment_count; ++i) {
    const uint8_t* h =
        p->data + p->segment_table + (uint64_t)i * ELF_SEGMENT_SIZE;
    if (amdgpu_get(h, 4) != PT_LOAD) continue;
    uint64_t vaddr = amdgpu_get(h + 16, 8);
    uint64_t memory_size = amdgpu_get(h + 40, 8);
    uint64_t align = amdgpu_get(h + 48, 8);
    if (o->chunk_count && vaddr < end) {
      return AMDGPU_BAD("segment %u overlaps or precedes the previous "
                        "PT_LOAD segment", i);
    }
    if (align > o->image_alignment) o->image_alignment = align;
    HRX_RETURN_IF_ERROR(amdgpu_add_chunk(
        p, &capacity,
        (amdgpu_chunk_t){.image_offset = vaddr,  /* rebased below */
                         .file_offset = amdgpu_get(h + 8, 8),
                         .file_size = amdgpu_get(h + 32, 8),
                         .memory_size = memory_size,
                         .executable = (amdgpu_get(h + 4, 4) & PF_X) != 0}));
    end = vaddr + memory_size;
  }
  if (!o->chunk_count) return AMDGPU_BAD("has no PT_LOAD segment");
  p->base_vaddr = o->chunks[0].image_offset & ~(o->image_alignment - 1);
  for (size_t c = 0; c < o->chunk_count; ++c) {
    o->chunks[c].image_offset -= p->base_vaddr;
  }
  HRX_RETURN_IF_ERROR(amdgpu_check_image_size(end - p->base_vaddr));
  o->image_size = end - p->base_vaddr;
  return HRX_OK;
}

/* The chunk whose bytes from the file cover [offset, offset + size), or
 * NULL; |executable| additionally requires executable code. */
static const amdgpu_chunk_t* amdgpu_file_chunk(const hrx_amdgpu_object_t* o,
                                               uint64_t offset, uint64_t size,
                                               bool executable) {
  for (size_t c = 0; c < o->chunk_count; ++c) {
    const amdgpu_chunk_t* chunk = &o->chunks[c];
    if (executable && !chunk->executable) continue;
    if (offset >= chunk->image_offset &&
        amdgpu_inside(offset - chunk->image_offset, size, chunk->file_size)) {
      return chunk;
    }
  }
  return NULL;
}

static bool amdgpu_in_memory(const hrx_amdgpu_object_t* o, uint64_t offset,
                             uint64_t size) {
  for (size_t c = 0; c < o->chunk_count; ++c) {
    const amdgpu_chunk_t* chunk = &o->chunks[c];
    if (offset >= chunk->image_offset &&
        amdgpu_inside(offset - chunk->image_offset, size,
                      chunk->memory_size)) {
      return true;
    }
  }
  return false;
}

/*===------------------------------------------------------------------===*/
/* Symbols and relocations                                                 */
/*===------------------------------------------------------------------===*/

/* Symbol |index| of |table| as a relocation's S: an image offset, or an
 * absolute value for SHN_ABS. */
static hrx_status_t amdgpu_symbol_value(const amdgpu_parse_t* p,
                                        const amdgpu_section_t* table,
                                        uint64_t index, uint64_t* out_value,
                                        bool* out_absolute) {
  if (index == 0 || index >= amdgpu_symbol_count(table)) {
    return AMDGPU_BAD("a relocation names symbol %llu of a %llu-entry table",
                      (unsigned long long)index,
                      (unsigned long long)amdgpu_symbol_count(table));
  }
  amdgpu_symbol_t sym = amdgpu_symbol(p, table, index);
  const char* name = amdgpu_symbol_name(p, table, &sym);
  *out_absolute = sym.shndx == SHN_ABS;
  if (*out_absolute) {
    *out_value = sym.value;
    return HRX_OK;
  }
  if (sym.shndx == SHN_UNDEF) {
    return AMDGPU_BAD("a relocation refers to undefined symbol '%s'", name);
  }
  if (sym.shndx >= SHN_LORESERVE || sym.shndx >= p->section_count) {
    return AMDGPU_BAD("symbol '%s' has a bad section index %u", name,
                      sym.shndx);
  }
  if (p->type == ET_DYN) {
    *out_value = sym.value - p->base_vaddr;
    if (sym.value < p->base_vaddr || *out_value > p->object->image_size) {
      return AMDGPU_BAD("symbol '%s' lies outside the loaded segments", name);
    }
    return HRX_OK;
  }
  amdgpu_section_t home = amdgpu_section(p, sym.shndx);
  if (p->section_image[sym.shndx] == UNPLACED || sym.value > home.size) {
    return AMDGPU_BAD("symbol '%s' lies outside the loaded sections", name);
  }
  *out_value = p->section_image[sym.shndx] + sym.value;
  return HRX_OK;
}

/* Bytes a relocation type patches; 0 for types this loader refuses. */
static int amdgpu_reloc_width(uint32_t type) {
  switch (type) {
    case R_AMDGPU_ABS64:
    case R_AMDGPU_REL64:
    case R_AMDGPU_RELATIVE64:
      return 8;
    case R_AMDGPU_ABS32_LO:
    case R_AMDGPU_ABS32_HI:
    case R_AMDGPU_REL32:
    case R_AMDGPU_ABS32:
    case R_AMDGPU_REL32_LO:
    case R_AMDGPU_REL32_HI:
      return 4;
    default:
      return 0;
  }
}

static const char* amdgpu_reloc_name(uint32_t type) {
  switch (type) {
    case 7: return "R_AMDGPU_GOTPCREL";
    case 8: return "R_AMDGPU_GOTPCREL32_LO";
    case 9: return "R_AMDGPU_GOTPCREL32_HI";
    case 14: return "R_AMDGPU_REL16";
    default: return "unknown";
  }
}

/* The value relocation |r| stores for load address |address|. */
static uint64_t amdgpu_reloc_value(const amdgpu_reloc_t* r, uint64_t address) {
  uint64_t s = r->absolute ? r->symbol : address + r->symbol;
  uint64_t sa = s + (uint64_t)r->addend;
  uint64_t pc = address + r->offset;
  switch (r->type) {
    case R_AMDGPU_ABS32_HI: return sa >> 32;
    case R_AMDGPU_REL32:
    case R_AMDGPU_REL64:
    case R_AMDGPU_REL32_LO: return sa - pc;
    case R_AMDGPU_REL32_HI: return (sa - pc) >> 32;
    default: return sa;  /* ABS32_LO, ABS32, ABS64, RELATIVE64 */
  }
}

typedef struct amdgpu_rela_t {
  const amdgpu_section_t* section;
  uint32_t index;              /* of the RELA section, for messages */
  const amdgpu_section_t* symbols;
  uint64_t target_base;        /* ET_REL: target's image offset */
  uint64_t target_size;        /* ET_REL: target's size */
} amdgpu_rela_t;

/* Normalises one RELA entry into the object's relocation list. */
static hrx_status_t amdgpu_add_reloc(amdgpu_parse_t* p,
                                     const amdgpu_rela_t* rela,
                                     uint64_t entry) {
  const uint8_t* e =
      p->data + rela->section->offset + entry * ELF_RELA_SIZE;
  uint64_t offset = amdgpu_get(e, 8), info = amdgpu_get(e + 8, 8);
  amdgpu_reloc_t r = {.type = (uint32_t)info,
                      .addend = (int64_t)amdgpu_get(e + 16, 8)};
  if (r.type == R_AMDGPU_NONE) return HRX_OK;
  int width = amdgpu_reloc_width(r.type);
  if (!width) {
    return amdgpu_fail(HRX_STATUS_UNIMPLEMENTED,
                       "relocation type %u (%s) in section '%s' is not "
                       "supported", r.type, amdgpu_reloc_name(r.type),
                       amdgpu_section_name(p, rela->index));
  }
  if (p->type == ET_REL) {
    if (!amdgpu_inside(offset, (uint64_t)width, rela->target_size)) {
      return AMDGPU_BAD("relocation %llu of section '%s' patches outside "
                        "its target section", (unsigned long long)entry,
                        amdgpu_section_name(p, rela->index));
    }
    r.offset = rela->target_base + offset;
  } else {
    r.offset = offset - p->base_vaddr;
    if (offset < p->base_vaddr ||
        !amdgpu_in_memory(p->object, r.offset, (uint64_t)width)) {
      return AMDGPU_BAD("relocation %llu of section '%s' patches outside "
                        "the loaded segments", (unsigned long long)entry,
                        amdgpu_section_name(p, rela->index));
    }
  }
  if (r.type == R_AMDGPU_RELATIVE64) {
    r.symbol = 0 - p->base_vaddr;  /* B: where vaddr 0 lands */
  } else {
    HRX_RETURN_IF_ERROR(amdgpu_symbol_value(p, rela->symbols, info >> 32,
                                            &r.symbol, &r.absolute));
  }
  p->object->relocs[p->object->reloc_count++] = r;
  return HRX_OK;
}

/* Whether RELA/REL section |s| patches the image, filling |rela|'s target
 * for ET_REL. ET_REL: those targeting a placed section (others patch debug
 * sections). ET_DYN: the dynamic ones, which are allocated; static ones a
 * linker kept (--emit-relocs) are already applied. */
static hrx_status_t amdgpu_rela_applies(const amdgpu_parse_t* p,
                                        uint32_t index,
                                        const amdgpu_section_t* s,
                                        amdgpu_rela_t* rela, bool* out) {
  *out = false;
  if (p->type == ET_DYN) {
    *out = (s->flags & SHF_ALLOC) != 0;
  } else {
    if (s->info >= p->section_count) {
      return AMDGPU_BAD("relocation section '%s' targets section %u of %u",
                        amdgpu_section_name(p, index), s->info,
                        p->section_count);
    }
    amdgpu_section_t target = amdgpu_section(p, s->info);
    *out = p->section_image[s->info] != UNPLACED;
    if (*out && target.type == SHT_NOBITS) {
      return AMDGPU_BAD("relocation section '%s' patches a NOBITS section",
                        amdgpu_section_name(p, index));
    }
    rela->target_base = p->section_image[s->info];
    rela->target_size = target.size;
  }
  if (*out && s->type == SHT_REL) {
    return AMDGPU_BAD("section '%s' holds REL relocations (without "
                      "addends); only RELA is supported",
                      amdgpu_section_name(p, index));
  }
  return HRX_OK;
}

static hrx_status_t amdgpu_collect_relocs(amdgpu_parse_t* p) {
  hrx_amdgpu_object_t* o = p->object;
  uint64_t total = 0;
  for (uint32_t i = 0; i < p->section_count; ++i) {
    amdgpu_section_t s = amdgpu_section(p, i);
    if (s.type == SHT_RELA) total += s.size / ELF_RELA_SIZE;
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      o->allocator, (size_t)total, sizeof(*o->relocs), (void**)&o->relocs));
  for (uint32_t i = 0; i < p->section_count; ++i) {
    amdgpu_section_t s = amdgpu_section(p, i);
    if (s.type != SHT_RELA && s.type != SHT_REL) continue;
    amdgpu_rela_t rela = {.section = &s, .index = i};
    bool applies = false;
    HRX_RETURN_IF_ERROR(amdgpu_rela_applies(p, i, &s, &rela, &applies));
    if (!applies) continue;
    uint32_t wanted = p->type == ET_DYN ? SHT_DYNSYM : SHT_SYMTAB;
    amdgpu_section_t symbols = {0};
    if (s.link && s.link < p->section_count) {
      symbols = amdgpu_section(p, s.link);
    }
    if (symbols.type != wanted) {
      return AMDGPU_BAD("relocation section '%s' is not linked to the %s",
                        amdgpu_section_name(p, i),
                        p->type == ET_DYN ? "dynamic symbol table"
                                          : "symbol table");
    }
    rela.symbols = &symbols;
    for (uint64_t e = 0; e < s.size / ELF_RELA_SIZE; ++e) {
      HRX_RETURN_IF_ERROR(amdgpu_add_reloc(p, &rela, e));
    }
  }
  return HRX_OK;
}

/* Reads |length| bytes of the image placed at |address| from |offset|,
 * without placing it: the file bytes the chunks put there, patched by the
 * relocations that overlap the window (in order, as placement applies
 * them). */
static void amdgpu_read_image(const hrx_amdgpu_object_t* o, uint64_t address,
                              uint64_t offset, uint8_t* out, size_t length) {
  memset(out, 0, length);
  uint64_t end = offset + length;
  for (size_t c = 0; c < o->chunk_count; ++c) {
    const amdgpu_chunk_t* chunk = &o->chunks[c];
    uint64_t lo = chunk->image_offset > offset ? chunk->image_offset : offset;
    uint64_t chunk_end = chunk->image_offset + chunk->file_size;
    uint64_t hi = chunk_end < end ? chunk_end : end;
    if (lo >= hi) continue;
    memcpy(out + (lo - offset),
           o->bytes + chunk->file_offset + (lo - chunk->image_offset),
           (size_t)(hi - lo));
  }
  for (size_t i = 0; i < o->reloc_count; ++i) {
    const amdgpu_reloc_t* r = &o->relocs[i];
    uint8_t value[8];
    uint8_t* at = value;
    int width = amdgpu_reloc_width(r->type);
    hrx_put_le(&at, amdgpu_reloc_value(r, address), width);
    for (int b = 0; b < width; ++b) {
      uint64_t byte = r->offset + (uint64_t)b;
      if (byte >= offset && byte < end) out[byte - offset] = value[b];
    }
  }
}

/*===------------------------------------------------------------------===*/
/* Metadata                                                                */
/*===------------------------------------------------------------------===*/

/* The NT_AMDGPU_METADATA description of one SHT_NOTE section, if any.
 * Notes are 4-byte padded (namesz and descsz count unpadded bytes). */
static hrx_status_t amdgpu_note_scan(const amdgpu_parse_t* p, uint32_t index,
                                     const uint8_t** inout_desc,
                                     size_t* inout_length) {
  amdgpu_section_t s = amdgpu_section(p, index);
  const uint8_t* at = p->data + s.offset;
  uint64_t left = s.size;
  while (left) {
    if (left < 12) return AMDGPU_BAD("note section %u ends early", index);
    uint64_t name_size = amdgpu_get(at, 4), desc_size = amdgpu_get(at + 4, 4);
    uint64_t type = amdgpu_get(at + 8, 4);
    uint64_t name_padded = (name_size + 3) & ~(uint64_t)3;
    uint64_t desc_padded = (desc_size + 3) & ~(uint64_t)3;
    if (name_padded > left - 12 || desc_size > left - 12 - name_padded) {
      return AMDGPU_BAD("a note in section %u runs past its section", index);
    }
    const uint8_t* name = at + 12;
    const uint8_t* desc = name + name_padded;
    if (type == NT_AMDGPU_METADATA && name_size == 7 &&
        memcmp(name, "AMDGPU", 7) == 0) {
      if (*inout_desc) return AMDGPU_BAD("has two AMDGPU metadata notes");
      *inout_desc = desc;
      *inout_length = (size_t)desc_size;
    }
    /* The last note's padding may be missing. */
    uint64_t step = 12 + name_padded + desc_padded;
    if (step > left) step = left;
    at += step;
    left -= step;
  }
  return HRX_OK;
}

static hrx_status_t amdgpu_find_metadata(const amdgpu_parse_t* p,
                                         const uint8_t** out_desc,
                                         size_t* out_length) {
  *out_desc = NULL;
  *out_length = 0;
  for (uint32_t i = 0; i < p->section_count; ++i) {
    if (amdgpu_section(p, i).type != SHT_NOTE) continue;
    HRX_RETURN_IF_ERROR(amdgpu_note_scan(p, i, out_desc, out_length));
  }
  if (!*out_desc) {
    return AMDGPU_BAD("has no NT_AMDGPU_METADATA note (owner \"AMDGPU\", "
                      "type 32)");
  }
  return HRX_OK;
}

/* A metadata string copied out as a C string; refuses embedded NULs and
 * implausible lengths. */
static hrx_status_t amdgpu_copy_string(const hrx_amdgpu_object_t* o,
                                       const hrx_msgpack_value_t* value,
                                       const char* field, char** out) {
  if (value->length == 0 || value->length > MAX_NAME_LENGTH ||
      memchr(value->bytes, '\0', value->length)) {
    return AMDGPU_BAD("metadata %s is empty, too long or holds a NUL",
                      field);
  }
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(o->allocator, value->length + 1, (void**)out));
  memcpy(*out, value->bytes, value->length);
  return HRX_OK;
}

typedef struct amdgpu_u32_field_t {
  const char* key;
  size_t offset;  /* in hrx_amdgpu_kernel_t */
} amdgpu_u32_field_t;

/* The required scalar fields of a kernel; bit i of a kernel's "seen" mask
 * is field i. */
static const amdgpu_u32_field_t amdgpu_kernel_fields[] = {
    {".kernarg_segment_size", offsetof(hrx_amdgpu_kernel_t, kernarg_size)},
    {".kernarg_segment_align",
     offsetof(hrx_amdgpu_kernel_t, kernarg_alignment)},
    {".group_segment_fixed_size",
     offsetof(hrx_amdgpu_kernel_t, group_segment_size)},
    {".private_segment_fixed_size",
     offsetof(hrx_amdgpu_kernel_t, private_segment_size)},
    {".wavefront_size", offsetof(hrx_amdgpu_kernel_t, wavefront_size)},
    {".sgpr_count", offsetof(hrx_amdgpu_kernel_t, sgpr_count)},
    {".vgpr_count", offsetof(hrx_amdgpu_kernel_t, vgpr_count)},
    {".max_flat_workgroup_size",
     offsetof(hrx_amdgpu_kernel_t, max_flat_workgroup_size)},
};
enum {
  KERNEL_FIELD_COUNT =
      sizeof(amdgpu_kernel_fields) / sizeof(amdgpu_kernel_fields[0]),
  KERNEL_SEEN_NAME = KERNEL_FIELD_COUNT,
  KERNEL_SEEN_SYMBOL,
  KERNEL_SEEN_ARGS,
  KERNEL_SEEN_REQD,
};

/* Marks |bit| seen, refusing a key the map already had; |kernel| names
 * the kernel whose map it is (NULL for the top level). */
static hrx_status_t amdgpu_seen(uint32_t* seen, int bit, const char* key,
                                const char* kernel) {
  if (!(*seen & (1u << bit))) {
    *seen |= 1u << bit;
    return HRX_OK;
  }
  if (kernel) {
    return AMDGPU_BAD("kernel '%s' metadata repeats key %s", kernel, key);
  }
  return AMDGPU_BAD("metadata repeats key %s", key);
}

typedef struct amdgpu_kind_t {
  const char* name;
  hrx_amdgpu_arg_kind_t kind;
  uint32_t size;  /* the size the kind requires; 0 for any */
} amdgpu_kind_t;

static const amdgpu_kind_t amdgpu_kinds[] = {
    {"by_value", HRX_AMDGPU_ARG_BY_VALUE, 0},
    {"global_buffer", HRX_AMDGPU_ARG_GLOBAL_BUFFER, 8},
    {"hidden_block_count_x", HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_X, 4},
    {"hidden_block_count_y", HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Y, 4},
    {"hidden_block_count_z", HRX_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Z, 4},
    {"hidden_group_size_x", HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_X, 2},
    {"hidden_group_size_y", HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Y, 2},
    {"hidden_group_size_z", HRX_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Z, 2},
    {"hidden_remainder_x", HRX_AMDGPU_ARG_HIDDEN_REMAINDER_X, 2},
    {"hidden_remainder_y", HRX_AMDGPU_ARG_HIDDEN_REMAINDER_Y, 2},
    {"hidden_remainder_z", HRX_AMDGPU_ARG_HIDDEN_REMAINDER_Z, 2},
    {"hidden_grid_dims", HRX_AMDGPU_ARG_HIDDEN_GRID_DIMS, 2},
};

/* Maps a .value_kind; any other hidden_* is HIDDEN_OTHER (zero-filled),
 * anything else (images, samplers, pipes, queues, dynamic LDS pointers) is
 * something HRX cannot pass. */
static hrx_status_t amdgpu_arg_kind(const hrx_amdgpu_kernel_t* k,
                                    uint32_t index,
                                    const hrx_msgpack_value_t* text,
                                    hrx_amdgpu_arg_t* arg) {
  for (size_t i = 0; i < sizeof(amdgpu_kinds) / sizeof(amdgpu_kinds[0]);
       ++i) {
    if (!hrx_msgpack_str_equals(text, amdgpu_kinds[i].name)) continue;
    if (amdgpu_kinds[i].size && arg->size != amdgpu_kinds[i].size) {
      return AMDGPU_BAD("kernel '%s' argument %u (%s) is %u bytes, not %u",
                        k->name, index, amdgpu_kinds[i].name, arg->size,
                        amdgpu_kinds[i].size);
    }
    arg->kind = amdgpu_kinds[i].kind;
    return HRX_OK;
  }
  if (text->length >= 7 && !memcmp(text->bytes, "hidden_", 7)) {
    arg->kind = HRX_AMDGPU_ARG_HIDDEN_OTHER;
    return HRX_OK;
  }
  int shown = text->length > 64 ? 64 : (int)text->length;
  return amdgpu_fail(HRX_STATUS_UNIMPLEMENTED,
                     "kernel '%s' argument %u has value kind '%.*s', which "
                     "HRX cannot pass", k->name, index, shown,
                     (const char*)text->bytes);
}

/* One .args element: .offset, .size, .value_kind (required) and
 * .type_name (optional); other keys are skipped. */
static hrx_status_t amdgpu_parse_arg(hrx_msgpack_reader_t* r,
                                     const hrx_amdgpu_kernel_t* k,
                                     uint32_t index, hrx_amdgpu_arg_t* arg) {
  hrx_msgpack_value_t map, key, kind = {0}, type_name;
  HRX_RETURN_IF_ERROR(
      hrx_msgpack_expect(r, HRX_MSGPACK_MAP, "an argument", &map));
  uint32_t seen = 0;
  for (uint32_t i = 0; i < map.count; ++i) {
    HRX_RETURN_IF_ERROR(
        hrx_msgpack_expect(r, HRX_MSGPACK_STR, "an argument key", &key));
    if (hrx_msgpack_str_equals(&key, ".offset")) {
      HRX_RETURN_IF_ERROR(amdgpu_seen(&seen, 0, ".offset", k->name));
      HRX_RETURN_IF_ERROR(hrx_msgpack_read_u32(r, ".offset", &arg->offset));
    } else if (hrx_msgpack_str_equals(&key, ".size")) {
      HRX_RETURN_IF_ERROR(amdgpu_seen(&seen, 1, ".size", k->name));
      HRX_RETURN_IF_ERROR(hrx_msgpack_read_u32(r, ".size", &arg->size));
    } else if (hrx_msgpack_str_equals(&key, ".value_kind")) {
      HRX_RETURN_IF_ERROR(amdgpu_seen(&seen, 2, ".value_kind", k->name));
      HRX_RETURN_IF_ERROR(
          hrx_msgpack_expect(r, HRX_MSGPACK_STR, ".value_kind", &kind));
    } else if (hrx_msgpack_str_equals(&key, ".type_name")) {
      HRX_RETURN_IF_ERROR(amdgpu_seen(&seen, 3, ".type_name", k->name));
      HRX_RETURN_IF_ERROR(
          hrx_msgpack_expect(r, HRX_MSGPACK_STR, ".type_name", &type_name));
      size_t n = type_name.length < sizeof(arg->type_name) - 1
                     ? type_name.length
                     : sizeof(arg->type_name) - 1;
      memcpy(arg->type_name, type_name.bytes, n);
      arg->type_name[n] = '\0';
    } else {
      HRX_RETURN_IF_ERROR(hrx_msgpack_skip(r));
    }
  }
  if ((seen & 7u) != 7u) {
    return AMDGPU_BAD("kernel '%s' argument %u lacks .offset, .size or "
                      ".value_kind", k->name, index);
  }
  return amdgpu_arg_kind(k, index, &kind, arg);
}

static hrx_status_t amdgpu_parse_args(const hrx_amdgpu_object_t* o,
                                      hrx_msgpack_reader_t* r,
                                      hrx_amdgpu_kernel_t* k) {
  hrx_msgpack_value_t array;
  HRX_RETURN_IF_ERROR(
      hrx_msgpack_expect(r, HRX_MSGPACK_ARRAY, ".args", &array));
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      o->allocator, array.count, sizeof(*k->args), (void**)&k->args));
  for (uint32_t a = 0; a < array.count; ++a) {
    HRX_RETURN_IF_ERROR(amdgpu_parse_arg(r, k, a, &k->args[a]));
    k->arg_count = a + 1;
  }
  return HRX_OK;
}

static hrx_status_t amdgpu_parse_reqd(hrx_msgpack_reader_t* r,
                                      hrx_amdgpu_kernel_t* k) {
  hrx_msgpack_value_t array;
  HRX_RETURN_IF_ERROR(hrx_msgpack_expect(r, HRX_MSGPACK_ARRAY,
                                         ".reqd_workgroup_size", &array));
  if (array.count != 3) {
    return AMDGPU_BAD("kernel '%s' .reqd_workgroup_size has %u elements, "
                      "not 3", k->name, array.count);
  }
  for (int d = 0; d < 3; ++d) {
    HRX_RETURN_IF_ERROR(hrx_msgpack_read_u32(r, ".reqd_workgroup_size",
                                             &k->required_workgroup_size[d]));
  }
  return HRX_OK;
}

/* Finds the kernel map's .name first, so every later message can name the
 * kernel (LLVM sorts keys, putting .args before .name). */
static hrx_status_t amdgpu_kernel_name(const hrx_amdgpu_object_t* o,
                                       hrx_msgpack_reader_t r, uint32_t count,
                                       size_t index, char** out_name) {
  hrx_msgpack_value_t key, value;
  for (uint32_t i = 0; i < count; ++i) {
    HRX_RETURN_IF_ERROR(
        hrx_msgpack_expect(&r, HRX_MSGPACK_STR, "a kernel key", &key));
    if (!hrx_msgpack_str_equals(&key, ".name")) {
      HRX_RETURN_IF_ERROR(hrx_msgpack_skip(&r));
      continue;
    }
    HRX_RETURN_IF_ERROR(
        hrx_msgpack_expect(&r, HRX_MSGPACK_STR, ".name", &value));
    return amdgpu_copy_string(o, &value, ".name", out_name);
  }
  return AMDGPU_BAD("metadata kernel %zu has no .name", index);
}

/* One kernel map entry |key|; the value follows in |r|. */
static hrx_status_t amdgpu_kernel_entry(const hrx_amdgpu_object_t* o,
                                        hrx_msgpack_reader_t* r,
                                        const hrx_msgpack_value_t* key,
                                        hrx_amdgpu_kernel_t* k,
                                        uint32_t* seen) {
  for (int f = 0; f < KERNEL_FIELD_COUNT; ++f) {
    if (!hrx_msgpack_str_equals(key, amdgpu_kernel_fields[f].key)) continue;
    HRX_RETURN_IF_ERROR(
        amdgpu_seen(seen, f, amdgpu_kernel_fields[f].key, k->name));
    return hrx_msgpack_read_u32(
        r, amdgpu_kernel_fields[f].key,
        (uint32_t*)((uint8_t*)k + amdgpu_kernel_fields[f].offset));
  }
  hrx_msgpack_value_t value;
  if (hrx_msgpack_str_equals(key, ".name")) {
    HRX_RETURN_IF_ERROR(amdgpu_seen(seen, KERNEL_SEEN_NAME, ".name", k->name));
    return hrx_msgpack_skip(r);  /* read by amdgpu_kernel_name */
  }
  if (hrx_msgpack_str_equals(key, ".symbol")) {
    HRX_RETURN_IF_ERROR(
        amdgpu_seen(seen, KERNEL_SEEN_SYMBOL, ".symbol", k->name));
    HRX_RETURN_IF_ERROR(
        hrx_msgpack_expect(r, HRX_MSGPACK_STR, ".symbol", &value));
    return amdgpu_copy_string(o, &value, ".symbol", &k->symbol);
  }
  if (hrx_msgpack_str_equals(key, ".args")) {
    HRX_RETURN_IF_ERROR(amdgpu_seen(seen, KERNEL_SEEN_ARGS, ".args", k->name));
    return amdgpu_parse_args(o, r, k);
  }
  if (hrx_msgpack_str_equals(key, ".reqd_workgroup_size")) {
    HRX_RETURN_IF_ERROR(amdgpu_seen(seen, KERNEL_SEEN_REQD,
                                    ".reqd_workgroup_size", k->name));
    return amdgpu_parse_reqd(r, k);
  }
  return hrx_msgpack_skip(r);
}

typedef struct amdgpu_span_t {
  uint64_t offset, end;
  uint32_t index;
} amdgpu_span_t;

static int amdgpu_span_compare(const void* a, const void* b) {
  const amdgpu_span_t* x = a;
  const amdgpu_span_t* y = b;
  if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Arguments inside the kernarg segment, none overlapping another: sorted
 * by offset, each must start at or after the furthest end so far. */
static hrx_status_t amdgpu_check_args(const hrx_amdgpu_object_t* o,
                                      const hrx_amdgpu_kernel_t* k) {
  for (uint32_t a = 0; a < k->arg_count; ++a) {
    if (!amdgpu_inside(k->args[a].offset, k->args[a].size, k->kernarg_size)) {
      return AMDGPU_BAD("kernel '%s' argument %u lies outside the kernarg "
                        "segment (%u bytes at %u; the segment has %u)",
                        k->name, a, k->args[a].size, k->args[a].offset,
                        k->kernarg_size);
    }
  }
  if (k->arg_count < 2) return HRX_OK;
  amdgpu_span_t* spans = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      o->allocator, k->arg_count, sizeof(*spans), (void**)&spans));
  for (uint32_t a = 0; a < k->arg_count; ++a) {
    spans[a] = (amdgpu_span_t){k->args[a].offset,
                               (uint64_t)k->args[a].offset + k->args[a].size,
                               a};
  }
  qsort(spans, k->arg_count, sizeof(*spans), amdgpu_span_compare);
  hrx_status_t status = HRX_OK;
  amdgpu_span_t furthest = {0, 0, 0};
  for (uint32_t i = 0; i < k->arg_count && status == HRX_OK; ++i) {
    if (spans[i].end == spans[i].offset) continue;  /* empty */
    if (spans[i].offset < furthest.end) {
      status = AMDGPU_BAD("kernel '%s' arguments %u and %u overlap", k->name,
                          furthest.index, spans[i].index);
    } else {
      furthest = spans[i];
    }
  }
  hrx_allocator_free(o->allocator, spans);
  return status;
}

/* What a gfx11 dispatch of this kernel relies on. */
static hrx_status_t amdgpu_check_kernel(const hrx_amdgpu_object_t* o,
                                        const hrx_amdgpu_kernel_t* k,
                                        uint32_t seen) {
  for (int f = 0; f < KERNEL_FIELD_COUNT; ++f) {
    if (!(seen & (1u << f))) {
      return AMDGPU_BAD("kernel '%s' has no %s", k->name,
                        amdgpu_kernel_fields[f].key);
    }
  }
  if (!(seen & (1u << KERNEL_SEEN_SYMBOL))) {
    return AMDGPU_BAD("kernel '%s' has no .symbol", k->name);
  }
  if (k->wavefront_size != 32) {
    return AMDGPU_BAD("kernel '%s' has wavefront size %u; gfx11 kernels "
                      "here must be wave32", k->name, k->wavefront_size);
  }
  if (!amdgpu_power_of_two(k->kernarg_alignment)) {
    return AMDGPU_BAD("kernel '%s' has kernarg alignment %u, not a power "
                      "of two", k->name, k->kernarg_alignment);
  }
  if (k->max_flat_workgroup_size == 0 ||
      k->max_flat_workgroup_size > MAX_WORKGROUP_SIZE) {
    return AMDGPU_BAD("kernel '%s' has max flat workgroup size %u (1..%d)",
                      k->name, k->max_flat_workgroup_size,
                      MAX_WORKGROUP_SIZE);
  }
  if (seen & (1u << KERNEL_SEEN_REQD)) {
    const uint32_t* w = k->required_workgroup_size;
    uint64_t product = (uint64_t)w[0] * w[1] * w[2];
    if (product == 0 || product > k->max_flat_workgroup_size) {
      return AMDGPU_BAD("kernel '%s' requires workgroup size %ux%ux%u, "
                        "outside 1..%u work-items", k->name, w[0], w[1],
                        w[2], k->max_flat_workgroup_size);
    }
  }
  return amdgpu_check_args(o, k);
}

static hrx_status_t amdgpu_parse_kernel(const hrx_amdgpu_object_t* o,
                                        hrx_msgpack_reader_t* r, size_t index,
                                        hrx_amdgpu_kernel_t* k) {
  hrx_msgpack_value_t map, key;
  HRX_RETURN_IF_ERROR(
      hrx_msgpack_expect(r, HRX_MSGPACK_MAP, "a kernel", &map));
  HRX_RETURN_IF_ERROR(amdgpu_kernel_name(o, *r, map.count, index, &k->name));
  for (size_t i = 0; i < index; ++i) {
    if (!strcmp(o->kernels[i].name, k->name)) {
      return AMDGPU_BAD("metadata has two kernels named '%s'", k->name);
    }
  }
  uint32_t seen = 0;
  for (uint32_t i = 0; i < map.count; ++i) {
    HRX_RETURN_IF_ERROR(
        hrx_msgpack_expect(r, HRX_MSGPACK_STR, "a kernel key", &key));
    HRX_RETURN_IF_ERROR(amdgpu_kernel_entry(o, r, &key, k, &seen));
  }
  return amdgpu_check_kernel(o, k, seen);
}

static hrx_status_t amdgpu_parse_kernels(hrx_amdgpu_object_t* o,
                                         hrx_msgpack_reader_t* r) {
  hrx_msgpack_value_t array;
  HRX_RETURN_IF_ERROR(
      hrx_msgpack_expect(r, HRX_MSGPACK_ARRAY, "amdhsa.kernels", &array));
  if (array.count == 0) return AMDGPU_BAD("defines no kernels");
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      o->allocator, array.count, sizeof(*o->kernels), (void**)&o->kernels));
  for (uint32_t k = 0; k < array.count; ++k) {
    o->kernel_count = k + 1;  /* so a failure frees what was read */
    HRX_RETURN_IF_ERROR(amdgpu_parse_kernel(o, r, k, &o->kernels[k]));
  }
  return HRX_OK;
}

/* amdhsa.version: [major, minor, ...]; every code object v4..v6 has
 * major 1. */
static hrx_status_t amdgpu_parse_version(hrx_msgpack_reader_t* r) {
  hrx_msgpack_value_t array;
  HRX_RETURN_IF_ERROR(
      hrx_msgpack_expect(r, HRX_MSGPACK_ARRAY, "amdhsa.version", &array));
  if (array.count < 2) return AMDGPU_BAD("metadata version is too short");
  uint32_t major = 0, minor = 0;
  HRX_RETURN_IF_ERROR(hrx_msgpack_read_u32(r, "amdhsa.version", &major));
  HRX_RETURN_IF_ERROR(hrx_msgpack_read_u32(r, "amdhsa.version", &minor));
  if (major != 1) {
    return AMDGPU_BAD("has metadata version %u.%u; expected 1.x", major,
                      minor);
  }
  return hrx_msgpack_skip_elements(r, array.count - 2);
}

/* amdhsa.target "amdgcn-amd-amdhsa--<processor>[:features]" must name the
 * processor e_flags does. */
static hrx_status_t amdgpu_parse_target(const hrx_amdgpu_object_t* o,
                                        hrx_msgpack_reader_t* r) {
  static const char prefix[] = "amdgcn-amd-amdhsa--";
  hrx_msgpack_value_t text;
  HRX_RETURN_IF_ERROR(
      hrx_msgpack_expect(r, HRX_MSGPACK_STR, "amdhsa.target", &text));
  size_t prefix_length = sizeof(prefix) - 1;
  size_t processor = text.length;
  if (text.length > prefix_length) {
    const void* colon = memchr(text.bytes + prefix_length, ':',
                               text.length - prefix_length);
    if (colon) processor = (size_t)((const uint8_t*)colon - text.bytes);
  }
  size_t target_length = strlen(o->target);
  if (text.length < prefix_length ||
      memcmp(text.bytes, prefix, prefix_length) != 0 ||
      processor - prefix_length != target_length ||
      memcmp(text.bytes + prefix_length, o->target, target_length) != 0) {
    int shown = text.length > 64 ? 64 : (int)text.length;
    return AMDGPU_BAD("metadata target '%.*s' disagrees with e_flags (%s)",
                      shown, (const char*)text.bytes, o->target);
  }
  return HRX_OK;
}

static hrx_status_t amdgpu_parse_metadata(hrx_amdgpu_object_t* o,
                                          const uint8_t* desc,
                                          size_t length) {
  hrx_msgpack_reader_t r;
  hrx_msgpack_reader_init(&r, desc, length, "code object metadata");
  hrx_msgpack_value_t map, key;
  HRX_RETURN_IF_ERROR(
      hrx_msgpack_expect(&r, HRX_MSGPACK_MAP, "the top level", &map));
  uint32_t seen = 0;
  for (uint32_t i = 0; i < map.count; ++i) {
    HRX_RETURN_IF_ERROR(
        hrx_msgpack_expect(&r, HRX_MSGPACK_STR, "a top-level key", &key));
    if (hrx_msgpack_str_equals(&key, "amdhsa.version")) {
      HRX_RETURN_IF_ERROR(amdgpu_seen(&seen, 0, "amdhsa.version", NULL));
      HRX_RETURN_IF_ERROR(amdgpu_parse_version(&r));
    } else if (hrx_msgpack_str_equals(&key, "amdhsa.target")) {
      HRX_RETURN_IF_ERROR(amdgpu_seen(&seen, 1, "amdhsa.target", NULL));
      HRX_RETURN_IF_ERROR(amdgpu_parse_target(o, &r));
    } else if (hrx_msgpack_str_equals(&key, "amdhsa.kernels")) {
      HRX_RETURN_IF_ERROR(amdgpu_seen(&seen, 2, "amdhsa.kernels", NULL));
      HRX_RETURN_IF_ERROR(amdgpu_parse_kernels(o, &r));
    } else {
      HRX_RETURN_IF_ERROR(hrx_msgpack_skip(&r));
    }
  }
  if (seen != 7u) {
    return AMDGPU_BAD("metadata lacks amdhsa.version, amdhsa.target or "
                      "amdhsa.kernels");
  }
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Kernel descriptors                                                      */
/*===------------------------------------------------------------------===*/

/* The defined symbol |name| in the symbol tables (SYMTAB first). */
static hrx_status_t amdgpu_find_symbol(const amdgpu_parse_t* p,
                                       const hrx_amdgpu_kernel_t* k,
                                       amdgpu_section_t* out_table,
                                       uint64_t* out_index) {
  static const uint32_t kinds[] = {SHT_SYMTAB, SHT_DYNSYM};
  bool undefined = false;
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t t = 0; t < p->section_count; ++t) {
      amdgpu_section_t table = amdgpu_section(p, t);
      if (table.type != kinds[pass]) continue;
      for (uint64_t i = 1; i < amdgpu_symbol_count(&table); ++i) {
        amdgpu_symbol_t sym = amdgpu_symbol(p, &table, i);
        const char* name = amdgpu_string(p, table.link, sym.name);
        if (!name || strcmp(name, k->symbol) != 0) continue;
        if (sym.shndx == SHN_UNDEF) {
          undefined = true;
          continue;
        }
        *out_table = table;
        *out_index = i;
        return HRX_OK;
      }
    }
  }
  return AMDGPU_BAD("kernel '%s' descriptor symbol '%s' is %s", k->name,
                    k->symbol, undefined ? "undefined" : "missing");
}

/* The descriptor's fields the metadata also states must agree, and its
 * code entry must be 256-byte aligned executable code. The descriptor is
 * read as placed at two addresses: only PC-relative relocations may touch
 * it, or the code entry would move with the load address. */
static hrx_status_t amdgpu_check_descriptor(const hrx_amdgpu_object_t* o,
                                            hrx_amdgpu_kernel_t* k) {
  uint8_t kd[KD_SIZE], other[KD_SIZE];
  amdgpu_read_image(o, 0, k->descriptor_offset, kd, sizeof(kd));
  amdgpu_read_image(o, (uint64_t)1 << 40, k->descriptor_offset, other,
                    sizeof(other));
  if (memcmp(kd, other, sizeof(kd)) != 0) {
    return AMDGPU_BAD("kernel '%s' descriptor changes with the load "
                      "address", k->name);
  }
  uint32_t group = (uint32_t)amdgpu_get(kd, 4);
  uint32_t private_size = (uint32_t)amdgpu_get(kd + 4, 4);
  uint32_t kernarg = (uint32_t)amdgpu_get(kd + 8, 4);
  uint32_t properties = (uint32_t)amdgpu_get(kd + 56, 2);
  if (group != k->group_segment_size ||
      private_size != k->private_segment_size ||
      (kernarg && kernarg != k->kernarg_size)) {
    return AMDGPU_BAD("kernel '%s' descriptor (group %u, private %u, "
                      "kernarg %u bytes) disagrees with the metadata "
                      "(%u, %u, %u)", k->name, group, private_size, kernarg,
                      k->group_segment_size, k->private_segment_size,
                      k->kernarg_size);
  }
  if (!(properties & KD_WAVEFRONT_SIZE32)) {
    return AMDGPU_BAD("kernel '%s' descriptor is not wave32", k->name);
  }
  int64_t entry = (int64_t)amdgpu_get(kd + 16, 8);
  /* Modular arithmetic is exact here: the image is under 1 GiB, so a sum
   * that wrapped cannot land inside it. */
  k->entry_offset = k->descriptor_offset + (uint64_t)entry;
  if (k->entry_offset % ENTRY_ALIGNMENT ||
      !amdgpu_file_chunk(o, k->entry_offset, 1, true)) {
    return AMDGPU_BAD("kernel '%s' code entry (descriptor %+lld) is not "
                      "256-byte aligned code in an executable section",
                      k->name, (long long)entry);
  }
  return HRX_OK;
}

static hrx_status_t amdgpu_resolve_kernel(const amdgpu_parse_t* p,
                                          hrx_amdgpu_kernel_t* k) {
  amdgpu_section_t table;
  uint64_t index = 0;
  HRX_RETURN_IF_ERROR(amdgpu_find_symbol(p, k, &table, &index));
  bool absolute = false;
  HRX_RETURN_IF_ERROR(amdgpu_symbol_value(p, &table, index,
                                          &k->descriptor_offset, &absolute));
  if (absolute ||
      !amdgpu_file_chunk(p->object, k->descriptor_offset, KD_SIZE, false)) {
    return AMDGPU_BAD("kernel '%s' descriptor '%s' is not 64 loaded bytes",
                      k->name, k->symbol);
  }
  if (k->descriptor_offset % KD_ALIGNMENT) {
    return AMDGPU_BAD("kernel '%s' descriptor '%s' is not 64-byte aligned "
                      "(image offset 0x%llx)", k->name, k->symbol,
                      (unsigned long long)k->descriptor_offset);
  }
  return amdgpu_check_descriptor(p->object, k);
}

/*===------------------------------------------------------------------===*/
/* HRX launch programs                                                     */
/*===------------------------------------------------------------------===*/

static hrx_status_t amdgpu_attach_launch(hrx_amdgpu_object_t* o,
                                         const uint8_t* name,
                                         uint64_t name_length,
                                         const uint8_t* program,
                                         uint64_t program_length) {
  for (size_t k = 0; k < o->kernel_count; ++k) {
    hrx_amdgpu_kernel_t* kernel = &o->kernels[k];
    if (strlen(kernel->name) != name_length ||
        memcmp(kernel->name, name, (size_t)name_length) != 0) {
      continue;
    }
    if (kernel->launch_program) {
      return AMDGPU_BAD("launch table names kernel '%s' twice",
                        kernel->name);
    }
    kernel->launch_program = program;
    kernel->launch_program_length = (size_t)program_length;
    return HRX_OK;
  }
  int shown = name_length > 64 ? 64 : (int)name_length;
  return AMDGPU_BAD("launch table names kernel '%.*s', which the metadata "
                    "lacks", shown, (const char*)name);
}

/* "HXLT" u32 version (1) u32 count, count x {u32 name_length, name,
 * u32 length, program} (hrx/loom/compiler.h). */
static hrx_status_t amdgpu_parse_launch(hrx_amdgpu_object_t* o,
                                        const uint8_t* at, uint64_t left) {
  if (left < 12 || memcmp(at, "HXLT", 4) != 0) {
    return AMDGPU_BAD("has a .hrx.launch section without the HXLT magic");
  }
  uint64_t version = amdgpu_get(at + 4, 4), count = amdgpu_get(at + 8, 4);
  if (version != 1) {
    return AMDGPU_BAD("has launch table version %llu, expected 1",
                      (unsigned long long)version);
  }
  at += 12;
  left -= 12;
  for (uint64_t e = 0; e < count; ++e) {
    if (left < 4) return AMDGPU_BAD("launch table ends early");
    uint64_t name_length = amdgpu_get(at, 4);
    if (name_length > left - 4 || left - 4 - name_length < 4) {
      return AMDGPU_BAD("launch table ends early");
    }
    const uint8_t* name = at + 4;
    uint64_t length = amdgpu_get(name + name_length, 4);
    uint64_t rest = left - 8 - name_length;
    if (length > rest) return AMDGPU_BAD("launch table ends early");
    HRX_RETURN_IF_ERROR(amdgpu_attach_launch(o, name, name_length,
                                             name + name_length + 4, length));
    at += 8 + name_length + length;
    left = rest - length;
  }
  return HRX_OK;
}

static hrx_status_t amdgpu_find_launch(const amdgpu_parse_t* p) {
  if (p->names_index == 0) return HRX_OK;
  for (uint32_t i = 0; i < p->section_count; ++i) {
    amdgpu_section_t s = amdgpu_section(p, i);
    const char* name = amdgpu_string(p, p->names_index, s.name);
    if (!name || strcmp(name, ".hrx.launch") != 0) continue;
    if (s.type == SHT_NOBITS) {
      return AMDGPU_BAD("has a .hrx.launch section without contents");
    }
    /* Views into the object's own copy, which outlives the kernels. */
    return amdgpu_parse_launch(p->object, p->object->bytes + s.offset,
                               s.size);
  }
  return HRX_OK;
}

/*===------------------------------------------------------------------===*/
/* Public API                                                              */
/*===------------------------------------------------------------------===*/

static hrx_status_t amdgpu_parse(amdgpu_parse_t* p) {
  HRX_RETURN_IF_ERROR(amdgpu_check_header(p));
  HRX_RETURN_IF_ERROR(amdgpu_check_sections(p));
  HRX_RETURN_IF_ERROR(amdgpu_check_segments(p));
  HRX_RETURN_IF_ERROR(p->type == ET_REL ? amdgpu_layout_rel(p)
                                        : amdgpu_layout_dyn(p));
  HRX_RETURN_IF_ERROR(amdgpu_collect_relocs(p));
  const uint8_t* desc = NULL;
  size_t desc_length = 0;
  HRX_RETURN_IF_ERROR(amdgpu_find_metadata(p, &desc, &desc_length));
  HRX_RETURN_IF_ERROR(amdgpu_parse_metadata(p->object, desc, desc_length));
  for (size_t k = 0; k < p->object->kernel_count; ++k) {
    HRX_RETURN_IF_ERROR(amdgpu_resolve_kernel(p, &p->object->kernels[k]));
  }
  return amdgpu_find_launch(p);
}

hrx_status_t hrx_amdgpu_object_parse(const uint8_t* bytes, size_t length,
                                     hrx_allocator_t allocator,
                                     hrx_amdgpu_object_t** out_object) {
  *out_object = NULL;
  hrx_amdgpu_object_t* o = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*o), (void**)&o));
  o->allocator = allocator;
  o->length = length;
  o->image_alignment = MIN_IMAGE_ALIGNMENT;
  hrx_status_t status = hrx_allocator_malloc_uninitialized(
      allocator, length, (void**)&o->bytes);
  amdgpu_parse_t p = {.object = o, .data = o->bytes, .length = length};
  if (status == HRX_OK) {
    if (length) memcpy(o->bytes, bytes, length);
    status = amdgpu_parse(&p);
  }
  hrx_allocator_free(allocator, p.section_image);
  if (status != HRX_OK) {
    hrx_amdgpu_object_destroy(o);
    return status;
  }
  *out_object = o;
  return HRX_OK;
}

void hrx_amdgpu_object_destroy(hrx_amdgpu_object_t* object) {
  if (!object) return;
  hrx_allocator_t allocator = object->allocator;
  for (size_t k = 0; k < object->kernel_count; ++k) {
    hrx_allocator_free(allocator, object->kernels[k].name);
    hrx_allocator_free(allocator, object->kernels[k].symbol);
    hrx_allocator_free(allocator, object->kernels[k].args);
  }
  hrx_allocator_free(allocator, object->kernels);
  hrx_allocator_free(allocator, object->relocs);
  hrx_allocator_free(allocator, object->chunks);
  hrx_allocator_free(allocator, object->bytes);
  hrx_allocator_free(allocator, object);
}

const char* hrx_amdgpu_object_target(const hrx_amdgpu_object_t* object) {
  return object->target;
}

uint64_t hrx_amdgpu_object_image_size(const hrx_amdgpu_object_t* object) {
  return object->image_size;
}

uint64_t hrx_amdgpu_object_image_alignment(
    const hrx_amdgpu_object_t* object) {
  return object->image_alignment;
}

size_t hrx_amdgpu_object_kernel_count(const hrx_amdgpu_object_t* object) {
  return object->kernel_count;
}

const hrx_amdgpu_kernel_t* hrx_amdgpu_object_kernel(
    const hrx_amdgpu_object_t* object, size_t index) {
  return index < object->kernel_count ? &object->kernels[index] : NULL;
}

hrx_status_t hrx_amdgpu_object_place(const hrx_amdgpu_object_t* object,
                                     uint64_t address, uint8_t* destination) {
  if (address % object->image_alignment) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "code object: load address 0x%llx is not "
                           "%llu-byte aligned",
                           (unsigned long long)address,
                           (unsigned long long)object->image_alignment);
  }
  if (object->image_size) memset(destination, 0, (size_t)object->image_size);
  for (size_t c = 0; c < object->chunk_count; ++c) {
    const amdgpu_chunk_t* chunk = &object->chunks[c];
    if (!chunk->file_size) continue;
    memcpy(destination + chunk->image_offset,
           object->bytes + chunk->file_offset, (size_t)chunk->file_size);
  }
  for (size_t i = 0; i < object->reloc_count; ++i) {
    const amdgpu_reloc_t* r = &object->relocs[i];
    uint8_t* at = destination + r->offset;
    hrx_put_le(&at, amdgpu_reloc_value(r, address),
               amdgpu_reloc_width(r->type));
  }
  return HRX_OK;
}
