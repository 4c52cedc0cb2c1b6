"""What an exported node's value is while the graph text is written."""
from .sizes import as_dim, format_dim


class Tensor:
    """A tensor of the graph: its name in the .graph text, torch dtype and shape
    (ints and symbolic dimensions, sympy expressions)."""
    __slots__ = ("name", "dtype", "shape")

    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, dtype, tuple(as_dim(d) for d in shape)

    @property
    def rank(self):
        return len(self.shape)

    def __repr__(self):
        return f"Tensor({self.name}, {self.dtype}, {list(self.shape)})"


class Deferred:
    """One result of a node of several (a piece of `split`), written only where a
    `getitem` takes it, as that node's statement."""
    __slots__ = ("write",)

    def __init__(self, write):
        self.write = write  # write(ctx) -> Tensor


class Joined:
    """`cat` of `parts` along a symbolic dimension, which no type of the language
    can hold (`S + 1`): only a slice of it is written (docs/importer.md)."""
    __slots__ = ("parts", "axis", "dtype", "shape")

    def __init__(self, parts, axis, dtype, shape):
        self.parts, self.axis, self.dtype = list(parts), axis, dtype
        self.shape = tuple(as_dim(d) for d in shape)

    @property
    def rank(self):
        return len(self.shape)

    def why(self):
        sizes = ", ".join(format_dim(p.shape[self.axis]) for p in self.parts)
        return (f"cat along dimension {self.axis} of sizes {sizes}: concat does not join along "
                f"a symbolic dimension (symbolic S2), and only slices of it are imported")
