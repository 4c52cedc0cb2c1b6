#!/usr/bin/env python3
"""Checks fkc's greedy generation against transformers' on the GPU: GPT-2
with random weights, 64 new tokens, token for token.

    .venv/bin/python examples/generate/check_gpu.py export [OUT]
        (here, with fkc: for GPT-2 and a Llama-style model, OUT/NAME-config.json
        and OUT/NAME-DTYPE-bB.ptx compiled from scripts/gpt2_inference_graph.py's
        and scripts/llama_inference_graph.py's graphs for that config, a
        prompt of 32 tokens at batch 1 and 4, f16 and f32, and for GPT-2
        OUT/gpt2-DTYPE-any.ptx, its batch (up to 4) and prompt length
        sized at run time, which runs those prompts and one of 3 x 7;
        default build/generate-gpu)
    python3 examples/generate/check_gpu.py run [OUT] [--cpp BIN]
        (on the GPU machine: torch, transformers, safetensors and the
        runtime library, FKRT_LIBRARY; no compiler)

`run` builds transformers' GPT2LMHeadModel (and LlamaForCausalLM: class
Llama below) from its config with
torch.manual_seed(SEED), in f16 on cuda, writes its weights under the
graphs' names (OUT/NAME-weights-DTYPE.safetensors), and for each artifact draws
prompts of its batch and length, runs `model.generate(do_sample=False,
max_new_tokens=64)` and generate.py's loop over the artifact (and the C++
loop, `--cpp` gpt2-generate built from examples/generate). It prints
whether the tokens are equal (else the first position that differs and
transformers' gap between its two best logits there), how far below
transformers' best logit any token fkc chose lies (transformers run once
over fkc's whole sequence: 0 for a greedy choice), the prefill logits'
relative L2 error, and the milliseconds per new token of each. Exits 1 if
a chosen token lies more than TIE = 0.05 below the best (not a near tie)
or the logits' error is over 2e-2.

The weights are drawn with initializer_range 0.05, not GPT-2's 0.02: at
0.02 greedy decoding of the random model settles on one token repeated (2
or 3 distinct tokens in 64), which would hide bugs; at 0.05 it generates
about 30 distinct tokens of 64 and the median gap between the two best
logits is 0.2 of the logits' spread (1.4). Still, 64 greedy steps through
12 layers in f16 meet near ties: on the CPU, transformers' own f16 and f32
models part after 28 tokens on the batch-1 prompt and after 11 on one of
batch 4's. So exact equality is reported, and correctness is judged per
token against transformers' logits on fkc's own sequence, which a near tie
does not disturb.

The same check runs in f32 too (the graphs written with --dtype f32, the
transformers model in f32 with TF32 off): there rounding differs far below
the logits' gaps, so f32 runs must match transformers token for token
(a mismatch fails unless transformers' own top-2 gap there is under
F32_TIE).
"""
import argparse
import json
import os
import subprocess
import sys
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import transformers  # noqa: E402

import gpt2_inference_graph as gpt2_graph  # noqa: E402
import llama_inference_graph as llama_graph  # noqa: E402

SEED, PROMPT, NEW_TOKENS, BATCHES = 0, 32, 64, (1, 4)
INITIALIZER_RANGE = 0.05
TOLERANCE = 2e-2
# A token whose logit is within TIE of the best is a near tie in f16 (the
# logits here are up to about 8, where f16's spacing is 2^-8 = 0.004, and
# the two implementations round differently through 12 layers).
TIE = 0.05
F32_TIE = 1e-4
DTYPES = ("f16", "f32")

transformers.logging.set_verbosity_error()


class Gpt2:
    """GPT-2 small's sizes; bos/eos/pad 0 (generation stops at no token:
    the check sets eos_token_id to None)."""
    name, model_class = "gpt2", "GPT2LMHeadModel"

    def config(self):
        return transformers.GPT2Config(initializer_range=INITIALIZER_RANGE,
                                       bos_token_id=0, eos_token_id=0,
                                       pad_token_id=0)

    def sizes(self, config_path, batch, dtype, prompt=PROMPT):
        with open(config_path) as f:
            return gpt2_graph.sizes_from_config(json.load(f), prompt, batch, dtype,
                                                max_batch=max(BATCHES))

    def any_size(self, config_path, dtype):
        """The sizes of the graphs whose batch and prompt length are sized at
        run time (one artifact for every prompt)."""
        return self.sizes(config_path, "B", dtype, prompt="S")

    def graph(self, sizes):
        return gpt2_graph.graph_file(sizes)

    def save_weights(self, sizes, state_dict, path):
        gpt2_graph.save_weights(sizes, state_dict, path)

    def describe(self, cfg):
        return f"{cfg.n_layer} layers, d {cfg.n_embd}, vocabulary {cfg.vocab_size}"


class Llama:
    """A Llama-architecture model of about 100M parameters: 8 layers, hidden
    1024, 16 heads of 64 sharing 4 key/value heads (GQA), SwiGLU, RMSNorm,
    RoPE, an untied LM head over 32000 words; caches of 128 positions."""
    name, model_class = "llama", "LlamaForCausalLM"

    def config(self):
        return transformers.LlamaConfig(
            num_hidden_layers=8, hidden_size=1024, intermediate_size=2816,
            num_attention_heads=16, num_key_value_heads=4, vocab_size=32000,
            max_position_embeddings=128, initializer_range=INITIALIZER_RANGE,
            bos_token_id=0, eos_token_id=0, pad_token_id=0)

    def sizes(self, config_path, batch, dtype):
        return llama_graph.sizes(config_path, PROMPT, batch, dtype)

    def graph(self, sizes):
        return llama_graph.graph_file(sizes)

    def save_weights(self, sizes, state_dict, path):
        llama_graph.save_weights(sizes, state_dict, path)

    def describe(self, cfg):
        return (f"{cfg.num_hidden_layers} layers, hidden {cfg.hidden_size}, "
                f"{cfg.num_attention_heads} heads, {cfg.num_key_value_heads} "
                f"key/value heads, vocabulary {cfg.vocab_size}")


MODELS = (Gpt2(), Llama())


def export(out):
    fkc = os.environ.get("FKC", os.path.join(REPO, "build", "bin", "fkc"))
    os.makedirs(out, exist_ok=True)
    for m in MODELS:
        config_path = os.path.join(out, f"{m.name}-config.json")
        with open(config_path, "w") as f:
            json.dump(m.config().to_dict(), f, indent=1)
        for dtype in DTYPES:
            for batch in BATCHES:
                base = os.path.join(out, f"{m.name}-{dtype}-b{batch}")
                with open(base + ".graph", "w") as f:
                    f.write(m.graph(m.sizes(config_path, batch, dtype)))
                subprocess.run([fkc, base + ".graph", "-o", base + ".ptx"],
                               check=True)
                print(f"{base}.ptx: prefill of {PROMPT} tokens, batch {batch}, "
                      f"{dtype}")
            if hasattr(m, "any_size"):
                base = os.path.join(out, f"{m.name}-{dtype}-any")
                with open(base + ".graph", "w") as f:
                    f.write(m.graph(m.any_size(config_path, dtype)))
                subprocess.run([fkc, base + ".graph", "-o", base + ".ptx"],
                               check=True)
                print(f"{base}.ptx: batch and prompt length at run time, {dtype}")


def timed(fn, repeats=3):
    """fn's result and its best wall time in seconds (after one warm-up)."""
    fn()
    best, result = float("inf"), None
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        result = fn()
        torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return result, best


def first_mismatch(tokens, reference):
    """(sequence, position) of the first differing token, or None."""
    differ = (tokens != reference).nonzero()
    if not len(differ):
        return None
    position = int(differ[:, 1].min())
    return int(differ[differ[:, 1] == position][0, 0]), position


def greedy_deficit(model, prompt, tokens):
    """How far, at worst, a generated token's logit lies below the best
    logit of transformers' model on the same sequence (prompt, then the
    tokens): 0 for greedy choices, small for near ties."""
    sequence = torch.cat([prompt, tokens[:, :-1]], dim=1).cuda()
    with torch.no_grad():
        logits = model(sequence).logits[:, prompt.shape[1] - 1:].float()
    chosen = logits.gather(-1, tokens.cuda().unsqueeze(-1)).squeeze(-1)
    return float((logits.max(-1).values - chosen).max())


def check(out, cpp):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    failures = runs = equal_runs = 0
    for m in MODELS:
        for dtype in DTYPES:
            f, r, e = check_dtype(out, cpp, m, dtype)
            failures, runs, equal_runs = failures + f, runs + r, equal_runs + e
    print(f"generate: {equal_runs} of {runs} runs token for token equal to "
          f"transformers'; {failures} failures")
    return 1 if failures else 0


def check_dtype(out, cpp, m, dtype):
    import generate

    config_path = os.path.join(out, f"{m.name}-config.json")
    model_class = getattr(transformers, m.model_class)
    with open(config_path) as f:
        cfg = model_class.config_class.from_dict(json.load(f))
    torch.manual_seed(SEED)
    model = model_class(cfg).eval()
    model = (model.half() if dtype == "f16" else model.float()).cuda()
    model.generation_config.eos_token_id = None  # always NEW_TOKENS tokens
    weights = os.path.join(out, f"{m.name}-weights-{dtype}.safetensors")
    m.save_weights(m.sizes(config_path, 1, dtype), model.state_dict(), weights)
    print(f"# {m.model_class} {m.describe(cfg)}, initializer_range "
          f"{cfg.initializer_range}, {dtype}, on "
          f"{torch.cuda.get_device_name()} (torch {torch.__version__}, transformers "
          f"{transformers.__version__}); {NEW_TOKENS} new tokens after {PROMPT}")
    failures, runs, equal_runs = 0, 0, 0
    # (label, artifact, batch, prompt length): each batch's own artifact,
    # then the one of every size (GPT-2) at those prompts and another.
    cases = [(f"b{batch}", os.path.join(out, f"{m.name}-{dtype}-b{batch}.ptx"),
              batch, PROMPT) for batch in BATCHES]
    any_size = os.path.join(out, f"{m.name}-{dtype}-any.ptx")
    if os.path.exists(any_size):
        cases += [(f"any b{batch} p{length}", any_size, batch, length)
                  for batch, length in [(b, PROMPT) for b in BATCHES] + [(3, 7)]]
    for label, artifact, batch, length in cases:
        prompt = torch.randint(0, cfg.vocab_size, (batch, length),
                               generator=torch.Generator().manual_seed(batch))
        ids = prompt.cuda()

        def hf_generate():
            with torch.no_grad():
                return model.generate(ids, attention_mask=torch.ones_like(ids),
                                      do_sample=False, max_new_tokens=NEW_TOKENS,
                                      pad_token_id=0, output_scores=True,
                                      return_dict_in_generate=True)
        reference, hf_seconds = timed(hf_generate)
        expected = reference.sequences[:, length:].cpu()
        steps = generate.GpuSteps(artifact, weights)
        generate.check_prompt(prompt, steps.prefill, NEW_TOKENS)
        tokens, fk_seconds = timed(lambda: steps.generate(prompt, NEW_TOKENS))
        with torch.no_grad():
            logits = model(ids).logits.float()
        error = float((steps.prefill_logits.float() - logits).norm() / logits.norm())
        results = [("fkc (Python)", tokens, fk_seconds)]
        if cpp:
            text = ";".join(" ".join(map(str, row)) for row in prompt.tolist())
            env = dict(os.environ)
            if "FKRT_LIBRARY" in env:
                env["LD_LIBRARY_PATH"] = os.path.dirname(env["FKRT_LIBRARY"]) + \
                    os.pathsep + env.get("LD_LIBRARY_PATH", "")
            start = time.perf_counter()
            done = subprocess.run([cpp, artifact, weights, text, str(NEW_TOKENS)],
                                  capture_output=True, text=True, env=env)
            seconds = time.perf_counter() - start
            if done.returncode != 0:
                print(f"{label} fkc (C++) failed: {done.stderr.strip()}")
                failures += 1
            else:
                cpp_tokens = torch.tensor([[int(t) for t in line.split()]
                                           for line in done.stdout.splitlines()])
                print(f"{label} fkc (C++) {done.stderr.strip()} "
                      f"(process {1e3 * seconds:.0f} ms with loading)")
                results.append(("fkc (C++)", cpp_tokens, None))
        print(f"{label} transformers generate {1e3 * hf_seconds / NEW_TOKENS:.3f} "
              f"ms per new token; prefill logits rel. L2 {error:.2e}")
        failures += error > TOLERANCE
        for name, got, seconds in results:
            timing = "" if seconds is None else \
                f", {1e3 * seconds / NEW_TOKENS:.3f} ms per new token"
            where = first_mismatch(got, expected)
            if where is None:
                equal = f"{NEW_TOKENS} of {NEW_TOKENS} tokens equal to transformers'"
            else:
                sequence, position = where
                top2 = reference.scores[position][sequence].float().topk(2).values
                gap = float(top2[0] - top2[1])
                equal = (f"sequence {sequence} differs first at new token {position} "
                         f"(fkc {int(got[sequence, position])}, transformers "
                         f"{int(expected[sequence, position])}; transformers' top-2 "
                         f"logit gap there {gap:.4f})")
                # In f32 only a true tie may part the two.
                failures += dtype == "f32" and gap >= F32_TIE
            runs += 1
            equal_runs += where is None
            deficit = greedy_deficit(model, prompt, got)
            failures += deficit > TIE
            print(f"{label} {name}: {equal}; each token's logit within "
                  f"{deficit:.4f} of transformers' best on fkc's sequence{timing}")
    return failures, runs, equal_runs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["export", "run"])
    parser.add_argument("out", nargs="?", default=os.path.join(REPO, "build", "generate-gpu"))
    parser.add_argument("--cpp", help="gpt2-generate (examples/generate) to check too")
    args = parser.parse_args()
    if args.mode == "export":
        export(args.out)
    else:
        sys.exit(check(args.out, args.cpp))


if __name__ == "__main__":
    main()
