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
import collections
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "runtime", "python"))


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
    activities = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        for _ in range(args.runs):
            module.run(args.graph, inputs)
        torch.cuda.synchronize()
    totals = collections.Counter()
    counts = collections.Counter()
    for event in prof.events():
        if event.device_type == torch.autograd.DeviceType.CUDA:
            totals[event.name] += event.device_time_total
            counts[event.name] += 1
    total = sum(totals.values())
    print(f"{args.graph}: {len(totals)} distinct kernels, "
          f"{sum(counts.values()) / args.runs:.0f} launches and "
          f"{total / args.runs / 1e3:.4f} ms of kernel time per run")
    for name, t in totals.most_common(args.top):
        print(f"  {t / args.runs / 1e3:8.4f} ms/run  {counts[name] / args.runs:5.1f} "
              f"launches/run  {100 * t / total:5.1f}%  {name}")


if __name__ == "__main__":
    main()
