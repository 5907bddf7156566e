/* Directories, atomic replacement, whole-file reads and advisory locks. */
#include <pthread.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

static int make_dir(void** state) {
  *state = test_temp_dir_create();
  return 0;
}

static int remove_dir(void** state) {
  test_temp_dir_remove(*state);
  return 0;
}

static void test_dir_create_all(void** state) {
  const char* dir = *state;
  char* nested = test_strdup_printf("%s/x//y/z/", dir);
  assert_ok(hrx_dir_create_all(nested, 0755));
  assert_ok(hrx_dir_create_all(nested, 0755));
  struct stat info;
  assert_int_equal(stat(nested, &info), 0);
  assert_true(S_ISDIR(info.st_mode));
  char* file = test_strdup_printf("%s/plain", dir);
  test_write_file(file, "x", 1);
  assert_status_code(hrx_dir_create_all(file, 0755),
                     HRX_STATUS_ALREADY_EXISTS);
  char* below = test_strdup_printf("%s/plain/child", dir);
  assert_status_code(hrx_dir_create_all(below, 0755),
                     HRX_STATUS_ALREADY_EXISTS);
  assert_status_code(hrx_dir_create_all("", 0755),
                     HRX_STATUS_INVALID_ARGUMENT);
  free(below);
  free(file);
  free(nested);
}

static void test_dir_remove_all(void** state) {
  const char* dir = *state;
  char* outside = test_strdup_printf("%s/outside", dir);
  char* tree = test_strdup_printf("%s/tree", dir);
  char* deep = test_strdup_printf("%s/tree/a/b/c", dir);
  assert_ok(hrx_dir_create_all(outside, 0700));
  assert_ok(hrx_dir_create_all(deep, 0700));
  char* kept = test_strdup_printf("%s/keep", outside);
  test_write_file(kept, "12345", 5);
  char* file = test_strdup_printf("%s/tree/a/one", dir);
  test_write_file(file, "abc", 3);
  char* leaf = test_strdup_printf("%s/two", deep);
  test_write_file(leaf, "abcdefg", 7);
  /* A link into another tree is removed, not followed. */
  char* link = test_strdup_printf("%s/tree/a/link", dir);
  assert_int_equal(symlink(outside, link), 0);

  uint64_t bytes = 0;
  assert_ok(hrx_dir_remove_all(tree, &bytes));
  assert_int_equal(bytes, 10);
  struct stat info;
  assert_int_not_equal(lstat(tree, &info), 0);
  assert_int_equal(stat(kept, &info), 0);
  assert_int_equal(info.st_size, 5);

  /* Missing is success; a file, a link or nothing is refused. */
  assert_ok(hrx_dir_remove_all(tree, &bytes));
  assert_int_equal(bytes, 0);
  hrx_status_t status = hrx_dir_remove_all(kept, NULL);
  assert_non_null(status);
  hrx_status_free(status);
  free(link);
  link = test_strdup_printf("%s/l", dir);
  assert_int_equal(symlink(outside, link), 0);
  status = hrx_dir_remove_all(link, NULL);
  assert_non_null(status);
  hrx_status_free(status);
  assert_int_equal(stat(kept, &info), 0);
  assert_status_code(hrx_dir_remove_all("", NULL), HRX_STATUS_INVALID_ARGUMENT);
  free(outside);
  free(tree);
  free(deep);
  free(kept);
  free(file);
  free(leaf);
  free(link);
}

static void test_dir_remove_all_depth_limit(void** state) {
  const char* dir = *state;
  hrx_string_builder_t path;
  hrx_string_builder_init(hrx_allocator_system(), &path);
  assert_ok(hrx_string_builder_appendf(&path, "%s/deep", dir));
  for (int i = 0; i < 70; ++i) {
    assert_ok(hrx_string_builder_appendf(&path, "/d"));
  }
  assert_ok(hrx_dir_create_all(hrx_string_builder_cstr(&path), 0700));
  char* top = test_strdup_printf("%s/deep", dir);
  assert_status_code(hrx_dir_remove_all(top, NULL), HRX_STATUS_OUT_OF_RANGE);
  /* Undo by hand, deepest first, so the teardown sees a normal tree. */
  char* p = (char*)hrx_string_builder_cstr(&path);
  for (char* slash; strcmp(p, top) != 0 && (slash = strrchr(p, '/'));) {
    assert_int_equal(rmdir(p), 0);
    *slash = '\0';
  }
  hrx_string_builder_deinit(&path);
  free(top);
}

static void test_atomic_write_replaces(void** state) {
  const char* dir = *state;
  char* path = test_strdup_printf("%s/data.json", dir);
  assert_ok(hrx_file_write_atomic(path, "old", 3, 0640));
  assert_ok(hrx_file_write_atomic(path, "new contents", 12, 0600));
  void* data = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1024, &data,
                              &length));
  assert_int_equal(length, 12);
  assert_string_equal(data, "new contents");
  free(data);
  struct stat info;
  assert_int_equal(stat(path, &info), 0);
  assert_int_equal(info.st_mode & 0777, 0600);
  /* No temporaries are left behind. */
  assert_int_equal(test_dir_count(dir, NULL), 1);
  /* Empty content is a valid file. */
  assert_ok(hrx_file_write_atomic(path, NULL, 0, 0600));
  assert_int_equal(stat(path, &info), 0);
  assert_int_equal(info.st_size, 0);
  free(path);
}

static void test_fd_write_all(void** state) {
  char* path = test_strdup_printf("%s/w", (char*)*state);
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  assert_true(fd >= 0);
  static char data[300000];
  for (size_t i = 0; i < sizeof(data); ++i) data[i] = (char)(i * 13);
  assert_ok(hrx_fd_write_all(fd, data, sizeof(data), path));
  close(fd);
  void* back = NULL;
  size_t length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), path, 1 << 20, &back,
                              &length));
  assert_int_equal(length, sizeof(data));
  assert_memory_equal(back, data, sizeof(data));
  free(back);
  /* A read-only descriptor: the error names the file. */
  fd = open(path, O_RDONLY | O_CLOEXEC);
  assert_status(hrx_fd_write_all(fd, "x", 1, path), HRX_STATUS_INTERNAL,
                "cannot write '");
  close(fd);
  free(path);
}

static void test_atomic_write_failures_leave_nothing(void** state) {
  const char* dir = *state;
  char* missing = test_strdup_printf("%s/no/such/dir/file", dir);
  assert_status_code(hrx_file_write_atomic(missing, "x", 1, 0600),
                     HRX_STATUS_NOT_FOUND);
  /* Renaming over a directory fails; the temporary is cleaned up. */
  char* sub = test_strdup_printf("%s/sub", dir);
  assert_ok(hrx_dir_create_all(sub, 0755));
  hrx_status_t status = hrx_file_write_atomic(sub, "x", 1, 0600);
  assert_true(status != HRX_OK);
  hrx_status_free(status);
  assert_int_equal(test_dir_count(dir, NULL), 1);
  assert_status_code(hrx_file_write_atomic("", "x", 1, 0600),
                     HRX_STATUS_INVALID_ARGUMENT);
  free(sub);
  free(missing);
}

static void test_read_all_limits(void** state) {
  const char* dir = *state;
  char* path = test_strdup_printf("%s/ten", dir);
  test_write_file(path, "0123456789", 10);
  void* data = (void*)1;
  size_t length = 7;
  assert_status_code(
      hrx_file_read_all(hrx_allocator_system(), path, 9, &data, &length),
      HRX_STATUS_OUT_OF_RANGE);
  assert_null(data);
  assert_int_equal(length, 0);
  assert_status_code(
      hrx_file_read_all(hrx_allocator_system(), dir, 100, &data, &length),
      HRX_STATUS_INVALID_ARGUMENT);
  char* missing = test_strdup_printf("%s/missing", dir);
  assert_status_code(
      hrx_file_read_all(hrx_allocator_system(), missing, 100, &data, &length),
      HRX_STATUS_NOT_FOUND);
  test_allocator_t counts = {.fail_at = 1};
  assert_status_code(
      hrx_file_read_all(test_allocator(&counts), path, 100, &data, &length),
      HRX_STATUS_RESOURCE_EXHAUSTED);
  assert_int_equal(counts.live, 0);
  free(missing);
  free(path);
}

/* A FIFO with no writer, a device or a directory where a file is expected
 * is refused at once instead of blocking the caller forever. */
static void test_open_regular_refuses_special_files(void** state) {
  const char* dir = *state;
  char* fifo = test_strdup_printf("%s/fifo", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  int fd = 5;
  assert_status(hrx_file_open_regular(fifo, true, &fd, NULL),
                HRX_STATUS_INVALID_ARGUMENT, "is a FIFO, not a regular file");
  assert_int_equal(fd, -1);
  void* data = NULL;
  size_t length = 0;
  assert_status(hrx_file_read_all(hrx_allocator_system(), fifo, 100, &data,
                                  &length),
                HRX_STATUS_INVALID_ARGUMENT, "FIFO");
  assert_status(hrx_file_open_regular("/dev/zero", true, &fd, NULL),
                HRX_STATUS_INVALID_ARGUMENT, "character device");
  assert_status(hrx_file_open_regular(dir, true, &fd, NULL),
                HRX_STATUS_INVALID_ARGUMENT, "directory");
  /* A name from an archive or a cache is shown escaped. */
  char* odd = test_strdup_printf("%s/a\x1b[2Jb", dir);
  assert_status(hrx_file_open_regular(odd, true, &fd, NULL),
                HRX_STATUS_NOT_FOUND, "a\\x1b[2Jb");
  free(odd);
  hrx_sha256_digest_t digest;
  assert_status(hrx_sha256_file(fifo, &digest), HRX_STATUS_INVALID_ARGUMENT,
                "FIFO");
  char* file = test_strdup_printf("%s/file", dir);
  test_write_file(file, "abc", 3);
  char* link = test_strdup_printf("%s/link", dir);
  assert_int_equal(symlink(file, link), 0);
  struct stat info;
  assert_ok(hrx_file_open_regular(link, true, &fd, &info));
  assert_int_equal(info.st_size, 3);
  assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
  close(fd);
  assert_status(hrx_file_open_regular(link, false, &fd, NULL),
                HRX_STATUS_INVALID_ARGUMENT, "symbolic link");
  assert_int_equal(fd, -1);
  free(link);
  free(file);
  free(fifo);
}

/* Output paths a user chose: devices and FIFOs written in place, links
 * followed, directories refused, nothing lost on failure. */
static void test_write_output_respects_the_target(void** state) {
  const char* dir = *state;
  /* Missing and regular: atomic replacement. */
  char* file = test_strdup_printf("%s/out", dir);
  assert_ok(hrx_file_write_output(file, "one", 3, 0644));
  char* text = test_read_text(file);
  assert_string_equal(text, "one");
  free(text);
  assert_ok(hrx_file_write_output(file, "two", 3, 0644));
  text = test_read_text(file);
  assert_string_equal(text, "two");
  free(text);
  /* A character device stays a device. */
  assert_ok(hrx_file_write_output("/dev/null", "x", 1, 0644));
  struct stat info;
  assert_int_equal(stat("/dev/null", &info), 0);
  assert_true(S_ISCHR(info.st_mode));
  /* A symbolic link is followed; the link survives. */
  char* link = test_strdup_printf("%s/link", dir);
  assert_int_equal(symlink("out", link), 0);
  assert_ok(hrx_file_write_output(link, "three", 5, 0644));
  assert_int_equal(lstat(link, &info), 0);
  assert_true(S_ISLNK(info.st_mode));
  text = test_read_text(file);
  assert_string_equal(text, "three");
  free(text);
  /* A link to a file not yet there creates it; one into a missing
   * directory or a loop of links fails and leaves the links alone. */
  char* fresh = test_strdup_printf("%s/fresh", dir);
  assert_int_equal(symlink("created", fresh), 0);
  assert_ok(hrx_file_write_output(fresh, "new", 3, 0644));
  char* created = test_strdup_printf("%s/created", dir);
  text = test_read_text(created);
  assert_string_equal(text, "new");
  free(text);
  free(created);
  free(fresh);
  char* dangling = test_strdup_printf("%s/dangling", dir);
  assert_int_equal(symlink("nowhere/x", dangling), 0);
  assert_status(hrx_file_write_output(dangling, "x", 1, 0644),
                HRX_STATUS_NOT_FOUND, "symbolic link");
  char* loop = test_strdup_printf("%s/loop", dir);
  assert_int_equal(symlink("loop", loop), 0);
  assert_status(hrx_file_write_output(loop, "x", 1, 0644),
                HRX_STATUS_INVALID_ARGUMENT, "too many levels");
  assert_int_equal(lstat(loop, &info), 0);
  assert_true(S_ISLNK(info.st_mode));
  free(loop);
  /* A directory is refused and left alone. */
  assert_status(hrx_file_write_output(dir, "x", 1, 0644),
                HRX_STATUS_INVALID_ARGUMENT, "is a directory");
  /* A FIFO: without a reader it fails at once; with one it is written in
   * place and stays a FIFO. */
  char* fifo = test_strdup_printf("%s/fifo", dir);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  assert_status(hrx_file_write_output(fifo, "x", 1, 0644),
                HRX_STATUS_UNAVAILABLE, "no reader");
  int reader = open(fifo, O_RDONLY | O_NONBLOCK);
  assert_true(reader >= 0);
  assert_ok(hrx_file_write_output(fifo, "piped", 5, 0644));
  char got[8] = {0};
  assert_int_equal(read(reader, got, sizeof(got)), 5);
  assert_string_equal(got, "piped");
  close(reader);
  assert_int_equal(lstat(fifo, &info), 0);
  assert_true(S_ISFIFO(info.st_mode));
  assert_status(hrx_file_write_output("", "x", 1, 0644),
                HRX_STATUS_INVALID_ARGUMENT, "empty");
  free(fifo);
  free(dangling);
  free(link);
  free(file);
}

static void test_lock_exclusion(void** state) {
  const char* dir = *state;
  char* path = test_strdup_printf("%s/lock", dir);
  hrx_file_lock_t a;
  hrx_file_lock_t b;
  assert_ok(hrx_file_lock_acquire(path, HRX_LOCK_EXCLUSIVE, &a));
  assert_status_code(hrx_file_lock_try_acquire(path, HRX_LOCK_SHARED, &b),
                     HRX_STATUS_BUSY);
  assert_int_equal(b.fd, -1);
  hrx_file_lock_release(&a);
  hrx_file_lock_release(&a); /* second release is a no-op */
  assert_ok(hrx_file_lock_try_acquire(path, HRX_LOCK_SHARED, &a));
  assert_ok(hrx_file_lock_try_acquire(path, HRX_LOCK_SHARED, &b));
  hrx_file_lock_t c;
  assert_status_code(hrx_file_lock_try_acquire(path, HRX_LOCK_EXCLUSIVE, &c),
                     HRX_STATUS_BUSY);
  hrx_file_lock_release(&a);
  hrx_file_lock_release(&b);
  assert_status_code(
      hrx_file_lock_try_acquire(path, (hrx_lock_mode_t)7, &c),
      HRX_STATUS_INVALID_ARGUMENT);
  char* bad = test_strdup_printf("%s/missing/lock", dir);
  assert_status_code(hrx_file_lock_acquire(bad, HRX_LOCK_EXCLUSIVE, &c),
                     HRX_STATUS_NOT_FOUND);
  free(bad);
  free(path);
}

static void test_lock_across_processes(void** state) {
  const char* dir = *state;
  char* path = test_strdup_printf("%s/lock", dir);
  int ready[2];
  int done[2];
  assert_int_equal(pipe(ready), 0);
  assert_int_equal(pipe(done), 0);
  pid_t child = fork();
  assert_true(child >= 0);
  if (child == 0) {
    hrx_file_lock_t held;
    hrx_status_t status =
        hrx_file_lock_acquire(path, HRX_LOCK_EXCLUSIVE, &held);
    char byte = status == HRX_OK ? 'y' : 'n';
    if (write(ready[1], &byte, 1) != 1) _exit(2);
    if (read(done[0], &byte, 1) != 1) _exit(3);
    free(path);
    _exit(0); /* exiting drops the lock */
  }
  char byte = 0;
  assert_int_equal(read(ready[0], &byte, 1), 1);
  assert_int_equal(byte, 'y');
  hrx_file_lock_t mine;
  assert_status_code(hrx_file_lock_try_acquire(path, HRX_LOCK_EXCLUSIVE,
                                               &mine),
                     HRX_STATUS_BUSY);
  assert_int_equal(write(done[1], "x", 1), 1);
  int child_status = 0;
  assert_int_equal(waitpid(child, &child_status, 0), child);
  assert_true(WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0);
  assert_ok(hrx_file_lock_try_acquire(path, HRX_LOCK_EXCLUSIVE, &mine));
  hrx_file_lock_release(&mine);
  close(ready[0]);
  close(ready[1]);
  close(done[0]);
  close(done[1]);
  free(path);
}

typedef struct blocking_ctx_t {
  const char* path;
  hrx_file_lock_t lock;
  hrx_status_t status;
} blocking_ctx_t;

static void* acquire_blocking(void* arg) {
  blocking_ctx_t* ctx = arg;
  ctx->status = hrx_file_lock_acquire(ctx->path, HRX_LOCK_EXCLUSIVE,
                                      &ctx->lock);
  return NULL;
}

static void test_blocking_acquire_waits(void** state) {
  const char* dir = *state;
  char* path = test_strdup_printf("%s/lock", dir);
  hrx_file_lock_t first;
  assert_ok(hrx_file_lock_acquire(path, HRX_LOCK_EXCLUSIVE, &first));
  blocking_ctx_t ctx = {.path = path};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, acquire_blocking, &ctx), 0);
  usleep(20000);
  hrx_file_lock_release(&first);
  pthread_join(thread, NULL);
  assert_ok(ctx.status);
  hrx_file_lock_release(&ctx.lock);
  free(path);
}

/* A holder that unlinks the lock file before releasing it (gc cleaning up)
 * must not leave a waiter holding a lock on the unlinked file while a
 * newcomer locks a new one. */
static void test_lock_survives_unlink_by_holder(void** state) {
  const char* dir = *state;
  char* path = test_strdup_printf("%s/lock", dir);
  hrx_file_lock_t first;
  assert_ok(hrx_file_lock_acquire(path, HRX_LOCK_EXCLUSIVE, &first));
  blocking_ctx_t ctx = {.path = path};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, acquire_blocking, &ctx), 0);
  usleep(50000); /* the waiter has opened the old file and waits on it */
  assert_int_equal(unlink(path), 0);
  hrx_file_lock_release(&first);
  pthread_join(thread, NULL);
  assert_ok(ctx.status);
  struct stat held, named;
  assert_int_equal(fstat(ctx.lock.fd, &held), 0);
  assert_int_equal(stat(path, &named), 0);
  assert_int_equal(held.st_ino, named.st_ino);
  hrx_file_lock_t other;
  assert_status_code(hrx_file_lock_try_acquire(path, HRX_LOCK_EXCLUSIVE,
                                               &other),
                     HRX_STATUS_BUSY);
  hrx_file_lock_release(&ctx.lock);
  /* A symbolic link planted as a lock file is refused. */
  char* link = test_strdup_printf("%s/link.lock", dir);
  assert_int_equal(symlink(path, link), 0);
  assert_status_code(hrx_file_lock_try_acquire(link, HRX_LOCK_EXCLUSIVE,
                                               &other),
                     HRX_STATUS_INVALID_ARGUMENT);
  free(link);
  free(path);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_dir_create_all, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_dir_remove_all, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_dir_remove_all_depth_limit,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_atomic_write_replaces, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_fd_write_all, make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_atomic_write_failures_leave_nothing,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_read_all_limits, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_open_regular_refuses_special_files,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_write_output_respects_the_target,
                                      make_dir, remove_dir),
      cmocka_unit_test_setup_teardown(test_lock_exclusion, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_lock_across_processes, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_blocking_acquire_waits, make_dir,
                                      remove_dir),
      cmocka_unit_test_setup_teardown(test_lock_survives_unlink_by_holder,
                                      make_dir, remove_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
