#!/usr/bin/env python3
"""Exports Hugging Face models (random weights from their configs, no
downloads) with fkc's importer and compiles them, for examples/hf/check_gpu.py.

    .venv/bin/python examples/hf/export.py [OUT] [--small] [--weights] [--only NAME,...]

The models (hf_models.py) at their real sizes: GPT-2 small (12 layers of
768, vocabulary 50257, the LM head tied to the embedding), BERT-base with a
padded second sequence, ViT-B/16 (224 x 224 images, a head of 1000 classes)
and a Llama-architecture model of about 100M parameters (8 layers of 1024,
16 heads sharing 4 key/value heads, SwiGLU 2816, RMSNorm, RoPE, vocabulary
32000), in f16, on BATCH = 2 sequences of SEQUENCE = 128 tokens or 2 images.
`--small`: 4 layers of 256 with odd vocabularies instead.

For each model, into OUT (default build/hf-artifacts): NAME.graph (the
import), NAME.ptx (compiled by build/bin/fkc, or $FKC),
NAME.inputs.safetensors (the example inputs, by the graph's input names)
and NAME.json (the transformers class, config and seed that rebuild the
model, the graph to run, and the SHA-256 of the graph's code). These are
what goes to the GPU machine: check_gpu.py rebuilds the weights there.
`--weights` (the default with --small) also writes NAME.weights.safetensors
(the parameters, named as the graph's inputs, with the state_dict names in
its metadata), which check_gpu.py then binds instead.
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
sys.path[:0] = [HERE, os.path.join(REPO, "python")]  # this repository's importer

import transformers  # noqa: E402

import hf_models  # noqa: E402

transformers.logging.set_verbosity_error()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=os.path.join(REPO, "build", "hf-artifacts"))
    parser.add_argument("--small", action="store_true", help="4 layers of 256 instead of the real sizes")
    parser.add_argument("--weights", action="store_true", help="also write NAME.weights.safetensors")
    parser.add_argument("--only", help="comma-separated model names")
    args = parser.parse_args()
    fkc_bin = os.environ.get("FKC", os.path.join(REPO, "build", "bin", "fkc"))
    os.makedirs(args.out, exist_ok=True)
    for name, (class_name, config) in hf_models.configs(args.small).items():
        if args.only and name not in args.only.split(","):
            continue
        started = time.perf_counter()
        model = hf_models.build(class_name, config)
        inputs = hf_models.example_inputs(class_name, config)
        graph = hf_models.import_model(model, inputs)
        base = os.path.join(args.out, name)
        graph.save(base + ".graph", inputs=base + ".inputs.safetensors",
                   weights=base + ".weights.safetensors" if args.weights or args.small else None)
        imported = time.perf_counter()
        subprocess.run([fkc_bin, base + ".graph", "-o", base + ".ptx"], check=True)
        compiled = time.perf_counter()
        with open(base + ".json", "w") as f:
            json.dump({"class": class_name, "config": config.to_dict(), "seed": hf_models.SEED,
                       "inputs": list(inputs), "graph": graph.name,
                       "graph_sha256": hf_models.sha256(hf_models.graph_code(graph.text)),
                       "state_dict_names": graph.state_dict_names}, f, indent=1)
        print(f"{name}: {class_name} -> {base}.ptx (graph {graph.name}, "
              f"{os.path.getsize(base + '.ptx') / 1e6:.2f} MB); import {imported - started:.1f} s, "
              f"compile {compiled - imported:.1f} s", flush=True)


if __name__ == "__main__":
    main()
