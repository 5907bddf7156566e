/* The kfd provider's blit kernels: gfx1151 code that copies and fills
 * buffers, dispatched in place of HRX's vendor "agent" copy/fill packets,
 * which a hardware AQL queue cannot run. The source is kfd_blit.s; the
 * assembled code object is embedded in kfd_blit_object.c (regenerate it
 * with scripts/gen-kfd-blit). Private to the fabric and its tests. */
#ifndef HRX_FABRIC_KFD_BLIT_H_
#define HRX_FABRIC_KFD_BLIT_H_

#include <stddef.h>
#include <stdint.h>

/* The ET_REL code object (code object v5, amdgcn-amd-amdhsa--gfx1151)
 * holding the four kernels below, their descriptors ("<name>.kd") and an
 * amdgpu metadata note. */
extern const uint8_t hrx_kfd_blit_object[];
extern const size_t hrx_kfd_blit_object_length;

/* Kernel names. Each copies or fills |count| units with a grid-stride
 * loop; copies require source and destination not to overlap. */
#define HRX_KFD_BLIT_COPY_B8 "hrx_blit_copy_b8"     /* bytes, any alignment */
#define HRX_KFD_BLIT_COPY_B32 "hrx_blit_copy_b32"   /* dwords, 4-aligned */
#define HRX_KFD_BLIT_COPY_B128 "hrx_blit_copy_b128" /* 16 bytes, 16-aligned */
/* Dwords of the pattern; dst may have any alignment. */
#define HRX_KFD_BLIT_FILL_B32 "hrx_blit_fill_b32"

/* The largest workgroup the kernels declare (max_flat_workgroup_size). */
#define HRX_KFD_BLIT_WORKGROUP 256

/* The kernarg segment every blit kernel takes (40 bytes, 8-aligned). */
typedef struct hrx_kfd_blit_args_t {
  uint64_t dst;
  /* The source address; for the fill, the low 32 bits are the pattern. */
  uint64_t source;
  /* Units: bytes (b8), dwords (b32) or 16-byte blocks (b128). */
  uint64_t count;
  /* Work-items launched: the dispatch's grid size x. Work-item g handles
   * units g, g + stride, ... below count. */
  uint64_t stride;
  /* The dispatch's workgroup size x (at most HRX_KFD_BLIT_WORKGROUP): the
   * kernels take no hidden arguments to learn it from. */
  uint32_t workgroup_size;
  uint32_t pad;
} hrx_kfd_blit_args_t;

_Static_assert(offsetof(hrx_kfd_blit_args_t, dst) == 0, "blit kernarg");
_Static_assert(offsetof(hrx_kfd_blit_args_t, source) == 8, "blit kernarg");
_Static_assert(offsetof(hrx_kfd_blit_args_t, count) == 16, "blit kernarg");
_Static_assert(offsetof(hrx_kfd_blit_args_t, stride) == 24, "blit kernarg");
_Static_assert(offsetof(hrx_kfd_blit_args_t, workgroup_size) == 32,
               "blit kernarg");
_Static_assert(sizeof(hrx_kfd_blit_args_t) == 40, "blit kernarg");

#endif  // HRX_FABRIC_KFD_BLIT_H_
