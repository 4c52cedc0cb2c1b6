"""Reads fkc's tensor bundles (.fkt, docs/tools.md) into torch tensors."""
import struct

import torch

_DTYPES = {0: torch.float32, 1: torch.float16, 2: torch.bfloat16, 3: torch.int32, 4: torch.bool,
           5: torch.int64}


def read_bundle(path):
    """{graph name: (inputs, outputs)}, each {tensor name: tensor}."""
    data = open(path, "rb").read()
    assert data[:8] == b"FKTNSR01", "not a version 01 tensor bundle"
    pos = 8

    def take(fmt):
        nonlocal pos
        values = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return values

    def text():
        nonlocal pos
        (n,) = take("I")
        pos += n
        return data[pos - n:pos].decode()

    graphs = {}
    (graph_count,) = take("I")
    for _ in range(graph_count):
        name = text()
        take("Q")
        n_in, n_out = take("II")
        tensors = []
        for _ in range(n_in + n_out):
            tname = text()
            dtype, rank = take("II")
            dims = take(f"{rank}q")
            (size,) = take("Q")
            raw = bytearray(data[pos:pos + size])
            pos += size
            t = torch.frombuffer(raw, dtype=torch.uint8) if size else torch.empty(0, dtype=torch.uint8)
            t = t.view(_DTYPES[dtype]) if dtype != 4 else t.to(torch.bool)
            tensors.append((tname, t.reshape(dims)))
        graphs[name] = (dict(tensors[:n_in]), dict(tensors[n_in:]))
    return graphs
