"""`dynamic_shapes=`: the user's names for symbolic sizes, given to torch.export
as its Dims, and torch's symbols (s0, s1) read back under those names."""
import inspect
import re

import sympy
import torch
import torch.utils._pytree as pytree

from .dtypes import Unsupported
from .errors import FkcError
from .names import KEYWORDS, LANGUAGE_OPS
from .sizes import as_dim, is_symbolic


def _symbol(name):
    return sympy.Symbol(name, integer=True, positive=True)


class UserDims:
    """The user's `dynamic_shapes`, as torch.export takes them (a dict by
    argument name whose axes are torch.export.Dims), and the name of each
    symbolic axis of each tensor input, in the order of the exported inputs."""

    def __init__(self, model, args, kwargs, dynamic_shapes):
        passed = _passed_arguments(model, args, kwargs)
        specs = _specs_by_name(dynamic_shapes, passed)
        self.torch_spec = {}
        self.axis_names = []  # per tensor input: {axis: name}
        self._by_source = {}  # (argument, axis) -> name, for torch's messages
        self._roots = {}  # a derived Dim's name (`2*T`) -> its root's (`T`)
        for name, value in passed:
            spec = specs.get(name)
            self.torch_spec[name] = self._convert(spec, value, name)
            for leaf, leaf_spec in _leaves_with_specs(value, spec):
                if isinstance(leaf, torch.Tensor):
                    axis_names = self._axis_names(leaf_spec, leaf, name)
                    self.axis_names.append(axis_names)
                    self._by_source.update({(name, a): n for a, n in axis_names.items()})

    def rename(self, text):
        """torch's `L['x'].size()[1]` as the name the user gave that size."""
        def name(match):
            key = (match.group(1), int(match.group(2)))
            return self._by_source.get(key, f"{key[0]}.size({key[1]})")
        return re.sub(r"L\['(\w+)'\]\.size\(\)\[(\d+)\]", name, text)

    def _dim(self, d):
        """What torch.export takes for a name or Dim, the name checked."""
        root = d if isinstance(d, str) else getattr(d, "root", d)
        if isinstance(root, torch.export.Dim):
            name = root.__name__
        elif isinstance(root, str):
            name = root
        else:
            return d  # torch.export.Dim.AUTO and such: torch names the size
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in KEYWORDS \
                or name in LANGUAGE_OPS:
            raise FkcError(f"dynamic_shapes: the size name {name!r} is not a name of the "
                           f"language (an identifier, not a keyword or an op)")
        if root is not d and not isinstance(d, str):
            self._roots[d.__name__] = name
        if isinstance(root, str):
            # A name alone lets torch bound the size as the model needs (a table of
            # 32 positions: S <= 32); a Dim's range is the user's, checked by torch.
            return torch.export.Dim.DYNAMIC
        return d

    def _axes(self, spec, tensor, where):
        """{axis: str or Dim} of one tensor's spec ({1: "S"} or [None, "S"])."""
        if spec is None:
            return {}
        if isinstance(spec, dict):
            axes = dict(spec)
        elif isinstance(spec, (list, tuple)):
            axes = dict(enumerate(spec))
        else:
            raise FkcError(f"dynamic_shapes[{where!r}]: expected a dict {{axis: name}} or a list "
                           f"per axis, got {type(spec).__name__}")
        for axis in axes:
            if not isinstance(axis, int) or not -tensor.dim() <= axis < tensor.dim():
                raise FkcError(f"dynamic_shapes[{where!r}]: axis {axis!r} is not an axis of a "
                               f"tensor of rank {tensor.dim()}")
        return {axis % tensor.dim(): d for axis, d in axes.items() if d is not None}

    def _convert(self, spec, value, where):
        if isinstance(value, torch.Tensor):
            return {axis: self._dim(d) for axis, d in self._axes(spec, value, where).items()} \
                or None
        return spec  # nested inputs: torch's own spelling

    def _axis_names(self, spec, tensor, where):
        """{axis: name} of the axes a name or a Dim makes symbolic."""
        names = {}
        for axis, d in self._axes(spec, tensor, where).items():
            if isinstance(d, str):
                names[axis] = d
            elif isinstance(d, torch.export.Dim):
                names[axis] = d.__name__
        return names

    def root_name(self, name):
        """The name of the Dim a derived Dim's name (`2*T`) is a function of."""
        return self._roots.get(name)


def _passed_arguments(model, args, kwargs):
    """[(argument name, value)] of the call, positional arguments first."""
    try:
        parameters = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    names = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY,
                                                      p.POSITIONAL_OR_KEYWORD)]
    passed = [(names[i] if i < len(names) else f"args_{i}", a) for i, a in enumerate(args)]
    return passed + list((kwargs or {}).items())


def _specs_by_name(dynamic_shapes, passed):
    if isinstance(dynamic_shapes, dict):
        known = {name for name, _ in passed}
        unknown = [k for k in dynamic_shapes if k not in known]
        if unknown:
            raise FkcError(f"dynamic_shapes names {unknown}, which the call does not pass "
                           f"(its arguments: {[name for name, _ in passed]})")
        return dict(dynamic_shapes)
    if isinstance(dynamic_shapes, (list, tuple)):
        if len(dynamic_shapes) > len(passed):
            raise FkcError(f"dynamic_shapes has {len(dynamic_shapes)} entries for "
                           f"{len(passed)} arguments")
        return {name: spec for (name, _), spec in zip(passed, dynamic_shapes)}
    raise FkcError(f"dynamic_shapes must be a dict by argument name or a tuple by position, "
                   f"got {type(dynamic_shapes).__name__}")


def _leaves_with_specs(value, spec):
    """(tensor, spec) for each tensor of an argument: the argument's own spec for
    a tensor; none named for nested arguments (torch names their sizes)."""
    if isinstance(value, torch.Tensor):
        return [(value, spec)]
    return [(leaf, None) for leaf in pytree.tree_leaves(value)]


class TorchSizes:
    """torch's sizes (ints, SymInts over s0, s1, ...) as dimensions of the
    language over the user's names, and the names' bounds."""

    def __init__(self, program, user_dims, input_nodes):
        self.names = {}  # torch symbol -> sympy symbol of the user's name
        for node, axis_names in zip(input_nodes, user_dims.axis_names if user_dims else []):
            shape = node.meta["val"].shape
            for axis, name in axis_names.items():
                expr = shape[axis].node.expr if isinstance(shape[axis], torch.SymInt) else None
                # The axis's size is the named symbol, or a derived Dim's function of it.
                root = user_dims.root_name(name)
                if expr is not None and root and len(expr.free_symbols) == 1:
                    expr, name = next(iter(expr.free_symbols)), root
                if expr is not None and expr.is_Symbol:
                    known = self.names.setdefault(expr, _symbol(name))
                    if str(known) != name:
                        raise FkcError(f"dynamic_shapes names one size {known} and {name}: the "
                                       f"model makes them equal, so give them one name")
        # Sizes no name was given for (torch.export.Dim.AUTO): torch's own name.
        for node in input_nodes:
            for d in node.meta["val"].shape:
                if isinstance(d, torch.SymInt):
                    for s in d.node.expr.free_symbols:
                        self.names.setdefault(s, _symbol(str(s)))
        self.bounds = {}
        for symbol, name in self.names.items():
            upper = program.range_constraints.get(symbol)
            upper = getattr(upper, "upper", None)
            if upper is not None and upper.is_Integer:
                self.bounds[str(name)] = int(upper)
        # {name: smallest size} the lowering needs (require_nonempty).
        self.lower_bounds = {}

    def require_nonempty(self, dim):
        """Notes that the graph reads an element of an axis of size `dim` (a
        gather along it, gather C3; an argmax), so that a symbolic one takes each of its
        symbols' smallest size as 1 (`where 1 <= S`), as the PyTorch code
        that indexes it assumes; kernels reading sizes at run time need it."""
        if is_symbolic(dim):
            for symbol in dim.free_symbols:
                self.lower_bounds[str(symbol)] = 1

    def dim(self, size):
        """A size of torch's (int or SymInt; a SymFloat or SymBool of sizes) as an
        int or sympy expression over the names."""
        if isinstance(size, (torch.SymInt, torch.SymFloat, torch.SymBool)):
            expr = size.node.expr
            unknown = expr.free_symbols - set(self.names)
            if unknown:
                raise Unsupported(f"the size {expr} depends on the data, not on the sizes of "
                                  f"the inputs")
            expr = expr.xreplace(self.names)
            return as_dim(expr) if isinstance(size, torch.SymInt) else expr
        return as_dim(size)

    def shape(self, shape):
        return tuple(self.dim(d) for d in shape)

    def symbols(self):
        return [str(name) for name in self.names.values()]
