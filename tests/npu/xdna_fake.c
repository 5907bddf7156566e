#include "xdna_fake.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xdna_abi.h"

#define NODE_FD_BASE 1000
#define PAGE 4096ull
#define SHARE_BASE 0x200000000ull
#define DEV_ALIGN (32ull << 10)

void xdna_fake_init(xdna_fake_t* fake) {
  memset(fake, 0, sizeof(*fake));
  fake->drm_major = 0;
  fake->drm_minor = 8;
  fake->columns = 8;
  fake->rows = 6;
  fake->completion_state = 4;
  fake->fail_errno = EIO;
}

static uint64_t page_round(uint64_t size) {
  return (size + PAGE - 1) & ~(PAGE - 1);
}

static void unmap_bo(xdna_fake_bo_t* bo) {
  if (bo->memory && bo->type != HRX_XDNA_BO_DEV) {
    munmap(bo->memory, page_round(bo->size));
  }
  bo->memory = NULL;
}

void xdna_fake_deinit(xdna_fake_t* fake) {
  for (uint32_t i = 1; i <= fake->bo_count; ++i) unmap_bo(&fake->bos[i]);
}

static void record(xdna_fake_t* fake, xdna_fake_event_t event) {
  if (fake->event_count < XDNA_FAKE_MAX_EVENTS) {
    fake->events[fake->event_count++] = event;
  }
}

/* Counts a call and returns the errno it must fail with, or 0. */
static int inject(xdna_fake_t* fake, const char* what, bool release) {
  if (++fake->calls != fake->fail_at || fake->fail_at == 0) return 0;
  fake->failed = true;
  fake->failed_release = release;
  snprintf(fake->failed_call, sizeof(fake->failed_call), "%s", what);
  return fake->fail_errno;
}

static bool is_node(int fd) { return fd >= NODE_FD_BASE; }

static int fake_openat(void* context, int dir_fd, const char* path,
                       int flags) {
  xdna_fake_t* fake = context;
  int error = inject(fake, path, false);
  if (error) return -error;
  if (!strncmp(path, "dev/accel/accel", 15)) {
    return NODE_FD_BASE + fake->open_nodes++;
  }
  int fd = openat(dir_fd, path, flags);
  return fd < 0 ? -errno : fd;
}

/* The node's close drops everything still held, as the kernel does; what
 * HRX left behind (not what an injected failure left) is a leak. */
static void close_node(xdna_fake_t* fake) {
  for (uint32_t i = 1; i <= fake->bo_count; ++i) {
    xdna_fake_bo_t* bo = &fake->bos[i];
    if (!bo->live) continue;
    if (!bo->release_failed) ++fake->leaked_at_close;
    bo->live = false;
  }
  for (uint32_t i = 1; i <= fake->syncobj_count; ++i) {
    xdna_fake_syncobj_t* s = &fake->syncobjs[i];
    if (s->live && !s->timeline && !s->release_failed) {
      ++fake->leaked_at_close;
    }
    s->live = false;
  }
  if (fake->context_live && !fake->context_release_failed) {
    ++fake->leaked_at_close;
  }
  fake->context_live = false;
  --fake->open_nodes;
  record(fake, XDNA_FAKE_CLOSE_NODE);
}

static int fake_close(void* context, int fd) {
  xdna_fake_t* fake = context;
  int error = inject(fake, "close", true);
  if (is_node(fd)) {
    close_node(fake);
  } else if (close(fd) < 0) {
    return -errno;
  }
  return error ? -error : 0;
}

static ssize_t fake_read(void* context, int fd, void* buffer, size_t size) {
  xdna_fake_t* fake = context;
  int error = inject(fake, "read", false);
  if (error) return -error;
  ssize_t n = read(fd, buffer, size);
  return n < 0 ? -errno : n;
}

static xdna_fake_bo_t* find_bo(xdna_fake_t* fake, uint32_t handle) {
  if (handle == 0 || handle > fake->bo_count || !fake->bos[handle].live) {
    return NULL;
  }
  return &fake->bos[handle];
}

/* PRIME import of the file |fd|, standing in for a dma-buf. */
static int prime_import(xdna_fake_t* fake, hrx_drm_prime_handle_t* args) {
  struct stat st;
  if (fcntl(args->fd, F_GETFD) < 0) return -EBADF;
  if (fstat(args->fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
    return -EINVAL;
  }
  for (uint32_t i = 1; i <= fake->bo_count; ++i) {
    xdna_fake_bo_t* bo = &fake->bos[i];
    if (bo->live && bo->imported && bo->dmabuf_inode == st.st_ino) {
      args->handle = i;
      return 0;
    }
  }
  if (fake->bo_count + 1 >= XDNA_FAKE_MAX_BOS) return -ENOMEM;
  void* memory = mmap(NULL, page_round((uint64_t)st.st_size),
                      PROT_READ | PROT_WRITE, MAP_SHARED, args->fd, 0);
  if (memory == MAP_FAILED) return -ENOMEM;
  uint32_t handle = ++fake->bo_count;
  fake->bos[handle] = (xdna_fake_bo_t){
      .live = true,
      .type = HRX_XDNA_BO_SHARE,
      .size = (uint64_t)st.st_size,
      .xdna_addr = SHARE_BASE + (uint64_t)handle * (1 << 24),
      .memory = memory,
      .imported = true,
      .dmabuf_inode = st.st_ino,
  };
  args->handle = handle;
  ++fake->imports;
  return 0;
}

static int create_bo(xdna_fake_t* fake, hrx_xdna_create_bo_t* args) {
  ++fake->create_bo_calls;
  if (fake->bo_count + 1 >= XDNA_FAKE_MAX_BOS || args->size == 0) {
    return -ENOMEM;
  }
  xdna_fake_bo_t bo = {.live = true, .type = args->type, .size = args->size};
  if (args->type == HRX_XDNA_BO_DEV) {
    xdna_fake_bo_t* heap = find_bo(fake, fake->heap_handle);
    if (!heap) return -EINVAL;
    uint64_t offset = (fake->heap_used + DEV_ALIGN - 1) & ~(DEV_ALIGN - 1);
    if (offset + args->size > heap->size) return -ENOMEM;
    fake->heap_used = offset + args->size;
    bo.memory = heap->memory + offset;
    bo.xdna_addr = heap->xdna_addr + offset + fake->dev_misplace;
  } else {
    if (args->type == HRX_XDNA_BO_DEV_HEAP && fake->heap_handle) {
      return -EBUSY;
    }
    if (args->type < HRX_XDNA_BO_SHARE || args->type > HRX_XDNA_BO_CMD) {
      return -EINVAL;
    }
    void* memory = mmap(NULL, (args->size + PAGE - 1) & ~(PAGE - 1),
                        PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    if (memory == MAP_FAILED) return -ENOMEM;
    bo.memory = memory;
    bo.xdna_addr = args->type == HRX_XDNA_BO_DEV_HEAP
                       ? XDNA_FAKE_HEAP_BASE
                       : SHARE_BASE + (uint64_t)(fake->bo_count + 1) * (1 << 24);
  }
  args->handle = ++fake->bo_count;
  fake->bos[args->handle] = bo;
  if (args->type == HRX_XDNA_BO_DEV_HEAP) fake->heap_handle = args->handle;
  return 0;
}

static int gem_close(xdna_fake_t* fake, uint32_t handle) {
  xdna_fake_bo_t* bo = find_bo(fake, handle);
  if (!bo) return -EINVAL;
  static const xdna_fake_event_t kEvents[] = {
      [HRX_XDNA_BO_SHARE] = XDNA_FAKE_CLOSE_SHARE,
      [HRX_XDNA_BO_DEV_HEAP] = XDNA_FAKE_CLOSE_HEAP,
      [HRX_XDNA_BO_DEV] = XDNA_FAKE_CLOSE_DEV,
      [HRX_XDNA_BO_CMD] = XDNA_FAKE_CLOSE_CMD,
  };
  record(fake, kEvents[bo->type]);
  if (bo->maps != 0) return -EBUSY;
  bo->live = false;
  if (handle == fake->heap_handle) fake->heap_handle = 0;
  return 0;
}

static uint32_t new_syncobj(xdna_fake_t* fake, bool timeline) {
  if (fake->syncobj_count + 1 >= XDNA_FAKE_MAX_SYNCOBJS) return 0;
  uint32_t handle = ++fake->syncobj_count;
  fake->syncobjs[handle] =
      (xdna_fake_syncobj_t){.live = true, .timeline = timeline};
  return handle;
}

static xdna_fake_syncobj_t* find_syncobj(xdna_fake_t* fake, uint32_t h) {
  if (h == 0 || h > fake->syncobj_count || !fake->syncobjs[h].live) {
    return NULL;
  }
  return &fake->syncobjs[h];
}

static void complete_one(xdna_fake_t* fake) {
  uint32_t handle = fake->submitted_cmd[fake->completed % XDNA_FAKE_MAX_BOS];
  xdna_fake_bo_t* bo = find_bo(fake, handle);
  if (bo) {
    uint32_t word = 0;
    memcpy(&word, bo->memory, sizeof(word));
    word = (word & ~0xfu) | fake->completion_state;
    memcpy(bo->memory, &word, sizeof(word));
  }
  ++fake->completed;
}

void xdna_fake_complete(xdna_fake_t* fake, uint64_t count) {
  while (count-- > 0 && fake->completed < fake->submitted) {
    complete_one(fake);
  }
}

static int exec_cmd(xdna_fake_t* fake, hrx_xdna_exec_cmd_t* args) {
  xdna_fake_bo_t* bo = find_bo(fake, (uint32_t)args->cmd_handles);
  if (!fake->context_live || args->type != HRX_XDNA_CMD_SUBMIT_EXEC_BUF ||
      !bo || bo->type != HRX_XDNA_BO_CMD) {
    return -EINVAL;
  }
  fake->last_arg_count = args->arg_count;
  fake->last_cmd_count = args->cmd_count;
  memcpy(fake->last_ert, bo->memory, sizeof(fake->last_ert));
  fake->submitted_cmd[fake->submitted % XDNA_FAKE_MAX_BOS] =
      (uint32_t)args->cmd_handles;
  args->seq = fake->submitted++;
  if (fake->on_exec) fake->on_exec(fake->on_exec_context);
  if (!fake->hold) complete_one(fake);
  return 0;
}

static int timeline_wait(xdna_fake_t* fake,
                         hrx_drm_syncobj_timeline_wait_t* args) {
  ++fake->waits;
  if (args->count_handles != 1) return -EINVAL;
  uint32_t handle = *(const uint32_t*)(uintptr_t)args->handles;
  uint64_t point = *(const uint64_t*)(uintptr_t)args->points;
  xdna_fake_syncobj_t* s = find_syncobj(fake, handle);
  if (!s) return -EINVAL;
  if (fake->wait_eintr > 0) {
    --fake->wait_eintr;
    return -EINTR;
  }
  if (fake->wait_early_etime > 0) {
    --fake->wait_early_etime;
    return -ETIME;
  }
  uint64_t wanted = s->timeline ? point : s->captured_point;
  if (wanted == 0) return -EINVAL;
  return wanted <= fake->completed ? 0 : -ETIME;
}

static int node_ioctl(xdna_fake_t* fake, unsigned long request, void* args) {
  switch (request) {
    case HRX_DRM_IOCTL_VERSION: {
      hrx_drm_version_t* v = args;
      v->version_major = fake->drm_major;
      v->version_minor = fake->drm_minor;
      return 0;
    }
    case HRX_XDNA_IOCTL_GET_INFO: {
      hrx_xdna_get_info_t* info = args;
      if (info->param != HRX_XDNA_QUERY_AIE_METADATA ||
          info->buffer_size < sizeof(hrx_xdna_aie_metadata_t)) {
        return -EINVAL;
      }
      hrx_xdna_aie_metadata_t* m = (void*)(uintptr_t)info->buffer;
      m->cols = fake->columns;
      m->rows = fake->rows;
      m->core.row_count = 4;
      m->core.row_start = 2;
      return 0;
    }
    case HRX_XDNA_IOCTL_CREATE_BO:
      return create_bo(fake, args);
    case HRX_XDNA_IOCTL_GET_BO_INFO: {
      hrx_xdna_get_bo_info_t* info = args;
      xdna_fake_bo_t* bo = find_bo(fake, info->handle);
      if (!bo) return -EINVAL;
      info->map_offset = (uint64_t)info->handle << 32;
      info->xdna_addr = bo->xdna_addr;
      return 0;
    }
    case HRX_DRM_IOCTL_PRIME_FD_TO_HANDLE:
      return prime_import(fake, args);
    case HRX_DRM_IOCTL_GEM_CLOSE:
      return gem_close(fake, ((hrx_drm_gem_close_t*)args)->handle);
    case HRX_XDNA_IOCTL_CREATE_HWCTX: {
      hrx_xdna_create_hwctx_t* c = args;
      if (fake->context_live) return -EBUSY;
      const hrx_xdna_qos_t* qos = (const void*)(uintptr_t)c->qos_p;
      fake->qos_priority = qos ? qos->priority : 0;
      fake->num_tiles = c->num_tiles;
      fake->context_syncobj = new_syncobj(fake, true);
      fake->context_live = true;
      c->handle = 1;
      c->syncobj_handle = fake->context_syncobj;
      return 0;
    }
    case HRX_XDNA_IOCTL_DESTROY_HWCTX:
      record(fake, XDNA_FAKE_DESTROY_HWCTX);
      if (!fake->context_live) return -EINVAL;
      fake->context_live = false;
      fake->syncobjs[fake->context_syncobj].live = false;
      return 0;
    case HRX_XDNA_IOCTL_EXEC_CMD:
      return exec_cmd(fake, args);
    case HRX_DRM_IOCTL_SYNCOBJ_CREATE: {
      hrx_drm_syncobj_create_t* c = args;
      c->handle = new_syncobj(fake, false);
      return c->handle ? 0 : -ENOMEM;
    }
    case HRX_DRM_IOCTL_SYNCOBJ_DESTROY: {
      record(fake, XDNA_FAKE_DESTROY_SYNCOBJ);
      xdna_fake_syncobj_t* s =
          find_syncobj(fake, ((hrx_drm_syncobj_destroy_t*)args)->handle);
      if (!s) return -EINVAL;
      s->live = false;
      return 0;
    }
    case HRX_DRM_IOCTL_SYNCOBJ_TRANSFER: {
      hrx_drm_syncobj_transfer_t* t = args;
      xdna_fake_syncobj_t* src = find_syncobj(fake, t->src_handle);
      xdna_fake_syncobj_t* dst = find_syncobj(fake, t->dst_handle);
      if (!src || !dst || !src->timeline || dst->timeline ||
          t->dst_point != 0 || t->src_point == 0) {
        return -EINVAL;
      }
      dst->captured_point = t->src_point;
      return 0;
    }
    case HRX_DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT:
      return timeline_wait(fake, args);
    case HRX_DRM_IOCTL_SYNCOBJ_EVENTFD: {
      hrx_drm_syncobj_eventfd_t* e = args;
      if (fake->eventfd_unsupported || !find_syncobj(fake, e->handle)) {
        return -EINVAL;
      }
      fake->eventfd_handle = e->handle;
      fake->eventfd_point = e->point;
      fake->eventfd_fd = e->fd;
      return 0;
    }
    default:
      return -ENOTTY;
  }
}

/* Marks the object a failed release call was about, so the node's close
 * does not count it as leaked by HRX. */
static void note_failed_release(xdna_fake_t* fake, unsigned long request,
                                void* args) {
  if (request == HRX_DRM_IOCTL_GEM_CLOSE) {
    xdna_fake_bo_t* bo =
        find_bo(fake, ((hrx_drm_gem_close_t*)args)->handle);
    if (bo) bo->release_failed = true;
  } else if (request == HRX_DRM_IOCTL_SYNCOBJ_DESTROY) {
    xdna_fake_syncobj_t* s =
        find_syncobj(fake, ((hrx_drm_syncobj_destroy_t*)args)->handle);
    if (s) s->release_failed = true;
  } else if (request == HRX_XDNA_IOCTL_DESTROY_HWCTX) {
    fake->context_release_failed = true;
  }
}

static int fake_ioctl(void* context, int fd, unsigned long request,
                      void* args) {
  xdna_fake_t* fake = context;
  bool release = request == HRX_DRM_IOCTL_GEM_CLOSE ||
                 request == HRX_DRM_IOCTL_SYNCOBJ_DESTROY ||
                 request == HRX_XDNA_IOCTL_DESTROY_HWCTX;
  char what[32];
  snprintf(what, sizeof(what), "ioctl 0x%lx", request);
  int error = inject(fake, what, release);
  if (error) {
    if (release) note_failed_release(fake, request, args);
    return -error;
  }
  if (!is_node(fd)) return -ENOTTY;
  return node_ioctl(fake, request, args);
}

/* A BO maps whole; an import maps as much of its dma-buf as asked. */
static bool map_fits(const xdna_fake_bo_t* bo, size_t length) {
  return bo->imported ? length > 0 && length <= bo->size
                      : length == bo->size;
}

static int fake_mmap(void* context, void* address, size_t length,
                     int protection, int flags, int fd, off_t offset,
                     void** out_address) {
  xdna_fake_t* fake = context;
  (void)address;
  (void)protection;
  (void)flags;
  int error = inject(fake, "mmap", false);
  if (error) return -error;
  xdna_fake_bo_t* bo = is_node(fd) ? find_bo(fake, (uint32_t)(offset >> 32))
                                   : NULL;
  if (!bo || !map_fits(bo, length) || bo->type == HRX_XDNA_BO_DEV) {
    return -EINVAL;
  }
  ++bo->maps;
  ++fake->mappings;
  *out_address = bo->memory;
  return 0;
}

/* A failed munmap still unmaps here: HRX cannot do better than try once,
 * and the leak check is about what HRX forgot. */
static int fake_munmap(void* context, void* address, size_t length) {
  xdna_fake_t* fake = context;
  int error = inject(fake, "munmap", true);
  for (uint32_t i = 1; i <= fake->bo_count; ++i) {
    xdna_fake_bo_t* bo = &fake->bos[i];
    if (bo->live && bo->memory == address && map_fits(bo, length) &&
        bo->maps > 0) {
      --bo->maps;
      --fake->mappings;
      return error ? -error : 0;
    }
  }
  return -EINVAL;
}

hrx_npu_sys_t xdna_fake_sys(xdna_fake_t* fake) {
  return (hrx_npu_sys_t){
      .context = fake,
      .openat = fake_openat,
      .close = fake_close,
      .read = fake_read,
      .ioctl = fake_ioctl,
      .mmap = fake_mmap,
      .munmap = fake_munmap,
  };
}
