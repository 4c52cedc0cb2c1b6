"""The Hugging Face inference benchmark (bench/hf_inference/) on the CPU, at
tiny sizes of its two models: its transformers side (bench_models.HfSteps: a
StaticCache prefill and a repeatable decode step) against transformers' own
forward without a cache, and its fkc side (the graphs and weights file it
writes, the cache and position inputs it passes) through `fkc --interpret`
against that transformers side, as run.py checks them on the GPU; and the
report of a run's results."""
import importlib.util
import json
import os
import sys
import tempfile
import time
import types

import pytest
import torch

from conftest import ROOT, relative_error, run_fkc

transformers = pytest.importorskip("transformers")
safetensors_torch = pytest.importorskip("safetensors.torch")

sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "bench", "hf_inference"))
import bench_models  # noqa: E402


def _load_run():
    """bench/hf_inference/run.py under a name of its own (bench/run.py is
    another `run`)."""
    spec = importlib.util.spec_from_file_location(
        "hf_inference_run", os.path.join(ROOT, "bench", "hf_inference", "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run = _load_run()

transformers.logging.set_verbosity_error()

# The benchmark's models at tiny sizes (their other config entries kept).
TINY = {"gpt2": dict(n_layer=2, n_embd=64, n_head=4, vocab_size=300, n_positions=16),
        "llama": dict(num_hidden_layers=2, hidden_size=64, intermediate_size=176,
                      num_attention_heads=4, num_key_value_heads=2, vocab_size=300,
                      max_position_embeddings=256)}
# (model, batch, prompt): GPT-2's 16-token prompt fills its cache, so its
# decode step rewrites the last position, as the 1024-token one does.
CASES = [("gpt2", 2, 8), ("gpt2", 1, 16), ("llama", 2, 8)]
DTYPES = {"f32": torch.float32, "f16": torch.float16}
TOLERANCE = {"f32": 1e-4, "f16": run.TOLERANCE}


def tiny_entry(name, batch, prompt, dtype="f32"):
    spec = bench_models.MODELS[name]
    entry = bench_models.describe(spec, batch, prompt, dict(spec.config, **TINY[name]))
    entry["dtype"] = dtype
    return entry


def steps_of(entry, model):
    return bench_models.HfSteps(torch, transformers, model, entry["batch"], entry["prompt"],
                             entry["cache_length"], entry["decode_position"], "cpu")


def tokens(entry, count):
    return torch.randint(0, entry["config"]["vocab_size"], (entry["batch"], count),
                         generator=torch.Generator().manual_seed(count))


@pytest.mark.parametrize("name,batch,prompt", CASES)
def test_steps_repeat_and_match_forward_without_cache(name, batch, prompt):
    entry = tiny_entry(name, batch, prompt)
    model = bench_models.build_model(transformers, torch, entry, torch.float32, "cpu")
    steps = steps_of(entry, model)
    ids, nxt = tokens(entry, prompt), tokens(entry, 1)
    pos = entry["decode_position"]
    assert pos == min(prompt, entry["cache_length"] - 1)
    with torch.no_grad():
        expected = model(ids, use_cache=False).logits
        sequence = torch.cat([ids[:, :pos], nxt], dim=1)
        expected_decode = model(sequence, use_cache=False).logits[:, -1:]
        for _ in range(2):  # as a timing loop calls them
            prefill = steps.prefill(ids).clone()
            assert prefill.shape == expected.shape
            assert relative_error(prefill, expected) < 1e-5
            for _ in range(2):
                decode = steps.decode(nxt).clone()
                assert decode.shape == (batch, 1, entry["config"]["vocab_size"])
                assert relative_error(decode, expected_decode) < 1e-5
    for name_, cache in steps.caches().items():
        assert cache.shape[2] == entry["cache_length"], name_
        assert not cache[:, :, pos + 1:].any(), f"{name_} written past the decode position"


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_steps_trace_as_one_graph(name):
    """run.py compiles the same calls with fullgraph=True first: they trace
    without a graph break (here through the aot_eager backend, which runs
    the traced graph without Inductor's code generation)."""
    entry = tiny_entry(name, 2, 8)
    model = bench_models.build_model(transformers, torch, entry, torch.float32, "cpu")
    steps = steps_of(entry, model)
    ids, nxt = tokens(entry, 8), tokens(entry, 1)
    with torch.no_grad():
        expected = {"prefill": steps.prefill(ids).clone(), "decode": steps.decode(nxt).clone()}
        calls = {"prefill": lambda: steps.prefill(ids), "decode": lambda: steps.decode(nxt)}
        for which, call in calls.items():
            torch._dynamo.reset()
            compiled = torch.compile(call, backend="aot_eager", fullgraph=True, dynamic=False)
            for _ in range(2):
                assert relative_error(compiled(), expected[which]) < 1e-5, which
    torch._dynamo.reset()


def interpret(tmp_path, graph, which, tensors):
    inputs, out = tmp_path / f"{which}-in.safetensors", tmp_path / f"{which}-out.safetensors"
    safetensors_torch.save_file({n: t.contiguous() for n, t in tensors.items()}, str(inputs))
    run_fkc(graph, "--interpret", "--graph", which, "--inputs", tmp_path / "weights.safetensors",
            "--inputs", inputs, "--outputs", out)
    return safetensors_torch.load_file(str(out))


@pytest.mark.parametrize("name,batch,prompt,dtype",
                         [case + ("f32",) for case in CASES] + [("llama", 2, 8, "f16")])
def test_fkc_graphs_match_transformers_on_the_interpreter(tmp_path, name, batch, prompt,
                                                          dtype):
    entry = tiny_entry(name, batch, prompt, dtype)
    graph = tmp_path / "model.graph"
    graph.write_text(bench_models.graph_of(entry))
    model = bench_models.build_model(transformers, torch, entry, DTYPES[dtype], "cpu")
    bench_models.MODELS[name].save_weights(bench_models.sizes_of(entry), model.state_dict(),
                                        str(tmp_path / "weights.safetensors"))
    steps = steps_of(entry, model)
    ids, nxt = tokens(entry, prompt), tokens(entry, 1)
    with torch.no_grad():
        ref_prefill = steps.prefill(ids).clone()
        after_prefill = {n: c.clone() for n, c in steps.caches().items()}
        ref_decode = steps.decode(nxt).clone()
        after_decode = {n: c.clone() for n, c in steps.caches().items()}
    names = bench_models.cache_names(model.config.num_hidden_layers)
    assert sorted(names) == sorted(after_prefill)

    zeros = {n: torch.zeros_like(c) for n, c in after_prefill.items()}
    out = interpret(tmp_path, graph, "prefill", dict(zeros, ids=ids))
    check = bench_models.compare(torch, out["logits"], ref_prefill,
                              {n: out[f"{n}_1"] for n in names}, after_prefill)
    assert check["rel_l2_logits"] < TOLERANCE[dtype], check
    assert check["rel_l2_caches"] < TOLERANCE[dtype], check
    assert torch.equal(out["next"], out["logits"][:, -1:].argmax(-1))

    pos = torch.tensor(entry["decode_position"], dtype=torch.int32)
    out = interpret(tmp_path, graph, "decode", dict(after_prefill, ids=nxt, pos=pos))
    check = bench_models.compare(torch, out["logits"], ref_decode,
                              {n: out[f"{n}_1"] for n in names}, after_decode)
    assert check["rel_l2_logits"] < TOLERANCE[dtype], check
    assert check["rel_l2_caches"] < TOLERANCE[dtype], check
    if dtype == "f32":
        assert check["argmax_agreement"] == 1.0, check


def test_configurations_and_report(tmp_path):
    written = {}
    for name, spec in bench_models.MODELS.items():
        for batch, prompt in spec.shapes:
            entry = bench_models.describe(spec, batch, prompt)
            assert entry["decode_position"] < entry["cache_length"]
            assert entry["prompt"] <= entry["cache_length"]
            (tmp_path / (entry["name"] + ".json")).write_text(json.dumps(entry))
            written[entry["name"]] = entry
    assert written["gpt2_b1_p1024"]["decode_position"] == 1023
    assert written["llama_b1_p4096"]["cache_length"] == 4096 + bench_models.DECODE_ROOM
    os.remove(tmp_path / "llama_b16_p128.json")
    entries = run.load_configurations(str(tmp_path), ["gpt2", "llama"], "")
    assert [e["name"] for e in entries] == list(written)
    assert "missing" in entries[-1] and "missing" not in entries[0]
    assert [e["name"] for e in run.load_configurations(str(tmp_path), ["llama"], "p4096")] \
        == ["llama_b1_p4096"]

    def timing(config, graph, peer, ms):
        model, batch, prompt = config.split("_")
        return {"config": config, "model": model, "batch": int(batch[1:]),
                "prompt": int(prompt[1:]), "graph": graph, "peer": peer,
                "median_s": ms / 1e3, "check_vs_eager": {"rel_l2_logits": 1e-3},
                "compile_s": 10.0, "fullgraph": True}
    results = [{"config": "gpt2_b16_p128", "model": "gpt2", "batch": 16, "prompt": 128,
                "check": {g: {"rel_l2_logits": 1e-3, "rel_l2_caches": 2e-3,
                              "argmax_agreement": 1.0} for g in ("prefill", "decode")},
                "ok": True},
               timing("gpt2_b16_p128", "prefill", run.FKC, 2.0),
               timing("gpt2_b16_p128", "decode", run.FKC, 0.5),
               timing("gpt2_b16_p128", "prefill", run.FKC_SERIAL, 2.5),
               timing("gpt2_b16_p128", "decode", run.FKC_SERIAL, 0.6),
               timing("gpt2_b16_p128", "prefill", run.EAGER, 4.0),
               timing("gpt2_b16_p128", "decode", run.EAGER, 8.0),
               timing("gpt2_b16_p128", "decode", run.COMPILED, 0.25),
               {"config": "gpt2_b16_p128", "model": "gpt2", "batch": 16, "prompt": 128,
                "failed": run.COMPILED, "graph": "prefill", "error": "Unsupported: x\nmore"}]
    header = {"device": "GPU", "torch": "2", "transformers": "5", "commit": "abc"}
    text = run.write_report(str(tmp_path / "out"), "hf-inference", results, header)
    assert "| gpt2 | 16 | 128 | 2.000 | 4.000 | - | 2.00x | - |" in text
    # Decode: tokens/s is batch / step time.
    assert "| gpt2 | 16 | 128 | 0.500 | 32000 | 8.000 | 2000 | 0.250 | 64000 | 16.00x | 0.50x |" \
        in text
    # fkc's launches at once against in order.
    assert "| gpt2 | 16 | 128 | 2.000 | 2.500 | 1.25x | 0.500 | 0.600 | 1.20x |" in text
    assert "- gpt2_b16_p128, torch.compile prefill: Unsupported: x" in text
    saved = json.loads((tmp_path / "out" / "hf-inference.json").read_text())
    assert saved["device"] == "GPU" and saved["results"] == results


class InterpretedModule:
    """fkrt.Module's part that run.py uses, on the CPU reference interpreter:
    the signatures from the artifact's manifest (docs/artifact.md), each run
    one `fkc --interpret` of the .graph beside it with the bound weights."""

    def __init__(self, path):
        lines = open(path).read().split("// fkc-manifest-end")[0].splitlines()[1:]
        manifest = json.loads("\n".join(line[2:] for line in lines))
        self.graphs = {g["name"]: g for g in manifest["graphs"]}
        self.graph_file, self.bound = path[:-len(".ptx")] + ".graph", {}

    def load_cuda(self):
        pass

    def bind_weights(self, graph, path):
        self.bound[graph] = path

    def inputs(self, graph):
        names = set(safetensors_torch.load_file(self.bound[graph])) if graph in self.bound \
            else set()
        return [types.SimpleNamespace(name=t["name"], shape=tuple(t["shape"]),
                                      dtype=t["dtype"], bound=t["name"] in names)
                for t in self.graphs[graph]["inputs"]]

    def outputs(self, graph):
        return [types.SimpleNamespace(name=t["name"], shape=tuple(t["shape"]),
                                      dtype=t["dtype"], aliases=t.get("aliases"))
                for t in self.graphs[graph]["outputs"]]

    def run(self, graph, inputs, outputs):
        folder = tempfile.mkdtemp()
        given = [i for i in self.inputs(graph) if not i.bound]
        assert [tuple(t.shape) for t in inputs] == [i.shape for i in given]
        safetensors_torch.save_file({i.name: t.contiguous() for i, t in zip(given, inputs)},
                                    os.path.join(folder, "in.safetensors"))
        run_fkc(self.graph_file, "--interpret", "--graph", graph, "--inputs", self.bound[graph],
                "--inputs", os.path.join(folder, "in.safetensors"),
                "--outputs", os.path.join(folder, "out.safetensors"))
        out = safetensors_torch.load_file(os.path.join(folder, "out.safetensors"))
        for info, t in zip(self.outputs(graph), outputs):
            t.copy_(out[info.name])
        return outputs

    def close(self):
        pass


def test_run_end_to_end_on_the_cpu(tmp_path, monkeypatch):
    """run.py's main at tiny sizes, with the GPU's parts stood in for: fkrt
    by the reference interpreter, the device by the CPU, each timing by one
    call, torch.compile's backend by aot_eager. Every configuration is
    checked, timed for all three and reported."""
    shapes = {"gpt2": ((1, 16),), "llama": ((2, 8),)}
    for name, spec in bench_models.MODELS.items():
        monkeypatch.setattr(spec, "config", dict(spec.config, **TINY[name]))
        monkeypatch.setattr(spec, "shapes", shapes[name])
        for batch, prompt in spec.shapes:
            entry = bench_models.describe(spec, batch, prompt)
            base = tmp_path / "artifacts" / entry["name"]
            base.parent.mkdir(exist_ok=True)
            base.with_suffix(".graph").write_text(bench_models.graph_of(entry))
            base.with_suffix(".json").write_text(json.dumps(entry))
            run_fkc(base.with_suffix(".graph"), "-o", base.with_suffix(".ptx"))

    def one_call(torch_, fn, budget_s):
        start = time.perf_counter()
        fn()
        return {"median_s": time.perf_counter() - start, "min_s": 0.0, "calls": 1}
    compile_ = torch.compile
    monkeypatch.setattr(run, "DEVICE", "cpu")
    monkeypatch.setattr(run, "time_calls", one_call)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "CPU")
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    monkeypatch.setattr(torch.cuda, "synchronize", lambda: None)
    monkeypatch.setattr(torch, "compile", lambda fn, mode, fullgraph, dynamic: compile_(
        fn, backend="aot_eager", fullgraph=fullgraph, dynamic=dynamic))
    monkeypatch.setitem(sys.modules, "fkrt", types.SimpleNamespace(Module=InterpretedModule))
    monkeypatch.setattr(sys, "argv", ["run.py", "--artifacts", str(tmp_path / "artifacts"),
                                      "--out", str(tmp_path / "out")])
    try:
        run.main()
    finally:
        torch._dynamo.reset()
    saved = json.loads((tmp_path / "out" / "hf-inference.json").read_text())
    results = saved["results"]
    assert not [r for r in results if "failed" in r], [r["error"] for r in results if "failed" in r]
    for config in ("gpt2_b1_p16", "llama_b2_p8"):
        check = next(r for r in results if r["config"] == config and "check" in r)
        assert check["ok"], check
        timed = {(r["graph"], r["peer"]) for r in results
                 if r["config"] == config and "median_s" in r}
        assert timed == {(g, p) for g in ("prefill", "decode")
                         for p in run.PEERS + (run.FKC_SERIAL,)}
    text = (tmp_path / "out" / "hf-inference.md").read_text()
    assert "| llama | 2 | 8 |" in text and "transformers' attention implementation" in text
