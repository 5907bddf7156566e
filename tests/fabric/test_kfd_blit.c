/* The kfd provider's blit kernels (libhrx-fabric/src/kfd_blit.s), run from
 * their embedded code object on the gfx11 model: copies against memcpy and
 * fills against a C loop over many sizes, source and destination
 * alignments and grid shapes (fewer work-items than units, one per unit,
 * more than units), with the bytes around the destination checked
 * untouched. Every buffer is mapped to the exact bytes the kernel may
 * touch, so a stray access faults the wave rather than passing unseen.
 * When llvm-mc-19 is installed, kfd_blit.s is assembled again and must
 * give the embedded bytes. */
#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gfx11.h"
#include "hrx/core/bytes.h"
#include "hrx/core/file.h"
#include "kfd_blit.h"
#include "test_support.h"

extern char** environ;

/* Bytes kept on either side of each destination to catch stray stores. */
#define GUARD 64u

typedef struct blit_kernel_t {
  const char* name;
  uint32_t unit;  /* bytes per unit of count */
  bool fill;
} blit_kernel_t;

static const blit_kernel_t copy_b8 = {HRX_KFD_BLIT_COPY_B8, 1, false};
static const blit_kernel_t copy_b32 = {HRX_KFD_BLIT_COPY_B32, 4, false};
static const blit_kernel_t copy_b128 = {HRX_KFD_BLIT_COPY_B128, 16, false};
static const blit_kernel_t fill_b32 = {HRX_KFD_BLIT_FILL_B32, 4, true};

/* A pattern whose four bytes differ, so a misplaced byte shows. */
#define FILL_PATTERN 0xA1B2C3D4u

static hrx_gfx11_image_t* load_image(void) {
  hrx_gfx11_image_t* image = NULL;
  assert_ok(hrx_gfx11_image_load(hrx_kfd_blit_object,
                                 hrx_kfd_blit_object_length,
                                 hrx_allocator_system(), &image));
  return image;
}

static uint64_t kernel(const hrx_gfx11_image_t* image, const char* name) {
  uint64_t kd = 0;
  assert_ok(hrx_gfx11_image_kernel(image, name, &kd));
  return kd;
}

/* Deterministic bytes that differ between buffers (|seed|) and positions. */
static void scribble(uint8_t* p, size_t length, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < length; ++i) {
    x = x * 1664525u + 1013904223u;
    p[i] = (uint8_t)(x >> 24);
  }
}

static void* alloc_aligned(size_t size) {
  /* aligned_alloc wants a multiple of the alignment; 0 is not portable. */
  size_t rounded = (size + 64) & ~(size_t)63;
  void* p = aligned_alloc(64, rounded);
  assert_non_null(p);
  return p;
}

/* One dispatch of |k| over |count| units with |grid| work-items in
 * workgroups of |workgroup|; |source| is the pattern for the fill. Only
 * the image, the kernarg and the count units at dst (and source, for a
 * copy) are mapped. */
typedef struct blit_run_t {
  const blit_kernel_t* k;
  uint64_t kd;
  hrx_gfx11_range_t image;
  uint64_t dst, source, count;
  uint32_t grid, workgroup;
} blit_run_t;

static void dispatch(const blit_run_t* run) {
  hrx_kfd_blit_args_t* args = alloc_aligned(sizeof(*args));
  *args = (hrx_kfd_blit_args_t){.dst = run->dst,
                                .source = run->source,
                                .count = run->count,
                                .stride = run->grid,
                                .workgroup_size = run->workgroup,
                                /* The kernels must not read the pad. */
                                .pad = 0xFFFFFFFFu};
  uint64_t bytes = run->count * run->k->unit;
  hrx_gfx11_range_t ranges[4] = {
      run->image,
      {(uint64_t)(uintptr_t)args, sizeof(*args)},
      {run->dst, bytes},
      {run->k->fill ? 0 : run->source, run->k->fill ? 0 : bytes},
  };
  /* A wave runs at most this many loop iterations of at most 11
   * instructions; the prologue and s_endpgm add at most 15. A budget this
   * tight also catches a loop that runs long. */
  uint64_t iterations = (run->count + run->grid - 1) / run->grid;
  hrx_gfx11_dispatch_t d = {
      .kernel_descriptor = run->kd,
      .kernarg = (uint64_t)(uintptr_t)args,
      .grid = {run->grid, 1, 1},
      .workgroup = {run->workgroup, 1, 1},
      .ranges = ranges,
      .range_count = 4,
      .wave_instruction_budget = 15 + 11 * iterations,
  };
  hrx_gfx11_fault_t fault;
  hrx_status_t status =
      hrx_gfx11_dispatch(&d, hrx_allocator_system(), &fault);
  if (status != HRX_OK) {
    print_error("%s count %llu grid %u workgroup %u\n", run->k->name,
                (unsigned long long)run->count, run->grid, run->workgroup);
  }
  assert_ok(status);
  assert_int_equal(fault.kind, HRX_GFX11_FAULT_NONE);
  free(args);
}

/* Runs |k| on fresh buffers with the destination (and source) |dst_offset|
 * (|src_offset|) bytes past a 64-byte boundary and compares the whole
 * destination buffer, guards included, with the C result. */
static void check_case(const blit_kernel_t* k, uint64_t kd,
                       hrx_gfx11_range_t image, uint64_t count,
                       uint32_t src_offset, uint32_t dst_offset,
                       uint32_t grid, uint32_t workgroup) {
  size_t bytes = (size_t)count * k->unit;
  size_t size = bytes + 2 * GUARD + 64;
  uint8_t* src = alloc_aligned(size);
  uint8_t* dst = alloc_aligned(size);
  uint8_t* want = malloc(size);
  assert_non_null(want);
  scribble(src, size, 1);
  scribble(dst, size, 2);
  memcpy(want, dst, size);
  uint8_t* s = src + GUARD + src_offset;
  uint8_t* d = dst + GUARD + dst_offset;
  uint32_t pattern = FILL_PATTERN;
  for (uint64_t i = 0; i < count; ++i) {
    uint8_t* w = want + GUARD + dst_offset + i * k->unit;
    if (k->fill) {
      memcpy(w, &pattern, 4);  /* little-endian host, as the GPU */
    } else {
      memcpy(w, s + i * k->unit, k->unit);
    }
  }
  /* The pattern's upper word must be ignored. */
  uint64_t source = k->fill ? 0xFFFFFFFF00000000ull | pattern
                            : (uint64_t)(uintptr_t)s;
  blit_run_t run = {k, kd, image, (uint64_t)(uintptr_t)d, source, count,
                    grid, workgroup};
  dispatch(&run);
  if (memcmp(dst, want, size) != 0) {
    print_error("%s count %llu src+%u dst+%u grid %u workgroup %u\n",
                k->name, (unsigned long long)count, src_offset, dst_offset,
                grid, workgroup);
  }
  assert_memory_equal(dst, want, size);
  free(want);
  free(dst);
  free(src);
}

static const uint64_t sizes[] = {1,   3,   4,   31,   32,  33,
                                 255, 256, 257, 1000, 4096 + 13};

/* Grid shapes for |count| units: two workgroups of 32 (stride below count
 * for most sizes), one work-item per unit with a partial last workgroup
 * (stride == count), whole 256-item workgroups past count, and an odd
 * 7-item grid, a single partial wave. */
static void grids_for(uint64_t count, uint32_t grid[4], uint32_t group[4]) {
  grid[0] = 64;
  group[0] = 32;
  grid[1] = (uint32_t)count;
  group[1] = count < HRX_KFD_BLIT_WORKGROUP ? (uint32_t)count
                                           : HRX_KFD_BLIT_WORKGROUP;
  grid[2] = (uint32_t)((count + 255) / 256 * 256);
  group[2] = HRX_KFD_BLIT_WORKGROUP;
  grid[3] = 7;
  group[3] = 7;
}

/* Every size, grid and the given offsets (in bytes) of source and
 * destination; returns the number of dispatches. */
static size_t sweep(const blit_kernel_t* k, const uint32_t* offsets,
                    size_t offset_count) {
  hrx_gfx11_image_t* image = load_image();
  uint64_t kd = kernel(image, k->name);
  hrx_gfx11_range_t range = hrx_gfx11_image_range(image);
  size_t runs = 0;
  for (size_t n = 0; n < sizeof(sizes) / sizeof(sizes[0]); ++n) {
    uint32_t grid[4], group[4];
    grids_for(sizes[n], grid, group);
    for (size_t g = 0; g < 4; ++g) {
      for (size_t so = 0; so < offset_count; ++so) {
        /* The fill has no source: one pass over the offsets. */
        if (k->fill && so > 0) break;
        for (size_t dof = 0; dof < offset_count; ++dof) {
          check_case(k, kd, range, sizes[n], offsets[so], offsets[dof],
                     grid[g], group[g]);
          ++runs;
        }
      }
    }
  }
  hrx_gfx11_image_destroy(image);
  return runs;
}

static void test_copy_b8(void** state) {
  (void)state;
  static const uint32_t offsets[] = {0, 1, 2, 3};
  assert_int_equal(sweep(&copy_b8, offsets, 4), 11 * 4 * 16);
}

static void test_copy_b32(void** state) {
  (void)state;
  static const uint32_t offsets[] = {0, 4, 12};
  assert_int_equal(sweep(&copy_b32, offsets, 3), 11 * 4 * 9);
}

static void test_copy_b128(void** state) {
  (void)state;
  static const uint32_t offsets[] = {0, 16, 48};
  assert_int_equal(sweep(&copy_b128, offsets, 3), 11 * 4 * 9);
}

static void test_fill_b32(void** state) {
  (void)state;
  /* Unaligned destinations too: the provider fills at any byte address. */
  static const uint32_t offsets[] = {0, 1, 2, 3};
  assert_int_equal(sweep(&fill_b32, offsets, 4), 11 * 4 * 4);
}

/* count 0 (the provider skips such dispatches, but the kernels must still
 * end without touching memory: no destination byte is mapped). */
static void test_empty(void** state) {
  (void)state;
  hrx_gfx11_image_t* image = load_image();
  const blit_kernel_t* all[] = {&copy_b8, &copy_b32, &copy_b128, &fill_b32};
  for (size_t i = 0; i < 4; ++i) {
    check_case(all[i], kernel(image, all[i]->name),
               hrx_gfx11_image_range(image), 0, 0, 0, 64, 32);
  }
  hrx_gfx11_image_destroy(image);
}

/* Maps two pages around a 4 GiB boundary at or above |from| (any free
 * one); NULL when none could be had. */
static uint8_t* map_across_4g(uint64_t* from) {
  for (; *from < (1ull << 46); *from += 1ull << 36) {
    uint64_t at = *from - 4096;
    void* p = mmap((void*)(uintptr_t)at, 8192, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED) continue;
    if ((uint64_t)(uintptr_t)p == at) {
      *from += 1ull << 36;
      return p;
    }
    munmap(p, 8192);  /* an old kernel took the address as a hint */
  }
  return NULL;
}

/* Source and destination straddling a 4 GiB boundary: the low address
 * word wraps, so every carry into the high word (the start address and
 * each stride step) must be right. */
static void test_across_4g(void** state) {
  (void)state;
  uint64_t from = 1ull << 41;
  uint8_t* a = map_across_4g(&from);
  uint8_t* b = map_across_4g(&from);
  if (!a || !b) {
    if (a) munmap(a, 8192);
    print_message("no free address range across a 4 GiB boundary\n");
    skip();
  }
  hrx_gfx11_image_t* image = load_image();
  hrx_gfx11_range_t range = hrx_gfx11_image_range(image);
  const blit_kernel_t* all[] = {&copy_b8, &copy_b32, &copy_b128, &fill_b32};
  for (size_t i = 0; i < 4; ++i) {
    const blit_kernel_t* k = all[i];
    /* 3 KiB from 1 KiB below the boundary, on a 16-byte address. */
    uint64_t count = 3072 / k->unit;
    uint8_t* s = a + 4096 - 1024;
    uint8_t* d = b + 4096 - 1024;
    scribble(a, 8192, 3);
    scribble(b, 8192, 4);
    uint8_t* want = malloc(8192);
    assert_non_null(want);
    memcpy(want, b, 8192);
    uint32_t pattern = FILL_PATTERN;
    for (uint64_t u = 0; u < count; ++u) {
      uint8_t* w = want + 4096 - 1024 + u * k->unit;
      if (k->fill) {
        memcpy(w, &pattern, 4);
      } else {
        memcpy(w, s + u * k->unit, k->unit);
      }
    }
    blit_run_t run = {k,
                      kernel(image, k->name),
                      range,
                      (uint64_t)(uintptr_t)d,
                      k->fill ? pattern : (uint64_t)(uintptr_t)s,
                      count,
                      96,
                      32};
    dispatch(&run);
    assert_memory_equal(b, want, 8192);
    free(want);
  }
  hrx_gfx11_image_destroy(image);
  munmap(b, 8192);
  munmap(a, 8192);
}

static uint32_t kd_u32(uint64_t kd, int offset) {
  const uint8_t* p = (const uint8_t*)(uintptr_t)(kd + offset);
  return (uint32_t)hrx_get_le(&p, 4);
}

/* The descriptors ask for the set-up the kernels assume, and the metadata
 * note names the target and every kernel. */
static void test_descriptors(void** state) {
  (void)state;
  hrx_gfx11_image_t* image = load_image();
  const char* names[] = {HRX_KFD_BLIT_COPY_B8, HRX_KFD_BLIT_COPY_B32,
                         HRX_KFD_BLIT_COPY_B128, HRX_KFD_BLIT_FILL_B32};
  for (size_t i = 0; i < 4; ++i) {
    uint64_t kd = kernel(image, names[i]);
    assert_int_equal(kd % 64, 0);
    assert_int_equal(kd_u32(kd, 0), 0);   /* group_segment_fixed_size */
    assert_int_equal(kd_u32(kd, 4), 0);   /* private_segment_fixed_size */
    assert_int_equal(kd_u32(kd, 8), sizeof(hrx_kfd_blit_args_t));
    const uint8_t* p = (const uint8_t*)(uintptr_t)(kd + 16);
    uint64_t entry = kd + (uint64_t)(int64_t)hrx_get_le(&p, 8);
    assert_int_equal(entry % 256, 0);
    /* rsrc1: (10 VGPRs + 7) / 8 - 1 = 1 granule field. */
    assert_int_equal(kd_u32(kd, 48) & 0x3F, 1);
    /* rsrc2: 2 user SGPRs, workgroup id x only, x work-item id only, no
     * scratch, no workgroup info. */
    uint32_t rsrc2 = kd_u32(kd, 52);
    assert_int_equal(rsrc2 & 1, 0);
    assert_int_equal((rsrc2 >> 1) & 0x1F, 2);
    assert_int_equal((rsrc2 >> 7) & 0xF, 1);
    assert_int_equal((rsrc2 >> 11) & 3, 0);
    /* Properties: kernarg segment pointer (bit 3) and wave32 (bit 10). */
    assert_int_equal(kd_u32(kd, 56) & 0xFFFF, (1u << 3) | (1u << 10));
  }
  hrx_gfx11_image_destroy(image);
  static const char* const note_strings[] = {
      "amdgcn-amd-amdhsa--gfx1151", "hrx_blit_copy_b8.kd",
      "hrx_blit_copy_b32.kd", "hrx_blit_copy_b128.kd",
      "hrx_blit_fill_b32.kd", ".kernarg_segment_size", "global_buffer",
      "by_value"};
  for (size_t i = 0; i < sizeof(note_strings) / sizeof(note_strings[0]);
       ++i) {
    assert_non_null(memmem(hrx_kfd_blit_object, hrx_kfd_blit_object_length,
                           note_strings[i], strlen(note_strings[i])));
  }
  assert_int_equal(hrx_kfd_blit_object[7], 64);  /* ELFOSABI_AMDGPU_HSA */
  assert_int_equal(hrx_kfd_blit_object[8], 3);   /* code object v5 */
}

/* kfd_blit.s assembled now gives the embedded object, so the checked-in
 * bytes cannot drift from their source. */
static void test_embedded_matches_source(void** state) {
  (void)state;
  const char* mc = HRX_LLVM_MC;
  if (!mc[0] || access(mc, X_OK) != 0) {
    print_message("llvm-mc-19 not found: not reassembling kfd_blit.s\n");
    skip();
  }
  char* dir = test_temp_dir_create();
  char* out = test_strdup_printf("%s/kfd_blit.o", dir);
  /* The generator's command line (scripts/gen-kfd-blit). */
  char* argv[] = {(char*)mc,   "-triple=amdgcn-amd-amdhsa",
                  "-mcpu=gfx1151", "-filetype=obj",
                  "-o",         out,
                  HRX_KFD_BLIT_SOURCE, NULL};
  pid_t pid;
  assert_int_equal(posix_spawn(&pid, mc, NULL, NULL, argv, environ), 0);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0) assert_int_equal(errno, EINTR);
  assert_true(WIFEXITED(wstatus));
  assert_int_equal(WEXITSTATUS(wstatus), 0);
  uint8_t* bytes = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), out, 1 << 20,
                              (void**)&bytes, &length));
  if (length != hrx_kfd_blit_object_length ||
      memcmp(bytes, hrx_kfd_blit_object, length) != 0) {
    print_error("kfd_blit_object.c is stale: run scripts/gen-kfd-blit\n");
  }
  assert_int_equal(length, hrx_kfd_blit_object_length);
  assert_memory_equal(bytes, hrx_kfd_blit_object, length);
  hrx_allocator_free(hrx_allocator_system(), bytes);
  free(out);
  test_temp_dir_remove(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_descriptors),
      cmocka_unit_test(test_copy_b8),
      cmocka_unit_test(test_copy_b32),
      cmocka_unit_test(test_copy_b128),
      cmocka_unit_test(test_fill_b32),
      cmocka_unit_test(test_empty),
      cmocka_unit_test(test_across_4g),
      cmocka_unit_test(test_embedded_matches_source),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
