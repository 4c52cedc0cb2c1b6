#!/usr/bin/env python3
"""Runs the models of examples/hf/export.py on the GPU through fkrt and
compares them with the same transformers models on the GPU.

    python3 examples/hf/check_gpu.py [ARTIFACTS]     (default build/hf-artifacts)

For each NAME.json: checks that NAME.graph is the graph the export compiled
(the SHA-256 of its code in NAME.json), then rebuilds the transformers model
from its class, config and seed in f16 on the CPU (hf_models.build: the
weights are made here, not carried) and writes its parameters and buffers
under the graph's parameter names (the export's map to state_dict keys) to
a temporary .safetensors file. It also imports the rebuilt model again with
python/fkc and says whether that gives the carried graph's code: the
import follows the installed transformers' implementation, which differs
between versions (5.17's GPT-2 and Llama have fewer statements than
5.23's), so a difference is reported, not failed: the weights are bound by
name and the outputs are compared below either way. Where the artifact
carries NAME.weights.safetensors (export.py --weights, --small), that file
is bound instead and the model gets it through its state_dict names.

Then it loads NAME.ptx with fkrt, binds the weights file to the graph (fkrt
bind_weights: uploaded once, by name), runs the graph on
NAME.inputs.safetensors alone, and runs the transformers model with the
same weights on cuda on the same inputs. Prints the relative L2 error of
each output and, for logits, how often the argmax agrees, and the median
time of a forward of each (fkrt with the weights bound, transformers
eager; informative); exits 1 if any error is over 2e-2 or an artifact does
not fit.

Needs only the repository's python/ and runtime/python (put on sys.path
here), torch, transformers, safetensors and the runtime library
(FKRT_LIBRARY) on the GPU machine; the compiler is not needed there.
"""
import json
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(REPO, "python"), os.path.join(REPO, "runtime", "python")]

import torch  # noqa: E402
import transformers  # noqa: E402
from safetensors import safe_open  # noqa: E402
from safetensors.torch import load_file  # noqa: E402

import fkc.graph  # noqa: E402
import fkrt  # noqa: E402
import hf_models  # noqa: E402

TOLERANCE = 2e-2
WARMUP, TIMED = 3, 10

transformers.logging.set_verbosity_error()


def rebuilt_weights(spec, model, path):
    """Writes the weights of `model` under the graph's parameter names (the
    export's map to state_dict keys; buffers outside the state_dict, such as
    position ids, included) to `path`."""
    tensors = dict(model.named_parameters(remove_duplicate=False))
    tensors.update(model.named_buffers())
    missing = [key for key in spec["state_dict_names"].values() if key not in tensors]
    if missing:
        raise KeyError(f"the rebuilt {spec['class']} has no tensors {missing}")
    fkc.graph.save_weights({name: tensors[key] for name, key in spec["state_dict_names"].items()},
                           spec["state_dict_names"], path)


def import_difference(spec, model, inputs, carried_code):
    """None if importing `model` here gives the carried graph's code, else
    the first difference (the graph follows the installed transformers'
    implementation, which may differ between versions)."""
    try:
        graph = hf_models.import_model(model, {k: inputs[k].cpu() for k in spec["inputs"]})
    except Exception as e:  # noqa: BLE001 (reported, the check goes on by name)
        return f"the import fails here: {type(e).__name__}: {e}"
    here = hf_models.graph_code(graph.text).splitlines()
    carried = carried_code.splitlines()
    if here == carried:
        return None
    line = next((i for i, (a, b) in enumerate(zip(here, carried)) if a != b),
                min(len(here), len(carried)))
    mine = os.path.join(tempfile.gettempdir(), f"fkc-hf-{spec['graph']}.graph")
    graph.save(mine)
    return (f"line {line + 1} of the code ({len(here)} lines here, {len(carried)} carried): "
            f"'{(here + [''])[line].strip()}' here, '{(carried + [''])[line].strip()}' carried "
            f"(this import: {mine})")


def load_carried(spec, weights_path):
    """The model rebuilt from its config with the carried weights file,
    mapped back to state_dict keys through its metadata."""
    config = hf_models.config_from_dict(spec["class"], spec["config"])
    model = getattr(transformers, spec["class"])(config).eval().half()
    with safe_open(weights_path, "pt") as f:
        names = json.loads(f.metadata()["fkc.state_dict_names"])
    state = {names.get(k, k): v for k, v in load_file(weights_path).items()}
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
    return model


def median_ms(forward):
    """The median milliseconds of forward() after WARMUP calls."""
    for _ in range(WARMUP):
        forward()
    times = []
    for _ in range(TIMED):
        torch.cuda.synchronize()
        start = time.perf_counter()
        forward()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def check(name, base, scratch):
    """Prints the comparison of one artifact; returns its failure count."""
    spec = json.load(open(base + ".json"))
    with open(base + ".graph", encoding="utf-8") as f:
        carried_code = hf_models.graph_code(f.read())
    if hf_models.sha256(carried_code) != spec["graph_sha256"]:
        print(f"{name:6s} FAIL: {base}.graph is not the graph of {base}.json "
              "(the artifacts of different exports?)", flush=True)
        return 1
    inputs = load_file(base + ".inputs.safetensors", device="cuda")
    weights_path = base + ".weights.safetensors"
    started = time.perf_counter()
    if os.path.exists(weights_path):
        model, source = load_carried(spec, weights_path), "carried weights"
    else:
        config = hf_models.config_from_dict(spec["class"], spec["config"])
        model = hf_models.build(spec["class"], config, spec["seed"])
        weights_path = os.path.join(scratch, name + ".weights.safetensors")
        rebuilt_weights(spec, model, weights_path)
        difference = import_difference(spec, model, inputs, carried_code)
        source = (f"weights rebuilt from seed {spec['seed']}; the import here gives "
                  + ("the carried graph's code" if difference is None else
                     f"another graph, bound by parameter names: {difference}"))
    prepared = time.perf_counter() - started
    model = model.cuda()

    module = fkrt.Module(base + ".ptx")
    try:
        module.bind_weights(spec["graph"], weights_path)
    except fkrt.Error as e:  # a weight of another name, dtype or shape
        print(f"{name:6s} FAIL: the weights do not fit the graph: {e}", flush=True)
        return 1
    if weights_path.startswith(scratch):
        os.remove(weights_path)  # uploaded; 0.2 to 0.3 GB a model
    run_inputs = [inputs[i.name] for i in module.inputs(spec["graph"]) if not i.bound]
    outputs = module.run(spec["graph"], run_inputs)
    with torch.no_grad():
        expected = [v for v in model(**inputs).values() if isinstance(v, torch.Tensor)]
    torch.cuda.synchronize()

    failures = 0
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

    # The same output tensors every run, as an application keeps them, so
    # that fkrt replays its CUDA graph.
    fkc_ms = median_ms(lambda: module.run(spec["graph"], run_inputs, outputs))
    with torch.no_grad():
        torch_ms = median_ms(lambda: model(**inputs))
    print(f"{name:6s} forward: fkc {fkc_ms:.3f} ms, transformers eager {torch_ms:.3f} ms "
          f"(median of {TIMED}); {source} ({prepared:.1f} s)", flush=True)
    module.close()
    del model
    torch.cuda.empty_cache()
    return failures


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "build", "hf-artifacts")
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, "
          f"transformers {transformers.__version__}", flush=True)
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name in sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".json")):
            failures += check(name, os.path.join(folder, name), scratch)
    print(f"hf: {failures} failures (outputs over {TOLERANCE} or artifacts that do not fit)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
