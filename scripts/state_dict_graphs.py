"""What the inference-graph writers (gpt2_inference_graph.py,
llama_inference_graph.py) share: parameters named as fkc's importer names a
state_dict's keys, graph signatures, and the weights file of a model's
state_dict under those names. Plain Python; only save_weights needs torch
and safetensors."""
import importlib.util
import json
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _importer_names():
    """python/fkc/names.py, the importer's naming rule, loaded on its own:
    the fkc package imports torch, which writing a graph does not need."""
    spec = importlib.util.spec_from_file_location(
        "fkc_names", os.path.join(REPO, "python", "fkc", "names.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


legalize = _importer_names().legalize


def signature(name, params, where=""):
    """The first lines of graph `name` taking `params`, one per line, with
    the bounds `where` (such as "B <= 16") if given."""
    bounds = f" where {where}" if where else ""
    return ["graph " + name + "(" + (",\n" + " " * (len(name) + 7)).join(params)
            + ")" + bounds + " {"]


def weights_from_state_dict(params, state_dict):
    """{graph parameter: tensor} of the (state_dict key, shape) `params`
    that a state_dict holds, each named by legalize."""
    missing = [key for key, _ in params if key not in state_dict]
    if missing:
        raise KeyError("the state_dict lacks " + ", ".join(missing))
    return {legalize(key): state_dict[key].contiguous() for key, _ in params}


def save_weights(params, state_dict, path):
    """Writes weights_from_state_dict's tensors to the .safetensors file at
    `path`, with the map to the state_dict keys in its metadata as the
    importer writes it (docs/importer.md)."""
    import sys
    sys.path.insert(0, os.path.join(REPO, "python"))
    from fkc.graph import METADATA_KEY
    from safetensors.torch import save_file
    tensors = weights_from_state_dict(params, state_dict)
    names = {legalize(key): key for key, _ in params}
    save_file({name: t.cpu() for name, t in tensors.items()}, path,
              metadata={"format": "pt",
                        METADATA_KEY: json.dumps(names, sort_keys=True)})
