"""Tensors made from nothing: arange, full, zeros, ones and their *_like forms."""
import torch

from ..dtypes import Unsupported, fk_dtype, format_list
from ..sizes import is_symbolic
from .registry import lowers

aten = torch.ops.aten


@lowers(aten.arange.default, aten.arange.start, aten.arange.start_step)
def arange(ctx, *args, **kwargs):
    bounds = list(args)
    start, step = (0, 1)
    if len(bounds) == 1:
        (end,) = bounds
    elif len(bounds) == 2:
        start, end = bounds
    else:
        start, end, step = bounds
    dt, (n,) = ctx.out_dtype, ctx.out_shape
    exact = all(isinstance(v, int) or is_symbolic(v) for v in (start, step))
    if not exact and not dt.is_floating_point:
        raise Unsupported("an integer arange with fractional bounds")

    def positions(dtype):
        expr = f"iota(shape={format_list([n])}, dtype={fk_dtype(dtype)})"
        if step != 1:
            expr += f" * {ctx.ref(step, dtype)}"
        return expr + (f" + {ctx.ref(start, dtype)}" if start != 0 else "")

    if not exact or not dt.is_floating_point or (start == 0 and step == 1):
        return ctx.result(positions(dt))
    # Integer positions computed exactly, then rounded to the float dtype once.
    index = ctx.emit(positions(torch.int64), torch.int64, (n,), "index")
    return ctx.result(f"cast({index.name}, to={fk_dtype(dt)})")


def _fill(ctx, value):
    if is_symbolic(value):  # a size, computed in the graph
        return ctx.result(f"broadcast({ctx.ref(value, ctx.out_dtype)}, "
                          f"shape={format_list(ctx.out_shape)})")
    return ctx.result(ctx.full(value, ctx.out_dtype, ctx.out_shape))


@lowers(aten.full.default, aten.new_full.default)
def full(ctx, *args, **kwargs):
    value = args[-1]
    return _fill(ctx, value)


@lowers(aten.full_like.default)
def full_like(ctx, x, value, **kwargs):
    return _fill(ctx, value)


@lowers(aten.zeros.default, aten.zeros_like.default, aten.new_zeros.default,
        aten.empty.memory_format, aten.empty_like.default, aten.new_empty.default)
def zeros(ctx, *args, **kwargs):
    return _fill(ctx, 0)


@lowers(aten.ones.default, aten.ones_like.default, aten.new_ones.default)
def ones(ctx, *args, **kwargs):
    return _fill(ctx, 1)


@lowers(aten.scalar_tensor.default)
def scalar_tensor(ctx, value, **kwargs):
    return _fill(ctx, value)
