"""Views and layout ops: reshape, transpose, broadcast, and the ops that only
rename a value (clone, alias, checks of metadata)."""
import operator

import torch

from ..context import normalize_dim
from ..dtypes import format_list
from ..values import Deferred
from .registry import lowers

aten = torch.ops.aten


@lowers(aten.view.default, aten._unsafe_view.default, aten.reshape.default,
        aten.unsqueeze.default, aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims,
        aten.flatten.using_ints)
def reshape(ctx, x, *args, **kwargs):
    if x.shape == ctx.out_shape:
        return x
    return ctx.result(f"reshape({x.name}, shape={format_list(ctx.out_shape)})")


@lowers(aten.permute.default)
def permute(ctx, x, dims):
    perm = [normalize_dim(d, x.rank) for d in dims]
    if perm == list(range(x.rank)):
        return x
    return ctx.result(f"transpose({x.name}, perm={format_list(perm)})")


@lowers(aten.t.default)
def t(ctx, x):
    return permute(ctx, x, list(range(x.rank))[::-1])


@lowers(aten.transpose.int)
def transpose(ctx, x, dim0, dim1):
    perm = list(range(x.rank))
    a, b = normalize_dim(dim0, x.rank), normalize_dim(dim1, x.rank)
    perm[a], perm[b] = perm[b], perm[a]
    return permute(ctx, x, perm)


@lowers(aten.expand.default)
def expand(ctx, x, size, implicit=False):
    if x.shape == ctx.out_shape:
        return x
    return ctx.result(f"broadcast({x.name}, shape={format_list(ctx.out_shape)})")


@lowers(aten.repeat.default)
def repeat(ctx, x, repeats):
    # Each dimension d of size n repeated r times: [1, n] broadcast to [r, n], then merged.
    shape = (1,) * (len(repeats) - x.rank) + x.shape
    spread = [s for n in shape for s in (1, n)]
    tiled = [s for r, n in zip(repeats, shape) for s in (r, n)]
    x = ctx.reshape(x, spread, "spread")
    x = ctx.emit(f"broadcast({x.name}, shape={format_list(tiled)})", x.dtype, tiled, "tiled")
    return ctx.result(f"reshape({x.name}, shape={format_list(ctx.out_shape)})")


@lowers(aten.clone.default, aten.alias.default, aten.detach.default, aten.lift_fresh_copy.default,
        aten.contiguous.default)
def alias(ctx, x, *args, **kwargs):
    return x


@lowers(aten._assert_tensor_metadata.default, aten._assert_scalar.default,
        aten.sym_constrain_range_for_size.default)
def no_value(ctx, *args, **kwargs):
    return None


@lowers(aten.copy.default)
def copy(ctx, dst, src, non_blocking=False):
    src = ctx.cast(src, dst.dtype)
    if src.shape == dst.shape:
        return src
    return ctx.result(f"broadcast({src.name}, shape={format_list(dst.shape)})")


@lowers(operator.getitem)
def getitem(ctx, values, i):
    """One result of a node of several; a deferred piece is written here."""
    value = values[i]
    return value.write(ctx) if isinstance(value, Deferred) else value
