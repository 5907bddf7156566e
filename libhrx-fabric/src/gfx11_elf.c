/* Places an amdgpu code object into host memory for the gfx11 model,
 * through the fabric's one code-object loader (amdgpu_object.h): the image
 * goes into an allocation of its own, aligned as the object asks, with
 * relocations applied for that very address, since the model executes
 * host memory in place. */
#include <string.h>

#include "amdgpu_object.h"
#include "gfx11.h"

struct hrx_gfx11_image_t {
  hrx_allocator_t allocator;
  hrx_amdgpu_object_t* object;  /* kept for kernel lookups by name */
  uint8_t* block;               /* allocation; base is block aligned up */
  uint64_t base;
  uint64_t size;
};

static hrx_status_t gfx11_image_place(hrx_gfx11_image_t* image) {
  uint64_t size = hrx_amdgpu_object_image_size(image->object);
  uint64_t alignment = hrx_amdgpu_object_image_alignment(image->object);
  /* A range of zero bytes would map nothing; keep one byte. */
  image->size = size ? size : 1;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(
      image->allocator, (size_t)(image->size + alignment - 1),
      (void**)&image->block));
  image->base = ((uint64_t)(uintptr_t)image->block + alignment - 1) &
                ~(alignment - 1);
  return hrx_amdgpu_object_place(image->object, image->base,
                                 (uint8_t*)(uintptr_t)image->base);
}

hrx_status_t hrx_gfx11_image_load(const uint8_t* object, size_t length,
                                  hrx_allocator_t allocator,
                                  hrx_gfx11_image_t** out_image) {
  *out_image = NULL;
  hrx_gfx11_image_t* image = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(allocator, sizeof(*image), (void**)&image));
  image->allocator = allocator;
  hrx_status_t status =
      hrx_amdgpu_object_parse(object, length, allocator, &image->object);
  if (status == HRX_OK) status = gfx11_image_place(image);
  if (status != HRX_OK) {
    hrx_gfx11_image_destroy(image);
    return status;
  }
  *out_image = image;
  return HRX_OK;
}

void hrx_gfx11_image_destroy(hrx_gfx11_image_t* image) {
  if (!image) return;
  hrx_amdgpu_object_destroy(image->object);
  hrx_allocator_free(image->allocator, image->block);
  hrx_allocator_free(image->allocator, image);
}

hrx_gfx11_range_t hrx_gfx11_image_range(const hrx_gfx11_image_t* image) {
  return (hrx_gfx11_range_t){image->base, image->size};
}

hrx_status_t hrx_gfx11_image_kernel(const hrx_gfx11_image_t* image,
                                    const char* name,
                                    uint64_t* out_descriptor) {
  size_t count = hrx_amdgpu_object_kernel_count(image->object);
  for (size_t k = 0; k < count; ++k) {
    const hrx_amdgpu_kernel_t* kernel =
        hrx_amdgpu_object_kernel(image->object, k);
    if (strcmp(kernel->name, name) == 0) {
      *out_descriptor = image->base + kernel->descriptor_offset;
      return HRX_OK;
    }
  }
  return hrx_make_status(HRX_STATUS_NOT_FOUND,
                         "gfx11 object has no kernel '%s'", name);
}
