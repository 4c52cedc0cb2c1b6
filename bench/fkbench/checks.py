"""Are a peer's outputs eager's? fkc's time counts only if its outputs are
within the tolerance of eager's; the other peers' errors are recorded too,
which catches a translation that computes something else. Torch is passed
in, so that importing this module needs none."""

import math

# Relative L2 error allowed between fkc's outputs and eager's, by dtype.
TOLERANCE = {"f32": 1e-4, "f16": 1e-2, "bf16": 2e-2}
# f32 where both sides use TF32 products (10-bit mantissas): fkc's and
# eager's roundings differ by a few 1e-4.
TOLERANCE_TF32 = 2e-3


def relative_error(torch, outs, ref):
    """(largest relative L2 error over the outputs, computed in float64;
    None or why it is inf: NaNs that differ in place, a count, shape or
    dtype that differs, infinities that differ)."""
    if len(outs) != len(ref):
        return math.inf, "%d outputs, expected %d" % (len(outs), len(ref))
    worst = 0.0
    for i, (o, r) in enumerate(zip(outs, ref)):
        if tuple(o.shape) != tuple(r.shape):
            return math.inf, "output %d has shape %s, expected %s" % (
                i, tuple(o.shape), tuple(r.shape))
        if o.dtype != r.dtype:
            return math.inf, "output %d is %s, expected %s" % (
                i, o.dtype, r.dtype)
        o64, r64 = o.double(), r.double()
        nan_o, nan_r = torch.isnan(o64), torch.isnan(r64)
        if bool((nan_o != nan_r).any()):
            return math.inf, "output %d: %d NaNs where the reference has " \
                "%d" % (i, int(nan_o.sum()), int(nan_r.sum()))
        o64 = o64.masked_fill(nan_o, 0)
        r64 = r64.masked_fill(nan_r, 0)
        diff = o64 - r64
        inf_mismatch = torch.isinf(o64) | torch.isinf(r64)
        if bool(inf_mismatch.any()):
            if bool((o64[inf_mismatch] != r64[inf_mismatch]).any()):
                return math.inf, "output %d: infinities differ" % i
            diff = diff.masked_fill(inf_mismatch, 0)
            r64 = r64.masked_fill(inf_mismatch, 0)
        den = float(torch.linalg.vector_norm(r64))
        num = float(torch.linalg.vector_norm(diff))
        err = num / den if den > 0 else (0.0 if num == 0 else math.inf)
        worst = max(worst, err)
        del o64, r64, diff, nan_o, nan_r
    return worst, None


def check_into(torch, result, outs, ref, tolerance, gate):
    """Records in `result` the error of `outs` against eager's `ref`; with
    `gate` (fkc), also whether it passes."""
    if ref is None:
        result["check"] = "no reference"
        return
    err, why = relative_error(torch, outs, ref)
    # JSON has no infinity: an error that is not a number is None, with
    # error_detail saying why.
    result["error"] = err if math.isfinite(err) else None
    if why:
        result["error_detail"] = why
    if gate:
        result["check"] = "pass" if err < tolerance else "fail"


def cuda_healthy(torch, device):
    """Whether the CUDA context still computes (a failed kernel may have
    lost it)."""
    if device.type != "cuda":
        return True
    try:
        torch.cuda.synchronize()
        x = torch.ones(16, device=device)
        return float((x * 2).sum()) == 32.0
    except Exception:
        return False
