/* hrx run: code objects dispatched on the host device, run as a user
 * would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"

/* Buffers name their contents; a file that cannot be read is an error that
 * names it, never an empty buffer. */
static void test_run_reports_unreadable_buffer_file(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  char* args = test_strdup_printf("compile %s/saxpy.loom --output=%s/s.hxco",
                                  getenv("HRX_LOOM_KERNELS"), root);
  run_result_t r;
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("compile: %s", r.output);
  free(args);
  args = test_strdup_printf(
      "run %s/s.hxco --export=saxpy --workload=4 --scalar=4 "
      "--scalar=0.5 --buffer=@%s/missing.bin --buffer=f32:1,1,1,1",
      root, root);
  run_hrx(env, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "missing.bin"));
  free(args);
  free(env);
  test_temp_dir_remove(root);
}

/* Compiles |path| (or corpus saxpy.loom when NULL) into ROOT/k.hxco with
 * the cache under |env|. */
static void compile_into(const char* env, const char* root,
                         const char* source_path) {
  char* path = source_path
                   ? test_strdup_printf("%s", source_path)
                   : test_strdup_printf("%s/saxpy.loom",
                                        getenv("HRX_LOOM_KERNELS"));
  char* args = test_strdup_printf("compile %s --output=%s/k.hxco", path, root);
  run_result_t r;
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("compile: %s", r.output);
  free(args);
  free(path);
}

/* A kernel that never ends: --timeout bounds the wait, the work is
 * cancelled, the timeout is reported and hrx exits 1 within seconds
 * (before, it timed out after 600 s and then hung in stream destroy). */
static void test_run_timeout_cancels_endless_kernel(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  char* spin = test_strdup_printf("%s/spin.loom", getenv("HRX_TEST_KERNELS"));
  compile_into(env, root, spin);
  free(spin);
  char* args = test_strdup_printf(
      "run %s/k.hxco --export=spin --timeout=1 --buffer=i32:0,1", root);
  time_t start = time(NULL);
  run_result_t r;
  run_hrx(env, args, &r);
  time_t took = time(NULL) - start;
  assert_int_equal(r.exit_code, 1);
  if (!strstr(r.output, "'spin' did not finish within 1 s (--timeout)")) {
    fail_msg("%s", r.output);
  }
  assert_true(took < 15);
  free(args);
  /* A kernel that ends runs under the same option. */
  args = test_strdup_printf(
      "run %s/k.hxco --export=spin --timeout=5 --buffer=i32:3,3 --print=i32",
      root);
  run_hrx(env, args, &r);
  if (r.exit_code != 0 || !strstr(r.output, "buffer 0 (8 bytes): 3 3")) {
    fail_msg("%s", r.output);
  }
  free(args);
  free(env);
  test_temp_dir_remove(root);
}

/* Counts and sizes are checked numbers: overflow, trailing junk, signs
 * and out-of-range values are usage errors (exit 2) naming the option,
 * found before anything runs. */
static void test_run_rejects_bad_numbers(void** state) {
  (void)state;
  static const char* const bad[] = {
      "--timeout=0", "--timeout=-1", "--timeout=1x", "--timeout=",
      "--timeout=99999999999999999999",
      "--workload=18446744073709551615", "--workload=9223372036854775808",
      "--workload=-1", "--workload=1x", "--workload=1,,2",
      "--buffer=fill:0:-1", "--buffer=fill:256:4", "--buffer=fill:0:4x",
      "--buffer=fill:-1:4", "--buffer=fill:0:0", "--buffer=-5",
      "--buffer=0", "--buffer=99999999999999999999", "--buffer=4k",
      "--buffer=i32:1,99999999999", "--buffer=i32:1,,2"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    char* args = test_strdup_printf("run x.hxco --export=k %s", bad[i]);
    run_result_t r;
    run_hrx(NULL, args, &r);
    const char* option = strchr(bad[i], '=');
    char* named = test_strdup_printf("bad %.*s", (int)(option - bad[i]),
                                     bad[i]);
    if (r.exit_code != 2 || !strstr(r.output, named)) {
      fail_msg("%s: exit %d: %s", bad[i], r.exit_code, r.output);
    }
    free(named);
    free(args);
  }
}

/* --dump writes where the user pointed: a link in DIR is followed (the
 * link stays, its target gets the bytes) rather than replaced. */
static void test_run_dump_follows_links(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  compile_into(env, root, NULL);
  char* dir = test_strdup_printf("%s/out", root);
  assert_int_equal(mkdir(dir, 0755), 0);
  char* target = test_strdup_printf("%s/kept.bin", root);
  test_write_file(target, "old", 3);
  char* link = test_strdup_printf("%s/buffer1.bin", dir);
  assert_int_equal(symlink(target, link), 0);
  char* args = test_strdup_printf(
      "run %s/k.hxco --export=saxpy --workload=4 --scalar=4 --scalar=0.5 "
      "--buffer=f32:2,4,6,8 --buffer=f32:1,1,1,1 --dump=%s",
      root, dir);
  run_result_t r;
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("%s", r.output);
  struct stat st;
  assert_int_equal(lstat(link, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(stat(target, &st), 0);
  assert_int_equal(st.st_size, 16); /* y = 0.5 x + y, four floats */
  free(args);
  free(link);
  free(target);
  free(dir);
  free(env);
  test_temp_dir_remove(root);
}

/* --buffer=@FIFO is refused at once, naming it, instead of blocking on a
 * pipe nobody writes. */
static void test_run_buffer_fifo_does_not_block(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  compile_into(env, root, NULL);
  char* fifo = test_strdup_printf("%s/pipe", root);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  char* args = test_strdup_printf(
      "run %s/k.hxco --export=saxpy --workload=4 --scalar=4 --scalar=0.5 "
      "--buffer=@%s --buffer=f32:1,1,1,1",
      root, fifo);
  time_t start = time(NULL);
  run_result_t r;
  run_hrx(env, args, &r);
  assert_true(time(NULL) - start < 10);
  assert_int_equal(r.exit_code, 1);
  if (!strstr(r.output, "pipe") || !strstr(r.output, "FIFO")) {
    fail_msg("%s", r.output);
  }
  free(args);
  free(fifo);
  free(env);
  test_temp_dir_remove(root);
}

/* Whether files |a| and |b| hold the same bytes. */
static bool same_file(const char* a, const char* b) {
  FILE* fa = fopen(a, "rb");
  FILE* fb = fopen(b, "rb");
  bool same = fa && fb;
  while (same) {
    int ca = fgetc(fa), cb = fgetc(fb);
    same = ca == cb;
    if (ca == EOF) break;
  }
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

/* --device=1 under HRX_KFD_MODEL runs saxpy compiled for gfx1151 on the
 * modelled GPU with the result the host device gives for the host code
 * object: the same printout, the same bytes dumped (256 elements, more
 * than one wave). */
static void test_run_device_kfd_model(void** state) {
  (void)state;
  const char* have_llvm = getenv("HRX_TEST_HAVE_LLVM");
  if (!have_llvm || strcmp(have_llvm, "1") != 0) {
    skip(); /* gfx1151 code objects need the amdgpu backend (-Dllvm) */
  }
  char* root = test_temp_dir_create();
  char* fixture = kfd_model_fixture("gfx1151");
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s HRX_KFD_MODEL=%s", root,
                                 fixture);
  char* args = test_strdup_printf(
      "compile %s/saxpy.loom --output=%s/k.hxco", getenv("HRX_LOOM_KERNELS"),
      root);
  run_result_t r;
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("compile: %s", r.output);
  free(args);
  args = test_strdup_printf(
      "compile %s/saxpy.loom --target=gfx1151 --output=%s/k.co",
      getenv("HRX_LOOM_KERNELS"), root);
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("compile gfx1151: %s", r.output);
  free(args);

  static const char run_args[] =
      "--export=saxpy --workload=4 --scalar=4 --scalar=0.5 "
      "--buffer=f32:2,4,6,8 --buffer=f32:1,1,1,1 --print=f32";
  args = test_strdup_printf("run %s/k.hxco --device=0 %s", root, run_args);
  run_result_t host;
  run_hrx(env, args, &host);
  if (host.exit_code != 0) fail_msg("host: %s", host.output);
  assert_non_null(strstr(host.output, "buffer 1 (16 bytes): 2 3 4 5\n"));
  free(args);
  args = test_strdup_printf("run %s/k.co --device=1 %s", root, run_args);
  run_result_t model;
  run_hrx(env, args, &model);
  if (model.exit_code != 0) fail_msg("model: %s", model.output);
  assert_string_equal(model.output, host.output);
  free(args);

  /* 256 elements, compared in full through --dump. */
  static const char big_args[] =
      "--export=saxpy --workload=256 --scalar=256 --scalar=-1.25 "
      "--buffer=fill:65:1024 --buffer=fill:63:1024";
  args = test_strdup_printf("run %s/k.hxco %s --dump=%s/host", root, big_args,
                            root);
  run_hrx(env, args, &host);
  if (host.exit_code != 0) fail_msg("host: %s", host.output);
  free(args);
  args = test_strdup_printf("run %s/k.co --device=1 %s --dump=%s/model", root,
                            big_args, root);
  run_hrx(env, args, &model);
  if (model.exit_code != 0) fail_msg("model: %s", model.output);
  assert_string_equal(model.output, host.output);
  free(args);
  for (int b = 0; b < 2; ++b) {
    char* h = test_strdup_printf("%s/host/buffer%d.bin", root, b);
    char* m = test_strdup_printf("%s/model/buffer%d.bin", root, b);
    if (!same_file(h, m)) fail_msg("%s and %s differ", h, m);
    free(h);
    free(m);
  }
  free(env);
  free(fixture);
  test_temp_dir_remove(root);
}

/* A --device past the devices there are is a usage error that says how
 * many there are; a code object for another target names the one needed. */
static void test_run_device_errors(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* fixture = kfd_model_fixture("gfx1151");
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s HRX_KFD_MODEL=%s", root,
                                 fixture);
  compile_into(env, root, NULL);
  char* args = test_strdup_printf(
      "run %s/k.hxco --export=saxpy --device=9 --workload=4 --scalar=4 "
      "--scalar=0.5 --buffer=f32:2,4,6,8 --buffer=f32:1,1,1,1", root);
  run_result_t r;
  run_hrx(env, args, &r);
  if (r.exit_code != 2 || !strstr(r.output, "bad --device=9") ||
      !strstr(r.output, "there are 2 devices")) {
    fail_msg("exit %d: %s", r.exit_code, r.output);
  }
  free(args);
  args = test_strdup_printf(
      "run %s/k.hxco --export=saxpy --device=x", root);
  run_hrx(env, args, &r);
  if (r.exit_code != 2 || !strstr(r.output, "bad --device=x")) {
    fail_msg("exit %d: %s", r.exit_code, r.output);
  }
  free(args);
  /* The host code object on the modelled gfx1151. */
  args = test_strdup_printf(
      "run %s/k.hxco --export=saxpy --device=1 --workload=4 --scalar=4 "
      "--scalar=0.5 --buffer=f32:2,4,6,8 --buffer=f32:1,1,1,1", root);
  run_hrx(env, args, &r);
  if (r.exit_code != 1 || !strstr(r.output, "on device 1") ||
      !strstr(r.output, "hrx compile --target=gfx1151")) {
    fail_msg("exit %d: %s", r.exit_code, r.output);
  }
  free(args);
  free(env);
  /* Without the model and without a GPU there is only the host device. */
  if (access("/dev/kfd", F_OK) != 0) {
    env = test_strdup_printf("XDG_CACHE_HOME=%s HRX_KFD_MODEL=", root);
    args = test_strdup_printf("run %s/k.hxco --export=saxpy --device=1",
                              root);
    run_hrx(env, args, &r);
    if (r.exit_code != 2 || !strstr(r.output, "there is 1 device") ||
        !strstr(r.output, "no AMD GPU")) {
      fail_msg("exit %d: %s", r.exit_code, r.output);
    }
    free(args);
    free(env);
  }
  free(fixture);
  test_temp_dir_remove(root);
}

/* --sanitizer-reporting=report: saxpy over 8 elements of 4-element
 * buffers runs to the end, the in-bounds elements right, every
 * out-of-bounds access printed after the buffers, and run exits 1; a
 * smaller capacity counts the rest as dropped; trap (the default) stops
 * at the first; a clean run in report mode exits 0. The choice belongs to
 * run, not compile. */
static void test_run_sanitizer_reporting(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  compile_into(env, root, NULL);
  static const char over[] =
      "--export=saxpy --workload=8 --scalar=8 --scalar=0.5 "
      "--buffer=f32:2,4,6,8 --buffer=f32:1,1,1,1 --print=f32";
  char* args = test_strdup_printf(
      "run %s/k.hxco %s --sanitizer-reporting=report", root, over);
  run_result_t r;
  run_hrx(env, args, &r);
  if (r.exit_code != 1 ||
      !strstr(r.output, "buffer 1 (16 bytes): 2 3 4 5\n") ||
      !strstr(r.output, "sanitizer: 12 reports, 0 dropped\n") ||
      !strstr(r.output, "  out-of-bounds access in kernel 'saxpy', "
                        "workgroup (0, 0, 0), work-item 4 (4, 0, 0)") ||
      !strstr(r.output, "4-byte write at offset 28 of binding 1") ||
      !strstr(r.output, "with 12 sanitizer findings")) {
    fail_msg("report: exit %d: %s", r.exit_code, r.output);
  }
  free(args);
  args = test_strdup_printf(
      "run %s/k.hxco %s --sanitizer-reporting=report "
      "--sanitizer-report-capacity=5", root, over);
  run_hrx(env, args, &r);
  if (r.exit_code != 1 ||
      !strstr(r.output, "sanitizer: 5 reports, 7 dropped\n")) {
    fail_msg("capacity: exit %d: %s", r.exit_code, r.output);
  }
  free(args);
  args = test_strdup_printf("run %s/k.hxco %s --sanitizer-reporting=trap",
                            root, over);
  run_hrx(env, args, &r);
  if (r.exit_code != 1 || !strstr(r.output, "out-of-bounds access") ||
      strstr(r.output, "sanitizer:")) {
    fail_msg("trap: exit %d: %s", r.exit_code, r.output);
  }
  free(args);
  args = test_strdup_printf(
      "run %s/k.hxco --export=saxpy --workload=4 --scalar=4 --scalar=0.5 "
      "--buffer=f32:2,4,6,8 --buffer=f32:1,1,1,1 --print=f32 "
      "--sanitizer-reporting=report", root);
  run_hrx(env, args, &r);
  if (r.exit_code != 0 ||
      !strstr(r.output, "sanitizer: 0 reports, 0 dropped\n")) {
    fail_msg("clean: exit %d: %s", r.exit_code, r.output);
  }
  free(args);
  static const struct {
    const char* args;
    const char* says;
  } usage[] = {
      {"run x.hxco --export=k --sanitizer-reporting=loud",
       "--sanitizer-reporting is trap or report, not 'loud'"},
      {"run x.hxco --export=k --sanitizer-report-capacity=4",
       "needs --sanitizer-reporting=report"},
      {"run x.hxco --export=k --sanitizer-reporting=report "
       "--sanitizer-report-capacity=0", "bad --sanitizer-report-capacity"},
      {"compile x.loom --sanitizer-reporting=report",
       "chosen when the kernel runs: hrx run --sanitizer-reporting=report"},
  };
  for (size_t i = 0; i < sizeof(usage) / sizeof(usage[0]); ++i) {
    run_hrx(env, usage[i].args, &r);
    if (r.exit_code != 2 || !strstr(r.output, usage[i].says)) {
      fail_msg("%s: exit %d: %s", usage[i].args, r.exit_code, r.output);
    }
  }
  free(env);
  test_temp_dir_remove(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_run_reports_unreadable_buffer_file),
      cmocka_unit_test(test_run_timeout_cancels_endless_kernel),
      cmocka_unit_test(test_run_rejects_bad_numbers),
      cmocka_unit_test(test_run_dump_follows_links),
      cmocka_unit_test(test_run_buffer_fifo_does_not_block),
      cmocka_unit_test(test_run_device_kfd_model),
      cmocka_unit_test(test_run_device_errors),
      cmocka_unit_test(test_run_sanitizer_reporting),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
