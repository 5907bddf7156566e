#!/usr/bin/env python3
"""Independent numpy references of libhrx-model's image ops (the contracts
written in include/hrx/model/image.h), run by tests/model/test_image_ops.c
through numpy_reference_run:

    ref_image_ops.py DIR OP ARGS...

Inputs are DIR/<name>.bin, outputs are written the same way. Every f32
operation happens in float32 in the order the contract states, so results
are exact; fit works in float64 like the C code and is compared with a
tolerance (the C compiler may contract its sums)."""
import os
import sys

import numpy as np

F32 = np.float32


def blob(directory, name, dtype):
    return np.fromfile(os.path.join(directory, name + ".bin"), dtype=dtype)


def write(directory, name, array):
    np.ascontiguousarray(array).tofile(os.path.join(directory, name + ".bin"))


def to_byte(value):
    return np.clip(np.rint(value), F32(0), F32(255)).astype(np.uint8)


def affine(d, src_w, src_h, crops, width, height):
    image = blob(d, "image", np.uint8).reshape(src_h, src_w, 3)
    maps = blob(d, "inverse", F32).reshape(crops, 6)
    write(d, "out", affine_crops(image, maps, width, height))


def affine_crops(image, maps, width, height):
    """u8 [crops, height, width, 3] sampled from u8 image [h, w, 3]."""
    src_h, src_w = image.shape[:2]
    crops = maps.shape[0]
    image = image.astype(F32)
    ys, xs = np.meshgrid(np.arange(height, dtype=F32),
                         np.arange(width, dtype=F32), indexing="ij")
    out = np.zeros((crops, height, width, 3), np.uint8)
    wf, hf = F32(src_w), F32(src_h)
    one = F32(1)
    with np.errstate(invalid="ignore", over="ignore"):
        for c in range(crops):
            m = maps[c]
            sx = (m[0] * xs + m[1] * ys) + m[2]
            sy = (m[3] * xs + m[4] * ys) + m[5]
            near = (sx > -one) & (sx < wf) & (sy > -one) & (sy < hf)
            fx, fy = np.floor(sx), np.floor(sy)
            tx, ty = sx - fx, sy - fy
            taps = [(fx, fy, one - tx, one - ty), (fx + one, fy, tx, one - ty),
                    (fx, fy + one, one - tx, ty), (fx + one, fy + one, tx, ty)]
            total = np.zeros((height, width, 3), F32)
            for col, row, wx, wy in taps:
                ok = near & (col >= 0) & (col < wf) & (row >= 0) & (row < hf)
                ci = np.where(ok, col, 0).astype(np.int64)
                ri = np.where(ok, row, 0).astype(np.int64)
                term = (image[ri, ci] * wx[..., None]) * wy[..., None]
                total = total + np.where(ok[..., None], term, F32(0))
            out[c] = to_byte(total)
    return out


def normalize(d, src_w, src_h, x, y, width, height, patch):
    image = blob(d, "image", np.uint8).reshape(src_h, src_w, 3)
    params = blob(d, "params", F32)
    view = image[y:y + height, x:x + width, :].astype(F32)
    out = (view * params[0] - params[1:4]) * params[4:7]
    if patch == 0:
        out = out.transpose(2, 0, 1)
    else:
        p = patch
        out = out.reshape(height // p, p, width // p, p, 3)
        out = out.transpose(0, 2, 4, 1, 3).reshape(-1, 3 * p * p)
    write(d, "out", out.astype(F32))


def resize(d, src_w, src_h, x, y, view_w, view_h, width, height):
    image = blob(d, "image", np.uint8).reshape(src_h, src_w, 3)
    view = image[y:y + view_h, x:x + view_w, :].astype(F32)
    half, one = F32(0.5), F32(1)

    def axis(out_size, in_size):
        scale = F32(in_size) / F32(out_size)
        s = np.maximum((np.arange(out_size, dtype=F32) + half) * scale - half,
                       F32(0))
        f = np.floor(s)
        t = s - f
        i = f.astype(np.int64)
        return (np.minimum(i, in_size - 1), np.minimum(i + 1, in_size - 1),
                one - t, t)

    ax, bx, wx0, wx1 = axis(width, view_w)
    ay, by, wy0, wy1 = axis(height, view_h)
    wx0, wx1 = wx0[None, :, None], wx1[None, :, None]
    top = view[ay][:, ax] * wx0 + view[ay][:, bx] * wx1
    bottom = view[by][:, ax] * wx0 + view[by][:, bx] * wx1
    value = top * wy0[:, None, None] + bottom * wy1[:, None, None]
    write(d, "out", to_byte(value))


def composite(d, width, height, over_w, over_h, x, y):
    base = blob(d, "base", np.uint8).reshape(height, width, 3)
    over = blob(d, "overlay", np.uint8).reshape(over_h, over_w, 3)
    alpha = blob(d, "alpha", F32)[0]
    keep = F32(1) - alpha
    out = base.copy()
    x0, x1 = max(x, 0), min(x + over_w, width)
    y0, y1 = max(y, 0), min(y + over_h, height)
    if x0 < x1 and y0 < y1:
        b = base[y0:y1, x0:x1].astype(F32)
        o = over[y0 - y:y1 - y, x0 - x:x1 - x].astype(F32)
        out[y0:y1, x0:x1] = to_byte(b * keep + o * alpha)
    write(d, "out", out)


def finite(d):
    values = blob(d, "values", F32)
    count = np.count_nonzero(~np.isfinite(values))
    write(d, "count", np.array([count], np.uint32))


def fit(d, count):
    src = [float(v) for v in blob(d, "src", F32)]
    dst = [float(v) for v in blob(d, "dst", F32)]
    n = float(count)
    mx = sum(src[0::2]) / n
    my = sum(src[1::2]) / n
    nx = sum(dst[0::2]) / n
    ny = sum(dst[1::2]) / n
    dot = cross = spread = 0.0
    for i in range(count):
        px, py = src[2 * i] - mx, src[2 * i + 1] - my
        qx, qy = dst[2 * i] - nx, dst[2 * i + 1] - ny
        dot += px * qx + py * qy
        cross += px * qy - py * qx
        spread += px * px + py * py
    c, s = dot / spread, cross / spread
    k = c * c + s * s
    tx, ty = nx - (c * mx - s * my), ny - (s * mx + c * my)
    write(d, "matrix", np.array([c, -s, tx, s, c, ty], F32))
    write(d, "inverse", np.array([c / k, s / k, -(c * tx + s * ty) / k,
                                  -s / k, c / k, -(c * ty - s * tx) / k], F32))


def main():
    directory, op, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    ops = {"affine": affine, "normalize": normalize, "resize": resize,
           "composite": composite, "finite": finite, "fit": fit}
    ops[op](directory, *[int(a) for a in args])


if __name__ == "__main__":
    main()
