#!/usr/bin/env python3
"""fkc's peer benchmark: every case of bench/cases/ run by fkc (its compiled
artifact through the runtime's Python binding), PyTorch eager, torch.compile,
JAX/XLA and, for attention, SDPA's flash and cuDNN backends, in one process
on one GPU, on the same inputs. fkc's outputs are checked against eager's.

    bash bench/compile.sh                        # on the dev machine
    python3 bench/run.py [--quick] [--cases gelu*,softmax_f16] [--commit SHA]
    python3 bench/run.py --dry-run               # the plan, needs no torch

Writes <date>-<gpu>.json and .md into --out (default $OUT if set, else
bench/results/) and prints the Markdown table last. bench/README.md says how
each figure is computed.
"""

import argparse
import datetime
import fnmatch
import gc
import json
import math
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
CASES_DIR = os.path.join(BENCH, "cases")

DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i1": 1}

# Peers, in the order they run within a case (fkc last: a kernel that
# breaks the CUDA context then costs no peer figure of its case).
PEERS = ["eager", "compile", "xla", "sdpa_flash", "sdpa_cudnn", "fkc"]
PEER_LABELS = {"fkc": "fkc", "eager": "PyTorch eager",
               "compile": "torch.compile", "xla": "JAX/XLA",
               "sdpa_flash": "SDPA flash", "sdpa_cudnn": "SDPA cuDNN"}
TABLE_PEERS = ["fkc", "eager", "compile", "xla", "sdpa_flash", "sdpa_cudnn"]

# Relative L2 error allowed between fkc's outputs and eager's, by dtype.
TOLERANCE = {"f32": 1e-4, "f16": 1e-2, "bf16": 2e-2}


# ----------------------------------------------------------------------------
# Graph files (read without torch)
# ----------------------------------------------------------------------------

class Tensor:
    """A parameter or result: name, dtype (language spelling), shape."""

    def __init__(self, name, dtype, shape):
        self.name, self.dtype, self.shape = name, dtype, tuple(shape)

    @property
    def numel(self):
        return math.prod(self.shape)

    @property
    def bytes(self):
        return self.numel * DTYPE_BYTES[self.dtype]

    def text(self):
        return "%s: %s[%s]" % (self.name, self.dtype,
                               ", ".join(str(d) for d in self.shape))

    def as_json(self):
        return {"name": self.name, "dtype": self.dtype,
                "shape": list(self.shape)}


def parse_graph(path):
    """(graph name, [Tensor]) of the first graph of a .graph file."""
    with open(path) as f:
        text = re.sub(r"#[^\n]*", "", f.read())
    m = re.search(r"\bgraph\s+([A-Za-z_]\w*)\s*\((.*?)\)\s*\{", text, re.S)
    if not m:
        raise ValueError("%s: no 'graph NAME(...) {' found" % path)
    params = []
    for p in re.finditer(r"([A-Za-z_]\w*)\s*:\s*(f32|f16|bf16|i32|i1)\s*"
                         r"\[([^\]]*)\]", m.group(2)):
        dims = [int(d) for d in p.group(3).replace(" ", "").split(",") if d]
        params.append(Tensor(p.group(1), p.group(2), dims))
    return m.group(1), params


# ----------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------

class Case:
    """One benchmark case: its graph file and what the peers run for it.

    family: the torch/JAX function family (see _torch_family, _jax_family);
    attrs: its attributes (eps, causal, ...); params: the graph's parameter
    names, in order, which the functions take positionally; outputs: a
    function of the parameters' Tensors giving the results' Tensors; init:
    name -> (mean, std) of the normal distribution each input is drawn from
    (default (0, 1)); flops: a function of the parameters, for compute-bound
    cases (None: memory-bound, reported in GB/s); eager_is: what eager's
    figure measures when it is a library call worth naming (the GEMMs:
    cuBLAS), said in the report.
    """

    def __init__(self, name, family, params, outputs, attrs=None, init=None,
                 flops=None, description="", eager_is=None):
        self.name, self.family, self.param_names = name, family, params
        self.outputs_of, self.attrs = outputs, attrs or {}
        self.init, self.flops_of = init or {}, flops
        self.description = description
        self.eager_is = eager_is
        self.graph_path = os.path.join(CASES_DIR, name + ".graph")
        self.graph_name = None
        self.params = None

    def load(self, shrink=1):
        """Reads the graph file; checks its parameters are the expected
        ones. `shrink` divides large dimensions (a test aid)."""
        self.graph_name, self.params = parse_graph(self.graph_path)
        names = [p.name for p in self.params]
        if names != self.param_names:
            raise ValueError("%s: parameters %s, but run.py's case expects %s"
                             % (self.graph_path, names, self.param_names))
        if shrink > 1:
            for p in self.params:
                p.shape = tuple(d // shrink if d >= 256 else d
                                for d in p.shape)
        self.outputs = self.outputs_of(self.by_name())
        return self

    def by_name(self):
        return {p.name: p for p in self.params}

    @property
    def sdpa(self):
        return self.family == "attention"

    @property
    def bytes(self):
        """Inputs read once plus outputs written once."""
        return (sum(p.bytes for p in self.params) +
                sum(o.bytes for o in self.outputs))

    @property
    def flops(self):
        return self.flops_of(self.by_name()) if self.flops_of else None

    @property
    def unit(self):
        return "TFLOP/s" if self.flops_of else "GB/s"

    @property
    def tolerance(self):
        return max(TOLERANCE[o.dtype] for o in self.outputs)

    def peers(self):
        return [p for p in PEERS
                if self.sdpa or p not in ("sdpa_flash", "sdpa_cudnn")]

    def rate(self, seconds):
        if not seconds:
            return None
        if self.flops_of:
            return self.flops / seconds / 1e12
        return self.bytes / seconds / 1e9


def _like(*names):
    """Outputs with the types of the named parameters (renamed y, h, ...)."""
    out_names = ["y", "h", "o"]

    def outputs(p):
        return [Tensor(out_names[i], p[n].dtype, p[n].shape)
                for i, n in enumerate(names)]
    return outputs


def _mlp_outputs(p):
    return [Tensor("y", p["x"].dtype, (p["x"].shape[0], p["w2"].shape[1]))]


def _mlp_flops(p):
    m, k = p["x"].shape
    n = p["w1"].shape[1]
    k2 = p["w2"].shape[1]
    return 2 * m * n * k + 2 * m * k2 * n


def _gemm_outputs(name):
    """The result of a @ b (batched when a and b have leading dimensions,
    which must be equal here), named `name`."""
    def outputs(p):
        a, b = p["a"], p["b"]
        return [Tensor(name, a.dtype, a.shape[:-1] + b.shape[-1:])]
    return outputs


def _gemm_flops(p):
    """2 * M * N * K per product, times the batch."""
    a, b = p["a"], p["b"]
    m, k = a.shape[-2:]
    n = b.shape[-1]
    return 2 * math.prod(a.shape[:-2]) * m * n * k


def _attention_outputs(p):
    return [Tensor("o", p["q"].dtype, p["q"].shape[:-1] + p["v"].shape[-1:])]


def _attention_flops(causal):
    def flops(p):
        b, h, n, d = p["q"].shape
        f = 4 * b * h * n * n * d
        return f // 2 if causal else f
    return flops


def _block_flops(p):
    """The block's matmuls (2 * M * N * K each) and its causal attention
    (4 * B * H * N^2 * D / 2)."""
    b, n, d = p["x"].shape
    tokens, inner = b * n, p["w_gate"].shape[1]
    heads = d // TRANSFORMER_HEAD_DIM
    matmuls = 2 * tokens * d * d * 4 + 2 * tokens * d * inner * 3
    return matmuls + 4 * b * heads * n * n * TRANSFORMER_HEAD_DIM // 2


TRANSFORMER_HEAD_DIM = 128


def _cases():
    cases = []
    for dt in ("f32", "f16"):
        cases.append(Case(
            "gelu_%s" % dt, "gelu", ["x", "s", "b"], _like("x"),
            init={"s": (1.0, 0.1), "b": (0.0, 0.1)},
            description="gelu(x * s + b), tanh form, s and b per column"))
    for dt in ("f32", "f16"):
        cases.append(Case(
            "add_layernorm_%s" % dt, "add_layernorm",
            ["x", "r", "gamma", "beta"], _like("x", "x"), attrs={"eps": 1e-5},
            init={"gamma": (1.0, 0.1), "beta": (0.0, 0.1)},
            description="h = x + r; layernorm(h) * gamma + beta; returns y, h"))
    for dt in ("f32", "f16"):
        cases.append(Case(
            "rmsnorm_%s" % dt, "rmsnorm", ["x", "gamma"], _like("x"),
            attrs={"eps": 1e-6}, init={"gamma": (1.0, 0.1)},
            description="x / sqrt(mean(x^2) + eps) * gamma"))
    for dt in ("f32", "f16"):
        cases.append(Case(
            "softmax_%s" % dt, "softmax", ["x"], _like("x"),
            description="softmax over the last axis"))
    cases.append(Case(
        "mlp_f16", "mlp", ["x", "w1", "b1", "w2"], _mlp_outputs,
        init={"w1": (0.0, 1 / 64), "b1": (0.0, 0.1), "w2": (0.0, 1 / 128)},
        flops=_mlp_flops, description="gelu(x @ w1 + b1) @ w2, tanh gelu"))
    for d in (64, 128):
        for causal in (False, True):
            name = "attention_d%d%s" % (d, "_causal" if causal else "")
            cases.append(Case(
                name, "attention", ["q", "k", "v"], _attention_outputs,
                attrs={"causal": causal, "scale": 1 / math.sqrt(d)},
                flops=_attention_flops(causal),
                description="softmax(q @ k^T / sqrt(%d)%s) @ v" % (
                    d, " + causal mask" if causal else "")))
    cases.append(Case(
        "transformer_block_f16", "transformer_block",
        ["x", "norm1", "wq", "wk", "wv", "wo", "norm2", "w_gate", "w_up",
         "w_down"], _like("x"), attrs={"eps": 1e-6},
        init=dict({"norm1": (1.0, 0.1), "norm2": (1.0, 0.1),
                   "w_down": (0.0, 1 / math.sqrt(5632))},
                  **{w: (0.0, 1 / math.sqrt(2048))
                     for w in ("wq", "wk", "wv", "wo", "w_gate", "w_up")}),
        flops=_block_flops,
        description="pre-norm decoder block: rmsnorm, QKV, causal attention "
                    "(16 heads of 128), output projection, residual, rmsnorm, "
                    "SwiGLU MLP, residual",
        eager_is="PyTorch ops with F.scaled_dot_product_attention (its "
                 "default backend) for the attention"))
    # GEMMs: b scaled by 1/sqrt(K), so that the results stay near N(0, 1)
    # whatever K is; eager is one cuBLAS call (torch.matmul).
    for n in (4096, 8192):
        cases.append(Case(
            "gemm_f16_%d" % n, "gemm", ["a", "b"], _gemm_outputs("c"),
            init={"b": (0.0, 1 / math.sqrt(n))}, flops=_gemm_flops,
            description="c = a @ b, %d^3" % n,
            eager_is="one cuBLAS GEMM (torch.matmul)"))
    cases.append(Case(
        "gemm_bias_gelu_f16_4096", "gemm_bias_gelu", ["a", "b", "bias"],
        _gemm_outputs("y"),
        init={"b": (0.0, 1 / 64), "bias": (0.0, 0.1)}, flops=_gemm_flops,
        description="gelu(a @ b + bias), tanh gelu, 4096^3",
        eager_is="a cuBLAS GEMM (torch.matmul), then the bias add and "
                 "the gelu as two elementwise kernels"))
    cases.append(Case(
        "bmm_f16", "gemm", ["a", "b"], _gemm_outputs("c"),
        init={"b": (0.0, 1 / math.sqrt(2048))}, flops=_gemm_flops,
        description="c = a @ b, batch 16 of 2048^3",
        eager_is="one cuBLAS strided-batched GEMM (torch.matmul)"))
    return cases


CASES = _cases()


# ----------------------------------------------------------------------------
# The peers' functions. Each takes the graph's parameters as tensors (torch)
# or arrays (JAX), in order, and returns a tuple of the graph's results with
# the graph's dtype semantics: f16 elementwise ops round per op; norms,
# softmax and matmul accumulation compute in f32 inside.
# ----------------------------------------------------------------------------

def _torch_family(case, torch, device):
    F = torch.nn.functional
    a = case.attrs
    fam = case.family
    if fam == "gelu":
        def fn(x, s, b):
            return (F.gelu(x * s + b, approximate="tanh"),)
    elif fam == "add_layernorm":
        def fn(x, r, gamma, beta):
            h = x + r
            return (F.layer_norm(h, (h.shape[-1],), gamma, beta, a["eps"]), h)
    elif fam == "rmsnorm":
        def fn(x, gamma):
            return (F.rms_norm(x, (x.shape[-1],), gamma, a["eps"]),)
    elif fam == "softmax":
        def fn(x):
            return (torch.softmax(x, dim=-1),)
    elif fam == "mlp":
        def fn(x, w1, b1, w2):
            return (F.gelu(x @ w1 + b1, approximate="tanh") @ w2,)
    elif fam == "gemm":
        def fn(a, b):
            return (torch.matmul(a, b),)
    elif fam == "gemm_bias_gelu":
        def fn(a, b, bias):
            return (F.gelu(torch.matmul(a, b) + bias, approximate="tanh"),)
    elif fam == "attention":
        n_q = case.by_name()["q"].shape[-2]
        n_k = case.by_name()["k"].shape[-2]
        scale, causal = a["scale"], a["causal"]
        # Query i sees keys j <= i + n_k - n_q (docs/language.md).
        drop = (torch.ones(n_q, n_k, dtype=torch.bool, device=device)
                .tril(n_k - n_q).logical_not()) if causal else None

        def fn(q, k, v):
            s = (q @ k.transpose(-2, -1)) * scale
            if drop is not None:
                s = s.masked_fill(drop, float("-inf"))
            return (torch.softmax(s, dim=-1) @ v,)
    elif fam == "transformer_block":
        def fn(x, norm1, wq, wk, wv, wo, norm2, w_gate, w_up, w_down):
            b, n, d = x.shape
            heads = d // TRANSFORMER_HEAD_DIM

            def split(t):
                return t.reshape(b, n, heads, TRANSFORMER_HEAD_DIM) \
                        .transpose(1, 2)
            h = F.rms_norm(x, (d,), norm1, a["eps"])
            o = F.scaled_dot_product_attention(split(h @ wq), split(h @ wk),
                                               split(h @ wv), is_causal=True)
            x1 = x + o.transpose(1, 2).reshape(b, n, d) @ wo
            g = F.rms_norm(x1, (d,), norm2, a["eps"])
            return (x1 + (F.silu(g @ w_gate) * (g @ w_up)) @ w_down,)
    else:
        raise ValueError("unknown family %s" % fam)
    return fn


def _sdpa_function(case, torch, backend_name):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backend = getattr(SDPBackend, backend_name)
    F = torch.nn.functional
    scale, causal = case.attrs["scale"], case.attrs["causal"]

    def fn(q, k, v):
        with sdpa_kernel(backend):
            return (F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                   scale=scale),)
    return fn


def _jax_family(case, jax):
    jnp = jax.numpy
    a = case.attrs
    fam = case.family
    f32 = jnp.float32

    def up(t):       # compute in f32 inside, as torch and fkc do
        return t.astype(f32)
    if fam == "gelu":
        def fn(x, s, b):
            h = x * s + b
            return (jax.nn.gelu(up(h), approximate=True).astype(x.dtype),)
    elif fam == "add_layernorm":
        def fn(x, r, gamma, beta):
            h = x + r
            hf = up(h)
            mean = hf.mean(axis=-1, keepdims=True)
            var = jnp.square(hf - mean).mean(axis=-1, keepdims=True)
            y = (hf - mean) * jax.lax.rsqrt(var + a["eps"]) * up(gamma) \
                + up(beta)
            return (y.astype(x.dtype), h)
    elif fam == "rmsnorm":
        def fn(x, gamma):
            xf = up(x)
            ms = jnp.square(xf).mean(axis=-1, keepdims=True)
            y = xf * jax.lax.rsqrt(ms + a["eps"]) * up(gamma)
            return (y.astype(x.dtype),)
    elif fam == "softmax":
        def fn(x):
            return (jax.nn.softmax(up(x), axis=-1).astype(x.dtype),)
    elif fam == "mlp":
        def fn(x, w1, b1, w2):
            h = x @ w1 + b1
            h = jax.nn.gelu(up(h), approximate=True).astype(x.dtype)
            return (h @ w2,)
    elif fam == "gemm":
        def fn(a, b):
            return (jnp.matmul(a, b),)
    elif fam == "gemm_bias_gelu":
        def fn(a, b, bias):
            h = jnp.matmul(a, b) + bias
            return (jax.nn.gelu(up(h), approximate=True).astype(a.dtype),)
    elif fam == "attention":
        scale, causal = a["scale"], a["causal"]

        def fn(q, k, v):
            s = jnp.einsum("...qd,...kd->...qk", q, k) * scale
            if causal:
                n_q, n_k = s.shape[-2], s.shape[-1]
                keep = jnp.tril(jnp.ones((n_q, n_k), dtype=bool), n_k - n_q)
                s = jnp.where(keep, s, -jnp.inf)
            p = jax.nn.softmax(up(s), axis=-1).astype(q.dtype)
            return (jnp.einsum("...qk,...kd->...qd", p, v),)
    elif fam == "transformer_block":
        def rmsnorm(t, gamma):
            tf = up(t)
            ms = jnp.square(tf).mean(axis=-1, keepdims=True)
            return (tf * jax.lax.rsqrt(ms + a["eps"]) * up(gamma)) \
                .astype(t.dtype)

        def fn(x, norm1, wq, wk, wv, wo, norm2, w_gate, w_up, w_down):
            b, n, d = x.shape
            heads = d // TRANSFORMER_HEAD_DIM

            def split(t):
                return t.reshape(b, n, heads, TRANSFORMER_HEAD_DIM)
            h = rmsnorm(x, norm1)
            o = jax.nn.dot_product_attention(split(h @ wq), split(h @ wk),
                                             split(h @ wv), is_causal=True)
            x1 = x + o.reshape(b, n, d) @ wo
            g = rmsnorm(x1, norm2)
            gate = jax.nn.silu(up(g @ w_gate)).astype(x.dtype)
            return (x1 + (gate * (g @ w_up)) @ w_down,)
    else:
        raise ValueError("unknown family %s" % fam)
    return fn


# ----------------------------------------------------------------------------
# Options
# ----------------------------------------------------------------------------

def _parse_args(argv):
    p = argparse.ArgumentParser(
        description="fkc's peer benchmark (see bench/README.md)")
    p.add_argument("--cases", default="*",
                   help="comma-separated case names or patterns (gelu*,mlp_f16)")
    p.add_argument("--peers", default=",".join(PEERS),
                   help="comma-separated peers to run, of: " + ",".join(PEERS))
    p.add_argument("--quick", action="store_true",
                   help="fewer and shorter timing runs")
    p.add_argument("--dry-run", action="store_true",
                   help="print the plan (cases, sizes, artifacts); no torch")
    p.add_argument("--artifacts",
                   default=os.path.join(REPO, "build", "bench-artifacts"),
                   help="folder of the fkc artifacts NAME.ptx")
    p.add_argument("--fkrt-lib", default=None,
                   help="the runtime library (default: $FKRT_LIBRARY, else "
                        "build-device/runtime/libfkrt.so, else "
                        "build/runtime/libfkrt.so)")
    p.add_argument("--out", default=None,
                   help="output folder (default: $OUT if set, else "
                        "bench/results)")
    p.add_argument("--name", default=None,
                   help="file name stem of the results (default "
                        "<date>-<gpu>[-quick])")
    p.add_argument("--commit", default=None,
                   help="the commit measured (default: $FKC_COMMIT, the "
                        "artifacts' COMMIT file, or git)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compile-mode", default="default",
                   help="torch.compile mode (default: 'default')")
    p.add_argument("--budget", type=float, default=None,
                   help="seconds of timed runs per peer and case (default "
                        "0.4, quick 0.1)")
    p.add_argument("--case-timeout", type=float, default=150,
                   help="seconds a case may take before its process is "
                        "killed and the run goes on with the next case")
    p.add_argument("--time-limit", type=float, default=360,
                   help="seconds after which no new case is started; 60 s "
                        "later the case in progress is stopped too")
    p.add_argument("--no-ceilings", action="store_true",
                   help="skip measuring device copy and cuBLAS GEMM")
    p.add_argument("--in-process", action="store_true",
                   help="run the cases in this process (no restart after a "
                        "crash or hang)")
    p.add_argument("--device", default="cuda",
                   help="torch device (cpu only to test this script)")
    p.add_argument("--shrink", type=int, default=1,
                   help="divide dimensions >= 256 by this (a test aid; "
                        "disables fkc, whose artifacts have fixed shapes)")
    # Internal: a worker process run by the supervisor.
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--partial", default=None, help=argparse.SUPPRESS)
    p.add_argument("--deadline", type=float, default=None,
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.peer_list = [x for x in args.peers.split(",") if x]
    for peer in args.peer_list:
        if peer not in PEERS:
            p.error("unknown peer %r (peers: %s)" % (peer, ", ".join(PEERS)))
    if args.budget is None:
        args.budget = 0.1 if args.quick else 0.4
    return args


class Timing:
    """How long timed runs take: budget per peer, bounds on iterations."""

    def __init__(self, args):
        q = args.quick
        self.budget = args.budget
        self.warmup = 0.02 if q else 0.05     # seconds of warm-up calls
        self.min_iters = 3 if q else 5
        self.max_iters = 20 if q else 200
        self.slow_budget = 1.0 if q else 3.0  # cap when a call is slow

    def warmup_calls(self, estimate):
        """Calls to make before timing, beyond those already made: enough
        to fill the warm-up time (clocks up, caches and allocators
        settled), counted from the estimate rather than by the host clock,
        which runs ahead of the GPU."""
        if estimate >= self.warmup:
            return 0
        return min(50, int(math.ceil(self.warmup / max(estimate, 1e-6))))

    def iterations(self, estimate):
        if estimate <= 0:
            return self.max_iters
        if estimate * self.min_iters > self.slow_budget:
            return max(1, int(self.slow_budget / estimate))
        return max(self.min_iters,
                   min(self.max_iters, int(self.budget / estimate)))


def select_cases(pattern_text):
    patterns = [p for p in pattern_text.split(",") if p]
    chosen = [c for c in CASES
              if any(fnmatch.fnmatchcase(c.name, p) for p in patterns)]
    unknown = [p for p in patterns
               if not any(fnmatch.fnmatchcase(c.name, p) for c in CASES)]
    return chosen, unknown


def library_path(args):
    if args.fkrt_lib:
        return os.path.abspath(args.fkrt_lib)
    if os.environ.get("FKRT_LIBRARY"):
        return os.environ["FKRT_LIBRARY"]
    for build in ("build-device", "build"):
        path = os.path.join(REPO, build, "runtime", "libfkrt.so")
        if os.path.exists(path):
            return path
    return os.path.join(REPO, "build-device", "runtime", "libfkrt.so")


def compile_status(args):
    """case -> (fkc, ptxas) from compile.sh's status.tsv, if there."""
    status = {}
    path = os.path.join(args.artifacts, "status.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f.read().splitlines()[1:]:
                parts = line.split("\t")
                if len(parts) == 3:
                    status[parts[0]] = (parts[1], parts[2])
    return status


def artifact_path(args, case):
    return os.path.join(args.artifacts, case.name + ".ptx")


def _fmt_bytes(n):
    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= size:
            return "%.3g %s" % (n / size, unit)
    return "%d B" % n


def _work_text(case):
    if case.flops_of:
        return "%.4g GFLOP" % (case.flops / 1e9)
    return _fmt_bytes(case.bytes)


# ----------------------------------------------------------------------------
# Dry run
# ----------------------------------------------------------------------------

def dry_run(args, cases):
    status = compile_status(args)
    lib = library_path(args)
    print("fkc benchmark plan (dry run: nothing is run)")
    print("  cases folder: %s" % os.path.relpath(CASES_DIR, os.getcwd()))
    print("  artifacts:    %s" % args.artifacts)
    print("  fkrt library: %s (%s)" % (lib, "present" if os.path.exists(lib)
                                        else "missing"))
    print("  output:       %s" % _out_dir(args))
    t = Timing(args)
    print("  timing:       %.2g s of timed runs per peer and case, %d to %d "
          "iterations; at most %.2g s for a slow peer; cases time out after "
          "%g s, none starts after %g s" % (t.budget, t.min_iters,
                                            t.max_iters, t.slow_budget,
                                            args.case_timeout,
                                            args.time_limit))
    for case in cases:
        print()
        print("%s: %s" % (case.name, case.description))
        print("  graph %s in %s" % (case.graph_name,
                                    os.path.relpath(case.graph_path, REPO)))
        print("  inputs:  %s" % "; ".join(p.text() for p in case.params))
        print("  outputs: %s" % "; ".join(o.text() for o in case.outputs))
        work = ("%s moved (inputs read once + outputs written once)"
                % _fmt_bytes(case.bytes))
        if case.flops_of:
            work = "%.4g GFLOP; %s" % (case.flops / 1e9, work)
        print("  work:    %s; reported in %s" % (work, case.unit))
        print("  check:   fkc vs eager, relative L2 error < %g" %
              case.tolerance)
        art = artifact_path(args, case)
        state = "present" if os.path.exists(art) else "missing"
        if case.name in status:
            state += " (compile.sh: fkc %s, ptxas %s)" % status[case.name]
        print("  artifact %s: %s" % (os.path.relpath(art, os.getcwd()), state))
        peers = [p for p in case.peers() if p in args.peer_list]
        print("  peers:   %s" % ", ".join(PEER_LABELS[p] for p in peers))
        if case.eager_is:
            print("  eager:   runs %s" % case.eager_is)
    return 0


# ----------------------------------------------------------------------------
# Worker: runs cases and appends JSON records to the partial file
# ----------------------------------------------------------------------------

class Recorder:
    def __init__(self, path):
        self.path = path

    def write(self, record):
        if not self.path:
            return
        with open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")
            f.flush()


def log(message):
    print(message, flush=True)


def _short_error(e):
    text = str(e).strip().splitlines()
    first = text[0] if text else ""
    if len(first) > 300:
        first = first[:300] + "..."
    kind = type(e).__name__
    if type(e).__module__ == "fkrt":
        kind = "fkrt." + kind
    return "%s: %s" % (kind, first)


class Worker:
    def __init__(self, args):
        self.args = args
        self.timing = Timing(args)
        self.recorder = Recorder(args.partial)
        import torch
        self.torch = torch
        self.device = torch.device(args.device)
        self.cuda = self.device.type == "cuda"
        self.jax = None
        self.jax_error = None
        self.fkrt = None
        self.fkrt_error = None

    # -- environment ---------------------------------------------------------

    def metadata(self):
        torch = self.torch
        meta = {"python": platform.python_version(),
                "torch": torch.__version__,
                "torch_cuda": torch.version.cuda,
                "device": str(self.device)}
        try:
            meta["cudnn"] = torch.backends.cudnn.version()
        except Exception:
            pass
        try:
            import triton
            meta["triton"] = triton.__version__
        except Exception:
            meta["triton"] = None
        if self.cuda:
            props = torch.cuda.get_device_properties(self.device)
            meta["gpu"] = torch.cuda.get_device_name(self.device)
            meta["capability"] = "%d.%d" % (props.major, props.minor)
            meta["sms"] = props.multi_processor_count
            meta["memory_bytes"] = props.total_memory
            meta["l2_bytes"] = getattr(props, "L2_cache_size", None)
        else:
            meta["gpu"] = "cpu %s" % platform.machine()
        return meta

    def load_jax(self):
        if self.jax is not None or self.jax_error is not None:
            return self.jax
        # Let JAX take memory as it needs it: by default it takes 75% of
        # the GPU at start, which torch then lacks.
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        try:
            import jax
            import jax.numpy  # noqa: F401
            backend = jax.default_backend()
            if self.cuda and backend not in ("gpu", "cuda"):
                raise RuntimeError("JAX has no GPU backend (default backend "
                                   "is %s)" % backend)
            self.jax = jax
            import jaxlib
            self.recorder.write({"type": "jax", "jax": jax.__version__,
                                 "jaxlib": getattr(jaxlib, "__version__",
                                                   None),
                                 "backend": backend,
                                 "jax_device": str(jax.devices()[0])})
        except Exception as e:
            self.jax_error = _short_error(e)
        return self.jax

    def load_fkrt(self):
        if self.fkrt is not None or self.fkrt_error is not None:
            return self.fkrt
        lib = library_path(self.args)
        os.environ["FKRT_LIBRARY"] = lib
        sys.path.insert(0, os.path.join(REPO, "runtime", "python"))
        try:
            import fkrt
            fkrt.library()
            self.fkrt = fkrt
        except Exception as e:
            self.fkrt_error = "fkrt library %s: %s" % (lib, _short_error(e))
        return self.fkrt

    # -- timing --------------------------------------------------------------

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def call_time(self, fn):
        """Wall time of one synchronised call."""
        t0 = time.perf_counter()
        fn()
        self.sync()
        return time.perf_counter() - t0

    def time_events(self, fn, first_s=None):
        """Median of per-call CUDA event times (wall times on the CPU).
        `first_s`: the time of a call already made that compiled nothing;
        if it was slow, it stands for the estimate and no call is spent."""
        t = self.timing
        torch = self.torch
        if first_s is not None and first_s > t.slow_budget:
            est = first_s
        else:
            est = self.call_time(fn)
        for _ in range(t.warmup_calls(est)):
            fn()
        self.sync()
        n = t.iterations(est)
        times = []
        if self.cuda:
            starts = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
            ends = [torch.cuda.Event(enable_timing=True) for _ in range(n)]
            sleep = getattr(torch.cuda, "_sleep", None)
            if sleep is not None:
                # Hold the GPU (about 2e9 cycles a second) while the host
                # enqueues the calls, so that they then run back to back and
                # no host overhead falls between a pair of events.
                head = min(0.05, n * 1e-4)
                sleep(int(head * 2e9))
            for i in range(n):
                starts[i].record()
                fn()
                ends[i].record()
            torch.cuda.synchronize()
            times = [s.elapsed_time(e) / 1e3 for s, e in zip(starts, ends)]
            method = "cuda-events"
        else:
            for _ in range(n):
                times.append(self.call_time(fn))
            method = "wall-clock"
        return self._summary(times, method)

    def time_jax(self, fn, block):
        """JAX runs on its own streams: wall clock around batches of calls
        dispatched back to back, waited for once per batch
        (block_until_ready on the last result); the median of the batches'
        mean times."""
        t = self.timing

        def one():
            t0 = time.perf_counter()
            block(fn())
            return time.perf_counter() - t0
        est = one()
        for _ in range(t.warmup_calls(est)):
            block(fn())
        n = t.iterations(est)
        batches = 5 if n >= 10 else 1
        per = max(1, n // batches)
        means = []
        for _ in range(batches):
            t0 = time.perf_counter()
            out = None
            for _ in range(per):
                out = fn()
            block(out)
            means.append((time.perf_counter() - t0) / per)
        result = self._summary(means, "wall-clock-batches")
        result["iters"] = per * batches
        result["batches"] = batches
        return result

    @staticmethod
    def _summary(times, method):
        return {"method": method, "iters": len(times),
                "median_s": statistics.median(times), "min_s": min(times),
                "max_s": max(times), "mean_s": statistics.fmean(times)}

    # -- checks --------------------------------------------------------------

    def rel_error(self, outs, ref, case):
        """Largest relative L2 error over the outputs, computed in float64;
        inf when NaNs differ in place or a shape or dtype differs."""
        torch = self.torch
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

    def check_into(self, result, outs, ref, case, gate):
        if ref is None:
            result["check"] = "no reference"
            return
        err, why = self.rel_error(outs, ref, case)
        # JSON has no infinity: an error that is not a number is None, with
        # error_detail saying why.
        result["error"] = err if math.isfinite(err) else None
        if why:
            result["error_detail"] = why
        if gate:
            result["check"] = "pass" if err < case.tolerance else "fail"

    def cuda_healthy(self):
        if not self.cuda:
            return True
        try:
            self.torch.cuda.synchronize()
            x = self.torch.ones(16, device=self.device)
            return float((x * 2).sum()) == 32.0
        except Exception:
            return False

    # -- inputs --------------------------------------------------------------

    def make_inputs(self, case):
        torch = self.torch
        dtypes = {"f32": torch.float32, "f16": torch.float16,
                  "bf16": torch.bfloat16}
        gen = torch.Generator(device=self.device)
        gen.manual_seed(self.args.seed)
        inputs = []
        for p in case.params:
            mean, std = case.init.get(p.name, (0.0, 1.0))
            t = torch.randn(p.shape, generator=gen, device=self.device,
                            dtype=torch.float32)
            t = t.mul_(std).add_(mean).to(dtypes[p.dtype])
            inputs.append(t)
        return inputs

    # -- peers ---------------------------------------------------------------

    def run_torch_peer(self, case, fn, inputs, ref, compiles):
        """Checks and times a torch function; `compiles`: whether its first
        call compiles (then it does not count as an estimate)."""
        result = {}
        t0 = time.perf_counter()
        outs = fn(*inputs)
        self.sync()
        first = time.perf_counter() - t0
        result["first_call_s"] = first
        self.check_into(result, outs, ref, case, gate=False)
        del outs
        result.update(self.time_events(lambda: fn(*inputs),
                                       None if compiles else first))
        return result

    def peer_eager(self, case, inputs, ctx):
        fn = _torch_family(case, self.torch, self.device)
        outs = fn(*inputs)
        self.sync()
        ctx["ref"] = outs
        shapes = [tuple(o.shape) for o in outs]
        want = [o.shape for o in case.outputs]
        if shapes != want:
            raise RuntimeError("eager outputs have shapes %s, the case "
                               "declares %s" % (shapes, want))
        result = {}
        result.update(self.time_events(lambda: fn(*inputs)))
        return result

    def peer_compile(self, case, inputs, ctx):
        torch = self.torch
        torch._dynamo.reset()
        fn = _torch_family(case, torch, self.device)
        mode = None if self.args.compile_mode == "default" else \
            self.args.compile_mode
        cfn = torch.compile(fn, dynamic=False, mode=mode)
        result = self.run_torch_peer(case, cfn, inputs, ctx.get("ref"),
                                     compiles=True)
        result["compile_mode"] = self.args.compile_mode
        return result

    def peer_sdpa(self, backend):
        def peer(case, inputs, ctx):
            fn = _sdpa_function(case, self.torch, backend)
            return self.run_torch_peer(case, fn, inputs, ctx.get("ref"),
                                       compiles=False)
        return peer

    def peer_xla(self, case, inputs, ctx):
        jax = self.load_jax()
        if jax is None:
            return {"status": "unavailable", "reason": self.jax_error}
        torch = self.torch
        self.sync()
        arrays, how = [], "dlpack"
        for t in inputs:
            try:
                arrays.append(jax.dlpack.from_dlpack(t))
            except Exception:
                import numpy as np
                how = "copy"
                arrays.append(jax.device_put(np.asarray(t.cpu())))
        jfn = jax.jit(_jax_family(case, jax))

        def block(out):
            jax.block_until_ready(out)
        t0 = time.perf_counter()
        outs = jfn(*arrays)
        block(outs)
        first = time.perf_counter() - t0
        result = {"first_call_s": first, "inputs_via": how}
        ref = ctx.get("ref")
        try:
            touts = [torch.from_dlpack(o) for o in outs]
        except Exception:
            import numpy as np
            touts = [torch.as_tensor(np.asarray(o)).to(self.device)
                     for o in outs]
        self.check_into(result, touts, ref, case, gate=False)
        del touts, outs
        result.update(self.time_jax(lambda: jfn(*arrays), block))
        del arrays, jfn
        return result

    def peer_fkc(self, case, inputs, ctx):
        args = self.args
        if args.shrink > 1:
            return {"status": "skipped",
                    "reason": "--shrink: the artifact has the full shapes"}
        path = artifact_path(args, case)
        if not os.path.exists(path):
            status = ctx.get("compile_status")
            why = ("compile.sh: fkc %s, ptxas %s" % status if status
                   else "run bench/compile.sh")
            return {"status": "unavailable",
                    "reason": "no artifact %s (%s)" % (
                        os.path.relpath(path, REPO), why)}
        fkrt = self.load_fkrt()
        if fkrt is None:
            return {"status": "unavailable", "reason": self.fkrt_error}
        torch = self.torch
        result = {"artifact": os.path.relpath(path, REPO)}
        module = fkrt.Module(path)
        ctx["fkc_module"] = module
        names = module.graph_names()
        graph = case.graph_name
        if graph not in names:
            if len(names) != 1:
                raise RuntimeError("the artifact has no graph %r (it has %s)"
                                   % (graph, ", ".join(names)))
            graph = names[0]
        result["graph"] = graph
        result["launches"] = module.launch_count(graph)
        result["workspace_bytes"] = module.workspace_bytes(graph)
        result["target"] = module.target
        m_in = [(i.dtype, i.shape) for i in module.inputs(graph)]
        want_in = [(p.dtype, p.shape) for p in case.params]
        if m_in != want_in:
            raise RuntimeError("the artifact's inputs %s differ from the "
                               "graph file's %s" % (m_in, want_in))
        m_out = [(o.dtype, o.shape) for o in module.outputs(graph)]
        want_out = [(o.dtype, o.shape) for o in case.outputs]
        if m_out != want_out:
            raise RuntimeError("the artifact's outputs %s differ from the "
                               "case's %s" % (m_out, want_out))
        if not self.cuda:
            result.update(status="skipped", reason="not on a CUDA device "
                          "(the artifact's manifest matches the case)")
            return result
        t0 = time.perf_counter()
        module.load_cuda(self.device.index or 0)
        result["jit_load_s"] = time.perf_counter() - t0
        # Outputs poisoned with NaN: an element the run does not write
        # fails the check.
        dtypes = {"f32": torch.float32, "f16": torch.float16,
                  "bf16": torch.bfloat16}
        outs = [torch.full(o.shape, float("nan"), dtype=dtypes[o.dtype],
                           device=self.device) for o in case.outputs]
        self.sync()

        def fn():
            module.run(graph, inputs, outputs=outs)
        t0 = time.perf_counter()
        fn()
        self.sync()
        first = time.perf_counter() - t0
        result["first_call_s"] = first
        self.check_into(result, outs, ctx.get("ref"), case, gate=True)
        result.update(self.time_events(fn, first))
        return result

    # -- a case --------------------------------------------------------------

    def run_case(self, case, compile_state):
        torch = self.torch
        rec = self.recorder
        rec.write({"type": "case_begin", "case": case.name,
                   "time": time.time()})
        log("[%s] %s; %s" % (case.name, case.description, _work_text(case)))
        result = {"case": case.name, "peers": {}}
        ctx = {"compile_status": compile_state}
        inputs = None
        broken = False
        try:
            inputs = self.make_inputs(case)
            self.sync()
        except Exception as e:
            result["error"] = "inputs: " + _short_error(e)
            log("[%s] cannot make inputs: %s" % (case.name, result["error"]))
        peers = {"eager": self.peer_eager, "compile": self.peer_compile,
                 "xla": self.peer_xla,
                 "sdpa_flash": self.peer_sdpa("FLASH_ATTENTION"),
                 "sdpa_cudnn": self.peer_sdpa("CUDNN_ATTENTION"),
                 "fkc": self.peer_fkc}
        for peer in case.peers():
            if inputs is None:
                break
            if peer not in self.args.peer_list:
                r = {"status": "skipped", "reason": "not in --peers"}
            else:
                rec.write({"type": "peer_begin", "case": case.name,
                           "peer": peer, "time": time.time()})
                try:
                    _injected_fault(case.name, peer)
                    r = peers[peer](case, inputs, ctx)
                    r.setdefault("status", "ok")
                except Exception as e:
                    r = {"status": "failed", "reason": _short_error(e)}
                    if not isinstance(e, (ValueError, TypeError)):
                        r["traceback"] = traceback.format_exc(limit=6)
                    if self.cuda and isinstance(
                            e, torch.cuda.OutOfMemoryError):
                        torch.cuda.empty_cache()
                    if not self.cuda_healthy():
                        broken = True
                        r["reason"] += " (the CUDA context is lost)"
                if r.get("status") == "ok" and r.get("median_s"):
                    r["rate"] = case.rate(r["median_s"])
            result["peers"][peer] = r
            rec.write({"type": "peer", "case": case.name, "peer": peer,
                       "result": r})
            log("[%s]   %-14s %s" % (case.name, PEER_LABELS[peer],
                                     _peer_line(case, r)))
            if broken:
                break
            gc.collect()
        if broken:
            rec.write({"type": "broken", "case": case.name})
            return result, True
        module = ctx.pop("fkc_module", None)
        ctx.clear()
        del inputs
        if module is not None:
            module.close()
        gc.collect()
        if self.cuda:
            torch.cuda.empty_cache()
        if self.jax is not None:
            try:
                self.jax.clear_caches()
            except Exception:
                pass
        rec.write({"type": "case_end", "case": case.name, "result": result})
        return result, False

    def ceilings(self):
        """Device copy bandwidth and cuBLAS f16 GEMM rate, measured here."""
        torch = self.torch
        out = {}
        try:
            n = 2 ** 28                                  # 1 GiB of f32
            a = torch.randn(n, device=self.device)
            b = torch.empty_like(a)
            r = self.time_events(lambda: b.copy_(a))
            out["copy"] = {"bytes": 2 * a.numel() * 4, "median_s":
                           r["median_s"], "GB/s": 2 * n * 4 / r["median_s"]
                           / 1e9, "iters": r["iters"]}
            del a, b
            m = 8192
            x = torch.randn(m, m, device=self.device, dtype=torch.float16)
            y = torch.randn(m, m, device=self.device, dtype=torch.float16)
            r = self.time_events(lambda: x @ y)
            out["gemm_f16_8192"] = {"flops": 2 * m ** 3, "median_s":
                                    r["median_s"], "TFLOP/s": 2 * m ** 3 /
                                    r["median_s"] / 1e12, "iters": r["iters"]}
            del x, y
            torch.cuda.empty_cache()
        except Exception as e:
            out["error"] = _short_error(e)
        return out


def _injected_fault(case, peer):
    """A test aid: $FKC_BENCH_FAULT=CASE:PEER:exit|hang|raise makes that
    peer of that case kill its process, hang or raise, to exercise the
    supervisor's recovery."""
    spec = os.environ.get("FKC_BENCH_FAULT", "")
    for item in spec.split(","):
        parts = item.split(":")
        if len(parts) == 3 and parts[0] == case and parts[1] == peer:
            if parts[2] == "exit":
                os._exit(139)
            if parts[2] == "hang":
                time.sleep(3600)
            raise RuntimeError("injected fault")


def _peer_line(case, r):
    status = r.get("status")
    if status != "ok":
        return "%s: %s" % (status, r.get("reason", ""))
    text = "%s %s, median %.4g ms of %d" % (
        _rate_text(r.get("rate")), case.unit, r["median_s"] * 1e3, r["iters"])
    if r.get("error") is not None:
        text += ", error %.2g" % r["error"]
    if r.get("check"):
        text += " [%s]" % r["check"]
    if r.get("first_call_s") and r["first_call_s"] > 1:
        text += ", first call %.1f s" % r["first_call_s"]
    return text


def _rate_text(rate):
    if rate is None:
        return "-"
    return "%.4g" % rate if rate < 100 else "%.0f" % rate


def worker_main(args):
    cases = [c.load(args.shrink) for c in select_cases(args.cases)[0]]
    w = Worker(args)
    w.recorder.write({"type": "meta", "meta": w.metadata()})
    if w.cuda and not args.no_ceilings and args.shrink == 1:
        w.recorder.write({"type": "ceilings", "ceilings": w.ceilings()})
    status = compile_status(args)
    for case in cases:
        if args.deadline and time.time() > args.deadline:
            w.recorder.write({"type": "deadline", "case": case.name})
            return 0
        _, broken = w.run_case(case, status.get(case.name))
        if broken:
            return 3
    return 0


# ----------------------------------------------------------------------------
# Supervisor: runs workers, restarts one after a crash, a hang or a lost
# CUDA context, and writes the report
# ----------------------------------------------------------------------------

def _worker_command(args, names, partial, deadline, no_ceilings, peers):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker",
           "--partial", partial, "--deadline", repr(deadline),
           "--cases", ",".join(names), "--peers", ",".join(peers),
           "--artifacts", args.artifacts, "--seed", str(args.seed),
           "--compile-mode", args.compile_mode, "--budget", repr(args.budget),
           "--device", args.device, "--shrink", str(args.shrink),
           "--fkrt-lib", library_path(args)]
    if args.quick:
        cmd.append("--quick")
    if no_ceilings:
        cmd.append("--no-ceilings")
    return cmd


def _read_records(path, offset):
    with open(path) as f:
        f.seek(offset)
        data = f.read()
    # Only complete lines; a partial last line is read next time.
    end = data.rfind("\n") + 1
    records = []
    for line in data[:end].splitlines():
        try:
            records.append(json.loads(line))
        except ValueError:
            pass
    return records, offset + len(data[:end].encode())


class _Progress:
    """What the records of workers say so far: the state the report is made
    of, and the case and peer in progress."""

    def __init__(self):
        self.state = {"meta": None, "jax": None, "ceilings": None,
                      "results": {}, "notes": []}
        self.current = None          # case in progress
        self.current_peer = None
        self.case_start = None
        self.last_record = time.time()
        self.finished = []           # cases ended (or given up) in order
        self.disabled = {}           # peer -> why later workers skip it

    def apply(self, r):
        st = self.state
        kind = r.get("type")
        self.last_record = time.time()
        if kind == "meta":
            st["meta"] = st["meta"] or r["meta"]
        elif kind == "jax":
            st["jax"] = st["jax"] or r
        elif kind == "ceilings":
            st["ceilings"] = r["ceilings"]
        elif kind == "case_begin":
            self.current, self.current_peer = r["case"], None
            self.case_start = time.time()
            st["results"][r["case"]] = {"case": r["case"], "peers": {}}
        elif kind == "peer_begin":
            self.current_peer = r["peer"]
        elif kind == "peer":
            st["results"][r["case"]]["peers"][r["peer"]] = self._disabled(
                r["peer"], r["result"])
            self.current_peer = None
        elif kind == "case_end":
            res = r["result"]
            for peer, result in res["peers"].items():
                res["peers"][peer] = self._disabled(peer, result)
            st["results"][r["case"]] = res
            self.finished.append(r["case"])
            self.current = None
        elif kind == "broken":
            st["results"][r["case"]]["error"] = (
                "the CUDA context was lost; the case's remaining peers were "
                "not run")
            self.finished.append(r["case"])
            self.current = None

    def _disabled(self, peer, result):
        if peer in self.disabled and result.get("reason") == "not in --peers":
            return {"status": "failed", "reason": self.disabled[peer]}
        return result

    def abandon(self, why, crashed=False):
        """The worker died or was killed in the current case. A peer other
        than fkc that crashed its process is not run again (a library that
        crashes on import would otherwise take every case down)."""
        name, peer = self.current, self.current_peer
        if crashed and peer and peer != "fkc":
            self.disabled[peer] = "not run: it crashed the process in %s " \
                "(%s)" % (name, why)
        res = self.state["results"].setdefault(name, {"case": name,
                                                      "peers": {}})
        if peer:
            why += " in %s" % PEER_LABELS[peer]
            res["peers"][peer] = {"status": "failed", "reason": why}
        res["error"] = why
        self.state["notes"].append("%s: %s" % (name, why))
        self.finished.append(name)
        self.current = self.current_peer = None
        log("[%s] %s" % (name, why))


def supervise(args, cases, on_case=None):
    """Runs the cases in worker processes, a new one after a worker dies,
    hangs (--case-timeout) or loses its CUDA context; stops starting cases
    at --time-limit and stops everything 60 s later. `on_case` is called
    with the state after each case."""
    start = time.time()
    deadline = start + args.time_limit
    hard_deadline = deadline + 60
    names = [c.name for c in cases]
    progress = _Progress()
    st = progress.state
    fd, partial = tempfile.mkstemp(prefix="fkc-bench-", suffix=".jsonl")
    os.close(fd)
    offset = 0
    interrupted = gave_up = None

    def on_signal(signum, frame):
        raise KeyboardInterrupt("signal %d" % signum)
    previous = signal.signal(signal.SIGTERM, on_signal)
    proc = None
    try:
        for _ in range(len(names) + 1):
            remaining = [n for n in names if n not in progress.finished]
            if not remaining or time.time() > deadline:
                break
            no_ceilings = args.no_ceilings or st["ceilings"] is not None
            peers = [p for p in args.peer_list
                     if p not in progress.disabled]
            cmd = _worker_command(args, remaining, partial, deadline,
                                  no_ceilings, peers)
            proc = subprocess.Popen(cmd, cwd=REPO, start_new_session=True)
            progress.last_record = time.time()
            before = len(progress.finished)
            killed = None
            while True:
                rc = proc.poll()
                records, offset = _read_records(partial, offset)
                for r in records:
                    ended = len(progress.finished)
                    progress.apply(r)
                    if on_case and len(progress.finished) > ended:
                        on_case(st)
                if rc is not None:
                    break
                now = time.time()
                if now > hard_deadline:
                    killed = "stopped at the overall time limit " \
                             "(--time-limit %g s + 60 s)" % args.time_limit
                elif progress.current and \
                        now - progress.case_start > args.case_timeout:
                    killed = "timed out after %g s" % args.case_timeout
                elif not progress.current and \
                        now - progress.last_record > args.case_timeout:
                    killed = "the worker made no progress for %g s" \
                             % args.case_timeout
                if killed:
                    _kill(proc)
                    continue
                time.sleep(0.25)
            proc = None
            if progress.current:
                progress.abandon(killed or "the worker process exited with "
                                 "status %s" % rc, crashed=not killed)
                if on_case:
                    on_case(st)
            elif rc != 0 and len(progress.finished) == before:
                # Died before its first case (torch missing, say): give up.
                gave_up = killed or "the worker process exited with " \
                    "status %s before running a case" % rc
                st["notes"].append(gave_up)
                break
            if killed and time.time() > hard_deadline:
                break
    except KeyboardInterrupt as e:
        interrupted = "interrupted (%s)" % (e or "SIGINT")
        if proc is not None:
            _kill(proc)
            records, offset = _read_records(partial, offset)
            for r in records:
                progress.apply(r)
        if progress.current:
            progress.abandon(interrupted)
        st["notes"].append(interrupted)
    finally:
        signal.signal(signal.SIGTERM, previous)
        os.unlink(partial)
    why = "not run: " + (interrupted or gave_up or "--time-limit of %g s "
                         "reached" % args.time_limit)
    for name in names:
        if name not in progress.finished:
            res = st["results"].setdefault(name, {"case": name, "peers": {}})
            res.setdefault("error", why)
    st["elapsed_s"] = time.time() - start
    return st


def _kill(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait()


def in_process(args, cases):
    start = time.time()
    fd, partial = tempfile.mkstemp(prefix="fkc-bench-", suffix=".jsonl")
    os.close(fd)
    args.partial = partial
    args.deadline = start + args.time_limit
    args.cases = ",".join(c.name for c in cases)
    try:
        worker_main(args)
    finally:
        records, _ = _read_records(partial, 0)
        os.unlink(partial)
    progress = _Progress()
    for r in records:
        progress.apply(r)
    progress.state["elapsed_s"] = time.time() - start
    return progress.state


# ----------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------

def _out_dir(args):
    if args.out:
        return args.out
    if os.environ.get("OUT"):
        return os.environ["OUT"]
    return os.path.join(BENCH, "results")


_driver = []


def _driver_version():
    if _driver:
        return _driver[0]
    _driver.append(_query_driver())
    return _driver[0]


def _query_driver():
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version",
             "--format=csv,noheader"], capture_output=True, text=True,
            timeout=20)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip().splitlines()[0]
    except Exception:
        pass
    return None


def _commit(args):
    if args.commit:
        return args.commit, "--commit"
    if os.environ.get("FKC_COMMIT"):
        return os.environ["FKC_COMMIT"], "$FKC_COMMIT"
    path = os.path.join(args.artifacts, "COMMIT")
    if os.path.exists(path):
        with open(path) as f:
            text = f.read().strip()
        if text:
            return text, "artifacts' COMMIT (written by compile.sh)"
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO,
                             capture_output=True, text=True, timeout=10)
        if out.returncode == 0:
            return out.stdout.strip(), "git"
    except Exception:
        pass
    return "unknown", None


def _slug(text):
    text = re.sub(r"^nvidia\s+", "", text.strip(), flags=re.I)
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "gpu"


def _cell(case, r, fkc):
    if r is None:
        return "not run"
    status = r.get("status")
    if status != "ok":
        return {"unavailable": "unavailable", "skipped": "skipped"}.get(
            status, "failed")
    text = _rate_text(r.get("rate"))
    if fkc is not None and fkc.get("status") == "ok" and r is not fkc \
            and r.get("median_s"):
        text += " (%.2fx)" % (r["median_s"] / fkc["median_s"])
    return text


def _check_cell(case, fkc):
    if not fkc:
        return "-"
    if fkc.get("status") != "ok":
        return "-"
    check = fkc.get("check")
    err = fkc.get("error")
    if check == "fail" and err is None:
        return "**FAIL** (%s)" % fkc.get("error_detail", "no error figure")
    if check is None or err is None:
        return check or "-"
    word = "pass" if check == "pass" else "**FAIL**"
    return "%s (%.1e < %g)" % (word, err, case.tolerance) if check == "pass" \
        else "%s (%.1e, limit %g)" % (word, err, case.tolerance)


def build_report(args, cases, state):
    meta = dict(state.get("meta") or {})
    jax_info = state.get("jax") or {}
    commit, commit_source = _commit(args)
    now = datetime.datetime.now(datetime.timezone.utc)
    report = {
        "format": "fkc-bench", "version": 1,
        "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit, "commit_source": commit_source,
        "gpu": meta.get("gpu"), "driver": _driver_version(),
        "environment": meta,
        "jax": {k: v for k, v in jax_info.items() if k != "type"} or None,
        "options": {"quick": args.quick, "budget_s": args.budget,
                    "seed": args.seed, "compile_mode": args.compile_mode,
                    "peers": args.peer_list, "shrink": args.shrink,
                    "device": args.device},
        "ceilings": state.get("ceilings"),
        "elapsed_s": state.get("elapsed_s"),
        "notes": state.get("notes", []),
        "method": {
            "memory_bound": "GB/s = (bytes of all inputs + bytes of all "
                            "outputs) / median time; 1 GB = 1e9 bytes",
            "compute_bound": "TFLOP/s = FLOPs / median time; attention "
                             "4*B*H*N^2*D (halved when causal); MLP, "
                             "GEMMs 2*M*N*K per matmul (times the batch)",
            "torch_timing": "CUDA events around each call after warm-up; "
                            "median of the calls",
            "jax_timing": "wall clock around batches of calls dispatched "
                          "back to back, block_until_ready once per batch; "
                          "median of the batch means",
            "ratio": "fkc speed / peer speed = peer median time / fkc "
                     "median time (above 1: fkc is faster)",
            "check": "relative L2 error of fkc's outputs against eager's, "
                     "in float64, the worst output; NaNs must match"},
        "cases": [],
    }
    for case in cases:
        res = state["results"].get(case.name, {"case": case.name,
                                               "peers": {},
                                               "error": "not run"})
        entry = {"case": case.name, "graph": os.path.relpath(
                     case.graph_path, REPO),
                 "description": case.description,
                 "eager_is": case.eager_is,
                 "inputs": [p.as_json() for p in case.params],
                 "outputs": [o.as_json() for o in case.outputs],
                 "bytes": case.bytes, "flops": case.flops, "unit": case.unit,
                 "tolerance": case.tolerance, "peers": res.get("peers", {})}
        if res.get("error"):
            entry["error"] = res["error"]
        fkc = entry["peers"].get("fkc")
        if fkc and fkc.get("status") == "ok":
            entry["fkc_check"] = fkc.get("check")
            for peer, r in entry["peers"].items():
                if peer != "fkc" and r.get("status") == "ok":
                    r["fkc_speedup"] = r["median_s"] / fkc["median_s"]
        report["cases"].append(entry)
    return report


def markdown(report, cases):
    lines = ["# fkc peer benchmark", ""]
    env = report.get("environment") or {}
    gpu = report.get("gpu") or "unknown GPU"
    details = []
    if env.get("sms"):
        details.append("%d SMs" % env["sms"])
    if env.get("l2_bytes"):
        details.append("L2 %s" % _fmt_bytes(env["l2_bytes"]))
    if report.get("driver"):
        details.append("driver %s" % report["driver"])
    lines.append("- GPU: %s%s" % (gpu, " (%s)" % ", ".join(details)
                                  if details else ""))
    lines.append("- date: %s; commit: %s%s" % (
        report["date"], report["commit"],
        " (%s)" % report["commit_source"] if report.get("commit_source")
        else ""))
    soft = ["torch %s (CUDA %s, cuDNN %s)" % (env.get("torch"),
                                               env.get("torch_cuda"),
                                               env.get("cudnn"))]
    if env.get("triton"):
        soft.append("triton %s" % env["triton"])
    jx = report.get("jax") or {}
    if jx.get("jax"):
        soft.append("jax %s (jaxlib %s, %s)" % (jx["jax"], jx.get("jaxlib"),
                                                jx.get("jax_device")))
    lines.append("- software: %s; python %s" % (", ".join(soft),
                                                env.get("python")))
    opts = report["options"]
    lines.append("- options: %s, %.2g s of timed runs per peer, seed %d, "
                 "torch.compile mode %s%s" % (
                     "quick" if opts["quick"] else "full", opts["budget_s"],
                     opts["seed"], opts["compile_mode"],
                     ", SHAPES SHRUNK by %d (not a measurement)" %
                     opts["shrink"] if opts["shrink"] > 1 else ""))
    ceil = report.get("ceilings") or {}
    if ceil.get("copy") and ceil.get("gemm_f16_8192"):
        lines.append("- ceilings measured in this run: device copy %.0f GB/s "
                     "(read + write), cuBLAS f16 GEMM 8192^3 %.0f TFLOP/s" % (
                         ceil["copy"]["GB/s"],
                         ceil["gemm_f16_8192"]["TFLOP/s"]))
    lines.append("")
    lines.append("Each cell: the peer's GB/s (memory-bound cases) or TFLOP/s "
                 "(compute-bound), and in parentheses fkc's speed relative to "
                 "that peer (peer time / fkc time; above 1: fkc is faster). "
                 "Check: fkc's relative L2 error against eager.")
    lines.append("")
    header = ["case", "unit", "work"] + [PEER_LABELS[p] for p in TABLE_PEERS] \
        + ["fkc check"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "|".join(["---"] * 3 + ["---:"] * len(TABLE_PEERS) +
                                ["---"]) + "|")
    by_name = {c.name: c for c in cases}
    footnotes = []
    for entry in report["cases"]:
        case = by_name[entry["case"]]
        peers = entry["peers"]
        fkc = peers.get("fkc")
        row = [case.name, case.unit, _work_text(case)]
        eager = peers.get("eager")
        if case.eager_is and eager and \
                eager.get("reason") != "not in --peers":
            footnotes.append("%s: PyTorch eager runs %s" % (case.name,
                                                           case.eager_is))
        for p in TABLE_PEERS:
            if p not in case.peers():
                row.append("")
                continue
            r = peers.get(p)
            row.append(_cell(case, r, fkc))
            if r and r.get("status") == "skipped" and \
                    r.get("reason") == "not in --peers":
                pass
            elif r and r.get("status") != "ok":
                footnotes.append("%s, %s: %s: %s" % (
                    case.name, PEER_LABELS[p], r.get("status"),
                    r.get("reason", "")))
            elif r and r.get("check") == "fail":
                err = r.get("error")
                footnotes.append("%s, %s: outputs differ from eager's: %s" % (
                    case.name, PEER_LABELS[p], "; ".join(
                        x for x in ("error %.3g" % err if err is not None
                                    else None, r.get("error_detail")) if x)))
            elif r and r.get("error") is not None and \
                    r["error"] >= case.tolerance:
                footnotes.append("%s, %s: differs from eager by %.3g" % (
                    case.name, PEER_LABELS[p], r["error"]))
            elif r and r.get("error_detail") and p != "fkc":
                footnotes.append("%s, %s: differs from eager: %s" % (
                    case.name, PEER_LABELS[p], r["error_detail"]))
        row.append(_check_cell(case, fkc))
        if entry.get("error"):
            footnotes.append("%s: %s" % (case.name, entry["error"]))
        lines.append("| " + " | ".join(row) + " |")
    if footnotes:
        lines.append("")
        lines.append("Notes:")
        lines.append("")
        for note in footnotes:
            lines.append("- " + note.replace("|", "\\|"))
    lines.append("")
    lines.append("Median time per call in ms (iterations timed):")
    lines.append("")
    lines.append("| case | " + " | ".join(PEER_LABELS[p]
                                         for p in TABLE_PEERS) + " |")
    lines.append("|---|" + "|".join(["---:"] * len(TABLE_PEERS)) + "|")
    for entry in report["cases"]:
        case = by_name[entry["case"]]
        row = [case.name]
        for p in TABLE_PEERS:
            r = entry["peers"].get(p)
            if r and r.get("status") == "ok" and r.get("median_s"):
                row.append("%.4g (%d)" % (r["median_s"] * 1e3, r["iters"]))
            else:
                row.append("")
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    lines.append("Bytes counted: every input read once and every output "
                 "written once. torch peers are timed with CUDA events, JAX "
                 "by wall clock over batches of calls (block_until_ready per "
                 "batch). bench/README.md describes the method.")
    return "\n".join(lines) + "\n"


def _finite(obj):
    """`obj` with every infinite or NaN float written as a string, which
    JSON can hold."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj


def write_report(args, cases, state, quiet=False):
    report = build_report(args, cases, state)
    md = markdown(report, cases)
    out = _out_dir(args)
    os.makedirs(out, exist_ok=True)
    stem = args.name
    if not stem:
        day = report["date"][:10]
        stem = "%s-%s%s" % (day, _slug(report.get("gpu") or "unknown"),
                            "-quick" if args.quick else "")
    json_path = os.path.join(out, stem + ".json")
    md_path = os.path.join(out, stem + ".md")
    with open(json_path, "w") as f:
        json.dump(_finite(report), f, indent=1, default=str)
        f.write("\n")
    with open(md_path, "w") as f:
        f.write(md)
    if not quiet:
        print()
        print(md)
        print("wrote %s and %s" % (json_path, md_path))
    return report


def main(argv=None):
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    args.artifacts = os.path.abspath(args.artifacts)
    if args.worker:
        return worker_main(args)
    cases, unknown = select_cases(args.cases)
    if unknown:
        print("run: no case matches %s (cases: %s)" % (
            ", ".join(unknown), ", ".join(c.name for c in CASES)),
            file=sys.stderr)
        return 2
    try:
        cases = [c.load(args.shrink) for c in cases]
    except (OSError, ValueError) as e:
        print("run: %s" % e, file=sys.stderr)
        return 2
    if args.dry_run:
        return dry_run(args, cases)
    if args.in_process:
        state = in_process(args, cases)
    else:
        # The report is rewritten after each case, so that a run stopped
        # from outside still leaves what it measured.
        state = supervise(args, cases, on_case=lambda st: write_report(
            args, cases, dict(st, elapsed_s=None), quiet=True))
    report = write_report(args, cases, state)
    bad = [c["case"] for c in report["cases"] if c.get("fkc_check") == "fail"]
    if bad:
        print("fkc's outputs differ from eager's in: %s" % ", ".join(bad))
    return 0


if __name__ == "__main__":
    sys.exit(main())
