"""The benchmark's cases: for each graph of bench/cases/, what the peers
need that the graph's signature does not say.

A case's signature (graph name, inputs, outputs) is read from its compiled
artifact (manifest.py). The table below holds the rest, all of it about the
peers and the figures rather than the graph: the family of torch/JAX
functions that compute the same thing (peers/) and their attributes, the
names of the inputs those functions take in order (checked against the
artifact, so a reordered graph is caught rather than fed the wrong
tensors), the distribution each input is drawn from, the FLOP formula of a
compute-bound case, a description, and what eager's figure measures when it
is a library call worth naming.
"""

import dataclasses
import fnmatch
import math
from typing import Callable, Optional

from . import artifacts, paths, peers
from .checks import TOLERANCE, TOLERANCE_TF32
from .manifest import Signature


@dataclasses.dataclass(frozen=True)
class Case:
    """One case. `init`: input name -> (mean, std) of the normal
    distribution it is drawn from (default (0, 1)); for an integer input
    (indices), (low, high) of the uniform range (default (0, 1024)). `flop_formula`: a
    function of the inputs (name -> Tensor) and `attrs` giving the FLOPs of
    a compute-bound case; None for a memory-bound one, reported in GB/s.
    `signature` is None until `load` reads it from the artifact."""

    name: str
    family: str
    input_names: tuple
    attrs: dict = dataclasses.field(default_factory=dict)
    init: dict = dataclasses.field(default_factory=dict)
    flop_formula: Optional[Callable] = None
    description: str = ""
    eager_is: Optional[str] = None
    # TF32 on for the peers (torch.backends.cuda.matmul.allow_tf32), as
    # fkc's artifact is compiled with --allow-tf32 (its graph's FKC-OPTIONS);
    # f32 outputs are then compared at TF32's tolerance.
    allow_tf32: bool = False
    signature: Optional[Signature] = None

    def load(self, artifacts_dir, shrink=1):
        """This case with its signature read from its artifact in
        `artifacts_dir`; `shrink` divides large dimensions (--shrink)."""
        sig = artifacts.signature(artifacts_dir, self.name)
        names = tuple(t.name for t in sig.inputs)
        if names != self.input_names:
            raise artifacts.ArtifactError(
                "%s: graph %s takes inputs (%s), but the case table expects "
                "(%s)" % (paths.relative(artifacts.artifact_path(
                    artifacts_dir, self.name)), sig.name, ", ".join(names),
                    ", ".join(self.input_names)))
        return self.with_signature(sig.shrunk(shrink) if shrink > 1 else sig)

    def with_signature(self, signature):
        return dataclasses.replace(self, signature=signature)

    @property
    def graph_path(self):
        return paths.graph_path(self.name)

    @property
    def inputs(self):
        return self.signature.inputs

    @property
    def outputs(self):
        return self.signature.outputs

    def input(self, name):
        return self.inputs[self.input_names.index(name)]

    @property
    def sdpa(self):
        return self.family == "attention"

    @property
    def unit(self):
        return "TFLOP/s" if self.flop_formula else "GB/s"

    @property
    def bytes(self):
        """Inputs read once plus outputs written once."""
        return (sum(t.bytes for t in self.inputs) +
                sum(t.bytes for t in self.outputs))

    @property
    def flops(self):
        if not self.flop_formula:
            return None
        return self.flop_formula({t.name: t for t in self.inputs},
                                 self.attrs)

    @property
    def tolerance(self):
        """Relative L2 error allowed between fkc's outputs and eager's."""
        return max(TOLERANCE_TF32 if self.allow_tf32 and t.dtype == "f32"
                   else TOLERANCE[t.dtype] for t in self.outputs)

    def peers(self):
        """The peers that run this case, in order."""
        return [p for p in peers.NAMES if self.sdpa or p not in peers.SDPA]

    def rate(self, seconds):
        """GB/s or TFLOP/s for a call of `seconds`."""
        if not seconds:
            return None
        if self.flop_formula:
            return self.flops / seconds / 1e12
        return self.bytes / seconds / 1e9


# FLOP formulas: functions of the inputs (name -> Tensor) and the attributes.

def _mlp_flops(t, attrs):
    """Two matmuls, 2 * M * N * K each."""
    m, k = t["x"].shape
    n = t["w1"].shape[1]
    k2 = t["w2"].shape[1]
    return 2 * m * n * k + 2 * m * k2 * n


def _swiglu_flops(t, attrs):
    """Three matmuls, 2 * M * N * K each: gate, up ([N, K] weights) and
    down."""
    m, k = t["x"].shape
    n = t["w_gate"].shape[0]
    return 3 * 2 * m * n * k


def _gemm_flops(t, attrs):
    """2 * M * N * K per product, times the batch."""
    a, b = t["a"], t["b"]
    m, k = a.shape[-2:]
    n = b.shape[-1]
    return 2 * math.prod(a.shape[:-2]) * m * n * k


def _linear_flops(t, attrs):
    """2 * M * N * K: x [M, K] against w [N, K] (nn.Linear's layout)."""
    m, k = t["x"].shape
    return 2 * m * t["w"].shape[0] * k


def _attention_flops(t, attrs):
    """4 * B * H * N^2 * D, halved when causal."""
    b, h, n, d = t["q"].shape
    f = 4 * b * h * n * n * d
    return f // 2 if attrs["causal"] else f


def _block_flops(t, attrs):
    """A decoder block's matmuls, one per weight (2 * M * N * K each: the
    tokens times the weight's elements, [in, out] or nn.Linear's [out, in]
    alike), and its causal attention (4 * B * H * N^2 * D / 2)."""
    b, n, d = t["x"].shape
    weights = ("wq", "wk", "wv", "wo", "w_gate", "w_up", "w_down")
    matmuls = sum(2 * b * n * t[w].shape[0] * t[w].shape[1] for w in weights)
    head_dim = attrs["head_dim"]
    return matmuls + 4 * b * (d // head_dim) * n * n * head_dim // 2


def _table():
    cases = []
    for dt in ("f32", "f16"):
        cases.append(Case(
            "gelu_%s" % dt, "gelu", ("x", "s", "b"),
            init={"s": (1.0, 0.1), "b": (0.0, 0.1)},
            description="gelu(x * s + b), tanh form, s and b per column"))
    for dt in ("f32", "f16"):
        cases.append(Case(
            "add_layernorm_%s" % dt, "add_layernorm",
            ("x", "r", "gamma", "beta"), attrs={"eps": 1e-5},
            init={"gamma": (1.0, 0.1), "beta": (0.0, 0.1)},
            description="h = x + r; layernorm(h) * gamma + beta; "
                        "returns y, h"))
    for dt in ("f32", "f16"):
        cases.append(Case(
            "rmsnorm_%s" % dt, "rmsnorm", ("x", "gamma"),
            attrs={"eps": 1e-6}, init={"gamma": (1.0, 0.1)},
            description="x / sqrt(mean(x^2) + eps) * gamma"))
    for dt in ("f32", "f16"):
        cases.append(Case(
            "softmax_%s" % dt, "softmax", ("x",),
            description="softmax over the last axis"))
    cases.append(Case(
        "mlp_f16", "mlp", ("x", "w1", "b1", "w2"),
        init={"w1": (0.0, 1 / 64), "b1": (0.0, 0.1), "w2": (0.0, 1 / 128)},
        flop_formula=_mlp_flops,
        description="gelu(x @ w1 + b1) @ w2, tanh gelu"))
    cases.append(Case(
        "swiglu_mlp_f16", "swiglu_mlp", ("x", "w_gate", "w_up", "w_down"),
        init={"w_gate": (0.0, 1 / math.sqrt(2048)),
              "w_up": (0.0, 1 / math.sqrt(2048)),
              "w_down": (0.0, 1 / math.sqrt(8192))},
        flop_formula=_swiglu_flops,
        description="silu(x @ w_gate^T) * (x @ w_up^T) @ w_down^T "
                    "(nn.Linear weights), x [4096, 2048], width 8192",
        eager_is="three F.linear (cuBLAS GEMMs) and the silu and product "
                 "as elementwise kernels"))
    # Head dim 96 (a multiple of 16 but neither 64 nor 128): the flash
    # kernel's mma.sync form, also on sm_90a.
    for d, causal in ((64, False), (64, True), (128, False), (128, True),
                      (96, False)):
        cases.append(Case(
            "attention_d%d%s" % (d, "_causal" if causal else ""),
            "attention", ("q", "k", "v"),
            attrs={"causal": causal, "scale": 1 / math.sqrt(d)},
            flop_formula=_attention_flops,
            description="softmax(q @ k^T / sqrt(%d)%s) @ v" % (
                d, " + causal mask" if causal else "")))
    # f32: SDPA's memory-efficient backend (its only one for f32) against
    # the flash kernel's mma.sync form, f32 products as three TF32 ones.
    cases.append(Case(
        "attention_f32_d64", "attention", ("q", "k", "v"),
        attrs={"causal": False, "scale": 1 / 8},
        flop_formula=_attention_flops,
        description="softmax(q @ k^T / sqrt(64)) @ v in f32"))
    # Decode: one query row per sequence; memory-bound (K and V read once),
    # so reported in GB/s.
    for n in (512, 4096, 16384):
        cases.append(Case(
            "attention_decode_%d" % n, "attention", ("q", "k", "v"),
            attrs={"causal": False, "scale": 1 / math.sqrt(128)},
            description="decode: softmax(q @ k^T / sqrt(128)) @ v, one "
                        "query against %d keys, batch 8, 32 heads" % n))
    cases.append(Case(
        "transformer_block_f16", "transformer_block",
        ("x", "norm1", "wq", "wk", "wv", "wo", "norm2", "w_gate", "w_up",
         "w_down"), attrs={"eps": 1e-6, "head_dim": 128},
        init=dict({"norm1": (1.0, 0.1), "norm2": (1.0, 0.1),
                   "w_down": (0.0, 1 / math.sqrt(5632))},
                  **{w: (0.0, 1 / math.sqrt(2048))
                     for w in ("wq", "wk", "wv", "wo", "w_gate", "w_up")}),
        flop_formula=_block_flops,
        description="pre-norm decoder block: rmsnorm, QKV, causal attention "
                    "(16 heads of 128), output projection, residual, rmsnorm, "
                    "SwiGLU MLP, residual",
        eager_is="PyTorch ops with F.scaled_dot_product_attention (its "
                 "default backend) for the attention"))
    cases.append(Case(
        "llama_block_f16", "llama_block",
        ("x", "cos_t", "sin_t", "attn_norm", "wq", "wk", "wv", "wo",
         "mlp_norm", "w_gate", "w_up", "w_down"),
        attrs={"eps": 1e-5, "head_dim": 128},
        init=dict({"attn_norm": (1.0, 0.1), "mlp_norm": (1.0, 0.1),
                   "cos_t": (0.0, 0.7), "sin_t": (0.0, 0.7),
                   "w_down": (0.0, 1 / math.sqrt(14336))},
                  **{w: (0.0, 1 / math.sqrt(4096))
                     for w in ("wq", "wk", "wv", "wo", "w_gate", "w_up")}),
        flop_formula=_block_flops,
        description="a Llama 3 8B-sized decoder layer, 4096 tokens: rmsnorm, "
                    "QKV (nn.Linear weights), RoPE, grouped-query causal "
                    "attention (32 heads of 128, 8 key/value heads), output "
                    "projection, residual, rmsnorm, SwiGLU MLP (14336), "
                    "residual",
        eager_is="PyTorch ops as transformers' LlamaDecoderLayer runs them "
                 "(F.linear, rotate-half RoPE, repeat_kv, "
                 "F.scaled_dot_product_attention with its default backend)"))
    # GEMMs: b scaled by 1/sqrt(K), so that the results stay near N(0, 1)
    # whatever K is; eager is one cuBLAS call (torch.matmul).
    for dtype in ("f16", "bf16"):
        for n in (4096, 8192):
            cases.append(Case(
                "gemm_%s_%d" % (dtype, n), "gemm", ("a", "b"),
                init={"b": (0.0, 1 / math.sqrt(n))}, flop_formula=_gemm_flops,
                description="c = a @ b, %d^3" % n,
                eager_is="one cuBLAS GEMM (torch.matmul)"))
    # f32 stays f32: torch's default leaves TF32 off (allow_tf32 False,
    # float32 matmul precision "highest"), so eager is cuBLAS SGEMM.
    cases.append(Case(
        "gemm_f32_4096", "gemm", ("a", "b"),
        init={"b": (0.0, 1 / 64)}, flop_formula=_gemm_flops,
        description="c = a @ b in f32 (no TF32), 4096^3",
        eager_is="one cuBLAS SGEMM (torch.matmul, TF32 off)"))
    # The same with TF32 allowed on both sides (fkc --allow-tf32): cuBLAS's
    # TF32 GEMM against fkc's mma.sync kernel on TF32.
    cases.append(Case(
        "gemm_tf32_4096", "gemm", ("a", "b"),
        init={"b": (0.0, 1 / 64)}, flop_formula=_gemm_flops,
        description="c = a @ b in f32 on TF32 tensor cores, 4096^3",
        eager_is="one cuBLAS TF32 GEMM (torch.matmul, allow_tf32 on)",
        allow_tf32=True))
    cases.append(Case(
        "gemm_bias_gelu_f16_4096", "gemm_bias_gelu", ("a", "b", "bias"),
        init={"b": (0.0, 1 / 64), "bias": (0.0, 0.1)},
        flop_formula=_gemm_flops,
        description="gelu(a @ b + bias), tanh gelu, 4096^3",
        eager_is="a cuBLAS GEMM (torch.matmul), then the bias add and "
                 "the gelu as two elementwise kernels"))
    # nn.Linear: the weight is [out, in], read as transpose(w) in place.
    cases.append(Case(
        "linear_f16_4096", "linear", ("x", "w", "b"),
        init={"w": (0.0, 1 / 32), "b": (0.0, 0.1)}, flop_formula=_linear_flops,
        description="x @ transpose(w) + b (nn.Linear), x [4096, 1024], "
                    "w [4096, 1024]",
        eager_is="F.linear: one cuBLAS GEMM with the bias in its epilogue"))
    cases.append(Case(
        "linear_tf32_4096", "linear", ("x", "w", "b"),
        init={"w": (0.0, 1 / 64), "b": (0.0, 0.1)}, flop_formula=_linear_flops,
        description="x @ transpose(w) + b (nn.Linear) in f32 on TF32 tensor "
                    "cores, x [4096, 4096], w [4096, 4096]",
        eager_is="F.linear: one cuBLAS TF32 GEMM (allow_tf32 on)",
        allow_tf32=True))
    cases.append(Case(
        "lm_head_f16", "lm_head", ("x", "w"),
        init={"w": (0.0, 1 / math.sqrt(768))}, flop_formula=_linear_flops,
        description="GPT-2's LM head: x @ transpose(wte), x [2048, 768], "
                    "wte [50257, 768] (an odd vocabulary)",
        eager_is="F.linear: one cuBLAS GEMM"))
    cases.append(Case(
        "bmm_f16", "gemm", ("a", "b"),
        init={"b": (0.0, 1 / math.sqrt(2048))}, flop_formula=_gemm_flops,
        description="c = a @ b, batch 16 of 2048^3",
        eager_is="one cuBLAS strided-batched GEMM (torch.matmul)"))
    return cases


CASES = _table()


def select(pattern_text):
    """(the cases matching any of the comma-separated names or patterns, in
    table order; the patterns that match none)."""
    patterns = [p for p in pattern_text.split(",") if p]
    chosen = [c for c in CASES
              if any(fnmatch.fnmatchcase(c.name, p) for p in patterns)]
    unknown = [p for p in patterns
               if not any(fnmatch.fnmatchcase(c.name, p) for c in CASES)]
    return chosen, unknown


def load(cases, artifacts_dir, shrink=1):
    """(the cases whose signatures could be read, loaded; name -> why not
    for the others)."""
    loaded, unusable = [], {}
    for case in cases:
        try:
            loaded.append(case.load(artifacts_dir, shrink))
        except artifacts.ArtifactError as e:
            unusable[case.name] = str(e)
    return loaded, unusable
