/* Queue families side by side (gpu_families.h). Every family copies the
 * same 4 KiB between the same two allocations of one fabric device. */
#include "gpu_families.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "hrx/fabric.h"

#define CHECK(expr) bench_check((expr), #expr)
#define COPY_BYTES 4096u
#define AQL_PACKETS 1024u

typedef struct family_t {
  hrx_fabric_device_t* device;
  hrx_fabric_memory_t source, destination;
  hrx_fabric_queue_t* aql;
  hrx_fabric_signal_t* done;
  hrx_fabric_pm4_queue_t* pm4;
  hrx_fabric_transfer_queue_t* sdma;
} family_t;

typedef struct figures_t {
  double p[3];
  double rate;
} figures_t;

static int compare_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return (x > y) - (x < y);
}

/* AQL: |count| agent copy packets completing one signal set to |count|. */
static void aql_copies(family_t* f, int count) {
  hrx_fabric_signal_store(f->done, count);
  for (int i = 0; i < count; ++i) {
    uint64_t index = 0;
    CHECK(hrx_fabric_queue_reserve(f->aql, 1, &index));
    hrx_aql_agent_packet_t* p = &hrx_fabric_queue_slot(f->aql, index)->agent;
    memset((uint8_t*)p + 4, 0, sizeof(*p) - 4);
    p->arg[0] = f->destination.device_address;
    p->arg[1] = f->source.device_address;
    p->arg[2] = COPY_BYTES;
    p->completion_signal = hrx_fabric_signal_handle(f->done);
    hrx_fabric_queue_publish(
        f->aql, index,
        hrx_aql_header(HRX_AQL_PACKET_AGENT, 1, HRX_AQL_FENCE_SYSTEM,
                       HRX_AQL_FENCE_SYSTEM),
        HRX_AQL_AGENT_COPY);
  }
  CHECK(hrx_fabric_signal_wait(f->done, HRX_FABRIC_SIGNAL_LT, 1,
                               HRX_TIMEOUT_INFINITE, NULL));
}

/* PM4 and SDMA: a full ring answers RESOURCE_EXHAUSTED; the copies before
 * are then waited for and the copy retried. */
static bool full(hrx_status_t status) {
  if (!hrx_status_is(status, HRX_STATUS_RESOURCE_EXHAUSTED)) {
    CHECK(status);
    return false;
  }
  hrx_status_free(status);
  return true;
}

static void pm4_copies(family_t* f, int count) {
  uint64_t fence = 0;
  for (int i = 0; i < count; ++i) {
    while (full(hrx_fabric_pm4_copy(f->pm4, f->destination.device_address,
                                    f->source.device_address, COPY_BYTES))) {
      CHECK(hrx_fabric_pm4_wait(f->pm4, fence, HRX_TIMEOUT_INFINITE));
    }
    CHECK(hrx_fabric_pm4_submit(f->pm4, &fence));
  }
  CHECK(hrx_fabric_pm4_wait(f->pm4, fence, HRX_TIMEOUT_INFINITE));
}

static void sdma_copies(family_t* f, int count) {
  uint64_t fence = 0;
  for (int i = 0; i < count; ++i) {
    while (full(hrx_fabric_transfer_copy(f->sdma,
                                         f->destination.device_address,
                                         f->source.device_address,
                                         COPY_BYTES))) {
      CHECK(hrx_fabric_transfer_wait(f->sdma, fence, HRX_TIMEOUT_INFINITE));
    }
    CHECK(hrx_fabric_transfer_submit(f->sdma, &fence));
  }
  CHECK(hrx_fabric_transfer_wait(f->sdma, fence, HRX_TIMEOUT_INFINITE));
}

typedef void (*copies_fn)(family_t* f, int count);

static figures_t measure(family_t* f, copies_fn copies, int samples,
                         int submissions, uint64_t* lat) {
  figures_t out;
  for (int i = 0; i < samples; ++i) {
    uint64_t t0 = hrx_clock_monotonic_ns();
    copies(f, 1);
    lat[i] = hrx_clock_monotonic_ns() - t0;
  }
  qsort(lat, (size_t)samples, sizeof(uint64_t), compare_u64);
  out.p[0] = lat[samples / 2] / 1e3;
  out.p[1] = lat[samples * 95 / 100] / 1e3;
  out.p[2] = lat[samples * 99 / 100] / 1e3;
  uint64_t t0 = hrx_clock_monotonic_ns();
  copies(f, submissions);
  out.rate = submissions / ((hrx_clock_monotonic_ns() - t0) / 1e9);
  return out;
}

void bench_report_families(int samples, int submissions) {
  family_t f;
  memset(&f, 0, sizeof(f));
  hrx_status_t status =
      hrx_fabric_kfd_device_create(0, hrx_allocator_system(), &f.device);
  if (status != HRX_OK) {
    char text[512];
    hrx_status_format(status, text, sizeof(text));
    hrx_status_free(status);
    printf("\nqueue families: not measured: %s\n", text);
    return;
  }
  if (submissions > (int)AQL_PACKETS) submissions = AQL_PACKETS;
  CHECK(hrx_fabric_memory_allocate(f.device, COPY_BYTES,
                                   HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                   &f.source));
  CHECK(hrx_fabric_memory_allocate(f.device, COPY_BYTES,
                                   HRX_FABRIC_VISIBILITY_HOST_VISIBLE,
                                   &f.destination));
  CHECK(hrx_fabric_queue_create(f.device, AQL_PACKETS, &f.aql));
  CHECK(hrx_fabric_device_signal_create(f.device, 0, &f.done));
  CHECK(hrx_fabric_pm4_queue_create(f.device, &f.pm4));
  CHECK(hrx_fabric_transfer_queue_create(f.device, &f.sdma));
  uint64_t* lat = malloc(sizeof(uint64_t) * (size_t)samples);
  if (!lat) CHECK(hrx_status_from_code(HRX_STATUS_RESOURCE_EXHAUSTED));
  figures_t aql = measure(&f, aql_copies, samples, submissions, lat);
  figures_t pm4 = measure(&f, pm4_copies, samples, submissions, lat);
  figures_t sdma = measure(&f, sdma_copies, samples, submissions, lat);
  printf("\nqueue families of %s: 4 KiB copy, %d samples, %d "
         "submissions\n", hrx_fabric_device_properties(f.device)->name,
         samples, submissions);
  const char* names[] = {"AQL (blit kernel)", "PM4 (CP DMA)",
                         "SDMA (COPY_LINEAR)"};
  const figures_t* all[] = {&aql, &pm4, &sdma};
  printf("  %-20s %-26s %-14s %s\n", "family",
         "copy+wait p50/p95/p99 us", "submissions/s", "p95 / AQL");
  for (int i = 0; i < 3; ++i) {
    char p[64];
    snprintf(p, sizeof(p), "%.1f / %.1f / %.1f", all[i]->p[0], all[i]->p[1],
             all[i]->p[2]);
    printf("  %-20s %-26s %-14.0f %.2fx\n", names[i], p, all[i]->rate,
           all[i]->p[1] / aql.p[1]);
  }
  free(lat);
  CHECK(hrx_fabric_transfer_queue_destroy(f.sdma));
  CHECK(hrx_fabric_pm4_queue_destroy(f.pm4));
  hrx_fabric_signal_release(f.done);
  hrx_fabric_queue_destroy(f.aql);
  hrx_fabric_memory_free(f.device, &f.destination);
  hrx_fabric_memory_free(f.device, &f.source);
  hrx_fabric_device_release(f.device);
}
