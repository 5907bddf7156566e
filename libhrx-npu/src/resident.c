/* The NPU half of a resident session: the startup word and its state
 * machine (WAIT -> RUN once both participants are accepted, WAIT -> ABORT
 * at any time before that). */
#include <stdatomic.h>
#include <string.h>

#include "device_internal.h"
#include "hrx/npu/resident.h"

#define BOTH_PARTIES (HRX_NPU_RESIDENT_NPU | HRX_NPU_RESIDENT_GPU)

struct hrx_npu_resident_s {
  hrx_allocator_t allocator;
  hrx_npu_buffer_t* startup; /* retained */
  uint32_t submitted;        /* parties reported, accepted or not */
  uint32_t accepted;
  hrx_npu_resident_word_t word;
};

/* Release-stores |word| at offset 0 so that everything the host wrote
 * before is visible first, then writes the line back for the NPU. */
static void publish(hrx_npu_resident_t* session,
                    hrx_npu_resident_word_t word) {
  _Atomic uint32_t* at = hrx_npu_buffer_host(session->startup);
  atomic_store_explicit(at, (uint32_t)word, memory_order_release);
  hrx_npu_buffer_flush(session->startup, 0, sizeof(uint32_t));
  session->word = word;
}

static const char* party_name(hrx_npu_resident_party_t party) {
  return party == HRX_NPU_RESIDENT_NPU ? "NPU" : "GPU";
}

static hrx_status_t check_undecided(const hrx_npu_resident_t* session,
                                    const char* what) {
  if (session->word == HRX_NPU_RESIDENT_WAIT) return HRX_OK;
  return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                         "cannot %s: the resident session already published "
                         "%s",
                         what,
                         session->word == HRX_NPU_RESIDENT_RUN ? "RUN"
                                                               : "ABORT");
}

/* A party may report once, before the decision. */
static hrx_status_t check_report(const hrx_npu_resident_t* session,
                                 hrx_npu_resident_party_t party) {
  if (party != HRX_NPU_RESIDENT_NPU && party != HRX_NPU_RESIDENT_GPU) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%u is not a resident session participant",
                           (unsigned)party);
  }
  HRX_RETURN_IF_ERROR(check_undecided(session, "submit a participant"));
  if (session->submitted & party) {
    return hrx_make_status(HRX_STATUS_FAILED_PRECONDITION,
                           "the %s participant was already submitted",
                           party_name(party));
  }
  return HRX_OK;
}

hrx_status_t hrx_npu_resident_create(hrx_npu_device_t* device,
                                     hrx_npu_buffer_t* startup,
                                     hrx_npu_resident_t** out_session) {
  *out_session = NULL;
  if (startup &&
      hrx_npu_buffer_size(startup) < HRX_NPU_RESIDENT_STARTUP_BYTES) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "a ResidentStartup allocation needs %u bytes, "
                           "not %llu",
                           HRX_NPU_RESIDENT_STARTUP_BYTES,
                           (unsigned long long)hrx_npu_buffer_size(startup));
  }
  hrx_npu_resident_t* session = NULL;
  HRX_RETURN_IF_ERROR(hrx_allocator_malloc(device->allocator,
                                           sizeof(*session),
                                           (void**)&session));
  session->allocator = device->allocator;
  if (startup) {
    hrx_npu_buffer_retain(startup);
    session->startup = startup;
  } else {
    hrx_status_t status = hrx_npu_buffer_allocate(
        device, HRX_NPU_RESIDENT_STARTUP_BYTES, &session->startup);
    if (status != HRX_OK) {
      hrx_allocator_free(device->allocator, session);
      return hrx_status_annotate(status, "the ResidentStartup allocation");
    }
  }
  publish(session, HRX_NPU_RESIDENT_WAIT);
  *out_session = session;
  return HRX_OK;
}

hrx_npu_buffer_t* hrx_npu_resident_startup(
    const hrx_npu_resident_t* session) {
  return session->startup;
}

hrx_status_t hrx_npu_resident_dispatch(hrx_npu_resident_t* session,
                                       hrx_npu_program_t* program,
                                       hrx_npu_invocation_t* out_invocation) {
  out_invocation->point = 0;
  HRX_RETURN_IF_ERROR(check_report(session, HRX_NPU_RESIDENT_NPU));
  session->submitted |= HRX_NPU_RESIDENT_NPU;
  hrx_status_t status = hrx_npu_program_dispatch(program, out_invocation);
  if (status != HRX_OK) {
    publish(session, HRX_NPU_RESIDENT_ABORT);
    return hrx_status_annotate(status, "the resident session's NPU "
                                       "participant was rejected; ABORT "
                                       "published");
  }
  session->accepted |= HRX_NPU_RESIDENT_NPU;
  return HRX_OK;
}

hrx_status_t hrx_npu_resident_accept(hrx_npu_resident_t* session,
                                     hrx_npu_resident_party_t party) {
  HRX_RETURN_IF_ERROR(check_report(session, party));
  session->submitted |= party;
  session->accepted |= party;
  return HRX_OK;
}

void hrx_npu_resident_reject(hrx_npu_resident_t* session,
                             hrx_npu_resident_party_t party) {
  session->submitted |= party;
  if (session->word == HRX_NPU_RESIDENT_WAIT) {
    publish(session, HRX_NPU_RESIDENT_ABORT);
  }
}

hrx_status_t hrx_npu_resident_run(hrx_npu_resident_t* session) {
  HRX_RETURN_IF_ERROR(check_undecided(session, "publish RUN"));
  if (session->accepted != BOTH_PARTIES) {
    return hrx_make_status(
        HRX_STATUS_BUSY,
        "RUN needs both participants accepted; still waiting for the%s%s",
        session->accepted & HRX_NPU_RESIDENT_NPU ? "" : " NPU",
        session->accepted & HRX_NPU_RESIDENT_GPU ? "" : " GPU");
  }
  publish(session, HRX_NPU_RESIDENT_RUN);
  return HRX_OK;
}

hrx_status_t hrx_npu_resident_abort(hrx_npu_resident_t* session) {
  if (session->word == HRX_NPU_RESIDENT_ABORT) return HRX_OK;
  HRX_RETURN_IF_ERROR(check_undecided(session, "publish ABORT"));
  publish(session, HRX_NPU_RESIDENT_ABORT);
  return HRX_OK;
}

hrx_npu_resident_word_t hrx_npu_resident_word(
    const hrx_npu_resident_t* session) {
  return session->word;
}

void hrx_npu_resident_destroy(hrx_npu_resident_t* session) {
  if (!session) return;
  if (session->word == HRX_NPU_RESIDENT_WAIT) {
    publish(session, HRX_NPU_RESIDENT_ABORT);
  }
  hrx_npu_buffer_release(session->startup);
  hrx_allocator_free(session->allocator, session);
}
