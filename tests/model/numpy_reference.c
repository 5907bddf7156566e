#include "numpy_reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_support.h"

/* Reads exactly |bytes| of |path| into |data|. */
static void numpy_read_exact(const char* path, void* data, size_t bytes) {
  FILE* f = fopen(path, "rb");
  if (!f) fail_msg("numpy reference wrote no %s", path);
  size_t got = fread(data, 1, bytes, f);
  int extra = fgetc(f);
  fclose(f);
  if (got != bytes || extra != EOF) {
    fail_msg("numpy reference %s: expected %zu bytes", path, bytes);
  }
}

void numpy_reference_run(const char* script, const char* const* args,
                         const numpy_blob_t* inputs, size_t input_count,
                         numpy_blob_t* outputs, size_t output_count) {
  const char* references = getenv("HRX_MODEL_REFERENCES");
  if (!references) fail_msg("HRX_MODEL_REFERENCES is not set");
  char* dir = test_temp_dir_create();
  for (size_t i = 0; i < input_count; ++i) {
    char* path = test_strdup_printf("%s/%s.bin", dir, inputs[i].name);
    test_write_file(path, inputs[i].data, inputs[i].bytes);
    free(path);
  }
  size_t argc = 0;
  while (args && args[argc]) ++argc;
  char* script_path = test_strdup_printf("%s/%s", references, script);
  const char** argv = calloc(argc + 4, sizeof(*argv));
  assert_non_null(argv);
  const char* python = getenv("HRX_PYTHON");
  if (!python) python = "python3";
  argv[0] = python;
  argv[1] = script_path;
  argv[2] = dir;
  for (size_t i = 0; i < argc; ++i) argv[3 + i] = args[i];
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    execvp(python, (char* const*)argv);
    _exit(127);
  }
  int wstatus = 0;
  assert_int_equal(waitpid(pid, &wstatus, 0), pid);
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
    fail_msg("numpy reference %s failed (status %d)", script, wstatus);
  }
  for (size_t i = 0; i < output_count; ++i) {
    char* path = test_strdup_printf("%s/%s.bin", dir, outputs[i].name);
    numpy_read_exact(path, outputs[i].data, outputs[i].bytes);
    free(path);
  }
  free(argv);
  free(script_path);
  test_temp_dir_remove(dir);
}
