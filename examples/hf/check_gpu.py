#!/usr/bin/env python3
"""Runs the models of examples/hf/export.py on the GPU through fkrt and
compares them with the same transformers models on the GPU.

    python3 examples/hf/check_gpu.py [ARTIFACTS]     (default build/hf-artifacts)

For each NAME.json: rebuilds the transformers model from its class and
config in f16 on cuda, loads the exported weights (NAME.weights.safetensors,
its metadata mapping parameter names back to state_dict keys), runs it on
NAME.inputs.safetensors; loads NAME.ptx with fkrt, binds the weights file to
the graph (fkrt bind_weights: uploaded once, by name) and runs the graph on
the inputs alone. Prints the relative L2 error of each output and, for
logits, how often the argmax agrees; exits 1 if any error is over 2e-2.
Needs torch, transformers, safetensors and the runtime library
(FKRT_LIBRARY) on the GPU machine; the compiler is not needed there.
"""
import json
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "runtime", "python"))

import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.torch import load_file  # noqa: E402

import fkrt  # noqa: E402

TOLERANCE = 2e-2


def reference_outputs(spec, weights_path, inputs):
    """The transformers model's outputs on `inputs` (forward's arguments by
    name), with the exported weights."""
    config_class = getattr(transformers, spec["class"]).config_class
    config = config_class.from_dict(spec["config"])
    model = getattr(transformers, spec["class"])(config).eval().half().cuda()
    with safe_open(weights_path, "pt") as f:
        names = json.loads(f.metadata()["fkc.state_dict_names"])
    weights = load_file(weights_path, device="cuda")
    state = {names.get(k, k): v for k, v in weights.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    # Tied weights (an LM head sharing the embedding) are one tensor, and
    # buffers outside the state_dict (position ids) are exported as inputs.
    params = dict(model.named_parameters(remove_duplicate=False))
    loaded = [params[k] for k in state if k in params]
    missing = [k for k in missing
               if not (k in params and any(params[k] is p for p in loaded))]
    buffers = dict(model.named_buffers())
    unexpected = [k for k in unexpected if k not in buffers]
    assert not missing and not unexpected, (missing, unexpected)
    with torch.no_grad():
        out = model(**inputs)
    return [v for v in out.values() if isinstance(v, torch.Tensor)]


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build", "hf-artifacts")
    failures = 0
    for name in sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".json")):
        base = os.path.join(folder, name)
        spec = json.load(open(base + ".json"))
        inputs_file = load_file(base + ".inputs.safetensors", device="cuda")
        module = fkrt.Module(base + ".ptx")
        module.bind_weights(spec["graph"], base + ".weights.safetensors")
        run_inputs = [inputs_file[i.name] for i in module.inputs(spec["graph"]) if not i.bound]
        outputs = module.run(spec["graph"], run_inputs)
        torch.cuda.synchronize()
        expected = reference_outputs(spec, base + ".weights.safetensors", inputs_file)
        for info, got, want in zip(module.outputs(spec["graph"]), outputs, expected):
            got, want = got.float(), want.float()
            err = (torch.linalg.vector_norm(got - want) /
                   torch.linalg.vector_norm(want).clamp_min(1e-30)).item()
            line = f"{name:6s} {info.name:20s} {list(got.shape)} rel. L2 {err:.2e}"
            if info.name == "logits":
                agree = (got.argmax(-1) == want.argmax(-1)).float().mean().item()
                line += f", argmax agreement {agree:.4f}"
            ok = err <= TOLERANCE
            failures += not ok
            print(line + ("" if ok else "  FAIL"), flush=True)
    print(f"hf: {failures} outputs over {TOLERANCE}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
