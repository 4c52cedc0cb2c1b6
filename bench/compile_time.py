#!/usr/bin/env python3
"""fkc's compile time on one CPU core: each model compiled to an artifact by
each compiler given, several times, with the best time kept.

    python3 bench/compile_time.py [--repeat N] [--core C] [--label TEXT]
                                  [--compiler NAME=PATH ...] [--no-write]

Compilers default to `fkc=build/bin/fkc`; compare two with, e.g.,
`--compiler before=OLD/fkc --compiler after=build/bin/fkc`. A compiler that cannot compile a model (an older
fkc and a graph with calls) gets a dash. Each run is pinned to core C (0) by
`taskset`; the table shows its CPU time (user + system, which another process
on the machine does not inflate) and wall time, the PTX's size, its kernels
(`.entry`) and the manifest's launches. Then each compiler that takes
`--mlir-timing` compiles the first two models once more with it, and the
time of each stage is listed: where the time goes. The results go to
bench/results/compile-time/DATE-HOST.{md,json} (a folder of their own: the
peer benchmark's reports are the files of bench/results/), with the machine
named: this is CPU timing.
"""
import argparse
import datetime
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The models: a name and the graph file.
MODELS = [
    ("gpt2 12 layers, calls", "examples/gpt2_layers.graph"),
    ("gpt2 12 layers, written out", "bench/compile-time/gpt2_layers_inline.graph"),
    ("transformer block", "examples/transformer_block.graph"),
    ("mlp", "examples/mlp.graph"),
]


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def compile_once(fkc, graph, out, core):
    """Compiles `graph`; returns (cpu seconds, wall seconds) or None."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(["taskset", "-c", str(core), fkc, graph, "-o", out],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        return None
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def describe_artifact(path):
    with open(path) as f:
        text = f.read()
    entries = len(re.findall(r"^\.visible \.entry ", text, re.MULTILINE))
    launches = len(re.findall(r'"kernel":"', text))
    return {"ptx_bytes": len(text.encode()), "kernels": entries,
            "launches": launches}


def stage_times(fkc, graph, core):
    """The top-level lines of `fkc --mlir-timing` (stages, front end,
    writer): [(name, seconds)], or [] if the compiler reports none."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            ["taskset", "-c", str(core), fkc, graph, "-o",
             os.path.join(tmp, "model.ptx"), "--mlir-timing"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stages = []
    for line in done.stderr.splitlines():
        # "    0.5264 ( 64.6%)    0.5264 ( 65.5%)  ptx": user time (when
        # MLIR reports it) and wall time, then the name; a name indented by
        # two spaces is a top-level timer, passes are nested deeper.
        match = re.match(r"^(?:\s+[0-9.]+ \(\s*[0-9.]+%\))?\s+([0-9.]+) "
                         r"\(\s*[0-9.]+%\)  (\S.*)$", line)
        if match and match.group(2) != "Total":
            stages.append((match.group(2), float(match.group(1))))
    return stages


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--core", type=int, default=0)
    parser.add_argument("--label", default="",
                        help="a note for the results file (what was compared)")
    parser.add_argument("--compiler", action="append", default=[],
                        metavar="NAME=PATH")
    parser.add_argument("--no-write", action="store_true",
                        help="print the table only")
    args = parser.parse_args()

    compilers = [c.split("=", 1) for c in args.compiler]
    if not compilers:
        compilers.append(("fkc", os.path.join(ROOT, "build/bin/fkc")))

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for model, graph in MODELS:
            for name, fkc in compilers:
                out = os.path.join(tmp, "model.ptx")
                runs = []
                for _ in range(args.repeat):
                    result = compile_once(fkc, os.path.join(ROOT, graph), out,
                                          args.core)
                    if result is None:
                        break
                    runs.append(result)
                row = {"model": model, "graph": graph, "compiler": name}
                if runs:
                    row["cpu_s"] = min(r[0] for r in runs)
                    row["wall_s"] = min(r[1] for r in runs)
                    row.update(describe_artifact(out))
                rows.append(row)
                print("%-30s %-8s %s" % (model, name,
                      "%.2f s CPU" % row["cpu_s"] if runs else "failed"),
                      file=sys.stderr)

    profiles = []
    for model, graph in MODELS[:2]:
        for name, fkc in compilers:
            stages = stage_times(fkc, os.path.join(ROOT, graph), args.core)
            if stages:
                profiles.append((model, name, stages))

    machine = "%s (%s, %d cores)" % (platform.node(), cpu_model(),
                                     os.cpu_count() or 0)
    date = datetime.datetime.now(datetime.timezone.utc)
    lines = [
        "# fkc compile time",
        "",
        "- machine: %s; every compile pinned to core %d (`taskset`)" %
        (machine, args.core),
        "- date: %s; best of %d runs" % (date.strftime("%Y-%m-%dT%H:%M:%SZ"),
                                         args.repeat),
        "- compilers: " + ", ".join("%s = `%s`" % (n, p) for n, p in compilers),
    ]
    if args.label:
        lines.append("- " + args.label)
    lines += [
        "",
        "CPU time is user + system time of the fkc process (what another "
        "process on the core does not inflate); wall time is as measured.",
        "",
        "| model | compiler | CPU s | wall s | PTX bytes | kernels | launches |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        if "cpu_s" in row:
            lines.append("| %s | %s | %.2f | %.2f | %d | %d | %d |" % (
                row["model"], row["compiler"], row["cpu_s"], row["wall_s"],
                row["ptx_bytes"], row["kernels"], row["launches"]))
        else:
            lines.append("| %s | %s | - | - | - | - | - |" % (row["model"],
                                                            row["compiler"]))
    for model, name, stages in profiles:
        total = sum(seconds for _, seconds in stages) or 1
        lines += ["", "Where the time goes: %s, %s (`--mlir-timing`, wall "
                  "time of one run on the pinned core):" % (model, name), "",
                  "| stage | s | share |", "|---|---:|---:|"]
        lines += ["| %s | %.3f | %.0f%% |" % (stage, seconds,
                                              100 * seconds / total)
                  for stage, seconds in stages]
    table = "\n".join(lines) + "\n"
    print(table)
    if args.no_write:
        return
    stem = os.path.join(ROOT, "bench/results/compile-time", "%s-%s" % (
        date.strftime("%Y-%m-%d"), re.sub(r"[^a-z0-9]+", "-",
                                          platform.node().lower()).strip("-")))
    os.makedirs(os.path.dirname(stem), exist_ok=True)
    with open(stem + ".md", "w") as f:
        f.write(table)
    with open(stem + ".json", "w") as f:
        json.dump({"machine": machine, "core": args.core,
                   "date": date.isoformat(), "repeat": args.repeat,
                   "label": args.label,
                   "compilers": dict((n, p) for n, p in compilers),
                   "rows": rows,
                   "profiles": [{"model": m, "compiler": n,
                                 "stages": dict(st)}
                                for m, n, st in profiles]}, f, indent=2)
        f.write("\n")
    print("wrote %s.md and .json" % os.path.relpath(stem, ROOT))


if __name__ == "__main__":
    main()
