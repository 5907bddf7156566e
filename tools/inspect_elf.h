/* hrx inspect for AMDGPU code objects (ELF). */
#ifndef HRX_TOOLS_INSPECT_ELF_H_
#define HRX_TOOLS_INSPECT_ELF_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hrx/core.h"

/* The first bytes of every ELF file. */
#define HRX_INSPECT_ELF_MAGIC "\177ELF"

/* Writes a summary of the AMDGPU code object |data| (|length| bytes, read
 * from |path|) to |out|: its processor and code object version, and per
 * kernel (from the NT_AMDGPU_METADATA note) its arguments, segment sizes
 * and register counts, its kernel descriptor `<name>.kd` with rsrc1,
 * rsrc2, rsrc3 and kernel-code properties decoded, and the HRX launch
 * program the object carries (hrx/loom/compiler.h). Every name from the
 * file is printed escaped. A truncated, foreign or inconsistent file is
 * DATA_LOSS or INVALID_ARGUMENT saying why, and nothing is printed. */
hrx_status_t hrx_inspect_elf(const char* path, const uint8_t* data,
                             size_t length, FILE* out);

#endif /* HRX_TOOLS_INSPECT_ELF_H_ */
