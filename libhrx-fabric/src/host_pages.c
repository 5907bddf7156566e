/* Host memory behind host device allocations (fabric_internal.h).
 *
 * Kernels on the host device stream through their buffers; with 4 KiB
 * pages a 64 MiB buffer is 16384 TLB entries, and streaming kernels
 * (saxpy) spend a fifth of their time in page walks. Allocations of at
 * least HRX_HOST_PAGES_LARGE bytes (one huge page) are therefore their
 * own anonymous mappings, aligned to 2 MiB and advised as huge-page
 * candidates (the kernel's default transparent huge page mode, "madvise",
 * only backs such ranges with huge pages). Fresh anonymous pages are zero, so these
 * need no clearing, and their memory returns to the system when freed.
 * Smaller allocations come from the C heap. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fabric_internal.h"

#define HRX_HOST_PAGES_HUGE ((size_t)2 << 20)

static size_t hrx_host_pages_round(size_t bytes) {
  return (bytes + 63) & ~(size_t)63;
}

static bool hrx_host_pages_mapped(size_t bytes) {
  return hrx_host_pages_round(bytes) >= HRX_HOST_PAGES_LARGE;
}

/* Whole small pages: only the 2 MiB extents wholly inside the mapping
 * become huge pages, so a tail never costs a huge page's memory. */
static size_t hrx_host_pages_mapping(size_t bytes) {
  long page = sysconf(_SC_PAGESIZE);
  size_t mask = (page > 0 ? (size_t)page : 4096) - 1;
  return (bytes + mask) & ~mask;
}

void* hrx_host_pages_allocate(size_t bytes, bool zero) {
  size_t rounded = hrx_host_pages_round(bytes);
  if (rounded < bytes) return NULL;
  if (!hrx_host_pages_mapped(bytes)) {
    void* memory = NULL;
    if (posix_memalign(&memory, 64, rounded) != 0) return NULL;
    if (zero) memset(memory, 0, rounded);
    return memory;
  }
  size_t length = hrx_host_pages_mapping(bytes);
  if (length < bytes || length + HRX_HOST_PAGES_HUGE < length) return NULL;
  /* Over-map by one huge page and trim both ends to 2 MiB alignment. */
  uint8_t* raw = mmap(NULL, length + HRX_HOST_PAGES_HUGE,
                      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
  if (raw == MAP_FAILED) return NULL;
  uintptr_t start = ((uintptr_t)raw + HRX_HOST_PAGES_HUGE - 1) &
                    ~(uintptr_t)(HRX_HOST_PAGES_HUGE - 1);
  size_t head = start - (uintptr_t)raw;
  if (head) munmap(raw, head);
  size_t tail = HRX_HOST_PAGES_HUGE - head;
  if (tail) munmap((uint8_t*)start + length, tail);
#if defined(MADV_HUGEPAGE)
  /* Only advice: without transparent huge pages the mapping still works. */
  (void)madvise((void*)start, length, MADV_HUGEPAGE);
#endif
  return (void*)start;
}

void hrx_host_pages_free(void* memory, size_t bytes) {
  if (!memory) return;
  if (hrx_host_pages_mapped(bytes)) {
    munmap(memory, hrx_host_pages_mapping(bytes));
  } else {
    free(memory);
  }
}
