"""An imported model: its .graph text, weights and example inputs, and saving them."""
import json

import torch

METADATA_KEY = "fkc.state_dict_names"


class GraphDef:
    """One graph of the file: parameters [(name, type text)], statements, results,
    and the bounds {symbol: largest size} and lower bounds {symbol: smallest
    size} of its symbolic dimensions."""

    def __init__(self, name, parameters, statements, results, bounds=None,
                 lower_bounds=None):
        self.name, self.parameters = name, list(parameters)
        self.statements, self.results = list(statements), list(results)
        self.bounds = dict(bounds or {})
        self.lower_bounds = dict(lower_bounds or {})

    def render(self):
        head = f"graph {self.name}("
        params = [f"{name}: {type_text}" for name, type_text in self.parameters]

        def bounded(symbol):
            text = symbol
            if symbol in self.lower_bounds:
                text = f"{self.lower_bounds[symbol]} <= {text}"
            if symbol in self.bounds:
                text = f"{text} <= {self.bounds[symbol]}"
            return text
        symbols = list(self.bounds) + [s for s in self.lower_bounds if s not in self.bounds]
        where = ", ".join(bounded(symbol) for symbol in symbols)
        lines = [head + (",\n" + " " * len(head)).join(params) + ")"
                 + (f" where {where}" if where else "") + " {"]
        for s in self.statements:
            lines.append(f"  {s.text}" + (f"  # {s.comment}" if s.comment else ""))
        lines.append(f"  return {', '.join(self.results)}")
        lines.append("}")
        return "\n".join(lines)


class Graph:
    """The result of `fkc.from_torch`.

    - `text`: the .graph source (str(graph) too): the model's graph last, after
      the graphs of its layers.
    - `name`: the model's graph's name in it; `graphs`: every GraphDef.
    - `weights`: {parameter name: tensor} of the model's parameters, buffers and
      constants, named as in the .graph.
    - `state_dict_names`: {parameter name: the model's state_dict key}.
    - `inputs`: {parameter name: example tensor} of the model's own inputs.
    - `outputs`: the names of the results, in order.
    """

    def __init__(self, graphs, model_name, weights, state_dict_names, inputs):
        self.graphs, self.model_name = graphs, model_name
        self.name = graphs[-1].name
        self.outputs = list(graphs[-1].results)
        self.weights = weights
        self.state_dict_names = state_dict_names
        self.inputs = inputs
        self.text = self._render()

    def _render(self):
        lines = [f"# {self.model_name}, imported by fkc from torch.export (torch {torch.__version__}).",
                 f"# The inputs of graph {self.name} come first; its other parameters are the",
                 "# model's weights, stored under these names in the .safetensors file saved",
                 "# with it.", ""]
        return "\n".join(lines) + "\n" + "\n\n".join(g.render() for g in self.graphs) + "\n"

    def __str__(self):
        return self.text

    def save(self, path, weights=None, inputs=None):
        """Writes the .graph to `path`; `weights=` also writes the weights and
        `inputs=` the example inputs, each as a .safetensors file keyed by the
        parameter names of the graph."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.text)
        if weights is not None:
            self.save_weights(weights)
        if inputs is not None:
            self.save_inputs(inputs)

    def save_weights(self, path):
        """The weights in their own dtypes, with the map from parameter names to
        state_dict keys as JSON under `__metadata__["fkc.state_dict_names"]`."""
        save_weights(self.weights, self.state_dict_names, path)

    def save_inputs(self, path, tensors=None):
        """The example inputs (or `tensors`, {input name: tensor}) by parameter name."""
        _save(self.inputs if tensors is None else tensors, path, {"format": "pt"})


def save_weights(weights, state_dict_names, path):
    """{parameter name: tensor} as Graph.save_weights writes them, for weights
    taken from a model rebuilt elsewhere."""
    metadata = {"format": "pt", METADATA_KEY: json.dumps(state_dict_names, sort_keys=True)}
    _save(weights, path, metadata)


def _save(tensors, path, metadata):
    from safetensors.torch import save_file
    save_file({k: v.detach().to("cpu").contiguous().clone() for k, v in tensors.items()}, path,
              metadata=metadata)
