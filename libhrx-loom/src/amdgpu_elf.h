/* AMDGPU code objects as HRX artifacts: the ISAs HRX emits, the checks an
 * object passes before it is accepted (fresh from LLVM or read back from
 * the cache), and the HRX launch table the object carries (format in
 * hrx/loom/compiler.h). */
#ifndef HRX_LOOM_AMDGPU_ELF_H_
#define HRX_LOOM_AMDGPU_ELF_H_

#include <stddef.h>
#include <stdint.h>

#include "hrx/core.h"

/* One allowed processor: what LLVM is asked for and what its objects
 * must say. LLVM aborts the process on a processor it does not know, so
 * nothing outside this list ever reaches it. */
typedef struct loom_amdgpu_isa_t {
  const char* profile;   /* profile target name, "gfx1151" */
  const char* cpu;       /* LLVM -mcpu */
  uint32_t e_flags;      /* EF_AMDGPU_MACH and feature bits */
  uint8_t abi_version;   /* EI_ABIVERSION: 3 is code object v5 */
  uint32_t code_object_version; /* LLVM's amdhsa_code_object_version */
} loom_amdgpu_isa_t;

/* The ISA of profile |name|, or NULL when it is not on the list. */
const loom_amdgpu_isa_t* loom_amdgpu_isa(const char* name);

/* The launch table of a code object, read entry by entry. */
typedef struct loom_launch_table_t {
  const uint8_t* code;
  size_t at, end;        /* offsets into code */
  uint32_t remaining;
} loom_launch_table_t;

typedef struct loom_launch_entry_t {
  const char* name;      /* not NUL-terminated */
  size_t name_length;
  size_t launch_offset;  /* into the code object */
  size_t launch_length;
} loom_launch_entry_t;

/* Checks that |code| is a relocatable AMDGPU HSA object for |isa| (class,
 * byte order, OS/ABI, ABI version, type, machine, e_flags, section table)
 * and opens its launch table; DATA_LOSS says what is wrong. */
hrx_status_t loom_amdgpu_object_open(const uint8_t* code, size_t length,
                                     const loom_amdgpu_isa_t* isa,
                                     loom_launch_table_t* out_table);

/* The next entry; DATA_LOSS when the table is malformed. */
hrx_status_t loom_launch_table_next(loom_launch_table_t* table,
                                    loom_launch_entry_t* out_entry);

/* Appends the table header for |count| entries, then each entry. */
hrx_status_t loom_launch_table_begin(hrx_string_builder_t* out,
                                     uint32_t count);
hrx_status_t loom_launch_table_add(hrx_string_builder_t* out,
                                   const char* name, const uint8_t* launch,
                                   size_t launch_length);

#endif /* HRX_LOOM_AMDGPU_ELF_H_ */
