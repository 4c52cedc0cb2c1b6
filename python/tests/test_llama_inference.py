"""The Llama inference graphs of scripts/llama_inference_graph.py against
transformers' LlamaForCausalLM: the graph is written from the model's
config.json, its weights are the model's state_dict under the importer's
names, and `fkc --interpret` runs a prefill and then decode steps that feed each
step's `next` back, with the caches carried from one call to the next. HF's
forward over the whole sequence so far is the oracle of every step."""
import importlib.util
import os
import subprocess
import sys

import pytest
import torch

from conftest import ROOT, relative_error, run_fkc

transformers = pytest.importorskip("transformers")
safetensors_torch = pytest.importorskip("safetensors.torch")

SCRIPT = os.path.join(ROOT, "scripts", "llama_inference_graph.py")


def generator():
    spec = importlib.util.spec_from_file_location("llama_inference_graph", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

BATCH, PROMPT, POSITIONS, DECODE_STEPS = 2, 8, 32, 3
KV_HEADS, HEAD_DIM = 2, 16

# f32: the interpreter and HF compute the same ops in the same dtype, so the
# two agree to rounding; f16: the graph keeps f16 between ops where HF keeps
# some in f32 (RMSNorm, softmax), so the logits differ by f16 rounding.
TOLERANCE = {"f32": 1e-5, "f16": 5e-3}
TORCH_DTYPE = {"f32": torch.float32, "f16": torch.float16}


def tiny_llama(tied):
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
        num_key_value_heads=KV_HEADS, intermediate_size=176, vocab_size=300,
        max_position_embeddings=POSITIONS, rms_norm_eps=1e-5, rope_theta=500.0,
        tie_word_embeddings=tied, use_cache=False)
    return transformers.LlamaForCausalLM(config).eval()


def interpret(graph, name, files, out):
    run_fkc(graph, "--interpret", "--graph", name,
            *[arg for f in files for arg in ("--inputs", f)], "--outputs", out)
    return safetensors_torch.load_file(out)


@pytest.mark.parametrize("dtype,tied", [("f32", False), ("f32", True), ("f16", False)])
def test_prefill_then_decode_match_transformers(tmp_path, dtype, tied):
    model = tiny_llama(tied)
    config = str(tmp_path / "config.json")
    model.config.to_json_file(config)
    graph = str(tmp_path / "llama.graph")
    subprocess.run([sys.executable, SCRIPT, "--config", config, "--batch", str(BATCH),
                    "--prompt", str(PROMPT), "--dtype", dtype, "--out", graph], check=True)
    model = model.to(TORCH_DTYPE[dtype])
    script = generator()
    sizes = script.sizes(config, PROMPT, BATCH, dtype)
    weights = str(tmp_path / "weights.safetensors")
    safetensors_torch.save_file(script.weights_from_state_dict(sizes, model.state_dict()),
                                weights)
    ids = torch.randint(0, model.config.vocab_size, (BATCH, PROMPT))

    cache = torch.zeros(BATCH, KV_HEADS, POSITIONS, HEAD_DIM, dtype=TORCH_DTYPE[dtype])
    caches = {f"{kind}{i}": cache.clone() for i in range(2) for kind in "kv"}
    inputs = str(tmp_path / "inputs.safetensors")
    safetensors_torch.save_file({"ids": ids, **caches}, inputs)
    out = interpret(graph, "prefill", [weights, inputs], str(tmp_path / "prefill.safetensors"))

    sequence = ids
    with torch.no_grad():
        expected = model(sequence).logits
    assert out["logits"].shape == expected.shape
    assert relative_error(out["logits"], expected) < TOLERANCE[dtype]
    for step in range(DECODE_STEPS):
        greedy = expected[:, -1].argmax(dim=-1, keepdim=True)
        assert out["next"].dtype == torch.int64 and out["next"].shape == (BATCH, 1)
        assert torch.equal(out["next"], greedy), f"step {step}"
        sequence = torch.cat([sequence, out["next"]], dim=1)
        caches = {name: out[f"{name}_1"] for name in caches}
        pos = torch.tensor(sequence.shape[1] - 1, dtype=torch.int32)
        safetensors_torch.save_file({"ids": out["next"], "pos": pos, **caches}, inputs)
        out = interpret(graph, "decode", [weights, inputs],
                        str(tmp_path / f"decode{step}.safetensors"))
        with torch.no_grad():
            expected = model(sequence).logits[:, -1:]
        assert out["logits"].shape == expected.shape
        assert relative_error(out["logits"], expected) < TOLERANCE[dtype], f"step {step}"
    assert torch.equal(out["next"], expected[:, -1].argmax(dim=-1, keepdim=True))


def test_unmodelled_config_is_refused(tmp_path):
    model = tiny_llama(False)
    model.config.attention_bias = True
    model.config.to_json_file(str(tmp_path / "config.json"))
    result = subprocess.run([sys.executable, SCRIPT, "--config", str(tmp_path / "config.json"),
                             "--out", str(tmp_path / "llama.graph")],
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert "not modelled: attention_bias" in result.stderr
