#!/usr/bin/env python3
"""Checks the models of examples/hf/export.py on the CPU: each imported in
f32 (the same configs, seed and inputs, the GPU check's f16 weights in
f32) and run through the reference interpreter (`fkc --interpret
--inputs`), against the transformers model's f32 forward in PyTorch.

    FKC=build/bin/fkc .venv/bin/python examples/hf/check_interpreter.py [--small] [--only NAME,...]

Prints the relative L2 error of each output and, for logits, how often the
argmax agrees; exits 1 if any error is over 1e-5. The interpreter takes
1 to 2 minutes a model at the real sizes on one core.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(REPO, "python")]  # this repository's importer

import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors.torch import load_file  # noqa: E402

import hf_models  # noqa: E402

TOLERANCE = 1e-5

transformers.logging.set_verbosity_error()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="the 4-layer configurations")
    parser.add_argument("--only", help="comma-separated model names")
    args = parser.parse_args()
    fkc_bin = os.environ.get("FKC", os.path.join(REPO, "build", "bin", "fkc"))
    failures = 0
    for name, (class_name, config) in hf_models.configs(args.small).items():
        if args.only and name not in args.only.split(","):
            continue
        model = hf_models.build(class_name, config).float()
        inputs = {k: v.float() if v.is_floating_point() else v
                  for k, v in hf_models.example_inputs(class_name, config).items()}
        graph = hf_models.import_model(model, inputs)
        with torch.no_grad():
            expected = [v for v in model(**inputs).values() if isinstance(v, torch.Tensor)]
        with tempfile.TemporaryDirectory() as scratch:
            base = os.path.join(scratch, name)
            graph.save(base + ".graph", weights=base + ".weights.safetensors",
                       inputs=base + ".inputs.safetensors")
            started = time.perf_counter()
            subprocess.run([fkc_bin, base + ".graph", "--interpret", "--graph", graph.name,
                            "--inputs", base + ".inputs.safetensors",
                            "--inputs", base + ".weights.safetensors",
                            "--outputs", base + ".outputs.safetensors"],
                           check=True, stdout=subprocess.DEVNULL)
            seconds = time.perf_counter() - started
            outputs = load_file(base + ".outputs.safetensors")
        for output, want in zip(graph.outputs, expected):
            got = outputs[output]
            err = (torch.linalg.vector_norm(got - want) /
                   torch.linalg.vector_norm(want).clamp_min(1e-30)).item()
            line = f"{name:6s} {output:20s} {list(got.shape)} rel. L2 {err:.2e}"
            if output == "logits":
                agree = (got.argmax(-1) == want.argmax(-1)).float().mean().item()
                line += f", argmax agreement {agree:.4f}"
            ok = err <= TOLERANCE
            failures += not ok
            print(line + f" (interpreter {seconds:.0f} s)" + ("" if ok else "  FAIL"), flush=True)
    print(f"hf interpreter: {failures} outputs over {TOLERANCE}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
