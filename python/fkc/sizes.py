"""Sizes: a dimension is an int or a symbolic dimension, a sympy expression
over the names given in `dynamic_shapes` (`S`, `B*S`).

The language writes a symbolic dimension as a product of symbols and sizes
(docs/language.md, section 4); a size such as `S + 1` has no type. Sizes used
as numbers (`arange(S) + S`, an index `S - 1`) are computed in the graph
instead (`NodeContext.size_value`), where any sum of products can be.
"""
import math

import sympy

from .dtypes import Unsupported


class InexpressibleSize(Unsupported):
    """A size that no type of the language can hold (`S + 1`)."""


def as_dim(value):
    """An int, or a sympy expression that is not a constant."""
    if isinstance(value, sympy.Expr):
        return int(value) if value.is_Integer else value
    return int(value)


def is_static(dim):
    return isinstance(dim, int)


def is_symbolic(value):
    """A size that depends on the symbols (`S`, `S - 1`), as lowerings get them."""
    return isinstance(value, sympy.Expr) and not value.is_number


def format_dim(dim):
    """A dimension as the language writes it: `8`, `S`, `B*S`, `2*S`."""
    if is_static(dim):
        return str(dim)
    coefficient, factors = dim.as_coeff_mul()
    if not (coefficient.is_Integer and coefficient > 0 and factors
            and all(f.is_Symbol or (f.is_Pow and f.base.is_Symbol and f.exp.is_Integer
                                    and f.exp > 0) for f in factors)):
        raise InexpressibleSize(f"the size {dim} (a symbolic dimension is a product of symbols and "
                          f"sizes, such as B*S, in the language)")
    names = []
    for f in sorted(factors, key=str):
        base, count = (f.base, int(f.exp)) if f.is_Pow else (f, 1)
        names += [str(base)] * count
    return "*".join(([str(coefficient)] if coefficient != 1 else []) + names)


def format_shape(shape):
    return "[" + ", ".join(format_dim(d) for d in shape) + "]"


def numel(shape):
    return as_dim(math.prod(shape, start=sympy.Integer(1)))


def size_expression(size, count):
    """`size`, a sum of products of symbols, as an expression of the language
    whose symbols are written `count(symbol)` (`count(S) - 1`)."""
    size = sympy.expand(size)
    if not size.is_polynomial() or any(not t.as_coeff_mul()[0].is_Integer
                                       for t in sympy.Add.make_args(size)):
        raise Unsupported(f"the size {size} (only sums of products of symbols are computed)")
    text = ""
    for term in sorted(sympy.Add.make_args(size), key=lambda t: t.is_number):
        coefficient, factors = term.as_coeff_mul()
        parts = []
        for f in factors:
            base, times = (f.base, int(f.exp)) if f.is_Pow else (f, 1)
            parts += [count(base)] * times
        magnitude = abs(int(coefficient))
        if magnitude != 1 or not parts:
            parts.insert(0, str(magnitude))
        product = " * ".join(parts)
        if not text:
            text = ("-" if coefficient < 0 else "") + product
        else:
            text += (" - " if coefficient < 0 else " + ") + product
    return text


def broadcast_shapes(shapes):
    """numpy's broadcast of shapes whose dimensions may be symbolic (a symbol
    broadcasts only from 1)."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for k in range(rank):
        dims = {s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0}
        dims.discard(1)
        if len(dims) > 1:
            raise Unsupported(f"shapes {[format_shape(s) for s in shapes]} do not broadcast")
        out.append(dims.pop() if dims else 1)
    return tuple(out)
