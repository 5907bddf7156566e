/* The OpenCL peer of the benchmarks: PoCL's CPU device (or whichever
 * OpenCL CPU device the ICD loader finds first). */
#ifndef HRX_BENCH_OCL_PEER_H_
#define HRX_BENCH_OCL_PEER_H_

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdbool.h>

typedef struct ocl_t {
  cl_context context;
  cl_command_queue queue;
  cl_device_id device;
  bool ok; /* false: no OpenCL CPU device; the peer is not measured */
} ocl_t;

ocl_t ocl_open(void);
void ocl_close(ocl_t* o);

/* Builds |source| as OpenCL C 1.2; exits on a build failure. */
cl_program ocl_program(ocl_t* o, const char* source);

/* Builds |source| and returns its kernel |name|; exits on failure. */
cl_kernel ocl_kernel(ocl_t* o, const char* source, const char* name);

#endif /* HRX_BENCH_OCL_PEER_H_ */
