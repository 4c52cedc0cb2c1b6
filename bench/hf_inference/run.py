#!/usr/bin/env python3
"""Hugging Face inference on a GPU: fkc against transformers eager and
torch.compile of the same transformers model.

    python3 bench/hf_inference/run.py [--artifacts DIR] [--out DIR] [--quick]
        [--models gpt2,llama] [--configs REGEX] [--time-limit SECONDS]

Runs on the GPU machine over the artifacts of bench/hf_inference/compile.sh
(build/hf-artifacts-bench/NAME.ptx and NAME.json; bench_models.py says what each
configuration is). Per model: transformers' model is built from the config
(torch.manual_seed(0), f16, cuda, eval) and its state_dict written under the
graphs' names for fkrt's bind_weights, once. Per configuration (batch B,
prompt T):

1. transformers, eager, computes the reference (bench_models.HfSteps): a prefill
   of T random tokens at positions 0..T-1 into a StaticCache (the logits of
   every position, as fkc's prefill graph returns), then one decode step of
   B random tokens at the decode position (T, or the cache's last position
   where the prompt fills it).
2. fkc's prefill (from zeroed caches) and decode step (from transformers'
   caches after its prefill) run, and their logits and caches are compared
   with transformers' (relative L2; the share of rows whose argmax agrees).
   fkc is timed only where every relative L2 is under 2e-2.
3. Times, each call between two CUDA events with up to 32 calls in flight,
   median after warm-up: fkc (the weights bound once; the runtime replays
   CUDA graphs), transformers eager (HfSteps' calls), and torch.compile of
   the same calls (mode="reduce-overhead", i.e. CUDA graphs; fullgraph where
   it compiles; dynamic=False), whose first outputs are compared with
   eager's too.

A configuration that fails, or a peer that does not compile, is reported
and the run goes on. Writes hf-inference[-MODELS].json and .md to --out
(default $OUT or bench/results/hf-inference/).
"""
import argparse
import json
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import bench_models  # noqa: E402
from inference_timing import FkcGraph, time_calls  # noqa: E402

TOLERANCE = 2e-2
FKC, EAGER, COMPILED = "fkc", "transformers eager", "torch.compile"
PEERS = (FKC, EAGER, COMPILED)
# fkc's replays with their launches in order (Module.concurrent_launches off).
FKC_SERIAL = "fkc, launches in order"
# Seconds a torch.compile peer (two shapes) is assumed to need at most:
# --time-limit skips it when fewer are left.
COMPILE_RESERVE_S = 120
DEVICE = "cuda"


def load_configurations(folder, model_names, pattern):
    """describe()'s dicts of the artifacts in `folder`, in bench_models.py's
    order, of the models named and matching `pattern`."""
    entries = []
    for name in model_names:
        spec = bench_models.MODELS[name]
        for batch, prompt in spec.shapes:
            base = bench_models.artifact_name(name, batch, prompt)
            if pattern and not re.search(pattern, base):
                continue
            path = os.path.join(folder, base + ".json")
            if not os.path.exists(path):
                entries.append({"name": base, "model": name, "batch": batch,
                                "prompt": prompt, "missing": path})
                continue
            with open(path) as f:
                entry = json.load(f)
            entry["artifact"] = os.path.join(folder, base + ".ptx")
            entries.append(entry)
    return entries


class Bench:
    """One run: the libraries, the options and the results so far."""

    def __init__(self, torch, transformers, fkrt, args, save):
        self.torch, self.transformers, self.fkrt = torch, transformers, fkrt
        self.args, self.results = args, []
        # Writes the report so far: called after each configuration, so
        # that a run stopped early leaves what it measured.
        self.save = save
        # transformers' attention implementation of each model ("sdpa").
        self.attention = {}
        self.started = time.perf_counter()
        self.budget = 0.5 if args.quick else 2.0

    def record(self, entry, graph, peer, timing, **extra):
        r = {"config": entry["name"], "model": entry["model"],
             "batch": entry["batch"], "prompt": entry["prompt"],
             "graph": graph, "peer": peer}
        r.update(timing)
        r.update(extra)
        self.results.append(r)
        print(f"  {graph:8s} {peer:20s} {timing['median_s'] * 1e3:9.4f} ms", flush=True)

    def fail(self, entry, what, error, **extra):
        r = {"config": entry["name"], "model": entry["model"],
             "batch": entry["batch"], "prompt": entry["prompt"], "failed": what,
             "error": error}
        r.update(extra)
        self.results.append(r)
        print(f"  {what} failed: {error}", flush=True)

    def time_left(self):
        if not self.args.time_limit:
            return float("inf")
        return self.args.time_limit - (time.perf_counter() - self.started)

    def run_model(self, name, entries):
        torch = self.torch
        first = entries[0]
        model = bench_models.build_model(self.transformers, torch, first, torch.float16,
                                      torch.device(DEVICE))
        self.attention[name] = getattr(model.config, "_attn_implementation", None)
        weights = os.path.join(tempfile.mkdtemp(), f"{name}.safetensors")
        bench_models.MODELS[name].save_weights(bench_models.sizes_of(first), model.state_dict(),
                                            weights)
        for entry in entries:
            print(f"{entry['name']}: batch {entry['batch']}, prompt {entry['prompt']}, "
                  f"cache {entry['cache_length']}, decode at {entry['decode_position']}",
                  flush=True)
            try:
                self.run_config(entry, model, weights)
            except Exception as e:  # a failed configuration is reported, not fatal
                self.fail(entry, "configuration", f"{type(e).__name__}: {e}")
            torch._dynamo.reset()
            torch.cuda.empty_cache()
            self.save()
        os.remove(weights)

    def run_config(self, entry, model, weights):
        torch = self.torch
        device = torch.device(DEVICE)
        batch, prompt, pos = entry["batch"], entry["prompt"], entry["decode_position"]
        vocab = model.config.vocab_size
        g = torch.Generator(device="cpu").manual_seed(batch * 7919 + prompt)
        ids_prompt = torch.randint(0, vocab, (batch, prompt), generator=g).to(device)
        ids_next = torch.randint(0, vocab, (batch, 1), generator=g).to(device)
        steps = bench_models.HfSteps(torch, self.transformers, model, batch, prompt,
                                  entry["cache_length"], pos, device)
        with torch.no_grad():
            ref_prefill = steps.prefill(ids_prompt).clone()
            after_prefill = {n: c.clone() for n, c in steps.caches().items()}
            ref_decode = steps.decode(ids_next).clone()
            after_decode = {n: c.clone() for n, c in steps.caches().items()}
            try:
                self.run_fkc(entry, weights, ids_prompt, ids_next, pos,
                             (ref_prefill, after_prefill), (ref_decode, after_decode))
            except Exception as e:  # the peers are still timed
                self.fail(entry, FKC, f"{type(e).__name__}: {e}")
            del after_decode
            calls = {"prefill": lambda: steps.prefill(ids_prompt),
                     "decode": lambda: steps.decode(ids_next)}
            for graph, call in calls.items():
                self.record(entry, graph, EAGER, time_calls(torch, call, self.budget))
            if self.args.no_compile:
                return
            if self.time_left() < COMPILE_RESERVE_S:
                self.fail(entry, COMPILED, "skipped: under "
                          f"{COMPILE_RESERVE_S} s left of --time-limit")
                return
            refs = {"prefill": ref_prefill, "decode": ref_decode}
            for graph, call in calls.items():
                self.run_compiled(entry, graph, call, refs[graph])

    def run_fkc(self, entry, weights, ids_prompt, ids_next, pos, prefill_ref, decode_ref):
        """Checks fkc's two graphs against transformers' calls, then times
        them if they agree."""
        torch = self.torch
        module = self.fkrt.Module(entry["artifact"])
        module.load_cuda()
        for graph in ("prefill", "decode"):
            module.bind_weights(graph, weights)
        ref_logits, ref_caches = prefill_ref
        caches = {n: torch.zeros_like(c) for n, c in ref_caches.items()}
        prefill = FkcGraph(torch, module, "prefill", dict(caches, ids=ids_prompt))
        check = {"prefill": bench_models.compare(torch, prefill().clone(), ref_logits,
                                              caches, ref_caches)}
        for n, c in caches.items():
            c.copy_(ref_caches[n])
        position = torch.tensor(pos, dtype=torch.int32, device=ids_next.device)
        decode = FkcGraph(torch, module, "decode",
                          dict(caches, ids=ids_next, pos=position))
        ref_logits, ref_caches = decode_ref
        check["decode"] = bench_models.compare(torch, decode().clone(), ref_logits,
                                            caches, ref_caches)
        ok = all(v < TOLERANCE for c in check.values() for k, v in c.items()
                 if k.startswith("rel_l2"))
        self.results.append({"config": entry["name"], "model": entry["model"],
                             "batch": entry["batch"], "prompt": entry["prompt"],
                             "check": check, "ok": ok})
        print(f"  fkc check: {json.dumps(check)}", flush=True)
        if not ok:
            self.fail(entry, FKC, f"outputs differ from transformers' by more than "
                      f"{TOLERANCE} (not timed)")
        else:
            for graph, call in (("prefill", prefill), ("decode", decode)):
                self.record(entry, graph, FKC, time_calls(torch, call, self.budget))
            # The same calls with the replays' launches one after the other.
            module.concurrent_launches = False
            for graph, call in (("prefill", prefill), ("decode", decode)):
                self.record(entry, graph, FKC_SERIAL,
                            time_calls(torch, call, self.budget))
        module.close()

    def run_compiled(self, entry, graph, call, reference):
        """torch.compile of one of HfSteps' calls: fullgraph, else with
        graph breaks; its first output compared with eager's."""
        torch = self.torch
        step_begin = torch.compiler.cudagraph_mark_step_begin
        error = None
        for fullgraph in (True, False):
            torch._dynamo.reset()

            def run():
                step_begin()
                return compiled()
            try:
                compiled = torch.compile(call, mode="reduce-overhead", fullgraph=fullgraph,
                                         dynamic=False)
                t0 = time.perf_counter()
                for _ in range(3):  # compiles, warms up, records the CUDA graph
                    out = run()
                torch.cuda.synchronize()
                compile_s = time.perf_counter() - t0
                check = bench_models.compare(torch, out.clone(), reference)
                del out
                timing = time_calls(torch, run, self.budget)
            except Exception as e:
                error = f"{type(e).__name__}: {str(e)[:2000]}"
                continue
            self.record(entry, graph, COMPILED, timing, compile_s=round(compile_s, 1),
                        fullgraph=fullgraph, check_vs_eager=check)
            return
        self.fail(entry, COMPILED, error, graph=graph)


def median_of(results, config, graph, peer):
    for r in results:
        if (r.get("config"), r.get("graph"), r.get("peer")) == (config, graph, peer):
            return r["median_s"]
    return None


def ms(x):
    return "-" if x is None else "%.3f" % (x * 1e3)


def ratio(peer, fkc):
    return "-" if peer is None or fkc is None else "%.2fx" % (peer / fkc)


def tokens_per_s(batch, x):
    return "-" if x is None else "%.0f" % (batch / x)


def report(results, header):
    """The markdown report of `results` (the json's list)."""
    configs = []
    for r in results:
        if "batch" in r and r["config"] not in [c["config"] for c in configs]:
            configs.append(r)
    lines = [f"# Hugging Face inference: fkc against transformers ({header['device']})", "",
             f"torch {header['torch']}, transformers {header['transformers']}, "
             f"fkc {header['commit']}{', --quick' if header.get('quick') else ''}. "
             "`python3 bench/hf_inference/run.py` over `bash bench/hf_inference/compile.sh`; "
             "bench/README.md says what is compared."
             + (f" fkc's artifacts were compiled with `{header['fkc_options']}`."
                if header.get("fkc_options") else ""), "",
             "Median time per call, up to 32 calls in flight; f16; random weights "
             "(torch.manual_seed(0)) and tokens. Speed-up: the peer's time over fkc's "
             "(above 1: fkc is faster). The prefill computes the logits of every "
             "prompt position on every side, and fkc's graphs also the greedy next token. "
             "transformers' attention implementation: " + (", ".join(
                 f"{m} {a}" for m, a in header.get("attention", {}).items()) or "-") + ".",
             "", "## Prefill (ms)", "",
             "| model | batch | prompt | fkc | transformers eager | torch.compile | "
             "vs eager | vs torch.compile |", "|---|---|---|---|---|---|---|---|"]
    for c in configs:
        t = {p: median_of(results, c["config"], "prefill", p) for p in PEERS}
        lines.append(f"| {c['model']} | {c['batch']} | {c['prompt']} | {ms(t[FKC])} | "
                     f"{ms(t[EAGER])} | {ms(t[COMPILED])} | {ratio(t[EAGER], t[FKC])} | "
                     f"{ratio(t[COMPILED], t[FKC])} |")
    lines += ["", "## Decode step (ms per step, tokens/s = batch / step time)", "",
              "One token per sequence at the position after the prompt (GPT-2 at 1024: "
              "the cache's last position, 1023).", "",
              "| model | batch | prompt | fkc ms | fkc tok/s | eager ms | eager tok/s | "
              "torch.compile ms | torch.compile tok/s | vs eager | vs torch.compile |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in configs:
        t = {p: median_of(results, c["config"], "decode", p) for p in PEERS}
        b = c["batch"]
        lines.append(f"| {c['model']} | {b} | {c['prompt']} | {ms(t[FKC])} | "
                     f"{tokens_per_s(b, t[FKC])} | {ms(t[EAGER])} | {tokens_per_s(b, t[EAGER])} | "
                     f"{ms(t[COMPILED])} | {tokens_per_s(b, t[COMPILED])} | "
                     f"{ratio(t[EAGER], t[FKC])} | {ratio(t[COMPILED], t[FKC])} |")
    lines += ["", "## fkc's launches at once and in order (ms)", "",
              "fkc's replays run launches that touch disjoint memory at once (the "
              "default); the same artifacts with `Module.concurrent_launches = False` "
              "run them one after the other.", "",
              "| model | batch | prompt | prefill | in order | speed-up | decode step | "
              "in order | speed-up |", "|---|---|---|---|---|---|---|---|---|"]
    for c in configs:
        t = {(g, p): median_of(results, c["config"], g, p)
             for g in ("prefill", "decode") for p in (FKC, FKC_SERIAL)}
        lines.append(f"| {c['model']} | {c['batch']} | {c['prompt']} | "
                     + " | ".join(f"{ms(t[(g, FKC)])} | {ms(t[(g, FKC_SERIAL)])} | "
                                  f"{ratio(t[(g, FKC_SERIAL)], t[(g, FKC)])}"
                                  for g in ("prefill", "decode")) + " |")
    lines += ["", "## Checks against transformers eager", "",
              "Relative L2 of the logits and of the worst cache, and the share of rows "
              "(sequence, position) whose argmax agrees; torch.compile's first outputs "
              "against eager's, and its compile time (both shapes' first three calls; "
              "\"graph breaks\" where fullgraph=True failed and the model was compiled "
              "without it).", "",
              "| config | fkc prefill logits | caches | argmax | fkc decode logits | caches "
              "| argmax | torch.compile prefill | decode | compile s |",
              "|---|---|---|---|---|---|---|---|---|---|"]

    def e(x):
        return "-" if x is None else "%.1e" % x
    for c in configs:
        check = next((r["check"] for r in results
                      if r["config"] == c["config"] and "check" in r), {})
        p, d = check.get("prefill", {}), check.get("decode", {})
        compiled = {r["graph"]: r for r in results if r["config"] == c["config"]
                    and r.get("peer") == COMPILED}
        vs = [e(compiled[g]["check_vs_eager"]["rel_l2_logits"]) if g in compiled else "-"
              for g in ("prefill", "decode")]
        compile_s = sum(r["compile_s"] for r in compiled.values())
        lines.append(
            f"| {c['config']} | {e(p.get('rel_l2_logits'))} | {e(p.get('rel_l2_caches'))} | "
            f"{'-' if not p else '%.3f' % p['argmax_agreement']} | "
            f"{e(d.get('rel_l2_logits'))} | {e(d.get('rel_l2_caches'))} | "
            f"{'-' if not d else '%.3f' % d['argmax_agreement']} | {vs[0]} | {vs[1]} | "
            f"{'%.0f' % compile_s if compiled else '-'}"
            f"{' (graph breaks)' if any(not r['fullgraph'] for r in compiled.values()) else ''} |")
    failures = [r for r in results if "failed" in r]
    if failures:
        lines += ["", "## Failures", ""]
        lines += [f"- {r['config']}, {r['failed']}{' ' + r['graph'] if 'graph' in r else ''}: "
                  f"{r['error'].splitlines()[0] if r['error'] else ''}" for r in failures]
    return "\n".join(lines) + "\n"


def write_report(out, stem, results, header):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, stem + ".json"), "w") as f:
        json.dump(dict(header, results=results), f, indent=1)
    text = report(results, header)
    with open(os.path.join(out, stem + ".md"), "w") as f:
        f.write(text)
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifacts", default=os.path.join(REPO, "build", "hf-artifacts-bench"))
    parser.add_argument("--out", default=os.environ.get("OUT") or os.path.join(
        REPO, "bench", "results", "hf-inference"))
    parser.add_argument("--quick", action="store_true", help="shorter timing")
    parser.add_argument("--models", default=",".join(bench_models.MODELS),
                        help="comma-separated, of " + ", ".join(bench_models.MODELS))
    parser.add_argument("--configs", default="",
                        help="regular expression over artifact names (gpt2_b1_p128, ...)")
    parser.add_argument("--time-limit", type=float, default=0,
                        help="seconds: torch.compile peers that would start later than "
                        f"{COMPILE_RESERVE_S} s before it are skipped (reported)")
    parser.add_argument("--no-compile", action="store_true", help="no torch.compile peer")
    args = parser.parse_args()
    names = args.models.split(",")
    unknown = [n for n in names if n not in bench_models.MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)} (known: "
                     f"{', '.join(bench_models.MODELS)})")
    entries = load_configurations(args.artifacts, names, args.configs)
    if not entries:
        parser.error(f"no configuration of {args.models} matches {args.configs!r}")

    import torch
    import transformers
    import fkrt
    transformers.logging.set_verbosity_error()
    try:
        commit = open(os.path.join(args.artifacts, "COMMIT")).read().strip()
    except OSError:
        commit = "unknown"
    header = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
              "transformers": transformers.__version__, "commit": commit,
              "quick": args.quick}
    try:
        options = open(os.path.join(args.artifacts, "FKC_OPTIONS")).read().strip()
        if options:
            header["fkc_options"] = options
    except OSError:
        pass
    print(f"# {header['device']}, torch {header['torch']}, transformers "
          f"{header['transformers']}, fkc {commit}", flush=True)
    stem = "hf-inference" + ("" if set(names) == set(bench_models.MODELS) else "-" + "-".join(names))
    def save():
        header["attention"] = bench.attention
        return write_report(args.out, stem, bench.results, header)
    bench = Bench(torch, transformers, fkrt, args, save)
    for name in names:
        mine = [e for e in entries if e["model"] == name]
        for e in [e for e in mine if "missing" in e]:
            bench.fail(e, "configuration", f"no {e['missing']}: run bench/hf_inference/compile.sh")
        mine = [e for e in mine if "missing" not in e]
        try:
            if mine:
                bench.run_model(name, mine)
        except Exception as e:  # the model itself could not be built
            for entry in mine:
                bench.fail(entry, "model", f"{type(e).__name__}: {e}")
    print(save())


if __name__ == "__main__":
    main()
