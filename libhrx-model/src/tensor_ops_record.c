/* Tensor fragments: each op's kernel compiled into the caller's session
 * and recorded over the caller's regions. */
#include "tensor_ops_internal.h"

typedef enum hrx_model_tensor_kernel_e {
  HRX_MODEL_TENSOR_KERNEL_LINEAR = 0,  /* a subgroup per row (GPUs) */
  HRX_MODEL_TENSOR_KERNEL_LINEAR_ROWS, /* a work-item per row (host) */
  HRX_MODEL_TENSOR_KERNEL_GATHER,
} hrx_model_tensor_kernel_t;

/* Each kernel's embedded file, whose one export shares its name. */
static const hrx_model_ops_kernel_t hrx_model_tensor_kernels[] = {
    [HRX_MODEL_TENSOR_KERNEL_LINEAR] = {"tensor_linear", "tensor_linear"},
    [HRX_MODEL_TENSOR_KERNEL_LINEAR_ROWS] = {"tensor_linear_rows",
                                             "tensor_linear_rows"},
    [HRX_MODEL_TENSOR_KERNEL_GATHER] = {"tensor_gather", "tensor_gather"},
};

/* The linear kernel for |session|'s device. Both sum in the same order,
 * so their results are bit-identical; the host device runs the one
 * without cross-lane operations as native code, the other in its
 * interpreter. */
static hrx_model_tensor_kernel_t hrx_model_tensor_linear_kernel(
    const hrx_model_session_t* session) {
  const hrx_fabric_device_properties_t* properties =
      hrx_gpu_device_properties(hrx_model_session_device(session));
  return properties->kind == HRX_FABRIC_DEVICE_HOST
             ? HRX_MODEL_TENSOR_KERNEL_LINEAR_ROWS
             : HRX_MODEL_TENSOR_KERNEL_LINEAR;
}

hrx_status_t hrx_model_tensor_compile_all(hrx_model_session_t* session) {
  const hrx_model_ops_kernel_t kernels[HRX_MODEL_TENSOR_DEVICE_KERNELS] = {
      hrx_model_tensor_kernels[hrx_model_tensor_linear_kernel(session)],
      hrx_model_tensor_kernels[HRX_MODEL_TENSOR_KERNEL_GATHER]};
  hrx_model_kernel_t ids[HRX_MODEL_TENSOR_DEVICE_KERNELS];
  return hrx_model_ops_compile(session, kernels,
                               HRX_MODEL_TENSOR_DEVICE_KERNELS, ids);
}

/* |io| as a dispatch argument with |access|: its binding, whose offset
 * must be a multiple of |alignment| and whose length (0: exactly the
 * tensor's bytes) must hold the tensor. */
static hrx_status_t hrx_model_tensor_operand(const hrx_model_io_t* io,
                                             uint64_t alignment,
                                             hrx_gpu_access_t access,
                                             const char* what,
                                             hrx_model_arg_t* out_arg) {
  uint64_t bytes = 0;
  hrx_status_t status = hrx_model_tensor_desc_extent(&io->desc, &bytes);
  if (status != HRX_OK) return hrx_status_annotate(status, "%s", what);
  hrx_model_binding_t binding = io->binding;
  if (binding.offset % alignment != 0) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "%s starts at byte %llu: its offset must be a "
                           "multiple of %llu",
                           what, (unsigned long long)binding.offset,
                           (unsigned long long)alignment);
  }
  return hrx_model_ops_operand(binding, bytes, access, what, out_arg);
}

/* Checks the fragment's output against the linear's shape. */
static hrx_status_t hrx_model_linear_output_check(
    const hrx_model_tensor_desc_t* out, const hrx_model_linear_shape_t* shape) {
  uint64_t width = 0;
  if (out->rank == 1) {
    width = out->shape[0];
  } else if (out->rank == 2 && out->shape[0] == 1) {
    width = out->shape[1];
  } else {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the output must be one row, [1, R] or [R] "
                           "(rank %u)",
                           out->rank);
  }
  if (width != shape->rows) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the output has %llu values for %llu weight rows",
                           (unsigned long long)width,
                           (unsigned long long)shape->rows);
  }
  if (!hrx_model_tensor_contiguous(out)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the output must be contiguous");
  }
  return HRX_OK;
}

/* The linear's arguments: K, n0..n2, out_bf16, x, w0..w2, out. Absent
 * projections bind the first weights again (never read: their n is 0). */
static hrx_status_t hrx_model_linear_args(const hrx_model_linear_fragment_t* f,
                                          const hrx_model_linear_shape_t* shape,
                                          hrx_model_arg_t args[10]) {
  args[0] = hrx_model_arg_scalar(shape->k);
  for (size_t p = 0; p < HRX_MODEL_LINEAR_MAX_PROJECTIONS; ++p) {
    args[1 + p] = hrx_model_arg_scalar(p < shape->count ? shape->n[p] : 0);
  }
  args[4] = hrx_model_arg_scalar(shape->output == HRX_MODEL_DTYPE_BF16);
  /* Vector loads of four bf16 values. */
  HRX_RETURN_IF_ERROR(hrx_model_tensor_operand(
      &f->input, 8, HRX_GPU_ACCESS_READ, "the input", &args[5]));
  for (size_t p = 0; p < HRX_MODEL_LINEAR_MAX_PROJECTIONS; ++p) {
    const hrx_model_io_t* w = &f->weights[p < shape->count ? p : 0];
    hrx_status_t status = hrx_model_tensor_operand(w, 8, HRX_GPU_ACCESS_READ,
                                                   "the weights", &args[6 + p]);
    if (status != HRX_OK) return hrx_status_annotate(status, "weights %zu", p);
  }
  return hrx_model_tensor_operand(&f->output,
                                  hrx_model_dtype_size(shape->output),
                                  HRX_GPU_ACCESS_WRITE, "the output", &args[9]);
}

hrx_status_t hrx_model_tensor_record_linear(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_linear_fragment_t* f) {
  if (!session || !f) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "recording a linear needs a session and a "
                           "fragment");
  }
  hrx_model_linear_shape_t shape;
  HRX_RETURN_IF_ERROR(hrx_model_linear_check(
      &f->input.desc, f->weights, f->count, f->output.desc.dtype, &shape));
  HRX_RETURN_IF_ERROR(hrx_model_linear_output_check(&f->output.desc, &shape));
  hrx_model_arg_t args[10];
  HRX_RETURN_IF_ERROR(hrx_model_linear_args(f, &shape, args));
  /* Compiled on first use, found by digest afterwards. */
  hrx_model_tensor_kernel_t which = hrx_model_tensor_linear_kernel(session);
  hrx_model_kernel_t kernel;
  HRX_RETURN_IF_ERROR(hrx_model_ops_compile(
      session, &hrx_model_tensor_kernels[which], 1, &kernel));
  uint64_t workload[] = {shape.rows};
  hrx_model_dispatch_t dispatch = {kernel, workload, 1, args, 10};
  return hrx_model_session_record(session, key, &dispatch, 1);
}

/* Checks the gather fragment's indices and output against the table. */
static hrx_status_t hrx_model_gather_io_check(
    const hrx_model_gather_fragment_t* f,
    const hrx_model_gather_shape_t* shape) {
  const hrx_model_tensor_desc_t* indices = &f->indices.desc;
  if (indices->dtype != HRX_MODEL_DTYPE_I32 || indices->rank != 1 ||
      indices->shape[0] != f->capacity + 1 ||
      !hrx_model_tensor_contiguous(indices)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the indices must be I32 [capacity + 1 = %llu]: "
                           "the row count, then the rows",
                           (unsigned long long)f->capacity + 1);
  }
  const hrx_model_tensor_desc_t* out = &f->output.desc;
  if (out->dtype != shape->dtype) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the output is %s for a table of %s: gathers copy "
                           "rows as they are",
                           hrx_model_tensor_dtype_name(out->dtype),
                           hrx_model_tensor_dtype_name(shape->dtype));
  }
  if (out->rank != 2 || out->shape[0] != f->capacity ||
      out->shape[1] != shape->elements || !hrx_model_tensor_contiguous(out)) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "the output must be [capacity = %llu, E = %llu], "
                           "contiguous",
                           (unsigned long long)f->capacity,
                           (unsigned long long)shape->elements);
  }
  return HRX_OK;
}

hrx_status_t hrx_model_tensor_record_gather(
    hrx_model_session_t* session, uint64_t key,
    const hrx_model_gather_fragment_t* f) {
  if (!session || !f) {
    return hrx_make_status(HRX_STATUS_INVALID_ARGUMENT,
                           "recording a gather needs a session and a "
                           "fragment");
  }
  hrx_model_gather_shape_t shape;
  HRX_RETURN_IF_ERROR(hrx_model_gather_check(&f->table.desc, &shape));
  HRX_RETURN_IF_ERROR(hrx_model_gather_check_capacity(&shape, f->capacity));
  HRX_RETURN_IF_ERROR(hrx_model_gather_io_check(f, &shape));
  /* Whole 4-byte words when every row starts on one; bytes otherwise. */
  bool wide = shape.row_bytes % 4 == 0 && f->table.binding.offset % 4 == 0 &&
              f->output.binding.offset % 4 == 0;
  hrx_model_arg_t args[7] = {
      hrx_model_arg_scalar(f->capacity),
      hrx_model_arg_scalar(shape.rows),
      hrx_model_arg_scalar(wide ? shape.row_bytes / 4 : shape.row_bytes),
      hrx_model_arg_scalar(wide),
  };
  HRX_RETURN_IF_ERROR(hrx_model_tensor_operand(
      &f->table, 1, HRX_GPU_ACCESS_READ, "the table", &args[4]));
  HRX_RETURN_IF_ERROR(hrx_model_tensor_operand(
      &f->indices, 4, HRX_GPU_ACCESS_READ, "the indices", &args[5]));
  HRX_RETURN_IF_ERROR(hrx_model_tensor_operand(
      &f->output, 1, HRX_GPU_ACCESS_WRITE, "the output", &args[6]));
  hrx_model_kernel_t kernel;
  HRX_RETURN_IF_ERROR(hrx_model_ops_compile(
      session, &hrx_model_tensor_kernels[HRX_MODEL_TENSOR_KERNEL_GATHER], 1,
      &kernel));
  uint64_t workload[] = {f->capacity};
  hrx_model_dispatch_t dispatch = {kernel, workload, 1, args, 7};
  return hrx_model_session_record(session, key, &dispatch, 1);
}
