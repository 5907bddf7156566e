/* Executables of the kfd provider: an AMDGPU code object (amdgpu_object.h)
 * placed in executable GPU memory, relocated for its address, with one
 * fabric kernel per metadata kernel whose kernel_object is the descriptor's
 * address. The device keeps a list of loaded executables so a queue can
 * find a kernel's kernarg layout when a dispatch is published. */
#include <string.h>

#include "amdgpu_object.h"
#include "kfd_device.h"
#include "kfd_ioctl.h"

typedef struct hrx_kfd_executable_t {
  hrx_fabric_executable_t base; /* first */
  hrx_amdgpu_object_t* object;
  hrx_fabric_memory_t code;
  bool holds_device; /* false for the device's own blit kernels */
} hrx_kfd_executable_t;

/* A scalar's type, from the metadata's ".type_name" when it has one,
 * else from its size. */
static uint8_t hrx_kfd_scalar_type(const hrx_amdgpu_arg_t* arg) {
  static const struct {
    const char* name;
    uint8_t type;
  } names[] = {{"float", HRX_HOST_TYPE_F32},  {"double", HRX_HOST_TYPE_F64},
               {"half", HRX_HOST_TYPE_F16},   {"bfloat", HRX_HOST_TYPE_BF16},
               {"f32", HRX_HOST_TYPE_F32},    {"f64", HRX_HOST_TYPE_F64},
               {"f16", HRX_HOST_TYPE_F16},    {"bf16", HRX_HOST_TYPE_BF16},
               {"i1", HRX_HOST_TYPE_I1}};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    if (strcmp(arg->type_name, names[i].name) == 0) return names[i].type;
  }
  switch (arg->size) {
    case 1: return HRX_HOST_TYPE_I8;
    case 2: return HRX_HOST_TYPE_I16;
    case 4: return HRX_HOST_TYPE_I32;
    default: return HRX_HOST_TYPE_I64;
  }
}

static bool hrx_kfd_arg_explicit(const hrx_amdgpu_arg_t* arg) {
  return arg->kind == HRX_AMDGPU_ARG_BY_VALUE ||
         arg->kind == HRX_AMDGPU_ARG_GLOBAL_BUFFER;
}

static void hrx_kfd_executable_forget(hrx_kfd_device_t* d,
                                      hrx_fabric_executable_t* exe) {
  pthread_mutex_lock(&d->mutex);
  for (size_t i = 0; i < d->executable_count; ++i) {
    if (d->executables[i] != exe) continue;
    d->executables[i] = d->executables[--d->executable_count];
    break;
  }
  pthread_mutex_unlock(&d->mutex);
}

static void hrx_kfd_executable_destroy(hrx_fabric_executable_t* base) {
  hrx_kfd_executable_t* e = (hrx_kfd_executable_t*)base;
  hrx_kfd_device_t* d = hrx_kfd_device_cast(base->device);
  hrx_kfd_executable_forget(d, base);
  hrx_allocator_t a = base->allocator;
  for (uint32_t k = 0; k < base->kernel_count; ++k) {
    hrx_allocator_free(a, base->kernels[k].args);
  }
  hrx_allocator_free(a, base->kernels);
  if (e->code.device_address) hrx_kfd_memory_free(&d->base, &e->code);
  hrx_amdgpu_object_destroy(e->object);
  bool holds = e->holds_device;
  hrx_allocator_free(a, e);
  if (holds) hrx_fabric_device_release(&d->base);
}

static hrx_status_t hrx_kfd_kernel_fill(hrx_kfd_executable_t* e, uint32_t k) {
  const hrx_amdgpu_kernel_t* src = hrx_amdgpu_object_kernel(e->object, k);
  hrx_fabric_kernel_t* dst = &e->base.kernels[k];
  uint32_t count = 0;
  for (uint32_t i = 0; i < src->arg_count; ++i) {
    count += hrx_kfd_arg_explicit(&src->args[i]);
  }
  if (count > HRX_HOST_MAX_BINDINGS * 2) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "kernel '%s' takes %u arguments; HRX passes at "
                           "most %u", src->name, count,
                           HRX_HOST_MAX_BINDINGS * 2);
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      e->base.allocator, count ? count : 1, sizeof(hrx_fabric_kernel_arg_t),
      (void**)&dst->args));
  dst->executable = &e->base;
  dst->name = src->name;
  dst->object = e->code.device_address + src->descriptor_offset;
  dst->amdgpu = src;
  dst->subgroup_size = src->wavefront_size;
  dst->group_segment_size = src->group_segment_size;
  dst->private_segment_size = src->private_segment_size;
  dst->kernarg_size = src->kernarg_size;
  dst->launch_program = src->launch_program;
  dst->launch_program_length = src->launch_program_length;
  for (uint32_t i = 0; i < src->arg_count; ++i) {
    const hrx_amdgpu_arg_t* arg = &src->args[i];
    if (!hrx_kfd_arg_explicit(arg)) continue;
    bool buffer = arg->kind == HRX_AMDGPU_ARG_GLOBAL_BUFFER;
    dst->args[dst->arg_count++] = (hrx_fabric_kernel_arg_t){
        .kind = buffer ? HRX_FABRIC_ARG_BUFFER : HRX_FABRIC_ARG_SCALAR,
        .type = buffer ? HRX_HOST_TYPE_I64 : hrx_kfd_scalar_type(arg),
        .offset = arg->offset,
        .size = arg->size};
    dst->buffer_count += buffer;
  }
  return HRX_OK;
}

/* Places the image in executable GPU memory and builds the kernels. */
static hrx_status_t hrx_kfd_executable_build(hrx_kfd_device_t* d,
                                             hrx_kfd_executable_t* e) {
  uint64_t size = hrx_amdgpu_object_image_size(e->object);
  /* Allocations are page aligned, which covers the image's alignment up
   * to a page; more is refused rather than silently misplaced. */
  if (hrx_amdgpu_object_image_alignment(e->object) > HRX_KFD_PAGE) {
    return hrx_make_status(HRX_STATUS_UNIMPLEMENTED,
                           "code object asks for %llu-byte alignment",
                           (unsigned long long)
                               hrx_amdgpu_object_image_alignment(e->object));
  }
  HRX_RETURN_IF_ERROR(hrx_kfd_memory_allocate_flags(
      d, size ? size : 1, HRX_KFD_ALLOC_EXECUTABLE, true, &e->code));
  HRX_RETURN_IF_ERROR(hrx_amdgpu_object_place(
      e->object, e->code.device_address, e->code.host_pointer));
  size_t count = hrx_amdgpu_object_kernel_count(e->object);
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      e->base.allocator, count ? count : 1, sizeof(hrx_fabric_kernel_t),
      (void**)&e->base.kernels));
  memset(e->base.kernels, 0, (count ? count : 1) * sizeof(hrx_fabric_kernel_t));
  for (size_t k = 0; k < count; ++k) {
    e->base.kernel_count = (uint32_t)k + 1;
    HRX_RETURN_IF_ERROR(hrx_kfd_kernel_fill(e, (uint32_t)k));
  }
  pthread_mutex_lock(&d->mutex);
  hrx_status_t status = hrx_allocator_grow_array(
      e->base.allocator, sizeof(hrx_fabric_executable_t*),
      d->executable_count + 1, &d->executable_capacity,
      (void**)&d->executables);
  if (status == HRX_OK) d->executables[d->executable_count++] = &e->base;
  pthread_mutex_unlock(&d->mutex);
  return status;
}

hrx_status_t hrx_kfd_executable_load(hrx_fabric_device_t* base,
                                     const void* bytes, size_t length,
                                     hrx_fabric_executable_t** out) {
  return hrx_kfd_executable_load_internal(hrx_kfd_device_cast(base), bytes,
                                          length, true, out);
}

hrx_status_t hrx_kfd_executable_load_internal(hrx_kfd_device_t* d,
                                              const void* bytes,
                                              size_t length,
                                              bool hold_device,
                                              hrx_fabric_executable_t** out) {
  hrx_fabric_device_t* base = &d->base;
  hrx_allocator_t a = base->allocator;
  hrx_kfd_executable_t* e = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(a, sizeof(*e), (void**)&e));
  memset(e, 0, sizeof(*e));
  atomic_init(&e->base.ref_count, 1);
  e->base.allocator = a;
  e->base.device = base;
  e->base.destroy = hrx_kfd_executable_destroy;
  e->holds_device = hold_device;
  if (hold_device) hrx_fabric_device_retain(base);
  hrx_status_t status =
      hrx_amdgpu_object_parse(bytes, length, a, &e->object);
  if (status == HRX_OK) status = hrx_kfd_executable_build(d, e);
  if (status != HRX_OK) {
    hrx_kfd_executable_destroy(&e->base);
    return status;
  }
  *out = &e->base;
  return HRX_OK;
}

const hrx_fabric_kernel_t* hrx_kfd_find_kernel_locked(
    hrx_kfd_device_t* d, uint64_t kernel_object) {
  for (size_t i = 0; i < d->executable_count; ++i) {
    const hrx_fabric_executable_t* exe = d->executables[i];
    for (uint32_t k = 0; k < exe->kernel_count; ++k) {
      if (exe->kernels[k].object == kernel_object) return &exe->kernels[k];
    }
  }
  return NULL;
}

const hrx_fabric_kernel_t* hrx_kfd_find_kernel(hrx_kfd_device_t* d,
                                               uint64_t kernel_object) {
  pthread_mutex_lock(&d->mutex);
  const hrx_fabric_kernel_t* found = hrx_kfd_find_kernel_locked(d,
                                                                kernel_object);
  pthread_mutex_unlock(&d->mutex);
  return found;
}
