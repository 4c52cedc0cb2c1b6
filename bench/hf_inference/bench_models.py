"""The models and configurations of the Hugging Face inference benchmark
(bench/hf_inference/), and what both sides of it need of them:

- fkc's side: the prefill and decode-step graphs of a configuration,
  written by scripts/gpt2_inference_graph.py and
  scripts/llama_inference_graph.py, and the weights file of a transformers
  model's state_dict under the graphs' names;
- the peers' side (`HfSteps`): transformers' model called as the graphs
  are, a prefill of T tokens into a StaticCache and one decode step at a
  given position, each call repeatable (the cache's fill counter is set
  back before each call, so a timed loop rewrites the same positions).

Writing graphs needs no torch; HfSteps and save_weights need torch and
transformers. bench/hf_inference/compile.sh writes ARTIFACTS/NAME.graph and
NAME.json (`describe`) per configuration; run.py reads the json back.
"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))
sys.path.insert(0, os.path.dirname(HERE))

import gpt2_inference_graph as gpt2_graph  # noqa: E402
import llama_inference_graph as llama_graph  # noqa: E402
from inference_timing import rel_l2  # noqa: E402

# Tokens a Llama configuration's caches hold beyond its prompt: room for
# the decode steps of a generation.
DECODE_ROOM = 128


class Gpt2:
    """GPT-2 small: transformers' GPT2Config() defaults (12 layers, d 768,
    12 heads, vocabulary 50257, 1024 positions). The caches are its 1024
    positions (the position table ends there), so a 1024-token prompt's
    decode step runs at position 1023, overwriting the prompt's last
    entry: the same work as one at 1024."""
    name, model_class = "gpt2", "GPT2LMHeadModel"
    config = {"model_type": "gpt2", "n_layer": 12, "n_embd": 768,
              "n_head": 12, "vocab_size": 50257, "n_positions": 1024}
    # (batch, prompt) of each artifact.
    shapes = ((1, 128), (1, 1024), (16, 128))

    def cache_length(self, config, prompt):
        return config["n_positions"]

    def sizes(self, config, batch, prompt, cache_length, dtype="f16"):
        if cache_length != config["n_positions"]:
            raise ValueError("GPT-2's caches are its n_positions long")
        return gpt2_graph.sizes_from_config(config, prompt, batch, dtype)

    def graph_file(self, sizes):
        return gpt2_graph.graph_file(sizes)

    def save_weights(self, sizes, state_dict, path):
        gpt2_graph.save_weights(sizes, state_dict, path)


class Llama:
    """A Llama-architecture model of about 100M parameters (as
    examples/generate/check_gpu.py's): 8 layers, hidden 1024, 16 heads of 64
    sharing 4 key/value heads, SwiGLU of 2816, RMSNorm, RoPE, an untied LM
    head over 32000 words; 8192 positions, so that a 4096-token prompt fits.
    The caches hold the prompt and DECODE_ROOM more tokens."""
    name, model_class = "llama", "LlamaForCausalLM"
    config = {"model_type": "llama", "num_hidden_layers": 8,
              "hidden_size": 1024, "intermediate_size": 2816,
              "num_attention_heads": 16, "num_key_value_heads": 4,
              "vocab_size": 32000, "max_position_embeddings": 8192,
              "tie_word_embeddings": False}
    shapes = ((1, 128), (1, 1024), (1, 4096), (16, 128))

    def cache_length(self, config, prompt):
        return prompt + DECODE_ROOM

    def sizes(self, config, batch, prompt, cache_length, dtype="f16"):
        # The writer reads a config.json; `positions` is the caches' length.
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "config.json")
            with open(path, "w") as f:
                json.dump(config, f)
            s = llama_graph.sizes(path, prompt, batch, dtype,
                                  positions=cache_length)
        problem = s.check()
        if problem:
            raise ValueError(problem)
        return s

    def graph_file(self, sizes):
        return llama_graph.graph_file(sizes)

    def save_weights(self, sizes, state_dict, path):
        llama_graph.save_weights(sizes, state_dict, path)


MODELS = {m.name: m for m in (Gpt2(), Llama())}


def artifact_name(model, batch, prompt):
    return f"{model}_b{batch}_p{prompt}"


def describe(spec, batch, prompt, config=None):
    """A configuration as compile.sh writes it beside its artifact (and
    run.py reads it): the model, its transformers config, the call sizes,
    and the decode step's position (after the prompt, or the cache's last
    position where the prompt fills the cache)."""
    config = dict(spec.config if config is None else config)
    cache = spec.cache_length(config, prompt)
    return {"name": artifact_name(spec.name, batch, prompt), "model": spec.name,
            "model_class": spec.model_class, "config": config,
            "batch": batch, "prompt": prompt, "cache_length": cache,
            "decode_position": min(prompt, cache - 1), "dtype": "f16"}


def graph_of(entry):
    """The .graph text of a configuration (describe's dict)."""
    spec = MODELS[entry["model"]]
    return spec.graph_file(sizes_of(entry))


def sizes_of(entry):
    spec = MODELS[entry["model"]]
    return spec.sizes(entry["config"], entry["batch"], entry["prompt"],
                      entry["cache_length"], entry["dtype"])


def cache_names(layers):
    """The graphs' cache inputs, k0, v0, k1, ... (one key and one value
    cache per layer, [B, KV heads, cache length, head dim])."""
    return [f"{kv}{i}" for i in range(layers) for kv in "kv"]


def build_model(transformers, torch, entry, dtype, device, seed=0):
    """transformers' model of a configuration, its weights drawn with
    torch.manual_seed(seed) from the config's initializer, in eval mode.

    RoPE's inverse frequencies stay f32, as a model loaded in f16 with
    `from_pretrained(..., dtype=torch.float16)` keeps them: `.to(dtype)`
    would round them to f16 too, and the angles of later positions with
    them (on an H100, the cos table of positions 0..1023 was then 2.2e-2
    off in relative L2, against 1.4e-5 for fkc's f32 table)."""
    model_class = getattr(transformers, entry["model_class"])
    config = model_class.config_class.from_dict(dict(entry["config"]))
    torch.manual_seed(seed)
    model = model_class(config)
    frequencies = {name: buffer for name, buffer in model.named_buffers()
                   if name.endswith("inv_freq")}
    model = model.to(device=device, dtype=dtype).eval()
    for name, buffer in frequencies.items():
        owner, _, attribute = name.rpartition(".")
        setattr(model.get_submodule(owner), attribute, buffer.to(device))
    return model


class HfSteps:
    """transformers' model called as fkc's graphs are: `prefill(ids)` runs
    a prompt of T tokens at positions 0..T-1 into a StaticCache of
    `cache_length` positions and returns the logits of every position;
    `decode(ids)` runs one token per sequence at `position`, attending to
    the cache's positions 0..position, and returns its logits [B, 1, V].

    transformers' StaticCache writes where its fill counter points (a
    tensor per layer) and advances it, and the models take their positions
    from it where none are given; each call sets the counter to its first
    position and passes its positions, so a call repeated in a timing loop
    rewrites the same cache entries, as fkc's graphs do."""

    def __init__(self, torch, transformers, model, batch, prompt,
                 cache_length, position, device):
        self.model = model
        self.cache = transformers.StaticCache(config=model.config,
                                              max_cache_len=cache_length)
        # The counters are read at each call: the cache's first update moves
        # them to the device (new tensors).
        self.layers = list(getattr(self.cache, "layers", ()))
        if not self.layers or not all(
                isinstance(getattr(layer, "cumulative_length", None), torch.Tensor)
                for layer in self.layers):
            raise RuntimeError("this transformers' StaticCache keeps no fill "
                               "counter tensor per layer (cumulative_length) "
                               "to set back between calls")
        # Positions are tensors, not constants of a compiled graph: decode
        # steps at different positions are the same graph.
        self.prefill_positions = torch.arange(prompt, device=device).view(1, prompt)
        self.decode_positions = torch.tensor([[position]], device=device)

    def _rewind(self, start):
        """Sets every layer's fill counter to `start` (a 0-d tensor)."""
        for layer in self.layers:
            layer.cumulative_length.copy_(start)

    def prefill(self, ids):
        self._rewind(self.prefill_positions[0, 0])
        return self.model(input_ids=ids, past_key_values=self.cache,
                          position_ids=self.prefill_positions,
                          use_cache=True).logits

    def decode(self, ids):
        self._rewind(self.decode_positions[0, 0])
        return self.model(input_ids=ids, past_key_values=self.cache,
                          position_ids=self.decode_positions,
                          use_cache=True).logits

    def caches(self):
        """{k0: layer 0's keys, v0: its values, ...}: the cache tensors
        themselves ([B, KV heads, cache length, head dim]), under the
        graphs' names."""
        out = {}
        for i, layer in enumerate(self.cache.layers):
            out[f"k{i}"], out[f"v{i}"] = layer.keys, layer.values
        return out


def compare(torch, got, expected, got_caches=None, expected_caches=None):
    """How fkc's (or a peer's) logits and caches of one call differ from
    transformers': relative L2 of the logits, the worst cache's, and the
    share of rows whose argmax agrees."""
    result = {"rel_l2_logits": rel_l2(torch, got, expected),
              "argmax_agreement": (got.argmax(-1) == expected.argmax(-1))
              .float().mean().item()}
    if got_caches is not None:
        result["rel_l2_caches"] = max(rel_l2(torch, got_caches[n], expected_caches[n])
                                      for n in expected_caches)
    return result


def main():
    """compile.sh's first step: writes NAME.graph and NAME.json of each
    configuration of the models named into a folder."""
    import argparse
    parser = argparse.ArgumentParser(description=main.__doc__.split(":")[0])
    parser.add_argument("out", help="the folder to write into")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated, of " + ", ".join(MODELS))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for model in args.models.split(","):
        if model not in MODELS:
            parser.error(f"unknown model {model!r} (known: {', '.join(MODELS)})")
        spec = MODELS[model]
        for batch, prompt in spec.shapes:
            entry = describe(spec, batch, prompt)
            base = os.path.join(args.out, entry["name"])
            with open(base + ".graph", "w") as f:
                f.write(graph_of(entry))
            with open(base + ".json", "w") as f:
                json.dump(entry, f, indent=1)
            print(base + ".graph")


if __name__ == "__main__":
    main()
