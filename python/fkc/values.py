"""What an exported node's value is while the graph text is written."""


class Tensor:
    """A tensor of the graph: its name in the .graph text, torch dtype and static shape."""
    __slots__ = ("name", "dtype", "shape")

    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, dtype, tuple(int(d) for d in shape)

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
