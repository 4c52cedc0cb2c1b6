"""Slicing, joining and indexing: slice, select, cat, split, pad, embedding-style
and advanced indexing (`index`, `gather`, `index_select`), and cumsum."""
import torch

from ..context import normalize_dim
from ..dtypes import Unsupported, fk_dtype, format_list, format_number
from ..sizes import broadcast_shapes, format_dim, is_static, numel
from ..values import Deferred, Joined, Tensor
from .registry import lowers

aten = torch.ops.aten
INDEX_DTYPES = (torch.int32, torch.int64)


def _gather(ctx, table, index, axis=None, dtype=None):
    """`gather(table, index[, axis=axis])`: `table` a tensor (cast to `dtype`
    where given), `index` an expression. Along a symbolic axis the graph's
    bounds keep it from being empty (gather C3), as the indexing PyTorch
    code assumes."""
    ctx.sizes.require_nonempty(table.shape[axis or 0])
    return (f"gather({ctx.ref(table, dtype)}, {index}"
            + ("" if axis is None else f", axis={axis}") + ")")


def _slice_expr(x, axis, start, stop, step=1):
    return f"slice({x.name}, axis={axis}, start={start}, stop={stop}, step={step})"


def _gathered(ctx, x, axis, start, step, length):
    """x[start::step] along `axis`, `length` positions, as a gather at those
    positions: `slice` takes a symbolic dimension only whole and its bounds are
    numbers (symbolic S2), a gather's positions may be anything. Of a cat
    (`Joined`), each part is gathered where the positions fall in it."""
    n = x.shape[axis]
    start = 0 if start is None else start
    if is_static(start) and start < 0:
        start = max(start + n, 0) if is_static(n) else start + n
    expr = f"iota(shape={format_list([length])}, dtype=i64)"
    if step != 1:
        expr += f" * {step}"
    if start != 0:
        expr += f" + {ctx.ref(start, torch.int64)}"
    positions = ctx.emit(expr, torch.int64, (length,), "positions")
    parts = x.parts if isinstance(x, Joined) else [x]
    offsets = [0]
    for part in parts[:-1]:
        if not is_static(part.shape[axis]):
            raise Unsupported(x.why())
        offsets.append(offsets[-1] + part.shape[axis])

    def take(part, offset):
        where = positions.name if offset == 0 else f"{positions.name} - {offset}"
        return _gather(ctx, part, where, axis, x.dtype)
    expr = take(parts[-1], offsets[-1])
    if len(parts) > 1:
        # The positions along `axis`, broadcast against the parts' other dimensions.
        along = ctx.reshape(positions, (length,) + (1,) * (x.rank - 1 - axis), "along")
        for part, offset, end in reversed(list(zip(parts, offsets, offsets[1:]))):
            expr = f"select(lt({along.name}, {end}), {take(part, offset)}, {expr})"
    return expr


def _bound(value):
    return value is None or isinstance(value, int)


@lowers(aten.slice.Tensor)
def slice_(ctx, x, dim=0, start=None, end=None, step=1):
    axis = normalize_dim(dim, x.rank)
    n = x.shape[axis]
    if isinstance(x, Tensor) and x.shape == ctx.out_shape:
        return x
    if isinstance(x, Joined) or not (is_static(n) and _bound(start) and _bound(end)):
        return ctx.result(_gathered(ctx, x, axis, start, step, ctx.out_shape[axis]))
    # Python's bounds clamped into [-n, n] mean the same and stay readable.
    start = 0 if start is None else max(-n, min(n, start))
    end = n if end is None else max(-n, min(n, end))
    return ctx.result(_slice_expr(x, axis, start, end, step))


@lowers(aten.select.int)
def select(ctx, x, dim, index):
    axis = normalize_dim(dim, x.rank)
    if isinstance(x, Joined) or not (is_static(x.shape[axis]) and isinstance(index, int)):
        row = ctx.emit(_gathered(ctx, x, axis, index, 1, 1), x.dtype,
                       x.shape[:axis] + (1,) + x.shape[axis + 1:], "row")
        return ctx.result(f"reshape({row.name}, shape={format_list(ctx.out_shape)})")
    index %= max(x.shape[axis], 1)
    row = ctx.emit(_slice_expr(x, axis, index, index + 1), x.dtype,
                   x.shape[:axis] + (1,) + x.shape[axis + 1:], "row")
    return ctx.result(f"reshape({row.name}, shape={format_list(ctx.out_shape)})")


@lowers(aten.cat.default)
def cat(ctx, tensors, dim=0):
    dt = ctx.out_dtype
    # ATen skips legacy empty 1-D operands of any other shape.
    parts = [t for t in tensors if not (t.shape == (0,) and ctx.out.dim() != 1)]
    axis = normalize_dim(dim, len(ctx.out_shape))
    if len(parts) == 1:
        return ctx.cast(parts[0], dt)
    if any(not is_static(t.shape[axis]) for t in parts):
        return Joined(parts, axis, dt, ctx.out_shape)
    return ctx.result(f"concat({', '.join(ctx.ref(t, dt) for t in parts)}, axis={axis})")


def _pieces(x, axis, sizes):
    if len(sizes) > 1:
        _static_axis(x, axis, "split")
    def piece(begin, size):
        def write(ctx):
            if size == x.shape[axis]:
                return x
            return ctx.result(_slice_expr(x, axis, begin, begin + size))
        return Deferred(write)
    offsets = [0]
    for s in sizes:
        offsets.append(offsets[-1] + s)
    return [piece(b, s) for b, s in zip(offsets, sizes)]


@lowers(aten.split_with_sizes.default, aten.split_with_sizes_copy.default)
def split_with_sizes(ctx, x, sizes, dim=0):
    return _pieces(x, normalize_dim(dim, x.rank), list(sizes))


def _static_axis(x, axis, what):
    n = x.shape[axis]
    if not is_static(n):
        raise Unsupported(f"{what} along the symbolic dimension {format_dim(n)} (symbolic S2: "
                          f"a size such as S + 1 has no type in the language)")
    return n


@lowers(aten.split.Tensor, aten.split_copy.Tensor)
def split(ctx, x, size, dim=0):
    axis = normalize_dim(dim, x.rank)
    n = _static_axis(x, axis, "split")
    sizes = [min(size, n - b) for b in range(0, n, size)] if size else [n]
    return _pieces(x, axis, sizes or [0])


@lowers(aten.unbind.int)
def unbind(ctx, x, dim=0):
    axis = normalize_dim(dim, x.rank)
    _static_axis(x, axis, "unbind")

    def row(i):
        def write(c):
            r = c.emit(_slice_expr(x, axis, i, i + 1), x.dtype,
                       x.shape[:axis] + (1,) + x.shape[axis + 1:], "row")
            return c.result(f"reshape({r.name}, shape={format_list(x.shape[:axis] + x.shape[axis + 1:])})",
                            x.dtype, x.shape[:axis] + x.shape[axis + 1:])
        return Deferred(write)
    return [row(i) for i in range(x.shape[axis])]


@lowers(aten.constant_pad_nd.default)
def constant_pad_nd(ctx, x, pad, value=0):
    low, high = [0] * x.rank, [0] * x.rank
    for k in range(len(pad) // 2):
        low[x.rank - 1 - k], high[x.rank - 1 - k] = pad[2 * k], pad[2 * k + 1]
    if min(low + high) < 0:
        raise Unsupported("negative padding (cropping)")
    for axis in range(x.rank):
        if low[axis] or high[axis]:
            _static_axis(x, axis, "pad")
    return ctx.result(f"pad({x.name}, low={format_list(low)}, high={format_list(high)}, "
                      f"value={format_number(value if x.dtype.is_floating_point else int(value))})")


@lowers(aten.embedding.default)
def embedding(ctx, weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return ctx.result(_gather(ctx, weight, indices.name))


@lowers(aten.index_select.default)
def index_select(ctx, x, dim, index):
    return ctx.result(_gather(ctx, x, index.name, normalize_dim(dim, x.rank)))


def _gather_linear(ctx, x, dims, coords, out_shape):
    """x[coords...] over the dimensions `dims` of x: the tensor x made
    [prod(dims sizes), other dims...] and gathered at the linear index
    sum(coord * stride); `coords` are expressions of one broadcast shape (i64,
    already in [0, n)). The result is [index shape..., other dims...]."""
    others = [d for d in range(x.rank) if d not in dims]
    moved = ctx.transpose(x, list(dims) + others, "moved")
    count = numel([x.shape[d] for d in dims])
    table = ctx.reshape(moved, [count] + [x.shape[d] for d in others], "table")
    stride, terms = 1, []
    for d, coord in reversed(list(zip(dims, coords))):
        terms.append(coord if stride == 1 else f"{coord} * {ctx.ref(stride, torch.int64)}")
        stride *= x.shape[d]
    index = ctx.emit(" + ".join(reversed(terms)), torch.int64, out_shape, "index")
    return _gather(ctx, table, index.name)


def _wrapped(ctx, index, n, suffix):
    """An index tensor as i64 with ATen's negative indices counted from the end."""
    ref = ctx.ref(index, torch.int64)
    wrapped = ctx.emit(f"select(lt({ref}, 0), {ref} + {ctx.ref(n, torch.int64)}, {ref})", torch.int64, index.shape,
                       suffix)
    return wrapped.name


@lowers(aten.index.Tensor)
def index(ctx, x, indices):
    """Advanced indexing `x[i0, i1, ...]` with index tensors (None skips a dimension)."""
    dims = [d for d, i in enumerate(indices) if i is not None]
    if any(indices[d].dtype == torch.bool for d in dims):
        raise Unsupported("indexing with a boolean mask (its result size depends on the data)")
    if len(dims) == 1:
        d = dims[0]
        return ctx.result(_gather(ctx, x, ctx.ref(indices[d]), d))
    index_shape = broadcast_shapes([indices[d].shape for d in dims])
    coords = [_wrapped(ctx, indices[d], x.shape[d], f"i{d}") for d in dims]
    others = [d for d in range(x.rank) if d not in dims]
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    gathered = _gather_linear(ctx, x, dims, coords, index_shape)
    if not adjacent or dims[0] == 0:  # ATen puts the index dims first
        return ctx.result(gathered)
    g = ctx.emit(gathered, x.dtype, index_shape + tuple(x.shape[d] for d in others), "gathered")
    # Adjacent indexed dims starting at p: the index dims go where they were.
    p, k = dims[0], len(index_shape)
    perm = list(range(k, k + p)) + list(range(k)) + list(range(k + p, g.rank))
    return ctx.result(f"transpose({g.name}, perm={format_list(perm)})")


@lowers(aten.gather.default)
def gather(ctx, x, dim, index, sparse_grad=False):
    """torch.gather: out[p] = x[p with p[dim] replaced by index[p]]."""
    axis = normalize_dim(dim, x.rank)
    shape = index.shape
    coords = []
    for d in range(x.rank):
        if d == axis:
            coords.append(_wrapped(ctx, index, x.shape[d], "i"))
        else:
            coords.append(f"iota(shape={format_list(shape)}, dim={d}, dtype=i64)")
    return ctx.result(_gather_linear(ctx, x, list(range(x.rank)), coords, shape))


@lowers(aten.cumsum.default)
def cumsum(ctx, x, dim, dtype=None):
    """A running sum as a product with an upper-triangular matrix of ones (exact
    for integers; float sums may round in another order than ATen's)."""
    dt = ctx.out_dtype
    axis = normalize_dim(dim, x.rank) if x.rank else 0
    if x.rank == 0:
        return ctx.cast(x, dt)
    n = x.shape[axis]
    perm = [d for d in range(x.rank) if d != axis] + [axis]
    rows = ctx.transpose(ctx.cast(x, dt), perm, "rows")
    if rows.rank == 1:
        rows = ctx.reshape(rows, (1, n), "rows2d")
    fk = fk_dtype(dt)
    square = format_list([n, n])
    tri = ctx.emit(f"cast(le(iota(shape={square}, dim=0), iota(shape={square}, dim=1)), to={fk})",
                   dt, (n, n), "triangle")
    summed = ctx.emit(f"{rows.name} @ {tri.name}", dt, rows.shape, "rows_sum")
    summed = ctx.reshape(summed, tuple(x.shape[d] for d in perm), "rows_shape")
    inverse = [perm.index(d) for d in range(x.rank)]
    if inverse == list(range(x.rank)):
        return ctx.result(summed.name) if summed.name != ctx.name else summed
    return ctx.result(f"transpose({summed.name}, perm={format_list(inverse)})")


slice_.takes_joined = select.takes_joined = True
