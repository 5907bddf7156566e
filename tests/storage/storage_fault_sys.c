#include "storage_fault_sys.h"

#include <errno.h>
#include <limits.h>

/* True when this call of |call| is the one to fail. */
static bool strike(storage_fault_t* fault, storage_call_t call) {
  unsigned n = atomic_fetch_add(&fault->calls[call], 1) + 1;
  return atomic_load(&fault->call) == call && n >= fault->fail_at &&
         n - fault->fail_at < fault->fail_count;
}

static int f_queue_init(void* c, unsigned entries, struct io_uring* ring,
                        struct io_uring_params* params) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_QUEUE_INIT)
             ? -f->error
             : f->native.queue_init(NULL, entries, ring, params);
}

static void f_queue_exit(void* c, struct io_uring* ring) {
  storage_fault_t* f = c;
  f->native.queue_exit(NULL, ring);
}

static int f_register_files_sparse(void* c, struct io_uring* ring,
                                   unsigned count) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_REGISTER_FILES_SPARSE)
             ? -f->error
             : f->native.register_files_sparse(NULL, ring, count);
}

static int f_register_files_update(void* c, struct io_uring* ring,
                                   unsigned offset, const int* fds,
                                   unsigned count) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_REGISTER_FILES_UPDATE)
             ? -f->error
             : f->native.register_files_update(NULL, ring, offset, fds,
                                               count);
}

static int f_register_buffers(void* c, struct io_uring* ring,
                              const struct iovec* iovecs, unsigned count) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_REGISTER_BUFFERS)
             ? -f->error
             : f->native.register_buffers(NULL, ring, iovecs, count);
}

static int f_register_eventfd(void* c, struct io_uring* ring, int fd) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_REGISTER_EVENTFD)
             ? -f->error
             : f->native.register_eventfd(NULL, ring, fd);
}

static int f_submit(void* c, struct io_uring* ring) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_SUBMIT) ? -f->error
                                        : f->native.submit(NULL, ring);
}

static int f_peek_cqe(void* c, struct io_uring* ring,
                      struct io_uring_cqe** out_cqe) {
  storage_fault_t* f = c;
  int rc = f->native.peek_cqe(NULL, ring, out_cqe);
  if (rc == -EAGAIN) {
    return rc; /* only calls that find a completion count */
  }
  if (strike(f, STORAGE_CALL_PEEK_CQE)) {
    return -f->error;
  }
  if (rc == 0 && strike(f, STORAGE_CALL_CQE)) {
    (*out_cqe)->res = -f->error;
  }
  return rc;
}

static int f_eventfd(void* c, unsigned initial, int flags) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_EVENTFD)
             ? -f->error
             : f->native.eventfd(NULL, initial, flags);
}

static ssize_t f_read(void* c, int fd, void* buffer, size_t size) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_READ) ? -f->error
                                      : f->native.read(NULL, fd, buffer, size);
}

static ssize_t f_write(void* c, int fd, const void* buffer, size_t size) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_WRITE)
             ? -f->error
             : f->native.write(NULL, fd, buffer, size);
}

static int f_open(void* c, const char* path, int flags) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_OPEN) ? -f->error
                                      : f->native.open(NULL, path, flags);
}

static int f_close(void* c, int fd) {
  storage_fault_t* f = c;
  return f->native.close(NULL, fd);
}

static int f_duplicate(void* c, int fd) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_DUPLICATE) ? -f->error
                                           : f->native.duplicate(NULL, fd);
}

static int f_uring_setup(void* c, unsigned entries, void* params) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_URING_SETUP)
             ? -f->error
             : f->native.uring_setup(NULL, entries, params);
}

static int f_uring_register(void* c, int fd, unsigned opcode,
                            const void* argument, unsigned count) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_URING_REGISTER)
             ? -f->error
             : f->native.uring_register(NULL, fd, opcode, argument, count);
}

static int f_uring_enter(void* c, int fd, unsigned flags) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_URING_ENTER)
             ? -f->error
             : f->native.uring_enter(NULL, fd, flags);
}

static int f_get_flags(void* c, int fd) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_GET_FLAGS) ? -f->error
                                           : f->native.get_flags(NULL, fd);
}

static int f_statx(void* c, int fd, unsigned mask, struct statx* out) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_STATX) ? -f->error
                                       : f->native.statx(NULL, fd, mask, out);
}

static int f_map_pages(void* c, size_t length, void** out_address) {
  storage_fault_t* f = c;
  return strike(f, STORAGE_CALL_MAP_PAGES)
             ? -f->error
             : f->native.map_pages(NULL, length, out_address);
}

static int f_unmap_pages(void* c, void* address, size_t length) {
  storage_fault_t* f = c;
  return f->native.unmap_pages(NULL, address, length);
}

hrx_storage_sys_t storage_fault_sys(storage_fault_t* fault,
                                    storage_call_t call, unsigned fail_at,
                                    int error) {
  fault->native = hrx_storage_sys_native();
  atomic_init(&fault->call, call);
  fault->fail_at = fail_at;
  fault->fail_count = 1;
  fault->error = error;
  for (int i = 0; i < STORAGE_CALL_COUNT; ++i) {
    atomic_init(&fault->calls[i], 0);
  }
  hrx_storage_sys_t sys = {
      .context = fault,
      .queue_init = f_queue_init,
      .queue_exit = f_queue_exit,
      .register_files_sparse = f_register_files_sparse,
      .register_files_update = f_register_files_update,
      .register_buffers = f_register_buffers,
      .register_eventfd = f_register_eventfd,
      .submit = f_submit,
      .peek_cqe = f_peek_cqe,
      .eventfd = f_eventfd,
      .read = f_read,
      .write = f_write,
      .open = f_open,
      .close = f_close,
      .duplicate = f_duplicate,
      .uring_setup = f_uring_setup,
      .uring_register = f_uring_register,
      .uring_enter = f_uring_enter,
      .get_flags = f_get_flags,
      .statx = f_statx,
      .map_pages = f_map_pages,
      .unmap_pages = f_unmap_pages,
  };
  return sys;
}

void storage_fault_make_sticky(storage_fault_t* fault) {
  fault->fail_count = UINT_MAX;
}

void storage_fault_disarm(storage_fault_t* fault) {
  atomic_store(&fault->call, STORAGE_CALL_NONE);
}

const char* storage_call_name(storage_call_t call) {
  static const char* const names[STORAGE_CALL_COUNT] = {
      "none",          "queue_init", "register_files_sparse",
      "register_files_update", "register_buffers", "register_eventfd",
      "submit",        "peek_cqe",   "eventfd",
      "read",          "write",      "open",
      "get_flags",     "statx",      "map_pages",
      "duplicate",     "uring_setup", "uring_register",
      "uring_enter",   "cqe",
  };
  return call < STORAGE_CALL_COUNT ? names[call] : "?";
}
