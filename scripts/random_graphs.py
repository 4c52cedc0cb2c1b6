#!/usr/bin/env python3
"""Random differential testing of fkc.

Generates valid random `.graph` programs (docs/language.md: every op of
section 11, every dtype an op takes, numpy broadcasting, odd, unit and empty
sizes, numbers, several results, inputs and values returned more than once,
tensor-core and flash-attention shapes), checks each with
`fkc --verify-stages` (every stage interpreted against the graph stage) and
`fkc -o G.ptx` + ptxas, and minimizes every failure to a small graph that
fails the same way.

    random_graphs.py generate --seed S [--count N] [--large] [--out DIR]
    random_graphs.py run [--count N | --seconds T] [--seed S|random]
                         [--fkc PATH] [--ptxas PATH|none] [--out DIR]
                         [--jobs J] [--large-every K] [--timeout SEC]
                         [--no-minimize] [--minimize-seconds SEC]
    (both: [--large] [--large-every K] [--exclude A,B] [--known-bugs];
    docs/tools.md describes them)

`generate` writes g<seed>.graph files (or prints one graph file when there
is no --out); `run` checks graphs of seeds S, S+1, ... until N graphs or T
seconds, prints one line per failure and ends with
`random graphs: N passed, M failed`; it exits 1 if any failed. Failures go
to --out (default build/random-graphs): the minimized graph, the original
graph and the log of the failing command.

Everything is deterministic in the seed (Python's own `random.Random`; no
other dependency than the standard library). The graph of seed S is the
same on every machine, so `generate --seed S` reproduces any reported seed.

Values stay numerically sane, so that verify-stages' tolerances mean
something: every value carries a bound on its magnitude and whether it is
*exact* (computed by correctly rounded ops from the inputs, identical at
every stage and on the GPU) or not (reductions and matmuls of floats,
transcendental functions, composites). Discontinuous ops (floor, the
comparisons, casts to i32 and i1) only see exact values; log, sqrt, rsqrt,
pow and division see `abs(x) + c` where x is not exact; large values are
squashed (tanh, sin, x / (abs(x) + 1), ...) before they grow further. One
graph in three may also make NaN and infinities on purpose (log and sqrt of
raw inputs, division by zero, -inf fills and masks), only from exact values,
so that their positions are the same at every stage.
"""

import argparse
import concurrent.futures
import math
import os
import random
import re
import shutil
import subprocess
import sys
import threading
import time

FLOATS = ("f32", "f16", "bf16")
NUMERIC = FLOATS + ("i32",)
ANY = NUMERIC + ("i1",)

# Magnitudes: a float value whose bound passes LIMIT is squashed before an op
# makes it larger; exact values may overflow on purpose in graphs that allow
# non-finite values.
LIMIT = 1.0e4
DTYPE_MAX = {"f32": 3.4e38, "f16": 65504.0, "bf16": 3.38e38,
             "i32": 2.0 ** 31, "i1": 1.0, "i64": 2.0 ** 63}
# i64 values stay within 2^53, where the reference interpreter's doubles are
# exact (docs/language.md, section 4); i64 appears only through the
# generators int64, gather and argmax, so other generators see no i64.
I64_BOUND = 2.0 ** 52

# Sizes. Odd sizes and non-multiples of every tile on purpose.
#
# Extension point, symbolic sizes: every size a generator uses comes from
# Sizes.dim() (or is derived from another value's shape), and shapes are
# printed by format_shape() only. When the language gains symbolic
# dimensions, Sizes.dim() may return a symbol (a name with a range of
# values) and format_shape(), numel() and broadcasting learn about it; the
# op generators need no change.
SMALL_DIMS = [(1, 6), (2, 5), (3, 5), (4, 4), (5, 3), (7, 4), (8, 3), (9, 2),
              (16, 3), (17, 3), (31, 2), (32, 2), (33, 2), (64, 1), (65, 1),
              (127, 1), (128, 1), (129, 1)]
LARGE_DIMS = [(1, 3), (2, 2), (3, 2), (7, 2), (8, 1), (17, 1), (31, 1),
              (33, 1), (64, 3), (65, 2), (127, 2), (128, 3), (129, 2),
              (192, 2), (255, 2), (256, 3), (257, 2)]
# K and N of tensor-core matmuls (rows of 16 bytes), with a few that are not.
TC_DIMS_SMALL = [8, 16, 24, 32, 40, 64]
TC_DIMS_LARGE = [64, 128, 136, 192, 256, 264]


def format_shape(shape):
    return "[" + ", ".join(str(d) for d in shape) + "]"


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def broadcast_shapes(*shapes):
    """numpy's broadcast of `shapes`, or None."""
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        size = 1
        for s in shapes:
            j = i - (rank - len(s))
            if j < 0:
                continue
            d = s[j]
            if d == 1:
                continue
            if size != 1 and size != d:
                return None
            size = d
        out.append(size)
    return tuple(out)


def format_type(dtype, shape):
    return "%s%s" % (dtype, format_shape(shape))


# ---------------------------------------------------------------------------
# Expressions
# ---------------------------------------------------------------------------

class E:
    """An expression: a name, a number, a call, an infix operator or unary
    minus. Tensor expressions carry dtype and shape; numbers have dtype None
    and their value. `exact`, `bound` and `nonfinite` describe the values
    (see the module's docstring)."""

    __slots__ = ("kind", "name", "text", "op", "args", "attrs", "dtype",
                 "shape", "exact", "bound", "nonfinite", "value")

    def __init__(self, kind, dtype=None, shape=None, name=None, text=None,
                 op=None, args=(), attrs=(), exact=True, bound=1.0,
                 nonfinite=False, value=None):
        self.kind = kind
        self.name = name
        self.text = text
        self.op = op
        self.args = list(args)
        self.attrs = list(attrs)
        self.dtype = dtype
        self.shape = tuple(shape) if shape is not None else None
        self.exact = exact
        self.bound = bound
        self.nonfinite = nonfinite
        self.value = value

    @property
    def is_number(self):
        return self.dtype is None

    @property
    def rank(self):
        return len(self.shape)

    def names(self, out=None):
        out = set() if out is None else out
        if self.kind == "ref":
            out.add(self.name)
        for a in self.args:
            a.names(out)
        # Index lists name rank-0 values: start=[pos, 0].
        for k, v in self.attrs:
            if k == "start" and v.startswith("["):
                out.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", v))
        return out

    def copy_meta(self, other):
        self.exact, self.bound, self.nonfinite = (other.exact, other.bound,
                                                  other.nonfinite)
        return self


PRECEDENCE = {"@": 2, "*": 3, "/": 3, "+": 4, "-": 4}


def render(e):
    """The text of `e` and its precedence (0: primary, 1: unary minus)."""
    if e.kind == "ref":
        return e.name, 0
    if e.kind == "num":
        return e.text, 0
    if e.kind == "call":
        parts = [render(a)[0] for a in e.args]
        parts += ["%s=%s" % kv for kv in e.attrs]
        return "%s(%s)" % (e.op, ", ".join(parts)), 0
    if e.kind == "neg":
        text, prec = render(e.args[0])
        if prec > 1 or text.startswith("-"):
            text = "(" + text + ")"
        return "-" + text, 1
    if e.kind == "paren":
        return "(" + render(e.args[0])[0] + ")", 0
    assert e.kind == "bin", e.kind
    prec = PRECEDENCE[e.op]
    left, lp = render(e.args[0])
    right, rp = render(e.args[1])
    if lp > prec:
        left = "(" + left + ")"
    if rp >= prec:
        right = "(" + right + ")"
    return "%s %s %s" % (left, e.op, right), prec


def ref(name, like):
    return E("ref", like.dtype, like.shape, name=name).copy_meta(like) \
        if not like.is_number else E("ref", name=name, value=like.value)


# ---------------------------------------------------------------------------
# Graphs
# ---------------------------------------------------------------------------

class Stmt:
    __slots__ = ("name", "declared", "expr")

    def __init__(self, name, declared, expr):
        self.name = name
        self.declared = declared  # (dtype, shape) written on the statement
        self.expr = expr


class Graph:
    def __init__(self, name):
        self.name = name
        self.params = []   # (name, dtype, shape)
        self.stmts = []    # Stmt
        self.results = []  # E

    def text(self):
        params = ", ".join("%s: %s" % (n, format_type(d, s))
                           for n, d, s in self.params)
        lines = ["graph %s(%s) {" % (self.name, params)]
        for st in self.stmts:
            decl = ""
            if st.declared is not None:
                decl = ": " + format_type(*st.declared)
            lines.append("  %s%s = %s" % (st.name, decl, render(st.expr)[0]))
        lines.append("  return " + ", ".join(render(r)[0]
                                             for r in self.results))
        lines.append("}")
        return "\n".join(lines) + "\n"

    def clone(self):
        g = Graph(self.name)
        g.params = list(self.params)
        g.stmts = [Stmt(s.name, s.declared, clone_expr(s.expr))
                   for s in self.stmts]
        g.results = [clone_expr(r) for r in self.results]
        return g


def clone_expr(e):
    c = E(e.kind, e.dtype, e.shape, e.name, e.text, e.op,
          [clone_expr(a) for a in e.args], e.attrs, e.exact, e.bound,
          e.nonfinite, e.value)
    return c


class GraphFile:
    def __init__(self, header, graphs):
        self.header = header  # comment lines, without '#'
        self.graphs = graphs

    def text(self):
        head = "".join("# %s\n" % line if line else "#\n"
                       for line in self.header)
        return head + "\n".join(g.text() for g in self.graphs)

    def clone(self):
        return GraphFile(list(self.header), [g.clone() for g in self.graphs])


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------

# Open bugs: what makes a graph hit them, with the regression test that
# holds the minimized graph. The generator leaves these cases out unless
# --known-bugs asks for them, so that CI and the GPU batch stay green until
# the bug is fixed; then the entry goes (and the test's XFAIL).
KNOWN_BUGS = {}


class Options:
    def __init__(self, large=False, exclude=(), known_bugs=False):
        self.large = large
        self.exclude = set(exclude)
        self.known_bugs = known_bugs
        self.max_elements = 1 << 16 if large else 4096
        self.matmul_budget = 1 << 24 if large else 1 << 17
        self.attention_budget = 1 << 23 if large else 1 << 18


class Sizes:
    """Every size the generator invents (see the symbolic-size note above)."""

    def __init__(self, rng, options, empty):
        self.rng = rng
        self.options = options
        self.empty = empty
        table = LARGE_DIMS if options.large else SMALL_DIMS
        self.dims = [d for d, _ in table]
        self.weights = [w for _, w in table]

    def dim(self, cap=None):
        if self.empty and self.rng.random() < 0.12:
            return 0
        for _ in range(20):
            d = self.rng.choices(self.dims, self.weights)[0]
            if cap is None or d <= cap:
                return d
        return 1

    def small(self):
        return self.rng.choice([1, 2, 3, 4, 5, 7])

    def tensor_core(self):
        table = TC_DIMS_LARGE if self.options.large else TC_DIMS_SMALL
        return self.rng.choice(table)

    def shape(self, rank=None, max_elements=None):
        cap = max_elements or self.options.max_elements
        if rank is None:
            rank = self.rng.choices([0, 1, 2, 3, 4, 5, 6],
                                    [4, 20, 36, 24, 16, 2, 1])[0]
        dims = [self.dim() for _ in range(rank)]
        while numel(dims) > cap:
            i = max(range(rank), key=lambda j: dims[j])
            dims[i] = max(1, dims[i] // self.rng.choice([2, 3, 4]))
        return tuple(dims)


NUMBER_TEXTS = {
    0.5: ["0.5", ".5", "5e-1", "0.50"], 2.0: ["2", "2.", "2.0", "2e0"],
    0.25: ["0.25", "2.5E-1"], 3.0: ["3", "3.0"], 0.125: ["0.125", "1.25e-1"],
    1.0: ["1", "1.0", "1."], 0.1: ["0.1", "1e-1"], 1e-3: ["1e-3", "0.001"],
    1e-5: ["1e-5", "1E-5"], 1.5: ["1.5"], 10.0: ["10", "1e1", "1E+1"],
    100.0: ["100", "1e2"], 7.0: ["7"], 8.0: ["8"], 0.0: ["0", "0.0"],
    4.0: ["4"], 0.75: ["0.75"], 300.0: ["3E+2", "300"],
}


class Builder:
    """Builds one graph: a pool of values, statements, results."""

    def __init__(self, rng, options, name, nonfinite, empty):
        self.rng = rng
        self.opt = options
        self.sizes = Sizes(rng, options, empty)
        self.graph = Graph(name)
        self.pool = []      # refs of parameters and tensor statements
        self.inline = []    # expressions waiting to be used inside another
        self.numbers = []   # refs of statements that are bare numbers
        self.names = set()
        self.counter = 0
        self.nonfinite = nonfinite
        self.uses = {}      # name -> times used

    # -- names, parameters, statements --------------------------------------

    def fresh(self, prefix):
        # Op and dtype names are not keywords: now and then a value is
        # called `relu` or `f16`.
        if prefix == "t" and self.rng.random() < 0.03:
            for cand in ("relu", "sum", "f16", "exp", "max", "shape", "x_1"):
                if cand not in self.names:
                    self.names.add(cand)
                    return cand
        while True:
            name = "%s%d" % (prefix, self.counter)
            self.counter += 1
            if name not in self.names:
                self.names.add(name)
                return name

    def param(self, dtype, shape, prefix="x"):
        name = self.fresh(prefix)
        self.graph.params.append((name, dtype, tuple(shape)))
        bound = {"i32": 8.0, "i64": 8.0, "i1": 1.0}.get(dtype, 1.0)
        e = E("ref", dtype, shape, name=name, exact=True, bound=bound)
        self.pool.append(e)
        return e

    def produce(self, e):
        """A generator's result: a statement, or an expression kept to be
        written inside a later one (or in `return`)."""
        if not e.is_number and e.kind != "ref" and len(self.inline) < 2 and \
                self.rng.random() < 0.3:
            self.inline.append(e)
        else:
            self.emit(e, inline_ok=False)

    def emit(self, e, inline_ok=True):
        """What to use for `e`: a new statement's name or, now and then,
        `e` itself (written inline)."""
        if e.is_number:
            name = self.fresh("c")
            self.graph.stmts.append(Stmt(name, None, e))
            r = ref(name, e)
            self.numbers.append(r)
            return r
        if inline_ok and e.kind != "ref" and self.rng.random() < 0.3:
            return e
        name = self.fresh("t")
        declared = (e.dtype, e.shape) if self.rng.random() < 0.4 else None
        self.graph.stmts.append(Stmt(name, declared, e))
        r = ref(name, e)
        self.pool.append(r)
        return r

    def use(self, e):
        for n in e.names():
            self.uses[n] = self.uses.get(n, 0) + 1
        return e

    # -- picking operands ---------------------------------------------------

    def pick(self, pred, fresh_prob=0.25, consume=True):
        """A value of the pool (recent ones preferred) or a waiting inline
        expression for which pred holds (used up unless consume=False: the
        caller only looks at its type), or None."""
        cands = [e for e in self.inline if pred(e)]
        if cands and self.rng.random() < 0.7:
            e = self.rng.choice(cands)
            if consume:
                self.inline.remove(e)
            return e
        if self.rng.random() < fresh_prob:
            return None
        cands = [e for e in self.pool if pred(e)]
        if not cands:
            return None
        # Recent values first, and computed values before inputs: chains
        # of ops make the fusions worth testing.
        params = {p[0] for p in self.graph.params}
        weights = [(1.0 + i) * (1 if e.name in params else 4)
                   for i, e in enumerate(cands)]
        return self.rng.choices(cands, weights)[0]

    def squash(self, e):
        """`e` mapped into [-1, 1] by a smooth function."""
        r = self.rng.random()
        if e.dtype == "i32":
            return self.cast(e, self.rng.choice(FLOATS))
        if r < 0.3:
            out = call("tanh", [e], e)
        elif r < 0.5:
            out = call("sin", [e], e) if e.bound < 100 else call("tanh", [e], e)
        elif r < 0.7:
            out = call("sigmoid", [e], e)
        elif r < 0.85:
            out = bin_("/", e, bin_("+", call("abs", [e], e),
                                    self.num(1.0, e), e), e)
        else:
            out = call("erf", [e], e)
        out.exact = False
        out.bound = 1.0
        out.nonfinite = e.nonfinite
        return out

    def sane(self, e, limit=8.0):
        if e.dtype in FLOATS and e.bound > limit:
            return self.squash(e)
        return e

    def num(self, value, like, style=True):
        """A number literal (negative: unary minus of one)."""
        if value != value:
            raise ValueError("no NaN literal")
        neg = value < 0 or (value == 0 and math.copysign(1, value) < 0)
        mag = abs(value)
        if math.isinf(mag):
            text = "inf"
        elif mag in NUMBER_TEXTS and style:
            text = self.rng.choice(NUMBER_TEXTS[mag])
        elif mag == int(mag) and mag < 1e9:
            text = str(int(mag))
        else:
            text = repr(mag)
        n = E("num", text=text, value=mag)
        if neg:
            n = E("neg", args=[n], value=-mag)
        return n

    def number_operand(self, dtype):
        """A number valid in `dtype`: a literal, number arithmetic or the
        name of a number statement."""
        rng = self.rng
        if dtype == "i1":
            return self.num(rng.choice([0.0, 1.0]), None)
        if dtype == "i32":
            v = float(rng.choice([0, 1, 2, 3, -1, -2, 7, 8, -8, 100]))
            if rng.random() < 0.1:
                return bin_("+", self.num(2.0, None), self.num(1.0, None), None)
            return self.num(v, None)
        nums = [n for n in self.numbers if n.value is not None
                and abs(n.value) < 1e4]
        if nums and rng.random() < 0.3:
            n = rng.choice(nums)
            return E("ref", name=n.name, value=n.value)
        r = rng.random()
        if r < 0.1:
            # number arithmetic stays a number: 1 / 8, 2 * 3 + 1
            return bin_("/", self.num(1.0, None), self.num(8.0, None), None)
        if r < 0.15:
            return E("paren", args=[bin_("-", self.num(0.0, None),
                                         self.num(0.5, None), None)],
                     value=-0.5)
        v = rng.choice([0.5, 2.0, 0.25, 3.0, 0.125, 1.0, 0.1, 1e-3, 1.5, 10.0,
                        -1.0, -0.5, -2.0, 0.75, 4.0, 0.0, 7.0])
        return self.num(v, None)

    # -- operands of a given kind ------------------------------------------

    def tensor(self, dtypes, rank=None, min_rank=0, exact=False,
               nonfinite_ok=True, shape=None, max_bound=None):
        """A tensor from the pool or a new parameter."""
        def ok(e):
            if e.is_number or e.dtype not in dtypes:
                return False
            if shape is not None and e.shape != tuple(shape):
                return False
            if rank is not None and e.rank != rank:
                return False
            if e.rank < min_rank:
                return False
            if exact and not e.exact:
                return False
            if e.nonfinite and not nonfinite_ok:
                return False
            if max_bound is not None and e.bound > max_bound and \
                    e.dtype not in FLOATS:
                return False
            if numel(e.shape) > self.opt.max_elements:
                return False
            return True
        e = self.pick(ok)
        if e is None:
            dtype = self.rng.choice(dtypes)
            if shape is None:
                r = rank
                if r is None:
                    r = self.rng.choices([0, 1, 2, 3, 4, 5, 6],
                                         [4, 20, 36, 24, 16, 2, 1])[0]
                    r = max(r, min_rank)
                shape = self.sizes.shape(r)
            e = self.param(dtype, shape)
        if max_bound is not None:
            e = self.sane(e, max_bound)
        return self.use(e)

    def partner_shape(self, shape):
        """A shape that broadcasts with `shape`."""
        rng = self.rng
        k = rng.randint(0, len(shape)) if rng.random() < 0.5 else len(shape)
        out = []
        for d in shape[len(shape) - k:]:
            if d == 1:
                out.append(1 if rng.random() < 0.6 else self.sizes.dim(cap=33))
            else:
                out.append(d if rng.random() < 0.75 else 1)
        if len(shape) < 4 and rng.random() < 0.15:
            out = [self.sizes.small()] * (len(shape) - k + 1) + out \
                if k == len(shape) else out
        res = broadcast_shapes(tuple(shape), tuple(out))
        if res is None or numel(res) > self.opt.max_elements:
            return tuple(shape)
        return tuple(out)

    def partner(self, a, exact=False, nonfinite_ok=True, max_bound=None):
        """A tensor of a's dtype whose shape broadcasts with a's."""
        def ok(e):
            if e.is_number or e.dtype != a.dtype or e is a:
                return False
            res = broadcast_shapes(a.shape, e.shape)
            if res is None or numel(res) > self.opt.max_elements:
                return False
            if exact and not e.exact:
                return False
            if e.nonfinite and not nonfinite_ok:
                return False
            return True
        e = self.pick(ok, fresh_prob=0.35)
        if e is None:
            e = self.param(a.dtype, self.partner_shape(a.shape))
        if max_bound is not None:
            e = self.sane(e, max_bound)
        return self.use(e)

    def cast(self, e, dtype):
        out = call("cast", [e], e, attrs=[("to", dtype)])
        out.dtype = dtype
        if dtype == "i1":
            out.bound = 1.0
        elif dtype in ("i32", "i64"):
            out.bound = min(e.bound, DTYPE_MAX[dtype])
        elif e.bound > DTYPE_MAX[dtype] / 2:
            out.nonfinite = True
        return out


def call(op, args, like, attrs=()):
    """A call whose result has the type and properties of `like`; callers
    adjust them."""
    e = E("call", like.dtype, like.shape, op=op, args=args, attrs=attrs)
    e.exact = all(a.exact for a in args if not a.is_number)
    e.bound = like.bound
    e.nonfinite = any(a.nonfinite for a in args if not a.is_number)
    return e


def bin_(op, lhs, rhs, like):
    if like is None:
        # number arithmetic
        a, b = lhs.value, rhs.value
        value = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                 "/": lambda: a / b}[op]()
        return E("bin", op=op, args=[lhs, rhs], value=value)
    e = E("bin", like.dtype, like.shape, op=op, args=[lhs, rhs])
    e.exact = all(a.exact for a in (lhs, rhs) if not a.is_number)
    e.bound = like.bound
    e.nonfinite = any(a.nonfinite for a in (lhs, rhs) if not a.is_number)
    return e


def shaped(e, dtype=None, shape=None, bound=None, exact=None, nonfinite=None):
    if dtype is not None:
        e.dtype = dtype
    if shape is not None:
        e.shape = tuple(shape)
    if bound is not None:
        e.bound = bound
    if exact is not None:
        e.exact = exact
    if nonfinite is not None:
        e.nonfinite = nonfinite
    return e


# ---------------------------------------------------------------------------
# Op generators: each returns an expression (or None when it cannot make
# one from what it drew) and may add parameters and statements on the way.
# ---------------------------------------------------------------------------

BINARY_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


def elementwise_binary(b, ops=("add", "sub", "mul", "div", "max", "min",
                               "pow")):
    rng = b.rng
    op = rng.choices(ops, [5, 3, 5, 3, 2, 2, 2][:len(ops)])[0]
    dtypes = FLOATS if op == "pow" else NUMERIC
    a = b.tensor(dtypes)
    if a.dtype in FLOATS and op in ("mul", "pow"):
        a = b.sane(a, 8.0)
    number = rng.random() < 0.35
    nonfinite = b.nonfinite and a.exact and rng.random() < 0.3
    if a.nonfinite:
        # non-finite values meet only exact values, so that their positions
        # agree at every stage
        number = number or rng.random() < 0.5
    if op == "pow":
        base = a
        if not nonfinite:
            c = rng.choice([0.5, 1.0, 2.0])
            base = bin_("+", call("abs", [a], a), b.num(c, a), a)
            base.bound = a.bound + c
            lo = c
        else:
            lo = 0.0
        if number:
            ex = rng.choice([2.0, 0.5, 3.0, -1.0, 1.5, 0.0, -0.5, 1.0])
            rhs = b.num(ex, a)
            emax = abs(ex)
        else:
            rhs = b.partner(a, exact=a.nonfinite, nonfinite_ok=nonfinite)
            rhs = b.squash(rhs) if rhs.bound > 2 or not rhs.exact else rhs
            emax = min(rhs.bound, 2.0)
        shape = a.shape if rhs.is_number else broadcast_shapes(a.shape,
                                                               rhs.shape)
        bound = max((base.bound) ** emax, (1.0 / lo) ** emax if lo else 1e30)
        e = call("pow", [base, rhs], a)
        e = shaped(e, shape=shape, bound=bound)
        if nonfinite or bound > LIMIT:
            e.nonfinite = e.nonfinite or nonfinite or bound > DTYPE_MAX[a.dtype]
        return e
    if number:
        rhs = b.number_operand(a.dtype)
        if op == "div" and (rhs.value == 0 or rhs.value is None) and \
                not (nonfinite or a.dtype == "i32"):
            rhs = b.num(rng.choice([8.0, 3.0, 0.5, 7.0]), a)
        if a.dtype in FLOATS and abs(rhs.value or 0) * a.bound > LIMIT:
            rhs = b.num(0.5, a)
        shape = a.shape
    else:
        rhs = b.partner(a, exact=a.nonfinite, nonfinite_ok=a.exact)
        shape = broadcast_shapes(a.shape, rhs.shape)
        if op in ("mul",) and a.dtype in FLOATS:
            rhs = b.sane(rhs, 8.0)
    lhs = a
    if rng.random() < 0.25 and not rhs.is_number or \
            (rhs.is_number and rng.random() < 0.3 and op in ("add", "mul")):
        lhs, rhs = rhs, lhs  # numbers and broadcasts on either side
    la = lhs.bound if not lhs.is_number else abs(lhs.value or 1)
    ra = rhs.bound if not rhs.is_number else abs(rhs.value or 1)
    if op in ("add", "sub"):
        bound = la + ra
    elif op == "mul":
        bound = la * ra
    elif op in ("max", "min"):
        bound = max(la, ra)
    else:  # div
        if a.dtype == "i32":
            bound = la
        elif rhs.is_number:
            bound = la / max(abs(rhs.value), 1e-30) if rhs.value else math.inf
        elif nonfinite:
            bound = math.inf
        else:
            c = rng.choice([0.5, 1.0, 2.0])
            den = bin_("+", call("abs", [rhs], rhs), b.num(c, rhs), rhs)
            rhs = den
            bound = la / c
    like = E("ref", a.dtype, shape)
    if op in BINARY_INFIX and rng.random() < 0.8:
        e = bin_(BINARY_INFIX[op], lhs, rhs, like)
    else:
        e = call(op, [lhs, rhs], like)
        e.exact = all(x.exact for x in (lhs, rhs) if not x.is_number)
        e.nonfinite = any(x.nonfinite for x in (lhs, rhs) if not x.is_number)
    e.bound = bound
    if a.dtype in FLOATS and (bound > DTYPE_MAX[a.dtype] / 2 or
                              math.isinf(bound)):
        e.nonfinite = True
    return e


FLOAT_UNARY = ["exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "silu", "erf",
               "sin", "cos", "gelu"]


def float_unary(b):
    rng = b.rng
    op = rng.choice(FLOAT_UNARY)
    a = b.tensor(FLOATS)
    raw = b.nonfinite and a.exact and rng.random() < 0.35
    if op == "exp":
        if raw:
            x = bin_("*", a, b.num(100.0, a), a)  # overflows to inf
            e = call("exp", [x], a)
            return shaped(e, bound=math.inf, exact=False, nonfinite=True)
        x = b.sane(a, 8.0)
        return shaped(call("exp", [x], x), bound=math.exp(x.bound),
                      exact=False)
    if op in ("log", "sqrt", "rsqrt"):
        if raw:
            e = call(op, [a], a)
            return shaped(e, bound=math.inf, exact=False, nonfinite=True)
        c = rng.choice([1.0, 0.5, 0.1]) if op != "sqrt" or not a.exact \
            else rng.choice([0.0, 1.0])
        x = call("abs", [a], a)
        if c:
            x = bin_("+", x, b.num(c, a), a)
        x.bound = a.bound + c
        e = call(op, [x], x)
        bound = {"log": max(abs(math.log(c)) if c else 40,
                            math.log(a.bound + c + 1)),
                 "sqrt": math.sqrt(a.bound + c),
                 "rsqrt": 1 / math.sqrt(c) if c else math.inf}[op]
        return shaped(e, bound=bound, exact=False)
    if op == "gelu":
        attrs = []
        r = rng.random()
        if r < 0.4:
            attrs = [("approximate", '"tanh"')]
        elif r < 0.6:
            attrs = [("approximate", '"none"')]
        x = b.sane(a, 100.0)
        return shaped(call("gelu", [x], x, attrs=attrs), exact=False)
    if op in ("sin", "cos"):
        x = b.sane(a, 30.0)
        return shaped(call(op, [x], x), bound=1.0, exact=False)
    if op == "silu":
        x = b.sane(a, 100.0)
        return shaped(call(op, [x], x), exact=False)
    return shaped(call(op, [a], a), bound=1.0, exact=False)


def numeric_unary(b):
    rng = b.rng
    op = rng.choice(["neg", "abs", "relu", "floor", "neg"])
    a = b.tensor(NUMERIC, exact=(op == "floor"))
    if op == "floor" and a.dtype in FLOATS and rng.random() < 0.5 and \
            a.bound < 100:
        a = bin_("*", a, b.num(4.0, a), a)
        a.bound *= 4
    if op == "neg" and rng.random() < 0.7:
        return shaped(E("neg", a.dtype, a.shape, args=[a]), bound=a.bound,
                      exact=a.exact, nonfinite=a.nonfinite)
    e = call(op, [a], a)
    if op == "floor":
        e.bound = a.bound + 1
    return e


COMPARES = ["eq", "ne", "lt", "le", "gt", "ge"]


def compare(b, dtypes=ANY):
    rng = b.rng
    a = b.tensor(dtypes, exact=True)
    if rng.random() < 0.4:
        rhs = b.number_operand(a.dtype)
        shape = a.shape
    else:
        rhs = b.partner(a, exact=True)
        shape = broadcast_shapes(a.shape, rhs.shape)
    op = rng.choice(COMPARES)
    if rng.random() < 0.05 and a.dtype in FLOATS:
        return shaped(call("ne", [a, a], a), dtype="i1", bound=1.0,
                      nonfinite=False)  # the NaN test
    args = [a, rhs] if rng.random() < 0.7 else [rhs, a]
    e = call(op, args, E("ref", "i1", shape))
    return shaped(e, dtype="i1", shape=shape, bound=1.0, nonfinite=False)


def select(b):
    rng = b.rng
    cond = b.pick(lambda e: not e.is_number and e.dtype == "i1"
                  and e.exact and numel(e.shape) <= b.opt.max_elements)
    if cond is None:
        cond = compare(b)
    b.use(cond)
    t = b.tensor(ANY)
    shape = broadcast_shapes(cond.shape, t.shape)
    if shape is None or numel(shape) > b.opt.max_elements:
        t = b.param(t.dtype, cond.shape)
        shape = cond.shape
    if rng.random() < 0.35:
        if b.nonfinite and t.dtype in FLOATS and rng.random() < 0.5:
            other = b.num(rng.choice([-math.inf, math.inf]), t)
        else:
            other = b.number_operand(t.dtype)
        ob = 0 if other.value is None else abs(other.value)
    else:
        other = b.partner(t, exact=t.nonfinite, nonfinite_ok=t.exact)
        shape2 = broadcast_shapes(shape, other.shape)
        if shape2 is None or numel(shape2) > b.opt.max_elements:
            other = b.number_operand(t.dtype)
        else:
            shape = shape2
        ob = other.bound if not other.is_number else abs(other.value or 0)
    args = [t, other] if rng.random() < 0.5 else [other, t]
    e = call("select", [cond] + args, t)
    e.shape = shape
    e.bound = max(t.bound, ob)
    e.exact = cond.exact and all(x.exact for x in args if not x.is_number)
    e.nonfinite = t.nonfinite or (not other.is_number and other.nonfinite) \
        or math.isinf(ob)
    return e


def cast(b):
    rng = b.rng
    a = b.tensor(ANY)
    targets = list(ANY)
    if not a.exact:
        targets = [d for d in targets if d in FLOATS]
    to = rng.choice(targets)
    if to in ("f16", "bf16") and a.bound > 3e4 and not a.exact:
        a = b.squash(a)
    return b.cast(a, to)


def reduce_(b):
    rng = b.rng
    op = rng.choice(["sum", "mean", "max", "min", "sum"])
    a = b.tensor(FLOATS if op == "mean" else NUMERIC)
    axes = None
    r = a.rank
    attrs = []
    if r and rng.random() < 0.75:
        k = rng.randint(1, r)
        chosen = rng.sample(range(r), k)
        axes = sorted(chosen)
        spelled = [x - r if rng.random() < 0.3 else x for x in chosen]
        attrs.append(("axes", "[" + ", ".join(str(x) for x in spelled) + "]"))
    elif rng.random() < 0.08:
        attrs.append(("axes", "[]"))
        axes = []
    else:
        axes = list(range(r))
    keep = rng.random() < 0.35
    if keep:
        attrs.append(("keepdims", "true"))
    elif rng.random() < 0.1:
        attrs.append(("keepdims", "false"))
    rng.shuffle(attrs)
    if axes == [] or r == 0:
        shape = a.shape
    elif keep:
        shape = tuple(1 if i in axes else d for i, d in enumerate(a.shape))
    else:
        shape = tuple(d for i, d in enumerate(a.shape) if i not in axes)
    count = numel([a.shape[i] for i in axes]) if axes else 1
    if op == "sum" and a.dtype in FLOATS and count * a.bound > LIMIT:
        a = b.squash(a)
        if count > LIMIT:
            op = "mean"
    e = call(op, [a], a, attrs=attrs)
    e.shape = shape
    if op == "sum":
        e.bound = a.bound * count if a.dtype in FLOATS else \
            min(a.bound * count, DTYPE_MAX["i32"])
    if a.dtype in FLOATS and op in ("sum", "mean") and axes:
        e.exact = False
    if count == 0 and op != "sum":
        e.nonfinite = True  # empty mean is NaN, max -inf, min inf
    return e


def factor_shape(rng, n, rank):
    """A shape of `rank` dims with n elements (n > 0)."""
    dims = [1] * rank
    if rank == 0:
        return ()
    rest = n
    for i in range(rank - 1):
        divisors = [d for d in range(1, min(rest, 4096) + 1) if rest % d == 0]
        d = rng.choice(divisors)
        dims[i] = d
        rest //= d
    dims[-1] = rest
    rng.shuffle(dims)
    return tuple(dims)


def reshape(b):
    rng = b.rng
    a = b.tensor(ANY)
    n = numel(a.shape)
    if n == 0:
        shape = list(a.shape)
        rng.shuffle(shape)
        if rng.random() < 0.5:
            shape = [0] + [d for d in shape if d != 0][:2]
        spelled = list(shape)
    else:
        rank = rng.choices([0, 1, 2, 3, 4], [1, 4, 5, 4, 2])[0]
        if n != 1 and rank == 0:
            rank = 1
        shape = list(factor_shape(rng, n, rank))
        spelled = list(shape)
        if rank and rng.random() < 0.4:
            i = rng.randrange(rank)
            spelled[i] = -1
    e = call("reshape", [a], a, attrs=[("shape", format_shape(spelled))])
    e.shape = tuple(shape)
    return e


def transpose(b):
    rng = b.rng
    a = b.tensor(ANY)
    r = a.rank
    if rng.random() < 0.3:
        perm = list(range(r))[::-1]
        attrs = []
    else:
        perm = list(range(r))
        rng.shuffle(perm)
        attrs = [("perm", format_shape(perm))]
    e = call("transpose", [a], a, attrs=attrs)
    e.shape = tuple(a.shape[p] for p in perm)
    return e


def broadcast(b):
    rng = b.rng
    a = b.tensor(ANY, max_bound=None)
    shape = [d if d != 1 or rng.random() < 0.5 else b.sizes.dim(cap=17)
             for d in a.shape]
    while len(shape) < 4 and rng.random() < 0.4:
        shape.insert(0, b.sizes.small())
    if numel(shape) > b.opt.max_elements:
        shape = list(a.shape)
    e = call("broadcast", [a], a, attrs=[("shape", format_shape(shape))])
    e.shape = tuple(shape)
    return e


def slice_bounds(rng, dim):
    """Python slice bounds for a dimension of `dim`: negative, past the end,
    empty or whole, and the length numpy gives them."""
    start = rng.choice([None, 0, 1, -1, -dim - 2, dim // 2, dim + 3, -2])
    stop = rng.choice([None, dim, -1, dim // 2 + 1, dim + 5, 0, -dim - 1])
    step = rng.choice([None, 1, 1, 2, 3])
    length = len(range(*slice(start, stop, step).indices(dim)))
    return start, stop, step, length


def slice_(b):
    rng = b.rng
    a = b.tensor(ANY, min_rank=1)
    shape = list(a.shape)
    if rng.random() < 0.6:
        axis = rng.randrange(a.rank)
        start, stop, step, shape[axis] = slice_bounds(rng, a.shape[axis])
        attrs = [("axis", str(axis - a.rank if rng.random() < 0.3 else axis))]
        for k, v in (("start", start), ("stop", stop), ("step", step)):
            if v is not None:
                attrs.append((k, str(v)))
    else:
        bounds = [slice_bounds(rng, d) for d in a.shape]
        shape = [bd[3] for bd in bounds]
        attrs = []
        for k, i, default in (("start", 0, 0), ("stop", 1, None),
                              ("step", 2, 1)):
            if any(bd[i] is not None for bd in bounds) or rng.random() < 0.2:
                entries = [bd[i] if bd[i] is not None else
                           (default if default is not None else dim)
                           for bd, dim in zip(bounds, a.shape)]
                attrs.append((k, format_shape(entries)))
    rng.shuffle(attrs)
    e = call("slice", [a], a, attrs=attrs)
    e.shape = tuple(shape)
    return e


def concat(b):
    rng = b.rng
    a = b.tensor(ANY, min_rank=1)
    axis = rng.randrange(a.rank)
    parts = [a]
    for _ in range(rng.choice([1, 1, 2])):
        if rng.random() < 0.3:
            parts.append(a)
            continue
        shape = list(a.shape)
        shape[axis] = rng.choice([0, 1, b.sizes.dim(cap=9)])
        parts.append(b.use(b.param(a.dtype, shape)))
    rng.shuffle(parts)
    attrs = []
    if axis or rng.random() < 0.5:
        attrs.append(("axis", str(axis - a.rank if rng.random() < 0.3
                                  else axis)))
    e = call("concat", parts, a, attrs=attrs)
    e.bound = max(p.bound for p in parts)
    shape = list(a.shape)
    shape[axis] = sum(p.shape[axis] for p in parts)
    e.shape = tuple(shape)
    return e


def pad(b):
    rng = b.rng
    a = b.tensor(ANY)
    # One or two dimensions padded, so that the result stays small.
    padded = set(rng.sample(range(a.rank), min(a.rank, rng.choice([1, 2]))))
    low = [rng.choice([0, 1, 2, 5]) if d in padded else 0
           for d in range(a.rank)]
    high = [rng.choice([0, 1, 3]) if d in padded else 0
            for d in range(a.rank)]
    attrs = []
    if any(low) or rng.random() < 0.3:
        attrs.append(("low", format_shape(low)))
    if any(high) or rng.random() < 0.3:
        attrs.append(("high", format_shape(high)))
    value = None
    if a.dtype == "i1":
        value = rng.choice([None, "0", "1"])
    elif a.dtype == "i32":
        value = rng.choice([None, "0", "-3", "7"])
    else:
        value = rng.choice([None, "0", "0.5", "-2", "1e-3"] +
                           (["-inf", "inf"] if b.nonfinite else []))
    if value is not None:
        attrs.append(("value", value))
    rng.shuffle(attrs)
    e = call("pad", [a], a, attrs=attrs)
    if value is not None and "inf" in value:
        e.nonfinite = True
    elif value is not None:
        e.bound = max(e.bound, abs(float(value)))
    e.shape = tuple(d + l + h for d, l, h in zip(a.shape, low, high))
    return e


def window_start(b, full, window):
    """An index list for a window of `window` in `full`: integers (before,
    inside and past the tensor: the op clamps them) and names of rank-0 i32
    or i64 parameters (random in [-8, 8])."""
    rng = b.rng
    entries = []
    for d, w in zip(full, window):
        if rng.random() < 0.4:
            dtype = rng.choice(["i32", "i64"])
            entries.append(b.param(dtype, (), prefix="pos").name)
        else:
            entries.append(str(rng.choice([0, 1, -2, d - w, d + 4])))
    return "[" + ", ".join(entries) + "]"


def dynamic_slice(b):
    rng = b.rng
    a = b.tensor(ANY, min_rank=1)
    size = [rng.choice([d, 1, d // 2, 0]) if d else 0 for d in a.shape]
    e = call("dynamic_slice", [a], a,
             attrs=[("start", window_start(b, a.shape, size)),
                    ("size", format_shape(size))])
    e.shape = tuple(size)
    return e


def update_slice(b):
    rng = b.rng
    dest = b.tensor(ANY, min_rank=1)
    window = [rng.choice([d, 1, d // 2, 0]) if d else 0 for d in dest.shape]
    update = b.tensor((dest.dtype,), shape=window)
    e = call("update_slice", [dest, update], dest,
             attrs=[("start", window_start(b, dest.shape, window))])
    e.bound = max(dest.bound, update.bound)
    e.exact = dest.exact and update.exact
    e.nonfinite = dest.nonfinite or update.nonfinite
    return e


def iota(b):
    rng = b.rng
    like = b.pick(lambda e: not e.is_number and e.rank >= 1, consume=False)
    shape = like.shape if like is not None and rng.random() < 0.6 else \
        b.sizes.shape(rng.randint(1, 4))
    if not shape:
        shape = (b.sizes.dim(),)
    r = len(shape)
    dim = rng.randrange(r)
    attrs = [("shape", format_shape(shape))]
    if dim or rng.random() < 0.5:
        attrs.append(("dim", str(dim - r if rng.random() < 0.3 else dim)))
    dtype = rng.choice(["i32", "i32", "f32", "f16", "bf16"])
    if dtype != "i32" or rng.random() < 0.2:
        attrs.append(("dtype", dtype))
    rng.shuffle(attrs)
    e = E("call", dtype, shape, op="iota", attrs=attrs,
          bound=float(max(shape[dim] - 1, 1)))
    return e


def full(b):
    rng = b.rng
    dtype = rng.choice(ANY + ("f32",))
    like = b.pick(lambda e: not e.is_number, consume=False)
    shape = like.shape if like is not None and rng.random() < 0.5 else \
        b.sizes.shape()
    if b.nonfinite and dtype in FLOATS and rng.random() < 0.3:
        value = b.num(rng.choice([math.inf, -math.inf]), None)
    else:
        value = b.number_operand(dtype)
    attrs = [("shape", format_shape(shape))]
    if dtype != "f32" or rng.random() < 0.3:
        attrs.append(("dtype", dtype))
    rng.shuffle(attrs)
    v = value.value if value.value is not None else 1.0
    e = E("call", dtype, shape, op="full", args=[value], attrs=attrs,
          bound=max(abs(v), 1e-30) if not math.isinf(v) else math.inf,
          nonfinite=math.isinf(v))
    return e


def number_statement(b):
    rng = b.rng
    if rng.random() < 0.5:
        e = b.number_operand("f32")
        if e.kind == "ref":
            e = b.num(0.5, None)
        return e
    # a typed statement makes a constant tensor of a bare number
    dtype = rng.choice(ANY)
    shape = b.sizes.shape(rng.choice([0, 0, 1, 2]))
    value = b.number_operand(dtype)
    v = value.value if value.value is not None else 1.0
    name = b.fresh("k")
    b.graph.stmts.append(Stmt(name, (dtype, shape), value))
    r = E("ref", dtype, shape, name=name, bound=max(abs(v), 1e-30))
    b.pool.append(r)
    return None


def matmul(b):
    rng = b.rng
    dtype = rng.choices(["f32", "f16", "bf16", "i32"], [3, 4, 3, 1])[0]
    tc = dtype in ("f16", "bf16") and rng.random() < 0.6
    budget = b.opt.matmul_budget

    def mk_dim(tensor_core):
        return b.sizes.tensor_core() if tensor_core else b.sizes.dim(cap=129)

    lhs = b.pick(lambda e: not e.is_number and e.dtype == dtype and
                 e.rank >= 2 and (not tc or e.shape[-1] % 8 == 0) and
                 numel(e.shape) * 8 <= budget and
                 (not e.nonfinite or rng.random() < 0.3))
    if lhs is None:
        batch = []
        for _ in range(rng.choices([0, 1, 2], [5, 3, 1])[0]):
            batch.append(b.sizes.small())
        m = b.sizes.dim(cap=300 if b.opt.large else 129)
        k = mk_dim(tc)
        if rng.random() < 0.2:
            # the graph transposes the left operand
            t = b.param(dtype, tuple(batch) + (k, m), prefix="a")
            perm = list(range(len(batch))) + [len(batch) + 1, len(batch)]
            lhs = shaped(call("transpose", [t], t,
                              attrs=[("perm", format_shape(perm))]),
                         shape=tuple(batch) + (m, k))
        else:
            lhs = b.param(dtype, tuple(batch) + (m, k), prefix="a")
    b.use(lhs)
    k = lhs.shape[-1]
    lbatch = lhs.shape[:-2]
    m = lhs.shape[-2]
    # rhs: batch broadcasting with lhs's batch
    def rhs_ok(e):
        if e.is_number or e.dtype != dtype or e.rank < 2 or e is lhs:
            return False
        if e.shape[-2] != k or (tc and e.shape[-1] % 8):
            return False
        bb = broadcast_shapes(lbatch, e.shape[:-2])
        if bb is None:
            return False
        if numel(bb) * m * k * e.shape[-1] > budget:
            return False
        if (lhs.nonfinite and not e.exact) or (e.nonfinite and not lhs.exact):
            return False
        return True
    rhs = b.pick(rhs_ok)
    if rhs is None:
        n = mk_dim(tc)
        rb = list(lbatch)
        if rb and rng.random() < 0.5:
            rb = [1 if rng.random() < 0.5 else d for d in rb]
            if rng.random() < 0.5:
                rb = rb[rng.randint(0, len(rb)):]
        elif not rb and rng.random() < 0.15:
            rb = [b.sizes.small()]
        while numel(broadcast_shapes(lbatch, tuple(rb))) * m * k * n > budget \
                and n > 1:
            n = max(1, n // 2) if not tc else max(8, n // 2)
            if tc and n == 8:
                break
        if rng.random() < 0.25:
            t = b.param(dtype, tuple(rb) + (n, k), prefix="w")
            perm = list(range(len(rb))) + [len(rb) + 1, len(rb)]
            if len(rb) == 0 and rng.random() < 0.5:
                rhs = shaped(call("transpose", [t], t), shape=(k, n))
            else:
                rhs = shaped(call("transpose", [t], t,
                                  attrs=[("perm", format_shape(perm))]),
                             shape=tuple(rb) + (k, n))
        else:
            rhs = b.param(dtype, tuple(rb) + (k, n), prefix="w")
    b.use(rhs)
    if dtype in FLOATS:
        lhs = b.sane(lhs, 4.0)
        rhs = b.sane(rhs, 4.0)
    batch = broadcast_shapes(lbatch, rhs.shape[:-2])
    shape = tuple(batch) + (m, rhs.shape[-1])
    like = E("ref", dtype, shape)
    if rng.random() < 0.85:
        e = bin_("@", lhs, rhs, like)
    else:
        e = call("matmul", [lhs, rhs], like)
    e.bound = k * lhs.bound * rhs.bound
    if dtype == "i32":
        e.bound = min(e.bound, DTYPE_MAX["i32"])
    else:
        e.exact = False
    e.nonfinite = lhs.nonfinite or rhs.nonfinite
    return e


def softmax(b):
    rng = b.rng
    a = b.tensor(FLOATS, min_rank=1)
    a = b.sane(a, 30.0)
    attrs = []
    if rng.random() < 0.6:
        ax = rng.randrange(a.rank)
        attrs.append(("axis", str(ax - a.rank if rng.random() < 0.5 else ax)))
    return shaped(call("softmax", [a], a, attrs=attrs), bound=1.0, exact=False)


def vector(b, dtype, d, prefix):
    v = b.pick(lambda e: not e.is_number and e.dtype == dtype and
               e.shape == (d,) and not e.nonfinite, fresh_prob=0.5)
    if v is None:
        v = b.param(dtype, (d,), prefix=prefix)
    return b.use(b.sane(v, 4.0))


def eps_attr(b, x):
    r = b.rng.random()
    if r < 0.5:
        return []
    if r < 0.6 and x.kind == "ref" and x.exact and b.nonfinite:
        return [("eps", "0")]
    return [("eps", b.rng.choice(["1e-5", "1e-3", "1e-6", "0.1", "1E-2"]))]


def layernorm(b):
    rng = b.rng
    x = b.tensor(FLOATS, min_rank=1)
    x = b.sane(x, 100.0)
    axis = rng.randrange(x.rank) if rng.random() < 0.4 else x.rank - 1
    d = x.shape[axis]
    g = vector(b, x.dtype, d, "g")
    beta = vector(b, x.dtype, d, "b")
    attrs = eps_attr(b, x)
    if axis != x.rank - 1 or rng.random() < 0.2:
        attrs.append(("axis", str(axis - x.rank if rng.random() < 0.5
                                  else axis)))
    rng.shuffle(attrs)
    e = call("layernorm", [x, g, beta], x, attrs=attrs)
    return shaped(e, bound=math.sqrt(max(d, 1)) * g.bound + beta.bound,
                  exact=False)


def rmsnorm(b):
    x = b.tensor(FLOATS, min_rank=1)
    x = b.sane(x, 100.0)
    d = x.shape[-1]
    if d == 1 and not x.exact:
        # over one element rmsnorm is about sign(x) * g: steep near 0, so
        # rounding differences in x would be amplified
        x = b.param(x.dtype, x.shape)
    g = vector(b, x.dtype, d, "g")
    e = call("rmsnorm", [x, g], x, attrs=eps_attr(b, x))
    return shaped(e, bound=math.sqrt(max(d, 1)) * g.bound, exact=False)


def attention_shapes(b, dtype, flash):
    rng = b.rng
    rank = rng.choices([2, 3, 4], [2, 4, 4])[0]
    batch = tuple(b.sizes.small() for _ in range(rank - 2))
    if flash:
        d = rng.choice([64, 128] if b.opt.large else [64, 64, 128])
        dv = d
    else:
        d = b.sizes.dim(cap=65)
        dv = d if rng.random() < 0.6 else b.sizes.dim(cap=65)
    cap = 300 if b.opt.large else 40
    nq = b.sizes.dim(cap=cap)
    nk = nq if rng.random() < 0.5 else b.sizes.dim(cap=cap)
    while numel(batch) * nq * nk * (d + dv) > b.opt.attention_budget and \
            max(nq, nk) > 1:
        nq, nk = max(1, nq // 2), max(1, nk // 2)
    kbatch = batch
    if rank == 4 and rng.random() < 0.3:
        kbatch = (batch[0], 1)          # grouped-query: K/V shared by heads
    elif batch and rng.random() < 0.15:
        kbatch = batch[1:]
    return batch, kbatch, nq, nk, d, dv


def attention(b):
    rng = b.rng
    dtype = rng.choices(["f32", "f16", "bf16"], [2, 3, 2])[0]
    flash = dtype != "f32" and rng.random() < 0.6
    batch, kbatch, nq, nk, d, dv = attention_shapes(b, dtype, flash)

    def operand(shape, prefix):
        e = b.pick(lambda e: not e.is_number and e.dtype == dtype and
                   e.shape == shape and not e.nonfinite, fresh_prob=0.4)
        if e is None:
            r = rng.random()
            if r < 0.15 and len(shape) >= 3:
                # heads split from the rows by a transpose, as a transformer
                # block does
                perm = list(range(len(shape)))
                perm[-2], perm[-3] = perm[-3], perm[-2]
                t = b.param(dtype, tuple(shape[p] for p in perm), prefix=prefix)
                e = b.emit(shaped(call("transpose", [t], t, attrs=[
                    ("perm", format_shape(perm))]), shape=shape))
            elif r < 0.3:
                # computed by an earlier kernel
                t = b.param(dtype, shape, prefix=prefix)
                e = b.emit(shaped(bin_("*", t, b.num(0.5, None), t),
                                  bound=0.5))
            else:
                e = b.param(dtype, shape, prefix=prefix)
        return b.use(b.sane(e, 4.0))
    q = operand(batch + (nq, d), "q")
    k = operand(kbatch + (nk, d), "k")
    v = operand(kbatch + (nk, dv), "v")
    args = [q, k, v]
    if rng.random() < 0.3:
        full_scores = batch + (nq, nk)
        choices = [(nq, nk), (1, nk), full_scores]
        if len(batch) == 2:
            choices.append((batch[0], 1, 1, nk))
        mshape = rng.choice(choices)
        if b.nonfinite and rng.random() < 0.5 or rng.random() < 0.2:
            # a -inf mask; a row masked everywhere gives NaN
            cond = b.param("i1", mshape, prefix="m")
            if rng.random() < 0.5:
                keep = b.param(dtype, mshape, prefix="m")
            else:
                keep = E("call", dtype, mshape, op="full",
                         args=[b.num(0.0, None)],
                         attrs=[("shape", format_shape(mshape)),
                                ("dtype", dtype)])
            mask = call("select", [cond, keep, b.num(-math.inf, None)],
                        E("ref", dtype, mshape))
            mask = shaped(mask, dtype=dtype, shape=mshape, nonfinite=True)
        else:
            mask = b.pick(lambda e: not e.is_number and e.dtype == dtype and
                          e.shape == mshape and not e.nonfinite)
            if mask is None:
                mask = b.param(dtype, mshape, prefix="m")
            mask = b.use(b.sane(mask, 4.0))
        args.append(mask)
    attrs = []
    if rng.random() < 0.35:
        attrs.append(("causal", "true"))
    elif rng.random() < 0.1:
        attrs.append(("causal", "false"))
    if rng.random() < 0.3:
        attrs.append(("scale", rng.choice(["0.125", "0.25", "1", "0.5", "2",
                                           "-0.5", "1e-1"])))
    rng.shuffle(attrs)
    shape = broadcast_shapes(batch, kbatch) + (nq, dv)
    e = call("attention", args, E("ref", dtype, shape), attrs=attrs)
    return shaped(e, dtype=dtype, shape=shape, bound=v.bound, exact=False,
                  nonfinite=len(args) == 4 and args[3].nonfinite)


def attention_spelled(b):
    """Attention written as plain ops (fk-recognize-attention's spellings)."""
    rng = b.rng
    dtype = rng.choices(["f32", "f16", "bf16"], [2, 3, 2])[0]
    flash = dtype != "f32" and rng.random() < 0.6
    batch, kbatch, nq, nk, d, dv = attention_shapes(b, dtype, flash)
    if rng.random() < 0.5:
        kbatch = batch
    q = b.param(dtype, batch + (nq, d), prefix="q")
    k = b.param(dtype, kbatch + (nk, d), prefix="k")
    v = b.param(dtype, kbatch + (nk, dv), prefix="v")
    r = len(kbatch) + 2
    perm = list(range(r - 2)) + [r - 1, r - 2]
    kt = call("transpose", [k], k, attrs=[("perm", format_shape(perm))]
              if rng.random() < 0.7 or r != 2 else [])
    kt.shape = kbatch + (d, nk)
    sshape = broadcast_shapes(batch, kbatch) + (nq, nk)
    like = E("ref", dtype, sshape)
    s = bin_("@", q, kt, like)
    scale = 1.0 / math.sqrt(d) if d else 1.0
    r = rng.random()
    if r < 0.4:
        s = bin_("*", s, b.num(scale, None), like)
    elif r < 0.7:
        s = bin_("/", s, b.num(math.sqrt(d) if d else 1.0, None), like)
    s = b.emit(shaped(s, bound=4.0 * d, exact=False), inline_ok=False)
    if rng.random() < 0.4:
        ishape = format_shape((nq, nk))
        j = E("call", "i32", (nq, nk), op="iota",
              attrs=[("shape", ishape), ("dim", "1")])
        i = E("call", "i32", (nq, nk), op="iota",
              attrs=[("shape", ishape), ("dim", "0")])
        if nk != nq:
            # query i sees keys j <= i + Nk - Nq (more queries than keys:
            # the first rows see none)
            off = float(nk - nq)
            if rng.random() < 0.5:
                off = E("paren", args=[bin_("-", b.num(float(nk), None),
                                            b.num(float(nq), None), None)],
                        value=off)
            else:
                off = b.num(off, None)
            i = bin_("+", i, off, i)
        keep = shaped(call("le", [j, i], E("ref", "i1", (nq, nk))), dtype="i1")
        keep = b.emit(keep, inline_ok=False)
        # -inf, or a fill the recognizer takes for it (at most -1e4)
        fill = rng.choice([-math.inf, -math.inf, -1e4] +
                          ([-1e9] if dtype != "f16" else []))
        s = call("select", [keep, s, b.num(fill, None)], s)
        s = b.emit(shaped(s, nonfinite=False), inline_ok=False)
    elif rng.random() < 0.3:
        mshape = (nq, nk) if rng.random() < 0.5 else (1, nk)
        m = b.param(dtype, mshape, prefix="m")
        if rng.random() < 0.4:
            # a -inf mask: rows masked everywhere are NaN
            c = b.param("i1", mshape, prefix="c")
            m = b.emit(shaped(call("select", [c, m, b.num(-math.inf, None)],
                                   m), nonfinite=True), inline_ok=False)
        s = b.emit(bin_("+", s, m, s), inline_ok=False)
    f32 = dtype != "f32" and rng.random() < 0.4
    if f32:
        s = b.cast(s, "f32")
    if rng.random() < 0.5:
        p = call("softmax", [s], s)
    else:
        like = s
        mx = call("max", [s], s, attrs=[("axes", "[-1]"),
                                       ("keepdims", "true")])
        mx.shape = s.shape[:-1] + (1,)
        ex = b.emit(call("exp", [bin_("-", s, mx, like)], like),
                    inline_ok=False)
        sm = call("sum", [ex], ex, attrs=[("axes", "[-1]"),
                                         ("keepdims", "true")])
        sm.shape = s.shape[:-1] + (1,)
        p = bin_("/", ex, sm, like)
    p = shaped(p, bound=1.0, exact=False, nonfinite=False)
    if f32:
        p = b.cast(p, dtype)
    out_shape = sshape[:-1] + (dv,)
    e = bin_("@", p, v, E("ref", dtype, out_shape))
    return shaped(e, bound=1.0, exact=False, nonfinite=False)


def mlp(b):
    """x @ w1 + b1, an activation, @ w2, a residual: matmul epilogues."""
    rng = b.rng
    dtype = rng.choices(["f32", "f16", "bf16"], [1, 2, 1])[0]
    tc = dtype != "f32" and rng.random() < 0.7
    dim = b.sizes.tensor_core if tc else (lambda: b.sizes.dim(cap=65))
    rows = b.sizes.dim(cap=129)
    lead = (b.sizes.small(),) if rng.random() < 0.3 else ()
    dm, dh = dim(), dim()
    while numel(lead) * rows * dm * dh * 2 > b.opt.matmul_budget and rows > 1:
        rows = max(1, rows // 2)
    x = b.param(dtype, lead + (rows, dm))
    w1 = b.param(dtype, (dm, dh), prefix="w")
    b1 = b.param(dtype, (dh,), prefix="b")
    w2 = b.param(dtype, (dh, dm), prefix="w")
    like = E("ref", dtype, lead + (rows, dh))
    h = bin_("+", bin_("@", x, w1, like), b1, like)
    act = rng.choice(["gelu", "relu", "silu", "tanh", "sigmoid", "none"])
    attrs = [("approximate", '"tanh"')] if act == "gelu" and \
        rng.random() < 0.5 else []
    if act != "none":
        h = call(act, [h], like, attrs=attrs)
    h = b.emit(shaped(h, bound=dm * 1.0 + 1, exact=False), inline_ok=True)
    h = b.sane(h, 4.0)
    like2 = E("ref", dtype, lead + (rows, dm))
    y = bin_("@", h, w2, like2)
    if rng.random() < 0.7:
        y = bin_("+", y, x, like2)
    if rng.random() < 0.3:
        y = bin_("*", b.num(0.5, None), y, like2)
    return shaped(y, bound=dh * 4.0 + 2, exact=False)


def norm_spelled(b):
    """layernorm / rmsnorm / softmax written as reductions and elementwise
    ops (row fusions)."""
    rng = b.rng
    x = b.sane(b.tensor(FLOATS, min_rank=1), 8.0)
    d = x.shape[-1]
    like = x
    kind = rng.choice(["layernorm", "rmsnorm", "softmax"])
    red = lambda op, v: shaped(call(op, [v], v, attrs=[
        ("axes", "[-1]"), ("keepdims", "true")]), shape=v.shape[:-1] + (1,))
    if kind == "softmax":
        mx = red("max", x)
        ex = b.emit(shaped(call("exp", [bin_("-", x, mx, like)], like),
                           bound=1.0, exact=False), inline_ok=False)
        return shaped(bin_("/", ex, red("sum", ex), like), bound=1.0,
                      exact=False)
    g = vector(b, x.dtype, d, "g")
    if kind == "rmsnorm":
        ms = red("mean", bin_("*", x, x, like))
        r = call("rsqrt", [bin_("+", ms, b.num(1e-6, None), ms)], ms)
        y = bin_("*", bin_("*", x, r, like), g, like)
        return shaped(y, bound=math.sqrt(max(d, 1)) * g.bound * 4,
                      exact=False)
    mean = red("mean", x)
    c = b.emit(shaped(bin_("-", x, mean, like), exact=False), inline_ok=False)
    var = red("mean", bin_("*", c, c, like))
    y = bin_("*", c, call("rsqrt", [bin_("+", var, b.num(1e-5, None), var)],
                          var), like)
    beta = vector(b, x.dtype, d, "b")
    y = bin_("+", bin_("*", y, g, like), beta, like)
    return shaped(y, bound=math.sqrt(max(d, 1)) * g.bound * 4 + 1,
                  exact=False)


def chain(b):
    """A few cheap ops on the latest values, written as one expression:
    long elementwise chains with broadcasts, transposes and reshapes in
    between (loop fusions)."""
    rng = b.rng
    e = b.tensor(NUMERIC)
    for _ in range(rng.randint(2, 5)):
        r = rng.random()
        if r < 0.35:
            if e.dtype in FLOATS:
                e = b.sane(e, 8.0)
            other = b.partner(e, exact=e.nonfinite, nonfinite_ok=e.exact,
                              max_bound=8.0)
            op = rng.choice(["+", "-", "*"] if e.dtype == "i32" or
                            not e.exact else ["+", "-", "*", "max", "min"])
            shape = broadcast_shapes(e.shape, other.shape)
            like = E("ref", e.dtype, shape)
            args = [e, other] if rng.random() < 0.7 else [other, e]
            if op in ("max", "min"):
                n = call(op, args, like)
            else:
                n = bin_(op, args[0], args[1], like)
            bound = e.bound * other.bound if op == "*" else \
                e.bound + other.bound
            e = shaped(n, shape=shape, bound=bound)
        elif r < 0.5 and e.rank >= 2:
            perm = list(range(e.rank))
            rng.shuffle(perm)
            n = call("transpose", [e], e, attrs=[("perm", format_shape(perm))])
            e = shaped(n, shape=tuple(e.shape[p] for p in perm))
        elif r < 0.6 and numel(e.shape) > 0:
            shape = factor_shape(rng, numel(e.shape), rng.randint(1, 3))
            n = call("reshape", [e], e, attrs=[("shape", format_shape(shape))])
            e = shaped(n, shape=shape)
        elif r < 0.75 and e.dtype in FLOATS:
            op = rng.choice(["tanh", "sigmoid", "silu", "gelu", "erf"])
            e = shaped(call(op, [b.sane(e, 30.0)], e), exact=False,
                       bound=e.bound if op in ("silu", "gelu") else 1.0)
        elif r < 0.85:
            op = rng.choice(["relu", "abs", "neg"])
            e = call(op, [e], e)
        elif r < 0.93 and e.rank >= 1 and e.dtype in FLOATS:
            # a keepdims reduction broadcast back: x - max(x), or x scaled
            # by a sum or mean of abs(x). (Not x - mean(x): a later sum
            # over that axis would be rounding noise around 0.)
            ax = rng.randrange(e.rank)
            red = rng.choice(["max", "sum", "mean", "min"])
            kept = tuple(1 if i == ax else d for i, d in enumerate(e.shape))
            attrs = [("axes", "[%d]" % ax), ("keepdims", "true")]
            if red in ("max", "min"):
                m = shaped(call(red, [e], e, attrs=attrs), shape=kept)
                e = shaped(bin_("-", e, m, e), bound=2 * e.bound,
                           exact=e.exact)
            else:
                a = call("abs", [e], e)
                m = shaped(call(red, [a], a, attrs=attrs), shape=kept,
                           exact=False)
                den = bin_("+", m, b.num(1.0, None), m)
                e = shaped(bin_("/", e, den, e), bound=e.bound, exact=False)
        else:
            to = rng.choice(FLOATS)
            if e.dtype in FLOATS or e.bound < 1e4:
                e = b.cast(e, to)
        if rng.random() < 0.25:
            e = b.emit(e)
    return e


def identity(b):
    """Forms the folders simplify, on values that may hold NaN, inf and -0
    (x * 1, x - x, x * 0, -(-x), cast round trips, double transposes...):
    a fold that forgets a special value shows at the canonical stage."""
    rng = b.rng
    x = b.tensor(NUMERIC if rng.random() < 0.8 else ANY, exact=True)
    one = lambda: b.num(1.0, None)
    zero = lambda: b.num(0.0, None)
    forms = ["x*1", "1*x", "x/1", "x+0", "0+x", "x-0", "--x", "neg-neg",
             "max(x,x)", "min(x,x)", "select(c,x,x)", "abs(abs)", "relu(relu)",
             "cast-cast", "transpose2", "reshape2", "broadcast2", "x*0",
             "x-x", "0-x", "1/(x*0)", "x/x", "eq(x,x)", "sum-axes[]",
             "floor(floor)"]
    if x.dtype == "i1":
        forms = ["select(c,x,x)", "cast-cast", "transpose2", "reshape2",
                 "broadcast2", "eq(x,x)"]
    form = rng.choice(forms)
    like = x
    if form in ("x*0", "x-x", "0-x", "1/(x*0)", "x/x") and x.dtype in FLOATS \
            and not b.nonfinite:
        form = "x*1"
    if form == "1/(x*0)" and x.dtype != "f32" and x.dtype != "f16":
        form = "x*0"
    if form in ("x*1", "1*x", "x/1", "x+0", "0+x", "x-0", "x*0", "0-x"):
        a, op, c = form[0], form[1], form[2]
        lhs = x if a == "x" else (one() if a == "1" else zero())
        rhs = x if c == "x" else (one() if c == "1" else zero())
        return shaped(bin_(op, lhs, rhs, like), bound=x.bound)
    if form in ("x-x", "x/x"):
        e = bin_(form[1], x, x, like)
        return shaped(e, bound=x.bound if form == "x-x" else 1.0,
                      nonfinite=x.dtype in FLOATS)
    if form == "1/(x*0)":
        e = bin_("/", one(), bin_("*", x, zero(), like), like)
        return shaped(e, bound=math.inf, nonfinite=True)
    if form in ("--x", "neg-neg"):
        inner = E("neg", x.dtype, x.shape, args=[x]).copy_meta(x) \
            if form == "--x" else call("neg", [x], x)
        return E("neg", x.dtype, x.shape, args=[inner]).copy_meta(x) \
            if form == "--x" else call("neg", [inner], x)
    if form in ("max(x,x)", "min(x,x)"):
        return call(form[:3], [x, x], x)
    if form == "select(c,x,x)":
        c = b.pick(lambda e: not e.is_number and e.dtype == "i1" and
                   broadcast_shapes(e.shape, x.shape) == x.shape)
        if c is None:
            c = b.param("i1", x.shape)
        return call("select", [b.use(c), x, x], x)
    if form in ("abs(abs)", "relu(relu)", "floor(floor)"):
        op = form[:form.index("(")]
        return call(op, [call(op, [x], x)], x)
    if form == "cast-cast":
        wide = {"f16": "f32", "bf16": "f32", "f32": "f32", "i32": "i32",
                "i1": "i32"}[x.dtype]
        return b.cast(b.cast(x, wide), x.dtype)
    if form == "transpose2" and x.rank >= 2:
        perm = list(range(x.rank))
        rng.shuffle(perm)
        inv = [perm.index(i) for i in range(x.rank)]
        t = shaped(call("transpose", [x], x,
                        attrs=[("perm", format_shape(perm))]),
                   shape=tuple(x.shape[p] for p in perm))
        return shaped(call("transpose", [t], t,
                           attrs=[("perm", format_shape(inv))]),
                      shape=x.shape)
    if form == "reshape2" and numel(x.shape) > 0:
        mid = factor_shape(rng, numel(x.shape), rng.randint(1, 3))
        t = shaped(call("reshape", [x], x, attrs=[("shape", format_shape(mid))]),
                   shape=mid)
        return shaped(call("reshape", [t], t,
                           attrs=[("shape", format_shape(x.shape))]),
                      shape=x.shape)
    if form == "broadcast2":
        s1 = (b.sizes.small(),) + x.shape
        s2 = (b.sizes.small(),) + s1 if len(s1) < 4 else s1
        if numel(s2) > b.opt.max_elements:
            return call("abs", [x], x) if x.dtype != "i1" else x
        t = shaped(call("broadcast", [x], x, attrs=[("shape", format_shape(s1))]),
                   shape=s1)
        return shaped(call("broadcast", [t], t,
                           attrs=[("shape", format_shape(s2))]), shape=s2)
    if form == "eq(x,x)":
        return shaped(call(rng.choice(["eq", "ne", "le"]), [x, x],
                           E("ref", "i1", x.shape)),
                      dtype="i1", bound=1.0, nonfinite=False)
    if form == "sum-axes[]" and x.dtype != "i1":
        return call("sum", [x], x, attrs=[("axes", "[]")])
    return call("abs", [x], x) if x.dtype != "i1" else x


SPECIAL_NUMBERS = {
    "f32": [0.0, -0.0, 1.0, -1.0, 0.5, 3.4e38, 1e-40, 1e-45, math.inf,
            -math.inf, 16777217.0, 2.5, -2.5],
    "f16": [0.0, -0.0, 65504.0, 6e-8, 1e-5, 2049.0, math.inf, -math.inf,
            -1.5, 0.5],
    "bf16": [0.0, -0.0, 3.38e38, 1e-39, 257.0, math.inf, -math.inf, -1.5],
    "i32": [0.0, 1.0, -1.0, 2147483647.0, -2147483648.0, 7.0, -7.0, 65536.0],
    "i1": [0.0, 1.0],
}


def constants(b):
    """Ops on constants and iotas with edge values (extremes, subnormals,
    -0, inf, the i32 limits): the folded graph must compute what the
    interpreter computes."""
    rng = b.rng
    dtype = rng.choice(ANY)
    shape = b.sizes.shape(rng.choice([0, 1, 1, 2]), max_elements=64)
    vals = SPECIAL_NUMBERS[dtype]
    if not b.nonfinite:
        vals = [v for v in vals if not math.isinf(v)]

    def const():
        if dtype != "i1" and rng.random() < 0.3 and shape:
            attrs = [("shape", format_shape(shape)), ("dim", "0")]
            if dtype != "i32":
                attrs.append(("dtype", dtype))
            return E("call", dtype, shape, op="iota", attrs=attrs,
                     bound=float(shape[0]))
        v = rng.choice(vals)
        return E("call", dtype, shape, op="full", args=[b.num(v, None)],
                 attrs=[("shape", format_shape(shape)), ("dtype", dtype)],
                 bound=abs(v) if v == v else 1.0, nonfinite=math.isinf(v))
    a = const()
    if dtype == "i1":
        ops = ["eq", "ne", "lt", "select", "cast"]
    elif dtype == "i32":
        ops = ["+", "-", "*", "/", "neg", "abs", "max", "min", "cast", "eq",
               "lt", "floor", "relu"]
    else:
        ops = ["+", "-", "*", "/", "neg", "abs", "max", "min", "cast", "eq",
               "lt", "floor", "relu", "exp", "log", "sqrt", "rsqrt", "pow",
               "sin", "tanh"]
    op = rng.choice(ops)
    if op in ("+", "-", "*", "/"):
        e = bin_(op, a, const(), a)
    elif op in ("max", "min", "pow"):
        e = call(op, [a, const()], a)
    elif op in ("eq", "ne", "lt"):
        e = shaped(call(op, [a, const()], a), dtype="i1")
    elif op == "select":
        e = call("select", [a, const(), const()], a)
    elif op == "cast":
        e = b.cast(a, rng.choice(ANY))
    elif op == "neg":
        e = E("neg", dtype, shape, args=[a])
    else:
        e = call(op, [a], a)
    if dtype in FLOATS or op in ("cast",):
        e.nonfinite = e.nonfinite or b.nonfinite
    e.bound = DTYPE_MAX.get(e.dtype, 1.0)
    if not b.nonfinite and e.dtype in FLOATS:
        # keep it out of the way of inexact ops
        e.nonfinite = True
    return e


def long_rows(b):
    """Rows longer than a row kernel keeps on chip (16384 elements), and
    just under: softmax, the norms and reductions over them (large graphs
    only)."""
    rng = b.rng
    if not b.opt.large:
        return None
    length = rng.choice([16383, 16384, 16385, 20000])
    dtype = rng.choice(FLOATS)
    rows = rng.choice([1, 2, 3])
    x = b.param(dtype, (rows, length))
    op = rng.choice(["softmax", "layernorm", "rmsnorm", "sum", "max",
                     "center"])
    if op == "softmax":
        return shaped(call("softmax", [x], x), bound=1.0, exact=False)
    if op in ("layernorm", "rmsnorm"):
        g = b.param(dtype, (length,), prefix="g")
        args = [x, g] + ([b.param(dtype, (length,), prefix="b")]
                         if op == "layernorm" else [])
        return shaped(call(op, args, x), bound=200.0, exact=False)
    if op == "center":
        m = shaped(call("mean", [x], x, attrs=[("axes", "[1]"),
                                              ("keepdims", "true")]),
                   shape=(rows, 1))
        return shaped(bin_("-", x, m, x), bound=2.0, exact=False)
    e = call(op, [x], x, attrs=[("axes", "[-1]")])
    return shaped(e, shape=(rows,), bound=1.0 if op == "max" else 1e4,
                  exact=op == "max")


def int64(b):
    """i64 values: parameters and casts from i32, arithmetic past the i32
    range, reductions, and casts back (which wrap)."""
    rng = b.rng
    if rng.random() < 0.5:
        a = b.tensor(("i64",), exact=True)
    else:
        a = b.cast(b.tensor(("i32",), exact=True), "i64")
    if a.bound > I64_BOUND:
        return None  # -(-2^63) is INT64_MAX in the interpreter
    r = rng.random()
    if r < 0.25 and a.bound * 1e5 < I64_BOUND:
        e = bin_("*", a, b.num(100000.0, None), a)
        e.bound = a.bound * 1e5
    elif r < 0.45:
        c = b.partner(a, exact=True)
        if c.bound > I64_BOUND / 2 or a.bound > I64_BOUND / 2:
            return None
        op = rng.choice(["+", "-", "/"])
        e = bin_(op, a, c, a)
        e.shape = broadcast_shapes(a.shape, c.shape)
        e.bound = a.bound + c.bound
    elif r < 0.6:
        e = call(rng.choice(["abs", "neg", "relu"]), [a], a)
    elif r < 0.75 and a.rank:
        n = numel(a.shape)
        if a.bound * max(n, 1) > I64_BOUND:
            return None
        e = call(rng.choice(["sum", "max", "min"]), [a], a)
        e.shape = ()
        e.bound = a.bound * max(n, 1)
        if n == 0:
            e.bound = DTYPE_MAX["i64"]  # max/min of nothing: the i64 limits
    else:
        e = b.cast(a, rng.choice(["i32", "f32", "i1"]))
    return e


def gather_(b):
    """gather(table, indices, axis): indices of i32 or i64 of rank 0 to 2,
    drawn in [-8, 8] (so negative and out-of-range ones) or exact integers
    of the graph."""
    rng = b.rng
    table = b.tensor(ANY + ("i64",), min_rank=1)
    r = table.rank
    axis = rng.randrange(r)
    n = table.shape[axis]
    shape = b.sizes.shape(rng.choices([0, 1, 2], [2, 5, 3])[0])
    if n == 0:
        shape = (0,)
    indices = b.tensor(("i32", "i64"), exact=True, shape=shape)
    out = table.shape[:axis] + indices.shape + table.shape[axis + 1:]
    if numel(out) > b.opt.max_elements:
        return None
    attrs = []
    if axis or rng.random() < 0.3:
        attrs.append(("axis", str(axis - r if rng.random() < 0.3 else axis)))
    e = call("gather", [table, indices], table, attrs=attrs)
    e.shape = tuple(out)
    return e


def argmax_(b):
    """argmax/argmin over one axis of exact values (so that every stage
    sees the same ties), NaN included."""
    rng = b.rng
    a = b.tensor(NUMERIC + ("i64",), min_rank=1, exact=True)
    r = a.rank
    axis = rng.randrange(r)
    if a.shape[axis] == 0:
        return None
    attrs = [("axis", str(axis - r if rng.random() < 0.3 else axis))]
    keep = rng.random() < 0.3
    if keep:
        attrs.append(("keepdims", "true"))
    shape = tuple(1 if i == axis else d for i, d in enumerate(a.shape)) \
        if keep else a.shape[:axis] + a.shape[axis + 1:]
    e = call(rng.choice(["argmax", "argmin"]), [a], a, attrs=attrs)
    return shaped(e, dtype="i32", shape=shape,
                  bound=float(a.shape[axis] - 1), nonfinite=False)


GENERATORS = [
    # (name, weight, function); names are what --exclude takes
    ("binary", 14, elementwise_binary),
    ("chain", 8, chain),
    ("identity", 4, identity),
    ("constants", 2, constants),
    ("float-unary", 10, float_unary),
    ("numeric-unary", 5, numeric_unary),
    ("compare", 4, compare),
    ("select", 4, select),
    ("cast", 5, cast),
    ("reduce", 7, reduce_),
    ("reshape", 4, reshape),
    ("transpose", 4, transpose),
    ("broadcast", 2, broadcast),
    ("iota", 2, iota),
    ("slice", 3, slice_),
    ("concat", 2, concat),
    ("pad", 2, pad),
    ("dynamic-slice", 2, dynamic_slice),
    ("update-slice", 2, update_slice),
    ("full", 2, full),
    ("number", 1, number_statement),
    ("matmul", 6, matmul),
    ("softmax", 3, softmax),
    ("layernorm", 3, layernorm),
    ("rmsnorm", 3, rmsnorm),
    ("attention", 3, attention),
    ("attention-spelled", 1, attention_spelled),
    ("mlp", 2, mlp),
    ("norm-spelled", 2, norm_spelled),
    ("long-rows", 1, long_rows),
    ("int64", 3, int64),
    ("gather", 4, gather_),
    ("argmax", 3, argmax_),
]
FEATURES = [name for name, _, _ in GENERATORS] + ["nonfinite", "empty",
                                                  "multi-graph"]


def build_graph(rng, options, name, nonfinite, empty):
    b = Builder(rng, options, name, nonfinite, empty)
    gens = [(n, w, f) for n, w, f in GENERATORS if n not in options.exclude]
    steps = rng.randint(2, 14 if not options.large else 8)
    if rng.random() < 0.15:
        steps = rng.randint(15, 40 if not options.large else 16)
    # A graph leans towards a few kinds of op, so that chains of them meet.
    favored = set(rng.sample([n for n, _, _ in gens], min(4, len(gens))))
    weights = [w * (3 if n in favored else 1) for n, w, _ in gens]
    made = 0
    attempts = 0
    while made < steps and attempts < steps * 4:
        attempts += 1
        _, _, fn = rng.choices(gens, weights)[0]
        e = fn(b)
        if e is None:
            continue
        b.produce(e)
        made += 1
    return finish(b)


def finish(b):
    rng = b.rng
    g = b.graph
    used = set()
    for st in g.stmts:
        used |= st.expr.names()
    for e in b.inline:
        used |= e.names()
    sinks = [e for e in b.pool if e.name not in used and
             e.name not in {p[0] for p in g.params}]
    results = list(b.inline) + sinks[-4:]
    # Values that are used and returned too: the fusion that computes them
    # must also write them out.
    inner = [e for e in b.pool if e.name in used and
             e.name not in {p[0] for p in g.params}]
    if inner and rng.random() < 0.4:
        results.insert(rng.randint(0, len(results)), rng.choice(inner))
    if not results:
        cands = [e for e in b.pool]
        results = [rng.choice(cands)] if cands else []
    if not results:
        results = [b.param("f32", (3,))]
    extra = rng.random()
    if extra < 0.1 and g.params:
        # an input returned as it is
        name, dtype, shape = rng.choice(g.params)
        results.insert(rng.randint(0, len(results)),
                       E("ref", dtype, shape, name=name))
    elif extra < 0.2:
        results.append(rng.choice(results))          # a value returned twice
    elif extra < 0.25:
        r = results[0]
        results.append(b.cast(r, "f32") if not r.is_number else r)
    elif extra < 0.3:
        results.append(E("call", "f16", (2, 3), op="full",
                         args=[b.num(1.5, None)],
                         attrs=[("shape", "[2, 3]"), ("dtype", "f16")]))
    # verify-stages judges a result by its dtype's tolerance; a result that
    # carries the rounding differences of a narrower float (an f16 softmax
    # cast to f32) is returned in that narrower type.
    precision = {}
    for st in g.stmts:
        precision[st.name] = precision_of(st.expr, precision)
    final = []
    for r in results:
        p = precision_of(r, precision)
        if p is not None and not r.is_number and r.dtype in FLOATS and \
                TOLERANCE_RANK[p] > TOLERANCE_RANK[r.dtype]:
            r = b.cast(r, p)
        final.append(r)
    g.results = final
    return g


# Ops whose results differ between stages (or on the GPU) within rounding.
INEXACT_OPS = {"exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "silu",
               "erf", "sin", "cos", "gelu", "pow", "sum", "mean", "matmul",
               "@", "softmax", "layernorm", "rmsnorm", "attention"}
TOLERANCE_RANK = {"f32": 0, "f16": 1, "bf16": 2}


def precision_of(e, precision):
    """The narrowest float whose rounding differences `e` may carry, or None
    (exact)."""
    if e.kind == "ref":
        return precision.get(e.name)
    worst = None
    for a in e.args:
        p = precision_of(a, precision)
        if p is not None and (worst is None or
                              TOLERANCE_RANK[p] > TOLERANCE_RANK[worst]):
            worst = p
    inexact = worst is not None or (e.op in INEXACT_OPS and
                                    e.dtype in FLOATS and
                                    not (e.op in ("sum", "mean") and
                                         all(a.dtype == "i32"
                                             for a in e.args)))
    if inexact and e.dtype in FLOATS and \
            (worst is None or TOLERANCE_RANK[e.dtype] > TOLERANCE_RANK[worst]):
        worst = e.dtype
    return worst


def generate_file(seed, options):
    rng = random.Random(seed)
    header = ["random graph, seed %d%s (scripts/random_graphs.py)" %
              (seed, ", large" if options.large else "")]
    count = 2 if "multi-graph" not in options.exclude and \
        rng.random() < 0.1 else 1
    graphs = []
    for i in range(count):
        nonfinite = "nonfinite" not in options.exclude and rng.random() < 0.3
        empty = "empty" not in options.exclude and rng.random() < 0.1
        graphs.append(build_graph(rng, options, "g%d_%d" % (seed, i)
                                  if count > 1 else "g%d" % seed,
                                  nonfinite, empty))
    return GraphFile(header, graphs)


def variant_of(seed):
    """The fkc options a seed's graph is checked with: mostly none (sm_90a:
    tensor cores, flash attention), also other targets (their fallbacks),
    --no-fusion, and other tensor-core and flash tiles."""
    rng = random.Random(seed * 7919 + 17)
    r = rng.random()
    if r < 0.62:
        return []
    if r < 0.8:
        return ["--target=sm_80"]
    if r < 0.88:
        return ["--target=sm_120"]
    if r < 0.93:
        return ["--no-fusion"] + (["--target=sm_80"] if rng.random() < 0.3
                                  else [])
    if r < 0.96:
        return [rng.choice(["-O0", "-O1"])] + (
            ["--target=sm_80"] if rng.random() < 0.3 else [])
    return [rng.choice(["--matmul-tile=64,64,64", "--matmul-tile=64,128,64",
                        "--matmul-tile=64,256,64",
                        "--matmul-tile=128,128,64"]),
            rng.choice(["--stages=2", "--stages=4"]),
            rng.choice(["--attention-tile=64,64", "--attention-tile=128,64",
                        "--attention-tile=64,128"])]


def variant_text(flags):
    return " ".join(flags) if flags else "(default: sm_90a)"


# ---------------------------------------------------------------------------
# Checking
# ---------------------------------------------------------------------------

class Failure:
    def __init__(self, kind, signature, command, log):
        self.kind = kind            # crash, error, rejected, mismatch, ptxas, timeout
        self.signature = signature  # what must stay the same while minimizing
        self.command = command      # the failing command (list)
        self.log = log

    def key(self):
        return (self.kind, self.signature)


def normalize(message):
    message = re.sub(r"\S+\.(graph|ptx):\d+:\d+: ", "", message)
    message = re.sub(r"0x[0-9a-fA-F]+", "#", message)
    message = re.sub(r"\d+", "#", message)
    return message.strip()[:120]


def run_command(command, timeout):
    """(exit status or None on a timeout, stdout, stderr). A tool that is
    missing for a moment (being rebuilt) is waited for, up to 5 minutes."""
    for attempt in range(60):
        try:
            p = subprocess.run(command, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=timeout)
            break
        except OSError:
            if attempt == 59:
                raise
            time.sleep(5)
        except subprocess.TimeoutExpired as t:
            out = (t.stdout or b"").decode("utf-8", "replace")
            err = (t.stderr or b"").decode("utf-8", "replace")
            return None, out, err
    return p.returncode, p.stdout.decode("utf-8", "replace"), \
        p.stderr.decode("utf-8", "replace")


def classify_fkc(rc, out, err, command):
    """A Failure for an fkc run, or None."""
    log = "$ %s\n%s%s" % (" ".join(command), out[-20000:], err[-20000:])
    if rc is None:
        return Failure("timeout", "timeout", command, log)
    m = re.search(r"Assertion `(.*)' failed", err) or \
        re.search(r"UNREACHABLE executed at [^\n]*", err) or \
        re.search(r"LLVM ERROR: ([^\n]*)", err)
    if m or rc < 0 or rc > 1:
        sig = normalize(m.group(0)) if m else "signal %d" % -rc if rc < 0 \
            else "exit %d" % rc
        return Failure("crash", sig, command, log)
    if rc == 0:
        if "MISMATCH" in out:
            # cannot happen (fkc fails on a mismatch), but be sure
            line = next(l for l in out.splitlines() if "MISMATCH" in l)
            return Failure("mismatch", stage_of(line), command, log)
        return None
    if "MISMATCH" in out:
        line = next(l for l in out.splitlines() if "MISMATCH" in l)
        return Failure("mismatch", stage_of(line), command, log)
    m = re.search(r"error: ([^\n]*)", err)
    return Failure("error", normalize(m.group(1)) if m else "exit 1",
                   command, log)


def stage_of(line):
    m = re.search(r" at (\w+): MISMATCH", line)
    nonfinite = re.search(r"non-finite mismatches (\d+)", line)
    what = "non-finite" if nonfinite and nonfinite.group(1) != "0" else "values"
    return "at %s (%s)" % (m.group(1) if m else "?", what)


class Checker:
    def __init__(self, fkc, ptxas, timeout):
        self.fkc = fkc
        self.ptxas = ptxas
        self.timeout = timeout

    def check(self, path, seed, flags, only=None):
        """The first failure of the graph file at `path` checked with fkc
        options `flags`, or None. only='verify' runs only verify-stages."""
        targs = list(flags)
        if only in (None, "verify"):
            cmd = [self.fkc, path, "--verify-stages", "--seed", str(seed)] + \
                targs
            f = classify_fkc(*run_command(cmd, self.timeout), cmd)
            if f is not None:
                return self.refine(f, path)
            if only == "verify":
                return None
        ptx = path[:-len(".graph")] + ".ptx"
        cmd = [self.fkc, path, "-o", ptx] + targs
        f = classify_fkc(*run_command(cmd, self.timeout), cmd)
        if f is not None:
            return self.refine(f, path)
        if self.ptxas:
            arch = "sm_90a"
            try:
                with open(ptx) as fh:
                    for line in fh:
                        if line.startswith(".target "):
                            arch = line.split()[1].rstrip(",")
                            break
            except OSError:
                pass
            cmd = [self.ptxas, "-arch=%s" % arch, ptx, "-o", os.devnull]
            rc, out, err = run_command(cmd, self.timeout)
            if rc != 0:
                log = "$ %s\n%s%s" % (" ".join(cmd), out, err)
                m = re.search(r"error\s*:\s*([^\n]*)", err)
                sig = normalize(m.group(1)) if m else \
                    "timeout" if rc is None else "exit %s" % rc
                return Failure("ptxas", sig, cmd, log)
        return None

    def refine(self, f, path):
        """An error on a graph the front end rejects is the generator's (or
        the front end's) fault: kind 'rejected'."""
        if f.kind != "error":
            return f
        cmd = [self.fkc, path, "--emit=graph", "-o", os.devnull]
        rc, out, err = run_command(cmd, self.timeout)
        if rc == 1:
            m = re.search(r"error: ([^\n]*)", err)
            return Failure("rejected", normalize(m.group(1)) if m else "",
                           cmd, "$ %s\n%s" % (" ".join(cmd), err))
        return f


# ---------------------------------------------------------------------------
# Minimization
# ---------------------------------------------------------------------------

def tensor_nodes(e, path=()):
    """(path, node) of every sub-expression of `e` that is a tensor and not
    a name, outermost first."""
    if e.kind != "ref" and not e.is_number:
        yield path, e
    for i, a in enumerate(e.args):
        for p in tensor_nodes(a, path + (i,)):
            yield p


def replace_at(e, path, new):
    if not path:
        return new
    c = clone_expr(e)
    c.args[path[0]] = replace_at(e.args[path[0]], path[1:], new)
    return c


def fresh_param_name(g):
    taken = {p[0] for p in g.params} | {s.name for s in g.stmts}
    i = 0
    while "p%d" % i in taken:
        i += 1
    return "p%d" % i


def dead_code(g):
    """`g` without statements and parameters nothing uses."""
    g = g.clone()
    live = set()
    for r in g.results:
        live |= r.names()
    kept = []
    for st in reversed(g.stmts):
        if st.name in live:
            kept.append(st)
            live |= st.expr.names()
    g.stmts = list(reversed(kept))
    g.params = [p for p in g.params if p[0] in live]
    return g


def inline_aliases(g):
    """`g` with statements `a = b` (b a name) gone, their uses using b."""
    g = g.clone()
    alias = {}
    kept = []
    for st in g.stmts:
        if st.expr.kind == "ref" and st.declared is None:
            alias[st.name] = alias.get(st.expr.name, st.expr.name)
        else:
            kept.append(st)
    if not alias:
        return g

    def walk(e):
        if e.kind == "ref" and e.name in alias:
            e.name = alias[e.name]
        for a in e.args:
            walk(a)
    g.stmts = kept
    for st in g.stmts:
        walk(st.expr)
    for r in g.results:
        walk(r)
    return g


def stmt_to_param(g, names):
    """`g` with the statements `names` made parameters of their type."""
    g = g.clone()
    params = []
    stmts = []
    for st in g.stmts:
        if st.name in names and st.expr.dtype is not None:
            params.append((st.name, st.expr.dtype, st.expr.shape))
        elif st.name in names and st.declared is not None:
            params.append((st.name,) + tuple(st.declared))
        else:
            stmts.append(st)
    g.params = g.params + params
    g.stmts = stmts
    return dead_code(g)


def resize(g, old, new):
    """`g` with every size `old` of its types and shape attributes made
    `new` (the minimizer keeps it only if it still fails the same way)."""
    g = g.clone()
    fix = lambda shape: tuple(new if d == old else d for d in shape)
    g.params = [(n, d, fix(sh)) for n, d, sh in g.params]
    for st in g.stmts:
        if st.declared is not None:
            st.declared = (st.declared[0], fix(st.declared[1]))

    def walk(e):
        if e.shape is not None:
            e.shape = fix(e.shape)
        attrs = []
        for k, v in e.attrs:
            if k == "shape":
                dims = [int(x) for x in v.strip("[]").split(",") if x.strip()]
                v = format_shape([new if d == old else d for d in dims])
            attrs.append((k, v))
        e.attrs = attrs
        for a in e.args:
            walk(a)
    for st in g.stmts:
        walk(st.expr)
    for r in g.results:
        walk(r)
    return g


class Minimizer:
    def __init__(self, file, test, deadline):
        self.file = file
        self.test = test          # GraphFile -> bool (still fails the same way)
        self.deadline = deadline
        self.checks = 0

    def try_(self, candidate):
        if time.time() > self.deadline:
            return False
        self.checks += 1
        if self.test(candidate):
            self.file = candidate
            return True
        return False

    def with_graph(self, i, g):
        f = self.file.clone()
        f.graphs[i] = g
        return f

    def run(self):
        # one graph of the file
        if len(self.file.graphs) > 1:
            for g in self.file.graphs:
                if self.try_(GraphFile(self.file.header, [g.clone()])):
                    break
        progress = True
        while progress and time.time() < self.deadline:
            progress = False
            for i in range(len(self.file.graphs)):
                progress |= self.results(i)
                progress |= self.try_dead(i)
                progress |= self.statements(i)
                progress |= self.subexpressions(i)
                progress |= self.attributes(i)
                progress |= self.sizes(i)
        return self.file

    def sizes(self, i):
        """Smaller sizes: each size of the inputs, everywhere at once, made
        1, 2 or about half."""
        changed = False
        g = self.file.graphs[i]
        sizes = sorted({d for _, _, sh in g.params for d in sh if d > 1},
                       reverse=True)
        for v in sizes:
            for w in (1, 2, v // 2):
                if 1 <= w < v:
                    cand = resize(self.file.graphs[i], v, w)
                    if self.try_(self.with_graph(i, cand)):
                        changed = True
                        break
        return changed

    def try_dead(self, i):
        g = self.file.graphs[i]
        d = dead_code(inline_aliases(g))
        if len(d.stmts) == len(g.stmts) and len(d.params) == len(g.params):
            return False
        return self.try_(self.with_graph(i, d))

    def results(self, i):
        changed = False
        j = 0
        while len(self.file.graphs[i].results) > 1 and \
                j < len(self.file.graphs[i].results):
            g = self.file.graphs[i].clone()
            del g.results[j]
            if self.try_(self.with_graph(i, dead_code(g))):
                changed = True
            else:
                j += 1
        return changed

    def statements(self, i):
        """ddmin over statements: make chunks of them parameters."""
        changed = False
        names = [s.name for s in self.file.graphs[i].stmts
                 if s.expr.dtype is not None or s.declared is not None]
        chunk = max(1, len(names) // 2)
        while chunk >= 1 and names:
            j = 0
            removed_any = False
            while j < len(names):
                part = set(names[j:j + chunk])
                g = stmt_to_param(self.file.graphs[i], part)
                if self.try_(self.with_graph(i, g)):
                    changed = removed_any = True
                    names = [s.name for s in self.file.graphs[i].stmts
                             if s.expr.dtype is not None or
                             s.declared is not None]
                else:
                    j += chunk
            if not removed_any:
                chunk //= 2
        return changed

    def subexpressions(self, i):
        changed = False
        g0 = self.file.graphs[i]
        k = 0
        while True:
            g0 = self.file.graphs[i]
            sites = []
            for si, st in enumerate(g0.stmts):
                for path, node in tensor_nodes(st.expr):
                    # a whole statement becomes a parameter in statements();
                    # here it can still give way to its operand
                    sites.append(("stmt", si, path, node))
            for ri, r in enumerate(g0.results):
                for path, node in tensor_nodes(r):
                    sites.append(("result", ri, path, node))
            if k >= len(sites):
                return changed
            where, idx, path, node = sites[k]
            g = g0.clone()
            if where == "stmt" and not path:
                g = None
            else:
                name = fresh_param_name(g)
                g.params.append((name, node.dtype, node.shape))
                new = E("ref", node.dtype, node.shape, name=name)
                if where == "stmt":
                    g.stmts[idx].expr = replace_at(g.stmts[idx].expr, path,
                                                   new)
                else:
                    g.results[idx] = replace_at(g.results[idx], path, new)
            if g is not None and self.try_(self.with_graph(i, dead_code(g))):
                changed = True
                continue
            # or the node's operand of the same type in its place
            # (cast(x, to=f16) of an f16 x, x + 0, transpose(x, perm=[0, 1]))
            replaced = False
            for a in node.args:
                if a.dtype == node.dtype and a.shape == node.shape:
                    g = g0.clone()
                    if where == "stmt":
                        g.stmts[idx].expr = replace_at(g.stmts[idx].expr,
                                                       path, clone_expr(a))
                    else:
                        g.results[idx] = replace_at(g.results[idx], path,
                                                    clone_expr(a))
                    if self.try_(self.with_graph(i, dead_code(g))):
                        changed = replaced = True
                        break
            if not replaced:
                k += 1

    def attributes(self, i):
        """Drops optional attributes (those with defaults)."""
        changed = False
        k = 0
        while True:
            g0 = self.file.graphs[i]
            sites = []
            def walk(e, where, idx, path):
                if e.kind == "call":
                    for a in range(len(e.attrs)):
                        sites.append((where, idx, path, a))
                for n, arg in enumerate(e.args):
                    walk(arg, where, idx, path + (n,))
            for si, st in enumerate(g0.stmts):
                walk(st.expr, "stmt", si, ())
            for ri, r in enumerate(g0.results):
                walk(r, "result", ri, ())
            if k >= len(sites):
                return changed
            where, idx, path, a = sites[k]
            g = g0.clone()
            root = g.stmts[idx].expr if where == "stmt" else g.results[idx]
            node = root
            for p in path:
                node = node.args[p]
            if node.attrs[a][0] in ("shape", "to"):
                k += 1
                continue
            del node.attrs[a]
            if self.try_(self.with_graph(i, g)):
                changed = True
            else:
                k += 1


def count_stmts(f):
    return sum(len(g.stmts) for g in f.graphs)


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

def find_tool(explicit, env, names, roots):
    if explicit:
        return explicit
    if env and os.environ.get(env):
        return os.environ[env]
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    for root in roots:
        for name in names:
            cand = os.path.join(root, name)
            if os.access(cand, os.X_OK):
                return cand
    return None


def parse_options(args):
    return Options(large=getattr(args, "large", False),
                   exclude=[x for x in (args.exclude or "").split(",") if x],
                   known_bugs=args.known_bugs)


def cmd_generate(args):
    options = parse_options(args)
    for i in range(args.count):
        seed = args.seed + i
        opts = options
        if args.large_every and i % args.large_every == args.large_every - 1:
            opts = Options(large=True, exclude=options.exclude,
                           known_bugs=options.known_bugs)
        text = generate_file(seed, opts).text()
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "g%d.graph" % seed), "w") as out:
                out.write(text)
        else:
            sys.stdout.write(text)
    return 0


def cmd_run(args):
    fkc = find_tool(args.fkc, "FKC", ["fkc"], ["build/bin"])
    if not fkc:
        print("random graphs: no fkc (give --fkc)", file=sys.stderr)
        return 2
    fkc = os.path.abspath(fkc) if os.sep in fkc else fkc
    ptxas = None
    if args.ptxas != "none":
        ptxas = find_tool(args.ptxas, "PTXAS", ["ptxas"],
                          [os.path.join(r, "bin") for r in
                           (os.environ.get("CUDA_HOME", ""),
                            os.environ.get("CUDA_PATH", ""),
                            "/usr/local/cuda") if r])
    if args.seed in (None, "", "random"):
        base = int(time.time() * 1000) % 1000000007
    else:
        base = int(args.seed)
    options = parse_options(args)
    out = args.out
    os.makedirs(out, exist_ok=True)
    work = os.path.join(out, "work")
    os.makedirs(work, exist_ok=True)
    limit = "%d graphs" % args.count if args.count else "%gs" % args.seconds
    print("random graphs: seed base %d, %s, fkc %s, ptxas %s%s%s" % (
        base, limit, fkc, ptxas or "none (PTX not assembled)",
        ", excluding " + ",".join(sorted(options.exclude))
        if options.exclude else "",
        ", with the open bugs' graphs" if options.known_bugs else
        ", open bugs left out (%d: --known-bugs)" % len(KNOWN_BUGS)
        if KNOWN_BUGS else ""))
    sys.stdout.flush()
    checker = Checker(fkc, ptxas, args.timeout)
    start = time.time()
    lock = threading.Lock()
    results = {}

    def options_for(i):
        if args.large_every and i % args.large_every == args.large_every - 1:
            return Options(large=True, exclude=options.exclude,
                           known_bugs=options.known_bugs)
        return options

    def one(i):
        seed = base + i
        opts = options_for(i)
        f = generate_file(seed, opts)
        flags = variant_of(seed)
        f.header.append("checked with: %s" % variant_text(flags))
        path = os.path.join(work, "g%d.graph" % seed)
        with open(path, "w") as fh:
            fh.write(f.text())
        t0 = time.time()
        failure = checker.check(path, seed, flags)
        with lock:
            results[i] = (seed, f, flags, failure, time.time() - t0)
            if failure is not None:
                print("random graphs: seed %d fails (%s: %s); minimized at "
                      "the end" % (seed, failure.kind, failure.signature),
                      file=sys.stderr)
                sys.stderr.flush()
        if failure is None and not args.keep:
            for ext in (".graph", ".ptx"):
                try:
                    os.remove(path[:-len(".graph")] + ext)
                except OSError:
                    pass
        return i

    jobs = max(1, args.jobs)
    next_i = 0
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        running = set()
        while True:
            while len(running) < jobs:
                if args.count and next_i >= args.count:
                    break
                if not args.count and time.time() - start >= args.seconds:
                    break
                running.add(pool.submit(one, next_i))
                next_i += 1
            if not running:
                break
            done, running = concurrent.futures.wait(
                running, return_when=concurrent.futures.FIRST_COMPLETED)
            for d in done:
                d.result()
    elapsed = time.time() - start
    passed = sum(1 for r in results.values() if r[3] is None)
    failed = [results[i] for i in sorted(results) if results[i][3] is not None]
    # Minimize the first failure of each kind and signature; the others are
    # kept as they are.
    seen = set()
    for seed, f, flags, failure, _ in failed:
        name = "%s-s%d" % (failure.kind, seed)
        path = os.path.join(out, name + ".graph")
        orig = os.path.join(out, name + ".orig.graph")
        with open(orig, "w") as fh:
            fh.write(f.text())
        minimized = f
        note = "not minimized"
        if not args.no_minimize and failure.key() not in seen:
            seen.add(failure.key())
            minimized, note = minimize(checker, f, seed, flags, failure,
                                       os.path.join(work, name),
                                       args.minimize_seconds)
        elif failure.key() in seen:
            note = "same failure as an earlier seed; not minimized"
        m = minimized.clone()
        m.header = m.header + [
            "%s: %s" % (failure.kind, failure.signature),
            "fails: " + reproduce(failure, os.path.basename(path), seed,
                                  flags),
        ]
        with open(path, "w") as fh:
            fh.write(m.text())
        # the log of the minimized graph's failure
        final = checker.check(path, seed, flags)
        with open(os.path.join(out, name + ".log"), "w") as fh:
            fh.write((final or failure).log)
        print("FAIL seed %d %s: %s [%s] -> %s (%d statements, %s)" % (
            seed, failure.kind, failure.signature, variant_text(flags), path,
            count_stmts(minimized), note))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    print("random graphs: %d passed, %d failed" % (passed, len(failed)))
    slowest = max(results.values(), key=lambda r: r[4]) if results else None
    print("  (seeds %d..%d in %.0fs%s; `random_graphs.py generate --seed S%s`"
          " prints the graph of seed S)" % (
              base, base + max(len(results) - 1, 0), elapsed,
              ", slowest %d at %.1fs" % (slowest[0], slowest[4])
              if slowest else "", " --large" if args.large else ""))
    return 1 if failed else 0


def reproduce(failure, path, seed, flags):
    targs = "".join(" " + f for f in flags)
    if failure.kind == "ptxas":
        return "fkc %s -o %s.ptx%s && ptxas %s %s.ptx" % (
            path, path[:-6], targs, failure.command[1], path[:-6])
    if "--verify-stages" in failure.command:
        return "fkc %s --verify-stages --seed %d%s" % (path, seed, targs)
    if "--emit=graph" in failure.command:
        return "fkc %s --emit=graph" % path
    return "fkc %s -o %s.ptx%s" % (path, path[:-6], targs)


def minimize(checker, f, seed, flags, failure, stem, seconds):
    only = "verify" if "--verify-stages" in failure.command else \
        "compile" if failure.kind != "rejected" else None
    counter = [0]

    def test(candidate):
        counter[0] += 1
        path = "%s.m%d.graph" % (stem, counter[0] % 2)
        with open(path, "w") as fh:
            fh.write(candidate.text())
        if failure.kind == "rejected":
            cmd = [checker.fkc, path, "--emit=graph", "-o", os.devnull]
            rc, out, err = run_command(cmd, checker.timeout)
            m = re.search(r"error: ([^\n]*)", err)
            return rc == 1 and m and normalize(m.group(1)) == failure.signature
        got = checker.check(path, seed, flags,
                            only=only if only == "verify" else None)
        return got is not None and got.key() == failure.key()

    t0 = time.time()
    m = Minimizer(f.clone(), test, time.time() + seconds)
    result = m.run()
    note = "minimized from %d statements in %d checks, %.0fs" % (
        count_stmts(f), m.checks, time.time() - t0)
    if time.time() > m.deadline:
        note += ", time limit"
    return result, note


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--large", action="store_true",
                        help="larger shapes: tensor-core matmuls of 64 to "
                        "264, flash attention with long sequences")
    common.add_argument("--large-every", type=int, default=0, metavar="K",
                        help="every K-th graph is --large")
    common.add_argument("--known-bugs", action="store_true",
                        help="also make the graphs of open bugs (left out "
                        "by default): " + (", ".join(
                            "%s (%s)" % kv for kv in sorted(KNOWN_BUGS.items()))
                            or "none now"))
    common.add_argument("--exclude", default="", metavar="A,B",
                        help="generators or features to leave out: " +
                        ", ".join(FEATURES))
    g = sub.add_parser("generate", parents=[common],
                       help="write random graphs")
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--count", type=int, default=1)
    g.add_argument("--out", help="directory for g<seed>.graph files "
                   "(default: print to stdout)")
    r = sub.add_parser("run", parents=[common],
                       help="generate, check and minimize failures")
    r.add_argument("--seed", default="1",
                   help="seed of the first graph (the others follow), or "
                   "'random' for a fresh one (printed)")
    r.add_argument("--count", type=int, default=0,
                   help="number of graphs (default: run for --seconds)")
    r.add_argument("--seconds", type=float, default=60.0)
    r.add_argument("--fkc", help="the compiler (default: $FKC, PATH, "
                   "build/bin/fkc)")
    r.add_argument("--ptxas", default="",
                   help="ptxas to assemble the PTX with, or 'none' (default: "
                   "$PTXAS, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)")
    r.add_argument("--out", default="build/random-graphs",
                   help="where failures are written")
    r.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    r.add_argument("--timeout", type=float, default=120.0,
                   help="seconds one fkc or ptxas command may take")
    r.add_argument("--no-minimize", action="store_true")
    r.add_argument("--minimize-seconds", type=float, default=180.0,
                   help="time limit of minimizing one failure")
    r.add_argument("--keep", action="store_true",
                   help="keep every generated graph and PTX in OUT/work")
    args = parser.parse_args(argv)
    if args.command == "generate":
        return cmd_generate(args)
    return cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
