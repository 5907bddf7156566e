/* Tensor descriptors, and DeviceTensors: views that hold their slot's
 * lease until released. */
#include <string.h>

#include "model_internal.h"

struct hrx_model_tensor_s {
  hrx_allocator_t allocator;
  hrx_model_slot_t* slot; /* one lease */
  hrx_model_tensor_desc_t desc;
  hrx_gpu_view_t view; /* exactly the extent */
  uint64_t readback_offset;
};

size_t hrx_model_dtype_size(hrx_model_dtype_t dtype) {
  switch (dtype) {
    case HRX_MODEL_DTYPE_F32:
    case HRX_MODEL_DTYPE_I32:
    case HRX_MODEL_DTYPE_U32:
      return 4;
    case HRX_MODEL_DTYPE_F16:
    case HRX_MODEL_DTYPE_BF16:
      return 2;
    case HRX_MODEL_DTYPE_I8:
    case HRX_MODEL_DTYPE_U8:
      return 1;
    default:
      return 0;
  }
}

static hrx_status_t hrx_model_desc_overflow(void) {
  return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                         "tensor extent overflows 64 bits");
}

hrx_status_t hrx_model_tensor_desc_extent(const hrx_model_tensor_desc_t* desc,
                                          uint64_t* out_bytes) {
  *out_bytes = 0;
  if (!desc) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no descriptor");
  }
  size_t element = hrx_model_dtype_size(desc->dtype);
  if (element == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "unknown dtype %d",
                           (int)desc->dtype);
  }
  if (desc->rank == 0 || desc->rank > HRX_MODEL_MAX_RANK) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "rank %u is outside 1..%d", desc->rank,
                           HRX_MODEL_MAX_RANK);
  }
  size_t strided = 0;
  for (uint32_t d = 0; d < desc->rank; ++d) {
    if (desc->shape[d] == 0) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "dimension %u is empty", d);
    }
    if (desc->strides[d]) strided++;
  }
  if (strided && strided != desc->rank) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "strides must be all zero (contiguous) or all "
                           "nonzero; %zu of %u are set",
                           strided, desc->rank);
  }
  /* Elements spanned: the last element's index plus one. */
  uint64_t last = 0, count = 1;
  for (uint32_t d = 0; d < desc->rank; ++d) {
    uint64_t term = 0;
    if (strided) {
      if (__builtin_mul_overflow(desc->shape[d] - 1, desc->strides[d], &term) ||
          __builtin_add_overflow(last, term, &last)) {
        return hrx_model_desc_overflow();
      }
    } else if (__builtin_mul_overflow(count, desc->shape[d], &count)) {
      return hrx_model_desc_overflow();
    }
  }
  uint64_t elements = strided ? last + 1 : count;
  if (elements == 0 || __builtin_mul_overflow(elements, element, out_bytes)) {
    return hrx_model_desc_overflow();
  }
  return HRX_OK;
}

bool hrx_model_tensor_desc_equal(const hrx_model_tensor_desc_t* a,
                                 const hrx_model_tensor_desc_t* b) {
  if (a->dtype != b->dtype || a->rank != b->rank) return false;
  for (uint32_t d = 0; d < a->rank && d < HRX_MODEL_MAX_RANK; ++d) {
    if (a->shape[d] != b->shape[d] || a->strides[d] != b->strides[d]) {
      return false;
    }
  }
  return true;
}

hrx_status_t hrx_model_tensor_create(hrx_allocator_t allocator,
                                     hrx_model_slot_t* slot,
                                     const hrx_model_tensor_desc_t* desc,
                                     hrx_gpu_view_t view,
                                     uint64_t readback_offset,
                                     hrx_model_tensor_t** out_tensor) {
  *out_tensor = NULL;
  hrx_model_tensor_t* t = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(allocator, sizeof(*t), (void**)&t));
  t->allocator = allocator;
  t->slot = slot;
  t->desc = *desc;
  t->view = view;
  t->readback_offset = readback_offset;
  hrx_model_slot_lease_retain(slot);
  *out_tensor = t;
  return HRX_OK;
}

const hrx_model_tensor_desc_t* hrx_model_tensor_desc(
    const hrx_model_tensor_t* t) {
  return &t->desc;
}

hrx_gpu_view_t hrx_model_tensor_view(const hrx_model_tensor_t* t) {
  return t->view;
}

hrx_status_t hrx_model_tensor_wait(hrx_model_tensor_t* t,
                                   uint64_t timeout_ns) {
  if (!t) return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT, "no tensor");
  return hrx_model_slot_wait(t->slot, timeout_ns);
}

hrx_status_t hrx_model_tensor_read(hrx_model_tensor_t* t, void* data,
                                   uint64_t length, uint64_t timeout_ns) {
  if (!t || !data) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "read needs a tensor and a destination");
  }
  if (length != t->view.length) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the tensor spans %llu bytes, not %llu",
                           (unsigned long long)t->view.length,
                           (unsigned long long)length);
  }
  HRX_RETURN_IF_ERROR(hrx_model_slot_wait(t->slot, timeout_ns));
  /* The download landed in the slot's readback storage, which the lease
   * keeps from the slot's next request. */
  memcpy(data, hrx_model_slot_readback(t->slot) + t->readback_offset, length);
  return HRX_OK;
}

void hrx_model_tensor_release(hrx_model_tensor_t* t) {
  if (!t) return;
  hrx_model_slot_t* slot = t->slot;
  hrx_allocator_free(t->allocator, t);
  hrx_model_slot_lease_release(slot);
}
