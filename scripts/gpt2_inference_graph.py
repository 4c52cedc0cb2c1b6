#!/usr/bin/env python3
"""Writes a GPT-2 model for inference as one .graph file: a prefill graph
and a decode-step graph over key/value caches updated in place.

  examples/gpt2_inference.graph   GPT-2 small: 12 layers, d_model 768,
                                  12 heads of 64, MLP 3072, vocabulary
                                  50257, 1024 positions, prompt of 128

Graphs of the file (each an entry point of the artifact):

  prefill(ids: i64[B, T], k0..: inout, v0..: inout, weights)
      the prompts' logits [B, T, V]; writes the prompt's keys and values
      into the caches at positions 0..T-1
  decode(ids: i64[B, 1], pos: i32[], k0..: inout, v0..: inout, weights)
      the next tokens' logits [B, 1, V]; writes its key and value at `pos`
      and attends to the cache's positions 0..pos (a boolean mask)
  prefill_layer, decode_layer: one layer of each, called per layer

Token and position embeddings are gathers from the tables; the LM head is
tied to the token embedding. The caches are [B, 12, 1024, 64] per layer (B = --batch, 1 by default),
f16. A smaller model of the same structure (for tests):

  python3 scripts/gpt2_inference_graph.py --layers 2 --d-model 64 \\
      --heads 2 --mlp 128 --vocab 300 --positions 32 --prompt 16 --out FILE
"""
import argparse
import os


class Sizes:
    def __init__(self, layers, d, heads, mlp, vocab, positions, prompt,
                 batch=1):
        self.layers, self.d, self.heads, self.batch = layers, d, heads, batch
        self.head_dim, self.mlp, self.vocab = d // heads, mlp, vocab
        self.positions, self.prompt = positions, prompt

    def cache(self):
        return (f"f16[{self.batch}, {self.heads}, {self.positions}, "
                f"{self.head_dim}]")

    def layer_params(self):
        d, m = self.d, self.mlp
        return [("ln1_g", [d]), ("ln1_b", [d]), ("wq", [d, d]), ("bq", [d]),
                ("wk", [d, d]), ("bk", [d]), ("wv", [d, d]), ("bv", [d]),
                ("wo", [d, d]), ("bo", [d]), ("ln2_g", [d]), ("ln2_b", [d]),
                ("w_fc", [d, m]), ("b_fc", [m]), ("w_proj", [m, d]),
                ("b_proj", [d])]


def typ(shape):
    return "f16[" + ", ".join(map(str, shape)) + "]"


def signature(name, params):
    return ["graph " + name + "(" + (",\n" + " " * (len(name) + 7)).join(params)
            + ") {"]


def layer(s, name, tokens, decode):
    """One decoder layer over `tokens` new tokens: it writes their keys and
    values into the caches (at 0 for the prompt, at `pos` when decoding)
    and attends to the cache."""
    hd, h = s.head_dim, s.heads
    b = s.batch
    split = f"shape=[{b}, {tokens}, {h}, {hd}]"
    params = [f"x: f16[{b}, {tokens}, {s.d}]"]
    if decode:
        params.append("pos: i32[]")
    params += [f"k_cache: inout {s.cache()}", f"v_cache: inout {s.cache()}"]
    params += [f"{n}: {typ(shape)}" for n, shape in s.layer_params()]
    start = "[0, 0, pos, 0]" if decode else "[0, 0, 0, 0]"
    body = [
        "h = layernorm(x, ln1_g, ln1_b, eps=1e-5)",
        f"q = transpose(reshape(h @ wq + bq, {split}), perm=[0, 2, 1, 3])",
        f"k = transpose(reshape(h @ wk + bk, {split}), perm=[0, 2, 1, 3])",
        f"v = transpose(reshape(h @ wv + bv, {split}), perm=[0, 2, 1, 3])",
        f"keys = update_slice(k_cache, k, start={start})",
        f"values = update_slice(v_cache, v, start={start})",
    ]
    if decode:
        # The query at `pos` sees the cache's positions 0..pos.
        body += [
            f"scores = q @ transpose(keys, perm=[0, 1, 3, 2]) * {hd ** -0.5!r}",
            f"seen = le(iota(shape=[1, {s.positions}], dim=1), pos)",
            "p = softmax(select(seen, scores, -inf), axis=-1)",
            "a = p @ values",
        ]
    else:
        # The prompt attends causally to its own keys and values (the
        # caches hold nothing before them).
        body += [
            f"scores = q @ transpose(k, perm=[0, 1, 3, 2]) * {hd ** -0.5!r}",
            f"causal = le(iota(shape=[{tokens}, {tokens}], dim=1), "
            f"iota(shape=[{tokens}, {tokens}], dim=0))",
            "p = softmax(select(causal, scores, -inf), axis=-1)",
            "a = p @ v",
        ]
    body += [
        f"x1 = x + (reshape(transpose(a, perm=[0, 2, 1, 3]), "
        f"shape=[{b}, {tokens}, {s.d}]) @ wo + bo)",
        "h2 = layernorm(x1, ln2_g, ln2_b, eps=1e-5)",
        "m = gelu(h2 @ w_fc + b_fc, approximate=\"tanh\") @ w_proj + b_proj",
        "return x1 + m, k_cache = keys, v_cache = values",
    ]
    return signature(name, params) + ["  " + line for line in body] + ["}", ""]


def model(s, name, decode):
    tokens = 1 if decode else s.prompt
    params = [f"ids: i64[{s.batch}, {tokens}]"]
    if decode:
        params.append("pos: i32[]")
    for i in range(s.layers):
        params += [f"k{i}: inout {s.cache()}", f"v{i}: inout {s.cache()}"]
    params += [f"wte: f16[{s.vocab}, {s.d}]", f"wpe: f16[{s.positions}, {s.d}]"]
    for i in range(s.layers):
        params += [f"l{i}_{n}: {typ(shape)}" for n, shape in s.layer_params()]
    params += [f"lnf_g: f16[{s.d}]", f"lnf_b: f16[{s.d}]"]
    if decode:
        positions = "reshape(pos, shape=[1, 1])"
    else:
        positions = f"iota(shape=[1, {tokens}], dim=1)"
    body = [f"x0 = gather(wte, ids) + gather(wpe, {positions})"]
    results = []
    for i in range(s.layers):
        args = [f"x{i}"] + (["pos"] if decode else []) + [f"k{i}", f"v{i}"]
        args += [f"l{i}_{n}" for n, _ in s.layer_params()]
        body.append(f"x{i + 1}, nk{i}, nv{i} = {name}_layer({', '.join(args)})")
        results += [f"k{i} = nk{i}", f"v{i} = nv{i}"]
    body += [
        f"hf = layernorm(x{s.layers}, lnf_g, lnf_b, eps=1e-5)",
        "logits = hf @ transpose(wte, perm=[1, 0])",
        "return " + ", ".join(["logits"] + results),
    ]
    return (layer(s, f"{name}_layer", tokens, decode) + signature(name, params)
            + ["  " + line for line in body] + ["}", ""])


def graph_file(s):
    lines = [
        f"# GPT-2 ({s.layers} layers, d_model {s.d}, {s.heads} heads, MLP "
        f"{s.mlp}, vocabulary {s.vocab},",
        f"# {s.positions} positions) for inference: `prefill` runs a prompt "
        f"of {s.prompt} tokens,",
        "# `decode` one token at position `pos`; both write the keys and "
        "values",
        "# they compute into the per-layer caches k0, v0, ... in place "
        "(inout).",
        "# Generated by scripts/gpt2_inference_graph.py.", ""]
    lines += model(s, "prefill", decode=False)
    lines += model(s, "decode", decode=True)
    return "\n".join(lines).rstrip("\n") + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--d-model", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--mlp", type=int, default=3072)
    parser.add_argument("--vocab", type=int, default=50257)
    parser.add_argument("--positions", type=int, default=1024)
    parser.add_argument("--prompt", type=int, default=128)
    parser.add_argument("--batch", type=int, default=1,
                        help="sequences per call (every one at the same "
                        "position)")
    parser.add_argument("--out", help="the file to write (default: "
                        "examples/gpt2_inference.graph)")
    args = parser.parse_args()
    s = Sizes(args.layers, args.d_model, args.heads, args.mlp, args.vocab,
              args.positions, args.prompt, args.batch)
    out = args.out or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        "examples", "gpt2_inference.graph")
    with open(out, "w") as f:
        f.write(graph_file(s))


if __name__ == "__main__":
    main()
