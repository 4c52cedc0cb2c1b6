"""Writing statements: the graph's text, its names, and one node's helpers."""
import torch

from .dtypes import Unsupported, fk_dtype, format_list, format_number
from .names import NameTable
from .sizes import format_shape, is_symbolic, size_expression
from .values import Tensor


class Statement:
    """`targets = expr  # comment`, written for `node` (None for the importer's own)."""
    __slots__ = ("targets", "expr", "comment", "node")

    def __init__(self, targets, expr, comment, node=None):
        self.targets, self.expr, self.comment, self.node = list(targets), expr, comment, node

    @property
    def text(self):
        return f"{', '.join(self.targets)} = {self.expr}"


class GraphText:
    """The statements of the graph being written, the names they use, and the
    type (`f32[2, 8]`) of every tensor name."""

    def __init__(self):
        self.names = NameTable()
        self.statements = []
        self.defined = set()
        self.types = {}
        self.size_names = {}  # symbol -> the statement holding its size as a number

    def define(self, statement, types):
        self.statements.append(statement)
        self.defined.update(statement.targets)
        self.types.update(zip(statement.targets, types))

    def size_name(self, symbol):
        """The symbol's size as an i64 scalar (`size_S`), one statement at the top
        of the graph for all its uses. The language reads no size as a number,
        so it is counted: `sum(full(1, shape=[S], dtype=i64))`."""
        symbol = str(symbol)
        if symbol not in self.size_names:
            name = self.names.reserve(f"size_{symbol}")
            self.statements.insert(0, Statement(
                [name], f"sum(full(1, shape=[{symbol}], dtype=i64))", f"the size {symbol}"))
            self.defined.add(name)
            self.types[name] = "i64[]"
            self.size_names[symbol] = name
        return self.size_names[symbol]


class NodeContext:
    """Helpers for the lowering of one node: operands as expressions, statements
    named after the node (`view_3`, or `view_3_flat` for a helper statement), each
    with the node's module path and source line as a comment."""

    def __init__(self, text, node, name, comment, sizes):
        self.text, self.node, self.name, self.comment = text, node, name, comment
        self.sizes = sizes
        val = node.meta.get("val")
        self.out = val if isinstance(val, torch.Tensor) else None

    # --- the node's result -------------------------------------------------
    @property
    def out_dtype(self):
        return self.out.dtype

    @property
    def out_shape(self):
        return self.sizes.shape(self.out.shape)

    def emit(self, expr, dtype, shape, suffix=None):
        """Writes `NAME = expr` and returns the tensor; the node's own result takes
        the node's name, a helper statement `NAME_suffix`."""
        fk_dtype(dtype)
        name = self.name if suffix is None else self.text.names.reserve(f"{self.name}_{suffix}")
        self.text.define(Statement([name], expr, self.comment, self.node),
                         [f"{fk_dtype(dtype)}{format_shape(shape)}"])
        return Tensor(name, dtype, shape)

    def result(self, expr, dtype=None, shape=None):
        return self.emit(expr, self.out_dtype if dtype is None else dtype,
                         self.out_shape if shape is None else shape)

    # --- operands ------------------------------------------------------------
    def ref(self, value, dtype=None):
        """An operand as an expression: a tensor's name (cast to `dtype` where it
        differs) or a number, which takes its partner's dtype (section 6)."""
        if isinstance(value, Tensor):
            if dtype is not None and value.dtype != dtype:
                return f"cast({value.name}, to={fk_dtype(dtype)})"
            return value.name
        if is_symbolic(value):
            size = self.size_value(value)
            return self.ref(size, dtype)
        if isinstance(value, (bool, int, float)):
            if dtype is not None and not dtype.is_floating_point and isinstance(value, float):
                if not value.is_integer():
                    raise Unsupported(f"the number {value} in an integer computation")
                value = int(value)
            return format_number(value)
        raise Unsupported(f"an operand of kind {type(value).__name__}")

    def size_value(self, size):
        """A symbolic size (`S`, `S - 1`) as an i64 scalar of the graph."""
        if size.is_Symbol:
            return Tensor(self.text.size_name(size), torch.int64, ())
        return self.emit(size_expression(size, self.text.size_name), torch.int64, (), "size")

    def cast(self, value, dtype, suffix="cast"):
        """`value` as a tensor of `dtype` (a statement only where a cast is needed)."""
        if value.dtype == dtype:
            return value
        return self.emit(f"cast({value.name}, to={fk_dtype(dtype)})", dtype, value.shape, suffix)

    def reshape(self, value, shape, suffix="reshape"):
        shape = tuple(shape)
        if value.shape == shape:
            return value
        return self.emit(f"reshape({value.name}, shape={format_list(shape)})", value.dtype, shape,
                         suffix)

    def transpose(self, value, perm, suffix="transpose"):
        perm = list(perm)
        if perm == list(range(len(perm))):
            return value
        shape = tuple(value.shape[p] for p in perm)
        return self.emit(f"transpose({value.name}, perm={format_list(perm)})", value.dtype, shape,
                         suffix)

    def full(self, number, dtype, shape=()):
        return f"full({format_number(number)}, shape={format_list(shape)}, dtype={fk_dtype(dtype)})"


def normalize_dim(dim, rank):
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise Unsupported(f"dimension {dim} out of range for rank {rank}")
    return dim % rank if rank else 0

