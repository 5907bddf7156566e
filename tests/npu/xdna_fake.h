/* A scripted amdxdna driver behind the libhrx-npu system-call table.
 *
 * Paths under "dev/accel/" open fake nodes; every other path, read and
 * close goes to the real system (the sysfs fixture tree a test wrote).
 * On a node the fake answers the ioctls libhrx-npu uses the way the
 * driver documents them, keeps BO memory in anonymous mappings, completes
 * commands at once (or when told, with |hold|), and records what it was
 * asked. PRIME_FD_TO_HANDLE takes any regular file (a memfd stands in
 * for a GPU's dma-buf), answers EBADF for a closed fd and EINVAL for
 * anything else, and returns the same handle for the same file, as DRM
 * does. Any single call can be failed with an injected errno. */
#ifndef HRX_TESTS_NPU_XDNA_FAKE_H_
#define HRX_TESTS_NPU_XDNA_FAKE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npu_sys.h"

#define XDNA_FAKE_MAX_BOS 512
#define XDNA_FAKE_MAX_SYNCOBJS 16
#define XDNA_FAKE_MAX_EVENTS 1024
#define XDNA_FAKE_HEAP_BASE 0x100000000ull

typedef enum xdna_fake_event_e {
  XDNA_FAKE_CLOSE_CMD = 1,
  XDNA_FAKE_CLOSE_DEV,
  XDNA_FAKE_CLOSE_SHARE,
  XDNA_FAKE_CLOSE_HEAP,
  XDNA_FAKE_DESTROY_SYNCOBJ,
  XDNA_FAKE_DESTROY_HWCTX,
  XDNA_FAKE_CLOSE_NODE,
} xdna_fake_event_t;

typedef struct xdna_fake_bo_t {
  bool live;
  bool release_failed; /* its GEM_CLOSE was failed by injection */
  uint32_t type;
  uint64_t size;
  uint64_t xdna_addr;
  uint8_t* memory;
  int maps;
  /* PRIME imports: the dma-buf (its inode) the BO stands for; |memory| is
   * a shared mapping of it, so writes reach the exporter's pages. */
  bool imported;
  uint64_t dmabuf_inode;
} xdna_fake_bo_t;

typedef struct xdna_fake_syncobj_t {
  bool live;
  bool release_failed;
  bool timeline;
  uint64_t captured_point; /* binary: the timeline point it holds */
} xdna_fake_syncobj_t;

typedef struct xdna_fake_t {
  /* Script (xdna_fake_init sets the qualified device). */
  int32_t drm_major;
  int32_t drm_minor;
  uint16_t columns;
  uint16_t rows;
  uint32_t completion_state; /* written into a CMD BO when it completes */
  bool hold;                 /* commands wait for xdna_fake_complete */
  uint64_t dev_misplace;     /* added to every DEV BO's xdna_addr */
  int wait_eintr;            /* TIMELINE_WAITs that answer EINTR first */
  int wait_early_etime;      /* ... then ETIME although time is left */
  /* Stands in for the NPU's work: called with |on_exec_context| for
   * every command EXEC_CMD accepts, before it completes. */
  void (*on_exec)(void* context);
  void* on_exec_context;

  /* Injection: call |fail_at| (1-based, all kinds counted) fails. */
  size_t fail_at;
  int fail_errno;
  size_t calls;
  bool failed;
  bool failed_release; /* the failed call was a release */
  char failed_call[64];

  /* What happened. */
  int open_nodes;
  int mappings;
  size_t leaked_at_close; /* objects a node still held, not by injection */
  xdna_fake_bo_t bos[XDNA_FAKE_MAX_BOS]; /* index = handle */
  uint32_t bo_count;
  uint64_t heap_used;
  uint32_t heap_handle;
  bool context_live;
  bool context_release_failed;
  uint32_t num_tiles;
  uint32_t qos_priority;
  xdna_fake_syncobj_t syncobjs[XDNA_FAKE_MAX_SYNCOBJS];
  uint32_t syncobj_count;
  uint32_t context_syncobj;
  uint64_t submitted;
  uint64_t completed;
  uint32_t submitted_cmd[XDNA_FAKE_MAX_BOS]; /* by seq % MAX */
  uint32_t last_ert[12];
  uint32_t last_arg_count;
  uint32_t last_cmd_count;
  size_t waits;
  size_t create_bo_calls; /* CREATE_BO requests that reached the driver */
  size_t imports;         /* PRIME_FD_TO_HANDLE calls that succeeded */
  bool eventfd_unsupported; /* SYNCOBJ_EVENTFD answers EINVAL */
  uint32_t eventfd_handle;
  uint64_t eventfd_point;
  int eventfd_fd;
  xdna_fake_event_t events[XDNA_FAKE_MAX_EVENTS];
  size_t event_count;
} xdna_fake_t;

void xdna_fake_init(xdna_fake_t* fake);
/* Unmaps what the fake still holds. */
void xdna_fake_deinit(xdna_fake_t* fake);
hrx_npu_sys_t xdna_fake_sys(xdna_fake_t* fake);
/* Completes the |count| oldest submitted commands. */
void xdna_fake_complete(xdna_fake_t* fake, uint64_t count);

#endif /* HRX_TESTS_NPU_XDNA_FAKE_H_ */
