"""Greedy generation with scripts/gpt2_inference_graph.py's prefill and decode
graphs over transformers' GPT2LMHeadModel weights, on the CPU reference
interpreter through examples/generate/generate.py: the same tokens as
transformers' generate(do_sample=False), and the same logits at every step."""
import functools
import json
import os
import subprocess
import sys

import pytest
import torch
import transformers

from conftest import ROOT, fkc_binary, relative_error, run_fkc

# generate.py finds fkrt (manifest queries only: no GPU) through FKRT_LIBRARY,
# by default the one built next to fkc.
os.environ.setdefault("FKRT_LIBRARY", os.path.join(
    os.path.dirname(os.path.dirname(fkc_binary())), "runtime", "libfkrt.so"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "examples", "generate"))

import generate  # noqa: E402
import gpt2_inference_graph as gpt2_graph  # noqa: E402
from fkc.names import legalize  # noqa: E402  (the importer's, to compare with)

PROMPT, BATCH, NEW_TOKENS = 8, 2, 12
# Weights drawn with std 0.2 instead of GPT-2's 0.02: at 0.02 the random
# model's logits are nearly flat and greedy decoding repeats the prompt's
# last token, which any bug that keeps the embedding would reproduce.
INITIALIZER_RANGE = 0.2


def tiny_config():
    return transformers.GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=300,
                                   n_positions=32, initializer_range=INITIALIZER_RANGE,
                                   bos_token_id=0, eos_token_id=0, pad_token_id=0)


def tiny_model(dtype):
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(tiny_config()).eval().to(dtype)
    model.generation_config.eos_token_id = None  # generate all NEW_TOKENS
    return model


def prompt():
    return torch.randint(0, 300, (BATCH, PROMPT), generator=torch.Generator().manual_seed(1))


def build(folder, model, dtype_name):
    """The graph file for `model`'s config, its artifact and weights file."""
    os.makedirs(folder, exist_ok=True)
    sizes = gpt2_graph.sizes_from_config(model.config.to_dict(), PROMPT, BATCH, dtype_name)
    graph, artifact = os.path.join(folder, "gpt2.graph"), os.path.join(folder, "gpt2.ptx")
    weights = os.path.join(folder, "weights.safetensors")
    with open(graph, "w") as f:
        f.write(gpt2_graph.graph_file(sizes))
    run_fkc(graph, "-o", artifact)
    gpt2_graph.save_weights(sizes, model.state_dict(), weights)
    return generate.InterpretedSteps(artifact, weights, graph, fkc_binary())


@functools.lru_cache(None)
def generated(dtype, folder):
    """The model, the tokens generate.py's interpreted loop generates and
    every step's outputs."""
    model = tiny_model(dtype)
    steps = build(folder, model, {torch.float32: "f32", torch.float16: "f16"}[dtype])
    generate.check_prompt(prompt(), steps.prefill, NEW_TOKENS)
    outputs = []
    tokens = steps.generate(prompt(), NEW_TOKENS, keep=outputs)
    return model, tokens, outputs


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp("generate"))


def test_parameters_are_the_state_dict_keys():
    """The graphs' weights are GPT2LMHeadModel's parameters under the
    importer's names; only the tied LM head is left out."""
    model = tiny_model(torch.float32)
    sizes = gpt2_graph.sizes_from_config(model.config.to_dict(), PROMPT)
    weights = gpt2_graph.weights_from_state_dict(sizes, model.state_dict())
    assert set(weights) == {legalize(k) for k in model.state_dict()} - {"lm_head_weight"}
    text = gpt2_graph.graph_file(sizes)
    for name, tensor in weights.items():
        assert f"{name}: f16[{', '.join(map(str, tensor.shape))}]" in text


def test_greedy_tokens_equal_transformers_generate(folder):
    model, tokens, outputs = generated(torch.float32, folder)
    ids = prompt()
    with torch.no_grad():
        reference = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                   max_new_tokens=NEW_TOKENS, pad_token_id=0,
                                   output_scores=True, return_dict_in_generate=True)
    # The test means something only if no step is a near tie in f32.
    top2 = torch.stack([s.topk(2, dim=-1).values for s in reference.scores])
    assert (top2[..., 0] - top2[..., 1]).min() > 1e-3
    assert len(set(tokens.flatten().tolist())) > NEW_TOKENS // 2  # not one token repeated
    assert torch.equal(tokens, reference.sequences[:, PROMPT:])


def test_every_step_logits_match_transformers(folder):
    """The prefill logits, and each decode step's (its cache read at the
    positions before it), against the model on the whole sequence so far."""
    model, tokens, outputs = generated(torch.float32, folder)
    sequence = torch.cat([prompt(), tokens], dim=1)
    with torch.no_grad():
        reference = model(sequence).logits
    assert relative_error(outputs[0]["logits"], reference[:, :PROMPT]) < 1e-4
    for i, out in enumerate(outputs[1:]):
        assert relative_error(out["logits"], reference[:, PROMPT + i:PROMPT + i + 1]) < 1e-4, i
    for out in outputs:  # next is the argmax of the last position's logits
        assert torch.equal(out["next"], out["logits"][:, -1].argmax(-1, keepdim=True))


def test_f16_graph_logits_match_transformers(folder):
    """In f16 (the GPU's dtype) the prefill logits agree with transformers'
    f16 model on the CPU; tokens may differ at near ties, so only `next`'s
    consistency with the graph's own logits is required."""
    model, tokens, outputs = generated(torch.float16, os.path.join(folder, "f16"))
    with torch.no_grad():
        reference = model(prompt()).logits
    assert relative_error(outputs[0]["logits"], reference) < 5e-3
    for out in outputs:
        assert torch.equal(out["next"], out["logits"][:, -1].float().argmax(-1, keepdim=True))


def test_config_option_writes_the_configs_sizes(tmp_path):
    config = tiny_config()
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config.to_dict()))
    out = tmp_path / "gpt2.graph"
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gpt2_inference_graph.py"),
                    "--config", str(path), "--prompt", str(PROMPT), "--batch", "3",
                    "--out", str(out)], check=True)
    sizes = gpt2_graph.sizes_from_config(config.to_dict(), PROMPT, 3)
    assert out.read_text() == gpt2_graph.graph_file(sizes)


def test_prompt_of_another_shape_is_an_error(folder):
    generated(torch.float32, folder)
    steps = generate.InterpretedSteps(os.path.join(folder, "gpt2.ptx"), "", "", fkc_binary())
    with pytest.raises(generate.ConventionError, match=r"the prefill graph takes \[2, 8\]"):
        generate.check_prompt(torch.zeros(1, PROMPT, dtype=torch.int64), steps.prefill, 4)
    with pytest.raises(generate.ConventionError, match="does not hold 33 positions"):
        generate.check_prompt(prompt(), steps.prefill, 26)


@pytest.mark.parametrize("text,message", [
    ("graph prefill(ids: i64[1, 2]) {\n  logits = cast(ids, to=f32)\n"
     "  next = slice(ids, axis=1, start=1)\n  return logits, next\n}\n",
     "the artifact has no graph 'decode'"),
    ("graph prefill(ids: i64[1, 2]) {\n  logits = cast(ids, to=f32)\n  return logits\n}\n",
     "graph 'prefill' has no result 'next'"),
    ("graph prefill(ids: i64[1, 2]) {\n  logits = cast(ids, to=f32)\n"
     "  next = cast(slice(ids, axis=1, start=1), to=i32)\n  return logits, next\n}\n",
     r"graph 'prefill': next is i32\[1, 1\], expected i64\[1, 1\]"),
], ids=["no-decode", "no-next", "next-i32"])
def test_artifacts_outside_the_convention_are_errors(tmp_path, text, message):
    graph, artifact = tmp_path / "g.graph", tmp_path / "g.ptx"
    graph.write_text(text)
    run_fkc(graph, "-o", artifact)
    with pytest.raises(generate.ConventionError, match=message):
        generate.InterpretedSteps(str(artifact), "", str(graph), fkc_binary())


@pytest.mark.parametrize("config,message", [
    ({"activation_function": "relu"}, "only GPT-2's activation_function 'gelu_new'"),
    ({"n_head": 3}, "d_model 64 is not a multiple of 3 heads"),
    ({"n_positions": 4}, "the prompt of 8 tokens does not fit 4 positions"),
], ids=["activation", "heads", "positions"])
def test_configs_the_script_cannot_write_are_errors(tmp_path, config, message):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**tiny_config().to_dict(), **config}))
    done = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gpt2_inference_graph.py"),
                           "--config", str(path), "--prompt", str(PROMPT),
                           "--out", str(tmp_path / "g.graph")], capture_output=True, text=True)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_prompt_ids_outside_the_vocabulary_are_errors(folder):
    generated(torch.float32, folder)
    steps = generate.InterpretedSteps(os.path.join(folder, "gpt2.ptx"), "", "", fkc_binary())
    ids = prompt()
    ids[1, 3] = 300
    with pytest.raises(generate.ConventionError, match=r"must lie in \[0, 300\)"):
        generate.check_prompt(ids, steps.prefill, 4)


@pytest.mark.parametrize("batch,length", [(2, 8), (1, 5)])
def test_one_artifact_serves_every_batch_and_prompt_length(tmp_path, batch, length):
    """Batch and prompt length sized at run time (--batch B --prompt S): the
    same artifact and graph file generate transformers' tokens for prompts
    of different shapes (the interpreter bound to each run's sizes)."""
    model = tiny_model(torch.float32)
    sizes = gpt2_graph.sizes_from_config(model.config.to_dict(), "S", "B", "f32",
                                         max_batch=4)
    graph, artifact = tmp_path / "gpt2.graph", tmp_path / "gpt2.ptx"
    weights = str(tmp_path / "weights.safetensors")
    graph.write_text(gpt2_graph.graph_file(sizes))
    run_fkc(graph, "-o", artifact)
    gpt2_graph.save_weights(sizes, model.state_dict(), weights)
    steps = generate.InterpretedSteps(str(artifact), weights, str(graph), fkc_binary())
    assert (steps.prefill.batch, steps.prefill.tokens) == ("B", "S")
    ids = torch.randint(0, 300, (batch, length), generator=torch.Generator().manual_seed(3))
    new_tokens = 4
    generate.check_prompt(ids, steps.prefill, new_tokens)
    tokens = steps.generate(ids, new_tokens)
    with torch.no_grad():
        reference = model.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                   max_new_tokens=new_tokens, pad_token_id=0)
    assert torch.equal(tokens, reference[:, length:])
    with pytest.raises(generate.ConventionError,
                       match=r"the prompt makes B 5; graph 'prefill' takes 0 to 4"):
        generate.check_prompt(torch.zeros(5, length, dtype=torch.int64), steps.prefill, 1)
    with pytest.raises(generate.ConventionError,
                       match=r"the prompt makes S 33; graph 'prefill' takes 1 to 32"):
        generate.check_prompt(torch.zeros(1, 33, dtype=torch.int64), steps.prefill, 1)
    with pytest.raises(generate.ConventionError, match="does not hold 35 positions"):
        generate.check_prompt(ids[:, :4], steps.prefill, 32)
