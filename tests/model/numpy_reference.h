/* Independent references computed by numpy at test time: the model
 * suite's tensor and image ops are checked against a Python script in
 * tests/model (found through HRX_MODEL_REFERENCES) run in the same test.
 *
 * Protocol: every input blob is written raw (native byte order) to
 * <dir>/<name>.bin in a fresh temporary directory; the script runs as
 *   $HRX_PYTHON <references>/<script> <dir> <args...>
 * (HRX_PYTHON: the python3 that has numpy; "python3" when unset)
 * and writes each output blob to <dir>/<name>.bin, which must have
 * exactly the expected size. The script reads shapes and dtypes from its
 * arguments. */
#ifndef HRX_TESTS_MODEL_NUMPY_REFERENCE_H_
#define HRX_TESTS_MODEL_NUMPY_REFERENCE_H_

#include <stddef.h>

typedef struct numpy_blob_t {
  const char* name;
  void* data;    /* inputs: read; outputs: filled */
  size_t bytes;
} numpy_blob_t;

/* Runs |script| with |args| (NULL-terminated) over |inputs|, filling
 * |outputs|. Fails the calling test (cmocka) on any error: a missing
 * python3 or numpy is a broken test machine, not a skip. */
void numpy_reference_run(const char* script, const char* const* args,
                         const numpy_blob_t* inputs, size_t input_count,
                         numpy_blob_t* outputs, size_t output_count);

#endif /* HRX_TESTS_MODEL_NUMPY_REFERENCE_H_ */
