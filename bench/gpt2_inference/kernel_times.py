#!/usr/bin/env python3
"""Where a graph of an fkc artifact spends its time, kernel by kernel.

    python3 bench/gpt2_inference/kernel_times.py ARTIFACT GRAPH [--runs N] [--top K]

Runs GRAPH on random inputs (floats N(0, 0.02), integers 0) kernel by
kernel (no CUDA graph replay) under torch.profiler, which sees every kernel
on the GPU through CUPTI, and prints each kernel's total and mean time over
the runs, the largest first, with the graph's total. For the GPU machine;
needs torch and the runtime library (FKRT_LIBRARY).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "runtime", "python"))
sys.path.insert(0, os.path.dirname(HERE))

from fkbench.profiling import kernel_times  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artifact")
    parser.add_argument("graph")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    import torch
    import fkrt
    module = fkrt.Module(args.artifact)
    module.load_cuda()
    module.cuda_graphs = False
    dtypes = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
              "i32": torch.int32, "i64": torch.int64, "i1": torch.bool}
    inputs = []
    for info in module.inputs(args.graph):
        dtype = dtypes[info.dtype]
        if dtype.is_floating_point:
            inputs.append(torch.randn(info.shape, device="cuda").mul_(0.02).to(dtype))
        else:
            inputs.append(torch.zeros(info.shape, device="cuda", dtype=dtype))
    for _ in range(3):
        module.run(args.graph, inputs)
    torch.cuda.synchronize()
    table = kernel_times(torch, lambda: module.run(args.graph, inputs),
                         args.runs)
    total = sum(us for _, _, us in table)
    print(f"{args.graph}: {len(table)} distinct kernels, "
          f"{sum(n for _, n, _ in table):.0f} launches and "
          f"{total / 1e3:.4f} ms of kernel time per run")
    for name, launches, us in table[:args.top]:
        print(f"  {us / 1e3:8.4f} ms/run  {launches:5.1f} "
              f"launches/run  {100 * us / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
