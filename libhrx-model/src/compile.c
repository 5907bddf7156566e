/* Compiling a trusted batch of Loom sources into session kernels, each
 * source and export compiled once per session. */
#include <string.h>

#include "model_internal.h"

void hrx_model_source_digest(const hrx_model_source_t* source,
                             hrx_sha256_digest_t* out_digest) {
  hrx_sha256_t context;
  hrx_sha256_init(&context);
  hrx_sha256_update(&context, source->export_name,
                    strlen(source->export_name) + 1);
  hrx_sha256_update(&context, source->source, source->length);
  hrx_sha256_final(&context, out_digest);
}

ptrdiff_t hrx_model_kernel_find(const hrx_model_session_t* s,
                                const hrx_sha256_digest_t* digest) {
  for (size_t i = 0; i < s->kernel_count; ++i) {
    if (memcmp(&s->kernels[i].digest, digest, sizeof(*digest)) == 0) {
      return (ptrdiff_t)i;
    }
  }
  return -1;
}

/* Also used when adopting frozen kernels; here it catches a thread that
 * compiled the same source first. */
hrx_status_t hrx_model_kernel_add(hrx_model_session_t* s,
                                         const hrx_sha256_digest_t* digest,
                                         hrx_gpu_kernel_t* kernel,
                                         hrx_model_kernel_t* out_kernel) {
  ptrdiff_t found = hrx_model_kernel_find(s, digest);
  if (found >= 0) {
    hrx_gpu_kernel_release(kernel);
    out_kernel->bits = hrx_model_id_make(s, (size_t)found);
    return HRX_OK;
  }
  hrx_status_t status = hrx_allocator_grow_array(
      s->allocator, sizeof(*s->kernels), s->kernel_count + 1,
      &s->kernel_capacity, (void**)&s->kernels);
  if (status != HRX_OK) {
    hrx_gpu_kernel_release(kernel);
    return status;
  }
  s->kernels[s->kernel_count] =
      (hrx_model_kernel_rec_t){.digest = *digest, .kernel = kernel};
  out_kernel->bits = hrx_model_id_make(s, s->kernel_count++);
  return HRX_OK;
}

static hrx_status_t hrx_model_check_sources(const hrx_model_source_t* sources,
                                            size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!sources[i].source || sources[i].length == 0 ||
        !sources[i].export_name) {
      return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                             "source %zu (%s) needs text and an export name",
                             i, sources[i].source_name
                                    ? sources[i].source_name
                                    : "<input>");
    }
  }
  return HRX_OK;
}

/* Compiles the sources not yet known (|pending| of them, listed in
 * |order|) in one batch and loads their kernels into out_kernels. */
static hrx_status_t hrx_model_compile_pending(
    hrx_model_session_t* s, hrx_loom_compiler_t* compiler,
    const hrx_model_source_t* sources,
    const hrx_sha256_digest_t* digests, const size_t* order, size_t pending,
    hrx_model_kernel_t* out_kernels) {
  hrx_loom_compile_request_t* requests = NULL;
  hrx_loom_artifact_t** artifacts = NULL;
  hrx_status_t* statuses = NULL;
  hrx_status_t status = hrx_allocator_malloc_array(
      s->allocator, pending, sizeof(*requests), (void**)&requests);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(s->allocator, pending,
                                        sizeof(*artifacts), (void**)&artifacts);
  }
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(s->allocator, pending,
                                        sizeof(*statuses), (void**)&statuses);
  }
  if (status == HRX_OK) {
    for (size_t p = 0; p < pending; ++p) {
      const hrx_model_source_t* src = &sources[order[p]];
      requests[p] = (hrx_loom_compile_request_t){
          .source = src->source,
          .length = src->length,
          .source_name = src->source_name,
          .export_name = src->export_name,
      };
    }
    status = hrx_loom_compile_all(compiler, requests, pending, artifacts,
                                  statuses);
  }
  if (status == HRX_OK) {
    atomic_fetch_add_explicit(&s->context->compiled, pending,
                              memory_order_relaxed);
  }
  bool ran = status == HRX_OK;
  for (size_t p = 0; ran && p < pending; ++p) {
    const hrx_model_source_t* src = &sources[order[p]];
    if (status == HRX_OK && statuses[p] != HRX_OK) {
      status = hrx_status_annotate(statuses[p], "compiling %s (export %s)",
                                   src->source_name ? src->source_name
                                                    : "<input>",
                                   src->export_name);
      statuses[p] = HRX_OK;
    }
    hrx_status_free(statuses[p]);
    if (status == HRX_OK) {
      size_t length = 0;
      const uint8_t* code = hrx_loom_artifact_code(artifacts[p], &length);
      hrx_gpu_kernel_t* kernel = NULL;
      status = hrx_gpu_kernel_load(s->device, code, length, src->export_name,
                                   &kernel);
      if (status == HRX_OK) {
        pthread_mutex_lock(&s->mutex);
        status = hrx_model_kernel_add(s, &digests[order[p]], kernel,
                                      &out_kernels[order[p]]);
        pthread_mutex_unlock(&s->mutex);
      }
    }
    hrx_loom_artifact_destroy(artifacts[p]);
  }
  hrx_allocator_free(s->allocator, statuses);
  hrx_allocator_free(s->allocator, artifacts);
  hrx_allocator_free(s->allocator, requests);
  return status;
}

hrx_status_t hrx_model_session_compile(hrx_model_session_t* s,
                                       const hrx_model_source_t* sources,
                                       size_t count,
                                       hrx_model_kernel_t* out_kernels) {
  if (!sources || !out_kernels || count == 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "compile needs sources and room for their ids");
  }
  memset(out_kernels, 0, count * sizeof(*out_kernels));
  HRX_RETURN_IF_ERROR(hrx_model_check_sources(sources, count));
  hrx_sha256_digest_t* digests = NULL;
  size_t* order = NULL;
  hrx_status_t status = hrx_allocator_malloc_array(
      s->allocator, count, sizeof(*digests), (void**)&digests);
  if (status == HRX_OK) {
    status = hrx_allocator_malloc_array(s->allocator, count, sizeof(*order),
                                        (void**)&order);
  }
  size_t pending = 0;
  if (status == HRX_OK) {
    pthread_mutex_lock(&s->mutex);
    for (size_t i = 0; i < count; ++i) {
      hrx_model_source_digest(&sources[i], &digests[i]);
      ptrdiff_t found = hrx_model_kernel_find(s, &digests[i]);
      if (found >= 0) {
        out_kernels[i].bits = hrx_model_id_make(s, (size_t)found);
      } else {
        order[pending++] = i;
      }
    }
    pthread_mutex_unlock(&s->mutex);
  }
  hrx_loom_compiler_t* compiler = NULL;
  if (status == HRX_OK && pending) {
    status = hrx_model_context_compiler(s->context, &compiler);
  }
  /* The compiler is thread-safe: compile outside the lock. */
  if (status == HRX_OK && pending) {
    status = hrx_model_compile_pending(s, compiler, sources, digests, order,
                                       pending, out_kernels);
  }
  hrx_allocator_free(s->allocator, order);
  hrx_allocator_free(s->allocator, digests);
  return status;
}

hrx_status_t hrx_model_session_kernel(hrx_model_session_t* s,
                                      hrx_model_kernel_t kernel,
                                      hrx_gpu_kernel_t** out_kernel) {
  *out_kernel = NULL;
  pthread_mutex_lock(&s->mutex);
  size_t index = 0;
  hrx_status_t status = hrx_model_id_index(s, kernel.bits, s->kernel_count,
                                           "kernel", &index);
  if (status == HRX_OK) *out_kernel = s->kernels[index].kernel;
  pthread_mutex_unlock(&s->mutex);
  return status;
}
