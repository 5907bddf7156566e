/* libFuzzer target: the AMDGPU code-object loader (ELF, relocations, the
 * msgpack metadata note, the HRX launch table). Any input either fails
 * with one of the loader's own codes, or yields kernels whose facts hold
 * up and an image that places at two addresses without touching memory
 * outside it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu_object.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

/* Placement is skipped above this, so a hostile size stays cheap. */
#define PLACE_LIMIT ((uint64_t)4 << 20)

static void check(int condition) {
  if (!condition) abort();
}

static void check_kernel(const hrx_amdgpu_object_t* object,
                         const hrx_amdgpu_kernel_t* k) {
  uint64_t image_size = hrx_amdgpu_object_image_size(object);
  check(strlen(k->name) > 0 && strlen(k->symbol) > 0);
  check(k->descriptor_offset % 64 == 0);
  check(k->descriptor_offset + 64 <= image_size);
  check(k->entry_offset % 256 == 0 && k->entry_offset < image_size);
  check(k->wavefront_size == 32);
  for (uint32_t a = 0; a < k->arg_count; ++a) {
    check((uint64_t)k->args[a].offset + k->args[a].size <= k->kernarg_size);
    check(strlen(k->args[a].type_name) < sizeof(k->args[a].type_name));
  }
  volatile uint8_t sink = 0;
  for (size_t i = 0; i < k->launch_program_length; ++i) {
    sink ^= k->launch_program[i];
  }
  (void)sink;
}

static void place_twice(const hrx_amdgpu_object_t* object) {
  uint64_t size = hrx_amdgpu_object_image_size(object);
  uint64_t alignment = hrx_amdgpu_object_image_alignment(object);
  check(alignment >= 256 && (alignment & (alignment - 1)) == 0);
  if (size > PLACE_LIMIT) return;
  /* Exactly |size| bytes each, so ASan sees any write past the image. */
  uint8_t* image = malloc(size ? size : 1);
  check(image != NULL);
  hrx_status_t status = hrx_amdgpu_object_place(object, alignment, image);
  check(status == HRX_OK);
  status = hrx_amdgpu_object_place(object, alignment << 20, image);
  check(status == HRX_OK);
  status = hrx_amdgpu_object_place(object, alignment + 1, image);
  check(hrx_status_code(status) == HRX_STATUS_INVALID_ARGUMENT);
  hrx_status_free(status);
  free(image);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hrx_amdgpu_object_t* object = NULL;
  hrx_status_t status =
      hrx_amdgpu_object_parse(data, size, hrx_allocator_system(), &object);
  if (status != HRX_OK) {
    hrx_status_code_t code = hrx_status_code(status);
    check(object == NULL);
    check(code == HRX_STATUS_DATA_LOSS ||
          code == HRX_STATUS_INVALID_ARGUMENT ||
          code == HRX_STATUS_UNIMPLEMENTED);
    hrx_status_free(status);
    return 0;
  }
  const char* target = hrx_amdgpu_object_target(object);
  check(!strcmp(target, "gfx1151") || !strcmp(target, "gfx11-generic"));
  size_t count = hrx_amdgpu_object_kernel_count(object);
  check(count > 0);
  for (size_t k = 0; k < count; ++k) {
    check_kernel(object, hrx_amdgpu_object_kernel(object, k));
  }
  check(hrx_amdgpu_object_kernel(object, count) == NULL);
  place_twice(object);
  hrx_amdgpu_object_destroy(object);
  return 0;
}
