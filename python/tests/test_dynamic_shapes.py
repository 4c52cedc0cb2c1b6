"""dynamic_shapes: models and ops imported once with symbolic sizes, then bound
to several sizes (`fkc --bind`) and compared with PyTorch at each."""
import os
import re

import pytest
import torch
from safetensors.torch import load_file, save_file
from torch.export import Dim

import fkc
from conftest import flat_outputs, relative_error, run_fkc
from fkt import read_bundle
from models import MODELS, MORE_MODELS, VOCAB

TOLERANCE = 1e-5  # rel. L2 error against PyTorch, f32


def run_bound(graph, folder, sizes, inputs):
    """The graph's results at `sizes` ({symbol: size}) on `inputs`, by `fkc --interpret`."""
    path, weights = os.path.join(folder, "model.graph"), os.path.join(folder, "weights.safetensors")
    if not os.path.exists(path):
        graph.save(path, weights=weights)
    given, out = os.path.join(folder, "inputs.safetensors"), os.path.join(folder, "out.safetensors")
    save_file({k: v.contiguous() for k, v in inputs.items()}, given)
    bind = ",".join(f"{k}={v}" for k, v in sizes.items())
    run_fkc(path, "--bind", bind, "--interpret", "--graph", graph.name, "--inputs", weights,
            "--inputs", given, "--outputs", out)
    return load_file(out)


def token_inputs(batch, length, with_mask):
    torch.manual_seed(length)
    inputs = {"input_ids": torch.randint(0, VOCAB, (batch, length))}
    if with_mask:
        mask = torch.ones(batch, length, dtype=torch.int64)
        mask[-1, length // 2 + 1:] = 0  # the last sequence is padded
        inputs["attention_mask"] = mask
    return inputs


def image_inputs(batch, length, with_mask):
    torch.manual_seed(batch)
    return {"pixel_values": torch.randn(batch, 3, 32, 32)}


# (model, dynamic_shapes in one of the forms torch.export takes, the types of
# the graph's inputs, its bounds, (B, S) sizes to bind, the inputs at a size).
CASES = {
    "gpt2": ({"input_ids": {1: "S"}}, ["input_ids: i64[2, S]"], " where 1 <= S",
             [(2, 1), (2, 7), (2, 8)],
             token_inputs),
    "llama": (({0: Dim("B", max=4), 1: Dim("S", max=64)},), ["input_ids: i64[B, S]"],
              " where 1 <= B <= 4, 1 <= S <= 64", [(1, 1), (3, 7), (2, 8)], token_inputs),
    "bert": ({"input_ids": [None, "S"], "attention_mask": [None, "S"]},
             ["input_ids: i64[2, S]", "attention_mask: i64[2, S]"], " where 1 <= S <= 32",
             [(2, 1), (2, 7), (2, 8)], token_inputs),
    "vit": ({"pixel_values": {0: "B"}}, ["pixel_values: f32[B, 3, 32, 32]"], "",
            [(1, 8), (3, 8), (2, 8)], image_inputs),
}


@pytest.mark.parametrize("name", list(CASES))
def test_model_matches_torch_at_each_size(name, tmp_path):
    dynamic_shapes, types, where, sizes, make_inputs = CASES[name]
    model, args = MODELS[name]()
    graph = fkc.from_torch(model, args, dynamic_shapes=dynamic_shapes)
    head = graph.text[graph.text.index(f"graph {graph.name}("):]
    for t in types:
        assert t in head
    assert head.split("{")[0].endswith(")" + where + " ")
    assert not re.search(r"\bs\d+\b", graph.text), "a size under torch's name"
    if name != "vit":  # the layers are one graph, symbolic too
        assert graph.graphs[0].name.endswith(("Block", "Layer"))
    symbols = {"B", "S"} & set(re.findall(r"[A-Z]\w*", head.split("{")[0]))
    for batch, length in sizes:
        inputs = make_inputs(batch, length, "attention_mask" in graph.inputs)
        bound = {"B": batch, "S": length}
        results = run_bound(graph, str(tmp_path), {s: bound[s] for s in sorted(symbols)}, inputs)
        with torch.no_grad():
            expected = flat_outputs(model(**inputs))
        for result, want in zip(graph.outputs, expected):
            assert results[result].shape == want.shape, (result, batch, length)
            assert relative_error(results[result], want) < TOLERANCE, (result, batch, length)
    # Compiled at the example's sizes (the last of `sizes`), and, where every
    # symbol is bounded (the workspace between kernels is sized at the
    # bounds), as one artifact for every size, its kernels reading the sizes
    # at run time.
    run_fkc(os.path.join(str(tmp_path), "model.graph"), "--bind",
            ",".join(f"{s}={bound[s]}" for s in sorted(symbols)), "-o",
            os.path.join(str(tmp_path), "model.ptx"))
    if all(re.search(rf"\b{s} <= \d", where) for s in symbols):
        run_fkc(os.path.join(str(tmp_path), "model.graph"), "-o",
                os.path.join(str(tmp_path), "model_any_size.ptx"))


def test_encoder_decoder_with_two_lengths(tmp_path):
    """T5: the encoder's length S and the decoder's T, each its own symbol
    (relative position buckets over S x S, T x T; cross-attention T x S)."""
    model, (ids, _, decoder_ids) = MORE_MODELS["t5"]()
    graph = fkc.from_torch(model, (ids, None, decoder_ids),
                           dynamic_shapes={"input_ids": {1: "S"}, "decoder_input_ids": {1: "T"}})
    assert "input_ids: i64[2, S]" in graph.text and "decoder_input_ids: i64[2, T]" in graph.text
    for length, decoded in ((1, 1), (7, 3), (8, 5)):
        torch.manual_seed(length)
        inputs = {"input_ids": torch.randint(0, VOCAB, (2, length)),
                  "decoder_input_ids": torch.randint(0, VOCAB, (2, decoded))}
        results = run_bound(graph, str(tmp_path), {"S": length, "T": decoded}, inputs)
        with torch.no_grad():
            expected = flat_outputs(model(**inputs))
        for result, want in zip(graph.outputs, expected):
            assert relative_error(results[result], want) < TOLERANCE, (result, length, decoded)


class Positions(torch.nn.Module):
    """Sizes used as numbers and slices of symbolic axes: the last token,
    the first, a table's first S rows, sizes in arithmetic, arange bounds, a
    fill and a comparison, a shifted difference (a cat along S, then sliced),
    a running sum and an index whose strides are S."""

    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.randn(16, 4))

    def forward(self, x):
        n = x.shape[1]
        last, first = x[:, -1], x[:, :1]
        rows = self.table[:n]                                   # [S, 4] of a static table
        steps = torch.arange(n) * 2 + n                         # S as a number
        counts = torch.arange(n, 2 * n) + torch.full((1,), n)   # bounds and a fill of sizes
        above = (x * 4 > n).float()                             # a size compared
        prev = torch.cat([x[:, :1], x], dim=1)[:, :n]           # x shifted by one along S
        running = torch.cumsum(x, dim=1)
        reversed_ = n - 1 - torch.arange(n)                     # S - 1 as a number
        picked = x[torch.arange(x.shape[0])[:, None], reversed_[None, :]]
        return (last, first, x + rows, steps, counts, above, x - prev, running, picked)


def test_sizes_as_numbers_and_slices_of_symbolic_axes(tmp_path):
    module = Positions().eval()
    graph = fkc.from_torch(module, (torch.randn(2, 6, 4),), dynamic_shapes={"x": {1: "S"}})
    assert "where 1 <= S <= 16" in graph.text  # the table has 16 rows; S is indexed
    for length in (1, 5, 16):
        torch.manual_seed(length)
        x = torch.randn(2, length, 4)
        results = run_bound(graph, str(tmp_path), {"S": length}, {"x": x})
        with torch.no_grad():
            expected = flat_outputs(module(x))
        for result, want in zip(graph.outputs, expected):
            assert results[result].shape == want.shape, (result, length)
            assert relative_error(results[result], want) < TOLERANCE, (result, length)


def test_reference_draws_at_bound_sizes(tmp_path):
    """`fkc --bind --reference` of an imported symbolic graph: fkc's random inputs
    at the bound sizes, PyTorch on the same tensors."""
    module = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.LayerNorm(16),
                                 torch.nn.Softmax(dim=-1)).eval()
    batch = Dim("batch", max=128)
    graph = fkc.from_torch(module, (torch.randn(3, 5, 8),), dynamic_shapes=[{0: batch, 1: "T"}])
    assert "input: f32[batch, T, 8]" in graph.text and "where batch <= 128" in graph.text
    path, bundle = os.path.join(str(tmp_path), "m.graph"), os.path.join(str(tmp_path), "r.fkt")
    graph.save(path)
    run_fkc(path, "--bind", "batch=2,T=3", "-o", os.path.join(str(tmp_path), "m.ptx"),
            "--reference", bundle)
    inputs, expected = read_bundle(bundle)[graph.name]
    state = module.state_dict()
    with torch.no_grad():
        for parameter, key in graph.state_dict_names.items():
            state[key].copy_(inputs[parameter])
        want = module(inputs["input"])
    assert want.shape == (2, 3, 16)
    assert relative_error(expected[graph.outputs[0]], want) < TOLERANCE


class Pairs(torch.nn.Module):
    def forward(self, x, y):
        return x.reshape(2, -1, 2).sum(-1) + y


def test_derived_dims_are_written_in_their_root(tmp_path):
    half = Dim("T", max=32)
    graph = fkc.from_torch(Pairs(), (torch.randn(2, 8), torch.randn(2, 4)),
                           dynamic_shapes={"x": {1: 2 * half}, "y": {1: half}})
    assert "x: f32[2, 2*T]" in graph.text and "where T <= 32" in graph.text
    assert "reshape(x, shape=[2, T, 2])" in graph.text
    for length in (1, 3):
        x, y = torch.randn(2, 2 * length), torch.randn(2, length)
        results = run_bound(graph, str(tmp_path), {"T": length}, {"x": x, "y": y})
        assert relative_error(results[graph.outputs[0]], Pairs()(x, y)) < TOLERANCE
    # Named apart, x's size is no product of y's: its half has no type.
    with pytest.raises(fkc.UnsupportedModelError, match=r"the size \(U//2\)"):
        fkc.from_torch(Pairs(), (torch.randn(2, 8), torch.randn(2, 4)),
                       dynamic_shapes={"x": {1: "U"}, "y": {1: "S"}})


class Flat(torch.nn.Module):
    """Layers that see the batch and sequence only as one axis of B*S rows."""

    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)])

    def forward(self, x):
        h = x.reshape(-1, 4)
        for layer in self.layers:
            h = layer(h).relu() + h
        return h


def test_layers_that_see_symbols_only_in_products_stay_inline(tmp_path):
    """A call gives a symbol only where a parameter's dimension is the symbol
    alone (docs/language.md, symbolic F4): no graph of `h: f32[B*S, 4]`."""
    module = Flat().eval()
    graph = fkc.from_torch(module, (torch.randn(2, 6, 4),),
                           dynamic_shapes={"x": {0: "B", 1: "S"}})
    assert [g.name for g in graph.graphs] == ["Flat"] and "shape=[B*S, 4]" in graph.text
    x = torch.randn(3, 5, 4)
    results = run_bound(graph, str(tmp_path), {"B": 3, "S": 5}, {"x": x})
    with torch.no_grad():
        assert relative_error(results[graph.outputs[0]], module(x)) < TOLERANCE


class Pad(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.pad(x, (0, 0, 1, 0)) * 2


class Shift(torch.nn.Module):
    def forward(self, x):
        return x[:, 1:] * 2


class Doubled(torch.nn.Module):
    def forward(self, x):
        return torch.cat([x, x], dim=1).sum(1)


class Fixed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(6, 4))

    def forward(self, x):
        return x + self.w


@pytest.mark.parametrize("module,op,reason", [
    (Pad(), "aten.constant_pad_nd.default", "pad along the symbolic dimension S"),
    (Shift(), "aten.slice.Tensor", "the size S - 1"),
    (Doubled(), "aten.sum.dim_IntList", "cat along dimension 1 of sizes S, S"),
], ids=["pad", "shift", "cat"])
def test_sizes_the_language_cannot_type_are_named(module, op, reason):
    with pytest.raises(fkc.UnsupportedModelError) as error:
        fkc.from_torch(module, (torch.randn(2, 6, 4),), dynamic_shapes={"x": {1: "S"}})
    (problem,) = error.value.problems
    assert problem.op == op and reason in problem.reason
    assert "test_dynamic_shapes.py:" in problem.location
    assert f"{op}: {reason}" in str(error.value)


@pytest.mark.parametrize("dynamic_shapes,message", [
    ({"x": {1: "S"}}, "the model does not allow: You marked S as dynamic but your code "
                      "specialized it to be a constant (6)"),
    ({"x": {1: Dim("T", max=16)}}, "constant (6) (suggested: T = 6)"),
    ({"y": {1: "S"}}, "dynamic_shapes names ['y'], which the call does not pass"),
    ({"x": {1: "seq len"}}, "the size name 'seq len' is not a name of the language"),
    ({"x": {1: "gather"}}, "the size name 'gather' is not a name of the language"),
    ({"x": {3: "S"}}, "axis 3 is not an axis of a tensor of rank 3"),
    ("S", "dynamic_shapes must be a dict by argument name or a tuple by position"),
], ids=["constant", "constant-dim", "argument", "name", "op-name", "axis", "form"])
def test_dynamic_shapes_errors(dynamic_shapes, message):
    with pytest.raises(fkc.FkcError) as error:
        fkc.from_torch(Fixed(), (torch.randn(2, 6, 4),), dynamic_shapes=dynamic_shapes)
    assert message in str(error.value)
