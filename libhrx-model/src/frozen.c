/* Frozen state: a session's weights and kernels made immutable and shared
 * by the sessions of its context, charged once. */
#include <string.h>

#include "model_internal.h"

void hrx_model_frozen_retain(hrx_model_frozen_t* f) {
  atomic_fetch_add_explicit(&f->references, 1, memory_order_relaxed);
}

void hrx_model_frozen_release(hrx_model_frozen_t* f) {
  if (!f || atomic_fetch_sub_explicit(&f->references, 1,
                                      memory_order_acq_rel) != 1) {
    return;
  }
  for (size_t i = 0; i < f->weight_count; ++i) {
    hrx_gpu_buffer_release(f->weights[i]);
  }
  hrx_model_budget_uncharge(f->context->budget, f->bytes);
  for (size_t i = 0; i < f->kernel_count; ++i) {
    hrx_gpu_kernel_release(f->kernels[i].kernel);
  }
  hrx_allocator_free(f->allocator, f->weights);
  hrx_allocator_free(f->allocator, f->kernels);
  hrx_model_context_t* context = f->context;
  hrx_allocator_free(f->allocator, f);
  hrx_model_context_release(context);
}

size_t hrx_model_frozen_weight_count(const hrx_model_frozen_t* f) {
  return f->weight_count;
}
size_t hrx_model_frozen_kernel_count(const hrx_model_frozen_t* f) {
  return f->kernel_count;
}
uint64_t hrx_model_frozen_bytes(const hrx_model_frozen_t* f) {
  return f->bytes;
}

/* Room in the session for one more frozen reference; mutex held. */
static hrx_status_t hrx_model_frozen_reserve(hrx_model_session_t* s) {
  return hrx_allocator_grow_array(s->allocator, sizeof(*s->frozen),
                                  s->frozen_count + 1, &s->frozen_capacity,
                                  (void**)&s->frozen);
}

/* Fills |f| with references to the session's unfrozen weights and its
 * kernels; mutex held. Marks nothing: the caller commits. */
static hrx_status_t hrx_model_frozen_collect(hrx_model_session_t* s,
                                             hrx_model_frozen_t* f) {
  size_t weights = 0;
  for (size_t i = 0; i < s->region_count; ++i) {
    weights += s->regions[i].weight && !s->regions[i].frozen;
  }
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      f->allocator, weights, sizeof(*f->weights), (void**)&f->weights));
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc_array(
      f->allocator, s->kernel_count, sizeof(*f->kernels), (void**)&f->kernels));
  for (size_t i = 0; i < s->region_count; ++i) {
    const hrx_model_region_rec_t* rec = &s->regions[i];
    if (!rec->weight || rec->frozen) continue;
    hrx_gpu_buffer_retain(rec->buffer);
    f->weights[f->weight_count++] = rec->buffer;
  }
  for (size_t i = 0; i < s->kernel_count; ++i) {
    hrx_gpu_kernel_retain(s->kernels[i].kernel);
    f->kernels[f->kernel_count++] = s->kernels[i];
  }
  return HRX_OK;
}

hrx_status_t hrx_model_session_freeze(hrx_model_session_t* s,
                                      hrx_model_frozen_t** out_frozen) {
  *out_frozen = NULL;
  hrx_model_frozen_t* f = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(s->allocator, sizeof(*f), (void**)&f));
  f->allocator = s->allocator;
  atomic_init(&f->references, 1);
  f->context = s->context;
  hrx_model_context_retain(f->context);
  pthread_mutex_lock(&s->mutex);
  hrx_status_t status = hrx_model_frozen_reserve(s);
  if (status == HRX_OK) status = hrx_model_frozen_collect(s, f);
  if (status == HRX_OK) {
    /* The weights' charge moves from the session to the frozen state. */
    for (size_t i = 0; i < s->region_count; ++i) {
      hrx_model_region_rec_t* rec = &s->regions[i];
      if (!rec->weight || rec->frozen) continue;
      rec->frozen = true;
      f->bytes += hrx_gpu_buffer_size(rec->buffer);
    }
    hrx_model_frozen_retain(f);
    s->frozen[s->frozen_count++] = f;
  }
  pthread_mutex_unlock(&s->mutex);
  if (status != HRX_OK) {
    hrx_model_frozen_release(f); /* f->bytes is still 0: uncharges nothing */
    return hrx_status_annotate(status, "freezing the session");
  }
  *out_frozen = f;
  return HRX_OK;
}

/* Adds |f|'s weights and kernels to the session's tables; mutex held.
 * Every table grows first, so the additions below cannot fail. */
static hrx_status_t hrx_model_frozen_adopt_locked(
    hrx_model_session_t* s, hrx_model_frozen_t* f,
    hrx_model_region_t* out_weights, hrx_model_kernel_t* out_kernels) {
  HRX_RETURN_IF_ERROR(hrx_model_frozen_reserve(s));
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(
      s->allocator, sizeof(*s->regions), s->region_count + f->weight_count,
      &s->region_capacity, (void**)&s->regions));
  HRX_RETURN_IF_ERROR(hrx_allocator_grow_array(
      s->allocator, sizeof(*s->kernels), s->kernel_count + f->kernel_count,
      &s->kernel_capacity, (void**)&s->kernels));
  /* From here on the session holds |f|, so every weight added below is
   * covered by its charge. */
  hrx_model_frozen_retain(f);
  s->frozen[s->frozen_count++] = f;
  for (size_t i = 0; i < f->weight_count; ++i) {
    hrx_gpu_buffer_retain(f->weights[i]);
    s->regions[s->region_count] = (hrx_model_region_rec_t){
        .buffer = f->weights[i],
        .weight = true,
        .frozen = true,
        .bytes = hrx_gpu_buffer_size(f->weights[i])};
    out_weights[i].bits = hrx_model_id_make(s, s->region_count++);
  }
  for (size_t i = 0; i < f->kernel_count; ++i) {
    hrx_gpu_kernel_retain(f->kernels[i].kernel);
    HRX_RETURN_IF_ERROR(hrx_model_kernel_add(s, &f->kernels[i].digest,
                                             f->kernels[i].kernel,
                                             &out_kernels[i]));
  }
  return HRX_OK;
}

hrx_status_t hrx_model_session_adopt(hrx_model_session_t* s,
                                     hrx_model_frozen_t* f,
                                     hrx_model_region_t* out_weights,
                                     hrx_model_kernel_t* out_kernels) {
  if (!f || (f->weight_count && !out_weights) ||
      (f->kernel_count && !out_kernels)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "adopt needs a frozen state and room for its ids");
  }
  if (f->context != s->context) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the frozen state belongs to another context");
  }
  if (f->weight_count) {
    memset(out_weights, 0, f->weight_count * sizeof(*out_weights));
  }
  if (f->kernel_count) {
    memset(out_kernels, 0, f->kernel_count * sizeof(*out_kernels));
  }
  pthread_mutex_lock(&s->mutex);
  hrx_status_t status =
      hrx_model_frozen_adopt_locked(s, f, out_weights, out_kernels);
  pthread_mutex_unlock(&s->mutex);
  return status;
}
