#!/usr/bin/env python3
"""Writes and dumps .safetensors files for the tests, with the standard
library only (the lit suite does not assume torch or numpy).

    safetensors.py write OUT.safetensors [--metadata K=V] TENSOR...
    safetensors.py dump FILE.safetensors

A TENSOR is NAME:DTYPE:SHAPE[:VALUES]: DTYPE as the header spells it (F32,
F16, BF16, I32, I64, BOOL, or any other name, written as 8-byte values),
SHAPE as 2x3 (empty for a scalar), VALUES comma-separated (default: the
k-th element is ((k % 7) - 3) / 2, exact in every float dtype). The tensors
are stored in the order given, back to back: an independent writer, other
than the C++ one, that the reader is tested against.

`dump` prints the metadata and every tensor as `NAME DTYPE[SHAPE] at
[BEGIN, END): VALUES`, floats as %g, in header order, and checks that the
data section starts at a multiple of 8 bytes.
"""

import json
import struct
import sys

FORMATS = {"F32": "f", "F16": "e", "I32": "i", "I64": "q", "BOOL": "B"}
SIZES = {"F32": 4, "F16": 2, "BF16": 2, "I32": 4, "I64": 8, "BOOL": 1}


def to_bf16(value):
    """The bfloat16 bits of `value`, rounded to nearest even."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    bits += 0x7FFF + ((bits >> 16) & 1)
    return (bits >> 16) & 0xFFFF


def from_bf16(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def encode(dtype, values):
    if dtype == "BF16":
        return b"".join(struct.pack("<H", to_bf16(v)) for v in values)
    fmt = FORMATS.get(dtype, "d")
    if fmt in "iqB":
        values = [int(v) for v in values]
    return struct.pack("<%d%s" % (len(values), fmt), *values)


def decode(dtype, data):
    if dtype == "BF16":
        return [from_bf16(b) for b in struct.unpack("<%dH" % (len(data) // 2), data)]
    fmt = FORMATS[dtype]
    return list(struct.unpack("<%d%s" % (len(data) // SIZES[dtype], fmt), data))


def parse_tensor(spec):
    parts = spec.split(":")
    name, dtype, shape_text = parts[0], parts[1], parts[2]
    shape = [int(d) for d in shape_text.split("x")] if shape_text else []
    count = 1
    for d in shape:
        count *= d
    if len(parts) > 3:
        values = [float(v) for v in parts[3].split(",")] if parts[3] else []
    else:
        values = [((k % 7) - 3) / 2 for k in range(count)]
    return name, dtype, shape, encode(dtype, values)


def write(argv):
    out, metadata, tensors = argv[0], {}, []
    args = iter(argv[1:])
    for arg in args:
        if arg == "--metadata":
            key, value = next(args).split("=", 1)
            metadata[key] = value
        else:
            tensors.append(parse_tensor(arg))
    header, data = {}, b""
    if metadata:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def dump(path):
    with open(path, "rb") as f:
        raw = f.read()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length])
    data = raw[8 + length:]
    print("data section at byte %d%s" %
          (8 + length, "" if (8 + length) % 8 == 0 else " (NOT 8-ALIGNED)"))
    for key, value in header.get("__metadata__", {}).items():
        print("metadata %s = %s" % (key, value))
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        values = decode(info["dtype"], data[begin:end])
        text = ", ".join("%g" % v if isinstance(v, float) else str(v)
                         for v in values)
        print("%s %s[%s] at [%d, %d): %s" % (
            name, info["dtype"], ", ".join(map(str, info["shape"])),
            begin, end, text))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("write", "dump"):
        sys.exit(__doc__)
    if sys.argv[1] == "write":
        write(sys.argv[2:])
    else:
        dump(sys.argv[2])
