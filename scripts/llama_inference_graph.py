#!/usr/bin/env python3
"""Writes a Llama-style model (transformers' LlamaForCausalLM) for inference
as one .graph file: a prefill graph and a decode-step graph over key/value
caches updated in place.

  examples/llama_inference.graph   4 layers, hidden 512, 8 heads of 64
                                   sharing 2 key/value heads, MLP 1408,
                                   vocabulary 32000, 1024 positions,
                                   prompt of 128

Graphs of the file (each an entry point of the artifact), with the
convention of scripts/gpt2_inference_graph.py so that one generation loop
runs both:

  prefill(ids: i64[B, T], k0..: inout, v0..: inout, weights)
      -> logits [B, T, V], next [B, 1] (i64: the argmax of the last
      position's logits), then the caches with the prompt's keys and values
      written at positions 0..T-1
  decode(ids: i64[B, 1], pos: i32[], k0..: inout, v0..: inout, weights)
      -> logits [B, 1, V], next [B, 1], then the caches with the token's key
      and value written at `pos`; it attends to positions 0..pos
  prefill_layer, decode_layer: one decoder layer of each, called per layer
  rope_prefill, rope_decode: RoPE's cos and sin tables, computed once per
      call of the model and passed to every layer

The weights are the parameters of LlamaForCausalLM, named as python/fkc's
importer names its state_dict keys (python/fkc/names.py:
`model.layers.0.self_attn.q_proj.weight` is
`model_layers_0_self_attn_q_proj_weight`); a tied LM head is the token
embedding, so `lm_head.weight` is then no parameter.
`weights_from_state_dict` (below) gives the tensors of a model under those
names. nn.Linear's [out, in] weights are read as `x @ transpose(w)`. The
caches are [B, KVH, P, D] per layer (key/value heads only), in the model's
dtype.

Architecture: RMSNorm; rotary position embeddings in Hugging Face's
rotate-half form, cos and sin computed in the graph from the positions and
rope_theta (the inverse frequencies are not in the state_dict); grouped-query
attention (each key/value head serves heads / kv_heads query heads); SwiGLU
MLP; no biases; an LM head of its own or tied to the token embedding.

Sizes come from a transformers config.json (--config) and/or options, which
override it. A tiny model (for tests):

  python3 scripts/llama_inference_graph.py --layers 2 --hidden 64 \\
      --heads 4 --kv-heads 2 --intermediate 176 --vocab 300 \\
      --positions 32 --prompt 8 --out FILE
"""
import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from state_dict_graphs import legalize, signature  # noqa: E402
import state_dict_graphs  # noqa: E402

# The weights of a decoder layer: (state_dict key under model.layers.<i>.,
# shape given the sizes), in the order of the layer graph's parameters.
LAYER_WEIGHTS = [
    ("input_layernorm.weight", lambda s: [s.hidden]),
    ("self_attn.q_proj.weight", lambda s: [s.heads * s.head_dim, s.hidden]),
    ("self_attn.k_proj.weight", lambda s: [s.kv_heads * s.head_dim, s.hidden]),
    ("self_attn.v_proj.weight", lambda s: [s.kv_heads * s.head_dim, s.hidden]),
    ("self_attn.o_proj.weight", lambda s: [s.hidden, s.heads * s.head_dim]),
    ("post_attention_layernorm.weight", lambda s: [s.hidden]),
    ("mlp.gate_proj.weight", lambda s: [s.intermediate, s.hidden]),
    ("mlp.up_proj.weight", lambda s: [s.intermediate, s.hidden]),
    ("mlp.down_proj.weight", lambda s: [s.hidden, s.intermediate]),
]


class Sizes:
    def __init__(self, layers, hidden, heads, kv_heads, head_dim,
                 intermediate, vocab, positions, prompt, batch, eps, theta,
                 tied, dtype):
        self.layers, self.hidden, self.heads = layers, hidden, heads
        self.kv_heads, self.head_dim = kv_heads, head_dim
        self.intermediate, self.vocab = intermediate, vocab
        self.positions, self.prompt, self.batch = positions, prompt, batch
        self.eps, self.theta, self.tied, self.dtype = eps, theta, tied, dtype

    def check(self):
        """Why the sizes describe no model, or None."""
        counts = dict(layers=self.layers, hidden=self.hidden,
                      heads=self.heads, kv_heads=self.kv_heads,
                      head_dim=self.head_dim, intermediate=self.intermediate,
                      vocab=self.vocab, positions=self.positions,
                      batch=self.batch)
        for field, count in counts.items():
            if count < 1:
                return f"{field} must be at least 1, not {count}"
        if self.heads % self.kv_heads:
            return (f"{self.heads} attention heads cannot share "
                    f"{self.kv_heads} key/value heads evenly")
        if self.head_dim % 2:
            return f"RoPE needs an even head dim, not {self.head_dim}"
        if not 1 <= self.prompt <= self.positions:
            return (f"a prompt of {self.prompt} tokens does not fit a cache "
                    f"of {self.positions} positions")
        return None

    def cache(self):
        return (f"{self.dtype}[{self.batch}, {self.kv_heads}, "
                f"{self.positions}, {self.head_dim}]")

    def typ(self, shape):
        return f"{self.dtype}[" + ", ".join(map(str, shape)) + "]"


def rope_tables(s, name, decode):
    """cos and sin [T, D] of the positions (0..T-1, or `pos`) as Hugging
    Face computes them: in f32, inv_freq = 1 / theta^(2i / D) for the D/2
    frequencies, each angle repeated for both halves, then cast."""
    half, d = s.head_dim // 2, s.head_dim
    if decode:
        params, positions = ["pos: i32[]"], "cast(pos, to=f32)"
    else:
        params = []
        positions = f"iota(shape=[{s.prompt}, 1], dim=0, dtype=f32)"
    body = [
        f"inv_freq = 1 / pow(full({s.theta!r}, shape=[], dtype=f32), "
        f"iota(shape=[1, {half}], dim=1, dtype=f32) * 2 / {d})",
        f"angle = {positions} * inv_freq",
        f"c = cast(cos(angle), to={s.dtype})",
        f"s = cast(sin(angle), to={s.dtype})",
        "return concat(c, c, axis=1), concat(s, s, axis=1)",
    ]
    return signature(name, params) + ["  " + line for line in body] + ["}", ""]


def linear(x, w):
    """nn.Linear without bias: its weight is [out, in]."""
    return f"{x} @ transpose({w}, perm=[1, 0])"


def rotate(x, half, axis):
    """x * cos + rotate_half(x) * sin, rotate_half(x) = concat(-x2, x1) of
    the two halves of the head dimension (the last, `axis`)."""
    return (f"{x} * cos_t + concat(-slice({x}, axis={axis}, start={half}, "
            f"stop={2 * half}), slice({x}, axis={axis}, start=0, "
            f"stop={half}), axis={axis}) * sin_t")


def layer(s, name, tokens, decode):
    """One decoder layer over `tokens` new tokens: it writes their keys and
    values into the caches (at 0 for the prompt, at `pos` when decoding)
    and attends to the cache.

    The heads are grouped by their key/value head from the projections on
    (head h is query head h % group of key/value head h // group, as
    Hugging Face's repeat_kv pairs them), so that RoPE's kernels write Q, K
    and V in the layout the attention reads and no copy is left between."""
    b, h, kvh, hd = s.batch, s.heads, s.kv_heads, s.head_dim
    group = h // kvh
    w = {key: legalize(key) for key, _ in LAYER_WEIGHTS}
    params = [f"x: {s.typ([b, tokens, s.hidden])}"]
    if decode:
        params.append("pos: i32[]")
    params += [f"cos_t: {s.typ([tokens, hd])}", f"sin_t: {s.typ([tokens, hd])}",
               f"k_cache: inout {s.cache()}", f"v_cache: inout {s.cache()}"]
    params += [f"{w[key]}: {s.typ(shape(s))}" for key, shape in LAYER_WEIGHTS]
    body = [f"h = rmsnorm(x, {w['input_layernorm.weight']}, eps={s.eps!r})"]
    scale = hd ** -0.5
    if decode:
        # The one query of each head is a row of its key/value head's group:
        # Q [B, KVH, group, D] against the cache's [B, KVH, P, D]; every row
        # sees the cache's positions 0..pos.
        def heads(proj, n):
            return f"reshape({linear('h', w[proj])}, shape=[{b}, {kvh}, {n}, {hd}])"
        body += [
            f"q = {heads('self_attn.q_proj.weight', group)}",
            f"k = {heads('self_attn.k_proj.weight', 1)}",
            f"v = {heads('self_attn.v_proj.weight', 1)}",
            f"q_rot = {rotate('q', hd // 2, 3)}",
            f"k_rot = {rotate('k', hd // 2, 3)}",
            "keys = update_slice(k_cache, k_rot, start=[0, 0, pos, 0])",
            "values = update_slice(v_cache, v, start=[0, 0, pos, 0])",
            f"scores = q_rot @ transpose(keys, perm=[0, 1, 3, 2]) * {scale!r}",
            f"seen = le(iota(shape=[1, {s.positions}], dim=1), pos)",
            "a = softmax(select(seen, scores, -inf), axis=-1) @ values",
            f"merged = reshape(a, shape=[{b}, 1, {h * hd}])",
        ]
    else:
        # The prompt attends causally to its own keys and values (the caches
        # hold nothing before them): Q [B, KVH, group, T, D] against K and V
        # [B, KVH, 1, T, D], broadcast over each group.
        def heads(proj, n):
            return (f"transpose(reshape({linear('h', w[proj])}, "
                    f"shape=[{b}, {tokens}, {kvh}, {n}, {hd}]), "
                    "perm=[0, 2, 3, 1, 4])")
        cached = f"shape=[{b}, {kvh}, {tokens}, {hd}]"
        body += [
            f"q = {heads('self_attn.q_proj.weight', group)}",
            f"k = {heads('self_attn.k_proj.weight', 1)}",
            f"v = {heads('self_attn.v_proj.weight', 1)}",
            f"q_rot = {rotate('q', hd // 2, 4)}",
            f"k_rot = {rotate('k', hd // 2, 4)}",
            f"keys = update_slice(k_cache, reshape(k_rot, {cached}), "
            "start=[0, 0, 0, 0])",
            f"values = update_slice(v_cache, reshape(v, {cached}), "
            "start=[0, 0, 0, 0])",
            f"scores = q_rot @ transpose(k_rot, perm=[0, 1, 2, 4, 3]) * {scale!r}",
            f"causal = le(iota(shape=[{tokens}, {tokens}], dim=1), "
            f"iota(shape=[{tokens}, {tokens}], dim=0))",
            "a = softmax(select(causal, scores, -inf), axis=-1) @ v",
            f"merged = reshape(transpose(a, perm=[0, 3, 1, 2, 4]), "
            f"shape=[{b}, {tokens}, {h * hd}])",
        ]
    body += [
        f"x1 = x + {linear('merged', w['self_attn.o_proj.weight'])}",
        f"m = rmsnorm(x1, {w['post_attention_layernorm.weight']}, "
        f"eps={s.eps!r})",
        f"gate = silu({linear('m', w['mlp.gate_proj.weight'])})",
        f"up = {linear('m', w['mlp.up_proj.weight'])}",
        f"return x1 + {linear('(gate * up)', w['mlp.down_proj.weight'])}, "
        "k_cache = keys, v_cache = values",
    ]
    return signature(name, params) + ["  " + line for line in body] + ["}", ""]


def model_weights(s):
    """The model's weights as (state_dict key, shape), in the order of the
    graphs' parameters; a tied LM head is the token embedding itself."""
    weights = [("model.embed_tokens.weight", [s.vocab, s.hidden])]
    for i in range(s.layers):
        weights += [(f"model.layers.{i}.{key}", shape(s))
                    for key, shape in LAYER_WEIGHTS]
    weights.append(("model.norm.weight", [s.hidden]))
    if not s.tied:
        weights.append(("lm_head.weight", [s.vocab, s.hidden]))
    return weights


def weights_from_state_dict(s, state_dict):
    """{graph parameter: tensor} of a LlamaForCausalLM's state_dict: every
    weight the graphs read, named by fkc.names.legalize."""
    return state_dict_graphs.weights_from_state_dict(model_weights(s),
                                                     state_dict)


def save_weights(s, state_dict, path):
    """Writes weights_from_state_dict's tensors to the .safetensors file at
    `path`, with the map to the state_dict keys in its metadata as the
    importer writes it (docs/importer.md). Needs torch and safetensors."""
    state_dict_graphs.save_weights(model_weights(s), state_dict, path)


def model(s, name, decode):
    tokens = 1 if decode else s.prompt
    embed = legalize("model.embed_tokens.weight")
    head = embed if s.tied else legalize("lm_head.weight")
    params = [f"ids: i64[{s.batch}, {tokens}]"]
    if decode:
        params.append("pos: i32[]")
    for i in range(s.layers):
        params += [f"k{i}: inout {s.cache()}", f"v{i}: inout {s.cache()}"]
    params += [f"{legalize(key)}: {s.typ(shape)}"
               for key, shape in model_weights(s)]
    body = [
        f"cos_t, sin_t = rope_{name}({'pos' if decode else ''})",
        f"x0 = gather({embed}, ids)",
    ]
    results = []
    for i in range(s.layers):
        args = [f"x{i}"] + (["pos"] if decode else [])
        args += ["cos_t", "sin_t", f"k{i}", f"v{i}"]
        args += [legalize(f"model.layers.{i}.{key}") for key, _ in LAYER_WEIGHTS]
        body.append(f"x{i + 1}, nk{i}, nv{i} = {name}_layer({', '.join(args)})")
        results += [f"k{i} = nk{i}", f"v{i} = nv{i}"]
    body += [
        f"hn = rmsnorm(x{s.layers}, {legalize('model.norm.weight')}, "
        f"eps={s.eps!r})",
        f"logits = hn @ transpose({head}, perm=[1, 0])",
        # The greedy choice of the last position, as Hugging Face's
        # generate takes it (the first of equal maxima).
        f"last = slice(logits, axis=1, start={tokens - 1}, stop={tokens})",
        "next = cast(argmax(last, axis=2), to=i64)",
        "return " + ", ".join(["logits", "next"] + results),
    ]
    return (rope_tables(s, f"rope_{name}", decode)
            + layer(s, f"{name}_layer", tokens, decode)
            + signature(name, params) + ["  " + line for line in body]
            + ["}", ""])


def graph_file(s):
    head = "tied to the token embedding" if s.tied else "an LM head of its own"
    lines = [
        f"# A Llama-style model ({s.layers} layers, hidden {s.hidden}, "
        f"{s.heads} heads of {s.head_dim} sharing",
        f"# {s.kv_heads} key/value heads, MLP {s.intermediate}, vocabulary "
        f"{s.vocab}, {s.positions} positions, {head},",
        f"# {s.dtype}) for inference: `prefill` runs a prompt of {s.prompt} "
        f"tokens, `decode` one token",
        "# at position `pos`; both write the keys and values they compute "
        "into the",
        "# per-layer caches k0, v0, ... in place (inout) and return the "
        "logits and the",
        "# greedy next token. Weights are named after the model's state_dict "
        "keys.",
        "# Generated by scripts/llama_inference_graph.py.", ""]
    lines += model(s, "prefill", decode=False)
    lines += model(s, "decode", decode=True)
    return "\n".join(lines).rstrip("\n") + "\n"


# The example's sizes (examples/llama_inference.graph), each overridden by a
# config's entry and then by an option.
DEFAULTS = dict(layers=4, hidden=512, heads=8, kv_heads=2, head_dim=None,
                intermediate=1408, vocab=32000, positions=1024, eps=1e-6,
                theta=10000.0, tied=False)

# LlamaConfig's keys for those sizes.
CONFIG_KEYS = dict(layers="num_hidden_layers", hidden="hidden_size",
                   heads="num_attention_heads", kv_heads="num_key_value_heads",
                   head_dim="head_dim", intermediate="intermediate_size",
                   vocab="vocab_size", positions="max_position_embeddings",
                   eps="rms_norm_eps", theta="rope_theta",
                   tied="tie_word_embeddings")


def read_config(path):
    """The sizes a transformers config.json gives, or an error naming what
    the graph does not model."""
    with open(path) as f:
        config = json.load(f)
    unsupported = []
    if config.get("hidden_act", "silu") != "silu":
        unsupported.append(f"hidden_act {config['hidden_act']!r}")
    for flag in ("attention_bias", "mlp_bias"):
        if config.get(flag):
            unsupported.append(flag)
    # RoPE's settings: `rope_parameters` (transformers 5) or `rope_theta`
    # and `rope_scaling` beside the sizes (earlier versions).
    rope = dict(config.get("rope_scaling") or {})
    rope.update(config.get("rope_parameters") or {})
    kind = rope.get("rope_type", rope.get("type", "default"))
    if kind != "default":
        unsupported.append(f"RoPE of type {kind!r}")
    if rope.get("partial_rotary_factor", 1.0) != 1.0:
        unsupported.append("partial_rotary_factor")
    if unsupported:
        sys.exit(f"{path}: not modelled: {', '.join(unsupported)}")
    sizes = {}
    for field, key in CONFIG_KEYS.items():
        value = config.get(key, rope.get(key))
        if value is not None:
            sizes[field] = value
    if "kv_heads" not in sizes and "heads" in sizes:
        sizes["kv_heads"] = sizes["heads"]
    return sizes


def sizes(config=None, prompt=None, batch=1, dtype="f16", **options):
    """The Sizes of the DEFAULTS, updated by the config.json at `config`,
    then by the options that are not None."""
    fields = dict(DEFAULTS)
    if config:
        fields.update(read_config(config))
    fields.update({k: v for k, v in options.items() if v is not None})
    if fields["head_dim"] is None:
        fields["head_dim"] = fields["hidden"] // fields["heads"]
    return Sizes(fields["layers"], fields["hidden"], fields["heads"],
                 fields["kv_heads"], fields["head_dim"],
                 fields["intermediate"], fields["vocab"], fields["positions"],
                 min(128, fields["positions"]) if prompt is None else prompt,
                 batch,
                 float(fields["eps"]), float(fields["theta"]),
                 bool(fields["tied"]), dtype)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", help="a transformers config.json of a "
                        "LlamaForCausalLM; options override its entries")
    parser.add_argument("--layers", type=int)
    parser.add_argument("--hidden", type=int)
    parser.add_argument("--heads", type=int)
    parser.add_argument("--kv-heads", type=int)
    parser.add_argument("--head-dim", type=int,
                        help="default: hidden / heads")
    parser.add_argument("--intermediate", type=int)
    parser.add_argument("--vocab", type=int)
    parser.add_argument("--positions", type=int,
                        help="the caches' length (default: the config's "
                        "max_position_embeddings)")
    parser.add_argument("--prompt", type=int,
                        help="the prefill's tokens (default: 128, or the "
                        "positions if fewer)")
    parser.add_argument("--batch", type=int, default=1,
                        help="sequences per call (every one at the same "
                        "position)")
    parser.add_argument("--eps", type=float, help="RMSNorm's epsilon")
    parser.add_argument("--theta", type=float, help="RoPE's base")
    parser.add_argument("--tied", action=argparse.BooleanOptionalAction,
                        help="the LM head is the token embedding")
    parser.add_argument("--dtype", choices=["f16", "bf16", "f32"],
                        default="f16", help="of the weights, activations "
                        "and caches")
    parser.add_argument("--out", help="the file to write (default: "
                        "examples/llama_inference.graph)")
    args = parser.parse_args()

    options = {field: getattr(args, field) for field in DEFAULTS}
    s = sizes(args.config, args.prompt, args.batch, args.dtype, **options)
    problem = s.check()
    if problem:
        sys.exit(f"llama_inference_graph.py: {problem}")
    out = args.out or os.path.join(ROOT, "examples", "llama_inference.graph")
    with open(out, "w") as f:
        f.write(graph_file(s))


if __name__ == "__main__":
    main()
