#!/usr/bin/env python3
"""Greedy generation with an fkc artifact's prefill and decode graphs.

    python3 examples/generate/generate.py MODEL.ptx WEIGHTS.safetensors \\
        --prompt "464 3290 318 ..." [--new-tokens 64]
    python3 examples/generate/generate.py MODEL.ptx WEIGHTS.safetensors \\
        --prompt ... --interpret MODEL.graph      (on the CPU, for tests)

Prints the generated token ids, one line per sequence. The loop knows no
model, only this convention for the two graphs of the artifact:

  prefill(ids: i64[B, T], caches..., weights...)
      -> logits, next: i64[B, 1], the caches' new values
  decode(ids: i64[B, 1], pos: i32[], caches..., weights...)
      -> logits, next: i64[B, 1], the caches' new values

B and T may be symbols sized at run time (`--batch B --prompt S` of
scripts/gpt2_inference_graph.py): one artifact then serves every batch and
prompt length within its bounds, the caches' batch that of the prompt.

The caches are the inout parameters (the inputs that an output aliases,
docs/artifact.md), of any names and dtypes, their second-last axis the
position (GPT-2's and Llama's [B, heads, positions, head_dim]), zero before
the prompt; `next` is the greedy token (the argmax of the last position's
logits). Every other input is a weight, bound by name from the
.safetensors file (fkrt bind_weights). The prompt fills positions 0..T-1;
decode step i (from 0) feeds back the previous `next` at position T + i.
scripts/gpt2_inference_graph.py writes GPT-2 in this convention; nothing in
the loop is GPT-2's, so another decoder (a Llama) written with the same
parameters and results runs too (only GPT-2's graphs are tested).

On the GPU (fkrt), the tokens stay on the device: each step's `next` is
copied into the decode graph's ids and into the output, and only the
finished ids are copied to the host; every decode step runs on the same
buffers, so the runtime replays it as a CUDA graph. With --interpret, every
step is one `fkc --interpret` of MODEL.graph (the CPU reference
interpreter) on .safetensors files.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

import torch  # noqa: E402

import fkrt  # noqa: E402

PREFILL, DECODE = "prefill", "decode"
TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16,
                "bf16": torch.bfloat16, "i32": torch.int32,
                "i64": torch.int64, "i1": torch.bool}


class ConventionError(ValueError):
    """An artifact whose graphs do not follow the generation convention."""


def resolve(shape, sizes):
    """`shape` (ints, and symbolic dimensions' text such as "B" or "B*S")
    with the symbols' `sizes`."""
    result = []
    for dim in shape:
        if isinstance(dim, str):
            size = 1
            for factor in dim.split("*"):
                size *= int(factor) if factor.isdigit() else sizes[factor]
            dim = size
        result.append(dim)
    return tuple(result)


class StepSignature:
    """Where the convention's tensors are in one graph's inputs and
    outputs (from the artifact's manifest)."""

    def __init__(self, module, graph):
        self.module = module
        if graph not in module.graph_names():
            raise ConventionError(f"the artifact has no graph '{graph}' (it "
                                  f"has {', '.join(module.graph_names())})")
        self.graph = graph
        self.inputs = module.inputs(graph)
        self.outputs = module.outputs(graph)
        in_names = [i.name for i in self.inputs]
        out_names = [o.name for o in self.outputs]
        for name, names, role in (("ids", in_names, "input"),
                                  ("next", out_names, "result"),
                                  ("logits", out_names, "result")):
            if name not in names:
                raise ConventionError(f"graph '{graph}' has no {role} '{name}'")
        self.ids = in_names.index("ids")
        self.pos = in_names.index("pos") if "pos" in in_names else None
        self.next = out_names.index("next")
        self.logits = out_names.index("logits")
        # cache input index -> the output that is its new value
        self.cache_outputs = {o.aliases: j for j, o in enumerate(self.outputs)
                              if o.aliases is not None}
        self.caches = sorted(self.cache_outputs)
        self.weights = [i for i, info in enumerate(self.inputs)
                        if i != self.ids and i != self.pos
                        and i not in self.cache_outputs]
        if not self.outputs[self.logits].shape:
            raise ConventionError(f"graph '{graph}': logits has no vocabulary axis")
        ids, nxt = self.inputs[self.ids], self.outputs[self.next]
        if ids.dtype != "i64" or len(ids.shape) != 2:
            raise ConventionError(f"graph '{graph}': ids is {ids.type_text()}, "
                                  "expected i64[B, T]")
        if nxt.type_text() != f"i64[{ids.shape[0]}, 1]":
            raise ConventionError(f"graph '{graph}': next is {nxt.type_text()}, "
                                  f"expected i64[{ids.shape[0]}, 1]")

    @property
    def batch(self):
        return self.inputs[self.ids].shape[0]

    @property
    def tokens(self):
        return self.inputs[self.ids].shape[1]

    def sizes(self, prompt):
        """The graph's symbols' sizes for ids of `prompt`'s shape (its batch
        and, in prefill, its length), checked against their bounds."""
        sizes = {}
        for dim, size in zip(self.inputs[self.ids].shape, prompt.shape):
            if isinstance(dim, str):
                sizes[dim] = size
        bounds = self.module.symbols(self.graph)
        lower = self.module.symbol_lower_bounds(self.graph)
        for name, size in sizes.items():
            if name not in bounds:
                raise ConventionError(f"graph '{self.graph}': ids dimension "
                                      f"{name} is not a symbol by itself")
            if size < lower[name] or (bounds[name] is not None
                                      and size > bounds[name]):
                most = "" if bounds[name] is None else f" to {bounds[name]}"
                raise ConventionError(
                    f"the prompt makes {name} {size}; graph '{self.graph}' "
                    f"takes {lower[name]}{most}")
        return sizes


def signatures(module):
    """The prefill and decode signatures, checked against each other."""
    prefill, decode = StepSignature(module, PREFILL), StepSignature(module, DECODE)
    if prefill.pos is not None:
        raise ConventionError("graph 'prefill' takes no pos (the prompt starts at 0)")
    if decode.tokens != 1 or decode.pos is None:
        raise ConventionError("graph 'decode' takes ids: i64[B, 1] and pos: i32[]")
    if decode.inputs[decode.pos].type_text() != "i32[]":
        raise ConventionError("graph 'decode': pos is "
                              f"{decode.inputs[decode.pos].type_text()}, expected i32[]")
    if prefill.batch != decode.batch:
        raise ConventionError(f"prefill takes {prefill.batch} sequences, "
                              f"decode {decode.batch}")
    caches = lambda s: [(s.inputs[i].name, s.inputs[i].type_text())  # noqa: E731
                        for i in s.caches]
    if caches(prefill) != caches(decode):
        raise ConventionError("prefill and decode have different caches: "
                              f"{caches(prefill)} and {caches(decode)}")
    return prefill, decode


def check_prompt(prompt, prefill, new_tokens):
    """The prompt fits the prefill graph and its ids the vocabulary, and the
    generated sequence the caches (their second-last axis is the position,
    as in [B, heads, positions, head_dim])."""
    sizes = prefill.sizes(prompt)
    if tuple(prompt.shape) != resolve((prefill.batch, prefill.tokens), sizes):
        raise ConventionError(
            f"the prompt is {list(prompt.shape)} tokens; the prefill graph "
            f"takes [{prefill.batch}, {prefill.tokens}] (recompile for others)")
    vocabulary = prefill.outputs[prefill.logits].shape[-1]
    if prompt.numel() and not (0 <= int(prompt.min()) and int(prompt.max()) < vocabulary):
        raise ConventionError(f"the prompt's ids must lie in [0, {vocabulary}) (the "
                              "logits' last axis)")
    longest = prompt.shape[1] + new_tokens - 1
    for i in prefill.caches:
        cache = prefill.inputs[i]
        if len(cache.shape) < 2 or not isinstance(cache.shape[-2], int) \
                or cache.shape[-2] < longest:
            raise ConventionError(
                f"cache '{cache.name}' ({cache.type_text()}) does not hold "
                f"{longest} positions on its second-last axis")


class GpuSteps:
    """The two graphs through fkrt, weights bound once, on CUDA device
    `device`; tensors stay on the device."""

    def __init__(self, artifact, weights, device=0):
        self.module = fkrt.Module(artifact)
        self.prefill, self.decode = signatures(self.module)
        self.device = torch.device("cuda", device)
        for graph in (PREFILL, DECODE):
            self.module.bind_weights(graph, weights, device)
        self.pos = torch.zeros((), dtype=torch.int32, device=self.device)
        self.batch = None

    def _allocate(self, sizes):
        """The caches, the decode step's ids and outputs for a batch (their
        shapes with `sizes`), allocated once per batch so that every decode
        step runs on the same buffers (a CUDA graph replay)."""
        batch = resolve((self.prefill.batch,), sizes)[0]
        if batch == self.batch:
            return
        self.batch = batch
        self.caches = [torch.zeros(resolve(self.prefill.inputs[i].shape, sizes),
                                   dtype=TORCH_DTYPES[self.prefill.inputs[i].dtype],
                                   device=self.device)
                       for i in self.prefill.caches]
        self.ids = torch.zeros((batch, 1), dtype=torch.int64, device=self.device)
        self.decode_outputs = self._outputs(self.decode, sizes)

    def _outputs(self, sig, sizes):
        outputs = []
        for j, info in enumerate(sig.outputs):
            if info.aliases is not None:
                outputs.append(self.caches[sig.caches.index(info.aliases)])
            else:
                outputs.append(torch.empty(resolve(info.shape, sizes),
                                           dtype=TORCH_DTYPES[info.dtype],
                                           device=self.device))
        return outputs

    def _inputs(self, sig, ids, pos=None):
        values = {sig.ids: ids}
        if pos is not None:
            values[sig.pos] = pos
        for k, i in enumerate(sig.caches):
            values[i] = self.caches[k]
        return [values[i] for i in range(len(sig.inputs)) if i in values]

    def generate(self, prompt, new_tokens):
        """[B, new_tokens] ids, greedy, after the prompt [B, T]."""
        sizes = self.prefill.sizes(prompt)
        self._allocate(sizes)
        for cache in self.caches:
            cache.zero_()
        batch, tokens = prompt.shape
        out = torch.empty((batch, new_tokens), dtype=torch.int64,
                          device=self.device)
        prompt = prompt.to(self.device)
        result = self.module.run(PREFILL, self._inputs(self.prefill, prompt),
                                 self._outputs(self.prefill, sizes))
        self.prefill_logits = result[self.prefill.logits]  # for checks
        self.ids.copy_(result[self.prefill.next])
        out[:, 0:1].copy_(self.ids)
        for i in range(1, new_tokens):
            self.pos.fill_(tokens + i - 1)
            self.module.run(DECODE, self._inputs(self.decode, self.ids, self.pos),
                            self.decode_outputs)
            self.ids.copy_(self.decode_outputs[self.decode.next])
            out[:, i:i + 1].copy_(self.ids)
        return out.cpu()


class InterpretedSteps:
    """The two graphs of MODEL.graph on the CPU reference interpreter
    (`fkc --interpret`), one process per step; the signatures come from the
    artifact compiled from it."""

    def __init__(self, artifact, weights, graph_file, fkc="fkc"):
        self.prefill, self.decode = signatures(fkrt.Module(artifact))
        self.weights, self.graph_file, self.fkc = weights, graph_file, fkc

    def _run(self, sig, folder, ids, caches, sizes, pos=None):
        """One step; `sizes` bind the file's symbols (the prompt's: the
        interpreter binds every graph of the file)."""
        from safetensors.torch import load_file, save_file
        bind = ["--bind", ",".join(f"{k}={v}" for k, v in sizes.items())] \
            if sizes else []
        tensors = {sig.inputs[sig.ids].name: ids.contiguous()}
        if pos is not None:
            tensors[sig.inputs[sig.pos].name] = torch.tensor(pos, dtype=torch.int32)
        for k, i in enumerate(sig.caches):
            tensors[sig.inputs[i].name] = caches[k]
        step_in = os.path.join(folder, "step.safetensors")
        step_out = os.path.join(folder, "out.safetensors")
        save_file(tensors, step_in)
        done = subprocess.run(
            [self.fkc, self.graph_file, "--interpret", "--graph", sig.graph,
             "--inputs", self.weights, "--inputs", step_in, "--outputs", step_out]
            + bind,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"fkc --interpret --graph {sig.graph} failed:\n"
                               + done.stderr)
        out = load_file(step_out)
        new_caches = [out[sig.outputs[sig.cache_outputs[i]].name] for i in sig.caches]
        return out[sig.outputs[sig.next].name], new_caches, out

    def generate(self, prompt, new_tokens, keep=None):
        """[B, new_tokens] ids, greedy, after the prompt [B, T]. `keep`, a
        list, receives each step's outputs by name (for tests)."""
        sizes = self.prefill.sizes(prompt)
        caches = [torch.zeros(resolve(self.prefill.inputs[i].shape, sizes),
                              dtype=TORCH_DTYPES[self.prefill.inputs[i].dtype])
                  for i in self.prefill.caches]
        tokens = []
        with tempfile.TemporaryDirectory() as folder:
            nxt, caches, out = self._run(self.prefill, folder, prompt, caches,
                                         sizes)
            for i in range(new_tokens):
                tokens.append(nxt)
                if keep is not None:
                    keep.append(out)
                if i + 1 == new_tokens:
                    break
                nxt, caches, out = self._run(self.decode, folder, nxt, caches,
                                             sizes, pos=prompt.shape[1] + i)
        return torch.cat(tokens, dim=1)


def parse_prompt(text):
    """Token ids: whitespace or commas between ids, ';' or newlines between
    sequences; `text` may name a file holding them."""
    if os.path.isfile(text):
        with open(text) as f:
            text = f.read()
    rows = [r for r in text.replace(";", "\n").splitlines() if r.strip()]
    ids = [[int(t) for t in r.replace(",", " ").split()] for r in rows]
    if not ids or any(len(r) != len(ids[0]) for r in ids):
        raise ValueError("the prompt needs one or more sequences of equal length")
    return torch.tensor(ids, dtype=torch.int64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artifact", help="the .ptx compiled by fkc")
    parser.add_argument("weights", help=".safetensors file of the weights, "
                        "named as the graphs' parameters")
    parser.add_argument("--prompt", required=True,
                        help="token ids ('1 2 3;4 5 6': two sequences), or a "
                        "file of them (one sequence a line)")
    parser.add_argument("--new-tokens", type=int, default=64)
    parser.add_argument("--device", type=int, default=0, help="CUDA device")
    parser.add_argument("--interpret", metavar="GRAPH",
                        help="run on the CPU reference interpreter: the "
                        ".graph file the artifact was compiled from")
    parser.add_argument("--fkc", default=os.environ.get("FKC", "fkc"),
                        help="the fkc binary for --interpret (default $FKC)")
    parser.add_argument("--time", action="store_true",
                        help="also print the milliseconds per new token")
    args = parser.parse_args()
    if args.new_tokens < 1:
        parser.error("--new-tokens must be at least 1")
    try:
        prompt = parse_prompt(args.prompt)
        if args.interpret:
            steps = InterpretedSteps(args.artifact, args.weights, args.interpret,
                                     args.fkc)
        else:
            steps = GpuSteps(args.artifact, args.weights, args.device)
        check_prompt(prompt, steps.prefill, args.new_tokens)
        start = time.perf_counter()
        tokens = steps.generate(prompt, args.new_tokens)
        elapsed = time.perf_counter() - start
    except (ConventionError, ValueError, fkrt.Error, RuntimeError) as e:
        sys.exit(f"generate.py: error: {e}")
    for row in tokens.tolist():
        print(" ".join(map(str, row)))
    sys.stdout.flush()
    if args.time:
        print(f"{1e3 * elapsed / args.new_tokens:.3f} ms per new token",
              file=sys.stderr)


if __name__ == "__main__":
    main()
