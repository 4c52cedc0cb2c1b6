"""Shared helpers: the fkc binary, compiling a graph, and running it on the CPU
reference interpreter."""
import os
import subprocess
import sys

import pytest
import torch

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # tiny models from their configs only

sys.path.insert(0, os.path.dirname(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fkc_binary():
    return os.environ.get("FKC", os.path.join(ROOT, os.environ.get("FKC_BUILD_DIR", "build"),
                                              "bin", "fkc"))


def run_fkc(*args):
    result = subprocess.run([fkc_binary(), *map(str, args)], capture_output=True, text=True)
    assert result.returncode == 0, f"fkc {' '.join(map(str, args))} failed:\n{result.stderr}"
    return result.stdout


def relative_error(actual, expected):
    actual, expected = actual.double(), expected.double()
    return float((actual - expected).norm() / max(expected.norm(), 1e-30))


class Imported:
    """An imported graph saved in a folder, with helpers to compile and run it."""

    def __init__(self, graph, folder):
        self.graph, self.folder = graph, folder
        self.path = os.path.join(folder, "model.graph")
        self.weights = os.path.join(folder, "weights.safetensors")
        self.inputs = os.path.join(folder, "inputs.safetensors")
        graph.save(self.path, weights=self.weights, inputs=self.inputs)

    def compile(self):
        run_fkc(self.path, "-o", os.path.join(self.folder, "model.ptx"))

    def interpret(self):
        """The results of `fkc --interpret` on the saved weights and inputs, by name."""
        from safetensors.torch import load_file
        out = os.path.join(self.folder, "outputs.safetensors")
        run_fkc(self.path, "--interpret", "--graph", self.graph.name, "--inputs", self.weights,
                "--inputs", self.inputs, "--outputs", out)
        return load_file(out)


@pytest.fixture
def imported(tmp_path):
    return lambda graph: Imported(graph, str(tmp_path))


def flat_outputs(outputs):
    """A model's outputs as a list of tensors, in torch.export's order."""
    import torch.utils._pytree as pytree
    return [t for t in pytree.tree_leaves(outputs) if isinstance(t, torch.Tensor)]
