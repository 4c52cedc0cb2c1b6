"""What the importer refuses, and how it says so."""
import json

import pytest
import torch
from safetensors import safe_open

import fkc


class Unsupported(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)
        self.conv = torch.nn.Conv2d(4, 4, kernel_size=3, padding=1)

    def forward(self, x):
        y = torch.remainder(self.proj(x), 3.0)          # no remainder op
        z = torch.sort(y, dim=-1).values                  # no sort op
        image = y.reshape(1, 4, 2, 2)
        return z, self.conv(image)                        # overlapping windows


def test_every_unsupported_op_is_named_with_its_module_and_line():
    with pytest.raises(fkc.UnsupportedModelError) as error:
        fkc.from_torch(Unsupported().eval(), (torch.randn(4, 4),))
    message = str(error.value)
    assert message.startswith("cannot import Unsupported: 3 unsupported operations")
    assert "aten.remainder" in message and "aten.sort" in message
    assert "aten.convolution.default: convolution with padding=[1, 1], stride [1, 1] differs " \
           "from the kernel [3, 3]" in message
    assert "conv (Conv2d)" in message and "test_errors.py:18" in message
    assert "Traceback" not in message
    assert [p.op for p in error.value.problems] == [
        "aten.remainder.Scalar", "aten.sort.default", "aten.convolution.default"]


class Double(torch.nn.Module):
    def forward(self, x):
        return x.double() * 2


def test_a_dtype_outside_the_language_is_refused():
    with pytest.raises(fkc.UnsupportedModelError, match="float64 has no counterpart"):
        fkc.from_torch(Double(), (torch.randn(3),))


class Stateful(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(1))

    def forward(self, x):
        self.count.add_(1)
        return x + self.count


def test_buffer_updates_are_refused():
    with pytest.raises(fkc.UnsupportedModelError, match="updates buffer_mutation 'count'"):
        fkc.from_torch(Stateful(), (torch.randn(3),))


class Named(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU())
        self.register_buffer("true", torch.ones(3))  # a keyword of the language

    def forward(self, x):
        return self.layers(x) * self.true


def test_parameter_names_are_identifiers_mapped_to_state_dict_keys(tmp_path):
    graph = fkc.from_torch(Named(), (torch.randn(2, 3),))
    assert graph.state_dict_names == {"layers_0_weight": "layers.0.weight",
                                      "layers_0_bias": "layers.0.bias", "true_": "true"}
    assert "graph Named(x: f32[2, 3],\n" in graph.text
    path = tmp_path / "w.safetensors"
    graph.save_weights(str(path))
    with safe_open(str(path), "pt") as f:
        assert sorted(f.keys()) == sorted(graph.state_dict_names)
        names = json.loads(f.metadata()["fkc.state_dict_names"])
    assert names == graph.state_dict_names


class Clashing(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Module()
        self.a.b_c = torch.nn.Parameter(torch.ones(2))
        self.a_b = torch.nn.Module()
        self.a_b.c = torch.nn.Parameter(torch.full((2,), 2.0))

    def forward(self, x):
        return x * self.a.b_c, (x + self.a_b.c, x)


def test_clashing_names_and_output_names():
    graph = fkc.from_torch(Clashing(), (torch.randn(2),))
    assert graph.state_dict_names == {"a_b_c": "a.b_c", "a_b_c_1": "a_b.c"}
    assert graph.outputs == ["output_0", "output_1_0", "x"]


def test_a_single_output_is_named_output():
    graph = fkc.from_torch(torch.nn.ReLU(), (torch.randn(3),))
    assert graph.outputs == ["output"] and "  output = relu(input)" in graph.text
