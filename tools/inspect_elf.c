/* hrx inspect for AMDGPU code objects: ELF sections, the AMDGPU metadata
 * note (MessagePack), kernel descriptors and HRX launch tables. Nothing in
 * the file is trusted: every offset and length is checked before it is
 * read. */
#include "inspect_elf.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "hrx/core/escape.h"
#include "hrx/fabric/launch_program.h"
#include "hrx/loom/compiler.h"

enum {
  ELF_HEADER_SIZE = 64,
  ELF_SECTION_SIZE = 64,
  ELF_SYMBOL_SIZE = 24,
  ELF_MACHINE_AMDGPU = 224,
  ELF_OSABI_AMDGPU_HSA = 64,
  ELF_SECTION_SYMTAB = 2,
  ELF_SECTION_NOTE = 7,
  NOTE_AMDGPU_METADATA = 32,
  KD_SIZE = 64,
};

typedef struct elf_t {
  const uint8_t* data;
  size_t length;
  uint64_t sections;   /* file offset of the section table */
  uint64_t section_count;
} elf_t;

typedef struct elf_section_t {
  uint32_t name, type;
  uint64_t addr, offset, size, link;
} elf_section_t;

static hrx_status_t elf_bad(const char* format, ...) HRX_PRINTF(1, 2);
static hrx_status_t elf_bad(const char* format, ...) {
  char text[256];
  va_list args;
  va_start(args, format);
  vsnprintf(text, sizeof(text), format, args);
  va_end(args);
  return hrx_make_status(HRX_STATUS_DATA_LOSS, "%s", text);
}

static uint64_t elf_get(const uint8_t* at, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= (uint64_t)at[i] << (8 * i);
  return value;
}

static elf_section_t elf_section(const elf_t* elf, uint64_t index) {
  const uint8_t* h = elf->data + elf->sections + index * ELF_SECTION_SIZE;
  return (elf_section_t){.name = (uint32_t)elf_get(h, 4),
                         .type = (uint32_t)elf_get(h + 4, 4),
                         .addr = elf_get(h + 16, 8),
                         .offset = elf_get(h + 24, 8),
                         .size = elf_get(h + 32, 8),
                         .link = elf_get(h + 40, 4)};
}

static bool elf_inside(const elf_t* elf, uint64_t offset, uint64_t size) {
  return offset <= elf->length && size <= elf->length - offset;
}

/* Header and section table: an AMDGPU HSA ELF64 whose sections lie in the
 * file. */
static hrx_status_t elf_open(const uint8_t* data, size_t length,
                             elf_t* out) {
  if (length < 4 || memcmp(data, HRX_INSPECT_ELF_MAGIC, 4) != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "not an ELF file");
  }
  if (length < ELF_HEADER_SIZE) {
    return elf_bad("truncated: the ELF header needs %d bytes, the file has "
                   "%zu", ELF_HEADER_SIZE, length);
  }
  if (data[4] != 2 || data[5] != 1) {
    return elf_bad("not an AMDGPU code object: not a little-endian ELF64 "
                   "file");
  }
  uint64_t machine = elf_get(data + 18, 2);
  if (machine != ELF_MACHINE_AMDGPU) {
    return elf_bad("not an AMDGPU code object: ELF machine %" PRIu64
                   " (AMDGPU is %d)", machine, ELF_MACHINE_AMDGPU);
  }
  if (data[7] != ELF_OSABI_AMDGPU_HSA) {
    return elf_bad("not an HSA code object: OS/ABI %u (AMDGPU HSA is %d)",
                   data[7], ELF_OSABI_AMDGPU_HSA);
  }
  *out = (elf_t){.data = data, .length = length,
                 .sections = elf_get(data + 40, 8),
                 .section_count = elf_get(data + 60, 2)};
  if (elf_get(data + 58, 2) != ELF_SECTION_SIZE ||
      !elf_inside(out, out->sections,
                  out->section_count * (uint64_t)ELF_SECTION_SIZE)) {
    return elf_bad("truncated: the section table (%" PRIu64 " entries at "
                   "%" PRIu64 ") extends past the file's %zu bytes",
                   out->section_count, out->sections, length);
  }
  for (uint64_t s = 0; s < out->section_count; ++s) {
    elf_section_t section = elf_section(out, s);
    if (section.type != 8 /* NOBITS */ &&
        !elf_inside(out, section.offset, section.size)) {
      return elf_bad("truncated: section %" PRIu64 " (%" PRIu64 " bytes at "
                     "%" PRIu64 ") extends past the end of the file", s,
                     section.size, section.offset);
    }
  }
  return HRX_OK;
}

/* The NUL-terminated string at |offset| of string section |table|. */
static const char* elf_string(const elf_t* elf, uint64_t table,
                              uint64_t offset) {
  if (table >= elf->section_count) return NULL;
  elf_section_t strings = elf_section(elf, table);
  if (offset >= strings.size) return NULL;
  const char* text = (const char*)elf->data + strings.offset + offset;
  return memchr(text, '\0', strings.size - offset) ? text : NULL;
}

static bool elf_find_section(const elf_t* elf, const char* name,
                             elf_section_t* out) {
  uint64_t names = elf_get(elf->data + 62, 2);
  for (uint64_t s = 0; s < elf->section_count; ++s) {
    elf_section_t section = elf_section(elf, s);
    const char* text = elf_string(elf, names, section.name);
    if (text && !strcmp(text, name)) {
      *out = section;
      return true;
    }
  }
  return false;
}

/* The file offset of symbol |name|'s |size| bytes, or false. */
static bool elf_symbol(const elf_t* elf, const char* name, size_t name_length,
                       uint64_t size, uint64_t* out_offset) {
  for (uint64_t s = 0; s < elf->section_count; ++s) {
    elf_section_t table = elf_section(elf, s);
    if (table.type != ELF_SECTION_SYMTAB) continue;
    for (uint64_t i = 0; i + 1 <= table.size / ELF_SYMBOL_SIZE; ++i) {
      const uint8_t* sym = elf->data + table.offset + i * ELF_SYMBOL_SIZE;
      const char* text = elf_string(elf, table.link, elf_get(sym, 4));
      if (!text || strlen(text) != name_length ||
          memcmp(text, name, name_length) != 0) {
        continue;
      }
      uint64_t index = elf_get(sym + 6, 2);
      if (index == 0 || index >= elf->section_count) return false;
      elf_section_t home = elf_section(elf, index);
      uint64_t value = elf_get(sym + 8, 8);
      if (value < home.addr || value - home.addr > home.size ||
          home.size - (value - home.addr) < size) {
        return false;
      }
      *out_offset = home.offset + (value - home.addr);
      return true;
    }
  }
  return false;
}

/*===------------------------------------------------------------------===*/
/* MessagePack (the metadata note)                                         */
/*===------------------------------------------------------------------===*/

typedef struct mp_t {
  const uint8_t* at;
  const uint8_t* end;
  bool bad;
} mp_t;

static uint64_t mp_be(mp_t* m, size_t bytes) {
  if (m->bad || (size_t)(m->end - m->at) < bytes) {
    m->bad = true;
    return 0;
  }
  uint64_t value = 0;
  for (size_t i = 0; i < bytes; ++i) value = (value << 8) | *m->at++;
  return value;
}

/* Reads a map (or array) header; false when the next value is not one. */
static bool mp_container(mp_t* m, bool map, uint64_t* out_count) {
  uint8_t tag = (uint8_t)mp_be(m, 1);
  uint8_t fix = map ? 0x80 : 0x90;
  if (!m->bad && (tag & 0xf0) == fix) {
    *out_count = tag & 0x0f;
  } else if (tag == (map ? 0xde : 0xdc)) {
    *out_count = mp_be(m, 2);
  } else if (tag == (map ? 0xdf : 0xdd)) {
    *out_count = mp_be(m, 4);
  } else {
    m->bad = true;
  }
  return !m->bad;
}

static bool mp_str(mp_t* m, const char** out_text, size_t* out_length) {
  uint8_t tag = (uint8_t)mp_be(m, 1);
  uint64_t length = 0;
  if ((tag & 0xe0) == 0xa0) {
    length = tag & 0x1f;
  } else if (tag >= 0xd9 && tag <= 0xdb) {
    length = mp_be(m, (size_t)1 << (tag - 0xd9));
  } else {
    m->bad = true;
  }
  if (m->bad || (uint64_t)(m->end - m->at) < length) {
    m->bad = true;
    return false;
  }
  *out_text = (const char*)m->at;
  *out_length = (size_t)length;
  m->at += length;
  return true;
}

static bool mp_uint(mp_t* m, uint64_t* out) {
  uint8_t tag = (uint8_t)mp_be(m, 1);
  if (tag <= 0x7f) {
    *out = tag;
  } else if (tag >= 0xcc && tag <= 0xcf) {
    *out = mp_be(m, (size_t)1 << (tag - 0xcc));
  } else if (tag >= 0xd0 && tag <= 0xd3) {
    *out = mp_be(m, (size_t)1 << (tag - 0xd0)); /* nonnegative in practice */
  } else {
    m->bad = true;
  }
  return !m->bad;
}

static void mp_skip(mp_t* m, int depth) {
  if (m->bad || m->at >= m->end || depth > 32) {
    m->bad = true;
    return;
  }
  uint8_t tag = *m->at;
  uint64_t count = 0;
  const char* text = NULL;
  size_t length = 0;
  if (tag <= 0x7f || tag >= 0xe0 || tag == 0xc0 || tag == 0xc2 ||
      tag == 0xc3) {
    m->at++;
  } else if ((tag & 0xf0) == 0x80 || tag == 0xde || tag == 0xdf) {
    mp_container(m, true, &count);
    for (uint64_t i = 0; i < 2 * count && !m->bad; ++i) mp_skip(m, depth + 1);
  } else if ((tag & 0xf0) == 0x90 || tag == 0xdc || tag == 0xdd) {
    mp_container(m, false, &count);
    for (uint64_t i = 0; i < count && !m->bad; ++i) mp_skip(m, depth + 1);
  } else if ((tag & 0xe0) == 0xa0 || (tag >= 0xd9 && tag <= 0xdb)) {
    mp_str(m, &text, &length);
  } else if (tag >= 0xcc && tag <= 0xd3) {
    mp_uint(m, &count);
  } else if (tag == 0xca || tag == 0xcb) {
    m->at++;
    mp_be(m, tag == 0xca ? 4 : 8);
  } else if (tag >= 0xc4 && tag <= 0xc6) {
    m->at++;
    length = (size_t)mp_be(m, (size_t)1 << (tag - 0xc4));
    if ((size_t)(m->end - m->at) < length) m->bad = true;
    else m->at += length;
  } else {
    m->bad = true;
  }
}

static bool mp_key_is(const char* key, size_t length, const char* name) {
  return strlen(name) == length && memcmp(key, name, length) == 0;
}

/*===------------------------------------------------------------------===*/
/* Printing                                                                */
/*===------------------------------------------------------------------===*/

typedef struct md_kernel_t {
  const char* name;
  size_t name_length;
  uint64_t kernarg, group, private_size, wavefront, sgprs, vgprs, max_flat;
  mp_t args; /* positioned at the .args array, or bad when absent */
} md_kernel_t;

static hrx_status_t print_escaped(hrx_string_builder_t* b, const char* text,
                                  size_t length) {
  return hrx_string_builder_append_escaped(b, text, length);
}

static hrx_status_t print_args(hrx_string_builder_t* b, mp_t args) {
  uint64_t count = 0, hidden = 0, hidden_bytes = 0;
  if (args.bad || !mp_container(&args, false, &count)) return HRX_OK;
  for (uint64_t a = 0; a < count; ++a) {
    uint64_t fields = 0, offset = 0, size = 0;
    const char *name = "", *kind = "?";
    size_t name_length = 0, kind_length = 1;
    if (!mp_container(&args, true, &fields)) break;
    for (uint64_t f = 0; f < fields && !args.bad; ++f) {
      const char* key = NULL;
      size_t key_length = 0;
      if (!mp_str(&args, &key, &key_length)) break;
      if (mp_key_is(key, key_length, ".name")) {
        mp_str(&args, &name, &name_length);
      } else if (mp_key_is(key, key_length, ".value_kind")) {
        mp_str(&args, &kind, &kind_length);
      } else if (mp_key_is(key, key_length, ".offset")) {
        mp_uint(&args, &offset);
      } else if (mp_key_is(key, key_length, ".size")) {
        mp_uint(&args, &size);
      } else {
        mp_skip(&args, 0);
      }
    }
    if (args.bad) {
      return elf_bad("metadata note: argument %" PRIu64 " is malformed", a);
    }
    if (kind_length > 7 && !memcmp(kind, "hidden_", 7)) {
      hidden++;
      hidden_bytes = offset + size;
      continue;
    }
    HRX_RETURN_IF_ERROR(
        hrx_string_builder_appendf(b, "    arg %" PRIu64 "  ", a));
    HRX_RETURN_IF_ERROR(print_escaped(b, name, name_length));
    HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(b, " "));
    HRX_RETURN_IF_ERROR(print_escaped(b, kind, kind_length));
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
        b, " at %" PRIu64 ", %" PRIu64 " bytes\n", offset, size));
  }
  if (hidden) {
    HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
        b, "    %" PRIu64 " hidden arguments up to byte %" PRIu64 "\n", hidden,
        hidden_bytes));
  }
  return HRX_OK;
}

/* rsrc1, rsrc2, rsrc3 and kernel-code properties of a kernel descriptor
 * (field layout: LLVM's AMDHSAKernelDescriptor.h). */
static hrx_status_t print_descriptor(hrx_string_builder_t* b,
                                     const uint8_t* kd) {
  uint32_t rsrc3 = (uint32_t)elf_get(kd + 44, 4);
  uint32_t rsrc1 = (uint32_t)elf_get(kd + 48, 4);
  uint32_t rsrc2 = (uint32_t)elf_get(kd + 52, 4);
  uint32_t props = (uint32_t)elf_get(kd + 56, 2);
  bool wave32 = props & (1u << 10);
  uint32_t vgpr_granule = rsrc1 & 0x3f;
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      b, "    descriptor: group segment %" PRIu64 ", private segment %" PRIu64
         ", kernarg %" PRIu64 ", code at %+" PRId64 "\n",
      elf_get(kd, 4), elf_get(kd + 4, 4), elf_get(kd + 8, 4),
      (int64_t)elf_get(kd + 16, 8)));
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      b, "      rsrc1 0x%08x: VGPR granule %u (up to %u VGPRs), SGPR granule "
         "%u, float mode 0x%02x%s%s%s%s\n",
      rsrc1, vgpr_granule, (vgpr_granule + 1) * (wave32 ? 8 : 4),
      (rsrc1 >> 6) & 0xf, (rsrc1 >> 12) & 0xff,
      rsrc1 & (1u << 21) ? ", dx10 clamp" : "",
      rsrc1 & (1u << 23) ? ", ieee" : "",
      rsrc1 & (1u << 29) ? ", WGP mode" : ", CU mode",
      rsrc1 & (1u << 30) ? ", memory ordered" : ""));
  uint32_t lds_granules = (rsrc2 >> 15) & 0x1ff;
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      b, "      rsrc2 0x%08x: %u user SGPRs, workgroup ids %s%s%s, "
         "work-item ids up to %c, LDS granules %u%s\n",
      rsrc2, (rsrc2 >> 1) & 0x1f, rsrc2 & (1u << 7) ? "x" : "",
      rsrc2 & (1u << 8) ? "y" : "", rsrc2 & (1u << 9) ? "z" : "",
      "xyzz"[(rsrc2 >> 11) & 3], lds_granules,
      rsrc2 & 1 ? ", private segment" : ""));
  static const char* const prop_names[] = {
      "private segment buffer", "dispatch ptr", "queue ptr",
      "kernarg segment ptr", "dispatch id", "flat scratch init",
      "private segment size", NULL, NULL, NULL, "wave32", "dynamic stack"};
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      b, "      rsrc3 0x%08x, properties 0x%04x", rsrc3, props));
  const char* separator = ":";
  for (uint32_t bit = 0; bit < sizeof(prop_names) / sizeof(prop_names[0]);
       ++bit) {
    if ((props & (1u << bit)) && prop_names[bit]) {
      HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(b, "%s %s", separator,
                                                     prop_names[bit]));
      separator = ",";
    }
  }
  return hrx_string_builder_append_cstr(b, "\n");
}

/* The launch program HRX stored for kernel |name|, if any. */
static hrx_status_t print_launch(hrx_string_builder_t* b, const elf_t* elf,
                                 const char* name, size_t name_length) {
  elf_section_t table;
  if (!elf_find_section(elf, HRX_LOOM_LAUNCH_SECTION, &table)) {
    return hrx_string_builder_append_cstr(
        b, "    launch program: none (not an HRX artifact)\n");
  }
  const uint8_t* at = elf->data + table.offset;
  const uint8_t* end = at + table.size;
  if (table.size < 12 || memcmp(at, HRX_LOOM_LAUNCH_TABLE_MAGIC, 4) != 0 ||
      elf_get(at + 4, 4) != HRX_LOOM_LAUNCH_TABLE_VERSION) {
    return elf_bad("section %s is not a version %u HRX launch table",
                   HRX_LOOM_LAUNCH_SECTION, HRX_LOOM_LAUNCH_TABLE_VERSION);
  }
  uint64_t count = elf_get(at + 8, 4);
  at += 12;
  for (uint64_t k = 0; k < count; ++k) {
    if (end - at < 4 || elf_get(at, 4) > (uint64_t)(end - at - 4) ||
        (uint64_t)(end - at - 4) - elf_get(at, 4) < 4) {
      return elf_bad("launch table entry %" PRIu64 " is truncated", k);
    }
    size_t entry_name_length = (size_t)elf_get(at, 4);
    const char* entry_name = (const char*)at + 4;
    at += 4 + entry_name_length;
    uint64_t launch_length = elf_get(at, 4);
    at += 4;
    if (launch_length > (uint64_t)(end - at)) {
      return elf_bad("launch table entry %" PRIu64 " is truncated", k);
    }
    if (entry_name_length == name_length &&
        !memcmp(entry_name, name, name_length)) {
      hrx_fabric_launch_program_t* program = NULL;
      HRX_RETURN_IF_ERROR(hrx_fabric_launch_program_load(
          at, (size_t)launch_length, hrx_allocator_system(), &program));
      size_t workload = hrx_fabric_launch_program_workload_count(program);
      hrx_fabric_launch_program_destroy(program);
      return hrx_string_builder_appendf(
          b, "    launch program: %" PRIu64 " bytes, %zu workload value%s\n",
          launch_length, workload, workload == 1 ? "" : "s");
    }
    at += launch_length;
  }
  return hrx_string_builder_append_cstr(b, "    launch program: none\n");
}

static hrx_status_t print_kernel(hrx_string_builder_t* b, const elf_t* elf,
                                 const md_kernel_t* k) {
  char descriptor[512];
  if (k->name_length + 4 > sizeof(descriptor)) {
    return elf_bad("metadata note: a kernel name is %zu bytes long",
                   k->name_length);
  }
  memcpy(descriptor, k->name, k->name_length);
  memcpy(descriptor + k->name_length, ".kd", 4);
  uint64_t kd = 0;
  if (!elf_symbol(elf, descriptor, k->name_length + 3, KD_SIZE, &kd)) {
    hrx_string_builder_t shown;
    hrx_string_builder_init(hrx_allocator_system(), &shown);
    hrx_status_t status = print_escaped(&shown, descriptor,
                                        k->name_length + 3);
    if (status == HRX_OK) {
      status = elf_bad("kernel descriptor %s is missing or outside its "
                       "section", hrx_string_builder_cstr(&shown));
    }
    hrx_string_builder_deinit(&shown);
    return status;
  }
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(b, "  kernel "));
  HRX_RETURN_IF_ERROR(print_escaped(b, k->name, k->name_length));
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      b, ": kernarg %" PRIu64 " bytes, group segment %" PRIu64
         ", private segment %" PRIu64 ", wavefront %" PRIu64
         ", max workgroup %" PRIu64 ", %" PRIu64 " SGPRs, %" PRIu64
         " VGPRs\n",
      k->kernarg, k->group, k->private_size, k->wavefront, k->max_flat,
      k->sgprs, k->vgprs));
  HRX_RETURN_IF_ERROR(print_args(b, k->args));
  HRX_RETURN_IF_ERROR(print_descriptor(b, elf->data + kd));
  return print_launch(b, elf, k->name, k->name_length);
}

static hrx_status_t read_kernel(mp_t* m, md_kernel_t* k) {
  uint64_t fields = 0;
  memset(k, 0, sizeof(*k));
  k->args.bad = true;
  if (!mp_container(m, true, &fields)) return elf_bad("metadata note: a "
                                                      "kernel is not a map");
  for (uint64_t f = 0; f < fields && !m->bad; ++f) {
    const char* key = NULL;
    size_t length = 0;
    if (!mp_str(m, &key, &length)) break;
    static const struct {
      const char* key;
      size_t offset;
    } numbers[] = {
        {".kernarg_segment_size", offsetof(md_kernel_t, kernarg)},
        {".group_segment_fixed_size", offsetof(md_kernel_t, group)},
        {".private_segment_fixed_size", offsetof(md_kernel_t, private_size)},
        {".wavefront_size", offsetof(md_kernel_t, wavefront)},
        {".sgpr_count", offsetof(md_kernel_t, sgprs)},
        {".vgpr_count", offsetof(md_kernel_t, vgprs)},
        {".max_flat_workgroup_size", offsetof(md_kernel_t, max_flat)},
    };
    bool done = false;
    for (size_t n = 0; n < sizeof(numbers) / sizeof(numbers[0]); ++n) {
      if (mp_key_is(key, length, numbers[n].key)) {
        mp_uint(m, (uint64_t*)((char*)k + numbers[n].offset));
        done = true;
      }
    }
    if (done) continue;
    if (mp_key_is(key, length, ".name")) {
      mp_str(m, &k->name, &k->name_length);
    } else if (mp_key_is(key, length, ".args")) {
      k->args = *m;
      mp_skip(m, 0);
    } else {
      mp_skip(m, 0);
    }
  }
  if (m->bad || !k->name) return elf_bad("metadata note: a kernel is "
                                         "malformed or has no name");
  return HRX_OK;
}

/* The metadata note's payload. */
static hrx_status_t find_metadata(const elf_t* elf, mp_t* out) {
  for (uint64_t s = 0; s < elf->section_count; ++s) {
    elf_section_t notes = elf_section(elf, s);
    if (notes.type != ELF_SECTION_NOTE) continue;
    const uint8_t* at = elf->data + notes.offset;
    const uint8_t* end = at + notes.size;
    while (end - at >= 12) {
      uint64_t name_size = elf_get(at, 4), desc_size = elf_get(at + 4, 4);
      uint64_t type = elf_get(at + 8, 4);
      uint64_t name_space = (name_size + 3) & ~3ull;
      uint64_t desc_space = (desc_size + 3) & ~3ull;
      at += 12;
      if (name_space > (uint64_t)(end - at) ||
          desc_size > (uint64_t)(end - at) - name_space) {
        return elf_bad("truncated: a note of section %" PRIu64 " ends past "
                       "its section", s);
      }
      if (type == NOTE_AMDGPU_METADATA && name_size == 7 &&
          !memcmp(at, "AMDGPU", 7)) {
        *out = (mp_t){.at = at + name_space,
                      .end = at + name_space + desc_size};
        return HRX_OK;
      }
      at += name_space + (desc_space < (uint64_t)(end - at - name_space)
                              ? desc_space : (uint64_t)(end - at - name_space));
    }
  }
  return elf_bad("no AMDGPU metadata note: not a code object v3+ kernel "
                 "object");
}

static hrx_status_t inspect(const char* path, const elf_t* elf,
                            hrx_string_builder_t* b) {
  mp_t m;
  HRX_RETURN_IF_ERROR(find_metadata(elf, &m));
  uint64_t fields = 0, kernel_count = 0;
  const char* target = "?";
  size_t target_length = 1;
  mp_t kernels = {.bad = true};
  if (!mp_container(&m, true, &fields)) {
    return elf_bad("metadata note is not a MessagePack map");
  }
  for (uint64_t f = 0; f < fields && !m.bad; ++f) {
    const char* key = NULL;
    size_t length = 0;
    if (!mp_str(&m, &key, &length)) break;
    if (mp_key_is(key, length, "amdhsa.target")) {
      mp_str(&m, &target, &target_length);
    } else if (mp_key_is(key, length, "amdhsa.kernels")) {
      kernels = m;
      mp_skip(&m, 0);
    } else {
      mp_skip(&m, 0);
    }
  }
  if (m.bad || kernels.bad || !mp_container(&kernels, false, &kernel_count)) {
    return elf_bad("metadata note is malformed (no amdhsa.kernels list)");
  }
  uint64_t flags = elf_get(elf->data + 48, 4);
  uint64_t type = elf_get(elf->data + 16, 2);
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_escaped(b, path,
                                                        strlen(path)));
  HRX_RETURN_IF_ERROR(hrx_string_builder_appendf(
      b, ": AMDGPU code object (%s, ABI version %u, e_flags 0x%" PRIx64
         "), %zu bytes, %" PRIu64 " kernel%s, target ",
      type == 1 ? "relocatable" : type == 3 ? "shared" : "other type",
      elf->data[8], flags, elf->length, kernel_count,
      kernel_count == 1 ? "" : "s"));
  HRX_RETURN_IF_ERROR(print_escaped(b, target, target_length));
  HRX_RETURN_IF_ERROR(hrx_string_builder_append_cstr(b, "\n"));
  for (uint64_t k = 0; k < kernel_count; ++k) {
    md_kernel_t kernel;
    HRX_RETURN_IF_ERROR(read_kernel(&kernels, &kernel));
    HRX_RETURN_IF_ERROR(print_kernel(b, elf, &kernel));
  }
  return HRX_OK;
}

hrx_status_t hrx_inspect_elf(const char* path, const uint8_t* data,
                             size_t length, FILE* out) {
  elf_t elf;
  hrx_string_builder_t text;
  hrx_string_builder_init(hrx_allocator_system(), &text);
  hrx_status_t status = elf_open(data, length, &elf);
  if (status == HRX_OK) status = inspect(path, &elf, &text);
  if (status == HRX_OK) {
    fputs(hrx_string_builder_cstr(&text), out);
  } else {
    status = hrx_status_annotate(status, "'%s'", path);
  }
  hrx_string_builder_deinit(&text);
  return status;
}
