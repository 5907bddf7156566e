#!/usr/bin/env python3
"""Builds ONNX models with the onnx package (python3-onnx) for the artifacts
tests: a conv/matmul model with raw and typed initializers and a node with
attributes of every type, a model with external data, sparse initializers,
and malformed ones.

usage: make_onnx.py OUT_DIR          (the test models)
       make_onnx.py OUT_DIR MIB      (big.onnx, about MIB MiB of weights)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def attrs_graph():
    x = helper.make_tensor_value_info("gx", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("gy", TensorProto.FLOAT, [1])
    node = helper.make_node("Identity", ["gx"], ["gy"])
    return helper.make_graph([node], "sub", [x], [y])


def main_model():
    w = numpy_helper.from_array(
        np.arange(4 * 3 * 3 * 3, dtype=np.float32).reshape(4, 3, 3, 3), "W")
    b = helper.make_tensor("B", TensorProto.FLOAT, [4], [0.5, 1.5, 2.5, 3.5])
    m = numpy_helper.from_array(np.ones((4 * 8 * 8, 10), np.float32), "M")
    shape = numpy_helper.from_array(np.array([-1, 4 * 8 * 8], np.int64), "S")
    conv = helper.make_node("Conv", ["X", "W", "B"], ["C"], name="conv",
                            kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                            strides=[1, 1])
    reshape = helper.make_node("Reshape", ["C", "S"], ["R"], name="flatten")
    matmul = helper.make_node("MatMul", ["R", "M"], ["MM"], name="matmul")
    small = helper.make_tensor("t", TensorProto.INT32, [2], [3, 4])
    attrs = helper.make_node(
        "Attrs", ["MM"], ["Y"], name="attrs", domain="test",
        f=1.5, i=7, s="hi", t=small, g=attrs_graph(),
        floats=[1.0, 2.0], ints=[1, 2, 3], strings=["a", "b"],
        tensors=[small], graphs=[attrs_graph()])
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT,
                                      ["batch", 3, 8, 8])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", 10])
    graph = helper.make_graph([conv, reshape, matmul, attrs], "main", [x],
                              [y], [w, b, m, shape])
    model = helper.make_model(graph, producer_name="hrx-test",
                              producer_version="1.0",
                              opset_imports=[helper.make_opsetid("", 13),
                                             helper.make_opsetid("test", 1)])
    return model


def external_model(out):
    w = numpy_helper.from_array(np.arange(256, dtype=np.float32), "E")
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [256])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [256])
    node = helper.make_node("Add", ["X", "E"], ["Y"])
    model = helper.make_model(helper.make_graph([node], "ext", [x], [y], [w]))
    onnx.save_model(model, os.path.join(out, "external.onnx"),
                    save_as_external_data=True, all_tensors_to_one_file=True,
                    location="weights.bin", size_threshold=0)
    # The same, pointing outside the model's directory.
    for tensor in model.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = "../evil.bin"
    with open(os.path.join(out, "traversal.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    external_variants(out, model)


# external_data entries that must be refused, by file name: locations that
# are not a file inside the model's directory, byte counts that overflow or
# are not numbers, and repeated keys.
BAD_EXTERNAL = {
    "ext_dot.onnx": [("location", ".")],
    "ext_dotdot.onnx": [("location", "..")],
    "ext_empty.onnx": [("location", "")],
    "ext_absolute.onnx": [("location", "/etc/passwd")],
    "ext_empty_part.onnx": [("location", "a//weights.bin")],
    "ext_trailing_slash.onnx": [("location", "weights.bin/")],
    "ext_inner_dot.onnx": [("location", "./weights.bin")],
    "ext_nul.onnx": [("location", "weights.bin\0x")],
    "ext_control.onnx": [("location", "w\x1b[2J.bin")],
    "ext_offset_overflow.onnx": [("location", "weights.bin"),
                                 ("offset", "18446744073709551616")],
    "ext_offset_max.onnx": [("location", "weights.bin"),
                            ("offset", "18446744073709551615")],
    "ext_length_max.onnx": [("location", "weights.bin"),
                            ("length", "18446744073709551615")],
    "ext_end_overflow.onnx": [("location", "weights.bin"),
                              ("offset", "9223372036854775000"),
                              ("length", "1024")],
    "ext_negative.onnx": [("location", "weights.bin"), ("offset", "-1")],
    "ext_junk.onnx": [("location", "weights.bin"), ("length", "1024x")],
    "ext_twice.onnx": [("location", "weights.bin"),
                       ("location", "other.bin")],
}


def external_variants(out, model):
    for file, entries in BAD_EXTERNAL.items():
        for tensor in model.graph.initializer:
            del tensor.external_data[:]
            for key, value in entries:
                entry = tensor.external_data.add()
                entry.key = key
                entry.value = value
        with open(os.path.join(out, file), "wb") as f:
            f.write(model.SerializeToString())


def mismatched_model():
    t = TensorProto()
    t.name = "bad"
    t.data_type = TensorProto.FLOAT
    t.dims.extend([2])
    t.raw_data = b"\0\0\0\0"  # 4 bytes for 2 floats
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])
    node = helper.make_node("Identity", ["X"], ["Y"])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])
    return helper.make_model(helper.make_graph([node], "bad", [x], [y], [t]))


def sparse_graph(name, tensors):
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [3, 4])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [3, 4])
    node = helper.make_node("Identity", ["X"], ["Y"])
    return helper.make_model(helper.make_graph(
        [node], name, [x], [y], sparse_initializer=tensors))


def sparse_tensor(name, values, indices, dims):
    return helper.make_sparse_tensor(
        numpy_helper.from_array(values, name),
        numpy_helper.from_array(indices, name + "_indices"), dims)


def sparse_models(out):
    """Sparse initializers with linear and [NNZ, rank] indices, and broken
    ones: indices out of order, outside the shape, of type INT32."""
    models = {
        "sparse.onnx": [
            sparse_tensor("SL", np.array([1.5, -2, 7], np.float32),
                          np.array([1, 6, 11], np.int64), [3, 4]),
            sparse_tensor("ST", np.array([5, 9], np.int32),
                          np.array([[0, 1], [2, 3]], np.int64), [3, 4]),
        ],
        "sparse_order.onnx": [
            sparse_tensor("S", np.array([1, 2], np.float32),
                          np.array([6, 1], np.int64), [3, 4])],
        "sparse_outside.onnx": [
            sparse_tensor("S", np.array([1, 2], np.float32),
                          np.array([[0, 1], [3, 0]], np.int64), [3, 4])],
        "sparse_int32.onnx": [
            sparse_tensor("S", np.array([1], np.float32),
                          np.array([1], np.int32), [3, 4])],
    }
    for file, tensors in models.items():
        with open(os.path.join(out, file), "wb") as f:
            f.write(sparse_graph("sparse", tensors).SerializeToString())


def big_model(out, mib):
    """A chain of MatMul+Add layers whose weights total about |mib| MiB."""
    layers = max(1, mib // 4)
    inits, nodes = [], []
    rng = np.random.default_rng(3)
    previous = "X"
    for i in range(layers):
        w = rng.standard_normal((1024, 1024), dtype=np.float32)
        b = rng.standard_normal((1024,), dtype=np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"),
                  numpy_helper.from_array(b, f"b{i}")]
        nodes += [helper.make_node("MatMul", [previous, f"w{i}"], [f"m{i}"]),
                  helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"]),
                  helper.make_node("Relu", [f"a{i}"], [f"r{i}"])]
        previous = f"r{i}"
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["n", 1024])
    y = helper.make_tensor_value_info(previous, TensorProto.FLOAT,
                                      ["n", 1024])
    model = helper.make_model(helper.make_graph(nodes, "big", [x], [y], inits))
    with open(os.path.join(out, "big.onnx"), "wb") as f:
        f.write(model.SerializeToString())


def main():
    out = sys.argv[1]
    if len(sys.argv) > 2:
        os.makedirs(out, exist_ok=True)
        big_model(out, int(sys.argv[2]))
        return
    os.makedirs(out, exist_ok=True)
    data = main_model().SerializeToString()
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(data)
    with open(os.path.join(out, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) - 7])
    with open(os.path.join(out, "mismatch.onnx"), "wb") as f:
        f.write(mismatched_model().SerializeToString())
    external_model(out)
    sparse_models(out)


if __name__ == "__main__":
    main()
