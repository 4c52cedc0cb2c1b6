"""Elementwise ATen ops: arithmetic with ATen's dtype promotion made explicit
by `cast`, comparisons, logic on booleans, `where`, and unary functions."""
import torch

from ..dtypes import Unsupported, fk_dtype
from ..sizes import is_symbolic
from ..values import Tensor
from .registry import lowers

aten = torch.ops.aten


def _meta(value):
    """A stand-in for torch.result_type: tensors as meta tensors of their rank
    (promotion looks at ranks, not sizes), numbers as they are, a symbolic size
    as the integer it is."""
    if isinstance(value, Tensor):
        return torch.empty((1,) * value.rank, dtype=value.dtype, device="meta")
    if is_symbolic(value):
        return 1
    return value


def compute_dtype(*operands):
    """The dtype ATen computes a comparison or selection in (its type promotion)."""
    metas = [_meta(v) for v in operands]
    if len(metas) == 1:
        return metas[0].dtype
    dtype = torch.result_type(metas[0], metas[1])
    for m in metas[2:]:
        dtype = torch.promote_types(dtype, torch.result_type(m, torch.empty((), dtype=dtype)))
    return dtype


def _scaled(ctx, value, alpha, dtype):
    if alpha == 1:
        return ctx.ref(value, dtype)
    return f"{ctx.ref(value, dtype)} * {ctx.ref(alpha, dtype)}"


@lowers(aten.add.Tensor, aten.add.Scalar)
def add(ctx, a, b, alpha=1):
    dt = ctx.out_dtype
    return ctx.result(f"{ctx.ref(a, dt)} + {_scaled(ctx, b, alpha, dt)}")


@lowers(aten.sub.Tensor, aten.sub.Scalar)
def sub(ctx, a, b, alpha=1):
    dt = ctx.out_dtype
    return ctx.result(f"{ctx.ref(a, dt)} - {_scaled(ctx, b, alpha, dt)}")


@lowers(aten.rsub.Tensor, aten.rsub.Scalar)
def rsub(ctx, a, b, alpha=1):
    dt = ctx.out_dtype
    return ctx.result(f"{ctx.ref(b, dt)} - {_scaled(ctx, a, alpha, dt)}")


@lowers(aten.mul.Tensor, aten.mul.Scalar)
def mul(ctx, a, b):
    dt = ctx.out_dtype
    if dt == torch.bool:  # x * y of booleans is their conjunction
        return logical_and(ctx, a, b)
    return ctx.result(f"{ctx.ref(a, dt)} * {ctx.ref(b, dt)}")


@lowers(aten.div.Tensor, aten.div.Scalar, aten.div.Tensor_mode, aten.div.Scalar_mode)
def div(ctx, a, b, rounding_mode=None):
    dt = ctx.out_dtype
    quotient = f"{ctx.ref(a, dt)} / {ctx.ref(b, dt)}"
    if rounding_mode is None or (rounding_mode == "trunc" and not dt.is_floating_point):
        return ctx.result(quotient)  # integer division truncates toward zero, as 'trunc'
    if rounding_mode == "floor" and dt.is_floating_point:
        return ctx.result(f"floor({quotient})")
    q = ctx.emit(quotient, dt, ctx.out_shape, "quotient")
    if rounding_mode == "trunc":  # floats: toward zero
        return ctx.result(f"select(lt({q.name}, 0), -floor(-{q.name}), floor({q.name}))")
    if rounding_mode == "floor":  # integers: one less where the remainder's sign differs
        r = ctx.emit(f"{ctx.ref(a, dt)} - {q.name} * {ctx.ref(b, dt)}", dt, ctx.out_shape,
                     "remainder")
        b_negative = f"lt({b.name}, 0)" if isinstance(b, Tensor) else ("1" if b < 0 else "0")
        off_by_one = f"select(ne({r.name}, 0), ne(lt({r.name}, 0), {b_negative}), 0)"
        return ctx.result(f"{q.name} - cast({off_by_one}, to={fk_dtype(dt)})")
    raise Unsupported(f"rounding_mode={rounding_mode!r}")


@lowers(aten.remainder.Tensor, aten.remainder.Scalar, aten.fmod.Tensor, aten.fmod.Scalar)
def remainder(ctx, a, b):
    raise Unsupported("remainder/fmod (the language has no remainder op)")


@lowers(aten.pow.Tensor_Scalar, aten.pow.Tensor_Tensor, aten.pow.Scalar)
def pow_(ctx, a, b):
    dt = ctx.out_dtype
    if not dt.is_floating_point:
        if isinstance(b, int) and 0 <= b <= 4 and isinstance(a, Tensor):
            x = ctx.ref(a, dt)
            return ctx.result(" * ".join([x] * b) if b else f"{x} * 0 + 1")
        raise Unsupported("integer pow with a tensor or large exponent")
    return ctx.result(f"pow({ctx.ref(a, dt)}, {ctx.ref(b, dt)})")


@lowers(aten.maximum.default, aten.minimum.default, aten.fmax.default, aten.fmin.default)
def maximum(ctx, a, b):
    if ctx.node.target in (aten.fmax.default, aten.fmin.default):
        raise Unsupported("fmax/fmin ignore NaN; the language's max/min propagate it")
    op = "max" if ctx.node.target == aten.maximum.default else "min"
    dt = ctx.out_dtype
    return ctx.result(f"{op}({ctx.ref(a, dt)}, {ctx.ref(b, dt)})")


@lowers(aten.clamp.default, aten.clamp.Tensor, aten.clamp_min.default, aten.clamp_max.default,
        aten.clamp_min.Tensor, aten.clamp_max.Tensor)
def clamp(ctx, x, lo=None, hi=None):
    if ctx.node.target in (aten.clamp_max.default, aten.clamp_max.Tensor):
        lo, hi = None, lo
    dt = ctx.out_dtype
    expr = ctx.ref(x, dt)
    if lo is not None:
        expr = f"max({expr}, {ctx.ref(lo, dt)})"
    if hi is not None:
        expr = f"min({expr}, {ctx.ref(hi, dt)})"
    if lo is None and hi is None:
        return x
    return ctx.result(expr)


_COMPARISONS = {
    "eq": (aten.eq.Tensor, aten.eq.Scalar), "ne": (aten.ne.Tensor, aten.ne.Scalar),
    "lt": (aten.lt.Tensor, aten.lt.Scalar), "le": (aten.le.Tensor, aten.le.Scalar),
    "gt": (aten.gt.Tensor, aten.gt.Scalar), "ge": (aten.ge.Tensor, aten.ge.Scalar),
}


def _comparison(name):
    def lower(ctx, a, b):
        dt = compute_dtype(a, b)
        return ctx.result(f"{name}({ctx.ref(a, dt)}, {ctx.ref(b, dt)})")
    return lower


for _name, _ops in _COMPARISONS.items():
    lowers(*_ops)(_comparison(_name))


def _as_bool(ctx, value):
    """A boolean operand: i1 tensors as they are, others compared with 0 (numbers folded)."""
    if isinstance(value, Tensor):
        return value.name if value.dtype == torch.bool else f"ne({value.name}, 0)"
    return bool(value)


def _with_constant(ctx, a, b):
    """Orders a logical op's operands tensor first; the second may be a constant."""
    if not isinstance(a, Tensor):
        a, b = b, a
    if not isinstance(a, Tensor):
        raise Unsupported("a logical op of two constants")
    return a, (bool(b) if not isinstance(b, Tensor) else b)


def _bool_result(ctx, x):
    """`x` as the node's boolean result: itself if it is i1, else `x != 0`."""
    return x if x.dtype == torch.bool else ctx.result(f"ne({x.name}, 0)")


@lowers(aten.logical_and.default, aten.bitwise_and.Tensor, aten.bitwise_and.Scalar)
def logical_and(ctx, a, b):
    if ctx.node.target != aten.logical_and.default and ctx.out_dtype != torch.bool:
        raise Unsupported("bitwise and of integers")
    x, y = _with_constant(ctx, a, b)
    if isinstance(y, bool):
        return _bool_result(ctx, x) if y else ctx.result(ctx.full(0, torch.bool, ctx.out_shape))
    return ctx.result(f"select({_as_bool(ctx, x)}, {_as_bool(ctx, y)}, 0)")


@lowers(aten.logical_or.default, aten.bitwise_or.Tensor, aten.bitwise_or.Scalar)
def logical_or(ctx, a, b):
    if ctx.node.target != aten.logical_or.default and ctx.out_dtype != torch.bool:
        raise Unsupported("bitwise or of integers")
    x, y = _with_constant(ctx, a, b)
    if isinstance(y, bool):
        return ctx.result(ctx.full(1, torch.bool, ctx.out_shape)) if y else _bool_result(ctx, x)
    return ctx.result(f"select({_as_bool(ctx, x)}, 1, {_as_bool(ctx, y)})")


@lowers(aten.logical_xor.default, aten.bitwise_xor.Tensor)
def logical_xor(ctx, a, b):
    if ctx.node.target != aten.logical_xor.default and ctx.out_dtype != torch.bool:
        raise Unsupported("bitwise xor of integers")
    x, y = _as_bool(ctx, a), _as_bool(ctx, b)
    if isinstance(x, bool) or isinstance(y, bool):
        raise Unsupported("xor with a constant")
    return ctx.result(f"ne({x}, {y})")


@lowers(aten.logical_not.default, aten.bitwise_not.default)
def logical_not(ctx, x):
    if ctx.node.target == aten.bitwise_not.default and x.dtype != torch.bool:
        raise Unsupported("bitwise not of integers")
    return ctx.result(f"eq({x.name}, 0)")


@lowers(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar)
def where(ctx, condition, a, b):
    dt = ctx.out_dtype
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        a = ctx.full(a, dt)
        return ctx.result(f"select({_as_bool(ctx, condition)}, {a}, {ctx.ref(b, dt)})")
    return ctx.result(f"select({_as_bool(ctx, condition)}, {ctx.ref(a, dt)}, {ctx.ref(b, dt)})")


@lowers(aten.masked_fill.Scalar, aten.masked_fill.Tensor)
def masked_fill(ctx, x, mask, value):
    dt = ctx.out_dtype
    return ctx.result(f"select({_as_bool(ctx, mask)}, {ctx.ref(value, dt)}, {ctx.ref(x, dt)})")


_UNARY = {
    aten.exp.default: "exp", aten.log.default: "log", aten.sqrt.default: "sqrt",
    aten.rsqrt.default: "rsqrt", aten.tanh.default: "tanh", aten.sigmoid.default: "sigmoid",
    aten.silu.default: "silu", aten.erf.default: "erf", aten.sin.default: "sin",
    aten.cos.default: "cos", aten.abs.default: "abs", aten.relu.default: "relu",
    aten.floor.default: "floor",
}


@lowers(*_UNARY)
def unary(ctx, x):
    return ctx.result(f"{_UNARY[ctx.node.target]}({ctx.ref(x, ctx.out_dtype)})")


@lowers(aten.neg.default)
def neg(ctx, x):
    return ctx.result(f"-{ctx.ref(x, ctx.out_dtype)}")


@lowers(aten.reciprocal.default)
def reciprocal(ctx, x):
    return ctx.result(f"1 / {ctx.ref(x, ctx.out_dtype)}")


@lowers(aten.gelu.default)
def gelu(ctx, x, approximate="none"):
    attr = ', approximate="tanh"' if approximate == "tanh" else ""
    return ctx.result(f"gelu({ctx.ref(x, ctx.out_dtype)}{attr})")


@lowers(aten._to_copy.default, aten.to.dtype)
def to_copy(ctx, x, dtype=None, *args, **kwargs):
    return ctx.result(ctx.ref(x, ctx.out_dtype)) if ctx.out_dtype != x.dtype else x
