"""Layers: linear and the matmuls, softmax, normalization, attention and the
patch-embedding convolution."""
import math

import torch

from ..context import normalize_dim
from ..dtypes import Unsupported, format_list, format_number
from ..sizes import is_static
from ..values import Deferred
from .registry import lowers

aten = torch.ops.aten


def _as_matrix_operand(ctx, x, suffix):
    """matmul takes rank >= 2: a vector becomes one row."""
    return ctx.reshape(x, (1,) + x.shape, suffix) if x.rank == 1 else x


@lowers(aten.linear.default)
def linear(ctx, x, weight, bias=None):
    """nn.Linear: x @ transpose(w) + b."""
    rows = _as_matrix_operand(ctx, x, "row")
    expr = f"{rows.name} @ transpose({weight.name})"
    if bias is not None:
        expr += f" + {bias.name}"
    if rows is x:
        return ctx.result(expr)
    y = ctx.emit(expr, ctx.out_dtype, (1,) + ctx.out_shape, "row_out")
    return ctx.result(f"reshape({y.name}, shape={format_list(ctx.out_shape)})")


def _scaled_term(ctx, expr, factor):
    return expr if factor == 1 else f"{expr} * {format_number(factor)}"


@lowers(aten.addmm.default, aten.baddbmm.default)
def addmm(ctx, bias, a, b, beta=1, alpha=1):
    product = _scaled_term(ctx, f"{a.name} @ {b.name}", alpha)
    if beta == 0:  # ATen ignores the bias then, NaN included
        return ctx.result(product)
    return ctx.result(f"{product} + {_scaled_term(ctx, ctx.ref(bias), beta)}")


@lowers(aten.mm.default, aten.bmm.default)
def mm(ctx, a, b):
    return ctx.result(f"{a.name} @ {b.name}")


@lowers(aten.matmul.default)
def matmul(ctx, a, b):
    if a.rank < 2 or b.rank < 2:
        raise Unsupported("matmul of a vector (torch.matmul's rank-1 promotion)")
    return ctx.result(f"{a.name} @ {b.name}")


@lowers(aten._softmax.default, aten.softmax.int)
def softmax(ctx, x, dim, half_to_float_or_dtype=False):
    # In the result's dtype (f32 from f16 with half_to_float): ATen rounds once.
    return ctx.result(f"softmax({ctx.ref(x, ctx.out_dtype)}, axis={normalize_dim(dim, x.rank)})")


@lowers(aten._log_softmax.default, aten.log_softmax.int)
def log_softmax(ctx, x, dim, half_to_float_or_dtype=False):
    dt = ctx.out_dtype
    axis = normalize_dim(dim, x.rank)
    x = ctx.cast(x, dt)
    shifted = ctx.emit(f"{x.name} - max({x.name}, axes=[{axis}], keepdims=true)", dt, x.shape,
                       "shifted")
    return ctx.result(f"{shifted.name} - log(sum(exp({shifted.name}), axes=[{axis}], "
                      f"keepdims=true))")


def _layer_norm(ctx, x, normalized_shape, weight, bias, eps, name_result=True):
    count = len(normalized_shape)
    d = math.prod(normalized_shape)
    rows = ctx.reshape(x, x.shape[:x.rank - count] + (d,), "rows") if count != 1 else x
    params = []
    for p, default in ((weight, 1), (bias, 0)):
        if p is None:
            params.append(ctx.full(default, x.dtype, [d]))
        else:
            params.append(ctx.reshape(ctx.cast(p, x.dtype, "param"), (d,), "flat").name)
    expr = f"layernorm({rows.name}, {params[0]}, {params[1]}, eps={format_number(float(eps))})"
    if rows is x:
        return ctx.emit(expr, x.dtype, x.shape, None if name_result else "out")
    y = ctx.emit(expr, x.dtype, rows.shape, "normed")
    return ctx.emit(f"reshape({y.name}, shape={format_list(x.shape)})", x.dtype, x.shape,
                    None if name_result else "out")


@lowers(aten.layer_norm.default)
def layer_norm(ctx, x, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return _layer_norm(ctx, x, list(normalized_shape), weight, bias, eps)


@lowers(aten.native_layer_norm.default)
def native_layer_norm(ctx, x, normalized_shape, weight, bias, eps):
    def statistic(c):
        raise Unsupported("the mean and rstd results of native_layer_norm (only its output is "
                          "imported)")
    out = Deferred(lambda c: _layer_norm(c, x, list(normalized_shape), weight, bias, eps))
    return [out, Deferred(statistic), Deferred(statistic)]


@lowers(aten.dropout.default, aten.native_dropout.default)
def dropout(ctx, x, p, train):
    if train and p > 0:
        raise Unsupported("dropout in training mode (call model.eval())")
    return x if ctx.node.target == aten.dropout.default else [x, None]


@lowers(aten.scaled_dot_product_attention.default)
def scaled_dot_product_attention(ctx, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    """SDPA as the language's `attention`: the scale and causal flag carry over
    (causal as a mask where Nq != Nk: PyTorch aligns it top-left, the language
    bottom-right), a boolean mask becomes the additive `select(m, 0, -inf)`, and
    grouped-query heads become a broadcast group axis. With a mask, a query that
    it hides from every key gets 0, as PyTorch gives (`attention` gives NaN)."""
    if dropout_p:
        raise Unsupported("attention dropout (dropout_p > 0)")
    dt = q.dtype
    nq, nk = q.shape[-2], k.shape[-2]
    mask = seen = None
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            mask = ctx.emit(f"select({attn_mask.name}, {ctx.full(0, dt)}, -inf)", dt,
                            attn_mask.shape, "mask")
        else:
            mask = ctx.cast(attn_mask, dt, "mask")
        if mask.rank:
            seen = ctx.emit(f"gt(max({mask.name}, axes=[-1], keepdims=true), -inf)", torch.bool,
                            mask.shape[:-1] + (1,), "sees_a_key")
    causal = ""
    if is_causal:
        if nq == nk:
            causal = ", causal=true"
        else:
            square = format_list([nq, nk])
            mask = ctx.emit(f"select(le(iota(shape={square}, dim=1), iota(shape={square}, "
                            f"dim=0)), {ctx.full(0, dt)}, -inf)", dt, (nq, nk), "causal")
    attrs = causal + (f", scale={format_number(float(scale))}" if scale is not None else "")
    hq, hkv = (q.shape[-3], k.shape[-3]) if q.rank >= 3 else (1, 1)
    if hq != hkv:
        if not enable_gqa or hq % hkv:
            raise Unsupported(f"attention with {hq} query heads and {hkv} key heads")
        # Head h uses key head h // G: queries [.., Hkv, G, N, D] against keys [.., Hkv, 1, N, D].
        g = hq // hkv
        q = ctx.reshape(q, q.shape[:-3] + (hkv, g) + q.shape[-2:], "grouped_q")
        k = ctx.reshape(k, k.shape[:-3] + (hkv, 1) + k.shape[-2:], "grouped_k")
        v = ctx.reshape(v, v.shape[:-3] + (hkv, 1) + v.shape[-2:], "grouped_v")
        if mask is not None and mask.rank >= 3:
            heads = (hkv, g) if mask.shape[-3] == hq else (1, 1)
            mask = ctx.reshape(mask, mask.shape[:-3] + heads + mask.shape[-2:], "grouped_mask")
            seen = ctx.reshape(seen, mask.shape[:-1] + (1,), "grouped_sees_a_key")
    operands = [q.name, k.name, v.name] + ([mask.name] if mask is not None else [])
    expr = f"attention({', '.join(operands)}{attrs})"
    out_shape = q.shape[:-1] + (v.shape[-1],)
    if seen is not None:
        out = ctx.emit(expr, dt, out_shape, "attention")
        expr = f"select({seen.name}, {out.name}, 0)"
    if q.rank == len(ctx.out_shape):
        return ctx.result(expr)
    out = ctx.emit(expr, dt, out_shape, "grouped")
    return ctx.result(f"reshape({out.name}, shape={format_list(ctx.out_shape)})")


@lowers(aten.convolution.default)
def convolution(ctx, x, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """A 2-D convolution whose stride equals its kernel (a ViT patch embedding):
    non-overlapping patches, so a reshape, a transpose and one matmul."""
    if x.rank != 4:
        raise Unsupported(f"{x.rank - 2}-D convolution (only 2-D patch embeddings are imported)")
    o, c, kh, kw = weight.shape
    why = []
    if transposed:
        why.append("transposed")
    if groups != 1:
        why.append(f"groups={groups}")
    if list(dilation) != [1, 1]:
        why.append(f"dilation={list(dilation)}")
    if any(padding):
        why.append(f"padding={list(padding)}")
    if list(stride) != [kh, kw]:
        why.append(f"stride {list(stride)} differs from the kernel [{kh}, {kw}]")
    if why:
        raise Unsupported("convolution with " + ", ".join(why) +
                          " (only stride == kernel, no padding, is imported)")
    b, _, h, w = x.shape
    if not (is_static(h) and is_static(w)):
        raise Unsupported(f"a patch convolution over an image of symbolic size {format_list([h, w])}")
    ho, wo = h // kh, w // kw
    if (h, w) != (ho * kh, wo * kw):  # the rows and columns no patch covers are dropped
        x = ctx.emit(f"slice({x.name}, start=[0, 0, 0, 0], stop={format_list([b, c, ho * kh, wo * kw])})",
                     x.dtype, (b, c, ho * kh, wo * kw), "covered")
    patches = ctx.reshape(x, (b, c, ho, kh, wo, kw), "split")
    patches = ctx.transpose(patches, [0, 2, 4, 1, 3, 5], "patches")
    patches = ctx.reshape(patches, (b, ho * wo, c * kh * kw), "rows")
    kernel = ctx.reshape(weight, (o, c * kh * kw), "kernel")
    expr = f"{patches.name} @ transpose({kernel.name})"
    if bias is not None:
        expr += f" + {bias.name}"
    y = ctx.emit(expr, ctx.out_dtype, (b, ho * wo, o), "projected")
    y = ctx.reshape(y, (b, ho, wo, o), "grid")
    return ctx.result(f"transpose({y.name}, perm=[0, 3, 1, 2])")
