"""fkc's importer: PyTorch modules as .graph files, with their weights as .safetensors.

    import fkc
    g = fkc.from_torch(model, (ids,))
    g.save("gpt2.graph", weights="gpt2.safetensors", inputs="inputs.safetensors")
"""
from .errors import FkcError, UnsupportedModelError
from .graph import Graph
from .importer import from_torch

__all__ = ["from_torch", "Graph", "FkcError", "UnsupportedModelError"]
