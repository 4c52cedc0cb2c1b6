#!/usr/bin/env python3
"""What leaving sizes to run time costs: GPT-2 small's MLP block
(bench/runtime_sizes/mlp.graph) and causal self-attention
(bench/runtime_sizes/causal_attention.graph) over B x S tokens, a
decode step's attention over B sequences' caches of S keys
(bench/runtime_sizes/decode_attention.graph; each also as
CASE_unbounded.graph, without bounds, at sizes past them), and the softmax of
[B, 12, S, S] attention scores, rows of a length given at run time
(bench/runtime_sizes/scores_softmax.graph), on a GPU.

    python3 bench/runtime_sizes/run.py [--artifacts DIR] [--out DIR]

Runs over the artifacts of bench/runtime_sizes/compile.sh: CASE.ptx, one
artifact whose kernels read B and S at run time, and CASE_bB_sS.ptx, the
graph compiled for those sizes. At each size it times:
- fkc, sizes at run time (the one artifact);
- fkc, sizes bound when compiled (one artifact per size);
- PyTorch eager (mlp: F.layer_norm, F.linear, F.gelu(approximate="tanh");
  attention: F.scaled_dot_product_attention, is_causal=True for the
  prefill; scores_softmax: torch.softmax);
- torch.compile(dynamic=True): one compiled function for every size, the
  peer that also serves every size from one compilation.
Outputs are compared with eager's first (relative L2 error). Each call is
timed between CUDA events (bench/inference_timing.py), median of the calls.
fkc runs from Python through fkrt, CUDA graph replay on (the default).
Python calls are host-bound at small sizes, so the GPU's own time per run
of each fkc artifact is also taken from `fkc-run --bench` (--fkc-run;
CUDA events around back-to-back CUDA-graph replays), with CASE_variant.ptx
beside them where compile.sh built one (FKC_RUNTIME_SIZES_VARIANT_FLAGS).
Writes runtime-sizes.json and runtime-sizes.md to --out (default $OUT or
bench/results/runtime-sizes/).
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
sys.path.insert(0, os.path.dirname(HERE))

# (B, S): decode steps of 1 and 16 sequences, short prompts (an
# attention's row variants: at most 16 and 64 query rows), prompts of odd
# and round lengths.
SIZES = [(1, 1), (16, 1), (1, 8), (4, 16), (2, 48), (1, 77), (1, 128),
         (4, 333), (8, 512), (16, 1024)]
# (B, S) of the decode attention: batch 8 at cache lengths 512, 4096 and
# 16384 (bench/cases/attention_decode_*), one sequence, an odd length.
DECODE_SIZES = [(8, 512), (8, 4096), (8, 16384), (1, 1), (1, 4096),
                (16, 1000)]
# (B, S) of the scores' softmax: rows of 1 to 1024 keys.
SOFTMAX_SIZES = [(1, 1), (16, 1), (1, 77), (1, 128), (4, 333), (8, 512),
                 (16, 1024)]
WIDTH, HIDDEN = 768, 3072
DECODE_HEADS, DECODE_HEAD_DIM = 32, 128


def make_weights(torch):
    gen = torch.Generator(device="cpu").manual_seed(0)

    def randn(*shape, scale):
        return (torch.randn(*shape, generator=gen) * scale).half().cuda()
    return {
        "ln_g": (1 + randn(WIDTH, scale=0.1)), "ln_b": randn(WIDTH, scale=0.1),
        "fc_w": randn(HIDDEN, WIDTH, scale=0.02), "fc_b": randn(HIDDEN, scale=0.02),
        "proj_w": randn(WIDTH, HIDDEN, scale=0.02),
        "proj_b": randn(WIDTH, scale=0.02)}


def torch_mlp(torch, x, w):
    F = torch.nn.functional
    h = F.layer_norm(x, (WIDTH,), w["ln_g"], w["ln_b"], eps=1e-5)
    u = F.gelu(F.linear(h, w["fc_w"], w["fc_b"]), approximate="tanh")
    return x + F.linear(u, w["proj_w"], w["proj_b"])


def torch_attention(torch, q, k, v):
    def heads(t):
        return t.view(t.shape[0], t.shape[1], 12, 64).transpose(1, 2)
    a = torch.nn.functional.scaled_dot_product_attention(
        heads(q), heads(k), heads(v), is_causal=True)
    return a.transpose(1, 2).reshape(q.shape)


def random_half(torch, *shape, seed):
    gen = torch.Generator(device="cpu").manual_seed(seed)
    return torch.randn(*shape, generator=gen).half().cuda()


# Each case: its graph (bench/runtime_sizes/CASE.graph), its sizes, its
# inputs at (B, S) in the graph's order, and PyTorch's computation of them.
CASE_SIZES = {"mlp": SIZES, "mlp_unbounded": SIZES + [(32, 1024)],
              "causal_attention": SIZES,
              "causal_attention_unbounded": SIZES + [(4, 4096)],
              "decode_attention": DECODE_SIZES,
              "decode_attention_unbounded": DECODE_SIZES + [(2, 65536)],
              "scores_softmax": SOFTMAX_SIZES}


def make_cases(torch, weights):
    def tokens(batch, length):
        return random_half(torch, batch, length, WIDTH,
                           seed=batch * 10007 + length)

    def mlp_inputs(batch, length):
        return [tokens(batch, length)] + [
            weights[n] for n in
            ["ln_g", "ln_b", "fc_w", "fc_b", "proj_w", "proj_b"]]

    def attention_inputs(batch, length):
        x = tokens(batch, length)
        return [x] + [random_half(torch, *x.shape, seed=x.numel() + i)
                      for i in range(2)]

    def decode_inputs(batch, length):
        q = random_half(torch, batch, DECODE_HEADS, 1, DECODE_HEAD_DIM,
                        seed=batch)
        return [q] + [random_half(torch, batch, DECODE_HEADS, length,
                                  DECODE_HEAD_DIM, seed=length * 3 + i)
                      for i in range(2)]
    def scores_inputs(batch, length):
        return [random_half(torch, batch, 12, length, length,
                            seed=batch * 7 + length)]
    sdpa = torch.nn.functional.scaled_dot_product_attention
    return {
        "mlp": (mlp_inputs, lambda inputs: torch_mlp(torch, inputs[0], weights)),
        "mlp_unbounded": (mlp_inputs,
                          lambda inputs: torch_mlp(torch, inputs[0], weights)),
        "causal_attention": (attention_inputs,
                             lambda inputs: torch_attention(torch, *inputs)),
        "causal_attention_unbounded": (
            attention_inputs, lambda inputs: torch_attention(torch, *inputs)),
        "decode_attention": (decode_inputs, lambda inputs: sdpa(*inputs)),
        "decode_attention_unbounded": (decode_inputs,
                                       lambda inputs: sdpa(*inputs)),
        "scores_softmax": (scores_inputs, lambda inputs: torch.softmax(
            inputs[0] * 0.125, dim=-1)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifacts", default=os.path.join(
        REPO, "build", "runtime-sizes-artifacts"))
    parser.add_argument("--out", default=os.environ.get("OUT") or os.path.join(
        REPO, "bench", "results", "runtime-sizes"))
    parser.add_argument("--budget", type=float, default=0.3,
                        help="seconds of timed calls per measurement")
    parser.add_argument("--print-sizes", metavar="CASE",
                        help="print CASE's sizes as B,S lines (for compile.sh)")
    parser.add_argument("--cases", default=",".join(CASE_SIZES),
                        help="comma-separated cases to run (default: all)")
    parser.add_argument("--fkc-run", default=os.environ.get("FKC_RUN") or
                        os.path.join(REPO, "build", "bin", "fkc-run"),
                        help="fkc-run, for the GPU's time per run")
    parser.add_argument("--iterations", type=int, default=300,
                        help="timed runs of fkc-run --bench")
    args = parser.parse_args()
    if args.print_sizes:
        print("\n".join(f"{b},{s}" for b, s in CASE_SIZES[args.print_sizes]))
        return 0

    import torch
    import fkrt
    device = torch.cuda.get_device_name()
    # The GPU machine's copy of the tree may lack the history: FKC_COMMIT
    # names the commit measured.
    commit = os.environ.get("FKC_COMMIT") or subprocess.run(
        ["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
        capture_output=True, text=True).stdout.strip()
    weights = make_weights(torch)
    results, gpu_times = [], []
    for case, (make_inputs, torch_fn) in make_cases(torch, weights).items():
        if case in args.cases.split(","):
            results += run_case(torch, fkrt, args, case, make_inputs,
                                torch_fn)
            gpu_times += time_on_gpu(args, case)
    write_report(args.out, results, gpu_times, device, commit)
    return 1 if any("error" in r for r in results + gpu_times) else 0


def time_on_gpu(args, case):
    """fkc-run --bench's median ms per run of each artifact of `case` at
    each of its sizes: the one artifact, the variant (if built) and the
    artifact bound to the size."""
    import re
    times = []
    for batch, tokens in CASE_SIZES[case]:
        artifacts = {"sizes at run time": f"{case}.ptx",
                     "variant, sizes at run time": f"{case}_variant.ptx",
                     "sizes bound": f"{case}_b{batch}_s{tokens}.ptx"}
        for label, name in artifacts.items():
            path = os.path.join(args.artifacts, name)
            if not os.path.exists(path):
                continue
            command = [args.fkc_run, path, "--graph", case, "--bench",
                       "--iterations", str(args.iterations), "--warmup", "20"]
            if label != "sizes bound":
                command += ["--sizes", f"B={batch},S={tokens}"]
            entry = {"case": case, "B": batch, "S": tokens, "artifact": label}
            run = subprocess.run(command, capture_output=True, text=True)
            found = re.search(r"bench: .* median ([0-9.]+) ms", run.stdout)
            if run.returncode != 0 or not found:
                entry["error"] = (run.stdout + run.stderr).strip()[-300:]
            else:
                entry["median_ms"] = float(found.group(1))
            print(json.dumps(entry), flush=True)
            times.append(entry)
    return times


def run_case(torch, fkrt, args, case, make_inputs, torch_fn):
    from inference_timing import rel_l2, time_calls
    runtime_module = fkrt.Module(os.path.join(args.artifacts, f"{case}.ptx"))
    compiled = torch.compile(torch_fn, dynamic=True)
    results = []
    for batch, tokens in CASE_SIZES[case]:
        inputs = make_inputs(batch, tokens)
        reference = torch_fn(inputs)
        out = torch.empty_like(reference)
        static_module = fkrt.Module(os.path.join(
            args.artifacts, f"{case}_b{batch}_s{tokens}.ptx"))
        peers = {
            "fkc, sizes at run time":
                lambda: runtime_module.run(case, inputs, [out]),
            "fkc, sizes bound":
                lambda: static_module.run(case, inputs, [out]),
            "torch eager": lambda: torch_fn(inputs),
            "torch.compile(dynamic=True)": lambda: compiled(inputs),
        }
        for peer, fn in peers.items():
            entry = {"case": case, "B": batch, "S": tokens, "peer": peer}
            try:
                fn()
                torch.cuda.synchronize()
                result = out if peer.startswith("fkc") else fn()
                entry["rel_l2"] = rel_l2(torch, result, reference)
                entry.update(time_calls(torch, fn, args.budget))
            except Exception as error:  # reported, not fatal
                entry["error"] = f"{type(error).__name__}: {error}"
            print(json.dumps(entry), flush=True)
            results.append(entry)
        static_module.close()
    return results


def write_report(out, results, gpu_times, device, commit):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "runtime-sizes.json"), "w") as f:
        json.dump({"device": device, "commit": commit, "results": results,
                   "gpu_times": gpu_times}, f, indent=1)
    peers = list(dict.fromkeys(r["peer"] for r in results))
    lines = [f"# Sizes at run time ({device}, {commit})",
             "",
             "bench/runtime_sizes/run.py: median us per call; the ratio is "
             "the peer's time over fkc's with sizes at run time (above 1: "
             "fkc faster). rel L2: against torch eager. mlp (GPT-2 small): "
             "layernorm, 768 -> 3072 GELU, 3072 -> 768, residual; "
             "causal_attention (GPT-2 small): self-attention, 12 heads of "
             "64, split and merged in place; decode_attention: one query "
             "per sequence and head, 32 heads of 128, over S cached keys "
             "(S is the cache length); scores_softmax: softmax(x * 0.125) "
             "over the last axis of [B, 12, S, S] f16 scores.", "",
             "| case | B | S | " + " | ".join(peers) + " | bound / run time | "
             "eager / run time | compile / run time | max rel L2 |",
             "|---|---|---|" + "---|" * (len(peers) + 4)]
    cases = list(dict.fromkeys(r.get("case", "mlp") for r in results))
    for case, (batch, tokens) in ((c, bs) for c in cases
                                  for bs in CASE_SIZES[c]):
        row = {r["peer"]: r for r in results
               if r.get("case", "mlp") == case and r["B"] == batch
               and r["S"] == tokens}
        def us(peer):
            r = row.get(peer, {})
            return f"{r['median_s'] * 1e6:.1f}" if "median_s" in r else "error"
        def ratio(peer):
            a, b = row.get(peer, {}), row.get(peers[0], {})
            if "median_s" not in a or "median_s" not in b:
                return "-"
            return f"{a['median_s'] / b['median_s']:.2f}x"
        errors = [r["rel_l2"] for r in row.values() if "rel_l2" in r]
        worst = f"{max(errors):.1e}" if errors else "-"
        lines.append(f"| {case} | {batch} | {tokens} | " +
                     " | ".join(us(p) for p in peers) + " | " +
                     " | ".join(ratio(p) for p in peers[1:]) + f" | {worst} |")
    labels = list(dict.fromkeys(t["artifact"] for t in gpu_times))
    if gpu_times:
        lines += ["", "The GPU's time per run (fkc-run --bench, median ms; "
                  "CUDA events around back-to-back CUDA-graph replays):", "",
                  "| case | B | S | " + " | ".join(labels) + " |",
                  "|---|---|---|" + "---|" * len(labels)]
        for case, (batch, tokens) in ((c, bs) for c in cases
                                      for bs in CASE_SIZES[c]):
            row = {t["artifact"]: t for t in gpu_times
                   if t["case"] == case and t["B"] == batch
                   and t["S"] == tokens}
            if not row:
                continue
            lines.append(f"| {case} | {batch} | {tokens} | " + " | ".join(
                f"{row[l]['median_ms']:.4f}" if "median_ms" in row.get(l, {})
                else ("error" if l in row else "-") for l in labels) + " |")
    failures = [r for r in results + gpu_times if "error" in r]
    if failures:
        lines += ["", "Errors:"] + [
            f"- {r.get('case')} B={r['B']} S={r['S']} "
            f"{r.get('peer') or r.get('artifact')}: {r['error']}"
            for r in failures]
    with open(os.path.join(out, "runtime-sizes.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
