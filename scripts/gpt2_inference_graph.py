#!/usr/bin/env python3
"""Writes a GPT-2 model for inference as one .graph file: a prefill graph
and a decode-step graph over key/value caches updated in place.

  examples/gpt2_inference.graph   GPT-2 small: 12 layers, d_model 768,
                                  12 heads of 64, MLP 3072, vocabulary
                                  50257, 1024 positions, prompt of 128

Graphs of the file (each an entry point of the artifact), in the
convention of examples/generate (a generation loop that knows no model):

  prefill(ids: i64[B, T], k0..: inout, v0..: inout, weights)
      (T is --prompt: a number, or a name for a prompt sized at run time,
      `where 1 <= T <= positions`)
      -> logits [B, T, V], next: i64[B, 1], the caches
      the prompts' logits and the greedy next token (the argmax of the last
      position's logits); writes the prompt's keys and values into the
      caches at positions 0..T-1
  decode(ids: i64[B, 1], pos: i32[], k0..: inout, v0..: inout, weights)
      -> logits [B, 1, V], next: i64[B, 1], the caches
      the logits of the tokens at position `pos` and the next tokens;
      writes their keys and values at `pos` and attends to the cache's
      positions 0..pos (a boolean mask)
  prefill_layer, decode_layer: one layer of each, called per layer

The weights are the parameters of transformers' GPT2LMHeadModel, named as
fkc's importer names its state_dict keys (python/fkc/names.py:
`transformer.h.0.attn.c_attn.weight` is `transformer_h_0_attn_c_attn_weight`),
in its layout: the Conv1D weights are [in, out] (x @ W + b), c_attn holds
the queries, keys and values side by side ([d, 3d], sliced), the LM head is
the token embedding transposed (tied), so `lm_head.weight` is no parameter.
`weights_from_state_dict` (below) gives the tensors of a model under those
names, `save_weights` writes them to a .safetensors file. The caches are [B, heads, positions, head_dim] per layer.

Sizes come from the options or from a transformers GPT2Config saved as JSON
(--config config.json; options given as well override it). A smaller model
of the same structure (for tests):

  python3 scripts/gpt2_inference_graph.py --layers 2 --d-model 64 \\
      --heads 2 --mlp 128 --vocab 300 --positions 32 --prompt 16 --out FILE
"""
import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from state_dict_graphs import legalize, signature  # noqa: E402
import state_dict_graphs  # noqa: E402


class Sizes:
    def __init__(self, layers, d, heads, mlp, vocab, positions, prompt,
                 batch=1, eps=1e-5, dtype="f16", max_batch=None):
        self.layers, self.d, self.heads, self.batch = layers, d, heads, batch
        # A batch given as a name is a symbolic dimension, sized at run
        # time, at most max_batch.
        self.max_batch = max_batch
        self.head_dim, self.mlp, self.vocab = d // heads, mlp, vocab
        self.positions, self.prompt = positions, prompt
        self.eps, self.dtype = eps, dtype

    def where(self, decode):
        """A graph's bounds on its symbols ("" if it has none): a symbolic
        batch's, and a symbolic prompt's (prefill): at least one token, at
        most the positions."""
        bounds = []
        if not isinstance(self.batch, int):
            bounds.append(f"{self.batch} <= {self.max_batch}")
        if not decode and not isinstance(self.prompt, int):
            bounds.append(f"1 <= {self.prompt} <= {self.positions}")
        return ", ".join(bounds)

    def typ(self, shape):
        return self.dtype + "[" + ", ".join(map(str, shape)) + "]"

    def cache(self):
        return self.typ([self.batch, self.heads, self.positions,
                         self.head_dim])

    def layer_params(self):
        """The parameters of one block, named after their state_dict keys
        below `transformer.h.<i>.`, in GPT2Block's order."""
        d, m = self.d, self.mlp
        return [("ln_1.weight", [d]), ("ln_1.bias", [d]),
                ("attn.c_attn.weight", [d, 3 * d]), ("attn.c_attn.bias", [3 * d]),
                ("attn.c_proj.weight", [d, d]), ("attn.c_proj.bias", [d]),
                ("ln_2.weight", [d]), ("ln_2.bias", [d]),
                ("mlp.c_fc.weight", [d, m]), ("mlp.c_fc.bias", [m]),
                ("mlp.c_proj.weight", [m, d]), ("mlp.c_proj.bias", [d])]

    def model_params(self):
        """Every weight of the model graphs as (state_dict key, shape)."""
        params = [("transformer.wte.weight", [self.vocab, self.d]),
                  ("transformer.wpe.weight", [self.positions, self.d])]
        for i in range(self.layers):
            params += [(f"transformer.h.{i}.{key}", shape)
                       for key, shape in self.layer_params()]
        params += [("transformer.ln_f.weight", [self.d]),
                   ("transformer.ln_f.bias", [self.d])]
        return params


def sizes_from_config(config, prompt, batch=1, dtype="f16", max_batch=None):
    """Sizes of a transformers GPT2Config (its to_dict(), or config.json)."""
    if config.get("activation_function", "gelu_new") != "gelu_new":
        raise ValueError("only GPT-2's activation_function 'gelu_new' (gelu "
                         "with the tanh approximation) is written, not "
                         f"{config['activation_function']!r}")
    for flag in ("scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn"):
        if config.get(flag):
            raise ValueError(f"the config's {flag} is not supported")
    missing = [k for k in ("n_layer", "n_embd", "n_head", "vocab_size",
                           "n_positions") if k not in config]
    if missing:
        raise ValueError("the config lacks " + ", ".join(missing))
    d = config["n_embd"]
    return Sizes(config["n_layer"], d, config["n_head"],
                 config.get("n_inner") or 4 * d, config["vocab_size"],
                 config["n_positions"], prompt, batch,
                 config.get("layer_norm_epsilon", 1e-5), dtype, max_batch)


def weights_from_state_dict(sizes, state_dict):
    """{graph parameter: tensor} of a GPT2LMHeadModel's state_dict: every
    weight of the graphs, named by fkc.names.legalize; the tied
    `lm_head.weight` is the token embedding itself and not a parameter."""
    return state_dict_graphs.weights_from_state_dict(sizes.model_params(),
                                                     state_dict)


def save_weights(sizes, state_dict, path):
    """Writes weights_from_state_dict's tensors to the .safetensors file at
    `path`, with the map to the state_dict keys in its metadata as the
    importer writes it (docs/importer.md). Needs torch and safetensors."""
    state_dict_graphs.save_weights(sizes.model_params(), state_dict, path)


def layer(s, name, tokens, decode):
    """One decoder layer over `tokens` new tokens: it writes their keys and
    values into the caches (at 0 for the prompt, at `pos` when decoding)
    and attends to the cache."""
    hd, h, d = s.head_dim, s.heads, s.d
    b = s.batch
    split = f"shape=[{b}, {tokens}, {h}, {hd}]"
    params = [f"x: {s.typ([b, tokens, d])}"]
    if decode:
        params.append("pos: i32[]")
    params += [f"k_cache: inout {s.cache()}", f"v_cache: inout {s.cache()}"]
    params += [f"{legalize(n)}: {s.typ(shape)}" for n, shape in s.layer_params()]
    start = "[0, 0, pos, 0]" if decode else "[0, 0, 0, 0]"

    def heads(part):  # the queries (0), keys (1) or values (2) of c_attn
        return (f"transpose(reshape(slice(qkv, axis=2, start={part * d}, "
                f"stop={(part + 1) * d}), {split}), perm=[0, 2, 1, 3])")
    body = [
        f"h = layernorm(x, ln_1_weight, ln_1_bias, eps={s.eps!r})",
        "qkv = h @ attn_c_attn_weight + attn_c_attn_bias",
        f"q = {heads(0)}",
        f"k = {heads(1)}",
        f"v = {heads(2)}",
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
        f"shape=[{b}, {tokens}, {d}]) @ attn_c_proj_weight + attn_c_proj_bias)",
        f"h2 = layernorm(x1, ln_2_weight, ln_2_bias, eps={s.eps!r})",
        "m = gelu(h2 @ mlp_c_fc_weight + mlp_c_fc_bias, approximate=\"tanh\") "
        "@ mlp_c_proj_weight + mlp_c_proj_bias",
        "return x1 + m, k_cache = keys, v_cache = values",
    ]
    return (signature(name, params, s.where(decode))
            + ["  " + line for line in body] + ["}", ""])


def model(s, name, decode):
    tokens = 1 if decode else s.prompt
    params = [f"ids: i64[{s.batch}, {tokens}]"]
    if decode:
        params.append("pos: i32[]")
    for i in range(s.layers):
        params += [f"k{i}: inout {s.cache()}", f"v{i}: inout {s.cache()}"]
    params += [f"{legalize(key)}: {s.typ(shape)}" for key, shape in s.model_params()]
    if decode:
        positions = "reshape(pos, shape=[1, 1])"
    else:
        positions = f"iota(shape=[1, {tokens}], dim=1)"
    body = [f"x0 = gather(transformer_wte_weight, ids) + "
            f"gather(transformer_wpe_weight, {positions})"]
    results = []
    for i in range(s.layers):
        args = [f"x{i}"] + (["pos"] if decode else []) + [f"k{i}", f"v{i}"]
        args += [legalize(f"transformer.h.{i}.{key}") for key, _ in s.layer_params()]
        body.append(f"x{i + 1}, nk{i}, nv{i} = {name}_layer({', '.join(args)})")
        results += [f"k{i} = nk{i}", f"v{i} = nv{i}"]
    body += [
        f"hf = layernorm(x{s.layers}, transformer_ln_f_weight, "
        f"transformer_ln_f_bias, eps={s.eps!r})",
        "logits = hf @ transpose(transformer_wte_weight, perm=[1, 0])",
        # Greedy decoding's next token, so that a generation loop feeds it
        # back without copying the logits to the host.
        "next = cast(argmax(slice(logits, axis=1, start=-1), axis=-1), "
        "to=i64)",
        "return " + ", ".join(["logits", "next"] + results),
    ]
    return (layer(s, f"{name}_layer", tokens, decode)
            + signature(name, params, s.where(decode))
            + ["  " + line for line in body] + ["}", ""])


def graph_file(s):
    lines = [
        f"# GPT-2 ({s.layers} layers, d_model {s.d}, {s.heads} heads, MLP "
        f"{s.mlp}, vocabulary {s.vocab},",
        f"# {s.positions} positions, {s.dtype}) for inference: `prefill` runs "
        + (f"a prompt of {s.prompt} tokens,"
           if isinstance(s.prompt, int)
           else f"a prompt of {s.prompt} tokens (sized at run time),"),
        "# `decode` one token at position `pos`; both write the keys and "
        "values",
        "# they compute into the per-layer caches k0, v0, ... in place "
        "(inout),",
        "# and return the logits and the greedy next token `next`. The "
        "weights are",
        "# named after transformers' GPT2LMHeadModel state_dict keys.",
        "# Generated by scripts/gpt2_inference_graph.py.", ""]
    lines += model(s, "prefill", decode=False)
    lines += model(s, "decode", decode=True)
    return "\n".join(lines).rstrip("\n") + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="a transformers GPT2Config as JSON "
                        "(config.json): the model's sizes, which the size "
                        "options below override")
    parser.add_argument("--layers", type=int)
    parser.add_argument("--d-model", type=int)
    parser.add_argument("--heads", type=int)
    parser.add_argument("--mlp", type=int)
    parser.add_argument("--vocab", type=int)
    parser.add_argument("--positions", type=int)
    parser.add_argument("--prompt", default="128",
                        help="tokens of the prompt: a number, or a name "
                        "(such as S) for a prompt sized at run time, from 1 "
                        "to the positions")
    parser.add_argument("--batch", default="1",
                        help="sequences per call (every one at the same "
                        "position): a number, or a name (such as B) for a "
                        "batch sized at run time, at most --max-batch")
    parser.add_argument("--max-batch", type=int, default=16,
                        help="the bound of a batch sized at run time")
    parser.add_argument("--dtype", default="f16", choices=["f16", "bf16", "f32"],
                        help="of the weights, activations and caches")
    parser.add_argument("--out", help="the file to write (default: "
                        "examples/gpt2_inference.graph)")
    args = parser.parse_args()
    config = {"n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257,
              "n_positions": 1024}
    if args.config:
        try:
            with open(args.config) as f:
                config.update(json.load(f))
        except (OSError, ValueError) as e:
            parser.error(f"--config {args.config}: {e}")
    for option, key in (("layers", "n_layer"), ("d_model", "n_embd"),
                        ("heads", "n_head"), ("mlp", "n_inner"),
                        ("vocab", "vocab_size"), ("positions", "n_positions")):
        if getattr(args, option) is not None:
            config[key] = getattr(args, option)
    batch = int(args.batch) if args.batch.isdigit() else args.batch
    if not isinstance(batch, int) and not batch.isidentifier():
        parser.error(f"--batch {args.batch} is neither a number nor a name")
    prompt = int(args.prompt) if args.prompt.isdigit() else args.prompt
    if not isinstance(prompt, int) and not prompt.isidentifier():
        parser.error(f"--prompt {args.prompt} is neither a number nor a name")
    if isinstance(prompt, str) and prompt == batch:
        parser.error("--prompt and --batch name the same symbol")
    try:
        s = sizes_from_config(config, prompt, batch, args.dtype,
                              args.max_batch)
    except ValueError as e:
        parser.error(str(e))
    if s.d % s.heads:
        parser.error(f"d_model {s.d} is not a multiple of {s.heads} heads")
    if isinstance(s.prompt, int) and not 1 <= s.prompt <= s.positions:
        parser.error(f"the prompt of {s.prompt} tokens does not fit "
                     f"{s.positions} positions")
    out = args.out or os.path.join(REPO, "examples", "gpt2_inference.graph")
    with open(out, "w") as f:
        f.write(graph_file(s))


if __name__ == "__main__":
    main()
