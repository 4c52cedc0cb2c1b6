#!/usr/bin/env python3
"""Exports small Hugging Face models (random weights from their configs, no
downloads) with fkc's importer and compiles them, for examples/hf/check_gpu.py.

    .venv/bin/python examples/hf/export.py [OUT]      (default build/hf-artifacts)

For each model: OUT/NAME.graph (the import), NAME.ptx (compiled by
build/bin/fkc, or $FKC), NAME.weights.safetensors (the parameters, named as
the graph's inputs, with the state_dict names in its metadata),
NAME.inputs.safetensors (example inputs) and NAME.json (the transformers
class and config that rebuild the model, and the graph to run).

The models have the real architectures (GPT-2, Llama with RoPE, GQA,
SwiGLU and RMSNorm, BERT with a padding mask, ViT with its patch
convolution) at small sizes, in f16, with odd vocabularies (GPT-2 5003,
Llama 3001) so that the LM heads are read as transpose(wte) with N not a
multiple of 8.
"""
import json
import os
import subprocess
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import torch  # noqa: E402
import transformers  # noqa: E402

import fkc  # noqa: E402

transformers.logging.set_verbosity_error()


def models():
    """name -> (transformers class name, config, example inputs)."""
    g = torch.Generator().manual_seed(0)
    ids = lambda vocab: torch.randint(0, vocab, (2, 64), generator=g)  # noqa: E731
    mask = torch.ones(2, 64, dtype=torch.int64)
    mask[1, 40:] = 0  # the second sequence is padded
    return {
        "gpt2": ("GPT2LMHeadModel", transformers.GPT2Config(
            n_layer=4, n_embd=256, n_head=4, vocab_size=5003, n_positions=128,
            use_cache=False), (ids(5003),)),
        "llama": ("LlamaForCausalLM", transformers.LlamaConfig(
            num_hidden_layers=4, hidden_size=256, intermediate_size=688,
            num_attention_heads=8, num_key_value_heads=2, vocab_size=3001,
            max_position_embeddings=128, use_cache=False), (ids(3001),)),
        "bert": ("BertModel", transformers.BertConfig(
            num_hidden_layers=4, hidden_size=256, intermediate_size=1024,
            num_attention_heads=4, vocab_size=3001, max_position_embeddings=128),
            (ids(3001), mask)),
        "vit": ("ViTForImageClassification", transformers.ViTConfig(
            num_hidden_layers=4, hidden_size=256, intermediate_size=1024,
            num_attention_heads=4, image_size=64, patch_size=16, num_labels=10),
            (torch.randn(2, 3, 64, 64, generator=g).half(),)),
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build", "hf-artifacts")
    fkc_bin = os.environ.get("FKC", os.path.join(REPO, "build", "bin", "fkc"))
    os.makedirs(out, exist_ok=True)
    for name, (class_name, config, args) in models().items():
        torch.manual_seed(0)
        model = getattr(transformers, class_name)(config).eval().half()
        graph = fkc.from_torch(model, args)
        base = os.path.join(out, name)
        graph.save(base + ".graph", weights=base + ".weights.safetensors",
                   inputs=base + ".inputs.safetensors")
        subprocess.run([fkc_bin, base + ".graph", "-o", base + ".ptx"], check=True)
        with open(base + ".json", "w") as f:
            json.dump({"class": class_name, "config": config.to_dict(),
                       "graph": graph.graphs[-1].name}, f, indent=1)
        print(f"{name}: {class_name} -> {base}.ptx (graph {graph.graphs[-1].name})")


if __name__ == "__main__":
    main()
