"""Tiny GPT-2, Llama, BERT and ViT: imported, compiled, and compared with PyTorch
on the CPU reference interpreter."""
import functools
import os

import pytest
import torch

import fkc
from conftest import Imported, flat_outputs, relative_error, run_fkc
from fkt import read_bundle
from models import MODELS, MORE_MODELS, VOCAB

# rel. L2 error against PyTorch on the CPU.
TOLERANCE = {torch.float32: 1e-4, torch.float16: 5e-3}
CASES = [(name, torch.float32) for name in MODELS] + [("gpt2", torch.float16),
                                                      ("llama", torch.float16)]
IDS = [f"{name}-{str(dtype).split('.')[-1]}" for name, dtype in CASES]


@functools.lru_cache(None)
def imported_model(name, dtype):
    model, args = MODELS[name](dtype)
    return model, args, fkc.from_torch(model, args)


@pytest.mark.parametrize("name,dtype", CASES, ids=IDS)
def test_imports_and_compiles(name, dtype, tmp_path):
    model, args, graph = imported_model(name, dtype)
    state_dict = model.state_dict()
    for parameter, key in graph.state_dict_names.items():
        assert f"{parameter}: " in graph.text
        if key in state_dict:
            assert torch.equal(graph.weights[parameter], state_dict[key]), key
    # Every statement says where in the model it comes from; the two layers are
    # one graph, called twice.
    layer, main = graph.graphs
    assert all(".py:" in s.comment for s in layer.statements)
    assert all(".py:" in s.comment or s.expr.startswith(layer.name + "(") or s.comment == "output"
               for s in main.statements)
    calls = [s for s in main.statements if s.expr.startswith(layer.name + "(")]
    assert [c.comment.split(" ")[0].rsplit(".", 1)[-1] for c in calls] == ["0", "1"]
    Imported(graph, str(tmp_path)).compile()


def test_layers_can_stay_inline(tmp_path):
    model, args = MODELS["gpt2"]()
    graph = fkc.from_torch(model, args, layers_as_graphs=False)
    assert [g.name for g in graph.graphs] == ["GPT2LMHeadModel"]
    Imported(graph, str(tmp_path)).compile()


def _as_gathered(index, n):
    """The row `gather` reads for `index` in a table of n rows: Python's
    negative indices in [-n, n), any other index clamped (docs/language.md)."""
    return torch.where((index >= -n) & (index < n), index % n, index.clamp(0, n - 1))


# The tables each integer input indexes (token ids, token types, positions).
TABLES = {"input_ids": VOCAB, "decoder_input_ids": VOCAB, "token_type_ids": 2,
          "position_ids": 32}
def _load_into(model, graph, tensors):
    """Copies the graph's weights `tensors` (by parameter name) into the model."""
    state = model.state_dict(keep_vars=True)  # tied weights under each of their names
    with torch.no_grad():
        for parameter, key in graph.state_dict_names.items():
            value, table = tensors[parameter], TABLES.get(key.rsplit(".", 1)[-1])
            if table:  # a buffer of positions, which only index their table
                value = _as_gathered(value, table)
            (state[key] if key in state else model.get_buffer(key)).copy_(value)


RANDOM_CASES = [("gpt2", torch.float32), ("llama", torch.float32), ("bert", torch.float32),
                ("vit", torch.float32), ("gpt2", torch.float16), ("llama", torch.float16)] + \
    [(name, torch.float32) for name in MORE_MODELS if name != "roberta"]


@pytest.mark.parametrize("name,dtype", RANDOM_CASES,
                         ids=[f"{n}-{str(d).split('.')[-1]}" for n, d in RANDOM_CASES])
def test_matches_torch_on_random_weights(name, dtype, tmp_path):
    """fkc's random weights and inputs (`--reference`) in both: no --inputs needed."""
    model, args = {**MODELS, **MORE_MODELS}[name](dtype)
    if name == "bert":  # token types and positions as inputs, to index them randomly too
        ids, mask = args
        args = (ids, mask, torch.zeros_like(ids), torch.arange(8).expand(2, 8))
    graph = fkc.from_torch(model, args)
    saved = Imported(graph, str(tmp_path))
    bundle = os.path.join(saved.folder, "reference.fkt")
    run_fkc(saved.path, "-o", os.path.join(saved.folder, "model.ptx"), "--reference", bundle,
            "--seed", "7")
    inputs, expected = read_bundle(bundle)[graph.name]
    _load_into(model, graph, inputs)
    user = [_as_gathered(inputs[k], TABLES[k]) if k in TABLES else inputs[k]
            for k in graph.inputs]
    if name == "t5":  # its attention mask, None, is no input of the graph
        user.insert(1, None)
    with torch.no_grad():
        actual = flat_outputs(model(*user))
    for result, want in zip(graph.outputs, actual):
        assert relative_error(expected[result], want) < TOLERANCE[dtype], result


@pytest.mark.parametrize("name,dtype", CASES, ids=IDS)
def test_matches_torch_with_its_weights(name, dtype, tmp_path):
    """The model's own weights and example inputs, through --inputs."""
    model, args, graph = imported_model(name, dtype)
    results = Imported(graph, str(tmp_path)).interpret()
    with torch.no_grad():
        expected = flat_outputs(model(*args))
    assert list(results) and set(results) == set(graph.outputs)
    for result, want in zip(graph.outputs, expected):
        assert results[result].dtype == want.dtype
        assert relative_error(results[result], want) < TOLERANCE[dtype], result


def test_roberta_compiles(tmp_path):
    """RoBERTa derives positions from the token ids, so random ids give PyTorch
    other positions than the graph: compared through --inputs only."""
    model, args = MORE_MODELS["roberta"]()
    saved = Imported(fkc.from_torch(model, args), str(tmp_path))
    saved.compile()
    results = saved.interpret()
    with torch.no_grad():
        expected = flat_outputs(model(*args))
    for result, want in zip(saved.graph.outputs, expected):
        assert relative_error(results[result], want) < TOLERANCE[torch.float32], result
