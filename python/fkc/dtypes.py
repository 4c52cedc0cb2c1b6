"""torch dtypes as the language's dtypes, and numbers as the language writes them."""
import math

import torch

FK_DTYPES = {
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.int32: "i32",
    torch.int64: "i64",
    torch.bool: "i1",
}


class Unsupported(Exception):
    """Raised by a lowering: the node cannot be expressed (the reason is the message)."""


def fk_dtype(dtype):
    try:
        return FK_DTYPES[dtype]
    except KeyError:
        raise Unsupported(f"dtype {dtype} has no counterpart in the language "
                          f"(f32, f16, bf16, i32, i64, i1)") from None


def format_number(value):
    """A Python number as a number of the language (section 6)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    value = float(value)
    if math.isnan(value):
        raise Unsupported("a NaN constant (the language has no NaN literal)")
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value.is_integer() and abs(value) < 1e16:
        return f"{value:.1f}"
    return repr(value)


def format_list(values):
    """A list attribute: numbers, or the dimensions of a shape (`[B*S, 64]`)."""
    from .sizes import as_dim, format_dim  # sizes reports with Unsupported, defined here
    return "[" + ", ".join(format_dim(as_dim(v)) for v in values) + "]"
