#!/usr/bin/env python3
"""fkc-tune: measures wgmma tile candidates per matmul shape on a GPU and
writes a tuning file that `fkc --tuning=FILE` reads (docs/tools.md).

Two steps, so that the compiler stays on the development machine and the
GPU machine needs only the runtime (fkc-run):

    fkc-tune prepare MODEL.graph --out DIR [-- FKC_OPTION...]
        (development machine) asks fkc for the model's wgmma matmul shapes
        (--write-tuning), writes a one-matmul graph per shape and compiles it
        once per candidate tile and block: DIR/plan.json and DIR/*.ptx.
    fkc-tune measure DIR [--fkc-run PATH] [--iterations N]
        (GPU machine) times every candidate with `fkc-run --bench` and
        writes DIR/tuning.json: per shape, the fastest candidate's tile,
        block and ring depth, with every candidate's time.

then `fkc MODEL.graph --tuning DIR/tuning.json -o MODEL.ptx`.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

# Tile (M, N, K) and block of the wgmma kernel for 16-bit operands: the
# one-warpgroup tiles fk-tile chooses among, the cooperative warp-specialized
# one (128 x 256) and the ping-pong ones (two consumers taking turns on
# whole tiles, docs/tiling.md).
CANDIDATES = [
    ((128, 128, 64), 128),
    ((64, 64, 64), 128),
    ((64, 128, 64), 128),
    ((64, 192, 64), 128),
    ((64, 256, 64), 128),
    ((128, 64, 64), 128),
    ((128, 256, 64), 384),
    ((128, 128, 64), 384),
    ((64, 256, 64), 384),
]


def fail(message):
    sys.exit("fkc-tune: " + message)


def shape_key(entry):
    return "%s b%d m%d n%d k%d %s" % (entry["dtype"], entry["batches"],
                                      entry["m"], entry["n"], entry["k"],
                                      entry["rhs"])


def matmul_graph(name, entry):
    """A graph of one matmul of the entry's shape (its folded batches are
    rows of one product, as in the entry)."""
    dt, b, m, n, k = (entry["dtype"], entry["batches"], entry["m"],
                      entry["n"], entry["k"])
    lead = "%d, " % b if b > 1 else ""
    if entry["rhs"] == "k-major":
        perm = "[0, 2, 1]" if b > 1 else "[1, 0]"
        return ("graph %s(a: %s[%s%d, %d], w: %s[%s%d, %d]) {\n"
                "  return a @ transpose(w, perm=%s)\n}\n"
                % (name, dt, lead, m, k, dt, lead, n, k, perm))
    return ("graph %s(a: %s[%s%d, %d], b: %s[%s%d, %d]) {\n"
            "  return a @ b\n}\n" % (name, dt, lead, m, k, dt, lead, k, n))


def run(command):
    return subprocess.run(command, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def prepare(args):
    fkc = args.fkc
    os.makedirs(args.out, exist_ok=True)
    default = os.path.join(args.out, "default.json")
    result = run([fkc, args.graph, "--write-tuning", default, "-o",
                  os.devnull] + args.fkc_options)
    if result.returncode != 0:
        fail("fkc could not compile %s:\n%s" % (args.graph, result.stdout))
    with open(default) as f:
        table = json.load(f)
    plan = {"format": "fkc-tune-plan", "target": table["target"],
            "graph": args.graph, "shapes": []}
    for index, entry in enumerate(table["matmuls"]):
        name = "s%d" % index
        graph = os.path.join(args.out, name + ".graph")
        with open(graph, "w") as f:
            f.write(matmul_graph(name, entry))
        shape = {"key": shape_key(entry), "default": entry,
                 "candidates": []}
        for (tile, threads) in CANDIDATES:
            stem = "%s_%dx%dx%d_t%d" % (name, tile[0], tile[1], tile[2],
                                        threads)
            chosen = os.path.join(args.out, stem + ".json")
            result = run([fkc, graph, "--matmul-tile=%d,%d,%d" % tile,
                          "--matmul-threads=%d" % threads, "--write-tuning",
                          chosen, "-o", os.path.join(args.out, stem + ".ptx")]
                         + args.fkc_options)
            if result.returncode != 0:
                # Not a tile for this shape (or target): say why, go on.
                why = result.stdout.strip().splitlines()
                print("%s: %dx%dx%d on %d threads: not built (%s)"
                      % (shape["key"], tile[0], tile[1], tile[2], threads,
                         why[0] if why else "fkc failed"))
                continue
            with open(chosen) as f:
                built = json.load(f)["matmuls"][0]
            shape["candidates"].append({"ptx": stem + ".ptx",
                                        "entry": built})
        if not shape["candidates"]:
            fail("no candidate compiled for %s" % shape["key"])
        plan["shapes"].append(shape)
        print("%s: %d candidates" % (shape["key"], len(shape["candidates"])))
    with open(os.path.join(args.out, "plan.json"), "w") as f:
        json.dump(plan, f, indent=2)
    print("fkc-tune: %d shapes in %s; run `fkc-tune measure %s` on the GPU "
          "machine" % (len(plan["shapes"]), args.out, args.out))


def gpu_name():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return "unknown"
    result = run([smi, "--query-gpu=name", "--format=csv,noheader"])
    lines = result.stdout.strip().splitlines()
    return lines[0] if result.returncode == 0 and lines else "unknown"


def measure(args):
    with open(os.path.join(args.dir, "plan.json")) as f:
        plan = json.load(f)
    if plan.get("format") != "fkc-tune-plan":
        fail("%s/plan.json is not a plan of fkc-tune prepare" % args.dir)
    matmuls = []
    for shape in plan["shapes"]:
        timed = []
        for candidate in shape["candidates"]:
            ptx = os.path.join(args.dir, candidate["ptx"])
            result = run([args.fkc_run, ptx, "--bench", "--iterations",
                          str(args.iterations)])
            found = re.search(r"median ([0-9.]+) ms", result.stdout)
            if result.returncode != 0 or not found:
                fail("fkc-run failed on %s:\n%s" % (ptx, result.stdout))
            timed.append((float(found.group(1)), candidate))
        timed.sort(key=lambda pair: pair[0])
        best_ms, best = timed[0]
        entry = dict(best["entry"])
        entry["ms"] = best_ms
        entry["candidates"] = [
            {"tile": c["entry"]["tile"], "threads": c["entry"]["threads"],
             "stages": c["entry"]["stages"], "ms": ms} for ms, c in timed]
        matmuls.append(entry)
        default = shape["default"]
        default_ms = next((ms for ms, c in timed
                           if c["entry"]["tile"] == default["tile"] and
                           c["entry"]["threads"] == default["threads"]), None)
        print("%s: %s on %d threads, %.4f ms (the heuristic's %s on %d: %s)"
              % (shape["key"], best["entry"]["tile"],
                 best["entry"]["threads"], best_ms, default["tile"],
                 default["threads"],
                 "%.4f ms" % default_ms if default_ms is not None
                 else "not a candidate"))
    tuning = {"format": "fkc-tuning", "version": 1,
              "target": plan["target"], "gpu": gpu_name(),
              "matmuls": matmuls}
    out = args.out or os.path.join(args.dir, "tuning.json")
    with open(out, "w") as f:
        json.dump(tuning, f, indent=2)
    print("fkc-tune: wrote %s; compile with `fkc %s --tuning %s`"
          % (out, plan["graph"], out))


def main():
    parser = argparse.ArgumentParser(
        prog="fkc-tune", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="compile the candidates (no GPU)")
    p.add_argument("graph")
    p.add_argument("--out", required=True, help="the candidates' folder")
    p.add_argument("--fkc", default=os.environ.get("FKC", "build/bin/fkc"))
    p.add_argument("fkc_options", nargs="*",
                   help="fkc options after --, such as --target or --bind")
    m = sub.add_parser("measure", help="time the candidates (GPU machine)")
    m.add_argument("dir")
    m.add_argument("--fkc-run", default=os.environ.get(
        "FKC_RUN", "build-device/bin/fkc-run"))
    m.add_argument("--iterations", type=int, default=50)
    m.add_argument("--out", help="the tuning file (default DIR/tuning.json)")
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args)
    else:
        measure(args)


if __name__ == "__main__":
    main()
