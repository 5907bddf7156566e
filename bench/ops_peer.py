"""numpy peer of bench/ops's tensor half (bench/ops.c runs it in the same
run and reads its stdout and files).

    ops_peer.py DIR SAMPLES K N... 

For each N it times, over SAMPLES runs (median):
  - f32: y = W @ x with W already widened to float32 (numpy's BLAS sgemv;
    what numpy can do best, reading twice the bytes of bf16 weights);
  - widen: the same with the bf16 weights widened on every call (what a
    bf16-resident numpy decode step costs);
and writes DIR/linear_N.bin: the bit-exact bf16 result in TensorOps' f32
summation order (tests/model/ref_tensor_ops.py), for the bench to compare.
Then gather: DIR/indices.bin (uint32) rows of a [32768, K] bf16 table,
timed as table[indices], and DIR/gather.bin: those rows of the bench's
table. Inputs come from the hash bench/ops.c uses (bench_bf16), so no
weights travel through files.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "model"))
import ref_tensor_ops  # noqa: E402  (the tests' reference)

TABLE_ROWS = 32768


def bench_bf16(index, salt):
    """bench/ops.c's bench_bf16 over a uint32 index array."""
    h = index * np.uint32(2654435761) + np.uint32(salt)
    h ^= h >> np.uint32(15)
    h *= np.uint32(2246822519)
    h ^= h >> np.uint32(13)
    sign = (h & np.uint32(1)) << np.uint32(15)
    exponent = (np.uint32(121) + (h >> np.uint32(1)) % np.uint32(9)) << np.uint32(7)
    mantissa = (h >> np.uint32(5)) & np.uint32(0x7F)
    return (sign | exponent | mantissa).astype(np.uint16)


def median_seconds(fn, samples):
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2]


def linear(directory, samples, k, n, salt):
    x16 = bench_bf16(np.arange(k, dtype=np.uint32), 1)
    w16 = bench_bf16(np.arange(n * k, dtype=np.uint32), salt).reshape(n, k)
    x = ref_tensor_ops.bf16_to_f32(x16)
    w = ref_tensor_ops.bf16_to_f32(w16)
    exact = ref_tensor_ops.f32_to_bf16(ref_tensor_ops.linear_rows(x, w))
    exact.tofile(os.path.join(directory, "linear_%d.bin" % n))
    f32 = median_seconds(lambda: w @ x, samples)
    widen = median_seconds(lambda: ref_tensor_ops.bf16_to_f32(w16) @ x,
                           samples)
    print("linear n=%d f32_s=%.9f widen_s=%.9f" % (n, f32, widen))


def gather(directory, samples, k):
    indices = np.fromfile(os.path.join(directory, "indices.bin"),
                          dtype=np.uint32)
    cells = (indices.astype(np.uint32)[:, np.newaxis] * np.uint32(k) +
             np.arange(k, dtype=np.uint32)[np.newaxis, :])
    bench_bf16(cells, 4).tofile(os.path.join(directory, "gather.bin"))
    table = np.random.default_rng(0).integers(0, 1 << 16, (TABLE_ROWS, k),
                                              dtype=np.uint16)
    seconds = median_seconds(lambda: table[indices], samples)
    print("gather s=%.9f" % seconds)


def main():
    directory, samples, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    for salt, n in enumerate((int(a) for a in sys.argv[4:]), start=2):
        linear(directory, samples, k, n, salt)
    gather(directory, samples, k)


if __name__ == "__main__":
    main()
