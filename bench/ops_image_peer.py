#!/usr/bin/env python3
"""numpy peer of bench/ops's affine crops: the same vectorised float32
code the tests use as their reference (tests/model/ref_image_ops.py),
timed in the same run as the device op.

    ops_image_peer.py REFERENCES DIR SRC_W SRC_H CROPS W H REPEATS

Reads DIR/image.bin and DIR/inverse.bin once, times REPEATS runs of the
sampling alone, writes DIR/out.bin (so the bench checks that both produced
the same bytes) and prints "median_s=<seconds>"."""
import os
import sys
import time

import numpy as np


def main():
    references, directory = sys.argv[1], sys.argv[2]
    src_w, src_h, crops, width, height, repeats = map(int, sys.argv[3:9])
    sys.path.insert(0, references)
    import ref_image_ops  # found through REFERENCES
    image = np.fromfile(os.path.join(directory, "image.bin"), np.uint8)
    maps = np.fromfile(os.path.join(directory, "inverse.bin"), np.float32)
    image = image.reshape(src_h, src_w, 3)
    maps = maps.reshape(crops, 6)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        out = ref_image_ops.affine_crops(image, maps, width, height)
        samples.append(time.perf_counter() - start)
    out.tofile(os.path.join(directory, "out.bin"))
    samples.sort()
    print("median_s=%.9f" % samples[len(samples) // 2])


if __name__ == "__main__":
    main()
