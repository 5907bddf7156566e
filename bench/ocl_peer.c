#include "ocl_peer.h"

#include <stdio.h>
#include <stdlib.h>

ocl_t ocl_open(void) {
  ocl_t o = {0};
  cl_platform_id platform;
  cl_uint count = 0;
  if (clGetPlatformIDs(1, &platform, &count) != CL_SUCCESS || !count) return o;
  if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &o.device, &count) !=
          CL_SUCCESS || !count) {
    return o;
  }
  cl_int error = 0;
  o.context = clCreateContext(NULL, 1, &o.device, NULL, NULL, &error);
  if (error) return o;
  o.queue = clCreateCommandQueue(o.context, o.device, 0, &error);
  o.ok = error == CL_SUCCESS;
  return o;
}

void ocl_close(ocl_t* o) {
  if (o->queue) clReleaseCommandQueue(o->queue);
  if (o->context) clReleaseContext(o->context);
  *o = (ocl_t){0};
}

cl_program ocl_program(ocl_t* o, const char* source) {
  cl_int error = 0;
  cl_program program =
      clCreateProgramWithSource(o->context, 1, &source, NULL, &error);
  if (error || clBuildProgram(program, 1, &o->device, "-cl-std=CL1.2", NULL,
                              NULL) != CL_SUCCESS) {
    fprintf(stderr, "OpenCL peer: program build failed\n");
    exit(1);
  }
  return program;
}

cl_kernel ocl_kernel(ocl_t* o, const char* source, const char* name) {
  cl_program program = ocl_program(o, source);
  cl_int error = 0;
  cl_kernel kernel = clCreateKernel(program, name, &error);
  clReleaseProgram(program);
  if (error) {
    fprintf(stderr, "OpenCL peer: no kernel '%s'\n", name);
    exit(1);
  }
  return kernel;
}
