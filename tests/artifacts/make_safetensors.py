#!/usr/bin/env python3
"""Writes safetensors files in the reference layout with numpy, for the
artifacts tests and benchmark: an 8-byte little-endian header length, the
JSON header padded with spaces to a multiple of 8, then the tensors' bytes
back to back in header order.

usage: make_safetensors.py OUT_DIR [TENSORS_FOR_MANY]
"""
import json
import os
import struct
import sys

import numpy as np

DTYPES = {
    np.dtype("float32"): "F32", np.dtype("float16"): "F16",
    np.dtype("float64"): "F64", np.dtype("int64"): "I64",
    np.dtype("int32"): "I32", np.dtype("uint8"): "U8",
    np.dtype("int8"): "I8", np.dtype("bool"): "BOOL",
}


def write(path, tensors, metadata=None, bf16=()):
    header = {}
    blobs = []
    offset = 0
    for name, array in tensors.items():
        array = np.asarray(array).copy(order="C")
        dtype = "BF16" if name in bf16 else DTYPES[array.dtype]
        data = array.astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for blob in blobs:
            f.write(blob)


def main():
    out = sys.argv[1]
    many = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, "good.safetensors"), {
        "weight": np.arange(6, dtype=np.float32).reshape(2, 3),
        "bias": np.array([0.5, -1.5, 2.0], dtype=np.float16),
        # bfloat16 as its raw 16-bit patterns (1.0, 2.0, -0.5, 3.0).
        "scale": np.array([0x3F80, 0x4000, 0xBF00, 0x4040], dtype=np.uint16)
                   .view(np.int16).astype(np.int16),
        "step": np.array(7, dtype=np.int64),
        "empty": np.zeros((0, 4), dtype=np.uint8),
        "mask": np.array([True, False, True]),
    }, metadata={"format": "pt", "producer": "make_safetensors.py"},
       bf16=("scale",))
    rng = np.random.default_rng(7)
    write(os.path.join(out, "many.safetensors"),
          {f"layers.{i}.w": rng.standard_normal((16, 16), dtype=np.float32)
           for i in range(many)})


if __name__ == "__main__":
    main()
