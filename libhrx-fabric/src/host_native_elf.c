/* A loader for the native code of host code objects: an ELF64 x86-64
 * relocatable object (hrx/fabric/host_native.h) made runnable without a
 * dynamic linker.
 *
 * The object is untrusted input: every header, section, symbol, string
 * and relocation is bounds-checked before use. Allocated sections are
 * copied into one private anonymous mapping (code first, then read-only
 * data, then the stubs and the GOT the relocations need), relocated, and
 * only then made executable (code) or read-only (the rest): no page is
 * ever writable and executable at once. External symbols resolve only
 * through the table the caller passes (the allow-list of
 * hrx_host_native_symbol_names); calls to them go through 16-byte stubs
 * that jump through the GOT, so a libm anywhere in the address space is
 * reachable from 32-bit displacements. Anything else (writable or TLS
 * sections, an unknown relocation type, an unknown symbol, a displacement
 * out of range) refuses the object with a message that names it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fabric_internal.h"
#include "hrx/core/bytes.h"
#include "hrx/fabric/host_native.h"

/* ELF constants (the subset this loader reads). */
enum {
  ELF_EHDR_SIZE = 64,
  ELF_SHDR_SIZE = 64,
  ELF_SYM_SIZE = 24,
  ELF_RELA_SIZE = 24,
  ELF_ET_REL = 1,
  ELF_EM_X86_64 = 62,
  ELF_SHT_PROGBITS = 1,
  ELF_SHT_SYMTAB = 2,
  ELF_SHT_STRTAB = 3,
  ELF_SHT_RELA = 4,
  ELF_SHT_NOBITS = 8,
  ELF_SHT_REL = 9,
  ELF_SHT_X86_64_UNWIND = 0x70000001,
  ELF_SHN_UNDEF = 0,
  ELF_SHN_LORESERVE = 0xff00,
  ELF_SHN_ABS = 0xfff1,
  ELF_STB_LOCAL = 0,
  ELF_STT_SECTION = 3,
  ELF_STT_TLS = 6,
};
#define ELF_SHF_WRITE 0x1u
#define ELF_SHF_ALLOC 0x2u
#define ELF_SHF_EXECINSTR 0x4u
#define ELF_SHF_TLS 0x400u

#define HRX_NATIVE_PAGE 4096u
#define HRX_NATIVE_STUB 16u
#define HRX_NATIVE_MAX_SECTIONS 4096u

typedef struct hrx_elf_section_t {
  uint32_t name, type;
  uint64_t flags, offset, size, align;
  uint32_t link, info;
  uint64_t entsize;
  uint8_t* address; /* where it is loaded, or NULL */
} hrx_elf_section_t;

typedef struct hrx_elf_symbol_t {
  const char* name;
  size_t name_length;
  uint8_t info;
  uint16_t shndx;
  uint64_t value;
} hrx_elf_symbol_t;

typedef struct hrx_native_export_t {
  char* name;
  void* address;
} hrx_native_export_t;

struct hrx_host_native_image_s {
  hrx_allocator_t allocator;
  uint8_t* map;
  size_t map_size;
  hrx_native_export_t* exports;
  size_t export_count;
};

static hrx_status_t hrx_elf_bad(const char* what) {
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "native object: %s", what);
}

static uint64_t hrx_elf_get(const uint8_t* at, int bytes) {
  return hrx_get_le(&at, bytes);
}

/* Whether [offset, offset + size) lies within |length|. */
static bool hrx_elf_within(uint64_t offset, uint64_t size, uint64_t length) {
  return offset <= length && size <= length - offset;
}

typedef struct hrx_elf_t {
  const uint8_t* bytes;
  size_t length;
  hrx_elf_section_t* sections;
  uint32_t section_count;
  const hrx_elf_section_t* symtab;
  const hrx_elf_section_t* strtab;
  uint32_t symbol_count;
  const hrx_host_native_symbol_t* externals;
  size_t external_count;
} hrx_elf_t;

static hrx_status_t hrx_elf_symbol(const hrx_elf_t* e, uint32_t index,
                                   hrx_elf_symbol_t* out) {
  if (!e->symtab || index >= e->symbol_count) {
    return hrx_elf_bad("relocation names a symbol past the symbol table");
  }
  const uint8_t* at = e->bytes + e->symtab->offset + (uint64_t)index * ELF_SYM_SIZE;
  uint32_t name = (uint32_t)hrx_elf_get(at, 4);
  out->info = at[4];
  out->shndx = (uint16_t)hrx_elf_get(at + 6, 2);
  out->value = hrx_elf_get(at + 8, 8);
  if (name >= e->strtab->size) return hrx_elf_bad("symbol name out of range");
  const char* text = (const char*)e->bytes + e->strtab->offset + name;
  const char* nul = memchr(text, 0, e->strtab->size - name);
  if (!nul) return hrx_elf_bad("symbol name not terminated");
  out->name = text;
  out->name_length = (size_t)(nul - text);
  return HRX_OK;
}

/* The address a defined symbol stands for, or an error. */
static hrx_status_t hrx_elf_defined(const hrx_elf_t* e,
                                    const hrx_elf_symbol_t* s,
                                    uint64_t* out) {
  if (s->shndx == ELF_SHN_ABS) {
    *out = s->value;
    return HRX_OK;
  }
  if (s->shndx >= e->section_count || s->shndx >= ELF_SHN_LORESERVE) {
    return hrx_elf_bad("symbol in an unknown section");
  }
  const hrx_elf_section_t* section = &e->sections[s->shndx];
  if (!section->address) {
    return hrx_elf_bad("symbol in a section that is not loaded");
  }
  if (s->value > section->size) return hrx_elf_bad("symbol past its section");
  *out = (uint64_t)(uintptr_t)(section->address + s->value);
  return HRX_OK;
}

static const hrx_host_native_symbol_t* hrx_elf_external(
    const hrx_elf_t* e, const hrx_elf_symbol_t* s) {
  if (!hrx_host_native_symbol_allowed(s->name, s->name_length)) return NULL;
  for (size_t i = 0; i < e->external_count; ++i) {
    if (strlen(e->externals[i].name) == s->name_length &&
        !memcmp(e->externals[i].name, s->name, s->name_length)) {
      return &e->externals[i];
    }
  }
  return NULL;
}

static hrx_status_t hrx_elf_unknown_symbol(const hrx_elf_symbol_t* s) {
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "native object: unknown symbol '%.*s'",
                         (int)(s->name_length > 64 ? 64 : s->name_length),
                         s->name);
}

static hrx_status_t hrx_elf_parse_sections(hrx_elf_t* e,
                                           hrx_allocator_t allocator) {
  const uint8_t* b = e->bytes;
  if (e->length < ELF_EHDR_SIZE || memcmp(b, "\x7f" "ELF", 4) != 0) {
    return hrx_elf_bad("not an ELF file");
  }
  if (b[4] != 2 || b[5] != 1 || b[6] != 1) {
    return hrx_elf_bad("not little-endian ELF64");
  }
  if (hrx_elf_get(b + 16, 2) != ELF_ET_REL ||
      hrx_elf_get(b + 18, 2) != ELF_EM_X86_64) {
    return hrx_elf_bad("not an x86-64 relocatable object");
  }
  uint64_t shoff = hrx_elf_get(b + 40, 8);
  uint32_t shentsize = (uint32_t)hrx_elf_get(b + 58, 2);
  uint32_t shnum = (uint32_t)hrx_elf_get(b + 60, 2);
  if (shentsize != ELF_SHDR_SIZE || shnum == 0 ||
      shnum > HRX_NATIVE_MAX_SECTIONS ||
      !hrx_elf_within(shoff, (uint64_t)shnum * ELF_SHDR_SIZE, e->length)) {
    return hrx_elf_bad("section headers out of range");
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      allocator, shnum, sizeof(hrx_elf_section_t), (void**)&e->sections));
  memset(e->sections, 0, shnum * sizeof(hrx_elf_section_t));
  e->section_count = shnum;
  for (uint32_t i = 0; i < shnum; ++i) {
    const uint8_t* at = b + shoff + (uint64_t)i * ELF_SHDR_SIZE;
    hrx_elf_section_t* s = &e->sections[i];
    s->name = (uint32_t)hrx_elf_get(at, 4);
    s->type = (uint32_t)hrx_elf_get(at + 4, 4);
    s->flags = hrx_elf_get(at + 8, 8);
    s->offset = hrx_elf_get(at + 24, 8);
    s->size = hrx_elf_get(at + 32, 8);
    s->link = (uint32_t)hrx_elf_get(at + 40, 4);
    s->info = (uint32_t)hrx_elf_get(at + 44, 4);
    s->align = hrx_elf_get(at + 48, 8);
    s->entsize = hrx_elf_get(at + 56, 8);
    if (s->type != ELF_SHT_NOBITS && s->type != 0 &&
        !hrx_elf_within(s->offset, s->size, e->length)) {
      return hrx_elf_bad("section contents out of range");
    }
    if (s->align > HRX_NATIVE_PAGE || (s->align & (s->align - 1))) {
      return hrx_elf_bad("section alignment unsupported");
    }
    if (s->size > HRX_HOST_NATIVE_MAX_OBJECT) {
      return hrx_elf_bad("section too large");
    }
    if (s->type == ELF_SHT_SYMTAB) {
      if (e->symtab) return hrx_elf_bad("two symbol tables");
      e->symtab = s;
    }
    if (s->type == ELF_SHT_REL) return hrx_elf_bad("REL relocations");
  }
  if (!e->symtab) return hrx_elf_bad("no symbol table");
  if (e->symtab->entsize != ELF_SYM_SIZE || e->symtab->size % ELF_SYM_SIZE ||
      e->symtab->link >= shnum ||
      e->sections[e->symtab->link].type != ELF_SHT_STRTAB) {
    return hrx_elf_bad("malformed symbol table");
  }
  e->strtab = &e->sections[e->symtab->link];
  e->symbol_count = (uint32_t)(e->symtab->size / ELF_SYM_SIZE);
  return HRX_OK;
}

/* Which allocated sections are loaded: code, and read-only data. The
 * unwind tables are left out (nothing unwinds through kernels). */
static hrx_status_t hrx_elf_classify(const hrx_elf_t* e, uint32_t index,
                                     int* out_class) {
  const hrx_elf_section_t* s = &e->sections[index];
  *out_class = -1;
  if (!(s->flags & ELF_SHF_ALLOC) || s->type == ELF_SHT_X86_64_UNWIND) {
    return HRX_OK;
  }
  if (s->type != ELF_SHT_PROGBITS && s->type != ELF_SHT_NOBITS) {
    return hrx_elf_bad("allocated section of an unsupported type");
  }
  if (s->flags & ELF_SHF_TLS) return hrx_elf_bad("thread-local data");
  if (s->flags & ELF_SHF_WRITE) return hrx_elf_bad("writable data");
  *out_class = (s->flags & ELF_SHF_EXECINSTR) ? 0 : 1;
  return HRX_OK;
}

static size_t hrx_align_up(size_t value, size_t align) {
  return align > 1 ? (value + align - 1) & ~(align - 1) : value;
}

/* Writes a relocation value of |width| bytes at |place|. */
static void hrx_elf_write(uint8_t* place, uint64_t value, int width) {
  uint8_t bytes[8];
  uint8_t* at = bytes;
  hrx_put_le(&at, value, width);
  memcpy(place, bytes, (size_t)width);
}

static hrx_status_t hrx_elf_relocate(hrx_elf_t* e, uint8_t* stubs,
                                     uint64_t* got, int32_t* slots) {
  for (uint32_t r = 0; r < e->section_count; ++r) {
    const hrx_elf_section_t* rela = &e->sections[r];
    if (rela->type != ELF_SHT_RELA) continue;
    if (rela->link != (uint32_t)(e->symtab - e->sections) ||
        rela->info >= e->section_count || rela->entsize != ELF_RELA_SIZE ||
        rela->size % ELF_RELA_SIZE) {
      return hrx_elf_bad("malformed relocation section");
    }
    const hrx_elf_section_t* target = &e->sections[rela->info];
    if (!target->address) continue; /* unwind tables, debug sections */
    if (target->type == ELF_SHT_NOBITS) {
      return hrx_elf_bad("relocation in a section without contents");
    }
    for (uint64_t k = 0; k < rela->size / ELF_RELA_SIZE; ++k) {
      const uint8_t* at = e->bytes + rela->offset + k * ELF_RELA_SIZE;
      uint64_t offset = hrx_elf_get(at, 8);
      uint64_t info = hrx_elf_get(at + 8, 8);
      int64_t addend = (int64_t)hrx_elf_get(at + 16, 8);
      uint32_t type = (uint32_t)info;
      uint32_t index = (uint32_t)(info >> 32);
      int width = type == HRX_HOST_NATIVE_R_64 ? 8 : 4;
      if (!hrx_elf_within(offset, (uint64_t)width, target->size)) {
        return hrx_elf_bad("relocation outside its section");
      }
      uint8_t* place = target->address + offset;
      uint64_t p = (uint64_t)(uintptr_t)place;
      hrx_elf_symbol_t symbol;
      HRX_RETURN_IF_ERROR(hrx_elf_symbol(e, index, &symbol));
      if ((symbol.info & 0xf) == ELF_STT_TLS) {
        return hrx_elf_bad("thread-local symbol");
      }
      bool undefined = symbol.shndx == ELF_SHN_UNDEF;
      uint64_t s = 0;
      if (undefined) {
        const hrx_host_native_symbol_t* external =
            hrx_elf_external(e, &symbol);
        if (!external) return hrx_elf_unknown_symbol(&symbol);
        s = (uint64_t)(uintptr_t)external->address;
      } else {
        HRX_RETURN_IF_ERROR(hrx_elf_defined(e, &symbol, &s));
      }
      uint64_t value = 0;
      switch (type) {
        case HRX_HOST_NATIVE_R_64:
          value = s + (uint64_t)addend;
          break;
        case HRX_HOST_NATIVE_R_PC32:
        case HRX_HOST_NATIVE_R_PLT32:
          if (undefined) {
            s = (uint64_t)(uintptr_t)(stubs + (size_t)slots[index] *
                                                  HRX_NATIVE_STUB);
          }
          value = s + (uint64_t)addend - p;
          if ((int64_t)value != (int32_t)value) {
            return hrx_elf_bad("PC-relative displacement out of range");
          }
          break;
        case HRX_HOST_NATIVE_R_GOTPCREL:
        case HRX_HOST_NATIVE_R_GOTPCRELX:
        case HRX_HOST_NATIVE_R_REX_GOTPCRELX: {
          uint64_t* slot = &got[slots[index]];
          *slot = s;
          value = (uint64_t)(uintptr_t)slot + (uint64_t)addend - p;
          if ((int64_t)value != (int32_t)value) {
            return hrx_elf_bad("GOT displacement out of range");
          }
          break;
        }
        case HRX_HOST_NATIVE_R_32:
          value = s + (uint64_t)addend;
          if (value > UINT32_MAX) {
            return hrx_elf_bad("absolute 32-bit relocation out of range");
          }
          break;
        case HRX_HOST_NATIVE_R_32S:
          value = s + (uint64_t)addend;
          if ((int64_t)value != (int32_t)value) {
            return hrx_elf_bad("absolute 32-bit relocation out of range");
          }
          break;
        default:
          return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                                 "native object: unsupported relocation "
                                 "type %u", type);
      }
      hrx_elf_write(place, value, width);
    }
  }
  return HRX_OK;
}

/* Gives every symbol that needs one a GOT slot and a stub (undefined
 * symbols called or referenced PC-relatively, and GOT references). */
static hrx_status_t hrx_elf_count_slots(const hrx_elf_t* e, int32_t* slots,
                                        uint32_t* out_count) {
  uint32_t count = 0;
  for (uint32_t r = 0; r < e->section_count; ++r) {
    const hrx_elf_section_t* rela = &e->sections[r];
    if (rela->type != ELF_SHT_RELA) continue;
    if (rela->info >= e->section_count || rela->size % ELF_RELA_SIZE) {
      return hrx_elf_bad("malformed relocation section");
    }
    if (!e->sections[rela->info].address) continue;
    for (uint64_t k = 0; k < rela->size / ELF_RELA_SIZE; ++k) {
      const uint8_t* at = e->bytes + rela->offset + k * ELF_RELA_SIZE;
      uint64_t info = hrx_elf_get(at + 8, 8);
      uint32_t type = (uint32_t)info;
      uint32_t index = (uint32_t)(info >> 32);
      if (index >= e->symbol_count) {
        return hrx_elf_bad("relocation names a symbol past the symbol table");
      }
      if (slots[index] >= 0) continue;
      bool got = type == HRX_HOST_NATIVE_R_GOTPCREL ||
                 type == HRX_HOST_NATIVE_R_GOTPCRELX ||
                 type == HRX_HOST_NATIVE_R_REX_GOTPCRELX;
      bool call = type == HRX_HOST_NATIVE_R_PC32 ||
                  type == HRX_HOST_NATIVE_R_PLT32;
      if (got) {
        slots[index] = (int32_t)count++;
      } else if (call) {
        const uint8_t* sym =
            e->bytes + e->symtab->offset + (uint64_t)index * ELF_SYM_SIZE;
        if (hrx_elf_get(sym + 6, 2) == ELF_SHN_UNDEF) {
          slots[index] = (int32_t)count++;
        }
      }
    }
  }
  *out_count = count;
  return HRX_OK;
}

/* Records the defined global symbols (the entry points). */
static hrx_status_t hrx_elf_exports(const hrx_elf_t* e,
                                    hrx_host_native_image_t* image) {
  uint32_t count = 0;
  for (uint32_t i = 1; i < e->symbol_count; ++i) {
    const uint8_t* at =
        e->bytes + e->symtab->offset + (uint64_t)i * ELF_SYM_SIZE;
    uint16_t shndx = (uint16_t)hrx_elf_get(at + 6, 2);
    if ((at[4] >> 4) != ELF_STB_LOCAL && shndx != ELF_SHN_UNDEF) ++count;
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      image->allocator, count ? count : 1, sizeof(hrx_native_export_t),
      (void**)&image->exports));
  for (uint32_t i = 1; i < e->symbol_count; ++i) {
    hrx_elf_symbol_t s;
    HRX_RETURN_IF_ERROR(hrx_elf_symbol(e, i, &s));
    if ((s.info >> 4) == ELF_STB_LOCAL || s.shndx == ELF_SHN_UNDEF) continue;
    uint64_t address = 0;
    HRX_RETURN_IF_ERROR(hrx_elf_defined(e, &s, &address));
    hrx_native_export_t* x = &image->exports[image->export_count];
    HRX_RETURN_IF_ERROR(hrx_allocator_malloc_uninitialized(
        image->allocator, s.name_length + 1, (void**)&x->name));
    memcpy(x->name, s.name, s.name_length);
    x->name[s.name_length] = '\0';
    x->address = (void*)(uintptr_t)address;
    image->export_count++;
  }
  return HRX_OK;
}

static hrx_status_t hrx_elf_load(hrx_elf_t* e, hrx_host_native_image_t* image,
                                 int32_t* slots) {
  /* Layout: code sections, the stubs; a page boundary; read-only data,
   * the GOT. */
  size_t cursor[2] = {0, 0};
  for (int cls = 0; cls < 2; ++cls) {
    for (uint32_t i = 0; i < e->section_count; ++i) {
      int c = -1;
      HRX_RETURN_IF_ERROR(hrx_elf_classify(e, i, &c));
      if (c != cls) continue;
      hrx_elf_section_t* s = &e->sections[i];
      cursor[cls] = hrx_align_up(cursor[cls], s->align ? s->align : 1);
      s->address = (uint8_t*)(uintptr_t)cursor[cls]; /* offset for now */
      s->address += 1;                              /* non-NULL marker */
      cursor[cls] += s->size;
    }
  }
  for (uint32_t i = 0; i < e->symbol_count; ++i) slots[i] = -1;
  uint32_t slot_count = 0;
  HRX_RETURN_IF_ERROR(hrx_elf_count_slots(e, slots, &slot_count));
  size_t stubs_at = hrx_align_up(cursor[0], HRX_NATIVE_STUB);
  size_t code_size =
      hrx_align_up(stubs_at + (size_t)slot_count * HRX_NATIVE_STUB,
                   HRX_NATIVE_PAGE);
  size_t got_at = hrx_align_up(cursor[1], 8);
  size_t data_size =
      hrx_align_up(got_at + (size_t)slot_count * 8, HRX_NATIVE_PAGE);
  if (code_size == 0) return hrx_elf_bad("no code");
  image->map_size = code_size + data_size;
  void* map = mmap(NULL, image->map_size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) {
    image->map_size = 0;
    return hrx_status_from_errno(errno, "cannot map native code");
  }
  image->map = map;
  uint8_t* data_base = image->map + code_size;
  for (uint32_t i = 0; i < e->section_count; ++i) {
    hrx_elf_section_t* s = &e->sections[i];
    if (!s->address) continue;
    size_t at = (size_t)((uintptr_t)s->address - 1);
    bool code = (s->flags & ELF_SHF_EXECINSTR) != 0;
    s->address = (code ? image->map : data_base) + at;
    if (s->type == ELF_SHT_PROGBITS && s->size) {
      memcpy(s->address, e->bytes + s->offset, s->size);
    }
  }
  uint8_t* stubs = image->map + stubs_at;
  uint64_t* got = (uint64_t*)(void*)(data_base + got_at);
  HRX_RETURN_IF_ERROR(hrx_elf_relocate(e, stubs, got, slots));
  /* Stubs: jmp *slot(%rip), then int3s. The slot of an external symbol
   * reached only through calls is filled here. */
  for (uint32_t i = 0; i < e->symbol_count; ++i) {
    if (slots[i] < 0) continue;
    hrx_elf_symbol_t s;
    HRX_RETURN_IF_ERROR(hrx_elf_symbol(e, i, &s));
    uint64_t target = 0;
    if (s.shndx == ELF_SHN_UNDEF) {
      const hrx_host_native_symbol_t* external = hrx_elf_external(e, &s);
      if (!external) return hrx_elf_unknown_symbol(&s);
      target = (uint64_t)(uintptr_t)external->address;
    } else {
      HRX_RETURN_IF_ERROR(hrx_elf_defined(e, &s, &target));
    }
    got[slots[i]] = target;
    uint8_t* stub = stubs + (size_t)slots[i] * HRX_NATIVE_STUB;
    int64_t displacement =
        (int64_t)((uintptr_t)&got[slots[i]] - (uintptr_t)(stub + 6));
    if (displacement != (int32_t)displacement) {
      return hrx_elf_bad("stub displacement out of range");
    }
    memset(stub, 0xcc, HRX_NATIVE_STUB);
    stub[0] = 0xff;
    stub[1] = 0x25;
    hrx_elf_write(stub + 2, (uint64_t)(uint32_t)(int32_t)displacement, 4);
  }
  HRX_RETURN_IF_ERROR(hrx_elf_exports(e, image));
  /* W^X: code becomes read+execute, everything else read-only. */
  if (mprotect(image->map, code_size, PROT_READ | PROT_EXEC) != 0 ||
      mprotect(data_base, data_size, PROT_READ) != 0) {
    return hrx_status_from_errno(errno, "cannot protect native code");
  }
  return HRX_OK;
}

hrx_status_t hrx_host_native_image_load(
    const uint8_t* object, size_t length,
    const hrx_host_native_symbol_t* externals, size_t external_count,
    hrx_allocator_t allocator, hrx_host_native_image_t** out_image) {
  *out_image = NULL;
  hrx_host_native_image_t* image = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*image), (void**)&image));
  memset(image, 0, sizeof(*image));
  image->allocator = allocator;
  hrx_elf_t e = {.bytes = object, .length = length, .externals = externals,
                 .external_count = external_count};
  int32_t* slots = NULL;
  hrx_status_t status = hrx_elf_parse_sections(&e, allocator);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(allocator,
                                        e.symbol_count ? e.symbol_count : 1,
                                        sizeof(int32_t), (void**)&slots);
  }
  if (status == HRX_OK) status = hrx_elf_load(&e, image, slots);
  hrx_allocator_free(allocator, slots);
  hrx_allocator_free(allocator, e.sections);
  if (status != HRX_OK) {
    hrx_host_native_image_free(image);
    return status;
  }
  *out_image = image;
  return HRX_OK;
}

void* hrx_host_native_image_find(const hrx_host_native_image_t* image,
                                 const char* name) {
  for (size_t i = 0; i < image->export_count; ++i) {
    if (!strcmp(image->exports[i].name, name)) return image->exports[i].address;
  }
  return NULL;
}

void hrx_host_native_image_free(hrx_host_native_image_t* image) {
  if (!image) return;
  if (image->map) munmap(image->map, image->map_size);
  for (size_t i = 0; i < image->export_count; ++i) {
    hrx_allocator_free(image->allocator, image->exports[i].name);
  }
  hrx_allocator_free(image->allocator, image->exports);
  hrx_allocator_free(image->allocator, image);
}
