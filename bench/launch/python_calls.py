#!/usr/bin/env python3
"""The host's cost of one call of fkrt's Python API: Module.run on a graph
with random inputs, as a generation loop calls a decode step.

    python3 bench/launch/python_calls.py ARTIFACT.ptx GRAPH [--sizes B=1]
        [--bind PREFIX] [--calls N] [--label TEXT]

Inputs are made from the manifest (symbolic dimensions sized by --sizes);
an inout parameter's new value is written into its input, other outputs
are allocated once. --bind PREFIX binds the inputs whose names start with
PREFIX from a .safetensors file (Module.bind_weights), so run() takes only
the others. Prints one line: the median host time of a call (run() to its
return, the GPU busy with earlier calls), the time per call back to back
(the larger of host and GPU), and a call followed by a synchronize. Run it
with FKRT_LIBRARY naming the runtime to measure; PYTHONPATH may name
another fkrt.py.
"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.append(os.path.join(HERE, "..", "..", "runtime", "python"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artifact")
    parser.add_argument("graph")
    parser.add_argument("--sizes", default="",
                        help="symbol sizes, e.g. B=1,S=1")
    parser.add_argument("--bind", default=None, metavar="PREFIX",
                        help="bind the inputs whose names start with PREFIX")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--label", default="")
    args = parser.parse_args()

    import torch
    import fkrt
    from safetensors.torch import save_file

    sizes = dict((k, int(v)) for k, v in
                 (item.split("=") for item in args.sizes.split(",") if item))
    dtypes = {"f16": torch.float16, "bf16": torch.bfloat16,
              "f32": torch.float32, "i32": torch.int32, "i64": torch.int64}
    generator = torch.Generator(device="cuda").manual_seed(0)

    def make(info):
        shape = [sizes[d] if isinstance(d, str) else d for d in info.shape]
        dtype = dtypes[info.dtype]
        if dtype.is_floating_point:
            return (torch.randn(shape, device="cuda", generator=generator) *
                    0.02).to(dtype)
        return torch.zeros(shape, dtype=dtype, device="cuda")

    module = fkrt.Module(args.artifact)
    named = [(info.name, make(info)) for info in module.inputs(args.graph)]
    with tempfile.TemporaryDirectory() as tmp:
        if args.bind is not None:
            bound = {n: t for n, t in named if n.startswith(args.bind)}
            path = os.path.join(tmp, "weights.safetensors")
            save_file(bound, path)
            module.bind_weights(args.graph, path)
            named = [(n, t) for n, t in named if n not in bound]
    inputs = [t for _, t in named]
    outputs = [inputs[o.aliases] if o.aliases is not None else make(o)
               for o in module.outputs(args.graph)]

    def call():
        module.run(args.graph, inputs, outputs)

    for _ in range(30):
        call()
    torch.cuda.synchronize()
    host = []
    start = time.perf_counter()
    for _ in range(args.calls):
        began = time.perf_counter()
        call()
        host.append(time.perf_counter() - began)
    torch.cuda.synchronize()
    back_to_back = (time.perf_counter() - start) / args.calls
    synced = []
    for _ in range(100):
        began = time.perf_counter()
        call()
        torch.cuda.synchronize()
        synced.append(time.perf_counter() - began)
    host.sort()
    synced.sort()
    print(f"{args.label or os.path.basename(args.artifact)} {args.graph}: "
          f"{len(inputs)} inputs per call; host per call {host[len(host) // 2] * 1e6:.1f} us "
          f"(median), back to back {back_to_back * 1e6:.1f} us, call + "
          f"synchronize {synced[len(synced) // 2] * 1e6:.1f} us (median)",
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
