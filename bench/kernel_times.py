#!/usr/bin/env python3
"""Where a case's time goes: the GPU time of every kernel that fkc's
artifact, PyTorch eager and torch.compile launch for one call, measured by
torch's profiler (CUPTI) over the same inputs in one process.

    bash bench/compile.sh                  # on the dev machine
    python3 bench/kernel_times.py transformer_block_f16 [--iterations 20]

Prints, per peer, each kernel's mean time per call (kernels of one name
summed), the kernels' total and the call's wall time by CUDA events; the
difference between the two is launch gaps and idle time, less the overlap
of kernels that run at once (fkc's replay runs launches that touch
disjoint memory together, and each such kernel counts in full). Calls run
back to back as in bench/run.py (fkc replays its CUDA graph).

--alternate SECONDS calls the peers in turn for that long, each call timed
on its own: the peers compared at the same clocks. --timeline prints one
call's kernels with their start, end and the idle time before each.

--clocks SECONDS then runs each peer for that long while nvidia-smi samples
the SM clock and the board's power: a sustained run's time per call at the
clocks the power limit leaves, where short runs see the boost clocks.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fkbench import artifacts, cases, paths  # noqa: E402
from fkbench.inputs import make_inputs, nan_outputs  # noqa: E402
from fkbench.profiling import (idle_within, kernel_times,  # noqa: E402
                               kernel_timeline)
from fkbench.peers.torch_graphs import torch_function  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("case", help="a case of bench/cases/ (its name)")
    p.add_argument("--artifacts", default=paths.DEFAULT_ARTIFACTS,
                   help="folder of the compiled cases (bench/compile.sh)")
    p.add_argument("--fkrt-lib", help="the runtime library libfkrt.so")
    p.add_argument("--iterations", type=int, default=20,
                   help="calls profiled per peer (after as many warm-ups)")
    p.add_argument("--peers", default="fkc,eager,compile",
                   help="comma-separated: fkc, fkc-in-order (its launches "
                        "one after the other), eager, compile")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--copies", action="store_true",
                   help="list the copies and memsets on the GPU too")
    p.add_argument("--rounds", type=int, default=0,
                   help="then time the peers' calls (CUDA events) in this "
                        "many alternated rounds")
    p.add_argument("--clocks", type=float, default=0, metavar="SECONDS",
                   help="then run each peer (alternated, --rounds times or "
                        "once) for SECONDS while nvidia-smi samples the SM "
                        "clock and the board's power draw: whether peers "
                        "run at the power limit, and at which clocks")
    p.add_argument("--alternate", default="", metavar="SECONDS[,SECONDS]",
                   help="then call the peers in turn, one call each per "
                        "round, for SECONDS (each of a list in turn), each "
                        "call timed by its own "
                        "CUDA events: the peers compared at the same clocks "
                        "and temperature (medians over the second half)")
    p.add_argument("--timeline", action="store_true",
                   help="then each peer's calls kernel by kernel: when each "
                        "kernel starts and ends within the call, and the "
                        "idle time inside and between calls")
    p.add_argument("--together", action="store_true",
                   help="one kernel table of the peers called in turn, one "
                        "call each per round, so that every kernel is timed "
                        "at the same clocks (peers whose kernels are named "
                        "apart: fkc and compile, not eager and compile)")
    p.add_argument("--skip-profile", action="store_true",
                   help="no kernel table (only --rounds and --clocks)")
    return p.parse_args(argv)


def load_fkrt(explicit):
    os.environ["FKRT_LIBRARY"] = paths.fkrt_library(explicit)
    sys.path.insert(0, os.path.join(paths.REPO, "runtime", "python"))
    import fkrt
    fkrt.library()
    return fkrt


def peer_functions(args, torch, case, inputs):
    """peer name -> a function of no arguments that runs one call."""
    device = inputs[0].device
    fns = {}
    for peer in args.peers.split(","):
        if peer == "eager":
            fn = torch_function(case, torch, device)
            fns[peer] = lambda fn=fn: fn(*inputs)
        elif peer == "compile":
            torch._dynamo.reset()
            cfn = torch.compile(torch_function(case, torch, device),
                                dynamic=False)
            fns[peer] = lambda cfn=cfn: cfn(*inputs)
        elif peer in ("fkc", "fkc-in-order"):
            fkrt = load_fkrt(args.fkrt_lib)
            module = fkrt.Module(artifacts.artifact_path(args.artifacts,
                                                         case.name))
            module.load_cuda(device.index or 0)
            # fkc-in-order: its launches one after the other, none at once.
            module.concurrent_launches = peer == "fkc"
            outs = nan_outputs(torch, case, device)
            graph = case.signature.name
            fns[peer] = lambda m=module, o=outs: m.run(graph, inputs,
                                                       outputs=o)
        else:
            raise SystemExit("kernel_times: unknown peer %r" % peer)
    return fns


def wall_ms(torch, fn, iterations):
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iterations):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / iterations


def sample_clocks(torch, fn, seconds):
    """Calls `fn` back to back for about `seconds` while nvidia-smi samples
    every 50 ms; returns (ms per call, median SM MHz, median watts, the
    power limit in watts) over the samples of the second half, once the
    clocks have settled."""
    import statistics
    import subprocess
    import tempfile
    import time
    query = ["nvidia-smi", "--query-gpu=clocks.sm,power.draw,power.limit",
             "--format=csv,noheader,nounits", "-i",
             str(torch.cuda.current_device())]
    with tempfile.TemporaryFile("w+") as log:
        sampler = subprocess.Popen(query + ["-lms", "50"], stdout=log)
        try:
            start = time.monotonic()
            calls = 0
            events = []
            while time.monotonic() - start < seconds:
                if calls % 20 == 0:
                    e = torch.cuda.Event(enable_timing=True)
                    e.record()
                    events.append((calls, e))
                fn()
                calls += 1
                if calls % 20 == 0:
                    torch.cuda.synchronize()
            torch.cuda.synchronize()
        finally:
            sampler.terminate()
            sampler.wait()
        log.seek(0)
        rows = [[float(x) for x in line.split(",")]
                for line in log if line.strip() and "N/A" not in line]
    half = rows[len(rows) // 2:] or rows
    # Calls timed over the second half too (events every 20 calls).
    marks = events[len(events) // 2:]
    per_call = (marks[0][1].elapsed_time(marks[-1][1]) /
                max(marks[-1][0] - marks[0][0], 1)) if len(marks) > 1 else 0
    return (per_call, statistics.median(r[0] for r in half),
            statistics.median(r[1] for r in half), half[-1][2])


def alternate(torch, fns, seconds):
    """Calls the peers in turn for about `seconds`; returns, per peer, its
    call times in ms, one per round. The host enqueues up to 20 rounds
    ahead of the GPU, so that no host time falls between a pair of
    events."""
    import time
    peers = list(fns)
    rounds = []
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        batch = []
        for _ in range(20):
            marks = []
            for peer in peers:
                begin = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                begin.record()
                fns[peer]()
                end.record()
                marks.append((begin, end))
            batch.append(marks)
        torch.cuda.synchronize()
        rounds += [[b.elapsed_time(e) for b, e in marks] for marks in batch]
    return {peer: [r[i] for r in rounds] for i, peer in enumerate(peers)}


def print_alternate(torch, fns, seconds):
    import statistics
    times = alternate(torch, fns, seconds)
    peers = list(fns)
    n = len(times[peers[0]])
    half = {p: t[n // 2:] for p, t in times.items()}
    first = half[peers[0]]
    print("\n## peers called in turn for %g s (%d rounds; medians of the "
          "second half's %d)" % (seconds, n, len(first)))
    print("| peer | ms per call | min | max | its time over %s's, per "
          "round |\n|---|---:|---:|---:|---:|" % peers[0])
    for peer in peers:
        t = half[peer]
        ratio = statistics.median(o / f for o, f in zip(t, first))
        print("| %s | %.4f | %.4f | %.4f | %.3fx |"
              % (peer, statistics.median(t), min(t), max(t), ratio))


def print_table(table):
    print("| us per call | launches | kernel |\n|---:|---:|---|")
    for name, count, us in table:
        print("| %.1f | %g | %s |" % (us, count, name[:110]))


def print_timeline(peer, calls):
    """The last call's kernels one by one, then the means over the calls of
    the idle time inside a call (no kernel of it running) and between one
    call's last kernel and the next call's first."""
    spans = [idle_within(kernels) for _, kernels in calls]
    between = [calls[i + 1][0] - (calls[i][0] + spans[i][1])
               for i in range(len(calls) - 1)]
    n = len(calls)
    print("\n## %s: timeline of one call (us; %d calls: span %.1f, idle "
          "inside %.1f, between calls %.1f, means)"
          % (peer, n, sum(s for _, s in spans) / n,
             sum(i for i, _ in spans) / n,
             sum(between) / max(len(between), 1)))
    print("| start | end | duration | idle before | kernel |\n"
          "|---:|---:|---:|---:|---|")
    reach = None
    for name, start, end in calls[-1][1]:
        idle = max(start - reach, 0) if reach is not None else 0
        reach = end if reach is None else max(reach, end)
        print("| %.1f | %.1f | %.1f | %.1f | %s |"
              % (start, end, end - start, idle, name[:90]))


def main(argv=None):
    args = parse_args(argv)
    import torch
    chosen, unknown = cases.select(args.case)
    if unknown or len(chosen) != 1:
        raise SystemExit("kernel_times: no single case named %r" % args.case)
    loaded, unusable = cases.load(chosen, args.artifacts)
    if unusable:
        raise SystemExit("kernel_times: %s" % unusable[args.case])
    case = loaded[0]
    torch.backends.cuda.matmul.allow_tf32 = case.allow_tf32
    device = torch.device("cuda")
    inputs = make_inputs(torch, case, device, args.seed)
    print("# %s on %s" % (case.name, torch.cuda.get_device_name()))
    fns = peer_functions(args, torch, case, inputs)
    for peer, fn in fns.items():
        for _ in range(max(args.iterations, 3)):
            fn()
        torch.cuda.synchronize()
        if args.skip_profile or args.together:
            continue
        wall = wall_ms(torch, fn, args.iterations)
        table = kernel_times(torch, fn, args.iterations, args.copies)
        busy = sum(r[2] for r in table) / 1000
        print("\n## %s: %.4f ms per call (CUDA events), kernels %.4f ms"
              % (peer, wall, busy))
        print_table(table)
    if args.together and not args.skip_profile:
        def in_turn():
            for fn in fns.values():
                fn()
        table = kernel_times(torch, in_turn, args.iterations, args.copies)
        print("\n## %s called in turn, kernels timed together"
              % ", ".join(fns))
        print_table(table)
    for seconds in filter(None, args.alternate.split(",")):
        print_alternate(torch, fns, float(seconds))
    if args.timeline:
        for peer, fn in fns.items():
            print_timeline(peer, kernel_timeline(torch, fn, args.iterations))
    for round in range(1, args.rounds + 1):
        times = ["%s %.4f" % (peer, wall_ms(torch, fn, args.iterations))
                 for peer, fn in fns.items()]
        print("round %d (ms per call): %s" % (round, ", ".join(times)))
    if args.clocks > 0:
        print("\n## %g s per peer, nvidia-smi every 50 ms (medians of the "
              "second half)" % args.clocks)
        print("| round | peer | ms per call | SM MHz | W | power limit W |")
        print("|---:|---|---:|---:|---:|---:|")
        for round in range(1, max(args.rounds, 1) + 1):
            for peer, fn in fns.items():
                ms, mhz, watts, limit = sample_clocks(torch, fn, args.clocks)
                print("| %d | %s | %.4f | %.0f | %.0f | %.0f |"
                      % (round, peer, ms, mhz, watts, limit))
    return 0


if __name__ == "__main__":
    sys.exit(main())
