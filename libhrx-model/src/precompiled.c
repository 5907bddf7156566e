/* The layer's own kernels from the context's code provider: named by
 * target, file and source digest, verified against the bundle's pin,
 * loaded instead of compiled. */
#include <stdio.h>
#include <string.h>

#include "model_internal.h"

/* "model-kernels/<target>/<file>-<hex>.hxco" (hrx/model/code_provider.h);
 * the longest target or file name fits with room to spare. */
#define HRX_MODEL_PRECOMPILED_NAME_SIZE 256

static hrx_status_t hrx_model_precompiled_name(const char* target,
                                               const char* file,
                                               const hrx_model_source_t* source,
                                               char* out_name) {
  hrx_sha256_digest_t digest;
  hrx_sha256(source->source, source->length, &digest);
  char hex[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&digest, hex);
  int length = snprintf(out_name, HRX_MODEL_PRECOMPILED_NAME_SIZE,
                        "model-kernels/%s/%s-%s.hxco", target, file, hex);
  if (length < 0 || length >= HRX_MODEL_PRECOMPILED_NAME_SIZE) {
    return hrx_make_status(HRX_STATUS_INTERNAL,
                           "the bundle name of kernel %s for %s is too long",
                           file, target);
  }
  return HRX_OK;
}

/* DATA_LOSS unless |object|'s bytes hash to the digest its bundle pins. */
static hrx_status_t hrx_model_precompiled_verify(
    const char* name, const hrx_model_code_object_t* object) {
  if (!object->code || object->length == 0) {
    return hrx_make_status(HRX_STATUS_DATA_LOSS,
                           "code object %s: the provider handed out no "
                           "bytes",
                           name);
  }
  hrx_sha256_digest_t actual;
  hrx_sha256(object->code, object->length, &actual);
  if (memcmp(&actual, &object->sha256, sizeof(actual)) == 0) return HRX_OK;
  char got[HRX_SHA256_HEX_SIZE], pinned[HRX_SHA256_HEX_SIZE];
  hrx_sha256_digest_format(&actual, got);
  hrx_sha256_digest_format(&object->sha256, pinned);
  return hrx_make_status(HRX_STATUS_DATA_LOSS,
                         "code object %s has SHA-256 %s where its bundle "
                         "pins %s: the installed bundle is damaged; "
                         "reinstall it (hrx prepare)",
                         name, got, pinned);
}

hrx_status_t hrx_model_precompiled_load(hrx_model_session_t* s,
                                        const char* file,
                                        const hrx_model_source_t* source,
                                        hrx_model_kernel_t* out_kernel,
                                        bool* out_found) {
  *out_found = false;
  hrx_model_context_t* c = s->context;
  /* Bundle code objects are built without sanitizers. */
  if (!c->has_code_provider || c->compiler_options.sanitizers) return HRX_OK;
  hrx_sha256_digest_t digest;
  hrx_model_source_digest(source, &digest);
  pthread_mutex_lock(&s->mutex);
  ptrdiff_t held = hrx_model_kernel_find(s, &digest);
  if (held >= 0) out_kernel->bits = hrx_model_id_make(s, (size_t)held);
  pthread_mutex_unlock(&s->mutex);
  if (held >= 0) {
    *out_found = true;
    return HRX_OK;
  }
  const char* target = hrx_gpu_device_properties(s->device)->profile_target;
  char name[HRX_MODEL_PRECOMPILED_NAME_SIZE];
  HRX_RETURN_IF_ERROR(hrx_model_precompiled_name(target, file, source, name));
  hrx_model_code_object_t object = {0};
  hrx_status_t status =
      c->code_provider.find(c->code_provider.user, name, &object);
  if (hrx_status_code(status) == HRX_STATUS_NOT_FOUND) {
    hrx_status_free(status);
    return HRX_OK;
  }
  if (status != HRX_OK) {
    return hrx_status_annotate(status, "the code provider finding %s", name);
  }
  status = hrx_model_precompiled_verify(name, &object);
  hrx_gpu_kernel_t* kernel = NULL;
  if (status == HRX_OK) {
    status = hrx_gpu_kernel_load(s->device, object.code, object.length,
                                 source->export_name, &kernel);
    if (status != HRX_OK) {
      status = hrx_status_annotate(status, "loading %s from %s",
                                   source->export_name, name);
    }
  }
  if (c->code_provider.release) {
    c->code_provider.release(c->code_provider.user, &object);
  }
  HRX_RETURN_IF_ERROR(status);
  pthread_mutex_lock(&s->mutex);
  status = hrx_model_kernel_add(s, &digest, kernel, out_kernel);
  pthread_mutex_unlock(&s->mutex);
  HRX_RETURN_IF_ERROR(status);
  atomic_fetch_add_explicit(&c->precompiled, 1, memory_order_relaxed);
  *out_found = true;
  return HRX_OK;
}
