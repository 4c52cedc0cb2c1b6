#!/usr/bin/env python3
"""Writes tensor bundles (.fkt, see docs/tools.md) for the runtime's tests.

    make_bundle.py KIND OUT.fkt

A second, independent writer of the format: the C++ reader is tested
against it. The `add*` kinds hold the graph 'add' of
runtime/tests/data/add.ptx (y = 2 * x + w over 1000 f32 values), correct or
broken in one way each.
"""

import math
import random
import struct
import sys

DTYPES = {"f32": (0, 4), "f16": (1, 2), "bf16": (2, 2), "i32": (3, 4),
          "i1": (4, 1)}


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def tensor(name, dtype, shape, values):
    code, size = DTYPES[dtype]
    fmt = {"f32": "f", "f16": "e", "i32": "i", "i1": "B"}.get(dtype)
    if dtype == "bf16":  # the upper half of an f32 (values here are exact)
        data = b"".join(struct.pack("<f", v)[2:] for v in values)
    else:
        data = struct.pack("<%d%s" % (len(values), fmt), *values)
    out = struct.pack("<I", len(name)) + name.encode()
    out += struct.pack("<II", code, len(shape))
    out += b"".join(struct.pack("<q", d) for d in shape)
    return out + struct.pack("<Q", len(data)) + data


def graph(name, seed, inputs, outputs):
    out = struct.pack("<I", len(name)) + name.encode()
    out += struct.pack("<QII", seed, len(inputs), len(outputs))
    return out + b"".join(inputs) + b"".join(outputs)


def bundle(graphs):
    return b"FKTNSR01" + struct.pack("<I", len(graphs)) + b"".join(graphs)


def add(kind):
    rng = random.Random(7)
    n = 1000
    x = [f32(rng.uniform(-1, 1)) for _ in range(n)]
    w = [f32(rng.uniform(-1, 1)) for _ in range(n)]
    y = [f32(2 * a + b) for a, b in zip(x, w)]
    x_shape, w_dtype, y_name, name = [n], "f32", "y", "add"
    if kind == "add-wrong":
        y[17] += 1
    elif kind == "add-nan":
        y[5] = math.nan
    elif kind == "add-shape":
        x_shape, x = [n - 1], x[:-1]
    elif kind == "add-dtype":
        w_dtype = "f16"
    elif kind == "add-name":
        y_name = "z"
    elif kind == "add-other-graph":
        name = "sub"
    inputs = [tensor("x", "f32", x_shape, x), tensor("w", w_dtype, [n], w)]
    if kind == "add-count":
        inputs = inputs[:1]
    return bundle([graph(name, 7, inputs, [tensor(y_name, "f32", [n], y)])])


def sample():
    """Every dtype, a scalar and an empty tensor: a fuzzing seed."""
    return bundle([
        graph("g", 1, [tensor("a", "f16", [2, 3], [0.5] * 6),
                       tensor("b", "bf16", [3], [1.0, -2.0, 0.25]),
                       tensor("c", "i32", [2], [-8, 8])],
              [tensor("d", "i1", [4], [0, 1, 1, 0]),
               tensor("e", "f32", [], [3.5]),
               tensor("f", "f32", [2, 0], [])]),
        graph("h", 2, [], [tensor("y", "f32", [1], [1.0])])])


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make_bundle.py KIND OUT.fkt")
    kind, path = sys.argv[1], sys.argv[2]
    if kind.startswith("add"):
        data = add(kind)
    elif kind == "truncated":
        data = add("add")[:-3]
    elif kind == "bad-i1":
        data = bundle([graph("g", 0, [tensor("m", "i1", [2], [1, 2])], [])])
    elif kind == "sample":
        data = sample()
    else:
        sys.exit("make_bundle.py: unknown kind '%s'" % kind)
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
