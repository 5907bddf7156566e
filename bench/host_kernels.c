/* bench/host_kernels: corpus kernels on the HRX host device, each timed
 * on both of its paths (native code when built with LLVM, and the
 * interpreter, loaded with HRX_HOST_NATIVE=0) against (a) a plain C loop
 * in this binary and (b) PoCL's CPU OpenCL device running the equivalent
 * OpenCL C kernel, in the same run. Times are medians of dispatch + wait
 * (HRX), kernel enqueue + clFinish (PoCL) and the loop itself (C); the two
 * HRX paths must leave the same bytes. With PoCL present, the native
 * figure is re-timed alternating with PoCL's runs, so that the ratio
 * holds on a machine other work is loading. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "ocl_peer.h"
#include "host_harness.h"

static int repeats = 5;

/*===------------------------------------------------------------------===*/
/* PoCL                                                                    */
/*===------------------------------------------------------------------===*/

static cl_mem ocl_buffer(ocl_t* o, void* data, size_t bytes) {
  cl_int error = 0;
  return clCreateBuffer(o->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        bytes, data, &error);
}

typedef struct ocl_run_t {
  ocl_t* o;
  cl_kernel kernel;
  size_t global, local;
} ocl_run_t;

static void ocl_run(void* context) {
  ocl_run_t* r = context;
  cl_int error = clEnqueueNDRangeKernel(r->o->queue, r->kernel, 1, NULL,
                                        &r->global,
                                        r->local ? &r->local : NULL, 0, NULL,
                                        NULL);
  if (error == CL_SUCCESS) error = clFinish(r->o->queue);
  if (error != CL_SUCCESS) {
    fprintf(stderr, "PoCL enqueue failed: %d\n", error);
    exit(1);
  }
}

/* Reads |bytes| of |buffer| back and compares them with |expected|. */
static void ocl_check(ocl_t* o, cl_mem buffer, const void* expected,
                      size_t bytes, const char* what) {
  void* data = malloc(bytes);
  clEnqueueReadBuffer(o->queue, buffer, CL_TRUE, 0, bytes, data, 0, NULL,
                      NULL);
  if (memcmp(data, expected, bytes) != 0) {
    fprintf(stderr, "PoCL %s result differs from HRX\n", what);
    exit(1);
  }
  free(data);
}

/*===------------------------------------------------------------------===*/
/* HRX                                                                     */
/*===------------------------------------------------------------------===*/

typedef struct hrx_run_t {
  harness_t* h;
  const char* kernel;
  const uint64_t* workload;
  size_t workload_count;
  const harness_arg_t* args;
  size_t arg_count;
} hrx_run_t;

static void hrx_run(void* context) {
  hrx_run_t* r = context;
  hrx_status_t status = harness_run(r->h, r->kernel, r->workload,
                                    r->workload_count, r->args, r->arg_count);
  if (status != HRX_OK) {
    char text[512];
    hrx_status_format(status, text, sizeof(text));
    fprintf(stderr, "hrx: %s\n", text);
    exit(1);
  }
}

/* Loads a kernel file for one path: native code (when the build and the
 * CPU have it) or the interpreter. Returns whether the kernel runs
 * natively. */
static bool load_path(harness_t* h, const char* file,
                      const char* const* config, const char* kernel,
                      bool native) {
  if (!native) setenv("HRX_HOST_NATIVE", "0", 1);
  harness_load(h, file, config);
  unsetenv("HRX_HOST_NATIVE");
  const hrx_fabric_kernel_t* k = NULL;
  bench_check(hrx_fabric_executable_find_kernel(h->executable, kernel, &k),
              kernel);
  hrx_fabric_kernel_info_t info = HRX_STRUCT_INIT(hrx_fabric_kernel_info_t);
  bench_check(hrx_fabric_kernel_info(k, &info), kernel);
  if (native && !info.native) {
    printf("  (%s: no native code: %s)\n", kernel,
           info.native_note ? info.native_note : "?");
  }
  return info.native;
}

typedef struct times_t {
  uint64_t native_ns, interpreter_ns, c_ns, pocl_ns;
  bool native;
} times_t;

static void report(const char* name, const times_t* t, double work,
                   const char* unit) {
  double pocl = (double)t->pocl_ns;
  printf("%-22s native %8.2f ms (%7.2f %s)%s  interpreter %9.2f ms  "
         "C loop %8.2f ms  PoCL %8.2f ms\n",
         name, t->native_ns / 1e6, work / (t->native_ns / 1e9) / 1e9, unit,
         t->native ? "" : " [interpreted]", t->interpreter_ns / 1e6,
         t->c_ns / 1e6, pocl / 1e6);
  printf("%-22s native/PoCL %6.2fx  interpreter/PoCL %7.2fx  "
         "native/C %6.2fx  interpreter/native %6.1fx\n",
         "", pocl ? (double)t->native_ns / pocl : 0.0,
         pocl ? (double)t->interpreter_ns / pocl : 0.0,
         (double)t->native_ns / (double)t->c_ns,
         (double)t->interpreter_ns / (double)t->native_ns);
}

/* Times |run| on both paths; the second path's result must equal the
 * first's (|out| |bytes| long, reset with |reset| before each path). */
static void time_paths(harness_t* h, const char* file,
                       const char* const* config, hrx_run_t* run,
                       void* out, size_t bytes, void (*reset)(void*),
                       void* reset_context, times_t* t) {
  uint8_t* first = malloc(bytes);
  for (int path = 0; path < 2; ++path) {
    bool native = path == 0;
    bool is_native = load_path(h, file, config, run->kernel, native);
    if (native) t->native = is_native;
    if (reset) reset(reset_context);
    hrx_run(run);
    if (native) {
      memcpy(first, out, bytes);
    } else if (memcmp(first, out, bytes) != 0) {
      fprintf(stderr, "%s: native and interpreter results differ\n",
              run->kernel);
      exit(1);
    }
    uint64_t ns = bench_median_ns(hrx_run, run, repeats);
    if (native) {
      t->native_ns = ns;
    } else {
      t->interpreter_ns = ns;
    }
  }
  /* Leave the first path's (deterministic) result for the peers. */
  if (reset) reset(reset_context);
  load_path(h, file, config, run->kernel, true);
  hrx_run(run);
  free(first);
}

/*===------------------------------------------------------------------===*/
/* saxpy                                                                   */
/*===------------------------------------------------------------------===*/

typedef struct saxpy_c_t {
  float a;
  const float* x;
  float* y;
  size_t n;
} saxpy_c_t;

/* The C loops compile as -O3 -march=native would on an AVX2 machine
 * (vectorised, the FMA instruction rather than a libm call) when the CPU
 * has AVX2 and FMA; the build itself targets baseline x86-64. */
#if defined(__x86_64__) && defined(__GNUC__)
#define C_LOOP_NATIVE __attribute__((target("avx2,fma")))
static bool c_loop_native(void) {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
#define C_LOOP_NATIVE
static bool c_loop_native(void) { return false; }
#endif

C_LOOP_NATIVE static void saxpy_c_native(saxpy_c_t* s) {
  for (size_t i = 0; i < s->n; ++i) s->y[i] = fmaf(s->a, s->x[i], s->y[i]);
}

static void saxpy_c(void* context) {
  saxpy_c_t* s = context;
  if (c_loop_native()) {
    saxpy_c_native(s);
    return;
  }
  for (size_t i = 0; i < s->n; ++i) s->y[i] = fmaf(s->a, s->x[i], s->y[i]);
}

static void zero_y(void* context) {
  hrx_fabric_memory_t* y = context;
  memset(y->host_pointer, 0, y->size);
}

typedef struct copy_t {
  void* dst;
  const void* src;
  size_t bytes;
} copy_t;

static void copy_run(void* context) {
  copy_t* c = context;
  memcpy(c->dst, c->src, c->bytes);
}

static void bench_saxpy(harness_t* h, ocl_t* o) {
  size_t n = (size_t)16 << 20;
  hrx_fabric_memory_t x = harness_buffer(h, n * 4), y = harness_buffer(h, n * 4);
  for (size_t i = 0; i < n; ++i) ((float*)x.host_pointer)[i] = (float)(i & 1023);
  uint64_t workload[] = {n};
  harness_arg_t args[] = {ARG_U64(n), arg_f32(0.5f), ARG_BUF(x), ARG_BUF(y)};
  hrx_run_t hr = {h, "saxpy", workload, 1, args, 4};
  times_t t = {0};
  time_paths(h, "saxpy.loom", NULL, &hr, y.host_pointer, n * 4, zero_y, &y,
             &t);
  float* first = malloc(n * 4);
  memcpy(first, y.host_pointer, n * 4);

  float* cy = calloc(n, 4);
  saxpy_c_t c = {0.5f, x.host_pointer, cy, n};
  t.c_ns = bench_median_ns(saxpy_c, &c, repeats);
  /* Memory bandwidth: a copy of the same 64 MiB. */
  copy_t copy = {cy, x.host_pointer, n * 4};
  uint64_t memcpy_ns = bench_median_ns(copy_run, &copy, repeats);

  if (o->ok) {
    cl_kernel k = ocl_kernel(
        o,
        "__kernel void saxpy(uint n, float a, __global const float* x,"
        " __global float* y) { size_t i = get_global_id(0);"
        " if (i < n) y[i] = fma(a, x[i], y[i]); }",
        "saxpy");
    float* zeros = calloc(n, 4);
    cl_mem bx = ocl_buffer(o, x.host_pointer, n * 4);
    cl_mem by = ocl_buffer(o, zeros, n * 4);
    free(zeros);
    cl_uint nn = (cl_uint)n;
    float a = 0.5f;
    clSetKernelArg(k, 0, sizeof(nn), &nn);
    clSetKernelArg(k, 1, sizeof(a), &a);
    clSetKernelArg(k, 2, sizeof(bx), &bx);
    clSetKernelArg(k, 3, sizeof(by), &by);
    ocl_run_t r = {o, k, n, 256};
    ocl_run(&r);
    ocl_check(o, by, first, n * 4, "saxpy");
    bench_median_pair_ns(hrx_run, &hr, ocl_run, &r, repeats, &t.native_ns,
                         &t.pocl_ns);
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
    clReleaseKernel(k);
  }
  report("saxpy 16Mi f32", &t, (double)n * 12, "GB/s");
  /* saxpy moves 12 bytes per element, memcpy 8. */
  double copy_bw = (double)n * 8 / (memcpy_ns / 1e9);
  double saxpy_bw = (double)n * 12 / (t.native_ns / 1e9);
  printf("%-22s native saxpy at %.0f%% of the plain C loop's speed "
         "(one thread, -O3%s: %.2f GB/s), %.0f%% of memcpy bandwidth "
         "(%.2f GB/s)\n",
         "", 100.0 * (double)t.c_ns / (double)t.native_ns,
         c_loop_native() ? " with AVX2+FMA" : "",
         (double)n * 12 / (t.c_ns / 1e9) / 1e9, 100.0 * saxpy_bw / copy_bw,
         copy_bw / 1e9);
  free(first);
  free(cy);
  hrx_fabric_memory_free(h->device, &x);
  hrx_fabric_memory_free(h->device, &y);
}

/*===------------------------------------------------------------------===*/
/* bf16 linear                                                             */
/*===------------------------------------------------------------------===*/

typedef struct linear_c_t {
  const uint16_t* x;
  const uint16_t* w;
  float* out;
  size_t n, k;
} linear_c_t;

static float bf16(uint16_t v) {
  uint32_t bits = (uint32_t)v << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

C_LOOP_NATIVE static void linear_c_native(linear_c_t* l) {
  for (size_t row = 0; row < l->n; ++row) {
    float sum = 0;
    const uint16_t* w = l->w + row * l->k;
    for (size_t i = 0; i < l->k; ++i) sum = fmaf(bf16(l->x[i]), bf16(w[i]), sum);
    l->out[row] = sum;
  }
}

static void linear_c(void* context) {
  linear_c_t* l = context;
  if (c_loop_native()) {
    linear_c_native(l);
    return;
  }
  for (size_t row = 0; row < l->n; ++row) {
    float sum = 0;
    const uint16_t* w = l->w + row * l->k;
    for (size_t i = 0; i < l->k; ++i) sum = fmaf(bf16(l->x[i]), bf16(w[i]), sum);
    l->out[row] = sum;
  }
}

static void bench_linear(harness_t* h, ocl_t* o) {
  const size_t n = 4096, k = 4096;
  const char* config[] = {"linear.k=4096", "linear.n=4096", NULL};
  hrx_fabric_memory_t x = harness_buffer(h, k * 2), w = harness_buffer(h, n * k * 2);
  hrx_fabric_memory_t out = harness_buffer(h, n * 4);
  for (size_t i = 0; i < k; ++i) ((uint16_t*)x.host_pointer)[i] = 0x3f80;
  for (size_t i = 0; i < n * k; ++i) {
    ((uint16_t*)w.host_pointer)[i] = (uint16_t)(0x3c00 + (i & 255));
  }
  uint64_t workload[] = {0};
  harness_arg_t args[] = {ARG_BUF(x), ARG_BUF(w), ARG_BUF(out)};
  hrx_run_t hr = {h, "linear_bf16", workload, 1, args, 3};
  times_t t = {0};
  time_paths(h, "linear_bf16.loom", config, &hr, out.host_pointer, n * 4,
             NULL, NULL, &t);

  float* c_out = calloc(n, 4);
  linear_c_t c = {x.host_pointer, w.host_pointer, c_out, n, k};
  t.c_ns = bench_median_ns(linear_c, &c, repeats);

  if (o->ok) {
    cl_kernel kernel = ocl_kernel(
        o,
        "float bf(ushort v) { return as_float((uint)v << 16); }\n"
        "__kernel void linear(uint k, __global const ushort* x,"
        " __global const ushort* w, __global float* out) {"
        " size_t row = get_global_id(0); float s = 0.0f;"
        " for (uint i = 0; i < k; ++i) s = fma(bf(x[i]), bf(w[row * k + i]), s);"
        " out[row] = s; }",
        "linear");
    cl_mem bx = ocl_buffer(o, x.host_pointer, k * 2);
    cl_mem bw = ocl_buffer(o, w.host_pointer, n * k * 2);
    cl_mem bo = ocl_buffer(o, c_out, n * 4);
    cl_uint kk = (cl_uint)k;
    clSetKernelArg(kernel, 0, sizeof(kk), &kk);
    clSetKernelArg(kernel, 1, sizeof(bx), &bx);
    clSetKernelArg(kernel, 2, sizeof(bw), &bw);
    clSetKernelArg(kernel, 3, sizeof(bo), &bo);
    ocl_run_t r = {o, kernel, n, 64};
    ocl_run(&r);
    /* Different summation orders: compare within rounding, not bits. */
    float* pocl = malloc(n * 4);
    clEnqueueReadBuffer(o->queue, bo, CL_TRUE, 0, n * 4, pocl, 0, NULL, NULL);
    for (size_t i = 0; i < n; ++i) {
      float want = ((float*)out.host_pointer)[i];
      if (fabsf(pocl[i] - want) > 1e-3f * fabsf(want) + 1e-3f) {
        fprintf(stderr, "PoCL linear row %zu: %g vs HRX %g\n", i, pocl[i],
                want);
        exit(1);
      }
    }
    free(pocl);
    bench_median_pair_ns(hrx_run, &hr, ocl_run, &r, repeats, &t.native_ns,
                         &t.pocl_ns);
    clReleaseMemObject(bx);
    clReleaseMemObject(bw);
    clReleaseMemObject(bo);
    clReleaseKernel(kernel);
  }
  report("bf16 linear 4096x4096", &t, 2.0 * n * k, "GFLOP/s");
  free(c_out);
  hrx_fabric_memory_free(h->device, &x);
  hrx_fabric_memory_free(h->device, &w);
  hrx_fabric_memory_free(h->device, &out);
}

/*===------------------------------------------------------------------===*/
/* gather                                                                  */
/*===------------------------------------------------------------------===*/

typedef struct gather_c_t {
  const float* table;
  const int32_t* ids;
  float* out;
  size_t count, width, rows;
} gather_c_t;

static void gather_c(void* context) {
  gather_c_t* g = context;
  for (size_t r = 0; r < g->count; ++r) {
    int32_t id = g->ids[r];
    size_t row = id >= 0 && (size_t)id < g->rows ? (size_t)id : 0;
    memcpy(g->out + r * g->width, g->table + row * g->width, g->width * 4);
  }
}

static void bench_gather(harness_t* h, ocl_t* o) {
  const size_t rows = 4096, width = 64, count = 65536;
  hrx_fabric_memory_t table = harness_buffer(h, rows * width * 4);
  hrx_fabric_memory_t ids = harness_buffer(h, count * 4);
  hrx_fabric_memory_t out = harness_buffer(h, count * width * 4);
  for (size_t i = 0; i < count; ++i) {
    ((int32_t*)ids.host_pointer)[i] = (int32_t)((i * 2654435761u) % rows);
  }
  uint64_t workload[] = {count, width};
  harness_arg_t args[] = {ARG_U64(count), ARG_U64(width), ARG_U64(rows),
                          ARG_BUF(table), ARG_BUF(ids), ARG_BUF(out)};
  hrx_run_t hr = {h, "gather_rows", workload, 2, args, 6};
  times_t t = {0};
  time_paths(h, "gather.loom", NULL, &hr, out.host_pointer,
             count * width * 4, NULL, NULL, &t);

  float* c_out = calloc(count * width, 4);
  gather_c_t c = {table.host_pointer, ids.host_pointer, c_out, count, width,
                  rows};
  t.c_ns = bench_median_ns(gather_c, &c, repeats);

  if (o->ok) {
    cl_kernel kernel = ocl_kernel(
        o,
        "__kernel void gather(uint count, uint width, uint rows,"
        " __global const float* table, __global const int* ids,"
        " __global float* out) { size_t cell = get_global_id(0);"
        " if (cell >= (size_t)count * width) return;"
        " size_t r = cell / width, c = cell % width; int id = ids[r];"
        " size_t row = (id >= 0 && (uint)id < rows) ? (size_t)id : 0;"
        " out[cell] = table[row * width + c]; }",
        "gather");
    cl_mem bt = ocl_buffer(o, table.host_pointer, rows * width * 4);
    cl_mem bi = ocl_buffer(o, ids.host_pointer, count * 4);
    cl_mem bo = ocl_buffer(o, c_out, count * width * 4);
    cl_uint a = (cl_uint)count, b = (cl_uint)width, r = (cl_uint)rows;
    clSetKernelArg(kernel, 0, sizeof(a), &a);
    clSetKernelArg(kernel, 1, sizeof(b), &b);
    clSetKernelArg(kernel, 2, sizeof(r), &r);
    clSetKernelArg(kernel, 3, sizeof(bt), &bt);
    clSetKernelArg(kernel, 4, sizeof(bi), &bi);
    clSetKernelArg(kernel, 5, sizeof(bo), &bo);
    ocl_run_t run = {o, kernel, count * width, 64};
    ocl_run(&run);
    ocl_check(o, bo, out.host_pointer, count * width * 4, "gather");
    bench_median_pair_ns(hrx_run, &hr, ocl_run, &run, repeats,
                         &t.native_ns, &t.pocl_ns);
    clReleaseMemObject(bt);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
    clReleaseKernel(kernel);
  }
  report("gather 65536x64 f32", &t, (double)count * width * 8, "GB/s");
  free(c_out);
  hrx_fabric_memory_free(h->device, &table);
  hrx_fabric_memory_free(h->device, &ids);
  hrx_fabric_memory_free(h->device, &out);
}

int main(int argc, char** argv) {
  if (argc > 1) repeats = atoi(argv[1]);
  if (repeats < 5) repeats = 5;
  harness_t h;
  harness_open(&h);
  ocl_t o = ocl_open();
  printf("host_kernels: median of %d; HRX host device with %u threads; "
         "PoCL %s\n", repeats,
         hrx_fabric_device_properties(h.device)->compute_units,
         o.ok ? "CPU device" : "unavailable");
  bench_saxpy(&h, &o);
  bench_gather(&h, &o);
  bench_linear(&h, &o);
  ocl_close(&o);
  harness_close(&h);
  return 0;
}
