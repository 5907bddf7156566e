/* The hrx command-line tool, run as a user would run it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"

static void test_version(void** state) {
  (void)state;
  run_result_t r;
  run_hrx(NULL, "--version", &r);
  assert_int_equal(r.exit_code, 0);
  assert_true(strncmp(r.output, "hrx ", 4) == 0);
  assert_non_null(strstr(r.output, hrx_core_version()));
}

static void test_help(void** state) {
  (void)state;
  run_result_t r;
  run_hrx(NULL, "help", &r);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.output, "doctor"));
  run_hrx(NULL, "--help", &r);
  assert_int_equal(r.exit_code, 0);
  /* Each command documents its own options. */
  run_hrx(NULL, "help run", &r);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.output, "fill:BYTE:SIZE"));
  run_hrx(NULL, "compile --help", &r);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.output, "--no-cache"));
}

static void test_usage_errors_exit_2(void** state) {
  (void)state;
  const char* cases[] = {"", "frobnicate", "--frobnicate", "doctor --bogus",
                         "help extra", "--version extra",
                         "help nope", "help run extra"};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    run_result_t r;
    run_hrx(NULL, cases[i], &r);
    if (r.exit_code != 2) {
      fail_msg("'hrx %s' exited %d: %s", cases[i], r.exit_code, r.output);
    }
    assert_non_null(strstr(r.output, "hrx"));
  }
  run_result_t r;
  run_hrx(NULL, "frobnicate", &r);
  assert_non_null(strstr(r.output, "unknown command 'frobnicate'"));
}

static void test_doctor_cache_root(void** state) {
  (void)state;
  run_result_t r;
  run_hrx("XDG_CACHE_HOME=/var/tmp/xdg HOME=/home/someone", "doctor", &r);
  assert_int_equal(r.exit_code, 0);
  EXPECT_OUTPUT(&r, "hrx-core", "cache root   /var/tmp/xdg/hrx (from xdg)",
                "devices:", "host         HRX host device");
  /* The KFD topology is probed; without the driver that is one line. */
  const char* amdgpu = strstr(r.output, "amdgpu       ");
  assert_non_null(amdgpu);
  if (access("/dev/kfd", F_OK) != 0) {
    assert_non_null(strstr(amdgpu, "no AMD GPU"));
  }
  /* The NPU is listed, or why there is none. */
  const char* npu = strstr(r.output, "  npu          ");
  if (!npu) fail_msg("doctor lists no NPU line:\n%s", r.output);
  if (access("/dev/accel", F_OK) != 0) {
    assert_true(strstr(npu, "no NPU: no /dev/accel node") ||
                strstr(npu, "not built"));
  }
  /* Every library, in layer order. */
  const char* at = r.output;
  static const char* const layers[] = {"hrx-core ", "hrx-fabric", "hrx-gpu",
                                       "hrx-loom", "hrx-exec",
                                       "hrx-artifacts"};
  for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); ++i) {
    at = strstr(at, layers[i]);
    if (!at) fail_msg("doctor lists no %s in order:\n%s", layers[i], r.output);
  }
  /* A relative XDG_CACHE_HOME falls back to $HOME/.cache/hrx. */
  run_hrx("XDG_CACHE_HOME=relative HOME=/home/someone", "doctor", &r);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(
      strstr(r.output, "cache root   /home/someone/.cache/hrx (from home)"));
  run_hrx("XDG_RUNTIME_DIR=/run/user/77", "doctor", &r);
  assert_non_null(strstr(r.output, "runtime dir  /run/user/77/hrx"));
  /* A .xdna image goes to the NPU path, which needs no --export. */
  run_hrx(NULL, "run /nonexistent/image.xdna", &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "/nonexistent/image.xdna"));
  assert_null(strstr(r.output, "--export"));
}

/* Under HRX_KFD_MODEL, doctor says the model is active and which fixture,
 * and opens the modelled GPU as device 1: its name (with the KFD version
 * and "model"), profile target, queues. A topology without a supported GPU
 * lists it without a device. */
static void test_doctor_kfd_model(void** state) {
  (void)state;
  char* fixture = kfd_model_fixture("gfx1151");
  char* env = test_strdup_printf("HRX_KFD_MODEL=%s", fixture);
  run_result_t r;
  run_hrx(env, "doctor", &r);
  if (r.exit_code != 0) fail_msg("doctor: %s", r.output);
  char* active = test_strdup_printf("kfd model    active (HRX_KFD_MODEL=%s)",
                                    fixture);
  static const char* const wanted[] = {
      "host         HRX host device",
      "amdgpu       node 1: gfx1151 (1002:1586), 40 CUs",
      "supported, device 1",
      "device 1     AMD gfx1151 (KFD ",
      ", model): profile gfx1151, 40 CUs, subgroup 32",
      "queues: AQL compute on host CPU: 1024, dispatch",
      "queues: transfer on host CPU: unlimited, copy, fill",
      "queues: AQL compute on command processor: 8, dispatch, barriers",
      "queues: PM4 compute on command processor: 8, dispatch",
      "queues: transfer on SDMA: 12, copy, fill, memory waits, fences",
      "memory: coherent (host memory): coherent, no release or acquire "
      "actions",
      "atomics (1/2/4/8 bytes): host-host SSSS, host-AQL SSSS",
      "memory: device (GTT)\n",
      "from host: to host release none, acquire none; to AQL release host "
      "write-back, acquire queue acquire",
      "from AQL: to host release queue release, acquire host invalidate",
      "AQL-AQL --DD, AQL-PM4 --DD, AQL-transfer ----",
      "memory: coherent (GTT coherent uncached): coherent",
      "host-AQL --SS"};
  if (!strstr(r.output, active)) fail_msg("no '%s' in:\n%s", active,
                                          r.output);
  for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); ++i) {
    if (!strstr(r.output, wanted[i])) {
      fail_msg("no '%s' in:\n%s", wanted[i], r.output);
    }
  }
  /* The KFD version on the device line is the one in its name. */
  const char* line = strstr(r.output, "device 1     AMD gfx1151 (KFD ");
  char version[16] = "";
  assert_int_equal(sscanf(line, "device 1     AMD gfx1151 (KFD %15[0-9.]",
                          version), 1);
  char* tail = test_strdup_printf(", KFD %s\n", version);
  assert_non_null(strstr(line, tail));
  free(tail);
  free(active);
  free(env);
  free(fixture);

  /* A GPU HRX does not support is listed, never opened. */
  fixture = kfd_model_fixture("gfx1100");
  env = test_strdup_printf("HRX_KFD_MODEL=%s", fixture);
  run_hrx(env, "doctor", &r);
  if (r.exit_code != 0 || !strstr(r.output, "gfx1100") ||
      !strstr(r.output, "not supported by HRX") ||
      strstr(r.output, "device 1 ")) {
    fail_msg("doctor: %s", r.output);
  }
  free(env);
  free(fixture);
  fixture = kfd_model_fixture("no_gpu");
  env = test_strdup_printf("HRX_KFD_MODEL=%s", fixture);
  run_hrx(env, "doctor", &r);
  if (r.exit_code != 0 || !strstr(r.output, "kfd model    active") ||
      !strstr(r.output, "the KFD topology has no GPU")) {
    fail_msg("doctor: %s", r.output);
  }
  free(env);
  free(fixture);
  /* Empty is off: no model line. */
  run_hrx("HRX_KFD_MODEL=", "doctor", &r);
  assert_int_equal(r.exit_code, 0);
  assert_null(strstr(r.output, "kfd model"));
}

static void test_compile_and_run(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  char* args = test_strdup_printf(
      "compile %s/saxpy.loom --export=saxpy --output=%s/s.hxco "
      "--manifest-output=%s/m.json --launch-output=%s/l.bin "
      "--trace-output=%s/t.jsonl --trace-after=parse",
      getenv("HRX_LOOM_KERNELS"), root, root, root, root);
  run_result_t r;
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("%s", r.output);
  assert_non_null(strstr(r.output, "compiled"));
  free(args);
  args = test_strdup_printf(
      "run %s/s.hxco --export=saxpy --workload=4 --scalar=4 --scalar=0.5 "
      "--buffer=f32:2,4,6,8 --buffer=f32:1,1,1,1 --print=f32 --dump=%s/out",
      root, root);
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("%s", r.output);
  assert_non_null(strstr(r.output, "buffer 1 (16 bytes): 2 3 4 5"));
  free(args);
  /* inspect describes the code object, and refuses a damaged one. */
  args = test_strdup_printf("inspect %s/s.hxco", root);
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("%s", r.output);
  EXPECT_OUTPUT(&r, "HRX host code object", "kernel saxpy: subgroup 32",
                "1 workload value", "arg 2  buffer at 16");
  assert_null(strstr(r.output, "race-checked"));
  free(args);
  /* --sanitizer=race reaches the code object. */
  args = test_strdup_printf(
      "compile %s/saxpy.loom --sanitizer=race --output=%s/race.hxco",
      getenv("HRX_LOOM_KERNELS"), root);
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("%s", r.output);
  free(args);
  args = test_strdup_printf("inspect %s/race.hxco", root);
  run_hrx(env, args, &r);
  assert_non_null(strstr(r.output, "1 workload value, race-checked"));
  free(args);
  char* code = test_strdup_printf("%s/s.hxco", root);
  assert_int_equal(truncate(code, 100), 0);
  args = test_strdup_printf("inspect %s", code);
  run_hrx(env, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "checksum"));
  free(args);
  free(code);
  char* dumped = test_strdup_printf("%s/out/buffer1.bin", root);
  struct stat info;
  assert_int_equal(stat(dumped, &info), 0);
  assert_int_equal(info.st_size, 16);
  free(dumped);
  free(env);
  test_temp_dir_remove(root);
}

/* Output paths are the user's: /dev/null stays a device, a symbolic link
 * stays a link (its target is written), a directory is refused. */
static void test_compile_outputs_respect_targets(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  const char* kernels = getenv("HRX_LOOM_KERNELS");
  if (!kernels) kernels = "libhrx-loom/kernels";
  char* args = test_strdup_printf(
      "compile %s/saxpy.loom --export=saxpy -o /dev/null "
      "--manifest-output=/dev/null --launch-output=/dev/null "
      "--trace-output=/dev/null", kernels);
  run_result_t r;
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("%s", r.output);
  struct stat info;
  assert_int_equal(lstat("/dev/null", &info), 0);
  assert_true(S_ISCHR(info.st_mode));
  free(args);
  char* target = test_strdup_printf("%s/real.hxco", root);
  char* link = test_strdup_printf("%s/link.hxco", root);
  assert_int_equal(symlink("real.hxco", link), 0);
  args = test_strdup_printf("compile %s/saxpy.loom -o %s/link.hxco", kernels,
                            root);
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("%s", r.output);
  assert_int_equal(lstat(link, &info), 0);
  assert_true(S_ISLNK(info.st_mode));
  assert_int_equal(stat(target, &info), 0);
  assert_true(info.st_size > 0);
  free(args);
  args = test_strdup_printf("compile %s/saxpy.loom -o %s", kernels, root);
  run_hrx(env, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "is a directory"));
  free(args);
  char* fifo = test_strdup_printf("%s/fifo", root);
  assert_int_equal(mkfifo(fifo, 0600), 0);
  args = test_strdup_printf("compile %s/saxpy.loom -o %s/fifo", kernels,
                            root);
  run_hrx(env, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "FIFO with no reader"));
  assert_int_equal(lstat(fifo, &info), 0);
  assert_true(S_ISFIFO(info.st_mode));
  free(args);
  /* A FIFO as the input is refused, not waited on. */
  args = test_strdup_printf("compile %s/fifo -o %s/x.hxco", root, root);
  run_hrx(env, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "is a FIFO, not a regular file"));
  free(args);
  free(fifo);
  free(link);
  free(target);
  free(env);
  test_temp_dir_remove(root);
}

/* hrx compile --target=gfx1151 writes an AMDGPU ELF code object that hrx
 * inspect lists (descriptor, registers, launch program); a build without
 * LLVM says which build feature is missing. */
static void test_compile_and_inspect_gfx1151(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  const char* examples = getenv("HRX_EXAMPLES");
  assert_non_null(examples);
  char* args = test_strdup_printf(
      "compile %s/saxpy.loom --target=gfx1151 --export=saxpy -o %s/saxpy.co",
      examples, root);
  run_result_t r;
  run_hrx(env, args, &r);
  const char* have_llvm = getenv("HRX_TEST_HAVE_LLVM");
  if (!have_llvm || strcmp(have_llvm, "1") != 0) {
    assert_int_equal(r.exit_code, 1);
    assert_non_null(strstr(r.output, "-Dllvm"));
  } else {
    if (r.exit_code != 0) fail_msg("compile: %s", r.output);
    free(args);
    args = test_strdup_printf("inspect %s/saxpy.co", root);
    run_hrx(env, args, &r);
    if (r.exit_code != 0) fail_msg("inspect: %s", r.output);
    EXPECT_OUTPUT(&r, "AMDGPU code object", "amdgcn-amd-amdhsa--gfx1151",
                  "kernel saxpy", "rsrc1", "user SGPRs", "launch program");
    /* A truncated object is refused with a reason. */
    char* path = test_strdup_printf("%s/saxpy.co", root);
    char* data = test_read_text(path);
    char* cut = test_strdup_printf("%s/cut.co", root);
    test_write_file(cut, data, 100);
    free(args);
    args = test_strdup_printf("inspect %s", cut);
    run_hrx(env, args, &r);
    assert_int_equal(r.exit_code, 1);
    assert_non_null(strstr(r.output, "truncated"));
    free(cut);
    free(data);
    free(path);
  }
  free(args);
  free(env);
  test_temp_dir_remove(root);
}

static void test_compile_errors(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* bad = test_strdup_printf("%s/bad.loom", root);
  test_write_file(bad, "kernel.def @k(%n: index) {\n  %x = index.frob\n}\n",
                  44);
  struct {
    const char* args;
    int code;
    const char* text;
  } cases[] = {
      {"compile /nonexistent/x.loom", 1, "cannot open"},
      {"compile --bogus x.loom", 2, "unknown option '--bogus'"},
      {"compile", 2, "missing FILE.loom"},
      {"compile a.loom b.loom", 2, "more than one input"},
      {"compile x.loom --config=novalue", 2, "bad --config=novalue"},
      {"compile x.loom --sanitizer=memory", 2, "unknown sanitizer 'memory'"},
      {"compile x.loom --trace-before=x", 2, "need --trace-output"},
      {"run", 2, "missing ARTIFACT"},
      {"run x.hxco", 2, "missing --export"},
      {"run x.hxco --export=k --workload=abc", 2, "bad --workload"},
      {"run x.hxco --export=k --workload=1,,2 --workload=-", 2,
       "bad --workload"},
      {"run /nonexistent.hxco --export=k", 1, "cannot open"},
      {"gc -3", 2, "DAYS '-3' is not"},
      {"gc 1 2", 2, "at most DAYS"},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    run_result_t r;
    run_hrx(NULL, cases[i].args, &r);
    if (r.exit_code != cases[i].code || !strstr(r.output, cases[i].text)) {
      fail_msg("'hrx %s' exited %d: %s", cases[i].args, r.exit_code,
               r.output);
    }
  }
  /* Workload values are bounded across repeated options, not only within
   * one list. */
  char many[512] = "run x.hxco --export=k";
  for (int i = 0; i < 2; ++i) {
    strcat(many, " --workload=1");
    for (int k = 0; k < 40; ++k) strcat(many, ",1");
  }
  run_result_t rw;
  run_hrx(NULL, many, &rw);
  assert_int_equal(rw.exit_code, 2);
  assert_non_null(strstr(rw.output, "bad --workload"));
  /* A target without a backend in this build is refused by name. */
  char* gfx = test_strdup_printf("compile %s --target=gfx9999", bad);
  run_result_t rg;
  run_hrx(NULL, gfx, &rg);
  assert_int_equal(rg.exit_code, 1);
  assert_non_null(strstr(rg.output, "no compiler backend for target 'gfx9999'"));
  free(gfx);
  /* A bad source prints compiler-style diagnostics and fails. */
  char* args = test_strdup_printf("compile %s --no-cache --output=%s/o", bad,
                                  root);
  run_result_t r;
  run_hrx(NULL, args, &r);
  assert_int_equal(r.exit_code, 1);
  assert_non_null(strstr(r.output, "bad.loom:2:8: error[L0202]: unknown op "
                                   "'index.frob'"));
  assert_non_null(strstr(r.output, "^~~~~~~~~~"));
  free(args);
  free(bad);
  test_temp_dir_remove(root);
}

static void make_entry(const char* kernels, const char* name, int age_days) {
  char* dir = test_strdup_printf("%s/%s", kernels, name);
  assert_ok(hrx_dir_create_all(dir, 0755));
  char* file = test_strdup_printf("%s/code.hxco", dir);
  test_write_file(file, "0123456789", 10);
  struct timespec times[2] = {{.tv_sec = time(NULL) - age_days * 86400},
                              {.tv_nsec = UTIME_OMIT}};
  assert_int_equal(utimensat(AT_FDCWD, dir, times, 0), 0);
  free(file);
  free(dir);
}

/* A cache key: 64 |c|s. */
static void cache_key(char key[65], char c) {
  memset(key, c, 64);
  key[64] = 0;
}

/* Whether |kernels|/|name| exists. */
static bool cached(const char* kernels, const char* name) {
  char* path = test_strdup_printf("%s/%s", kernels, name);
  struct stat info;
  bool found = stat(path, &info) == 0;
  free(path);
  return found;
}

static void test_gc_by_access_time(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* kernels = test_strdup_printf("%s/hrx/kernels", root);
  char old_key[65], new_key[65];
  cache_key(old_key, 'a');
  cache_key(new_key, 'b');
  make_entry(kernels, old_key, 40);
  make_entry(kernels, new_key, 1);
  make_entry(kernels, "not-a-cache-entry", 400);
  char* orphan = test_strdup_printf("%s/%s.lock", kernels,
                                    "cccccccccccccccccccccccccccccccccccccccc"
                                    "cccccccccccccccccccccccc");
  test_write_file(orphan, "", 0);
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  run_result_t r;
  run_hrx(env, "gc 10", &r);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.output, "removed 1 kernel (10 bytes)"));
  assert_false(cached(kernels, old_key));
  assert_true(cached(kernels, new_key));
  assert_true(cached(kernels, "not-a-cache-entry"));
  struct stat info;
  assert_int_not_equal(stat(orphan, &info), 0);
  /* The default is 30 days: the new entry stays, gc 0 takes it. */
  run_hrx(env, "gc", &r);
  assert_non_null(strstr(r.output, "removed 0 kernels"));
  run_hrx(env, "gc 0", &r);
  assert_non_null(strstr(r.output, "removed 1 kernel"));
  free(orphan);
  free(env);
  free(kernels);
  test_temp_dir_remove(root);
}

/* gc takes the locks that compiles and installs hold: an entry or a lock
 * file in use stays, and DAYS is a checked number. */
static void test_gc_respects_locks_and_checks_days(void** state) {
  (void)state;
  char* root = test_temp_dir_create();
  char* kernels = test_strdup_printf("%s/hrx/kernels", root);
  char held_key[65], lone_key[65];
  cache_key(held_key, 'd');
  cache_key(lone_key, 'e');
  make_entry(kernels, held_key, 40);
  char* held_lock = test_strdup_printf("%s/%s.lock", kernels, held_key);
  char* lone_lock = test_strdup_printf("%s/%s.lock", kernels, lone_key);
  hrx_file_lock_t a, b;
  assert_ok(hrx_file_lock_acquire(held_lock, HRX_LOCK_EXCLUSIVE, &a));
  /* An install in progress: its lock is held before its entry exists. */
  assert_ok(hrx_file_lock_acquire(lone_lock, HRX_LOCK_EXCLUSIVE, &b));
  char* env = test_strdup_printf("XDG_CACHE_HOME=%s", root);
  run_result_t r;
  run_hrx(env, "gc 0", &r);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.output, "removed 0 kernels"));
  assert_non_null(strstr(r.output, "kept 1 kernel in use by another process"));
  struct stat info;
  assert_true(cached(kernels, held_key));
  assert_int_equal(stat(held_lock, &info), 0);
  assert_int_equal(stat(lone_lock, &info), 0);
  hrx_file_lock_release(&a);
  hrx_file_lock_release(&b);
  run_hrx(env, "gc 0", &r);
  assert_non_null(strstr(r.output, "removed 1 kernel"));
  assert_false(cached(kernels, held_key));
  assert_int_not_equal(stat(held_lock, &info), 0);
  assert_int_not_equal(stat(lone_lock, &info), 0);

  make_entry(kernels, held_key, 40);
  const char* bad[] = {"gc 99999999999999999999", "gc 18446744073709551615",
                       "gc -1", "gc 1x", "gc ''", "gc 1000001"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    run_hrx(env, bad[i], &r);
    if (r.exit_code != 2) fail_msg("'hrx %s' exited %d", bad[i], r.exit_code);
    assert_non_null(strstr(r.output, "DAYS"));
  }
  assert_true(cached(kernels, held_key)); /* nothing evicted */
  run_hrx(env, "gc 1000000", &r);
  assert_int_equal(r.exit_code, 0);
  assert_non_null(strstr(r.output, "removed 0 kernels"));
  free(env);
  free(lone_lock);
  free(held_lock);
  free(kernels);
  test_temp_dir_remove(root);
}

/* The bundle this build makes (HRX's kernels for the host target) is the
 * one the repo-root bundle.json pins, and installs offline from the
 * archive beside it into code objects that run. */
static void test_shipped_bundle(void** state) {
  (void)state;
  const char* built = getenv("HRX_BUILT_BUNDLE_JSON");
  const char* pinned = getenv("HRX_SOURCE_BUNDLE_JSON");
  assert_non_null(built);
  assert_non_null(pinned);
  void *a = NULL, *b = NULL;
  size_t a_length = 0, b_length = 0;
  assert_ok(hrx_file_read_all(hrx_allocator_system(), built, 1 << 20, &a,
                              &a_length));
  assert_ok(hrx_file_read_all(hrx_allocator_system(), pinned, 1 << 20, &b,
                              &b_length));
  bool same = a_length == b_length && memcmp(a, b, a_length) == 0;
  free(a);
  free(b);
  if (!same) {
    fail_msg("the repo-root bundle.json differs from the one this build "
             "made: HRX's kernels or their compiler changed. Run\n  cp %s "
             "%s\nand commit it.", built, pinned);
  }

  char* root = test_temp_dir_create();
  char* env = test_strdup_printf(
      "XDG_CACHE_HOME=%s/cache HRX_BUNDLE_JSON=%s HRX_OFFLINE=1", root, built);
  run_result_t r;
  run_hrx(env, "prepare", &r);
  if (r.exit_code != 0) fail_msg("prepare: %s", r.output);
  const char* ready = strstr(r.output, " ready in ");
  assert_non_null(ready);
  char dir[4096];
  assert_int_equal(sscanf(ready, " ready in %4095s", dir), 1);
  run_hrx(env, "doctor", &r);
  assert_non_null(strstr(r.output, "installed and verified"));
  char* args = test_strdup_printf(
      "run %s/kernels/saxpy.hxco --export=saxpy --workload=4 --scalar=4 "
      "--scalar=0.5 --buffer=f32:2,4,6,8 --buffer=f32:1,1,1,1 --print=f32",
      dir);
  run_hrx(env, args, &r);
  if (r.exit_code != 0) fail_msg("run: %s", r.output);
  assert_non_null(strstr(r.output, "buffer 1 (16 bytes): 2 3 4 5"));
  free(args);
  free(env);
  test_temp_dir_remove(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version),
      cmocka_unit_test(test_help),
      cmocka_unit_test(test_usage_errors_exit_2),
      cmocka_unit_test(test_doctor_cache_root),
      cmocka_unit_test(test_doctor_kfd_model),
      cmocka_unit_test(test_compile_and_run),
      cmocka_unit_test(test_compile_outputs_respect_targets),
      cmocka_unit_test(test_compile_and_inspect_gfx1151),
      cmocka_unit_test(test_compile_errors),
      cmocka_unit_test(test_gc_by_access_time),
      cmocka_unit_test(test_gc_respects_locks_and_checks_days),
      cmocka_unit_test(test_shipped_bundle),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
