"""How each ATen operation becomes statements of the language.

Each module registers its lowerings with `@lowers(op, ...)`; `LOWERINGS` maps an
ATen overload (or `operator.getitem`) to a function `fn(ctx, *args, **kwargs)`
whose tensor arguments are `Tensor`s and which returns the node's value.
"""
from .registry import LOWERINGS, lowers  # noqa: F401
from . import creation, elementwise, indexing, nn, reductions, shapes  # noqa: F401
