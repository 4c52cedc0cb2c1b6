"""Reductions: sum, mean, max/min over axes, argmax/argmin, any/all."""
import torch

from ..context import normalize_dim
from ..dtypes import Unsupported, format_list
from ..sizes import numel
from ..values import Deferred
from .registry import lowers

aten = torch.ops.aten


def _axes(x, dims):
    """The normalized axes of a reduction; None or [] reduce all (as ATen's dim lists)."""
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        return list(range(x.rank))
    if isinstance(dims, int):
        dims = [dims]
    return sorted({normalize_dim(d, x.rank) for d in dims})


def _reduce(ctx, op, x, dims, keepdim, dtype):
    axes = _axes(x, dims)
    operand = ctx.ref(x, dtype)
    if x.rank == 0 or not axes:
        return ctx.result(operand) if operand != x.name else x
    keep = ", keepdims=true" if keepdim else ""
    return ctx.result(f"{op}({operand}, axes={format_list(axes)}{keep})")


@lowers(aten.sum.dim_IntList, aten.sum.default)
def sum_(ctx, x, dim=None, keepdim=False, dtype=None):
    return _reduce(ctx, "sum", x, dim, keepdim, ctx.out_dtype)


@lowers(aten.mean.dim, aten.mean.default)
def mean(ctx, x, dim=None, keepdim=False, dtype=None):
    return _reduce(ctx, "mean", x, dim, keepdim, ctx.out_dtype)


@lowers(aten.amax.default, aten.amin.default, aten.max.default, aten.min.default)
def amax(ctx, x, dim=None, keepdim=False):
    op = "max" if ctx.node.target in (aten.amax.default, aten.max.default) else "min"
    return _reduce(ctx, op, x, dim, keepdim, x.dtype)


def _arg(ctx, op, x, dim, keepdim):
    if x.dtype == torch.bool:
        x = ctx.cast(x, torch.int32)
    if dim is None:
        x = ctx.reshape(x, [numel(x.shape)], "flat")
        dim = 0
    axis = normalize_dim(dim, x.rank)
    if x.rank == 0:
        raise Unsupported(f"{op} of a scalar")
    # The first index of an empty axis is none: torch raises, fkc needs the
    # axis bounded from below (`where 1 <= S`: docs/language.md section 4).
    ctx.sizes.require_nonempty(x.shape[axis])
    keep = ", keepdims=true" if keepdim else ""
    return f"cast({op}({x.name}, axis={axis}{keep}), to=i64)"


@lowers(aten.argmax.default, aten.argmin.default)
def argmax(ctx, x, dim=None, keepdim=False):
    op = "argmax" if ctx.node.target == aten.argmax.default else "argmin"
    expr = _arg(ctx, op, x, dim, keepdim)
    if dim is None and keepdim:
        flat = ctx.emit(expr, torch.int64, (1,), "index")
        return ctx.result(f"reshape({flat.name}, shape={format_list(ctx.out_shape)})")
    return ctx.result(expr)


@lowers(aten.max.dim, aten.min.dim)
def max_dim(ctx, x, dim, keepdim=False):
    """(values, indices): each written where a getitem takes it."""
    big = ctx.node.target == aten.max.dim
    values_meta, _ = ctx.node.meta["val"]
    values_shape = ctx.sizes.shape(values_meta.shape)

    def values(c):
        return _reduce(c, "max" if big else "min", x, [dim], keepdim, x.dtype)

    def indices(c):
        return c.result(_arg(c, "argmax" if big else "argmin", x, dim, keepdim),
                        torch.int64, values_shape)
    return [Deferred(values), Deferred(indices)]


@lowers(aten.any.default, aten.any.dim, aten.any.dims, aten.all.default, aten.all.dim,
        aten.all.dims)
def any_all(ctx, x, dim=None, keepdim=False):
    # any: some element is non-zero; all: none is zero (counted, so empty axes give
    # False and True as ATen does).
    is_any = ctx.node.target in (aten.any.default, aten.any.dim, aten.any.dims)
    test = "ne" if is_any else "eq"
    axes = _axes(x, dim)
    keep = ", keepdims=true" if keepdim else ""
    count = f"sum(cast({test}({x.name}, 0), to=i64), axes={format_list(axes)}{keep})"
    if x.rank == 0:
        count = f"cast({test}({x.name}, 0), to=i64)"
    return ctx.result(f"{'gt' if is_any else 'eq'}({count}, 0)")
