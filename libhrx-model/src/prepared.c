/* PreparedModel: slots built by the factory, checked for private IO, and
 * handed out one request at a time. */
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "model_internal.h"

#define HRX_MODEL_MAX_SLOTS 64

/* Resolves one IO entry of |slot| to a view of exactly its extent; the
 * session's mutex is held. Inputs must be contiguous: they are written
 * packed. */
static hrx_status_t hrx_model_io_resolve(hrx_model_session_t* session,
                                         const hrx_model_io_t* io, bool input,
                                         hrx_gpu_view_t* out_view) {
  uint64_t extent = 0;
  HRX_RETURN_IF_ERROR(hrx_model_tensor_desc_extent(&io->desc, &extent));
  if (input && io->desc.strides[0]) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "inputs are written packed: strides must be zero");
  }
  hrx_gpu_view_t view = {0};
  HRX_RETURN_IF_ERROR(
      hrx_model_session_resolve(session, &io->binding, input, false,
                                &view));
  if (view.length < extent) {
    return hrx_make_status(HRX_STATUS_OUT_OF_RANGE,
                           "the tensor spans %llu bytes; its binding has %llu",
                           (unsigned long long)extent,
                           (unsigned long long)view.length);
  }
  return hrx_gpu_view_slice(view, 0, extent, out_view);
}

/* Checks the factory's answer for |slot| and resolves its views; the
 * session's mutex is held. Every slot must match slot 0. */
static hrx_status_t hrx_model_slot_check(hrx_model_session_t* session,
                                         const hrx_model_slot_t* first,
                                         hrx_model_slot_t* slot) {
  const hrx_model_slot_graph_t* io = &slot->io;
  if (!hrx_model_session_graph(session, io->graph)) {
    return hrx_make_status(HRX_STATUS_NOT_FOUND, "no graph %llu is recorded",
                           (unsigned long long)io->graph);
  }
  if (io->input_count > HRX_MODEL_MAX_IO || io->output_count == 0 ||
      io->output_count > HRX_MODEL_MAX_IO) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%zu inputs and %zu outputs: 0..%d inputs and "
                           "1..%d outputs are allowed",
                           io->input_count, io->output_count, HRX_MODEL_MAX_IO,
                           HRX_MODEL_MAX_IO);
  }
  if (first && (io->input_count != first->io.input_count ||
                io->output_count != first->io.output_count)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "slot 0 has %zu inputs and %zu outputs, this one "
                           "%zu and %zu",
                           first->io.input_count, first->io.output_count,
                           io->input_count, io->output_count);
  }
  for (size_t i = 0; i < io->input_count + io->output_count; ++i) {
    bool input = i < io->input_count;
    size_t k = input ? i : i - io->input_count;
    const hrx_model_io_t* entry = input ? &io->inputs[k] : &io->outputs[k];
    hrx_gpu_view_t* view = input ? &slot->inputs[k] : &slot->outputs[k];
    hrx_status_t status = hrx_model_io_resolve(session, entry, input, view);
    if (status == HRX_OK && first) {
      const hrx_model_io_t* same =
          input ? &first->io.inputs[k] : &first->io.outputs[k];
      if (!hrx_model_tensor_desc_equal(&entry->desc, &same->desc)) {
        status = hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                                 "its descriptor differs from slot 0's");
      }
    }
    if (status != HRX_OK) {
      return hrx_status_annotate(status, "%s %zu", input ? "input" : "output",
                                 k);
    }
  }
  return HRX_OK;
}

static bool hrx_model_views_overlap(hrx_gpu_view_t a, hrx_gpu_view_t b) {
  return a.buffer == b.buffer && a.offset < b.offset + b.length &&
         b.offset < a.offset + a.length;
}

/* Every view a slot's requests write (its inputs by upload, its outputs
 * by the graph) must be its own. */
static hrx_status_t hrx_model_slots_private(const hrx_model_prepared_t* p) {
  for (uint32_t a = 0; a < p->slot_count; ++a) {
    const hrx_model_slot_t* sa = &p->slots[a];
    size_t na = sa->io.input_count + sa->io.output_count;
    for (uint32_t b = a + 1; b < p->slot_count; ++b) {
      const hrx_model_slot_t* sb = &p->slots[b];
      for (size_t i = 0; i < na; ++i) {
        hrx_gpu_view_t va = i < sa->io.input_count
                                ? sa->inputs[i]
                                : sa->outputs[i - sa->io.input_count];
        for (size_t j = 0; j < na; ++j) {
          hrx_gpu_view_t vb = j < sb->io.input_count
                                  ? sb->inputs[j]
                                  : sb->outputs[j - sb->io.input_count];
          if (hrx_model_views_overlap(va, vb)) {
            return hrx_make_status(
                HRX_STATUS_INVALID_ARGUMENT,
                "slots %u and %u share writable IO (their IO %zu and %zu "
                "overlap); independent slots need private inputs and "
                "outputs",
                a, b, i, j);
          }
        }
      }
    }
  }
  return HRX_OK;
}

static hrx_status_t hrx_model_prepared_build(hrx_model_prepared_t* p,
                                             hrx_model_slot_factory_fn factory,
                                             void* user) {
  hrx_model_session_t* session = p->session;
  for (uint32_t i = 0; i < p->slot_count; ++i) {
    hrx_model_slot_t* slot = &p->slots[i];
    hrx_status_t status = factory(user, session, i, &slot->io);
    if (status == HRX_OK) {
      pthread_mutex_lock(&session->mutex);
      status = hrx_model_slot_check(session, i ? &p->slots[0] : NULL, slot);
      pthread_mutex_unlock(&session->mutex);
    }
    if (status != HRX_OK) return hrx_status_annotate(status, "slot %u", i);
  }
  const hrx_model_slot_t* first = &p->slots[0];
  for (size_t i = 0; i < first->io.input_count; ++i) {
    p->input_bytes += first->inputs[i].length;
  }
  for (size_t i = 0; i < first->io.output_count; ++i) {
    p->output_bytes += first->outputs[i].length;
  }
  return hrx_model_slots_private(p);
}

hrx_status_t hrx_model_prepare(hrx_model_session_t* session,
                               uint32_t slot_count,
                               hrx_model_slot_factory_fn factory, void* user,
                               hrx_model_prepared_t** out_prepared) {
  *out_prepared = NULL;
  if (!session || !factory || slot_count == 0 ||
      slot_count > HRX_MODEL_MAX_SLOTS) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "prepare needs a session, a slot factory and "
                           "1..%d slots (got %u)",
                           HRX_MODEL_MAX_SLOTS, slot_count);
  }
  hrx_model_prepared_t* p = NULL;
  HRX_RETURN_IF_ERROR(
      hrx_allocator_malloc(session->allocator, sizeof(*p), (void**)&p));
  p->session = session;
  p->allocator = session->allocator;
  p->fd = -1;
  pthread_mutex_init(&p->mutex, NULL);
  pthread_condattr_t attributes;
  pthread_condattr_init(&attributes);
  pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
  pthread_cond_init(&p->freed, &attributes);
  pthread_condattr_destroy(&attributes);
  hrx_status_t status = hrx_allocator_malloc_array(
      p->allocator, slot_count, sizeof(*p->slots), (void**)&p->slots);
  if (status == HRX_OK) {
    p->slot_count = slot_count;
    for (uint32_t i = 0; i < slot_count; ++i) {
      p->slots[i].prepared = p;
      p->slots[i].index = i;
      pthread_mutex_init(&p->slots[i].mutex, NULL);
    }
    status = hrx_model_prepared_build(p, factory, user);
  }
  if (status == HRX_OK) {
    p->fd = eventfd(slot_count, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
    if (p->fd < 0) status = hrx_status_from_errno(errno, "eventfd");
  }
  if (status != HRX_OK) {
    hrx_model_prepared_destroy(p);
    return status;
  }
  p->free_count = slot_count;
  *out_prepared = p;
  return HRX_OK;
}

bool hrx_model_prepared_idle(hrx_model_prepared_t* p) {
  pthread_mutex_lock(&p->mutex);
  bool idle = p->free_count + p->disabled_count == p->slot_count;
  pthread_mutex_unlock(&p->mutex);
  return idle;
}

void hrx_model_prepared_destroy(hrx_model_prepared_t* p) {
  if (!p) return;
  hrx_model_session_t* session = p->session;
  for (uint32_t i = 0; i < p->slot_count; ++i) {
    hrx_model_slot_t* slot = &p->slots[i];
    if (slot->completion) {
      hrx_status_free(
          hrx_exec_completion_wait(slot->completion, HRX_TIMEOUT_INFINITE));
      hrx_exec_completion_release(slot->completion);
    }
    hrx_exec_graph_destroy(slot->graph);
    hrx_model_host_free(p->allocator, session->budget, slot->staging,
                        p->input_bytes);
    hrx_model_host_free(p->allocator, session->budget, slot->readback,
                        p->output_bytes);
    pthread_mutex_destroy(&slot->mutex);
  }
  if (p->fd >= 0) close(p->fd);
  pthread_cond_destroy(&p->freed);
  pthread_mutex_destroy(&p->mutex);
  hrx_allocator_free(p->allocator, p->slots);
  hrx_allocator_free(p->allocator, p);
}

uint32_t hrx_model_prepared_slot_count(const hrx_model_prepared_t* p) {
  return p->slot_count;
}

uint32_t hrx_model_prepared_disabled_count(hrx_model_prepared_t* p) {
  pthread_mutex_lock(&p->mutex);
  uint32_t count = p->disabled_count;
  pthread_mutex_unlock(&p->mutex);
  return count;
}

uint64_t hrx_model_prepared_input_bytes(const hrx_model_prepared_t* p) {
  return p->input_bytes;
}

size_t hrx_model_prepared_output_count(const hrx_model_prepared_t* p) {
  return p->slots[0].io.output_count;
}

int hrx_model_prepared_fd(const hrx_model_prepared_t* p) { return p->fd; }

/* Takes a free slot, or says why none can be had; mutex held. */
static hrx_status_t hrx_model_take(hrx_model_prepared_t* p,
                                   hrx_model_slot_t** out_slot) {
  if (p->disabled_count == p->slot_count) {
    return hrx_make_status(HRX_STATUS_UNAVAILABLE,
                           "every slot of the model is disabled by a device "
                           "failure");
  }
  if (p->free_count == 0) {
    return hrx_make_status(HRX_STATUS_BUSY, "all %u slots are in use",
                           p->slot_count);
  }
  for (uint32_t i = 0; i < p->slot_count; ++i) {
    hrx_model_slot_t* slot = &p->slots[i];
    if (slot->held || slot->disabled) continue;
    uint64_t one = 0;
    /* Keeps the eventfd's count equal to free_count. */
    if (read(p->fd, &one, sizeof(one)) != sizeof(one)) {
      return hrx_status_from_errno(errno, "reading the slot eventfd");
    }
    slot->held = true;
    slot->leases = 1;
    p->free_count--;
    *out_slot = slot;
    return HRX_OK;
  }
  return hrx_make_status(HRX_STATUS_INTERNAL, "free slot count out of step");
}

hrx_status_t hrx_model_prepared_try_acquire(hrx_model_prepared_t* p,
                                            hrx_model_slot_t** out_slot) {
  *out_slot = NULL;
  pthread_mutex_lock(&p->mutex);
  hrx_status_t status = hrx_model_take(p, out_slot);
  pthread_mutex_unlock(&p->mutex);
  return status;
}

hrx_status_t hrx_model_prepared_acquire(hrx_model_prepared_t* p,
                                        uint64_t timeout_ns,
                                        hrx_model_slot_t** out_slot) {
  *out_slot = NULL;
  uint64_t deadline = hrx_deadline_after(timeout_ns);
  pthread_mutex_lock(&p->mutex);
  hrx_status_t status = hrx_model_take(p, out_slot);
  while (hrx_status_is(status, HRX_STATUS_BUSY)) {
    hrx_status_free(status);
    uint64_t left = hrx_deadline_remaining(deadline);
    if (left == 0) {
      status = hrx_make_status(HRX_STATUS_DEADLINE_EXCEEDED,
                               "no slot became free in time");
      break;
    }
    if (deadline == HRX_DEADLINE_INFINITE) {
      pthread_cond_wait(&p->freed, &p->mutex);
    } else {
      struct timespec at = {(time_t)(deadline / 1000000000u),
                            (long)(deadline % 1000000000u)};
      pthread_cond_timedwait(&p->freed, &p->mutex, &at);
    }
    status = hrx_model_take(p, out_slot);
  }
  pthread_mutex_unlock(&p->mutex);
  return status;
}

void hrx_model_prepared_recycle(hrx_model_slot_t* slot) {
  hrx_model_prepared_t* p = slot->prepared;
  pthread_mutex_lock(&p->mutex);
  slot->held = false;
  if (slot->failed) {
    slot->disabled = true;
    p->disabled_count++;
  } else {
    p->free_count++;
    uint64_t one = 1;
    /* The count never nears the eventfd's limit: it stays <= 64. */
    if (write(p->fd, &one, sizeof(one)) != sizeof(one)) {
      p->free_count--;
      slot->disabled = true;
      p->disabled_count++;
    }
  }
  /* Waiters also learn when the last slot is disabled. */
  pthread_cond_broadcast(&p->freed);
  pthread_mutex_unlock(&p->mutex);
}
