/* Runs one of this folder's Python producers (numpy, onnx) into a fresh
 * temporary directory: the model files the artifacts tests read. */
#ifndef HRX_TESTS_ARTIFACTS_PRODUCER_H_
#define HRX_TESTS_ARTIFACTS_PRODUCER_H_

#include <stdio.h>
#include <stdlib.h>

#include "test_support.h"

/* Returns the directory (remove with test_temp_dir_remove), or NULL when
 * the producer failed (it said why on stderr). */
static inline char* artifacts_produce(const char* script, const char* args) {
  char* dir = test_temp_dir_create();
  char* command = test_strdup_printf("'%s' '%s/%s' '%s' %s",
                                     getenv("HRX_PYTHON"),
                                     getenv("HRX_ARTIFACTS_TESTS"), script,
                                     dir, args);
  int rc = system(command);
  if (rc != 0) {
    fprintf(stderr, "producer failed (%d): %s\n", rc, command);
    test_temp_dir_remove(dir);
    dir = NULL;
  }
  free(command);
  return dir;
}

#endif /* HRX_TESTS_ARTIFACTS_PRODUCER_H_ */
