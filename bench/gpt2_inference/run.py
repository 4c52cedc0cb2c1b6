#!/usr/bin/env python3
"""GPT-2 small inference on a GPU: fkc against PyTorch eager and torch.compile.

    python3 bench/gpt2_inference/run.py [--artifacts DIR] [--out DIR] [--quick]

Runs on the GPU machine over the artifacts of bench/gpt2_inference/compile.sh
(build/gpt2-artifacts/gpt2_bN_pT.ptx: the prefill graph of a T-token prompt
and the decode-step graph, batch N, of scripts/gpt2_inference_graph.py; and
gpt2_bB_pT.ptx, the same graphs with the batch sized at run time, which
each batch N's configuration runs too; and gpt2_bB_pS.ptx, the batch and
the prompt length sized at run time, which every configuration runs).

The peer is the same model written in PyTorch (`TorchGPT2` below): the same
weights (random, GPT-2-like scales) under the same names, in transformers'
GPT2LMHeadModel layout (q, k and v of one c_attn matmul; loaded into
GPT2LMHeadModel they give its logits), the same f16 KV caches of 1024
positions updated in place, `F.scaled_dot_product_attention` for attention
(causal over the prompt in prefill; over the cache with a boolean mask of
the positions 0..pos in decode, as the graph does), the LM head tied to the
token embedding. Eager runs it as written; torch.compile runs it with
mode="reduce-overhead" (CUDA graphs), the caches registered as module
buffers so that the in-place updates stay inside the graph.

Before any timing, fkc's logits and updated caches are compared with eager's
from the same cache contents. Times: each call between two CUDA events with
up to 32 calls in flight (so host overhead counts only where the host falls
behind the GPU), median of the timed calls after warm-up. fkc is timed from
Python through fkrt (CUDA graph replay on, the runtime's default).
Writes gpt2-inference.json and gpt2-inference.md to --out (default $OUT or
bench/results/gpt2-inference/).
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.path.insert(0, os.path.dirname(HERE))

from gpt2_inference_graph import Sizes, legalize  # noqa: E402
from inference_timing import FkcGraph, rel_l2, time_calls  # noqa: E402

LAYERS, D, HEADS, MLP, VOCAB, POSITIONS = 12, 768, 12, 3072, 50257, 1024
HEAD_DIM = D // HEADS
# The label of the artifact whose batch is sized at run time.
ANY_BATCH = "fkc, B at run time"
# The label of the artifact whose batch and prompt length are sized at run
# time.
ANY_SIZE = "fkc, B and S at run time"
# The graphs' weights: GPT2LMHeadModel's parameters, named as the importer
# names its state_dict keys (scripts/gpt2_inference_graph.py).
PARAMS = [(legalize(key), shape) for key, shape in
          Sizes(LAYERS, D, HEADS, MLP, VOCAB, POSITIONS, 1).model_params()]


def make_weights(torch, device, seed):
    """Random weights at GPT-2's scales: matrices N(0, 0.02), the position
    table N(0, 0.01), norm gains near 1, biases small."""
    g = torch.Generator(device="cpu").manual_seed(seed)

    def normal(shape, std, mean=0.0):
        return (torch.randn(shape, generator=g) * std + mean).to(
            device=device, dtype=torch.float16)

    w = {}
    for name, shape in PARAMS:
        gain = re.search(r"ln_(1|2|f)_weight$", name) is not None
        std = 0.01 if name == "transformer_wpe_weight" else 0.02
        w[name] = normal(shape, std, 1.0 if gain else 0.0)
    return w


def make_model_class(torch):
    F = torch.nn.functional

    class TorchGPT2(torch.nn.Module):
        """The graph's model in PyTorch; `caches` are buffers updated in
        place, as the graph's inout parameters are."""

        def __init__(self, weights, batch):
            super().__init__()
            for name, t in weights.items():
                self.register_buffer(name, t, persistent=False)
            for i in range(LAYERS):
                for kv in "kv":
                    self.register_buffer(
                        f"{kv}{i}", torch.zeros(batch, HEADS, POSITIONS, HEAD_DIM,
                                               dtype=torch.float16,
                                               device=self.wte.device),
                        persistent=False)
            self.batch = batch
            self.register_buffer("arange", torch.arange(
                POSITIONS, device=self.wte.device), persistent=False)

        @property
        def wte(self):
            return self.transformer_wte_weight

        def p(self, i, name):
            return getattr(self, f"transformer_h_{i}_{name}")

        def block(self, i, x, attend):
            p = lambda n: self.p(i, n)
            b, t = x.shape[0], x.shape[1]
            h = F.layer_norm(x, (D,), p("ln_1_weight"), p("ln_1_bias"), 1e-5)

            def heads(y):
                return y.view(b, t, HEADS, HEAD_DIM).transpose(1, 2)
            qkv = h @ p("attn_c_attn_weight") + p("attn_c_attn_bias")
            q, k, v = (heads(y) for y in qkv.split(D, dim=-1))
            a = attend(q, k, v, getattr(self, f"k{i}"), getattr(self, f"v{i}"))
            x = x + (a.transpose(1, 2).reshape(b, t, D) @ p("attn_c_proj_weight")
                     + p("attn_c_proj_bias"))
            h2 = F.layer_norm(x, (D,), p("ln_2_weight"), p("ln_2_bias"), 1e-5)
            m = F.gelu(h2 @ p("mlp_c_fc_weight") + p("mlp_c_fc_bias"),
                       approximate="tanh")
            return x + (m @ p("mlp_c_proj_weight") + p("mlp_c_proj_bias"))

        def head(self, x):
            h = F.layer_norm(x, (D,), self.transformer_ln_f_weight,
                             self.transformer_ln_f_bias, 1e-5)
            return h @ self.wte.t()

        def prefill(self, ids):
            t = ids.shape[1]
            x = self.wte[ids] + self.transformer_wpe_weight[:t].unsqueeze(0)

            def attend(q, k, v, kc, vc):
                kc[:, :, :t].copy_(k)
                vc[:, :, :t].copy_(v)
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
            for i in range(LAYERS):
                x = self.block(i, x, attend)
            return self.head(x)

        def decode(self, ids, pos):
            where = pos.view(1).long()
            x = self.wte[ids] + torch.index_select(
                self.transformer_wpe_weight, 0, where).view(1, 1, D)
            seen = (self.arange <= pos).view(1, POSITIONS)

            def attend(q, k, v, kc, vc):
                kc.index_copy_(2, where, k)
                vc.index_copy_(2, where, v)
                return F.scaled_dot_product_attention(q, kc, vc, attn_mask=seen)
            for i in range(LAYERS):
                x = self.block(i, x, attend)
            return self.head(x)

    class Entry(torch.nn.Module):
        """One graph of the model as a module's forward, for torch.compile."""

        def __init__(self, model, which):
            super().__init__()
            self.model, self.which = model, which

        def forward(self, *args):
            return getattr(self.model, self.which)(*args)

    return TorchGPT2, Entry


def fkc_run_bench(fkc_run, artifact, graph, batch, prompt):
    """fkc's time from C++ (fkc-run --bench: random inputs, up to 64 runs in
    flight), without Python's per-call cost of checking ~220 tensors. An
    artifact whose batch is sized at run time runs at `batch`."""
    command = [fkc_run, artifact, "--graph", graph, "--bench",
               "--iterations", "300", "--warmup", "20"]
    if "_bB_" in os.path.basename(artifact):
        sizes = f"B={batch}"
        if graph == "prefill" and os.path.basename(artifact).endswith("_pS.ptx"):
            sizes += f",S={prompt}"
        command += ["--sizes", sizes]
    text = subprocess.run(command, check=True, capture_output=True,
                          text=True).stdout
    m = re.search(r"median ([0-9.]+) ms, min ([0-9.]+) ms", text)
    return {"median_s": float(m.group(1)) / 1e3, "min_s": float(m.group(2)) / 1e3}


def run_config(torch, fkrt, args, path, batch, prompt, weights, results):
    TorchGPT2, Entry = make_model_class(torch)
    device = weights["transformer_wte_weight"].device
    model = TorchGPT2(weights, batch)
    g = torch.Generator(device="cpu").manual_seed(batch * 7919 + prompt)
    ids_prompt = torch.randint(0, VOCAB, (batch, prompt), generator=g).to(device)
    ids_next = torch.randint(0, VOCAB, (batch, 1), generator=g).to(device)
    # The decode step's position: after the prompt, or the cache's last.
    pos = torch.tensor(min(prompt, POSITIONS - 1), dtype=torch.int32, device=device)
    caches = {f"{kv}{i}": getattr(model, f"{kv}{i}") for i in range(LAYERS)
              for kv in "kv"}
    tensors = dict(weights, **caches)
    variants = [("fkc", path)]
    variant = path.replace(".ptx", "_variant.ptx")
    if os.path.exists(variant):
        variants.append(("fkc variant", variant))
    # The one artifact of every batch (B sized at run time), at this batch.
    any_batch = os.path.join(os.path.dirname(path), f"gpt2_bB_p{prompt}.ptx")
    if os.path.exists(any_batch):
        variants.append((ANY_BATCH, any_batch))
    # The one artifact of every batch and prompt length.
    any_size = os.path.join(os.path.dirname(path), "gpt2_bB_pS.ptx")
    if os.path.exists(any_size):
        variants.append((ANY_SIZE, any_size))
    budget = 0.5 if args.quick else 2.0
    config = f"batch {batch}, prompt {prompt}"

    def record(graph, peer, timing, **extra):
        entry = {"config": config, "batch": batch, "prompt": prompt,
                 "graph": graph, "peer": peer}
        entry.update(timing)
        entry.update(extra)
        results.append(entry)
        print(f"  {graph:8s} {peer:28s} {timing.get('median_s', float('nan')) * 1e3:9.4f} ms"
              + (f"  {extra}" if extra else ""), flush=True)

    print(f"{config}:", flush=True)
    with torch.no_grad():
        # Reference: eager prefill then one decode step, caches saved at
        # each point so that every fkc run starts from the same contents.
        for c in caches.values():
            c.zero_()
        ref_prefill = model.prefill(ids_prompt)
        after_prefill = {n: c.clone() for n, c in caches.items()}
        ref_decode = model.decode(ids_next, pos)
        after_decode = {n: c.clone() for n, c in caches.items()}

        # The weights are bound to the module once, as an application does
        # (fkrt bind_weights): a call passes the ids, the position and the
        # caches only.
        for label, artifact in variants:
            module = fkrt.Module(artifact)
            module.load_cuda()
            for graph in ("prefill", "decode"):
                module.bind_weights(graph, args.weights_file)
            for c in caches.values():
                c.zero_()
            tensors["ids"] = ids_prompt
            prefill = FkcGraph(torch, module, "prefill", tensors)
            logits = prefill().clone()
            err_p = rel_l2(torch, logits, ref_prefill)
            err_pc = max(rel_l2(torch, caches[n], after_prefill[n]) for n in caches)
            for n, c in caches.items():
                c.copy_(after_prefill[n])
            tensors["ids"], tensors["pos"] = ids_next, pos
            decode = FkcGraph(torch, module, "decode", tensors)
            logits = decode().clone()
            err_d = rel_l2(torch, logits, ref_decode)
            err_dc = max(rel_l2(torch, caches[n], after_decode[n]) for n in caches)
            agree = (logits.argmax(-1) == ref_decode.argmax(-1)).float().mean().item()
            ok = max(err_p, err_pc, err_d, err_dc) < 2e-2
            check = {"rel_l2_prefill_logits": err_p, "rel_l2_prefill_caches": err_pc,
                     "rel_l2_decode_logits": err_d, "rel_l2_decode_caches": err_dc,
                     "decode_argmax_agreement": agree, "ok": ok}
            print(f"  {label}: check {json.dumps(check)}", flush=True)
            if not ok:
                results.append({"config": config, "peer": label, "check": check,
                                "error": "outputs differ from eager"})
                continue
            # Timing: the decode step rewrites the same position each call.
            record("prefill", label, time_calls(torch, prefill, budget), check=check)
            record("decode", label, time_calls(torch, decode, budget), check=check)
            module.close()
            if label in ("fkc", ANY_BATCH, ANY_SIZE) and args.fkc_run:
                for graph in ("prefill", "decode"):
                    record(graph, f"{label} (fkc-run --bench)",
                           fkc_run_bench(args.fkc_run, artifact, graph, batch,
                                         prompt))

        record("prefill", "PyTorch eager",
               time_calls(torch, lambda: model.prefill(ids_prompt), budget))
        record("decode", "PyTorch eager",
               time_calls(torch, lambda: model.decode(ids_next, pos), budget))
        for which, call_args in (("prefill", (ids_prompt,)),
                                 ("decode", (ids_next, pos))):
            torch._dynamo.reset()
            compiled = torch.compile(Entry(model, which), mode="reduce-overhead",
                                     fullgraph=True)
            t0 = time.perf_counter()
            out = compiled(*call_args)
            torch.cuda.synchronize()
            compile_s = time.perf_counter() - t0
            # Its first results, from the caches eager left, must match eager.
            timing = time_calls(torch, lambda: compiled(*call_args), budget)
            record(which, "torch.compile (CUDA graphs)", timing,
                   compile_s=round(compile_s, 1))
            del compiled, out


def median_of(results, config, graph, peer):
    """The median time recorded for `peer` on `graph` of `config`, or None."""
    for r in results:
        if (r.get("config"), r.get("graph"), r.get("peer")) == (config, graph, peer) \
                and "median_s" in r:
            return r["median_s"]
    return None


def peer_ratio(results, config, graph, peer):
    fkc, other = (median_of(results, config, graph, p) for p in ("fkc", peer))
    if fkc is None or other is None:
        return None
    return other / fkc


def write_report(out, results, device, commit):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "gpt2-inference.json"), "w") as f:
        json.dump({"device": device, "commit": commit, "results": results}, f, indent=1)
    lines = [f"# GPT-2 small inference ({device}, fkc {commit})", "",
             "`python3 bench/gpt2_inference/run.py` over `bash bench/gpt2_inference/compile.sh`: "
             "median time per call (ms), up to 32 calls in flight; f16, 12 layers, "
             "caches of 1024 positions, vocabulary 50257. Decode: one token per sequence "
             "at position = prompt length. Speed-up: the peer's time over fkc's.", "",
             "fkc is timed from Python (fkrt, the weights bound once with bind_weights) "
             "and from C++ (`fkc-run --bench`, every input passed); the "
             "speed-ups use the Python figure, as the peers are timed from Python.", "",
             "fkc, B at run time: the one artifact compiled with the batch "
             "symbolic (`--batch B`, at most 16), serving every batch. "
             "fkc, B and S at run time: the one artifact compiled with the "
             "batch and the prompt length symbolic (`--batch B --prompt S`, "
             "at most 16 and 1024), serving every configuration.", "",
             "| config | graph | fkc | fkc (fkc-run) | fkc, B at run time | "
             "fkc, B at run time (fkc-run) | fkc, B and S at run time | "
             "fkc, B and S at run time (fkc-run) | fkc variant | PyTorch eager | "
             "torch.compile | vs eager | vs torch.compile |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    configs = []
    for r in results:
        if r.get("config") not in configs:
            configs.append(r.get("config"))
    for config in configs:
        for graph in ("prefill", "decode"):
            def t(peer):
                x = median_of(results, config, graph, peer)
                return "-" if x is None else "%.4f" % (x * 1e3)

            def ratio(peer):
                x = peer_ratio(results, config, graph, peer)
                return "-" if x is None else "%.2fx" % x
            lines.append(f"| {config} | {graph} | {t('fkc')} | {t('fkc (fkc-run --bench)')} | "
                         f"{t(ANY_BATCH)} | {t(ANY_BATCH + ' (fkc-run --bench)')} | "
                         f"{t(ANY_SIZE)} | {t(ANY_SIZE + ' (fkc-run --bench)')} | "
                         f"{t('fkc variant')} | "
                         f"{t('PyTorch eager')} | {t('torch.compile (CUDA graphs)')} | "
                         f"{ratio('PyTorch eager')} | {ratio('torch.compile (CUDA graphs)')} |")
    errors = [r for r in results if "error" in r]
    if errors:
        lines += ["", "Failures:", ""] + [f"- {r['config']} {r.get('peer', '')}: {r['error']} "
                                          f"{json.dumps(r.get('check'))}" for r in errors]
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "gpt2-inference.md"), "w") as f:
        f.write(text)
    print(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifacts", default=os.path.join(REPO, "build", "gpt2-artifacts"))
    parser.add_argument("--out", default=os.environ.get("OUT") or os.path.join(
        REPO, "bench", "results", "gpt2-inference"))
    parser.add_argument("--quick", action="store_true", help="shorter timing")
    parser.add_argument("--fkc-run", default=os.path.join(REPO, "build-device", "bin", "fkc-run"),
                        help="fkc-run, to time fkc from C++ too ('' to skip)")
    parser.add_argument("--configs", default="",
                        help="regular expression over artifact names (gpt2_b1_p128, ...)")
    args = parser.parse_args()
    import torch
    import fkrt
    device = torch.cuda.get_device_name(0)
    try:
        commit = open(os.path.join(args.artifacts, "COMMIT")).read().strip()
    except OSError:
        commit = "unknown"
    weights = make_weights(torch, torch.device("cuda"), seed=0)
    # The same weights as a file, for fkrt's bind_weights.
    from safetensors.torch import save_file
    args.weights_file = os.path.join(tempfile.mkdtemp(), "gpt2.safetensors")
    save_file({n: t.cpu() for n, t in weights.items()}, args.weights_file)
    results = []
    names = sorted(f for f in os.listdir(args.artifacts)
                   if re.fullmatch(r"gpt2_b\d+_p\d+\.ptx", f))
    for name in names:
        if args.configs and not re.search(args.configs, name):
            continue
        batch, prompt = map(int, re.findall(r"\d+", name)[1:3])
        try:
            run_config(torch, fkrt, args, os.path.join(args.artifacts, name),
                       batch, prompt, weights, results)
        except Exception as e:  # a failed configuration is reported, not fatal
            results.append({"config": f"batch {batch}, prompt {prompt}",
                            "error": f"{type(e).__name__}: {e}"})
            print(f"  failed: {type(e).__name__}: {e}", flush=True)
        write_report(args.out, results, device, commit)


if __name__ == "__main__":
    main()
