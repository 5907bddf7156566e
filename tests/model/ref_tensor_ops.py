"""Independent numpy references for libhrx-model's tensor ops
(tests/model/test_tensor_ops.c; protocol in numpy_reference.h).

    ref_tensor_ops.py DIR linear K N0 [N1 [N2]]
        in:  x.bin (K bf16 as uint16), w0.bin .. (Np x K bf16 as uint16)
        out: y_f32.bin (float32, the projections' rows one after another),
             y_bf16.bin (the same rounded to bf16, as uint16)
    ref_tensor_ops.py DIR gather ROW_BYTES COUNT
        in:  table.bin (rows of ROW_BYTES bytes), indices.bin (COUNT uint32)
        out: rows.bin (COUNT rows: table[indices], duplicates and order kept)

bf16 is handled by bit manipulation: a bf16 value is the high half of an
f32, so widening is `bits << 16`, and narrowing rounds to nearest even on
the bits. The linear sums in f32 in the order TensorOps documents
(hrx/model/tensor_ops.h): per lane l of 32 four sums a[l][j] over columns
c*128 + 4l + j for ascending c; then (a0 + a1) + (a2 + a3); then the xor
butterfly over m = 16, 8, 4, 2, 1. The kernel adds each product with a
fused multiply-add; numpy multiplies and adds separately, which is the
same rounding because a product of two bf16 values is exact in f32 (the
test keeps products in the normal range, where that holds).
"""
import os
import sys

import numpy as np


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16(values):
    bits = values.astype(np.float32).view(np.uint32)
    rounding = np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return ((bits + rounding) >> np.uint32(16)).astype(np.uint16)


def linear_rows(x, w):
    """y[n] = sum_k w[n, k] * x[k] in the kernel's f32 order."""
    n, k = w.shape
    products = w * x[np.newaxis, :]  # exact: bf16 * bf16 fits f32
    chunks = products.reshape(n, k // 128, 32, 4)
    sums = np.zeros((n, 32, 4), dtype=np.float32)
    for c in range(k // 128):
        sums = sums + chunks[:, c]
    lane = (sums[:, :, 0] + sums[:, :, 1]) + (sums[:, :, 2] + sums[:, :, 3])
    lanes = np.arange(32)
    for m in (16, 8, 4, 2, 1):
        lane = lane + lane[:, lanes ^ m]
    return lane[:, 0]


def read(directory, name, dtype):
    return np.fromfile(os.path.join(directory, name + ".bin"), dtype=dtype)


def write(directory, name, array):
    array.tofile(os.path.join(directory, name + ".bin"))


def linear(directory, args):
    k = int(args[0])
    x = bf16_to_f32(read(directory, "x", np.uint16))
    assert x.size == k
    outputs = []
    for p, n in enumerate(int(a) for a in args[1:]):
        w = bf16_to_f32(read(directory, "w%d" % p, np.uint16)).reshape(n, k)
        outputs.append(linear_rows(x, w))
    y = np.concatenate(outputs).astype(np.float32)
    write(directory, "y_f32", y)
    write(directory, "y_bf16", f32_to_bf16(y))


def gather(directory, args):
    row_bytes, count = int(args[0]), int(args[1])
    table = read(directory, "table", np.uint8).reshape(-1, row_bytes)
    indices = read(directory, "indices", np.uint32)
    assert indices.size == count
    write(directory, "rows", table[indices])


def main():
    directory, op, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    {"linear": linear, "gather": gather}[op](directory, args)


if __name__ == "__main__":
    main()
