"""Tests of the Python binding.

    python3 test_fkrt.py [--artifact PATH]... [unittest options]

Three groups, each run where it can:

- manifest queries and argument errors found before torch is needed: always
  (they need the fkrt library only: set FKRT_LIBRARY);
- argument validation of Module.run on CPU tensors: where torch imports;
- runs on the GPU: where torch sees a CUDA device and the driver loads. Each
  artifact (default: runtime/tests/data/add.ptx; more with --artifact or
  $FKRT_TEST_ARTIFACTS, separated by ':') runs on seeded random inputs. Every
  output must be written by the run and be the same on a second run
  (outputs are poisoned with two different patterns before the two runs and
  compared bit for bit), and graphs whose function is known here (`add` of
  add.ptx: y = 2 * x + w) are checked against torch. load.ptx is run from
  several Python threads on one module, and with a launch the driver
  rejects midway, after which the module must still run.

A group that cannot run is left out with a line on stderr saying why, rather
than reported as skipped, so that the summary stays a plain "OK".
"""

import os
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fkrt  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                    "tests", "data")
SAMPLE = os.path.join(DATA, "sample.ptx")
ADD = os.path.join(DATA, "add.ptx")
# Graph "scale": y = 3x + 1 - w through the workspace, and the workspace's
# address in `where` (i32[2]); graph "fail": its third launch is rejected
# (see the file's comments).
LOAD = os.path.join(DATA, "load.ptx")
INOUT = os.path.join(DATA, "inout.ptx")


def _symbolic_add(w_shape=b'["B*S"]'):
    """add.ptx's graph with symbols (version 4), as "add_bs": y = 2 * x + w
    over x f32[B, S] flattened, w f32[B*S] (or `w_shape`) and y f32[B*S].
    The bounds keep B*S within the workspace's 1000 elements."""
    with open(ADD, "rb") as f:
        data = f.read()
    for old, new in [
            (b'"version": 1', b'"version": 4'),
            (b'[{"name": "add",', b'[{"name": "add_bs", "symbols": '
             b'[{"name": "S", "max": 10}, {"name": "B", "max": 100}],'),
            (b'"x", "dtype": "f32", "shape": [1000]',
             b'"x", "dtype": "f32", "shape": ["B", "S"]'),
            (b'"w", "dtype": "f32", "shape": [1000]',
             b'"w", "dtype": "f32", "shape": ' + w_shape),
            (b'"y", "dtype": "f32", "shape": [1000]',
             b'"y", "dtype": "f32", "shape": ["B*S"]'),
            (b'"grid": [4, 1, 1]',
             b'"grid": [{"ceil_div": ["B*S", 256]}, 1, 1]'),
            (b'{"i64": 1000}', b'{"i64": "B*S"}'),
            (b'{"i32": 1000}', b'{"i32": {"mul": ["S", "B"]}}')]:
        assert old in data, old
        data = data.replace(old, new)
    return data


def _sized(shape, sizes):
    """`shape` with each symbolic dimension ("B*S") at the symbols'
    `sizes`."""
    def size(dim):
        if isinstance(dim, int):
            return dim
        product = 1
        for factor in dim.split("*"):
            product *= int(factor) if factor.isdigit() else sizes[factor]
        return product
    return tuple(size(d) for d in shape)


def _write_safetensors(path, tensors):
    """Writes {name: (dtype, shape, struct format, values)} as a
    .safetensors file, with the standard library only."""
    import json
    import struct
    header, data = {}, b""
    for name, (dtype, shape, fmt, values) in tensors.items():
        raw = struct.pack("<%d%s" % (len(values), fmt), *values)
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def _take_artifacts(argv):
    """Removes --artifact PATH / --artifact=PATH from argv; returns them."""
    artifacts, rest, i = [], [], 0
    while i < len(argv):
        a = argv[i]
        if a == "--artifact" and i + 1 < len(argv):
            artifacts.append(argv[i + 1])
            i += 2
            continue
        if a.startswith("--artifact="):
            artifacts.append(a.split("=", 1)[1])
        else:
            rest.append(a)
        i += 1
    env = os.environ.get("FKRT_TEST_ARTIFACTS")
    if env:
        artifacts += [p for p in env.split(":") if p]
    return artifacts or [ADD], rest


ARTIFACTS, _ARGV = _take_artifacts(sys.argv)


def _note(message):
    sys.stderr.write("test_fkrt: %s\n" % message)


try:
    fkrt.library()
    LIBRARY_ERROR = None
except OSError as e:
    LIBRARY_ERROR = str(e)

try:
    import torch
    TORCH_ERROR = None
except ImportError as e:
    torch = None
    TORCH_ERROR = "torch is not installed (%s)" % e


def _gpu_error():
    if LIBRARY_ERROR:
        return LIBRARY_ERROR
    if TORCH_ERROR:
        return TORCH_ERROR
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    if not fkrt.driver_available():
        return "the fkrt library cannot load the CUDA driver"
    return None


GPU_ERROR = _gpu_error()


@unittest.skipIf(LIBRARY_ERROR, LIBRARY_ERROR or "")
class ManifestTest(unittest.TestCase):
    def test_queries(self):
        with fkrt.Module(SAMPLE) as m:
            self.assertEqual(m.version, 1)
            self.assertEqual(m.target, "sm_90")
            self.assertEqual(m.graph_names(), ["mlp", "mask"])
            ins = m.inputs("mlp")
            self.assertEqual([i.name for i in ins], ["x", "w"])
            self.assertEqual(ins[0].dtype, "f16")
            self.assertEqual(ins[0].shape, (64, 32))
            self.assertEqual(ins[0].bytes, 64 * 32 * 2)
            self.assertEqual(ins[0].type_text(), "f16[64, 32]")
            outs = m.outputs("mask")
            self.assertEqual(outs[0].shape, ())
            self.assertEqual(outs[0].dtype, "f32")
            self.assertEqual(outs[0].type_text(), "f32[]")
            self.assertEqual(m.workspace_bytes("mlp"), 8192)
            self.assertEqual(m.launch_count("mlp"), 2)
            self.assertEqual(m.persistent_sm_count, 0)
            self.assertIsNone(m.device)
            self.assertTrue(m.cuda_graphs)
            m.cuda_graphs = False
            self.assertFalse(m.cuda_graphs)
            self.assertEqual(m.cuda_graph_count, 0)
            self.assertTrue(m.concurrent_launches)
            m.concurrent_launches = False
            self.assertFalse(m.concurrent_launches)

    def test_inout_aliases(self):
        with fkrt.Module(INOUT) as m:
            self.assertEqual(m.version, 3)
            outs = m.outputs("accumulate")
            self.assertEqual([o.name for o in outs], ["result0", "cache_1"])
            self.assertEqual([o.aliases for o in outs], [None, 1])
            self.assertTrue(all(i.aliases is None
                                for i in m.inputs("accumulate")))

    def test_device_sm_count_checks_its_device(self):
        with self.assertRaises(fkrt.Error) as e:
            fkrt.device_sm_count(-1)
        self.assertIn("not a device ordinal", str(e.exception))

    def test_persistent_sm_count(self):
        # The sample's first launch as a persistent kernel sized for 8 SMs.
        with open(SAMPLE, "rb") as f:
            text = f.read().replace(
                b'"grid": [8, 1, 1], "block": [256, 1, 1], "shared_bytes": 0,',
                b'"grid": [8, 1, 1], "block": [256, 1, 1], "shared_bytes": 0, '
                b'"persistent": {"sm_count": 8, "cluster_blocks": 2},', 1)
        self.assertIn(b'"persistent"', text)
        with fkrt.Module(data=text) as m:
            self.assertEqual(m.persistent_sm_count, 8)

    def test_from_memory(self):
        with open(SAMPLE, "rb") as f:
            m = fkrt.Module(data=f.read())
        self.assertEqual(m.graph_names(), ["mlp", "mask"])
        with open(SAMPLE, "rb") as f:
            m = fkrt.Module(data=bytearray(f.read()))
        self.assertEqual(m.graph_names(), ["mlp", "mask"])

    def test_errors(self):
        with self.assertRaises(fkrt.Error) as e:
            fkrt.Module("/nonexistent/x.ptx")
        self.assertEqual(e.exception.status, fkrt.ERROR_IO)
        self.assertIn("cannot open", str(e.exception))
        with self.assertRaises(fkrt.Error) as e:
            fkrt.Module(data=b"// fkc-manifest-begin\n// {}\n"
                             b"// fkc-manifest-end\n")
        self.assertEqual(e.exception.status, fkrt.ERROR_INVALID_ARTIFACT)
        self.assertIn("manifest: missing field 'format'", str(e.exception))
        with self.assertRaises(ValueError):
            fkrt.Module()
        with self.assertRaises(ValueError):
            fkrt.Module(SAMPLE, data=b"")
        with fkrt.Module(SAMPLE) as m:
            with self.assertRaises(fkrt.Error) as e:
                m.inputs("nope")
            self.assertEqual(e.exception.status, fkrt.ERROR_NOT_FOUND)

    def test_invalid_utf8_name_rejected_at_load(self):
        # Rejected by the reader with the byte's offset, rather than loaded
        # and failing to decode in inputs().
        with open(SAMPLE, "rb") as f:
            data = f.read()
        bad = data.replace(b'"name": "w"', b'"name": "w\xff"', 1)
        with self.assertRaises(fkrt.Error) as e:
            fkrt.Module(data=bad)
        self.assertEqual(e.exception.status, fkrt.ERROR_INVALID_ARTIFACT)
        self.assertIn("(byte offset %d): invalid UTF-8: byte 0xff"
                      % bad.index(b"\xff"), str(e.exception))
        for sequence in (b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80",
                         b"\xf4\x90\x80\x80"):
            with self.assertRaises(fkrt.Error) as e:
                fkrt.Module(data=data.replace(b'"name": "w"',
                                              b'"name": "w' + sequence + b'"',
                                              1))
            self.assertIn("invalid UTF-8", str(e.exception))
        # Well-formed UTF-8 names load and decode.
        good = data.replace(b'"name": "w"', "\"name\": \"w\u00e9\u20ac\"".encode(), 1)
        with fkrt.Module(data=good) as m:
            self.assertEqual([i.name for i in m.inputs("mlp")],
                             ["x", "w\u00e9\u20ac"])

    def test_error_message_not_utf8(self):
        # A path that is not UTF-8 is quoted in the message, escaped.
        path = os.fsdecode(b"/nonexistent/\xff.ptx")
        with self.assertRaises(fkrt.Error) as e:
            fkrt.Module(path)
        self.assertEqual(e.exception.status, fkrt.ERROR_IO)
        self.assertIn("/nonexistent/\\xff.ptx: cannot open", str(e.exception))

    def test_kernel_checked_against_ptx(self):
        with open(SAMPLE, "rb") as f:
            data = f.read()
        # Named only in a comment: not a kernel of the PTX.
        bad = data.replace(b".visible .entry mask_k0(",
                           b"// .visible .entry mask_k0(\n(", 1)
        with self.assertRaises(fkrt.Error) as e:
            fkrt.Module(data=bad)
        self.assertEqual(e.exception.status, fkrt.ERROR_INVALID_ARTIFACT)
        self.assertIn("kernel \"mask_k0\" is not an .entry of the PTX",
                      str(e.exception))
        # One argument too many for its parameters.
        bad = data.replace(b'"args": [{"buffer": 9}, {"buffer": 10}]',
                           b'"args": [{"buffer": 9}, {"buffer": 10}, '
                           b'{"i32": 1}]', 1)
        with self.assertRaises(fkrt.Error) as e:
            fkrt.Module(data=bad)
        self.assertIn("3 arguments, but .entry mask_k0", str(e.exception))

    def test_run_argument_counts(self):
        # Checked before torch is imported: these pass without torch.
        with fkrt.Module(ADD) as m:
            with self.assertRaises(fkrt.Error) as e:
                m.run("nope", [])
            self.assertEqual(e.exception.status, fkrt.ERROR_NOT_FOUND)
            with self.assertRaises(fkrt.ArgumentError) as e:
                m.run("add", [object()])
            self.assertEqual(e.exception.status, fkrt.ERROR_INVALID_ARGUMENT)
            self.assertEqual(str(e.exception),
                             "run: graph 'add' takes 2 inputs (x, w), got 1")
            with self.assertRaises(ValueError) as e:
                m.run("add", [object(), object()], outputs=[])
            self.assertEqual(str(e.exception),
                             "run: graph 'add' has 1 outputs (y), got 0")

    def test_bind_weights_checked_without_gpu(self):
        # The file is checked against the graph before the GPU is needed.
        import tempfile
        with tempfile.TemporaryDirectory() as tmp, fkrt.Module(ADD) as m:
            self.assertEqual([i.bound for i in m.inputs("add")],
                             [False, False])
            bad = os.path.join(tmp, "bad.safetensors")
            _write_safetensors(bad, {"w": ("F16", [1000], "e", [0] * 1000),
                                     "bias": ("F32", [1], "f", [0])})
            with self.assertRaises(fkrt.Error) as e:
                m.bind_weights("add", bad)
            self.assertEqual(e.exception.status, fkrt.ERROR_INVALID_ARGUMENT)
            self.assertIn("tensor 'w' is f16[1000], parameter 'w' of graph "
                          "'add' is f32[1000]; tensor 'bias' is no parameter "
                          "of graph 'add'", str(e.exception))
            with self.assertRaises(fkrt.Error) as e:
                m.bind_weights("add", os.path.join(tmp, "missing"))
            self.assertEqual(e.exception.status, fkrt.ERROR_IO)
            with self.assertRaises(fkrt.Error) as e:
                m.bind_weights("nope", bad)
            self.assertEqual(e.exception.status, fkrt.ERROR_NOT_FOUND)

    def test_symbols(self):
        with fkrt.Module(data=_symbolic_add()) as m:
            self.assertEqual(m.version, 4)
            self.assertEqual(m.symbols("add_bs"), {"S": 10, "B": 100})
            x, w = m.inputs("add_bs")
            self.assertEqual(x.shape, ("B", "S"))
            self.assertEqual(w.shape, ("B*S",))
            self.assertEqual(x.type_text(), "f32[B, S]")
            self.assertEqual(x.bytes, 0)
            y, = m.outputs("add_bs")
            self.assertEqual(y.shape, ("B*S",))
            self.assertEqual(repr(y), "TensorInfo('y', f32, ('B*S',))")
        with fkrt.Module(data=_symbolic_add(b'[1000]')) as m:
            self.assertEqual(m.inputs("add_bs")[1].shape, (1000,))
            self.assertEqual(m.inputs("add_bs")[1].bytes, 4000)
        unbounded = _symbolic_add().replace(b'{"name": "B", "max": 100}',
                                            b'{"name": "B"}')
        with fkrt.Module(data=unbounded) as m:
            self.assertEqual(m.symbols("add_bs"), {"S": 10, "B": None})
            self.assertEqual(m.symbol_lower_bounds("add_bs"), {"S": 0, "B": 0})
        lower = _symbolic_add().replace(b'{"name": "B", "max": 100}',
                                        b'{"name": "B", "max": 100, "min": 2}')
        with fkrt.Module(data=lower) as m:
            self.assertEqual(m.symbol_lower_bounds("add_bs"), {"S": 0, "B": 2})
            with self.assertRaises(fkrt.ArgumentError) as e:
                m.output_shapes("add_bs", [(1, 5), (5,)])
            self.assertIn("makes B 1, below its lower bound 2", str(e.exception))
        with fkrt.Module(ADD) as m:
            self.assertEqual(m.symbols("add"), {})
            self.assertEqual(m.inputs("add")[0].shape, (1000,))

    def test_output_shapes(self):
        # Computed and checked by the runtime, without torch or a GPU.
        with fkrt.Module(data=_symbolic_add()) as m:
            self.assertEqual(m.output_shapes("add_bs", [(3, 5), (15,)]),
                             [(15,)])
            self.assertEqual(m.output_shapes("add_bs", [[0, 7], [0]]),
                             [(0,)])
            for shapes, message in [
                    ([(3, 11), (33,)],
                     "output_shapes: graph 'add_bs' input 0 ('x') dimension "
                     "1 makes S 11, above its bound 10"),
                    ([(3, 5), (14,)],
                     "output_shapes: graph 'add_bs' input 1 ('w'): dimension "
                     "0 is 14, expected B*S = 15 (S = 5 from input 0 ('x') "
                     "dimension 1, B = 3 from input 0 ('x') dimension 0)"),
                    ([(3, 5), (15, 1)], "input 1 ('w'): expected rank 1, "
                                        "got 2"),
                    ([(3, 5)], "output_shapes: graph 'add_bs' takes 2 "
                               "inputs (x, w), got 1")]:
                with self.assertRaises(fkrt.ArgumentError) as e:
                    m.output_shapes("add_bs", shapes)
                self.assertIn(message, str(e.exception))
                self.assertEqual(e.exception.status,
                                 fkrt.ERROR_INVALID_ARGUMENT)
            with self.assertRaises(fkrt.Error) as e:
                m.output_shapes("nope", [])
            self.assertEqual(e.exception.status, fkrt.ERROR_NOT_FOUND)
        with fkrt.Module(ADD) as m:
            self.assertEqual(m.output_shapes("add", [(1000,), (1000,)]),
                             [(1000,)])
            with self.assertRaises(fkrt.ArgumentError) as e:
                m.output_shapes("add", [(1000,), (999,)])
            self.assertIn("input 1 ('w'): dimension 0 is 999, expected 1000",
                          str(e.exception))

    def test_dtype_names(self):
        lib = fkrt.library()
        for code, name in fkrt.DTYPE_NAMES.items():
            self.assertEqual(lib.fkrt_dtype_name(code).decode(), name)
            self.assertEqual(lib.fkrt_dtype_size(code),
                             fkrt.DTYPE_SIZES[code])
        self.assertIsNone(lib.fkrt_dtype_name(99))


if TORCH_ERROR is not None and not LIBRARY_ERROR:
    class NoTorchTest(unittest.TestCase):
        def test_run_needs_torch(self):
            with fkrt.Module(ADD) as m:
                with self.assertRaises(ImportError) as e:
                    m.run("add", [object(), object()])
                self.assertIn("needs PyTorch", str(e.exception))


class _DLPackOnly:
    """Exposes a tensor through the DLPack protocol only, as an array of
    another library (JAX, CuPy) would."""

    def __init__(self, tensor):
        self._t = tensor

    def __dlpack__(self, *args, **kwargs):
        return self._t.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()


if TORCH_ERROR is None and not LIBRARY_ERROR:
    class ValidationTest(unittest.TestCase):
        """Module.run's checks of its tensors, on CPU tensors: every error
        is found before the module touches CUDA."""

        def setUp(self):
            self.m = fkrt.Module(ADD)
            self.x = torch.zeros(1000)
            self.w = torch.zeros(1000)

        def tearDown(self):
            self.m.close()

        def check(self, inputs, message, outputs=None, graph="add"):
            with self.assertRaises(fkrt.ArgumentError) as e:
                self.m.run(graph, inputs, outputs=outputs)
            self.assertIn(message, str(e.exception))
            self.assertIsNone(self.m.device)

        def test_dtype(self):
            self.check([self.x.half(), self.w],
                       "run: graph 'add' input 0 ('x'): expected dtype f32 "
                       "(torch.float32), got torch.float16")

        def test_shape(self):
            self.check([self.x, torch.zeros(999)],
                       "input 1 ('w'): expected shape [1000], got [999]")
            self.check([self.x, torch.zeros(1, 1000)],
                       "input 1 ('w'): expected shape [1000], got [1, 1000]")

        def test_device(self):
            self.check([self.x, self.w],
                       "input 0 ('x'): expected a CUDA tensor, got one on cpu")

        def test_output_checked(self):
            self.check([self.x, self.w], "output 0 ('y'): expected dtype f32",
                       outputs=[torch.zeros(1000, dtype=torch.int32)])

        def test_not_a_tensor(self):
            self.check([[0.0] * 1000, self.w],
                       "input 0 ('x'): expected a torch tensor or an object "
                       "supporting DLPack, got list")

        def test_dlpack_object(self):
            # Imported through DLPack, then checked like a tensor.
            self.check([_DLPackOnly(self.x.half()), self.w],
                       "input 0 ('x'): expected dtype f32")

        def test_symbolic_sizes(self):
            # The runtime checks the sizes, still before devices and before
            # the module touches CUDA.
            self.m.close()
            self.m = fkrt.Module(data=_symbolic_add())
            x = torch.zeros(3, 5)

            def check(inputs, message, outputs=None):
                self.check(inputs, message, outputs, graph="add_bs")

            check([x, torch.zeros(15, 1)],
                  "run: graph 'add_bs' input 1 ('w'): expected shape [B*S], "
                  "got [15, 1]")
            check([torch.zeros(3, 11), torch.zeros(33)],
                  "run: graph 'add_bs' input 0 ('x') dimension 1 makes S 11, "
                  "above its bound 10")
            check([x, torch.zeros(14)],
                  "run: graph 'add_bs' input 1 ('w'): dimension 0 is 14, "
                  "expected B*S = 15")
            # A given output's symbolic dimensions are the runtime's to
            # check, at the run (test_symbolic_add), after the devices.
            check([x, torch.zeros(15)],
                  "input 0 ('x'): expected a CUDA tensor",
                  outputs=[torch.zeros(14)])
            check([x, torch.zeros(15)],
                  "input 0 ('x'): expected a CUDA tensor",
                  outputs=[torch.zeros(15)])


def _bits(t):
    """The tensor's storage reinterpreted as integers, for bitwise
    comparison (NaN payloads included)."""
    view = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    return t.contiguous().view(view[t.element_size()])


# Each symbol's size in runs of artifacts (or its bound if lower): one no
# tile size divides.
_SYMBOL_SIZE = 37


def _random_input(info, generator, device, sizes=None):
    dtypes = fkrt._torch_dtypes(torch)
    dtype = dtypes[info.dtype_code]
    shape = _sized(info.shape, sizes or {})
    if dtype.is_floating_point:
        return torch.randn(shape, generator=generator, device=device,
                           dtype=torch.float32).to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=generator,
                             device=device).bool()
    return torch.randint(-1000, 1000, shape, generator=generator,
                         device=device, dtype=dtype)


def _poison(t, first):
    """Fills an output with a pattern no correct run leaves in place: NaN
    then -0.5 for floats, two different integers otherwise."""
    if t.dtype.is_floating_point:
        t.fill_(float("nan") if first else -0.5)
    elif t.dtype == torch.bool:
        _bits(t).fill_(0xAB if first else 0xCD)
    else:
        t.fill_(-123456789 if first else 987654321)


def _oracle(module, graph, inputs):
    """torch's result of graphs whose function this test knows, else None."""
    sig = [(i.name, i.dtype) for i in module.inputs(graph)]
    if graph == "add" and sig == [("x", "f32"), ("w", "f32")]:
        x, w = inputs
        return [2 * x + w]
    return None


if GPU_ERROR is None:
    class GpuRunTest(unittest.TestCase):
        """Runs artifacts through Module.run on torch CUDA tensors."""

        def setUp(self):
            self.device = torch.device("cuda", torch.cuda.current_device())
            self.generator = torch.Generator(device=self.device)
            self.generator.manual_seed(7)

        def inputs(self, m, graph):
            lower = m.symbol_lower_bounds(graph)
            sizes = {name: max(lower[name], _SYMBOL_SIZE if bound is None
                               else min(bound, _SYMBOL_SIZE))
                     for name, bound in m.symbols(graph).items()}
            return [_random_input(i, self.generator, self.device, sizes)
                    for i in m.inputs(graph)]

        def test_artifacts(self):
            for path in ARTIFACTS:
                with fkrt.Module(path) as m:
                    for graph in m.graph_names():
                        with self.subTest(artifact=path, graph=graph):
                            self.run_graph(m, graph)

        def run_graph(self, m, graph):
            inputs = self.inputs(m, graph)
            first = m.run(graph, inputs)
            self.assertEqual(m.device, self.device.index)
            # Allocated outputs have the manifest's types at these sizes.
            shapes = m.output_shapes(graph, [i.shape for i in inputs])
            for t, shape in zip(first, shapes):
                self.assertEqual(tuple(t.shape), shape)
                self.assertTrue(t.is_cuda)
            for t in first:
                _poison(t, True)
            m.run(graph, inputs, outputs=first)
            second = [torch.empty_like(t) for t in first]
            for t in second:
                _poison(t, False)
            m.run(graph, inputs, outputs=second)
            torch.cuda.synchronize()
            for i, (a, b) in enumerate(zip(first, second)):
                self.assertTrue(torch.equal(_bits(a), _bits(b)),
                                "output %d differs between two runs with "
                                "differently poisoned outputs: not every "
                                "element is written, or the graph is not "
                                "deterministic" % i)
            expected = _oracle(m, graph, inputs)
            if expected is not None:
                for a, e in zip(first, expected):
                    self.assertTrue(torch.equal(a, e), "%s: %s vs %s"
                                    % (graph, a[:8].tolist(), e[:8].tolist()))

        def test_bound_weights(self):
            # w bound from a file: run() takes x alone; y = 2x + w.
            import tempfile
            with tempfile.TemporaryDirectory() as tmp, fkrt.Module(ADD) as m:
                values = [float(k % 7 - 3) / 2 for k in range(1000)]
                path = os.path.join(tmp, "w.safetensors")
                _write_safetensors(path, {"w": ("F32", [1000], "f", values)})
                m.bind_weights("add", path, device=self.device.index)
                self.assertEqual([i.bound for i in m.inputs("add")],
                                 [False, True])
                w = torch.tensor(values, device=self.device)
                for _ in range(3):  # the later runs replay a CUDA graph
                    x = torch.randn(1000, device=self.device,
                                    generator=self.generator)
                    y, = m.run("add", [x])
                    torch.cuda.synchronize()
                    self.assertTrue(torch.equal(y, 2 * x + w))
                with self.assertRaises(fkrt.ArgumentError):
                    m.run("add", [x, w])
                with self.assertRaisesRegex(fkrt.Error, "is bound already"):
                    m.bind_weights("add", path)

        def test_symbolic_add(self):
            # Sizes per run, through views of one buffer each: the same
            # addresses at other sizes must not replay another size's CUDA
            # graph.
            with fkrt.Module(data=_symbolic_add()) as m:
                xs = torch.randn(1000, device=self.device,
                                 generator=self.generator)
                ws = torch.randn(1000, device=self.device,
                                 generator=self.generator)
                out = torch.empty(1000, device=self.device)
                for b, s in [(3, 5), (100, 10), (3, 5), (1, 1), (0, 7),
                             (100, 10)]:
                    x, w = xs[:b * s].view(b, s), ws[:b * s]
                    want = 2 * x.flatten() + w
                    y, = m.run("add_bs", [x, w])
                    self.assertEqual(tuple(y.shape), (b * s,))
                    for _ in range(2):
                        given = out[:b * s]
                        given.fill_(float("nan"))
                        m.run("add_bs", [x, w], outputs=[given])
                        torch.cuda.synchronize()
                        self.assertTrue(torch.equal(given, want))
                    self.assertTrue(torch.equal(y, want))
                x, w = xs[:15].view(3, 5), ws[:15]
                with self.assertRaises(fkrt.Error) as e:
                    m.run("add_bs", [x, w], outputs=[out[:14]])
                self.assertIn("output 0 ('y'): dimension 0 is 14, expected "
                              "B*S = 15", str(e.exception))

        def test_symbolic_with_bound_weights(self):
            # w static and bound: run() and output_shapes take x alone.
            import tempfile
            with tempfile.TemporaryDirectory() as tmp, \
                    fkrt.Module(data=_symbolic_add(b'[1000]')) as m:
                values = [float(k % 7 - 3) / 2 for k in range(1000)]
                path = os.path.join(tmp, "w.safetensors")
                _write_safetensors(path, {"w": ("F32", [1000], "f", values)})
                m.bind_weights("add_bs", path, device=self.device.index)
                self.assertEqual(m.output_shapes("add_bs", [(4, 5)]),
                                 [(20,)])
                w = torch.tensor(values, device=self.device)
                for b, s in [(4, 5), (100, 10), (4, 5)]:
                    x = torch.randn(b, s, device=self.device,
                                    generator=self.generator)
                    y, = m.run("add_bs", [x])
                    torch.cuda.synchronize()
                    self.assertTrue(torch.equal(y, 2 * x.flatten() +
                                                w[:b * s]))

        def test_add_orders_with_torch(self):
            # The input is written by a torch kernel queued behind a long
            # busy wait, the output read by torch right after the run, all
            # on the current stream with no synchronisation in between: a
            # run not ordered on torch's stream would read zeros.
            sleep = getattr(torch.cuda, "_sleep", None)
            with fkrt.Module(ADD) as m:
                for _ in range(3):
                    x = torch.randn(1000, device=self.device,
                                    generator=self.generator)
                    w = torch.randn(1000, device=self.device,
                                    generator=self.generator)
                    x3 = torch.zeros(1000, device=self.device)
                    torch.cuda.synchronize()
                    if sleep is not None:
                        sleep(20 * 1000 * 1000)   # about 10 ms
                    torch.mul(x, 3, out=x3)
                    y, = m.run("add", [x3, w])
                    self.assertTrue(torch.equal(y, 2 * (x * 3) + w))

        def test_add_on_side_stream(self):
            with fkrt.Module(ADD) as m:
                x = torch.randn(1000, device=self.device,
                                generator=self.generator)
                w = torch.randn(1000, device=self.device,
                                generator=self.generator)
                s = torch.cuda.Stream(device=self.device)
                s.wait_stream(torch.cuda.current_stream(self.device))
                with torch.cuda.stream(s):
                    y, = m.run("add", [x, w])          # current stream: s
                y2, = m.run("add", [x, w], stream=s)   # given stream
                out = torch.empty(1000, device=self.device)
                m.run("add", [x, w], outputs=[out], stream=s.cuda_stream)
                s.synchronize()
                for r in (y, y2, out):
                    self.assertTrue(torch.equal(r, 2 * x + w))

        def test_add_through_dlpack(self):
            with fkrt.Module(ADD) as m:
                x = torch.randn(1000, device=self.device,
                                generator=self.generator)
                w = torch.randn(1000, device=self.device,
                                generator=self.generator)
                out = torch.empty(1000, device=self.device)
                result = m.run("add", [_DLPackOnly(x), _DLPackOnly(w)],
                               outputs=[_DLPackOnly(out)])
                self.assertIsInstance(result[0], _DLPackOnly)
                torch.cuda.synchronize()
                self.assertTrue(torch.equal(out, 2 * x + w))

        def test_inout_updates_in_place(self):
            # Outputs left out: the cache's new value is written into the
            # cache tensor itself, run after run (the second run captures a
            # CUDA graph, the third replays it).
            with fkrt.Module(INOUT) as m:
                x = torch.randn(1000, device=self.device,
                                generator=self.generator)
                cache = torch.randn(1000, device=self.device,
                                    generator=self.generator)
                want = cache.clone()
                for _ in range(3):
                    y, new_cache = m.run("accumulate", [x, cache])
                    want += x
                    self.assertIs(new_cache, cache)
                    self.assertTrue(torch.equal(y, 2 * x))
                    self.assertTrue(torch.allclose(cache, want))
                # A separate buffer for the new value is refused.
                with self.assertRaisesRegex(fkrt.Error,
                                            "is the new value of inout "
                                            "input 1 \\('cache'\\)"):
                    m.run("accumulate", [x, cache],
                          outputs=[torch.empty_like(x),
                                   torch.empty_like(cache)])

        def test_device_sm_count(self):
            props = torch.cuda.get_device_properties(self.device)
            self.assertEqual(fkrt.device_sm_count(self.device.index),
                             props.multi_processor_count)

        def test_gpu_argument_errors(self):
            with fkrt.Module(ADD) as m:
                x = torch.randn(2000, device=self.device)[::2]
                w = torch.randn(1000, device=self.device)
                with self.assertRaises(fkrt.ArgumentError) as e:
                    m.run("add", [x, w])
                self.assertIn("input 0 ('x'): expected a contiguous", str(
                    e.exception))
                with self.assertRaises(fkrt.ArgumentError) as e:
                    m.run("add", [w, w.cpu()])
                self.assertIn("input 1 ('w'): expected a CUDA tensor",
                              str(e.exception))

        def test_bad_stream(self):
            with fkrt.Module(ADD) as m:
                w = torch.randn(1000, device=self.device)
                with self.assertRaises(TypeError):
                    m.run("add", [w, w], stream="default")
                self.assertIsNone(m.device)

        def test_one_module_from_threads(self):
            # Eight Python threads run "scale" of one module, each on a
            # stream of its own with inputs of its own (whole numbers, so
            # the result is exact), checked after every run. Its second
            # kernel spins before reading the workspace, so runs sharing a
            # workspace would clash; each run reports its workspace, and
            # the module has at most one per thread.
            threads, rounds = 8, 20
            errors, workspaces = [], set()
            lock = threading.Lock()

            def body(m, t):
                stream = torch.cuda.Stream(device=self.device)
                with torch.cuda.stream(stream):
                    i = torch.arange(2048, device=self.device,
                                     dtype=torch.float32)
                    for r in range(rounds):
                        key = t * 1000 + r
                        x = torch.remainder(i * 7 + key * 131, 2001) - 1000
                        w = torch.remainder(i * 3 + key * 17, 1001) - 500
                        y, where = m.run("scale", [x, w], stream=stream)
                        stream.synchronize()
                        if not torch.equal(y, 3 * x + 1 - w):
                            raise AssertionError("round %d: y differs from "
                                                 "3x + 1 - w" % r)
                        with lock:
                            workspaces.add(where.view(torch.int64).item())

            def run(m, t):
                try:
                    body(m, t)
                except Exception as e:  # reported by the main thread
                    with lock:
                        errors.append("thread %d: %r" % (t, e))

            with fkrt.Module(LOAD) as m:
                workers = [threading.Thread(target=run, args=(m, t))
                           for t in range(threads)]
                for worker in workers:
                    worker.start()
                for worker in workers:
                    worker.join()
                torch.cuda.synchronize()
            self.assertEqual(errors, [])
            self.assertNotIn(0, workspaces)
            self.assertTrue(1 <= len(workspaces) <= threads, workspaces)

        def test_failed_launch_leaves_module_usable(self):
            # "fail"'s third launch is rejected after the first two (y =
            # 9x + 4 through the workspace) were enqueued: the error names
            # the launch and kernel, and the module then runs its other
            # graph on the same workspace (a pooled one: CUDA graph
            # replays, which own theirs, are off).
            with fkrt.Module(LOAD) as m:
                m.cuda_graphs = False
                x = torch.arange(2048, device=self.device,
                                 dtype=torch.float32) - 1000
                w = torch.remainder(x * 3, 1001)
                _, where = m.run("scale", [x, w])
                first = where.view(torch.int64).item()
                y = torch.full((2048,), float("nan"), device=self.device)
                with self.assertRaises(fkrt.Error) as e:
                    m.run("fail", [x, w], outputs=[y])
                self.assertEqual(e.exception.status, fkrt.ERROR_CUDA)
                self.assertIn("graph 'fail' launch 2 (kernel 'load_reject'):"
                              " cuLaunchKernel failed", str(e.exception))
                self.assertTrue(torch.equal(y, 9 * x + 4))
                for _ in range(3):
                    y, where = m.run("scale", [x, w])
                    self.assertTrue(torch.equal(y, 3 * x + 1 - w))
                    self.assertEqual(where.view(torch.int64).item(), first)

        def test_jit_error_reported(self):
            bad = open(ADD, "rb").read().replace(b"add.f32", b"add.bogus")
            with fkrt.Module(data=bad) as m:
                w = torch.randn(1000, device=self.device)
                with self.assertRaises(fkrt.Error) as e:
                    m.run("add", [w, w])
                self.assertEqual(e.exception.status, fkrt.ERROR_JIT)


if __name__ == "__main__":
    if LIBRARY_ERROR:
        _note("nothing runs: %s" % LIBRARY_ERROR)
    elif TORCH_ERROR:
        _note("run validation and GPU tests not run: %s" % TORCH_ERROR)
    elif GPU_ERROR:
        _note("GPU tests not run: %s" % GPU_ERROR)
    else:
        _note("GPU tests on %s with %s" % (torch.cuda.get_device_name(),
                                           ", ".join(ARTIFACTS)))
    unittest.main(argv=_ARGV)
